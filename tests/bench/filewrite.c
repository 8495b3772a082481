/* tests/bench/filewrite.c - how fast one output file takes bytes, by way of writing them: one
 * write() stream (what a single writer does), T threads of pwrite at offsets (what gpustream's file
 * sink does for raw and npy values), T threads copying into a shared mapping after
 * MADV_POPULATE_WRITE of their range (faults taken in bulk, outside the file's write lock).
 * Linux takes a file's inode lock around every buffered write on tmpfs, ext4 and XFS, so the
 * pwrite threads may run one at a time; this measures whether they do on the machine at hand.
 *   cc -O2 -pthread -o filewrite tests/bench/filewrite.c && ./filewrite /dev/shm/fw.out 2048 16
 * (file, MiB, threads); prints seconds and GB/s per way, best of 3. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PIECE ((size_t)16 << 20) /* one engine chunk */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct job {
    int fd, way, id, nt;
    size_t total;
    const char *src;
    char *map;
} job;

static void *work(void *arg)
{
    job *j = arg;
    for (size_t off = (size_t)j->id * PIECE; off < j->total; off += (size_t)j->nt * PIECE) {
        size_t n = j->total - off < PIECE ? j->total - off : PIECE;
        if (j->way == 1) {
            for (size_t done = 0; done < n;) {
                ssize_t r = pwrite(j->fd, j->src + done, n - done, (off_t)(off + done));
                if (r <= 0) { perror("pwrite"); exit(1); }
                done += (size_t)r;
            }
        } else {
#ifdef MADV_POPULATE_WRITE
            (void)madvise(j->map + off, n, MADV_POPULATE_WRITE);
#endif
            memcpy(j->map + off, j->src, n);
        }
    }
    return NULL;
}

/* way 0: one write() stream; 1: nt threads of pwrite; 2: nt threads into a mapping */
static double run(const char *path, size_t total, int way, int nt, const char *src)
{
    unlink(path);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(path); exit(1); }
    double t0 = now();
    if (way == 0) {
        for (size_t off = 0; off < total;) {
            size_t n = total - off < PIECE ? total - off : PIECE;
            for (size_t done = 0; done < n;) {
                ssize_t r = write(fd, src + done, n - done);
                if (r <= 0) { perror("write"); exit(1); }
                done += (size_t)r;
            }
            off += n;
        }
    } else {
        char *map = NULL;
        if (way == 2) {
            if (ftruncate(fd, (off_t)total) != 0) { perror("ftruncate"); exit(1); }
            map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (map == MAP_FAILED) { perror("mmap"); exit(1); }
        }
        pthread_t th[256];
        job js[256];
        for (int i = 0; i < nt; i++) {
            js[i] = (job){fd, way, i, nt, total, src, map};
            pthread_create(&th[i], NULL, work, &js[i]);
        }
        for (int i = 0; i < nt; i++) pthread_join(th[i], NULL);
        if (map) munmap(map, total);
    }
    close(fd);
    double t = now() - t0;
    unlink(path);
    return t;
}

int main(int argc, char **argv)
{
    if (argc < 4) { fprintf(stderr, "usage: filewrite FILE MIB THREADS\n"); return 2; }
    const size_t total = (size_t)atol(argv[2]) << 20;
    const int nt = atoi(argv[3]) < 1 ? 1 : atoi(argv[3]) > 256 ? 256 : atoi(argv[3]);
    char *src = malloc(PIECE);
    if (!src) return 1;
    for (size_t i = 0; i < PIECE; i++) src[i] = (char)(i * 7);
    const char *names[] = {"one write() stream", "pwrite threads", "mapping threads"};
    for (int way = 0; way < 3; way++) {
        double best = 1e30;
        for (int r = 0; r < 3; r++) {
            double t = run(argv[1], total, way, nt, src);
            if (t < best) best = t;
        }
        printf("%-20s %3d thread(s): %.3f s  %.2f GB/s\n", names[way], way ? nt : 1, best, (double)total / best / 1e9);
    }
    free(src);
    return 0;
}
