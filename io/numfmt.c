/* numfmt.c - exact conversion between decimal text and the six element types, for the csv and
 * text formats.
 *
 * Parsing. Integers: optional sign, decimal digits, full 64-bit range; anything else
 * (fraction, exponent, spaces) is invalid (-1), a value outside the type is -2. Floats: the
 * strtod/strtof grammar for decimals (sign, digits, '.', e/E exponent), plus inf, infinity and
 * nan in any case, parsed by fast_float (io/numconv.cpp); hexadecimal floats go to the libc. The
 * result is always the correctly rounded value, bit for bit what strtod/strtof return (overflow
 * gives +-inf and underflow 0 or a denormal, as strtod does; neither is an error).
 *
 * Formatting. Integers exactly. Floats as the shortest decimal that reads back to the same
 * bits, and of those the nearest (the digits Python's repr and Ryu give), from {fmt}'s Dragonbox
 * (io/numconv.cpp); NaN as "nan", "inf", "-inf", -0.0 as "-0". Layout like Python's repr without
 * its ".0": plain notation for decimal exponents -4..15, else d.ddde+XX (at least two exponent
 * digits). Assumes the C locale's decimal point (the CLI never calls setlocale). */
#include "io_internal.h"
#include "numconv.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint64_t pow10_u64[20] = {
    1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u, 1000000000u,
    10000000000u, 100000000000u, 1000000000000u, 10000000000000u, 100000000000000u,
    1000000000000000u, 10000000000000000u, 100000000000000000u, 1000000000000000000u,
    10000000000000000000u,
};

/* ---- parsing ----------------------------------------------------------------------------- */

static int lower(char c) { return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c; }

/* Unsigned decimal digits [p, end) -> *v. -1 if empty or a non-digit, -2 if above 2^64-1
 * (only once every character is known to be a digit: "99999999999999999999x" is invalid). */
static int parse_digits_u64(const char *p, const char *end, uint64_t *v)
{
    uint64_t x = 0;
    int over = 0;
    if (p == end) return -1;
    if (end - p <= 19) { /* 19 digits never overflow: no checks a digit */
        for (; p < end; p++) {
            unsigned d = (unsigned)(*p - '0');
            if (d > 9) return -1;
            x = x * 10 + d;
        }
        *v = x;
        return 0;
    }
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
    if (t == GS_F32 ? gs_numconv_parse_f32(s, len, out) == 0 : gs_numconv_parse_f64(s, len, out) == 0) return 0;
    /* Hexadecimal floats ("0x1.8p3", "-0X1P-2"): only the libc parses them. */
    const char *p = s, *end = s + len;
    if (p < end && (*p == '+' || *p == '-')) p++;
    if (end - p > 2 && p[0] == '0' && lower(p[1]) == 'x') return slow_float(s, len, t, out);
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

/* The 8 decimal digits of x < 10^8 ending at o, two at a time in 32-bit arithmetic. */
static inline void put_8(char *o, uint32_t x)
{
    for (int k = 0; k < 4; k++) {
        const unsigned r = x % 100;
        x /= 100;
        *--o = digit_pairs[2 * r + 1];
        *--o = digit_pairs[2 * r];
    }
}

/* The nd decimal digits of x, written backwards from buf + nd: eight at a time while x has more
 * (one 64-bit division each), then two at a time in 32 bits. */
static inline void put_digits(char *buf, uint64_t x, int nd)
{
    char *o = buf + nd;
    while (x >= 100000000) {
        put_8(o, (uint32_t)(x % 100000000));
        x /= 100000000;
        o -= 8;
    }
    uint32_t y = (uint32_t)x;
    while (y >= 100) {
        const unsigned r = y % 100;
        y /= 100;
        *--o = digit_pairs[2 * r + 1];
        *--o = digit_pairs[2 * r];
    }
    if (y >= 10) {
        *--o = digit_pairs[2 * y + 1];
        *--o = digit_pairs[2 * y];
    } else
        *--o = (char)('0' + y);
}

/* The 8 decimal digits of x < 10^8 as text in one word (the first digit in the lowest byte): two
 * halves of 4 digits, each cut into 2 and 2, then 1 and 1, in all lanes at once by multiplying
 * with a reciprocal (exact below 10^4 and 10^2). Little-endian only (x86 and ARM). */
static inline uint64_t digits8(uint32_t x)
{
    const uint64_t hi = x / 10000, lo = x % 10000;
    uint64_t v = hi | lo << 32;                                    /* 4 + 4 digits, 32-bit lanes */
    const uint64_t q2 = (v * 10486) >> 20 & 0x0000007F0000007Full; /* each lane / 100 */
    v = q2 | (v - q2 * 100) << 16;                                 /* 2 + 2 digits, 16-bit lanes */
    const uint64_t q1 = (v * 103) >> 10 & 0x000F000F000F000Full;  /* each lane / 10 */
    v = q1 | (v - q1 * 10) << 8;                                   /* 1 + 1 digits, bytes */
    return v + 0x3030303030303030ull;
}

typedef unsigned __int128 gs_u128;

/* The 16 digits of x < 10^16 (leading zeros included) as text in two words, the first digit in the
 * lowest byte. With SSE2 (every x86-64) the two halves of 8 digits go side by side in the two 64-bit
 * lanes, through the same cuts as digits8 (4 + 4 digits, 2 + 2, 1 + 1) by exact reciprocals: x / 10^4
 * as (x * 0xd1b71759) >> 45 below 2^32, y / 100 as (y * 5243) >> 19 below 43699, y / 10 as (y *
 * 6554) >> 16 below 100 (every 8-digit value checked against digits8: the same text). */
static inline gs_u128 digits16(uint64_t x)
{
#ifdef __SSE2__
    const __m128i v = _mm_set_epi64x((long long)(x % 100000000), (long long)(x / 100000000));
    const __m128i q = _mm_srli_epi64(_mm_mul_epu32(v, _mm_set1_epi32((int)0xd1b71759)), 45);
    const __m128i r = _mm_sub_epi32(v, _mm_mul_epu32(q, _mm_set1_epi32(10000)));
    __m128i w = _mm_or_si128(q, _mm_slli_epi64(r, 32)); /* 4 + 4 digits, 32-bit lanes */
    const __m128i h = _mm_or_si128(_mm_srli_epi32(_mm_mul_epu32(w, _mm_set1_epi32(5243)), 19),
                                   _mm_slli_epi64(_mm_srli_epi32(_mm_mul_epu32(_mm_srli_epi64(w, 32), _mm_set1_epi32(5243)), 19), 32));
    w = _mm_or_si128(h, _mm_slli_epi32(_mm_sub_epi32(w, _mm_mullo_epi16(h, _mm_set1_epi32(100))), 16)); /* 2 + 2, 16-bit */
    const __m128i t = _mm_mulhi_epu16(w, _mm_set1_epi16(6554));
    w = _mm_or_si128(t, _mm_slli_epi16(_mm_sub_epi16(w, _mm_mullo_epi16(t, _mm_set1_epi16(10))), 8)); /* 1 + 1, bytes */
    w = _mm_add_epi8(w, _mm_set1_epi8('0'));
    gs_u128 out;
    memcpy(&out, &w, sizeof out);
    return out;
#else
    return (gs_u128)digits8((uint32_t)(x / 100000000)) | (gs_u128)digits8((uint32_t)(x % 100000000)) << 64;
#endif
}

static inline void store16(char *o, gs_u128 v) { memcpy(o, &v, 16); }

/* Decimal digits of x into buf (no terminator); returns the count. Up to 16 digits as one or two
 * words of text stored whole (buf has GS_NUM_CHARS of room), more by put_digits. */
static int fmt_u64(char *buf, uint64_t x)
{
    const int n = count_digits(x);
    if (n <= 8) {
        const uint64_t t = digits8((uint32_t)x) >> (8 * (8 - n));
        memcpy(buf, &t, 8);
    } else if (n <= 16)
        store16(buf, digits16(x) >> (8 * (16 - n)));
    else
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


/* The nd digits of c (nd <= 17) as text: the first at *o where nd is 17 (o moves past it), the
 * others (at most 16) returned in two words. No division by a variable: the layouts below cut this
 * text with shifts, and put it out with word stores only (16 bytes, the bytes after the text
 * overwritten; a word read back soon after narrower stores would wait). */
static inline __attribute__((always_inline)) gs_u128 digit_text(uint64_t c, int *nd, char **o)
{
    /* without a branch (16 and 17 digits alternate at random in real data): the first digit is
     * written in any case, and kept only for 17 (the callers store over it otherwise) */
    const uint64_t hi = c / 10000000000000000u;
    const int n17 = *nd == 17;
    **o = (char)('0' + hi);
    *o += n17;
    *nd -= n17;
    return digits16(c - hi * 10000000000000000u) >> (8 * (16 - *nd));
}

/* kernels/numtext.h mirrors this layout for the device; tests/unit/test_numtext.c holds them equal. */
static int fmt_float(char *buf, double x, int is32)
{
    char *o = buf;
    if (isnan(x)) return (int)(memcpy(buf, "nan", 4), 3);
    *o = '-'; /* kept for a negative value, else written over */
    o += signbit(x) != 0;
    const double ax = fabs(x);
    if (isinf(ax)) return (int)(memcpy(o, "inf", 4), o + 3 - buf);
    if (ax == 0) return (int)(memcpy(o, "0", 2), o + 1 - buf);
    const gs_decimal d = is32 ? gs_numconv_shortest_f32((float)ax) : gs_numconv_shortest_f64(ax);
    const uint64_t c = d.digits; /* at most 17 digits */
    int nd = count_digits(c);
    const int e10 = d.e10 + nd - 1; /* the exponent of the first digit */
    if (e10 >= 0 && nd <= 8 && nd > e10 + 1) { /* ddd.ddd, in one word */
        const uint64_t t = digits8((uint32_t)c) >> (8 * (8 - nd));
        memcpy(o, &t, 8);
        o[e10 + 1] = '.';
        const uint64_t f = t >> (8 * (e10 + 1));
        memcpy(o + e10 + 2, &f, 8);
        o += nd + 1;
    } else if (e10 >= 0 && e10 < 16 && nd > e10 + 1) { /* ddd.ddd */
        const int n0 = nd;
        const gs_u128 t = digit_text(c, &nd, &o);
        const int ni = e10 + 1 - (n0 - nd); /* integer digits in t */
        store16(o, t);
        o[ni] = '.';
        store16(o + ni + 1, t >> (8 * ni));
        o += nd + 1;
    } else if (e10 >= 0 && e10 < 16) { /* ddd000: the digits of c * 10^(zeros), nd <= 16 */
        nd = e10 + 1;
        const gs_u128 t = digit_text(c * pow10_u64[e10 + 1 - count_digits(c)], &nd, &o);
        store16(o, t);
        o += nd;
    } else if (e10 < 0 && e10 >= -4) { /* 0.000ddd */
        memcpy(o, "0.000000", 8);
        o += 1 - e10;
        const gs_u128 t = digit_text(c, &nd, &o);
        store16(o, t);
        o += nd;
    } else { /* d.ddde+XX */
        const int n0 = nd;
        gs_u128 t = digit_text(c, &nd, &o);
        if (n0 < 17) *o++ = (char)t, t >>= 8, nd--; /* the first digit */
        if (nd) {
            *o = '.';
            store16(o + 1, t);
            o += nd + 1;
        }
        *o++ = 'e';
        *o++ = e10 < 0 ? '-' : '+';
        const int ae = e10 < 0 ? -e10 : e10;
        if (ae >= 100) *o++ = (char)('0' + ae / 100);
        memcpy(o, digit_pairs + 2 * (ae % 100), 2);
        o += 2;
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
