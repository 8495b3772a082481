/* file_values.c - values (raw, npy) into a regular file in large puts at their offsets: on tmpfs
 * with many threads, each pool thread faults its piece's pages of a shared mapping of the file in
 * at once (MADV_POPULATE_WRITE) and copies the piece into them; elsewhere one stream, each put one
 * pwrite in order on the writer's thread, while the pool computes the chunks after it. A buffered
 * write takes the file's lock for its whole copy, so pwrite threads on one file run one at a time
 * and never beat one stream; the faults of a mapping are taken side by side. Measured
 * (docs/PERFORMANCE.md, "Binary file I/O"; tests/bench/filewrite.c measures the three ways on the
 * machine at hand): on the H200 host's tmpfs with 16 threads the mapping took about 0.7x the time
 * of pwrite threads and beat one stream; on its disk the mapping was the slowest, and one stream
 * cut each whole run's time by 6-15% against pwrite threads; on the 2-core machine's tmpfs and
 * disk one stream wrote fastest of the three (whole runs there: level within the noise). Hence the
 * mapping only on tmpfs and with at least GS_VMAP_THREADS threads (3 to 15 are not measured), else
 * one stream.
 *
 * The file is mapped in windows of GS_VWIN bytes (or one put's size where larger), moved as the
 * output goes on; the file is grown to the end of each put before its pages are touched, so no
 * access is ever past its end. Where a mapping is refused (no MADV_POPULATE_WRITE, a file system
 * without shared writable mappings), the puts go as one stream from then on; a piece whose pages
 * cannot be faulted in (a full file system: no page is touched then) is written with pwrite, which
 * reports why. */
#include "file_values.h"
#include "../common/pool.h"

#include <errno.h>
#include <linux/magic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#define GS_VWIN ((uint64_t)1 << 30) /* bytes of the file mapped at once */
#define GS_VMAXP 64                 /* pieces of one put at most */
#define GS_VMAP_THREADS 16          /* the fewest pool threads that map a tmpfs file (above) */

/* whether pieces to fd go through a mapping: a file on tmpfs, and threads enough */
static int gs_fvals_maps(int fd)
{
    struct statfs fs;
    return fstatfs(fd, &fs) == 0 && fs.f_type == TMPFS_MAGIC && gs_pool_threads() >= GS_VMAP_THREADS;
}

void gs_fvals_init(gs_fvals *v, int fd)
{
    struct stat sb;
    *v = (gs_fvals){.fd = fd, .size = 0, .map = NULL, .nomap = !gs_fvals_maps(fd)};
    if (fstat(fd, &sb) == 0) v->size = (uint64_t)sb.st_size;
    else v->nomap = 1;
#ifndef MADV_POPULATE_WRITE
    v->nomap = 1;
#endif
}

static void gs_fvals_unmap(gs_fvals *v)
{
    if (v->map) munmap(v->map, v->map_len);
    v->map = NULL;
}

void gs_fvals_end(gs_fvals *v) { gs_fvals_unmap(v); }

/* the window that holds [at, at + n): mapped, and the file at least that long; 0 or errno */
static int gs_fvals_window(gs_fvals *v, uint64_t at, size_t n)
{
    if (v->size < at + n) {
        if (ftruncate(v->fd, (off_t)(at + n)) != 0) return errno;
        v->size = at + n;
    }
    if (v->map && at >= v->map_at && at + n <= v->map_at + v->map_len) return 0;
    gs_fvals_unmap(v);
    const uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE), a = at / pg * pg;
    const uint64_t len = at + n - a > GS_VWIN ? at + n - a : GS_VWIN;
    void *m = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE, MAP_SHARED, v->fd, (off_t)a);
    if (m == MAP_FAILED) return errno;
    v->map = m, v->map_at = a, v->map_len = len;
    return 0;
}

typedef struct gs_vpiece {
    const unsigned char *p;
    uint64_t off;
    size_t len;
    int err;
    int nopop; /* the kernel has no MADV_POPULATE_WRITE (EINVAL): one stream from here on */
} gs_vpiece;

typedef struct gs_vjob {
    const gs_fvals *v;
    gs_vpiece *pieces;
} gs_vjob;

static int gs_pwrite_all(int fd, const unsigned char *p, size_t n, uint64_t off)
{
    while (n) {
        ssize_t r = pwrite(fd, p, n, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return r < 0 ? errno : ENOSPC;
        p += r, n -= (size_t)r, off += (uint64_t)r;
    }
    return 0;
}

static void gs_vpiece_run(void *ctx, size_t part, size_t nparts)
{
    (void)nparts;
    const gs_vjob *j = ctx;
    const gs_fvals *v = j->v;
    gs_vpiece *w = &j->pieces[part];
    if (v->map) {
#ifdef MADV_POPULATE_WRITE
        const uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
        unsigned char *dst = v->map + (w->off - v->map_at);
        unsigned char *a = (unsigned char *)((uintptr_t)dst / pg * pg); /* a page a neighbour shares: faulted twice */
        if (madvise(a, (size_t)(dst + w->len - a), MADV_POPULATE_WRITE) == 0) {
            memcpy(dst, w->p, w->len);
            return;
        }
        w->nopop = errno == EINVAL; /* else pages refused (a full file system): pwrite says why */
#endif
    }
    w->err = gs_pwrite_all(v->fd, w->p, w->len, w->off);
}

int gs_fvals_put(gs_fvals *v, const unsigned char *p, size_t n, uint64_t at)
{
    if (!v->nomap && gs_fvals_window(v, at, n) != 0) { /* refused: one stream from here on */
        gs_fvals_unmap(v);
        v->nomap = 1;
    }
    if (v->nomap) { /* one stream: the put in order on the caller's thread */
        const int e = gs_pwrite_all(v->fd, p, n, at);
        if (!e && v->size < at + n) v->size = at + n;
        return e;
    }
    size_t np = n / GS_VPIECE;
    if (np > (size_t)gs_pool_threads()) np = (size_t)gs_pool_threads();
    if (np > GS_VMAXP) np = GS_VMAXP;
    if (np < 1) np = 1;
    gs_vpiece pieces[GS_VMAXP];
    for (size_t i = 0; i < np; i++) {
        size_t b, e;
        gs_split(n, np, i, &b, &e);
        pieces[i] = (gs_vpiece){p + b, at + b, e - b, 0, 0};
    }
    gs_vjob j = {v, pieces};
    gs_parallel_for(np, gs_vpiece_run, &j);
    int err = 0;
    for (size_t i = 0; i < np; i++) {
        if (pieces[i].nopop) v->nomap = 1;
        if (pieces[i].err && !err) err = pieces[i].err;
    }
    if (v->nomap) gs_fvals_unmap(v);
    if (!err && v->size < at + n) v->size = at + n; /* a piece's pwrite grew it */
    return err;
}
