/* zstd_frames.c - the zstd source's frames handed out whole to a decoder on a device
 * (gs_reader_frames): each checked by the frame index (gs_zframe_for_device, gs_zframe_check),
 * and carrying its checksum for the caller to check. */
#include "zstd_internal.h"
#include "../common/pool.h"
#include "../common/trace.h"

#include <stdlib.h>
#include <string.h>

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
            !(parsed ? gs_zframe_check(p, &fi, NULL) == 0 : gs_zframe_for_device(p, cs, ds, &fi))) {
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
