/* io_internal.h - the layers inside io/, for its own files only.
 *
 *   byte source (file: parallel pread / stdin: large reads)  -> [zstd decode source]
 *      -> decoder (raw, npy, csv, text) -> elements                    = gs_reader
 *   elements -> encoder (raw, npy, csv, text)
 *      -> [zstd encode sink] -> byte sink (atomic file / stdout)       = gs_writer
 *
 * Each layer is a small struct of function pointers plus its own state; io.c picks and
 * stacks them (format detection lives there). */
#ifndef GS_IO_INTERNAL_H
#define GS_IO_INTERNAL_H

#include "io.h"

#include <string.h>

/* ---- byte sources ------------------------------------------------------------------------ */
typedef struct gs_bsrc gs_bsrc;
struct gs_bsrc {
    /* Read up to cap bytes; *got = 0 only at the end. Short reads are allowed before the end. */
    int (*read)(gs_bsrc *s, void *buf, size_t cap, size_t *got, gs_status *st);
    void (*close)(gs_bsrc *s);      /* frees s (and the source it wraps) */
    const char *name;               /* "in.csv", "stdin" for messages */
    int64_t size;                   /* total bytes if known (regular uncompressed file), else -1 */
    uint64_t consumed;              /* bytes taken from the underlying file/pipe so far */
    struct gs_peek *peek;           /* bytes gs_bsrc_peek has read ahead (io/file.c); NULL if none */
    /* Optional (NULL: none): the next whole frames as gs_reader_frames describes, their decoded
     * bytes a multiple of esize; *bytes = their decoded bytes, 0 frames when not now. */
    int (*frames)(gs_bsrc *s, const gs_zframes_req *q, size_t esize, size_t *nframes, uint64_t *bytes,
                  gs_status *st);
    /* Optional (NULL: none): the next up to cap bytes where they lie (a regular file mapped
     * read-only), consumed where take is set; *got = 0 where not now (read instead). GS_EDATA where
     * the file shrank. */
    int (*view)(gs_bsrc *s, size_t cap, int take, const void **p, size_t *got, gs_status *st);
    /* Optional (NULL: none): the first up to n bytes still to be read, without taking them, from
     * where the source keeps them itself (*answered = 1); *answered = 0 where it cannot now, and
     * gs_bsrc_peek reads them ahead instead. */
    int (*look)(gs_bsrc *s, void *buf, size_t n, size_t *got, int *answered, gs_status *st);
};

/* Open a file (NULL/"-" = stdin). Regular files are read with several threads (pread at offsets)
 * in large blocks; pipes get F_SETPIPE_SZ and large reads. */
int gs_bsrc_open_file(gs_bsrc **s, const char *path, int threads, gs_status *st);
/* Move a regular file's source (not stdin, nothing read or peeked yet) to byte offset off. */
int gs_bsrc_file_seek(gs_bsrc *s, uint64_t off, gs_status *st);
/* Peek: the first up to n bytes of the source without consuming them (its look, or read ahead
 * into a buffer inside). */
int gs_bsrc_peek(gs_bsrc *s, void *buf, size_t n, size_t *got, gs_status *st);
/* Wrap a zstd-compressed source (io/zstd_source.c): decodes any valid zstd stream (frames,
 * concatenations, skippable frames); independent frames are decoded in parallel, order kept. A
 * truncated or corrupt stream is an error. Takes ownership of `in`. Of o: threads, zcodec,
 * zstd_window, zstd_sync, and zframes (s->frames hands out whole frames, for a device, and
 * nothing is decoded ahead of the caller). */
int gs_bsrc_open_zstd(gs_bsrc **s, gs_bsrc *in, const gs_read_opts *o, gs_status *st);

/* Is [p, p+n) the start of a text input (io/sniff.c)? 1 with *fmt GS_FMT_CSV (and *delim the delimiter
 * found, or 0 for one column) or GS_FMT_TEXT; 0 where it is not text. whole: p holds the whole input. */
int gs_sniff_text(const unsigned char *p, size_t n, int whole, gs_format *fmt, char *delim);

/* The row store (io/rowtext.c): made and fed by the line decoder. Rows lie in memory lent to the
 * store: lend wraps p (cap bytes, malloc'd) with the lender's one reference (NULL where memory is
 * short; the caller keeps p); append adds the n rows of text (in m; flags GS_ROWS_*) with spans (spans_cap entries, kept or freed here, also on failure), -1 where memory is
 * short; unlend drops the lender's reference. m's memory is reused or freed once no rows held refer
 * to it, so the lender never writes it again. reuse: a buffer of released rows with room for want
 * bytes (*cap: its bytes), text or spans, or NULL (the caller allocates). */
typedef struct gs_rowtext_mem gs_rowtext_mem;
gs_rowtext *gs_rowtext_new(void);
void gs_rowtext_free(gs_rowtext *t);
int gs_rowtext_set_header(gs_rowtext *t, const char *row, size_t len);
gs_rowtext_mem *gs_rowtext_lend(char *p, size_t cap);
enum { GS_ROWS_QUOTES = 1, /* the rows hold a quote character */
       GS_ROWS_KEPT = 2 /* each span is a value's kept fields, joined (gs_piece_kept), not its row */ };
int gs_rowtext_append(gs_rowtext *t, gs_rowtext_mem *m, const char *text, int flags, int64_t *spans,
                      size_t spans_cap, size_t n);
void gs_rowtext_unlend(gs_rowtext *t, gs_rowtext_mem *m);
void *gs_rowtext_reuse(gs_rowtext *t, int spans, size_t want, size_t *cap);
/* --keep: the n columns cols[] (0-based; all: every field of each row), the value's column vcol
 * (0-based), the delimiter. */
int gs_rowtext_set_keep(gs_rowtext *t, const int *cols, int n, int all, int vcol, char delim);
/* The kept columns as set (0-based; *n of them, or *all: every field). */
const int *gs_rowtext_keep_list(const gs_rowtext *t, int *n, int *all);
/* --keep's spec ("all", or names and 1-based indices separated by ','), names resolved against the
 * header's nnames cells (names NULL: the input has none), as gs_rowtext_set_keep's columns. */
int gs_rowtext_keep_resolve(gs_rowtext *t, const char *spec, char **names, int nnames, int vcol, char delim,
                            const char *src, gs_status *st);

/* ---- byte sinks -------------------------------------------------------------------------- */
typedef struct gs_bsink gs_bsink;
struct gs_bsink {
    int (*write)(gs_bsink *k, const void *buf, size_t n, gs_status *st);
    /* Write at an absolute offset (npy header patch); GS_EUSAGE if the sink cannot seek. */
    int (*pwrite)(gs_bsink *k, const void *buf, size_t n, uint64_t off, gs_status *st);
    int (*close)(gs_bsink *k, gs_status *st); /* commit: flush, close, rename; frees k */
    /* Optional (NULL: nothing held): the data is complete; compress and write out what is held,
     * so that close has only the commit left. No write may follow. */
    int (*end)(gs_bsink *k, gs_status *st);
    void (*abort)(gs_bsink *k);               /* remove the temp file; frees k */
    /* Optional (NULL: not taken): n whole zstd frames compressed elsewhere, frame i at buf +
     * t[i].off (t[i].csize bytes, as the encoder wrote it) holding t[i].dsize bytes whose XXH64's
     * low 32 bits are t[i].xxh, written after what was written before (gs_writer_write_frames). */
    int (*frames)(gs_bsink *k, const unsigned char *buf, const gs_zfref *t, size_t n, gs_status *st);
    /* Optional (NULL: not taken): values in large pieces follow (raw, npy): a regular file writes
     * each large piece at its offset on several threads (io/file_values.c), its size set first to `total`
     * bytes where known (>= 0) and trimmed to what was written at close. */
    void (*plain)(gs_bsink *k, int64_t total);
    const char *name;                         /* "out.zst", "stdout" */
    int seekable;
    uint64_t written;                         /* bytes handed to the file/pipe so far */
    uint64_t *final_written;                  /* if set, close stores the final count here */
};

/* File (atomic: temp beside target, rename on close) or stdout (NULL/"-"). */
int gs_bsink_open_file(gs_bsink **k, const char *path, int force, int binary, gs_status *st);
/* zstd compression (io/zstd_sink.c) in independent frames of o->frame_size input bytes at
 * o->level, compressed in parallel on o->threads (or by o->zcodec, when given; o->zstd_sync: on
 * the writing thread). Takes ownership of `out`. */
int gs_bsink_open_zstd(gs_bsink **k, gs_bsink *out, const gs_write_opts *o, gs_status *st);

/* ---- decoders (bytes -> elements) ---------------------------------------------------------- */
typedef struct gs_decoder gs_decoder;
struct gs_decoder {
    int (*read)(gs_decoder *d, void *buf, size_t cap, size_t *got, gs_status *st);
    void (*close)(gs_decoder *d); /* frees d; closes the byte source too */
    gs_type type;
    int64_t count;          /* elements if known, else -1 */
    const char *colname;    /* csv header of the selected column, or NULL */
    int ncols;              /* values per element (several columns read at once); 0 = 1 */
    char *const *colnames;  /* their csv header names (ncols > 1), or NULL */
    uint64_t skipped;       /* rows skipped (skip_bad, na skip) */
    struct gs_rowmap *rows; /* where they were skipped (csv/text when rows may be skipped), or NULL */
    gs_rowtext *text;       /* the values' rows (csv/text with keep_rows), or NULL */
    gs_bsrc *src;
    /* Optional (NULL: none): gs_reader_frames for this format. */
    int (*frames)(gs_decoder *d, const gs_zframes_req *q, size_t *nframes, size_t *elems, gs_status *st);
    /* Optional (NULL: none): gs_reader_view for this format. */
    int (*view)(gs_decoder *d, size_t cap, int take, const void **p, size_t *got, gs_status *st);
    /* Optional (NULL: none): gs_reader_text_parser where set, else gs_reader_parses_text's answer. */
    int (*text_parser)(gs_decoder *d, const gs_text_parser *p, int set);
};

int gs_dec_open_raw(gs_decoder **d, gs_bsrc *src, gs_type type, gs_status *st);
/* npy: parses the header from src; checks against o->type when o->type_given. */
int gs_dec_open_npy(gs_decoder **d, gs_bsrc *src, const gs_read_opts *o, gs_status *st);
/* csv (libcsv; parallel on line-aligned blocks when no quotes) and text (one number a line). */
int gs_dec_open_csv(gs_decoder **d, gs_bsrc *src, const gs_read_opts *o, gs_status *st);
int gs_dec_open_text(gs_decoder **d, gs_bsrc *src, const gs_read_opts *o, gs_status *st);

/* ---- encoders (elements -> bytes) ---------------------------------------------------------- */
typedef struct gs_encoder gs_encoder;
struct gs_encoder {
    int (*write)(gs_encoder *e, const void *vals, size_t n, gs_status *st);
    int (*close)(gs_encoder *e, gs_status *st); /* finishes the format, commits the sink; frees e */
    void (*abort)(gs_encoder *e);               /* aborts the sink; frees e */
    gs_bsink *sink;
    uint64_t values;                            /* values written so far */
    int plain;                                  /* values go to the sink as their bytes (raw, npy) */
    /* csv/text whose every column prints in the values' type: a row's columns and their delimiter
     * (text_cols 0: another format, or columns printed in other types), for text formatted
     * elsewhere (gs_writer_write_text) */
    int text_cols;
    char text_sep;
};

int gs_enc_open_raw(gs_encoder **e, gs_bsink *k, const gs_write_opts *o, gs_status *st);
/* npy: exact header when o->rows >= 0; otherwise a padded header patched at close (needs a
 * seekable, uncompressed sink: else GS_EUSAGE "npy output of unknown length needs a file"). */
int gs_enc_open_npy(gs_encoder **e, gs_bsink *k, const gs_write_opts *o, gs_status *st);
/* csv/text: values printed to read back bit-exactly; nan, inf, -inf. */
int gs_enc_open_csv(gs_encoder **e, gs_bsink *k, const gs_write_opts *o, gs_status *st);
int gs_enc_open_text(gs_encoder **e, gs_bsink *k, const gs_write_opts *o, gs_status *st);

/* Readers and writers over stacked layers (io/io.c), for io/part.c. */
int gs_reader_from_decoder(gs_reader **r, gs_decoder *dec, gs_format f, int compressed, const char *name,
                           gs_status *st);
int gs_writer_from_sink(gs_writer **w, gs_bsink *k, const gs_write_opts *o, gs_status *st);

/* n bytes from s to d, n small (a field of a row): overlapping word moves inside [s, s+n) and
 * [d, d+n), no call; memcpy where n is over 16. */
static inline void gs_copy_small(char *d, const char *s, size_t n)
{
    uint64_t a, b;
    uint32_t x, y;
    if (n >= 8 && n <= 16) {
        memcpy(&a, s, 8), memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8), memcpy(d + n - 8, &b, 8);
    } else if (n >= 4 && n < 8) {
        memcpy(&x, s, 4), memcpy(&y, s + n - 4, 4);
        memcpy(d, &x, 4), memcpy(d + n - 4, &y, 4);
    } else if (n < 4) {
        for (size_t i = 0; i < n; i++) d[i] = s[i];
    } else {
        memcpy(d, s, n);
    }
}

/* ---- numbers (io/numfmt.c) -------------------------------------------------------------------
 * Fast exact conversion between text and values, used by csv and text. */
/* Parse [s, s+len) (no surrounding spaces) as type t. 0 ok, -1 invalid, -2 out of range. */
int gs_num_parse(const char *s, size_t len, gs_type t, void *out);
/* Print one value at buf; returns its length (< GS_NUM_CHARS) and puts a terminator after it. It
 * may write anything in the GS_NUM_CHARS bytes from buf: the caller gives that much room. */
#define GS_NUM_CHARS 48
int gs_num_format(char *buf, gs_type t, const void *val);

#endif
