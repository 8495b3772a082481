/* test_csv_textparse.c - csv blocks parsed elsewhere (gs_reader_text_parser, io/csv_lines.c), with
 * a parser on the host that does what the GPU backend's does on the device (kernels/numparse.h a
 * line, a quote or one declined line declining the block): every input gives the values, the
 * errors and the line numbers the reader gives without it, for one column and several (in the list's
 * order), whatever the blocks, the threads and where the first block the parser declines falls; a parser's failure ends the read with its
 * message; and the reader offers nothing where it cannot take a parser's values. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../io/io.h"
#include "host_parse.h"
#include "check.h"
#include "paths.h"
#include "xorshift.h"

/* The parser: the device's parse on the host (host_parse.h), or a failure on purpose. */
typedef struct fake {
    int calls, taken, fail;
    char *vals;
    size_t cap;
} fake;

static int fake_parse(void *ctx, const gs_text_block *b, const void **vals, size_t *n, gs_status *st)
{
    fake *f = ctx;
    f->calls++;
    if (f->fail) return gs_fail(st, GS_EDATA, "fake parser: failed on purpose");
    const int rc = host_parse_block(b, &f->vals, &f->cap, n);
    if (rc == GS_ENOMEM) return gs_fail(st, GS_ENOMEM, "fake parser: out of memory");
    if (rc) return rc;
    f->taken++;
    *vals = f->vals;
    return GS_OK;
}

typedef struct result {
    int rc;
    gs_status st;
    char *vals;
    size_t n, es; /* rows, and bytes a row */
} result;

static const char *dir;

/* Read all of the file's column under o, with the parser p (NULL: none). */
static result read_all(const char *path, const gs_read_opts *o, const gs_text_parser *p, int *parses)
{
    result r;
    gs_reader *rd = NULL;
    memset(&r, 0, sizeof r);
    if ((r.rc = gs_reader_open(&rd, path, o, &r.st))) return r;
    if (parses) *parses = gs_reader_parses_text(rd);
    if (p) gs_reader_text_parser(rd, p);
    const size_t es = gs_type_size(o->type) * (size_t)gs_reader_cols(rd);
    r.es = es;
    size_t cap = 0;
    for (;;) {
        size_t got = 0, want = 1000003;
        if (r.n + want > cap) r.vals = realloc(r.vals, (cap = 2 * (r.n + want)) * es);
        if ((r.rc = gs_reader_read(rd, r.vals + r.n * es, want, &got, &r.st)) || !got) break;
        r.n += got;
    }
    gs_reader_close(rd);
    return r;
}

static void write_file(const char *path, const char *s, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f) fwrite(s, 1, n, f), fclose(f);
}

/* The same values (or the same error) with the parser and without, at several block sizes and
 * thread counts; *taken: blocks the parser took over all of them. */
static void same(const char *name, const char *text, size_t len, gs_type t, const char *col, int want_taken)
{
    const char *path = dir_path(dir, "in.csv");
    write_file(path, text, len);
    static const size_t blocks[] = {4096, 65536, 0};
    static const int threads[] = {1, 4};
    int bad = 0, taken = 0;
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++)
        for (size_t h = 0; h < sizeof threads / sizeof threads[0]; h++) {
            gs_read_opts o;
            memset(&o, 0, sizeof o);
            o.format = GS_FMT_CSV;
            o.type = t;
            o.col = col;
            o.threads = threads[h];
            o.block_size = blocks[b];
            fake f = {0};
            const gs_text_parser p = {fake_parse, &f};
            result a = read_all(path, &o, NULL, NULL), c = read_all(path, &o, &p, NULL);
            if (a.rc != c.rc || a.n != c.n || (a.rc && strcmp(a.st.msg, c.st.msg)) ||
                (!a.rc && memcmp(a.vals, c.vals, a.n * a.es))) {
                if (bad++ < 3)
                    printf("# %s: block %zu threads %d: rc %d/%d n %zu/%zu '%s' / '%s'\n", name, blocks[b], threads[h],
                           a.rc, c.rc, a.n, c.n, a.st.msg, c.st.msg);
            }
            taken += f.taken;
            free(a.vals), free(c.vals), free(f.vals);
        }
    CHECK(bad == 0 && (want_taken ? taken > 0 : taken == 0), name, "%d differ; %d blocks taken", bad, taken);
}

/* n rows "i,price,volume" with 4-decimal prices; `extra`, where not NULL, at row at. */
static char *prices(size_t n, size_t at, const char *extra, size_t *len)
{
    size_t cap = n * 48 + 256, k = 0;
    char *s = malloc(cap);
    uint64_t x = 7;
    k += (size_t)snprintf(s, cap, "time,price,volume\n");
    for (size_t i = 0; i < n; i++) {
        if (extra && i == at) k += (size_t)snprintf(s + k, cap - k, "%s", extra);
        const uint64_t r = xorshift64(&x);
        k += (size_t)snprintf(s + k, cap - k, "%zu,%.4f,%llu\n", 1700000000 + i, (double)(r % 10000000) / 1e4,
                              (unsigned long long)(r >> 40));
    }
    *len = k;
    return s;
}

int main(void)
{
    char tmpl[] = "/tmp/gs_textparse_XXXXXX";
    dir = mkdtemp(tmpl);
    if (!dir) return 1;
    size_t len;
    char *s = prices(20000, 0, NULL, &len);
    same("textparse: prices taken, equal", s, len, GS_F64, "price", 1);
    same("textparse: volume as i64, equal", s, len, GS_I64, "volume", 1);
    same("textparse: time as u32, equal", s, len, GS_U32, "1", 1);
    same("textparse: price as f32, equal", s, len, GS_F32, "2", 1);
    same("textparse: price,volume as f64, equal", s, len, GS_F64, "price,volume", 1);
    same("textparse: volume,time as i64 (the list's order), equal", s, len, GS_I64, "volume,time", 1);
    same("textparse: columns 3,1,2 as f64, equal", s, len, GS_F64, "3,1,2", 1);
    same("textparse: last line without its line end", s, len - 1, GS_F64, "price", 1);
    free(s);
    /* a block the parser declines part way: the rest parsed here, values and line numbers as before */
    static const char *const extras[] = {"\n", "5,,7\n", "5,\"1,5\",7\n", "5,1e400,7\n", "5,nan,7\n",
                                         "5,12345678901234567890,7\n", "5,abc,7\n", "5\n", "5, 2.5 ,7\r\n"};
    for (size_t i = 0; i < sizeof extras / sizeof extras[0]; i++) {
        char name[96];
        s = prices(20000, 15000, extras[i], &len);
        snprintf(name, sizeof name, "textparse: row 15000 '%.*s' declined, the same values or error", (int)strcspn(extras[i], "\r\n"), extras[i]);
        same(name, s, len, GS_F64, "price", 1);
        snprintf(name, sizeof name, "textparse: row 15000 '%.*s' declined, two columns", (int)strcspn(extras[i], "\r\n"), extras[i]);
        same(name, s, len, GS_F64, "price,volume", 1);
        free(s);
    }
    /* quotes from the first block: never taken */
    s = prices(3000, 0, "\"5\",\"6\",\"7\"\n", &len);
    same("textparse: quoted first rows, never taken", s, len, GS_F64, "price", 0);
    free(s);
    /* CRLF line ends and a tab delimiter */
    {
        const char *crlf = "a,b\r\n1,2.5\r\n3,4.25\r\n5,-0\r\n";
        same("textparse: CRLF rows", crlf, strlen(crlf), GS_F64, "b", 1);
    }
    /* a failure of the parser ends the read with its message */
    {
        s = prices(1000, 0, NULL, &len);
        const char *path = dir_path(dir, "fail.csv");
        write_file(path, s, len);
        gs_read_opts o;
        memset(&o, 0, sizeof o);
        o.format = GS_FMT_CSV, o.type = GS_F64, o.col = "price", o.threads = 2;
        fake f = {.fail = 1};
        const gs_text_parser p = {fake_parse, &f};
        int parses = 0;
        result r = read_all(path, &o, &p, &parses);
        CHECK(parses && r.rc == GS_EDATA && strstr(r.st.msg, "failed on purpose"), "textparse: the parser's failure is the read's",
              "rc %d '%s'", r.rc, r.st.msg);
        free(r.vals);
        /* where the reader cannot take the values: --rows, --skip-bad, text */
        o.col = "price", o.keep_rows = 1;
        result c = read_all(path, &o, NULL, &parses);
        int none = !parses;
        free(c.vals);
        o.keep_rows = 0, o.skip_bad = 1;
        c = read_all(path, &o, NULL, &parses);
        none += !parses;
        free(c.vals);
        o.skip_bad = 0, o.format = GS_FMT_TEXT, o.col = NULL;
        c = read_all(path, &o, NULL, &parses);
        none += !parses;
        free(c.vals);
        CHECK(none == 3, "textparse: not offered with --rows, --skip-bad or text input", "%d of 3", none);
        free(s);
        unlink(path);
    }
    unlink(dir_path(dir, "in.csv"));
    rmdir(dir);
    return CHECK_DONE();
}
