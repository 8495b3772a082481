/* columns.c - several columns in one pass (backends.h, gs_backend_columns_create).
 *
 * The engine reads rows of k values (--col a,b,c; a 2-D npy) and hands this backend chunks of them
 * as it would any chunk; the run stays one stream. Each column has a backend of its own, made as
 * the plan makes one (the CPU's, or the GPU plan's composite), so each keeps its own carries: the
 * scan total, the minmax halo, the rolling windows, compaction's count. A chunk is split into its
 * k columns (each with the head room its backend asks for), column c runs on backend c, and the
 * outputs are joined into rows again: column c's m values (a pair for minmax, one per aggregate
 * for rolling) after column c-1's. Every column writes as many rows as the others (scan, minmax,
 * rolling); compact --count keeps one count a column, written nowhere but counted. The columns'
 * chunks run one after another on the backends (a GPU's are queued on its streams), and retire in
 * order. */
#include "backends.h"

#include <stdlib.h>
#include <string.h>

typedef struct col_slot {
    gs_chunk in[GS_WRITE_COLS_MAX], out[GS_WRITE_COLS_MAX];
    unsigned char theirs[GS_WRITE_COLS_MAX]; /* column c's buffers came from its backend's host_alloc */
    gs_chunk *ein, *eout; /* the engine's chunks */
} col_slot;

typedef struct cols {
    int k;
    gs_backend *b[GS_WRITE_COLS_MAX];
    gs_backend_cfg cfg;           /* a column's: the engine's, for one value a row */
    gs_backend_cfg ccfg[GS_WRITE_COLS_MAX]; /* each column's, as its backend was made with it */
    gs_engine_opts opts[2];       /* the engine's options; the second without notes (columns 2..k) */
    size_t esize, osize, m, head;
    col_slot *slots;
    int nslots, next, oldest, inflight;
    int count_only;
    int started; /* the columns' backends have started: buffers from their host_alloc */
    uint64_t counts[GS_WRITE_COLS_MAX];
} cols;

static void *c_host_alloc(gs_backend *b, size_t bytes, gs_status *st)
{
    (void)b;
    void *p = gs_alloc_large(bytes);
    if (!p) {
        gs_fail(st, GS_ENOMEM, "out of host memory for a chunk of %zu bytes", bytes);
        return NULL;
    }
    return p;
}

static void c_host_free(gs_backend *b, void *p)
{
    (void)b;
    free(p);
}

/* Strided copies: n items of `size` bytes from every sstride-th item of src to every dstride-th of
 * dst (strides in items); 4- and 8-byte items copied as words. */
static void copy_strided(void *dst, size_t dstride, const void *src, size_t sstride, size_t n, size_t size)
{
    if (size == 8) {
        uint64_t *d = dst;
        const uint64_t *q = src;
        for (size_t i = 0; i < n; i++) d[i * dstride] = q[i * sstride];
    } else if (size == 4) {
        uint32_t *d = dst;
        const uint32_t *q = src;
        for (size_t i = 0; i < n; i++) d[i * dstride] = q[i * sstride];
    } else {
        for (size_t i = 0; i < n; i++) memcpy((char *)dst + i * dstride * size, (const char *)src + i * sstride * size, size);
    }
}

/* Slot s's buffers for column c, once: its backend's staging (pinned, or mapped for kernels that
 * read host memory) once started; before that, while chunks run at once on the CPU, plain memory. */
static int slot_buffers(cols *C, col_slot *s, int c, gs_status *st)
{
    gs_chunk *in = &s->in[c], *out = &s->out[c];
    if (in->buf) return GS_OK;
    gs_backend *x = C->started ? C->b[c] : NULL;
    void *(*alloc)(gs_backend *, size_t, gs_status *) = x ? x->host_alloc : c_host_alloc;
    const size_t rows = C->cfg.chunk_elems;
    s->theirs[c] = x != NULL;
    if (!(in->buf = alloc(x, (C->head + rows) * C->esize, st))) return st->code ? st->code : GS_ENOMEM;
    in->data = (char *)in->buf + C->head * C->esize;
    in->cap = rows;
    if (!(out->buf = alloc(x, C->cfg.out_cap * C->osize, st))) return st->code ? st->code : GS_ENOMEM;
    out->data = out->buf;
    out->cap = C->cfg.out_cap;
    return GS_OK;
}

/* Slot buffers back to whoever allocated them (the columns' backends still exist). */
static void slot_free(cols *C, int only_plain)
{
    for (int i = 0; C->slots && i < C->nslots; i++)
        for (int c = 0; c < C->k; c++) {
            col_slot *s = &C->slots[i];
            if (only_plain && s->theirs[c]) continue;
            void (*fr)(gs_backend *, void *) = s->theirs[c] ? C->b[c]->host_free : c_host_free;
            if (s->in[c].buf) fr(C->b[c], s->in[c].buf);
            if (s->out[c].buf) fr(C->b[c], s->out[c].buf);
            s->in[c].buf = s->out[c].buf = NULL;
            s->theirs[c] = 0;
        }
}

static int c_submit(gs_backend *b, gs_chunk *in, gs_chunk *out, gs_status *st)
{
    cols *C = b->impl;
    if (C->inflight == C->nslots) return gs_fail(st, GS_EDATA, "columns: more chunks in flight than slots");
    col_slot *s = &C->slots[C->next];
    const size_t k = (size_t)C->k, es = C->esize;
    s->ein = in;
    s->eout = out;
    for (int c = 0; c < C->k; c++) {
        int rc = slot_buffers(C, s, c, st);
        if (rc) return rc;
        copy_strided(s->in[c].data, 1, (const char *)in->data + (size_t)c * es, k, in->n, es);
        s->in[c].n = in->n;
        s->in[c].seq = in->seq;
        s->out[c].n = 0;
        s->out[c].zn = 0;
        s->out[c].zcap = 0;
        if ((rc = C->b[c]->submit(C->b[c], &s->in[c], &s->out[c], st))) return rc;
    }
    C->next = (C->next + 1) % C->nslots;
    C->inflight++;
    return GS_OK;
}

static int c_retire(gs_backend *b, gs_chunk **in, gs_chunk **out, gs_status *st)
{
    cols *C = b->impl;
    if (!C->inflight) return gs_fail(st, GS_EDATA, "columns: retire with no chunk in flight");
    col_slot *s = &C->slots[C->oldest];
    for (int c = 0; c < C->k; c++) {
        gs_chunk *rin, *rout;
        int rc = C->b[c]->retire(C->b[c], &rin, &rout, st);
        if (rc) return rc;
        if (rin != &s->in[c] || rout != &s->out[c] || rout->zn)
            return gs_fail(st, GS_EDATA, "columns: column %d retired another chunk", c + 1);
        if (!C->count_only && rout->n != s->out[0].n)
            return gs_fail(st, GS_EDATA, "columns: column %d wrote %zu values, column 1 %zu", c + 1, rout->n,
                           s->out[0].n);
        C->counts[c] += rout->n;
    }
    C->oldest = (C->oldest + 1) % C->nslots;
    C->inflight--;
    gs_chunk *eo = s->eout;
    eo->zn = 0;
    eo->n = 0;
    if (!C->count_only) { /* rows of k x m values: column c's m after column c-1's */
        const size_t rows = s->out[0].n / C->m, rb = C->m * C->osize;
        for (int c = 0; c < C->k; c++)
            copy_strided((char *)eo->data + (size_t)c * rb, (size_t)C->k, s->out[c].data, 1, rows, rb);
        eo->n = rows * C->m * (size_t)C->k;
    }
    *in = s->ein;
    *out = eo;
    return GS_OK;
}

/* After the columns' backends started (or were made): what the engine may rely on. */
static void c_settle(gs_backend *b)
{
    cols *C = b->impl;
    b->name = C->b[0]->name;
    b->text_in = C->b[0]->text_in; /* the reader's rows parsed by column 0's backend */
    b->chunk_elems = 0;
    for (int c = 0; c < C->k; c++) {
        const gs_backend *x = C->b[c];
        if (x->depth < b->depth) b->depth = x->depth;
        if (x->chunk_elems && (!b->chunk_elems || x->chunk_elems < b->chunk_elems)) b->chunk_elems = x->chunk_elems;
    }
}

/* Head room before each column's chunk, as the engine leaves it for one backend (staging.c): the
 * halo, at most what the backend asks for, and before a start at most a chunk. */
static void col_head(cols *C, int started)
{
    const gs_backend *x = C->b[0];
    C->head = C->cfg.halo;
    if (x->max_head && x->max_head < C->head) C->head = x->max_head;
    else if (!started && C->head > C->cfg.chunk_elems) C->head = C->cfg.chunk_elems;
}

static int c_start(gs_backend *b, gs_status *st)
{
    cols *C = b->impl;
    for (int c = 0; c < C->k; c++) {
        int rc = C->b[c]->start ? C->b[c]->start(C->b[c], st) : GS_OK;
        if (rc) return rc;
    }
    c_settle(b);
    slot_free(C, 1); /* no chunk is in flight: what ran on the CPU meanwhile had plain buffers */
    col_head(C, 1);
    C->started = 1;
    return GS_OK;
}

static int c_ready(gs_backend *b)
{
    cols *C = b->impl;
    for (int c = 0; c < C->k; c++)
        if (C->b[c]->ready && !C->b[c]->ready(C->b[c])) return 0;
    return 1;
}

static void c_stats(gs_backend *b, gs_run_stats *s)
{
    cols *C = b->impl;
    C->b[0]->stats(C->b[0], s); /* every column ran the same variants on the same backend */
}

static void c_quiesce(gs_backend *b)
{
    cols *C = b->impl;
    for (int c = 0; c < C->k; c++)
        if (C->b[c] && C->b[c]->quiesce) C->b[c]->quiesce(C->b[c]);
}

static void c_destroy(gs_backend *b)
{
    cols *C = b->impl;
    slot_free(C, 0);
    for (int c = 0; c < C->k; c++)
        if (C->b[c]) C->b[c]->destroy(C->b[c]);
    free(C->slots);
    free(C);
    free(b);
}

int gs_backend_columns_create(gs_backend **out, int k, const gs_backend_cfg *cfg, gs_backend_make_fn make, void *ctx,
                              gs_status *st)
{
    *out = NULL;
    if (k < 2 || k > GS_WRITE_COLS_MAX) return gs_fail(st, GS_EUSAGE, "columns: %d columns (2 to %d)", k, GS_WRITE_COLS_MAX);
    gs_backend *b = gs_backend_alloc(sizeof(cols), st);
    if (!b) return st->code;
    cols *C = b->impl;
    const gs_job *job = cfg->job;
    const gs_job *last = cfg->chain ? &cfg->chain->stage[cfg->chain->n - 1] : job;
    C->k = k;
    C->cfg = *cfg;
    C->opts[0] = *cfg->opts;
    C->opts[1] = *cfg->opts;
    C->opts[1].note = NULL; /* a note (the GPU not there) once, not once a column */
    C->esize = gs_type_size(cfg->in_type);
    C->osize = gs_type_size(cfg->out_type);
    C->m = (size_t)(cfg->out_cap / (cfg->chunk_elems ? cfg->chunk_elems : 1) / (size_t)k);
    if (!C->m) C->m = 1;
    C->count_only = last->count_only;
    C->cfg.halo = (size_t)gs_job_halo(job);
    C->cfg.out_cap = cfg->chunk_elems * C->m;
    b->host_alloc = c_host_alloc;
    b->host_free = c_host_free;
    b->submit = c_submit;
    b->retire = c_retire;
    b->stats = c_stats;
    b->quiesce = c_quiesce;
    b->destroy = c_destroy;
    b->depth = 1 << 30;
    int rc = GS_OK;
    for (int c = 0; c < k && !rc; c++) {
        C->ccfg[c] = C->cfg;
        C->ccfg[c].opts = &C->opts[c ? 1 : 0];
        C->ccfg[c].text_in = c ? 0 : cfg->text_in;
        rc = make(ctx, &C->ccfg[c], &C->b[c], st);
    }
    if (!rc) {
        const gs_backend *x = C->b[0];
        b->early = x->early;
        C->started = !x->start;
        col_head(C, C->started);
        b->start = x->start ? c_start : NULL;
        b->ready = x->start ? c_ready : NULL;
        c_settle(b);
        C->nslots = b->depth;
        if (!(C->slots = calloc((size_t)C->nslots, sizeof *C->slots))) rc = gs_fail(st, GS_ENOMEM, "out of host memory");
    }
    if (rc) {
        C->nslots = 0;
        c_destroy(b);
        return rc;
    }
    *out = b;
    return GS_OK;
}

void gs_backend_columns_counts(const gs_backend *b, uint64_t *counts)
{
    const cols *C = b->impl;
    memcpy(counts, C->counts, (size_t)C->k * sizeof *counts);
}

int gs_columns_check(const gs_chain *chain, gs_status *st)
{
    const gs_job *last = &chain->stage[chain->n - 1];
    if (last->rows) return gs_fail(st, GS_EUSAGE, GS_COLUMNS_ROWS);
    for (int k = 0; k < chain->n; k++) {
        const gs_job *j = &chain->stage[k];
        if (j->op == GS_OP_COMPACT && !(k + 1 == chain->n && j->count_only))
            return gs_fail(st, GS_EUSAGE, GS_COLUMNS_COMPACT);
    }
    return GS_OK;
}
