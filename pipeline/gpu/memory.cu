/* gpu/memory.cu - the GPU backend's memory: device allocations counted against a budget
 * (--device-mem-limit, else 7/8 of the free memory) with the chunk shrunk to fit; the slot buffers
 * of --device-alloc once|per-chunk|async; the host staging buffers of --host-mem
 * pinned|pageable|registered|mapped. Library code: returns gs_status, never prints or exits. */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "backend.cuh"

uint64_t gs_gpu_al(uint64_t x) { return x ? (x + GS_GPU_ALIGN - 1) & ~(GS_GPU_ALIGN - 1) : 0; }

uint64_t gs_gpu_out_vals(const gs_gpu *g, uint64_t C)
{
    /* scan: n; compact: at most n; minmax: rows <= n (first >= halo), cols values per row */
    return C * (uint64_t)g->cols;
}

/* Device bytes the backend allocates at its peak for chunks of C elements: per slot its input and
 * output (the last stage's) and, in a chain, the buffers between stages (each with the next
 * stage's halo); once, every stage's carry and the largest scratch (stages run one after another). */
static uint64_t gpu_need(const gs_gpu *g, uint64_t C)
{
    const gs_gpu *L = g->last ? g->last : g;
    uint64_t scr = gs_gpu_al(g->ops->scratch(g, C));
    uint64_t per = 0, fixed = g->ops->carry_bytes(g, C);
    for (int k = 1; k < g->nst; k++) {
        const gs_gpu *x = g->st[k];
        const uint64_t xs = gs_gpu_al(x->ops->scratch(x, C));
        if (xs > scr) scr = xs;
        fixed += x->ops->carry_bytes(x, C);
        per += gs_gpu_al((x->H + C) * x->isz);
    }
    if (!g->mapped) per += gs_gpu_al((g->H + C) * g->isz) + gs_gpu_al(gs_gpu_out_vals(L, C) * L->osz);
    if (g->dev_alloc == GS_DEV_ONCE) fixed += scr;
    else per += scr;
    return (uint64_t)g->depth * per + fixed;
}

/* ---- device allocation (counted) -------------------------------------------------------- */

/* mode: GS_DEV_ONCE and GS_DEV_PER_CHUNK use cudaMalloc, GS_DEV_ASYNC the pool on `stream`. */
int gs_gpu_dmalloc(gs_gpu *g, void **p, uint64_t bytes, gs_dev_alloc mode, cudaStream_t stream, gs_status *st)
{
    *p = NULL;
    if (!bytes) return GS_OK;
    if (g->dev_cur + gs_gpu_al(bytes) > g->dev_budget)
        return gs_fail(st, GS_ENOMEM, "gpu %d: %llu more bytes of device memory would pass the budget of %llu",
                       g->dev, (unsigned long long)bytes, (unsigned long long)g->dev_budget);
    cudaError_t e = mode == GS_DEV_ASYNC ? cudaMallocFromPoolAsync(p, bytes, g->pool, stream) : cudaMalloc(p, bytes);
    if (e == cudaErrorMemoryAllocation) {
        size_t fr = 0, tot = 0;
        (void)cudaGetLastError();
        if (cudaMemGetInfo(&fr, &tot) != cudaSuccess) (void)cudaGetLastError();
        *p = NULL;
        return gs_fail(st, GS_ENOMEM,
                       "gpu %d: out of device memory allocating %llu bytes (%llu in use by this run, %llu free): "
                       "set --device-mem-limit to %llu or less, or use a smaller --chunk",
                       g->dev, (unsigned long long)bytes, (unsigned long long)g->dev_cur, (unsigned long long)fr,
                       (unsigned long long)((g->dev_cur + fr) / 2));
    }
    if (e != cudaSuccess) {
        *p = NULL;
        return gs_cu_fail(st, e, mode == GS_DEV_ASYNC ? "cudaMallocFromPoolAsync" : "cudaMalloc", g->dev);
    }
    g->dev_cur += gs_gpu_al(bytes);
    if (g->dev_cur > g->dev_peak) g->dev_peak = g->dev_cur;
    return GS_OK;
}

/* Free; async frees are ordered on `stream` after everything queued there (callers make that stream
 * wait for the last use first). Errors are reported but the pointer is dropped either way. */
int gs_gpu_dfree(gs_gpu *g, void **p, uint64_t bytes, gs_dev_alloc mode, cudaStream_t stream, gs_status *st)
{
    cudaError_t e;
    if (!*p) return GS_OK;
    e = mode == GS_DEV_ASYNC ? cudaFreeAsync(*p, stream) : cudaFree(*p);
    *p = NULL;
    g->dev_cur -= gs_gpu_al(bytes) <= g->dev_cur ? gs_gpu_al(bytes) : g->dev_cur;
    if (e != cudaSuccess) return gs_cu_fail(st, e, mode == GS_DEV_ASYNC ? "cudaFreeAsync" : "cudaFree", g->dev);
    return GS_OK;
}

uint64_t gs_gpu_in_bytes(const gs_gpu *g) { return (g->H + g->C) * g->isz; }
/* d_out holds the last stage's output (a chain's; else this op's). */
uint64_t gs_gpu_out_bytes(const gs_gpu *g)
{
    const gs_gpu *L = g->last ? g->last : g;
    return gs_gpu_out_vals(L, g->C) * L->osz;
}

/* Slot buffers for one chunk (per-chunk and async modes); async allocations are made on the h2d
 * stream, the first to touch them (mapped: the k stream, the only one). */
int gs_gpu_slot_alloc(gs_gpu *g, gs_gpu_slot *sl, gs_status *st)
{
    cudaStream_t s = g->mapped ? g->s_k : g->s_h2d;
    int rc;
    if (!g->mapped) {
        if ((rc = gs_gpu_dmalloc(g, (void **)&sl->d_in, gs_gpu_in_bytes(g), g->dev_alloc, s, st))) return rc;
        if ((rc = gs_gpu_dmalloc(g, (void **)&sl->d_out, gs_gpu_out_bytes(g), g->dev_alloc, s, st))) return rc;
    }
    return gs_gpu_dmalloc(g, &sl->d_scratch, g->scratch_bytes, g->dev_alloc, s, st);
}

/* Release them on `s` (async; the caller ordered s after their last use) or at once (per-chunk,
 * called from retire when the chunk is complete). */
int gs_gpu_slot_release(gs_gpu *g, gs_gpu_slot *sl, cudaStream_t s, gs_status *st)
{
    int rc = GS_OK, r;
    if ((r = gs_gpu_dfree(g, (void **)&sl->d_in, gs_gpu_in_bytes(g), g->dev_alloc, s, st))) rc = r;
    if ((r = gs_gpu_dfree(g, (void **)&sl->d_out, gs_gpu_out_bytes(g), g->dev_alloc, s, st))) rc = rc ? rc : r;
    if ((r = gs_gpu_dfree(g, &sl->d_scratch, g->scratch_bytes, g->dev_alloc, s, st))) rc = rc ? rc : r;
    return rc;
}

/* ---- host staging memory ------------------------------------------------------------------ */

void *gs_gpu_host_alloc(gs_backend *b, size_t bytes, gs_status *st)
{
    gs_gpu *g = (gs_gpu *)b->impl;
    void *p = NULL;
    cudaError_t e;
    if (gs_gpu_given_up(g->dev, st)) return NULL; /* no staging memory from a device called no more */
    if (!bytes) bytes = 1;
    if (cudaSetDevice(g->dev) != cudaSuccess) {
        gs_cu_fail(st, cudaGetLastError(), "cudaSetDevice", g->dev);
        return NULL;
    }
    switch (g->host_mem) {
    case GS_HOST_PAGEABLE:
    case GS_HOST_REGISTERED:
        if (posix_memalign(&p, 4096, bytes) != 0) {
            gs_fail(st, GS_ENOMEM, "out of host memory allocating a %zu-byte staging buffer (use a smaller --chunk)",
                    bytes);
            return NULL;
        }
        if (g->host_mem == GS_HOST_PAGEABLE) return p;
        e = cudaHostRegister(p, bytes, cudaHostRegisterPortable);
        if (e != cudaSuccess) {
            free(p);
            (void)cudaGetLastError();
            gs_fail(st, e == cudaErrorMemoryAllocation ? GS_ENOMEM : GS_EDATA,
                    "gpu %d: cudaHostRegister(%zu bytes): %s (try --host-mem pinned or pageable)", g->dev, bytes,
                    cudaGetErrorString(e));
            return NULL;
        }
        return p;
    case GS_HOST_MAPPED:
    case GS_HOST_PINNED:
    default:
        /* portable: page-locked for every device of the process (several devices share the staging) */
        e = cudaHostAlloc(&p, bytes, cudaHostAllocPortable | (g->host_mem == GS_HOST_MAPPED ? cudaHostAllocMapped : 0u));
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            gs_fail(st, GS_ENOMEM, "gpu %d: cudaHostAlloc(%zu bytes): %s (pinned memory is limited: use a smaller "
                    "--chunk, fewer --buffers or --host-mem pageable)", g->dev, bytes, cudaGetErrorString(e));
            return NULL;
        }
        return p;
    }
}

void gs_gpu_host_free(gs_backend *b, void *p)
{
    gs_gpu *g = (gs_gpu *)b->impl;
    if (!p || gs_gpu_abandoned()) return; /* abandoned: left to the process's end */
    (void)cudaSetDevice(g->dev);
    if (g->nsub > g->nret && g->streams_made) {
        /* the engine frees its chunks before destroy; after an error some may still be in flight */
        (void)cudaStreamSynchronize(g->s_h2d);
        (void)cudaStreamSynchronize(g->s_k);
        (void)cudaStreamSynchronize(g->s_d2h);
    }
    switch (g->host_mem) {
    case GS_HOST_PAGEABLE: free(p); break;
    case GS_HOST_REGISTERED: (void)cudaHostUnregister(p); free(p); break;
    default: (void)cudaFreeHost(p); break;
    }
    (void)cudaGetLastError();
}

/* In the pinned mode the engine's own buffers are page-locked where they lie: on the H200 host
 * (2026-11-23) cudaHostRegister took 31 ms for 512 MiB where cudaHostAlloc took 405 ms for 1 GiB,
 * and the copies run at the same rate from either. */
int gs_gpu_host_register(gs_backend *b, void *p, size_t bytes, gs_status *st)
{
    gs_gpu *g = (gs_gpu *)b->impl;
    int rc = gs_gpu_given_up(g->dev, st);
    if (rc) return rc;
    cudaError_t e = cudaSetDevice(g->dev);
    if (e == cudaSuccess) e = cudaHostRegister(p, bytes ? bytes : 1, cudaHostRegisterPortable);
    if (e == cudaSuccess) return GS_OK;
    (void)cudaGetLastError();
    return gs_fail(st, e == cudaErrorMemoryAllocation ? GS_ENOMEM : GS_EDATA,
                   "gpu %d: cudaHostRegister(%zu bytes): %s (pinned memory is limited: use a smaller --chunk, fewer "
                   "--buffers or --host-mem pageable)", g->dev, bytes, cudaGetErrorString(e));
}

int gs_gpu_host_unregister(gs_backend *b, void *p)
{
    gs_gpu *g = (gs_gpu *)b->impl;
    if (!p) return 0;
    if (gs_gpu_abandoned()) return 1; /* page-locked for a device no longer called: left to the process's end */
    (void)cudaSetDevice(g->dev);
    if (g->nsub > g->nret && g->streams_made) { /* as in gs_gpu_host_free */
        (void)cudaStreamSynchronize(g->s_h2d);
        (void)cudaStreamSynchronize(g->s_k);
        (void)cudaStreamSynchronize(g->s_d2h);
    }
    (void)cudaHostUnregister(p);
    (void)cudaGetLastError();
    return 0;
}

/* The direct input (pipeline/direct.c). The file is mapped PROT_READ: the driver pins its pages for
 * reading only with cudaHostRegisterReadOnly, which a device supports where
 * cudaDevAttrHostRegisterReadOnlySupported says so; a device that reads pageable memory through
 * the host's page tables (cudaDevAttrPageableMemoryAccessUsesHostPageTables) needs no flag. */
int gs_gpu_file_can(gs_gpu *g, int *can, char *why, size_t len, gs_status *st)
{
    int ro = 0, hpt = 0;
    why[0] = 0;
    *can = 0;
    GS_CU(g->dev, cudaDeviceGetAttribute(&ro, cudaDevAttrHostRegisterReadOnlySupported, g->dev));
    GS_CU(g->dev, cudaDeviceGetAttribute(&hpt, cudaDevAttrPageableMemoryAccessUsesHostPageTables, g->dev));
    g->file_flags = ro ? cudaHostRegisterReadOnly : cudaHostRegisterDefault;
    *can = ro || hpt;
    if (!*can)
        snprintf(why, len, "gpu %d: input copied through pinned staging buffers (%s cannot page-lock read-only file "
                 "pages: no cudaHostRegisterReadOnly)", g->dev, g->devname);
    return GS_OK;
}

int gs_gpu_file_register(gs_backend *b, const void *p, size_t bytes, gs_status *st)
{
    gs_gpu *g = (gs_gpu *)b->impl;
    int rc = gs_gpu_given_up(g->dev, st);
    if (rc) return rc;
    cudaError_t e = cudaSetDevice(g->dev); /* on a pool thread: the device is set per thread */
    if (e == cudaSuccess) e = cudaHostRegister((void *)p, bytes, g->file_flags);
    if (e == cudaSuccess) return GS_OK;
    (void)cudaGetLastError();
    return gs_fail(st, e == cudaErrorMemoryAllocation ? GS_ENOMEM : GS_EDATA,
                   "gpu %d: cudaHostRegister of %zu bytes of the mapped input%s: %s", g->dev, bytes,
                   g->file_flags & cudaHostRegisterReadOnly ? " (read-only)" : "", cudaGetErrorString(e));
}

void gs_gpu_file_unregister(gs_backend *b, const void *p, size_t bytes, int settled)
{
    gs_gpu *g = (gs_gpu *)b->impl;
    (void)bytes;
    if (!p || gs_gpu_abandoned()) return; /* locked for a device no longer called: left to the process's end */
    (void)cudaSetDevice(g->dev);
    if (!settled && g->nsub > g->nret && g->streams_made) { /* as in gs_gpu_host_free */
        (void)cudaStreamSynchronize(g->s_h2d);
        (void)cudaStreamSynchronize(g->s_k);
        (void)cudaStreamSynchronize(g->s_d2h);
    }
    (void)cudaHostUnregister((void *)p);
    (void)cudaGetLastError();
}

/* Device address of a chunk's data in mapped host memory. */
int gs_gpu_mapped_ptr(gs_gpu *g, const gs_chunk *c, char **dp, gs_status *st)
{
    void *d = NULL;
    GS_CU(g->dev, cudaHostGetDevicePointer(&d, c->buf, 0));
    *dp = (char *)d + ((const char *)c->data - (const char *)c->buf);
    return GS_OK;
}

/* ---- the chunk that fits the budget ------------------------------------------------------ */

int gs_gpu_fit(gs_gpu *g, uint64_t want, const gs_engine_opts *o, gs_status *st)
{
    size_t free_b = 0, total_b = 0;
    uint64_t usable, lo, hi, min_c;
    GS_CU(g->dev, cudaMemGetInfo(&free_b, &total_b));
    /* leave 1/8 of what is free to the context, the kernels' own needs and other processes */
    usable = (uint64_t)free_b - (uint64_t)free_b / 8;
    g->dev_budget = (o && o->device_mem_limit && o->device_mem_limit < usable) ? o->device_mem_limit : usable;
    if (gpu_need(g, want) <= g->dev_budget) {
        g->C = want;
        return GS_OK;
    }
    min_c = want < 256 ? want : 256;
    if (gpu_need(g, min_c) > g->dev_budget) {
        /* say what would work: the need for a 64 Ki-element chunk (or the one asked for) */
        const uint64_t sugg_c = want < 65536 ? want : 65536, sugg = gpu_need(g, sugg_c);
        const char *why = g->op == GS_OP_MINMAX && g->H ? " (the window's W-1 halo included)" : "";
        if (o && o->device_mem_limit && o->device_mem_limit < usable)
            return gs_fail(st, GS_ENOMEM,
                           "gpu %d: --device-mem-limit %llu is too small: %d buffer(s) of %llu elements need %llu "
                           "bytes%s; use --device-mem-limit %llu or more (%llu for chunks of %llu elements)",
                           g->dev, (unsigned long long)o->device_mem_limit, g->depth, (unsigned long long)min_c,
                           (unsigned long long)gpu_need(g, min_c), why, (unsigned long long)gpu_need(g, min_c),
                           (unsigned long long)sugg, (unsigned long long)sugg_c);
        return gs_fail(st, GS_ENOMEM,
                       "gpu %d: %llu bytes of free device memory cannot hold %d buffer(s) of %llu elements (%llu bytes "
                       "needed%s); free device memory, use fewer --buffers%s",
                       g->dev, (unsigned long long)free_b, g->depth, (unsigned long long)min_c,
                       (unsigned long long)gpu_need(g, min_c), why,
                       g->op == GS_OP_MINMAX ? " or a smaller --window" : "");
    }
    /* largest C with need(C) <= budget (need grows with C) */
    lo = min_c;
    hi = want;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (gpu_need(g, mid) <= g->dev_budget) lo = mid;
        else hi = mid;
    }
    if (lo >= 8192) lo &= ~4095ull;
    g->C = lo;
    return GS_OK;
}

