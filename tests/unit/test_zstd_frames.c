/* test_zstd_frames.c - the zstd source's work for a device (io/zstd_device.c, io/zstd_frames.c). With a device
 * codec made of libzstd here that can lie: frames it writes without content size or checksum come
 * out complete; output it reports done but got wrong, or reports failed, is decoded again by
 * libzstd; corrupt input is still an error. Then gs_reader_frames (frames handed whole to a
 * device): frames decoded here as a device would, mixed with gs_reader_read wherever frames do not
 * qualify, give back the file's values exactly, in chunks that --chunk alone decides. */
#include "check.h"
#include "zstd_test.h"
#include "../../io/io.h"
#include "../../io/zstd_index.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---- the zstd source with a device codec --------------------------------------------------- */
typedef struct fake_codec {
    gs_zcodec base;
    int mode; /* 0 honest, 1 wrong output reported done on every third frame, 2 every frame reported failed,
               * 3 stops at its first call (as after a watchdog's expiry): garbage in dst, nothing done;
               * 4 encode: never started (stopped, no frames: libzstd compresses) */
    size_t calls;
    unsigned char *packed; /* encode's output */
} fake_codec;

static int fake_decode(gs_zcodec *c, size_t n, const unsigned char *const *src, const size_t *csize,
                       const size_t *dsize, unsigned char *dst, const size_t *doff, unsigned char *ok, gs_status *st)
{
    fake_codec *f = (fake_codec *)c;
    (void)st;
    f->calls++;
    if (f->mode == 3) {
        for (size_t i = 0; i < n; i++) {
            memset(dst + doff[i], 0xa5, dsize[i]);
            ok[i] = 0;
        }
        c->stopped = "test codec stopped";
        return GS_OK;
    }
    for (size_t i = 0; i < n; i++) {
        size_t r = ZSTD_decompress(dst + doff[i], dsize[i], src[i], csize[i]);
        ok[i] = !ZSTD_isError(r) && r == dsize[i] && f->mode != 2;
        if (f->mode == 1 && i % 3 == 0 && dsize[i]) dst[doff[i]] ^= 1;
    }
    return GS_OK;
}

/* Frames as a device encoder might write them: no content size, no checksum, packed one after
 * another in the codec's own buffer. */
static int fake_encode(gs_zcodec *c, const unsigned char *src, size_t len, size_t frame, const unsigned char **out,
                       size_t *off, size_t *clen, gs_status *st)
{
    fake_codec *fc = (fake_codec *)c;
    size_t nf = (len + frame - 1) / frame, cap = nf * ZSTD_compressBound(frame), at = 0;
    fc->calls++;
    if (fc->mode == 4) {
        c->stopped = "test codec never started";
        *out = NULL;
        return GS_OK;
    }
    free(fc->packed);
    fc->packed = malloc(cap);
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 0);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0);
    for (size_t f = 0; f < nf; f++) {
        size_t n = len - f * frame < frame ? len - f * frame : frame;
        ZSTD_outBuffer ob = {fc->packed + at, cap - at, 0};
        ZSTD_inBuffer ib = {src + f * frame, n, 0};
        size_t r = ZSTD_compressStream2(cc, &ob, &ib, ZSTD_e_end);
        if (ZSTD_isError(r) || r) {
            ZSTD_freeCCtx(cc);
            return gs_fail(st, GS_EDATA, "fake encoder failed");
        }
        off[f] = at;
        clen[f] = ob.pos;
        at += ob.pos;
    }
    ZSTD_freeCCtx(cc);
    *out = fc->packed;
    return GS_OK;
}

static size_t fake_bound(gs_zcodec *c, size_t frame)
{
    (void)c;
    return ZSTD_compressBound(frame) + 32;
}

static void fake_init(fake_codec *f, int mode)
{
    memset(f, 0, sizeof *f);
    f->base.decode = fake_decode;
    f->base.encode = fake_encode;
    f->base.bound = fake_bound;
    f->base.frame_max = 16u << 20;
    f->base.frame_align = 4;
    f->base.name = "test";
    f->mode = mode;
}

static int read_all(const char *path, gs_zcodec *c, int32_t *out, size_t cap, size_t *n, gs_status *st)
{
    gs_read_opts ro = {0};
    ro.format = GS_FMT_RAW;
    ro.type = GS_I32;
    ro.type_given = 1;
    ro.zcodec = c;
    gs_reader *r = NULL;
    int rc = gs_reader_open(&r, path, &ro, st);
    *n = 0;
    while (!rc) {
        size_t got = 0;
        rc = gs_reader_read(r, out + *n, cap - *n, &got, st);
        if (!got) break;
        *n += got;
    }
    gs_reader_close(r);
    return rc;
}

/* Writes the n values at v to path under wo: the first failure's code (the writer aborted), or 0. */
static int write_file(const char *path, const gs_write_opts *wo, const void *v, size_t n, gs_status *st)
{
    gs_writer *w = NULL;
    int rc = gs_writer_open(&w, path, wo, st);
    if (!rc) rc = gs_writer_write(w, v, n, st);
    if (!rc) rc = gs_writer_close(w, st);
    else gs_writer_abort(w);
    return rc;
}

/* Makes a fresh directory from the mkdtemp template dir; where it cannot, a failed check named
 * `name` and 0. */
static int made_dir(char *dir, const char *name)
{
    if (mkdtemp(dir)) return 1;
    CHECK(0, name, "mkdtemp failed");
    return 0;
}

static void test_codec_path(void)
{
    char dir[] = "/tmp/gs_test_zframes.XXXXXX", path[64], cmd[200];
    if (!made_dir(dir, "zstd_frames codec path: temp dir")) return;
    snprintf(path, sizeof path, "%s/a.i32.zst", dir);
    size_t n = 700001; /* 43 frames of 64 KiB and a short one */
    int32_t *v = malloc(n * sizeof *v), *back = malloc((n + 16) * sizeof *back);
    for (size_t i = 0; i < n; i++) v[i] = (int32_t)(rnd() % 1000) * (int32_t)(i % 2);
    fake_codec enc;
    fake_init(&enc, 0);
    gs_write_opts wo = {0};
    wo.format = GS_FMT_RAW;
    wo.type = GS_I32;
    wo.ncols = 1;
    wo.rows = -1;
    wo.zstd = 1;
    wo.level = 3;
    wo.frame_size = 64u << 10;
    wo.force = 1;
    wo.zcodec = &enc.base;
    gs_status st = {0};
    int rc = write_file(path, &wo, v, n, &st);
    size_t frames = (n * 4 + wo.frame_size - 1) / wo.frame_size;
    CHECK(!rc && enc.base.enc_frames == frames && enc.base.enc_in == n * 4, "zstd_frames codec encode: all frames",
          "rc=%d %s frames=%llu", rc, st.msg, (unsigned long long)enc.base.enc_frames);
    /* the device gets its frames in one batch (GS_Z_DEV_BATCH of input), not 16 at a time */
    CHECK(enc.calls == 1, "zstd_frames codec encode: the 43 frames in one batch", "%zu calls", enc.calls);
    { /* an encoder that never started: libzstd writes the same values, every frame counted as its */
        char p2[80];
        snprintf(p2, sizeof p2, "%s/nostart.i32.zst", dir);
        fake_codec ns;
        fake_init(&ns, 4);
        wo.zcodec = &ns.base;
        st = (gs_status){0};
        rc = write_file(p2, &wo, v, n, &st);
        size_t got = 0;
        gs_status st2 = {0};
        int rc2 = rc ? rc : read_all(p2, NULL, back, n + 16, &got, &st2);
        CHECK(!rc2 && got == n && !memcmp(back, v, n * sizeof *v) && ns.base.enc_frames == 0 &&
                  ns.base.enc_cpu_frames == frames && ns.base.stopped,
              "zstd_frames codec encode: a codec that never started leaves the batch to libzstd",
              "rc=%d %s %s got=%zu gpu=%llu cpu=%llu", rc2, st.msg, st2.msg, got, (unsigned long long)ns.base.enc_frames,
              (unsigned long long)ns.base.enc_cpu_frames);
        wo.zcodec = &enc.base;
    }
    free(enc.packed);
    /* every frame now has its content size and checksum */
    FILE *fp = fopen(path, "rb");
    unsigned char *file = malloc(n * 8);
    size_t flen = fp ? fread(file, 1, n * 8, fp) : 0;
    if (fp) fclose(fp);
    size_t pos = 0, good = 0;
    while (pos < flen) {
        gs_zfinfo fi;
        if (gs_zframe_parse(file + pos, flen - pos, &fi) != GS_ZF_OK) break;
        good += fi.checksum && fi.content != GS_ZSTD_SIZE_UNKNOWN;
        pos += fi.csize;
    }
    CHECK(pos == flen && good == frames, "zstd_frames codec encode: frames carry content size and checksum",
          "pos=%zu/%zu good=%zu/%zu", pos, flen, good, frames);
    if (system("zstd --version > /dev/null 2>&1") == 0) {
        snprintf(cmd, sizeof cmd, "zstd -q -t '%s'", path);
        CHECK(system(cmd) == 0, "zstd_frames codec encode: zstd -t accepts the file", "zstd -t failed");
    } else {
        printf("SKIP zstd_frames codec encode zstd -t: no zstd CLI\n");
    }
    for (int mode = -1; mode <= 3; mode++) {
        fake_codec dec;
        fake_init(&dec, mode < 0 ? 0 : mode);
        size_t got = 0;
        st = (gs_status){0};
        rc = read_all(path, mode < 0 ? NULL : &dec.base, back, n + 16, &got, &st);
        int same = !rc && got == n && !memcmp(back, v, n * sizeof *v);
        uint64_t want_cpu = mode <= 0 ? 0 : mode == 1 ? (frames + 2) / 3 : frames;
        /* a stopped codec is called once, then libzstd decodes that batch and every later one */
        char name[120];
        snprintf(name, sizeof name, "zstd_frames codec decode mode %d: same values, %llu frames redone by libzstd",
                 mode, (unsigned long long)want_cpu);
        int counts = mode < 0 || (dec.base.dec_cpu_frames >= want_cpu && dec.base.dec_frames + dec.base.dec_cpu_frames == frames &&
                                   (mode != 0 || dec.base.dec_cpu_frames == 0) && dec.calls > 0 &&
                                   (mode != 3 || dec.calls == 1));
        CHECK(same && counts, name, "rc=%d %s got=%zu device=%llu cpu=%llu", rc, st.msg, got,
              (unsigned long long)dec.base.dec_frames, (unsigned long long)dec.base.dec_cpu_frames);
    }
    { /* frames above the codec's limit go to libzstd: the codec is never called */
        fake_codec dec;
        fake_init(&dec, 0);
        dec.base.frame_max = 32u << 10;
        size_t got = 0;
        st = (gs_status){0};
        rc = read_all(path, &dec.base, back, n + 16, &got, &st);
        CHECK(!rc && got == n && !memcmp(back, v, n * sizeof *v) && dec.calls == 0 && dec.base.dec_frames == 0 &&
                  dec.base.dec_cpu_frames == frames,
              "zstd_frames codec decode: frames above the codec's frame_max decoded by libzstd only",
              "rc=%d %s calls=%zu device=%llu cpu=%llu", rc, st.msg, dec.calls, (unsigned long long)dec.base.dec_frames,
              (unsigned long long)dec.base.dec_cpu_frames);
    }
    /* a flipped bit in a block body: the codec's output fails the checksum, libzstd refuses */
    pos = 0;
    gs_zfinfo fi;
    for (int k = 0; k < 5 && gs_zframe_parse(file + pos, flen - pos, &fi) == GS_ZF_OK; k++) pos += fi.csize;
    gs_zframe_parse(file + pos, flen - pos, &fi);
    file[pos + fi.header + 40] ^= 0x10;
    snprintf(path, sizeof path, "%s/bad.i32.zst", dir);
    fp = fopen(path, "wb");
    if (fp) fwrite(file, 1, flen, fp), fclose(fp);
    for (int mode = 0; mode <= 3; mode += 3) {
        fake_codec dec;
        fake_init(&dec, mode);
        size_t got = 0;
        st = (gs_status){0};
        rc = read_all(path, &dec.base, back, n + 16, &got, &st);
        CHECK(rc == GS_EDATA && strstr(st.msg, "corrupt"), mode ? "zstd_frames codec decode: corrupt block body after "
              "the codec stopped is an error" : "zstd_frames codec decode: corrupt block body is an error",
              "rc=%d msg=%s", rc, st.msg);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) printf("# could not remove %s\n", dir);
    free(file);
    free(v);
    free(back);
}


/* ---- gs_reader_frames ------------------------------------------------------------------------ */
/* A file of frames of the given decoded sizes (cycled) over data d, each with content size; ck:
 * checksum on every frame except where skip_ck_at matches the frame index. */
static int write_frames(const char *path, const unsigned char *d, size_t len, const size_t *fs, size_t nfs,
                        size_t skip_ck_at, int skippable_at)
{
    FILE *fp = fopen(path, "wb");
    if (!fp) return -1;
    size_t at = 0;
    for (size_t f = 0; at < len; f++) {
        size_t n = fs[f % nfs] < len - at ? fs[f % nfs] : len - at;
        unsigned char *fr = NULL;
        size_t c = make_frame(d + at, n, 1, f != skip_ck_at, 1, &fr);
        if ((int)f == skippable_at) {
            unsigned char sk[12] = {0, 0, 0, 0, 4, 0, 0, 0, 1, 2, 3, 4};
            put_le(sk, GS_ZSTD_SKIP_MAGIC, 4);
            fwrite(sk, 1, sizeof sk, fp);
        }
        if (!c || fwrite(fr, 1, c, fp) != c) {
            free(fr);
            fclose(fp);
            return -1;
        }
        free(fr);
        at += n;
    }
    return fclose(fp);
}

static size_t chunk_window; /* read_chunks' compressed read-ahead window (0: by thread count) */
static int chunk_plain;     /* read_chunks opens the reader without frames (gs_reader_read only) */

/* Read path in chunks of `chunk` bytes as the engine does: frames where given (decoded here,
 * each checked as the device's caller must), else gs_reader_read until the chunk is full. */
static int read_chunks(const char *path, gs_format fmt, size_t chunk, unsigned char *out, size_t cap, size_t *len,
                       size_t *frames, size_t *bad, gs_status *st)
{
    gs_read_opts ro = {0};
    ro.format = fmt;
    ro.type = GS_I32;
    ro.type_given = 1;
    ro.zframes = !chunk_plain;
    ro.threads = 3;
    ro.zstd_window = chunk_window;
    gs_reader *r = NULL;
    int rc = gs_reader_open(&r, path, &ro, st);
    size_t tcap = 4096, scap = chunk * 2 + 4096;
    gs_zfref *t = malloc(tcap * sizeof *t);
    unsigned char *stage = malloc(scap);
    *len = *frames = *bad = 0;
    for (int eof = 0; !rc && !eof;) {
        gs_zframes_req q = {stage, scap, 64, chunk, (size_t)1 << 20, 256, t, tcap};
        size_t nf = 0, el = 0;
        if ((rc = gs_reader_frames(r, &q, &nf, &el, st))) break;
        if (nf) {
            size_t sum = 0;
            for (size_t i = 0; i < nf; i++) {
                unsigned char *dst = out + *len + t[i].at;
                size_t got = ZSTD_decompress(dst, t[i].dsize, stage + t[i].off, t[i].csize);
                if (ZSTD_isError(got) || got != t[i].dsize || t[i].off % 64 || t[i].at % 256 || t[i].at != sum ||
                    xxh(dst, got) != t[i].xxh)
                    (*bad)++;
                sum += t[i].dsize;
            }
            if (sum != el * 4 || (sum != chunk && sum % 4)) (*bad)++;
            *len += sum;
            *frames += nf;
            if (sum < chunk) eof = 1; /* frames end the chunk short only at the end */
            continue;
        }
        size_t have = 0;
        while (have < chunk / 4 && !rc) {
            size_t got = 0;
            if (*len + chunk > cap) return gs_fail(st, GS_EDATA, "too much data");
            rc = gs_reader_read(r, out + *len + have * 4, chunk / 4 - have, &got, st);
            if (!got) {
                eof = 1;
                break;
            }
            have += got;
        }
        *len += have * 4;
    }
    /* past the end: nothing more either way */
    if (!rc) {
        gs_zframes_req q = {stage, scap, 64, chunk, (size_t)1 << 20, 256, t, tcap};
        size_t nf = 0, el = 0, got = 0;
        rc = gs_reader_frames(r, &q, &nf, &el, st);
        if (!rc && nf) (*bad)++;
        if (!rc) rc = gs_reader_read(r, out + *len, 1, &got, st);
        if (!rc && got) (*bad)++;
    }
    gs_reader_close(r);
    free(t);
    free(stage);
    return rc;
}

static void test_reader_frames(void)
{
    char dir[] = "/tmp/gs_test_rframes.XXXXXX", path[80], cmd[200];
    if (!made_dir(dir, "reader frames: temp dir")) return;
    snprintf(path, sizeof path, "%s/f.zst", dir);
    const size_t len = 3 * (64u << 10) * 7 + 4 * 1001; /* odd tail */
    unsigned char *d = make_data(len, 1), *back = malloc(len + (1u << 20));
    const size_t k64[] = {64u << 10}, mixed[] = {64u << 10, 32u << 10, 96u << 10}, odd[] = {65540};
    const size_t big[] = {2u << 20}, small[] = {256};
    struct {
        const char *name;
        const size_t *fs;
        size_t nfs, chunk, skip_ck;
        int skippable;
        int want_frames; /* 1: some chunks come as frames; 0: none may */
    } cases[] = {
        {"64K frames, 256K chunks", k64, 1, 256u << 10, SIZE_MAX, -1, 1},
        {"64K frames, 64K chunks", k64, 1, 64u << 10, SIZE_MAX, -1, 1},
        {"mixed frames, 192K chunks", mixed, 3, 192u << 10, SIZE_MAX, -1, 1},
        {"64K frames, 100000-byte chunks (frames straddle)", k64, 1, 100000, SIZE_MAX, -1, 0},
        {"frames of 65540 bytes (not at the unit)", odd, 1, 4 * 65540, SIZE_MAX, -1, 0},
        {"2 MiB frames (over frame_max)", big, 1, 2u << 20, SIZE_MAX, -1, 0},
        {"one frame without a checksum", k64, 1, 128u << 10, 5, -1, 1},
        {"a skippable frame at frame 4", k64, 1, 128u << 10, SIZE_MAX, 4, 1},
        {"256-byte frames, more than the table holds", small, 1, 2u << 20, SIZE_MAX, -1, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char name[160];
        snprintf(name, sizeof name, "reader frames: %s", cases[c].name);
        if (write_frames(path, d, len, cases[c].fs, cases[c].nfs, cases[c].skip_ck, cases[c].skippable)) {
            CHECK(0, name, "could not write %s", path);
            continue;
        }
        gs_status st = {0};
        size_t got = 0, frames = 0, bad = 0;
        memset(back, 0xAB, len);
        int rc = read_chunks(path, GS_FMT_RAW, cases[c].chunk, back, len + (1u << 20), &got, &frames, &bad, &st);
        CHECK(!rc && got == len && !memcmp(back, d, len) && !bad && (cases[c].want_frames ? frames > 0 : frames == 0),
              name, "rc=%d %s got=%zu of %zu frames=%zu bad=%zu", rc, st.msg, got, len, frames, bad);
    }
    { /* a window smaller than a chunk's frames: it grows to the staging buffer's size at the
       * first frame that qualifies, and chunks whose frames cross its end move to its start */
        const size_t k16[] = {16u << 10};
        gs_status st = {0};
        size_t got = 0, frames = 0, bad = 0;
        unsigned char *rnd_d = make_data(len, 0); /* incompressible: the frames are as large as their data */
        int rc = write_frames(path, rnd_d, len, k16, 1, SIZE_MAX, -1);
        chunk_window = 40000;
        if (!rc) rc = read_chunks(path, GS_FMT_RAW, 256u << 10, back, len + (1u << 20), &got, &frames, &bad, &st);
        chunk_window = 0;
        CHECK(!rc && got == len && !memcmp(back, rnd_d, len) && !bad && frames > 0,
              "reader frames: a 40000-byte window grows for a chunk's frames", "rc=%d %s got=%zu frames=%zu bad=%zu", rc,
              st.msg, got, frames, bad);
        free(rnd_d);
    }
    { /* a frame without a checksum at each place from frame 16 on, the window (528 KiB here)
       * holding about 4 chunks' frames, so that it fills in the middle of some chunks: where the
       * refused frame comes after that point in its chunk, the frames indexed before it moved with
       * the window, and the chunk is read decoded from where it began */
        const size_t k16[] = {16u << 10}, n2 = 4u << 20;
        unsigned char *half = malloc(n2), *back2 = malloc(n2 + (1u << 20));
        for (size_t i = 0; i < n2; i++) half[i] = i % 2 ? (unsigned char)rnd() : 0;
        int ok = 1;
        char why[800] = "";
        for (size_t at = 16; at < 256 && ok; at += 3) {
            gs_status st = {0};
            size_t got = 0, frames = 0, bad = 0;
            int rc = write_frames(path, half, n2, k16, 1, at, -1);
            chunk_window = 40000;
            if (!rc) rc = read_chunks(path, GS_FMT_RAW, 256u << 10, back2, n2 + (1u << 20), &got, &frames, &bad, &st);
            chunk_window = 0;
            if (rc || got != n2 || memcmp(back2, half, n2) || bad || !frames) {
                ok = 0;
                snprintf(why, sizeof why, "frame %zu without a checksum: rc=%d %s got=%zu frames=%zu bad=%zu", at, rc,
                         st.msg, got, frames, bad);
            }
        }
        CHECK(ok, "reader frames: a refused frame after the window's end, the chunk read decoded", "%s", why);
        free(half);
        free(back2);
    }
    { /* the stray bytes of a raw file are still an error, whichever way the frames came */
        const size_t k8[] = {8u << 10};
        gs_status st = {0};
        size_t got = 0, frames = 0, bad = 0;
        int rc = write_frames(path, d, 5 * (8u << 10) + 2, k8, 1, SIZE_MAX, -1);
        if (!rc) rc = read_chunks(path, GS_FMT_RAW, 8u << 10, back, len, &got, &frames, &bad, &st);
        CHECK(rc == GS_EDATA && strstr(st.msg, "stray") && frames == 5 && !bad,
              "reader frames: stray bytes after whole frames are an error", "rc=%d %s frames=%zu", rc, st.msg, frames);
    }
    { /* npy: the header's frame goes through gs_reader_read, the data's frames after it */
        snprintf(path, sizeof path, "%s/f.npy.zst", dir);
        size_t n = 5 * (64u << 10) / 4;
        gs_write_opts wo = {0};
        wo.format = GS_FMT_NPY;
        wo.type = GS_I32;
        wo.ncols = 1;
        wo.rows = (int64_t)n;
        wo.zstd = 1;
        wo.level = 1;
        wo.frame_size = 64u << 10;
        wo.force = 1;
        gs_status st = {0};
        int rc = write_file(path, &wo, d, n, &st);
        size_t got = 0, frames = 0, bad = 0;
        if (!rc) rc = read_chunks(path, GS_FMT_NPY, 64u << 10, back, len, &got, &frames, &bad, &st);
        /* the frames hold the header's 128 bytes and then data: each frame's data starts 128 bytes
         * in, so no frame starts a chunk; all of it comes through gs_reader_read */
        CHECK(!rc && got == n * 4 && !memcmp(back, d, n * 4) && !bad, "reader frames: npy.zst reads back exactly",
              "rc=%d %s got=%zu frames=%zu bad=%zu", rc, st.msg, got, frames, bad);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) printf("# could not remove %s\n", dir);
    free(d);
    free(back);
}

/* ---- the format's look ------------------------------------------------------------------------ */
/* Detection reads the first decoded bytes without taking them (gs_bsrc.look): with the format
 * detected, every chunk still comes as frames, the first included. A first frame that is corrupt
 * or cut short is left to the read path: the error is the one a reader without frames gives. */
static void read_both(const char *path, gs_format fmt, size_t chunk, unsigned char *out, size_t cap, int *rc,
                      gs_status *st)
{
    size_t got = 0, frames = 0, bad = 0;
    for (int plain = 0; plain < 2; plain++) {
        chunk_plain = plain;
        memset(&st[plain], 0, sizeof st[plain]);
        rc[plain] = read_chunks(path, fmt, chunk, out, cap, &got, &frames, &bad, &st[plain]);
    }
    chunk_plain = 0;
}

static void test_reader_look(void)
{
    char dir[] = "/tmp/gs_test_rlook.XXXXXX", path[80], cmd[200];
    if (!mkdtemp(dir)) {
        CHECK(0, "reader look: temp dir", "mkdtemp failed");
        return;
    }
    snprintf(path, sizeof path, "%s/f.zst", dir);
    const size_t len = 8 * (64u << 10), k64[] = {64u << 10};
    unsigned char *d = make_data(len, 0), *back = malloc(len + (1u << 20));
    gs_status st[2];
    int rc[2];
    { /* raw, detected: all 8 frames as frames */
        size_t got = 0, frames = 0, bad = 0;
        int r = write_frames(path, d, len, k64, 1, SIZE_MAX, -1);
        if (!r) r = read_chunks(path, GS_FMT_AUTO, 128u << 10, back, len + (1u << 20), &got, &frames, &bad, &st[0]);
        CHECK(!r && got == len && !memcmp(back, d, len) && !bad && frames == 8,
              "reader look: a detected format, every frame as a frame (the first chunk's too)",
              "rc=%d %s got=%zu frames=%zu bad=%zu", r, st[0].msg, got, frames, bad);
    }
    { /* CSV, detected: the look's text, then the rows read (no frames for text) */
        const size_t rows = 40000;
        char *txt = malloc(rows * 8);
        int32_t *want = malloc(rows * sizeof *want);
        size_t tl = 0, got = 0, frames = 0, bad = 0;
        for (size_t i = 0; i < rows; i++) {
            want[i] = (int32_t)(i * 7 % 100003);
            tl += (size_t)sprintf(txt + tl, "%d\n", want[i]);
        }
        int r = write_frames(path, (unsigned char *)txt, tl, k64, 1, SIZE_MAX, -1);
        if (!r) r = read_chunks(path, GS_FMT_AUTO, 64u << 10, back, len + (1u << 20), &got, &frames, &bad, &st[0]);
        CHECK(!r && got == rows * 4 && !memcmp(back, want, rows * 4) && frames == 0,
              "reader look: CSV detected in frames, read as rows", "rc=%d %s got=%zu frames=%zu", r, st[0].msg, got,
              frames);
        free(txt);
        free(want);
    }
    { /* the first block's type made reserved: corrupt, as the plain reader says */
        int r = write_frames(path, d, len, k64, 1, SIZE_MAX, -1);
        FILE *fp = r ? NULL : fopen(path, "r+b");
        unsigned char head[32];
        gs_zfinfo fi;
        if (fp && fread(head, 1, sizeof head, fp) == sizeof head && gs_zframe_head(head, sizeof head, &fi) == GS_ZF_OK) {
            head[fi.header] |= 0x06;
            fseek(fp, 0, SEEK_SET);
            fwrite(head, 1, sizeof head, fp);
        }
        if (fp) fclose(fp);
        read_both(path, GS_FMT_AUTO, 128u << 10, back, len + (1u << 20), rc, st);
        CHECK(rc[0] == GS_EDATA && rc[1] == GS_EDATA && !strcmp(st[0].msg, st[1].msg) && strstr(st[0].msg, "corrupt"),
              "reader look: a corrupt first frame, the plain reader's error", "rc=%d/%d '%s' / '%s'", rc[0], rc[1],
              st[0].msg, st[1].msg);
    }
    { /* the file cut inside its first frame */
        int r = write_frames(path, d, len, k64, 1, SIZE_MAX, -1);
        if (!r) r = truncate(path, 5000);
        read_both(path, GS_FMT_AUTO, 128u << 10, back, len + (1u << 20), rc, st);
        CHECK(!r && rc[0] == GS_EDATA && rc[1] == GS_EDATA && !strcmp(st[0].msg, st[1].msg) &&
                  strstr(st[0].msg, "truncated"),
              "reader look: a first frame cut short, the plain reader's error", "rc=%d/%d '%s' / '%s'", rc[0], rc[1],
              st[0].msg, st[1].msg);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) printf("# could not remove %s\n", dir);
    free(d);
    free(back);
}

int main(void)
{
    test_codec_path();
    test_reader_frames();
    test_reader_look();
    return CHECK_DONE();
}
