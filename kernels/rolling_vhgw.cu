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
 *                       it ends in memory; rs_chain_w the same merges a warp per chain, from
 *                       RS_CHAIN_WARP tiles a block (32 totals read at once, the next 32 meanwhile,
 *                       broadcast lane by lane)
 *           the var family's chains with more than GS_ROLL_GROUP tiles a block run in two levels
 *                       (rolling_cpu.c's order): rs_grp_k each group's totals (a thread a group),
 *                       rs_sup_k the chain over a block's groups (a thread a block), rs_fin_k each
 *                       group's tiles from its group's PT and ST; after the rows rs_fix_k rewrites
 *                       the last end before each rebased PT
 *           rs_out_k    one thread per tile of outputs: the suffixes of the same tile of the
 *                       block before (folded from its end: checkpoints, then a group of RS_G at a
 *                       time again from its checkpoint, in shared memory), then the prefix left to
 *                       right, each row suffix (+) prefix, written by rolling_rows.h; a tile's last
 *                       end takes the tile's total from rs_tot_k
 *         A thread's values lie 32 apart from its neighbours': rs_tot_k issues a tile's loads and
 *         rs_out_k a group's (RS_G values) before it folds any of them, in a loop that is not
 *         unrolled (rs_pop: its body is compiled once).
 *         W <= 32 (one tile a block) needs no totals: the prefix starts from the identity and no
 *         window starts inside a tile before its block's last.
 *         The f64 sum or mean alone, from W = 32 on, on the tiles inside the chunk (the others
 *         stay rs_out_k's), a warp at a time through shared memory (rolling_vhgw_warp.cuh):
 *           rs_out_fuse_k  W <= 1024: whole blocks, their totals and chains its own (rs_tot_k and
 *                       rs_chain_k skip those blocks)
 *           rs_out_warp_k  W > 1024: 32 tiles, their PT, ST and totals from the kernels above
 *         The f64 sum and var families with windows of a few values (rolling_vhgw_short.cuh):
 *           rs_out_short_k each end inside the chunk on its own, its W values from shared memory
 * Work is O(1) per element for any W; a chain is W/32 merges per block, sequential (var's: W/1024
 * and 32). Every family's kernels are templates over its state (rolling_vhgw.cuh, F below). */
#include "gpu_common.cuh"
#include "kernels_gpu.h"
#include "rolling_vhgw.cuh"
#include "rolling_vhgw_short.cuh"
#include "rolling_vhgw_warp.cuh"

#include <string.h>
#include <type_traits>

/* tiles a block from which each plain chain takes a warp (below: a thread) */
#define RS_CHAIN_WARP 64

/* ---- host side ------------------------------------------------------------------------------------ */
/* the scratch of rs_family: tile totals, PT and ST a tile slot; where a family's chains run in two
 * levels, SL, SR, PT and ST a group slot (the slot counts of rs_grid at the largest chunk); each
 * array of states of at most 32 bytes */
extern "C" size_t gs_rolling_gpu_vhgw_scratch(const gs_minmax_params *p, uint64_t m_max)
{
    if (p->window <= RS_T) return 0;
    const uint64_t M = (p->window + RS_T - 1) / RS_T, nb = m_max / p->window + 2;
    const uint64_t kspan = M < m_max / RS_T + 2 ? M : m_max / RS_T + 2, gspan = (kspan + RS_GR - 1) / RS_GR + 1;
    int grouped = 0;
    for (int k = 0; k < p->nagg; k++) grouped |= GS_RS_GROUPED(gs_rs_family(p->agg[k]));
    return (size_t)(3 * nb * kspan * 32 + 3 * 256) + (grouped && M > RS_GR ? (size_t)(4 * nb * gspan * 32 + 4 * 256) : 0);
}

/* ---- the chains, a warp per block and direction ------------------------------------------------ */
template <class S> __device__ __forceinline__ S rs_shfl(const S &v, int src)
{
    unsigned long long w[sizeof(S) / 8];
    memcpy(w, &v, sizeof v);
    for (int k = 0; k < (int)(sizeof(S) / 8); k++) w[k] = __shfl_sync(0xffffffffu, w[k], src);
    S r;
    memcpy(&r, w, sizeof r);
    return r;
}

/* a sum's (s, c) from lane src (its n is not needed where this is used) */
__device__ __forceinline__ gs_rs_sumf rs_shfl_sum(const gs_rs_sumf &v, int src)
{
    gs_rs_sumf r;
    r.s = __shfl_sync(0xffffffffu, v.s, src);
    r.c = __shfl_sync(0xffffffffu, v.c, src);
    r.n = 0;
    return r;
}

/* step(0) .. step(nk - 1), unrolled where nk is a whole warp's 32 (the broadcasts then load ahead) */
template <class Step> __device__ __forceinline__ void rs_steps(int nk, const Step &step)
{
    if (nk == 32) {
#pragma unroll
        for (int i = 0; i < 32; i++) step(i);
    } else {
        for (int i = 0; i < nk; i++) step(i);
    }
}

/* rs_chain_k's merges in its order, for long chains (many tiles a block): warp 2 jj + d of the
 * launch takes block jj's PT (d = 0) or ST (d = 1). The warp reads 32 totals at once, every lane
 * runs the whole chain on them (broadcast from lane i at step i: the same merges in the same
 * order, so the same bits), and lane i keeps step i's state to write. */
template <class F>
__global__ void rs_chain_w(RsGrid g, const typename F::S *__restrict__ tot, typename F::S *__restrict__ pt,
                           typename F::S *__restrict__ st)
{
    typedef typename F::S S;
    const uint64_t w = (blockIdx.x * (uint64_t)blockDim.x + threadIdx.x) / 32;
    const int lane = (int)(threadIdx.x % 32);
    const uint64_t jj = w / 2;
    if (jj >= g.nb || (jj >= g.skip_lo && jj < g.skip_hi)) return; /* the whole warp */
    const int64_t jb = rs_jb(g, jj);
    const uint64_t kb = rs_kb(g, jj), row = jj * g.kspan;
    S a, mine, t;
    F::init(&a);
    F::init(&t);
    if (w % 2 == 0) {
        if (jb < 0) return;
        const uint64_t kend = kb + g.kspan < g.M ? kb + g.kspan : g.M;
        if (lane < kend) t = tot[row + lane];
        for (uint64_t k0 = 0; k0 < kend; k0 += 32) {
            const S cur = t;
            if (k0 + 32 + lane < kend) t = tot[row + k0 + 32 + lane]; /* the next 32, loaded meanwhile */
            const int nk = kend - k0 < 32 ? (int)(kend - k0) : 32;
            const auto step = [&](int i) {
                if (lane == i) mine = a;
                a = F::merge(a, rs_shfl(cur, i));
            };
            rs_steps(nk, step);
            if (lane < nk) pt[row + k0 + lane] = mine;
        }
    } else {
        if (jb + (int64_t)g.W > (int64_t)g.m) return;
        /* tiles wholly in memory: k from kmin up */
        uint64_t kmin = kb;
        if (jb < 0) {
            const uint64_t need = (uint64_t)(-jb + (int64_t)RS_T - 1) / RS_T;
            if (need > kmin) kmin = need;
        }
        if (g.M > kmin && lane < g.M - kmin) t = tot[row + g.M - 1 - lane - kb];
        for (uint64_t khi = g.M; khi > kmin;) {
            const int nk = khi - kmin < 32 ? (int)(khi - kmin) : 32;
            const S cur = t;
            if (khi - nk > kmin && lane < khi - nk - kmin) t = tot[row + khi - nk - 1 - lane - kb]; /* the next 32 */
            const auto step = [&](int i) {
                a = F::merge(rs_shfl(cur, i), a);
                if (lane == i) mine = a;
            };
            rs_steps(nk, step);
            if (lane < nk) st[row + khi - 1 - lane - kb] = mine;
            khi -= nk;
        }
    }
}

/* rolling_vhgw_warp.cuh's steps, a warp for 32 slots from g.fast_lo on; RS_WARP_SMEM bytes */
__global__ void __launch_bounds__(RS_WARP_THREADS)
rs_out_warp_k(RsGrid g, const double *__restrict__ in, const gs_rs_sumf *__restrict__ pt, const gs_rs_sumf *__restrict__ st,
              const gs_rs_sumf *__restrict__ tots, double *__restrict__ out, int mean)
{
    extern __shared__ double rs_wsm[];
    const uint64_t s0 = g.fast_lo + (blockIdx.x * (uint64_t)blockDim.x + threadIdx.x) / 32 * 32;
    if (s0 >= g.fast_hi) return; /* the whole warp */
    const int lane = (int)(threadIdx.x % 32);
    double *before = rs_wsm + threadIdx.x / 32 * 2 * RS_WARP_BUF, *own = before + RS_WARP_BUF;
    const uint64_t slast = s0 + 31 < g.fast_hi ? s0 + 31 : g.fast_hi - 1;
    const int64_t lo = rs_warp_t0(g, s0);
    const int n = (int)(rs_warp_t1(g, slast) - lo);
    rs_warp_load(before, in, lo - (int64_t)g.W, n, lane);
    rs_warp_load(own, in, lo, n, lane);
    RsWarpLane L;
    rs_warp_lane(g, s0 + lane, s0 + lane <= slast, pt, st, tots, &L);
    const int b = (int)(L.t0 - lo);
    double ss[RS_TI], sc[RS_TI];
    rs_warp_wait<1>();
    rs_warp_suffix(L, before, b, ss, sc);
    rs_warp_wait<0>();
    rs_warp_prefix(L, own, b, ss, sc, (double)g.W, mean);
    __syncwarp();
    rs_warp_store(own, out + (lo - (int64_t)g.first), n, lane);
}

/* the fused warp path: a warp for 32 / M whole blocks from block fast_lo / M on; RS_WARP_SMEM bytes */
__global__ void __launch_bounds__(RS_WARP_THREADS)
rs_out_fuse_k(RsGrid g, const double *__restrict__ in, double *__restrict__ out, int mean)
{
    extern __shared__ double rs_wsm[];
    const uint64_t per = 32 / g.M, jhi = g.fast_hi / g.M;
    const uint64_t jj0 = g.fast_lo / g.M + (blockIdx.x * (uint64_t)blockDim.x + threadIdx.x) / 32 * per;
    if (jj0 >= jhi) return; /* the whole warp */
    const uint64_t nbk = jhi - jj0 < per ? jhi - jj0 : per;
    const int lane = (int)(threadIdx.x % 32), M = (int)g.M;
    double *before = rs_wsm + threadIdx.x / 32 * 2 * RS_WARP_BUF, *own = before + RS_WARP_BUF;
    const int64_t lo = rs_jb(g, jj0);
    const int n = (int)(nbk * g.W);
    rs_warp_load(before, in, lo - (int64_t)g.W, n, lane);
    rs_warp_load(own, in, lo, n, lane);
    RsWarpLane L;
    int bl;
    rs_warp_lane_fused(g, jj0, nbk, lane, &L, &bl);
    const int b = (int)(L.t0 - lo), k = lane - bl;
    rs_warp_wait<1>();
    if (M > 1) { /* one tile a block (W = 32) has neither totals nor chains */
        const gs_rs_sumf tb = rs_warp_total(L.len, before, b);
        L.stnext = rs_warp_st(M, k, [&](int i) { return rs_shfl_sum(tb, (bl + i) & 31); });
    }
    double ss[RS_TI], sc[RS_TI];
    rs_warp_suffix(L, before, b, ss, sc);
    rs_warp_wait<0>();
    if (M > 1) {
        L.tot = rs_warp_total(L.len, own, b);
        L.before = rs_warp_pt(M, k, [&](int i) { return rs_shfl_sum(L.tot, (bl + i) & 31); });
    }
    rs_warp_prefix(L, own, b, ss, sc, (double)g.W, mean);
    __syncwarp();
    rs_warp_store(own, out + (lo - (int64_t)g.first), n, lane);
}

/* rolling_vhgw_short.cuh's steps, RS_SHORT_PER ends a thread from the ends of slot g.fast_lo on,
 * windows of W values */
template <class F, int W>
__global__ void __launch_bounds__(RS_SHORT_THREADS) rs_out_short_k(RsGrid g, const double *__restrict__ in, gs_rs_cols cols)
{
    __shared__ double x[RS_SHORT_BUF];
    const int64_t e0 = rs_short_e0(g, blockIdx.x);
    const int n = rs_short_n(g, e0), t = (int)threadIdx.x;
    rs_short_load(g, x, in, e0, n, t);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < RS_SHORT_PER; k++)
        if (t + k * RS_SHORT_THREADS < n) rs_short_end<F, W>(g, x, e0, t + k * RS_SHORT_THREADS, cols);
}
/* rs_out_short_k for g.W, one of 1 .. RsShort<F>::wmax */
template <class F, int W = 1>
static void rs_short_launch(const RsGrid &g, const double *in, const gs_rs_cols &cols, unsigned blocks, cudaStream_t s)
{
    if constexpr (W <= (int)RsShort<F>::wmax) {
        if (g.W == (uint64_t)W) rs_out_short_k<F, W><<<blocks, RS_SHORT_THREADS, 0, s>>>(g, in, cols);
        else rs_short_launch<F, W + 1>(g, in, cols, blocks, s);
    }
}

template <class F, class T>
static int rs_family(const RsGrid &g0, const T *in, char *scratch, const gs_rs_cols &cols, cudaStream_t s, gs_status *st)
{
    RsGrid g = g0;
    if constexpr (std::is_same<F, RsSumF>::value && std::is_same<T, double>::value) rs_warp_range(&g, &cols);
    if constexpr (RsShort<F>::wmax > 0 && std::is_same<T, double>::value) rs_short_range(&g, &cols, RsShort<F>::wmax);
    typedef typename F::S S;
    const int threads = 128;
    const size_t arr = gs_align_up(g.nslots * sizeof(S), 256), garr = gs_align_up(g.ngslots * sizeof(S), 256);
    S *tot = (S *)scratch, *pt = (S *)(scratch + arr), *stx = (S *)(scratch + 2 * arr);
    S *sl = (S *)(scratch + 3 * arr), *sr = (S *)(scratch + 3 * arr + garr);
    S *ptg = (S *)(scratch + 3 * arr + 2 * garr), *stg = (S *)(scratch + 3 * arr + 3 * garr);
    if (g.M > 1) {
        rs_tot_k<F, T><<<(unsigned)gs_cdiv(g.nslots, threads), threads, 0, s>>>(g, in, tot);
        GS_LAUNCH_CHECK(st);
        if (!rs_grouped<F>(g)) { /* the plain chains */
            if (g.M >= RS_CHAIN_WARP) /* a warp per chain */
                rs_chain_w<F><<<(unsigned)gs_cdiv(g.nb * 2 * 32, threads), threads, 0, s>>>(g, tot, pt, stx);
            else
                rs_chain_k<F><<<(unsigned)gs_cdiv(g.nb, threads), threads, 0, s>>>(g, tot, pt, stx);
            GS_LAUNCH_CHECK(st);
        } else {
            const unsigned gb = (unsigned)gs_cdiv(g.ngslots, threads);
            rs_grp_k<F><<<gb, threads, 0, s>>>(g, tot, sl, sr);
            GS_LAUNCH_CHECK(st);
            rs_sup_k<F><<<(unsigned)gs_cdiv(g.nb, threads), threads, 0, s>>>(g, sl, sr, ptg, stg);
            GS_LAUNCH_CHECK(st);
            rs_fin_k<F><<<gb, threads, 0, s>>>(g, tot, ptg, stg, sr, pt, stx);
            GS_LAUNCH_CHECK(st);
        }
    }
    const unsigned blocks = (unsigned)gs_cdiv(g.nslots, RS_OUT_THREADS);
    rs_out_k<F, T><<<blocks, RS_OUT_THREADS, rs_out_smem<S>(g.W), s>>>(g, in, pt, stx, tot, cols);
    GS_LAUNCH_CHECK(st);
    if constexpr (RsShort<F>::wmax > 0 && std::is_same<T, double>::value) {
        if (g.fast == RS_FAST_SHORT) {
            const uint64_t ends = (g.fast_hi - g.fast_lo) * g.W;
            rs_short_launch<F>(g, (const double *)in, cols, (unsigned)gs_cdiv(ends, RS_SHORT_ENDS), s);
            GS_LAUNCH_CHECK(st);
        }
    }
    if constexpr (std::is_same<F, RsSumF>::value && std::is_same<T, double>::value) {
        const int mean = cols.agg[0] == GS_AGG_MEAN;
        if (g.fast == RS_FAST_FUSE) {
            const uint64_t warps = gs_cdiv((g.fast_hi - g.fast_lo) / g.M, 32 / g.M);
            GS_CUDA_CHECK(st, cudaFuncSetAttribute(rs_out_fuse_k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)RS_WARP_SMEM));
            rs_out_fuse_k<<<(unsigned)gs_cdiv(warps * 32, RS_WARP_THREADS), RS_WARP_THREADS, RS_WARP_SMEM, s>>>(
                g, in, (double *)cols.out, mean);
            GS_LAUNCH_CHECK(st);
        } else if (g.fast == RS_FAST_WARP) {
            const uint64_t warps = gs_cdiv(g.fast_hi - g.fast_lo, 32);
            GS_CUDA_CHECK(st, cudaFuncSetAttribute(rs_out_warp_k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)RS_WARP_SMEM));
            rs_out_warp_k<<<(unsigned)gs_cdiv(warps * 32, RS_WARP_THREADS), RS_WARP_THREADS, RS_WARP_SMEM, s>>>(
                g, in, (const gs_rs_sumf *)pt, (const gs_rs_sumf *)stx, (const gs_rs_sumf *)tot, (double *)cols.out, mean);
            GS_LAUNCH_CHECK(st);
        }
    }
    if (rs_grouped<F>(g)) { /* after every row: the last ends before a rebased PT */
        rs_fix_k<F><<<(unsigned)gs_cdiv(g.ngslots, threads), threads, 0, s>>>(g, pt, stx, cols);
        GS_LAUNCH_CHECK(st);
    }
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
    const cudaStream_t s = gs_stream(stream);
    return gs_dispatch_type(p->type, st, [&](auto t) -> int {
        typedef decltype(t) T;
        const T *in = (const T *)d_in;
        for (int fam = 0; fam < GS_RS_NFAM; fam++) { /* as rolling_cpu.c's families */
            gs_rs_cols c;
            gs_rs_family_cols(p, fam, d_out, &c);
            if (!c.nf) continue;
            int rc;
            char *sc = (char *)d_scratch;
            switch (fam) {
            case GS_RS_FAM_SUM: /* T decides the state at compile time: no kernels for the other */
                if constexpr (gs_is_float<T>::value) rc = rs_family<RsSumF, T>(g, in, sc, c, s, st);
                else rc = rs_family<RsSumI, T>(g, in, sc, c, s, st);
                break;
            case GS_RS_FAM_VAR: rc = rs_family<RsVar, T>(g, in, sc, c, s, st); break;
            case GS_RS_FAM_CNT: rc = rs_family<RsCnt, T>(g, in, sc, c, s, st); break;
            case GS_RS_FAM_MIN: rc = rs_family<RsMin, T>(g, in, sc, c, s, st); break;
            default: rc = rs_family<RsMax, T>(g, in, sc, c, s, st); break;
            }
            if (rc) return rc;
        }
        return GS_OK;
    });
}
