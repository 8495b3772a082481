/* engine.c - the chunk engine shared by every backend: the run.
 *
 *   reader thread:  source -> free input chunk -> ready queue      (decode uses the pool; a mapped
 *                   file's chunks go as views of it, page-locked by direct.c's pinner thread)
 *   caller thread:  ready queue -> backend submit ... retire -> write queue
 *   writer thread:  write queue -> gs_writer (encode uses the pool) -> free output chunk
 *
 * The run carries out its plan (plan.h): the backend is made at once where the plan names it (a
 * GPU plan's backend starts CUDA then, beside the reading), or once the first chunk is in for a
 * stream of unknown size. The engine knows the backend through gs_backend alone: it starts it
 * before the first submit (a backend that takes chunks while it starts runs each at once), then
 * keeps up to depth chunks in flight. Chunks get their buffers as first needed (staging.c) and
 * cycle through bounded queues (queue.c), so host memory is (depth + 2) x (input chunk + output
 * chunk) whatever the input size. The first error anywhere closes every queue; each thread then
 * drains and exits. */
#include "engine.h"
#include "../common/pool.h"
#include "../common/trace.h"
#include "../kernels/numtext.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* ---- sources ------------------------------------------------------------------------------------ */
static int reader_read(void *ctx, void *buf, size_t cap, size_t *got, gs_status *st)
{
    return gs_reader_read((gs_reader *)ctx, buf, cap, got, st);
}

static uint64_t reader_bytes(void *ctx) { return gs_reader_bytes((gs_reader *)ctx); }

static int reader_frames(void *ctx, const gs_zframes_req *q, size_t *nframes, size_t *elems, gs_status *st)
{
    return gs_reader_frames((gs_reader *)ctx, q, nframes, elems, st);
}

static int reader_view(void *ctx, size_t cap, int take, const void **p, size_t *got, gs_status *st)
{
    return gs_reader_view((gs_reader *)ctx, cap, take, p, got, st);
}

static void reader_text_parser(void *ctx, const gs_text_parser *p) { gs_reader_text_parser((gs_reader *)ctx, p); }

gs_source gs_source_from_reader(gs_reader *r)
{
    const gs_format f = gs_reader_format(r);
    gs_source s = {reader_read, r, gs_reader_type(r), gs_reader_count(r), reader_bytes, reader_frames,
                   gs_reader_maps(r) ? reader_view : NULL, gs_reader_rows(r), gs_reader_rowtext(r), gs_reader_cols(r),
                   f == GS_FMT_CSV || f == GS_FMT_TEXT, gs_reader_parses_text(r) ? reader_text_parser : NULL};
    return s;
}

/* The run's chunk queues, for what is done to each of them. */
#define RUN_NQUEUES 4
static void run_queues(gs_run *r, gs_queue *q[RUN_NQUEUES])
{
    q[0] = &r->free_in, q[1] = &r->ready, q[2] = &r->free_out, q[3] = &r->written;
}

void gs_run_fail(gs_run *r, const gs_status *st)
{
    pthread_mutex_lock(&r->err_mu);
    if (!atomic_load(&r->failed)) {
        r->err = *st;
        atomic_store(&r->failed, 1);
    }
    pthread_mutex_unlock(&r->err_mu);
    pthread_mutex_lock(&r->mu);
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    gs_queue *q[RUN_NQUEUES];
    run_queues(r, q);
    for (int i = 0; i < RUN_NQUEUES; i++) gs_queue_close(q[i]);
}

/* ---- the reader and the writer ------------------------------------------------------------------ */
/* Fill chunks until the source ends: a chunk is full unless it is the last one, so chunk
 * boundaries depend on the chunk size alone (results must not depend on how reads fall). */
static void *reader_main(void *arg)
{
    gs_run *r = arg;
    gs_status st = {0};
    uint64_t seq = 0;
    int eof = 0;
    while (!eof) {
        gs_chunk *c = gs_queue_pop(&r->free_in);
        if (!c) break;
        gs_direct_back(r, c);
        double t0 = gs_now();
        size_t n = 0;
        const int view = gs_direct_take(r, c, &st); /* a view of the mapped file, or read as below */
        if (view < 0) {
            gs_run_fail(r, &st);
            return NULL;
        }
        if (view == 2) { /* every element went as a view: the format's own check of the end */
            unsigned char end[8];
            size_t got = 0;
            if (r->src->read(r->src->ctx, end, 1, &got, &st) || got) {
                if (!st.code) gs_fail(&st, GS_EDATA, "direct input: elements past the end of the mapped file");
                gs_run_fail(r, &st);
                return NULL;
            }
            eof = 1;
        } else if (view == 1) {
            n = c->n;
            eof = n < r->chunk_elems;
        } else {
            if (gs_stage_in(r, c, &st)) {
                if (st.code) gs_run_fail(r, &st);
                return NULL;
            }
            t0 = gs_now();
            if (gs_stage_frames(r, c, &n, &st)) {
                gs_run_fail(r, &st);
                return NULL;
            }
            if (c->zn && n < r->chunk_elems) eof = 1; /* frames end a chunk short only at the end */
            while (!c->zn && n < r->chunk_elems) {
                size_t got = 0;
                if (r->src->read(r->src->ctx, (char *)c->data + n * r->in_size, r->chunk_elems - n, &got, &st)) {
                    gs_run_fail(r, &st);
                    return NULL;
                }
                if (!got) {
                    eof = 1;
                    break;
                }
                n += got;
            }
        }
        r->read_busy += gs_now() - t0;
        gs_trace("reader: chunk %llu in%s, %.2f ms", (unsigned long long)seq, view == 1 ? " (a view)" : "",
                 (gs_now() - t0) * 1e3);
        if (n == 0) {
            gs_queue_push(&r->free_in, c);
            break;
        }
        c->n = n;
        c->seq = seq++;
        r->elems_in += n;
        gs_queue_push(&r->ready, c);
        gs_stage_out_ahead(r);
    }
    gs_queue_close(&r->ready);
    return NULL;
}

static void *writer_main(void *arg)
{
    gs_run *r = arg;
    gs_status st = {0};
    for (;;) {
        gs_chunk *c = gs_queue_pop(&r->written);
        if (!c) break;
        if (r->arg_map && c->n && !c->zn && gs_rows_args(r, c, &st)) {
            gs_run_fail(r, &st);
            break;
        }
        if (r->text) {
            double t0 = gs_now();
            if (r->keep ? gs_rows_write_keep(r, c, &st) : gs_rows_write(r, c, &st)) {
                gs_run_fail(r, &st);
                break;
            }
            r->write_busy += gs_now() - t0;
            gs_queue_push(&r->free_out, c);
            continue;
        }
        if (r->rows && c->n && !c->zn) gs_rows_positions(r, (uint64_t *)c->data, c->n);
        if (r->w && c->n) {
            double t0 = gs_now();
            gs_trace("writer: %zu %s", c->zn ? c->zn : c->n, c->tlen ? "values as text" : c->zn ? "zstd frames" : "values");
            if (c->tlen ? gs_writer_write_text(r->w, c->buf, c->tlen, c->n, &st)
                : c->zn ? gs_writer_write_frames(r->w, (const unsigned char *)c->buf, c->zt, c->zn, c->n, &st)
                        : gs_writer_write(r->w, c->data, c->n, &st)) {
                gs_run_fail(r, &st);
                break;
            }
            r->write_busy += gs_now() - t0;
        }
        gs_queue_push(&r->free_out, c);
    }
    /* The last zstd frames are compressed and written here, inside the run's wall time and the
     * write stage's busy time, not when the caller commits the output. */
    if (r->w && !atomic_load(&r->failed)) {
        double t0 = gs_now();
        gs_trace("writer: end");
        if (gs_writer_end(r->w, &st)) gs_run_fail(r, &st);
        gs_trace("writer: ended");
        r->write_busy += gs_now() - t0;
    }
    return NULL;
}

/* ---- the backend -------------------------------------------------------------------------------- */
/* The plan's backend for cfg: the CPU's, or a GPU plan's (which begins the GPU's start-up now). */
static int make_one(void *ctx, const gs_backend_cfg *cfg, gs_backend **b, gs_status *st)
{
    gs_run *r = ctx;
    if (r->plan.backend == GS_PLAN_GPU)
        return gs_backend_warm_create(b, r->parts, cfg, r->plan.warm, r->plan.gpu_required, st);
    return r->parts->cpu(b, cfg, st);
}

/* The run's backend: the plan's, or for several columns one of those a column. */
static int make_backend(gs_run *r, gs_status *st)
{
    gs_trace("engine: making the %s backend", r->plan.backend == GS_PLAN_GPU ? "GPU" : "CPU");
    if (r->in_cols > 1) return gs_backend_columns_create(&r->made, r->in_cols, &r->cfg, make_one, r, st);
    return make_one(r, &r->cfg, &r->made, st);
}

/* The backend has started: views for chunks larger than it takes, and its staging to the reader. */
static int publish(gs_run *r, gs_status *st)
{
    gs_backend *b = r->made;
    r->npieces = b->depth;
    if (!(r->pieces = calloc((size_t)r->npieces, sizeof *r->pieces))) return gs_fail(st, GS_ENOMEM, "out of host memory");
    gs_stage_publish(r, b);
    if (r->plan.parse_gpu && b->text_in && r->src->text_parser) { /* the reader's next blocks go to the device */
        r->src->text_parser(r->src->ctx, b->text_in);
        r->text_in = 1;
    }
    gs_trace("engine: backend %s ready", b->name);
    return GS_OK;
}

/* Elements [off, off + n) of chunk `whole` as a view in a free piece slot (one is always free:
 * there are as many slots as chunks in flight). */
static gs_chunk *piece_view(gs_run *r, gs_chunk *whole, size_t off, size_t n, int last)
{
    gs_piece *p = NULL;
    for (int i = 0; i < r->npieces && !p; i++)
        if (!r->pieces[i].whole) p = &r->pieces[i];
    p->view = *whole;
    p->view.data = (char *)whole->data + off * r->in_size;
    p->view.buf = p->view.data;
    p->view.n = n;
    p->view.cap = n;
    p->whole = whole;
    p->last = last;
    return &p->view;
}

/* The oldest chunk in flight is done: its output to the writer, its input back to the reader. */
static void retired(gs_run *r, gs_chunk *rin, gs_chunk *rout)
{
    r->values_out += rout->n;
    r->in_done += rin->n;
    rout->in_end = r->in_done;
    gs_queue_push(&r->written, rout);
    for (int i = 0; i < r->npieces; i++)
        if (rin == &r->pieces[i].view) {
            gs_chunk *whole = r->pieces[i].last ? r->pieces[i].whole : NULL;
            r->pieces[i].whole = NULL;
            if (whole) gs_queue_push(&r->free_in, whole);
            return;
        }
    gs_queue_push(&r->free_in, rin);
}

/* A backend that takes chunks while it starts runs *cur at once; the engine retires it. */
static int run_early(gs_run *r, gs_chunk **cur, gs_status *st)
{
    gs_backend *b = r->made;
    gs_chunk *out = gs_queue_pop(&r->free_out), *rin, *rout;
    if (!out) return -1;
    if (gs_stage_out(r, out, st) || b->submit(b, *cur, out, st) || b->retire(b, &rin, &rout, st)) {
        gs_queue_push(&r->free_out, out);
        gs_queue_push(&r->free_in, *cur);
        *cur = NULL;
        gs_run_fail(r, st);
        return -1;
    }
    gs_trace("chunk %llu ran while the backend started", (unsigned long long)r->chunks);
    r->chunks++;
    *cur = NULL;
    retired(r, rin, rout);
    return 1;
}

/* Until the backend has started: made once the plan knows which (a stream's at its first chunk),
 * chunks it takes meanwhile run at once, then it is started. 1: *cur ran; 0: started; -1: the run
 * failed. */
static int before_start(gs_run *r, gs_chunk **cur, gs_status *st)
{
    int rc = GS_OK;
    if (!r->made) {
        const int stream = r->plan.backend == GS_PLAN_BY_STREAM;
        gs_plan_first_chunk(&r->plan, *cur && (*cur)->n == r->chunk_elems, (uint64_t)r->chunk_elems * r->in_size);
        if (stream && r->plan.backend == GS_PLAN_GPU && r->o.note) { /* the reasons that waited for it */
            const char *why[GS_PLAN_NOTES];
            char msg[GS_PLAN_WHY + 16];
            const int n = gs_plan_notes(&r->plan, 1, why);
            for (int i = 0; i < n; i++) {
                snprintf(msg, sizeof msg, "%s%s", i ? "" : GS_PLAN_BACKEND_NOTE, why[i]);
                r->o.note(r->o.note_ctx, msg);
            }
        }
        if (!atomic_load(&r->failed)) rc = make_backend(r, st);
    }
    gs_backend *b = r->made;
    if (!rc && b && b->start && b->early && *cur && !b->ready(b)) return run_early(r, cur, st);
    if (!rc && atomic_load(&r->failed)) rc = GS_EDATA; /* the reader failed meanwhile: nothing to start */
    else if (!rc && b->start) rc = b->start(b, st);
    if (!rc) rc = publish(r, st);
    if (!rc) return 0;
    if (*cur) gs_queue_push(&r->free_in, *cur);
    *cur = NULL;
    if (st->code) gs_run_fail(r, st);
    return -1;
}

/* ---- the driving loop --------------------------------------------------------------------------- */
/* Whether the first chunk comes before the backend starts: a stream's choice needs it, and a
 * backend that takes chunks while it starts runs it. */
static int chunk_before_start(const gs_run *r) { return !r->made || r->made->early; }

/* Keep up to depth chunks in flight, retire the oldest when full. */
static void drive(gs_run *r, double t_start)
{
    gs_status bst = {0};
    gs_chunk *cur = NULL; /* the input chunk being submitted (in views when larger than the backend's) */
    size_t off = 0;
    int inflight = 0;
    double last_progress = t_start;
    for (int draining = 0; !atomic_load(&r->failed);) {
        if (!cur && !draining && (r->b || chunk_before_start(r))) {
            cur = gs_queue_pop(&r->ready);
            off = 0;
            if (!cur) draining = 1;
        }
        if (!r->b) {
            const int rc = before_start(r, &cur, &bst);
            if (rc < 0) break;
            if (rc > 0) continue;
        }
        gs_backend *b = r->b;
        if (inflight == b->depth || (draining && inflight > 0)) {
            gs_chunk *rin, *rout;
            double t0 = gs_now();
            if (b->retire(b, &rin, &rout, &bst)) {
                gs_run_fail(r, &bst);
                break;
            }
            r->compute_busy += gs_now() - t0;
            gs_trace("chunk %llu retired (waited %.2f ms)", (unsigned long long)(r->chunks - (uint64_t)inflight),
                     (gs_now() - t0) * 1e3);
            inflight--;
            retired(r, rin, rout);
        }
        if (cur) {
            gs_chunk *in = cur;
            gs_chunk *out = gs_queue_pop(&r->free_out);
            if (!out) break;
            const double tob = gs_trace_enabled() ? gs_now() : 0;
            if (gs_stage_out(r, out, &bst)) {
                gs_queue_push(&r->free_out, out);
                gs_run_fail(r, &bst);
                break;
            }
            if (gs_trace_enabled() && gs_now() - tob > 1e-3) gs_trace("output buffer ready after %.1f ms", (gs_now() - tob) * 1e3);
            if (b->chunk_elems && cur->n - off > b->chunk_elems) {
                in = piece_view(r, cur, off, b->chunk_elems, 0);
                off += b->chunk_elems;
            } else if (off) { /* the whole chunk's last view */
                in = piece_view(r, cur, off, cur->n - off, 1);
                cur = NULL;
            } else
                cur = NULL;
            double t0 = gs_now();
            gs_trace("chunk %llu submitted (%zu elements%s)", (unsigned long long)r->chunks, in->n, in->zn ? ", as zstd frames" : "");
            if (b->submit(b, in, out, &bst)) {
                gs_run_fail(r, &bst);
                break;
            }
            r->compute_busy += gs_now() - t0;
            inflight++;
            r->chunks++;
        } else if (draining && inflight == 0)
            break;
        if (r->o.progress && gs_now() - last_progress >= 0.25) {
            last_progress = gs_now();
            r->o.progress(r->o.progress_ctx, r->src->bytes ? r->src->bytes(r->src->ctx) : r->elems_in * r->in_size,
                          r->o.total_bytes, last_progress - t_start);
        }
    }
}

/* ---- setup, stats, teardown --------------------------------------------------------------------- */
/* The plan settled for this source and writer, the types and sizes, the backend's configuration. */
static int run_setup(gs_run *r, const gs_chain *chain, const gs_engine_opts *o, gs_source *src, gs_writer *w,
                     gs_status *st)
{
    memset(r, 0, sizeof *r);
    atomic_init(&r->failed, 0);
    /* A source of known length bounds what every stage sees (no stage writes more rows than it
     * reads): windows keep no more than that (a window longer than the input). */
    r->chain_run = *chain;
    for (int k = 0; src->count >= 0 && k < chain->n; k++) {
        r->chain_run.stage[k].in_known = 1;
        r->chain_run.stage[k].in_max = (uint64_t)src->count + chain->stage[k].halo_len;
    }
    chain = &r->chain_run;
    const gs_job *job = &chain->stage[0];
    r->chain = chain;
    r->src = src;
    r->w = w;
    r->o = *o;
    r->parts = o->parts ? o->parts : &gs_backend_parts_builtin;
    if (chain->n > 1 && gs_chain_check(chain, src->type, st)) return st->code;
    int rc = gs_rows_setup(r, chain, src, st);
    if (rc) return rc;
    r->in_cols = src->cols > 1 ? src->cols : 1;
    if (r->in_cols > 1 && gs_columns_check(chain, st)) return st->code;
    r->types[0] = src->type;
    for (int k = 0; k < chain->n; k++) r->types[k + 1] = gs_job_out_type(&chain->stage[k], r->types[k]);
    r->cols = gs_chain_out_cols(chain) * r->in_cols;
    r->in_size = gs_type_size(src->type) * (size_t)r->in_cols;
    r->out_size = gs_type_size(r->types[chain->n]);
    if (o->plan.made) r->plan = o->plan;
    else { /* the options alone, the codecs on the host */
        gs_plan_in in = {chain, 1, o->backend, GS_CODEC_CPU, o->host_mem, o->dev_alloc, o->chunk_bytes, o->buffers,
                         0, 0, 0, 0, o->ndevices};
        if ((rc = gs_plan_make(&in, NULL, NULL, &r->plan, st))) return rc;
    }
    const int one = r->in_cols == 1; /* several columns: no frames or views (each chunk is split) */
    char sep = 0;
    const int form = gs_chain_text_form(chain, src, w, &sep);
    gs_plan_settle(&r->plan, chain, src->count >= 0 ? src->count * r->in_cols : -1, src->type, /* values */
                   src->parsed, one && w && gs_writer_takes_frames(w) && !r->rows && !r->text && !r->arg_map, form > 0);
    gs_plan_input(&r->plan, one && src->view != NULL);
    gs_plan_text(&r->plan, form > 0);
    gs_plan_parse(&r->plan, src->text_parser != NULL);
    if (r->o.host_mem == GS_HOST_DIRECT) r->o.host_mem = GS_HOST_PINNED; /* what is not read in place is staged */
    r->o.plan = r->plan; /* the backends read their zstd work there */
    r->o.buffers = r->plan.buffers;
    r->o.chunk_bytes = r->plan.chunk_bytes;
    r->chunk_elems = r->plan.chunk_bytes / r->in_size;
    if (r->chunk_elems == 0) r->chunk_elems = 1;
    r->halo = one ? (size_t)gs_job_halo(job) : 0; /* columns: theirs */
    /* Every stage writes at most as many rows as it reads (minmax: rows <= chunk, the halo aside),
     * so a chunk's capacity bounds every stage's output. */
    gs_backend_cfg cfg = {job, NULL, src->type, r->types[chain->n], r->chunk_elems, r->halo,
                          r->chunk_elems * (size_t)r->cols, &r->o, chain->n > 1 ? chain : NULL, NULL, r->types,
                          r->plan.text_gpu ? form : 0, sep, r->plan.parse_gpu};
    r->cfg = cfg;
    pthread_mutex_init(&r->err_mu, NULL);
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    return GS_OK;
}

/* Input and output chunks: descriptors now, buffers as first needed. */
static void ring_init(gs_run *r)
{
    r->nchunks = (size_t)(r->made ? r->made->depth : r->plan.buffers) + 2;
    r->ins = calloc(r->nchunks, sizeof *r->ins);
    r->outs = calloc(r->nchunks, sizeof *r->outs);
    r->in_own = calloc(r->nchunks, 1);
    r->out_own = calloc(r->nchunks, 1);
    r->out_state = calloc(r->nchunks, 1);
    r->out_bytes = r->chunk_elems * (size_t)r->cols * r->out_size;
    /* text formatted by the GPU backend comes back in the output buffers: room for the longest text
     * of each value and its delimiter */
    const size_t tbytes = r->chunk_elems * (size_t)r->cols * (gs_numtext_bound(r->types[r->chain->n]) + 1);
    if (r->plan.text_gpu && tbytes > r->out_bytes) r->out_bytes = tbytes;
    gs_queue *q[RUN_NQUEUES];
    run_queues(r, q);
    int qfail = 0;
    for (int i = 0; i < RUN_NQUEUES; i++) qfail |= gs_queue_init(q[i], r->nchunks);
    if (!r->ins || !r->outs || !r->in_own || !r->out_own || !r->out_state || qfail) {
        gs_status e = {0};
        gs_fail(&e, GS_ENOMEM, "out of host memory for chunk descriptors");
        gs_run_fail(r, &e);
    }
    if (gs_direct_init(r) && !atomic_load(&r->failed)) {
        gs_status e = {0};
        gs_fail(&e, GS_ENOMEM, "out of host memory for chunk descriptors");
        gs_run_fail(r, &e);
    }
    for (size_t i = 0; !atomic_load(&r->failed) && i < r->nchunks; i++) {
        gs_queue_push(&r->free_in, &r->ins[i]);
        gs_queue_push(&r->free_out, &r->outs[i]);
        r->outs[i].cap = r->chunk_elems * (size_t)r->cols;
    }
}

static uint64_t peak_rss(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (uint64_t)ru.ru_maxrss * 1024;
}

static void add_stage(gs_run_stats *s, const char *name, double busy, uint64_t bytes)
{
    if (s->nstages < (int)(sizeof s->stage / sizeof s->stage[0])) s->stage[s->nstages++] = (gs_stage_stat){name, busy, bytes};
}

static void run_stats(const gs_run *r, gs_run_stats *s, double t_start)
{
    s->wall = gs_now() - t_start;
    s->elems_in = r->elems_in;
    s->elems_out = r->values_out / (uint64_t)r->cols;
    s->chunks = r->chunks;
    s->bytes_in = r->src->bytes ? r->src->bytes(r->src->ctx) : r->elems_in * r->in_size;
    s->bytes_out = r->w ? gs_writer_bytes(r->w) : 0;
    s->nstages = 0;
    s->algo = NULL;
    snprintf(s->why, sizeof s->why, "%s", r->plan.why_backend);
    add_stage(s, "read+decode", r->read_busy, s->bytes_in);
    if (r->dir.pin_bytes) { /* the direct input: what page-locking the file's windows cost */
        add_stage(s, GS_STAGE_PIN, r->dir.pin_busy, r->dir.pin_bytes);
        add_stage(s, GS_STAGE_UNPIN, r->dir.unpin_busy, r->dir.pin_bytes);
    }
    if (r->b) {
        add_stage(s, r->b->name, r->compute_busy, r->elems_in * r->in_size);
        r->b->stats(r->b, s);
    }
    add_stage(s, GS_STAGE_WRITE, r->write_busy, s->bytes_out);
    s->peak_rss = peak_rss();
    if (!s->algo) s->algo = "convert";
    if (!s->backend && r->b) s->backend = r->b->name;
}

static void run_free(gs_run *r)
{
    free(r->kpos);
    free(r->pieces);
    gs_queue *q[RUN_NQUEUES];
    run_queues(r, q);
    for (int i = 0; i < RUN_NQUEUES; i++) gs_queue_free(q[i]);
    pthread_mutex_destroy(&r->err_mu);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
}

int gs_engine_run(const gs_job *job, const gs_engine_opts *o, gs_source *src, gs_writer *w, uint64_t *count,
                  gs_run_stats *stats, gs_status *st)
{
    gs_chain one;
    memset(&one, 0, sizeof one);
    one.n = 1;
    one.stage[0] = *job;
    return gs_engine_run_chain(&one, o, src, w, count, stats, st);
}

int gs_engine_run_chain(const gs_chain *chain, const gs_engine_opts *o, gs_source *src, gs_writer *w,
                        uint64_t *count, gs_run_stats *stats, gs_status *st)
{
    gs_run r;
    const double t_start = gs_now();
    gs_trace("engine: start");
    int rc = run_setup(&r, chain, o, src, w, st);
    if (rc) return rc;
    if (stats) stats->cuda_init = stats->gpu_setup = -1;
    gs_pool_start(o->threads);
    /* the backend at once where the plan names it; a CPU backend is ready before reading, and the
     * reader sizes its chunks from it */
    if (r.plan.backend == GS_PLAN_CPU || r.plan.backend == GS_PLAN_GPU) rc = make_backend(&r, st);
    if (rc) {
        pthread_mutex_destroy(&r.err_mu);
        pthread_mutex_destroy(&r.mu);
        pthread_cond_destroy(&r.cv);
        return rc;
    }
    if (r.made && !r.made->start && r.made->chunk_elems && r.made->chunk_elems < r.chunk_elems)
        r.chunk_elems = r.made->chunk_elems;
    ring_init(&r);
    if (r.made && !r.made->start && !atomic_load(&r.failed) && publish(&r, st)) gs_run_fail(&r, st);

    pthread_t rt, wt;
    int have_rt = !atomic_load(&r.failed) && pthread_create(&rt, NULL, reader_main, &r) == 0;
    int have_wt = have_rt && pthread_create(&wt, NULL, writer_main, &r) == 0;
    if (!have_wt && !atomic_load(&r.failed)) {
        gs_status e = {0};
        gs_fail(&e, GS_EDATA, "cannot start threads");
        gs_run_fail(&r, &e);
    }
    drive(&r, t_start);
    gs_trace("engine: last chunk retired");
    /* before the threads are joined: the reader may be in a call that waits for the device */
    if (r.made && atomic_load(&r.failed) && r.made->quiesce) r.made->quiesce(r.made);
    gs_queue_close(&r.written);
    if (have_wt) pthread_join(wt, NULL);
    if (atomic_load(&r.failed)) gs_queue_close(&r.free_in); /* unblock the reader */
    if (have_rt) pthread_join(rt, NULL);
    if (r.text_in) r.src->text_parser(r.src->ctx, NULL); /* before the backend that parsed goes */
    gs_trace("engine: reader and writer joined");
    gs_direct_stop(&r);
    if (r.dir.chunks_direct || r.dir.refused[0])
        gs_trace("direct: %llu chunks read in place, %llu copied", (unsigned long long)r.dir.chunks_direct,
                 (unsigned long long)r.dir.chunks_copied);
    if (r.dir.refused[0] && r.o.note) {
        char msg[400];
        snprintf(msg, sizeof msg, "input copied through staging buffers from chunk %llu on: %s",
                 (unsigned long long)r.dir.chunks_direct, r.dir.refused);
        r.o.note(r.o.note_ctx, msg);
    }

    if (stats) run_stats(&r, stats, t_start);
    if (count) *count = r.values_out / (uint64_t)r.cols;
    if (r.in_cols > 1 && r.made && o->col_counts) gs_backend_columns_counts(r.made, o->col_counts);
    const double t_release = gs_now();
    gs_stage_free_all(&r);
    if (r.made) {
        r.made->destroy(r.made);
        if (stats) stats->release = gs_now() - t_release;
    }
    run_free(&r);
    if (atomic_load(&r.failed)) {
        *st = r.err;
        return r.err.code ? r.err.code : GS_EDATA;
    }
    return GS_OK;
}
