/* gpu/zencode.cu - the backend's output encoded as zstd frames on the device, where the kernels
 * wrote it (the plan's zencode): after ev_k1[s], slot s's stream encodes d_out[s] (the GPU zstd codec's
 * encoder; ev_d2h0..ev_d2h1 around it) instead of the D2H, and retire copies the packed frames
 * back. A compaction's output is queued at submit with its count read on the device, so no host
 * round trip sits between kernel(k) and its encoding. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "backend.cuh"

/* Whether slot sl's output goes back as zstd frames encoded on the device. */
int gs_gpu_zenc_wanted(const gs_gpu *g, const gs_gpu_slot *sl)
{
    return g->ze && sl->out && sl->out->zt && sl->out->zcap;
}

/* Encode on the slot's stream after kernel(k): `bytes` of d_out, or with count (a compaction's,
 * on the device) the count's values, at most `bytes`. The frames come back at retire (their size
 * is known only then); d_out is free again at ev_d2h1. */
int gs_gpu_issue_zenc(gs_gpu *g, gs_gpu_slot *sl, uint64_t bytes, const volatile uint64_t *count, gs_status *st)
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

/* Retire's wait for an encoded chunk (the encoder under the zstd watchdog), then its frames back
 * into the output chunk's buffer; where they would not fit there (incompressible output), the
 * values go back instead (d_out is not written again before this chunk retires). */
int gs_gpu_zenc_retire(gs_gpu *g, int s, gs_gpu_slot *sl, gs_status *st)
{
    double limit = 0;
    gs_chunk *out = sl->out;
    cudaError_t e = gs_gpu_zwatch(NULL, sl->ev_d2h1, sl->zenc, &limit);
    if (e == cudaErrorNotReady)
        return gs_fail(st, GS_EDATA, "gpu %d: the GPU zstd encoder did not finish within %.1f s; the GPU is no longer "
                       "used; --codec cpu encodes on the host", g->dev, limit);
    if (e != cudaSuccess) return gs_cu_fail(st, e, "zstd encoder: cudaEventQuery", g->dev);
    if (sl->zcount) { /* the count, published before the encoder read it (ev_k1 precedes ev_d2h1) */
        if (gs_gpu_take_count(g, g->last, s, sl, sl->zenc / g->last->osz, st)) return st->code;
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
    g->t_d2h += gs_gpu_ms(sl->ev_zc0, sl->ev_zc1);
    g->b_d2h += fit ? bytes : sl->zenc;
    g->b_zenc += sl->zenc;
    out->zn = fit ? nf : 0;
    out->zbytes = fit ? bytes : 0;
    return GS_OK;
}

/* Where nvCOMP's encoder or the device budget refuse, values go back and why says so. (The plan
 * never asks for it with mapped host memory, --device-alloc other than once, nor --count.) */
void gs_gpu_zesetup(gs_gpu *g, gs_backend *b, const gs_backend_cfg *c, char *why, size_t len)
{
    gs_status zst;
    memset(&zst, 0, sizeof zst);
    why[0] = 0;
    const size_t frame = c->opts ? c->opts->plan.zencode : 0;
    if (!frame || (g->last->count_only && g->last->ops->counted) || g->mapped || g->dev_alloc != GS_DEV_ONCE) return;
    int rc = gs_gzenc_create(&g->ze, g->dev, g->depth, frame, (size_t)gs_gpu_out_bytes(g), &zst);
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
