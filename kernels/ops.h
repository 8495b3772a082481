/* ops.h - the element operations every backend shares, so CPU and GPU variants compute
 * the same function: sum (integers wrap), and min/max with two rules:
 *   - NaN propagates: min/max of anything with NaN is NaN (the first NaN's bits are kept);
 *   - -0.0 orders below +0.0, so min(-0.0, +0.0) = -0.0 and max = +0.0 whatever the order.
 * Usable from C and CUDA: GS_HD marks host+device functions. */
#ifndef GS_OPS_H
#define GS_OPS_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define GS_HD __host__ __device__ __forceinline__
#else
#define GS_HD static inline
#endif

/* Integers: unsigned arithmetic so signed overflow wraps without UB. */
GS_HD int32_t gs_add_i32(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
GS_HD int64_t gs_add_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
GS_HD uint32_t gs_add_u32(uint32_t a, uint32_t b) { return a + b; }
GS_HD uint64_t gs_add_u64(uint64_t a, uint64_t b) { return a + b; }
GS_HD float gs_add_f32(float a, float b) { return a + b; }
GS_HD double gs_add_f64(double a, double b) { return a + b; }

#define GS_INT_MINMAX(T, S)                                           \
    GS_HD T gs_min_##S(T a, T b) { return b < a ? b : a; }            \
    GS_HD T gs_max_##S(T a, T b) { return b > a ? b : a; }
GS_INT_MINMAX(int32_t, i32)
GS_INT_MINMAX(int64_t, i64)
GS_INT_MINMAX(uint32_t, u32)
GS_INT_MINMAX(uint64_t, u64)
#undef GS_INT_MINMAX

GS_HD int gs_signbit_f32(float x) { union { float f; uint32_t u; } c; c.f = x; return (int)(c.u >> 31); }
GS_HD int gs_signbit_f64(double x) { union { double f; uint64_t u; } c; c.f = x; return (int)(c.u >> 63); }

/* Floats. x != x is NaN. A NaN in `a` wins over one in `b` so a left fold keeps the first. */
GS_HD float gs_min_f32(float a, float b)
{
    if (a != a) return a;
    if (b != b) return b;
    if (b < a) return b;
    if (a < b) return a;
    return (a == 0.0f && gs_signbit_f32(b)) ? b : a; /* equal: prefer -0.0 */
}
GS_HD float gs_max_f32(float a, float b)
{
    if (a != a) return a;
    if (b != b) return b;
    if (b > a) return b;
    if (a > b) return a;
    return (a == 0.0f && !gs_signbit_f32(b)) ? b : a; /* equal: prefer +0.0 */
}
GS_HD double gs_min_f64(double a, double b)
{
    if (a != a) return a;
    if (b != b) return b;
    if (b < a) return b;
    if (a < b) return a;
    return (a == 0.0 && gs_signbit_f64(b)) ? b : a;
}
GS_HD double gs_max_f64(double a, double b)
{
    if (a != a) return a;
    if (b != b) return b;
    if (b > a) return b;
    if (a > b) return a;
    return (a == 0.0 && !gs_signbit_f64(b)) ? b : a;
}

#endif
