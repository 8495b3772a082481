/* csv_baseline.c - the reference point for CSV ingest speed: one thread, libcsv + strtod, the
 * way a straightforward tool reads a numeric column. Prints bytes, values and MB/s.
 *   cc -O2 tests/bench/csv_baseline.c -lcsv -o csv_baseline && ./csv_baseline file.csv [col] */
#include <csv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    int col, field;
    unsigned long long values;
    double sum;
} state;

static void on_field(void *s, size_t len, void *p)
{
    state *st = p;
    if (st->field++ == st->col) {
        char buf[64];
        if (len >= sizeof buf) len = sizeof buf - 1;
        memcpy(buf, s, len);
        buf[len] = 0;
        char *end;
        double v = strtod(buf, &end);
        if (end != buf) {
            st->sum += v;
            st->values++;
        }
    }
}

static void on_row(int c, void *p)
{
    (void)c;
    ((state *)p)->field = 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    FILE *f = fopen(argv[1], "rb");
    if (!f) return 1;
    state st = {argc > 2 ? atoi(argv[2]) - 1 : 0, 0, 0, 0};
    struct csv_parser p;
    csv_init(&p, 0);
    static char buf[1 << 20];
    size_t n, total = 0;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        csv_parse(&p, buf, n, on_field, on_row, &st);
        total += n;
    }
    csv_fini(&p, on_field, on_row, &st);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
    printf("csv_baseline libcsv+strtod 1 thread: %zu bytes, %llu values, %.3f s, %.1f MB/s (checksum %g)\n", total,
           st.values, s, total / s / 1e6, st.sum);
    csv_free(&p);
    return 0;
}
