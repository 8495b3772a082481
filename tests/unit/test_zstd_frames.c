/* test_zstd_frames.c - the zstd frame index (io/zstd_index.c) against libzstd's own reading of the
 * same bytes, on fresh random inputs (the seed is printed; give it as the first argument to see
 * the same inputs again):
 *   - frames made by hand in every header form (single segment or a window descriptor, a
 *     dictionary id of 0, 1, 2 or 4 bytes, a content size field of 0, 1, 2, 4 or 8 bytes, checksum
 *     on or off, the reserved bit, windows over the limit, random blocks), skippable frames, and
 *     every prefix of each (truncated headers and frames): the parser's verdict, header fields and
 *     size are ZSTD_getFrameHeader's, ZSTD_getFrameContentSize's and
 *     ZSTD_findFrameCompressedSize's;
 *   - frames libzstd writes (sizes x data x levels, content size or not, checksum or not, a
 *     dictionary), concatenations with skippable frames, bit flips: the same agreement, and the
 *     checksum (libxxhash) equal to the one libzstd stores;
 *   - the check before a device decoder: libzstd's frames pass; content sizes that lie, bad block
 *     headers and dictionaries do not;
 *   - the header rewrite: frames libzstd decodes with their content size and checksum.
 * Then the zstd source with a device codec (io/zstd_frames.c), a codec made of libzstd here that
 * can lie: frames it writes without content size or checksum come out complete; output it reports
 * done but got wrong, or reports failed, is decoded again by libzstd; corrupt input is still an
 * error. Last, gs_reader_frames (frames handed whole to a device): frames decoded here as a device
 * would, mixed with gs_reader_read wherever frames do not qualify, give back the file's values
 * exactly, in chunks that --chunk alone decides. */
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_getFrameHeader: the reference for every header field */
#include "check.h"
#include "../../io/io.h"
#include "../../io/zstd_index.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zdict.h>
#include <zstd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

static uint64_t rng;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* The zstd checksum of d, as the reference library computes it. */
static uint32_t xxh(const void *d, size_t n) { return (uint32_t)XXH64(d, n, 0); }

static void put_le(unsigned char *p, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* kind 0: incompressible, 1: small numbers (compressible), 2: one byte repeated (RLE blocks). */
static unsigned char *make_data(size_t n, int kind)
{
    unsigned char *d = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++)
        d[i] = kind == 0 ? (unsigned char)rnd() : kind == 1 ? (unsigned char)(rnd() % 7 * (i % 3)) : 42;
    return d;
}

/* One frame: streamed (no content size) when pledge is 0, else with the size. */
static size_t make_frame(const unsigned char *d, size_t n, int level, int checksum, int with_size,
                         unsigned char **out)
{
    size_t cap = ZSTD_compressBound(n) + 64;
    *out = malloc(cap);
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, checksum);
    ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, with_size);
    size_t r;
    if (with_size) {
        r = ZSTD_compress2(c, *out, cap, d, n);
    } else { /* streaming without a pledged size: no content size in the header */
        ZSTD_outBuffer ob = {*out, cap, 0};
        ZSTD_inBuffer ib = {d, n, 0};
        r = ZSTD_compressStream2(c, &ob, &ib, ZSTD_e_end);
        r = ZSTD_isError(r) || r ? 0 : ob.pos;
    }
    ZSTD_freeCCtx(c);
    return ZSTD_isError(r) ? 0 : r;
}

/* ---- agreement with libzstd ------------------------------------------------------------------ */
static int verdict(size_t r) /* a libzstd result as the index's verdict */
{
    return !ZSTD_isError(r) ? GS_ZF_OK : ZSTD_getErrorCode(r) == ZSTD_error_srcSize_wrong ? GS_ZF_MORE : GS_ZF_BAD;
}

/* Do gs_zframe_head and gs_zframe_parse read [p, p+n) as libzstd does? 1 if so, else 0 with why. */
static int agrees(const unsigned char *p, size_t n, char *why, size_t cap)
{
    gs_zfinfo h, f;
    const int hr = gs_zframe_head(p, n, &h), pr = gs_zframe_parse(p, n, &f);
    ZSTD_frameHeader zh;
    const size_t zr = ZSTD_getFrameHeader(&zh, p, n), zc = ZSTD_findFrameCompressedSize(p, n);
    const int want_h = ZSTD_isError(zr) ? GS_ZF_BAD : zr ? GS_ZF_MORE : GS_ZF_OK;
    if (hr != want_h || (hr != GS_ZF_OK && !ZSTD_isError(zr) && h.err != ZSTD_error_srcSize_wrong) ||
        (ZSTD_isError(zr) && h.err != ZSTD_getErrorCode(zr)))
        return snprintf(why, cap, "n=%zu head %d err %d, libzstd header %zd", n, hr, (int)h.err,
                        ZSTD_isError(zr) ? -(ssize_t)ZSTD_getErrorCode(zr) : (ssize_t)zr), 0;
    if (hr == GS_ZF_OK) {
        const int skip = zh.frameType == ZSTD_skippableFrame;
        if (h.kind != (skip ? GS_ZK_SKIP : GS_ZK_FRAME) ||
            (!skip && (h.header != zh.headerSize || h.content != zh.frameContentSize || h.window != zh.windowSize || h.dict_id != zh.dictID ||
                       (unsigned)h.checksum != zh.checksumFlag)) ||
            (skip && (h.content != 0 || h.csize != GS_ZSTD_SKIP_HEADER + zh.frameContentSize)))
            return snprintf(why, cap, "n=%zu fields: kind %d header %zu/%u content %llu/%llu window %llu/%llu "
                            "dict %u/%u checksum %d/%u", n, (int)h.kind, h.header, zh.headerSize,
                            (unsigned long long)h.content, zh.frameContentSize, (unsigned long long)h.window,
                            zh.windowSize, h.dict_id, zh.dictID, h.checksum, zh.checksumFlag), 0;
    }
    if (pr != verdict(zc) || (pr == GS_ZF_OK && f.csize != zc) || (pr != GS_ZF_OK && f.err != ZSTD_getErrorCode(zc)))
        return snprintf(why, cap, "n=%zu parse %d csize %llu err %d, libzstd %zd", n, pr, (unsigned long long)f.csize,
                        (int)f.err, ZSTD_isError(zc) ? -(ssize_t)ZSTD_getErrorCode(zc) : (ssize_t)zc), 0;
    if (pr == GS_ZF_OK) {
        const unsigned long long cs = ZSTD_getFrameContentSize(p, n);
        const uint64_t want = cs == ZSTD_CONTENTSIZE_UNKNOWN ? GS_ZSTD_SIZE_UNKNOWN : cs;
        if (f.content != want || (f.kind == GS_ZK_FRAME && f.checksum && f.xxh != gs_le32(p + zc - 4)))
            return snprintf(why, cap, "n=%zu content %llu, libzstd %llu", n, (unsigned long long)f.content, cs), 0;
    }
    return 1;
}

/* A frame made by hand: a header of the given form with random fields, then 1 to 3 random blocks
 * (now and then a reserved block type) and, with the flag, a random checksum. Returns its length. */
typedef struct form {
    int skippable, single, checksum, reserved, big_window;
    size_t fcs_len, dict_len;
} form;

static size_t craft(unsigned char *buf, form *fm)
{
    memset(fm, 0, sizeof *fm);
    if (rnd() % 8 == 0) { /* skippable: payload length small, or one past what 32 bits can add */
        uint32_t len = rnd() % 64 == 0 ? 0xFFFFFFF8u + (uint32_t)(rnd() % 8) : (uint32_t)(rnd() % 300);
        fm->skippable = 1;
        put_le(buf, GS_ZSTD_SKIP_MAGIC | (uint32_t)(rnd() % 16), 4);
        put_le(buf + 4, len, 4);
        size_t body = len < 300 ? len : rnd() % 300;
        for (size_t i = 0; i < body; i++) buf[8 + i] = (unsigned char)rnd();
        return 8 + body;
    }
    const unsigned fcs_flag = (unsigned)(rnd() % 4), dict_flag = (unsigned)(rnd() % 4);
    fm->single = (int)(rnd() % 2);
    fm->checksum = (int)(rnd() % 2);
    fm->reserved = rnd() % 16 == 0;
    fm->big_window = !fm->single && rnd() % 16 == 0;
    fm->fcs_len = fcs_flag == 0 ? (size_t)fm->single : (size_t)1 << fcs_flag;
    fm->dict_len = dict_flag == 3 ? 4 : dict_flag;
    put_le(buf, GS_ZSTD_MAGIC, 4);
    buf[4] = (unsigned char)(fcs_flag << 6 | (unsigned)fm->single << 5 | (unsigned)(rnd() % 2) << 4 |
                             (unsigned)fm->reserved << 3 | (unsigned)fm->checksum << 2 | dict_flag);
    size_t pos = 5;
    if (!fm->single) /* exponent 0..11 (windows to 4 MiB), or 22..31: over 2^31 */
        buf[pos++] = (unsigned char)((fm->big_window ? 22 + rnd() % 10 : rnd() % 12) << 3 | rnd() % 8);
    for (size_t i = 0; i < fm->dict_len + fm->fcs_len; i++) buf[pos++] = (unsigned char)rnd();
    for (int b = 0, nb = 1 + (int)(rnd() % 3); b < nb; b++) {
        const unsigned type = rnd() % 32 == 0 ? 3 : (unsigned)(rnd() % 3);
        const size_t size = rnd() % 300, body = type == 1 ? 1 : size;
        put_le(buf + pos, (uint32_t)(size << 3 | type << 1 | (b == nb - 1)), 3);
        pos += 3;
        for (size_t i = 0; i < body; i++) buf[pos++] = (unsigned char)rnd();
    }
    if (fm->checksum)
        for (int i = 0; i < 4; i++) buf[pos++] = (unsigned char)rnd();
    return pos;
}

static void test_header_forms(void)
{
    enum { TRIALS = 3000 };
    unsigned char *buf = malloc(4096);
    int bad = 0, seen_fcs[9] = {0}, seen_dict[5] = {0}, seen_single[2] = {0}, seen_ck[2] = {0};
    int skips = 0, refused = 0, whole = 0;
    char why[400] = "";
    for (int t = 0; t < TRIALS && !bad; t++) {
        form fm;
        const size_t len = craft(buf, &fm);
        const size_t tail = rnd() % 16; /* bytes after the frame: the parser stops at its end */
        for (size_t i = 0; i < tail; i++) buf[len + i] = (unsigned char)rnd();
        for (size_t cut = 0; cut <= len + tail && !bad; cut++) {
            unsigned char *p = malloc(cut ? cut : 1); /* exact size: ASan sees any over-read */
            memcpy(p, buf, cut);
            if (!agrees(p, cut, why, sizeof why)) bad = t + 1;
            free(p);
        }
        gs_zfinfo fi;
        const int rc = gs_zframe_parse(buf, len + tail, &fi);
        refused += rc != GS_ZF_OK;
        whole += rc == GS_ZF_OK && fi.csize == len;
        if (fm.skippable) {
            skips++;
            continue;
        }
        seen_fcs[fm.fcs_len]++;
        seen_dict[fm.dict_len]++;
        seen_single[fm.single]++;
        seen_ck[fm.checksum]++;
        if (rc == GS_ZF_OK && fi.dict_id && gs_zframe_check(buf, &fi, NULL) == 0 && !bad) {
            bad = t + 1;
            snprintf(why, sizeof why, "a frame with dictionary %u passed the device check", fi.dict_id);
        }
    }
    CHECK(!bad, "zstd_index hand-made frames of every header form, and every prefix, read as libzstd reads them",
          "trial %d: %s", bad - 1, why);
    int forms = seen_fcs[0] && seen_fcs[1] && seen_fcs[2] && seen_fcs[4] && seen_fcs[8] && seen_dict[0] && seen_dict[1] &&
                seen_dict[2] && seen_dict[4] && seen_single[0] && seen_single[1] && seen_ck[0] && seen_ck[1] && skips;
    CHECK(forms && refused && whole, "zstd_index hand-made frames cover every form, whole and refused",
          "fcs 0:%d 1:%d 2:%d 4:%d 8:%d dict 0:%d 1:%d 2:%d 4:%d single %d/%d checksum %d/%d skippable %d refused %d whole %d",
          seen_fcs[0], seen_fcs[1], seen_fcs[2], seen_fcs[4], seen_fcs[8], seen_dict[0], seen_dict[1], seen_dict[2],
          seen_dict[4], seen_single[0], seen_single[1], seen_ck[0], seen_ck[1], skips, refused, whole);
    free(buf);
}

static void test_frames(void)
{
    static const size_t sizes[] = {0, 1, 7, 255, 256, 300, 4096, 65535, 65536, 65791, 65792, 131073, 1 << 20};
    int bad = 0, count = 0;
    char why[400] = "";
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (int kind = 0; kind < 3; kind++)
            for (int level = 1; level <= 19; level += 9)
                for (int flags = 0; flags < 4; flags++) {
                    int checksum = flags & 1, with_size = flags >> 1;
                    size_t n = sizes[si] + (sizes[si] > 300 ? rnd() % 3 : 0);
                    unsigned char *d = make_data(n, kind), *f = NULL;
                    size_t len = make_frame(d, n, level, checksum, with_size, &f);
                    gs_zfinfo fi;
                    int rc = gs_zframe_parse(f, len, &fi);
                    int ok = len && rc == GS_ZF_OK && agrees(f, len, why, sizeof why) && fi.kind == GS_ZK_FRAME &&
                             fi.checksum == checksum && (!checksum || (fi.xxh == xxh(d, n) && fi.xxh == gs_zstd_checksum(d, n)));
                    /* what libzstd writes with a content size and a checksum is fit for a device */
                    const char *w = "";
                    if (ok && checksum && with_size) ok = gs_zframe_check(f, &fi, &w) == 0;
                    if (ok && !(checksum && with_size)) ok = gs_zframe_check(f, &fi, &w) != 0;
                    count++;
                    if (!ok && !bad++)
                        snprintf(why + strlen(why), sizeof why - strlen(why), " (n=%zu kind=%d level=%d flags=%d: rc=%d %s)",
                                 n, kind, level, flags, rc, w);
                    free(d);
                    free(f);
                }
    CHECK(bad == 0, "zstd_index libzstd's frames (sizes x data x levels x header layouts): as libzstd reads them",
          "%d of %d: %s", bad, count, why);
}

/* A frame that needs a dictionary (a trained one, with its id in the header). */
static void test_dictionary(void)
{
    enum { NS = 400, SL = 64 };
    unsigned char *samples = make_data(NS * SL, 1), dict[4096];
    size_t sizes[NS];
    for (int i = 0; i < NS; i++) sizes[i] = SL;
    size_t dl = ZDICT_trainFromBuffer(dict, sizeof dict, samples, sizes, NS);
    int ok = !ZDICT_isError(dl), agree = 0, refused = 0;
    unsigned id = ok ? ZDICT_getDictID(dict, dl) : 0;
    char why[400] = "";
    if (ok) {
        unsigned char *d = make_data(5000, 1), out[8192];
        ZSTD_CCtx *c = ZSTD_createCCtx();
        ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
        ZSTD_CCtx_loadDictionary(c, dict, dl);
        size_t len = ZSTD_compress2(c, out, sizeof out, d, 5000);
        ZSTD_freeCCtx(c);
        gs_zfinfo fi;
        ok = !ZSTD_isError(len) && gs_zframe_parse(out, len, &fi) == GS_ZF_OK;
        agree = ok && agrees(out, len, why, sizeof why) && fi.dict_id == id && fi.dict_id == ZSTD_getDictID_fromFrame(out, len);
        refused = ok && gs_zframe_check(out, &fi, NULL) != 0;
        free(d);
    }
    CHECK(ok && id && agree && refused, "zstd_index a frame with a trained dictionary: its id, and no device for it",
          "trained=%d id=%u agree=%d refused=%d %s", ok, id, agree, refused, why);
    free(samples);
}

static void test_concat(void)
{
    /* skippable, frame, frame without size, skippable (empty payload), frame */
    unsigned char *buf = malloc(1 << 22);
    size_t len = 0, want_frames = 0, want_skips = 0;
    uint64_t want_content = 0;
    for (int part = 0; part < 5; part++) {
        if (part == 0 || part == 3) {
            uint32_t payload = part == 0 ? (uint32_t)(rnd() % 100) : 0;
            put_le(buf + len, GS_ZSTD_SKIP_MAGIC | (uint32_t)(rnd() % 16), 4);
            put_le(buf + len + 4, payload, 4);
            memset(buf + len + 8, 0xAB, payload);
            len += 8 + payload;
            want_skips++;
        } else {
            size_t n = 100000 * (size_t)part + rnd() % 1000;
            unsigned char *d = make_data(n, 1), *f = NULL;
            size_t fl = make_frame(d, n, 3, 1, part != 2, &f);
            memcpy(buf + len, f, fl);
            len += fl;
            want_frames++;
            want_content += part != 2 ? n : 0;
            free(d);
            free(f);
        }
    }
    size_t pos = 0, frames = 0, skips = 0, unknown = 0;
    uint64_t content = 0;
    int rc = GS_ZF_OK, agree = 1;
    char why[400] = "";
    while (pos < len) {
        gs_zfinfo fi;
        agree = agree && agrees(buf + pos, len - pos, why, sizeof why);
        rc = gs_zframe_parse(buf + pos, len - pos, &fi);
        if (rc) break;
        if (fi.kind == GS_ZK_SKIP) skips++;
        else if (fi.content == GS_ZSTD_SIZE_UNKNOWN) unknown++, frames++;
        else frames++, content += fi.content;
        pos += fi.csize;
    }
    CHECK(agree && rc == GS_ZF_OK && pos == len && frames == want_frames && skips == want_skips && unknown == 1 &&
              content == want_content,
          "zstd_index walks a concatenation with skippable frames", "rc=%d pos=%zu/%zu frames=%zu skips=%zu %s", rc, pos,
          len, frames, skips, why);
    free(buf);
}

static void test_truncation(void)
{
    int bad = 0;
    size_t first = 0;
    char why[400] = "";
    for (int kind = 0; kind < 3; kind++) {
        size_t n = 300000 + rnd() % 1000;
        unsigned char *d = make_data(n, kind), *f = NULL;
        size_t len = make_frame(d, n, 3, 1, 1, &f);
        /* every cut in the header and first blocks, then a spread over the rest and the last bytes */
        for (size_t cut = 0; cut < len; cut += cut < 4096 || cut + 4096 > len ? 1 : 1021) {
            unsigned char *t = malloc(cut ? cut : 1); /* exact size: ASan sees any over-read */
            memcpy(t, f, cut);
            gs_zfinfo fi;
            int rc = gs_zframe_parse(t, cut, &fi);
            if ((rc != GS_ZF_MORE || fi.err != ZSTD_error_srcSize_wrong || !agrees(t, cut, why, sizeof why)) && !bad++)
                first = cut;
            free(t);
        }
        free(d);
        free(f);
    }
    CHECK(bad == 0, "zstd_index every truncation is 'more'", "%d cuts, first at %zu %s", bad, first, why);
}

/* A frame whose header or first block headers are altered: read as libzstd reads it, and passed
 * for a device only where its blocks hold together within the bytes present. */
static void test_flips(void)
{
    int bad = 0, refused = 0, total = 0;
    char why[400] = "";
    for (int kind = 0; kind < 3; kind++) {
        size_t n = 200000 + rnd() % 1000;
        unsigned char *d = make_data(n, kind), *f = NULL;
        size_t len = make_frame(d, n, 3, 1, 1, &f);
        size_t span = len < 64 ? len : 64;
        for (size_t byte = 0; byte < span; byte++)
            for (int bit = 0; bit < 8; bit++) {
                unsigned char *t = malloc(len);
                memcpy(t, f, len);
                t[byte] ^= (unsigned char)(1u << bit);
                gs_zfinfo fi;
                int rc = gs_zframe_parse(t, len, &fi);
                total++;
                int fit = rc == GS_ZF_OK && gs_zframe_check(t, &fi, NULL) == 0;
                if (!fit) refused++;
                if (!agrees(t, len, why, sizeof why) || (fit && fi.csize > len)) {
                    if (!bad++) snprintf(why + strlen(why), sizeof why - strlen(why), " (kind %d byte %zu bit %d)", kind, byte, bit);
                }
                free(t);
            }
        free(d);
        free(f);
    }
    CHECK(bad == 0 && refused > 0, "zstd_index header bit flips: read as libzstd reads them",
          "%d of %d (%d refused for a device): %s", bad, total, refused, why);
}

/* Sizes that lie, bad block headers: libzstd's walk finds the frame, the device check refuses it. */
static void test_lies(void)
{
    size_t n = 500000;
    unsigned char *d = make_data(n, 0), *f = NULL; /* incompressible: raw blocks, exact sizes */
    size_t len = make_frame(d, n, 3, 1, 1, &f);
    gs_zfinfo fi;
    const char *w = NULL;
    int ok0 = gs_zframe_parse(f, len, &fi) == GS_ZF_OK && gs_zframe_check(f, &fi, &w) == 0;
    size_t fcs_at = fi.header - 4; /* a 4-byte content size ends the header here */
    uint32_t orig = gs_le32(f + fcs_at);
    int results[2];
    uint32_t lies[2] = {orig + 1, orig - 1};
    for (int i = 0; i < 2; i++) {
        put_le(f + fcs_at, lies[i], 4);
        results[i] = gs_zframe_parse(f, len, &fi) == GS_ZF_OK && gs_zframe_check(f, &fi, &w) != 0;
    }
    put_le(f + fcs_at, orig, 4);
    CHECK(ok0 && results[0] && results[1], "zstd_index declared content size that lies: no device for it",
          "ok0=%d +1:%d -1:%d", ok0, results[0], results[1]);

    /* a block size that claims more than the frame has, a reserved block type, the reserved header bit */
    gs_zframe_parse(f, len, &fi);
    size_t bh = fi.header;
    unsigned char save = f[bh + 2];
    f[bh + 2] = 0xFF; /* block size far past 128 KiB */
    int big = gs_zframe_parse(f, len, &fi) != GS_ZF_OK || gs_zframe_check(f, &fi, &w) != 0;
    f[bh + 2] = save;
    save = f[bh];
    f[bh] |= 6; /* type 3 */
    int reserved = gs_zframe_parse(f, len, &fi) == GS_ZF_BAD && fi.err == ZSTD_error_corruption_detected;
    f[bh] = save;
    save = f[4];
    f[4] |= 8; /* reserved header bit */
    int rbit = gs_zframe_parse(f, len, &fi) == GS_ZF_BAD && fi.err == ZSTD_error_frameParameter_unsupported;
    f[4] = save;
    CHECK(big && reserved && rbit, "zstd_index block size over the limit, reserved block type, reserved header bit",
          "big=%d reserved=%d rbit=%d", big, reserved, rbit);
    unsigned char junk[16] = "not a zstd file";
    CHECK(gs_zframe_parse(junk, sizeof junk, &fi) == GS_ZF_BAD && fi.err == ZSTD_error_prefix_unknown &&
              !strcmp(gs_zframe_error(&fi), "Unknown frame descriptor"),
          "zstd_index unknown magic, in libzstd's words", "accepted or other words: %s", gs_zframe_error(&fi));
    free(d);
    free(f);
}

static void test_checksum(void)
{
    /* The published value for the empty input, and agreement with libzstd's stored checksums. */
    int ok = gs_zstd_checksum("", 0) == (uint32_t)0xEF46DB3751D8E999ull;
    int agree = 1;
    for (size_t i = 1; i < 140 && agree; i++) {
        size_t n = i < 100 ? i : rnd() % 100000;
        unsigned char *d = make_data(n, 0), *f = NULL;
        size_t len = make_frame(d, n, 1, 1, 1, &f);
        gs_zfinfo fi;
        agree = gs_zframe_parse(f, len, &fi) == GS_ZF_OK && fi.xxh == gs_zstd_checksum(d, n);
        free(d);
        free(f);
    }
    CHECK(ok && agree, "zstd_index checksum (empty input; libzstd's checksums for lengths 1..99 and random ones)",
          "ok=%d agree=%d", ok, agree);
}

static void test_finish(void)
{
    int bad = 0, count = 0;
    char why[200] = "";
    static const size_t sizes[] = {0, 5, 255, 256, 70000, 1 << 20};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (int flags = 0; flags < 4; flags++) {
            size_t n = sizes[si];
            unsigned char *d = make_data(n, 1), *f = NULL;
            size_t len = make_frame(d, n, 3, flags & 1, flags >> 1, &f);
            size_t cap = len + 32;
            unsigned char *o = malloc(cap), *back = malloc(n + 1);
            const char *w = "";
            size_t m = gs_zframe_finish(f, len, n, xxh(d, n), o, cap, &w);
            unsigned long long cs = m ? ZSTD_getFrameContentSize(o, m) : 0;
            size_t r = m ? ZSTD_decompress(back, n + 1, o, m) : 0;
            gs_zfinfo fi;
            int ok = m && cs == n && r == n && !memcmp(back, d, n) && gs_zframe_parse(o, m, &fi) == GS_ZF_OK &&
                     fi.checksum && fi.csize == m;
            /* in place, as the encoder does it */
            memcpy(o, f, len);
            ok = ok && gs_zframe_finish(o, len, n, xxh(d, n), o, cap, &w) == m;
            ok = ok && ZSTD_decompress(back, n + 1, o, m) == n && !memcmp(back, d, n);
            count++;
            if (!ok && !bad++)
                snprintf(why, sizeof why, "n=%zu flags=%d: m=%zu cs=%llu r=%zu %s", n, flags, m, cs, r, w);
            /* a wrong checksum given for a frame without one: libzstd must refuse the result */
            if (!(flags & 1) && n) {
                m = gs_zframe_finish(f, len, n, xxh(d, n) ^ 1, o, cap, &w);
                if (!m || !ZSTD_isError(ZSTD_decompress(back, n + 1, o, m))) {
                    if (!bad++) snprintf(why, sizeof why, "n=%zu: wrong checksum accepted", n);
                }
            }
            /* a content size that is not the frame's */
            if (flags >> 1 && gs_zframe_finish(f, len, n + 1, 0, o, cap, &w) != 0) {
                if (!bad++) snprintf(why, sizeof why, "n=%zu: content size n+1 accepted", n);
            }
            free(o);
            free(back);
            free(d);
            free(f);
        }
    CHECK(bad == 0, "zstd_index finish: content size and checksum added, libzstd decodes and checks them",
          "%d of %d: %s", bad, count, why);
}

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

static void test_codec_path(void)
{
    char dir[] = "/tmp/gs_test_zframes.XXXXXX", path[64], cmd[200];
    if (!mkdtemp(dir)) {
        CHECK(0, "zstd_frames codec path: temp dir", "mkdtemp failed");
        return;
    }
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
    gs_writer *w = NULL;
    int rc = gs_writer_open(&w, path, &wo, &st);
    if (!rc) rc = gs_writer_write(w, v, n, &st);
    if (!rc) rc = gs_writer_close(w, &st);
    else gs_writer_abort(w);
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
        gs_writer *w2 = NULL;
        st = (gs_status){0};
        rc = gs_writer_open(&w2, p2, &wo, &st);
        if (!rc) rc = gs_writer_write(w2, v, n, &st);
        if (!rc) rc = gs_writer_close(w2, &st);
        else gs_writer_abort(w2);
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
            unsigned char sk[12] = {0x50, 0x2A, 0x4D, 0x18, 4, 0, 0, 0, 1, 2, 3, 4};
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

/* Read path in chunks of `chunk` bytes as the engine does: frames where given (decoded here,
 * each checked as the device's caller must), else gs_reader_read until the chunk is full. */
static int read_chunks(const char *path, gs_format fmt, size_t chunk, unsigned char *out, size_t cap, size_t *len,
                       size_t *frames, size_t *bad, gs_status *st)
{
    gs_read_opts ro = {0};
    ro.format = fmt;
    ro.type = GS_I32;
    ro.type_given = 1;
    ro.zframes = 1;
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
    if (!mkdtemp(dir)) {
        CHECK(0, "reader frames: temp dir", "mkdtemp failed");
        return;
    }
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
       * first frame that qualifies, and chunks whose frames cross its end are gathered in parts */
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
       * refused frame comes after that point in its chunk, the frames gathered before it go back
       * into the window and the chunk is read decoded */
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
        CHECK(ok, "reader frames: a refused frame after the window's end gives its chunk back", "%s", why);
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
        gs_writer *w = NULL;
        int rc = gs_writer_open(&w, path, &wo, &st);
        if (!rc) rc = gs_writer_write(w, d, n, &st);
        if (!rc) rc = gs_writer_close(w, &st);
        else gs_writer_abort(w);
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

int main(int argc, char **argv)
{
    rng = argc > 1 ? strtoull(argv[1], NULL, 0) : (uint64_t)time(NULL) << 20 ^ (uint64_t)getpid();
    if (!rng) rng = 1;
    printf("# seed %llu (%s SEED: the same inputs again)\n", (unsigned long long)rng, argv[0]);
    test_header_forms();
    test_frames();
    test_dictionary();
    test_concat();
    test_truncation();
    test_flips();
    test_lies();
    test_checksum();
    test_finish();
    test_codec_path();
    test_reader_frames();
    return CHECK_DONE();
}
