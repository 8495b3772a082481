/* compact_basic.cu - stream compaction on the GPU, the two-pass variants. Every predicate of
 * kernels.h on all six types:
 * keep x[i] where pred(x[i]) != invert (pred.h, the CPU kernels' predicates), in input order, as
 * values or (indices) as u64 positions base + i; d_count receives this call's kept count (u64).
 *
 *   scan      flag -> scan -> scatter: a kernel writes a u32 flag per element, the lookback scan
 *             (u32 -> u64, exclusive) turns flags into output positions, a third kernel scatters.
 *   ballot    two passes over tiles of 256 x 8 (threads x 8): block counts with
 *             __syncthreads_count, an exclusive scan of the counts (lookback scan), then each
 *             block re-reads its tile and places kept elements with warp ballot / popc offsets.
 *
 * The default variant is in compact_lookback.cu, the vendor baseline in compact_cub.cu.
 * Block sizes (p->block; make TUNING=1 only): scan's flag and scatter kernels take any power of
 * two from 32 to 1024 (its positions come from the lookback scan at its default shape); ballot is
 * instantiated for 64, 128, 256 and 512 threads. */
#include "gpu_common.cuh"
#include "gpu_warp.cuh"
#include "kernels_gpu.h"

/* ============================================================================================
 * Shared by scan and ballot: an exclusive u32 -> u64 sum scan through the lookback scan, its
 * carry (the total) in a scratch slot zeroed first.
 * ============================================================================================ */

static const gs_scan_params compact_pos_scan = {GS_U32, GS_U64, GS_SCAN_SUM, 1, 0};

static int compact_positions(const uint32_t *flags, uint64_t *pos, uint64_t n, uint64_t *total, void *scr,
                             size_t scr_bytes, cudaStream_t s, gs_status *st)
{
    GS_CUDA_CHECK(st, cudaMemsetAsync(total, 0, sizeof(uint64_t), s));
    return gs_scan_gpu_lookback(&compact_pos_scan, flags, pos, n, total, scr, scr_bytes, s, st);
}

/* ============================================================================================
 * scan: flag, scan, scatter
 * ============================================================================================ */

template <class T> __global__ void gs_compact_flag_k(const T *in, uint64_t n, uint32_t *flags, gs_pred<T> pred)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
        flags[i] = pred(in[i]) ? 1u : 0u;
}
template <class T>
__global__ void gs_compact_scatter_k(const T *in, uint64_t n, const uint32_t *flags, const uint64_t *pos, void *out,
                                     uint64_t base, int indices)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        if (!flags[i]) continue;
        if (indices) ((uint64_t *)out)[pos[i]] = base + i;
        else ((T *)out)[pos[i]] = in[i];
    }
}

/* Scratch of the two-pass variants over m items (elements for scan, blocks for ballot): the kept
 * total (u64) at 0, a u32 per item (flag or count), a u64 per item (output position), then the
 * look-back scan's own scratch. */
struct compact_pos_layout {
    size_t total, u32s, u64s, scan, bytes;
};
static compact_pos_layout compact_pos_lay(uint64_t m)
{
    compact_pos_layout l;
    l.total = 0;
    l.u32s = 256;
    l.u64s = gs_align_up(l.u32s + (size_t)m * 4, 256);
    l.scan = gs_align_up(l.u64s + (size_t)m * 8, 256);
    l.bytes = l.scan + gs_scan_gpu_lookback_scratch(&compact_pos_scan, m);
    return l;
}

extern "C" size_t gs_compact_gpu_scan_scratch(const gs_compact_params *p, uint64_t n_max)
{
    (void)p;
    return compact_pos_lay(n_max).bytes;
}

extern "C" int gs_compact_gpu_scan(const gs_compact_params *p, const void *d_in, uint64_t n, void *d_out,
                                   uint64_t base, uint64_t *d_count, void *d_scratch, size_t scratch_bytes,
                                   void *stream, gs_status *st)
{
    const cudaStream_t s = gs_stream(stream);
    if (n == 0) return gs_compact_empty(d_count, s, st);
    const compact_pos_layout l = compact_pos_lay(n);
    GS_FORWARD(gs_check_scratch("compact scan", scratch_bytes, l.bytes, st));
    char *scr = (char *)d_scratch;
    uint32_t *flags = (uint32_t *)(scr + l.u32s);
    uint64_t *pos = (uint64_t *)(scr + l.u64s), *total = (uint64_t *)(scr + l.total);
    int threads;
    GS_FORWARD(gs_grid_block("compact scan", p->block, GS_GRID_THREADS, &threads, st));
    return gs_dispatch_compact(p, st, [&](auto t) -> int {
        typedef decltype(t) T;
        const unsigned grid = gs_grid_for(n, threads);
        gs_compact_flag_k<T><<<grid, threads, 0, s>>>((const T *)d_in, n, flags, gs_pred_make<T>(p));
        GS_LAUNCH_CHECK(st);
        GS_FORWARD(compact_positions(flags, pos, n, total, scr + l.scan, scratch_bytes - l.scan, s, st));
        gs_compact_scatter_k<T><<<grid, threads, 0, s>>>((const T *)d_in, n, flags, pos, d_out, base, p->indices);
        GS_LAUNCH_CHECK(st);
        GS_CUDA_CHECK(st, cudaMemcpyAsync(d_count, total, sizeof(uint64_t), cudaMemcpyDeviceToDevice, s));
        return GS_OK;
    });
}

/* ============================================================================================
 * ballot: block counts (__syncthreads_count), scan of counts, ballot/popc scatter
 * ============================================================================================ */

#define GS_BALLOT_ROUNDS 8 /* elements per thread: a tile is THREADS x 8 (GS_BALLOT_THREADS by default) */

template <class T, int THREADS> __global__ void __launch_bounds__(THREADS)
    gs_compact_count_k(const T *in, uint64_t n, gs_pred<T> pred, uint32_t *counts)
{
    const uint64_t b0 = (uint64_t)blockIdx.x * (THREADS * GS_BALLOT_ROUNDS);
    int c = 0;
#pragma unroll
    for (int r = 0; r < GS_BALLOT_ROUNDS; r++) {
        const uint64_t i = b0 + (uint64_t)r * THREADS + threadIdx.x;
        c += __syncthreads_count(i < n && pred(in[i]));
    }
    if (threadIdx.x == 0) counts[blockIdx.x] = (uint32_t)c;
}

template <class T, int THREADS> __global__ void __launch_bounds__(THREADS)
    gs_compact_ballot_scatter_k(const T *in, uint64_t n, gs_pred<T> pred, const uint64_t *offsets, void *out,
                                uint64_t base, int indices)
{
    constexpr int NW = THREADS / 32;
    __shared__ unsigned s_w[2][NW];
    const int warp = (int)(threadIdx.x >> 5), lane = (int)(threadIdx.x & 31);
    const uint64_t b0 = (uint64_t)blockIdx.x * (THREADS * GS_BALLOT_ROUNDS);
    uint64_t run = offsets[blockIdx.x];
#pragma unroll
    for (int r = 0; r < GS_BALLOT_ROUNDS; r++) {
        const uint64_t i = b0 + (uint64_t)r * THREADS + threadIdx.x;
        T x = T(0);
        const bool k = i < n && pred(x = in[i]);
        const unsigned bal = __ballot_sync(GS_FULL_MASK, k);
        if (lane == 0) s_w[r & 1][warp] = (unsigned)__popc(bal);
        __syncthreads(); /* double-buffered s_w: one barrier per round */
        unsigned wpre = 0, tot = 0;
#pragma unroll
        for (int w = 0; w < NW; w++) {
            const unsigned c = s_w[r & 1][w];
            wpre += w < warp ? c : 0u;
            tot += c;
        }
        if (k) {
            const uint64_t o = run + wpre + (unsigned)__popc(bal & ((1u << lane) - 1u));
            if (indices) ((uint64_t *)out)[o] = base + i;
            else ((T *)out)[o] = x;
        }
        run += tot;
    }
}

/* blocks of the ballot variant (at least one, so scratch sizes never come out empty) */
static uint64_t compact_ballot_blocks(uint64_t n, int threads)
{
    return gs_cdiv(n ? n : 1, (uint64_t)threads * GS_BALLOT_ROUNDS);
}

extern "C" size_t gs_compact_gpu_ballot_scratch(const gs_compact_params *p, uint64_t n_max)
{
    return compact_pos_lay(compact_ballot_blocks(n_max, p->block ? p->block : GS_BALLOT_THREADS)).bytes;
}

template <class T, int THREADS>
static int compact_ballot_run(const gs_compact_params *p, const T *in, uint64_t n, void *out, uint64_t base,
                              uint64_t *d_count, void *scratch, size_t bytes, cudaStream_t s, gs_status *st)
{
    const uint64_t nb = compact_ballot_blocks(n, THREADS);
    if (nb > 0x7fffffffull) return gs_fail(st, GS_EUSAGE, "compact ballot: n too large");
    const compact_pos_layout l = compact_pos_lay(nb);
    GS_FORWARD(gs_check_scratch("compact ballot", bytes, l.bytes, st));
    char *scr = (char *)scratch;
    uint32_t *counts = (uint32_t *)(scr + l.u32s);
    uint64_t *offsets = (uint64_t *)(scr + l.u64s), *total = (uint64_t *)(scr + l.total);
    const gs_pred<T> pred = gs_pred_make<T>(p);
    gs_compact_count_k<T, THREADS><<<(unsigned)nb, THREADS, 0, s>>>(in, n, pred, counts);
    GS_LAUNCH_CHECK(st);
    GS_FORWARD(compact_positions(counts, offsets, nb, total, scr + l.scan, bytes - l.scan, s, st));
    gs_compact_ballot_scatter_k<T, THREADS><<<(unsigned)nb, THREADS, 0, s>>>(in, n, pred, offsets, out, base,
                                                                            p->indices);
    GS_LAUNCH_CHECK(st);
    GS_CUDA_CHECK(st, cudaMemcpyAsync(d_count, total, sizeof(uint64_t), cudaMemcpyDeviceToDevice, s));
    return GS_OK;
}

extern "C" int gs_compact_gpu_ballot(const gs_compact_params *p, const void *d_in, uint64_t n, void *d_out,
                                     uint64_t base, uint64_t *d_count, void *d_scratch, size_t scratch_bytes,
                                     void *stream, gs_status *st)
{
    const cudaStream_t s = gs_stream(stream);
    if (n == 0) return gs_compact_empty(d_count, s, st);
    return gs_dispatch_compact(p, st, [&](auto t) -> int {
        typedef decltype(t) T;
        auto run = [&](auto threads) -> int {
            return compact_ballot_run<T, decltype(threads)::value>(p, (const T *)d_in, n, d_out, base, d_count,
                                                                   d_scratch, scratch_bytes, s, st);
        };
        if (!p->block) return run(std::integral_constant<int, GS_BALLOT_THREADS>{});
        return gs_dispatch_block<GS_BUILT_BLOCKS(GS_BLOCKS_TPL)>("compact ballot", p->block, st, run);
    });
}
