/* minmax_vhgw.cu - the default GPU sliding-window minimum and maximum: van Herk / Gil-Werman, O(1)
 * work per element, one pass; any of the six types, any W >= 1.
 * Chunked semantics of kernels.h: in[0..m) is halo + chunk; outputs for window ends e = first..m-1
 * over in[max(0, e-W+1) .. e]; row r = e - first; interleaved (min, max) rows with GS_MM_BOTH,
 * else one value per row; NaN propagates and -0.0 < +0.0 as on the CPU (ops.h).
 *
 * A block owns B = threads x items consecutive output rows; thread t owns rows [tC, tC+C). With G
 * the largest power of two <= W-1, rows fall in aligned groups of G, and the window of row i in
 * group g splits into three pieces, each inside the window:
 *   suffix  x[s .. start of the group's middle)  - a suffix scan, segmented by group
 *   middle  the W-1-G elements shared by every row of the group
 *   prefix  x[end of the middle .. e]            - a prefix scan, segmented by group
 * Two kernels over shared device helpers (gpu_vhgw.cuh: the pieces of a row's window, the store):
 *   gs_mm_vhgw_small_k  small W (W-1 <= B): the block loads [e0-W+1, e0+B) into shared memory once
 *           (cp.async: coalesced 4/8-byte copies, all in flight at once, conflict-free padded
 *           layout); groups inside a thread (GS = G <= C, one instantiation per G) scan serially
 *           in registers, groups across threads (GS = 0, C < G) by warp shuffles across threads
 *           when G <= 32C, through shared memory across warps beyond;
 *   gs_mm_vhgw_large_k  large W (W-1 > B): G = B (the whole block); the block loads its B prefix rows and the
 *           B+r start elements (recently read by an earlier block, so mostly L2 hits), publishes
 *           its prefix range's min/max, and takes the middle from the published min/max of the W/B
 *           blocks before it (tile = block index: blocks start in index order; halo ranges before
 *           `first` are reduced by extra blocks).
 * Outputs are staged in shared memory and written with coalesced, streaming 16-byte stores.
 * Positions before 0 read as in[0] and positions past m-1 as in[m-1]: duplicates never change a
 * min or max, so clipped windows need no special case. Floats are compared as order-preserving
 * integer keys (mm_keys: -0.0 < +0.0, NaN wins), keyed once in shared memory. W = 1 copies.
 *
 * Shapes by W: tuning.h (gs_minmax_vhgw_*cfg*; gs_minmax_gpu_vhgw_threads tells the registry).
 * make TUNING=1 also builds 64, 128 and 256 threads for p->block (each with its shape's items) and
 * the tune hook's shapes, among them persistent small-W blocks with two buffers (PERSIST; measured
 * slower, TUNING.md v2). */
#include "gpu_common.cuh"
#include "gpu_mem.cuh"
#include "gpu_vhgw.cuh"
#include "gpu_warp.cuh"
#include "kernels_gpu.h"

#include <stdio.h>
#include <string.h>

#include <algorithm>

#ifdef GS_TUNING
/* *resident = blocks of `kernel` that fit on the whole device at once (SMs x blocks per SM); also
 * raises the kernel's dynamic shared-memory limit to smem. */
template <class K> static int mm_resident_blocks(K kernel, int threads, size_t smem, int *resident, gs_status *st)
{
    int dev = 0, sms = 0, per = 0;
    GS_CUDA_CHECK(st, cudaGetDevice(&dev));
    GS_CUDA_CHECK(st, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    GS_CUDA_CHECK(st, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    GS_CUDA_CHECK(st, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kernel, threads, smem));
    if (per < 1)
        return gs_fail(st, GS_EDATA, "cuda: a block of %d threads with %zu bytes of shared memory does not fit",
                       threads, smem);
    *resident = per * (sms > 0 ? sms : 1);
    return GS_OK;
}
#endif

/* ============================================================================================
 * vhgw
 * ============================================================================================ */

/* Small W (W-1 <= B): the block loads its span in[e0-W+1, e0+B) once and finds every piece in it.
 * GS > 0: the row group size G (<= C) at compile time, groups inside a thread; GS == 0: C < G <= B,
 * groups span G/C threads (G at run time). PERSIST (make TUNING=1, measured slower): blocks loop
 * over tiles tile, tile + gridDim.x, ... with two buffers of a.stage elements, the next tile's
 * span copied into one while the other is computed. */
template <class T, int THREADS, int C, int GS, bool PERSIST>
__global__ void __launch_bounds__(THREADS, (mm_vhgw_minb<T, THREADS, C, GS, PERSIST>()))
    gs_mm_vhgw_small_k(const T *__restrict__ in_, T *out_, mm_vhgw_args a)
{
    typedef mm_keys<T> KT;
    typedef typename KT::K K;
    static_assert(sizeof(K) == sizeof(T), "keys have the width of the values");
    constexpr int B = THREADS * C;
    constexpr int LOGC = mm_ilog2(C);
    constexpr int NW = THREADS / 32;
    constexpr int V = 16 / (int)sizeof(T);
    static_assert((1 << LOGC) == C && C % V == 0 && GS >= 0 && GS <= C, "C: a power of two, whole vectors");
    const K *__restrict__ in = (const K *)in_;
    K *out = (K *)out_;
    extern __shared__ __align__(16) unsigned char gs_mm_smem[];
    K *const smem0 = (K *)gs_mm_smem;
    __shared__ K s_mn[NW], s_mx[NW];
    const gs_op_min<K> omin;
    const gs_op_max<K> omax;
    const int t = (int)threadIdx.x;
    const int64_t W = (int64_t)a.W;

    unsigned tile = blockIdx.x;
    if (PERSIST) {
        if (tile >= a.ntiles) return;
        mm_load<THREADS, LOGC>(smem0, in, (int64_t)(a.first + (uint64_t)tile * B) - W + 1, B + (int)W - 1, a.m);
        gs_cp_async_commit();
    }
    for (int it = 0;; it++) {
        K *const sm = PERSIST ? smem0 + (it & 1) * a.stage : smem0;
        const uint64_t r0 = (uint64_t)tile * B;
        const int64_t e0 = (int64_t)(a.first + r0);
        K *const yS = sm; /* the span; row i's prefix piece starts at yS[W-1 + i] */
        K midmn = omin.identity(), midmx = omax.identity();
        if (PERSIST) {
            const unsigned nt = tile + gridDim.x;
            if (nt < a.ntiles)
                mm_load<THREADS, LOGC>(smem0 + ((it & 1) ^ 1) * a.stage, in,
                                       (int64_t)(a.first + (uint64_t)nt * B) - W + 1, B + (int)W - 1, a.m);
            gs_cp_async_commit();
            gs_cp_async_wait<1>(); /* this tile's span (committed one iteration earlier) landed */
        } else {
            mm_load<THREADS, LOGC>(yS, in, e0 - W + 1, B + (int)W - 1, a.m);
            gs_cp_async_wait_all();
        }
        mm_keyify<THREADS, LOGC, KT>(yS, B + (int)W - 1);
        __syncthreads();
        const int row0 = t * C;

        K pmn[C], pmx[C];
        mm_prefix_piece<C, LOGC, GS, KT>(yS, (int)W - 1, row0, pmn, pmx);
        K smn = omin.identity(), smx = omax.identity(); /* suffix carry from the threads after this one */
        if (GS == 0) {
            const int GT = a.G / C;
            K tmn, tmx;
            mm_group_prefix<THREADS>(GT, pmn, pmx, s_mn, s_mx, &tmn, &tmx);
            mm_group_suffix<THREADS, C, LOGC, KT>(GT, yS, row0, s_mn, s_mx, &smn, &smx);
            /* middle of group g: y[(g+1)G .. gG+W-2]; each thread of the group folds the C elements
             * at y[row0 + G + c] that fall inside it */
            if (W - 1 > a.G) {
                const int gend = (row0 / a.G) * a.G + (int)W - 2; /* last index of the middle */
#pragma unroll
                for (int c = 0; c < C; c++) {
                    const int j = row0 + a.G + c;
                    if (j <= gend) {
                        const K v = GS_MM_AT(yS, j);
                        midmn = omin(midmn, v);
                        midmx = omax(midmx, KT::mx(v));
                    }
                }
                mm_seg_total<THREADS>(midmn, midmx, GT, s_mn, s_mx);
            }
        }
        mm_suffix_piece<C, LOGC, GS, KT>(yS, row0, W, smn, smx, midmn, midmx, pmn, pmx);
        mm_store_rows<THREADS, C, LOGC, KT>(sm, out, a.only, a.R, a.vec_out, t, r0, row0, pmn, pmx);
        if (!PERSIST) break;
        tile += gridDim.x;
        if (tile >= a.ntiles) break;
        __syncthreads(); /* this buffer is loaded again next iteration: everyone is done reading it */
    }
    if (PERSIST) gs_cp_async_wait_all();
}

/* Large W (W-1 > B): G = B, the whole block one group. The block loads its B prefix rows (P region)
 * and the B + rem start elements (S region; recently read by an earlier block, mostly L2 hits),
 * publishes its prefix range's min/max, and takes the middle from the published min/max of the
 * nfull tiles before it. Blocks start in index order (as CUB's single-pass kernels assume), so the
 * tiles a block waits for were started before it; the first h blocks reduce and publish the halo
 * ranges before `first`. */
template <class T, int THREADS, int C>
__global__ void __launch_bounds__(THREADS, (mm_vhgw_minb<T, THREADS, C, -1, false>()))
    gs_mm_vhgw_large_k(const T *__restrict__ in_, T *out_, mm_vhgw_args a)
{
    typedef mm_keys<T> KT;
    typedef typename KT::K K;
    static_assert(sizeof(K) == sizeof(T), "keys have the width of the values");
    constexpr int B = THREADS * C;
    constexpr int LOGC = mm_ilog2(C);
    constexpr int NW = THREADS / 32;
    constexpr int V = 16 / (int)sizeof(T);
    static_assert((1 << LOGC) == C && C % V == 0, "C: a power of two, whole vectors");
    const K *__restrict__ in = (const K *)in_;
    K *out = (K *)out_;
    extern __shared__ __align__(16) unsigned char gs_mm_smem[];
    K *const sm = (K *)gs_mm_smem;
    __shared__ K s_mn[NW], s_mx[NW];
    const gs_op_min<K> omin;
    const gs_op_max<K> omax;
    const int t = (int)threadIdx.x;
    const int64_t W = (int64_t)a.W;

    unsigned tile = blockIdx.x;
    if (tile < a.h) { /* halo range j = tile - h < 0: reduce and publish */
        const int64_t j = (int64_t)tile - (int64_t)a.h;
        const int64_t p0 = (int64_t)a.first + j * B + (int64_t)t * C;
        K vmn = omin.identity(), vmx = omax.identity();
        for (int c = 0; c < C; c++) { /* contiguous slice per thread: thread order = input order */
            const int64_t p = p0 + c;
            const K v = KT::key(in[p < 0 ? 0 : p >= (int64_t)a.m ? (int64_t)a.m - 1 : p]);
            vmn = omin(vmn, v);
            vmx = omax(vmx, KT::mx(v));
        }
        mm_seg_total<THREADS>(vmn, vmx, THREADS, s_mn, s_mx);
        if (t == 0) mm_publish(a, tile, vmn, vmx);
        return;
    }
    tile -= a.h;
    const uint64_t r0 = (uint64_t)tile * B;
    const int64_t e0 = (int64_t)(a.first + r0);
    K *const yS = sm, *const yP = sm + a.spoff;
    K midmn = omin.identity(), midmx = omax.identity();
    /* middle: each thread folds the published aggregates q = t*per2 + c, c < per2, of the nfull tiles
     * before this one, after this tile published its own, waiting for each (reading those already
     * published while this tile's loads were in flight measured slower: TUNING.md v2) */
    const int64_t per2 = (int64_t)((a.nfull + THREADS - 1) / THREADS);
    auto middle = [&]() {
        for (int64_t c = 0; c < per2; c++) {
            const int64_t q = (int64_t)t * per2 + c;
            if (q >= (int64_t)a.nfull) break;
            const int64_t j = (int64_t)tile - (int64_t)a.nfull + q + (int64_t)a.h; /* status index */
            K umn, umx;
            if (j < 0) { /* before the halo: in[0] */
                umn = KT::key(in[0]);
                umx = KT::mx(umn);
            } else {
                if (gs_ld_acquire_u32(&a.flag[j]) == 0) {
                    int spins = 0;
                    while (gs_ld_acquire_u32(&a.flag[j]) == 0)
                        if (++spins > 8) __nanosleep(64);
                }
                umn = __ldcg((const K *)a.aggmn + j);
                umx = __ldcg((const K *)a.aggmx + j);
            }
            midmn = omin(midmn, umn);
            midmx = omax(midmx, umx);
        }
    };
    mm_load<THREADS, LOGC>(yP, in, e0, B, a.m);
    mm_load<THREADS, LOGC>(yS, in, e0 - W + 1, B + (int)a.rem, a.m);
    gs_cp_async_wait_all();
    mm_keyify<THREADS, LOGC, KT>(yP, B);
    mm_keyify<THREADS, LOGC, KT>(yS, B + (int)a.rem);
    __syncthreads();
    const int row0 = t * C;

    K pmn[C], pmx[C];
    mm_prefix_piece<C, LOGC, -1, KT>(yP, 0, row0, pmn, pmx);
    K tmn, tmx, smn, smx;
    mm_group_prefix<THREADS>(THREADS, pmn, pmx, s_mn, s_mx, &tmn, &tmx);
    if (t == 0) mm_publish(a, (int64_t)tile + a.h, tmn, tmx);
    mm_group_suffix<THREADS, C, LOGC, KT>(THREADS, yS, row0, s_mn, s_mx, &smn, &smx);

    /* tail y[B .. B+rem) comes after every start row: fold it into the suffix carry */
    K vmn = omin.identity(), vmx = omax.identity();
    const int per = (int)((a.rem + THREADS - 1) / THREADS);
    for (int c = 0; c < per; c++) {
        const int j = B + t * per + c;
        if (j < B + (int)a.rem) {
            const K v = GS_MM_AT(yS, j);
            vmn = omin(vmn, v);
            vmx = omax(vmx, KT::mx(v));
        }
    }
    mm_seg_total<THREADS>(vmn, vmx, THREADS, s_mn, s_mx);
    smn = omin(smn, vmn);
    smx = omax(smx, vmx);

    middle(); /* the nfull tiles before this one */
    mm_seg_total<THREADS>(midmn, midmx, THREADS, s_mn, s_mx);

    mm_suffix_piece<C, LOGC, -1, KT>(yS, row0, W, smn, smx, midmn, midmx, pmn, pmx);
    mm_store_rows<THREADS, C, LOGC, KT>(sm, out, a.only, a.R, a.vec_out, t, r0, row0, pmn, pmx);
}
#undef GS_MM_AT

/* W = 1: every window is one element */
template <class T> __global__ void gs_mm_one_k(const T *in, uint64_t m, uint64_t first, T *out, int only)
{
    for (uint64_t r = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; first + r < m; r += (uint64_t)gridDim.x * blockDim.x) {
        const T v = in[first + r];
        gs_mm_put(out, r, v, v, only);
    }
}

/* block shapes: `lo` for windows with W-1 <= GS_MM_LO_W1 (groups of at most 16 rows, inside a
 * thread), `mid` for W-1 <= GS_MM_MID_W1, the other for the rest (all large windows) */
#define GS_MM_LO_W1 GS_MINMAX_VHGW_MID_LO
#define GS_MM_MID_W1 GS_MINMAX_VHGW_MID_HI
template <class T> struct mm_vhgw_cfg {
    static constexpr gs_tile_cfg c = sizeof(T) == 4 ? gs_minmax_vhgw_cfg4 : gs_minmax_vhgw_cfg8;
    static constexpr gs_tile_cfg lo = sizeof(T) == 4 ? gs_minmax_vhgw_lo_cfg4 : gs_minmax_vhgw_lo_cfg8;
    static constexpr gs_tile_cfg mid = sizeof(T) == 4 ? gs_minmax_vhgw_mid_cfg4 : gs_minmax_vhgw_mid_cfg8;
    static constexpr int B = c.threads * c.items;
    static constexpr int Blo = lo.threads * lo.items;
    static constexpr int Bmid = mid.threads * mid.items;
    static_assert(lo.items >= GS_MM_LO_W1, "lo: the groups of W-1 <= GS_MM_LO_W1 fit in a thread");
};

static size_t mm_vhgw_bytes(uint64_t tiles)
{
    return 256 + gs_align_up((size_t)tiles * 4, 256) + 2 * gs_align_up((size_t)tiles * 8, 256);
}
template <class T, int THREADS, int ITEMS, int GS, bool PERSIST>
static int mm_vhgw_launch(const T *in, T *out, const mm_vhgw_args &a, unsigned grid, size_t smem, cudaStream_t s,
                          gs_status *st)
{
    auto kernel = [] {
        if constexpr (GS < 0) return gs_mm_vhgw_large_k<T, THREADS, ITEMS>;
        else return gs_mm_vhgw_small_k<T, THREADS, ITEMS, GS, PERSIST>;
    }();
#ifdef GS_TUNING
    if constexpr (PERSIST) { /* as many blocks as fit (their shared memory depends on W) */
        int resident = 0;
        GS_FORWARD(mm_resident_blocks(kernel, THREADS, smem, &resident, st));
        if ((unsigned)resident < grid) grid = (unsigned)resident;
    } else
#endif
    {
        GS_CUDA_CHECK(st, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        if (GS <= 0) /* groups across threads: the largest carveout (gs_minmax_vhgw_wide_minb4) */
            GS_CUDA_CHECK(st, cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
    }
    kernel<<<grid, THREADS, smem, s>>>(in, out, a);
    GS_LAUNCH_CHECK(st);
    return GS_OK;
}

/* group sizes G <= ITEMS get their own kernel (the in-thread segment boundaries at compile time) */
template <class T, int THREADS, int ITEMS, int GS, bool PERSIST>
static int mm_vhgw_small(int G, const T *in, T *out, const mm_vhgw_args &a, unsigned grid, size_t smem,
                         cudaStream_t s, gs_status *st)
{
    if constexpr (GS > ITEMS) {
        return gs_fail(st, GS_EDATA, "minmax vhgw: group size %d", G);
    } else {
        if (G == GS) return mm_vhgw_launch<T, THREADS, ITEMS, GS, PERSIST>(in, out, a, grid, smem, s, st);
        return mm_vhgw_small<T, THREADS, ITEMS, 2 * GS, PERSIST>(G, in, out, a, grid, smem, s, st);
    }
}

/* shared-memory elements for a region of len logical elements loaded by mm_load */
static size_t mm_region(size_t len, int V, int LOGC) { return len + 2 * V + ((len + 2 * V) >> LOGC); }

__host__ __device__ constexpr uint64_t mm_pow2_floor(uint64_t x) { return x <= 1 ? 1 : 2 * mm_pow2_floor(x / 2); }

/* W1LO <= W-1 <= W1HI: the windows the caller sends to this shape. Only the kernels those windows
 * reach are built (the group sizes G = 2^floor(log2(W-1)) <= ITEMS from the smallest up, groups
 * across threads once G > ITEMS, the large path once W-1 > B): a build with the three default
 * shapes, the block-size overrides and the tune hook, each bounded to its windows, stays short. */
template <class T, int THREADS, int ITEMS, bool PERSIST = false, uint64_t W1LO = 1, uint64_t W1HI = ~0ull>
static int mm_vhgw_run(const gs_minmax_params *p, const T *in, uint64_t m, uint64_t first, T *out, void *scratch,
                       size_t bytes, cudaStream_t s, gs_status *st)
{
    constexpr int B = THREADS * ITEMS, LOGC = mm_ilog2(ITEMS), V = 16 / (int)sizeof(T);
    const uint64_t W = p->window;
    if (first >= m) return GS_OK;
    if (W == 1) {
        const int t1 = p->block ? p->block : GS_GRID_THREADS; /* a grid-stride kernel */
        gs_mm_one_k<T><<<gs_grid_for(m - first, t1), t1, 0, s>>>(in, m, first, out, p->only);
        GS_LAUNCH_CHECK(st);
        return GS_OK;
    }
    mm_vhgw_args a;
    memset(&a, 0, sizeof a);
    a.m = m;
    a.first = first;
    a.W = W;
    a.R = m - first;
    a.only = p->only;
    a.vec_out = gs_aligned16(out);
    const bool large = W - 1 > (uint64_t)B;
    const uint64_t ntiles = gs_cdiv(a.R, B);
    if (ntiles > 0x3fffffffull) return gs_fail(st, GS_EUSAGE, "minmax vhgw: %llu rows is too many", (unsigned long long)a.R);
    a.ntiles = (unsigned)ntiles;
    size_t smem = (size_t)2 * B + THREADS + 8; /* the output staging */
    unsigned grid = (unsigned)ntiles;
    if (!large) {
        a.G = 1 << gs_log2_floor(W - 1);
        smem = std::max(smem, mm_region(B + W - 1, V, LOGC));
        if (PERSIST) { /* two buffers, each for a span and then the staging of its rows */
            a.stage = (int)gs_align_up(smem, 4);
            smem = 2 * (size_t)a.stage;
        }
    } else {
        a.G = B;
        const uint64_t D = W - 1 - B;
        a.nfull = D / B;
        a.rem = D % B;
        a.h = (unsigned)gs_cdiv(first < W ? first : W, B); /* tiles further back are never asked for */
        a.spoff = (int)gs_align_up(mm_region(B + a.rem, V, LOGC), 4);
        smem = std::max(smem, (size_t)a.spoff + mm_region(B, V, LOGC));
        const size_t nt = ntiles + a.h;
        GS_FORWARD(gs_check_scratch("minmax vhgw", bytes, mm_vhgw_bytes(nt), st));
        char *scr = (char *)scratch;
        a.flag = (unsigned *)(scr + 256);
        a.aggmn = scr + 256 + gs_align_up(nt * 4, 256);
        a.aggmx = (char *)a.aggmn + gs_align_up(nt * 8, 256);
        GS_CUDA_CHECK(st, cudaMemsetAsync(scratch, 0, 256 + gs_align_up(nt * 4, 256), s));
        grid += a.h;
    }
    smem *= sizeof(T);
    constexpr uint64_t GMIN = mm_pow2_floor(W1LO);
    if (W - 1 < W1LO || W - 1 > W1HI)
        return gs_fail(st, GS_EDATA, "minmax vhgw: window %llu is outside this shape's", (unsigned long long)W);
    if constexpr (W1HI > (uint64_t)B)
        if (large) return mm_vhgw_launch<T, THREADS, ITEMS, -1, false>(in, out, a, grid, smem, s, st);
    if constexpr (W1HI >= 2 * (uint64_t)ITEMS)
        if (a.G > ITEMS) return mm_vhgw_launch<T, THREADS, ITEMS, 0, PERSIST>(in, out, a, grid, smem, s, st);
    if constexpr (GMIN <= (uint64_t)ITEMS)
        return mm_vhgw_small<T, THREADS, ITEMS, (int)GMIN, PERSIST>(a.G, in, out, a, grid, smem, s, st);
    return gs_fail(st, GS_EDATA, "minmax vhgw: group size %d", a.G);
}

extern "C" size_t gs_minmax_gpu_vhgw_scratch(const gs_minmax_params *p, uint64_t m_max)
{
    const bool four = gs_type_size(p->type) == 4;
    const gs_tile_cfg c = four ? mm_vhgw_cfg<int32_t>::c : mm_vhgw_cfg<int64_t>::c;
    const gs_tile_cfg lo = four ? mm_vhgw_cfg<int32_t>::lo : mm_vhgw_cfg<int64_t>::lo;
    const gs_tile_cfg mid = four ? mm_vhgw_cfg<int32_t>::mid : mm_vhgw_cfg<int64_t>::mid;
    const int B = std::min({(p->block ? p->block : c.threads) * c.items, (p->block ? p->block : lo.threads) * lo.items,
                            (p->block ? p->block : mid.threads) * mid.items});
    /* Any first in [0, m_max]: output tiles plus look-back tiles never exceed both at their most. */
    const uint64_t W = p->window;
    return mm_vhgw_bytes(gs_cdiv(m_max, B) + gs_cdiv(m_max < W ? m_max : W, B) + 2);
}

extern "C" int gs_minmax_gpu_vhgw_threads(const gs_minmax_params *p)
{
    if (p->window <= 1) return GS_GRID_THREADS; /* gs_mm_one_k */
    const bool four = gs_type_size(p->type) == 4;
    if (p->window - 1 <= GS_MM_LO_W1) return four ? mm_vhgw_cfg<int32_t>::lo.threads : mm_vhgw_cfg<int64_t>::lo.threads;
    if (p->window - 1 <= GS_MM_MID_W1)
        return four ? mm_vhgw_cfg<int32_t>::mid.threads : mm_vhgw_cfg<int64_t>::mid.threads;
    return four ? mm_vhgw_cfg<int32_t>::c.threads : mm_vhgw_cfg<int64_t>::c.threads;
}

extern "C" int gs_minmax_gpu_vhgw(const gs_minmax_params *p, const void *d_in, uint64_t m, uint64_t first, void *d_out,
                                  void *d_scratch, size_t scratch_bytes, void *stream, gs_status *st)
{
    return gs_dispatch_minmax(p, st, [&](auto t) -> int {
        typedef decltype(t) T;
        typedef mm_vhgw_cfg<T> C;
        const T *in = (const T *)d_in;
        T *out = (T *)d_out;
        const cudaStream_t s = gs_stream(stream);
        if (p->window - 1 <= GS_MM_LO_W1) {
            if (!p->block)
                return mm_vhgw_run<T, C::lo.threads, C::lo.items, false, 1, GS_MM_LO_W1>(p, in, m, first, out, d_scratch,
                                                                                         scratch_bytes, s, st);
            return gs_dispatch_block<GS_BUILT_BLOCKS(GS_VHGW_BLOCKS_ALL)>("minmax vhgw", p->block, st, [&](auto threads) -> int {
                return mm_vhgw_run<T, decltype(threads)::value, C::lo.items, false, 1, GS_MM_LO_W1>(
                    p, in, m, first, out, d_scratch, scratch_bytes, s, st);
            });
        }
        /* 16 < W-1 <= GS_MM_MID_W1: the mid shape by default; an override keeps the other's items
         * (the same for 8-byte types; 32 for 4-byte, as mid) */
        if (!p->block && p->window - 1 <= GS_MM_MID_W1)
            return mm_vhgw_run<T, C::mid.threads, C::mid.items, false, GS_MM_LO_W1 + 1, GS_MM_MID_W1>(
                p, in, m, first, out, d_scratch, scratch_bytes, s, st);
        if (!p->block)
            return mm_vhgw_run<T, C::c.threads, C::c.items, false, GS_MM_MID_W1 + 1>(p, in, m, first, out, d_scratch,
                                                                                     scratch_bytes, s, st);
        return gs_dispatch_block<GS_BUILT_BLOCKS(GS_VHGW_BLOCKS_ALL)>("minmax vhgw", p->block, st, [&](auto threads) -> int {
            return mm_vhgw_run<T, decltype(threads)::value, C::c.items, false, GS_MM_LO_W1 + 1>(
                p, in, m, first, out, d_scratch, scratch_bytes, s, st);
        });
    });
}

#ifdef GS_TUNING
/* Other block shapes for i32 and f64 (tests/gpu --bench measures them; the best become
 * gs_minmax_vhgw_*cfg*). Not part of the registry. Scratch: gs_minmax_gpu_vhgw_scratch x 4. */
template <class T>
static int mm_vhgw_tune(int k, char *desc, size_t dlen, const gs_minmax_params *p, const T *in, uint64_t m,
                        uint64_t first, T *out, void *scratch, size_t bytes, cudaStream_t s, gs_status *st)
{
#define GS_TUNE(K, TH, IT, PE)                                                                               \
    case K:                                                                                                  \
        snprintf(desc, dlen, "%dx%d%s", TH, IT, PE ? "p" : "");                                              \
        return mm_vhgw_run<T, TH, IT, PE>(p, in, m, first, out, scratch, bytes, s, st);
    if constexpr (sizeof(T) == 4) {
        switch (k) {
            GS_TUNE(0, 128, 16, false)
            GS_TUNE(1, 256, 16, false)
            GS_TUNE(2, 128, 32, false)
            GS_TUNE(3, 64, 32, false)
            GS_TUNE(4, 128, 16, true)
            GS_TUNE(5, 128, 32, true)
            GS_TUNE(6, 256, 16, true)
            GS_TUNE(7, 64, 32, true)
        default: return GS_EUSAGE;
        }
    } else {
        switch (k) {
            GS_TUNE(0, 256, 8, false)
            GS_TUNE(1, 128, 8, false)
            GS_TUNE(2, 128, 16, false)
            GS_TUNE(3, 256, 16, false)
            GS_TUNE(4, 128, 16, true)
            GS_TUNE(5, 128, 8, true)
        default: return GS_EUSAGE;
        }
    }
#undef GS_TUNE
}

extern "C" int gs_minmax_gpu_vhgw_tune(int k, char *desc, size_t dlen, const gs_minmax_params *p, const void *d_in,
                                       uint64_t m, uint64_t first, void *d_out, void *d_scratch, size_t scratch_bytes,
                                       void *stream, gs_status *st)
{
    const cudaStream_t s = gs_stream(stream);
    if (p->type == GS_I32)
        return mm_vhgw_tune<int32_t>(k, desc, dlen, p, (const int32_t *)d_in, m, first, (int32_t *)d_out, d_scratch,
                                     scratch_bytes, s, st);
    if (p->type == GS_F64)
        return mm_vhgw_tune<double>(k, desc, dlen, p, (const double *)d_in, m, first, (double *)d_out, d_scratch,
                                    scratch_bytes, s, st);
    return GS_EUSAGE;
}
#endif
