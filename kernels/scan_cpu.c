/* scan_cpu.c - prefix scan on the CPU: sum, min and max, inclusive and exclusive, for the six
 * element types and the widenings i32->i64, u32->u64, f32->f64 (kernels.h has the chunked
 * semantics; ops.h the element operations).
 *
 *   gs_scan_cpu       sequential reference: one left fold from *carry.
 *   gs_scan_cpu_par   reduce-then-scan over fixed blocks of GS_SCAN_BLOCK elements:
 *                     pass 1 reduces each block in parallel, a sequential exclusive combine of
 *                     the block totals starting from *carry gives each block's offset, pass 2
 *                     rescans each block from its offset in parallel. Block boundaries depend
 *                     only on the chunk, never on the thread count, so float sums are the same
 *                     with 1 or 64 threads. Blocks go in rounds of a few per thread so that
 *                     pass 2 re-reads its input from cache rather than from DRAM.
 *   gs_scan_identity  the identity of each op: 0 (-0.0 for floats: -0.0 + x is x for every x, so
 *                     an inclusive sum of -0.0 stays -0.0, as numpy's cumsum), the type's maximum
 *                     (+inf), its minimum (-inf).
 *
 * Inner loops are generated per (input type, output type, op) by macro, so no loop switches
 * on the type per element. in == out is allowed when the types are the same. */
#include "kernels.h"

#include <math.h>
#include <stdlib.h>

#include "../common/pool.h"
#include "ops.h"

/* Fixed so that float results depend on the chunk size alone. 64 Ki elements (256-512 KiB)
 * also keeps a round of a few blocks per thread inside a core's L2 for pass 2. */
#define GS_SCAN_BLOCK ((size_t)1 << 16)
#define GS_SCAN_BLOCKS_PER_THREAD 2 /* blocks per thread per round */
#define GS_SCAN_LANES 8             /* independent accumulators in the pass-1 reduction */

void gs_scan_identity(gs_scan_op op, gs_type t, gs_value *v)
{
    v->u64 = 0; /* clears the union so a smaller type's neighbours are defined */
    if (op == GS_SCAN_SUM) {
        if (t == GS_F32) v->f32 = -0.0f;
        else if (t == GS_F64) v->f64 = -0.0;
        return;
    }
    const int mn = op == GS_SCAN_MIN; /* min starts at the top of the range, max at the bottom */
    switch (t) {
    case GS_I32: v->i32 = mn ? INT32_MAX : INT32_MIN; break;
    case GS_I64: v->i64 = mn ? INT64_MAX : INT64_MIN; break;
    case GS_U32: v->u32 = mn ? UINT32_MAX : 0; break;
    case GS_U64: v->u64 = mn ? UINT64_MAX : 0; break;
    case GS_F32: v->f32 = mn ? INFINITY : -INFINITY; break;
    case GS_F64: v->f64 = mn ? (double)INFINITY : -(double)INFINITY; break;
    default: break;
    }
}

/* ---- type-specialised loops --------------------------------------------------------------
 * scan:   out[i] from acc = *carry, then *carry = total.
 * reduce: *acc = op(*acc, fold of in[0..n)), with GS_SCAN_LANES interleaved accumulators so
 *         the loop is not bound by the latency of one dependency chain (a fixed lane layout:
 *         the result depends only on n and the data). A float min/max that comes out NaN is
 *         folded again in order, so it carries the block's first NaN as a left fold does and
 *         cpu-par min/max stays bit-identical to cpu, NaN payloads included (rare: only blocks
 *         holding a NaN pay). */
typedef void (*scan_fn)(const void *in, void *out, size_t n, gs_value *carry, int exclusive);
typedef void (*reduce_fn)(const void *in, size_t n, gs_value *acc);

#define GS_SCAN_GEN(NAME, TI, TO, SO, OPF, REFOLD)                                            \
    static void scan_##NAME(const void *vin, void *vout, size_t n, gs_value *carry, int excl) \
    {                                                                                         \
        const TI *in = vin;                                                                   \
        TO *out = vout;                                                                       \
        TO acc = carry->SO;                                                                   \
        if (excl) {                                                                           \
            for (size_t i = 0; i < n; i++) {                                                  \
                const TO x = (TO)in[i]; /* read before the write: in == out is allowed */     \
                out[i] = acc;                                                                 \
                acc = OPF(acc, x);                                                            \
            }                                                                                 \
        } else {                                                                              \
            for (size_t i = 0; i < n; i++) {                                                  \
                acc = OPF(acc, (TO)in[i]);                                                    \
                out[i] = acc;                                                                 \
            }                                                                                 \
        }                                                                                     \
        carry->SO = acc;                                                                      \
    }                                                                                         \
    static void reduce_##NAME(const void *vin, size_t n, gs_value *accv)                      \
    {                                                                                         \
        const TI *in = vin;                                                                   \
        TO lane[GS_SCAN_LANES];                                                               \
        size_t i = 0;                                                                         \
        if (n >= 2 * GS_SCAN_LANES) {                                                         \
            for (int l = 0; l < GS_SCAN_LANES; l++) lane[l] = (TO)in[l];                      \
            for (i = GS_SCAN_LANES; i + GS_SCAN_LANES <= n; i += GS_SCAN_LANES)               \
                for (int l = 0; l < GS_SCAN_LANES; l++) lane[l] = OPF(lane[l], (TO)in[i + l]); \
            TO acc = accv->SO;                                                                \
            for (int l = 0; l < GS_SCAN_LANES; l++) acc = OPF(acc, lane[l]);                  \
            for (; i < n; i++) acc = OPF(acc, (TO)in[i]);                                     \
            if (!REFOLD(acc)) {                                                               \
                accv->SO = acc;                                                               \
                return;                                                                       \
            }                                                                                 \
            i = 0;                                                                            \
        }                                                                                     \
        for (; i < n; i++) accv->SO = OPF(accv->SO, (TO)in[i]);                               \
    }

/* REFOLD(acc): redo a lane reduction in order (a float min/max that found a NaN). */
#define GS_NO_REFOLD(x) 0
#define GS_REFOLD_i32 GS_NO_REFOLD
#define GS_REFOLD_i64 GS_NO_REFOLD
#define GS_REFOLD_u32 GS_NO_REFOLD
#define GS_REFOLD_u64 GS_NO_REFOLD
#define GS_REFOLD_f32(x) ((x) != (x))
#define GS_REFOLD_f64(x) ((x) != (x))

#define GS_SCAN_GEN_OPS(S, TI, TO, SO)                                 \
    GS_SCAN_GEN(sum_##S, TI, TO, SO, gs_add_##SO, GS_NO_REFOLD)        \
    GS_SCAN_GEN(min_##S, TI, TO, SO, gs_min_##SO, GS_REFOLD_##SO)      \
    GS_SCAN_GEN(max_##S, TI, TO, SO, gs_max_##SO, GS_REFOLD_##SO)

GS_SCAN_GEN_OPS(i32, int32_t, int32_t, i32)
GS_SCAN_GEN_OPS(i64, int64_t, int64_t, i64)
GS_SCAN_GEN_OPS(u32, uint32_t, uint32_t, u32)
GS_SCAN_GEN_OPS(u64, uint64_t, uint64_t, u64)
GS_SCAN_GEN_OPS(f32, float, float, f32)
GS_SCAN_GEN_OPS(f64, double, double, f64)
GS_SCAN_GEN_OPS(i32_i64, int32_t, int64_t, i64)
GS_SCAN_GEN_OPS(u32_u64, uint32_t, uint64_t, u64)
GS_SCAN_GEN_OPS(f32_f64, float, double, f64)

typedef struct scan_kernel {
    gs_type tin, tout;
    scan_fn scan[3];     /* by gs_scan_op */
    reduce_fn reduce[3];
} scan_kernel;

#define GS_SCAN_ROW(TI, TO, S)                                         \
    {TI, TO, {scan_sum_##S, scan_min_##S, scan_max_##S},               \
     {reduce_sum_##S, reduce_min_##S, reduce_max_##S}}
/* The first six rows are the same-type ones in gs_type order: scan_kernels[t] is t -> t. */
static const scan_kernel scan_kernels[] = {
    GS_SCAN_ROW(GS_I32, GS_I32, i32),     GS_SCAN_ROW(GS_I64, GS_I64, i64),
    GS_SCAN_ROW(GS_U32, GS_U32, u32),     GS_SCAN_ROW(GS_U64, GS_U64, u64),
    GS_SCAN_ROW(GS_F32, GS_F32, f32),     GS_SCAN_ROW(GS_F64, GS_F64, f64),
    GS_SCAN_ROW(GS_I32, GS_I64, i32_i64), GS_SCAN_ROW(GS_U32, GS_U64, u32_u64),
    GS_SCAN_ROW(GS_F32, GS_F64, f32_f64),
};

/* The loops for p, or GS_EUSAGE naming what is not supported. */
static int scan_lookup(const gs_scan_params *p, const scan_kernel **k, gs_status *st)
{
    if ((unsigned)p->op > GS_SCAN_MAX) return gs_fail(st, GS_EUSAGE, "scan: unknown op %d", (int)p->op);
    if ((unsigned)p->type >= GS_NTYPES || (unsigned)p->out_type >= GS_NTYPES)
        return gs_fail(st, GS_EUSAGE, "scan: unknown element type");
    for (size_t i = 0; i < sizeof scan_kernels / sizeof scan_kernels[0]; i++)
        if (scan_kernels[i].tin == p->type && scan_kernels[i].tout == p->out_type) {
            *k = &scan_kernels[i];
            return GS_OK;
        }
    return gs_fail(st, GS_EUSAGE,
                   "scan: cannot accumulate %s into %s (--out-type allows the input type, i32->i64, "
                   "u32->u64, f32->f64)",
                   gs_type_name(p->type), gs_type_name(p->out_type));
}

int gs_scan_cpu(const gs_scan_params *p, const void *in, void *out, size_t n, gs_value *carry, gs_status *st)
{
    const scan_kernel *k;
    int rc = scan_lookup(p, &k, st);
    if (rc) return rc;
    k->scan[p->op](in, out, n, carry, p->exclusive);
    return GS_OK;
}

/* ---- parallel ------------------------------------------------------------------------------ */
typedef struct scan_par_ctx {
    scan_fn scan;
    reduce_fn reduce;
    reduce_fn combine; /* one out_type value into the running offset: a reduce of length 1 */
    const char *in;
    char *out;
    size_t isz, osz;
    int exclusive;
    gs_value ident; /* op identity in out_type */
    gs_value *off;  /* per block of the round: its total (pass 1), then its offset (pass 2) */
    gs_value run;   /* the carry in, combined with every block's total so far */
} scan_par_ctx;

static void scan_par_reduce(void *vctx, size_t slot, size_t b, size_t e)
{
    scan_par_ctx *c = vctx;
    c->off[slot] = c->ident;
    c->reduce(c->in + b * c->isz, e - b, &c->off[slot]);
}

static void scan_par_offsets(void *vctx, size_t nb)
{
    scan_par_ctx *c = vctx;
    for (size_t i = 0; i < nb; i++) { /* exclusive combine: total -> offset */
        const gs_value total = c->off[i];
        c->off[i] = c->run;
        c->combine(&total, 1, &c->run);
    }
}

static void scan_par_scan(void *vctx, size_t slot, size_t b, size_t e)
{
    scan_par_ctx *c = vctx;
    gs_value acc = c->off[slot];
    c->scan(c->in + b * c->isz, c->out + b * c->osz, e - b, &acc, c->exclusive);
}

int gs_scan_cpu_par(const gs_scan_params *p, const void *in, void *out, size_t n, gs_value *carry,
                    gs_status *st)
{
    const scan_kernel *k;
    int rc = scan_lookup(p, &k, st);
    if (rc) return rc;
    /* One block: pass 2 alone, which is exactly what the block scheme computes for it. */
    if (n <= GS_SCAN_BLOCK) {
        k->scan[p->op](in, out, n, carry, p->exclusive);
        return GS_OK;
    }
    const size_t nblocks = (n + GS_SCAN_BLOCK - 1) / GS_SCAN_BLOCK;
    size_t per_round = (size_t)gs_pool_threads() * GS_SCAN_BLOCKS_PER_THREAD;
    if (per_round > nblocks) per_round = nblocks;
    gs_value *off = malloc(per_round * sizeof *off);
    if (!off) return gs_fail(st, GS_ENOMEM, "scan: out of host memory");

    scan_par_ctx c = {.scan = k->scan[p->op], .reduce = k->reduce[p->op],
                      .combine = scan_kernels[p->out_type].reduce[p->op], .in = in, .out = out,
                      .isz = gs_type_size(p->type), .osz = gs_type_size(p->out_type), .exclusive = p->exclusive,
                      .off = off, .run = *carry};
    gs_scan_identity(p->op, p->out_type, &c.ident);
    gs_block_rounds(n, GS_SCAN_BLOCK, per_round, scan_par_reduce, scan_par_offsets, scan_par_scan, &c);
    *carry = c.run;
    free(off);
    return GS_OK;
}
