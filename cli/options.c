/* cli/options.c - the options as data (one table feeds parsing, --help, the man page and the
 * completion) and what each option's value sets in struct cli. bench takes lists where the other
 * verbs take one value. */
#include "cli.h"
#include "../kernels/kernels.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const opt_def cli_opts[] = {
    {O_TYPE, "type", 't', 1, V_ENGINE | V_BENCH, "T", "element type: i32 i64 u32 u64 f32 f64 (raw default i32, csv/text f64)"},
    {O_OUTTYPE, "out-type", 0, 1, V_SCAN | V_CONVERT | V_ROLLING | S_STAGE, "T", "output type (scan: i32->i64, u32->u64, f32->f64 widen; convert: narrowing saturates to the type's min/max, NaN -> 0; rolling: every column in T)"},
    {O_OP, "op", 0, 1, V_SCAN | V_BENCH | S_STAGE, "OP", "scan: sum (default), min or max; bench: scan, compact, minmax, rolling or all"},
    {O_EXCLUSIVE, "exclusive", 0, 0, V_SCAN | S_STAGE, NULL, "exclusive scan: out[i] combines x[0..i-1]"},
    {O_PRED, "pred", 0, 1, V_COMPACT | S_STAGE, "P", "nonzero eq:V ne:V gt:V ge:V lt:V le:V range:A:B finite nan"},
    {O_INVERT, "invert", 0, 0, V_COMPACT | S_STAGE, NULL, "keep the elements the predicate rejects"},
    {O_INDICES, "indices", 0, 0, V_COMPACT | S_STAGE, NULL, "write the u64 positions of kept elements"},
    {O_COUNT, "count", 0, 0, V_COMPACT | S_STAGE, NULL, "print only the number of kept elements"},
    {O_KEEP, "keep", 0, 1, V_SCAN | V_COMPACT | V_MINMAX | V_ROLLING, "C1,C2|all", "write these input CSV columns (names or 1-based indices, or all) unchanged before each result, row by row: scan's every row, compact's kept rows, a window's row at its right end; with several columns (--col a,b) before all their results (CSV output)"},
    {O_ROWS, "rows", 0, 0, V_COMPACT | S_STAGE, NULL, "write the whole input rows whose value passes, as in the input (quotes, CRLF, the header): a row filter of CSV/text"},
    {O_WINDOW, "window", 'w', 1, V_MINMAX | V_ROLLING | V_BENCH | S_STAGE, "W", "window length, at least 1 (minmax and rolling need it); bench: a list (default 2,64,500,4096,1e6 on a GPU, 2,500,4096 on the CPU)"},
    {O_PARTIAL, "partial", 0, 0, V_MINMAX | V_ROLLING | S_STAGE, NULL, "n outputs: the first W-1 over partial windows"},
    {O_ONLY, "only", 0, 1, V_MINMAX | S_STAGE, "min|max", "write one of the two columns"},
    {O_AGG, "agg", 0, 1, V_ROLLING | V_BENCH | S_STAGE, "LIST", "aggregates, one column each: sum mean var std count min max argmin argmax (default mean); bench: of the rolling rows"},
    {O_DDOF, "ddof", 0, 1, V_ROLLING | S_STAGE, "N", "var and std divide by n - N (default 1, as pandas; 0 as numpy)"},
    {O_SKIPNAN, "skip-nan", 0, 0, V_ROLLING | S_STAGE, NULL, "ignore NaN in windows, as pandas (default: a NaN makes its windows NaN)"},
    {O_MINPERIODS, "min-periods", 0, 1, V_ROLLING | S_STAGE, "N", "a window with fewer values gives NaN (default 1)"},
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
    {O_COL, "col", 0, 1, V_COMPUTE, "C",
     "CSV column: 1-based index or header name (default 1); a list a,b,c (ranges 2-5 among them, at most 16) "
     "runs the verb on each column in one pass, also on the columns of a 2-D npy"},
    {O_HEADER, "header", 0, 0, V_COMPUTE, NULL, "the first CSV row is a header"},
    {O_NOHEADER, "no-header", 0, 0, V_COMPUTE, NULL, "the first CSV row is data (default: detect)"},
    {O_DELIM, "delim", 0, 1, V_COMPUTE, "D", "CSV delimiter (default ','; 'tab' for tab)"},
    {O_SKIPBAD, "skip-bad", 0, 0, V_COMPUTE, NULL, "drop the rows whose CSV/text field is unparsable (positions stay input rows; a warning gives the count)"},
    {O_NA, "na", 0, 1, V_COMPUTE, "V|skip", "what a missing CSV/text value (empty, NA, N/A, NaN, null, ...: pandas' defaults) reads as: V, or skip to drop the row (positions stay input rows); default NaN for float types, an error for integer types"},
    {O_BACKEND, "backend", 0, 1, V_COMPUTE | V_BENCH, "B", "auto (default: the CPU for small inputs and for CSV or text input, else the GPU if usable; CSV or text out printing floats takes the GPU from smaller inputs, text input too; --stats says which and why), gpu or cpu"},
    {O_DEVICE, "device", 0, 1, V_COMPUTE | V_BENCH | V_INFO, "N", "GPU to use (default 0); a list (0,1) or all deals a run's chunks to each in turn"},
    {O_ALGO, "algo", 0, 1, (V_COMPUTE & ~V_CONVERT) | V_BENCH | S_STAGE, "NAME", "kernel variant (default: the fastest; see gpustream info)"},
    {O_CHUNK, "chunk", 0, 1, V_ENGINE | V_BENCH, "S", "input bytes per chunk (default " GS_CHUNK_DEFAULT_TEXT ")"},
    {O_BUFFERS, "buffers", 0, 1, V_COMPUTE | V_BENCH, "N", "host staging buffers / chunks in flight (default 2; 4 where the GPU decodes or encodes zstd)"},
    {O_HOSTMEM, "host-mem", 0, 1, V_COMPUTE | V_BENCH, "M", "pinned (default), direct (a raw or npy file read in place), pageable, registered or mapped"},
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
const size_t cli_nopts = sizeof cli_opts / sizeof cli_opts[0];

/* An apply_* function's answer for an option it does not handle. */
#define NOT_MINE (-1)

/* ---- values shared by several options and verbs ---------------------------------------------- */
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

/* --device N, a list N,M,... (chunks dealt to each in turn) or all. */
static int parse_devices(const char *verb, const char *s, gs_engine_opts *o)
{
    o->ndevices = 0;
    o->device = 0;
    if (!strcmp(s, "all")) {
        o->ndevices = GS_DEVICES_ALL;
        return 0;
    }
    char one[16];
    for (const char *p = s;;) {
        size_t len = strcspn(p, ",");
        long l = 0;
        if (o->ndevices == GS_DEVICES_MAX)
            return usage_error(verb, "--device names at most %d GPUs", GS_DEVICES_MAX);
        snprintf(one, sizeof one, "%.*s", len < sizeof one ? (int)len : (int)sizeof one - 1, p);
        if (len >= sizeof one || parse_int(verb, "--device", one, 0, 1023, &l))
            return len >= sizeof one ? usage_error(verb, "invalid --device '%s' (a GPU number, a list 0,1 or all)", s)
                                     : EXIT_USAGE;
        o->devices[o->ndevices++] = (int)l;
        if (!p[len]) break;
        p += len + 1;
    }
    o->device = o->devices[0];
    if (o->ndevices == 1) o->ndevices = 0;
    return 0;
}

static int parse_format(const char *verb, const char *s, gs_format *f)
{
    if (gs_format_parse(s, f)) return usage_error(verb, "unknown format '%s' (raw, npy, csv, text)", s);
    return 0;
}

static int parse_level(const char *verb, const char *s, long *v)
{
    return parse_int(verb, "--level", s, -131072, gs_zstd_max_level(), v);
}

static int parse_frame_size(const char *verb, const char *s, uint64_t *v)
{
    if (parse_size(verb, "--frame-size", s, v)) return EXIT_USAGE;
    if (*v < 1024 || *v > GS_ZSTD_FRAME_MAX) return usage_error(verb, "--frame-size must be from 1K to 1G");
    return 0;
}

static int parse_host_mem(const char *verb, const char *s, gs_host_mem *m)
{
    if (gs_host_mem_parse(s, m))
        return usage_error(verb, "unknown --host-mem '%s' (direct, pinned, pageable, registered or mapped)", s);
    return 0;
}

static int parse_dev_alloc(const char *verb, const char *s, gs_dev_alloc *a)
{
    for (int i = 0; i < GS_NDEV_ALLOC; i++)
        if (!strcmp(s, gs_dev_alloc_names[i])) {
            *a = (gs_dev_alloc)i;
            return 0;
        }
    return usage_error(verb, "unknown --device-alloc '%s' (once, per-chunk or async)", s);
}

/* The words an option takes and what each sets. */
typedef struct opt_word {
    const char *name;
    int value;
} opt_word;
static const opt_word backend_words[] = {{"auto", GS_BACKEND_AUTO}, {"gpu", GS_BACKEND_GPU}, {"cpu", GS_BACKEND_CPU}};
static const opt_word codec_words[] = {{"auto", GS_CODEC_AUTO}, {"gpu", GS_CODEC_GPU}, {"cpu", GS_CODEC_CPU}};
static const opt_word scan_op_words[] = {{"sum", GS_SCAN_SUM}, {"min", GS_SCAN_MIN}, {"max", GS_SCAN_MAX}};
#define NWORDS(w) (sizeof(w) / sizeof(w)[0])

/* s, one of the n words of w: its value in *v; else a usage error "unknown WHAT 's' (a, b or c)". */
static int parse_word(const char *verb, const char *what, const char *s, const opt_word *w, size_t n, int *v)
{
    char list[128] = "";
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(s, w[i].name)) {
            *v = w[i].value;
            return 0;
        }
        const size_t at = strlen(list);
        snprintf(list + at, sizeof list - at, "%s%s", i == 0 ? "" : i + 1 < n ? ", " : " or ", w[i].name);
    }
    return usage_error(verb, "unknown %s '%s' (%s)", what, s, list);
}

/* rolling --agg: a comma list of aggregate words */
static int parse_aggs(const char *verb, const char *list, gs_minmax_params *p)
{
    p->nagg = 0;
    for (const char *s = list;;) {
        const char *e = strchr(s, ',');
        const size_t l = e ? (size_t)(e - s) : strlen(s);
        char w[16];
        gs_agg a;
        snprintf(w, sizeof w, "%.*s", (int)(l < 15 ? l : 15), s);
        if (l >= 15 || gs_agg_parse(w, &a))
            return usage_error(verb, "unknown aggregate '%.*s' in --agg (sum, mean, var, std, count, min, max, argmin, "
                                     "argmax)", (int)(l < 40 ? l : 40), s);
        if (p->nagg == GS_ROLL_COLS_MAX) return usage_error(verb, "--agg takes at most %d aggregates", GS_ROLL_COLS_MAX);
        p->agg[p->nagg++] = (unsigned char)a;
        if (!e) return 0;
        s = e + 1;
    }
}

/* ---- bench's lists ----------------------------------------------------------------------------- */
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
    if (parse_host_mem("bench ", s, &m)) return EXIT_USAGE;
    if (c->bench.nhost_mems == 4) return usage_error("bench ", "at most 4 host-mem modes");
    c->bench.host_mems[c->bench.nhost_mems++] = m;
    return 0;
}
static int bench_devalloc(cli *c, const char *s)
{
    gs_dev_alloc a = GS_DEV_ONCE;
    if (parse_dev_alloc("bench ", s, &a)) return EXIT_USAGE;
    if (c->bench.ndev_allocs == GS_NDEV_ALLOC) return usage_error("bench ", "at most %d device-alloc modes", GS_NDEV_ALLOC);
    c->bench.dev_allocs[c->bench.ndev_allocs++] = a;
    return 0;
}
static int bench_frame(cli *c, const char *s)
{
    uint64_t v;
    if (parse_frame_size("bench ", s, &v)) return EXIT_USAGE;
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
    for (int op = 0; op <= GS_OP_ROLLING; op++)
        if (op != GS_OP_NONE && !strcmp(s, gs_op_name((gs_op)op))) {
            c->bench.ops |= 1u << op;
            return 0;
        }
    return usage_error("bench ", "unknown --op '%s' (scan, compact, minmax, rolling or all)", s);
}

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
    case O_AGG: {
        gs_minmax_params p;
        memset(&p, 0, sizeof p);
        int rc = parse_aggs("bench ", val, &p);
        c->bench.nagg = p.nagg;
        memcpy(c->bench.agg, p.agg, sizeof p.agg);
        return rc;
    }
    case O_REPS:
        if (parse_int("bench ", "--reps", val, 1, 10000, &l)) return EXIT_USAGE;
        c->bench.reps = (int)l;
        return 0;
    case O_STREAM: c->bench.stream = 1; return 0;
    case O_ZSTD: c->bench.zstd = 1; return 0;
    case O_FRAME: return for_each_item(val, bench_frame, c);
    case O_LEVEL:
        if (parse_level("bench ", val, &l)) return EXIT_USAGE;
        c->bench.level = (int)l;
        return 0;
    case O_DIST: c->bench_dist_given = 1; return NOT_MINE; /* into c->gen, then bench.gen in cmd_bench */
    case O_CSV: c->bench_csv = val; return 0;
    case O_CHAIN: c->bench_chain = val; return 0;
    case O_JSON: c->bench_json = 1; return 0;
    default: return NOT_MINE; /* shared with the other verbs */
    }
}

/* ---- one value each: the input, the output and their codecs ------------------------------------ */
static int apply_io_opt(cli *c, enum opt_id id, const char *val, const char *verb)
{
    uint64_t u = 0;
    long l = 0;
    int rc = 0, word = 0;
    switch (id) {
    case O_TYPE:
        rc = parse_type(verb, val, &c->rd.type);
        c->rd.type_given = 1;
        c->gen.type = c->rd.type;
        break;
    case O_FROM: rc = parse_format(verb, val, &c->rd.format); break;
    case O_TO:
        rc = parse_format(verb, val, &c->to);
        c->to_given = 1;
        break;
    case O_ZSTD: c->zstd = 1; break;
    case O_LEVEL:
        rc = parse_level(verb, val, &l);
        c->wr.level = (int)l;
        c->level_given = 1;
        c->zstd = 1;
        break;
    case O_FRAME:
        rc = parse_frame_size(verb, val, &u);
        c->wr.frame_size = (size_t)u;
        c->frame_given = 1;
        break;
    case O_CODEC:
        if (!(rc = parse_word(verb, "codec", val, codec_words, NWORDS(codec_words), &word))) c->codec = (gs_codec_kind)word;
        break;
    case O_COL:
        c->rd.col = val;
        if (gs_cols_is_list(val)) {
            gs_status cst = {0};
            int k;
            if (gs_cols_check(val, &k, &cst)) rc = usage_error(verb, "%s", cst.msg);
        } else if (gs_col_number(val, &l) && (l < 1 || l > INT32_MAX - 1))
            rc = usage_error(verb, "invalid column '%s' (columns are counted from 1)", val);
        break;
    case O_HEADER: c->rd.header = GS_HDR_YES; break;
    case O_NOHEADER: c->rd.header = GS_HDR_NO; break;
    case O_DELIM:
        if (!strcmp(val, "tab") || !strcmp(val, "\\t")) c->rd.delim = '\t';
        else if (strlen(val) == 1) c->rd.delim = val[0];
        else rc = usage_error(verb, "--delim takes one character or 'tab', not '%s'", val);
        c->wr.delim = c->rd.delim;
        break;
    case O_SKIPBAD: c->rd.skip_bad = 1; break;
    case O_KEEP:
        if (!*val) return usage_error(verb, "--keep takes columns (names or 1-based indices, comma-separated) or all");
        c->rd.keep = val;
        break;
    case O_NA:
        if (!strcmp(val, "skip")) c->rd.na = GS_NA_SKIP;
        else if (!*val) rc = usage_error(verb, "--na takes a value to read missing values as, or skip");
        else c->rd.na = GS_NA_VALUE, c->rd.na_value = val;
        break;
    default: return NOT_MINE;
    }
    return rc;
}

/* ---- one value each: the engine and what the run says ------------------------------------------ */
static int apply_run_opt(cli *c, enum opt_id id, const char *val, const char *verb)
{
    uint64_t u = 0;
    long l = 0;
    int rc = 0, word = 0;
    switch (id) {
    case O_BACKEND:
        if (!(rc = parse_word(verb, "backend", val, backend_words, NWORDS(backend_words), &word)))
            c->eng.backend = (gs_backend_kind)word;
        break;
    case O_DEVICE:
        rc = parse_devices(verb, val, &c->eng);
        c->device_given = 1;
        break;
    case O_CHUNK:
        rc = parse_size(verb, "--chunk", val, &u);
        if (!rc && (u < 64 || u > (1ull << 40))) rc = usage_error(verb, "--chunk must be from 64 bytes to 1T");
        c->eng.chunk_bytes = (size_t)u;
        break;
    case O_BUFFERS:
        rc = parse_int(verb, "--buffers", val, 1, 64, &l);
        c->eng.buffers = (int)l;
        break;
    case O_HOSTMEM: rc = parse_host_mem(verb, val, &c->eng.host_mem); break;
    case O_DEVALLOC: rc = parse_dev_alloc(verb, val, &c->eng.dev_alloc); break;
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
    default: return NOT_MINE;
    }
    return rc;
}

/* ---- a stage's own options ---------------------------------------------------------------------- */
static int apply_stage_opt(cli *c, enum opt_id id, const char *val, const char *verb)
{
    uint64_t u = 0;
    long l = 0;
    int rc = 0, word = 0;
    switch (id) {
    case O_OUTTYPE:
        rc = parse_type(verb, val, &c->job.out_type);
        c->out_type_given = 1;
        break;
    case O_ALGO: c->job.algo = val; break;
    case O_OP:
        if (!(rc = parse_word(verb, "--op", val, scan_op_words, NWORDS(scan_op_words), &word))) c->job.scan.op = (gs_scan_op)word;
        break;
    case O_EXCLUSIVE: c->job.scan.exclusive = 1; break;
    case O_PRED: c->pred = val; break;
    case O_INVERT: c->job.compact.invert = 1; break;
    case O_INDICES: c->job.compact.indices = 1; break;
    case O_COUNT: c->job.count_only = 1; break;
    case O_ROWS: c->job.rows = 1; break;
    case O_WINDOW:
        rc = parse_size(verb, "--window", val, &u);
        if (!rc && u == 0) rc = usage_error(verb, "--window must be at least 1");
        c->job.minmax.window = u;
        c->window_given = 1;
        break;
    case O_PARTIAL: c->job.partial = 1; break;
    case O_AGG: rc = parse_aggs(verb, val, &c->job.minmax); break;
    case O_DDOF:
        rc = parse_int(verb, "--ddof", val, 0, 1000000, &l);
        c->job.minmax.ddof = (int)l;
        break;
    case O_SKIPNAN: c->job.minmax.skip_nan = 1; break;
    case O_MINPERIODS:
        rc = parse_size(verb, "--min-periods", val, &u);
        c->job.minmax.min_periods = u;
        c->min_periods_given = 1;
        break;
    case O_ONLY:
        if (!strcmp(val, "min")) c->job.minmax.only = GS_MM_MIN;
        else if (!strcmp(val, "max")) c->job.minmax.only = GS_MM_MAX;
        else rc = usage_error(verb, "--only takes min or max, not '%s'", val);
        break;
    default: return NOT_MINE;
    }
    return rc;
}

/* ---- gen's data ---------------------------------------------------------------------------------- */
static int apply_gen_opt(cli *c, enum opt_id id, const char *val, const char *verb)
{
    gs_status st = {0};
    char *end;
    switch (id) {
    case O_N:
        c->n_given = 1;
        return parse_size(verb, "-n", val, &c->gen.n);
    case O_DIST: return gs_dist_parse(val, &c->gen, &st) ? usage_error(verb, "%s", st.msg) : 0;
    case O_SEED:
        errno = 0;
        c->gen.seed = strtoull(val, &end, 10);
        return !*val || *end || errno ? usage_error(verb, "invalid --seed '%s'", val) : 0;
    default: return NOT_MINE;
    }
}

int apply_opt(cli *c, const opt_def *o, const char *val)
{
    if (c->verb->bit == V_BENCH) {
        int brc = apply_bench_opt(c, o, val);
        if (brc != NOT_MINE) return brc;
    }
    static int (*const apply[])(cli *, enum opt_id, const char *, const char *) = {apply_io_opt, apply_run_opt,
                                                                                   apply_stage_opt, apply_gen_opt};
    char verb[32];
    snprintf(verb, sizeof verb, "%s ", c->verb->name);
    for (size_t i = 0; i < sizeof apply / sizeof apply[0]; i++) {
        int rc = apply[i](c, o->id, val, verb);
        if (rc != NOT_MINE) return rc;
    }
    return 0; /* --help: shown as it is met (parse_args) */
}
