/* bench_gpu.cu - the device half of `gpustream bench`: the ceilings (device-to-device copy,
 * PCIe H2D / D2H / both at once, pinned and pageable), the timing of one GPU variant on data in
 * device memory, and the vendor reference on the same data: a plain CUB call
 * (cub::DeviceScan::InclusiveSum / InclusiveScan, cub::DeviceSelect::If), no carry, no pieces,
 * its scratch allocated outside the timed region. Every timing is the same: a warm-up call, CUDA
 * events around each repeat, the median; when the working set fits in L2 it is flushed before
 * each repeat. */
#include "bench.h"

#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>
#include <climits>
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

/* Device buffers for one case: input copied in, room for the op's output, 16 bytes of aux (the
 * scan carry or the compaction count), scratch, and an L2 flush buffer when the working set fits. */
typedef struct dev_case {
    void *d_in, *d_out, *d_aux, *d_scratch, *d_flush;
    size_t scratch, flush_bytes, os;
    cudaStream_t s;
    cudaEvent_t e0, e1;
} dev_case;

static void dev_case_free(dev_case *d)
{
    if (d->d_in) cudaFree(d->d_in);
    if (d->d_out) cudaFree(d->d_out);
    if (d->d_aux) cudaFree(d->d_aux);
    if (d->d_scratch) cudaFree(d->d_scratch);
    if (d->d_flush) cudaFree(d->d_flush);
    if (d->s) cudaStreamDestroy(d->s);
    if (d->e0) cudaEventDestroy(d->e0);
    if (d->e1) cudaEventDestroy(d->e1);
}

static int dev_case_init(dev_case *d, int device, const gs_job *j, const void *h_in, uint64_t n, size_t scratch,
                         gs_status *st)
{
    int rc = GS_OK, l2 = 0;
    gs_type t = j->op == GS_OP_SCAN ? j->scan.type : j->op == GS_OP_COMPACT ? j->compact.type : j->minmax.type;
    gs_type ot = j->op == GS_OP_SCAN ? j->scan.out_type : (j->op == GS_OP_COMPACT && j->compact.indices) ? GS_U64 : t;
    if (j->op == GS_OP_MINMAX && j->minmax.nagg) ot = j->minmax.out_type;
    size_t es = gs_type_size(t);
    uint64_t out_cap = j->op == GS_OP_MINMAX ? (uint64_t)gs_job_out_cols(j) * n : n;
    memset(d, 0, sizeof *d);
    d->os = gs_type_size(ot);
    d->scratch = scratch;
    CK(cudaSetDevice(device));
    CK(cudaStreamCreateWithFlags(&d->s, cudaStreamNonBlocking));
    CK(cudaEventCreate(&d->e0));
    CK(cudaEventCreate(&d->e1));
    CK(cudaMalloc(&d->d_in, n * es + 16));
    CK(cudaMalloc(&d->d_out, out_cap * d->os + 16));
    CK(cudaMalloc(&d->d_aux, 16));
    if (scratch) CK(cudaMalloc(&d->d_scratch, scratch));
    CK(cudaMemcpy(d->d_in, h_in, n * es, cudaMemcpyHostToDevice));
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device);
    if ((n * es + out_cap * d->os) < (uint64_t)l2 * 4) {
        d->flush_bytes = (size_t)l2 * 2;
        CK(cudaMalloc(&d->d_flush, d->flush_bytes));
    }
out:
    return rc;
}

/* Warm-up, then reps timed with events around launch(), the median into *ms. */
template <class Launch>
static int dev_case_time(dev_case *d, const gs_job *j, int reps, double *ms_out, Launch launch, gs_status *st)
{
    int rc = GS_OK;
    std::vector<float> times;
    gs_value ident;
    gs_scan_identity(j->scan.op, j->scan.out_type, &ident);
    for (int r = -1; r < reps; r++) {
        float ms;
        if (j->op == GS_OP_SCAN) CK(cudaMemcpyAsync(d->d_aux, &ident, sizeof ident, cudaMemcpyHostToDevice, d->s));
        if (d->flush_bytes) CK(cudaMemsetAsync(d->d_flush, r & 0xff, d->flush_bytes, d->s));
        CK(cudaEventRecord(d->e0, d->s));
        if ((rc = launch())) goto out;
        CK(cudaEventRecord(d->e1, d->s));
        CK(cudaEventSynchronize(d->e1));
        CK(cudaEventElapsedTime(&ms, d->e0, d->e1));
        if (r >= 0) times.push_back(ms);
    }
    CK(cudaStreamSynchronize(d->s));
    *ms_out = median_ms(times);
out:
    return rc;
}

extern "C" int gs_bench_gpu_variant(int device, const gs_variant *v, const gs_job *j, const void *h_in, uint64_t n,
                                    int reps, double *ms_out, void *h_out, uint64_t *out_n, gs_status *st)
{
    int rc = GS_OK;
    size_t scratch = j->op == GS_OP_SCAN      ? v->scratch.scan(&j->scan, n)
                     : j->op == GS_OP_COMPACT ? v->scratch.compact(&j->compact, n)
                                              : v->scratch.minmax(&j->minmax, n);
    dev_case d;
    if ((rc = dev_case_init(&d, device, j, h_in, n, scratch, st))) goto out;
    rc = dev_case_time(&d, j, reps, ms_out,
                       [&] { return launch(v, j, d.d_in, n, d.d_out, d.d_aux, d.d_scratch, d.scratch, d.s, st); }, st);
    if (rc) goto out;
    if (j->op == GS_OP_COMPACT) {
        uint64_t c = 0;
        CK(cudaMemcpy(&c, d.d_aux, sizeof c, cudaMemcpyDeviceToHost));
        *out_n = c;
    } else if (j->op == GS_OP_SCAN)
        *out_n = n;
    else
        *out_n = n > j->minmax.window - 1 ? (n - (j->minmax.window - 1)) * (uint64_t)gs_job_out_cols(j) : 0;
    CK(cudaMemcpy(h_out, d.d_out, *out_n * d.os, cudaMemcpyDeviceToHost));
out:
    dev_case_free(&d);
    return rc;
}

/* ---- the vendor reference: plain CUB ------------------------------------------------------- */
struct plain_nonzero {
    template <class T> __device__ __forceinline__ bool operator()(const T &x) const { return x != T(0); }
};
struct plain_min {
    template <class T> __device__ __forceinline__ T operator()(const T &a, const T &b) const { return b < a ? b : a; }
};
struct plain_max {
    template <class T> __device__ __forceinline__ T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};

/* One direct CUB call, as a user of CUB would write it (int item counts and an int selection
 * count); tmp == NULL asks for the scratch size. */
template <class T>
static cudaError_t plain_cub(void *tmp, size_t &bytes, const gs_job *j, const void *in, void *out, void *d_count,
                             int n, cudaStream_t s)
{
    const T *i = (const T *)in;
    T *o = (T *)out;
    if (j->op == GS_OP_COMPACT) return cub::DeviceSelect::If(tmp, bytes, i, o, (int *)d_count, n, plain_nonzero(), s);
    switch (j->scan.op) {
    case GS_SCAN_SUM: return cub::DeviceScan::InclusiveSum(tmp, bytes, i, o, n, s);
    case GS_SCAN_MIN: return cub::DeviceScan::InclusiveScan(tmp, bytes, i, o, plain_min(), n, s);
    default: return cub::DeviceScan::InclusiveScan(tmp, bytes, i, o, plain_max(), n, s);
    }
}

static cudaError_t plain_cub_t(gs_type t, void *tmp, size_t &bytes, const gs_job *j, const void *in, void *out,
                               void *d_count, int n, cudaStream_t s)
{
    switch (t) {
    case GS_I32: return plain_cub<int32_t>(tmp, bytes, j, in, out, d_count, n, s);
    case GS_I64: return plain_cub<int64_t>(tmp, bytes, j, in, out, d_count, n, s);
    case GS_U32: return plain_cub<uint32_t>(tmp, bytes, j, in, out, d_count, n, s);
    case GS_U64: return plain_cub<uint64_t>(tmp, bytes, j, in, out, d_count, n, s);
    case GS_F32: return plain_cub<float>(tmp, bytes, j, in, out, d_count, n, s);
    default: return plain_cub<double>(tmp, bytes, j, in, out, d_count, n, s);
    }
}

extern "C" int gs_bench_gpu_plain_cub(int device, const gs_job *j, const void *h_in, uint64_t n, int reps,
                                      double *ms_out, void *h_out, uint64_t *out_n, gs_status *st)
{
    int rc = GS_OK;
    const gs_type t = j->op == GS_OP_SCAN ? j->scan.type : j->compact.type;
    size_t scratch = 0;
    dev_case d;
    memset(&d, 0, sizeof d);
    if (!gs_bench_plain_cub_applies(j, n)) return gs_fail(st, GS_EUSAGE, "plain CUB: no direct call for this case");
    CK(cudaSetDevice(device));
    CK(plain_cub_t(t, NULL, scratch, j, NULL, NULL, NULL, (int)n, 0));
    if ((rc = dev_case_init(&d, device, j, h_in, n, scratch, st))) goto out;
    rc = dev_case_time(&d, j, reps, ms_out,
                       [&]() -> int {
                           size_t b = d.scratch;
                           cudaError_t e = plain_cub_t(t, d.d_scratch, b, j, d.d_in, d.d_out, d.d_aux, (int)n, d.s);
                           if (e == cudaSuccess) e = cudaGetLastError();
                           return e == cudaSuccess ? GS_OK
                                                   : gs_fail(st, GS_EDATA, "plain CUB: %s", cudaGetErrorString(e));
                       },
                       st);
    if (rc) goto out;
    if (j->op == GS_OP_COMPACT) {
        int c = 0;
        CK(cudaMemcpy(&c, d.d_aux, sizeof c, cudaMemcpyDeviceToHost));
        *out_n = (uint64_t)c;
    } else
        *out_n = n;
    CK(cudaMemcpy(h_out, d.d_out, *out_n * d.os, cudaMemcpyDeviceToHost));
out:
    dev_case_free(&d);
    return rc;
}
