/* codec_watchdog.cu - the deadline on every wait for nvCOMP, and the process's "GPU given up" flag.
 *
 * nvCOMP's decoder has been seen never to finish on a corrupt frame that passed the host's header
 * checks, and cudaStreamSynchronize would then wait for ever. So every wait polls the stream (or
 * an event) with short sleeps up to a deadline of GZC_WATCHDOG_S plus the batch's bytes at
 * GZC_WATCHDOG_BYTES_PER_S. On expiry the process gives the device up (gs_gpu_abandoned): nothing
 * in it calls CUDA on the device again, teardown is skipped and a hung kernel ends with the
 * process. What each caller does then: codec_host.cu (the codec stops; a decode leaves the batch
 * to libzstd, an encode fails), the GPU backend (the run fails). Built with and without nvCOMP. */
#include <cuda_runtime.h>
#include <time.h>

#include "codec.cuh"

/* Set once a codec gave up on its device: CUDA is not called again in this process. Read by
 * other threads (the GPU backend's), hence atomic. */
static int gzc_abandoned;

extern "C" int gs_gpu_abandoned(void) { return __atomic_load_n(&gzc_abandoned, __ATOMIC_ACQUIRE); }

/* The watchdog's deadline for a batch: this long, plus its bytes at this rate. */
#define GZC_WATCHDOG_S 2.0
#define GZC_WATCHDOG_BYTES_PER_S 1e9

cudaError_t gs_gpu_zwatch(cudaStream_t s, cudaEvent_t ev, uint64_t bytes, double *limit)
{
    const double t0 = gs_now();
    long nap = 10000; /* ns, doubling to 200 us */
    *limit = GZC_WATCHDOG_S + (double)bytes / GZC_WATCHDOG_BYTES_PER_S;
    for (;;) {
        cudaError_t e = s ? cudaStreamQuery(s) : cudaEventQuery(ev);
        if (e != cudaErrorNotReady) return e;
        if (gs_now() - t0 > *limit) {
            __atomic_store_n(&gzc_abandoned, 1, __ATOMIC_RELEASE);
            return cudaErrorNotReady;
        }
        struct timespec ts = {0, nap};
        nanosleep(&ts, NULL);
        if (nap < 200000) nap *= 2;
    }
}
