/* scan.cu - prefix scans on the GPU: sum, min, max; inclusive or exclusive; any of the six types
 * and the widenings i32->i64, u32->u64, f32->f64 (template <Tin, Tout, Op>). One extern "C"
 * launcher per variant with the gs_scan_gpu_fn signature of kernels.h; scratch asked for first.
 *
 *   naive          Hillis-Steele: ceil(log2 n) launches, each y[i] = x[i-d] op x[i], double
 *                  buffered between the scratch and the output (O(n log n) work).
 *   blelloch       work-efficient up-sweep / down-sweep over a tree of levels kept in global
 *                  memory (level d has ceil(n / 2^d) nodes), one launch per level with a grid sized
 *                  to that level (O(n) work, 2 log2 n launches).
 *   blelloch-smem  2 x 256-element tiles swept up and down in shared memory (indices padded by
 *                  i >> 5 against bank conflicts); the tile sums are scanned the same way,
 *                  recursively, then added back (any n).
 *   lookback       the default: single pass with decoupled look-back (Merrill & Garland 2016).
 *                  A tile is threads x items, loaded with coalesced 16-byte vectors, part into
 *                  shared memory (cp.async) and part into registers (unguarded on full tiles,
 *                  guarded on the last); the tile reduces and publishes its aggregate first, looks
 *                  back over the status words of up to 32 predecessors per step (flag and value
 *                  packed in one 8- or 16-byte word) while its other warps scan, publishes its
 *                  inclusive prefix and stores with streaming 16-byte vectors. Tile = blockIdx.x
 *                  (blocks start in index order, as in CUB). Tile 0 reads the incoming carry
 *                  from d_carry and the last tile writes the chunk total back: no host sync.
 *                  Exact operators (integer sums, min, max) on 4-byte, 16-byte aligned data at the
 *                  default block size take the incremental look-back instead, where the device holds its
 *                  ring (Hopper): persistent blocks, a cooperative launch, each block's prefix
 *                  carried from its previous tile plus the aggregates in between (TUNING.md v5).
 *   cub            cub::DeviceScan: the carry enters as a FutureValue read on the device, in pieces
 *                  of < 2^31 elements, each followed by a one-thread kernel that moves the running
 *                  total into d_carry.
 *
 * Block sizes (p->block, 0 = the tuned default; kernels/gpu_common.cuh): naive and blelloch run
 * their grid-stride kernels at any power of two from 32 to 1024; blelloch-smem (tiles of 2 x
 * threads) and lookback (threads x the default's items) are instantiated for 64, 128, 256 and
 * 512 threads; cub keeps its own. One-thread helper kernels (root, carry) stay one thread.
 *
 * Chunked semantics (kernels.h): out[i] = carry op x[0..i] (inclusive) or carry op x[0..i-1]
 * (exclusive); d_carry holds one out_type value, read and then overwritten with the total.
 * Float sums: every variant combines in a fixed order, so a build, variant and chunk size give
 * the same bits run to run (cub excepted: its look-back folds in whatever order tiles finish). */
#include "gpu_common.cuh"
#include "kernels_gpu.h"

#include <cub/device/device_scan.cuh>

#include <atomic>
#include <stdio.h>

/* ---- shared pieces ------------------------------------------------------------------------------ */

/* The one place that turns (params) into a templated call: f(Tin{}, Tout{}, Op{}). */
template <class F> static int scan_dispatch(const gs_scan_params *p, gs_status *st, F &&f)
{
    return gs_dispatch_pair(p->type, p->out_type, st, [&](auto tin, auto tout) {
        typedef decltype(tout) Tout;
        return gs_dispatch_op<Tout>(p->op, st, [&](auto op) { return f(tin, tout, op); });
    });
}

static int scan_check_scratch(const char *name, size_t have, size_t need, gs_status *st)
{
    if (have < need)
        return gs_fail(st, GS_EDATA, "scan %s: scratch of %zu bytes, %zu needed", name, have, need);
    return GS_OK;
}

/* ============================================================================================
 * lookback
 * ============================================================================================ */

/* Vector x of V accumulators, scanned from the prefix pre (inclusive, or exclusive: shifted by one),
 * stored at out + i0: 16-byte streaming stores when the whole vector lies before n (fast), else
 * element by element up to n. Both look-back kernels store through it. */
template <class Tout, int V, class Op>
GS_DEV void scan_store_vec(Tout *out, uint64_t i0, uint64_t n, const Tout (&x)[V], Tout pre, bool exclusive, bool fast,
                           Op op)
{
    constexpr int VO = 16 / (int)sizeof(Tout); /* output elements per 16-byte vector */
    Tout c[V], o[V];
    c[0] = op(pre, x[0]);
#pragma unroll
    for (int v = 1; v < V; v++) c[v] = op(c[v - 1], x[v]);
#pragma unroll
    for (int v = 0; v < V; v++) o[v] = exclusive ? (v ? c[v - 1] : pre) : c[v];
    if (fast) {
#pragma unroll
        for (int q = 0; q < V / VO; q++) {
            gs_vec16<Tout> w;
#pragma unroll
            for (int v = 0; v < VO; v++) w.v[v] = o[q * VO + v];
            gs_st_vec_cs(out + i0 + q * VO, w);
        }
    } else {
#pragma unroll
        for (int v = 0; v < V; v++)
            if (i0 + v < n) out[i0 + v] = o[v];
    }
}

/* A tile is THREADS x (SIT + RIT) elements. Each warp covers 32 x (SIT + RIT) consecutive
 * elements in groups of 32 16-byte vectors (512 contiguous bytes per instruction); a thread's
 * first SIT items per group row go to shared memory by cp.async, the other RIT into registers by
 * vector loads, so the block holds more of its tile in flight than registers or shared memory
 * alone allow (more resident tiles hide the look-back: kernels/TUNING.md v3). Each thread copies
 * and later reads only its own shared-memory slots: no barrier is needed for them.
 * Order of work: thread sums -> warp reduce -> block aggregate (one barrier), then warp 0
 * publishes the aggregate and looks back while the other warps scan their groups; a second
 * barrier hands out the tile's exclusive prefix. Tile = blockIdx.x: blocks start in index order
 * (as CUB's single-pass scan assumes), so a tile's predecessors are always resident or done. */
template <class Tin, class Tout, class Op, int THREADS, int SIT, int RIT, int MINB>
__global__ void __launch_bounds__(THREADS, MINB)
    gs_scan_lookback_k(const Tin *__restrict__ in, Tout *out, uint64_t n, Tout *carry,
                       typename gs_tile_status<Tout>::word *status, unsigned ntiles, int exclusive, int vec)
{
    constexpr int V = 16 / (int)sizeof(Tin);  /* input elements per 16-byte vector */
    constexpr int VO = 16 / (int)sizeof(Tout); /* output elements per 16-byte vector */
    constexpr int ITEMS = SIT + RIT;
    constexpr int GS = SIT / V, GR = RIT / V, G = GS + GR; /* vectors: staged, in registers, all */
    constexpr int NW = THREADS / 32;
    constexpr int TILE = THREADS * ITEMS;
    static_assert(SIT % V == 0 && RIT % V == 0 && V % VO == 0 && G > 0, "items must be whole vectors");
    typedef gs_tile_status<Tout> S;

    extern __shared__ __align__(16) unsigned char gs_scan_smem[];
    Tin *sm = reinterpret_cast<Tin *>(gs_scan_smem);
    __shared__ Tout s_warp[NW];
    __shared__ Tout s_excl;
    const Op op;

    const unsigned tile = blockIdx.x;
    const int warp = (int)(threadIdx.x >> 5), lane = (int)(threadIdx.x & 31);
    const uint64_t tile_base = (uint64_t)tile * TILE;
    const uint64_t seg = tile_base + (uint64_t)warp * 32 * ITEMS + (uint64_t)lane * V;
    Tin *mine = sm + warp * 32 * SIT + lane * V; /* this thread's vector g is at mine + g * 32 * V */
    /* full tiles with aligned pointers: unguarded; the last tile (or unaligned data): guarded.
     * (Two copies of the body, one per case, measured slower: 0.612 -> 0.637 ms.) */
    const bool fast = vec && tile_base + TILE <= n;

    gs_vec16<Tin> rr[GR > 0 ? GR : 1];
    if (fast) {
#pragma unroll
        for (int g = 0; g < GS; g++) gs_cp_async_16(mine + g * 32 * V, in + seg + (uint64_t)g * 32 * V);
        gs_cp_async_commit();
#pragma unroll
        for (int g = 0; g < GR; g++) rr[g] = gs_ld_vec(in + seg + (uint64_t)(GS + g) * 32 * V);
        gs_cp_async_wait_all();
    } else { /* the last tile, or unaligned pointers: element by element; slots past n unused */
#pragma unroll
        for (int g = 0; g < G; g++)
#pragma unroll
            for (int v = 0; v < V; v++) {
                const uint64_t i = seg + (uint64_t)g * 32 * V + v;
                const Tin e = i < n ? in[i] : Tin(0);
                if (g < GS) mine[g * 32 * V + v] = e;
                else rr[g - GS < 0 ? 0 : g - GS].v[v] = e;
            }
    }
    /* vector g as accumulator values; past n: the identity */
    auto group = [&](int g, Tout (&x)[V]) {
        gs_vec16<Tin> r;
        if (g < GS) r = *reinterpret_cast<const gs_vec16<Tin> *>(mine + g * 32 * V);
        else r = rr[g - GS < 0 ? 0 : g - GS];
#pragma unroll
        for (int v = 0; v < V; v++) x[v] = (Tout)r.v[v];
        if (!fast)
#pragma unroll
            for (int v = 0; v < V; v++)
                if (seg + (uint64_t)g * 32 * V + v >= n) x[v] = Op::identity();
    };

    /* the tile's aggregate first: it is what later tiles wait for */
    Tout gsum[G];
#pragma unroll
    for (int g = 0; g < G; g++) {
        Tout x[V];
        group(g, x);
        gsum[g] = x[0];
#pragma unroll
        for (int v = 1; v < V; v++) gsum[g] = op(gsum[g], x[v]);
    }
    Tout tsum = gsum[0];
#pragma unroll
    for (int g = 1; g < G; g++) tsum = op(tsum, gsum[g]);
    const Tout wsum = gs_warp_allreduce(tsum, op);
    if (lane == 0) s_warp[warp] = wsum;
    __syncthreads();

    if (warp == 0) {
        const Tout agg = gs_warp_allreduce(lane < NW ? s_warp[lane] : Op::identity(), op);
        Tout excl;
        if (tile == 0) {
            excl = *carry;
            if (lane == 0) S::put(&status[0], GS_TILE_P, op(excl, agg));
        } else {
            if (lane == 0) S::put(&status[tile], GS_TILE_A, agg);
            excl = gs_lookback<Tout>(status, (int64_t)tile, op);
            if (lane == 0) S::put(&status[tile], GS_TILE_P, op(excl, agg));
        }
        if (lane == 0) {
            s_excl = excl;
            if (tile == ntiles - 1) *carry = op(excl, agg);
        }
    }
    Tout wpre = Op::identity(); /* the warps before this one, left to right */
#pragma unroll
    for (int w = 0; w < NW - 1; w++)
        if (w < warp) wpre = op(wpre, s_warp[w]);
    __syncthreads();

    Tout run = op(s_excl, wpre);
#pragma unroll
    for (int g = 0; g < G; g++) {
        const Tout inc = gs_warp_scan_incl(gsum[g], op);
        const Tout exc = __shfl_up_sync(GS_FULL_MASK, inc, 1);
        const Tout tot = __shfl_sync(GS_FULL_MASK, inc, 31);
        const Tout pre = lane ? op(run, exc) : run;
        run = op(run, tot);
        Tout x[V];
        group(g, x);
        scan_store_vec(out, seg + (uint64_t)g * 32 * V, n, x, pre, exclusive, fast, op);
    }
}

/* shape by input element size; the minimum of resident blocks by output element size */
template <class Tin, class Tout> struct scan_lb_cfg {
    static constexpr gs_scan_cfg c = sizeof(Tin) == 4 ? gs_scan_lookback_cfg4 : gs_scan_lookback_cfg8;
    static constexpr int tile = c.threads * (c.sitems + c.ritems);
    static constexpr int minb = sizeof(Tout) == 4 ? c.minb4 : c.minb8;
};

static size_t scan_lb_bytes(uint64_t ntiles, size_t word) { return 256 + (size_t)ntiles * word; }

template <class Tin, class Tout, class Op, int THREADS, int SIT, int RIT, int MINB>
static int scan_lookback_run(const Tin *in, Tout *out, uint64_t n, Tout *carry, void *scratch, size_t bytes,
                             cudaStream_t s, int exclusive, gs_status *st)
{
    typedef typename gs_tile_status<Tout>::word W;
    constexpr int TILE = THREADS * (SIT + RIT);
    constexpr size_t SMEM = (size_t)THREADS * SIT * sizeof(Tin);
    if (n == 0) return GS_OK;
    const uint64_t ntiles = gs_cdiv(n, TILE);
    if (ntiles > 0x7fffffffull) return gs_fail(st, GS_EUSAGE, "scan lookback: %llu elements is too many", (unsigned long long)n);
    const size_t need = scan_lb_bytes(ntiles, sizeof(W));
    GS_FORWARD(scan_check_scratch("lookback", bytes, need, st));
    GS_CUDA_CHECK(st, cudaMemsetAsync(scratch, 0, need, s));
    W *status = (W *)((char *)scratch + 256);
    const int vec = gs_aligned16(in) && gs_aligned16(out);
    if (SMEM > 48 * 1024) /* --block 256 and 512 */
        GS_CUDA_CHECK(st, cudaFuncSetAttribute(gs_scan_lookback_k<Tin, Tout, Op, THREADS, SIT, RIT, MINB>,
                                               cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM));
    gs_scan_lookback_k<Tin, Tout, Op, THREADS, SIT, RIT, MINB><<<(unsigned)ntiles, THREADS, SMEM, s>>>(
        in, out, n, carry, status, (unsigned)ntiles, exclusive, vec);
    GS_LAUNCH_CHECK(st);
    return GS_OK;
}

/* ---- lookback for exact operators: incremental look-back over persistent blocks ----------------
 * (kernels/TUNING.md v5.) The grid is the blocks that fit at once (a cooperative launch: all are
 * resident) and block b scans tiles b, b + G, b + 2G, ... Its exclusive prefix for tile t is its
 * prefix for its previous tile tp, op the aggregate of tp, op the aggregates of tiles tp+1 .. t-1,
 * which their blocks publish as soon as their data has landed. No tile waits for an inclusive
 * prefix, so no chain of look-backs runs across blocks. Tiles arrive in an ST-stage cp.async ring
 * in shared memory; the tile A rounds ahead is reduced and published before this one looks back,
 * and warp 0 issues its status loads before that work and spins on them after. Each thread reads
 * only the shared-memory slots it copied itself, so the ring needs no barrier. Exact operators
 * only: the aggregates are folded as a tree (float sums take the kernel above, whose fold order
 * does not depend on timing). The incoming carry is folded into tile 0's published aggregate, and
 * the block with the last tile writes the chunk total back. */
template <class Tin, class Tout, class Op, int THREADS, int ITEMS, int ST, int A, int KU>
__global__ void __launch_bounds__(THREADS, 1)
    gs_scan_incr_k(const Tin *__restrict__ in, Tout *out, uint64_t n, Tout *carry,
                   typename gs_tile_status<Tout>::word *status, uint64_t ntiles, int exclusive)
{
    static_assert(ITEMS % (16 / (int)sizeof(Tin)) == 0 && sizeof(Tout) >= sizeof(Tin), "items must be whole vectors");
    static_assert(A >= 1 && A + 1 < ST, "one stage in flight beyond the reduced one; A = 0 waits on this round");
    static_assert(Op::exact, "the aggregates are folded in any order");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    /* before Hopper the shared memory does not hold the ring (the host then takes the kernel above),
     * so no code is built for it here: a shorter build */
    __trap();
#else
    constexpr int V = 16 / (int)sizeof(Tin), G = ITEMS / V, NW = THREADS / 32, TILE = THREADS * ITEMS;
    typedef gs_tile_status<Tout> S;

    extern __shared__ __align__(16) unsigned char gs_scan_smem[];
    __shared__ Tout s_wsum[ST][NW]; /* warp sums of the tile in each stage */
    __shared__ Tout s_agg[ST];      /* its aggregate as published */
    __shared__ Tout s_excl;
    const Op op;
    const uint64_t grid = gridDim.x, b = blockIdx.x;
    const int warp = (int)(threadIdx.x >> 5), lane = (int)(threadIdx.x & 31);
    const unsigned nk = (unsigned)((ntiles - 1 - b) / grid + 1); /* rounds of this block (grid <= ntiles) */
    const int off = warp * 32 * ITEMS + lane * V; /* this thread's vector g: + g * 32 * V */
    auto tile_of = [&](unsigned k) { return b + (uint64_t)k * grid; };
    auto mine = [&](unsigned k) { return reinterpret_cast<Tin *>(gs_scan_smem) + (k % ST) * TILE + off; };
    auto full = [&](unsigned k) { return (tile_of(k) + 1) * TILE <= n; };

    auto issue = [&](unsigned k) { /* the tile of round k into its stage; one commit group a round */
        if (k < nk) {
            const uint64_t seg = tile_of(k) * TILE + off;
            Tin *dst = mine(k);
            if (full(k)) {
#pragma unroll
                for (int g = 0; g < G; g++) gs_cp_async_16(dst + g * 32 * V, in + seg + (uint64_t)g * 32 * V);
            } else { /* the last tile: element by element; slots past n unused */
#pragma unroll
                for (int g = 0; g < G; g++)
#pragma unroll
                    for (int v = 0; v < V; v++) {
                        const uint64_t i = seg + (uint64_t)g * 32 * V + v;
                        dst[g * 32 * V + v] = i < n ? in[i] : Tin(0);
                    }
            }
        }
        gs_cp_async_commit();
    };
    /* The passes over a tile are called with constant flags (fc: a full tile; ec: exclusive) in
     * separate calls, so that each inlined copy keeps only its own path: with one warp per
     * scheduler nothing hides an instruction, and the hot path carries no test it does not need.
     * Vector g of a tile (its slots p, first element seg) as accumulators; past n: the identity. */
    auto group = [&](bool fc, const Tin *p, uint64_t seg, int g, Tout (&x)[V]) {
        const gs_vec16<Tin> r = *reinterpret_cast<const gs_vec16<Tin> *>(p + g * 32 * V);
#pragma unroll
        for (int v = 0; v < V; v++) x[v] = (Tout)r.v[v];
        if (!fc) {
            const uint64_t i0 = seg + (uint64_t)g * 32 * V;
#pragma unroll
            for (int v = 0; v < V; v++)
                if (i0 + v >= n) x[v] = Op::identity();
        }
    };
    auto vsum = [&](const Tout (&x)[V]) {
        Tout s = x[0];
#pragma unroll
        for (int v = 1; v < V; v++) s = op(s, x[v]);
        return s;
    };
    auto reduce_pass = [&](bool fc, unsigned k) { /* warp sums of round k's tile */
        const Tin *p = mine(k);
        const uint64_t seg = tile_of(k) * TILE + off;
        Tout t = Op::identity();
#pragma unroll
        for (int g = 0; g < G; g++) {
            Tout x[V];
            group(fc, p, seg, g, x);
            t = op(t, vsum(x));
        }
        t = gs_warp_allreduce(t, op);
        if (lane == 0) s_wsum[k % ST][warp] = t;
    };
    auto reduce = [&](unsigned k) {
        if (full(k)) reduce_pass(true, k);
        else reduce_pass(false, k);
    };
    /* the tile's group sums, scanned within the warp: each group's exclusive prefix in the warp */
    auto prep_pass = [&](bool fc, const Tin *p, uint64_t seg, Tout (&gexcl)[G]) {
        Tout run = Op::identity();
#pragma unroll
        for (int g = 0; g < G; g++) {
            Tout x[V];
            group(fc, p, seg, g, x);
            const Tout inc = gs_warp_scan_incl(vsum(x), op);
            const Tout exc = __shfl_up_sync(GS_FULL_MASK, inc, 1);
            const Tout tot = __shfl_sync(GS_FULL_MASK, inc, 31);
            gexcl[g] = lane ? op(run, exc) : run;
            run = op(run, tot);
        }
    };
    auto store_pass = [&](bool fc, bool ec, const Tin *p, uint64_t seg, Tout wpre, const Tout (&gexcl)[G]) {
#pragma unroll
        for (int g = 0; g < G; g++) {
            Tout x[V];
            group(fc, p, seg, g, x);
            scan_store_vec(out, seg + (uint64_t)g * 32 * V, n, x, op(wpre, gexcl[g]), ec, fc, op);
        }
    };
    Tout c0 = Op::identity(); /* warp 0 of block 0: the incoming carry */
    auto publish = [&](unsigned k) { /* warp 0, after the barrier that follows reduce(k) */
        Tout a = gs_warp_allreduce(lane < NW ? s_wsum[k % ST][lane] : Op::identity(), op);
        if (tile_of(k) == 0) {
            c0 = *carry;
            a = op(c0, a);
        }
        if (lane == 0) {
            S::put(&status[tile_of(k)], GS_TILE_A, a);
            s_agg[k % ST] = a;
        }
    };

#pragma unroll 1
    for (int k = 0; k < ST - 1; k++) issue(k);
    Tout chain = Op::identity(); /* warp 0: the fold of the published aggregates before its last tile */
#pragma unroll 1
    for (unsigned k = 0; k < nk; k++) {
        issue(k + ST - 1);
        gs_cp_async_wait<ST - 1 - A>(); /* rounds up to k + A have landed (this thread's slots) */
        const uint64_t t = tile_of(k), lo = k ? t - grid + 1 : 0;
        typename S::word w[KU];
        if (warp == 0) /* the first pass of status loads, in flight during the work below */
#pragma unroll
            for (int u = 0; u < KU; u++) {
                const uint64_t i = lo + u * 32 + lane;
                if (i < t) w[u] = S::load(&status[i]);
            }
        const unsigned r0 = k ? k + A : 0;
#pragma unroll 1
        for (unsigned r = r0; r <= k + A && r < nk; r++) reduce(r);
        const Tin *p = mine(k);
        const bool fast = full(k);
        const uint64_t seg = t * TILE + off;
        Tout gexcl[G];
        if (fast) prep_pass(true, p, seg, gexcl);
        else prep_pass(false, p, seg, gexcl);
        __syncthreads();
        if (warp == 0) {
#pragma unroll 1
            for (unsigned r = r0; r <= k + A && r < nk; r++) publish(r);
            Tout acc = Op::identity();
#pragma unroll 1
            for (uint64_t base = lo; base < t; base += 32 * KU) {
#pragma unroll
                for (int u = 0; u < KU; u++) {
                    const uint64_t i = base + u * 32 + lane;
                    if (i >= t) continue;
                    int flag;
                    Tout v;
                    if (base != lo) w[u] = S::load(&status[i]);
                    S::split(w[u], &flag, &v);
                    while (flag == GS_TILE_X) S::get(&status[i], &flag, &v);
                    acc = op(acc, v);
                }
            }
            acc = gs_warp_allreduce(acc, op);
            Tout excl;
            if (k == 0) {
                excl = t ? acc : c0; /* tile 0's aggregate carries c0 for everyone after it */
                chain = acc;
            } else {
                excl = op(op(chain, s_agg[(k - 1) % ST]), acc);
                chain = excl;
            }
            if (lane == 0) {
                s_excl = excl;
                if (t == ntiles - 1) *carry = t ? op(excl, s_agg[k % ST]) : s_agg[0];
            }
        }
        __syncthreads();
        Tout wpre = s_excl;
#pragma unroll
        for (int v = 0; v < NW - 1; v++)
            if (v < warp) wpre = op(wpre, s_wsum[k % ST][v]);
        if (fast) {
            if (exclusive) store_pass(true, true, p, seg, wpre, gexcl);
            else store_pass(true, false, p, seg, wpre, gexcl);
        } else {
            if (exclusive) store_pass(false, true, p, seg, wpre, gexcl);
            else store_pass(false, false, p, seg, wpre, gexcl);
        }
    }
    gs_cp_async_wait_all();
#endif
}

/* the incremental kernel's shape for THREADS threads and BYTES-byte tiles (the tune hook tries others) */
template <class Tin, int THREADS, int BYTES = gs_scan_lookback_incr_cfg.bytes> struct scan_incr_shape {
    static constexpr gs_scan_incr_cfg c = gs_scan_lookback_incr_cfg;
    static constexpr int items = BYTES / (THREADS * (int)sizeof(Tin));
    static constexpr int tile = THREADS * items;
    static constexpr size_t smem = (size_t)c.stages * tile * sizeof(Tin);
    static constexpr int ku = 5; /* status words a lane loads per pass: 160 tiles between a block's two */
};

/* Blocks of gs_scan_incr_k<...> that fit at once on the current device (0: none, or an error: the
 * caller takes the other kernel). Asked once per instantiation and device: the answer is kept as
 * device << 32 | blocks (racing threads would only ask twice). */
template <class Tin, class Tout, class Op, int THREADS, int BYTES>
static int scan_incr_capacity(const void *kernel, size_t smem)
{
    static std::atomic<long long> known{-1};
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) return 0;
    const long long k = known.load(std::memory_order_relaxed);
    if (k >= 0 && (int)(k >> 32) == dev) return (int)(k & 0xffffffff);
    int coop = 0, sms = 0, per = 0;
    if (cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev) != cudaSuccess || !coop ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kernel, THREADS, smem) != cudaSuccess)
        per = 0;
    (void)cudaGetLastError(); /* a refused attribute is an answer here, not an error to keep */
    known.store((long long)dev << 32 | (unsigned)(per * sms), std::memory_order_relaxed);
    return per * sms;
}

/* GS_OK, an error code, or SCAN_INCR_NO_FIT: this device cannot run the kernel (the caller falls back) */
enum { SCAN_INCR_NO_FIT = -1 };
template <class Tin, class Tout, class Op, int THREADS, int BYTES = gs_scan_lookback_incr_cfg.bytes>
static int scan_incr_run(const Tin *in, Tout *out, uint64_t n, Tout *carry, void *scratch, size_t bytes,
                         cudaStream_t s, int exclusive, gs_status *st)
{
    typedef scan_incr_shape<Tin, THREADS, BYTES> C;
    typedef typename gs_tile_status<Tout>::word W;
    auto kernel = gs_scan_incr_k<Tin, Tout, Op, THREADS, C::items, C::c.stages, C::c.ahead, C::ku>;
    const int cap = scan_incr_capacity<Tin, Tout, Op, THREADS, BYTES>((const void *)kernel, C::smem);
    if (cap <= 0) return SCAN_INCR_NO_FIT;
    if (n == 0) return GS_OK;
    const uint64_t ntiles = gs_cdiv(n, C::tile);
    const size_t need = scan_lb_bytes(ntiles, sizeof(W));
    GS_FORWARD(scan_check_scratch("lookback", bytes, need, st));
    GS_CUDA_CHECK(st, cudaMemsetAsync(scratch, 0, need, s));
    W *status = (W *)((char *)scratch + 256);
    const unsigned grid = (unsigned)(ntiles < (uint64_t)cap ? ntiles : (uint64_t)cap);
    void *args[] = {(void *)&in, (void *)&out, (void *)&n, (void *)&carry, (void *)&status, (void *)&ntiles, (void *)&exclusive};
    /* cooperative: every block resident at once, which the look-back across rounds relies on. Where
     * fewer SMs are ours than the device has (an MPS share), the launch is refused: fall back. */
    const cudaError_t e = cudaLaunchCooperativeKernel((const void *)kernel, grid, THREADS, args, C::smem, s);
    if (e == cudaErrorCooperativeLaunchTooLarge) {
        (void)cudaGetLastError();
        return SCAN_INCR_NO_FIT;
    }
    GS_CUDA_CHECK(st, e);
    return GS_OK;
}

/* Other tile shapes for i32 -> i32, sum (tests/gpu --bench --tune measures them; the best
 * becomes gs_scan_lookback_cfg4). Not part of the registry. */
extern "C" int gs_scan_gpu_lookback_tune(int k, char *desc, size_t dlen, const void *d_in, void *d_out, uint64_t n,
                                         void *d_carry, void *d_scratch, size_t scratch_bytes, void *stream,
                                         gs_status *st)
{
    typedef int32_t T;
    typedef gs_op_sum<T> Op;
    const cudaStream_t s = gs_stream(stream);
    const T *in = (const T *)d_in;
    T *out = (T *)d_out, *c = (T *)d_carry;
#define GS_TUNE(K, TH, SI, RI, MB)                                                                           \
    case K:                                                                                                  \
        snprintf(desc, dlen, "%dx(%d+%d) min %d", TH, SI, RI, MB);                                          \
        return scan_lookback_run<T, T, Op, TH, SI, RI, MB>(in, out, n, c, d_scratch, scratch_bytes, s, 0, st);
    switch (k) {
        GS_TUNE(0, 128, 52, 28, 7)
        GS_TUNE(1, 128, 44, 20, 9)
        GS_TUNE(2, 128, 44, 28, 8)
#define GS_TUNE_INCR(K, TH, KB)                                                                               \
    case K: {                                                                                                \
        snprintf(desc, dlen, "incr %dx%d, %d stages", TH, scan_incr_shape<T, TH, KB * 1024>::items,                 \
                 scan_incr_shape<T, TH, KB * 1024>::c.stages);                                                       \
        const int rc = scan_incr_run<T, T, Op, TH, KB * 1024>(in, out, n, c, d_scratch, scratch_bytes, s, 0, st);  \
        return rc == SCAN_INCR_NO_FIT ? gs_fail(st, GS_EDATA, "scan lookback: %s does not fit this device", desc) : rc; \
    }
        GS_TUNE_INCR(3, 128, 64) /* the default for exact operators on 4-byte data */
        GS_TUNE_INCR(4, 128, 72)
        GS_TUNE_INCR(5, 128, 56)
        GS_TUNE_INCR(6, 256, 64)
        GS_TUNE_INCR(7, 256, 72)
    default: return GS_EUSAGE;
    }
#undef GS_TUNE_INCR
#undef GS_TUNE
}

extern "C" size_t gs_scan_gpu_lookback_scratch(const gs_scan_params *p, uint64_t n_max)
{
    const gs_scan_cfg c = gs_type_size(p->type) == 4 ? gs_scan_lookback_cfg4 : gs_scan_lookback_cfg8;
    const int tile = (p->block ? p->block : c.threads) * (c.sitems + c.ritems);
    const int itile = gs_scan_lookback_incr_cfg.bytes / gs_type_size(p->type); /* the incremental kernel's */
    return scan_lb_bytes(gs_cdiv(n_max, tile < itile ? tile : itile) + 1, 16);
}

extern "C" int gs_scan_gpu_lookback(const gs_scan_params *p, const void *d_in, void *d_out, uint64_t n, void *d_carry,
                                    void *d_scratch, size_t scratch_bytes, void *stream, gs_status *st)
{
    return scan_dispatch(p, st, [&](auto tin, auto tout, auto op) -> int {
        typedef decltype(tin) Tin;
        typedef decltype(tout) Tout;
        typedef scan_lb_cfg<Tin, Tout> C;
        /* other thread counts keep the default's items per thread and about its registers */
        typedef decltype(op) Op;
        auto run = [&](auto threads) -> int {
            constexpr int TH = decltype(threads)::value;
            constexpr int MB = TH == C::c.threads ? C::minb : C::minb * C::c.threads / TH > 0 ? C::minb * C::c.threads / TH : 1;
            /* exact operators on 4-byte data at the default block size: the incremental look-back,
             * where the device can run it. 8-byte data measured slower with it (i64 sum 1.40 ms
             * against 1.29), and other block sizes keep the build shorter. */
            if constexpr (Op::exact && sizeof(Tin) == 4 && sizeof(Tout) == 4 && TH == gs_scan_lookback_incr_cfg.threads)
                if (gs_aligned16(d_in) && gs_aligned16(d_out)) {
                    const int rc = scan_incr_run<Tin, Tout, Op, TH>((const Tin *)d_in, (Tout *)d_out, n, (Tout *)d_carry,
                                                                    d_scratch, scratch_bytes, gs_stream(stream),
                                                                    p->exclusive, st);
                    if (rc != SCAN_INCR_NO_FIT) return rc;
                }
            return scan_lookback_run<Tin, Tout, Op, TH, C::c.sitems, C::c.ritems, MB>(
                (const Tin *)d_in, (Tout *)d_out, n, (Tout *)d_carry, d_scratch, scratch_bytes, gs_stream(stream),
                p->exclusive, st);
        };
        if (!p->block) return run(std::integral_constant<int, C::c.threads>{});
        return gs_dispatch_block<GS_BLOCKS_TPL>("scan lookback", p->block, st, run);
    });
}

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

static unsigned grid_for(uint64_t n, int threads)
{
    uint64_t b = gs_cdiv(n, (uint64_t)threads);
    return (unsigned)(b < 1 ? 1 : b > 65535ull * 16 ? 65535ull * 16 : b);
}

template <class Tin, class Tout, class Op>
static int scan_naive_run(const Tin *in, Tout *out, uint64_t n, Tout *carry, void *scratch, size_t bytes,
                          cudaStream_t s, int exclusive, int T, gs_status *st)
{
    if (n == 0) return GS_OK;
    const size_t need = 256 + (size_t)n * sizeof(Tout);
    GS_FORWARD(scan_check_scratch("naive", bytes, need, st));
    Tout *c0 = (Tout *)scratch;
    Tout *buf = (Tout *)((char *)scratch + 256);
    const unsigned grid = grid_for(n, T);
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
    return scan_dispatch(p, st, [&](auto tin, auto tout, auto op) -> int {
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
    GS_FORWARD(scan_check_scratch("blelloch", bytes, need, st));
    Tout *t = (Tout *)scratch;
    gs_bl_up_leaf_k<Tin, Tout, Op><<<grid_for(len[1], T), T, 0, s>>>(in, n, t + off[1], len[1]);
    GS_LAUNCH_CHECK(st);
    for (int d = 2; d <= k; d++) {
        gs_bl_up_k<Tout, Op><<<grid_for(len[d], T), T, 0, s>>>(t + off[d - 1], len[d - 1], t + off[d], len[d]);
        GS_LAUNCH_CHECK(st);
    }
    gs_bl_root_k<Tout, Op><<<1, 1, 0, s>>>(t + off[k], carry);
    GS_LAUNCH_CHECK(st);
    for (int d = k; d >= 2; d--) {
        gs_bl_down_k<Tout, Op><<<grid_for(len[d], T), T, 0, s>>>(t + off[d - 1], len[d - 1], t + off[d], len[d]);
        GS_LAUNCH_CHECK(st);
    }
    gs_bl_leaf_k<Tin, Tout, Op><<<grid_for(len[1], T), T, 0, s>>>(in, out, n, t + off[1], len[1], exclusive);
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
    return scan_dispatch(p, st, [&](auto tin, auto tout, auto op) -> int {
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
    GS_FORWARD(scan_check_scratch("blelloch-smem", bytes, need, st));
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
    return scan_dispatch(p, st, [&](auto tin, auto tout, auto op) -> int {
        typedef decltype(tin) Tin;
        typedef decltype(tout) Tout;
        auto run = [&](auto threads) -> int {
            return scan_bsmem_run<Tin, Tout, decltype(op), decltype(threads)::value>(
                (const Tin *)d_in, (Tout *)d_out, n, (Tout *)d_carry, d_scratch, scratch_bytes, gs_stream(stream),
                p->exclusive, st);
        };
        if (!p->block) return run(std::integral_constant<int, GS_BS_THREADS>{});
        return gs_dispatch_block<GS_BLOCKS_TPL>("scan blelloch-smem", p->block, st, run);
    });
}

/* ============================================================================================
 * cub
 * ============================================================================================ */

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
        GS_FORWARD(scan_check_scratch("cub", bytes, need, st));
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
    (void)scan_dispatch(p, &st, [&](auto tin, auto tout, auto op) -> int {
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
    return scan_dispatch(p, st, [&](auto tin, auto tout, auto op) -> int {
        typedef decltype(tin) Tin;
        typedef decltype(tout) Tout;
        return scan_cub_run<Tin, Tout, decltype(op)>((const Tin *)d_in, (Tout *)d_out, n, (Tout *)d_carry, d_scratch,
                                                     scratch_bytes, gs_stream(stream), p->exclusive, st);
    });
}
