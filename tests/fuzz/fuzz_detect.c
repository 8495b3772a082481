/* fuzz_detect.c - libFuzzer target for the whole reading side as the CLI uses it
 * (gs_reader_open + gs_reader_read, io/io.c): format detection (--from, the npy magic, the
 * file name's extension, raw), the zstd magic that stacks gs_bsrc_open_zstd under the decoder,
 * the file source (parallel pread) and the stdin pipe source, then every decoder to the end.
 *
 * Input: two option bytes, then the bytes of the input file.
 *   byte 0  bits 0-2  the file name: in, in.raw, in.npy, in.csv, in.txt, in.zst, in.npy.zst,
 *                     in.csv.zst
 *           bits 3-5  --from: auto, raw, npy, csv, text, auto, auto, auto
 *           bits 6-7  what the file holds: 0 the bytes; 1 a zstd frame magic and then the bytes
 *                     (arbitrary bytes after a zstd magic: the framing must refuse them cleanly);
 *                     2 the bytes compressed into 1..3 zstd frames; 3 the same, cut short
 *   byte 1  bits 0-2  -t (mod 6), bit 3 whether -t was given, bit 4 threads 1 or 3,
 *           bits 5-6  csv header auto/yes/no/auto, bit 7 --skip-bad
 * csv/text blocks and the zstd window are 4 KiB, so that small inputs cross their edges.
 * The file is written to a temporary directory and read by name; where the name does not decide
 * the format (--from given, or no extension) it is also read from stdin as a pipe. Checks,
 * besides the sanitizers' and libFuzzer's timeout:
 *   - a failure has a one-line message naming the input ("in.csv: ...", "stdin: ...");
 *   - a known count (raw or npy of known size) is what a successful read delivers;
 *   - file and pipe agree (both fail, or the same format, type and values) where the name
 *     decides nothing (no extension or --from given, and no .zst);
 *   - zstd is transparent: the bytes compressed (mode 2) read exactly as the bytes themselves do
 *     under the same name without ".zst"; cut short (mode 3), they never read successfully
 *     (except with --from raw on a name without .zst, which reads them as raw values).
 *
 * Run: bash tests/fuzz/run.sh, or build/fuzz/fuzz_detect -max_len=65536 CORPUS_COPY */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "../../common/pool.h"
#include "fuzz_mem.h"


static char gs_fz_dir[64];

static void gs_fz_cleanup(void)
{
    static const char *const names[] = {"in", "in.raw", "in.npy", "in.csv", "in.txt", "in.zst", "in.npy.zst",
                                        "in.csv.zst"};
    char p[128];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(p, sizeof p, "%s/%s", gs_fz_dir, names[i]);
        unlink(p);
    }
    rmdir(gs_fz_dir);
}

static void gs_fz_write_file(const char *path, const uint8_t *d, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) abort();
    while (n) {
        ssize_t w = write(fd, d, n);
        if (w <= 0) abort();
        d += w;
        n -= (size_t)w;
    }
    close(fd);
}

/* Make fd 0 a pipe holding the bytes (and its end). 0 if they do not fit in a pipe here. */
static int gs_fz_stdin_pipe(const uint8_t *d, size_t n)
{
    int p[2];
    if (pipe(p)) abort();
#ifdef F_SETPIPE_SZ
    fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
#endif
    fcntl(p[1], F_SETFL, O_NONBLOCK);
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(p[1], d + done, n - done);
        if (w <= 0) break;
        done += (size_t)w;
    }
    close(p[1]);
    if (dup2(p[0], 0) < 0) abort();
    close(p[0]);
    return done == n;
}

typedef struct gs_fz_read_result {
    int rc;
    gs_status st;
    gs_format format;
    gs_type type;
    gs_fz_buf vals;
} gs_fz_read_result;

static void gs_fz_read_all(const char *path, const gs_read_opts *o, gs_fz_read_result *r)
{
    gs_reader *rd = NULL;
    memset(r, 0, sizeof *r);
    r->rc = gs_reader_open(&rd, path, o, &r->st);
    char full[160];
    snprintf(full, sizeof full, "%s", path ? path : "stdin");
    if (r->rc) {
        if (rd) abort();
        gs_fz_check_msg(r->rc, &r->st, full);
        return;
    }
    r->format = gs_reader_format(rd);
    r->type = gs_reader_type(rd);
    if (r->format <= GS_FMT_AUTO || r->format > GS_FMT_TEXT || (unsigned)r->type >= GS_NTYPES) abort();
    if (o->format != GS_FMT_AUTO && r->format != o->format) abort();
    if (o->type_given && r->type != o->type) abort();
    int64_t count = gs_reader_count(rd);
    const size_t es = gs_type_size(r->type) * (size_t)gs_reader_cols(rd); /* a row's bytes: reads count rows */
    uint64_t total = 0;
    for (size_t want = 5;; want = want * 11 % 4099 + 1) {
        size_t got = 0;
        gs_fz_reserve(&r->vals, want * es);
        r->rc = gs_reader_read(rd, r->vals.p + r->vals.n, want, &got, &r->st);
        if (r->rc) break;
        if (got > want) abort();
        if (got == 0) break;
        r->vals.n += got * es;
        total += got;
        if (count >= 0 && total > (uint64_t)count) abort();
    }
    gs_fz_check_msg(r->rc, &r->st, full);
    if (r->rc == GS_OK && count >= 0 && total != (uint64_t)count) abort();
    gs_reader_close(rd);
}

static int gs_fz_same(const gs_fz_read_result *a, const gs_fz_read_result *b)
{
    if ((a->rc == GS_OK) != (b->rc == GS_OK)) return 0;
    if (a->rc) return 1;
    return a->format == b->format && a->type == b->type && a->vals.n == b->vals.n &&
           (a->vals.n == 0 || memcmp(a->vals.p, b->vals.p, a->vals.n) == 0);
}

/* Compress into nframes frames (content size and checksum in each, as gpustream writes). */
static void gs_fz_compress(ZSTD_CCtx *cc, const uint8_t *d, size_t n, int nframes, gs_fz_buf *out)
{
    for (int f = 0; f < nframes; f++) {
        size_t b = n * (size_t)f / (size_t)nframes, e = n * (size_t)(f + 1) / (size_t)nframes;
        size_t bound = ZSTD_compressBound(e - b);
        gs_fz_reserve(out, bound);
        ZSTD_CCtx_reset(cc, ZSTD_reset_session_only);
        size_t c = ZSTD_compress2(cc, out->p + out->n, bound, d + b, e - b);
        if (ZSTD_isError(c)) abort();
        out->n += c;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[8] = {"in", "in.raw", "in.npy", "in.csv", "in.txt", "in.zst", "in.npy.zst",
                                         "in.csv.zst"};
    static const gs_format froms[8] = {GS_FMT_AUTO, GS_FMT_RAW, GS_FMT_NPY, GS_FMT_CSV, GS_FMT_TEXT,
                                       GS_FMT_AUTO, GS_FMT_AUTO, GS_FMT_AUTO};
    static ZSTD_CCtx *cc;
    if (!gs_fz_dir[0]) {
        gs_pool_start(3);
        snprintf(gs_fz_dir, sizeof gs_fz_dir, "%s/gs-fuzz-detect-XXXXXX",
                 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
        if (!mkdtemp(gs_fz_dir)) abort();
        atexit(gs_fz_cleanup);
        cc = ZSTD_createCCtx();
        if (!cc) abort();
        ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 1);
        ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
        /* Small csv/text blocks and zstd windows (o.block_size and o.zstd_window below): their
         * edges are crossed on small inputs, and the default 32 MiB blocks and 16+ MiB windows
         * would cost most of each execution. */
    }
    if (size < 2) return 0;
    const uint8_t o0 = data[0], o1 = data[1];
    const char *fname = names[o0 & 7];
    const int mode = o0 >> 6;
    gs_read_opts o;
    memset(&o, 0, sizeof o);
    o.format = froms[(o0 >> 3) & 7];
    o.type = (gs_type)((o1 & 7) % GS_NTYPES);
    o.type_given = (o1 >> 3) & 1;
    o.threads = (o1 >> 4) & 1 ? 3 : 1;
    o.header = (gs_header_mode)(((o1 >> 5) & 3) == 3 ? 0 : (o1 >> 5) & 3);
    o.skip_bad = o1 >> 7;
    o.zstd_window = 4096;
    o.block_size = 4096;
    const uint8_t *in = data + 2;
    size_t len = size - 2;

    gs_fz_buf file = {0};
    switch (mode) {
    case 0: gs_fz_append(&file, in, len); break;
    case 1: gs_fz_append(&file, "\x28\xb5\x2f\xfd", 4); gs_fz_append(&file, in, len); break;
    default: {
        gs_fz_compress(cc, in, len, 1 + (int)(len % 3), &file);
        if (mode == 3) file.n -= 1 + (size_t)(o1 % 8) < file.n ? 1 + (size_t)(o1 % 8) : file.n - 1;
        break;
    }
    }

    char path[160];
    snprintf(path, sizeof path, "%s/%s", gs_fz_dir, fname);
    gs_fz_write_file(path, file.p, file.n);
    gs_fz_read_result byname;
    gs_fz_read_all(path, &o, &byname);
    unlink(path);

    /* The same bytes from a pipe, where the name decides neither the format nor compression
     * (a .zst name says compressed; stdin has no name, so --from raw there means uncompressed). */
    int named_zst = 0;
    gs_format by_ext = gs_format_from_name(fname, &named_zst);
    if ((o.format != GS_FMT_AUTO || by_ext == GS_FMT_AUTO) && !named_zst &&
        gs_fz_stdin_pipe(file.p, file.n)) {
        gs_fz_read_result piped;
        gs_fz_read_all(NULL, &o, &piped);
        if (!gs_fz_same(&byname, &piped)) abort();
        free(piped.vals.p);
    }

    /* zstd is transparent: the plain bytes under the name without ".zst" read the same. (Not
     * with --from raw on a name without .zst: that says "not compressed", so the compressed bytes
     * are the raw values.) */
    if (mode >= 2 && (o.format != GS_FMT_RAW || named_zst)) {
        char plain[160];
        size_t l = strlen(fname);
        snprintf(plain, sizeof plain, "%s/%.*s", gs_fz_dir, (int)(l > 4 && !strcmp(fname + l - 4, ".zst") ? l - 4 : l),
                 fname);
        /* Bytes that start with a zstd magic (legacy v0.5-v0.7 included) would be decompressed
         * again: not comparable. */
        int magic = len >= 4 && ((in[0] >= 0x25 && in[0] <= 0x28 && in[1] == 0xb5 && in[2] == 0x2f && in[3] == 0xfd) ||
                                 (in[3] == 0x18 && in[2] == 0x4d && in[1] == 0x2a && (in[0] & 0xf0) == 0x50));
        if (mode == 2 && !magic) {
            gs_fz_write_file(plain, in, len);
            gs_fz_read_result direct;
            gs_fz_read_all(plain, &o, &direct);
            unlink(plain);
            if (!gs_fz_same(&byname, &direct)) abort();
            free(direct.vals.p);
        }
        if (mode == 3 && byname.rc == GS_OK) abort(); /* a cut zstd stream never reads as complete */
    }
    free(byname.vals.p);
    free(file.p);
    return 0;
}
