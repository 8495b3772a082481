/* gpu_device.cu - device queries behind `gpustream info` and --backend auto, the usability probe
 * (does this build carry code for the device), and the mapping of CUDA errors to gs_status.
 * Library code: returns gs_status, never prints or exits. */
#include <cuda_runtime.h>
#include <stdio.h>

#include "gpu_internal.cuh"

/* Fill st from a CUDA error: "gpu 0: cudaMemcpyAsync: <reason>"; out of memory -> GS_ENOMEM. */
int gs_cu_fail(gs_status *st, cudaError_t e, const char *call, int dev)
{
    char fn[64];
    size_t i = 0;
    while (call[i] && call[i] != '(' && i + 1 < sizeof fn) {
        fn[i] = call[i];
        i++;
    }
    fn[i] = 0;
    (void)cudaGetLastError(); /* clear a non-sticky error so later launch checks do not see it */
    if (e == cudaErrorMemoryAllocation)
        return gs_fail(st, GS_ENOMEM,
                       "gpu %d: %s: %s (set a lower --device-mem-limit, a smaller --chunk or fewer --buffers)",
                       dev, fn, cudaGetErrorString(e));
    return gs_fail(st, GS_EDATA, "gpu %d: %s: %s", dev, fn, cudaGetErrorString(e));
}

/* A trivial kernel: cudaFuncGetAttributes on it tells whether this build has code for a device. */
__global__ void gs_gpu_probe_kernel(int *p)
{
    if (p) *p = 0;
}

int gs_gpu_probe(int dev, char *why, size_t len)
{
    cudaFuncAttributes fa;
    cudaError_t e = cudaSetDevice(dev);
    if (e == cudaSuccess) e = cudaFuncGetAttributes(&fa, gs_gpu_probe_kernel);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        if (why && len) snprintf(why, len, "%s", cudaGetErrorString(e));
        return 0;
    }
    return 1;
}

/* ---- device queries ------------------------------------------------------------------------- */

extern "C" int gs_gpu_available(int device, char *desc, size_t desc_len)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    cudaDeviceProp p;
    char why[160];
    if (desc && desc_len) desc[0] = 0;
    if (e != cudaSuccess || n <= 0) {
        (void)cudaGetLastError();
        if (desc && desc_len)
            snprintf(desc, desc_len, "no GPU: %s", e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device found");
        return 0;
    }
    if (device < 0 || device >= n) {
        if (desc && desc_len) snprintf(desc, desc_len, "no GPU %d: this machine has %d (0..%d)", device, n, n - 1);
        return 0;
    }
    e = cudaGetDeviceProperties(&p, device);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        if (desc && desc_len) snprintf(desc, desc_len, "GPU %d: %s", device, cudaGetErrorString(e));
        return 0;
    }
    if (!gs_gpu_probe(device, why, sizeof why)) {
        if (desc && desc_len) snprintf(desc, desc_len, "GPU %d (%s, sm_%d%d) unusable: %s", device, p.name, p.major, p.minor, why);
        return 0;
    }
    if (desc && desc_len)
        snprintf(desc, desc_len, "%s (device %d, sm_%d%d, %d SMs, %.1f GiB)", p.name, device, p.major, p.minor,
                 p.multiProcessorCount, (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
    return 1;
}

extern "C" int gs_gpu_describe(char *buf, size_t len)
{
    int n = 0, i;
    size_t at = 0;
    if (buf && len) buf[0] = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n <= 0) {
        (void)cudaGetLastError();
        return 0;
    }
    for (i = 0; i < n && buf && at + 1 < len; i++) {
        cudaDeviceProp p;
        char bus[32] = "?";
        int w;
        if (cudaGetDeviceProperties(&p, i) != cudaSuccess) {
            (void)cudaGetLastError();
            w = snprintf(buf + at, len - at, "%d: unavailable\n", i);
        } else {
            if (cudaDeviceGetPCIBusId(bus, (int)sizeof bus, i) != cudaSuccess) {
                (void)cudaGetLastError();
                snprintf(bus, sizeof bus, "?");
            }
            w = snprintf(buf + at, len - at, "%d: %s, sm_%d%d, %d SMs, %.1f GiB, %d copy engine(s), PCI %s\n", i, p.name,
                         p.major, p.minor, p.multiProcessorCount,
                         (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0), p.asyncEngineCount, bus);
        }
        if (w < 0) break;
        at += (size_t)w < len - at ? (size_t)w : len - at - 1;
    }
    return n;
}
