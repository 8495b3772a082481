/* test_rowtext.c - the row store (io/rowtext.c) as the line decoder feeds it (io/csv_lines.c): rows
 * kept where they lie in the decoder's blocks, lent to the store, and rows of quoted blocks copied.
 * A CSV whose quoted rows (a delimiter and a line break inside quotes) come in runs, so that blocks
 * alternate between the parallel splitter and the sequential parser, is read at small block sizes,
 * 1 and several threads and short source reads; after every read the rows of a subset of the values
 * read are written and let go, as the writer does, while the decoder reads on. The rows written must
 * be the input's bytes: a block the decoder wrote into while the store held it would show. The same
 * reads with --keep (the fields the splitter cuts as it parses, or the rows of quoted blocks) write
 * each value's kept fields, as in the input, before the value's own field or its formatted value. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/pool.h"
#include "../../io/io_internal.h"
#include "../fuzz/fuzz_mem.h"
#include "check.h"

typedef struct text {
    char *p;
    size_t n, cap;
} text;

static void add(text *t, const char *p, size_t n)
{
    if (t->n + n + 1 > t->cap) {
        t->cap = (t->n + n + 1) * 2;
        if (!(t->p = realloc(t->p, t->cap))) abort();
    }
    memcpy(t->p + t->n, p, n);
    t->n += n;
    t->p[t->n] = 0;
}

static int put(void *ctx, const char *p, size_t len, gs_status *st)
{
    (void)st;
    add(ctx, p, len);
    return GS_OK;
}

/* rows data rows after a header; row i starts at at[i] and is len[i] bytes, its line end included.
 * Rows [k*run, k*run + run/4) of every third run quote their last field (a ',' and a line break in it);
 * rows [2*run, 2*run + 2*run/3) have no price (dropped under --na skip: blocks without a value). */
static char *make_csv(size_t rows, size_t run, int crlf, size_t *at, size_t *len, size_t *n)
{
    text t = {0};
    const char *eol = crlf ? "\r\n" : "\n";
    char row[128];
    int m = snprintf(row, sizeof row, "id,price,note%s", eol);
    add(&t, row, (size_t)m);
    for (size_t i = 0; i < rows; i++) {
        const int quoted = (i / run) % 3 == 1 && i % run < run / 4;
        if (i >= 2 * run && i < 2 * run + 2 * run / 3) m = snprintf(row, sizeof row, "%zu,,note%zu%s", i, i, eol);
        else if (quoted) m = snprintf(row, sizeof row, "%zu,%zu.%02zu,\"n,%zu%sstill %zu\"%s", i, i % 977, i % 100, i, eol, i, eol);
        else m = snprintf(row, sizeof row, "%zu,%zu.%02zu,note%zu%s", i, i % 977, i % 100, i * 7, eol);
        at[i] = t.n;
        len[i] = (size_t)m;
        add(&t, row, (size_t)m);
    }
    *n = t.n;
    return t.p;
}

/* Reads the whole input with keep_rows, writing the rows of every value where keep(i) and letting
 * the rows go after each read. 0 where the rows written equal want (else the reason in why). */
static int read_rows(const char *csv, size_t n, size_t block, int threads, size_t step, int every, int keep,
                     const char *want, size_t want_n, size_t rows, char *why, size_t whylen)
{
    gs_read_opts o = {.format = GS_FMT_CSV, .type = GS_F64, .col = "price", .threads = threads, .block_size = block,
                      .keep_rows = 1, .na = GS_NA_SKIP};
    /* keep 1: note and id, then the value's field (compact); 2: then the value; 3: id, then the value
     * (the one column before the value's, cut on the splitter's way to it) */
    o.keep = keep == 3 ? "id" : keep ? "note,id" : NULL;
    o.keep_value = keep == 1;
    gs_status st = {0};
    gs_decoder *d = NULL;
    gs_fz_src *src = gs_fz_src_new("in.csv", (const uint8_t *)csv, n, 1, step, NULL);
    if (gs_dec_open_csv(&d, &src->base, &o, &st)) {
        src->base.close(&src->base);
        snprintf(why, whylen, "open: %s", st.msg);
        return 1;
    }
    text out = {0};
    double *vals = malloc(4096 * sizeof *vals);
    uint64_t *pos = malloc(4096 * sizeof *pos), done = 0;
    int rc = GS_OK;
    for (size_t want_now = 5;; want_now = want_now * 7 % 4093 + 1) {
        size_t got = 0, k = 0;
        if ((rc = d->read(d, vals, want_now, &got, &st)) || !got) break;
        for (size_t i = 0; i < got; i++)
            if ((done + i) % (uint64_t)every == 0) pos[k++] = done + i;
        done += got;
        if (keep >= 2) /* every value: its row's kept fields, then the value formatted */
            rc = gs_rowtext_write_keep(d->text, NULL, done - got, got, GS_F64, vals, put, &out, &st);
        else if (keep == 1 && k)
            rc = gs_rowtext_write_keep(d->text, pos, 0, k, GS_F64, NULL, put, &out, &st);
        else if (k)
            rc = gs_rowtext_write(d->text, pos, k, put, &out, &st);
        if (rc) break;
        gs_rowtext_release(d->text, done);
    }
    d->close(d);
    int bad = rc || done != rows || out.n != want_n || (want_n && memcmp(out.p, want, want_n));
    if (rc) snprintf(why, whylen, "read: %s", st.msg);
    else if (bad) {
        size_t i = 0;
        while (i < out.n && i < want_n && out.p[i] == want[i]) i++;
        snprintf(why, whylen, "%llu values; %zu bytes written, %zu wanted, first difference at byte %zu",
                 (unsigned long long)done, out.n, want_n, i);
    }
    free(out.p), free(vals), free(pos);
    return bad;
}

/* Row i's kept fields (note, id) as in the input, then its price field (keep 1) or its price
 * formatted (keep 2), and a line end. */
static void want_kept(text *w, const char *row, size_t len, int keep)
{
    char f[3][64];
    size_t fl[3] = {0}, k = 0;
    int inq = 0;
    while (len && (row[len - 1] == '\n' || row[len - 1] == '\r')) len--;
    for (size_t i = 0; i < len; i++) {
        if (row[i] == '"') inq = !inq;
        if (row[i] == ',' && !inq) k++;
        else f[k][fl[k]++] = row[i];
    }
    if (keep != 3) add(w, f[2], fl[2]), add(w, ",", 1);
    add(w, f[0], fl[0]);
    add(w, ",", 1);
    if (keep == 1) add(w, f[1], fl[1]);
    else {
        char num[GS_NUM_CHARS];
        f[1][fl[1]] = 0;
        const double v = strtod(f[1], NULL);
        add(w, num, (size_t)gs_num_format(num, GS_F64, &v));
    }
    add(w, "\n", 1);
}

int main(void)
{
    gs_pool_start(8);
    const size_t rows = 60000;
    size_t *at = malloc(rows * sizeof *at), *len = malloc(rows * sizeof *len);
    for (int crlf = 0; crlf < 2; crlf++) {
        size_t n, nv = 0;
        char *csv = make_csv(rows, 1500, crlf, at, len, &n);
        size_t *vr = malloc(rows * sizeof *vr); /* the rows with a value, in order */
        for (size_t i = 0; i < rows; i++)
            if (i < 3000 || i >= 3000 + 1000) vr[nv++] = i;
        const int every[] = {1, 3, 1, 3, 1, 1}, keeps[] = {0, 0, 1, 1, 2, 3};
        for (int e = 0; e < 6; e++) {
            text want = {0};
            for (size_t v = 0; v < nv; v += (size_t)every[e]) {
                const size_t i = vr[v];
                if (keeps[e]) want_kept(&want, csv + at[i], len[i], keeps[e]);
                else add(&want, csv + at[i], len[i]);
            }
            const size_t blocks[] = {4096, 65536, 0};
            const int threads[] = {1, 3, 8};
            for (int b = 0; b < 3; b++)
                for (int t = 0; t < 3; t++) {
                    char why[600] = "", name[96];
                    const size_t step = b == 1 ? 1000 : n;
                    snprintf(name, sizeof name, "%s_%s_every%d_block%zu_threads%d",
                             keeps[e] == 3 ? "keep_one" : keeps[e] == 2 ? "keep_value" : keeps[e] ? "keep_field" : "rows", crlf ? "crlf" : "lf", every[e],
                             blocks[b], threads[t]);
                    CHECK(!read_rows(csv, n, blocks[b], threads[t], step, every[e], keeps[e], want.p, want.n, nv, why,
                                     sizeof why),
                          name, "%s", why);
                }
            free(want.p);
        }
        free(csv), free(vr);
    }
    free(at), free(len);
    return CHECK_DONE();
}
