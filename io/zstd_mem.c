/* zstd_mem.c - zstd frames held in memory, compressed or decoded whole by libzstd on the thread
 * pool: a buffer cut into frames of `frame` bytes (the last shorter), each an independent frame
 * with content size and checksum, as gs_writer writes them. What bench --zstd times as libzstd's
 * side and uses to check the device codec's frames. One context per pool part, made per call. */
#include "io.h"
#include "../common/pool.h"

#include <stdlib.h>
#include <zstd.h>

size_t gs_zstd_frames_count(size_t len, size_t frame) { return frame ? (len + frame - 1) / frame : 0; }

size_t gs_zstd_frame_bound(size_t frame) { return ZSTD_compressBound(frame); }

typedef struct zmem_job {
    const unsigned char *src; /* compress: the raw buffer; decode: the frames */
    unsigned char *dst;       /* compress: slots of gs_zstd_frame_bound(frame); decode: the raw buffer */
    size_t len, frame, n, cap;
    const size_t *off, *clen; /* decode */
    size_t *out_len;          /* compress: clen */
    int level;
    size_t bad;               /* first failing frame + 1 (0: none); written under no lock: any nonzero value will do */
    const char *why;
} zmem_job;

/* Frame f's share of the raw buffer: its offset in *at, its length returned. */
static size_t zmem_share(const zmem_job *j, size_t f, size_t *at)
{
    *at = f * j->frame;
    return j->len - *at < j->frame ? j->len - *at : j->frame;
}

static void zmem_compress_part(void *ctx, size_t part, size_t nparts)
{
    zmem_job *j = ctx;
    size_t b, e;
    gs_split(j->n, nparts, part, &b, &e);
    if (b == e) return;
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    int ok = cc && !ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, j->level)) &&
             !ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1)) &&
             !ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 1));
    for (size_t f = b; f < e && ok; f++) {
        size_t o, n = zmem_share(j, f, &o);
        size_t r = ZSTD_compress2(cc, j->dst + f * j->cap, j->cap, j->src + o, n);
        if (ZSTD_isError(r)) {
            j->why = ZSTD_getErrorName(r);
            j->bad = f + 1;
            break;
        }
        j->out_len[f] = r;
    }
    if (!ok && !j->bad) {
        j->why = "cannot make a compression context";
        j->bad = b + 1;
    }
    ZSTD_freeCCtx(cc);
}

int gs_zstd_frames_compress(const void *src, size_t len, size_t frame, int level, unsigned char *slots, size_t *clen,
                            gs_status *st)
{
    if (!frame) return gs_fail(st, GS_EUSAGE, "zstd frames: frame size 0");
    zmem_job j = {src, slots, len, frame, gs_zstd_frames_count(len, frame), gs_zstd_frame_bound(frame), NULL, NULL, clen,
                  level, 0, NULL};
    size_t parts = (size_t)gs_pool_threads();
    gs_parallel_for(parts < j.n ? parts : j.n, zmem_compress_part, &j);
    if (j.bad) return gs_fail(st, GS_EDATA, "zstd frames: frame %zu: %s", j.bad - 1, j.why);
    return GS_OK;
}

static void zmem_decode_part(void *ctx, size_t part, size_t nparts)
{
    zmem_job *j = ctx;
    size_t b, e;
    gs_split(j->n, nparts, part, &b, &e);
    if (b == e) return;
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    if (!dc) {
        j->why = "cannot make a decompression context";
        j->bad = b + 1;
        return;
    }
    for (size_t f = b; f < e; f++) {
        size_t o, n = zmem_share(j, f, &o);
        size_t r = ZSTD_decompressDCtx(dc, j->dst + o, n, j->src + j->off[f], j->clen[f]);
        if (ZSTD_isError(r) || r != n) {
            j->why = ZSTD_isError(r) ? ZSTD_getErrorName(r) : "decoded size differs from the frame's share";
            j->bad = f + 1;
            break;
        }
    }
    ZSTD_freeDCtx(dc);
}

int gs_zstd_frames_decode(const unsigned char *frames, const size_t *off, const size_t *clen, size_t len, size_t frame,
                          void *dst, gs_status *st)
{
    if (!frame) return gs_fail(st, GS_EUSAGE, "zstd frames: frame size 0");
    zmem_job j = {frames, dst, len, frame, gs_zstd_frames_count(len, frame), 0, off, clen, NULL, 0, 0, NULL};
    size_t parts = (size_t)gs_pool_threads();
    gs_parallel_for(parts < j.n ? parts : j.n, zmem_decode_part, &j);
    if (j.bad) return gs_fail(st, GS_EDATA, "zstd frames: frame %zu: %s", j.bad - 1, j.why);
    return GS_OK;
}
