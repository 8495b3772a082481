/* engine.c - the chunk engine shared by every backend.
 *
 *   reader thread:  source -> free input chunk -> ready queue      (decode uses the pool)
 *   caller thread:  ready queue -> backend submit ... retire -> write queue
 *   writer thread:  write queue -> gs_writer (encode uses the pool) -> free output chunk
 *
 * Chunks get their buffers as first needed (by the backend: pinned for the GPU; see "Start-up"
 * below) and cycle through bounded queues, so host memory is (depth + 2) x (input chunk + output
 * chunk) whatever the input size. The first error anywhere closes every queue; each thread then
 * drains and exits. */
#include "pipeline.h"
#include "../common/pool.h"
#include "../common/trace.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>


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
    /* An exclusive float sum starts from the empty sum, +0.0 (kernels.h); x + 0.0 turns -0.0 into
     * +0.0 and leaves every other value, so a carry handed over (MPI, the warm start) agrees. */
    if (j->scan.op == GS_SCAN_SUM && j->scan.exclusive) {
        if (j->scan.out_type == GS_F32) carry->f32 += 0.0f;
        else if (j->scan.out_type == GS_F64) carry->f64 += 0.0;
    }
}

int gs_job_resolve(const gs_job *j, gs_where where, int threads, const gs_variant **v, gs_status *st)
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
        var = gs_variant_default_for(j->op, where, threads > 0 ? threads : gs_ncores());
        if (!var) return gs_fail(st, GS_EDATA, "no %s variant compiled in", where == GS_GPU ? "GPU" : "CPU");
    }
    int rc = j->op == GS_OP_SCAN      ? gs_variant_check_scan(var, &j->scan, st)
             : j->op == GS_OP_COMPACT ? gs_variant_check_compact(var, &j->compact, st)
                                      : gs_variant_check_minmax(var, &j->minmax, st);
    if (rc) return rc;
    *v = var;
    return GS_OK;
}

gs_type gs_chain_out_type(const gs_chain *c, gs_type in)
{
    for (int k = 0; k < c->n; k++) in = gs_job_out_type(&c->stage[k], in);
    return in;
}

int gs_chain_out_cols(const gs_chain *c) { return gs_job_out_cols(&c->stage[c->n - 1]); }

int64_t gs_chain_out_rows(const gs_chain *c, int64_t n)
{
    for (int k = 0; k < c->n; k++) n = gs_job_out_rows(&c->stage[k], n);
    return n;
}

/* "stage K (VERB): " ahead of a message already in st. */
static int stage_fail(gs_status *st, const gs_chain *c, int k)
{
    char msg[sizeof st->msg];
    const int code = st->code ? st->code : GS_EUSAGE;
    snprintf(msg, sizeof msg, "%s", st->msg);
    st->code = GS_OK; /* gs_fail keeps a first failure: this one rewrites it */
    return gs_fail(st, code, "stage %d (%s): %.*s", k + 1, gs_op_name(c->stage[k].op), (int)(sizeof msg - 40), msg);
}

/* The variant of every stage for one backend (v[k]); errors name the stage of a chain. */
static int chain_resolve(const gs_chain *c, gs_where where, int threads, const gs_variant **v, gs_status *st)
{
    for (int k = 0; k < c->n; k++)
        if (gs_job_resolve(&c->stage[k], where, threads, &v[k], st)) return c->n > 1 ? stage_fail(st, c, k) : st->code;
    return GS_OK;
}

/* The variant that the first stage naming an --algo names (it says where the chain runs). */
static const gs_variant *chain_named(const gs_chain *c)
{
    for (int k = 0; k < c->n; k++)
        if (c->stage[k].algo) return gs_variant_find(c->stage[k].op, c->stage[k].algo);
    return NULL;
}

int gs_chain_check(const gs_chain *c, gs_type in, gs_status *st)
{
    if (c->n < 1 || c->n > GS_CHAIN_MAX)
        return gs_fail(st, GS_EUSAGE, "a chain has 1 to %d stages, not %d", GS_CHAIN_MAX, c->n);
    for (int k = 0; k < c->n; k++) {
        const gs_job *j = &c->stage[k];
        const int last = k == c->n - 1;
        if (j->op != GS_OP_SCAN && j->op != GS_OP_COMPACT && j->op != GS_OP_MINMAX)
            gs_fail(st, GS_EUSAGE, "not a chain stage (chains take scan, compact and minmax)");
        else if (!last && j->count_only)
            gs_fail(st, GS_EUSAGE, "--count ends a chain: make this the last stage, or drop --count");
        else if (!last && j->op == GS_OP_MINMAX && j->minmax.only == GS_MM_BOTH)
            gs_fail(st, GS_EUSAGE, "minmax writes (min, max) pairs, which no stage reads: add --only min or "
                                   "--only max to pass one column on");
        else {
            const gs_variant *v;
            const gs_variant *named = j->algo ? gs_variant_find(j->op, j->algo) : NULL;
            if (!gs_job_resolve(j, named ? named->where : GS_CPU, 0, &v, st)) {
                in = gs_job_out_type(j, in);
                continue;
            }
        }
        return stage_fail(st, c, k);
    }
    (void)in;
    return GS_OK;
}


/* ---- sources ------------------------------------------------------------------------------ */
static int reader_read(void *ctx, void *buf, size_t cap, size_t *got, gs_status *st)
{
    return gs_reader_read((gs_reader *)ctx, buf, cap, got, st);
}

static uint64_t reader_bytes(void *ctx) { return gs_reader_bytes((gs_reader *)ctx); }

static int reader_frames(void *ctx, const gs_zframes_req *q, size_t *nframes, size_t *elems, gs_status *st)
{
    return gs_reader_frames((gs_reader *)ctx, q, nframes, elems, st);
}

gs_source gs_source_from_reader(gs_reader *r)
{
    gs_source s = {reader_read, r, gs_reader_type(r), gs_reader_count(r), reader_bytes, reader_frames};
    return s;
}

/* ---- the run ------------------------------------------------------------------------------ */

/* Start-up. The reader starts at once. A run whose backend is known before reading (--backend,
 * --algo, or an input of known size against GS_AUTO_GPU_MIN_BYTES[_SCAN]) starts CUDA on its own thread
 * right away (gs_gpu_init_start); a stream of unknown size under auto decides when its first chunk
 * is in (filled: GPU; ended: CPU, CUDA never touched). Until the backend exists, the reader fills
 * engine-owned pageable buffers (in the pinned and pageable modes; registered and mapped need the
 * backend's memory, so there the reader waits). With the GPU backend, each engine-owned input buffer
 * is page-locked as it comes back (in place where the backend can register memory: --host-mem pinned;
 * else replaced by the backend's), and output buffers are pinned as first needed: the pinning is
 * spread over the run instead of paid before the first copy. */
typedef enum pick { PICK_CPU, PICK_GPU, PICK_LATER } pick;

/* A chunk read before the backend's chunk size was known may be larger than it (a GPU short of
 * device memory shrinks its chunk): it is submitted as views of at most b->chunk_elems elements. */
typedef struct piece {
    gs_chunk view;
    gs_chunk *whole; /* NULL: slot free */
    int last;        /* the whole chunk's last view: it goes back to the reader when this retires */
} piece;

/* Elements [off, off + n) of chunk `whole` as a view in a free piece slot (one is always free:
 * there are as many slots as chunks in flight). */
static gs_chunk *piece_view(piece *pieces, int npieces, gs_chunk *whole, size_t off, size_t n, size_t in_size,
                            int last)
{
    piece *p = NULL;
    for (int i = 0; i < npieces && !p; i++)
        if (!pieces[i].whole) p = &pieces[i];
    p->view = *whole;
    p->view.data = (char *)whole->data + off * in_size;
    p->view.buf = p->view.data;
    p->view.n = n;
    p->view.cap = n;
    p->whole = whole;
    p->last = last;
    return &p->view;
}

typedef struct run {
    const gs_job *job;
    gs_source *src;
    gs_writer *w;
    gs_backend *b;            /* set once, under mu, when the backend exists */
    int b_pin;                /* the backend pins its staging: engine-owned input buffers get replaced */
    int early_ok;             /* the reader may fill engine-owned buffers before the backend exists */
    pthread_mutex_t mu;
    pthread_cond_t cv;        /* b set, or the run failed */
    size_t chunk_elems, in_size, out_size, halo, nchunks;
    gs_chunk *ins, *outs;
    unsigned char *in_own;    /* per input chunk: OWN_BACKEND, OWN_ENGINE or OWN_REGISTERED */
    unsigned char *out_own;   /* the same per output chunk */
    unsigned char *out_state; /* per output chunk, under mu: 0 no buffer, 1 being allocated, 2 ready */
    size_t out_bytes;         /* an output buffer's size (under mu: grows where the backend returns
                                 zstd frames, gs_backend.zenc_bytes) */
    queue free_in, ready, free_out, written;
    pthread_mutex_t err_mu;
    gs_status err; /* the first failure */
    atomic_int failed; /* read by the driving loop without the lock */
    double read_busy, write_busy;
    uint64_t elems_in, values_out;
} run;

static void run_fail(run *r, const gs_status *st)
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
    q_close(&r->free_in);
    q_close(&r->ready);
    q_close(&r->free_out);
    q_close(&r->written);
}

static void run_set_backend(run *r, gs_backend *b, int pin)
{
    pthread_mutex_lock(&r->mu);
    r->b = b;
    r->b_pin = pin;
    if (b->zenc_tab_max && b->zenc_bytes > r->out_bytes) r->out_bytes = b->zenc_bytes;
    /* a reader that waited for the backend reads the chunk it takes */
    if (!r->early_ok && b->chunk_elems && b->chunk_elems < r->chunk_elems) r->chunk_elems = b->chunk_elems;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

/* Who allocated a chunk's buffer: the backend (host_alloc), the engine (posix_memalign), or the
 * engine with the backend's host_register on it. */
enum { OWN_BACKEND = 0, OWN_ENGINE = 1, OWN_REGISTERED = 2 };

#define GS_STAGE_HUGE ((size_t)2 << 20) /* buffers from this size: 2 MiB-aligned, huge pages advised */

/* Pages [part] of a fresh buffer written (faulted in) on the pool. */
typedef struct fault_job {
    char *p;
    size_t n;
} fault_job;

static void fault_part(void *ctx, size_t part, size_t nparts)
{
    const fault_job *j = ctx;
    size_t b, e;
    gs_split(j->n / 4096, nparts, part, &b, &e);
    for (size_t i = b; i < e; i++) j->p[i * 4096] = 0;
}

/* A staging buffer for backend b: engine memory page-locked in place where b can register it
 * (cheaper than a fresh pinned allocation), else b's own; before any backend exists (b NULL),
 * engine memory, page-locked later if need be. */
static void *stage_alloc(gs_backend *b, size_t bytes, unsigned char *own, gs_status *st)
{
    void *p = NULL;
    if (b && !b->host_register) {
        *own = OWN_BACKEND;
        return b->host_alloc(b, bytes, st);
    }
    const size_t n = bytes ? bytes : 4096, align = n >= GS_STAGE_HUGE ? GS_STAGE_HUGE : 4096;
    if (posix_memalign(&p, align, n)) {
        gs_fail(st, GS_ENOMEM, "out of host memory allocating a %zu-byte chunk (use a smaller --chunk)", bytes);
        return NULL;
    }
    if (align == GS_STAGE_HUGE) (void)madvise(p, n, MADV_HUGEPAGE); /* advice: fewer faults where THP allows */
    *own = OWN_ENGINE;
    if (!b) return p;
    /* Page-locking faults in every page first, on this thread: 27 ms for 64 MiB on an H100 host,
     * against 4 ms for the pages written on 16 threads and 3 ms for the lock after
     * (tests/gpu/pincost.cu, docs/PERFORMANCE.md "Staging buffers"); the pool writes them. */
    const double t0 = gs_now();
    fault_job fj = {p, n};
    const size_t pages = n / 4096, parts = pages < 64 ? 1 : (size_t)gs_pool_threads();
    gs_parallel_for(parts, fault_part, &fj);
    const double t1 = gs_now();
    if (b->host_register(b, p, n, st)) {
        free(p);
        return NULL;
    }
    gs_trace("staging buffer of %zu B: pages written %.1f ms, page-locked %.1f ms", n, (t1 - t0) * 1e3,
             (gs_now() - t1) * 1e3);
    *own = OWN_REGISTERED;
    return p;
}

static void stage_free(gs_backend *b, void *p, unsigned char own)
{
    if (!p) return;
    if (own == OWN_BACKEND) {
        b->host_free(b, p);
        return;
    }
    if (own == OWN_REGISTERED) {
        if (gs_gpu_abandoned()) return; /* page-locked for a device no longer called: left to the process's end */
        b->host_unregister(b, p);
    }
    free(p);
}

/* Give input chunk c a buffer: the backend's once it exists (replacing an engine-owned one when
 * the backend pins its staging), else an engine-owned one where early reading is allowed, else wait. */
static int in_buffer(run *r, gs_chunk *c, gs_status *st)
{
    const size_t i = (size_t)(c - r->ins);
    size_t bytes;
    gs_backend *b;
    int pin;
    pthread_mutex_lock(&r->mu);
    while (!r->b && !r->early_ok && !atomic_load(&r->failed)) pthread_cond_wait(&r->cv, &r->mu);
    b = r->b;
    pin = r->b_pin;
    /* head room for the halo: what the backend asks for, at most a chunk before it exists (a
     * backend that needs more, the mapped GPU one, never lets the reader start early) */
    size_t head = r->halo;
    if (b ? b->max_head && b->max_head < head : head > r->chunk_elems) head = b ? b->max_head : r->chunk_elems;
    int over = gs_add_size(head, r->chunk_elems, &bytes) || gs_mul_size(bytes, r->in_size, &bytes);
    pthread_mutex_unlock(&r->mu);
    if (over)
        return gs_fail(st, GS_ENOMEM, "out of host memory for chunks of %zu + %zu elements", head, r->chunk_elems);
    if (atomic_load(&r->failed)) return GS_EDATA;
    if (c->buf && !(r->in_own[i] == OWN_ENGINE && b && pin)) return GS_OK;
    if (b && gs_gpu_abandoned()) /* no CUDA call that could wait on a hung device */
        return gs_fail(st, GS_EDATA, "the GPU zstd decoder timed out; the GPU is no longer used; use --codec cpu");
    if (c->buf && b->host_register && (char *)c->data - (char *)c->buf == (ptrdiff_t)(head * r->in_size) &&
        c->cap >= r->chunk_elems) {
        /* read before the backend existed: page-locked where it lies (same head room, same size) */
        const double t0 = gs_now();
        if (b->host_register(b, c->buf, (head + c->cap) * r->in_size, st)) return st->code ? st->code : GS_EDATA;
        gs_trace("input buffer page-locked where it lies: %.1f ms", (gs_now() - t0) * 1e3);
        r->in_own[i] = OWN_REGISTERED;
        return GS_OK;
    }
    if (c->buf) free(c->buf);
    c->buf = stage_alloc(b, bytes, &r->in_own[i], st);
    if (!c->buf) return st->code ? st->code : GS_ENOMEM;
    c->data = (char *)c->buf + head * r->in_size;
    c->cap = r->chunk_elems;
    return GS_OK;
}

/* Give output chunk c its buffer (the backend's), unless the reader is doing so or has done it;
 * where the backend returns zstd frames, a table and room for them (out_bytes, raised for them
 * when the backend was set: no output buffer exists before then on that path). */
static int out_buffer(run *r, gs_chunk *c, gs_status *st)
{
    const size_t i = (size_t)(c - r->outs);
    void *p;
    pthread_mutex_lock(&r->mu);
    while (r->out_state[i] == 1) pthread_cond_wait(&r->cv, &r->mu);
    gs_backend *b = r->b;
    const size_t bytes = r->out_bytes;
    c->zn = 0;
    c->zcap = 0;
    if (r->out_state[i] == 2) {
        const int pin = r->b_pin;
        pthread_mutex_unlock(&r->mu);
        /* filled on the CPU while CUDA started: page-locked where it lies once the backend pins */
        if (b && pin && r->out_own[i] == OWN_ENGINE && b->host_register) {
            if (b->host_register(b, c->buf, bytes ? bytes : 4096, st)) return st->code ? st->code : GS_EDATA;
            r->out_own[i] = OWN_REGISTERED;
        }
    } else {
        r->out_state[i] = 1;
        pthread_mutex_unlock(&r->mu);
        p = stage_alloc(b, bytes, &r->out_own[i], st); /* no backend yet: the CPU works while CUDA starts */
        pthread_mutex_lock(&r->mu);
        c->buf = c->data = p;
        r->out_state[i] = p ? 2 : 0;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
        if (!p) return st->code ? st->code : GS_ENOMEM;
    }
    if (b && b->zenc_tab_max) {
        if (!c->zt && !(c->zt = malloc(b->zenc_tab_max * sizeof *c->zt)))
            return gs_fail(st, GS_ENOMEM, "out of host memory for a frame table");
        c->zcap = bytes;
    }
    return GS_OK;
}

/* The reader, after each chunk it hands on, allocates one output buffer the driving thread has
 * not needed yet: pinning costs ~0.5 ms/MiB, and here it overlaps the transfers instead of
 * holding up a submit. A failure is left for the driving thread to meet and report. */
static void out_prealloc(run *r)
{
    size_t i = 0;
    void *p;
    pthread_mutex_lock(&r->mu);
    if (r->b)
        while (i < r->nchunks && r->out_state[i]) i++;
    if (!r->b || i == r->nchunks) {
        pthread_mutex_unlock(&r->mu);
        return;
    }
    r->out_state[i] = 1;
    pthread_mutex_unlock(&r->mu);
    gs_status ignore = {0};
    p = gs_gpu_abandoned() ? NULL : stage_alloc(r->b, r->out_bytes, &r->out_own[i], &ignore);
    pthread_mutex_lock(&r->mu);
    r->outs[i].buf = r->outs[i].data = p;
    r->out_state[i] = p ? 2 : 0;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

/* Chunk c as compressed frames, where the backend decodes them and the source has them now
 * (gs_reader_frames): its buffer is the backend's pinned one, and the chunk is the reader's whole
 * chunk (no views). *n = elements (0: read it decoded). */
static int frames_read(run *r, gs_chunk *c, size_t *n, gs_status *st)
{
    const size_t i = (size_t)(c - r->ins);
    *n = 0;
    c->zn = 0;
    pthread_mutex_lock(&r->mu);
    gs_backend *b = r->b;
    pthread_mutex_unlock(&r->mu);
    if (!b || !b->zalign || !r->src->frames || r->in_own[i] == OWN_ENGINE || c->cap < r->chunk_elems ||
        (b->chunk_elems && b->chunk_elems < r->chunk_elems))
        return GS_OK;
    if (!c->zt && !(c->zt = malloc(b->ztab_max * sizeof *c->zt)))
        return gs_fail(st, GS_ENOMEM, "out of host memory for a frame table");
    size_t buf_bytes = (size_t)((char *)c->data - (char *)c->buf) + c->cap * r->in_size;
    gs_zframes_req q = {(unsigned char *)c->buf, buf_bytes < b->zbuf_max ? buf_bytes : b->zbuf_max, b->zalign,
                        r->chunk_elems * r->in_size, b->zframe_max, b->zunit, c->zt, b->ztab_max};
    size_t nf = 0;
    int rc = r->src->frames(r->src->ctx, &q, &nf, n, st);
    if (rc || !nf) return rc;
    c->zn = nf;
    c->zbytes = (size_t)(c->zt[nf - 1].off + c->zt[nf - 1].csize);
    return GS_OK;
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
        if (in_buffer(r, c, &st)) {
            if (st.code) run_fail(r, &st);
            return NULL;
        }
        double t0 = gs_now();
        size_t n = 0;
        if (frames_read(r, c, &n, &st)) {
            run_fail(r, &st);
            return NULL;
        }
        if (c->zn && n < r->chunk_elems) eof = 1; /* frames end a chunk short only at the end */
        while (!c->zn && n < r->chunk_elems) {
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
        gs_trace("reader: chunk %llu in, %.2f ms", (unsigned long long)seq, (gs_now() - t0) * 1e3);
        if (n == 0) {
            q_push(&r->free_in, c);
            break;
        }
        c->n = n;
        c->seq = seq++;
        r->elems_in += n;
        q_push(&r->ready, c);
        out_prealloc(r);
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
            gs_trace("writer: %zu %s", c->zn ? c->zn : c->n, c->zn ? "zstd frames" : "values");
            if (c->zn ? gs_writer_write_frames(r->w, (const unsigned char *)c->buf, c->zt, c->zn, c->n, &st)
                      : gs_writer_write(r->w, c->data, c->n, &st)) {
                run_fail(r, &st);
                break;
            }
            r->write_busy += gs_now() - t0;
        }
        q_push(&r->free_out, c);
    }
    /* The last zstd frames are compressed and written here, inside the run's wall time and the
     * write stage's busy time, not when the caller commits the output. */
    if (r->w && !atomic_load(&r->failed)) {
        double t0 = gs_now();
        gs_trace("writer: end");
        if (gs_writer_end(r->w, &st)) run_fail(r, &st);
        gs_trace("writer: ended");
        r->write_busy += gs_now() - t0;
    }
    return NULL;
}

static uint64_t peak_rss(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (uint64_t)ru.ru_maxrss * 1024;
}

static void chunks_free(run *r)
{
    for (size_t i = 0; r->ins && i < r->nchunks; i++) {
        stage_free(r->b, r->ins[i].buf, r->in_own[i]);
        free(r->ins[i].zt);
    }
    for (size_t i = 0; r->outs && i < r->nchunks; i++) {
        stage_free(r->b, r->outs[i].buf, r->out_own[i]);
        free(r->outs[i].zt);
    }
    free(r->ins);
    free(r->outs);
    free(r->in_own);
    free(r->out_own);
    free(r->out_state);
}

static void human_size(char *buf, size_t len, uint64_t b)
{
    if (b >= (1ull << 30) && b % (1ull << 30) == 0) snprintf(buf, len, "%llu GiB", (unsigned long long)(b >> 30));
    else if (b >= (1ull << 20) && b % (1ull << 20) == 0) snprintf(buf, len, "%llu MiB", (unsigned long long)(b >> 20));
    else snprintf(buf, len, "%llu B", (unsigned long long)b);
}

/* Whether chunks may run on the CPU while CUDA starts: only where every backend gives the same
 * bytes for any split of the input (integer sums, min and max scans, compaction, minmax), for a single verb
 * whose variant is not named (--algo runs that variant on every chunk), in the memory modes that
 * let the reader start before the backend exists. */
static int warm_start(const gs_chain *chain, const gs_engine_opts *o, int early_ok)
{
    const gs_job *j = &chain->stage[0];
    if (chain->n != 1 || j->algo || !early_ok || o->backend == GS_BACKEND_CPU) return 0;
    if (j->op == GS_OP_COMPACT || j->op == GS_OP_MINMAX) return 1;
    return j->op == GS_OP_SCAN && (j->scan.op != GS_SCAN_SUM || !gs_type_is_float(j->scan.out_type));
}

/* What can be decided before reading: the backend and why. */
static pick pick_early(const gs_chain *chain, const gs_engine_opts *o, const gs_source *src, size_t in_size,
                       int early_ok, char *why, size_t len)
{
    const gs_job *job = &chain->stage[0];
    const gs_variant *named = chain_named(chain);
    const uint64_t min_gpu = GS_AUTO_GPU_MIN_BYTES;
    char cross[48];
    human_size(cross, sizeof cross, min_gpu);
    if (job->op == GS_OP_NONE) { /* convert and gen compute nothing: no GPU round trip */
        snprintf(why, len, "nothing to compute; CUDA not initialised");
        return PICK_CPU;
    }
    if (o->backend == GS_BACKEND_CPU) {
        snprintf(why, len, "--backend cpu; CUDA not initialised");
        return PICK_CPU;
    }
    if (o->backend == GS_BACKEND_GPU) {
        snprintf(why, len, "--backend gpu");
        return PICK_GPU;
    }
    if (named) {
        snprintf(why, len, "--algo %s runs on the %s%s", named->name, named->where == GS_GPU ? "GPU" : "CPU",
                 named->where == GS_GPU ? "" : "; CUDA not initialised");
        return named->where == GS_GPU ? PICK_GPU : PICK_CPU;
    }
    if (src->count >= 0) {
        uint64_t bytes = (uint64_t)src->count * in_size;
        int small = bytes < min_gpu;
        snprintf(why, len, "auto: input %llu B %s crossover %s%s", (unsigned long long)bytes, small ? "<" : ">=", cross,
                 small ? "; CUDA not initialised" : "");
        return small ? PICK_CPU : PICK_GPU;
    }
    if (!early_ok) {
        snprintf(why, len, "auto: input of unknown size (%s needs the backend before reading)",
                 o->host_mem == GS_HOST_PINNED || o->host_mem == GS_HOST_PAGEABLE ? "zstd on the GPU backend"
                                                                                  : "the --host-mem mode");
        return PICK_GPU;
    }
    return PICK_LATER;
}

/* v[k]: each stage's variant (cfg->variants points there). */
static int cpu_backend(const gs_chain *chain, gs_backend_cfg *cfg, const gs_variant **v, gs_backend **b,
                       gs_status *st)
{
    int rc = chain_resolve(chain, GS_CPU, cfg->opts->threads, v, st);
    if (rc) return rc;
    cfg->variant = v[0];
    return gs_backend_cpu_create(b, cfg, st);
}

/* The GPU backend once CUDA is up; auto falls back to the CPU (with a note) where it cannot be had,
 * --backend gpu and a GPU --algo fail with the true reason. *gpu: which one it got. */
static int gpu_backend(const gs_chain *chain, const gs_engine_opts *o, gs_backend_cfg *cfg, const gs_variant **v,
                       gs_backend **b, int *gpu, gs_run_stats *stats, char *why, size_t wlen, gs_status *st)
{
    const gs_variant *named = chain_named(chain);
    const int required = o->backend == GS_BACKEND_GPU || named;
    char reason[256];
    double secs = 0;
    int rc;
    *gpu = 0;
    /* a named variant that cannot run on the GPU is a usage error before any wait for CUDA */
    if (named && (rc = chain_resolve(chain, GS_GPU, o->threads, v, st))) return rc;
    if (!gs_gpu_init_wait(o->device, reason, sizeof reason, &secs)) {
        if (stats) stats->cuda_init = secs;
        if (required) return gs_fail(st, GS_EDATA, "no usable GPU: %s", reason);
    } else {
        if (stats) stats->cuda_init = secs;
        if ((rc = chain_resolve(chain, GS_GPU, o->threads, v, st))) return rc;
        cfg->variant = v[0];
        gs_status gst = {0};
        const double t0 = gs_now();
        rc = gs_backend_gpu_create(b, cfg, &gst);
        if (stats) stats->gpu_setup = gs_now() - t0;
        if (rc == GS_OK) {
            *gpu = 1;
            return GS_OK;
        }
        if (required) {
            *st = gst;
            return rc;
        }
        snprintf(reason, sizeof reason, "%.250s", gst.msg);
    }
    /* auto: no GPU after all */
    size_t at = strlen(why);
    snprintf(why + at, wlen - at, "; no usable GPU: %s", reason);
    if (o->note) {
        char msg[320];
        snprintf(msg, sizeof msg, "no usable GPU (%s): using the CPU backend", reason);
        o->note(o->note_ctx, msg);
    }
    return cpu_backend(chain, cfg, v, b, st);
}

/* The oldest chunk in flight is done: its output to the writer, its input back to the reader. */
static void retired(run *r, gs_chunk *rin, gs_chunk *rout, piece *pieces, int npieces)
{
    r->values_out += rout->n;
    q_push(&r->written, rout);
    for (int i = 0; i < npieces; i++)
        if (rin == &pieces[i].view) {
            gs_chunk *whole = pieces[i].last ? pieces[i].whole : NULL;
            pieces[i].whole = NULL;
            if (whole) q_push(&r->free_in, whole);
            return;
        }
    q_push(&r->free_in, rin);
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
    const gs_job *job = &chain->stage[0];
    run r;
    memset(&r, 0, sizeof r);
    /* The backend hands over zstd frames only where the writer takes them. Where the GPU backend
     * decodes or encodes the frames, every chunk goes there (none runs on the CPU while CUDA
     * starts: their output would reach the GPU codec by way of the host; the headline compaction
     * took 1.37 s so, 1.07 s waiting, docs/PERFORMANCE.md) and more chunks are in flight. */
    gs_engine_opts oz = *o;
    if (oz.zencode && !(w && gs_writer_takes_frames(w))) oz.zencode = 0;
    const int zgpu = (oz.zdecode || oz.zencode) && oz.backend != GS_BACKEND_CPU;
    if (oz.buffers <= 0) oz.buffers = zgpu ? GS_ZGPU_BUFFERS : 2;
    o = &oz;
    atomic_init(&r.failed, 0);
    r.job = job;
    r.src = src;
    r.w = w;
    double t_start = gs_now();
    gs_trace("engine: start");
    gs_type in_type = src->type;
    if (chain->n > 1 && gs_chain_check(chain, in_type, st)) return st->code;
    gs_type types[GS_CHAIN_MAX + 1];
    types[0] = in_type;
    for (int k = 0; k < chain->n; k++) types[k + 1] = gs_job_out_type(&chain->stage[k], types[k]);
    gs_type out_type = types[chain->n];
    int cols = gs_chain_out_cols(chain);
    r.in_size = gs_type_size(in_type);
    r.out_size = gs_type_size(out_type);
    size_t chunk_bytes = o->chunk_bytes           ? o->chunk_bytes
                         : o->zdecode || o->zencode ? GS_ZDEC_CHUNK_DEFAULT
                                                    : GS_CHUNK_DEFAULT;
    size_t chunk_elems = chunk_bytes / r.in_size;
    if (chunk_elems == 0) chunk_elems = 1;
    r.halo = job->op == GS_OP_MINMAX ? (size_t)(job->minmax.window - 1) : 0;
    r.early_ok = (o->host_mem == GS_HOST_PINNED || o->host_mem == GS_HOST_PAGEABLE) && !zgpu;

    char why[512];
    if (stats) stats->cuda_init = stats->gpu_setup = -1;
    pick pk = pick_early(chain, o, src, r.in_size, r.early_ok, why, sizeof why);
    if (pk == PICK_GPU) gs_gpu_init_start(o->device);

    /* Every stage writes at most as many rows as it reads (minmax: rows <= chunk, the halo aside),
     * so a chunk's capacity bounds every stage's output. */
    const gs_variant *vars[GS_CHAIN_MAX] = {NULL};
    gs_backend_cfg cfg = {job, NULL, in_type, out_type, chunk_elems, r.halo, chunk_elems * (size_t)cols, o,
                          chain->n > 1 ? chain : NULL, vars, types};
    gs_backend *b = NULL;
    int b_gpu = 0;
    gs_pool_start(o->threads);
    if (pk == PICK_CPU) {
        int rc = cpu_backend(chain, &cfg, vars, &b, st);
        if (rc) return rc;
        /* the reader sizes its chunks from the backend when it exists before reading */
        if (b->chunk_elems && b->chunk_elems < chunk_elems) chunk_elems = b->chunk_elems;
        r.b = b;
    }
    r.chunk_elems = chunk_elems;
    size_t out_cap = chunk_elems * (size_t)cols;

    /* input and output chunks: descriptors now, buffers as first needed */
    r.nchunks = (size_t)(b ? b->depth : o->buffers > 0 ? o->buffers : 2) + 2;
    r.ins = calloc(r.nchunks, sizeof *r.ins);
    r.outs = calloc(r.nchunks, sizeof *r.outs);
    r.in_own = calloc(r.nchunks, 1);
    r.out_own = calloc(r.nchunks, 1);
    r.out_state = calloc(r.nchunks, 1);
    r.out_bytes = out_cap * r.out_size;
    if (b && b->zenc_tab_max && b->zenc_bytes > r.out_bytes) r.out_bytes = b->zenc_bytes;
    piece *pieces = NULL;
    int npieces = 0;
    pthread_mutex_init(&r.err_mu, NULL);
    pthread_mutex_init(&r.mu, NULL);
    pthread_cond_init(&r.cv, NULL);
    int qfail = q_init(&r.free_in, r.nchunks) | q_init(&r.ready, r.nchunks) | q_init(&r.free_out, r.nchunks) |
                q_init(&r.written, r.nchunks);
    if (!r.ins || !r.outs || !r.in_own || !r.out_own || !r.out_state || qfail) {
        gs_status e = {0};
        gs_fail(&e, GS_ENOMEM, "out of host memory for chunk descriptors");
        run_fail(&r, &e);
    }
    for (size_t i = 0; !atomic_load(&r.failed) && i < r.nchunks; i++) {
        q_push(&r.free_in, &r.ins[i]);
        q_push(&r.free_out, &r.outs[i]);
        r.outs[i].cap = out_cap;
    }

    pthread_t rt, wt;
    int have_rt = !atomic_load(&r.failed) && pthread_create(&rt, NULL, reader_main, &r) == 0;
    int have_wt = have_rt && pthread_create(&wt, NULL, writer_main, &r) == 0;
    if (!have_wt && !atomic_load(&r.failed)) {
        gs_status e = {0};
        gs_fail(&e, GS_EDATA, "cannot start threads");
        run_fail(&r, &e);
    }

    /* While CUDA starts, chunks run on the CPU where that gives the same bytes (warm_start), and
     * the GPU backend continues from where the CPU stopped (resumed: the scan carry, the index base). */
    const int warm = warm_start(chain, o, r.early_ok);
    gs_backend *wb = NULL;
    const gs_variant *wvars[GS_CHAIN_MAX] = {NULL};
    gs_backend_cfg wcfg = cfg;
    wcfg.variants = wvars;
    gs_job resumed = *job;
    uint64_t warm_chunks = 0, warm_elems = 0;
    void *warm_halo = NULL; /* minmax: the CPU's halo, until the next backend has read it */
    double warm_busy = 0;

    /* Drive the backend: keep up to depth chunks in flight, retire the oldest when full. */
    double compute_busy = 0, last_progress = t_start;
    int inflight = 0;
    uint64_t chunks = 0;
    gs_status bst = {0};
    gs_chunk *cur = NULL; /* the input chunk being submitted (in views when larger than the backend's) */
    size_t off = 0;
    for (int draining = 0; !atomic_load(&r.failed);) {
        /* the backend: at once when picked before reading (CUDA's start-up overlaps the reader),
         * else once the first chunk is in or the input has ended */
        if (!cur && !draining && (b || pk == PICK_LATER || (pk == PICK_GPU && warm))) {
            cur = q_pop(&r.ready);
            off = 0;
            if (!cur) draining = 1;
        }
        if (!b) {
            int rc = GS_OK;
            if (pk == PICK_LATER) {
                const int filled = cur && cur->n == chunk_elems;
                char cb[32];
                human_size(cb, sizeof cb, (uint64_t)chunk_elems * r.in_size);
                if (filled)
                    snprintf(why, sizeof why, "auto: the stream filled the first chunk (%s)", cb);
                else
                    snprintf(why, sizeof why, "auto: the stream ended before the first chunk (%s) filled; CUDA not initialised",
                             cb);
                pk = filled ? PICK_GPU : PICK_CPU;
                if (pk == PICK_GPU && warm) gs_gpu_init_start(o->device);
            }
            if (pk == PICK_GPU && warm && cur && !gs_gpu_init_ready()) {
                /* CUDA is still starting: this chunk on the CPU */
                gs_chunk *out = q_pop(&r.free_out), *rin, *rout;
                if (!out) break;
                double t0 = gs_now();
                if ((!wb && cpu_backend(chain, &wcfg, wvars, &wb, &bst)) || out_buffer(&r, out, &bst) ||
                    wb->submit(wb, cur, out, &bst) || wb->retire(wb, &rin, &rout, &bst)) {
                    q_push(&r.free_out, out);
                    q_push(&r.free_in, cur);
                    cur = NULL;
                    run_fail(&r, &bst);
                    break;
                }
                warm_busy += gs_now() - t0;
                warm_chunks++;
                warm_elems += cur->n;
                cur = NULL;
                retired(&r, rin, rout, NULL, 0);
                continue;
            }
            if (wb) { /* the GPU (or the fallback) continues where the CPU stopped */
                gs_backend_cpu_resume(wb, &resumed);
                if (resumed.halo_len) {
                    size_t hb = (size_t)resumed.halo_len * r.in_size; /* <= the inputs seen: in memory */
                    if (!(warm_halo = malloc(hb))) {
                        gs_fail(&bst, GS_ENOMEM, "out of host memory for a halo");
                        run_fail(&r, &bst);
                        break;
                    }
                    memcpy(warm_halo, resumed.halo, hb);
                    resumed.halo = warm_halo;
                }
                cfg.job = &resumed;
                wb->destroy(wb);
                wb = NULL;
            }
            if (atomic_load(&r.failed)) { /* the reader failed meanwhile: no backend to make */
                if (cur) q_push(&r.free_in, cur);
                cur = NULL;
                break;
            }
            gs_trace("engine: making the %s backend", pk == PICK_GPU ? "GPU" : "CPU");
            rc = pk == PICK_GPU ? gpu_backend(chain, o, &cfg, vars, &b, &b_gpu, stats, why, sizeof why, &bst)
                                : cpu_backend(chain, &cfg, vars, &b, &bst);
            if (rc) {
                if (cur) q_push(&r.free_in, cur);
                cur = NULL;
                run_fail(&r, &bst);
                break;
            }
            gs_trace("engine: backend %s ready", b->name);
            run_set_backend(&r, b, b_gpu && o->host_mem == GS_HOST_PINNED);
            npieces = b->depth;
            pieces = calloc((size_t)npieces, sizeof *pieces);
            if (!pieces) {
                gs_fail(&bst, GS_ENOMEM, "out of host memory");
                run_fail(&r, &bst);
                break;
            }
        }
        if (inflight == b->depth || (draining && inflight > 0)) {
            gs_chunk *rin, *rout;
            double t0 = gs_now();
            if (b->retire(b, &rin, &rout, &bst)) {
                run_fail(&r, &bst);
                break;
            }
            compute_busy += gs_now() - t0;
            gs_trace("chunk %llu retired (waited %.2f ms)", (unsigned long long)(chunks - (uint64_t)inflight),
                     (gs_now() - t0) * 1e3);
            inflight--;
            retired(&r, rin, rout, pieces, npieces);
        }
        if (cur) {
            gs_chunk *in = cur;
            gs_chunk *out = q_pop(&r.free_out);
            if (!out) break;
            const double tob = gs_trace_enabled() ? gs_now() : 0;
            if (out_buffer(&r, out, &bst)) {
                q_push(&r.free_out, out);
                run_fail(&r, &bst);
                break;
            }
            if (gs_trace_enabled() && gs_now() - tob > 1e-3) gs_trace("output buffer ready after %.1f ms", (gs_now() - tob) * 1e3);
            if (b->chunk_elems && cur->n - off > b->chunk_elems) {
                in = piece_view(pieces, npieces, cur, off, b->chunk_elems, r.in_size, 0);
                off += b->chunk_elems;
            } else if (off) { /* the whole chunk's last view */
                in = piece_view(pieces, npieces, cur, off, cur->n - off, r.in_size, 1);
                cur = NULL;
            } else
                cur = NULL;
            double t0 = gs_now();
            gs_trace("chunk %llu submitted (%zu elements%s)", (unsigned long long)chunks, in->n, in->zn ? ", as zstd frames" : "");
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
    gs_trace("engine: last chunk retired");
    if (wb) wb->destroy(wb); /* a failure before the GPU took over */
    /* before the threads are joined: the reader may be in a call that waits for the device */
    if (b && atomic_load(&r.failed) && b->quiesce) b->quiesce(b);
    free(warm_halo);
    q_close(&r.written);
    if (have_wt) pthread_join(wt, NULL);
    if (atomic_load(&r.failed)) q_close(&r.free_in); /* unblock the reader */
    if (have_rt) pthread_join(rt, NULL);
    gs_trace("engine: reader and writer joined");

    if (stats) {
        stats->wall = gs_now() - t_start;
        stats->elems_in = r.elems_in;
        stats->elems_out = r.values_out / (uint64_t)cols;
        stats->chunks = chunks + warm_chunks;
        stats->bytes_in = src->bytes ? src->bytes(src->ctx) : r.elems_in * r.in_size;
        stats->bytes_out = w ? gs_writer_bytes(w) : 0;
        stats->nstages = 0;
        stats->stage[stats->nstages++] = (gs_stage_stat){"read+decode", r.read_busy, stats->bytes_in};
        if (warm_chunks)
            stats->stage[stats->nstages++] = (gs_stage_stat){GS_STAGE_WARM, warm_busy, warm_elems * r.in_size};
        if (b) {
            stats->stage[stats->nstages++] = (gs_stage_stat){b->name, compute_busy, r.elems_in * r.in_size};
            b->stats(b, stats);
        }
        stats->stage[stats->nstages++] = (gs_stage_stat){GS_STAGE_WRITE, r.write_busy, stats->bytes_out};
        stats->peak_rss = peak_rss();
        stats->algo = cfg.variant ? cfg.variant->name : "convert";
        if (chain->n > 1 && vars[chain->n - 1]) { /* "cpu-par, cpu-vhgw": each stage's variant */
            static char algos[GS_CHAIN_MAX * 24];
            size_t at = 0;
            for (int k = 0; k < chain->n && at < sizeof algos; k++)
                at += (size_t)snprintf(algos + at, sizeof algos - at, "%s%s", k ? ", " : "", vars[k]->name);
            stats->algo = algos;
        }
        if (!stats->backend && b) stats->backend = b->name;
        if (warm_chunks) {
            char wbytes[32];
            human_size(wbytes, sizeof wbytes, warm_elems * r.in_size);
            snprintf(stats->why, sizeof stats->why, "%s; the first %llu chunk%s (%s) on the CPU while CUDA started", why,
                     (unsigned long long)warm_chunks, warm_chunks == 1 ? "" : "s", wbytes);
        } else
            snprintf(stats->why, sizeof stats->why, "%s", why);
    }
    if (count) *count = r.values_out / (uint64_t)cols;
    if (!b && pk == PICK_GPU) gs_gpu_init_wait(o->device, NULL, 0, NULL); /* never exit under a starting CUDA */
    const double t_release = gs_now();
    if (b) {
        chunks_free(&r);
        b->destroy(b);
        if (stats) stats->release = gs_now() - t_release;
    } else { /* no backend was made: every buffer is the engine's */
        for (size_t i = 0; r.ins && i < r.nchunks; i++) free(r.ins[i].buf), free(r.ins[i].zt);
        for (size_t i = 0; r.outs && i < r.nchunks; i++) free(r.outs[i].buf), free(r.outs[i].zt);
        free(r.ins);
        free(r.outs);
        free(r.in_own);
        free(r.out_own);
        free(r.out_state);
    }
    free(pieces);
    q_free(&r.free_in);
    q_free(&r.ready);
    q_free(&r.free_out);
    q_free(&r.written);
    pthread_mutex_destroy(&r.err_mu);
    pthread_mutex_destroy(&r.mu);
    pthread_cond_destroy(&r.cv);
    if (atomic_load(&r.failed)) {
        *st = r.err;
        return r.err.code ? r.err.code : GS_EDATA;
    }
    return GS_OK;
}
