/* minmax_cpu.c - sliding-window minimum and maximum on the CPU (chunked semantics in kernels.h:
 * in[0..m) is halo + chunk, outputs for window ends e = first..m-1 over in[max(0,e-W+1)..e]).
 *
 *   gs_minmax_cpu_naive   O(m W) left fold of gs_min_* / gs_max_* over each window: the reference.
 *   gs_minmax_cpu_lemire  Lemire's monotonic wedges (one deque per extreme), O(1) amortized,
 *                         single-threaded. A NaN counts as below everything in the min wedge and
 *                         above everything in the max wedge, so it stays at the front while it is
 *                         in the window.
 *   gs_minmax_cpu_vhgw    van Herk / Gil-Werman over blocks of W aligned at in[0]: a window that
 *                         starts inside block j-1 is op(suffix of block j-1 from its start,
 *                         prefix of block j to its end). Threaded over output ranges. Min and max
 *                         are computed in the same pass on integer keys (below), so every step is
 *                         a branch-free integer min/max. The suffix is built per tile of
 *                         GS_MM_TILE outputs into a small buffer that stays in L1; for W larger
 *                         than a tile, each tile's suffix starts from the reduction of the later
 *                         tiles of the block (one extra read of the block), so memory per thread
 *                         stays O(tile + W/tile) whatever W is.
 *
 * Float keys: the IEEE bits with the magnitude bits flipped for negative numbers order as
 * signed integers with -0.0 just below +0.0. NaN maps to the lowest key in the min chain and the
 * highest in the max chain, so it wins every comparison there, and maps back to a NaN: results
 * are bit-identical to the reference except for which NaN payload comes out. */
#include "kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/pool.h"
#include "ops.h"
#include "rolling_ops.h"

#define GS_MM_TILE ((size_t)2048)            /* outputs per suffix tile: 2 x 16 KiB of keys at most */
#define GS_MM_MIN_PART ((size_t)1 << 16)     /* fewest outputs worth handing to a thread */

static int mm_check(const gs_minmax_params *p, size_t m, size_t first, gs_status *st)
{
    if ((unsigned)p->type >= GS_NTYPES) return gs_fail(st, GS_EUSAGE, "minmax: unknown element type");
    if (p->window < 1) return gs_fail(st, GS_EUSAGE, "minmax: window must be at least 1");
    if ((unsigned)p->only > GS_MM_MAX) return gs_fail(st, GS_EUSAGE, "minmax: unknown --only value %d", (int)p->only);
    if (first > m) return gs_fail(st, GS_EUSAGE, "minmax: first output %zu is past the %zu inputs", first, m);
    return GS_OK;
}

/* Windows longer than the input all start at 0, exactly as a window of m would. */
static size_t mm_window(const gs_minmax_params *p, size_t m)
{
    return p->window < (uint64_t)m ? (size_t)p->window : (m ? m : 1);
}

static size_t mm_start(size_t e, size_t w) { return e + 1 > w ? e + 1 - w : 0; }

/* GEN(S, T) for each element type, in gs_type order (the tables below index by type). */
#define GS_MM_EACH_TYPE(GEN) \
    GEN(i32, int32_t) GEN(i64, int64_t) GEN(u32, uint32_t) GEN(u64, uint64_t) GEN(f32, float) GEN(f64, double)

/* ---- naive ---------------------------------------------------------------------------------- */
typedef void (*naive_fn)(const void *in, size_t m, size_t first, size_t w, gs_mm_only only, void *out);
#define GS_MM_NAIVE(S, T)                                                                        \
    static void naive_##S(const void *vin, size_t m, size_t first, size_t w, gs_mm_only only,   \
                          void *vout)                                                            \
    {                                                                                            \
        const T *in = vin;                                                                       \
        T *out = vout;                                                                           \
        for (size_t e = first; e < m; e++) {                                                     \
            const size_t s = mm_start(e, w);                                                     \
            T mn = in[s], mx = in[s];                                                            \
            for (size_t i = s + 1; i <= e; i++) {                                                \
                mn = gs_min_##S(mn, in[i]);                                                      \
                mx = gs_max_##S(mx, in[i]);                                                      \
            }                                                                                    \
            if (only == GS_MM_BOTH) {                                                            \
                *out++ = mn;                                                                     \
                *out++ = mx;                                                                     \
            } else {                                                                             \
                *out++ = only == GS_MM_MIN ? mn : mx;                                            \
            }                                                                                    \
        }                                                                                        \
    }
GS_MM_EACH_TYPE(GS_MM_NAIVE)
#define GS_MM_NAIVE_FN(S, T) naive_##S,
static const naive_fn naive_fns[GS_NTYPES] = {GS_MM_EACH_TYPE(GS_MM_NAIVE_FN)};

int gs_minmax_cpu_naive(const gs_minmax_params *p, const void *in, size_t m, size_t first, void *out,
                        gs_status *st)
{
    int rc = mm_check(p, m, first, st);
    if (rc) return rc;
    naive_fns[p->type](in, m, first, mm_window(p, m), p->only, out);
    return GS_OK;
}

/* ---- Lemire ----------------------------------------------------------------------------------
 * Wedge orders: lo_S(a, b) "a strictly below b" with NaN lowest, hi_S(a, b) "a strictly above b"
 * with NaN highest; -0.0 is below +0.0 in both. A new element pops every back element that is
 * not strictly below (above) it, so the front is the window's extreme. */
#define GS_MM_INT_ORDER(S, T)                                       \
    static inline int lo_##S(T a, T b) { return a < b; }            \
    static inline int hi_##S(T a, T b) { return a > b; }
GS_MM_INT_ORDER(i32, int32_t)
GS_MM_INT_ORDER(i64, int64_t)
GS_MM_INT_ORDER(u32, uint32_t)
GS_MM_INT_ORDER(u64, uint64_t)
#define GS_MM_FLOAT_ORDER(S, T)                                     \
    static inline int lo_##S(T a, T b)                              \
    {                                                               \
        if (b != b) return 0;                                       \
        if (a != a) return 1;                                       \
        if (a != b) return a < b;                                   \
        return gs_signbit_##S(a) && !gs_signbit_##S(b);             \
    }                                                               \
    static inline int hi_##S(T a, T b)                              \
    {                                                               \
        if (b != b) return 0;                                       \
        if (a != a) return 1;                                       \
        if (a != b) return a > b;                                   \
        return !gs_signbit_##S(a) && gs_signbit_##S(b);             \
    }
GS_MM_FLOAT_ORDER(f32, float)
GS_MM_FLOAT_ORDER(f64, double)

/* Each wedge is a ring of (index, value) pairs with a power-of-two capacity above w, addressed by
 * free-running head/tail counters: [h, t) are the live entries. The values sit beside the
 * indices so that popping compares without a dependent load from in[]. The window start s
 * grows by at most one per step, so at most one front entry expires per step. */
#define GS_MM_WEDGE_STEP(ORD, iq, vq, h, t, x, e, s)                           \
    do {                                                                       \
        while ((t) != (h) && !ORD(vq[((t) - 1) & mask], x)) (t)--;             \
        vq[(t) & mask] = (x);                                                  \
        iq[(t) & mask] = (e);                                                  \
        (t)++;                                                                 \
        if (iq[(h) & mask] < (s)) (h)++;                                       \
    } while (0)

typedef void (*lemire_fn)(const void *in, size_t m, size_t first, size_t w, gs_mm_only only, void *out,
                          size_t *ibuf, void *vbuf, size_t mask);
#define GS_MM_LEMIRE(S, T)                                                                       \
    static void lemire_##S(const void *vin, size_t m, size_t first, size_t w, gs_mm_only only,  \
                           void *vout, size_t *ibuf, void *vbuf, size_t mask)                    \
    {                                                                                            \
        const T *in = vin;                                                                       \
        T *out = vout;                                                                           \
        const int want_min = only != GS_MM_MAX, want_max = only != GS_MM_MIN;                    \
        size_t *imin = ibuf, *imax = ibuf + mask + 1;                                            \
        T *vmin = vbuf, *vmax = vmin + mask + 1;                                                 \
        size_t hmin = 0, tmin = 0, hmax = 0, tmax = 0;                                           \
        for (size_t e = mm_start(first, w); e < m; e++) {                                        \
            const T x = in[e];                                                                   \
            const size_t s = mm_start(e, w);                                                     \
            if (want_min) GS_MM_WEDGE_STEP(lo_##S, imin, vmin, hmin, tmin, x, e, s);             \
            if (want_max) GS_MM_WEDGE_STEP(hi_##S, imax, vmax, hmax, tmax, x, e, s);             \
            if (e < first) continue;                                                             \
            if (want_min) *out++ = vmin[hmin & mask];                                            \
            if (want_max) *out++ = vmax[hmax & mask];                                            \
        }                                                                                        \
    }
GS_MM_EACH_TYPE(GS_MM_LEMIRE)
#define GS_MM_LEMIRE_FN(S, T) lemire_##S,
static const lemire_fn lemire_fns[GS_NTYPES] = {GS_MM_EACH_TYPE(GS_MM_LEMIRE_FN)};

int gs_minmax_cpu_lemire(const gs_minmax_params *p, const void *in, size_t m, size_t first, void *out,
                         gs_status *st)
{
    int rc = mm_check(p, m, first, st);
    if (rc) return rc;
    if (first == m) return GS_OK;
    const size_t w = mm_window(p, m);
    size_t cap = 2;
    while (cap < w + 1) cap *= 2;
    size_t *ibuf = malloc(2 * cap * (sizeof(size_t) + sizeof(uint64_t)));
    if (!ibuf) return gs_fail(st, GS_ENOMEM, "minmax: out of host memory for a window of %zu", w);
    void *vbuf = ibuf + 2 * cap;
    lemire_fns[p->type](in, m, first, w, p->only, out, ibuf, vbuf, cap - 1);
    free(ibuf);
    return GS_OK;
}

/* ---- van Herk / Gil-Werman -------------------------------------------------------------------- */
/* Float <-> key: the order keys of rolling_ops.h, NaN at the extreme of each chain. The extreme
 * keys map back to NaN bit patterns by themselves, so unkeying needs no test. */
#define KMIN_f32(x) gs_kmin_f32(x)
#define KMAX_f32(x) gs_kmax_f32(x)
#define UNMIN_f32(k) gs_funkey_f32(k)
#define UNMAX_f32(k) gs_funkey_f32(k)
#define KMIN_f64(x) gs_kmin_f64(x)
#define KMAX_f64(x) gs_kmax_f64(x)
#define UNMIN_f64(k) gs_funkey_f64(k)
#define UNMAX_f64(k) gs_funkey_f64(k)
#define GS_MM_IDKEY(x) (x)
#define KMIN_i32 GS_MM_IDKEY
#define KMAX_i32 GS_MM_IDKEY
#define UNMIN_i32 GS_MM_IDKEY
#define UNMAX_i32 GS_MM_IDKEY
#define KMIN_i64 GS_MM_IDKEY
#define KMAX_i64 GS_MM_IDKEY
#define UNMIN_i64 GS_MM_IDKEY
#define UNMAX_i64 GS_MM_IDKEY
#define KMIN_u32 GS_MM_IDKEY
#define KMAX_u32 GS_MM_IDKEY
#define UNMIN_u32 GS_MM_IDKEY
#define UNMAX_u32 GS_MM_IDKEY
#define KMIN_u64 GS_MM_IDKEY
#define KMAX_u64 GS_MM_IDKEY
#define UNMIN_u64 GS_MM_IDKEY
#define UNMAX_u64 GS_MM_IDKEY

#define GS_KMIN(a, b) ((b) < (a) ? (b) : (a))
#define GS_KMAX(a, b) ((b) > (a) ? (b) : (a))

struct mm_ctx;
typedef void (*vhgw_range_fn)(const struct mm_ctx *c, size_t e_lo, size_t e_hi, void *ws);

typedef struct mm_ctx {
    const void *in;
    void *out;
    size_t first, w, nt; /* nt: tiles per block, ceil(w / GS_MM_TILE) */
    size_t cnt;          /* outputs, m - first */
    char *ws;            /* per-part workspace, ws_stride bytes each */
    size_t ws_stride;
    vhgw_range_fn range;
} mm_ctx;

/* Outputs e in [e_lo, e_hi). Block j = in[jW, jW+W); for an output at offset o of block j the
 * window starts at offset q = o + 1 of block j-1 (q = W: the window is block j's prefix alone).
 * Workspace: suffix keys of one tile, smin/smax[0..TL] indexed q - t0 - 1, and the reductions of
 * the later tiles rmin/rmax[0..nt). WMIN/WMAX are constants, so unused chains compile away. */
#define GS_MM_VHGW(NAME, S, T, K, IDMIN, IDMAX, WMIN, WMAX)                                           \
    static void vhgw_##NAME(const mm_ctx *c, size_t e_lo, size_t e_hi, void *vws)                     \
    {                                                                                                 \
        const T *in = c->in;                                                                          \
        const size_t w = c->w, nt = c->nt, TL = GS_MM_TILE;                                           \
        K *smin = vws, *smax = smin + TL + 1, *rmin = smax + TL + 1, *rmax = rmin + nt;               \
        T *out = (T *)c->out + (e_lo - c->first) * ((WMIN) && (WMAX) ? 2 : 1);                        \
        for (size_t blk = e_lo / w * w; blk < e_hi; blk += w) {                                       \
            const size_t a = e_lo > blk ? e_lo : blk, b = e_hi < blk + w ? e_hi : blk + w;            \
            K pmin = IDMIN, pmax = IDMAX;                                                             \
            for (size_t i = blk; i < a; i++) { /* this range starts mid-block */                      \
                const T x = in[i];                                                                    \
                if (WMIN) pmin = GS_KMIN(pmin, KMIN_##S(x));                                          \
                if (WMAX) pmax = GS_KMAX(pmax, KMAX_##S(x));                                          \
            }                                                                                         \
            if (blk == 0) { /* windows clipped at in[0]: prefixes only */                             \
                for (size_t i = a; i < b; i++) {                                                      \
                    const T x = in[i];                                                                \
                    if (WMIN) pmin = GS_KMIN(pmin, KMIN_##S(x)), *out++ = UNMIN_##S(pmin);            \
                    if (WMAX) pmax = GS_KMAX(pmax, KMAX_##S(x)), *out++ = UNMAX_##S(pmax);            \
                }                                                                                     \
                continue;                                                                             \
            }                                                                                         \
            const T *prev = in + blk - w, *cur = in + blk;                                            \
            const size_t olo = a - blk, ohi = b - blk, tlo = olo / TL, thi = (ohi - 1) / TL;          \
            {   /* r[t] = reduction of prev over the q of tiles after t (identity for the last) */    \
                K amin = IDMIN, amax = IDMAX;                                                         \
                for (size_t t = nt - 1;; t--) {                                                       \
                    if (WMIN) rmin[t] = amin;                                                         \
                    if (WMAX) rmax[t] = amax;                                                         \
                    if (t == tlo) break;                                                              \
                    const size_t q1 = (t + 1) * TL + 1 < w ? (t + 1) * TL + 1 : w;                    \
                    for (size_t q = t * TL + 1; q < q1; q++) {                                        \
                        const T x = prev[q];                                                          \
                        if (WMIN) amin = GS_KMIN(amin, KMIN_##S(x));                                  \
                        if (WMAX) amax = GS_KMAX(amax, KMAX_##S(x));                                  \
                    }                                                                                 \
                }                                                                                     \
            }                                                                                         \
            for (size_t t = tlo; t <= thi; t++) {                                                     \
                const size_t t0 = t * TL, o0 = olo > t0 ? olo : t0, o1 = ohi < t0 + TL ? ohi : t0 + TL; \
                const size_t qend = t0 + TL + 1 < w ? t0 + TL + 1 : w;                                \
                K amin = IDMIN, amax = IDMAX;                                                         \
                if (WMIN) amin = rmin[t], smin[qend - t0 - 1] = amin;                                 \
                if (WMAX) amax = rmax[t], smax[qend - t0 - 1] = amax;                                 \
                for (size_t q = qend; q-- > o0 + 1;) { /* suffixes of prev, backwards */             \
                    const T x = prev[q];                                                              \
                    if (WMIN) amin = GS_KMIN(amin, KMIN_##S(x)), smin[q - t0 - 1] = amin;             \
                    if (WMAX) amax = GS_KMAX(amax, KMAX_##S(x)), smax[q - t0 - 1] = amax;             \
                }                                                                                     \
                for (size_t o = o0; o < o1; o++) { /* prefixes of cur, and the outputs */             \
                    const T x = cur[o];                                                               \
                    if (WMIN) {                                                                       \
                        pmin = GS_KMIN(pmin, KMIN_##S(x));                                            \
                        const K r = GS_KMIN(smin[o - t0], pmin);                                      \
                        *out++ = UNMIN_##S(r);                                                        \
                    }                                                                                 \
                    if (WMAX) {                                                                       \
                        pmax = GS_KMAX(pmax, KMAX_##S(x));                                            \
                        const K r = GS_KMAX(smax[o - t0], pmax);                                      \
                        *out++ = UNMAX_##S(r);                                                        \
                    }                                                                                 \
                }                                                                                     \
            }                                                                                         \
        }                                                                                             \
    }

#define GS_MM_VHGW_ALL(S, T, K, IDMIN, IDMAX)                 \
    GS_MM_VHGW(both_##S, S, T, K, IDMIN, IDMAX, 1, 1)         \
    GS_MM_VHGW(min_##S, S, T, K, IDMIN, IDMAX, 1, 0)          \
    GS_MM_VHGW(max_##S, S, T, K, IDMIN, IDMAX, 0, 1)
GS_MM_VHGW_ALL(i32, int32_t, int32_t, INT32_MAX, INT32_MIN)
GS_MM_VHGW_ALL(i64, int64_t, int64_t, INT64_MAX, INT64_MIN)
GS_MM_VHGW_ALL(u32, uint32_t, uint32_t, UINT32_MAX, 0)
GS_MM_VHGW_ALL(u64, uint64_t, uint64_t, UINT64_MAX, 0)
GS_MM_VHGW_ALL(f32, float, int32_t, INT32_MAX, INT32_MIN)
GS_MM_VHGW_ALL(f64, double, int64_t, INT64_MAX, INT64_MIN)

/* By type, then gs_mm_only. */
static const vhgw_range_fn vhgw_fns[GS_NTYPES][3] = {
    {vhgw_both_i32, vhgw_min_i32, vhgw_max_i32}, {vhgw_both_i64, vhgw_min_i64, vhgw_max_i64},
    {vhgw_both_u32, vhgw_min_u32, vhgw_max_u32}, {vhgw_both_u64, vhgw_min_u64, vhgw_max_u64},
    {vhgw_both_f32, vhgw_min_f32, vhgw_max_f32}, {vhgw_both_f64, vhgw_min_f64, vhgw_max_f64},
};

static void vhgw_part(void *vctx, size_t part, size_t nparts)
{
    const mm_ctx *c = vctx;
    size_t b, e;
    gs_split(c->cnt, nparts, part, &b, &e);
    if (b < e) c->range(c, c->first + b, c->first + e, c->ws + part * c->ws_stride);
}

/* W = 1: every window is one element; copy it (once or twice per row). */
static void mm_copy(const void *in, size_t first, size_t cnt, size_t esz, gs_mm_only only, void *out)
{
    const char *src = (const char *)in + first * esz;
    if (only != GS_MM_BOTH) {
        memcpy(out, src, cnt * esz);
        return;
    }
    if (esz == 4) {
        uint32_t *o = out, v;
        for (size_t i = 0; i < cnt; i++) memcpy(&v, src + 4 * i, 4), o[2 * i] = v, o[2 * i + 1] = v;
    } else {
        uint64_t *o = out, v;
        for (size_t i = 0; i < cnt; i++) memcpy(&v, src + 8 * i, 8), o[2 * i] = v, o[2 * i + 1] = v;
    }
}

int gs_minmax_cpu_vhgw(const gs_minmax_params *p, const void *in, size_t m, size_t first, void *out,
                       gs_status *st)
{
    int rc = mm_check(p, m, first, st);
    if (rc) return rc;
    const size_t cnt = m - first, esz = gs_type_size(p->type);
    if (cnt == 0) return GS_OK;
    const size_t w = mm_window(p, m);
    if (w == 1) {
        mm_copy(in, first, cnt, esz, p->only, out);
        return GS_OK;
    }
    /* Each part re-reads up to two blocks before its range: worth it only with enough outputs. */
    const size_t min_part = 2 * w > GS_MM_MIN_PART ? 2 * w : GS_MM_MIN_PART;
    size_t nparts = (size_t)gs_pool_threads();
    if (nparts > cnt / min_part) nparts = cnt / min_part ? cnt / min_part : 1;

    mm_ctx c = {.in = in, .out = out, .first = first, .w = w, .nt = (w + GS_MM_TILE - 1) / GS_MM_TILE,
                .cnt = cnt, .range = vhgw_fns[p->type][p->only]};
    c.ws_stride = ((2 * (GS_MM_TILE + 1) + 2 * c.nt) * esz + 63) & ~(size_t)63;
    c.ws = malloc(nparts * c.ws_stride);
    if (!c.ws) return gs_fail(st, GS_ENOMEM, "minmax: out of host memory for a window of %zu", w);
    gs_parallel_for(nparts, vhgw_part, &c);
    free(c.ws);
    return GS_OK;
}
