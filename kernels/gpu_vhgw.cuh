/* gpu_vhgw.cuh - the device helpers of the van Herk / Gil-Werman sliding-window minimum and maximum
 * (minmax_vhgw.cu): segmented min/max scans across threads, the cp.async span load, order-preserving
 * integer keys, the pieces of a row's window (prefix, suffix, middle), the staged coalesced store,
 * and the kernels' launch bounds. GS_MM_AT (padded shared-memory indexing) stays defined for the
 * kernels; minmax_vhgw.cu undefines it after them. */
#ifndef GS_GPU_VHGW_CUH
#define GS_GPU_VHGW_CUH

#include "gpu_common.cuh"
#include "gpu_mem.cuh"
#include "gpu_warp.cuh"
#include "kernels_gpu.h"


/* ---- vhgw helpers ------------------------------------------------------------------------------
 * Segmented scans across threads: groups of GT consecutive threads (GT a power of two,
 * 2 <= GT <= THREADS), min and max together. Every thread of the block calls (barriers when
 * GT > 32). Order-preserving: the left operand is always the earlier element. */

/* (mn, mx) become the exclusive prefix within the group; (*tmn, *tmx) the group total. */
template <int THREADS, class T>
GS_DEV void mm_seg_prefix(T &mn, T &mx, int GT, T *s_mn, T *s_mx, T *tmn, T *tmx)
{
    const gs_op_min<T> omin;
    const gs_op_max<T> omax;
    const int lane = (int)(threadIdx.x & 31), warp = (int)(threadIdx.x >> 5);
    const int w = GT < 32 ? GT : 32;
    const T imn = gs_warp_scan_incl(mn, omin, w), imx = gs_warp_scan_incl(mx, omax, w);
    T emn = __shfl_up_sync(GS_FULL_MASK, imn, 1, w), emx = __shfl_up_sync(GS_FULL_MASK, imx, 1, w);
    if ((lane & (w - 1)) == 0) {
        emn = omin.identity();
        emx = omax.identity();
    }
    T amn = __shfl_sync(GS_FULL_MASK, imn, w - 1, w), amx = __shfl_sync(GS_FULL_MASK, imx, w - 1, w);
    if (GT > 32) {
        if (lane == 31) {
            s_mn[warp] = imn;
            s_mx[warp] = imx;
        }
        __syncthreads();
        const int wg = GT >> 5, g0 = warp & ~(wg - 1);
        T bmn = omin.identity(), bmx = omax.identity();
        amn = omin.identity();
        amx = omax.identity();
        for (int q = g0; q < g0 + wg; q++) {
            const T u = s_mn[q], x = s_mx[q];
            if (q < warp) {
                bmn = omin(bmn, u);
                bmx = omax(bmx, x);
            }
            amn = omin(amn, u);
            amx = omax(amx, x);
        }
        __syncthreads();
        emn = omin(bmn, emn);
        emx = omax(bmx, emx);
    }
    mn = emn;
    mx = emx;
    *tmn = amn;
    *tmx = amx;
}

/* (mn, mx) become the exclusive suffix within the group (the threads after this one). */
template <int THREADS, class T> GS_DEV void mm_seg_suffix(T &mn, T &mx, int GT, T *s_mn, T *s_mx)
{
    const gs_op_min<T> omin;
    const gs_op_max<T> omax;
    const int lane = (int)(threadIdx.x & 31), warp = (int)(threadIdx.x >> 5);
    const int w = GT < 32 ? GT : 32;
    const T imn = gs_warp_suffix_incl(mn, omin, w), imx = gs_warp_suffix_incl(mx, omax, w);
    T emn = __shfl_down_sync(GS_FULL_MASK, imn, 1, w), emx = __shfl_down_sync(GS_FULL_MASK, imx, 1, w);
    if ((lane & (w - 1)) == w - 1) {
        emn = omin.identity();
        emx = omax.identity();
    }
    if (GT > 32) {
        if (lane == 0) {
            s_mn[warp] = imn;
            s_mx[warp] = imx;
        }
        __syncthreads();
        const int wg = GT >> 5, g0 = warp & ~(wg - 1);
        T fmn = omin.identity(), fmx = omax.identity();
        for (int q = warp + 1; q < g0 + wg; q++) {
            fmn = omin(fmn, s_mn[q]);
            fmx = omax(fmx, s_mx[q]);
        }
        __syncthreads();
        emn = omin(emn, fmn);
        emx = omax(emx, fmx);
    }
    mn = emn;
    mx = emx;
}

/* (mn, mx) become the group total, in every thread of the group (butterfly, then warps). */
template <int THREADS, class T> GS_DEV void mm_seg_total(T &mn, T &mx, int GT, T *s_mn, T *s_mx)
{
    const gs_op_min<T> omin;
    const gs_op_max<T> omax;
    const int lane = (int)(threadIdx.x & 31), warp = (int)(threadIdx.x >> 5);
    const int w = GT < 32 ? GT : 32;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        if (d >= w) break;
        const T u = __shfl_xor_sync(GS_FULL_MASK, mn, d, w), x = __shfl_xor_sync(GS_FULL_MASK, mx, d, w);
        const bool hi = (lane & d) != 0; /* the partner is earlier */
        mn = hi ? omin(u, mn) : omin(mn, u);
        mx = hi ? omax(x, mx) : omax(mx, x);
    }
    if (GT > 32) {
        if (lane == 0) {
            s_mn[warp] = mn;
            s_mx[warp] = mx;
        }
        __syncthreads();
        const int wg = GT >> 5, g0 = warp & ~(wg - 1);
        mn = s_mn[g0];
        mx = s_mx[g0];
        for (int q = g0 + 1; q < g0 + wg; q++) {
            mn = omin(mn, s_mn[q]);
            mx = omax(mx, s_mx[q]);
        }
        __syncthreads();
    }
}

/* Starts copying in[clamp(pos0 + j)] for j in [0, len) into dst at padded index j + (j >> LOGC)
 * (positions before 0 read in[0], past m-1 read in[m-1]), one element per cp.async: coalesced 4- or
 * 8-byte copies straight into shared memory, all of them in flight at once (the 16-byte vector
 * loads this replaced went one at a time through registers, about 4 KB in flight per block). The
 * caller waits (gs_cp_async_wait_all) and converts its own elements (mm_keyify) before the barrier. */
template <int THREADS, int LOGC, class K> GS_DEV void mm_load(K *dst, const K *in, int64_t pos0, int len, uint64_t m)
{
    const int64_t last = (int64_t)m - 1;
    static_assert(THREADS % (1 << LOGC) == 0, "a step of THREADS elements moves whole padded runs");
    if (pos0 >= 0 && pos0 + len - 1 <= last) {
        /* the whole span is inside the input (all tiles but the first and last): no clamps, and
         * the source pointer and the shared-memory address just step (the kernel is ALU-bound) */
        constexpr unsigned DSTEP = (unsigned)((THREADS + (THREADS >> LOGC)) * sizeof(K));
        const K *src = in + pos0 + threadIdx.x;
        unsigned d = gs_smem_u32(dst + threadIdx.x + (threadIdx.x >> LOGC));
#pragma unroll 4
        for (int j = threadIdx.x; j < len; j += THREADS, src += THREADS, d += DSTEP)
            gs_cp_async_small_s<sizeof(K)>(d, src);
        return;
    }
#pragma unroll 4
    for (int j = threadIdx.x; j < len; j += THREADS) {
        const int64_t p = pos0 + j;
        gs_cp_async_small<sizeof(K)>(dst + j + (j >> LOGC), in + (p < 0 ? 0 : p > last ? last : p));
    }
}

/* Order-preserving integer keys (as kernels/minmax_cpu.c): min and max become integer min and max.
 * key(x): the IEEE bits with the magnitude flipped for negative numbers, so keys order as signed
 * integers with -0.0 just below +0.0; every NaN maps to the lowest key (it wins every min). The max
 * chain takes mx(key), which moves NaN to the highest key. val() maps a key back to the value's
 * bits; the extreme keys come back as NaNs (0xff.. / 0x7f..; payloads are not kept). Integers are
 * their own keys. */
template <class T> struct mm_keys {
    typedef T K;
    static constexpr bool conv = false;
    static GS_DEV K key(K raw) { return raw; }
    static GS_DEV K mx(K k) { return k; }
    static GS_DEV K val(K k) { return k; }
};
template <> struct mm_keys<float> {
    typedef int32_t K;
    static constexpr bool conv = true;
    static GS_DEV K key(K b)
    {
        const K k = b ^ (K)((uint32_t)(b >> 31) >> 1); /* negative: flip the 31 magnitude bits */
        return (b & 0x7fffffff) > 0x7f800000 ? INT32_MIN : k;
    }
    static GS_DEV K mx(K k) { return k == INT32_MIN ? INT32_MAX : k; }
    static GS_DEV K val(K k) { return k ^ (K)((uint32_t)(k >> 31) >> 1); }
};
template <> struct mm_keys<double> {
    typedef int64_t K;
    static constexpr bool conv = true;
    static GS_DEV K key(K b)
    {
        const K k = b ^ (K)((uint64_t)(b >> 63) >> 1);
        return (b & 0x7fffffffffffffffll) > 0x7ff0000000000000ll ? INT64_MIN : k;
    }
    static GS_DEV K mx(K k) { return k == INT64_MIN ? INT64_MAX : k; }
    static GS_DEV K val(K k) { return k ^ (K)((uint64_t)(k >> 63) >> 1); }
};

/* The calling thread's elements of an mm_load region (after its copies landed): raw bits -> keys. */
template <int THREADS, int LOGC, class KT, class K> GS_DEV void mm_keyify(K *dst, int len)
{
    if constexpr (KT::conv) {
        constexpr int STEP = THREADS + (THREADS >> LOGC); /* THREADS is a multiple of the run (mm_load) */
        K *q = dst + threadIdx.x + (threadIdx.x >> LOGC);
#pragma unroll 4
        for (int j = threadIdx.x; j < len; j += THREADS, q += STEP) *q = KT::key(*q);
    }
}

__host__ __device__ constexpr int mm_ilog2(int x) { return x <= 1 ? 0 : 1 + mm_ilog2(x / 2); }

struct mm_vhgw_args {
    uint64_t m, first, W, R;
    int only, vec_out;
    int G;               /* group size in rows (power of two) */
    unsigned h;          /* large: halo tiles before tile 0 */
    uint64_t nfull, rem; /* large: whole tiles and leftover elements in the middle */
    unsigned ntiles;
    int spoff;           /* large: offset of the P region in shared memory (elements) */
    int stage;           /* persistent (small W): elements per buffer */
    unsigned *flag;
    void *aggmn, *aggmx;
};

/* Tile aggregates (large W): tile j >= -h is published at index j + h. */
template <class T> GS_DEV void mm_publish(const mm_vhgw_args &a, int64_t idx, T mn, T mx)
{
    ((T *)a.aggmn)[idx] = mn;
    ((T *)a.aggmx)[idx] = mx;
    gs_st_release_u32(&a.flag[idx], 1u);
}

/* The two kernels work on keys K (mm_keys<T>): values loaded as raw bits, keyified once in shared
 * memory, every min/max an integer one, results mapped back to values when staged for the store.
 * Shared memory: an S region (a row's suffix and middle pieces read the window starts from it)
 * and a P region (its prefix piece), both padded by one slot per run of C (mm_load). The pieces
 * of a row's window below are shared by both kernels; each keeps its fold order (left operand the
 * earlier element). */
#define GS_MM_AT(y, j) (y)[(j) + ((j) >> LOGC)]

/* prefix piece: thread t's C rows from yP[pOff + row0 ..], an inclusive prefix restarted at every
 * in-thread group of GS rows (GS > 0) or running through all C (GS <= 0) */
template <int C, int LOGC, int GS, class KT, class K>
GS_DEV void mm_prefix_piece(const K *yP, int pOff, int row0, K (&pmn)[C], K (&pmx)[C])
{
    const gs_op_min<K> omin;
    const gs_op_max<K> omax;
#pragma unroll
    for (int c = 0; c < C; c++) {
        const K v = GS_MM_AT(yP, pOff + row0 + c), vx = KT::mx(v);
        if (c == 0 || (GS > 0 && c % (GS > 0 ? GS : 1) == 0)) {
            pmn[c] = v;
            pmx[c] = vx;
        } else {
            pmn[c] = omin(pmn[c ? c - 1 : 0], v);
            pmx[c] = omax(pmx[c ? c - 1 : 0], vx);
        }
    }
}

/* groups of GT threads: the prefix pieces get the rows of the group's threads before this one;
 * (*tmn, *tmx) the group total */
template <int THREADS, int C, class K>
GS_DEV void mm_group_prefix(int GT, K (&pmn)[C], K (&pmx)[C], K *s_mn, K *s_mx, K *tmn, K *tmx)
{
    const gs_op_min<K> omin;
    const gs_op_max<K> omax;
    K emn = pmn[C - 1], emx = pmx[C - 1];
    mm_seg_prefix<THREADS>(emn, emx, GT, s_mn, s_mx, tmn, tmx);
#pragma unroll
    for (int c = 0; c < C; c++) {
        pmn[c] = omin(emn, pmn[c]);
        pmx[c] = omax(emx, pmx[c]);
    }
}

/* groups of GT threads: (*smn, *smx) = the suffix carry, this thread's start elements scanned from
 * the right across the group (the threads after this one) */
template <int THREADS, int C, int LOGC, class KT, class K>
GS_DEV void mm_group_suffix(int GT, const K *yS, int row0, K *s_mn, K *s_mx, K *smn, K *smx)
{
    const gs_op_min<K> omin;
    const gs_op_max<K> omax;
    K vmn = GS_MM_AT(yS, row0), vmx = KT::mx(vmn);
#pragma unroll
    for (int c = 1; c < C; c++) {
        const K v = GS_MM_AT(yS, row0 + c);
        vmn = omin(vmn, v);
        vmx = omax(vmx, KT::mx(v));
    }
    mm_seg_suffix<THREADS>(vmn, vmx, GT, s_mn, s_mx);
    *smn = vmn;
    *smx = vmx;
}

/* suffix piece, backwards, and the rows: each row = op(suffix from smn/smx, middle, prefix). With
 * GS > 0 each in-thread group restarts the suffix and folds its own middle y[g0+G .. g0+W-2]. */
template <int C, int LOGC, int GS, class KT, class K>
GS_DEV void mm_suffix_piece(const K *yS, int row0, int64_t W, K smn, K smx, K midmn, K midmx, K (&pmn)[C],
                            K (&pmx)[C])
{
    const gs_op_min<K> omin;
    const gs_op_max<K> omax;
    K accmn = smn, accmx = smx;
#pragma unroll
    for (int c = C - 1; c >= 0; c--) {
        const int j = row0 + c;
        const K v = GS_MM_AT(yS, j), vx = KT::mx(v);
        if (GS > 0 && (c + 1) % (GS > 0 ? GS : 1) == 0) { /* last row of an in-thread group */
            accmn = v;
            accmx = vx;
            midmn = omin.identity();
            midmx = omax.identity();
            /* this group's middle: y[g0+G .. g0+W-2], fewer than G elements */
            const int g0 = j + 1 - GS;
            for (int q = g0 + GS; q <= g0 + (int)W - 2; q++) {
                const K u = GS_MM_AT(yS, q);
                midmn = omin(midmn, u);
                midmx = omax(midmx, KT::mx(u));
            }
        } else {
            accmn = omin(v, accmn);
            accmx = omax(vx, accmx);
        }
        pmn[c] = omin(omin(accmn, midmn), pmn[c]);
        pmx[c] = omax(omax(accmx, midmx), pmx[c]);
    }
}

/* the rows (as values) staged in shared memory sm, then coalesced streaming 16-byte stores */
template <int THREADS, int C, int LOGC, class KT, class K>
GS_DEV void mm_store_rows(K *sm, K *out, int only, uint64_t R, int vec_out, int t, uint64_t r0, int row0,
                          const K (&pmn)[C], const K (&pmx)[C])
{
    constexpr int B = THREADS * C;
    constexpr int V = 16 / (int)sizeof(K);
    const int cols = only == GS_MM_BOTH ? 2 : 1;
    const int LOGS = LOGC + (cols == 2 ? 1 : 0); /* one pad slot per thread's run of values */
    __syncthreads();
    if (cols == 2) {
        K *o = sm + 2 * row0 + t; /* (2 row0) >> LOGS == t */
#pragma unroll
        for (int c = 0; c < C; c++) {
            o[2 * c] = KT::val(pmn[c]);
            o[2 * c + 1] = KT::val(pmx[c]);
        }
    } else {
        const bool wmin = only == GS_MM_MIN;
        K *o = sm + row0 + t;
#pragma unroll
        for (int c = 0; c < C; c++) o[c] = KT::val(wmin ? pmn[c] : pmx[c]);
    }
    __syncthreads();
    const uint64_t nrows = R - r0 < (uint64_t)B ? R - r0 : (uint64_t)B;
    const int nval = (int)nrows * cols;
    K *o = out + r0 * cols;
    if (nrows == (uint64_t)B && vec_out) {
        for (int q = t * V; q < nval; q += THREADS * V) {
            const K *sq = sm + q + (q >> LOGS); /* a vector never straddles a pad slot */
            gs_vec16<K> w;
#pragma unroll
            for (int k = 0; k < V; k++) w.v[k] = sq[k];
            gs_st_vec_cs(o + q, w);
        }
    } else {
        for (int q = t; q < nval; q += THREADS) o[q] = sm[q + (q >> LOGS)];
    }
}

/* persistent blocks per SM that two buffers of (at least) the row staging allow: the register cap */
__host__ __device__ constexpr int mm_persist_fit(int threads, int c, int size)
{
    return 200 * 1024 / (2 * (2 * threads * c + threads) * size);
}
__host__ __device__ constexpr int mm_persist_blocks(int threads, int c, int size)
{
    return mm_persist_fit(threads, c, size) < 2   ? 2
           : mm_persist_fit(threads, c, size) > 8 ? 8
                                                  : mm_persist_fit(threads, c, size);
}
/* blocks per SM the registers are capped for (tuning.h); GS <= 0: groups across threads */
template <class T, int THREADS, int C, int GS, bool PERSIST> __host__ __device__ constexpr int mm_vhgw_minb()
{
    if (PERSIST) return mm_persist_blocks(THREADS, C, (int)sizeof(T));
    if (GS <= 0 && THREADS == gs_minmax_vhgw_cfg4.threads && C == gs_minmax_vhgw_cfg4.items && sizeof(T) == 4)
        return gs_minmax_vhgw_wide_minb4;
    return GS_MIN_BLOCKS(THREADS, 40 + C * (int)sizeof(T) / 4 * 3 / 2);
}

#endif
