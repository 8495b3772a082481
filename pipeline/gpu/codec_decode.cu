/* codec_decode.cu - zstd frames decoded into the GPU backend's input buffers (gs_gzdec,
 * gpu_internal.cuh): nvCOMP's batched decoder writes each frame where the kernels read it, then
 * gzx_check takes every frame's status, decoded size and XXH64 against what the host read from its
 * header, in place; nothing is copied back. Library code: returns gs_status, never prints. */
#ifdef GS_HAVE_NVCOMP
#include <cuda_runtime.h>
#include <stdlib.h>

#include "codec.cuh"
#include "codec_xxh64.cuh"

/* Frame f is good when nvCOMP says so, with exactly dsize[f] bytes whose XXH64 (RFC 8878 keeps
 * the low 32 bits) is xxh[f]. Four threads a frame (every frame starts at a multiple of 8). */
__global__ void gzx_check(const unsigned char *const *out_p, const size_t *dsize, const size_t *act,
                          const nvcompStatus_t *stat, const uint32_t *xxh, size_t n, unsigned *bad)
{
    const size_t f = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 2;
    const int live = f < n;
    const size_t len = live ? dsize[f] : 0;
    const uint64_t h = gzx_xxh64(live ? out_p[f] : NULL, len);
    if (!live || (threadIdx.x & 3u)) return;
    if (stat[f] != nvcompSuccess || act[f] != len || (uint32_t)h != xxh[f]) atomicCAS(bad, 0u, (unsigned)(f + 1));
}

/* One table set: in ptrs, in sizes, out sizes, out ptrs (uploaded), actual sizes, statuses
 * (written by nvCOMP), checksums (uploaded): GZX_TAB_WORDS size_t words a frame. */
#define GZX_TAB_WORDS 7
struct gs_gzdec {
    int dev, slots;
    size_t max_frames, frame_max, in_align, out_align;
    size_t temp_bytes;      /* a slot's temp area, at the temp alignment apart */
    unsigned char *d_temp;  /* slots of them */
    unsigned char *h_tab, *d_tab; /* slots x max_frames x GZX_TAB_WORDS words, pinned / device */
};

size_t gs_gzdec_in_align(const gs_gzdec *d) { return d->in_align; }
size_t gs_gzdec_out_align(const gs_gzdec *d) { return d->out_align; }
uint64_t gs_gzdec_dev_bytes(const gs_gzdec *d)
{
    return (uint64_t)d->slots * (d->temp_bytes + d->max_frames * GZX_TAB_WORDS * sizeof(size_t));
}

void gs_gzdec_destroy(gs_gzdec *d)
{
    if (!d) return;
    if (!gs_gpu_abandoned() && cudaSetDevice(d->dev) == cudaSuccess) {
        cudaFree(d->d_temp);
        cudaFree(d->d_tab);
        cudaFreeHost(d->h_tab);
        (void)cudaGetLastError();
    }
    free(d);
}

int gs_gzdec_create(gs_gzdec **out, int dev, int slots, size_t max_frames, size_t frame_max, size_t max_bytes,
                    gs_status *st)
{
    *out = NULL;
    if (!gs_nvc_ready()) return gs_fail(st, GS_EDATA, "zstd frames on the GPU: %s", gs_nvc.why);
    nvcompAlignmentRequirements_t da;
    if (gs_nvc.dalign(nvcompBatchedZstdDecompressDefaultOpts, &da) != nvcompSuccess)
        return gs_fail(st, GS_EDATA, "gpu %d: zstd frames: nvCOMP alignment query failed", dev);
    gs_gzdec *d = (gs_gzdec *)calloc(1, sizeof *d);
    if (!d) return gs_fail(st, GS_ENOMEM, "out of memory");
    d->dev = dev;
    d->slots = slots;
    d->max_frames = max_frames;
    d->frame_max = frame_max;
    d->in_align = da.input > 8 ? da.input : 8;
    d->out_align = da.output > 8 ? da.output : 8;
    const size_t tab = (size_t)slots * max_frames * GZX_TAB_WORDS * sizeof(size_t);
    cudaError_t e = cudaSetDevice(dev);
    nvcompStatus_t ns = gs_nvc.dtemp(max_frames, frame_max, nvcompBatchedZstdDecompressDefaultOpts, &d->temp_bytes,
                                     max_bytes, 0);
    const size_t ta = da.temp > 256 ? da.temp : 256;
    d->temp_bytes = gs_gzc_al(d->temp_bytes ? d->temp_bytes : 1, ta);
    if (e == cudaSuccess && ns == nvcompSuccess) e = cudaMalloc((void **)&d->d_temp, (size_t)slots * d->temp_bytes);
    if (e == cudaSuccess && ns == nvcompSuccess) e = cudaMalloc((void **)&d->d_tab, tab);
    if (e == cudaSuccess && ns == nvcompSuccess) e = cudaMallocHost((void **)&d->h_tab, tab);
    /* The check is launched behind nvCOMP's decoder, which may never end on corrupt input (the
     * watchdog then gives the device up). Under CUDA's lazy loading, a kernel's first launch loads
     * its module and may wait for the work already on the device: the programming guide's remedy
     * for kernels that must start beside other work is to load them ahead with
     * cudaFuncGetAttributes, done here once per decoder. */
    cudaFuncAttributes fa;
    if (e == cudaSuccess && ns == nvcompSuccess) e = cudaFuncGetAttributes(&fa, gzx_check);
    if (e != cudaSuccess || ns != nvcompSuccess) {
        int rc = e != cudaSuccess ? gs_gzc_cuda_fail(st, e, "frames' buffers", dev)
                                  : gs_gzc_nvc_fail(st, ns, "DecompressGetTempSize", dev);
        gs_gzdec_destroy(d);
        return rc;
    }
    *out = d;
    return GS_OK;
}

int gs_gzdec_queue(gs_gzdec *d, int slot, const gs_zfref *t, size_t n, const unsigned char *comp, unsigned char *out,
                   unsigned *bad, cudaStream_t s, gs_status *st)
{
    if (n == 0) return GS_OK;
    if (n > d->max_frames || slot < 0 || slot >= d->slots)
        return gs_fail(st, GS_EDATA, "gpu %d: zstd frames: %zu frames for a table of %zu", d->dev, n, d->max_frames);
    const size_t off = (size_t)slot * d->max_frames * GZX_TAB_WORDS * sizeof(size_t);
    size_t *h = (size_t *)(d->h_tab + off);
    const unsigned char *dt = d->d_tab + off;
    const void **in_p = (const void **)h;
    size_t *in_sz = h + n, *out_sz = h + 2 * n;
    void **out_p = (void **)(h + 3 * n);
    uint32_t *xxh = (uint32_t *)(h + 6 * n);
    for (size_t i = 0; i < n; i++) {
        if (t[i].dsize > d->frame_max || (t[i].at % d->out_align) || (t[i].off % d->in_align))
            return gs_fail(st, GS_EDATA, "gpu %d: zstd frames: frame %zu is not as the decoder takes it", d->dev, i);
        in_p[i] = comp + t[i].off;
        in_sz[i] = t[i].csize;
        out_sz[i] = t[i].dsize;
        out_p[i] = out + t[i].at;
        xxh[i] = t[i].xxh;
    }
    const size_t W = sizeof(size_t);
    cudaError_t e = cudaMemcpyAsync((void *)dt, h, 4 * n * W, cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync((void *)(dt + 6 * n * W), xxh, n * sizeof(uint32_t), cudaMemcpyHostToDevice, s);
    if (e != cudaSuccess) return gs_gzc_cuda_fail(st, e, "H2D frame table", d->dev);
    nvcompStatus_t ns =
        gs_nvc.dec((const void *const *)dt, (const size_t *)(dt + n * W), (const size_t *)(dt + 2 * n * W),
                   (size_t *)(dt + 4 * n * W), n, d->d_temp + (size_t)slot * d->temp_bytes, d->temp_bytes,
                   (void *const *)(dt + 3 * n * W), nvcompBatchedZstdDecompressDefaultOpts,
                   (nvcompStatus_t *)(dt + 5 * n * W), s);
    if (ns != nvcompSuccess) return gs_gzc_nvc_fail(st, ns, "DecompressAsync", d->dev);
    const unsigned blocks = (unsigned)((4 * n + GS_GZX_THREADS - 1) / GS_GZX_THREADS);
    gzx_check<<<blocks, GS_GZX_THREADS, 0, s>>>((const unsigned char *const *)(dt + 3 * n * W),
                                                (const size_t *)(dt + 2 * n * W), (const size_t *)(dt + 4 * n * W),
                                                (const nvcompStatus_t *)(dt + 5 * n * W),
                                                (const uint32_t *)(dt + 6 * n * W), n, bad);
    if ((e = cudaGetLastError()) != cudaSuccess) return gs_gzc_cuda_fail(st, e, "frame check kernel", d->dev);
    return GS_OK;
}

#endif /* GS_HAVE_NVCOMP */
