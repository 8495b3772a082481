/* fake_gpu.h - what the engine's unit tests share (test_engine.c, test_engine_frames.c): a source
 * and a sink in memory, a fake GPU backend with its start-up (gs_backend_parts: a CPU backend
 * inside, the GPU's face outside; nvCOMP's zstd work done with libzstd), and running a chain.
 * Header-only: each test program is one file. */
#ifndef GS_FAKE_GPU_H
#define GS_FAKE_GPU_H

#include "check.h"
#include "../../io/io_internal.h"
#include "../../pipeline/pipeline.h"
#include "../../pipeline/backends.h"
#include "host_parse.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- a source and a sink in memory --------------------------------------------------------------- */
typedef struct msrc {
    const unsigned char *p;
    size_t n, at, esize;
    size_t fail_at; /* elements after which a read fails (0: never) */
} msrc;

/* Short reads of at most 777 elements: chunk boundaries must not follow them. */
static inline int msrc_read(void *ctx, void *buf, size_t cap, size_t *got, gs_status *st)
{
    msrc *m = ctx;
    size_t k = m->n - m->at < cap ? m->n - m->at : cap;
    if (k > 777) k = 777;
    if (m->fail_at && m->at + k > m->fail_at) return gs_fail(st, GS_EDATA, "test source: read error");
    memcpy(buf, m->p + m->at * m->esize, k * m->esize);
    m->at += k;
    *got = k;
    return GS_OK;
}

static inline uint64_t msrc_bytes(void *ctx)
{
    const msrc *m = ctx;
    return m->at * m->esize;
}

typedef struct mbuf {
    unsigned char *p;
    size_t n, cap;
} mbuf;

static inline int mbuf_write(void *ctx, const void *buf, size_t n, gs_status *st)
{
    mbuf *b = ctx;
    if (b->n + n > b->cap) {
        size_t cap = (b->n + n) * 2 + 64;
        unsigned char *p = realloc(b->p, cap);
        if (!p) return gs_fail(st, GS_ENOMEM, "test sink: out of memory");
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, buf, n);
    b->n += n;
    return GS_OK;
}

/* ---- the fake GPU and its start-up -------------------------------------------------------------- */
static struct {
    int begun, waits, ready_calls, ready_at, usable, create_fail, quiesced, depth;
    size_t chunk;       /* the chunk it takes (0: the engine's) */
    uint64_t fail_at;   /* a submit fails at this chunk (0: never) */
    int zenc_odd;       /* frames for the chunks of odd sequence number only (frames after values, values after frames) */
    int text_odd;       /* text for every other output chunk only (text after values, values after text) */
    uint64_t registered, submitted, zdec_bytes, zenc_bytes, text_values;
    char note[400];
    /* the direct input: file pages locked (file_register) and what it does on its n-th call */
    int file_none;          /* no file_register at all */
    int file_refuse_at;     /* refuse the n-th registration and every later one (0: never) */
    int shrink_at;          /* at the n-th registration, cut the file (shrink_path) to half and refuse it */
    int grow_at;            /* at the n-th release, double the file (shrink_path) */
    const char *shrink_path;
    int shrunk;
    uint64_t file_calls, file_regs, file_live, file_bytes, file_releases;
    /* the input's csv parsed by the backend: blocks taken and declined, and the n-th block offered
     * declined whatever it holds (0: none) */
    uint64_t parse_taken, parse_declined;
    int parse_decline_at;
} fk;

static inline void fake_reset(int ready_at, int usable)
{
    memset(&fk, 0, sizeof fk);
    fk.ready_at = ready_at;
    fk.usable = usable;
    fk.depth = 3;
}

/* A locked range of the mapped input, with the bytes it held when locked: the fake's "device"
 * reads those, as a copy engine reads pages that a shrinking file can no longer take away. */
typedef struct fake_lock {
    const char *p;
    size_t bytes;
    unsigned char *held;
} fake_lock;
#define FAKE_LOCKS 64

typedef struct fake {
    gs_backend *cpu;
    gs_chunk *qin[8], *qout[8]; /* in flight: retired oldest first */
    int head, n;
    size_t isz, osz, zframe, ztab;
    unsigned char *zbuf;
    int tcols;                  /* the output as text: rows of tcols values joined by tsep (0: values) */
    char tsep;
    gs_type otype;
    uint64_t nout;              /* output chunks so far */
    size_t halo_head;           /* the CPU backend's head room before a chunk's data */
    pthread_mutex_t mu;         /* locks: registered from the pool's threads */
    fake_lock lock[FAKE_LOCKS];
    gs_text_parser tin;         /* the input's csv parsed here (cfg.text_in) */
    char *tvals;
    size_t tcap;
    int toffered;
} fake;

/* The device's csv parser, on the host (host_parse.h); the fk.parse_decline_at-th block offered is
 * declined whatever it holds. */
static inline int fake_parse(void *ctx, const gs_text_block *b, const void **vals, size_t *n, gs_status *st)
{
    fake *f = ctx;
    const int rc = ++f->toffered == fk.parse_decline_at ? GS_TEXT_DECLINED : host_parse_block(b, &f->tvals, &f->tcap, n);
    if (rc == GS_ENOMEM) return gs_fail(st, GS_ENOMEM, "fake GPU: out of memory");
    if (rc) return fk.parse_declined++, rc;
    fk.parse_taken++;
    *vals = f->tvals;
    return GS_OK;
}

static inline int fake_file_register(gs_backend *b, const void *p, size_t bytes, gs_status *st)
{
    fake *f = b->impl;
    const uint64_t call = __atomic_add_fetch(&fk.file_calls, 1, __ATOMIC_RELAXED);
    if (fk.file_refuse_at && call >= (uint64_t)fk.file_refuse_at)
        return gs_fail(st, GS_EDATA, "fake GPU: page-locking refused");
    /* the cut comes before a window the reader has not read yet (a release may come after the
     * last read); pages past the file's end cannot be locked (the driver's page walk faults
     * there, and reports it): refused, as a device refuses it, without a look at them */
    struct stat sb;
    unsigned char *held = malloc(bytes);
    if (!held) return gs_fail(st, GS_ENOMEM, "fake GPU: out of memory");
    /* the cut and the copies of the pages are one at a time: no copy reads a page being cut */
    pthread_mutex_lock(&f->mu);
    if (fk.shrink_path && call == (uint64_t)fk.shrink_at && !stat(fk.shrink_path, &sb)) {
        fk.shrunk = 1;
        (void)!truncate(fk.shrink_path, sb.st_size / 2);
    }
    if (fk.shrunk) {
        pthread_mutex_unlock(&f->mu);
        free(held);
        return gs_fail(st, GS_EDATA, "fake GPU: cudaHostRegister: invalid argument");
    }
    memcpy(held, p, bytes);
    int i = 0;
    while (i < FAKE_LOCKS && f->lock[i].p) i++;
    if (i < FAKE_LOCKS) f->lock[i] = (fake_lock){p, bytes, held};
    pthread_mutex_unlock(&f->mu);
    if (i == FAKE_LOCKS) {
        free(held);
        return gs_fail(st, GS_ENOMEM, "fake GPU: too many locked ranges");
    }
    __atomic_fetch_add(&fk.file_regs, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&fk.file_live, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&fk.file_bytes, bytes, __ATOMIC_RELAXED);
    return GS_OK;
}

static inline void fake_file_unregister(gs_backend *b, const void *p, size_t bytes, int settled)
{
    fake *f = b->impl;
    struct stat sb;
    (void)settled;
    /* on the reader's thread, or the driver's at the end */
    const uint64_t call = __atomic_add_fetch(&fk.file_releases, 1, __ATOMIC_RELAXED);
    if (fk.shrink_path && call == (uint64_t)fk.grow_at && !stat(fk.shrink_path, &sb))
        (void)!truncate(fk.shrink_path, sb.st_size * 2);
    pthread_mutex_lock(&f->mu);
    for (int i = 0; i < FAKE_LOCKS; i++)
        if (f->lock[i].p == p && f->lock[i].bytes == bytes) {
            free(f->lock[i].held);
            f->lock[i] = (fake_lock){NULL, 0, NULL};
            __atomic_fetch_sub(&fk.file_live, 1, __ATOMIC_RELAXED);
            break;
        }
    pthread_mutex_unlock(&f->mu);
}

/* The bytes a locked range held for [p, p + n), or NULL where p is in no locked range. */
static inline const unsigned char *fake_locked(fake *f, const void *p, size_t n)
{
    const unsigned char *at = NULL;
    pthread_mutex_lock(&f->mu);
    for (int i = 0; i < FAKE_LOCKS && !at; i++)
        if (f->lock[i].p && (const char *)p >= f->lock[i].p && (const char *)p + n <= f->lock[i].p + f->lock[i].bytes)
            at = f->lock[i].held + ((const char *)p - f->lock[i].p);
    pthread_mutex_unlock(&f->mu);
    return at;
}

static inline void *fake_host_alloc(gs_backend *b, size_t bytes, gs_status *st)
{
    void *p = NULL;
    (void)b;
    if (posix_memalign(&p, 64, bytes ? bytes : 64)) gs_fail(st, GS_ENOMEM, "fake GPU: out of host memory");
    return p;
}

static inline void fake_host_free(gs_backend *b, void *p)
{
    (void)b;
    free(p);
}

static inline int fake_register(gs_backend *b, void *p, size_t bytes, gs_status *st)
{
    (void)b, (void)p, (void)bytes, (void)st;
    __atomic_fetch_add(&fk.registered, 1, __ATOMIC_RELAXED); /* the reader's and the driver's threads both pin */
    return GS_OK;
}

static inline int fake_unregister(gs_backend *b, void *p)
{
    (void)b, (void)p;
    __atomic_fetch_sub(&fk.registered, 1, __ATOMIC_RELAXED);
    return 0;
}

/* nvCOMP's decoding, on the host: the chunk's frames, then its elements where they belong. */
static inline int fake_zdecode(fake *f, gs_chunk *in, gs_status *st)
{
    const size_t bytes = in->n * f->isz;
    unsigned char *tmp = malloc(bytes ? bytes : 1);
    if (!tmp) return gs_fail(st, GS_ENOMEM, "fake GPU: out of memory");
    int rc = gs_zstd_frames_table_decode((const unsigned char *)in->buf, in->zt, in->zn, tmp, st);
    if (!rc) memcpy(in->data, tmp, bytes);
    free(tmp);
    fk.zdec_bytes += rc ? 0 : bytes;
    return rc;
}

/* nvCOMP's encoding, on the host: frames without content size or checksum, or values where
 * they do not fit. */
static inline int fake_zencode(gs_backend *b, fake *f, gs_chunk *out, gs_status *st)
{
    const size_t bytes = out->n * f->osz;
    size_t nf = 0, cb = 0;
    if (!bytes || !out->zt || !out->zcap || (fk.zenc_odd && !(out->seq & 1))) return GS_OK;
    if (!f->zbuf && !(f->zbuf = malloc(b->zenc_bytes))) return gs_fail(st, GS_ENOMEM, "fake GPU: out of memory");
    int rc = gs_zstd_frames_table_encode(out->data, bytes, f->zframe, f->zbuf,
                                         out->zcap < b->zenc_bytes ? out->zcap : b->zenc_bytes, out->zt, f->ztab, &nf, &cb,
                                         st);
    if (rc || !nf) return rc;
    memcpy(out->buf, f->zbuf, cb);
    out->zn = nf;
    out->zbytes = cb;
    fk.zenc_bytes += bytes;
    return GS_OK;
}

/* The GPU's text formatter, on the host: the chunk's rows as the writer prints them, where they fit
 * its buffer (else values). */
static inline int fake_text(fake *f, gs_chunk *out, gs_status *st)
{
    out->tlen = 0;
    if (!f->tcols || !out->tcap || !out->n || (fk.text_odd && (f->nout++ & 1))) return GS_OK;
    const size_t need = out->n * (GS_NUM_CHARS + 1);
    char *t = malloc(need), *o = t;
    if (!t) return gs_fail(st, GS_ENOMEM, "fake GPU: out of memory");
    for (size_t i = 0; i < out->n; i++) {
        o += gs_num_format(o, f->otype, (const char *)out->data + i * f->osz);
        *o++ = (i + 1) % (size_t)f->tcols ? f->tsep : '\n';
    }
    if ((size_t)(o - t) <= out->tcap) {
        memcpy(out->buf, t, (size_t)(o - t));
        out->tlen = (size_t)(o - t);
        fk.text_values += out->n;
    }
    free(t);
    return GS_OK;
}

static inline int fake_submit(gs_backend *b, gs_chunk *in, gs_chunk *out, gs_status *st)
{
    fake *f = b->impl;
    gs_chunk *ri, *ro;
    int rc;
    if (++fk.submitted == fk.fail_at) return gs_fail(st, GS_EDATA, "fake GPU: kernel failed");
    if (f->n == b->depth) return gs_fail(st, GS_EDATA, "fake GPU: submit with %d chunks in flight", f->n);
    if (in->zn && (rc = fake_zdecode(f, in, st))) return rc;
    /* a chunk read in place: the "device" copies it out of the locked pages (the CPU backend then
     * writes its halo into the copy's head room, never into the mapped file) */
    const unsigned char *held = in->n && !in->zn ? fake_locked(f, in->data, in->n * f->isz) : NULL;
    gs_chunk copy, *orig = in;
    unsigned char *tmp = NULL;
    if (held) {
        if (!(tmp = malloc((f->halo_head + in->n) * f->isz))) return gs_fail(st, GS_ENOMEM, "fake GPU: out of memory");
        copy = *in;
        copy.buf = tmp;
        copy.data = tmp + f->halo_head * f->isz;
        memcpy(copy.data, held, in->n * f->isz);
        in = &copy;
    }
    rc = f->cpu->submit(f->cpu, in, out, st);
    if (!rc) rc = f->cpu->retire(f->cpu, &ri, &ro, st);
    free(tmp);
    if (rc) return rc;
    if (held) ri = orig;
    out->zn = 0;
    if (f->zframe && (rc = fake_zencode(b, f, out, st))) return rc;
    if ((rc = fake_text(f, out, st))) return rc;
    const int at = (f->head + f->n++) % 8;
    f->qin[at] = ri;
    f->qout[at] = ro;
    return GS_OK;
}

static inline int fake_retire(gs_backend *b, gs_chunk **in, gs_chunk **out, gs_status *st)
{
    fake *f = b->impl;
    if (!f->n) return gs_fail(st, GS_EDATA, "fake GPU: retire with no chunk in flight");
    *in = f->qin[f->head];
    *out = f->qout[f->head];
    f->head = (f->head + 1) % 8;
    f->n--;
    return GS_OK;
}

static inline void fake_stats(gs_backend *b, gs_run_stats *s)
{
    fake *f = b->impl;
    s->backend = "gpu: fake";
    f->cpu->stats(f->cpu, s);
}

static inline void fake_resume(const gs_backend *b, gs_job *j)
{
    const fake *f = b->impl;
    f->cpu->resume(f->cpu, j);
}

static inline void fake_quiesce(gs_backend *b)
{
    (void)b;
    fk.quiesced++;
}

static inline void fake_destroy(gs_backend *b)
{
    fake *f = b->impl;
    f->cpu->destroy(f->cpu);
    free(f->zbuf);
    free(f->tvals);
    for (int i = 0; i < FAKE_LOCKS; i++) free(f->lock[i].held); /* left locked: the test counts them */
    pthread_mutex_destroy(&f->mu);
    free(f);
    free(b);
}

/* The fake GPU backend: a CPU backend inside, the GPU's face outside. */
static inline int fake_gpu(gs_backend **out, const gs_backend_cfg *c, gs_status *st)
{
    if (fk.create_fail) return gs_fail(st, GS_EDATA, "fake GPU: out of device memory");
    gs_backend_cfg cc = *c;
    if (fk.chunk && fk.chunk < cc.chunk_elems) {
        cc.out_cap = c->out_cap / c->chunk_elems * fk.chunk;
        cc.chunk_elems = fk.chunk;
    }
    gs_backend *b = calloc(1, sizeof *b);
    fake *f = calloc(1, sizeof *f);
    int rc = b && f ? gs_backend_parts_builtin.cpu(&f->cpu, &cc, st) : gs_fail(st, GS_ENOMEM, "out of memory");
    if (rc) {
        free(b);
        free(f);
        return rc;
    }
    *b = (gs_backend){.name = "gpu", .host_alloc = fake_host_alloc, .host_free = fake_host_free,
                      .host_register = fake_register, .host_unregister = fake_unregister, .submit = fake_submit,
                      .retire = fake_retire, .stats = fake_stats, .quiesce = fake_quiesce, .destroy = fake_destroy,
                      .resume = fake_resume, .pins = 1, .depth = fk.depth, .max_head = f->cpu->max_head,
                      .chunk_elems = cc.chunk_elems, .impl = f};
    f->isz = gs_type_size(c->in_type);
    f->osz = gs_type_size(c->out_type);
    f->halo_head = c->halo < cc.chunk_elems ? c->halo : cc.chunk_elems;
    pthread_mutex_init(&f->mu, NULL);
    if (!fk.file_none) {
        b->file_register = fake_file_register;
        b->file_unregister = fake_file_unregister;
    }
    if (c->opts->plan.zdecode) { /* frames as nvCOMP's decoder takes them */
        const size_t head = c->halo < cc.chunk_elems ? c->halo : cc.chunk_elems;
        b->zalign = b->zunit = 8;
        b->zframe_max = GS_GPU_ZDEC_FRAME_MAX;
        b->ztab_max = 4096;
        b->zbuf_max = (head + cc.chunk_elems) * f->isz;
    }
    if ((f->zframe = c->opts->plan.zencode)) {
        f->ztab = (cc.out_cap * f->osz + f->zframe - 1) / f->zframe;
        b->zenc_tab_max = f->ztab;
        b->zenc_bytes = f->ztab * gs_zstd_frames_table_bound(f->zframe);
    }
    f->tcols = b->text_cols = c->text_cols;
    f->tsep = c->text_sep;
    if (c->text_in) {
        f->tin = (gs_text_parser){fake_parse, f};
        b->text_in = &f->tin;
    }
    f->otype = c->out_type;
    *out = b;
    return GS_OK;
}

static inline int fake_check(const gs_backend_cfg *c, gs_status *st)
{
    (void)c, (void)st;
    return GS_OK;
}

static inline void fake_begin(int device)
{
    (void)device;
    fk.begun++;
}

static inline int fake_ready(void) { return fk.ready_calls++ >= fk.ready_at; }

static inline int fake_wait(int device, char *why, size_t len, double *secs)
{
    (void)device;
    fk.waits++;
    if (secs) *secs = 0.25;
    if (!fk.usable && why && len) snprintf(why, len, "no fake GPU");
    return fk.usable;
}

static gs_backend_parts fake_parts;

static inline void on_note(void *ctx, const char *msg)
{
    (void)ctx;
    snprintf(fk.note, sizeof fk.note, "%s", msg);
}

/* ---- running a chain ------------------------------------------------------------------------------ */
typedef struct result {
    mbuf out;
    uint64_t count;
    gs_run_stats stats;
    gs_status st;
    int rc;
} result;

/* Run chain ch over in[0, n) of type t with options o; known: the source tells its size. */
static inline void run(const gs_chain *ch, gs_type t, const void *in, size_t n, int known, const gs_engine_opts *o,
                result *res)
{
    msrc m = {in, n, 0, gs_type_size(t), 0};
    gs_source src = {.read = msrc_read, .ctx = &m, .type = t, .count = known ? (int64_t)n : -1, .bytes = msrc_bytes};
    memset(res, 0, sizeof *res);
    gs_writer *w = NULL;
    gs_byte_sink k = {mbuf_write, &res->out, "memory"};
    gs_write_opts wo = {.format = GS_FMT_RAW, .type = gs_chain_out_type(ch, t), .ncols = gs_chain_out_cols(ch), .rows = -1};
    if (!ch->stage[ch->n - 1].count_only && (res->rc = gs_writer_open_sink(&w, &k, &wo, NULL, 0, &res->st))) return;
    res->rc = gs_engine_run_chain(ch, o, &src, w, &res->count, &res->stats, &res->st);
    if (w && res->rc) gs_writer_abort(w);
    else if (w) res->rc = gs_writer_finish(w, NULL, &res->st);
}

static inline int same(const result *a, const result *b)
{
    return a->rc == 0 && b->rc == 0 && a->count == b->count && a->out.n == b->out.n &&
           (a->out.n == 0 || !memcmp(a->out.p, b->out.p, a->out.n));
}

static inline void result_free(result *r) { free(r->out.p); }

static inline gs_engine_opts opts(gs_backend_kind backend, size_t chunk_elems, size_t esize)
{
    gs_engine_opts o;
    memset(&o, 0, sizeof o);
    o.backend = backend;
    o.chunk_bytes = chunk_elems * esize;
    o.threads = 2;
    return o;
}

/* ---- the jobs --------------------------------------------------------------------------------------- */
static inline gs_job j_scan(gs_scan_op op, int excl, gs_type out)
{
    return (gs_job){.op = GS_OP_SCAN, .scan = {.type = GS_I32, .out_type = out, .op = op, .exclusive = excl}};
}

static inline gs_job j_compact(gs_pred_kind pred, int indices, gs_type t)
{
    return (gs_job){.op = GS_OP_COMPACT, .compact = {.type = t, .pred = pred, .indices = indices}};
}

static inline gs_job j_minmax(uint64_t w, gs_mm_only only, int partial, gs_type t)
{
    return (gs_job){.op = GS_OP_MINMAX, .minmax = {.type = t, .window = w, .only = only}, .partial = partial};
}

static inline gs_chain chain1(gs_job a)
{
    gs_chain c;
    memset(&c, 0, sizeof c);
    c.n = 1;
    c.stage[0] = a;
    return c;
}

static inline gs_chain chain2(gs_job a, gs_job b)
{
    gs_chain c = chain1(a);
    c.n = 2;
    c.stage[1] = b;
    return c;
}

/* i32 values in [-50, 50], or mostly zeros (sparse) */
static inline int32_t *data(size_t n, int sparse, unsigned seed)
{
    int32_t *d = malloc((n ? n : 1) * sizeof *d);
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        int32_t v = (int32_t)((seed >> 16) % 101) - 50;
        d[i] = sparse && (seed >> 8) % 97 ? 0 : v;
    }
    return d;
}

static inline void fake_parts_init(void)
{
    fake_parts = gs_backend_parts_builtin;
    fake_parts.gpu_check = fake_check;
    fake_parts.gpu_begin = fake_begin;
    fake_parts.gpu_ready = fake_ready;
    fake_parts.gpu_wait = fake_wait;
    fake_parts.gpu = fake_gpu;
}

#endif
