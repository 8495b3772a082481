/* test_engine_frames.c - zstd frames through the backend (tests/unit/fake_gpu.h: a fake GPU that
 * does nvCOMP's work with libzstd, as its checks require), through a real reader in frames mode
 * (gs_reader_frames) and a real writer (gs_writer_write_frames), each case against the same chain
 * on the CPU backend:
 *   - decoding: every op and a chain with the frames filling the chunks (all taken as frames),
 *     frames that straddle chunks or pass the limit (none: the reader decodes them), an npy
 *     header shifting them (none), one large frame among small ones and a frame without checksum
 *     past the reader's window (some), the format detected by a look (all), a pipe, frames of 2 and
 *     4 bytes that the peek takes whole (none), and corrupt frames (one error);
 *   - encoding: every op in i32, f64 and u64, each chunk or every other one as frames (values
 *     between), short frames at the chunks' ends, npy's header, incompressible values, no and one
 *     element, chunks compacted to nothing, a pipe, and csv (values only). Every frame written
 *     carries its content size and checksum. */
#include "fake_gpu.h"

#include <pthread.h>
#include <zstd.h>

static char dir[256];

static const char *tmp(const char *name)
{
    static char path[4][320];
    static int at;
    at = (at + 1) % 4;
    snprintf(path[at], sizeof path[at], "%s/%s", dir, name);
    return path[at];
}

/* ---- files ----------------------------------------------------------------------------------------- */
/* Values as io's writer writes them (gpustream convert): fmt raw or npy, zstd frames of `frame` bytes. */
static int write_zst(const char *path, gs_format fmt, gs_type t, const void *in, size_t n, size_t frame)
{
    gs_status st = {0};
    gs_writer *w = NULL;
    gs_write_opts wo = {.format = fmt, .type = t, .ncols = 1, .rows = (int64_t)n, .zstd = 1, .level = 3,
                        .frame_size = frame, .force = 1};
    if (gs_writer_open(&w, path, &wo, &st) || gs_writer_write(w, in, n, &st)) {
        gs_writer_abort(w);
        return -1;
    }
    return gs_writer_close(w, &st);
}

/* One zstd frame of p[0, len) with its content size, with or without a checksum, appended to f. */
static int append_frame(FILE *f, const void *p, size_t len, int checksum)
{
    ZSTD_CCtx *cx = ZSTD_createCCtx();
    size_t cap = ZSTD_compressBound(len), r = 0;
    void *buf = malloc(cap);
    if (cx && buf && !ZSTD_isError(ZSTD_CCtx_setParameter(cx, ZSTD_c_checksumFlag, checksum)))
        r = ZSTD_compress2(cx, buf, cap, p, len);
    int ok = r && !ZSTD_isError(r) && fwrite(buf, 1, r, f) == r;
    free(buf);
    ZSTD_freeCCtx(cx);
    return ok ? 0 : -1;
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *p = NULL;
    long n = f && !fseek(f, 0, SEEK_END) ? ftell(f) : -1;
    if (n >= 0 && !fseek(f, 0, SEEK_SET) && (p = malloc((size_t)n + 1)) && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    if (f) fclose(f);
    *len = n > 0 ? (size_t)n : 0;
    return p;
}

static int spill(const char *path, const unsigned char *p, size_t len)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(p, 1, len, f) == len;
    if (f) ok &= !fclose(f);
    return ok ? 0 : -1;
}

/* Every frame of a .zst file carries its content size and a checksum (skippable frames aside);
 * where not, why names the first that does not. */
static int frames_flagged(const char *path, char *why, size_t wlen)
{
    size_t len = 0, at = 0, k = 0;
    unsigned char *p = slurp(path, &len);
    int ok = p != NULL;
    while (ok && at < len) {
        const size_t c = ZSTD_findFrameCompressedSize(p + at, len - at);
        const uint32_t magic = (uint32_t)p[at] | (uint32_t)p[at + 1] << 8 | (uint32_t)p[at + 2] << 16 | (uint32_t)p[at + 3] << 24;
        if (ZSTD_isError(c)) {
            snprintf(why, wlen, "frame %zu: %s", k, ZSTD_getErrorName(c));
            ok = 0;
        } else if ((magic & 0xFFFFFFF0u) != 0x184D2A50u &&
                   (ZSTD_getFrameContentSize(p + at, len - at) >= ZSTD_CONTENTSIZE_ERROR || !(p[at + 4] & 4))) {
            snprintf(why, wlen, "frame %zu lacks its content size or checksum", k);
            ok = 0;
        }
        at += ZSTD_isError(c) ? len : c;
        k++;
    }
    free(p);
    return ok;
}

/* Offset and size of frame i of p (from the end where i < 0). */
static int frame_at(const unsigned char *p, size_t len, long i, size_t *off, size_t *size)
{
    size_t at = 0, n = 0, offs[4096], sizes[4096];
    while (at < len && n < 4096) {
        const size_t c = ZSTD_findFrameCompressedSize(p + at, len - at);
        if (ZSTD_isError(c)) return -1;
        offs[n] = at;
        sizes[n++] = c;
        at += c;
    }
    const long k = i < 0 ? (long)n + i : i;
    if (k < 0 || k >= (long)n) return -1;
    *off = offs[k];
    *size = sizes[k];
    return 0;
}

/* ---- runs ---------------------------------------------------------------------------------------------- */
/* The plan of --codec gpu where nvCOMP and its encoder are there (frames both ways). */
static gs_plan plan_frames(const gs_chain *ch, size_t chunk_bytes, size_t frame)
{
    gs_plan p;
    gs_status st = {0};
    const gs_plan_in in = {ch, 1, GS_BACKEND_AUTO, GS_CODEC_GPU, GS_HOST_PINNED, GS_DEV_ONCE, chunk_bytes, 0, 0, frame,
                           1, 0};
    const gs_input_desc d = {-1, 1, GS_ZSTD_SIZE_UNKNOWN, 0, 0};
    const gs_plan_facts f = {1, NULL, 1, NULL, 16u << 20, 8};
    gs_plan_make(&in, &d, &f, &p, &st);
    return p;
}

typedef struct frun {
    const char *in;          /* the input file (a path, or /dev/fd/N) */
    gs_format in_fmt;        /* GS_FMT_AUTO: detected (a look that takes nothing) */
    gs_type type;
    int threads;             /* the reader's (0: the pool's) */
    size_t chunk;            /* bytes */
    const char *out;         /* a .zst file written then read back (NULL: values to memory) */
    gs_format out_fmt;
    size_t frame;            /* the output's frames */
    int out_pipe;            /* the output through a byte sink (not a file) */
} frun;

static int read_back(const char *path, gs_type t, mbuf *into, gs_status *st)
{
    gs_reader *r = NULL;
    gs_read_opts ro = {.type = t, .type_given = 1};
    int rc = gs_reader_open(&r, path, &ro, st);
    size_t got = 0, es = gs_type_size(t);
    unsigned char buf[65536];
    while (!rc) {
        if ((rc = gs_reader_read(r, buf, sizeof buf / es, &got, st)) || !got) break;
        rc = mbuf_write(into, buf, got * es, st);
    }
    gs_reader_close(r);
    return rc;
}

/* ch over the input's frames by the fake GPU, its output as values or frames. */
static int run_frames(const gs_chain *ch, const frun *fr, int64_t n, result *res)
{
    gs_reader *r = NULL;
    gs_read_opts ro = {.format = fr->in_fmt, .type = fr->type, .type_given = 1, .threads = fr->threads, .zframes = 1};
    mbuf piped = {0};
    memset(res, 0, sizeof *res);
    if ((res->rc = gs_reader_open(&r, fr->in, &ro, &res->st))) return res->rc;
    gs_source src = gs_source_from_reader(r);
    gs_engine_opts o;
    memset(&o, 0, sizeof o);
    o.threads = 2;
    o.parts = &fake_parts;
    o.plan = plan_frames(ch, fr->chunk, fr->frame ? fr->frame : 64 << 10);
    const gs_type ot = gs_chain_out_type(ch, fr->type);
    gs_writer *w = NULL;
    gs_byte_sink k = {mbuf_write, fr->out_pipe ? &piped : &res->out, "memory"};
    gs_write_opts wo = {.format = fr->out ? fr->out_fmt : GS_FMT_RAW, .type = ot, .ncols = gs_chain_out_cols(ch),
                        .rows = gs_chain_out_rows(ch, n), .zstd = fr->out != NULL, .level = 3,
                        .frame_size = fr->frame ? fr->frame : 64 << 10, .force = 1};
    if (fr->out && !fr->out_pipe) res->rc = gs_writer_open(&w, fr->out, &wo, &res->st);
    else res->rc = gs_writer_open_sink(&w, &k, &wo, NULL, 0, &res->st);
    if (!res->rc) res->rc = gs_engine_run_chain(ch, &o, &src, w, &res->count, &res->stats, &res->st);
    if (w && res->rc) gs_writer_abort(w);
    else if (w) res->rc = gs_writer_finish(w, NULL, &res->st);
    gs_reader_close(r);
    if (!res->rc && fr->out_pipe && fr->out) res->rc = spill(fr->out, piped.p, piped.n);
    free(piped.p);
    if (!res->rc && fr->out) res->rc = read_back(fr->out, ot, &res->out, &res->st);
    return res->rc;
}

/* The share of the input (decode) or of the output's values (encode) that went as frames. */
static int share_ok(const char *want, uint64_t got, uint64_t all)
{
    if (!strcmp(want, "all")) return got == all || (all > 128 && got >= all - 128 && got <= all); /* npy: its header goes as values */
    if (!strcmp(want, "-")) return 1;
    if (!strcmp(want, "none")) return got == 0;
    if (!strcmp(want, "any")) return got > 0 && got <= all;
    return got > 0 && got < all;
}

/* ch over in (type t) from a .zst input, against the CPU backend on the values themselves. */
static void check(const char *name, const gs_chain *ch, const frun *fr, const void *in, size_t n, const char *want_dec,
                  const char *want_enc)
{
    result ref, got;
    const int odd = fk.zenc_odd;
    fake_reset(0, 1);
    fk.zenc_odd = odd;
    gs_engine_opts o = opts(GS_BACKEND_CPU, fr->chunk / gs_type_size(fr->type), gs_type_size(fr->type));
    run(ch, fr->type, in, n, 1, &o, &ref);
    run_frames(ch, fr, (int64_t)n, &got);
    const uint64_t out_bytes = ref.out.n;
    char why[256] = "";
    int flagged = !fr->out || frames_flagged(fr->out, why, sizeof why);
    char full[200];
    snprintf(full, sizeof full, "%s: %s", fr->out ? "frames out" : "frames in", name);
    CHECK(same(&ref, &got) && share_ok(want_dec, fk.zdec_bytes, (uint64_t)n * gs_type_size(fr->type)) &&
              (!want_enc || share_ok(want_enc, fk.zenc_bytes, out_bytes)) && flagged,
          full, "rc %d (%s), ref rc %d, %zu B against %zu, decoded as frames %llu of %llu (want %s), encoded %llu of %llu (want %s) %s",
          got.rc, got.st.msg, ref.rc, got.out.n, ref.out.n, (unsigned long long)fk.zdec_bytes,
          (unsigned long long)n * gs_type_size(fr->type), want_dec, (unsigned long long)fk.zenc_bytes,
          (unsigned long long)out_bytes, want_enc ? want_enc : "-", why);
    result_free(&ref);
    result_free(&got);
}

static gs_job job_of(gs_op op, gs_type t, int variant)
{
    gs_job j;
    memset(&j, 0, sizeof j);
    j.op = op;
    switch (op) {
    case GS_OP_SCAN:
        j.scan.type = j.scan.out_type = t;
        break;
    case GS_OP_COMPACT:
        j.compact.type = t;
        j.compact.indices = variant;
        break;
    default:
        j.minmax.type = t;
        j.minmax.window = variant ? 3 : 500;
        j.partial = variant;
        break;
    }
    return j;
}

/* n values of type t from the i32 data (uniform: 0..65535 instead) */
static void *values(gs_type t, size_t n, int sparse, unsigned seed, int uniform)
{
    int32_t *d = data(n, sparse, seed);
    if (uniform)
        for (size_t i = 0; i < n; i++) d[i] = (int32_t)((seed = seed * 1103515245u + 12345u) >> 16 & 0xFFFF);
    void *v = malloc((n ? n : 1) * gs_type_size(t));
    gs_convert(d, GS_I32, v, t, n);
    free(d);
    return v;
}

/* n i32 values as values() makes them, written to path as raw zstd in frames of `frame` bytes. */
static int32_t *i32_zst(const char *path, size_t n, int sparse, unsigned seed, int uniform, size_t frame)
{
    int32_t *in = values(GS_I32, n, sparse, seed, uniform);
    write_zst(path, GS_FMT_RAW, GS_I32, in, n, frame);
    return in;
}

/* ---- decoding ------------------------------------------------------------------------------------------- */
typedef struct feeder {
    int fd;
    const unsigned char *p;
    size_t n;
} feeder;

static void *feed_main(void *arg)
{
    feeder *f = arg;
    for (size_t at = 0; at < f->n;) {
        ssize_t w = write(f->fd, f->p + at, f->n - at);
        if (w <= 0) break;
        at += (size_t)w;
    }
    close(f->fd);
    return NULL;
}

static void test_decode_ops(void)
{
    const size_t n = 750001;
    const gs_type types[] = {GS_I32, GS_F64};
    for (int ti = 0; ti < 2; ti++) {
        const gs_type t = types[ti];
        void *in = values(t, n, 1, 5, 0);
        const char *path = tmp("v64.zst");
        write_zst(path, GS_FMT_RAW, t, in, n, 64 << 10);
        const struct {
            const char *name;
            gs_op op, op2;
            int variant;
            size_t chunk;
        } cases[] = {
            {"scan, 64K frames, 256K chunks", GS_OP_SCAN, GS_OP_NONE, 0, 256 << 10},
            {"compact nonzero, 512K chunks", GS_OP_COMPACT, GS_OP_NONE, 0, 512 << 10},
            {"compact --indices", GS_OP_COMPACT, GS_OP_NONE, 1, 256 << 10},
            {"minmax -w 500 (halo before each chunk)", GS_OP_MINMAX, GS_OP_NONE, 0, 256 << 10},
            {"minmax -w 3 --partial", GS_OP_MINMAX, GS_OP_NONE, 1, 256 << 10},
            {"chain compact then scan", GS_OP_COMPACT, GS_OP_SCAN, 0, 256 << 10},
            {"one chunk for the whole input", GS_OP_SCAN, GS_OP_NONE, 0, 64 << 20},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            gs_chain ch = chain1(job_of(cases[i].op, t, cases[i].variant));
            if (cases[i].op2 != GS_OP_NONE) ch = chain2(ch.stage[0], job_of(cases[i].op2, t, 0));
            const frun fr = {path, GS_FMT_RAW, t, 0, cases[i].chunk, NULL, GS_FMT_RAW, 0, 0};
            char name[120];
            snprintf(name, sizeof name, "%s %s", gs_type_name(t), cases[i].name);
            check(name, &ch, &fr, in, n, "all", NULL);
        }
        free(in);
    }
}

static void test_decode_shapes(void)
{
    const size_t n = 750001;
    int32_t *in = values(GS_I32, n, 1, 6, 0);
    const gs_chain scan = chain1(job_of(GS_OP_SCAN, GS_I32, 0));
    struct {
        const char *name;
        size_t frame, chunk;
        const char *want;
    } sizes[] = {
        {"96K frames straddle 256K chunks: the reader decodes them", 96 << 10, 256 << 10, "none"},
        {"96K frames fill 768K chunks", 96 << 10, 768 << 10, "all"},
        {"2 MiB frames (over the limit): the reader decodes them", 2 << 20, 4 << 20, "none"},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        write_zst(tmp("s.zst"), GS_FMT_RAW, GS_I32, in, n, sizes[i].frame);
        const frun fr = {tmp("s.zst"), GS_FMT_RAW, GS_I32, 0, sizes[i].chunk, NULL, GS_FMT_RAW, 0, 0};
        check(sizes[i].name, &scan, &fr, in, n, sizes[i].want, NULL);
    }
    /* npy's header shifts every frame off the chunks */
    write_zst(tmp("v.npy.zst"), GS_FMT_NPY, GS_I32, in, n, 64 << 10);
    frun fr = {tmp("v.npy.zst"), GS_FMT_NPY, GS_I32, 0, 256 << 10, NULL, GS_FMT_RAW, 0, 0};
    check("npy.zst (the header shifts every frame)", &scan, &fr, in, n, "none", NULL);
    /* 64K frames, one 1.5 MiB frame (over the limit), 64K frames: the frames around it still go */
    FILE *f = fopen(tmp("mix.zst"), "wb");
    for (size_t at = 0, len; f && at < n * 4; at += len) {
        len = at == (1u << 20) ? (3u << 19) : 65536;
        append_frame(f, (const char *)in + at, at + len < n * 4 ? len : n * 4 - at, 1);
    }
    if (f) fclose(f);
    fr.in = tmp("mix.zst");
    fr.in_fmt = GS_FMT_RAW;
    check("64K, one 1.5 MiB frame, 64K: the frames around it", &scan, &fr, in, n, "some", NULL);
    /* the format detected: its look decodes the first bytes on the host and takes nothing */
    write_zst(tmp("v64.zst"), GS_FMT_RAW, GS_I32, in, n, 64 << 10);
    fr.in = tmp("v64.zst");
    fr.in_fmt = GS_FMT_AUTO;
    check("a detected format's look (all as frames)", &scan, &fr, in, n, "all", NULL);
    /* frames of 2 and 4 bytes first: the format's peek (6 bytes) takes exactly them, and they come
     * first; every later chunk splits a frame, so no frame is taken */
    f = fopen(tmp("peek.zst"), "wb");
    append_frame(f, in, 2, 1);
    append_frame(f, (const char *)in + 2, 4, 1);
    for (size_t at = 6; f && at < n * 4; at += 65536) append_frame(f, (const char *)in + at, at + 65536 < n * 4 ? 65536 : n * 4 - at, 1);
    if (f) fclose(f);
    fr.in = tmp("peek.zst");
    fr.chunk = 1 << 20;
    check("the bytes a peek took come first", &scan, &fr, in, n, "none", NULL);
    /* from a pipe: a window that starts small and grows for a chunk's frames */
    size_t len = 0;
    unsigned char *z = slurp(tmp("v64.zst"), &len);
    int fds[2];
    pthread_t th;
    if (z && !pipe(fds)) {
        feeder fe = {fds[1], z, len};
        char dev[32];
        snprintf(dev, sizeof dev, "/dev/fd/%d", fds[0]);
        pthread_create(&th, NULL, feed_main, &fe);
        fr.in = dev;
        fr.chunk = 256 << 10;
        check("from a pipe", &scan, &fr, in, n, "any", NULL);
        pthread_join(th, NULL);
        close(fds[0]);
    }
    free(z);
    free(in);
}

/* Frames past the end of the reader's window (17 MiB with one thread; 20 MB of frames here): a
 * chunk whose frames cross the window's end moves to its start; with a frame the path refuses
 * (no checksum) after that point in a chunk, the chunk is decoded by the reader from where it
 * began. */
static void test_decode_window(void)
{
    const size_t n = 10000001;
    int32_t *in = i32_zst(tmp("w.zst"), n, 0, 8, 1, 32 << 10);
    const gs_chain scan = chain1(job_of(GS_OP_SCAN, GS_I32, 0));
    frun fr = {tmp("w.zst"), GS_FMT_RAW, GS_I32, 1, 1 << 20, NULL, GS_FMT_RAW, 0, 0};
    check("frames past the window's end", &scan, &fr, in, n, "all", NULL);
    FILE *f = fopen(tmp("wmix.zst"), "wb");
    for (size_t at = 0, k = 0; f && at < n * 4; at += 32768, k++)
        append_frame(f, (const char *)in + at, at + 32768 < n * 4 ? 32768 : n * 4 - at, k != 875);
    if (f) fclose(f);
    fr.in = tmp("wmix.zst");
    check("a refused frame after the window's end: the chunk decoded", &scan, &fr, in, n, "some", NULL);
    free(in);
}

/* Corrupt frames on this path: a checksum that lies (a late frame's), a block body, stray bytes
 * after the last frame: one error each. */
static void test_decode_corrupt(void)
{
    const size_t n = 750001;
    int32_t *in = i32_zst(tmp("v64.zst"), n, 1, 6, 0, 64 << 10);
    const gs_chain cmp = chain1(job_of(GS_OP_COMPACT, GS_I32, 0));
    size_t len = 0, off = 0, size = 0;
    unsigned char *z = slurp(tmp("v64.zst"), &len);
    const int found = z && !frame_at(z, len, -4, &off, &size);
    struct {
        const char *name, *file, *want;
        size_t at;
        unsigned char mask;
    } cases[] = {
        {"a checksum that lies (the check after decoding)", "sum.zst", "failed its check after decoding", off + size - 2, 1},
        {"a bit flip in a block body", "body.zst", "corrupt zstd data", off + size / 2, 4},
        {"stray bytes after the last frame", "stray.zst", "zstd", 0, 0},
    };
    for (size_t i = 0; found && i < sizeof cases / sizeof cases[0]; i++) {
        unsigned char *c = malloc(len + 2);
        memcpy(c, z, len);
        size_t clen = len;
        if (cases[i].mask) c[cases[i].at] ^= cases[i].mask;
        else c[clen++] = 0, c[clen++] = 1;
        spill(tmp(cases[i].file), c, clen);
        free(c);
        result got;
        const frun fr = {tmp(cases[i].file), GS_FMT_RAW, GS_I32, 0, 1 << 20, NULL, GS_FMT_RAW, 0, 0};
        run_frames(&cmp, &fr, -1, &got);
        char name[160];
        snprintf(name, sizeof name, "frames in refuses: %s", cases[i].name);
        CHECK(got.rc == GS_EDATA && strstr(got.st.msg, cases[i].want), name, "rc %d (%s)", got.rc, got.st.msg);
        result_free(&got);
    }
    CHECK(found, "frames in refuses: the frames found", "no 4th frame from the end");
    free(z);
    free(in);
}

/* ---- encoding -------------------------------------------------------------------------------------------- */
static void test_encode_ops(void)
{
    const size_t n = 300001;
    const gs_type types[] = {GS_I32, GS_F64, GS_U64};
    for (int ti = 0; ti < 3; ti++)
        for (int odd = 0; odd < 2; odd++) {
            const gs_type t = types[ti];
            void *in = values(t, n, 1, 7, 0);
            write_zst(tmp("v.zst"), GS_FMT_RAW, t, in, n, 64 << 10);
            const struct {
                const char *name;
                gs_op op;
                int variant;
            } cases[] = {
                {"scan", GS_OP_SCAN, 0}, {"compact nonzero", GS_OP_COMPACT, 0}, {"compact --indices", GS_OP_COMPACT, 1},
                {"minmax -w 500", GS_OP_MINMAX, 0}, {"minmax -w 3 --partial", GS_OP_MINMAX, 1},
            };
            for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                const gs_chain ch = chain1(job_of(cases[i].op, t, cases[i].variant));
                const frun fr = {tmp("v.zst"), GS_FMT_RAW, t, 0, 256 << 10, tmp("o.zst"), GS_FMT_RAW, 64 << 10, 0};
                char name[120];
                snprintf(name, sizeof name, "%s %s, %s", gs_type_name(t), cases[i].name,
                         odd ? "every other chunk" : "every chunk");
                fk.zenc_odd = odd;
                check(name, &ch, &fr, in, n, "all", odd ? "some" : "all");
            }
            free(in);
        }
}

static void test_encode_shapes(void)
{
    const size_t n = 300001;
    int32_t *in = i32_zst(tmp("v.zst"), n, 1, 8, 0, 64 << 10);
    const gs_chain scan = chain1(job_of(GS_OP_SCAN, GS_I32, 0));
    const gs_chain cmp = chain1(job_of(GS_OP_COMPACT, GS_I32, 0));
    const gs_chain mm9 = chain1(j_minmax(9, GS_MM_BOTH, 0, GS_I32));
    const gs_chain ch = chain2(job_of(GS_OP_COMPACT, GS_I32, 0), job_of(GS_OP_SCAN, GS_I32, 0));
    frun fr = {tmp("v.zst"), GS_FMT_RAW, GS_I32, 0, 256 << 10, tmp("o.zst"), GS_FMT_RAW, 64 << 10, 0};
    for (int odd = 0; odd < 2; odd++) {
        fk.zenc_odd = odd;
        check(odd ? "chain, every other chunk" : "chain compact then scan", &ch, &fr, in, n, "all", odd ? "some" : "all");
    }
    fk.zenc_odd = 0;
    fr.frame = 96 << 10;
    check("96K frames (chunks end in short frames)", &scan, &fr, in, n, "all", "all");
    fr.frame = 64 << 10;
    fr.chunk = 64 << 20;
    check("one chunk for the whole input", &scan, &fr, in, n, "all", "all");
    fr.frame = 16 << 20;
    fr.chunk = 4 << 20;
    check("16 MiB frames (the default)", &scan, &fr, in, n, "all", "all");
    fr = (frun){tmp("v.zst"), GS_FMT_RAW, GS_I32, 0, 256 << 10, tmp("o.npy.zst"), GS_FMT_NPY, 64 << 10, 0};
    check("npy.zst (the header goes as values first)", &scan, &fr, in, n, "all", "all");
    fk.zenc_odd = 1;
    check("npy.zst, every other chunk", &mm9, &fr, in, n, "all", "some");
    fk.zenc_odd = 0;
    fr.out_pipe = 1;
    fr.out_fmt = GS_FMT_RAW;
    fr.out = tmp("p.zst");
    check("to a pipe", &scan, &fr, in, n, "all", "all");
    fr.out_pipe = 0;
    fr.out = tmp("c.csv.zst");
    fr.out_fmt = GS_FMT_CSV;
    fake_reset(0, 1);
    gs_chain one = scan;
    result got;
    run_frames(&one, &fr, -1, &got);
    CHECK(got.rc == 0 && fk.zenc_bytes == 0, "frames out: csv output stays values", "rc %d (%s), encoded %llu", got.rc,
          got.st.msg, (unsigned long long)fk.zenc_bytes);
    result_free(&got);
    free(in);

    int32_t *u = values(GS_I32, n, 0, 9, 1);
    for (size_t i = 0; i < n; i++) u[i] = (int32_t)((uint32_t)u[i] * 2654435761u); /* the full range: incompressible */
    write_zst(tmp("u.zst"), GS_FMT_RAW, GS_I32, u, n, 64 << 10);
    fr = (frun){tmp("u.zst"), GS_FMT_RAW, GS_I32, 0, 256 << 10, tmp("o.zst"), GS_FMT_RAW, 64 << 10, 0};
    gs_chain smax = chain1(j_scan(GS_SCAN_MAX, 0, GS_I32));
    check("incompressible values", &smax, &fr, u, n, "-", "all");
    write_zst(tmp("one.zst"), GS_FMT_RAW, GS_I32, u, 1, 64 << 10);
    fr.in = tmp("one.zst");
    check("one element", &scan, &fr, u, 1, "all", "all");
    write_zst(tmp("none.zst"), GS_FMT_RAW, GS_I32, u, 0, 64 << 10);
    fr.in = tmp("none.zst");
    check("no element: one empty frame", &cmp, &fr, u, 0, "all", "all");
    free(u);
    /* compacted to nothing but the input is not empty: chunks of no output between chunks of frames */
    int32_t *s = values(GS_I32, 2000000, 1, 4, 0);
    for (size_t i = 0; i < 2000000; i++) s[i] = i % 1013 ? 0 : s[i] | 1;
    write_zst(tmp("s.zst"), GS_FMT_RAW, GS_I32, s, 2000000, 64 << 10);
    fr.in = tmp("s.zst");
    check("chunks with no output between frames", &cmp, &fr, s, 2000000, "all", "all");
    free(s);
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/gs-frames-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        printf("SKIP frames: no temporary directory\n");
        return 0;
    }
    fake_parts_init();
    test_decode_ops();
    test_decode_shapes();
    test_decode_window();
    test_decode_corrupt();
    test_encode_ops();
    test_encode_shapes();
    const char *files[] = {"v64.zst", "s.zst", "v.npy.zst", "mix.zst", "peek.zst", "w.zst", "wmix.zst", "sum.zst",
                           "body.zst", "stray.zst", "v.zst", "o.zst", "o.npy.zst", "p.zst", "c.csv.zst", "u.zst",
                           "one.zst", "none.zst"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) remove(tmp(files[i]));
    rmdir(dir);
    return CHECK_DONE();
}
