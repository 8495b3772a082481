/* cpu/backend.c - the CPU backend: runs each chunk synchronously with a CPU variant on the
 * thread pool, keeping the carries between chunks on the host (scan running total, compact
 * index base, minmax halo of the last W-1 inputs), which it hands on (gs_backend.resume). */
#include "../pipeline.h"
#include "../../common/pool.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* One stage: its job, variant and carry. A chain's stages but the last write into `mid`, which has
 * head room for the next stage's halo. */
typedef struct cpu_stage {
    const gs_job *job;
    const gs_variant *v;
    gs_type in_type, out_type;
    size_t in_size;
    gs_value carry;   /* scan */
    uint64_t base;    /* compact: inputs before this chunk */
    char *halo;       /* minmax: the last halo_len inputs, W-1 at most (grown as inputs come) */
    size_t halo_len, halo_cap;
    size_t head;      /* head room elements before each input chunk */
    char *joined;     /* [halo | chunk] when the halo is longer than the head room */
    size_t joined_cap; /* elements */
    gs_chunk mid;     /* output of a stage that is not the last */
    double busy;      /* chains: seconds in this stage, for --stats */
    uint64_t elems_in;
} cpu_stage;

typedef struct cpu_state {
    int nst;
    cpu_stage st[GS_CHAIN_MAX];
    gs_chunk *pend_in, *pend_out; /* the one chunk in flight */
} cpu_state;

static void *cpu_host_alloc(gs_backend *b, size_t bytes, gs_status *st)
{
    (void)b;
    void *p = gs_alloc_large(bytes);
    if (!p) {
        gs_fail(st, GS_ENOMEM, "out of host memory allocating %zu bytes (try a smaller --chunk)", bytes);
        return NULL;
    }
    return p;
}

static void cpu_host_free(gs_backend *b, void *p)
{
    (void)b;
    free(p);
}

/* convert: a parallel type conversion, in parts of whole cache-friendly blocks. */
typedef struct conv_ctx {
    const void *in;
    void *out;
    gs_type tin, tout;
    size_t n;
} conv_ctx;

static void conv_part(void *c, size_t p, size_t np)
{
    conv_ctx *x = c;
    size_t b, e;
    gs_split(x->n, np, p, &b, &e);
    gs_convert((const char *)x->in + b * gs_type_size(x->tin), x->tin, (char *)x->out + b * gs_type_size(x->tout),
               x->tout, e - b);
}

static int cpu_minmax(cpu_stage *s, const gs_chunk *in, gs_chunk *out, gs_status *st)
{
    const gs_minmax_params *p = &s->job->minmax;
    size_t w1 = (size_t)(p->window - 1);
    size_t m = s->halo_len + in->n; /* both in memory already: cannot overflow */
    /* [halo | chunk] contiguous: in the head room the engine left before the data, or, for a
     * halo longer than that (windows longer than a chunk), in a buffer of its own. */
    char *start;
    if (s->halo_len <= s->head) {
        start = (char *)in->data - s->halo_len * s->in_size;
    } else {
        if (s->joined_cap < m) {
            char *j = realloc(s->joined, m * s->in_size);
            if (!j) return gs_fail(st, GS_ENOMEM, "out of host memory for a window of %llu elements",
                                   (unsigned long long)p->window);
            s->joined = j;
            s->joined_cap = m;
        }
        start = s->joined;
        memcpy(start + s->halo_len * s->in_size, in->data, in->n * s->in_size);
    }
    if (s->halo_len) memcpy(start, s->halo, s->halo_len * s->in_size); /* W = 1: no halo buffer */
    size_t first = s->job->partial ? s->halo_len : (s->halo_len > w1 ? s->halo_len : w1);
    size_t cols = (size_t)gs_job_out_cols(s->job);
    /* rolling: the types of this stage, and where [halo | chunk] starts in the stream */
    gs_minmax_params rp = *p;
    rp.type = s->in_type;
    rp.out_type = s->out_type;
    rp.base = s->base - s->halo_len;
    s->base += in->n;
    out->n = 0;
    if (first < m) {
        int rc = s->v->cpu.minmax(p->nagg ? &rp : p, start, m, first, out->data, st);
        if (rc) return rc;
        out->n = (m - first) * cols;
    }
    /* Keep the last W-1 inputs for the next chunk. */
    size_t keep = m < w1 ? m : w1;
    if (keep > s->halo_cap) { /* grows with the input seen, so a huge W on a short input costs little */
        size_t cap = s->halo_cap > keep / 2 ? s->halo_cap * 2 : keep;
        if (cap > w1) cap = w1;
        char *h = realloc(s->halo, cap * s->in_size);
        if (!h) return gs_fail(st, GS_ENOMEM, "out of host memory for a window of %llu elements",
                               (unsigned long long)p->window);
        s->halo = h;
        s->halo_cap = cap;
    }
    if (keep) memmove(s->halo, start + (m - keep) * s->in_size, keep * s->in_size);
    s->halo_len = keep;
    return GS_OK;
}

/* One stage on one chunk: in -> out, carries updated. */
static int cpu_stage_run(cpu_stage *s, const gs_chunk *in, gs_chunk *out, gs_status *st)
{
    int rc = GS_OK;
    if (in->n == 0 && s->job->op != GS_OP_MINMAX) { /* compaction emptied it: carries unchanged */
        out->n = 0;
        return GS_OK;
    }
    switch (s->job->op) {
    case GS_OP_SCAN:
        rc = s->v->cpu.scan(&s->job->scan, in->data, out->data, in->n, &s->carry, st);
        out->n = in->n;
        break;
    case GS_OP_COMPACT: {
        size_t kept = 0;
        rc = s->v->cpu.compact(&s->job->compact, in->data, in->n, out->data, s->base, &kept, st);
        s->base += in->n;
        out->n = kept;
        break;
    }
    case GS_OP_MINMAX: rc = cpu_minmax(s, in, out, st); break;
    default: {
        conv_ctx c = {in->data, out->data, s->in_type, s->out_type, in->n};
        size_t parts = in->n / (1u << 16) + 1;
        size_t t = (size_t)gs_pool_threads();
        gs_parallel_for(parts < t ? parts : t, conv_part, &c);
        out->n = in->n;
        break;
    }
    }
    return rc;
}

static int cpu_submit(gs_backend *b, gs_chunk *in, gs_chunk *out, gs_status *st)
{
    cpu_state *s = b->impl;
    int rc = GS_OK;
    out->seq = in->seq;
    if (s->nst == 1) rc = cpu_stage_run(&s->st[0], in, out, st);
    else {
        /* A chain: stage after stage on this chunk; a stage may get 0 elements (compaction). */
        const gs_chunk *cur = in;
        for (int k = 0; k < s->nst && !rc; k++) {
            gs_chunk *dst = k == s->nst - 1 ? out : &s->st[k].mid;
            double t0 = gs_now();
            s->st[k].elems_in += cur->n;
            rc = cpu_stage_run(&s->st[k], cur, dst, st);
            s->st[k].busy += gs_now() - t0;
            cur = dst;
        }
    }
    s->pend_in = in;
    s->pend_out = out;
    return rc;
}

static int cpu_retire(gs_backend *b, gs_chunk **in, gs_chunk **out, gs_status *st)
{
    cpu_state *s = b->impl;
    (void)st;
    *in = s->pend_in;
    *out = s->pend_out;
    s->pend_in = s->pend_out = NULL;
    return GS_OK;
}

static void cpu_stats(gs_backend *b, gs_run_stats *r)
{
    cpu_state *s = b->impl;
    if (!r->backend) r->backend = "cpu";
    if (s->nst == 1) {
        if (s->st[0].v) r->algo = s->st[0].v->name;
        return;
    }
    size_t at = 0; /* "cpu-par, cpu-vhgw": each stage's variant */
    for (int k = 0; k < s->nst && at < sizeof r->algo_text; k++)
        at += (size_t)snprintf(r->algo_text + at, sizeof r->algo_text - at, "%s%s", k ? ", " : "", s->st[k].v->name);
    r->algo = r->algo_text;
    for (int k = 0; k < s->nst && r->nstages < (int)(sizeof r->stage / sizeof r->stage[0]); k++) {
        snprintf(r->stage_label[k], sizeof r->stage_label[k], "%d %s", k + 1, gs_job_name(s->st[k].job));
        r->stage[r->nstages++] = (gs_stage_stat){r->stage_label[k], s->st[k].busy, s->st[k].elems_in * s->st[k].in_size};
        r->chain_in[k] = s->st[k].elems_in;
    }
}

/* Where the backend stopped, as the job that continues there. */
static void cpu_resume(const gs_backend *b, gs_job *j)
{
    const cpu_stage *s = &((const cpu_state *)b->impl)->st[0];
    if (j->op == GS_OP_SCAN) {
        j->has_carry = 1;
        j->carry = s->carry;
    }
    j->index_base = s->base;
    if (j->op == GS_OP_MINMAX) {
        j->halo = s->halo;
        j->halo_len = s->halo_len;
    }
}

static void cpu_destroy(gs_backend *b)
{
    cpu_state *s = b->impl;
    for (int k = 0; k < s->nst; k++) {
        free(s->st[k].halo);
        free(s->st[k].joined);
        free(s->st[k].mid.buf);
    }
    free(s);
    free(b);
}

/* Head room a stage's input buffers leave before the data: its halo (minmax W-1), at most a
 * chunk; a longer halo is joined in the stage's `joined`. */
static size_t stage_head(const gs_job *job, size_t chunk)
{
    size_t h = job->op == GS_OP_MINMAX ? (size_t)(job->minmax.window - 1) : 0;
    return h < chunk ? h : chunk;
}

/* Stage k of the backend: its job, variant and types, its head room and (not last) its
 * output buffer with head room for the next stage's halo. */
static int cpu_stage_init(cpu_stage *s, const gs_job *job, const gs_variant *v, gs_type in, gs_type out,
                          size_t head, const gs_job *next, size_t cap, gs_status *st)
{
    s->job = job;
    s->v = v;
    s->in_type = in;
    s->out_type = out;
    s->in_size = gs_type_size(in);
    s->head = head;
    if (job->op == GS_OP_SCAN) gs_job_scan_start(job, &s->carry); /* an MPI shard's carry, else the identity */
    s->base = job->index_base;
    if (job->op == GS_OP_MINMAX && job->halo_len) { /* continuing a stream */
        if (!(s->halo = malloc(job->halo_len * s->in_size))) return gs_fail(st, GS_ENOMEM, "out of host memory for a halo");
        memcpy(s->halo, job->halo, job->halo_len * s->in_size);
        s->halo_len = s->halo_cap = job->halo_len;
    }
    if (next) {
        size_t nh = stage_head(next, cap), bytes;
        void *p = NULL;
        if (gs_add_size(nh, cap, &bytes) || gs_mul_size(bytes, gs_type_size(out), &bytes) || !(p = gs_alloc_large(bytes)))
            return gs_fail(st, GS_ENOMEM, "out of host memory for a chain stage's buffer (try a smaller --chunk)");
        s->mid.buf = p;
        s->mid.data = (char *)p + nh * gs_type_size(out);
        s->mid.cap = cap;
    }
    return GS_OK;
}

int gs_backend_cpu_create(gs_backend **out, const gs_backend_cfg *c, gs_status *st)
{
    gs_backend *b = gs_backend_alloc(sizeof(cpu_state), st);
    if (!b) return st->code;
    cpu_state *s = b->impl;
    b->destroy = cpu_destroy;
    int rc;
    size_t head0 = c->halo < c->chunk_elems ? c->halo : c->chunk_elems; /* stage_head of stage 0 */
    if (!c->chain) {
        s->nst = 1;
        rc = cpu_stage_init(&s->st[0], c->job, c->variant, c->in_type, c->out_type, head0, NULL, 0, st);
    } else {
        s->nst = c->chain->n;
        rc = GS_OK;
        for (int k = 0; k < s->nst && !rc; k++) {
            const gs_job *j = &c->chain->stage[k];
            rc = cpu_stage_init(&s->st[k], j, c->variants[k], c->types[k], c->types[k + 1], stage_head(j, c->chunk_elems),
                                k + 1 < s->nst ? &c->chain->stage[k + 1] : NULL, c->chunk_elems, st);
        }
    }
    if (rc) {
        cpu_destroy(b);
        return rc;
    }
    b->name = "cpu";
    b->host_alloc = cpu_host_alloc;
    b->host_free = cpu_host_free;
    b->submit = cpu_submit;
    b->retire = cpu_retire;
    b->stats = cpu_stats;
    b->resume = cpu_resume;
    b->depth = 1;
    b->max_head = head0 ? head0 : 1; /* nonzero: the engine never leaves more than stage 0's head */
    b->chunk_elems = c->chunk_elems;
    *out = b;
    return GS_OK;
}
