/* test_rowmap.c - rows dropped from a csv/text stream keep positions as input rows: the row map
 * (common/rowmap.c) against a direct count, and the csv and text readers under --na skip and
 * skip_bad, on inputs with missing values, NA spellings, bad fields and quoted rows, over small
 * blocks (the record crosses blocks and pieces), 1 and 3 threads and varying read sizes: every
 * value handed out is the expected one and maps back to its input row; the row store's rows of the
 * values (compact --rows, --keep), for one column and for several (--col w,v). Also what missing
 * values read as by default, under --na V, and the error for integer types. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/pool.h"
#include "../../common/rowmap.h"
#include "../../io/csv_lines.h"
#include "../../io/missing.h"
#include "check.h"

/* ---- an in-memory byte source ----------------------------------------------------------------- */
typedef struct mem_src {
    gs_bsrc base;
    const char *data;
    size_t len, pos, step;
} mem_src;

static int mem_read(gs_bsrc *s, void *buf, size_t cap, size_t *got, gs_status *st)
{
    mem_src *m = (mem_src *)s;
    size_t n = m->len - m->pos;
    (void)st;
    if (n > cap) n = cap;
    if (m->step && n > m->step) n = m->step;
    memcpy(buf, m->data + m->pos, n);
    m->pos += n;
    s->consumed += n;
    *got = n;
    return GS_OK;
}

static void mem_close(gs_bsrc *s) { free(s); }

static gs_bsrc *src_new(const char *data, size_t len, size_t step)
{
    mem_src *m = calloc(1, sizeof *m);
    m->base.read = mem_read;
    m->base.close = mem_close;
    m->base.name = "in.csv";
    m->base.size = (int64_t)len;
    m->data = data;
    m->len = len;
    m->step = step;
    return &m->base;
}

/* ---- the row map alone ------------------------------------------------------------------------ */
static void test_rowmap(void)
{
    srand(7);
    for (int trial = 0; trial < 20; trial++) {
        const size_t n = 1 + (size_t)rand() % 5000;
        uint64_t *skip_before = calloc(n + 1, sizeof *skip_before); /* rows skipped just before value i */
        gs_rowmap *m = gs_rowmap_new();
        int dense = trial % 3;
        for (size_t i = 0; i <= n; i++) {
            uint64_t k = dense == 0 ? (rand() % 50 == 0) : dense == 1 ? (uint64_t)(rand() % 3) : (rand() % 500 == 0) * 7;
            skip_before[i] = k;
            gs_rowmap_add(m, i, k);
        }
        uint64_t *pos = malloc(n * sizeof *pos), *want = malloc(n * sizeof *want), acc = 0, total = 0;
        for (size_t i = 0; i < n; i++) {
            acc += skip_before[i];
            want[i] = i + acc;
            pos[i] = i;
        }
        for (size_t i = 0; i <= n; i++) total += skip_before[i];
        gs_rowmap_rows(m, pos, n);
        int ok = !memcmp(pos, want, n * sizeof *pos);
        /* unsorted positions */
        uint64_t *p2 = malloc(n * sizeof *p2), *w2 = malloc(n * sizeof *w2);
        for (size_t i = 0; i < n; i++) {
            size_t j = (size_t)rand() % n;
            p2[i] = j;
            w2[i] = want[j];
        }
        gs_rowmap_rows(m, p2, n);
        ok = ok && !memcmp(p2, w2, n * sizeof *p2) && gs_rowmap_skipped(m) == total;
        char name[64];
        snprintf(name, sizeof name, "rowmap_trial_%d", trial);
        CHECK(ok, name, "n=%zu dense=%d: translated positions differ from the count", n, dense);
        free(p2), free(w2), free(pos), free(want), free(skip_before);
        gs_rowmap_free(m);
    }
}

/* ---- readers that drop rows ------------------------------------------------------------------- */
/* A csv of `rows` data rows (header "id,v,w"): column v holds numbers, empty fields, NA spellings and
 * bad fields; some rows quote a field holding the delimiter or a line break. want[] gets the values
 * kept and rows[] their input rows, for --na skip with skip_bad. pair: for --col w,v instead (rows
 * of two values, want[2i] w and want[2i+1] v): w holds numbers (quoted in the rows whose id holds a
 * line break) and empty fields, so rows are dropped for either column. */
static size_t row_off[8192]; /* make_csv: where data row i starts; row_off[rows] = the end */

static char *make_csv(size_t rows, unsigned seed, double *want, uint64_t *wrow, size_t *nwant, int crlf, int pair)
{
    size_t cap = rows * 48 + 64, len = 0;
    char *s = malloc(cap);
    const char *eol = crlf ? "\r\n" : "\n";
    srand(seed);
    len += (size_t)sprintf(s + len, "id,v,w%s", eol);
    *nwant = 0;
    for (size_t i = 0; i < rows; i++) {
        int k = rand() % 20;
        row_off[i] = len;
        const char *na[] = {"", "NA", "N/A", "null", "NaN", "#N/A", "<NA>", "None", "nan", "-1.#IND"};
        if (k < 3) len += (size_t)sprintf(s + len, "%zu,%s,1%s", i, na[rand() % 10], eol);
        else if (k == 3) len += (size_t)sprintf(s + len, "%zu,x%d,1%s", i, rand() % 9, eol);
        else if (k == 4 && pair) len += (size_t)sprintf(s + len, "\"%zu,\n\",\"%d\",\"4\"%s", i, k * 10 + (int)i, eol);
        else if (k == 4) len += (size_t)sprintf(s + len, "\"%zu,\n\",\"%d\",\"a%sb\"%s", i, k * 10 + (int)i, eol, eol);
        else len += (size_t)sprintf(s + len, "%zu,%d.5,%s%s", i, (int)i, k == 5 ? "" : "2", eol);
        if (k >= 4 && !(pair && k == 5)) {
            const double v = k == 4 ? k * 10 + (double)i : (double)(int)i + 0.5;
            if (pair) want[2 * *nwant] = k == 4 ? 4 : 2, want[2 * *nwant + 1] = v;
            else want[*nwant] = v;
            wrow[(*nwant)++] = i;
        }
    }
    s[len] = 0;
    row_off[rows] = len;
    return s;
}

typedef struct membuf {
    char *p;
    size_t n;
} membuf;

static int put_mem(void *ctx, const char *p, size_t len, gs_status *st)
{
    membuf *m = ctx;
    (void)st;
    m->p = realloc(m->p, m->n + len + 1);
    memcpy(m->p + m->n, p, len);
    m->n += len;
    return GS_OK;
}

/* keep_rows: every value's row as in the input, read back from the row store chunk by chunk (the
 * rows of a chunk released once written), across blocks that end inside quoted rows; one column, and
 * two (a row of values each, the row dropped where either column misses). The values too. */
static void test_reader_rowtext(void)
{
    const size_t rows = 3000;
    double *want = malloc(2 * rows * sizeof *want);
    uint64_t *wrow = malloc(rows * sizeof *wrow);
    const size_t blocks[] = {64, 100, 4096, 0};
    for (int pair = 0; pair < 2; pair++)
        for (int crlf = 0; crlf < 2; crlf++)
            for (int b = 0; b < 4; b++)
                for (int threads = 1; threads <= 3; threads += 2) {
                    size_t nwant;
                    const size_t k = pair ? 2 : 1;
                    char *csv = make_csv(rows, 21u + (unsigned)b, want, wrow, &nwant, crlf, pair);
                    gs_read_opts o;
                    memset(&o, 0, sizeof o);
                    o.format = GS_FMT_CSV;
                    o.type = GS_F64;
                    o.col = pair ? "w,v" : "v";
                    o.threads = threads;
                    o.block_size = blocks[b];
                    o.skip_bad = 1;
                    o.na = GS_NA_SKIP;
                    o.keep_rows = 1;
                    gs_status st = {0};
                    gs_decoder *d = NULL;
                    gs_bsrc *src = src_new(csv, strlen(csv), (size_t)(b * 37 + 5));
                    int rc = gs_dec_open_csv(&d, src, &o, &st);
                    double *got = malloc(k * rows * sizeof *got);
                    uint64_t pos[1024];
                    membuf out = {0}, exp = {0};
                    size_t n = 0, hl = 0;
                    const char *h = rc ? NULL : gs_rowtext_header(d->text, &hl);
                    int ok = !rc && h && hl == (size_t)(crlf ? 8 : 7) && !memcmp(h, csv, hl);
                    for (size_t want_n = 3; ok; want_n = want_n * 7 % 1001 + 1) {
                        size_t g = 0;
                        rc = d->read(d, got + n * k, want_n < rows - n ? want_n : rows - n, &g, &st);
                        if (rc || !g) break;
                        size_t m = 0; /* every other value of the chunk, as a compaction keeps some */
                        for (size_t i = n; i < n + g; i++)
                            if (i % 2 == 0) {
                                pos[m++] = i;
                                put_mem(&exp, csv + row_off[wrow[i]], row_off[wrow[i] + 1] - row_off[wrow[i]], &st);
                            }
                        rc = gs_rowtext_write(d->text, pos, m, put_mem, &out, &st);
                        n += g;
                        gs_rowtext_release(d->text, n);
                        if (rc) break;
                    }
                    ok = ok && !rc && n == nwant && out.n == exp.n && !memcmp(out.p, exp.p, out.n) &&
                         !memcmp(got, want, n * k * sizeof *got);
                    char name[80];
                    snprintf(name, sizeof name, "rowtext_%s%s_block%zu_t%d", pair ? "cols_" : "", crlf ? "crlf" : "lf",
                             blocks[b], threads);
                    CHECK(ok, name, "rc=%d (%s) n=%zu want %zu, %zu bytes want %zu", rc, st.msg, n, nwant, out.n,
                          exp.n);
                    if (d) d->close(d);
                    else src->close(src);
                    free(got), free(csv), free(out.p), free(exp.p);
                }
    free(want), free(wrow);
}

static void test_reader_rows(void)
{
    const size_t rows = 3000;
    double *want = malloc(rows * sizeof *want);
    uint64_t *wrow = malloc(rows * sizeof *wrow);
    const size_t blocks[] = {64, 256, 4096, 0};
    for (int crlf = 0; crlf < 2; crlf++)
        for (int b = 0; b < 4; b++)
            for (int threads = 1; threads <= 3; threads += 2) {
                size_t nwant;
                char *csv = make_csv(rows, 11u + (unsigned)b, want, wrow, &nwant, crlf, 0);
                gs_read_opts o;
                memset(&o, 0, sizeof o);
                o.format = GS_FMT_CSV;
                o.type = GS_F64;
                o.col = "v";
                o.threads = threads;
                o.block_size = blocks[b];
                o.skip_bad = 1;
                o.na = GS_NA_SKIP;
                gs_status st = {0};
                gs_decoder *d = NULL;
                gs_bsrc *src = src_new(csv, strlen(csv), (size_t)(b * 37 + 5));
                int rc = gs_dec_open_csv(&d, src, &o, &st);
                double *got = malloc(rows * sizeof *got);
                size_t n = 0;
                for (size_t want_n = 3; !rc; want_n = want_n * 7 % 1001 + 1) {
                    size_t g = 0;
                    rc = d->read(d, got + n, want_n < rows - n ? want_n : rows - n, &g, &st);
                    if (!g) break;
                    n += g;
                }
                int ok = !rc && n == nwant && d->rows;
                for (size_t i = 0; ok && i < n; i++) ok = got[i] == want[i];
                uint64_t *pos = malloc((n ? n : 1) * sizeof *pos);
                for (size_t i = 0; i < n; i++) pos[i] = i;
                if (ok) gs_rowmap_rows(d->rows, pos, n);
                for (size_t i = 0; ok && i < n; i++) ok = pos[i] == wrow[i];
                ok = ok && d->skipped == rows - nwant;
                char name[80];
                snprintf(name, sizeof name, "reader_rows_%s_block%zu_t%d", crlf ? "crlf" : "lf", blocks[b], threads);
                CHECK(ok, name, "rc=%d (%s) n=%zu want %zu skipped=%" PRIu64, rc, st.msg, n, nwant,
                      d ? d->skipped : 0);
                if (d) d->close(d);
                else src->close(src);
                free(pos), free(got), free(csv);
            }
    free(want), free(wrow);
}

/* ---- what a missing value reads as ------------------------------------------------------------ */
static int decode_one(const char *csv, gs_type t, gs_na_mode na, const char *na_value, int text, void *out,
                      size_t cap, size_t *n, gs_status *st)
{
    gs_read_opts o;
    memset(&o, 0, sizeof o);
    o.type = t;
    o.threads = 2;
    o.na = na;
    o.na_value = na_value;
    o.col = text ? NULL : "2";
    o.header = GS_HDR_NO;
    gs_decoder *d = NULL;
    gs_bsrc *src = src_new(csv, strlen(csv), 0);
    int rc = text ? gs_dec_open_text(&d, src, &o, st) : gs_dec_open_csv(&d, src, &o, st);
    *n = 0;
    if (rc) {
        src->close(src);
        return rc;
    }
    size_t g = 0;
    while (!(rc = d->read(d, (char *)out + *n * gs_type_size(t), cap - *n, &g, st)) && g) *n += g;
    d->close(d);
    return rc;
}

static void test_missing(void)
{
    /* every spelling, in a float column: NaN; under --na 7: 7; under --na skip: gone */
    char csv[1024] = "", txt[1024] = "";
    size_t ns = 0, nt = 0; /* spellings; those text reads as one token (not empty, no space) */
    for (const char *const *s = gs_na_spellings; *s; s++, ns++) {
        strcat(csv, "1,");
        strcat(csv, *s);
        strcat(csv, ",3\n");
        if (**s && !strchr(*s, ' ')) strcat(txt, *s), strcat(txt, "\n"), nt++;
    }
    strcat(csv, "1,2.5,3\n");
    strcat(txt, "2.5\n");
    double v[64];
    size_t n;
    gs_status st = {0};
    int rc = decode_one(csv, GS_F64, GS_NA_DEFAULT, NULL, 0, v, 64, &n, &st);
    int ok = !rc && n == ns + 1 && v[ns] == 2.5;
    for (size_t i = 0; ok && i < ns; i++) ok = isnan(v[i]);
    CHECK(ok, "na_default_float_nan", "rc=%d (%s) n=%zu of %zu", rc, st.msg, n, ns + 1);
    rc = decode_one(csv, GS_F64, GS_NA_VALUE, "7", 0, v, 64, &n, &st);
    ok = !rc && n == ns + 1 && v[ns] == 2.5;
    for (size_t i = 0; ok && i < ns; i++) ok = v[i] == 7;
    CHECK(ok, "na_value_float", "rc=%d (%s) n=%zu", rc, st.msg, n);
    rc = decode_one(csv, GS_F64, GS_NA_SKIP, NULL, 0, v, 64, &n, &st);
    CHECK(!rc && n == 1 && v[0] == 2.5, "na_skip_float", "rc=%d (%s) n=%zu", rc, st.msg, n);
    rc = decode_one(txt, GS_F64, GS_NA_DEFAULT, NULL, 1, v, 64, &n, &st);
    ok = !rc && n == nt + 1 && v[nt] == 2.5;
    for (size_t i = 0; ok && i < nt; i++) ok = isnan(v[i]);
    CHECK(ok, "na_default_text_nan", "rc=%d (%s) n=%zu of %zu", rc, st.msg, n, nt + 1);
    /* integers: an error naming the fixes; --na V and skip */
    int64_t iv[64];
    memset(&st, 0, sizeof st);
    rc = decode_one("1,5\n2,\n", GS_I64, GS_NA_DEFAULT, NULL, 0, iv, 64, &n, &st);
    CHECK(rc == GS_EDATA && strstr(st.msg, "line 2 field 2") && strstr(st.msg, "--na V") && strstr(st.msg, "--na skip") &&
              strstr(st.msg, "-t f64"),
          "na_int_error", "rc=%d: %s", rc, st.msg);
    memset(&st, 0, sizeof st);
    rc = decode_one("1,5\n2,NA\n3,6\n", GS_I64, GS_NA_VALUE, "-1", 0, iv, 64, &n, &st);
    CHECK(!rc && n == 3 && iv[0] == 5 && iv[1] == -1 && iv[2] == 6, "na_int_value", "rc=%d (%s) n=%zu", rc, st.msg, n);
    rc = decode_one("1,5\n2,NA\n3,6\n", GS_I64, GS_NA_SKIP, NULL, 0, iv, 64, &n, &st);
    CHECK(!rc && n == 2 && iv[0] == 5 && iv[1] == 6, "na_int_skip", "rc=%d (%s) n=%zu", rc, st.msg, n);
    memset(&st, 0, sizeof st);
    rc = decode_one("1,5\n", GS_I32, GS_NA_VALUE, "1.5", 0, iv, 64, &n, &st);
    CHECK(rc == GS_EUSAGE && strstr(st.msg, "--na value '1.5'"), "na_value_wrong_type", "rc=%d: %s", rc, st.msg);
    /* not a spelling: still an error */
    memset(&st, 0, sizeof st);
    rc = decode_one("1,5\n2,NAN1\n", GS_F64, GS_NA_DEFAULT, NULL, 0, v, 64, &n, &st);
    CHECK(rc == GS_EDATA && strstr(st.msg, "invalid number 'NAN1'"), "na_not_spelling", "rc=%d: %s", rc, st.msg);
}

int main(void)
{
    gs_pool_start(4);
    test_rowmap();
    test_reader_rows();
    test_reader_rowtext();
    test_missing();
    return CHECK_DONE();
}
