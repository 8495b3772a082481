/* kernels_gpu.h - the GPU variants (kernels/scan_*.cu, compact_*.cu, minmax_*.cu), declared for
 * the registry. Signatures are the gs_*_gpu_fn / gs_*_gpu_scratch_fn types of kernels.h.
 * Every GPU variant accepts all six types, every scan op (inclusive and exclusive), the
 * widenings i32->i64, u32->u64, f32->f64, every predicate and --indices; in a make TUNING=1 build
 * every one but cub honours the params' block (threads per block, the sizes of its registry row),
 * in a default build only block 0 (the tuned launch: tuning.h). */
#ifndef GS_KERNELS_GPU_H
#define GS_KERNELS_GPU_H

#include "kernels.h"
#include "tuning.h"

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
/* rolling (kernels/rolling_vhgw.cu): the minmax launcher signature, rolling params (nagg > 0). */
size_t gs_rolling_gpu_vhgw_scratch(const gs_minmax_params *p, uint64_t m_max);
int gs_rolling_gpu_vhgw(const gs_minmax_params *p, const void *d_in, uint64_t m, uint64_t first, void *d_out,
                        void *d_scratch, size_t scratch_bytes, void *stream, gs_status *st);
/* Threads per block of vhgw's default launch for these params (its shape depends on W and type). */
int gs_minmax_gpu_vhgw_threads(const gs_minmax_params *p);

#ifdef GS_TUNING
/* Other tile shapes of the three defaults (test_kernels_gpu --bench --tune times them): k = 0, 1, ...
 * until GS_EUSAGE; desc receives the shape. Not in the registry; make TUNING=1 only. */
int gs_scan_gpu_lookback_tune(int k, char *desc, size_t dlen, const void *d_in, void *d_out, uint64_t n, void *d_carry,
                              void *d_scratch, size_t scratch_bytes, void *stream, gs_status *st);
int gs_compact_gpu_lookback_tune(int k, char *desc, size_t dlen, const gs_compact_params *p, const void *d_in,
                                 uint64_t n, void *d_out, uint64_t *d_count, void *d_scratch, size_t scratch_bytes,
                                 void *stream, gs_status *st);
int gs_minmax_gpu_vhgw_tune(int k, char *desc, size_t dlen, const gs_minmax_params *p, const void *d_in, uint64_t m,
                            uint64_t first, void *d_out, void *d_scratch, size_t scratch_bytes, void *stream,
                            gs_status *st);
#endif

#ifdef __cplusplus
}
#endif
#endif
