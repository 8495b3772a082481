/* rolling_fast.c - the CPU sweep of the sum (sum, mean) and var (var, std) families on the input as
 * f64 without --skip-nan, with f64 or f32 columns: the states of rolling_cpu.c's sweep (its comment "the
 * sweep" defines them), by the same operations of rolling_ops.h in the same order, so the same
 * bits as the generic sweep and the GPU kernels; only the schedule differs. Tiles are folded side
 * by side, one in each lane of a vector: RF_LS of them for the sum family, RF_LV for var's longer
 * chains (rolling_fast_lanes.h, built once per count).
 *
 * The ends run in slabs of whole blocks (RF_SLAB values at least). Per slab: the totals of the
 * tiles of its blocks (a lane count of tiles at a time), those of the block before kept from the slab
 * before; PT and ST per block from them; then each tile of ends in block j with the same tile of
 * block j-1: its prefixes from PT before it, its suffixes from ST after it, each row from their
 * merge. A tile whose 32 ends are not all in the range, and the last tile of a block (its last end
 * is the block's whole prefix), go one value at a time through the same steps (rf_tile1). Every
 * value counts, so a state's count is known from its position: 1/n, and the merges' b.n / W, come
 * from tables.
 * Short windows (W <= RF_SHORT_SUM, or RF_SHORT_VAR for var) skip the slabs: with one tile a block
 * there are no chains to run, so whole blocks go side by side in the lanes (rf_short), the ends
 * around them one at a time (rf_end1). */
#include "rolling_fast.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RF_LS 8                           /* tiles side by side: sum family */
#define RF_LV 16                          /* var family */
_Static_assert(RF_LS % 8 == 0 && RF_LV % 8 == 0, "lanes in blocks of 8 (rf_t8)");
#define RF_T ((int64_t)GS_ROLL_TILE)      /* values per tile */
#define RF_SLAB ((int64_t)1024)           /* fewest values of a slab of blocks */
#define RF_SLAB_WMAX ((int64_t)1 << 13)   /* above: a block a slab (lanes of its consecutive tiles) */
#define RF_WMAX ((uint64_t)1 << 20)       /* above: the generic sweep (tables of W values) */
#define RF_WROWS ((int64_t)1 << 16)       /* above: no tables in lane rows (RF_LV W values each) */
#define RF_SHORT_W 32                     /* rf_short's longest window */
/* The longest windows each family takes through rf_short: the sum family's every window of one tile
 * (W = 25 to 32 in half the slabs' time), the var family's to 5, above which the slabs' sweep is the
 * faster (kernels/TUNING.md: the 2-core machine, 10^7 f64, one thread). */
#define RF_SHORT_SUM 32
#define RF_SHORT_VAR 5 /* rf_short_v's cases */
_Static_assert(RF_SHORT_SUM <= RF_SHORT_W && RF_SHORT_W <= GS_ROLL_TILE, "rf_short: one tile a block, its arrays");
_Static_assert(RF_SHORT_VAR <= 5, "rf_short_v has cases for W = 1 to 5 alone");

/* Each lane loop is built for the widest vectors the machine has (GCC on x86-64); the bits do not
 * depend on the width: no operation is reordered, none contracted (the Makefile builds this file
 * with -ffp-contract=off). Not under ThreadSanitizer: the clones' resolver runs while the program
 * is relocated, before the sanitizer's runtime has started, and its instrumented code faults. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
#define RF_WIDE __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define RF_WIDE
#endif

/* the lane helpers, built into each of the wide functions' versions */
#ifdef __GNUC__
#define RF_INLINE static inline __attribute__((always_inline))
#else
#define RF_INLINE static inline
#endif

/* a hint to load in[a..a+n) (what is past the memory is left alone) */
#ifdef __GNUC__
#define RF_PREFETCH(c, a, n)                                                                             \
    do {                                                                                                 \
        for (int64_t q_ = (a); q_ < (a) + (n) && q_ < (c)->m; q_ += 8) __builtin_prefetch((c)->in + q_); \
    } while (0)
#else
#define RF_PREFETCH(c, a, n) ((void)0)
#endif

/* a hint to fetch, for writing, the output rows of ends e..e+n (their first store would otherwise
 * wait on the line's read with the store buffer full: the lanes' stores scatter over RF_L tiles) */
#ifdef __GNUC__
#define RF_PREFETCH_OUT(c, e, n)                                                                           \
    do {                                                                                                   \
        const gs_rs_cols *k_ = (c)->cols;                                                                  \
        char *o_ = k_->out + (uint64_t)((e) - (c)->first) * k_->k * k_->osz;                               \
        for (uint64_t q_ = 0; q_ < (uint64_t)(n) * k_->k * k_->osz; q_ += 64) __builtin_prefetch(o_ + q_, 1); \
    } while (0)
#else
#define RF_PREFETCH_OUT(c, e, n) ((void)0)
#endif

/* Blocks of 8 x 8 values turned over in vector registers (GCC 12 or clang: __builtin_shufflevector):
 * the lanes' loads of 8 consecutive values of a tile and stores of 8 consecutive rows each become
 * one vector access where they were 8 scalar ones. Only values move: the bits are the same. */
#if defined(__GNUC__) && (defined(__clang__) || __GNUC__ >= 12)
#define RF_VEC 1
typedef double rf_v8 __attribute__((vector_size(64)));
#define RF_SV __builtin_shufflevector
/* 8 rows of 8 values, row i at s[i], turned over into d: d[j][i] = s[i][j]; straight code, so that
 * every vector stays in a register */
RF_INLINE void rf_t8(const double *const *s, double *const *d)
{
    rf_v8 r0, r1, r2, r3, r4, r5, r6, r7;
    memcpy(&r0, s[0], 64), memcpy(&r1, s[1], 64), memcpy(&r2, s[2], 64), memcpy(&r3, s[3], 64);
    memcpy(&r4, s[4], 64), memcpy(&r5, s[5], 64), memcpy(&r6, s[6], 64), memcpy(&r7, s[7], 64);
    /* the three steps' shuffles: a pair's even and odd columns (E, O); pairs of columns (P, Q);
     * halves (H, K) */
#define RF_E(x, y) RF_SV(x, y, 0, 8, 2, 10, 4, 12, 6, 14)
#define RF_O(x, y) RF_SV(x, y, 1, 9, 3, 11, 5, 13, 7, 15)
#define RF_P(x, y) RF_SV(x, y, 0, 1, 8, 9, 4, 5, 12, 13)
#define RF_Q(x, y) RF_SV(x, y, 2, 3, 10, 11, 6, 7, 14, 15)
#define RF_H(x, y) RF_SV(x, y, 0, 1, 2, 3, 8, 9, 10, 11)
#define RF_K(x, y) RF_SV(x, y, 4, 5, 6, 7, 12, 13, 14, 15)
    /* pairs of rows: their even and odd columns interleaved */
    const rf_v8 a0 = RF_E(r0, r1), a1 = RF_O(r0, r1), a2 = RF_E(r2, r3), a3 = RF_O(r2, r3);
    const rf_v8 a4 = RF_E(r4, r5), a5 = RF_O(r4, r5), a6 = RF_E(r6, r7), a7 = RF_O(r6, r7);
    /* four rows: b0-b3 hold columns c and c + 4 of rows 0-3 (b0: 0 and 4, b1: 1 and 5, ...), b4-b7 of
     * rows 4-7 */
    const rf_v8 b0 = RF_P(a0, a2), b1 = RF_P(a1, a3), b2 = RF_Q(a0, a2), b3 = RF_Q(a1, a3);
    const rf_v8 b4 = RF_P(a4, a6), b5 = RF_P(a5, a7), b6 = RF_Q(a4, a6), b7 = RF_Q(a5, a7);
    /* all eight rows: column c from bc's and b(c+4)'s halves */
    const rf_v8 c0 = RF_H(b0, b4), c1 = RF_H(b1, b5), c2 = RF_H(b2, b6), c3 = RF_H(b3, b7);
    const rf_v8 c4 = RF_K(b0, b4), c5 = RF_K(b1, b5), c6 = RF_K(b2, b6), c7 = RF_K(b3, b7);
#undef RF_E
#undef RF_O
#undef RF_P
#undef RF_Q
#undef RF_H
#undef RF_K
    memcpy(d[0], &c0, 64), memcpy(d[1], &c1, 64), memcpy(d[2], &c2, 64), memcpy(d[3], &c3, 64);
    memcpy(d[4], &c4, 64), memcpy(d[5], &c5, 64), memcpy(d[6], &c6, 64), memcpy(d[7], &c7, 64);
}
#endif

typedef union rf_st {
    gs_rs_sumf s;
    gs_rs_var v;
} rf_st;

typedef struct rf_ctx {
    const double *in;
    int64_t W, M, m, first; /* local positions; in[0..m) in memory */
    const gs_rs_cols *cols;
    int var;
    double dof;                     /* var: W - ddof */
    double *rn, *fb, *nafb;         /* var: rn[n] = 1/n for n <= W; for an end at block offset q,
                                       fb = (q+1)/W and nafb = (W-q-1) fb (Chan's merge) */
    double *tp, *ts, *tn;           /* var, RF_SLAB_WMAX < W <= RF_WROWS, rows enough (else NULL): for lanes of
                                       consecutive tiles from block offset m, row m of RF_LV lanes
                                       of rn[m + 32l + 1], rn[W - m - 32l], nafb[m + 32l] (0 where
                                       out of range) */
    rf_st *tot, *pt, *st;           /* per tile, rows of M + 1: the block before the slab, its blocks */
} rf_ctx;

static inline void rf_init(int var, rf_st *a)
{
    if (var) gs_rs_var_init(&a->v);
    else gs_rs_sumf_init(&a->s);
}
static inline void rf_add(int var, rf_st *a, double x)
{
    if (var) gs_rs_var_add(&a->v, x);
    else gs_rs_sumf_add(&a->s, x);
}
static inline rf_st rf_merge(int var, rf_st a, rf_st b)
{
    rf_st r;
    memset(&r, 0, sizeof r); /* the other member's bytes too, as the union is copied whole */
    if (var) r.v = gs_rs_var_merge(a.v, b.v);
    else r.s = gs_rs_sumf_merge(a.s, b.s);
    return r;
}
static inline void rf_row(const rf_ctx *c, int64_t e, rf_st a)
{
    if (c->var) gs_rs_row_var(c->cols, (uint64_t)(e - c->first), a.v);
    else gs_rs_row_sumf(c->cols, (uint64_t)(e - c->first), a.s);
}
/* lane l of a state: (s, c) or (mean, ml, m2), and back with its count */
static inline void rf_get(int var, const rf_st *a, double *x0, double *x1, double *x2)
{
    if (var) *x0 = a->v.mean, *x1 = a->v.ml, *x2 = a->v.m2;
    else *x0 = a->s.s, *x1 = a->s.c, *x2 = 0.0;
}
static inline void rf_put(int var, rf_st *a, double x0, double x1, double x2, uint64_t n)
{
    if (var) a->v.mean = x0, a->v.ml = x1, a->v.m2 = x2, a->v.n = n;
    else a->s.s = x0, a->s.c = x1, a->s.n = n;
}

/* the lane work, once per lane count */
#define RF_L RF_LS
#define RF_N(f) f##_s
#include "rolling_fast_lanes.h"
#undef RF_L
#undef RF_N
#define RF_L RF_LV
#define RF_N(f) f##_v
#include "rolling_fast_lanes.h"
#undef RF_L
#undef RF_N

/* the family's lane count and lane work */
#define RF_LANES(c) ((c)->var ? RF_LV : RF_LS)
static void rf_tot(const rf_ctx *c, int64_t len, const int64_t *p, rf_st *const *out)
{
    if (c->var) rf_tot_v(c, len, p, out);
    else rf_tot_s(c, len, p, out);
}
static void rf_group(const rf_ctx *c, int64_t len, int last, const int64_t *pe, const int64_t *kq, rf_st *const *ptb,
                     rf_st *const *pta, rf_st *const *stn)
{
    if (c->var) rf_group_v(c, len, last, pe, kq, ptb, pta, stn);
    else rf_group_s(c, len, last, pe, kq, ptb, pta, stn);
}

/* Tiles gathered a lane count at a time for one kind of lane work; a last batch of fewer repeats its
 * first tile in the empty lanes (the same values written twice). */
typedef struct rf_lanes {
    int n;
    int64_t p[RF_LV], kq[RF_LV];
    rf_st *a[RF_LV], *b[RF_LV], *s[RF_LV];
} rf_lanes;
static void rf_pad(rf_lanes *q, int lanes)
{
    for (int l = q->n; l < lanes; l++)
        q->p[l] = q->p[0], q->kq[l] = q->kq[0], q->a[l] = q->a[0], q->b[l] = q->b[0], q->s[l] = q->s[0];
}

/* The totals of the tiles of rows r0..r1 (rows of M + 1 in c->tot; row r is the block starting at
 * local bs + (r - 1) W); a tile not wholly in memory gets the identity (no window needs it). Whole
 * tiles and the blocks' short last tiles go a lane count at a time. */
static void rf_tots(const rf_ctx *c, int64_t bs, int64_t r0, int64_t r1)
{
    const int64_t R = c->M + 1, tail = c->W - (c->M - 1) * RF_T;
    rf_lanes q[2]; /* whole tiles, short last tiles */
    q[0].n = q[1].n = 0;
    for (int64_t r = r0; r <= r1; r++) {
        rf_st *tot = c->tot + r * R;
        const int64_t b0 = bs + (r - 1) * c->W;
        for (int64_t k = 0; k < c->M; k++) {
            const int64_t t0 = b0 + k * RF_T, len = k + 1 < c->M ? RF_T : tail;
            rf_init(c->var, &tot[k]);
            if (t0 < 0 || t0 + len > c->m) continue;
            rf_lanes *l = &q[len < RF_T];
            l->p[l->n] = t0, l->a[l->n] = &tot[k];
            if (++l->n == RF_LANES(c)) rf_tot(c, len < RF_T ? tail : RF_T, l->p, l->a), l->n = 0;
        }
    }
    for (int i = 0; i < 2; i++)
        if (q[i].n) rf_pad(&q[i], RF_LANES(c)), rf_tot(c, i ? tail : RF_T, q[i].p, q[i].a);
}

/* The ends [ea, eb) of tile k of the block at local jb, one value at a time (as rs_out_k of
 * rolling_vhgw.cuh): ptb = PT before the tile, pta = PT through it (used where the tile's last end
 * is in range), stn = ST of the block before from tile k+1 on (NULL for a block's last tile). */
static void rf_tile1(const rf_ctx *c, int64_t jb, int64_t k, int64_t ea, int64_t eb, const rf_st *ptb,
                     const rf_st *pta, const rf_st *stn)
{
    const int var = c->var;
    const int64_t t0 = jb + k * RF_T, t1 = t0 + RF_T < jb + c->W ? t0 + RF_T : jb + c->W;
    rf_st acc = *ptb, sb[GS_ROLL_TILE], a;
    for (int64_t e = t0; e < ea; e++) rf_add(var, &acc, c->in[e]);
    /* the suffixes from the same tile's end in the block before down to the first end's start */
    const int64_t qt = t0 - c->W, q1 = t1 - c->W, lo = ea - c->W + 1 > qt + 1 ? ea - c->W + 1 : qt + 1;
    if (stn) a = *stn;
    else rf_init(var, &a);
    for (int64_t q = q1 - 1; q >= lo; q--) {
        rf_add(var, &a, c->in[q]);
        sb[q - qt] = a;
    }
    for (int64_t e = ea; e < eb; e++) {
        rf_add(var, &acc, c->in[e]);
        if (e == t1 - 1) rf_row(c, e, stn ? rf_merge(var, *stn, *pta) : *pta);
        else rf_row(c, e, rf_merge(var, sb[e + 1 - t0], acc));
    }
}

/* The two chains of a block's totals tot[0..M) in the sweep's order (rolling_cpu.c): PT into
 * pt[0..M], ST into st[0..M], on one family's member X (not the union copied whole) with its
 * merge MERGE and identity I; in two levels where GR (GS_RS_GROUPED), SL, SR and the group's PT
 * and ST kept as they go. */
#define RF_CHAINS(X, I, MERGE, GR)                                                                          \
    do {                                                                                                    \
        pt[0].X = I, st[M].X = I;                                                                           \
        __typeof__(I) sl = I, ptg = I, sr = I, stg = I;                                                     \
        for (int64_t k = 0; k < M; k++) {                                                                   \
            const int64_t m = M - 1 - k;                                                                    \
            pt[k + 1].X = MERGE(pt[k].X, tot[k].X);                                                         \
            st[m].X = MERGE(totb[m].X, st[m + 1].X);                                                        \
            if (!(GR)) continue;                                                                            \
            sl = MERGE(sl, tot[k].X);                                                                       \
            if (gs_roll_pt_rebased((uint64_t)(k + 1), (uint64_t)M)) pt[k + 1].X = ptg = MERGE(ptg, sl), sl = I; \
            sr = MERGE(totb[m].X, sr);                                                                      \
            if (gs_roll_st_rebased((uint64_t)m, (uint64_t)M)) st[m].X = MERGE(sr, stg);                     \
            if (m % (int64_t)GS_ROLL_GROUP == 0) stg = st[m].X, sr = I; /* a group's first tile */        \
        }                                                                                                   \
    } while (0)

/* PT (before each tile) of rows 1..nb, ST (from each tile on) of rows 0..nb-1: the two chains of a
 * pair of rows side by side. */
static void rf_chains(const rf_ctx *c, int64_t nb)
{
    const int64_t R = c->M + 1, M = c->M;
    gs_rs_var iv;
    gs_rs_sumf is;
    gs_rs_var_init(&iv);
    gs_rs_sumf_init(&is);
    for (int64_t r = 1; r <= nb; r++) {
        const rf_st *tot = c->tot + r * R, *totb = c->tot + (r - 1) * R;
        rf_st *pt = c->pt + r * R, *st = c->st + (r - 1) * R;
        rf_init(c->var, &pt[0]);
        rf_init(c->var, &st[M]);
        if (c->var) RF_CHAINS(v, iv, gs_rs_var_merge, GS_RS_GROUPED(GS_RS_FAM_VAR));
        else RF_CHAINS(s, is, gs_rs_sumf_merge, GS_RS_GROUPED(GS_RS_FAM_SUM));
    }
}
#undef RF_CHAINS

/* The ends of the slab of nb blocks from local jb in [ea, eb): tiles of ends a lane count at a time
 * where all their ends are in range (whole tiles, and the blocks' last tiles apart), the others
 * one by one. Rows 1..nb of tot, pt, st are the slab's blocks, row 0 the one before. */
static void rf_slab(const rf_ctx *c, int64_t jb, int64_t nb, int64_t ea, int64_t eb)
{
    const int64_t R = c->M + 1, tail = c->W - (c->M - 1) * RF_T;
    rf_lanes q[2]; /* whole tiles not their block's last; last tiles */
    q[0].n = q[1].n = 0;
    for (int64_t k = 0; k < c->M; k++) /* the same tile of each block side by side */
        for (int64_t r = 1; r <= nb; r++) {
            const int64_t bs = jb + (r - 1) * c->W, t0 = bs + k * RF_T, t1 = k + 1 < c->M ? t0 + RF_T : t0 + tail;
            const int64_t a = ea > bs ? ea : bs, b = eb < bs + c->W ? eb : bs + c->W;
            if (t1 <= a || t0 >= b) continue;
            rf_st *pt = c->pt + r * R, *st = c->st + (r - 1) * R;
            if (t0 >= a && t1 <= b) {
                rf_lanes *l = &q[k + 1 == c->M];
                l->p[l->n] = t0, l->kq[l->n] = k * RF_T, l->a[l->n] = &pt[k], l->b[l->n] = &pt[k + 1];
                l->s[l->n] = &st[k + 1];
                if (++l->n == RF_LANES(c)) rf_group(c, t1 - t0, k + 1 == c->M, l->p, l->kq, l->a, l->b, l->s), l->n = 0;
                continue;
            }
            rf_tile1(c, bs, k, t0 > a ? t0 : a, t1 < b ? t1 : b, &pt[k], &pt[k + 1], k + 1 < c->M ? &st[k + 1] : NULL);
        }
    for (int i = 0; i < 2; i++)
        if (q[i].n) rf_pad(&q[i], RF_LANES(c)), rf_group(c, i ? tail : RF_T, i, q[i].p, q[i].kq, q[i].a, q[i].b, q[i].s);
}

/* one end's window by the sweep's states, a value at a time: the suffix of the block before from
 * the window's start (folded from that block's end) (+) the prefix of its block to it; a block's
 * last end, its whole prefix (the ends of rf_short_range outside whole groups of blocks) */
static void rf_end1(const rf_ctx *c, uint64_t base, int64_t e)
{
    const int64_t W = c->W, jb = e - (int64_t)((base + (uint64_t)e) % (uint64_t)W);
    rf_st s, p;
    rf_init(c->var, &s);
    rf_init(c->var, &p);
    for (int64_t q = jb - 1; q > e - W; q--) rf_add(c->var, &s, c->in[q]);
    for (int64_t q = jb; q <= e; q++) rf_add(c->var, &p, c->in[q]);
    rf_row(c, e, e - jb < W - 1 ? rf_merge(c->var, s, p) : p);
}

/* The ends [e_lo, e_hi) of windows of a few values: whole blocks in groups of the family's lanes
 * (rf_short), the others one at a time */
static void rf_short_range(const rf_ctx *c, uint64_t base, int64_t e_lo, int64_t e_hi)
{
    const int64_t W = c->W, L = RF_LANES(c);
    const int64_t r = (int64_t)((base + (uint64_t)e_lo) % (uint64_t)W);
    const int64_t b0 = r ? e_lo - r + W : e_lo; /* the first whole block */
    const int64_t nb = e_hi > b0 ? (e_hi - b0) / W / L * L : 0;
    int64_t e = e_lo;
    for (; e < e_hi && e < b0; e++) rf_end1(c, base, e);
    if (nb) {
        if (c->var) rf_short_v(c, b0, nb);
        else rf_short_s(c, b0, nb);
        e = b0 + nb * W;
    }
    for (; e < e_hi; e++) rf_end1(c, base, e);
}

int gs_roll_fast_ok(const gs_minmax_params *p, const gs_rs_cols *cols, int var, size_t nout)
{
    /* the sum family of integers is an exact integer sum: another state */
    if (!(p->type == GS_F64 || p->type == GS_F32 || var) || p->skip_nan || p->window > RF_WMAX) return 0;
    if (var && p->window > 2 * (uint64_t)nout + 4096) return 0; /* var's tables of W values would outweigh the rows */
    if (p->min_periods > p->window || (cols->otype != GS_F64 && cols->otype != GS_F32)) return 0;
    for (int i = 0; i < cols->nf; i++)
        if (cols->ctype[i] != cols->otype) return 0;
    return 1;
}

/* the tables of a var sweep (rf_ctx), in one allocation at c->rn; the lane rows (3 RF_LV W values)
 * only where nout rows make up for them */
static int rf_tables(rf_ctx *c, int64_t nout)
{
    const int64_t W = c->W;
    const int64_t nrows = W > RF_SLAB_WMAX && W <= RF_WROWS && 3 * RF_LV * W <= nout ? 3 * RF_LV * W : 0;
    c->rn = malloc((size_t)(3 * W + 1 + nrows) * sizeof(double));
    if (!c->rn) return -1;
    c->fb = c->rn + W + 1, c->nafb = c->fb + W;
    c->rn[0] = 0.0;
    for (int64_t n = 1; n <= W; n++) c->rn[n] = 1.0 / (double)n;
    for (int64_t q = 0; q < W; q++) {
        c->fb[q] = (double)(q + 1) / (double)W;
        c->nafb[q] = GS_DMUL((double)(W - q - 1), c->fb[q]);
    }
    if (!nrows) return 0;
    c->tp = c->nafb + W, c->ts = c->tp + RF_LV * W, c->tn = c->ts + RF_LV * W;
    for (int64_t q = 0; q < W; q++)
        for (int64_t l = 0; l < RF_LV; l++) {
            const int64_t a = q + l * RF_T, r = q * RF_LV + l;
            c->tp[r] = a + 1 <= W ? c->rn[a + 1] : 0.0;
            c->ts[r] = W - a >= 1 ? c->rn[W - a] : 0.0;
            c->tn[r] = a < W ? c->nafb[a] : 0.0;
        }
    return 0;
}

int gs_roll_fast(const gs_minmax_params *p, const gs_rs_cols *cols, int var, const double *in, size_t m,
                 size_t first, size_t e_lo, size_t e_hi)
{
    rf_ctx c;
    memset(&c, 0, sizeof c);
    c.in = in, c.W = (int64_t)p->window, c.M = (c.W + RF_T - 1) / RF_T, c.m = (int64_t)m;
    c.first = (int64_t)first, c.cols = cols, c.var = var, c.dof = (double)p->window - (double)p->ddof;
    if (var && rf_tables(&c, (int64_t)(e_hi - e_lo))) return -1;
    if (c.W <= (var ? RF_SHORT_VAR : RF_SHORT_SUM)) {
        rf_short_range(&c, p->base, (int64_t)e_lo, (int64_t)e_hi);
        free(c.rn);
        return 0;
    }
    /* blocks per slab: a multiple of the lanes (RF_SLAB values at least), so that the same tile of
     * each block fills the lanes with none left over at the slab's end; one block past RF_SLAB_WMAX */
    const int64_t nbmax = c.W > RF_SLAB_WMAX ? 1 : c.W >= RF_SLAB ? RF_LV : (RF_SLAB / c.W + RF_LV) / RF_LV * RF_LV;
    const int64_t R = c.M + 1;
    c.tot = malloc((size_t)(3 * (nbmax + 1) * R) * sizeof(rf_st));
    if (!c.tot) {
        free(c.rn);
        return -1;
    }
    c.pt = c.tot + (nbmax + 1) * R, c.st = c.pt + (nbmax + 1) * R;
    int have_prev = 0; /* row 0 holds the totals of the block before */
    for (int64_t e = (int64_t)e_lo; e < (int64_t)e_hi;) {
        const uint64_t j = (p->base + (uint64_t)e) / p->window;
        const int64_t jb = (int64_t)(j * p->window - p->base); /* local start of e's block */
        int64_t nb = ((int64_t)e_hi - jb + c.W - 1) / c.W;
        if (nb > nbmax) nb = nbmax;
        rf_tots(&c, jb, have_prev ? 1 : 0, nb);
        rf_chains(&c, nb);
        const int64_t end = jb + nb * c.W < (int64_t)e_hi ? jb + nb * c.W : (int64_t)e_hi;
        rf_slab(&c, jb, nb, e, end);
        memcpy(c.tot, c.tot + nb * R, (size_t)R * sizeof(rf_st));
        have_prev = 1;
        e = end;
    }
    free(c.tot);
    free(c.rn);
    return 0;
}
