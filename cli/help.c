/* cli/help.c - `gpustream --help`, `gpustream VERB --help`, and the man page and bash completion
 * (`--generate man|complete-bash`, rendered by cli/doc.c) from the same verb and option tables. */
#include "cli.h"
#include "doc.h"

#include <string.h>

/* The main help's parts, shared with the man page. */
static const char main_description[] = "stream arrays of numbers far larger than memory through the GPU (or CPU)";
static const char main_notes[] =
    "IN/OUT: a missing name or '-' means stdin/stdout; '--' ends options.\n"
    "Formats: raw (native little-endian), npy, csv, text; zstd input is detected, output with -z or .zst.\n"
    "Sizes take suffixes: 64M, 1G, 2^28, 4e9.\n"
    "Exit status: 0 ok, 1 data or runtime error, 2 usage error.\n";
static const char main_examples[] =
    "  gpustream compact --pred nonzero in.zst out.zst\n"
    "  gpustream scan --op max data.csv --col price --to csv > runmax.csv\n"
    "  gpustream gen -n 1e8 -t f32 --dist walk | gpustream minmax -w 500 -t f32 > env.raw\n";
static const char main_chains[] =
    "'then' joins scan, compact and minmax into one pass: one reader, one writer, every stage\n"
    "on each chunk with its own carry (on the GPU the data stay on the device between stages). A\n"
    "stage takes its own options up to the next 'then' (given twice, the last wins); the options of\n"
    "the whole run (IN, OUT, -t, --from/--to, --col, --backend, --chunk, --threads, -z, --level,\n"
    "--frame-size, -f, -q, --stats, --progress ...) go in any stage, and given in two stages with\n"
    "different values they are a usage error naming both. A stage reads the type the one before\n"
    "writes (scan --out-type widens; compact --indices writes u64); minmax passes one column on\n"
    "(--only min|max); --count ends a chain; convert, gen, bench and info are not stages. The output\n"
    "equals the same verbs piped in a shell, but float sums: a stage after compact sees other chunk\n"
    "boundaries, so they may differ by reassociation (the sequential --algo cpu does not). --stats\n"
    "times each stage. A file named then is given as ./then.\n";
static const char main_chain_examples[] =
    "  gpustream compact --pred nonzero then scan then minmax -w 500 --only max in.zst out.zst\n"
    "  gpustream scan --out-type i64 -t i32 then compact --pred gt:0 --count x.raw\n"
    "  gpustream bench --chain 'compact --pred nonzero then scan then minmax -w 500 --only max'\n";

void print_version(void)
{
    printf("gpustream %s\n", GS_VERSION);
}

void print_main_help(FILE *f)
{
    fprintf(f,
            "gpustream %s - %s\n\nusage: " CLI_USAGE "\n"
            "       gpustream VERB [OPTIONS] then VERB [OPTIONS] ... [IN [OUT]]   (a chain)\n\nverbs:\n",
            GS_VERSION, main_description);
    for (size_t i = 0; i < cli_nverbs; i++) fprintf(f, "  %-9s %s\n", cli_verbs[i].name, cli_verbs[i].summary);
    fprintf(f, "\n%s\nexamples:\n%s\nchains: %s%s\n"
               "'gpustream VERB --help' shows a verb's options and examples;\n"
               "'gpustream --generate man|complete-bash' prints the man page or the bash completion.\n",
            main_notes, main_examples, main_chains, main_chain_examples);
}

void print_verb_help(const verb_def *v)
{
    printf("gpustream %s - %s\n\nusage: %s\n\noptions:\n", v->name, v->summary, v->usage);
    for (size_t i = 0; i < cli_nopts; i++) {
        const opt_def *o = &cli_opts[i];
        if (!(o->verbs & v->bit)) continue;
        char lhs[64];
        int k = 0;
        if (o->shrt) k = snprintf(lhs, sizeof lhs, "-%c, ", o->shrt);
        else k = snprintf(lhs, sizeof lhs, "    ");
        snprintf(lhs + k, sizeof lhs - (size_t)k, o->arg == 2 ? "--%s[=%s]" : o->arg ? "--%s %s" : "--%s", o->lng,
                 o->meta ? o->meta : "");
        printf("  %-28s %s\n", lhs, o->help);
    }
    printf("\nexamples:\n%s", v->examples);
    if (!(v->bit & V_STAGE)) return;
    /* The stage's own options, from the table: the rest describe the whole run of a chain. */
    printf("\nchains ('A then B ...', see gpustream --help): this stage's own options are");
    for (size_t i = 0; i < cli_nopts; i++)
        if ((cli_opts[i].verbs & v->bit) && (cli_opts[i].verbs & S_STAGE) && cli_opts[i].id != O_HELP)
            printf(" --%s", cli_opts[i].lng);
    printf(";\nthe others describe the whole run and go in any stage, once.\n");
}

/* ---- man page and completion ------------------------------------------------------------------ */
/* The words an option's value can be, per verb (~0u: every verb the option applies to).
 * "@type", "@format" and "@pred" are filled in from the lists the parsers use; "@algo" is the
 * verb's --algo names. tests/cli/test_docs.sh checks that the parsers accept every word. */
static const gs_doc_values opt_values[] = {
    {"type", ~0u, "@type"},
    {"out-type", ~0u, "@type"},
    {"from", ~0u, "@format"},
    {"to", ~0u, "@format"},
    {"pred", ~0u, "@pred"},
    {"algo", ~0u, "@algo"},
    {"op", V_SCAN, "sum min max"},
    {"op", V_BENCH, "scan compact minmax rolling all"},
    {"backend", ~0u, "auto gpu cpu"},
    {"host-mem", ~0u, "pinned pageable registered mapped"},
    {"device-alloc", ~0u, "once per-chunk async"},
    {"only", ~0u, "min max"},
    {"agg", ~0u, "sum mean var std count min max argmin argmax"},
    {"dist", ~0u, "uniform: normal: walk sparse: sine:"},
    {"stats", ~0u, "json"},
    {"csv", ~0u, "@file"},
};
#define NVALUES (sizeof opt_values / sizeof opt_values[0])

/* Append a word to a space-separated list. */
static void add_word(char *buf, size_t len, const char *w, const char *suffix)
{
    size_t k = strlen(buf);
    snprintf(buf + k, len - k, "%s%s%s", k ? " " : "", w, suffix);
}

/* The words of "@type", "@format" and "@pred", from the lists the parsers use. */
static void value_words(char *types, size_t ntypes, char *formats, size_t nformats, char *preds, size_t npreds)
{
    for (int t = 0; t < GS_NTYPES; t++) add_word(types, ntypes, gs_type_name((gs_type)t), "");
    for (int f = GS_FMT_RAW; strcmp(gs_format_name((gs_format)f), "?"); f++)
        add_word(formats, nformats, gs_format_name((gs_format)f), "");
    for (int k = 0; k <= GS_PRED_NAN; k++)
        add_word(preds, npreds, gs_pred_name((gs_pred_kind)k), gs_pred_nargs((gs_pred_kind)k) ? ":" : "");
}

int cmd_generate(const char *what)
{
    if (what && !strcmp(what, "algo-names")) { /* "op name" lines: this build's variants, for the completion */
        size_t nv;
        const gs_variant *var = gs_variants(&nv);
        for (size_t k = 0; k < nv; k++) printf("%s %s\n", gs_op_name(var[k].op), var[k].name);
        return EXIT_OK;
    }
    if (!what || (strcmp(what, "man") && strcmp(what, "complete-bash")))
        return usage_error(NULL, "--generate takes man or complete-bash");
    char types[64] = "", formats[64] = "", preds[160] = "";
    gs_doc_verb dv[cli_nverbs];
    gs_doc_opt dop[cli_nopts];
    gs_doc_values dval[NVALUES];
    value_words(types, sizeof types, formats, sizeof formats, preds, sizeof preds);
    for (size_t i = 0; i < cli_nverbs; i++) {
        const verb_def *v = &cli_verbs[i];
        dv[i] = (gs_doc_verb){v->name, v->summary, v->usage, v->examples, v->bit};
    }
    for (size_t i = 0; i < cli_nopts; i++) {
        const opt_def *o = &cli_opts[i];
        dop[i] = (gs_doc_opt){o->lng, o->shrt, o->arg, o->verbs, o->meta, o->help};
    }
    for (size_t i = 0; i < NVALUES; i++) {
        dval[i] = opt_values[i];
        if (!strcmp(dval[i].words, "@type")) dval[i].words = types;
        else if (!strcmp(dval[i].words, "@format")) dval[i].words = formats;
        else if (!strcmp(dval[i].words, "@pred")) dval[i].words = preds;
    }
    const gs_doc d = {GS_VERSION, main_description, main_notes, main_examples, main_chains, main_chain_examples,
                      V_STAGE, dv, cli_nverbs, dop, cli_nopts, dval, NVALUES};
    const int failed = !strcmp(what, "man") ? gs_doc_man(stdout, &d) : gs_doc_bash(stdout, &d);
    return failed ? EXIT_DATA : EXIT_OK;
}
