/* direct.c - the input read where it lies (engine.h; the plan's direct input, plan.h).
 *
 * Where the source is a mapped file (gs_source.view: a regular, uncompressed raw or npy file) and
 * the started backend locks pages of it (gs_backend.file_register), the reader hands on each chunk
 * as a view of the mapping instead of copying it into a staging buffer: the copy engine then reads
 * the page cache itself, and every input byte crosses host memory once instead of three times.
 * The mapping is page-locked in windows of GS_DIRECT_WINDOW_CHUNKS chunks, counted from the first
 * chunk read in place: a window is registered when the reader first reaches it (ahead of its
 * chunks' copies, which the driving thread issues later), on the thread pool with one registration
 * a chunk where chunks start on page boundaries, else as one registration (the window's last chunk
 * then reaches into the next window's first page, and is copied). A window is released once the
 * reader has moved past it and every chunk in it has come back retired. Chunks before the backend
 * started (run on the CPU while CUDA starts), chunks across a window's edge, and every chunk after
 * the backend refused a window are read into staging buffers as before; each chunk keeps its
 * staging buffer aside while it is a view. All of it runs on the reader thread, but gs_direct_free.
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
    d->cur = -1;
    for (int i = 0; i < GS_DIRECT_MAX_WINDOWS; i++) d->win[i].idx = -1;
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

static gs_dwin *win_find(gs_direct *d, int64_t idx)
{
    for (int i = 0; i < GS_DIRECT_MAX_WINDOWS; i++)
        if (d->win[i].idx == idx) return &d->win[i];
    return NULL;
}

/* Unregister window w's units; settled: none of its chunks is in flight. */
static void win_release(gs_direct *d, gs_backend *b, gs_dwin *w, int settled)
{
    const double t0 = gs_now();
    for (int u = 0; u < w->nunits; u++) b->file_unregister(b, w->unit[u], w->unit_bytes[u], settled);
    d->unpin_busy += gs_now() - t0;
    gs_trace("direct: window %lld released", (long long)w->idx);
    w->idx = -1;
    w->nunits = 0;
    w->refs = 0;
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

/* The units of window idx, page-locked. GS_OK, or non-zero where the backend refused (it is then
 * asked for no more windows). */
static int win_register(gs_direct *d, gs_backend *b, gs_dwin *w, int64_t idx)
{
    const size_t pg = page_size(), wbytes = d->chunk_bytes * GS_DIRECT_WINDOW_CHUNKS;
    const size_t left = (size_t)(d->end - d->origin) - (size_t)idx * wbytes;
    const char *lo = d->origin + (size_t)idx * wbytes, *hi = lo + (left < wbytes ? left : wbytes);
    const int last = hi == d->end;
    w->nunits = 0;
    if (d->aligned) {
        for (const char *u = lo; u < hi; u += d->chunk_bytes) {
            const char *ue = (size_t)(hi - u) < d->chunk_bytes ? hi : u + d->chunk_bytes;
            w->unit[w->nunits] = u;
            w->unit_bytes[w->nunits++] = (size_t)(page_ceil(ue, pg) - u);
        }
    } else {
        const char *ulo = page_floor(lo, pg), *uhi = last ? page_ceil(hi, pg) : page_floor(hi, pg);
        if (uhi > ulo) {
            w->unit[0] = ulo;
            w->unit_bytes[0] = (size_t)(uhi - ulo);
            w->nunits = 1;
        }
    }
    reg_job j;
    memset(&j, 0, sizeof j);
    j.b = b;
    j.w = w;
    const double t0 = gs_now();
    if (w->nunits > 1) gs_parallel_for((size_t)w->nunits, reg_part, &j);
    else if (w->nunits == 1) reg_part(&j, 0, 1);
    const double t1 = gs_now();
    int bad = -1;
    uint64_t bytes = 0;
    for (int u = 0; u < w->nunits; u++) {
        if (j.rc[u] && bad < 0) bad = u;
        bytes += j.rc[u] ? 0 : w->unit_bytes[u];
    }
    if (bad >= 0) { /* the ones that took, undone; the rest of the input is copied */
        for (int u = 0; u < w->nunits; u++)
            if (!j.rc[u]) b->file_unregister(b, w->unit[u], w->unit_bytes[u], 1);
        snprintf(d->refused, sizeof d->refused, "%s", j.st[bad].msg[0] ? j.st[bad].msg : "page-locking refused");
        gs_trace("direct: window %lld refused: %s", (long long)idx, d->refused);
        w->nunits = 0;
        d->on = 0;
        return GS_EDATA;
    }
    d->pin_busy += t1 - t0;
    d->pin_bytes += bytes;
    w->idx = idx;
    w->refs = 0;
    gs_trace("direct: window %lld page-locked, %d unit(s), %llu B in %.2f ms", (long long)idx, w->nunits,
             (unsigned long long)bytes, (t1 - t0) * 1e3);
    return GS_OK;
}

/* Windows behind the reader that no chunk holds any more. */
static void release_behind(gs_direct *d, gs_backend *b)
{
    for (int i = 0; i < GS_DIRECT_MAX_WINDOWS; i++)
        if (d->win[i].idx >= 0 && d->win[i].idx < d->cur && d->win[i].refs == 0) win_release(d, b, &d->win[i], 1);
}

void gs_direct_back(gs_run *r, gs_chunk *c)
{
    gs_direct *d = &r->dir;
    const size_t i = (size_t)(c - r->ins);
    if (!d->chunk_win || d->chunk_win[i] < 0) return;
    gs_dwin *w = win_find(d, d->chunk_win[i]);
    if (w) w->refs--;
    d->chunk_win[i] = -1;
    c->buf = d->stash[i];
    c->data = d->stash_data[i];
    c->cap = d->stash_cap[i];
    pthread_mutex_lock(&r->mu);
    gs_backend *b = r->b;
    pthread_mutex_unlock(&r->mu);
    if (w && b) release_behind(d, b);
}

/* Whether the chunk [p, p + len) lies in one of window w's units. */
static int fits(const gs_dwin *w, const char *p, size_t len)
{
    for (int u = 0; u < w->nunits; u++)
        if (p >= w->unit[u] && p + len <= w->unit[u] + w->unit_bytes[u]) return 1;
    return 0;
}

/* The window of the chunk at p, page-locked: NULL where it cannot be (no free slot, refused). */
static gs_dwin *window_for(gs_direct *d, gs_backend *b, int64_t idx)
{
    gs_dwin *w = win_find(d, idx);
    if (w) return w;
    if (idx > d->cur) d->cur = idx;
    release_behind(d, b);
    if (!(w = win_find(d, -1))) return NULL; /* every slot holds chunks in flight: this one is copied */
    return win_register(d, b, w, idx) ? NULL : w;
}

int gs_direct_take(gs_run *r, gs_chunk *c, gs_status *st)
{
    gs_direct *d = &r->dir;
    const size_t i = (size_t)(c - r->ins), pg = page_size();
    const void *p = NULL, *q = NULL;
    size_t got = 0, all = 0;
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
        if (r->src->view(r->src->ctx, SIZE_MAX / r->in_size, 0, &q, &all, st)) return -1;
        d->origin = p;
        d->end = (const char *)p + all * r->in_size;
        d->chunk_bytes = r->chunk_elems * r->in_size;
        d->aligned = (uintptr_t)p % pg == 0 && d->chunk_bytes % pg == 0;
        d->started = 1;
        gs_trace("direct: from byte %p, %zu elements, chunks %s page boundaries", p, all,
                 d->aligned ? "on" : "not on");
    }
    const char *at = p;
    const size_t len = got * r->in_size;
    if (at < d->origin || at + len > d->end || (size_t)(at - d->origin) % d->chunk_bytes) return 0;
    const int64_t idx = (int64_t)((size_t)(at - d->origin) / d->chunk_bytes / GS_DIRECT_WINDOW_CHUNKS);
    gs_dwin *w = window_for(d, b, idx);
    if (!w || !fits(w, at, len)) {
        d->chunks_copied++;
        return 0;
    }
    if (r->src->view(r->src->ctx, r->chunk_elems, 1, &q, &all, st)) return -1;
    if (q != p || all != got) return gs_fail(st, GS_EDATA, "direct input: the source moved under a view"), -1;
    d->stash[i] = c->buf;
    d->stash_data[i] = c->data;
    d->stash_cap[i] = c->cap;
    d->chunk_win[i] = idx;
    w->refs++;
    d->chunks_direct++;
    d->next = at + len;
    c->buf = c->data = (void *)(uintptr_t)p;
    c->cap = got;
    c->n = got;
    c->zn = 0;
    return 1;
}

void gs_direct_free(gs_run *r)
{
    gs_direct *d = &r->dir;
    for (size_t i = 0; d->chunk_win && i < r->nchunks && r->ins; i++)
        if (d->chunk_win[i] >= 0) {
            r->ins[i].buf = d->stash[i];
            r->ins[i].data = d->stash_data[i];
            r->ins[i].cap = d->stash_cap[i];
            d->chunk_win[i] = -1;
        }
    for (int k = 0; k < GS_DIRECT_MAX_WINDOWS && r->b; k++)
        if (d->win[k].idx >= 0) win_release(d, r->b, &d->win[k], 0);
    free(d->chunk_win);
    free(d->stash);
    free(d->stash_data);
    free(d->stash_cap);
    d->chunk_win = NULL;
    d->stash = d->stash_data = NULL;
    d->stash_cap = NULL;
}
