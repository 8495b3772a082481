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
    /* --keep: the columns written before each result (0-based; all: every field), the value's
     * column (0-based) and the delimiter */
    int *keep, nkeep, keep_all, vcol;
    char delim;
    /* the writer's scratch: one row's field spans, and the text of a batch of rows */
    size_t *fs;
    size_t fs_cap;
    char *out;
    size_t out_len, out_cap;
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
    free(t->keep);
    free(t->fs);
    free(t->out);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

int gs_rowtext_set_keep(gs_rowtext *t, const int *cols, int n, int all, int vcol, char delim)
{
    free(t->keep);
    t->keep = NULL;
    if (n && !(t->keep = malloc((size_t)n * sizeof *t->keep))) return -1;
    if (n) memcpy(t->keep, cols, (size_t)n * sizeof *cols);
    t->nkeep = n;
    t->keep_all = all;
    t->vcol = vcol;
    t->delim = delim;
    return 0;
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

/* ---- --keep: columns of the rows before the results ---------------------------------------------- */

/* The fields of row [p, p+len) as in the input (quotes kept, the line end dropped) into t->fs: field
 * k is [fs[2k], fs[2k+1]) from p. Returns the count, or -1 where memory is short. */
static long row_fields(gs_rowtext *t, const char *p, size_t len)
{
    while (len && (p[len - 1] == '\n' || p[len - 1] == '\r')) len--;
    size_t n = 0, b = 0;
    int inq = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && p[i] == '"') inq = !inq;
        if (i < len && (inq || p[i] != t->delim)) continue;
        if (2 * n + 2 > t->fs_cap) {
            size_t nc = t->fs_cap ? t->fs_cap * 2 : 64;
            size_t *nf = realloc(t->fs, nc * sizeof *nf);
            if (!nf) return -1;
            t->fs = nf;
            t->fs_cap = nc;
        }
        t->fs[2 * n] = b;
        t->fs[2 * n + 1] = i;
        n++;
        b = i + 1;
    }
    return (long)n;
}

static int out_add(gs_rowtext *t, const char *p, size_t n)
{
    if (t->out_len + n > t->out_cap) {
        size_t nc = t->out_cap ? t->out_cap * 2 : 65536;
        while (nc < t->out_len + n) nc *= 2;
        char *no = realloc(t->out, nc);
        if (!no) return -1;
        t->out = no;
        t->out_cap = nc;
    }
    memcpy(t->out + t->out_len, p, n);
    t->out_len += n;
    return 0;
}

/* The kept fields of row [p, p+len), each followed by the delimiter; the value's field after them
 * where value_field. */
static int keep_row(gs_rowtext *t, const char *p, size_t len, int value_field)
{
    long nf = row_fields(t, p, len);
    if (nf < 0) return -1;
    const int n = t->keep_all ? (int)nf : t->nkeep;
    for (int k = 0; k < n; k++) {
        const long c = t->keep_all ? k : t->keep[k];
        if (c < nf && out_add(t, p + t->fs[2 * c], t->fs[2 * c + 1] - t->fs[2 * c])) return -1;
        if ((k + 1 < n || value_field) && out_add(t, &t->delim, 1)) return -1;
    }
    if (value_field && t->vcol < nf && out_add(t, p + t->fs[2 * t->vcol], t->fs[2 * t->vcol + 1] - t->fs[2 * t->vcol]))
        return -1;
    return 0;
}

int gs_rowtext_keep_header(gs_rowtext *t, const char *result, int (*put)(void *ctx, const char *p, size_t len, gs_status *st),
                           void *ctx, gs_status *st)
{
    if (!t->header) return GS_OK;
    t->out_len = 0;
    int fail = keep_row(t, t->header, t->header_len, 0);
    if (!fail && result) fail = out_add(t, &t->delim, 1) || out_add(t, result, strlen(result));
    if (!fail) fail = out_add(t, "\n", 1);
    if (fail) return gs_fail(st, GS_ENOMEM, "out of memory");
    return put(ctx, t->out, t->out_len, st);
}

int gs_rowtext_write_keep(gs_rowtext *t, const uint64_t *pos, size_t n, gs_type type, const void *vals,
                          int (*put)(void *ctx, const char *p, size_t len, gs_status *st), void *ctx, gs_status *st)
{
    const size_t es = gs_type_size(type);
    int rc = GS_OK;
    pthread_mutex_lock(&t->mu);
    seg *s = t->head;
    t->out_len = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        while (s && pos[i] >= s->first + s->n) s = s->next;
        if (!s || pos[i] < s->first) {
            rc = gs_fail(st, GS_EDATA, "row of position %llu is not held (internal error)", (unsigned long long)pos[i]);
            break;
        }
        const size_t k = (size_t)(pos[i] - s->first);
        char num[40];
        int fail = keep_row(t, s->text + s->spans[2 * k], (size_t)s->spans[2 * k + 1], !vals);
        if (!fail && vals) fail = out_add(t, &t->delim, 1) ||
                                  out_add(t, num, (size_t)gs_num_format(num, type, (const char *)vals + i * es));
        if (!fail) fail = out_add(t, "\n", 1);
        if (fail) rc = gs_fail(st, GS_ENOMEM, "out of memory");
        else if (t->out_len >= ((size_t)1 << 20) || i + 1 == n) {
            rc = put(ctx, t->out, t->out_len, st);
            t->out_len = 0;
        }
    }
    pthread_mutex_unlock(&t->mu);
    return rc;
}
