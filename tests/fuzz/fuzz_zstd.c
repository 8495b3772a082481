/* fuzz_zstd.c - libFuzzer target for the zstd decoding source (io/zstd_source.c, gs_bsrc_open_zstd):
 * frame walking, skippable frames, batches of frames decoded in parallel, the streaming
 * fallback for frames without a content size, window refills, truncation and corruption.
 *
 * Input: one option byte, then either the compressed stream itself or a recipe for one.
 *   bits 0-1  decode threads 1..4
 *   bits 2-4  the compressed read window (gs_read_opts.zstd_window): default, 64, 100, 257, 1000, 4096,
 *             20000 bytes, or default
 *   bit  5    the source knows its size (a file) or not (a pipe); short reads either way
 *   bits 6-7  0, 1: the rest is the stream (read steps 64 KiB / 1..200 bytes);
 *             2: the rest is a recipe: byte 1 holds the piece count (bits 0-1, +1) and byte 2..5
 *                one flag byte per piece (bit 0 content size in the header, bit 1 checksum,
 *                bit 2 a skippable frame before it, bit 3 an empty frame after it, bits 4-7 the
 *                share of what is left that the piece takes); the rest is the content, cut into
 *                pieces that are each compressed into a frame (level 1);
 *             3: a recipe, then damage chosen by byte 6: bits 0-1 truncate by 1..64 bytes,
 *                flip one byte, append 1..3 junk bytes, or insert a junk byte after one of the
 *                frames.
 * Checks, besides the sanitizers' and libFuzzer's timeout (no hang):
 *   - the result agrees with libzstd's own streaming decoder over the same bytes: where that
 *     succeeds, gpustream succeeds with the same bytes; where it fails, gpustream fails (the one
 *     exception: a frame over the streaming decoder's default window limit, which gpustream may
 *     decode in one shot); decoded output is compared up to 8 MiB (a 64 KiB input can claim GiBs);
 *   - a recipe without damage decodes to exactly its content; junk always fails, and so does a
 *     cut unless it falls exactly between frames;
 *   - a failure has a one-line message naming the input ("fuzz.zst: ...");
 *   - the same input through a device-codec stand-in (libzstd that lies: some frames it reports
 *     done are wrong, some right ones it reports failed) gives the same outcome and, where both
 *     succeed, the same bytes: the host frame checks, the checksum verification and the libzstd
 *     fallback of io/zstd_frames.c and io/zstd_source.c on arbitrary input;
 *   - the same input taken as whole frames for a device where they qualify (the zstd source's
 *     frames hook, in chunks of 1..64 KiB chosen by the input's last byte), those frames decoded
 *     here and checked as the GPU backend does (decoded size, XXH64), the rest read decoded: the
 *     same outcome and, where both succeed, the same bytes; every table it hands out is consistent
 *     (aligned, in the buffer, filling the chunk exactly or ending the input).
 *
 * Run: bash tests/fuzz/run.sh, or build/fuzz/fuzz_zstd -max_len=65536 CORPUS_COPY */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "../../common/pool.h"
#include "../../io/zstd_index.h"
#include "fuzz_mem.h"

#define NAME "fuzz.zst"
#define LIMIT ((size_t)8 << 20) /* decoded bytes compared */

static size_t gs_fz_window; /* this input's compressed read-ahead window; 0 = by threads */

typedef struct gs_fz_out {
    int rc;        /* 0 ok, else failed */
    int capped;    /* stopped at LIMIT: the outcome is unknown */
    int too_large; /* reference only: failed on the window size limit */
    gs_status st;
    gs_fz_buf out;
} gs_fz_out;

/* libzstd's streaming decoder over the whole input: the reference. One decoder, reset before
 * each input (its buffers are kept). */
static void gs_fz_reference(const uint8_t *src, size_t len, gs_fz_out *r)
{
    static ZSTD_DStream *ds;
    memset(r, 0, sizeof *r);
    if (len == 0) return; /* no frames: nothing, successfully */
    if (!ds && !(ds = ZSTD_createDStream())) abort();
    if (ZSTD_isError(ZSTD_DCtx_reset(ds, ZSTD_reset_session_only))) abort();
    ZSTD_inBuffer ib = {src, len, 0};
    size_t last = 0;
    for (;;) {
        gs_fz_reserve(&r->out, 1 << 16);
        ZSTD_outBuffer ob = {r->out.p + r->out.n, 1 << 16, 0};
        size_t before = ib.pos;
        last = ZSTD_decompressStream(ds, &ob, &ib);
        r->out.n += ob.pos;
        if (ZSTD_isError(last)) {
            r->rc = 1;
            r->too_large = ZSTD_getErrorCode(last) == ZSTD_error_frameParameter_windowTooLarge;
            break;
        }
        if (r->out.n > LIMIT) {
            r->capped = 1;
            break;
        }
        if (ob.pos == 0 && ib.pos == before) { /* no progress: the input is used up */
            r->rc = ib.pos != ib.size || last != 0; /* else a frame was left unfinished */
            break;
        }
        if (ib.pos == ib.size && ob.pos < ob.size && last == 0) break; /* finished, flushed */
    }
}

/* 1 if a frame of the input declares a content size other than what it holds (its blocks,
 * decoded by libzstd's streaming decoder, give another count of bytes). The streaming decoder, the
 * reference above, passes some such frames (1.5.4: a frame declaring 2.25 MiB that holds nothing,
 * while one declaring 64 KiB is refused); gpustream refuses every one, and may. */
static int gs_fz_size_lies(const uint8_t *src, size_t len)
{
    static ZSTD_DStream *ds;
    static uint8_t sink[1 << 16];
    if (!ds && !(ds = ZSTD_createDStream())) abort();
    for (size_t at = 0; at < len;) {
        size_t fl = ZSTD_findFrameCompressedSize(src + at, len - at);
        if (ZSTD_isError(fl)) return 0;
        unsigned long long cs = ZSTD_getFrameContentSize(src + at, fl), got = 0;
        if (cs != ZSTD_CONTENTSIZE_UNKNOWN && cs != ZSTD_CONTENTSIZE_ERROR) {
            if (ZSTD_isError(ZSTD_DCtx_reset(ds, ZSTD_reset_session_only))) abort();
            ZSTD_inBuffer ib = {src + at, fl, 0};
            for (;;) {
                ZSTD_outBuffer ob = {sink, sizeof sink, 0};
                size_t r = ZSTD_decompressStream(ds, &ob, &ib);
                if (ZSTD_isError(r)) return 0; /* refused anyway */
                got += ob.pos;
                if (got > LIMIT) return 0;     /* too long to tell */
                if (r == 0 || (ob.pos == 0 && ib.pos == ib.size)) break;
            }
            if (got != cs) return 1;
        }
        at += fl;
    }
    return 0;
}

/* The device-codec stand-in. */
static size_t gs_fz_dev_calls;
static int gs_fz_dev_decode(gs_zcodec *c, size_t n, const unsigned char *const *src, const size_t *csize,
                            const size_t *dsize, unsigned char *dst, const size_t *doff, unsigned char *ok, gs_status *st)
{
    static ZSTD_DCtx *dc;
    (void)c, (void)st;
    if (!dc && !(dc = ZSTD_createDCtx())) abort();
    gs_fz_dev_calls++;
    for (size_t i = 0; i < n; i++) {
        size_t r = ZSTD_decompressDCtx(dc, dst + doff[i], dsize[i], src[i], csize[i]);
        ok[i] = !ZSTD_isError(r) && r == dsize[i] && (i + gs_fz_dev_calls) % 5 != 1;
        if ((i + gs_fz_dev_calls) % 3 == 0) dst[doff[i] + (i * 7919) % dsize[i]] ^= 0x40; /* wrong, yet "ok" */
    }
    return GS_OK;
}

static gs_zcodec gs_fz_dev = {.decode = gs_fz_dev_decode, .frame_max = 1u << 20, .frame_align = 8, .name = "stand-in"};

static void gs_fz_ours(const uint8_t *src, size_t len, int size_known, size_t step, int threads, gs_zcodec *codec,
                       gs_fz_out *r)
{
    int closed = 0;
    gs_bsrc *z = NULL;
    memset(r, 0, sizeof *r);
    gs_fz_src *m = gs_fz_src_new(NAME, src, len, size_known, step, &closed);
    const gs_read_opts o = {.threads = threads, .zcodec = codec, .zstd_window = gs_fz_window};
    r->rc = gs_bsrc_open_zstd(&z, &m->base, &o, &r->st);
    if (r->rc) { /* only memory can fail here; the layer closed its input */
        if (!closed || r->rc != GS_ENOMEM) abort();
        return;
    }
    if (!z || z->size != -1 || strcmp(z->name, NAME)) abort();
    for (size_t want = 1;; want = want * 13 % 200003 + 1) {
        size_t got = 0;
        gs_fz_reserve(&r->out, want);
        r->rc = z->read(z, r->out.p + r->out.n, want, &got, &r->st);
        if (r->rc) break;
        if (got > want) abort();
        if (got == 0) {
            /* the end is sticky */
            if (z->read(z, r->out.p + r->out.n, want, &got, &r->st) || got) abort();
            break;
        }
        r->out.n += got;
        if (r->out.n > LIMIT) {
            r->capped = 1;
            break;
        }
    }
    gs_fz_check_msg(r->rc, &r->st, NAME);
    if (z->consumed > len) abort();
    z->close(z);
    if (!closed) abort(); /* closing the zstd source closes what it wraps */
}

/* The frames path: chunks of `chunk` bytes, each as frames where the source hands them out (decoded
 * here, checked as the GPU backend checks them), else filled by reads, as pipeline/engine.c does. */
static void gs_fz_frames(const uint8_t *src, size_t len, int size_known, size_t step, int threads, size_t chunk,
                         gs_fz_out *r)
{
    enum { TCAP = 64, ALIGN = 8, UNIT = 8 };
    static ZSTD_DCtx *dc;
    static gs_zfref t[TCAP];
    int closed = 0, eof = 0;
    gs_bsrc *z = NULL;
    memset(r, 0, sizeof *r);
    if (!dc && !(dc = ZSTD_createDCtx())) abort();
    gs_fz_src *m = gs_fz_src_new(NAME, src, len, size_known, step, &closed);
    const gs_read_opts o = {.threads = threads, .zframes = 1, .zstd_window = gs_fz_window};
    r->rc = gs_bsrc_open_zstd(&z, &m->base, &o, &r->st);
    if (r->rc) {
        if (!closed || r->rc != GS_ENOMEM) abort();
        return;
    }
    if (!z->frames) abort();
    const size_t cap = 2 * chunk + 64;
    uint8_t *stage = malloc(cap);
    if (!stage) abort();
    while (!eof && !r->rc && r->out.n <= LIMIT) {
        gs_fz_reserve(&r->out, chunk);
        gs_zframes_req q = {stage, cap, ALIGN, chunk, (size_t)1 << 20, UNIT, t, TCAP};
        size_t nf = 0;
        uint64_t bytes = 0;
        if ((r->rc = z->frames(z, &q, 1, &nf, &bytes, &r->st))) break;
        if (nf) {
            uint64_t at = 0;
            if (nf > TCAP || bytes > chunk) abort();
            for (size_t i = 0; i < nf && !r->rc; i++) {
                if (t[i].at != at || t[i].off % ALIGN || t[i].at % UNIT || t[i].off + t[i].csize > cap ||
                    (i && t[i].off < t[i - 1].off + t[i - 1].csize) || !t[i].dsize)
                    abort();
                uint8_t *dst = r->out.p + r->out.n + t[i].at;
                size_t d = ZSTD_decompressDCtx(dc, dst, t[i].dsize, stage + t[i].off, t[i].csize);
                if (ZSTD_isError(d) || d != t[i].dsize || gs_zstd_checksum(dst, d) != t[i].xxh)
                    r->rc = gs_fail(&r->st, GS_EDATA, NAME ": corrupt zstd data: a frame failed its check");
                at += t[i].dsize;
            }
            if (r->rc) break;
            if (at != bytes) abort();
            r->out.n += bytes;
            eof = bytes < chunk; /* frames end a chunk short only at the end: nothing may follow */
            if (eof && !r->rc) {
                size_t got = 0;
                gs_fz_reserve(&r->out, 1);
                if ((r->rc = z->read(z, r->out.p + r->out.n, 1, &got, &r->st)) == 0 && got) abort();
            }
            continue;
        }
        for (size_t have = 0; have < chunk && !r->rc;) {
            size_t got = 0;
            r->rc = z->read(z, r->out.p + r->out.n + have, chunk - have, &got, &r->st);
            if (r->rc) break;
            if (!got) {
                eof = 1;
                r->out.n += have;
                have = chunk;
                break;
            }
            have += got;
            if (have == chunk) r->out.n += have;
        }
    }
    if (r->out.n > LIMIT) r->capped = 1;
    gs_fz_check_msg(r->rc, &r->st, NAME);
    free(stage);
    z->close(z);
    if (!closed) abort();
}

/* Append one frame of content [p, p+n) with the given flags. */
static void gs_fz_frame(ZSTD_CCtx *cc, gs_fz_buf *b, const uint8_t *p, size_t n, int csize, int checksum,
                        size_t *ends, size_t *nends)
{
    ZSTD_CCtx_reset(cc, ZSTD_reset_session_and_parameters);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, csize);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, checksum);
    size_t bound = ZSTD_compressBound(n);
    gs_fz_reserve(b, bound);
    /* With the content size flag off, the header carries no content size: the streaming path. */
    size_t c = ZSTD_compress2(cc, b->p + b->n, bound, p, n);
    if (ZSTD_isError(c)) abort();
    b->n += c;
    ends[(*nends)++] = b->n;
}

static void gs_fz_skippable(gs_fz_buf *b, const uint8_t *p, size_t n, unsigned variant, size_t *ends,
                            size_t *nends)
{
    uint8_t h[8];
    uint32_t magic = ZSTD_MAGIC_SKIPPABLE_START + (variant & 15);
    for (int i = 0; i < 4; i++) h[i] = (uint8_t)(magic >> (8 * i)), h[4 + i] = (uint8_t)(n >> (8 * i));
    gs_fz_append(b, h, 8);
    gs_fz_append(b, p, n);
    ends[(*nends)++] = b->n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t windows[8] = {0, 64, 100, 257, 1000, 4096, 20000, 0};
    static ZSTD_CCtx *cc;
    static int started;
    if (!started) {
        gs_pool_start(4);
        cc = ZSTD_createCCtx();
        if (!cc) abort();
        started = 1;
    }
    if (size < 1) return 0;
    const uint8_t opt = data[0];
    const int threads = 1 + (opt & 3), size_known = (opt >> 5) & 1, mode = opt >> 6;
    gs_fz_window = windows[(opt >> 2) & 7];
    const uint8_t *in = data + 1;
    size_t len = size - 1, step = 65536;

    gs_fz_buf built = {0};
    gs_fz_buf content = {0};
    int damage = -1; /* -1 none (a recipe: must decode to content), -2 raw bytes */
    size_t ends[16], nends = 0; /* where each frame of a recipe ends */
    if (mode < 2) {
        damage = -2;
        if (mode == 1 && len) step = 1 + in[0] % 200;
    } else {
        if (len < 7) return 0;
        int npieces = 1 + (in[0] & 3);
        const uint8_t *flags = in + 1;
        uint8_t dmg = in[5];
        const uint8_t *p = in + 6;
        size_t left = len - 6;
        for (int i = 0; i < npieces; i++) {
            size_t n = i == npieces - 1 ? left : left * (flags[i] >> 4) / 15;
            if (flags[i] & 4) gs_fz_skippable(&built, p, n < 9 ? n : 9, flags[i], ends, &nends);
            gs_fz_frame(cc, &built, p, n, flags[i] & 1, (flags[i] >> 1) & 1, ends, &nends);
            if (flags[i] & 8) gs_fz_frame(cc, &built, p, 0, flags[i] & 1, 0, ends, &nends);
            gs_fz_append(&content, p, n);
            p += n;
            left -= n;
        }
        if (mode == 3) {
            damage = dmg & 3;
            size_t k = (size_t)(dmg >> 2);
            switch (damage) {
            case 0: /* truncate */
                built.n -= 1 + k < built.n ? 1 + k : built.n - 1;
                break;
            case 1: /* flip a byte */
                built.p[k * built.n / 64] ^= (uint8_t)(1u << (dmg & 7)) | 1;
                break;
            case 2: /* junk after the end */
                gs_fz_append(&built, "\x00\x28\xb5", 1 + k % 3);
                break;
            default: /* junk between frames (after the last one when there is one) */
                gs_fz_reserve(&built, 1);
                {
                    size_t at = ends[k % nends];
                    memmove(built.p + at + 1, built.p + at, built.n - at);
                    built.p[at] = (uint8_t)(0x40 + k);
                    built.n++;
                }
                break;
            }
        }
        in = built.p;
        len = built.n;
    }

    gs_fz_out ref, ours, dev;
    gs_fz_reference(in, len, &ref);
    gs_fz_ours(in, len, size_known, step, threads, NULL, &ours);
    gs_fz_ours(in, len, size_known, step, threads, &gs_fz_dev, &dev);
    if (!ours.capped && !dev.capped && (!ours.rc != !dev.rc || (ours.rc == 0 && (ours.out.n != dev.out.n ||
                                                                                  memcmp(ours.out.p, dev.out.p, ours.out.n)))))
        abort();
    free(dev.out.p);
    gs_fz_out fr;
    gs_fz_frames(in, len, size_known, step, threads, ((size_t)data[size - 1] % 64 + 1) << 10, &fr);
    if (!ours.capped && !fr.capped && (!ours.rc != !fr.rc || (ours.rc == 0 && (ours.out.n != fr.out.n ||
                                                                                memcmp(ours.out.p, fr.out.p, ours.out.n)))))
        abort();
    free(fr.out.p);
    size_t common = ref.out.n < ours.out.n ? ref.out.n : ours.out.n;
    if (!ref.capped && !ours.capped) {
        if (ref.rc == 0 && (ours.rc || ref.out.n != ours.out.n) && !(ours.rc && gs_fz_size_lies(in, len)))
            abort();
        if (ref.rc && ours.rc == 0 && !ref.too_large) abort();
    }
    /* What both produced (before either failed or stopped) is the same bytes. */
    if (ref.rc == 0 && ours.rc == 0 && common && memcmp(ref.out.p, ours.out.p, common)) abort();
    if (damage == -1 && (ours.rc || ours.out.n != content.n || (content.n && memcmp(ours.out.p, content.p, content.n))))
        abort();
    /* Cut or junk must fail, unless the cut fell exactly between frames. */
    int at_boundary = 0;
    for (size_t i = 0; i < nends; i++) at_boundary |= ends[i] == len;
    if (damage >= 0 && damage != 1 && !(damage == 0 && at_boundary) && ours.rc == 0) abort();
    free(ref.out.p);
    free(ours.out.p);
    free(built.p);
    free(content.p);
    return 0;
}
