/* file.c - the bottom of io/: byte sources over files and stdin, byte sinks over files and
 * stdout, the peek buffer any source can be given, and the table of temporary outputs that a
 * signal handler may remove.
 *
 * Sources. A regular file is read with several threads at once: a large read is split into
 * pieces that the pool reads with pread straight into the caller's buffer (one thread copying
 * out of the page cache tops out near 9 GB/s; PCIe wants 50). Small reads are served from an
 * internal block that is itself filled the same way. Pipes, terminals and files of unknown
 * size (st_size 0, as /proc has) are read sequentially in large reads, the pipe enlarged first.
 *
 * Sinks. A file is written to an unnamed file (O_TMPFILE) in the target's directory and linked
 * under the target's name on close, so a reader never sees half an output and a failed or killed
 * run (SIGKILL included) leaves nothing behind. Where the filesystem has no O_TMPFILE, the file is
 * written to ".NAME.gs-XXXXXX" beside the target and renamed over it; a signal handler removes
 * that one. A symlink is written through: the output goes where it points, the link stays. An
 * overwritten file keeps its mode and, where permitted, its owner. Devices and FIFOs (/dev/null,
 * /dev/full, a named pipe, /dev/stderr) are written in place, and /dev/stdout is stdout. stdout
 * is written with large writes and its close is checked, so a full disk or a closed pipe is
 * never silent. */
#include "io_internal.h"
#include "../common/pool.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#define GS_PIECE_MIN ((size_t)1 << 20)  /* smallest pread worth handing to another thread */
#define GS_DIRECT_MIN ((size_t)4 << 20) /* reads this large skip the internal block */
#define GS_BLOCK ((size_t)8 << 20)      /* internal block for small reads */
#define GS_PIPE_READ ((size_t)1 << 20)  /* one read() from a pipe; the pipe holds at most this */
#define GS_SINK_BUF ((size_t)1 << 20)   /* sinks gather writes smaller than this */
#define GS_MAX_TEMPS 64                 /* outputs open at once */
#define GS_TEMP_BASE_MAX 200            /* of the target's name in a temp name (NAME_MAX is 255) */

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

int gs_bsrc_unpeek(gs_bsrc *s, size_t len)
{
    gs_peek *p = s->peek;
    if (!p || p->pos || p->len != len) return 0;
    gs_peek_unhook(s);
    return 1;
}

int gs_bsrc_peek(gs_bsrc *s, void *buf, size_t n, size_t *got, gs_status *st)
{
    *got = 0;
    gs_peek *p = s->peek;
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
    s->off += len;
    s->base.consumed += len;
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

static void gs_fsrc_close(gs_bsrc *b)
{
    gs_fsrc *s = (gs_fsrc *)b;
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
            s->off = (uint64_t)at;
            s->base.size = (int64_t)(sb.st_size - at);
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
    s->off = off;
    return GS_OK;
}

/* ---- the table of temporary outputs ---------------------------------------------------------
 * A slot is claimed under a mutex; `live` is what the signal handler reads, set only after the
 * path is complete and cleared before the path is renamed or reused, so the handler never
 * unlinks a half-written name or a finished output. */
static struct {
    atomic_int live;
    int claimed; /* guarded by gs_temp_mu */
    char path[PATH_MAX];
} gs_temps[GS_MAX_TEMPS];
static pthread_mutex_t gs_temp_mu = PTHREAD_MUTEX_INITIALIZER;

static int gs_temp_claim(void)
{
    pthread_mutex_lock(&gs_temp_mu);
    int slot = -1;
    for (int i = 0; i < GS_MAX_TEMPS && slot < 0; i++)
        if (!gs_temps[i].claimed) {
            gs_temps[i].claimed = 1;
            slot = i;
        }
    pthread_mutex_unlock(&gs_temp_mu);
    return slot;
}

static void gs_temp_release(int slot)
{
    atomic_store(&gs_temps[slot].live, 0);
    pthread_mutex_lock(&gs_temp_mu);
    gs_temps[slot].claimed = 0;
    pthread_mutex_unlock(&gs_temp_mu);
}

void gs_io_remove_temps(void)
{
    for (int i = 0; i < GS_MAX_TEMPS; i++)
        if (atomic_load(&gs_temps[i].live)) unlink(gs_temps[i].path);
}

/* ---- file and stdout sinks ------------------------------------------------------------------- */
typedef struct gs_fsink {
    gs_bsink base;
    int fd;
    int is_stdout;
    int slot;          /* temp table slot, or -1 when written in place */
    int unnamed;       /* fd is an O_TMPFILE file, linked as the target on close */
    int force;
    uint64_t base_off; /* where stdout's offset stood at open (pwrite is relative to it) */
    unsigned char *buf;
    size_t buf_len;
    char *path;        /* as given, for messages */
    char *target;      /* where it goes: path, or what a symlink at path points to */
} gs_fsink;

static int gs_link_unnamed(gs_fsink *k, gs_status *st);

static int gs_fsink_fail(gs_fsink *k, int e, gs_status *st)
{
    if (e == EPIPE) return gs_fail(st, GS_EPIPE, "%s: broken pipe", k->base.name);
    return gs_fail_errno(st, e, "%s: write failed", k->base.name);
}

static int gs_fsink_put(gs_fsink *k, const unsigned char *p, size_t n, gs_status *st)
{
    while (n) {
        ssize_t r = write(k->fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return gs_fsink_fail(k, errno, st);
        if (r == 0) return gs_fsink_fail(k, ENOSPC, st);
        p += r;
        n -= (size_t)r;
        k->base.written += (uint64_t)r;
    }
    return GS_OK;
}

static int gs_fsink_flush(gs_fsink *k, gs_status *st)
{
    size_t n = k->buf_len;
    k->buf_len = 0;
    return n ? gs_fsink_put(k, k->buf, n, st) : GS_OK;
}

static int gs_fsink_write(gs_bsink *b, const void *buf, size_t n, gs_status *st)
{
    gs_fsink *k = (gs_fsink *)b;
    if (n >= GS_SINK_BUF / 4) { /* large: no copy */
        int rc = gs_fsink_flush(k, st);
        return rc ? rc : gs_fsink_put(k, buf, n, st);
    }
    if (k->buf_len + n > GS_SINK_BUF) {
        int rc = gs_fsink_flush(k, st);
        if (rc) return rc;
    }
    if (!k->buf && !(k->buf = malloc(GS_SINK_BUF))) return gs_fail(st, GS_ENOMEM, "out of memory");
    memcpy(k->buf + k->buf_len, buf, n);
    k->buf_len += n;
    return GS_OK;
}

static int gs_fsink_end(gs_bsink *b, gs_status *st) { return gs_fsink_flush((gs_fsink *)b, st); }

static int gs_fsink_pwrite(gs_bsink *b, const void *buf, size_t n, uint64_t off, gs_status *st)
{
    gs_fsink *k = (gs_fsink *)b;
    if (!k->base.seekable) return gs_fail(st, GS_EUSAGE, "%s: output is not seekable", k->base.name);
    int rc = gs_fsink_flush(k, st);
    if (rc) return rc;
    const unsigned char *p = buf;
    while (n) {
        ssize_t r = pwrite(k->fd, p, n, (off_t)(k->base_off + off));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return gs_fsink_fail(k, r < 0 ? errno : ENOSPC, st);
        p += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return GS_OK;
}

static void gs_fsink_free(gs_fsink *k)
{
    free(k->buf);
    free(k->path);
    free(k->target);
    free(k);
}

static void gs_fsink_abort(gs_bsink *b)
{
    gs_fsink *k = (gs_fsink *)b;
    if (!k) return;
    if (!k->is_stdout && k->fd >= 0) close(k->fd);
    if (k->slot >= 0) {
        unlink(gs_temps[k->slot].path);
        gs_temp_release(k->slot);
    }
    gs_fsink_free(k);
}

static int gs_fsink_close(gs_bsink *b, gs_status *st)
{
    gs_fsink *k = (gs_fsink *)b;
    int rc = gs_fsink_flush(k, st);
    if (rc == GS_OK && k->base.final_written) *k->base.final_written = k->base.written;
    if (rc == GS_OK && k->unnamed) {
        rc = gs_link_unnamed(k, st);
        int fd = k->fd;
        k->fd = -1;
        if (close(fd) != 0 && errno != EINTR && rc == GS_OK) {
            rc = gs_fsink_fail(k, errno, st);
            unlink(k->target);
        }
    } else if (rc == GS_OK) {
        /* close() reports errors deferred by some filesystems (NFS, quotas). For stdout, close a
         * duplicate so fd 1 stays valid for the rest of the process. */
        int fd = k->is_stdout ? dup(k->fd) : k->fd;
        if (!k->is_stdout) k->fd = -1;
        if (fd >= 0 && close(fd) != 0 && errno != EINTR) rc = gs_fsink_fail(k, errno, st);
    }
    if (rc == GS_OK && k->slot >= 0) {
        const char *tmp = gs_temps[k->slot].path;
        /* Not the handler's to remove any more; a signal from here on leaves the temp file. */
        atomic_store(&gs_temps[k->slot].live, 0);
        /* With -f, the old file is unlinked first rather than renamed over: ext4 (auto_da_alloc)
         * flushes a file renamed over another before rename returns, 0.3 s for 600 MB. There is
         * never a partial file under the target's name either way. */
        if (k->force) unlink(k->target);
        int r;
#ifdef RENAME_NOREPLACE
        /* Without -f, a file that appeared since open is not clobbered either. */
        r = k->force ? rename(tmp, k->target) : renameat2(AT_FDCWD, tmp, AT_FDCWD, k->target, RENAME_NOREPLACE);
        if (r != 0 && (errno == EINVAL || errno == ENOSYS)) r = rename(tmp, k->target);
#else
        r = rename(tmp, k->target);
#endif
        if (r != 0) {
            rc = errno == EEXIST ? gs_fail(st, GS_EDATA, "%s: file exists (use -f to overwrite)", k->path)
                                 : gs_fail_errno(st, errno, "%s: cannot rename %s into place", k->path, tmp);
            unlink(tmp);
        }
        gs_temp_release(k->slot);
        k->slot = -1;
    }
    if (rc) {
        gs_fsink_abort(b);
        return rc;
    }
    gs_fsink_free(k);
    return GS_OK;
}

static int gs_refuse_tty(int fd, int binary, int force, gs_status *st)
{
    if (binary && !force && isatty(fd))
        return gs_fail(st, GS_EDATA, "refusing to write binary data to a terminal (use -f)");
    return GS_OK;
}

/* A temp name beside the target: "dir/.base.gs-XXXXXX", created 0666 & ~umask like any output. */
static int gs_open_temp(gs_fsink *k, gs_status *st)
{
    const char *slash = strrchr(k->target, '/');
    int dirlen = slash ? (int)(slash - k->target + 1) : 0;
    const char *base = slash ? slash + 1 : k->target;
    k->slot = gs_temp_claim();
    if (k->slot < 0) return gs_fail(st, GS_EDATA, "%s: too many outputs open at once", k->path);
    char *tmp = gs_temps[k->slot].path;
    static atomic_uint seq;
    for (int attempt = 0; attempt < 100; attempt++) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned x = (unsigned)getpid() * 2654435761u ^ (unsigned)ts.tv_nsec ^
                     (atomic_fetch_add(&seq, 1) * 40503u);
        char suffix[7];
        static const char al[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        for (int i = 0; i < 6; i++, x /= 62) suffix[i] = al[x % 62];
        suffix[6] = 0;
        /* the name is cut so that the temp name fits NAME_MAX whatever the target's length */
        int len = snprintf(tmp, PATH_MAX, "%.*s.%.*s.gs-%s", dirlen, k->target, GS_TEMP_BASE_MAX, base, suffix);
        if (len >= PATH_MAX) {
            gs_temp_release(k->slot);
            k->slot = -1;
            return gs_fail_errno(st, ENAMETOOLONG, "%s", k->path);
        }
        k->fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (k->fd >= 0) {
            atomic_store(&gs_temps[k->slot].live, 1);
            return GS_OK;
        }
        if (errno != EEXIST && errno != EINTR) break;
    }
    int e = errno;
    gs_temp_release(k->slot);
    k->slot = -1;
    if (strcmp(k->path, k->target)) return gs_fail_errno(st, e, "%s -> %s", k->path, k->target); /* a symlink's */
    return gs_fail_errno(st, e, "%s", k->path);
}

/* An unnamed file in the target's directory; 0 when the filesystem (or kernel) has none. */
static int gs_open_unnamed(gs_fsink *k)
{
#ifdef O_TMPFILE
    const char *slash = strrchr(k->target, '/');
    char dir[PATH_MAX];
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == k->target) snprintf(dir, sizeof dir, "/");
    else if ((size_t)(slash - k->target) < sizeof dir) snprintf(dir, sizeof dir, "%.*s", (int)(slash - k->target), k->target);
    else return 0;
    int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (fd < 0) return 0;
    /* Linking it needs /proc/self/fd (or CAP_DAC_READ_SEARCH): without /proc, the named temp. */
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    if (geteuid() != 0 && access(proc, F_OK) != 0) {
        close(fd);
        return 0;
    }
    k->fd = fd;
    k->unnamed = 1;
    return 1;
#else
    (void)k;
    return 0;
#endif
}

/* Give the unnamed file the target's name (with -f in place of the old file). */
static int gs_link_unnamed(gs_fsink *k, gs_status *st)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", k->fd);
    for (int attempt = 0;; attempt++) {
        if (k->force) unlink(k->target);
        int r = -1;
#ifdef AT_EMPTY_PATH
        r = linkat(k->fd, "", AT_FDCWD, k->target, AT_EMPTY_PATH);
#endif
        if (r != 0 && errno != EEXIST) r = linkat(AT_FDCWD, proc, AT_FDCWD, k->target, AT_SYMLINK_FOLLOW);
        if (r == 0) return GS_OK;
        if (errno == EEXIST && k->force && attempt < 3) continue; /* a file appeared in between */
        if (errno == EEXIST) return gs_fail(st, GS_EDATA, "%s: file exists (use -f to overwrite)", k->path);
        return gs_fail_errno(st, errno, "%s: cannot link the output into place", k->path);
    }
}

/* Names that mean this process's stdout. */
static int gs_is_stdout_path(const char *p)
{
    return !strcmp(p, "/dev/stdout") || !strcmp(p, "/dev/fd/1") || !strcmp(p, "/proc/self/fd/1");
}

/* Names of an open file of this process (written in place, never replaced). */
static int gs_is_fd_path(const char *p)
{
    return !strncmp(p, "/proc/self/fd/", 14) || !strncmp(p, "/dev/fd/", 8) || !strcmp(p, "/dev/stderr");
}

/* Where output to path goes: path itself, or the file a symlink chain ends at (also when that
 * does not exist yet). NULL when out of memory. */
static char *gs_resolve_target(const char *path)
{
    char buf[PATH_MAX], cur[PATH_MAX];
    struct stat lb;
    if (strlen(path) >= sizeof cur) return strdup(path);
    snprintf(cur, sizeof cur, "%s", path);
    /* /proc/self/fd/N and /dev/fd/N name an open file of this process: not followed further */
    for (int hops = 0; hops < 40 && !gs_is_fd_path(cur) && lstat(cur, &lb) == 0 && S_ISLNK(lb.st_mode); hops++) {
        ssize_t n = readlink(cur, buf, sizeof buf - 1);
        if (n < 0) break;
        buf[n] = 0;
        if (buf[0] == '/') {
            snprintf(cur, sizeof cur, "%s", buf);
        } else { /* relative to the link's directory */
            char *slash = strrchr(cur, '/');
            char joined[PATH_MAX];
            if (snprintf(joined, sizeof joined, "%.*s%s", slash ? (int)(slash - cur + 1) : 0, cur, buf) >= (int)sizeof joined)
                break;
            snprintf(cur, sizeof cur, "%s", joined);
        }
    }
    return strdup(cur);
}

/* named: a regular file is written under a temp name (never O_TMPFILE), for other processes to
 * open by that name. */
static int gs_fsink_open(gs_bsink **out, const char *path, int force, int binary, int named, gs_status *st)
{
    *out = NULL;
    int is_stdout = !path || !strcmp(path, "-") || gs_is_stdout_path(path);
    gs_fsink *k = calloc(1, sizeof *k);
    if (!k || (!is_stdout && (!(k->path = strdup(path)) || !(k->target = gs_resolve_target(path))))) {
        if (k) free(k->path);
        free(k);
        return gs_fail(st, GS_ENOMEM, "out of memory");
    }
    if (!is_stdout && gs_is_stdout_path(k->target)) is_stdout = 1; /* a link to /dev/stdout */
    k->base.write = gs_fsink_write;
    k->base.pwrite = gs_fsink_pwrite;
    k->base.close = gs_fsink_close;
    k->base.end = gs_fsink_end;
    k->base.abort = gs_fsink_abort;
    k->base.name = is_stdout ? "stdout" : k->path;
    k->is_stdout = is_stdout;
    k->force = force;
    k->slot = -1;
    k->fd = -1;
    struct stat sb;
    int rc = GS_OK;
    if (is_stdout) {
        k->fd = 1;
        rc = gs_refuse_tty(1, binary, force, st);
        if (rc == GS_OK && fstat(1, &sb) == 0) {
            gs_io_grow_pipe(1);
            /* "> out.npy" can take the npy header patch; ">>" (O_APPEND) cannot. */
            int fl = fcntl(1, F_GETFL);
            off_t at = lseek(1, 0, SEEK_CUR);
            if (S_ISREG(sb.st_mode) && fl >= 0 && !(fl & O_APPEND) && at >= 0) {
                k->base.seekable = 1;
                k->base_off = (uint64_t)at;
            }
        }
    } else if (gs_is_fd_path(k->target) || (stat(k->target, &sb) == 0 && !S_ISREG(sb.st_mode))) {
        /* A device, FIFO or directory: no temp-and-rename; write in place. */
        if (!gs_is_fd_path(k->target) && S_ISDIR(sb.st_mode)) {
            rc = gs_fail_errno(st, EISDIR, "%s", path);
        } else {
            do k->fd = open(k->target, O_WRONLY | O_CLOEXEC);
            while (k->fd < 0 && errno == EINTR);
            if (k->fd < 0) rc = gs_fail_errno(st, errno, "%s", path);
            else rc = gs_refuse_tty(k->fd, binary, force, st);
            if (rc == GS_OK) gs_io_grow_pipe(k->fd);
        }
    } else if (!force && lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode) && stat(path, &sb) != 0 && errno == ENOENT) {
        /* a dangling symlink: nothing to overwrite, but not written through unasked (as cp) */
        rc = gs_fail(st, GS_EDATA, "%s: a symlink to '%s', which does not exist (use -f to write through it)", path,
                     k->target);
    } else if (!force && (lstat(path, &sb) == 0 || lstat(k->target, &sb) == 0)) {
        rc = gs_fail(st, GS_EDATA, "%s: file exists (use -f to overwrite)", path);
    } else {
        int old = stat(k->target, &sb) == 0; /* -f over a regular file: keep its mode and owner */
        if (named || !gs_open_unnamed(k)) rc = gs_open_temp(k, st);
        if (rc == GS_OK && old) {
            if (fchown(k->fd, sb.st_uid, sb.st_gid) != 0) { /* not permitted: the group, if ours */
                if (fchown(k->fd, (uid_t)-1, sb.st_gid) != 0) {}
            }
            fchmod(k->fd, sb.st_mode & 07777);
        }
        k->base.seekable = rc == GS_OK;
    }
    if (rc) {
        gs_fsink_abort(&k->base);
        return rc;
    }
    *out = &k->base;
    return GS_OK;
}

int gs_bsink_open_file(gs_bsink **out, const char *path, int force, int binary, gs_status *st)
{
    return gs_fsink_open(out, path, force, binary, 0, st);
}

int gs_write_text_out(const char *path, int force, const char *text, gs_status *st)
{
    gs_bsink *k = NULL;
    int rc = gs_bsink_open_file(&k, path, force, 0, st);
    if (rc) return rc;
    if ((rc = k->write(k, text, strlen(text), st))) {
        k->abort(k);
        return rc;
    }
    return k->close(k, st);
}

/* ---- an output file that other processes write ------------------------------------------------ */
struct gs_outfile {
    gs_bsink *k; /* a file sink never written through: it owns the temp name, its cleanup and rename */
};

int gs_outfile_open(gs_outfile **out, const char *path, int force, gs_status *st)
{
    *out = NULL;
    if (!path || !strcmp(path, "-")) return gs_fail(st, GS_EUSAGE, "an output that other processes write must be a file");
    gs_outfile *f = calloc(1, sizeof *f);
    if (!f) return gs_fail(st, GS_ENOMEM, "out of memory");
    int rc = gs_fsink_open(&f->k, path, force, 1, 1, st);
    if (rc) {
        free(f);
        return rc;
    }
    if (((gs_fsink *)f->k)->is_stdout) {
        gs_outfile_abort(f);
        return gs_fail(st, GS_EUSAGE, "an output that other processes write must be a file");
    }
    *out = f;
    return GS_OK;
}

const char *gs_outfile_path(const gs_outfile *f)
{
    const gs_fsink *k = (const gs_fsink *)f->k;
    return k->slot >= 0 ? gs_temps[k->slot].path : k->target;
}

int gs_outfile_commit(gs_outfile *f, gs_status *st)
{
    int rc = f->k->close(f->k, st);
    free(f);
    return rc;
}

void gs_outfile_abort(gs_outfile *f)
{
    if (!f) return;
    f->k->abort(f->k);
    free(f);
}
