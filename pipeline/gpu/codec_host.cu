/* codec_host.cu - zstd on the device through nvCOMP's batched C API, as io/'s gs_zcodec: the codec
 * of the readers and writers, whose batches come from and go back to host memory.
 *
 * Decode: the batch's compressed frames are packed (by the thread pool) into a pinned staging
 * buffer at nvCOMP's input alignment, copied to the device in one transfer with the per-frame
 * table, decompressed by nvcompBatchedZstdDecompressAsync into a device buffer, and the statuses,
 * actual sizes and decoded bytes copied back. What the device is given was checked on the host
 * first (io/zstd.c with io/zstd_frames.c); a frame is reported done only with status success and
 * exactly its declared size, and io/zstd.c then verifies its XXH64 before keeping it.
 * Encode: the input batch goes to the device, nvcompBatchedZstdCompressAsync writes one frame per
 * `frame` bytes into slots of its worst-case size, a small kernel packs the frames end to end
 * (offsets from the sizes, which the host reads first), and one transfer brings them back into
 * pinned memory; io/zstd.c adds content size and checksum.
 *
 * Each codec has its own stream and buffers (one reader or one writer drives it); buffers grow
 * to the largest batch seen and are kept. Every wait is under the watchdog (codec_watchdog.cu):
 * on expiry the codec stops for good (gs_zcodec.stopped): a decode reports no frame done, so io/
 * decodes the batch, and every later one, with libzstd, which judges it; an encode fails. Decoded
 * bytes are copied back only once the decoder has finished, so nothing on the device writes into
 * the caller's memory after a timeout. Library code: returns gs_status, never prints. */
#ifdef GS_HAVE_NVCOMP
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.cuh"
#include "../../common/pool.h"

typedef struct gs_gzc {
    gs_zcodec base;
    int dev;
    cudaStream_t s;
    size_t din_align, dout_align, dtemp_align; /* decompression alignments */
    size_t cin_align, cout_align, ctemp_align; /* compression alignments */
    unsigned char *h_stage; size_t h_stage_cap; /* pinned: compressed frames, up (decode) or down (encode) */
    unsigned char *d_pack; size_t d_pack_cap;   /* device: encoded frames packed end to end */
    unsigned char *h_src; size_t h_src_cap;     /* pinned: encoder input, or decoder output, in pageable memory */
    unsigned char *d_a; size_t d_a_cap;         /* device: compressed (decode) / input (encode) */
    unsigned char *d_b; size_t d_b_cap;         /* device: decoded (decode) / compressed (encode) */
    unsigned char *d_temp; size_t d_temp_cap;
    unsigned char *h_meta; size_t meta_cap;     /* per-frame tables, pinned */
    unsigned char *d_meta; size_t d_meta_cap;   /* and on the device */
    int pending;                                /* made ahead: the device is set up at the first call */
    int strict;                                 /* --codec gpu: a device that did not start is an error */
    char why[400];                              /* gs_zcodec.stopped's text */
} gs_gzc;

#define GS_GZC_STOPPED (-1) /* gzc_wait: the deadline passed (no gs_status code is negative) */

/* Wait for the work queued on the codec's stream (gs_gpu_zwatch). GS_OK when done; GS_GZC_STOPPED
 * (codec stopped, device abandoned) when the deadline passed; a CUDA error as a gs_status code. */
static int gzc_wait(gs_gzc *z, size_t bytes, const char *what, gs_status *st)
{
    double limit = 0;
    cudaError_t e = gs_gpu_zwatch(z->s, NULL, bytes, &limit);
    if (e == cudaSuccess) return GS_OK;
    if (e != cudaErrorNotReady) return gs_gzc_cuda_fail(st, e, what, z->dev);
    snprintf(z->why, sizeof z->why, "gpu %d: the GPU zstd %s did not finish within %.1f s; " GS_GPU_NO_LONGER_USED,
             z->dev, what, limit);
    z->base.stopped = z->why;
    return GS_GZC_STOPPED;
}

/* The other codec of the run (reader and writer have one each) gave up on the device: this one
 * stops too, before any CUDA call. */
static void gzc_abandon_too(gs_gzc *z)
{
    snprintf(z->why, sizeof z->why, "gpu %d: the other GPU zstd codec timed out; " GS_GPU_NO_LONGER_USED, z->dev);
    z->base.stopped = z->why;
}

/* Grow a device (pinned = 0) or pinned host (pinned = 1) buffer to at least need bytes. */
static int gzc_grow(gs_gzc *z, unsigned char **p, size_t *cap, size_t need, int pinned, gs_status *st)
{
    if (*cap >= need) return GS_OK;
    size_t n = need + need / 4;
    if (*p) GZC_CU(pinned ? cudaFreeHost(*p) : cudaFree(*p), "free");
    *p = NULL;
    *cap = 0;
    GZC_CU(pinned ? cudaMallocHost((void **)p, n) : cudaMalloc((void **)p, n), pinned ? "cudaMallocHost" : "cudaMalloc");
    *cap = n;
    return GS_OK;
}

/* Per-frame tables for n frames: pointers and sizes (8 bytes each) and statuses. */
static int gzc_meta(gs_gzc *z, size_t n, gs_status *st)
{
    size_t need = n * 7 * sizeof(size_t) + 64; /* the layouts in gzc_decode and gzc_encode */
    int rc = gzc_grow(z, &z->h_meta, &z->meta_cap, need, 1, st);
    return rc ? rc : gzc_grow(z, &z->d_meta, &z->d_meta_cap, need, 0, st);
}

/* Pack frames into the pinned staging buffer, a range of frames per pool part. */
typedef struct gzc_pack_job {
    unsigned char *dst;
    const unsigned char *const *src;
    const size_t *len, *off;
    size_t n;
} gzc_pack_job;

static void gzc_pack_part(void *ctx, size_t part, size_t nparts)
{
    const gzc_pack_job *j = (const gzc_pack_job *)ctx;
    size_t b, e;
    gs_split(j->n, nparts, part, &b, &e);
    for (size_t i = b; i < e; i++) memcpy(j->dst + j->off[i], j->src[i], j->len[i]);
}

/* A codec made ahead (gs_gpu_zcodec_create_ahead) meets the process's CUDA start-up at its first
 * call and makes its stream; if the device did not start, the codec stops (libzstd does its
 * work). 1 when the codec may run. */
static int gzc_ready(gs_gzc *z)
{
    if (z->pending) {
        char why[256];
        cudaError_t e = cudaSuccess;
        z->pending = 0;
        if (!gs_gpu_init_wait(z->dev, why, sizeof why, NULL) || (e = cudaSetDevice(z->dev)) != cudaSuccess ||
            (e = cudaStreamCreateWithFlags(&z->s, cudaStreamNonBlocking)) != cudaSuccess) {
            if (e != cudaSuccess) snprintf(why, sizeof why, "%s", cudaGetErrorString(e));
            (void)cudaGetLastError();
            z->s = NULL;
            if (z->strict) {
                snprintf(z->why, sizeof z->why, "--codec gpu: %s", why);
                return 0;
            }
            snprintf(z->why, sizeof z->why, "--codec auto: the GPU zstd codec did not start (%s); libzstd instead", why);
            z->base.stopped = z->why;
        }
    }
    return z->base.stopped == NULL && z->s; /* no stream: a strict codec whose device did not start */
}

static int gzc_decode(gs_zcodec *c, size_t n, const unsigned char *const *src, const size_t *csize, const size_t *dsize,
                      unsigned char *dst, const size_t *doff, unsigned char *ok, gs_status *st)
{
    gs_gzc *z = (gs_gzc *)c;
    if (gs_gpu_abandoned()) {
        gzc_abandon_too(z);
        memset(ok, 0, n);
        return GS_OK;
    }
    if (!gzc_ready(z)) {
        if (!z->base.stopped) return gs_fail(st, GS_EDATA, "%s", z->why); /* strict */
        memset(ok, 0, n);
        return GS_OK;
    }
    GZC_CU(cudaSetDevice(z->dev), "cudaSetDevice");
    size_t ctot = 0, dtot = 0, dmax = 0;
    int contiguous = 1; /* decoded frames land at doff: one copy back */
    for (size_t i = 0; i < n; i++) {
        if (dtot != doff[i] - doff[0]) contiguous = 0;
        ctot += gs_gzc_al(csize[i], z->din_align);
        dtot += gs_gzc_al(dsize[i], z->dout_align);
        if (dsize[i] > dmax) dmax = dsize[i];
    }
    size_t temp = 0;
    GZC_NV(gs_nvc.dtemp(n, dmax, nvcompBatchedZstdDecompressDefaultOpts, &temp, dtot, z->s), "DecompressGetTempSize");
    int rc;
    if ((rc = gzc_grow(z, &z->h_stage, &z->h_stage_cap, ctot, 1, st)) || (rc = gzc_grow(z, &z->d_a, &z->d_a_cap, ctot, 0, st)) ||
        (rc = gzc_grow(z, &z->d_b, &z->d_b_cap, dtot, 0, st)) ||
        (rc = gzc_grow(z, &z->d_temp, &z->d_temp_cap, temp ? temp : 1, 0, st)) || (rc = gzc_meta(z, n, st)))
        return rc;
    /* tables: in ptrs, in sizes, out buffer sizes, out ptrs (uploaded); actual sizes, statuses
     * (downloaded); staging offsets (host only) */
    const void **in_p = (const void **)z->h_meta;
    size_t *in_sz = (size_t *)(in_p + n), *out_sz = in_sz + n, *act = out_sz + n + n;
    void **out_p = (void **)(out_sz + n);
    nvcompStatus_t *stat = (nvcompStatus_t *)(act + n);
    size_t *soff = act + 2 * n; /* after the statuses (n x 4 bytes) */
    size_t up = 4 * n * sizeof(size_t);
    size_t co = 0, dof = 0;
    for (size_t i = 0; i < n; i++) {
        soff[i] = co;
        in_p[i] = z->d_a + co;
        in_sz[i] = csize[i];
        out_sz[i] = dsize[i];
        out_p[i] = z->d_b + dof;
        co += gs_gzc_al(csize[i], z->din_align);
        dof += gs_gzc_al(dsize[i], z->dout_align);
    }
    gzc_pack_job pj = {z->h_stage, src, csize, soff, n};
    size_t parts = (size_t)gs_pool_threads();
    gs_parallel_for(parts < n ? parts : n, gzc_pack_part, &pj);
    const char *dm = (const char *)z->d_meta;
    GZC_CU(cudaMemcpyAsync(z->d_a, z->h_stage, co, cudaMemcpyHostToDevice, z->s), "H2D frames");
    GZC_CU(cudaMemcpyAsync(z->d_meta, z->h_meta, up, cudaMemcpyHostToDevice, z->s), "H2D table");
    GZC_NV(gs_nvc.dec((const void *const *)dm, (const size_t *)(dm + n * sizeof(size_t)),
                      (const size_t *)(dm + 2 * n * sizeof(size_t)), (size_t *)(dm + 4 * n * sizeof(size_t)), n,
                      z->d_temp, temp, (void *const *)(dm + 3 * n * sizeof(size_t)),
                      nvcompBatchedZstdDecompressDefaultOpts, (nvcompStatus_t *)(dm + 5 * n * sizeof(size_t)), z->s),
           "DecompressAsync");
    GZC_CU(cudaMemcpyAsync(act, dm + up, n * (sizeof(size_t) + sizeof(nvcompStatus_t)), cudaMemcpyDeviceToHost, z->s),
           "D2H statuses");
    if ((rc = gzc_wait(z, co + dof, "decoder", st))) {
        if (rc != GS_GZC_STOPPED) return rc;
        memset(ok, 0, n); /* stopped: libzstd decodes the batch */
        return GS_OK;
    }
    /* Decoded bytes come back into dst when it is pinned, else into pinned memory first and then
     * by the pool into dst (with the device layout: frame i at out_p[i] - d_b). */
    cudaPointerAttributes pa;
    int pinned = cudaPointerGetAttributes(&pa, dst) == cudaSuccess && pa.type == cudaMemoryTypeHost;
    (void)cudaGetLastError();
    if (!pinned && (rc = gzc_grow(z, &z->h_src, &z->h_src_cap, dof, 1, st))) return rc;
    if (!pinned) {
        GZC_CU(cudaMemcpyAsync(z->h_src, z->d_b, dof, cudaMemcpyDeviceToHost, z->s), "D2H decoded");
    } else if (contiguous) {
        GZC_CU(cudaMemcpyAsync(dst + doff[0], z->d_b, doff[n - 1] - doff[0] + dsize[n - 1], cudaMemcpyDeviceToHost, z->s),
               "D2H decoded");
    } else {
        for (size_t i = 0; i < n; i++)
            GZC_CU(cudaMemcpyAsync(dst + doff[i], out_p[i], dsize[i], cudaMemcpyDeviceToHost, z->s), "D2H decoded");
    }
    if ((rc = gzc_wait(z, dof, "decoder's copy back", st)))
        return rc == GS_GZC_STOPPED ? gs_fail(st, GS_EDATA, "%s", z->why) : rc;
    if (!pinned) { /* frame i from its place in the device layout to doff[i] */
        const unsigned char **from = (const unsigned char **)malloc(n * sizeof *from);
        if (!from) return gs_fail(st, GS_ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) from[i] = z->h_src + ((unsigned char *)out_p[i] - z->d_b);
        gzc_pack_job uj = {dst, from, dsize, doff, n};
        gs_parallel_for(parts < n ? parts : n, gzc_pack_part, &uj);
        free(from);
    }
    for (size_t i = 0; i < n; i++) ok[i] = stat[i] == nvcompSuccess && act[i] == dsize[i];
    return GS_OK;
}

static int gzc_encode(gs_zcodec *c, const unsigned char *src, size_t len, size_t frame, const unsigned char **out,
                      size_t *off, size_t *clen, gs_status *st)
{
    gs_gzc *z = (gs_gzc *)c;
    if (gs_gpu_abandoned()) {
        gzc_abandon_too(z);
        return gs_fail(st, GS_EDATA, "%s", z->why);
    }
    if (!gzc_ready(z)) { /* never started: libzstd compresses the batch (strict: an error) */
        if (!z->base.stopped) return gs_fail(st, GS_EDATA, "%s", z->why);
        *out = NULL;
        return GS_OK;
    }
    GZC_CU(cudaSetDevice(z->dev), "cudaSetDevice");
    size_t n = (len + frame - 1) / frame, cmax = 0, temp = 0;
    GZC_NV(gs_nvc.cmax(frame, nvcompBatchedZstdCompressDefaultOpts, &cmax), "CompressGetMaxOutputChunkSize");
    GZC_NV(gs_nvc.ctemp(n, frame, nvcompBatchedZstdCompressDefaultOpts, &temp, len, z->s), "CompressGetTempSize");
    size_t dstride = gs_gzc_al(cmax, z->cout_align);
    int rc;
    if ((rc = gzc_grow(z, &z->d_a, &z->d_a_cap, gs_gzc_al(len, z->cin_align), 0, st)) ||
        (rc = gzc_grow(z, &z->d_b, &z->d_b_cap, n * dstride, 0, st)) ||
        (rc = gzc_grow(z, &z->d_temp, &z->d_temp_cap, temp ? temp : 1, 0, st)) || (rc = gzc_meta(z, n, st)))
        return rc;
    /* tables: in ptrs, in sizes, out ptrs (uploaded); out sizes, statuses (downloaded); packed
     * offsets (uploaded after) */
    const void **in_p = (const void **)z->h_meta;
    size_t *in_sz = (size_t *)(in_p + n), *out_sz = in_sz + 2 * n, *poff = in_sz + 4 * n; /* poff after the statuses */
    void **out_p = (void **)(in_sz + n);
    nvcompStatus_t *stat = (nvcompStatus_t *)(out_sz + n);
    for (size_t f = 0; f < n; f++) {
        in_p[f] = z->d_a + f * frame;
        in_sz[f] = len - f * frame < frame ? len - f * frame : frame;
        out_p[f] = z->d_b + f * dstride;
    }
    const char *dm = (const char *)z->d_meta;
    size_t up = 3 * n * sizeof(size_t);
    /* Pageable input is copied by the pool into pinned memory first: a pinned copy runs at the
     * link's speed, a pageable one at a fraction of it. */
    cudaPointerAttributes pa;
    if (cudaPointerGetAttributes(&pa, src) != cudaSuccess || pa.type != cudaMemoryTypeHost) {
        (void)cudaGetLastError();
        if ((rc = gzc_grow(z, &z->h_src, &z->h_src_cap, len, 1, st))) return rc;
        size_t piece = (size_t)4 << 20, np = (len + piece - 1) / piece;
        const unsigned char **ps = (const unsigned char **)malloc(np * (sizeof *ps + 2 * sizeof(size_t)));
        if (!ps) return gs_fail(st, GS_ENOMEM, "out of memory");
        size_t *pl = (size_t *)(ps + np), *po = pl + np;
        for (size_t i = 0; i < np; i++) {
            ps[i] = src + i * piece;
            po[i] = i * piece;
            pl[i] = len - po[i] < piece ? len - po[i] : piece;
        }
        gzc_pack_job pj = {z->h_src, ps, pl, po, np};
        size_t parts = (size_t)gs_pool_threads();
        gs_parallel_for(parts < np ? parts : np, gzc_pack_part, &pj);
        free(ps);
        src = z->h_src;
    }
    GZC_CU(cudaMemcpyAsync(z->d_a, src, len, cudaMemcpyHostToDevice, z->s), "H2D input");
    GZC_CU(cudaMemcpyAsync(z->d_meta, z->h_meta, up, cudaMemcpyHostToDevice, z->s), "H2D table");
    GZC_NV(gs_nvc.enc((const void *const *)dm, (const size_t *)(dm + n * sizeof(size_t)), frame, n, z->d_temp, temp,
                      (void *const *)(dm + 2 * n * sizeof(size_t)), (size_t *)(dm + up),
                      nvcompBatchedZstdCompressDefaultOpts, (nvcompStatus_t *)(dm + up + n * sizeof(size_t)), z->s),
           "CompressAsync");
    GZC_CU(cudaMemcpyAsync(out_sz, dm + up, n * (sizeof(size_t) + sizeof(nvcompStatus_t)), cudaMemcpyDeviceToHost, z->s),
           "D2H sizes");
    if ((rc = gzc_wait(z, len + n * dstride, "encoder", st)))
        return rc == GS_GZC_STOPPED ? gs_fail(st, GS_EDATA, "%s", z->why) : rc;
    size_t total = 0;
    for (size_t f = 0; f < n; f++) {
        if (stat[f] != nvcompSuccess) return gs_gzc_nvc_fail(st, stat[f], "compressing a frame", z->dev);
        if (out_sz[f] > dstride)
            return gs_fail(st, GS_EDATA, "gpu %d: zstd codec: a compressed frame of %zu bytes exceeds its bound", z->dev,
                           out_sz[f]);
        poff[f] = off[f] = total;
        clen[f] = out_sz[f];
        total += out_sz[f];
    }
    if ((rc = gzc_grow(z, &z->d_pack, &z->d_pack_cap, total, 0, st)) ||
        (rc = gzc_grow(z, &z->h_stage, &z->h_stage_cap, total, 1, st)))
        return rc;
    GZC_CU(cudaMemcpyAsync((char *)z->d_meta + 5 * n * sizeof(size_t), poff, n * sizeof(size_t), cudaMemcpyHostToDevice,
                           z->s),
           "H2D offsets");
    GZC_CU(gs_gzc_gather((const unsigned char *const *)(dm + 2 * n * sizeof(size_t)), (const size_t *)(dm + up),
                         (const size_t *)(dm + 5 * n * sizeof(size_t)), z->d_pack, n, z->s),
           "gather kernel");
    GZC_CU(cudaMemcpyAsync(z->h_stage, z->d_pack, total, cudaMemcpyDeviceToHost, z->s), "D2H frames");
    if ((rc = gzc_wait(z, 2 * total, "encoder's copy back", st)))
        return rc == GS_GZC_STOPPED ? gs_fail(st, GS_EDATA, "%s", z->why) : rc;
    *out = z->h_stage;
    return GS_OK;
}

static size_t gzc_bound(gs_zcodec *c, size_t frame)
{
    (void)c;
    size_t m = 0;
    if (gs_nvc.cmax(frame, nvcompBatchedZstdCompressDefaultOpts, &m) != nvcompSuccess) return 0;
    return m;
}

extern "C" void gs_gpu_zcodec_destroy(gs_zcodec *c)
{
    gs_gzc *z = (gs_gzc *)c;
    if (!z) return;
    if (gs_gpu_abandoned()) { /* the device may still run a hung kernel: leave everything to the process's end */
        free(z);
        return;
    }
    if (!z->s) { /* made ahead and never used, or never started: nothing on the device */
        free(z);
        return;
    }
    if (cudaSetDevice(z->dev) == cudaSuccess) {
        if (z->s) cudaStreamSynchronize(z->s);
        cudaFreeHost(z->h_stage);
        cudaFreeHost(z->h_meta);
        cudaFree(z->d_pack);
        cudaFreeHost(z->h_src);
        cudaFree(z->d_a);
        cudaFree(z->d_b);
        cudaFree(z->d_temp);
        cudaFree(z->d_meta);
        if (z->s) cudaStreamDestroy(z->s);
    }
    (void)cudaGetLastError();
    free(z);
}

/* A codec with the host-side fields set: functions, limits and nvCOMP's alignments (host queries).
 * NULL with st set when nvCOMP cannot be loaded or queried. */
static gs_gzc *gzc_new(int device, gs_status *st)
{
    if (!gs_nvc_ready()) {
        gs_fail(st, GS_EDATA, "--codec gpu: %s", gs_nvc.why);
        return NULL;
    }
    nvcompAlignmentRequirements_t da, ca;
    if (gs_nvc.dalign(nvcompBatchedZstdDecompressDefaultOpts, &da) != nvcompSuccess ||
        gs_nvc.calign(nvcompBatchedZstdCompressDefaultOpts, &ca) != nvcompSuccess) {
        gs_fail(st, GS_EDATA, "gpu %d: zstd codec: nvCOMP alignment query failed", device);
        return NULL;
    }
    gs_gzc *z = (gs_gzc *)calloc(1, sizeof *z);
    if (!z) {
        gs_fail(st, GS_ENOMEM, "out of memory");
        return NULL;
    }
    z->dev = device;
    z->base.decode = gzc_decode;
    z->base.encode = gzc_encode;
    z->base.bound = gzc_bound;
    z->base.frame_max = GS_NVC_FRAME_MAX;
    z->base.name = "gpu";
    z->din_align = da.input > 8 ? da.input : 8;
    z->dout_align = da.output > 8 ? da.output : 8;
    z->cin_align = ca.input > 8 ? ca.input : 8;
    z->cout_align = ca.output > 8 ? ca.output : 8;
    z->base.frame_align = z->cin_align;
    return z;
}

extern "C" int gs_gpu_zcodec_create(gs_zcodec **out, int device, gs_status *st)
{
    *out = NULL;
    char why[512];
    gs_gzc *z = gzc_new(device, st);
    if (!z) return st->code;
    if (!gs_gpu_available(device, why, sizeof why)) {
        free(z);
        return gs_fail(st, GS_EDATA, "--codec gpu: %s", why);
    }
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&z->s, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        int rc = gs_gzc_cuda_fail(st, e, "stream", device);
        gs_gpu_zcodec_destroy(&z->base);
        return rc;
    }
    *out = &z->base;
    return GS_OK;
}

extern "C" int gs_gpu_zcodec_create_ahead(gs_zcodec **out, int device, int strict, gs_status *st)
{
    *out = NULL;
    gs_gzc *z = gzc_new(device, st);
    if (!z) return st->code;
    z->pending = 1;
    z->strict = strict;
    gs_gpu_init_start(device);
    *out = &z->base;
    return GS_OK;
}

#endif /* GS_HAVE_NVCOMP */
