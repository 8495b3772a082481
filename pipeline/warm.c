/* warm.c - the backend of a GPU plan (backends.h, gs_backend_warm_create).
 *
 * Made at the start of the run, it begins the GPU's start-up (CUDA's context, ~0.3 s, on its own
 * thread) beside the reading. Where the plan allows (gs_plan.warm: the same bytes for any split of
 * the input), the chunks that arrive meanwhile run on the CPU backend, one at a time. Started (the
 * engine's call, once the start-up is done or a chunk must wait for it), it makes the GPU backend
 * with the job that continues where the CPU stopped (gs_backend.resume: the scan carry, the index
 * base, the minmax halo, as an MPI rank's engine is given its shard's carries), and from then on
 * passes every call to it. Where the GPU cannot be had, a run that does not require it goes on with
 * the CPU backend and a note says why; one that does (--backend gpu, a GPU --algo) fails with the
 * true reason. */
#include "backends.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct warm {
    gs_backend_parts parts;
    gs_backend_cfg cfg;
    gs_job job;                   /* the job the run starts with, then the one that continues it */
    void *halo;                   /* the CPU's minmax halo, copied for the backend that follows */
    gs_backend *cpu, *gpu, *on;   /* on: the backend that runs the chunks once started */
    int required, named, started, waited;
    gs_chunk *held_in, *held_out; /* a chunk run on the CPU before the start, until it is retired */
    uint64_t early_chunks, early_bytes;
    double early_busy, cuda_init, gpu_setup;
    char fallback[300];           /* why the CPU ran on: "" where the GPU took over */
} warm;

/* ---- calls passed to the backend that runs ---------------------------------------------------- */
static void *w_host_alloc(gs_backend *b, size_t bytes, gs_status *st)
{
    const warm *w = b->impl;
    return w->on->host_alloc(w->on, bytes, st);
}

static void w_host_free(gs_backend *b, void *p)
{
    const warm *w = b->impl;
    w->on->host_free(w->on, p);
}

static int w_host_register(gs_backend *b, void *p, size_t bytes, gs_status *st)
{
    const warm *w = b->impl;
    return w->on->host_register(w->on, p, bytes, st);
}

static int w_host_unregister(gs_backend *b, void *p)
{
    const warm *w = b->impl;
    return w->on->host_unregister(w->on, p);
}

static int w_file_register(gs_backend *b, const void *p, size_t bytes, gs_status *st)
{
    const warm *w = b->impl;
    return w->on->file_register(w->on, p, bytes, st);
}

static void w_file_unregister(gs_backend *b, const void *p, size_t bytes, int settled)
{
    const warm *w = b->impl;
    w->on->file_unregister(w->on, p, bytes, settled);
}

static void w_resume(const gs_backend *b, gs_job *j)
{
    const warm *w = b->impl;
    if (w->on->resume) w->on->resume(w->on, j);
}

static void w_quiesce(gs_backend *b)
{
    const warm *w = b->impl;
    if (w->on && w->on->quiesce) w->on->quiesce(w->on);
}

/* ---- before the start: chunks on the CPU ------------------------------------------------------ */
static int w_ready(gs_backend *b)
{
    const warm *w = b->impl;
    return w->parts.gpu_ready();
}

static int w_submit(gs_backend *b, gs_chunk *in, gs_chunk *out, gs_status *st)
{
    warm *w = b->impl;
    if (w->started) return w->on->submit(w->on, in, out, st);
    const double t0 = gs_now();
    int rc = w->cpu ? GS_OK : w->parts.cpu(&w->cpu, &w->cfg, st);
    if (!rc) rc = w->cpu->submit(w->cpu, in, out, st);
    if (!rc) rc = w->cpu->retire(w->cpu, &w->held_in, &w->held_out, st);
    if (rc) return rc;
    w->early_busy += gs_now() - t0;
    w->early_chunks++;
    w->early_bytes += (uint64_t)in->n * gs_type_size(w->cfg.in_type);
    return GS_OK;
}

static int w_retire(gs_backend *b, gs_chunk **in, gs_chunk **out, gs_status *st)
{
    warm *w = b->impl;
    if (w->started) return w->on->retire(w->on, in, out, st);
    if (!w->held_in) return gs_fail(st, GS_EDATA, "cpu while cuda starts: retire with no chunk in flight");
    *in = w->held_in;
    *out = w->held_out;
    w->held_in = w->held_out = NULL;
    return GS_OK;
}

/* ---- the start ---------------------------------------------------------------------------------- */
/* The job the next backend continues: where the CPU stopped, its halo copied (the CPU backend may
 * be gone before the next one reads it). */
static int w_continue(warm *w, gs_status *st)
{
    if (!w->cpu) return GS_OK;
    w->cpu->resume(w->cpu, &w->job);
    if (w->job.halo_len) {
        const size_t hb = (size_t)w->job.halo_len * gs_type_size(w->cfg.in_type); /* inputs seen: in memory */
        if (!(w->halo = malloc(hb))) return gs_fail(st, GS_ENOMEM, "out of host memory for a halo");
        memcpy(w->halo, w->job.halo, hb);
        w->job.halo = w->halo;
    }
    return GS_OK;
}

/* No GPU after all: the CPU backend runs on (the one that ran so far keeps its carries). */
static int w_fall_back(warm *w, const char *reason, gs_status *st)
{
    const gs_engine_opts *o = w->cfg.opts;
    snprintf(w->fallback, sizeof w->fallback, "%.280s", reason);
    if (o && o->note) {
        char msg[360];
        snprintf(msg, sizeof msg, "no usable GPU (%.300s): using the CPU backend", reason);
        o->note(o->note_ctx, msg);
    }
    if (!w->cpu) return w->parts.cpu(&w->cpu, &w->cfg, st);
    return GS_OK;
}

/* The GPU backend, or the CPU's where it cannot be had. A variant named for the GPU is checked
 * before the wait (a usage error waits for nothing); the others once the device is up. */
static int w_make(warm *w, gs_status *st)
{
    const gs_engine_opts *o = w->cfg.opts;
    const int dev = o ? o->device : 0;
    char why[256];
    int rc;
    if (w->named && (rc = w->parts.gpu_check(&w->cfg, st))) return rc;
    w->waited = 1;
    if (!w->parts.gpu_wait(dev, why, sizeof why, &w->cuda_init)) {
        if (w->required) return gs_fail(st, GS_EDATA, "no usable GPU: %s", why);
        return w_fall_back(w, why, st);
    }
    if (!w->named && (rc = w->parts.gpu_check(&w->cfg, st))) return rc;
    if ((rc = w_continue(w, st))) return rc;
    gs_status gst = {0};
    const double t0 = gs_now();
    rc = w->parts.gpu(&w->gpu, &w->cfg, &gst);
    w->gpu_setup = gs_now() - t0;
    if (rc == GS_OK) return GS_OK;
    if (w->required) {
        *st = gst;
        return rc;
    }
    return w_fall_back(w, gst.msg, st);
}

static int w_start(gs_backend *b, gs_status *st)
{
    warm *w = b->impl;
    int rc = w_make(w, st);
    if (rc) return rc;
    w->on = w->gpu ? w->gpu : w->cpu;
    if (w->gpu && w->cpu) {
        w->cpu->destroy(w->cpu);
        w->cpu = NULL;
    }
    w->started = 1;
    gs_backend *on = w->on;
    b->name = on->name;
    b->host_register = on->host_register ? w_host_register : NULL;
    b->host_unregister = on->host_unregister ? w_host_unregister : NULL;
    b->file_register = on->file_register ? w_file_register : NULL;
    b->file_unregister = on->file_unregister ? w_file_unregister : NULL;
    b->resume = on->resume ? w_resume : NULL;
    b->pins = on->pins;
    b->depth = on->depth < b->depth ? on->depth : b->depth;
    b->max_head = on->max_head;
    b->chunk_elems = on->chunk_elems;
    b->zalign = on->zalign;
    b->zunit = on->zunit;
    b->zframe_max = on->zframe_max;
    b->ztab_max = on->ztab_max;
    b->zbuf_max = on->zbuf_max;
    b->zenc_tab_max = on->zenc_tab_max;
    b->zenc_bytes = on->zenc_bytes;
    b->text_cols = on->text_cols;
    b->text_in = on->text_in;
    return GS_OK;
}

/* ---- stats, destroy ----------------------------------------------------------------------------- */
static void w_stats(gs_backend *b, gs_run_stats *s)
{
    warm *w = b->impl;
    const int max = (int)(sizeof s->stage / sizeof s->stage[0]);
    if (w->early_chunks && s->nstages > 0 && s->nstages < max) { /* before the engine's row for the backend */
        s->stage[s->nstages] = s->stage[s->nstages - 1];
        s->stage[s->nstages - 1] = (gs_stage_stat){GS_STAGE_WARM, w->early_busy, w->early_bytes};
        s->nstages++;
    }
    if (w->on) w->on->stats(w->on, s);
    if (w->waited) s->cuda_init = w->cuda_init;
    if (w->gpu_setup >= 0) s->gpu_setup = w->gpu_setup;
    size_t at = strlen(s->why);
    if (w->fallback[0]) at += (size_t)snprintf(s->why + at, sizeof s->why - at, "; no usable GPU: %s", w->fallback);
    if (w->early_chunks && at < sizeof s->why) {
        char sz[32];
        gs_plan_size_text(sz, sizeof sz, w->early_bytes);
        snprintf(s->why + at, sizeof s->why - at, "; the first %llu chunk%s (%s) on the CPU while CUDA started",
                 (unsigned long long)w->early_chunks, w->early_chunks == 1 ? "" : "s", sz);
    }
}

static void w_destroy(gs_backend *b)
{
    warm *w = b->impl;
    if (w->cpu) w->cpu->destroy(w->cpu);
    if (w->gpu) w->gpu->destroy(w->gpu);
    /* never leave the process under a start-up still running */
    if (!w->waited) (void)w->parts.gpu_wait(w->cfg.opts ? w->cfg.opts->device : 0, NULL, 0, NULL);
    free(w->halo);
    free(w);
    free(b);
}

int gs_backend_warm_create(gs_backend **out, const gs_backend_parts *parts, const gs_backend_cfg *c, int warm_ok,
                           int required, gs_status *st)
{
    gs_backend *b = gs_backend_alloc(sizeof(warm), st);
    if (!b) return st->code;
    warm *w = b->impl;
    w->parts = *parts;
    w->cfg = *c;
    w->job = *c->job;
    w->cfg.job = &w->job;
    w->required = required;
    w->gpu_setup = -1;
    for (int k = 0; k < (c->chain ? c->chain->n : 1); k++)
        w->named |= (c->chain ? c->chain->stage[k].algo : c->job->algo) != NULL;
    b->name = "gpu";
    b->host_alloc = w_host_alloc;
    b->host_free = w_host_free;
    b->submit = w_submit;
    b->retire = w_retire;
    b->stats = w_stats;
    b->quiesce = w_quiesce;
    b->destroy = w_destroy;
    b->start = w_start;
    b->ready = w_ready;
    b->early = warm_ok;
    b->depth = c->opts && c->opts->buffers > 0 ? c->opts->buffers : GS_BUFFERS_DEFAULT;
    b->chunk_elems = c->chunk_elems;
    int ndev = c->opts ? c->opts->ndevices : 0;
    if (gs_devices_several(ndev) && parts->gpu_begin_list) parts->gpu_begin_list(c->opts->devices, ndev);
    else parts->gpu_begin(c->opts ? c->opts->device : 0);
    /* several devices: the buffers are each one's (the engine's ring is sized from this depth) */
    if (ndev == GS_DEVICES_ALL) ndev = parts->gpu_count ? parts->gpu_count() : 1;
    if (ndev > 1) b->depth *= ndev < GS_DEVICES_MAX ? ndev : GS_DEVICES_MAX;
    *out = b;
    return GS_OK;
}
