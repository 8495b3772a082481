/* gpu/textout.cu - the backend's output formatted as csv or text on the device, where the kernels
 * wrote the values (the plan's text_gpu): after ev_k1[s], slot s's stream formats d_out[s] into
 * d_text[s] (kernels/text_gpu.cu; ev_d2h0..ev_d2h1 around it) instead of the D2H of the values, and
 * retire copies the text back into the output chunk. Where a value needs the host's formatter
 * (kernels/numtext.h says which) or the text would not fit the chunk's buffer, the values go back
 * instead and the writer formats them: the bytes written are the same either way. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "backend.cuh"
#include "../../kernels/numtext.h"
#include "../../kernels/text_gpu.h"

int gs_gpu_text_wanted(const gs_gpu *g, const gs_gpu_slot *sl, uint64_t vals)
{
    return g->tcols && sl->out && sl->out->tcap && vals && vals % (uint64_t)g->tcols == 0;
}

int gs_gpu_issue_text(gs_gpu *g, gs_gpu_slot *sl, uint64_t vals, gs_status *st)
{
    const int s = (int)(sl - g->slot);
    uint64_t cap = sl->out->tcap < g->tcap ? sl->out->tcap : g->tcap;
    int rc;
    GS_CU(g->dev, cudaStreamWaitEvent(sl->zs, sl->ev_k1, 0));
    GS_CU(g->dev, cudaEventRecord(sl->ev_d2h0, sl->zs));
    if ((rc = gs_text_gpu_rows(sl->d_out, g->ttype, g->tcols, vals / (uint64_t)g->tcols, NULL, g->tsep,
                               sl->d_text, (size_t)cap, g->d_tlen + s, g->d_tbad + s, sl->d_tscr, g->tscr_bytes,
                               sl->zs, st)))
        return rc;
    /* the verdict back on the same stream (the kernels write it in device memory: a value the device
     * leaves to the host is flagged by every thread that meets one) */
    GS_CU(g->dev, cudaMemcpyAsync(g->h_tlen + s, g->d_tlen + s, sizeof *g->h_tlen, cudaMemcpyDeviceToHost, sl->zs));
    GS_CU(g->dev, cudaMemcpyAsync(g->h_tbad + s, g->d_tbad + s, sizeof *g->h_tbad, cudaMemcpyDeviceToHost, sl->zs));
    GS_CU(g->dev, cudaEventRecord(sl->ev_d2h1, sl->zs));
    sl->tx = 1;
    sl->d2h_issued = 1;
    return GS_OK;
}

int gs_gpu_text_retire(gs_gpu *g, int s, gs_gpu_slot *sl, gs_status *st)
{
    gs_chunk *out = sl->out;
    const uint64_t vbytes = sl->vals * g->last->osz;
    GS_CU(g->dev, cudaEventSynchronize(sl->ev_d2h1));
    g->t_text += gs_gpu_ms(sl->ev_d2h0, sl->ev_d2h1);
    const uint64_t len = g->h_tlen[s];
    const int fit = !g->h_tbad[s] && len && len <= out->tcap;
    GS_CU(g->dev, cudaEventRecord(sl->ev_zc0, sl->zs));
    if (fit) GS_CU(g->dev, cudaMemcpyAsync(out->buf, sl->d_text, len, cudaMemcpyDeviceToHost, sl->zs));
    else GS_CU(g->dev, cudaMemcpyAsync(out->data, sl->d_out, vbytes, cudaMemcpyDeviceToHost, sl->zs));
    GS_CU(g->dev, cudaEventRecord(sl->ev_zc1, sl->zs));
    GS_CU(g->dev, cudaEventSynchronize(sl->ev_zc1));
    g->t_d2h += gs_gpu_ms(sl->ev_zc0, sl->ev_zc1);
    g->b_d2h += fit ? len : vbytes;
    if (fit) g->b_text += vbytes;
    out->tlen = fit ? (size_t)len : 0;
    return GS_OK;
}

void gs_gpu_tsetup(gs_gpu *g, gs_backend *b, const gs_backend_cfg *c, char *why, size_t len)
{
    gs_status tst;
    memset(&tst, 0, sizeof tst);
    why[0] = 0;
    if (!c->text_cols) return;
    const char *no = g->mapped ? "--host-mem mapped" : g->dev_alloc != GS_DEV_ONCE ? "--device-alloc other than once"
                     : g->ze ? "the output is zstd encoded on the GPU"
                     : g->last->count_only ? "--count" : NULL;
    if (no) {
        snprintf(why, len, "output text formatted on the host (%s)", no);
        return;
    }
    const uint64_t vals = gs_gpu_out_vals(g, g->C);
    const uint64_t rows = vals / (uint64_t)c->text_cols + 1;
    const uint64_t cap = vals * (uint64_t)(gs_numtext_bound(c->out_type) + 1);
    const size_t scr = gs_text_gpu_scratch(rows, c->text_cols, c->out_type);
    int rc = GS_OK;
    g->tcap = cap; /* what gs_gpu_text_free gives back */
    g->tscr_bytes = scr;
    if (g->dev_cur + (uint64_t)g->depth * (gs_gpu_al(cap) + gs_gpu_al(scr)) > g->dev_budget)
        rc = gs_fail(&tst, GS_ENOMEM, "its %llu bytes would pass the device budget",
                     (unsigned long long)((uint64_t)g->depth * (cap + scr)));
    for (int i = 0; i < g->depth && !rc; i++) {
        gs_gpu_slot *sl = &g->slot[i];
        rc = gs_gpu_dmalloc(g, (void **)&sl->d_text, cap, GS_DEV_ONCE, 0, &tst);
        if (!rc && scr) rc = gs_gpu_dmalloc(g, &sl->d_tscr, scr, GS_DEV_ONCE, 0, &tst);
        cudaError_t e = rc || sl->zs ? cudaSuccess : cudaStreamCreateWithFlags(&sl->zs, cudaStreamNonBlocking);
        if (e == cudaSuccess && !rc && !sl->ev_zc0) e = cudaEventCreateWithFlags(&sl->ev_zc0, cudaEventDefault);
        if (e == cudaSuccess && !rc && !sl->ev_zc1) e = cudaEventCreateWithFlags(&sl->ev_zc1, GS_GPU_WAIT_EVENT_FLAGS);
        if (e != cudaSuccess) rc = gs_cu_fail(&tst, e, "the text formatter's streams", g->dev);
    }
    if (!rc) rc = gs_gpu_dmalloc(g, (void **)&g->d_tlen, (uint64_t)g->depth * sizeof *g->d_tlen, GS_DEV_ONCE, 0, &tst);
    if (!rc) rc = gs_gpu_dmalloc(g, (void **)&g->d_tbad, (uint64_t)g->depth * sizeof *g->d_tbad, GS_DEV_ONCE, 0, &tst);
    if (!rc) {
        cudaError_t e = cudaHostAlloc((void **)&g->h_tlen, (size_t)g->depth * sizeof *g->h_tlen, cudaHostAllocDefault);
        if (e == cudaSuccess) e = cudaHostAlloc((void **)&g->h_tbad, (size_t)g->depth * sizeof *g->h_tbad, cudaHostAllocDefault);
        if (e != cudaSuccess) rc = gs_cu_fail(&tst, e, "cudaHostAlloc", g->dev);
    }
    if (g->dev_cur > g->dev_peak) g->dev_peak = g->dev_cur;
    if (rc) {
        gs_gpu_text_free(g);
        snprintf(why, len, "output text formatted on the host: %s", tst.msg);
        return;
    }
    g->tcols = c->text_cols;
    g->tsep = c->text_sep;
    g->ttype = c->out_type;
    b->text_cols = c->text_cols;
}

void gs_gpu_text_free(gs_gpu *g)
{
    gs_status ignore;
    memset(&ignore, 0, sizeof ignore);
    for (int i = 0; i < g->depth; i++) {
        gs_gpu_slot *sl = &g->slot[i];
        if (sl->d_text) (void)gs_gpu_dfree(g, (void **)&sl->d_text, g->tcap, GS_DEV_ONCE, 0, &ignore);
        if (sl->d_tscr) (void)gs_gpu_dfree(g, &sl->d_tscr, g->tscr_bytes, GS_DEV_ONCE, 0, &ignore);
        sl->d_text = NULL;
        sl->d_tscr = NULL;
    }
    (void)gs_gpu_dfree(g, (void **)&g->d_tlen, (uint64_t)g->depth * sizeof *g->d_tlen, GS_DEV_ONCE, 0, &ignore);
    (void)gs_gpu_dfree(g, (void **)&g->d_tbad, (uint64_t)g->depth * sizeof *g->d_tbad, GS_DEV_ONCE, 0, &ignore);
    if (g->h_tlen) (void)cudaFreeHost(g->h_tlen);
    if (g->h_tbad) (void)cudaFreeHost(g->h_tbad);
    g->h_tlen = NULL;
    g->h_tbad = NULL;
    g->tcols = 0;
    (void)cudaGetLastError();
}
