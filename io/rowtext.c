/* rowtext.c - the input rows of a csv/text stream kept beside its values (compact --rows).
 *
 * The line decoder hands the store one segment per parsed piece: the piece's bytes (with the part
 * of a quoted row carried over from the block before) and, for each value it gave, where its row
 * lies in them. Segments queue in stream order; the writer asks for the rows of ascending stream
 * positions and releases the segments every position before a point is done with, so the store
 * holds the rows of the chunks in flight only. The reader's thread appends while the writer's
 * reads: both lock (once a segment, once an output chunk). */
#include "io_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct seg {
    uint64_t first;  /* stream position of its first value */
    size_t n;        /* values */
    char *text;
    int64_t *spans;  /* value i's row: text + spans[2i], spans[2i+1] bytes */
    struct seg *next;
} seg;

struct gs_rowtext {
    pthread_mutex_t mu;
    seg *head, *tail;
    uint64_t end;    /* stream position after the last value appended */
    char *header;    /* the header row's bytes (NULL: none) */
    size_t header_len;
};

gs_rowtext *gs_rowtext_new(void)
{
    gs_rowtext *t = calloc(1, sizeof *t);
    if (t) pthread_mutex_init(&t->mu, NULL);
    return t;
}

static void seg_free(seg *s)
{
    free(s->text);
    free(s->spans);
    free(s);
}

void gs_rowtext_free(gs_rowtext *t)
{
    if (!t) return;
    for (seg *s = t->head, *nx; s; s = nx) nx = s->next, seg_free(s);
    free(t->header);
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

int gs_rowtext_append(gs_rowtext *t, char *text, int64_t *spans, size_t n)
{
    if (!n) {
        free(text), free(spans);
        return 0;
    }
    seg *s = malloc(sizeof *s);
    if (!s) {
        free(text), free(spans);
        return -1;
    }
    *s = (seg){0, n, text, spans, NULL};
    pthread_mutex_lock(&t->mu);
    s->first = t->end;
    t->end += n;
    if (t->tail) t->tail->next = s;
    else t->head = s;
    t->tail = s;
    pthread_mutex_unlock(&t->mu);
    return 0;
}

/* The rows of the n ascending stream positions pos[] through put(ctx, bytes, len); a row without
 * its line end gets '\n'. */
int gs_rowtext_write(gs_rowtext *t, const uint64_t *pos, size_t n,
                     int (*put)(void *ctx, const char *p, size_t len, gs_status *st), void *ctx, gs_status *st)
{
    pthread_mutex_lock(&t->mu);
    seg *s = t->head;
    int rc = GS_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        while (s && pos[i] >= s->first + s->n) s = s->next;
        if (!s || pos[i] < s->first) {
            rc = gs_fail(st, GS_EDATA, "row of position %llu is not held (internal error)", (unsigned long long)pos[i]);
            break;
        }
        const size_t k = (size_t)(pos[i] - s->first);
        const char *row = s->text + s->spans[2 * k];
        const size_t len = (size_t)s->spans[2 * k + 1];
        rc = put(ctx, row, len, st);
        if (!rc && (len == 0 || (row[len - 1] != '\n' && row[len - 1] != '\r'))) rc = put(ctx, "\n", 1, st);
    }
    pthread_mutex_unlock(&t->mu);
    return rc;
}

void gs_rowtext_release(gs_rowtext *t, uint64_t upto)
{
    pthread_mutex_lock(&t->mu);
    while (t->head && t->head->first + t->head->n <= upto) {
        seg *s = t->head;
        t->head = s->next;
        if (!t->head) t->tail = NULL;
        seg_free(s);
    }
    pthread_mutex_unlock(&t->mu);
}
