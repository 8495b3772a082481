/* scan_cub.cu - the vendor baseline scan: cub::DeviceScan from the CUB shipped with the CUDA
 * toolkit, for every op, type and widening of kernels.h. The carry enters as a FutureValue read on
 * the device, in pieces of < 2^31 elements, each followed by a one-thread kernel that moves the
 * running total into d_carry. Its own launch shapes (no block size). CUB's look-back folds float
 * sums in whatever order tiles finish, so their last bits may differ run to run.
 *
 * Chunked semantics (kernels.h): out[i] = carry op x[0..i] (inclusive) or carry op x[0..i-1]
 * (exclusive); d_carry holds one out_type value, read and then overwritten with the total. */
#include "gpu_common.cuh"
#include "kernels_gpu.h"

#include <cub/device/device_scan.cuh>

#define GS_CUB_PIECE ((uint64_t)1 << 30) /* elements per cub call: offsets stay < 2^31 */

/* After a piece: the running total into d_carry. Inclusive: the last output; exclusive: the last
 * output op the last input. */
template <class Tin, class Tout, class Op>
__global__ void gs_cub_carry_k(const Tin *in, const Tout *out, uint64_t last, Tout *carry, int exclusive)
{
    const Op op;
    *carry = exclusive ? op(out[last], (Tout)in[last]) : out[last];
}

template <class Tin, class Tout, class Op>
static cudaError_t cub_scan_piece(void *tmp, size_t &tmp_bytes, const Tin *in, Tout *out, unsigned len, Tout *carry,
                                  int exclusive, cudaStream_t s)
{
    const Op op;
    if (exclusive)
        return cub::DeviceScan::ExclusiveScan(tmp, tmp_bytes, in, out, op, cub::FutureValue<Tout>(carry), len, s);
    typedef cub::detail::InputValue<Tout> Init;
    return cub::DispatchScan<const Tin *, Tout *, Op, Init, unsigned, Tout, cub::ForceInclusive::Yes>::Dispatch(
        tmp, tmp_bytes, in, out, op, Init(cub::FutureValue<Tout>(carry)), len, s);
}

template <class Tin, class Tout, class Op>
static int scan_cub_run(const Tin *in, Tout *out, uint64_t n, Tout *carry, void *scratch, size_t bytes,
                        cudaStream_t s, int exclusive, gs_status *st)
{
    for (uint64_t o = 0; o < n; o += GS_CUB_PIECE) {
        const unsigned len = (unsigned)(n - o < GS_CUB_PIECE ? n - o : GS_CUB_PIECE);
        size_t need = 0;
        GS_CUDA_CHECK(st, (cub_scan_piece<Tin, Tout, Op>(NULL, need, in + o, out + o, len, carry, exclusive, s)));
        GS_FORWARD(gs_check_scratch("scan cub", bytes, need, st));
        GS_CUDA_CHECK(st, (cub_scan_piece<Tin, Tout, Op>(scratch, need, in + o, out + o, len, carry, exclusive, s)));
        gs_cub_carry_k<Tin, Tout, Op><<<1, 1, 0, s>>>(in + o, out + o, len - 1, carry, exclusive);
        GS_LAUNCH_CHECK(st);
    }
    return GS_OK;
}

extern "C" size_t gs_scan_gpu_cub_scratch(const gs_scan_params *p, uint64_t n_max)
{
    gs_status st;
    size_t best = 0;
    const unsigned len = (unsigned)(n_max < GS_CUB_PIECE ? (n_max ? n_max : 1) : GS_CUB_PIECE);
    (void)gs_dispatch_scan(p, &st, [&](auto tin, auto tout, auto op) -> int {
        typedef decltype(tin) Tin;
        typedef decltype(tout) Tout;
        for (int ex = 0; ex < 2; ex++) {
            size_t b = 0;
            if (cub_scan_piece<Tin, Tout, decltype(op)>(NULL, b, (const Tin *)NULL, (Tout *)NULL, len, (Tout *)NULL,
                                                        ex, 0) == cudaSuccess &&
                b > best)
                best = b;
        }
        return GS_OK;
    });
    return best;
}

extern "C" int gs_scan_gpu_cub(const gs_scan_params *p, const void *d_in, void *d_out, uint64_t n, void *d_carry,
                               void *d_scratch, size_t scratch_bytes, void *stream, gs_status *st)
{
    return gs_dispatch_scan(p, st, [&](auto tin, auto tout, auto op) -> int {
        typedef decltype(tin) Tin;
        typedef decltype(tout) Tout;
        return scan_cub_run<Tin, Tout, decltype(op)>((const Tin *)d_in, (Tout *)d_out, n, (Tout *)d_carry, d_scratch,
                                                     scratch_bytes, gs_stream(stream), p->exclusive, st);
    });
}
