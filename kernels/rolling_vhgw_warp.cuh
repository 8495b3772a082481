/* rolling_vhgw_warp.cuh - rs_out_k's work for the commonest job, the f64 sum or mean of an f64
 * column alone (no --skip-nan), a warp at a time: the same states, merged in the same order, so
 * the same bits (tests/unit/rolling_gpu_emu.cpp runs these phases on the host, lane by lane).
 *
 * It takes the tiles whose ends are all outputs and whose windows are whole and in memory (the
 * slots [g.fast_lo, g.fast_hi), rs_warp_range; rs_out_k the others). Where every block has a slot
 * for each of its tiles (kspan = M), 32 consecutive slots are 32 tiles end to end in memory, and
 * so are the tiles of the block before under them. From W = 32 on (full tiles), a warp
 *   1. copies the block before's values under its tiles and its own tiles' values into two
 *      buffers of shared memory (coalesced, every copy issued at once, none through registers),
 *   2. each lane folds its tile's suffixes from the tile's end (from ST of the next tile) into
 *      registers,
 *   3. each lane folds its prefix left to right (from PT), each row (suffix (+) prefix, a tile's
 *      last end as rs_out_k takes it) written back in place of its value,
 *   4. writes the rows out (coalesced).
 * With at most RS_WARP_FUSE_M tiles a block, a warp takes whole blocks (32 / M of them) and makes
 * what rs_tot_k and rs_chain_k would have: each lane folds its tile's total and its block before's
 * tile's, and runs the chains over its block's lanes by shuffles, in rs_chain_k's order.
 * In the buffer, offset o of the warp's range lies at o + o / 32: a lane's tile starts 33 doubles
 * from its neighbour's, so a warp's reads fall in distinct banks. */
#ifndef GS_ROLLING_VHGW_WARP_CUH
#define GS_ROLLING_VHGW_WARP_CUH

#include "rolling_vhgw.cuh"
#ifdef __CUDACC__
#include <cuda_pipeline_primitives.h>
#endif

#define RS_TI ((int)GS_ROLL_TILE)
#define RS_WARP_BUF (RS_TI * RS_TI + RS_TI) /* doubles in a buffer: 32 tiles and the padding */
#define RS_WARP_SMEM ((size_t)RS_WARP_THREADS / 32 * 2 * RS_WARP_BUF * sizeof(double)) /* two buffers a warp */
#define RS_WARP_THREADS 128

/* The warp path's part of the grid g for the columns c (none where it does not apply): the slots
 * [fast_lo, fast_hi) rs_out_k leaves to it. With at most RS_WARP_FUSE_M tiles a block (fuse), it
 * takes whole blocks and makes their totals and chains itself, so that rs_tot_k and rs_chain_k skip
 * them ([skip_lo, skip_hi): all but the last, whose totals and ST the block after it reads). */
#define RS_WARP_FUSE_M 32 /* H200, f64 mean, 2^28: W = 1000 fused 4.11 ms, W = 1025 not 6.28 (kernels/TUNING.md) */
static inline void rs_warp_range(RsGrid *g, const gs_rs_cols *c)
{
    g->fast_lo = g->fast_hi = g->skip_lo = g->skip_hi = 0;
    g->fast = RS_FAST_NONE;
    if (g->skip || c->nf != 1 || c->k != 1 || c->in != GS_F64 || c->otype != GS_F64 || c->ctype[0] != GS_F64 ||
        (c->agg[0] != GS_AGG_SUM && c->agg[0] != GS_AGG_MEAN) || c->mp > g->W || g->kspan != g->M || g->W < RS_T)
        return; /* W < 32: tiles shorter than 32 leave most of a warp's work undone (W = 2: 12.8 ms, rs_out_k 6.1) */
    uint64_t lo, hi;
    rs_whole_tiles(g, &lo, &hi);
    if (lo >= hi) return;
    if (g->M <= RS_WARP_FUSE_M) {
        const uint64_t jlo = (lo + g->M - 1) / g->M, jhi = hi / g->M; /* whole blocks */
        if (jlo >= jhi) return;
        g->fast = RS_FAST_FUSE;
        g->fast_lo = jlo * g->M, g->fast_hi = jhi * g->M;
        g->skip_lo = jlo, g->skip_hi = jhi - 1;
    } else {
        g->fast = RS_FAST_WARP;
        g->fast_lo = lo, g->fast_hi = hi;
    }
}

/* a slot's tile in the warp range: its local start and end */
__device__ __forceinline__ int64_t rs_warp_t0(const RsGrid &g, uint64_t slot)
{
    const uint64_t jj = slot / g.kspan;
    return rs_jb(g, jj) + (int64_t)((slot - jj * g.kspan) * RS_T);
}
__device__ __forceinline__ int64_t rs_warp_t1(const RsGrid &g, uint64_t slot)
{
    const uint64_t jj = slot / g.kspan;
    return rs_jb(g, jj) + (int64_t)rs_tile_end(g, slot - jj * g.kspan);
}

/* what a lane needs of its tile (len 0: a lane past the range) */
struct RsWarpLane {
    int64_t t0;
    int len, multi, has_next;
    gs_rs_sumf before, stnext, tot;
};
__device__ __forceinline__ void rs_warp_lane(const RsGrid &g, uint64_t slot, int active, const gs_rs_sumf *pt,
                                             const gs_rs_sumf *st, const gs_rs_sumf *tots, RsWarpLane *L)
{
    gs_rs_sumf_init(&L->before);
    L->stnext = L->tot = L->before;
    L->len = L->multi = L->has_next = 0;
    L->t0 = rs_warp_t0(g, slot);
    if (!active) return;
    const uint64_t jj = slot / g.kspan, k = slot - jj * g.kspan;
    L->len = (int)(rs_tile_end(g, k) - k * RS_T);
    L->multi = g.M > 1;
    L->has_next = k + 1 < g.M;
    if (L->multi) L->before = pt[slot], L->tot = tots[slot];
    if (L->has_next) L->stnext = st[(jj - 1) * g.kspan + (k + 1 - rs_kb(g, jj - 1))];
}

/* fused: lane l of the warp whose blocks start at block jj0 (nbk of them) takes tile l % M of block
 * jj0 + l / M; its chains run over the lanes of its block, from lane bl */
__device__ __forceinline__ void rs_warp_lane_fused(const RsGrid &g, uint64_t jj0, uint64_t nbk, int lane, RsWarpLane *L, int *bl)
{
    const uint64_t k = (uint64_t)lane % g.M;
    gs_rs_sumf_init(&L->before);
    L->stnext = L->tot = L->before;
    *bl = lane - (int)k;
    L->t0 = rs_jb(g, jj0 + (uint64_t)lane / g.M) + (int64_t)(k * RS_T);
    L->multi = g.M > 1;
    L->has_next = k + 1 < g.M;
    L->len = (uint64_t)lane < nbk * g.M ? (int)(rs_tile_end(g, k) - k * RS_T) : 0;
    if (!L->len) L->t0 = rs_jb(g, jj0), L->has_next = 0;
}
/* a tile's total: its len values from offset b folded from the identity (rs_tot_k's fold) */
__device__ __forceinline__ gs_rs_sumf rs_warp_total(int len, const double *buf, int b)
{
    gs_rs_sumf a;
    gs_rs_sumf_init(&a);
#pragma unroll
    for (int i = 0; i < RS_TI; i++) {
        if (i >= len) break;
        const int o = b + i;
        gs_rs_twosum(&a.s, &a.c, buf[o + (o >> 5)]);
    }
    return a;
}
/* rs_chain_k's merges from the totals of the lanes of a block (tot(i): lane bl + i's): PT before
 * tile k (totals 0 .. k - 1 merged left to right from the identity) and ST from tile k + 1 on
 * (totals M - 1 .. k + 1 merged right to left). Every lane runs every step, so tot may be a
 * shuffle; only the sums are kept (n is W in every window the warp path writes). */
template <class Tot> __device__ __forceinline__ gs_rs_sumf rs_warp_pt(int M, int k, const Tot &tot)
{
    gs_rs_sumf a;
    gs_rs_sumf_init(&a);
    for (int i = 0; i + 1 < M; i++) {
        const gs_rs_sumf t = tot(i);
        if (i < k) gs_rs_sum2(a.s, a.c, t.s, t.c, &a.s, &a.c);
    }
    return a;
}
template <class Tot> __device__ __forceinline__ gs_rs_sumf rs_warp_st(int M, int k, const Tot &tot)
{
    gs_rs_sumf a;
    gs_rs_sumf_init(&a);
    for (int i = M - 1; i >= 1; i--) {
        const gs_rs_sumf t = tot(i);
        if (i > k) gs_rs_sum2(t.s, t.c, a.s, a.c, &a.s, &a.c);
    }
    return a;
}

/* in[from + o] for o < n into the buffer: copies the device makes without registers (cp.async),
 * issued at once and waited for by rs_warp_wait (the host copies at once) */
__device__ __forceinline__ void rs_warp_load(double *buf, const double *in, int64_t from, int n, int lane)
{
#pragma unroll
    for (int t = 0; t < RS_TI; t++) {
        const int o = lane + RS_TI * t;
#ifdef __CUDA_ARCH__
        if (o < n) __pipeline_memcpy_async(buf + o + t, in + from + o, sizeof(double));
#else
        if (o < n) buf[o + t] = in[from + o];
#endif
    }
#ifdef __CUDA_ARCH__
    __pipeline_commit();
#endif
}
/* until all but the last `later` loads of this thread are in, then the warp's */
template <int later> __device__ __forceinline__ void rs_warp_wait()
{
#ifdef __CUDA_ARCH__
    __pipeline_wait_prior(later);
    __syncwarp();
#endif
}

/* step 2: ss/sc[i] the suffix of the block before's tile from offset i (1 <= i < len) */
__device__ __forceinline__ void rs_warp_suffix(const RsWarpLane &L, const double *buf, int b, double (&ss)[RS_TI],
                                               double (&sc)[RS_TI])
{
    double s = L.stnext.s, c = L.stnext.c;
#pragma unroll
    for (int i = RS_TI - 1; i >= 1; i--) {
        if (i < L.len) {
            const int o = b + i;
            gs_rs_twosum(&s, &c, buf[o + (o >> 5)]);
        }
        ss[i] = s, sc[i] = c;
    }
}

/* step 3: the prefix and each end's row (the window's sum, or its mean: the sum / W) in place */
__device__ __forceinline__ void rs_warp_prefix(const RsWarpLane &L, double *buf, int b, const double (&ss)[RS_TI],
                                               const double (&sc)[RS_TI], double W, int mean)
{
    double ps = L.before.s, pc = L.before.c;
#pragma unroll
    for (int j = 0; j < RS_TI; j++) {
        if (j >= L.len) continue;
        const int o = b + j, at = o + (o >> 5);
        gs_rs_twosum(&ps, &pc, buf[at]);
        double ws, wc;
        if (j + 1 == L.len || j + 1 == RS_TI) { /* the last end: PT (+) the tile's total, after ST */
            double qs = ps, qc = pc;
            if (L.multi) gs_rs_sum2(L.before.s, L.before.c, L.tot.s, L.tot.c, &qs, &qc);
            if (L.has_next) gs_rs_sum2(L.stnext.s, L.stnext.c, qs, qc, &ws, &wc);
            else ws = qs, wc = qc;
        } else {
            gs_rs_sum2(ss[j + 1], sc[j + 1], ps, pc, &ws, &wc);
        }
        const double v = gs_rs_sum_value(ws, wc);
        buf[at] = gs_rs_canon(mean ? v / W : v);
    }
}

/* step 4: the rows out */
__device__ __forceinline__ void rs_warp_store(const double *buf, double *out, int n, int lane)
{
    for (int o = lane; o < n; o += RS_TI) out[o] = buf[o + (o >> 5)];
}

#endif
