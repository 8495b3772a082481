/* numtext.h - numbers as text on the host and on the device (C11 and CUDA): the bytes io/numfmt.c's
 * gs_num_format prints, without its libraries ({fmt}'s Dragonbox), so that a GPU can write CSV and
 * text itself. tests/unit/test_numtext.c holds the two byte for byte equal.
 *
 * Integers: decimal digits, a '-' before negative ones.
 *
 * Floats: the shortest decimal that reads back to the same bits (double, or float for the f32
 * form), of those the nearest (ties to an even last digit), in gs_num_format's layout. The method
 * is exact rational arithmetic in unsigned 128 bits. x = m * 2^e (m an integer of at most 53 bits,
 * 24 for float; subnormals too). The values that read back as x form the interval
 *   lo = (4m - 2) * 2^(e-2),  hi = (4m + 2) * 2^(e-2),  x = 4m * 2^(e-2)
 * except at a power of two above the smallest exponent (m the smallest normal significand), whose
 * lower neighbour is nearer: lo = (4m - 1) * 2^(e-2). The bounds belong to it where m is even
 * (reading rounds half to even). At decimal scale s (digits after the point; negative for tens,
 * hundreds...) the integers d with d * 10^-s in the interval are L..H, L = ceil(lo * 10^s) (one more
 * where that is an excluded bound), H = floor(hi * 10^s) (one less likewise). A solution at s gives
 * one at s + 1 (10d), so the least s with L <= H, found by binary search, gives the fewest digits;
 * there d is the integer nearest x * 10^s (half to even), or where that lies outside L..H the bound
 * next to it. Its last digit is not 0 (else s - 1 had a solution).
 *
 * Each step is a quotient of integers: y * 10^s = Y * 2^(e-2) * 10^s = Y * mul / den with mul =
 * 5^max(s,0) * 2^max(e-2+s,0) and den = 5^max(-s,0) * 2^max(-(e-2+s),0), Y < 2^55 (2^26 for float).
 * A value where Y * mul would need more than 128 bits, or den more than 126, at either end of the
 * search (mul grows with s, den shrinks) gets -1: the caller formats it on the host. Which values
 * those are depends on the binary exponent alone; test_numtext.c checks these ranges exactly:
 *   double  2^-49 <= |x| < 2^158  (about 1.8e-15 .. 3.6e47: both ends are Y * mul at the 17-digit
 *           scale, 2^55 * 5^31 at the small end, 2^55 * 2^72 at the large one)
 *   float   2^-116 <= |x| <= FLT_MAX  (about 1.2e-35 and up; no subnormal float)
 * nan, inf, -inf, 0 and -0 are always done.
 *
 * No library calls and no tables in memory (device code reads none): powers of five by squaring. */
#ifndef GS_NUMTEXT_H
#define GS_NUMTEXT_H

#include <stdint.h>

#include "ops.h" /* GS_HD: host and device functions under nvcc, static inline in C */

/* The most bytes one value takes: "-1.2345678901234567e-308" (24); integers at most 20
 * ("-9223372036854775808", "18446744073709551615"). No terminator is written. */
#define GS_NUMTEXT_MAX 24

typedef unsigned __int128 gs_nt_u128;

/* ---- integers -------------------------------------------------------------------------------- */

GS_HD int gs_nt_bitlen64(uint64_t x)
{
    if (!x) return 0;
#ifdef __CUDA_ARCH__
    return 64 - __clzll((long long)x);
#else
    return 64 - __builtin_clzll(x);
#endif
}

GS_HD int gs_nt_bitlen128(gs_nt_u128 x)
{
    const uint64_t hi = (uint64_t)(x >> 64);
    return hi ? 64 + gs_nt_bitlen64(hi) : gs_nt_bitlen64((uint64_t)x);
}

/* Decimal digits of x at o; returns their count (1 for 0). */
GS_HD int gs_numtext_u64(char *o, uint64_t x)
{
    int n = 1;
    uint64_t p = 10;
    while (n < 20 && x >= p) { /* 10^19 is the last power of ten below 2^64 */
        n++;
        p *= 10;
    }
    char *q = o + n;
    while (x > 0xffffffffu) { /* 64-bit divisions only while 32 bits do not hold it */
        *--q = (char)('0' + x % 10);
        x /= 10;
    }
    uint32_t y = (uint32_t)x;
    do {
        *--q = (char)('0' + y % 10);
        y /= 10;
    } while (q > o);
    return n;
}

GS_HD int gs_numtext_i64(char *o, int64_t x)
{
    if (x < 0) {
        o[0] = '-';
        return 1 + gs_numtext_u64(o + 1, 0u - (uint64_t)x);
    }
    return gs_numtext_u64(o, (uint64_t)x);
}

/* ---- floats: the exact shortest digits ------------------------------------------------------- */

/* A value's rounding interval in units of 2^a: lo, hi and x itself as integers. */
typedef struct {
    uint64_t ylo, yhi, yx;
    int a;
    int in; /* the bounds belong to the interval (m even) */
} gs_nt_iv;

/* 5^j (j <= 54: fits in 128 bits), by squaring. */
GS_HD gs_nt_u128 gs_nt_pow5(int j)
{
    gs_nt_u128 r = 1, b = 5;
    while (j) {
        if (j & 1) r *= b;
        j >>= 1;
        if (j) b *= b;
    }
    return r;
}

/* y * 10^s = Y * mul / (dv << sh): the factors of scale s, dv 1 or a power of five. 0, or -1 where
 * they would not fit (the header's comment: Y * mul in 128 bits, the divisor in 126). */
GS_HD int gs_nt_factors(const gs_nt_iv *v, int s, gs_nt_u128 *mul, gs_nt_u128 *dv, int *sh)
{
    const int j = s < 0 ? -s : s;
    if (j > 54) return -1;
    const gs_nt_u128 p5 = gs_nt_pow5(j);
    const int p2 = v->a + s;
    *mul = s >= 0 ? p5 : 1;
    *dv = s >= 0 ? 1 : p5;
    *sh = p2 < 0 ? -p2 : 0;
    const int mb = gs_nt_bitlen128(*mul) + (p2 > 0 ? p2 : 0);
    if (gs_nt_bitlen64(v->yhi) + mb > 128 || gs_nt_bitlen128(*dv) + *sh > 126) return -1;
    if (p2 > 0) *mul <<= p2;
    return 0;
}

/* floor(n / (dv << sh)), the remainder at *r. */
GS_HD gs_nt_u128 gs_nt_div(gs_nt_u128 n, gs_nt_u128 dv, int sh, gs_nt_u128 *r)
{
    if (dv == 1) {
        *r = n & ((((gs_nt_u128)1) << sh) - 1);
        return n >> sh;
    }
    const gs_nt_u128 den = dv << sh;
    const gs_nt_u128 q = n / den;
    *r = n - q * den;
    return q;
}

/* L and H of scale s (above): the digits d with d * 10^-s in the interval are L..H, none where
 * L > H. 0, or -1 where the scale is out of range. */
GS_HD int gs_nt_bounds(const gs_nt_iv *v, int s, uint64_t *L, uint64_t *H)
{
    gs_nt_u128 mul, dv, r;
    int sh;
    if (gs_nt_factors(v, s, &mul, &dv, &sh)) return -1;
    const gs_nt_u128 ql = gs_nt_div(v->ylo * mul, dv, sh, &r);
    *L = (uint64_t)ql + (r != 0 || !v->in); /* lo > 0, so L >= 1 */
    const gs_nt_u128 qh = gs_nt_div(v->yhi * mul, dv, sh, &r);
    *H = (uint64_t)qh - (r == 0 && !v->in); /* r == 0 means qh >= 1 (hi > 0) */
    return 0;
}

/* The shortest digits of m * 2^e (m > 0; nb bits of significand, 53 or 24): *c and the decimal
 * exponent of its last digit at *e10. 0, or -1 where out of range. */
GS_HD int gs_nt_shortest(uint64_t m, int e, int min_e, int nb, uint64_t *c, int *e10)
{
    gs_nt_iv v;
    const int asym = m == ((uint64_t)1 << (nb - 1)) && e > min_e;
    v.ylo = 4 * m - (asym ? 1 : 2);
    v.yhi = 4 * m + 2;
    v.yx = 4 * m;
    v.a = e - 2;
    v.in = (m & 1) == 0;
    /* k = floor(log10(2^E)) for x in [2^E, 2^(E+1)): 10^k <= x < 2 * 10^(k+1), so the first digit
     * is at 10^k or 10^(k+1). 78913 / 2^18 is log10(2) closely enough for |E| < 1650. */
    const int E = e + gs_nt_bitlen64(m) - 1;
    const int t = E * 78913;
    const int k = t >= 0 ? t >> 18 : -((-t + (1 << 18) - 1) >> 18);
    /* No solution at scale -(k+2) (1 * 10^(k+2) > hi); one at 17 significant digits (9 for
     * float) of 10^k, since that spacing is below the interval's width. */
    int slo = -(k + 1), shi = (nb == 53 ? 16 : 8) - k;
    /* mul grows with s and the divisor shrinks: where both ends fit, every scale between does, so
     * whether a value is done depends on its binary exponent alone */
    gs_nt_u128 mul, dv, r;
    int sh;
    if (gs_nt_factors(&v, slo, &mul, &dv, &sh) || gs_nt_factors(&v, shi, &mul, &dv, &sh)) return -1;
    uint64_t L = 1, H = 0;
    while (slo < shi) {
        const int mid = slo + (shi - slo) / 2;
        (void)gs_nt_bounds(&v, mid, &L, &H);
        if (L <= H) shi = mid;
        else slo = mid + 1;
    }
    (void)gs_nt_bounds(&v, shi, &L, &H);
    (void)gs_nt_factors(&v, shi, &mul, &dv, &sh);
    const gs_nt_u128 nx = v.yx * mul;
    uint64_t d = (uint64_t)gs_nt_div(nx, dv, sh, &r);
    const gs_nt_u128 den = dv << sh, half = den - r; /* r against den - r: no overflow */
    if (r > half || (r == half && (d & 1))) d++;
    if (d < L) d = L;
    if (d > H) d = H;
    int ex = -shi;
    while (d % 10 == 0) { /* a guard: by the argument above d has no trailing zero */
        d /= 10;
        ex++;
    }
    *c = d;
    *e10 = ex;
    return 0;
}

/* ---- floats: the layout (io/numfmt.c's fmt_float, branch for branch) ------------------------ */

GS_HD char *gs_nt_put(char *o, const char *s, int n)
{
    for (int i = 0; i < n; i++) *o++ = s[i];
    return o;
}

/* The digits c (no trailing zeros) with exponent e10last of the last digit, after the sign. */
GS_HD int gs_nt_layout(char *o0, char *o, uint64_t c, int e10last)
{
    char dg[20];
    const int nd = gs_numtext_u64(dg, c);
    const int e10 = e10last + nd - 1; /* the exponent of the first digit */
    if (e10 >= 0 && e10 < 16 && nd > e10 + 1) { /* ddd.ddd */
        o = gs_nt_put(o, dg, e10 + 1);
        *o++ = '.';
        o = gs_nt_put(o, dg + e10 + 1, nd - (e10 + 1));
    } else if (e10 >= 0 && e10 < 16) { /* ddd000 */
        o = gs_nt_put(o, dg, nd);
        for (int i = nd; i < e10 + 1; i++) *o++ = '0';
    } else if (e10 < 0 && e10 >= -4) { /* 0.000ddd */
        *o++ = '0';
        *o++ = '.';
        for (int i = 0; i < -e10 - 1; i++) *o++ = '0';
        o = gs_nt_put(o, dg, nd);
    } else { /* d.ddde+XX */
        *o++ = dg[0];
        if (nd > 1) {
            *o++ = '.';
            o = gs_nt_put(o, dg + 1, nd - 1);
        }
        *o++ = 'e';
        *o++ = e10 < 0 ? '-' : '+';
        const int ae = e10 < 0 ? -e10 : e10;
        if (ae >= 100) *o++ = (char)('0' + ae / 100); /* outside the exact range; as fmt_float */
        *o++ = (char)('0' + ae / 10 % 10);
        *o++ = (char)('0' + ae % 10);
    }
    return (int)(o - o0);
}

/* A float of the IEEE layout: sign, biased exponent field ef (of width giving all-ones = emax),
 * fraction f of nb - 1 bits. */
GS_HD int gs_nt_float(char *o0, int neg, int ef, int emax, uint64_t f, int nb, int bias)
{
    char *o = o0;
    if (ef == emax && f) return (int)(gs_nt_put(o, "nan", 3) - o0);
    if (neg) *o++ = '-';
    if (ef == emax) return (int)(gs_nt_put(o, "inf", 3) - o0);
    if (ef == 0 && f == 0) return (int)(gs_nt_put(o, "0", 1) - o0);
    const int min_e = 1 - bias - (nb - 1);
    const uint64_t m = ef ? f | (uint64_t)1 << (nb - 1) : f;
    const int e = ef ? ef + min_e - 1 : min_e;
    uint64_t c;
    int e10;
    if (gs_nt_shortest(m, e, min_e, nb, &c, &e10)) return -1;
    return gs_nt_layout(o0, o, c, e10);
}

/* x as gs_num_format(GS_F64) prints it (no terminator); its length, or -1 where x is out of the
 * exact range (above): the caller formats it on the host. */
GS_HD int gs_numtext_f64(char *o, double x)
{
#ifdef __CUDA_ARCH__
    const uint64_t b = (uint64_t)__double_as_longlong(x);
#else
    union {
        double d;
        uint64_t u;
    } pun = {x};
    const uint64_t b = pun.u;
#endif
    return gs_nt_float(o, (int)(b >> 63), (int)(b >> 52 & 0x7ff), 0x7ff, b & (((uint64_t)1 << 52) - 1), 53, 1023);
}

/* x as gs_num_format(GS_F32) prints it: the shortest decimal that reads back as this float. */
GS_HD int gs_numtext_f32(char *o, float x)
{
#ifdef __CUDA_ARCH__
    const uint32_t b = (uint32_t)__float_as_int(x);
#else
    union {
        float f;
        uint32_t u;
    } pun = {x};
    const uint32_t b = pun.u;
#endif
    return gs_nt_float(o, (int)(b >> 31), (int)(b >> 23 & 0xff), 0xff, b & ((1u << 23) - 1), 24, 127);
}

/* The most bytes gs_numtext_* writes for one value of type t (a gs_type): what a buffer for text
 * formatted elsewhere holds a value in (pipeline/engine.c, pipeline/gpu/textout.cu). */
GS_HD int gs_numtext_bound(int t)
{
    return t == GS_I32 ? 11 : t == GS_U32 ? 10 : t == GS_F32 ? 17 : t == GS_F64 ? GS_NUMTEXT_MAX : 20; /* f32: "-1234567900000000" */
}

#endif
