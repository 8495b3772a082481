/* gpu_warp.cuh - thread -> warp shuffle -> block: the scans and reductions the kernels share.
 *
 *   gs_warp_scan_incl / gs_warp_suffix_incl   inclusive prefix / suffix over groups of lanes
 *   gs_warp_reduce / gs_warp_allreduce        fold of a warp (REDUX for 32-bit integers)
 *   gs_warp_fold_from                         fold of lanes [start, 32), fixed order
 *   gs_block_scan_warp_totals                 exclusive scan of one value per warp */
#ifndef GS_GPU_WARP_CUH
#define GS_GPU_WARP_CUH

#include "gpu_common.cuh"

/* ---- warp level ---------------------------------------------------------------------------- */
#define GS_FULL_MASK 0xffffffffu

GS_DEV unsigned gs_lane() { return threadIdx.x & 31u; }
GS_DEV unsigned gs_lanemask_lt() { return (1u << gs_lane()) - 1u; }

/* Inclusive scan over lanes of groups of `width` lanes (a power of two <= 32): lane l gets
 * op(v[g0], ..., v[l]) where g0 is the first lane of its group. Kogge-Stone, fixed order. */
template <class Op, class T> GS_DEV T gs_warp_scan_incl(T v, Op op, int width = 32)
{
    const int lane = (int)gs_lane() & (width - 1);
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        if (d >= width) break;
        T u = __shfl_up_sync(GS_FULL_MASK, v, d, width);
        if (lane >= d) v = op(u, v);
    }
    return v;
}
/* Inclusive suffix scan over groups of `width` lanes: lane l gets op(v[l], ..., v[last of group]). */
template <class Op, class T> GS_DEV T gs_warp_suffix_incl(T v, Op op, int width = 32)
{
    const int lane = (int)gs_lane() & (width - 1);
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        if (d >= width) break;
        T u = __shfl_down_sync(GS_FULL_MASK, v, d, width);
        if (lane + d < width) v = op(v, u);
    }
    return v;
}
/* Fold of all 32 lanes in lane order (left operand = lower lane), result in every lane. */
template <class Op, class T> GS_DEV T gs_warp_reduce(T v, Op op)
{
#pragma unroll
    for (int d = 16; d >= 1; d >>= 1) {
        T u = __shfl_down_sync(GS_FULL_MASK, v, d);
        v = op(v, u);
    }
    return __shfl_sync(GS_FULL_MASK, v, 0);
}
/* gs_warp_reduce, with the single-instruction warp reductions (REDUX) for 32-bit integers. */
template <class Op, class T> GS_DEV T gs_warp_allreduce(T v, Op op) { return gs_warp_reduce(v, op); }
template <> GS_DEV int32_t gs_warp_allreduce(int32_t v, gs_op_sum<int32_t>) { return __reduce_add_sync(GS_FULL_MASK, v); }
template <> GS_DEV int32_t gs_warp_allreduce(int32_t v, gs_op_min<int32_t>) { return __reduce_min_sync(GS_FULL_MASK, v); }
template <> GS_DEV int32_t gs_warp_allreduce(int32_t v, gs_op_max<int32_t>) { return __reduce_max_sync(GS_FULL_MASK, v); }
template <> GS_DEV uint32_t gs_warp_allreduce(uint32_t v, gs_op_sum<uint32_t>) { return __reduce_add_sync(GS_FULL_MASK, v); }
template <> GS_DEV uint32_t gs_warp_allreduce(uint32_t v, gs_op_min<uint32_t>) { return __reduce_min_sync(GS_FULL_MASK, v); }
template <> GS_DEV uint32_t gs_warp_allreduce(uint32_t v, gs_op_max<uint32_t>) { return __reduce_max_sync(GS_FULL_MASK, v); }
/* Fold of lanes [start, 32) in lane order, result in every lane. Exact ops: a tree with the
 * lanes below start set to the identity; others: a serial left fold (fixed association). */
template <class Op, class T> GS_DEV T gs_warp_fold_from(T v, int start, Op op)
{
    if (Op::exact) {
        if ((int)gs_lane() < start) v = Op::identity();
        return gs_warp_reduce(v, op);
    }
    T acc = __shfl_sync(GS_FULL_MASK, v, start);
    for (int l = start + 1; l < 32; l++) acc = op(acc, __shfl_sync(GS_FULL_MASK, v, l));
    return acc;
}

/* ---- block level (tests/bench/scan_lookback_lab.cu) ------------------------------------------ */
/* Exclusive scan of one value per warp: `smem` holds NWARPS values written by lane 0 of each
 * warp; afterwards smem[w] = op(v[0..w)) (identity for w = 0) and smem[NWARPS] = the total.
 * Call between two __syncthreads (the caller's). Executed by warp 0. */
template <int NWARPS, class Op, class T> GS_DEV void gs_block_scan_warp_totals(T *smem, Op op)
{
    static_assert(NWARPS <= 32, "at most 32 warps");
    if (threadIdx.x < 32) {
        const unsigned lane = threadIdx.x;
        T v = lane < NWARPS ? smem[lane] : Op::identity();
        T inc = gs_warp_scan_incl(v, op);
        T exc = __shfl_up_sync(GS_FULL_MASK, inc, 1);
        if (lane == 0) exc = Op::identity();
        if (lane < NWARPS) smem[lane] = exc;
        if (lane == NWARPS - 1) smem[NWARPS] = inc;
    }
}

#endif
