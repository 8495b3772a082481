/* registry.c - the table of kernel variants: --algo name, operation, backend, what each accepts
 * (types, ops, predicates, threads per block), a line for `gpustream info`, and its launchers.
 * The CPU rows are always built; the GPU rows (the .cu files in kernels/, declared in
 * kernels_gpu.h) only with GS_HAVE_CUDA. Lookup by name, the default per operation and backend,
 * and the checks that a variant accepts a job. */
#include "kernels.h"

#include <stdio.h>
#include <string.h>

#ifdef GS_HAVE_CUDA
#include "kernels_gpu.h"
#endif

/* What the CPU variants and every GPU variant accept. */
#define SCAN_ALL (GS_V_SCAN_SUM | GS_V_SCAN_MINMAX | GS_V_EXCLUSIVE | GS_V_WIDEN)
#define COMPACT_ALL (GS_V_ALLPRED | GS_V_INDICES)

/* CPU rows take no block size (blocks 0, block_default 0). */
#define CPU_SCAN(name, fn, flags, desc) \
    {name, GS_OP_SCAN, GS_CPU, GS_ALL_TYPES, SCAN_ALL | (flags), 0, 0, desc, {.scan = fn}, {.scan = NULL}, {.scan = NULL}, NULL}
#define CPU_COMPACT(name, fn, flags, desc)                                                                  \
    {name, GS_OP_COMPACT, GS_CPU, GS_ALL_TYPES, COMPACT_ALL | (flags), 0, 0, desc, {.compact = fn}, {.compact = NULL}, \
     {.compact = NULL}, NULL}
#define CPU_MINMAX(name, fn, flags, desc) \
    {name, GS_OP_MINMAX, GS_CPU, GS_ALL_TYPES, (flags), 0, 0, desc, {.minmax = fn}, {.minmax = NULL}, {.minmax = NULL}, NULL}

#ifdef GS_HAVE_CUDA
/* blocks: GS_BLOCKS_ANY for grid-stride / runtime-sized kernels, GS_BLOCKS_TPL (or, for vhgw, a part
 * of it) where a thread count is a template argument, 0 for a fixed shape; none unless built with
 * make TUNING=1 (GS_BUILT_BLOCKS). dflt: the threads of the default launch (tuning.h). */
#define GPU_SCAN(name, sym, flags, blocks, dflt, desc)                                                   \
    {name, GS_OP_SCAN, GS_GPU, GS_ALL_TYPES, SCAN_ALL | (flags), blocks, dflt, desc, {.scan = NULL},       \
     {.scan = gs_scan_gpu_##sym}, {.scan = gs_scan_gpu_##sym##_scratch}, NULL}
#define GPU_COMPACT(name, sym, flags, blocks, dflt, desc)                                                \
    {name, GS_OP_COMPACT, GS_GPU, GS_ALL_TYPES, COMPACT_ALL | (flags), blocks, dflt, desc, {.compact = NULL}, \
     {.compact = gs_compact_gpu_##sym}, {.compact = gs_compact_gpu_##sym##_scratch}, NULL}
#define GPU_MINMAX(name, sym, flags, blocks, dflt, desc)                                                 \
    {name, GS_OP_MINMAX, GS_GPU, GS_ALL_TYPES, (flags), blocks, dflt, desc, {.minmax = NULL},              \
     {.minmax = gs_minmax_gpu_##sym}, {.minmax = gs_minmax_gpu_##sym##_scratch}, NULL}
/* a minmax variant whose default launch depends on the window: gs_minmax_gpu_<sym>_threads says it */
#define GPU_MINMAX_SHAPED(name, sym, flags, blocks, dflt, desc)                                          \
    {name, GS_OP_MINMAX, GS_GPU, GS_ALL_TYPES, (flags), blocks, dflt, desc, {.minmax = NULL},              \
     {.minmax = gs_minmax_gpu_##sym}, {.minmax = gs_minmax_gpu_##sym##_scratch}, gs_minmax_gpu_##sym##_threads}
#endif

static const gs_variant variants[] = {
    CPU_SCAN("cpu", gs_scan_cpu, GS_V_REFERENCE | GS_V_DEFAULT_SEQ, "sequential left fold (reference)"),
    CPU_SCAN("cpu-par", gs_scan_cpu_par, GS_V_DEFAULT,
             "threaded reduce-then-scan over fixed 64Ki blocks (same floats for any thread count)"),
    CPU_COMPACT("cpu", gs_compact_cpu, GS_V_REFERENCE | GS_V_DEFAULT_SEQ, "sequential branch-free compaction (reference)"),
    CPU_COMPACT("cpu-par", gs_compact_cpu_par, GS_V_DEFAULT, "threaded count, prefix of counts, scatter"),
    CPU_MINMAX("cpu-naive", gs_minmax_cpu_naive, GS_V_REFERENCE, "O(nW) fold over each window (reference)"),
    CPU_MINMAX("cpu-lemire", gs_minmax_cpu_lemire, 0, "Lemire monotonic wedges, one thread, O(1) amortized"),
    CPU_MINMAX("cpu-vhgw", gs_minmax_cpu_vhgw, GS_V_DEFAULT | GS_V_DEFAULT_SEQ,
               "van Herk/Gil-Werman block prefix/suffix, threaded, min and max in one pass"),
    {"cpu-sweep", GS_OP_ROLLING, GS_CPU, GS_ALL_TYPES, GS_V_REFERENCE, 0, 0,
     "cpu-vhgw's tile sweep alone, a state at a time, threaded (reference)",
     {.minmax = gs_rolling_cpu_sweep}, {.minmax = NULL}, {.minmax = NULL}, NULL},
    {"cpu-vhgw", GS_OP_ROLLING, GS_CPU, GS_ALL_TYPES, GS_V_DEFAULT | GS_V_DEFAULT_SEQ, 0, 0,
     "van Herk/Gil-Werman over merges (compensated sum, Chan's var, value+position), tiles side by side in vector lanes, threaded",
     {.minmax = gs_rolling_cpu}, {.minmax = NULL}, {.minmax = NULL}, NULL},
#ifdef GS_HAVE_CUDA
    GPU_SCAN("naive", naive, 0, GS_BUILT_BLOCKS(GS_BLOCKS_ANY), GS_GRID_THREADS, "Hillis-Steele, double-buffered, one launch per step"),
    GPU_SCAN("blelloch", blelloch, 0, GS_BUILT_BLOCKS(GS_BLOCKS_ANY), GS_GRID_THREADS, "work-efficient up/down sweep, a grid per level"),
    GPU_SCAN("blelloch-smem", blelloch_smem, 0, GS_BUILT_BLOCKS(GS_BLOCKS_TPL), GS_BS_THREADS,
             "shared-memory tiles, bank-conflict-free, recursive block sums"),
    GPU_SCAN("lookback", lookback, GS_V_DEFAULT, GS_BUILT_BLOCKS(GS_BLOCKS_TPL), GS_SCAN_LOOKBACK_THREADS,
             "single-pass decoupled look-back"),
    GPU_SCAN("cub", cub, 0, 0, 0, "cub::DeviceScan (vendor baseline)"),
    GPU_COMPACT("scan", scan, 0, GS_BUILT_BLOCKS(GS_BLOCKS_ANY), GS_GRID_THREADS, "flag, scan, scatter"),
    GPU_COMPACT("ballot", ballot, 0, GS_BUILT_BLOCKS(GS_BLOCKS_TPL), GS_BALLOT_THREADS,
                "block counts with __syncthreads_count, warp ballot/popc offsets"),
    GPU_COMPACT("lookback", lookback, GS_V_DEFAULT, GS_BUILT_BLOCKS(GS_BLOCKS_TPL), GS_COMPACT_LOOKBACK_THREADS,
                "single pass with decoupled look-back"),
    GPU_COMPACT("cub", cub, 0, 0, 0, "cub::DeviceSelect (vendor baseline)"),
    GPU_MINMAX("linear", linear, 0, GS_BUILT_BLOCKS(GS_BLOCKS_ANY), GS_GRID_THREADS, "one thread per output, O(W) each"),
    GPU_MINMAX("tiled", tiled, 0, GS_BUILT_BLOCKS(GS_BLOCKS_TPL), GS_GRID_THREADS, "shared-memory tiles, log-linear"),
    GPU_MINMAX_SHAPED("vhgw", vhgw, GS_V_DEFAULT, GS_BUILT_BLOCKS(GS_VHGW_BLOCKS_ALL), GS_MINMAX_VHGW_THREADS,
               "van Herk/Gil-Werman block prefix/suffix (64 threads for 4-byte types, 16 < W-1 <= 1024)"),
    {"vhgw", GS_OP_ROLLING, GS_GPU, GS_ALL_TYPES, GS_V_DEFAULT, 0, 0,
     "the CPU's merges tile by tile (a thread per tile of 32), the CPU backend's bits",
     {.minmax = NULL}, {.minmax = gs_rolling_gpu_vhgw}, {.minmax = gs_rolling_gpu_vhgw_scratch}, NULL},
#endif
    {NULL, GS_OP_NONE, GS_CPU, 0, 0, 0, 0, NULL, {.scan = NULL}, {.scan = NULL}, {.scan = NULL}, NULL}, /* end mark */
};

/* Rows before the end mark: callers may walk by count or up to the NULL name. */
#define NVARIANTS (sizeof variants / sizeof variants[0] - 1)

const gs_variant *gs_variants(size_t *count)
{
    if (count) *count = NVARIANTS;
    return variants;
}

const gs_variant *gs_variant_find(gs_op op, const char *name)
{
    if (!name) return NULL;
    for (size_t i = 0; i < NVARIANTS; i++)
        if (variants[i].op == op && strcmp(variants[i].name, name) == 0) return &variants[i];
    return NULL;
}

const gs_variant *gs_variant_default(gs_op op, gs_where where)
{
    return gs_variant_default_for(op, where, 0);
}

/* The one rule for the CPU default: below gs_cpu_par_from(op) threads the sequential variant (the
 * GS_V_DEFAULT_SEQ row), from there on the threaded one (GS_V_DEFAULT). The threaded scan and
 * compaction make extra passes (reduce then scan; count, prefix, scatter) that only free cores pay
 * for. On the H200 host (16 cores, 2026-11-23, bench --backend cpu -n 2^26 i32, density 0.5,
 * median of 5; docs/PERFORMANCE.md), Gelem/s of cpu / cpu-par:
 *   --threads 1: scan 0.88 / 0.65, compact 0.72 / 0.40
 *   --threads 2: scan 1.05 / 1.41, compact 0.98 / 0.88 (a second run: scan 1.16 / 1.34, compact 0.91 / 0.99)
 *   --threads 3: scan 1.15 / 1.92, compact 0.94 / 1.02
 * so scan goes threaded from 2 threads; compaction, a tie at 2, from 3. minmax: cpu-vhgw at every count (110 ms
 * vs cpu-lemire 768 at one thread, W=500), so its row carries both flags. */
static int gs_cpu_par_from(gs_op op) { return op == GS_OP_SCAN ? 2 : 3; }

const gs_variant *gs_variant_default_for(gs_op op, gs_where where, int threads)
{
    const unsigned flag = where == GS_CPU && threads > 0 && threads < gs_cpu_par_from(op) ? GS_V_DEFAULT_SEQ : GS_V_DEFAULT;
    for (size_t i = 0; i < NVARIANTS; i++)
        if (variants[i].op == op && variants[i].where == where && (variants[i].flags & flag)) return &variants[i];
    return NULL;
}

static const char *const scan_op_names[] = {"sum", "min", "max"};

static const char *const op_names[] = {"scan", "compact", "minmax", "none", "rolling"};

const char *gs_op_name(gs_op op) { return (unsigned)op <= GS_OP_ROLLING ? op_names[op] : "none"; }

/* the --pred words, by gs_pred_kind, and how many values each takes */
static const struct {
    const char *name;
    int nargs;
} preds[] = {{"nonzero", 0}, {"eq", 1}, {"ne", 1}, {"gt", 1}, {"ge", 1},
             {"lt", 1},      {"le", 1}, {"range", 2}, {"finite", 0}, {"nan", 0}};

const char *gs_pred_name(gs_pred_kind k) { return (unsigned)k <= GS_PRED_NAN ? preds[k].name : "?"; }
int gs_pred_nargs(gs_pred_kind k) { return (unsigned)k <= GS_PRED_NAN ? preds[k].nargs : 0; }

static int check_type(const gs_variant *v, gs_type t, gs_status *st)
{
    if ((unsigned)t >= GS_NTYPES) return gs_fail(st, GS_EUSAGE, "unknown element type");
    if (!(v->types & GS_TYPE_BIT(t)))
        return gs_fail(st, GS_EUSAGE, "variant '%s' does not support %s; see gpustream info", v->name, gs_type_name(t));
    return GS_OK;
}

int gs_block_valid(long threads)
{
    return threads >= 32 && threads <= 1024 && (threads & (threads - 1)) == 0;
}

int gs_variant_block_ok(const gs_variant *v, int block)
{
    return block == 0 || (gs_block_valid(block) && (v->blocks & GS_BLOCK_BIT(block)));
}

int gs_variant_block(const gs_variant *v, int block)
{
    return block ? block : v->block_default;
}

int gs_variant_block_minmax(const gs_variant *v, int block, const gs_minmax_params *p)
{
    if (!block && v->minmax_threads) return v->minmax_threads(p);
    return gs_variant_block(v, block);
}

const char *gs_blocks_str(unsigned mask, char *buf, size_t len)
{
    size_t k = 0;
    if (len) buf[0] = 0;
    for (int t = 32; t <= 1024 && k < len; t *= 2)
        if (mask & GS_BLOCK_BIT(t)) k += (size_t)snprintf(buf + k, len - k, "%s%d", k ? ", " : "", t);
    if (!mask && len) snprintf(buf, len, "none");
    return buf;
}

/* A block size the variant was not built for is a usage error that names the sizes it takes. */
static int check_block(const gs_variant *v, int block, gs_status *st)
{
    char sizes[64];
    if (gs_variant_block_ok(v, block)) return GS_OK;
    if (v->where == GS_CPU)
        return gs_fail(st, GS_EUSAGE, "variant '%s' runs on the CPU: it takes no block size (asked for %d)", v->name,
                       block);
    if (!v->blocks && v->block_default)
        return gs_fail(st, GS_EUSAGE, "variant '%s' runs %d threads per block in this build (asked for %d; other "
                       "sizes: make TUNING=1)", v->name, v->block_default, block);
    if (!v->blocks)
        return gs_fail(st, GS_EUSAGE, "variant '%s' has its own launch shapes: it takes no block size (asked for %d)",
                       v->name, block);
    return gs_fail(st, GS_EUSAGE, "variant '%s' does not take %d threads per block (it accepts %s)", v->name, block,
                   gs_blocks_str(v->blocks, sizes, sizeof sizes));
}

/* What every check starts with: the element type and the block size. */
static int check_type_block(const gs_variant *v, gs_type t, int block, gs_status *st)
{
    const int rc = check_type(v, t, st);
    return rc ? rc : check_block(v, block, st);
}
#define GS_RETURN_IF(expr)                                                                                    \
    do {                                                                                                     \
        const int rc_ = (expr);                                                                              \
        if (rc_) return rc_;                                                                                 \
    } while (0)

int gs_variant_check_scan(const gs_variant *v, const gs_scan_params *p, gs_status *st)
{
    GS_RETURN_IF(check_type_block(v, p->type, p->block, st));
    if ((unsigned)p->op > GS_SCAN_MAX) return gs_fail(st, GS_EUSAGE, "unknown scan op %d", (int)p->op);
    const unsigned need = p->op == GS_SCAN_SUM ? GS_V_SCAN_SUM : GS_V_SCAN_MINMAX;
    if (!(v->flags & need))
        return gs_fail(st, GS_EUSAGE, "variant '%s' does not support --op %s; see gpustream info", v->name,
                       scan_op_names[p->op]);
    if (p->exclusive && !(v->flags & GS_V_EXCLUSIVE))
        return gs_fail(st, GS_EUSAGE, "variant '%s' does not support --exclusive; see gpustream info", v->name);
    if (p->out_type != p->type) {
        const int widen_ok = (p->type == GS_I32 && p->out_type == GS_I64) ||
                             (p->type == GS_U32 && p->out_type == GS_U64) ||
                             (p->type == GS_F32 && p->out_type == GS_F64);
        if (!widen_ok)
            return gs_fail(st, GS_EUSAGE, "--out-type %s cannot hold a scan of %s (allowed: %s, or i32->i64, "
                           "u32->u64, f32->f64)", gs_type_name(p->out_type), gs_type_name(p->type),
                           gs_type_name(p->type));
        if (!(v->flags & GS_V_WIDEN))
            return gs_fail(st, GS_EUSAGE, "variant '%s' does not support --out-type; see gpustream info", v->name);
    }
    return GS_OK;
}

int gs_variant_check_compact(const gs_variant *v, const gs_compact_params *p, gs_status *st)
{
    GS_RETURN_IF(check_type_block(v, p->type, p->block, st));
    if ((unsigned)p->pred > GS_PRED_NAN) return gs_fail(st, GS_EUSAGE, "unknown predicate %d", (int)p->pred);
    if (p->pred != GS_PRED_NONZERO && !(v->flags & GS_V_ALLPRED))
        return gs_fail(st, GS_EUSAGE, "variant '%s' does not support --pred %s; see gpustream info", v->name,
                       gs_pred_name(p->pred));
    if (p->indices && !(v->flags & GS_V_INDICES))
        return gs_fail(st, GS_EUSAGE, "variant '%s' does not support --indices; see gpustream info", v->name);
    return GS_OK;
}

int gs_variant_check_minmax(const gs_variant *v, const gs_minmax_params *p, gs_status *st)
{
    GS_RETURN_IF(check_type_block(v, p->type, p->block, st));
    if (p->window < 1) return gs_fail(st, GS_EUSAGE, "--window must be at least 1");
    if ((unsigned)p->only > GS_MM_MAX) return gs_fail(st, GS_EUSAGE, "unknown --only value %d", (int)p->only);
    return GS_OK;
}
