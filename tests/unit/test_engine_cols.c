/* test_engine_cols.c - several columns in one pass (pipeline/columns.c): a source of rows of k
 * values gives, for each column, what a run on that column alone gives, its results joined into
 * rows; on the CPU backend and on the fake GPU (tests/unit/fake_gpu.h) with its warm start handing
 * over at every chunk, a GPU chunk smaller than the engine's (views), and several depths. */
#include "fake_gpu.h"

#include <stdio.h>

/* Run ch over the k interleaved columns rows[0, n x k) with o. */
static void run_cols(const gs_chain *ch, const int32_t *rows, size_t n, int k, const gs_engine_opts *o, result *res,
                     uint64_t *counts)
{
    msrc m = {(const unsigned char *)rows, n, 0, sizeof(int32_t) * (size_t)k, 0};
    gs_source src = {.read = msrc_read, .ctx = &m, .type = GS_I32, .count = (int64_t)n, .bytes = msrc_bytes, .cols = k};
    memset(res, 0, sizeof *res);
    gs_writer *w = NULL;
    gs_byte_sink sink = {mbuf_write, &res->out, "memory"};
    gs_write_opts wo = {.format = GS_FMT_RAW, .type = gs_chain_out_type(ch, GS_I32), .ncols = gs_chain_out_cols(ch) * k,
                        .rows = -1};
    gs_engine_opts oo = *o;
    oo.col_counts = counts;
    if (!ch->stage[ch->n - 1].count_only && (res->rc = gs_writer_open_sink(&w, &sink, &wo, NULL, 0, &res->st))) return;
    res->rc = gs_engine_run_chain(ch, &oo, &src, w, &res->count, &res->stats, &res->st);
    if (w && res->rc) gs_writer_abort(w);
    else if (w) res->rc = gs_writer_finish(w, NULL, &res->st);
}

/* The reference: each column alone on the CPU, joined into rows of k x m values. */
static int reference(const gs_chain *ch, const int32_t *rows, size_t n, int k, mbuf *out, uint64_t *counts,
                     gs_status *st)
{
    const int m = gs_chain_out_cols(ch);
    const size_t osz = gs_type_size(gs_chain_out_type(ch, GS_I32));
    result one[GS_WRITE_COLS_MAX];
    int32_t *col = malloc(n * sizeof *col + 1);
    gs_engine_opts o = opts(GS_BACKEND_CPU, 1 << 20, 4);
    size_t nrows = 0;
    for (int c = 0; c < k; c++) {
        for (size_t i = 0; i < n; i++) col[i] = rows[i * (size_t)k + (size_t)c];
        run(ch, GS_I32, col, n, 1, &o, &one[c]);
        if (one[c].rc) {
            *st = one[c].st;
            free(col);
            return one[c].rc;
        }
        counts[c] = one[c].count;
        nrows = one[c].out.n / osz / (size_t)m;
    }
    memset(out, 0, sizeof *out);
    out->n = nrows * (size_t)(m * k) * osz;
    out->p = malloc(out->n + 1);
    for (size_t r = 0; r < nrows; r++)
        for (int c = 0; c < k; c++)
            memcpy(out->p + (r * (size_t)k + (size_t)c) * (size_t)m * osz, one[c].out.p + r * (size_t)m * osz,
                   (size_t)m * osz);
    for (int c = 0; c < k; c++) result_free(&one[c]);
    free(col);
    return GS_OK;
}

static void cols_case(const char *name, gs_chain ch, int k)
{
    const size_t n = 1000, chunk = 64, nchunks = (n + chunk - 1) / chunk;
    int32_t *rows = data(n * (size_t)k, 0, 41u + (unsigned)k);
    mbuf want = {0};
    uint64_t wc[GS_WRITE_COLS_MAX] = {0}, gc[GS_WRITE_COLS_MAX];
    gs_status st = {0};
    int rc = reference(&ch, rows, n, k, &want, wc, &st);
    char full[200], why[1200] = "";
    int bad = rc != 0;
    if (rc) snprintf(why, sizeof why, "reference: %s", st.msg);
    /* the CPU backend, then the fake GPU ready after j chunks, its chunk 24 or the engine's */
    for (int j = -1; !bad && j <= (int)nchunks + 1; j++)
        for (int small = 0; small < 2 && !bad; small++) {
            result got;
            gs_engine_opts o = opts(j < 0 ? GS_BACKEND_CPU : GS_BACKEND_GPU, chunk, 4 * (size_t)k);
            if (j >= 0) {
                fake_reset(j, 1);
                fk.chunk = small ? 24 : 0;
                fk.depth = 2 + small;
                o.parts = &fake_parts;
            }
            memset(gc, 0, sizeof gc);
            run_cols(&ch, rows, n, k, &o, &got, gc);
            const int count_only = ch.stage[ch.n - 1].count_only;
            bad = got.rc != 0 || (!count_only && (got.out.n != want.n || memcmp(got.out.p, want.p, want.n))) ||
                  (count_only && memcmp(gc, wc, (size_t)k * sizeof *gc));
            if (bad)
                snprintf(why, sizeof why, "%s ready after %d chunks, GPU chunk %d: rc %d (%s), %zu bytes, want %zu",
                         j < 0 ? "cpu" : "fake gpu", j, small ? 24 : 64, got.rc, got.st.msg, got.out.n, want.n);
            result_free(&got);
        }
    snprintf(full, sizeof full, "%d columns: %s", k, name);
    CHECK(!bad, full, "%s", why);
    free(want.p);
    free(rows);
}

int main(void)
{
    fake_parts_init();
    for (int k = 2; k <= 3; k++) {
        cols_case("scan sum to i64", chain1(j_scan(GS_SCAN_SUM, 0, GS_I64)), k);
        cols_case("scan max exclusive", chain1(j_scan(GS_SCAN_MAX, 1, GS_I32)), k);
        cols_case("minmax -w 3", chain1(j_minmax(3, GS_MM_BOTH, 0, GS_I32)), k);
        cols_case("minmax -w 150 (longer than a chunk)", chain1(j_minmax(150, GS_MM_BOTH, 0, GS_I32)), k);
        cols_case("minmax -w 9 --partial --only min", chain1(j_minmax(9, GS_MM_MIN, 1, GS_I32)), k);
        gs_job cnt = j_compact(GS_PRED_GT, 0, GS_I32);
        cnt.count_only = 1;
        cols_case("compact gt:0 --count", chain1(cnt), k);
        cols_case("scan then minmax --only max", chain2(j_scan(GS_SCAN_SUM, 0, GS_I64), j_minmax(20, GS_MM_MAX, 0, GS_I64)),
                  k);
        gs_chain c2 = chain2(j_scan(GS_SCAN_SUM, 0, GS_I64), cnt);
        c2.stage[1].compact.type = GS_I64;
        cols_case("scan then compact --count", c2, k);
    }
    /* compact writing values is refused: the columns would differ in length */
    {
        int32_t rows[8] = {1, 0, 2, 3, 0, 4, 5, 6};
        result got;
        gs_chain ch = chain1(j_compact(GS_PRED_GT, 0, GS_I32));
        gs_engine_opts o = opts(GS_BACKEND_CPU, 64, 8);
        uint64_t gc[GS_WRITE_COLS_MAX];
        run_cols(&ch, rows, 4, 2, &o, &got, gc);
        CHECK(got.rc == GS_EUSAGE && strstr(got.st.msg, "different number of values"), "2 columns: compact values refused",
              "rc %d (%s)", got.rc, got.st.msg);
        result_free(&got);
    }
    return CHECK_DONE();
}
