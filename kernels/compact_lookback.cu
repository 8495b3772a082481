/* compact_lookback.cu - the default GPU compaction: single pass with decoupled look-back. Every
 * predicate of kernels.h on all six types:
 * keep x[i] where pred(x[i]) != invert (pred.h, the CPU kernels' predicates), in input order, as
 * values or (indices) as u64 positions base + i; d_count receives this call's kept count (u64).
 *
 * Tiles of threads x items, loaded with coalesced 16-byte vectors (unguarded on full tiles); the
 * predicate is chosen once per thread (a switch outside the item loop); the tile's count (warp
 * REDUX sums, one barrier) is published first, and warp 0 looks back for the output offset while
 * the warps rank their kept items with warp ballots and pack them in shared memory; then they are
 * written out coalesced. Tile = blockIdx.x (blocks start in index order, as CUB's single-pass
 * kernels assume). Shapes: tuning.h (gs_compact_lookback_cfg4 / cfg8); make TUNING=1 also builds
 * 64, 256 and 512 threads for p->block (the default's items per thread) and the tune hook. */
#include "gpu_common.cuh"
#include "gpu_lookback.cuh"
#include "kernels_gpu.h"

#include <stdio.h>

/* ---- predicates, one kind at a time ---------------------------------------------------------- */
/* Bit k of the result = pred(x[k]) for k < N (before invert). */
template <int K, int N, class T> GS_DEV unsigned pred_bits_k(const T (&x)[N], T a, T b)
{
    unsigned m = 0;
#pragma unroll
    for (int k = 0; k < N; k++) m |= (unsigned)gs_pred_test(K, x[k], a, b) << k;
    return m;
}
template <int N, class T> GS_DEV unsigned pred_bits(const gs_pred<T> &p, const T (&x)[N])
{
    static_assert(N <= 32, "");
    unsigned m;
    switch (p.kind) {
    case GS_PRED_NONZERO: m = pred_bits_k<GS_PRED_NONZERO>(x, p.a, p.b); break;
    case GS_PRED_EQ: m = pred_bits_k<GS_PRED_EQ>(x, p.a, p.b); break;
    case GS_PRED_NE: m = pred_bits_k<GS_PRED_NE>(x, p.a, p.b); break;
    case GS_PRED_GT: m = pred_bits_k<GS_PRED_GT>(x, p.a, p.b); break;
    case GS_PRED_GE: m = pred_bits_k<GS_PRED_GE>(x, p.a, p.b); break;
    case GS_PRED_LT: m = pred_bits_k<GS_PRED_LT>(x, p.a, p.b); break;
    case GS_PRED_LE: m = pred_bits_k<GS_PRED_LE>(x, p.a, p.b); break;
    case GS_PRED_RANGE: m = pred_bits_k<GS_PRED_RANGE>(x, p.a, p.b); break;
    case GS_PRED_FINITE: m = pred_bits_k<GS_PRED_FINITE>(x, p.a, p.b); break;
    case GS_PRED_NAN: m = pred_bits_k<GS_PRED_NAN>(x, p.a, p.b); break;
    default: m = 0; break;
    }
    if (p.invert) m = ~m;
    return N == 32 ? m : m & ((1u << N) - 1u);
}

/* Where a lookback tile packs its kept items: a static shared array while it fits in the 48 KB
 * static shared memory allows (every default shape), dynamic shared memory beyond (thread counts
 * above the default with 8-byte outputs: up to 128 KB at 512 x 32 indices). */
template <class Out, int TILE> struct compact_lb_stage {
    static constexpr size_t bytes = (size_t)TILE * sizeof(Out);
    static constexpr bool dyn = bytes + 1024 > 48 * 1024; /* 1 KB: the block's other shared variables */
    static constexpr size_t dyn_bytes = dyn ? bytes : 0;
};

template <class T, bool IDX, int THREADS, int ITEMS, int REGS>
__global__ void __launch_bounds__(THREADS, GS_MIN_BLOCKS(THREADS, REGS)) /* occupancy beats registers here */
    gs_compact_lookback_k(const T *__restrict__ in, uint64_t n, void *out_v, uint64_t base, gs_pred<T> pred,
                          uint64_t *d_count, typename gs_tile_status<uint64_t>::word *status, unsigned ntiles,
                          int vec)
{
    typedef typename std::conditional<IDX, uint64_t, T>::type Out;
    constexpr int V = 16 / (int)sizeof(T);
    constexpr int G = ITEMS / V;
    constexpr int NW = THREADS / 32;
    constexpr int TILE = THREADS * ITEMS;
    typedef gs_tile_status<uint64_t> S;
    const gs_op_sum<uint64_t> add;

    typedef compact_lb_stage<Out, TILE> Stage;
    __shared__ Out s_out[Stage::dyn ? 1 : TILE];
    extern __shared__ __align__(16) unsigned char gs_cl_dyn[];
    Out *const stage = Stage::dyn ? (Out *)gs_cl_dyn : s_out; /* the tile's kept items, packed */
    __shared__ unsigned s_warp[NW];
    __shared__ uint64_t s_excl;

    const unsigned tile = blockIdx.x; /* blocks start in index order (as CUB assumes) */
    const int warp = (int)(threadIdx.x >> 5), lane = (int)(threadIdx.x & 31);
    const uint64_t tile_base = (uint64_t)tile * TILE;
    const unsigned wofs = (unsigned)warp * 32 * ITEMS + (unsigned)lane * V; /* offset in the tile */
    const bool full = tile_base + TILE <= n;

    T x[ITEMS];
    if (full && vec) {
        gs_vec16<T> r[G];
#pragma unroll
        for (int g = 0; g < G; g++) r[g] = gs_ld_vec(in + tile_base + wofs + g * 32 * V);
#pragma unroll
        for (int g = 0; g < G; g++)
#pragma unroll
            for (int v = 0; v < V; v++) x[g * V + v] = r[g].v[v];
    } else {
#pragma unroll
        for (int g = 0; g < G; g++)
#pragma unroll
            for (int v = 0; v < V; v++) {
                const uint64_t i = tile_base + wofs + g * 32 * V + v;
                x[g * V + v] = i < n ? in[i] : T(0);
            }
    }
    unsigned keep = pred_bits(pred, x);
    if (!full) {
#pragma unroll
        for (int g = 0; g < G; g++)
#pragma unroll
            for (int v = 0; v < V; v++)
                if (tile_base + wofs + g * 32 * V + v >= n) keep &= ~(1u << (g * V + v));
    }

    /* the tile's count first (it is what later tiles wait for): one barrier, then warp 0
     * publishes it and looks back while the other warps rank their items */
    const unsigned wcnt = __reduce_add_sync(GS_FULL_MASK, (unsigned)__popc(keep));
    if (lane == 0) s_warp[warp] = wcnt;
    __syncthreads();
    unsigned wbase = 0, tile_cnt = 0; /* kept in the warps before this one; in the tile */
#pragma unroll
    for (int w = 0; w < NW; w++) {
        const unsigned c = s_warp[w];
        wbase += w < warp ? c : 0u;
        tile_cnt += c;
    }
    if (warp == 0) {
        uint64_t excl;
        if (tile == 0) {
            excl = 0;
            if (lane == 0) S::put(&status[0], GS_TILE_P, (uint64_t)tile_cnt);
        } else {
            if (lane == 0) S::put(&status[tile], GS_TILE_A, (uint64_t)tile_cnt);
            excl = gs_lookback<uint64_t>(status, (int64_t)tile, add);
            if (lane == 0) S::put(&status[tile], GS_TILE_P, excl + tile_cnt);
        }
        if (lane == 0) {
            s_excl = excl;
            if (tile == ntiles - 1) *d_count = excl + tile_cnt;
        }
    }

    /* rank of each kept item in the warp segment: groups in order, lanes in order, v in order */
    const unsigned lt = gs_lanemask_lt();
    unsigned gpre[G]; /* items kept before this thread's vector g, within the warp segment */
    unsigned wrun = 0;
#pragma unroll
    for (int g = 0; g < G; g++) {
        unsigned before = 0, total = 0;
#pragma unroll
        for (int v = 0; v < V; v++) {
            const unsigned b = __ballot_sync(GS_FULL_MASK, (keep >> (g * V + v)) & 1u);
            before += __popc(b & lt);
            total += __popc(b);
        }
        gpre[g] = wrun + before;
        wrun += total;
    }

    /* pack the kept items of the tile in shared memory, in order */
#pragma unroll
    for (int g = 0; g < G; g++) {
        unsigned r = wbase + gpre[g];
#pragma unroll
        for (int v = 0; v < V; v++) {
            if ((keep >> (g * V + v)) & 1u) {
                const unsigned pos = wofs + g * 32 * V + v;
                if (IDX) stage[r] = (Out)(base + tile_base + pos);
                else stage[r] = (Out)x[g * V + v];
                r++;
            }
        }
    }
    __syncthreads();

    Out *out = (Out *)out_v;
    const uint64_t excl = s_excl;
    for (unsigned i = threadIdx.x; i < tile_cnt; i += THREADS) out[excl + i] = stage[i];
}

template <class T> struct compact_lb_cfg {
    static constexpr gs_compact_cfg c = sizeof(T) == 4 ? gs_compact_lookback_cfg4 : gs_compact_lookback_cfg8;
    static constexpr int tile = c.threads * c.items;
};

static size_t compact_lb_bytes(uint64_t ntiles) { return 256 + (size_t)ntiles * 16; }

template <class T, int THREADS, int ITEMS, int REGS>
static int compact_lookback_run(const gs_compact_params *p, const T *in, uint64_t n, void *out, uint64_t base,
                                uint64_t *d_count, void *scratch, size_t bytes, cudaStream_t s, gs_status *st)
{
    constexpr int TILE = THREADS * ITEMS;
    if (n == 0) return gs_compact_empty(d_count, s, st);
    const uint64_t ntiles = gs_cdiv(n, TILE);
    if (ntiles > 0x7fffffffull) return gs_fail(st, GS_EUSAGE, "compact lookback: %llu elements is too many", (unsigned long long)n);
    const size_t need = compact_lb_bytes(ntiles);
    GS_FORWARD(gs_check_scratch("compact lookback", bytes, need, st));
    GS_CUDA_CHECK(st, cudaMemsetAsync(scratch, 0, need, s));
    typename gs_tile_status<uint64_t>::word *status = (typename gs_tile_status<uint64_t>::word *)((char *)scratch + 256);
    const int vec = gs_aligned16(in);
    const gs_pred<T> pred = gs_pred_make<T>(p);
    auto launch = [&](auto idx) -> int {
        constexpr bool IDX = decltype(idx)::value;
        constexpr size_t dyn = compact_lb_stage<typename std::conditional<IDX, uint64_t, T>::type, TILE>::dyn_bytes;
        if (dyn)
            GS_CUDA_CHECK(st, cudaFuncSetAttribute(gs_compact_lookback_k<T, IDX, THREADS, ITEMS, REGS>,
                                                   cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn));
        gs_compact_lookback_k<T, IDX, THREADS, ITEMS, REGS><<<(unsigned)ntiles, THREADS, dyn, s>>>(
            in, n, out, base, pred, d_count, status, (unsigned)ntiles, vec);
        GS_LAUNCH_CHECK(st);
        return GS_OK;
    };
    if (p->indices) return launch(std::true_type{});
    return launch(std::false_type{});
}

#ifdef GS_TUNING
/* Other tile shapes for i32 values (tests/gpu --bench measures them; the best becomes
 * gs_compact_lookback_cfg4). Not part of the registry. */
extern "C" int gs_compact_gpu_lookback_tune(int k, char *desc, size_t dlen, const gs_compact_params *p,
                                            const void *d_in, uint64_t n, void *d_out, uint64_t *d_count,
                                            void *d_scratch, size_t scratch_bytes, void *stream, gs_status *st)
{
    typedef int32_t T;
    const cudaStream_t s = gs_stream(stream);
#define GS_TUNE(K, TH, IT, RG)                                                                               \
    case K:                                                                                                  \
        snprintf(desc, dlen, "%dx%d r%d", TH, IT, RG);                                                       \
        return compact_lookback_run<T, TH, IT, RG>(p, (const T *)d_in, n, d_out, 0, d_count, d_scratch, scratch_bytes, s, st);
    switch (k) {
        GS_TUNE(0, 128, 32, 64)
        GS_TUNE(1, 128, 32, 56)
        GS_TUNE(2, 128, 32, 48)
        GS_TUNE(3, 128, 24, 48)
        GS_TUNE(4, 96, 32, 56)
    default: return GS_EUSAGE;
    }
#undef GS_TUNE
}
#endif

extern "C" size_t gs_compact_gpu_lookback_scratch(const gs_compact_params *p, uint64_t n_max)
{
    const gs_compact_cfg c = gs_type_size(p->type) == 4 ? compact_lb_cfg<int32_t>::c : compact_lb_cfg<int64_t>::c;
    const int tile = (p->block ? p->block : c.threads) * c.items;
    return compact_lb_bytes(gs_cdiv(n_max, tile) + 1);
}

extern "C" int gs_compact_gpu_lookback(const gs_compact_params *p, const void *d_in, uint64_t n, void *d_out,
                                       uint64_t base, uint64_t *d_count, void *d_scratch, size_t scratch_bytes,
                                       void *stream, gs_status *st)
{
    return gs_dispatch_compact(p, st, [&](auto t) -> int {
        typedef decltype(t) T;
        typedef compact_lb_cfg<T> C;
        auto run = [&](auto threads) -> int {
            return compact_lookback_run<T, decltype(threads)::value, C::c.items, C::c.regs>(
                p, (const T *)d_in, n, d_out, base, d_count, d_scratch, scratch_bytes, gs_stream(stream), st);
        };
        if (!p->block) return run(std::integral_constant<int, C::c.threads>{});
        return gs_dispatch_block<GS_BUILT_BLOCKS(GS_BLOCKS_TPL)>("compact lookback", p->block, st, run);
    });
}
