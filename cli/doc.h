/* cli/doc.h - the man page and the bash completion, rendered from the command line's own
 * verb and option tables (`gpustream --generate man|complete-bash`), so that neither can drift
 * from --help: an option or verb added to the tables (gpustream.c, cli/options.c) appears in both. */
#ifndef GS_DOC_H
#define GS_DOC_H

#include <stddef.h>
#include <stdio.h>

typedef struct gs_doc_verb {
    const char *name, *summary, *usage, *examples;
    unsigned bit;       /* the verb's bit in gs_doc_opt.verbs */
} gs_doc_verb;

typedef struct gs_doc_opt {
    const char *lng;    /* long name without "--" */
    char shrt;          /* short name or 0 */
    int arg;            /* 0 none, 1 required, 2 optional (--stats[=json]) */
    unsigned verbs;     /* verb bits it applies to */
    const char *meta, *help;
} gs_doc_opt;

/* The words an option's value can be, for the verbs in `verbs` (completion; the man page lists
 * them under the option). "@algo" stands for the --algo names, which depend on the build: the
 * completion asks the installed binary (`gpustream --generate algo-names`); a word ending in ':'
 * takes parameters after it (range:A:B); "@file" completes file names. */
typedef struct gs_doc_values {
    const char *lng;
    unsigned verbs;
    const char *words;
} gs_doc_values;

typedef struct gs_doc {
    const char *version;
    const char *description; /* one line: what gpustream is */
    const char *notes;       /* the main help's notes: IN/OUT, formats, sizes, exit status */
    const char *examples;    /* the main help's examples, two spaces before each line */
    const char *chains;      /* the main help's text on chains (VERB ... then VERB ...) */
    const char *chain_examples;
    unsigned stage_bits;     /* the verbs a chain takes as stages */
    const gs_doc_verb *verbs;
    size_t nverbs;
    const gs_doc_opt *opts;
    size_t nopts;
    const gs_doc_values *values;
    size_t nvalues;
} gs_doc;

/* Write the man page (roff) or the bash completion script; 0 or -1 if writing failed. */
int gs_doc_man(FILE *f, const gs_doc *d);
int gs_doc_bash(FILE *f, const gs_doc *d);

#endif
