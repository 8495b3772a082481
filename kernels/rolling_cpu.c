/* rolling_cpu.c - rolling aggregates on the CPU (chunked semantics in kernels.h: in[0..m) is halo +
 * chunk, outputs for window ends e = first..m-1 over in[max(0, e-W+1)..e], p->nagg columns a row).
 *
 *   gs_rolling_cpu   van Herk / Gil-Werman over a general merge (rolling_ops.h), threaded over output
 *                    ranges. Blocks of W are aligned at absolute stream positions (p->base + i), not
 *                    at in[0]: a window that starts inside block j-1 is merge(suffix of block j-1
 *                    from its start, prefix of block j to its end); one that starts on a block
 *                    boundary is that block's prefix. A prefix is folded left to right from its
 *                    block's start, a suffix right to left from its block's end, so each value is a
 *                    fixed sequence of operations on the data alone: results do not depend on chunk
 *                    boundaries, --threads, MPI ranks, or how the work is tiled. O(1) work per
 *                    element whatever W is; nothing is ever subtracted.
 *
 * The work is done per family of states (sumf, sumi, var, min, max, cnt), one pass each; a family
 * writes its own columns (sum and mean from one sum state, var and std from one var state, ...).
 * The sum and var families without --skip-nan (or with it where the chunk holds no NaN: it skips
 * nothing there) take kernels/rolling_fast.c's schedule where it applies (gs_roll_fast_ok: f64 and
 * f32 input, and integers' var family): the same states by the
 * same operations on the input converted to f64 as the families convert it, tiles side by side in
 * vector lanes; block 0's ends (windows clipped at the stream's start) stay here.
 * Suffixes are built per tile of GS_ROLL_TILE outputs into a buffer that stays in cache; the
 * suffix state at each tile's upper edge comes from one backward pass over the block first, so
 * memory per thread is O(tile + range/tile) whatever W is. */
#include "kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/pool.h"
#include "rolling_fast.h"
#include "rolling_rows.h"

#define GS_ROLL_MIN_PART ((size_t)1 << 16) /* fewest outputs worth handing to a thread */
#define GS_ROLL_STATE_MAX 48              /* bytes of the largest state */
/* With several families a part runs them all over a stretch of its rows at a time, so that the
 * families after the first find the stretch's input and rows in the cache: at least
 * GS_ROLL_STRETCH rows and 32 blocks, where those are at most GS_ROLL_STRETCH_MAX rows (longer
 * windows: each family over the whole part; kernels/TUNING.md) */
#define GS_ROLL_STRETCH ((size_t)1 << 16)
#define GS_ROLL_STRETCH_BLOCKS 32
#define GS_ROLL_STRETCH_MAX ((size_t)1 << 18)

typedef struct roll_ctx {
    const gs_minmax_params *p;
    const void *in;
    size_t first, w, cnt;
    uint64_t base;
    gs_rs_cols cols; /* the current family's columns */
} roll_ctx;

/* One family on one input type: its state size, and the batch steps of the sweep. */
typedef struct roll_fam {
    size_t ssz;
    void (*init)(void *acc);
    void (*merge)(void *r, const void *a, const void *b); /* r = a (+) b, a's values first */
    /* acc = x_i (+) acc for i = hi-1 down to lo; with buf, buf[i - lo] = acc after x_i */
    void (*suffix)(const roll_ctx *c, void *acc, size_t lo, size_t hi, void *buf);
    /* acc = acc (+) x_i for i = lo..hi-1 */
    void (*prefix)(const roll_ctx *c, void *acc, size_t lo, size_t hi);
    /* for e = lo..hi-1: acc and tot (+)= x_e, and row e - first from merge(sbuf[e - lo], acc) (acc
     * alone without sbuf) */
    void (*emit)(const roll_ctx *c, void *acc, void *tot, size_t lo, size_t hi, const void *sbuf);
    /* row e - first from merge(s, p), or p alone without s */
    void (*emit1)(const roll_ctx *c, size_t e, const void *p, const void *s);
    int grouped; /* its chains in two levels (GS_RS_GROUPED) */
} roll_fam;

/* ---- the batch steps of a family on a type ---------------------------------------------------
 * ST: the state; INIT(a); SKIP(x): the value is left out (--skip-nan on a NaN); ADD(a, x, pos),
 * ADDL(a, x, pos); MERGE(a, b); ROW(c, row, state). */
#define ROLL_STEPS(F, S, T, ST, INIT, SKIP, ADD, ADDL, MERGE, ROW)                                        \
    static void init_##F##_##S(void *acc) { INIT((ST *)acc); }                                            \
    static void merge_##F##_##S(void *r, const void *a, const void *b) { *(ST *)r = MERGE(*(const ST *)a, *(const ST *)b); } \
    static void suffix_##F##_##S(const roll_ctx *c, void *vacc, size_t lo, size_t hi, void *vbuf)        \
    {                                                                                                     \
        const T *in = c->in;                                                                              \
        ST a = *(ST *)vacc, *buf = vbuf;                                                                  \
        const int skip = c->p->skip_nan;                                                                  \
        (void)skip;                                                                                       \
        for (size_t i = hi; i-- > lo;) {                                                                  \
            const T x = in[i];                                                                            \
            if (!(SKIP)) ADDL(&a, x, c->base + i);                                                        \
            if (buf) buf[i - lo] = a;                                                                     \
        }                                                                                                 \
        *(ST *)vacc = a;                                                                                  \
    }                                                                                                     \
    static void prefix_##F##_##S(const roll_ctx *c, void *vacc, size_t lo, size_t hi)                    \
    {                                                                                                     \
        const T *in = c->in;                                                                              \
        ST a = *(ST *)vacc;                                                                               \
        const int skip = c->p->skip_nan;                                                                  \
        (void)skip;                                                                                       \
        for (size_t i = lo; i < hi; i++) {                                                                \
            const T x = in[i];                                                                            \
            if (!(SKIP)) ADD(&a, x, c->base + i);                                                         \
        }                                                                                                 \
        *(ST *)vacc = a;                                                                                  \
    }                                                                                                     \
    static void emit_##F##_##S(const roll_ctx *c, void *vacc, void *vtot, size_t lo, size_t hi,          \
                               const void *vbuf)                                                          \
    {                                                                                                     \
        const T *in = c->in;                                                                              \
        const ST *buf = vbuf;                                                                             \
        ST a = *(ST *)vacc, t = *(ST *)vtot;                                                              \
        const int skip = c->p->skip_nan;                                                                  \
        (void)skip;                                                                                       \
        for (size_t i = lo; i < hi; i++) {                                                                \
            const T x = in[i];                                                                            \
            if (!(SKIP)) ADD(&a, x, c->base + i), ADD(&t, x, c->base + i);                                \
            ROW(&c->cols, i - c->first, buf ? MERGE(buf[i - lo], a) : a);                                        \
        }                                                                                                 \
        *(ST *)vacc = a;                                                                                  \
        *(ST *)vtot = t;                                                                                  \
    }                                                                                                     \
    static void emit1_##F##_##S(const roll_ctx *c, size_t e, const void *p, const void *sv)              \
    {                                                                                                     \
        ROW(&c->cols, e - c->first, sv ? MERGE(*(const ST *)sv, *(const ST *)p) : *(const ST *)p);               \
    }                                                                                                     \
    static const roll_fam fam_##F##_##S = {sizeof(ST), init_##F##_##S, merge_##F##_##S, suffix_##F##_##S, \
                                           prefix_##F##_##S, emit_##F##_##S, emit1_##F##_##S, ROLL_GROUPED_##F};

#define ROLL_GROUPED_sumf GS_RS_GROUPED(GS_RS_FAM_SUM)
#define ROLL_GROUPED_var GS_RS_GROUPED(GS_RS_FAM_VAR)
#define ROLL_GROUPED_cnt GS_RS_GROUPED(GS_RS_FAM_CNT)
#define ROLL_GROUPED_min GS_RS_GROUPED(GS_RS_FAM_MIN)
#define ROLL_GROUPED_max GS_RS_GROUPED(GS_RS_FAM_MAX)
#define NOSKIP 0
#define NANSKIP (skip && x != x)
#define SUMF_ADD(a, x, pos) gs_rs_sumf_add((a), (double)(x))
#define VAR_ADD(a, x, pos) gs_rs_var_add((a), (double)(x))
#define CNT_ADD(a, x, pos) ((a)->all++, (a)->valid += (x) == (x))
/* order keys: integers as themselves (u64 with the top bit flipped), floats as rolling_ops.h says */
#define KEY_INT(x) ((int64_t)(x))
#define KEY_U64(x) ((int64_t)((uint64_t)(x) ^ (UINT64_C(1) << 63)))

/* (the integer sum family has no sweep here: roll_sumi) */
#define FAMS_INT(S, T, KEY)                                                                                     \
    ROLL_STEPS(var, S, T, gs_rs_var, gs_rs_var_init, NOSKIP, VAR_ADD, VAR_ADD, gs_rs_var_merge, gs_rs_row_var)        \
    ROLL_STEPS(cnt, S, T, gs_rs_cnt, gs_rs_cnt_init, NOSKIP, CNT_ADD, CNT_ADD, gs_rs_cnt_merge, gs_rs_row_cnt)        \
    FAMS_EXT(S, T, KEY, KEY, NOSKIP)
#define FAMS_FLOAT(S, T, KMIN, KMAX)                                                                            \
    ROLL_STEPS(sumf, S, T, gs_rs_sumf, gs_rs_sumf_init, NANSKIP, SUMF_ADD, SUMF_ADD, gs_rs_sumf_merge, gs_rs_row_sumf) \
    ROLL_STEPS(var, S, T, gs_rs_var, gs_rs_var_init, NANSKIP, VAR_ADD, VAR_ADD, gs_rs_var_merge, gs_rs_row_var)        \
    ROLL_STEPS(cnt, S, T, gs_rs_cnt, gs_rs_cnt_init, NOSKIP, CNT_ADD, CNT_ADD, gs_rs_cnt_merge, gs_rs_row_cnt)         \
    FAMS_EXT(S, T, KMIN, KMAX, NANSKIP)
#define FAMS_EXT(S, T, KMIN, KMAX, SK)                                                                          \
    static inline void mina_##S(gs_rs_ext *a, T x, uint64_t p) { gs_rs_min_add(a, KMIN(x), p); }               \
    static inline void minl_##S(gs_rs_ext *a, T x, uint64_t p) { gs_rs_min_addl(a, KMIN(x), p); }              \
    static inline void maxa_##S(gs_rs_ext *a, T x, uint64_t p) { gs_rs_max_add(a, KMAX(x), p); }               \
    static inline void maxl_##S(gs_rs_ext *a, T x, uint64_t p) { gs_rs_max_addl(a, KMAX(x), p); }              \
    ROLL_STEPS(min, S, T, gs_rs_ext, gs_rs_ext_init, SK, mina_##S, minl_##S, gs_rs_min_merge, gs_rs_row_ext)      \
    ROLL_STEPS(max, S, T, gs_rs_ext, gs_rs_ext_init, SK, maxa_##S, maxl_##S, gs_rs_max_merge, gs_rs_row_ext)

FAMS_INT(i32, int32_t, KEY_INT)
FAMS_INT(i64, int64_t, KEY_INT)
FAMS_INT(u32, uint32_t, KEY_INT)
FAMS_INT(u64, uint64_t, KEY_U64)
FAMS_FLOAT(f32, float, gs_kmin_f32, gs_kmax_f32)
FAMS_FLOAT(f64, double, gs_kmin_f64, gs_kmax_f64)

/* Families by the aggregates they serve, then by type. */
static const roll_fam *const fams[GS_RS_NFAM][GS_NTYPES] = { /* by gs_rs_family */
    {NULL, NULL, NULL, NULL, &fam_sumf_f32, &fam_sumf_f64}, /* integer sums: roll_sumi */
    {&fam_var_i32, &fam_var_i64, &fam_var_u32, &fam_var_u64, &fam_var_f32, &fam_var_f64},
    {&fam_cnt_i32, &fam_cnt_i64, &fam_cnt_u32, &fam_cnt_u64, &fam_cnt_f32, &fam_cnt_f64},
    {&fam_min_i32, &fam_min_i64, &fam_min_u32, &fam_min_u64, &fam_min_f32, &fam_min_f64},
    {&fam_max_i32, &fam_max_i64, &fam_max_u32, &fam_max_u64, &fam_max_f32, &fam_max_f64},
};

/* ---- the sweep ----------------------------------------------------------------------------------
 * The states every backend computes (GS_ROLL_TILE in rolling_ops.h): blocks of W at absolute
 * positions, each cut into tiles of T from its start (the last one shorter). A tile's total t(k)
 * is its values folded left to right from the identity. PT(k), the prefix before tile k: PT(0) is
 * the identity, PT(k) = PT(k-1) (+) t(k-1); ST(m), the suffix from tile m on: the identity past
 * the block's end, ST(m) = t(m) (+) ST(m+1). A family whose chains run in two levels
 * (GS_RS_GROUPED: var) groups the tiles by G (GS_ROLL_GROUP) from the block's start, a group's
 * left total SL and right total SR being its tiles' totals merged left to right, and right to
 * left, from the identity; there PT(k) at a group's first tile (0 < k < M) is PT(k - G) (+) SL of
 * the group before, and ST(m) at the first tile of a group other than the last is SR of its group
 * (+) ST past the group (gs_roll_pt_rebased, gs_roll_st_rebased). With at most G tiles a block
 * the two are the same; the GPU runs the groups side by side and only the chain over groups in
 * order. The prefix of block j to e, in tile k: PT(k+1) where e is the tile's last value, else
 * PT(k) with the tile's values up to e added left to right. The suffix of block j-1 from q, in tile
 * m: ST(m) where q is the tile's first value, else ST(m+1) with the values from the tile's end down
 * to q added on the left. A window that starts inside block j-1 is suffix (+) prefix; one that
 * starts on a block boundary (or is clipped at the stream's start) is the prefix alone. Each
 * output needs only its own tile of block j, the same tile of block j-1, and PT and ST there. */
typedef struct roll_ws {
    char *sbuf; /* T suffix states */
    char *rbuf; /* ST at the tiles a part needs */
    size_t nr;
} roll_ws;

/* The prefix machinery of a block: PT before the current tile, the prefix to the current end, the
 * current tile's total so far, PT at the group's first tile and SL of the group's tiles before the
 * current one. */
typedef struct roll_pre {
    _Alignas(16) char pt[GS_ROLL_STATE_MAX];
    _Alignas(16) char acc[GS_ROLL_STATE_MAX];
    _Alignas(16) char tot[GS_ROLL_STATE_MAX];
    _Alignas(16) char ptg[GS_ROLL_STATE_MAX];
    _Alignas(16) char sl[GS_ROLL_STATE_MAX];
} roll_pre;

/* q->pt from PT(k) to PT(k+1), q->tot holding t(k) (the sweep's order above) */
static void pre_next(const roll_fam *f, roll_pre *q, size_t k, size_t M)
{
    if (!f->grouped) {
        f->merge(q->pt, q->pt, q->tot);
        return;
    }
    f->merge(q->sl, q->sl, q->tot);
    if (gs_roll_pt_rebased(k + 1, M)) {
        f->merge(q->pt, q->ptg, q->sl);
        memcpy(q->ptg, q->pt, f->ssz);
        f->init(q->sl);
    } else {
        f->merge(q->pt, q->pt, q->tot);
    }
}

/* Outputs e in [ea, eb), all in block j (local start jb), prefix tile by prefix tile; sbuf (or
 * NULL) holds the suffix state of each end's window start, from sbuf_e0 on. q: the prefix
 * machinery at ea. A tile's last end takes PT(k+1). */
static void emit_span(const roll_ctx *c, const roll_fam *f, size_t jb, size_t ea, size_t eb, const char *sbuf,
                      size_t sbuf_e0, roll_pre *q)
{
    const size_t T = GS_ROLL_TILE, W = c->w, M = (W + T - 1) / T;
    char *pt = q->pt, *acc = q->acc, *tot = q->tot;
    while (ea < eb) {
        const size_t k = (ea - jb) / T, tend = (k + 1) * T < W ? jb + (k + 1) * T : jb + W;
        if (ea == jb + k * T && k) { /* a new prefix tile: pt is PT of the one before */
            memcpy(acc, pt, f->ssz);
            f->init(tot);
        }
        const size_t e1 = eb < tend - 1 ? eb : tend - 1;
        if (ea < e1) f->emit(c, acc, tot, ea, e1, sbuf ? sbuf + (ea - sbuf_e0) * f->ssz : NULL);
        ea = e1;
        if (ea == tend - 1 && ea < eb) { /* the tile's last end */
            f->prefix(c, tot, ea, ea + 1);
            pre_next(f, q, k, M);
            f->emit1(c, ea, pt, sbuf ? sbuf + (ea - sbuf_e0) * f->ssz : NULL);
            ea++;
        }
    }
}

static void sweep(const roll_ctx *c, const roll_fam *f, size_t e_lo, size_t e_hi, const roll_ws *ws)
{
    const size_t W = c->w, T = GS_ROLL_TILE, ssz = f->ssz;
    roll_pre q;
    _Alignas(16) char st[GS_ROLL_STATE_MAX], stg[GS_ROLL_STATE_MAX], sr[GS_ROLL_STATE_MAX];
    size_t e = e_lo;
    while (e < e_hi) {
        const uint64_t E = c->base + e, j = E / W;
        const size_t jb = (size_t)(j * W - c->base); /* >= 0: the window of e reaches back to it */
        const size_t left = W - (e - jb);             /* ends left in this block */
        const size_t eb = e_hi - e < left ? e_hi : e + left;
        /* the prefix machinery at e: PT of the tiles before e's, then e's tile up to e */
        const size_t k0 = (e - jb) / T, M = (W + T - 1) / T;
        f->init(q.pt); /* PT before tile k0 */
        f->init(q.ptg);
        f->init(q.sl);
        for (size_t k = 0; k < k0; k++) {
            f->init(q.tot);
            f->prefix(c, q.tot, jb + k * T, jb + (k + 1) * T);
            pre_next(f, &q, k, M);
        }
        memcpy(q.acc, q.pt, ssz);
        f->init(q.tot);
        f->prefix(c, q.acc, jb + k0 * T, e);
        f->prefix(c, q.tot, jb + k0 * T, e);
        if (j == 0) { /* block 0: windows from the stream's start (clipped with --partial) are prefixes */
            emit_span(c, f, jb, e, eb, NULL, 0, &q);
            e = eb;
            continue;
        }
        const size_t eB = eb - jb == W ? eb - 1 : eb; /* the block's last end is its whole prefix */
        if (e < eB) {
            /* starts [sa, sb) in block j-1, as offsets from its start pb (which may lie before
             * in[0]: local positions are pb + offset, modulo 2^64). For their tiles m0..m1: ST past
             * tile m into rbuf[2(m - m0)], ST from tile m on into rbuf[2(m - m0) + 1] (where tile m
             * is wholly in memory). */
            const size_t pb = jb - W, oa = e + 1 - jb, ob = eB + 1 - jb; /* = sa - pb, sb - pb */
            const size_t m0 = oa / T, m1 = (ob - 1) / T;
            f->init(st);
            f->init(stg);
            f->init(sr);
            for (size_t m = M; m-- > m0;) {
                const size_t q1 = (m + 1) * T < W ? (m + 1) * T : W;
                _Alignas(16) char t2[GS_ROLL_STATE_MAX];
                f->init(t2);
                if (m * T >= oa) f->prefix(c, t2, pb + m * T, pb + q1); /* a tile wholly in memory */
                if (m <= m1) memcpy(ws->rbuf + 2 * (m - m0) * ssz, st, ssz);
                if (!f->grouped) {
                    f->merge(st, t2, st);
                } else {
                    f->merge(sr, t2, sr);
                    if (gs_roll_st_rebased(m, M)) f->merge(st, sr, stg); /* a group's first tile */
                    else f->merge(st, t2, st);
                    if (m % GS_ROLL_GROUP == 0) { /* ST past the group before */
                        memcpy(stg, st, ssz);
                        f->init(sr);
                    }
                }
                if (m <= m1) memcpy(ws->rbuf + (2 * (m - m0) + 1) * ssz, st, ssz);
            }
            for (size_t m = m0; m <= m1; m++) {
                const size_t t1 = (m + 1) * T < W ? (m + 1) * T : W;
                const size_t lo = pb + (oa > m * T ? oa : m * T), hi = pb + (ob < t1 ? ob : t1), q1 = pb + t1;
                _Alignas(16) char s2[GS_ROLL_STATE_MAX];
                const char *rst = ws->rbuf + 2 * (m - m0) * ssz;
                memcpy(s2, rst, ssz);
                f->suffix(c, s2, lo, q1, ws->sbuf);
                if (lo == pb + m * T) memcpy(ws->sbuf, rst + ssz, ssz); /* a tile's start: ST from it */
                emit_span(c, f, jb, lo + W - 1, hi + W - 1, ws->sbuf, lo + W - 1, &q);
            }
        }
        if (eB < eb) emit_span(c, f, jb, eB, eb, NULL, 0, &q);
        e = eb;
    }
}

/* The integer sum family (sum, mean of integers) for ends [e_lo, e_hi): its state is the exact sum
 * and the count, which no order of additions changes, so each window's sum is the one before it
 * with a value in and a value out (exact in 128 bits: nothing drifts), O(1) a row whatever W is.
 * Every value counts (integers have no NaN). */
#define ROLL_SUMI(T)                                                                                         \
    do {                                                                                                     \
        const T *x = (const T *)c->in;                                                                       \
        const size_t a = e_lo + 1 > c->w ? e_lo + 1 - c->w : 0;                                              \
        gs_rs_sumi w = {0, 0};                                                                               \
        for (size_t i = a; i < e_lo; i++) w.s += (gs_i128)x[i], w.n++;                                       \
        for (size_t e = e_lo; e < e_hi; e++) {                                                               \
            w.s += (gs_i128)x[e], w.n++;                                                                     \
            if (w.n > c->w) w.s -= (gs_i128)x[e - c->w], w.n--;                                              \
            gs_rs_row_sumi(&c->cols, e - c->first, w);                                                       \
        }                                                                                                    \
    } while (0)
static void roll_sumi(const roll_ctx *c, size_t e_lo, size_t e_hi)
{
    switch (c->p->type) {
    case GS_I32: ROLL_SUMI(int32_t); break;
    case GS_I64: ROLL_SUMI(int64_t); break;
    case GS_U32: ROLL_SUMI(uint32_t); break;
    default: ROLL_SUMI(uint64_t); break;
    }
}
#undef ROLL_SUMI

typedef struct roll_run {
    roll_ctx c;
    int fam_on[GS_RS_NFAM];
    size_t nr;      /* tile-edge states a part may need */
    size_t stretch; /* rows a part runs all its families over at a time; 0: its whole range */
    int failed;
    gs_minmax_params fp; /* the params the lanes are asked with: no --skip-nan (they run only where
                            it skips nothing) */
    const double *dbl; /* the input as f64 for the fast sweep (c.in itself where it is f64) */
    double *dbl_own;   /* that copy, where the input is another type */
} roll_run;

/* A family the fast sweep serves on rows of nout with params fp: f the family, cols its columns. */
static int roll_fast(const gs_minmax_params *fp, const gs_rs_cols *cols, int f, size_t nout)
{
    return (f == GS_RS_FAM_SUM || f == GS_RS_FAM_VAR) && gs_roll_fast_ok(fp, cols, f == GS_RS_FAM_VAR, nout);
}

/* Whether float input x[0..m) holds a NaN (a pool part's share; any part sets *found). */
typedef struct roll_nan_scan {
    const void *x;
    size_t m;
    int f32, found;
} roll_nan_scan;
static void roll_nan_part(void *vs, size_t part, size_t nparts)
{
    roll_nan_scan *s = vs;
    size_t b, e;
    gs_split(s->m, nparts, part, &b, &e);
    int any = 0;
    if (s->f32)
        for (size_t i = b; i < e; i++) any |= ((const float *)s->x)[i] != ((const float *)s->x)[i];
    else
        for (size_t i = b; i < e; i++) any |= ((const double *)s->x)[i] != ((const double *)s->x)[i];
    if (any) __atomic_store_n(&s->found, 1, __ATOMIC_RELAXED); /* read after the join */
}

/* part of the input converted to f64, as each family's add converts a value ((double)x) */
static void roll_to_f64(void *vr, size_t part, size_t nparts)
{
    roll_run *r = vr;
    const size_t m = r->c.first + r->c.cnt;
    size_t b, e;
    gs_split(m, nparts, part, &b, &e);
    double *d = r->dbl_own;
#define ROLL_TO_F64(T)                                                                                       \
    for (size_t i = b; i < e; i++) d[i] = (double)((const T *)r->c.in)[i]
    switch (r->c.p->type) {
    case GS_F32: ROLL_TO_F64(float); break;
    case GS_I32: ROLL_TO_F64(int32_t); break;
    case GS_I64: ROLL_TO_F64(int64_t); break;
    case GS_U32: ROLL_TO_F64(uint32_t); break;
    default: ROLL_TO_F64(uint64_t); break;
    }
#undef ROLL_TO_F64
}

static void roll_part(void *vr, size_t part, size_t nparts)
{
    roll_run *r = vr;
    size_t b, e;
    gs_split(r->c.cnt, nparts, part, &b, &e);
    if (b == e) return;
    roll_ws ws = {malloc((GS_ROLL_TILE + 2 * r->nr) * GS_ROLL_STATE_MAX), NULL, r->nr};
    if (!ws.sbuf) {
        __atomic_store_n(&r->failed, 1, __ATOMIC_RELAXED); /* read after the join */
        return;
    }
    ws.rbuf = ws.sbuf + GS_ROLL_TILE * GS_ROLL_STATE_MAX;
    const size_t step = r->stretch ? r->stretch : e - b;
    for (size_t sb = b; sb < e; sb += step) {
        const size_t lo = r->c.first + sb, hi = r->c.first + (e - sb > step ? sb + step : e);
        for (int f = 0; f < GS_RS_NFAM; f++) {
            if (!r->fam_on[f]) continue;
            roll_ctx c = r->c;
            gs_rs_family_cols(c.p, f, c.cols.out, &c.cols);
            if (f == GS_RS_FAM_SUM && !gs_type_is_float(c.p->type)) {
                roll_sumi(&c, lo, hi);
                continue;
            }
            if (r->dbl && roll_fast(&r->fp, &c.cols, f, hi - lo)) {
                /* ends of block 0 (windows clipped at the stream's start) here, the rest there */
                const uint64_t b1 = c.base < c.w ? c.w - c.base : 0; /* local position of block 1 */
                const size_t mid = b1 < lo ? lo : b1 < hi ? (size_t)b1 : hi;
                sweep(&c, fams[f][c.p->type], lo, mid, &ws);
                if (mid < hi && gs_roll_fast(&r->fp, &c.cols, f == GS_RS_FAM_VAR, r->dbl, c.first + c.cnt, c.first, mid, hi))
                    __atomic_store_n(&r->failed, 1, __ATOMIC_RELAXED);
                continue;
            }
            sweep(&c, fams[f][c.p->type], lo, hi, &ws);
        }
    }
    free(ws.sbuf);
}

/* gs_rolling_cpu, the lanes taking what they serve where lanes is set */
static int roll_run_all(const gs_minmax_params *p, const void *in, size_t m, size_t first, void *out, int lanes,
                        gs_status *st)
{
    if ((unsigned)p->type >= GS_NTYPES) return gs_fail(st, GS_EUSAGE, "rolling: unknown element type");
    if (p->window < 1) return gs_fail(st, GS_EUSAGE, "rolling: window must be at least 1");
    if (p->nagg < 1 || p->nagg > GS_ROLL_COLS_MAX)
        return gs_fail(st, GS_EUSAGE, "rolling: 1 to %d aggregates, not %d", GS_ROLL_COLS_MAX, p->nagg);
    if (first > m) return gs_fail(st, GS_EUSAGE, "rolling: first output %zu is past the %zu inputs", first, m);
    roll_run r;
    memset(&r, 0, sizeof r);
    roll_ctx *c = &r.c;
    c->p = p;
    c->in = in;
    c->first = first;
    c->cnt = m - first;
    /* Windows longer than the input exist only at the stream's start (all clipped at 0): any
     * W >= m gives the same block 0 there, so size_t holds it. */
    c->w = p->window < (uint64_t)SIZE_MAX / 2 ? (size_t)p->window : SIZE_MAX / 2;
    c->base = p->base;
    c->cols.out = out;
    for (int k = 0; k < p->nagg; k++) {
        if (p->agg[k] >= GS_NAGG) return gs_fail(st, GS_EUSAGE, "rolling: unknown aggregate %d", (int)p->agg[k]);
        r.fam_on[gs_rs_family(p->agg[k])] = 1;
    }
    int nfam = 0;
    for (int f = 0; f < GS_RS_NFAM; f++) nfam += r.fam_on[f];
    if (nfam > 1 && c->w <= GS_ROLL_STRETCH_MAX / GS_ROLL_STRETCH_BLOCKS)
        r.stretch = GS_ROLL_STRETCH_BLOCKS * c->w > GS_ROLL_STRETCH ? GS_ROLL_STRETCH_BLOCKS * c->w : GS_ROLL_STRETCH;
    if (c->cnt == 0) return GS_OK;
    /* Each part re-reads up to two blocks before its range: worth it only with enough outputs. */
    const size_t min_part = c->w > GS_ROLL_MIN_PART / 2 ? (c->w < SIZE_MAX / 4 ? 2 * c->w : SIZE_MAX) : GS_ROLL_MIN_PART;
    size_t nparts = (size_t)gs_pool_threads();
    if (nparts > c->cnt / min_part) nparts = c->cnt / min_part ? c->cnt / min_part : 1;
    const size_t span = (c->cnt + nparts - 1) / nparts;
    r.nr = (span < c->w ? span : c->w) / GS_ROLL_TILE + 2;
    /* The lanes, where they take a family: --skip-nan skips nothing in a chunk without NaN (nor on
     * integers), so they run without it, after one scan of the chunk for NaN; they read f64, other
     * input types converted once. */
    r.fp = *p;
    r.fp.skip_nan = 0;
    int fast = 0;
    for (int f = 0; f < GS_RS_NFAM && lanes; f++) {
        gs_rs_cols cols;
        gs_rs_family_cols(p, f, out, &cols);
        fast |= r.fam_on[f] && roll_fast(&r.fp, &cols, f, span);
    }
    if (fast && p->skip_nan && gs_type_is_float(p->type)) {
        roll_nan_scan ns = {in, m, p->type == GS_F32, 0};
        gs_parallel_for((size_t)gs_pool_threads(), roll_nan_part, &ns);
        fast = !ns.found;
    }
    if (fast && p->type == GS_F64) r.dbl = in;
    else if (fast) {
        if (!(r.dbl_own = malloc(m * sizeof *r.dbl_own)))
            return gs_fail(st, GS_ENOMEM, "rolling: out of host memory for %zu values as f64", m);
        gs_parallel_for((size_t)gs_pool_threads(), roll_to_f64, &r);
        r.dbl = r.dbl_own;
    }
    gs_parallel_for(nparts, roll_part, &r);
    free(r.dbl_own);
    if (r.failed) return gs_fail(st, GS_ENOMEM, "rolling: out of host memory for a window of %zu", c->w);
    return GS_OK;
}

int gs_rolling_cpu(const gs_minmax_params *p, const void *in, size_t m, size_t first, void *out, gs_status *st)
{
    return roll_run_all(p, in, m, first, out, 1, st);
}

int gs_rolling_cpu_sweep(const gs_minmax_params *p, const void *in, size_t m, size_t first, void *out,
                         gs_status *st)
{
    return roll_run_all(p, in, m, first, out, 0, st);
}
