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
 * bits (NaN as "nan", "inf", "-inf", -0.0 as "-0"): first by scaling with exact powers of ten
 * (finds short decimals such as 0.1 or 123.456 in a few multiplies, each candidate verified
 * with the exact parser above), else "%.*e" with 15, 16, 17 digits (6..9 for f32) keeping the
 * first that round-trips. Layout like Python's repr: plain notation for decimal exponents
 * -4..15, else d.ddde+XX. Assumes the C locale's decimal point (the CLI never calls
 * setlocale). */
#include "io_internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TWO53 9007199254740992.0 /* 2^53: integers up to here are exact doubles */

static const double pow10_d[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
static const float pow10_f[11] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f,
                                  1e6f, 1e7f, 1e8f, 1e9f, 1e10f};

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
 * (more than 19 significant digits, some non-zero digit dropped). */
typedef struct dec {
    uint64_t w;
    int64_t e10;
    int neg, trunc;
} dec;

/* Scan the strtod decimal grammar over all of [p, end). 0 ok, -1 not a decimal number. */
static int scan_decimal(const char *p, const char *end, dec *d)
{
    uint64_t w = 0;
    int nd = 0, any = 0, trunc = 0;
    int64_t dexp = 0;
    d->neg = 0;
    if (p < end && (*p == '+' || *p == '-')) d->neg = *p++ == '-';
    /* Leading zeros carry no information; skipping them keeps all 19 slots for real digits. */
    while (p < end && *p == '0') p++, any = 1;
    for (; p < end && is_digit(*p); p++) {
        any = 1;
        if (nd < 19) w = w * 10 + (uint64_t)(*p - '0'), nd++;
        else {
            dexp++;
            trunc |= *p != '0';
        }
    }
    if (p < end && *p == '.') {
        p++;
        if (nd == 0)
            while (p < end && *p == '0') p++, dexp--, any = 1;
        for (; p < end && is_digit(*p); p++) {
            any = 1;
            if (nd < 19) w = w * 10 + (uint64_t)(*p - '0'), nd++, dexp--;
            else trunc |= *p != '0';
        }
    }
    if (!any) return -1;
    if (p < end && (*p == 'e' || *p == 'E')) {
        int eneg = 0;
        int64_t x = 0;
        p++;
        if (p < end && (*p == '+' || *p == '-')) eneg = *p++ == '-';
        if (p == end || !is_digit(*p)) return -1;
        /* Saturate: anything beyond 10^±100000 is 0 or inf anyway. */
        for (; p < end && is_digit(*p); p++)
            if (x < 1000000) x = x * 10 + (*p - '0');
        dexp += eneg ? -x : x;
    }
    if (p != end) return -1;
    d->w = w;
    d->e10 = dexp;
    d->trunc = trunc;
    return 0;
}

/* Exact double w * 10^e10 by Clinger's fast path. 1 done, 0 not applicable. */
static int fast_double(uint64_t w, int64_t e10, double *out)
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
    if (w <= (1u << 24) && e10 >= -10 && e10 <= 10) {
        *out = e10 >= 0 ? (float)w * pow10_f[e10] : (float)w / pow10_f[-e10];
        return 1;
    }
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
        if (!d.trunc) {
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

/* Decimal digits of x into buf (no terminator); returns the count. */
static int fmt_u64(char *buf, uint64_t x)
{
    char tmp[20];
    int n = 0;
    while (x >= 100) {
        unsigned r = (unsigned)(x % 100);
        x /= 100;
        tmp[sizeof tmp - 1 - n++] = digit_pairs[2 * r + 1];
        tmp[sizeof tmp - 1 - n++] = digit_pairs[2 * r];
    }
    if (x >= 10) {
        tmp[sizeof tmp - 1 - n++] = digit_pairs[2 * x + 1];
        tmp[sizeof tmp - 1 - n++] = digit_pairs[2 * x];
    } else
        tmp[sizeof tmp - 1 - n++] = (char)('0' + x);
    memcpy(buf, tmp + sizeof tmp - n, (size_t)n);
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

/* Does the decimal w * 10^-k read back as exactly x? Decided with the exact fast paths;
 * "no" where they do not apply (the caller then tries a longer form). */
static int reads_back(uint64_t w, int k, double x, int is32)
{
    if (is32) {
        float f;
        return fast_float(w, -k, &f) && f == (float)x;
    }
    double y;
    return fast_double(w, -k, &y) && y == x;
}

/* Shortest digits of |x| (finite, non-zero): digits into dg (no trailing zeros), returns their
 * count; *e10 = decimal exponent of the first digit. */
static int shortest_digits(double ax, int is32, char *dg, int *e10)
{
    uint64_t n = 0;
    int nd = 0, found = 0, k;
    /* Fast: the fewest fractional digits k such that round(ax * 10^k) * 10^-k reads back. Only
     * below the type's exact-integer limit: above it a shorter form may round the integer
     * part (f32 123456792 is 1.2345679e+08), which the general path finds. */
    if (ax < (is32 ? 16777216.0 : TWO53)) {
        for (k = 0; k <= 22; k++) {
            double y = ax * pow10_d[k];
            if (y >= TWO53) break;
            n = (uint64_t)y;
            if (y - (double)n >= 0.5) n++;
            if (n && reads_back(n, k, ax, is32)) {
                found = 1;
                break;
            }
        }
    }
    if (found) {
        char tmp[24];
        int len = fmt_u64(tmp, n);
        nd = len;
        while (nd > 1 && tmp[nd - 1] == '0') nd--;
        memcpy(dg, tmp, (size_t)nd);
        *e10 = len - 1 - k;
        return nd;
    }
    /* General: correctly rounded %.*e at increasing precision; the last one always works. */
    char tmp[40];
    int lo = is32 ? 6 : 15, hi = is32 ? 9 : 17;
    for (int prec = lo; prec <= hi; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, ax);
        if (prec == hi) break;
        char *endp;
        if (is32 ? (strtof(tmp, &endp) == (float)ax) : (strtod(tmp, &endp) == ax)) break;
    }
    /* tmp = "d.ddddde[+-]XX" */
    const char *p = tmp;
    nd = 0;
    for (; *p && *p != 'e'; p++)
        if (is_digit(*p)) dg[nd++] = *p;
    *e10 = atoi(p + 1);
    while (nd > 1 && dg[nd - 1] == '0') nd--;
    return nd;
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
    char dg[24];
    int e10, nd = shortest_digits(ax, is32, dg, &e10);
    if (e10 >= -4 && e10 < 16) {
        if (e10 < 0) {
            *o++ = '0';
            *o++ = '.';
            for (int i = -1; i > e10; i--) *o++ = '0';
            memcpy(o, dg, (size_t)nd);
            o += nd;
        } else if (nd <= e10 + 1) {
            memcpy(o, dg, (size_t)nd);
            o += nd;
            for (int i = nd; i <= e10; i++) *o++ = '0';
        } else {
            memcpy(o, dg, (size_t)e10 + 1);
            o += e10 + 1;
            *o++ = '.';
            memcpy(o, dg + e10 + 1, (size_t)(nd - e10 - 1));
            o += nd - e10 - 1;
        }
    } else {
        *o++ = dg[0];
        if (nd > 1) {
            *o++ = '.';
            memcpy(o, dg + 1, (size_t)nd - 1);
            o += nd - 1;
        }
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
