/* csv_buffers.c - the line engine's bytes (csv_lines.h): its failures, reading the source into its
 * buffers (a line longer than a block grows them; the next block is read ahead into a second one,
 * the carried tail put in front of it; a buffer lent to the row store replaced), and opening and
 * closing it (the first bytes before the first block: a byte order mark, the format's header).
 * Cutting and parsing the blocks is csv_lines.c. */
#include "csv_ldec.h"
#include "missing.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/pool.h"
#include "../common/rowmap.h"
#include "../common/trace.h"

/* Fail and remember it: a failure is sticky. */
int gs_ldec_fail(gs_ldec *L, gs_status *st, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(L->fail.msg, sizeof L->fail.msg, fmt, ap);
    va_end(ap);
    L->fail.code = code;
    return gs_fail(st, code, "%s", L->fail.msg);
}

/* Remember the failure the source reported in st. */
int gs_ldec_src_fail(gs_ldec *L, int code, const gs_status *st)
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
    if (pc->nomem) return gs_ldec_fail(L, st, GS_ENOMEM, "%s: out of memory", name);
    if (pc->err_field) snprintf(where, sizeof where, "line %llu field %d", line, pc->err_field);
    else snprintf(where, sizeof where, "line %llu", line);
    switch (pc->err) {
    case GS_PERR_INVALID:
        return gs_ldec_fail(L, st, GS_EDATA, "%s: %s: invalid number '%s'", name, where, pc->err_tok);
    case GS_PERR_RANGE:
        return gs_ldec_fail(L, st, GS_EDATA, "%s: %s: number '%s' out of range for %s", name, where, pc->err_tok,
                        gs_type_name(L->cfg.type));
    case GS_PERR_NA:
        return gs_ldec_fail(L, st, GS_EDATA,
                        "%s: %s: missing value%s%s%s in a column of type %s: read it as a float (-t f64), fill "
                        "it (--na V) or drop the row (--na skip)",
                        name, where, pc->err_tok[0] ? " '" : "", pc->err_tok, pc->err_tok[0] ? "'" : "",
                        gs_type_name(L->cfg.type));
    case GS_PERR_MISSING:
        return gs_ldec_fail(L, st, GS_EDATA, "%s: line %llu: missing column %d (the row has %d field%s)", name, line,
                        pc->err_field, pc->err_nfields, pc->err_nfields == 1 ? "" : "s");
    case GS_PERR_TOOLONG:
        return gs_ldec_fail(L, st, GS_EDATA, "%s: line %llu: quoted field longer than %zu MiB (missing closing quote?)",
                        name, line, GS_LINES_MAX_FIELD >> 20);
    default:
        return gs_ldec_fail(L, st, GS_EDATA, "%s: line %llu: unterminated quoted field", name, line);
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
int gs_ldec_fill(gs_ldec *L, size_t want, gs_status *st)
{
    if (L->pos) {
        memmove(L->buf, L->buf + L->pos, L->len - L->pos);
        L->len -= L->pos;
        L->pos = 0;
    }
    while (L->len < want && L->len < L->cap && !L->eof) {
        size_t got = 0;
        int r = src_read(L, L->buf + L->len, L->cap - L->len, &got, st);
        if (r) return gs_ldec_src_fail(L, r, st);
        if (got == 0) L->eof = 1;
        L->len += got;
    }
    return GS_OK;
}

/* Double the buffer (a line longer than a block), up to MAX_LINE. */
int gs_ldec_grow(gs_ldec *L, gs_status *st)
{
    size_t ncap = L->cap * 2;
    if (L->cap >= MAX_LINE)
        return gs_ldec_fail(L, st, GS_EDATA, "%s: line %llu: longer than %zu MiB", L->base.src->name,
                        (unsigned long long)L->line_base + 1, MAX_LINE >> 20);
    char *nb = realloc(L->buf, ncap);
    if (!nb) return gs_ldec_fail(L, st, GS_ENOMEM, "%s: out of memory (a line longer than %zu MiB?)",
                             L->base.src->name, L->cap >> 20);
    L->buf = nb;
    L->cap = ncap;
    return GS_OK;
}

/* Read the next block into abuf (the read-ahead part of a block's job). */
void gs_ldec_read_ahead(gs_ldec *L)
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

/* The block's buffer was lent to the row store, which holds rows in it: the engine reads on into
 * another (the store's spare, else a new one), never writing the lent one again. Where the
 * read-ahead buffer took the carried tail (swapped), the lent one is the next read-ahead's; else
 * the tail [pos, len) moves to the new buffer. Gives back the lender's reference. */
int gs_ldec_replace_lent(gs_ldec *L, gs_rowtext_mem *lent, int swapped, gs_status *st)
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
        else r = gs_ldec_fail(L, st, GS_ENOMEM, "%s: out of memory", L->base.src->name), L->len = L->pos = 0;
        L->buf = nb;
        L->cap = nb ? cap : 0;
    }
    gs_rowtext_unlend(L->base.text, lent);
    return r;
}

/* After a block's job: the carried tail (part of a line) goes in front of the block read ahead,
 * and the buffers swap. */
int gs_ldec_take_ahead(gs_ldec *L, gs_status *st)
{
    size_t tail = L->len - L->pos, have = L->alen - L->apos;
    if (tail > L->apos) { /* a tail longer than the headroom: make room */
        if (tail + have > L->acap) {
            char *nb = realloc(L->abuf, tail + have);
            if (!nb) return gs_ldec_fail(L, st, GS_ENOMEM, "%s: out of memory", L->base.src->name);
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
    return !L->base.rows && !L->base.text && !L->cfg.nkeep;
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
    if (L->len - L->pos == L->cap && (r = gs_ldec_grow(L, st))) return r;
    return gs_ldec_fill(L, L->len - L->pos + 1, st);
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
    L->base.read = gs_ldec_read;
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
    if (!r) r = gs_ldec_fill(L, 4, st);
    /* A UTF-8 byte order mark (spreadsheet exports) is not part of the first field. */
    if (!r && L->len >= 3 && memcmp(L->buf, "\xef\xbb\xbf", 3) == 0) L->pos = 3;
    if (r) {
        gs_lines_abandon(L);
        return r;
    }
    *out = L;
    return GS_OK;
}
