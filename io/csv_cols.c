/* csv_cols.c - several CSV columns read in one pass (--col a,b,c): each row gives one element of
 * ncols values in the list's order. The fast splitter's and libcsv's rows for that case, and the
 * columns resolved against the first row. A row is taken whole or not at all: a missing value
 * under --na skip in any of its columns drops it (pandas' dropna over those columns), a bad field
 * fails the run or, with --skip-bad, drops the row; a row shorter than the last column listed is a
 * missing column. A row taken records its bytes for the row store where rows are kept (--keep). */
#include "csv_lines.h"
#include "missing.h"

#include <stdlib.h>
#include <string.h>

/* ---- the row of values ------------------------------------------------------------------------ */

/* A row open at a block's end: its values so far wait in w->held for the next block's piece. */
void gs_colrow_hold(const gs_lparse *c, gs_piece *pc, gs_colrow *w, int unhold)
{
    const size_t rsize = c->esize * (size_t)c->ncols;
    if (!w->fields) return;
    if (!unhold) {
        if (pc->n < pc->cap) memcpy(w->held, pc->vals + pc->n * rsize, rsize);
        return;
    }
    char *slot = gs_piece_slot(pc, rsize);
    if (slot) memcpy(slot, w->held, rsize);
}

void gs_colrow_begin(gs_colrow *w)
{
    w->fields = 0;
    w->na_skip = 0;
    w->dropped = 0;
}

/* Field number w->fields (1-based, counted by the caller) of the row, [f, f + len) untrimmed: its
 * value into the row's slot where it is a column of the list. 1 where the parser must stop. */
int gs_colrow_field(const gs_lparse *c, gs_piece *pc, gs_colrow *w, const char *f, size_t len, uint64_t line)
{
    const char *fe = f + len;
    if (w->dropped || w->fields > c->maxcol) return 0;
    for (int i = 0; i < c->ncols; i++) {
        if (c->cols[i] != w->fields) continue;
        while (f < fe && gs_lparse_trim(c, *f)) f++;
        while (fe > f && gs_lparse_trim(c, fe[-1])) fe--;
        char *slot = gs_piece_slot(pc, c->esize * (size_t)c->ncols);
        if (!slot) return 1;
        int r = gs_field_parse(c, f, (size_t)(fe - f), slot + (size_t)i * c->esize);
        if (r == GS_FIELD_SKIP) w->na_skip = 1;
        else if (r) {
            w->dropped = 1; /* counted as a skip by gs_piece_bad under --skip-bad */
            return gs_piece_bad(c, pc, r, line, w->fields, 0, f, (size_t)(fe - f));
        }
    }
    return 0;
}

/* The row ends: taken, dropped or a missing column. blank: the line held no field (skipped).
 * keep_rows: a row taken is row_len bytes from row_at (gs_piece_span's). 1 where the parser must
 * stop. */
int gs_colrow_end(const gs_lparse *c, gs_piece *pc, gs_colrow *w, int blank, uint64_t line, int64_t row_at,
                  int64_t row_len)
{
    if (w->dropped || blank) return 0;
    if (w->fields < c->maxcol) {
        int miss = c->maxcol;
        for (int i = 0; i < c->ncols; i++)
            if (c->cols[i] > w->fields && c->cols[i] < miss) miss = c->cols[i];
        return gs_piece_bad(c, pc, GS_PERR_MISSING, line, miss, w->fields, "", 0);
    }
    if (w->na_skip) return gs_piece_skip(pc);
    pc->n++;
    return pc->keep_rows ? gs_piece_span(pc, row_at, row_len) : 0;
}

/* ---- the fast splitter ----------------------------------------------------------------------- */

void gs_csv_piece_cols(const gs_lparse *c, gs_piece *pc)
{
    const char *p = pc->begin, *end = pc->end;
    uint64_t line = 0;
    if (memchr(p, '"', (size_t)(end - p))) {
        pc->quoted = 1;
        return;
    }
    gs_colrow w;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) nl = end;
        const int blank = gs_lparse_blank(c, p, nl);
        gs_colrow_begin(&w);
        for (const char *f = p; !blank;) {
            const char *fe = f;
            while (fe < nl && *fe != c->delim) fe++;
            w.fields++;
            if (gs_colrow_field(c, pc, &w, f, (size_t)(fe - f), line)) return;
            if (fe == nl || w.fields >= c->maxcol) break;
            f = fe + 1;
        }
        if (gs_colrow_end(c, pc, &w, blank, line, p - pc->begin, (nl < end ? nl + 1 : end) - p)) return;
        if (nl == end) break;
        line++;
        p = nl + 1;
    }
    pc->lines = line;
}

/* ---- the columns, from the first row ----------------------------------------------------------- */

/* Whether a list names a column (needs a header): resolved without names, it fails only for that
 * (its form was checked before). */
static int names_a_column(const char *spec)
{
    int cols[GS_WRITE_COLS_MAX], k;
    gs_status st = {0};
    return gs_cols_resolve(spec, NULL, 0, cols, &k, "", &st) != GS_OK;
}

/* The list named one header cell whole: column col, the first row its header. */
static int setup_one(gs_lparse *cfg, gs_decoder *d, int col, char *const *f, int *is_header, char ***colnames,
                     const char *name, gs_status *st)
{
    char **names = calloc(GS_WRITE_COLS_MAX, sizeof *names);
    if (!names || !(names[0] = strdup(f[col - 1]))) {
        free(names);
        return gs_fail(st, GS_ENOMEM, "%s: out of memory", name);
    }
    *colnames = names;
    cfg->ncols = 0;
    cfg->col = col;
    d->colname = names[0];
    *is_header = 1;
    return GS_OK;
}

int gs_csv_cols_setup(gs_lparse *cfg, gs_decoder *d, const gs_read_opts *o, char *const *f, int n, int *is_header,
                      char ***colnames, gs_status *st)
{
    const char *name = d->src->name;
    const int by_name = names_a_column(o->col);
    int cols[GS_WRITE_COLS_MAX], k = 0;
    *is_header = 0;
    for (int i = 0; f && o->header != GS_HDR_NO && i < n; i++)
        if (!strcmp(f[i], o->col)) { /* a header cell holding ',': that one column */
            k = 1;
            cols[0] = i + 1;
        }
    if (k) return setup_one(cfg, d, cols[0], f, is_header, colnames, name, st);
    if (by_name && o->header == GS_HDR_NO)
        return gs_fail(st, GS_EUSAGE, "--col '%s' names columns, which needs a header line (drop --no-header)", o->col);
    int r = gs_cols_resolve(o->col, by_name && f ? f : NULL, n, cols, &k, name, st);
    if (r) return r;
    if (f) {
        *is_header = by_name || o->header == GS_HDR_YES;
        for (int i = 0; i < k && !*is_header && o->header == GS_HDR_AUTO; i++)
            if (cols[i] <= n) *is_header = gs_row_is_header((const char *const *)f, n, cols[i] - 1);
    }
    cfg->ncols = k > 1 ? k : 0; /* a list of one ("3-3"): the single column's path */
    cfg->col = cols[0];
    cfg->maxcol = 0;
    for (int i = 0; i < k; i++) {
        cfg->cols[i] = cols[i];
        if (cols[i] > cfg->maxcol) cfg->maxcol = cols[i];
    }
    d->ncols = cfg->ncols;
    if (!*is_header) return GS_OK;
    char **names = calloc(GS_WRITE_COLS_MAX, sizeof *names);
    if (!names) return gs_fail(st, GS_ENOMEM, "%s: out of memory", name);
    *colnames = names;
    d->colnames = names;
    for (int i = 0; i < k; i++)
        if (!(names[i] = strdup(cols[i] <= n ? f[cols[i] - 1] : "")))
            return gs_fail(st, GS_ENOMEM, "%s: out of memory", name);
    if (k == 1) d->colname = names[0];
    return GS_OK;
}

void gs_csv_cols_free(char **colnames, int k)
{
    if (!colnames) return;
    for (int i = 0; i < k; i++) free(colnames[i]);
    free(colnames);
}
