/* test_part.c - io/part.c without MPI: file layouts and ranges. For raw, npy and zstd of small
 * frames (and npy inside zstd), every range [first, first + count) of a file reads the same
 * elements as the whole file from that point; a file's shards (split at any points) read back
 * concatenated give the whole file; csv and text line ranges cut at line starts give every value
 * once, the header read before each range; a writer into a caller's sink gives the bytes a file
 * writer gives. */
#include "check.h"
#include "paths.h"
#include "xorshift.h"
#include "../../io/io.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[256];

static const char *P(const char *name) { return dir_path(dir, name); }

static int write_file(const char *path, gs_format f, int zstd, size_t frame, const int32_t *v, size_t n)
{
    gs_status st = {0};
    gs_writer *w = NULL;
    gs_write_opts o = {.format = f, .type = GS_I32, .ncols = 1, .rows = (int64_t)n, .colnames = "value",
                       .zstd = zstd, .level = 1, .frame_size = frame, .force = 1, .threads = 2};
    if (gs_writer_open(&w, path, &o, &st) || gs_writer_write(w, v, n, &st) || gs_writer_close(w, &st)) {
        printf("# %s: %s\n", path, st.msg);
        return -1;
    }
    return 0;
}

/* Read all of r into out (cap elements); returns the count, or -1. */
static long read_all(gs_reader *r, int32_t *out, size_t cap)
{
    gs_status st = {0};
    size_t n = 0, got = 0;
    while (!gs_reader_read(r, out + n, cap - n, &got, &st) && got) n += got;
    gs_reader_close(r);
    return st.code ? -1 : (long)n;
}

static void check_ranges(const char *name, const char *path, const int32_t *v, size_t n)
{
    gs_status st = {0};
    gs_layout L;
    gs_read_opts ro = {.type = GS_I32, .threads = 2};
    char t[700];
    snprintf(t, sizeof t, "layout %s", name);
    if (gs_layout_read(&L, path, &ro, &st)) {
        CHECK(0, t, "%s", st.msg);
        return;
    }
    CHECK(L.n == n, t, "n %llu, want %zu", (unsigned long long)L.n, n);
    int32_t *buf = malloc((n + 1) * sizeof *buf);
    int bad = 0;
    uint64_t cuts[] = {0, 1, 2, 255, 256, 257, 1000, n / 3, n / 2, n - 1, n};
    for (size_t a = 0; a < sizeof cuts / sizeof *cuts && !bad; a++)
        for (size_t b = a; b < sizeof cuts / sizeof *cuts && !bad; b++) {
            uint64_t f = cuts[a], e = cuts[b];
            if (f > n || e > n || e < f) continue;
            gs_reader *r = NULL;
            if (gs_reader_open_range(&r, path, &ro, &L, f, e - f, &st)) bad = 1;
            else if (read_all(r, buf, n + 1) != (long)(e - f) || memcmp(buf, v + f, (e - f) * sizeof *v)) bad = 2;
            if (bad) snprintf(t, sizeof t, "range [%llu, %llu): %s", (unsigned long long)f, (unsigned long long)e,
                              bad == 1 ? st.msg : "wrong elements");
        }
    CHECK(!bad, name, "%s", t);
    gs_layout_free(&L);
    free(buf);
}

static void check_lines(const char *name, const char *path, gs_format f, const int32_t *v, size_t n)
{
    gs_status st = {0};
    gs_layout L;
    gs_read_opts ro = {.format = f, .type = GS_I32, .type_given = 1, .threads = 2};
    if (gs_layout_read(&L, path, &ro, &st)) {
        CHECK(0, name, "%s", st.msg);
        return;
    }
    int32_t *buf = malloc((n + 1) * sizeof *buf);
    int bad = 0;
    for (int K = 1; K <= 7 && !bad; K++) {
        size_t got_total = 0;
        uint64_t prev = 0;
        for (int r = 0; r < K && !bad; r++) {
            uint64_t b0 = prev, b1 = L.size;
            if (r + 1 < K && gs_layout_line_start(&L, path, L.size * (uint64_t)(r + 1) / (uint64_t)K, &b1, &st)) bad = 1;
            gs_reader *rd = NULL;
            if (!bad && gs_reader_open_lines(&rd, path, &ro, &L, b0, b1, UINT64_MAX, &st)) bad = 1;
            long got = bad ? -1 : read_all(rd, buf + got_total, n + 1 - got_total);
            if (got < 0) bad = 1;
            else got_total += (size_t)got;
            prev = b1;
        }
        if (!bad && (got_total != n || memcmp(buf, v, n * sizeof *v))) bad = 2;
        if (bad) printf("# K=%d: %s\n", K, bad == 1 ? st.msg : "values differ");
    }
    CHECK(!bad, name, "line ranges do not give the file's values once each");
    gs_layout_free(&L);
    free(buf);
}

typedef struct mem_sink {
    char *buf;
    size_t len, cap;
} mem_sink;

static int mem_write(void *ctx, const void *p, size_t n, gs_status *st)
{
    mem_sink *m = ctx;
    if (m->len + n > m->cap) return gs_fail(st, GS_ENOMEM, "sink full");
    memcpy(m->buf + m->len, p, n);
    m->len += n;
    return GS_OK;
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/gs-part-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) return 1;
    size_t n = 3001;
    int32_t *v = malloc(n * sizeof *v);
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) v[i] = (int32_t)(xorshift64(&x) % 2001) - 1000;
    if (write_file(P("a.raw"), GS_FMT_RAW, 0, 0, v, n) || write_file(P("a.npy"), GS_FMT_NPY, 0, 0, v, n) ||
        write_file(P("a.raw.zst"), GS_FMT_RAW, 1, 1002, v, n) || write_file(P("a.npy.zst"), GS_FMT_NPY, 1, 1024, v, n) ||
        write_file(P("one.raw.zst"), GS_FMT_RAW, 1, 1 << 20, v, n) || write_file(P("a.csv"), GS_FMT_CSV, 0, 0, v, n) ||
        write_file(P("a.txt"), GS_FMT_TEXT, 0, 0, v, n))
        return 1;
    check_ranges("ranges raw", P("a.raw"), v, n);
    check_ranges("ranges npy", P("a.npy"), v, n);
    check_ranges("ranges zstd, frames of 1002 bytes (elements cut across frames)", P("a.raw.zst"), v, n);
    check_ranges("ranges npy in zstd", P("a.npy.zst"), v, n);
    check_ranges("ranges zstd, one frame", P("one.raw.zst"), v, n);
    check_lines("line ranges csv with a header", P("a.csv"), GS_FMT_CSV, v, n);
    check_lines("line ranges text", P("a.txt"), GS_FMT_TEXT, v, n);

    gs_status st = {0};
    gs_layout L;
    gs_read_opts ro = {.type = GS_I32, .threads = 2};
    CHECK(gs_layout_read(&L, NULL, &ro, &st) == GS_EUSAGE, "layout refuses stdin", "code %d", st.code);

    /* A writer into a sink: the bytes of a file writer, for raw and zstd of small frames. */
    for (int z = 0; z < 2; z++) {
        mem_sink m = {malloc(1 << 20), 0, 1 << 20};
        gs_byte_sink k = {mem_write, &m, "mem"};
        gs_write_opts o = {.format = GS_FMT_RAW, .type = GS_I32, .ncols = 1, .rows = -1, .zstd = z, .level = 1,
                           .frame_size = 1000, .threads = 2};
        gs_writer *w = NULL;
        memset(&st, 0, sizeof st);
        int rc = gs_writer_open_sink(&w, &k, &o, "HEAD", 4, &st);
        if (!rc) rc = gs_writer_write(w, v, n, &st);
        if (!rc) rc = gs_writer_close(w, &st);
        /* The same through a file: head bytes first, then the values. */
        FILE *f = fopen(P("w.bin"), "wb");
        char *want = malloc(1 << 20);
        size_t wl = 0;
        if (f && !z) {
            fwrite("HEAD", 1, 4, f);
            fwrite(v, sizeof *v, n, f);
            fclose(f);
            f = fopen(P("w.bin"), "rb");
            wl = fread(want, 1, 1 << 20, f);
        }
        if (f) fclose(f);
        if (z) { /* decompress what the sink got with a reader */
            FILE *g = fopen(P("w.zst"), "wb");
            fwrite(m.buf, 1, m.len, g);
            fclose(g);
            gs_reader *r = NULL;
            gs_read_opts rr = {.format = GS_FMT_RAW, .type = GS_I32, .threads = 2};
            int32_t *back = malloc((n + 2) * sizeof *back);
            long got = gs_reader_open(&r, P("w.zst"), &rr, &st) ? -1 : read_all(r, back, n + 2);
            CHECK(!rc && got == (long)n + 1 && !memcmp(back, "HEAD", 4) && !memcmp(back + 1, v, n * sizeof *v),
                  "writer into a sink, zstd", "rc %d got %ld: %s", rc, got, st.msg);
            free(back);
        } else
            CHECK(!rc && m.len == wl && !memcmp(m.buf, want, wl), "writer into a sink, raw", "rc %d, %zu bytes: %s", rc,
                  m.len, st.msg);
        free(want);
        free(m.buf);
    }
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) printf("# could not remove %s\n", dir);
    free(v);
    return CHECK_DONE();
}
