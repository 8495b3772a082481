/* compact.cu - stream compaction on the GPU: keep x[i] where pred(x[i]) != invert, in input order,
 * as values or (indices) as u64 positions base + i. Every predicate of kernels.h on all six
 * types, with the semantics of gs_pred_eval (C comparisons: NaN fails them; integers are finite,
 * never NaN). d_count receives this call's kept count (u64). One extern "C" launcher per variant.
 *
 *   scan      flag -> scan -> scatter: a kernel writes a u32 flag per element, the lookback scan
 *             (u32 -> u64, exclusive) turns flags into output positions, a third kernel scatters.
 *   ballot    two passes over tiles of 256 x 8 (threads x 8): block counts with
 *             __syncthreads_count, an exclusive scan of the counts (lookback scan), then each
 *             block re-reads its tile and places kept elements with warp ballot / popc offsets.
 *   lookback  the default: single pass with decoupled look-back. Tiles of threads x items, loaded
 *             with coalesced 16-byte vectors (unguarded on full tiles); the predicate is chosen
 *             once per thread (a switch outside the item loop); the tile's count (warp REDUX
 *             sums, one barrier) is published first, and warp 0 looks back for the output offset
 *             while the warps rank their kept items with warp ballots and pack them in shared
 *             memory; then they are written out coalesced. Tile = blockIdx.x (blocks start in
 *             index order, as CUB's single-pass kernels assume).
 *   cub       cub::DeviceSelect::If (64-bit offsets); indices select from a counting iterator with
 *             a predicate that reads the input at the position.
 *
 * Block sizes (p->block, 0 = the tuned default; kernels/gpu_common.cuh): scan's flag and scatter
 * kernels take any power of two from 32 to 1024 (its positions come from the lookback scan at its
 * default shape); ballot (tiles of threads x 8) and lookback (threads x the default's items) are
 * instantiated for 64, 128, 256 and 512 threads; cub keeps its own.
 */
#include "gpu_common.cuh"
#include "kernels_gpu.h"

#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <stdio.h>

/* ---- predicates, one kind at a time ---------------------------------------------------------- */
template <int K, class T> GS_DEV bool pred_kind(T x, T a, T b)
{
    switch (K) {
    case GS_PRED_NONZERO: return x != T(0);
    case GS_PRED_EQ: return x == a;
    case GS_PRED_NE: return x != a;
    case GS_PRED_GT: return x > a;
    case GS_PRED_GE: return x >= a;
    case GS_PRED_LT: return x < a;
    case GS_PRED_LE: return x <= a;
    case GS_PRED_RANGE: return (a <= x) & (x <= b);
    case GS_PRED_FINITE: return gs_is_float<T>::value ? (bool)isfinite((double)x) : true;
    case GS_PRED_NAN: return gs_is_float<T>::value ? x != x : false;
    default: return false;
    }
}

/* Bit k of the result = pred(x[k]) for k < N (before invert). */
template <int K, int N, class T> GS_DEV unsigned pred_bits_k(const T (&x)[N], T a, T b)
{
    unsigned m = 0;
#pragma unroll
    for (int k = 0; k < N; k++) m |= (unsigned)pred_kind<K>(x[k], a, b) << k;
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

static int compact_check_scratch(const char *name, size_t have, size_t need, gs_status *st)
{
    if (have < need)
        return gs_fail(st, GS_EDATA, "compact %s: scratch of %zu bytes, %zu needed", name, have, need);
    return GS_OK;
}

/* f(T{}) with T the element type */
template <class F> static int compact_dispatch(const gs_compact_params *p, gs_status *st, F &&f)
{
    if ((unsigned)p->pred > GS_PRED_NAN) return gs_fail(st, GS_EUSAGE, "compact: unknown predicate %d", (int)p->pred);
    return gs_dispatch_type(p->type, st, f);
}

/* ============================================================================================
 * lookback
 * ============================================================================================ */

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
    if (n == 0) {
        GS_CUDA_CHECK(st, cudaMemsetAsync(d_count, 0, sizeof(uint64_t), s));
        return GS_OK;
    }
    const uint64_t ntiles = gs_cdiv(n, TILE);
    if (ntiles > 0x7fffffffull) return gs_fail(st, GS_EUSAGE, "compact lookback: %llu elements is too many", (unsigned long long)n);
    const size_t need = compact_lb_bytes(ntiles);
    GS_FORWARD(compact_check_scratch("lookback", bytes, need, st));
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
    return compact_dispatch(p, st, [&](auto t) -> int {
        typedef decltype(t) T;
        typedef compact_lb_cfg<T> C;
        auto run = [&](auto threads) -> int {
            return compact_lookback_run<T, decltype(threads)::value, C::c.items, C::c.regs>(
                p, (const T *)d_in, n, d_out, base, d_count, d_scratch, scratch_bytes, gs_stream(stream), st);
        };
        if (!p->block) return run(std::integral_constant<int, C::c.threads>{});
        return gs_dispatch_block<GS_BLOCKS_TPL>("compact lookback", p->block, st, run);
    });
}

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

static unsigned grid_for(uint64_t n, int threads)
{
    uint64_t b = gs_cdiv(n, (uint64_t)threads);
    return (unsigned)(b < 1 ? 1 : b > 65535ull * 16 ? 65535ull * 16 : b);
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
    if (n == 0) {
        GS_CUDA_CHECK(st, cudaMemsetAsync(d_count, 0, sizeof(uint64_t), s));
        return GS_OK;
    }
    const compact_pos_layout l = compact_pos_lay(n);
    GS_FORWARD(compact_check_scratch("scan", scratch_bytes, l.bytes, st));
    char *scr = (char *)d_scratch;
    uint32_t *flags = (uint32_t *)(scr + l.u32s);
    uint64_t *pos = (uint64_t *)(scr + l.u64s), *total = (uint64_t *)(scr + l.total);
    int threads;
    GS_FORWARD(gs_grid_block("compact scan", p->block, GS_GRID_THREADS, &threads, st));
    return compact_dispatch(p, st, [&](auto t) -> int {
        typedef decltype(t) T;
        const unsigned grid = grid_for(n, threads);
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
    GS_FORWARD(compact_check_scratch("ballot", bytes, l.bytes, st));
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
    if (n == 0) {
        GS_CUDA_CHECK(st, cudaMemsetAsync(d_count, 0, sizeof(uint64_t), s));
        return GS_OK;
    }
    return compact_dispatch(p, st, [&](auto t) -> int {
        typedef decltype(t) T;
        auto run = [&](auto threads) -> int {
            return compact_ballot_run<T, decltype(threads)::value>(p, (const T *)d_in, n, d_out, base, d_count,
                                                                   d_scratch, scratch_bytes, s, st);
        };
        if (!p->block) return run(std::integral_constant<int, GS_BALLOT_THREADS>{});
        return gs_dispatch_block<GS_BLOCKS_TPL>("compact ballot", p->block, st, run);
    });
}

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
    (void)compact_dispatch(p, &st, [&](auto t) -> int {
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
    if (n == 0) {
        GS_CUDA_CHECK(st, cudaMemsetAsync(d_count, 0, sizeof(uint64_t), s));
        return GS_OK;
    }
    return compact_dispatch(p, st, [&](auto t) -> int {
        typedef decltype(t) T;
        size_t need = 0;
        GS_CUDA_CHECK(st, cub_select<T>(NULL, need, p, (const T *)d_in, n, d_out, base, d_count, s));
        GS_FORWARD(compact_check_scratch("cub", scratch_bytes, need, st));
        GS_CUDA_CHECK(st, cub_select<T>(d_scratch, need, p, (const T *)d_in, n, d_out, base, d_count, s));
        return GS_OK;
    });
}
