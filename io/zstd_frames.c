/* zstd_frames.c - zstd frame structure on the host (RFC 8878 sections 3.1.1-3.1.2): parse and
 * check a frame without decoding it, XXH64, and the header rewrite. See zstd_frames.h.
 *
 * The check is deliberately stricter than a decoder needs to be: it exists so that a device
 * decoder, which trusts its input, only ever sees frames whose every block header, every size
 * and every literals-section header is consistent with the bytes actually present. A frame that
 * fails here is not necessarily corrupt; the caller gives it to libzstd, which decides. */
#include "zstd_frames.h"

#include <string.h>

static uint32_t zf_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t zf_le64(const unsigned char *p) { return zf_le32(p) | (uint64_t)zf_le32(p + 4) << 32; }

static void zf_put_le(unsigned char *p, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static int zf_bad(const char **why, const char *msg)
{
    if (why) *why = msg;
    return GS_ZF_BAD;
}

/* The literals section header at the start of a compressed block of bsize bytes (RFC 8878
 * 3.1.1.3.1.1): sizes within the block and the block limit. *huf: a Huffman table has been seen
 * in this frame (a treeless literals block needs one). */
static int zf_check_literals(const unsigned char *b, size_t bsize, size_t blockmax, int *huf, const char **why)
{
    if (bsize < 1) return zf_bad(why, "empty compressed block");
    unsigned type = b[0] & 3, fmt = (b[0] >> 2) & 3;
    size_t hdr, regen, comp;
    if (type <= 1) { /* raw or RLE literals */
        if (fmt == 0 || fmt == 2) hdr = 1, regen = b[0] >> 3;
        else if (fmt == 1) hdr = 2, regen = (b[0] >> 4) + ((size_t)b[1] << 4);
        else hdr = 3, regen = (b[0] >> 4) + ((size_t)b[1] << 4) + ((size_t)b[2] << 12);
        if (hdr > bsize) return zf_bad(why, "literals header past the block");
        comp = type == 0 ? regen : 1;
    } else { /* compressed (2) or treeless (3) */
        hdr = fmt <= 1 ? 3 : fmt == 2 ? 4 : 5;
        if (hdr > bsize) return zf_bad(why, "literals header past the block");
        uint64_t v = zf_le32(b) & 0xFFFFFFFFu;
        if (hdr == 5) v |= (uint64_t)b[4] << 32;
        unsigned bits = hdr == 3 ? 10 : hdr == 4 ? 14 : 18;
        regen = (size_t)((v >> 4) & ((1u << bits) - 1));
        comp = (size_t)((v >> (4 + bits)) & ((1u << bits) - 1));
        if (fmt != 0 && comp < 10) return zf_bad(why, "four literal streams without room for their jump table");
        if (type == 2) *huf = 1;
        else if (!*huf) return zf_bad(why, "treeless literals before any Huffman table");
    }
    if (regen > blockmax) return zf_bad(why, "literals larger than a block");
    if (comp > bsize - hdr) return zf_bad(why, "literals past the end of their block");
    return GS_ZF_OK;
}

int gs_zframe_parse(const unsigned char *p, size_t n, gs_zfinfo *fi, const char **why)
{
    memset(fi, 0, sizeof *fi);
    fi->content = GS_ZF_UNKNOWN;
    if (n < 4) return GS_ZF_MORE;
    uint32_t magic = zf_le32(p);
    if ((magic & GS_ZF_SKIP_MASK) == GS_ZF_SKIP_MAGIC) {
        if (n < 8) return GS_ZF_MORE;
        fi->skippable = 1;
        fi->header = 8;
        fi->csize = 8 + (uint64_t)zf_le32(p + 4);
        return fi->csize <= n ? GS_ZF_OK : GS_ZF_MORE;
    }
    if (magic != GS_ZF_MAGIC) return zf_bad(why, "unknown frame magic");
    if (n < 5) return GS_ZF_MORE;
    unsigned fhd = p[4];
    unsigned fcs_flag = fhd >> 6, single = (fhd >> 5) & 1, dict_flag = fhd & 3;
    if (fhd & 0x08) return zf_bad(why, "reserved bit set in the frame header");
    size_t fcs_len = fcs_flag == 0 ? single : (size_t)1 << fcs_flag;
    size_t dict_len = dict_flag == 3 ? 4 : dict_flag;
    size_t pos = 5;
    uint64_t window = 0;
    if (!single) {
        if (n < pos + 1) return GS_ZF_MORE;
        unsigned wd = p[pos++], exponent = wd >> 3, mantissa = wd & 7;
        if (exponent > 31 - 10) return zf_bad(why, "window larger than 2 GiB");
        uint64_t base = (uint64_t)1 << (10 + exponent);
        window = base + (base / 8) * mantissa;
    }
    if (n < pos + dict_len + fcs_len) return GS_ZF_MORE;
    if (dict_len == 1) fi->dict_id = p[pos];
    else if (dict_len == 2) fi->dict_id = p[pos] | (uint32_t)p[pos + 1] << 8;
    else if (dict_len == 4) fi->dict_id = zf_le32(p + pos);
    pos += dict_len;
    if (fcs_len == 1) fi->content = p[pos];
    else if (fcs_len == 2) fi->content = (p[pos] | (uint64_t)p[pos + 1] << 8) + 256;
    else if (fcs_len == 4) fi->content = zf_le32(p + pos);
    else if (fcs_len == 8) fi->content = zf_le64(p + pos);
    pos += fcs_len;
    if (single) window = fi->content;
    fi->header = pos;
    fi->window = window;
    fi->checksum = (fhd >> 2) & 1;
    size_t blockmax = window < GS_ZF_BLOCK_MAX ? (size_t)window : GS_ZF_BLOCK_MAX;

    /* Blocks: exact decoded sizes of raw and RLE blocks, at most blockmax for compressed ones. */
    uint64_t exact = 0, most = 0;
    int huf = 0;
    for (;;) {
        if (n < pos + 3) return GS_ZF_MORE;
        uint32_t bh = p[pos] | (uint32_t)p[pos + 1] << 8 | (uint32_t)p[pos + 2] << 16;
        unsigned last = bh & 1, type = (bh >> 1) & 3;
        size_t bsize = bh >> 3;
        pos += 3;
        fi->blocks++;
        if (type == 3) return zf_bad(why, "reserved block type");
        if (bsize > blockmax) return zf_bad(why, "block larger than the frame allows");
        size_t body = type == 1 ? 1 : bsize;
        if (n - pos < body) return GS_ZF_MORE;
        if (type == 2) {
            int rc = zf_check_literals(p + pos, bsize, blockmax, &huf, why);
            if (rc) return rc;
            most += blockmax;
        } else {
            exact += bsize;
        }
        pos += body;
        if (fi->content != GS_ZF_UNKNOWN && exact > fi->content)
            return zf_bad(why, "blocks hold more than the declared content size");
        if (last) break;
    }
    if (fi->content != GS_ZF_UNKNOWN && exact + most < fi->content)
        return zf_bad(why, "blocks hold less than the declared content size");
    if (fi->checksum) {
        if (n - pos < 4) return GS_ZF_MORE;
        fi->xxh = zf_le32(p + pos);
        pos += 4;
    }
    fi->csize = pos;
    return GS_ZF_OK;
}

/* ---- XXH64 (the reference algorithm, xxhash.h) ----------------------------------------------- */
#define XXP1 0x9E3779B185EBCA87ull
#define XXP2 0xC2B2AE3D27D4EB4Full
#define XXP3 0x165667B19E3779F9ull
#define XXP4 0x85EBCA77C2B2AE63ull
#define XXP5 0x27D4EB2F165667C5ull

static uint64_t xx_rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static uint64_t xx_round(uint64_t acc, uint64_t in)
{
    acc += in * XXP2;
    acc = xx_rotl(acc, 31);
    return acc * XXP1;
}

static uint64_t xx_merge(uint64_t acc, uint64_t v)
{
    acc ^= xx_round(0, v);
    return acc * XXP1 + XXP4;
}

uint64_t gs_xxh64(const void *data, size_t n, uint64_t seed)
{
    const unsigned char *p = data, *end = p + n;
    uint64_t h;
    if (n >= 32) {
        uint64_t v1 = seed + XXP1 + XXP2, v2 = seed + XXP2, v3 = seed, v4 = seed - XXP1;
        const unsigned char *limit = end - 32;
        do {
            v1 = xx_round(v1, zf_le64(p));
            v2 = xx_round(v2, zf_le64(p + 8));
            v3 = xx_round(v3, zf_le64(p + 16));
            v4 = xx_round(v4, zf_le64(p + 24));
            p += 32;
        } while (p <= limit);
        h = xx_rotl(v1, 1) + xx_rotl(v2, 7) + xx_rotl(v3, 12) + xx_rotl(v4, 18);
        h = xx_merge(h, v1);
        h = xx_merge(h, v2);
        h = xx_merge(h, v3);
        h = xx_merge(h, v4);
    } else {
        h = seed + XXP5;
    }
    h += (uint64_t)n;
    for (; end - p >= 8; p += 8) {
        h ^= xx_round(0, zf_le64(p));
        h = xx_rotl(h, 27) * XXP1 + XXP4;
    }
    if (end - p >= 4) {
        h ^= (uint64_t)zf_le32(p) * XXP1;
        h = xx_rotl(h, 23) * XXP2 + XXP3;
        p += 4;
    }
    for (; p < end; p++) {
        h ^= *p * XXP5;
        h = xx_rotl(h, 11) * XXP1;
    }
    h ^= h >> 33;
    h *= XXP2;
    h ^= h >> 29;
    h *= XXP3;
    h ^= h >> 32;
    return h;
}

/* ---- header rewrite ------------------------------------------------------------------------- */
size_t gs_zframe_finish(const unsigned char *in, size_t n, uint64_t content, uint32_t xxh, unsigned char *out,
                        size_t cap, const char **why)
{
    gs_zfinfo fi;
    int rc = gs_zframe_parse(in, n, &fi, why);
    if (rc == GS_ZF_MORE) rc = zf_bad(why, "frame cut short");
    if (rc) return 0;
    if (fi.skippable || fi.csize != n) return zf_bad(why, "not exactly one frame"), 0;
    if (fi.dict_id) return zf_bad(why, "frame uses a dictionary"), 0;
    if (fi.content != GS_ZF_UNKNOWN && fi.content != content)
        return zf_bad(why, "frame content size differs from its input"), 0;
    unsigned fhd = in[4];
    int single = (fhd >> 5) & 1;
    /* A single-segment frame has its window from the content size: keep its layout. Otherwise
     * keep the window descriptor and add a 4- or 8-byte content size. */
    size_t fcs_len;
    unsigned fcs_flag;
    if (single && fi.content != GS_ZF_UNKNOWN) {
        fcs_flag = fhd >> 6;
        fcs_len = fcs_flag == 0 ? 1 : (size_t)1 << fcs_flag;
    } else if (single) {
        return zf_bad(why, "single-segment frame without a content size"), 0;
    } else {
        fcs_flag = content <= 0xFFFFFFFFu ? 2 : 3;
        fcs_len = (size_t)1 << fcs_flag;
    }
    size_t hdr = 5 + (single ? 0 : 1) + fcs_len;
    size_t blocks = fi.csize - fi.header - (fi.checksum ? 4 : 0);
    size_t len = hdr + blocks + 4;
    if (len > cap) return zf_bad(why, "no room for the rewritten frame"), 0;
    unsigned char h[18];
    zf_put_le(h, GS_ZF_MAGIC, 4);
    h[4] = (unsigned char)(fcs_flag << 6 | (unsigned)single << 5 | 1u << 2);
    size_t pos = 5;
    if (!single) h[pos++] = in[5];
    if (fcs_len == 1) h[pos] = (unsigned char)content;
    else if (fcs_len == 2) zf_put_le(h + pos, content - 256, 2);
    else zf_put_le(h + pos, content, fcs_len);
    memmove(out + hdr, in + fi.header, blocks); /* in and out may be the same buffer */
    memcpy(out, h, hdr);
    zf_put_le(out + hdr + blocks, fi.checksum ? fi.xxh : xxh, 4);
    return len;
}
