/* numfmt.c - fast, exact conversion between decimal text and the six element types, for the
 * csv and text formats.
 *
 * Parsing. Integers: optional sign, decimal digits, full 64-bit range; anything else
 * (fraction, exponent, spaces) is invalid (-1), a value outside the type is -2. Floats: the
 * strtod/strtof grammar for decimals (sign, digits, '.', e/E exponent), plus inf, infinity and
 * nan in any case; hexadecimal floats and nan(...) go to the libc. The result is always the
 * correctly rounded value, bit for bit what strtod/strtof return (overflow gives +-inf and
 * underflow 0 or a denormal, as strtod does; neither is an error). Most numbers take Clinger's
 * fast path: with at most 19 significant digits, a mantissa w <= 2^53 and 10^|e| <= 10^22,
 * both w and 10^e are exact doubles, so one IEEE multiply or divide rounds correctly. f32 uses
 * float arithmetic when that is exact (w <= 2^24, |e| <= 10) and otherwise the double result,
 * unless that double lies exactly on a midpoint between two floats - the only case where
 * rounding twice can differ from rounding once. Everything else (long mantissas, large
 * exponents) falls back to strtod/strtof on a NUL-terminated copy.
 *
 * Formatting. Integers exactly. Floats as the shortest decimal that reads back to the same
 * bits, and of those the nearest (the digits Python's repr and Ryu give; NaN as "nan", "inf",
 * "-inf", -0.0 as "-0"): computed exactly with 128-bit integers for normal numbers in about
 * 1e-14..1e44 (floats: 1e-26 up) - see shortest_exact - and otherwise by "%.*e" at
 * 15, 16, 17 digits (6..9 for f32; from 1 for denormals), keeping the first that reads back.
 * Layout like Python's repr: plain notation for decimal exponents -4..15, else d.ddde+XX.
 * Assumes the C locale's decimal point (the CLI never calls setlocale). */
#include "io_internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TWO53 9007199254740992.0 /* 2^53: integers up to here are exact doubles */
#define EXP_SAT ((int64_t)100000000000000000) /* 10^17: an exponent's digits stop counting here */

static const double pow10_d[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
static const float pow10_f[11] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f,
                                  1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
static const uint64_t pow10_u64[20] = {
    1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u, 1000000000u,
    10000000000u, 100000000000u, 1000000000000u, 10000000000000u, 100000000000000u,
    1000000000000000u, 10000000000000000u, 100000000000000000u, 1000000000000000000u,
    10000000000000000000u,
};

/* ---- parsing ----------------------------------------------------------------------------- */

static int is_digit(char c) { return (unsigned)(c - '0') < 10u; }

static int lower(char c) { return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c; }

/* Case-insensitive match of [p, end) against a lower-case word. */
static int word_eq(const char *p, const char *end, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(end - p) != n) return 0;
    for (size_t i = 0; i < n; i++)
        if (lower(p[i]) != w[i]) return 0;
    return 1;
}

/* Unsigned decimal digits [p, end) -> *v. -1 if empty or a non-digit, -2 if above 2^64-1
 * (only once every character is known to be a digit: "99999999999999999999x" is invalid). */
static int parse_digits_u64(const char *p, const char *end, uint64_t *v)
{
    uint64_t x = 0;
    int over = 0;
    if (p == end) return -1;
    for (; p < end; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (d > 9) return -1;
        if (!over && (__builtin_mul_overflow(x, 10u, &x) || __builtin_add_overflow(x, d, &x)))
            over = 1;
    }
    *v = x;
    return over ? -2 : 0;
}

static int parse_int(const char *s, size_t len, gs_type t, void *out)
{
    const char *p = s, *end = s + len;
    int neg = 0;
    uint64_t m;
    if (p < end && (*p == '+' || *p == '-')) neg = *p++ == '-';
    int r = parse_digits_u64(p, end, &m);
    if (r) return r;
    switch (t) {
    case GS_I32:
        if (m > (neg ? 2147483648u : 2147483647u)) return -2;
        *(int32_t *)out = neg ? (int32_t)(0u - (uint32_t)m) : (int32_t)m;
        return 0;
    case GS_I64:
        if (m > (neg ? 9223372036854775808u : 9223372036854775807u)) return -2;
        *(int64_t *)out = neg ? (int64_t)(0u - m) : (int64_t)m;
        return 0;
    case GS_U32:
        if (neg && m) return -2; /* "-0" is still zero */
        if (m > UINT32_MAX) return -2;
        *(uint32_t *)out = (uint32_t)m;
        return 0;
    default:
        if (neg && m) return -2;
        *(uint64_t *)out = m;
        return 0;
    }
}

/* A decimal split into its parts: value = (-1)^neg * w * 10^e10, exact unless `trunc`
 * (more than 19 significant digits: w wrapped, only the libc can round it). */
typedef struct dec {
    uint64_t w;
    int64_t e10;
    int neg, trunc;
} dec;

/* Scan the strtod decimal grammar over all of [p, end). 0 ok, -1 not a decimal number.
 * Digits accumulate without a per-digit count check (w may wrap); the significant digits are
 * counted afterwards from the positions, and only a long mantissa pays for it. */
static int scan_decimal(const char *p, const char *end, dec *d)
{
    uint64_t w = 0;
    int64_t e10 = 0;
    d->neg = 0;
    if (p < end && (*p == '+' || *p == '-')) d->neg = *p++ == '-';
    const char *ds = p;
    while (p < end && is_digit(*p)) w = w * 10 + (uint64_t)(*p++ - '0');
    size_t ndig = (size_t)(p - ds);
    if (p < end && *p == '.') {
        const char *fs = ++p;
        while (p < end && is_digit(*p)) w = w * 10 + (uint64_t)(*p++ - '0');
        ndig += (size_t)(p - fs);
        e10 = -(int64_t)(p - fs);
    }
    if (ndig == 0) return -1;
    if (p < end && (*p == 'e' || *p == 'E')) {
        int eneg = 0;
        int64_t x = 0;
        p++;
        if (p < end && (*p == '+' || *p == '-')) eneg = *p++ == '-';
        if (p == end || !is_digit(*p)) return -1;
        /* Saturate far beyond any count of digits a text can hold: the fraction's digits (each
         * moves e10 by one) cannot cancel a saturated exponent back into the fast range, so
         * such a number reaches strtod, which gives 0 or inf. */
        for (; p < end && is_digit(*p); p++)
            if (x < EXP_SAT) x = x * 10 + (*p - '0');
        e10 += eneg ? -x : x;
    }
    if (p != end) return -1;
    d->trunc = 0;
    if (ndig > 19) { /* leading zeros do not count */
        for (const char *q = ds; q < end && (*q == '0' || *q == '.'); q++) ndig -= *q == '0';
        d->trunc = ndig > 19;
    }
    d->w = w;
    d->e10 = e10;
    return 0;
}

/* Exact double w * 10^e10 by Clinger's fast path. 1 done, 0 not applicable. */
static inline int fast_double(uint64_t w, int64_t e10, double *out)
{
    if (w > (uint64_t)1 << 53) return 0;
    if (w == 0) {
        *out = 0.0;
        return 1;
    }
    if (e10 >= 0 && e10 <= 22) {
        *out = (double)w * pow10_d[e10];
        return 1;
    }
    if (e10 < 0 && e10 >= -22) {
        *out = (double)w / pow10_d[-e10];
        return 1;
    }
    if (e10 > 22 && e10 <= 22 + 15) {
        /* "1e23": move the excess exponent into w while w stays an exact integer. */
        uint64_t x = w;
        for (int64_t k = e10 - 22; k > 0; k--) {
            x *= 10;
            if (x > (uint64_t)1 << 53) return 0;
        }
        *out = (double)x * 1e22;
        return 1;
    }
    return 0;
}

/* Exact float w * 10^e10. 1 done, 0 not applicable. */
static int fast_float(uint64_t w, int64_t e10, float *out)
{
    double d;
    /* Float arithmetic is exact here only if it really is float arithmetic (SSE, not x87). */
#if FLT_EVAL_METHOD == 0
    if (w <= (1u << 24) && e10 >= -10 && e10 <= 10) {
        *out = e10 >= 0 ? (float)w * pow10_f[e10] : (float)w / pow10_f[-e10];
        return 1;
    }
#endif
    if (!fast_double(w, e10, &d)) return 0;
    if (!(d < FLT_MAX)) return 0; /* near the overflow threshold: let strtof decide */
    float f = (float)d;
    if ((double)f != d) {
        /* d is the correctly rounded double; rounding it to float is right unless d sits exactly
         * on the midpoint between f and its neighbour on d's side (all such midpoints are
         * doubles, and rounding to double never crosses one). */
        float g = nextafterf(f, d > (double)f ? INFINITY : -INFINITY);
        if (((double)f + (double)g) * 0.5 == d) return 0;
    }
    *out = f;
    return 1;
}

/* libc fallback on a NUL-terminated copy; the whole text must be consumed. */
static int slow_float(const char *s, size_t len, gs_type t, void *out)
{
    char stack[128];
    char *buf = len < sizeof stack ? stack : malloc(len + 1);
    char *endp;
    int r = 0;
    if (!buf) return -1;
    memcpy(buf, s, len);
    buf[len] = 0;
    if (t == GS_F32) *(float *)out = strtof(buf, &endp);
    else *(double *)out = strtod(buf, &endp);
    if (endp != buf + len || len == 0) r = -1;
    if (buf != stack) free(buf);
    return r;
}

static int parse_float(const char *s, size_t len, gs_type t, void *out)
{
    const char *p = s, *end = s + len;
    dec d;
    if (scan_decimal(p, end, &d) == 0) {
        if (!d.trunc) { /* else more than 19 significant digits */
            if (t == GS_F32) {
                float f;
                if (fast_float(d.w, d.e10, &f)) {
                    *(float *)out = d.neg ? -f : f;
                    return 0;
                }
            } else {
                double x;
                if (fast_double(d.w, d.e10, &x)) {
                    *(double *)out = d.neg ? -x : x;
                    return 0;
                }
            }
        }
        return slow_float(s, len, t, out);
    }
    /* Not a plain decimal: the special words, or what only the libc parses. */
    int neg = 0;
    if (p < end && (*p == '+' || *p == '-')) neg = *p++ == '-';
    if (word_eq(p, end, "inf") || word_eq(p, end, "infinity")) {
        if (t == GS_F32) *(float *)out = neg ? -INFINITY : INFINITY;
        else *(double *)out = neg ? -INFINITY : INFINITY;
        return 0;
    }
    if (word_eq(p, end, "nan")) {
        if (t == GS_F32) *(float *)out = neg ? -NAN : NAN;
        else *(double *)out = neg ? -(double)NAN : (double)NAN;
        return 0;
    }
    /* Hexadecimal floats ("0x1.8p3") and "nan(payload)". */
    if ((end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) ||
        (end - p > 4 && lower(p[0]) == 'n' && lower(p[1]) == 'a' && lower(p[2]) == 'n' && p[3] == '('))
        return slow_float(s, len, t, out);
    return -1;
}

int gs_num_parse(const char *s, size_t len, gs_type t, void *out)
{
    switch (t) {
    case GS_I32:
    case GS_I64:
    case GS_U32:
    case GS_U64: return parse_int(s, len, t, out);
    case GS_F32:
    case GS_F64: return parse_float(s, len, t, out);
    default: return -1;
    }
}

/* ---- formatting -------------------------------------------------------------------------- */

static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324"
                                     "25262728293031323334353637383940414243444546474849"
                                     "50515253545556575859606162636465666768697071727374"
                                     "75767778798081828384858687888990919293949596979899";

/* Number of decimal digits of x (1 for 0). */
static inline int count_digits(uint64_t x)
{
    /* t = bits * log10(2) (1233/4096) is the digit count or one less; x | 1 has the same
     * digits as x (powers of ten above 1 are even) and is never 0 */
    uint64_t y = x | 1;
    int t = ((64 - __builtin_clzll(y)) * 1233) >> 12;
    return t + 1 - (y < pow10_u64[t]);
}

/* The nd decimal digits of x, written backwards from buf + nd, two at a time. */
static inline void put_digits(char *buf, uint64_t x, int nd)
{
    char *o = buf + nd;
    while (x >= 100) {
        unsigned r = (unsigned)(x % 100);
        x /= 100;
        *--o = digit_pairs[2 * r + 1];
        *--o = digit_pairs[2 * r];
    }
    if (x >= 10) {
        *--o = digit_pairs[2 * x + 1];
        *--o = digit_pairs[2 * x];
    } else
        *--o = (char)('0' + x);
}

/* Decimal digits of x into buf (no terminator); returns the count. */
static int fmt_u64(char *buf, uint64_t x)
{
    int n = count_digits(x);
    put_digits(buf, x, n);
    return n;
}

static int fmt_i64(char *buf, int64_t x)
{
    if (x < 0) {
        buf[0] = '-';
        return 1 + fmt_u64(buf + 1, 0u - (uint64_t)x);
    }
    return fmt_u64(buf, (uint64_t)x);
}

/* ---- shortest digits, exactly, in 128-bit integers ----------------------------------------
 * A finite x = m * 2^e reads back from every decimal strictly inside its rounding interval
 * (x - ulp_below/2, x + ulp/2), and from the ends too when m is even (ties go to even). Scale
 * everything by 10^k so that x lands in [1e17, 1e19): then the interval is at least 8 units
 * wide, the ends are 64-bit integers (floors and ceilings of exact rationals whose denominator
 * is a power of two or of five), and the shortest decimal is found by dropping digits of the
 * ends while some multiple of 10^j still fits between them; of those, the one nearest to x.
 * 10^k = 5^k * 2^k, and 5^k times a 55-bit mantissa must fit in 128 bits: that bounds k and
 * so the domain (about 1e-14..1e44 for doubles, wider for floats); outside it, and for
 * denormals, the caller falls back to printf. */

typedef unsigned __int128 u128;


static const uint64_t pow5_64[28] = {
    1u, 5u, 25u, 125u, 625u, 3125u, 15625u, 78125u, 390625u, 1953125u, 9765625u, 48828125u,
    244140625u, 1220703125u, 6103515625u, 30517578125u, 152587890625u, 762939453125u,
    3814697265625u, 19073486328125u, 95367431640625u, 476837158203125u, 2384185791015625u,
    11920928955078125u, 59604644775390625u, 298023223876953125u, 1490116119384765625u,
    7450580596923828125u,
};

/* floor(n / d) and where the remainder stands: *rem_nz, *half_cmp = sign(2*rem - d). */
typedef struct qr {
    uint64_t q;
    int nz, half;
} qr;

static inline int div_pow2(u128 n, int d, qr *r)
{
    if (d == 0) {
        if (n >> 64) return -1;
        r->q = (uint64_t)n, r->nz = 0, r->half = -1;
        return 0;
    }
    if (d >= 128 || (n >> d) >> 64) return -1;
    u128 rem = n & (((u128)1 << d) - 1), h = (u128)1 << (d - 1);
    r->q = (uint64_t)(n >> d);
    r->nz = rem != 0;
    r->half = rem > h ? 1 : rem == h ? 0 : -1;
    return 0;
}

static inline int div_u64(u128 n, uint64_t d, qr *r)
{
    u128 q = n / d, rem = n % d;
    if (q >> 64) return -1;
    r->q = (uint64_t)q;
    r->nz = rem != 0;
    r->half = 2 * rem > d ? 1 : 2 * rem == d ? 0 : -1;
    return 0;
}

/* Shortest digits of m * 2^e (m normalised: its top bit is the type's hidden bit): the digits
 * as an integer, their count, the decimal exponent of the first. 0 outside the domain. */
static int shortest_exact(uint64_t m, int e, int lower_closer, uint64_t *digits, int *nd, int *e10)
{
    int bits = 64 - __builtin_clzll(m);
    int lg2 = e + bits - 1;                                   /* floor(log2 x) */
    int fl = (int)floor(lg2 * 0.30102999566398120);           /* floor(log10 x), or one less */
    int k = 17 - fl;                                          /* x * 10^k in [1e17, 1e19) */
    int excl = (int)(m & 1);                                  /* odd m: the ends do not read back */
    u128 v = (u128)m * 4, u = v + 2, l = v - (lower_closer ? 1 : 2); /* in units of 2^(e-2) */
    int s = e - 2 + k;                                        /* the power of two left of 10^k */
    qr qv, qu, ql;
    if (k >= 0) {
        u128 p = pow5_64[k < 27 ? k : 27];
        if (k > 27) {
            if (k - 27 > 27 || __builtin_mul_overflow(p, (u128)pow5_64[k - 27], &p)) return 0;
        }
        if (__builtin_mul_overflow(v, p, &v) || __builtin_mul_overflow(u, p, &u) ||
            __builtin_mul_overflow(l, p, &l))
            return 0;
        if (s >= 0) {
            if (s >= 64 || (u >> (127 - s))) return 0;
            v <<= s, u <<= s, l <<= s;
            if (div_pow2(v, 0, &qv) || div_pow2(u, 0, &qu) || div_pow2(l, 0, &ql)) return 0;
        } else if (div_pow2(v, -s, &qv) || div_pow2(u, -s, &qu) || div_pow2(l, -s, &ql))
            return 0;
    } else {
        if (-k > 27 || s < 0 || s + bits + 3 > 127) return 0;
        uint64_t p = pow5_64[-k];
        if (div_u64(v << s, p, &qv) || div_u64(u << s, p, &qu) || div_u64(l << s, p, &ql)) return 0;
    }
    /* Integer ends of the interval, in units of 10^-k. */
    uint64_t a = ql.q + (uint64_t)(ql.nz || excl), b = qu.q - (uint64_t)(!qu.nz && excl);
    if (a > b) return 0;
    /* The largest j such that a multiple of 10^j lies in [a, b]. "Some multiple of 10^j fits"
     * only gets harder as j grows, so binary lifting finds it in five tests; ceilings and floors
     * of successive divisions compose, and constant divisors compile to multiplications. x is
     * divided along, keeping where the dropped part stands against half a unit (cmp) and
     * whether it is non-zero (nz), to round to the nearest at the end. */
    int j = 0, cmp = qv.half, nz = qv.nz;
    uint64_t xq = qv.q;
#define GS_TRY_DROP(P, J)                                                                          \
    do {                                                                                           \
        uint64_t a2_ = a / (P) + (a % (P) != 0), b2_ = b / (P);                                    \
        if (a2_ <= b2_) {                                                                          \
            uint64_t r_ = xq % (P);                                                                \
            a = a2_, b = b2_, j += (J), xq /= (P);                                                 \
            cmp = r_ > (P) / 2 ? 1 : r_ < (P) / 2 ? -1 : nz;                                       \
            nz |= r_ != 0;                                                                         \
        }                                                                                          \
    } while (0)
    GS_TRY_DROP(10000000000000000u, 16);
    GS_TRY_DROP(100000000u, 8);
    GS_TRY_DROP(10000u, 4);
    GS_TRY_DROP(100u, 2);
    GS_TRY_DROP(10u, 1);
#undef GS_TRY_DROP
    /* The nearest to x at that scale (ties to even), kept inside [a, b]. */
    uint64_t c = xq + (uint64_t)(cmp > 0 || (cmp == 0 && (xq & 1)));
    if (c < a) c = a;
    if (c > b) c = b;
    *digits = c;
    *nd = count_digits(c);
    *e10 = *nd - 1 + j - k;
    return 1;
}

/* Shortest digits of |x| (finite, non-zero), as for shortest_exact. */
static void shortest_digits(double ax, int is32, uint64_t *digits, int *nd, int *e10)
{
    if (is32) {
        float f = (float)ax;
        uint32_t bitsf;
        memcpy(&bitsf, &f, 4);
        int be = (int)(bitsf >> 23) & 0xff;
        uint32_t frac = bitsf & 0x7fffff;
        if (be != 0 && shortest_exact(frac | 0x800000u, be - 150, frac == 0 && be > 1, digits, nd, e10)) return;
    } else {
        uint64_t bitsd;
        memcpy(&bitsd, &ax, 8);
        int be = (int)(bitsd >> 52) & 0x7ff;
        uint64_t frac = bitsd & 0xfffffffffffffull;
        if (be != 0 && shortest_exact(frac | (1ull << 52), be - 1075, frac == 0 && be > 1, digits, nd, e10))
            return;
    }
    /* General: correctly rounded %.*e at increasing precision; the last one always works.
     * For normal numbers, starting at 15 (f32: 6) digits still gives the shortest: decimals
     * that short are spaced wider than the rounding interval, so the one that reads back is
     * the correctly rounded one, and its trailing zeros are dropped below. Denormals have
     * fewer bits, so there the search starts at one digit. */
    char tmp[40];
    int lo = is32 ? (ax < FLT_MIN ? 1 : 6) : (ax < DBL_MIN ? 1 : 15), hi = is32 ? 9 : 17;
    for (int prec = lo; prec <= hi; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, ax);
        if (prec == hi) break;
        char *endp;
        if (is32 ? (strtof(tmp, &endp) == (float)ax) : (strtod(tmp, &endp) == ax)) break;
    }
    /* tmp = "d.ddddde[+-]XX" */
    const char *p = tmp;
    uint64_t c = 0;
    int n = 0, zeros = 0;
    for (; *p && *p != 'e'; p++)
        if (is_digit(*p)) {
            /* trailing zeros are held back until a non-zero digit follows */
            if (*p == '0') {
                zeros++;
                continue;
            }
            for (; zeros; zeros--) c *= 10, n++;
            c = c * 10 + (uint64_t)(*p - '0'), n++;
        }
    *digits = c;
    *nd = n;
    *e10 = atoi(p + 1);
}

static int fmt_float(char *buf, double x, int is32)
{
    char *o = buf;
    if (isnan(x)) return (int)(memcpy(buf, "nan", 4), 3);
    if (signbit(x)) *o++ = '-';
    double ax = fabs(x);
    if (isinf(ax)) {
        memcpy(o, "inf", 4);
        return (int)(o - buf) + 3;
    }
    if (ax == 0) {
        *o++ = '0';
        *o = 0;
        return (int)(o - buf);
    }
    uint64_t c;
    int nd, e10;
    shortest_digits(ax, is32, &c, &nd, &e10);
    if (e10 >= -4 && e10 < 16) {
        if (e10 < 0) { /* 0.000ddd */
            *o++ = '0';
            *o++ = '.';
            for (int i = -1; i > e10; i--) *o++ = '0';
            put_digits(o, c, nd);
            o += nd;
        } else if (nd <= e10 + 1) { /* ddd000 */
            put_digits(o, c, nd);
            o += nd;
            for (int i = nd; i <= e10; i++) *o++ = '0';
        } else { /* ddd.ddd: the digits, then the fraction moved right for the point */
            int ni = e10 + 1;
            put_digits(o, c, nd);
            for (int i = nd; i > ni; i--) o[i] = o[i - 1]; /* short: a loop beats a memmove call */
            o[ni] = '.';
            o += nd + 1;
        }
    } else { /* d.ddde+XX */
        put_digits(o + 1, c, nd);
        o[0] = o[1];
        if (nd > 1) {
            o[1] = '.';
            o += nd + 1;
        } else
            o += 1;
        *o++ = 'e';
        *o++ = e10 < 0 ? '-' : '+';
        int ae = e10 < 0 ? -e10 : e10;
        if (ae < 10) *o++ = '0';
        o += fmt_u64(o, (uint64_t)ae);
    }
    *o = 0;
    return (int)(o - buf);
}

int gs_num_format(char *buf, gs_type t, const void *val)
{
    int n;
    switch (t) {
    case GS_I32: n = fmt_i64(buf, *(const int32_t *)val); break;
    case GS_I64: n = fmt_i64(buf, *(const int64_t *)val); break;
    case GS_U32: n = fmt_u64(buf, *(const uint32_t *)val); break;
    case GS_U64: n = fmt_u64(buf, *(const uint64_t *)val); break;
    case GS_F32: return fmt_float(buf, (double)*(const float *)val, 1);
    case GS_F64: return fmt_float(buf, *(const double *)val, 0);
    default: n = 0; break;
    }
    buf[n] = 0;
    return n;
}
