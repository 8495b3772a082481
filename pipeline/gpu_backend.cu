/* gpu_backend.cu - the GPU backend of the chunk engine (design.md §4, "GPU schedule"), and the
 * device queries behind `gpustream info` and --backend auto.
 *
 * Schedule. Three non-blocking streams; chunk k uses device slot s = k % depth (depth = --buffers);
 * every cross-stream order is an event, the host never synchronises the device as a whole:
 *
 *   h2d stream  wait ev_k1[s] (slot s's previous kernel is done reading it)
 *               ev_h2d0[s]  H2D(k): host chunk -> d_in[s]  ev_h2d1[s]
 *   k stream    wait ev_h2d1[s] (inputs are there), wait ev_d2h1[s] (d_out[s] drained)
 *               ev_k0[s]  [minmax: halo d_halo -> head of slot]  kernel(k)
 *               [minmax: tail of [halo|chunk] -> d_halo]  [compact: count -> mapped h_count[s]]  ev_k1[s]
 *               kernel(k) follows kernel(k-1) by stream order: that is the carry dependency. The
 *               bracketed steps are tiny kernels, never copy-engine work (see gs_gpu_copy_kernel).
 *   d2h stream  wait ev_k1[s]; ev_d2h0[s]  D2H(k): d_out[s] -> host chunk  ev_d2h1[s]
 *
 * so H2D(k+1), kernel(k) and D2H(k-1) run at once on the two copy engines and the SMs. retire()
 * waits on ev_d2h1 of the oldest chunk only (ev_k1 in mapped mode), so later chunks keep flowing.
 *
 * Carries stay on the device: scan's running total in d_carry (read and rewritten by each kernel);
 * minmax's last W-1 inputs in d_halo (device-to-device copies ordered on the k stream); compact's
 * count is the one value the host must learn per chunk (see gpu_pump_compact).
 *
 * Memory: --host-mem pinned|pageable|registered|mapped picks host_alloc; --device-alloc
 * once|per-chunk|async picks when the slot buffers (d_in, d_out, scratch) are allocated. Every
 * byte from cudaMalloc* is counted against --device-mem-limit (or 7/8 of the free memory);
 * the chunk is shrunk to fit. Library code: returns gs_status, never prints or exits. */
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "pipeline.h"

/* Synchronisation flags for the events the host waits on. Spinning (default) wakes the driving
 * thread fastest, which keeps the next H2D queued; cudaEventBlockingSync frees a core for the
 * reader instead. Measure before changing. */
#ifndef GS_GPU_WAIT_EVENT_FLAGS
#define GS_GPU_WAIT_EVENT_FLAGS cudaEventDefault
#endif

#define GS_GPU_MAX_DEPTH 64
#define GS_GPU_ALIGN 256ull /* cudaMalloc alignment; also what we count per allocation */

/* ---- errors ----------------------------------------------------------------------------- */

/* Fill st from a CUDA error: "gpu 0: cudaMemcpyAsync: <reason>"; out of memory -> GS_ENOMEM. */
static int gs_cu_fail(gs_status *st, cudaError_t e, const char *call, int dev)
{
    char fn[64];
    size_t i = 0;
    while (call[i] && call[i] != '(' && i + 1 < sizeof fn) {
        fn[i] = call[i];
        i++;
    }
    fn[i] = 0;
    (void)cudaGetLastError(); /* clear a non-sticky error so later launch checks do not see it */
    if (e == cudaErrorMemoryAllocation)
        return gs_fail(st, GS_ENOMEM,
                       "gpu %d: %s: %s (set a lower --device-mem-limit, a smaller --chunk or fewer --buffers)",
                       dev, fn, cudaGetErrorString(e));
    return gs_fail(st, GS_EDATA, "gpu %d: %s: %s", dev, fn, cudaGetErrorString(e));
}

#define GS_CU(dev, call)                                                 \
    do {                                                                 \
        cudaError_t e_ = (call);                                         \
        if (e_ != cudaSuccess) return gs_cu_fail(st, e_, #call, (dev));  \
    } while (0)

/* Small kernels for the k stream. Its bookkeeping (halo copies, publishing the compact count) runs
 * on the SMs, not as cudaMemcpyAsync: a copy on the k stream could queue in a copy engine behind a
 * large H2D/D2H of another chunk and hold up the next kernel; these never do. */
template <typename T>
__global__ void gs_gpu_copy_kernel(T *__restrict__ dst, const T *__restrict__ src, uint64_t n)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
        dst[i] = src[i];
}

/* The count to pinned mapped host memory: the write is visible to the host once ev_k1 completes. */
__global__ void gs_gpu_publish_count(volatile uint64_t *h_count, const uint64_t *d_count)
{
    *h_count = *d_count;
}

/* A trivial kernel: cudaFuncGetAttributes on it tells whether this build has code for a device. */
__global__ void gs_gpu_probe_kernel(int *p)
{
    if (p) *p = 0;
}

static int gs_gpu_probe(int dev, char *why, size_t len)
{
    cudaFuncAttributes fa;
    cudaError_t e = cudaSetDevice(dev);
    if (e == cudaSuccess) e = cudaFuncGetAttributes(&fa, gs_gpu_probe_kernel);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        if (why && len) snprintf(why, len, "%s", cudaGetErrorString(e));
        return 0;
    }
    return 1;
}

/* Copy n elements of size isz (4 or 8; dst and src aligned to it) on `s` with gs_gpu_copy_kernel. */
static int gs_gpu_copy(void *dst, const void *src, uint64_t n, size_t isz, cudaStream_t s, int dev, gs_status *st)
{
    const unsigned threads = 256;
    uint64_t blocks = (n + threads - 1) / threads;
    if (!n) return GS_OK;
    if (blocks > 1024) blocks = 1024;
    if (isz == 8)
        gs_gpu_copy_kernel<uint64_t><<<(unsigned)blocks, threads, 0, s>>>((uint64_t *)dst, (const uint64_t *)src, n);
    else if (isz == 4)
        gs_gpu_copy_kernel<uint32_t><<<(unsigned)blocks, threads, 0, s>>>((uint32_t *)dst, (const uint32_t *)src, n);
    else
        return gs_fail(st, GS_EDATA, "gpu backend: no copy for %zu-byte elements", isz);
    GS_CU(dev, cudaGetLastError());
    return GS_OK;
}

/* ---- state ------------------------------------------------------------------------------ */

typedef struct gs_gpu_slot {
    /* device buffers (mode once: for the whole run; per-chunk/async: for the chunk in flight) */
    char *d_in;      /* (H + C) * isz: [halo | chunk], 256-aligned start (unused when mapped) */
    char *d_out;     /* out values of one chunk (unused when mapped) */
    void *d_scratch; /* per-chunk/async modes only; mode once shares g->d_scratch */
    cudaEvent_t ev_h2d0, ev_h2d1, ev_k0, ev_k1, ev_d2h0, ev_d2h1;
    /* the chunk in flight here */
    gs_chunk *in, *out;
    uint64_t n, vals;     /* input elements; output values (compact: known once the count is back) */
    int empty;            /* n == 0: nothing was queued */
    int h2d_done;         /* H2D events were recorded for this chunk */
    int d2h_issued;       /* D2H events were recorded for this chunk */
} gs_gpu_slot;

typedef struct gs_gpu {
    int dev;
    char devname[256];
    gs_job job;
    const gs_variant *v;
    gs_op op;
    size_t isz, osz;  /* input element and output value sizes */
    int cols;         /* minmax: 2 with (min, max) pairs */
    int count_only;   /* compact --count: the values are never copied back */
    gs_host_mem host_mem;
    gs_dev_alloc dev_alloc;
    int mapped;       /* host_mem == mapped: kernels read and write host memory */
    int depth;
    uint64_t C;       /* input elements per chunk (after fitting the budget) */
    uint64_t H;       /* minmax halo capacity W-1 (0 otherwise) */
    size_t cfg_halo;  /* head room the engine leaves in its input buffers */
    size_t scratch_bytes;
    cudaStream_t s_h2d, s_k, s_d2h;
    int streams_made;
    cudaMemPool_t pool;
    int pool_made;
    void *d_scratch;  /* mode once */
    void *d_carry;    /* scan: one out_type value */
    uint64_t *d_count;/* compact: the kernel's count, published to h_count[s] on the k stream */
    char *d_halo;     /* minmax: the last hl inputs of the stream so far */
    void *d_sink;     /* compact --count with mapped memory: where the unwanted values go */
    uint64_t *h_count;/* pinned and mapped, one per slot */
    uint64_t *dh_count;/* its device address */
    uint64_t hl;      /* halo elements the next chunk gets (host's copy of the device state) */
    uint64_t base;    /* elements submitted so far (compact --indices) */
    uint64_t nsub, nret;
    gs_gpu_slot slot[GS_GPU_MAX_DEPTH];
    uint64_t dev_cur, dev_peak, dev_budget;
    double t_h2d, t_k, t_d2h;
    uint64_t b_h2d, b_k, b_d2h;
} gs_gpu;

static uint64_t gs_al(uint64_t x) { return x ? (x + GS_GPU_ALIGN - 1) & ~(GS_GPU_ALIGN - 1) : 0; }

static uint64_t gpu_out_vals(const gs_gpu *g, uint64_t C)
{
    /* scan: n; compact: at most n; minmax: rows <= n (first >= halo), cols values per row */
    return g->op == GS_OP_MINMAX ? C * (uint64_t)g->cols : C;
}

static size_t gpu_scratch_for(const gs_gpu *g, uint64_t C)
{
    switch (g->op) {
    case GS_OP_SCAN: return g->v->scratch.scan ? g->v->scratch.scan(&g->job.scan, C) : 0;
    case GS_OP_COMPACT: return g->v->scratch.compact ? g->v->scratch.compact(&g->job.compact, C) : 0;
    case GS_OP_MINMAX: return g->v->scratch.minmax ? g->v->scratch.minmax(&g->job.minmax, g->H + C) : 0;
    default: return 0;
    }
}

/* Device bytes the backend allocates at its peak for chunks of C elements. */
static uint64_t gpu_need(const gs_gpu *g, uint64_t C)
{
    uint64_t scr = gs_al(gpu_scratch_for(g, C));
    uint64_t per = 0, fixed = 0;
    if (!g->mapped) per += gs_al((g->H + C) * g->isz) + gs_al(gpu_out_vals(g, C) * g->osz);
    if (g->dev_alloc == GS_DEV_ONCE) fixed += scr;
    else per += scr;
    fixed += gs_al(g->H * g->isz);
    if (g->op == GS_OP_SCAN) fixed += gs_al(g->osz);
    if (g->op == GS_OP_COMPACT) fixed += gs_al(sizeof(uint64_t));
    if (g->mapped && g->count_only && g->op == GS_OP_COMPACT) fixed += gs_al(C * g->osz);
    return (uint64_t)g->depth * per + fixed;
}

/* ---- device allocation (counted) -------------------------------------------------------- */

/* mode: GS_DEV_ONCE and GS_DEV_PER_CHUNK use cudaMalloc, GS_DEV_ASYNC the pool on `stream`. */
static int gpu_dmalloc(gs_gpu *g, void **p, uint64_t bytes, gs_dev_alloc mode, cudaStream_t stream, gs_status *st)
{
    *p = NULL;
    if (!bytes) return GS_OK;
    if (g->dev_cur + gs_al(bytes) > g->dev_budget)
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
    g->dev_cur += gs_al(bytes);
    if (g->dev_cur > g->dev_peak) g->dev_peak = g->dev_cur;
    return GS_OK;
}

/* Free; async frees are ordered on `stream` after everything queued there (callers make that stream
 * wait for the last use first). Errors are reported but the pointer is dropped either way. */
static int gpu_dfree(gs_gpu *g, void **p, uint64_t bytes, gs_dev_alloc mode, cudaStream_t stream, gs_status *st)
{
    cudaError_t e;
    if (!*p) return GS_OK;
    e = mode == GS_DEV_ASYNC ? cudaFreeAsync(*p, stream) : cudaFree(*p);
    *p = NULL;
    g->dev_cur -= gs_al(bytes) <= g->dev_cur ? gs_al(bytes) : g->dev_cur;
    if (e != cudaSuccess) return gs_cu_fail(st, e, mode == GS_DEV_ASYNC ? "cudaFreeAsync" : "cudaFree", g->dev);
    return GS_OK;
}

static uint64_t gpu_in_bytes(const gs_gpu *g) { return (g->H + g->C) * g->isz; }
static uint64_t gpu_out_bytes(const gs_gpu *g) { return gpu_out_vals(g, g->C) * g->osz; }

/* Slot buffers for one chunk (per-chunk and async modes); async allocations are made on the h2d
 * stream, the first to touch them (mapped: the k stream, the only one). */
static int gpu_slot_alloc(gs_gpu *g, gs_gpu_slot *sl, gs_status *st)
{
    cudaStream_t s = g->mapped ? g->s_k : g->s_h2d;
    int rc;
    if (!g->mapped) {
        if ((rc = gpu_dmalloc(g, (void **)&sl->d_in, gpu_in_bytes(g), g->dev_alloc, s, st))) return rc;
        if ((rc = gpu_dmalloc(g, (void **)&sl->d_out, gpu_out_bytes(g), g->dev_alloc, s, st))) return rc;
    }
    return gpu_dmalloc(g, &sl->d_scratch, g->scratch_bytes, g->dev_alloc, s, st);
}

/* Release them on `s` (async; the caller ordered s after their last use) or at once (per-chunk,
 * called from retire when the chunk is complete). */
static int gpu_slot_release(gs_gpu *g, gs_gpu_slot *sl, cudaStream_t s, gs_status *st)
{
    int rc = GS_OK, r;
    if ((r = gpu_dfree(g, (void **)&sl->d_in, gpu_in_bytes(g), g->dev_alloc, s, st))) rc = r;
    if ((r = gpu_dfree(g, (void **)&sl->d_out, gpu_out_bytes(g), g->dev_alloc, s, st))) rc = rc ? rc : r;
    if ((r = gpu_dfree(g, &sl->d_scratch, g->scratch_bytes, g->dev_alloc, s, st))) rc = rc ? rc : r;
    return rc;
}

/* ---- host staging memory ------------------------------------------------------------------ */

static void *gpu_host_alloc(gs_backend *b, size_t bytes, gs_status *st)
{
    gs_gpu *g = (gs_gpu *)b->impl;
    void *p = NULL;
    cudaError_t e;
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
        e = cudaHostRegister(p, bytes, cudaHostRegisterDefault);
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
        e = cudaHostAlloc(&p, bytes, g->host_mem == GS_HOST_MAPPED ? cudaHostAllocMapped : cudaHostAllocDefault);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            gs_fail(st, GS_ENOMEM, "gpu %d: cudaHostAlloc(%zu bytes): %s (pinned memory is limited: use a smaller "
                    "--chunk, fewer --buffers or --host-mem pageable)", g->dev, bytes, cudaGetErrorString(e));
            return NULL;
        }
        return p;
    }
}

static void gpu_host_free(gs_backend *b, void *p)
{
    gs_gpu *g = (gs_gpu *)b->impl;
    if (!p) return;
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

/* Device address of a chunk's data in mapped host memory. */
static int gpu_mapped_ptr(gs_gpu *g, const gs_chunk *c, char **dp, gs_status *st)
{
    void *d = NULL;
    GS_CU(g->dev, cudaHostGetDevicePointer(&d, c->buf, 0));
    *dp = (char *)d + ((const char *)c->data - (const char *)c->buf);
    return GS_OK;
}

/* ---- the D2H of one chunk ------------------------------------------------------------------ */

/* Queue D2H(k) of sl->vals values on the d2h stream after kernel(k), then the async frees of the
 * slot's buffers (their last users, the k stream and this copy, come before in stream order), then
 * ev_d2h1, which retire waits for. With --count the copy is skipped but the events still mark the
 * point. Only for non-mapped modes. */
static int gpu_issue_d2h(gs_gpu *g, gs_gpu_slot *sl, gs_status *st)
{
    uint64_t bytes = g->count_only && g->op == GS_OP_COMPACT ? 0 : sl->vals * g->osz;
    int rc;
    GS_CU(g->dev, cudaStreamWaitEvent(g->s_d2h, sl->ev_k1, 0));
    GS_CU(g->dev, cudaEventRecord(sl->ev_d2h0, g->s_d2h));
    if (bytes) GS_CU(g->dev, cudaMemcpyAsync(sl->out->data, sl->d_out, bytes, cudaMemcpyDeviceToHost, g->s_d2h));
    if (g->dev_alloc == GS_DEV_ASYNC && (rc = gpu_slot_release(g, sl, g->s_d2h, st))) return rc;
    GS_CU(g->dev, cudaEventRecord(sl->ev_d2h1, g->s_d2h));
    sl->d2h_issued = 1;
    g->b_d2h += bytes;
    return GS_OK;
}

/* Compact: the host must know a chunk's count before it can copy exactly that many values back.
 * A one-thread kernel on the k stream right after the compact kernel writes it to mapped pinned
 * h_count[s] (a copy on the d2h stream would queue chunk k-1's value copy behind kernel(k); a copy
 * on the k stream could wait in a copy engine behind a big transfer). For chunks in flight, in
 * order, whose ev_k1 has completed, read the count and queue the D2H. Called after each submit
 * (non-blocking: picks up counts that are already back) and from retire with block = 1, which waits
 * for the oldest chunk's count only; later chunks' H2D and kernels keep running meanwhile. */
static int gpu_pump_compact(gs_gpu *g, int block, gs_status *st)
{
    uint64_t k;
    int rc;
    for (k = g->nret; k < g->nsub; k++) {
        int s = (int)(k % (uint64_t)g->depth);
        gs_gpu_slot *sl = &g->slot[s];
        if (sl->d2h_issued || sl->empty) continue;
        if (block && k == g->nret) {
            GS_CU(g->dev, cudaEventSynchronize(sl->ev_k1));
        } else {
            cudaError_t e = cudaEventQuery(sl->ev_k1);
            if (e == cudaErrorNotReady) {
                (void)cudaGetLastError();
                break; /* keep the d2h stream in chunk order */
            }
            if (e != cudaSuccess) return gs_cu_fail(st, e, "cudaEventQuery", g->dev);
        }
        if (g->h_count[s] > sl->n)
            return gs_fail(st, GS_EDATA, "gpu %d: compact kernel (%s) returned count %llu for a chunk of %llu elements",
                           g->dev, g->v->name, (unsigned long long)g->h_count[s], (unsigned long long)sl->n);
        sl->vals = g->h_count[s];
        g->b_k += sl->vals * g->osz;
        if ((rc = gpu_issue_d2h(g, sl, st))) return rc;
    }
    return GS_OK;
}

/* ---- submit / retire ---------------------------------------------------------------------- */

static int gpu_launch(gs_gpu *g, const char *kin, char *kout, uint64_t n, uint64_t m, uint64_t first,
                      void *scratch, gs_status *st)
{
    switch (g->op) {
    case GS_OP_SCAN:
        return g->v->gpu.scan(&g->job.scan, kin, kout, n, g->d_carry, scratch, g->scratch_bytes, (void *)g->s_k, st);
    case GS_OP_COMPACT:
        return g->v->gpu.compact(&g->job.compact, kin, n, kout, g->base, g->d_count, scratch, g->scratch_bytes,
                                 (void *)g->s_k, st);
    case GS_OP_MINMAX:
        return g->v->gpu.minmax(&g->job.minmax, kin, m, first, kout, scratch, g->scratch_bytes, (void *)g->s_k, st);
    default:
        return gs_fail(st, GS_EDATA, "gpu backend: no operation");
    }
}

static int gpu_submit(gs_backend *b, gs_chunk *in, gs_chunk *out, gs_status *st)
{
    gs_gpu *g = (gs_gpu *)b->impl;
    const int s = (int)(g->nsub % (uint64_t)g->depth);
    gs_gpu_slot *sl = &g->slot[s];
    const uint64_t n = in->n, hl = g->hl, m = hl + n;
    uint64_t first = 0, vals = n, need_cap = n;
    char *kin = NULL, *kout = NULL; /* what the kernel reads and writes (device or mapped addresses) */
    void *scratch;
    int rc;

    GS_CU(g->dev, cudaSetDevice(g->dev));
    if (g->nsub - g->nret >= (uint64_t)g->depth)
        return gs_fail(st, GS_EDATA, "gpu backend: submit with %d chunks already in flight", g->depth);
    if (n > g->C)
        return gs_fail(st, GS_EDATA, "gpu backend: chunk of %llu elements is larger than %llu",
                       (unsigned long long)n, (unsigned long long)g->C);
    if (g->op == GS_OP_MINMAX) {
        /* first = halo length with --partial, else the first end whose window is whole */
        first = g->job.partial ? hl : (hl > g->H ? hl : g->H);
        vals = first < m ? (m - first) * (uint64_t)g->cols : 0;
        need_cap = vals;
    }
    if (!(g->op == GS_OP_COMPACT && g->count_only) && (!out || out->cap < need_cap))
        return gs_fail(st, GS_EDATA, "gpu backend: output chunk holds %llu values, %llu needed",
                       (unsigned long long)(out ? out->cap : 0), (unsigned long long)need_cap);

    sl->in = in;
    sl->out = out;
    sl->n = n;
    sl->vals = g->op == GS_OP_COMPACT ? 0 : vals;
    sl->empty = sl->h2d_done = sl->d2h_issued = 0;
    g->nsub++;
    if (n == 0) { /* nothing to move; carries unchanged */
        sl->empty = 1;
        return GS_OK;
    }

    if (g->mapped) {
        /* Zero-copy: the kernel reads [halo | chunk] where it lies in the engine's buffer (the halo
         * goes into the head room) and writes the output chunk directly. */
        if ((size_t)((const char *)in->data - (const char *)in->buf) < hl * g->isz)
            return gs_fail(st, GS_EDATA, "gpu backend: input chunk has no head room for a %llu-element halo",
                           (unsigned long long)hl);
        if ((rc = gpu_mapped_ptr(g, in, &kin, st))) return rc;
        kin -= hl * g->isz; /* device address of the head room part that takes the halo */
        kout = NULL;
        if (g->op == GS_OP_COMPACT && g->count_only) kout = (char *)g->d_sink;
        else if ((rc = gpu_mapped_ptr(g, out, &kout, st))) return rc;
        if (g->dev_alloc != GS_DEV_ONCE && (rc = gpu_slot_alloc(g, sl, st))) return rc; /* scratch, k stream */
    } else {
        if (g->dev_alloc != GS_DEV_ONCE && (rc = gpu_slot_alloc(g, sl, st))) return rc; /* on h2d stream */
        /* H2D(k) may overwrite slot s once kernel(k-depth) and its halo tail copy are done with it;
         * ev_k1[s] marks exactly that (a no-op wait on the slot's first use). The halo head room
         * [0, hl) is written later by the k stream, so the chunk lands at hl. */
        GS_CU(g->dev, cudaStreamWaitEvent(g->s_h2d, sl->ev_k1, 0));
        GS_CU(g->dev, cudaEventRecord(sl->ev_h2d0, g->s_h2d));
        GS_CU(g->dev, cudaMemcpyAsync(sl->d_in + hl * g->isz, in->data, n * g->isz, cudaMemcpyHostToDevice, g->s_h2d));
        GS_CU(g->dev, cudaEventRecord(sl->ev_h2d1, g->s_h2d));
        sl->h2d_done = 1;
        g->b_h2d += n * g->isz;
        kin = sl->d_in;
        kout = sl->d_out;
        /* kernel(k) after H2D(k); and it overwrites d_out[s] only after D2H(k-depth) drained it. */
        GS_CU(g->dev, cudaStreamWaitEvent(g->s_k, sl->ev_h2d1, 0));
        GS_CU(g->dev, cudaStreamWaitEvent(g->s_k, sl->ev_d2h1, 0));
    }
    scratch = g->dev_alloc == GS_DEV_ONCE ? g->d_scratch : sl->d_scratch;

    GS_CU(g->dev, cudaEventRecord(sl->ev_k0, g->s_k));
    /* halo in: the previous chunk's tail copy to d_halo precedes this on the k stream (mapped:
     * into the engine's head room through its device address) */
    if (g->op == GS_OP_MINMAX && (rc = gs_gpu_copy(kin, g->d_halo, hl, g->isz, g->s_k, g->dev, st))) return rc;
    if (!(g->op == GS_OP_MINMAX && first >= m) && (rc = gpu_launch(g, kin, kout, n, m, first, scratch, st)))
        return rc;
    if (g->op == GS_OP_MINMAX && g->H) {
        /* halo out: the last min(W-1, m) inputs of [halo | chunk]; the next chunk's halo-in copy
         * comes after this on the k stream, so d_halo needs no second buffer. */
        uint64_t hl2 = m < g->H ? m : g->H;
        if ((rc = gs_gpu_copy(g->d_halo, kin + (m - hl2) * g->isz, hl2, g->isz, g->s_k, g->dev, st))) return rc;
        g->hl = hl2;
    }
    if (g->op == GS_OP_COMPACT) {
        gs_gpu_publish_count<<<1, 1, 0, g->s_k>>>(g->dh_count + s, g->d_count);
        GS_CU(g->dev, cudaGetLastError());
    }
    if (g->mapped && g->dev_alloc == GS_DEV_ASYNC && (rc = gpu_slot_release(g, sl, g->s_k, st))) return rc;
    /* ev_k1: kernel(k) done, slot s's input is free, h_count[s] is valid */
    GS_CU(g->dev, cudaEventRecord(sl->ev_k1, g->s_k));
    g->b_k += n * g->isz + (g->op == GS_OP_COMPACT ? 0 : vals * g->osz);
    g->base += n;

    if (g->mapped) return GS_OK;
    if (g->op == GS_OP_COMPACT) return gpu_pump_compact(g, 0, st);
    return gpu_issue_d2h(g, sl, st);
}

static double gpu_ms(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0.0f;
    if (cudaEventElapsedTime(&ms, a, b) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0.0;
    }
    return ms * 1e-3;
}

static int gpu_retire(gs_backend *b, gs_chunk **in, gs_chunk **out, gs_status *st)
{
    gs_gpu *g = (gs_gpu *)b->impl;
    const int s = (int)(g->nret % (uint64_t)g->depth);
    gs_gpu_slot *sl = &g->slot[s];
    int rc;

    *in = NULL;
    *out = NULL;
    GS_CU(g->dev, cudaSetDevice(g->dev));
    if (g->nret >= g->nsub) return gs_fail(st, GS_EDATA, "gpu backend: retire with no chunk in flight");
    if (!sl->empty) {
        if (g->mapped) {
            /* the kernel read the input and wrote the output in host memory: both free after ev_k1 */
            GS_CU(g->dev, cudaEventSynchronize(sl->ev_k1));
            if (g->op == GS_OP_COMPACT) {
                if (g->h_count[s] > sl->n)
                    return gs_fail(st, GS_EDATA, "gpu %d: compact kernel (%s) returned count %llu for %llu elements",
                                   g->dev, g->v->name, (unsigned long long)g->h_count[s], (unsigned long long)sl->n);
                sl->vals = g->h_count[s];
                g->b_k += sl->vals * g->osz;
            }
        } else {
            if (g->op == GS_OP_COMPACT && (rc = gpu_pump_compact(g, 1, st))) return rc;
            /* ev_d2h1 follows ev_k1 follows ev_h2d1 by the stream waits: the whole chunk is done,
             * so the engine may refill the input buffer and write out the output. */
            GS_CU(g->dev, cudaEventSynchronize(sl->ev_d2h1));
            g->t_h2d += gpu_ms(sl->ev_h2d0, sl->ev_h2d1);
            g->t_d2h += gpu_ms(sl->ev_d2h0, sl->ev_d2h1);
        }
        g->t_k += gpu_ms(sl->ev_k0, sl->ev_k1);
        /* per-chunk: the naive baseline, cudaFree once the chunk is complete (cudaFree itself
         * synchronises the device; that cost is what this mode shows) */
        if (g->dev_alloc == GS_DEV_PER_CHUNK && (rc = gpu_slot_release(g, sl, g->s_k, st))) return rc;
    }
    if (sl->out) sl->out->n = (size_t)sl->vals;
    *in = sl->in;
    *out = sl->out;
    sl->in = sl->out = NULL;
    g->nret++;
    return GS_OK;
}

/* ---- stats, destroy ----------------------------------------------------------------------- */

static void gpu_add_stage(gs_run_stats *s, const char *name, double busy, uint64_t bytes)
{
    if (s->nstages >= (int)(sizeof s->stage / sizeof s->stage[0])) return;
    s->stage[s->nstages].name = name;
    s->stage[s->nstages].busy = busy;
    s->stage[s->nstages].bytes = bytes;
    s->nstages++;
}

/* "gpu: <name>" must outlive the backend (the engine prints stats after destroy): static, per device. */
static char gs_gpu_label[16][280];

static void gpu_stats(gs_backend *b, gs_run_stats *s)
{
    gs_gpu *g = (gs_gpu *)b->impl;
    char *lab = gs_gpu_label[(unsigned)g->dev % 16u];
    gpu_add_stage(s, "h2d", g->t_h2d, g->b_h2d);
    gpu_add_stage(s, "kernel", g->t_k, g->b_k);
    gpu_add_stage(s, "d2h", g->t_d2h, g->b_d2h);
    if (g->dev_peak > s->peak_device_mem) s->peak_device_mem = g->dev_peak;
    snprintf(lab, sizeof gs_gpu_label[0], "gpu: %s", g->devname);
    s->backend = lab;
}

static void gpu_destroy(gs_backend *b)
{
    gs_gpu *g;
    gs_status ignore;
    int i;
    if (!b) return;
    g = (gs_gpu *)b->impl;
    if (g) {
        memset(&ignore, 0, sizeof ignore);
        (void)cudaSetDevice(g->dev);
        if (g->streams_made) {
            /* error path: chunks may still be queued; let them finish before freeing anything */
            (void)cudaStreamSynchronize(g->s_h2d);
            (void)cudaStreamSynchronize(g->s_k);
            (void)cudaStreamSynchronize(g->s_d2h);
        }
        for (i = 0; i < g->depth; i++) {
            gs_gpu_slot *sl = &g->slot[i];
            gs_dev_alloc mode = g->dev_alloc;
            if (mode == GS_DEV_ASYNC && g->streams_made) {
                (void)gpu_slot_release(g, sl, g->s_k, &ignore);
            } else {
                g->dev_alloc = GS_DEV_ONCE; /* plain cudaFree for what is left */
                (void)gpu_slot_release(g, sl, g->s_k, &ignore);
                g->dev_alloc = mode;
            }
            if (sl->ev_h2d0) (void)cudaEventDestroy(sl->ev_h2d0);
            if (sl->ev_h2d1) (void)cudaEventDestroy(sl->ev_h2d1);
            if (sl->ev_k0) (void)cudaEventDestroy(sl->ev_k0);
            if (sl->ev_k1) (void)cudaEventDestroy(sl->ev_k1);
            if (sl->ev_d2h0) (void)cudaEventDestroy(sl->ev_d2h0);
            if (sl->ev_d2h1) (void)cudaEventDestroy(sl->ev_d2h1);
        }
        if (g->streams_made) (void)cudaStreamSynchronize(g->s_k);
        if (g->d_scratch) (void)cudaFree(g->d_scratch);
        if (g->d_carry) (void)cudaFree(g->d_carry);
        if (g->d_count) (void)cudaFree(g->d_count);
        if (g->d_halo) (void)cudaFree(g->d_halo);
        if (g->d_sink) (void)cudaFree(g->d_sink);
        if (g->h_count) (void)cudaFreeHost(g->h_count);
        if (g->pool_made) (void)cudaMemPoolDestroy(g->pool);
        if (g->streams_made) {
            (void)cudaStreamDestroy(g->s_h2d);
            (void)cudaStreamDestroy(g->s_k);
            (void)cudaStreamDestroy(g->s_d2h);
        }
        (void)cudaGetLastError();
        free(g);
    }
    free(b);
}

/* ---- create ------------------------------------------------------------------------------- */

static int gpu_fit(gs_gpu *g, uint64_t want, const gs_engine_opts *o, gs_status *st)
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

static int gpu_create(gs_gpu *g, const gs_backend_cfg *c, gs_status *st)
{
    const gs_engine_opts *o = c->opts;
    cudaDeviceProp prop;
    int i, rc;
    char why[160];

    GS_CU(g->dev, cudaSetDevice(g->dev));
    if (!gs_gpu_probe(g->dev, why, sizeof why))
        return gs_fail(st, GS_EDATA, "gpu %d: unusable: %s", g->dev, why);
    GS_CU(g->dev, cudaGetDeviceProperties(&prop, g->dev));
    snprintf(g->devname, sizeof g->devname, "%s", prop.name);

    if (g->host_mem == GS_HOST_MAPPED) {
        int can = 0;
        GS_CU(g->dev, cudaDeviceGetAttribute(&can, cudaDevAttrCanMapHostMemory, g->dev));
        if (!can) return gs_fail(st, GS_EUSAGE, "gpu %d: --host-mem mapped: %s cannot map host memory", g->dev, g->devname);
        if (g->op == GS_OP_MINMAX && c->halo < g->H)
            return gs_fail(st, GS_EDATA, "gpu backend: --host-mem mapped needs %llu elements of head room, got %zu",
                           (unsigned long long)g->H, c->halo);
    }

    GS_CU(g->dev, cudaStreamCreateWithFlags(&g->s_h2d, cudaStreamNonBlocking));
    GS_CU(g->dev, cudaStreamCreateWithFlags(&g->s_k, cudaStreamNonBlocking));
    GS_CU(g->dev, cudaStreamCreateWithFlags(&g->s_d2h, cudaStreamNonBlocking));
    g->streams_made = 1;

    if (g->dev_alloc == GS_DEV_ASYNC) {
        int pools = 0;
        cudaMemPoolProps pp;
        uint64_t keep = UINT64_MAX;
        GS_CU(g->dev, cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, g->dev));
        if (!pools) return gs_fail(st, GS_EUSAGE, "gpu %d: --device-alloc async: %s has no memory pools", g->dev, g->devname);
        memset(&pp, 0, sizeof pp);
        pp.allocType = cudaMemAllocationTypePinned;
        pp.handleTypes = cudaMemHandleTypeNone;
        pp.location.type = cudaMemLocationTypeDevice;
        pp.location.id = g->dev;
        GS_CU(g->dev, cudaMemPoolCreate(&g->pool, &pp));
        g->pool_made = 1;
        /* keep freed blocks in the pool: the next chunk reuses them without going to the driver */
        GS_CU(g->dev, cudaMemPoolSetAttribute(g->pool, cudaMemPoolAttrReleaseThreshold, &keep));
    }

    if ((rc = gpu_fit(g, c->chunk_elems, o, st))) return rc;
    g->scratch_bytes = gpu_scratch_for(g, g->C);

    for (i = 0; i < g->depth; i++) {
        gs_gpu_slot *sl = &g->slot[i];
        /* all timed (per-chunk busy time for --stats); ev_k1 / ev_d2h1 are what the host waits on */
        GS_CU(g->dev, cudaEventCreateWithFlags(&sl->ev_h2d0, cudaEventDefault));
        GS_CU(g->dev, cudaEventCreateWithFlags(&sl->ev_h2d1, cudaEventDefault));
        GS_CU(g->dev, cudaEventCreateWithFlags(&sl->ev_k0, cudaEventDefault));
        GS_CU(g->dev, cudaEventCreateWithFlags(&sl->ev_k1, GS_GPU_WAIT_EVENT_FLAGS));
        GS_CU(g->dev, cudaEventCreateWithFlags(&sl->ev_d2h0, cudaEventDefault));
        GS_CU(g->dev, cudaEventCreateWithFlags(&sl->ev_d2h1, GS_GPU_WAIT_EVENT_FLAGS));
    }

    /* persistent buffers: always cudaMalloc once (they carry state across chunks) */
    if (g->op == GS_OP_SCAN) {
        gs_value id;
        if ((rc = gpu_dmalloc(g, &g->d_carry, g->osz, GS_DEV_ONCE, 0, st))) return rc;
        gs_job_scan_start(&g->job, &id);
        /* the initial carry, ahead of kernel(0) on the k stream; synchronised once because `id` is
         * on the stack */
        GS_CU(g->dev, cudaMemcpyAsync(g->d_carry, &id, g->osz, cudaMemcpyHostToDevice, g->s_k));
        GS_CU(g->dev, cudaStreamSynchronize(g->s_k));
    }
    if (g->op == GS_OP_COMPACT) {
        g->base = g->job.index_base;
        if ((rc = gpu_dmalloc(g, (void **)&g->d_count, sizeof(uint64_t), GS_DEV_ONCE, 0, st))) return rc;
        GS_CU(g->dev, cudaHostAlloc((void **)&g->h_count, (size_t)g->depth * sizeof(uint64_t), cudaHostAllocMapped));
        memset(g->h_count, 0, (size_t)g->depth * sizeof(uint64_t));
        GS_CU(g->dev, cudaHostGetDevicePointer((void **)&g->dh_count, g->h_count, 0));
        if (g->mapped && g->count_only &&
            (rc = gpu_dmalloc(g, &g->d_sink, g->C * g->osz, GS_DEV_ONCE, 0, st)))
            return rc;
    }
    if (g->op == GS_OP_MINMAX && g->H &&
        (rc = gpu_dmalloc(g, (void **)&g->d_halo, g->H * g->isz, GS_DEV_ONCE, 0, st)))
        return rc;
    if (g->dev_alloc == GS_DEV_ONCE) {
        if ((rc = gpu_dmalloc(g, &g->d_scratch, g->scratch_bytes, GS_DEV_ONCE, 0, st))) return rc;
        for (i = 0; i < g->depth && !g->mapped; i++) {
            if ((rc = gpu_dmalloc(g, (void **)&g->slot[i].d_in, gpu_in_bytes(g), GS_DEV_ONCE, 0, st))) return rc;
            if ((rc = gpu_dmalloc(g, (void **)&g->slot[i].d_out, gpu_out_bytes(g), GS_DEV_ONCE, 0, st))) return rc;
        }
    }
    return GS_OK;
}

extern "C" int gs_backend_gpu_create(gs_backend **out, const gs_backend_cfg *c, gs_status *st)
{
    const gs_engine_opts *o = c->opts;
    const gs_job *j = c->job;
    gs_backend *b;
    gs_gpu *g;
    int ndev = 0, rc;
    cudaError_t e;

    *out = NULL;
    e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev <= 0) {
        (void)cudaGetLastError();
        return gs_fail(st, GS_EDATA, "no usable GPU: %s", e != cudaSuccess ? cudaGetErrorString(e) : "no device found");
    }
    if (o && (o->device < 0 || o->device >= ndev))
        return gs_fail(st, GS_EUSAGE, "--device %d: this machine has %d GPU(s) (0..%d)", o->device, ndev, ndev - 1);
    if (!j || (j->op != GS_OP_SCAN && j->op != GS_OP_COMPACT && j->op != GS_OP_MINMAX))
        return gs_fail(st, GS_EDATA, "gpu backend: nothing to compute");
    if (!c->chunk_elems) return gs_fail(st, GS_EUSAGE, "gpu backend: chunk of 0 elements");

    b = (gs_backend *)calloc(1, sizeof *b);
    g = (gs_gpu *)calloc(1, sizeof *g);
    if (!b || !g) {
        free(b);
        free(g);
        return gs_fail(st, GS_ENOMEM, "out of host memory");
    }
    b->impl = g;
    b->name = "gpu";
    b->host_alloc = gpu_host_alloc;
    b->host_free = gpu_host_free;
    b->submit = gpu_submit;
    b->retire = gpu_retire;
    b->stats = gpu_stats;
    b->destroy = gpu_destroy;

    g->dev = o ? o->device : 0;
    g->job = *j;
    g->op = j->op;
    g->v = c->variant ? c->variant : gs_variant_default(j->op, GS_GPU);
    g->host_mem = o ? o->host_mem : GS_HOST_PINNED;
    g->dev_alloc = o ? o->dev_alloc : GS_DEV_ONCE;
    g->mapped = g->host_mem == GS_HOST_MAPPED;
    g->depth = o && o->buffers > 0 ? o->buffers : 2;
    if (g->depth > GS_GPU_MAX_DEPTH) g->depth = GS_GPU_MAX_DEPTH;
    g->cfg_halo = c->halo;
    g->isz = gs_type_size(c->in_type);
    g->cols = 1;
    g->count_only = j->count_only;
    /* the element sizes we move are those the launchers read and write */
    switch (g->op) {
    case GS_OP_SCAN:
        g->job.scan.type = c->in_type;
        g->osz = gs_type_size(g->job.scan.out_type);
        break;
    case GS_OP_COMPACT:
        g->job.compact.type = c->in_type;
        g->osz = g->job.compact.indices ? sizeof(uint64_t) : g->isz;
        break;
    default:
        g->job.minmax.type = c->in_type;
        g->osz = g->isz;
        g->cols = g->job.minmax.only == GS_MM_BOTH ? 2 : 1;
        if (g->job.minmax.window == 0) rc = gs_fail(st, GS_EUSAGE, "minmax: window must be at least 1");
        else if (g->job.minmax.window - 1 > (UINT64_C(1) << 56) / g->isz)
            rc = gs_fail(st, GS_EUSAGE, "minmax: window %llu is too large", (unsigned long long)g->job.minmax.window);
        else rc = GS_OK;
        if (rc) {
            gpu_destroy(b);
            return rc;
        }
        g->H = g->job.minmax.window - 1;
        break;
    }
    if (!g->v || g->v->where != GS_GPU || g->v->op != g->op ||
        (g->op == GS_OP_SCAN && !g->v->gpu.scan) || (g->op == GS_OP_COMPACT && !g->v->gpu.compact) ||
        (g->op == GS_OP_MINMAX && !g->v->gpu.minmax)) {
        if (g->v) rc = gs_fail(st, GS_EUSAGE, "--algo %s is not a GPU variant of this operation", g->v->name);
        else rc = gs_fail(st, GS_EDATA, "gpu backend: no GPU variant compiled in for this operation");
        gpu_destroy(b);
        return rc;
    }
    switch (g->op) { /* the variant must accept these parameters (type, op, predicate, widening) */
    case GS_OP_SCAN: rc = gs_variant_check_scan(g->v, &g->job.scan, st); break;
    case GS_OP_COMPACT: rc = gs_variant_check_compact(g->v, &g->job.compact, st); break;
    default: rc = gs_variant_check_minmax(g->v, &g->job.minmax, st); break;
    }
    if (rc) {
        gpu_destroy(b);
        return rc;
    }
    if (!g->isz || !g->osz) {
        gpu_destroy(b);
        return gs_fail(st, GS_EUSAGE, "gpu backend: unknown element type");
    }

    if ((rc = gpu_create(g, c, st))) {
        gpu_destroy(b);
        return rc;
    }
    b->depth = g->depth;
    b->chunk_elems = (size_t)g->C;
    *out = b;
    return GS_OK;
}

/* ---- device queries ------------------------------------------------------------------------- */

extern "C" int gs_gpu_available(int device, char *desc, size_t desc_len)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    cudaDeviceProp p;
    char why[160];
    if (desc && desc_len) desc[0] = 0;
    if (e != cudaSuccess || n <= 0) {
        (void)cudaGetLastError();
        if (desc && desc_len)
            snprintf(desc, desc_len, "no GPU: %s", e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device found");
        return 0;
    }
    if (device < 0 || device >= n) {
        if (desc && desc_len) snprintf(desc, desc_len, "no GPU %d: this machine has %d (0..%d)", device, n, n - 1);
        return 0;
    }
    e = cudaGetDeviceProperties(&p, device);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        if (desc && desc_len) snprintf(desc, desc_len, "GPU %d: %s", device, cudaGetErrorString(e));
        return 0;
    }
    if (!gs_gpu_probe(device, why, sizeof why)) {
        if (desc && desc_len) snprintf(desc, desc_len, "GPU %d (%s, sm_%d%d) unusable: %s", device, p.name, p.major, p.minor, why);
        return 0;
    }
    if (desc && desc_len)
        snprintf(desc, desc_len, "%s (device %d, sm_%d%d, %d SMs, %.1f GiB)", p.name, device, p.major, p.minor,
                 p.multiProcessorCount, (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
    return 1;
}

extern "C" int gs_gpu_describe(char *buf, size_t len)
{
    int n = 0, i;
    size_t at = 0;
    if (buf && len) buf[0] = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n <= 0) {
        (void)cudaGetLastError();
        return 0;
    }
    for (i = 0; i < n && buf && at + 1 < len; i++) {
        cudaDeviceProp p;
        char bus[32] = "?";
        int w;
        if (cudaGetDeviceProperties(&p, i) != cudaSuccess) {
            (void)cudaGetLastError();
            w = snprintf(buf + at, len - at, "%d: unavailable\n", i);
        } else {
            if (cudaDeviceGetPCIBusId(bus, (int)sizeof bus, i) != cudaSuccess) {
                (void)cudaGetLastError();
                snprintf(bus, sizeof bus, "?");
            }
            w = snprintf(buf + at, len - at, "%d: %s, sm_%d%d, %d SMs, %.1f GiB, %d copy engine(s), PCI %s\n", i, p.name,
                         p.major, p.minor, p.multiProcessorCount,
                         (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0), p.asyncEngineCount, bus);
        }
        if (w < 0) break;
        at += (size_t)w < len - at ? (size_t)w : len - at - 1;
    }
    return n;
}
