/* zstd_sink.c - zstd compression as a byte sink, through libzstd or a device codec.
 *
 * Input is cut into frames of frame_size bytes; a batch of frames is compressed by the pool (one
 * ZSTD_CCtx per worker, content size and checksum in every frame) and written in order by a
 * writer thread while the next batch compresses. With libzstd and several threads, or a device
 * codec, an encoder thread compresses each batch while the caller gathers the next into a second
 * stage. Independent frames are what lets any reader, ours or `zstd -T`, decode in parallel.
 * With a device codec, the batch is compressed there and each frame's header is rewritten here
 * (gs_zframe_finish) to carry its content size and the XXH64 checksum of its input, computed on
 * the pool, as libzstd's frames do. */
#include "zstd_internal.h"
#include "../common/pool.h"

#include <stdlib.h>
#include <string.h>

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
    int threads;
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

/* Bytes of frame f of a batch of len bytes cut into k->frame-byte frames (the last may be short). */
static size_t gs_zframe_len(const gs_zsink *k, size_t len, size_t f)
{
    size_t at = f * k->frame;
    return len - at < k->frame ? len - at : k->frame;
}

/* A batch's frames into b's buffers on the pool: compressed by libzstd (packed NULL), or the device
 * codec's frames (at packed + off[f], raw[f] bytes) copied with their content size and checksum,
 * 0 in clen where that failed. */
typedef struct gs_zbatch_job {
    gs_zsink *k;
    gs_zbatch *b;
    const unsigned char *src, *packed;
    size_t len;
    const size_t *off, *raw;
} gs_zbatch_job;

static void gs_zbatch_part(void *ctx, size_t part, size_t nparts)
{
    gs_zbatch_job *j = ctx;
    gs_zsink *k = j->k;
    size_t b, e;
    gs_split(j->b->nframes, nparts, part, &b, &e);
    for (size_t f = b; f < e; f++) {
        size_t at = f * k->frame, n = gs_zframe_len(k, j->len, f);
        unsigned char *dst = j->b->cbuf + f * k->cbound;
        j->b->clen[f] = j->packed ? gs_zframe_finish(j->packed + j->off[f], j->raw[f], n,
                                                     gs_zstd_checksum(j->src + at, n), dst, k->cbound, NULL)
                                  : ZSTD_compress2(k->cctx[part], dst, k->cbound, j->src + at, n);
    }
}

static void gs_zbatch_fill(gs_zsink *k, gs_zbatch *b, const unsigned char *src, size_t len,
                           const unsigned char *packed, const size_t *off, const size_t *raw)
{
    gs_zbatch_job j = {k, b, src, packed, len, off, raw};
    size_t parts = b->nframes < (size_t)k->threads ? b->nframes : (size_t)k->threads;
    gs_parallel_for(parts, gs_zbatch_part, &j);
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
    gs_zbatch_fill(k, b, src, len, packed, off, raw);
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
        gs_zbatch_fill(k, b, src, len, NULL, NULL, NULL);
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

int gs_bsink_open_zstd(gs_bsink **res, gs_bsink *out, const gs_write_opts *o, gs_status *st)
{
    *res = NULL;
    gs_zcodec *codec = o->zcodec;
    const int level = o->level;
    size_t frame_size = o->frame_size;
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
    if (frame_size == 0) frame_size = GS_ZSTD_FRAME_DEFAULT;
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
    k->threads = o->threads > 0 ? o->threads : gs_pool_threads();
    k->frame = frame_size;
    k->codec = codec;
    pthread_mutex_init(&k->mu, NULL);
    pthread_cond_init(&k->cv, NULL);
    /* Memory grows with the threads, as the zstd CLI's does: a libzstd batch holds one frame per
     * thread, at most GS_ZSTD_ENC_FRAMES frames and 256 MiB of input (one frame if a frame is
     * larger); a device codec's holds GS_ZSTD_DEV_BATCH of input. Two batches of input (the one
     * compressing, the one gathering) and two of compressed frames (the one compressing, the one
     * writing) are what the sink holds. */
    size_t most = (codec ? GS_ZSTD_DEV_BATCH : GS_ZSTD_BATCH_MAX) / frame_size;
    if (!codec && most > (size_t)k->threads) most = (size_t)k->threads;
    if (!codec && most > GS_ZSTD_ENC_FRAMES) most = GS_ZSTD_ENC_FRAMES;
    k->batch_frames = most > 1 ? most : 1;
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
    k->ahead = ok && (codec || k->threads > 1) && !o->zstd_sync;
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
