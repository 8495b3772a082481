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
    const gs_chain *chain;
    gs_engine_opts o;          /* the caller's options, buffers and chunk as the plan settled them */
    gs_plan plan;
    const gs_backend_parts *parts;
    gs_source *src;
    gs_writer *w;
    const struct gs_rowmap *rows; /* positions are written as input rows through this (NULL: as they are) */
    gs_rowtext *text;          /* compact --rows: positions are written as these input rows */
    int keep;                  /* --keep: each result after its row's kept columns (text) */
    uint64_t *kpos;            /* --keep on scan: the stream positions of an output chunk */
    size_t kpos_cap;
    uint64_t in_done;          /* input elements of the chunks retired so far */
    gs_type types[GS_CHAIN_MAX + 1];
    int cols;
    gs_backend_cfg cfg;
    gs_backend *made;          /* the backend, once made (the driving thread's) */
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
} gs_run;

void gs_run_fail(gs_run *r, const gs_status *st);

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

#endif
