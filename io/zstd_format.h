/* zstd_format.h - every zstd number gpustream uses, once: the format's own (RFC 8878: magics,
 * header and block limits), what gpustream writes when not told otherwise (level, frame size), and
 * the sizes io/'s zstd source and sink work in. Plain macros; io.h includes this header, so the
 * CLI and the device codec read the same values. */
#ifndef GS_ZSTD_FORMAT_H
#define GS_ZSTD_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* ---- the format (RFC 8878) ------------------------------------------------------------------- */
#define GS_ZSTD_MAGIC 0xFD2FB528u       /* a zstd frame */
#define GS_ZSTD_SKIP_MAGIC 0x184D2A50u  /* a skippable frame; the low 4 bits are free */
#define GS_ZSTD_SKIP_MASK 0xFFFFFFF0u   /* magic & mask == GS_ZSTD_SKIP_MAGIC: skippable */
#define GS_ZSTD_SKIP_HEADER 8           /* a skippable frame's magic and 4-byte payload length */
/* Frames of zstd v0.5 to v0.7, which libzstd's legacy support decodes (streamed, never indexed). */
#define GS_ZSTD_LEGACY_MIN 0xFD2FB525u
#define GS_ZSTD_LEGACY_MAX 0xFD2FB527u
/* magic & GS_ZSTD_SKIP_MASK == this: a frame of some zstd format since v0.1 (for messages). */
#define GS_ZSTD_ANY_MAGIC 0xFD2FB520u
#define GS_ZSTD_HEADER_MAX 18                   /* the longest frame header (zstd.h's is static-only) */
#define GS_ZSTD_BLOCK_HEADER 3
#define GS_ZSTD_BLOCK_MAX ((size_t)128 << 10)  /* the largest block, compressed or not */
#define GS_ZSTD_CHECKSUM_LEN 4                  /* the low 32 bits of XXH64 (seed 0) of the content */
#define GS_ZSTD_SIZE_UNKNOWN UINT64_MAX         /* a content size the header does not give */

/* ---- what gpustream writes and reads ------------------------------------------------------------ */
#define GS_ZSTD_LEVEL_DEFAULT 3                      /* zstd's own default level */
#define GS_ZSTD_FRAME_DEFAULT ((size_t)16 << 20)    /* input bytes per independent frame */
#define GS_ZSTD_FRAME_MAX ((size_t)1 << 30)         /* the largest --frame-size */
/* Windows up to 2 GiB (frames written with zstd --long=31) are decoded; that much memory is the
 * stated limit for one streamed frame. */
#define GS_ZSTD_WINDOW_LOG_MAX 31

/* ---- the sizes io/'s zstd source and sink work in ------------------------------------------------ */
#define GS_ZSTD_BATCH_MAX ((size_t)256 << 20)   /* decoded bytes a batch holds (and encoder input) */
#define GS_ZSTD_BATCH_FRAME_MAX GS_ZSTD_BATCH_MAX /* a frame larger than a batch is streamed */
/* With a device codec, a batch gathers at least this many decoded bytes, and an encoder's batch
 * holds this many bytes of input, so the device gets thousands of frames at once (many of the
 * engine's chunks): nvCOMP gives each frame a few threads. Batches of 16 frames (the libzstd
 * batch) compressed at 0.09 GB/s; bench --zstd on an H100 (256K frames, nvCOMP 6.0.0): 1.5 GB/s
 * compressing and 8.2 GB/s decoding with 64 MiB a batch, 5.9 and 30.6 GB/s with 256 MiB. */
#define GS_ZSTD_DEV_BATCH GS_ZSTD_BATCH_MAX
#define GS_ZSTD_ENC_FRAMES 16                    /* the most frames libzstd compresses at once (one a thread), and its contexts */
#define GS_ZSTD_SLOT_START ((size_t)256 << 10)  /* a decoded-ahead slot's first size */
/* The compressed read-ahead window holds a batch: a default frame of incompressible data per
 * worker (and its headers), so each worker gets a frame whatever the ratio. */
#define GS_ZSTD_WIN_MIN GS_ZSTD_FRAME_DEFAULT
#define GS_ZSTD_WIN_PER_THREAD (GS_ZSTD_FRAME_DEFAULT + ((size_t)1 << 20))
#define GS_ZSTD_WIN_MAX ((size_t)512 << 20)
/* From a pipe the window starts this small and doubles each time the input fills it, up to the
 * size above: a short stream costs no 16 MiB window. */
#define GS_ZSTD_WIN_START ((size_t)64 << 10)
#define GS_ZSTD_FRAMES_READ ((size_t)16 << 20) /* the most one read takes while frames are handed out */
#define GS_ZSTD_COPY_PIECE ((size_t)4 << 20)   /* parallel copy-out granularity */
/* The first 8 MiB of a file are what gs_zstd_content_estimate reads of its frames. */
#define GS_ZSTD_ESTIMATE_READ ((size_t)8 << 20)

#endif
