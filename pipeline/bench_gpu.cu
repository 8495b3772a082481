/* bench_gpu.cu - the device half of `gpustream bench`: the ceilings (device-to-device copy,
 * PCIe H2D / D2H / both at once, pinned and pageable) and the timing of one GPU variant on
 * data in device memory. Timing follows METHOD.md: a warm-up call, CUDA events around each
 * repeat, the median; when the working set fits in L2 it is flushed before each repeat. */
#include "bench.h"

#include <cuda_runtime.h>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            rc = gs_fail(st, e_ == cudaErrorMemoryAllocation ? GS_ENOMEM : GS_EDATA, "cuda: %s: %s (%s:%d)", #call, \
                         cudaGetErrorString(e_), __FILE__, __LINE__);                              \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

static double median_ms(std::vector<float> &t)
{
    std::sort(t.begin(), t.end());
    return t.empty() ? 0 : t[t.size() / 2];
}

extern "C" int gs_bench_gpu_ceilings(int device, gs_bench_env *env, gs_status *st)
{
    int rc = GS_OK;
    const size_t dbytes = 1ull << 30, cb = 256ull << 20;
    void *d_a = nullptr, *d_b = nullptr, *h_p = nullptr, *h_q = nullptr;
    char *h_page = nullptr;
    cudaStream_t s1 = nullptr, s2 = nullptr;
    cudaEvent_t e0 = nullptr, e1 = nullptr, e2 = nullptr;
    cudaDeviceProp p;
    int drv = 0, clk = 0, mclk = 0;
    std::vector<float> t;
    CK(cudaSetDevice(device));
    CK(cudaGetDeviceProperties(&p, device));
    snprintf(env->gpu, sizeof env->gpu, "%s", p.name);
    CK(cudaDriverGetVersion(&drv));
    snprintf(env->driver, sizeof env->driver, "CUDA driver %d.%d", drv / 1000, (drv % 1000) / 10);
    cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, device);
    cudaDeviceGetAttribute(&mclk, cudaDevAttrMemoryClockRate, device);
    env->sm_clock_mhz = clk / 1000;
    env->mem_clock_mhz = mclk / 1000;
    env->sms = p.multiProcessorCount;
    env->l2_bytes = p.l2CacheSize;
    CK(cudaMalloc(&d_a, dbytes));
    CK(cudaMalloc(&d_b, dbytes));
    CK(cudaMemset(d_a, 1, dbytes));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaEventCreate(&e2));
    CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    /* Device copy: bytes read + bytes written. */
    CK(cudaMemcpyAsync(d_b, d_a, dbytes, cudaMemcpyDeviceToDevice, s1));
    for (int r = 0; r < 10; r++) {
        float ms;
        CK(cudaEventRecord(e0, s1));
        CK(cudaMemcpyAsync(d_b, d_a, dbytes, cudaMemcpyDeviceToDevice, s1));
        CK(cudaEventRecord(e1, s1));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        t.push_back(ms);
    }
    env->copy_gbs = 2.0 * dbytes / median_ms(t) / 1e6;
    /* PCIe, pinned: 256 MiB each way, alone and both at once (two streams). */
    CK(cudaMallocHost(&h_p, cb));
    CK(cudaMallocHost(&h_q, cb));
    memset(h_p, 1, cb);
    memset(h_q, 1, cb);
    for (int mode = 0; mode < 3; mode++) {
        t.clear();
        std::vector<float> t2;
        for (int r = 0; r < 6; r++) {
            float ms, ms2 = 0;
            CK(cudaDeviceSynchronize());
            CK(cudaEventRecord(e0, s1));
            CK(cudaStreamWaitEvent(s2, e0, 0));
            if (mode != 1) CK(cudaMemcpyAsync(d_a, h_p, cb, cudaMemcpyHostToDevice, s1));
            if (mode != 0) CK(cudaMemcpyAsync(h_q, d_b, cb, cudaMemcpyDeviceToHost, mode == 2 ? s2 : s1));
            CK(cudaEventRecord(e1, s1));
            CK(cudaEventRecord(e2, s2));
            CK(cudaEventSynchronize(e1));
            CK(cudaEventSynchronize(e2));
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (mode == 2) CK(cudaEventElapsedTime(&ms2, e0, e2));
            t.push_back(std::max(ms, ms2));
        }
        double gbs = cb / median_ms(t) / 1e6;
        if (mode == 0) env->h2d_gbs = gbs;
        else if (mode == 1) env->d2h_gbs = gbs;
        else env->both_gbs = gbs;
    }
    /* Pageable. */
    h_page = (char *)malloc(cb);
    if (!h_page) {
        rc = gs_fail(st, GS_ENOMEM, "out of host memory");
        goto out;
    }
    memset(h_page, 1, cb);
    for (int dir = 0; dir < 2; dir++) {
        t.clear();
        for (int r = 0; r < 4; r++) {
            float ms;
            CK(cudaEventRecord(e0, 0));
            if (dir == 0) CK(cudaMemcpy(d_a, h_page, cb, cudaMemcpyHostToDevice));
            else CK(cudaMemcpy(h_page, d_a, cb, cudaMemcpyDeviceToHost));
            CK(cudaEventRecord(e1, 0));
            CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&ms, e0, e1));
            t.push_back(ms);
        }
        (dir == 0 ? env->h2d_pageable_gbs : env->d2h_pageable_gbs) = cb / median_ms(t) / 1e6;
    }
out:
    if (d_a) cudaFree(d_a);
    if (d_b) cudaFree(d_b);
    if (h_p) cudaFreeHost(h_p);
    if (h_q) cudaFreeHost(h_q);
    free(h_page);
    if (s1) cudaStreamDestroy(s1);
    if (s2) cudaStreamDestroy(s2);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    if (e2) cudaEventDestroy(e2);
    return rc;
}

/* One launch of the variant over the whole array (identity carry, no halo). */
static int launch(const gs_variant *v, const gs_job *j, const void *d_in, uint64_t n, void *d_out, void *d_aux,
                  void *d_scratch, size_t scratch, cudaStream_t s, gs_status *st)
{
    switch (j->op) {
    case GS_OP_SCAN: return v->gpu.scan(&j->scan, d_in, d_out, n, d_aux, d_scratch, scratch, s, st);
    case GS_OP_COMPACT:
        return v->gpu.compact(&j->compact, d_in, n, d_out, 0, (uint64_t *)d_aux, d_scratch, scratch, s, st);
    default: {
        uint64_t w1 = j->minmax.window - 1;
        if (n <= w1) return GS_OK;
        return v->gpu.minmax(&j->minmax, d_in, n, w1, d_out, d_scratch, scratch, s, st);
    }
    }
}

extern "C" int gs_bench_gpu_variant(int device, const gs_variant *v, const gs_job *j, const void *h_in, uint64_t n,
                                    int reps, double *ms_out, void *h_out, uint64_t *out_n, gs_status *st)
{
    int rc = GS_OK;
    gs_type t = j->op == GS_OP_SCAN ? j->scan.type : j->op == GS_OP_COMPACT ? j->compact.type : j->minmax.type;
    gs_type ot = j->op == GS_OP_SCAN ? j->scan.out_type : (j->op == GS_OP_COMPACT && j->compact.indices) ? GS_U64 : t;
    size_t es = gs_type_size(t), os = gs_type_size(ot);
    uint64_t out_cap = j->op == GS_OP_MINMAX ? 2 * n : n;
    size_t scratch = j->op == GS_OP_SCAN      ? v->scratch.scan(&j->scan, n)
                     : j->op == GS_OP_COMPACT ? v->scratch.compact(&j->compact, n)
                                              : v->scratch.minmax(&j->minmax, n);
    void *d_in = nullptr, *d_out = nullptr, *d_aux = nullptr, *d_scratch = nullptr, *d_flush = nullptr;
    cudaStream_t s = nullptr;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    std::vector<float> times;
    gs_value ident;
    size_t flush_bytes = 0;
    int l2 = 0;
    CK(cudaSetDevice(device));
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaMalloc(&d_in, n * es + 16));
    CK(cudaMalloc(&d_out, out_cap * os + 16));
    CK(cudaMalloc(&d_aux, 16));
    if (scratch) CK(cudaMalloc(&d_scratch, scratch));
    CK(cudaMemcpy(d_in, h_in, n * es, cudaMemcpyHostToDevice));
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device);
    if ((n * es + out_cap * os) < (uint64_t)l2 * 4) {
        flush_bytes = (size_t)l2 * 2;
        CK(cudaMalloc(&d_flush, flush_bytes));
    }
    gs_scan_identity(j->scan.op, j->scan.out_type, &ident);
    for (int r = -1; r < reps; r++) {
        float ms;
        if (j->op == GS_OP_SCAN) CK(cudaMemcpyAsync(d_aux, &ident, sizeof ident, cudaMemcpyHostToDevice, s));
        if (flush_bytes) CK(cudaMemsetAsync(d_flush, r & 0xff, flush_bytes, s));
        CK(cudaEventRecord(e0, s));
        if ((rc = launch(v, j, d_in, n, d_out, d_aux, d_scratch, scratch, s, st))) goto out;
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= 0) times.push_back(ms);
    }
    CK(cudaStreamSynchronize(s));
    *ms_out = median_ms(times);
    if (j->op == GS_OP_COMPACT) {
        uint64_t c = 0;
        CK(cudaMemcpy(&c, d_aux, sizeof c, cudaMemcpyDeviceToHost));
        *out_n = c;
    } else if (j->op == GS_OP_SCAN)
        *out_n = n;
    else
        *out_n = n > j->minmax.window - 1 ? (n - (j->minmax.window - 1)) * 2 : 0;
    CK(cudaMemcpy(h_out, d_out, *out_n * os, cudaMemcpyDeviceToHost));
out:
    if (d_in) cudaFree(d_in);
    if (d_out) cudaFree(d_out);
    if (d_aux) cudaFree(d_aux);
    if (d_scratch) cudaFree(d_scratch);
    if (d_flush) cudaFree(d_flush);
    if (s) cudaStreamDestroy(s);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    return rc;
}
