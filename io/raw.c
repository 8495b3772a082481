/* raw.c - raw arrays: native little-endian values, no header. The decoder hands out whole
 * elements and keeps a partial one for the next read (pipes split values anywhere); a size
 * that is not a multiple of the element size is an error naming the stray bytes, found at
 * open when the size is known and at the end otherwise. The encoder passes bytes through. */
#include "io_internal.h"

#include <stdlib.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "raw and npy I/O assume a little-endian host"
#endif

typedef struct gs_rawdec {
    gs_decoder base;
    size_t esize;
    unsigned char carry[8]; /* the start of an element split across reads */
    size_t ncarry;
    uint64_t bytes;         /* bytes seen so far, for the message */
} gs_rawdec;

static int gs_raw_stray(const gs_decoder *d, uint64_t size, size_t esize, gs_status *st)
{
    return gs_fail(st, GS_EDATA, "%s: size %llu bytes is not a multiple of %zu (%s): %llu stray bytes at the end",
                   d->src->name, (unsigned long long)size, esize, gs_type_name(d->type),
                   (unsigned long long)(size % esize));
}

static int gs_rawdec_read(gs_decoder *dd, void *buf, size_t cap, size_t *got, gs_status *st)
{
    gs_rawdec *d = (gs_rawdec *)dd;
    unsigned char *p = buf;
    size_t want = cap * d->esize, have = d->ncarry;
    *got = 0;
    if (cap == 0) return GS_OK;
    memcpy(p, d->carry, d->ncarry);
    d->ncarry = 0;
    while (have < d->esize) { /* *got = 0 means the end, so return at least one element */
        size_t g = 0;
        int rc = d->base.src->read(d->base.src, p + have, want - have, &g, st);
        if (rc) return rc;
        if (!g) {
            if (have) return gs_raw_stray(dd, d->bytes, d->esize, st);
            return GS_OK;
        }
        have += g;
        d->bytes += g;
    }
    size_t whole = have - have % d->esize;
    d->ncarry = have - whole;
    memcpy(d->carry, p + whole, d->ncarry);
    *got = whole / d->esize;
    return GS_OK;
}

static int gs_rawdec_frames(gs_decoder *dd, const gs_zframes_req *q, size_t *nf, size_t *elems, gs_status *st)
{
    gs_rawdec *d = (gs_rawdec *)dd;
    uint64_t bytes = 0;
    *nf = 0;
    *elems = 0;
    if (d->ncarry || !d->base.src->frames) return GS_OK;
    int rc = d->base.src->frames(d->base.src, q, d->esize, nf, &bytes, st);
    if (rc || !*nf) return rc;
    d->bytes += bytes;
    *elems = (size_t)(bytes / d->esize);
    return GS_OK;
}

/* Whole elements where they lie: only between elements (no partial one held). */
static int gs_rawdec_view(gs_decoder *dd, size_t cap, int take, const void **p, size_t *got, gs_status *st)
{
    gs_rawdec *d = (gs_rawdec *)dd;
    size_t bytes = 0;
    *p = NULL;
    *got = 0;
    if (d->ncarry || !d->base.src->view || cap > SIZE_MAX / d->esize) return GS_OK;
    int rc = d->base.src->view(d->base.src, cap * d->esize, take, p, &bytes, st);
    if (rc || !bytes) return rc;
    if (bytes % d->esize) return gs_raw_stray(dd, (uint64_t)d->base.src->size, d->esize, st); /* checked at open */
    if (take) d->bytes += bytes;
    *got = bytes / d->esize;
    return GS_OK;
}

static void gs_rawdec_close(gs_decoder *d)
{
    d->src->close(d->src);
    free(d);
}

int gs_dec_open_raw(gs_decoder **out, gs_bsrc *src, gs_type type, gs_status *st)
{
    *out = NULL;
    size_t esize = gs_type_size(type);
    gs_rawdec *d = calloc(1, sizeof *d);
    if (!d) return gs_fail(st, GS_ENOMEM, "out of memory");
    d->base.read = gs_rawdec_read;
    d->base.close = gs_rawdec_close;
    d->base.frames = gs_rawdec_frames;
    d->base.view = gs_rawdec_view;
    d->base.type = type;
    d->base.src = src;
    d->esize = esize;
    d->base.count = src->size >= 0 ? src->size / (int64_t)esize : -1;
    if (src->size >= 0 && (uint64_t)src->size % esize) { /* fail before any output is made */
        int rc = gs_raw_stray(&d->base, (uint64_t)src->size, esize, st);
        free(d);
        return rc;
    }
    *out = &d->base;
    return GS_OK;
}

/* ---- encoder ---------------------------------------------------------------------------------- */
typedef struct gs_rawenc {
    gs_encoder base;
    size_t esize;
} gs_rawenc;

static int gs_rawenc_write(gs_encoder *ee, const void *vals, size_t n, gs_status *st)
{
    gs_rawenc *e = (gs_rawenc *)ee;
    int rc = e->base.sink->write(e->base.sink, vals, n * e->esize, st);
    if (rc == GS_OK) e->base.values += n;
    return rc;
}

static int gs_rawenc_close(gs_encoder *e, gs_status *st)
{
    int rc = e->sink->close(e->sink, st);
    free(e);
    return rc;
}

static void gs_rawenc_abort(gs_encoder *e)
{
    e->sink->abort(e->sink);
    free(e);
}

int gs_enc_open_raw(gs_encoder **out, gs_bsink *k, const gs_write_opts *o, gs_status *st)
{
    *out = NULL;
    gs_rawenc *e = calloc(1, sizeof *e);
    if (!e) return gs_fail(st, GS_ENOMEM, "out of memory");
    e->base.write = gs_rawenc_write;
    e->base.close = gs_rawenc_close;
    e->base.abort = gs_rawenc_abort;
    e->base.sink = k;
    e->base.plain = 1;
    e->esize = gs_type_size(o->type);
    if (k->plain) k->plain(k, o->rows >= 0 ? o->rows * (int64_t)(o->ncols == 2 ? 2 : 1) * (int64_t)e->esize : -1);
    *out = &e->base;
    return GS_OK;
}
