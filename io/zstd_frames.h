/* zstd_frames.h - zstd frame headers on the host: parse and check a frame's structure without
 * decoding it, XXH64 (the frame content checksum), and the header rewrite that gives a frame its
 * content size and checksum. Pure C, no libzstd: what a device decoder is given is checked here
 * first (RFC 8878), so a frame that is not plainly well formed never reaches it. */
#ifndef GS_ZSTD_FRAMES_H
#define GS_ZSTD_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GS_ZF_MAGIC 0xFD2FB528u
#define GS_ZF_SKIP_MAGIC 0x184D2A50u /* the low 4 bits are free */
#define GS_ZF_SKIP_MASK 0xFFFFFFF0u
#define GS_ZF_BLOCK_MAX ((size_t)128 << 10) /* the largest block, compressed or not */
#define GS_ZF_UNKNOWN UINT64_MAX            /* no content size in the header */

typedef struct gs_zfinfo {
    int skippable;     /* a skippable frame: only csize is set */
    uint64_t csize;    /* bytes of the whole frame: header, blocks, checksum */
    uint64_t content;  /* decompressed bytes, GS_ZF_UNKNOWN if the header does not say */
    size_t header;     /* header bytes (magic included) */
    int checksum;      /* the frame ends with the low 32 bits of XXH64 of its content */
    uint32_t xxh;      /* that stored value */
    uint32_t dict_id;  /* 0 = none */
    uint64_t window;   /* window size the frame needs */
    size_t blocks;     /* blocks in the frame */
} gs_zfinfo;

enum { GS_ZF_OK = 0, GS_ZF_MORE = 1, GS_ZF_BAD = -1 };

/* Parse and check the frame at [p, p+n). Walks every block header: types, sizes against the
 * block limit and the window, the declared content size against what the blocks can hold, and
 * the literals-section header of compressed blocks. GS_ZF_OK: *fi filled. GS_ZF_MORE: the frame
 * continues past n (truncated if the input ends there). GS_ZF_BAD: *why says what is wrong. */
int gs_zframe_parse(const unsigned char *p, size_t n, gs_zfinfo *fi, const char **why);

/* XXH64 of [p, p+n) with the given seed (zstd uses seed 0 and keeps the low 32 bits). */
uint64_t gs_xxh64(const void *p, size_t n, uint64_t seed);

/* Rewrite the single frame [in, in+n) into out (cap bytes) with a content-size field of
 * `content` bytes and, unless it has one, a checksum `xxh` (low 32 bits of XXH64 of the content).
 * The blocks are copied unchanged. Returns the new length, or 0 with *why if the input is not
 * one well-formed frame of that content size without a dictionary, or out is too small. */
size_t gs_zframe_finish(const unsigned char *in, size_t n, uint64_t content, uint32_t xxh, unsigned char *out,
                        size_t cap, const char **why);

#ifdef __cplusplus
}
#endif
#endif
