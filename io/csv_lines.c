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
 * declined, and then parsed here, and no later block is offered. The engine's buffers, its reads,
 * and its opening are csv_buffers.c. */
#include "csv_ldec.h"

#include <stdlib.h>
#include <string.h>

#include "../common/pool.h"
#include "../common/trace.h"

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

/* ---- blocks ------------------------------------------------------------------------------- */

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
    if (!ns) return gs_ldec_fail(L, st, GS_ENOMEM, "%s: out of memory", L->base.src->name);
    L->segs = ns;
    memset(np_ + L->npieces_cap, 0, (np - L->npieces_cap) * sizeof *np_);
    L->npieces_cap = np;
    return GS_OK;
}

/* One part of a block's job: part 0 reads ahead (when ahead), the others parse. */
static void run_part(void *ctx, size_t p, size_t np)
{
    gs_ldec *L = ctx;
    (void)np;
    if (L->ahead) {
        if (p == 0) {
            gs_ldec_read_ahead(L);
            return;
        }
        p--;
    }
    if (L->tp_now) { /* the block, offered whole */
        const gs_piece *pc = &L->pieces[0];
        const int several = L->cfg.ncols > 1;
        const gs_text_block b = {pc->begin, (size_t)(pc->end - pc->begin), L->cfg.type, several ? L->cfg.cols : &L->cfg.col,
                                 several ? L->cfg.ncols : 1, L->cfg.delim, L->cfg.trim_sp, L->cfg.trim_tab};
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

/* The block [buf + pos, + cut) offered to the parser elsewhere, while the next is read ahead:
 * TP_NOT_OFFERED (the pieces are parsed as usual), TP_DECLINED (the block is parsed here), TP_TAKEN
 * (piece 0 holds its values), or a failure's status. */
enum { TP_NOT_OFFERED = -3, TP_DECLINED = -2, TP_TAKEN = -1 };
static int offer_block(gs_ldec *L, size_t cut, gs_status *st)
{
    const gs_text_parser *tp = L->tp_off ? NULL : atomic_load(&L->tp);
    if (!tp || L->seq_mode || !cut || L->dl.ws_cut || L->base.rows || L->base.text)
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
    if (!L->eof && L->len - L->pos < L->block && (r = gs_ldec_fill(L, L->block, st))) return r;
    for (;;) {
        n = L->len - L->pos;
        if (L->eof) {
            cut = n;
            break;
        }
        if ((cut = find_cut(L, L->buf + L->pos, n))) break;
        if ((r = gs_ldec_grow(L, st)) || (r = gs_ldec_fill(L, L->cap, st))) return r; /* a line longer than the buffer */
    }
    if ((r = split_block(L, L->buf + L->pos, cut, st))) return r;
    /* With more than one thread, the next block is read while this one is parsed. */
    L->ahead = L->nthreads > 1 && !L->eof;
    if (L->ahead && L->acap < L->headroom + L->block) { /* read_ahead writes all of it */
        free(L->abuf);
        L->acap = 0;
        if (!(L->abuf = gs_alloc_large(L->headroom + L->block)))
            return gs_ldec_fail(L, st, GS_ENOMEM, "%s: out of memory", L->base.src->name);
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
    if (L->rd_rc) return gs_fail(st, gs_ldec_src_fail(L, L->rd_rc, &L->rd_st), "%s", L->fail.msg); /* the source said why */
    L->base.skipped += skipped;
    /* Rows kept beside the values stay where they lie: the store is lent the block. */
    gs_rowtext_mem *lent = NULL;
    if (L->base.text && !L->seq_mode && !L->cfg.nkeep && block_values(L) && !(lent = gs_rowtext_lend(L->buf, L->cap)))
        return gs_ldec_fail(L, st, GS_ENOMEM, "%s: out of memory", L->base.src->name);
    r = (L->base.rows || L->base.text) && gs_pieces_keep(L->pieces, L->npieces, L->base.rows, L->base.text, lent, &L->stream_n)
            ? gs_ldec_fail(L, st, GS_ENOMEM, "%s: out of memory", L->base.src->name)
            : GS_OK;
    L->line_base += lines;
    L->pos += cut;
    int swapped = 0;
    if (!r && L->ahead) swapped = !(r = gs_ldec_take_ahead(L, st));
    if (lent) {
        const int r2 = gs_ldec_replace_lent(L, lent, swapped, st);
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
int gs_ldec_read(gs_decoder *d, void *buf, size_t cap, size_t *got, gs_status *st)
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
