/* csv_split.c - one core's cost of csv's fast splitter (gs_csv_piece: line and field splitting
 * plus the number parse) per row, on a CSV file in memory: each column of the file selected in
 * turn, as f64 (and as i64 where every value parses as one), the best of 5 passes. Built against
 * the objects of a CPU build (make CUDA=0); the thread's CPU time, so that other jobs on the
 * machine count little:
 *   cc -O2 -Iio tests/bench/csv_split.c $(ls build/cpu/io/*.o build/cpu/common/*.o) -lzstd -lcsv \
 *      -lm -pthread -Wl,--gc-sections -o csv_split
 *   ./csv_split FILE.csv [ncols]          (tests/bench/prices_csv.py writes one: 3 columns) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "csv_lines.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); /* CPU time: the machine may be shared */
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 2) return fprintf(stderr, "usage: csv_split FILE.csv [ncols]\n"), 2;
    FILE *f = fopen(argv[1], "rb");
    if (!f) return perror(argv[1]), 1;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)size);
    if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) return fprintf(stderr, "read failed\n"), 1;
    fclose(f);
    const char *body = memchr(buf, '\n', (size_t)size) + 1; /* after the header */
    int ncols = argc > 2 ? atoi(argv[2]) : 3;
    for (int col = 1; col <= ncols; col++)
        for (int ti = 0; ti < 2; ti++) {
            gs_lparse c = {.type = ti ? GS_I64 : GS_F64, .esize = 8, .col = col, .delim = ',', .trim_sp = 1, .trim_tab = 1};
            gs_piece pc;
            memset(&pc, 0, sizeof pc);
            double best = 1e30;
            for (int rep = 0; rep < 5; rep++) {
                char *vals = pc.vals;
                size_t cap = pc.cap;
                memset(&pc, 0, sizeof pc);
                pc.vals = vals, pc.cap = cap, pc.begin = body, pc.end = buf + size;
                double t0 = now();
                gs_csv_piece(&c, &pc);
                double t = now() - t0;
                if (t < best) best = t;
                if (pc.err) break;
            }
            if (!pc.err)
                printf("column %d as %s: %6.1f ns/row  %6.0f MB/s  (%llu rows)\n", col, ti ? "i64" : "f64",
                       best / (double)pc.n * 1e9, (double)(size - (body - buf)) / best / 1e6, (unsigned long long)pc.n);
            free(pc.vals);
        }
    return 0;
}
