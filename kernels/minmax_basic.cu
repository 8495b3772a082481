/* minmax_basic.cu - sliding-window minimum and maximum on the GPU, the simple variants: any of the
 * six types, any W >= 1.
 * Chunked semantics of kernels.h: in[0..m) is halo + chunk; outputs for window ends e = first..m-1
 * over in[max(0, e-W+1) .. e]; row r = e - first; interleaved (min, max) rows with GS_MM_BOTH,
 * else one value per row. min/max are gs_min_* / gs_max_* (ops.h): NaN propagates, -0.0 < +0.0,
 * so the results are those of the CPU reference bit for bit (NaN payloads aside). Min and max are
 * always computed in the same pass; `only` just selects what is written.
 *
 *   linear  one thread per output row, a left fold over its window: O(W) per output.
 *   tiled   sparse table by doubling (log-linear): D_{k+1}[i] = op(D_k[i], D_k[i + 2^k]); the first
 *           levels (up to 2^9) in shared-memory tiles, the rest one global pass per level; a row is
 *           op(D_K[s], D_K[e - 2^K + 1]) with 2^K <= W < 2^(K+1). Windows clipped at the start are
 *           prefix minima/maxima, from one small block-scan kernel.
 *
 * The default variant is in minmax_vhgw.cu. Block sizes (p->block; make TUNING=1 only): linear
 * takes any power of two from 32 to 1024; tiled (its shared-memory kernel and the one-block prefix
 * kernel are templated on the thread count, tiles of 4 x threads) is instantiated for 64, 128, 256
 * and 512 threads. */
#include "gpu_common.cuh"
#include "gpu_warp.cuh"
#include "kernels_gpu.h"

/* ============================================================================================
 * linear: one thread per row
 * ============================================================================================ */

template <class T>
__global__ void gs_mm_linear_k(const T *in, uint64_t m, uint64_t first, uint64_t W, T *out, int only)
{
    const uint64_t R = m - first;
    for (uint64_t r = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; r < R; r += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t e = first + r;
        const uint64_t s = e + 1 >= W ? e + 1 - W : 0;
        T mn = in[s], mx = mn;
        for (uint64_t j = s + 1; j <= e; j++) {
            const T v = in[j];
            mn = gs_min(mn, v);
            mx = gs_max(mx, v);
        }
        gs_mm_put(out, r, mn, mx, only);
    }
}

extern "C" size_t gs_minmax_gpu_linear_scratch(const gs_minmax_params *p, uint64_t m_max)
{
    (void)p;
    (void)m_max;
    return 0;
}

extern "C" int gs_minmax_gpu_linear(const gs_minmax_params *p, const void *d_in, uint64_t m, uint64_t first, void *d_out,
                                    void *d_scratch, size_t scratch_bytes, void *stream, gs_status *st)
{
    (void)d_scratch;
    (void)scratch_bytes;
    int threads;
    GS_FORWARD(gs_grid_block("minmax linear", p->block, GS_GRID_THREADS, &threads, st));
    return gs_dispatch_minmax(p, st, [&](auto t) -> int {
        typedef decltype(t) T;
        if (first >= m) return GS_OK;
        gs_mm_linear_k<T><<<gs_grid_for(m - first, threads), threads, 0, gs_stream(stream)>>>(
            (const T *)d_in, m, first, p->window, (T *)d_out, p->only);
        GS_LAUNCH_CHECK(st);
        return GS_OK;
    });
}

/* ============================================================================================
 * Clipped rows (e < W-1): prefix min/max of in[0..e]. One block, chunks of its width, a block
 * scan per chunk with the carry in registers. Used by tiled.
 * ============================================================================================ */

template <class T, int THREADS>
__global__ void __launch_bounds__(THREADS)
    gs_mm_prefix_k(const T *in, uint64_t m, uint64_t first, uint64_t W, T *out, int only)
{
    constexpr int NW = THREADS / 32;
    __shared__ T s_mn[NW + 1], s_mx[NW + 1];
    const gs_op_min<T> omin;
    const gs_op_max<T> omax;
    const uint64_t end = W - 1 < m ? W - 1 : m; /* rows with e < end are clipped */
    const int warp = (int)(threadIdx.x >> 5), lane = (int)(threadIdx.x & 31);
    T cmn = omin.identity(), cmx = omax.identity();
    for (uint64_t c0 = 0; c0 < end; c0 += THREADS) {
        const uint64_t e = c0 + threadIdx.x;
        const T v = e < end ? in[e] : in[end - 1];
        T imn = gs_warp_scan_incl(v, omin), imx = gs_warp_scan_incl(v, omax);
        if (lane == 31) {
            s_mn[warp] = imn;
            s_mx[warp] = imx;
        }
        __syncthreads();
        T wmn = cmn, wmx = cmx; /* carry, then the warps before this one */
        for (int w = 0; w < warp; w++) {
            wmn = omin(wmn, s_mn[w]);
            wmx = omax(wmx, s_mx[w]);
        }
        imn = omin(wmn, imn);
        imx = omax(wmx, imx);
        if (e < end && e >= first) gs_mm_put(out, e - first, imn, imx, only);
        for (int w = warp; w < NW; w++) {
            wmn = omin(wmn, s_mn[w]);
            wmx = omax(wmx, s_mx[w]);
        }
        cmn = wmn; /* the same in every thread: carry op all warps */
        cmx = wmx;
        __syncthreads();
    }
}

/* ============================================================================================
 * tiled: sparse table by doubling
 * ============================================================================================ */

#define GS_TL_THREADS 256 /* the default: tiles of GS_TL_TILE = 1024 positions */
#define GS_TL_ITEMS 4    /* positions per thread in the shared-memory levels */
#define GS_TL_J 9        /* levels done in shared memory: spans up to 2^9 */
#define GS_TL_TILE(threads) ((threads) * GS_TL_ITEMS)
#define GS_TL_SPAN(threads) (GS_TL_TILE(threads) + (1 << GS_TL_J))
#define GS_TL_PER(threads) ((GS_TL_SPAN(threads) + (threads) - 1) / (threads))
static_assert(GS_TL_THREADS == GS_GRID_THREADS, "the registry's block_default for tiled (kernels_gpu.h)");

/* Levels 1..kA of the tile [i0, i0 + TILE) in shared memory; writes D_kA for i <= m - 2^kA.
 * Reads in[i0 .. i0 + TILE + 2^kA - 1), clamped at m-1. */
template <class T, int THREADS>
__global__ void __launch_bounds__(THREADS)
    gs_mm_tiled_smem_k(const T *in, uint64_t m, int kA, T *dmn, T *dmx)
{
    constexpr int TILE = GS_TL_TILE(THREADS), PER = GS_TL_PER(THREADS);
    __shared__ T a_mn[GS_TL_SPAN(THREADS)], a_mx[GS_TL_SPAN(THREADS)];
    const uint64_t i0 = (uint64_t)blockIdx.x * TILE;
    const int span = TILE + (1 << kA) - 1;
    for (int j = threadIdx.x; j < span; j += THREADS) {
        const uint64_t i = i0 + j < m ? i0 + j : m - 1;
        a_mn[j] = a_mx[j] = in[i];
    }
    for (int k = 0; k < kA; k++) {
        const int d = 1 << k, len = span - (2 << k) + 1; /* valid entries after this level */
        T vmn[PER], vmx[PER];
        __syncthreads();
#pragma unroll
        for (int q = 0; q < PER; q++) {
            const int j = threadIdx.x + q * THREADS;
            if (j < len) {
                vmn[q] = gs_min(a_mn[j], a_mn[j + d]);
                vmx[q] = gs_max(a_mx[j], a_mx[j + d]);
            }
        }
        __syncthreads();
#pragma unroll
        for (int q = 0; q < PER; q++) {
            const int j = threadIdx.x + q * THREADS;
            if (j < len) {
                a_mn[j] = vmn[q];
                a_mx[j] = vmx[q];
            }
        }
    }
    __syncthreads();
    const uint64_t valid = m - ((uint64_t)1 << kA) + 1; /* D_kA defined for i < valid */
    for (int j = threadIdx.x; j < TILE; j += THREADS)
        if (i0 + j < valid) {
            dmn[i0 + j] = a_mn[j];
            dmx[i0 + j] = a_mx[j];
        }
}

template <class T>
__global__ void gs_mm_tiled_level_k(const T *smn, const T *smx, T *dmn, T *dmx, uint64_t valid, uint64_t d)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < valid; i += (uint64_t)gridDim.x * blockDim.x) {
        dmn[i] = gs_min(smn[i], smn[i + d]);
        dmx[i] = gs_max(smx[i], smx[i + d]);
    }
}

/* rows with e >= W-1: op(D_K[e-W+1], D_K[e-2^K+1]) */
template <class T>
__global__ void gs_mm_tiled_answer_k(const T *dmn, const T *dmx, uint64_t m, uint64_t first, uint64_t W, int K,
                                     T *out, int only)
{
    const uint64_t e0 = first > W - 1 ? first : W - 1;
    const uint64_t span = (uint64_t)1 << K;
    for (uint64_t e = e0 + blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; e < m; e += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t s = e + 1 - W, s2 = e + 1 - span;
        gs_mm_put(out, e - first, gs_min(dmn[s], dmn[s2]), gs_max(dmx[s], dmx[s2]), only);
    }
}

extern "C" size_t gs_minmax_gpu_tiled_scratch(const gs_minmax_params *p, uint64_t m_max)
{
    return 4 * gs_align_up((size_t)(m_max + 1) * gs_type_size(p->type), 256);
}

template <class T, int THREADS>
static int mm_tiled_run(const gs_minmax_params *p, const T *in, uint64_t m, uint64_t first, T *out, void *scratch,
                        size_t scratch_bytes, cudaStream_t s, gs_status *st)
{
    const uint64_t W = p->window;
    if (first >= m) return GS_OK;
    if (first < W - 1) { /* clipped rows */
        gs_mm_prefix_k<T, THREADS><<<1, THREADS, 0, s>>>(in, m, first, W, out, p->only);
        GS_LAUNCH_CHECK(st);
    }
    if (m < W) return GS_OK; /* no whole window */
    const int K = gs_log2_floor(W);
    const size_t arr = gs_align_up((size_t)(m + 1) * sizeof(T), 256);
    GS_FORWARD(gs_check_scratch("minmax tiled", scratch_bytes, 4 * arr, st));
    char *scr = (char *)scratch;
    T *bmn[2] = {(T *)scr, (T *)(scr + 2 * arr)}, *bmx[2] = {(T *)(scr + arr), (T *)(scr + 3 * arr)};
    const int kA = K < GS_TL_J ? K : GS_TL_J;
    const uint64_t validA = m - ((uint64_t)1 << kA) + 1;
    gs_mm_tiled_smem_k<T, THREADS><<<(unsigned)gs_cdiv(validA, GS_TL_TILE(THREADS)), THREADS, 0, s>>>(in, m, kA, bmn[0],
                                                                                                   bmx[0]);
    GS_LAUNCH_CHECK(st);
    int cur = 0;
    for (int k = kA; k < K; k++) {
        const uint64_t valid = m - ((uint64_t)2 << k) + 1;
        gs_mm_tiled_level_k<T><<<gs_grid_for(valid, THREADS), THREADS, 0, s>>>(bmn[cur], bmx[cur], bmn[cur ^ 1],
                                                                          bmx[cur ^ 1], valid, (uint64_t)1 << k);
        GS_LAUNCH_CHECK(st);
        cur ^= 1;
    }
    const uint64_t e0 = first > W - 1 ? first : W - 1;
    gs_mm_tiled_answer_k<T><<<gs_grid_for(m - e0, THREADS), THREADS, 0, s>>>(bmn[cur], bmx[cur], m, first, W, K, out,
                                                                        p->only);
    GS_LAUNCH_CHECK(st);
    return GS_OK;
}

extern "C" int gs_minmax_gpu_tiled(const gs_minmax_params *p, const void *d_in, uint64_t m, uint64_t first, void *d_out,
                                   void *d_scratch, size_t scratch_bytes, void *stream, gs_status *st)
{
    return gs_dispatch_minmax(p, st, [&](auto t) -> int {
        typedef decltype(t) T;
        auto run = [&](auto threads) -> int {
            return mm_tiled_run<T, decltype(threads)::value>(p, (const T *)d_in, m, first, (T *)d_out, d_scratch,
                                                             scratch_bytes, gs_stream(stream), st);
        };
        if (!p->block) return run(std::integral_constant<int, GS_TL_THREADS>{});
        return gs_dispatch_block<GS_BUILT_BLOCKS(GS_BLOCKS_TPL)>("minmax tiled", p->block, st, run);
    });
}
