/* compact_cub.cu - the vendor baseline compaction: cub::DeviceSelect::If (64-bit offsets) from
 * the CUB shipped with the CUDA toolkit, every predicate and type of kernels.h:
 * keep x[i] where pred(x[i]) != invert (pred.h, the CPU kernels' predicates), in input order, as
 * values or (indices) as u64 positions base + i; d_count receives this call's kept count (u64).
 * Indices select from a counting iterator with a predicate that reads the input at the position.
 * Its own launch shapes (no block size). */
#include "gpu_common.cuh"
#include "kernels_gpu.h"

#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

/* ============================================================================================
 * cub
 * ============================================================================================ */

/* Selects positions v = base + i (from a counting iterator) by the element they point at. */
template <class T> struct gs_pred_at {
    const T *in;
    uint64_t base;
    gs_pred<T> pred;
    __device__ __forceinline__ bool operator()(uint64_t v) const { return pred(in[v - base]); }
};

template <class T>
static cudaError_t cub_select(void *tmp, size_t &tmp_bytes, const gs_compact_params *p, const T *in, uint64_t n,
                              void *out, uint64_t base, uint64_t *d_count, cudaStream_t s)
{
    const gs_pred<T> pred = gs_pred_make<T>(p);
    if (p->indices) {
        gs_pred_at<T> at = {in, base, pred};
        return cub::DeviceSelect::If(tmp, tmp_bytes, thrust::counting_iterator<uint64_t>(base), (uint64_t *)out,
                                     d_count, (int64_t)n, at, s);
    }
    return cub::DeviceSelect::If(tmp, tmp_bytes, in, (T *)out, d_count, (int64_t)n, pred, s);
}

extern "C" size_t gs_compact_gpu_cub_scratch(const gs_compact_params *p, uint64_t n_max)
{
    gs_status st;
    size_t best = 0;
    gs_compact_params q = *p;
    (void)gs_dispatch_compact(p, &st, [&](auto t) -> int {
        typedef decltype(t) T;
        for (int ix = 0; ix < 2; ix++) {
            size_t b = 0;
            q.indices = ix;
            if (cub_select<T>(NULL, b, &q, (const T *)NULL, n_max ? n_max : 1, NULL, 0, NULL, 0) == cudaSuccess &&
                b > best)
                best = b;
        }
        return GS_OK;
    });
    return best;
}

extern "C" int gs_compact_gpu_cub(const gs_compact_params *p, const void *d_in, uint64_t n, void *d_out, uint64_t base,
                                  uint64_t *d_count, void *d_scratch, size_t scratch_bytes, void *stream,
                                  gs_status *st)
{
    const cudaStream_t s = gs_stream(stream);
    if (n == 0) return gs_compact_empty(d_count, s, st);
    return gs_dispatch_compact(p, st, [&](auto t) -> int {
        typedef decltype(t) T;
        size_t need = 0;
        GS_CUDA_CHECK(st, cub_select<T>(NULL, need, p, (const T *)d_in, n, d_out, base, d_count, s));
        GS_FORWARD(gs_check_scratch("compact cub", scratch_bytes, need, st));
        GS_CUDA_CHECK(st, cub_select<T>(d_scratch, need, p, (const T *)d_in, n, d_out, base, d_count, s));
        return GS_OK;
    });
}
