/* engine.c - the chunk engine shared by every backend.
 *
 *   reader thread:  source -> free input chunk -> ready queue      (decode uses the pool)
 *   caller thread:  ready queue -> backend submit ... retire -> write queue
 *   writer thread:  write queue -> gs_writer (encode uses the pool) -> free output chunk
 *
 * Chunks are allocated once (by the backend: pinned for the GPU) and cycle through bounded
 * queues, so host memory is (depth + 2) x (input chunk + output chunk) whatever the input
 * size. The first error anywhere closes every queue; each thread then drains and exits. */
#include "pipeline.h"
#include "../common/pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define DEFAULT_CHUNK_BYTES (64u << 20)

/* ---- a bounded blocking queue of chunk pointers -------------------------------------------- */
typedef struct queue {
    gs_chunk **items;
    size_t cap, head, count;
    int closed; /* no more pushes: pops drain then return NULL */
    pthread_mutex_t mu;
    pthread_cond_t cv;
} queue;

static int q_init(queue *q, size_t cap)
{
    q->items = calloc(cap, sizeof *q->items);
    q->cap = cap;
    q->head = q->count = 0;
    q->closed = 0;
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv, NULL);
    return q->items ? 0 : -1;
}

static void q_free(queue *q)
{
    free(q->items);
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
}

/* The queue's capacity always covers every chunk that exists, so a push never blocks. */
static void q_push(queue *q, gs_chunk *c)
{
    pthread_mutex_lock(&q->mu);
    q->items[(q->head + q->count) % q->cap] = c;
    q->count++;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

/* NULL when the queue is closed and empty. */
static gs_chunk *q_pop(queue *q)
{
    gs_chunk *c = NULL;
    pthread_mutex_lock(&q->mu);
    while (!q->count && !q->closed) pthread_cond_wait(&q->cv, &q->mu);
    if (q->count) {
        c = q->items[q->head];
        q->head = (q->head + 1) % q->cap;
        q->count--;
    }
    pthread_mutex_unlock(&q->mu);
    return c;
}

static void q_close(queue *q)
{
    pthread_mutex_lock(&q->mu);
    q->closed = 1;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

/* ---- job helpers ------------------------------------------------------------------------------ */
gs_type gs_job_out_type(const gs_job *j, gs_type in)
{
    switch (j->op) {
    case GS_OP_SCAN: return j->scan.out_type;
    case GS_OP_COMPACT: return j->compact.indices ? GS_U64 : in;
    case GS_OP_MINMAX: return in;
    default: return j->out_type;
    }
}

int gs_job_out_cols(const gs_job *j)
{
    return (j->op == GS_OP_MINMAX && j->minmax.only == GS_MM_BOTH) ? 2 : 1;
}

int64_t gs_job_out_rows(const gs_job *j, int64_t n)
{
    if (n < 0) return -1;
    switch (j->op) {
    case GS_OP_COMPACT: return -1;
    case GS_OP_MINMAX:
        if (j->partial) return n;
        return (uint64_t)n >= j->minmax.window ? n - (int64_t)j->minmax.window + 1 : 0;
    default: return n;
    }
}

void gs_job_scan_start(const gs_job *j, gs_value *carry)
{
    if (j->has_carry) *carry = j->carry;
    else gs_scan_identity(j->scan.op, j->scan.out_type, carry);
}

int gs_job_resolve(const gs_job *j, gs_where where, const gs_variant **v, gs_status *st)
{
    const gs_variant *var;
    if (j->op == GS_OP_NONE) {
        *v = NULL;
        return GS_OK;
    }
    if (j->algo) {
        var = gs_variant_find(j->op, j->algo);
        if (!var)
            return gs_fail(st, GS_EUSAGE, "unknown --algo '%s' for this verb (gpustream info lists them)", j->algo);
        if (var->where != where)
            return gs_fail(st, GS_EUSAGE, "--algo %s runs on the %s; it needs --backend %s", j->algo,
                           var->where == GS_GPU ? "GPU" : "CPU", var->where == GS_GPU ? "gpu" : "cpu");
    } else {
        var = gs_variant_default(j->op, where);
        if (!var) return gs_fail(st, GS_EDATA, "no %s variant compiled in", where == GS_GPU ? "GPU" : "CPU");
    }
    int rc = j->op == GS_OP_SCAN      ? gs_variant_check_scan(var, &j->scan, st)
             : j->op == GS_OP_COMPACT ? gs_variant_check_compact(var, &j->compact, st)
                                      : gs_variant_check_minmax(var, &j->minmax, st);
    if (rc) return rc;
    *v = var;
    return GS_OK;
}


/* ---- sources ------------------------------------------------------------------------------ */
static int reader_read(void *ctx, void *buf, size_t cap, size_t *got, gs_status *st)
{
    return gs_reader_read((gs_reader *)ctx, buf, cap, got, st);
}

static uint64_t reader_bytes(void *ctx) { return gs_reader_bytes((gs_reader *)ctx); }

gs_source gs_source_from_reader(gs_reader *r)
{
    gs_source s = {reader_read, r, gs_reader_type(r), gs_reader_count(r), reader_bytes};
    return s;
}

/* ---- the run ------------------------------------------------------------------------------ */
typedef struct run {
    const gs_job *job;
    gs_source *src;
    gs_writer *w;
    gs_backend *b;
    size_t chunk_elems, in_size, out_size;
    queue free_in, ready, free_out, written;
    pthread_mutex_t err_mu;
    gs_status err; /* the first failure */
    volatile int failed;
    double read_busy, write_busy;
    uint64_t elems_in, values_out;
} run;

static void run_fail(run *r, const gs_status *st)
{
    pthread_mutex_lock(&r->err_mu);
    if (!r->failed) {
        r->err = *st;
        r->failed = 1;
    }
    pthread_mutex_unlock(&r->err_mu);
    q_close(&r->free_in);
    q_close(&r->ready);
    q_close(&r->free_out);
    q_close(&r->written);
}

/* Fill chunks until the source ends: a chunk is full unless it is the last one, so chunk
 * boundaries depend on --chunk alone (results must not depend on how reads fall). */
static void *reader_main(void *arg)
{
    run *r = arg;
    gs_status st = {0};
    uint64_t seq = 0;
    int eof = 0;
    while (!eof) {
        gs_chunk *c = q_pop(&r->free_in);
        if (!c) break;
        double t0 = gs_now();
        size_t n = 0;
        while (n < r->chunk_elems) {
            size_t got = 0;
            if (r->src->read(r->src->ctx, (char *)c->data + n * r->in_size, r->chunk_elems - n, &got, &st)) {
                run_fail(r, &st);
                return NULL;
            }
            if (!got) {
                eof = 1;
                break;
            }
            n += got;
        }
        r->read_busy += gs_now() - t0;
        if (n == 0) {
            q_push(&r->free_in, c);
            break;
        }
        c->n = n;
        c->seq = seq++;
        c->last = 0;
        r->elems_in += n;
        q_push(&r->ready, c);
    }
    q_close(&r->ready);
    return NULL;
}

static void *writer_main(void *arg)
{
    run *r = arg;
    gs_status st = {0};
    for (;;) {
        gs_chunk *c = q_pop(&r->written);
        if (!c) break;
        if (r->w && c->n) {
            double t0 = gs_now();
            if (gs_writer_write(r->w, c->data, c->n, &st)) {
                run_fail(r, &st);
                break;
            }
            r->write_busy += gs_now() - t0;
        }
        q_push(&r->free_out, c);
    }
    return NULL;
}

static uint64_t peak_rss(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (uint64_t)ru.ru_maxrss * 1024;
}

static gs_chunk *chunks_alloc(gs_backend *b, size_t count, size_t head, size_t cap, size_t esize, gs_status *st)
{
    gs_chunk *cs = calloc(count, sizeof *cs);
    if (!cs) {
        gs_fail(st, GS_ENOMEM, "out of host memory for chunk descriptors");
        return NULL;
    }
    for (size_t i = 0; i < count; i++) {
        cs[i].buf = b->host_alloc(b, (head + cap) * esize, st);
        if (!cs[i].buf) {
            for (size_t k = 0; k < i; k++) b->host_free(b, cs[k].buf);
            free(cs);
            return NULL;
        }
        cs[i].data = (char *)cs[i].buf + head * esize;
        cs[i].cap = cap;
    }
    return cs;
}

static void chunks_free(gs_backend *b, gs_chunk *cs, size_t count)
{
    if (!cs) return;
    for (size_t i = 0; i < count; i++) b->host_free(b, cs[i].buf);
    free(cs);
}

/* Pick the backend: --backend gpu must get one; auto falls back to the CPU with a note. */
static int make_backend(const gs_job *job, const gs_engine_opts *o, gs_backend_cfg *cfg, gs_backend **b,
                        gs_run_stats *stats, gs_status *st)
{
    const gs_variant *v = NULL;
    int want_gpu = o->backend == GS_BACKEND_GPU;
    int try_gpu = want_gpu;
    char desc[256] = "";
    if (job->op == GS_OP_NONE) { /* convert and gen compute nothing: no GPU round trip */
        cfg->variant = NULL;
        return gs_backend_cpu_create(b, cfg, st);
    }
    if (o->backend == GS_BACKEND_AUTO) {
        /* An explicit CPU --algo means the CPU backend. */
        const gs_variant *named = job->algo ? gs_variant_find(job->op, job->algo) : NULL;
        try_gpu = named ? named->where == GS_GPU : gs_gpu_available(o->device, desc, sizeof desc);
        if (!try_gpu && !named && stats)
            snprintf(stats->note, sizeof stats->note, "%s: using the CPU backend",
                     desc[0] ? desc : "no GPU available");
    }
    if (try_gpu) {
        int rc = gs_job_resolve(job, GS_GPU, &v, st);
        if (rc) return rc;
        cfg->variant = v;
        gs_status gst = {0};
        rc = gs_backend_gpu_create(b, cfg, &gst);
        if (rc == GS_OK) return GS_OK;
        if (want_gpu || (job->algo && v)) {
            *st = gst;
            return rc;
        }
        if (stats) snprintf(stats->note, sizeof stats->note, "%s: using the CPU backend", gst.msg);
    }
    int rc = gs_job_resolve(job, GS_CPU, &v, st);
    if (rc) return rc;
    cfg->variant = v;
    return gs_backend_cpu_create(b, cfg, st);
}

int gs_engine_run(const gs_job *job, const gs_engine_opts *o, gs_source *src, gs_writer *w, uint64_t *count,
                  gs_run_stats *stats, gs_status *st)
{
    run r;
    memset(&r, 0, sizeof r);
    r.job = job;
    r.src = src;
    r.w = w;
    double t_start = gs_now();
    gs_type in_type = src->type;
    gs_type out_type = gs_job_out_type(job, in_type);
    int cols = gs_job_out_cols(job);
    r.in_size = gs_type_size(in_type);
    r.out_size = gs_type_size(out_type);
    size_t chunk_bytes = o->chunk_bytes ? o->chunk_bytes : DEFAULT_CHUNK_BYTES;
    size_t chunk_elems = chunk_bytes / r.in_size;
    if (chunk_elems == 0) chunk_elems = 1;
    size_t halo = job->op == GS_OP_MINMAX ? (size_t)(job->minmax.window - 1) : 0;

    gs_backend_cfg cfg = {job, NULL, in_type, out_type, chunk_elems, halo, chunk_elems * (size_t)cols, o};
    gs_backend *b = NULL;
    gs_pool_start(o->threads);
    int rc = make_backend(job, o, &cfg, &b, stats, st);
    if (rc) return rc;
    r.b = b;
    if (b->chunk_elems && b->chunk_elems < chunk_elems) chunk_elems = b->chunk_elems;
    r.chunk_elems = chunk_elems;
    size_t out_cap = chunk_elems * (size_t)cols;

    size_t nchunks = (size_t)b->depth + 2;
    gs_chunk *ins = chunks_alloc(b, nchunks, halo, chunk_elems, r.in_size, st);
    gs_chunk *outs = ins ? chunks_alloc(b, nchunks, 0, out_cap, r.out_size, st) : NULL;
    if (!outs) {
        chunks_free(b, ins, nchunks);
        b->destroy(b);
        return st->code ? st->code : GS_ENOMEM;
    }
    pthread_mutex_init(&r.err_mu, NULL);
    q_init(&r.free_in, nchunks);
    q_init(&r.ready, nchunks);
    q_init(&r.free_out, nchunks);
    q_init(&r.written, nchunks);
    for (size_t i = 0; i < nchunks; i++) {
        q_push(&r.free_in, &ins[i]);
        q_push(&r.free_out, &outs[i]);
    }

    pthread_t rt, wt;
    int have_rt = pthread_create(&rt, NULL, reader_main, &r) == 0;
    int have_wt = have_rt && pthread_create(&wt, NULL, writer_main, &r) == 0;
    if (!have_wt) {
        gs_status e = {0};
        gs_fail(&e, GS_EDATA, "cannot start threads");
        run_fail(&r, &e);
    }

    /* Drive the backend: keep up to depth chunks in flight, retire the oldest when full. */
    double compute_busy = 0, last_progress = t_start;
    int inflight = 0;
    uint64_t chunks = 0;
    gs_status bst = {0};
    for (int draining = 0; !r.failed;) {
        gs_chunk *in = NULL;
        if (!draining) {
            in = q_pop(&r.ready);
            if (!in) draining = 1;
        }
        if (inflight == b->depth || (draining && inflight > 0)) {
            gs_chunk *rin, *rout;
            double t0 = gs_now();
            if (b->retire(b, &rin, &rout, &bst)) {
                run_fail(&r, &bst);
                break;
            }
            compute_busy += gs_now() - t0;
            inflight--;
            r.values_out += rout->n;
            q_push(&r.written, rout);
            q_push(&r.free_in, rin);
        }
        if (in) {
            gs_chunk *out = q_pop(&r.free_out);
            if (!out) break;
            double t0 = gs_now();
            if (b->submit(b, in, out, &bst)) {
                run_fail(&r, &bst);
                break;
            }
            compute_busy += gs_now() - t0;
            inflight++;
            chunks++;
        } else if (draining && inflight == 0)
            break;
        if (o->progress && gs_now() - last_progress >= 0.25) {
            last_progress = gs_now();
            o->progress(o->progress_ctx, src->bytes ? src->bytes(src->ctx) : r.elems_in * r.in_size,
                        o->total_bytes, last_progress - t_start);
        }
    }
    q_close(&r.written);
    if (have_wt) pthread_join(wt, NULL);
    if (r.failed) q_close(&r.free_in); /* unblock the reader */
    if (have_rt) pthread_join(rt, NULL);

    if (stats) {
        stats->wall = gs_now() - t_start;
        stats->elems_in = r.elems_in;
        stats->elems_out = r.values_out / (uint64_t)cols;
        stats->chunks = chunks;
        stats->bytes_in = src->bytes ? src->bytes(src->ctx) : r.elems_in * r.in_size;
        stats->bytes_out = w ? gs_writer_bytes(w) : 0;
        stats->nstages = 0;
        stats->stage[stats->nstages++] = (gs_stage_stat){"read+decode", r.read_busy, stats->bytes_in};
        stats->stage[stats->nstages++] = (gs_stage_stat){b->name, compute_busy, r.elems_in * r.in_size};
        b->stats(b, stats);
        stats->stage[stats->nstages++] = (gs_stage_stat){"encode+write", r.write_busy, stats->bytes_out};
        stats->peak_rss = peak_rss();
        stats->algo = cfg.variant ? cfg.variant->name : "convert";
        if (!stats->backend) stats->backend = b->name;
    }
    if (count) *count = r.values_out / (uint64_t)cols;
    chunks_free(b, ins, nchunks);
    chunks_free(b, outs, nchunks);
    b->destroy(b);
    q_free(&r.free_in);
    q_free(&r.ready);
    q_free(&r.free_out);
    q_free(&r.written);
    pthread_mutex_destroy(&r.err_mu);
    if (r.failed) {
        *st = r.err;
        return r.err.code ? r.err.code : GS_EDATA;
    }
    return GS_OK;
}
