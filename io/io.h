/* io.h - reading and writing arrays of numbers: raw, npy, csv and text, optionally zstd-
 * compressed, from files or stdin, to files (atomically: temp name + rename) or stdout.
 * A reader yields elements of one type; a writer takes elements (or (min,max) pairs).
 * Never includes CUDA headers; never prints; every failure is a gs_status. */
#ifndef GS_IO_H
#define GS_IO_H

#include <stdio.h>
#include "../common/gs.h"
#include "zstd_format.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gs_format { GS_FMT_AUTO = 0, GS_FMT_RAW, GS_FMT_NPY, GS_FMT_CSV, GS_FMT_TEXT } gs_format;

const char *gs_format_name(gs_format f);
int gs_format_parse(const char *s, gs_format *f); /* raw, npy, csv, text (txt) */
/* Format implied by a file name's extension, after stripping one ".zst"; GS_FMT_AUTO if none.
 * *zst set to 1 when the name ends in .zst. */
gs_format gs_format_from_name(const char *path, int *zst);
/* '\t' where the name says tab-delimited (.tsv, .tab, after one .zst), else 0. */
char gs_delim_from_name(const char *path);
/* The extension of a format gpustream neither reads nor writes ("parquet", "npz", "json" ...), or NULL. */
const char *gs_foreign_ext(const char *path);

/* A zstd codec for whole frames in batches (the device codec, pipeline/gpu/codec_host.cu); readers and
 * writers use libzstd on the thread pool when none is given. io/ only calls it: frames handed to
 * decode have passed the frame index's checks (io/zstd_index.c) and carry a content size and a
 * checksum, and io/ verifies each frame's checksum on what decode returns. One codec serves one
 * reader or one writer (one thread at a time). */
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
     * frame f at *out + off[f], clen[f] bytes long, in memory the codec owns until its next call.
     * A codec whose device never started (stopped set) returns GS_OK with *out = NULL: libzstd
     * compresses the batch instead. */
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
    uint64_t enc_cpu_frames; /* frames libzstd compressed instead (the device never started) */
    /* Set by the codec, with the reason, when it gave up for good (its device did not finish a
     * batch in time). A decode that stops reports no frame ok, and io/ decodes every later frame
     * with libzstd; the codec's device is not used again, not even to tear the codec down. */
    const char *stopped;
};

/* ---- zstd frames for a decoder on a device (gs_reader_frames) ---------------------------------- */
typedef struct gs_zfref {
    uint64_t off;   /* where the frame was copied in the request's dst */
    uint64_t csize; /* its bytes */
    uint64_t at;    /* where its decoded bytes go, from the chunk's first byte */
    uint64_t dsize; /* its decoded bytes (its header's content size) */
    uint32_t xxh;   /* its checksum: the low 32 bits of XXH64 of the decoded bytes */
} gs_zfref;

typedef struct gs_zframes_req {
    unsigned char *dst;  /* the frames go here, each at a multiple of align */
    size_t dst_cap, align;
    size_t content_max;  /* the chunk: its frames decode to exactly this many bytes, or end the input */
    size_t frame_max;    /* the largest frame content taken */
    size_t unit;         /* every frame starts at a multiple of this many decoded bytes (a power of two) */
    gs_zfref *t;         /* the table, t_cap frames at most */
    size_t t_cap;
} gs_zframes_req;

/* A CSV column given as a number ("3", "+3", " 3 "): 1 and *index set (0 or negative is not
 * checked here); 0 for a name. */
int gs_col_number(const char *col, long *index);
/* The header cell (of n, names) named [q, q + len): its 0-based index; or -1 and GS_EDATA in st:
 * "SRC: no column named 'Q' in the header" + WHAT ("" or e.g. " (--keep)"), then the cell that
 * differs only in case ("did you mean"), else the header's first cells (io/cols.c). */
int gs_col_lookup(char *const *names, int n, const char *q, size_t len, const char *src, const char *what,
                  gs_status *st);
/* --col as a list (io/cols.c): "a,b,c" of header names or 1-based indices, ranges "2-5" among them,
 * at most GS_WRITE_COLS_MAX columns, none twice. gs_cols_is_list: spec names several columns (a ','
 * or a range); one column keeps the single-column path. gs_cols_check: the list's form and its
 * columns' count *k, before any input is opened (names are not looked up). gs_cols_resolve: cols[0..*k) 1-based, names through
 * the header's nnames cells (names NULL: none, a name is then a usage error; an unknown name is
 * GS_EDATA naming src). */
int gs_cols_is_list(const char *spec);
int gs_cols_check(const char *spec, int *k, gs_status *st);
/* Every item of the list is a name: the whole may yet be one header cell holding ',' ("pri,ce"),
 * which a csv header takes as that one column. */
int gs_cols_names_only(const char *spec);
int gs_cols_resolve(const char *spec, char *const *names, int nnames, int *cols, int *k, const char *src,
                    gs_status *st);

typedef enum gs_header_mode { GS_HDR_AUTO = 0, GS_HDR_YES, GS_HDR_NO } gs_header_mode;

/* What a missing csv/text value (an empty field, or one of pandas' default NA spellings: io/missing.c)
 * reads as: NaN for float types and an error for integer types (DEFAULT), a given value (VALUE), or
 * nothing: the row is dropped from the stream and recorded in the reader's row map (SKIP). Under
 * VALUE and SKIP a float NaN counts as missing too (pandas' fillna and dropna). */
typedef enum gs_na_mode { GS_NA_DEFAULT = 0, GS_NA_VALUE, GS_NA_SKIP } gs_na_mode;
/* pandas' read_csv default NA spellings, NULL-terminated (io/missing.c), for docs and tests. */
extern const char *const gs_na_spellings[];
struct gs_rowmap;

typedef struct gs_read_opts {
    gs_format format;   /* GS_FMT_AUTO: magic bytes (npy), then extension, else raw */
    gs_type type;       /* element type for raw/csv/text; for npy, checked against the header if type_given */
    int type_given;     /* -t was given */
    /* csv/text */
    const char *col;    /* 1-based index or header name; NULL = 1 */
    gs_header_mode header;
    char delim;         /* 0 = ',' for csv */
    int skip_bad;       /* skip (and count) unparsable fields instead of failing */
    gs_na_mode na;      /* csv/text: what a missing value reads as */
    const char *na_value; /* GS_NA_VALUE: the value, as text in the element type */
    int threads;        /* decode workers; 0 = pool size */
    gs_zcodec *zcodec;  /* zstd frames through this codec; NULL = libzstd */
    int zframes;        /* the caller takes frames with gs_reader_frames: zstd is never decoded ahead */
    uint64_t line_offset; /* csv/text: lines before the first line read (a range of a file), for messages */
    size_t zstd_window; /* zstd: the compressed read-ahead window in bytes; 0 = by thread count */
    int zstd_sync;      /* zstd: decode on the reading thread only (no decoder thread working ahead) */
    int keep_rows;      /* csv/text: keep each value's input row (gs_reader_rowtext) */
    const char *keep;   /* csv: --keep, the columns written before the results ("c1,c2" names or 1-based
                           indices, or "all"); implies keep_rows */
    int keep_value;     /* --keep: the value's own field is written after the kept ones (compact) */
    size_t block_size;  /* csv/text: bytes parsed per block; 0 = 32 MiB (tests lower it to cross block and
                           piece edges on small inputs) */
} gs_read_opts;

typedef struct gs_reader gs_reader;

/* path NULL or "-" = stdin. */
int gs_reader_open(gs_reader **r, const char *path, const gs_read_opts *o, gs_status *st);
/* A short text output (compact --count's line) to path, or stdout for NULL or "-", written as
 * every output is: a temp beside the target renamed on success, an existing file only with force. */
int gs_write_text_out(const char *path, int force, const char *text, gs_status *st);
gs_type gs_reader_type(const gs_reader *r);
gs_format gs_reader_format(const gs_reader *r);   /* the format detected (never AUTO) */
char gs_reader_delim(const gs_reader *r);         /* csv: the delimiter in use (given, by name or found) */
int gs_reader_compressed(const gs_reader *r);     /* input was zstd */
/* libzstd's version ("1.5.4") and its highest compression level (for --level) */
const char *gs_zstd_version(void);
int gs_zstd_max_level(void);
/* The decompressed size of the first zstd frame of a file (skippable frames before it skipped),
 * from its header: GS_ZSTD_SIZE_UNKNOWN where the header does not say, the file cannot be read, is
 * not a regular file (a pipe is never read here) or does not start with zstd frames. */
uint64_t gs_zstd_first_frame_size(const char *path);
/* The decompressed bytes of zstd file `path`, from its frame headers: exact where its first 8 MiB
 * hold every frame, else those frames' ratio times the file's size (an estimate, for choices
 * that only need the magnitude). 0 where unknown (a frame without a content size, not zstd). */
uint64_t gs_zstd_content_estimate(const char *path);
/* zstd frames in memory (io/zstd_mem.c), libzstd on the thread pool: [src, src+len) as
 * gs_zstd_frames_count(len, frame) frames of `frame` bytes (the last shorter), each with content
 * size and checksum; frame f compressed into slots + f x gs_zstd_frame_bound(frame), clen[f]
 * bytes. Decoding takes frame f at frames + off[f] (clen[f] bytes) and requires it to hold
 * exactly its share of dst, the same cut. */
size_t gs_zstd_frames_count(size_t len, size_t frame);
size_t gs_zstd_frame_bound(size_t frame);
int gs_zstd_frames_compress(const void *src, size_t len, size_t frame, int level, unsigned char *slots, size_t *clen,
                            gs_status *st);
int gs_zstd_frames_decode(const unsigned char *frames, const size_t *off, const size_t *clen, size_t len, size_t frame,
                          void *dst, gs_status *st);
int64_t gs_reader_count(const gs_reader *r);      /* elements, if known in advance; else -1 */
const char *gs_reader_colname(const gs_reader *r);/* csv header name of the column, or NULL */
/* Columns read in one pass (--col a,b,c on csv, a 2-D npy): each element a reader hands out is then
 * a row of that many values of its type, in the list's order (1: one column). Their csv header
 * names (gs_reader_colname_at: NULL where the input has no header). */
int gs_reader_cols(const gs_reader *r);
const char *gs_reader_colname_at(const gs_reader *r, int i);
const char *gs_reader_name(const gs_reader *r);   /* for messages: the path or "stdin" */
/* Fill buf with up to cap elements (rows of gs_reader_cols values); *got = 0 only at the end of the input. */
int gs_reader_read(gs_reader *r, void *buf, size_t cap, size_t *got, gs_status *st);
/* The next chunk of a zstd-compressed raw or npy input as its compressed frames, for a decoder
 * on a device (opened with o->zframes): *nframes frames in q->t, copied into q->dst, decoding to
 * *elems elements. 0 frames where that cannot be had now (not zstd, another format, a frame that
 * does not qualify, the chunk not filled exactly): gs_reader_read reads on, and a later call may
 * give frames again. Frames given passed the frame index's checks and carry a content size and a
 * checksum, no dictionary, at most q->frame_max bytes each; they fill q->content_max exactly, or
 * end the input with whole elements. The caller decodes them and must check, for every frame,
 * that the decoder succeeded with exactly dsize bytes whose XXH64 matches xxh: io/ never sees
 * the decoded bytes. */
int gs_reader_frames(gs_reader *r, const gs_zframes_req *q, size_t *nframes, size_t *elems, gs_status *st);
/* What a device decoder and its check do with such frames, on the host (libzstd on the pool):
 * frame i from buf + t[i].off into dst + t[i].at, exactly t[i].dsize bytes whose XXH64 is t[i].xxh.
 * GS_EDATA naming the first frame that fails. */
int gs_zstd_frames_table_decode(const unsigned char *buf, const gs_zfref *t, size_t n, void *dst, gs_status *st);
/* What a device encoder hands to gs_writer_write_frames, on the host (libzstd, level 1, one
 * thread; for tests): src[0, len) as frames of `frame` bytes without content size or checksum,
 * packed into dst (cap bytes), their table in t (t_cap entries). *nframes = 0 where they do not
 * fit in either. */
size_t gs_zstd_frames_table_bound(size_t frame);
int gs_zstd_frames_table_encode(const void *src, size_t len, size_t frame, unsigned char *dst, size_t cap, gs_zfref *t,
                                size_t t_cap, size_t *nframes, size_t *bytes, gs_status *st);
/* The next up to cap elements of a regular, uncompressed raw or npy file where they lie: the file
 * mapped read-only (never past its size at open: bytes appended later are not read, as a read
 * would not read them), *p valid until gs_reader_close; the elements count as read where take is
 * set (else the same call with take gives them again, or a read reads them). *got = 0 where
 * that cannot be had now (gs_reader_read reads on; it also says where the input ends). GS_EDATA
 * where the file is now shorter than the elements handed out: a file that shrinks is an error,
 * never a fault. */
int gs_reader_view(gs_reader *r, size_t cap, int take, const void **p, size_t *got, gs_status *st);
/* 1 where gs_reader_view may give elements: a regular, uncompressed, non-empty raw or npy file. */
int gs_reader_maps(const gs_reader *r);
/* ---- csv blocks parsed elsewhere (gs_reader_text_parser) -------------------------------------- */
/* The csv reader's blocks (unless gs_read_opts.block_size says otherwise), and with them what a
 * parser is offered: a block holds the tail carried from the one before (up to 1 MiB), more where a
 * line is longer. */
#define GS_TEXT_BLOCK_BYTES ((size_t)32 << 20)
typedef struct gs_text_block {
    const char *text;
    size_t bytes;     /* whole lines; only the input's last one may lack its '\n' */
    gs_type type;     /* each line's fields cols[0..ncols) (1-based, split at delim; ' ' and '\t' */
    const int *cols;  /* around them are surrounding space where trim_sp and trim_tab say, '\r' */
    int ncols;        /* always) as a row of ncols values of this type: kernels/numparse.h's */
    char delim;       /* gs_numparse_row */
    int trim_sp, trim_tab;
} gs_text_block;
#define GS_TEXT_DECLINED (-1)
typedef struct gs_text_parser {
    /* The block's lines, a row of values each: GS_OK with *vals (n rows of b->ncols values of b->type,
     * one a line, valid until the next call); GS_TEXT_DECLINED where the parser declines the block (the reader parses it);
     * another status, st saying why, on a failure. Called from the reader's thread. */
    int (*parse)(void *ctx, const gs_text_block *b, const void **vals, size_t *n, gs_status *st);
    void *ctx;
} gs_text_parser;
/* 1 where gs_reader_text_parser can take effect: csv input whose values go without their rows (no
 * --rows or --keep) and drop no row (no --skip-bad, no --na skip). */
int gs_reader_parses_text(const gs_reader *r);
/* From the next block on, offer each block to p before the reader parses it (NULL: none): the
 * reader parses a block itself where p declines it, and offers no more blocks after that. Another
 * thread may set it while the reader reads; p must stay valid until it is set to NULL, or the
 * reader closed. */
void gs_reader_text_parser(gs_reader *r, const gs_text_parser *p);
uint64_t gs_reader_skipped(const gs_reader *r);   /* rows skipped (skip_bad, na skip) */
/* compact --rows: the input rows of the values (io/rowtext.c), where o->keep_rows asked for them
 * (csv/text), else NULL. Owned by the reader. */
typedef struct gs_rowtext gs_rowtext;
gs_rowtext *gs_reader_rowtext(const gs_reader *r);
/* The header row's bytes as in the input, line end included (NULL: none). */
const char *gs_rowtext_header(const gs_rowtext *t, size_t *len);
/* The rows of the n ascending stream positions pos[] (values the reader handed out and not yet
 * released), each as in the input (a last row without a line end gets '\n'), through put. */
int gs_rowtext_write(gs_rowtext *t, const uint64_t *pos, size_t n,
                     int (*put)(void *ctx, const char *p, size_t len, gs_status *st), void *ctx, gs_status *st);
/* --keep (the reader's o->keep): for each of the n ascending stream positions pos[] (pos NULL: first,
 * first + 1, ...), the row's kept
 * columns as in the input, then the row's results formatted: vals[i * ncols + c] of type `type`,
 * printed as coltypes[c] (gs_rowtext_keep_cols; default one result in its own type), or where vals
 * is NULL the value's own field as in the input; a line per row, joined by the input's delimiter.
 * The header line of that: the kept columns' header cells and the names in `result` (separated by
 * ','; nothing where the input had no header). */
void gs_rowtext_keep_cols(gs_rowtext *t, int ncols, const gs_type *coltypes);
int gs_rowtext_write_keep(gs_rowtext *t, const uint64_t *pos, uint64_t first, size_t n, gs_type type, const void *vals,
                          int (*put)(void *ctx, const char *p, size_t len, gs_status *st), void *ctx, gs_status *st);
int gs_rowtext_keep_header(gs_rowtext *t, const char *result,
                           int (*put)(void *ctx, const char *p, size_t len, gs_status *st), void *ctx, gs_status *st);
/* The rows of stream positions before upto are no longer needed. */
void gs_rowtext_release(gs_rowtext *t, uint64_t upto);
/* The rows skipped so far, by stream position (common/rowmap.h): where skip_bad or na skip may drop
 * rows (csv/text), else NULL. Owned by the reader. */
const struct gs_rowmap *gs_reader_rows(const gs_reader *r);
uint64_t gs_reader_bytes(const gs_reader *r);     /* bytes consumed from the file or pipe so far */
void gs_reader_close(gs_reader *r);

#define GS_WRITE_COLS_MAX 16
typedef struct gs_write_opts {
    gs_format format;    /* never AUTO here: the caller resolves it */
    gs_type type;
    int ncols;           /* values per row, 1 to GS_WRITE_COLS_MAX: raw interleaved, npy shape (n,ncols) (1-D for
                            one), csv/text ncols columns */
    int64_t rows;        /* rows if known in advance (npy header); -1 if not */
    const char *colnames;/* csv header: the column's name, or the ncols names separated by ',' ("min,max"),
                            written with the output's delimiter; NULL = no header */
    const gs_type *coltypes; /* csv/text: column c printed as coltypes[c] (each value converted from
                            `type`, e.g. a count held in f64 printed as an integer); NULL = all `type` */
    char delim;          /* csv delimiter; 0 = ',' */
    int zstd;            /* compress */
    int level;           /* zstd level (GS_ZSTD_LEVEL_DEFAULT; 0 is libzstd's default, the same) */
    size_t frame_size;   /* uncompressed bytes per independent zstd frame (0: GS_ZSTD_FRAME_DEFAULT; at
                            most GS_ZSTD_FRAME_MAX) */
    int force;           /* overwrite an existing file; allow binary to a terminal */
    int threads;         /* encode workers; 0 = pool size */
    gs_zcodec *zcodec;   /* zstd frames through this codec; NULL = libzstd */
    int zstd_sync;       /* zstd: compress on the writing thread only (no encoder thread working ahead) */
} gs_write_opts;

typedef struct gs_writer gs_writer;

/* path NULL or "-" = stdout. A file is written to a temp name beside it and renamed by
 * gs_writer_close; refuses an existing file without force, binary to a terminal without force. */
int gs_writer_open(gs_writer **w, const char *path, const gs_write_opts *o, gs_status *st);
/* Raw bytes into the output (rows of compact --rows, a header), through its compression if any. */
int gs_writer_write_bytes(gs_writer *w, const void *buf, size_t n, gs_status *st);
/* Write n values (n = rows * ncols). */
int gs_writer_write(gs_writer *w, const void *vals, size_t n, gs_status *st);
/* 1 where the output is raw or npy values in zstd frames: gs_writer_write_frames may be used. */
int gs_writer_takes_frames(const gs_writer *w);
/* Write `values` values given as n zstd frames compressed elsewhere (a device's encoder): frame i
 * at buf + t[i].off, t[i].csize bytes, holding t[i].dsize bytes of the values with the checksum
 * t[i].xxh; each frame as the encoder wrote it, checked and given its content size and checksum
 * here. They follow what was written before (whose last frame may then be short). */
int gs_writer_write_frames(gs_writer *w, const unsigned char *buf, const gs_zfref *t, size_t n, size_t values,
                           gs_status *st);
/* csv or text whose every column prints in the writer's type: the columns of a row (the delimiter
 * between them at *sep), else 0. Text in that form may go out through gs_writer_write_text. */
int gs_writer_text_form(const gs_writer *w, char *sep);
/* Write `values` values given as n bytes of their text, formatted elsewhere (a device): whole rows,
 * each value as the writer prints it, the delimiter between them, each row ending in '\n'. */
int gs_writer_write_text(gs_writer *w, const void *text, size_t n, size_t values, gs_status *st);
/* The values are complete: encode and write out whatever is still held (the last zstd frames),
 * so that what gs_writer_close has left is the commit. Only close or abort may follow. */
int gs_writer_end(gs_writer *w, gs_status *st);
/* Flush, finish (npy header patch, zstd frames), fsync-free close, rename into place. Frees w. */
int gs_writer_close(gs_writer *w, gs_status *st);
/* gs_writer_close, and the bytes written to the file or pipe in all (*bytes_out, final flushes
 * and the zstd epilogue included; left alone on failure). */
int gs_writer_finish(gs_writer *w, uint64_t *bytes_out, gs_status *st);
/* Drop everything: remove the temp file. Frees w. Safe on NULL. */
void gs_writer_abort(gs_writer *w);
uint64_t gs_writer_bytes(const gs_writer *w); /* bytes written to the file or pipe so far */

/* ---- parts of one file, for several processes (MPI ranks) ----------------------------------
 * A regular file's layout tells where its elements lie: uncompressed raw/npy at data_off + i x
 * size in the file; zstd as frames, each with its file offset and the decompressed offset of its
 * first byte (content sizes from the frame headers), element i at data_off + i x size of the
 * decompressed stream. A process opens a range of elements and reads it as any reader. */
typedef struct gs_layout {
    gs_format format;    /* raw, npy, csv or text */
    int compressed;      /* zstd (raw and npy only) */
    gs_type type;
    uint64_t n;          /* elements (raw, npy) */
    uint64_t size;       /* csv/text: file bytes */
    uint64_t head_len;   /* csv: bytes of the header line (0 if none), read before any range */
    char delim;          /* csv: the delimiter the whole file is read with (given, by name or found) */
    uint64_t data_off;   /* element 0: byte offset in the file, or in the decompressed stream */
    size_t nframes;      /* zstd frames (skippable ones included) */
    uint64_t *frame_off; /* file offset of frame f */
    uint64_t *frame_pos; /* decompressed offset of frame f's first byte; [nframes] = the total */
} gs_layout;

/* GS_EUSAGE for stdin, compressed csv/text, or zstd frames that do not give their content size. */
int gs_layout_read(gs_layout *L, const char *path, const gs_read_opts *o, gs_status *st);
void gs_layout_free(gs_layout *L);
/* raw/npy: a reader of elements [first, first + count) of path, whose layout is L. */
int gs_reader_open_range(gs_reader **r, const char *path, const gs_read_opts *o, const gs_layout *L,
                         uint64_t first, uint64_t count, gs_status *st);
/* csv/text: the offset of the first line that starts at or after off (past the header), or the
 * file size. Lines are cut at '\n': a quoted field holding a line break must not straddle it. */
int gs_layout_line_start(const gs_layout *L, const char *path, uint64_t off, uint64_t *at, gs_status *st);
/* csv/text: the '\n' in bytes [from, to) of path. */
int gs_layout_count_lines(const char *path, uint64_t from, uint64_t to, uint64_t *lines, gs_status *st);
/* csv/text: a reader of the lines in bytes [from, to) (to = UINT64_MAX: to the end), read after the
 * header line as a whole file would be, yielding at most max elements. */
int gs_reader_open_lines(gs_reader **r, const char *path, const gs_read_opts *o, const gs_layout *L,
                         uint64_t from, uint64_t to, uint64_t max, gs_status *st);

/* A byte sink of the caller's (an MPI file at an offset, a temp file). */
typedef struct gs_byte_sink {
    int (*write)(void *ctx, const void *buf, size_t n, gs_status *st);
    void *ctx;
    const char *name; /* for messages */
} gs_byte_sink;
/* A writer into k: o->format raw, csv or text (npy data is raw: its header goes in head),
 * compressed when o->zstd; head[0..head_len) is written first (inside the compression). */
int gs_writer_open_sink(gs_writer **w, const gs_byte_sink *k, const gs_write_opts *o, const void *head,
                        size_t head_len, gs_status *st);
/* The npy header gs_writer_open writes for rows x ncols of type t, into out (256 bytes are
 * enough); returns its length. */
size_t gs_npy_header_bytes(char *out, size_t cap, gs_type t, uint64_t rows, int ncols);

/* An output file that other processes write (MPI ranks): a named temp file beside the target
 * (never an unnamed O_TMPFILE one, which they could not open; the target itself for a device or
 * FIFO such as /dev/null; a symlink's end, as gs_writer_open writes through it) for them to open,
 * renamed into place by commit; abort removes it, as does a signal. Refuses an existing file
 * without force, as gs_writer_open does. */
typedef struct gs_outfile gs_outfile;
int gs_outfile_open(gs_outfile **f, const char *path, int force, gs_status *st);
const char *gs_outfile_path(const gs_outfile *f);
int gs_outfile_commit(gs_outfile *f, gs_status *st); /* frees f */
void gs_outfile_abort(gs_outfile *f);               /* frees f; safe on NULL */

/* ---- the input as the run's plan sees it before anything reads it (io/describe.c) ------------
 * Only a regular file is looked at: a pipe, FIFO, terminal or stdin keeps its bytes for the reader
 * alone. The rest is looked at only where `want` asks (GS_DESC_*), since it reads the file. */
typedef struct gs_input_desc {
    int64_t size;         /* bytes of a regular file (or a generator's output), -1 where unknown */
    int zst_name;         /* the name ends in .zst */
    uint64_t first_frame; /* GS_DESC_FIRST_FRAME: the first zstd frame's content size (GS_ZSTD_SIZE_UNKNOWN
                             where the header does not say, or it is not zstd) */
    uint64_t content;     /* GS_DESC_CONTENT: a zstd file's decompressed bytes (gs_zstd_content_estimate; 0
                             where unknown) */
    unsigned have;        /* the GS_DESC_* looked at */
} gs_input_desc;
#define GS_DESC_FIRST_FRAME 0x1u
#define GS_DESC_CONTENT 0x2u
/* Describe path (NULL or "-": stdin): its size and name always, and what `want` asks for besides
 * (added to what d has already). */
void gs_input_describe(const char *path, unsigned want, gs_input_desc *d);

/* Remove every temp output still open. Async-signal-safe (unlink only): for signal handlers. */
void gs_io_remove_temps(void);

/* Enlarge a pipe's buffer (F_SETPIPE_SZ) where fd is a pipe; harmless otherwise. */
void gs_io_grow_pipe(int fd);

#ifdef __cplusplus
}
#endif
#endif
