/* scan_basic.cu - prefix scans on the GPU, the textbook variants: sum, min, max; inclusive or
 * exclusive; any of the six types and the widenings i32->i64, u32->u64, f32->f64 (template
 * <Tin, Tout, Op>). One extern "C" launcher per variant with the gs_scan_gpu_fn signature of
 * kernels.h; scratch asked for first. Simple to complex:
 *
 *   naive          Hillis-Steele: ceil(log2 n) launches, each y[i] = x[i-d] op x[i], double
 *                  buffered between the scratch and the output (O(n log n) work).
 *   blelloch       work-efficient up-sweep / down-sweep over a tree of levels kept in global
 *                  memory (level d has ceil(n / 2^d) nodes), one launch per level with a grid sized
 *                  to that level (O(n) work, 2 log2 n launches).
 *   blelloch-smem  2 x 256-element tiles swept up and down in shared memory (indices padded by
 *                  i >> 5 against bank conflicts); the tile sums are scanned the same way,
 *                  recursively, then added back (any n).
 *
 * The default variant is in scan_lookback.cu, the vendor baseline in scan_cub.cu.
 * Block sizes (p->block; make TUNING=1 only, 0 = the tuned default of tuning.h): naive and
 * blelloch run their grid-stride kernels at any power of two from 32 to 1024; blelloch-smem is
 * instantiated for 64, 128, 256 and 512 threads. One-thread helper kernels stay one thread.
 *
 * Chunked semantics (kernels.h): out[i] = carry op x[0..i] (inclusive) or carry op x[0..i-1]
 * (exclusive); d_carry holds one out_type value, read and then overwritten with the total.
 * Float sums combine in a fixed order, so a build, variant and chunk size give the same bits run
 * to run. */
#include "gpu_common.cuh"
#include "kernels_gpu.h"

/* ============================================================================================
 * naive: Hillis-Steele
 * ============================================================================================ */

template <class Tin, class Tout>
__global__ void gs_scan_convert_k(const Tin *in, Tout *out, uint64_t n)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
        out[i] = (Tout)in[i];
}

template <class T, class Op>
__global__ void gs_scan_hs_step_k(const T *src, T *dst, uint64_t n, uint64_t d)
{
    const Op op;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
        dst[i] = i >= d ? op(src[i - d], src[i]) : src[i];
}

/* out[i] = c op incl[i] (or c op incl[i-1]); c was copied from d_carry to c0 beforehand, so
 * thread 0 may overwrite d_carry with the total while other threads still read c0. */
template <class T, class Op>
__global__ void gs_scan_finish_k(const T *incl, T *out, uint64_t n, const T *c0, T *carry, int exclusive)
{
    const Op op;
    const T c = *c0;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        if (exclusive) out[i] = i ? op(c, incl[i - 1]) : c;
        else out[i] = op(c, incl[i]);
        if (i == 0) *carry = op(c, incl[n - 1]);
    }
}

template <class Tin, class Tout, class Op>
static int scan_naive_run(const Tin *in, Tout *out, uint64_t n, Tout *carry, void *scratch, size_t bytes,
                          cudaStream_t s, int exclusive, int T, gs_status *st)
{
    if (n == 0) return GS_OK;
    const size_t need = 256 + (size_t)n * sizeof(Tout);
    GS_FORWARD(gs_check_scratch("scan naive", bytes, need, st));
    Tout *c0 = (Tout *)scratch;
    Tout *buf = (Tout *)((char *)scratch + 256);
    const unsigned grid = gs_grid_for(n, T);
    GS_CUDA_CHECK(st, cudaMemcpyAsync(c0, carry, sizeof(Tout), cudaMemcpyDeviceToDevice, s));
    gs_scan_convert_k<<<grid, T, 0, s>>>(in, buf, n);
    GS_LAUNCH_CHECK(st);
    Tout *src = buf, *dst = out;
    for (uint64_t d = 1; d < n; d <<= 1) {
        gs_scan_hs_step_k<Tout, Op><<<grid, T, 0, s>>>(src, dst, n, d);
        GS_LAUNCH_CHECK(st);
        Tout *t = src;
        src = dst;
        dst = t;
    }
    if (src == out) { /* the finish kernel must not read what it writes */
        GS_CUDA_CHECK(st, cudaMemcpyAsync(buf, out, n * sizeof(Tout), cudaMemcpyDeviceToDevice, s));
        src = buf;
    }
    gs_scan_finish_k<Tout, Op><<<grid, T, 0, s>>>(src, out, n, c0, carry, exclusive);
    GS_LAUNCH_CHECK(st);
    return GS_OK;
}

extern "C" size_t gs_scan_gpu_naive_scratch(const gs_scan_params *p, uint64_t n_max)
{
    return 256 + (size_t)n_max * gs_type_size(p->out_type);
}

extern "C" int gs_scan_gpu_naive(const gs_scan_params *p, const void *d_in, void *d_out, uint64_t n, void *d_carry,
                                 void *d_scratch, size_t scratch_bytes, void *stream, gs_status *st)
{
    int threads;
    GS_FORWARD(gs_grid_block("scan naive", p->block, GS_GRID_THREADS, &threads, st));
    return gs_dispatch_scan(p, st, [&](auto tin, auto tout, auto op) -> int {
        typedef decltype(tin) Tin;
        typedef decltype(tout) Tout;
        return scan_naive_run<Tin, Tout, decltype(op)>((const Tin *)d_in, (Tout *)d_out, n, (Tout *)d_carry, d_scratch,
                                                       scratch_bytes, gs_stream(stream), p->exclusive, threads, st);
    });
}

/* ============================================================================================
 * blelloch: up/down sweep over levels in global memory
 * Level 0 is the input; level d >= 1 holds ceil(len(d-1) / 2) nodes, node j = op(child 2j,
 * child 2j+1 when it exists). The down sweep replaces each level's sums by exclusive prefixes
 * in place: child 2j gets P(j), child 2j+1 gets op(P(j), sum(2j)).
 * ============================================================================================ */

template <class Tin, class Tout, class Op>
__global__ void gs_bl_up_leaf_k(const Tin *in, uint64_t n, Tout *lvl1, uint64_t n1)
{
    const Op op;
    for (uint64_t j = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; j < n1; j += (uint64_t)gridDim.x * blockDim.x) {
        Tout a = (Tout)in[2 * j];
        lvl1[j] = 2 * j + 1 < n ? op(a, (Tout)in[2 * j + 1]) : a;
    }
}
template <class T, class Op>
__global__ void gs_bl_up_k(const T *lo, uint64_t nlo, T *hi, uint64_t nhi)
{
    const Op op;
    for (uint64_t j = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; j < nhi; j += (uint64_t)gridDim.x * blockDim.x)
        hi[j] = 2 * j + 1 < nlo ? op(lo[2 * j], lo[2 * j + 1]) : lo[2 * j];
}
/* root: its prefix is the carry; the carry becomes carry op total */
template <class T, class Op> __global__ void gs_bl_root_k(T *root, T *carry)
{
    const Op op;
    const T c = *carry;
    *carry = op(c, *root);
    *root = c;
}
template <class T, class Op>
__global__ void gs_bl_down_k(T *lo, uint64_t nlo, const T *hi, uint64_t nhi)
{
    const Op op;
    for (uint64_t j = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; j < nhi; j += (uint64_t)gridDim.x * blockDim.x) {
        const T pj = hi[j];
        const T left = lo[2 * j];
        lo[2 * j] = pj;
        if (2 * j + 1 < nlo) lo[2 * j + 1] = op(pj, left);
    }
}
template <class Tin, class Tout, class Op>
__global__ void gs_bl_leaf_k(const Tin *in, Tout *out, uint64_t n, const Tout *lvl1, uint64_t n1, int exclusive)
{
    const Op op;
    for (uint64_t j = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; j < n1; j += (uint64_t)gridDim.x * blockDim.x) {
        const Tout pj = lvl1[j];
        const Tout a = op(pj, (Tout)in[2 * j]);
        out[2 * j] = exclusive ? pj : a;
        if (2 * j + 1 < n) out[2 * j + 1] = exclusive ? a : op(a, (Tout)in[2 * j + 1]);
    }
}

#define GS_BL_MAXLEV 72
static int bl_levels(uint64_t n, uint64_t *len, uint64_t *off)
{
    int k = 0;
    uint64_t l = n, o = 0;
    do {
        l = (l + 1) / 2;
        k++;
        len[k] = l;
        off[k] = o;
        o += l;
    } while (l > 1);
    len[0] = n;
    off[0] = o; /* total nodes in levels >= 1 */
    return k;
}

template <class Tin, class Tout, class Op>
static int scan_blelloch_run(const Tin *in, Tout *out, uint64_t n, Tout *carry, void *scratch, size_t bytes,
                             cudaStream_t s, int exclusive, int T, gs_status *st)
{
    if (n == 0) return GS_OK;
    uint64_t len[GS_BL_MAXLEV], off[GS_BL_MAXLEV];
    const int k = bl_levels(n, len, off);
    const size_t need = (size_t)off[0] * sizeof(Tout);
    GS_FORWARD(gs_check_scratch("scan blelloch", bytes, need, st));
    Tout *t = (Tout *)scratch;
    gs_bl_up_leaf_k<Tin, Tout, Op><<<gs_grid_for(len[1], T), T, 0, s>>>(in, n, t + off[1], len[1]);
    GS_LAUNCH_CHECK(st);
    for (int d = 2; d <= k; d++) {
        gs_bl_up_k<Tout, Op><<<gs_grid_for(len[d], T), T, 0, s>>>(t + off[d - 1], len[d - 1], t + off[d], len[d]);
        GS_LAUNCH_CHECK(st);
    }
    gs_bl_root_k<Tout, Op><<<1, 1, 0, s>>>(t + off[k], carry);
    GS_LAUNCH_CHECK(st);
    for (int d = k; d >= 2; d--) {
        gs_bl_down_k<Tout, Op><<<gs_grid_for(len[d], T), T, 0, s>>>(t + off[d - 1], len[d - 1], t + off[d], len[d]);
        GS_LAUNCH_CHECK(st);
    }
    gs_bl_leaf_k<Tin, Tout, Op><<<gs_grid_for(len[1], T), T, 0, s>>>(in, out, n, t + off[1], len[1], exclusive);
    GS_LAUNCH_CHECK(st);
    return GS_OK;
}

extern "C" size_t gs_scan_gpu_blelloch_scratch(const gs_scan_params *p, uint64_t n_max)
{
    uint64_t len[GS_BL_MAXLEV], off[GS_BL_MAXLEV];
    bl_levels(n_max ? n_max : 1, len, off);
    return (size_t)off[0] * gs_type_size(p->out_type);
}

extern "C" int gs_scan_gpu_blelloch(const gs_scan_params *p, const void *d_in, void *d_out, uint64_t n, void *d_carry,
                                    void *d_scratch, size_t scratch_bytes, void *stream, gs_status *st)
{
    int threads;
    GS_FORWARD(gs_grid_block("scan blelloch", p->block, GS_GRID_THREADS, &threads, st));
    return gs_dispatch_scan(p, st, [&](auto tin, auto tout, auto op) -> int {
        typedef decltype(tin) Tin;
        typedef decltype(tout) Tout;
        return scan_blelloch_run<Tin, Tout, decltype(op)>((const Tin *)d_in, (Tout *)d_out, n, (Tout *)d_carry,
                                                          d_scratch, scratch_bytes, gs_stream(stream), p->exclusive,
                                                          threads, st);
    });
}

/* ============================================================================================
 * blelloch-smem: shared-memory tiles of 2 x THREADS elements (THREADS = GS_BS_THREADS, 256, by
 * default), recursive tile sums
 * ============================================================================================ */

#define GS_BS_PAD(i) ((i) + ((i) >> 5)) /* one padding slot per 32: no bank conflicts in the sweeps */

/* Scans one tile of src (converted to Tout) in shared memory: dst gets the tile-local exclusive
 * (or, with inclusive, inclusive) scan, sums[tile] the tile total. dst may equal src (same type). */
template <class Tin, class Tout, class Op, int THREADS>
__global__ void __launch_bounds__(THREADS)
    gs_bs_tile_k(const Tin *src, Tout *dst, uint64_t n, Tout *sums, int inclusive)
{
    constexpr int TILE = 2 * THREADS;
    __shared__ Tout sm[GS_BS_PAD(TILE) + 1];
    const Op op;
    const uint64_t base = (uint64_t)blockIdx.x * TILE;
    const int t = threadIdx.x;
    const int ia = t, ib = t + THREADS;
    const Tout xa = base + ia < n ? (Tout)src[base + ia] : Op::identity();
    const Tout xb = base + ib < n ? (Tout)src[base + ib] : Op::identity();
    sm[GS_BS_PAD(ia)] = xa;
    sm[GS_BS_PAD(ib)] = xb;
    /* up sweep */
    int off = 1;
    for (int d = TILE >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            const int a = off * (2 * t + 1) - 1, b = off * (2 * t + 2) - 1;
            sm[GS_BS_PAD(b)] = op(sm[GS_BS_PAD(a)], sm[GS_BS_PAD(b)]);
        }
        off <<= 1;
    }
    __syncthreads();
    if (t == 0) {
        sums[blockIdx.x] = sm[GS_BS_PAD(TILE - 1)];
        sm[GS_BS_PAD(TILE - 1)] = Op::identity();
    }
    /* down sweep */
    for (int d = 1; d < TILE; d <<= 1) {
        off >>= 1;
        __syncthreads();
        if (t < d) {
            const int a = off * (2 * t + 1) - 1, b = off * (2 * t + 2) - 1;
            const Tout l = sm[GS_BS_PAD(a)];
            sm[GS_BS_PAD(a)] = sm[GS_BS_PAD(b)];
            sm[GS_BS_PAD(b)] = op(sm[GS_BS_PAD(b)], l);
        }
    }
    __syncthreads();
    if (base + ia < n) dst[base + ia] = inclusive ? op(sm[GS_BS_PAD(ia)], xa) : sm[GS_BS_PAD(ia)];
    if (base + ib < n) dst[base + ib] = inclusive ? op(sm[GS_BS_PAD(ib)], xb) : sm[GS_BS_PAD(ib)];
}

/* dst[i] = op(prefix[tile of i], dst[i]) */
template <class T, class Op, int THREADS> __global__ void gs_bs_add_k(T *dst, uint64_t n, const T *prefix)
{
    const Op op;
    const uint64_t i = (uint64_t)blockIdx.x * (2 * THREADS) + threadIdx.x;
    const T pfx = prefix[blockIdx.x];
    if (i < n) dst[i] = op(pfx, dst[i]);
    if (i + THREADS < n) dst[i + THREADS] = op(pfx, dst[i + THREADS]);
}

/* level sizes: len[0] = n, len[d+1] = ceil(len[d] / tile), until 1 */
static int bs_levels(uint64_t n, uint64_t tile, uint64_t *len, uint64_t *off)
{
    int k = 0;
    uint64_t o = 0;
    len[0] = n;
    while (len[k] > 1) {
        len[k + 1] = gs_cdiv(len[k], tile);
        off[k + 1] = o;
        o += len[k + 1];
        k++;
    }
    if (k == 0) { /* n == 1: one tile, one sum */
        len[1] = 1;
        off[1] = 0;
        o = 1;
        k = 1;
    }
    off[0] = o;
    return k;
}

template <class Tin, class Tout, class Op, int THREADS>
static int scan_bsmem_run(const Tin *in, Tout *out, uint64_t n, Tout *carry, void *scratch, size_t bytes,
                          cudaStream_t s, int exclusive, gs_status *st)
{
    constexpr int TILE = 2 * THREADS;
    if (n == 0) return GS_OK;
    uint64_t len[GS_BL_MAXLEV], off[GS_BL_MAXLEV];
    const int k = bs_levels(n, TILE, len, off);
    const size_t need = (size_t)off[0] * sizeof(Tout);
    GS_FORWARD(gs_check_scratch("scan blelloch-smem", bytes, need, st));
    Tout *t = (Tout *)scratch;
    if (gs_cdiv(n, TILE) > 0x7fffffffull) return gs_fail(st, GS_EUSAGE, "scan blelloch-smem: n too large");
    /* level 0: the input, scanned into out */
    gs_bs_tile_k<Tin, Tout, Op, THREADS><<<(unsigned)len[1], THREADS, 0, s>>>(in, out, n, t + off[1], !exclusive);
    GS_LAUNCH_CHECK(st);
    for (int d = 1; d < k; d++) {
        gs_bs_tile_k<Tout, Tout, Op, THREADS><<<(unsigned)len[d + 1], THREADS, 0, s>>>(t + off[d], t + off[d], len[d],
                                                                                       t + off[d + 1], 0);
        GS_LAUNCH_CHECK(st);
    }
    gs_bl_root_k<Tout, Op><<<1, 1, 0, s>>>(t + off[k], carry);
    GS_LAUNCH_CHECK(st);
    for (int d = k - 1; d >= 1; d--) {
        gs_bs_add_k<Tout, Op, THREADS><<<(unsigned)len[d + 1], THREADS, 0, s>>>(t + off[d], len[d], t + off[d + 1]);
        GS_LAUNCH_CHECK(st);
    }
    gs_bs_add_k<Tout, Op, THREADS><<<(unsigned)len[1], THREADS, 0, s>>>(out, n, t + off[1]);
    GS_LAUNCH_CHECK(st);
    return GS_OK;
}

extern "C" size_t gs_scan_gpu_blelloch_smem_scratch(const gs_scan_params *p, uint64_t n_max)
{
    uint64_t len[GS_BL_MAXLEV], off[GS_BL_MAXLEV];
    bs_levels(n_max ? n_max : 1, 2 * (p->block ? p->block : GS_BS_THREADS), len, off);
    return (size_t)off[0] * gs_type_size(p->out_type);
}

extern "C" int gs_scan_gpu_blelloch_smem(const gs_scan_params *p, const void *d_in, void *d_out, uint64_t n,
                                         void *d_carry, void *d_scratch, size_t scratch_bytes, void *stream,
                                         gs_status *st)
{
    return gs_dispatch_scan(p, st, [&](auto tin, auto tout, auto op) -> int {
        typedef decltype(tin) Tin;
        typedef decltype(tout) Tout;
        auto run = [&](auto threads) -> int {
            return scan_bsmem_run<Tin, Tout, decltype(op), decltype(threads)::value>(
                (const Tin *)d_in, (Tout *)d_out, n, (Tout *)d_carry, d_scratch, scratch_bytes, gs_stream(stream),
                p->exclusive, st);
        };
        if (!p->block) return run(std::integral_constant<int, GS_BS_THREADS>{});
        return gs_dispatch_block<GS_BUILT_BLOCKS(GS_BLOCKS_TPL)>("scan blelloch-smem", p->block, st, run);
    });
}
