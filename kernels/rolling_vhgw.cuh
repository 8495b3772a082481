/* rolling_vhgw.cuh - the device side of kernels/rolling_vhgw.cu (its header says what each kernel
 * does): the families of states on the device, the tile grid, and the three kernels. Only CUDA
 * keywords and rolling_rows.h: the kernels are plain loops over their index, so that a test can
 * also run them on the host, one index after another (tests/unit/rolling_gpu_emu.cpp). */
#ifndef GS_ROLLING_VHGW_CUH
#define GS_ROLLING_VHGW_CUH

#include <string.h>

#include "rolling_rows.h"

#define RS_T ((uint64_t)GS_ROLL_TILE)
#define RS_G 8                      /* values a thread loads at once; the suffix groups of rs_out_k */
#define RS_CK ((int)(RS_T / RS_G))
#define RS_GR ((uint64_t)GS_ROLL_GROUP)

/* ---- the families on the device (as rolling_cpu.c's ROLL_STEPS rows) ------------------------------ */
template <class T> __device__ __forceinline__ int64_t rs_kmin(T x) { return (int64_t)x; }
template <class T> __device__ __forceinline__ int64_t rs_kmax(T x) { return (int64_t)x; }
template <> __device__ __forceinline__ int64_t rs_kmin<uint64_t>(uint64_t x) { return (int64_t)(x ^ (1ull << 63)); }
template <> __device__ __forceinline__ int64_t rs_kmax<uint64_t>(uint64_t x) { return (int64_t)(x ^ (1ull << 63)); }
template <> __device__ __forceinline__ int64_t rs_kmin<float>(float x) { return gs_kmin_f32(x); }
template <> __device__ __forceinline__ int64_t rs_kmax<float>(float x) { return gs_kmax_f32(x); }
template <> __device__ __forceinline__ int64_t rs_kmin<double>(double x) { return gs_kmin_f64(x); }
template <> __device__ __forceinline__ int64_t rs_kmax<double>(double x) { return gs_kmax_f64(x); }

struct RsSumF {
    static constexpr bool grouped = GS_RS_GROUPED(GS_RS_FAM_SUM);
    typedef gs_rs_sumf S;
    static constexpr bool skips = true;
    static __device__ void init(S *a) { gs_rs_sumf_init(a); }
    template <class T> static __device__ void add(S *a, T x, uint64_t) { gs_rs_sumf_add(a, (double)x); }
    template <class T> static __device__ void addl(S *a, T x, uint64_t) { gs_rs_sumf_add(a, (double)x); }
    static __device__ S merge(S a, S b) { return gs_rs_sumf_merge(a, b); }
    static __device__ void row(const gs_rs_cols *c, uint64_t r, S a) { gs_rs_row_sumf(c, r, a); }
};
struct RsSumI {
    static constexpr bool grouped = GS_RS_GROUPED(GS_RS_FAM_SUM);
    typedef gs_rs_sumi S;
    static constexpr bool skips = false;
    static __device__ void init(S *a) { gs_rs_sumi_init(a); }
    template <class T> static __device__ void add(S *a, T x, uint64_t) { gs_rs_sumi_add(a, (gs_i128)x); }
    template <class T> static __device__ void addl(S *a, T x, uint64_t) { gs_rs_sumi_add(a, (gs_i128)x); }
    static __device__ S merge(S a, S b) { return gs_rs_sumi_merge(a, b); }
    static __device__ void row(const gs_rs_cols *c, uint64_t r, S a) { gs_rs_row_sumi(c, r, a); }
};
struct RsVar {
    static constexpr bool grouped = GS_RS_GROUPED(GS_RS_FAM_VAR);
    typedef gs_rs_var S;
    static constexpr bool skips = true;
    static __device__ void init(S *a) { gs_rs_var_init(a); }
    template <class T> static __device__ void add(S *a, T x, uint64_t) { gs_rs_var_add(a, (double)x); }
    template <class T> static __device__ void addl(S *a, T x, uint64_t) { gs_rs_var_add(a, (double)x); }
    static __device__ S merge(S a, S b) { return gs_rs_var_merge(a, b); }
    static __device__ void row(const gs_rs_cols *c, uint64_t r, S a) { gs_rs_row_var(c, r, a); }
};
struct RsCnt {
    static constexpr bool grouped = GS_RS_GROUPED(GS_RS_FAM_CNT);
    typedef gs_rs_cnt S;
    static constexpr bool skips = false;
    static __device__ void init(S *a) { gs_rs_cnt_init(a); }
    template <class T> static __device__ void add(S *a, T x, uint64_t) { a->all++, a->valid += x == x; }
    template <class T> static __device__ void addl(S *a, T x, uint64_t) { a->all++, a->valid += x == x; }
    static __device__ S merge(S a, S b) { return gs_rs_cnt_merge(a, b); }
    static __device__ void row(const gs_rs_cols *c, uint64_t r, S a) { gs_rs_row_cnt(c, r, a); }
};
struct RsMin {
    static constexpr bool grouped = GS_RS_GROUPED(GS_RS_FAM_MIN);
    typedef gs_rs_ext S;
    static constexpr bool skips = true;
    static __device__ void init(S *a) { gs_rs_ext_init(a); }
    template <class T> static __device__ void add(S *a, T x, uint64_t p) { gs_rs_min_add(a, rs_kmin(x), p); }
    template <class T> static __device__ void addl(S *a, T x, uint64_t p) { gs_rs_min_addl(a, rs_kmin(x), p); }
    static __device__ S merge(S a, S b) { return gs_rs_min_merge(a, b); }
    static __device__ void row(const gs_rs_cols *c, uint64_t r, S a) { gs_rs_row_ext(c, r, a); }
};
struct RsMax {
    static constexpr bool grouped = GS_RS_GROUPED(GS_RS_FAM_MAX);
    typedef gs_rs_ext S;
    static constexpr bool skips = true;
    static __device__ void init(S *a) { gs_rs_ext_init(a); }
    template <class T> static __device__ void add(S *a, T x, uint64_t p) { gs_rs_max_add(a, rs_kmax(x), p); }
    template <class T> static __device__ void addl(S *a, T x, uint64_t p) { gs_rs_max_addl(a, rs_kmax(x), p); }
    static __device__ S merge(S a, S b) { return gs_rs_max_merge(a, b); }
    static __device__ void row(const gs_rs_cols *c, uint64_t r, S a) { gs_rs_row_ext(c, r, a); }
};

/* The tiles a chunk touches: blocks j_lo.. of W from absolute base, each with kspan tile slots
 * starting at tile kb (kb0 in block j_lo, 0 in the others): slot (jj, k - kb). */
enum {
    RS_FAST_NONE,  /* rs_out_k takes every slot */
    RS_FAST_SHORT, /* rs_out_short_k: windows of a few values, each end on its own (rolling_vhgw_short.cuh) */
    RS_FAST_WARP,  /* rs_out_warp_k: 32 tiles a warp (rolling_vhgw_warp.cuh) */
    RS_FAST_FUSE   /* rs_out_fuse_k: whole blocks a warp, their totals and chains its own */
};
struct RsGrid {
    uint64_t base, W, M, m, first, j_lo, nb, kspan, kb0, nslots;
    uint64_t gspan, ngslots; /* group slots a block (those its tile slots touch) and in all */
    uint64_t fast_lo, fast_hi; /* slots rs_out_k leaves to the path `fast` (RS_FAST_*) */
    uint64_t skip_lo, skip_hi; /* blocks whose totals and chains no kernel reads (the fused path's own) */
    int skip, fast;
};
__device__ __forceinline__ uint64_t rs_kb(const RsGrid &g, uint64_t jj) { return jj ? 0 : g.kb0; }
/* local position of block j_lo + jj's start (negative where it lies before in[0]) */
__device__ __forceinline__ int64_t rs_jb(const RsGrid &g, uint64_t jj) { return (int64_t)((g.j_lo + jj) * g.W - g.base); }
__device__ __forceinline__ uint64_t rs_tile_end(const RsGrid &g, uint64_t k) { return (k + 1) * RS_T < g.W ? (k + 1) * RS_T : g.W; }

template <class F, class T> __device__ __forceinline__ void rs_fold(const RsGrid &g, typename F::S *a, const T *in, int64_t lo, int64_t hi)
{
    for (int64_t i = lo; i < hi; i++) {
        const T x = in[i];
        if (!(F::skips && g.skip && x != x)) F::add(a, x, g.base + (uint64_t)i);
    }
}

/* up to n values of in[] from position p on, those below lim, into v: every load issued before any
 * is used (a thread's values are far apart from its neighbours': each load waits on memory) */
template <int n, class T> __device__ __forceinline__ void rs_loads(T (&v)[n], const T *in, int64_t p, int64_t lim)
{
#pragma unroll
    for (int j = 0; j < n; j++) v[j] = p + j < lim ? in[p + j] : T(0);
}
/* v[0] out and the others down one place (or v[n - 1] out and the others up): a loop that is not
 * unrolled takes its values in order with no index into v that varies at run time, so v stays in
 * registers and the loop body is compiled once */
template <int n, class T> __device__ __forceinline__ T rs_pop(T (&v)[n])
{
    const T x = v[0];
#pragma unroll
    for (int i = 0; i + 1 < n; i++) v[i] = v[i + 1];
    return x;
}
template <int n, class T> __device__ __forceinline__ T rs_pop_top(T (&v)[n])
{
    const T x = v[n - 1];
#pragma unroll
    for (int i = n - 1; i > 0; i--) v[i] = v[i - 1];
    return x;
}

template <class F, class T> __global__ void rs_tot_k(RsGrid g, const T *in, typename F::S *tot)
{
    const uint64_t slot = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (slot >= g.nslots) return;
    const uint64_t jj = slot / g.kspan, k = rs_kb(g, jj) + slot % g.kspan;
    if (jj >= g.skip_lo && jj < g.skip_hi) return;
    typename F::S a;
    F::init(&a);
    const int64_t jb = rs_jb(g, jj);
    if (k < g.M) {
        const int64_t lo = jb + (int64_t)(k * RS_T), hi = jb + (int64_t)rs_tile_end(g, k);
        if (lo >= 0 && hi <= (int64_t)g.m) { /* wholly in memory: its values left to right */
            T v[RS_G], nx[RS_G]; /* a group folded while the next one loads */
            rs_loads(v, in, lo, hi);
            for (int64_t p = lo; p < hi; p += RS_G) {
                rs_loads(nx, in, p + RS_G, hi);
                const int n = hi - p < RS_G ? (int)(hi - p) : RS_G;
#pragma unroll 1
                for (int j = 0; j < n; j++) {
                    const T x = rs_pop(v);
                    if (!(F::skips && g.skip && x != x)) F::add(&a, x, g.base + (uint64_t)(p + j));
                }
#pragma unroll
                for (int j = 0; j < RS_G; j++) v[j] = nx[j];
            }
        }
    }
    tot[slot] = a;
}

/* pt[slot(k)] = PT before tile k (block start in memory); st[slot(k)] = ST from tile k on (block end
 * in memory, tile k wholly in memory) */
template <class F>
__global__ void rs_chain_k(RsGrid g, const typename F::S *__restrict__ tot, typename F::S *__restrict__ pt, typename F::S *__restrict__ st)
{
    const uint64_t jj = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (jj >= g.nb || (jj >= g.skip_lo && jj < g.skip_hi)) return;
    const int64_t jb = rs_jb(g, jj);
    const uint64_t kb = rs_kb(g, jj), row = jj * g.kspan;
    const uint64_t kend = kb + g.kspan < g.M ? kb + g.kspan : g.M; /* slots of this block */
    typename F::S a;
    if (jb >= 0) {
        F::init(&a);
#pragma unroll 4
        for (uint64_t k = 0; k < kend; k++) {
            pt[row + k] = a;
            a = F::merge(a, tot[row + k]);
        }
    }
    if (jb + (int64_t)g.W <= (int64_t)g.m) {
        F::init(&a);
#pragma unroll 4
        for (uint64_t k = g.M; k-- > kb;) {
            if (jb + (int64_t)(k * RS_T) < 0) break; /* not wholly in memory */
            a = F::merge(tot[row + k - kb], a);
            st[row + k - kb] = a;
        }
    }
}

/* whether family F's chains on grid g run in two levels (rolling_rows.h: GS_RS_GROUPED) */
template <class F> __host__ __device__ __forceinline__ bool rs_grouped(const RsGrid &g) { return F::grouped && g.M > RS_GR; }

/* The chains of blocks of more than RS_GR tiles, in rolling_cpu.c's two levels: the groups of a
 * block side by side, the chain over its groups alone in order. Group slot jj * gspan + gi is
 * group rs_g0(jj) + gi of block j_lo + jj; a group's tiles are those of its slots. */
__device__ __forceinline__ uint64_t rs_g0(const RsGrid &g, uint64_t jj) { return rs_kb(g, jj) / RS_GR; }
/* the lowest tile of block jj wholly in memory */
__device__ __forceinline__ uint64_t rs_kmin(const RsGrid &g, uint64_t jj)
{
    const int64_t jb = rs_jb(g, jj);
    uint64_t kmin = rs_kb(g, jj);
    if (jb < 0) {
        const uint64_t need = (uint64_t)(-jb + (int64_t)RS_T - 1) / RS_T;
        if (need > kmin) kmin = need;
    }
    return kmin;
}

/* group slot gs's block jj and its group's tiles in the block's tile slots, [lo, hi) */
__device__ __forceinline__ void rs_group_tiles(const RsGrid &g, uint64_t gs, uint64_t *jj, uint64_t *lo, uint64_t *hi)
{
    *jj = gs / g.gspan;
    const uint64_t gr = rs_g0(g, *jj) + gs % g.gspan;
    const uint64_t kb = rs_kb(g, *jj), kend = kb + g.kspan < g.M ? kb + g.kspan : g.M;
    const uint64_t ke = (gr + 1) * RS_GR < g.M ? (gr + 1) * RS_GR : g.M;
    *lo = gr * RS_GR > kb ? gr * RS_GR : kb;
    *hi = ke < kend ? ke : kend;
}

/* each group's left total SL (its tiles' totals merged left to right from the identity) and right
 * total SR (right to left), a thread a group slot; meaningful where all its tiles are in memory */
template <class F>
__global__ void rs_grp_k(RsGrid g, const typename F::S *__restrict__ tot, typename F::S *__restrict__ sl,
                         typename F::S *__restrict__ sr)
{
    const uint64_t gs = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (gs >= g.ngslots) return;
    uint64_t jj, lo, hi;
    rs_group_tiles(g, gs, &jj, &lo, &hi);
    const uint64_t kb = rs_kb(g, jj), row = jj * g.kspan;
    typename F::S a, b;
    F::init(&a);
    F::init(&b);
    for (uint64_t k = lo; k < hi; k++) a = F::merge(a, tot[row + k - kb]);
    for (uint64_t k = hi; k-- > lo;) b = F::merge(tot[row + k - kb], b);
    sl[gs] = a;
    sr[gs] = b;
}

/* the chain over block jj's groups, a thread a block: ptg[gs] = PT at the group's first tile (where
 * the block starts in memory), stg[gs] = ST past the group (where it ends in memory: the identity
 * past the last group, whose ST is its plain chain, so SR of the last group, then SR (+) ST past) */
template <class F>
__global__ void rs_sup_k(RsGrid g, const typename F::S *__restrict__ sl, const typename F::S *__restrict__ sr,
                         typename F::S *__restrict__ ptg, typename F::S *__restrict__ stg)
{
    const uint64_t jj = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (jj >= g.nb || (jj >= g.skip_lo && jj < g.skip_hi)) return;
    const int64_t jb = rs_jb(g, jj);
    const uint64_t g0 = rs_g0(g, jj), row = jj * g.gspan, kb = rs_kb(g, jj);
    typename F::S a;
    if (jb >= 0) {
        const uint64_t kend = kb + g.kspan < g.M ? kb + g.kspan : g.M;
        F::init(&a);
        for (uint64_t gr = g0; gr * RS_GR < kend; gr++) {
            ptg[row + gr - g0] = a;
            a = F::merge(a, sl[row + gr - g0]);
        }
    }
    if (jb + (int64_t)g.W <= (int64_t)g.m) {
        const uint64_t last = (g.M - 1) / RS_GR, kmin = rs_kmin(g, jj);
        F::init(&a);
        stg[row + last - g0] = a;
        if (last * RS_GR < kmin) return; /* the last group not wholly in memory: nothing past it is needed */
        a = sr[row + last - g0];
        for (uint64_t gr = last; gr-- > g0;) {
            stg[row + gr - g0] = a;
            if (gr * RS_GR < kmin) break; /* not wholly in memory */
            a = F::merge(sr[row + gr - g0], a);
        }
    }
}

/* each group's tiles' PT (from PT at its first tile, left to right) and ST (from ST past it, right
 * to left; at a rebased first tile SR (+) ST past the group), a thread a group slot */
template <class F>
__global__ void rs_fin_k(RsGrid g, const typename F::S *__restrict__ tot, const typename F::S *__restrict__ ptg,
                         const typename F::S *__restrict__ stg, const typename F::S *__restrict__ sr,
                         typename F::S *__restrict__ pt, typename F::S *__restrict__ st)
{
    const uint64_t gs = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (gs >= g.ngslots) return;
    uint64_t jj, lo, hi;
    rs_group_tiles(g, gs, &jj, &lo, &hi);
    if (lo >= hi || (jj >= g.skip_lo && jj < g.skip_hi)) return;
    const uint64_t kb = rs_kb(g, jj), row = jj * g.kspan;
    const int64_t jb = rs_jb(g, jj);
    typename F::S a;
    if (jb >= 0) {
        a = ptg[gs];
        for (uint64_t k = lo; k < hi; k++) {
            pt[row + k - kb] = a;
            a = F::merge(a, tot[row + k - kb]);
        }
    }
    if (jb + (int64_t)g.W <= (int64_t)g.m) {
        const uint64_t kmin = rs_kmin(g, jj);
        a = stg[gs];
        for (uint64_t k = hi; k-- > lo;) {
            if (k < kmin) break; /* not wholly in memory */
            a = gs_roll_st_rebased(k, g.M) ? F::merge(sr[gs], stg[gs]) : F::merge(tot[row + k - kb], a);
            st[row + k - kb] = a;
        }
    }
}

/* The rows that rs_out_k and the warp paths write as PT before the tile (+) its total: the last
 * end of each tile k whose next tile's PT is rebased (gs_roll_pt_rebased, one tile a group), a
 * thread a group slot, rewritten after them with PT of the next tile (so that the kernels that
 * write every row carry no case of their own for it). */
template <class F>
__global__ void rs_fix_k(RsGrid g, const typename F::S *__restrict__ pt, const typename F::S *__restrict__ st, gs_rs_cols cols)
{
    const uint64_t gs = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (gs >= g.ngslots) return;
    const uint64_t jj = gs / g.gspan, gr = rs_g0(g, jj) + gs % g.gspan, kb = rs_kb(g, jj);
    const uint64_t kn = (gr + 1) * RS_GR; /* the next group's first tile */
    if (!gs_roll_pt_rebased(kn, g.M) || kn <= kb || kn >= kb + g.kspan) return;
    const int64_t jb = rs_jb(g, jj), e = jb + (int64_t)(kn * RS_T) - 1; /* tile kn - 1's last end */
    if (jb < 0 || e < (int64_t)g.first || e >= (int64_t)g.m) return;
    const typename F::S p = pt[jj * g.kspan + kn - kb];
    const typename F::S w = g.j_lo + jj == 0 ? p : F::merge(st[(jj - 1) * g.kspan + (kn - rs_kb(g, jj - 1))], p);
    F::row(&cols, (uint64_t)(e - (int64_t)g.first), w);
}

/* The suffixes rs_out_k keeps per thread: the RS_G suffixes of one group (slots 0..RS_G-1, folded
 * from the checkpoint above it) and RS_CK - 1 checkpoints (slot RS_G + c - 1 the suffix from tile
 * offset c * RS_G, folded once from the tile's end; the group's fold repeats those steps: the same
 * bits), in shared memory, word-major so that a warp's accesses fall in distinct banks. A tile of
 * len values uses rs_out_slots(len) of them. On the host (tests/unit/rolling_gpu_emu.cpp runs one
 * thread after another) a static array stands in. */
#define RS_OUT_THREADS 128
template <class S> __device__ __forceinline__ unsigned long long *rs_smem()
{
#ifdef __CUDA_ARCH__
    extern __shared__ unsigned long long rs_sm[];
    return rs_sm;
#else
    static unsigned long long host[(RS_G + RS_CK - 1) * (sizeof(S) / 8) * RS_OUT_THREADS];
    return host;
#endif
}
/* the slots of a tile of len values (the longest tile: min(W, 32)); the shared memory rs_out_k<F>
 * takes per launch of RS_OUT_THREADS threads */
static inline int rs_out_slots(uint64_t len) { return (int)((len < RS_G ? len : RS_G) + (len - 1) / RS_G); }
template <class S> static inline size_t rs_out_smem(uint64_t W)
{
    return (size_t)rs_out_slots(W < RS_T ? W : RS_T) * sizeof(S) * RS_OUT_THREADS;
}
template <class S> __device__ __forceinline__ void rs_sm_put(unsigned long long *sm, int i, const S &a)
{
    unsigned long long w[sizeof(S) / 8];
    memcpy(w, &a, sizeof a);
    for (int k = 0; k < (int)(sizeof(S) / 8); k++) sm[(i * (int)(sizeof(S) / 8) + k) * RS_OUT_THREADS + threadIdx.x] = w[k];
}
template <class S> __device__ __forceinline__ S rs_sm_get(const unsigned long long *sm, int i)
{
    unsigned long long w[sizeof(S) / 8];
    S a;
    for (int k = 0; k < (int)(sizeof(S) / 8); k++) w[k] = sm[(i * (int)(sizeof(S) / 8) + k) * RS_OUT_THREADS + threadIdx.x];
    memcpy(&a, w, sizeof a);
    return a;
}

/* The suffixes of group gq of the block before's tile at qt (those from lo up; the others as the
 * group's fold passes them), into slots 0..RS_G-1: from the checkpoint above it, or stnext */
template <class F, class T>
__device__ __forceinline__ void rs_group(const RsGrid &g, const T *in, unsigned long long *sm, int64_t gq, int64_t qt, int64_t q1,
                                         int64_t lo, const typename F::S &stnext)
{
    typedef typename F::S S;
    const int64_t top = qt + (gq + 1) * RS_G, qb = qt + gq * RS_G, qh = top < q1 ? top : q1;
    S b = gq + 1 < RS_CK && top < q1 ? rs_sm_get<S>(sm, RS_G + (int)gq) : stnext;
    T v[RS_G];
#pragma unroll
    for (int i = 0; i < RS_G; i++) v[i] = qb + i < qh && qb + i >= lo ? in[qb + i] : T(0);
#pragma unroll 1
    for (int i = RS_G - 1; i >= 0; i--) {
        const T x = rs_pop_top(v);
        const int64_t q = qb + i;
        if (q >= qh) continue;
        if (q >= lo && !(F::skips && g.skip && x != x)) F::addl(&b, x, g.base + (uint64_t)q);
        rs_sm_put(sm, i, b);
    }
}

/* Each thread a tile of ends: the prefix from PT left to right; each end's window also holds a
 * suffix of the same tile of the block before (folded from its end, ST of the next tile on). The
 * suffix at local tile offset r serves the end at offset r - 1. Values are read RS_G at a time,
 * every load of a group issued before its first use.
 * Launched with RS_OUT_THREADS threads and rs_out_smem<S>(W) bytes of shared memory. */
template <class F, class T>
__global__ void rs_out_k(RsGrid g, const T *__restrict__ in, const typename F::S *__restrict__ pt,
                         const typename F::S *__restrict__ st, const typename F::S *__restrict__ tots, gs_rs_cols cols)
{
    typedef typename F::S S;
    const uint64_t slot = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (slot >= g.nslots || (slot >= g.fast_lo && slot < g.fast_hi)) return;
    const uint64_t jj = slot / g.kspan, kb = rs_kb(g, jj), k = kb + slot % g.kspan;
    if (k >= g.M) return;
    const int64_t jb = rs_jb(g, jj), t0 = jb + (int64_t)(k * RS_T), t1 = jb + (int64_t)rs_tile_end(g, k);
    const int64_t ea = t0 > (int64_t)g.first ? t0 : (int64_t)g.first, eb = t1 < (int64_t)g.m ? t1 : (int64_t)g.m;
    if (ea >= eb) return;
    const bool multi = g.M > 1, first_block = g.j_lo + jj == 0, has_next = k + 1 < g.M;
    S acc, before, stnext;
    if (multi) before = pt[slot];
    else F::init(&before);
    acc = before;
    rs_fold<F>(g, &acc, in, t0, ea);
    unsigned long long *sm = rs_smem<S>();
    /* the block before: its tile at qt, suffixes needed from lo up (never the tile's first value:
     * that is a tile-last end's, whose suffix is ST of the next tile) */
    const int64_t qt = t0 - (int64_t)g.W, q1 = t1 - (int64_t)g.W;
    const int64_t qe = ea - (int64_t)g.W + 1, lo = qe > qt + 1 ? qe : qt + 1;
    if (!first_block) {
        if (has_next) stnext = st[(jj - 1) * g.kspan + (k + 1 - rs_kb(g, jj - 1))];
        else F::init(&stnext);
        S a = stnext;
        /* checkpoint c, the suffix from offset c * RS_G, folded from the tile's end down to the
         * lowest one a group needs (none in a tile of RS_G values or fewer), a group at a time */
        const int64_t qc = qt + RS_G * ((lo - qt) / RS_G + 1);
        for (int64_t gb = q1 > qt ? qt + RS_G * ((q1 - 1 - qt) / RS_G) : qt; gb >= qc; gb -= RS_G) {
            T v[RS_G];
            rs_loads(v, in, gb, q1);
#pragma unroll 1
            for (int i = RS_G - 1; i >= 0; i--) {
                const T x = rs_pop_top(v);
                if (gb + i >= q1) continue;
                if (!(F::skips && g.skip && x != x)) F::addl(&a, x, g.base + (uint64_t)(gb + i));
            }
            rs_sm_put(sm, RS_G + (int)((gb - qt) / RS_G) - 1, a);
        }
        if (ea != t1 - 1) rs_group<F>(g, in, sm, (ea + 1 - t0) / RS_G, qt, q1, lo, stnext); /* the first end's */
    }
    for (int64_t pb = t0 + RS_G * ((ea - t0) / RS_G); pb < eb; pb += RS_G) { /* ends pb .. pb + RS_G - 1 */
        T xv[RS_G];
        rs_loads(xv, in, pb, eb);
        const int n = eb - pb < RS_G ? (int)(eb - pb) : RS_G;
#pragma unroll 1
        for (int j = 0; j < n; j++) {
            const T x = rs_pop(xv);
            const int64_t e = pb + j;
            if (e < ea) continue;
            const int64_t r = e + 1 - t0; /* the suffix at offset r serves this end */
            const int rg = (j + 1) % RS_G; /* r % RS_G: pb is a group's start */
            const bool last = e == t1 - 1;
            if (!first_block && !last && rg == 0 && e != ea) rs_group<F>(g, in, sm, r / RS_G, qt, q1, lo, stnext);
            if (!(F::skips && g.skip && x != x)) F::add(&acc, x, g.base + (uint64_t)e);
            /* a tile's last end: PT of the tile, PT before it (+) its total (rs_fix_k rewrites those
             * whose next tile's PT is rebased); with one tile a block the prefix itself (the identity
             * (+) a total gives every row the same value) */
            const S p = last && multi ? F::merge(before, tots[slot]) : acc;
            S w;
            if (first_block) w = p;
            else if (last) w = has_next ? F::merge(stnext, p) : p;
            else w = F::merge(rs_sm_get<S>(sm, rg), acc);
            F::row(&cols, (uint64_t)(e - (int64_t)g.first), w);
        }
    }
}

/* the grid of the chunk in[0..m) for these params (host) */
static inline void rs_grid(const gs_minmax_params *p, uint64_t m, uint64_t first, RsGrid *g)
{
    g->base = p->base;
    g->W = p->window;
    g->M = (g->W + RS_T - 1) / RS_T;
    g->m = m;
    g->first = first;
    g->j_lo = p->base / g->W;
    const uint64_t j_hi = (p->base + (m ? m - 1 : 0)) / g->W;
    g->nb = j_hi - g->j_lo + 1;
    g->kb0 = (p->base - g->j_lo * g->W) / RS_T;
    const uint64_t span = m / RS_T + 2;
    g->kspan = g->M < span ? g->M : span;
    g->nslots = g->nb * g->kspan;
    g->gspan = (g->kspan + RS_GR - 1) / RS_GR + 1;
    g->ngslots = g->nb * g->gspan;
    g->fast_lo = g->fast_hi = g->skip_lo = g->skip_hi = 0;
    g->fast = RS_FAST_NONE;
    g->skip = p->skip_nan;
}

/* The tiles of grid g (host) whose ends are all outputs and whose windows are whole and in memory:
 * the slots [*lo, *hi), where every block has a slot for each of its tiles (kspan = M) or one tile
 * (the paths of rolling_vhgw_warp.cuh and rolling_vhgw_short.cuh take them; rs_out_k the others) */
static inline void rs_whole_tiles(const RsGrid *g, uint64_t *lo, uint64_t *hi)
{
    *lo = *hi = 0;
    const uint64_t from = g->first > g->W ? g->first : g->W; /* ends all outputs, windows in memory */
    if (from >= g->m) return;
    const uint64_t a = g->base + from, at = a - a / g->W * g->W;
    const uint64_t j = a / g->W;
    *lo = (j - g->j_lo) * g->kspan + at / RS_T + (at % RS_T != 0); /* a tile from its start */
    const uint64_t e = g->base + g->m, je = e / g->W;
    *hi = (je - g->j_lo) * g->kspan + (e - je * g->W) / RS_T; /* tiles ending by m */
    if (*lo >= *hi) *lo = *hi = 0;
}

#endif
