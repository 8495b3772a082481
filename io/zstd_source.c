/* zstd_source.c - zstd decompression as a byte source, through libzstd.
 *
 * The compressed input is read into a window that holds several frames. Frames whose header
 * gives their content size (as gpustream and `zstd` on a file of known size write them) are found
 * with the frame index (io/zstd_index.c) and decoded a batch at a time with the pool, each worker a
 * run of frames with its own context, output in input order; one zstd frame decodes at ~1 GB/s on
 * one core, so many frames are what makes 10+ GB/s possible. A frame without a content size, or
 * too large for a batch, is streamed with ZSTD_decompressStream on the calling thread. Skippable
 * frames are skipped. Anything else (garbage between frames, a frame cut short, a bad checksum) is
 * an error: a short output that looks complete would be worse. From a regular file with several
 * threads and no device codec, a decoder thread does all of this one batch ahead, into two slots
 * in turn, while the caller copies out of the other; an error waits in its slot until the caller
 * has taken every byte before it.
 *
 * With a device codec, a batch's frames go to it first (io/zstd_device.c); every frame it did not
 * verifiably decode is decoded here by libzstd, which reports any corruption as above. Frames
 * handed out whole for a device decoder are io/zstd_frames.c's. */
#include "zstd_internal.h"
#include "../common/pool.h"
#include "../common/trace.h"

#include <stdlib.h>
#include <string.h>

/* The window's first byte still needed. */
static size_t gs_zsrc_kept(const gs_zsrc *s)
{
    return s->indexing ? s->chunk_at : s->win_pos;
}

void gs_zsrc_shift(gs_zsrc *s)
{
    const size_t from = gs_zsrc_kept(s), n = s->win_len - from;
    if (n <= from) gs_par_copy(s->win, s->win + from, n, s->threads); /* apart: on the pool */
    else memmove(s->win, s->win + from, n);
    s->win_len = n;
    s->win_pos -= from;
    if (s->indexing) s->chunk_at = 0;
}

/* Make at least `need` bytes available at win_pos, unless the input ends. With may_move, bytes
 * no longer needed (gs_zsrc_kept) are dropped and the window may grow; without it (a batch refers
 * to window offsets), only the free tail is filled. */
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
            if (gs_zsrc_kept(s) && (s->win_len == s->win_cap || s->win_cap - s->win_pos < need)) gs_zsrc_shift(s);
            if (s->win_cap - s->win_pos < need) {
                size_t cap = s->win_cap * 2 > s->win_pos + need ? s->win_cap * 2 : s->win_pos + need;
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
        if (s->frames_mode && s->frames_max != SIZE_MAX && room > GS_ZSTD_FRAMES_READ) room = GS_ZSTD_FRAMES_READ;
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
    /* a skippable frame and nothing decoded: raw values that begin like one read the same way */
    if (!s->decoded && s->skip_first)
        return gs_fail(st, GS_EDATA, "%s: truncated zstd frame (if it holds raw values, say --from raw)",
                       s->base.name);
    return gs_fail(st, GS_EDATA, "%s: truncated zstd frame", s->base.name);
}

/* libzstd's verdict e on the input, as a message. */
static int gs_zsrc_corrupt(gs_zsrc *s, ZSTD_ErrorCode e, gs_status *st)
{
    if (e == ZSTD_error_srcSize_wrong) return gs_zsrc_truncated(s, st);
    if (e == ZSTD_error_frameParameter_windowTooLarge)
        return gs_fail(st, GS_EDATA, "%s: zstd frame needs a window larger than the %u MiB limit (zstd --long=%d)",
                       s->base.name, 1u << (GS_ZSTD_WINDOW_LOG_MAX - 20), GS_ZSTD_WINDOW_LOG_MAX);
    return gs_fail(st, GS_EDATA, "%s: corrupt zstd data: %s", s->base.name, ZSTD_getErrorString(e));
}

int gs_zsrc_skip(gs_zsrc *s, gs_status *st)
{
    if (!s->decoded) s->skip_first = 1;
    int rc = gs_zsrc_fill(s, GS_ZSTD_SKIP_HEADER, 1, st);
    if (rc) return rc;
    gs_zfinfo fi;
    if (gs_zframe_head(s->win + s->win_pos, s->win_len - s->win_pos, &fi) != GS_ZF_OK) return gs_zsrc_truncated(s, st);
    uint64_t left = fi.csize;
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

int gs_zsrc_frames_room(gs_zsrc *s, size_t n, gs_status *st)
{
    if (n < s->frames_cap) return GS_OK;
    size_t nc = s->frames_cap ? s->frames_cap * 2 : 64;
    gs_zframe *f = realloc(s->frames, nc * sizeof *f);
    if (!f) return gs_fail(st, GS_ENOMEM, "%s: out of memory", s->base.name);
    s->frames = f;
    s->frames_cap = nc;
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
        if (ZSTD_isError(rets[f])) rc = gs_zsrc_corrupt(s, ZSTD_getErrorCode(rets[f]), st);
        else if (rets[f] != s->frames[f].dsize)
            rc = gs_fail(st, GS_EDATA, "%s: corrupt zstd data: frame size differs from its header", s->base.name);
    }
    free(rets);
    return rc;
}


int gs_zsrc_next(gs_zsrc *s, int may_move, int *kind, size_t *csize, size_t *dsize, gs_status *st)
{
    int rc = gs_zsrc_fill(s, GS_ZSTD_HEADER_MAX, may_move, st);
    if (rc) return rc;
    size_t avail = s->win_len - s->win_pos;
    const unsigned char *p = s->win + s->win_pos;
    if (avail == 0) {
        *kind = s->in_eof ? GS_ZN_END : GS_ZN_STOP;
        return GS_OK;
    }
    if (avail < 4 && s->in_eof) return gs_zsrc_truncated(s, st);
    if (avail < GS_ZSTD_HEADER_MAX && !s->in_eof) { /* no room to see the header yet */
        *kind = GS_ZN_STOP;
        return GS_OK;
    }
    gs_zfinfo fi;
    const int head = gs_zframe_head(p, avail, &fi);
    if (fi.kind == GS_ZK_SKIP) {
        *kind = GS_ZN_SKIP;
        return GS_OK;
    }
    *kind = GS_ZN_STREAM;
    if (fi.kind == GS_ZK_LEGACY) return GS_OK;
    if (head != GS_ZF_OK) return gs_zsrc_corrupt(s, fi.err, st);
    if (fi.content == GS_ZSTD_SIZE_UNKNOWN || fi.content > GS_ZSTD_BATCH_FRAME_MAX) return GS_OK;
    const size_t content = (size_t)fi.content;
    /* The compressed frame can need up to ZSTD_compressBound(content) plus header and checksum. */
    const size_t bound = ZSTD_compressBound(content) + GS_ZSTD_HEADER_MAX + GS_ZSTD_CHECKSUM_LEN;
    for (;;) {
        const int parsed = gs_zframe_parse(p, avail, &fi);
        if (parsed == GS_ZF_OK) {
            *kind = GS_ZN_BATCH;
            *csize = (size_t)fi.csize;
            *dsize = content;
            return GS_OK;
        }
        if (parsed == GS_ZF_BAD) return gs_zsrc_corrupt(s, fi.err, st);
        if (s->in_eof) return gs_zsrc_truncated(s, st);
        /* Bogus block sizes can claim more than the bound: let the stream decoder judge those. */
        if (may_move && avail >= bound) return GS_OK;
        size_t before = avail;
        if ((rc = gs_zsrc_fill(s, avail + 1, may_move, st))) return rc;
        avail = s->win_len - s->win_pos;
        p = s->win + s->win_pos;
        if (avail == before && !s->in_eof) { /* no room without moving: finish the batch first */
            *kind = GS_ZN_STOP;
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
        if (ZSTD_isError(r)) return gs_zsrc_corrupt(s, ZSTD_getErrorCode(r), st);
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
static int gs_zsrc_dstream(gs_zsrc *s, ZSTD_DStream **ds, gs_status *st)
{
    if (!(*ds = ZSTD_createDStream())) return gs_fail(st, GS_ENOMEM, "%s: out of memory", s->base.name);
    if (!ZSTD_isError(ZSTD_DCtx_setParameter(*ds, ZSTD_d_windowLogMax, GS_ZSTD_WINDOW_LOG_MAX))) return GS_OK;
    ZSTD_freeDStream(*ds);
    *ds = NULL;
    return gs_fail(st, GS_EDATA, "%s: this libzstd cannot decode windows of 2^%d bytes", s->base.name,
                   GS_ZSTD_WINDOW_LOG_MAX);
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
        if (s->codec && !s->frames_mode && enough < GS_ZSTD_DEV_BATCH) enough = GS_ZSTD_DEV_BATCH;
        for (;;) {
            int kind = GS_ZN_END;
            size_t csize = 0, dsize = 0;
            int rc = gs_zsrc_next(s, n == 0, &kind, &csize, &dsize, st);
            if (rc) return rc;
            if (kind == GS_ZN_SKIP) {
                if (n) break; /* skipping moves the window: decode what is gathered first */
                if ((rc = gs_zsrc_skip(s, st))) return rc;
                continue;
            }
            if (kind == GS_ZN_END && n == 0) return GS_OK;
            if (kind == GS_ZN_STREAM && n == 0) {
                if (!s->ds && (rc = gs_zsrc_dstream(s, &s->ds, st))) return rc;
                size_t r = ZSTD_DCtx_reset(s->ds, ZSTD_reset_session_only);
                if (ZSTD_isError(r)) return gs_zsrc_corrupt(s, ZSTD_getErrorCode(r), st);
                s->streaming = 1;
                break;
            }
            if (kind != GS_ZN_BATCH) break;
            /* (handing out frames, a batch never passes the caller's buffer: what is left over
             * would hold up the next whole frames) */
            if (n && (total + dsize > GS_ZSTD_BATCH_MAX ||
                      ((n >= (size_t)s->threads || (s->frames_mode && dsize <= s->frames_max)) && total + dsize > cap)))
                break;
            if ((rc = gs_zsrc_frames_room(s, n, st))) return rc;
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
                if (!(s->out = gs_alloc_large(total))) {
                    s->out_cap = 0;
                    return gs_fail(st, GS_ENOMEM, "%s: out of memory", s->base.name);
                }
                s->out_cap = total;
            }
            dst = s->out;
        }
        int rc = gs_zsrc_decode_batch(s, n, dst, st);
        if (rc) return rc;
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

/* gs_bsrc.look of a source that hands out frames: the input's first n decoded bytes, for the
 * format's detection, decoded from the window by a stream decoder of their own. Nothing is taken:
 * the window keeps the frames for gs_zsrc_frames, so the first chunk goes as frames too. A prefix
 * that does not decode cleanly (corrupt, cut short inside a frame) is not answered: the read path
 * meets it and says what is wrong. */
static int gs_zsrc_look(gs_bsrc *b, void *buf, size_t n, size_t *got, int *answered, gs_status *st)
{
    gs_zsrc *s = (gs_zsrc *)b;
    *got = 0;
    *answered = 0;
    gs_status ignored = {0}; /* a stream decoder not made: not answered, the read path meets it */
    if (s->decoded || s->out_pos < s->out_len || s->streaming ||
        (!s->look_ds && gs_zsrc_dstream(s, &s->look_ds, &ignored)) ||
        ZSTD_isError(ZSTD_DCtx_reset(s->look_ds, ZSTD_reset_session_only)))
        return GS_OK;
    ZSTD_outBuffer ob = {buf, n, 0};
    size_t at = 0, r = 0; /* at: bytes looked at past win_pos; r: 0 at a frame's end */
    while (ob.pos < n) {
        if (at == s->win_len - s->win_pos) {
            int rc = gs_zsrc_fill(s, at + 1, 1, st);
            if (rc) return rc;
            if (at == s->win_len - s->win_pos) break; /* the input ends */
        }
        ZSTD_inBuffer ib = {s->win + s->win_pos + at, s->win_len - s->win_pos - at, 0};
        r = ZSTD_decompressStream(s->look_ds, &ob, &ib);
        at += ib.pos;
        if (ZSTD_isError(r)) return GS_OK;
    }
    if (ob.pos < n && r != 0) return GS_OK; /* cut short inside a frame */
    *got = ob.pos;
    *answered = 1;
    return GS_OK;
}

/* The decoder thread: each slot in turn, when the caller has freed it, gets the next batch, until
 * the input ends or an error, which the slot keeps for the caller to meet in order. Slots start
 * at GS_ZSTD_SLOT_START; a batch that did not fit (it waits in s->out) sizes the next slot, at least
 * double, up to GS_ZSTD_BATCH_MAX (the largest batch, which then decodes straight into the slot): a
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
            sl->cap = (sl->buf = gs_alloc_large(s->slot_want)) ? s->slot_want : 0;
            if (!sl->buf) rc = gs_fail(&st, GS_ENOMEM, "%s: out of memory", s->base.name);
        }
        if (!rc) rc = gs_zsrc_pull(s, sl->buf, sl->cap, &got, &st);
        if (!rc && got == sl->cap && s->slot_want < GS_ZSTD_BATCH_MAX) { /* next time the batch fits */
            size_t want = s->out_len > 2 * sl->cap ? s->out_len : 2 * sl->cap;
            s->slot_want = want < GS_ZSTD_BATCH_MAX ? want : GS_ZSTD_BATCH_MAX;
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
    ZSTD_freeDStream(s->look_ds);
    free(s->dctx);
    free(s->frames);
    free(s->dev.src), free(s->dev.csize), free(s->dev.dsize), free(s->dev.doff), free(s->dev.idx), free(s->dev.ok);
    free(s->win);
    free(s->out);
    free(s);
}

int gs_bsrc_open_zstd(gs_bsrc **out, gs_bsrc *in, const gs_read_opts *o, gs_status *st)
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
    s->codec = o->zcodec;
    s->frames_mode = o->zframes;
    s->frames_max = SIZE_MAX;
    if (o->zframes) {
        s->base.frames = gs_zsrc_frames;
        s->base.look = gs_zsrc_look;
    }
    s->threads = o->threads > 0 ? o->threads : gs_pool_threads();
    pthread_mutex_init(&s->ahead_mu, NULL);
    pthread_cond_init(&s->ahead_cv, NULL);
    /* Decoding ahead overlaps the decoding of one batch with the caller's use of the last. Only
     * from a regular file: closing early waits for the decoder's read, which a pipe's writer
     * could hold up for ever. The device codec's batches stay on the caller's thread. */
    s->ahead = in->size >= 0 && s->threads > 1 && !o->zcodec && !o->zframes && !o->zstd_sync;
    s->slot_want = GS_ZSTD_SLOT_START;
    s->win_cap = GS_ZSTD_WIN_PER_THREAD * (size_t)s->threads;
    if (s->win_cap < GS_ZSTD_WIN_MIN) s->win_cap = GS_ZSTD_WIN_MIN;
    if (s->win_cap > GS_ZSTD_WIN_MAX) s->win_cap = GS_ZSTD_WIN_MAX;
    if (o->zstd_window) s->win_cap = o->zstd_window;
    /* A small file needs no large window. */
    if (in->size >= 0 && (uint64_t)in->size + 1 < s->win_cap) s->win_cap = (size_t)in->size + 1;
    if (s->win_cap < 64) s->win_cap = 64;
    s->win_max = s->win_cap;
    if (in->size < 0 && !o->zstd_window && s->win_cap > GS_ZSTD_WIN_START) s->win_cap = GS_ZSTD_WIN_START;
    s->win = gs_alloc_large(s->win_cap);
    s->dctx = calloc((size_t)s->threads, sizeof *s->dctx);
    if (!s->win || !s->dctx) {
        gs_zsrc_close(&s->base);
        return gs_fail(st, GS_ENOMEM, "out of memory");
    }
    *out = &s->base;
    return GS_OK;
}
