/* gpu/frames.cu - chunks of zstd frames decoded on the device where the kernels read them
 * (docs/ARCHITECTURE.md, "zstd frames on the device"): a chunk's compressed bytes go up on the h2d
 * stream, and slot s's own stream decodes and checks them into d_in[s] (the GPU zstd codec's decoder),
 * so the chunks in flight decode at once; retire waits for that under the zstd watchdog and reads
 * the check's verdict before anything else of the chunk. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "backend.cuh"

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
 * the slot's own stream decoded to dst and checked (the GPU zstd codec), ev_h2d1 after: the slots in
 * flight decode at once (nvCOMP gives a frame a few threads: one chunk's frames do not fill the
 * device). Where dst is not at the decoder's output alignment (a minmax halo of odd length before
 * it), the frames decode into the slot's d_zfix and are copied into place. */
int gs_gpu_zqueue(gs_gpu *g, int s, gs_gpu_slot *sl, const gs_chunk *in, char *dst, gs_status *st)
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
int gs_gpu_zretire(gs_gpu *g, int s, gs_gpu_slot *sl, gs_status *st)
{
    int rc = gpu_zdecoded(g, sl->ev_h2d1, sl->zbytes + sl->n * g->isz, st);
    if (rc) return rc;
    if (g->h_zbad[s])
        return gs_fail(st, GS_EDATA, "corrupt zstd data: frame %u of chunk %llu failed its check after decoding on the "
                       "GPU (decoder status, size or checksum)", g->h_zbad[s] - 1, (unsigned long long)g->nret);
    return GS_OK;
}

/* Where nvCOMP's decoder or the device budget refuse, the chunks come decoded and why says so.
 * (The plan never asks for frames with --host-mem mapped: the kernels read host memory there.) */
void gs_gpu_zsetup(gs_gpu *g, gs_backend *b, const gs_backend_cfg *c, char *why, size_t len)
{
    gs_status zst;
    const uint64_t in_bytes = gs_gpu_in_bytes(g);
    memset(&zst, 0, sizeof zst);
    size_t max_frames = (size_t)(g->C * g->isz / (16u << 10));
    if (max_frames < 64) max_frames = 64;
    if (max_frames > 65536) max_frames = 65536;
    why[0] = 0;
    if (!c->opts || !c->opts->plan.zdecode || g->mapped) return;
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
