/* gpu_common.cuh - what the GPU kernel files (scan.cu, compact.cu, minmax.cu) share:
 *
 *   GS_CUDA_CHECK / GS_LAUNCH_CHECK   a cudaError_t becomes gs_fail(st, GS_EDATA, "cuda: ...")
 *   gs_dispatch_*                     host: gs_type (and op) -> a C++ type (and functor) for templates
 *   gs_op_sum / gs_op_min / gs_op_max element functors over ops.h (NaN and -0.0 as on the CPU)
 *   gs_warp_* / gs_block_*            thread -> warp shuffle -> block (shared memory) scans/reductions
 *   gs_ld_vec / gs_st_vec             16-byte vector loads and stores (LDG.E.128 / STG.E.128)
 *   gs_cp_async_*                     asynchronous global -> shared copies (LDGSTS)
 *   gs_persistent_blocks              host: blocks of a kernel that fit on the device at once
 *   gs_*_cfg                          launch configurations, kept as data with what they measured
 *   gs_grid_block / gs_dispatch_block host: the params' block (threads per block) -> a launch
 *
 * Only the kernels/ .cu files include this. No printing, no exiting: launchers return a gs_status code. */
#ifndef GS_GPU_COMMON_CUH
#define GS_GPU_COMMON_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include <type_traits>

#include "kernels.h"
#include "kernels_gpu.h"
#include "ops.h"

/* ---- errors -------------------------------------------------------------------------------- */
#define GS_CUDA_CHECK(st, call)                                                                          \
    do {                                                                                                 \
        cudaError_t gs_e_ = (call);                                                                      \
        if (gs_e_ != cudaSuccess)                                                                        \
            return gs_fail((st), gs_e_ == cudaErrorMemoryAllocation ? GS_ENOMEM : GS_EDATA,              \
                           "cuda: %s at %s:%d", cudaGetErrorString(gs_e_), __FILE__, __LINE__);          \
    } while (0)
/* After every <<<>>>: launch-configuration errors show up here, not as a return value. */
#define GS_LAUNCH_CHECK(st) GS_CUDA_CHECK(st, cudaGetLastError())

/* Forward a non-zero status code from a helper. */
#define GS_FORWARD(expr)                                                                                 \
    do {                                                                                                 \
        int gs_rc_ = (expr);                                                                             \
        if (gs_rc_) return gs_rc_;                                                                       \
    } while (0)

static inline cudaStream_t gs_stream(void *s) { return (cudaStream_t)s; }
static inline uint64_t gs_cdiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
static inline size_t gs_align_up(size_t x, size_t a) { return (x + a - 1) / a * a; }
static inline int gs_aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

/* ---- element operations -------------------------------------------------------------------- */
#define GS_DEV __device__ __forceinline__

GS_DEV int32_t gs_add(int32_t a, int32_t b) { return gs_add_i32(a, b); }
GS_DEV int64_t gs_add(int64_t a, int64_t b) { return gs_add_i64(a, b); }
GS_DEV uint32_t gs_add(uint32_t a, uint32_t b) { return gs_add_u32(a, b); }
GS_DEV uint64_t gs_add(uint64_t a, uint64_t b) { return gs_add_u64(a, b); }
GS_DEV float gs_add(float a, float b) { return gs_add_f32(a, b); }
GS_DEV double gs_add(double a, double b) { return gs_add_f64(a, b); }
GS_DEV int32_t gs_min(int32_t a, int32_t b) { return gs_min_i32(a, b); }
GS_DEV int64_t gs_min(int64_t a, int64_t b) { return gs_min_i64(a, b); }
GS_DEV uint32_t gs_min(uint32_t a, uint32_t b) { return gs_min_u32(a, b); }
GS_DEV uint64_t gs_min(uint64_t a, uint64_t b) { return gs_min_u64(a, b); }
GS_DEV float gs_min(float a, float b) { return gs_min_f32(a, b); }
GS_DEV double gs_min(double a, double b) { return gs_min_f64(a, b); }
GS_DEV int32_t gs_max(int32_t a, int32_t b) { return gs_max_i32(a, b); }
GS_DEV int64_t gs_max(int64_t a, int64_t b) { return gs_max_i64(a, b); }
GS_DEV uint32_t gs_max(uint32_t a, uint32_t b) { return gs_max_u32(a, b); }
GS_DEV uint64_t gs_max(uint64_t a, uint64_t b) { return gs_max_u64(a, b); }
GS_DEV float gs_max(float a, float b) { return gs_max_f32(a, b); }
GS_DEV double gs_max(double a, double b) { return gs_max_f64(a, b); }

template <class T> struct gs_limits;
template <> struct gs_limits<int32_t> {
    static GS_DEV int32_t hi() { return INT32_MAX; }
    static GS_DEV int32_t lo() { return INT32_MIN; }
};
template <> struct gs_limits<int64_t> {
    static GS_DEV int64_t hi() { return INT64_MAX; }
    static GS_DEV int64_t lo() { return INT64_MIN; }
};
template <> struct gs_limits<uint32_t> {
    static GS_DEV uint32_t hi() { return UINT32_MAX; }
    static GS_DEV uint32_t lo() { return 0u; }
};
template <> struct gs_limits<uint64_t> {
    static GS_DEV uint64_t hi() { return UINT64_MAX; }
    static GS_DEV uint64_t lo() { return 0ull; }
};
template <> struct gs_limits<float> {
    static GS_DEV float hi() { return __int_as_float(0x7f800000); }
    static GS_DEV float lo() { return __int_as_float((int)0xff800000u); }
};
template <> struct gs_limits<double> {
    static GS_DEV double hi() { return __longlong_as_double(0x7ff0000000000000ll); }
    static GS_DEV double lo() { return __longlong_as_double((long long)0xfff0000000000000ull); }
};

template <class T> struct gs_is_float { static constexpr bool value = false; };
template <> struct gs_is_float<float> { static constexpr bool value = true; };
template <> struct gs_is_float<double> { static constexpr bool value = true; };

/* Functors. `exact`: the op is associative bit for bit (integers; min/max, whose NaN rule keeps
 * the first NaN when operands keep their order), so any bracketing gives the same bits. Float
 * sums are not: the kernels fold them in a fixed order so a run repeats bit for bit. */
template <class T> struct gs_op_sum {
    typedef T type;
    static constexpr bool exact = !gs_is_float<T>::value;
    static GS_DEV T identity() { return T(0); }
    GS_DEV T operator()(T a, T b) const { return gs_add(a, b); }
};
template <class T> struct gs_op_min {
    typedef T type;
    static constexpr bool exact = true;
    static GS_DEV T identity() { return gs_limits<T>::hi(); }
    GS_DEV T operator()(T a, T b) const { return gs_min(a, b); }
};
template <class T> struct gs_op_max {
    typedef T type;
    static constexpr bool exact = true;
    static GS_DEV T identity() { return gs_limits<T>::lo(); }
    GS_DEV T operator()(T a, T b) const { return gs_max(a, b); }
};

/* ---- host-side dispatch -------------------------------------------------------------------- */
/* f(T{}) for the C++ type of t. */
template <class F> static int gs_dispatch_type(gs_type t, gs_status *st, F &&f)
{
    switch (t) {
    case GS_I32: return f(int32_t{});
    case GS_I64: return f(int64_t{});
    case GS_U32: return f(uint32_t{});
    case GS_U64: return f(uint64_t{});
    case GS_F32: return f(float{});
    case GS_F64: return f(double{});
    default: return gs_fail(st, GS_EUSAGE, "unknown element type %d", (int)t);
    }
}
/* f(Tin{}, Tout{}) for the scan type pairs: same type, or i32->i64, u32->u64, f32->f64. */
template <class F> static int gs_dispatch_pair(gs_type tin, gs_type tout, gs_status *st, F &&f)
{
    if (tin == tout) return gs_dispatch_type(tin, st, [&](auto x) { return f(x, x); });
    if (tin == GS_I32 && tout == GS_I64) return f(int32_t{}, int64_t{});
    if (tin == GS_U32 && tout == GS_U64) return f(uint32_t{}, uint64_t{});
    if (tin == GS_F32 && tout == GS_F64) return f(float{}, double{});
    return gs_fail(st, GS_EUSAGE, "scan: --out-type %s is not a widening of %s (i32->i64, u32->u64, f32->f64)",
                   gs_type_name(tout), gs_type_name(tin));
}
/* f(Op{}) for the scan op on accumulator type T. */
template <class T, class F> static int gs_dispatch_op(gs_scan_op op, gs_status *st, F &&f)
{
    switch (op) {
    case GS_SCAN_SUM: return f(gs_op_sum<T>{});
    case GS_SCAN_MIN: return f(gs_op_min<T>{});
    case GS_SCAN_MAX: return f(gs_op_max<T>{});
    default: return gs_fail(st, GS_EUSAGE, "scan: unknown op %d", (int)op);
    }
}

/* ---- predicates (compact) ------------------------------------------------------------------ */
/* Same function as gs_pred_eval (compact_cpu.c): C comparisons in the element type, so a NaN
 * fails every comparison (ne and nonzero hold for it); integers are always finite, never NaN.
 * `keep` is pred != invert. */
template <class T> struct gs_pred {
    gs_pred_kind kind;
    T a, b;
    int invert;
    GS_DEV bool eval(T x) const
    {
        bool r;
        switch (kind) {
        case GS_PRED_NONZERO: r = x != T(0); break;
        case GS_PRED_EQ: r = x == a; break;
        case GS_PRED_NE: r = x != a; break;
        case GS_PRED_GT: r = x > a; break;
        case GS_PRED_GE: r = x >= a; break;
        case GS_PRED_LT: r = x < a; break;
        case GS_PRED_LE: r = x <= a; break;
        case GS_PRED_RANGE: r = (a <= x) & (x <= b); break;
        case GS_PRED_FINITE: r = gs_is_float<T>::value ? (bool)isfinite((double)x) : true; break;
        case GS_PRED_NAN: r = gs_is_float<T>::value ? x != x : false; break;
        default: r = false; break;
        }
        return r != (invert != 0);
    }
    GS_DEV bool operator()(T x) const { return eval(x); }
};
template <class T> static inline gs_pred<T> gs_pred_make(const gs_compact_params *p);
#define GS_PRED_MAKE(T, S)                                                                               \
    template <> inline gs_pred<T> gs_pred_make<T>(const gs_compact_params *p)                            \
    {                                                                                                    \
        gs_pred<T> r;                                                                                    \
        r.kind = p->pred;                                                                                \
        r.a = p->a.S;                                                                                    \
        r.b = p->b.S;                                                                                    \
        r.invert = p->invert;                                                                            \
        return r;                                                                                        \
    }
GS_PRED_MAKE(int32_t, i32)
GS_PRED_MAKE(int64_t, i64)
GS_PRED_MAKE(uint32_t, u32)
GS_PRED_MAKE(uint64_t, u64)
GS_PRED_MAKE(float, f32)
GS_PRED_MAKE(double, f64)
#undef GS_PRED_MAKE

/* ---- 16-byte vectors ----------------------------------------------------------------------- */
template <class T> struct alignas(16) gs_vec16 {
    static constexpr int N = 16 / (int)sizeof(T);
    T v[N];
};
/* p must be 16-byte aligned. */
template <class T> GS_DEV gs_vec16<T> gs_ld_vec(const T *p) { return *reinterpret_cast<const gs_vec16<T> *>(p); }
template <class T> GS_DEV void gs_st_vec(T *p, const gs_vec16<T> &v) { *reinterpret_cast<gs_vec16<T> *>(p) = v; }
/* Asynchronous global -> shared copies (cp.async, LDGSTS): the data go straight to shared memory
 * without passing through registers, so a thread can have all of its loads in flight at once. A
 * thread sees its own copies after gs_cp_async_wait* (other threads: after that and a barrier).
 * 4- and 8-byte forms: naturally aligned addresses. */
GS_DEV unsigned gs_smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
/* dst: a shared-memory address already converted (gs_smem_u32), for loops that step it */
template <int N> GS_DEV void gs_cp_async_small_s(unsigned dst, const void *src)
{
    static_assert(N == 4 || N == 8, "4 or 8 bytes");
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(dst), "l"(src), "n"(N) : "memory");
}
template <int N> GS_DEV void gs_cp_async_small(void *dst, const void *src)
{
    gs_cp_async_small_s<N>(gs_smem_u32(dst), src);
}
/* 16 bytes, both addresses 16-byte aligned; cached in L2 only (.cg) */
GS_DEV void gs_cp_async_16(void *dst, const void *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(gs_smem_u32(dst)), "l"(src) : "memory");
}
GS_DEV void gs_cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
/* wait until at most N of this thread's committed groups are still in flight */
template <int N> GS_DEV void gs_cp_async_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory"); }
GS_DEV void gs_cp_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }

/* Streaming (evict-first) 16-byte store for outputs nobody reads back soon. */
template <class T> GS_DEV void gs_st_vec_cs(T *p, const gs_vec16<T> &v)
{
    __stcs(reinterpret_cast<int4 *>(p), *reinterpret_cast<const int4 *>(&v));
}

/* ---- warp level ---------------------------------------------------------------------------- */
#define GS_FULL_MASK 0xffffffffu

GS_DEV unsigned gs_lane() { return threadIdx.x & 31u; }
GS_DEV unsigned gs_lanemask_lt() { return (1u << gs_lane()) - 1u; }

/* Inclusive scan over lanes of groups of `width` lanes (a power of two <= 32): lane l gets
 * op(v[g0], ..., v[l]) where g0 is the first lane of its group. Kogge-Stone, fixed order. */
template <class Op, class T> GS_DEV T gs_warp_scan_incl(T v, Op op, int width = 32)
{
    const int lane = (int)gs_lane() & (width - 1);
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        if (d >= width) break;
        T u = __shfl_up_sync(GS_FULL_MASK, v, d, width);
        if (lane >= d) v = op(u, v);
    }
    return v;
}
/* Inclusive suffix scan over groups of `width` lanes: lane l gets op(v[l], ..., v[last of group]). */
template <class Op, class T> GS_DEV T gs_warp_suffix_incl(T v, Op op, int width = 32)
{
    const int lane = (int)gs_lane() & (width - 1);
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        if (d >= width) break;
        T u = __shfl_down_sync(GS_FULL_MASK, v, d, width);
        if (lane + d < width) v = op(v, u);
    }
    return v;
}
/* Fold of all 32 lanes in lane order (left operand = lower lane), result in every lane. */
template <class Op, class T> GS_DEV T gs_warp_reduce(T v, Op op)
{
#pragma unroll
    for (int d = 16; d >= 1; d >>= 1) {
        T u = __shfl_down_sync(GS_FULL_MASK, v, d);
        v = op(v, u);
    }
    return __shfl_sync(GS_FULL_MASK, v, 0);
}
/* gs_warp_reduce, with the single-instruction warp reductions (REDUX) for 32-bit integers. */
template <class Op, class T> GS_DEV T gs_warp_allreduce(T v, Op op) { return gs_warp_reduce(v, op); }
template <> GS_DEV int32_t gs_warp_allreduce(int32_t v, gs_op_sum<int32_t>) { return __reduce_add_sync(GS_FULL_MASK, v); }
template <> GS_DEV int32_t gs_warp_allreduce(int32_t v, gs_op_min<int32_t>) { return __reduce_min_sync(GS_FULL_MASK, v); }
template <> GS_DEV int32_t gs_warp_allreduce(int32_t v, gs_op_max<int32_t>) { return __reduce_max_sync(GS_FULL_MASK, v); }
template <> GS_DEV uint32_t gs_warp_allreduce(uint32_t v, gs_op_sum<uint32_t>) { return __reduce_add_sync(GS_FULL_MASK, v); }
template <> GS_DEV uint32_t gs_warp_allreduce(uint32_t v, gs_op_min<uint32_t>) { return __reduce_min_sync(GS_FULL_MASK, v); }
template <> GS_DEV uint32_t gs_warp_allreduce(uint32_t v, gs_op_max<uint32_t>) { return __reduce_max_sync(GS_FULL_MASK, v); }
/* Fold of lanes [start, 32) in lane order, result in every lane. Exact ops: a tree with the
 * lanes below start set to the identity; others: a serial left fold (fixed association). */
template <class Op, class T> GS_DEV T gs_warp_fold_from(T v, int start, Op op)
{
    if (Op::exact) {
        if ((int)gs_lane() < start) v = Op::identity();
        return gs_warp_reduce(v, op);
    }
    T acc = __shfl_sync(GS_FULL_MASK, v, start);
    for (int l = start + 1; l < 32; l++) acc = op(acc, __shfl_sync(GS_FULL_MASK, v, l));
    return acc;
}

/* ---- block level --------------------------------------------------------------------------- */
/* Exclusive scan of one value per warp: `smem` holds NWARPS values written by lane 0 of each
 * warp; afterwards smem[w] = op(v[0..w)) (identity for w = 0) and smem[NWARPS] = the total.
 * Call between two __syncthreads (the caller's). Executed by warp 0. */
template <int NWARPS, class Op, class T> GS_DEV void gs_block_scan_warp_totals(T *smem, Op op)
{
    static_assert(NWARPS <= 32, "at most 32 warps");
    if (threadIdx.x < 32) {
        const unsigned lane = threadIdx.x;
        T v = lane < NWARPS ? smem[lane] : Op::identity();
        T inc = gs_warp_scan_incl(v, op);
        T exc = __shfl_up_sync(GS_FULL_MASK, inc, 1);
        if (lane == 0) exc = Op::identity();
        if (lane < NWARPS) smem[lane] = exc;
        if (lane == NWARPS - 1) smem[NWARPS] = inc;
    }
}

/* ---- memory-model helpers for inter-block publication ------------------------------------------
 * Tile status words are written and read whole with one relaxed, gpu-scope access (8 or 16
 * bytes, aligned), so a reader sees flag and value of the same publication. */
GS_DEV void gs_st_relaxed_u64(uint64_t *p, uint64_t v)
{
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
GS_DEV uint64_t gs_ld_relaxed_u64(const uint64_t *p)
{
    uint64_t v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
GS_DEV void gs_st_relaxed_u128(ulonglong2 *p, ulonglong2 v)
{
    asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(v.x), "l"(v.y) : "memory");
}
GS_DEV ulonglong2 gs_ld_relaxed_u128(const ulonglong2 *p)
{
    ulonglong2 v;
    asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(v.x), "=l"(v.y) : "l"(p) : "memory");
    return v;
}
GS_DEV void gs_st_release_u32(unsigned *p, unsigned v)
{
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
GS_DEV unsigned gs_ld_acquire_u32(const unsigned *p)
{
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

/* Raw bits <-> value for status packing. */
template <class T> GS_DEV uint64_t gs_to_bits(T v)
{
    static_assert(sizeof(T) <= 8, "");
    uint64_t b = 0;
    memcpy(&b, &v, sizeof(T));
    return b;
}
template <class T> GS_DEV T gs_from_bits(uint64_t b)
{
    T v;
    memcpy(&v, &b, sizeof(T));
    return v;
}

/* Tile status for a decoupled look-back over values of type T: flag 0 = not yet, 1 = the tile's
 * aggregate, 2 = its inclusive prefix. 4-byte T: one 8-byte word (value << 32 | flag); 8-byte T:
 * one 16-byte word {flag, value}. Zeroed by the launcher (cudaMemsetAsync) before each launch. */
enum { GS_TILE_X = 0, GS_TILE_A = 1, GS_TILE_P = 2 };
template <class T, int S = sizeof(T)> struct gs_tile_status;
template <class T> struct gs_tile_status<T, 4> {
    typedef uint64_t word;
    static GS_DEV void put(word *w, int flag, T v) { gs_st_relaxed_u64(w, (gs_to_bits(v) << 32) | (uint64_t)flag); }
    static GS_DEV word load(const word *w) { return gs_ld_relaxed_u64(w); }
    static GS_DEV void split(word x, int *flag, T *v)
    {
        *flag = (int)(x & 0xffffffffu);
        *v = gs_from_bits<T>(x >> 32);
    }
    static GS_DEV void get(const word *w, int *flag, T *v) { split(load(w), flag, v); }
};
template <class T> struct gs_tile_status<T, 8> {
    typedef ulonglong2 word;
    static GS_DEV void put(word *w, int flag, T v)
    {
        ulonglong2 x;
        x.x = (unsigned long long)flag;
        x.y = gs_to_bits(v);
        gs_st_relaxed_u128(w, x);
    }
    static GS_DEV word load(const word *w) { return gs_ld_relaxed_u128(w); }
    static GS_DEV void split(word x, int *flag, T *v)
    {
        *flag = (int)x.x;
        *v = gs_from_bits<T>(x.y);
    }
    static GS_DEV void get(const word *w, int *flag, T *v) { split(load(w), flag, v); }
};

/* Decoupled look-back, run by one whole warp for tile `tile` >= 1 after it published its
 * aggregate: returns op(everything before the tile) in every lane. Lane l watches tile
 * end-32+l of a window [end-32, end). Deterministic: exact ops fold windows with trees; other
 * ops (float sums) fold strictly left to right from the nearest inclusive prefix, so the result
 * does not depend on which predecessors had published their prefix yet. */
template <class T, class Op>
GS_DEV T gs_lookback(const typename gs_tile_status<T>::word *status, int64_t tile, Op op)
{
    typedef gs_tile_status<T> S;
    const int lane = (int)gs_lane();
    int64_t end = tile;
    T acc = Op::identity(); /* fold of the windows after the current one (exact ops) */
    for (;;) {
        const int64_t idx = end - 32 + lane;
        int flag = GS_TILE_P;
        T v = Op::identity();
        if (idx >= 0) S::get(&status[idx], &flag, &v);
        /* every lane takes part in the vote (lanes before tile 0 hold a virtual prefix) */
        for (int spins = 0; __any_sync(GS_FULL_MASK, flag == GS_TILE_X); spins++) {
            if (spins > 4) __nanosleep(32);
            if (flag == GS_TILE_X) S::get(&status[idx], &flag, &v);
        }
        const unsigned pmask = __ballot_sync(GS_FULL_MASK, flag == GS_TILE_P);
        if (Op::exact) {
            const int start = pmask ? 31 - __clz((int)pmask) : 0;
            T win = gs_warp_fold_from(v, start, op);
            acc = op(win, acc);
            if (pmask) return acc;
        } else {
            if (pmask) {
                const int start = 31 - __clz((int)pmask);
                if (end == tile) return gs_warp_fold_from(v, start, op);
                /* Found beyond the first window: fold forward, window by window, from here.
                 * Re-read each window: a later inclusive prefix restarts the fold (it is the
                 * left fold up to its tile, so the bits are the same either way). */
                T f = gs_warp_fold_from(v, start, op);
                for (int64_t e = end + 32; e <= tile; e += 32) {
                    const int64_t j = e - 32 + lane;
                    int fl;
                    T u;
                    S::get(&status[j], &fl, &u); /* j >= 0: windows past the first are real */
                    const unsigned pm = __ballot_sync(GS_FULL_MASK, fl == GS_TILE_P);
                    if (pm) {
                        const int s = 31 - __clz((int)pm);
                        f = gs_warp_fold_from(u, s, op);
                    } else {
                        for (int l = 0; l < 32; l++) f = op(f, __shfl_sync(GS_FULL_MASK, u, l));
                    }
                }
                return f;
            }
        }
        end -= 32;
    }
}

/* ---- persistent grids ---------------------------------------------------------------------- */
#define GS_MAX_DEVICES 16
/* *resident = blocks of `kernel` that fit on the whole device at once (SMs x blocks per SM). Also
 * raises the kernel's dynamic shared-memory limit to smem. cache: NULL, or a static array of
 * GS_MAX_DEVICES ints owned by the caller's kernel instantiation (blocks per SM, 0 = unknown) when
 * its shared memory never changes. */
template <class K>
static int gs_persistent_blocks(K kernel, int threads, size_t smem, int *cache, int *resident, gs_status *st)
{
    int dev = 0, sms = 0;
    GS_CUDA_CHECK(st, cudaGetDevice(&dev));
    GS_CUDA_CHECK(st, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const bool cached = cache && dev >= 0 && dev < GS_MAX_DEVICES;
    int per = cached ? cache[dev] : 0;
    if (per <= 0) {
        GS_CUDA_CHECK(st, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        GS_CUDA_CHECK(st, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kernel, threads, smem));
        if (per < 1)
            return gs_fail(st, GS_EDATA, "cuda: a block of %d threads with %zu bytes of shared memory does not fit",
                           threads, smem);
        if (cached) cache[dev] = per;
    }
    *resident = per * (sms > 0 ? sms : 1);
    return GS_OK;
}

/* ---- block sizes (the params' block; gpustream bench --block) ------------------------------------
 * block == 0 is the tuned launch: launchers take that path first and unchanged, so a default keeps
 * its exact kernel instantiation and launch. The registry refuses sizes a variant does not accept
 * (gs_variant_check_*); launchers check again, since they are entry points of their own. */
/* Threads for runtime-sized (grid-stride) kernels: block, or dflt when it is 0. */
static inline int gs_grid_block(const char *what, int block, int dflt, int *threads, gs_status *st)
{
    *threads = block ? block : dflt;
    if (block && !gs_block_valid(block))
        return gs_fail(st, GS_EUSAGE, "%s: %d threads per block (a power of two from 32 to 1024)", what, block);
    return GS_OK;
}
/* f(std::integral_constant<int, THREADS>{}) for a non-zero block in MASK (GS_BLOCKS_TPL or a part
 * of it): the thread counts a kernel with a compile-time thread count is instantiated for (each
 * keeps its default's items per thread, so the tile is THREADS x items). */
template <unsigned MASK, int THREADS = 64, class F>
static int gs_dispatch_block(const char *what, int block, gs_status *st, F &&f)
{
    static_assert((MASK & ~GS_BLOCKS_TPL) == 0, "templated kernels: 64, 128, 256 or 512 threads");
    if constexpr (THREADS > 512) {
        char sizes[64];
        return gs_fail(st, GS_EUSAGE, "%s: no kernel for %d threads per block (built for %s)", what, block,
                       gs_blocks_str(MASK, sizes, sizeof sizes));
    } else {
        if constexpr ((MASK & GS_BLOCK_BIT(THREADS)) != 0)
            if (block == THREADS) return f(std::integral_constant<int, THREADS>{});
        return gs_dispatch_block<MASK, 2 * THREADS>(what, block, st, f);
    }
}

/* ---- launch configurations (CUB style: data, with the measurement that chose them) ----------
 * Measured with tests/gpu/test_kernels_gpu --bench --tune: 2^28 elements in device memory, median
 * of 10 reps, L2 flushed; NVIDIA H200 (132 SMs, 1980 MHz), device copy 4240 GB/s (read + write).
 * More items per thread wins for the look-back kernels: loads for the whole tile are in flight
 * before the block waits on its predecessor; 8 items per thread left them ~20% slower. */
/* __launch_bounds__ minimum blocks per SM for a kernel holding `regs` registers a thread: lets
 * ptxas use them (without a minimum it capped some tile shapes below need and spilled). */
#define GS_MIN_BLOCKS(threads, regs) ((65536 / ((threads) * (regs))) > 0 ? (65536 / ((threads) * (regs))) : 1)

struct gs_tile_cfg {
    int threads; /* per block */
    int items;   /* per thread (a multiple of the 16-byte vector width) */
};
/* scan lookback: threads x (sitems staged in shared memory + ritems in registers) per tile, by
 * input element size; minb4 / minb8 = the __launch_bounds__ minimum of resident blocks per SM
 * when the output type has 4 / 8 bytes (it caps registers: 65536 / (threads x minb)).
 * i32 sum, 2^28, same runs as plain CUB InclusiveSum (tests/bench/scan_lookback_lab.cu, kernels/TUNING.md v3):
 *   v0 registers only, ticket, 128x48: 0.745 ms (cub 0.700); shared memory only, 128x48, 9/SM:
 *   0.667; + aggregate first: 0.654; + tile = blockIdx.x: 0.628; + 16 items in registers: 0.610;
 *   registers capped (7-9 blocks/SM): 128x(44+20) min 9 0.594, 128x(48+32) min 7 0.593,
 *   128x(44+28) min 8 0.591, 128x(52+28) min 7 0.588 ms (456 Gelem/s, 86% of copy, 1.16x cub 0.685);
 *   128x(32+32) min 10 0.695, 64x(96+32) min 8 0.626, 192x(36+28) min 5 0.599. */
struct gs_scan_cfg {
    int threads, sitems, ritems, minb4, minb8;
};
constexpr gs_scan_cfg gs_scan_lookback_cfg4 = {128, 52, 28, 7, 4};
constexpr gs_scan_cfg gs_scan_lookback_cfg8 = {128, 26, 14, 7, 5};
/* scan lookback, exact operators (integer sums, min, max) on 4-byte, 16-byte aligned data: the
 * incremental look-back over persistent blocks (scan.cu gs_scan_incr_k; kernels/TUNING.md v5). One
 * block per SM of `threads` x `bytes` / (threads x element size) items; `stages` tiles in a
 * cp.async ring; the tile `ahead` rounds on is reduced and published before a tile looks back.
 * In gpustream (`bench --op scan -t i32`, H200, session 4): 0.574 ms, 88.6% of copy, 1.22x plain
 * CUB (0.700 ms, shared/anchors/baseline.cu in the same session). Lab figures:
 * i32 sum, 2^28, tests/bench/scan_lookback_lab.cu WHICH=incr (docs/bench/scan_incr_lab_h200.txt),
 * same run: plain CUB 0.689 ms, the kernel above (v3) 0.590, copy 0.505:
 *   128 threads x 128 items (64 KB tiles), 3 stages, ahead 1, 1 block/SM: 0.559 ms (90.3% of copy,
 *   1.23x CUB); 256x64: 0.579; 128x64 (2 blocks/SM): 0.573; 64x128 (2/SM): 0.620;
 *   128x64, 6 stages, ahead 2 (1/SM): 0.621; 128x32, 6 stages, ahead 2 (2/SM): 0.586;
 *   ahead 0: 1.17 (each tile waits on its own round). Tiles from an atomic ticket, claimed a
 *   ring ahead: 2.2-7.3 ms (the blocks convoy behind late claims). */
struct gs_scan_incr_cfg {
    int threads, bytes, stages, ahead;
};
constexpr gs_scan_incr_cfg gs_scan_lookback_incr_cfg = {128, 64 * 1024, 3, 1};
/* compact lookback, by element size; `regs` caps registers (occupancy beats registers here: the
 * same 128x32 kernel ran 0.553 ms at 64 registers and 0.664 ms at 95).
 *   i32 nonzero 50%, count published first + tile = blockIdx.x (kernels/TUNING.md v3; our cub
 *   variant 0.627 ms, plain CUB DeviceSelect::If ~0.59): 128x32 at 64 registers 0.545 ms, at 56
 *   0.526 ms (511 Gelem/s, 73% of copy), at 48 0.537; 128x24 at 48 0.569; 96x32 at 56 0.540.
 *   1%: 0.401 ms at 56 (0.415 at 64); 99%: 0.647 (0.664). Before v3 (ticket, ranks before the
 *   count): 128x32 at 64 0.553 ms; 256x16 0.607, 256x20 0.587. */
struct gs_compact_cfg {
    int threads, items, regs; /* regs: the register budget a thread is capped at (__launch_bounds__) */
};
constexpr gs_compact_cfg gs_compact_lookback_cfg4 = {128, 32, 56};
constexpr gs_compact_cfg gs_compact_lookback_cfg8 = {128, 16, 64};
static_assert(gs_scan_lookback_cfg4.threads == GS_SCAN_LOOKBACK_THREADS &&
                  gs_scan_lookback_cfg8.threads == GS_SCAN_LOOKBACK_THREADS &&
                  gs_scan_lookback_incr_cfg.threads == GS_SCAN_LOOKBACK_THREADS,
              "the registry's block_default (kernels_gpu.h) names these threads");
static_assert(gs_compact_lookback_cfg4.threads == GS_COMPACT_LOOKBACK_THREADS &&
                  gs_compact_lookback_cfg8.threads == GS_COMPACT_LOOKBACK_THREADS,
              "the registry's block_default (kernels_gpu.h) names these threads");
/* minmax vhgw: threads x items output rows per block (items: a power of two); `lo` for windows with
 * W-1 <= 16 (minmax.cu GS_MM_LO_W1), the other for the rest. Spans loaded with cp.async (all in
 * flight), floats as integer keys (kernels/TUNING.md, v1 and v2).
 *   i32, W = 2 / 64 / 500 / 4096 (run 2) / 10^6 (run 1: the large-W path as it is now):
 *   128x16 0.802 / 0.868 / 0.930 / 1.248 / 1.983;  128x32 0.929 / 0.808 / 0.907 / 1.111 / 1.299
 *   256x16 0.875 / 0.953 / 0.986 / 1.279 / 1.282;  64x32 0.885 / 0.801 / 0.874 / 1.312 / -
 *   chosen (session 1): lo 128x16, else 128x32: 0.802 / 0.808 / 0.907 (296 Gelem/s) / 1.111 / 1.299
 *   session 2 (TUNING.md v3): mid 64x32 for 16 < W-1 <= 1024 (GS_MM_MID_W1 in minmax.cu), large W
 *   without the ticket: 0.798 / 0.801 / 0.873 (307.5 Gelem/s, 87% of copy) / 1.110 / 1.287
 *   session 3 (span copies without clamps, TUNING.md v4): 0.811 / 0.804 / 0.865 (310.3 Gelem/s) /
 *   1.038 / 1.293
 *   (before v1, 256x16 with synchronous loads: 1.055 / 1.094 / 1.066 / 1.260 / 1.441)
 *   f32 W=500 (128x32): 1.240 ms;  f64 W=500: 128x16 2.845, 128x8 2.915, 256x8 3.059, 256x16 3.291
 *   Persistent blocks with two buffers (GS_MM_PERSIST=1) measured slower at every W (128x32:
 *   1.035 / 0.962 / 1.106 / 1.437 ms): left off. */
#ifndef GS_MM_PERSIST
#define GS_MM_PERSIST 0
#endif
constexpr gs_tile_cfg gs_minmax_vhgw_cfg4 = {128, 32};
/* cfg4 blocks whose groups span threads (G > items: W-1 > 32 rows outside the mid shape, and every
 * large W) are capped at 80 registers so that 6 blocks fit per SM (8-32 bytes spilled; 5 blocks at
 * 96 before), with the largest shared-memory carveout (6 x ~35 KB of spans). ncu: DRAM at 45-52%,
 * too little in flight. Session 3, i32 (TUNING.md v4): W = 4096 1.038 -> 0.980 ms, 5000 -> 1.045,
 * 10^6 1.293 -> 1.105 (243 Gelem/s). */
constexpr int gs_minmax_vhgw_wide_minb4 = 6;
constexpr gs_tile_cfg gs_minmax_vhgw_lo_cfg4 = {128, 16};
constexpr gs_tile_cfg gs_minmax_vhgw_mid_cfg4 = {64, 32};
constexpr gs_tile_cfg gs_minmax_vhgw_cfg8 = {128, 16};
constexpr gs_tile_cfg gs_minmax_vhgw_lo_cfg8 = {128, 16};
constexpr gs_tile_cfg gs_minmax_vhgw_mid_cfg8 = {128, 16};
static_assert(gs_minmax_vhgw_cfg4.threads == GS_MINMAX_VHGW_THREADS &&
                  gs_minmax_vhgw_lo_cfg4.threads == GS_MINMAX_VHGW_THREADS &&
                  gs_minmax_vhgw_cfg8.threads == GS_MINMAX_VHGW_THREADS &&
                  gs_minmax_vhgw_lo_cfg8.threads == GS_MINMAX_VHGW_THREADS &&
                  gs_minmax_vhgw_mid_cfg8.threads == GS_MINMAX_VHGW_THREADS &&
                  gs_minmax_vhgw_mid_cfg4.threads == GS_MINMAX_VHGW_MID_THREADS,
              "the registry's block_default (kernels_gpu.h) names these threads");

#endif
