/* csv.c - CSV in: the fields as libcsv reads them, the first row, the header and --keep's columns.
 * Blocks, pieces and threads are the line engine's (csv_lines.c).
 *
 * Reading. First the line-end style: that of the first CR or LF outside quotes. A lone CR
 * (old Mac and Excel exports) makes every CR a line end, read as LF; otherwise LF ends lines
 * and a CR is surrounding space (so CRLF works). Then a header stage parses the first row with
 * libcsv (quotes allowed), resolves --col (1-based index or header name) and decides whether
 * that row is a header (--header, --no-header, or auto: a header when the selected field is
 * not a number). The rest goes to the engine: a block without a quote character cannot hold a
 * quoted field, so its pieces go to the fast splitter in parallel; a block with a quote
 * character (or one that starts inside a quoted field) goes through libcsv here, in order,
 * line by line, so that quoted delimiters and line breaks are right. Both agree on the dialect:
 * rows end at '\n'; ' ', '\t' and '\r' around a field are surrounding space, except the
 * delimiter itself; blank lines are skipped; fields beyond the selected one are not looked at; a
 * UTF-8 byte order mark is dropped. Every bad field names its line (the count of '\n' before
 * it, plus one) and field; with several bad fields in a block, the first in the file is reported.
 *
 * Writing: csv_write.c. */
#include "csv.h"

#include <csv.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv_lines.h"
#include "missing.h"

/* libcsv's parser state "inside a field" (csv.h exposes struct csv_parser but not the state
 * names; the values have been fixed since libcsv 1.0). With p->quoted set, it means an open
 * quote: at the end of the input, a missing closing quote. Checked here rather than with
 * CSV_STRICT_FINI, which needs CSV_STRICT, which rejects stray quotes in unquoted text
 * fields that we never look at. */
#define LIBCSV_FIELD_BEGUN 2
static int open_quote(const struct csv_parser *p) { return p->pstate == LIBCSV_FIELD_BEGUN && p->quoted; }

/* ---- the dialect on libcsv ------------------------------------------------------------------ */

/* Surrounding space: ' ' and '\t' unless one is the delimiter, and '\r' unless it ends lines. */
static int sp_all(unsigned char c) { return c == ' ' || c == '\t'; }
static int sp_notab(unsigned char c) { return c == ' '; }
static int sp_nospace(unsigned char c) { return c == '\t'; }
static int sp_all_cr(unsigned char c) { return sp_all(c) || c == '\r'; }
static int sp_notab_cr(unsigned char c) { return sp_notab(c) || c == '\r'; }
static int sp_nospace_cr(unsigned char c) { return sp_nospace(c) || c == '\r'; }
static int term_lf(unsigned char c) { return c == '\n'; }
static int term_crlf(unsigned char c) { return c == '\n' || c == '\r'; }

/* libcsv with our dialect: '\n' ends rows and '\r' is space (the engine has turned lone-CR
 * line ends into '\n'); with find_end, '\r' ends rows too and every row end is reported (blank
 * lines included), to find the first. The delimiter is never space. */
static int csv_setup(struct csv_parser *p, char delim, int find_end)
{
    if (csv_init(p, find_end ? CSV_REPALL_NL : 0) != 0) return -1;
    csv_set_delim(p, (unsigned char)delim);
    if (find_end) csv_set_space_func(p, delim == '\t' ? sp_notab : delim == ' ' ? sp_nospace : sp_all);
    else csv_set_space_func(p, delim == '\t' ? sp_notab_cr : delim == ' ' ? sp_nospace_cr : sp_all_cr);
    csv_set_term_func(p, find_end ? term_crlf : term_lf);
    csv_set_blk_size(p, 4096);
    return 0;
}

/* ---- blocks with quotes: libcsv, in order ---------------------------------------------------- */

typedef struct csv_seq {
    struct csv_parser cp;
    const gs_lparse *cfg;
    gs_piece *pc;        /* the block's piece */
    int field;           /* fields seen in the current row */
    int row_open;        /* some field of the current row was seen */
    uint64_t row_start;  /* absolute '\n' count before the current row's first line */
    uint64_t line;       /* '\n' fed so far in this block */
    int stop;
    char *colname;       /* the header's name of the column */
    char **colnames;     /* several columns: their header names (io/csv_cols.c) */
    gs_colrow crow;      /* several columns: the row being read */
    /* keep_rows: bytes from the block's begin (negative: in the row carried over) */
    int64_t row_start_b; /* where the current row began */
    int64_t line_end_b;  /* the end of the line being fed */
    size_t pending;      /* 1 + the value whose row has not ended yet; 0: none */
    char held[8];        /* that value, held back to the next block when its row goes on there */
    int has_held;
} csv_seq;

static void seq_field(void *s, size_t len, void *data)
{
    csv_seq *C = data;
    const gs_lparse *c = C->cfg;
    if (C->stop) return;
    C->row_open = 1;
    if (c->ncols > 1) { /* several columns: the row is taken at its end */
        C->crow.fields = ++C->field;
        if (gs_colrow_field(c, C->pc, &C->crow, s, len, C->line)) C->stop = 1;
        return;
    }
    if (++C->field != c->col) return;
    const char *f = s, *fe = f + len;
    /* libcsv trims unquoted fields; a quoted " 12 " is trimmed here too. */
    while (f < fe && gs_lparse_trim(c, *f)) f++;
    while (fe > f && gs_lparse_trim(c, fe[-1])) fe--;
    void *slot = gs_piece_slot(C->pc, c->esize);
    if (!slot) {
        C->stop = 1;
        return;
    }
    int r = gs_field_parse(c, f, (size_t)(fe - f), slot);
    if (r == 0) {
        C->pc->n++;
        if (C->pc->keep_rows) {
            C->pending = C->pc->n;
            if (gs_piece_span(C->pc, C->row_start_b, -1)) C->stop = 1;
        }
    } else if (r == GS_FIELD_SKIP ? gs_piece_skip(C->pc) : gs_piece_bad(c, C->pc, r, C->line, c->col, 0, f, (size_t)(fe - f)))
        C->stop = 1;
}

static void seq_row(int ch, void *data)
{
    csv_seq *C = data;
    (void)ch;
    if (C->cfg->ncols > 1) {
        const int64_t at = C->row_start_b; /* the row: from its start (maybe carried) to the line's end */
        if (!C->stop && gs_colrow_end(C->cfg, C->pc, &C->crow, 0, C->line, at, C->line_end_b - at)) C->stop = 1;
        gs_colrow_begin(&C->crow);
    } else if (!C->stop && C->field < C->cfg->col &&
        gs_piece_bad(C->cfg, C->pc, GS_PERR_MISSING, C->line, C->cfg->col, C->field, "", 0))
        C->stop = 1;
    C->field = 0;
    C->row_open = 0;
    if (C->pending) { /* the value's row ends here */
        int64_t *sp = C->pc->spans + 2 * (C->pending - 1);
        sp[1] = C->line_end_b - sp[0];
        C->pending = 0;
    }
}

/* keep_rows, before a block: a value held back from the block before joins this one first. */
static void seq_unhold(csv_seq *C, gs_piece *pc)
{
    void *slot = gs_piece_slot(pc, C->cfg->esize);
    if (!slot) {
        C->stop = 1;
        return;
    }
    memcpy(slot, C->held, C->cfg->esize);
    pc->n++;
    C->has_held = 0;
    C->pending = pc->n;
    if (gs_piece_span(pc, C->row_start_b, -1)) C->stop = 1;
}

/* keep_rows, after a block that ends inside a row: a value of that row waits for the row's end. */
static void seq_hold(csv_seq *C, gs_piece *pc)
{
    pc->open_row = C->row_start_b;
    if (!C->pending) return;
    pc->n--;
    memcpy(C->held, pc->vals + pc->n * C->cfg->esize, C->cfg->esize);
    C->has_held = 1;
    C->pending = 0;
}

/* An error of the row that began at row_start, which may lie in an earlier block. */
static void seq_row_bad(csv_seq *C, int kind, uint64_t line_base)
{
    gs_piece_bad(&(gs_lparse){.skip_bad = 0}, C->pc, kind, C->row_start - line_base, 0, 0, "", 0);
    C->stop = 1;
}

/* The engine's gs_seq_fn: the block one line per libcsv call, so that callbacks know their line. */
static void csv_seq_block(void *ctx, const gs_lparse *c, gs_piece *pc, uint64_t line_base, int at_eof, int *midrow)
{
    csv_seq *C = ctx;
    const char *p = pc->begin, *end = pc->end;
    if (!*midrow) C->row_start = line_base;
    C->cfg = c;
    C->pc = pc;
    C->line = 0;
    C->stop = 0;
    C->row_start_b = *midrow ? pc->open_row : 0; /* open_row: -(bytes carried over) */
    C->line_end_b = 0;
    if (C->has_held) seq_unhold(C, pc);
    if (c->ncols > 1 && *midrow) gs_colrow_hold(c, pc, &C->crow, 1);
    while (p < end && !C->stop) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
        C->line_end_b = (p + len) - pc->begin;
        if (csv_parse(&C->cp, p, len, seq_field, seq_row, C) != len) pc->nomem = C->stop = 1;
        if (C->stop) break;
        if (C->cp.entry_pos > GS_LINES_MAX_FIELD) {
            seq_row_bad(C, GS_PERR_TOOLONG, line_base);
            break;
        }
        if (nl) C->line++;
        /* Between rows (no field in progress): the next row starts on the next line. */
        if (C->cp.entry_pos == 0 && !C->row_open) C->row_start = line_base + C->line, C->row_start_b = C->line_end_b;
        p += len;
    }
    if (at_eof && !C->stop) {
        if (open_quote(&C->cp)) seq_row_bad(C, GS_PERR_QUOTE, line_base);
        else if (csv_fini(&C->cp, seq_field, seq_row, C) != 0) pc->nomem = 1;
    }
    pc->lines = C->line;
    *midrow = C->cp.entry_pos != 0 || C->row_open;
    if (pc->keep_rows && *midrow && !C->stop) seq_hold(C, pc);
    if (c->ncols > 1 && *midrow && !C->stop) gs_colrow_hold(c, pc, &C->crow, 0);
}

static void csv_seq_free(void *ctx)
{
    csv_seq *C = ctx;
    if (!C) return;
    csv_free(&C->cp);
    free(C->colname);
    gs_csv_cols_free(C->colnames, GS_WRITE_COLS_MAX);
    free(C);
}

/* ---- the first row --------------------------------------------------------------------------- */

static void end_seen(int ch, void *data)
{
    int *end = data;
    if (!*end) *end = ch;
}

/* The line-end style, from the first CR or LF outside quotes as libcsv reads them: a CR not
 * followed by LF makes lone CRs the line ends (gs_lines_cr). Reads the first row (the header
 * stage reads it next anyway). Without a line end in the first GS_LINES_MAX_FIELD bytes, LF. */
static int line_ends(gs_ldec *L, char delim, gs_status *st)
{
    struct csv_parser p;
    int end = 0, eof, r = GS_OK;
    size_t off = 0, n;
    if (csv_setup(&p, delim, 1) != 0)
        return gs_fail(st, GS_ENOMEM, "%s: out of memory", gs_lines_decoder(L)->src->name);
    for (;;) {
        const char *b = gs_lines_peek(L, &n, &eof);
        /* each call ends at a CR or LF: a row end reported is the last byte fed */
        while (off < n && !end) {
            size_t k = off;
            while (k < n && b[k] != '\r' && b[k] != '\n') k++;
            size_t len = (k < n ? k + 1 : n) - off;
            if (csv_parse(&p, b + off, len, NULL, end_seen, &end) != len) {
                r = gs_fail(st, GS_ENOMEM, "%s: out of memory", gs_lines_decoder(L)->src->name);
                break;
            }
            off += len;
        }
        if (r || end == '\n' || (!end && (eof || off > GS_LINES_MAX_FIELD))) break;
        if (end == '\r' && (off < n || eof)) { /* the byte after the CR is known */
            if (off == n || b[off] != '\n') gs_lines_cr(L);
            break;
        }
        if ((r = gs_lines_more(L, st))) break;
    }
    csv_free(&p);
    return r;
}

typedef struct hdr_row {
    char **f;
    int n, cap;
    int rows;
    int nomem;
    const gs_lparse *cfg;
} hdr_row;

static void hdr_field(void *s, size_t len, void *data)
{
    hdr_row *h = data;
    const char *f = s, *fe = f + len;
    if (h->rows || h->nomem) return;
    while (f < fe && gs_lparse_trim(h->cfg, *f)) f++;
    while (fe > f && gs_lparse_trim(h->cfg, fe[-1])) fe--;
    if (h->n == h->cap) {
        int nc = h->cap ? h->cap * 2 : 16;
        char **nf = realloc(h->f, (size_t)nc * sizeof *nf);
        if (!nf) {
            h->nomem = 1;
            return;
        }
        h->f = nf;
        h->cap = nc;
    }
    char *c = malloc((size_t)(fe - f) + 1);
    if (!c) {
        h->nomem = 1;
        return;
    }
    memcpy(c, f, (size_t)(fe - f));
    c[fe - f] = 0;
    h->f[h->n++] = c;
}

static void hdr_end(int c, void *data)
{
    (void)c;
    ((hdr_row *)data)->rows++;
}

/* Parse the first row into h (blank lines before it skipped): *off bytes holding *nl line ends. */
static int first_row(gs_ldec *L, hdr_row *h, size_t *off, uint64_t *nl, gs_status *st)
{
    const char *name = gs_lines_decoder(L)->src->name;
    struct csv_parser hp;
    size_t scanned = 0; /* bytes after off known to hold no '\n' (each byte is looked at once) */
    uint64_t row_line = 0;
    gs_piece bad = {0};
    int r = GS_OK, eof;
    if (csv_setup(&hp, h->cfg->delim, 0) != 0) return gs_fail(st, GS_ENOMEM, "%s: out of memory", name);
    for (;;) {
        size_t avail;
        const char *p = gs_lines_peek(L, &avail, &eof) + *off;
        const char *e = *off + scanned < avail ? memchr(p + scanned, '\n', avail - *off - scanned) : NULL;
        scanned = e ? 0 : avail - *off;
        if (!e && scanned > GS_LINES_MAX_FIELD && !memchr(p, '"', scanned)) {
            /* No quote, so no field may hold a line break: this is one line, and too long a row. */
            r = gs_fail(st, GS_EDATA, "%s: line %llu: a row longer than %zu MiB (no line end)", name,
                        (unsigned long long)*nl + 1, GS_LINES_MAX_FIELD >> 20);
            break;
        }
        if (!e && !eof) { /* want whole lines */
            if ((r = gs_lines_more(L, st))) break;
            continue;
        }
        size_t len = e ? (size_t)(e - p) + 1 : avail - *off;
        if (hp.entry_pos == 0 && h->n == 0) row_line = *nl; /* the row has not begun: skip blank lines */
        if (len && csv_parse(&hp, p, len, hdr_field, hdr_end, h) != len) h->nomem = 1;
        *off += len;
        *nl += e != NULL;
        if (h->rows || h->nomem) break;
        if (hp.entry_pos > GS_LINES_MAX_FIELD) {
            gs_piece_bad(&(gs_lparse){.skip_bad = 0}, &bad, GS_PERR_TOOLONG, row_line, 0, 0, "", 0);
            break;
        }
        if (!e) { /* the end of the input */
            if (open_quote(&hp)) gs_piece_bad(&(gs_lparse){.skip_bad = 0}, &bad, GS_PERR_QUOTE, row_line, 0, 0, "", 0);
            else if (csv_fini(&hp, hdr_field, hdr_end, h) != 0) h->nomem = 1;
            break;
        }
    }
    csv_free(&hp);
    if (!r && bad.err) r = gs_lines_fail(L, &bad, 0, st);
    if (!r && h->nomem) r = gs_fail(st, GS_ENOMEM, "%s: out of memory", name);
    return r;
}

int gs_col_number(const char *col, long *index)
{
    const char *p = col;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '+' || *p == '-') p++;
    if (*p < '0' || *p > '9') return 0;
    while (*p >= '0' && *p <= '9') p++;
    while (*p == ' ' || *p == '\t') p++;
    if (*p) return 0;
    errno = 0;
    long v = strtol(col, NULL, 10);
    *index = errno ? -1 : v; /* out of range: invalid like 0 */
    return 1;
}

/* --keep's columns for the row store (names: the header's cells, n of them; NULL without a header).
 * Where one column is read and the kept columns lie among the first GS_KEEP_CUT, the splitter cuts
 * the kept fields as it parses (gs_piece_kept), so the store holds those rather than whole rows. */
static int keep_stage(gs_ldec *L, const gs_read_opts *o, char **names, int n, gs_status *st)
{
    gs_rowtext *t = gs_lines_decoder(L)->text;
    gs_lparse *cfg = gs_lines_cfg(L);
    if (!o->keep || !t) return GS_OK;
    int r = gs_rowtext_keep_resolve(t, o->keep, names, n, cfg->col - 1, cfg->delim, gs_lines_decoder(L)->src->name, st);
    int all = 0, nk = 0;
    const int *cols = r ? NULL : gs_rowtext_keep_list(t, &nk, &all);
    int need = o->keep_value ? cfg->col : 0, ok = cols && !all && cfg->ncols <= 1 && nk >= 1 && nk <= GS_KEEP_CUT;
    for (int k = 0; ok && k < nk; k++) {
        if (cols[k] + 1 > need) need = cols[k] + 1;
        cfg->keep_cols[k] = cols[k];
    }
    if (ok && need <= GS_KEEP_CUT) {
        cfg->nkeep = nk;
        cfg->keep_need = need;
        cfg->keep_value = o->keep_value;
    }
    return r;
}

/* --col as a list: the columns and the header from the first row (csv_cols.c). */
static int header_cols(gs_ldec *L, csv_seq *C, const gs_read_opts *o, gs_status *st)
{
    hdr_row h = {.cfg = gs_lines_cfg(L)};
    size_t off = 0;
    uint64_t nl = 0;
    int is_header = 0, r = o->header == GS_HDR_NO ? GS_OK : first_row(L, &h, &off, &nl, st);
    if (!r) r = gs_csv_cols_setup(gs_lines_cfg(L), gs_lines_decoder(L), o, h.rows ? h.f : NULL, h.n, &is_header,
                                  &C->colnames, st);
    if (!r && is_header) gs_lines_take(L, off, nl);
    if (!r) r = keep_stage(L, o, is_header ? h.f : NULL, h.n, st);
    for (int i = 0; i < h.n; i++) free(h.f[i]);
    free(h.f);
    return r;
}

/* Resolve the column, decide on the header from the first row, consume it if it is one. */
static int header_stage(gs_ldec *L, csv_seq *C, const gs_read_opts *o, gs_status *st)
{
    const char *name = gs_lines_decoder(L)->src->name;
    gs_lparse *cfg = gs_lines_cfg(L);
    long v = 1;
    if (gs_cols_is_list(o->col)) return header_cols(L, C, o, st);
    int by_name = o->col && *o->col && !gs_col_number(o->col, &v);
    if (o->col && *o->col && !by_name) {
        if (v < 1 || v > INT_MAX - 1)
            return gs_fail(st, GS_EUSAGE, "invalid column '%s' (columns are counted from 1)", o->col);
        cfg->col = (int)v;
    }
    if (by_name && o->header == GS_HDR_NO)
        return gs_fail(st, GS_EUSAGE, "column '%s' is given by name, which needs a header line (drop --no-header)",
                       o->col);
    if (!by_name && o->header == GS_HDR_NO) return keep_stage(L, o, NULL, 0, st);

    hdr_row h = {.cfg = cfg};
    size_t off = 0;
    uint64_t nl = 0;
    int r = first_row(L, &h, &off, &nl, st);
    if (!r && h.rows) {
        int is_header = by_name || o->header == GS_HDR_YES;
        if (!is_header && cfg->col <= h.n) is_header = gs_row_is_header((const char *const *)h.f, h.n, cfg->col - 1);
        if (by_name) {
            const int i = gs_col_lookup(h.f, h.n, o->col, strlen(o->col), name, "", st);
            if (i < 0) r = GS_EDATA;
            else cfg->col = i + 1;
        }
        if (!r && is_header) {
            if (cfg->col <= h.n && !(C->colname = strdup(h.f[cfg->col - 1])))
                r = gs_fail(st, GS_ENOMEM, "%s: out of memory", name);
            gs_lines_decoder(L)->colname = C->colname;
            gs_lines_take(L, off, nl);
        }
        if (!r) r = keep_stage(L, o, is_header ? h.f : NULL, h.n, st);
    } else if (!r)
        r = keep_stage(L, o, NULL, 0, st);
    for (int i = 0; i < h.n; i++) free(h.f[i]);
    free(h.f);
    return r;
}

int gs_dec_open_csv(gs_decoder **d, gs_bsrc *src, const gs_read_opts *o, gs_status *st)
{
    char delim = o->delim ? o->delim : ',';
    gs_ldec *L;
    *d = NULL;
    if (delim == '"' || delim == '\n' || delim == '\r')
        return gs_fail(st, GS_EUSAGE, "invalid CSV delimiter (a quote or a line break)");
    csv_seq *C = calloc(1, sizeof *C);
    if (!C || csv_setup(&C->cp, delim, 0) != 0) {
        free(C);
        return gs_fail(st, GS_ENOMEM, "%s: out of memory", src->name);
    }
    const gs_lines_dialect dl = {.piece = gs_csv_piece, .seq = csv_seq_block, .ctx = C, .ctx_free = csv_seq_free};
    int r = gs_lines_open(&L, src, o, delim, &dl, st);
    if (r) return r;
    if (!(r = line_ends(L, delim, st))) r = header_stage(L, C, o, st);
    if (r) {
        gs_lines_abandon(L); /* the caller keeps the source on failure */
        return r;
    }
    *d = gs_lines_decoder(L);
    return GS_OK;
}
