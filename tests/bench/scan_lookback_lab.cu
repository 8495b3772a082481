/* scan_lookback_lab.cu - the harness behind kernels/TUNING.md v3 and v4: scan i32 sum at 2^28 in
 * device memory, its own copies of the look-back kernel with switches (registers / shared-memory
 * staging / both, ticket or blockIdx, aggregate first, look-back off, per-tile %globaltimer
 * profile, persistent ring; v4: reduce ahead, `ahead`), plain cub::DeviceScan::InclusiveSum,
 * cudaMemcpy D2D and the kernels/scan_lookback.cu kernels themselves, all in one run; median of 15 after a
 * warm-up, L2 flushed before each rep, every scanning variant checked against a CPU scan. Not part
 * of the build or the tests.
 *
 *   make CUDA=1 GPU_ARCH=sm_90 all     # for the registry objects it links with
 *   nvcc -O3 -std=c++17 -arch=sm_90 -Ikernels -Icommon -c tests/bench/scan_lookback_lab.cu -o /tmp/lab.o
 *   B=build/cuda; nvcc -arch=sm_90 -o /tmp/lab /tmp/lab.o common/gs.c $B/kernels/registry.o \
 *       $B/kernels/{scan,compact,minmax}_cpu.o $B/common/pool.o $B/kernels/scan_{basic,cub}.cu.o \
 *       $B/kernels/compact_{basic,lookback,cub}.cu.o $B/kernels/minmax_{basic,vhgw}.cu.o -lpthread
 *   WHICH=prof,smem,fast,hyb,lean,more,cmp,reg,pipe,ahead,incr,prod /tmp/lab [n]    (comma list; default all) */
#include "../../kernels/scan_lookback.cu" /* the committed kernels, for run_general */
#include <cub/device/device_scan.cuh>
#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

typedef int32_t T;
typedef gs_op_sum<T> Op;
typedef gs_tile_status<T> S;
typedef S::word W;
enum { F_CS = 1, F_NOLB = 2, F_NOSCAN = 4 };
#define CK(x)                                                                                         \
    do {                                                                                              \
        cudaError_t e_ = (x);                                                                         \
        if (e_ != cudaSuccess) {                                                                      \
            printf("cuda %s line %d\n", cudaGetErrorString(e_), __LINE__);                            \
            exit(1);                                                                                  \
        }                                                                                             \
    } while (0)

__device__ __forceinline__ void cp16(void *dst, const void *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(gs_smem_u32(dst)), "l"(src) : "memory");
}

/* the next tile from an atomic ticket, in every thread of the block */
__device__ __forceinline__ unsigned take_ticket(unsigned *ticket)
{
    __shared__ unsigned s_tile;
    if (threadIdx.x == 0) s_tile = atomicAdd(ticket, 1u);
    __syncthreads();
    return s_tile;
}

template <int NW, int FL>
__device__ __forceinline__ T block_excl(T run, unsigned tile, unsigned ntiles, W *status, T *s_warp, T *s_excl)
{
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    Op op;
    if (lane == 0) s_warp[warp] = run;
    __syncthreads();
    gs_block_scan_warp_totals<NW>(s_warp, op);
    __syncthreads();
    if (warp == 0) {
        T agg = s_warp[NW], excl = 0;
        if (!(FL & F_NOLB)) {
            if (tile == 0) {
                if (lane == 0) S::put(&status[0], GS_TILE_P, agg);
            } else {
                if (lane == 0) S::put(&status[tile], GS_TILE_A, agg);
                excl = gs_lookback<T>(status, (int64_t)tile, op);
                if (lane == 0) S::put(&status[tile], GS_TILE_P, excl + agg);
            }
        }
        if (lane == 0) *s_excl = excl;
    }
    __syncthreads();
    return *s_excl + s_warp[warp];
}

template <int FL> __device__ __forceinline__ void st4(T *p, int4 v)
{
    if (FL & F_CS) __stcs(reinterpret_cast<int4 *>(p), v);
    else *reinterpret_cast<int4 *>(p) = v;
}

/* ---- registers (the current kernel) ---- */
template <int THREADS, int ITEMS, int FL>
__global__ void __launch_bounds__(THREADS, GS_MIN_BLOCKS(THREADS, 40 + ITEMS * 3 / 2))
    k_reg(const T *__restrict__ in, T *out, uint64_t n, W *status, unsigned *ticket, unsigned ntiles)
{
    constexpr int V = 4, G = ITEMS / V, NW = THREADS / 32, TILE = THREADS * ITEMS;
    __shared__ T s_warp[NW + 1];
    __shared__ T s_excl;
    const unsigned tile = take_ticket(ticket);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const uint64_t seg = (uint64_t)tile * TILE + (uint64_t)warp * 32 * ITEMS + (uint64_t)lane * V;
    const bool full = (uint64_t)(tile + 1) * TILE <= n;
    T x[G][V];
    if (full) {
        int4 r[G];
#pragma unroll
        for (int g = 0; g < G; g++) r[g] = __ldg(reinterpret_cast<const int4 *>(in + seg + g * 32 * V));
#pragma unroll
        for (int g = 0; g < G; g++) {
            x[g][0] = r[g].x; x[g][1] = r[g].y; x[g][2] = r[g].z; x[g][3] = r[g].w;
        }
    } else {
#pragma unroll
        for (int g = 0; g < G; g++)
#pragma unroll
            for (int v = 0; v < V; v++) {
                uint64_t i = seg + g * 32 * V + v;
                x[g][v] = i < n ? in[i] : 0;
            }
    }
    if (FL & F_NOSCAN) {
#pragma unroll
        for (int g = 0; g < G; g++) {
            uint64_t i0 = seg + g * 32 * V;
            if (full) st4<FL>(out + i0, make_int4(x[g][0], x[g][1], x[g][2], x[g][3]));
        }
        return;
    }
    Op op;
    T gexcl[G], run = 0;
#pragma unroll
    for (int g = 0; g < G; g++) {
#pragma unroll
        for (int v = 1; v < V; v++) x[g][v] += x[g][v - 1];
        T inc = gs_warp_scan_incl(x[g][V - 1], op);
        T exc = __shfl_up_sync(GS_FULL_MASK, inc, 1);
        T tot = __shfl_sync(GS_FULL_MASK, inc, 31);
        gexcl[g] = run + (lane ? exc : 0);
        run += tot;
    }
    const T wbase = block_excl<NW, FL>(run, tile, ntiles, status, s_warp, &s_excl);
#pragma unroll
    for (int g = 0; g < G; g++) {
        T pre = wbase + gexcl[g];
        uint64_t i0 = seg + g * 32 * V;
        if (full) st4<FL>(out + i0, make_int4(pre + x[g][0], pre + x[g][1], pre + x[g][2], pre + x[g][3]));
        else
            for (int v = 0; v < V; v++)
                if (i0 + v < n) out[i0 + v] = pre + x[g][v];
    }
}

/* ---- one tile staged in shared memory by cp.async, two passes over it ---- */
template <int THREADS, int ITEMS, int FL>
__device__ __forceinline__ void smem_tile(const T *__restrict__ in, T *out, uint64_t n, W *status, unsigned ntiles,
                                          unsigned tile, const T *sm, bool staged, T *s_warp, T *s_excl)
{
    constexpr int V = 4, G = ITEMS / V, NW = THREADS / 32, TILE = THREADS * ITEMS;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const uint64_t seg = (uint64_t)tile * TILE + (uint64_t)warp * 32 * ITEMS + (uint64_t)lane * V;
    const int off = warp * 32 * ITEMS + lane * V;
    Op op;
    T gexcl[G], run = 0;
#pragma unroll
    for (int g = 0; g < G; g++) {
        T s;
        if (staged) {
            int4 r = *reinterpret_cast<const int4 *>(sm + off + g * 32 * V);
            s = r.x + r.y + r.z + r.w;
        } else {
            s = 0;
            for (int v = 0; v < V; v++) {
                uint64_t i = seg + g * 32 * V + v;
                s += i < n ? in[i] : 0;
            }
        }
        T inc = gs_warp_scan_incl(s, op);
        T exc = __shfl_up_sync(GS_FULL_MASK, inc, 1);
        T tot = __shfl_sync(GS_FULL_MASK, inc, 31);
        gexcl[g] = run + (lane ? exc : 0);
        run += tot;
    }
    const T wbase = block_excl<NW, FL>(run, tile, ntiles, status, s_warp, s_excl);
#pragma unroll
    for (int g = 0; g < G; g++) {
        T pre = wbase + gexcl[g];
        uint64_t i0 = seg + g * 32 * V;
        if (staged) {
            int4 r = *reinterpret_cast<const int4 *>(sm + off + g * 32 * V);
            r.x += pre; r.y += r.x; r.z += r.y; r.w += r.z;
            st4<FL>(out + i0, r);
        } else {
            for (int v = 0; v < V; v++)
                if (i0 + v < n) out[i0 + v] = (pre += in[i0 + v]);
        }
    }
}

template <int THREADS, int ITEMS>
__device__ __forceinline__ void smem_issue(const T *in, T *sm, unsigned tile)
{
    constexpr int V = 4, G = ITEMS / V, TILE = THREADS * ITEMS;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const uint64_t seg = (uint64_t)tile * TILE + (uint64_t)warp * 32 * ITEMS + (uint64_t)lane * V;
    const int off = warp * 32 * ITEMS + lane * V;
#pragma unroll
    for (int g = 0; g < G; g++) cp16(sm + off + g * 32 * V, in + seg + g * 32 * V);
}

template <int THREADS, int ITEMS, int FL>
__global__ void __launch_bounds__(THREADS)
    k_smem(const T *__restrict__ in, T *out, uint64_t n, W *status, unsigned *ticket, unsigned ntiles)
{
    constexpr int NW = THREADS / 32, TILE = THREADS * ITEMS;
    extern __shared__ int4 dyn[];
    T *sm = (T *)dyn;
    __shared__ T s_warp[NW + 1];
    __shared__ T s_excl;
    const unsigned tile = take_ticket(ticket);
    const bool full = (uint64_t)(tile + 1) * TILE <= n;
    if (full) {
        smem_issue<THREADS, ITEMS>(in, sm, tile);
        gs_cp_async_commit();
        gs_cp_async_wait_all();
    }
    smem_tile<THREADS, ITEMS, FL>(in, out, n, status, ntiles, tile, sm, full, s_warp, &s_excl);
}

/* ---- persistent, tiles assigned statically (blockIdx.x + k * gridDim.x), STAGES-deep cp.async ring ---- */
template <int THREADS, int ITEMS, int STAGES, int FL>
__global__ void __launch_bounds__(THREADS)
    k_pipe(const T *__restrict__ in, T *out, uint64_t n, W *status, unsigned *ticket, unsigned ntiles)
{
    constexpr int NW = THREADS / 32, TILE = THREADS * ITEMS;
    extern __shared__ int4 dyn[];
    T *sm = (T *)dyn;
    __shared__ T s_warp[NW + 1];
    __shared__ T s_excl;
    const unsigned G = gridDim.x, b = blockIdx.x;
    const uint64_t nfull = n / TILE;
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        uint64_t t = b + (uint64_t)s * G;
        if (t < nfull) smem_issue<THREADS, ITEMS>(in, sm + s * TILE, (unsigned)t);
        gs_cp_async_commit();
    }
    for (unsigned k = 0;; k++) {
        const uint64_t t = b + (uint64_t)k * G;
        if (t >= ntiles) break;
        const uint64_t tn = b + (uint64_t)(k + STAGES - 1) * G;
        if (tn < nfull) smem_issue<THREADS, ITEMS>(in, sm + ((k + STAGES - 1) % STAGES) * TILE, (unsigned)tn);
        gs_cp_async_commit();
        gs_cp_async_wait<STAGES - 1>();
        smem_tile<THREADS, ITEMS, FL>(in, out, n, status, ntiles, (unsigned)t, sm + (k % STAGES) * TILE, t < nfull,
                                      s_warp, &s_excl);
    }
    gs_cp_async_wait_all();
}


/* ---- profiled smem kernel: per-tile timestamps ---- */
__device__ __forceinline__ uint64_t gtime()
{
    uint64_t t;
    asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
    return t;
}
/* exact-op look-back with counters (copy of gs_lookback's exact path) */
__device__ T lookback_prof(const W *status, int64_t tile, unsigned *spins_out, unsigned *wins_out)
{
    const int lane = (int)gs_lane();
    Op op;
    int64_t end = tile;
    T acc = 0;
    unsigned spins_tot = 0, wins = 0;
    for (;;) {
        wins++;
        const int64_t idx = end - 32 + lane;
        int flag = GS_TILE_P;
        T v = 0;
        if (idx >= 0) S::get(&status[idx], &flag, &v);
        for (int spins = 0; __any_sync(GS_FULL_MASK, flag == GS_TILE_X); spins++) {
            spins_tot++;
            if (flag == GS_TILE_X) S::get(&status[idx], &flag, &v);
        }
        const unsigned pmask = __ballot_sync(GS_FULL_MASK, flag == GS_TILE_P);
        const int start = pmask ? 31 - __clz((int)pmask) : 0;
        T win = gs_warp_fold_from(v, start, op);
        acc = win + acc;
        if (pmask) {
            *spins_out = spins_tot;
            *wins_out = wins;
            return acc;
        }
        end -= 32;
    }
}
struct prof_rec { unsigned long long start, arrive, agg, lb, end; unsigned spins, wins; };

template <int THREADS, int ITEMS>
__global__ void __launch_bounds__(THREADS)
    k_prof(const T *__restrict__ in, T *out, uint64_t n, W *status, unsigned *ticket, unsigned ntiles, prof_rec *pr)
{
    constexpr int V = 4, G = ITEMS / V, NW = THREADS / 32, TILE = THREADS * ITEMS;
    extern __shared__ int4 dyn[];
    T *sm = (T *)dyn;
    __shared__ T s_warp[NW + 1];
    __shared__ T s_excl;
    uint64_t t0 = gtime();
    const unsigned tile = take_ticket(ticket);
    const bool full = (uint64_t)(tile + 1) * TILE <= n;
    if (!full) { smem_tile<THREADS, ITEMS, F_CS>(in, out, n, status, ntiles, tile, sm, false, s_warp, &s_excl); return; }
    smem_issue<THREADS, ITEMS>(in, sm, tile);
    gs_cp_async_commit();
    gs_cp_async_wait_all();
    __syncthreads();
    uint64_t t1 = gtime();
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const uint64_t seg = (uint64_t)tile * TILE + (uint64_t)warp * 32 * ITEMS + (uint64_t)lane * V;
    const int off = warp * 32 * ITEMS + lane * V;
    Op op;
    T gexcl[G], run = 0;
#pragma unroll
    for (int g = 0; g < G; g++) {
        int4 r = *reinterpret_cast<const int4 *>(sm + off + g * 32 * V);
        T s = r.x + r.y + r.z + r.w;
        T inc = gs_warp_scan_incl(s, op);
        T exc = __shfl_up_sync(GS_FULL_MASK, inc, 1);
        T tot = __shfl_sync(GS_FULL_MASK, inc, 31);
        gexcl[g] = run + (lane ? exc : 0);
        run += tot;
    }
    if (lane == 0) s_warp[warp] = run;
    __syncthreads();
    gs_block_scan_warp_totals<NW>(s_warp, op);
    __syncthreads();
    if (warp == 0) {
        T agg = s_warp[NW], excl = 0;
        unsigned sp = 0, wn = 0;
        uint64_t t2 = gtime();
        if (tile == 0) {
            if (lane == 0) S::put(&status[0], GS_TILE_P, agg);
        } else {
            if (lane == 0) S::put(&status[tile], GS_TILE_A, agg);
            excl = lookback_prof(status, (int64_t)tile, &sp, &wn);
            if (lane == 0) S::put(&status[tile], GS_TILE_P, excl + agg);
        }
        uint64_t t3 = gtime();
        if (lane == 0) {
            s_excl = excl;
            pr[tile].start = t0; pr[tile].arrive = t1; pr[tile].agg = t2; pr[tile].lb = t3;
            pr[tile].spins = sp; pr[tile].wins = wn;
        }
    }
    __syncthreads();
    const T wbase = s_excl + s_warp[warp];
#pragma unroll
    for (int g = 0; g < G; g++) {
        T pre = wbase + gexcl[g];
        int4 r = *reinterpret_cast<const int4 *>(sm + off + g * 32 * V);
        r.x += pre; r.y += r.x; r.z += r.y; r.w += r.z;
        st4<F_CS>(out + seg + g * 32 * V, r);
    }
    __syncthreads();
    if (threadIdx.x == 0) pr[tile].end = gtime();
}


/* ---- aggregate first (thread sums, REDUX, one barrier; the group scans while warp 0 looks back);
 * SIT items per thread staged in shared memory (cp.async), RIT in registers; tile from a ticket or
 * blockIdx.x; LEAN: the group scans after the second barrier; PROF: per-tile timestamps ---- */
template <int THREADS, int SIT, int RIT, int NOTICKET, int LEAN = 0, int MINB = 1, int NOSLEEP = 0, int PROF = 0>
__global__ void __launch_bounds__(THREADS, MINB)
    k_hyb(const T *__restrict__ in, T *out, uint64_t n, W *status, unsigned *ticket, unsigned ntiles, prof_rec *pr)
{
    const uint64_t t0 = PROF ? gtime() : 0;
    constexpr int V = 4, ITEMS = SIT + RIT, GS = SIT / V, GR = RIT / V, G = GS + GR, NW = THREADS / 32;
    constexpr int TILE = THREADS * ITEMS;
    extern __shared__ int4 dyn[];
    T *sm = (T *)dyn;
    __shared__ T s_warp[NW];
    __shared__ T s_excl;
    unsigned tile;
    if (NOTICKET) tile = blockIdx.x;
    else {
        tile = take_ticket(ticket);
    }
    const bool full = (uint64_t)(tile + 1) * TILE <= n;
    if (!full) { smem_tile<THREADS, ITEMS, F_CS>(in, out, n, status, ntiles, tile, sm, false, s_warp, &s_excl); return; }
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const uint64_t seg = (uint64_t)tile * TILE + (uint64_t)warp * 32 * ITEMS + (uint64_t)lane * V;
    const int off = warp * 32 * SIT + lane * V;
#pragma unroll
    for (int g = 0; g < GS; g++) cp16(sm + off + g * 32 * V, in + seg + g * 32 * V);
    gs_cp_async_commit();
    int4 rr[GR > 0 ? GR : 1];
#pragma unroll
    for (int g = 0; g < GR; g++) rr[g] = __ldg(reinterpret_cast<const int4 *>(in + seg + (GS + g) * 32 * V));
    gs_cp_async_wait_all();
    const uint64_t t1 = PROF ? gtime() : 0;
    Op op;
    T gsum[G], tsum = 0;
#pragma unroll
    for (int g = 0; g < G; g++) {
        int4 r = g < GS ? *reinterpret_cast<const int4 *>(sm + off + g * 32 * V) : rr[g - GS >= 0 ? g - GS : 0];
        gsum[g] = (r.x + r.y) + (r.z + r.w);
    }
#pragma unroll
    for (int g = 0; g < G; g++) tsum += gsum[g];
    const T wsum = __reduce_add_sync(GS_FULL_MASK, tsum);
    if (lane == 0) s_warp[warp] = wsum;
    __syncthreads();
    if (warp == 0) {
        T agg = __reduce_add_sync(GS_FULL_MASK, lane < NW ? s_warp[lane] : 0);
        T excl = 0;
        unsigned sp = 0, wn = 0;
        const uint64_t t2 = PROF ? gtime() : 0;
        if (tile == 0) {
            if (lane == 0) S::put(&status[0], GS_TILE_P, agg);
        } else {
            if (lane == 0) S::put(&status[tile], GS_TILE_A, agg);
            excl = NOSLEEP || PROF ? lookback_prof(status, (int64_t)tile, &sp, &wn) : gs_lookback<T>(status, (int64_t)tile, op);
            if (lane == 0) S::put(&status[tile], GS_TILE_P, excl + agg);
        }
        if (lane == 0) {
            s_excl = excl;
            if (PROF) {
                pr[tile].start = t0;
                pr[tile].arrive = t1;
                pr[tile].agg = t2;
                pr[tile].lb = gtime();
                pr[tile].spins = sp;
                pr[tile].wins = wn;
            }
        }
    }
    T wpre = 0;
#pragma unroll
    for (int w = 0; w < NW; w++)
        if (w < warp) wpre += s_warp[w];
    if (LEAN) {
        __syncthreads();
        T run = s_excl + wpre;
#pragma unroll
        for (int g = 0; g < G; g++) {
            T inc = gs_warp_scan_incl(gsum[g], op);
            T exc = __shfl_up_sync(GS_FULL_MASK, inc, 1);
            T tot = __shfl_sync(GS_FULL_MASK, inc, 31);
            T pre = run + (lane ? exc : 0);
            run += tot;
            int4 r = g < GS ? *reinterpret_cast<const int4 *>(sm + off + g * 32 * V) : rr[g - GS >= 0 ? g - GS : 0];
            r.x += pre; r.y += r.x; r.z += r.y; r.w += r.z;
            st4<F_CS>(out + seg + g * 32 * V, r);
        }
        return;
    }
    T gexcl[G], run = 0;
#pragma unroll
    for (int g = 0; g < G; g++) {
        T inc = gs_warp_scan_incl(gsum[g], op);
        T exc = __shfl_up_sync(GS_FULL_MASK, inc, 1);
        T tot = __shfl_sync(GS_FULL_MASK, inc, 31);
        gexcl[g] = run + (lane ? exc : 0);
        run += tot;
    }
    __syncthreads();
    const T wbase = s_excl + wpre;
#pragma unroll
    for (int g = 0; g < G; g++) {
        T pre = wbase + gexcl[g];
        int4 r = g < GS ? *reinterpret_cast<const int4 *>(sm + off + g * 32 * V) : rr[g - GS >= 0 ? g - GS : 0];
        r.x += pre; r.y += r.x; r.z += r.y; r.w += r.z;
        st4<F_CS>(out + seg + g * 32 * V, r);
    }
    if (PROF) {
        __syncthreads();
        if (threadIdx.x == 0) pr[tile].end = gtime();
    }
}


/* ---- reduce ahead: block b reduces tile b (from DRAM; publishes its aggregate) and scans tile
 * b - D, re-read from L2: its predecessors' aggregates were published long before, so the look-back
 * walks but (nearly) never waits on loads. DRAM traffic is that of a copy; L2 carries one more
 * read. SREG: tile s in registers (else cp.async to shared memory); RSM: tile r staged in shared
 * memory (else registers). MODE 0: scan s, then reduce r; 1: reduce r (publish), then scan s;
 * 2: warp 0 looks back for s while the loads fly, one barrier for both tiles' warp sums, then
 * publish r and scan s. HINT 1: s loads evict_first in L2; 2: and r loads evict_last ---- */
__device__ __forceinline__ uint64_t pol_first()
{
    uint64_t p;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
    return p;
}
__device__ __forceinline__ uint64_t pol_last()
{
    uint64_t p;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
    return p;
}
__device__ __forceinline__ int4 ld_hint(const void *p, uint64_t pol)
{
    int4 v;
    asm volatile("ld.global.nc.L2::cache_hint.v4.s32 {%0,%1,%2,%3}, [%4], %5;"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p), "l"(pol));
    return v;
}
__device__ __forceinline__ void cp16_hint(void *dst, const void *src, uint64_t pol)
{
    asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" ::"r"(gs_smem_u32(dst)), "l"(src), "l"(pol)
                 : "memory");
}
/* exact-sum look-back with windows of 32 x K tiles (lane l folds K consecutive words); counts the
 * windows walked into g_wins */
__device__ unsigned long long g_wins;
template <int K> __device__ T lookback_wide(const W *status, int64_t tile)
{
    const int lane = (int)gs_lane();
    Op op;
    int64_t end = tile;
    T acc = 0;
    unsigned wins = 0;
    for (;;) {
        wins++;
        T v = 0;
        bool p = false;
        int64_t base = end - 32 * K + (int64_t)lane * K;
        int fl[K];
        T u[K];
#pragma unroll
        for (int k = 0; k < K; k++) {
            fl[k] = GS_TILE_P;
            u[k] = 0;
            if (base + k >= 0) S::get(&status[base + k], &fl[k], &u[k]);
        }
#pragma unroll
        for (int k = 0; k < K; k++)
            while (__any_sync(GS_FULL_MASK, fl[k] == GS_TILE_X))
                if (fl[k] == GS_TILE_X) S::get(&status[base + k], &fl[k], &u[k]);
#pragma unroll
        for (int k = 0; k < K; k++) {
            if (fl[k] == GS_TILE_P) { v = u[k]; p = true; }
            else v += u[k];
        }
        const unsigned pmask = __ballot_sync(GS_FULL_MASK, p);
        const int start = pmask ? 31 - __clz((int)pmask) : 0;
        acc = gs_warp_fold_from(v, start, op) + acc;
        if (pmask) {
            if (lane == 0) atomicAdd(&g_wins, (unsigned long long)wins);
            return acc;
        }
        end -= 32 * K;
    }
}

template <int THREADS, int ITEMS, int D, int MINB, int MODE, int SREG, int RSM, int HINT, int LBK>
__global__ void __launch_bounds__(THREADS, MINB)
    k_ahead(const T *__restrict__ in, T *out, uint64_t n, W *status, unsigned *ticket, unsigned ntiles)
{
    constexpr int V = 4, G = ITEMS / V, NW = THREADS / 32, TILE = THREADS * ITEMS;
    extern __shared__ int4 dyn[];
    T *const sms = (T *)dyn, *const smr = (T *)dyn + (SREG ? 0 : TILE);
    __shared__ T s_wr[NW], s_ws[NW];
    __shared__ T s_excl;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int64_t r = blockIdx.x, s = (int64_t)blockIdx.x - D;
    const bool has_r = r < (int64_t)ntiles, has_s = s >= 0;
    const uint64_t wo = (uint64_t)warp * 32 * ITEMS + (uint64_t)lane * V;
    const int off = warp * 32 * ITEMS + lane * V;
    int4 rs[SREG ? G : 1], rr[RSM ? 1 : G];
    const uint64_t pf = HINT ? pol_first() : 0, pl = HINT >= 2 ? pol_last() : 0;
    if (has_s) {
        const T *src = in + (uint64_t)s * TILE + wo;
#pragma unroll
        for (int g = 0; g < G; g++) {
            if (SREG) rs[g] = HINT ? ld_hint(src + g * 32 * V, pf) : __ldcg(reinterpret_cast<const int4 *>(src + g * 32 * V));
            else if (HINT) cp16_hint(sms + off + g * 32 * V, src + g * 32 * V, pf);
            else cp16(sms + off + g * 32 * V, src + g * 32 * V);
        }
    }
    gs_cp_async_commit();
    if (has_r) {
        const T *src = in + (uint64_t)r * TILE + wo;
#pragma unroll
        for (int g = 0; g < G; g++) {
            if (RSM) {
                if (HINT >= 2) cp16_hint(smr + off + g * 32 * V, src + g * 32 * V, pl);
                else cp16(smr + off + g * 32 * V, src + g * 32 * V);
            } else rr[g] = HINT >= 2 ? ld_hint(src + g * 32 * V, pl) : __ldg(reinterpret_cast<const int4 *>(src + g * 32 * V));
        }
    }
    gs_cp_async_commit();
    Op op;
    auto rsum = [&] { /* this thread's sum of tile r, into s_wr by warps */
        if (RSM) gs_cp_async_wait<0>();
        T tsum = 0;
#pragma unroll
        for (int g = 0; g < G; g++) {
            const int4 x = RSM ? *reinterpret_cast<const int4 *>(smr + off + g * 32 * V) : rr[RSM ? 0 : g];
            tsum += (x.x + x.y) + (x.z + x.w);
        }
        const T w = __reduce_add_sync(GS_FULL_MASK, tsum);
        if (lane == 0) s_wr[warp] = w;
    };
    auto rpublish = [&] { /* after a barrier */
        if (warp == 0) {
            const T agg = __reduce_add_sync(GS_FULL_MASK, lane < NW ? s_wr[lane] : 0);
            if (lane == 0) S::put(&status[r], GS_TILE_A, agg);
        }
    };
    auto lookback = [&] { /* warp 0 */
        T agg = 0;
        int fl = GS_TILE_X;
        if (lane == 0)
            for (;;) {
                S::get(&status[s], &fl, &agg);
                if (fl != GS_TILE_X) break;
                __nanosleep(32);
            }
        agg = __shfl_sync(GS_FULL_MASK, agg, 0);
        const T excl = s == 0 ? 0 : LBK ? lookback_wide<LBK ? LBK : 1>(status, s) : gs_lookback<T>(status, s, op);
        if (lane == 0) {
            S::put(&status[s], GS_TILE_P, excl + agg);
            s_excl = excl;
        }
    };
    T gsum[G];
    auto ssum = [&] {
        if (!SREG) gs_cp_async_wait<RSM && MODE != 2 ? 1 : 0>();
        T tsum = 0;
#pragma unroll
        for (int g = 0; g < G; g++) {
            const int4 x = SREG ? rs[SREG ? g : 0] : *reinterpret_cast<const int4 *>(sms + off + g * 32 * V);
            gsum[g] = (x.x + x.y) + (x.z + x.w);
            tsum += gsum[g];
        }
        const T w = __reduce_add_sync(GS_FULL_MASK, tsum);
        if (lane == 0) s_ws[warp] = w;
    };
    auto sstore = [&] { /* after a barrier that follows lookback and ssum */
        T run = s_excl;
#pragma unroll
        for (int v = 0; v < NW; v++)
            if (v < warp) run += s_ws[v];
        T *dst = out + (uint64_t)s * TILE + wo;
#pragma unroll
        for (int g = 0; g < G; g++) {
            const T inc = gs_warp_scan_incl(gsum[g], op);
            const T exc = __shfl_up_sync(GS_FULL_MASK, inc, 1);
            const T tot = __shfl_sync(GS_FULL_MASK, inc, 31);
            const T pre = run + (lane ? exc : 0);
            run += tot;
            int4 x = SREG ? rs[SREG ? g : 0] : *reinterpret_cast<const int4 *>(sms + off + g * 32 * V);
            x.x += pre; x.y += x.x; x.z += x.y; x.w += x.z;
            st4<F_CS>(dst + g * 32 * V, x);
        }
    };
    if (MODE == 2) {
        if (has_s && warp == 0) lookback();
        if (has_r) rsum();
        if (has_s) ssum();
        __syncthreads();
        if (has_r) rpublish();
        if (has_s) sstore();
    } else {
        if (MODE == 1 && has_r) {
            rsum();
            __syncthreads();
            rpublish();
        }
        if (has_s) {
            if (warp == 0) lookback();
            ssum();
            __syncthreads();
            sstore();
        }
        if (MODE == 0 && has_r) {
            rsum();
            __syncthreads();
            rpublish();
        }
    }
    gs_cp_async_wait_all();
}

/* ---- incremental look-back (kernels/TUNING.md v5): persistent blocks, all resident (cooperative
 * launch). A block's exclusive prefix for its tile t is the prefix of its previous tile tp, plus
 * that tile's aggregate, plus the aggregates of the tiles tp+1 .. t-1, which their blocks publish
 * as soon as the data lands: no chain of inclusive prefixes runs across blocks. An ST-stage
 * cp.async ring in shared memory; the tile of round k+A is reduced and published before round k
 * looks back. Tiles: DYN 0, b + k*G (static); DYN 1, claimed from a ticket by thread 0, ST rounds
 * ahead (a block claims only when it has a stage for the tile). KU: status words per lane per
 * pass. EARLY: warp 0 issues the first pass of status loads before the block's reduce and scan
 * work, and spins on them after. NOB1 (static tiles): no barrier at the top of an iteration (each
 * thread reads only the shared-memory slots it copied itself). RR: the store pass re-reads the
 * tile from shared memory instead of keeping it in registers. n must be a multiple of the tile. ---- */
template <int THREADS, int ITEMS, int ST, int A, int KU, int DYN = 0, int EARLY = 0, int NOB1 = 0, int RR = 0>
__global__ void __launch_bounds__(THREADS, 1)
    k_incr(const T *__restrict__ in, T *out, uint64_t n, W *status, unsigned *ticket, unsigned ntiles)
{
    constexpr int V = 4, G = ITEMS / V, NW = THREADS / 32, TILE = THREADS * ITEMS, NT = ST + 1;
    static_assert(A + 1 < ST, "a stage in flight beyond the reduced one");
    extern __shared__ int4 dyn[];
    T *sm = (T *)dyn;
    __shared__ T s_wsum[ST][NW];
    __shared__ T s_agg[ST];
    __shared__ T s_excl;
    __shared__ unsigned s_tile[NT];
    const unsigned GR = gridDim.x, b = blockIdx.x;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int off = warp * 32 * ITEMS + lane * V;
    const unsigned nk_static = b < ntiles ? (ntiles - 1 - b) / GR + 1 : 0;
    (void)n;
    auto tile_of = [&](unsigned k) -> uint64_t { return DYN ? s_tile[k % NT] : (uint64_t)b + (uint64_t)k * GR; };
    auto live = [&](unsigned k) { return DYN ? s_tile[k % NT] < ntiles : k < nk_static; };
    auto issue = [&](unsigned k) {
        if (live(k)) {
            const T *src = in + tile_of(k) * TILE + off;
            T *dst = sm + (k % ST) * TILE + off;
#pragma unroll
            for (int g = 0; g < G; g++) cp16(dst + g * 32 * V, src + g * 32 * V);
        }
        gs_cp_async_commit();
    };
    auto reduce = [&](unsigned k) {
        const T *src = sm + (k % ST) * TILE + off;
        T s = 0;
#pragma unroll
        for (int g = 0; g < G; g++) {
            const int4 r = *reinterpret_cast<const int4 *>(src + g * 32 * V);
            s += (r.x + r.y) + (r.z + r.w);
        }
        s = __reduce_add_sync(GS_FULL_MASK, s);
        if (lane == 0) s_wsum[k % ST][warp] = s;
    };
    auto publish = [&](unsigned k) { /* warp 0, after the barrier that follows reduce(k) */
        const T a = __reduce_add_sync(GS_FULL_MASK, lane < NW ? s_wsum[k % ST][lane] : 0);
        if (lane == 0) {
            S::put(&status[tile_of(k)], GS_TILE_A, a);
            s_agg[k % ST] = a;
        }
    };
    if (DYN) {
        if (threadIdx.x == 0)
            for (int k = 0; k < ST; k++) s_tile[k] = atomicAdd(ticket, 1u);
        __syncthreads();
    }
#pragma unroll 1
    for (int k = 0; k < ST - 1; k++) issue(k);
    T pre_prev = 0;       /* warp 0: exclusive prefix of the block's previous tile */
    uint64_t tprev = 0;   /* and that tile */
    Op op;
#pragma unroll 1
    for (unsigned k = 0; live(k); k++) {
        issue(k + ST - 1);
        gs_cp_async_wait<ST - 1 - A>();
        if (DYN || !NOB1) __syncthreads();
        if (DYN && threadIdx.x == 0) s_tile[(k + ST) % NT] = atomicAdd(ticket, 1u);
        const uint64_t t = tile_of(k), lo = k == 0 ? 0 : tprev + 1;
        uint64_t w[KU];
        if (EARLY && warp == 0) {
#pragma unroll
            for (int u = 0; u < KU; u++) {
                const uint64_t i = lo + u * 32 + lane;
                w[u] = i < t ? gs_ld_relaxed_u64(&status[i]) : (uint64_t)GS_TILE_A;
            }
        }
        const unsigned r0 = k == 0 ? 0 : k + A;
#pragma unroll 1
        for (unsigned r = r0; r <= k + A && live(r); r++) reduce(r);
        const T *src = sm + (k % ST) * TILE + off;
        int4 x[RR ? 1 : G];
        T gexcl[G], run = 0;
#pragma unroll
        for (int g = 0; g < G; g++) {
            int4 y = *reinterpret_cast<const int4 *>(src + g * 32 * V);
            y.y += y.x; y.z += y.y; y.w += y.z;
            if (!RR) x[g] = y;
            const T inc = gs_warp_scan_incl(y.w, op);
            const T exc = __shfl_up_sync(GS_FULL_MASK, inc, 1);
            const T tot = __shfl_sync(GS_FULL_MASK, inc, 31);
            gexcl[g] = run + (lane ? exc : 0);
            run += tot;
        }
        __syncthreads();
        if (warp == 0) {
#pragma unroll 1
            for (unsigned r = r0; r <= k + A && live(r); r++) publish(r);
            T acc = 0;
#pragma unroll 1
            for (uint64_t base = lo; base < t; base += 32 * KU) {
                if (!EARLY || base != lo) {
#pragma unroll
                    for (int u = 0; u < KU; u++) {
                        const uint64_t i = base + u * 32 + lane;
                        w[u] = i < t ? gs_ld_relaxed_u64(&status[i]) : (uint64_t)GS_TILE_A;
                    }
                }
#pragma unroll
                for (int u = 0; u < KU; u++) {
                    const uint64_t i = base + u * 32 + lane;
                    while ((uint32_t)w[u] == GS_TILE_X) w[u] = gs_ld_relaxed_u64(&status[i]);
                    acc += (T)(uint32_t)(w[u] >> 32);
                }
            }
            acc = __reduce_add_sync(GS_FULL_MASK, acc);
            const T pre = k == 0 ? acc : pre_prev + s_agg[(k - 1) % ST] + acc;
            pre_prev = pre;
            tprev = t;
            if (lane == 0) s_excl = pre;
        }
        __syncthreads();
        T wb = s_excl;
#pragma unroll
        for (int v = 0; v < NW; v++)
            if (v < warp) wb += s_wsum[k % ST][v];
        T *dst = out + t * TILE + off;
#pragma unroll
        for (int g = 0; g < G; g++) {
            const T pre = wb + gexcl[g];
            int4 r;
            if (RR) {
                r = *reinterpret_cast<const int4 *>(src + g * 32 * V);
                r.x += pre; r.y += r.x; r.z += r.y; r.w += r.z;
            } else {
                r = x[RR ? 0 : g];
                r.x += pre; r.y += pre; r.z += pre; r.w += pre;
            }
            st4<F_CS>(dst + g * 32 * V, r);
        }
    }
    gs_cp_async_wait_all();
}

/* ---- harness ---- */
static T *d_in, *d_out;
static char *d_scr, *d_flush;
static size_t flush_bytes;
static uint64_t N;
static std::vector<T> h_ref, h_out;
static cudaEvent_t e0, e1;

template <class F> static double timeit(F f, int reps = 15)
{
    f();
    CK(cudaDeviceSynchronize());
    std::vector<float> ts;
    for (int r = 0; r < reps; r++) {
        CK(cudaMemsetAsync(d_flush, r & 0xff, flush_bytes));
        CK(cudaEventRecord(e0));
        f();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        ts.push_back(ms);
    }
    std::sort(ts.begin(), ts.end());
    return ts[ts.size() / 2];
}

static const char *check(bool want)
{
    if (!want) return "-";
    CK(cudaMemcpy(h_out.data(), d_out, N * 4, cudaMemcpyDeviceToHost));
    for (uint64_t i = 0; i < N; i++)
        if (h_out[i] != h_ref[i]) {
            static char b[64];
            snprintf(b, sizeof b, "FAIL at %llu", (unsigned long long)i);
            return b;
        }
    return "ok";
}

static double copy_ms;
static void report(const char *name, double ms, const char *chk)
{
    printf("%-34s %8.4f ms %7.1f Gelem/s %6.1f%% of copy  %s\n", name, ms, N / ms / 1e6, copy_ms / ms * 100, chk);
    fflush(stdout);
}

/* tiles, status bytes (zeroed before each run) and resident blocks per SM of kernel k */
struct plan {
    unsigned nt;
    size_t need;
    int per;
};
template <class K> static plan plan_for(K k, int threads, int tile, size_t smem)
{
    plan p;
    p.nt = (unsigned)((N + tile - 1) / tile);
    p.need = 256 + (size_t)p.nt * sizeof(W);
    p.per = 0;
    if (smem) CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&p.per, k, threads, smem));
    return p;
}
/* times launch() (status words zeroed first), then checks the output when want */
template <class L> static void measure(const char *nm, const plan &p, L launch, bool want)
{
    auto f = [&] {
        CK(cudaMemsetAsync(d_scr, 0, p.need));
        launch();
        CK(cudaGetLastError());
    };
    CK(cudaMemset(d_out, 0, N * 4));
    const double ms = timeit(f); /* before check(): argument order is unspecified */
    report(nm, ms, check(want));
}
#define LAB_ARGS d_in, d_out, N, (W *)(d_scr + 256), (unsigned *)d_scr, p.nt
/* a cooperative launch of a lab kernel with the LAB_ARGS parameters */
static void launch_coop(const void *k, unsigned grid, int threads, size_t smem, unsigned nt)
{
    const T *a0 = d_in;
    T *a1 = d_out;
    uint64_t a2 = N;
    W *a3 = (W *)(d_scr + 256);
    unsigned *a4 = (unsigned *)d_scr;
    unsigned a5 = nt;
    void *args[] = {&a0, &a1, &a2, &a3, &a4, &a5};
    CK(cudaLaunchCooperativeKernel(k, grid, threads, args, smem, 0));
}


template <int TH, int IT, int FL> static void run_reg(const char *name)
{
    auto k = k_reg<TH, IT, FL>;
    const plan p = plan_for(k, TH, TH * IT, 0);
    char nm[80];
    snprintf(nm, sizeof nm, "reg %dx%d %s", TH, IT, name);
    measure(nm, p, [&] { k<<<p.nt, TH>>>(LAB_ARGS); }, !(FL & (F_NOLB | F_NOSCAN)));
}

template <int TH, int IT, int FL> static void run_smem(const char *name)
{
    auto k = k_smem<TH, IT, FL>;
    const size_t smem = (size_t)TH * IT * 4;
    const plan p = plan_for(k, TH, TH * IT, smem);
    char nm[80];
    snprintf(nm, sizeof nm, "smem %dx%d %s (%d/SM)", TH, IT, name, p.per);
    measure(nm, p, [&] { k<<<p.nt, TH, smem>>>(LAB_ARGS); }, !(FL & (F_NOLB | F_NOSCAN)));
}

template <int TH, int IT, int ST, int FL> static void run_pipe(const char *name)
{
    auto k = k_pipe<TH, IT, ST, FL>;
    const size_t smem = (size_t)ST * TH * IT * 4;
    const plan p = plan_for(k, TH, TH * IT, smem);
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const unsigned grid = (unsigned)std::min<uint64_t>((uint64_t)p.per * sms, p.nt);
    char nm[80];
    snprintf(nm, sizeof nm, "pipe %dx%dx%d %s (%d/SM)", TH, IT, ST, name, p.per);
    measure(nm, p, [&] {
        launch_coop((const void *)k, grid, TH, smem, p.nt);
    }, !(FL & (F_NOLB | F_NOSCAN)));
}

template <int TH, int IT, int FAST = 0> static void run_prof()
{
    constexpr int TILE = TH * IT;
    unsigned nt = (unsigned)((N + TILE - 1) / TILE);
    size_t need = 256 + (size_t)nt * sizeof(W);
    size_t smem = TILE * 4;
    auto kern = FAST ? k_hyb<TH, IT, 0, 0, 0, 1, 0, 1> : k_prof<TH, IT>;
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    prof_rec *d_pr;
    CK(cudaMalloc(&d_pr, nt * sizeof(prof_rec)));
    CK(cudaMemset(d_pr, 0, nt * sizeof(prof_rec)));
    auto f = [&] {
        CK(cudaMemsetAsync(d_scr, 0, need));
        kern<<<nt, TH, smem>>>(d_in, d_out, N, (W *)(d_scr + 256), (unsigned *)d_scr, nt, d_pr);
        CK(cudaGetLastError());
    };
    double ms = timeit(f);
    char nm[80];
    snprintf(nm, sizeof nm, "prof %s %dx%d", FAST ? "fast" : "smem", TH, IT);
    report(nm, ms, check(true));
    std::vector<prof_rec> pr(nt);
    CK(cudaMemcpy(pr.data(), d_pr, nt * sizeof(prof_rec), cudaMemcpyDeviceToHost));
    CK(cudaFree(d_pr));
    std::vector<double> a, b, c, d, e;
    double sp = 0, wn = 0, spun = 0;
    unsigned long long t_first = ~0ull, t_last = 0;
    for (unsigned i = 1; i + 1 < nt; i++) {
        a.push_back((pr[i].arrive - pr[i].start) / 1e3);
        b.push_back((pr[i].agg - pr[i].arrive) / 1e3);
        c.push_back((pr[i].lb - pr[i].agg) / 1e3);
        d.push_back((pr[i].end - pr[i].lb) / 1e3);
        e.push_back((pr[i].end - pr[i].start) / 1e3);
        sp += pr[i].spins; wn += pr[i].wins; spun += pr[i].spins > 0;
        t_first = std::min(t_first, pr[i].start); t_last = std::max(t_last, pr[i].end);
    }
    auto q = [](std::vector<double> v, double p) { std::sort(v.begin(), v.end()); return v[(size_t)(p * (v.size() - 1))]; };
    printf("  us (p10/p50/p90): load %.2f/%.2f/%.2f  reduce %.2f/%.2f/%.2f  lookback %.2f/%.2f/%.2f  store %.2f/%.2f/%.2f  life %.2f/%.2f/%.2f\n",
           q(a, .1), q(a, .5), q(a, .9), q(b, .1), q(b, .5), q(b, .9), q(c, .1), q(c, .5), q(c, .9), q(d, .1), q(d, .5),
           q(d, .9), q(e, .1), q(e, .5), q(e, .9));
    printf("  spun %.1f%% of tiles, spins/tile %.1f, windows/tile %.2f, span %.3f ms\n", 100 * spun / (nt - 2),
           sp / (nt - 2), wn / (nt - 2), (t_last - t_first) / 1e6);
    // distance (in tiles) between own arrival order and predecessors: how late vs. running max
    double late = 0;
    unsigned long long rmax = 0;
    std::vector<double> lv;
    for (unsigned i = 1; i + 1 < nt; i++) {
        rmax = std::max(rmax, (unsigned long long)pr[i].agg);
        lv.push_back((rmax - pr[i].agg) / 1e3);
        late += (rmax - pr[i].agg) / 1e3;
    }
    printf("  runmax(agg)-agg us: mean %.2f p50 %.2f p90 %.2f p99 %.2f\n", late / (nt - 2), q(lv, .5), q(lv, .9), q(lv, .99));
    fflush(stdout);
}

template <int TH, int SIT, int RIT, int NOT, int LEAN = 0, int MINB = 1, int NS = 0> static void run_hyb()
{
    auto k = k_hyb<TH, SIT, RIT, NOT, LEAN, MINB, NS>;
    const size_t smem = (size_t)TH * (SIT > 0 ? SIT : 4) * 4;
    const plan p = plan_for(k, TH, TH * (SIT + RIT), smem);
    char nm[80];
    snprintf(nm, sizeof nm, "hyb %dx(%d+%d)%s%s%s minb%d (%d/SM)", TH, SIT, RIT, NOT ? " noticket" : "",
             LEAN ? " lean" : "", NS ? " nosleep" : "", MINB, p.per);
    measure(nm, p, [&] { k<<<p.nt, TH, smem>>>(LAB_ARGS, nullptr); }, true);
}

template <int SI, int RI, int MB> static void run_general(const char *name)
{
    constexpr int TILE = 128 * (SI + RI);
    unsigned nt = (unsigned)((N + TILE - 1) / TILE);
    size_t need = 512 + (size_t)nt * 8;
    gs_status st;
    int32_t *d_carry = (int32_t *)(d_scr + (48 << 20));
    auto f = [&] {
        CK(cudaMemsetAsync(d_carry, 0, 4));
        if (scan_lookback_run<T, T, Op, 128, SI, RI, MB>(d_in, d_out, N, d_carry, d_scr, need, 0, 0, &st)) { printf("fail %s\n", st.msg); exit(1); }
    };
    CK(cudaMemset(d_out, 0, N * 4));
    double ms = timeit(f);
    report(name, ms, check(true));
}


/* the registry's lookback variant as gpustream calls it (i32 sum, default block size) */
static void run_default(const char *name)
{
    const gs_scan_params prm = {GS_I32, GS_I32, GS_SCAN_SUM, 0, 0};
    const size_t need = gs_scan_gpu_lookback_scratch(&prm, N);
    int32_t *d_carry = (int32_t *)(d_scr + (48 << 20));
    gs_status st;
    auto f = [&] {
        CK(cudaMemsetAsync(d_carry, 0, 4));
        if (gs_scan_gpu_lookback(&prm, d_in, d_out, N, d_carry, d_scr, need, 0, &st)) { printf("fail %s\n", st.msg); exit(1); }
    };
    CK(cudaMemset(d_out, 0, N * 4));
    const double ms = timeit(f);
    report(name, ms, check(true));
}

template <int TH, int IT, int D, int MB, int MODE, int SR, int RS, int HINT = 0, int LBK = 0> static void run_ahead()
{
    auto k = k_ahead<TH, IT, D, MB, MODE, SR, RS, HINT, LBK>;
    unsigned long long z = 0;
    CK(cudaMemcpyToSymbol(g_wins, &z, 8));
    const size_t smem = (size_t)TH * IT * 4 * ((SR ? 0 : 1) + (RS ? 1 : 0)) + 16;
    const plan p = plan_for(k, TH, TH * IT, smem);
    if (N % (TH * IT)) { printf("ahead: n must be a multiple of the tile\n"); return; }
    char nm[96];
    snprintf(nm, sizeof nm, "ahead %dx%d D=%d mode%d%s%s hint%d lbk%d min%d (%d/SM)", TH, IT, D, MODE, SR ? " sreg" : "",
             RS ? " rsm" : "", HINT, LBK, MB, p.per);
    measure(nm, p, [&] { k<<<p.nt + D, TH, smem>>>(LAB_ARGS); }, true);
    if (LBK) {
        CK(cudaMemcpyFromSymbol(&z, g_wins, 8));
        printf("  windows per tile %.2f\n", (double)z / 17 / p.nt); /* 17 launches: warm-up, 15 reps, check run */
    }
}

template <int TH, int IT, int ST, int A, int KU, int DYN = 0, int EARLY = 0, int NOB1 = 0, int RR = 0> static void run_incr()
{
    auto k = k_incr<TH, IT, ST, A, KU, DYN, EARLY, NOB1, RR>;
    const size_t smem = (size_t)ST * TH * IT * 4;
    const plan p = plan_for(k, TH, TH * IT, smem);
    if (N % (TH * IT)) { printf("incr: n must be a multiple of the tile\n"); return; }
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const unsigned grid = (unsigned)std::min<uint64_t>((uint64_t)p.per * sms, p.nt);
    char nm[96];
    snprintf(nm, sizeof nm, "incr %dx%d st%d A%d ku%d%s%s%s%s (%d/SM, grid %u)", TH, IT, ST, A, KU, DYN ? " dyn" : "",
             EARLY ? " early" : "", NOB1 ? " nob1" : "", RR ? " rr" : "", p.per, grid);
    measure(nm, p, [&] {
        launch_coop((const void *)k, grid, TH, smem, p.nt);
    }, true);
}

int main(int argc, char **argv)
{
    N = argc > 1 ? strtoull(argv[1], 0, 0) : (1ull << 28);
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("# %s, %d SMs, L2 %d MB, n = %llu\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20,
           (unsigned long long)N);
    flush_bytes = (size_t)prop.l2CacheSize * 2;
    CK(cudaMalloc(&d_in, N * 4));
    CK(cudaMalloc(&d_out, N * 4));
    CK(cudaMalloc(&d_scr, 64 << 20));
    CK(cudaMalloc(&d_flush, flush_bytes));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<T> h(N);
    uint64_t s = 88172645463325252ull;
    for (auto &x : h) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        x = (T)(s % 2001) - 1000;
    }
    h_ref.resize(N);
    h_out.resize(N);
    T acc = 0;
    for (uint64_t i = 0; i < N; i++) h_ref[i] = (acc += h[i]);
    CK(cudaMemcpy(d_in, h.data(), N * 4, cudaMemcpyHostToDevice));
    copy_ms = timeit([&] { CK(cudaMemcpyAsync(d_out, d_in, N * 4, cudaMemcpyDeviceToDevice)); });
    report("cudaMemcpy D2D", copy_ms, "-");
    {
        size_t tb = 0;
        CK(cub::DeviceScan::InclusiveSum(nullptr, tb, d_in, d_out, (int)N));
        void *tmp;
        CK(cudaMalloc(&tmp, tb));
        double ms = timeit([&] { CK(cub::DeviceScan::InclusiveSum(tmp, tb, d_in, d_out, (int)N)); });
        report("cub InclusiveSum", ms, check(true));
        CK(cudaFree(tmp));
    }
    const char *which = getenv("WHICH") ? getenv("WHICH") : "all";
#define ON(x) (!strcmp(which, "all") || strstr(which, x))

    if (ON("prod")) { /* kernels/scan_lookback.cu as committed: the default and the v3 kernel, three times */
        for (int i = 0; i < 3; i++) {
            run_default("lookback default (gs_scan_gpu_lookback)");
            run_general<52, 28, 7>("v3 kernel 128x(52+28) min 7");
            run_incr<128, 128, 3, 1, 5, 0, 1, 1, 1>();
        }
    }
    if (ON("incr")) { /* kernels/TUNING.md v5 */
        run_hyb<128, 52, 28, 1, 1, 7>();
        /* 2026-11-21, measurement (b) of docs/bench/scan_incr_lab_h200.txt: 128x64 st3 A1 0.587, and early 0.580; tiles from a ticket 2.2-7.3 ms */
        run_incr<128, 64, 3, 1, 9, 0, 1>(); run_incr<128, 64, 3, 1, 9, 0, 1, 1>(); run_incr<128, 64, 3, 1, 9, 0, 1, 1, 1>();
        run_incr<64, 128, 3, 1, 9, 0, 1, 1>(); run_incr<256, 32, 3, 1, 9, 0, 1, 1>(); run_incr<64, 128, 3, 1, 9, 0, 1, 1, 1>();
        run_incr<128, 128, 3, 1, 5, 0, 1, 1, 1>(); run_incr<256, 64, 3, 1, 5, 0, 1, 1, 1>(); run_incr<128, 64, 6, 2, 5, 0, 1, 1, 1>();
        run_incr<128, 32, 6, 2, 9, 0, 1, 1>(); run_incr<128, 32, 6, 1, 9, 0, 1, 1>(); run_incr<128, 32, 5, 1, 9, 0, 1, 1>();
        run_incr<128, 32, 4, 1, 13, 0, 1, 1>(); run_incr<64, 64, 6, 2, 9, 0, 1, 1>(); run_incr<128, 64, 3, 1, 9, 0, 1, 1>();
        run_hyb<128, 52, 28, 1, 1, 7>();
    }
    if (ON("ahead")) { /* kernels/TUNING.md v4 */
        run_hyb<128, 52, 28, 1, 1, 7>();
        /* order: scan then reduce / reduce first / look-back overlapped, one barrier (D = 512) */
        run_ahead<128, 32, 512, 1, 0, 0, 0>(); run_ahead<128, 32, 512, 1, 1, 0, 0>(); run_ahead<128, 32, 512, 1, 2, 0, 0>();
        /* distance, reduce first */
        run_ahead<128, 32, 128, 1, 1, 0, 0>(); run_ahead<128, 32, 256, 1, 1, 0, 0>(); run_ahead<128, 32, 1024, 1, 1, 0, 0>();
        /* L2 eviction hints: s loads evict_first (1), and r loads evict_last (2) */
        run_ahead<128, 32, 512, 1, 1, 0, 0, 1>(); run_ahead<128, 32, 1024, 1, 1, 0, 0, 1>();
        run_ahead<128, 32, 512, 1, 1, 0, 0, 2>(); run_ahead<128, 32, 640, 1, 1, 0, 0, 2>();
        /* look-back windows of 32 x K tiles (windows walked per tile printed) */
        run_ahead<128, 32, 640, 1, 1, 0, 0, 2, 1>(); run_ahead<128, 32, 640, 1, 1, 0, 0, 2, 4>();
        run_ahead<128, 32, 640, 1, 1, 0, 0, 2, 8>();
        /* shapes and staging */
        run_ahead<128, 32, 512, 1, 1, 1, 0, 1>(); run_ahead<128, 32, 512, 1, 1, 0, 1, 1>();
        run_ahead<128, 32, 512, 10, 1, 0, 0, 1>(); run_ahead<128, 16, 1024, 1, 1, 0, 0, 1>();
        run_ahead<128, 64, 320, 1, 1, 0, 0, 1>(); run_ahead<64, 32, 1024, 1, 1, 0, 0, 1>();
        run_ahead<256, 16, 512, 1, 1, 0, 0, 1>();
        run_hyb<128, 52, 28, 1, 1, 7>();
    }
    if (ON("prof")) { run_prof<128, 48>(); run_prof<128, 48, 1>(); run_prof<128, 64, 1>(); }
    if (ON("cmp")) {
        run_hyb<128, 52, 28, 1, 1, 7>(); run_general<52, 28, 7>("general 128x(52+28) min 7");
        run_hyb<128, 48, 32, 1, 1, 7>(); run_general<48, 32, 7>("general 128x(48+32) min 7");
        run_hyb<128, 44, 20, 1, 1, 9>(); run_general<44, 20, 9>("general 128x(44+20) min 9");
        run_hyb<128, 52, 28, 1, 1, 7>(); run_general<52, 28, 7>("general 128x(52+28) min 7");
    }
    if (ON("more")) {
        run_hyb<128, 48, 32, 1, 1, 7>(); run_hyb<128, 48, 32, 1, 1, 7, 1>(); run_hyb<128, 44, 20, 1, 1, 9>(); run_hyb<128, 44, 20, 1, 1, 9, 1>();
        run_hyb<128, 44, 28, 1, 1, 8>(); run_hyb<128, 40, 32, 1, 1, 8>(); run_hyb<128, 36, 28, 1, 1, 9>(); run_hyb<128, 52, 28, 1, 1, 7>();
        run_hyb<128, 48, 40, 1, 1, 6>(); run_hyb<96, 48, 32, 1, 1, 9>(); run_hyb<160, 40, 24, 1, 1, 6>(); run_hyb<128, 40, 40, 1, 1, 7>();
        run_hyb<192, 36, 28, 1, 1, 5>(); run_hyb<128, 32, 32, 1, 1, 10>();
    }
    if (ON("lean")) {
        run_hyb<128, 48, 16, 1>(); run_hyb<128, 48, 16, 1, 1>(); run_hyb<128, 48, 16, 1, 1, 8>(); run_hyb<128, 48, 16, 1, 1, 9>();
        run_hyb<128, 48, 24, 1, 1>(); run_hyb<128, 48, 24, 1, 1, 8>(); run_hyb<128, 48, 32, 1, 1, 7>(); run_hyb<128, 40, 24, 1, 1, 8>();
        run_hyb<128, 56, 16, 1, 1, 7>(); run_hyb<128, 48, 8, 1, 1, 9>(); run_hyb<128, 44, 20, 1, 1, 9>(); run_hyb<128, 64, 16, 1, 1, 6>();
        run_hyb<64, 48, 16, 1, 1, 16>(); run_hyb<64, 96, 32, 1, 1, 8>();
    }
    if (ON("hyb")) {
        run_hyb<128, 48, 0, 0>(); run_hyb<128, 48, 0, 1>();
        run_hyb<128, 48, 16, 0>(); run_hyb<128, 48, 16, 1>();
        run_hyb<128, 40, 24, 1>(); run_hyb<128, 48, 24, 1>(); run_hyb<128, 32, 32, 1>(); run_hyb<128, 44, 20, 1>();
        run_hyb<128, 36, 12, 1>(); run_hyb<96, 48, 16, 1>(); run_hyb<128, 64, 16, 1>(); run_hyb<256, 24, 8, 1>();
    }
    if (ON("fast")) {
        /* aggregate first, a ticket, nothing in registers */
        run_hyb<128, 48, 0, 0>(); run_hyb<128, 64, 0, 0>(); run_hyb<128, 32, 0, 0>(); run_hyb<128, 40, 0, 0>();
        run_hyb<128, 44, 0, 0>(); run_hyb<64, 64, 0, 0>(); run_hyb<64, 96, 0, 0>(); run_hyb<256, 32, 0, 0>();
        run_hyb<256, 24, 0, 0>(); run_hyb<96, 64, 0, 0>();
    }
    if (ON("reg")) {
        run_reg<128, 48, 0>("");
        run_reg<128, 48, F_CS>("cs");
        run_reg<128, 48, F_NOLB>("nolb");
        run_reg<128, 48, F_NOLB | F_CS>("nolb cs");
        run_reg<128, 48, F_NOSCAN>("noscan");
        run_reg<128, 48, F_NOSCAN | F_CS>("noscan cs");
        run_reg<128, 32, F_NOSCAN>("noscan");
        run_reg<256, 16, F_NOSCAN>("noscan");
    }
    if (ON("smem")) {
        run_smem<128, 48, 0>("");
        run_smem<128, 48, F_CS>("cs");
        run_smem<128, 48, F_NOLB | F_CS>("nolb cs");
        run_smem<128, 32, F_CS>("cs");
        run_smem<128, 64, F_CS>("cs");
        run_smem<256, 32, F_CS>("cs");
        run_smem<256, 48, F_CS>("cs");
        run_smem<256, 64, F_CS>("cs");
        run_smem<512, 32, F_CS>("cs");
    }
    if (ON("pipe")) {
        run_pipe<128, 48, 3, F_CS>("cs");
        run_pipe<128, 48, 4, F_CS>("cs");
        run_pipe<128, 48, 3, F_NOLB | F_CS>("nolb cs");
        run_pipe<256, 32, 3, F_CS>("cs");
        run_pipe<256, 48, 3, F_CS>("cs");
        run_pipe<256, 64, 2, F_CS>("cs");
        run_pipe<512, 32, 3, F_CS>("cs");
        run_pipe<128, 32, 4, F_CS>("cs");
    }
    return 0;
}
