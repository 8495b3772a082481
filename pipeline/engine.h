/* engine.h - the chunk engine's parts, for its own files only:
 *   queue.c    a bounded blocking queue of chunks
 *   staging.c  the chunks' buffers: the engine's own, page-locked ones, the backend's
 *   engine.c   the run: reader and writer threads, the driving loop, the stats
 * The run struct is the state they share. */
#ifndef GS_ENGINE_H
#define GS_ENGINE_H

#include "pipeline.h"
#include "backends.h"

#include <pthread.h>
#include <stdatomic.h>

/* ---- queue.c ---------------------------------------------------------------------------------- */
typedef struct gs_queue {
    gs_chunk **items;
    size_t cap, head, count;
    int closed; /* no more pushes: pops drain then return NULL */
    pthread_mutex_t mu;
    pthread_cond_t cv;
} gs_queue;

int gs_queue_init(gs_queue *q, size_t cap);
void gs_queue_free(gs_queue *q);
/* The queue's capacity always covers every chunk that exists, so a push never blocks. */
void gs_queue_push(gs_queue *q, gs_chunk *c);
/* NULL when the queue is closed and empty. */
gs_chunk *gs_queue_pop(gs_queue *q);
void gs_queue_close(gs_queue *q);

/* ---- direct.c: the input read where it lies -------------------------------------------------------- */
#define GS_DIRECT_MAX_WINDOWS 16
#define GS_DIRECT_AHEAD 1 /* windows page-locked ahead of the one the reader is in */
/* A window of GS_DIRECT_WINDOW_CHUNKS chunks of the mapped file, page-locked in units: one a chunk
 * where chunks start on page boundaries, else the whole window (whose last chunk, crossing into
 * the next window's first page, is then copied). */
enum { GS_DWIN_FREE = 0, GS_DWIN_PINNING, GS_DWIN_READY, GS_DWIN_REFUSED, GS_DWIN_RELEASE };
typedef struct gs_dwin {
    int64_t idx;     /* the window's number (state FREE: none) */
    int state;       /* GS_DWIN_*, under the pinner's lock */
    int nunits;
    const char *unit[GS_DIRECT_WINDOW_CHUNKS];
    size_t unit_bytes[GS_DIRECT_WINDOW_CHUNKS];
    int refs;        /* its chunks the reader handed on that have not come back (the reader's) */
} gs_dwin;

typedef struct gs_direct {
    int on;              /* the plan's direct input, for as long as the backend locks windows */
    int started;         /* origin and end are known, the pinner runs */
    const char *origin;  /* the first chunk read in place; windows count from it */
    const char *end;     /* the end of the input's elements in the mapping */
    const char *next;    /* past the last view handed on */
    size_t chunk_bytes;
    int aligned;         /* chunks start on page boundaries: one registration a chunk */
    int64_t cur;         /* the window the reader is in (-1: none yet) */
    gs_backend *b;       /* the backend that locks the pages */
    /* the pinner: a thread that locks windows up to `want` in order and releases those marked */
    pthread_t pinner;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int have_pinner, quit, refusing;
    int64_t want, pinned; /* windows [0, want] asked for; [0, pinned) locked or refused */
    gs_dwin win[GS_DIRECT_MAX_WINDOWS];
    int64_t *chunk_win;  /* per input chunk: the window its view lies in, -1 where it has a buffer */
    void **stash;        /* per input chunk: its staging buffer (buf, data, cap) while it is a view */
    void **stash_data;
    size_t *stash_cap;
    double pin_busy, unpin_busy;
    uint64_t pin_bytes, chunks_direct, chunks_copied;
    char refused[300];   /* why the backend stopped locking windows ("" while it locks them) */
} gs_direct;

/* ---- the run ------------------------------------------------------------------------------------ */
/* A chunk read before the backend's chunk size was known may be larger than it (a GPU short of
 * device memory shrinks its chunk): it is submitted as views of at most b->chunk_elems elements. */
typedef struct gs_piece {
    gs_chunk view;
    gs_chunk *whole; /* NULL: slot free */
    int last;        /* the whole chunk's last view: it goes back to the reader when this retires */
} gs_piece;

/* Who allocated a chunk's buffer: the backend (host_alloc), the engine (posix_memalign), or the
 * engine with the backend's host_register on it. */
enum { GS_OWN_BACKEND = 0, GS_OWN_ENGINE = 1, GS_OWN_REGISTERED = 2 };

typedef struct gs_run {
    const gs_chain *chain;     /* chain_run */
    gs_chain chain_run;        /* the caller's chain, each stage told how many inputs reach it */
    gs_engine_opts o;          /* the caller's options, buffers and chunk as the plan settled them */
    gs_plan plan;
    const gs_backend_parts *parts;
    gs_source *src;
    gs_writer *w;
    const struct gs_rowmap *rows; /* positions are written as input rows through this (NULL: as they are) */
    gs_rowtext *text;          /* compact --rows: positions are written as these input rows */
    int keep;                  /* --keep: each result after its row's kept columns (text) */
    const struct gs_rowmap *arg_map; /* rolling's argmin/argmax columns are written as input rows
                                  through this (NULL: as they are) */
    unsigned arg_cols;         /* those columns, as bits of one input column's results (each has them) */
    uint64_t *kpos;            /* argmin/argmax columns as rows: one column's positions of an output chunk */
    size_t kpos_cap;
    uint64_t in_done;          /* input elements of the chunks retired so far */
    gs_type types[GS_CHAIN_MAX + 1];
    int cols;
    int in_cols;               /* columns of the source (rows of in_cols values; 1: one column) */
    gs_backend_cfg cfg;
    gs_backend *made;          /* the backend, once made (the driving thread's) */
    int text_in;               /* the reader's blocks go to the backend's parser (gs_backend.text_in) */
    /* the backend once started, for the reader (set once, under mu) */
    gs_backend *b;
    int b_pin;                 /* it pins its staging: engine-owned input buffers get page-locked or replaced */
    pthread_mutex_t mu;
    pthread_cond_t cv;         /* b set, or the run failed */
    size_t chunk_elems, in_size, out_size, halo, nchunks;
    gs_chunk *ins, *outs;
    unsigned char *in_own;     /* per input chunk: GS_OWN_* */
    unsigned char *out_own;    /* the same per output chunk */
    unsigned char *out_state;  /* per output chunk, under mu: 0 no buffer, 1 being allocated, 2 ready */
    size_t out_bytes;          /* an output buffer's size (under mu: grows where the backend returns
                                  zstd frames, gs_backend.zenc_bytes) */
    gs_queue free_in, ready, free_out, written;
    pthread_mutex_t err_mu;
    gs_status err;             /* the first failure */
    atomic_int failed;         /* read by the driving loop without the lock */
    double read_busy, write_busy, compute_busy;
    uint64_t elems_in, values_out, chunks;
    gs_piece *pieces;
    int npieces;
    gs_direct dir;
} gs_run;

void gs_run_fail(gs_run *r, const gs_status *st);

/* ---- rowsout.c: input rows in the output ------------------------------------------------------ */
/* What the chain writes as input rows, from the source's row map and row store (r->rows, r->text,
 * r->keep, r->arg_map, r->arg_cols); GS_EUSAGE where the chain cannot (a position or a kept row of
 * a stage after a compaction, --keep or --rows without the store). */
int gs_rows_setup(gs_run *r, const gs_chain *chain, const gs_source *src, gs_status *st);
/* Positions of the stream as input rows, in place. */
void gs_rows_positions(const gs_run *r, uint64_t *p, size_t n);
/* rolling's argmin/argmax columns of output chunk c as input rows, in place. */
int gs_rows_args(gs_run *r, gs_chunk *c, gs_status *st);
/* compact --rows: chunk c's rows to the writer; --keep: its results after their rows' kept columns.
 * Either lets the rows before c's input end go. */
int gs_rows_write(gs_run *r, gs_chunk *c, gs_status *st);
int gs_rows_write_keep(gs_run *r, gs_chunk *c, gs_status *st);

/* ---- staging.c ---------------------------------------------------------------------------------- */
/* The backend has started: the reader takes its staging from now on (page-locked where it pins). */
void gs_stage_publish(gs_run *r, gs_backend *b);
/* Input chunk c's buffer: the backend's once it has started (replacing or page-locking an engine-
 * owned one where the backend pins its staging), else an engine-owned one where the reader may
 * start early, else it waits. */
int gs_stage_in(gs_run *r, gs_chunk *c, gs_status *st);
/* Output chunk c's buffer, and where the backend returns zstd frames, a table and room for them. */
int gs_stage_out(gs_run *r, gs_chunk *c, gs_status *st);
/* After each chunk the reader hands on: one output buffer the driving thread has not needed yet. */
void gs_stage_out_ahead(gs_run *r);
/* Chunk c as compressed frames, where the backend decodes them and the source has them now:
 * *n = elements (0: read it decoded). */
int gs_stage_frames(gs_run *r, gs_chunk *c, size_t *n, gs_status *st);
/* Every chunk's buffers, back to whoever allocated them. */
void gs_stage_free_all(gs_run *r);

/* ---- direct.c ------------------------------------------------------------------------------------ */
/* Per-chunk state for nchunks input chunks (GS_ENOMEM where short). */
int gs_direct_init(gs_run *r);
/* The reader has input chunk c back: where it was a view, its window lets go of it (a window no
 * chunk holds any more is released) and its staging buffer is back. */
void gs_direct_back(gs_run *r, gs_chunk *c);
/* Chunk c as a view of the mapped file (1, c->n set), or 0: read it into its buffer (not a view
 * now, a chunk across a window's edge, the backend refused); 2: every element was handed on as a
 * view (the reader checks the end); -1 with st where the input failed. */
int gs_direct_take(gs_run *r, gs_chunk *c, gs_status *st);
/* The pinner stopped (what it was asked to release, released): its counters are final. */
void gs_direct_stop(gs_run *r);
/* Every window released, views undone (before the staging buffers are freed). */
void gs_direct_free(gs_run *r);

#endif
