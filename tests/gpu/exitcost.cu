/* exitcost.cu - where a short CUDA process spends its time outside the work: the exec, the
 * context's creation, and the process's end, for several ways of ending it.
 *
 *   exitcost [reps]            runs every mode reps times (default 5), prints medians
 *   exitcost --child MODE      one child (what the parent runs)
 *
 * A child writes CLOCK_MONOTONIC stamps (shared by all processes of the host) to stdout: at main's
 * entry, after cudaFree(0), after its work, and just before it ends; the parent stamps the fork and
 * the moment waitpid returns. So "end" is from the child's last instruction to its parent seeing it
 * gone: the runtime's and the driver's teardown of the context, which a shell waits for too.
 * Modes (work = pin 256 MiB of malloc'd memory with cudaHostRegister, 64 MiB cudaMalloc, one copy
 * each way and a kernel, as a streaming run does on a small scale):
 *   init        cudaFree(0), then _exit
 *   work        the work, then _exit (what gpustream does)
 *   work-free   the work, cudaHostUnregister and cudaFree, then _exit
 *   work-reset  the work, cudaDeviceReset, then _exit
 *   work-return the work, then return from main (the runtime's atexit teardown)
 * Build: nvcc -O2 -arch=sm_90 -o build/exitcost tests/gpu/exitcost.cu (tests/gpu/run.sh, step lifecycle). */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define CK(x)                                                                                     \
    do {                                                                                          \
        cudaError_t e_ = (x);                                                                     \
        if (e_ != cudaSuccess) {                                                                  \
            fprintf(stderr, "exitcost: %s: %s\n", #x, cudaGetErrorString(e_));                    \
            _exit(2);                                                                             \
        }                                                                                         \
    } while (0)

__global__ void touch(int *p, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) p[i] += 1;
}

static const char *modes[] = {"init", "work", "work-free", "work-reset", "work-return"};
enum { NMODES = 5 };

static int child(const char *mode)
{
    double t_main = now();
    CK(cudaFree(0));
    double t_init = now();
    const size_t hbytes = (size_t)256 << 20, dbytes = (size_t)64 << 20;
    void *h = NULL;
    int *d = NULL;
    if (strcmp(mode, "init")) {
        h = malloc(hbytes);
        if (!h) _exit(2);
        memset(h, 1, hbytes);
        CK(cudaHostRegister(h, hbytes, cudaHostRegisterDefault));
        CK(cudaMalloc((void **)&d, dbytes));
        CK(cudaMemcpy(d, h, dbytes, cudaMemcpyHostToDevice));
        touch<<<(unsigned)(dbytes / 4 / 256), 256>>>(d, dbytes / 4);
        CK(cudaGetLastError());
        CK(cudaMemcpy(h, d, dbytes, cudaMemcpyDeviceToHost));
    }
    double t_work = now();
    if (!strcmp(mode, "work-free")) {
        CK(cudaHostUnregister(h));
        CK(cudaFree(d));
    } else if (!strcmp(mode, "work-reset")) {
        CK(cudaDeviceReset());
    }
    double t_end = now();
    printf("%.9f %.9f %.9f %.9f\n", t_main, t_init, t_work, t_end);
    fflush(stdout);
    if (!strcmp(mode, "work-return")) return 0;
    _exit(0);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--child")) return child(argv[2]);
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    if (reps < 1 || reps > 100) reps = 5;
    printf("%-12s %9s %9s %9s %9s %9s %9s   (medians of %d, seconds)\n", "mode", "exec", "ctx", "work", "teardown",
           "end", "total", reps);
    for (int m = 0; m < NMODES; m++) {
        double v[6][100];
        for (int r = 0; r < reps + 1; r++) { /* the first is a warm-up */
            int fd[2];
            if (pipe(fd)) return 2;
            double t_fork = now();
            pid_t pid = fork();
            if (pid < 0) return 2;
            if (pid == 0) {
                dup2(fd[1], 1);
                close(fd[0]);
                execl("/proc/self/exe", argv[0], "--child", modes[m], (char *)NULL);
                _exit(3);
            }
            close(fd[1]);
            char buf[256] = {0};
            ssize_t got = 0, g;
            while ((g = read(fd[0], buf + got, sizeof buf - 1 - got)) > 0) got += g;
            int status = 0;
            waitpid(pid, &status, 0);
            double t_reaped = now();
            close(fd[0]);
            double a, b, c, d;
            if (!WIFEXITED(status) || WEXITSTATUS(status) || sscanf(buf, "%lf %lf %lf %lf", &a, &b, &c, &d) != 4) {
                printf("%-12s failed (status %d)\n", modes[m], status);
                break;
            }
            if (!r) continue;
            v[0][r - 1] = a - t_fork;
            v[1][r - 1] = b - a;
            v[2][r - 1] = c - b;
            v[3][r - 1] = d - c;
            v[4][r - 1] = t_reaped - d;
            v[5][r - 1] = t_reaped - t_fork;
            if (r == reps) {
                printf("%-12s", modes[m]);
                for (int k = 0; k < 6; k++) {
                    qsort(v[k], (size_t)reps, sizeof(double), cmp);
                    printf(" %9.4f", v[k][reps / 2]);
                }
                printf("\n");
            }
        }
    }
    return 0;
}
