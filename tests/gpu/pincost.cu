// pincost.cu - what page-locking a staging buffer costs, per way of getting one (the GPU backend
// pins its host buffers as the engine first needs them: docs/PERFORMANCE.md, "Staging buffers").
// Usage: pincost [MiB] [reps]   (default 64 MiB, 5 repeats; medians in ms, each on fresh memory)
//   fresh      posix_memalign (4 KiB), then cudaHostRegister (the register faults every page in)
//   touched    posix_memalign, every page written first (one thread), then cudaHostRegister
//   touched16  the same, the pages written by 16 threads
//   huge       aligned to 2 MiB with madvise(MADV_HUGEPAGE), written, then cudaHostRegister
//   hostalloc  cudaHostAlloc
//   then the time of writing the pages itself (touch, touch16, huge-touch), and a pinned H2D copy
//   of the buffer per kind as a check that the pinning holds (GB/s).
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <algorithm>
#include <vector>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static double now()
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

struct part {
    char *p;
    size_t n;
};
static void *touch_part(void *a)
{
    part *q = (part *)a;
    for (size_t i = 0; i < q->n; i += 4096) q->p[i] = 1;
    return NULL;
}
static void touch(char *p, size_t n, int threads)
{
    std::vector<pthread_t> th(threads);
    std::vector<part> parts(threads);
    size_t per = (n / threads + 4095) / 4096 * 4096;
    for (int t = 0; t < threads; t++) {
        size_t b = std::min(n, t * per), e = std::min(n, b + per);
        parts[t] = {p + b, e - b};
        pthread_create(&th[t], NULL, touch_part, &parts[t]);
    }
    for (int t = 0; t < threads; t++) pthread_join(th[t], NULL);
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char **argv)
{
    const size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64, n = mib << 20;
    const int reps = argc > 2 ? atoi(argv[2]) : 5;
    CK(cudaFree(0));
    void *d;
    CK(cudaMalloc(&d, n));
    const char *kinds[] = {"fresh", "touched", "touched16", "huge", "hostalloc"};
    printf("%zu MiB per buffer, medians of %d (ms)\n", mib, reps);
    for (int k = 0; k < 5; k++) {
        std::vector<double> pin, wr, h2d;
        for (int r = 0; r < reps; r++) {
            char *p = NULL;
            double t0 = now(), tw = 0;
            if (k == 4) {
                CK(cudaHostAlloc((void **)&p, n, cudaHostAllocDefault));
            } else {
                if (posix_memalign((void **)&p, k == 3 ? (2u << 20) : 4096, n)) return 1;
                if (k == 3) madvise(p, n, MADV_HUGEPAGE);
                if (k >= 1) {
                    double a = now();
                    touch(p, n, k == 2 ? 16 : 1);
                    tw = now() - a;
                }
                t0 = now();
                CK(cudaHostRegister(p, n, cudaHostRegisterDefault));
            }
            pin.push_back((now() - t0) * 1e3);
            wr.push_back(tw * 1e3);
            double a = now();
            CK(cudaMemcpy(d, p, n, cudaMemcpyHostToDevice));
            h2d.push_back(n / (now() - a) / 1e9);
            if (k == 4) CK(cudaFreeHost(p));
            else {
                CK(cudaHostUnregister(p));
                free(p);
            }
        }
        printf("%-10s pin %8.2f ms   pages written first %8.2f ms   H2D %6.1f GB/s\n", kinds[k], median(pin), median(wr),
               median(h2d));
    }
    CK(cudaFree(d));
    return 0;
}
