/* fuzz_mem.h - what the fuzz targets share: an in-memory byte source (gs_bsrc) that hands out
 * short reads of at most `step` bytes, a growing byte buffer, and the one rule every message
 * obeys (docs/USAGE.md: it names the input, or says the memory ran out).
 * Header-only (static functions): each target is one translation unit. */
#ifndef GS_FUZZ_MEM_H
#define GS_FUZZ_MEM_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../io/io_internal.h"

/* A byte source over [data, data+len). size: the total when the source claims to know it
 * (a regular file), else -1 (a pipe); short reads of at most step bytes. */
typedef struct gs_fz_src {
    gs_bsrc base;
    const uint8_t *data;
    size_t len, pos, step;
    int *closed; /* set to 1 on close (ownership checks), may be NULL */
} gs_fz_src;

static inline int gs_fz_read(gs_bsrc *s, void *buf, size_t cap, size_t *got, gs_status *st)
{
    gs_fz_src *m = (gs_fz_src *)s;
    size_t n = m->len - m->pos;
    (void)st;
    if (n > cap) n = cap;
    if (n > m->step) n = m->step;
    if (n) memcpy(buf, m->data + m->pos, n);
    m->pos += n;
    m->base.consumed += n;
    *got = n;
    return GS_OK;
}

static inline void gs_fz_close(gs_bsrc *s)
{
    gs_fz_src *m = (gs_fz_src *)s;
    if (m->closed) *m->closed = 1;
    free(m);
}

static inline gs_fz_src *gs_fz_src_new(const char *name, const uint8_t *data, size_t len, int size_known, size_t step,
                                int *closed)
{
    gs_fz_src *m = calloc(1, sizeof *m);
    if (!m) abort();
    m->base.read = gs_fz_read;
    m->base.close = gs_fz_close;
    m->base.name = name;
    m->base.size = size_known ? (int64_t)len : -1;
    m->data = data;
    m->len = len;
    m->step = step ? step : 1;
    m->closed = closed;
    if (closed) *closed = 0;
    return m;
}

/* A growing buffer. */
typedef struct gs_fz_buf {
    uint8_t *p;
    size_t n, cap;
} gs_fz_buf;

static inline void gs_fz_reserve(gs_fz_buf *b, size_t more)
{
    if (b->n + more <= b->cap) return;
    size_t cap = (b->n + more) * 2 + 64;
    uint8_t *p = realloc(b->p, cap);
    if (!p) abort();
    b->p = p;
    b->cap = cap;
}

static inline void gs_fz_append(gs_fz_buf *b, const void *d, size_t n)
{
    gs_fz_reserve(b, n);
    if (n) memcpy(b->p + b->n, d, n);
    b->n += n;
}

/* A failure must carry a message that names the input ("NAME: ...") or says that memory ran
 * out, on one line of printable text even when it quotes hostile bytes (csv.c
 * shows them as '?'). Aborts (a finding) otherwise. -DGS_FZ_LAX_MSG skips the printable-text
 * rule, to fuzz past a known finding. */
static inline void gs_fz_check_msg(int rc, const gs_status *st, const char *name)
{
    if (rc == GS_OK) return;
    size_t l = strlen(name);
    if (st->code != rc || !st->msg[0]) abort();
#ifndef GS_FZ_LAX_MSG
    for (const char *c = st->msg; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) abort();
#endif
    if (strncmp(st->msg, name, l) == 0 && st->msg[l] == ':') return;
    if (rc == GS_ENOMEM || strstr(st->msg, "out of memory")) return;
    abort();
}

#endif
