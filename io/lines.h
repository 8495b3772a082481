/* lines.h - the parallel line-block engine shared by csv.c and text.c (private to io/).
 *
 * Decoding: the engine (csv.c) reads large blocks from a byte source, cuts each block after
 * its last line end (the rest is carried into the next block), splits it into pieces at line
 * ends, and runs a piece parser on every piece in parallel (gs_parallel_for). Each piece
 * collects its values, its count of '\n' and its first error; values are handed out in piece
 * order, and an error's line number is the lines of the earlier pieces plus its own. The next
 * block is read during the parse (read-ahead), and a block holding a quote character goes
 * through libcsv instead (csv only).
 * Encoding: values are split into runs formatted in parallel into per-run text buffers,
 * written to the sink in order. */
#ifndef GS_IO_LINES_H
#define GS_IO_LINES_H

#include "io_internal.h"

/* Bytes per block (0 = the default, 32 MiB). Tests lower it to exercise block and piece
 * boundaries on small inputs. */
extern size_t gs_lines_block_size;

/* What a piece parser needs to know. */
typedef struct gs_lparse {
    gs_type type;
    size_t esize;
    int col;        /* csv: 1-based column */
    char delim;     /* csv: field delimiter */
    int trim_sp;    /* csv: ' ' is surrounding space (not when it is the delimiter) */
    int trim_tab;   /* csv: '\t' is surrounding space (not when it is the delimiter); '\r' always is */
    int skip_bad;
} gs_lparse;

enum { GS_PERR_NONE = 0, GS_PERR_INVALID, GS_PERR_RANGE, GS_PERR_MISSING, GS_PERR_TOOLONG, GS_PERR_QUOTE };

typedef struct gs_piece {
    const char *begin, *end; /* the bytes to parse (whole lines; the last may lack its '\n') */
    char *vals;              /* output values (esize each) */
    size_t n, cap;
    uint64_t lines;          /* '\n' in [begin, end); complete when err == GS_PERR_NONE */
    uint64_t skipped;        /* bad rows/tokens skipped (skip_bad) */
    int err;                 /* first error: GS_PERR_* */
    int nomem;               /* ran out of memory growing vals */
    uint64_t err_line;       /* '\n' before the error, counted from begin */
    int err_field;           /* 1-based field, 0 = none (text) */
    int err_nfields;         /* fields in the row (GS_PERR_MISSING) */
    char err_tok[48];        /* the offending text, shortened */
} gs_piece;

typedef void (*gs_piece_fn)(const gs_lparse *c, gs_piece *pc);

/* Room for one more value; returns its address, or NULL (and sets pc->nomem) when out of
 * memory. The value counts once the parser increments pc->n. */
void *gs_piece_grow(gs_piece *pc, size_t esize);
static inline void *gs_piece_slot(gs_piece *pc, size_t esize)
{
    if (pc->n < pc->cap) return pc->vals + pc->n * esize;
    return gs_piece_grow(pc, esize);
}

/* Record a bad value at line `line` (counted from the piece start): returns 1 when the
 * parser must stop (no skip_bad), 0 after counting a skip. */
int gs_piece_bad(const gs_lparse *c, gs_piece *pc, int kind, uint64_t line, int field, int nfields,
                 const char *tok, size_t len);

/* text: whitespace-separated tokens (text.c). */
void gs_text_piece(const gs_lparse *c, gs_piece *pc);

/* Open a line decoder: csv (libcsv for quoted blocks, a header stage, column selection) when
 * text == 0, else whitespace-separated tokens. */
int gs_lines_dec_open(gs_decoder **d, gs_bsrc *src, const gs_read_opts *o, int text, gs_status *st);
/* Open a line encoder: sep between the two values of a (min, max) row; header written first
 * when not NULL (csv only). */
int gs_lines_enc_open(gs_encoder **e, gs_bsink *k, const gs_write_opts *o, char sep,
                      const char *header, gs_status *st);

#endif
