/* staging.c - the chunks' buffers (engine.h). Chunks get their buffers as first needed and keep
 * them for the run. Before the backend has started, the reader fills engine-owned pageable
 * buffers (where the plan lets it read early); a backend that pins its staging then has each
 * engine-owned buffer page-locked where it lies as it comes back (--host-mem pinned: the backend
 * can register memory), or replaced by one of its own, and output buffers pinned as first needed:
 * the pinning is spread over the run instead of paid before the first copy. */
#include "engine.h"
#include "../common/pool.h"
#include "../common/trace.h"

#include <stdlib.h>
#include <string.h>


void gs_stage_publish(gs_run *r, gs_backend *b)
{
    pthread_mutex_lock(&r->mu);
    r->b = b;
    r->b_pin = b->pins;
    if (b->zenc_tab_max && b->zenc_bytes > r->out_bytes) r->out_bytes = b->zenc_bytes;
    /* a reader that waited for the backend reads the chunk it takes */
    if (!r->plan.read_early && b->chunk_elems && b->chunk_elems < r->chunk_elems) r->chunk_elems = b->chunk_elems;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

/* Pages [part] of a fresh buffer written (faulted in) on the pool. */
typedef struct fault_job {
    char *p;
    size_t n;
} fault_job;

static void fault_part(void *ctx, size_t part, size_t nparts)
{
    const fault_job *j = ctx;
    size_t b, e;
    gs_split(j->n / 4096, nparts, part, &b, &e);
    for (size_t i = b; i < e; i++) j->p[i * 4096] = 0;
}

/* A staging buffer for backend b: engine memory page-locked in place where b can register it
 * (cheaper than a fresh pinned allocation), else b's own; before any backend has started (b NULL),
 * engine memory, page-locked later if need be. */
static void *stage_alloc(gs_backend *b, size_t bytes, unsigned char *own, gs_status *st)
{
    void *p = NULL;
    if (b && !b->host_register) {
        *own = GS_OWN_BACKEND;
        return b->host_alloc(b, bytes, st);
    }
    const size_t n = bytes ? bytes : 4096;
    if (!(p = gs_alloc_large(n))) {
        gs_fail(st, GS_ENOMEM, "out of host memory allocating a %zu-byte chunk (use a smaller --chunk)", bytes);
        return NULL;
    }
    *own = GS_OWN_ENGINE;
    if (!b) return p;
    /* Page-locking faults in every page first, on this thread: 27 ms for 64 MiB on an H100 host,
     * against 4 ms for the pages written on 16 threads and 3 ms for the lock after
     * (tests/gpu/pincost.cu, docs/PERFORMANCE.md "Staging buffers"); the pool writes them. */
    const double t0 = gs_now();
    fault_job fj = {p, n};
    const size_t pages = n / 4096, parts = pages < 64 ? 1 : (size_t)gs_pool_threads();
    gs_parallel_for(parts, fault_part, &fj);
    const double t1 = gs_now();
    if (b->host_register(b, p, n, st)) {
        free(p);
        return NULL;
    }
    gs_trace("staging buffer of %zu B: pages written %.1f ms, page-locked %.1f ms", n, (t1 - t0) * 1e3,
             (gs_now() - t1) * 1e3);
    *own = GS_OWN_REGISTERED;
    return p;
}

static void stage_free(gs_backend *b, void *p, unsigned char own)
{
    if (!p) return;
    if (own == GS_OWN_BACKEND) {
        b->host_free(b, p);
        return;
    }
    if (own == GS_OWN_REGISTERED && b->host_unregister(b, p)) return; /* left to the process's end */
    free(p);
}

int gs_stage_in(gs_run *r, gs_chunk *c, gs_status *st)
{
    const size_t i = (size_t)(c - r->ins);
    size_t bytes;
    gs_backend *b;
    int pin;
    pthread_mutex_lock(&r->mu);
    while (!r->b && !r->plan.read_early && !atomic_load(&r->failed)) pthread_cond_wait(&r->cv, &r->mu);
    b = r->b;
    pin = r->b_pin;
    /* head room for the halo: what the backend asks for, at most a chunk before it has started (a
     * backend that needs more, the mapped GPU one, never lets the reader start early) */
    size_t head = r->halo;
    if (b ? b->max_head && b->max_head < head : head > r->chunk_elems) head = b ? b->max_head : r->chunk_elems;
    int over = gs_add_size(head, r->chunk_elems, &bytes) || gs_mul_size(bytes, r->in_size, &bytes);
    pthread_mutex_unlock(&r->mu);
    if (over)
        return gs_fail(st, GS_ENOMEM, "out of host memory for chunks of %zu + %zu elements", head, r->chunk_elems);
    if (atomic_load(&r->failed)) return GS_EDATA;
    if (c->buf && !(r->in_own[i] == GS_OWN_ENGINE && b && pin)) return GS_OK;
    if (c->buf && b->host_register && (char *)c->data - (char *)c->buf == (ptrdiff_t)(head * r->in_size) &&
        c->cap >= r->chunk_elems) {
        /* read before the backend started: page-locked where it lies (same head room, same size) */
        const double t0 = gs_now();
        if (b->host_register(b, c->buf, (head + c->cap) * r->in_size, st)) return st->code ? st->code : GS_EDATA;
        gs_trace("input buffer page-locked where it lies: %.1f ms", (gs_now() - t0) * 1e3);
        r->in_own[i] = GS_OWN_REGISTERED;
        return GS_OK;
    }
    if (c->buf) free(c->buf);
    c->buf = stage_alloc(b, bytes, &r->in_own[i], st);
    if (!c->buf) return st->code ? st->code : GS_ENOMEM;
    c->data = (char *)c->buf + head * r->in_size;
    c->cap = r->chunk_elems;
    return GS_OK;
}

/* Unless the reader is allocating it or has done so (gs_stage_out_ahead). Where the backend
 * returns zstd frames, out_bytes was raised for them when it started: no output buffer exists
 * before then on that path. */
int gs_stage_out(gs_run *r, gs_chunk *c, gs_status *st)
{
    const size_t i = (size_t)(c - r->outs);
    void *p;
    pthread_mutex_lock(&r->mu);
    while (r->out_state[i] == 1) pthread_cond_wait(&r->cv, &r->mu);
    gs_backend *b = r->b;
    const size_t bytes = r->out_bytes;
    c->zn = 0;
    c->zcap = 0;
    c->tlen = 0;
    c->tcap = r->plan.text_gpu ? bytes : 0;
    if (r->out_state[i] == 2) {
        const int pin = r->b_pin;
        pthread_mutex_unlock(&r->mu);
        /* filled on the CPU while CUDA started: page-locked where it lies once the backend pins */
        if (b && pin && r->out_own[i] == GS_OWN_ENGINE && b->host_register) {
            if (b->host_register(b, c->buf, bytes ? bytes : 4096, st)) return st->code ? st->code : GS_EDATA;
            r->out_own[i] = GS_OWN_REGISTERED;
        }
    } else {
        r->out_state[i] = 1;
        pthread_mutex_unlock(&r->mu);
        p = stage_alloc(b, bytes, &r->out_own[i], st); /* no backend yet: the CPU works while CUDA starts */
        pthread_mutex_lock(&r->mu);
        c->buf = c->data = p;
        r->out_state[i] = p ? 2 : 0;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
        if (!p) return st->code ? st->code : GS_ENOMEM;
    }
    if (b && b->zenc_tab_max) {
        if (!c->zt && !(c->zt = malloc(b->zenc_tab_max * sizeof *c->zt)))
            return gs_fail(st, GS_ENOMEM, "out of host memory for a frame table");
        c->zcap = bytes;
    }
    return GS_OK;
}

/* Pinning costs ~0.5 ms/MiB, and here it overlaps the transfers instead of holding up a submit.
 * A failure is left for the driving thread to meet and report. */
void gs_stage_out_ahead(gs_run *r)
{
    size_t i = 0;
    void *p;
    pthread_mutex_lock(&r->mu);
    if (r->b)
        while (i < r->nchunks && r->out_state[i]) i++;
    if (!r->b || i == r->nchunks) {
        pthread_mutex_unlock(&r->mu);
        return;
    }
    r->out_state[i] = 1;
    pthread_mutex_unlock(&r->mu);
    gs_status ignore = {0};
    p = stage_alloc(r->b, r->out_bytes, &r->out_own[i], &ignore);
    pthread_mutex_lock(&r->mu);
    r->outs[i].buf = r->outs[i].data = p;
    r->out_state[i] = p ? 2 : 0;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

/* Its buffer is the backend's pinned one, and the chunk is the reader's whole chunk (no views). */
int gs_stage_frames(gs_run *r, gs_chunk *c, size_t *n, gs_status *st)
{
    const size_t i = (size_t)(c - r->ins);
    *n = 0;
    c->zn = 0;
    pthread_mutex_lock(&r->mu);
    gs_backend *b = r->b;
    pthread_mutex_unlock(&r->mu);
    if (!b || !b->zalign || !r->src->frames || r->in_own[i] == GS_OWN_ENGINE || c->cap < r->chunk_elems ||
        (b->chunk_elems && b->chunk_elems < r->chunk_elems))
        return GS_OK;
    if (!c->zt && !(c->zt = malloc(b->ztab_max * sizeof *c->zt)))
        return gs_fail(st, GS_ENOMEM, "out of host memory for a frame table");
    size_t buf_bytes = (size_t)((char *)c->data - (char *)c->buf) + c->cap * r->in_size;
    gs_zframes_req q = {(unsigned char *)c->buf, buf_bytes < b->zbuf_max ? buf_bytes : b->zbuf_max, b->zalign,
                        r->chunk_elems * r->in_size, b->zframe_max, b->zunit, c->zt, b->ztab_max};
    size_t nf = 0;
    int rc = r->src->frames(r->src->ctx, &q, &nf, n, st);
    if (rc || !nf) return rc;
    c->zn = nf;
    c->zbytes = (size_t)(c->zt[nf - 1].off + c->zt[nf - 1].csize);
    return GS_OK;
}

void gs_stage_free_all(gs_run *r)
{
    gs_direct_free(r); /* views give their chunks' staging buffers back first */
    for (size_t i = 0; r->ins && i < r->nchunks; i++) {
        stage_free(r->b, r->ins[i].buf, r->in_own[i]);
        free(r->ins[i].zt);
    }
    for (size_t i = 0; r->outs && i < r->nchunks; i++) {
        stage_free(r->b, r->outs[i].buf, r->out_own[i]);
        free(r->outs[i].zt);
    }
    free(r->ins);
    free(r->outs);
    free(r->in_own);
    free(r->out_own);
    free(r->out_state);
}
