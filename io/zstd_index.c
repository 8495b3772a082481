/* zstd_index.c - zstd frames found and read without decoding them (zstd_index.h): the frame
 * parser, the check before a device decoder, the header rewrite, the content checksum, and the
 * looks at a file's first frames that io.h offers (gs_zstd_first_frame_size,
 * gs_zstd_content_estimate).
 *
 * The parser reads the frame header itself (RFC 8878 3.1.1.1: libzstd's stable API gives neither
 * its length nor its flags nor the window) and leaves the walk over the blocks to libzstd
 * (ZSTD_findFrameCompressedSize), so that a frame's size, and every verdict that a frame is
 * truncated or corrupt, are libzstd's own; where the parser refuses, fi->err holds libzstd's
 * reason, for messages. */
#include "zstd_index.h"
#include "io.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

gs_zkind gs_zstd_kind(uint32_t m)
{
    if (m == GS_ZSTD_MAGIC) return GS_ZK_FRAME;
    if ((m & GS_ZSTD_SKIP_MASK) == GS_ZSTD_SKIP_MAGIC) return GS_ZK_SKIP;
    if (m >= GS_ZSTD_LEGACY_MIN && m <= GS_ZSTD_LEGACY_MAX) return GS_ZK_LEGACY;
    return GS_ZK_NONE;
}

/* The header at [p, p+n) is refused (rc): libzstd's reason, and its verdict, as *fi and the
 * result. The header's checks are libzstd's own, in its order, so libzstd refuses it too; where
 * it says "more bytes" (srcSize_wrong) the result is GS_ZF_MORE, else GS_ZF_BAD. */
static int zf_refuse(const unsigned char *p, size_t n, gs_zfinfo *fi, int rc)
{
    const size_t r = ZSTD_findFrameCompressedSize(p, n);
    if (!ZSTD_isError(r)) {
        fi->err = rc == GS_ZF_MORE ? ZSTD_error_srcSize_wrong : ZSTD_error_corruption_detected;
        return rc;
    }
    fi->err = ZSTD_getErrorCode(r);
    return fi->err == ZSTD_error_srcSize_wrong ? GS_ZF_MORE : GS_ZF_BAD;
}

/* A zstd frame's header (RFC 8878 3.1.1.1), checked in libzstd's order: its length, the reserved
 * bit, the window. */
static int zf_header(const unsigned char *p, size_t n, gs_zfinfo *fi)
{
    if (n < 5) return zf_refuse(p, n, fi, GS_ZF_MORE);
    const unsigned fhd = p[4], fcs_flag = fhd >> 6, dict_flag = fhd & 3;
    fi->single = (fhd >> 5) & 1;
    fi->checksum = (fhd >> 2) & 1;
    const size_t fcs_len = fcs_flag == 0 ? (size_t)fi->single : (size_t)1 << fcs_flag;
    const size_t dict_len = dict_flag == 3 ? 4 : dict_flag;
    size_t pos = 5 + (size_t)!fi->single;
    if (n < pos + dict_len + fcs_len) return zf_refuse(p, n, fi, GS_ZF_MORE);
    if (fhd & 0x08) return zf_refuse(p, n, fi, GS_ZF_BAD);
    if (!fi->single) {
        const unsigned wd = p[5], exponent = wd >> 3;
        if (exponent + 10 > GS_ZSTD_WINDOW_LOG_MAX) return zf_refuse(p, n, fi, GS_ZF_BAD);
        const uint64_t base = (uint64_t)1 << (10 + exponent);
        fi->window = base + (base / 8) * (wd & 7);
    }
    if (dict_len == 1) fi->dict_id = p[pos];
    else if (dict_len == 2) fi->dict_id = p[pos] | (uint32_t)p[pos + 1] << 8;
    else if (dict_len == 4) fi->dict_id = gs_le32(p + pos);
    pos += dict_len;
    if (fcs_len == 1) fi->content = p[pos];
    else if (fcs_len == 2) fi->content = (p[pos] | (uint64_t)p[pos + 1] << 8) + 256;
    else if (fcs_len == 4) fi->content = gs_le32(p + pos);
    else if (fcs_len == 8) fi->content = gs_le32(p + pos) | (uint64_t)gs_le32(p + pos + 4) << 32;
    pos += fcs_len;
    if (fi->single) fi->window = fi->content;
    fi->header = pos;
    return GS_ZF_OK;
}

int gs_zframe_head(const unsigned char *p, size_t n, gs_zfinfo *fi)
{
    memset(fi, 0, sizeof *fi);
    fi->content = GS_ZSTD_SIZE_UNKNOWN;
    if (n < 4) return zf_refuse(p, n, fi, GS_ZF_MORE);
    fi->kind = gs_zstd_kind(gs_le32(p));
    switch (fi->kind) {
    case GS_ZK_FRAME: return zf_header(p, n, fi);
    case GS_ZK_SKIP:
        fi->header = GS_ZSTD_SKIP_HEADER;
        fi->content = 0;
        if (n < GS_ZSTD_SKIP_HEADER) return zf_refuse(p, n, fi, GS_ZF_MORE);
        fi->csize = GS_ZSTD_SKIP_HEADER + (uint64_t)gs_le32(p + 4);
        return GS_ZF_OK;
    case GS_ZK_LEGACY: {
        const unsigned long long cs = ZSTD_getFrameContentSize(p, n);
        if (cs != ZSTD_CONTENTSIZE_ERROR && cs != ZSTD_CONTENTSIZE_UNKNOWN) fi->content = cs;
        return GS_ZF_OK;
    }
    default: return zf_refuse(p, n, fi, GS_ZF_BAD);
    }
}

int gs_zframe_parse(const unsigned char *p, size_t n, gs_zfinfo *fi)
{
    int rc = gs_zframe_head(p, n, fi);
    if (rc) return rc;
    const size_t r = ZSTD_findFrameCompressedSize(p, n);
    if (ZSTD_isError(r)) {
        fi->err = ZSTD_getErrorCode(r);
        return fi->err == ZSTD_error_srcSize_wrong ? GS_ZF_MORE : GS_ZF_BAD;
    }
    fi->csize = r;
    if (fi->kind == GS_ZK_FRAME && fi->checksum) fi->xxh = gs_le32(p + r - GS_ZSTD_CHECKSUM_LEN);
    return GS_ZF_OK;
}

const char *gs_zframe_error(const gs_zfinfo *fi) { return ZSTD_getErrorString(fi->err); }

uint32_t gs_zstd_checksum(const void *p, size_t n) { return (uint32_t)XXH64(p, n, 0); }

/* ---- the check before a device decoder ---------------------------------------------------------- */
static int zf_why(const char **why, const char *msg)
{
    if (why) *why = msg;
    return -1;
}

/* The literals section header at the start of a compressed block of bsize bytes (RFC 8878
 * 3.1.1.3.1.1): sizes within the block and the block limit. *huf: a Huffman table has been seen
 * in this frame (a treeless literals block needs one). */
static int zf_check_literals(const unsigned char *b, size_t bsize, size_t blockmax, int *huf, const char **why)
{
    if (bsize < 1) return zf_why(why, "empty compressed block");
    const unsigned type = b[0] & 3, fmt = (b[0] >> 2) & 3;
    size_t hdr, regen, comp;
    if (type <= 1) { /* raw or RLE literals */
        hdr = fmt == 1 ? 2 : fmt == 3 ? 3 : 1;
        if (hdr > bsize) return zf_why(why, "literals header past the block");
        if (hdr == 1) regen = b[0] >> 3;
        else if (hdr == 2) regen = (b[0] >> 4) + ((size_t)b[1] << 4);
        else regen = (b[0] >> 4) + ((size_t)b[1] << 4) + ((size_t)b[2] << 12);
        comp = type == 0 ? regen : 1;
    } else { /* compressed (2) or treeless (3) */
        hdr = fmt <= 1 ? 3 : fmt == 2 ? 4 : 5;
        if (hdr > bsize) return zf_why(why, "literals header past the block");
        uint64_t v = b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (hdr > 3 ? (uint32_t)b[3] << 24 : 0);
        if (hdr == 5) v |= (uint64_t)b[4] << 32;
        const unsigned bits = hdr == 3 ? 10 : hdr == 4 ? 14 : 18;
        regen = (size_t)((v >> 4) & ((1u << bits) - 1));
        comp = (size_t)((v >> (4 + bits)) & ((1u << bits) - 1));
        if (fmt != 0 && comp < 10) return zf_why(why, "four literal streams without room for their jump table");
        if (type == 2) *huf = 1;
        else if (!*huf) return zf_why(why, "treeless literals before any Huffman table");
    }
    if (regen > blockmax) return zf_why(why, "literals larger than a block");
    if (comp > bsize - hdr) return zf_why(why, "literals past the end of their block");
    return 0;
}

/* The blocks of the whole frame at p (RFC 8878 3.1.1.2): types, sizes against the block limit
 * and the window, the declared content size against what they can hold, the literals-section
 * header of compressed blocks, and their end where the frame's checksum (or end) begins. */
static int zf_check_blocks(const unsigned char *p, const gs_zfinfo *fi, const char **why)
{
    const size_t tail = fi->checksum ? GS_ZSTD_CHECKSUM_LEN : 0;
    if (fi->csize < fi->header + tail) return zf_why(why, "frame shorter than its header");
    const size_t end = (size_t)fi->csize - tail;
    const size_t blockmax = fi->window < GS_ZSTD_BLOCK_MAX ? (size_t)fi->window : GS_ZSTD_BLOCK_MAX;
    size_t pos = fi->header;
    uint64_t exact = 0, most = 0; /* exact decoded sizes of raw and RLE blocks; at most blockmax a compressed one */
    int huf = 0;
    for (;;) {
        if (end - pos < GS_ZSTD_BLOCK_HEADER) return zf_why(why, "block header past the frame");
        const uint32_t bh = p[pos] | (uint32_t)p[pos + 1] << 8 | (uint32_t)p[pos + 2] << 16;
        const unsigned last = bh & 1, type = (bh >> 1) & 3;
        const size_t bsize = bh >> 3, body = type == 1 ? 1 : bsize;
        pos += GS_ZSTD_BLOCK_HEADER;
        if (type == 3) return zf_why(why, "reserved block type");
        if (bsize > blockmax) return zf_why(why, "block larger than the frame allows");
        if (end - pos < body) return zf_why(why, "block past the frame");
        if (type == 2) {
            if (zf_check_literals(p + pos, bsize, blockmax, &huf, why)) return -1;
            most += blockmax;
        } else {
            exact += bsize;
        }
        pos += body;
        if (fi->content != GS_ZSTD_SIZE_UNKNOWN && exact > fi->content)
            return zf_why(why, "blocks hold more than the declared content size");
        if (last) break;
    }
    if (pos != end) return zf_why(why, "blocks end before the frame does");
    if (fi->content != GS_ZSTD_SIZE_UNKNOWN && exact + most < fi->content)
        return zf_why(why, "blocks hold less than the declared content size");
    return 0;
}

int gs_zframe_check(const unsigned char *p, const gs_zfinfo *fi, const char **why)
{
    if (fi->kind != GS_ZK_FRAME) return zf_why(why, "not a zstd frame");
    if (fi->content == GS_ZSTD_SIZE_UNKNOWN) return zf_why(why, "frame without a content size");
    if (!fi->checksum) return zf_why(why, "frame without a checksum");
    if (fi->dict_id) return zf_why(why, "frame uses a dictionary");
    return zf_check_blocks(p, fi, why);
}

/* ---- header rewrite ------------------------------------------------------------------------- */
static void zf_put_le(unsigned char *p, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(v >> (8 * i));
}

int gs_zframe_for_device(const unsigned char *p, size_t csize, size_t dsize, gs_zfinfo *fi)
{
    return gs_zframe_parse(p, csize, fi) == GS_ZF_OK && fi->csize == csize && fi->content == dsize &&
           gs_zframe_check(p, fi, NULL) == 0;
}

size_t gs_zframe_finish(const unsigned char *in, size_t n, uint64_t content, uint32_t xxh, unsigned char *out,
                        size_t cap, const char **why)
{
    gs_zfinfo fi;
    const int rc = gs_zframe_parse(in, n, &fi);
    if (rc == GS_ZF_MORE) return zf_why(why, "frame cut short"), 0;
    if (rc) return zf_why(why, gs_zframe_error(&fi)), 0;
    if (fi.kind != GS_ZK_FRAME || fi.csize != n) return zf_why(why, "not exactly one frame"), 0;
    if (fi.dict_id) return zf_why(why, "frame uses a dictionary"), 0;
    if (fi.content != GS_ZSTD_SIZE_UNKNOWN && fi.content != content)
        return zf_why(why, "frame content size differs from its input"), 0;
    if (zf_check_blocks(in, &fi, why)) return 0;
    /* A single-segment frame has its window from the content size: keep its layout. Otherwise
     * keep the window descriptor and add a 4- or 8-byte content size. */
    size_t fcs_len;
    unsigned fcs_flag;
    if (fi.single && fi.content != GS_ZSTD_SIZE_UNKNOWN) {
        fcs_flag = in[4] >> 6;
        fcs_len = fcs_flag == 0 ? 1 : (size_t)1 << fcs_flag;
    } else if (fi.single) {
        return zf_why(why, "single-segment frame without a content size"), 0;
    } else {
        fcs_flag = content <= 0xFFFFFFFFu ? 2 : 3;
        fcs_len = (size_t)1 << fcs_flag;
    }
    const size_t hdr = 5 + (fi.single ? 0 : 1) + fcs_len;
    const size_t blocks = fi.csize - fi.header - (fi.checksum ? GS_ZSTD_CHECKSUM_LEN : 0);
    const size_t len = hdr + blocks + GS_ZSTD_CHECKSUM_LEN;
    if (len > cap) return zf_why(why, "no room for the rewritten frame"), 0;
    unsigned char h[GS_ZSTD_HEADER_MAX];
    zf_put_le(h, GS_ZSTD_MAGIC, 4);
    h[4] = (unsigned char)(fcs_flag << 6 | (unsigned)fi.single << 5 | 1u << 2);
    size_t pos = 5;
    if (!fi.single) h[pos++] = in[5];
    if (fcs_len == 1) h[pos] = (unsigned char)content;
    else if (fcs_len == 2) zf_put_le(h + pos, content - 256, 2);
    else zf_put_le(h + pos, content, fcs_len);
    memmove(out + hdr, in + fi.header, blocks); /* in and out may be the same buffer */
    memcpy(out, h, hdr);
    zf_put_le(out + hdr + blocks, fi.checksum ? fi.xxh : xxh, GS_ZSTD_CHECKSUM_LEN);
    return len;
}

/* ---- a file's first frames ------------------------------------------------------------------------ */
/* A regular file, open for reading, and its size; -1 for anything else: a pipe, FIFO or terminal
 * named as IN would lose to this look the bytes it read (or block it), and the reader must be the
 * only one to read them. */
static int zf_open_regular(const char *path, uint64_t *size)
{
    struct stat sb;
    if (!path || stat(path, &sb) || !S_ISREG(sb.st_mode)) return -1;
    *size = (uint64_t)sb.st_size;
    return open(path, O_RDONLY | O_CLOEXEC);
}

uint64_t gs_zstd_first_frame_size(const char *path)
{
    uint64_t size = 0, off = 0, content = GS_ZSTD_SIZE_UNKNOWN;
    const int fd = zf_open_regular(path, &size);
    unsigned char h[GS_ZSTD_HEADER_MAX];
    for (int skips = 0; fd >= 0 && skips < 16; skips++) {
        const ssize_t n = pread(fd, h, sizeof h, (off_t)off);
        gs_zfinfo fi;
        const int rc = gs_zframe_head(h, n > 0 ? (size_t)n : 0, &fi);
        if (rc == GS_ZF_OK && fi.kind == GS_ZK_SKIP) {
            off += fi.csize;
            continue;
        }
        if (rc == GS_ZF_OK && fi.kind == GS_ZK_FRAME) content = fi.content;
        break;
    }
    if (fd >= 0) close(fd);
    return content;
}

uint64_t gs_zstd_content_estimate(const char *path)
{
    uint64_t size = 0;
    const int fd = zf_open_regular(path, &size);
    unsigned char *buf = fd >= 0 ? malloc(GS_ZSTD_ESTIMATE_READ) : NULL;
    size_t got = 0;
    while (buf && got < GS_ZSTD_ESTIMATE_READ) {
        const ssize_t r = pread(fd, buf + got, GS_ZSTD_ESTIMATE_READ - got, (off_t)got);
        if (r <= 0) break;
        got += (size_t)r;
    }
    if (fd >= 0) close(fd);
    uint64_t content = 0, comp = 0;
    int ok = buf != NULL;
    for (size_t at = 0; ok && at < got;) {
        gs_zfinfo fi;
        if (gs_zframe_parse(buf + at, got - at, &fi) != GS_ZF_OK) break; /* it goes on past what was read */
        if (fi.content == GS_ZSTD_SIZE_UNKNOWN) ok = 0;
        else content += fi.content;
        at += fi.csize;
        comp += fi.csize;
    }
    free(buf);
    if (!ok || !comp) return 0;
    if (comp >= size) return content;
    return (uint64_t)((double)content / (double)comp * (double)size);
}
