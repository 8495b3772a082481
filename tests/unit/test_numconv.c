/* test_numconv.c - the number libraries behind io/numfmt.c (fast_float, {fmt}'s Dragonbox) on
 * hostile values: every parse bit-identical to strtod/strtof (17-digit values, exact halfway
 * cases and their neighbours one digit either side, denormals, the overflow edge, DBL_MIN and
 * FLT_MIN, -0.0, inf/nan spellings, f32 midpoints), and every format the shortest decimal that
 * reads back, the nearest of that length (against the shortest "%.*e" that strtod reads back),
 * in the house layout. tests/cli/test_numconv.sh checks the printed text against Python's repr. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../io/io_internal.h"
#include "check.h"
#include "xorshift.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) { return xorshift64(&rng_state); }

/* ---- parse: the libc is the reference --------------------------------------------------------- */

static int bad_parse;

/* gs_num_parse(s) against strtod and strtof: same bits (NaN: both NaN of the same sign), and
 * invalid exactly when the libc does not consume the whole text (gs_num_parse takes no spaces:
 * the CSV reader trims them, so no case here has any). */
static void parse_both(const char *s)
{
    char *end;
    size_t len = strlen(s);
    double a = 0, b = strtod(s, &end);
    int ok = len && end == s + len;
    int r = gs_num_parse(s, len, GS_F64, &a);
    int same = ok ? r == 0 && (isnan(b) ? isnan(a) && !signbit(a) == !signbit(b) : memcmp(&a, &b, 8) == 0)
                  : r == -1;
    float fa = 0, fb = strtof(s, &end);
    ok = len && end == s + len;
    r = gs_num_parse(s, len, GS_F32, &fa);
    same &= ok ? r == 0 && (isnan(fb) ? isnan(fa) && !signbit(fa) == !signbit(fb) : memcmp(&fa, &fb, 4) == 0)
               : r == -1;
    if (!same && bad_parse++ < 8) printf("# parse mismatch '%.80s'%s\n", s, len > 80 ? "..." : "");
}

/* The exact decimal expansion of a value held exactly by a long double (a double or a midpoint
 * of two doubles: 64-bit mantissa), and the same cut one digit short, rounded up and down in
 * its last digit: the inputs on both sides of a rounding boundary. */
static void parse_around(long double m)
{
    char buf[1200];
    parse_both((snprintf(buf, sizeof buf, "%.1100Le", m), buf)); /* exact (trailing zeros) */
    for (int p = 15; p <= 40; p += 1 + (int)(rnd() % 5)) {
        snprintf(buf, sizeof buf, "%.*Le", p, m);
        parse_both(buf);
        /* the next decimal of p+1 digits up: bump the last digit before the exponent */
        char *e = strchr(buf, 'e');
        if (e && e[-1] < '9') {
            e[-1]++;
            parse_both(buf);
            e[-1] -= 2;
            if (e[-1] >= '0') parse_both(buf);
        }
    }
}

static void test_parse(void)
{
    static const char *cases[] = {
        "1e308", "-1e308", "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
        "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587"
        "207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711"
        "531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093"
        "04222702.0",
        "2.2250738585072014e-308", "2.2250738585072011e-308", "2.2250738585072012e-308", "2.225073858507201e-308",
        "4.9e-324", "5e-324", "2.4703282292062327e-324", "2.4703282292062328e-324", "2.47032822920623272e-324",
        "1e-324", "1e-400", "1e400", "-1e400", "1e-45", "1.4e-45", "7e-46", "7.006492321624086e-46",
        "1.17549435e-38", "1.1754943e-38", "3.4028235e38", "3.40282357e38", "3.4028236e38", "3.5e38",
        "0", "-0", "+0", "-0.0", "-.0", "-0e999", "0e-999", "-0.000e+0", "00000", "-000.000",
        "inf", "INF", "Inf", "+inf", "-inf", "infinity", "INFINITY", "-Infinity", "+InFiNiTy", "nan", "NaN", "NAN",
        "-nan", "+nan", "nan()", "nan(123)", "nan(abc_1)", "-nan(x)", "nan(", "nan(1", "nan(a b)", "infinit",
        "infinityy", "in", "na", "nana", "inf0", "-", "+", "", ".", "-.", "e", "e5", "1e", "1e+", "1e-", "+-1",
        "-+1", "--1", "++1", "1_0", "1,5", "1..2", "1.2.3", "0x10", "0x1p-2", "-0X1.8P+1", "0x",
        "0x1.fffffffffffffp1023", "0x1p-1074", "0.1", "0.2", "0.3", "1e23", "8.988465674311579e307",
        "9007199254740993", "9007199254740992.5", "9007199254740993.000000000000000000001",
        "4503599627370496.5", "4503599627370497.5", "123456789012345678901234567890", "1e22", "1e-22",
        "9999999999999999999", "99999999999999999999", "1e5000000000000000000", "1e-5000000000000000000",
        "7.038531e-26", "16777217", "16777216.5", "33554431", "1.00000005960464477539062500001",
        "1.000000059604644775390625", "0.000000000000000000000000000000001234",
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) parse_both(cases[i]);
    CHECK(bad_parse == 0, "parse_hostile_cases", "%d mismatches", bad_parse);

    /* 17-digit (and 16, 18) renderings of random doubles of every magnitude */
    char buf[128];
    bad_parse = 0;
    for (int i = 0; i < 200000; i++) {
        uint64_t u = rnd() & 0x7fffffffffffffffull;
        double d;
        memcpy(&d, &u, 8);
        if (!isfinite(d)) continue;
        snprintf(buf, sizeof buf, "%.*g", 16 + (int)(rnd() % 3), rnd() % 2 ? -d : d);
        parse_both(buf);
    }
    CHECK(bad_parse == 0, "parse_17_digit_random", "%d mismatches", bad_parse);

    /* Exact midpoints between neighbouring doubles (normal and denormal) and the decimals one
     * unit either side of their roundings */
    bad_parse = 0;
    for (int i = 0; i < 3000; i++) {
        uint64_t u = rnd() & 0x7fffffffffffffffull;
        if (i % 3 == 0) u &= 0x000fffffffffffffull; /* denormal */
        if (i % 7 == 0) u = (uint64_t)(0x7fe - (rnd() % 4)) << 52 | (rnd() & 0x000fffffffffffffull); /* ~1e308 */
        double d, n;
        memcpy(&d, &u, 8);
        if (!isfinite(d)) continue;
        n = nextafter(d, INFINITY);
        if (!isfinite(n)) continue;
        parse_around(((long double)d + (long double)n) / 2);
        parse_around((long double)d);
    }
    parse_around((long double)DBL_MIN);
    parse_around(((long double)DBL_MIN + (long double)nextafter(DBL_MIN, 0)) / 2);
    parse_around((long double)DBL_TRUE_MIN / 2);
    CHECK(bad_parse == 0, "parse_f64_halfway_and_denormal", "%d mismatches", bad_parse);

    /* f32: exact midpoints between neighbouring floats (a double holds them), denormals, FLT_MIN */
    bad_parse = 0;
    for (int i = 0; i < 20000; i++) {
        uint32_t u = (uint32_t)rnd() & 0x7fffffffu;
        if (i % 3 == 0) u &= 0x007fffffu;
        float f, g;
        memcpy(&f, &u, 4);
        if (!isfinite(f)) continue;
        g = nextafterf(f, INFINITY);
        double m = ((double)f + (double)g) / 2;
        snprintf(buf, sizeof buf, "%.*e", 6 + (int)(rnd() % 20), m);
        parse_both(buf);
        char big[400];
        snprintf(big, sizeof big, "%.200e", m); /* exact */
        parse_both(big);
        snprintf(buf, sizeof buf, "%.9g", (double)f);
        parse_both(buf);
    }
    parse_around((long double)FLT_MIN);
    parse_around((long double)FLT_MAX);
    parse_around(((long double)FLT_MAX + ldexpl(1, 128)) / 2); /* where strtof starts giving inf */
    CHECK(bad_parse == 0, "parse_f32_halfway_and_denormal", "%d mismatches", bad_parse);

    /* Prices: short decimals, the common case */
    bad_parse = 0;
    for (int i = 0; i < 200000; i++) {
        snprintf(buf, sizeof buf, "%s%u.%0*u", rnd() % 5 ? "" : "-", (unsigned)(rnd() % 100000), 4,
                 (unsigned)(rnd() % 10000));
        parse_both(buf);
    }
    CHECK(bad_parse == 0, "parse_short_decimals", "%d mismatches", bad_parse);
}

/* ---- format: shortest, nearest, read back ------------------------------------------------------ */

/* The shortest "%.*e" that strtod (strtof) reads back to x: its digit count, and the text. */
static int shortest_ref(double x, int is32, char *txt)
{
    for (int p = 1; p <= 17; p++) {
        snprintf(txt, 64, "%.*e", p - 1, x);
        if (is32 ? strtof(txt, NULL) == (float)x : strtod(txt, NULL) == x) return p;
    }
    return 17;
}

/* Significant digits of a formatted number (between the first and last non-zero digit). */
static int sig_digits(const char *s)
{
    const char *end = s + strcspn(s, "eE"), *first = NULL, *last = NULL;
    for (const char *p = s; p < end; p++)
        if (*p >= '1' && *p <= '9') {
            if (!first) first = p;
            last = p;
        }
    if (!first) return 1;
    int n = 0;
    for (const char *p = first; p <= last; p++) n += *p >= '0' && *p <= '9';
    return n;
}

/* The house layout (ax: the printed decimal's magnitude): [-]digits with at most one '.', no trailing zeros after a '.', no leading
 * zeros before a digit other than "0."; exponent form "d[.ddd]e[+-]XX" outside 1e-4..1e16. */
static int layout_ok(const char *s, double ax)
{
    if (*s == '-') s++;
    const char *e = strchr(s, 'e');
    int sci = ax != 0 && (ax < 1e-4 || ax >= 1e16);
    if (sci != (e != NULL)) return 0;
    if (e) {
        if (!(s[0] >= '1' && s[0] <= '9')) return 0;
        if (s[1] != 'e' && (s[1] != '.' || e[-1] == '0' || e - s < 3)) return 0;
        if ((e[1] != '+' && e[1] != '-') || strlen(e + 2) < 2 || (strlen(e + 2) > 2 && e[2] == '0')) return 0;
        return 1;
    }
    const char *dot = strchr(s, '.');
    if (s[0] == '0' && s[1] && s[1] != '.') return 0;
    if (dot && (dot[1] == 0 || s[strlen(s) - 1] == '0')) return 0;
    return 1;
}

static int bad_fmt;

static void format_one(double x, int is32)
{
    char got[64], ref[64];
    float f = (float)x;
    int n = is32 ? gs_num_format(got, GS_F32, &f) : gs_num_format(got, GS_F64, &x);
    int ok = n > 0 && n < 32 && (int)strlen(got) == n;
    if (ok && isnan(x)) ok = strcmp(got, "nan") == 0;
    else if (ok && isinf(x)) ok = strcmp(got, x > 0 ? "inf" : "-inf") == 0;
    else if (ok && x == 0) ok = strcmp(got, signbit(x) ? "-0" : "0") == 0;
    else if (ok) {
        /* reads back (through the libc), no longer than the shortest %.*e; when as long, the
         * same value (the correctly rounded one of that length is the nearest) */
        double back = is32 ? (double)strtof(got, NULL) : strtod(got, NULL);
        int p = shortest_ref(is32 ? (double)f : x, is32, ref);
        int nd = sig_digits(got);
        ok = back == (is32 ? (double)f : x) && nd <= p && layout_ok(got, fabs(strtod(got, NULL)));
        if (ok && nd == p) ok = (is32 ? (double)strtof(ref, NULL) == (double)strtof(got, NULL) : strtod(ref, NULL) == back) &&
                                 sig_digits(ref) == nd;
        /* one digit fewer never reads back: a last check of "shortest" where %.*e misses */
        if (ok && nd < p) ok = nd == p - 1;
    }
    if (!ok && bad_fmt++ < 8) printf("# format %s %.17g -> '%s' (ref '%s')\n", is32 ? "f32" : "f64", x, got, ref);
}

static void test_format(void)
{
    static const double specials[] = {0.0, -0.0, NAN, -NAN, INFINITY, -INFINITY, DBL_MIN, -DBL_MIN, DBL_MAX,
                                      DBL_TRUE_MIN, DBL_EPSILON, 1e308, 1e-308, 1e16, 1e15, 9999999999999998.0,
                                      1e-4, 9.999999999999999e-5, 0.1, 0.3, 1.0, 2.0, 1e23, 5e-324, 123.456,
                                      9007199254740993.0, 0.30000000000000004, 2.2250738585072009e-308};
    for (size_t i = 0; i < sizeof specials / sizeof *specials; i++) format_one(specials[i], 0);
    static const float fspecials[] = {0.0f, -0.0f, FLT_MIN, FLT_MAX, FLT_TRUE_MIN, FLT_EPSILON, 1e-4f, 1e16f,
                                      1e15f, 0.1f, 16777216.0f, 3.4028235e38f, 7.038531e-26f, 1e-45f};
    for (size_t i = 0; i < sizeof fspecials / sizeof *fspecials; i++) format_one(fspecials[i], 1);
    CHECK(bad_fmt == 0, "format_specials", "%d bad", bad_fmt);

    bad_fmt = 0;
    for (int i = 0; i < 300000; i++) {
        uint64_t u = rnd();
        double d;
        switch (i % 6) {
        case 0: memcpy(&d, &u, 8); break;                                      /* any bits */
        case 1: u &= 0x800fffffffffffffull, memcpy(&d, &u, 8); break;          /* denormal */
        case 2: u = (u & 0x800fffffffffffffull) | (1ull << 52), memcpy(&d, &u, 8); break; /* near DBL_MIN */
        case 3: d = (double)(int64_t)(u >> (u % 60)); break;                   /* integers */
        case 4: d = (double)(int64_t)(u % 10000000) / 10000; break;            /* prices */
        default: d = ldexp(1.0, (int)(u % 2098) - 1074); break;                /* powers of two */
        }
        format_one(d, 0);
    }
    CHECK(bad_fmt == 0, "format_f64_shortest_nearest", "%d bad", bad_fmt);

    bad_fmt = 0;
    for (int i = 0; i < 300000; i++) {
        uint32_t u = (uint32_t)rnd();
        float f;
        switch (i % 4) {
        case 0: memcpy(&f, &u, 4); break;
        case 1: u &= 0x807fffffu, memcpy(&f, &u, 4); break;
        case 2: f = (float)(int32_t)(u % 10000000) / 10000; break;
        default: f = ldexpf(1.0f, (int)(u % 277) - 149); break;
        }
        format_one((double)f, 1);
    }
    CHECK(bad_fmt == 0, "format_f32_shortest_nearest", "%d bad", bad_fmt);
}

int main(void)
{
    test_parse();
    test_format();
    return CHECK_DONE();
}
