/* gpu/multi.cu - several devices in one run (--device 0,1 or all): a backend that deals the engine's
 * chunks to one GPU backend per device in turn (chunk k to device k mod n) and retires them in the
 * same order, so the engine sees one backend whose depth is the devices' depths together.
 *
 * Carries follow the chunks: before chunk k's work on device i, device i's k stream waits for an
 * event recorded on the k stream of chunk k-1's device p (after its last kernel), then takes every
 * stage's carries from p (gs_gpu_carry_pass: scan's running total, minmax's halo, the host's view
 * of both and of the index base). The kernels of consecutive chunks therefore run one after
 * another, as on one device, and the result is the one device's, bit for bit; what runs side by
 * side is each device's copies (H2D, D2H) and the kernels' wait for them. Device p's next chunk
 * (k-1+n) comes after chunk k-1+n-1's, which waits (through the devices between) for device i's
 * copy: no carry is overwritten before it has been taken.
 *
 * Each device has its own streams, slots and carries (a gs_gpu each, made as for one device); the
 * chunk is the smallest any of them fits. The engine's staging memory comes from the first device:
 * page-locked memory is page-locked for every device in the one address space. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.cuh"
#include "../backends.h"
#include "../../common/trace.h"

typedef struct gs_gpu_multi {
    int n;
    gs_backend *b[GS_DEVICES_MAX];
    int peer[GS_DEVICES_MAX];     /* device i reads the memory of chunk k-1's device (or is the same) */
    cudaEvent_t ev[GS_DEVICES_MAX]; /* device i: its carries are final up to here (recorded at hand-on) */
    uint64_t nsub, nret;
    gs_engine_opts o[GS_DEVICES_MAX];
} gs_gpu_multi;

static gs_gpu *dev_of(const gs_gpu_multi *m, int i) { return (gs_gpu *)m->b[i]->impl; }

static int multi_submit(gs_backend *b, gs_chunk *in, gs_chunk *out, gs_status *st)
{
    gs_gpu_multi *m = (gs_gpu_multi *)b->impl;
    const int i = (int)(m->nsub % (uint64_t)m->n);
    gs_gpu *g = dev_of(m, i);
    int rc;
    if (m->nsub > 0 && m->n > 1) { /* chunk k-1's carries, from its device p, on to device i */
        const int p = (i + m->n - 1) % m->n;
        gs_gpu *gp = dev_of(m, p);
        GS_CU(gp->dev, cudaSetDevice(gp->dev));
        GS_CU(gp->dev, cudaEventRecord(m->ev[p], gp->s_k));
        GS_CU(g->dev, cudaSetDevice(g->dev));
        GS_CU(g->dev, cudaStreamWaitEvent(g->s_k, m->ev[p], 0));
        if ((rc = gs_gpu_carry_pass(g, gp, m->peer[i], st))) return rc;
    }
    if ((rc = m->b[i]->submit(m->b[i], in, out, st))) return rc;
    m->nsub++;
    return GS_OK;
}

static int multi_retire(gs_backend *b, gs_chunk **in, gs_chunk **out, gs_status *st)
{
    gs_gpu_multi *m = (gs_gpu_multi *)b->impl;
    const int i = (int)(m->nret % (uint64_t)m->n);
    int rc = m->b[i]->retire(m->b[i], in, out, st);
    if (!rc) m->nret++;
    return rc;
}

/* The engine's staging memory, from the first device; freed once no device may still read it (after
 * a failure chunks may be in flight on any of them). */
static void *multi_host_alloc(gs_backend *b, size_t bytes, gs_status *st)
{
    gs_gpu_multi *m = (gs_gpu_multi *)b->impl;
    return m->b[0]->host_alloc(m->b[0], bytes, st);
}
static void multi_settle(gs_gpu_multi *m)
{
    for (int i = 0; i < m->n && m->nsub > m->nret && !gs_gpu_abandoned(); i++) {
        gs_gpu *g = dev_of(m, i);
        if (!g->streams_made || cudaSetDevice(g->dev) != cudaSuccess) continue;
        (void)cudaStreamSynchronize(g->s_h2d);
        (void)cudaStreamSynchronize(g->s_k);
        (void)cudaStreamSynchronize(g->s_d2h);
    }
}
static void multi_host_free(gs_backend *b, void *p)
{
    gs_gpu_multi *m = (gs_gpu_multi *)b->impl;
    multi_settle(m);
    m->b[0]->host_free(m->b[0], p);
}
static int multi_host_register(gs_backend *b, void *p, size_t bytes, gs_status *st)
{
    gs_gpu_multi *m = (gs_gpu_multi *)b->impl;
    return m->b[0]->host_register(m->b[0], p, bytes, st);
}
static int multi_host_unregister(gs_backend *b, void *p)
{
    gs_gpu_multi *m = (gs_gpu_multi *)b->impl;
    multi_settle(m);
    return m->b[0]->host_unregister(m->b[0], p);
}

/* The devices' stages added up (busy seconds are each device's, summed); the backend named with
 * every device. */
static void multi_stats(gs_backend *b, gs_run_stats *s)
{
    gs_gpu_multi *m = (gs_gpu_multi *)b->impl;
    const int base = s->nstages;
    gs_run_stats *t = (gs_run_stats *)malloc(sizeof *t);
    uint64_t peak = 0;
    m->b[0]->stats(m->b[0], s);
    if (m->n == 1) { /* --device all on a machine of one: named as one device */
        free(t);
        return;
    }
    peak = s->peak_device_mem;
    for (int i = 1; i < m->n && t; i++) {
        memset(t, 0, sizeof *t);
        m->b[i]->stats(m->b[i], t);
        for (int k = 0; k < t->nstages; k++) { /* by name: a device may lack a row (no frames came to it) */
            int at = base;
            while (at < s->nstages && strcmp(s->stage[at].name, t->stage[k].name)) at++;
            const char *nm = t->stage[k].name, *lab = (const char *)t->stage_label;
            const int label = nm >= lab && nm < lab + sizeof t->stage_label; /* in t: not kept */
            if (at == s->nstages && at < (int)(sizeof s->stage / sizeof s->stage[0]) && !label) {
                s->stage[at].name = t->stage[k].name; /* a literal: chains' labels are the first device's */
                s->stage[at].busy = s->stage[at].bytes = 0;
                s->nstages++;
            }
            if (at == s->nstages) continue;
            s->stage[at].busy += t->stage[k].busy;
            s->stage[at].bytes += t->stage[k].bytes;
        }
        for (int k = 0; k < GS_CHAIN_MAX; k++) s->chain_in[k] += t->chain_in[k];
        peak += t->peak_device_mem;
    }
    free(t);
    s->peak_device_mem = peak;
    size_t at = (size_t)snprintf(s->backend_text, sizeof s->backend_text, "gpu: %d devices (", m->n);
    for (int i = 0; i < m->n && at < sizeof s->backend_text; i++)
        at += (size_t)snprintf(s->backend_text + at, sizeof s->backend_text - at, "%s%d %s", i ? ", " : "",
                               dev_of(m, i)->dev, dev_of(m, i)->devname);
    if (at < sizeof s->backend_text) snprintf(s->backend_text + at, sizeof s->backend_text - at, ")");
    s->backend = s->backend_text;
}

static void multi_quiesce(gs_backend *b)
{
    gs_gpu_multi *m = (gs_gpu_multi *)b->impl;
    for (int i = 0; i < m->n; i++)
        if (m->b[i]->quiesce) m->b[i]->quiesce(m->b[i]);
}

static void multi_destroy(gs_backend *b)
{
    if (!b) return;
    gs_gpu_multi *m = (gs_gpu_multi *)b->impl;
    for (int i = 0; m && i < m->n; i++) {
        if (m->ev[i] && !gs_gpu_abandoned()) {
            (void)cudaSetDevice(m->o[i].device);
            (void)cudaEventDestroy(m->ev[i]);
        }
        if (m->b[i]) m->b[i]->destroy(m->b[i]);
    }
    (void)cudaGetLastError();
    free(m);
    free(b);
}

/* The devices of o (every one the machine has for GS_DEVICES_ALL), each below the count. */
static int multi_devices(const gs_engine_opts *o, int *dev, int *n, gs_status *st)
{
    int count = 0;
    GS_CU(o->device, cudaGetDeviceCount(&count));
    if (count <= 0) return gs_fail(st, GS_EDATA, "no usable GPU: no CUDA device found");
    if (o->ndevices == GS_DEVICES_ALL) {
        *n = count < GS_DEVICES_MAX ? count : GS_DEVICES_MAX;
        for (int i = 0; i < *n; i++) dev[i] = i;
        return GS_OK;
    }
    *n = o->ndevices;
    for (int i = 0; i < *n; i++) {
        dev[i] = o->devices[i];
        if (dev[i] >= count)
            return gs_fail(st, GS_EUSAGE, "--device %d: this machine has %d GPU(s) (0..%d)", dev[i], count, count - 1);
    }
    return GS_OK;
}

/* Whether device d reads device p's memory, enabling it where it can (same device: yes). */
static int multi_peer(int d, int p, int *peer, gs_status *st)
{
    int can = 0;
    *peer = 1;
    if (d == p) return GS_OK;
    GS_CU(d, cudaDeviceCanAccessPeer(&can, d, p));
    *peer = can;
    if (!can) return GS_OK;
    GS_CU(d, cudaSetDevice(d));
    cudaError_t e = cudaDeviceEnablePeerAccess(p, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) (void)cudaGetLastError();
    else GS_CU(d, e);
    return GS_OK;
}

/* One GPU backend a device of c->opts (a list, or all), dealt chunks in turn. */
int gs_gpu_multi_create(gs_backend **out, const gs_backend_cfg *c, gs_status *st)
{
    int dev[GS_DEVICES_MAX], n = 0, rc;
    gs_backend *b;
    gs_gpu_multi *m;
    *out = NULL;
    if ((rc = multi_devices(c->opts, dev, &n, st))) return rc;
    if (!(b = gs_backend_alloc(sizeof(gs_gpu_multi), st))) return st->code;
    m = (gs_gpu_multi *)b->impl;
    b->name = "gpu";
    b->submit = multi_submit;
    b->retire = multi_retire;
    b->host_alloc = multi_host_alloc;
    b->host_free = multi_host_free;
    b->stats = multi_stats;
    b->quiesce = multi_quiesce;
    b->destroy = multi_destroy;
    for (int i = 0; i < n; i++) {
        gs_backend_cfg ci = *c;
        m->o[i] = *c->opts;
        m->o[i].device = dev[i];
        m->o[i].ndevices = 0;
        ci.opts = &m->o[i];
        ci.text_in = i ? 0 : c->text_in; /* the reader's blocks go to the first device */
        if ((rc = gs_backend_gpu_create(&m->b[i], &ci, st))) break;
        m->n = i + 1;
        cudaError_t e = cudaSetDevice(dev[i]);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&m->ev[i], cudaEventDisableTiming);
        if (e != cudaSuccess) {
            rc = gs_cu_fail(st, e, "cudaEventCreateWithFlags", dev[i]);
            break;
        }
        const gs_backend *x = m->b[i];
        if (!i || x->chunk_elems < b->chunk_elems) b->chunk_elems = x->chunk_elems;
        b->depth += x->depth;
        gs_trace("gpu backend: device %d of %d made (gpu %d)", i + 1, n, dev[i]);
    }
    for (int i = 0; i < n && !rc && n > 1; i++) rc = multi_peer(dev[i], dev[(i + n - 1) % n], &m->peer[i], st);
    if (rc) {
        multi_destroy(b);
        return rc;
    }
    if (m->b[0]->host_register) {
        b->host_register = multi_host_register;
        b->host_unregister = multi_host_unregister;
    }
    b->pins = m->b[0]->pins;
    b->max_head = m->b[0]->max_head;
    /* zstd frames each device decodes or encodes itself: what every one of them takes */
    b->zalign = m->b[0]->zalign;
    b->zunit = m->b[0]->zunit;
    b->zframe_max = m->b[0]->zframe_max;
    b->ztab_max = m->b[0]->ztab_max;
    b->zbuf_max = m->b[0]->zbuf_max;
    b->zenc_tab_max = m->b[0]->zenc_tab_max;
    b->zenc_bytes = m->b[0]->zenc_bytes;
    for (int i = 1; i < n; i++) {
        const gs_backend *x = m->b[i];
        if (!x->zalign || x->zalign != b->zalign || x->zunit != b->zunit) b->zalign = b->zunit = 0;
        if (x->zframe_max < b->zframe_max) b->zframe_max = x->zframe_max;
        if (x->ztab_max < b->ztab_max) b->ztab_max = x->ztab_max;
        if (x->zbuf_max < b->zbuf_max) b->zbuf_max = x->zbuf_max;
        if (x->zenc_tab_max < b->zenc_tab_max) b->zenc_tab_max = x->zenc_tab_max;
        if (x->zenc_bytes < b->zenc_bytes) b->zenc_bytes = x->zenc_bytes;
    }
    if (!b->zalign) b->zframe_max = b->ztab_max = b->zbuf_max = 0;
    if (!b->zenc_bytes) b->zenc_tab_max = 0;
    /* text each device formats itself, where every one of them does; the input's csv parsed on the first */
    b->text_cols = m->b[0]->text_cols;
    for (int i = 1; i < n; i++)
        if (m->b[i]->text_cols != b->text_cols) b->text_cols = 0;
    b->text_in = m->b[0]->text_in;
    *out = b;
    return GS_OK;
}
