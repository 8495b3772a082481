/* csv_rows.c - what the line engine keeps of the rows beside their values: the rows dropped
 * (--na skip, skip_bad) for the reader's row map, and each value's row text for the row store
 * (compact --rows, --keep). Pieces record both as they parse; after a block, its pieces hand them
 * over in stream order (csv_lines.h). */
#include "csv_lines.h"

#include <stdlib.h>
#include <string.h>

#include "../common/rowmap.h"

int gs_piece_span_grow(gs_piece *pc, int64_t start, int64_t len)
{
    const size_t i = pc->n - 1;
    size_t nc = pc->spcap ? pc->spcap * 2 : 8192;
    while (nc < 2 * i + 2) nc *= 2;
    int64_t *ns = realloc(pc->spans, nc * sizeof *ns);
    if (!ns) return pc->nomem = 1;
    pc->spans = ns;
    pc->spcap = nc;
    pc->spans[2 * i] = start;
    pc->spans[2 * i + 1] = len;
    return 0;
}

int gs_piece_skip(gs_piece *pc)
{
    pc->skipped++;
    if (!pc->keep_skips) return 0;
    if (pc->nskips == pc->skcap) {
        size_t nc = pc->skcap ? pc->skcap * 2 : 256;
        uint64_t *ns = realloc(pc->skips, nc * sizeof *ns);
        if (!ns) return pc->nomem = 1;
        pc->skips = ns;
        pc->skcap = nc;
    }
    pc->skips[pc->nskips++] = pc->n;
    return 0;
}

int gs_piece_kept_text(gs_piece *pc, gs_rowtext *store, int nkeep)
{
    if (!pc->keep_rows || !nkeep) return 1;
    const size_t n = (size_t)(pc->end - pc->begin) + 64; /* kept fields are shorter than their rows */
    pc->text_cap = n;
    if (!(pc->text = gs_rowtext_reuse(store, 0, n, &pc->text_cap)) && !(pc->text = gs_alloc_large(n))) {
        pc->nomem = 1;
        return 0;
    }
    pc->text_len = 0;
    pc->kept = 1;
    return 1;
}

void gs_piece_text(gs_piece *pc, gs_rowtext *store, int seq, int midrow, char **carry, size_t *carry_len)
{
    /* other pieces' rows stay where they lie in the block (lent to the store), or were cut (kept) */
    if (pc->err || pc->nomem || pc->kept || !seq) return;
    const size_t c = *carry_len, n = (size_t)(pc->end - pc->begin);
    /* a little over: the next pieces, a few bytes longer or shorter, fit in it again */
    pc->text_cap = c + n + 1 + (n >> 4) + 4096;
    if (!(pc->text = gs_rowtext_reuse(store, 0, c + n + 1, &pc->text_cap)) && !(pc->text = malloc(pc->text_cap))) {
        pc->nomem = 1;
        return;
    }
    if (c) memcpy(pc->text, *carry, c);
    memcpy(pc->text + c, pc->begin, n);
    for (size_t i = 0; c && i < pc->n; i++) pc->spans[2 * i] += (int64_t)c;
    size_t keep = 0;
    if (midrow) { /* the open row: from where it began (maybe in the carry) to the block's end */
        const size_t at = (size_t)((int64_t)c + pc->open_row);
        keep = c + n - at;
        char *nc = malloc(keep + 1);
        if (!nc) {
            pc->nomem = 1;
            return;
        }
        memcpy(nc, pc->text + at, keep);
        free(*carry);
        *carry = nc;
    }
    *carry_len = keep;
}

/* A piece's rows into the store: in its own copy (pc->text), else where they lie in `block`. Rows
 * may hold quotes in a copy only: a block parsed in order holds a quote or goes on with a quoted
 * row, and csv's splitter takes no block with one (the text format has no --keep, which reads them). */
static int piece_rows(gs_piece *pc, gs_rowtext *text, gs_rowtext_mem *block)
{
    gs_rowtext_mem *m = block;
    const char *at = pc->begin;
    const int flags = pc->kept ? GS_ROWS_KEPT : pc->text ? GS_ROWS_QUOTES : 0;
    if (pc->text) {
        if (!(m = gs_rowtext_lend(pc->text, pc->text_cap))) free(pc->text);
        at = pc->text;
        pc->text = NULL;
    }
    if (!m && pc->n) return -1; /* (a block without values is not lent: nothing of it is held) */
    const size_t had = pc->spcap * sizeof *pc->spans;
    int fail = gs_rowtext_append(text, m, at, flags, pc->spans, pc->spcap, pc->n);
    if (m != block) gs_rowtext_unlend(text, m);
    size_t cap = 0; /* spans again: those of released rows, as large as these, where there are */
    pc->spans = gs_rowtext_reuse(text, 1, had, &cap);
    pc->spcap = cap / sizeof *pc->spans;
    return fail;
}

int gs_pieces_keep(gs_piece *pieces, size_t np, struct gs_rowmap *rows, gs_rowtext *text, gs_rowtext_mem *block,
                   uint64_t *stream_n)
{
    int fail = 0;
    for (size_t i = 0; i < np; i++) {
        gs_piece *pc = &pieces[i];
        for (size_t k = 0; rows && k < pc->nskips && !fail; k++) fail = gs_rowmap_add(rows, *stream_n + pc->skips[k], 1);
        *stream_n += pc->n;
        if (text && !fail) fail = piece_rows(pc, text, block);
    }
    return fail ? -1 : 0;
}
