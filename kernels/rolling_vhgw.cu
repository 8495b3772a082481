/* rolling_vhgw.cu - rolling aggregates on the GPU: the CPU's states (kernels/rolling_cpu.c, "the
 * sweep"), tile by tile, so that every output has the CPU backend's bits.
 * Chunked semantics of kernels.h: in[0..m) is halo + chunk; outputs for window ends e = first..m-1
 * over in[max(0, e-W+1) .. e], p->nagg columns of p->out_type a row; p->base is the absolute
 * position of in[0].
 *
 *   vhgw  blocks of W at absolute positions cut into tiles of GS_ROLL_TILE (32); per family of
 *         states (rolling_ops.h), three kernels:
 *           rs_tot_k    one thread per tile wholly in memory: its total (its values folded left to
 *                       right from the identity)
 *           rs_chain_k  one thread per block: PT before each tile (totals merged left to right) where
 *                       the block starts in memory, ST from each tile on (merged right to left) where
 *                       it ends in memory
 *           rs_out_k    one thread per tile of outputs: the suffixes of the same tile of the block
 *                       before (folded from its end, in local memory), then the prefix left to right,
 *                       each row suffix (+) prefix, written by rolling_rows.h
 *         W <= 32 (one tile a block) needs no totals: the prefix starts from the identity and no
 *         window starts inside a tile before its block's last.
 * Work is O(1) per element for any W; the chains are W/32 merges per block, sequential. */
#include "gpu_common.cuh"
#include "kernels_gpu.h"
#include "rolling_rows.h"

#include <string.h>

#define RS_T ((uint64_t)GS_ROLL_TILE)

/* ---- the families on the device (as rolling_cpu.c's ROLL_STEPS rows) ------------------------------ */
template <class T> __device__ __forceinline__ int64_t rs_kmin(T x) { return (int64_t)x; }
template <class T> __device__ __forceinline__ int64_t rs_kmax(T x) { return (int64_t)x; }
template <> __device__ __forceinline__ int64_t rs_kmin<uint64_t>(uint64_t x) { return (int64_t)(x ^ (1ull << 63)); }
template <> __device__ __forceinline__ int64_t rs_kmax<uint64_t>(uint64_t x) { return (int64_t)(x ^ (1ull << 63)); }
template <> __device__ __forceinline__ int64_t rs_kmin<float>(float x) { return gs_kmin_f32(x); }
template <> __device__ __forceinline__ int64_t rs_kmax<float>(float x) { return gs_kmax_f32(x); }
template <> __device__ __forceinline__ int64_t rs_kmin<double>(double x) { return gs_kmin_f64(x); }
template <> __device__ __forceinline__ int64_t rs_kmax<double>(double x) { return gs_kmax_f64(x); }

struct RsSumF {
    typedef gs_rs_sumf S;
    static constexpr bool skips = true;
    static __device__ void init(S *a) { gs_rs_sumf_init(a); }
    template <class T> static __device__ void add(S *a, T x, uint64_t) { gs_rs_sumf_add(a, (double)x); }
    template <class T> static __device__ void addl(S *a, T x, uint64_t) { gs_rs_sumf_add(a, (double)x); }
    static __device__ S merge(S a, S b) { return gs_rs_sumf_merge(a, b); }
    static __device__ void row(const gs_rs_cols *c, uint64_t r, S a) { gs_rs_row_sumf(c, r, a); }
};
struct RsSumI {
    typedef gs_rs_sumi S;
    static constexpr bool skips = false;
    static __device__ void init(S *a) { gs_rs_sumi_init(a); }
    template <class T> static __device__ void add(S *a, T x, uint64_t) { gs_rs_sumi_add(a, (gs_i128)x); }
    template <class T> static __device__ void addl(S *a, T x, uint64_t) { gs_rs_sumi_add(a, (gs_i128)x); }
    static __device__ S merge(S a, S b) { return gs_rs_sumi_merge(a, b); }
    static __device__ void row(const gs_rs_cols *c, uint64_t r, S a) { gs_rs_row_sumi(c, r, a); }
};
struct RsVar {
    typedef gs_rs_var S;
    static constexpr bool skips = true;
    static __device__ void init(S *a) { gs_rs_var_init(a); }
    template <class T> static __device__ void add(S *a, T x, uint64_t) { gs_rs_var_add(a, (double)x); }
    template <class T> static __device__ void addl(S *a, T x, uint64_t) { gs_rs_var_add(a, (double)x); }
    static __device__ S merge(S a, S b) { return gs_rs_var_merge(a, b); }
    static __device__ void row(const gs_rs_cols *c, uint64_t r, S a) { gs_rs_row_var(c, r, a); }
};
struct RsCnt {
    typedef gs_rs_cnt S;
    static constexpr bool skips = false;
    static __device__ void init(S *a) { gs_rs_cnt_init(a); }
    template <class T> static __device__ void add(S *a, T x, uint64_t) { a->all++, a->valid += x == x; }
    template <class T> static __device__ void addl(S *a, T x, uint64_t) { a->all++, a->valid += x == x; }
    static __device__ S merge(S a, S b) { return gs_rs_cnt_merge(a, b); }
    static __device__ void row(const gs_rs_cols *c, uint64_t r, S a) { gs_rs_row_cnt(c, r, a); }
};
struct RsMin {
    typedef gs_rs_ext S;
    static constexpr bool skips = true;
    static __device__ void init(S *a) { gs_rs_ext_init(a); }
    template <class T> static __device__ void add(S *a, T x, uint64_t p) { gs_rs_min_add(a, rs_kmin(x), p); }
    template <class T> static __device__ void addl(S *a, T x, uint64_t p) { gs_rs_min_addl(a, rs_kmin(x), p); }
    static __device__ S merge(S a, S b) { return gs_rs_min_merge(a, b); }
    static __device__ void row(const gs_rs_cols *c, uint64_t r, S a) { gs_rs_row_ext(c, r, a); }
};
struct RsMax {
    typedef gs_rs_ext S;
    static constexpr bool skips = true;
    static __device__ void init(S *a) { gs_rs_ext_init(a); }
    template <class T> static __device__ void add(S *a, T x, uint64_t p) { gs_rs_max_add(a, rs_kmax(x), p); }
    template <class T> static __device__ void addl(S *a, T x, uint64_t p) { gs_rs_max_addl(a, rs_kmax(x), p); }
    static __device__ S merge(S a, S b) { return gs_rs_max_merge(a, b); }
    static __device__ void row(const gs_rs_cols *c, uint64_t r, S a) { gs_rs_row_ext(c, r, a); }
};

/* The tiles a chunk touches: blocks j_lo.. of W from absolute base, each with kspan tile slots
 * starting at tile kb (kb0 in block j_lo, 0 in the others): slot (jj, k - kb). */
struct RsGrid {
    uint64_t base, W, M, m, first, j_lo, nb, kspan, kb0, nslots;
    int skip;
};
__device__ __forceinline__ uint64_t rs_kb(const RsGrid &g, uint64_t jj) { return jj ? 0 : g.kb0; }
/* local position of block j_lo + jj's start (negative where it lies before in[0]) */
__device__ __forceinline__ int64_t rs_jb(const RsGrid &g, uint64_t jj) { return (int64_t)((g.j_lo + jj) * g.W - g.base); }
__device__ __forceinline__ uint64_t rs_tile_end(const RsGrid &g, uint64_t k) { return (k + 1) * RS_T < g.W ? (k + 1) * RS_T : g.W; }

template <class F, class T> __device__ __forceinline__ void rs_fold(const RsGrid &g, typename F::S *a, const T *in, int64_t lo, int64_t hi)
{
    for (int64_t i = lo; i < hi; i++) {
        const T x = in[i];
        if (!(F::skips && g.skip && x != x)) F::add(a, x, g.base + (uint64_t)i);
    }
}

template <class F, class T> __global__ void rs_tot_k(RsGrid g, const T *in, typename F::S *tot)
{
    const uint64_t slot = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (slot >= g.nslots) return;
    const uint64_t jj = slot / g.kspan, k = rs_kb(g, jj) + slot % g.kspan;
    typename F::S a;
    F::init(&a);
    const int64_t jb = rs_jb(g, jj);
    if (k < g.M) {
        const int64_t lo = jb + (int64_t)(k * RS_T), hi = jb + (int64_t)rs_tile_end(g, k);
        if (lo >= 0 && hi <= (int64_t)g.m) rs_fold<F>(g, &a, in, lo, hi); /* wholly in memory */
    }
    tot[slot] = a;
}

/* pt[slot(k)] = PT before tile k (block start in memory); st[slot(k)] = ST from tile k on (block end
 * in memory, tile k wholly in memory) */
template <class F> __global__ void rs_chain_k(RsGrid g, const typename F::S *tot, typename F::S *pt, typename F::S *st)
{
    const uint64_t jj = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (jj >= g.nb) return;
    const int64_t jb = rs_jb(g, jj);
    const uint64_t kb = rs_kb(g, jj), row = jj * g.kspan;
    const uint64_t kend = kb + g.kspan < g.M ? kb + g.kspan : g.M; /* slots of this block */
    typename F::S a;
    if (jb >= 0) {
        F::init(&a);
        for (uint64_t k = 0; k < kend; k++) {
            pt[row + k] = a;
            a = F::merge(a, tot[row + k]);
        }
    }
    if (jb + (int64_t)g.W <= (int64_t)g.m) {
        F::init(&a);
        for (uint64_t k = g.M; k-- > kb;) {
            if (jb + (int64_t)(k * RS_T) < 0) break; /* not wholly in memory */
            a = F::merge(tot[row + k - kb], a);
            st[row + k - kb] = a;
        }
    }
}

template <class F, class T>
__global__ void rs_out_k(RsGrid g, const T *in, const typename F::S *pt, const typename F::S *st, gs_rs_cols cols)
{
    typedef typename F::S S;
    const uint64_t slot = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (slot >= g.nslots) return;
    const uint64_t jj = slot / g.kspan, kb = rs_kb(g, jj), k = kb + slot % g.kspan;
    if (k >= g.M) return;
    const int64_t jb = rs_jb(g, jj), t0 = jb + (int64_t)(k * RS_T), t1 = jb + (int64_t)rs_tile_end(g, k);
    const int64_t ea = t0 > (int64_t)g.first ? t0 : (int64_t)g.first, eb = t1 < (int64_t)g.m ? t1 : (int64_t)g.m;
    if (ea >= eb) return;
    const bool multi = g.M > 1, first_block = g.j_lo + jj == 0;
    S acc, tot;
    if (multi) acc = pt[slot];
    else F::init(&acc);
    F::init(&tot);
    rs_fold<F>(g, &acc, in, t0, ea);
    rs_fold<F>(g, &tot, in, t0, ea);
    /* the suffixes of the same tile of the block before, from its end down to the first start */
    S sbuf[GS_ROLL_TILE];
    S stnext; /* ST from the next tile on: the fold's start, and a tile-last end's suffix */
    const bool has_next = k + 1 < g.M;
    if (!first_block) {
        if (has_next) stnext = st[(jj - 1) * g.kspan + (k + 1 - rs_kb(g, jj - 1))];
        else F::init(&stnext);
        S a = stnext;
        const int64_t pb = jb - (int64_t)g.W, q1 = pb + (int64_t)rs_tile_end(g, k);
        /* down to the first end's start, and never to the tile's first value (a tile-last end's) */
        const int64_t qt = pb + (int64_t)(k * RS_T), qe = ea - (int64_t)g.W + 1;
        const int64_t lo = qe > qt + 1 ? qe : qt + 1;
        for (int64_t q = q1 - 1; q >= lo; q--) {
            const T x = in[q];
            if (!(F::skips && g.skip && x != x)) F::addl(&a, x, g.base + (uint64_t)q);
            sbuf[q - qt] = a;
        }
    }
    for (int64_t e = ea; e < eb; e++) {
        const T x = in[e];
        const bool skip = F::skips && g.skip && x != x;
        if (!skip) F::add(&acc, x, g.base + (uint64_t)e), F::add(&tot, x, g.base + (uint64_t)e);
        const bool last = e == t1 - 1;
        S p = acc;
        if (last) { /* PT of the tile: PT before it (the identity in a block of one tile) (+) its total */
            S before;
            if (multi) before = pt[slot];
            else F::init(&before);
            p = F::merge(before, tot);
        }
        S w;
        if (first_block) w = last ? p : acc;
        else if (last) w = has_next ? F::merge(stnext, p) : p;
        else w = F::merge(sbuf[e + 1 - t0], acc);
        F::row(&cols, (uint64_t)(e - (int64_t)g.first), w);
    }
}

/* ---- host side ------------------------------------------------------------------------------------ */
static void rs_grid(const gs_minmax_params *p, uint64_t m, uint64_t first, RsGrid *g)
{
    g->base = p->base;
    g->W = p->window;
    g->M = (g->W + RS_T - 1) / RS_T;
    g->m = m;
    g->first = first;
    g->j_lo = p->base / g->W;
    const uint64_t j_hi = (p->base + (m ? m - 1 : 0)) / g->W;
    g->nb = j_hi - g->j_lo + 1;
    g->kb0 = (p->base - g->j_lo * g->W) / RS_T;
    const uint64_t span = m / RS_T + 2;
    g->kspan = g->M < span ? g->M : span;
    g->nslots = g->nb * g->kspan;
    g->skip = p->skip_nan;
}

extern "C" size_t gs_rolling_gpu_vhgw_scratch(const gs_minmax_params *p, uint64_t m_max)
{
    if (p->window <= RS_T) return 0;
    const uint64_t nslots = (m_max / p->window + 2) * ((p->window + RS_T - 1) / RS_T < m_max / RS_T + 2
                                                          ? (p->window + RS_T - 1) / RS_T : m_max / RS_T + 2);
    return (size_t)(3 * nslots * 32 + 3 * 256); /* three arrays of states of at most 32 bytes */
}

template <class F, class T>
static int rs_family(const RsGrid &g, const T *in, char *scratch, const gs_rs_cols &cols, cudaStream_t s, gs_status *st)
{
    typedef typename F::S S;
    const int threads = 128;
    const size_t arr = gs_align_up(g.nslots * sizeof(S), 256);
    S *tot = (S *)scratch, *pt = (S *)(scratch + arr), *stx = (S *)(scratch + 2 * arr);
    if (g.M > 1) {
        rs_tot_k<F, T><<<(unsigned)gs_cdiv(g.nslots, threads), threads, 0, s>>>(g, in, tot);
        GS_LAUNCH_CHECK(st);
        rs_chain_k<F><<<(unsigned)gs_cdiv(g.nb, threads), threads, 0, s>>>(g, tot, pt, stx);
        GS_LAUNCH_CHECK(st);
    }
    rs_out_k<F, T><<<(unsigned)gs_cdiv(g.nslots, threads), threads, 0, s>>>(g, in, pt, stx, cols);
    GS_LAUNCH_CHECK(st);
    return GS_OK;
}

extern "C" int gs_rolling_gpu_vhgw(const gs_minmax_params *p, const void *d_in, uint64_t m, uint64_t first, void *d_out,
                                   void *d_scratch, size_t scratch_bytes, void *stream, gs_status *st)
{
    if (p->window < 1) return gs_fail(st, GS_EUSAGE, "rolling: window must be at least 1");
    if (p->nagg < 1 || p->nagg > GS_ROLL_COLS_MAX)
        return gs_fail(st, GS_EUSAGE, "rolling: 1 to %d aggregates, not %d", GS_ROLL_COLS_MAX, p->nagg);
    if (first >= m) return GS_OK;
    if (p->window > (UINT64_C(1) << 62)) return gs_fail(st, GS_EUSAGE, "rolling: window %llu is too large",
                                                         (unsigned long long)p->window);
    GS_FORWARD(gs_check_scratch("rolling vhgw", scratch_bytes, gs_rolling_gpu_vhgw_scratch(p, m), st));
    RsGrid g;
    rs_grid(p, m, first, &g);
    const int missing = gs_roll_missing(p);
    const cudaStream_t s = gs_stream(stream);
    return gs_dispatch_type(p->type, st, [&](auto t) -> int {
        typedef decltype(t) T;
        const T *in = (const T *)d_in;
        for (int fam = 0; fam < 5; fam++) { /* sum, var, count, min, max: as rolling_cpu.c's families */
            gs_rs_cols c;
            memset(&c, 0, sizeof c);
            c.out = (char *)d_out;
            c.k = (uint64_t)p->nagg;
            c.osz = gs_type_size(p->out_type);
            c.mp = p->min_periods;
            c.otype = p->out_type;
            c.in = p->type;
            c.ddof = p->ddof;
            for (int k = 0; k < p->nagg; k++) {
                const int a = p->agg[k];
                const int f = a == GS_AGG_SUM || a == GS_AGG_MEAN ? 0 : a == GS_AGG_VAR || a == GS_AGG_STD ? 1
                              : a == GS_AGG_COUNT ? 2 : a == GS_AGG_MIN || a == GS_AGG_ARGMIN ? 3 : 4;
                if (f != fam) continue;
                c.col[c.nf] = k;
                c.agg[c.nf] = (unsigned char)a;
                c.ctype[c.nf++] = (unsigned char)gs_agg_type((gs_agg)a, p->type, missing);
            }
            if (!c.nf) continue;
            int rc;
            char *sc = (char *)d_scratch;
            switch (fam) {
            case 0:
                rc = gs_type_is_float(p->type) ? rs_family<RsSumF, T>(g, in, sc, c, s, st)
                                               : rs_family<RsSumI, T>(g, in, sc, c, s, st);
                break;
            case 1: rc = rs_family<RsVar, T>(g, in, sc, c, s, st); break;
            case 2: rc = rs_family<RsCnt, T>(g, in, sc, c, s, st); break;
            case 3: rc = rs_family<RsMin, T>(g, in, sc, c, s, st); break;
            default: rc = rs_family<RsMax, T>(g, in, sc, c, s, st); break;
            }
            if (rc) return rc;
        }
        return GS_OK;
    });
}
