/* rowsout.c - what the writer writes as input rows (engine.h): positions as input rows through the
 * source's row map (compact --indices, rolling's argmin and argmax), and the rows' text from its row
 * store (compact --rows, --keep). Run by the writer thread alone, after the backend, on the host. */
#include "engine.h"
#include "../common/rowmap.h"

#include <stdlib.h>
#include <string.h>

int gs_rows_setup(gs_run *r, const gs_chain *chain, const gs_source *src, gs_status *st)
{
    for (int k = 0; src->rows && k + 1 < chain->n; k++)
        if (chain->stage[k].op == GS_OP_COMPACT && chain->stage[k].compact.indices)
            return gs_fail(st, GS_EUSAGE, "stage %d (compact): --indices before another stage, on an input that "
                                          "drops rows (--na skip, --skip-bad): make it the last stage", k + 1);
    /* positions written as input rows, by the writer (never as frames a device compressed) */
    r->rows = gs_chain_writes_positions(chain) ? src->rows : NULL;
    const gs_job *last = &chain->stage[chain->n - 1];
    for (int k = 0; src->rows && k + 1 < chain->n; k++) {
        unsigned m;
        if (gs_job_arg_cols(&chain->stage[k], &m))
            return gs_fail(st, GS_EUSAGE, "stage %d (rolling): argmin/argmax before another stage, on an input that "
                                          "drops rows (--na skip, --skip-bad): make it the last stage", k + 1);
    }
    /* argmin/argmax of the chain's input stream: written as input rows */
    if (gs_job_arg_cols(last, &r->arg_cols) && gs_chain_keeps_rows(chain, chain->n - 1)) r->arg_map = src->rows;
    if (last->keep) {
        int ok = last->op == GS_OP_COMPACT ? chain->n == 1 && last->compact.indices
                                           : last->op == GS_OP_SCAN || last->op == GS_OP_MINMAX;
        for (int k = 0; k + 1 < chain->n; k++) ok &= chain->stage[k].op != GS_OP_COMPACT;
        if (!src->text || !ok)
            return gs_fail(st, GS_EUSAGE, "--keep needs CSV input and scan, minmax or rolling stages, or compact alone");
        r->text = src->text;
        r->keep = 1;
        r->rows = NULL;
    } else if (chain->stage[chain->n - 1].rows) {
        if (!gs_chain_writes_positions(chain) || !src->text)
            return gs_fail(st, GS_EUSAGE, "compact --rows needs CSV or text input and no filtering stage before it");
        r->text = src->text;
        r->rows = NULL;
    }
    return GS_OK;
}

int gs_chain_text_form(const gs_chain *chain, const gs_source *src, const gs_writer *w, char *sep)
{
    const gs_job *last = &chain->stage[chain->n - 1];
    unsigned m;
    if (sep) *sep = 0;
    if (!w || src->cols > 1 || last->keep || last->rows) return 0;
    if (src->rows && (gs_chain_writes_positions(chain) || gs_job_arg_cols(last, &m))) return 0;
    const int cols = gs_writer_text_form(w, sep);
    return cols == gs_chain_out_cols(chain) ? cols : 0;
}

/* Positions of the stream as input rows: p -> row_base + the row of stream value p - index_base. */
void gs_rows_positions(const gs_run *r, uint64_t *p, size_t n)
{
    const uint64_t base = r->chain->stage[0].index_base, row_base = r->chain->stage[0].row_base;
    for (size_t i = 0; i < n; i++) p[i] -= base;
    gs_rowmap_rows(r->rows, p, n);
    for (size_t i = 0; i < n; i++) p[i] += row_base;
}

/* A rolling chunk's argmin/argmax columns (r->arg_cols, of each input column's results) as input
 * rows: each position p becomes row_base + the row of stream value p - index_base, read and
 * written in the column's type (a float column's NaN, a window without a value, stays). */
int gs_rows_args(gs_run *r, gs_chunk *c, gs_status *st)
{
    const gs_job *j = &r->chain->stage[r->chain->n - 1];
    const gs_type t = r->types[r->chain->n];
    const size_t cols = (size_t)r->cols, rows = c->n / cols, es = gs_type_size(t);
    const size_t per = cols / (size_t)r->in_cols; /* results of one input column (arg_cols's bits) */
    if (rows > r->kpos_cap) {
        uint64_t *np = realloc(r->kpos, rows * sizeof *np);
        if (!np) return gs_fail(st, GS_ENOMEM, "out of host memory");
        r->kpos = np;
        r->kpos_cap = rows;
    }
    for (size_t k = 0; k < cols; k++) {
        if (!(r->arg_cols >> (k % per) & 1)) continue;
        char *v = (char *)c->data + k * es;
        size_t m = 0;
        for (size_t i = 0; i < rows; i++) { /* the column's positions, NaN left out */
            double d = 0;
            uint64_t p = 0;
            const char *x = v + i * cols * es;
            switch (t) {
            case GS_F64: memcpy(&d, x, 8); break;
            case GS_F32: { float f; memcpy(&f, x, 4); d = f; break; }
            default: gs_convert(x, t, &p, GS_U64, 1); break;
            }
            if (gs_type_is_float(t)) {
                if (d != d) continue;
                p = (uint64_t)d;
            }
            r->kpos[m++] = p - j->index_base;
        }
        gs_rowmap_rows(r->arg_map, r->kpos, m);
        m = 0;
        for (size_t i = 0; i < rows; i++) {
            char *x = v + i * cols * es;
            if (t == GS_F64 || t == GS_F32) {
                double d;
                if (t == GS_F64) memcpy(&d, x, 8);
                else { float f; memcpy(&f, x, 4); d = f; }
                if (d != d) continue;
            }
            uint64_t p = r->kpos[m++] + j->row_base;
            gs_convert(&p, GS_U64, x, t, 1);
        }
    }
    return GS_OK;
}

static int put_bytes(void *ctx, const char *p, size_t len, gs_status *st)
{
    return gs_writer_write_bytes((gs_writer *)ctx, p, len, st);
}

/* compact --rows: the input rows of the chunk's positions, then the rows before its input's end
 * are let go. */
int gs_rows_write(gs_run *r, gs_chunk *c, gs_status *st)
{
    uint64_t *p = c->data;
    const uint64_t base = r->chain->stage[0].index_base;
    for (size_t i = 0; i < c->n; i++) p[i] -= base;
    int rc = r->w && c->n ? gs_rowtext_write(r->text, p, c->n, put_bytes, r->w, st) : GS_OK;
    gs_rowtext_release(r->text, c->in_end);
    return rc;
}

/* --keep: each result after its input row's kept columns (compact: the kept rows, from the
 * positions; scan, minmax, rolling and chains of them: a row per input element or window, the
 * chunk's last rows of the stream, a window's at its right end), then those rows are let go. */
int gs_rows_write_keep(gs_run *r, gs_chunk *c, gs_status *st)
{
    const gs_job *j = &r->chain->stage[r->chain->n - 1];
    int rc = GS_OK;
    if (r->w && c->n) {
        uint64_t *pos = c->data, first = 0;
        const void *vals = NULL;
        size_t rows = c->n;
        if (j->op == GS_OP_COMPACT) {
            for (size_t i = 0; i < c->n; i++) pos[i] -= j->index_base;
        } else { /* a row per result row, the chunk's last rows of the stream */
            rows = c->n / (size_t)r->cols;
            pos = NULL;
            first = c->in_end - rows;
            vals = c->data;
        }
        rc = gs_rowtext_write_keep(r->text, pos, first, rows, r->types[r->chain->n], vals, put_bytes, r->w, st);
    }
    gs_rowtext_release(r->text, c->in_end);
    return rc;
}
