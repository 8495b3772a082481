/* test_engine_text.c - csv and text outputs formatted by the backend (the plan's text_gpu) through
 * the engine, with the fake GPU of fake_gpu.h formatting them on the host as the device would: the
 * bytes written must equal the CPU plan's (where the writer formats every value) for scans,
 * compactions that empty chunks, windows of two columns, chains, csv and text, with text in every
 * chunk and in every other one (text after values, values after text), after a warm start whose
 * first chunks ran on the CPU. The writer formats everything where it prints a column in another
 * type; gs_chain_text_form says which outputs may go as text (not raw, mixed types, several input
 * columns, positions or argmin/argmax mapped to input rows, --keep, --rows). And csv input parsed by
 * the backend (the plan's parse_gpu), the fake GPU parsing blocks on the host as the device would:
 * the same bytes as the CPU plan's from the same file, with every block taken, after a warm start,
 * and with a block declined part way (the reader parsing the rest). No device. */
#include "fake_gpu.h"

/* Chain ch over in[0, n) of type t into csv (or text) in memory, on the fake GPU where gpu. */
static void run_text(const gs_chain *ch, gs_type t, const void *in, size_t n, int gpu, gs_format fmt, size_t chunk,
                     const gs_type *coltypes, result *res)
{
    msrc m = {in, n, 0, gs_type_size(t), 0};
    gs_source src = {.read = msrc_read, .ctx = &m, .type = t, .count = (int64_t)n, .bytes = msrc_bytes};
    memset(res, 0, sizeof *res);
    gs_engine_opts o = opts(gpu ? GS_BACKEND_GPU : GS_BACKEND_CPU, chunk, gs_type_size(t));
    o.parts = &fake_parts;
    o.note = on_note;
    gs_writer *w = NULL;
    gs_byte_sink k = {mbuf_write, &res->out, "memory"};
    gs_write_opts wo = {.format = fmt, .type = gs_chain_out_type(ch, t), .ncols = gs_chain_out_cols(ch), .rows = -1,
                        .coltypes = coltypes, .colnames = "a"};
    if ((res->rc = gs_writer_open_sink(&w, &k, &wo, NULL, 0, &res->st))) return;
    res->rc = gs_engine_run_chain(ch, &o, &src, w, &res->count, &res->stats, &res->st);
    if (res->rc) gs_writer_abort(w);
    else res->rc = gs_writer_finish(w, NULL, &res->st);
}

/* f64 values with the hostile ones among them: -0.0, nan, inf, denormals, 17 digits */
static double *doubles(size_t n, unsigned seed)
{
    static const double odd[] = {-0.0, 0.0, 1e300, -5e-324, 0.1, 123456789.123456789, 1e16, 1e-5};
    double *d = malloc((n ? n : 1) * sizeof *d);
    double x = 100;
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        x += ((double)((seed >> 8) % 2001) - 1000.0) / 7.0;
        d[i] = (seed >> 4) % 53 == 0 ? odd[(seed >> 12) % 8] : x;
    }
    if (n > 10) d[3] = 0.0 / 0.0, d[7] = 1.0 / 0.0, d[9] = -1.0 / 0.0;
    return d;
}

static void check(const char *name, const gs_chain *ch, gs_type t, const void *in, size_t n, gs_format fmt,
                  int ready_at, int odd, int want_text)
{
    const size_t chunks[] = {1, 7, 1000};
    for (size_t ci = 0; ci < sizeof chunks / sizeof chunks[0]; ci++) {
        result ref, got;
        char nm[200];
        run_text(ch, t, in, n, 0, fmt, chunks[ci], NULL, &ref);
        fake_reset(ready_at, 1);
        fk.text_odd = odd;
        run_text(ch, t, in, n, 1, fmt, chunks[ci], NULL, &got);
        snprintf(nm, sizeof nm, "text: %s, %zu values, chunk %zu%s%s", name, n, chunks[ci],
                 ready_at ? ", warm start" : "", odd ? ", every other chunk" : "");
        CHECK(same(&ref, &got) && ref.out.n > 0, nm, "rc %d %d (%s), %zu bytes against %zu", ref.rc, got.rc, got.st.msg,
              got.out.n, ref.out.n);
        snprintf(nm, sizeof nm, "text: %s, chunk %zu%s%s: formatted by the backend", name, chunks[ci],
                 ready_at ? ", warm start" : "", odd ? ", every other chunk" : "");
        CHECK(want_text ? fk.text_values > 0 : fk.text_values == 0, nm, "%llu values formatted",
              (unsigned long long)fk.text_values);
        result_free(&ref);
        result_free(&got);
    }
}

/* gs_chain_text_form: the columns where the output may go to w as text, else 0. */
static int form_of(const gs_chain *ch, gs_type t, gs_format fmt, int cols, const gs_type *coltypes, int src_cols,
                   int src_rows)
{
    mbuf out = {0};
    gs_status st = {0};
    gs_writer *w = NULL;
    gs_byte_sink k = {mbuf_write, &out, "memory"};
    gs_write_opts wo = {.format = fmt, .type = gs_chain_out_type(ch, t), .ncols = cols, .rows = -1, .coltypes = coltypes};
    if (gs_writer_open_sink(&w, &k, &wo, NULL, 0, &st)) return -1;
    gs_source src = {.type = t, .count = -1, .cols = src_cols};
    src.rows = src_rows ? (const struct gs_rowmap *)&out : NULL; /* only whether there is one is read */
    char sep = 0;
    const int f = gs_chain_text_form(ch, &src, w, &sep);
    gs_writer_abort(w);
    free(out.p);
    return f > 0 ? f * 1000 + sep : f;
}

static void test_form(void)
{
    gs_chain scan = chain1(j_scan(GS_SCAN_SUM, 0, GS_I64)), mm = chain1(j_minmax(9, GS_MM_BOTH, 0, GS_F64));
    gs_chain idx = chain1(j_compact(GS_PRED_GT, 1, GS_F64));
    gs_chain roll = chain1(j_minmax(9, GS_MM_BOTH, 0, GS_F64));
    roll.stage[0].minmax.nagg = 2;
    roll.stage[0].minmax.agg[0] = GS_AGG_MEAN;
    roll.stage[0].minmax.agg[1] = GS_AGG_ARGMAX;
    gs_chain keep = mm, rows = chain1(j_compact(GS_PRED_GT, 1, GS_F64));
    keep.stage[0].keep = 1;
    rows.stage[0].rows = 1;
    const gs_type mixed[2] = {GS_F64, GS_I64};
    int f = form_of(&scan, GS_I32, GS_FMT_CSV, 1, NULL, 1, 0);
    CHECK(f == 1000 + ',', "form: csv, one column", "%d", f);
    f = form_of(&mm, GS_F64, GS_FMT_TEXT, 2, NULL, 1, 0);
    CHECK(f == 2000 + ' ', "form: text, two columns", "%d", f);
    f = form_of(&mm, GS_F64, GS_FMT_RAW, 2, NULL, 1, 0);
    CHECK(f == 0, "form: raw out", "%d", f);
    f = form_of(&mm, GS_F64, GS_FMT_CSV, 2, mixed, 1, 0);
    CHECK(f == 0, "form: a column in another type", "%d", f);
    f = form_of(&mm, GS_F64, GS_FMT_CSV, 2, NULL, 2, 0);
    CHECK(f == 0, "form: several input columns", "%d", f);
    f = form_of(&scan, GS_I32, GS_FMT_CSV, 1, NULL, 1, 1);
    CHECK(f == 1000 + ',', "form: rows dropped, no positions out", "%d", f);
    f = form_of(&idx, GS_F64, GS_FMT_CSV, 1, NULL, 1, 1);
    CHECK(f == 0, "form: positions mapped to input rows", "%d", f);
    f = form_of(&idx, GS_F64, GS_FMT_CSV, 1, NULL, 1, 0);
    CHECK(f == 1000 + ',', "form: positions as they are", "%d", f);
    f = form_of(&roll, GS_F64, GS_FMT_CSV, 2, NULL, 1, 1);
    CHECK(f == 0, "form: argmax mapped to input rows", "%d", f);
    f = form_of(&keep, GS_F64, GS_FMT_CSV, 2, NULL, 1, 0);
    CHECK(f == 0, "form: --keep", "%d", f);
    f = form_of(&rows, GS_F64, GS_FMT_CSV, 1, NULL, 1, 0);
    CHECK(f == 0, "form: --rows", "%d", f);
    f = gs_chain_text_form(&scan, &(gs_source){.type = GS_I32, .cols = 1}, NULL, NULL);
    CHECK(f == 0, "form: no writer", "%d", f);
}

/* The csv file at path, column col as type t, through chain ch into csv in memory; blocks of 4 KiB. */
static void run_csv(const gs_chain *ch, const char *path, gs_type t, const char *col, int gpu, size_t chunk,
                    result *res)
{
    gs_read_opts ro = {.format = GS_FMT_CSV, .type = t, .col = col, .threads = 2, .block_size = 4096};
    gs_reader *rd = NULL;
    gs_writer *w = NULL;
    memset(res, 0, sizeof *res);
    if ((res->rc = gs_reader_open(&rd, path, &ro, &res->st))) return;
    gs_source src = gs_source_from_reader(rd);
    gs_engine_opts o = opts(gpu ? GS_BACKEND_GPU : GS_BACKEND_CPU, chunk, gs_type_size(t));
    o.parts = &fake_parts;
    o.note = on_note;
    gs_byte_sink k = {mbuf_write, &res->out, "memory"};
    gs_write_opts wo = {.format = GS_FMT_CSV, .type = gs_chain_out_type(ch, t), .ncols = gs_chain_out_cols(ch), .rows = -1,
                        .colnames = "a"};
    if (!(res->rc = gs_writer_open_sink(&w, &k, &wo, NULL, 0, &res->st))) {
        res->rc = gs_engine_run_chain(ch, &o, &src, w, &res->count, &res->stats, &res->st);
        if (res->rc) gs_writer_abort(w);
        else res->rc = gs_writer_finish(w, NULL, &res->st);
    }
    gs_reader_close(rd);
}

/* One csv through ch on the CPU plan and on the fake GPU: the same bytes, and blocks taken or not. */
static void check_parse(const char *name, const gs_chain *ch, const char *path, gs_type t, const char *col,
                        int ready_at, int decline_at, int want_taken, int want_declined)
{
    result ref, got;
    char nm[200];
    run_csv(ch, path, t, col, 0, 100, &ref);
    fake_reset(ready_at, 1);
    fk.parse_decline_at = decline_at;
    run_csv(ch, path, t, col, 1, 100, &got);
    snprintf(nm, sizeof nm, "parse: %s, the same bytes as the CPU plan's", name);
    CHECK(same(&ref, &got) && ref.out.n > 0, nm, "rc %d %d (%s), %zu bytes against %zu", ref.rc, got.rc, got.st.msg,
          got.out.n, ref.out.n);
    snprintf(nm, sizeof nm, "parse: %s, blocks parsed by the backend%s", name, want_declined ? ", one declined" : "");
    CHECK((want_taken ? fk.parse_taken > 0 : fk.parse_taken == 0) && (int)fk.parse_declined == want_declined, nm,
          "%llu taken, %llu declined", (unsigned long long)fk.parse_taken, (unsigned long long)fk.parse_declined);
    result_free(&ref);
    result_free(&got);
}

static void test_parse(void)
{
    char dir[] = "/tmp/gs_engine_parse_XXXXXX", path[64];
    if (!mkdtemp(dir)) return;
    snprintf(path, sizeof path, "%s/in.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "time,price,volume\n");
    unsigned seed = 9;
    for (int i = 0; i < 6000; i++) {
        seed = seed * 1103515245u + 12345u;
        if (i == 4500) fprintf(f, "\n"); /* a blank line: its block is declined */
        fprintf(f, "%d,%.4f,%u\n", 1700000000 + i, (double)(seed >> 9) / 1e4, seed >> 20);
    }
    fclose(f);
    gs_chain mm = chain1(j_minmax(9, GS_MM_BOTH, 0, GS_F64)), scan = chain1(j_scan(GS_SCAN_SUM, 0, GS_I64));
    check_parse("minmax -w 9 of price", &mm, path, GS_F64, "price", 0, 0, 1, 1);
    check_parse("scan of volume as i64", &scan, path, GS_I64, "volume", 0, 0, 1, 1);
    check_parse("minmax -w 9 of price, warm start", &mm, path, GS_F64, "price", 3, 0, 1, 1);
    check_parse("scan of volume, the 3rd block declined", &scan, path, GS_I64, "volume", 0, 3, 1, 1);
    gs_chain two = chain2(j_compact(GS_PRED_NONZERO, 0, GS_I64), j_scan(GS_SCAN_MAX, 0, GS_I64));
    check_parse("compact then scan max of time", &two, path, GS_I64, "time", 0, 0, 1, 1);
    check_parse("minmax -w 9 of price,volume (two columns)", &mm, path, GS_F64, "price,volume", 0, 0, 1, 1);
    check_parse("scan of volume,time, warm start", &scan, path, GS_I64, "volume,time", 2, 0, 1, 1);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    fake_parts_init();
    test_form();
    test_parse();
    const size_t n = 5000;
    int32_t *i = data(n, 0, 11);
    double *d = doubles(n, 5);
    gs_chain scan = chain1(j_scan(GS_SCAN_SUM, 0, GS_I64));
    check("scan i32 to i64", &scan, GS_I32, i, n, GS_FMT_CSV, 0, 0, 1);
    check("scan i32 to i64, text", &scan, GS_I32, i, n, GS_FMT_TEXT, 0, 1, 1);
    gs_chain mm = chain1(j_minmax(9, GS_MM_BOTH, 0, GS_F64));
    check("minmax -w 9 f64", &mm, GS_F64, d, n, GS_FMT_CSV, 0, 0, 1);
    check("minmax -w 9 f64", &mm, GS_F64, d, n, GS_FMT_CSV, 0, 1, 1);
    check("minmax -w 9 f64", &mm, GS_F64, d, n, GS_FMT_CSV, 3, 1, 1);
    gs_chain cmp = chain1(j_compact(GS_PRED_GT, 0, GS_F64));
    cmp.stage[0].compact.a.f64 = 1e299; /* most chunks empty */
    check("compact gt:1e299 f64", &cmp, GS_F64, d, n, GS_FMT_CSV, 0, 0, 1);
    gs_chain two = chain2(j_compact(GS_PRED_NONZERO, 0, GS_I32), j_scan(GS_SCAN_MAX, 0, GS_I32));
    check("compact then scan max", &two, GS_I32, i, n, GS_FMT_CSV, 2, 0, 1);

    /* a column printed in another type: the writer formats it all */
    gs_type ct[2] = {GS_F64, GS_I64};
    result ref, got;
    run_text(&mm, GS_F64, d, n, 0, GS_FMT_CSV, 100, ct, &ref);
    fake_reset(0, 1);
    run_text(&mm, GS_F64, d, n, 1, GS_FMT_CSV, 100, ct, &got);
    CHECK(same(&ref, &got) && fk.text_values == 0, "text: a column in another type is formatted by the writer",
          "rc %d (%s), %llu values formatted by the backend", got.rc, got.st.msg, (unsigned long long)fk.text_values);
    result_free(&ref);
    result_free(&got);
    free(i);
    free(d);
    return CHECK_DONE();
}
