/* test_csv.c - numbers (io/numfmt.c), csv (io/csv.c) and text (io/text.c), on in-memory byte
 * sources and sinks: exact parsing against the libc, bit-exact format round trips, the CSV
 * dialect (header, columns, delimiters, quotes, CRLF, blank lines), error messages with exact
 * line and field numbers across block and piece boundaries, skip_bad, and identical results
 * for 1 and many threads. */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/pool.h"
#include "../../io/csv_lines.h"
#include "check.h"
#include "xorshift.h"

/* ---- in-memory source and sink -------------------------------------------------------------- */

typedef struct mem_src {
    gs_bsrc base;
    const char *data;
    size_t len, pos;
    size_t step; /* at most this many bytes per read (short reads), 0 = any */
} mem_src;

static size_t src_fail_at; /* when set, a read at or past this offset fails (an I/O error) */

static int mem_read(gs_bsrc *s, void *buf, size_t cap, size_t *got, gs_status *st)
{
    mem_src *m = (mem_src *)s;
    size_t n = m->len - m->pos;
    if (src_fail_at && m->pos >= src_fail_at) return gs_fail(st, GS_EDATA, "%s: read failed", s->name);
    if (n > cap) n = cap;
    if (m->step && n > m->step) n = m->step;
    if (n) memcpy(buf, m->data + m->pos, n);
    m->pos += n;
    s->consumed += n;
    *got = n;
    return GS_OK;
}

static void mem_close(gs_bsrc *s) { free(s); }

static gs_bsrc *src_new(const char *data, size_t len, size_t step, const char *name)
{
    mem_src *m = calloc(1, sizeof *m);
    m->base.read = mem_read;
    m->base.close = mem_close;
    m->base.name = name;
    m->base.size = (int64_t)len;
    m->data = data;
    m->len = len;
    m->step = step;
    return &m->base;
}

typedef struct membuf {
    char *p;
    size_t n, cap;
    int closed, aborted;
} membuf;

typedef struct mem_sink {
    gs_bsink base;
    membuf *out;
} mem_sink;

static int sink_write(gs_bsink *k, const void *buf, size_t n, gs_status *st)
{
    membuf *b = ((mem_sink *)k)->out;
    (void)st;
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, buf, n);
    b->n += n;
    b->p[b->n] = 0;
    k->written += n;
    return GS_OK;
}

static int sink_close(gs_bsink *k, gs_status *st)
{
    (void)st;
    ((mem_sink *)k)->out->closed = 1;
    free(k);
    return GS_OK;
}

static void sink_abort(gs_bsink *k)
{
    ((mem_sink *)k)->out->aborted = 1;
    free(k);
}

static gs_bsink *sink_new(membuf *out)
{
    mem_sink *m = calloc(1, sizeof *m);
    memset(out, 0, sizeof *out);
    m->base.write = sink_write;
    m->base.close = sink_close;
    m->base.abort = sink_abort;
    m->base.name = "out.csv";
    m->out = out;
    return &m->base;
}

/* ---- helpers ------------------------------------------------------------------------------- */

static int force_threads; /* when set, decode() uses this many threads whatever the options say */
static size_t force_block; /* when set, decode() parses blocks of this many bytes */
static int big_reads;     /* when set, decode() asks for 4M values a read (parallel copy-out) */

typedef struct dec_result {
    int rc;
    gs_status st;
    char *vals;
    size_t n;
    uint64_t skipped;
    char colname[64];
} dec_result;

static gs_read_opts ropts(gs_type t)
{
    gs_read_opts o;
    memset(&o, 0, sizeof o);
    o.format = GS_FMT_CSV;
    o.type = t;
    o.threads = 4;
    return o;
}

/* Decode all of data; reads with a varying capacity to cross piece boundaries. */
static dec_result decode(const char *data, size_t len, const gs_read_opts *o, int text, size_t step)
{
    dec_result r;
    gs_decoder *d = NULL;
    gs_read_opts oo = *o;
    if (force_threads) oo.threads = force_threads;
    if (force_block) oo.block_size = force_block;
    o = &oo;
    memset(&r, 0, sizeof r);
    gs_bsrc *src = src_new(data, len, step, text ? "in.txt" : "in.csv");
    size_t es = gs_type_size(o->type), cap = 0;
    r.rc = text ? gs_dec_open_text(&d, src, o, &r.st) : gs_dec_open_csv(&d, src, o, &r.st);
    if (r.rc) {
        src->close(src);
        return r;
    }
    if (d->colname) snprintf(r.colname, sizeof r.colname, "%s", d->colname);
    for (size_t want = 7;; want = want * 3 % 100003 + 1) {
        size_t got = 0;
        if (big_reads) want = (size_t)1 << 22;
        if (r.n + want > cap) {
            cap = (r.n + want) * 2;
            r.vals = realloc(r.vals, cap * es);
        }
        r.rc = d->read(d, r.vals + r.n * es, want, &got, &r.st);
        if (r.rc || got == 0) break;
        r.n += got;
    }
    r.skipped = d->skipped;
    d->close(d);
    return r;
}

static dec_result decode_s(const char *s, const gs_read_opts *o) { return decode(s, strlen(s), o, 0, 0); }

static int same_f64(const dec_result *r, const double *want, size_t n)
{
    if (r->rc || r->n != n) return 0;
    return memcmp(r->vals, want, n * sizeof *want) == 0;
}

/* Decodes the csv text s under o; checks that it fails with GS_EDATA and exactly the message msg. */
static void check_csv_error(const char *name, const char *s, const gs_read_opts *o, const char *msg)
{
    dec_result r = decode_s(s, o);
    CHECK(r.rc == GS_EDATA && !strcmp(r.st.msg, msg), name, "rc %d msg %s", r.rc, r.st.msg);
    free(r.vals);
}

/* Encode n values; returns the text (caller frees). */
static char *encode(gs_type t, int ncols, const void *vals, size_t n, const char *colnames, char delim, int text,
                    int threads, size_t *outlen)
{
    membuf b;
    gs_status st = {0};
    gs_encoder *e = NULL;
    gs_write_opts o;
    memset(&o, 0, sizeof o);
    o.format = text ? GS_FMT_TEXT : GS_FMT_CSV;
    o.type = t;
    o.ncols = ncols;
    o.rows = -1;
    o.colnames = colnames;
    o.delim = delim;
    o.threads = threads;
    gs_bsink *k = sink_new(&b);
    int rc = text ? gs_enc_open_text(&e, k, &o, &st) : gs_enc_open_csv(&e, k, &o, &st);
    if (!rc) {
        /* several writes of uneven size */
        size_t es = gs_type_size(t), done = 0, step = 1;
        while (!rc && done < n) {
            size_t m = (n - done) < step * (size_t)ncols ? n - done : step * (size_t)ncols;
            rc = e->write(e, (const char *)vals + done * es, m, &st);
            done += m;
            step = step * 7 + 3;
        }
        rc = rc ? (e->abort(e), rc) : e->close(e, &st);
    } else
        k->abort(k);
    if (rc) {
        printf("# encode failed: %s\n", st.msg);
        free(b.p);
        return NULL;
    }
    if (!b.p) b.p = calloc(1, 1);
    if (outlen) *outlen = b.n;
    return b.p;
}

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void) { return xorshift64(&rng_state); }

/* ---- gs_num_parse against the libc --------------------------------------------------------- */

/* Compare gs_num_parse with strtod/strtof on s; returns 1 when equal (both invalid counts). */
static int parse_matches_libc(const char *s, gs_type t)
{
    char *end;
    size_t len = strlen(s);
    union {
        double f64;
        float f32;
    } a = {0}, b; /* ours, the libc's: the member of type t */
    if (t == GS_F64) b.f64 = strtod(s, &end);
    else b.f32 = strtof(s, &end);
    int ok_libc = len && end == s + len;
    int r = gs_num_parse(s, len, t, &a);
    if (!ok_libc) return r == -1;
    if (r != 0) return 0;
    int both_nan = t == GS_F64 ? isnan(a.f64) && isnan(b.f64) : isnan(a.f32) && isnan(b.f32);
    return both_nan || memcmp(&a, &b, t == GS_F64 ? sizeof a.f64 : sizeof a.f32) == 0;
}

static void random_decimal(char *buf)
{
    char *o = buf;
    int nd = 1 + (int)(rnd() % 25);
    if (rnd() % 4 == 0) *o++ = rnd() % 2 ? '-' : '+';
    int dot = (int)(rnd() % (unsigned)(nd + 2)) - 1; /* -1: no point */
    for (int i = 0; i < nd; i++) {
        if (i == dot) *o++ = '.';
        /* leading and trailing zeros are interesting */
        *o++ = (char)('0' + (rnd() % 3 == 0 ? 0 : rnd() % 10));
    }
    if (dot == nd) *o++ = '.';
    if (rnd() % 3) {
        int range = rnd() % 2 ? 40 : 700;
        o += sprintf(o, "%c%d", rnd() % 2 ? 'e' : 'E', (int)(rnd() % (unsigned)range) - range / 2);
    }
    *o = 0;
}

static void test_parse(void)
{
    static const char *f_cases[] = {
        "0.1", "1e23", "2.2250738585072011e-308", "2.2250738585072014e-308", "9007199254740993",
        "9007199254740992", "9007199254740995", "7.038531e-26", "4.9e-324", "2.4703282292062327e-324",
        "2.4703282292062328e-324", "1e-400", "1e400", "-1e400", "1.7976931348623157e308",
        "1.7976931348623158e308", "1.7976931348623159e308", "-0", "-0.0", "+.5", "5.", "1.e3", ".5e-3",
        "0x1p3", "0X1.8P+1", "inf", "-Infinity", "+INF", "nan", "NAN", "-nan", "nan(123)", "1e", "e5", ".",
        "", "-", "+", "1.5.2", "1e+", "1e-", "00000.00001", "000", "1_000", "1,5", "12abc", "0x", "infinit",
        "infinityy", "123456789012345678901234567890", "0.000000000000000000000000000000001234",
        "1e-45", "1.4e-45", "7e-46", "3.4028235e38", "3.4028236e38", "3.40282357e38", "3.5e38",
        "1.17549435e-38", "16777217", "33554431", "8388609.5", "1.00000005960464477539062500001",
        "1.000000059604644775390625", "0.3", "1e22", "1e-22", "123456789e-30", "9999999999999999999",
        "99999999999999999999", "1e5000000000000000000", "1e-5000000000000000000", "0e999999",
        "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587"
        "207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711"
        "531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093"
        "04222702.0",
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof f_cases / sizeof *f_cases; i++) {
        if (!parse_matches_libc(f_cases[i], GS_F64)) printf("# f64 mismatch '%s'\n", f_cases[i]), bad++;
        if (!parse_matches_libc(f_cases[i], GS_F32)) printf("# f32 mismatch '%s'\n", f_cases[i]), bad++;
    }
    CHECK(bad == 0, "parse_float_cases", "%d mismatches", bad);

    char buf[128];
    bad = 0;
    for (int i = 0; i < 300000; i++) {
        random_decimal(buf);
        if (!parse_matches_libc(buf, GS_F64)) {
            if (bad++ < 5) printf("# f64 mismatch '%s'\n", buf);
        }
        if (!parse_matches_libc(buf, GS_F32)) {
            if (bad++ < 5) printf("# f32 mismatch '%s'\n", buf);
        }
    }
    CHECK(bad == 0, "parse_float_random", "%d mismatches", bad);

    /* Decimals next to float midpoints: where rounding through double could go wrong. */
    bad = 0;
    for (int i = 0; i < 200000; i++) {
        uint32_t u = (uint32_t)rnd() & 0x7f7fffffu;
        float f, g;
        memcpy(&f, &u, 4);
        g = nextafterf(f, INFINITY);
        double m = ((double)f + (double)g) / 2;
        snprintf(buf, sizeof buf, "%.*g", 8 + (int)(rnd() % 14), m);
        if (!parse_matches_libc(buf, GS_F32)) {
            if (bad++ < 5) printf("# f32 midpoint mismatch '%s'\n", buf);
        }
        snprintf(buf, sizeof buf, "%.*e", 5 + (int)(rnd() % 12), (double)f * (1 + (double)(rnd() % 1000) * 1e-9));
        if (!parse_matches_libc(buf, GS_F32) || !parse_matches_libc(buf, GS_F64)) {
            if (bad++ < 5) printf("# mismatch '%s'\n", buf);
        }
    }
    CHECK(bad == 0, "parse_float_midpoints", "%d mismatches", bad);

    /* Integers. */
    static const struct {
        const char *s;
        gs_type t;
        int rc;
        int64_t v;
    } icases[] = {
        {"0", GS_I32, 0, 0},
        {"-0", GS_U32, 0, 0},
        {"+5", GS_I32, 0, 5},
        {"2147483647", GS_I32, 0, 2147483647},
        {"-2147483648", GS_I32, 0, INT32_MIN},
        {"2147483648", GS_I32, -2, 0},
        {"-2147483649", GS_I32, -2, 0},
        {"4294967295", GS_U32, 0, 4294967295},
        {"4294967296", GS_U32, -2, 0},
        {"-1", GS_U32, -2, 0},
        {"-1", GS_U64, -2, 0},
        {"9223372036854775807", GS_I64, 0, INT64_MAX},
        {"-9223372036854775808", GS_I64, 0, INT64_MIN},
        {"9223372036854775808", GS_I64, -2, 0},
        {"-9223372036854775809", GS_I64, -2, 0},
        {"18446744073709551615", GS_U64, 0, -1},
        {"18446744073709551616", GS_U64, -2, 0},
        {"99999999999999999999999", GS_U64, -2, 0},
        {"99999999999999999999x", GS_U64, -1, 0},
        {"000000000000000000000000042", GS_I64, 0, 42},
        {"1.0", GS_I32, -1, 0},
        {"1e3", GS_I64, -1, 0},
        {"", GS_I32, -1, 0},
        {"-", GS_I32, -1, 0},
        {"+", GS_U64, -1, 0},
        {" 1", GS_I32, -1, 0},
        {"0x10", GS_I32, -1, 0},
        {"12a", GS_U32, -1, 0},
    };
    bad = 0;
    for (size_t i = 0; i < sizeof icases / sizeof *icases; i++) {
        gs_value v;
        memset(&v, 0, sizeof v);
        int rc = gs_num_parse(icases[i].s, strlen(icases[i].s), icases[i].t, &v);
        int64_t got = icases[i].t == GS_I32 ? v.i32 : icases[i].t == GS_U32 ? (int64_t)v.u32 : v.i64;
        if (rc != icases[i].rc || (rc == 0 && got != icases[i].v))
            printf("# int case '%s' %s: rc %d\n", icases[i].s, gs_type_name(icases[i].t), rc), bad++;
    }
    CHECK(bad == 0, "parse_int_cases", "%d mismatches", bad);

    bad = 0;
    for (int i = 0; i < 200000; i++) {
        /* random digit strings of 1..21 digits, optional sign, against strtoll/strtoull */
        char *o = buf;
        int nd = 1 + (int)(rnd() % 21);
        int neg = rnd() % 3 == 0;
        if (neg) *o++ = '-';
        for (int k = 0; k < nd; k++) *o++ = (char)('0' + rnd() % 10);
        *o = 0;
        char *end;
        errno = 0;
        long long sv = strtoll(buf, &end, 10);
        int serr = errno == ERANGE;
        int64_t a = 0;
        int rc = gs_num_parse(buf, strlen(buf), GS_I64, &a);
        if (serr ? rc != -2 : (rc != 0 || a != sv)) {
            if (bad++ < 5) printf("# i64 mismatch '%s'\n", buf);
        }
        errno = 0;
        unsigned long long uv = strtoull(buf, &end, 10);
        int uerr = errno == ERANGE || (neg && uv != 0);
        uint64_t b = 0;
        rc = gs_num_parse(buf, strlen(buf), GS_U64, &b);
        if (uerr ? rc != -2 : (rc != 0 || b != uv)) {
            if (bad++ < 5) printf("# u64 mismatch '%s' rc %d\n", buf, rc);
        }
        int32_t c = 0;
        rc = gs_num_parse(buf, strlen(buf), GS_I32, &c);
        int cerr = serr || sv < INT32_MIN || sv > INT32_MAX;
        if (cerr ? rc != -2 : (rc != 0 || c != sv)) {
            if (bad++ < 5) printf("# i32 mismatch '%s'\n", buf);
        }
    }
    CHECK(bad == 0, "parse_int_random", "%d mismatches", bad);
}

/* Long runs of zeros and digits beside big exponents: the exponent saturates, and the count of
 * fraction digits (each moves the decimal exponent by one) never cancels it back into range.
 * Every combination must give strtod's and strtof's bits. */

/* shape with each Z replaced by zeros and each N by nines, into buf; its length */
static int shape_expand(char *buf, const char *shape, const char *zeros, const char *nines)
{
    char *o = buf;
    for (const char *p = shape; *p; p++) {
        const char *rep = *p == 'Z' ? zeros : *p == 'N' ? nines : NULL;
        if (rep) {
            const size_t l = strlen(rep);
            memcpy(o, rep, l);
            o += l;
        } else
            *o++ = *p;
    }
    *o = 0;
    return (int)(o - buf);
}

static void test_parse_long(void)
{
    static const size_t runs[] = {1, 19, 20, 400, 999999, 1000000, 1000004};
    static const char *exps[] = {"e999999", "e+1000000", "e1000001", "e-1000001", "e1000308", "e-999990",
                                 "e10000001", "e-10000001", "e2000005", "e99999999999999999999",
                                 /* only with the short runs (the long ones cost milliseconds each) */
                                 "", "e0", "e+5", "e-5", "e22", "e308", "e-324", "e-99999999999999999999",
                                 "E+0000000001"};
    /* Z: the run of zeros, N: a run of nines as long; then the exponent (spelled out by shape_expand:
     * a fortified printf refuses a format that uses %2$s without %1$s) */
    static const char *shapes[] = {"0.Z1", "Z.Z5", "-0.Z7", "0.Z123456789012345678901", "1.Z1", "0.ZN",
                                   /* only with the short runs */
                                   "Z1", "1Z", ".N", "N"};
    const size_t nexp = sizeof exps / sizeof *exps, nshape = sizeof shapes / sizeof *shapes;
    int bad = 0, n = 0;
    char *zeros = malloc(1000005), *nines = malloc(1000005), *buf = malloc(2000100);
    for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
        const int big = runs[r] > 1000;
        memset(zeros, '0', runs[r]);
        zeros[runs[r]] = 0;
        memset(nines, '9', runs[r]);
        nines[runs[r]] = 0;
        for (size_t sh = 0; sh < (big ? 6 : nshape); sh++)
            for (size_t e = 0; e < (big ? 10 : nexp); e++) {
                int len = shape_expand(buf, shapes[sh], zeros, nines);
                strcpy(buf + len, exps[e]);
                n++;
                if (!parse_matches_libc(buf, GS_F64) || !parse_matches_libc(buf, GS_F32)) {
                    if (bad++ < 5)
                        printf("# long decimal mismatch: shape '%s' run %zu exponent '%s'\n", shapes[sh], runs[r],
                               exps[e]);
                }
            }
    }
    CHECK(bad == 0, "parse_float_long_runs_saturate", "%d of %d mismatch strtod/strtof", bad, n);
    free(zeros);
    free(nines);
    free(buf);
}

/* ---- gs_num_format ------------------------------------------------------------------------- */

static int roundtrip_one(gs_type t, const void *v, char *txt)
{
    char buf[64];
    gs_value back;
    memset(buf, 'X', sizeof buf);
    int n = gs_num_format(buf, t, v);
    if (n <= 0 || n >= 32 || (int)strlen(buf) != n) return 0;
    if (txt) strcpy(txt, buf);
    if (gs_num_parse(buf, (size_t)n, t, &back) != 0) return 0;
    if (t == GS_F32 && isnan(*(const float *)v)) return isnan(back.f32);
    if (t == GS_F64 && isnan(*(const double *)v)) return isnan(back.f64);
    /* and the libc reads the same */
    if (t == GS_F64 && strtod(buf, NULL) != *(const double *)v && !isnan(*(const double *)v)) return 0;
    if (t == GS_F32 && strtof(buf, NULL) != *(const float *)v) return 0;
    return memcmp(&back, v, gs_type_size(t)) == 0;
}

/* The shortest %.{p}g that reads back: the reference for "shortest". */
static int shortest_len_f64(double x)
{
    char b[64];
    for (int p = 1; p <= 17; p++) {
        snprintf(b, sizeof b, "%.*e", p - 1, x);
        if (strtod(b, NULL) == x) return p;
    }
    return 17;
}
static int shortest_len_f32(float x)
{
    char b[64];
    for (int p = 1; p <= 9; p++) {
        snprintf(b, sizeof b, "%.*e", p - 1, (double)x);
        if (strtof(b, NULL) == x) return p;
    }
    return 9;
}
static int sig_digits(const char *s)
{
    int n = 0, started = 0;
    const char *e = strpbrk(s, "eE");
    const char *end = e ? e : s + strlen(s);
    /* count from the first non-zero digit to the last non-zero digit */
    const char *last = NULL;
    for (const char *p = s; p < end; p++)
        if (*p >= '1' && *p <= '9') last = p;
    for (const char *p = s; p < end && last; p++) {
        if (*p >= '1' && *p <= '9') started = 1;
        if (started && *p >= '0' && *p <= '9') n++;
        if (p == last) break;
    }
    return n ? n : 1;
}

static void test_format(void)
{
    static const struct {
        gs_type t;
        double x;
        const char *want;
    } fcases[] = {
        {GS_F64, 0.1, "0.1"},
        {GS_F64, 1e23, "1e+23"},
        {GS_F64, -0.0, "-0"},
        {GS_F64, 0.0, "0"},
        {GS_F64, 1e16, "1e+16"},
        {GS_F64, 1e15, "1000000000000000"},
        {GS_F64, 123.456, "123.456"},
        {GS_F64, 1e-5, "1e-05"},
        {GS_F64, 0.0001, "0.0001"},
        {GS_F64, 5e-324, "5e-324"},
        {GS_F64, 1.7976931348623157e308, "1.7976931348623157e+308"},
        {GS_F64, -2.5, "-2.5"},
        {GS_F64, 9007199254740993.0, "9007199254740992"},
        {GS_F64, 0.30000000000000004, "0.30000000000000004"},
        {GS_F64, INFINITY, "inf"},
        {GS_F64, -INFINITY, "-inf"},
        {GS_F64, NAN, "nan"},
        {GS_F32, 0.1, "0.1"},
        {GS_F32, 16777216.0, "16777216"},
        {GS_F32, 3.4028234663852886e38, "3.4028235e+38"},
        {GS_F32, 1.401298464324817e-45, "1e-45"},
        {GS_F32, -0.0, "-0"},
        {GS_F32, 7.038531e-26, "7.038531e-26"},
        {GS_F32, 123456792.0, "123456790"},
        {GS_F32, 1e10, "10000000000"},
        {GS_F32, 1e16, "1e+16"},
        {GS_F32, 3e-5, "3e-05"},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof fcases / sizeof *fcases; i++) {
        char buf[64], lit[64];
        /* f32 values from their shortest text through strtof: (float)double would round twice
         * (7.038531e-26 is the classic case) */
        snprintf(lit, sizeof lit, "%.17g", fcases[i].x);
        float f = strtof(fcases[i].want[0] == 'n' || strchr(fcases[i].want, 'i') ? lit : fcases[i].want, NULL);
        if (fcases[i].t == GS_F32) gs_num_format(buf, GS_F32, &f);
        else gs_num_format(buf, GS_F64, &fcases[i].x);
        if (strcmp(buf, fcases[i].want)) printf("# format %s: got '%s' want '%s'\n",
                                                 gs_type_name(fcases[i].t), buf, fcases[i].want), bad++;
    }
    CHECK(bad == 0, "format_float_cases", "%d mismatches", bad);

    /* Special values of every type round-trip. */
    bad = 0;
    {
        int32_t i32s[] = {0, 1, -1, INT32_MIN, INT32_MAX, 10, -10, 100, 99, 1000000000};
        int64_t i64s[] = {0, INT64_MIN, INT64_MAX, -1, 1000000000000000000, -999999999999999999};
        uint32_t u32s[] = {0, UINT32_MAX, 1, 4000000000u};
        uint64_t u64s[] = {0, UINT64_MAX, 1, 10000000000000000000u, 18446744073709551614u};
        double f64s[] = {0.0, -0.0, NAN, -NAN, INFINITY, -INFINITY, DBL_MIN, DBL_MAX, DBL_TRUE_MIN, -DBL_TRUE_MIN,
                         DBL_MIN / 3, 1.0, -1.0, 0.1, 1e300, 2.2250738585072011e-308, DBL_EPSILON};
        float f32s[] = {0.0f, -0.0f, NAN, INFINITY, -INFINITY, FLT_MIN, FLT_MAX, FLT_TRUE_MIN, -FLT_TRUE_MIN,
                        FLT_MIN / 3, 1.0f, 0.1f, 3.0e38f, FLT_EPSILON};
        char txt[64];
        for (size_t i = 0; i < sizeof i32s / 4; i++) bad += !roundtrip_one(GS_I32, &i32s[i], NULL);
        for (size_t i = 0; i < sizeof i64s / 8; i++) bad += !roundtrip_one(GS_I64, &i64s[i], NULL);
        for (size_t i = 0; i < sizeof u32s / 4; i++) bad += !roundtrip_one(GS_U32, &u32s[i], NULL);
        for (size_t i = 0; i < sizeof u64s / 8; i++) bad += !roundtrip_one(GS_U64, &u64s[i], NULL);
        for (size_t i = 0; i < sizeof f64s / 8; i++)
            if (!roundtrip_one(GS_F64, &f64s[i], txt)) printf("# f64 roundtrip %s\n", txt), bad++;
        for (size_t i = 0; i < sizeof f32s / 4; i++)
            if (!roundtrip_one(GS_F32, &f32s[i], txt)) printf("# f32 roundtrip %s\n", txt), bad++;
        gs_num_format(txt, GS_I64, &i64s[1]);
        bad += strcmp(txt, "-9223372036854775808") != 0;
        gs_num_format(txt, GS_U64, &u64s[1]);
        bad += strcmp(txt, "18446744073709551615") != 0;
    }
    CHECK(bad == 0, "format_special_roundtrip", "%d failures", bad);

    /* Random bit patterns (NaNs only need to stay NaN) and random integers. */
    int bad64 = 0, bad32 = 0, badint = 0, badprintf = 0, long64 = 0, long32 = 0;
    char txt[64];
    for (int i = 0; i < 100000; i++) {
        uint64_t u = rnd();
        double d;
        float f;
        uint32_t u32 = (uint32_t)(u >> 32);
        memcpy(&d, &u, 8);
        memcpy(&f, &u32, 4);
        if (!roundtrip_one(GS_F64, &d, txt)) {
            if (bad64++ < 5) printf("# f64 %a -> '%s'\n", d, txt);
        } else if (i < 20000 && isfinite(d) && d != 0 && sig_digits(txt) > shortest_len_f64(d))
            long64++;
        if (!roundtrip_one(GS_F32, &f, txt)) {
            if (bad32++ < 5) printf("# f32 %a -> '%s'\n", (double)f, txt);
        } else if (i < 20000 && isfinite(f) && f != 0 && sig_digits(txt) > shortest_len_f32(f))
            long32++;
        /* "human" values: short decimals, which the fast path handles */
        double h = (double)(int64_t)(rnd() % 2000001 - 1000000) / pow(10, (double)(rnd() % 12));
        float hf = (float)h;
        if (!roundtrip_one(GS_F64, &h, txt)) bad64++;
        else if (i < 20000 && h != 0 && sig_digits(txt) > shortest_len_f64(h))
            long64++;
        if (!roundtrip_one(GS_F32, &hf, txt)) bad32++;
        else if (i < 20000 && hf != 0 && sig_digits(txt) > shortest_len_f32(hf))
            long32++;
        int64_t iv = (int64_t)rnd() >> (rnd() % 64);
        badint += !roundtrip_one(GS_I64, &iv, NULL) + !roundtrip_one(GS_U64, &u, NULL) +
                  !roundtrip_one(GS_I32, &u32, NULL) + !roundtrip_one(GS_U32, &u32, NULL);
        /* every digit count against the libc's text */
        const uint64_t uv = u >> (rnd() % 64);
        char ref[32];
        snprintf(ref, sizeof ref, "%lld", (long long)iv);
        gs_num_format(txt, GS_I64, &iv);
        badprintf += strcmp(txt, ref) != 0;
        snprintf(ref, sizeof ref, "%llu", (unsigned long long)uv);
        gs_num_format(txt, GS_U64, &uv);
        badprintf += strcmp(txt, ref) != 0;
    }
    CHECK(badprintf == 0, "format_int_printf", "%d outputs unlike printf's", badprintf);
    CHECK(bad64 == 0, "format_f64_random_roundtrip", "%d failures", bad64);
    CHECK(bad32 == 0, "format_f32_random_roundtrip", "%d failures", bad32);
    CHECK(badint == 0, "format_int_random_roundtrip", "%d failures", badint);
    /* Shortest is best effort at 2^k boundaries; it must hold nearly always. */
    CHECK(long64 == 0 && long32 == 0, "format_shortest", "%d f64 and %d f32 outputs longer than shortest", long64,
          long32);

    /* Values spread over the exact path's whole domain and past its ends, log-uniform; and
     * the powers of two, where the interval below is half as wide. */
    bad64 = long64 = bad32 = long32 = 0;
    for (int i = 0; i < 60000; i++) {
        double d = pow(10, (double)(rnd() % 1000000) / 1000000.0 * 120 - 40) * (rnd() % 2 ? -1 : 1);
        if (i % 10 == 0) d = ldexp(1.0, (int)(rnd() % 2000) - 1000);
        float f = (float)d;
        if (i % 10 == 1) f = ldexpf(1.0f, (int)(rnd() % 250) - 125);
        if (!roundtrip_one(GS_F64, &d, txt)) {
            if (bad64++ < 5) printf("# f64 %a -> '%s'\n", d, txt);
        } else if (d != 0 && sig_digits(txt) > shortest_len_f64(d)) {
            if (long64++ < 5) printf("# f64 %.17g -> '%s' not shortest\n", d, txt);
        }
        if (!roundtrip_one(GS_F32, &f, txt)) {
            if (bad32++ < 5) printf("# f32 %a -> '%s'\n", (double)f, txt);
        } else if (isfinite(f) && f != 0 && sig_digits(txt) > shortest_len_f32(f)) {
            if (long32++ < 5) printf("# f32 %.9g -> '%s' not shortest\n", (double)f, txt);
        }
    }
    CHECK(bad64 == 0 && bad32 == 0 && long64 == 0 && long32 == 0, "format_log_uniform",
          "%d/%d f64, %d/%d f32 failures/longer", bad64, long64, bad32, long32);
}

/* ---- CSV dialect ---------------------------------------------------------------------------- */

static void test_csv_dialect(void)
{
    gs_read_opts o = ropts(GS_F64);
    dec_result r;

    o.col = "price";
    r = decode_s("a,price,c\n1,2.5,3\n4,5.5,6\n", &o);
    CHECK(same_f64(&r, (double[]){2.5, 5.5}, 2) && !strcmp(r.colname, "price"), "csv_col_by_name", "rc %d n %zu %s",
          r.rc, r.n, r.st.msg);
    free(r.vals);

    o.col = "3";
    r = decode_s("a,price,c\n1,2.5,3\n4,5.5,6\n", &o);
    CHECK(same_f64(&r, (double[]){3, 6}, 2) && !strcmp(r.colname, "c"), "csv_col_by_index", "rc %d n %zu colname %s",
          r.rc, r.n, r.colname);
    free(r.vals);

    o.col = "2";
    r = decode_s("1,2\n3,4\n", &o);
    CHECK(same_f64(&r, (double[]){2, 4}, 2) && !r.colname[0], "csv_auto_no_header", "rc %d n %zu", r.rc, r.n);
    free(r.vals);

    o.col = NULL;
    r = decode_s("x\n1\n2\n", &o);
    CHECK(same_f64(&r, (double[]){1, 2}, 2) && !strcmp(r.colname, "x"), "csv_auto_header", "rc %d", r.rc);
    free(r.vals);

    o.header = GS_HDR_YES;
    r = decode_s("7\n1\n2\n", &o);
    CHECK(same_f64(&r, (double[]){1, 2}, 2) && !strcmp(r.colname, "7"), "csv_header_yes", "rc %d n %zu", r.rc, r.n);
    free(r.vals);

    o.header = GS_HDR_NO;
    check_csv_error("csv_no_header", "x\n1\n", &o, "in.csv: line 1 field 1: invalid number 'x'");

    o.col = "x";
    r = decode_s("x\n1\n", &o);
    CHECK(r.rc == GS_EUSAGE, "csv_name_needs_header", "rc %d msg %s", r.rc, r.st.msg);
    free(r.vals);
    o.header = GS_HDR_AUTO;

    o.col = "price";
    check_csv_error("csv_no_such_name", "a,b\n1,2\n", &o, "in.csv: no column named 'price' in the header; its columns: 'a', 'b'");
    check_csv_error("csv_name_other_case", "time,Price\n1,2\n", &o,
                    "in.csv: no column named 'price' in the header; did you mean 'Price'?");
    check_csv_error("csv_no_such_name_wide", "c0,c1,c2,c3,c4,c5,c6,c7,c8,c9\n0,1,2,3,4,5,6,7,8,9\n", &o,
                    "in.csv: no column named 'price' in the header; its columns: 'c0', 'c1', 'c2', 'c3', 'c4', 'c5', "
                    "'c6', 'c7' and 2 more");

    o.col = "0";
    r = decode_s("1\n", &o);
    CHECK(r.rc == GS_EUSAGE, "csv_col_zero", "rc %d", r.rc);
    free(r.vals);

    o.col = "2";
    o.delim = ';';
    r = decode_s("a;b\n1,5;2,5\n3;4\n", &o);
    CHECK(r.rc == GS_EDATA && strstr(r.st.msg, "line 2 field 2: invalid number '2,5'"), "csv_delim_semicolon_err",
          "msg %s", r.st.msg);
    free(r.vals);
    r = decode_s("a;b\n1;2.5\n3;4\n", &o);
    CHECK(same_f64(&r, (double[]){2.5, 4}, 2), "csv_delim_semicolon", "rc %d %s", r.rc, r.st.msg);
    free(r.vals);

    o.delim = '\t';
    /* a row of spaces is two empty fields, not a blank line: a missing value (NaN) */
    r = decode_s("a\tb\n1\t2\n \t \n", &o);
    CHECK(!r.rc && r.n == 2 && ((double *)r.vals)[0] == 2 && isnan(((double *)r.vals)[1]), "csv_tab_row_not_blank",
          "rc %d n %zu msg %s", r.rc, r.n, r.st.msg);
    free(r.vals);
    r = decode_s("a\tb\n 1 \t 2.5 \n3\t\t\n\n", &o);
    CHECK(!r.rc && r.n == 2 && ((double *)r.vals)[0] == 2.5 && isnan(((double *)r.vals)[1]), "csv_delim_tab_empty",
          "rc %d n %zu msg %s", r.rc, r.n, r.st.msg);
    free(r.vals);
    r = decode_s("a\tb\n 1 \t 2.5 \n3\t4\n", &o);
    CHECK(same_f64(&r, (double[]){2.5, 4}, 2), "csv_delim_tab", "rc %d %s", r.rc, r.st.msg);
    free(r.vals);
    o.delim = 0;

    o.col = "2";
    r = decode_s("\"x\",\"1.5\"\n\"y\",\" 2 \"\n", &o);
    CHECK(same_f64(&r, (double[]){1.5, 2}, 2), "csv_quoted", "rc %d n %zu %s", r.rc, r.n, r.st.msg);
    free(r.vals);

    check_csv_error("csv_quoted_delim_newline_err", "name,val\n\"a,b\",1\n\"c\nd\",2\n\"e\"\"f\",3\n\"g\",x\n", &o,
                    "in.csv: line 6 field 2: invalid number 'x'");
    r = decode_s("name,val\n\"a,b\",1\n\"c\nd\",2\n\"e\"\"f\",3\n", &o);
    CHECK(same_f64(&r, (double[]){1, 2, 3}, 3) && !strcmp(r.colname, "val"), "csv_quoted_delim_newline",
          "rc %d n %zu %s", r.rc, r.n, r.st.msg);
    free(r.vals);

    o.col = "pri,ce";
    r = decode_s("\"pri,ce\",b\n1,2\n", &o);
    CHECK(same_f64(&r, (double[]){1}, 1) && !strcmp(r.colname, "pri,ce"), "csv_quoted_header_name", "rc %d %s",
          r.rc, r.st.msg);
    free(r.vals);

    o.col = NULL;
    r = decode_s("a\r\n1\r\n2\r\n\r\n3", &o);
    CHECK(same_f64(&r, (double[]){1, 2, 3}, 3), "csv_crlf", "rc %d n %zu %s", r.rc, r.n, r.st.msg);
    free(r.vals);

    /* The line-end style is that of the first CR or LF outside quotes: quoted line breaks in
     * the first row do not decide it, wherever the source cuts its reads. */
    {
        static const struct {
            const char *name, *text;
        } cr_cases[] = {
            {"csv_cr_quoted_crlf", "\"a\r\nb\",v\r1,5\r2,6\r3,7\r"},
            {"csv_cr_quoted_lf", "\"a\nb\",v\r1,5\r2,6\r3,7"},
            {"csv_cr_quoted_doubled", "\"a\"\"\r\n\"\"\",v\r1,5\r2,6\r3,7\r"},
            {"csv_crlf_quoted_cr", "\"a\rb\",v\r\n1,5\r\n2,6\r\n3,7\r\n"},
            {"csv_lf_quoted_crlf", "\"a\r\nb\",v\n1,5\n2,6\n3,7\n"},
            {"csv_cr_bom_quoted", "\xef\xbb\xbf\"a\r\nb\",v\r1,5\r2,6\r3,7\r"},
        };
        o.col = "2";
        for (size_t i = 0; i < sizeof cr_cases / sizeof *cr_cases; i++)
            for (size_t step = 0; step < 4; step++) {
                r = decode(cr_cases[i].text, strlen(cr_cases[i].text), &o, 0, step);
                CHECK(same_f64(&r, (double[]){5, 6, 7}, 3) && !strcmp(r.colname, "v"), cr_cases[i].name,
                      "reads of %zu: rc %d n %zu %s", step, r.rc, r.n, r.st.msg);
                free(r.vals);
            }
        /* a quoted first row longer than a block, with CRLFs inside */
        char big[1200];
        size_t bl = 0;
        big[bl++] = '"';
        for (int i = 0; i < 300; i++) bl += (size_t)sprintf(big + bl, "a\r\n");
        bl += (size_t)sprintf(big + bl, "\",v\r1,5\r2,6\r3,7\r");
        r = decode(big, bl, &o, 0, 0);
        CHECK(same_f64(&r, (double[]){5, 6, 7}, 3), "csv_cr_long_quoted_first_row", "rc %d n %zu %s", r.rc, r.n,
              r.st.msg);
        free(r.vals);
        /* the lines of a CR-only file count its CRs */
        check_csv_error("csv_cr_error_line", "\"a\nb\",v\r1,5\r2,x\r", &o,
                        "in.csv: line 4 field 2: invalid number 'x'");
        o.col = NULL;
    }

    r = decode_s("\xef\xbb\xbfv\n1\n", &o);
    CHECK(same_f64(&r, (double[]){1}, 1) && !strcmp(r.colname, "v"), "csv_bom", "rc %d", r.rc);
    free(r.vals);

    r = decode_s("\n\n1\n\n  \n \t\r\n2\n\n", &o);
    CHECK(same_f64(&r, (double[]){1, 2}, 2), "csv_blank_lines", "rc %d n %zu %s", r.rc, r.n, r.st.msg);
    free(r.vals);

    r = decode_s("", &o);
    CHECK(r.rc == 0 && r.n == 0, "csv_empty", "rc %d", r.rc);
    free(r.vals);
    r = decode_s("price\n", &o);
    CHECK(r.rc == 0 && r.n == 0 && !strcmp(r.colname, "price"), "csv_header_only", "rc %d", r.rc);
    free(r.vals);

    o.col = "2";
    r = decode_s("  1  ,  -2e3 ,x\n", &o);
    CHECK(same_f64(&r, (double[]){-2000}, 1), "csv_spaces", "rc %d %s", r.rc, r.st.msg);
    free(r.vals);

    check_csv_error("csv_missing_column", "a,b\n1,2\n3\n", &o,
                    "in.csv: line 3: missing column 2 (the row has 1 field)");
    o.col = "4";
    check_csv_error("csv_missing_column_quoted", "\"a\",b\n1,2,3\n", &o,
                    "in.csv: line 1: missing column 4 (the row has 2 fields)");

    o.col = NULL;
    o.type = GS_I32;
    check_csv_error("csv_out_of_range", "1\n3000000000\n", &o,
                    "in.csv: line 2 field 1: number '3000000000' out of range for i32");
    check_csv_error("csv_int_fraction", "1\n2.5\n", &o, "in.csv: line 2 field 1: invalid number '2.5'");

    o.skip_bad = 1;
    o.col = "2";
    r = decode_s("a,b\n1,1\nx\n2,abc\n\n3,3\n4,99999999999\n5,\"5\"\n", &o);
    CHECK(r.rc == 0 && r.n == 3 && ((int32_t *)r.vals)[0] == 1 && ((int32_t *)r.vals)[1] == 3 &&
              ((int32_t *)r.vals)[2] == 5 && r.skipped == 3,
          "csv_skip_bad", "rc %d n %zu skipped %llu %s", r.rc, r.n, (unsigned long long)r.skipped, r.st.msg);
    free(r.vals);
    o.skip_bad = 0;

    check_csv_error("csv_unterminated", "a,b\n1,\"2\n", &o, "in.csv: line 2: unterminated quoted field");

    o.col = "2";
    o.type = GS_F64;
    check_csv_error("csv_unterminated_header", "\n\n\"a,b\n", &o, "in.csv: line 3: unterminated quoted field");

    /* Stray quotes inside unquoted text fields are tolerated (we never look at those fields). */
    r = decode_s("h,v\n5'10\",1\nab\"c\"d,2\n", &o);
    CHECK(same_f64(&r, (double[]){1, 2}, 2), "csv_stray_quotes", "rc %d n %zu %s", r.rc, r.n, r.st.msg);
    free(r.vals);

    /* The long token is shortened in the message. */
    o.col = NULL;
    r = decode_s("1\nabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz\n", &o);
    CHECK(r.rc == GS_EDATA && strstr(r.st.msg, "line 2 field 1: invalid number 'abcdefghij") &&
              strstr(r.st.msg, "...'"),
          "csv_long_token", "msg %s", r.st.msg);
    free(r.vals);

    /* text */
    o = ropts(GS_I64);
    r = decode("1 2\n3\t4\n\n  5", 12, &o, 1, 0);
    CHECK(r.rc == 0 && r.n == 5 && ((int64_t *)r.vals)[4] == 5, "text_tokens", "rc %d n %zu %s", r.rc, r.n, r.st.msg);
    free(r.vals);
    r = decode("1\n2\n\nx 4\n", 9, &o, 1, 0);
    CHECK(r.rc == GS_EDATA && !strcmp(r.st.msg, "in.txt: line 4: invalid number 'x'"), "text_error", "msg %s",
          r.st.msg);
    free(r.vals);
    o.skip_bad = 1;
    r = decode("1\n2\n\nx 4\n", 9, &o, 1, 0);
    CHECK(r.rc == 0 && r.n == 3 && r.skipped == 1, "text_skip_bad", "rc %d n %zu", r.rc, r.n);
    free(r.vals);
}

/* ---- encoders ------------------------------------------------------------------------------- */

static void test_encode(void)
{
    double v[] = {1.5, -0.0, 1e300, NAN, -INFINITY, 0.1};
    char *s = encode(GS_F64, 1, v, 6, "price", 0, 0, 2, NULL);
    CHECK(s && !strcmp(s, "price\n1.5\n-0\n1e+300\nnan\n-inf\n0.1\n"), "enc_csv_one", "got '%s'", s ? s : "(null)");
    free(s);
    int32_t mm[] = {1, 2, -3, 4};
    s = encode(GS_I32, 2, mm, 4, "min,max", 0, 0, 2, NULL);
    CHECK(s && !strcmp(s, "min,max\n1,2\n-3,4\n"), "enc_csv_pairs", "got '%s'", s ? s : "(null)");
    free(s);
    s = encode(GS_I32, 2, mm, 4, "min,max", ';', 0, 2, NULL);
    CHECK(s && !strcmp(s, "min;max\n1;2\n-3;4\n"), "enc_csv_delim", "got '%s'", s ? s : "(null)");
    free(s);
    /* two names: each a field of its own, quoted where it needs it */
    s = encode(GS_I32, 2, mm, 4, "a;b,max", ';', 0, 2, NULL);
    CHECK(s && !strcmp(s, "\"a;b\";max\n1;2\n-3;4\n"), "enc_csv_delim_quoted_names", "got '%s'", s ? s : "(null)");
    free(s);
    s = encode(GS_I32, 2, mm, 4, "min,max", '\t', 0, 2, NULL);
    CHECK(s && !strcmp(s, "min\tmax\n1\t2\n-3\t4\n"), "enc_csv_tab_header", "got '%s'", s ? s : "(null)");
    free(s);
    s = encode(GS_I32, 1, mm, 2, "a,\"b\"", 0, 0, 2, NULL);
    CHECK(s && !strcmp(s, "\"a,\"\"b\"\"\"\n1\n2\n"), "enc_csv_quoted_header", "got '%s'", s ? s : "(null)");
    free(s);
    s = encode(GS_I32, 2, mm, 4, "min,max", 0, 1, 2, NULL);
    CHECK(s && !strcmp(s, "1 2\n-3 4\n"), "enc_text_pairs", "got '%s'", s ? s : "(null)");
    free(s);
    s = encode(GS_U64, 1, mm, 0, NULL, 0, 0, 2, NULL);
    CHECK(s && !strcmp(s, ""), "enc_empty", "got '%s'", s ? s : "(null)");
    free(s);
}

/* Every type through csv (1 and 2 columns) and text, back bit-exactly; 1 vs 4 threads give the
 * same bytes. */
static void test_roundtrip_types(void)
{
    const size_t n = 200000;
    char *vals = malloc(n * 8);
    for (int t = 0; t < GS_NTYPES; t++) {
        size_t es = gs_type_size((gs_type)t);
        for (size_t i = 0; i < n; i++) {
            uint64_t u = rnd();
            if (i % 3 == 0) u >>= rnd() % 64; /* small numbers too */
            memcpy(vals + i * es, &u, es);
        }
        /* the specials at the front */
        if (t == GS_F64) {
            double sp[] = {NAN, INFINITY, -INFINITY, -0.0, DBL_TRUE_MIN, DBL_MAX, 0.1};
            memcpy(vals, sp, sizeof sp);
        } else if (t == GS_F32) {
            float sp[] = {NAN, INFINITY, -INFINITY, -0.0f, FLT_TRUE_MIN, FLT_MAX, 0.1f};
            memcpy(vals, sp, sizeof sp);
        } else if (t == GS_I64) {
            int64_t sp[] = {INT64_MIN, INT64_MAX, 0, -1};
            memcpy(vals, sp, sizeof sp);
        } else if (t == GS_U64) {
            uint64_t sp[] = {UINT64_MAX, 0};
            memcpy(vals, sp, sizeof sp);
        } else if (t == GS_I32) {
            int32_t sp[] = {INT32_MIN, INT32_MAX, 0, -1};
            memcpy(vals, sp, sizeof sp);
        } else {
            uint32_t sp[] = {UINT32_MAX, 0};
            memcpy(vals, sp, sizeof sp);
        }
        for (int mode = 0; mode < 3; mode++) { /* csv 1 column, csv 2 columns, text */
            int ncols = mode == 1 ? 2 : 1, text = mode == 2;
            size_t len1, len4;
            char *s1 = encode((gs_type)t, ncols, vals, n, text ? NULL : ncols == 2 ? "min,max" : "v", 0, text, 1,
                              &len1);
            char *s4 = encode((gs_type)t, ncols, vals, n, text ? NULL : ncols == 2 ? "min,max" : "v", 0, text, 4,
                              &len4);
            int same_text = s1 && s4 && len1 == len4 && memcmp(s1, s4, len1) == 0;
            int ok = same_text;
            for (int c = 1; c <= ncols && ok; c++) {
                gs_read_opts o = ropts((gs_type)t);
                char cs[16];
                snprintf(cs, sizeof cs, "%d", c);
                o.col = cs;
                dec_result r = decode(s4, len4, &o, text, 0);
                size_t want_n = text ? n : n / (size_t)ncols;
                ok = r.rc == 0 && r.n == want_n;
                for (size_t i = 0; ok && i < want_n; i++) {
                    size_t src = text ? i : i * (size_t)ncols + (size_t)(c - 1);
                    const char *a = r.vals + i * es, *b = vals + src * es;
                    if (memcmp(a, b, es) != 0) {
                        int nan_a = t == GS_F64 ? isnan(*(const double *)a) : t == GS_F32 && isnan(*(const float *)a);
                        int nan_b = t == GS_F64 ? isnan(*(const double *)b) : t == GS_F32 && isnan(*(const float *)b);
                        if (!(nan_a && nan_b)) {
                            ok = 0;
                            printf("# %s mode %d row %zu differs\n", gs_type_name((gs_type)t), mode, i);
                        }
                    }
                }
                if (r.rc) printf("# %s\n", r.st.msg);
                free(r.vals);
            }
            char name[64];
            snprintf(name, sizeof name, "roundtrip_%s_%s", gs_type_name((gs_type)t),
                     mode == 0 ? "csv" : mode == 1 ? "csv2" : "text");
            CHECK(ok, name, "same text for 1/4 threads: %d", same_text);
            free(s1);
            free(s4);
        }
    }
    free(vals);
}

/* ---- large inputs: blocks, pieces, threads, error lines ------------------------------------ */

static char *make_lines(size_t nlines, size_t *len, double *vals)
{
    size_t cap = nlines * 40 + 64, o = 0;
    char *s = malloc(cap);
    o += (size_t)sprintf(s, "id,value,note\n");
    for (size_t i = 0; i < nlines; i++) {
        double v = (double)(int64_t)(rnd() % 20000001 - 10000000) / 1000.0;
        vals[i] = v;
        o += (size_t)sprintf(s + o, "%zu,%.3f,n\n", i, v);
    }
    *len = o;
    return s;
}

static void test_large(void)
{
    const size_t nl = 300000;
    double *want = malloc(nl * sizeof *want);
    size_t len;
    char *s = make_lines(nl, &len, want);
    gs_read_opts o = ropts(GS_F64);
    o.col = "value";

    int ok = 1;
    size_t blocks[] = {0, 4096, 65536};
    int threads[] = {1, 3, 8};
    for (int b = 0; b < 3; b++)
        for (int t = 0; t < 3; t++) {
            o.block_size = blocks[b];
            o.threads = threads[t];
            big_reads = b == 0;
            dec_result r = decode(s, len, &o, 0, b == 1 ? 1000 : 0);
            big_reads = 0;
            if (!same_f64(&r, want, nl)) {
                ok = 0;
                printf("# block %zu threads %d: rc %d n %zu %s\n", blocks[b], threads[t], r.rc, r.n, r.st.msg);
            }
            free(r.vals);
        }
    CHECK(ok, "large_same_all_threads_blocks", "see above");

    /* Bad fields at line 2 (the first data line) and deep inside; line 1 is the header. */
    const size_t bad_lines[] = {2, 1, 150001, nl + 1};
    for (int k = 0; k < 4; k++) {
        char *c = malloc(len + 64);
        memcpy(c, s, len + 1);
        size_t line = bad_lines[k], off = 0;
        for (size_t l = 1; l < line; l++) off = (size_t)(strchr(c + off, '\n') - c) + 1;
        /* replace the value field of that line with "1x3" (same length keeps it simple: edit in place) */
        char *f = strchr(c + off, ',');
        if (k == 1) f = c + off - 1 + 3; /* header line: "id,value" -> the 'v' of value */
        f[1] = 'x';
        char expect[128];
        if (k == 1) {
            /* header named "xalue" now: column 'value' is gone */
            snprintf(expect, sizeof expect, "in.csv: no column named 'value' in the header; its columns: 'id', 'xalue', 'note'");
        } else {
            const char *fe = strchr(f + 1, ',');
            snprintf(expect, sizeof expect, "in.csv: line %zu field 2: invalid number '%.*s'", line, (int)(fe - f - 1),
                     f + 1);
        }
        int okk = 1;
        for (int b = 0; b < 3; b++)
            for (int t = 0; t < 3; t++) {
                o.block_size = blocks[b];
                o.threads = threads[t];
                dec_result r = decode(c, len, &o, 0, 0);
                if (r.rc != GS_EDATA || strcmp(r.st.msg, expect)) {
                    okk = 0;
                    printf("# block %zu threads %d: got '%s' want '%s'\n", blocks[b], threads[t], r.st.msg, expect);
                }
                free(r.vals);
            }
        char name[64];
        snprintf(name, sizeof name, "large_error_line_%zu", line);
        CHECK(okk, name, "see above");
        free(c);
    }

    /* A quoted multi-line field in the middle (sequential libcsv blocks, a quoted line break
     * across a block cut), then a bad field further on: its line is still exact. */
    {
        size_t cap = len + 100000;
        char *c = malloc(cap);
        size_t mid = 0;
        for (size_t l = 0; l < nl / 2; l++) mid = (size_t)(strchr(s + mid, '\n') - s) + 1;
        memcpy(c, s, mid);
        size_t o2 = mid;
        o2 += (size_t)sprintf(c + o2, "x,\"42.5\",\"");
        for (int i = 0; i < 3000; i++) o2 += (size_t)sprintf(c + o2, "quoted line %d\n", i);
        o2 += (size_t)sprintf(c + o2, "\"\n");
        memcpy(c + o2, s + mid, len - mid + 1);
        size_t clen = o2 + len - mid;
        /* the expected values: the first nl/2-1 rows, 42.5, the rest */
        double *w2 = malloc((nl + 1) * sizeof *w2);
        memcpy(w2, want, (nl / 2 - 1) * sizeof *w2);
        w2[nl / 2 - 1] = 42.5;
        memcpy(w2 + nl / 2, want + nl / 2 - 1, (nl - nl / 2 + 1) * sizeof *w2);
        int okq = 1;
        for (int b = 0; b < 3; b++)
            for (int t = 0; t < 3; t += 2) {
                o.block_size = blocks[b];
                o.threads = threads[t];
                dec_result r = decode(c, clen, &o, 0, 0);
                if (!same_f64(&r, w2, nl + 1)) {
                    okq = 0;
                    printf("# quoted: block %zu threads %d: rc %d n %zu %s\n", blocks[b], threads[t], r.rc, r.n,
                           r.st.msg);
                }
                free(r.vals);
            }
        CHECK(okq, "large_quoted_block", "see above");

        /* bad field 1000 lines after the quoted row: line = 1 + nl/2 + 3000 + 1000 + ... */
        size_t off = o2;
        for (int l = 0; l < 1000; l++) off = (size_t)(strchr(c + off, '\n') - c) + 1;
        char *f = strchr(c + off, ',');
        f[1] = 'y';
        size_t line = 1;
        for (size_t i = 0; i < off; i++) line += c[i] == '\n';
        char expect[128];
        const char *fe = strchr(f + 1, ',');
        snprintf(expect, sizeof expect, "in.csv: line %zu field 2: invalid number '%.*s'", line, (int)(fe - f - 1),
                 f + 1);
        okq = 1;
        for (int b = 0; b < 3; b++)
            for (int t = 0; t < 3; t += 2) {
                o.block_size = blocks[b];
                o.threads = threads[t];
                dec_result r = decode(c, clen, &o, 0, 0);
                if (r.rc != GS_EDATA || strcmp(r.st.msg, expect)) {
                    okq = 0;
                    printf("# quoted err: block %zu threads %d: got '%s' want '%s'\n", blocks[b], threads[t],
                           r.st.msg, expect);
                }
                free(r.vals);
            }
        CHECK(okq, "large_quoted_then_error_line", "%s", expect);
        free(w2);
        free(c);
    }

    /* A failing source: its message comes through, with and without read-ahead. */
    {
        int okf = 1;
        for (int t = 0; t < 3; t += 2) {
            o.block_size = 4096;
            o.threads = threads[t];
            src_fail_at = 100000;
            dec_result r = decode(s, len, &o, 0, 5000);
            src_fail_at = 0;
            if (r.rc != GS_EDATA || strcmp(r.st.msg, "in.csv: read failed")) {
                okf = 0;
                printf("# failing source, %d threads: rc %d '%s'\n", threads[t], r.rc, r.st.msg);
            }
            free(r.vals);
        }
        CHECK(okf, "source_error", "see above");
    }

    /* Lines longer than a block and than the read-ahead headroom (1 MiB). */
    {
        size_t big = 3u << 20, cl = 0;
        char *c = malloc(big + 2000000 + 1000);
        cl += (size_t)sprintf(c, "v,t\n1,a\n2,");
        memset(c + cl, 'z', big);
        cl += big;
        cl += (size_t)sprintf(c + cl, "\n3,b\n4,\"q\nq\"\n5,");
        memset(c + cl, 'y', 2000000);
        cl += 2000000;
        cl += (size_t)sprintf(c + cl, "\n6,c\n");
        o.col = "1";
        int okl = 1;
        for (int b = 0; b < 3; b++)
            for (int t = 0; t < 3; t++) {
                o.block_size = blocks[b];
                o.threads = threads[t];
                dec_result r = decode(c, cl, &o, 0, 0);
                if (!same_f64(&r, (double[]){1, 2, 3, 4, 5, 6}, 6)) {
                    okl = 0;
                    printf("# long lines: block %zu threads %d: rc %d n %zu %s\n", blocks[b], threads[t], r.rc, r.n,
                           r.st.msg);
                }
                free(r.vals);
            }
        CHECK(okl, "long_lines", "see above");
        free(c);
        o.col = "value";
    }

    /* text: one long line of numbers, no newline at all; and an error deep inside */
    {
        o = ropts(GS_F64);
        size_t cap = nl * 16 + 16, tl = 0;
        char *t = malloc(cap);
        for (size_t i = 0; i < nl; i++) tl += (size_t)sprintf(t + tl, "%.3f ", want[i]);
        int okt = 1;
        for (int b = 0; b < 3; b++) {
            o.block_size = blocks[b];
            o.threads = 3;
            dec_result r = decode(t, tl, &o, 1, 0);
            if (!same_f64(&r, want, nl)) okt = 0, printf("# text block %zu: rc %d n %zu\n", blocks[b], r.rc, r.n);
            free(r.vals);
        }
        CHECK(okt, "text_one_long_line", "see above");
        tl = 0;
        for (size_t i = 0; i < nl; i++) tl += (size_t)sprintf(t + tl, i == 200000 ? "%.3fq\n" : "%.3f\n", want[i]);
        okt = 1;
        for (int b = 0; b < 3; b++) {
            o.block_size = blocks[b];
            o.threads = 3;
            dec_result r = decode(t, tl, &o, 1, 0);
            if (r.rc != GS_EDATA || !strstr(r.st.msg, "in.txt: line 200001: invalid number"))
                okt = 0, printf("# text block %zu: %s\n", blocks[b], r.st.msg);
            free(r.vals);
        }
        CHECK(okt, "text_error_line_deep", "see above");
        free(t);
    }
    free(want);
    free(s);
}

int main(void)
{
    gs_pool_start(4);
    test_parse();
    test_parse_long();
    test_format();
    /* The dialect cases once as they come (one block), then with tiny blocks (every line a
     * block cut, read-ahead, sequential libcsv blocks ending inside quotes) on 1 and 3 threads. */
    test_csv_dialect();
    printf("# dialect again: 64-byte blocks, 1 thread\n");
    force_block = 64;
    force_threads = 1;
    test_csv_dialect();
    printf("# dialect again: 64-byte blocks, 3 threads\n");
    force_threads = 3;
    test_csv_dialect();
    force_threads = 0;
    force_block = 0;
    test_encode();
    test_roundtrip_types();
    test_large();
    gs_pool_stop();
    return CHECK_DONE();
}
