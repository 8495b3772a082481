/* codec_bench.cu - bench --zstd's device half (bench.h): nvCOMP's rates from device memory to
 * device memory, its own frames and libzstd's decoded, each decode checked against the input on
 * the device. */
#ifdef GS_HAVE_NVCOMP
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.cuh"
#include "../bench.h"

/* Count the bytes where a and b differ (n bytes; both from cudaMalloc). */
__global__ void gzb_diff(const unsigned char *a, const unsigned char *b, size_t n, unsigned long long *bad)
{
    unsigned long long k = 0;
    const size_t w = n / 8, step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < w; i += step)
        k += ((const unsigned long long *)a)[i] != ((const unsigned long long *)b)[i];
    for (size_t i = w * 8 + blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += step) k += a[i] != b[i];
    if (k) atomicAdd(bad, k);
}

/* Everything one measurement holds on the device; freed by gzb_free. */
typedef struct gzb {
    int dev;
    cudaStream_t s;
    cudaEvent_t e0, e1;
    unsigned char *raw, *enc, *dec, *lz, *temp, *tab, *packed;
    unsigned long long *bad;
    size_t *h; /* the host's copy of the tables */
} gzb;

static void gzb_free(gzb *b)
{
    void *d[] = {b->raw, b->enc, b->dec, b->lz, b->temp, b->tab, b->packed, b->bad};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        if (d[i]) cudaFree(d[i]);
    if (b->e0) cudaEventDestroy(b->e0);
    if (b->e1) cudaEventDestroy(b->e1);
    if (b->s) cudaStreamDestroy(b->s);
    (void)cudaGetLastError();
    free(b->h);
}

static int gzb_cmp_float(const void *x, const void *y)
{
    float a = *(const float *)x, c = *(const float *)y;
    return (a > c) - (a < c);
}

/* Time reps calls of one batched call (after a warm-up) with events on b->s; the median in ms. */
template <typename Call>
static int gzb_time(gzb *b, int reps, Call call, const char *what, double *ms, gs_status *st)
{
    float *t = (float *)malloc(sizeof(float) * (size_t)reps);
    if (!t) return gs_fail(st, GS_ENOMEM, "out of memory");
    int rc = GS_OK;
    for (int r = -1; r < reps && !rc; r++) {
        cudaError_t e = cudaEventRecord(b->e0, b->s);
        nvcompStatus_t ns = e == cudaSuccess ? call() : nvcompSuccess;
        if (e == cudaSuccess && ns == nvcompSuccess) e = cudaEventRecord(b->e1, b->s);
        if (e == cudaSuccess && ns == nvcompSuccess) e = cudaEventSynchronize(b->e1);
        if (e == cudaSuccess && ns == nvcompSuccess && r >= 0) e = cudaEventElapsedTime(&t[r], b->e0, b->e1);
        if (ns != nvcompSuccess) rc = gs_gzc_nvc_fail(st, ns, what, b->dev);
        else if (e != cudaSuccess) rc = gs_gzc_cuda_fail(st, e, what, b->dev);
    }
    if (!rc) {
        qsort(t, (size_t)reps, sizeof *t, gzb_cmp_float);
        *ms = t[reps / 2]; /* as bench.c's median */
    }
    free(t);
    return rc;
}

/* After a decode into b->dec: every status success, every size exact, and the bytes equal the
 * raw input. ok = 1 if so, else 0 with why. */
static int gzb_check(gzb *b, size_t n, size_t len, const size_t *want, const nvcompStatus_t *d_stat,
                     const size_t *d_act, int *ok, char *why, size_t whylen, gs_status *st)
{
    nvcompStatus_t *stat = (nvcompStatus_t *)malloc(n * (sizeof *stat + sizeof(size_t)) + sizeof(size_t));
    if (!stat) return gs_fail(st, GS_ENOMEM, "out of memory");
    size_t *act = (size_t *)(stat + n + (n & 1)); /* 8-byte aligned after n 4-byte statuses */
    unsigned long long bad = 0;
    int rc = GS_OK;
    cudaError_t e = cudaMemcpy(stat, d_stat, n * sizeof *stat, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess) e = cudaMemcpy(act, d_act, n * sizeof *act, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess) e = cudaMemset(b->bad, 0, sizeof *b->bad);
    if (e == cudaSuccess) {
        gzb_diff<<<1024, 256, 0, b->s>>>(b->raw, b->dec, len, b->bad);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaMemcpyAsync(&bad, b->bad, sizeof bad, cudaMemcpyDeviceToHost, b->s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(b->s);
    if (e != cudaSuccess) rc = gs_gzc_cuda_fail(st, e, "checking the decoded bytes", b->dev);
    *ok = !rc;
    for (size_t f = 0; f < n && *ok; f++)
        if (stat[f] != nvcompSuccess || act[f] != want[f]) {
            snprintf(why, whylen, "frame %zu: nvCOMP status %d, %zu bytes of %zu", f, (int)stat[f], act[f], want[f]);
            *ok = 0;
        }
    if (*ok && bad) {
        snprintf(why, whylen, "%llu decoded bytes differ from the input", bad);
        *ok = 0;
    }
    free(stat);
    return rc;
}

/* (z: GZC_CU and GZC_NV name the device by z->dev) */
static int gzb_run(gzb *z, const unsigned char *raw, size_t len, size_t frame, const unsigned char *lz,
                   const size_t *lz_off, const size_t *lz_clen, int reps, gs_bench_gpu_zstd_out *r, gs_status *st)
{
    nvcompAlignmentRequirements_t da, ca;
    GZC_NV(gs_nvc.dalign(nvcompBatchedZstdDecompressDefaultOpts, &da), "DecompressGetRequiredAlignments");
    GZC_NV(gs_nvc.calign(nvcompBatchedZstdCompressDefaultOpts, &ca), "CompressGetRequiredAlignments");
    if (frame % (ca.input > da.output ? ca.input : da.output))
        return gs_fail(st, GS_EUSAGE, "bench --zstd: nvCOMP takes frames of a multiple of %zu bytes",
                       ca.input > da.output ? ca.input : da.output);
    const size_t n = (len + frame - 1) / frame;
    size_t cmax = 0, ctemp = 0, dtemp = 0;
    GZC_NV(gs_nvc.cmax(frame, nvcompBatchedZstdCompressDefaultOpts, &cmax), "CompressGetMaxOutputChunkSize");
    GZC_NV(gs_nvc.ctemp(n, frame, nvcompBatchedZstdCompressDefaultOpts, &ctemp, len, z->s), "CompressGetTempSize");
    GZC_NV(gs_nvc.dtemp(n, frame, nvcompBatchedZstdDecompressDefaultOpts, &dtemp, len, z->s), "DecompressGetTempSize");
    const size_t stride = gs_gzc_al(cmax, ca.output > da.input ? ca.output : da.input);
    size_t lz_tot = 0;
    for (size_t f = 0; f < n; f++) lz_tot += gs_gzc_al(lz_clen[f], da.input);
    /* tables, 8 bytes an entry: raw ptrs, raw sizes, enc ptrs, enc sizes, lz ptrs, lz sizes, dec ptrs,
     * actual sizes, statuses */
    const size_t tab = 9 * n * sizeof(size_t);
    GZC_CU(cudaMalloc((void **)&z->raw, gs_gzc_al(len, 8)), "cudaMalloc");
    GZC_CU(cudaMalloc((void **)&z->dec, gs_gzc_al(len, 8)), "cudaMalloc");
    GZC_CU(cudaMalloc((void **)&z->enc, n * stride), "cudaMalloc");
    GZC_CU(cudaMalloc((void **)&z->lz, lz_tot ? lz_tot : 1), "cudaMalloc");
    GZC_CU(cudaMalloc((void **)&z->temp, (ctemp > dtemp ? ctemp : dtemp) + 1), "cudaMalloc");
    GZC_CU(cudaMalloc((void **)&z->tab, tab), "cudaMalloc");
    GZC_CU(cudaMalloc((void **)&z->bad, sizeof *z->bad), "cudaMalloc");
    size_t *h = z->h = (size_t *)malloc(tab);
    if (!h) return gs_fail(st, GS_ENOMEM, "out of memory");
    const size_t *d = (const size_t *)z->tab;
    size_t *want = h + n, lo = 0;
    for (size_t f = 0; f < n; f++) {
        h[f] = (size_t)(z->raw + f * frame);
        want[f] = len - f * frame < frame ? len - f * frame : frame;
        h[2 * n + f] = (size_t)(z->enc + f * stride);
        h[4 * n + f] = (size_t)(z->lz + lo);
        h[5 * n + f] = lz_clen[f];
        h[6 * n + f] = (size_t)(z->dec + f * frame);
        lo += gs_gzc_al(lz_clen[f], da.input);
    }
    int rc = GS_OK;
    cudaError_t e = cudaMemcpy(z->tab, h, tab, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaMemcpy(z->raw, raw, len, cudaMemcpyHostToDevice);
    for (size_t f = 0; f < n && e == cudaSuccess; f++)
        e = cudaMemcpy((void *)h[4 * n + f], lz + lz_off[f], lz_clen[f], cudaMemcpyHostToDevice);
    GZC_CU(e, "uploading the input");
    void *const *raw_p = (void *const *)d, *const *enc_p = (void *const *)(d + 2 * n), *const *lz_p = (void *const *)(d + 4 * n),
                *const *dec_p = (void *const *)(d + 6 * n);
    const size_t *raw_sz = d + n, *lz_sz = d + 5 * n;
    size_t *enc_sz = (size_t *)(d + 3 * n), *act = (size_t *)(d + 7 * n);
    nvcompStatus_t *stat = (nvcompStatus_t *)(d + 8 * n);
    const size_t temp = ctemp > dtemp ? ctemp : dtemp;
    rc = gzb_time(z, reps, [&] {
        return gs_nvc.enc((const void *const *)raw_p, raw_sz, frame, n, z->temp, temp, enc_p, enc_sz,
                          nvcompBatchedZstdCompressDefaultOpts, stat, z->s);
    }, "CompressAsync", &r->enc_ms, st);
    if (rc) return rc;
    /* nvCOMP's frames, packed end to end, to the host for the ratio and libzstd's check */
    r->clen = (size_t *)malloc(n * 2 * sizeof(size_t));
    nvcompStatus_t *hs = (nvcompStatus_t *)malloc(n * sizeof *hs);
    if (!r->clen || !hs) {
        free(hs);
        return gs_fail(st, GS_ENOMEM, "out of memory");
    }
    r->off = r->clen + n;
    e = cudaMemcpy(r->clen, enc_sz, n * sizeof(size_t), cudaMemcpyDeviceToHost);
    if (e == cudaSuccess) e = cudaMemcpy(hs, stat, n * sizeof *hs, cudaMemcpyDeviceToHost);
    for (size_t f = 0; f < n && e == cudaSuccess && !rc; f++) {
        if (hs[f] != nvcompSuccess) rc = gs_gzc_nvc_fail(st, hs[f], "compressing a frame", z->dev);
        else if (r->clen[f] > stride) rc = gs_fail(st, GS_EDATA, "gpu %d: a compressed frame exceeds its bound", z->dev);
        r->off[f] = r->bytes;
        r->bytes += r->clen[f];
    }
    free(hs);
    GZC_CU(e, "reading the compressed sizes");
    if (rc) return rc;
    GZC_CU(cudaMalloc((void **)&z->packed, r->bytes + 1), "cudaMalloc");
    size_t *d_off = (size_t *)(d + 7 * n); /* the actual-size slots, free until the decodes */
    GZC_CU(cudaMemcpy(d_off, r->off, n * sizeof(size_t), cudaMemcpyHostToDevice), "uploading the offsets");
    GZC_CU(gs_gzc_gather((const unsigned char *const *)enc_p, enc_sz, d_off, z->packed, n, z->s), "gather kernel");
    if (!(r->frames = (unsigned char *)malloc(r->bytes + 1))) return gs_fail(st, GS_ENOMEM, "out of memory");
    GZC_CU(cudaMemcpyAsync(r->frames, z->packed, r->bytes, cudaMemcpyDeviceToHost, z->s), "copying the frames back");
    GZC_CU(cudaStreamSynchronize(z->s), "copying the frames back");
    /* Decode nvCOMP's frames, then libzstd's, each into dec cleared first, each checked. */
    for (int src = 0; src < 2; src++) {
        GZC_CU(cudaMemset(z->dec, 0xA5, len), "cudaMemset");
        void *const *in_p = src ? lz_p : enc_p;
        const size_t *in_sz = src ? lz_sz : enc_sz;
        rc = gzb_time(z, reps, [&] {
            return gs_nvc.dec((const void *const *)in_p, in_sz, raw_sz, act, n, z->temp, temp, dec_p,
                              nvcompBatchedZstdDecompressDefaultOpts, stat, z->s);
        }, "DecompressAsync", src ? &r->dec_lz_ms : &r->dec_ms, st);
        if (!rc) rc = gzb_check(z, n, len, want, stat, act, src ? &r->dec_lz_ok : &r->dec_ok,
                                src ? r->why_lz : r->why, sizeof r->why, st);
        if (rc) return rc;
    }
    return GS_OK;
}

extern "C" int gs_bench_gpu_zstd(int device, const unsigned char *raw, size_t len, size_t frame, const unsigned char *lz,
                                 const size_t *lz_off, const size_t *lz_clen, int reps, gs_bench_gpu_zstd_out *r,
                                 gs_status *st)
{
    memset(r, 0, sizeof *r);
    if (!gs_nvc_ready()) return gs_fail(st, GS_EDATA, "bench --zstd: %s", gs_nvc.why);
    if (!len || !frame) return gs_fail(st, GS_EUSAGE, "bench --zstd: nothing to compress");
    gzb b;
    memset(&b, 0, sizeof b);
    b.dev = device;
    int rc = GS_OK;
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&b.s, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaEventCreate(&b.e0);
    if (e == cudaSuccess) e = cudaEventCreate(&b.e1);
    if (e != cudaSuccess) rc = gs_gzc_cuda_fail(st, e, "stream", device);
    if (!rc) rc = gzb_run(&b, raw, len, frame, lz, lz_off, lz_clen, reps, r, st);
    gzb_free(&b);
    return rc;
}

#endif /* GS_HAVE_NVCOMP */
