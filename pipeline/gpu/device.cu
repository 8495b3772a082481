/* gpu/device.cu - device queries behind `gpustream info` and --backend auto, CUDA start-up on its
 * own thread (gs_gpu_init_start / gs_gpu_init_wait), the true reason when there is no usable GPU
 * (no driver library, no device, a driver older than the runtime), the usability probe (does this
 * build carry code for the device), and the mapping of CUDA errors to gs_status.
 * Library code: returns gs_status, never prints or exits. */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.cuh"
#include "../../common/trace.h"

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


/* ---- why there is no GPU -------------------------------------------------------------------- */

/* The reason behind a failed cudaGetDeviceCount, from the driver itself: the runtime reports a
 * missing driver library as "driver version is insufficient", which misleads. */
void gs_gpu_why_none(cudaError_t e, char *why, size_t len)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    int dv = 0;
    if (!lib) {
        snprintf(why, len, "no NVIDIA driver (libcuda.so.1 cannot be loaded)");
        return;
    }
    typedef int (*get_version_fn)(int *);
    get_version_fn get_version = (get_version_fn)dlsym(lib, "cuDriverGetVersion");
    if (get_version && get_version(&dv) == 0 && dv > 0 && dv < CUDART_VERSION)
        snprintf(why, len, "the NVIDIA driver supports CUDA %d.%d, this build needs %d.%d (update the driver)",
                 dv / 1000, dv % 1000 / 10, CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
    else if (e == cudaErrorNoDevice || e == cudaSuccess)
        snprintf(why, len, "no CUDA device found");
    else
        snprintf(why, len, "%s", cudaGetErrorString(e));
    dlclose(lib);
}

/* ---- CUDA start-up on its own thread -------------------------------------------------------- */

/* One per process: context creation (~0.3 s) overlaps opening the input and reading the first
 * chunks; the engine waits for it only when the GPU stages are about to start. */
typedef struct gs_gpu_init_state {
    pthread_t th;
    int started, joined;
    int done; /* atomic: the thread has finished */
    int device, ok;
    int by_rank, local_rank, chosen, ndev; /* gs_gpu_init_start_rank: the device is chosen on the thread */
    int more[GS_DEVICES_MAX], nmore;      /* further devices started beside it (GS_DEVICES_ALL: every one) */
    char why[256];
    double secs;
} gs_gpu_init_state;
static pthread_mutex_t gs_gi_mu = PTHREAD_MUTEX_INITIALIZER;
/* by rank: the device chosen (device, ndev, chosen), under a lock of its own, since gs_gpu_init_wait
 * joins the thread under gs_gi_mu */
static pthread_mutex_t gs_gi_chosen_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gs_gi_chosen = PTHREAD_COND_INITIALIZER;
static gs_gpu_init_state gs_gi;

/* A further device's context, made beside the first's (its own thread); failures show when the
 * device's backend is made. */
static void *gpu_init_more(void *arg)
{
    const int d = (int)(intptr_t)arg;
    if (cudaSetDevice(d) != cudaSuccess || cudaFree(0) != cudaSuccess) (void)cudaGetLastError();
    return NULL;
}

/* The further devices' threads (those that could be made: the others start when their backend is). */
static int gpu_init_others(int n, pthread_t *th)
{
    int k = 0, all = gs_gi.nmore == GS_DEVICES_ALL;
    for (int i = 0; i < (all ? n : gs_gi.nmore) && k < GS_DEVICES_MAX; i++) {
        const int d = all ? i : gs_gi.more[i];
        int seen = d == gs_gi.device || d >= n;
        for (int j = 0; j < i && !seen && !all; j++) seen = gs_gi.more[j] == d;
        if (!seen && pthread_create(&th[k], NULL, gpu_init_more, (void *)(intptr_t)d) == 0) k++;
    }
    return k;
}

static void *gpu_init_main(void *arg)
{
    const double t0 = gs_now();
    int n = 0;
    cudaError_t e;
    (void)arg;
    gs_trace("cuda: starting (its own thread)");
    e = cudaGetDeviceCount(&n);
    pthread_mutex_lock(&gs_gi_chosen_mu);
    if (gs_gi.by_rank && e == cudaSuccess && n > 0) gs_gi.device = gs_gi.local_rank % n;
    gs_gi.ndev = e == cudaSuccess && n > 0 ? n : 0;
    gs_gi.chosen = 1;
    pthread_cond_broadcast(&gs_gi_chosen);
    pthread_mutex_unlock(&gs_gi_chosen_mu);
    if (e != cudaSuccess || n <= 0) {
        (void)cudaGetLastError();
        gs_gpu_why_none(e, gs_gi.why, sizeof gs_gi.why);
    } else if (gs_gi.device < 0 || gs_gi.device >= n) {
        snprintf(gs_gi.why, sizeof gs_gi.why, "--device %d: this machine has %d GPU(s) (0..%d)", gs_gi.device, n, n - 1);
    } else {
        pthread_t th[GS_DEVICES_MAX];
        const int k = gpu_init_others(n, th);
        if ((e = cudaSetDevice(gs_gi.device)) != cudaSuccess || (e = cudaFree(0)) != cudaSuccess) {
            (void)cudaGetLastError();
            snprintf(gs_gi.why, sizeof gs_gi.why, "gpu %d: %s", gs_gi.device, cudaGetErrorString(e));
        } else {
            char why[160];
            gs_gi.ok = gs_gpu_probe(gs_gi.device, why, sizeof why);
            if (!gs_gi.ok) snprintf(gs_gi.why, sizeof gs_gi.why, "gpu %d: unusable: %s", gs_gi.device, why);
        }
        for (int i = 0; i < k; i++) pthread_join(th[i], NULL);
    }
    gs_gi.secs = gs_now() - t0;
    gs_trace("cuda: started in %.3f s%s", gs_gi.secs, gs_gi.ok ? "" : " (no usable GPU)");
    __atomic_store_n(&gs_gi.done, 1, __ATOMIC_RELEASE);
    return NULL;
}

extern "C" int gs_gpu_started(void)
{
    pthread_mutex_lock(&gs_gi_mu);
    const int started = gs_gi.started;
    pthread_mutex_unlock(&gs_gi_mu);
    return started;
}

extern "C" int gs_gpu_init_ready(void) { return !gs_gpu_started() || __atomic_load_n(&gs_gi.done, __ATOMIC_ACQUIRE); }

static void gpu_init_start(int device, int by_rank, const int *more, int nmore)
{
    pthread_mutex_lock(&gs_gi_mu);
    if (!gs_gi.started) {
        gs_gi.nmore = nmore == GS_DEVICES_ALL ? nmore : nmore < GS_DEVICES_MAX ? nmore : GS_DEVICES_MAX;
        for (int i = 0; i < gs_gi.nmore; i++) gs_gi.more[i] = more[i];
        gs_gi.started = 1;
        gs_gi.by_rank = by_rank;
        gs_gi.local_rank = by_rank ? device : 0;
        gs_gi.device = by_rank ? 0 : device; /* by rank: 0 until chosen (the reason names it) */
        if (pthread_create(&gs_gi.th, NULL, gpu_init_main, NULL) != 0) {
            gpu_init_main(NULL); /* no thread: do it here */
            gs_gi.joined = 1;
        }
    }
    pthread_mutex_unlock(&gs_gi_mu);
}

extern "C" void gs_gpu_init_start(int device) { gpu_init_start(device, 0, NULL, 0); }

extern "C" void gs_gpu_init_start_list(const int *devs, int n)
{
    gpu_init_start(n == GS_DEVICES_ALL ? 0 : devs[0], 0, devs, n);
}

extern "C" void gs_gpu_init_start_rank(int local_rank) { gpu_init_start(local_rank, 1, NULL, 0); }

extern "C" int gs_gpu_init_device(void)
{
    pthread_mutex_lock(&gs_gi_mu);
    int started = gs_gi.started;
    pthread_mutex_unlock(&gs_gi_mu);
    if (!started) return -1;
    pthread_mutex_lock(&gs_gi_chosen_mu);
    while (!gs_gi.chosen) pthread_cond_wait(&gs_gi_chosen, &gs_gi_chosen_mu);
    int d = gs_gi.ndev > 0 ? gs_gi.device : -1;
    pthread_mutex_unlock(&gs_gi_chosen_mu);
    return d;
}

extern "C" int gs_gpu_init_count(void)
{
    if (gs_gpu_init_device() < 0) return 0;
    pthread_mutex_lock(&gs_gi_chosen_mu);
    const int n = gs_gi.ndev;
    pthread_mutex_unlock(&gs_gi_chosen_mu);
    return n;
}

extern "C" int gs_gpu_init_wait(int device, char *why, size_t len, double *secs)
{
    int ok;
    gs_gpu_init_start(device);
    pthread_mutex_lock(&gs_gi_mu);
    if (!gs_gi.joined) {
        pthread_join(gs_gi.th, NULL);
        gs_gi.joined = 1;
    }
    ok = gs_gi.ok && gs_gi.device == device;
    if (why && len) snprintf(why, len, "%s", gs_gi.ok && gs_gi.device != device ? "another device was started" : gs_gi.why);
    if (secs) *secs = gs_gi.secs;
    pthread_mutex_unlock(&gs_gi_mu);
    return ok;
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
            gs_gpu_why_none(e, desc, desc_len);
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
