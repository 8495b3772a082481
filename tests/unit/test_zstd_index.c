/* test_zstd_index.c - the zstd frame index (io/zstd_index.c) against libzstd's own reading of the
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
 *   - the header rewrite: frames libzstd decodes with their content size and checksum. */
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_getFrameHeader: the reference for every header field */
#include "check.h"
#include "zstd_test.h"
#include "../../common/gs.h"
#include "../../io/zstd_index.h"

#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <zdict.h>

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
    return CHECK_DONE();
}
