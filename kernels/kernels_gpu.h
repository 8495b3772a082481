/* kernels_gpu.h - the GPU variants (kernels/scan.cu, compact.cu, minmax.cu), declared for the
 * registry. Signatures are the gs_*_gpu_fn / gs_*_gpu_scratch_fn types of kernels.h.
 * Every GPU variant accepts all six types, every scan op (inclusive and exclusive), the
 * widenings i32->i64, u32->u64, f32->f64, every predicate and --indices; every one but cub
 * honours the params' block (threads per block, the sizes of its registry row). */
#ifndef GS_KERNELS_GPU_H
#define GS_KERNELS_GPU_H

#include "kernels.h"

/* Threads per block of each GPU variant's default launch (gs_variant.block_default). The .cu
 * files launch with these, and static_assert that the tuned shapes of gpu_common.cuh agree. */
#define GS_GRID_THREADS 256             /* grid-stride kernels: naive, blelloch, compact scan, linear, tiled */
#define GS_BS_THREADS 256               /* blelloch-smem (tiles of 2 x threads) */
#define GS_BALLOT_THREADS 256           /* ballot (tiles of 8 x threads) */
#define GS_SCAN_LOOKBACK_THREADS 128    /* gs_scan_lookback_cfg4 / cfg8 */
#define GS_COMPACT_LOOKBACK_THREADS 128 /* gs_compact_lookback_cfg4 / cfg8 */
#define GS_MINMAX_VHGW_THREADS 128      /* gs_minmax_vhgw_*cfg*, but for: */
#define GS_MINMAX_VHGW_MID_THREADS 64   /* gs_minmax_vhgw_mid_cfg4: 4-byte types, 16 < W-1 <= 1024 */
#define GS_MINMAX_VHGW_MID_LO 16        /* (minmax.cu GS_MM_LO_W1 and GS_MM_MID_W1) */
#define GS_MINMAX_VHGW_MID_HI 1024
/* Block sizes vhgw is instantiated for: not 512. Each thread count is ~40 kernels (six types, two
 * shapes, a kernel per row-group size); with 512 as well, minmax.cu took 2.1x its compile time. */
#define GS_VHGW_BLOCKS (GS_BLOCK_BIT(64) | GS_BLOCK_BIT(128) | GS_BLOCK_BIT(256))

#ifdef __cplusplus
extern "C" {
#endif

#define GS_GPU_SCAN(name)                                                                                  \
    size_t gs_scan_gpu_##name##_scratch(const gs_scan_params *p, uint64_t n_max);                          \
    int gs_scan_gpu_##name(const gs_scan_params *p, const void *d_in, void *d_out, uint64_t n, void *d_carry, \
                           void *d_scratch, size_t scratch_bytes, void *stream, gs_status *st);
GS_GPU_SCAN(naive)
GS_GPU_SCAN(blelloch)
GS_GPU_SCAN(blelloch_smem)
GS_GPU_SCAN(lookback)
GS_GPU_SCAN(cub)
#undef GS_GPU_SCAN

#define GS_GPU_COMPACT(name)                                                                          \
    size_t gs_compact_gpu_##name##_scratch(const gs_compact_params *p, uint64_t n_max);               \
    int gs_compact_gpu_##name(const gs_compact_params *p, const void *d_in, uint64_t n, void *d_out,  \
                              uint64_t base, uint64_t *d_count, void *d_scratch, size_t scratch_bytes, \
                              void *stream, gs_status *st);
GS_GPU_COMPACT(scan)
GS_GPU_COMPACT(ballot)
GS_GPU_COMPACT(lookback)
GS_GPU_COMPACT(cub)
#undef GS_GPU_COMPACT

#define GS_GPU_MINMAX(name)                                                                            \
    size_t gs_minmax_gpu_##name##_scratch(const gs_minmax_params *p, uint64_t m_max);                  \
    int gs_minmax_gpu_##name(const gs_minmax_params *p, const void *d_in, uint64_t m, uint64_t first,  \
                             void *d_out, void *d_scratch, size_t scratch_bytes, void *stream,         \
                             gs_status *st);
GS_GPU_MINMAX(linear)
GS_GPU_MINMAX(tiled)
GS_GPU_MINMAX(vhgw)
#undef GS_GPU_MINMAX

#ifdef __cplusplus
}
#endif
#endif
