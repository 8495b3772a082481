/* backends.c - the built-in parts of the engine's backends (backends.h): the CPU backend and the
 * GPU backend with their variants resolved, and the GPU's start-up (CUDA's, on its own thread;
 * in a build without CUDA, pipeline/gpu/stubs.c says why there is none). */
#include "backends.h"

#include <stdlib.h>

gs_backend *gs_backend_alloc(size_t impl_bytes, gs_status *st)
{
    gs_backend *b = calloc(1, sizeof *b);
    void *impl = calloc(1, impl_bytes);
    if (!b || !impl) {
        free(b);
        free(impl);
        gs_fail(st, GS_ENOMEM, "out of host memory");
        return NULL;
    }
    b->impl = impl;
    return b;
}

/* Every stage's variant for one backend into v (a job alone: a chain of one). */
static int resolve(const gs_backend_cfg *c, gs_where where, const gs_variant **v, gs_status *st)
{
    const int threads = c->opts ? c->opts->threads : 0;
    if (c->chain) return gs_chain_resolve(c->chain, where, threads, v, st);
    return gs_job_resolve(c->job, where, threads, &v[0], st);
}

/* A backend of `where` made by `create` with every stage's variant resolved. */
static int make(gs_backend **b, const gs_backend_cfg *c, gs_where where,
                int (*create)(gs_backend **, const gs_backend_cfg *, gs_status *), gs_status *st)
{
    const gs_variant *v[GS_CHAIN_MAX] = {NULL};
    gs_backend_cfg cc = *c;
    int rc = resolve(c, where, v, st);
    if (rc) return rc;
    cc.variant = v[0];
    cc.variants = v;
    return create(b, &cc, st);
}

static int cpu_make(gs_backend **b, const gs_backend_cfg *c, gs_status *st)
{
    return make(b, c, GS_CPU, gs_backend_cpu_create, st);
}

static int gpu_check(const gs_backend_cfg *c, gs_status *st)
{
    const gs_variant *v[GS_CHAIN_MAX] = {NULL};
    return resolve(c, GS_GPU, v, st);
}

static int gpu_make(gs_backend **b, const gs_backend_cfg *c, gs_status *st)
{
    return make(b, c, GS_GPU, gs_backend_gpu_create, st);
}

const gs_backend_parts gs_backend_parts_builtin = {cpu_make, gpu_check, gs_gpu_init_start, gs_gpu_init_ready,
                                                   gs_gpu_init_wait, gpu_make, gs_gpu_init_count,
                                                   gs_gpu_init_start_list};
