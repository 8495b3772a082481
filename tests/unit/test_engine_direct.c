/* test_engine_direct.c - the direct input (pipeline/direct.c): a raw or npy file read where it lies,
 * its pages locked in windows by the fake GPU backend (tests/unit/fake_gpu.h), against the same job
 * on the CPU backend from memory:
 *   - raw and npy files (the npy data off page boundaries: the chunk across a window's edge is
 *     copied), sizes 0, 1 and not multiples of a chunk or a window, chunks on and off page
 *     boundaries and smaller than a page, the fake GPU ready at once or after CPU chunks;
 *   - every window released by the end, and the "file pin" stats row where pages were locked;
 *   - registration refused at once and part way: the chunks are copied, the output is the same,
 *     a note says why;
 *   - a file that shrinks while read: an error naming it, no fault; one that grows: read as it was
 *     when opened. */
#include "fake_gpu.h"

#include <fcntl.h>
#include <stdio.h>

static char path[64];

/* in[0, n) as a raw file, or npy (header first) */
static void write_file(const int32_t *in, size_t n, int npy)
{
    snprintf(path, sizeof path, "/tmp/gs_direct_XXXXXX");
    int fd = mkstemp(path);
    char head[256];
    size_t hl = npy ? gs_npy_header_bytes(head, sizeof head, GS_I32, n, 1) : 0;
    if (fd < 0 || (hl && write(fd, head, hl) != (ssize_t)hl) ||
        (n && write(fd, in, n * sizeof *in) != (ssize_t)(n * sizeof *in))) {
        perror("test file");
        exit(1);
    }
    close(fd);
}

/* ch over the file at `path` with the fake GPU, --host-mem direct */
static void run_file(const gs_chain *ch, size_t chunk, int ready_at, int npy, result *res)
{
    memset(res, 0, sizeof *res);
    gs_read_opts ro = {.format = npy ? GS_FMT_NPY : GS_FMT_RAW, .type = GS_I32, .threads = 2};
    gs_reader *rd = NULL;
    if ((res->rc = gs_reader_open(&rd, path, &ro, &res->st))) return;
    gs_source src = gs_source_from_reader(rd);
    gs_engine_opts o = opts(GS_BACKEND_GPU, chunk, 4);
    o.parts = &fake_parts;
    o.host_mem = GS_HOST_DIRECT;
    o.note = on_note;
    fk.ready_at = ready_at;
    gs_writer *w = NULL;
    gs_byte_sink k = {mbuf_write, &res->out, "memory"};
    gs_write_opts wo = {.format = GS_FMT_RAW, .type = gs_chain_out_type(ch, GS_I32), .ncols = gs_chain_out_cols(ch), .rows = -1};
    if (!ch->stage[ch->n - 1].count_only && (res->rc = gs_writer_open_sink(&w, &k, &wo, NULL, 0, &res->st))) {
        gs_reader_close(rd);
        return;
    }
    res->rc = gs_engine_run_chain(ch, &o, &src, w, &res->count, &res->stats, &res->st);
    if (w && res->rc) gs_writer_abort(w);
    else if (w) res->rc = gs_writer_finish(w, NULL, &res->st);
    gs_reader_close(rd);
}

static uint64_t pinned_bytes(const gs_run_stats *s)
{
    for (int i = 0; i < s->nstages; i++)
        if (!strcmp(s->stage[i].name, GS_STAGE_PIN)) return s->stage[i].bytes;
    return 0;
}

static void test_same(void)
{
    gs_chain cases[4];
    const char *names[4] = {"scan sum", "compact gt:0", "minmax -w 5", "minmax -w 700 --partial"};
    cases[0] = chain1(j_scan(GS_SCAN_SUM, 0, GS_I32));
    cases[1] = chain1(j_compact(GS_PRED_GT, 0, GS_I32));
    cases[2] = chain1(j_minmax(5, GS_MM_BOTH, 0, GS_I32));
    cases[3] = chain1(j_minmax(700, GS_MM_BOTH, 1, GS_I32));
    const size_t sizes[] = {0, 1, 1023, 3 * 4096 + 5, 40000};
    const size_t chunks[] = {1024, 1000, 3, 4096};
    for (int c = 0; c < 4; c++)
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
            for (int npy = 0; npy < 2; npy++) {
                const size_t n = sizes[si];
                int32_t *in = data(n, 0, (unsigned)(n + 7 * (size_t)c));
                write_file(in, n, npy);
                result ref, got;
                gs_engine_opts o = opts(GS_BACKEND_CPU, n + 1, 4);
                run(&cases[c], GS_I32, in, n, 1, &o, &ref);
                char bad[900] = "";
                for (size_t ci = 0; ci < sizeof chunks / sizeof *chunks && !bad[0]; ci++)
                    for (int ready = 0; ready < 3 && !bad[0]; ready += 2) {
                        fake_reset(0, 1);
                        run_file(&cases[c], chunks[ci], ready, npy, &got);
                        /* raw chunks of whole pages are locked a chunk each; an input past the
                         * chunks read before the start (the CPU's, and a ring of 5) is read in
                         * place somewhere */
                        const int expect_pins = (!npy && chunks[ci] % 1024 == 0 && n > (size_t)(ready + 6) * chunks[ci]) ||
                                                (npy && chunks[ci] >= 1000 && n > (size_t)(ready + 10) * chunks[ci]);
                        if (!same(&ref, &got))
                            snprintf(bad, sizeof bad, "chunk %zu ready %d: rc %d (%s), output differs", chunks[ci],
                                     ready, got.rc, got.st.msg);
                        else if (fk.file_live)
                            snprintf(bad, sizeof bad, "chunk %zu: %llu ranges left locked", chunks[ci],
                                     (unsigned long long)fk.file_live);
                        else if (expect_pins && (!fk.file_regs || pinned_bytes(&got.stats) != fk.file_bytes))
                            snprintf(bad, sizeof bad, "chunk %zu ready %d: %llu registrations, stats row %llu B of %llu",
                                     chunks[ci], ready, (unsigned long long)fk.file_regs,
                                     (unsigned long long)pinned_bytes(&got.stats), (unsigned long long)fk.file_bytes);
                        result_free(&got);
                    }
                char name[200];
                snprintf(name, sizeof name, "direct input: %s, %zu elements, %s file", names[c], n, npy ? "npy" : "raw");
                CHECK(ref.rc == 0 && !bad[0], name, "%s", bad);
                result_free(&ref);
                free(in);
                unlink(path);
            }
}

/* Refused at the first registration, and at the third (after two windows were read in place). */
static void test_refused(void)
{
    const size_t n = 50000, chunk = 1024;
    int32_t *in = data(n, 0, 5);
    write_file(in, n, 0);
    gs_chain ch = chain1(j_minmax(300, GS_MM_BOTH, 0, GS_I32));
    result ref, got;
    gs_engine_opts o = opts(GS_BACKEND_CPU, chunk, 4);
    run(&ch, GS_I32, in, n, 1, &o, &ref);
    for (int at = 1; at <= 9; at += 8) { /* a window of 4 chunks on page boundaries: 4 registrations */
        fake_reset(0, 1);
        fk.file_refuse_at = at;
        run_file(&ch, chunk, 0, 0, &got);
        char name[120];
        snprintf(name, sizeof name, "direct input: registration refused at call %d, the chunks copied instead", at);
        CHECK(same(&ref, &got) && fk.file_live == 0 && fk.file_regs == (uint64_t)(at - 1) &&
                  strstr(fk.note, "copied through staging buffers") && strstr(fk.note, "refused"),
              name, "rc %d (%s), %llu live, %llu registered, note '%s'", got.rc, got.st.msg,
              (unsigned long long)fk.file_live, (unsigned long long)fk.file_regs, fk.note);
        if (at == 1) CHECK(pinned_bytes(&got.stats) == 0, "direct input: refused at once, nothing locked", "%llu B",
                           (unsigned long long)pinned_bytes(&got.stats));
        else CHECK(pinned_bytes(&got.stats) == 8 * chunk * 4, "direct input: refused part way, two windows in place",
                   "%llu B locked", (unsigned long long)pinned_bytes(&got.stats));
        result_free(&got);
    }
    /* a backend that locks no file pages: copied, the same bytes */
    fake_reset(0, 1);
    fk.file_none = 1;
    run_file(&ch, chunk, 0, 0, &got);
    CHECK(same(&ref, &got) && fk.file_calls == 0, "direct input: a backend without file_register copies", "rc %d (%s)",
          got.rc, got.st.msg);
    result_free(&got);
    result_free(&ref);
    free(in);
    unlink(path);
}

/* The file cut to half at the first page-locking, and doubled at the second release. Chunks of
 * 4 MiB are read straight from the file (no internal block holding all of it), so the reader has
 * read none of the cut half when the cut comes (it waits for the first window). */
static void test_shrink_grow(void)
{
    const size_t n = (size_t)6 << 20, chunk = (size_t)1 << 20;
    int32_t *in = data(n, 0, 11);
    gs_chain ch = chain1(j_scan(GS_SCAN_SUM, 0, GS_I64));
    result ref, got;
    gs_engine_opts o = opts(GS_BACKEND_CPU, chunk, 4);
    run(&ch, GS_I32, in, n, 1, &o, &ref);
    for (int npy = 0; npy < 2; npy++) {
        write_file(in, n, npy);
        fake_reset(0, 1);
        fk.shrink_path = path;
        fk.shrink_at = 1;
        run_file(&ch, chunk, 0, npy, &got);
        char name[120];
        snprintf(name, sizeof name, "direct input: a %s file that shrinks while read is an error", npy ? "npy" : "raw");
        CHECK(got.rc == GS_EDATA && strstr(got.st.msg, "shrank") && fk.file_live == 0, name, "rc %d (%s), %llu live",
              got.rc, got.st.msg, (unsigned long long)fk.file_live);
        result_free(&got);
        unlink(path);

        write_file(in, n, npy);
        fake_reset(0, 1);
        fk.shrink_path = path;
        fk.grow_at = 2;
        run_file(&ch, chunk, 0, npy, &got);
        snprintf(name, sizeof name, "direct input: a %s file that grows while read is read as opened", npy ? "npy" : "raw");
        /* npy: the header's count holds; raw: the size at open */
        CHECK(same(&ref, &got) && fk.file_live == 0, name, "rc %d (%s)", got.rc, got.st.msg);
        result_free(&got);
        unlink(path);
    }
    result_free(&ref);
    free(in);
}

/* The plan's rule: direct only for --host-mem direct, a source of views, a backend that may be the GPU. */
static void test_plan_rule(void)
{
    static const struct {
        gs_backend_kind backend;
        gs_host_mem hm;
        int views, direct;
        const char *why;
    } rows[] = {{GS_BACKEND_GPU, GS_HOST_DIRECT, 1, 1, "read where it lies"},
                {GS_BACKEND_GPU, GS_HOST_DIRECT, 0, 0, "not a regular, uncompressed raw or npy file"},
                {GS_BACKEND_GPU, GS_HOST_PINNED, 1, 0, "--host-mem pinned"},
                {GS_BACKEND_GPU, GS_HOST_MAPPED, 1, 0, "--host-mem mapped"},
                {GS_BACKEND_CPU, GS_HOST_DIRECT, 1, 0, ""},
                {GS_BACKEND_AUTO, GS_HOST_DIRECT, 1, 1, "read where it lies"}};
    gs_chain ch = chain1(j_scan(GS_SCAN_SUM, 0, GS_I32));
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        gs_plan_in in = {&ch, 1, rows[i].backend, GS_CODEC_CPU, rows[i].hm, GS_DEV_ONCE, 0, 0, 0, 0, 0, 0};
        gs_input_desc d = {(int64_t)16 << 30, 0, GS_ZSTD_SIZE_UNKNOWN, 0, 0};
        gs_plan p;
        gs_status st = {0};
        int rc = gs_plan_make(&in, &d, NULL, &p, &st);
        gs_plan_settle(&p, &ch, (int64_t)4 << 30, GS_I32, 0, 0, 0); /* 16 GiB: auto takes the GPU */
        gs_plan_input(&p, rows[i].views);
        gs_plan_input(&p, rows[i].views); /* settling twice changes nothing */
        char name[160];
        snprintf(name, sizeof name, "plan: input path, backend %d, --host-mem %s, %s", (int)rows[i].backend,
                 gs_host_mem_name(rows[i].hm), rows[i].views ? "a mapped file" : "no views");
        CHECK(rc == 0 && p.direct == rows[i].direct && strstr(p.why_input, rows[i].why) &&
                  (rows[i].why[0] || !p.why_input[0]) && p.read_early == (rows[i].hm != GS_HOST_MAPPED),
              name, "rc %d direct %d read_early %d why '%s'", rc, p.direct, p.read_early, p.why_input);
    }
}

int main(void)
{
    fake_parts_init();
    test_plan_rule();
    test_same();
    test_refused();
    test_shrink_grow();
    return CHECK_DONE();
}
