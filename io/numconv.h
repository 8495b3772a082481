/* numconv.h - the number libraries behind io/numfmt.c, as plain C: fast_float (Eisel-Lemire,
 * correctly rounded, bit for bit what strtod/strtof give) for parsing, {fmt}'s Dragonbox (the
 * shortest decimal that reads back, and of those the nearest) for formatting. io/numconv.cpp
 * is the only C++ in io/; the libraries are header-only there, so the binary gains no library. */
#ifndef GS_NUMCONV_H
#define GS_NUMCONV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* [s, s+len) as a whole: an optional sign ('+' or '-'), then a decimal (digits with an optional
 * '.', an optional e/E exponent) or inf, infinity, nan, nan(chars) in any case. 0 and the
 * correctly rounded value (overflow gives +-inf, underflow 0 or a denormal, as strtod); -1 if the
 * text is anything else (hexadecimal floats included: the caller passes those to the libc). */
int gs_numconv_parse_f64(const char *s, size_t len, double *out);
int gs_numconv_parse_f32(const char *s, size_t len, float *out);

/* The shortest decimal digits of x (finite, > 0) that read back to x, the nearest of those:
 * x's text is .digits (no trailing zeros) times 10^.e10. Returned by value (in registers). */
typedef struct gs_decimal {
    uint64_t digits;
    int e10;
} gs_decimal;
gs_decimal gs_numconv_shortest_f64(double x);
gs_decimal gs_numconv_shortest_f32(float x);

#ifdef __cplusplus
}
#endif
#endif
