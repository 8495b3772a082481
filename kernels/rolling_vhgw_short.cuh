/* rolling_vhgw_short.cuh - rs_out_k's work for windows of a few values (W up to RsShort's wmax,
 * one tile a block) of f64 input in the sum and var families, each window end on its own: the same
 * states, merged in the same order, so the same bits (tests/unit/rolling_gpu_emu.cpp runs these
 * phases on the host).
 *
 * With one tile a block, rs_out_k's thread folds a block's W ends one after another: 2 W steps and
 * W rows a thread, each thread's values 8 W bytes from its neighbour's. Here a launch block copies
 * the values under its RS_SHORT_ENDS ends (and the W - 1 before them) into shared memory,
 * coalesced, and each thread makes RS_SHORT_PER ends' windows, RS_SHORT_THREADS apart (its own
 * setup shared by them, the rows stored coalesced), as rs_out_k does: the suffix of the block
 * before (folded from its end) and the prefix of its own block (folded from its start), merged; a
 * block's last end is its prefix alone. That is W steps an end, the same number for every thread
 * of a warp: the suffix's steps first, then the prefix's, in one loop. In the sum and var families
 * a value goes on the left of a state as on its right (addl is add), which that loop relies on.
 *
 * It takes the blocks whose ends are all outputs and whose windows are whole and in memory (the
 * slots [g.fast_lo, g.fast_hi): with one tile a block, a slot is a block; rs_out_k the others). */
#ifndef GS_ROLLING_VHGW_SHORT_CUH
#define GS_ROLLING_VHGW_SHORT_CUH

#include "rolling_vhgw.cuh"

#define RS_SHORT_THREADS 256
#define RS_SHORT_PER 4                                /* ends a thread */
#define RS_SHORT_ENDS (RS_SHORT_THREADS * RS_SHORT_PER) /* ends a launch block */
#define RS_SHORT_BUF (RS_SHORT_ENDS + (int)RS_T)      /* doubles a launch block stages: its ends and the W - 1 before */

/* The longest window of each family that takes this path: above it the W steps an end cost more
 * than rs_out_k's two a value (kernels/TUNING.md has the figures: H200, 2^28 f64). 0: the family
 * never does. */
template <class F> struct RsShort {
    static constexpr uint64_t wmax = 0;
};
template <> struct RsShort<RsSumF> {
    static constexpr uint64_t wmax = 8;
};
template <> struct RsShort<RsVar> {
    static constexpr uint64_t wmax = 4;
};
static_assert(RsShort<RsSumF>::wmax < RS_T && RsShort<RsVar>::wmax < RS_T, "the short path takes one tile a block");

/* The short path's part of the grid g for the columns c of an f64 input, windows of at most wmax:
 * the slots [fast_lo, fast_hi) rs_out_k leaves to rs_out_short_k (left as they are where it does
 * not apply). */
static inline void rs_short_range(RsGrid *g, const gs_rs_cols *c, uint64_t wmax)
{
    if (c->in != GS_F64 || g->W > wmax) return;
    rs_whole_tiles(g, &g->fast_lo, &g->fast_hi);
    g->fast = g->fast_hi > g->fast_lo ? RS_FAST_SHORT : RS_FAST_NONE;
}

/* the local positions of the ends of the short path and of launch block bi's first end */
__device__ __forceinline__ int64_t rs_short_e0(const RsGrid &g, uint64_t bi)
{
    return rs_jb(g, g.fast_lo) + (int64_t)(bi * RS_SHORT_ENDS);
}
__device__ __forceinline__ int rs_short_n(const RsGrid &g, int64_t e0)
{
    const int64_t left = rs_jb(g, g.fast_hi) - e0;
    return left < RS_SHORT_ENDS ? (int)left : RS_SHORT_ENDS;
}

/* step 1, thread t of the launch block: its share of the n ends' values and the W - 1 before them,
 * x[i] = in[e0 - (W - 1) + i] */
__device__ __forceinline__ void rs_short_load(const RsGrid &g, double *x, const double *in, int64_t e0, int n, int t)
{
    const int64_t from = e0 - (int64_t)g.W + 1;
    const int cnt = n + (int)g.W - 1;
    for (int i = t; i < cnt; i += RS_SHORT_THREADS) x[i] = in[from + i];
}

/* step 2, for each end t of the launch block (thread t % RS_SHORT_THREADS's): the end e0 + t's
 * row from x (step 1's). W (g.W) is a constant of the kernel: its steps unrolled, its remainders
 * by a constant. */
template <class F, int W>
__device__ __forceinline__ void rs_short_end(const RsGrid &g, const double *x, int64_t e0, int t, const gs_rs_cols &cols)
{
    typedef typename F::S S;
    /* its offset in its block: the path's first end starts a block; a 32-bit remainder where the
     * distance fits (a 64-bit one is a long call on the device) */
    const uint64_t off = (uint64_t)(e0 + t - rs_jb(g, g.fast_lo));
    const int r = (int)(off >> 32 ? off % (uint64_t)W : (uint32_t)off % (uint32_t)W);
    const int ns = W - 1 - r; /* values of the block before in its window */
    const int jb = t - r + W - 1; /* its block's start in x */
    S cur, suf;
    F::init(&cur);
    suf = cur;
#pragma unroll
    for (int i = 0; i < W; i++) { /* the suffix from the block's end down, then the prefix up */
        if (i == ns) suf = cur, F::init(&cur);
        const int q = i < ns ? jb - 1 - i : jb + i - ns;
        const double v = x[q];
        if (!(F::skips && g.skip && v != v)) F::add(&cur, v, g.base + (uint64_t)(e0 - W + 1 + q));
    }
    const S w = ns ? F::merge(suf, cur) : cur;
    F::row(&cols, (uint64_t)(e0 + t - (int64_t)g.first), w);
}

#endif
