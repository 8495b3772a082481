/* csv_ldec.h - the line engine's state (private to io/csv_lines.c, which cuts and parses the blocks
 * and hands the values out, and io/csv_buffers.c, which reads the blocks into its buffers, opens
 * and closes it). */
#ifndef GS_IO_CSV_LDEC_H
#define GS_IO_CSV_LDEC_H

#include <stdatomic.h>

#include "csv_lines.h"

#define DEFAULT_BLOCK GS_TEXT_BLOCK_BYTES
#define MIN_PIECE 4096             /* smaller pieces are not worth a thread */
#define HEADROOM ((size_t)1 << 20) /* room for the carried tail before a block read ahead
                                      (a block's worth when blocks are smaller) */
#define MAX_LINE ((size_t)1 << 30) /* a longer line (text: token) is an error, not a reason to
                                      hold the whole input in memory */

/* A run of values to copy out to the reader. */
typedef struct copy_seg {
    const char *src;
    char *dst;
    size_t bytes;
} copy_seg;

struct gs_ldec {
    gs_decoder base;
    gs_lparse cfg;
    gs_lines_dialect dl;
    int nthreads;
    size_t block;
    char *buf;           /* unparsed bytes are [pos, len) */
    size_t cap, pos, len;
    int eof;             /* the source is exhausted */
    int cr_lines;        /* lines end in a lone '\r': every '\r' read is turned into '\n' */
    /* read-ahead: while a block is parsed, the next one is read into abuf at `headroom`; the
     * carried tail of the block is then put in front of it and the buffers swap */
    size_t headroom;
    char *abuf;
    size_t acap, apos, alen;
    int ahead, rd_eof, rd_rc;
    gs_status rd_st;
    int seq_mode;        /* this block goes to dl.seq */
    int quotes_seen;     /* an earlier block held a quote character */
    int midrow;          /* the last sequential block ended inside a row (a quoted line break) */
    int done;            /* and every byte is parsed */
    uint64_t line_base;  /* '\n' before buf[pos] */
    gs_piece *pieces;    /* the current block's pieces; value arrays are reused */
    size_t npieces_cap, npieces, cur, off;
    copy_seg *segs;      /* one per piece: read() copies out in parallel */
    gs_status fail;      /* a failure is sticky: later reads repeat it */
    uint64_t stream_n;   /* values of the blocks before this one (row map positions) */
    char *carry;         /* keep_rows: the bytes of a quoted row still open at the last block's end */
    size_t carry_len;
    /* blocks parsed elsewhere: the parser (NULL: none), set by another thread; off once declined */
    _Atomic(const gs_text_parser *) tp;
    int tp_off;
    const gs_text_parser *tp_now; /* this block's; its answer: */
    int tp_rc;
    const void *tp_vals;
    size_t tp_n;
    gs_status tp_st;
    double t_ahead, t_offer; /* GS_TRACE: the last read-ahead's and offer's seconds */
};

/* A failure, remembered: later reads repeat it. */
int gs_ldec_fail(gs_ldec *L, gs_status *st, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The failure the source reported in st, remembered. */
int gs_ldec_src_fail(gs_ldec *L, int code, const gs_status *st);
/* Move the unparsed bytes to the front and read until there are `want` of them, the buffer is full
 * or the source ends. */
int gs_ldec_fill(gs_ldec *L, size_t want, gs_status *st);
/* Double the buffer (a line longer than a block), up to MAX_LINE. */
int gs_ldec_grow(gs_ldec *L, gs_status *st);
/* Read the next block into abuf (the read-ahead part of a block's job). */
void gs_ldec_read_ahead(gs_ldec *L);
/* After a block's job: the carried tail goes in front of the block read ahead; the buffers swap. */
int gs_ldec_take_ahead(gs_ldec *L, gs_status *st);
/* The block's buffer was lent to the row store: read on into another (csv_buffers.c says how). */
int gs_ldec_replace_lent(gs_ldec *L, gs_rowtext_mem *lent, int swapped, gs_status *st);
/* The decoder's read: the values, block after block (csv_lines.c). */
int gs_ldec_read(gs_decoder *d, void *buf, size_t cap, size_t *got, gs_status *st);

#endif
