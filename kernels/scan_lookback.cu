/* scan_lookback.cu - the default GPU scan: single pass with decoupled look-back (Merrill & Garland
 * 2016); sum, min, max, inclusive or exclusive, the six types and the widenings (template <Tin,
 * Tout, Op>); the gs_scan_gpu_fn launcher of kernels.h. Two kernels:
 *
 *   gs_scan_lookback_k  a tile is threads x items, loaded with coalesced 16-byte vectors, part into
 *                       shared memory (cp.async) and part into registers (unguarded on full tiles,
 *                       guarded on the last); the tile reduces and publishes its aggregate first,
 *                       looks back over the status words of up to 32 predecessors per step (flag
 *                       and value packed in one 8- or 16-byte word) while its other warps scan,
 *                       publishes its inclusive prefix and stores with streaming 16-byte vectors.
 *                       Tile = blockIdx.x (blocks start in index order, as in CUB). Tile 0 reads
 *                       the incoming carry from d_carry and the last tile writes the chunk total
 *                       back: no host sync. Float sums and 8-byte types take it.
 *   gs_scan_incr_k      exact operators (integer sums, min, max) on 4-byte, 16-byte aligned data at
 *                       the default block size, where the device holds its ring (Hopper):
 *                       persistent blocks, a cooperative launch, each block's prefix carried from
 *                       its previous tile plus the aggregates in between (TUNING.md v5).
 *
 * Shapes: tuning.h (gs_scan_lookback_cfg4 / cfg8 / incr_cfg). make TUNING=1 also builds 64, 256 and
 * 512 threads for p->block (the default's items per thread) and the shapes of the tune hook.
 *
 * Chunked semantics (kernels.h): out[i] = carry op x[0..i] (inclusive) or carry op x[0..i-1]
 * (exclusive); d_carry holds one out_type value, read and then overwritten with the total.
 * Float sums fold in a fixed order, so a build and chunk size give the same bits run to run. */
#include "gpu_common.cuh"
#include "gpu_lookback.cuh"
#include "kernels_gpu.h"

#include <atomic>
#include <stdio.h>

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
    GS_FORWARD(gs_check_scratch("scan lookback", bytes, need, st));
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

/* The phases of gs_scan_incr_k. Its passes over a tile are called with constant flags (fc: a full
 * tile; ec: exclusive) in separate calls, so that each inlined copy keeps only its own path: with
 * one warp per scheduler nothing hides an instruction, and the hot path carries no test it does
 * not need. A thread's slots of a tile: vector g at p + g * 32 * V, its first element seg. */

/* The tile's vectors into this thread's slots dst: cp.async on a full tile (fc), else element by
 * element (the last tile; slots past n unused). */
template <class Tin, int V, int G>
GS_DEV void scan_incr_load(bool fc, const Tin *__restrict__ in, uint64_t n, Tin *dst, uint64_t seg)
{
    if (fc) {
#pragma unroll
        for (int g = 0; g < G; g++) gs_cp_async_16(dst + g * 32 * V, in + seg + (uint64_t)g * 32 * V);
    } else {
#pragma unroll
        for (int g = 0; g < G; g++)
#pragma unroll
            for (int v = 0; v < V; v++) {
                const uint64_t i = seg + (uint64_t)g * 32 * V + v;
                dst[g * 32 * V + v] = i < n ? in[i] : Tin(0);
            }
    }
}

/* Vector g of the tile as accumulators; past n: the identity. */
template <class Tin, class Tout, class Op, int V>
GS_DEV void scan_incr_group(bool fc, const Tin *p, uint64_t seg, uint64_t n, int g, Tout (&x)[V])
{
    const gs_vec16<Tin> r = *reinterpret_cast<const gs_vec16<Tin> *>(p + g * 32 * V);
#pragma unroll
    for (int v = 0; v < V; v++) x[v] = (Tout)r.v[v];
    if (!fc) {
        const uint64_t i0 = seg + (uint64_t)g * 32 * V;
#pragma unroll
        for (int v = 0; v < V; v++)
            if (i0 + v >= n) x[v] = Op::identity();
    }
}

template <class Tout, int V, class Op> GS_DEV Tout scan_incr_vsum(const Tout (&x)[V], Op op)
{
    Tout s = x[0];
#pragma unroll
    for (int v = 1; v < V; v++) s = op(s, x[v]);
    return s;
}

/* The warp's sum of the tile, in every lane. */
template <class Tin, class Tout, class Op, int V, int G>
GS_DEV Tout scan_incr_warp_sum(bool fc, const Tin *p, uint64_t seg, uint64_t n, Op op)
{
    Tout t = Op::identity();
#pragma unroll
    for (int g = 0; g < G; g++) {
        Tout x[V];
        scan_incr_group<Tin, Tout, Op, V>(fc, p, seg, n, g, x);
        t = op(t, scan_incr_vsum(x, op));
    }
    return gs_warp_allreduce(t, op);
}

/* The tile's group sums, scanned within the warp: each group's exclusive prefix in the warp. */
template <class Tin, class Tout, class Op, int V, int G>
GS_DEV void scan_incr_prep_pass(bool fc, const Tin *p, uint64_t seg, uint64_t n, int lane, Tout (&gexcl)[G], Op op)
{
    Tout run = Op::identity();
#pragma unroll
    for (int g = 0; g < G; g++) {
        Tout x[V];
        scan_incr_group<Tin, Tout, Op, V>(fc, p, seg, n, g, x);
        const Tout inc = gs_warp_scan_incl(scan_incr_vsum(x, op), op);
        const Tout exc = __shfl_up_sync(GS_FULL_MASK, inc, 1);
        const Tout tot = __shfl_sync(GS_FULL_MASK, inc, 31);
        gexcl[g] = lane ? op(run, exc) : run;
        run = op(run, tot);
    }
}

/* The tile's outputs from the warp's prefix wpre and the groups' exclusive prefixes. */
template <class Tin, class Tout, class Op, int V, int G>
GS_DEV void scan_incr_store_pass(bool fc, bool ec, const Tin *p, uint64_t seg, uint64_t n, Tout *out, Tout wpre,
                                 const Tout (&gexcl)[G], Op op)
{
#pragma unroll
    for (int g = 0; g < G; g++) {
        Tout x[V];
        scan_incr_group<Tin, Tout, Op, V>(fc, p, seg, n, g, x);
        scan_store_vec(out, seg + (uint64_t)g * 32 * V, n, x, op(wpre, gexcl[g]), ec, fc, op);
    }
}

/* Warp 0: the first pass of status loads for tiles lo .. t-1 (KU words a lane), issued early so
 * that they are in flight during the tile's other work. */
template <class S, int KU>
GS_DEV void scan_incr_peek(typename S::word *status, uint64_t lo, uint64_t t, int lane, typename S::word (&w)[KU])
{
#pragma unroll
    for (int u = 0; u < KU; u++) {
        const uint64_t i = lo + u * 32 + lane;
        if (i < t) w[u] = S::load(&status[i]);
    }
}

/* Warp 0: the fold of the published aggregates of tiles lo .. t-1, each waited for (the first
 * pass from w, the later ones loaded here), reduced over the warp. */
template <class S, class Tout, class Op, int KU>
GS_DEV Tout scan_incr_fold(typename S::word *status, uint64_t lo, uint64_t t, int lane, typename S::word (&w)[KU],
                           Op op)
{
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
    return gs_warp_allreduce(acc, op);
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
        if (k < nk) scan_incr_load<Tin, V, G>(full(k), in, n, mine(k), tile_of(k) * TILE + off);
        gs_cp_async_commit();
    };
    auto reduce_pass = [&](bool fc, unsigned k) { /* warp sums of round k's tile */
        const Tin *p = mine(k);
        const uint64_t seg = tile_of(k) * TILE + off;
        const Tout t = scan_incr_warp_sum<Tin, Tout, Op, V, G>(fc, p, seg, n, op);
        if (lane == 0) s_wsum[k % ST][warp] = t;
    };
    auto reduce = [&](unsigned k) {
        if (full(k)) reduce_pass(true, k);
        else reduce_pass(false, k);
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
        if (warp == 0) scan_incr_peek<S>(status, lo, t, lane, w);
        const unsigned r0 = k ? k + A : 0;
#pragma unroll 1
        for (unsigned r = r0; r <= k + A && r < nk; r++) reduce(r);
        const Tin *p = mine(k);
        const bool fast = full(k);
        const uint64_t seg = t * TILE + off;
        Tout gexcl[G];
        if (fast) scan_incr_prep_pass<Tin, Tout, Op, V>(true, p, seg, n, lane, gexcl, op);
        else scan_incr_prep_pass<Tin, Tout, Op, V>(false, p, seg, n, lane, gexcl, op);
        __syncthreads();
        if (warp == 0) {
#pragma unroll 1
            for (unsigned r = r0; r <= k + A && r < nk; r++) publish(r);
            const Tout acc = scan_incr_fold<S, Tout>(status, lo, t, lane, w, op);
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
            if (exclusive) scan_incr_store_pass<Tin, Tout, Op, V>(true, true, p, seg, n, out, wpre, gexcl, op);
            else scan_incr_store_pass<Tin, Tout, Op, V>(true, false, p, seg, n, out, wpre, gexcl, op);
        } else {
            if (exclusive) scan_incr_store_pass<Tin, Tout, Op, V>(false, true, p, seg, n, out, wpre, gexcl, op);
            else scan_incr_store_pass<Tin, Tout, Op, V>(false, false, p, seg, n, out, wpre, gexcl, op);
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
    GS_FORWARD(gs_check_scratch("scan lookback", bytes, need, st));
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

#ifdef GS_TUNING
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
#endif

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
    return gs_dispatch_scan(p, st, [&](auto tin, auto tout, auto op) -> int {
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
        return gs_dispatch_block<GS_BUILT_BLOCKS(GS_BLOCKS_TPL)>("scan lookback", p->block, st, run);
    });
}
