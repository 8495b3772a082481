/* rolling_vhgw.cuh - the device side of kernels/rolling_vhgw.cu (its header says what each kernel
 * does): the families of states on the device, the tile grid, and the three kernels. Only CUDA
 * keywords and rolling_rows.h: the kernels are plain loops over their index, so that a test can
 * also run them on the host, one index after another (tests/unit/rolling_gpu_emu.cpp). */
#ifndef GS_ROLLING_VHGW_CUH
#define GS_ROLLING_VHGW_CUH

#include <string.h>

#include "rolling_rows.h"

#define RS_T ((uint64_t)GS_ROLL_TILE)

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
    typedef gs_rs_sumf S;
    static constexpr bool skips = true;
    static __device__ void init(S *a) { gs_rs_sumf_init(a); }
    template <class T> static __device__ void add(S *a, T x, uint64_t) { gs_rs_sumf_add(a, (double)x); }
    template <class T> static __device__ void addl(S *a, T x, uint64_t) { gs_rs_sumf_add(a, (double)x); }
    static __device__ S merge(S a, S b) { return gs_rs_sumf_merge(a, b); }
    static __device__ void row(const gs_rs_cols *c, uint64_t r, S a) { gs_rs_row_sumf(c, r, a); }
};
struct RsSumI {
    typedef gs_rs_sumi S;
    static constexpr bool skips = false;
    static __device__ void init(S *a) { gs_rs_sumi_init(a); }
    template <class T> static __device__ void add(S *a, T x, uint64_t) { gs_rs_sumi_add(a, (gs_i128)x); }
    template <class T> static __device__ void addl(S *a, T x, uint64_t) { gs_rs_sumi_add(a, (gs_i128)x); }
    static __device__ S merge(S a, S b) { return gs_rs_sumi_merge(a, b); }
    static __device__ void row(const gs_rs_cols *c, uint64_t r, S a) { gs_rs_row_sumi(c, r, a); }
};
struct RsVar {
    typedef gs_rs_var S;
    static constexpr bool skips = true;
    static __device__ void init(S *a) { gs_rs_var_init(a); }
    template <class T> static __device__ void add(S *a, T x, uint64_t) { gs_rs_var_add(a, (double)x); }
    template <class T> static __device__ void addl(S *a, T x, uint64_t) { gs_rs_var_add(a, (double)x); }
    static __device__ S merge(S a, S b) { return gs_rs_var_merge(a, b); }
    static __device__ void row(const gs_rs_cols *c, uint64_t r, S a) { gs_rs_row_var(c, r, a); }
};
struct RsCnt {
    typedef gs_rs_cnt S;
    static constexpr bool skips = false;
    static __device__ void init(S *a) { gs_rs_cnt_init(a); }
    template <class T> static __device__ void add(S *a, T x, uint64_t) { a->all++, a->valid += x == x; }
    template <class T> static __device__ void addl(S *a, T x, uint64_t) { a->all++, a->valid += x == x; }
    static __device__ S merge(S a, S b) { return gs_rs_cnt_merge(a, b); }
    static __device__ void row(const gs_rs_cols *c, uint64_t r, S a) { gs_rs_row_cnt(c, r, a); }
};
struct RsMin {
    typedef gs_rs_ext S;
    static constexpr bool skips = true;
    static __device__ void init(S *a) { gs_rs_ext_init(a); }
    template <class T> static __device__ void add(S *a, T x, uint64_t p) { gs_rs_min_add(a, rs_kmin(x), p); }
    template <class T> static __device__ void addl(S *a, T x, uint64_t p) { gs_rs_min_addl(a, rs_kmin(x), p); }
    static __device__ S merge(S a, S b) { return gs_rs_min_merge(a, b); }
    static __device__ void row(const gs_rs_cols *c, uint64_t r, S a) { gs_rs_row_ext(c, r, a); }
};
struct RsMax {
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
struct RsGrid {
    uint64_t base, W, M, m, first, j_lo, nb, kspan, kb0, nslots;
    int skip;
};
__device__ __forceinline__ uint64_t rs_kb(const RsGrid &g, uint64_t jj) { return jj ? 0 : g.kb0; }
/* local position of block j_lo + jj's start (negative where it lies before in[0]) */
__device__ __forceinline__ int64_t rs_jb(const RsGrid &g, uint64_t jj) { return (int64_t)((g.j_lo + jj) * g.W - g.base); }
__device__ __forceinline__ uint64_t rs_tile_end(const RsGrid &g, uint64_t k) { return (k + 1) * RS_T < g.W ? (k + 1) * RS_T : g.W; }

/* ---- a launch block's values in shared memory --------------------------------------------------
 * rs_tot_k and rs_out_k first copy the values their threads read, all threads at once (coalesced):
 * cur, the range of in[] that the launch block's tiles cover, and for rs_out_k bef, the same range
 * W back (the block before's tiles, whose suffixes the windows take). Each thread then folds its
 * own tiles from shared memory. The tiles' clamped starts grow with the slot (rs_slot_pos), so a
 * launch block's tiles in memory are one run of at most cap values; where a range would not fit
 * (it cannot, but the bound is checked) the threads read in[] itself. Position p of a range sits
 * at p + p / 32, so that a thread's tile of 32 and its neighbour's fall in different banks. */
#define RS_SPAD(p) ((p) + ((p) >> 5))
static inline __host__ __device__ uint64_t rs_padded(uint64_t n) { return n + (n >> 5) + 1; }
/* the start (end: the end) of slot s's tile, clamped to its block: never less than slot s - 1's */
__device__ __forceinline__ int64_t rs_slot_pos(const RsGrid &g, uint64_t s, int end)
{
    const uint64_t jj = s / g.kspan, k = rs_kb(g, jj) + s % g.kspan + (uint64_t)end;
    return rs_jb(g, jj) + (int64_t)(k * RS_T < g.W ? k * RS_T : g.W);
}
/* slots a thread takes in rs_out_k: one; with one tile a block (W <= 32) enough for ~32 values */
static inline __host__ __device__ uint64_t rs_spt(const RsGrid &g) { return g.M > 1 ? 1 : RS_T / g.W; }

/* a value of in[] at position i, from the staged copy or in[] itself */
template <class T> struct RsX {
    const T *p;
    int64_t o;
    int pad;
    __device__ __forceinline__ T operator()(int64_t i) const
    {
        const int64_t d = i - o;
        return p[pad ? RS_SPAD(d) : d];
    }
};
/* what a launch block stages: cur = [a0, a1), bef = [b0, b1); rows from r0 (rows: staged too) */
struct RsStage {
    int64_t a0, a1, b0, b1;
    uint64_t r0, nrows;
    int cur, bef, rows;
};
__device__ __forceinline__ RsStage rs_stage(const RsGrid &g, uint64_t s_lo, uint64_t s_hi, uint64_t cap, int bef,
                                            uint64_t rowbytes)
{
    RsStage r;
    const int64_t m = (int64_t)g.m, W = (int64_t)g.W;
    const int64_t p0 = rs_slot_pos(g, s_lo, 0), p1 = rs_slot_pos(g, s_hi - 1, 1);
    r.a0 = p0 > 0 ? p0 : 0;
    r.a1 = p1 < m ? p1 : m;
    if (r.a1 < r.a0) r.a1 = r.a0;
    r.cur = (uint64_t)(r.a1 - r.a0) <= cap;
    /* a thread's suffixes read [lo, q1): lo > its first end - W, q1 = its tile's end - W */
    r.b0 = r.a0 - W > 0 ? r.a0 - W : 0;
    r.b1 = r.a1 + (int64_t)RS_T - W < m ? r.a1 + (int64_t)RS_T - W : m;
    if (r.b1 < r.b0) r.b1 = r.b0;
    r.bef = bef && (uint64_t)(r.b1 - r.b0) <= cap + RS_T;
    const int64_t e0 = r.a0 > (int64_t)g.first ? r.a0 : (int64_t)g.first;
    r.r0 = e0 < r.a1 ? (uint64_t)(e0 - (int64_t)g.first) : 0;
    r.nrows = e0 < r.a1 ? (uint64_t)(r.a1 - e0) : 0;
    r.rows = r.cur && rowbytes <= 8;
    return r;
}
/* this thread's share of copying in[a0, a1) to buf (padded) */
template <class T> __device__ __forceinline__ void rs_stage_copy(T *buf, const T *in, int64_t a0, int64_t a1)
{
    for (int64_t i = threadIdx.x; i < a1 - a0; i += blockDim.x) buf[RS_SPAD(i)] = in[a0 + i];
}

template <class F, class T> __device__ __forceinline__ void rs_fold(const RsGrid &g, typename F::S *a, const RsX<T> &in, int64_t lo, int64_t hi)
{
    for (int64_t i = lo; i < hi; i++) {
        const T x = in(i);
        if (!(F::skips && g.skip && x != x)) F::add(a, x, g.base + (uint64_t)i);
    }
}

/* rs_tot_k: one thread per tile wholly in memory, its total; RS_TOT_THREADS threads a block and
 * rs_tot_smem<T>() bytes of shared memory */
#define RS_TOT_THREADS 128
template <class T> static inline size_t rs_tot_smem() { return rs_padded(RS_TOT_THREADS * RS_T) * sizeof(T); }
template <class T> __device__ __forceinline__ T *rs_tot_buf(unsigned long long *sm) { return (T *)sm; }
template <class T> __device__ __forceinline__ RsStage rs_tot_stage(const RsGrid &g)
{
    const uint64_t s_lo = blockIdx.x * (uint64_t)blockDim.x;
    const uint64_t s_hi = s_lo + blockDim.x < g.nslots ? s_lo + blockDim.x : g.nslots;
    return rs_stage(g, s_lo, s_hi, RS_TOT_THREADS * RS_T, 0, 0);
}
/* the launch's phases (rs_tot_k runs them with a barrier between; the host test, each phase for
 * every thread of a block before the next) */
template <class T> __device__ __forceinline__ void rs_tot_load(const RsGrid &g, const T *in, unsigned long long *sm)
{
    const RsStage r = rs_tot_stage<T>(g);
    if (r.cur) rs_stage_copy(rs_tot_buf<T>(sm), in, r.a0, r.a1);
}
template <class F, class T> __device__ __forceinline__ void rs_tot_fold(const RsGrid &g, const T *in, typename F::S *tot, unsigned long long *sm)
{
    const uint64_t slot = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (slot >= g.nslots) return;
    const RsStage r = rs_tot_stage<T>(g);
    const RsX<T> x = r.cur ? RsX<T>{rs_tot_buf<T>(sm), r.a0, 1} : RsX<T>{in, 0, 0};
    const uint64_t jj = slot / g.kspan, k = rs_kb(g, jj) + slot % g.kspan;
    typename F::S a;
    F::init(&a);
    const int64_t jb = rs_jb(g, jj);
    if (k < g.M) {
        const int64_t lo = jb + (int64_t)(k * RS_T), hi = jb + (int64_t)rs_tile_end(g, k);
        if (lo >= 0 && hi <= (int64_t)g.m) rs_fold<F>(g, &a, x, lo, hi); /* wholly in memory */
    }
    tot[slot] = a;
}
#ifdef __CUDACC__
template <class F, class T> __global__ void __launch_bounds__(RS_TOT_THREADS) rs_tot_k(RsGrid g, const T *in, typename F::S *tot)
{
    extern __shared__ unsigned long long rs_sm[];
    rs_tot_load<T>(g, in, rs_sm);
    __syncthreads();
    rs_tot_fold<F, T>(g, in, tot, rs_sm);
}
#endif

/* pt[slot(k)] = PT before tile k (block start in memory); st[slot(k)] = ST from tile k on (block end
 * in memory, tile k wholly in memory) */
template <class F> __global__ void rs_chain_k(RsGrid g, const typename F::S *tot, typename F::S *pt, typename F::S *st)
{
    const uint64_t jj = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (jj >= g.nb) return;
    const int64_t jb = rs_jb(g, jj);
    const uint64_t kb = rs_kb(g, jj), row = jj * g.kspan;
    const uint64_t kend = kb + g.kspan < g.M ? kb + g.kspan : g.M; /* slots of this block */
    typename F::S a;
    if (jb >= 0) {
        F::init(&a);
        for (uint64_t k = 0; k < kend; k++) {
            pt[row + k] = a;
            a = F::merge(a, tot[row + k]);
        }
    }
    if (jb + (int64_t)g.W <= (int64_t)g.m) {
        F::init(&a);
        for (uint64_t k = g.M; k-- > kb;) {
            if (jb + (int64_t)(k * RS_T) < 0) break; /* not wholly in memory */
            a = F::merge(tot[row + k - kb], a);
            st[row + k - kb] = a;
        }
    }
}

/* The suffixes rs_out_k keeps per thread: the RS_G suffixes of one group (slots 0..RS_G-1, folded
 * from the checkpoint above it) and RS_CK - 1 checkpoints (slot RS_G + c - 1 the suffix from tile
 * offset c * RS_G, folded once from the tile's end; the group's fold repeats those steps: the same
 * bits), in shared memory, word-major so that a warp's accesses fall in distinct banks. A tile of
 * len values uses rs_out_slots(len) of them. */
#define RS_G 8
#define RS_CK ((int)(RS_T / RS_G))
#define RS_OUT_THREADS 64
static inline __host__ __device__ int rs_out_slots(uint64_t len) { return (int)((len < RS_G ? len : RS_G) + (len - 1) / RS_G); }
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

/* rs_out_k's shared memory, in bytes from its start: the suffix states, then cur, bef and (rows of
 * at most 8 bytes) the rows, staged for one coalesced store */
struct RsOutSm {
    size_t cur, bef, rows, total;
};
static inline __host__ __device__ size_t rs_al16(size_t b) { return (b + 15) & ~(size_t)15; }
template <class S, class T> static inline __host__ __device__ RsOutSm rs_out_layout(uint64_t W, uint64_t rowbytes)
{
    const uint64_t cap = RS_OUT_THREADS * RS_T;
    RsOutSm l;
    l.cur = rs_al16((size_t)rs_out_slots(W < RS_T ? W : RS_T) * sizeof(S) * RS_OUT_THREADS);
    l.bef = l.cur + rs_al16(rs_padded(cap) * sizeof(T));
    l.rows = l.bef + rs_al16(rs_padded(cap + RS_T) * sizeof(T));
    l.total = l.rows + (rowbytes <= 8 ? rs_al16(rs_padded(cap) * rowbytes) : 0);
    return l;
}
template <class F, class T> __device__ __forceinline__ RsStage rs_out_stage(const RsGrid &g, const gs_rs_cols &c)
{
    const uint64_t per = RS_OUT_THREADS * rs_spt(g), s_lo = blockIdx.x * per;
    const uint64_t s_hi = s_lo + per < g.nslots ? s_lo + per : g.nslots;
    return rs_stage(g, s_lo, s_hi, RS_OUT_THREADS * RS_T, 1, c.k * c.osz);
}

/* One tile of ends (slot): the prefix from PT left to right; each end's window also holds a suffix
 * of the same tile of the block before (folded from its end, ST of the next tile on). The suffix
 * at local tile offset r serves the end at offset r - 1. x: values of this block's tiles, xb: the
 * block before's; row e - first goes to rows (staged: at RS_SPAD(e - first - r0)). */
template <class F, class T>
__device__ __forceinline__ void rs_out_tile(const RsGrid &g, uint64_t slot, const RsX<T> &x, const RsX<T> &xb,
                                            const typename F::S *pt, const typename F::S *st, const typename F::S *tots,
                                            const gs_rs_cols &rows, int staged, uint64_t r0, unsigned long long *sm)
{
    typedef typename F::S S;
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
    rs_fold<F>(g, &acc, x, t0, ea);
    /* the block before: its tile at qt, suffixes needed from lo up (never the tile's first value:
     * that is a tile-last end's, whose suffix is ST of the next tile) */
    const int64_t qt = t0 - (int64_t)g.W, q1 = t1 - (int64_t)g.W;
    const int64_t qe = ea - (int64_t)g.W + 1, lo = qe > qt + 1 ? qe : qt + 1;
    if (!first_block) {
        if (has_next) stnext = st[(jj - 1) * g.kspan + (k + 1 - rs_kb(g, jj - 1))];
        else F::init(&stnext);
        S a = stnext;
        /* down to the lowest checkpoint a group needs (none in a tile of RS_G values or fewer) */
        const int64_t qc = qt + RS_G * ((lo - qt) / RS_G + 1);
        for (int64_t q = q1 - 1; q >= qc; q--) { /* checkpoint c: the suffix from offset c * RS_G */
            const T v = xb(q);
            if (!(F::skips && g.skip && v != v)) F::addl(&a, v, g.base + (uint64_t)q);
            if ((q - qt) % RS_G == 0) rs_sm_put(sm, RS_G + (int)((q - qt) / RS_G) - 1, a);
        }
    }
    for (int64_t e = ea; e < eb; e++) {
        const int64_t r = e + 1 - t0; /* the suffix at offset r serves this end */
        const bool last = e == t1 - 1;
        if (!first_block && !last && (e == ea || r % RS_G == 0)) { /* this group's suffixes */
            const int64_t gq = r / RS_G, top = qt + (gq + 1) * RS_G;
            S b = gq + 1 < RS_CK && top < q1 ? rs_sm_get<S>(sm, RS_G + (int)gq) : stnext;
            for (int64_t q = (top < q1 ? top : q1) - 1; q >= qt + gq * RS_G; q--) {
                if (q >= lo) {
                    const T v = xb(q);
                    if (!(F::skips && g.skip && v != v)) F::addl(&b, v, g.base + (uint64_t)q);
                }
                rs_sm_put(sm, (int)(q - qt - gq * RS_G), b);
            }
        }
        const T v = x(e);
        if (!(F::skips && g.skip && v != v)) F::add(&acc, v, g.base + (uint64_t)e);
        /* a tile's last end: PT of the tile, PT before it (+) its total (with one tile a block,
         * the prefix itself: the identity (+) a total leaves every row's value as it is) */
        const S p = last && multi ? F::merge(before, tots[slot]) : acc;
        S w;
        if (first_block) w = p;
        else if (last) w = has_next ? F::merge(stnext, p) : p;
        else w = F::merge(rs_sm_get<S>(sm, (int)(r % RS_G)), acc);
        const uint64_t row = (uint64_t)(e - (int64_t)g.first);
        F::row(&rows, staged ? RS_SPAD(row - r0) : row, w);
    }
}

/* rs_out_k's phases (run with a barrier between; the host test runs each phase for every thread
 * of a block before the next): copy cur and bef in; the ends of this thread's slots; the rows out */
template <class F, class T>
__device__ __forceinline__ void rs_out_load(const RsGrid &g, const T *in, const gs_rs_cols &c, unsigned long long *sm)
{
    const RsStage r = rs_out_stage<F, T>(g, c);
    const RsOutSm l = rs_out_layout<typename F::S, T>(g.W, c.k * c.osz);
    if (r.cur) rs_stage_copy((T *)((char *)sm + l.cur), in, r.a0, r.a1);
    if (r.bef) rs_stage_copy((T *)((char *)sm + l.bef), in, r.b0, r.b1);
}
template <class F, class T>
__device__ __forceinline__ void rs_out_ends(const RsGrid &g, const T *in, const typename F::S *pt, const typename F::S *st,
                                            const typename F::S *tots, const gs_rs_cols &c, unsigned long long *sm)
{
    const RsStage r = rs_out_stage<F, T>(g, c);
    const RsOutSm l = rs_out_layout<typename F::S, T>(g.W, c.k * c.osz);
    const RsX<T> x = r.cur ? RsX<T>{(const T *)((char *)sm + l.cur), r.a0, 1} : RsX<T>{in, 0, 0};
    const RsX<T> xb = r.bef ? RsX<T>{(const T *)((char *)sm + l.bef), r.b0, 1} : RsX<T>{in, 0, 0};
    gs_rs_cols rows = c;
    if (r.rows) rows.out = (char *)sm + l.rows;
    const uint64_t spt = rs_spt(g), s0 = blockIdx.x * (RS_OUT_THREADS * spt) + threadIdx.x * spt;
    for (uint64_t i = 0; i < spt && s0 + i < g.nslots; i++)
        rs_out_tile<F, T>(g, s0 + i, x, xb, pt, st, tots, rows, r.rows, r.r0, sm);
}
template <class F, class T>
__device__ __forceinline__ void rs_out_store(const RsGrid &g, const gs_rs_cols &c, unsigned long long *sm)
{
    const RsStage r = rs_out_stage<F, T>(g, c);
    if (!r.rows) return;
    const RsOutSm l = rs_out_layout<typename F::S, T>(g.W, c.k * c.osz);
    const char *src = (const char *)sm + l.rows;
    const uint64_t nf = (uint64_t)c.nf, n = r.nrows * nf;
    for (uint64_t i = threadIdx.x; i < n; i += blockDim.x) {
        const uint64_t row = i / nf, col = (uint64_t)c.col[i % nf];
        const uint64_t from = (RS_SPAD(row) * c.k + col) * c.osz, to = ((r.r0 + row) * c.k + col) * c.osz;
        if (c.osz == 8) *(uint64_t *)(c.out + to) = *(const uint64_t *)(src + from);
        else *(uint32_t *)(c.out + to) = *(const uint32_t *)(src + from);
    }
}
#ifdef __CUDACC__
/* RS_OUT_THREADS threads a block, rs_out_layout(...).total bytes of shared memory */
template <class F, class T>
__global__ void __launch_bounds__(RS_OUT_THREADS) rs_out_k(RsGrid g, const T *in, const typename F::S *pt, const typename F::S *st,
                                                            const typename F::S *tots, gs_rs_cols cols)
{
    extern __shared__ unsigned long long rs_sm[];
    rs_out_load<F, T>(g, in, cols, rs_sm);
    __syncthreads();
    rs_out_ends<F, T>(g, in, pt, st, tots, cols, rs_sm);
    __syncthreads();
    rs_out_store<F, T>(g, cols, rs_sm);
}
#endif

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
    g->skip = p->skip_nan;
}

#endif
