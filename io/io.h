/* io.h - reading and writing arrays of numbers: raw, npy, csv and text, optionally zstd-
 * compressed, from files or stdin, to files (atomically: temp name + rename) or stdout.
 * A reader yields elements of one type; a writer takes elements (or (min,max) pairs).
 * Never includes CUDA headers; never prints; every failure is a gs_status. */
#ifndef GS_IO_H
#define GS_IO_H

#include <stdio.h>
#include "../common/gs.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gs_format { GS_FMT_AUTO = 0, GS_FMT_RAW, GS_FMT_NPY, GS_FMT_CSV, GS_FMT_TEXT } gs_format;

const char *gs_format_name(gs_format f);
int gs_format_parse(const char *s, gs_format *f); /* raw, npy, csv, text (txt) */
/* Format implied by a file name's extension, after stripping one ".zst"; GS_FMT_AUTO if none.
 * *zst set to 1 when the name ends in .zst. */
gs_format gs_format_from_name(const char *path, int *zst);

/* A zstd codec for whole frames in batches (the device codec, pipeline/gpu_codec.cu); readers and
 * writers use libzstd on the thread pool when none is given. io/ only calls it: frames handed to
 * decode have passed io/zstd_frames.c's checks and carry a content size and a checksum, and
 * io/ verifies each frame's checksum on what decode returns. One codec serves one reader or one
 * writer (one thread at a time). */
typedef struct gs_zcodec gs_zcodec;
struct gs_zcodec {
    /* Decode n frames, frame i from src[i] (csize[i] bytes) holding dsize[i] bytes, into dst at
     * doff[i]; ok[i] = 1 where the codec reports success with exactly dsize[i] bytes (the rest
     * are decoded again by libzstd, which judges them). Non-zero only when the codec itself
     * failed (its device is unusable). */
    int (*decode)(gs_zcodec *c, size_t n, const unsigned char *const *src, const size_t *csize,
                  const size_t *dsize, unsigned char *dst, const size_t *doff, unsigned char *ok, gs_status *st);
    /* Compress [src, src+len) as ceil(len / frame) frames of `frame` bytes (the last shorter): one
     * zstd frame each, headers as the codec writes them (io/ adds content size and checksum),
     * frame f at *out + off[f], clen[f] bytes long, in memory the codec owns until its next call. */
    int (*encode)(gs_zcodec *c, const unsigned char *src, size_t len, size_t frame, const unsigned char **out,
                  size_t *off, size_t *clen, gs_status *st);
    /* The largest compressed frame encode can write for a frame of `frame` bytes. */
    size_t (*bound)(gs_zcodec *c, size_t frame);
    size_t frame_max;   /* the largest frame content the codec takes (decode and encode) */
    size_t frame_align; /* encode: frames start at multiples of this in src */
    const char *name;   /* "gpu" for messages and --stats */
    /* counters, for --stats: seconds inside decode/encode, bytes in and out, frames */
    double dec_s, enc_s;
    uint64_t dec_in, dec_out, dec_frames, enc_in, enc_out, enc_frames;
    uint64_t dec_cpu_frames; /* frames libzstd decoded instead (no checksum, too large, refused) */
    /* Set by the codec, with the reason, when it gave up for good (its device did not finish a
     * batch in time). A decode that stops reports no frame ok, and io/ decodes every later frame
     * with libzstd; the codec's device is not used again, not even to tear the codec down. */
    const char *stopped;
};

/* The largest --frame-size a zstd output takes. */
#define GS_ZSTD_FRAME_MAX ((size_t)1 << 30)

/* A CSV column given as a number ("3", "+3", " 3 "): 1 and *index set (0 or negative is not
 * checked here); 0 for a name. */
int gs_col_number(const char *col, long *index);

typedef enum gs_header_mode { GS_HDR_AUTO = 0, GS_HDR_YES, GS_HDR_NO } gs_header_mode;

typedef struct gs_read_opts {
    gs_format format;   /* GS_FMT_AUTO: magic bytes (npy), then extension, else raw */
    gs_type type;       /* element type for raw/csv/text; for npy, checked against the header if type_given */
    int type_given;     /* -t was given */
    /* csv/text */
    const char *col;    /* 1-based index or header name; NULL = 1 */
    gs_header_mode header;
    char delim;         /* 0 = ',' for csv */
    int skip_bad;       /* skip (and count) unparsable fields instead of failing */
    int threads;        /* decode workers; 0 = pool size */
    gs_zcodec *zcodec;  /* zstd frames through this codec; NULL = libzstd */
} gs_read_opts;

typedef struct gs_reader gs_reader;

/* path NULL or "-" = stdin. */
int gs_reader_open(gs_reader **r, const char *path, const gs_read_opts *o, gs_status *st);
gs_type gs_reader_type(const gs_reader *r);
gs_format gs_reader_format(const gs_reader *r);   /* the format detected (never AUTO) */
int gs_reader_compressed(const gs_reader *r);     /* input was zstd */
/* libzstd's version ("1.5.4") and its highest compression level (for --level) */
const char *gs_zstd_version(void);
int gs_zstd_max_level(void);
int64_t gs_reader_count(const gs_reader *r);      /* elements, if known in advance; else -1 */
const char *gs_reader_colname(const gs_reader *r);/* csv header name of the column, or NULL */
const char *gs_reader_name(const gs_reader *r);   /* for messages: the path or "stdin" */
/* Fill buf with up to cap elements; *got = 0 only at the end of the input. */
int gs_reader_read(gs_reader *r, void *buf, size_t cap, size_t *got, gs_status *st);
uint64_t gs_reader_skipped(const gs_reader *r);   /* fields skipped with skip_bad */
uint64_t gs_reader_bytes(const gs_reader *r);     /* bytes consumed from the file or pipe so far */
void gs_reader_close(gs_reader *r);

typedef struct gs_write_opts {
    gs_format format;    /* never AUTO here: the caller resolves it */
    gs_type type;
    int ncols;           /* 1, or 2 for (min, max) rows: raw interleaved, npy shape (n,2), csv two columns */
    int64_t rows;        /* rows if known in advance (npy header); -1 if not */
    const char *colnames;/* csv/text header line ("min,max", "price"); NULL = no header */
    char delim;          /* csv delimiter; 0 = ',' */
    int zstd;            /* compress */
    int level;           /* zstd level (default 3) */
    size_t frame_size;   /* uncompressed bytes per independent zstd frame (default 16 MiB, at most
                            GS_ZSTD_FRAME_MAX) */
    int force;           /* overwrite an existing file; allow binary to a terminal */
    int threads;         /* encode workers; 0 = pool size */
    gs_zcodec *zcodec;   /* zstd frames through this codec; NULL = libzstd */
} gs_write_opts;

typedef struct gs_writer gs_writer;

/* path NULL or "-" = stdout. A file is written to a temp name beside it and renamed by
 * gs_writer_close; refuses an existing file without force, binary to a terminal without force. */
int gs_writer_open(gs_writer **w, const char *path, const gs_write_opts *o, gs_status *st);
/* Write n values (n = rows * ncols). */
int gs_writer_write(gs_writer *w, const void *vals, size_t n, gs_status *st);
/* Flush, finish (npy header patch, zstd frames), fsync-free close, rename into place. Frees w. */
int gs_writer_close(gs_writer *w, gs_status *st);
/* gs_writer_close, and the bytes written to the file or pipe in all (*bytes_out, final flushes
 * and the zstd epilogue included; left alone on failure). */
int gs_writer_finish(gs_writer *w, uint64_t *bytes_out, gs_status *st);
/* Drop everything: remove the temp file. Frees w. Safe on NULL. */
void gs_writer_abort(gs_writer *w);
uint64_t gs_writer_bytes(const gs_writer *w); /* bytes written to the file or pipe so far */

/* Remove every temp output still open. Async-signal-safe (unlink only): for signal handlers. */
void gs_io_remove_temps(void);

/* Enlarge a pipe's buffer (F_SETPIPE_SZ) where fd is a pipe; harmless otherwise. */
void gs_io_grow_pipe(int fd);

#ifdef __cplusplus
}
#endif
#endif
