/* csv_lines.c - the line engine of the csv and text formats (csv_lines.h); csv's fast splitter
 * for blocks without quotes is csv_split.c.
 *
 * Blocks (32 MiB unless gs_read_opts.block_size says otherwise) are cut after their last '\n'
 * (text: after the last whitespace when a block holds no '\n'). A block goes to the format's
 * sequential parser when it holds a quote character or starts inside a quoted row (csv), else
 * it is split into one piece per thread at line ends and the pieces are parsed in parallel.
 * With more than one thread, the next block is read while the current one is parsed (one more
 * part of the same parallel job), and the parsed values are copied out in parallel.
 *
 * A csv block without quotes may be parsed elsewhere (gs_reader_text_parser: the GPU backend's, on
 * the device): offered whole while the next block is read, it comes back as one value a line, or
 * declined, and then parsed here, and no later block is offered. */
#include "csv_lines.h"
#include "missing.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/pool.h"
#include "../common/rowmap.h"
#include "../common/trace.h"

#define DEFAULT_BLOCK ((size_t)32 << 20)
#define MIN_PIECE 4096             /* smaller pieces are not worth a thread */
#define HEADROOM ((size_t)1 << 20) /* room for the carried tail before a block read ahead
                                      (a block's worth when blocks are smaller) */
#define MAX_LINE ((size_t)1 << 30) /* a longer line (text: token) is an error, not a reason to
                                      hold the whole input in memory */

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
    if (c->skip_bad) return gs_piece_skip(pc);
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

static void piece_reset(gs_piece *pc, const char *b, const char *e, int keep_skips, int keep_rows)
{
    char *vals = pc->vals;
    size_t cap = pc->cap, skcap = pc->skcap, spcap = pc->spcap;
    uint64_t *skips = pc->skips;
    int64_t *spans = pc->spans;
    memset(pc, 0, sizeof *pc);
    pc->vals = vals; /* value, skip and span arrays are reused (spans until the row store takes them) */
    pc->cap = cap;
    pc->skips = skips;
    pc->skcap = skcap;
    pc->keep_skips = keep_skips;
    pc->spans = spans;
    pc->spcap = spcap;
    pc->keep_rows = keep_rows;
    pc->begin = b;
    pc->end = e;
}

/* ---- the decoder -------------------------------------------------------------------------- */

/* A run of values to copy out to the reader. */
typedef struct copy_seg {
    const char *src;
    char *dst;
    size_t bytes;
} copy_seg;

struct gs_ldec {
    gs_decoder base;
    gs_lparse cfg;
    gs_lines_dialect dl;
    int nthreads;
    size_t block;
    char *buf;           /* unparsed bytes are [pos, len) */
    size_t cap, pos, len;
    int eof;             /* the source is exhausted */
    int cr_lines;        /* lines end in a lone '\r': every '\r' read is turned into '\n' */
    /* read-ahead: while a block is parsed, the next one is read into abuf at `headroom`; the
     * carried tail of the block is then put in front of it and the buffers swap */
    size_t headroom;
    char *abuf;
    size_t acap, apos, alen;
    int ahead, rd_eof, rd_rc;
    gs_status rd_st;
    int seq_mode;        /* this block goes to dl.seq */
    int quotes_seen;     /* an earlier block held a quote character */
    int midrow;          /* the last sequential block ended inside a row (a quoted line break) */
    int done;            /* and every byte is parsed */
    uint64_t line_base;  /* '\n' before buf[pos] */
    gs_piece *pieces;    /* the current block's pieces; value arrays are reused */
    size_t npieces_cap, npieces, cur, off;
    copy_seg *segs;      /* one per piece: read() copies out in parallel */
    gs_status fail;      /* a failure is sticky: later reads repeat it */
    uint64_t stream_n;   /* values of the blocks before this one (row map positions) */
    char *carry;         /* keep_rows: the bytes of a quoted row still open at the last block's end */
    size_t carry_len;
    /* blocks parsed elsewhere: the parser (NULL: none), set by another thread; off once declined */
    _Atomic(const gs_text_parser *) tp;
    int tp_off;
    const gs_text_parser *tp_now; /* this block's; its answer: */
    int tp_rc;
    const void *tp_vals;
    size_t tp_n;
    gs_status tp_st;
    double t_ahead, t_offer; /* GS_TRACE: the last read-ahead's and offer's seconds */
};

/* Fail and remember it: a failure is sticky. */
static int dec_fail(gs_ldec *L, gs_status *st, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int dec_fail(gs_ldec *L, gs_status *st, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(L->fail.msg, sizeof L->fail.msg, fmt, ap);
    va_end(ap);
    L->fail.code = code;
    return gs_fail(st, code, "%s", L->fail.msg);
}

/* Remember the failure the source reported in st. */
static int src_fail(gs_ldec *L, int code, const gs_status *st)
{
    L->fail.code = code;
    snprintf(L->fail.msg, sizeof L->fail.msg, "%s", st ? st->msg : "read error");
    return code;
}

int gs_lines_fail(gs_ldec *L, const gs_piece *pc, uint64_t earlier, gs_status *st)
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
    case GS_PERR_NA:
        return dec_fail(L, st, GS_EDATA,
                        "%s: %s: missing value%s%s%s in a column of type %s: read it as a float (-t f64), fill "
                        "it (--na V) or drop the row (--na skip)",
                        name, where, pc->err_tok[0] ? " '" : "", pc->err_tok, pc->err_tok[0] ? "'" : "",
                        gs_type_name(L->cfg.type));
    case GS_PERR_MISSING:
        return dec_fail(L, st, GS_EDATA, "%s: line %llu: missing column %d (the row has %d field%s)", name, line,
                        pc->err_field, pc->err_nfields, pc->err_nfields == 1 ? "" : "s");
    case GS_PERR_TOOLONG:
        return dec_fail(L, st, GS_EDATA, "%s: line %llu: quoted field longer than %zu MiB (missing closing quote?)",
                        name, line, GS_LINES_MAX_FIELD >> 20);
    default:
        return dec_fail(L, st, GS_EDATA, "%s: line %llu: unterminated quoted field", name, line);
    }
}

static void cr_to_lf(char *p, size_t n)
{
    char *end = p + n;
    while ((p = memchr(p, '\r', (size_t)(end - p)))) *p++ = '\n';
}

static int src_read(gs_ldec *L, char *buf, size_t cap, size_t *got, gs_status *st)
{
    int r = L->base.src->read(L->base.src, buf, cap, got, st);
    if (!r && L->cr_lines) cr_to_lf(buf, *got);
    return r;
}

/* Move the unparsed bytes to the front and read until there are `want` of them, the buffer is
 * full or the source ends. */
static int fill(gs_ldec *L, size_t want, gs_status *st)
{
    if (L->pos) {
        memmove(L->buf, L->buf + L->pos, L->len - L->pos);
        L->len -= L->pos;
        L->pos = 0;
    }
    while (L->len < want && L->len < L->cap && !L->eof) {
        size_t got = 0;
        int r = src_read(L, L->buf + L->len, L->cap - L->len, &got, st);
        if (r) return src_fail(L, r, st);
        if (got == 0) L->eof = 1;
        L->len += got;
    }
    return GS_OK;
}

/* Double the buffer (a line longer than a block), up to MAX_LINE. */
static int grow(gs_ldec *L, gs_status *st)
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

/* Where to cut [p, p+n): after the last '\n' (ws_cut: after the last whitespace, for files of
 * one long line). 0 when there is none. */
static size_t find_cut(const gs_ldec *L, const char *p, size_t n)
{
    const char *nl = memrchr(p, '\n', n);
    if (nl) return (size_t)(nl - p) + 1;
    if (L->dl.ws_cut)
        for (size_t i = n; i > 0; i--)
            if (is_ws(p[i - 1])) return i;
    return 0;
}

/* The first piece boundary at or after `at` in [p, p+n): just after a line end (ws_cut: after
 * any whitespace). */
static size_t next_boundary(const gs_ldec *L, const char *p, size_t n, size_t at)
{
    if (at == 0 || at >= n) return at >= n ? n : 0;
    if (!L->dl.ws_cut) {
        const char *nl = memchr(p + at - 1, '\n', n - at + 1);
        return nl ? (size_t)(nl - p) + 1 : n;
    }
    for (size_t i = at - 1; i < n; i++)
        if (is_ws(p[i])) return i + 1;
    return n;
}

static int ensure_pieces(gs_ldec *L, size_t np, gs_status *st)
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

/* Read the next block into abuf (the read-ahead part of a block's job). */
static void read_ahead(gs_ldec *L)
{
    const double t0 = gs_trace_enabled() ? gs_now() : 0;
    L->apos = L->alen = L->headroom;
    L->rd_eof = 0;
    while (L->alen < L->acap) {
        size_t got = 0;
        L->rd_rc = src_read(L, L->abuf + L->alen, L->acap - L->alen, &got, &L->rd_st);
        if (L->rd_rc) return;
        if (got == 0) {
            L->rd_eof = 1;
            break;
        }
        L->alen += got;
    }
    if (t0) L->t_ahead = gs_now() - t0;
}

/* One part of a block's job: part 0 reads ahead (when ahead), the others parse. */
static void run_part(void *ctx, size_t p, size_t np)
{
    gs_ldec *L = ctx;
    (void)np;
    if (L->ahead) {
        if (p == 0) {
            read_ahead(L);
            return;
        }
        p--;
    }
    if (L->tp_now) { /* the block, offered whole */
        const gs_piece *pc = &L->pieces[0];
        const gs_text_block b = {pc->begin, (size_t)(pc->end - pc->begin), L->cfg.type, L->cfg.col,
                                 L->cfg.delim, L->cfg.trim_sp, L->cfg.trim_tab};
        L->tp_rc = L->tp_now->parse(L->tp_now->ctx, &b, &L->tp_vals, &L->tp_n, &L->tp_st);
        return;
    }
    if (L->seq_mode) L->dl.seq(L->dl.ctx, &L->cfg, &L->pieces[0], L->line_base, L->eof, &L->midrow);
    else if (gs_piece_kept_text(&L->pieces[p], L->base.text, L->cfg.nkeep)) L->dl.piece(&L->cfg, &L->pieces[p]);
    if (L->base.text) gs_piece_text(&L->pieces[p], L->base.text, L->seq_mode, L->midrow, &L->carry, &L->carry_len);
}

/* Split the block [data, data+cut) into pieces: one for the sequential parser, else one per
 * thread (more would let the shared pool run more than --threads at once). */
static int split_block(gs_ldec *L, const char *data, size_t cut, gs_status *st)
{
    size_t np = 0, b = 0;
    int r;
    /* A block with a quote goes to the sequential parser. Each piece looks for a quote before it
     * splits (in parallel); once a quote was seen, each block is searched for one first, so that
     * the sequential parse of a quoted file still overlaps the read-ahead. */
    L->seq_mode = L->dl.seq && (L->midrow || (L->quotes_seen && memchr(data, '"', cut)));
    if (L->seq_mode) np = 1;
    else if (cut) {
        np = (size_t)L->nthreads;
        if (np > cut / MIN_PIECE) np = cut / MIN_PIECE;
        if (np < 1) np = 1;
    }
    if ((r = ensure_pieces(L, np ? np : 1, st))) return r;
    for (size_t i = 0; i < np; i++) {
        size_t e = i + 1 == np ? cut : next_boundary(L, data, cut, cut / np * (i + 1));
        if (e < b) e = b;
        piece_reset(&L->pieces[i], data + b, data + e, L->base.rows != NULL, L->base.text != NULL);
        b = e;
    }
    if (L->seq_mode && np) L->pieces[0].open_row = -(int64_t)L->carry_len;
    L->npieces = np;
    return GS_OK;
}

/* Whether a piece of the block found a quote character. */
static int block_quoted(const gs_ldec *L)
{
    for (size_t i = 0; i < L->npieces; i++)
        if (L->pieces[i].quoted) return 1;
    return 0;
}

/* Whether a piece of the block gave a value. */
static int block_values(const gs_ldec *L)
{
    for (size_t i = 0; i < L->npieces; i++)
        if (L->pieces[i].n) return 1;
    return 0;
}

/* The block's buffer was lent to the row store, which holds rows in it: the engine reads on into
 * another (the store's spare, else a new one), never writing the lent one again. Where the
 * read-ahead buffer took the carried tail (swapped), the lent one is the next read-ahead's; else
 * the tail [pos, len) moves to the new buffer. Gives back the lender's reference. */
static int replace_lent(gs_ldec *L, gs_rowtext_mem *lent, int swapped, gs_status *st)
{
    size_t cap = 0;
    int r = GS_OK;
    char *nb = gs_rowtext_reuse(L->base.text, 0, swapped ? L->headroom + L->block : L->cap, &cap);
    if (swapped) { /* next_block sizes the read-ahead buffer before it reads into it */
        L->abuf = nb;
        L->acap = nb ? cap : 0;
    } else {
        if (!nb && (nb = gs_alloc_large(L->cap))) cap = L->cap;
        if (nb) memcpy(nb, L->buf + L->pos, L->len - L->pos), L->len -= L->pos, L->pos = 0;
        else r = dec_fail(L, st, GS_ENOMEM, "%s: out of memory", L->base.src->name), L->len = L->pos = 0;
        L->buf = nb;
        L->cap = nb ? cap : 0;
    }
    gs_rowtext_unlend(L->base.text, lent);
    return r;
}

/* After a block's job: the carried tail (part of a line) goes in front of the block read ahead,
 * and the buffers swap. */
static int take_ahead(gs_ldec *L, gs_status *st)
{
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
    return GS_OK;
}

/* The block [buf + pos, + cut) offered to the parser elsewhere, while the next is read ahead:
 * TP_NOT_OFFERED (the pieces are parsed as usual), TP_DECLINED (the block is parsed here), TP_TAKEN
 * (piece 0 holds its values), or a failure's status. */
enum { TP_NOT_OFFERED = -3, TP_DECLINED = -2, TP_TAKEN = -1 };
static int offer_block(gs_ldec *L, size_t cut, gs_status *st)
{
    const gs_text_parser *tp = L->tp_off ? NULL : atomic_load(&L->tp);
    if (!tp || L->seq_mode || !cut || L->dl.ws_cut || L->cfg.ncols > 1 || L->base.rows || L->base.text)
        return TP_NOT_OFFERED;
    const char *data = L->buf + L->pos;
    L->tp_now = tp;
    L->tp_rc = GS_OK;
    L->tp_n = 0;
    piece_reset(&L->pieces[0], data, data + cut, 0, 0);
    const double t0 = gs_trace_enabled() ? gs_now() : 0;
    gs_parallel_for(1 + (size_t)L->ahead, run_part, L);
    if (t0) L->t_offer = gs_now() - t0;
    L->tp_now = NULL;
    if (L->tp_rc == GS_TEXT_DECLINED || (L->tp_rc == GS_OK && !L->tp_n)) {
        L->tp_off = 1;
        return TP_DECLINED;
    }
    if (L->tp_rc) return gs_fail(st, L->tp_rc, "%s", L->tp_st.msg);
    gs_piece *pc = &L->pieces[0];
    pc->ext = L->tp_vals;
    pc->n = L->tp_n;
    pc->lines = L->tp_n - (data[cut - 1] != '\n'); /* a value a line; the input's last may lack its '\n' */
    L->npieces = 1;
    return TP_TAKEN;
}

/* Read, cut and parse the next block. Sets L->done at the end of the input. */
static int next_block(gs_ldec *L, gs_status *st)
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
    if ((r = split_block(L, L->buf + L->pos, cut, st))) return r;
    /* With more than one thread, the next block is read while this one is parsed. */
    L->ahead = L->nthreads > 1 && !L->eof;
    if (L->ahead && L->acap < L->headroom + L->block) { /* read_ahead writes all of it */
        free(L->abuf);
        L->acap = 0;
        if (!(L->abuf = gs_alloc_large(L->headroom + L->block)))
            return dec_fail(L, st, GS_ENOMEM, "%s: out of memory", L->base.src->name);
        L->acap = L->headroom + L->block;
    }
    L->rd_rc = GS_OK;
    const double t0 = gs_trace_enabled() ? gs_now() : 0;
    L->t_ahead = L->t_offer = 0;
    r = offer_block(L, cut, st);
    if (r == TP_DECLINED) { /* parsed here after all, the block ahead already read */
        const int ahead = L->ahead;
        L->ahead = 0;
        if (!(r = split_block(L, L->buf + L->pos, cut, st)) && L->npieces) gs_parallel_for(L->npieces, run_part, L);
        L->ahead = ahead;
    } else if (r == TP_NOT_OFFERED) {
        r = GS_OK;
        if (L->npieces || L->ahead) gs_parallel_for(L->npieces + (size_t)L->ahead, run_part, L);
    } else if (r == TP_TAKEN)
        r = GS_OK;
    if (r) return r;
    if (!L->seq_mode && L->dl.seq && block_quoted(L)) { /* the pieces met a quote: start again */
        for (size_t i = 0; i < L->npieces; i++) { /* row text kept by the parallel attempt */
            free(L->pieces[i].text);
            L->pieces[i].text = NULL;
        }
        L->seq_mode = L->quotes_seen = 1;
        L->npieces = 1;
        piece_reset(&L->pieces[0], L->buf + L->pos, L->buf + L->pos + cut, L->base.rows != NULL, L->base.text != NULL);
        L->pieces[0].open_row = -(int64_t)L->carry_len;
        L->dl.seq(L->dl.ctx, &L->cfg, &L->pieces[0], L->line_base, L->eof, &L->midrow);
        if (L->base.text) gs_piece_text(&L->pieces[0], L->base.text, 1, L->midrow, &L->carry, &L->carry_len);
    }
    if (t0)
        gs_trace("lines: a block of %zu KiB in %.2f ms (%s%.2f ms; read ahead %.2f ms)", cut >> 10, (gs_now() - t0) * 1e3,
                 L->t_offer ? (L->pieces[0].ext ? "parsed elsewhere " : "declined ") : "", L->t_offer * 1e3,
                 L->t_ahead * 1e3);
    uint64_t lines = 0, skipped = 0;
    for (size_t i = 0; i < L->npieces; i++) {
        const gs_piece *pc = &L->pieces[i];
        if (pc->err || pc->nomem) return gs_lines_fail(L, pc, L->line_base + lines, st);
        lines += pc->lines;
        skipped += pc->skipped;
    }
    if (L->rd_rc) return gs_fail(st, src_fail(L, L->rd_rc, &L->rd_st), "%s", L->fail.msg); /* the source said why */
    L->base.skipped += skipped;
    /* Rows kept beside the values stay where they lie: the store is lent the block. */
    gs_rowtext_mem *lent = NULL;
    if (L->base.text && !L->seq_mode && !L->cfg.nkeep && block_values(L) && !(lent = gs_rowtext_lend(L->buf, L->cap)))
        return dec_fail(L, st, GS_ENOMEM, "%s: out of memory", L->base.src->name);
    r = (L->base.rows || L->base.text) && gs_pieces_keep(L->pieces, L->npieces, L->base.rows, L->base.text, lent, &L->stream_n)
            ? dec_fail(L, st, GS_ENOMEM, "%s: out of memory", L->base.src->name)
            : GS_OK;
    L->line_base += lines;
    L->pos += cut;
    int swapped = 0;
    if (!r && L->ahead) swapped = !(r = take_ahead(L, st));
    if (lent) {
        const int r2 = replace_lent(L, lent, swapped, st);
        if (!r) r = r2;
    }
    if (r) return r;
    L->cur = L->off = 0;
    /* The end, unless the sequential parser still holds a row (then one more, empty, block
     * finishes it). */
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
    gs_ldec *L = (gs_ldec *)d;
    size_t es = L->cfg.esize * (size_t)(L->cfg.ncols > 1 ? L->cfg.ncols : 1), done = 0;
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
                    L->segs[nseg++] = (copy_seg){(pc->ext ? pc->ext : pc->vals) + L->off * es, (char *)buf + done * es, take * es};
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
    gs_ldec *L = (gs_ldec *)d;
    if (!L) return;
    for (size_t i = 0; i < L->npieces_cap; i++)
        free(L->pieces[i].vals), free(L->pieces[i].skips), free(L->pieces[i].spans), free(L->pieces[i].text);
    gs_rowmap_free(L->base.rows);
    gs_rowtext_free(L->base.text);
    free(L->carry);
    free(L->pieces);
    free(L->segs);
    free(L->buf);
    free(L->abuf);
    if (L->dl.ctx_free) L->dl.ctx_free(L->dl.ctx);
    if (L->base.src) L->base.src->close(L->base.src);
    free(L);
}

void gs_lines_abandon(gs_ldec *L)
{
    if (!L) return;
    L->base.src = NULL;
    ldec_close(&L->base);
}

/* ---- before the first block -------------------------------------------------------------- */

gs_decoder *gs_lines_decoder(gs_ldec *L) { return &L->base; }

static int lines_text_parser(gs_decoder *d, const gs_text_parser *p, int set)
{
    gs_ldec *L = (gs_ldec *)d;
    if (set) atomic_store(&L->tp, p);
    return L->cfg.ncols <= 1 && !L->base.rows && !L->base.text && !L->cfg.nkeep;
}

gs_lparse *gs_lines_cfg(gs_ldec *L) { return &L->cfg; }

const char *gs_lines_peek(const gs_ldec *L, size_t *n, int *eof)
{
    *n = L->len - L->pos;
    *eof = L->eof;
    return L->buf + L->pos;
}

int gs_lines_more(gs_ldec *L, gs_status *st)
{
    int r;
    if (L->len - L->pos == L->cap && (r = grow(L, st))) return r;
    return fill(L, L->len - L->pos + 1, st);
}

void gs_lines_take(gs_ldec *L, size_t n, uint64_t lines)
{
    if (L->base.text) { /* the header row, as in the input (blank lines before it dropped) */
        size_t b = 0;
        while (b < n && (L->buf[L->pos + b] == '\n' || L->buf[L->pos + b] == '\r')) b++;
        if (gs_rowtext_set_header(L->base.text, L->buf + L->pos + b, n - b)) L->fail.code = GS_ENOMEM,
            snprintf(L->fail.msg, sizeof L->fail.msg, "%s: out of memory", L->base.src->name);
    }
    L->pos += n;
    L->line_base += lines;
}

void gs_lines_cr(gs_ldec *L)
{
    L->cr_lines = 1;
    cr_to_lf(L->buf + L->pos, L->len - L->pos);
}

int gs_lines_open(gs_ldec **out, gs_bsrc *src, const gs_read_opts *o, char delim, const gs_lines_dialect *dl,
                  gs_status *st)
{
    *out = NULL;
    gs_ldec *L = calloc(1, sizeof *L);
    if (!L) {
        if (dl->ctx_free) dl->ctx_free(dl->ctx);
        return gs_fail(st, GS_ENOMEM, "%s: out of memory", src->name);
    }
    L->dl = *dl;
    L->base.read = ldec_read;
    L->base.close = ldec_close;
    L->base.text_parser = dl->ws_cut ? NULL : lines_text_parser; /* csv */
    L->base.type = o->type;
    L->base.count = -1;
    L->base.src = src;
    L->cfg.type = o->type;
    L->cfg.esize = gs_type_size(o->type);
    L->cfg.col = 1;
    L->cfg.delim = delim;
    L->cfg.trim_sp = delim != ' ';
    L->cfg.trim_tab = delim != '\t';
    L->cfg.skip_bad = o->skip_bad;
    int r = (unsigned)o->type < GS_NTYPES ? gs_na_setup(&L->cfg, o, src->name, st) : GS_OK;
    /* Rows dropped from the stream are recorded, so that positions stay input rows. */
    if (!r && (o->skip_bad || o->na == GS_NA_SKIP) && !(L->base.rows = gs_rowmap_new()))
        r = gs_fail(st, GS_ENOMEM, "%s: out of memory", src->name);
    if (!r && (o->keep_rows || o->keep) && !(L->base.text = gs_rowtext_new())) r = gs_fail(st, GS_ENOMEM, "%s: out of memory", src->name);
    L->nthreads = o->threads > 0 ? o->threads : gs_pool_threads();
    L->block = o->block_size ? o->block_size : DEFAULT_BLOCK;
    L->headroom = L->block < HEADROOM ? L->block : HEADROOM;
    L->cap = L->headroom + L->block;
    L->line_base = o->line_offset;
    if (r) {
    } else if ((unsigned)o->type >= GS_NTYPES) r = gs_fail(st, GS_EUSAGE, "%s: invalid element type", src->name);
    else if (!(L->buf = gs_alloc_large(L->cap))) r = gs_fail(st, GS_ENOMEM, "%s: out of memory", src->name);
    /* Only what the format's first look needs (it reads more while it lacks a whole row): a
     * slow pipe must not hold up the open for a whole block. */
    if (!r) r = fill(L, 4, st);
    /* A UTF-8 byte order mark (spreadsheet exports) is not part of the first field. */
    if (!r && L->len >= 3 && memcmp(L->buf, "\xef\xbb\xbf", 3) == 0) L->pos = 3;
    if (r) {
        gs_lines_abandon(L);
        return r;
    }
    *out = L;
    return GS_OK;
}
