/* codec_encode.cu - the GPU backend's output encoded as zstd frames on the device (gs_gzenc,
 * gpu_internal.cuh): nvCOMP's batched encoder compresses the kernels' output buffer in frames of
 * `frame` bytes into per-frame slots of its worst case, gze_hash takes each frame's XXH64,
 * gze_offsets and the gather kernel pack the frames end to end, and the table (sizes, statuses,
 * offsets, checksums) goes back to pinned memory. The gather kernel also packs the host codec's
 * frames (gs_gzc_gather). Library code: returns gs_status, never prints. */
#ifdef GS_HAVE_NVCOMP
#include <cuda_runtime.h>
#include <stdlib.h>

#include "codec.cuh"
#include "codec_xxh64.cuh"

/* Encoded frames from their worst-case slots to consecutive offsets: one block per frame. */
__global__ void gzc_gather(const unsigned char *const *src, const size_t *len, const size_t *off, unsigned char *dst)
{
    const unsigned char *s = src[blockIdx.x];
    unsigned char *d = dst + off[blockIdx.x];
    for (size_t i = threadIdx.x, n = len[blockIdx.x]; i < n; i += blockDim.x) d[i] = s[i];
}

cudaError_t gs_gzc_gather(const unsigned char *const *src, const size_t *len, const size_t *off, unsigned char *dst,
                          size_t n, cudaStream_t s)
{
    gzc_gather<<<(unsigned)n, 256, 0, s>>>(src, len, off, dst);
    return cudaGetLastError();
}

#define GZE_TAB_WORDS 8 /* in ptr, in size, out ptr, out size, status, offset, gathered size, XXH64 */
#define GZE_SCAN_THREADS 1024

struct gs_gzenc {
    int dev, slots;
    size_t frame, max_frames, stride; /* stride: nvCOMP's worst case for a frame, at its output alignment */
    size_t temp_bytes;                /* a slot's temp area */
    unsigned char *d_temp, *d_frames, *d_pack; /* per slot: temp, max_frames x stride, max_frames x stride */
    unsigned char *d_tab, *h_tab;     /* per slot: max_frames x GZE_TAB_WORDS words, device / pinned */
    size_t *queued;                   /* per slot: the frames of its last queue (the table's layout) */
};

/* The bytes to encode: len, or where the length is a count on the device (a compaction's, known
 * to the host only later), count x esize, at most len. */
__device__ size_t gze_len(const volatile uint64_t *count, size_t esize, size_t len)
{
    if (!count) return len;
    const uint64_t c = *count;
    return c > len / esize ? len : (size_t)c * esize;
}

/* Frame f of the batch: frame bytes of src from f x frame (the last shorter), into its slot;
 * frames past the length (a count smaller than len allows) are given 8 bytes of src, encoded and
 * then left out (gze_offsets). */
__global__ void gze_setup(const unsigned char *src, size_t len, const volatile uint64_t *count, size_t esize,
                          size_t frame, unsigned char *slots, size_t stride, size_t n, const void **in_p,
                          size_t *in_sz, void **out_p)
{
    __shared__ size_t blen;
    if (threadIdx.x == 0) blen = gze_len(count, esize, len);
    __syncthreads();
    const size_t f = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (f >= n) return;
    const size_t at = f * frame;
    in_p[f] = src + (at < blen ? at : 0);
    in_sz[f] = at < blen ? (blen - at < frame ? blen - at : frame) : 8;
    out_p[f] = slots + f * stride;
}

/* The frames' XXH64 (low 32 bits: the zstd checksum), four threads a frame. */
__global__ void gze_hash(const void *const *in_p, const size_t *in_sz, size_t n, uint64_t *xxh)
{
    const size_t f = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 2;
    const int live = f < n;
    const uint64_t h = gzx_xxh64(live ? (const unsigned char *)in_p[f] : NULL, live ? in_sz[f] : 0);
    if (live && !(threadIdx.x & 3u)) xxh[f] = h & 0xffffffffu;
}

/* Where each frame goes when packed end to end (one block): the exclusive sum of the sizes of
 * good frames; a failed frame, or one past its slot, is gathered as 0 bytes (the host refuses the
 * batch on its status or size), and so is a frame past the length (gze_setup). */
__global__ void gze_offsets(const size_t *out_sz, const nvcompStatus_t *stat, size_t n, size_t stride,
                            const volatile uint64_t *count, size_t esize, size_t len, size_t frame, size_t *off,
                            size_t *glen)
{
    __shared__ size_t part[GZE_SCAN_THREADS];
    __shared__ size_t live;
    if (threadIdx.x == 0) live = (gze_len(count, esize, len) + frame - 1) / frame;
    __syncthreads();
    const size_t per = (n + GZE_SCAN_THREADS - 1) / GZE_SCAN_THREADS, b = threadIdx.x * per;
    const size_t e = b + per < n ? b + per : n;
    size_t sum = 0;
    for (size_t f = b; f < e; f++) sum += f < live && stat[f] == nvcompSuccess && out_sz[f] <= stride ? out_sz[f] : 0;
    part[threadIdx.x] = sum;
    __syncthreads();
    for (unsigned d = 1; d < GZE_SCAN_THREADS; d <<= 1) { /* inclusive scan of the parts */
        const size_t add = threadIdx.x >= d ? part[threadIdx.x - d] : 0;
        __syncthreads();
        part[threadIdx.x] += add;
        __syncthreads();
    }
    size_t at = part[threadIdx.x] - sum;
    for (size_t f = b; f < e; f++) {
        const size_t g = f < live && stat[f] == nvcompSuccess && out_sz[f] <= stride ? out_sz[f] : 0;
        off[f] = at;
        glen[f] = g;
        at += g;
    }
}

size_t gs_gzenc_max_frames(const gs_gzenc *e) { return e->max_frames; }
size_t gs_gzenc_bound(const gs_gzenc *e) { return e->max_frames * e->stride; }
uint64_t gs_gzenc_dev_bytes(const gs_gzenc *e)
{
    return (uint64_t)e->slots * (e->temp_bytes + 2 * e->max_frames * e->stride + e->max_frames * GZE_TAB_WORDS * 8);
}

void gs_gzenc_destroy(gs_gzenc *e)
{
    if (!e) return;
    if (!gs_gpu_abandoned() && cudaSetDevice(e->dev) == cudaSuccess) {
        cudaFree(e->d_temp);
        cudaFree(e->d_frames);
        cudaFree(e->d_pack);
        cudaFree(e->d_tab);
        cudaFreeHost(e->h_tab);
        (void)cudaGetLastError();
    }
    free(e->queued);
    free(e);
}

int gs_gzenc_create(gs_gzenc **out, int dev, int slots, size_t frame, size_t max_bytes, gs_status *st)
{
    *out = NULL;
    if (!gs_nvc_ready()) return gs_fail(st, GS_EDATA, "zstd frames from the GPU: %s", gs_nvc.why);
    nvcompAlignmentRequirements_t ca;
    if (gs_nvc.calign(nvcompBatchedZstdCompressDefaultOpts, &ca) != nvcompSuccess)
        return gs_fail(st, GS_EDATA, "gpu %d: zstd frames: nvCOMP alignment query failed", dev);
    const size_t in_align = ca.input > 8 ? ca.input : 8, out_align = ca.output > 8 ? ca.output : 8;
    if (!frame || frame > GS_NVC_FRAME_MAX || frame % in_align)
        return gs_fail(st, GS_EUSAGE, "zstd frames of %zu bytes: the GPU encoder takes at most %zu, a multiple of %zu",
                       frame, (size_t)GS_NVC_FRAME_MAX, in_align);
    gs_gzenc *e = (gs_gzenc *)calloc(1, sizeof *e);
    if (e && !(e->queued = (size_t *)calloc((size_t)slots, sizeof *e->queued))) {
        free(e);
        e = NULL;
    }
    if (!e) return gs_fail(st, GS_ENOMEM, "out of memory");
    e->dev = dev;
    e->slots = slots;
    e->frame = frame;
    e->max_frames = (max_bytes + frame - 1) / frame;
    if (!e->max_frames) e->max_frames = 1;
    size_t cmax = 0;
    cudaError_t ce = cudaSetDevice(dev);
    nvcompStatus_t ns = gs_nvc.cmax(frame, nvcompBatchedZstdCompressDefaultOpts, &cmax);
    if (ns == nvcompSuccess)
        ns = gs_nvc.ctemp(e->max_frames, frame, nvcompBatchedZstdCompressDefaultOpts, &e->temp_bytes,
                          e->max_frames * frame, 0); /* (frames past a count hold 8 bytes each: gze_setup) */
    e->stride = gs_gzc_al(cmax ? cmax : 1, out_align);
    const size_t ta = ca.temp > 256 ? ca.temp : 256;
    e->temp_bytes = gs_gzc_al(e->temp_bytes ? e->temp_bytes : 1, ta);
    const size_t tab = (size_t)slots * e->max_frames * GZE_TAB_WORDS * 8,
                 frames = (size_t)slots * e->max_frames * e->stride;
    if (ce == cudaSuccess && ns == nvcompSuccess) ce = cudaMalloc((void **)&e->d_temp, (size_t)slots * e->temp_bytes);
    if (ce == cudaSuccess && ns == nvcompSuccess) ce = cudaMalloc((void **)&e->d_frames, frames);
    if (ce == cudaSuccess && ns == nvcompSuccess) ce = cudaMalloc((void **)&e->d_pack, frames);
    if (ce == cudaSuccess && ns == nvcompSuccess) ce = cudaMalloc((void **)&e->d_tab, tab);
    if (ce == cudaSuccess && ns == nvcompSuccess) ce = cudaMallocHost((void **)&e->h_tab, tab);
    if (ce != cudaSuccess || ns != nvcompSuccess) {
        int rc = ce != cudaSuccess ? gs_gzc_cuda_fail(st, ce, "encoder's buffers", dev)
                                   : gs_gzc_nvc_fail(st, ns, "CompressGetTempSize", dev);
        gs_gzenc_destroy(e);
        return rc;
    }
    *out = e;
    return GS_OK;
}

int gs_gzenc_queue(gs_gzenc *e, int slot, const unsigned char *src, size_t len, const volatile uint64_t *count,
                   size_t esize, cudaStream_t s, gs_status *st)
{
    const size_t n = (len + e->frame - 1) / e->frame, W = 8;
    if (n == 0 || n > e->max_frames || slot < 0 || slot >= e->slots || (uintptr_t)src % 8 || (count && !esize))
        return gs_fail(st, GS_EDATA, "gpu %d: zstd frames: %zu bytes for an encoder of %zu frames", e->dev, len,
                       e->max_frames);
    unsigned char *t = e->d_tab + (size_t)slot * e->max_frames * GZE_TAB_WORDS * W;
    const void **in_p = (const void **)t;
    size_t *in_sz = (size_t *)(t + n * W), *out_sz = (size_t *)(t + 3 * n * W), *off = (size_t *)(t + 5 * n * W),
           *glen = (size_t *)(t + 6 * n * W);
    void **out_p = (void **)(t + 2 * n * W);
    nvcompStatus_t *stat = (nvcompStatus_t *)(t + 4 * n * W);
    uint64_t *xxh = (uint64_t *)(t + 7 * n * W);
    unsigned char *slots = e->d_frames + (size_t)slot * e->max_frames * e->stride;
    cudaError_t ce;
    e->queued[slot] = n;
    gze_setup<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(src, len, count, esize, e->frame, slots, e->stride, n, in_p,
                                                          in_sz, out_p);
    if ((ce = cudaGetLastError()) != cudaSuccess) return gs_gzc_cuda_fail(st, ce, "frame setup kernel", e->dev);
    nvcompStatus_t ns =
        gs_nvc.enc((const void *const *)in_p, in_sz, e->frame, n, e->d_temp + (size_t)slot * e->temp_bytes,
                   e->temp_bytes, (void *const *)out_p, out_sz, nvcompBatchedZstdCompressDefaultOpts, stat, s);
    if (ns != nvcompSuccess) return gs_gzc_nvc_fail(st, ns, "CompressAsync", e->dev);
    gze_hash<<<(unsigned)((4 * n + GS_GZX_THREADS - 1) / GS_GZX_THREADS), GS_GZX_THREADS, 0, s>>>(in_p, in_sz, n, xxh);
    if ((ce = cudaGetLastError()) != cudaSuccess) return gs_gzc_cuda_fail(st, ce, "checksum kernel", e->dev);
    gze_offsets<<<1, GZE_SCAN_THREADS, 0, s>>>(out_sz, stat, n, e->stride, count, esize, len, e->frame, off, glen);
    if ((ce = cudaGetLastError()) != cudaSuccess) return gs_gzc_cuda_fail(st, ce, "offsets kernel", e->dev);
    ce = gs_gzc_gather((const unsigned char *const *)out_p, glen, off,
                       e->d_pack + (size_t)slot * e->max_frames * e->stride, n, s);
    if (ce != cudaSuccess) return gs_gzc_cuda_fail(st, ce, "gather kernel", e->dev);
    /* sizes, statuses, offsets, gathered sizes and checksums back to the host */
    ce = cudaMemcpyAsync(e->h_tab + (size_t)slot * e->max_frames * GZE_TAB_WORDS * W, t + 3 * n * W, 5 * n * W,
                         cudaMemcpyDeviceToHost, s);
    return ce == cudaSuccess ? GS_OK : gs_gzc_cuda_fail(st, ce, "D2H frame table", e->dev);
}

int gs_gzenc_take(gs_gzenc *e, int slot, size_t len, gs_zfref *t, size_t *nframes, size_t *bytes, gs_status *st)
{
    const size_t q = e->queued[slot], n = (len + e->frame - 1) / e->frame; /* the table's layout; the live frames */
    if (n > q)
        return gs_fail(st, GS_EDATA, "gpu %d: zstd encoder: %zu bytes for %zu frames queued", e->dev, len, q);
    const size_t *h = (const size_t *)(e->h_tab + (size_t)slot * e->max_frames * GZE_TAB_WORDS * 8);
    const size_t *out_sz = h, *off = h + 2 * q, *glen = h + 3 * q;
    const nvcompStatus_t *stat = (const nvcompStatus_t *)(h + q);
    const uint64_t *xxh = (const uint64_t *)(h + 4 * q);
    size_t at = 0;
    for (size_t f = 0; f < n; f++) {
        if (stat[f] != nvcompSuccess) return gs_gzc_nvc_fail(st, stat[f], "compressing a frame", e->dev);
        if (out_sz[f] > e->stride || glen[f] != out_sz[f] || off[f] != at || !out_sz[f])
            return gs_fail(st, GS_EDATA, "gpu %d: zstd encoder: frame %zu of %zu bytes does not fit its slot", e->dev, f,
                           out_sz[f]);
        t[f].off = at;
        t[f].csize = out_sz[f];
        t[f].at = f * e->frame;
        t[f].dsize = len - f * e->frame < e->frame ? len - f * e->frame : e->frame;
        t[f].xxh = (uint32_t)xxh[f];
        at += out_sz[f];
    }
    *nframes = n;
    *bytes = at;
    return GS_OK;
}

int gs_gzenc_copy(gs_gzenc *e, int slot, void *dst, size_t bytes, cudaStream_t s, gs_status *st)
{
    cudaError_t ce = cudaMemcpyAsync(dst, e->d_pack + (size_t)slot * e->max_frames * e->stride, bytes,
                                     cudaMemcpyDeviceToHost, s);
    return ce == cudaSuccess ? GS_OK : gs_gzc_cuda_fail(st, ce, "D2H frames", e->dev);
}

#endif /* GS_HAVE_NVCOMP */
