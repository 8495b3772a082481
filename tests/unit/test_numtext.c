/* test_numtext.c - kernels/numtext.h (the device's number text) against io/numfmt.c's
 * gs_num_format, byte for byte: random bit patterns of doubles and floats (every result that is
 * not -1 equal, none -1 between 1e-5 and 1e15), values of everyday data (prices, fractions,
 * uniform and log-uniform ranges), every power of two and its neighbours (the asymmetric
 * interval), neighbours of powers of ten, integers up to 2^53, subnormals, the special values, and
 * integers of every type; then the exact range the device formats, found per binary exponent. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../io/io_internal.h"
#include "../../kernels/numtext.h"
#include "check.h"
#include "xorshift.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static uint64_t rnd(void) { return xorshift64(&rng_state); }
static double unit(void) { return (double)(rnd() >> 11) * 0x1p-53; } /* [0, 1) */

/* Results of one class of values. */
typedef struct {
    long n, bad, host, host_core; /* values, mismatches, -1 results, -1 results in [1e-5, 1e15] */
} tally;

static void report_bad(const char *what, const char *got, int gn, const char *want, int wn)
{
    printf("# %s: numtext '%.*s' (%d), gs_num_format '%.*s' (%d)\n", what, gn < 0 ? 0 : gn, got, gn, wn, want, wn);
}

static void one_f64(tally *t, double x)
{
    char a[GS_NUMTEXT_MAX + 8], b[GS_NUM_CHARS];
    memset(a, '#', sizeof a);
    const int n = gs_numtext_f64(a, x), w = gs_num_format(b, GS_F64, &x);
    t->n++;
    if (n < 0) {
        const double ax = fabs(x);
        t->host++;
        if (n != -1 || isnan(x) || isinf(x) || x == 0) t->bad++;
        if (ax >= 1e-5 && ax <= 1e15) t->host_core++;
        return;
    }
    if (n != w || n > gs_numtext_bound(GS_F64) || memcmp(a, b, (size_t)w) != 0 || a[n] != '#') {
        if (t->bad++ < 5) {
            char what[64];
            snprintf(what, sizeof what, "f64 %a", x);
            report_bad(what, a, n, b, w);
        }
    }
}

static void one_f32(tally *t, float x)
{
    char a[GS_NUMTEXT_MAX + 8], b[GS_NUM_CHARS];
    memset(a, '#', sizeof a);
    const int n = gs_numtext_f32(a, x), w = gs_num_format(b, GS_F32, &x);
    t->n++;
    if (n < 0) {
        const float ax = fabsf(x);
        t->host++;
        if (n != -1 || isnan(x) || isinf(x) || x == 0) t->bad++;
        if (ax >= 1e-5f && ax <= 1e15f) t->host_core++;
        return;
    }
    if (n != w || n > gs_numtext_bound(GS_F32) || memcmp(a, b, (size_t)w) != 0 || a[n] != '#') {
        if (t->bad++ < 5) {
            char what[64];
            snprintf(what, sizeof what, "f32 %a", (double)x);
            report_bad(what, a, n, b, w);
        }
    }
}

static double f64_of(uint64_t u)
{
    double d;
    memcpy(&d, &u, 8);
    return d;
}
static float f32_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* A class passes when nothing differs and (where the class lies inside [1e-5, 1e15] or
 * host_core_ok is 0) nothing in that range went to the host. */
static void verdict(const char *name, const tally *t)
{
    printf("# %s: %ld values, %ld left to the host (%ld of them in [1e-5, 1e15])\n", name, t->n, t->host,
           t->host_core);
    CHECK(t->bad == 0 && t->host_core == 0 && t->n > 0, name, "%ld mismatches, %ld in [1e-5, 1e15] left to the host",
          t->bad, t->host_core);
}

#define N_RANDOM 5000000L

static void test_random_bits(void)
{
    tally t = {0};
    for (long i = 0; i < N_RANDOM; i++) one_f64(&t, f64_of(rnd()));
    verdict("f64_random_bits", &t);
    tally f = {0};
    for (long i = 0; i < N_RANDOM; i++) one_f32(&f, f32_of((uint32_t)(rnd() >> 32)));
    verdict("f32_random_bits", &f);
    /* random bits with the exponent in the range every value there is formatted */
    tally c = {0};
    for (long i = 0; i < N_RANDOM / 2; i++) {
        const uint64_t ef = 1023 - 16 + rnd() % 66; /* 2^-16 .. 2^49 */
        one_f64(&c, f64_of((rnd() & 0x800fffffffffffffull) | ef << 52));
    }
    verdict("f64_random_bits_core", &c);
    CHECK(c.host == 0, "f64_core_never_host", "%ld of 2^-16..2^50 left to the host", c.host);
}

static void test_typical(void)
{
    tally t = {0}, f = {0};
    for (long i = 0; i < N_RANDOM / 3; i++) {
        const double price = (double)(rnd() % 100000000) / 10000; /* 1234.5678 */
        const double frac = unit();                                 /* 0.0565489557246375 */
        const double uni = 1e-3 + unit() * (1e6 - 1e-3);
        const double lg = pow(10, -5 + 20 * unit()); /* log-uniform 1e-5 .. 1e15 */
        const double cents = (double)(int64_t)(rnd() % 2000000 - 1000000) / 100;
        const double xs[] = {price, frac, uni, lg, cents, -price, -lg};
        for (int k = 0; k < 7; k++) {
            one_f64(&t, xs[k]);
            one_f32(&f, (float)xs[k]);
        }
    }
    const double fixed[] = {123.4567, 0.0565489557246375, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 100, 1e15, 1e16 - 2,
                            1e-4, 1e-5, 9.999999999999999e-5, 0.0001, 123456789012345.67, 1234567890123456.7,
                            5e-324, 1e23, 9007199254740993.0};
    for (size_t k = 0; k < sizeof fixed / sizeof *fixed; k++) {
        one_f64(&t, fixed[k]);
        one_f32(&f, (float)fixed[k]);
    }
    verdict("f64_typical", &t);
    verdict("f32_typical", &f);
}

/* Every power of two and its neighbours: the asymmetric interval below each. */
static void test_powers_of_two(void)
{
    tally t = {0}, f = {0};
    for (int e = -1074; e <= 1023; e++) {
        const double p = ldexp(1, e);
        one_f64(&t, p);
        one_f64(&t, nextafter(p, 0));
        one_f64(&t, nextafter(p, INFINITY));
        one_f64(&t, -p);
    }
    for (int e = -149; e <= 127; e++) {
        const float p = ldexpf(1, e);
        one_f32(&f, p);
        one_f32(&f, nextafterf(p, 0));
        one_f32(&f, nextafterf(p, INFINITY));
        one_f32(&f, -p);
    }
    verdict("f64_powers_of_two", &t);
    verdict("f32_powers_of_two", &f);
}

/* 10^p and the values a few steps either side (where the digit count changes). */
static void test_powers_of_ten(void)
{
    tally t = {0}, f = {0};
    for (int p = -40; p <= 60; p++) {
        char s[16];
        snprintf(s, sizeof s, "1e%d", p);
        double d;
        float g;
        if (gs_num_parse(s, strlen(s), GS_F64, &d) || gs_num_parse(s, strlen(s), GS_F32, &g)) continue;
        double up = d, dn = d;
        float fu = g, fd = g;
        one_f64(&t, d);
        one_f32(&f, g);
        for (int k = 0; k < 8; k++) {
            one_f64(&t, up = nextafter(up, INFINITY));
            one_f64(&t, dn = nextafter(dn, 0));
            one_f32(&f, fu = nextafterf(fu, INFINITY));
            one_f32(&f, fd = nextafterf(fd, 0));
        }
    }
    verdict("f64_powers_of_ten", &t);
    verdict("f32_powers_of_ten", &f);
}

static void test_integers_as_floats(void)
{
    tally t = {0}, f = {0};
    for (long i = 0; i < N_RANDOM / 3; i++) {
        const int bits = 1 + (int)(rnd() % 53);
        const uint64_t v = rnd() >> (64 - bits);
        one_f64(&t, (double)v);
        one_f64(&t, -(double)v);
        one_f32(&f, (float)(v >> (bits > 24 ? bits - 24 : 0)));
    }
    for (uint64_t v = 0; v < 100000; v++) one_f64(&t, (double)v), one_f32(&f, (float)v);
    one_f64(&t, 9007199254740992.0);
    one_f64(&t, 9007199254740991.0);
    one_f32(&f, 16777216.0f);
    one_f32(&f, 16777215.0f);
    verdict("f64_integers", &t);
    verdict("f32_integers", &f);
}

static void test_subnormals_and_specials(void)
{
    tally t = {0}, f = {0};
    for (long i = 0; i < 200000; i++) {
        one_f64(&t, f64_of(rnd() & 0x800fffffffffffffull));
        one_f32(&f, f32_of((uint32_t)rnd() & 0x807fffffu));
    }
    verdict("f64_subnormals", &t); /* -1 or exact; never inside [1e-5, 1e15] */
    verdict("f32_subnormals", &f);

    tally s = {0}, g = {0};
    const double sp[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN, DBL_MAX, -DBL_MAX, DBL_MIN, DBL_TRUE_MIN,
                         FLT_MAX, FLT_MIN, 1.0, -1.0};
    for (size_t k = 0; k < sizeof sp / sizeof *sp; k++) {
        one_f64(&s, sp[k]);
        one_f32(&g, (float)sp[k]);
    }
    verdict("f64_specials", &s); /* the tally counts -1 for nan/inf/0 as a mismatch */
    verdict("f32_specials", &g);
    char a[GS_NUMTEXT_MAX];
    int n0 = gs_numtext_f64(a, -0.0);
    CHECK(n0 == 2 && memcmp(a, "-0", 2) == 0, "f64_minus_zero", "'%.*s'", n0 < 0 ? 0 : n0, a);
    n0 = gs_numtext_f32(a, -INFINITY);
    CHECK(n0 == 4 && memcmp(a, "-inf", 4) == 0, "f32_minus_inf", "'%.*s'", n0 < 0 ? 0 : n0, a);
    n0 = gs_numtext_f64(a, -NAN);
    CHECK(n0 == 3 && memcmp(a, "nan", 3) == 0, "f64_nan_no_sign", "'%.*s'", n0 < 0 ? 0 : n0, a);
}

/* Integers of the four types against gs_num_format. */
static int int_bad;
static void one_int(gs_type ty, const void *v, int n, const char *a)
{
    char b[GS_NUM_CHARS];
    const int w = gs_num_format(b, ty, v);
    if ((n != w || n > gs_numtext_bound(ty) || memcmp(a, b, (size_t)w) != 0) && int_bad++ < 5)
        report_bad("integer", a, n, b, w);
}
static void int_all(uint64_t u)
{
    char a[GS_NUMTEXT_MAX];
    const int64_t i = (int64_t)u;
    const int32_t i32 = (int32_t)u;
    const uint32_t u32 = (uint32_t)u;
    one_int(GS_U64, &u, gs_numtext_u64(a, u), a);
    one_int(GS_I64, &i, gs_numtext_i64(a, i), a);
    one_int(GS_I32, &i32, gs_numtext_i64(a, i32), a);
    one_int(GS_U32, &u32, gs_numtext_u64(a, u32), a);
}

static void test_integers(void)
{
    for (long k = 0; k < N_RANDOM / 2; k++) int_all(rnd() >> (rnd() % 64));
    uint64_t p = 1;
    for (int k = 0; k < 20; k++, p *= 10) {
        int_all(p), int_all(p - 1), int_all(p + 1), int_all(0 - p), int_all(0 - p + 1);
    }
    const uint64_t edges[] = {0, 9, 10, 99, 100, UINT64_MAX, (uint64_t)INT64_MIN, (uint64_t)INT64_MAX,
                              UINT32_MAX, (uint64_t)INT32_MIN, INT32_MAX, 0xffffffffull + 1};
    for (size_t k = 0; k < sizeof edges / sizeof *edges; k++) int_all(edges[k]);
    CHECK(int_bad == 0, "integers_all_types", "%d mismatches", int_bad);
    char a[GS_NUMTEXT_MAX];
    int n = gs_numtext_i64(a, INT64_MIN);
    CHECK(n == 20 && memcmp(a, "-9223372036854775808", 20) == 0, "i64_min", "'%.*s'", n, a);
    n = gs_numtext_u64(a, UINT64_MAX);
    CHECK(n == 20 && memcmp(a, "18446744073709551615", 20) == 0, "u64_max", "'%.*s'", n, a);
}

/* The range formatted on the device, per binary exponent E (x in [2^E, 2^(E+1))): the largest and
 * smallest m and random ones. It must be one run of exponents, every value of it done and none
 * outside: the run the header's comment states. */
static void range_of(const char *name, int nb, int emin, int emax, int want_first, int want_last)
{
    int first = 99999, last = -99999, holes = 0, partial = 0;
    for (int E = emin; E <= emax; E++) {
        int done = 0, total = 0;
        for (int k = 0; k < 40; k++) {
            const uint64_t m = k == 0 ? (uint64_t)1 << (nb - 1)
                               : k == 1 ? ((uint64_t)1 << nb) - 1
                                        : (rnd() >> (64 - (nb - 1))) | (uint64_t)1 << (nb - 1);
            char a[GS_NUMTEXT_MAX];
            const int n = nb == 53 ? gs_numtext_f64(a, ldexp((double)m, E - 52))
                                   : gs_numtext_f32(a, ldexpf((float)m, E - 23));
            done += n >= 0;
            total++;
        }
        if (done && done < total) printf("# %s: 2^%d partly done\n", name, E), partial++;
        if (done == total) {
            if (last >= first && E != last + 1) holes++;
            if (E < first) first = E;
            last = E;
        }
    }
    printf("# %s: formatted on the device for 2^%d <= |x| < 2^%d (%g .. %g)\n", name, first, last + 1,
           ldexp(1, first), ldexp(1, last + 1));
    CHECK(holes == 0 && partial == 0 && first == want_first && last == want_last, name,
          "exponents %d..%d (numtext.h says %d..%d), %d holes, %d partly done", first, last, want_first, want_last,
          holes, partial);
}

int main(void)
{
    test_random_bits();
    test_typical();
    test_powers_of_two();
    test_powers_of_ten();
    test_integers_as_floats();
    test_subnormals_and_specials();
    test_integers();
    range_of("f64_device_range", 53, -1022, 1023, -49, 157);
    range_of("f32_device_range", 24, -126, 127, -116, 127);
    return CHECK_DONE();
}
