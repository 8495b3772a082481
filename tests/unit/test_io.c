/* test_io.c - io/ round trips and refusals: raw and npy x six types x sizes, plain and zstd
 * (many small frames), files, stdin and stdout pipes; edge values bit-exact; numpy reading our
 * npy and us reading numpy's; the zstd CLI reading our output and us reading its (one frame,
 * no content size, concatenated, skippable frames); bad inputs and failed outputs, after which
 * no output and no temp file may remain. */
#include "check.h"
#include "paths.h"
#include "xorshift.h"
#include "../../io/io.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256]; /* a fresh directory for every file this test makes */
static const char *tag = ""; /* appended to test names on the small-window pass */

/* Every reader and writer here gets these (zstd_again): the compressed read-ahead window (0: by
 * thread count; small, to cross window edges with little data), and 1 to decode and compress on
 * the calling thread, without the decoder and encoder threads that work ahead. */
static size_t zwindow;
static int zsync;
static int have_zstd_cli, have_numpy;

static const char *P(const char *name) { return dir_path(dir, name); }

/* ---- data ----------------------------------------------------------------------------------- */
static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void) { return xorshift64(&rng); }

/* n values of type t: the edge values first, then random bit patterns (NaN payloads too). */
static void *make_values(gs_type t, size_t n)
{
    size_t es = gs_type_size(t);
    unsigned char *v = malloc(n * es + 1);
    for (size_t i = 0; i < n * es; i++) v[i] = (unsigned char)next_rand();
    const double fe[] = {NAN, -NAN, INFINITY, -INFINITY, -0.0, 0.0, DBL_TRUE_MIN, -DBL_MIN / 3, DBL_MAX, 1.0 / 3};
    const float ff[] = {NAN, -NAN, INFINITY, -INFINITY, -0.0f, 0.0f, FLT_TRUE_MIN, -FLT_MIN / 3, FLT_MAX, 1.0f / 3};
    const int64_t ie[] = {INT64_MIN, INT64_MAX, -1, 0, 1};
    const uint64_t ue[] = {UINT64_MAX, 0, 1, (uint64_t)1 << 63};
    for (size_t i = 0; i < n && i < 10; i++) {
        switch (t) {
        case GS_F64: memcpy(v + i * 8, &fe[i], 8); break;
        case GS_F32: memcpy(v + i * 4, &ff[i], 4); break;
        case GS_I64: if (i < 5) memcpy(v + i * 8, &ie[i], 8); break;
        case GS_U64: if (i < 4) memcpy(v + i * 8, &ue[i], 8); break;
        case GS_I32: { int32_t x[] = {INT32_MIN, INT32_MAX, -1, 0}; if (i < 4) memcpy(v + i * 4, &x[i], 4); } break;
        case GS_U32: { uint32_t x[] = {UINT32_MAX, 0, 1}; if (i < 3) memcpy(v + i * 4, &x[i], 4); } break;
        default: break;
        }
    }
    return v;
}

static int write_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int ok = fwrite(p, 1, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, len = 0;
    unsigned char *b = malloc(cap);
    size_t g;
    while ((g = fread(b + len, 1, cap - len, f)) > 0) {
        len += g;
        if (len == cap) b = realloc(b, cap *= 2);
    }
    fclose(f);
    *n = len;
    return b;
}

/* Write n values with the given options, in pieces of uneven size. */
static int write_vals(const char *path, const gs_write_opts *o, const void *vals, size_t n, gs_status *st)
{
    gs_writer *w;
    int rc = gs_writer_open(&w, path, o, st);
    if (rc) return rc;
    size_t es = gs_type_size(o->type), off = 0, piece = 1;
    while (off < n && rc == GS_OK) {
        size_t k = n - off < piece ? n - off : piece;
        if (o->ncols == 2 && k % 2 && off + k < n) k++;
        rc = gs_writer_write(w, (const char *)vals + off * es, k, st);
        off += k;
        piece = piece * 7 + 3; /* 1, 10, 73, ... : small writes first, then large */
    }
    if (rc) {
        gs_writer_abort(w);
        return rc;
    }
    return gs_writer_close(w, st);
}

/* Read all of path (NULL = stdin) with reads of uneven size; *out malloc'd. */
static int read_vals(const char *path, const gs_read_opts *o, void **out, size_t *n, gs_type *t, gs_status *st)
{
    gs_reader *r;
    *out = NULL;
    *n = 0;
    int rc = gs_reader_open(&r, path, o, st);
    if (rc) return rc;
    *t = gs_reader_type(r);
    size_t es = gs_type_size(*t), cap = 1024, len = 0, want = 3;
    unsigned char *b = malloc(cap * es);
    for (;;) {
        if (len + want > cap) b = realloc(b, (cap = (len + want) * 2) * es);
        size_t got = 0;
        if ((rc = gs_reader_read(r, b + len * es, want, &got, st))) break;
        if (!got) break;
        len += got;
        want = want < (1u << 22) ? want * 5 + 1 : want;
    }
    gs_reader_close(r);
    *out = b;
    *n = len;
    if (rc) {
        free(b);
        *out = NULL;
    }
    return rc;
}

static gs_write_opts wopts(gs_format f, gs_type t, int zstd)
{
    gs_write_opts o = {0};
    o.format = f;
    o.type = t;
    o.ncols = 1;
    o.rows = -1;
    o.zstd = zstd;
    o.level = 1;
    o.frame_size = 4096; /* many frames from little data */
    o.threads = 3;       /* more parts than this 2-core machine has workers */
    o.zstd_sync = zsync;
    return o;
}

static gs_read_opts ropts(gs_type t)
{
    gs_read_opts o = {0};
    o.type = t;
    o.threads = 3;
    o.zstd_window = zwindow;
    o.zstd_sync = zsync;
    return o;
}

/* Files in dir other than those named (NULL-terminated); the first is returned in *name. */
static int stray_files(char *name, size_t cap)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (!strncmp(e->d_name, "keep", 4)) continue; /* inputs the bad-output tests keep */
        if (!n) snprintf(name, cap, "%s", e->d_name);
        n++;
    }
    closedir(d);
    return n;
}

static void clean_dir(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strncmp(e->d_name, "keep", 4)) unlink(P(e->d_name));
    closedir(d);
}

/* ---- stdin / stdout through pipes ----------------------------------------------------------- */
/* Run reading with fd 0 = a pipe fed by a thread with the bytes of `file`, in uneven writes
 * so that reads split elements. If reading stops early, closing the read end ends the feeder
 * with EPIPE (SIGPIPE is ignored, as the CLI does). */
typedef struct feed {
    int fd;
    unsigned char *bytes;
    size_t len;
} feed;

static void *feed_main(void *arg)
{
    feed *f = arg;
    for (size_t off = 0; off < f->len;) {
        size_t k = f->len - off < 4093 ? f->len - off : 4093;
        ssize_t w = write(f->fd, f->bytes + off, k);
        if (w <= 0) break;
        off += (size_t)w;
    }
    close(f->fd);
    return NULL;
}

static int read_via_pipe(const char *file, const gs_read_opts *o, void **out, size_t *n, gs_type *t, gs_status *st)
{
    int pfd[2];
    if (pipe(pfd)) return -1;
    feed f = {pfd[1], NULL, 0};
    f.bytes = slurp(file, &f.len);
    pthread_t th;
    pthread_create(&th, NULL, feed_main, &f);
    int saved = dup(0);
    dup2(pfd[0], 0);
    close(pfd[0]);
    int rc = read_vals(NULL, o, out, n, t, st);
    dup2(saved, 0); /* closes the pipe's read end */
    close(saved);
    pthread_join(th, NULL);
    free(f.bytes);
    return rc;
}

/* Write through stdout = a pipe, drained by a thread here (no fork: the pool's threads are
 * running, and a child of a threaded process may not safely do much). */
typedef struct drain {
    int fd;
    unsigned char *buf;
    size_t len, cap;
} drain;

static void *drain_main(void *arg)
{
    drain *d = arg;
    ssize_t g;
    for (;;) {
        if (d->len == d->cap) d->buf = realloc(d->buf, d->cap = d->cap ? d->cap * 2 : 1 << 16);
        if ((g = read(d->fd, d->buf + d->len, d->cap - d->len)) <= 0) break;
        d->len += (size_t)g;
    }
    return NULL;
}

static int write_via_pipe(const gs_write_opts *o, const void *vals, size_t n, unsigned char **out, size_t *len,
                          gs_status *st)
{
    int dfd[2];
    if (pipe(dfd)) return -1;
    drain d = {dfd[0], NULL, 0, 0};
    pthread_t th;
    pthread_create(&th, NULL, drain_main, &d);
    fflush(stdout);
    int saved = dup(1);
    dup2(dfd[1], 1);
    close(dfd[1]);
    int rc = write_vals(NULL, o, vals, n, st);
    dup2(saved, 1); /* closes the pipe's last write end: the drain sees the end */
    close(saved);
    pthread_join(th, NULL);
    close(dfd[0]);
    *out = d.buf;
    *len = d.len;
    return rc;
}

/* ---- round trips ------------------------------------------------------------------------------ */
static void round_trips(void)
{
    const size_t sizes[] = {0, 1, 1000, (3u << 20) / 4 + 7};
    const gs_format fmts[] = {GS_FMT_RAW, GS_FMT_NPY};
    for (int t = 0; t < GS_NTYPES; t++)
        for (int si = 0; si < 4; si++) {
            size_t n = sizes[si];
            void *vals = make_values((gs_type)t, n);
            size_t bytes = n * gs_type_size((gs_type)t);
            for (int fi = 0; fi < 2; fi++)
                for (int z = 0; z < 2; z++) {
                    char name[160], file[64];
                    snprintf(file, sizeof file, "rt.%s%s", fmts[fi] == GS_FMT_NPY ? "npy" : "raw", z ? ".zst" : "");
                    snprintf(name, sizeof name, "roundtrip %s %s n=%zu%s", gs_type_name((gs_type)t),
                             gs_format_name(fmts[fi]), n, z ? " zstd" : "");
                    gs_write_opts wo = wopts(fmts[fi], (gs_type)t, z);
                    /* npy: the header exact for n=1000 and through zstd (which cannot seek), else patched */
                    if (si == 2 || z) wo.rows = (int64_t)n;
                    gs_status st = {0};
                    int rc = write_vals(P(file), &wo, vals, n, &st);
                    void *back = NULL;
                    size_t got = 0;
                    gs_type bt = (gs_type)t;
                    gs_read_opts ro = ropts((gs_type)t); /* npy finds its type in the header */
                    if (fmts[fi] == GS_FMT_NPY) ro.type = GS_I32;
                    if (!rc) rc = read_vals(P(file), &ro, &back, &got, &bt, &st);
                    CHECK(!rc && bt == (gs_type)t && got == n && !memcmp(back, vals, bytes), name,
                          "rc=%d (%s) type=%d n=%zu of %zu", rc, st.msg, (int)bt, got, n);
                    free(back);
                    /* the same file through stdin (a pipe) */
                    if (si >= 2) {
                        gs_status st2 = {0};
                        back = NULL;
                        rc = read_via_pipe(P(file), &ro, &back, &got, &bt, &st2);
                        char pname[200];
                        snprintf(pname, sizeof pname, "%s via pipe", name);
                        CHECK(!rc && got == n && !memcmp(back, vals, bytes), pname, "rc=%d (%s) n=%zu", rc, st2.msg,
                              got);
                        free(back);
                    }
                    unlink(P(file));
                }
            free(vals);
        }
}

/* stdin that is a regular file ("< file"), and stdout into a pipe. */
static void stdio_paths(void)
{
    size_t n = 100003;
    void *vals = make_values(GS_F64, n);
    gs_status st = {0};
    gs_write_opts wo = wopts(GS_FMT_NPY, GS_F64, 0);
    int rc = write_vals(P("in.npy"), &wo, vals, n, &st);
    int fd = open(P("in.npy"), O_RDONLY);
    int saved = dup(0);
    dup2(fd, 0);
    close(fd);
    void *back = NULL;
    size_t got = 0;
    gs_type t;
    gs_read_opts ro = ropts(GS_I32);
    if (!rc) rc = read_vals("-", &ro, &back, &got, &t, &st);
    dup2(saved, 0);
    close(saved);
    CHECK(!rc && t == GS_F64 && got == n && !memcmp(back, vals, n * 8), "stdin redirected from an npy file",
          "rc=%d (%s)", rc, st.msg);
    free(back);

    for (int z = 0; z < 2; z++) {
        unsigned char *out;
        size_t len;
        gs_status cs = {0};
        wo = wopts(GS_FMT_RAW, GS_F64, z);
        rc = write_via_pipe(&wo, vals, n, &out, &len, &cs);
        int ok = !rc;
        if (ok && z) { /* decode what came through the pipe with our reader */
            write_file(P("piped.zst"), out, len);
            void *b2;
            size_t g2;
            gs_type t2;
            gs_read_opts r2 = ropts(GS_F64);
            ok = !read_vals(P("piped.zst"), &r2, &b2, &g2, &t2, &cs) && g2 == n && !memcmp(b2, vals, n * 8);
            free(b2);
        } else if (ok) {
            ok = len == n * 8 && !memcmp(out, vals, n * 8);
        }
        CHECK(ok, z ? "stdout pipe zstd" : "stdout pipe raw", "rc=%d (%s) len=%zu", rc, cs.msg, len);
        free(out);
    }
    /* npy of unknown length cannot go to a pipe or through zstd */
    unsigned char *out, *f;
    size_t len;
    gs_status cs = {0};
    wo = wopts(GS_FMT_NPY, GS_F64, 0);
    rc = write_via_pipe(&wo, vals, 10, &out, &len, &cs);
    CHECK(rc == GS_EUSAGE && strstr(cs.msg, "npy output of unknown length needs a seekable file"),
          "npy of unknown length to a pipe refused", "rc=%d (%s)", rc, cs.msg);
    free(out);
    wo.rows = 10;
    memset(&cs, 0, sizeof cs);
    rc = write_via_pipe(&wo, vals, 10, &out, &len, &cs);
    CHECK(rc == 0 && len == 128 + 80 && !memcmp(out, "\x93NUMPY", 6), "npy of known length to a pipe",
          "rc=%d (%s) len=%zu", rc, cs.msg, len);
    free(out);
    {   /* npy of unknown length to stdout redirected to a file ("> out.npy", after 3 bytes already
         * there): the header is patched in place */
        int fd = open(P("redir.npy"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (write(fd, "abc", 3) != 3) fd = -1;
        fflush(stdout);
        int saved = dup(1);
        dup2(fd, 1);
        close(fd);
        wo.rows = -1;
        memset(&cs, 0, sizeof cs);
        rc = write_vals(NULL, &wo, vals, 10, &cs);
        dup2(saved, 1);
        close(saved);
        f = slurp(P("redir.npy"), &len);
        CHECK(!rc && len == 3 + 128 + 80 && !memcmp(f, "abc\x93NUMPY", 9) && strstr((char *)f + 13, "'shape': (10,)"),
              "npy of unknown length to stdout redirected to a file", "rc=%d (%s)", rc, cs.msg);
        free(f);
    }
    gs_status zs = {0};
    wo.zstd = 1;
    wo.rows = -1;
    rc = write_vals(P("x.npy.zst"), &wo, vals, 10, &zs);
    CHECK(rc == GS_EUSAGE && access(P("x.npy.zst"), F_OK) != 0, "npy of unknown length through zstd refused",
          "rc=%d (%s)", rc, zs.msg);
    free(vals);
    clean_dir();
}

/* npy details: (n,2), npy inside zstd found by magic, -t mismatch, and numpy both ways. */
static void npy_details(void)
{
    size_t n = 2000;
    void *vals = make_values(GS_I64, n);
    gs_status st = {0};
    gs_write_opts wo = wopts(GS_FMT_NPY, GS_I64, 0);
    wo.ncols = 2;
    int rc = write_vals(P("pairs.npy"), &wo, vals, n, &st);
    size_t len;
    unsigned char *f = rc ? NULL : slurp(P("pairs.npy"), &len);
    CHECK(f && len % 64 == 0 && strstr((char *)f + 10, "'shape': (1000, 2)") && f[127] == '\n' && len == 128 + n * 8,
          "npy (n,2) header patched, 64-aligned", "rc=%d (%s)", rc, st.msg);
    free(f);
    void *back;
    size_t got;
    gs_type t;
    gs_read_opts ro = ropts(GS_I32);
    rc = read_vals(P("pairs.npy"), &ro, &back, &got, &t, &st);
    CHECK(!rc && got == n && t == GS_I64 && !memcmp(back, vals, n * 8), "npy (n,2) read flat", "rc=%d (%s)", rc, st.msg);
    free(back);
    ro.type_given = 1; /* -t i32 against an i64 file */
    memset(&st, 0, sizeof st);
    rc = read_vals(P("pairs.npy"), &ro, &back, &got, &t, &st);
    CHECK(rc && strstr(st.msg, "-t i32 given but the file holds i64"), "npy -t mismatch refused", "rc=%d (%s)", rc,
          st.msg);
    ro.type = GS_I64;
    memset(&st, 0, sizeof st);
    rc = read_vals(P("pairs.npy"), &ro, &back, &got, &t, &st);
    CHECK(!rc && got == n, "npy -t matching accepted", "rc=%d (%s)", rc, st.msg);
    free(back);
    /* npy compressed, with an extension that says nothing: magic bytes decide both */
    wo = wopts(GS_FMT_NPY, GS_U32, 1);
    wo.rows = 777;
    void *u = make_values(GS_U32, 777);
    memset(&st, 0, sizeof st);
    rc = write_vals(P("data.bin.zst"), &wo, u, 777, &st);
    ro = ropts(GS_F64);
    gs_reader *r = NULL;
    if (!rc) rc = gs_reader_open(&r, P("data.bin.zst"), &ro, &st);
    CHECK(!rc && gs_reader_format(r) == GS_FMT_NPY && gs_reader_compressed(r) && gs_reader_type(r) == GS_U32 &&
              gs_reader_count(r) == 777,
          "npy inside zstd detected by magic", "rc=%d (%s)", rc, st.msg);
    gs_reader_close(r);
    free(u);
    free(vals);

    if (!have_numpy) {
        printf("# python3 with numpy not found: numpy interop not tested\n");
        clean_dir();
        return;
    }
    /* numpy loads ours: each type, (n,) and (n,2), header exact and patched */
    FILE *py = fopen(P("check.py"), "w");
    fprintf(py, "import numpy as np, sys\nbad = 0\n");
    for (int ti = 0; ti < GS_NTYPES; ti++)
        for (int c = 1; c <= 2; c++)
            for (int known = 0; known < 2; known++) {
                size_t m = 1000;
                void *v = make_values((gs_type)ti, m);
                char npy[64], raw[64];
                snprintf(npy, sizeof npy, "np_%d_%d_%d.npy", ti, c, known);
                snprintf(raw, sizeof raw, "np_%d_%d_%d.raw", ti, c, known);
                wo = wopts(GS_FMT_NPY, (gs_type)ti, 0);
                wo.ncols = c;
                wo.rows = known ? (int64_t)(m / (size_t)c) : -1;
                memset(&st, 0, sizeof st);
                write_vals(P(npy), &wo, v, m, &st);
                write_file(P(raw), v, m * gs_type_size((gs_type)ti));
                static const char *dt[] = {"<i4", "<i8", "<u4", "<u8", "<f4", "<f8"};
                static const char *ut[] = {"<u4", "<u8", "<u4", "<u8", "<u4", "<u8"};
                fprintf(py,
                        "a = np.load('%s'); b = np.fromfile('%s', dtype='%s')\n"
                        "if a.dtype != np.dtype('%s') or a.shape != %s or not np.array_equal(a.reshape(-1).view('%s'), "
                        "b.view('%s')): print('mismatch %s', a.dtype, a.shape); bad += 1\n",
                        P(npy), P(raw), dt[ti], dt[ti], c == 2 ? "(500, 2)" : "(1000,)", ut[ti], ut[ti], npy);
                free(v);
            }
    fprintf(py, "sys.exit(1 if bad else 0)\n");
    fclose(py);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s", P("check.py"));
    CHECK(system(cmd) == 0, "numpy loads our npy (6 types x (n,) (n,2) x exact/patched header)", "see above");

    /* we load numpy's: each type, v2 header, fortran 1-D, (n,1), (n,2); and refuse '>f8' and '|u1' */
    snprintf(cmd, sizeof cmd,
             "cd %s && /usr/bin/python3 -c \"\n"
             "import numpy as np\n"
             "for t in ['i4','i8','u4','u8','f4','f8']:\n"
             "    a = (np.arange(1001) * 7919 - 3000).astype('<' + t); np.save('keep_np_' + t + '.npy', a); "
             "a.tofile('keep_np_' + t + '.raw')\n"
             "a = np.arange(10, dtype='<f8'); np.lib.format.write_array(open('keep_v2.npy', 'wb'), a, version=(2, 0))\n"
             "np.save('keep_fort.npy', np.asfortranarray(np.arange(12, dtype='<i4').reshape(12, 1)))\n"
             "np.save('keep_pairs.npy', np.arange(20, dtype='<u8').reshape(10, 2))\n"
             "np.save('keep_be.npy', np.arange(5, dtype='>f8'))\n"
             "np.save('keep_u1.npy', np.arange(5, dtype='|u1'))\n"
             "np.save('keep_3d.npy', np.zeros((2, 3, 4), dtype='<i4'))\n\"",
             dir);
    int ok = system(cmd) == 0;
    static const char *tn[] = {"i4", "i8", "u4", "u8", "f4", "f8"};
    for (int ti = 0; ti < GS_NTYPES && ok; ti++) {
        char npy[64], raw[64];
        snprintf(npy, sizeof npy, "keep_np_%s.npy", tn[ti]);
        snprintf(raw, sizeof raw, "keep_np_%s.raw", tn[ti]);
        size_t rl;
        unsigned char *rb = slurp(P(raw), &rl);
        memset(&st, 0, sizeof st);
        ro = ropts(GS_I32);
        rc = read_vals(P(npy), &ro, &back, &got, &t, &st);
        ok = !rc && t == (gs_type)ti && got * gs_type_size(t) == rl && !memcmp(back, rb, rl);
        free(back);
        free(rb);
    }
    CHECK(ok, "we read numpy's npy (6 types)", "rc=%d (%s)", rc, st.msg);
    const struct {
        const char *file;
        size_t n;
        const char *err;
    } cases[] = {{"keep_v2.npy", 10, NULL},
                 {"keep_fort.npy", 12, NULL},
                 {"keep_pairs.npy", 20, NULL},
                 {"keep_be.npy", 0, "unsupported dtype '>f8'"},
                 {"keep_u1.npy", 0, "unsupported dtype '|u1'"},
                 {"keep_3d.npy", 0, "unsupported npy shape (2, 3, 4)"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        memset(&st, 0, sizeof st);
        ro = ropts(GS_I32);
        rc = read_vals(P(cases[i].file), &ro, &back, &got, &t, &st);
        char name[128];
        snprintf(name, sizeof name, "numpy's %s: %s", cases[i].file, cases[i].err ? "refused" : "read");
        if (cases[i].err)
            CHECK(rc == GS_EDATA && strstr(st.msg, cases[i].err) && strstr(st.msg, cases[i].file), name, "rc=%d (%s)",
                  rc, st.msg);
        else
            CHECK(!rc && got == cases[i].n, name, "rc=%d (%s) n=%zu", rc, st.msg, got);
        free(back);
    }
    clean_dir();
}

/* ---- the zstd CLI both ways --------------------------------------------------------------------- */
static int run(const char *fmt, const char *a, const char *b)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, fmt, a, b);
    return system(cmd);
}

static void zstd_interop(void)
{
    if (!have_zstd_cli) {
        printf("# zstd CLI not found: interop not tested\n");
        return;
    }
    size_t n = 300001;
    int32_t *v = make_values(GS_I32, n);
    for (size_t i = 0; i < n; i++) /* compressible: small values, half zero */
        if (i > 10) v[i] = (next_rand() & 1) ? (int32_t)(next_rand() % 1000) : 0;
    write_file(P("src.raw"), v, n * 4);
    gs_status st = {0};
    gs_write_opts wo = wopts(GS_FMT_RAW, GS_I32, 1);
    wo.frame_size = *tag ? 2048 : 65536; /* small window: several frames per window, 586 in all */
    int rc = write_vals(P("ours.zst"), &wo, v, n, &st);
    char name[160];
    if (!*tag) {
        CHECK(!rc && run("zstd -q -t %s", P("ours.zst"), "") == 0, "zstd -t accepts our output", "rc=%d (%s)", rc,
              st.msg);
        CHECK(run("test $(zstd -lv %s 2>/dev/null | awk '/Frames:/ {print $NF}') -eq 19", P("ours.zst"), "") == 0,
              "zstd -lv lists our 19 frames", "see zstd -lv");
        CHECK(run("zstd -q -d -c %s | cmp -s - %s", P("ours.zst"), P("src.raw")) == 0, "zstd -d restores our output",
              "differs");
    }
    {   /* and our reader on our own many frames */
        void *back = NULL;
        size_t got = 0;
        gs_type t;
        gs_read_opts ro = ropts(GS_I32);
        rc = read_vals(P("ours.zst"), &ro, &back, &got, &t, &st);
        snprintf(name, sizeof name, "we read our many frames%s", tag);
        CHECK(!rc && got == n && !memcmp(back, v, n * 4), name, "rc=%d (%s)", rc, st.msg);
        free(back);
        rc = read_via_pipe(P("ours.zst"), &ro, &back, &got, &t, &st);
        snprintf(name, sizeof name, "we read our many frames through stdin%s", tag);
        CHECK(!rc && got == n && !memcmp(back, v, n * 4), name, "rc=%d (%s)", rc, st.msg);
        free(back);
    }

    const struct {
        const char *what, *cmd;
    } theirs[] = {
        {"one frame (zstd -c file)", "zstd -q -c %s > %s"},
        {"no content size (zstd from a pipe)", "cat %s | zstd -q -c > %s"},
        {"multi-block frame, level 19, no checksum", "zstd -q -19 --no-check -B65536 -c %s > %s"},
        {"concatenated files", "zstd -q -c %1$s > %2$s.a && cat %2$s.a %2$s.a > %2$s"},
        {"a skippable frame first", "printf 'P*M\\030\\005\\000\\000\\000hello' > %2$s && zstd -q -c %1$s >> %2$s"},
        {"skippable frames between frames", "zstd -q -c %1$s > %2$s.a && { cat %2$s.a; printf 'Q*M\\030\\000\\000\\000\\000'; "
                                            "cat %2$s.a; printf '_*M\\030\\001\\000\\000\\000x'; } > %2$s"},
    };
    for (size_t i = 0; i < sizeof theirs / sizeof *theirs; i++) {
        int c = run(theirs[i].cmd, P("src.raw"), P("theirs.zst"));
        void *back = NULL;
        size_t got = 0;
        gs_type t;
        gs_read_opts ro = ropts(GS_I32);
        memset(&st, 0, sizeof st);
        rc = c ? -1 : read_vals(P("theirs.zst"), &ro, &back, &got, &t, &st);
        size_t want = i == 3 || i == 5 ? 2 * n : n;
        int ok = !rc && got == want && !memcmp(back, v, n * 4) && (want == n || !memcmp((int32_t *)back + n, v, n * 4));
        snprintf(name, sizeof name, "we read zstd CLI output: %s%s", theirs[i].what, tag);
        CHECK(ok, name, "rc=%d (%s) got %zu of %zu", rc, st.msg, got, want);
        free(back);
        if (i == 1) { /* and the same through stdin */
            memset(&st, 0, sizeof st);
            rc = read_via_pipe(P("theirs.zst"), &ro, &back, &got, &t, &st);
            snprintf(name, sizeof name, "we read zstd CLI output through stdin%s", tag);
            CHECK(!rc && got == n && !memcmp(back, v, n * 4), name, "rc=%d (%s)", rc, st.msg);
            free(back);
        }
    }
    free(v);
    clean_dir();
}

/* ---- bad inputs ----------------------------------------------------------------------------------- */
static void expect_read_error(const char *name, const char *path, gs_type t, int via_pipe, const char *want)
{
    gs_read_opts ro = ropts(t);
    gs_status st = {0};
    void *back = NULL;
    size_t got;
    gs_type bt;
    int rc = via_pipe ? read_via_pipe(path, &ro, &back, &got, &bt, &st) : read_vals(path, &ro, &back, &got, &bt, &st);
    char full[200];
    snprintf(full, sizeof full, "%s%s", name, tag);
    CHECK(rc == GS_EDATA && strstr(st.msg, want), full, "rc=%d msg '%s', wanted '%s'", rc, st.msg, want);
    free(back);
}

static void bad_inputs(void)
{
    char want[600];
    unsigned char junk[1003];
    for (size_t i = 0; i < sizeof junk; i++) junk[i] = (unsigned char)next_rand();
    write_file(P("in.raw"), junk, sizeof junk);
    snprintf(want, sizeof want, "%s: size 1003 bytes is not a multiple of 4 (i32): 3 stray bytes at the end",
             P("in.raw"));
    expect_read_error("raw size not a multiple (file)", P("in.raw"), GS_I32, 0, want);
    expect_read_error("raw size not a multiple (pipe)", P("in.raw"), GS_I32, 1,
                      "stdin: size 1003 bytes is not a multiple of 4 (i32): 3 stray bytes at the end");
    expect_read_error("raw size not a multiple of 8", P("in.raw"), GS_F64, 0, "not a multiple of 8 (f64): 3 stray");
    if (have_zstd_cli) {
        run("zstd -q -c %s > %s", P("in.raw"), P("odd.raw.zst"));
        expect_read_error("raw size not a multiple (zstd)", P("odd.raw.zst"), GS_I32, 0,
                          "size 1003 bytes is not a multiple of 4 (i32): 3 stray bytes at the end");
    }
    gs_status st = {0};
    gs_write_opts wo;

    /* npy: unsupported dtype and lying headers */
    const char *hdr = "{'descr': '>f8', 'fortran_order': False, 'shape': (4,), }";
    unsigned char npy[128 + 64] = "\x93NUMPY\x01\x00";
    size_t hl = 118;
    npy[8] = (unsigned char)hl;
    memset(npy + 10, ' ', hl);
    memcpy(npy + 10, hdr, strlen(hdr));
    npy[127] = '\n';
    write_file(P("be.npy"), npy, 128 + 32);
    snprintf(want, sizeof want, "%s: unsupported dtype '>f8'", P("be.npy"));
    expect_read_error("npy unsupported dtype", P("be.npy"), GS_I32, 0, want);

    double d[1000];
    for (int i = 0; i < 1000; i++) d[i] = i * 0.5;
    gs_write_opts no = wopts(GS_FMT_NPY, GS_F64, 0);
    no.rows = 1000;
    write_vals(P("full.npy"), &no, d, 1000, &st);
    size_t len;
    unsigned char *f = slurp(P("full.npy"), &len);
    write_file(P("short.npy"), f, len - 8);
    snprintf(want, sizeof want, "%s: header says 1000 elements but the file holds 999", P("short.npy"));
    expect_read_error("npy lying header (file)", P("short.npy"), GS_F64, 0, want);
    expect_read_error("npy lying header (pipe)", P("short.npy"), GS_F64, 1,
                      "stdin: header says 1000 elements but the file holds 999");
    f = realloc(f, len + 16);
    memset(f + len, 0, 16);
    write_file(P("long.npy"), f, len + 16);
    expect_read_error("npy lying header, data too long (pipe)", P("long.npy"), GS_F64, 1,
                      "header says 1000 elements but the file holds 1002");
    write_file(P("half.npy"), f, len - 3);
    expect_read_error("npy lying header, partial element", P("half.npy"), GS_F64, 0,
                      "header says 1000 elements (8000 bytes) but the file holds 7997 bytes");
    if (have_zstd_cli) {
        run("zstd -q -c %s > %s", P("short.npy"), P("short.npy.zst"));
        expect_read_error("npy lying header (zstd)", P("short.npy.zst"), GS_F64, 0,
                          "header says 1000 elements but the file holds 999");
    }
    write_file(P("trunchdr.npy"), f, 50);
    expect_read_error("npy truncated header", P("trunchdr.npy"), GS_F64, 0, "truncated npy header");
    free(f);

    /* zstd: truncated and corrupt, multi-frame (batched) and one frame without size (streamed) */
    size_t n = 200000;
    uint32_t *v = make_values(GS_U32, n);
    for (size_t i = 0; i < n; i++) v[i] %= 5000;
    wo = wopts(GS_FMT_RAW, GS_U32, 1);
    wo.frame_size = 65536;
    memset(&st, 0, sizeof st);
    write_vals(P("good.zst"), &wo, v, n, &st);
    f = slurp(P("good.zst"), &len);
    for (size_t cut = 1; cut <= 2; cut++) {
        write_file(P("trunc.zst"), f, cut == 1 ? len - 1 : len / 2);
        snprintf(want, sizeof want, "%s: truncated zstd frame", P("trunc.zst"));
        expect_read_error(cut == 1 ? "truncated zstd (last byte)" : "truncated zstd (half)", P("trunc.zst"), GS_U32, 0,
                          want);
    }
    write_file(P("trunc.zst"), f, 5);
    expect_read_error("truncated zstd (after the magic)", P("trunc.zst"), GS_U32, 0, "truncated zstd frame");
    write_file(P("trunc.zst"), f, 9);
    expect_read_error("truncated zstd (inside the header)", P("trunc.zst"), GS_U32, 0, "truncated zstd frame");
    unsigned char *c = malloc(len + 8);
    memcpy(c, f, len);
    for (size_t i = len / 3; i < len / 3 + 8; i++) c[i] ^= 0x5a;
    write_file(P("corrupt.zst"), c, len);
    expect_read_error("corrupt zstd (batched frames)", P("corrupt.zst"), GS_U32, 0, "corrupt zstd data: ");
    expect_read_error("corrupt zstd through a pipe", P("corrupt.zst"), GS_U32, 1, "stdin: corrupt zstd data: ");
    memcpy(c, f, len);
    memcpy(c + len, "garbage!", 8);
    write_file(P("trailing.zst"), c, len + 8);
    expect_read_error("garbage after zstd frames", P("trailing.zst"), GS_U32, 0, "corrupt zstd data: Unknown frame descriptor");
    free(c);
    free(f);
    if (have_zstd_cli) {
        run("cat %s | zstd -q -c > %s", P("full.npy"), P("stream.zst"));
        f = slurp(P("stream.zst"), &len);
        write_file(P("trunc2.zst"), f, len - 5);
        expect_read_error("truncated zstd (streamed frame)", P("trunc2.zst"), GS_F64, 0, "truncated zstd frame");
        f[len / 2] ^= 0xff;
        f[len / 2 + 1] ^= 0xff;
        write_file(P("corrupt2.zst"), f, len);
        expect_read_error("corrupt zstd (streamed frame)", P("corrupt2.zst"), GS_F64, 0, "corrupt zstd data: ");
        free(f);
    }
    free(v);

    /* unreadable inputs */
    snprintf(want, sizeof want, "%s: No such file or directory", P("missing.raw"));
    expect_read_error("missing input", P("missing.raw"), GS_I32, 0, want);
    snprintf(want, sizeof want, "%s: Is a directory", dir);
    expect_read_error("directory as input", dir, GS_I32, 0, want);
    if (geteuid() != 0) {
        write_file(P("secret.raw"), junk, 1000);
        chmod(P("secret.raw"), 0);
        expect_read_error("unreadable input", P("secret.raw"), GS_I32, 0, "Permission denied");
    } else {
        if (!*tag) printf("# running as root: the permission-denied input case is not testable\n");
    }
    clean_dir();
}

/* ---- bad outputs: nothing may be left behind --------------------------------------------------- */
static void check_clean(const char *name)
{
    char first[256] = "";
    int k = stray_files(first, sizeof first);
    char n2[200];
    snprintf(n2, sizeof n2, "%s: nothing left in the directory", name);
    CHECK(k == 0, n2, "%d files left, e.g. %s", k, first);
}

static void bad_outputs(void)
{
    int32_t v[4096];
    for (int i = 0; i < 4096; i++) v[i] = i;
    gs_status st = {0};
    gs_write_opts wo = wopts(GS_FMT_RAW, GS_I32, 0);

    /* an existing output is kept without -f, replaced with it */
    write_file(P("keep_exists.raw"), "old", 3);
    int rc = write_vals(P("keep_exists.raw"), &wo, v, 10, &st);
    char want[600];
    snprintf(want, sizeof want, "%s: file exists (use -f to overwrite)", P("keep_exists.raw"));
    size_t len;
    unsigned char *f = slurp(P("keep_exists.raw"), &len);
    CHECK(rc == GS_EDATA && !strcmp(st.msg, want) && len == 3, "existing output refused without -f", "rc=%d (%s)", rc, st.msg);
    free(f);
    check_clean("existing output refused");
    wo.force = 1;
    memset(&st, 0, sizeof st);
    rc = write_vals(P("keep_exists.raw"), &wo, v, 10, &st);
    f = slurp(P("keep_exists.raw"), &len);
    CHECK(!rc && len == 40 && !memcmp(f, v, 40), "existing output replaced with -f", "rc=%d (%s)", rc, st.msg);
    free(f);
    check_clean("existing output replaced");
    unlink(P("keep_exists.raw"));
    wo.force = 0;

    /* unwritable output directory */
    memset(&st, 0, sizeof st);
    rc = write_vals(P("nodir/out.raw"), &wo, v, 10, &st);
    snprintf(want, sizeof want, "%s: No such file or directory", P("nodir/out.raw"));
    CHECK(rc == GS_EDATA && !strcmp(st.msg, want), "output in a missing directory", "rc=%d (%s)", rc, st.msg);
    if (geteuid() != 0) {
        mkdir(P("keep_ro"), 0555);
        memset(&st, 0, sizeof st);
        rc = write_vals(P("keep_ro/out.raw"), &wo, v, 10, &st);
        CHECK(rc == GS_EDATA && strstr(st.msg, "Permission denied"), "output in a read-only directory", "rc=%d (%s)",
              rc, st.msg);
        rmdir(P("keep_ro"));
    } else {
        printf("# running as root: the read-only directory case is not testable\n");
    }

    /* a full disk: the error surfaces by close at the latest, for every format and through zstd */
    for (int z = 0; z < 2; z++)
        for (int fm = 0; fm < 2; fm++) {
            gs_write_opts fo = wopts(fm ? GS_FMT_NPY : GS_FMT_RAW, GS_I32, z);
            fo.rows = fm ? 4096 : -1;
            memset(&st, 0, sizeof st);
            rc = write_vals("/dev/full", &fo, v, 4096, &st);
            char name[100];
            snprintf(name, sizeof name, "/dev/full as output (%s%s)", fm ? "npy" : "raw", z ? ", zstd" : "");
            CHECK(rc == GS_EDATA && !strcmp(st.msg, "/dev/full: write failed: No space left on device"), name,
                  "rc=%d (%s)", rc, st.msg);
        }
    {   /* stdout = /dev/full */
        int fd = open("/dev/full", O_WRONLY);
        fflush(stdout);
        int saved = dup(1);
        dup2(fd, 1);
        close(fd);
        memset(&st, 0, sizeof st);
        rc = write_vals(NULL, &wo, v, 10, &st);
        dup2(saved, 1);
        close(saved);
        CHECK(rc == GS_EDATA && !strcmp(st.msg, "stdout: write failed: No space left on device"),
              "stdout = /dev/full fails at close", "rc=%d (%s)", rc, st.msg);
    }
    /* a failure after writing (odd value count for (n,2)) and an abort leave nothing */
    gs_write_opts po = wopts(GS_FMT_NPY, GS_I32, 0);
    po.ncols = 2;
    memset(&st, 0, sizeof st);
    gs_writer *w;
    rc = gs_writer_open(&w, P("pairs.npy"), &po, &st);
    if (!rc) {
        rc = gs_writer_write(w, v, 3, &st);
        if (!rc) rc = gs_writer_close(w, &st);
        else gs_writer_abort(w);
    }
    CHECK(rc == GS_EDATA && strstr(st.msg, "do not make whole rows"), "npy (n,2) with an odd count fails at close",
          "rc=%d (%s)", rc, st.msg);
    check_clean("failed close");
    for (int z = 0; z < 2; z++) {
        gs_write_opts ao = wopts(GS_FMT_RAW, GS_I32, z);
        memset(&st, 0, sizeof st);
        rc = gs_writer_open(&w, P("aborted.raw"), &ao, &st);
        if (!rc) rc = gs_writer_write(w, v, 4096, &st);
        char first[256] = "";
        int temps = stray_files(first, sizeof first);
        /* an unnamed file (O_TMPFILE), or where the filesystem has none, a temp name beside it */
        CHECK(!rc && (temps == 0 || (temps == 1 && !strncmp(first, ".aborted.raw.gs-", 16))) &&
                  access(P("aborted.raw"), F_OK) != 0,
              z ? "zstd output is not under its name until closed" : "output is not under its name until closed",
              "rc=%d temps=%d (%s)", rc, temps, first);
        gs_writer_abort(w);
        check_clean(z ? "aborted zstd writer" : "aborted writer");
    }
    /* the signal handler's path: gs_io_remove_temps removes live temps */
    memset(&st, 0, sizeof st);
    rc = gs_writer_open(&w, P("signalled.raw"), &wo, &st);
    if (!rc) rc = gs_writer_write(w, v, 4096, &st);
    gs_io_remove_temps();
    check_clean("gs_io_remove_temps");
    gs_writer_abort(w); /* its unlink now finds nothing: harmless */

    /* refusing binary data to a terminal (a pty), unless forced */
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    int pts = m >= 0 && grantpt(m) == 0 && unlockpt(m) == 0 ? open(ptsname(m), O_RDWR | O_NOCTTY) : -1;
    if (pts >= 0) {
        for (int force = 0; force < 2; force++) {
            fflush(stdout);
            int saved = dup(1);
            dup2(pts, 1);
            gs_write_opts to = wopts(GS_FMT_RAW, GS_I32, 0);
            to.force = force;
            memset(&st, 0, sizeof st);
            rc = gs_writer_open(&w, NULL, &to, &st);
            if (!rc) gs_writer_abort(w);
            dup2(saved, 1);
            close(saved);
            if (force) CHECK(rc == 0, "binary to a terminal allowed with -f", "rc=%d (%s)", rc, st.msg);
            else
                CHECK(rc == GS_EDATA && !strcmp(st.msg, "refusing to write binary data to a terminal (use -f)"),
                      "binary to a terminal refused", "rc=%d (%s)", rc, st.msg);
        }
        close(pts);
    } else {
        printf("# no pty: the terminal refusal is not tested\n");
    }
    if (m >= 0) close(m);

    /* a closed pipe downstream gives GS_EPIPE */
    {
        int pfd[2];
        if (pipe(pfd) == 0) {
            close(pfd[0]);
            fflush(stdout);
            int saved = dup(1);
            dup2(pfd[1], 1);
            close(pfd[1]);
            memset(&st, 0, sizeof st);
            rc = write_vals(NULL, &wo, v, 4096, &st);
            dup2(saved, 1);
            close(saved);
            CHECK(rc == GS_EPIPE, "closed pipe downstream gives GS_EPIPE", "rc=%d (%s)", rc, st.msg);
        }
    }
    clean_dir();
}

/* Default 16 MiB frames over more than a batch: whole batches compressed straight from the
 * caller, staged batches, parallel staging copies, and decoded batches larger than a read. */
static void large_frames(void)
{
    size_t n = (size_t)7 << 20; /* 56 MiB of i64, mostly zero so the codec is quick */
    int64_t *v = calloc(n, 8);
    for (size_t i = 0; i < n; i += 1 + next_rand() % 64) v[i] = (int64_t)next_rand();
    gs_write_opts wo = wopts(GS_FMT_RAW, GS_I64, 1);
    wo.frame_size = 0; /* the default, 16 MiB */
    gs_status st = {0};
    gs_writer *w;
    int rc = gs_writer_open(&w, P("big.zst"), &wo, &st);
    if (!rc) {
        rc = gs_writer_write(w, v, 1000, &st);                    /* staging begins */
        if (!rc) rc = gs_writer_write(w, v + 1000, n - 1000, &st); /* the rest: large copies */
        if (!rc) rc = gs_writer_close(w, &st);
        else gs_writer_abort(w);
    }
    void *back = NULL;
    size_t got = 0;
    if (!rc) { /* reads of 40 MiB: a 3-frame batch (48 MiB) is decoded aside and copied out */
        gs_reader *r;
        gs_read_opts ro = ropts(GS_I64);
        rc = gs_reader_open(&r, P("big.zst"), &ro, &st);
        back = malloc(n * 8);
        for (size_t g = 1; !rc && g;) {
            size_t cap = n - got < ((size_t)5 << 20) ? n - got : (size_t)5 << 20;
            rc = gs_reader_read(r, (int64_t *)back + got, cap ? cap : 1, &g, &st);
            got += g;
        }
        if (r) gs_reader_close(r);
    }
    CHECK(!rc && got == n && !memcmp(back, v, n * 8), "56 MiB through 16 MiB frames, staged and direct",
          "rc=%d (%s) got %zu of %zu", rc, st.msg, got, n);
    free(back);
    back = NULL;
    wo.frame_size = 1 << 20;
    memset(&st, 0, sizeof st);
    rc = gs_writer_open(&w, P("big2.zst"), &wo, &st);
    if (!rc) {
        rc = gs_writer_write(w, v, n, &st); /* whole batches straight from the caller */
        if (!rc) rc = gs_writer_close(w, &st);
        else gs_writer_abort(w);
    }
    gs_type t;
    gs_read_opts ro = ropts(GS_I64);
    if (!rc) rc = read_vals(P("big2.zst"), &ro, &back, &got, &t, &st);
    CHECK(!rc && got == n && !memcmp(back, v, n * 8), "56 MiB through 1 MiB frames in one write",
          "rc=%d (%s) got %zu of %zu", rc, st.msg, got, n);
    free(back);
    free(v);
    clean_dir();
}

static void formats(void)
{
    int z;
    CHECK(gs_format_from_name("a/b.npy.zst", &z) == GS_FMT_NPY && z == 1 && gs_format_from_name("x.CSV", &z) == GS_FMT_CSV &&
              z == 0 && gs_format_from_name("ticks.i64.zst", &z) == GS_FMT_RAW &&
              gs_format_from_name("data.zst", &z) == GS_FMT_AUTO && z == 1 && gs_format_from_name("-", &z) == GS_FMT_AUTO &&
              gs_format_from_name("dir.npy/file", NULL) == GS_FMT_AUTO,
          "format from file name", "mismatch");
    gs_format f;
    CHECK(!gs_format_parse("txt", &f) && f == GS_FMT_TEXT && !gs_format_parse("npy", &f) && f == GS_FMT_NPY &&
              gs_format_parse("xls", &f) == -1 && !strcmp(gs_format_name(GS_FMT_CSV), "csv"),
          "format names", "mismatch");
}

/* A reader closed long before the end of a zstd file while the decoder thread works ahead, and
 * one whose first read is an error in a later frame: close returns (the thread ends) and the
 * bytes handed out before are the file's. Leaks and races show under the sanitizer builds. */
static void zstd_early_close(void)
{
    size_t n = 1u << 20;
    int32_t *v = make_values(GS_I32, n);
    gs_status st = {0};
    gs_write_opts wo = wopts(GS_FMT_RAW, GS_I32, 1);
    wo.frame_size = 65536; /* 64 frames */
    int rc = write_vals(P("early.zst"), &wo, v, n, &st);
    CHECK(!rc, "early close: input written", "rc=%d (%s)", rc, st.msg);
    for (int k = 0; k < 3 && !rc; k++) {
        gs_reader *r = NULL;
        gs_read_opts ro = ropts(GS_I32);
        ro.threads = 2 + k;
        memset(&st, 0, sizeof st);
        rc = gs_reader_open(&r, P("early.zst"), &ro, &st);
        int32_t first[1000];
        size_t got = 0;
        if (!rc) rc = gs_reader_read(r, first, k == 2 ? 0 : 1000, &got, &st);
        int ok = !rc && (k == 2 ? got == 0 : got > 0 && got <= 1000 && !memcmp(first, v, got * 4));
        if (r) gs_reader_close(r);
        char name[120];
        snprintf(name, sizeof name, "early close after %s, %d threads", k == 2 ? "an empty read" : "one read", 2 + k);
        CHECK(ok, name, "rc=%d (%s) got %zu", rc, st.msg, got);
    }
    /* a bad checksum in the last frame: the bytes before it come out, then the error */
    FILE *f = fopen(P("early.zst"), "r+b");
    int c = f && !fseek(f, -2, SEEK_END) ? fgetc(f) : EOF;
    int flipped = c != EOF && !fseek(f, -1, SEEK_CUR) && fputc(c ^ 0xff, f) != EOF;
    if (f) fclose(f);
    gs_read_opts ro = ropts(GS_I32);
    void *back = NULL;
    size_t got = 0;
    gs_type t;
    memset(&st, 0, sizeof st);
    rc = flipped ? read_vals(P("early.zst"), &ro, &back, &got, &t, &st) : -1;
    CHECK(rc == GS_EDATA && strstr(st.msg, "early.zst"), "a bad last frame is an error behind the decoder thread",
          "rc=%d (%s)", rc, st.msg);
    free(back);
    free(v);
    unlink(P("early.zst"));
}

/* zstd interop and bad inputs again, with the codec threads on or off and a window size. */
static void zstd_again(int sync, size_t window, const char *t)
{
    zsync = sync;
    zwindow = window;
    tag = t;
    zstd_interop();
    bad_inputs();
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/gs_test_io.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    signal(SIGPIPE, SIG_IGN); /* as the CLI does: a closed pipe is EPIPE, not death */
    have_zstd_cli = system("zstd --version > /dev/null 2>&1") == 0;
    have_numpy = system("/usr/bin/python3 -c 'import numpy' > /dev/null 2>&1") == 0;
    formats();
    round_trips();
    stdio_paths();
    npy_details();
    zstd_interop();
    large_frames();
    bad_inputs();
    /* again with a 5000-byte window: a batch of one or two frames, frames larger than the window,
     * refills inside headers and frames; and both ways on the reading thread (without the decoder
     * and encoder threads that work ahead) */
    zstd_again(0, 5000, " (small window)");
    zstd_again(1, 0, " (decoded on the reading thread)");
    zstd_again(1, 5000, " (decoded on the reading thread, small window)");
    zsync = 0;
    zwindow = 0;
    tag = "";
    zstd_early_close();
    bad_outputs();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) printf("# could not remove %s\n", dir);
    return CHECK_DONE();
}
