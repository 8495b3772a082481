/* file_sink.c - the bottom of io/'s output side: byte sinks over files and stdout, the table of
 * temporary outputs that a signal handler may remove, and the output file other processes write
 * (the sources over files and stdin: io/file.c).
 *
 * Sinks. A file is written to an unnamed file (O_TMPFILE) in the target's directory and linked
 * under the target's name on close, so a reader never sees half an output and a failed or killed
 * run (SIGKILL included) leaves nothing behind. Where the filesystem has no O_TMPFILE, the file is
 * written to ".NAME.gs-XXXXXX" beside the target and renamed over it; a signal handler removes
 * that one. A symlink is written through: the output goes where it points, the link stays. An
 * overwritten file keeps its mode and, where permitted, its owner. Devices and FIFOs (/dev/null,
 * /dev/full, a named pipe, /dev/stderr) are written in place, and /dev/stdout is stdout. stdout
 * is written with large writes and its close is checked, so a full disk or a closed pipe is
 * never silent. Values (raw, npy: gs_bsink.plain) going to a regular file are written in large
 * pieces at their offsets by the pool's threads, through a mapping of the file (io/file_values.c),
 * the file's size set first where the output's size is known and trimmed to what was written at
 * close; the file's offset follows (stdout redirected to a file is left where the output ends). */
#include "io_internal.h"
#include "file_values.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define GS_SINK_BUF ((size_t)1 << 20)   /* sinks gather writes smaller than this */
#define GS_MAX_TEMPS 64                 /* outputs open at once */
#define GS_TEMP_BASE_MAX 200            /* of the target's name in a temp name (NAME_MAX is 255) */

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
    int par;           /* a regular file taking values: large writes in pieces at offsets on the pool */
    int sized;         /* its size was set ahead (ftruncate): trimmed to what was written at close */
    gs_fvals vals;     /* par: how the pieces go to the file */
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

/* n bytes at the output's end, in pieces on the pool's threads (io/file_values.c); the fd's offset
 * moved past them. */
static int gs_fsink_put_par(gs_fsink *k, const unsigned char *p, size_t n, gs_status *st)
{
    const uint64_t at = k->base_off + k->base.written;
    int e = gs_fvals_put(&k->vals, p, n, at);
    if (e) return gs_fsink_fail(k, e, st);
    k->base.written += n;
    if (lseek(k->fd, (off_t)(at + n), SEEK_SET) < 0) return gs_fsink_fail(k, errno, st);
    return GS_OK;
}

static int gs_fsink_put(gs_fsink *k, const unsigned char *p, size_t n, gs_status *st)
{
    if (k->par && n >= 2 * GS_VPIECE) return gs_fsink_put_par(k, p, n, st);
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

/* Values follow: a regular file takes them at offsets on several threads, its size set first. */
static void gs_fsink_plain(gs_bsink *b, int64_t total)
{
    gs_fsink *k = (gs_fsink *)b;
    struct stat sb;
    if (!k->base.seekable || fstat(k->fd, &sb) != 0 || !S_ISREG(sb.st_mode)) return;
    k->par = 1;
    /* The size ahead: the file's blocks are allocated as they are written either way (fallocate
     * would write zeros first: on tmpfs, 2 GB of pwrite on 2 threads took 1.2 s after it, 0.9 s
     * without). Only a file that is ours from its start (not stdout's) is sized. */
    if (total > 0 && !k->is_stdout && k->base.written == 0 && (uint64_t)sb.st_size == 0 &&
        ftruncate(k->fd, (off_t)total) == 0)
        k->sized = 1;
    gs_fvals_init(&k->vals, k->fd);
}

static void gs_fsink_free(gs_fsink *k)
{
    if (k->par) gs_fvals_end(&k->vals);
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
    if (k->par) gs_fvals_end(&k->vals); /* the mapping's pages are the file's: nothing to flush */
    /* sized ahead: what was written is the file (fewer rows than said, a header patched in place) */
    if (rc == GS_OK && k->sized && ftruncate(k->fd, (off_t)(k->base_off + k->base.written)) != 0)
        rc = gs_fsink_fail(k, errno, st);
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
        k->fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
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
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0666);
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
    k->base.plain = gs_fsink_plain;
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
