/* rowtext.h - the row store's insides (io/rowtext.c: the store and compact --rows; io/rowkeep.c:
 * --keep), private to those two files. */
#ifndef GS_IO_ROWTEXT_H
#define GS_IO_ROWTEXT_H

#include "io_internal.h"

#include <pthread.h>

/* Text being put together for the output, and one row's field spans (--keep). */
typedef struct gs_rt_buf {
    char *out;
    size_t len, cap;
    size_t *fs;
    size_t fs_cap;
    int nomem;
    char pad[64];    /* parts written by different threads never share a cache line */
} gs_rt_buf;

/* Memory that holds rows: a block of the line decoder's, lent with its rows where they lie, or a
 * copy (rows of a quoted block, with the part carried over). Freed, or kept for reuse, once no
 * segment refers to it. */
struct gs_rowtext_mem {
    char *p;
    size_t cap;      /* bytes allocated */
    int refs;
};

typedef struct gs_rt_seg {
    uint64_t first;  /* stream position of its first value */
    size_t n;        /* values */
    const char *text;
    gs_rowtext_mem *mem; /* where text lies */
    int64_t *spans;  /* value i's row: text + spans[2i], spans[2i+1] bytes */
    size_t spans_cap; /* bytes allocated */
    int quotes;      /* its rows hold a quote character */
    int kept;        /* its spans are the values' kept fields (GS_ROWS_KEPT), not rows */
    struct gs_rt_seg *next;
} gs_rt_seg;

/* Buffers of released segments, handed back to the line decoder (gs_rowtext_reuse): a buffer
 * written again is already mapped, where a fresh one costs a page fault per page. As many as the
 * segments of the chunks in flight (a block's pieces, one a thread, times the blocks held), so that
 * none is freed only to be allocated again. */
#define SPARE_MAX 512
typedef struct spare {
    void *p[SPARE_MAX];
    size_t cap[SPARE_MAX];
    int n;
} spare;

struct gs_rowtext {
    pthread_mutex_t mu;
    gs_rt_seg *head, *tail;
    uint64_t end;    /* stream position after the last value appended */
    char *header;    /* the header row's bytes (NULL: none) */
    size_t header_len;
    /* --keep: the columns written before each result (0-based; all: every field), the value's
     * column (0-based) and the delimiter */
    int *keep, nkeep, keep_all, vcol;
    char delim;
    int need, need_kept; /* fields of a row to find: 1 + the last column written, with the value's
                          * field (compact) and without it (results written instead) */
    int ncols;       /* results a row (rolling: one per aggregate), each printed as coltypes[c] */
    gs_type coltypes[GS_WRITE_COLS_MAX];
    int coltyped;    /* coltypes given (else each value in its own type) */
    gs_rt_buf *parts;     /* the writer's scratch: one per part of a batch of rows */
    size_t nparts;
    spare spare[2];  /* [0] text, [1] spans */
};

/* Bytes onto a text buffer (nomem set where memory is short). */
void gs_rt_out_add(gs_rt_buf *b, const char *p, size_t n);
/* The row of stream position p in the segments from *s on (positions ascend): its bytes, or NULL
 * where it is not held. */
const char *gs_rt_row_at(gs_rt_seg **s, uint64_t p, size_t *len);
/* The oldest segment held (the writer walks on from it without the lock: rowtext.c says why). */
gs_rt_seg *gs_rt_first(gs_rowtext *t);
/* The error of a position not held. */
int gs_rt_not_held(uint64_t p, gs_status *st);
/* Scratch for np parts of a batch; -1 where memory is short. */
int gs_rt_parts(gs_rowtext *t, size_t np);

#endif
