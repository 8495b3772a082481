/* numconv.c - one core's cost of io/numfmt.c per value, in ns: gs_num_parse and gs_num_format
 * over 10^7 values of three kinds (a 4-decimal price walk as f64, normal(0, 1000) f64 at full
 * precision (17 digits), the price walk as f32), the best of 5 passes, in the thread's CPU time
 * (other jobs on the machine count little), and for the 17-digit values Dragonbox's digits alone.
 * Built against the objects of a CPU build (make CUDA=0):
 *   cc -O2 -Iio tests/bench/numconv.c build/cpu/io/numfmt.o build/cpu/io/numconv.cpp.o -lm \
 *      -Wl,--gc-sections -o numconv
 *   ./numconv [n] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io_internal.h"
#include "numconv.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); /* CPU time: the machine may be shared */
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t rng = 0x2545f4914f6cdd1dull;
static double uniform(void) /* (0, 1) */
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

static void run(const char *name, gs_type t, const void *vals, size_t n)
{
    size_t es = t == GS_F32 ? 4 : 8;
    char *text = malloc(n * 32);
    size_t *off = malloc((n + 1) * sizeof *off);
    void *back = malloc(n * es);
    double best_f = 1e30, best_p = 1e30;
    volatile size_t sink = 0;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = now();
        size_t o = 0;
        for (size_t i = 0; i < n; i++) {
            off[i] = o;
            o += (size_t)gs_num_format(text + o, t, (const char *)vals + i * es);
        }
        off[n] = o;
        double t1 = now();
        size_t bad = 0;
        for (size_t i = 0; i < n; i++)
            bad += gs_num_parse(text + off[i], off[i + 1] - off[i], t, (char *)back + i * es) != 0;
        double t2 = now();
        sink += bad + o;
        if (t1 - t0 < best_f) best_f = t1 - t0;
        if (t2 - t1 < best_p) best_p = t2 - t1;
    }
    int same = memcmp(vals, back, n * es) == 0;
    printf("%-28s format %6.1f ns/value   parse %6.1f ns/value   %4.1f B/value%s\n", name, best_f / (double)n * 1e9,
           best_p / (double)n * 1e9, (double)off[n] / (double)n, same ? "" : "   (DIFFERENT VALUES BACK)");
    free(text), free(off), free(back);
}

/* The shortest digits alone (Dragonbox, io/numconv.cpp), without the layout: what formatting
 * costs at least. */
static void digits_only(const char *name, const double *vals, size_t n)
{
    double best = 1e30;
    volatile uint64_t sink = 0;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = now();
        uint64_t acc = 0;
        for (size_t i = 0; i < n; i++) {
            const gs_decimal d = gs_numconv_shortest_f64(fabs(vals[i]));
            acc += d.digits + (uint64_t)d.e10;
        }
        double t1 = now();
        sink += acc;
        if (t1 - t0 < best) best = t1 - t0;
    }
    printf("%-28s digits %6.1f ns/value\n", name, best / (double)n * 1e9);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)atof(argv[1]) : 10000000;
    double *walk = malloc(n * sizeof *walk), *normal = malloc(n * sizeof *normal);
    float *walk32 = malloc(n * sizeof *walk32);
    double p = 100;
    for (size_t i = 0; i < n; i++) {
        p += uniform() < 0.5 ? -0.01 : 0.01;
        walk[i] = round(p * 1e4) / 1e4;
        walk32[i] = (float)walk[i];
        normal[i] = 1000 * sqrt(-2 * log(uniform())) * cos(6.283185307179586 * uniform());
    }
    run("f64 prices (4 decimals)", GS_F64, walk, n);
    run("f64 normal, 17 digits", GS_F64, normal, n);
    digits_only("f64 normal, 17 digits", normal, n);
    run("f32 prices", GS_F32, walk32, n);
    return 0;
}
