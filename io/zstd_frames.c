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
/* Frames for a decoder on a device (gs_reader_frames). A chunk's frames are first indexed where they
 * lie in the window (the window keeps them all while the index walks: io/zstd_source.c's
 * chunk_at), each checked by the frame index; only a run of frames that fills the chunk exactly
 * (or ends the input on a whole element) is copied, by its offsets, into the caller's buffer.
 * Anything else leaves the window's cursor where the chunk began, and gs_zsrc_read decodes those
 * frames: nothing is copied out before the chunk is known to be whole. */
typedef struct gs_zcopy_job {
    const gs_zsrc *s;
    const gs_zframes_req *q;
    size_t n;
} gs_zcopy_job;

static void gs_zcopy_part(void *ctx, size_t part, size_t nparts)
{
    const gs_zcopy_job *j = ctx;
    const unsigned char *base = j->s->win + j->s->chunk_at;
    size_t b, e;
    gs_split(j->n, nparts, part, &b, &e);
    for (size_t i = b; i < e; i++) memcpy(j->q->dst + j->q->t[i].off, base + j->s->frames[i].off, j->q->t[i].csize);
}

/* A frame of known size whole at the cursor, as the frame index reads it (the common case after a
 * chunk's first frame): 1 with its sizes, else 0 (the general way, gs_zsrc_next, judges it). */
static int gs_zsrc_whole(const gs_zsrc *s, gs_zfinfo *fi)
{
    const size_t avail = s->win_len - s->win_pos;
    return avail >= GS_ZSTD_HEADER_MAX && gs_zframe_parse(s->win + s->win_pos, avail, fi) == GS_ZF_OK &&
           fi->kind == GS_ZK_FRAME && fi->content != GS_ZSTD_SIZE_UNKNOWN && fi->content <= GS_ZSTD_BATCH_FRAME_MAX;
}

/* A window as large as the caller's buffer, once a first frame qualifies: a chunk's frames then
 * come in few large reads. */
static int gs_zsrc_win_for(gs_zsrc *s, const gs_zframes_req *q, gs_status *st)
{
    if (s->win_cap >= q->dst_cap) return GS_OK;
    gs_zsrc_shift(s);
    unsigned char *w = realloc(s->win, q->dst_cap);
    if (!w) return gs_fail(st, GS_ENOMEM, "%s: out of memory", s->base.name);
    s->win = w;
    s->win_cap = s->win_max = q->dst_cap;
    s->win_full = 0;
    return GS_OK;
}

/* Index the chunk's frames from the cursor into s->frames and q->t: *n frames of *total decoded
 * bytes, *kind how the walk ended. */
static int gs_zsrc_index(gs_zsrc *s, const gs_zframes_req *q, size_t *n, size_t *total, int *kind, gs_status *st)
{
    size_t end = 0;
    int rc;
    for (;;) {
        size_t cs = 0, ds = 0;
        gs_zfinfo fi;
        const int parsed = *n > 0 && gs_zsrc_whole(s, &fi);
        if (parsed) {
            *kind = GS_ZN_BATCH;
            cs = (size_t)fi.csize;
            ds = (size_t)fi.content;
        } else if ((rc = gs_zsrc_next(s, 1, kind, &cs, &ds, st))) {
            return rc;
        }
        if (*n == 0 && *kind == GS_ZN_BATCH && ds && ds <= q->frame_max && (rc = gs_zsrc_win_for(s, q, st))) return rc;
        if (*kind == GS_ZN_SKIP && *n == 0) { /* no output either way */
            if ((rc = gs_zsrc_skip(s, st))) return rc;
            s->chunk_at = s->win_pos;
            continue;
        }
        if (*kind != GS_ZN_BATCH) return GS_OK;
        const unsigned char *p = s->win + s->win_pos;
        const size_t off = (end + q->align - 1) / q->align * q->align;
        if (*total % q->unit || ds == 0 || ds > q->frame_max || ds > q->content_max - *total || *n == q->t_cap ||
            off > q->dst_cap || cs > q->dst_cap - off ||
            !(parsed ? gs_zframe_check(p, &fi, NULL) == 0 : gs_zsrc_for_device(p, cs, ds, &fi))) {
            *kind = GS_ZN_STOP;
            return GS_OK;
        }
        if ((rc = gs_zsrc_frames_room(s, *n, st))) return rc;
        s->frames[*n] = (gs_zframe){s->win_pos - s->chunk_at, cs, *total, ds, 0, fi.xxh};
        q->t[*n] = (gs_zfref){off, cs, *total, ds, fi.xxh};
        ++*n;
        end = off + cs;
        *total += ds;
        s->win_pos += cs;
        if (*total == q->content_max) return GS_OK;
    }
}

int gs_zsrc_frames(gs_bsrc *b, const gs_zframes_req *q, size_t esize, size_t *nf, uint64_t *bytes, gs_status *st)
{
    gs_zsrc *s = (gs_zsrc *)b;
    size_t n = 0, total = 0;
    int kind = GS_ZN_END;
    *nf = 0;
    *bytes = 0;
    /* (bytes decoded and not yet read, or held by a peek, come first: gs_zsrc_read) */
    if (!s->frames_mode || s->ahead || s->streaming || s->out_pos < s->out_len || s->base.peek || !q->unit || !q->align)
        return GS_OK;
    s->frames_max = q->frame_max;
    const double t0 = gs_trace_enabled() ? gs_now() : 0, fill0 = s->fill_s;
    s->indexing = 1;
    s->chunk_at = s->win_pos;
    int rc = gs_zsrc_index(s, q, &n, &total, &kind, st);
    s->indexing = 0;
    if (rc) return rc;
    if (n == 0 || (total != q->content_max && !(kind == GS_ZN_END && total % esize == 0))) {
        s->win_pos = s->chunk_at; /* not a chunk: gs_zsrc_read decodes these frames */
        return GS_OK;
    }
    const double t1 = gs_trace_enabled() ? gs_now() : 0;
    const size_t parts = n < (size_t)s->threads ? n : (size_t)s->threads;
    gs_zcopy_job j = {s, q, n};
    gs_parallel_for(parts, gs_zcopy_part, &j);
    if (gs_trace_enabled())
        gs_trace("reader: %zu frames, %zu B: indexed %.2f ms (reading %.2f), copied %.2f ms", n,
                 (size_t)(q->t[n - 1].off + q->t[n - 1].csize), (t1 - t0) * 1e3, (s->fill_s - fill0) * 1e3,
                 (gs_now() - t1) * 1e3);
    s->base.consumed = s->in_consumed;
    s->decoded += total;
    *nf = n;
    *bytes = total;
    return GS_OK;
}
