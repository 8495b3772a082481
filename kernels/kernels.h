/* kernels.h - the three operations, their parameters, one launcher signature per
 * operation and backend, and the registry that maps --algo names to launchers.
 * Plain C; no CUDA headers (streams are passed as void *, cudaStream_t underneath).
 *
 * Chunked semantics (the pipeline calls a launcher once per chunk, in order):
 *   scan     carry = running total (one value of out_type) entering the chunk; the launcher
 *            updates it to the total after the chunk. Inclusive: out[i] = carry (+) x[0..i];
 *            exclusive: out[i] = carry (+) x[0..i-1]. Initial carry = identity of the op
 *            (-0.0 for a float sum, as numpy's cumsum), except an exclusive float sum's: +0.0,
 *            the empty sum (as std::exclusive_scan and CUB's ExclusiveSum start).
 *            Each input element is converted to out_type before it is combined.
 *   compact  keeps x[i] where pred(x[i]) != invert, in order; writes the kept values, or with
 *            indices the u64 positions base + i. Returns the kept count.
 *   minmax   in[0..m) holds the halo (the previous W-1 inputs, fewer at the stream's start)
 *            followed by the chunk. Outputs are produced for window END positions
 *            e = first .. m-1; the window is in[max(0, e-W+1) .. e] (clipped at 0: that is
 *            --partial at the start). Output row r = e - first. With only == GS_MM_BOTH the
 *            output is interleaved pairs (min, max); otherwise one value per row.
 *            A window holding a NaN gives NaN (see ops.h for the exact min/max).
 */
#ifndef GS_KERNELS_H
#define GS_KERNELS_H

#include "../common/gs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* GS_OP_ROLLING names the registry's rolling rows; a rolling job is a GS_OP_MINMAX job whose
 * minmax.nagg > 0 (the same windows, halo and carries), resolved to those rows. */
typedef enum gs_op { GS_OP_SCAN = 0, GS_OP_COMPACT, GS_OP_MINMAX, GS_OP_NONE, GS_OP_ROLLING } gs_op;
typedef enum gs_scan_op { GS_SCAN_SUM = 0, GS_SCAN_MIN, GS_SCAN_MAX } gs_scan_op;

typedef struct gs_scan_params {
    gs_type type;     /* input element type */
    gs_type out_type; /* accumulator and output type (== type unless --out-type) */
    gs_scan_op op;
    int exclusive;
    int block; /* GPU threads per block; 0 = the variant's tuned default (see gs_variant.blocks) */
} gs_scan_params;

typedef enum gs_pred_kind {
    GS_PRED_NONZERO = 0, GS_PRED_EQ, GS_PRED_NE, GS_PRED_GT, GS_PRED_GE, GS_PRED_LT, GS_PRED_LE,
    GS_PRED_RANGE, /* a <= x <= b */
    GS_PRED_FINITE, GS_PRED_NAN
} gs_pred_kind;

typedef struct gs_compact_params {
    gs_type type;
    gs_pred_kind pred;
    gs_value a, b; /* operands, already in `type` */
    int invert;
    int indices; /* write u64 positions instead of values */
    int block;   /* GPU threads per block; 0 = the variant's tuned default */
} gs_compact_params;

typedef enum gs_mm_only { GS_MM_BOTH = 0, GS_MM_MIN, GS_MM_MAX } gs_mm_only;

/* Rolling aggregates (the minmax job with nagg > 0: `rolling -w W --agg LIST`), one output column
 * each, in the order given. */
typedef enum gs_agg {
    GS_AGG_SUM = 0, GS_AGG_MEAN, GS_AGG_VAR, GS_AGG_STD, GS_AGG_COUNT, GS_AGG_MIN, GS_AGG_MAX, GS_AGG_ARGMIN,
    GS_AGG_ARGMAX, GS_NAGG
} gs_agg;
#define GS_ROLL_COLS_MAX 16 /* aggregates one rolling job may list */

typedef struct gs_minmax_params {
    gs_type type;
    uint64_t window; /* W >= 1 */
    gs_mm_only only;
    int block;       /* GPU threads per block; 0 = the variant's tuned default */
    /* rolling (nagg > 0; 0 = minmax's (min, max) or --only): */
    int nagg;
    unsigned char agg[GS_ROLL_COLS_MAX]; /* gs_agg, one per output column */
    gs_type out_type;      /* the type of every value written (gs_roll_out_type unless --out-type) */
    int ddof;              /* var = M2 / (n - ddof) */
    int skip_nan;          /* NaN ignored (pandas) instead of propagated */
    uint64_t min_periods;  /* a window with fewer values gives NaN */
    uint64_t base;         /* absolute stream position of in[0]: set by the backend for each call */
} gs_minmax_params;

/* Rolling aggregates (kernels/rolling.c): the --agg word of each ("sum", "mean", ...); the type an
 * aggregate's column holds for input type `in` (`missing`: a window may give NaN, so integer-valued
 * columns become f64); whether a window may have no value (min_periods above 1, which the caller
 * sets only where some window can be shorter, or --skip-nan on floats); and the one type every
 * column is written in (raw and npy): their common type if they share one, else f64 where any is
 * float, else i64 where any is signed, else u64. */
const char *gs_agg_name(gs_agg a);
int gs_agg_parse(const char *s, gs_agg *a);
gs_type gs_agg_type(gs_agg a, gs_type in, int missing);
int gs_roll_missing(const gs_minmax_params *p);
gs_type gs_roll_out_type(const gs_minmax_params *p);

/* Names of the operations ("scan", "compact", "minmax", "rolling"; "none" for GS_OP_NONE), the predicates
 * ("nonzero", "eq", ..., the --pred words) and how many values each predicate takes (0, 1, 2). */
const char *gs_op_name(gs_op op);
const char *gs_pred_name(gs_pred_kind k);
int gs_pred_nargs(gs_pred_kind k);

/* Scan identity for an op and type, written into *v. */
void gs_scan_identity(gs_scan_op op, gs_type t, gs_value *v);
/* Evaluate a predicate on one element (reference semantics, used by the CPU kernels and tests). */
int gs_pred_eval(const gs_compact_params *p, const void *elem);

/* ---- CPU launchers ---------------------------------------------------------------------
 * Synchronous; use the process thread pool (common/pool.h) for parallel variants.
 * Return GS_OK or a code with st filled (e.g. unsupported type). */
typedef int (*gs_scan_cpu_fn)(const gs_scan_params *p, const void *in, void *out, size_t n,
                              gs_value *carry, gs_status *st);
typedef int (*gs_compact_cpu_fn)(const gs_compact_params *p, const void *in, size_t n, void *out,
                                 uint64_t base, size_t *kept, gs_status *st);
typedef int (*gs_minmax_cpu_fn)(const gs_minmax_params *p, const void *in, size_t m, size_t first,
                                void *out, gs_status *st);

/* ---- GPU launchers ---------------------------------------------------------------------
 * Asynchronous on `stream`; all pointers are device (or mapped host) memory. Every launch is
 * checked (cudaGetLastError) before returning. Scratch is asked for first (n_max = the
 * largest n any later call will pass), allocated once by the caller, and reused.
 *   scan:    d_carry points to one out_type value on the device, read then overwritten.
 *   compact: d_count receives the kept count (u64) of this call; out has room for n items.
 *   minmax:  as above; m, first as in the chunked semantics. */
typedef size_t (*gs_scan_gpu_scratch_fn)(const gs_scan_params *p, uint64_t n_max);
typedef int (*gs_scan_gpu_fn)(const gs_scan_params *p, const void *d_in, void *d_out, uint64_t n,
                              void *d_carry, void *d_scratch, size_t scratch_bytes, void *stream,
                              gs_status *st);
typedef size_t (*gs_compact_gpu_scratch_fn)(const gs_compact_params *p, uint64_t n_max);
typedef int (*gs_compact_gpu_fn)(const gs_compact_params *p, const void *d_in, uint64_t n, void *d_out,
                                 uint64_t base, uint64_t *d_count, void *d_scratch, size_t scratch_bytes,
                                 void *stream, gs_status *st);
typedef size_t (*gs_minmax_gpu_scratch_fn)(const gs_minmax_params *p, uint64_t m_max);
typedef int (*gs_minmax_gpu_fn)(const gs_minmax_params *p, const void *d_in, uint64_t m, uint64_t first,
                                void *d_out, void *d_scratch, size_t scratch_bytes, void *stream,
                                gs_status *st);

/* ---- registry ------------------------------------------------------------------------ */
typedef enum gs_where { GS_CPU = 0, GS_GPU = 1 } gs_where;

/* Flags for what a variant accepts beyond its type mask. */
enum {
    GS_V_DEFAULT = 1u << 0,    /* the default variant for its op and backend */
    GS_V_SCAN_SUM = 1u << 1,   /* scan ops accepted */
    GS_V_SCAN_MINMAX = 1u << 2,
    GS_V_EXCLUSIVE = 1u << 3,  /* exclusive scan accepted */
    GS_V_WIDEN = 1u << 4,      /* out_type != type accepted */
    GS_V_INDICES = 1u << 5,    /* compact --indices accepted */
    GS_V_ALLPRED = 1u << 6,    /* every predicate (else nonzero only) */
    GS_V_REFERENCE = 1u << 7,  /* the reference other variants are checked against */
    GS_V_DEFAULT_SEQ = 1u << 8, /* the CPU default below its op's thread crossover (gs_variant_default_for) */
};

/* Threads per block a GPU variant can be launched with (gs_variant.blocks, the params' block):
 * bit k set = 32 << k threads, k = 0..5 (32..1024). Grid-stride and runtime-sized kernels take
 * any of them; kernels whose thread count is a template argument are instantiated for 64, 128,
 * 256 and 512 (gs_dispatch_block in kernels/gpu_common.cuh). Only a make TUNING=1 build has them
 * (kernels/tuning.h); a default build runs each variant at its tuned shape. */
#define GS_BLOCK_BIT(t)                                                                           \
    ((t) == 32 ? 1u : (t) == 64 ? 2u : (t) == 128 ? 4u : (t) == 256 ? 8u : (t) == 512 ? 16u : (t) == 1024 ? 32u : 0u)
/* 1 in a make TUNING=1 build (GS_TUNING): GPU variants take the sizes of their blocks mask; else
 * none (blocks 0: each variant runs at its tuned shape) */
#ifdef GS_TUNING
#define GS_HAVE_TUNING 1
#else
#define GS_HAVE_TUNING 0
#endif
#define GS_BLOCKS_ANY 0x3fu /* 32, 64, 128, 256, 512, 1024 */
#define GS_BLOCKS_TPL 0x1eu /* 64, 128, 256, 512 */

typedef struct gs_variant {
    const char *name; /* the --algo name */
    gs_op op;
    gs_where where;
    unsigned types; /* GS_TYPE_BIT mask */
    unsigned flags;
    unsigned blocks;   /* GS_BLOCK_BIT mask of the block sizes it accepts; 0 = no override (cub, CPU) */
    int block_default; /* threads per block when block == 0; 0 where that does not apply */
    const char *desc; /* one line for `gpustream info` */
    union {
        gs_scan_cpu_fn scan;
        gs_compact_cpu_fn compact;
        gs_minmax_cpu_fn minmax;
    } cpu;
    union {
        gs_scan_gpu_fn scan;
        gs_compact_gpu_fn compact;
        gs_minmax_gpu_fn minmax;
    } gpu;
    union {
        gs_scan_gpu_scratch_fn scan;
        gs_compact_gpu_scratch_fn compact;
        gs_minmax_gpu_scratch_fn minmax;
    } scratch;
    /* minmax variants whose default launch depends on the params (vhgw: by window and type): its
     * threads per block; NULL = block_default */
    int (*minmax_threads)(const gs_minmax_params *p);
} gs_variant;

/* All variants compiled into this build (GPU ones only with CUDA), NULL-terminated order. */
const gs_variant *gs_variants(size_t *count);
/* Look up by op and name; NULL if none. */
const gs_variant *gs_variant_find(gs_op op, const char *name);
/* The default variant for an op and backend; NULL if none compiled in. */
const gs_variant *gs_variant_default(gs_op op, gs_where where);
/* The same at `threads` CPU threads: on the CPU below the op's crossover, the GS_V_DEFAULT_SEQ row. */
const gs_variant *gs_variant_default_for(gs_op op, gs_where where, int threads);
/* GS_OK if v accepts these parameters, else GS_EUSAGE with a message naming what it lacks. */
int gs_variant_check_scan(const gs_variant *v, const gs_scan_params *p, gs_status *st);
int gs_variant_check_compact(const gs_variant *v, const gs_compact_params *p, gs_status *st);
int gs_variant_check_minmax(const gs_variant *v, const gs_minmax_params *p, gs_status *st);
/* 1 if threads is a power of two from 32 to 1024 (a size some GPU variant could take). */
int gs_block_valid(long threads);
/* 1 if v accepts block (0, its default, is always accepted). */
int gs_variant_block_ok(const gs_variant *v, int block);
/* The threads per block v runs with for block: block itself, or its default when 0 (0 for
 * variants without one, such as cub and the CPU variants). */
int gs_variant_block(const gs_variant *v, int block);
/* The same for a minmax launch, whose default may depend on the window and type (minmax_threads). */
int gs_variant_block_minmax(const gs_variant *v, int block, const gs_minmax_params *p);
/* The sizes of a GS_BLOCK_BIT mask as text, "64, 128, 256, 512" ("none" for 0); returns buf. */
const char *gs_blocks_str(unsigned mask, char *buf, size_t len);

/* ---- CPU variants (kernels/scan_cpu.c, compact_cpu.c, minmax_cpu.c) ----------------------------------------------------- */
int gs_scan_cpu(const gs_scan_params *p, const void *in, void *out, size_t n, gs_value *carry, gs_status *st);
int gs_scan_cpu_par(const gs_scan_params *p, const void *in, void *out, size_t n, gs_value *carry, gs_status *st);
int gs_compact_cpu(const gs_compact_params *p, const void *in, size_t n, void *out, uint64_t base,
                   size_t *kept, gs_status *st);
int gs_compact_cpu_par(const gs_compact_params *p, const void *in, size_t n, void *out, uint64_t base,
                       size_t *kept, gs_status *st);
/* The elements of in[0..n) compact keeps (sequential; the parallel variant's first pass). */
size_t gs_compact_count_cpu(const gs_compact_params *p, const void *in, size_t n);
int gs_minmax_cpu_naive(const gs_minmax_params *p, const void *in, size_t m, size_t first, void *out,
                        gs_status *st);
int gs_minmax_cpu_lemire(const gs_minmax_params *p, const void *in, size_t m, size_t first, void *out,
                         gs_status *st);
int gs_minmax_cpu_vhgw(const gs_minmax_params *p, const void *in, size_t m, size_t first, void *out,
                       gs_status *st);
/* Rolling aggregates (kernels/rolling_cpu.c): the minmax chunked semantics with p->nagg columns of
 * p->out_type per row; p->base is the absolute position of in[0]. */
int gs_rolling_cpu(const gs_minmax_params *p, const void *in, size_t m, size_t first, void *out, gs_status *st);
/* The same rows by the tile sweep alone, a state at a time (no vector lanes: kernels/rolling_fast.c
 * is not used): the reference the lanes and the GPU are checked against. */
int gs_rolling_cpu_sweep(const gs_minmax_params *p, const void *in, size_t m, size_t first, void *out,
                         gs_status *st);

#ifdef __cplusplus
}
#endif
#endif
