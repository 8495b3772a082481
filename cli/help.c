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
    "'then' joins scan, compact, minmax and rolling into one pass: one reader, one writer, every stage\n"
    "on each chunk with its own carry (on the GPU the data stay on the device between stages). A\n"
    "stage takes its own options up to the next 'then' (given twice, the last wins); the options of\n"
    "the whole run (IN, OUT, -t, --from/--to, --col, --backend, --chunk, --threads, -z, --level,\n"
    "--frame-size, -f, -q, --stats, --progress ...) go in any stage, and given in two stages with\n"
    "different values they are a usage error naming both. A stage reads the type the one before\n"
    "writes (scan --out-type widens; compact --indices writes u64); minmax passes one column on\n"
    "(--only min|max), rolling its one --agg (several end a chain); --count ends a chain; convert, gen, bench and info are not stages. The output\n"
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

/* ---- help text, wrapped to the terminal's customary 80 columns ------------------------------ */
#define HELP_WIDTH 80
#define OPT_COL 28 /* where an option's text starts */

/* The options `VERB -h` shows (long names; the rest are in --help). */
static const struct {
    unsigned bit;
    const char *opts;
} short_opts[] = {
    {V_SCAN, "op exclusive out-type type"},
    {V_COMPACT, "pred invert indices count type"},
    {V_MINMAX, "window partial only type"},
    {V_CONVERT, "type out-type to zstd"},
    {V_GEN, "elements type dist seed to zstd"},
    {V_BENCH, "op elements type algo window stream chain zstd csv"},
    {V_INFO, "device"},
};

/* len bytes of s on f, wrapped at spaces to HELP_WIDTH: the first line from column col, the
 * others indented by indent; a word longer than a line stands alone. Ends without a newline. */
static void wrap(FILE *f, const char *s, size_t len, int col, int indent)
{
    const char *p = s, *end = s + len;
    while (p < end) {
        const size_t room = col < HELP_WIDTH ? (size_t)(HELP_WIDTH - col) : 0;
        const char *brk = end;
        if ((size_t)(end - p) > room) {
            brk = NULL;
            for (const char *q = p + room; q > p; q--)
                if (*q == ' ') {
                    brk = q;
                    break;
                }
            if (!brk) brk = memchr(p, ' ', (size_t)(end - p));
            if (!brk) brk = end;
        }
        fwrite(p, 1, (size_t)(brk - p), f);
        for (p = brk; p < end && *p == ' ';) p++;
        if (p < end) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        }
    }
}

/* Lines of text, each wrapped; a wrapped command line goes on after " \" (examples). */
static void wrap_lines(FILE *f, const char *text, int indent, int command)
{
    for (const char *s = text; *s;) {
        const char *e = strchr(s, '\n');
        const size_t len = e ? (size_t)(e - s) : strlen(s);
        if (command && len > HELP_WIDTH) { /* break after a pipe, else before the last word that fits */
            const char *brk = NULL, *pipe = NULL;
            int quoted = 0;
            for (const char *q = s + indent; q < s + HELP_WIDTH - 2; q++) {
                quoted ^= *q == '\'';
                if (*q == ' ' && !quoted) brk = q;
                if (*q == ' ' && !quoted && q[-1] == '|') pipe = q;
            }
            if (pipe) brk = pipe;
            if (brk) {
                fwrite(s, 1, (size_t)(brk - s), f);
                fprintf(f, " \\\n%*s", indent + 4, "");
                wrap(f, brk + 1, len - (size_t)(brk + 1 - s), indent + 4, indent + 4);
            } else
                fwrite(s, 1, len, f);
        } else
            wrap(f, s, len, 0, indent);
        fputc('\n', f);
        s += len + (e ? 1 : 0);
    }
}

void print_main_help(FILE *f)
{
    char title[256], chains[sizeof main_chains];
    snprintf(title, sizeof title, "gpustream %s - %s", GS_VERSION, main_description);
    wrap(f, title, strlen(title), 0, 2);
    fprintf(f, "\n\nusage: " CLI_USAGE "\n"
               "       gpustream VERB [OPTIONS] then VERB [OPTIONS] ... [IN [OUT]]\n\nverbs:\n");
    for (size_t i = 0; i < cli_nverbs; i++) fprintf(f, "  %-9s %s\n", cli_verbs[i].name, cli_verbs[i].summary);
    fputc('\n', f);
    wrap_lines(f, main_notes, 2, 0);
    fputs("\nexamples:\n", f);
    wrap_lines(f, main_examples, 2, 1);
    fputs("\nchains: ", f); /* one paragraph: its line breaks are the man page's business */
    for (size_t i = 0; i < sizeof chains; i++) chains[i] = main_chains[i] == '\n' ? ' ' : main_chains[i];
    wrap(f, chains, strlen(chains) - 1, 8, 0);
    fputc('\n', f);
    wrap_lines(f, main_chain_examples, 2, 1);
    fputs("\n'gpustream VERB -h' sums up a verb; 'gpustream VERB --help' lists its options.\n"
          "'gpustream --generate man|complete-bash' prints the man page or bash completion.\n",
          f);
}

/* Whether an option's text segment (between "; ") speaks of another verb ("bench: a list",
 * "bench --zstd: ..."): such a segment is left out of v's help. */
static int other_verbs_segment(const verb_def *v, const char *seg)
{
    for (size_t i = 0; i < cli_nverbs; i++) {
        const size_t n = strlen(cli_verbs[i].name);
        if (&cli_verbs[i] != v && !strncmp(seg, cli_verbs[i].name, n) && (seg[n] == ':' || !strncmp(seg + n, " --", 3)))
            return 1;
    }
    return 0;
}

/* An option's line: its names, then its text (the segments that concern v), wrapped. */
static void print_opt(const verb_def *v, const opt_def *o)
{
    char lhs[64], text[512] = "";
    int k = o->shrt ? snprintf(lhs, sizeof lhs, "-%c, ", o->shrt) : snprintf(lhs, sizeof lhs, "    ");
    snprintf(lhs + k, sizeof lhs - (size_t)k, o->arg == 2 ? "--%s[=%s]" : o->arg ? "--%s %s" : "--%s", o->lng,
             o->meta ? o->meta : "");
    int depth = 0;
    for (const char *s = o->help, *seg = s;; s++) { /* segments split at "; " outside parentheses */
        depth += *s == '(' ? 1 : *s == ')' ? -1 : 0;
        if (*s && !(depth == 0 && s[0] == ';' && s[1] == ' ')) continue;
        if (!other_verbs_segment(v, seg)) {
            const size_t used = strlen(text);
            snprintf(text + used, sizeof text - used, "%s%.*s", used ? "; " : "", (int)(s - seg), seg);
        }
        if (!*s) break;
        seg = s + 2;
    }
    const int col = printf("  %-*s", OPT_COL - 4, lhs);
    if (col > OPT_COL - 2) printf("\n%*s", OPT_COL, "");
    else printf("%*s", OPT_COL - col, "");
    wrap(stdout, text, strlen(text), OPT_COL, OPT_COL);
    putchar('\n');
}

static int in_list(const char *list, const char *word)
{
    const size_t n = strlen(word);
    for (const char *p = strstr(list, word); p; p = strstr(p + 1, word))
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n])) return 1;
    return 0;
}

void print_verb_help(const verb_def *v, int full)
{
    const char *own = "";
    for (size_t i = 0; i < sizeof short_opts / sizeof short_opts[0]; i++)
        if (short_opts[i].bit == v->bit) own = short_opts[i].opts;
    printf("gpustream %s - %s\n\nusage: ", v->name, v->summary);
    const int indent = 7 + (int)strlen("gpustream ") + (int)strlen(v->name) + 1; /* under the first option */
    for (const char *s = v->usage; *s;) { /* a usage of several lines: each wrapped, re-indented */
        const int col = s == v->usage ? 7 : printf("%*s", indent, "");
        while (*s == ' ') s++;
        const char *e = strchr(s, '\n');
        const size_t len = e ? (size_t)(e - s) : strlen(s);
        wrap(stdout, s, len, col, indent);
        if (e) putchar('\n');
        s += len + (e ? 1 : 0);
    }
    printf("\n\noptions:\n");
    for (size_t i = 0; i < cli_nopts; i++)
        if ((cli_opts[i].verbs & v->bit) && (full || in_list(own, cli_opts[i].lng))) print_opt(v, &cli_opts[i]);
    printf("\nexamples:\n");
    if (!full) { /* the first two that fit on a line */
        int shown = 0;
        for (const char *s = v->examples; *s && shown < 2;) {
            const char *e = strchr(s, '\n');
            const size_t len = e ? (size_t)(e - s) : strlen(s);
            if (len <= HELP_WIDTH) shown += printf("%.*s\n", (int)len, s) > 0;
            s += len + (e ? 1 : 0);
        }
        int all = 0;
        for (size_t i = 0; i < cli_nopts; i++) all += (cli_opts[i].verbs & v->bit) != 0;
        printf("\n'gpustream %s --help' lists all %d options.\n", v->name, all);
        return;
    }
    wrap_lines(stdout, v->examples, 2, 1);
    if (!(v->bit & V_STAGE)) return;
    /* The stage's own options, from the table: the rest describe the whole run of a chain. */
    char line[1024];
    int k = snprintf(line, sizeof line, "chains ('A then B ...', see gpustream --help): this stage's own options are");
    for (size_t i = 0; i < cli_nopts; i++)
        if ((cli_opts[i].verbs & v->bit) && (cli_opts[i].verbs & S_STAGE) && cli_opts[i].id != O_HELP && k < (int)sizeof line)
            k += snprintf(line + k, sizeof line - (size_t)k, " --%s", cli_opts[i].lng);
    if (k < (int)sizeof line) snprintf(line + k, sizeof line - (size_t)k, "; the others describe the whole run and go in any stage, once.");
    putchar('\n');
    wrap(stdout, line, strlen(line), 0, 0);
    putchar('\n');
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
    {"host-mem", ~0u, "direct pinned pageable registered mapped"},
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
