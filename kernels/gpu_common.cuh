/* gpu_common.cuh - what every GPU kernel file of kernels/ shares (host side and element level):
 *
 *   GS_CUDA_CHECK / GS_LAUNCH_CHECK   a cudaError_t becomes gs_fail(st, GS_EDATA, "cuda: ...")
 *   gs_grid_for / gs_check_scratch    host: grid of a grid-stride kernel; the scratch check
 *   gs_op_sum / gs_op_min / gs_op_max element functors over ops.h (NaN and -0.0 as on the CPU)
 *   gs_dispatch_*                     host: gs_type (and op) -> a C++ type (and functor) for templates
 *   gs_pred                           compact predicates (pred.h, shared with the CPU kernels)
 *   gs_grid_block / gs_dispatch_block host: the params' block (threads per block) -> a launch
 *
 * Device helpers live beside it: gpu_warp.cuh (warp and block scans), gpu_mem.cuh (16-byte vectors,
 * cp.async, inter-block publication), gpu_lookback.cuh (decoupled look-back); launch shapes in
 * tuning.h. No printing, no exiting: launchers return a gs_status code. */
#ifndef GS_GPU_COMMON_CUH
#define GS_GPU_COMMON_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include <type_traits>

#include "kernels.h"
#include "kernels_gpu.h"
#include "ops.h"
#include "pred.h"
#include "tuning.h"

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
static inline int gs_log2_floor(uint64_t w)
{
    int k = 0;
    while ((w >> (k + 1)) != 0) k++;
    return k;
}
/* Blocks for a grid-stride kernel over n items: at least one, at most 2^20 (each thread loops). */
static inline unsigned gs_grid_for(uint64_t n, int threads)
{
    uint64_t b = gs_cdiv(n, (uint64_t)threads);
    return (unsigned)(b < 1 ? 1 : b > 65535ull * 16 ? 65535ull * 16 : b);
}
/* The scratch a launcher was given against what it needs: "scan lookback: scratch of ..." */
static inline int gs_check_scratch(const char *what, size_t have, size_t need, gs_status *st)
{
    if (have < need) return gs_fail(st, GS_EDATA, "%s: scratch of %zu bytes, %zu needed", what, have, need);
    return GS_OK;
}

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
    static GS_DEV T identity() { return T(-0.0); } /* -0.0 for floats, as on the CPU; 0 for integers */
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

/* The one place each operation turns its params into a templated call. */
/* scan: f(Tin{}, Tout{}, Op{}) */
template <class F> static int gs_dispatch_scan(const gs_scan_params *p, gs_status *st, F &&f)
{
    return gs_dispatch_pair(p->type, p->out_type, st, [&](auto tin, auto tout) {
        typedef decltype(tout) Tout;
        return gs_dispatch_op<Tout>(p->op, st, [&](auto op) { return f(tin, tout, op); });
    });
}
/* compact: f(T{}) with T the element type */
template <class F> static int gs_dispatch_compact(const gs_compact_params *p, gs_status *st, F &&f)
{
    if ((unsigned)p->pred > GS_PRED_NAN) return gs_fail(st, GS_EUSAGE, "compact: unknown predicate %d", (int)p->pred);
    return gs_dispatch_type(p->type, st, f);
}
/* minmax: f(T{}) with T the element type */
template <class F> static int gs_dispatch_minmax(const gs_minmax_params *p, gs_status *st, F &&f)
{
    if (p->window < 1) return gs_fail(st, GS_EUSAGE, "minmax: window must be at least 1");
    if ((unsigned)p->only > GS_MM_MAX) return gs_fail(st, GS_EUSAGE, "minmax: unknown --only value %d", (int)p->only);
    return gs_dispatch_type(p->type, st, f);
}

/* compact: an empty input keeps nothing; the count is still written, in stream order */
static inline int gs_compact_empty(uint64_t *d_count, cudaStream_t s, gs_status *st)
{
    GS_CUDA_CHECK(st, cudaMemsetAsync(d_count, 0, sizeof(uint64_t), s));
    return GS_OK;
}

/* minmax: write row r's (mn, mx) as the `only` mode asks */
template <class T> GS_DEV void gs_mm_put(T *out, uint64_t r, T mn, T mx, int only)
{
    if (only == GS_MM_BOTH) {
        out[2 * r] = mn;
        out[2 * r + 1] = mx;
    } else {
        out[r] = only == GS_MM_MIN ? mn : mx;
    }
}

/* ---- predicates (compact): pred.h for a C++ element type; `keep` is pred != invert ------------ */
GS_DEV bool gs_pred_test(int k, int32_t x, int32_t a, int32_t b) { return gs_pred_test_i32(k, x, a, b); }
GS_DEV bool gs_pred_test(int k, int64_t x, int64_t a, int64_t b) { return gs_pred_test_i64(k, x, a, b); }
GS_DEV bool gs_pred_test(int k, uint32_t x, uint32_t a, uint32_t b) { return gs_pred_test_u32(k, x, a, b); }
GS_DEV bool gs_pred_test(int k, uint64_t x, uint64_t a, uint64_t b) { return gs_pred_test_u64(k, x, a, b); }
GS_DEV bool gs_pred_test(int k, float x, float a, float b) { return gs_pred_test_f32(k, x, a, b); }
GS_DEV bool gs_pred_test(int k, double x, double a, double b) { return gs_pred_test_f64(k, x, a, b); }
template <class T> struct gs_pred {
    gs_pred_kind kind;
    T a, b;
    int invert;
    GS_DEV bool eval(T x) const { return gs_pred_test((int)kind, x, a, b) != (invert != 0); }
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

/* ---- block sizes (the params' block; gpustream bench --block) ------------------------------------
 * block == 0 is the tuned launch: launchers take that path first and unchanged, so a default keeps
 * its exact kernel instantiation and launch. The registry refuses sizes a variant does not accept
 * (gs_variant_check_*); launchers check again, since they are entry points of their own. */
/* Threads for runtime-sized (grid-stride) kernels: block, or dflt when it is 0. */
static inline int gs_grid_block(const char *what, int block, int dflt, int *threads, gs_status *st)
{
    *threads = block ? block : dflt;
    if (block && !GS_HAVE_TUNING)
        return gs_fail(st, GS_EUSAGE, "%s: %d threads per block: this build has the tuned launches only (make TUNING=1)",
                       what, block);
    if (block && !gs_block_valid(block))
        return gs_fail(st, GS_EUSAGE, "%s: %d threads per block (a power of two from 32 to 1024)", what, block);
    return GS_OK;
}
/* f(std::integral_constant<int, THREADS>{}) for a non-zero block in MASK (GS_BUILT_BLOCKS of
 * GS_BLOCKS_TPL or a part of it: none in a default build): the thread counts a kernel with a
 * compile-time thread count is instantiated for (each keeps its default's items per thread, so
 * the tile is THREADS x items). */
template <unsigned MASK, int THREADS = 64, class F>
static int gs_dispatch_block(const char *what, int block, gs_status *st, F &&f)
{
    static_assert((MASK & ~GS_BLOCKS_TPL) == 0, "templated kernels: 64, 128, 256 or 512 threads");
    if constexpr (MASK == 0) {
        return gs_fail(st, GS_EUSAGE, "%s: %d threads per block: this build has the tuned launches only (make TUNING=1)",
                       what, block);
    } else if constexpr (THREADS > 512) {
        char sizes[64];
        return gs_fail(st, GS_EUSAGE, "%s: no kernel for %d threads per block (built for %s)", what, block,
                       gs_blocks_str(MASK, sizes, sizeof sizes));
    } else {
        if constexpr ((MASK & GS_BLOCK_BIT(THREADS)) != 0)
            if (block == THREADS) return f(std::integral_constant<int, THREADS>{});
        return gs_dispatch_block<MASK, 2 * THREADS>(what, block, st, f);
    }
}

#endif
