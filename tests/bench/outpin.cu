/* tests/bench/outpin.cu - what an output file takes from the device, by way of writing it: the device's
 * bytes copied into a pinned buffer and written with pwrite (one thread; T threads at offsets), against
 * the file's pages mapped, page-locked where they lie (cudaHostRegister of a shared mapping, in
 * windows) and written by the copy engine itself (D2H into the file's pages); with and without the
 * window's pages faulted in first by T threads (MADV_POPULATE_WRITE). Each way writes a fresh file.
 *   nvcc -O2 -o /tmp/outpin tests/bench/outpin.cu -lpthread && /tmp/outpin /dev/shm/op.out 4096 256 16
 * (file, MiB, window MiB, threads); prints seconds and GB/s per way. */
#include <cuda_runtime.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define CK(x)                                                                                              \
    do {                                                                                                   \
        cudaError_t e_ = (x);                                                                              \
        if (e_ != cudaSuccess) {                                                                           \
            fprintf(stderr, "outpin: %s: %s\n", #x, cudaGetErrorString(e_));                               \
            exit(1);                                                                                       \
        }                                                                                                  \
    } while (0)

#define PIECE ((size_t)16 << 20)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct job {
    int fd, id, nt, pop;
    char *base;
    size_t off, len;
    const char *src;
} job;

/* pwrite pieces id, id + nt, ... of [off, off + len) from src; or fault them in (pop) */
static void *work(void *arg)
{
    job *j = (job *)arg;
    for (size_t o = (size_t)j->id * PIECE; o < j->len; o += (size_t)j->nt * PIECE) {
        size_t n = j->len - o < PIECE ? j->len - o : PIECE;
        if (j->pop) {
            if (madvise(j->base + j->off + o, n, MADV_POPULATE_WRITE)) perror("madvise");
        } else if (pwrite(j->fd, j->src + o, n, (off_t)(j->off + o)) != (ssize_t)n) {
            perror("pwrite");
            exit(1);
        }
    }
    return NULL;
}

static void run_threads(int nt, job *proto)
{
    pthread_t th[64];
    job js[64];
    for (int i = 0; i < nt; i++) js[i] = *proto, js[i].id = i, js[i].nt = nt, pthread_create(&th[i], NULL, work, &js[i]);
    for (int i = 0; i < nt; i++) pthread_join(th[i], NULL);
}

static void report(const char *way, int nt, double s, size_t total)
{
    printf("%-44s %2d thread(s): %.3f s  %6.2f GB/s\n", way, nt, s, (double)total / s / 1e9);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: outpin FILE MiB WINDOW_MiB THREADS\n");
        return 2;
    }
    const char *path = argv[1];
    const size_t total = (size_t)atol(argv[2]) << 20, win = (size_t)atol(argv[3]) << 20;
    int nt = atoi(argv[4]);
    if (nt < 1) nt = 1;
    if (nt > 64) nt = 64;
    char *dev, *pin;
    cudaStream_t st;
    CK(cudaSetDevice(0));
    CK(cudaStreamCreate(&st));
    CK(cudaMalloc(&dev, win));
    CK(cudaMemset(dev, 7, win));
    CK(cudaHostAlloc(&pin, win, cudaHostAllocDefault));
    /* 1 and 2: D2H into the pinned buffer, then pwrite (one thread, then nt) */
    for (int t = 1; t <= nt; t = t == 1 && nt > 1 ? nt : nt + 1) {
        unlink(path);
        int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
        double t0 = now();
        for (size_t off = 0; off < total; off += win) {
            size_t n = total - off < win ? total - off : win;
            CK(cudaMemcpyAsync(pin, dev, n, cudaMemcpyDeviceToHost, st));
            CK(cudaStreamSynchronize(st));
            job j = {fd, 0, 1, 0, NULL, off, n, pin};
            run_threads(t, &j);
        }
        report("D2H to pinned, pwrite", t, now() - t0, total);
        close(fd);
    }
    /* 3 and 4: the file's pages mapped and locked in windows, the copy engine writing them */
    for (int pop = 0; pop <= 1; pop++) {
        unlink(path);
        int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
        double t0 = now(), treg = 0, tpop = 0, tcopy = 0, tunreg = 0;
        if (ftruncate(fd, (off_t)total)) perror("ftruncate");
        char *m = (char *)mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED) {
            perror("mmap");
            return 1;
        }
        for (size_t off = 0; off < total; off += win) {
            size_t n = total - off < win ? total - off : win;
            double a = now();
            if (pop) {
                job j = {fd, 0, 1, 1, m, off, n, NULL};
                run_threads(nt, &j);
            }
            double b = now();
            cudaError_t e = cudaHostRegister(m + off, n, cudaHostRegisterPortable);
            if (e != cudaSuccess) {
                printf("cudaHostRegister of a shared mapping of %s refused: %s\n", path, cudaGetErrorString(e));
                (void)cudaGetLastError();
                goto next;
            }
            double c = now();
            CK(cudaMemcpyAsync(m + off, dev, n, cudaMemcpyDeviceToHost, st));
            CK(cudaStreamSynchronize(st));
            double d = now();
            CK(cudaHostUnregister(m + off));
            double f = now();
            tpop += b - a, treg += c - b, tcopy += d - c, tunreg += f - d;
        }
        munmap(m, total);
        report(pop ? "mapped, populated, registered, D2H" : "mapped, registered, D2H", pop ? nt : 1, now() - t0, total);
        printf("   populate %.3f s, register %.3f s, D2H %.3f s, unregister %.3f s\n", tpop, treg, tcopy, tunreg);
    next:
        close(fd);
    }
    unlink(path);
    return 0;
}
