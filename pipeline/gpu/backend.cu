/* gpu/backend.cu - the schedule of the GPU backend of the chunk engine (docs/ARCHITECTURE.md, "The GPU
 * schedule"): submit and retire, stats, create and destroy. Each operation's carry hooks are in
 * ops.cu, chains in chain.cu, zstd frames in frames.cu and zencode.cu, device queries and CUDA's
 * start-up in device.cu, memory (counted device allocation, --host-mem staging) in memory.cu.
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
 * decodes and checks them into d_in[s] (frames.cu) and records ev_h2d1[s]; retire waits for
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
 * count is the one value the host must learn per chunk (see gpu_pump_counted). The carry hooks of
 * each operation are in ops.cu.
 *
 * Memory: --host-mem picks host_alloc; --device-alloc once|per-chunk|async picks when the slot
 * buffers (d_in, d_out, scratch) are allocated (memory.cu). Library code: returns gs_status,
 * never prints or exits. */
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "backend.cuh"
#include "../../common/trace.h"

/* ---- the D2H of one chunk ------------------------------------------------------------------ */

int gs_gpu_take_count(gs_gpu *g, const gs_gpu *x, int s, gs_gpu_slot *sl, uint64_t most, gs_status *st)
{
    const uint64_t c = x->h_count[s];
    if (c > most)
        return gs_fail(st, GS_EDATA, "gpu %d: compact kernel (%s) returned count %llu for a chunk of at most %llu values",
                       g->dev, x->v->name, (unsigned long long)c, (unsigned long long)most);
    sl->vals = c;
    g->b_k += c * x->osz;
    return GS_OK;
}

/* Queue D2H(k) of sl->vals values on the d2h stream after kernel(k), then the async frees of the
 * slot's buffers (their last users, the k stream and this copy, come before in stream order), then
 * ev_d2h1, which retire waits for. With --count the copy is skipped but the events still mark the
 * point. Only for non-mapped modes. */
static int gpu_issue_d2h(gs_gpu *g, gs_gpu_slot *sl, gs_status *st)
{
    const gs_gpu *L = g->last;
    uint64_t bytes = L->count_only && L->ops->counted ? 0 : sl->vals * L->osz;
    int rc;
    sl->zenc = 0;
    if (bytes && gs_gpu_zenc_wanted(g, sl)) return gs_gpu_issue_zenc(g, sl, bytes, NULL, st);
    if (bytes && gs_gpu_text_wanted(g, sl, sl->vals)) return gs_gpu_issue_text(g, sl, sl->vals, st);
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
        if ((rc = gs_gpu_take_count(g, L, s, sl, sl->n, st)) || (rc = gpu_issue_d2h(g, sl, st))) return rc;
    }
    return GS_OK;
}

/* ---- submit / retire ---------------------------------------------------------------------- */

int gs_gpu_given_up(int dev, gs_status *st)
{
    if (!gs_gpu_abandoned()) return GS_OK;
    return gs_fail(st, GS_EDATA, "gpu %d: the GPU zstd codec timed out, the device is no longer used; use --codec cpu",
                   dev);
}

double gs_gpu_ms(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0.0f;
    if (cudaEventElapsedTime(&ms, a, b) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0.0;
    }
    return ms * 1e-3;
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

    if ((rc = gs_gpu_given_up(g->dev, st))) return rc;
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
    sl->tx = 0;
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
            if ((rc = gs_gpu_zqueue(g, s, sl, in, sl->d_in + hl * g->isz, st))) return rc;
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
        if ((rc = gs_gpu_chain_run(g, s, sl, kin, n, scratch, &vals, st))) return rc;
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
    if (g->last->ops->counted && !g->last->count_only && gs_gpu_zenc_wanted(g, sl))
        return gs_gpu_issue_zenc(g, sl, vals * g->last->osz, g->last->dh_count + s, st); /* no wait for the count */
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
    if ((rc = gs_gpu_given_up(g->dev, st))) return rc;
    GS_CU(g->dev, cudaSetDevice(g->dev));
    if (g->nret >= g->nsub) return gs_fail(st, GS_EDATA, "gpu backend: retire with no chunk in flight");
    if (!sl->empty && sl->zdec && (rc = gs_gpu_zretire(g, s, sl, st))) return rc;
    if (!sl->empty) {
        if (g->mapped) {
            /* the kernel read the input and wrote the output in host memory: both free after ev_k1 */
            GS_CU(g->dev, cudaEventSynchronize(sl->ev_k1));
            if (g->ops->counted && (rc = gs_gpu_take_count(g, g, s, sl, sl->n, st))) return rc;
        } else {
            if (g->last->ops->counted && (rc = gpu_pump_counted(g, 1, st))) return rc;
            /* ev_d2h1 follows ev_k1 follows ev_h2d1 by the stream waits: the whole chunk is done,
             * so the engine may refill the input buffer and write out the output. */
            const int zenc = sl->zenc != 0; /* (a count of 0 leaves zenc 0 after gpu_zenc_retire) */
            if (zenc) {
                if ((rc = gs_gpu_zenc_retire(g, s, sl, st))) return rc;
            } else if (sl->tx) {
                if ((rc = gs_gpu_text_retire(g, s, sl, st))) return rc;
            } else
                GS_CU(g->dev, cudaEventSynchronize(sl->ev_d2h1));
            if (sl->zdec) {
                g->t_h2d += gs_gpu_ms(sl->ev_h2d0, sl->ev_z);
                g->t_zdec += gs_gpu_ms(sl->ev_z, sl->ev_h2d1);
            } else
                g->t_h2d += gs_gpu_ms(sl->ev_h2d0, sl->ev_h2d1);
            if (zenc) g->t_zenc += gs_gpu_ms(sl->ev_d2h0, sl->ev_d2h1);
            else if (!sl->tx) g->t_d2h += gs_gpu_ms(sl->ev_d2h0, sl->ev_d2h1);
        }
        g->t_k += gs_gpu_ms(sl->ev_k0, sl->ev_k1);
        for (int k = 0; k < g->nst && g->nst > 1; k++)
            g->t_st[k] += gs_gpu_ms(k ? sl->ev_st[k - 1] : sl->ev_k0, sl->ev_st[k]);
        /* per-chunk: the naive baseline, cudaFree once the chunk is complete (cudaFree itself
         * synchronises the device; that cost is what this mode shows) */
        if (g->dev_alloc == GS_DEV_PER_CHUNK && (rc = gs_gpu_slot_release(g, sl, g->s_k, st))) return rc;
    }
    if (sl->out) {
        sl->out->n = (size_t)sl->vals;
        if (!sl->zenc) sl->out->zn = 0;
        if (!sl->tx) sl->out->tlen = 0;
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

static void gpu_stats(gs_backend *b, gs_run_stats *s)
{
    gs_gpu *g = (gs_gpu *)b->impl;
    gpu_add_stage(s, "h2d", g->t_h2d, g->b_h2d);
    gpu_add_stage(s, "kernel", g->t_k, g->b_k);
    if (g->b_zout) gpu_add_stage(s, "zstd decode (gpu)", g->t_zdec, g->b_zout);
    if (g->b_zenc) gpu_add_stage(s, "zstd encode (gpu)", g->t_zenc, g->b_zenc);
    if (g->tcols) gpu_add_stage(s, "text format (gpu)", g->t_text, g->b_text);
    if (g->tin) {
        double busy;
        uint64_t bytes, declined;
        gs_gpu_tin_stats(g, &busy, &bytes, &declined);
        gpu_add_stage(s, declined ? "csv parse (gpu; the host from a block on)" : "csv parse (gpu)", busy, bytes);
    }
    gpu_add_stage(s, "d2h", g->t_d2h, g->b_d2h);
    for (int k = 0; k < g->nst && g->nst > 1; k++) { /* a chain: each stage's kernel time */
        snprintf(s->stage_label[k], sizeof s->stage_label[k], "%d %s", k + 1, gs_job_name(&g->st[k]->job));
        gpu_add_stage(s, s->stage_label[k], g->t_st[k], g->st_in[k] * g->st[k]->isz);
        s->chain_in[k] = g->st_in[k];
    }
    if (g->dev_peak > s->peak_device_mem) s->peak_device_mem = g->dev_peak;
    /* in the stats' own memory: they outlive the backend */
    snprintf(s->backend_text, sizeof s->backend_text, "gpu: %s", g->devname);
    s->backend = s->backend_text;
    if (g->nst == 1) s->algo = g->v->name;
    else { /* "lookback, vhgw": each stage's variant */
        size_t at = 0;
        for (int k = 0; k < g->nst && at < sizeof s->algo_text; k++)
            at += (size_t)snprintf(s->algo_text + at, sizeof s->algo_text - at, "%s%s", k ? ", " : "", g->st[k]->v->name);
        s->algo = s->algo_text;
    }
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
        gs_gpu_text_free(g);
        gs_gpu_tin_free(g);
        gs_gzdec_destroy(g->zd);
        gs_gzenc_destroy(g->ze);
        if (g->h_zbad) (void)cudaFreeHost(g->h_zbad);
        if (g->streams_made) (void)cudaStreamSynchronize(g->s_k);
        gs_gpu_chain_destroy(g);
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

    if (g->nst > 1 && (rc = gs_gpu_chain_stages(g, c, st))) return rc; /* the chunk's fit counts them */
    if ((rc = gs_gpu_fit(g, c->chunk_elems, o, st))) return rc;
    g->scratch_bytes = g->ops->scratch(g, g->C);
    if (g->nst > 1 && (rc = gs_gpu_chain_create(g, st))) return rc; /* before scratch and d_out are sized */

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
    if (o && gs_devices_several(o->ndevices)) return gs_gpu_multi_create(out, c, st);
    /* a device codec gave up on the device (a hung kernel may run there): creating anything on it
     * could wait for ever */
    if ((rc = gs_gpu_given_up(o ? o->device : 0, st))) return rc;
    e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev <= 0) {
        char why[256];
        (void)cudaGetLastError();
        gs_gpu_why_none(e, why, sizeof why);
        return gs_fail(st, GS_EDATA, "no usable GPU: %s", why);
    }
    if (o && (o->device < 0 || o->device >= ndev))
        return gs_fail(st, GS_EUSAGE, "--device %d: this machine has %d GPU(s) (0..%d)", o->device, ndev, ndev - 1);
    if (!j || !gs_gpu_op_find(j->op)) return gs_fail(st, GS_EDATA, "gpu backend: nothing to compute");
    if (!c->chunk_elems) return gs_fail(st, GS_EUSAGE, "gpu backend: chunk of 0 elements");

    if (!(b = gs_backend_alloc(sizeof(gs_gpu), st))) return st->code;
    g = (gs_gpu *)b->impl;
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
    if (g->host_mem == GS_HOST_PINNED) { /* the engine's buffers read early are page-locked where they lie */
        b->host_register = gs_gpu_host_register;
        b->host_unregister = gs_gpu_host_unregister;
        b->pins = 1;
    }
    g->depth = o && o->buffers > 0 ? o->buffers : 2;
    if (g->depth > GS_GPU_MAX_DEPTH) g->depth = GS_GPU_MAX_DEPTH;
    g->ops = gs_gpu_op_find(j->op);
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
    if (!g->v || g->v->where != GS_GPU || g->v->op != gs_job_variant_op(j) || !g->ops->has_launcher(g->v)) {
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
    if (o->plan.direct && !g->mapped) { /* the input read where it lies, where the device can lock its pages */
        int can = 0;
        if ((rc = gs_gpu_file_can(g, &can, zwhy, sizeof zwhy, st))) {
            gpu_destroy(b);
            return rc;
        }
        if (can) {
            b->file_register = gs_gpu_file_register;
            b->file_unregister = gs_gpu_file_unregister;
        } else if (o->note)
            o->note(o->note_ctx, zwhy);
    }
    gs_trace("gpu backend: streams and device buffers made");
    gs_gpu_zsetup(g, b, c, zwhy, sizeof zwhy);
    if (g->zd) gs_trace("gpu backend: zstd decoder made");
    if (zwhy[0] && o->note) o->note(o->note_ctx, zwhy);
    gs_gpu_zesetup(g, b, c, zwhy, sizeof zwhy);
    if (g->ze) gs_trace("gpu backend: zstd encoder made");
    if (zwhy[0] && o->note) o->note(o->note_ctx, zwhy);
    gs_gpu_tsetup(g, b, c, zwhy, sizeof zwhy);
    if (zwhy[0] && o->note) o->note(o->note_ctx, zwhy);
    gs_gpu_tin_setup(g, b, c, zwhy, sizeof zwhy);
    if (zwhy[0] && o->note) o->note(o->note_ctx, zwhy);
    *out = b;
    return GS_OK;
}
