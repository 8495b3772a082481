/* test_engine.c - the chunk engine (pipeline/engine.c) through the backend interface alone, with
 * fake parts (gs_engine_opts.parts), no device and no sleeps:
 *   - chains and chunk boundaries on the CPU backend (chunks of 1 and non-powers of two, inputs of
 *     0 and 1 elements, compaction emptying chunks before later stages), each against the same
 *     chain run in one chunk;
 *   - the warm start handed over at every chunk index: a fake GPU (a CPU backend behind the GPU's
 *     face: several chunks in flight, its own chunk size, page-locking) becomes ready at a chosen
 *     chunk, and continues from the CPU's carries; where it cannot be had, the CPU runs on with a
 *     note, or the run fails where the GPU was required;
 *   - the plan's CPU choices never begin the GPU's start-up;
 *   - failures anywhere end the run with the first error, the backend quiesced.
 * The fake is tests/unit/fake_gpu.h; zstd frames through the backend: test_engine_frames.c. */
#include "fake_gpu.h"

/* ---- chains and chunk boundaries ---------------------------------------------------------------------- */
static void test_chunks(void)
{
    gs_chain cases[12];
    const char *names[12];
    int nc = 0;
    gs_job conv;
    memset(&conv, 0, sizeof conv);
    conv.op = GS_OP_NONE;
    conv.out_type = GS_F64;
    names[nc] = "scan sum to i64", cases[nc++] = chain1(j_scan(GS_SCAN_SUM, 0, GS_I64));
    names[nc] = "scan max exclusive", cases[nc++] = chain1(j_scan(GS_SCAN_MAX, 1, GS_I32));
    names[nc] = "compact gt:0", cases[nc++] = chain1(j_compact(GS_PRED_GT, 0, GS_I32));
    names[nc] = "compact nonzero --indices", cases[nc++] = chain1(j_compact(GS_PRED_NONZERO, 1, GS_I32));
    names[nc] = "minmax -w 5", cases[nc++] = chain1(j_minmax(5, GS_MM_BOTH, 0, GS_I32));
    names[nc] = "minmax -w 700 --only max --partial", cases[nc++] = chain1(j_minmax(700, GS_MM_MAX, 1, GS_I32));
    names[nc] = "compact then scan", cases[nc++] = chain2(j_compact(GS_PRED_NONZERO, 0, GS_I32), j_scan(GS_SCAN_SUM, 0, GS_I32));
    names[nc] = "scan max then minmax --only min", cases[nc++] = chain2(j_scan(GS_SCAN_MAX, 0, GS_I32), j_minmax(9, GS_MM_MIN, 0, GS_I32));
    gs_chain three = chain2(j_compact(GS_PRED_NONZERO, 0, GS_I32), j_scan(GS_SCAN_SUM, 0, GS_I32));
    three.n = 3;
    three.stage[2] = j_compact(GS_PRED_GT, 1, GS_I32);
    names[nc] = "compact then scan then compact --indices", cases[nc++] = three;
    names[nc] = "convert to f64", cases[nc++] = chain1(conv);
    gs_job cnt = j_compact(GS_PRED_GT, 0, GS_I32);
    cnt.count_only = 1;
    names[nc] = "compact --count", cases[nc++] = chain1(cnt);
    const size_t sizes[] = {0, 1, 2, 1000, 4099};
    const size_t chunks[] = {1, 3, 7, 64, 1000, 5000};
    for (int c = 0; c < nc; c++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (int sparse = 0; sparse < 2; sparse++) {
                const size_t n = sizes[si];
                int32_t *in = data(n, sparse, (unsigned)(n * 7 + (size_t)c));
                result ref, got;
                gs_engine_opts o = opts(GS_BACKEND_CPU, n + 1, 4);
                run(&cases[c], GS_I32, in, n, 1, &o, &ref);
                size_t bad = 0;
                for (size_t ci = 0; ci < sizeof chunks / sizeof chunks[0] && !bad; ci++) {
                    o = opts(GS_BACKEND_CPU, chunks[ci], 4);
                    run(&cases[c], GS_I32, in, n, ci % 2, &o, &got);
                    if (!same(&ref, &got)) bad = chunks[ci];
                    else if (got.stats.chunks != (n + chunks[ci] - 1) / chunks[ci]) bad = chunks[ci];
                    result_free(&got);
                }
                char name[160];
                snprintf(name, sizeof name, "chunks: %s, %zu %s elements", names[c], n, sparse ? "sparse" : "dense");
                CHECK(ref.rc == 0 && !bad, name, "rc %d (%s), chunks of %zu differ from one chunk", ref.rc, ref.st.msg, bad);
                result_free(&ref);
                free(in);
            }
}

/* ---- the warm start ------------------------------------------------------------------------------------ */
/* op over n elements in chunks of 64 on the CPU backend, and with the fake GPU ready after k chunks
 * for every k: the same bytes, the first k chunks on the CPU. */
static void warm_case(const char *name, gs_chain ch, size_t fake_chunk, int depth)
{
    const size_t n = 1000, chunk = 64, nchunks = (n + chunk - 1) / chunk;
    int32_t *in = data(n, 0, 99);
    result ref, got;
    gs_engine_opts o = opts(GS_BACKEND_CPU, chunk, 4);
    run(&ch, GS_I32, in, n, 1, &o, &ref);
    size_t bad_k = SIZE_MAX;
    char why[1200] = "";
    for (size_t k = 0; k <= nchunks + 1 && bad_k == SIZE_MAX; k++) {
        fake_reset((int)k, 1);
        fk.chunk = fake_chunk;
        fk.depth = depth;
        o = opts(GS_BACKEND_GPU, chunk, 4);
        o.parts = &fake_parts;
        run(&ch, GS_I32, in, n, 1, &o, &got);
        const size_t on_cpu = k < nchunks ? k : nchunks;
        char want[80];
        snprintf(want, sizeof want, "; the first %zu chunk%s (", on_cpu, on_cpu == 1 ? "" : "s");
        const int warm_row = on_cpu && got.stats.nstages > 2 && !strcmp(got.stats.stage[1].name, GS_STAGE_WARM);
        if (!same(&ref, &got) || fk.begun != 1 || fk.registered != 0 || !strstr(got.stats.backend, "fake") ||
            (on_cpu ? !strstr(got.stats.why, want) || !warm_row : strstr(got.stats.why, "while CUDA started") != NULL)) {
            bad_k = k;
            snprintf(why, sizeof why, "rc %d (%s), begun %d, registered %llu, backend %s: %s", got.rc, got.st.msg,
                     fk.begun, (unsigned long long)fk.registered, got.stats.backend, got.stats.why);
        }
        result_free(&got);
    }
    char full[160];
    snprintf(full, sizeof full, "warm hand-over at every chunk: %s", name);
    CHECK(ref.rc == 0 && bad_k == SIZE_MAX, full, "after %zu chunks: %s", bad_k, why);
    result_free(&ref);
    free(in);
}

static void test_warm(void)
{
    warm_case("scan sum exclusive to i64", chain1(j_scan(GS_SCAN_SUM, 1, GS_I64)), 0, 3);
    warm_case("scan min", chain1(j_scan(GS_SCAN_MIN, 0, GS_I32)), 0, 2);
    warm_case("compact gt:0 --indices", chain1(j_compact(GS_PRED_GT, 1, GS_I32)), 0, 3);
    warm_case("compact gt:0, the GPU's chunk 24 (views)", chain1(j_compact(GS_PRED_GT, 0, GS_I32)), 24, 3);
    warm_case("minmax -w 3", chain1(j_minmax(3, GS_MM_BOTH, 0, GS_I32)), 0, 4);
    warm_case("minmax -w 150 (longer than a chunk)", chain1(j_minmax(150, GS_MM_BOTH, 0, GS_I32)), 0, 3);
    warm_case("minmax -w 150, the GPU's chunk 40", chain1(j_minmax(150, GS_MM_MAX, 0, GS_I32)), 40, 2);
    warm_case("minmax -w 7 --partial --only max", chain1(j_minmax(7, GS_MM_MAX, 1, GS_I32)), 0, 1);
}

/* Every note of a run, a line each */
static char notes[4096];
static void on_note_all(void *ctx, const char *msg)
{
    (void)ctx;
    const size_t l = strlen(notes);
    snprintf(notes + l, sizeof notes - l, "%s\n", msg);
}

/* The fake GPU where it cannot be had: auto goes on with the CPU (a note says why), --backend gpu
 * fails with the reason. And where it can: a stream's GPU reasons (here the warm start's) come once
 * its first chunk gave it to the GPU, after the backend's; where it ends before, none comes. */
static void test_fallback(void)
{
    const size_t n = 1000;
    int32_t *in = data(n, 0, 5);
    gs_chain ch = chain1(j_scan(GS_SCAN_SUM, 0, GS_I64));
    result ref, got;
    gs_engine_opts o = opts(GS_BACKEND_CPU, 64, 4);
    run(&ch, GS_I32, in, n, 1, &o, &ref);

    fake_reset(3, 0);
    o = opts(GS_BACKEND_AUTO, 64, 4);
    o.parts = &fake_parts;
    o.note = on_note;
    run(&ch, GS_I32, in, n, 0, &o, &got); /* a stream that fills its first chunk: the GPU, warm */
    CHECK(same(&ref, &got) && strstr(fk.note, "no usable GPU (no fake GPU): using the CPU backend") &&
              strstr(got.stats.why, "auto: the stream filled the first chunk (256 B); no usable GPU: no fake GPU; the "
                                    "first 3 chunks (768 B) on the CPU while CUDA started") &&
              !strcmp(got.stats.backend, "cpu") && got.stats.cuda_init == 0.25,
          "fallback: no GPU, the CPU runs on after 3 chunks", "rc %d (%s), note '%s', why '%s'", got.rc, got.st.msg,
          fk.note, got.stats.why);
    result_free(&got);

    fake_reset(0, 1);
    fk.create_fail = 1;
    run(&ch, GS_I32, in, n, 0, &o, &got);
    CHECK(same(&ref, &got) && strstr(fk.note, "(fake GPU: out of device memory)") && got.stats.gpu_setup >= 0,
          "fallback: the GPU backend cannot be made", "rc %d (%s), note '%s'", got.rc, got.st.msg, fk.note);
    result_free(&got);

    o.note = on_note_all;
    fake_reset(2, 1);
    notes[0] = 0;
    run(&ch, GS_I32, in, n, 0, &o, &got);
    const char *b = strstr(notes, "backend: auto: the stream filled the first chunk (256 B)\n");
    CHECK(same(&ref, &got) && !strncmp(got.stats.backend, "gpu", 3) && b && strstr(b, "chunks run on the CPU while CUDA starts"),
          "stream notes: the GPU's once the first chunk filled", "rc %d, backend %s, notes '%s'", got.rc, got.stats.backend,
          notes);
    result_free(&got);
    fake_reset(2, 1);
    notes[0] = 0;
    run(&ch, GS_I32, in, 50, 0, &o, &got); /* 200 B: the stream ends before its first chunk of 256 B */
    CHECK(got.rc == 0 && !strcmp(got.stats.backend, "cpu") && !strstr(notes, "CUDA starts") && !strstr(notes, "backend:"),
          "stream notes: none of the GPU's where the CPU took it", "rc %d, backend %s, notes '%s'", got.rc, got.stats.backend,
          notes);
    result_free(&got);

    fake_reset(2, 0);
    o = opts(GS_BACKEND_GPU, 64, 4);
    o.parts = &fake_parts;
    run(&ch, GS_I32, in, n, 1, &o, &got);
    CHECK(got.rc == GS_EDATA && !strcmp(got.st.msg, "no usable GPU: no fake GPU"), "--backend gpu: no GPU is an error",
          "rc %d (%s)", got.rc, got.st.msg);
    result_free(&got);
    result_free(&ref);
    free(in);
}

/* What the plan decides on the CPU never begins the GPU's start-up; what it gives the GPU begins it
 * once, before any chunk is read where the size says so. */
static void test_begins(void)
{
    int32_t *in = data(100, 0, 3);
    gs_chain ch = chain1(j_compact(GS_PRED_GT, 0, GS_I32));
    gs_job conv;
    memset(&conv, 0, sizeof conv);
    conv.op = GS_OP_NONE;
    conv.out_type = GS_I64;
    const gs_chain cv = chain1(conv);
    struct {
        const char *name;
        const gs_chain *ch;
        size_t chunk;
        int known, begun;
        const char *why;
    } cases[] = {
        {"a small input of known size", &ch, 64, 1, 0, "auto: input 400 B < crossover 8 GiB; CUDA not initialised"},
        {"a stream that ends before its first chunk", &ch, 128, 0, 0, "the stream ended before the first chunk (512 B)"},
        {"convert", &cv, 16, 0, 0, "nothing to compute; CUDA not initialised"},
        {"a stream that fills its first chunk", &ch, 16, 0, 1, "auto: the stream filled the first chunk (64 B)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        result got;
        fake_reset(0, 1);
        gs_engine_opts o = opts(GS_BACKEND_AUTO, cases[i].chunk, 4);
        o.parts = &fake_parts;
        run(cases[i].ch, GS_I32, in, 100, cases[i].known, &o, &got);
        char name[160];
        snprintf(name, sizeof name, "the GPU's start-up: %s", cases[i].name);
        CHECK(got.rc == 0 && fk.begun == cases[i].begun && strstr(got.stats.why, cases[i].why), name,
              "rc %d (%s), begun %d, why '%s'", got.rc, got.st.msg, fk.begun, got.stats.why);
        result_free(&got);
    }
    free(in);
}

/* The first error ends the run: from the backend (quiesced first), from the source. */
static void test_errors(void)
{
    const size_t n = 2000;
    int32_t *in = data(n, 0, 11);
    gs_chain ch = chain1(j_minmax(20, GS_MM_BOTH, 0, GS_I32));
    result got;
    fake_reset(0, 1);
    fk.fail_at = 5;
    gs_engine_opts o = opts(GS_BACKEND_GPU, 64, 4);
    o.parts = &fake_parts;
    run(&ch, GS_I32, in, n, 1, &o, &got);
    CHECK(got.rc == GS_EDATA && !strcmp(got.st.msg, "fake GPU: kernel failed") && fk.quiesced == 1 && fk.registered == 0,
          "errors: a backend's failure ends the run", "rc %d (%s), quiesced %d, registered %llu", got.rc, got.st.msg,
          fk.quiesced, (unsigned long long)fk.registered);
    result_free(&got);

    msrc m = {(const unsigned char *)in, n, 0, 4, 1500};
    gs_source src = {.read = msrc_read, .ctx = &m, .type = GS_I32, .count = -1, .bytes = msrc_bytes};
    gs_status st = {0};
    o = opts(GS_BACKEND_CPU, 100, 4);
    int rc = gs_engine_run_chain(&ch, &o, &src, NULL, NULL, NULL, &st);
    CHECK(rc == GS_EDATA && !strcmp(st.msg, "test source: read error"), "errors: the source's failure ends the run",
          "rc %d (%s)", rc, st.msg);
    free(in);
}

int main(void)
{
    fake_parts_init();
    test_chunks();
    test_warm();
    test_fallback();
    test_begins();
    test_errors();
    return CHECK_DONE();
}
