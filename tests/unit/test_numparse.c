/* test_numparse.c - kernels/numparse.h (the device's csv field parser) against io/numfmt.c's
 * gs_num_parse: every field the device takes must be one the host takes, with the same bits, for
 * every type; the everyday forms (prices, integers, short decimals with exponents) must be taken;
 * hostile ones (17 digits, halfway cases, denormals, 1e308, -0, inf/nan spellings, '+', ".5",
 * "5.", 20 digits, out-of-range integers) either agree or are declined; and the line rules (the
 * field's place, trimming, missing fields, blank lines) decline what the host does not read as a
 * value. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../io/io_internal.h"
#include "../../kernels/numparse.h"
#include "check.h"
#include "xorshift.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) { return xorshift64(&rng_state); }

/* Field col of the line [p, e): gs_numparse_row with one column. */
static int line1(const char *p, const char *e, int col, char delim, int trim_sp, int trim_tab, gs_type t, void *out)
{
    const gs_numparse_cols c = {1, col, {col}};
    return gs_numparse_row(p, e, &c, delim, trim_sp, trim_tab, t, out);
}

typedef struct {
    long n, taken, wrong; /* fields, taken by the device, taken with a value the host does not give */
} tally;

static const gs_type types[] = {GS_I32, GS_I64, GS_U32, GS_U64, GS_F32, GS_F64};

/* The field s in a line "x,<s>,y" (column 2) against the host's parse of s. */
static void one(tally *t, gs_type ty, const char *s)
{
    char line[128];
    unsigned char dv[8] = {0}, hv[8] = {0};
    const int len = snprintf(line, sizeof line, "x,%s,y", s);
    const int r = line1(line, line + len, 2, ',', 1, 1, ty, dv);
    t->n++;
    if (r) return;
    t->taken++;
    const int h = gs_num_parse(s, strlen(s), ty, hv);
    if (h != 0 || memcmp(dv, hv, gs_type_size(ty)) != 0) {
        if (t->wrong++ < 5) printf("# %s '%s': device took it, host %d\n", gs_type_name(ty), s, h);
    }
}

static void check_tally(const tally *t, const char *name, int all_taken)
{
    char nm[96];
    snprintf(nm, sizeof nm, "numparse %s: taken values equal the host's", name);
    CHECK(t->wrong == 0 && t->n > 0, nm, "%ld of %ld taken differ", t->wrong, t->n);
    if (all_taken) {
        snprintf(nm, sizeof nm, "numparse %s: every value taken", name);
        CHECK(t->taken == t->n, nm, "%ld of %ld taken", t->taken, t->n);
    }
}

static void everyday(void)
{
    char s[64];
    tally price = {0}, ints = {0}, f32p = {0}, expo = {0};
    for (int i = 0; i < 200000; i++) {
        const uint64_t r = rnd();
        const int dec = (int)(r % 7);
        const double v = (double)(int64_t)(rnd() % 200000000) / 100.0 - 1e6;
        snprintf(s, sizeof s, "%.*f", dec, v);
        one(&price, GS_F64, s);
        snprintf(s, sizeof s, "%.*f", dec < 4 ? dec : 3, v / 1000.0);
        one(&f32p, GS_F32, s);
        snprintf(s, sizeof s, "%lld", (long long)(int64_t)(rnd() >> (r % 40)) * (r & 1 ? -1 : 1));
        one(&ints, GS_I64, s);
        snprintf(s, sizeof s, "%.6e", v);
        one(&expo, GS_F64, s);
    }
    check_tally(&price, "f64 prices, 0-6 decimals", 1);
    check_tally(&f32p, "f32 short decimals", 1);
    check_tally(&ints, "i64 integers", 1);
    check_tally(&expo, "f64 %.6e", 1);
}

static void random_bits(void)
{
    char s[64];
    tally d17 = {0}, d15 = {0}, f9 = {0}, anyint = {0};
    for (int i = 0; i < 200000; i++) {
        double x;
        uint64_t b = rnd();
        memcpy(&x, &b, 8);
        if (isnan(x)) continue;
        snprintf(s, sizeof s, "%.17g", x);
        one(&d17, GS_F64, s);
        snprintf(s, sizeof s, "%.15g", x);
        one(&d15, GS_F64, s);
        float f;
        uint32_t fb = (uint32_t)b;
        memcpy(&f, &fb, 4);
        if (!isnan(f)) {
            snprintf(s, sizeof s, "%.9g", (double)f);
            one(&f9, GS_F32, s);
        }
        snprintf(s, sizeof s, "%lld", (long long)b);
        for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) one(&anyint, types[k], s);
    }
    check_tally(&d17, "f64 random bits %.17g", 0);
    check_tally(&d15, "f64 random bits %.15g", 0);
    check_tally(&f9, "f32 random bits %.9g", 0);
    check_tally(&anyint, "random 64-bit integers, every type", 0);
}

static void hostile(void)
{
    static const char *const fields[] = {
        "9007199254740993", "9007199254740992", "9007199254740991", "-9007199254740993", "4.9e-324", "2.2250738585072014e-308",
        "1e308", "1.7976931348623157e308", "1e309", "-0", "-0.0", "0.000", "0e99", "-0e-99", "inf", "-inf", "nan", "NaN",
        "NA", "+5", ".5", "5.", "1e", "1e+", "--1", "-", "1.2.3", "0x1p3", "12345678901234567890", "1234567890123456789",
        "0.1", "0.3", "1e22", "1e23", "1e-22", "1e-23", "123456789012345678e-5", "3.4028235e38", "16777217", "16777216",
        "1.00000017881393432617187499", "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295",
        "4294967296", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "18446744073709551615",
        "18446744073709551616", "00012", "-00012.500", "1E5", "1e05", "1e00005", "7e-10", "8.589973e9", "1.5e-45",
    };
    tally t = {0};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) one(&t, types[k], fields[i]);
    check_tally(&t, "hostile fields, every type", 0);
    /* what must be declined, whatever the host reads */
    static const char *const no[] = {"inf", "nan", "NA", "+5", ".5", "5.", "1e", "0x1p3", "12345678901234567890", "1e23",
                                     "9007199254740993", ""};
    int declined = 0;
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        double v;
        declined += gs_numparse_f64(no[i], no[i] + strlen(no[i]), &v) != 0;
    }
    CHECK(declined == (int)(sizeof no / sizeof no[0]), "numparse: forms outside the fast path declined", "%d of %zu",
          declined, sizeof no / sizeof no[0]);
    double z = 1;
    CHECK(gs_numparse_f64("-0", "-0" + 2, &z) == 0 && z == 0 && signbit(z), "numparse: -0 is negative zero", "%g", z);
}

/* The field's place in its line, trimming, and lines that give no value. */
static void lines(void)
{
    struct {
        const char *line;
        int col;
        char delim;
        int trim_sp, trim_tab, taken;
        double want;
    } cases[] = {
        {"1,2.5,3", 2, ',', 1, 1, 1, 2.5},     {"1,2.5,3\r", 3, ',', 1, 1, 1, 3},     {" 7 ", 1, ',', 1, 1, 1, 7},
        {"\t7\t,x", 1, ',', 1, 1, 1, 7},       {"a\t 8\t", 2, '\t', 1, 0, 1, 8},      {"a\t8", 2, '\t', 1, 0, 1, 8},
        {"a 9", 2, ' ', 0, 1, 1, 9},           {"1,2", 3, ',', 1, 1, 0, 0},           {"", 1, ',', 1, 1, 0, 0},
        {"\r", 1, ',', 1, 1, 0, 0},            {"1,,3", 2, ',', 1, 1, 0, 0},          {"1, ,3", 2, ',', 1, 1, 0, 0},
        {"1;-4e2;x", 2, ';', 1, 1, 1, -400},   {"5", 1, ',', 1, 1, 1, 5},             {"5 6", 1, ',', 1, 1, 0, 0},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double v = -1;
        const char *l = cases[i].line;
        const int r = line1(l, l + strlen(l), cases[i].col, cases[i].delim, cases[i].trim_sp,
                                       cases[i].trim_tab, GS_F64, &v);
        if ((r == 0) != cases[i].taken || (r == 0 && v != cases[i].want)) {
            bad++;
            printf("# line '%s' col %d: %d %g\n", l, cases[i].col, r, v);
        }
    }
    CHECK(bad == 0, "numparse: the field's place, trimming, missing fields and blank lines", "%d cases wrong", bad);
}

/* Several columns of a line, in the list's order. */
static void rows(void)
{
    const char *l = "1.5,-2,x,7e3, 8 \r";
    gs_numparse_cols c = {3, 5, {5, 1, 4}};
    double v[3] = {0};
    int r = gs_numparse_row(l, l + strlen(l), &c, ',', 1, 1, GS_F64, v);
    CHECK(r == 0 && v[0] == 8 && v[1] == 1.5 && v[2] == 7000, "numparse: columns 5,1,4 in the list's order", "%d %g %g %g",
          r, v[0], v[1], v[2]);
    gs_numparse_cols d = {2, 6, {1, 6}};
    CHECK(gs_numparse_row(l, l + strlen(l), &d, ',', 1, 1, GS_F64, v) == 1, "numparse: a column past the row's fields declined",
          "taken");
    gs_numparse_cols e = {2, 3, {1, 3}};
    CHECK(gs_numparse_row(l, l + strlen(l), &e, ',', 1, 1, GS_F64, v) == 1, "numparse: a field that is no number declined",
          "taken");
    int32_t iv[2] = {0};
    gs_numparse_cols f = {2, 2, {2, 1}};
    const char *m = "-7\t12";
    r = gs_numparse_row(m, m + strlen(m), &f, '\t', 1, 0, GS_I32, iv);
    CHECK(r == 0 && iv[0] == 12 && iv[1] == -7, "numparse: i32 columns 2,1 of a tab-separated line", "%d %d %d", r, iv[0],
          iv[1]);
}

int main(void)
{
    everyday();
    random_bits();
    hostile();
    lines();
    rows();
    return CHECK_DONE();
}
