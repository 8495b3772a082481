/* compact_cpu.c - stream compaction on the CPU: keep the elements whose predicate differs from
 * `invert`, in order, as values or as u64 positions base + i (kernels.h).
 *
 *   gs_pred_eval        one element: 1 if it is kept, i.e. pred(x) != invert (invert included,
 *                       so it answers "is x kept" for references and tests).
 *   gs_compact_cpu      sequential: branch-free compaction of tiles of GS_COMPACT_TILE elements
 *                       into a stack buffer, copied out with one memcpy per tile (a data-
 *                       dependent branch per element mispredicts at 50% density; writing
 *                       speculatively into `out` itself would touch slots past the kept count).
 *   gs_compact_cpu_par  fixed blocks of GS_COMPACT_BLOCK: count each block in parallel, prefix
 *                       the counts, scatter each block at its offset in parallel. Blocks go in
 *                       rounds of a few per thread so the scatter re-reads from cache.
 *
 * Predicates are those of pred.h (shared with the GPU kernels): C comparisons in the element type.
 * The predicate switch sits outside each loop; the loops are generated per type.
 * in == out is allowed for value output (not with indices). */
#include "kernels.h"
#include "pred.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/pool.h"

#define GS_COMPACT_TILE 1024                 /* stack buffer, elements (8 KiB of u64) */
#define GS_COMPACT_BLOCK ((size_t)1 << 16)   /* parallel work unit */
#define GS_COMPACT_BLOCKS_PER_THREAD 2       /* blocks per thread per round */

/* Expand LOOP(cond) once per predicate, cond the predicate of pred.h for that constant kind (one
 * comparison, inlined); cond reads x, a, b. The loop macros read the names GS_LOOP_LOCALS
 * declares in each generated function. */
#define GS_PRED_CASE(S, K, LOOP) \
    case K: LOOP(gs_pred_test_##S(K, x, a, b)); break;
#define GS_PRED_SWITCH(S, LOOP)                        \
    switch (p->pred) {                                 \
        GS_PRED_CASE(S, GS_PRED_NONZERO, LOOP)         \
        GS_PRED_CASE(S, GS_PRED_EQ, LOOP)              \
        GS_PRED_CASE(S, GS_PRED_NE, LOOP)              \
        GS_PRED_CASE(S, GS_PRED_GT, LOOP)              \
        GS_PRED_CASE(S, GS_PRED_GE, LOOP)              \
        GS_PRED_CASE(S, GS_PRED_LT, LOOP)              \
        GS_PRED_CASE(S, GS_PRED_LE, LOOP)              \
        GS_PRED_CASE(S, GS_PRED_RANGE, LOOP)           \
        GS_PRED_CASE(S, GS_PRED_FINITE, LOOP)          \
        GS_PRED_CASE(S, GS_PRED_NAN, LOOP)             \
    }

typedef size_t (*count_fn)(const gs_compact_params *p, const void *in, size_t n);
typedef size_t (*scatter_fn)(const gs_compact_params *p, const void *in, size_t n, void *out, uint64_t base);

/* What the loop macros read, in a function of p (the params) and vin (the input): the element
 * type gs_elem, the input in, the predicate's constants a and b, and inv. */
#define GS_LOOP_LOCALS(S, T)            \
    typedef T gs_elem;                  \
    const T *in = vin;                  \
    const T a = p->a.S, b = p->b.S;     \
    const int inv = p->invert != 0;     \
    (void)a, (void)b;

#define GS_COMPACT_GEN(S, T)                                                                     \
    static int pred_##S(const gs_compact_params *p, T x)                                        \
    {                                                                                            \
        return gs_pred_test_##S((int)p->pred, x, p->a.S, p->b.S) != (p->invert != 0);           \
    }                                                                                            \
    static size_t count_##S(const gs_compact_params *p, const void *vin, size_t n)               \
    {                                                                                            \
        GS_LOOP_LOCALS(S, T)                                                                     \
        size_t cnt = 0;                                                                          \
        GS_PRED_SWITCH(S, GS_COUNT_LOOP)                                                         \
        return cnt;                                                                              \
    }                                                                                            \
    static size_t scatter_##S(const gs_compact_params *p, const void *vin, size_t n, void *vout, \
                              uint64_t base)                                                     \
    {                                                                                            \
        GS_LOOP_LOCALS(S, T)                                                                     \
        size_t kept = 0;                                                                         \
        if (p->indices) {                                                                        \
            uint64_t *out = vout, buf[GS_COMPACT_TILE];                                          \
            GS_PRED_SWITCH(S, GS_SCATTER_IDX_LOOP)                                               \
        } else {                                                                                 \
            T *out = vout, buf[GS_COMPACT_TILE];                                                 \
            GS_PRED_SWITCH(S, GS_SCATTER_VAL_LOOP)                                               \
        }                                                                                        \
        return kept;                                                                             \
    }

#define GS_COUNT_LOOP(COND)                                  \
    for (size_t i = 0; i < n; i++) {                         \
        const gs_elem x = in[i];                             \
        cnt += (size_t)((COND) ^ inv);                       \
    }

/* Branch-free: every element is stored at buf[k], k advances only when it is kept. */
#define GS_SCATTER_LOOP(COND, STORE)                                                   \
    for (size_t t0 = 0; t0 < n; t0 += GS_COMPACT_TILE) {                               \
        const size_t tn = n - t0 < GS_COMPACT_TILE ? n - t0 : GS_COMPACT_TILE;         \
        const gs_elem *tin = in + t0;                                                  \
        size_t k = 0;                                                                  \
        for (size_t i = 0; i < tn; i++) {                                              \
            const gs_elem x = tin[i];                                                  \
            buf[k] = STORE;                                                            \
            k += (size_t)((COND) ^ inv);                                               \
        }                                                                              \
        memcpy(out + kept, buf, k * sizeof buf[0]);                                    \
        kept += k;                                                                     \
    }
#define GS_SCATTER_VAL_LOOP(COND) GS_SCATTER_LOOP(COND, x)
#define GS_SCATTER_IDX_LOOP(COND) GS_SCATTER_LOOP(COND, base + t0 + i)

GS_COMPACT_GEN(i32, int32_t)
GS_COMPACT_GEN(i64, int64_t)
GS_COMPACT_GEN(u32, uint32_t)
GS_COMPACT_GEN(u64, uint64_t)
GS_COMPACT_GEN(f32, float)
GS_COMPACT_GEN(f64, double)

static const count_fn count_fns[GS_NTYPES] = {count_i32, count_i64, count_u32, count_u64, count_f32, count_f64};
static const scatter_fn scatter_fns[GS_NTYPES] = {scatter_i32, scatter_i64, scatter_u32,
                                                  scatter_u64, scatter_f32, scatter_f64};

/* Reference semantics of one element: 1 if it is kept, i.e. pred(x) != invert. */
int gs_pred_eval(const gs_compact_params *p, const void *elem)
{
    switch (p->type) {
    case GS_I32: { int32_t x; memcpy(&x, elem, sizeof x); return pred_i32(p, x); }
    case GS_I64: { int64_t x; memcpy(&x, elem, sizeof x); return pred_i64(p, x); }
    case GS_U32: { uint32_t x; memcpy(&x, elem, sizeof x); return pred_u32(p, x); }
    case GS_U64: { uint64_t x; memcpy(&x, elem, sizeof x); return pred_u64(p, x); }
    case GS_F32: { float x; memcpy(&x, elem, sizeof x); return pred_f32(p, x); }
    case GS_F64: { double x; memcpy(&x, elem, sizeof x); return pred_f64(p, x); }
    default: return 0;
    }
}

size_t gs_compact_count_cpu(const gs_compact_params *p, const void *in, size_t n)
{
    return (unsigned)p->type < GS_NTYPES ? count_fns[p->type](p, in, n) : 0;
}

static int compact_check(const gs_compact_params *p, gs_status *st)
{
    if ((unsigned)p->type >= GS_NTYPES) return gs_fail(st, GS_EUSAGE, "compact: unknown element type");
    if ((unsigned)p->pred > GS_PRED_NAN) return gs_fail(st, GS_EUSAGE, "compact: unknown predicate %d", (int)p->pred);
    return GS_OK;
}

int gs_compact_cpu(const gs_compact_params *p, const void *in, size_t n, void *out, uint64_t base,
                   size_t *kept, gs_status *st)
{
    int rc = compact_check(p, st);
    if (rc) return rc;
    *kept = scatter_fns[p->type](p, in, n, out, base);
    return GS_OK;
}

/* ---- parallel ------------------------------------------------------------------------------ */
typedef struct compact_par_ctx {
    const gs_compact_params *p;
    count_fn count;
    scatter_fn scatter;
    const char *in;
    char *out;
    size_t isz, osz;
    uint64_t base;
    size_t *off;  /* per block of the round: its count (pass 1), then its output offset */
    size_t total; /* kept by the rounds before */
} compact_par_ctx;

static void compact_par_count(void *vctx, size_t slot, size_t b, size_t e)
{
    compact_par_ctx *c = vctx;
    c->off[slot] = c->count(c->p, c->in + b * c->isz, e - b);
}

static void compact_par_offsets(void *vctx, size_t nb)
{
    compact_par_ctx *c = vctx;
    for (size_t i = 0; i < nb; i++) {
        const size_t cnt = c->off[i];
        c->off[i] = c->total;
        c->total += cnt;
    }
}

static void compact_par_scatter(void *vctx, size_t slot, size_t b, size_t e)
{
    compact_par_ctx *c = vctx;
    c->scatter(c->p, c->in + b * c->isz, e - b, c->out + c->off[slot] * c->osz, c->base + b);
}

int gs_compact_cpu_par(const gs_compact_params *p, const void *in, size_t n, void *out, uint64_t base,
                       size_t *kept, gs_status *st)
{
    int rc = compact_check(p, st);
    if (rc) return rc;
    const size_t nblocks = (n + GS_COMPACT_BLOCK - 1) / GS_COMPACT_BLOCK;
    size_t per_round = (size_t)gs_pool_threads() * GS_COMPACT_BLOCKS_PER_THREAD;
    /* In place, a block's output could land on input another thread has not read yet. */
    if (nblocks <= 1 || per_round <= 1 || (const void *)out == in) return gs_compact_cpu(p, in, n, out, base, kept, st);
    if (per_round > nblocks) per_round = nblocks;
    size_t *off = malloc(per_round * sizeof *off);
    if (!off) return gs_fail(st, GS_ENOMEM, "compact: out of host memory");

    compact_par_ctx c = {.p = p, .count = count_fns[p->type], .scatter = scatter_fns[p->type], .in = in, .out = out,
                         .isz = gs_type_size(p->type), .osz = p->indices ? sizeof(uint64_t) : gs_type_size(p->type),
                         .base = base, .off = off};
    gs_block_rounds(n, GS_COMPACT_BLOCK, per_round, compact_par_count, compact_par_offsets, compact_par_scatter, &c);
    *kept = c.total;
    free(off);
    return GS_OK;
}
