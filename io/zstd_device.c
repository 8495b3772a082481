/* zstd_device.c - the zstd source's batches through a device codec (io/zstd_source.c's
 * gs_zsrc_decode_batch gives them here first).
 *
 * A device decoder trusts its input, so it is given only frames the frame index finds fit
 * (gs_zframe_for_device: well formed, with a content size within its limit, a checksum and no
 * dictionary). The device codec's output is kept only where its status is good and the XXH64 of
 * the output (computed here, on the pool) equals the frame's checksum; every other frame of the
 * batch is decoded by libzstd (io/zstd_source.c), which reports any corruption: the device never
 * decides what is valid. A codec that stopped (its device timed out) leaves the batch, and every
 * later one, to libzstd. */
#include "zstd_internal.h"
#include "../common/pool.h"

#include <stdlib.h>

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
        if (!gs_zframe_for_device(s->win + fr->off, fr->csize, fr->dsize, &fi)) continue;
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

