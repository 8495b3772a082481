/* zstd_frames.c - the zstd source's work for a device: a batch's frames decoded by the device
 * codec, and frames handed out whole to a decoder on a device (gs_reader_frames).
 *
 * A device decoder trusts its input, so it is given only frames the frame index finds fit
 * (gs_zframe_check: well formed, with a content size within its limit, a checksum and no
 * dictionary). The device codec's output is kept only where its status is good and the XXH64 of
 * the output (computed here, on the pool) equals the frame's checksum; every other frame of the
 * batch is decoded by libzstd (io/zstd_source.c), which reports any corruption: the device never
 * decides what is valid. A codec that stopped (its device timed out) leaves the batch, and every
 * later one, to libzstd. Frames handed out whole carry their checksum for the caller to check. */
#include "zstd_internal.h"
#include "../common/pool.h"
#include "../common/trace.h"

#include <stdlib.h>
#include <string.h>

/* Is frame [p, p+csize) of dsize decoded bytes one a device decoder may take? Its header read
 * into *fi. */
static int gs_zsrc_for_device(const unsigned char *p, size_t csize, size_t dsize, gs_zfinfo *fi)
{
    return gs_zframe_parse(p, csize, fi) == GS_ZF_OK && fi->csize == csize && fi->content == dsize &&
           gs_zframe_check(p, fi, NULL) == 0;
}

/* ---- a batch through the device codec --------------------------------------------------------- */
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
        if (d->ok[i] && gs_zstd_checksum(j->dst + fr->doff, fr->dsize) == fr->xxh) fr->cpu = 0;
    }
}


int gs_zsrc_device_batch(gs_zsrc *s, size_t n, unsigned char *dst, gs_status *st)
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
        if (!gs_zsrc_for_device(s->win + fr->off, fr->csize, fr->dsize, &fi)) continue;
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

/* ---- frames handed out whole ------------------------------------------------------------------ */
/* Frames for a decoder on a device (gs_reader_frames): gathered as a batch is (the window holds
 * them, unmoved after the first), each checked by the frame index; where the chunk is not filled
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

int gs_zsrc_frames(gs_bsrc *b, const gs_zframes_req *q, size_t esize, size_t *nf, uint64_t *bytes, gs_status *st)
{
    gs_zsrc *s = (gs_zsrc *)b;
    size_t n = 0, total = 0, end = 0, flushed = 0;
    double gathered = 0; /* seconds gathering frames into dst (GS_TRACE's timeline only) */
    int kind = GS_ZN_END, rc;
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
        /* After a chunk's first frame, a whole zstd frame of known size in the window is taken as
         * the frame index reads it here; anything else (skippable, legacy, cut off by the window's
         * end, refused) goes the general way (gs_zsrc_next, which fills the window and judges
         * what it holds): each frame is read once, not twice. */
        const size_t avail = s->win_len - s->win_pos;
        if (n > 0 && avail >= GS_ZSTD_HEADER_MAX && gs_zframe_parse(s->win + s->win_pos, avail, &fi) == GS_ZF_OK &&
            fi.kind == GS_ZK_FRAME && fi.content != GS_ZSTD_SIZE_UNKNOWN && fi.content <= GS_ZSTD_BATCH_FRAME_MAX) {
            kind = GS_ZN_BATCH;
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
                if (kind != GS_ZN_STOP || n == flushed || s->win_len != s->win_cap) break;
            }
        }
        if (n == 0 && kind == GS_ZN_BATCH && ds && ds <= q->frame_max && s->win_cap < q->dst_cap) {
            /* a frame that qualifies: a window as large as dst, so that a chunk's frames come in
             * few large reads (grown once, before any frame is taken) */
            gs_zsrc_shift(s);
            unsigned char *w = realloc(s->win, q->dst_cap);
            if (!w) return gs_fail(st, GS_ENOMEM, "%s: out of memory", s->base.name);
            s->win = w;
            s->win_cap = s->win_max = q->dst_cap;
            s->win_full = 0;
        }
        if (kind == GS_ZN_SKIP && n == 0) { /* no output either way */
            if ((rc = gs_zsrc_skip(s, st))) return rc;
            continue;
        }
        if (kind != GS_ZN_BATCH) break;
        const unsigned char *p = s->win + s->win_pos;
        size_t off = (end + q->align - 1) / q->align * q->align;
        if (total % q->unit || ds == 0 || ds > q->frame_max || ds > q->content_max - total || n == q->t_cap ||
            off > q->dst_cap || cs > q->dst_cap - off ||
            !(parsed ? gs_zframe_check(p, &fi, NULL) == 0 : gs_zsrc_for_device(p, cs, ds, &fi))) {
            kind = GS_ZN_STOP;
            break;
        }
        if ((rc = gs_zsrc_frames_room(s, n, st))) return rc;
        s->frames[n] = (gs_zframe){s->win_pos, cs, total, ds, 0, fi.xxh};
        q->t[n] = (gs_zfref){off, cs, total, ds, fi.xxh};
        n++;
        end = off + cs;
        total += ds;
        s->win_pos += cs;
        if (total == q->content_max) break;
    }
    if (!n) return GS_OK;
    if (total != q->content_max && !(kind == GS_ZN_END && total % esize == 0))
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
