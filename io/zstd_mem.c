/* zstd_mem.c - zstd frames held in memory, compressed or decoded whole by libzstd on the thread
 * pool, one context per pool part, made per call:
 *   - a buffer cut into frames of `frame` bytes (the last shorter), each an independent frame
 *     with content size and checksum, as gs_writer writes them: what bench --zstd times as
 *     libzstd's side and uses to check the device codec's frames;
 *   - a chunk's frames by table (gs_zfref), as a device decoder and encoder take and give them:
 *     the CPU backend's stand-in for them;
 *   - the parallel copy and thread stop the zstd source and sink share (zstd_internal.h). */
#include "zstd_internal.h"
#include "../common/pool.h"

#include <stdlib.h>
#include <string.h>

size_t gs_zstd_frames_count(size_t len, size_t frame) { return frame ? (len + frame - 1) / frame : 0; }

size_t gs_zstd_frame_bound(size_t frame) { return ZSTD_compressBound(frame); }

/* A buffer's frames on the pool: each part takes a run of frames [b, e) and run compresses or
 * decodes them; a failure is noted by frame (bad) and reason. */
typedef struct zmem_job zmem_job;
struct zmem_job {
    const unsigned char *src; /* compress: the raw buffer; decode: the frames */
    unsigned char *dst;       /* compress: slots of gs_zstd_frame_bound(frame); decode: the raw buffer */
    size_t len, frame, n, cap;
    const size_t *off, *clen; /* decode */
    size_t *out_len;          /* compress: clen */
    int level;
    size_t bad;               /* first failing frame + 1 (0: none); written under no lock: any nonzero value will do */
    const char *why;
    void (*run)(zmem_job *j, size_t b, size_t e);
};

/* Frame f's share of the raw buffer: its offset in *at, its length returned. */
static size_t zmem_share(const zmem_job *j, size_t f, size_t *at)
{
    *at = f * j->frame;
    return j->len - *at < j->frame ? j->len - *at : j->frame;
}

static void zmem_fail(zmem_job *j, size_t f, const char *why)
{
    j->why = why;
    j->bad = f + 1;
}

static void zmem_compress(zmem_job *j, size_t b, size_t e)
{
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    int ok = cc && !ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, j->level)) &&
             !ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1)) &&
             !ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 1));
    for (size_t f = b; f < e && ok; f++) {
        size_t o, n = zmem_share(j, f, &o);
        size_t r = ZSTD_compress2(cc, j->dst + f * j->cap, j->cap, j->src + o, n);
        if (ZSTD_isError(r)) {
            zmem_fail(j, f, ZSTD_getErrorName(r));
            break;
        }
        j->out_len[f] = r;
    }
    if (!ok && !j->bad) zmem_fail(j, b, "cannot make a compression context");
    ZSTD_freeCCtx(cc);
}

static void zmem_decode(zmem_job *j, size_t b, size_t e)
{
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    if (!dc) {
        zmem_fail(j, b, "cannot make a decompression context");
        return;
    }
    for (size_t f = b; f < e; f++) {
        size_t o, n = zmem_share(j, f, &o);
        size_t r = ZSTD_decompressDCtx(dc, j->dst + o, n, j->src + j->off[f], j->clen[f]);
        if (ZSTD_isError(r) || r != n) {
            zmem_fail(j, f, ZSTD_isError(r) ? ZSTD_getErrorName(r) : "decoded size differs from the frame's share");
            break;
        }
    }
    ZSTD_freeDCtx(dc);
}

static void zmem_part(void *ctx, size_t part, size_t nparts)
{
    zmem_job *j = ctx;
    size_t b, e;
    gs_split(j->n, nparts, part, &b, &e);
    if (b < e) j->run(j, b, e);
}

/* j's frames, a part per pool thread at most. */
static int zmem_run(zmem_job *j, gs_status *st)
{
    size_t parts = (size_t)gs_pool_threads();
    gs_parallel_for(parts < j->n ? parts : j->n, zmem_part, j);
    if (j->bad) return gs_fail(st, GS_EDATA, "zstd frames: frame %zu: %s", j->bad - 1, j->why);
    return GS_OK;
}

int gs_zstd_frames_compress(const void *src, size_t len, size_t frame, int level, unsigned char *slots, size_t *clen,
                            gs_status *st)
{
    if (!frame) return gs_fail(st, GS_EUSAGE, "zstd frames: frame size 0");
    zmem_job j = {src, slots, len, frame, gs_zstd_frames_count(len, frame), gs_zstd_frame_bound(frame), NULL, NULL, clen,
                  level, 0, NULL, zmem_compress};
    return zmem_run(&j, st);
}

int gs_zstd_frames_decode(const unsigned char *frames, const size_t *off, const size_t *clen, size_t len, size_t frame,
                          void *dst, gs_status *st)
{
    if (!frame) return gs_fail(st, GS_EUSAGE, "zstd frames: frame size 0");
    zmem_job j = {frames, dst, len, frame, gs_zstd_frames_count(len, frame), 0, off, clen, NULL, 0, 0, NULL, zmem_decode};
    return zmem_run(&j, st);
}

/* ---- frames by table ------------------------------------------------------------------------- */
typedef struct gs_ztab_job {
    const unsigned char *buf;
    const gs_zfref *t;
    size_t n;
    unsigned char *dst;
    size_t *bad; /* per part: 1 + the first frame that failed, 0 if none */
} gs_ztab_job;

static void gs_ztab_part(void *ctx, size_t part, size_t nparts)
{
    gs_ztab_job *j = ctx;
    size_t b, e;
    gs_split(j->n, nparts, part, &b, &e);
    ZSTD_DCtx *dc = b < e ? ZSTD_createDCtx() : NULL;
    j->bad[part] = 0;
    for (size_t i = b; i < e && !j->bad[part]; i++) {
        const gs_zfref *f = &j->t[i];
        size_t r = dc ? ZSTD_decompressDCtx(dc, j->dst + f->at, f->dsize, j->buf + f->off, f->csize) : 0;
        if (!dc || ZSTD_isError(r) || r != f->dsize || gs_zstd_checksum(j->dst + f->at, r) != f->xxh)
            j->bad[part] = i + 1;
    }
    ZSTD_freeDCtx(dc);
}

int gs_zstd_frames_table_decode(const unsigned char *buf, const gs_zfref *t, size_t n, void *dst, gs_status *st)
{
    size_t parts = (size_t)gs_pool_threads();
    if (parts > n) parts = n;
    if (!parts) return GS_OK;
    size_t *bad = calloc(parts, sizeof *bad);
    if (!bad) return gs_fail(st, GS_ENOMEM, "out of memory");
    gs_ztab_job j = {buf, t, n, dst, bad};
    gs_parallel_for(parts, gs_ztab_part, &j);
    size_t first = 0;
    for (size_t p = 0; p < parts && !first; p++) first = bad[p];
    free(bad);
    if (first)
        return gs_fail(st, GS_EDATA, "corrupt zstd data: frame %zu of the chunk failed its check after decoding",
                       first - 1);
    return GS_OK;
}

size_t gs_zstd_frames_table_bound(size_t frame) { return ZSTD_compressBound(frame); }

int gs_zstd_frames_table_encode(const void *src, size_t len, size_t frame, unsigned char *dst, size_t cap, gs_zfref *t,
                                size_t t_cap, size_t *nframes, size_t *bytes, gs_status *st)
{
    const size_t n = frame ? (len + frame - 1) / frame : 0;
    *nframes = *bytes = 0;
    if (!n || n > t_cap) return GS_OK;
    ZSTD_CCtx *cx = ZSTD_createCCtx();
    if (!cx || ZSTD_isError(ZSTD_CCtx_setParameter(cx, ZSTD_c_compressionLevel, 1)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(cx, ZSTD_c_contentSizeFlag, 0))) {
        ZSTD_freeCCtx(cx);
        return gs_fail(st, GS_ENOMEM, "out of memory for a zstd context");
    }
    size_t at = 0;
    for (size_t f = 0; f < n; f++) {
        const unsigned char *p = (const unsigned char *)src + f * frame;
        const size_t m = len - f * frame < frame ? len - f * frame : frame;
        const size_t r = ZSTD_compress2(cx, dst + at, cap - at, p, m);
        if (ZSTD_isError(r)) { /* no room left: the caller keeps the values */
            ZSTD_freeCCtx(cx);
            return GS_OK;
        }
        t[f] = (gs_zfref){at, r, f * frame, m, gs_zstd_checksum(p, m)};
        at += r;
    }
    ZSTD_freeCCtx(cx);
    *nframes = n;
    *bytes = at;
    return GS_OK;
}

/* ---- parallel memcpy (copy-out of a decoded batch; staging of encoder input) ---------------- */
void gs_par_copy(void *dst, const void *src, size_t n, int threads)
{
    size_t parts = n / GS_ZSTD_COPY_PIECE;
    if (parts > (size_t)threads) parts = (size_t)threads;
    gs_parallel_copy(dst, src, n, parts);
}

void gs_thread_stop(pthread_mutex_t *mu, pthread_cond_t *cv, int *stop, pthread_t t)
{
    pthread_mutex_lock(mu);
    *stop = 1;
    pthread_cond_broadcast(cv);
    pthread_mutex_unlock(mu);
    pthread_join(t, NULL);
}
