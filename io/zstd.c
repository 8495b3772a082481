/* zstd.c - zstd decompression as a byte source and compression as a byte sink, through libzstd.
 *
 * Decoding. The compressed input is read into a window that holds several frames. Frames whose
 * header gives their content size (as gpustream and `zstd` on a file of known size write them)
 * are found with ZSTD_findFrameCompressedSize and decoded a batch at a time with the pool, each
 * worker a run of frames with its own context, output in input order; one zstd frame decodes at
 * ~1 GB/s on one core, so many frames are what makes 10+ GB/s possible. A frame without a content
 * size, or too large for a batch, is streamed with ZSTD_decompressStream on the calling thread.
 * Skippable frames are skipped. Anything else (garbage between frames, a frame cut short, a bad
 * checksum) is an error: a short output that looks complete would be worse. From a regular file
 * with several threads and no device codec, a decoder thread does all of this one batch ahead,
 * into two slots in turn, while the caller copies out of the other; an error waits in its slot
 * until the caller has taken every byte before it.
 *
 * With a device codec (gs_zcodec), a batch's frames go to it when io/zstd_frames.c finds them
 * well formed, with a content size within the codec's limit, a checksum and no dictionary; what
 * it returns is kept only where its status is good and the XXH64 of the output (computed here,
 * on the pool) equals the frame's checksum. Every other frame of the batch is decoded by
 * libzstd, which reports any corruption as above: the device never decides what is valid. A
 * codec that stopped (its device timed out) leaves the batch, and every later one, to libzstd.
 *
 * Encoding. Input is cut into frames of frame_size bytes; a batch of frames is compressed by the
 * pool (one ZSTD_CCtx per worker, content size and checksum in every frame) and written in
 * order by a writer thread while the next batch compresses. With libzstd and several threads, or
 * a device codec, an encoder thread compresses each batch while the caller gathers the next into
 * a second stage.
 * Independent frames are what lets any reader, ours or `zstd -T`, decode in parallel. With a device codec, the batch is compressed
 * there and each frame's header is rewritten here (io/zstd_frames.c) to carry its content size
 * and the XXH64 checksum of its input, computed on the pool, as libzstd's frames do. */
#include "io_internal.h"
#include "zstd_frames.h"
#include "../common/pool.h"
#include "../common/trace.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>
#include <sys/stat.h>
#include <unistd.h>

#define GS_Z_FRAME_MAX ((size_t)256 << 20) /* larger frames are streamed, not batched */
#define GS_Z_BATCH_MAX ((size_t)256 << 20) /* decoded bytes per batch (the batch buffer) */
#define GS_Z_SLOT_START ((size_t)256 << 10) /* a decoded-ahead slot's first size */
#define GS_Z_ENC_FRAMES 16                 /* frames compressed at once, and encoder contexts */
/* The compressed read-ahead window holds a batch: a default 16 MiB frame of incompressible data
 * per worker, so each worker gets a frame whatever the ratio. */
#define GS_Z_WIN_MIN ((size_t)16 << 20)
#define GS_Z_WIN_PER_THREAD ((size_t)17 << 20)
#define GS_Z_WIN_MAX ((size_t)512 << 20)
/* From a pipe the window starts this small and doubles each time the input fills it, up to the
 * size above: a short stream costs no 16 MiB window. */
#define GS_Z_WIN_START ((size_t)64 << 10)
#define GS_Z_FRAMES_READ ((size_t)16 << 20) /* the most one read takes while frames are handed out */

/* The window's size in bytes (it grows only for a frame larger than it); 0 = by thread count as
 * above. Tests set it small to
 * cross window edges (refills, frames larger than the window) with little data. */
size_t gs_zstd_window;
/* Set: frames are decoded on the reading thread and compressed on the writing thread even where
 * a decoder or encoder thread would work ahead (tests run both ways). */
int gs_zstd_sync;
/* With a device codec, a batch gathers at least this many decoded bytes, and an encoder's batch
 * holds this many bytes of input, so the device gets thousands of frames at once (many of the
 * engine's chunks): nvCOMP gives each frame a few threads. Batches of 16 frames (the libzstd
 * batch) compressed at 0.09 GB/s; bench --zstd on an H100 (256K frames, nvCOMP 6.0.0): 1.5 GB/s
 * compressing and 8.2 GB/s decoding with 64 MiB a batch, 5.9 and 30.6 GB/s with 256 MiB. */
#define GS_Z_DEV_BATCH GS_Z_BATCH_MAX
#define GS_Z_COPY_PIECE ((size_t)4 << 20)  /* parallel copy-out granularity */
#define GS_Z_HEADER_MAX 18 /* the longest frame header (format spec; the zstd.h macro is static-only) */
#define GS_Z_SKIP_MAGIC 0x184D2A50u
/* Legacy frames (v0.5 to v0.7) that libzstd's legacy support decodes, streamed. */
#define GS_Z_LEGACY_MIN 0xFD2FB525u
#define GS_Z_LEGACY_MAX 0xFD2FB527u
/* Windows up to 2 GiB (frames written with zstd --long=31) are decoded; that much memory is the
 * stated limit for one streamed frame. */
#define GS_Z_WINDOW_LOG_MAX 31
#define GS_Z_SKIP_MASK 0xFFFFFFF0u

static uint32_t gs_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- parallel memcpy (copy-out of a decoded batch; staging of encoder input) ---------------- */
typedef struct gs_copy_job {
    unsigned char *dst;
    const unsigned char *src;
    size_t n;
} gs_copy_job;

static void gs_copy_part(void *ctx, size_t part, size_t nparts)
{
    const gs_copy_job *j = ctx;
    size_t b, e;
    gs_split(j->n, nparts, part, &b, &e);
    memcpy(j->dst + b, j->src + b, e - b);
}

static void gs_par_copy(void *dst, const void *src, size_t n, int threads)
{
    size_t parts = n / GS_Z_COPY_PIECE;
    if (parts > (size_t)threads) parts = (size_t)threads;
    if (parts <= 1) {
        memcpy(dst, src, n);
        return;
    }
    gs_copy_job j = {dst, src, n};
    gs_parallel_for(parts, gs_copy_part, &j);
}

/* Raise *stop under mu, wake t's waits on cv, and wait for t to end. */
static void gs_thread_stop(pthread_mutex_t *mu, pthread_cond_t *cv, int *stop, pthread_t t)
{
    pthread_mutex_lock(mu);
    *stop = 1;
    pthread_cond_broadcast(cv);
    pthread_mutex_unlock(mu);
    pthread_join(t, NULL);
}

/* ---- decoding source ------------------------------------------------------------------------- */
typedef struct gs_zframe {
    size_t off, csize;  /* in the window */
    size_t doff, dsize; /* in the batch output */
    int cpu;            /* libzstd decodes it (the device codec did not, or not verifiably) */
    uint32_t xxh;       /* the frame's checksum, for frames given to the device codec */
} gs_zframe;

/* A batch's frames as the device codec takes them (parallel arrays, frames_cap long). */
typedef struct gs_zdev {
    const unsigned char **src;
    size_t *csize, *dsize, *doff, *idx;
    unsigned char *ok;
} gs_zdev;

/* One batch decoded ahead: its bytes, how far the caller has read them, and how it ended. */
enum { GS_ZSLOT_FREE, GS_ZSLOT_READY }; /* FREE: the decoder's to fill; READY: the caller's */
typedef struct gs_zslot {
    unsigned char *buf; /* cap bytes */
    size_t cap, len, pos; /* len 0 with rc 0: the end of the input */
    int state, rc;      /* rc: the decoder's status (sticky: it stops after an error) */
    gs_status st;
    uint64_t consumed;  /* the input's bytes behind this slot's end */
} gs_zslot;

typedef struct gs_zsrc {
    gs_bsrc base;
    gs_bsrc *in;
    int threads;
    unsigned char *win; /* compressed bytes [win_pos, win_len) not yet decoded */
    size_t win_cap, win_pos, win_len;
    size_t win_max; /* the window doubles up to this while the input fills it */
    int win_full;   /* the last read filled the window */
    int in_eof;
    unsigned char *out; /* a decoded batch not yet handed out: [out_pos, out_len) */
    size_t out_cap, out_pos, out_len;
    /* The batch in out is the input's first decoded bytes and its frames are still in the window
     * from this offset on (SIZE_MAX: not so): a peek of those bytes can be given back (gs_zsrc_frames). */
    size_t out_first_win;
    uint64_t decoded;   /* bytes decoded so far (batches and streamed frames) */
    gs_zframe *frames;
    size_t frames_cap;
    gs_zcodec *codec; /* device codec, or NULL */
    int frames_mode;  /* frames are handed out whole (gs_zsrc_frames): never decode ahead */
    double fill_s;    /* seconds in the source's reads (GS_TRACE's timeline only) */
    size_t frames_max; /* the largest frame asked for so far (SIZE_MAX before the first ask) */
    gs_zdev dev;      /* its batch arrays */
    size_t dev_cap;
    ZSTD_DCtx **dctx; /* one per worker */
    ZSTD_DStream *ds; /* streaming fallback */
    int streaming;    /* inside a streamed frame */
    uint64_t in_consumed; /* bytes taken from s->in, behind everything decoded so far */
    /* Decoding ahead (regular files, several threads, no device codec): a decoder thread fills
     * the two slots in turn with gs_zsrc_pull while the caller copies out of the other. */
    int ahead;          /* 1: on; 0: the caller decodes (gs_zsrc_pull) */
    int ahead_running;  /* the decoder thread exists */
    int ahead_stop;     /* close: the decoder ends at its next wait */
    int ahead_cur;      /* the slot the caller reads */
    size_t slot_want;   /* the slots' size: doubles while batches fill them, up to a batch */
    gs_zslot slot[2];
    pthread_t ahead_tid;
    pthread_mutex_t ahead_mu;
    pthread_cond_t ahead_cv;
} gs_zsrc;

/* Drop the window's bytes before win_pos: the rest moves to its start. Window offsets held from
 * before (a batch's frames, out_first_win) no longer hold. */
static void gs_zsrc_shift(gs_zsrc *s)
{
    s->out_first_win = SIZE_MAX;
    memmove(s->win, s->win + s->win_pos, s->win_len - s->win_pos);
    s->win_len -= s->win_pos;
    s->win_pos = 0;
}

/* Make at least `need` bytes available at win_pos, unless the input ends. With may_move, old
 * bytes are dropped and the window may grow; without it (a batch refers to window offsets),
 * only the free tail is filled. */
static int gs_zsrc_fill(gs_zsrc *s, size_t need, int may_move, gs_status *st)
{
    if (may_move && s->win_full && s->win_cap < s->win_max) {
        size_t cap = s->win_cap * 2 < s->win_max ? s->win_cap * 2 : s->win_max;
        unsigned char *w = realloc(s->win, cap);
        if (!w) return gs_fail(st, GS_ENOMEM, "%s: out of memory", s->base.name);
        s->win = w;
        s->win_cap = cap;
        s->win_full = 0;
    }
    while (s->win_len - s->win_pos < need && !s->in_eof) {
        if (may_move) {
            /* Drop what is decoded when the tail is full or too short; grow by doubling. */
            if (s->win_pos && (s->win_len == s->win_cap || s->win_cap - s->win_pos < need)) gs_zsrc_shift(s);
            if (s->win_cap < need) {
                size_t cap = s->win_cap * 2 > need ? s->win_cap * 2 : need;
                unsigned char *w = realloc(s->win, cap);
                if (!w) return gs_fail(st, GS_ENOMEM, "%s: out of memory", s->base.name);
                s->win = w;
                s->win_cap = cap;
            }
        }
        if (s->win_len == s->win_cap) return GS_OK; /* no room without moving */
        size_t g = 0;
        const double t0 = gs_trace_enabled() ? gs_now() : 0;
        /* handing out frames, a read is about a chunk's frames, not the window's room (up to
         * 272 MiB): the first chunk waits for no more, and later reads come evenly */
        size_t room = s->win_cap - s->win_len;
        if (s->frames_mode && s->frames_max != SIZE_MAX && room > GS_Z_FRAMES_READ) room = GS_Z_FRAMES_READ;
        int rc = s->in->read(s->in, s->win + s->win_len, room, &g, st);
        if (gs_trace_enabled()) s->fill_s += gs_now() - t0;
        s->in_consumed = s->in->consumed;
        if (rc) return rc;
        if (!g) s->in_eof = 1;
        s->win_len += g;
        s->win_full = s->win_len == s->win_cap;
    }
    return GS_OK;
}

static int gs_zsrc_truncated(gs_zsrc *s, gs_status *st)
{
    return gs_fail(st, GS_EDATA, "%s: truncated zstd frame", s->base.name);
}

static int gs_zsrc_corrupt(gs_zsrc *s, size_t err, gs_status *st)
{
    if (ZSTD_getErrorCode(err) == ZSTD_error_srcSize_wrong) return gs_zsrc_truncated(s, st);
    if (ZSTD_getErrorCode(err) == ZSTD_error_frameParameter_windowTooLarge)
        return gs_fail(st, GS_EDATA, "%s: zstd frame needs a window larger than the %u MiB limit (zstd --long=%d)",
                       s->base.name, 1u << (GS_Z_WINDOW_LOG_MAX - 20), GS_Z_WINDOW_LOG_MAX);
    return gs_fail(st, GS_EDATA, "%s: corrupt zstd data: %s", s->base.name, ZSTD_getErrorName(err));
}

/* Skip a skippable frame (magic, 4-byte length, payload), reading past it without keeping it. */
static int gs_zsrc_skip(gs_zsrc *s, gs_status *st)
{
    int rc = gs_zsrc_fill(s, 8, 1, st);
    if (rc) return rc;
    if (s->win_len - s->win_pos < 8) return gs_zsrc_truncated(s, st);
    uint64_t left = 8 + (uint64_t)gs_le32(s->win + s->win_pos + 4);
    while (left) {
        size_t have = s->win_len - s->win_pos;
        size_t n = have < left ? have : (size_t)left;
        s->win_pos += n;
        left -= n;
        if (left && (rc = gs_zsrc_fill(s, 1, 1, st))) return rc;
        if (left && s->win_len == s->win_pos) return gs_zsrc_truncated(s, st);
    }
    return GS_OK;
}

typedef struct gs_zdec_job {
    gs_zsrc *s;
    unsigned char *dst;
    size_t nframes;
    size_t *rets; /* per frame; checked in order after the join */
} gs_zdec_job;

static void gs_zdec_part(void *ctx, size_t part, size_t nparts)
{
    gs_zdec_job *j = ctx;
    size_t b, e;
    gs_split(j->nframes, nparts, part, &b, &e);
    for (size_t f = b; f < e; f++) {
        const gs_zframe *fr = &j->s->frames[f];
        if (!fr->cpu) continue;
        j->rets[f] = ZSTD_decompressDCtx(j->s->dctx[part], j->dst + fr->doff, fr->dsize, j->s->win + fr->off,
                                         fr->csize);
        if (ZSTD_isError(j->rets[f])) return; /* the rest of this run is not needed */
    }
}

/* Verification of the device codec's output: the checksum of every frame it reports done. */
typedef struct gs_zverify_job {
    gs_zsrc *s;
    const unsigned char *dst;
    size_t m;
} gs_zverify_job;

static void gs_zverify_part(void *ctx, size_t part, size_t nparts)
{
    gs_zverify_job *j = ctx;
    const gs_zdev *d = &j->s->dev;
    size_t b, e;
    gs_split(j->m, nparts, part, &b, &e);
    for (size_t i = b; i < e; i++) {
        gs_zframe *fr = &j->s->frames[d->idx[i]];
        if (d->ok[i] && (uint32_t)gs_xxh64(j->dst + fr->doff, fr->dsize, 0) == fr->xxh) fr->cpu = 0;
    }
}

/* Give the device codec the frames of [0, n) it may decode; mark the ones it verifiably did. */
static int gs_zsrc_device_batch(gs_zsrc *s, size_t n, unsigned char *dst, gs_status *st)
{
    gs_zcodec *c = s->codec;
    gs_zdev *d = &s->dev;
    if (c->stopped) return GS_OK;
    if (s->dev_cap < n) {
        gs_zdev nd = {malloc(n * sizeof *nd.src), malloc(n * sizeof *nd.csize), malloc(n * sizeof *nd.dsize),
                      malloc(n * sizeof *nd.doff), malloc(n * sizeof *nd.idx), malloc(n)};
        free(d->src), free(d->csize), free(d->dsize), free(d->doff), free(d->idx), free(d->ok);
        *d = nd;
        s->dev_cap = nd.src && nd.csize && nd.dsize && nd.doff && nd.idx && nd.ok ? n : 0;
        if (!s->dev_cap) return gs_fail(st, GS_ENOMEM, "%s: out of memory", s->base.name);
    }
    double t0 = gs_now();
    size_t m = 0;
    for (size_t f = 0; f < n; f++) {
        gs_zframe *fr = &s->frames[f];
        gs_zfinfo fi;
        if (fr->dsize == 0 || fr->dsize > c->frame_max) continue;
        if (gs_zframe_parse(s->win + fr->off, fr->csize, &fi, NULL) != GS_ZF_OK || fi.skippable || !fi.checksum ||
            fi.dict_id || fi.csize != fr->csize || fi.content != fr->dsize)
            continue;
        fr->xxh = fi.xxh;
        d->src[m] = s->win + fr->off;
        d->csize[m] = fr->csize;
        d->dsize[m] = fr->dsize;
        d->doff[m] = fr->doff;
        d->idx[m] = f;
        d->ok[m] = 0;
        m++;
    }
    if (m == 0) return GS_OK;
    int rc = c->decode(c, m, d->src, d->csize, d->dsize, dst, d->doff, d->ok, st);
    if (rc) return rc;
    size_t parts = m < (size_t)s->threads ? m : (size_t)s->threads;
    gs_zverify_job j = {s, dst, m};
    gs_parallel_for(parts, gs_zverify_part, &j);
    for (size_t i = 0; i < m; i++) {
        const gs_zframe *fr = &s->frames[d->idx[i]];
        if (fr->cpu) continue;
        c->dec_in += fr->csize;
        c->dec_out += fr->dsize;
        c->dec_frames++;
    }
    c->dec_s += gs_now() - t0;
    return GS_OK;
}

/* Decode frames [0, n) of the batch into dst: the device codec's share first, then the rest in
 * parallel with libzstd. */
static int gs_zsrc_decode_batch(gs_zsrc *s, size_t n, unsigned char *dst, gs_status *st)
{
    for (size_t f = 0; f < n; f++) s->frames[f].cpu = 1;
    if (s->codec) {
        int rc = gs_zsrc_device_batch(s, n, dst, st);
        if (rc) return rc;
    }
    size_t left = 0;
    for (size_t f = 0; f < n; f++) left += (size_t)s->frames[f].cpu;
    if (s->codec) s->codec->dec_cpu_frames += left;
    if (left == 0) return GS_OK;
    size_t parts = n < (size_t)s->threads ? n : (size_t)s->threads;
    for (size_t p = 0; p < parts; p++)
        if (!s->dctx[p] && !(s->dctx[p] = ZSTD_createDCtx()))
            return gs_fail(st, GS_ENOMEM, "%s: out of memory", s->base.name);
    size_t *rets = malloc(n * sizeof *rets);
    if (!rets) return gs_fail(st, GS_ENOMEM, "%s: out of memory", s->base.name);
    for (size_t f = 0; f < n; f++) rets[f] = 0; /* frames skipped after an error read as 0 */
    gs_zdec_job j = {s, dst, n, rets};
    gs_parallel_for(parts, gs_zdec_part, &j);
    int rc = GS_OK;
    for (size_t f = 0; f < n && rc == GS_OK; f++) {
        if (!s->frames[f].cpu) continue;
        if (ZSTD_isError(rets[f])) rc = gs_zsrc_corrupt(s, rets[f], st);
        else if (rets[f] != s->frames[f].dsize)
            rc = gs_fail(st, GS_EDATA, "%s: corrupt zstd data: frame size differs from its header", s->base.name);
    }
    free(rets);
    return rc;
}

/* What the next frame is; fills the window as needed (may_move only when no batch is open). */
enum { GS_ZF_END, GS_ZF_SKIP, GS_ZF_BATCH, GS_ZF_STREAM, GS_ZF_STOP };

static int gs_zsrc_next(gs_zsrc *s, int may_move, int *kind, size_t *csize, size_t *dsize, gs_status *st)
{
    int rc = gs_zsrc_fill(s, GS_Z_HEADER_MAX, may_move, st);
    if (rc) return rc;
    size_t avail = s->win_len - s->win_pos;
    const unsigned char *p = s->win + s->win_pos;
    if (avail == 0) {
        *kind = s->in_eof ? GS_ZF_END : GS_ZF_STOP;
        return GS_OK;
    }
    if (avail < 4 && s->in_eof) return gs_zsrc_truncated(s, st);
    if (avail < GS_Z_HEADER_MAX && !s->in_eof) { /* no room to see the header yet */
        *kind = GS_ZF_STOP;
        return GS_OK;
    }
    uint32_t magic = gs_le32(p);
    if ((magic & GS_Z_SKIP_MASK) == GS_Z_SKIP_MAGIC) {
        *kind = GS_ZF_SKIP;
        return GS_OK;
    }
    if (magic >= GS_Z_LEGACY_MIN && magic <= GS_Z_LEGACY_MAX) {
        *kind = GS_ZF_STREAM;
        return GS_OK;
    }
    if (magic != ZSTD_MAGICNUMBER) return gs_zsrc_corrupt(s, ZSTD_findFrameCompressedSize(p, avail), st);
    unsigned long long cs = ZSTD_getFrameContentSize(p, avail);
    if (cs == ZSTD_CONTENTSIZE_ERROR) {
        size_t e = ZSTD_findFrameCompressedSize(p, avail);
        return ZSTD_isError(e) ? gs_zsrc_corrupt(s, e, st)
                               : gs_fail(st, GS_EDATA, "%s: corrupt zstd data: bad frame header", s->base.name);
    }
    *kind = GS_ZF_STREAM;
    if (cs == ZSTD_CONTENTSIZE_UNKNOWN || cs > GS_Z_FRAME_MAX) return GS_OK;
    /* The compressed frame can need up to ZSTD_compressBound(cs) plus header and checksum. */
    size_t bound = ZSTD_compressBound((size_t)cs) + GS_Z_HEADER_MAX + 4;
    for (;;) {
        size_t f = ZSTD_findFrameCompressedSize(p, avail);
        if (!ZSTD_isError(f)) {
            *kind = GS_ZF_BATCH;
            *csize = f;
            *dsize = (size_t)cs;
            return GS_OK;
        }
        if (ZSTD_getErrorCode(f) != ZSTD_error_srcSize_wrong) return gs_zsrc_corrupt(s, f, st);
        if (s->in_eof) return gs_zsrc_truncated(s, st);
        /* Bogus block sizes can claim more than the bound: let the stream decoder judge those. */
        if (may_move && avail >= bound) return GS_OK;
        size_t before = avail;
        if ((rc = gs_zsrc_fill(s, avail + 1, may_move, st))) return rc;
        avail = s->win_len - s->win_pos;
        p = s->win + s->win_pos;
        if (avail == before && !s->in_eof) { /* no room without moving: finish the batch first */
            *kind = GS_ZF_STOP;
            return GS_OK;
        }
    }
}

/* Decode the frame in progress with the streaming decoder, into buf. */
static int gs_zsrc_stream(gs_zsrc *s, unsigned char *buf, size_t cap, size_t *got, gs_status *st)
{
    ZSTD_outBuffer ob = {buf, cap, 0};
    while (ob.pos == 0) {
        if (s->win_pos == s->win_len) {
            int rc = gs_zsrc_fill(s, 1, 1, st);
            if (rc) return rc;
            if (s->win_pos == s->win_len) return gs_zsrc_truncated(s, st);
        }
        ZSTD_inBuffer ib = {s->win + s->win_pos, s->win_len - s->win_pos, 0};
        size_t r = ZSTD_decompressStream(s->ds, &ob, &ib);
        s->win_pos += ib.pos;
        if (ZSTD_isError(r)) return gs_zsrc_corrupt(s, r, st);
        if (r == 0) { /* the frame ended (and is flushed) */
            s->streaming = 0;
            break;
        }
    }
    *got = ob.pos;
    s->decoded += ob.pos;
    return GS_OK;
}

/* The streaming decoder, made when the first frame needs it (batched frames never do). */
static int gs_zsrc_dstream(gs_zsrc *s, gs_status *st)
{
    if (!(s->ds = ZSTD_createDStream())) return gs_fail(st, GS_ENOMEM, "%s: out of memory", s->base.name);
    if (ZSTD_isError(ZSTD_DCtx_setParameter(s->ds, ZSTD_d_windowLogMax, GS_Z_WINDOW_LOG_MAX)))
        return gs_fail(st, GS_EDATA, "%s: this libzstd cannot decode windows of 2^%d bytes", s->base.name,
                       GS_Z_WINDOW_LOG_MAX);
    return GS_OK;
}

/* The decoded bytes that follow, up to cap: what a read returns, on the calling thread. */
static int gs_zsrc_pull(gs_zsrc *s, void *buf, size_t cap, size_t *got, gs_status *st)
{
    *got = 0;
    if (cap == 0) return GS_OK;
    for (;;) {
        if (s->out_pos < s->out_len) {
            size_t n = s->out_len - s->out_pos < cap ? s->out_len - s->out_pos : cap;
            gs_par_copy(buf, s->out + s->out_pos, n, s->threads);
            s->out_pos += n;
            *got = n;
            return GS_OK;
        }
        if (s->streaming) {
            int rc = gs_zsrc_stream(s, buf, cap, got, st);
            if (rc || *got) return rc;
            continue;
        }
        /* Gather a batch: every worker a few MiB at least, fitting the caller's buffer if it can. */
        size_t n = 0, total = 0, enough = (size_t)s->threads << 22;
        if (s->codec && !s->frames_mode && enough < GS_Z_DEV_BATCH) enough = GS_Z_DEV_BATCH;
        for (;;) {
            int kind = GS_ZF_END;
            size_t csize = 0, dsize = 0;
            int rc = gs_zsrc_next(s, n == 0, &kind, &csize, &dsize, st);
            if (rc) return rc;
            if (kind == GS_ZF_SKIP) {
                if (n) break; /* skipping moves the window: decode what is gathered first */
                if ((rc = gs_zsrc_skip(s, st))) return rc;
                continue;
            }
            if (kind == GS_ZF_END && n == 0) return GS_OK;
            if (kind == GS_ZF_STREAM && n == 0) {
                if (!s->ds && (rc = gs_zsrc_dstream(s, st))) return rc;
                size_t r = ZSTD_DCtx_reset(s->ds, ZSTD_reset_session_only);
                if (ZSTD_isError(r)) return gs_zsrc_corrupt(s, r, st);
                s->streaming = 1;
                break;
            }
            if (kind != GS_ZF_BATCH) break;
            /* (handing out frames, a batch never passes the caller's buffer: what is left over
             * would hold up the next whole frames) */
            if (n && (total + dsize > GS_Z_BATCH_MAX ||
                      ((n >= (size_t)s->threads || (s->frames_mode && dsize <= s->frames_max)) && total + dsize > cap)))
                break;
            if (n == s->frames_cap) {
                size_t nc = s->frames_cap ? s->frames_cap * 2 : 64;
                gs_zframe *f = realloc(s->frames, nc * sizeof *f);
                if (!f) return gs_fail(st, GS_ENOMEM, "%s: out of memory", s->base.name);
                s->frames = f;
                s->frames_cap = nc;
            }
            s->frames[n++] = (gs_zframe){s->win_pos, csize, total, dsize, 1, 0};
            s->win_pos += csize;
            total += dsize;
            if (n >= (size_t)s->threads && total >= enough) break;
        }
        if (s->streaming) continue;
        /* Straight into the caller's buffer when the batch fits: no copy. */
        unsigned char *dst = buf;
        if (total > cap) {
            if (s->out_cap < total) {
                free(s->out);
                if (!(s->out = malloc(total))) {
                    s->out_cap = 0;
                    return gs_fail(st, GS_ENOMEM, "%s: out of memory", s->base.name);
                }
                s->out_cap = total;
            }
            dst = s->out;
        }
        int rc = gs_zsrc_decode_batch(s, n, dst, st);
        if (rc) return rc;
        s->out_first_win = dst != buf && s->decoded == 0 && n ? s->frames[0].off : SIZE_MAX;
        s->decoded += total;
        if (dst == buf) {
            *got = total;
            if (total) return GS_OK;
            continue; /* only empty frames */
        }
        s->out_pos = 0;
        s->out_len = total;
    }
}

/* The decoder thread: each slot in turn, when the caller has freed it, gets the next batch, until
 * the input ends or an error, which the slot keeps for the caller to meet in order. Slots start
 * at GS_Z_SLOT_START; a batch that did not fit (it waits in s->out) sizes the next slot, at least
 * double, up to GS_Z_BATCH_MAX (the largest batch, which then decodes straight into the slot): a
 * small file costs no 256 MiB buffers. */
static void *gs_zsrc_ahead_main(void *arg)
{
    gs_zsrc *s = arg;
    for (int k = 0;; k ^= 1) {
        gs_zslot *sl = &s->slot[k];
        pthread_mutex_lock(&s->ahead_mu);
        while (sl->state != GS_ZSLOT_FREE && !s->ahead_stop) pthread_cond_wait(&s->ahead_cv, &s->ahead_mu);
        const int stop = s->ahead_stop;
        pthread_mutex_unlock(&s->ahead_mu);
        if (stop) break;
        gs_status st = {0};
        size_t got = 0;
        int rc = GS_OK;
        if (sl->cap < s->slot_want) { /* a batch larger than the slot waits in s->out meanwhile */
            free(sl->buf);
            sl->cap = (sl->buf = malloc(s->slot_want)) ? s->slot_want : 0;
            if (!sl->buf) rc = gs_fail(&st, GS_ENOMEM, "%s: out of memory", s->base.name);
        }
        if (!rc) rc = gs_zsrc_pull(s, sl->buf, sl->cap, &got, &st);
        if (!rc && got == sl->cap && s->slot_want < GS_Z_BATCH_MAX) { /* next time the batch fits */
            size_t want = s->out_len > 2 * sl->cap ? s->out_len : 2 * sl->cap;
            s->slot_want = want < GS_Z_BATCH_MAX ? want : GS_Z_BATCH_MAX;
        }
        pthread_mutex_lock(&s->ahead_mu);
        sl->len = rc ? 0 : got;
        sl->pos = 0;
        sl->rc = rc;
        sl->st = st;
        sl->consumed = s->in_consumed;
        sl->state = GS_ZSLOT_READY;
        pthread_cond_broadcast(&s->ahead_cv);
        pthread_mutex_unlock(&s->ahead_mu);
        if (rc || !got) break;
    }
    return NULL;
}

static int gs_zsrc_read(gs_bsrc *b, void *buf, size_t cap, size_t *got, gs_status *st)
{
    gs_zsrc *s = (gs_zsrc *)b;
    *got = 0;
    if (s->ahead && !s->ahead_running) {
        if (pthread_create(&s->ahead_tid, NULL, gs_zsrc_ahead_main, s) == 0) s->ahead_running = 1;
        else s->ahead = 0; /* no thread: decode on this one */
    }
    if (!s->ahead) {
        int rc = gs_zsrc_pull(s, buf, cap, got, st);
        s->base.consumed = s->in_consumed;
        return rc;
    }
    if (cap == 0) return GS_OK;
    for (;;) {
        gs_zslot *sl = &s->slot[s->ahead_cur];
        pthread_mutex_lock(&s->ahead_mu);
        while (sl->state != GS_ZSLOT_READY) pthread_cond_wait(&s->ahead_cv, &s->ahead_mu);
        pthread_mutex_unlock(&s->ahead_mu);
        s->base.consumed = sl->consumed;
        if (sl->rc) { /* the slot keeps it: every later read meets it again */
            *st = sl->st;
            return sl->rc;
        }
        if (sl->len == 0) return GS_OK; /* the end */
        if (sl->pos < sl->len) {
            size_t n = sl->len - sl->pos < cap ? sl->len - sl->pos : cap;
            gs_par_copy(buf, sl->buf + sl->pos, n, s->threads);
            sl->pos += n;
            *got = n;
            return GS_OK;
        }
        pthread_mutex_lock(&s->ahead_mu);
        sl->state = GS_ZSLOT_FREE;
        pthread_cond_broadcast(&s->ahead_cv);
        pthread_mutex_unlock(&s->ahead_mu);
        s->ahead_cur ^= 1;
    }
}

/* Frames for a decoder on a device (gs_reader_frames): gathered as a batch is (the window holds
 * them, unmoved after the first), each checked by io/zstd_frames.c; where the chunk is not filled
 * exactly the window goes back to the first frame and nothing is taken. */
typedef struct gs_zcopy_job {
    const gs_zsrc *s;
    const gs_zframes_req *q;
    size_t from, n;
} gs_zcopy_job;

static void gs_zcopy_part(void *ctx, size_t part, size_t nparts)
{
    const gs_zcopy_job *j = ctx;
    size_t b, e;
    gs_split(j->n - j->from, nparts, part, &b, &e);
    for (size_t i = j->from + b; i < j->from + e; i++)
        memcpy(j->q->dst + j->q->t[i].off, j->s->win + j->s->frames[i].off, j->q->t[i].csize);
}

/* Frames [from, n) from the window to their places in q->dst, on the pool. */
static void gs_zsrc_gather(gs_zsrc *s, const gs_zframes_req *q, size_t from, size_t n)
{
    if (n <= from) return;
    size_t parts = n - from < (size_t)s->threads ? n - from : (size_t)s->threads;
    gs_zcopy_job j = {s, q, from, n};
    gs_parallel_for(parts, gs_zcopy_part, &j);
}

/* A chunk's frames not taken after all: the window gets back the bytes of frames [0, n) in front
 * of what it holds, as they were in the input; frames [0, flushed) were gathered into q->dst
 * already and the window holds what followed them from offset 0 (gs_zsrc_frames). */
static int gs_zsrc_untake(gs_zsrc *s, const gs_zframes_req *q, size_t flushed, gs_status *st)
{
    if (!flushed) {
        s->win_pos = s->frames[0].off;
        return GS_OK;
    }
    size_t f = 0;
    for (size_t i = 0; i < flushed; i++) f += q->t[i].csize;
    if (s->win_cap < f + s->win_len) {
        unsigned char *w = realloc(s->win, f + s->win_len);
        if (!w) return gs_fail(st, GS_ENOMEM, "%s: out of memory", s->base.name);
        s->win = w;
        s->win_cap = f + s->win_len;
        if (s->win_max < s->win_cap) s->win_max = s->win_cap;
    }
    memmove(s->win + f, s->win, s->win_len);
    for (size_t i = 0, at = 0; i < flushed; at += q->t[i].csize, i++) memcpy(s->win + at, q->dst + q->t[i].off, q->t[i].csize);
    s->win_len += f;
    s->win_pos = 0;
    s->win_full = s->win_len == s->win_cap;
    return GS_OK;
}

static int gs_zsrc_frames(gs_bsrc *b, const gs_zframes_req *q, size_t esize, size_t *nf, uint64_t *bytes,
                          gs_status *st)
{
    gs_zsrc *s = (gs_zsrc *)b;
    size_t n = 0, total = 0, end = 0, flushed = 0;
    double gathered = 0; /* seconds gathering frames into dst (GS_TRACE's timeline only) */
    int kind = GS_ZF_END, rc;
    *nf = 0;
    *bytes = 0;
    /* A peek (the format's detection) decoded the input's first frames and holds what it read of
     * them, nothing of it handed on yet: it is dropped and the frames read again from the window,
     * so that the first chunk goes as frames too. */
    if (s->frames_mode && !s->ahead && !s->streaming && s->base.peek && s->out_first_win != SIZE_MAX &&
        gs_bsrc_unpeek(&s->base, s->out_pos)) {
        s->win_pos = s->out_first_win;
        s->out_pos = s->out_len = 0;
        s->decoded = 0;
        s->out_first_win = SIZE_MAX;
    }
    /* (bytes decoded and not yet read, or held by a peek, come first: gs_zsrc_read) */
    if (!s->frames_mode || s->ahead || s->streaming || s->out_pos < s->out_len || s->base.peek || !q->unit || !q->align)
        return GS_OK;
    s->frames_max = q->frame_max;
    const double t0 = gs_trace_enabled() ? gs_now() : 0, fill0 = s->fill_s;
    for (;;) {
        size_t cs = 0, ds = 0;
        gs_zfinfo fi;
        int parsed = 0;
        /* After a chunk's first frame, a whole frame in the window that io/zstd_frames.c reads as
         * a zstd frame of known size is taken as parsed there; anything else (skippable, legacy,
         * cut off by the window's end, refused) goes the general way (gs_zsrc_next, libzstd's own
         * reading of the frame): each frame is read once, not twice. */
        const size_t avail = s->win_len - s->win_pos;
        if (n > 0 && avail >= GS_Z_HEADER_MAX &&
            gs_zframe_parse(s->win + s->win_pos, avail, &fi, NULL) == GS_ZF_OK && !fi.skippable &&
            fi.content != GS_ZF_UNKNOWN && fi.content <= GS_Z_FRAME_MAX) {
            kind = GS_ZF_BATCH;
            cs = (size_t)fi.csize;
            ds = (size_t)fi.content;
            parsed = 1;
        } else {
            /* The next frame is not whole in the window. Where the window is full, the frames
             * taken so far go to dst now and what follows them moves to the window's start (a
             * frame's worth at most, not the window's): taken frames refer to window offsets, so
             * the window moves only once none is left in it. */
            for (;;) {
                if (n > flushed && s->win_len == s->win_cap) {
                    const double tg = gs_trace_enabled() ? gs_now() : 0;
                    gs_zsrc_gather(s, q, flushed, n);
                    if (gs_trace_enabled()) gathered += gs_now() - tg;
                    flushed = n;
                    gs_zsrc_shift(s);
                }
                if ((rc = gs_zsrc_next(s, n == flushed, &kind, &cs, &ds, st))) return rc;
                /* no room without moving: the window filled while the frame was read */
                if (kind != GS_ZF_STOP || n == flushed || s->win_len != s->win_cap) break;
            }
        }
        if (n == 0 && kind == GS_ZF_BATCH && ds && ds <= q->frame_max && s->win_cap < q->dst_cap) {
            /* a frame that qualifies: a window as large as dst, so that a chunk's frames come in
             * few large reads (grown once, before any frame is taken) */
            gs_zsrc_shift(s);
            unsigned char *w = realloc(s->win, q->dst_cap);
            if (!w) return gs_fail(st, GS_ENOMEM, "%s: out of memory", s->base.name);
            s->win = w;
            s->win_cap = s->win_max = q->dst_cap;
            s->win_full = 0;
        }
        if (kind == GS_ZF_SKIP && n == 0) { /* no output either way */
            if ((rc = gs_zsrc_skip(s, st))) return rc;
            continue;
        }
        if (kind != GS_ZF_BATCH) break;
        size_t off = (end + q->align - 1) / q->align * q->align;
        if (total % q->unit || ds == 0 || ds > q->frame_max || ds > q->content_max - total || n == q->t_cap ||
            off > q->dst_cap || cs > q->dst_cap - off ||
            (!parsed && gs_zframe_parse(s->win + s->win_pos, cs, &fi, NULL) != GS_ZF_OK) || fi.skippable || !fi.checksum ||
            fi.dict_id || fi.csize != cs || fi.content != ds) {
            kind = GS_ZF_STOP;
            break;
        }
        if (n == s->frames_cap) {
            size_t nc = s->frames_cap ? s->frames_cap * 2 : 64;
            gs_zframe *f = realloc(s->frames, nc * sizeof *f);
            if (!f) return gs_fail(st, GS_ENOMEM, "%s: out of memory", s->base.name);
            s->frames = f;
            s->frames_cap = nc;
        }
        s->frames[n] = (gs_zframe){s->win_pos, cs, total, ds, 0, fi.xxh};
        q->t[n] = (gs_zfref){off, cs, total, ds, fi.xxh};
        n++;
        end = off + cs;
        total += ds;
        s->win_pos += cs;
        if (total == q->content_max) break;
    }
    if (!n) return GS_OK;
    if (total != q->content_max && !(kind == GS_ZF_END && total % esize == 0))
        return gs_zsrc_untake(s, q, flushed, st); /* not taken: gs_zsrc_read decodes them */
    const double t1 = gs_trace_enabled() ? gs_now() : 0;
    gs_zsrc_gather(s, q, flushed, n);
    if (gs_trace_enabled())
        gs_trace("reader: %zu frames, %zu B: found and checked %.2f ms (reading %.2f), gathered %.2f ms", n, end,
                 (t1 - t0 - gathered) * 1e3, (s->fill_s - fill0) * 1e3, (gs_now() - t1 + gathered) * 1e3);
    s->base.consumed = s->in_consumed;
    s->decoded += total;
    *nf = n;
    *bytes = total;
    return GS_OK;
}

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
        if (!dc || ZSTD_isError(r) || r != f->dsize || (uint32_t)gs_xxh64(j->dst + f->at, r, 0) != f->xxh)
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
        t[f] = (gs_zfref){at, r, f * frame, m, (uint32_t)gs_xxh64(p, m, 0)};
        at += r;
    }
    ZSTD_freeCCtx(cx);
    *nframes = n;
    *bytes = at;
    return GS_OK;
}

static void gs_zsrc_close(gs_bsrc *b)
{
    gs_zsrc *s = (gs_zsrc *)b;
    /* the decoder finishes the batch it is on (a regular file: no wait on a writer) */
    if (s->ahead_running) gs_thread_stop(&s->ahead_mu, &s->ahead_cv, &s->ahead_stop, s->ahead_tid);
    pthread_mutex_destroy(&s->ahead_mu);
    pthread_cond_destroy(&s->ahead_cv);
    free(s->slot[0].buf);
    free(s->slot[1].buf);
    if (s->in) s->in->close(s->in);
    if (s->dctx)
        for (int i = 0; i < s->threads; i++) ZSTD_freeDCtx(s->dctx[i]);
    ZSTD_freeDStream(s->ds);
    free(s->dctx);
    free(s->frames);
    free(s->dev.src), free(s->dev.csize), free(s->dev.dsize), free(s->dev.doff), free(s->dev.idx), free(s->dev.ok);
    free(s->win);
    free(s->out);
    free(s);
}

int gs_bsrc_open_zstd(gs_bsrc **out, gs_bsrc *in, int threads, gs_zcodec *codec, int frames, gs_status *st)
{
    *out = NULL;
    gs_zsrc *s = calloc(1, sizeof *s);
    if (!s) {
        in->close(in);
        return gs_fail(st, GS_ENOMEM, "out of memory");
    }
    s->base.read = gs_zsrc_read;
    s->base.close = gs_zsrc_close;
    s->base.name = in->name;
    s->base.size = -1;
    s->base.consumed = s->in_consumed = in->consumed;
    s->in = in;
    s->codec = codec;
    s->frames_mode = frames;
    s->frames_max = SIZE_MAX;
    s->out_first_win = SIZE_MAX;
    if (frames) s->base.frames = gs_zsrc_frames;
    s->threads = threads > 0 ? threads : gs_pool_threads();
    pthread_mutex_init(&s->ahead_mu, NULL);
    pthread_cond_init(&s->ahead_cv, NULL);
    /* Decoding ahead overlaps the decoding of one batch with the caller's use of the last. Only
     * from a regular file: closing early waits for the decoder's read, which a pipe's writer
     * could hold up for ever. The device codec's batches stay on the caller's thread. */
    s->ahead = in->size >= 0 && s->threads > 1 && !codec && !frames && !gs_zstd_sync;
    s->slot_want = GS_Z_SLOT_START;
    s->win_cap = GS_Z_WIN_PER_THREAD * (size_t)s->threads;
    if (s->win_cap < GS_Z_WIN_MIN) s->win_cap = GS_Z_WIN_MIN;
    if (s->win_cap > GS_Z_WIN_MAX) s->win_cap = GS_Z_WIN_MAX;
    if (gs_zstd_window) s->win_cap = gs_zstd_window;
    /* A small file needs no large window. */
    if (in->size >= 0 && (uint64_t)in->size + 1 < s->win_cap) s->win_cap = (size_t)in->size + 1;
    if (s->win_cap < 64) s->win_cap = 64;
    s->win_max = s->win_cap;
    if (in->size < 0 && !gs_zstd_window && s->win_cap > GS_Z_WIN_START) s->win_cap = GS_Z_WIN_START;
    s->win = malloc(s->win_cap);
    s->dctx = calloc((size_t)s->threads, sizeof *s->dctx);
    if (!s->win || !s->dctx) {
        gs_zsrc_close(&s->base);
        return gs_fail(st, GS_ENOMEM, "out of memory");
    }
    *out = &s->base;
    return GS_OK;
}

/* ---- compressing sink ------------------------------------------------------------------------
 * Two sets of compressed-frame buffers: while the writer thread writes batch k to the sink below,
 * the pool compresses batch k+1 into the other set (the sink's writes took a fifth of the time
 * when done in between batches). */
typedef struct gs_zbatch {
    unsigned char *cbuf; /* batch_frames compressed frames, cbound apart */
    size_t *clen;
    size_t nframes;
} gs_zbatch;

typedef struct gs_zsink {
    gs_bsink base;
    gs_bsink *out;
    int level, threads;
    size_t frame;         /* input bytes per frame */
    size_t batch_frames;  /* frames per parallel batch */
    unsigned char *stage; /* input gathered for the next batch */
    size_t stage_len;
    size_t cbound;
    gs_zbatch set[2];
    int cur;              /* the set the next batch is compressed into */
    ZSTD_CCtx **cctx;     /* one per worker */
    gs_zcodec *codec;     /* device codec, or NULL */
    uint64_t frames_out;
    /* the writer thread; guarded by mu */
    pthread_t writer;
    int have_writer;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    gs_zbatch *pending;   /* handed to the writer, not yet written */
    int stop;
    gs_status wst;        /* the writer's first failure */
    uint64_t wbytes;      /* out->written as the writer last saw it */
    /* Compressing ahead (libzstd with several threads, or a device codec): the encoder thread compresses one stage
     * while the caller fills the other; guarded by mu */
    int ahead, have_encoder, enc_stop; /* ahead: hand full batches over (the thread once one is) */
    unsigned char *spare;        /* the stage the caller fills next */
    const unsigned char *enc_src; /* the stage being compressed; NULL when the encoder is idle */
    size_t enc_len;
    gs_status est;               /* the encoder's first failure */
    pthread_t encoder;
} gs_zsink;

static void *gs_zsink_writer(void *arg)
{
    gs_zsink *k = arg;
    pthread_mutex_lock(&k->mu);
    for (;;) {
        while (!k->pending && !k->stop) pthread_cond_wait(&k->cv, &k->mu);
        if (!k->pending) break;
        gs_zbatch *b = k->pending;
        int failed = k->wst.code != GS_OK;
        pthread_mutex_unlock(&k->mu);
        gs_status st = {0};
        for (size_t f = 0; f < b->nframes && !failed; f++)
            failed = k->out->write(k->out, b->cbuf + f * k->cbound, b->clen[f], &st) != GS_OK;
        pthread_mutex_lock(&k->mu);
        if (failed && k->wst.code == GS_OK) k->wst = st;
        k->wbytes = k->out->written;
        k->pending = NULL;
        pthread_cond_broadcast(&k->cv);
    }
    pthread_mutex_unlock(&k->mu);
    return NULL;
}

/* A thread's failure e (GS_OK: none), given to the caller's st unless it holds one already. */
static int gs_zsink_failure(gs_status e, gs_status *st)
{
    if (e.code != GS_OK && st && st->code == GS_OK) *st = e;
    return e.code;
}

/* Wait until the writer has written everything handed to it; its failure, if any. */
static int gs_zsink_drain(gs_zsink *k, gs_status *st)
{
    pthread_mutex_lock(&k->mu);
    while (k->pending) pthread_cond_wait(&k->cv, &k->mu);
    gs_status w = k->wst;
    pthread_mutex_unlock(&k->mu);
    return gs_zsink_failure(w, st);
}

/* The bytes the writer has written so far, for the caller's byte count. */
static void gs_zsink_count(gs_zsink *k)
{
    pthread_mutex_lock(&k->mu);
    k->base.written = k->wbytes;
    pthread_mutex_unlock(&k->mu);
}

typedef struct gs_zenc_job {
    gs_zsink *k;
    gs_zbatch *b;
    const unsigned char *src;
    size_t len;
} gs_zenc_job;

/* Bytes of frame f of a batch of len bytes cut into k->frame-byte frames (the last may be short). */
static size_t gs_zframe_len(const gs_zsink *k, size_t len, size_t f)
{
    size_t at = f * k->frame;
    return len - at < k->frame ? len - at : k->frame;
}

static void gs_zenc_part(void *ctx, size_t part, size_t nparts)
{
    gs_zenc_job *j = ctx;
    gs_zsink *k = j->k;
    size_t b, e;
    gs_split(j->b->nframes, nparts, part, &b, &e);
    for (size_t f = b; f < e; f++) {
        size_t off = f * k->frame, n = gs_zframe_len(k, j->len, f);
        j->b->clen[f] = ZSTD_compress2(k->cctx[part], j->b->cbuf + f * k->cbound, k->cbound, j->src + off, n);
    }
}

/* The device codec's frames, copied into the batch with their content size and checksum; 0 in
 * clen where that failed. */
typedef struct gs_zfinish_job {
    gs_zsink *k;
    gs_zbatch *b;
    const unsigned char *src, *packed;
    size_t len;
    const size_t *off, *raw;
} gs_zfinish_job;

static void gs_zfinish_part(void *ctx, size_t part, size_t nparts)
{
    gs_zfinish_job *j = ctx;
    gs_zsink *k = j->k;
    size_t b, e;
    gs_split(j->b->nframes, nparts, part, &b, &e);
    for (size_t f = b; f < e; f++) {
        size_t at = f * k->frame, n = gs_zframe_len(k, j->len, f);
        j->b->clen[f] = gs_zframe_finish(j->packed + j->off[f], j->raw[f], n, (uint32_t)gs_xxh64(j->src + at, n, 0),
                                         j->b->cbuf + f * k->cbound, k->cbound, NULL);
    }
}

/* *done = 0 where the codec never started: the caller compresses the batch with libzstd. */
static int gs_zsink_device_batch(gs_zsink *k, gs_zbatch *b, const unsigned char *src, size_t len, int *done,
                                 gs_status *st)
{
    double t0 = gs_now();
    const unsigned char *packed = NULL;
    size_t *off = b->clen + b->nframes, *raw = off + b->nframes; /* clen holds 3 x batch_frames */
    int rc = k->codec->encode(k->codec, src, len, k->frame, &packed, off, raw, st);
    *done = packed != NULL;
    if (rc || !packed) return rc;
    size_t parts = b->nframes < (size_t)k->threads ? b->nframes : (size_t)k->threads;
    gs_zfinish_job j = {k, b, src, packed, len, off, raw};
    gs_parallel_for(parts, gs_zfinish_part, &j);
    uint64_t out = 0;
    for (size_t f = 0; f < b->nframes; f++) {
        if (!b->clen[f]) {
            const char *why = "?";
            gs_zframe_finish(packed + off[f], raw[f], gs_zframe_len(k, len, f), 0, b->cbuf + f * k->cbound, k->cbound, &why);
            return gs_fail(st, GS_EDATA, "%s: %s zstd encoder wrote an unusable frame: %s", k->base.name,
                           k->codec->name, why);
        }
        out += b->clen[f];
    }
    k->codec->enc_in += len;
    k->codec->enc_out += out;
    k->codec->enc_frames += b->nframes;
    k->codec->enc_s += gs_now() - t0;
    return GS_OK;
}

/* Batch b (the set at k->cur, filled) to the writer once it is done with the previous one. */
static int gs_zsink_pass(gs_zsink *k, gs_zbatch *b, gs_status *st)
{
    int rc = gs_zsink_drain(k, st);
    if (rc) return rc;
    pthread_mutex_lock(&k->mu);
    k->pending = b;
    pthread_cond_broadcast(&k->cv);
    pthread_mutex_unlock(&k->mu);
    k->cur ^= 1;
    k->frames_out += b->nframes;
    return GS_OK;
}

/* Compress [src, src+len) as frames of k->frame bytes (at least one frame), then hand them to
 * the writer once it is done with the previous batch. */
static int gs_zsink_batch(gs_zsink *k, const unsigned char *src, size_t len, gs_status *st)
{
    gs_zbatch *b = &k->set[k->cur];
    b->nframes = len ? (len + k->frame - 1) / k->frame : 1;
    int done = 0;
    if (k->codec && len) { /* an empty output's one empty frame comes from libzstd */
        int rc = gs_zsink_device_batch(k, b, src, len, &done, st);
        if (rc) return rc;
        if (!done) k->codec->enc_cpu_frames += b->nframes;
    }
    if (!done) {
        size_t parts = b->nframes < (size_t)k->threads ? b->nframes : (size_t)k->threads;
        gs_zenc_job j = {k, b, src, len};
        gs_parallel_for(parts, gs_zenc_part, &j);
        for (size_t f = 0; f < b->nframes; f++)
            if (ZSTD_isError(b->clen[f]))
                return gs_fail(st, GS_EDATA, "%s: zstd compression failed: %s", k->base.name,
                               ZSTD_getErrorName(b->clen[f]));
    }
    return gs_zsink_pass(k, b, st);
}

/* The encoder thread: each stage handed to it, compressed and passed on to the writer; after a
 * failure it only frees the stages (the caller meets the failure at its next hand-over). */
static void *gs_zsink_encoder(void *arg)
{
    gs_zsink *k = arg;
    pthread_mutex_lock(&k->mu);
    for (;;) {
        while (!k->enc_src && !k->enc_stop) pthread_cond_wait(&k->cv, &k->mu);
        if (!k->enc_src) break;
        const unsigned char *src = k->enc_src;
        size_t len = k->enc_len;
        int failed = k->est.code != GS_OK;
        pthread_mutex_unlock(&k->mu);
        gs_status st = {0};
        int rc = failed ? GS_OK : gs_zsink_batch(k, src, len, &st);
        pthread_mutex_lock(&k->mu);
        if (rc && k->est.code == GS_OK) k->est = st;
        k->enc_src = NULL;
        pthread_cond_broadcast(&k->cv);
    }
    pthread_mutex_unlock(&k->mu);
    return NULL;
}

/* Wait until the encoder is idle (and with it, every stage handed over is compressed and handed
 * to the writer); its failure, if any. */
static int gs_zsink_enc_wait(gs_zsink *k, gs_status *st)
{
    pthread_mutex_lock(&k->mu);
    while (k->enc_src) pthread_cond_wait(&k->cv, &k->mu);
    gs_status e = k->est;
    pthread_mutex_unlock(&k->mu);
    return gs_zsink_failure(e, st);
}

/* Hand the filled stage (len bytes) to the encoder once it is done with the other, and fill
 * that one next. */
static int gs_zsink_hand(gs_zsink *k, size_t len, gs_status *st)
{
    if (!k->have_encoder) { /* the first full batch: the second stage and the thread, else none */
        if ((k->spare = malloc(k->batch_frames * k->frame)) &&
            pthread_create(&k->encoder, NULL, gs_zsink_encoder, k) == 0)
            k->have_encoder = 1;
        else {
            free(k->spare);
            k->spare = NULL;
            k->ahead = 0;
            return gs_zsink_batch(k, k->stage, len, st);
        }
    }
    int rc = gs_zsink_enc_wait(k, st);
    if (rc) return rc;
    pthread_mutex_lock(&k->mu);
    k->enc_src = k->stage;
    k->enc_len = len;
    unsigned char *t = k->stage;
    k->stage = k->spare;
    k->spare = t;
    pthread_cond_broadcast(&k->cv);
    pthread_mutex_unlock(&k->mu);
    return GS_OK;
}

/* What the stage holds, compressed and handed on (a short last frame); the encoder is idle after. */
static int gs_zsink_flush(gs_zsink *k, gs_status *st)
{
    int rc = GS_OK;
    if (k->have_encoder) {
        if (k->stage_len) rc = gs_zsink_hand(k, k->stage_len, st);
        if (rc == GS_OK) rc = gs_zsink_enc_wait(k, st);
    } else if (k->stage_len)
        rc = gs_zsink_batch(k, k->stage, k->stage_len, st);
    k->stage_len = 0;
    return rc;
}

static int gs_zsink_write(gs_bsink *b, const void *buf, size_t n, gs_status *st)
{
    gs_zsink *k = (gs_zsink *)b;
    const unsigned char *p = buf;
    size_t batch = k->batch_frames * k->frame;
    while (n) {
        int rc;
        if (!k->ahead && k->stage_len == 0 && n >= batch) { /* whole batches straight from the caller */
            size_t len = n - n % batch;
            for (size_t off = 0; off < len; off += batch)
                if ((rc = gs_zsink_batch(k, p + off, batch, st))) return rc;
            p += len;
            n -= len;
            continue;
        }
        size_t take = batch - k->stage_len < n ? batch - k->stage_len : n;
        gs_par_copy(k->stage + k->stage_len, p, take, k->threads);
        k->stage_len += take;
        p += take;
        n -= take;
        if (k->stage_len == batch) {
            k->stage_len = 0;
            if ((rc = k->ahead ? gs_zsink_hand(k, batch, st) : gs_zsink_batch(k, k->stage, batch, st))) return rc;
        }
    }
    gs_zsink_count(k);
    return GS_OK;
}

/* Frames compressed elsewhere (gs_bsink.frames): what the caller wrote before is compressed and
 * handed on first (a short last frame), then the frames, given their content size and checksum
 * by the pool into the batch sets (batch_frames at a time), go to the writer thread in order. */
typedef struct gs_zext_job {
    gs_zsink *k;
    gs_zbatch *b;
    const unsigned char *buf;
    const gs_zfref *t;
} gs_zext_job;

static void gs_zext_part(void *ctx, size_t part, size_t nparts)
{
    gs_zext_job *j = ctx;
    size_t b, e;
    gs_split(j->b->nframes, nparts, part, &b, &e);
    for (size_t f = b; f < e; f++)
        j->b->clen[f] = gs_zframe_finish(j->buf + j->t[f].off, j->t[f].csize, j->t[f].dsize, j->t[f].xxh,
                                         j->b->cbuf + f * j->k->cbound, j->k->cbound, NULL);
}

static int gs_zsink_frames(gs_bsink *bk, const unsigned char *buf, const gs_zfref *t, size_t n, gs_status *st)
{
    gs_zsink *k = (gs_zsink *)bk;
    int rc = gs_zsink_flush(k, st); /* then the encoder is idle and the batch sets are ours */
    for (size_t at = 0; rc == GS_OK && at < n;) {
        gs_zbatch *b = &k->set[k->cur]; /* never the one the writer holds (that is the other) */
        b->nframes = n - at < k->batch_frames ? n - at : k->batch_frames;
        size_t parts = b->nframes < (size_t)k->threads ? b->nframes : (size_t)k->threads;
        gs_zext_job j = {k, b, buf, t + at};
        gs_parallel_for(parts, gs_zext_part, &j);
        for (size_t f = 0; f < b->nframes; f++)
            if (!b->clen[f]) {
                const char *why = "?";
                gs_zframe_finish(buf + t[at + f].off, t[at + f].csize, t[at + f].dsize, 0, b->cbuf, k->cbound, &why);
                return gs_fail(st, GS_EDATA, "%s: a zstd frame from the device encoder is unusable: %s", k->base.name, why);
            }
        if ((rc = gs_zsink_pass(k, b, st))) break;
        at += b->nframes;
    }
    gs_zsink_count(k);
    return rc;
}

static int gs_zsink_pwrite(gs_bsink *b, const void *buf, size_t n, uint64_t off, gs_status *st)
{
    (void)buf, (void)n, (void)off;
    return gs_fail(st, GS_EUSAGE, "%s: compressed output is not seekable", b->name);
}

/* Stop the writer (after what it holds) and free everything but the sink below. */
static void gs_zsink_free(gs_zsink *k)
{
    /* the encoder first (after the stage it is on, if any): it hands batches to the writer */
    if (k->have_encoder) gs_thread_stop(&k->mu, &k->cv, &k->enc_stop, k->encoder);
    if (k->have_writer) gs_thread_stop(&k->mu, &k->cv, &k->stop, k->writer);
    pthread_mutex_destroy(&k->mu);
    pthread_cond_destroy(&k->cv);
    if (k->cctx)
        for (int i = 0; i < k->threads; i++) ZSTD_freeCCtx(k->cctx[i]);
    free(k->cctx);
    for (int i = 0; i < 2; i++) {
        free(k->set[i].clen);
        free(k->set[i].cbuf);
    }
    free(k->stage);
    free(k->spare);
    free(k);
}

static void gs_zsink_abort(gs_bsink *b)
{
    gs_zsink *k = (gs_zsink *)b;
    if (!k) return;
    gs_bsink *out = k->out;
    gs_zsink_free(k);
    out->abort(out);
}

/* The last partial batch, compressed and written; an empty output still gets one (empty) frame,
 * so it is a zstd file. */
static int gs_zsink_end(gs_bsink *b, gs_status *st)
{
    gs_zsink *k = (gs_zsink *)b;
    int rc = gs_zsink_flush(k, st);
    if (rc == GS_OK && k->frames_out == 0) rc = gs_zsink_batch(k, k->stage, 0, st);
    if (rc == GS_OK) rc = gs_zsink_drain(k, st);
    gs_zsink_count(k);
    if (rc == GS_OK && k->out->end) rc = k->out->end(k->out, st);
    return rc;
}

static int gs_zsink_close(gs_bsink *b, gs_status *st)
{
    gs_zsink *k = (gs_zsink *)b;
    int rc = gs_zsink_end(b, st);
    if (rc) {
        gs_zsink_abort(b);
        return rc;
    }
    gs_bsink *out = k->out;
    gs_zsink_free(k);
    return out->close(out, st);
}

int gs_bsink_open_zstd(gs_bsink **res, gs_bsink *out, int level, size_t frame_size, int threads, gs_zcodec *codec,
                       gs_status *st)
{
    *res = NULL;
    if (codec && (frame_size > codec->frame_max || frame_size % codec->frame_align)) {
        out->abort(out);
        return gs_fail(st, GS_EUSAGE, "--frame-size %zu: the %s zstd encoder takes frames of at most %zu bytes, a multiple of %zu",
                       frame_size, codec->name, codec->frame_max, codec->frame_align);
    }
    if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()) {
        out->abort(out);
        return gs_fail(st, GS_EUSAGE, "--level %d: zstd levels run from %d to %d", level, ZSTD_minCLevel(),
                       ZSTD_maxCLevel());
    }
    if (frame_size == 0) frame_size = (size_t)16 << 20;
    if (frame_size > GS_ZSTD_FRAME_MAX) {
        out->abort(out);
        return gs_fail(st, GS_EUSAGE, "--frame-size %zu: at most 1G", frame_size);
    }
    gs_zsink *k = calloc(1, sizeof *k);
    if (!k) {
        out->abort(out);
        return gs_fail(st, GS_ENOMEM, "out of memory");
    }
    k->base.write = gs_zsink_write;
    k->base.pwrite = gs_zsink_pwrite;
    k->base.close = gs_zsink_close;
    k->base.end = gs_zsink_end;
    k->base.abort = gs_zsink_abort;
    k->base.frames = gs_zsink_frames;
    k->base.name = out->name;
    k->base.seekable = 0;
    k->base.written = out->written;
    k->wbytes = out->written;
    k->out = out;
    k->level = level;
    k->threads = threads > 0 ? threads : gs_pool_threads();
    k->frame = frame_size;
    k->codec = codec;
    pthread_mutex_init(&k->mu, NULL);
    pthread_cond_init(&k->cv, NULL);
    /* Memory is bounded by configuration, not by the thread count: a batch holds at most
     * GS_Z_ENC_FRAMES frames and 256 MiB of input (one frame if a frame is larger), with a device
     * codec GS_Z_DEV_BATCH of input; without one, at most GS_Z_ENC_FRAMES encoder contexts exist,
     * however many threads there are. */
    size_t most = (codec ? GS_Z_DEV_BATCH : GS_Z_BATCH_MAX) / frame_size;
    k->batch_frames = codec || most < GS_Z_ENC_FRAMES ? (most > 1 ? most : 1) : GS_Z_ENC_FRAMES;
    if ((size_t)k->threads > k->batch_frames) k->threads = (int)k->batch_frames;
    k->cbound = ZSTD_compressBound(frame_size) + 16; /* frames from elsewhere grow by content size and checksum */
    if (codec) { /* the codec's bound, and room for the content size and checksum added to its frames */
        size_t cb = codec->bound(codec, frame_size);
        k->cbound = (cb > k->cbound ? cb : k->cbound) + 16;
    }
    k->stage = malloc(k->batch_frames * frame_size);
    int ok = k->stage != NULL;
    for (int i = 0; i < 2 && ok; i++) {
        k->set[i].cbuf = malloc(k->batch_frames * k->cbound);
        k->set[i].clen = calloc(3 * k->batch_frames, sizeof *k->set[i].clen); /* 3x: see gs_zsink_device_batch */
        ok = k->set[i].cbuf && k->set[i].clen;
    }
    k->cctx = ok ? calloc((size_t)k->threads, sizeof *k->cctx) : NULL;
    ok = k->cctx != NULL;
    for (int i = 0; ok && i < k->threads; i++) {
        ok = (k->cctx[i] = ZSTD_createCCtx()) != NULL;
        ok = ok && !ZSTD_isError(ZSTD_CCtx_setParameter(k->cctx[i], ZSTD_c_compressionLevel, level));
        ok = ok && !ZSTD_isError(ZSTD_CCtx_setParameter(k->cctx[i], ZSTD_c_checksumFlag, 1));
        ok = ok && !ZSTD_isError(ZSTD_CCtx_setParameter(k->cctx[i], ZSTD_c_contentSizeFlag, 1));
    }
    ok = ok && pthread_create(&k->writer, NULL, gs_zsink_writer, k) == 0;
    k->have_writer = ok;
    /* Compressing ahead: libzstd with several threads, or the device codec (its batch on the
     * device while the caller gathers the next); the second stage and the thread come with the
     * first full batch, so a small output costs neither. Without them the caller compresses. */
    k->ahead = ok && (codec || k->threads > 1) && !gs_zstd_sync;
    if (!ok) {
        gs_fail(st, GS_ENOMEM, "%s: out of memory", out->name);
        gs_zsink_abort(&k->base);
        return GS_ENOMEM;
    }
    *res = &k->base;
    return GS_OK;
}

const char *gs_zstd_version(void) { return ZSTD_versionString(); }
int gs_zstd_max_level(void) { return ZSTD_maxCLevel(); }

uint64_t gs_zstd_content_estimate(const char *path)
{
    const size_t cap = (size_t)8 << 20;
    int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    struct stat sb;
    unsigned char *buf = fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) ? malloc(cap) : NULL;
    size_t got = 0;
    while (buf && got < cap) {
        ssize_t r = pread(fd, buf + got, cap - got, (off_t)got);
        if (r <= 0) break;
        got += (size_t)r;
    }
    if (fd >= 0) close(fd);
    uint64_t content = 0, comp = 0;
    int ok = buf != NULL;
    for (size_t at = 0; ok && at < got;) {
        size_t c = ZSTD_findFrameCompressedSize(buf + at, got - at);
        if (ZSTD_isError(c)) break; /* the frame goes on past what was read */
        if ((gs_le32(buf + at) & GS_Z_SKIP_MASK) != GS_Z_SKIP_MAGIC) {
            unsigned long long n = ZSTD_getFrameContentSize(buf + at, got - at);
            if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN) ok = 0;
            else content += n;
        }
        at += c;
        comp += c;
    }
    free(buf);
    if (!ok || !comp) return 0;
    if (comp >= (uint64_t)sb.st_size) return content;
    return (uint64_t)((double)content / (double)comp * (double)sb.st_size);
}

uint64_t gs_zstd_first_frame_size(const char *path)
{
    /* Only a regular file is looked at: a pipe, FIFO or terminal named as IN would lose to this
     * look the bytes it read (or block it), and the reader must be the only one to read them. */
    struct stat sb;
    FILE *f = path && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) ? fopen(path, "rb") : NULL;
    unsigned char h[GS_Z_HEADER_MAX];
    uint64_t size = GS_ZSTD_SIZE_UNKNOWN;
    for (int skips = 0; f && skips < 16; skips++) {
        size_t n = fread(h, 1, sizeof h, f);
        if (n >= 8 && (gs_le32(h) & GS_Z_SKIP_MASK) == GS_Z_SKIP_MAGIC) {
            if (fseek(f, (long)gs_le32(h + 4) - (long)n + 8, SEEK_CUR)) break;
            continue;
        }
        unsigned long long cs = n >= 4 && gs_le32(h) == ZSTD_MAGICNUMBER ? ZSTD_getFrameContentSize(h, n)
                                                                        : ZSTD_CONTENTSIZE_ERROR;
        if (cs != ZSTD_CONTENTSIZE_ERROR && cs != ZSTD_CONTENTSIZE_UNKNOWN) size = cs;
        break;
    }
    if (f) fclose(f);
    return size;
}
