/* zstd_index.h - zstd frames found and read without decoding them, for io/ and its tests: the one
 * frame parser every walk over zstd framing uses (detection, the decoding source, the frames a
 * device is given, the MPI layout, the looks at a file's first frames), the deeper check a frame
 * passes before a device decoder gets it, the header rewrite that gives a device encoder's frame
 * its content size and checksum, and the content checksum (XXH64 from libxxhash). */
#ifndef GS_ZSTD_INDEX_H
#define GS_ZSTD_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include <zstd_errors.h>

#include "zstd_format.h"

enum { GS_ZF_OK = 0, GS_ZF_MORE = 1, GS_ZF_BAD = -1 };

/* What a frame's magic says it is. */
typedef enum gs_zkind { GS_ZK_NONE = 0, GS_ZK_FRAME, GS_ZK_SKIP, GS_ZK_LEGACY } gs_zkind;

typedef struct gs_zfinfo {
    gs_zkind kind;     /* set whenever 4 bytes were there, whatever the result */
    uint64_t csize;    /* bytes of the whole frame (header, blocks, checksum); a skippable frame's
                        * as soon as its 8-byte header is there, another's only from gs_zframe_parse */
    uint64_t content;  /* decoded bytes (0 for a skippable frame), GS_ZSTD_SIZE_UNKNOWN if not given */
    size_t header;     /* header bytes, magic included (zstd frames) */
    int single;        /* single-segment: the window is the content size */
    int checksum;      /* the frame ends with a checksum */
    uint32_t xxh;      /* that checksum (gs_zframe_parse) */
    uint32_t dict_id;  /* 0: none */
    uint64_t window;   /* the window the frame needs */
    ZSTD_ErrorCode err; /* GS_ZF_MORE or GS_ZF_BAD: libzstd's verdict on these bytes */
} gs_zfinfo;

/* The kind of frame a magic number starts. */
gs_zkind gs_zstd_kind(uint32_t magic);

/* The header of the frame at [p, p+n), without its blocks: kind, header fields, content size
 * (libzstd's reading of a legacy frame's), and a skippable frame's size. GS_ZF_MORE: the header
 * goes on past n; GS_ZF_BAD: libzstd reads no frame header there (unknown magic, the reserved bit,
 * a window over 2^GS_ZSTD_WINDOW_LOG_MAX). Either way fi->err is libzstd's reason. */
int gs_zframe_head(const unsigned char *p, size_t n, gs_zfinfo *fi);

/* The header, and the size of the whole frame from libzstd's walk over its blocks
 * (ZSTD_findFrameCompressedSize), and its stored checksum: the verdict is libzstd's. GS_ZF_MORE:
 * the frame goes on past n (truncated, where the input ends there); GS_ZF_BAD: corrupt. */
int gs_zframe_parse(const unsigned char *p, size_t n, gs_zfinfo *fi);

/* libzstd's words for fi->err ("Unknown frame descriptor", ...). */
const char *gs_zframe_error(const gs_zfinfo *fi);

/* Is the frame at p, parsed whole into fi, one a device decoder may be given? A zstd frame with a
 * content size and a checksum, no dictionary, whose every block header, size and literals-section
 * header agrees with its header and with the bytes present (RFC 8878 3.1.1.2-3.1.1.3.1.1). A
 * device decoder trusts its input: a frame that is not plainly well formed goes to libzstd, which
 * judges it. 0 if it may; else -1 and *why (if why) says why not. */
int gs_zframe_check(const unsigned char *p, const gs_zfinfo *fi, const char **why);

/* Is [p, p+csize) one whole frame of dsize decoded bytes that gs_zframe_check lets a device
 * decoder take? Its header read into *fi. */
int gs_zframe_for_device(const unsigned char *p, size_t csize, size_t dsize, gs_zfinfo *fi);

/* Rewrite the single frame [in, in+n) into out (cap bytes) with a content-size field of
 * `content` bytes and, unless it has one, the checksum `xxh`. The blocks are copied unchanged (in
 * and out may be the same buffer). Returns the new length, or 0 with *why if the input is not one
 * well-formed frame of that content size without a dictionary, or out is too small. */
size_t gs_zframe_finish(const unsigned char *in, size_t n, uint64_t content, uint32_t xxh, unsigned char *out,
                        size_t cap, const char **why);

/* The zstd content checksum of [p, p+n): the low 32 bits of XXH64 with seed 0. */
uint32_t gs_zstd_checksum(const void *p, size_t n);

#endif
