/* text.c - the "text" format: numbers separated by whitespace, normally one per line; no
 * header, no quoting, no columns. Reading runs on the parallel line engine (csv_lines.h) with
 * the tokenizer below; errors name the line: "in.txt: line 12: invalid number 'x'". Writing:
 * one value per line; a (min, max) row is written "min max", separated by one space, so that
 * `read a b` in a shell and numpy.loadtxt both split it. */
#include "csv.h"
#include "csv_lines.h"
#include "missing.h"

#include <string.h>

static inline int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static void text_piece(const gs_lparse *c, gs_piece *pc)
{
    const char *p = pc->begin, *end = pc->end, *ls = p; /* ls: the line's start */
    uint64_t line = 0;
    while (p < end) {
        if (*p == '\n') {
            line++;
            ls = ++p;
            continue;
        }
        if (is_space(*p)) {
            p++;
            continue;
        }
        const char *t = p;
        while (p < end && *p != '\n' && !is_space(*p)) p++;
        void *slot = gs_piece_slot(pc, c->esize);
        if (!slot) return;
        int r = gs_field_parse(c, t, (size_t)(p - t), slot);
        if (r == 0) {
            pc->n++;
            if (pc->keep_rows) { /* a token's row is its line */
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                if (gs_piece_span(pc, ls - pc->begin, (nl ? nl + 1 : end) - ls)) return;
            }
        } else if (r == GS_FIELD_SKIP ? gs_piece_skip(pc) : gs_piece_bad(c, pc, r, line, 0, 0, t, (size_t)(p - t)))
            return;
    }
    pc->lines = line;
}

int gs_dec_open_text(gs_decoder **d, gs_bsrc *src, const gs_read_opts *o, gs_status *st)
{
    /* A file of one long line may be cut at any whitespace. */
    const gs_lines_dialect dl = {.piece = text_piece, .ws_cut = 1};
    gs_ldec *L;
    *d = NULL;
    int r = gs_lines_open(&L, src, o, ' ', &dl, st);
    if (!r) *d = gs_lines_decoder(L);
    return r;
}

int gs_enc_open_text(gs_encoder **e, gs_bsink *k, const gs_write_opts *o, gs_status *st)
{
    return gs_lines_enc_open(e, k, o, ' ', NULL, st);
}
