/* csv_split.c - csv's fast splitter (gs_csv_piece, csv_lines.h): the pieces of a block without
 * quotes, split at delimiters and line ends found with wide loads, the selected field parsed.
 *
 * It agrees with libcsv on the dialect: rows end at '\n' (a '\r' before it, like any '\r', ' '
 * or '\t' around a field, is surrounding space, except the delimiter itself); blank lines are
 * skipped; fields beyond the selected one are not looked at. */
#include "csv_lines.h"
#include "csv_scan.h"
#include "missing.h"

#include <stdint.h>
#include <string.h>

void gs_csv_piece(const gs_lparse *c, gs_piece *pc)
{
    const char *p = pc->begin, *end = pc->end;
    const char delim = c->delim;
    const int col = c->col;
    uint64_t line = 0;
    if (c->ncols > 1) {
        gs_csv_piece_cols(c, pc);
        return;
    }
    /* A quote sends the block to the sequential parser: looked for here, in every piece at
     * once, rather than in the whole block before it is split. */
    if (memchr(p, '"', (size_t)(end - p))) {
        pc->quoted = 1;
        return;
    }
    /* --keep of one column before the value's, without the value's field: cut here on the way */
    const int kc = pc->kept && c->nkeep == 1 && !c->keep_value && c->keep_cols[0] + 1 < col ? c->keep_cols[0] + 1 : 0;
    while (p < end) {
        const char *f = p, *fe = gs_field_end(p, end, delim), *kf = f, *kfe = fe;
        int k = 1;
        for (; k < col && fe < end && *fe == delim; k++) {
            f = fe + 1;
            fe = gs_field_end(f, end, delim);
            if (k + 1 == kc) kf = f, kfe = fe;
        }
        /* the line end: fe when the field stopped there, else further on */
        const char *nl = fe;
        if (fe < end && *fe != '\n') nl = gs_line_end(fe, end);
        if (k < col) {
            if (!gs_lparse_blank(c, p, nl) && gs_piece_bad(c, pc, GS_PERR_MISSING, line, col, k, "", 0)) return;
        } else {
            while (f < fe && gs_lparse_trim(c, *f)) f++;
            while (fe > f && gs_lparse_trim(c, fe[-1])) fe--;
            if (f < fe || !gs_lparse_blank(c, p, nl)) {
                void *slot = gs_piece_slot(pc, c->esize);
                if (!slot) return;
                int r = gs_field_parse(c, f, (size_t)(fe - f), slot);
                if (r == 0) {
                    pc->n++;
                    if (kc) { /* fields are shorter than their rows: the piece's text has room */
                        gs_copy_small(pc->text + pc->text_len, kf, (size_t)(kfe - kf));
                        pc->text_len += (size_t)(kfe - kf);
                        if (gs_piece_span(pc, (int64_t)(pc->text_len - (size_t)(kfe - kf)), kfe - kf)) return;
                    } else if (pc->keep_rows && (pc->kept ? gs_piece_kept(c, pc, p, nl)
                                                          : gs_piece_span(pc, p - pc->begin, (nl < end ? nl + 1 : end) - p)))
                        return;
                } else if (r == GS_FIELD_SKIP ? gs_piece_skip(pc) : gs_piece_bad(c, pc, r, line, col, 0, f, (size_t)(fe - f)))
                    return;
            }
        }
        if (nl == end) break;
        line++;
        p = nl + 1;
    }
    pc->lines = line;
}

int gs_piece_kept(const gs_lparse *c, gs_piece *pc, const char *p, const char *e)
{
    const char *fb[GS_KEEP_CUT], *fe[GS_KEEP_CUT];
    int nf = 0;
    while (e > p && e[-1] == '\r') e--; /* as the row's line end */
    for (const char *f = p; nf < c->keep_need;) {
        const char *x = gs_field_end(f, e, c->delim);
        fb[nf] = f, fe[nf++] = x;
        if (x >= e) break;
        f = x + 1;
    }
    /* at most every kept field the whole row long, a delimiter after each, the value's field */
    const size_t most = (size_t)(e - p + 1) * (size_t)(c->nkeep + 1);
    if (pc->text_len + most > pc->text_cap) {
        size_t nc = pc->text_cap * 2 + most;
        char *nt = realloc(pc->text, nc);
        if (!nt) return pc->nomem = 1;
        pc->text = nt;
        pc->text_cap = nc;
    }
    char *o = pc->text + pc->text_len;
    for (int k = 0; k < c->nkeep; k++) {
        const int col = c->keep_cols[k];
        if (col < nf) gs_copy_small(o, fb[col], (size_t)(fe[col] - fb[col])), o += fe[col] - fb[col];
        if (k + 1 < c->nkeep || c->keep_value) *o++ = c->delim;
    }
    if (c->keep_value && c->col - 1 < nf) memcpy(o, fb[c->col - 1], (size_t)(fe[c->col - 1] - fb[c->col - 1])), o += fe[c->col - 1] - fb[c->col - 1];
    const size_t at = pc->text_len;
    pc->text_len = (size_t)(o - pc->text);
    return gs_piece_span(pc, (int64_t)at, (int64_t)(pc->text_len - at));
}
