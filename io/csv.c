/* csv.c - CSV in and out, and the parallel line-block engine that csv and text share
 * (lines.h).
 *
 * Reading. A header stage first parses the first row with libcsv (quotes allowed), resolves
 * --col (1-based index or header name) and decides whether that row is a header (--header,
 * --no-header, or auto: a header when the selected field is not a number). Then blocks of
 * 32 MiB are cut after their last '\n'. A block without a quote character cannot hold a
 * quoted field, so it is split into pieces at line ends and the pieces are parsed in parallel
 * by a hand-written splitter; a block with a quote character (or one that starts inside a
 * quoted field) goes through libcsv sequentially, line by line, so that quoted delimiters and
 * line breaks are right. Both paths agree on the dialect: rows end at '\n' (a '\r' before it,
 * like any '\r', ' ' or '\t' around a field, is surrounding space, except the delimiter
 * itself); blank lines are skipped; fields beyond the selected one are not looked at; a UTF-8
 * byte order mark is dropped. Every bad field names its line (the count of '\n' before it,
 * plus one) and field; with several bad fields in a block, the first in the file is reported.
 * With more than one thread, the next block is read while the current one is parsed (one
 * more part of the same parallel job), and the parsed values are copied out in parallel.
 *
 * Writing. One row per line: the value, or "min<delim>max"; an optional header line first.
 * Rows are formatted in parallel into per-part buffers and written in order. */
#include "lines.h"

#include <csv.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/pool.h"

size_t gs_lines_block_size = 0;

#define DEFAULT_BLOCK ((size_t)32 << 20)
#define MAX_FIELD ((size_t)64 << 20) /* a libcsv field this long is a missing closing quote */
#define MIN_PIECE 4096               /* smaller pieces are not worth a thread */
#define HEADROOM ((size_t)1 << 20)   /* room for the carried tail before a block read ahead
                                        (a block's worth when blocks are smaller) */
#define MAX_LINE ((size_t)1 << 30)   /* a longer line (text: token) is an error, not a reason to
                                        hold the whole input in memory */
/* libcsv's parser state "inside a field" (csv.h exposes struct csv_parser but not the state
 * names; the values have been fixed since libcsv 1.0). With p->quoted set, it means an open
 * quote: at the end of the input, a missing closing quote. Checked here rather than with
 * CSV_STRICT_FINI, which needs CSV_STRICT, which rejects stray quotes in unquoted text
 * fields that we never look at. */
#define LIBCSV_FIELD_BEGUN 2
static int open_quote(const struct csv_parser *p) { return p->pstate == LIBCSV_FIELD_BEGUN && p->quoted; }

/* ---- pieces ------------------------------------------------------------------------------ */

void *gs_piece_grow(gs_piece *pc, size_t esize)
{
    size_t ncap = pc->cap ? pc->cap * 2 : 4096;
    char *nv = realloc(pc->vals, ncap * esize);
    if (!nv) {
        pc->nomem = 1;
        return NULL;
    }
    pc->vals = nv;
    pc->cap = ncap;
    return pc->vals + pc->n * esize;
}

int gs_piece_bad(const gs_lparse *c, gs_piece *pc, int kind, uint64_t line, int field, int nfields,
                 const char *tok, size_t len)
{
    if (c->skip_bad) {
        pc->skipped++;
        return 0;
    }
    pc->err = kind;
    pc->err_line = line;
    pc->err_field = field;
    pc->err_nfields = nfields;
    /* Keep the message one short line: printable bytes only, long tokens cut with "...". */
    size_t n = len < 40 ? len : 36, i;
    for (i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)tok[i];
        pc->err_tok[i] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
    }
    if (n < len) memcpy(pc->err_tok + i, "...", 3), i += 3;
    pc->err_tok[i] = 0;
    return 1;
}

static void piece_reset(gs_piece *pc, const char *b, const char *e)
{
    pc->begin = b;
    pc->end = e;
    pc->n = 0;
    pc->lines = 0;
    pc->skipped = 0;
    pc->err = GS_PERR_NONE;
    pc->nomem = 0;
    pc->err_line = 0;
    pc->err_field = 0;
    pc->err_nfields = 0;
    pc->err_tok[0] = 0;
}

/* ---- the fast splitter for blocks without quotes ------------------------------------------ */

static inline int is_trim(const gs_lparse *c, char ch)
{
    return ch == '\r' || (ch == ' ' && c->trim_sp) || (ch == '\t' && c->trim_tab);
}

/* A line of surrounding space only (never the delimiter: "\t" is a row of two empty fields
 * in a tab-separated file), as libcsv skips it. */
static int is_blank(const gs_lparse *c, const char *p, const char *e)
{
    for (; p < e; p++)
        if (!is_trim(c, *p)) return 0;
    return 1;
}

/* Fields are short: a byte loop that stops at the delimiter or the line end beats two memchr
 * calls a line. Returns the stop position (end when neither is found). */
static inline const char *field_end(const char *p, const char *end, char delim)
{
    while (p < end && *p != delim && *p != '\n') p++;
    return p;
}

static void csv_piece(const gs_lparse *c, gs_piece *pc)
{
    const char *p = pc->begin, *end = pc->end;
    const char delim = c->delim;
    const int col = c->col;
    uint64_t line = 0;
    while (p < end) {
        const char *f = p, *fe = field_end(p, end, delim);
        int k = 1;
        for (; k < col && fe < end && *fe == delim; k++) {
            f = fe + 1;
            fe = field_end(f, end, delim);
        }
        /* the line end: fe when the field stopped there, else further on */
        const char *nl = fe;
        if (fe < end && *fe != '\n') nl = memchr(fe, '\n', (size_t)(end - fe));
        if (!nl) nl = end;
        if (k < col) {
            if (!is_blank(c, p, nl) && gs_piece_bad(c, pc, GS_PERR_MISSING, line, col, k, "", 0)) return;
        } else {
            while (f < fe && is_trim(c, *f)) f++;
            while (fe > f && is_trim(c, fe[-1])) fe--;
            if (f < fe || !is_blank(c, p, nl)) {
                void *slot = gs_piece_slot(pc, c->esize);
                if (!slot) return;
                int r = gs_num_parse(f, (size_t)(fe - f), c->type, slot);
                if (r == 0) pc->n++;
                else if (gs_piece_bad(c, pc, r == -2 ? GS_PERR_RANGE : GS_PERR_INVALID, line, col, 0, f,
                                      (size_t)(fe - f)))
                    return;
            }
        }
        if (nl == end) break;
        line++;
        p = nl + 1;
    }
    pc->lines = line;
}

/* ---- the decoder -------------------------------------------------------------------------- */

/* A run of values to copy out to the reader. */
typedef struct copy_seg {
    const char *src;
    char *dst;
    size_t bytes;
} copy_seg;


typedef struct ldec {
    gs_decoder base;
    gs_lparse cfg;
    int text;
    gs_piece_fn fn;
    int nthreads;
    size_t block;
    char *buf;           /* unparsed bytes are [pos, len) */
    size_t cap, pos, len;
    int eof;             /* the source is exhausted */
    /* read-ahead: while a block is parsed, the next one is read into abuf at `headroom`; the
     * carried tail of the block is then put in front of it and the buffers swap */
    size_t headroom;
    char *abuf;
    size_t acap, apos, alen;
    int ahead, rd_eof, rd_rc;
    gs_status rd_st;
    int seq_mode, seq_rc; /* this block goes through libcsv; its status */
    gs_status seq_st;
    int done;            /* and every byte is parsed */
    uint64_t line_base;  /* '\n' before buf[pos] */
    gs_piece *pieces;    /* the current block's pieces; value arrays are reused */
    size_t npieces_cap, npieces, cur, off;
    copy_seg *segs;      /* one per piece: read() copies out in parallel */
    /* libcsv path (csv only) */
    struct csv_parser cp;
    int cp_ready;
    int cr_lines;        /* csv: -1 undecided, 1 when lines end in a lone '\r' (read as '\n') */
    int held;            /* a byte read ahead to decide cr_lines, handed out by the next read */
    char held_c;
    int field;           /* fields seen in the current row */
    int row_open;        /* some field of the current row was seen */
    int midrow;          /* the last libcsv block ended inside a row (a quoted line break) */
    uint64_t row_start;  /* absolute '\n' count before the current row's first line */
    uint64_t seq_line;   /* '\n' fed so far in this block */
    int seq_stop;
    gs_piece *seq;
    char *colname;
    gs_status fail;      /* a failure is sticky: later reads repeat it */
} ldec;

static int sp_all(unsigned char c) { return c == ' ' || c == '\t' || c == '\r'; }
static int sp_notab(unsigned char c) { return c == ' ' || c == '\r'; }
static int sp_nospace(unsigned char c) { return c == '\t' || c == '\r'; }
static int term_lf(unsigned char c) { return c == '\n'; }

/* libcsv with our dialect: '\n' ends rows, '\r' is space (so CRLF works and a lone CR is not
 * a row end - as in the fast splitter), the delimiter is never space. */
static int csv_setup(struct csv_parser *p, const gs_lparse *c)
{
    if (csv_init(p, 0) != 0) return -1;
    csv_set_delim(p, (unsigned char)c->delim);
    csv_set_space_func(p, c->delim == '\t' ? sp_notab : c->delim == ' ' ? sp_nospace : sp_all);
    csv_set_term_func(p, term_lf);
    csv_set_blk_size(p, 4096);
    return 0;
}

/* Fail and remember it: a failure is sticky. */
static int dec_fail(ldec *L, gs_status *st, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int dec_fail(ldec *L, gs_status *st, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(L->fail.msg, sizeof L->fail.msg, fmt, ap);
    va_end(ap);
    L->fail.code = code;
    return gs_fail(st, code, "%s", L->fail.msg);
}

/* Turn a piece's error into the message; earlier = '\n' before the piece. */
static int piece_fail(ldec *L, const gs_piece *pc, uint64_t earlier, gs_status *st)
{
    /* Unsigned wrap-around is intended: a quoted row that began in an earlier block has a
     * "negative" err_line, and the sum is still the absolute line. */
    unsigned long long line = (unsigned long long)(earlier + pc->err_line + 1);
    const char *name = L->base.src->name;
    char where[64];
    if (pc->nomem) return dec_fail(L, st, GS_ENOMEM, "%s: out of memory", name);
    if (pc->err_field) snprintf(where, sizeof where, "line %llu field %d", line, pc->err_field);
    else snprintf(where, sizeof where, "line %llu", line);
    switch (pc->err) {
    case GS_PERR_INVALID:
        return dec_fail(L, st, GS_EDATA, "%s: %s: invalid number '%s'", name, where, pc->err_tok);
    case GS_PERR_RANGE:
        return dec_fail(L, st, GS_EDATA, "%s: %s: number '%s' out of range for %s", name, where, pc->err_tok,
                        gs_type_name(L->cfg.type));
    case GS_PERR_MISSING:
        return dec_fail(L, st, GS_EDATA, "%s: line %llu: missing column %d (the row has %d field%s)", name, line,
                        pc->err_field, pc->err_nfields, pc->err_nfields == 1 ? "" : "s");
    case GS_PERR_TOOLONG:
        return dec_fail(L, st, GS_EDATA, "%s: line %llu: quoted field longer than %zu MiB (missing closing quote?)",
                        name, line, MAX_FIELD >> 20);
    default:
        return dec_fail(L, st, GS_EDATA, "%s: line %llu: unterminated quoted field", name, line);
    }
}

/* Move the unparsed bytes to the front and read until there are `want` of them, the buffer is
 * full or the source ends. */
/* Read from the source. CSV whose first line ends in a lone '\r' (old Mac and Excel exports)
 * has every '\r' read as '\n'; a '\r' is surrounding space otherwise, so the rest of the
 * parser sees '\n' line ends only. Deciding may need the byte after a '\r' that ends a read: it
 * is read on its own and handed out first by the next call, so the decision never depends on
 * how the source cuts its reads. */
static int src_read(ldec *L, char *buf, size_t cap, size_t *got, gs_status *st)
{
    size_t n = 0, g = 0;
    *got = 0;
    if (!cap) return GS_OK;
    if (L->held) {
        buf[n++] = L->held_c;
        L->held = 0;
    }
    int r = L->base.src->read(L->base.src, buf + n, cap - n, &g, st);
    if (r) return r;
    n += g;
    *got = n;
    if (L->cr_lines == 0 || !n) return GS_OK;
    char *p = buf, *end = buf + n;
    if (L->cr_lines < 0) {
        while (p < end && *p != '\r' && *p != '\n') p++;
        if (p == end) return GS_OK;
        if (*p == '\n') L->cr_lines = 0;
        else if (p + 1 < end) L->cr_lines = p[1] != '\n';
        else { /* the '\r' ends this read: look at the next byte */
            size_t g1 = 0;
            if ((r = L->base.src->read(L->base.src, &L->held_c, 1, &g1, st))) return r;
            L->held = g1 == 1;
            L->cr_lines = !L->held || L->held_c != '\n';
        }
        if (!L->cr_lines) return GS_OK;
    }
    while ((p = memchr(p, '\r', (size_t)(end - p)))) *p++ = '\n';
    return GS_OK;
}

static int fill(ldec *L, size_t want, gs_status *st)
{
    if (L->pos) {
        memmove(L->buf, L->buf + L->pos, L->len - L->pos);
        L->len -= L->pos;
        L->pos = 0;
    }
    while (L->len < want && L->len < L->cap && !L->eof) {
        size_t got = 0;
        int r = src_read(L, L->buf + L->len, L->cap - L->len, &got, st);
        if (r) { /* the source said why in st; keep a copy for later reads */
            L->fail.code = r;
            snprintf(L->fail.msg, sizeof L->fail.msg, "%s", st ? st->msg : "read error");
            return r;
        }
        if (got == 0) L->eof = 1;
        L->len += got;
    }
    return GS_OK;
}

/* Double the buffer (a line longer than a block), up to MAX_LINE. */
static int grow(ldec *L, gs_status *st)
{
    size_t ncap = L->cap * 2;
    if (L->cap >= MAX_LINE)
        return dec_fail(L, st, GS_EDATA, "%s: line %llu: longer than %zu MiB", L->base.src->name,
                        (unsigned long long)L->line_base + 1, MAX_LINE >> 20);
    char *nb = realloc(L->buf, ncap);
    if (!nb) return dec_fail(L, st, GS_ENOMEM, "%s: out of memory (a line longer than %zu MiB?)",
                             L->base.src->name, L->cap >> 20);
    L->buf = nb;
    L->cap = ncap;
    return GS_OK;
}

static int is_ws(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* Where to cut [p, p+n): after the last '\n' (text: after the last whitespace, for files of
 * one long line). 0 when there is none. */
static size_t find_cut(const ldec *L, const char *p, size_t n)
{
    const char *nl = memrchr(p, '\n', n);
    if (nl) return (size_t)(nl - p) + 1;
    if (L->text)
        for (size_t i = n; i > 0; i--)
            if (is_ws(p[i - 1])) return i;
    return 0;
}

/* The first piece boundary at or after `at` in [p, p+n): just after a line end (text: after
 * any whitespace). */
static size_t next_boundary(const ldec *L, const char *p, size_t n, size_t at)
{
    if (at == 0 || at >= n) return at >= n ? n : 0;
    if (!L->text) {
        const char *nl = memchr(p + at - 1, '\n', n - at + 1);
        return nl ? (size_t)(nl - p) + 1 : n;
    }
    for (size_t i = at - 1; i < n; i++)
        if (is_ws(p[i])) return i + 1;
    return n;
}

static int ensure_pieces(ldec *L, size_t np, gs_status *st)
{
    if (np <= L->npieces_cap) return GS_OK;
    gs_piece *np_ = realloc(L->pieces, np * sizeof *np_);
    if (np_) L->pieces = np_;
    copy_seg *ns = np_ ? realloc(L->segs, np * sizeof *ns) : NULL;
    if (!ns) return dec_fail(L, st, GS_ENOMEM, "%s: out of memory", L->base.src->name);
    L->segs = ns;
    memset(np_ + L->npieces_cap, 0, (np - L->npieces_cap) * sizeof *np_);
    L->npieces_cap = np;
    return GS_OK;
}

static int seq_block(ldec *L, const char *data, size_t n, int at_eof, gs_status *st);

/* Read the next block into abuf (the read-ahead part of a block's job). */
static void read_ahead(ldec *L)
{
    L->apos = L->alen = L->headroom;
    L->rd_eof = 0;
    while (L->alen < L->acap) {
        size_t got = 0;
        L->rd_rc = src_read(L, L->abuf + L->alen, L->acap - L->alen, &got, &L->rd_st);
        if (L->rd_rc) return;
        if (got == 0) {
            L->rd_eof = 1;
            return;
        }
        L->alen += got;
    }
}

/* One part of a block's job: part 0 reads ahead (when ahead), the others parse. */
static void run_part(void *ctx, size_t p, size_t np)
{
    ldec *L = ctx;
    (void)np;
    if (L->ahead) {
        if (p == 0) {
            read_ahead(L);
            return;
        }
        p--;
    }
    if (L->seq_mode)
        L->seq_rc = seq_block(L, L->pieces[0].begin, (size_t)(L->pieces[0].end - L->pieces[0].begin), L->eof,
                              &L->seq_st);
    else
        L->fn(&L->cfg, &L->pieces[p]);
}

/* libcsv callbacks for the sequential path. */
static void seq_field(void *s, size_t len, void *data)
{
    ldec *L = data;
    if (L->seq_stop) return;
    L->row_open = 1;
    if (++L->field != L->cfg.col) return;
    const char *f = s, *fe = f + len;
    /* libcsv trims unquoted fields; a quoted " 12 " is trimmed here too. */
    while (f < fe && is_trim(&L->cfg, *f)) f++;
    while (fe > f && is_trim(&L->cfg, fe[-1])) fe--;
    void *slot = gs_piece_slot(L->seq, L->cfg.esize);
    if (!slot) {
        L->seq_stop = 1;
        return;
    }
    int r = gs_num_parse(f, (size_t)(fe - f), L->cfg.type, slot);
    if (r == 0) L->seq->n++;
    else if (gs_piece_bad(&L->cfg, L->seq, r == -2 ? GS_PERR_RANGE : GS_PERR_INVALID, L->seq_line, L->cfg.col, 0,
                          f, (size_t)(fe - f)))
        L->seq_stop = 1;
}

static void seq_row(int c, void *data)
{
    ldec *L = data;
    (void)c;
    if (!L->seq_stop && L->field < L->cfg.col &&
        gs_piece_bad(&L->cfg, L->seq, GS_PERR_MISSING, L->seq_line, L->cfg.col, L->field, "", 0))
        L->seq_stop = 1;
    L->field = 0;
    L->row_open = 0;
}

/* Parse [data, data+n) with libcsv, one line per call so that callbacks know their line. */
static int seq_block(ldec *L, const char *data, size_t n, int at_eof, gs_status *st)
{
    gs_piece *pc = &L->pieces[0];
    const char *p = data, *end = data + n;
    piece_reset(pc, data, end);
    if (!L->midrow) L->row_start = L->line_base;
    L->npieces = 1;
    L->seq = pc;
    L->seq_line = 0;
    L->seq_stop = 0;
    while (p < end && !L->seq_stop) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
        if (csv_parse(&L->cp, p, len, seq_field, seq_row, L) != len)
            return dec_fail(L, st, GS_ENOMEM, "%s: out of memory", L->base.src->name);
        if (L->seq_stop) break;
        if (L->cp.entry_pos > MAX_FIELD) {
            gs_piece_bad(&(gs_lparse){.skip_bad = 0}, pc, GS_PERR_TOOLONG, L->row_start - L->line_base, 0, 0, "", 0);
            L->seq_stop = 1;
            break;
        }
        if (nl) L->seq_line++;
        /* Between rows (no field in progress): the next row starts on the next line. */
        if (L->cp.entry_pos == 0 && !L->row_open) L->row_start = L->line_base + L->seq_line;
        p += len;
    }
    if (at_eof && !L->seq_stop) {
        if (open_quote(&L->cp))
            gs_piece_bad(&(gs_lparse){.skip_bad = 0}, pc, GS_PERR_QUOTE, L->row_start - L->line_base, 0, 0, "", 0);
        else if (csv_fini(&L->cp, seq_field, seq_row, L) != 0)
            return dec_fail(L, st, GS_ENOMEM, "%s: out of memory", L->base.src->name);
    }
    pc->lines = L->seq_line;
    L->midrow = L->cp.entry_pos != 0 || L->row_open;
    return GS_OK;
}

/* Read, cut and parse the next block. Sets L->done at the end of the input. */
static int next_block(ldec *L, gs_status *st)
{
    size_t cut, n;
    int r;
    /* Without read-ahead (one thread, or the first block) read here. */
    if (!L->eof && L->len - L->pos < L->block && (r = fill(L, L->block, st))) return r;
    for (;;) {
        n = L->len - L->pos;
        if (L->eof) {
            cut = n;
            break;
        }
        if ((cut = find_cut(L, L->buf + L->pos, n))) break;
        if ((r = grow(L, st)) || (r = fill(L, L->cap, st))) return r; /* a line longer than the buffer */
    }
    const char *data = L->buf + L->pos;
    size_t np = 0;
    L->seq_mode = !L->text && (L->midrow || memchr(data, '"', cut));
    if (L->seq_mode) {
        if ((r = ensure_pieces(L, 1, st))) return r;
        piece_reset(&L->pieces[0], data, data + cut);
        np = 1;
    } else if (cut) {
        /* One piece per thread: more would let the shared pool run more than --threads at once. */
        size_t b = 0;
        np = (size_t)L->nthreads;
        if (np > cut / MIN_PIECE) np = cut / MIN_PIECE;
        if (np < 1) np = 1;
        if ((r = ensure_pieces(L, np, st))) return r;
        for (size_t i = 0; i < np; i++) {
            size_t e = i + 1 == np ? cut : next_boundary(L, data, cut, cut / np * (i + 1));
            if (e < b) e = b;
            piece_reset(&L->pieces[i], data + b, data + e);
            b = e;
        }
    }
    L->npieces = np;
    /* With more than one thread, the next block is read while this one is parsed. */
    L->ahead = L->nthreads > 1 && !L->eof;
    if (L->ahead && L->acap < L->headroom + L->block) {
        char *nb = realloc(L->abuf, L->headroom + L->block);
        if (!nb) return dec_fail(L, st, GS_ENOMEM, "%s: out of memory", L->base.src->name);
        L->abuf = nb;
        L->acap = L->headroom + L->block;
    }
    L->seq_rc = GS_OK;
    L->rd_rc = GS_OK;
    gs_parallel_for(np + (size_t)L->ahead, run_part, L);
    if (L->seq_rc) return gs_fail(st, L->fail.code, "%s", L->fail.msg);
    uint64_t lines = 0, skipped = 0;
    for (size_t i = 0; i < L->npieces; i++) {
        const gs_piece *pc = &L->pieces[i];
        if (pc->err || pc->nomem) return piece_fail(L, pc, L->line_base + lines, st);
        lines += pc->lines;
        skipped += pc->skipped;
    }
    if (L->rd_rc) { /* the source said why */
        L->fail.code = L->rd_rc;
        snprintf(L->fail.msg, sizeof L->fail.msg, "%s", L->rd_st.msg);
        return gs_fail(st, L->fail.code, "%s", L->fail.msg);
    }
    L->base.skipped += skipped;
    L->line_base += lines;
    L->pos += cut;
    if (L->ahead) {
        /* The unparsed tail (part of a line) goes in front of the block read ahead. */
        size_t tail = L->len - L->pos, have = L->alen - L->apos;
        if (tail > L->apos) { /* a tail longer than the headroom: make room */
            if (tail + have > L->acap) {
                char *nb = realloc(L->abuf, tail + have);
                if (!nb) return dec_fail(L, st, GS_ENOMEM, "%s: out of memory", L->base.src->name);
                L->abuf = nb;
                L->acap = tail + have;
            }
            memmove(L->abuf + tail, L->abuf + L->apos, have);
            L->apos = tail;
            L->alen = tail + have;
        }
        L->apos -= tail;
        memcpy(L->abuf + L->apos, L->buf + L->pos, tail);
        char *tb = L->buf;
        size_t tc = L->cap;
        L->buf = L->abuf, L->cap = L->acap, L->pos = L->apos, L->len = L->alen;
        L->abuf = tb, L->acap = tc;
        L->eof = L->rd_eof;
    }
    L->cur = L->off = 0;
    /* The end, unless libcsv still holds a row (then one more, empty, block finishes it). */
    if (L->eof && L->pos == L->len && !(L->seq_mode && L->midrow)) L->done = 1;
    return GS_OK;
}

static void copy_part(void *ctx, size_t p, size_t np)
{
    const copy_seg *s = (const copy_seg *)ctx + p;
    (void)np;
    memcpy(s->dst, s->src, s->bytes);
}

/* Hand out the parsed values in piece order, parsing blocks as needed. The copy of a whole
 * block's values is itself split over the threads: one thread's memcpy would be a serial
 * step as long as a good part of the parallel parse. */
static int ldec_read(gs_decoder *d, void *buf, size_t cap, size_t *got, gs_status *st)
{
    ldec *L = (ldec *)d;
    size_t es = L->cfg.esize, done = 0;
    *got = 0;
    if (L->fail.code) return gs_fail(st, L->fail.code, "%s", L->fail.msg);
    while (done < cap) {
        if (L->cur < L->npieces) {
            size_t nseg = 0, bytes = 0;
            while (L->cur < L->npieces && done < cap) {
                gs_piece *pc = &L->pieces[L->cur];
                size_t take = pc->n - L->off;
                if (take > cap - done) take = cap - done;
                if (take) {
                    L->segs[nseg++] = (copy_seg){pc->vals + L->off * es, (char *)buf + done * es, take * es};
                    bytes += take * es;
                }
                done += take;
                L->off += take;
                if (L->off == pc->n) L->cur++, L->off = 0;
            }
            if (L->nthreads > 1 && bytes >= ((size_t)1 << 20)) gs_parallel_for(nseg, copy_part, L->segs);
            else
                for (size_t i = 0; i < nseg; i++) copy_part(L->segs, i, nseg);
            continue;
        }
        if (L->done) break;
        int r = next_block(L, st);
        if (r) return r;
    }
    *got = done;
    return GS_OK;
}

static void ldec_close(gs_decoder *d)
{
    ldec *L = (ldec *)d;
    if (!L) return;
    for (size_t i = 0; i < L->npieces_cap; i++) free(L->pieces[i].vals);
    free(L->pieces);
    free(L->segs);
    free(L->buf);
    free(L->abuf);
    free(L->colname);
    if (L->cp_ready) csv_free(&L->cp);
    if (L->base.src) L->base.src->close(L->base.src);
    free(L);
}

/* ---- the header stage (csv) --------------------------------------------------------------- */

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
    while (f < fe && is_trim(h->cfg, *f)) f++;
    while (fe > f && is_trim(h->cfg, fe[-1])) fe--;
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

/* Parse the first row: resolve the column, decide on the header, consume it if it is one. */
static int header_stage(ldec *L, const gs_read_opts *o, gs_status *st)
{
    const char *name = L->base.src->name;
    long v = 1;
    int by_name = o->col && *o->col && !gs_col_number(o->col, &v);
    if (o->col && *o->col && !by_name) {
        if (v < 1 || v > INT_MAX - 1)
            return dec_fail(L, st, GS_EUSAGE, "invalid column '%s' (columns are counted from 1)", o->col);
        L->cfg.col = (int)v;
    }
    if (by_name && o->header == GS_HDR_NO)
        return dec_fail(L, st, GS_EUSAGE, "column '%s' is given by name, which needs a header line (drop --no-header)",
                        o->col);
    if (!by_name && o->header == GS_HDR_NO) return GS_OK;

    struct csv_parser hp;
    hdr_row h = {.cfg = &L->cfg};
    size_t off = 0;     /* bytes of the first row fed, from pos */
    size_t scanned = 0; /* bytes after off known to hold no '\n' (each byte is looked at once) */
    uint64_t nl = 0, row_line = 0;
    int r = GS_OK;
    if (csv_setup(&hp, &L->cfg) != 0) return dec_fail(L, st, GS_ENOMEM, "%s: out of memory", name);
    for (;;) {
        size_t avail = L->len - L->pos;
        const char *p = L->buf + L->pos + off;
        const char *e = off + scanned < avail ? memchr(p + scanned, '\n', avail - off - scanned) : NULL;
        scanned = e ? 0 : avail - off;
        if (!e && scanned > MAX_FIELD && !memchr(p, '"', scanned)) {
            /* No quote, so no field may hold a line break: this is one line, and too long a row. */
            r = dec_fail(L, st, GS_EDATA, "%s: line %llu: a row longer than %zu MiB (no line end)", name,
                         (unsigned long long)nl + 1, MAX_FIELD >> 20);
            break;
        }
        if (!e && !L->eof) { /* want whole lines: read more, growing when full */
            if (L->len == L->cap && L->pos == 0 && (r = grow(L, st))) break;
            if ((r = fill(L, L->len - L->pos + 1, st))) break; /* at least one more read */
            continue;
        }
        size_t len = e ? (size_t)(e - p) + 1 : avail - off;
        if (hp.entry_pos == 0 && h.n == 0) row_line = nl; /* the row has not begun: skip blank lines */
        if (len && csv_parse(&hp, p, len, hdr_field, hdr_end, &h) != len) h.nomem = 1;
        off += len;
        nl += e != NULL;
        if (h.rows || h.nomem) break;
        if (hp.entry_pos > MAX_FIELD) {
            r = dec_fail(L, st, GS_EDATA, "%s: line %llu: quoted field longer than %zu MiB (missing closing quote?)",
                         name, (unsigned long long)row_line + 1, MAX_FIELD >> 20);
            break;
        }
        if (!e) { /* the end of the input */
            if (open_quote(&hp))
                r = dec_fail(L, st, GS_EDATA, "%s: line %llu: unterminated quoted field", name,
                             (unsigned long long)row_line + 1);
            else if (csv_fini(&hp, hdr_field, hdr_end, &h) != 0) h.nomem = 1;
            break;
        }
    }
    csv_free(&hp);
    if (!r && h.nomem) r = dec_fail(L, st, GS_ENOMEM, "%s: out of memory", name);
    if (!r && h.rows) {
        int is_header = by_name || o->header == GS_HDR_YES;
        if (!is_header) {
            double x;
            is_header = L->cfg.col <= h.n &&
                        gs_num_parse(h.f[L->cfg.col - 1], strlen(h.f[L->cfg.col - 1]), GS_F64, &x) != 0;
        }
        if (by_name) {
            int i;
            for (i = 0; i < h.n && strcmp(h.f[i], o->col) != 0; i++) {}
            if (i == h.n) r = dec_fail(L, st, GS_EDATA, "%s: no column named '%s' in the header", name, o->col);
            else L->cfg.col = i + 1;
        }
        if (!r && is_header) {
            if (L->cfg.col <= h.n && !(L->colname = strdup(h.f[L->cfg.col - 1])))
                r = dec_fail(L, st, GS_ENOMEM, "%s: out of memory", name);
            L->base.colname = L->colname;
            L->pos += off;
            L->line_base = nl;
        }
    }
    for (int i = 0; i < h.n; i++) free(h.f[i]);
    free(h.f);
    return r;
}

int gs_lines_dec_open(gs_decoder **d, gs_bsrc *src, const gs_read_opts *o, int text, gs_status *st)
{
    char delim = text ? ' ' : (o->delim ? o->delim : ',');
    *d = NULL;
    if ((unsigned)o->type >= GS_NTYPES) return gs_fail(st, GS_EUSAGE, "%s: invalid element type", src->name);
    if (!text && (delim == '"' || delim == '\n' || delim == '\r'))
        return gs_fail(st, GS_EUSAGE, "invalid CSV delimiter (a quote or a line break)");
    ldec *L = calloc(1, sizeof *L);
    if (!L) return gs_fail(st, GS_ENOMEM, "%s: out of memory", src->name);
    L->base.read = ldec_read;
    L->base.close = ldec_close;
    L->base.type = o->type;
    L->base.count = -1;
    L->base.src = src;
    L->text = text;
    L->cr_lines = text ? 0 : -1;
    L->fn = text ? gs_text_piece : csv_piece;
    L->cfg.type = o->type;
    L->cfg.esize = gs_type_size(o->type);
    L->cfg.col = 1;
    L->cfg.delim = delim;
    L->cfg.trim_sp = delim != ' ';
    L->cfg.trim_tab = delim != '\t';
    L->cfg.skip_bad = o->skip_bad;
    L->nthreads = o->threads > 0 ? o->threads : gs_pool_threads();
    L->block = gs_lines_block_size ? gs_lines_block_size : DEFAULT_BLOCK;
    L->headroom = L->block < HEADROOM ? L->block : HEADROOM;
    L->cap = L->headroom + L->block;
    int r = GS_OK;
    if (!(L->buf = malloc(L->cap))) r = gs_fail(st, GS_ENOMEM, "%s: out of memory", src->name);
    if (!r && !text) {
        if (csv_setup(&L->cp, &L->cfg) != 0) r = gs_fail(st, GS_ENOMEM, "%s: out of memory", src->name);
        else L->cp_ready = 1;
    }
    /* Only what the header needs (the header stage reads more while it lacks a whole row):
     * a slow pipe must not hold up the open for a whole block. */
    if (!r) r = fill(L, 4, st);
    /* A UTF-8 byte order mark (spreadsheet exports) is not part of the first field. */
    if (!r && L->len >= 3 && memcmp(L->buf, "\xef\xbb\xbf", 3) == 0) L->pos = 3;
    if (!r && !text) r = header_stage(L, o, st);
    L->line_base += o->line_offset;
    if (r) {
        L->base.src = NULL; /* the caller keeps the source on failure */
        ldec_close(&L->base);
        return r;
    }
    *d = &L->base;
    return GS_OK;
}

int gs_dec_open_csv(gs_decoder **d, gs_bsrc *src, const gs_read_opts *o, gs_status *st)
{
    return gs_lines_dec_open(d, src, o, 0, st);
}

/* ---- the encoder --------------------------------------------------------------------------- */

#define MAX_ROWS_PART 65536 /* rows per formatting part: bounds the text buffers */
#define VAL_CHARS 32        /* gs_num_format writes < 32 chars */

typedef struct lenc {
    gs_encoder base;
    gs_type type;
    size_t esize;
    int ncols;
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
            o += gs_num_format(o, E->type, v + (size_t)c * E->esize);
            *o++ = c + 1 < E->ncols ? E->sep : '\n';
        }
    }
    E->lens[p] = (size_t)(o - E->bufs[p]);
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
        size_t need = per < batch ? per : batch;
        if (need > E->buf_rows) {
            size_t nr = E->buf_rows * 2 > need ? E->buf_rows * 2 : need;
            if (nr > MAX_ROWS_PART) nr = MAX_ROWS_PART;
            for (size_t i = 0; i < E->nbufs; i++) {
                char *nb = realloc(E->bufs[i], nr * ((size_t)E->ncols * VAL_CHARS + 1) + VAL_CHARS);
                if (!nb) return gs_fail(st, GS_ENOMEM, "%s: out of memory", e->sink->name);
                E->bufs[i] = nb;
            }
            E->buf_rows = nr;
        }
        if (np > E->nbufs) {
            char **nb = realloc(E->bufs, np * sizeof *nb);
            size_t *nl = nb ? realloc(E->lens, np * sizeof *nl) : NULL;
            if (nb) E->bufs = nb;
            if (!nl) return gs_fail(st, GS_ENOMEM, "%s: out of memory", e->sink->name);
            E->lens = nl;
            for (size_t i = E->nbufs; i < np; i++) {
                E->bufs[i] = malloc(E->buf_rows * ((size_t)E->ncols * VAL_CHARS + 1) + VAL_CHARS);
                if (!E->bufs[i]) return gs_fail(st, GS_ENOMEM, "%s: out of memory", e->sink->name);
                E->nbufs = i + 1;
            }
        }
        E->vals = v;
        E->rows = batch;
        E->per_part = per;
        gs_parallel_for(np, fmt_part, E);
        for (size_t i = 0; i < np; i++) {
            int r = e->sink->write(e->sink, E->bufs[i], E->lens[i], st);
            if (r) return r;
        }
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
    if (o->ncols != 1 && o->ncols != 2)
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
    E->sep = sep;
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

/* A single column name is one CSV field: quoted when it holds the delimiter, a quote, a line
 * break or surrounding space. A two-column header ("min,max") is written as given. */
int gs_enc_open_csv(gs_encoder **e, gs_bsink *k, const gs_write_opts *o, gs_status *st)
{
    char delim = o->delim ? o->delim : ',';
    const char *h = o->colnames;
    char *q = NULL;
    *e = NULL;
    if (delim == '"' || delim == '\n' || delim == '\r')
        return gs_fail(st, GS_EUSAGE, "invalid CSV delimiter (a quote or a line break)");
    if (h && o->ncols == 1) {
        size_t n = strlen(h);
        if (strchr(h, delim) || strpbrk(h, "\"\n\r") || (n && (h[0] == ' ' || h[n - 1] == ' '))) {
            char *w = q = malloc(2 * n + 3);
            if (!q) return gs_fail(st, GS_ENOMEM, "%s: out of memory", k->name);
            *w++ = '"';
            for (const char *s = h; *s; s++) {
                if (*s == '"') *w++ = '"';
                *w++ = *s;
            }
            *w++ = '"';
            *w = 0;
            h = q;
        }
    }
    int r = gs_lines_enc_open(e, k, o, delim, h, st);
    free(q);
    return r;
}
