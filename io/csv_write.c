/* csv_write.c - CSV and text out (csv.h): one row per line, the values of a row joined by the
 * delimiter (text: a space); an optional header line first, with the same delimiter. Rows are
 * formatted in parallel into per-part buffers and written in order. */
#include "csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/pool.h"

#define MAX_ROWS_PART 65536 /* rows per formatting part: bounds the text buffers */
#define VAL_CHARS GS_NUM_CHARS /* room for one gs_num_format */

typedef struct lenc {
    gs_encoder base;
    gs_type type;
    size_t esize;
    int ncols;
    gs_type coltypes[GS_WRITE_COLS_MAX]; /* each column's printed type */
    int mixed;                           /* some column is printed in another type than `type` */
    char sep;
    int nthreads;
    char **bufs;         /* one text buffer per part, each for buf_rows rows */
    size_t *lens;
    size_t nbufs, buf_rows;
    /* the current job */
    const char *vals;
    size_t rows, per_part;
} lenc;

static void fmt_part(void *ctx, size_t p, size_t np)
{
    lenc *E = ctx;
    size_t r0 = p * E->per_part, r1 = r0 + E->per_part;
    const size_t stride = E->esize * (size_t)E->ncols;
    (void)np;
    if (r1 > E->rows) r1 = E->rows;
    char *o = E->bufs[p];
    for (size_t r = r0; r < r1; r++) {
        const char *v = E->vals + r * stride;
        for (int c = 0; c < E->ncols; c++) {
            if (E->mixed && E->coltypes[c] != E->type) {
                gs_value x;
                gs_convert(v + (size_t)c * E->esize, E->type, &x, E->coltypes[c], 1);
                o += gs_num_format(o, E->coltypes[c], &x);
            } else {
                o += gs_num_format(o, E->type, v + (size_t)c * E->esize);
            }
            *o++ = c + 1 < E->ncols ? E->sep : '\n';
        }
    }
    E->lens[p] = (size_t)(o - E->bufs[p]);
}

/* Text buffers for np parts of `need` rows each. */
static int lenc_room(lenc *E, size_t np, size_t need, gs_status *st)
{
    const char *name = E->base.sink->name;
    if (need > E->buf_rows) {
        size_t nr = E->buf_rows * 2 > need ? E->buf_rows * 2 : need;
        if (nr > MAX_ROWS_PART) nr = MAX_ROWS_PART;
        for (size_t i = 0; i < E->nbufs; i++) {
            char *nb = realloc(E->bufs[i], nr * ((size_t)E->ncols * VAL_CHARS + 1) + VAL_CHARS);
            if (!nb) return gs_fail(st, GS_ENOMEM, "%s: out of memory", name);
            E->bufs[i] = nb;
        }
        E->buf_rows = nr;
    }
    if (np > E->nbufs) {
        char **nb = realloc(E->bufs, np * sizeof *nb);
        size_t *nl = nb ? realloc(E->lens, np * sizeof *nl) : NULL;
        if (nb) E->bufs = nb;
        if (!nl) return gs_fail(st, GS_ENOMEM, "%s: out of memory", name);
        E->lens = nl;
        for (size_t i = E->nbufs; i < np; i++) {
            E->bufs[i] = malloc(E->buf_rows * ((size_t)E->ncols * VAL_CHARS + 1) + VAL_CHARS);
            if (!E->bufs[i]) return gs_fail(st, GS_ENOMEM, "%s: out of memory", name);
            E->nbufs = i + 1;
        }
    }
    return GS_OK;
}

static int lenc_write(gs_encoder *e, const void *vals, size_t n, gs_status *st)
{
    lenc *E = (lenc *)e;
    if (n % (size_t)E->ncols)
        return gs_fail(st, GS_EUSAGE, "%s: %zu values do not make whole rows of %d", e->sink->name, n, E->ncols);
    size_t rows = n / (size_t)E->ncols;
    const char *v = vals;
    while (rows) {
        /* Enough rows per part to amortise the hand-off, few enough to bound memory. */
        size_t per = (rows + (size_t)E->nthreads - 1) / (size_t)E->nthreads;
        if (per < 4096) per = 4096;
        if (per > MAX_ROWS_PART) per = MAX_ROWS_PART;
        size_t np = (rows + per - 1) / per;
        if (np > (size_t)E->nthreads) np = (size_t)E->nthreads;
        size_t batch = np * per < rows ? np * per : rows;
        /* The buffers hold the rows of a part (a few values need no MiBs of text buffer). */
        int r = lenc_room(E, np, per < batch ? per : batch, st);
        if (r) return r;
        E->vals = v;
        E->rows = batch;
        E->per_part = per;
        gs_parallel_for(np, fmt_part, E);
        for (size_t i = 0; i < np; i++)
            if ((r = e->sink->write(e->sink, E->bufs[i], E->lens[i], st))) return r;
        v += batch * (size_t)E->ncols * E->esize;
        rows -= batch;
    }
    e->values += n;
    return GS_OK;
}

static void lenc_free(lenc *E)
{
    for (size_t i = 0; i < E->nbufs; i++) free(E->bufs[i]);
    free(E->bufs);
    free(E->lens);
    free(E);
}

static int lenc_close(gs_encoder *e, gs_status *st)
{
    int r = e->sink->close(e->sink, st);
    lenc_free((lenc *)e);
    return r;
}

static void lenc_abort(gs_encoder *e)
{
    if (!e) return;
    e->sink->abort(e->sink);
    lenc_free((lenc *)e);
}

int gs_lines_enc_open(gs_encoder **e, gs_bsink *k, const gs_write_opts *o, char sep, const char *header,
                      gs_status *st)
{
    *e = NULL;
    if ((unsigned)o->type >= GS_NTYPES) return gs_fail(st, GS_EUSAGE, "%s: invalid element type", k->name);
    if (o->ncols < 1 || o->ncols > GS_WRITE_COLS_MAX)
        return gs_fail(st, GS_EUSAGE, "%s: %d columns per row are not supported", k->name, o->ncols);
    lenc *E = calloc(1, sizeof *E);
    if (!E) return gs_fail(st, GS_ENOMEM, "%s: out of memory", k->name);
    E->base.write = lenc_write;
    E->base.close = lenc_close;
    E->base.abort = lenc_abort;
    E->base.sink = k;
    E->type = o->type;
    E->esize = gs_type_size(o->type);
    E->ncols = o->ncols;
    for (int c = 0; c < o->ncols; c++) {
        E->coltypes[c] = o->coltypes && (unsigned)o->coltypes[c] < GS_NTYPES ? o->coltypes[c] : o->type;
        E->mixed |= E->coltypes[c] != o->type;
    }
    E->sep = sep;
    E->base.text_cols = E->mixed ? 0 : E->ncols;
    E->base.text_sep = sep;
    E->nthreads = o->threads > 0 ? o->threads : gs_pool_threads();
    if (header) {
        int r = k->write(k, header, strlen(header), st);
        if (!r) r = k->write(k, "\n", 1, st);
        if (r) {
            lenc_free(E); /* the caller keeps the sink on failure */
            return r;
        }
    }
    *e = &E->base;
    return GS_OK;
}

/* The header line: each of the ncols names (the last takes the rest of `names`, the others end
 * at a ','), joined by delim; a name is quoted when it holds the delimiter, a quote, a line
 * break or surrounding space. NULL when out of memory. */
static char *csv_header(const char *names, int ncols, char delim)
{
    char *out = malloc(2 * strlen(names) + 3 * (size_t)ncols + 1), *w = out;
    const char *s = names;
    if (!out) return NULL;
    for (int c = 0; c < ncols; c++) {
        const char *e = c + 1 < ncols && strchr(s, ',') ? strchr(s, ',') : s + strlen(s);
        size_t n = (size_t)(e - s);
        int quote = memchr(s, delim, n) || memchr(s, '"', n) || memchr(s, '\n', n) || memchr(s, '\r', n) ||
                    (n && (s[0] == ' ' || s[n - 1] == ' '));
        if (c) *w++ = delim;
        if (quote) *w++ = '"';
        for (; s < e; s++) {
            if (*s == '"' && quote) *w++ = '"';
            *w++ = *s;
        }
        if (quote) *w++ = '"';
        if (*s) s++;
    }
    *w = 0;
    return out;
}

int gs_enc_open_csv(gs_encoder **e, gs_bsink *k, const gs_write_opts *o, gs_status *st)
{
    char delim = o->delim ? o->delim : ',';
    char *h = NULL;
    *e = NULL;
    if (delim == '"' || delim == '\n' || delim == '\r')
        return gs_fail(st, GS_EUSAGE, "invalid CSV delimiter (a quote or a line break)");
    if (o->colnames && o->ncols >= 1 && o->ncols <= GS_WRITE_COLS_MAX && !(h = csv_header(o->colnames, o->ncols, delim)))
        return gs_fail(st, GS_ENOMEM, "%s: out of memory", k->name);
    int r = gs_lines_enc_open(e, k, o, delim, h, st);
    free(h);
    return r;
}
