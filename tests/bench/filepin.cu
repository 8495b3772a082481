/* tests/bench/filepin.cu - what a window of a file in the page cache costs to page-lock where it lies
 * (the direct input, pipeline/direct.c) against copying it into a pinned staging buffer (the staged
 * path), and the H2D rate from each. The file is mapped read-only as gpustream maps it; each window
 * is registered with cudaHostRegister (cudaHostRegisterReadOnly where the device supports it) as
 * one call, and as units of one chunk registered by T threads at once (what the pinner does with
 * chunks on page boundaries), copied from the device, released; the same window is copied by T
 * threads into a cudaHostAlloc buffer and from there to the device. Medians over the windows.
 *   nvcc -O2 -o /tmp/filepin tests/bench/filepin.cu -lpthread
 *   gpustream gen -q -n 2^30 -t i32 /dev/shm/fp.raw && /tmp/filepin /dev/shm/fp.raw 64 16 16
 * (file, window MiB, chunk MiB, threads). */
#include <cuda_runtime.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CK(x)                                                                                              \
    do {                                                                                                   \
        cudaError_t e_ = (x);                                                                              \
        if (e_ != cudaSuccess) {                                                                           \
            fprintf(stderr, "filepin: %s: %s\n", #x, cudaGetErrorString(e_));                              \
            exit(1);                                                                                       \
        }                                                                                                  \
    } while (0)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n ? v[n / 2] : 0;
}

typedef struct part {
    const char *src;
    char *dst;      /* NULL: register src instead of copying it */
    size_t len;
    unsigned flags;
    int unreg;      /* unregister src instead */
} part;

static void *part_main(void *arg)
{
    part *p = (part *)arg;
    if (p->dst) memcpy(p->dst, p->src, p->len);
    else if (p->unreg) CK(cudaHostUnregister((void *)p->src));
    else CK(cudaHostRegister((void *)p->src, p->len, p->flags));
    return NULL;
}

/* [src, src + len) in nt pieces of at most `piece` bytes on threads: copied to dst, registered or
 * unregistered. */
static void on_threads(const char *src, char *dst, size_t len, size_t piece, int nt, unsigned flags, int unreg)
{
    pthread_t th[256];
    part ps[256];
    int n = 0;
    for (size_t off = 0; off < len && n < 256; n++) {
        size_t l = len - off < piece ? len - off : piece;
        ps[n] = (part){src + off, dst ? dst + off : NULL, l, flags, unreg};
        off += l;
    }
    for (int i = 0; i < n; i += nt) {
        int k = i + nt < n ? i + nt : n;
        for (int t = i; t < k; t++) pthread_create(&th[t], NULL, part_main, &ps[t]);
        for (int t = i; t < k; t++) pthread_join(th[t], NULL);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: filepin FILE [WINDOW_MIB [CHUNK_MIB [THREADS]]]\n");
        return 2;
    }
    const size_t win = (size_t)(argc > 2 ? atol(argv[2]) : 64) << 20;
    const size_t chunk = (size_t)(argc > 3 ? atol(argv[3]) : 16) << 20;
    const int nt = argc > 4 ? atoi(argv[4]) : 16;
    int fd = open(argv[1], O_RDONLY);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || (size_t)sb.st_size < win) {
        fprintf(stderr, "filepin: %s: need a file of at least one window\n", argv[1]);
        return 1;
    }
    const size_t size = (size_t)sb.st_size, nwin = size / win < 64 ? size / win : 64;
    const char *map = (const char *)mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    int ro = 0, hpt = 0;
    CK(cudaSetDevice(0));
    CK(cudaFree(0));
    CK(cudaDeviceGetAttribute(&ro, cudaDevAttrHostRegisterReadOnlySupported, 0));
    CK(cudaDeviceGetAttribute(&hpt, cudaDevAttrPageableMemoryAccessUsesHostPageTables, 0));
    const unsigned flags = ro ? cudaHostRegisterReadOnly : cudaHostRegisterDefault;
    printf("HostRegisterReadOnlySupported %d, PageableMemoryAccessUsesHostPageTables %d; %zu windows of %zu MiB, "
           "chunks of %zu MiB, %d threads\n", ro, hpt, nwin, win >> 20, chunk >> 20, nt);
    if (!ro && !hpt) printf("this device cannot lock read-only file pages: the direct input copies\n");
    char *d, *stage;
    CK(cudaMalloc(&d, win));
    CK(cudaHostAlloc((void **)&stage, win, cudaHostAllocDefault));
    memset(stage, 0, win);
    double reg1[64], regp[64], unreg[64], h2d_map[64], copy[64], h2d_stage[64];
    for (size_t w = 0; w < nwin; w++) {
        const char *p = map + w * win;
        double t0 = now();
        if (ro || hpt) {
            CK(cudaHostRegister((void *)p, win, flags)); /* the window as one registration */
            reg1[w] = now() - t0;
            CK(cudaHostUnregister((void *)p));
            t0 = now();
            on_threads(p, NULL, win, chunk, nt, flags, 0); /* one registration a chunk, on threads */
            regp[w] = now() - t0;
            t0 = now();
            CK(cudaMemcpy(d, p, win, cudaMemcpyHostToDevice));
            h2d_map[w] = now() - t0;
            t0 = now();
            on_threads(p, NULL, win, chunk, nt, 0, 1);
            unreg[w] = now() - t0;
        } else
            reg1[w] = regp[w] = h2d_map[w] = unreg[w] = 0;
        t0 = now();
        on_threads(p, stage, win, (win + (size_t)nt - 1) / (size_t)nt, nt, 0, 0);
        copy[w] = now() - t0;
        t0 = now();
        CK(cudaMemcpy(d, stage, win, cudaMemcpyHostToDevice));
        h2d_stage[w] = now() - t0;
    }
    const double gb = (double)win / 1e9;
    const int n = (int)nwin;
    printf("register, one call a window          %8.3f ms  %6.1f GB/s\n", median(reg1, n) * 1e3, gb / median(reg1, n));
    printf("register, one call a chunk, threads  %8.3f ms  %6.1f GB/s\n", median(regp, n) * 1e3, gb / median(regp, n));
    printf("unregister, a chunk a call, threads  %8.3f ms  %6.1f GB/s\n", median(unreg, n) * 1e3, gb / median(unreg, n));
    printf("H2D from the locked mapping          %8.3f ms  %6.1f GB/s\n", median(h2d_map, n) * 1e3, gb / median(h2d_map, n));
    printf("copy into pinned staging, threads    %8.3f ms  %6.1f GB/s\n", median(copy, n) * 1e3, gb / median(copy, n));
    printf("H2D from pinned staging              %8.3f ms  %6.1f GB/s\n", median(h2d_stage, n) * 1e3, gb / median(h2d_stage, n));
    CK(cudaFreeHost(stage));
    CK(cudaFree(d));
    munmap((void *)map, size);
    close(fd);
    return 0;
}
