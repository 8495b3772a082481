/* numparse.h - one csv line's selected field as a number, on the host and on the device (C11 and
 * CUDA), for a GPU that parses csv itself (kernels/text_gpu.cu). It takes only what it can give
 * exactly as io/numfmt.c's gs_num_parse does, and declines the rest, which the host then parses
 * (io/csv_lines.c): tests/unit/test_numparse.c holds the two equal, value for value and bit for bit.
 *
 * A line is taken where each of its fields `cols` (1-based, several in any order; fields split at
 * `delim`, no quote anywhere in the block: the caller checks) is, once the surrounding space is
 * trimmed as the host trims it ('\r' always, ' ' and '\t' unless the delimiter), one of:
 *   integers  -?[0-9]+ in the type's range (no '-' for the unsigned types);
 *   floats    -?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]{1,4})? whose value Clinger's fast path gives
 *             exactly: at most 19 significant digits making an integer w <= 2^53 (2^24 for f32)
 *             and a decimal exponent of at most 22 (10 for f32) either way, so that w and the
 *             power of ten are exact and one IEEE multiplication or division rounds correctly;
 *             w = 0 is +-0 at any exponent.
 * Anything else (an empty or missing field, a blank line, a sign '+', inf/nan/NA spellings, 20 or
 * more significant digits, hexadecimal floats, an exponent past the fast path) is declined. No
 * library calls and no tables in memory: powers of ten by exact multiplication. */
#ifndef GS_NUMPARSE_H
#define GS_NUMPARSE_H

#include <stdint.h>

#include "../common/gs.h"
#include "ops.h" /* GS_HD */

/* ' ', '\t' and '\r' as the host trims them around a field (io/csv_lines.h, gs_lparse_trim). */
GS_HD int gs_numparse_trim(char ch, int trim_sp, int trim_tab)
{
    return ch == '\r' || (ch == ' ' && trim_sp) || (ch == '\t' && trim_tab);
}

/* 10^k exactly for 0 <= k <= 22 (every product is exact below 2^53 * 2^k). */
GS_HD double gs_numparse_pow10(int k)
{
    double p = 1.0;
    for (int i = 0; i < k; i++) p *= 10.0;
    return p;
}

GS_HD float gs_numparse_pow10f(int k)
{
    float p = 1.0f;
    for (int i = 0; i < k; i++) p *= 10.0f;
    return p;
}

/* Digits [p, e) as an unsigned value: 0 and *v, or 1 (not all digits, none, or more than 19). */
GS_HD int gs_numparse_digits(const char *p, const char *e, uint64_t *v)
{
    uint64_t x = 0;
    if (p == e || e - p > 19) return 1;
    for (; p < e; p++) {
        const unsigned d = (unsigned)(*p - '0');
        if (d > 9) return 1;
        x = x * 10 + d;
    }
    *v = x;
    return 0;
}

/* An integer field: 0 and the value (of type t) at out, or 1 (declined). */
GS_HD int gs_numparse_int(const char *p, const char *e, gs_type t, void *out)
{
    const int neg = p < e && *p == '-';
    uint64_t m;
    if (neg && (t == GS_U32 || t == GS_U64)) return 1;
    if (gs_numparse_digits(p + neg, e, &m)) return 1;
    switch (t) {
    case GS_I32:
        if (m > (neg ? 2147483648u : 2147483647u)) return 1;
        *(int32_t *)out = neg ? (int32_t)(0u - (uint32_t)m) : (int32_t)m;
        return 0;
    case GS_I64:
        if (m > (neg ? 9223372036854775808u : 9223372036854775807u)) return 1;
        *(int64_t *)out = neg ? (int64_t)(0u - m) : (int64_t)m;
        return 0;
    case GS_U32:
        if (m > 4294967295u) return 1;
        *(uint32_t *)out = (uint32_t)m;
        return 0;
    default:
        *(uint64_t *)out = m;
        return 0;
    }
}

/* A float field as sign, w (the significant digits as an integer) and a decimal exponent x:
 * 0, or 1 (not the grammar above, or more than 19 significant digits). */
GS_HD int gs_numparse_decimal(const char *p, const char *e, int *neg, uint64_t *w, int *x)
{
    uint64_t m = 0;
    int sig = 0, ex = 0, digits = 0;
    *neg = p < e && *p == '-';
    p += *neg;
    for (; p < e && (unsigned)(*p - '0') <= 9; p++, digits++) {
        if (m == 0 && *p == '0') continue; /* leading zeros are not significant */
        if (++sig > 19) return 1;
        m = m * 10 + (uint64_t)(*p - '0');
    }
    if (!digits) return 1;
    if (p < e && *p == '.') {
        int frac = 0;
        for (p++; p < e && (unsigned)(*p - '0') <= 9; p++, frac++) {
            ex--;
            if (m == 0 && *p == '0') continue;
            if (++sig > 19) return 1;
            m = m * 10 + (uint64_t)(*p - '0');
        }
        if (!frac) return 1;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        int eneg = 0, ed = 0, ev = 0;
        p++;
        if (p < e && (*p == '+' || *p == '-')) eneg = *p++ == '-';
        for (; p < e && (unsigned)(*p - '0') <= 9; p++) {
            if (++ed > 4) return 1;
            ev = ev * 10 + (*p - '0');
        }
        if (!ed) return 1;
        ex += eneg ? -ev : ev;
    }
    if (p != e) return 1;
    *w = m;
    *x = ex;
    return 0;
}

GS_HD int gs_numparse_f64(const char *p, const char *e, double *out)
{
    int neg, x;
    uint64_t w;
    if (gs_numparse_decimal(p, e, &neg, &w, &x)) return 1;
    double v;
    if (w == 0) v = 0.0;
    else if (w > ((uint64_t)1 << 53) || x > 22 || x < -22) return 1;
    else v = x >= 0 ? (double)w * gs_numparse_pow10(x) : (double)w / gs_numparse_pow10(-x);
    *out = neg ? -v : v;
    return 0;
}

GS_HD int gs_numparse_f32(const char *p, const char *e, float *out)
{
    int neg, x;
    uint64_t w;
    if (gs_numparse_decimal(p, e, &neg, &w, &x)) return 1;
    float v;
    if (w == 0) v = 0.0f;
    else if (w > ((uint64_t)1 << 24) || x > 10 || x < -10) return 1;
    else v = x >= 0 ? (float)w * gs_numparse_pow10f(x) : (float)w / gs_numparse_pow10f(-x);
    *out = neg ? -v : v;
    return 0;
}

/* The columns a line's fields go to: n of them, 1-based, in the order their values are written. */
#define GS_NUMPARSE_COLS_MAX 16
typedef struct gs_numparse_cols {
    int n, maxcol;
    int col[GS_NUMPARSE_COLS_MAX];
} gs_numparse_cols;

/* One field [f, fe), trimmed, as a value of type t at out: 0, or 1 (declined). */
GS_HD int gs_numparse_field(const char *f, const char *fe, int trim_sp, int trim_tab, gs_type t, void *out)
{
    while (f < fe && gs_numparse_trim(*f, trim_sp, trim_tab)) f++;
    while (fe > f && gs_numparse_trim(fe[-1], trim_sp, trim_tab)) fe--;
    if (f == fe) return 1; /* empty: missing, or a blank line */
    switch (t) {
    case GS_F64: return gs_numparse_f64(f, fe, (double *)out);
    case GS_F32: return gs_numparse_f32(f, fe, (float *)out);
    default: return gs_numparse_int(f, fe, t, out);
    }
}

/* The line [p, e) (its '\n' excluded): the value of type t of field c->col[j] at out + j values, for
 * every j, 0; or 1 (declined: a field missing or declined). */
GS_HD int gs_numparse_row(const char *p, const char *e, const gs_numparse_cols *c, char delim, int trim_sp,
                          int trim_tab, gs_type t, void *out)
{
    const int es = t == GS_I32 || t == GS_U32 || t == GS_F32 ? 4 : 8;
    for (int k = 1; k <= c->maxcol; k++) {
        const char *f = p;
        while (p < e && *p != delim) p++;
        for (int j = 0; j < c->n; j++)
            if (c->col[j] == k && gs_numparse_field(f, p, trim_sp, trim_tab, t, (char *)out + j * es)) return 1;
        if (k == c->maxcol) break;
        if (p == e) return 1; /* fewer fields than maxcol: missing, or a blank line */
        p++;
    }
    return 0;
}

#endif
