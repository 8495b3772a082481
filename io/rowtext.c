/* rowtext.c - the input rows of a csv/text stream kept beside its values, and compact --rows (--keep:
 * rowkeep.c).
 *
 * The line decoder hands the store one segment per parsed piece: where its rows lie and, for each
 * value it gave, where its row lies in them. The rows of a block split into pieces stay in the
 * decoder's block, which is lent to the store (the decoder reads on into another); those of a block
 * parsed in order are a copy, with the part of a quoted row carried over from the block before.
 * Segments queue in stream order; the writer asks for the rows of ascending stream positions and
 * releases the segments every position before a point is done with, so the store holds the rows of
 * the chunks in flight only, and a block's memory goes back to the decoder once none of its rows is
 * held. The reader's thread appends while the writer's reads: the list's ends, the references and
 * the spare buffers are locked (once a segment, once an output chunk); the writer reads the rows it
 * asked for without the lock (first_seg), so the reader never waits for the writer's formatting. */
#include "rowtext.h"

#include <stdlib.h>
#include <string.h>

gs_rowtext *gs_rowtext_new(void)
{
    gs_rowtext *t = calloc(1, sizeof *t);
    if (t) pthread_mutex_init(&t->mu, NULL);
    if (t) t->ncols = 1;
    return t;
}

/* A buffer kept for reuse, else freed (under mu). */
static void spare_put(spare *sp, void *p, size_t cap)
{
    if (!p) return;
    if (sp->n == SPARE_MAX) {
        free(p);
        return;
    }
    sp->p[sp->n] = p;
    sp->cap[sp->n++] = cap;
}

void *gs_rowtext_reuse(gs_rowtext *t, int spans, size_t want, size_t *cap)
{
    void *p = NULL;
    pthread_mutex_lock(&t->mu);
    spare *sp = &t->spare[spans ? 1 : 0];
    int best = -1; /* the smallest that holds want */
    for (int i = 0; i < sp->n; i++)
        if (sp->cap[i] >= want && (best < 0 || sp->cap[i] < sp->cap[best])) best = i;
    if (best >= 0) {
        p = sp->p[best];
        *cap = sp->cap[best];
        sp->p[best] = sp->p[--sp->n];
        sp->cap[best] = sp->cap[sp->n];
    }
    pthread_mutex_unlock(&t->mu);
    return p;
}

gs_rowtext_mem *gs_rowtext_lend(char *p, size_t cap)
{
    gs_rowtext_mem *m = malloc(sizeof *m);
    if (m) *m = (gs_rowtext_mem){p, cap, 1};
    return m;
}

/* One reference fewer to m; at none, its memory is kept for reuse or freed (under mu, or where no
 * other thread holds t). */
static void mem_unref(gs_rowtext *t, gs_rowtext_mem *m)
{
    if (!m || --m->refs) return;
    spare_put(&t->spare[0], m->p, m->cap);
    free(m);
}

void gs_rowtext_unlend(gs_rowtext *t, gs_rowtext_mem *m)
{
    pthread_mutex_lock(&t->mu);
    mem_unref(t, m);
    pthread_mutex_unlock(&t->mu);
}

static void seg_free(gs_rowtext *t, gs_rt_seg *s)
{
    mem_unref(t, s->mem);
    free(s->spans);
    free(s);
}

void gs_rowtext_free(gs_rowtext *t)
{
    if (!t) return;
    for (gs_rt_seg *s = t->head, *nx; s; s = nx) nx = s->next, seg_free(t, s);
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < t->spare[k].n; i++) free(t->spare[k].p[i]);
    free(t->header);
    free(t->keep);
    for (size_t i = 0; i < t->nparts; i++) free(t->parts[i].out), free(t->parts[i].fs);
    free(t->parts);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

int gs_rowtext_set_header(gs_rowtext *t, const char *row, size_t len)
{
    free(t->header);
    t->header = malloc(len + 1);
    if (!t->header) return -1;
    memcpy(t->header, row, len);
    t->header_len = len;
    return 0;
}

const char *gs_rowtext_header(const gs_rowtext *t, size_t *len)
{
    *len = t->header_len;
    return t->header;
}

int gs_rowtext_append(gs_rowtext *t, gs_rowtext_mem *m, const char *text, int flags, int64_t *spans,
                      size_t spans_cap, size_t n)
{
    if (!n) {
        pthread_mutex_lock(&t->mu);
        spare_put(&t->spare[1], spans, spans_cap * sizeof *spans);
        pthread_mutex_unlock(&t->mu);
        return 0;
    }
    gs_rt_seg *s = malloc(sizeof *s);
    if (!s) {
        free(spans);
        return -1;
    }
    *s = (gs_rt_seg){0, n, text, m, spans, spans_cap * sizeof *spans, !!(flags & GS_ROWS_QUOTES), !!(flags & GS_ROWS_KEPT), NULL};
    pthread_mutex_lock(&t->mu);
    m->refs++;
    s->first = t->end;
    t->end += n;
    if (t->tail) t->tail->next = s;
    else t->head = s;
    t->tail = s;
    pthread_mutex_unlock(&t->mu);
    return 0;
}

/* Bytes onto a text buffer (nomem set where memory is short). */
void gs_rt_out_add(gs_rt_buf *b, const char *p, size_t n)
{
    if (b->nomem) return;
    if (b->len + n > b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 65536;
        while (nc < b->len + n) nc *= 2;
        char *no = realloc(b->out, nc);
        if (!no) {
            b->nomem = 1;
            return;
        }
        b->out = no;
        b->cap = nc;
    }
    memcpy(b->out + b->len, p, n);
    b->len += n;
}

/* The row of stream position p in the segments from *s on (positions ascend): its bytes, or NULL
 * where it is not held. */
const char *gs_rt_row_at(gs_rt_seg **s, uint64_t p, size_t *len)
{
    while (*s && p >= (*s)->first + (*s)->n) *s = (*s)->next;
    if (!*s || p < (*s)->first) return NULL;
    const size_t k = (size_t)(p - (*s)->first);
    *len = (size_t)(*s)->spans[2 * k + 1];
    return (*s)->text + (*s)->spans[2 * k];
}

/* The oldest segment held. The writer walks on from it without the lock: the segments of the
 * positions it asks for were appended before their values were handed out (the chunk queues order
 * that), later appends only set the last segment's next, and only the writer releases. */
gs_rt_seg *gs_rt_first(gs_rowtext *t)
{
    pthread_mutex_lock(&t->mu);
    gs_rt_seg *s = t->head;
    pthread_mutex_unlock(&t->mu);
    return s;
}

int gs_rt_not_held(uint64_t p, gs_status *st)
{
    return gs_fail(st, GS_EDATA, "row of position %llu is not held (internal error)", (unsigned long long)p);
}

/* Scratch for np parts of a batch. */
int gs_rt_parts(gs_rowtext *t, size_t np)
{
    if (np <= t->nparts) return 0;
    gs_rt_buf *nb = realloc(t->parts, np * sizeof *nb);
    if (!nb) return -1;
    memset(nb + t->nparts, 0, (np - t->nparts) * sizeof *nb);
    t->parts = nb;
    t->nparts = np;
    return 0;
}

/* The bytes of the rows after row k of segment s (its stream position p) that follow it in s's text
 * with no gap, each ending in a line end, as long as pos[] goes on one row at a time: *i moves past
 * them. A run of whole rows goes out as it lies in the input. */
static size_t run_after(const gs_rt_seg *s, size_t k, const uint64_t *pos, size_t n, size_t *i)
{
    size_t run = 0, at = (size_t)(s->spans[2 * k] + s->spans[2 * k + 1]);
    while (*i < n && pos[*i] == pos[*i - 1] + 1 && ++k < s->n && (size_t)s->spans[2 * k] == at) {
        const size_t len = (size_t)s->spans[2 * k + 1];
        const char e = len ? s->text[at + len - 1] : 0;
        if (e != '\n' && e != '\r') break;
        run += len;
        at += len;
        ++*i;
    }
    return run;
}

#define GS_RUN_DIRECT ((size_t)64 << 10) /* a run of rows this long goes to put() where it lies */

/* The rows of the n ascending stream positions pos[] through put(ctx, bytes, len); a row without
 * its line end gets '\n'. Runs of consecutive rows that lie one after another in the input (every
 * row, where a filter passes most) go out without a copy once they are long enough. */
int gs_rowtext_write(gs_rowtext *t, const uint64_t *pos, size_t n,
                     int (*put)(void *ctx, const char *p, size_t len, gs_status *st), void *ctx, gs_status *st)
{
    gs_rt_seg *s = gs_rt_first(t);
    int rc = gs_rt_parts(t, 1) ? gs_fail(st, GS_ENOMEM, "out of memory") : GS_OK;
    gs_rt_buf *b = rc ? NULL : &t->parts[0];
    if (b) b->len = b->nomem = 0;
    for (size_t i = 0; i < n && !rc;) {
        size_t len;
        const char *row = gs_rt_row_at(&s, pos[i], &len);
        if (!row) {
            rc = gs_rt_not_held(pos[i], st);
            break;
        }
        const int ended = len && (row[len - 1] == '\n' || row[len - 1] == '\r');
        i++;
        if (ended) len += run_after(s, (size_t)(pos[i - 1] - s->first), pos, n, &i);
        if (ended && len >= GS_RUN_DIRECT) {
            if (b->len) rc = put(ctx, b->out, b->len, st);
            b->len = 0;
            if (!rc) rc = put(ctx, row, len, st);
            continue;
        }
        gs_rt_out_add(b, row, len);
        if (!ended) gs_rt_out_add(b, "\n", 1);
        if (b->nomem) rc = gs_fail(st, GS_ENOMEM, "out of memory");
        else if (b->len >= ((size_t)1 << 20)) { /* rows go out in batches */
            rc = put(ctx, b->out, b->len, st);
            b->len = 0;
        }
    }
    if (!rc && b && b->len) rc = put(ctx, b->out, b->len, st);
    return rc;
}

void gs_rowtext_release(gs_rowtext *t, uint64_t upto)
{
    pthread_mutex_lock(&t->mu);
    while (t->head && t->head->first + t->head->n <= upto) {
        gs_rt_seg *s = t->head;
        t->head = s->next;
        if (!t->head) t->tail = NULL;
        mem_unref(t, s->mem);
        spare_put(&t->spare[1], s->spans, s->spans_cap);
        free(s);
    }
    pthread_mutex_unlock(&t->mu);
}

