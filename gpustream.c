/* gpustream.c - the command line: a verb table, options as data, help with examples.
 * The only file that prints to the user or exits; everything below returns a gs_status.
 *
 *   gpustream VERB [OPTIONS] [IN [OUT]]
 *   gpustream VERB [OPTIONS] then VERB [OPTIONS] ... [IN [OUT]]     (a chain)
 */
#include "pipeline/pipeline.h"
#include "pipeline/mpi.h"
#include "io/io.h"
#include "common/pool.h"
#include "common/trace.h"
#include "pipeline/bench.h"
#include "gpustream_doc.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef GS_VERSION
#define GS_VERSION "0.1.0"
#endif

enum { EXIT_OK = 0, EXIT_DATA = 1, EXIT_USAGE = 2 };

/* ---- messages ---------------------------------------------------------------------------- */
static int quiet;
/* In a chain, "stage K (VERB): " ahead of the errors found in that stage's options. */
static char err_stage[48];
static int mute;       /* MPI ranks other than 0: rank 0 says what all agreed on */
static int ranks_ran;  /* cmd_compute_ranks ran (MPI initialised and finalised) */
static int verbose;    /* -v: notes that are otherwise shown only with --stats */

/* One line on stderr: "gpustream: KIND: message". Notes and warnings obey -q; errors never do. */
static void vsay(const char *kind, int always, const char *fmt, va_list ap)
{
    if ((quiet && !always) || mute) return;
    fprintf(stderr, "gpustream: %s: %s", kind, always ? err_stage : "");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

#define GS_SAY(name, kind, always)        \
    static void name(const char *fmt, ...) \
    {                                      \
        va_list ap;                        \
        va_start(ap, fmt);                 \
        vsay(kind, always, fmt, ap);       \
        va_end(ap);                        \
    }
GS_SAY(say_error, "error", 1)
GS_SAY(say_warning, "warning", 0)
GS_SAY(say_note, "note", 0)
#undef GS_SAY

/* A usage error: the message, then where to find help; exit status 2. */
static int usage_error(const char *verb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay("error", 1, fmt, ap);
    va_end(ap);
    if (!mute) fprintf(stderr, "Try 'gpustream %s--help' for more information.\n", verb ? verb : "");
    return EXIT_USAGE;
}

/* ---- verbs and options as data ------------------------------------------------------------- */
enum verb_bit {
    V_SCAN = 1 << 0, V_COMPACT = 1 << 1, V_MINMAX = 1 << 2, V_CONVERT = 1 << 3, V_GEN = 1 << 4,
    V_INFO = 1 << 5, V_BENCH = 1 << 6,
};
#define V_COMPUTE (V_SCAN | V_COMPACT | V_MINMAX | V_CONVERT)
#define V_OUTPUT (V_COMPUTE | V_GEN)
#define V_ENGINE (V_COMPUTE | V_GEN)
#define V_STAGE (V_SCAN | V_COMPACT | V_MINMAX) /* verbs a chain takes */
/* In opt_def.verbs: an option of the stage it is given in; every other option of a chain's verbs
 * describes the whole run (IN, OUT, -t, --chunk ...) and may be given once, in any stage. */
#define S_STAGE (1u << 16)

enum opt_id {
    O_TYPE, O_FROM, O_TO, O_ZSTD, O_LEVEL, O_FRAME, O_COL, O_HEADER, O_NOHEADER, O_DELIM, O_SKIPBAD,
    O_BACKEND, O_DEVICE, O_ALGO, O_CHUNK, O_BUFFERS, O_HOSTMEM, O_DEVALLOC, O_DEVLIMIT, O_THREADS,
    O_CODEC, O_FORCE, O_QUIET, O_VERBOSE, O_PROGRESS, O_NOPROGRESS, O_STATS, O_OUTTYPE,
    O_OP, O_EXCLUSIVE, O_PRED, O_INVERT, O_INDICES, O_COUNT, O_WINDOW, O_PARTIAL, O_ONLY,
    O_N, O_DIST, O_SEED, O_HELP,
    O_BLOCK, O_DENSITY, O_REPS, O_STREAM, O_CHAIN, O_CSV, O_JSON,
};

typedef struct opt_def {
    enum opt_id id;
    const char *lng;
    char shrt;
    int arg; /* 0 none, 1 required, 2 optional (--stats[=json]) */
    unsigned verbs;
    const char *meta, *help;
} opt_def;

static const opt_def opts[] = {
    {O_TYPE, "type", 't', 1, V_ENGINE | V_BENCH, "T", "element type: i32 i64 u32 u64 f32 f64 (raw default i32, csv/text f64)"},
    {O_OUTTYPE, "out-type", 0, 1, V_SCAN | V_CONVERT | S_STAGE, "T", "output type (scan: i32->i64, u32->u64, f32->f64 widen; convert: narrowing saturates to the type's min/max, NaN -> 0)"},
    {O_OP, "op", 0, 1, V_SCAN | V_BENCH | S_STAGE, "OP", "scan: sum (default), min or max; bench: scan, compact, minmax or all"},
    {O_EXCLUSIVE, "exclusive", 0, 0, V_SCAN | S_STAGE, NULL, "exclusive scan: out[i] combines x[0..i-1]"},
    {O_PRED, "pred", 0, 1, V_COMPACT | S_STAGE, "P", "nonzero eq:V ne:V gt:V ge:V lt:V le:V range:A:B finite nan"},
    {O_INVERT, "invert", 0, 0, V_COMPACT | S_STAGE, NULL, "keep the elements the predicate rejects"},
    {O_INDICES, "indices", 0, 0, V_COMPACT | S_STAGE, NULL, "write the u64 positions of kept elements"},
    {O_COUNT, "count", 0, 0, V_COMPACT | S_STAGE, NULL, "print only the number of kept elements"},
    {O_WINDOW, "window", 'w', 1, V_MINMAX | V_BENCH | S_STAGE, "W", "window length, at least 1 (minmax needs it); bench: a list (default 2,64,500,4096,1e6 on a GPU, 2,500,4096 on the CPU)"},
    {O_PARTIAL, "partial", 0, 0, V_MINMAX | S_STAGE, NULL, "n outputs: the first W-1 over partial windows"},
    {O_ONLY, "only", 0, 1, V_MINMAX | S_STAGE, "min|max", "write one of the two columns"},
    {O_N, "elements", 'n', 1, V_GEN | V_BENCH, "N", "number of elements (suffixes: 64M, 2^28, 4e9); bench: a list (default 2^28 on a GPU, 2^24 on the CPU, 2^30 with --stream)"},
    {O_BLOCK, "block", 0, 1, V_BENCH, "LIST", "GPU threads per block to sweep: powers of two, 32 to 1024 (default: tuned shapes)"},
    {O_DENSITY, "density", 0, 1, V_BENCH, "LIST", "compact: fractions kept (default 0.01,0.5,0.99)"},
    {O_REPS, "reps", 0, 1, V_BENCH, "N", "timed repeats per case, after one warm-up (default 10; 3 with --chain or --zstd); the median is reported"},
    {O_STREAM, "stream", 0, 0, V_BENCH, NULL, "time the host->device->host schedule per --host-mem and --buffers"},
    {O_CHAIN, "chain", 0, 1, V_BENCH, "'A then B'", "time a chain beside its stages run one by one, checked against them"},
    {O_CSV, "csv", 0, 1, V_BENCH, "FILE", "also write the rows as CSV (for make plots)"},
    {O_JSON, "json", 0, 0, V_BENCH, NULL, "print rows as JSON lines instead of a table"},
    {O_DIST, "dist", 0, 1, V_GEN | V_BENCH, "D", "uniform:A:B (default uniform:0:100) normal:MU:SIGMA walk sparse:P sine:PERIOD; bench --zstd: the data (default sparse:0.5)"},
    {O_SEED, "seed", 0, 1, V_GEN | V_BENCH, "S", "random seed (default 1); output depends only on seed and n"},
    {O_FROM, "from", 0, 1, V_COMPUTE, "FMT", "input format: raw npy csv text (default: magic, extension, raw); raw = not compressed (no zstd detection unless IN ends in .zst)"},
    {O_TO, "to", 0, 1, V_OUTPUT, "FMT", "output format: raw npy csv text (default: OUT's extension, else the input's)"},
    {O_ZSTD, "zstd", 'z', 0, V_OUTPUT | V_BENCH, NULL, "compress the output with zstd (implied by OUT ending in .zst); bench: time the zstd codecs, libzstd on the host and nvCOMP on the GPU"},
    {O_LEVEL, "level", 0, 1, V_OUTPUT | V_BENCH, "N", "zstd level (default 3; nvCOMP has none)"},
    {O_FRAME, "frame-size", 0, 1, V_OUTPUT | V_BENCH, "S", "uncompressed bytes per zstd frame: 1K to 1G (default 16M; 32K where the GPU encodes); bench --zstd: a list (default 64K,256K,1M,16M)"},
    {O_CODEC, "codec", 0, 1, V_ENGINE, "C", "zstd codec: auto (default: the GPU backend decodes a .zst of 1 GiB or more in frames up to 1 MiB, else libzstd decodes; the GPU encodes for inputs from 1 GiB; where nvCOMP is usable), gpu (nvCOMP both ways) or cpu"},
    {O_COL, "col", 0, 1, V_COMPUTE, "C", "CSV column: 1-based index or header name (default 1)"},
    {O_HEADER, "header", 0, 0, V_COMPUTE, NULL, "the first CSV row is a header"},
    {O_NOHEADER, "no-header", 0, 0, V_COMPUTE, NULL, "the first CSV row is data (default: detect)"},
    {O_DELIM, "delim", 0, 1, V_COMPUTE, "D", "CSV delimiter (default ','; 'tab' for tab)"},
    {O_SKIPBAD, "skip-bad", 0, 0, V_COMPUTE, NULL, "skip unparsable CSV/text fields (counted in --stats)"},
    {O_BACKEND, "backend", 0, 1, V_COMPUTE | V_BENCH, "B", "auto (default: the CPU for small inputs, else the GPU if usable; --stats says which and why), gpu or cpu"},
    {O_DEVICE, "device", 0, 1, V_COMPUTE | V_BENCH | V_INFO, "N", "GPU to use (default 0)"},
    {O_ALGO, "algo", 0, 1, (V_COMPUTE & ~V_CONVERT) | V_BENCH | S_STAGE, "NAME", "kernel variant (default: the fastest; see gpustream info)"},
    {O_CHUNK, "chunk", 0, 1, V_ENGINE | V_BENCH, "S", "input bytes per chunk (default " GS_CHUNK_DEFAULT_TEXT ")"},
    {O_BUFFERS, "buffers", 0, 1, V_COMPUTE | V_BENCH, "N", "host staging buffers / chunks in flight (default 2; 4 where the GPU decodes or encodes zstd)"},
    {O_HOSTMEM, "host-mem", 0, 1, V_COMPUTE | V_BENCH, "M", "pinned (default), pageable, registered or mapped"},
    {O_DEVALLOC, "device-alloc", 0, 1, V_COMPUTE | V_BENCH, "A", "once (default), per-chunk or async; bench --stream: a list"},
    {O_DEVLIMIT, "device-mem-limit", 0, 1, V_COMPUTE, "S", "cap on device memory used (forces chunking)"},
    {O_THREADS, "threads", 0, 1, V_ENGINE | V_BENCH, "N", "CPU threads (default: all cores; under mpirun, the cores shared by the ranks on this host)"},
    {O_FORCE, "force", 'f', 0, V_OUTPUT, NULL, "overwrite OUT; allow binary output to a terminal"},
    {O_QUIET, "quiet", 'q', 0, V_ENGINE, NULL, "no notes or warnings"},
    {O_VERBOSE, "verbose", 'v', 0, V_ENGINE, NULL, "notes about the run, e.g. falling back to the CPU for lack of a GPU"},
    {O_PROGRESS, "progress", 0, 0, V_ENGINE, NULL, "progress line on stderr (default when it is a terminal)"},
    {O_NOPROGRESS, "no-progress", 0, 0, V_ENGINE, NULL, "no progress line"},
    {O_STATS, "stats", 0, 2, V_ENGINE, "json", "timing and throughput summary on stderr (text or json)"},
    {O_HELP, "help", 'h', 0, ~0u, NULL, "this help"},
};
#define NOPTS (sizeof opts / sizeof opts[0])

typedef struct cli cli;
typedef int (*verb_fn)(cli *c);

typedef struct verb_def {
    const char *name;
    unsigned bit;
    verb_fn fn;
    const char *summary;
    const char *usage;
    const char *examples;
} verb_def;

/* What one stage's options set (a single verb is a chain of one stage). */
typedef struct cli_stage {
    const verb_def *verb;
    gs_job job;
    const char *pred; /* --pred text: parsed once the input type is known (npy headers) */
    int out_type_given, window_given;
} cli_stage;

/* Everything the options set. verb, job, pred and the *_given flags are the stage being parsed. */
struct cli {
    const verb_def *verb;
    const char *in, *out;
    gs_job job;
    const char *pred;
    cli_stage stages[GS_CHAIN_MAX];
    int nstages, chain;               /* chain: the command line has `then` */
    const char *seen_val[O_JSON + 1]; /* chain: a run-wide option's first value ... */
    const opt_def *seen_opt[O_JSON + 1];
    int seen_stage[O_JSON + 1];       /* ... and the stage it was given in */
    char title[128];                  /* "compact then scan" for --stats */
    gs_engine_opts eng;
    gs_read_opts rd;
    gs_write_opts wr;
    gs_gen_opts gen;
    int to_given, zstd, force, progress, stats, stats_json, out_type_given, n_given, window_given, device_given;
    int level_given, frame_given;
    gs_codec_kind codec;
    int in_bytes_have;  /* input_bytes has looked: its answer is in_bytes_val */
    uint64_t in_bytes_val;
    gs_format to;
    gs_bench_opts bench;
    const char *bench_csv, *bench_chain;
    int bench_json, bench_dist_given;
};

static int cmd_compute(cli *c);
static int cmd_gen(cli *c);
static int cmd_info(cli *c);
static int cmd_bench(cli *c);

static const verb_def verbs[] = {
    {"scan", V_SCAN, cmd_compute, "prefix scan: running sum, min or max",
     "gpustream scan [--op sum|min|max] [--exclusive] [--out-type T] [OPTIONS] [IN [OUT]]",
     "  gpustream scan -t i64 ticks.raw cumsum.raw\n"
     "  gpustream scan --op max data.csv --col price --to csv > runmax.csv\n"
     "  gpustream gen -n 1e9 -t i32 | gpustream scan --out-type i64 -t i32 --stats > /dev/null\n"
     "  gpustream compact --pred gt:0 then scan --out-type i64 -t i32 ticks.raw cum.raw\n"},
    {"compact", V_COMPACT, cmd_compute, "stream compaction: keep the elements a predicate accepts",
     "gpustream compact [--pred P] [--invert] [--indices] [--count] [OPTIONS] [IN [OUT]]",
     "  gpustream compact --pred nonzero in.zst out.zst\n"
     "  gpustream compact --pred range:10:20 --indices -t f32 x.raw idx.npy\n"
     "  gpustream compact --pred nan --count -t f64 series.npy\n"
     "  gpustream compact --pred nonzero then scan then minmax -w 500 --only max in.zst out.zst\n"},
    {"minmax", V_MINMAX, cmd_compute, "sliding-window minimum and maximum",
     "gpustream minmax -w W [--partial] [--only min|max] [OPTIONS] [IN [OUT]]",
     "  zstdcat ticks.i64.zst | gpustream minmax --window 500 -t i64 | zstd > env.zst\n"
     "  gpustream minmax -w 60 --partial prices.csv --col close envelope.csv\n"
     "  gpustream minmax -w 1000 --only max -t f32 signal.raw peaks.npy\n"
     "  gpustream minmax -w 100 --only min -t f32 then compact --pred lt:0 --indices sig.raw dips.raw\n"},
    {"convert", V_CONVERT, cmd_compute, "change format, type or compression; no compute",
     "gpustream convert [--out-type T] [--to FMT] [-z] [OPTIONS] [IN [OUT]]",
     "  gpustream convert data.csv --col 2 -t f32 data.npy\n"
     "  gpustream convert -t i64 big.raw big.raw.zst\n"
     "  gpustream convert x.npy --to csv | head\n"},
    {"gen", V_GEN, cmd_gen, "write synthetic data (deterministic for a seed)",
     "gpustream gen -n N [-t T] [--dist D] [--seed S] [--to FMT] [-z] [OUT]",
     "  gpustream gen -n 2^28 -t i32 --dist sparse:0.5 > x.raw\n"
     "  gpustream gen -n 4e9 -t f32 --dist walk | gpustream minmax -w 100000 -t f32 --stats > /dev/null\n"
     "  gpustream gen -n 1000 -t f64 --dist normal:0:1 --to csv walk.csv\n"},
    {"bench", V_BENCH, cmd_bench, "time every variant, verified against the CPU reference",
     "gpustream bench [--op scan|compact|minmax|all] [-n SIZES] [-t TYPES] [--algo LIST|all] [--window LIST]\n"
     "                [--density LIST] [--block LIST] [--reps N]\n"
     "                [--stream [--host-mem LIST] [--buffers LIST] [--device-alloc LIST]]\n"
     "                [--chain 'A then B ...'] [--zstd [--frame-size LIST] [--level N] [--dist D]]\n"
     "                [--csv FILE] [--json]",
     "  gpustream bench --op all\n"
     "  gpustream bench --op scan -n 2^20,2^24,2^28 -t i32,f64 --csv scan.csv\n"
     "  gpustream bench --op all --block 64,128,256,512 --density 0.5 --window 500 --csv blocks.csv\n"
     "  gpustream bench --op minmax --window 2,64,500,4096,1e6\n"
     "  gpustream bench --stream --host-mem pinned,pageable,registered,mapped --buffers 1,2,3\n"
     "  gpustream bench --stream --host-mem pinned --buffers 2 --device-alloc once,per-chunk,async\n"
     "  gpustream bench --chain 'compact --pred nonzero then scan then minmax -w 500 --only max' -n 2^28\n"
     "  gpustream bench --zstd -n 2^28 --frame-size 64K,16M --dist sparse:0.5\n"},
    {"info", V_INFO, cmd_info, "build options, devices, limits and kernel variants", "gpustream info",
     "  gpustream info\n"},
};
#define NVERBS (sizeof verbs / sizeof verbs[0])

/* ---- help -------------------------------------------------------------------------------- */
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

static void print_main_help(FILE *f)
{
    fprintf(f,
            "gpustream %s - %s\n\nusage: gpustream VERB [OPTIONS] [IN [OUT]]\n"
            "       gpustream VERB [OPTIONS] then VERB [OPTIONS] ... [IN [OUT]]   (a chain)\n\nverbs:\n",
            GS_VERSION, main_description);
    for (size_t i = 0; i < NVERBS; i++) fprintf(f, "  %-9s %s\n", verbs[i].name, verbs[i].summary);
    fprintf(f, "\n%s\nexamples:\n%s\nchains: %s%s\n"
               "'gpustream VERB --help' shows a verb's options and examples;\n"
               "'gpustream --generate man|complete-bash' prints the man page or the bash completion.\n",
            main_notes, main_examples, main_chains, main_chain_examples);
}

/* ---- man page and completion (gpustream_doc.c renders them from the tables above) --------- */
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
    {"op", V_BENCH, "scan compact minmax all"},
    {"backend", ~0u, "auto gpu cpu"},
    {"host-mem", ~0u, "pinned pageable registered mapped"},
    {"device-alloc", ~0u, "once per-chunk async"},
    {"only", ~0u, "min max"},
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

static int cmd_generate(const char *what)
{
    static char types[64], formats[64], preds[160];
    static gs_doc_verb dv[NVERBS];
    static gs_doc_opt dop[NOPTS];
    static gs_doc_values dval[NVALUES];
    if (what && !strcmp(what, "algo-names")) { /* "op name" lines: this build's variants, for the completion */
        size_t nv;
        const gs_variant *var = gs_variants(&nv);
        for (size_t k = 0; k < nv; k++) printf("%s %s\n", gs_op_name(var[k].op), var[k].name);
        return EXIT_OK;
    }
    for (int t = 0; t < GS_NTYPES; t++) add_word(types, sizeof types, gs_type_name((gs_type)t), "");
    for (int f = GS_FMT_RAW; strcmp(gs_format_name((gs_format)f), "?"); f++)
        add_word(formats, sizeof formats, gs_format_name((gs_format)f), "");
    for (int k = 0; k <= GS_PRED_NAN; k++)
        add_word(preds, sizeof preds, gs_pred_name((gs_pred_kind)k), gs_pred_nargs((gs_pred_kind)k) ? ":" : "");
    for (size_t i = 0; i < NVERBS; i++)
        dv[i] = (gs_doc_verb){verbs[i].name, verbs[i].summary, verbs[i].usage, verbs[i].examples, verbs[i].bit};
    for (size_t i = 0; i < NOPTS; i++)
        dop[i] = (gs_doc_opt){opts[i].lng, opts[i].shrt, opts[i].arg, opts[i].verbs, opts[i].meta, opts[i].help};
    for (size_t i = 0; i < NVALUES; i++) {
        dval[i] = opt_values[i];
        if (!strcmp(dval[i].words, "@type")) dval[i].words = types;
        else if (!strcmp(dval[i].words, "@format")) dval[i].words = formats;
        else if (!strcmp(dval[i].words, "@pred")) dval[i].words = preds;
    }
    const gs_doc d = {GS_VERSION, main_description, main_notes, main_examples, main_chains, main_chain_examples,
                      V_STAGE, dv, NVERBS, dop, NOPTS, dval, NVALUES};
    if (what && !strcmp(what, "man")) return gs_doc_man(stdout, &d) ? EXIT_DATA : EXIT_OK;
    if (what && !strcmp(what, "complete-bash")) return gs_doc_bash(stdout, &d) ? EXIT_DATA : EXIT_OK;
    return usage_error(NULL, "--generate takes man or complete-bash");
}

static void print_verb_help(const verb_def *v)
{
    printf("gpustream %s - %s\n\nusage: %s\n\noptions:\n", v->name, v->summary, v->usage);
    for (size_t i = 0; i < NOPTS; i++) {
        const opt_def *o = &opts[i];
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
    for (size_t i = 0; i < NOPTS; i++)
        if ((opts[i].verbs & v->bit) && (opts[i].verbs & S_STAGE) && opts[i].id != O_HELP) printf(" --%s", opts[i].lng);
    printf(";\nthe others describe the whole run and go in any stage, once.\n");
}

/* ---- option values ----------------------------------------------------------------------- */
static int parse_type(const char *verb, const char *s, gs_type *t)
{
    if (gs_type_parse(s, t)) return usage_error(verb, "invalid type '%s' (expected i32, i64, u32, u64, f32 or f64)", s);
    return 0;
}

static int parse_size(const char *verb, const char *what, const char *s, uint64_t *v)
{
    if (gs_size_parse(s, v)) return usage_error(verb, "invalid %s '%s' (examples: 64M, 1G, 2^28, 4e9)", what, s);
    return 0;
}

static int parse_int(const char *verb, const char *what, const char *s, long lo, long hi, long *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (!*s || *end || errno || x < lo || x > hi)
        return usage_error(verb, "invalid %s '%s' (expected an integer from %ld to %ld)", what, s, lo, hi);
    *v = x;
    return 0;
}

/* Split a comma list into items of at most 63 characters; calls fn for each. */
static int for_each_item(const char *list, int (*fn)(cli *, const char *), cli *c)
{
    char item[64];
    for (const char *p = list;;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        snprintf(item, sizeof item, "%.*s", (int)(l < 63 ? l : 63), p);
        int rc = fn(c, item);
        if (rc) return rc;
        if (!e) return 0;
        p = e + 1;
    }
}

static int bench_size(cli *c, const char *s)
{
    uint64_t v;
    if (parse_size("bench ", "size", s, &v)) return EXIT_USAGE;
    if (c->bench.nsizes == 16) return usage_error("bench ", "at most 16 sizes");
    c->bench.sizes[c->bench.nsizes++] = v;
    return 0;
}
static int bench_type(cli *c, const char *s)
{
    gs_type t;
    if (parse_type("bench ", s, &t)) return EXIT_USAGE;
    if (c->bench.ntypes == GS_NTYPES) return usage_error("bench ", "at most 6 types");
    c->bench.types[c->bench.ntypes++] = t;
    return 0;
}
static int bench_window(cli *c, const char *s)
{
    uint64_t v;
    if (parse_size("bench ", "window", s, &v) || v == 0) return v == 0 ? usage_error("bench ", "windows must be at least 1") : EXIT_USAGE;
    if (c->bench.nwindows == 8) return usage_error("bench ", "at most 8 windows");
    c->bench.windows[c->bench.nwindows++] = v;
    return 0;
}
static int bench_density(cli *c, const char *s)
{
    char *end;
    double d = strtod(s, &end);
    if (!*s || *end || !(d >= 0 && d <= 1)) return usage_error("bench ", "invalid density '%s' (from 0 to 1)", s);
    if (c->bench.ndensities == 8) return usage_error("bench ", "at most 8 densities");
    c->bench.densities[c->bench.ndensities++] = d;
    return 0;
}
/* Threads per block: a power of two from 32 to 1024 (which sizes a variant takes is the registry's
 * business: bench runs each variant at the listed sizes it accepts). */
static int bench_block(cli *c, const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || !gs_block_valid(v))
        return usage_error("bench ", "invalid --block '%s' (threads per block: 32, 64, 128, 256, 512 or 1024)", s);
    for (int i = 0; i < c->bench.nblocks; i++)
        if (c->bench.blocks[i] == v) return 0; /* listed twice: timed once */
    c->bench.blocks[c->bench.nblocks++] = (int)v; /* at most the six valid sizes */
    return 0;
}
static int bench_hostmem(cli *c, const char *s)
{
    gs_host_mem m;
    if (!gs_host_mem_parse(s, &m)) {
        if (c->bench.nhost_mems == 4) return usage_error("bench ", "at most 4 host-mem modes");
        c->bench.host_mems[c->bench.nhost_mems++] = m;
        return 0;
    }
    return usage_error("bench ", "unknown --host-mem '%s' (pinned, pageable, registered or mapped)", s);
}
static int dev_alloc_parse(const char *s)
{
    for (int i = 0; i < GS_NDEV_ALLOC; i++)
        if (!strcmp(s, gs_dev_alloc_names[i])) return i;
    return -1;
}
static int bench_devalloc(cli *c, const char *s)
{
    int k = dev_alloc_parse(s);
    if (k < 0) return usage_error("bench ", "unknown --device-alloc '%s' (once, per-chunk or async)", s);
    if (c->bench.ndev_allocs == GS_NDEV_ALLOC) return usage_error("bench ", "at most %d device-alloc modes", GS_NDEV_ALLOC);
    c->bench.dev_allocs[c->bench.ndev_allocs++] = (gs_dev_alloc)k;
    return 0;
}
static int bench_frame(cli *c, const char *s)
{
    uint64_t v;
    if (parse_size("bench ", "--frame-size", s, &v)) return EXIT_USAGE;
    if (v < 1024 || v > GS_ZSTD_FRAME_MAX) return usage_error("bench ", "--frame-size must be from 1K to 1G");
    if (c->bench.nframes == 8) return usage_error("bench ", "at most 8 frame sizes");
    c->bench.frames[c->bench.nframes++] = (size_t)v;
    return 0;
}
static int bench_buffers(cli *c, const char *s)
{
    long v;
    if (parse_int("bench ", "buffers", s, 1, 16, &v)) return EXIT_USAGE;
    if (c->bench.nbuffers == 4) return usage_error("bench ", "at most 4 buffer counts");
    c->bench.buffers[c->bench.nbuffers++] = (int)v;
    return 0;
}
static int bench_op(cli *c, const char *s)
{
    if (!strcmp(s, "all")) {
        c->bench.ops = 7;
        return 0;
    }
    for (int op = 0; op < GS_OP_NONE; op++)
        if (!strcmp(s, gs_op_name((gs_op)op))) {
            c->bench.ops |= 1u << op;
            return 0;
        }
    return usage_error("bench ", "unknown --op '%s' (scan, compact, minmax or all)", s);
}

/* bench takes lists where the other verbs take one value. */
static int apply_bench_opt(cli *c, const opt_def *o, const char *val)
{
    long l;
    switch (o->id) {
    case O_OP: return for_each_item(val, bench_op, c);
    case O_N: return for_each_item(val, bench_size, c);
    case O_TYPE: return for_each_item(val, bench_type, c);
    case O_WINDOW: return for_each_item(val, bench_window, c);
    case O_DENSITY: return for_each_item(val, bench_density, c);
    case O_BLOCK: return for_each_item(val, bench_block, c);
    case O_HOSTMEM: return for_each_item(val, bench_hostmem, c);
    case O_BUFFERS: return for_each_item(val, bench_buffers, c);
    case O_DEVALLOC: return for_each_item(val, bench_devalloc, c);
    case O_ALGO: c->bench.algos = val; return 0;
    case O_REPS:
        if (parse_int("bench ", "--reps", val, 1, 10000, &l)) return EXIT_USAGE;
        c->bench.reps = (int)l;
        return 0;
    case O_STREAM: c->bench.stream = 1; return 0;
    case O_ZSTD: c->bench.zstd = 1; return 0;
    case O_FRAME: return for_each_item(val, bench_frame, c);
    case O_LEVEL:
        if (parse_int("bench ", "--level", val, -131072, gs_zstd_max_level(), &l)) return EXIT_USAGE;
        c->bench.level = (int)l;
        return 0;
    case O_DIST: c->bench_dist_given = 1; return -1; /* into c->gen, then bench.gen in cmd_bench */
    case O_CSV: c->bench_csv = val; return 0;
    case O_CHAIN: c->bench_chain = val; return 0;
    case O_JSON: c->bench_json = 1; return 0;
    default: return -1; /* shared with the other verbs */
    }
}

/* The name an option is shown by: "-t/--type" or "--chunk". */
static const char *opt_label(const opt_def *o, char *buf, size_t len)
{
    if (o->shrt) snprintf(buf, len, "-%c/--%s", o->shrt, o->lng);
    else snprintf(buf, len, "--%s", o->lng);
    return buf;
}

/* The setting an option sets: its own, but --progress/--no-progress and --header/--no-header
 * are one setting each. */
static int opt_setting(const opt_def *o)
{
    return o->id == O_NOPROGRESS ? O_PROGRESS : o->id == O_NOHEADER ? O_HEADER : (int)o->id;
}

/* In a chain, a run-wide option may be given in any stage, once, or again with the same value
 * (within a stage the last one given counts, as for a single verb). */
static int chain_once(cli *c, const opt_def *o, const char *val)
{
    int key = opt_setting(o);
    const char *txt = o->id == O_NOPROGRESS || o->id == O_NOHEADER ? "off"
                      : o->id == O_PROGRESS || o->id == O_HEADER  ? "on"
                      : val                                      ? val
                                                                 : "";
    if (!c->seen_val[key]) {
        c->seen_val[key] = txt;
        c->seen_opt[key] = o;
        c->seen_stage[key] = c->nstages + 1;
        return 0;
    }
    if (!strcmp(c->seen_val[key], txt)) return 0;
    char a[48], b[48], va[80] = "", vb[80] = "";
    if (o->arg) {
        snprintf(va, sizeof va, " '%s'", c->seen_val[key]);
        snprintf(vb, sizeof vb, " '%s'", txt);
    }
    err_stage[0] = 0; /* the message names both stages */
    return usage_error(NULL, "%s%s in stage %d and %s%s in stage %d: a chain takes run-wide options once",
                       opt_label(c->seen_opt[key], a, sizeof a), va, c->seen_stage[key], opt_label(o, b, sizeof b), vb,
                       c->nstages + 1);
}

/* Apply one option. Returns 0 or an exit status. */
static int apply_opt(cli *c, const opt_def *o, const char *val)
{
    if (c->chain && !(o->verbs & S_STAGE) && o->id != O_HELP) {
        int crc = chain_once(c, o, val);
        if (crc) return crc;
    }
    if (c->verb->bit == V_BENCH) {
        int brc = apply_bench_opt(c, o, val);
        if (brc >= 0) return brc;
    }
    const char *vn = c->verb->name;
    char verb[32];
    snprintf(verb, sizeof verb, "%s ", vn);
    uint64_t u;
    long l;
    int rc = 0;
    switch (o->id) {
    case O_TYPE:
        rc = parse_type(verb, val, &c->rd.type);
        c->rd.type_given = 1;
        c->gen.type = c->rd.type;
        break;
    case O_OUTTYPE:
        rc = parse_type(verb, val, &c->job.out_type);
        c->out_type_given = 1;
        break;
    case O_FROM:
        if (gs_format_parse(val, &c->rd.format)) rc = usage_error(verb, "unknown format '%s' (raw, npy, csv, text)", val);
        break;
    case O_TO:
        if (gs_format_parse(val, &c->to)) rc = usage_error(verb, "unknown format '%s' (raw, npy, csv, text)", val);
        c->to_given = 1;
        break;
    case O_ZSTD: c->zstd = 1; break;
    case O_LEVEL:
        rc = parse_int(verb, "--level", val, -131072, gs_zstd_max_level(), &l);
        c->wr.level = (int)l;
        c->level_given = 1;
        c->zstd = 1;
        break;
    case O_FRAME:
        rc = parse_size(verb, "--frame-size", val, &u);
        if (!rc && (u < 1024 || u > GS_ZSTD_FRAME_MAX)) rc = usage_error(verb, "--frame-size must be from 1K to 1G");
        c->wr.frame_size = (size_t)u;
        c->frame_given = 1;
        break;
    case O_CODEC:
        if (!strcmp(val, "auto")) c->codec = GS_CODEC_AUTO;
        else if (!strcmp(val, "gpu")) c->codec = GS_CODEC_GPU;
        else if (!strcmp(val, "cpu")) c->codec = GS_CODEC_CPU;
        else rc = usage_error(verb, "unknown codec '%s' (auto, gpu or cpu)", val);
        break;
    case O_COL: {
        long k;
        c->rd.col = val;
        if (gs_col_number(val, &k) && (k < 1 || k > INT32_MAX - 1))
            rc = usage_error(verb, "invalid column '%s' (columns are counted from 1)", val);
        break;
    }
    case O_HEADER: c->rd.header = GS_HDR_YES; break;
    case O_NOHEADER: c->rd.header = GS_HDR_NO; break;
    case O_DELIM:
        if (!strcmp(val, "tab") || !strcmp(val, "\\t")) c->rd.delim = '\t';
        else if (strlen(val) == 1) c->rd.delim = val[0];
        else rc = usage_error(verb, "--delim takes one character or 'tab', not '%s'", val);
        c->wr.delim = c->rd.delim;
        break;
    case O_SKIPBAD: c->rd.skip_bad = 1; break;
    case O_BACKEND:
        if (!strcmp(val, "auto")) c->eng.backend = GS_BACKEND_AUTO;
        else if (!strcmp(val, "gpu")) c->eng.backend = GS_BACKEND_GPU;
        else if (!strcmp(val, "cpu")) c->eng.backend = GS_BACKEND_CPU;
        else rc = usage_error(verb, "unknown backend '%s' (auto, gpu or cpu)", val);
        break;
    case O_DEVICE:
        rc = parse_int(verb, "--device", val, 0, 1023, &l);
        c->eng.device = (int)l;
        c->device_given = 1;
        break;
    case O_ALGO: c->job.algo = val; break;
    case O_CHUNK:
        rc = parse_size(verb, "--chunk", val, &u);
        if (!rc && (u < 64 || u > (1ull << 40))) rc = usage_error(verb, "--chunk must be from 64 bytes to 1T");
        c->eng.chunk_bytes = (size_t)u;
        break;
    case O_BUFFERS:
        rc = parse_int(verb, "--buffers", val, 1, 64, &l);
        c->eng.buffers = (int)l;
        break;
    case O_HOSTMEM: {
        if (gs_host_mem_parse(val, &c->eng.host_mem))
            rc = usage_error(verb, "unknown --host-mem '%s' (pinned, pageable, registered or mapped)", val);
        break;
    }
    case O_DEVALLOC: {
        int k = dev_alloc_parse(val);
        if (k < 0) rc = usage_error(verb, "unknown --device-alloc '%s' (once, per-chunk or async)", val);
        else c->eng.dev_alloc = (gs_dev_alloc)k;
        break;
    }
    case O_DEVLIMIT:
        rc = parse_size(verb, "--device-mem-limit", val, &u);
        c->eng.device_mem_limit = u;
        break;
    case O_THREADS:
        rc = parse_int(verb, "--threads", val, 1, 4096, &l);
        c->eng.threads = c->rd.threads = c->wr.threads = (int)l;
        break;
    case O_FORCE: c->force = 1; break;
    case O_QUIET: quiet = 1; break;
    case O_VERBOSE: verbose = 1; break;
    case O_PROGRESS: c->progress = 1; break;
    case O_NOPROGRESS: c->progress = 0; break;
    case O_STATS:
        c->stats = 1;
        if (val && strcmp(val, "json")) rc = usage_error(verb, "--stats takes no value or =json");
        c->stats_json = val != NULL;
        break;
    case O_OP:
        if (!strcmp(val, "sum")) c->job.scan.op = GS_SCAN_SUM;
        else if (!strcmp(val, "min")) c->job.scan.op = GS_SCAN_MIN;
        else if (!strcmp(val, "max")) c->job.scan.op = GS_SCAN_MAX;
        else rc = usage_error(verb, "unknown --op '%s' (sum, min or max)", val);
        break;
    case O_EXCLUSIVE: c->job.scan.exclusive = 1; break;
    case O_PRED: c->pred = val; break;
    case O_INVERT: c->job.compact.invert = 1; break;
    case O_INDICES: c->job.compact.indices = 1; break;
    case O_COUNT: c->job.count_only = 1; break;
    case O_WINDOW:
        rc = parse_size(verb, "--window", val, &u);
        if (!rc && u == 0) rc = usage_error(verb, "--window must be at least 1");
        c->job.minmax.window = u;
        c->window_given = 1;
        break;
    case O_PARTIAL: c->job.partial = 1; break;
    case O_ONLY:
        if (!strcmp(val, "min")) c->job.minmax.only = GS_MM_MIN;
        else if (!strcmp(val, "max")) c->job.minmax.only = GS_MM_MAX;
        else rc = usage_error(verb, "--only takes min or max, not '%s'", val);
        break;
    case O_N:
        rc = parse_size(verb, "-n", val, &c->gen.n);
        c->n_given = 1;
        break;
    case O_DIST: {
        gs_status st = {0};
        if (gs_dist_parse(val, &c->gen, &st)) rc = usage_error(verb, "%s", st.msg);
        break;
    }
    case O_SEED: {
        char *end;
        errno = 0;
        c->gen.seed = strtoull(val, &end, 10);
        if (!*val || *end || errno) rc = usage_error(verb, "invalid --seed '%s'", val);
        break;
    }
    case O_HELP:
    default: break;
    }
    return rc;
}

static const verb_def *find_verb(const char *name)
{
    for (size_t i = 0; i < NVERBS; i++)
        if (!strcmp(name, verbs[i].name)) return &verbs[i];
    return NULL;
}

/* Start parsing stage k (0-based) of verb v: the stage options' defaults. */
static void stage_begin(cli *c, const verb_def *v)
{
    c->verb = v;
    memset(&c->job, 0, sizeof c->job);
    c->job.minmax.only = GS_MM_BOTH;
    c->pred = "nonzero";
    c->out_type_given = c->window_given = 0;
    if (c->chain) snprintf(err_stage, sizeof err_stage, "stage %d (%s): ", c->nstages + 1, v->name);
}

/* Options as given, applied once a stage's words are walked (a single verb: once argv is): a
 * repeated option takes its last value (as git and zstd do: `minmax -w 0 -w 3` runs with 3), a
 * list option (bench) its last list, and of --progress/--no-progress (--header/--no-header) the
 * last one counts. */
typedef struct given_opt {
    const opt_def *o;
    const char *val;
} given_opt;

static int apply_given(cli *c, const given_opt *g, int n)
{
    for (int i = 0; i < n; i++) {
        int later = 0;
        for (int k = i + 1; k < n && !later; k++) later = opt_setting(g[k].o) == opt_setting(g[i].o);
        if (later) continue;
        int rc = apply_opt(c, g[i].o, g[i].val);
        if (rc) return rc;
    }
    return 0;
}

/* Finish the stage being parsed: apply its options (g, n), keep what it set. */
static int stage_end(cli *c, const given_opt *g, int n)
{
    int rc = apply_given(c, g, n);
    if (rc) return rc;
    if (!(c->chain || (c->verb->bit & V_STAGE))) return 0;
    char verb[32];
    snprintf(verb, sizeof verb, "%s ", c->verb->name);
    if (c->verb->bit == V_MINMAX && !c->window_given) return usage_error(verb, "minmax needs --window W (-w W)");
    cli_stage *k = &c->stages[c->nstages++];
    k->verb = c->verb;
    k->job = c->job;
    k->pred = c->pred;
    k->out_type_given = c->out_type_given;
    k->window_given = c->window_given;
    size_t at = strlen(c->title);
    snprintf(c->title + at, sizeof c->title - at, "%s%s", at ? " then " : "", c->verb->name);
    return 0;
}

/* Walk argv once: options (long, long=value, short, short+value, bundled flags), '--', up to two
 * positionals, and `then` between the stages of a chain (each stage's options follow its verb;
 * run-wide options and IN/OUT may come in any stage). */
static int parse_args(cli *c, int argc, char **argv)
{
    int npos = 0, only_pos = 0;
    const char *pos[2] = {NULL, NULL};
    char verb[32];
    for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "then")) c->chain = 1;
    stage_begin(c, c->verb);
    snprintf(verb, sizeof verb, "%s ", c->verb->name);
    if (c->chain && !(c->verb->bit & V_STAGE))
        return usage_error(NULL, "%s is not a chain stage (chains take scan, compact and minmax)", c->verb->name);
    /* at most one option per argv word, plus bundled flags: argc * (flags in a word) bounds it */
    int ngiven = 0, first = 0, cap = 16; /* given[first..ngiven): the stage being parsed */
    for (int i = 2; i < argc; i++) cap += (int)strlen(argv[i]);
    given_opt *given = malloc((size_t)cap * sizeof *given);
    if (!given) {
        say_error("out of memory");
        return EXIT_DATA;
    }
#define GIVE(opt, v) (given[ngiven].o = (opt), given[ngiven].val = (v), ngiven++)
#define parse_fail(x) (free(given), (x))
    for (int i = 2; i < argc; i++) {
        char *a = argv[i];
        if (!only_pos && !strcmp(a, "then")) {
            int rc = stage_end(c, given + first, ngiven - first);
            if (rc) return parse_fail(rc);
            first = ngiven;
            const verb_def *v = i + 1 < argc ? find_verb(argv[i + 1]) : NULL;
            if (c->nstages == GS_CHAIN_MAX)
                return parse_fail(usage_error(NULL, "a chain has at most %d stages", GS_CHAIN_MAX));
            snprintf(err_stage, sizeof err_stage, "stage %d: ", c->nstages + 1);
            if (i + 1 >= argc)
                return parse_fail(usage_error(NULL, "'then' needs a verb after it (scan, compact or minmax)"));
            if (!v)
                return parse_fail(
                    usage_error(NULL, "unknown verb '%s' after 'then' (scan, compact or minmax)", argv[i + 1]));
            if (!(v->bit & V_STAGE))
                return parse_fail(
                    usage_error(NULL, "%s is not a chain stage (chains take scan, compact and minmax)", v->name));
            i++;
            stage_begin(c, v);
            snprintf(verb, sizeof verb, "%s ", c->verb->name);
            continue;
        }
        if (only_pos || a[0] != '-' || !strcmp(a, "-")) {
            if (npos == 2) return parse_fail(usage_error(verb, "unexpected argument '%s' (at most IN and OUT)", a));
            pos[npos++] = a;
            continue;
        }
        if (!strcmp(a, "--")) {
            only_pos = 1;
            continue;
        }
        const opt_def *o = NULL;
        const char *val = NULL;
        if (a[1] == '-') {
            char name[64];
            const char *eq = strchr(a + 2, '=');
            size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), a + 2);
            for (size_t k = 0; k < NOPTS; k++)
                if (!strcmp(opts[k].lng, name)) o = &opts[k];
            if (!o || !(o->verbs & c->verb->bit))
                return parse_fail(usage_error(verb, "unknown option '--%s' for %s", name, c->verb->name));
            if (eq) {
                if (!o->arg) return parse_fail(usage_error(verb, "option '--%s' takes no value", name));
                val = eq + 1;
            } else if (o->arg == 1) {
                if (i + 1 >= argc) return parse_fail(usage_error(verb, "option '--%s' needs a value", name));
                val = argv[++i];
            }
            if (o->id == O_HELP) {
                print_verb_help(c->verb);
                exit(EXIT_OK);
            }
            GIVE(o, val);
            continue;
        }
        /* Short options, possibly bundled (-zf) or with an attached value (-ti64, -w500). */
        for (char *p = a + 1; *p; p++) {
            o = NULL;
            for (size_t k = 0; k < NOPTS; k++)
                if (opts[k].shrt == *p) o = &opts[k];
            if (!o || !(o->verbs & c->verb->bit))
                return parse_fail(usage_error(verb, "unknown option '-%c' for %s", *p, c->verb->name));
            if (o->id == O_HELP) {
                print_verb_help(c->verb);
                exit(EXIT_OK);
            }
            if (o->arg == 1) {
                if (p[1]) val = p + 1;
                else if (i + 1 < argc) val = argv[++i];
                else return parse_fail(usage_error(verb, "option '-%c' needs a value", *p));
                GIVE(o, val);
                break;
            }
            GIVE(o, NULL);
        }
    }
#undef GIVE
    int arc = stage_end(c, given + first, ngiven - first);
    free(given);
#undef parse_fail
    if (arc) return arc;
    if (c->nstages) c->verb = c->stages[0].verb; /* the first stage's verb runs the chain (cmd_compute) */
    err_stage[0] = 0;
    for (int k = 0; k < npos; k++) /* '' is no file name; open("") would name nothing useful */
        if (!pos[k][0]) return usage_error(verb, "invalid file name '' (use '-' for stdin or stdout)");
    if (c->verb->bit == V_GEN) {
        if (npos > 1) return usage_error(verb, "gen takes one argument, OUT");
        c->out = pos[0];
    } else {
        c->in = pos[0];
        c->out = pos[1];
    }
    if (c->in && !strcmp(c->in, "-")) c->in = NULL;
    if (c->out && !strcmp(c->out, "-")) c->out = NULL;
    return 0;
}

/* ---- signals: remove partial outputs ------------------------------------------------------
 * Every signal whose default action ends the process removes the named temporary outputs first
 * (unnamed ones vanish by themselves, SIGKILL included). The crash signals (SEGV, BUS, FPE, ILL,
 * ABRT, TRAP, SYS) are left to their defaults and to the sanitizers. */
static void on_signal(int sig)
{
    gs_io_remove_temps();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* SIGPIPE from our own write to a closed pipe is ignored (the write fails with EPIPE and the run
 * ends quietly); one sent by another process ends the run like SIGTERM. */
static void on_sigpipe(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (si && si->si_pid == getpid()) return;
    on_signal(sig);
}

static void install_signals(void)
{
    static const int fatal[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF,
                                SIGXCPU, SIGXFSZ, SIGIO, SIGPWR, SIGSTKFLT};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) sigaction(fatal[i], &sa, NULL);
    for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++) sigaction(sig, &sa, NULL);
    sa.sa_handler = NULL;
    sa.sa_sigaction = on_sigpipe;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGPIPE, &sa, NULL);
}

/* ---- the end of a GPU process ------------------------------------------------------------
 * The driver tears a CUDA context down when the last reference to the process's memory and to
 * its device files goes: 0.09-0.12 s after the last instruction on the H100/H200 hosts measured,
 * which the shell (and `time`, and a script's next command) waits for (docs/PERFORMANCE.md, "The
 * end of a GPU process"). Where that teardown may finish later (gs_gpu_teardown_deferrable: the
 * device is in the default compute mode), the process hands those references to a helper that
 * shares its memory and file table (clone with CLONE_VM | CLONE_FILES) and stays until the
 * process is gone, every thread of it: the process's exit is then quick, its status reaches the
 * shell at once, and the teardown runs as the helper ends. Every descriptor but the driver's
 * (/dev/nvidia*) is closed first, so no reader of a pipe or a terminal waits for the helper;
 * all signals but SIGKILL are blocked in it, so a Ctrl-C after the exit cannot cut the teardown
 * short. Not under MPI (the launcher watches its processes).
 * GS_GPU_TEARDOWN=wait ends the plain way (the device's memory is free when the command returns);
 * =detach detaches whether or not CUDA ran, and GS_TEST_TEARDOWN_LINGER_MS keeps the helper that
 * long after the process is gone (tests/cli/test_teardown.sh: a stand-in for the driver's time). */
static char teardown_stack[64 * 1024] __attribute__((aligned(64)));

static int teardown_helper(void *arg)
{
    const pid_t parent = (pid_t)(intptr_t)arg;
    /* Not PR_SET_PDEATHSIG: it fires when the creating thread ends, while the process's other
     * threads (CUDA's own) may still hold the memory and the files, and the last of them would
     * then tear down inside the process. getppid changes only once every thread is gone. */
    while (getppid() == parent) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    const char *linger = getenv("GS_TEST_TEARDOWN_LINGER_MS");
    const long ms = linger ? atol(linger) : 0;
    if (ms > 0) { /* tests: outlive the process by ms */
        struct timespec ts = {(time_t)(ms / 1000), (ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    return 0;
}

/* Close every descriptor that is not the driver's; 0 where /proc/self/fd cannot be listed (then
 * nothing is closed and the process ends the plain way). */
static int close_all_but_driver(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) return 0;
    int fds[1024], n = 0, self = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d)) && n < (int)(sizeof fds / sizeof *fds)) {
        char *end, path[64], target[32];
        const long fd = strtol(e->d_name, &end, 10);
        if (*end || end == e->d_name || fd == self) continue;
        snprintf(path, sizeof path, "/proc/self/fd/%ld", fd);
        const ssize_t len = readlink(path, target, sizeof target - 1);
        target[len > 0 ? len : 0] = 0;
        if (strncmp(target, "/dev/nvidia", 11)) fds[n++] = (int)fd;
    }
    const int complete = e == NULL;
    closedir(d);
    if (!complete) return 0;
    for (int i = 0; i < n; i++) close(fds[i]);
    return 1;
}

/* GS_GPU_TEARDOWN: 1 for "detach", -1 for "wait", else 0 (where the teardown may be deferred). */
static int teardown_env(void)
{
    const char *how = getenv("GS_GPU_TEARDOWN");
    return !how ? 0 : !strcmp(how, "detach") ? 1 : !strcmp(how, "wait") ? -1 : 0;
}

static void end_process(int code, int under_mpi)
{
    fflush(NULL);
    const int how = teardown_env();
    if (how > 0 || (how == 0 && !under_mpi && gs_gpu_teardown_deferrable())) {
        sigset_t all;
        sigfillset(&all);
        sigprocmask(SIG_BLOCK, &all, NULL); /* inherited by the helper; the process only exits now */
        if (close_all_but_driver())
            (void)clone(teardown_helper, teardown_stack + sizeof teardown_stack, CLONE_VM | CLONE_FILES | CLONE_FS | SIGCHLD,
                        (void *)(intptr_t)getpid());
    }
    _exit(code);
}

/* ---- progress and stats ------------------------------------------------------------------- */
static void human_bytes(char *buf, size_t len, double b)
{
    const char *u[] = {"B", "kB", "MB", "GB", "TB"};
    int k = 0;
    while (b >= 1000 && k < 4) b /= 1000, k++;
    snprintf(buf, len, k ? "%.1f %s" : "%.0f %s", b, u[k]);
}

/* The progress line names the verb (a chain: its stages), so two gpustream processes in one pipe
 * can be told apart. */
static void on_progress(void *ctx, uint64_t bytes, int64_t total, double elapsed)
{
    const cli *c = ctx;
    char a[32], r[32];
    human_bytes(a, sizeof a, (double)bytes);
    human_bytes(r, sizeof r, elapsed > 0 ? bytes / elapsed : 0);
    if (total > 0 && bytes > 0) {
        double eta = elapsed * ((double)total / bytes - 1);
        fprintf(stderr, "\r%s: %s  %5.1f%%  %s/s  ETA %.0f s   ", c->chain ? c->title : c->verb->name, a, 100.0 * bytes / total, r,
                eta > 0 ? eta : 0);
    } else
        fprintf(stderr, "\r%s: %s  %s/s   ", c->chain ? c->title : c->verb->name, a, r);
}

/* A rate is printed only where it means something: over at least a millisecond, and never for
 * bytes thrown away by /dev/null. Returns the rate, or -1 (printed as "-", json null). */
#define GS_MIN_RATE_S 1e-3
static double rate(double amount, double secs)
{
    return secs >= GS_MIN_RATE_S && amount > 0 ? amount / secs : -1;
}

static const char *fmt_rate(char *buf, size_t len, const char *fmt, double r)
{
    if (r < 0) snprintf(buf, len, "-");
    else snprintf(buf, len, fmt, r);
    return buf;
}

/* Whether OUT (or stdout) is /dev/null. */
static int output_is_null(const cli *c)
{
    struct stat a, n;
    if (stat("/dev/null", &n) || !S_ISCHR(n.st_mode)) return 0;
    if (c->out ? stat(c->out, &a) : fstat(STDOUT_FILENO, &a)) return 0;
    return S_ISCHR(a.st_mode) && a.st_rdev == n.st_rdev;
}

static void print_stats(const cli *c, const gs_run_stats *s)
{
    double busy = 0;
    for (int i = 0; i < s->nstages; i++) busy += s->stage[i].busy;
    double overlap = s->wall > 0 ? busy / s->wall : 0;
    const int out_null = output_is_null(c);
    double stage_rate[8];
    for (int i = 0; i < s->nstages; i++)
        stage_rate[i] = out_null && !strcmp(s->stage[i].name, GS_STAGE_WRITE) ? -1
                                                                              : rate(s->stage[i].bytes / 1e9, s->stage[i].busy);
    const double gelem = rate(s->elems_in / 1e9, s->wall), gbs_in = rate(s->bytes_in / 1e9, s->wall);
    char r1[32], r2[32], r3[32];
    if (c->stats_json) {
        fprintf(stderr,
                "{\"verb\":\"%s\",\"backend\":\"%s\",\"backend_why\":\"%s\",\"cuda_init_s\":%.6f,\"gpu_setup_s\":%.6f,\"algo\":\"%s\","
                "\"threads\":%d,\"wall_s\":%.6f,\"release_s\":%.6f,\"elements_in\":%llu,"
                "\"elements_out\":%llu,\"bytes_in\":%llu,\"bytes_out\":%llu,\"chunks\":%llu,\"gelem_per_s\":%s,"
                "\"overlap\":%.3f,\"peak_rss_bytes\":%llu,\"peak_device_bytes\":%llu,\"skipped\":%llu,\"stages\":[",
                c->chain ? c->title : c->verb->name, s->backend ? s->backend : "?", s->why, s->cuda_init,
                s->gpu_setup, s->algo ? s->algo : "?", gs_pool_threads(), s->wall, s->release,
                (unsigned long long)s->elems_in, (unsigned long long)s->elems_out, (unsigned long long)s->bytes_in,
                (unsigned long long)s->bytes_out, (unsigned long long)s->chunks,
                gelem < 0 ? "null" : fmt_rate(r1, sizeof r1, "%.4f", gelem), overlap, (unsigned long long)s->peak_rss,
                (unsigned long long)s->peak_device_mem, (unsigned long long)s->skipped);
        for (int i = 0; i < s->nstages; i++)
            fprintf(stderr, "%s{\"name\":\"%s\",\"busy_s\":%.6f,\"bytes\":%llu,\"gb_per_s\":%s}", i ? "," : "",
                    s->stage[i].name, s->stage[i].busy, (unsigned long long)s->stage[i].bytes,
                    stage_rate[i] < 0 ? "null" : fmt_rate(r1, sizeof r1, "%.3f", stage_rate[i]));
        fprintf(stderr, "]");
        const gs_zcodec *zj[2] = {c->rd.zcodec, c->wr.zcodec};
        for (int d = 0; d < 2; d++)
            if (zj[d])
                fprintf(stderr, ",\"zstd_%s_gpu\":{\"busy_s\":%.6f,\"bytes_in\":%llu,\"bytes_out\":%llu,\"frames\":%llu,"
                        "\"frames_libzstd\":%llu}",
                        d ? "enc" : "dec", d ? zj[d]->enc_s : zj[d]->dec_s,
                        (unsigned long long)(d ? zj[d]->enc_in : zj[d]->dec_in),
                        (unsigned long long)(d ? zj[d]->enc_out : zj[d]->dec_out),
                        (unsigned long long)(d ? zj[d]->enc_frames : zj[d]->dec_frames),
                        (unsigned long long)(d ? zj[d]->enc_cpu_frames : zj[d]->dec_cpu_frames));
        fprintf(stderr, "}\n");
        return;
    }
    char bi[32], bo[32], rss[32], dev[32];
    human_bytes(bi, sizeof bi, (double)s->bytes_in);
    human_bytes(bo, sizeof bo, (double)s->bytes_out);
    human_bytes(rss, sizeof rss, (double)s->peak_rss);
    human_bytes(dev, sizeof dev, (double)s->peak_device_mem);
    fprintf(stderr, "gpustream %s: backend %s%s%s%s, %d CPU thread%s, algo %s\n", c->chain ? c->title : c->verb->name,
            s->backend ? s->backend : "?", s->why[0] ? " (" : "", s->why, s->why[0] ? ")" : "", gs_pool_threads(),
            gs_pool_threads() == 1 ? "" : "s", s->algo ? s->algo : "?");
    if (s->cuda_init >= 0) fprintf(stderr, "  cuda init  %.3f s on its own thread, beside reading\n", s->cuda_init);
    if (s->gpu_setup >= 0) fprintf(stderr, "  gpu setup  %.3f s once CUDA was up (device buffers, streams)\n", s->gpu_setup);
    fprintf(stderr, "  elements   %llu in, %llu out, %llu chunks\n", (unsigned long long)s->elems_in,
            (unsigned long long)s->elems_out, (unsigned long long)s->chunks);
    fprintf(stderr, "  wall       %.3f s  %s Gelem/s  in %s (%s GB/s)  out %s%s\n", s->wall,
            fmt_rate(r2, sizeof r2, "%.3f", gelem), bi, fmt_rate(r3, sizeof r3, "%.2f", gbs_in), bo,
            out_null ? " (/dev/null)" : "");
    for (int i = 0; i < s->nstages; i++)
        fprintf(stderr, "  %-12s busy %8.3f s  %8s GB/s\n", s->stage[i].name, s->stage[i].busy,
                fmt_rate(r1, sizeof r1, "%.2f", stage_rate[i]));
    if (s->release >= 0.0005)
        fprintf(stderr, "  release    %.3f s after the wall time (staging and device memory)\n", s->release);
    /* the codecs through the host: where they did something (the GPU backend may have done it all) */
    const gs_zcodec *zd = c->rd.zcodec, *ze = c->wr.zcodec;
    if (zd && !(zd->dec_frames || zd->dec_cpu_frames)) zd = NULL;
    if (ze && !(ze->enc_frames || ze->enc_cpu_frames)) ze = NULL;
    if (zd) {
        human_bytes(bi, sizeof bi, (double)zd->dec_in);
        human_bytes(bo, sizeof bo, (double)zd->dec_out);
        fprintf(stderr, "  %-12s busy %8.3f s  %8.2f GB/s  %s -> %s, %llu frames (%llu more by libzstd)\n",
                "zstd dec gpu", zd->dec_s, zd->dec_s > 0 ? zd->dec_out / zd->dec_s / 1e9 : 0, bi, bo,
                (unsigned long long)zd->dec_frames, (unsigned long long)zd->dec_cpu_frames);
    }
    if (ze) {
        human_bytes(bi, sizeof bi, (double)ze->enc_in);
        human_bytes(bo, sizeof bo, (double)ze->enc_out);
        fprintf(stderr, "  %-12s busy %8.3f s  %8.2f GB/s  %s -> %s, %llu frames (%llu more by libzstd), ratio %.3f\n",
                "zstd enc gpu", ze->enc_s, ze->enc_s > 0 ? ze->enc_in / ze->enc_s / 1e9 : 0, bi, bo,
                (unsigned long long)ze->enc_frames, (unsigned long long)ze->enc_cpu_frames,
                ze->enc_out ? (double)ze->enc_in / ze->enc_out : 0);
    }
    fprintf(stderr, "  overlap    %.2f (stage busy time / wall time)\n", overlap);
    fprintf(stderr, "  memory     peak RSS %s, device %s\n", rss, dev);
    if (s->skipped) fprintf(stderr, "  skipped    %llu bad fields\n", (unsigned long long)s->skipped);
}

/* ---- output setup ------------------------------------------------------------------------ */
static int finish_status(const gs_status *st)
{
    switch (st->code) {
    case GS_OK: return EXIT_OK;
    case GS_EPIPE: return EXIT_OK; /* downstream closed: end quietly */
    case GS_EUSAGE: say_error("%s", st->msg); return EXIT_USAGE;
    default: say_error("%s", st->msg); return EXIT_DATA;
    }
}

/* Resolve the output's format and compression into c->wr. */
static void resolve_output(cli *c, gs_format in_fmt, gs_type out_type, int cols, int64_t rows, const char *colnames)
{
    int ext_zst = 0;
    gs_format ext = c->out ? gs_format_from_name(c->out, &ext_zst) : GS_FMT_AUTO;
    gs_format fmt = c->to_given ? c->to : ext != GS_FMT_AUTO ? ext : in_fmt != GS_FMT_AUTO ? in_fmt : GS_FMT_RAW;
    c->wr.format = fmt;
    c->wr.type = out_type;
    c->wr.ncols = cols;
    c->wr.rows = rows;
    c->wr.colnames = (fmt == GS_FMT_CSV || fmt == GS_FMT_TEXT) ? colnames : NULL;
    c->wr.zstd = c->zstd || ext_zst;
    c->wr.force = c->force;
}

/* Resolve the output and open it. */
static int open_output(cli *c, gs_format in_fmt, gs_type out_type, int cols, int64_t rows, const char *colnames,
                       gs_writer **w, gs_status *st)
{
    resolve_output(c, in_fmt, out_type, cols, rows, colnames);
    return gs_writer_open(w, c->out, &c->wr, st);
}

/* ---- zstd codecs ----------------------------------------------------------------------------- */
/* The run's plan (pipeline/plan.h) decides the codecs, with the backend, the chunk and the
 * buffers: it is made here from the options and io's description of IN (gs_input_describe: a
 * regular file's size, its frame headers where the plan asks; a pipe is never read here), with
 * the facts it asks for (nvCOMP, the GPU encoder made ahead). The device codecs it names are made
 * here; the engine carries out the rest (c->eng.plan). */

/* The stages as the plan sees them before the input's type is known: each one's operation and
 * --algo (a chain of one GS_OP_NONE: convert and gen compute nothing). */
static void plan_chain(const cli *c, gs_chain *ch)
{
    memset(ch, 0, sizeof *ch);
    ch->n = c->nstages ? c->nstages : 1;
    ch->stage[0].op = GS_OP_NONE;
    for (int k = 0; k < c->nstages; k++) {
        ch->stage[k] = c->stages[k].job;
        ch->stage[k].op = GS_OP_NONE;
        for (int op = GS_OP_SCAN; op < GS_OP_NONE; op++)
            if (!strcmp(gs_op_name((gs_op)op), c->stages[k].verb->name)) ch->stage[k].op = (gs_op)op;
    }
}

/* What the plan asks for: the description's facts, whether nvCOMP loads, the GPU encoder made
 * ahead (*enc: strict with --codec gpu, whose first call then fails where the device does not
 * start; else it stops and libzstd encodes). */
static void plan_ask(cli *c, unsigned need, gs_input_desc *d, gs_plan_facts *f, gs_zcodec **enc, char *why,
                     size_t len, gs_status *est)
{
    if (need & (GS_DESC_FIRST_FRAME | GS_DESC_CONTENT)) gs_input_describe(c->in, need, d);
    if (need & GS_PLAN_NEED_NVCOMP) {
        f->nvcomp = gs_nvcomp_describe(why, len);
        f->nvcomp_why = why;
    }
    if (need & GS_PLAN_NEED_ENCODER) {
        f->encoder = gs_gpu_zcodec_create_ahead(enc, c->eng.device, c->codec == GS_CODEC_GPU, est) == GS_OK;
        f->encoder_why = est->msg;
        if (f->encoder) {
            f->enc_frame_max = (*enc)->frame_max;
            f->enc_frame_align = (*enc)->frame_align;
        }
    }
}

/* The plan for a run that decodes IN (decode) and writes an output (encode), and the device codecs
 * it names. in_bytes: the input's size for gen, -1 for IN's (described here), 0 for MPI ranks'
 * shards (their codecs are the host's). */
static int setup_codecs(cli *c, int decode, int encode, int64_t in_bytes, gs_status *st)
{
    gs_chain ch;
    int zst = 0;
    plan_chain(c, &ch);
    if (c->out) gs_format_from_name(c->out, &zst);
    const gs_plan_in in = {&ch, decode, c->eng.backend, c->codec, c->eng.host_mem, c->eng.dev_alloc,
                           c->eng.chunk_bytes, c->eng.buffers, c->level_given, c->frame_given ? c->wr.frame_size : 0,
                           encode && (c->zstd || zst), in_bytes == 0};
    gs_input_desc d = {in_bytes, 0, GS_ZSTD_SIZE_UNKNOWN, 0, 0};
    if (in_bytes < 0) gs_input_describe(c->in, 0, &d);
    gs_plan_facts f = {-1, NULL, -1, NULL, 0, 0};
    gs_status est = {0};
    char nvwhy[PATH_MAX + 300];
    gs_zcodec *enc = NULL;
    gs_plan *p = &c->eng.plan;
    int rc;
    while (!(rc = gs_plan_make(&in, &d, &f, p, st)) && p->need)
        plan_ask(c, p->need, &d, &f, &enc, nvwhy, sizeof nvwhy, &est);
    if (!rc && encode && p->encode == GS_ENCODE_GPU) { /* the encoder it asked for */
        c->wr.frame_size = p->frame_size;
        c->wr.zcodec = enc;
        enc = NULL;
    }
    gs_gpu_zcodec_destroy(enc); /* asked for, not taken */
    if (rc) return rc;
    c->rd.zframes = p->decode == GS_DECODE_FRAMES;
    if (decode && p->decode == GS_DECODE_CODEC && gs_gpu_zcodec_create_ahead(&c->rd.zcodec, c->eng.device, 1, st))
        return st->code;
    return GS_OK;
}

/* The plan's reasons, one line each (-v, --stats), once the reader and the writer settled it. */
static void plan_notes(const gs_plan *p)
{
    const char *const why[] = {p->backend == GS_PLAN_CPU ? "" : p->why_warm, p->why_decode, p->why_encode,
                               p->why_chunk, p->backend == GS_PLAN_CPU ? "" : p->why_buffers};
    say_note("backend: %s", p->why_backend);
    for (size_t i = 0; i < sizeof why / sizeof why[0]; i++)
        if (why[i][0]) say_note("%s", why[i]);
}

/* The engine counted the output before the writer's last flush; the writer's final count (taken
 * at close) is the output's size, and the write stage's bytes with it. */
static void set_write_stage(gs_run_stats *s)
{
    for (int i = 0; i < s->nstages; i++)
        if (!strcmp(s->stage[i].name, GS_STAGE_WRITE)) s->stage[i].bytes = s->bytes_out;
}

/* ---- verbs --------------------------------------------------------------------------------- */
/* A fallback to the CPU, at the start of the run: shown with -v or --stats (never with -q). */
static void on_note(void *ctx, const char *msg)
{
    (void)ctx;
    say_note("%s", msg);
}

static int run_engine(cli *c, const gs_chain *ch, gs_source *src, gs_writer *w, gs_run_stats *stats,
                      uint64_t *count, gs_status *st)
{
    if (c->progress) {
        c->eng.progress = on_progress;
        c->eng.progress_ctx = c;
    }
    if (verbose || c->stats) c->eng.note = on_note;
    gs_plan_settle(&c->eng.plan, ch, src->count, src->type, w && gs_writer_takes_frames(w));
    if (verbose || c->stats) plan_notes(&c->eng.plan);
    int rc = gs_engine_run_chain(ch, &c->eng, src, w, count, stats, st);
    if (c->progress) fputs("\r\033[K", stderr);
    return rc;
}

/* Fill in stage k's parameters for its input type t. Returns 0 or an exit status. */
static int stage_setup(cli *c, int k, gs_type t, gs_job *j)
{
    const cli_stage *s = &c->stages[k];
    gs_status st = {0};
    *j = s->job;
    switch (s->verb->bit) {
    case V_SCAN:
        j->op = GS_OP_SCAN;
        j->scan.type = t;
        j->scan.out_type = s->out_type_given ? j->out_type : t;
        break;
    case V_COMPACT:
        j->op = GS_OP_COMPACT;
        j->compact.type = t;
        if (gs_pred_parse(s->pred, t, &j->compact, &st)) {
            if (c->chain) snprintf(err_stage, sizeof err_stage, "stage %d (compact): ", k + 1);
            int rc = usage_error("compact ", "%s", st.msg);
            err_stage[0] = 0;
            return rc;
        }
        break;
    default:
        j->op = GS_OP_MINMAX;
        j->minmax.type = t;
        break;
    }
    return 0;
}

/* The CSV header of a stage's output, from its input's (a minmax pair gets "min,max"). */
static void stage_colname(const gs_job *j, char *name, size_t len)
{
    if (j->op == GS_OP_MINMAX)
        snprintf(name, len, "%s", j->minmax.only == GS_MM_MIN ? "min" : j->minmax.only == GS_MM_MAX ? "max" : "min,max");
    else if (j->op == GS_OP_COMPACT && j->compact.indices)
        snprintf(name, len, "index");
}

static int check_stdout(void);

/* The job as MPI ranks over shards of IN (pipeline/mpi.c); rank 0 alone prints. */
static int cmd_compute_ranks(cli *c, const gs_job *job, gs_format in_fmt, gs_type out_type, int cols, const char *names)
{
    gs_status st = {0};
    gs_run_stats stats;
    gs_mpi_report rep;
    memset(&stats, 0, sizeof stats);
    int root = 0;
    gs_mpi_job m = {c->in, c->out, c->rd, {0}, *job, c->eng, c->device_given};
    if (!job->count_only) {
        resolve_output(c, in_fmt, out_type, cols, -1, names);
        m.wr = c->wr;
    }
    m.eng.progress = NULL;
    if (verbose || c->stats) m.eng.note = on_note; /* heard from rank 0 alone (the others are mute) */
    ranks_ran = gs_mpi_built(); /* else nothing waits for rank 0 to print: see main */
    int rc = gs_mpi_run(&m, &stats, &rep, &root, &st);
    if (rc) { /* said by rank 0 alone (the others are mute) before any rank may end */
        int code = finish_status(&st);
        fflush(stderr);
        gs_mpi_finish();
        return code;
    }
    /* Every rank succeeded: rank 0 says the result before MPI_Finalize, its --stats after it (they
     * include MPI_Finalize's time; every rank ends with status 0, so none is stopped early). */
    const gs_job *j = job;
    if (root) {
        if (rep.note[0]) say_note("%s", rep.note);
        if (j->op == GS_OP_MINMAX && !j->partial && rep.n < j->minmax.window)
            say_warning("window %llu is longer than the input (%llu elements): no output",
                        (unsigned long long)j->minmax.window, (unsigned long long)rep.n);
        if (j->count_only) printf("%llu\n", (unsigned long long)rep.count);
        fflush(stdout);
    }
    double fin = gs_mpi_finish();
    if (!root) return EXIT_OK;
    if (c->stats) {
        print_stats(c, &stats);
        if (!c->stats_json) {
            fprintf(stderr, "  ranks      %d: wall %.3f to %.3f s; stage times above are summed over ranks, per rank:\n",
                    rep.ranks, rep.wall_min, rep.wall_max);
            for (int i = 0; i < stats.nstages && i < 8; i++)
                fprintf(stderr, "  %-12s busy %8.3f to %.3f s\n", stats.stage[i].name, rep.busy_min[i], rep.busy_max[i]);
            fprintf(stderr, "  mpi        MPI_Init %.3f s (the longest rank's), MPI_Finalize %.3f s (rank 0's); "
                            "rank 0 started %.2f s before MPI_Init\n",
                    rep.mpi_init, fin, rep.start_to_init);
        } else
            fprintf(stderr,
                    "{\"ranks\":%d,\"wall_min_s\":%.6f,\"wall_max_s\":%.6f,\"mpi_init_s\":%.6f,\"mpi_finalize_s\":%.6f,"
                    "\"start_to_init_s\":%.2f}\n",
                    rep.ranks, rep.wall_min, rep.wall_max, rep.mpi_init, fin, rep.start_to_init);
    }
    return check_stdout();
}

static int cmd_compute(cli *c)
{
    gs_status st = {0};
    gs_reader *r = NULL;
    gs_writer *w = NULL;
    gs_run_stats stats;
    memset(&stats, 0, sizeof stats);
    uint64_t count = 0;
    int rc;

    gs_ranks ranks = gs_ranks_detect();
    if (ranks.size > 1 && (!c->in || (!c->out && !c->stages[c->nstages - 1].job.count_only))) {
        say_error("with %d MPI ranks, IN and OUT must be files (ranks read shards of IN and write parts of OUT)",
                  ranks.size);
        return EXIT_USAGE;
    }
    if (ranks.size > 1 && c->chain) {
        say_error("chains (then) do not run over MPI ranks; run each verb over the ranks in turn");
        return EXIT_USAGE;
    }
    /* Everything that needs no input is checked before it is opened (minmax's window: while
     * parsing): each compact stage's predicate, its shape and numbers now (in the type the stage
     * gets from -t's, else from f64, the widest), its range for the input's type below. */
    gs_type pre_t = c->rd.type_given ? c->rd.type : GS_F64;
    for (int k = 0; k < c->nstages; k++) {
        gs_job pre;
        if ((rc = stage_setup(c, k, pre_t, &pre))) return rc;
        pre_t = gs_job_out_type(&pre, pre_t);
    }
    if ((rc = setup_codecs(c, 1, 1, ranks.size == 1 ? -1 : 0, &st))) return finish_status(&st);
    if ((rc = gs_reader_open(&r, c->in, &c->rd, &st))) return finish_status(&st);
    gs_type in_type = gs_reader_type(r);

    /* The stages, each for the type the one before writes (convert: one stage of its own). */
    gs_chain ch;
    memset(&ch, 0, sizeof ch);
    ch.n = c->nstages ? c->nstages : 1;
    gs_type t = in_type;
    if (!c->nstages) {
        ch.stage[0] = c->job;
        ch.stage[0].op = GS_OP_NONE;
        ch.stage[0].out_type = c->out_type_given ? c->job.out_type : in_type;
        t = ch.stage[0].out_type;
    }
    for (int k = 0; k < c->nstages; k++) {
        if ((rc = stage_setup(c, k, t, &ch.stage[k]))) {
            gs_reader_close(r);
            return rc;
        }
        t = gs_job_out_type(&ch.stage[k], t);
    }
    if (ch.n > 1 && gs_chain_check(&ch, in_type, &st)) { /* before any output exists */
        gs_reader_close(r);
        return finish_status(&st);
    }
    gs_source src = gs_source_from_reader(r);
    c->eng.total_bytes = -1;

    gs_type out_type = t;
    int cols = gs_chain_out_cols(&ch);
    int64_t rows = gs_chain_out_rows(&ch, gs_reader_count(r));
    /* CSV header: follow the input's through the stages. */
    char colnames[256];
    const char *in_col = gs_reader_colname(r);
    const char *names = NULL;
    if (in_col) {
        snprintf(colnames, sizeof colnames, "%s", in_col);
        for (int k = 0; k < ch.n; k++) stage_colname(&ch.stage[k], colnames, sizeof colnames);
        names = colnames;
    }
    const gs_job *last = &ch.stage[ch.n - 1];
    if (ranks.size > 1) {
        gs_format in_fmt = gs_reader_format(r);
        gs_reader_close(r);
        return cmd_compute_ranks(c, last, in_fmt, out_type, cols, names);
    }
    if (!last->count_only && (rc = open_output(c, gs_reader_format(r), out_type, cols, rows, names, &w, &st))) {
        gs_reader_close(r);
        return finish_status(&st);
    }
    rc = run_engine(c, &ch, &src, w, &stats, &count, &st);
    stats.skipped = gs_reader_skipped(r);
    if (rc) {
        gs_writer_abort(w);
        gs_reader_close(r);
        return finish_status(&st);
    }
    if (w && (rc = gs_writer_finish(w, &stats.bytes_out, &st))) {
        gs_reader_close(r);
        return finish_status(&st);
    }
    set_write_stage(&stats);
    gs_reader_close(r);
    for (int k = 0; k < ch.n; k++) {
        const gs_job *j = &ch.stage[k];
        uint64_t n_in = ch.n > 1 ? stats.chain_in[k] : stats.elems_in;
        if (j->op != GS_OP_MINMAX || j->partial || n_in >= j->minmax.window) continue;
        if (ch.n > 1)
            say_warning("stage %d (minmax): window %llu is longer than its input (%llu elements): no output", k + 1,
                        (unsigned long long)j->minmax.window, (unsigned long long)n_in);
        else
            say_warning("window %llu is longer than the input (%llu elements): no output",
                        (unsigned long long)j->minmax.window, (unsigned long long)n_in);
    }
    if (last->count_only) {
        printf("%llu\n", (unsigned long long)count);
    }
    if (c->stats) print_stats(c, &stats);
    return EXIT_OK;
}

static int cmd_gen(cli *c)
{
    gs_status st = {0};
    gs_source src;
    gs_writer *w = NULL;
    gs_run_stats stats;
    memset(&stats, 0, sizeof stats);
    if (!c->n_given) return usage_error("gen ", "gen needs -n N");
    if (!c->rd.type_given) c->gen.type = GS_I32;
    const uint64_t gen_bytes = c->gen.n * gs_type_size(c->rd.type_given ? c->gen.type : GS_I32);
    if (setup_codecs(c, 0, 1, gen_bytes > INT64_MAX ? INT64_MAX : (int64_t)gen_bytes, &st)) return finish_status(&st);
    if (gs_gen_source(&src, &c->gen, &st)) return finish_status(&st);
    c->job.op = GS_OP_NONE;
    c->job.out_type = c->gen.type;
    c->eng.backend = GS_BACKEND_CPU; /* generation is host work; no compute */
    c->eng.total_bytes = (int64_t)(c->gen.n * gs_type_size(c->gen.type));
    gs_chain one = {1, {c->job}};
    int rc = open_output(c, GS_FMT_RAW, c->gen.type, 1, (int64_t)c->gen.n, "value", &w, &st);
    if (!rc) rc = run_engine(c, &one, &src, w, &stats, NULL, &st);
    if (rc) {
        gs_writer_abort(w);
        gs_gen_source_free(&src);
        return finish_status(&st);
    }
    rc = gs_writer_finish(w, &stats.bytes_out, &st);
    gs_gen_source_free(&src);
    if (rc) return finish_status(&st);
    set_write_stage(&stats);
    stats.algo = "gen";
    if (c->stats) print_stats(c, &stats);
    return EXIT_OK;
}

static int cmd_info(cli *c)
{
    char devs[4096];
    (void)c;
    int ndev = gs_gpu_describe(devs, sizeof devs);
    printf("gpustream %s\n", GS_VERSION);
#ifdef GS_HAVE_CUDA
    printf("build      CUDA compiled in (static cudart)\n");
#else
    printf("build      CPU only (built without CUDA)\n");
#endif
    printf("zstd       %s\n", gs_zstd_version());
    char nvc[1024];
    gs_nvcomp_describe(nvc, sizeof nvc);
    printf("nvcomp     %s\n", nvc);
    char mpi[256];
    gs_mpi_describe(mpi, sizeof mpi);
    printf("mpi        %s\n", mpi);
    printf("cpu        %d cores\n", gs_ncores());
    if (ndev > 0) printf("devices    %d\n%s", ndev, devs);
    else {
        char why[256] = "";
        gs_gpu_available(0, why, sizeof why);
        printf("devices    none (%s): the CPU backend runs every verb\n", why[0] ? why : "no GPU");
    }
    printf("tuning     %s\n", GS_HAVE_TUNING ? "block sizes and tune shapes built (make TUNING=1)"
                                            : "tuned launches only (make TUNING=1 builds the bench --block sizes)");
    printf("defaults   chunk " GS_CHUNK_DEFAULT_TEXT " and buffers 2 (%zuM and %d where the GPU backend decodes or encodes zstd "
           "frames), host-mem pinned, "
           "zstd frames 16M level 3 (GPU codec: %zuK frames), codec auto = gpu decode from %llu MiB of input (a verb "
           "on the GPU backend, frames up to %zuK), gpu encode from %llu MiB of input (else cpu)\n",
           GS_ZDEC_CHUNK_DEFAULT >> 20, GS_ZGPU_BUFFERS, GS_GPU_ZSTD_FRAME >> 10, GS_CODEC_AUTO_GPU_DEC_MIN_BYTES >> 20,
           GS_GPU_ZDEC_FRAME_MAX >> 10, GS_CODEC_AUTO_GPU_ENC_MIN_BYTES >> 20);
    printf("\nvariants (--algo; * = default for its backend)\n");
    size_t nv;
    const gs_variant *v = gs_variants(&nv);
    for (size_t i = 0; i < nv; i++) {
        char types[64] = "";
        for (int t = 0; t < GS_NTYPES; t++)
            if (v[i].types & GS_TYPE_BIT(t)) {
                strcat(types, gs_type_name((gs_type)t));
                strcat(types, " ");
            }
        printf("  %-8s %-14s %s %-4s %-24s %s\n", gs_op_name(v[i].op), v[i].name, (v[i].flags & GS_V_DEFAULT) ? "*" : " ",
               v[i].where == GS_GPU ? "gpu" : "cpu", types, v[i].desc ? v[i].desc : "");
        if (v[i].where == GS_GPU) {
            char sizes[64];
            if (v[i].blocks)
                printf("  %-8s %-14s   threads per block: %d; bench --block takes %s\n", "", "", v[i].block_default,
                       gs_blocks_str(v[i].blocks, sizes, sizeof sizes));
            else if (v[i].block_default)
                printf("  %-8s %-14s   threads per block: %d (other sizes: make TUNING=1)\n", "", "",
                       v[i].block_default);
            else
                printf("  %-8s %-14s   threads per block: its own launch shapes (bench --block does not apply)\n", "",
                       "");
        }
    }
    return EXIT_OK;
}

/* ---- bench -------------------------------------------------------------------------------- */
typedef struct bench_out {
    FILE *csv;
    int json, failed, rows;
    const gs_bench_env *env;
} bench_out;

static void bench_row(void *ctx, const gs_bench_row *r)
{
    bench_out *b = ctx;
    b->rows++;
    if (!r->passed) b->failed++;
    char ratio[16] = "-", block[16] = "-", ceil[16] = "-", ceil_json[16] = "null";
    if (r->vs_cub > 0) snprintf(ratio, sizeof ratio, "%.2fx", r->vs_cub);
    if (r->pct_ceiling > 0) { /* CPU rows have no ceiling */
        snprintf(ceil, sizeof ceil, "%.1f%%", r->pct_ceiling);
        snprintf(ceil_json, sizeof ceil_json, "%.1f", r->pct_ceiling);
    }
    if (r->block > 0) snprintf(block, sizeof block, "%d", r->block);
    if (b->json)
        printf("{\"mode\":\"%s\",\"op\":\"%s\",\"variant\":\"%s\",\"type\":\"%s\",\"n\":%llu,\"param\":\"%s\","
               "\"block\":%d,\"ms\":%.4f,\"gelem_s\":%.3f,\"gb_s\":%.2f,\"pct_ceiling\":%s,\"vs_cub\":%.3f,"
               "\"passed\":%s}\n",
               r->mode, r->op, r->variant, gs_type_name(r->type), (unsigned long long)r->n, r->param, r->block, r->ms,
               r->gelem_s, r->gb_s, ceil_json, r->vs_cub, r->passed ? "true" : "false");
    else
        printf("%-6s %-7s %-14s %-4s %11llu %-22s %5s %10.4f %9.3f %9.1f %7s %7s  %s%s%s\n", r->mode, r->op,
               r->variant, gs_type_name(r->type), (unsigned long long)r->n, r->param, block, r->ms, r->gelem_s,
               r->gb_s, ceil, ratio, r->passed ? "passed" : "FAILED", r->passed ? "" : ": ",
               r->passed ? "" : r->why);
    if (b->csv)
        fprintf(b->csv, "%s,%s,%s,%s,%llu,%s,%d,%.5f,%.4f,%.3f,%.2f,%.4f,%s\n", r->mode, r->op, r->variant,
                gs_type_name(r->type), (unsigned long long)r->n, r->param, r->block, r->ms, r->gelem_s, r->gb_s,
                r->pct_ceiling, r->vs_cub, r->passed ? "passed" : "FAILED");
    fflush(stdout);
}

/* Text output: which GPU variants cannot run every --block size, and what they do instead. */
static void bench_block_notes(const gs_bench_opts *o)
{
    size_t nv;
    const gs_variant *v = gs_variants(&nv);
    for (size_t i = 0; i < nv; i++) {
        int blocks[GS_BENCH_MAXBLOCKS];
        const int k = gs_bench_plan(o, 1, &v[i], blocks);
        if (!k || (k == o->nblocks && blocks[0])) continue; /* not run, or at every listed size */
        char skipped[64] = "", sizes[64];
        size_t len = 0;
        for (int b = 0; b < o->nblocks; b++)
            if (!gs_variant_block_ok(&v[i], o->blocks[b]))
                len += (size_t)snprintf(skipped + len, sizeof skipped - len, "%s%d", len ? "," : "", o->blocks[b]);
        if (!blocks[0] && !v[i].blocks)
            printf("# %s %s: its own launch shapes, --block does not apply: one run (the vs cub reference)\n",
                   gs_op_name(v[i].op), v[i].name);
        else if (!blocks[0])
            printf("# %s %s: takes none of --block %s (it takes %s): one run at its default, %d threads\n",
                   gs_op_name(v[i].op), v[i].name, skipped, gs_blocks_str(v[i].blocks, sizes, sizeof sizes), v[i].block_default);
        else
            printf("# %s %s: skips --block %s (it takes %s)\n", gs_op_name(v[i].op), v[i].name, skipped,
                   gs_blocks_str(v[i].blocks, sizes, sizeof sizes));
    }
}

/* bench --chain 'A [OPTIONS] then B ...': the text parsed as a chain's stages, into sub; only the
 * stages' own options (bench generates the input: -n, -t, --chunk, --backend are bench's). */
static int bench_chain_parse(cli *c, cli *sub)
{
    static char buf[1024];
    char *argv[66];
    int argc = 0;
    if (strlen(c->bench_chain) >= sizeof buf) return usage_error("bench ", "--chain text too long");
    snprintf(buf, sizeof buf, "%s", c->bench_chain);
    argv[argc++] = "gpustream";
    for (char *tok = strtok(buf, " \t"); tok && argc < 65; tok = strtok(NULL, " \t")) argv[argc++] = tok;
    argv[argc] = NULL;
    const verb_def *v = argc > 1 ? find_verb(argv[1]) : NULL;
    if (!v || !(v->bit & V_STAGE))
        return usage_error("bench ", "--chain takes 'scan|compact|minmax [OPTIONS] then ...', not '%s'", c->bench_chain);
    memset(sub, 0, sizeof *sub);
    sub->verb = v;
    sub->chain = 1; /* stage-named errors; run-wide options noted */
    int rc = parse_args(sub, argc, argv);
    if (rc) return rc;
    for (int k = 0; k <= O_JSON; k++)
        if (sub->seen_val[k]) {
            char l[48];
            return usage_error("bench ", "--chain takes the stages' own options: give %s to bench itself",
                               opt_label(sub->seen_opt[k], l, sizeof l));
        }
    if (sub->in || sub->out) return usage_error("bench ", "--chain takes no IN or OUT: bench makes its input (-n, -t)");
    return 0;
}

/* Each type: the stages set up for it, then timed and checked. */
static int bench_chain_run(cli *c, cli *sub, bench_out *b, const gs_bench_env *env, gs_status *st)
{
    for (int ti = 0; ti < c->bench.ntypes; ti++) {
        gs_chain ch;
        memset(&ch, 0, sizeof ch);
        ch.n = sub->nstages;
        gs_type t = c->bench.types[ti];
        for (int k = 0; k < ch.n; k++) {
            int rc = stage_setup(sub, k, t, &ch.stage[k]);
            if (rc) return gs_fail(st, GS_EUSAGE, "bench --chain: stage %d does not take type %s", k + 1,
                                   gs_type_name(c->bench.types[ti]));
            t = gs_job_out_type(&ch.stage[k], t);
        }
        int rc = gs_bench_chain(&c->bench, env, &ch, c->bench.types[ti], bench_row, b, st);
        if (rc) return rc;
    }
    return GS_OK;
}

static int cmd_bench(cli *c)
{
    gs_bench_opts *o = &c->bench;
    gs_status st = {0};
    gs_bench_env env;
    if (o->algos && strcmp(o->algos, "all")) {
        size_t nv;
        const gs_variant *v = gs_variants(&nv);
        for (const char *p = o->algos; *p;) {
            const char *e = strchr(p, ',');
            size_t l = e ? (size_t)(e - p) : strlen(p), k = 0;
            while (k < nv && (strlen(v[k].name) != l || strncmp(v[k].name, p, l))) k++;
            if (k == nv) return usage_error("bench ", "unknown --algo '%.*s' (gpustream info lists them)", (int)l, p);
            p += l + (e ? 1 : 0);
        }
    }
    static cli sub;
    if (c->bench_chain) {
        int prc = bench_chain_parse(c, &sub);
        if (prc) return prc;
    }
    o->backend = c->eng.backend;
    o->device = c->eng.device;
    o->chunk_bytes = c->eng.chunk_bytes;
    if (o->zstd && (o->stream || c->bench_chain))
        return usage_error("bench ", "--zstd times the codecs: it takes no %s", o->stream ? "--stream" : "--chain");
    if (!o->zstd && (o->nframes || o->level || c->bench_dist_given))
        return usage_error("bench ", "--frame-size, --level and --dist apply to bench --zstd");
    o->gen = c->gen;
    if (!c->bench_dist_given) { /* the zeros and values of a compaction's input */
        o->gen.dist = GS_DIST_SPARSE;
        o->gen.a = 0.5;
    }
    if (o->zstd && !o->nframes) {
        static const size_t f[] = {64 << 10, 256 << 10, 1 << 20, 16 << 20};
        for (int i = 0; i < 4; i++) o->frames[o->nframes++] = f[i];
    }
    if (o->nblocks && !GS_HAVE_TUNING)
        return usage_error("bench ", "--block needs the block sizes this build leaves out: rebuild with make TUNING=1");
    if (gs_bench_ceilings(o, &env, &st)) return finish_status(&st);
    int gpu = env.gpu[0] != 0;
    if (o->nblocks && (!gpu || o->backend == GS_BACKEND_CPU))
        say_note("--block applies to GPU variants: the CPU variants run as usual");
    else if (o->nblocks && o->stream)
        say_note("--block applies to device mode: --stream runs the default variants at their tuned shapes");
    /* Defaults: every op, i32, sizes larger than L2 on the GPU, smaller on a CPU. */
    if (!o->ops) o->ops = 7;
    if (!o->ntypes) o->types[o->ntypes++] = GS_I32;
    if (!o->nsizes) o->sizes[o->nsizes++] = o->stream ? (1ull << 30) : gpu ? (1ull << 28) : (1ull << 24);
    int nvcomp = 0;
    char nvc[1024] = "";
    if (o->zstd) nvcomp = gs_nvcomp_describe(nvc, sizeof nvc);
    if (!o->ndensities) {
        o->densities[0] = 0.01, o->densities[1] = 0.5, o->densities[2] = 0.99;
        o->ndensities = 3;
    }
    if (!o->nwindows) {
        static const uint64_t w_gpu[] = {2, 64, 500, 4096, 1000000}, w_cpu[] = {2, 500, 4096};
        const uint64_t *w = gpu ? w_gpu : w_cpu;
        for (int i = 0; i < (gpu ? 5 : 3); i++) o->windows[o->nwindows++] = w[i];
    }
    if (!o->nhost_mems) {
        for (int i = 0; i < 4; i++) o->host_mems[i] = (gs_host_mem)i;
        o->nhost_mems = 4;
    }
    if (!o->nbuffers) {
        for (int i = 0; i < 3; i++) o->buffers[i] = i + 1;
        o->nbuffers = 3;
    }
    bench_out b = {NULL, c->bench_json, 0, 0, &env};
    if (c->bench_csv && !(b.csv = fopen(c->bench_csv, "w"))) {
        say_error("%s: %s", c->bench_csv, strerror(errno));
        return EXIT_DATA;
    }
    if (!c->bench_json) {
        if (gpu) {
            printf("# gpu %s, %d SMs, L2 %d MB, %s, clocks SM %d MHz mem %d MHz\n", env.gpu, env.sms, env.l2_bytes >> 20,
                   env.driver, env.sm_clock_mhz, env.mem_clock_mhz);
            printf("# ceilings: device copy %.0f GB/s (read+write); pinned H2D %.1f, D2H %.1f, both at once %.1f GB/s each; "
                   "pageable H2D %.1f, D2H %.1f GB/s\n",
                   env.copy_gbs, env.h2d_gbs, env.d2h_gbs, env.both_gbs, env.h2d_pageable_gbs, env.d2h_pageable_gbs);
            if (!o->stream && !o->zstd)
                printf("# vs CUB: time of %s (a direct cub::DeviceScan::InclusiveSum/InclusiveScan or "
                       "cub::DeviceSelect::If call on the same device buffers) / time of the row\n",
                       GS_BENCH_PLAIN_CUB);
        } else if (!o->zstd)
            printf("# no GPU: CPU variants on %d threads\n", gs_pool_threads());
        if (o->zstd) {
            printf("# zstd: libzstd %s at level %d on %d threads, host memory to host memory (wall clock)\n",
                   gs_zstd_version(), o->level ? o->level : 3, gs_pool_threads());
            if (gpu && o->backend != GS_BACKEND_CPU && nvcomp)
                printf("# zstd: %s on the GPU, device memory to device memory (events); %%ceil: raw bytes/s "
                       "against pinned H2D\n", nvc);
            else
                printf("# zstd: no nvCOMP rows: %s\n", o->backend == GS_BACKEND_CPU ? "--backend cpu" : !gpu ? "no GPU" : nvc);
            printf("# zstd: data %s, GB/s counts raw (uncompressed) bytes\n", c->bench_dist_given ? "as --dist" : "sparse:0.5");
        }
        if (gpu && o->nblocks && !o->stream) bench_block_notes(o);
        if (c->bench_chain) printf("# chain: %s (%s)\n", c->bench_chain, sub.title);
        printf("%-6s %-7s %-14s %-4s %11s %-22s %5s %10s %9s %9s %7s %7s  %s\n", "mode", "op", "variant", "type", "n",
               "param", "block", "ms", "Gelem/s", "GB/s", "%ceil", "vs CUB", "check");
    } else if (gpu)
        printf("{\"mode\":\"ceilings\",\"gpu\":\"%s\",\"copy_gb_s\":%.1f,\"h2d_gb_s\":%.1f,\"d2h_gb_s\":%.1f,"
               "\"both_gb_s\":%.1f,\"pageable_h2d_gb_s\":%.1f,\"pageable_d2h_gb_s\":%.1f}\n",
               env.gpu, env.copy_gbs, env.h2d_gbs, env.d2h_gbs, env.both_gbs, env.h2d_pageable_gbs,
               env.d2h_pageable_gbs);
    if (b.csv) {
        fprintf(b.csv, "# gpu=%s copy_gbs=%.1f h2d=%.1f d2h=%.1f both=%.1f pageable_h2d=%.1f pageable_d2h=%.1f\n",
                gpu ? env.gpu : "none", env.copy_gbs, env.h2d_gbs, env.d2h_gbs, env.both_gbs, env.h2d_pageable_gbs,
                env.d2h_pageable_gbs);
        fprintf(b.csv, "mode,op,variant,type,n,param,block,ms,gelem_s,gb_s,pct_ceiling,vs_cub,check\n");
    }
    int rc = c->bench_chain ? bench_chain_run(c, &sub, &b, &env, &st)
             : o->zstd      ? gs_bench_zstd(o, &env, bench_row, &b, &st)
                            : gs_bench_run(o, &env, bench_row, &b, &st);
    if (b.csv && fclose(b.csv)) {
        say_error("%s: %s", c->bench_csv, strerror(errno));
        return EXIT_DATA;
    }
    if (rc) return finish_status(&st);
    if (!c->bench_json) printf("# %d rows, %d FAILED\n", b.rows, b.failed);
    return b.failed ? EXIT_DATA : EXIT_OK;
}

/* ---- main ----------------------------------------------------------------------------------- */
static int check_stdout(void)
{
    /* A full disk or closed pipe must not pass silently (git's rule). */
    if (fflush(stdout) || ferror(stdout)) {
        if (errno == EPIPE) return EXIT_OK;
        say_error("stdout: write failed: %s", strerror(errno));
        return EXIT_DATA;
    }
    return EXIT_OK;
}

/* GS_TRACE=1: the run's timeline (common/trace.h) on stderr after it, one event a line: seconds
 * since the process started, then what happened (docs/PERFORMANCE.md reads start-up with it). */
static int trace_cmp(const void *a, const void *b)
{
    double ta, tb;
    gs_trace_event(*(const size_t *)a, &ta);
    gs_trace_event(*(const size_t *)b, &tb);
    return (ta > tb) - (ta < tb);
}

static void trace_print(void)
{
    size_t dropped = 0, n = gs_trace_enabled() ? gs_trace_count(&dropped) : 0;
    size_t *ix = n ? malloc(n * sizeof *ix) : NULL;
    if (!ix) return;
    for (size_t i = 0; i < n; i++) ix[i] = i;
    qsort(ix, n, sizeof *ix, trace_cmp);
    for (size_t i = 0; i < n; i++) {
        double t;
        const char *text = gs_trace_event(ix[i], &t);
        fprintf(stderr, "trace %9.4f  %s\n", t, text);
    }
    if (dropped) fprintf(stderr, "trace: %zu later events not kept\n", dropped);
    free(ix);
}

int main(int argc, char **argv)
{
    const char *trace = getenv("GS_TRACE");
    if (trace && trace[0] == '1') {
        gs_trace_enable();
        gs_trace("process: main");
    }
    if (argc < 2) {
        fprintf(stderr, "usage: gpustream VERB [OPTIONS] [IN [OUT]]\n"
                        "Try 'gpustream --help' for the verbs and examples.\n");
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        if (argc > 2 && strcmp(argv[1], "help") == 0) {
            for (size_t i = 0; i < NVERBS; i++)
                if (!strcmp(argv[2], verbs[i].name)) {
                    print_verb_help(&verbs[i]);
                    return check_stdout();
                }
        }
        print_main_help(stdout);
        return check_stdout();
    }
    if (!strcmp(argv[1], "--generate")) {
        if (argc != 3) return usage_error(NULL, "--generate takes man or complete-bash");
        int rc = cmd_generate(argv[2]);
        return rc ? rc : check_stdout();
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
        printf("gpustream %s\n", GS_VERSION);
        return check_stdout();
    }
    gs_ranks ranks = gs_ranks_detect();
    mute = ranks.size > 1 && ranks.rank > 0;
    cli c;
    memset(&c, 0, sizeof c);
    for (size_t i = 0; i < NVERBS; i++)
        if (!strcmp(argv[1], verbs[i].name)) c.verb = &verbs[i];
    if (!c.verb) return usage_error(NULL, "unknown verb '%s' (scan, compact, minmax, convert, gen, bench, info)", argv[1]);

    /* Defaults. */
    c.rd.type = GS_I32;
    c.eng.buffers = 0; /* the engine's default (pipeline.h) */
    c.wr.level = 3;
    c.wr.frame_size = 16u << 20;
    c.gen.dist = GS_DIST_UNIFORM;
    c.gen.a = 0;
    c.gen.b = 100;
    c.gen.seed = 1;
    c.gen.type = GS_I32;
    c.progress = isatty(STDERR_FILENO);

    int rc = parse_args(&c, argc, argv);
    if (rc) return mute ? EXIT_OK : rc; /* rank 0 reports it (see below) */
    if (!isatty(STDERR_FILENO) || quiet) c.progress = 0;
    if (!c.eng.threads) /* several ranks on this host share its cores (an explicit --threads wins) */
        c.eng.threads = c.rd.threads = c.wr.threads = gs_ranks_threads(&ranks);
    install_signals();
    gs_pool_start(c.eng.threads);
    rc = c.verb->fn(&c);
    trace_print();
    const gs_zcodec *zs[2] = {c.rd.zcodec, c.wr.zcodec};
    for (int d = 0; d < 2; d++)
        if (zs[d] && zs[d]->stopped && (verbose || c.stats)) say_note("%s", zs[d]->stopped);
    /* Where the process ends through end_process (CUDA started), the codecs' device and pinned
     * memory go with the driver's clean-up at exit: freeing pinned memory first costs time. */
    if (!gs_gpu_started() && teardown_env() <= 0) {
        gs_gpu_zcodec_destroy(c.rd.zcodec);
        gs_gpu_zcodec_destroy(c.wr.zcodec);
    }
    int rc2 = check_stdout();
    /* A usage error found before the ranks met is rank 0's to report: the others end quietly,
     * since a rank ending first with an error has mpirun stop rank 0 before it says why. */
    if (mute && !ranks_ran) return EXIT_OK;
    /* A GPU given up on may still run a hung kernel: end without the CUDA runtime's own
     * teardown, which could wait for it. */
    if (gs_gpu_abandoned()) _exit(rc ? rc : rc2);
    /* Every output is closed and checked: where CUDA was started, the process ends without the
     * runtime's teardown of its context, which the driver's own clean-up at exit makes redundant,
     * and where it may, without waiting for that clean-up either (end_process). */
    if (gs_gpu_started() || teardown_env() > 0) end_process(rc ? rc : rc2, ranks_ran || ranks.size > 1);
    return rc ? rc : rc2;
}
