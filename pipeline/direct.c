/* direct.c - the input read where it lies (engine.h; the plan's direct input, plan.h).
 *
 * Where the source is a mapped file (gs_source.view: a regular, uncompressed raw or npy file) and
 * the started backend locks pages of it (gs_backend.file_register), the reader hands on each chunk
 * as a view of the mapping instead of copying it into a staging buffer: the copy engine then reads
 * the page cache itself, and every input byte crosses host memory once instead of three times.
 * The mapping is page-locked in windows of GS_DIRECT_WINDOW_CHUNKS chunks, counted from the first
 * chunk read in place, by a thread of its own (the pinner): it locks windows in order up to
 * GS_DIRECT_AHEAD past the one the reader is in, so that the reader seldom waits for one, each on
 * the thread pool with one registration a chunk where chunks start on page boundaries, else as one
 * registration (the window's last chunk then reaches into the next window's first page, and is
 * copied); and it releases a window once the reader has moved past it and every chunk in it has
 * come back retired. Chunks before the backend started (run on the CPU while CUDA starts), chunks
 * across a window's edge, and every chunk after the backend refused a window are read into
 * staging buffers as before; each chunk keeps its staging buffer aside while it is a view.
 *
 * A file that shrinks: the source checks the file's size before every view and fails the run
 * where it is shorter (io/file.c), and a window's registration fails where its pages are gone; the
 * pages of a window locked before the shrink keep the bytes they held, so nothing faults. */
#include "engine.h"
#include "../common/pool.h"
#include "../common/trace.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t page_size(void)
{
    const long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

static const char *page_floor(const char *p, size_t pg) { return (const char *)((uintptr_t)p & ~(uintptr_t)(pg - 1)); }
static const char *page_ceil(const char *p, size_t pg) { return page_floor(p + pg - 1, pg); }

int gs_direct_init(gs_run *r)
{
    gs_direct *d = &r->dir;
    memset(d, 0, sizeof *d);
    d->cur = d->want = -1;
    pthread_mutex_init(&d->mu, NULL);
    pthread_cond_init(&d->cv, NULL);
    if (!r->plan.direct || !r->src->view) return GS_OK;
    d->chunk_win = malloc(r->nchunks * sizeof *d->chunk_win);
    d->stash = calloc(r->nchunks, sizeof *d->stash);
    d->stash_data = calloc(r->nchunks, sizeof *d->stash_data);
    d->stash_cap = calloc(r->nchunks, sizeof *d->stash_cap);
    if (!d->chunk_win || !d->stash || !d->stash_data || !d->stash_cap) return GS_ENOMEM;
    for (size_t i = 0; i < r->nchunks; i++) d->chunk_win[i] = -1;
    d->on = 1;
    return GS_OK;
}

/* Under d->mu: the window numbered idx, or NULL. */
static gs_dwin *win_find(gs_direct *d, int64_t idx)
{
    for (int i = 0; i < GS_DIRECT_MAX_WINDOWS; i++)
        if (d->win[i].state != GS_DWIN_FREE && d->win[i].idx == idx) return &d->win[i];
    return NULL;
}

static gs_dwin *win_free_slot(gs_direct *d)
{
    for (int i = 0; i < GS_DIRECT_MAX_WINDOWS; i++)
        if (d->win[i].state == GS_DWIN_FREE) return &d->win[i];
    return NULL;
}

/* The units of window idx (the geometry is the reader's, fixed once started). */
static void win_units(const gs_direct *d, gs_dwin *w, int64_t idx)
{
    const size_t pg = page_size(), wbytes = d->chunk_bytes * GS_DIRECT_WINDOW_CHUNKS;
    const size_t left = (size_t)(d->end - d->origin) - (size_t)idx * wbytes;
    const char *lo = d->origin + (size_t)idx * wbytes, *hi = lo + (left < wbytes ? left : wbytes);
    w->nunits = 0;
    if (d->aligned) {
        for (const char *u = lo; u < hi; u += d->chunk_bytes) {
            const char *ue = (size_t)(hi - u) < d->chunk_bytes ? hi : u + d->chunk_bytes;
            w->unit[w->nunits] = u;
            w->unit_bytes[w->nunits++] = (size_t)(page_ceil(ue, pg) - u);
        }
    } else {
        const char *ulo = page_floor(lo, pg), *uhi = hi == d->end ? page_ceil(hi, pg) : page_floor(hi, pg);
        if (uhi > ulo) {
            w->unit[0] = ulo;
            w->unit_bytes[0] = (size_t)(uhi - ulo);
            w->nunits = 1;
        }
    }
}

/* Unregister window w's units; settled: none of its chunks is in flight. */
static void win_unpin(gs_direct *d, gs_dwin *w, int settled)
{
    const double t0 = gs_now();
    for (int u = 0; u < w->nunits; u++) d->b->file_unregister(d->b, w->unit[u], w->unit_bytes[u], settled);
    d->unpin_busy += gs_now() - t0;
    gs_trace("direct: window %lld released", (long long)w->idx);
}

typedef struct reg_job {
    gs_backend *b;
    gs_dwin *w;
    int rc[GS_DIRECT_WINDOW_CHUNKS];
    gs_status st[GS_DIRECT_WINDOW_CHUNKS];
} reg_job;

static void reg_part(void *ctx, size_t part, size_t nparts)
{
    (void)nparts;
    reg_job *j = ctx;
    j->rc[part] = j->b->file_register(j->b, j->w->unit[part], j->w->unit_bytes[part], &j->st[part]);
}

/* The window's pages mapped in before they are locked, in pieces across the pool (advice: a kernel
 * without MADV_POPULATE_READ, or a refusal, leaves the locking to fault them in itself). */
#define GS_DIRECT_POPULATE_PIECE ((size_t)4 << 20)
typedef struct pop_job {
    const gs_dwin *w;
    size_t pg;
} pop_job;

/* the pieces of a unit of ub bytes */
static size_t pop_pieces(size_t ub) { return (ub + GS_DIRECT_POPULATE_PIECE - 1) / GS_DIRECT_POPULATE_PIECE; }

/* piece `part`, the window's pieces numbered unit by unit */
static void pop_part(void *ctx, size_t part, size_t nparts)
{
    (void)nparts;
    const pop_job *j = ctx;
    for (int u = 0; u < j->w->nunits; u++) {
        const size_t ub = j->w->unit_bytes[u], np = pop_pieces(ub);
        if (part >= np) {
            part -= np;
            continue;
        }
        const size_t at = part * GS_DIRECT_POPULATE_PIECE;
        const size_t end = at + GS_DIRECT_POPULATE_PIECE < ub ? at + GS_DIRECT_POPULATE_PIECE : ub;
        const char *a = page_floor(j->w->unit[u] + at, j->pg), *z = page_ceil(j->w->unit[u] + end, j->pg);
#ifdef MADV_POPULATE_READ
        (void)madvise((void *)a, (size_t)(z - a), MADV_POPULATE_READ);
#else
        (void)a, (void)z;
#endif
        return;
    }
}

/* Window w's units page-locked on the pool: GS_OK, or non-zero (the message in why) where the
 * backend refused one (those that took are undone). */
static int win_pin(gs_direct *d, gs_dwin *w, char *why, size_t len)
{
    reg_job j;
    memset(&j, 0, sizeof j);
    j.b = d->b;
    j.w = w;
    const double t0 = gs_now();
    size_t np = 0;
    for (int u = 0; u < w->nunits; u++) np += pop_pieces(w->unit_bytes[u]);
    pop_job pj = {w, page_size()};
    gs_parallel_for(np, pop_part, &pj); /* one part or none runs on this thread */
    gs_parallel_for((size_t)w->nunits, reg_part, &j);
    const double t1 = gs_now();
    int bad = -1;
    uint64_t bytes = 0;
    for (int u = 0; u < w->nunits; u++) {
        if (j.rc[u] && bad < 0) bad = u;
        bytes += j.rc[u] ? 0 : w->unit_bytes[u];
    }
    if (bad >= 0) {
        for (int u = 0; u < w->nunits; u++)
            if (!j.rc[u]) d->b->file_unregister(d->b, w->unit[u], w->unit_bytes[u], 1);
        snprintf(why, len, "%s", j.st[bad].msg[0] ? j.st[bad].msg : "page-locking refused");
        gs_trace("direct: window %lld refused: %s", (long long)w->idx, why);
        w->nunits = 0;
        return GS_EDATA;
    }
    d->pin_busy += t1 - t0;
    d->pin_bytes += bytes;
    gs_trace("direct: window %lld page-locked, %d unit(s), %llu B in %.2f ms", (long long)w->idx, w->nunits,
             (unsigned long long)bytes, (t1 - t0) * 1e3);
    return GS_OK;
}

/* The pinner: releases what is marked, then locks the next window asked for, in order; after a
 * refusal it locks no more. */
static void *pinner_main(void *arg)
{
    gs_direct *d = arg;
    char why[sizeof d->refused];
    pthread_mutex_lock(&d->mu);
    for (;;) {
        gs_dwin *w = NULL;
        for (int i = 0; i < GS_DIRECT_MAX_WINDOWS && !w; i++)
            if (d->win[i].state == GS_DWIN_RELEASE) w = &d->win[i];
        if (w) {
            pthread_mutex_unlock(&d->mu);
            win_unpin(d, w, 1);
            pthread_mutex_lock(&d->mu);
            w->state = GS_DWIN_FREE;
            pthread_cond_broadcast(&d->cv);
            continue;
        }
        if (d->quit) break;
        if (!d->refusing && d->pinned <= d->want && (w = win_free_slot(d))) {
            w->idx = d->pinned;
            w->state = GS_DWIN_PINNING;
            w->refs = 0;
            pthread_mutex_unlock(&d->mu);
            win_units(d, w, w->idx);
            const int rc = win_pin(d, w, why, sizeof why);
            pthread_mutex_lock(&d->mu);
            w->state = rc ? GS_DWIN_REFUSED : GS_DWIN_READY;
            if (rc) {
                d->refusing = 1;
                snprintf(d->refused, sizeof d->refused, "%s", why);
            }
            d->pinned++;
            pthread_cond_broadcast(&d->cv);
            continue;
        }
        pthread_cond_wait(&d->cv, &d->mu);
    }
    pthread_mutex_unlock(&d->mu);
    return NULL;
}

/* Under d->mu: windows behind the reader that no chunk holds any more, to the pinner. */
static void mark_behind(gs_direct *d)
{
    for (int i = 0; i < GS_DIRECT_MAX_WINDOWS; i++)
        if (d->win[i].state == GS_DWIN_READY && d->win[i].idx < d->cur && d->win[i].refs == 0) {
            d->win[i].state = GS_DWIN_RELEASE;
            pthread_cond_broadcast(&d->cv);
        }
}

void gs_direct_back(gs_run *r, gs_chunk *c)
{
    gs_direct *d = &r->dir;
    const size_t i = (size_t)(c - r->ins);
    if (!d->chunk_win || d->chunk_win[i] < 0) return;
    pthread_mutex_lock(&d->mu);
    gs_dwin *w = win_find(d, d->chunk_win[i]);
    if (w) w->refs--;
    mark_behind(d);
    pthread_mutex_unlock(&d->mu);
    d->chunk_win[i] = -1;
    c->buf = d->stash[i];
    c->data = d->stash_data[i];
    c->cap = d->stash_cap[i];
}

/* Whether the chunk [p, p + len) lies in one of window w's units. */
static int fits(const gs_dwin *w, const char *p, size_t len)
{
    for (int u = 0; u < w->nunits; u++)
        if (p >= w->unit[u] && p + len <= w->unit[u] + w->unit_bytes[u]) return 1;
    return 0;
}

/* Where the views start: the geometry of the windows, and the pinner started (0: no pinner, the
 * chunks are copied). */
static int start(gs_run *r, gs_backend *b, const void *p, gs_status *st)
{
    gs_direct *d = &r->dir;
    const void *q = NULL;
    size_t all = 0;
    if (r->src->view(r->src->ctx, SIZE_MAX / r->in_size, 0, &q, &all, st)) return -1;
    d->b = b;
    d->origin = p;
    d->end = (const char *)p + all * r->in_size;
    d->chunk_bytes = r->chunk_elems * r->in_size;
    d->aligned = (uintptr_t)p % page_size() == 0 && d->chunk_bytes % page_size() == 0;
    d->started = 1;
    d->have_pinner = pthread_create(&d->pinner, NULL, pinner_main, d) == 0;
    if (!d->have_pinner) d->on = 0;
    gs_trace("direct: from %p, %zu elements, chunks %s page boundaries", p, all, d->aligned ? "on" : "not on");
    return d->have_pinner;
}

/* Under d->mu: window idx once the pinner is done with it, or NULL where it will not be (refused,
 * or every slot holds chunks in flight: waiting could wait for ever). */
static gs_dwin *wait_window(gs_direct *d, int64_t idx)
{
    for (;;) {
        gs_dwin *w = win_find(d, idx);
        if (w && w->state != GS_DWIN_PINNING) return w;
        if (!w && (d->pinned > idx || d->refusing || !win_free_slot(d))) return NULL;
        pthread_cond_wait(&d->cv, &d->mu);
    }
}

int gs_direct_take(gs_run *r, gs_chunk *c, gs_status *st)
{
    gs_direct *d = &r->dir;
    const size_t i = (size_t)(c - r->ins);
    const void *p = NULL, *q = NULL;
    size_t got = 0, again = 0;
    if (!d->on) return 0;
    pthread_mutex_lock(&r->mu);
    gs_backend *b = r->b;
    pthread_mutex_unlock(&r->mu);
    if (!b) return 0; /* before the start: the chunks run on the CPU from staging buffers */
    if (!b->file_register || !b->file_unregister) { /* the backend said why, where it is not the CPU's */
        d->on = 0;
        return 0;
    }
    if (r->src->view(r->src->ctx, r->chunk_elems, 0, &p, &got, st)) return -1;
    if (!got) return d->started && d->next == d->end ? 2 : 0; /* 2: every element handed out */
    if (!d->started) {
        const int rc = start(r, b, p, st);
        if (rc <= 0) return rc;
    }
    const char *at = p;
    const size_t len = got * r->in_size;
    if (at < d->origin || at + len > d->end || (size_t)(at - d->origin) % d->chunk_bytes) return 0;
    const int64_t idx = (int64_t)((size_t)(at - d->origin) / d->chunk_bytes / GS_DIRECT_WINDOW_CHUNKS);
    const int64_t last = (int64_t)((size_t)(d->end - d->origin - 1) / d->chunk_bytes / GS_DIRECT_WINDOW_CHUNKS);
    pthread_mutex_lock(&d->mu);
    if (idx > d->cur) d->cur = idx;
    mark_behind(d);
    if (d->want < idx + GS_DIRECT_AHEAD) d->want = idx + GS_DIRECT_AHEAD < last ? idx + GS_DIRECT_AHEAD : last;
    pthread_cond_broadcast(&d->cv);
    gs_dwin *w = wait_window(d, idx);
    const int ok = w && w->state == GS_DWIN_READY && fits(w, at, len);
    if (w && w->state == GS_DWIN_REFUSED) {
        d->on = 0; /* the rest is copied */
        w->state = GS_DWIN_FREE;
    }
    if (ok) w->refs++;
    pthread_mutex_unlock(&d->mu);
    if (!ok) {
        d->chunks_copied++;
        return 0;
    }
    if (r->src->view(r->src->ctx, r->chunk_elems, 1, &q, &again, st)) return -1;
    if (q != p || again != got) return gs_fail(st, GS_EDATA, "direct input: the source moved under a view"), -1;
    d->stash[i] = c->buf;
    d->stash_data[i] = c->data;
    d->stash_cap[i] = c->cap;
    d->chunk_win[i] = idx;
    d->chunks_direct++;
    d->next = at + len;
    c->buf = c->data = (void *)(uintptr_t)p;
    c->cap = got;
    c->n = got;
    c->zn = 0;
    return 1;
}

void gs_direct_stop(gs_run *r)
{
    gs_direct *d = &r->dir;
    if (!d->have_pinner) return;
    pthread_mutex_lock(&d->mu);
    d->quit = 1;
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->mu);
    pthread_join(d->pinner, NULL);
    d->have_pinner = 0;
}

void gs_direct_free(gs_run *r)
{
    gs_direct *d = &r->dir;
    gs_direct_stop(r);
    for (size_t i = 0; d->chunk_win && i < r->nchunks && r->ins; i++)
        if (d->chunk_win[i] >= 0) {
            r->ins[i].buf = d->stash[i];
            r->ins[i].data = d->stash_data[i];
            r->ins[i].cap = d->stash_cap[i];
            d->chunk_win[i] = -1;
        }
    for (int k = 0; k < GS_DIRECT_MAX_WINDOWS; k++) {
        gs_dwin *w = &d->win[k];
        if (w->state == GS_DWIN_READY || w->state == GS_DWIN_RELEASE) win_unpin(d, w, 0);
        w->state = GS_DWIN_FREE;
    }
    free(d->chunk_win);
    free(d->stash);
    free(d->stash_data);
    free(d->stash_cap);
    d->chunk_win = NULL;
    d->stash = d->stash_data = NULL;
    d->stash_cap = NULL;
    pthread_mutex_destroy(&d->mu);
    pthread_cond_destroy(&d->cv);
}
