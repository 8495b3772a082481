/* gpu_backend.cu - the schedule of the GPU backend of the chunk engine (docs/ARCHITECTURE.md, "The GPU
 * schedule"), and each operation's carry hooks (gs_gpu_op: scan's running total, compaction's count and
 * index base, minmax's halo). Device queries are in gpu_device.cu, memory (counted device allocation,
 * --host-mem staging) in gpu_memory.cu.
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
 * A chunk of zstd frames (gs_chunk.zn; docs/ARCHITECTURE.md, "zstd frames on the device") puts its
 * compressed bytes into d_comp[s] on the h2d stream (ev_z[s] after), and slot s's own stream zs[s]
 * decodes and checks them into d_in[s] (gpu_codec.cu) and records ev_h2d1[s]; retire waits for
 * that with a deadline and reads the check's verdict before anything else of the chunk. Output
 * that goes back as zstd frames (gs_engine_opts.zencode) is encoded on zs[s] after ev_k1[s]
 * (ev_d2h0..ev_d2h1 around it) instead of the D2H; a compaction's is queued at submit with its
 * count read on the device, so no host round trip sits between kernel(k) and its encoding.
 *
 * so H2D(k+1), kernel(k) and D2H(k-1) run at once on the two copy engines and the SMs. retire()
 * waits on ev_d2h1 of the oldest chunk only (ev_k1 in mapped mode), so later chunks keep flowing.
 *
 * Carries stay on the device: scan's running total in d_carry (read and rewritten by each kernel);
 * minmax's last W-1 inputs in d_halo (device-to-device copies ordered on the k stream); compact's
 * count is the one value the host must learn per chunk (see gpu_pump_counted).
 *
 * Memory: --host-mem picks host_alloc; --device-alloc once|per-chunk|async picks when the slot
 * buffers (d_in, d_out, scratch) are allocated (gpu_memory.cu). Library code: returns gs_status,
 * never prints or exits. */
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "gpu_internal.cuh"
#include "../common/trace.h"

/* Synchronisation flags for the events the host waits on. Spinning (default) wakes the driving
 * thread fastest, which keeps the next H2D queued; cudaEventBlockingSync frees a core for the
 * reader instead. Measure before changing. */
#ifndef GS_GPU_WAIT_EVENT_FLAGS
#define GS_GPU_WAIT_EVENT_FLAGS cudaEventDefault
#endif

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


/* ---- per-operation hooks --------------------------------------------------------------------- */

static void plan_all(const gs_gpu *g, uint64_t n, uint64_t hl, uint64_t *first, uint64_t *vals)
{
    (void)g;
    (void)hl;
    *first = 0;
    *vals = n;
}

static int carry_none(gs_gpu *g, char *kin, uint64_t hl, gs_status *st)
{
    (void)g;
    (void)kin;
    (void)hl;
    (void)st;
    return GS_OK;
}

/* scan: the running total in d_carry, read and rewritten by each kernel. */
static int scan_setup(gs_gpu *g, gs_type in, gs_status *st)
{
    (void)st;
    g->job.scan.type = in;
    g->osz = gs_type_size(g->job.scan.out_type);
    return GS_OK;
}
static int scan_has(const gs_variant *v) { return v->gpu.scan != NULL; }
static int scan_check(const gs_gpu *g, gs_status *st) { return gs_variant_check_scan(g->v, &g->job.scan, st); }
static size_t scan_scratch(const gs_gpu *g, uint64_t C)
{
    return g->v->scratch.scan ? g->v->scratch.scan(&g->job.scan, C) : 0;
}
static uint64_t scan_carry_bytes(const gs_gpu *g, uint64_t C)
{
    (void)C;
    return gs_gpu_al(g->osz);
}
static int scan_carry_init(gs_gpu *g, gs_status *st)
{
    gs_value id;
    int rc;
    if ((rc = gs_gpu_dmalloc(g, &g->d_carry, g->osz, GS_DEV_ONCE, 0, st))) return rc;
    gs_job_scan_start(&g->job, &id);
    /* the initial carry, ahead of kernel(0) on the k stream; synchronised once because `id` is
     * on the stack */
    GS_CU(g->dev, cudaMemcpyAsync(g->d_carry, &id, g->osz, cudaMemcpyHostToDevice, g->s_k));
    GS_CU(g->dev, cudaStreamSynchronize(g->s_k));
    return GS_OK;
}
static int scan_launch(gs_gpu *g, const char *kin, char *kout, uint64_t n, uint64_t m, uint64_t first, void *scratch,
                       gs_status *st)
{
    (void)m;
    (void)first;
    return g->v->gpu.scan(&g->job.scan, kin, kout, n, g->d_carry, scratch, g->scratch_bytes, (void *)g->s_k, st);
}
static int scan_carry_out(gs_gpu *g, int s, const char *kin, uint64_t n, uint64_t m, gs_status *st)
{
    (void)g;
    (void)s;
    (void)kin;
    (void)n;
    (void)m;
    (void)st;
    return GS_OK;
}

/* compact: the index base (elements before the chunk) and the count, published per slot. */
static int compact_setup(gs_gpu *g, gs_type in, gs_status *st)
{
    (void)st;
    g->job.compact.type = in;
    g->osz = g->job.compact.indices ? sizeof(uint64_t) : g->isz;
    return GS_OK;
}
static int compact_has(const gs_variant *v) { return v->gpu.compact != NULL; }
static int compact_check(const gs_gpu *g, gs_status *st)
{
    return gs_variant_check_compact(g->v, &g->job.compact, st);
}
static size_t compact_scratch(const gs_gpu *g, uint64_t C)
{
    return g->v->scratch.compact ? g->v->scratch.compact(&g->job.compact, C) : 0;
}
static uint64_t compact_carry_bytes(const gs_gpu *g, uint64_t C)
{
    return gs_gpu_al(sizeof(uint64_t)) + (g->mapped && g->count_only ? gs_gpu_al(C * g->osz) : 0);
}
static int compact_carry_init(gs_gpu *g, gs_status *st)
{
    int rc;
    g->base = g->job.index_base;
    if ((rc = gs_gpu_dmalloc(g, (void **)&g->d_count, sizeof(uint64_t), GS_DEV_ONCE, 0, st))) return rc;
    GS_CU(g->dev, cudaHostAlloc((void **)&g->h_count, (size_t)g->depth * sizeof(uint64_t), cudaHostAllocMapped));
    memset(g->h_count, 0, (size_t)g->depth * sizeof(uint64_t));
    GS_CU(g->dev, cudaHostGetDevicePointer((void **)&g->dh_count, g->h_count, 0));
    if (g->mapped && g->count_only && (rc = gs_gpu_dmalloc(g, &g->d_sink, g->C * g->osz, GS_DEV_ONCE, 0, st)))
        return rc;
    return GS_OK;
}
static int compact_launch(gs_gpu *g, const char *kin, char *kout, uint64_t n, uint64_t m, uint64_t first,
                          void *scratch, gs_status *st)
{
    (void)m;
    (void)first;
    return g->v->gpu.compact(&g->job.compact, kin, n, kout, g->base, g->d_count, scratch, g->scratch_bytes,
                             (void *)g->s_k, st);
}
static int compact_carry_out(gs_gpu *g, int s, const char *kin, uint64_t n, uint64_t m, gs_status *st)
{
    (void)kin;
    (void)m;
    (void)n;
    gs_gpu_publish_count<<<1, 1, 0, g->s_k>>>(g->dh_count + s, g->d_count);
    GS_CU(g->dev, cudaGetLastError());
    return GS_OK;
}

/* minmax: the last W-1 inputs of the stream so far in d_halo, copied to the head of each chunk. */
static int minmax_setup(gs_gpu *g, gs_type in, gs_status *st)
{
    g->job.minmax.type = in;
    g->osz = g->isz;
    g->cols = g->job.minmax.only == GS_MM_BOTH ? 2 : 1;
    if (g->job.minmax.window == 0) return gs_fail(st, GS_EUSAGE, "minmax: window must be at least 1");
    if (g->job.minmax.window - 1 > (UINT64_C(1) << 56) / g->isz)
        return gs_fail(st, GS_EUSAGE, "minmax: window %llu is too large", (unsigned long long)g->job.minmax.window);
    g->H = g->job.minmax.window - 1;
    return GS_OK;
}
static int minmax_has(const gs_variant *v) { return v->gpu.minmax != NULL; }
static int minmax_check(const gs_gpu *g, gs_status *st) { return gs_variant_check_minmax(g->v, &g->job.minmax, st); }
static size_t minmax_scratch(const gs_gpu *g, uint64_t C)
{
    return g->v->scratch.minmax ? g->v->scratch.minmax(&g->job.minmax, g->H + C) : 0;
}
static uint64_t minmax_carry_bytes(const gs_gpu *g, uint64_t C)
{
    (void)C;
    return gs_gpu_al(g->H * g->isz);
}
static int minmax_carry_init(gs_gpu *g, gs_status *st)
{
    int rc = g->H ? gs_gpu_dmalloc(g, (void **)&g->d_halo, g->H * g->isz, GS_DEV_ONCE, 0, st) : GS_OK;
    if (rc || !g->job.halo_len) return rc;
    /* continuing a stream: its last inputs are the first chunk's halo */
    if (g->job.halo_len > g->H)
        return gs_fail(st, GS_EDATA, "gpu backend: a halo of %llu elements for a window of %llu",
                       (unsigned long long)g->job.halo_len, (unsigned long long)g->job.minmax.window);
    GS_CU(g->dev, cudaMemcpy(g->d_halo, g->job.halo, g->job.halo_len * g->isz, cudaMemcpyHostToDevice));
    g->hl = g->job.halo_len;
    g->job.halo = NULL; /* the caller's memory: not read again */
    return GS_OK;
}
static void minmax_plan(const gs_gpu *g, uint64_t n, uint64_t hl, uint64_t *first, uint64_t *vals)
{
    const uint64_t m = hl + n;
    /* first = halo length with --partial, else the first end whose window is whole */
    *first = g->job.partial ? hl : (hl > g->H ? hl : g->H);
    *vals = *first < m ? (m - *first) * (uint64_t)g->cols : 0;
}
/* halo in: the previous chunk's tail copy to d_halo precedes this on the k stream (mapped: into
 * the engine's head room through its device address) */
static int minmax_carry_in(gs_gpu *g, char *kin, uint64_t hl, gs_status *st)
{
    return gs_gpu_copy(kin, g->d_halo, hl, g->isz, g->s_k, g->dev, st);
}
static int minmax_launch(gs_gpu *g, const char *kin, char *kout, uint64_t n, uint64_t m, uint64_t first,
                         void *scratch, gs_status *st)
{
    (void)n;
    if (first >= m) return GS_OK; /* no whole window yet */
    return g->v->gpu.minmax(&g->job.minmax, kin, m, first, kout, scratch, g->scratch_bytes, (void *)g->s_k, st);
}
/* halo out: the last min(W-1, m) inputs of [halo | chunk]; the next chunk's halo-in copy comes
 * after this on the k stream, so d_halo needs no second buffer. */
static int minmax_carry_out(gs_gpu *g, int s, const char *kin, uint64_t n, uint64_t m, gs_status *st)
{
    uint64_t hl2 = m < g->H ? m : g->H;
    int rc;
    (void)s;
    (void)n;
    if (!g->H) return GS_OK;
    if ((rc = gs_gpu_copy(g->d_halo, kin + (m - hl2) * g->isz, hl2, g->isz, g->s_k, g->dev, st))) return rc;
    g->hl = hl2;
    return GS_OK;
}

static const gs_gpu_op gs_gpu_ops[] = {
    {GS_OP_SCAN, scan_setup, scan_has, scan_check, scan_scratch, scan_carry_bytes, scan_carry_init, plan_all,
     carry_none, scan_launch, scan_carry_out, 0},
    {GS_OP_COMPACT, compact_setup, compact_has, compact_check, compact_scratch, compact_carry_bytes,
     compact_carry_init, plan_all, carry_none, compact_launch, compact_carry_out, 1},
    {GS_OP_MINMAX, minmax_setup, minmax_has, minmax_check, minmax_scratch, minmax_carry_bytes, minmax_carry_init,
     minmax_plan, minmax_carry_in, minmax_launch, minmax_carry_out, 0},
};

static const gs_gpu_op *gpu_op_find(gs_op op)
{
    for (size_t i = 0; i < sizeof gs_gpu_ops / sizeof gs_gpu_ops[0]; i++)
        if (gs_gpu_ops[i].op == op) return &gs_gpu_ops[i];
    return NULL;
}

/* ---- the D2H of one chunk ------------------------------------------------------------------ */

/* Queue D2H(k) of sl->vals values on the d2h stream after kernel(k), then the async frees of the
 * slot's buffers (their last users, the k stream and this copy, come before in stream order), then
 * ev_d2h1, which retire waits for. With --count the copy is skipped but the events still mark the
 * point. Only for non-mapped modes. */
/* Slot s's compaction count (op x's, published by its carry_out; at most `most` values) into
 * sl->vals, the values the kernel wrote counted in its bytes. */
static int gpu_take_count(gs_gpu *g, const gs_gpu *x, int s, gs_gpu_slot *sl, uint64_t most, gs_status *st)
{
    const uint64_t c = x->h_count[s];
    if (c > most)
        return gs_fail(st, GS_EDATA, "gpu %d: compact kernel (%s) returned count %llu for a chunk of at most %llu values",
                       g->dev, x->v->name, (unsigned long long)c, (unsigned long long)most);
    sl->vals = c;
    g->b_k += c * x->osz;
    return GS_OK;
}

/* Whether slot sl's output goes back as zstd frames encoded on the device. */
static int gpu_zenc_wanted(const gs_gpu *g, const gs_gpu_slot *sl)
{
    return g->ze && sl->out && sl->out->zt && sl->out->zcap;
}

/* Encode on the slot's stream after kernel(k): `bytes` of d_out, or with count (a compaction's,
 * on the device) the count's values, at most `bytes`. The frames come back at retire (their size
 * is known only then); d_out is free again at ev_d2h1. */
static int gpu_issue_zenc(gs_gpu *g, gs_gpu_slot *sl, uint64_t bytes, const volatile uint64_t *count,
                          gs_status *st)
{
    int rc;
    GS_CU(g->dev, cudaStreamWaitEvent(sl->zs, sl->ev_k1, 0));
    GS_CU(g->dev, cudaEventRecord(sl->ev_d2h0, sl->zs));
    if ((rc = gs_gzenc_queue(g->ze, (int)(sl - g->slot), (const unsigned char *)sl->d_out, bytes, count,
                             g->last->osz, sl->zs, st)))
        return rc;
    GS_CU(g->dev, cudaEventRecord(sl->ev_d2h1, sl->zs));
    sl->zenc = bytes;
    sl->zcount = count != NULL;
    sl->d2h_issued = 1;
    return GS_OK;
}

static int gpu_issue_d2h(gs_gpu *g, gs_gpu_slot *sl, gs_status *st)
{
    const gs_gpu *L = g->last;
    uint64_t bytes = L->count_only && L->ops->counted ? 0 : sl->vals * L->osz;
    int rc;
    sl->zenc = 0;
    if (bytes && gpu_zenc_wanted(g, sl)) return gpu_issue_zenc(g, sl, bytes, NULL, st);
    GS_CU(g->dev, cudaStreamWaitEvent(g->s_d2h, sl->ev_k1, 0));
    GS_CU(g->dev, cudaEventRecord(sl->ev_d2h0, g->s_d2h));
    if (bytes) GS_CU(g->dev, cudaMemcpyAsync(sl->out->data, sl->d_out, bytes, cudaMemcpyDeviceToHost, g->s_d2h));
    if (g->dev_alloc == GS_DEV_ASYNC && (rc = gs_gpu_slot_release(g, sl, g->s_d2h, st))) return rc;
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
static int gpu_pump_counted(gs_gpu *g, int block, gs_status *st)
{
    const gs_gpu *L = g->last; /* the op that writes d_out (a chain's last stage) */
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
        if ((rc = gpu_take_count(g, L, s, sl, sl->n, st)) || (rc = gpu_issue_d2h(g, sl, st))) return rc;
    }
    return GS_OK;
}

/* ---- chains ---------------------------------------------------------------------------------- */

/* A chain on slot s, on the k stream: stage 0 reads [halo | chunk] at kin, each later stage reads
 * the output of the one before in d_mid (its halo copied into the head room there), the last
 * writes d_out; ev_st[k] follows stage k. The data never leave the device between stages. A
 * compaction before a later stage: the host waits for that stage's count (published to mapped
 * memory by its carry_out) -- the one value that crosses PCIe between stages, since the launchers
 * take n from the host. A stage given 0 elements leaves its carry and the stages after it alone.
 * *vals: the last stage's output values (0 while a last compaction's count is unknown). */
static int gpu_chain_run(gs_gpu *g, int s, gs_gpu_slot *sl, char *kin, uint64_t n, void *scratch, uint64_t *vals,
                         gs_status *st)
{
    uint64_t nk = n;
    int k = 0, rc;
    *vals = 0;
    for (; k < g->nst && nk; k++) {
        gs_gpu *x = g->st[k];
        const int last = k == g->nst - 1;
        const uint64_t hl = x->hl, m = hl + nk;
        uint64_t first = 0, v = 0;
        char *kout = last ? sl->d_out : sl->d_mid[k] + g->st[k + 1]->hl * x->osz;
        if (k > 0) kin = sl->d_mid[k - 1];
        x->ops->plan(x, nk, hl, &first, &v);
        g->st_in[k] += nk;
        if ((rc = x->ops->carry_in(x, kin, hl, st))) return rc;
        if ((rc = x->ops->launch(x, kin, kout, nk, m, first, scratch, st))) return rc;
        if ((rc = x->ops->carry_out(x, s, kin, nk, m, st))) return rc;
        if (k > 0) x->base += nk; /* stage 0's base moves in gpu_submit */
        GS_CU(g->dev, cudaEventRecord(sl->ev_st[k], g->s_k));
        g->b_k += nk * x->isz + (x->ops->counted ? 0 : v * x->osz);
        if (last) {
            *vals = x->ops->counted ? 0 : v;
            return GS_OK;
        }
        if (x->ops->counted) {
            GS_CU(g->dev, cudaEventSynchronize(sl->ev_st[k]));
            if (x->h_count[s] > nk)
                return gs_fail(st, GS_EDATA, "gpu %d: stage %d: compact kernel (%s) returned count %llu for %llu elements",
                               g->dev, k + 1, x->v->name, (unsigned long long)x->h_count[s], (unsigned long long)nk);
            nk = x->h_count[s];
            g->b_k += nk * x->osz;
        } else
            nk = v; /* scan: n values; minmax --only: one per window end */
    }
    for (; k < g->nst; k++) GS_CU(g->dev, cudaEventRecord(sl->ev_st[k], g->s_k)); /* emptied: zero time */
    /* A last compaction that did not run publishes no count: its slot's count is 0. The slot's
     * previous chunk retired (its ev_d2h1 followed its publish), so the host may write it. */
    if (g->last->ops->counted) g->last->h_count[s] = 0;
    return GS_OK;
}

/* Stage k (>= 1) of a chain: its own gs_gpu with the schedule's device, streams and chunk size,
 * its parameters checked, its carry allocated (counted in the budget of stage 0). */
static int gpu_stage_make(gs_gpu *g, const gs_backend_cfg *c, int k, gs_status *st)
{
    gs_gpu *x = (gs_gpu *)calloc(1, sizeof *x);
    const gs_job *j = &c->chain->stage[k];
    int rc;
    if (!x) return gs_fail(st, GS_ENOMEM, "out of host memory");
    g->st[k] = x;
    x->dev = g->dev;
    x->job = *j;
    x->op = j->op;
    x->v = c->variants[k];
    x->ops = gpu_op_find(j->op);
    x->host_mem = g->host_mem;
    x->dev_alloc = GS_DEV_ONCE;
    x->depth = g->depth;
    x->isz = gs_type_size(c->types[k]);
    x->cols = 1;
    x->count_only = j->count_only;
    x->s_h2d = g->s_h2d;
    x->s_k = g->s_k;
    x->s_d2h = g->s_d2h;
    x->C = g->C;
    x->dev_budget = g->dev_budget > g->dev_cur ? g->dev_budget - g->dev_cur : 0;
    x->last = x;
    if (!x->ops || !x->v) return gs_fail(st, GS_EDATA, "gpu backend: stage %d: nothing to compute", k + 1);
    if ((rc = x->ops->setup(x, c->types[k], st))) return rc;
    if (x->v->where != GS_GPU || x->v->op != x->op || !x->ops->has_launcher(x->v))
        return gs_fail(st, GS_EUSAGE, "stage %d: --algo %s is not a GPU variant of %s", k + 1, x->v->name,
                       gs_op_name(x->op));
    if ((rc = x->ops->check(x, st))) return rc;
    x->scratch_bytes = x->ops->scratch(x, x->C);
    rc = x->ops->carry_init(x, st);
    g->dev_cur += x->dev_cur; /* the chain's device memory, counted once in stage 0 */
    if (g->dev_cur > g->dev_peak) g->dev_peak = g->dev_cur;
    return rc;
}

/* The later stages, the shared scratch (stages run one after another on the k stream: the largest
 * need), and per slot the buffers between stages and the stage events. */
static int gpu_chain_create(gs_gpu *g, const gs_backend_cfg *c, gs_status *st)
{
    int i, k, rc;
    for (k = 1; k < g->nst; k++) {
        if ((rc = gpu_stage_make(g, c, k, st))) return rc;
        if (g->st[k]->scratch_bytes > g->scratch_bytes) g->scratch_bytes = g->st[k]->scratch_bytes;
    }
    g->last = g->st[g->nst - 1];
    for (i = 0; i < g->depth; i++)
        for (k = 0; k < g->nst; k++) {
            GS_CU(g->dev, cudaEventCreateWithFlags(&g->slot[i].ev_st[k], cudaEventDefault));
            if (k == g->nst - 1) continue;
            const gs_gpu *nx = g->st[k + 1];
            if ((rc = gs_gpu_dmalloc(g, (void **)&g->slot[i].d_mid[k], (nx->H + g->C) * nx->isz, GS_DEV_ONCE, 0, st)))
                return rc;
        }
    return GS_OK;
}

/* Free what gpu_chain_create made (the streams are synchronised). */
static void gpu_chain_destroy(gs_gpu *g)
{
    for (int i = 0; i < g->depth; i++)
        for (int k = 0; k < GS_CHAIN_MAX; k++) {
            if (g->slot[i].d_mid[k]) (void)cudaFree(g->slot[i].d_mid[k]);
            if (g->slot[i].ev_st[k]) (void)cudaEventDestroy(g->slot[i].ev_st[k]);
        }
    for (int k = 1; k < g->nst; k++) {
        gs_gpu *x = g->st[k];
        if (!x) continue;
        if (x->d_carry) (void)cudaFree(x->d_carry);
        if (x->d_count) (void)cudaFree(x->d_count);
        if (x->d_halo) (void)cudaFree(x->d_halo);
        if (x->h_count) (void)cudaFreeHost(x->h_count);
        free(x);
    }
}

/* ---- submit / retire ---------------------------------------------------------------------- */

/* A device codec gave up on the GPU (pipeline/gpu_codec.cu's watchdog): no more work goes there. */
static int gpu_abandoned_fail(const gs_gpu *g, gs_status *st)
{
    return gs_fail(st, GS_EDATA, "gpu %d: the GPU zstd codec timed out, the device is no longer used; use --codec cpu",
                   g->dev);
}

/* ---- zstd frames decoded on the device ---------------------------------------------------- */

/* Wait under the zstd watchdog (gs_gpu_zwatch) for the decoding that ev ends, of about `bytes`. */
static int gpu_zdecoded(gs_gpu *g, cudaEvent_t ev, uint64_t bytes, gs_status *st)
{
    double limit = 0;
    cudaError_t e = gs_gpu_zwatch(NULL, ev, bytes, &limit);
    if (e == cudaErrorNotReady)
        return gs_fail(st, GS_EDATA, "gpu %d: the GPU zstd decoder did not finish within %.1f s (corrupt input?); "
                       "the GPU is no longer used; --codec cpu decodes on the host", g->dev, limit);
    return e == cudaSuccess ? GS_OK : gs_cu_fail(st, e, "zstd frames: cudaEventQuery", g->dev);
}

/* Chunk `in`'s compressed frames up to the slot's d_comp on the h2d stream (ev_z after), then on
 * the slot's own stream decoded to dst and checked (gpu_codec.cu), ev_h2d1 after: the slots in
 * flight decode at once (nvCOMP gives a frame a few threads: one chunk's frames do not fill the
 * device). Where dst is not at the decoder's output alignment (a minmax halo of odd length before
 * it), the frames decode into the slot's d_zfix and are copied into place. */
static int gpu_zqueue(gs_gpu *g, int s, gs_gpu_slot *sl, const gs_chunk *in, char *dst, gs_status *st)
{
    int rc;
    if (!g->zd || !sl->d_comp || in->zbytes > gs_gpu_in_bytes(g))
        return gs_fail(st, GS_EDATA, "gpu backend: a chunk of %zu zstd frames it cannot take", in->zn);
    GS_CU(g->dev, cudaMemcpyAsync(sl->d_comp, in->buf, in->zbytes, cudaMemcpyHostToDevice, g->s_h2d));
    GS_CU(g->dev, cudaEventRecord(sl->ev_z, g->s_h2d));
    GS_CU(g->dev, cudaStreamWaitEvent(sl->zs, sl->ev_z, 0));
    const int fix = (uintptr_t)dst % gs_gzdec_out_align(g->zd) != 0;
    if (fix && !sl->d_zfix &&
        (rc = gs_gpu_dmalloc(g, (void **)&sl->d_zfix, g->C * g->isz, GS_DEV_ONCE, 0, st)))
        return rc;
    g->h_zbad[s] = 0;
    if ((rc = gs_gzdec_queue(g->zd, s, in->zt, in->zn, sl->d_comp, fix ? sl->d_zfix : (unsigned char *)dst,
                             g->dh_zbad + s, sl->zs, st)))
        return rc;
    if (fix) GS_CU(g->dev, cudaMemcpyAsync(dst, sl->d_zfix, in->n * g->isz, cudaMemcpyDeviceToDevice, sl->zs));
    GS_CU(g->dev, cudaEventRecord(sl->ev_h2d1, sl->zs));
    if (!g->zfirst) {
        /* The op's kernels launch for the first time after this chunk's decoding: under CUDA's lazy
         * loading that launch waits for the device, for ever behind a decoder that never ends on
         * corrupt input. So the first chunk's decoding is waited for here, under the watchdog. */
        if ((rc = gpu_zdecoded(g, sl->ev_h2d1, in->zbytes + in->n * g->isz, st))) return rc;
        g->zfirst = 1;
    }
    sl->zbytes = in->zbytes;
    g->b_h2d += in->zbytes;
    g->b_zout += in->n * g->isz;
    return GS_OK;
}

/* Retire's first step for a chunk of frames: its decoding finished in time (gs_gpu_zwatch), and
 * every frame passed the check; else the run fails (the chunk's output is never handed on). */
static int gpu_zretire(gs_gpu *g, int s, gs_gpu_slot *sl, gs_status *st)
{
    int rc = gpu_zdecoded(g, sl->ev_h2d1, sl->zbytes + sl->n * g->isz, st);
    if (rc) return rc;
    if (g->h_zbad[s])
        return gs_fail(st, GS_EDATA, "corrupt zstd data: frame %u of chunk %llu failed its check after decoding on the "
                       "GPU (decoder status, size or checksum)", g->h_zbad[s] - 1, (unsigned long long)g->nret);
    return GS_OK;
}

/* Set up decoding of zstd frames for o->zdecode; where it cannot be had (no nvCOMP, mapped host
 * memory, the device budget), the chunks come decoded and why says so. */
static void gpu_zsetup(gs_gpu *g, gs_backend *b, const gs_engine_opts *o, char *why, size_t len)
{
    gs_status zst;
    const uint64_t in_bytes = gs_gpu_in_bytes(g);
    memset(&zst, 0, sizeof zst);
    size_t max_frames = (size_t)(g->C * g->isz / (16u << 10));
    if (max_frames < 64) max_frames = 64;
    if (max_frames > 65536) max_frames = 65536;
    why[0] = 0;
    if (!o || !o->zdecode) return;
    if (g->mapped) {
        snprintf(why, len, "--host-mem mapped: zstd frames decode on the host");
        return;
    }
    int rc = gs_gzdec_create(&g->zd, g->dev, g->depth, max_frames, GS_GPU_ZDEC_FRAME_MAX, (size_t)(g->C * g->isz), &zst);
    if (!rc && g->dev_cur + gs_gzdec_dev_bytes(g->zd) > g->dev_budget)
        rc = gs_fail(&zst, GS_ENOMEM, "its %llu bytes would pass the device budget",
                     (unsigned long long)gs_gzdec_dev_bytes(g->zd));
    if (!rc) g->dev_cur += gs_gpu_al(gs_gzdec_dev_bytes(g->zd));
    for (int i = 0; i < g->depth && !rc; i++) {
        rc = gs_gpu_dmalloc(g, (void **)&g->slot[i].d_comp, in_bytes, GS_DEV_ONCE, 0, &zst);
        cudaError_t e = rc ? cudaSuccess : cudaStreamCreateWithFlags(&g->slot[i].zs, cudaStreamNonBlocking);
        if (e != cudaSuccess) rc = gs_cu_fail(&zst, e, "cudaStreamCreate", g->dev);
    }
    if (!rc) {
        cudaError_t e = cudaHostAlloc((void **)&g->h_zbad, (size_t)g->depth * sizeof *g->h_zbad, cudaHostAllocMapped);
        if (e == cudaSuccess) e = cudaHostGetDevicePointer((void **)&g->dh_zbad, g->h_zbad, 0);
        if (e != cudaSuccess) rc = gs_cu_fail(&zst, e, "cudaHostAlloc", g->dev);
    }
    if (g->dev_cur > g->dev_peak) g->dev_peak = g->dev_cur;
    if (rc) {
        snprintf(why, len, "zstd frames decode on the host: %s", zst.msg);
        return;
    }
    b->zalign = gs_gzdec_in_align(g->zd);
    b->zunit = gs_gzdec_out_align(g->zd);
    if (b->zunit < 8) b->zunit = 8;
    if (b->zunit < g->isz) b->zunit = g->isz;
    b->zframe_max = GS_GPU_ZDEC_FRAME_MAX;
    b->ztab_max = max_frames;
    b->zbuf_max = (size_t)in_bytes;
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

/* ---- the output encoded as zstd frames on the device ---------------------------------------- */

/* Retire's wait for an encoded chunk (the encoder under the zstd watchdog), then its frames back
 * into the output chunk's buffer; where they would not fit there (incompressible output), the
 * values go back instead (d_out is not written again before this chunk retires). */
static int gpu_zenc_retire(gs_gpu *g, int s, gs_gpu_slot *sl, gs_status *st)
{
    double limit = 0;
    gs_chunk *out = sl->out;
    cudaError_t e = gs_gpu_zwatch(NULL, sl->ev_d2h1, sl->zenc, &limit);
    if (e == cudaErrorNotReady)
        return gs_fail(st, GS_EDATA, "gpu %d: the GPU zstd encoder did not finish within %.1f s; the GPU is no longer "
                       "used; --codec cpu encodes on the host", g->dev, limit);
    if (e != cudaSuccess) return gs_cu_fail(st, e, "zstd encoder: cudaEventQuery", g->dev);
    if (sl->zcount) { /* the count, published before the encoder read it (ev_k1 precedes ev_d2h1) */
        if (gpu_take_count(g, g->last, s, sl, sl->zenc / g->last->osz, st)) return st->code;
        sl->zenc = sl->vals * g->last->osz;
        if (!sl->vals) { /* nothing to encode: no frames */
            out->zn = 0;
            out->zbytes = 0;
            return GS_OK;
        }
    }
    size_t nf = 0, bytes = 0;
    int rc = gs_gzenc_take(g->ze, s, (size_t)sl->zenc, out->zt, &nf, &bytes, st);
    if (rc) return rc;
    GS_CU(g->dev, cudaEventRecord(sl->ev_zc0, sl->zs));
    const int fit = bytes <= out->zcap;
    if (fit) rc = gs_gzenc_copy(g->ze, s, out->buf, bytes, sl->zs, st);
    else GS_CU(g->dev, cudaMemcpyAsync(out->data, sl->d_out, sl->zenc, cudaMemcpyDeviceToHost, sl->zs));
    if (rc) return rc;
    GS_CU(g->dev, cudaEventRecord(sl->ev_zc1, sl->zs));
    GS_CU(g->dev, cudaEventSynchronize(sl->ev_zc1));
    g->t_d2h += gpu_ms(sl->ev_zc0, sl->ev_zc1);
    g->b_d2h += fit ? bytes : sl->zenc;
    g->b_zenc += sl->zenc;
    out->zn = fit ? nf : 0;
    out->zbytes = fit ? bytes : 0;
    return GS_OK;
}

/* Set up encoding of the output as zstd frames for o->zencode (not with mapped host memory, nor
 * --device-alloc other than once, nor --count); where it cannot be had, values go back and why
 * says so. */
static void gpu_zesetup(gs_gpu *g, gs_backend *b, const gs_engine_opts *o, char *why, size_t len)
{
    gs_status zst;
    memset(&zst, 0, sizeof zst);
    why[0] = 0;
    if (!o || !o->zencode || (g->last->count_only && g->last->ops->counted)) return;
    if (g->mapped || g->dev_alloc != GS_DEV_ONCE) {
        snprintf(why, len, "--host-mem mapped or --device-alloc per-chunk/async: zstd frames are encoded on the host");
        return;
    }
    int rc = gs_gzenc_create(&g->ze, g->dev, g->depth, o->zencode, (size_t)gs_gpu_out_bytes(g), &zst);
    if (!rc && g->dev_cur + gs_gzenc_dev_bytes(g->ze) > g->dev_budget)
        rc = gs_fail(&zst, GS_ENOMEM, "its %llu bytes would pass the device budget",
                     (unsigned long long)gs_gzenc_dev_bytes(g->ze));
    if (!rc) g->dev_cur += gs_gpu_al(gs_gzenc_dev_bytes(g->ze));
    for (int i = 0; i < g->depth && !rc; i++) {
        gs_gpu_slot *sl = &g->slot[i];
        cudaError_t e = sl->zs ? cudaSuccess : cudaStreamCreateWithFlags(&sl->zs, cudaStreamNonBlocking);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&sl->ev_zc0, cudaEventDefault);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&sl->ev_zc1, GS_GPU_WAIT_EVENT_FLAGS);
        if (e != cudaSuccess) rc = gs_cu_fail(&zst, e, "zstd encoder's streams", g->dev);
    }
    if (g->dev_cur > g->dev_peak) g->dev_peak = g->dev_cur;
    if (rc) {
        gs_gzenc_destroy(g->ze);
        g->ze = NULL;
        snprintf(why, len, "zstd frames are encoded on the host: %s", zst.msg);
        return;
    }
    b->zenc_tab_max = gs_gzenc_max_frames(g->ze);
    b->zenc_bytes = gs_gzenc_bound(g->ze);
}

static int gpu_submit(gs_backend *b, gs_chunk *in, gs_chunk *out, gs_status *st)
{
    gs_gpu *g = (gs_gpu *)b->impl;
    const int s = (int)(g->nsub % (uint64_t)g->depth);
    gs_gpu_slot *sl = &g->slot[s];
    const uint64_t n = in->n, hl = g->hl, m = hl + n;
    uint64_t first = 0, vals = n;
    char *kin = NULL, *kout = NULL; /* what the kernel reads and writes (device or mapped addresses) */
    void *scratch;
    int rc;

    if (gs_gpu_abandoned()) return gpu_abandoned_fail(g, st);
    GS_CU(g->dev, cudaSetDevice(g->dev));
    if (g->nsub - g->nret >= (uint64_t)g->depth)
        return gs_fail(st, GS_EDATA, "gpu backend: submit with %d chunks already in flight", g->depth);
    if (n > g->C)
        return gs_fail(st, GS_EDATA, "gpu backend: chunk of %llu elements is larger than %llu",
                       (unsigned long long)n, (unsigned long long)g->C);
    g->ops->plan(g, n, hl, &first, &vals);
    if (g->nst > 1) vals = n * (uint64_t)g->last->cols; /* at most: no stage writes more rows than it reads */
    if (!(g->last->ops->counted && g->last->count_only) && (!out || out->cap < vals))
        return gs_fail(st, GS_EDATA, "gpu backend: output chunk holds %llu values, %llu needed",
                       (unsigned long long)(out ? out->cap : 0), (unsigned long long)vals);

    sl->in = in;
    sl->out = out;
    sl->n = n;
    sl->vals = g->last->ops->counted ? 0 : vals;
    sl->empty = sl->h2d_done = sl->d2h_issued = 0;
    sl->zenc = 0;
    sl->zcount = 0;
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
        if ((rc = gs_gpu_mapped_ptr(g, in, &kin, st))) return rc;
        kin -= hl * g->isz; /* device address of the head room part that takes the halo */
        kout = NULL;
        if (g->ops->counted && g->count_only) kout = (char *)g->d_sink;
        else if ((rc = gs_gpu_mapped_ptr(g, out, &kout, st))) return rc;
        if (g->dev_alloc != GS_DEV_ONCE && (rc = gs_gpu_slot_alloc(g, sl, st))) return rc; /* scratch, k stream */
    } else {
        if (g->dev_alloc != GS_DEV_ONCE && (rc = gs_gpu_slot_alloc(g, sl, st))) return rc; /* on h2d stream */
        /* H2D(k) may overwrite slot s once kernel(k-depth) and its halo tail copy are done with it;
         * ev_k1[s] marks exactly that (a no-op wait on the slot's first use). The halo head room
         * [0, hl) is written later by the k stream, so the chunk lands at hl. */
        GS_CU(g->dev, cudaStreamWaitEvent(g->s_h2d, sl->ev_k1, 0));
        GS_CU(g->dev, cudaEventRecord(sl->ev_h2d0, g->s_h2d));
        sl->zdec = in->zn > 0;
        if (sl->zdec) { /* ev_h2d1 on the slot's decoding stream */
            if ((rc = gpu_zqueue(g, s, sl, in, sl->d_in + hl * g->isz, st))) return rc;
        } else {
            GS_CU(g->dev, cudaMemcpyAsync(sl->d_in + hl * g->isz, in->data, n * g->isz, cudaMemcpyHostToDevice, g->s_h2d));
            GS_CU(g->dev, cudaEventRecord(sl->ev_h2d1, g->s_h2d));
            g->b_h2d += n * g->isz;
        }
        sl->h2d_done = 1;
        kin = sl->d_in;
        kout = sl->d_out;
        /* kernel(k) after H2D(k); and it overwrites d_out[s] only after D2H(k-depth) drained it. */
        GS_CU(g->dev, cudaStreamWaitEvent(g->s_k, sl->ev_h2d1, 0));
        GS_CU(g->dev, cudaStreamWaitEvent(g->s_k, sl->ev_d2h1, 0));
    }
    scratch = g->dev_alloc == GS_DEV_ONCE ? g->d_scratch : sl->d_scratch;

    GS_CU(g->dev, cudaEventRecord(sl->ev_k0, g->s_k));
    if (g->nst > 1) {
        if ((rc = gpu_chain_run(g, s, sl, kin, n, scratch, &vals, st))) return rc;
        sl->vals = vals;
    } else {
        if ((rc = g->ops->carry_in(g, kin, hl, st))) return rc;
        if ((rc = g->ops->launch(g, kin, kout, n, m, first, scratch, st))) return rc;
        if ((rc = g->ops->carry_out(g, s, kin, n, m, st))) return rc;
        g->b_k += n * g->isz + (g->ops->counted ? 0 : vals * g->osz);
    }
    if (g->mapped && g->dev_alloc == GS_DEV_ASYNC && (rc = gs_gpu_slot_release(g, sl, g->s_k, st))) return rc;
    /* ev_k1: kernel(k) done, slot s's input is free, h_count[s] is valid */
    GS_CU(g->dev, cudaEventRecord(sl->ev_k1, g->s_k));
    g->base += n;

    if (g->mapped) return GS_OK;
    if (g->last->ops->counted && !g->last->count_only && gpu_zenc_wanted(g, sl))
        return gpu_issue_zenc(g, sl, vals * g->last->osz, g->last->dh_count + s, st); /* no wait for the count */
    if (g->last->ops->counted) return gpu_pump_counted(g, 0, st);
    return gpu_issue_d2h(g, sl, st);
}

static int gpu_retire(gs_backend *b, gs_chunk **in, gs_chunk **out, gs_status *st)
{
    gs_gpu *g = (gs_gpu *)b->impl;
    const int s = (int)(g->nret % (uint64_t)g->depth);
    gs_gpu_slot *sl = &g->slot[s];
    int rc;

    *in = NULL;
    *out = NULL;
    if (gs_gpu_abandoned()) return gpu_abandoned_fail(g, st);
    GS_CU(g->dev, cudaSetDevice(g->dev));
    if (g->nret >= g->nsub) return gs_fail(st, GS_EDATA, "gpu backend: retire with no chunk in flight");
    if (!sl->empty && sl->zdec && (rc = gpu_zretire(g, s, sl, st))) return rc;
    if (!sl->empty) {
        if (g->mapped) {
            /* the kernel read the input and wrote the output in host memory: both free after ev_k1 */
            GS_CU(g->dev, cudaEventSynchronize(sl->ev_k1));
            if (g->ops->counted && (rc = gpu_take_count(g, g, s, sl, sl->n, st))) return rc;
        } else {
            if (g->last->ops->counted && (rc = gpu_pump_counted(g, 1, st))) return rc;
            /* ev_d2h1 follows ev_k1 follows ev_h2d1 by the stream waits: the whole chunk is done,
             * so the engine may refill the input buffer and write out the output. */
            const int zenc = sl->zenc != 0; /* (a count of 0 leaves zenc 0 after gpu_zenc_retire) */
            if (zenc) {
                if ((rc = gpu_zenc_retire(g, s, sl, st))) return rc;
            } else
                GS_CU(g->dev, cudaEventSynchronize(sl->ev_d2h1));
            if (sl->zdec) {
                g->t_h2d += gpu_ms(sl->ev_h2d0, sl->ev_z);
                g->t_zdec += gpu_ms(sl->ev_z, sl->ev_h2d1);
            } else
                g->t_h2d += gpu_ms(sl->ev_h2d0, sl->ev_h2d1);
            if (zenc) g->t_zenc += gpu_ms(sl->ev_d2h0, sl->ev_d2h1);
            else g->t_d2h += gpu_ms(sl->ev_d2h0, sl->ev_d2h1);
        }
        g->t_k += gpu_ms(sl->ev_k0, sl->ev_k1);
        for (int k = 0; k < g->nst && g->nst > 1; k++)
            g->t_st[k] += gpu_ms(k ? sl->ev_st[k - 1] : sl->ev_k0, sl->ev_st[k]);
        /* per-chunk: the naive baseline, cudaFree once the chunk is complete (cudaFree itself
         * synchronises the device; that cost is what this mode shows) */
        if (g->dev_alloc == GS_DEV_PER_CHUNK && (rc = gs_gpu_slot_release(g, sl, g->s_k, st))) return rc;
    }
    if (sl->out) {
        sl->out->n = (size_t)sl->vals;
        if (!sl->zenc) sl->out->zn = 0;
    }
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
    if (g->b_zout) gpu_add_stage(s, "zstd decode (gpu)", g->t_zdec, g->b_zout);
    if (g->b_zenc) gpu_add_stage(s, "zstd encode (gpu)", g->t_zenc, g->b_zenc);
    gpu_add_stage(s, "d2h", g->t_d2h, g->b_d2h);
    for (int k = 0; k < g->nst && g->nst > 1; k++) { /* a chain: each stage's kernel time */
        snprintf(s->stage_label[k], sizeof s->stage_label[k], "%d %s", k + 1, gs_op_name(g->st[k]->op));
        gpu_add_stage(s, s->stage_label[k], g->t_st[k], g->st_in[k] * g->st[k]->isz);
        s->chain_in[k] = g->st_in[k];
    }
    if (g->dev_peak > s->peak_device_mem) s->peak_device_mem = g->dev_peak;
    snprintf(lab, sizeof gs_gpu_label[0], "gpu: %s", g->devname);
    s->backend = lab;
}

/* After a failure with zstd work queued (nvCOMP's decoder has been seen never to finish on
 * corrupt input, and a chunk's check may fail while the next chunk's decoder runs): every stream
 * waited for under the zstd watchdog, so that an unending one gives the device up instead of
 * leaving a later synchronising call (cudaHostUnregister, cudaFreeHost, a stream sync) to wait for
 * ever. */
static void gpu_quiesce(gs_backend *b)
{
    gs_gpu *g = (gs_gpu *)b->impl;
    double limit;
    if (!g || !g->streams_made || (!g->zd && !g->ze) || gs_gpu_abandoned() || cudaSetDevice(g->dev) != cudaSuccess)
        return;
    for (int i = 0; i < g->depth && !gs_gpu_abandoned(); i++)
        if (g->slot[i].zs) (void)gs_gpu_zwatch(g->slot[i].zs, NULL, gs_gpu_in_bytes(g), &limit);
    cudaStream_t all[3] = {g->s_h2d, g->s_k, g->s_d2h};
    for (int i = 0; i < 3 && !gs_gpu_abandoned(); i++) (void)gs_gpu_zwatch(all[i], NULL, gs_gpu_in_bytes(g), &limit);
    (void)cudaGetLastError();
}

static void gpu_destroy(gs_backend *b)
{
    gs_gpu *g;
    gs_status ignore;
    int i;
    if (!b) return;
    g = (gs_gpu *)b->impl;
    if (g && gs_gpu_abandoned()) { /* a kernel may hang there: the process's end frees it all */
        free(g);
        g = NULL;
    }
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
                (void)gs_gpu_slot_release(g, sl, g->s_k, &ignore);
            } else {
                g->dev_alloc = GS_DEV_ONCE; /* plain cudaFree for what is left */
                (void)gs_gpu_slot_release(g, sl, g->s_k, &ignore);
                g->dev_alloc = mode;
            }
            if (sl->ev_h2d0) (void)cudaEventDestroy(sl->ev_h2d0);
            if (sl->ev_h2d1) (void)cudaEventDestroy(sl->ev_h2d1);
            if (sl->ev_k0) (void)cudaEventDestroy(sl->ev_k0);
            if (sl->ev_k1) (void)cudaEventDestroy(sl->ev_k1);
            if (sl->ev_d2h0) (void)cudaEventDestroy(sl->ev_d2h0);
            if (sl->ev_d2h1) (void)cudaEventDestroy(sl->ev_d2h1);
            if (sl->ev_z) (void)cudaEventDestroy(sl->ev_z);
            if (sl->ev_zc0) (void)cudaEventDestroy(sl->ev_zc0);
            if (sl->ev_zc1) (void)cudaEventDestroy(sl->ev_zc1);
            if (sl->zs) {
                (void)cudaStreamSynchronize(sl->zs);
                (void)cudaStreamDestroy(sl->zs);
            }
            if (sl->d_comp) (void)cudaFree(sl->d_comp);
            if (sl->d_zfix) (void)cudaFree(sl->d_zfix);
        }
        gs_gzdec_destroy(g->zd);
        gs_gzenc_destroy(g->ze);
        if (g->h_zbad) (void)cudaFreeHost(g->h_zbad);
        if (g->streams_made) (void)cudaStreamSynchronize(g->s_k);
        gpu_chain_destroy(g);
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
        if (c->halo < g->H)
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

    if ((rc = gs_gpu_fit(g, c->chunk_elems, o, st))) return rc;
    g->scratch_bytes = g->ops->scratch(g, g->C);
    if (g->nst > 1 && (rc = gpu_chain_create(g, c, st))) return rc; /* before scratch and d_out are sized */

    for (i = 0; i < g->depth; i++) {
        gs_gpu_slot *sl = &g->slot[i];
        /* all timed (per-chunk busy time for --stats); ev_k1 / ev_d2h1 are what the host waits on */
        GS_CU(g->dev, cudaEventCreateWithFlags(&sl->ev_h2d0, cudaEventDefault));
        GS_CU(g->dev, cudaEventCreateWithFlags(&sl->ev_h2d1, cudaEventDefault));
        GS_CU(g->dev, cudaEventCreateWithFlags(&sl->ev_k0, cudaEventDefault));
        GS_CU(g->dev, cudaEventCreateWithFlags(&sl->ev_k1, GS_GPU_WAIT_EVENT_FLAGS));
        GS_CU(g->dev, cudaEventCreateWithFlags(&sl->ev_d2h0, cudaEventDefault));
        GS_CU(g->dev, cudaEventCreateWithFlags(&sl->ev_d2h1, GS_GPU_WAIT_EVENT_FLAGS));
        GS_CU(g->dev, cudaEventCreateWithFlags(&sl->ev_z, cudaEventDefault));
    }

    /* the carry: always cudaMalloc once (it lives across chunks) */
    if ((rc = g->ops->carry_init(g, st))) return rc;
    if (g->dev_alloc == GS_DEV_ONCE) {
        if ((rc = gs_gpu_dmalloc(g, &g->d_scratch, g->scratch_bytes, GS_DEV_ONCE, 0, st))) return rc;
        for (i = 0; i < g->depth && !g->mapped; i++) {
            if ((rc = gs_gpu_dmalloc(g, (void **)&g->slot[i].d_in, gs_gpu_in_bytes(g), GS_DEV_ONCE, 0, st))) return rc;
            if ((rc = gs_gpu_dmalloc(g, (void **)&g->slot[i].d_out, gs_gpu_out_bytes(g), GS_DEV_ONCE, 0, st))) return rc;
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
    /* a device codec gave up on the device (a hung kernel may run there): creating anything on it
     * could wait for ever */
    if (gs_gpu_abandoned()) return gs_fail(st, GS_EDATA, "gpu backend: the GPU zstd codec timed out, the device is no "
                                                       "longer used; use --codec cpu");
    e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev <= 0) {
        char why[256];
        (void)cudaGetLastError();
        gs_gpu_why_none(e, why, sizeof why);
        return gs_fail(st, GS_EDATA, "no usable GPU: %s", why);
    }
    if (o && (o->device < 0 || o->device >= ndev))
        return gs_fail(st, GS_EUSAGE, "--device %d: this machine has %d GPU(s) (0..%d)", o->device, ndev, ndev - 1);
    if (!j || !gpu_op_find(j->op)) return gs_fail(st, GS_EDATA, "gpu backend: nothing to compute");
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
    b->host_alloc = gs_gpu_host_alloc;
    b->host_free = gs_gpu_host_free;
    b->submit = gpu_submit;
    b->retire = gpu_retire;
    b->stats = gpu_stats;
    b->quiesce = gpu_quiesce;
    b->destroy = gpu_destroy;

    g->dev = o ? o->device : 0;
    g->job = *j;
    g->op = j->op;
    g->v = c->variant ? c->variant : gs_variant_default(j->op, GS_GPU);
    g->host_mem = o ? o->host_mem : GS_HOST_PINNED;
    g->dev_alloc = o ? o->dev_alloc : GS_DEV_ONCE;
    g->mapped = g->host_mem == GS_HOST_MAPPED;
    if (g->host_mem == GS_HOST_PINNED) {
        b->host_register = gs_gpu_host_register;
        b->host_unregister = gs_gpu_host_unregister;
    }
    g->depth = o && o->buffers > 0 ? o->buffers : 2;
    if (g->depth > GS_GPU_MAX_DEPTH) g->depth = GS_GPU_MAX_DEPTH;
    g->ops = gpu_op_find(j->op);
    g->isz = gs_type_size(c->in_type);
    g->cols = 1;
    g->count_only = j->count_only;
    g->nst = 1;
    g->st[0] = g;
    g->last = g;
    if (c->chain) {
        if (c->chain->n > GS_CHAIN_MAX || g->mapped || g->dev_alloc != GS_DEV_ONCE) {
            gpu_destroy(b);
            return gs_fail(st, GS_EUSAGE, "a chain on the GPU runs with --host-mem pinned, pageable or registered and "
                                          "--device-alloc once");
        }
        g->nst = c->chain->n;
    }
    /* the element sizes we move are those the launchers read and write */
    if ((rc = g->ops->setup(g, c->in_type, st))) {
        gpu_destroy(b);
        return rc;
    }
    if (!g->v || g->v->where != GS_GPU || g->v->op != g->op || !g->ops->has_launcher(g->v)) {
        if (g->v) rc = gs_fail(st, GS_EUSAGE, "--algo %s is not a GPU variant of this operation", g->v->name);
        else rc = gs_fail(st, GS_EDATA, "gpu backend: no GPU variant compiled in for this operation");
        gpu_destroy(b);
        return rc;
    }
    if ((rc = g->ops->check(g, st))) { /* the variant accepts these parameters (type, op, predicate, widening) */
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
    char zwhy[600];
    gs_trace("gpu backend: streams and device buffers made");
    gpu_zsetup(g, b, o, zwhy, sizeof zwhy);
    if (g->zd) gs_trace("gpu backend: zstd decoder made");
    if (zwhy[0] && o->note) o->note(o->note_ctx, zwhy);
    gpu_zesetup(g, b, o, zwhy, sizeof zwhy);
    if (g->ze) gs_trace("gpu backend: zstd encoder made");
    if (zwhy[0] && o->note) o->note(o->note_ctx, zwhy);
    *out = b;
    return GS_OK;
}

