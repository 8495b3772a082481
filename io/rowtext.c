/* rowtext.c - the input rows of a csv/text stream kept beside its values (compact --rows, --keep).
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
#include "io_internal.h"

#include "../common/pool.h"

#include <limits.h>
#include <pthread.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Text being put together for the output, and one row's field spans (--keep). */
typedef struct kbuf {
    char *out;
    size_t len, cap;
    size_t *fs;
    size_t fs_cap;
    int nomem;
    char pad[64];    /* parts written by different threads never share a cache line */
} kbuf;

/* Memory that holds rows: a block of the line decoder's, lent with its rows where they lie, or a
 * copy (rows of a quoted block, with the part carried over). Freed, or kept for reuse, once no
 * segment refers to it. */
struct gs_rowtext_mem {
    char *p;
    size_t cap;      /* bytes allocated */
    int refs;
};

typedef struct seg {
    uint64_t first;  /* stream position of its first value */
    size_t n;        /* values */
    const char *text;
    gs_rowtext_mem *mem; /* where text lies */
    int64_t *spans;  /* value i's row: text + spans[2i], spans[2i+1] bytes */
    size_t spans_cap; /* bytes allocated */
    int quotes;      /* its rows hold a quote character */
    int kept;        /* its spans are the values' kept fields (GS_ROWS_KEPT), not rows */
    struct seg *next;
} seg;

/* Buffers of released segments, handed back to the line decoder (gs_rowtext_reuse): a buffer
 * written again is already mapped, where a fresh one costs a page fault per page. As many as the
 * segments of the chunks in flight (a block's pieces, one a thread, times the blocks held), so that
 * none is freed only to be allocated again. */
#define SPARE_MAX 512
typedef struct spare {
    void *p[SPARE_MAX];
    size_t cap[SPARE_MAX];
    int n;
} spare;

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
    int need, need_kept; /* fields of a row to find: 1 + the last column written, with the value's
                          * field (compact) and without it (results written instead) */
    int ncols;       /* results a row (rolling: one per aggregate), each printed as coltypes[c] */
    gs_type coltypes[GS_WRITE_COLS_MAX];
    int coltyped;    /* coltypes given (else each value in its own type) */
    kbuf *parts;     /* the writer's scratch: one per part of a batch of rows */
    size_t nparts;
    spare spare[2];  /* [0] text, [1] spans */
};

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

static void seg_free(gs_rowtext *t, seg *s)
{
    mem_unref(t, s->mem);
    free(s->spans);
    free(s);
}

void gs_rowtext_free(gs_rowtext *t)
{
    if (!t) return;
    for (seg *s = t->head, *nx; s; s = nx) nx = s->next, seg_free(t, s);
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < t->spare[k].n; i++) free(t->spare[k].p[i]);
    free(t->header);
    free(t->keep);
    for (size_t i = 0; i < t->nparts; i++) free(t->parts[i].out), free(t->parts[i].fs);
    free(t->parts);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

int gs_rowtext_keep_resolve(gs_rowtext *t, const char *spec, char **names, int nnames, int vcol, char delim,
                            const char *src, gs_status *st)
{
    int all = !strcmp(spec, "all"), nk = 0, *cols = calloc(strlen(spec) / 2 + 2, sizeof *cols), r = GS_OK;
    if (!cols) return gs_fail(st, GS_ENOMEM, "out of memory");
    for (const char *p = spec; !all && *p && !r;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char item[256];
        snprintf(item, sizeof item, "%.*s", (int)(len < 255 ? len : 255), p);
        long v = 0;
        if (gs_col_number(item, &v)) {
            if (v < 1 || v > INT_MAX - 1) r = gs_fail(st, GS_EUSAGE, "invalid --keep column '%s' (columns are counted from 1)", item);
            cols[nk++] = (int)v - 1;
        } else if (!names) {
            r = gs_fail(st, GS_EUSAGE, "--keep column '%s' is given by name, which needs a header line", item);
        } else {
            int i;
            for (i = 0; i < nnames && strcmp(names[i], item); i++) {}
            if (i == nnames) r = gs_fail(st, GS_EDATA, "%s: no column named '%s' in the header (--keep)", src, item);
            cols[nk++] = i;
        }
        p = e ? e + 1 : p + len;
    }
    if (!r && gs_rowtext_set_keep(t, cols, nk, all, vcol, delim)) r = gs_fail(st, GS_ENOMEM, "out of memory");
    free(cols);
    return r;
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
    t->need_kept = 0;
    for (int k = 0; k < n; k++)
        if (cols[k] + 1 > t->need_kept) t->need_kept = cols[k] + 1;
    t->need = vcol + 1 > t->need_kept ? vcol + 1 : t->need_kept;
    return 0;
}

const int *gs_rowtext_keep_list(const gs_rowtext *t, int *n, int *all)
{
    *n = t->nkeep;
    *all = t->keep_all;
    return t->keep;
}

void gs_rowtext_keep_cols(gs_rowtext *t, int ncols, const gs_type *coltypes)
{
    t->ncols = ncols >= 1 && ncols <= GS_WRITE_COLS_MAX ? ncols : 1;
    t->coltyped = coltypes != NULL;
    for (int c = 0; coltypes && c < t->ncols; c++) t->coltypes[c] = coltypes[c];
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
    seg *s = malloc(sizeof *s);
    if (!s) {
        free(spans);
        return -1;
    }
    *s = (seg){0, n, text, m, spans, spans_cap * sizeof *spans, !!(flags & GS_ROWS_QUOTES), !!(flags & GS_ROWS_KEPT), NULL};
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
static void out_add(kbuf *b, const char *p, size_t n)
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
static const char *row_at(seg **s, uint64_t p, size_t *len)
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
static seg *first_seg(gs_rowtext *t)
{
    pthread_mutex_lock(&t->mu);
    seg *s = t->head;
    pthread_mutex_unlock(&t->mu);
    return s;
}

static int not_held(uint64_t p, gs_status *st)
{
    return gs_fail(st, GS_EDATA, "row of position %llu is not held (internal error)", (unsigned long long)p);
}

/* Scratch for np parts of a batch. */
static int parts_room(gs_rowtext *t, size_t np)
{
    if (np <= t->nparts) return 0;
    kbuf *nb = realloc(t->parts, np * sizeof *nb);
    if (!nb) return -1;
    memset(nb + t->nparts, 0, (np - t->nparts) * sizeof *nb);
    t->parts = nb;
    t->nparts = np;
    return 0;
}

/* The bytes of the rows after row k of segment s (its stream position p) that follow it in s's text
 * with no gap, each ending in a line end, as long as pos[] goes on one row at a time: *i moves past
 * them. A run of whole rows goes out as it lies in the input. */
static size_t run_after(const seg *s, size_t k, const uint64_t *pos, size_t n, size_t *i)
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
    seg *s = first_seg(t);
    int rc = parts_room(t, 1) ? gs_fail(st, GS_ENOMEM, "out of memory") : GS_OK;
    kbuf *b = rc ? NULL : &t->parts[0];
    if (b) b->len = b->nomem = 0;
    for (size_t i = 0; i < n && !rc;) {
        size_t len;
        const char *row = row_at(&s, pos[i], &len);
        if (!row) {
            rc = not_held(pos[i], st);
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
        out_add(b, row, len);
        if (!ended) out_add(b, "\n", 1);
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
        seg *s = t->head;
        t->head = s->next;
        if (!t->head) t->tail = NULL;
        mem_unref(t, s->mem);
        spare_put(&t->spare[1], s->spans, s->spans_cap);
        free(s);
    }
    pthread_mutex_unlock(&t->mu);
}

/* ---- --keep: columns of the rows before the results ---------------------------------------------- */

/* The first delimiter in p[i, len), or len: 16 bytes a step with SSE2 (every x86-64 has it). */
static inline size_t delim_at(const char *p, size_t i, size_t len, char delim)
{
#if defined(__SSE2__)
    const __m128i vd = _mm_set1_epi8(delim);
    for (; len - i >= 16; i += 16) {
        const unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + i)), vd));
        if (m) return i + (size_t)__builtin_ctz(m);
    }
#endif
    while (i < len && p[i] != delim) i++;
    return i;
}

/* The first `need` fields of row [p, p+len) (every field where need is 0) as in the input (quotes
 * kept, the line end dropped) into b->fs: field k is [fs[2k], fs[2k+1]) from p. Returns the count,
 * or -1 where memory is short. A row without a quote is cut at its delimiters by memchr. */
static long row_fields(kbuf *b, char delim, const char *p, size_t len, long need, int maybe_quoted)
{
    while (len && (p[len - 1] == '\n' || p[len - 1] == '\r')) len--;
    const long want = need > 0 ? need : LONG_MAX;
    if ((size_t)(2 * (need > 0 ? need : 32)) > b->fs_cap || !b->fs) {
        size_t nc = (size_t)(2 * (need > 0 ? need : 32));
        size_t *nf = realloc(b->fs, nc * sizeof *nf);
        if (!nf) return -1;
        b->fs = nf;
        b->fs_cap = nc;
    }
    const int quoted = maybe_quoted && memchr(p, '"', len) != NULL;
    size_t n = 0, f = 0;
    int inq = 0;
    for (size_t i = 0; (long)n < want;) {
        if (!quoted)
            i = delim_at(p, i, len, delim);
        else
            for (; i < len && (inq || p[i] != delim); i++)
                if (p[i] == '"') inq = !inq;
        if (2 * n + 2 > b->fs_cap) {
            size_t nc = b->fs_cap * 2;
            size_t *nf = realloc(b->fs, nc * sizeof *nf);
            if (!nf) return -1;
            b->fs = nf;
            b->fs_cap = nc;
        }
        b->fs[2 * n] = f;
        b->fs[2 * n + 1] = i;
        n++;
        if (i >= len) break;
        f = ++i;
    }
    return (long)n;
}

/* Room for n more bytes at b->out + b->len (nomem set where memory is short). */
static inline int room(kbuf *b, size_t n)
{
    if (b->nomem) return -1;
    if (b->len + n <= b->cap) return 0;
    size_t nc = b->cap ? b->cap * 2 : 65536;
    while (nc < b->len + n) nc *= 2;
    char *no = realloc(b->out, nc);
    if (!no) return b->nomem = 1, -1;
    b->out = no;
    b->cap = nc;
    return 0;
}

/* The kept fields of row [p, p+len), each followed by the delimiter where more follows; the value's
 * field after them where value_field; then `extra` bytes of room for what follows. */
static void keep_row(const gs_rowtext *t, kbuf *b, const char *p, size_t len, int quotes, int value_field,
                     size_t extra)
{
    long nf = row_fields(b, t->delim, p, len, t->keep_all ? 0 : value_field ? t->need : t->need_kept, quotes);
    if (nf < 0) {
        b->nomem = 1;
        return;
    }
    const int n = t->keep_all ? (int)nf : t->nkeep;
    const size_t *fs = b->fs;
    size_t bytes = (size_t)n + extra + 1;
    for (int k = 0; k < n; k++) {
        const long c = t->keep_all ? k : t->keep[k];
        if (c < nf) bytes += fs[2 * c + 1] - fs[2 * c];
    }
    if (value_field && t->vcol < nf) bytes += fs[2 * t->vcol + 1] - fs[2 * t->vcol];
    if (room(b, bytes)) return;
    char *o = b->out + b->len;
    for (int k = 0; k < n; k++) {
        const long c = t->keep_all ? k : t->keep[k];
        if (c < nf) {
            gs_copy_small(o, p + fs[2 * c], fs[2 * c + 1] - fs[2 * c]);
            o += fs[2 * c + 1] - fs[2 * c];
        }
        if (k + 1 < n || value_field) *o++ = t->delim;
    }
    if (value_field && t->vcol < nf) {
        gs_copy_small(o, p + fs[2 * t->vcol], fs[2 * t->vcol + 1] - fs[2 * t->vcol]);
        o += fs[2 * t->vcol + 1] - fs[2 * t->vcol];
    }
    b->len = (size_t)(o - b->out);
}

int gs_rowtext_keep_header(gs_rowtext *t, const char *result, int (*put)(void *ctx, const char *p, size_t len, gs_status *st),
                           void *ctx, gs_status *st)
{
    if (!t->header) return GS_OK;
    if (parts_room(t, 1)) return gs_fail(st, GS_ENOMEM, "out of memory");
    kbuf *b = &t->parts[0];
    b->len = b->nomem = 0;
    keep_row(t, b, t->header, t->header_len, 1, 0, 0);
    for (const char *r = result, *e; r; r = e ? e + 1 : NULL) { /* "a_min,a_max": the names, delimited */
        e = strchr(r, ',');
        out_add(b, &t->delim, 1);
        out_add(b, r, e ? (size_t)(e - r) : strlen(r));
    }
    out_add(b, "\n", 1);
    if (b->nomem) return gs_fail(st, GS_ENOMEM, "out of memory");
    return put(ctx, b->out, b->len, st);
}

/* A batch of --keep rows, formatted in parts on the pool. */
typedef struct keep_job {
    gs_rowtext *t;
    const uint64_t *pos; /* NULL: the rows first, first + 1, ... */
    uint64_t first;
    size_t n, per;
    gs_type type;
    const void *vals;
    seg *head;      /* the oldest segment held */
    int missing;    /* a position not held */
} keep_job;


static void keep_part(void *ctx, size_t p, size_t np)
{
    keep_job *J = ctx;
    gs_rowtext *t = J->t;
    kbuf *b = &t->parts[p];
    const size_t es = gs_type_size(J->type), i1 = (p + 1) * J->per < J->n ? (p + 1) * J->per : J->n;
    const size_t extra = J->vals ? (size_t)t->ncols * (GS_NUM_CHARS + 1) + 1 : 1;
    seg *s = J->head;
    size_t k = 0; /* the row's index in s */
    (void)np;
    b->len = 0;
    for (size_t i = p * J->per; i < i1 && !b->nomem; i++) {
        size_t len;
        const char *row;
        if (J->pos || i == p * J->per) { /* found from its position; the next row follows it (no pos) */
            const uint64_t at = J->pos ? J->pos[i] : J->first + i;
            if ((row = row_at(&s, at, &len))) k = (size_t)(at - s->first);
        } else if (++k < s->n || (s = s->next, k = 0, s)) {
            row = s->text + s->spans[2 * k];
            len = (size_t)s->spans[2 * k + 1];
        } else {
            row = NULL;
        }
        if (!row) {
            J->missing = 1;
            return;
        }
        if (s->kept && !room(b, len + extra)) { /* the kept fields, cut by the reader */
            gs_copy_small(b->out + b->len, row, len);
            b->len += len;
        } else if (!s->kept) {
            keep_row(t, b, row, len, s->quotes, !J->vals, extra); /* room for the results and the line end */
        }
        if (b->nomem) return;
        char *o = b->out + b->len;
        const char *v = J->vals ? (const char *)J->vals + i * es * (size_t)t->ncols : NULL;
        for (int c = 0; v && c < t->ncols; c++, v += es) {
            gs_value x;
            const void *at = v;
            gs_type ty = J->type;
            if (t->coltyped && t->coltypes[c] != J->type) { /* printed in the column's own type, as the csv writer does */
                gs_convert(v, J->type, &x, t->coltypes[c], 1);
                at = &x;
                ty = t->coltypes[c];
            }
            *o++ = t->delim;
            o += gs_num_format(o, ty, at);
        }
        *o++ = '\n';
        b->len = (size_t)(o - b->out);
    }
}

int gs_rowtext_write_keep(gs_rowtext *t, const uint64_t *pos, uint64_t first, size_t n, gs_type type, const void *vals,
                          int (*put)(void *ctx, const char *p, size_t len, gs_status *st), void *ctx, gs_status *st)
{
    const size_t per_max = 1 << 18; /* rows a part: bounds its text (a few MiB) */
    int rc = GS_OK;
    seg *head = first_seg(t);
    for (size_t done = 0; done < n && !rc;) {
        size_t np = (size_t)gs_pool_threads(), left = n - done;
        size_t per = (left + np - 1) / np;
        if (per < 4096) per = 4096;
        if (per > per_max) per = per_max;
        np = (left + per - 1) / per;
        if (np > (size_t)gs_pool_threads()) np = (size_t)gs_pool_threads();
        if (np < 1) np = 1;
        const size_t batch = np * per < left ? np * per : left;
        if (parts_room(t, np)) {
            rc = gs_fail(st, GS_ENOMEM, "out of memory");
            break;
        }
        keep_job J = {t, pos ? pos + done : NULL, first + done, batch, per, type,
                      vals ? (const char *)vals + done * gs_type_size(type) * (size_t)t->ncols : NULL, head, 0};
        for (size_t p = 0; p < np; p++) t->parts[p].nomem = 0;
        if (np > 1) gs_parallel_for(np, keep_part, &J);
        else keep_part(&J, 0, 1);
        for (size_t p = 0; p < np && !rc; p++) {
            if (t->parts[p].nomem) rc = gs_fail(st, GS_ENOMEM, "out of memory");
            else if (J.missing) rc = not_held(pos ? pos[done] : first + done, st);
            else rc = put(ctx, t->parts[p].out, t->parts[p].len, st);
        }
        done += batch;
    }
    return rc;
}
