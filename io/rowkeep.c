/* rowkeep.c - --keep: the kept columns of each result's input row, from the row store (rowtext.c),
 * before the results: the columns resolved against the header, each row's kept fields (cut by the
 * reader as it parsed, or found here in the row), and the results formatted, in parts on the pool. */
#include "rowtext.h"

#include "../common/pool.h"

#include "csv_scan.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gs_rowtext_keep_resolve(gs_rowtext *t, const char *spec, char **names, int nnames, int vcol, char delim,
                            const char *src, gs_status *st)
{
    int all = !strcmp(spec, "all"), nk = 0, *cols = calloc(strlen(spec) / 2 + 2, sizeof *cols), r = GS_OK;
    if (!cols) return gs_fail(st, GS_ENOMEM, "out of memory");
    for (const char *p = spec; !all && *p && !r;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char item[256];
        snprintf(item, sizeof item, "%.*s", (int)(len < 255 ? len : 255), p);
        long v = 0;
        if (gs_col_number(item, &v)) {
            if (v < 1 || v > INT_MAX - 1) r = gs_fail(st, GS_EUSAGE, "invalid --keep column '%s' (columns are counted from 1)", item);
            cols[nk++] = (int)v - 1;
        } else if (!names) {
            r = gs_fail(st, GS_EUSAGE, "--keep column '%s' is given by name, which needs a header line", item);
        } else {
            const int i = gs_col_lookup(names, nnames, item, strlen(item), src, " (--keep)", st);
            if (i < 0) r = GS_EDATA;
            cols[nk++] = i;
        }
        p = e ? e + 1 : p + len;
    }
    if (!r && gs_rowtext_set_keep(t, cols, nk, all, vcol, delim)) r = gs_fail(st, GS_ENOMEM, "out of memory");
    free(cols);
    return r;
}

int gs_rowtext_set_keep(gs_rowtext *t, const int *cols, int n, int all, int vcol, char delim)
{
    free(t->keep);
    t->keep = NULL;
    if (n && !(t->keep = malloc((size_t)n * sizeof *t->keep))) return -1;
    if (n) memcpy(t->keep, cols, (size_t)n * sizeof *cols);
    t->nkeep = n;
    t->keep_all = all;
    t->vcol = vcol;
    t->delim = delim;
    t->need_kept = 0;
    for (int k = 0; k < n; k++)
        if (cols[k] + 1 > t->need_kept) t->need_kept = cols[k] + 1;
    t->need = vcol + 1 > t->need_kept ? vcol + 1 : t->need_kept;
    return 0;
}

const int *gs_rowtext_keep_list(const gs_rowtext *t, int *n, int *all)
{
    *n = t->nkeep;
    *all = t->keep_all;
    return t->keep;
}

void gs_rowtext_keep_cols(gs_rowtext *t, int ncols, const gs_type *coltypes)
{
    t->ncols = ncols >= 1 && ncols <= GS_WRITE_COLS_MAX ? ncols : 1;
    t->coltyped = coltypes != NULL;
    for (int c = 0; coltypes && c < t->ncols; c++) t->coltypes[c] = coltypes[c];
}

/* ---- --keep: columns of the rows before the results ---------------------------------------------- */

/* The first `need` fields of row [p, p+len) (every field where need is 0) as in the input (quotes
 * kept, the line end dropped) into b->fs: field k is [fs[2k], fs[2k+1]) from p. Returns the count,
 * or -1 where memory is short. A row without a quote (no line end inside) is cut by gs_field_end. */
static long row_fields(gs_rt_buf *b, char delim, const char *p, size_t len, long need, int maybe_quoted)
{
    while (len && (p[len - 1] == '\n' || p[len - 1] == '\r')) len--;
    const long want = need > 0 ? need : LONG_MAX;
    if ((size_t)(2 * (need > 0 ? need : 32)) > b->fs_cap || !b->fs) {
        size_t nc = (size_t)(2 * (need > 0 ? need : 32));
        size_t *nf = realloc(b->fs, nc * sizeof *nf);
        if (!nf) return -1;
        b->fs = nf;
        b->fs_cap = nc;
    }
    const int quoted = maybe_quoted && memchr(p, '"', len) != NULL;
    size_t n = 0, f = 0;
    int inq = 0;
    for (size_t i = 0; (long)n < want;) {
        if (!quoted)
            i = (size_t)(gs_field_end(p + i, p + len, delim) - p);
        else
            for (; i < len && (inq || p[i] != delim); i++)
                if (p[i] == '"') inq = !inq;
        if (2 * n + 2 > b->fs_cap) {
            size_t nc = b->fs_cap * 2;
            size_t *nf = realloc(b->fs, nc * sizeof *nf);
            if (!nf) return -1;
            b->fs = nf;
            b->fs_cap = nc;
        }
        b->fs[2 * n] = f;
        b->fs[2 * n + 1] = i;
        n++;
        if (i >= len) break;
        f = ++i;
    }
    return (long)n;
}

/* Room for n more bytes at b->out + b->len (nomem set where memory is short). */
static inline int room(gs_rt_buf *b, size_t n)
{
    if (b->nomem) return -1;
    if (b->len + n <= b->cap) return 0;
    size_t nc = b->cap ? b->cap * 2 : 65536;
    while (nc < b->len + n) nc *= 2;
    char *no = realloc(b->out, nc);
    if (!no) return b->nomem = 1, -1;
    b->out = no;
    b->cap = nc;
    return 0;
}

/* The kept fields of row [p, p+len), each followed by the delimiter where more follows; the value's
 * field after them where value_field; then `extra` bytes of room for what follows. */
static void keep_row(const gs_rowtext *t, gs_rt_buf *b, const char *p, size_t len, int quotes, int value_field,
                     size_t extra)
{
    long nf = row_fields(b, t->delim, p, len, t->keep_all ? 0 : value_field ? t->need : t->need_kept, quotes);
    if (nf < 0) {
        b->nomem = 1;
        return;
    }
    const int n = t->keep_all ? (int)nf : t->nkeep;
    const size_t *fs = b->fs;
    size_t bytes = (size_t)n + extra + 1;
    for (int k = 0; k < n; k++) {
        const long c = t->keep_all ? k : t->keep[k];
        if (c < nf) bytes += fs[2 * c + 1] - fs[2 * c];
    }
    if (value_field && t->vcol < nf) bytes += fs[2 * t->vcol + 1] - fs[2 * t->vcol];
    if (room(b, bytes)) return;
    char *o = b->out + b->len;
    for (int k = 0; k < n; k++) {
        const long c = t->keep_all ? k : t->keep[k];
        if (c < nf) {
            gs_copy_small(o, p + fs[2 * c], fs[2 * c + 1] - fs[2 * c]);
            o += fs[2 * c + 1] - fs[2 * c];
        }
        if (k + 1 < n || value_field) *o++ = t->delim;
    }
    if (value_field && t->vcol < nf) {
        gs_copy_small(o, p + fs[2 * t->vcol], fs[2 * t->vcol + 1] - fs[2 * t->vcol]);
        o += fs[2 * t->vcol + 1] - fs[2 * t->vcol];
    }
    b->len = (size_t)(o - b->out);
}

int gs_rowtext_keep_header(gs_rowtext *t, const char *result, int (*put)(void *ctx, const char *p, size_t len, gs_status *st),
                           void *ctx, gs_status *st)
{
    if (!t->header) return GS_OK;
    if (gs_rt_parts(t, 1)) return gs_fail(st, GS_ENOMEM, "out of memory");
    gs_rt_buf *b = &t->parts[0];
    b->len = b->nomem = 0;
    keep_row(t, b, t->header, t->header_len, 1, 0, 0);
    for (const char *r = result, *e; r; r = e ? e + 1 : NULL) { /* "a_min,a_max": the names, delimited */
        e = strchr(r, ',');
        gs_rt_out_add(b, &t->delim, 1);
        gs_rt_out_add(b, r, e ? (size_t)(e - r) : strlen(r));
    }
    gs_rt_out_add(b, "\n", 1);
    if (b->nomem) return gs_fail(st, GS_ENOMEM, "out of memory");
    return put(ctx, b->out, b->len, st);
}

/* A batch of --keep rows, formatted in parts on the pool. */
typedef struct keep_job {
    gs_rowtext *t;
    const uint64_t *pos; /* NULL: the rows first, first + 1, ... */
    uint64_t first;
    size_t n, per;
    gs_type type;
    const void *vals;
    gs_rt_seg *head;      /* the oldest segment held */
    int missing;    /* a position not held */
} keep_job;


static void keep_part(void *ctx, size_t p, size_t np)
{
    keep_job *J = ctx;
    gs_rowtext *t = J->t;
    gs_rt_buf *b = &t->parts[p];
    const size_t es = gs_type_size(J->type), i1 = (p + 1) * J->per < J->n ? (p + 1) * J->per : J->n;
    const size_t extra = J->vals ? (size_t)t->ncols * (GS_NUM_CHARS + 1) + 1 : 1;
    gs_rt_seg *s = J->head;
    size_t k = 0; /* the row's index in s */
    (void)np;
    b->len = 0;
    for (size_t i = p * J->per; i < i1 && !b->nomem; i++) {
        size_t len;
        const char *row;
        if (J->pos || i == p * J->per) { /* found from its position; the next row follows it (no pos) */
            const uint64_t at = J->pos ? J->pos[i] : J->first + i;
            if ((row = gs_rt_row_at(&s, at, &len))) k = (size_t)(at - s->first);
        } else if (++k < s->n || (s = s->next, k = 0, s)) {
            row = s->text + s->spans[2 * k];
            len = (size_t)s->spans[2 * k + 1];
        } else {
            row = NULL;
        }
        if (!row) {
            J->missing = 1;
            return;
        }
        if (!s->kept) {
            keep_row(t, b, row, len, s->quotes, !J->vals, extra); /* room for the results and the line end */
        } else if (!room(b, len + extra)) { /* the kept fields, cut by the reader */
            gs_copy_small(b->out + b->len, row, len);
            b->len += len;
        }
        if (b->nomem) return;
        char *o = b->out + b->len;
        const char *v = J->vals ? (const char *)J->vals + i * es * (size_t)t->ncols : NULL;
        for (int c = 0; v && c < t->ncols; c++, v += es) {
            gs_value x;
            const void *at = v;
            gs_type ty = J->type;
            if (t->coltyped && t->coltypes[c] != J->type) { /* printed in the column's own type, as the csv writer does */
                gs_convert(v, J->type, &x, t->coltypes[c], 1);
                at = &x;
                ty = t->coltypes[c];
            }
            *o++ = t->delim;
            o += gs_num_format(o, ty, at);
        }
        *o++ = '\n';
        b->len = (size_t)(o - b->out);
    }
}

int gs_rowtext_write_keep(gs_rowtext *t, const uint64_t *pos, uint64_t first, size_t n, gs_type type, const void *vals,
                          int (*put)(void *ctx, const char *p, size_t len, gs_status *st), void *ctx, gs_status *st)
{
    const size_t per_max = 1 << 18; /* rows a part: bounds its text (a few MiB) */
    int rc = GS_OK;
    gs_rt_seg *head = gs_rt_first(t);
    for (size_t done = 0; done < n && !rc;) {
        size_t np = (size_t)gs_pool_threads(), left = n - done;
        size_t per = (left + np - 1) / np;
        if (per < 4096) per = 4096;
        if (per > per_max) per = per_max;
        np = (left + per - 1) / per;
        if (np > (size_t)gs_pool_threads()) np = (size_t)gs_pool_threads();
        if (np < 1) np = 1;
        const size_t batch = np * per < left ? np * per : left;
        if (gs_rt_parts(t, np)) {
            rc = gs_fail(st, GS_ENOMEM, "out of memory");
            break;
        }
        keep_job J = {t, pos ? pos + done : NULL, first + done, batch, per, type,
                      vals ? (const char *)vals + done * gs_type_size(type) * (size_t)t->ncols : NULL, head, 0};
        for (size_t p = 0; p < np; p++) t->parts[p].nomem = 0;
        if (np > 1) gs_parallel_for(np, keep_part, &J);
        else keep_part(&J, 0, 1);
        for (size_t p = 0; p < np && !rc; p++) {
            if (t->parts[p].nomem) rc = gs_fail(st, GS_ENOMEM, "out of memory");
            else if (J.missing) rc = gs_rt_not_held(pos ? pos[done] : first + done, st);
            else rc = put(ctx, t->parts[p].out, t->parts[p].len, st);
        }
        done += batch;
    }
    return rc;
}

