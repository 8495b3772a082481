/* file.c - the bottom of io/'s input side: byte sources over files and stdin, and the peek
 * buffer any source can be given (the sinks over files and stdout: io/file_sink.c).
 *
 * Sources. A regular file is read with several threads at once: a large read is split into
 * pieces that the pool reads with pread straight into the caller's buffer (one thread copying
 * out of the page cache tops out near 9 GB/s; PCIe wants 50). Small reads are served from an
 * internal block that is itself filled the same way. Pipes, terminals and files of unknown
 * size (st_size 0, as /proc has) are read sequentially in large reads, the pipe enlarged first. */
#include "io_internal.h"
#include "../common/pool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#define GS_PIECE_MIN ((size_t)1 << 20)  /* smallest pread worth handing to another thread */
#define GS_DIRECT_MIN ((size_t)4 << 20) /* reads this large skip the internal block */
#define GS_BLOCK ((size_t)8 << 20)      /* internal block for small reads */
#define GS_PIPE_READ ((size_t)1 << 20)  /* one read() from a pipe; the pipe holds at most this */

/* Retry a read/write interrupted by a signal handler that did not end the run. */
static ssize_t gs_read_fd(int fd, void *buf, size_t n)
{
    ssize_t r;
    do r = read(fd, buf, n);
    while (r < 0 && errno == EINTR);
    return r;
}

void gs_io_grow_pipe(int fd)
{
#ifdef F_SETPIPE_SZ
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISFIFO(sb.st_mode)) return;
    long max = 1 << 20;
    int pf = open("/proc/sys/fs/pipe-max-size", O_RDONLY | O_CLOEXEC);
    if (pf >= 0) {
        char txt[32];
        ssize_t n = gs_read_fd(pf, txt, sizeof txt - 1);
        if (n > 0) {
            txt[n] = 0;
            max = strtol(txt, NULL, 10);
        }
        close(pf);
    }
    /* An unprivileged user over pipe-user-pages-soft gets EPERM for large sizes: step down. */
    for (long sz = max; sz >= 65536; sz /= 2) {
        int cur = fcntl(fd, F_GETPIPE_SZ);
        if (cur >= sz) return;
        if (fcntl(fd, F_SETPIPE_SZ, (int)sz) >= 0) return;
    }
#else
    (void)fd;
#endif
}

/* ---- peek: a prefix buffer that any byte source can be given ----------------------------------
 * The peeked bytes hang off the source (s->peek); the source's read and close are swapped for ones
 * that serve the prefix first and restore the originals once it is drained. */
typedef struct gs_peek {
    int (*read)(gs_bsrc *, void *, size_t, size_t *, gs_status *);
    void (*close)(gs_bsrc *);
    unsigned char *buf;
    size_t len, pos, cap;
} gs_peek;

/* Give the source back its own read and close. */
static void gs_peek_unhook(gs_bsrc *s)
{
    gs_peek *p = s->peek;
    s->peek = NULL;
    s->read = p->read;
    s->close = p->close;
    free(p->buf);
    free(p);
}

static int gs_peek_read(gs_bsrc *s, void *buf, size_t cap, size_t *got, gs_status *st)
{
    gs_peek *p = s->peek;
    size_t n = p->len - p->pos < cap ? p->len - p->pos : cap;
    memcpy(buf, p->buf + p->pos, n);
    p->pos += n;
    *got = n;
    if (p->pos < p->len) return GS_OK;
    gs_peek_unhook(s);
    if (n == cap) return GS_OK;
    /* Drained: fill the rest of this read from the source, so the prefix costs no short read. */
    size_t more = 0;
    int rc = s->read(s, (unsigned char *)buf + n, cap - n, &more, st);
    *got = n + more;
    return rc;
}

static void gs_peek_close(gs_bsrc *s)
{
    gs_peek_unhook(s);
    s->close(s);
}

int gs_bsrc_peek(gs_bsrc *s, void *buf, size_t n, size_t *got, gs_status *st)
{
    *got = 0;
    gs_peek *p = s->peek;
    if (!p && s->look) {
        int answered = 0, rc = s->look(s, buf, n, got, &answered, st);
        if (rc || answered) return rc;
    }
    if (!p) {
        if (!(p = calloc(1, sizeof *p))) return gs_fail(st, GS_ENOMEM, "%s: out of memory", s->name);
        p->read = s->read;
        p->close = s->close;
        s->peek = p;
        s->read = gs_peek_read;
        s->close = gs_peek_close;
    }
    if (p->pos) { /* keep the unread prefix at the start */
        memmove(p->buf, p->buf + p->pos, p->len - p->pos);
        p->len -= p->pos;
        p->pos = 0;
    }
    if (p->cap < n) {
        unsigned char *nb = realloc(p->buf, n);
        if (!nb) return gs_fail(st, GS_ENOMEM, "%s: out of memory", s->name);
        p->buf = nb;
        p->cap = n;
    }
    int rc = GS_OK;
    while (p->len < n) { /* the source may give the prefix in pieces */
        size_t g = 0;
        if ((rc = p->read(s, p->buf + p->len, n - p->len, &g, st)) || !g) break;
        p->len += g;
    }
    *got = p->len < n ? p->len : n;
    memcpy(buf, p->buf, *got);
    return rc;
}

/* ---- file and stdin sources ------------------------------------------------------------------- */
typedef struct gs_fsrc {
    gs_bsrc base;
    int fd;
    int is_stdin;
    int seekable;     /* regular file of known size: parallel pread */
    uint64_t off;     /* next file offset to read (seekable) */
    int threads;      /* pieces a read may be split into */
    unsigned char *blk; /* internal block for small reads */
    size_t blk_len, blk_pos;
    char *path;
    const unsigned char *map; /* views: the file mapped read-only up to its size at open (map_len) */
    size_t map_len;
    int nomap;        /* mmap refused: no views */
    uint64_t end;     /* a seekable file's size at open: where reading ends */
    uint64_t hi;      /* the furthest offset read (bytes are counted consumed once, the block's included) */
} gs_fsrc;

typedef struct gs_piece {
    unsigned char *buf;
    uint64_t off;
    size_t len, got;
    int err;
} gs_piece;

typedef struct gs_pread_job {
    int fd;
    gs_piece *pieces;
} gs_pread_job;

static void gs_pread_part(void *ctx, size_t part, size_t nparts)
{
    (void)nparts;
    gs_pread_job *j = ctx;
    gs_piece *p = &j->pieces[part];
    while (p->got < p->len) {
        ssize_t r = pread(j->fd, p->buf + p->got, p->len - p->got, (off_t)(p->off + p->got));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            p->err = errno;
            return;
        }
        if (r == 0) return; /* the file shrank */
        p->got += (size_t)r;
    }
}

/* Read exactly len bytes at off into buf with up to s->threads preads in parallel. */
/* Whether a regular file's st_size is its size: not on the kernel's pseudo filesystems (/proc,
 * /sys, debugfs, ...), whose files say 0 and still have bytes to read. */
static int gs_size_is_real(int fd)
{
    static const long pseudo[] = {0x9fa0 /* proc */, 0x62656572 /* sysfs */, 0x64626720 /* debugfs */,
                                  0x74726163 /* tracefs */, 0x27e0eb /* cgroup */, 0x63677270 /* cgroup2 */,
                                  0x6165676C /* pstore */, 0xcafe4a11 /* bpf */, 0x73636673 /* securityfs */};
    struct statfs fs;
    if (fstatfs(fd, &fs) != 0) return 0;
    for (size_t i = 0; i < sizeof pseudo / sizeof *pseudo; i++)
        if ((long)fs.f_type == pseudo[i]) return 0;
    return 1;
}

/* Bytes up to offset `to` have been read: count those not counted before. */
static void gs_fsrc_reached(gs_fsrc *s, uint64_t to)
{
    if (to <= s->hi) return;
    s->base.consumed += to - s->hi;
    s->hi = to;
}

static int gs_fsrc_pread(gs_fsrc *s, unsigned char *buf, size_t len, gs_status *st)
{
    enum { MAXP = 64 };
    gs_piece pieces[MAXP];
    size_t np = len / GS_PIECE_MIN;
    if (np > (size_t)s->threads) np = (size_t)s->threads;
    if (np > MAXP) np = MAXP;
    if (np < 1) np = 1;
    for (size_t i = 0; i < np; i++) {
        size_t b, e;
        gs_split(len, np, i, &b, &e);
        pieces[i] = (gs_piece){buf + b, s->off + b, e - b, 0, 0};
    }
    gs_pread_job j = {s->fd, pieces};
    gs_parallel_for(np, gs_pread_part, &j);
    for (size_t i = 0; i < np; i++) {
        if (pieces[i].err) return gs_fail_errno(st, pieces[i].err, "%s: read failed", s->base.name);
        if (pieces[i].got < pieces[i].len)
            return gs_fail(st, GS_EDATA, "%s: file shrank while being read (expected %lld bytes)",
                           s->base.name, (long long)s->base.size);
    }
    gs_fsrc_reached(s, s->off + len);
    s->off += len;
    return GS_OK;
}

/* Sequential read (pipe, terminal, file of unknown size): fill cap unless the input ends, so
 * callers get few, large pieces. */
static int gs_fsrc_stream(gs_fsrc *s, unsigned char *buf, size_t cap, size_t *got, gs_status *st)
{
    size_t n = 0;
    while (n < cap) {
        size_t want = cap - n;
        if (want > GS_PIPE_READ && !s->seekable) want = GS_PIPE_READ;
        ssize_t r = gs_read_fd(s->fd, buf + n, want);
        if (r < 0) return gs_fail_errno(st, errno, "%s: read failed", s->base.name);
        if (r == 0) break;
        n += (size_t)r;
        s->base.consumed += (uint64_t)r;
    }
    *got = n;
    return GS_OK;
}

static int gs_fsrc_read(gs_bsrc *b, void *buf, size_t cap, size_t *got, gs_status *st)
{
    gs_fsrc *s = (gs_fsrc *)b;
    *got = 0;
    if (cap == 0) return GS_OK;
    if (!s->seekable) return gs_fsrc_stream(s, buf, cap, got, st);
    if (s->blk_pos == s->blk_len) {
        uint64_t left = (uint64_t)s->base.size - s->off;
        if (left == 0) return GS_OK;
        if (cap >= GS_DIRECT_MIN || cap >= left) { /* straight into the caller's buffer */
            size_t n = left < cap ? (size_t)left : cap;
            int rc = gs_fsrc_pread(s, buf, n, st);
            if (rc == GS_OK) *got = n;
            return rc;
        }
        size_t n = left < GS_BLOCK ? (size_t)left : GS_BLOCK;
        /* The first block is the largest one needed (what is left only shrinks): a small file
         * gets a block of its size. */
        if (!s->blk && !(s->blk = malloc(n))) return gs_fail(st, GS_ENOMEM, "%s: out of memory", s->base.name);
        int rc = gs_fsrc_pread(s, s->blk, n, st);
        if (rc) return rc;
        s->blk_len = n;
        s->blk_pos = 0;
    }
    size_t n = s->blk_len - s->blk_pos < cap ? s->blk_len - s->blk_pos : cap;
    memcpy(buf, s->blk + s->blk_pos, n);
    s->blk_pos += n;
    *got = n;
    return GS_OK;
}

/* Views (gs_bsrc.view). The mapping never reaches past the size read at open, so a file that grows
 * is read as it was then (as the preads read it), and before each view the file's size now is
 * checked: one that shrank below the view is an error, so nothing hands out pages past its end,
 * whose touch would raise SIGBUS. A file that shrinks after a view was handed out: the pages a
 * device locked (cudaHostRegister) keep the bytes they held; any other reader of them would fault,
 * so views go only to a backend that locks them (pipeline/direct.c). */
static int gs_fsrc_view(gs_bsrc *b, size_t cap, int take, const void **p, size_t *got, gs_status *st)
{
    gs_fsrc *s = (gs_fsrc *)b;
    *p = NULL;
    *got = 0;
    if (!s->seekable || s->nomap || b->peek || b->size <= 0) return GS_OK;
    /* bytes the internal block holds unread are given again from the mapping (the block dropped) */
    const uint64_t at = s->off - (s->blk_len - s->blk_pos);
    const uint64_t end = s->end, left = end > at ? end - at : 0;
    if (!left || end > SIZE_MAX) return GS_OK;
    if (!s->map) {
        void *m = mmap(NULL, (size_t)end, PROT_READ, MAP_SHARED, s->fd, 0);
        if (m == MAP_FAILED) {
            s->nomap = 1;
            return GS_OK;
        }
        s->map = m;
        s->map_len = (size_t)end;
    }
    const size_t n = left < cap ? (size_t)left : cap;
    struct stat sb;
    if (fstat(s->fd, &sb) != 0) return gs_fail_errno(st, errno, "%s", b->name);
    if ((uint64_t)sb.st_size < at + n)
        return gs_fail(st, GS_EDATA, "%s: file shrank while being read (expected %lld bytes)", b->name,
                       (long long)b->size);
    *p = s->map + at;
    *got = n;
    if (take) {
        s->blk_pos = s->blk_len = 0;
        s->off = at + n;
        gs_fsrc_reached(s, s->off);
    }
    return GS_OK;
}

static void gs_fsrc_close(gs_bsrc *b)
{
    gs_fsrc *s = (gs_fsrc *)b;
    if (s->map) munmap((void *)s->map, s->map_len);
    if (!s->is_stdin && s->fd >= 0) close(s->fd);
    free(s->blk);
    free(s->path);
    free(s);
}

int gs_bsrc_open_file(gs_bsrc **out, const char *path, int threads, gs_status *st)
{
    *out = NULL;
    int is_stdin = !path || !strcmp(path, "-");
    gs_fsrc *s = calloc(1, sizeof *s);
    if (!s || (!is_stdin && !(s->path = strdup(path)))) {
        free(s);
        return gs_fail(st, GS_ENOMEM, "out of memory");
    }
    s->base.read = gs_fsrc_read;
    s->base.close = gs_fsrc_close;
    s->base.view = gs_fsrc_view;
    s->base.name = is_stdin ? "stdin" : s->path;
    s->base.size = -1;
    s->is_stdin = is_stdin;
    s->threads = threads > 0 ? threads : gs_pool_threads();
    if (is_stdin) {
        s->fd = 0;
    } else {
        do s->fd = open(path, O_RDONLY | O_CLOEXEC);
        while (s->fd < 0 && errno == EINTR);
        if (s->fd < 0) {
            int e = errno;
            gs_fsrc_close(&s->base);
            return gs_fail_errno(st, e, "%s", path);
        }
    }
    struct stat sb;
    if (fstat(s->fd, &sb) != 0) {
        int e = errno;
        gs_fsrc_close(&s->base);
        return gs_fail_errno(st, e, "%s", is_stdin ? "stdin" : path);
    }
    if (S_ISDIR(sb.st_mode)) {
        gs_fsrc_close(&s->base);
        return gs_fail_errno(st, EISDIR, "%s", is_stdin ? "stdin" : path);
    }
    /* A regular file of known size is read at offsets, from where stdin's offset stands if it
     * is one ("< file"); st_size 0 may mean a /proc-like file, so it is streamed. */
    if (S_ISREG(sb.st_mode) && sb.st_size > 0) {
        off_t at = is_stdin ? lseek(s->fd, 0, SEEK_CUR) : 0;
        if (at >= 0 && at <= sb.st_size) {
            s->seekable = 1;
            s->off = s->hi = (uint64_t)at;
            s->base.size = (int64_t)(sb.st_size - at);
            s->end = (uint64_t)sb.st_size;
#ifdef POSIX_FADV_SEQUENTIAL
            posix_fadvise(s->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
        }
    } else if (S_ISREG(sb.st_mode) && gs_size_is_real(s->fd) && (!is_stdin || lseek(s->fd, 0, SEEK_CUR) == 0)) {
        s->seekable = 1; /* an empty file: 0 elements, known ahead (npy output to a pipe needs it) */
        s->base.size = 0;
    } else if (S_ISREG(sb.st_mode) && !is_stdin) {
        s->base.size = -1; /* size 0 of a /proc-like file: stream until read() says the end */
    }
    if (S_ISFIFO(sb.st_mode)) gs_io_grow_pipe(s->fd);
    *out = &s->base;
    return GS_OK;
}

int gs_bsrc_file_seek(gs_bsrc *b, uint64_t off, gs_status *st)
{
    gs_fsrc *s = (gs_fsrc *)b;
    if (s->is_stdin || b->peek || s->blk_len || b->consumed)
        return gs_fail(st, GS_EUSAGE, "%s: cannot seek this input", b->name);
    if (!s->seekable) { /* empty file: only offset 0 exists */
        if (off) return gs_fail(st, GS_EDATA, "%s: offset %llu is past the end", b->name, (unsigned long long)off);
        return GS_OK;
    }
    if (off > (uint64_t)b->size) /* size counts from offset 0 (not stdin) */
        return gs_fail(st, GS_EDATA, "%s: offset %llu is past the end", b->name, (unsigned long long)off);
    s->off = s->hi = off;
    return GS_OK;
}
