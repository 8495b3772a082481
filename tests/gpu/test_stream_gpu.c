/* test_stream_gpu.c - the GPU streaming path (pipeline/gpu/) against the CPU.
 *
 * Part 1, "direct": drives the GPU backend through the engine's protocol by hand (depth + 2 input
 * chunks from host_alloc with halo head room, submit / retire with at most depth in flight, chunk
 * sizes fixed or random, empty chunks included) and compares the concatenated output with the
 * sequential CPU reference over the whole array: every op x type, every --host-mem mode x
 * --buffers 1/2/3 x --device-alloc mode, chunk sizes that split minmax windows (W > chunk too),
 * odd counts, a --device-mem-limit that forces the chunk down, every GPU variant.
 * Part 2, "engine": gs_engine_run with --backend gpu and --backend cpu on the same in-memory data,
 * written as raw to temp files, compared with each other.
 *
 * Integers and min/max compare exactly (bits; any NaN equals any NaN); float sums within a
 * bound relative to the running sum of |x| (reassociation only). Output: PASS/FAIL lines.
 * Environment: GS_TEST_DEVICE=N picks the GPU (default 0). */
#include "../../pipeline/pipeline.h"
#include "../../kernels/kernels.h"
#include "../../io/io.h"
#include "../unit/check.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int g_dev;

/* ---- data ------------------------------------------------------------------------------- */

static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545F4914F6CDD1DULL;
}
static double rnd01(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }

typedef enum { D_SUM, D_SMALL, D_SMALL_NAN } data_kind;

/* D_SUM: full-range integers (sums wrap), floats in [-1, 1]. D_SMALL: integers in [-20, 20]
 * ([0, 40] unsigned), floats in quarter steps in [-5, 5] with -0.0 and +0.0 (lots of ties).
 * D_SMALL_NAN: D_SMALL plus rare NaN and +-inf. */
static void *gen(gs_type t, size_t n, data_kind k, uint64_t seed)
{
    size_t sz = gs_type_size(t);
    char *p = malloc(n * sz + 8);
    rng_state = seed * 0x9E3779B97F4A7C15ULL + 12345;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rnd();
        int64_t small = (int64_t)(r % 41) - 20;
        double f;
        if (k == D_SUM) f = rnd01() * 2.0 - 1.0;
        else {
            f = (double)((int64_t)(rnd() % 41) - 20) * 0.25;
            if (f == 0.0 && (r & 64)) f = -0.0;
            if (k == D_SMALL_NAN) {
                uint64_t q = rnd() % 50000;
                if (q == 0) f = NAN;
                else if (q == 1) f = INFINITY;
                else if (q == 2) f = -INFINITY;
            }
        }
        char *e = p + i * sz;
        switch (t) {
        case GS_I32: { int32_t v = k == D_SUM ? (int32_t)(uint32_t)r : (int32_t)small; memcpy(e, &v, 4); break; }
        case GS_I64: { int64_t v = k == D_SUM ? (int64_t)r : small; memcpy(e, &v, 8); break; }
        case GS_U32: { uint32_t v = k == D_SUM ? (uint32_t)r : (uint32_t)(small + 20); memcpy(e, &v, 4); break; }
        case GS_U64: { uint64_t v = k == D_SUM ? r : (uint64_t)(small + 20); memcpy(e, &v, 8); break; }
        case GS_F32: { float v = (float)f; memcpy(e, &v, 4); break; }
        default: { double v = f; memcpy(e, &v, 8); break; }
        }
    }
    return p;
}

static double as_double(gs_type t, const void *e)
{
    switch (t) {
    case GS_I32: { int32_t v; memcpy(&v, e, 4); return v; }
    case GS_I64: { int64_t v; memcpy(&v, e, 8); return (double)v; }
    case GS_U32: { uint32_t v; memcpy(&v, e, 4); return v; }
    case GS_U64: { uint64_t v; memcpy(&v, e, 8); return (double)v; }
    case GS_F32: { float v; memcpy(&v, e, 4); return v; }
    default: { double v; memcpy(&v, e, 8); return v; }
    }
}

/* ---- jobs ------------------------------------------------------------------------------- */
/* Each job below: the fields it names, every other one zero. */

static gs_job job_scan(gs_type t, gs_scan_op op, int excl, gs_type out)
{
    return (gs_job){.op = GS_OP_SCAN, .scan = {.type = t, .out_type = out, .op = op, .exclusive = excl}};
}

static gs_value val_of(gs_type t, double d)
{
    gs_value v;
    memset(&v, 0, sizeof v);
    switch (t) {
    case GS_I32: v.i32 = (int32_t)d; break;
    case GS_I64: v.i64 = (int64_t)d; break;
    case GS_U32: v.u32 = (uint32_t)(d < 0 ? 0 : d); break;
    case GS_U64: v.u64 = (uint64_t)(d < 0 ? 0 : d); break;
    case GS_F32: v.f32 = (float)d; break;
    default: v.f64 = d; break;
    }
    return v;
}

static gs_job job_compact(gs_type t, gs_pred_kind pred, double a, double b, int invert, int indices)
{
    return (gs_job){.op = GS_OP_COMPACT,
                    .compact = {.type = t, .pred = pred, .a = val_of(t, a), .b = val_of(t, b), .invert = invert,
                                .indices = indices}};
}

static gs_job job_minmax(gs_type t, uint64_t w, int partial, gs_mm_only only)
{
    return (gs_job){.op = GS_OP_MINMAX, .minmax = {.type = t, .window = w, .only = only}, .partial = partial};
}

static gs_type out_type_of(const gs_job *j, gs_type in)
{
    return j->op == GS_OP_SCAN ? j->scan.out_type : (j->op == GS_OP_COMPACT && j->compact.indices) ? GS_U64 : in;
}
static int cols_of(const gs_job *j) { return j->op == GS_OP_MINMAX && j->minmax.only == GS_MM_BOTH ? 2 : 1; }

static const char *pred_name(gs_pred_kind p)
{
    static const char *names[] = {"nonzero", "eq", "ne", "gt", "ge", "lt", "le", "range", "finite", "nan"};
    return names[p];
}

static void job_label(const gs_job *j, gs_type t, char *buf, size_t len)
{
    static const char *ops[] = {"sum", "min", "max"};
    static const char *only[] = {"both", "min", "max"};
    switch (j->op) {
    case GS_OP_SCAN:
        snprintf(buf, len, "scan/%s%s%s/%s%s%s", ops[j->scan.op], j->scan.exclusive ? "-excl" : "",
                 j->has_carry ? "-carry" : "", gs_type_name(t), j->scan.out_type != t ? "->" : "",
                 j->scan.out_type != t ? gs_type_name(j->scan.out_type) : "");
        break;
    case GS_OP_COMPACT:
        snprintf(buf, len, "compact/%s%s%s%s%s/%s", pred_name(j->compact.pred), j->compact.invert ? "-invert" : "",
                 j->compact.indices ? "-indices" : "", j->index_base ? "-base" : "", j->count_only ? "-count" : "",
                 gs_type_name(t));
        break;
    default:
        snprintf(buf, len, "minmax/w%llu%s/%s/%s", (unsigned long long)j->minmax.window, j->partial ? "-partial" : "",
                 only[j->minmax.only], gs_type_name(t));
        break;
    }
}

/* ---- reference and comparison ----------------------------------------------------------- */

/* The sequential CPU reference over the whole array. *out malloc'd, *nvals values. */
static int reference(const gs_job *j, gs_type t, const void *in, size_t n, void **out, size_t *nvals, gs_status *st)
{
    size_t osz = gs_type_size(out_type_of(j, t)), cols = (size_t)cols_of(j);
    *out = malloc(n * cols * osz + 16);
    *nvals = 0;
    if (j->op == GS_OP_SCAN) {
        gs_value carry;
        gs_scan_identity(j->scan.op, j->scan.out_type, &carry);
        *nvals = n;
        return n ? gs_scan_cpu(&j->scan, in, *out, n, &carry, st) : GS_OK;
    }
    if (j->op == GS_OP_COMPACT) {
        size_t kept = 0;
        int rc = n ? gs_compact_cpu(&j->compact, in, n, *out, 0, &kept, st) : GS_OK;
        *nvals = kept;
        return rc;
    }
    size_t first = j->partial ? 0 : (size_t)(j->minmax.window - 1);
    if (first >= n) return GS_OK;
    *nvals = (n - first) * cols;
    return gs_minmax_cpu_lemire(&j->minmax, in, n, first, *out, st);
}

static int is_float_sum(const gs_job *j)
{
    return j->op == GS_OP_SCAN && j->scan.op == GS_SCAN_SUM && gs_type_is_float(j->scan.out_type);
}

/* Index of the first mismatch, or -1. For float sums |a-b| <= tol * sum|x[0..i]| + tol. */
static long long compare(const gs_job *j, gs_type t, const void *in, const void *a, const void *b, size_t nvals,
                         char *why, size_t len)
{
    gs_type ot = out_type_of(j, t);
    size_t osz = gs_type_size(ot);
    if (is_float_sum(j)) {
        double tol = ot == GS_F32 ? 2e-6 : 1e-12, absum = 0;
        for (size_t i = 0; i < nvals; i++) {
            double x = as_double(t, (const char *)in + i * gs_type_size(t));
            double va = as_double(ot, (const char *)a + i * osz), vb = as_double(ot, (const char *)b + i * osz);
            absum += fabs(x);
            if (!(fabs(va - vb) <= tol * absum + tol)) {
                snprintf(why, len, "value %zu: %.17g vs %.17g (tolerance %.3g)", i, va, vb, tol * absum + tol);
                return (long long)i;
            }
        }
        return -1;
    }
    for (size_t i = 0; i < nvals; i++) {
        const char *pa = (const char *)a + i * osz, *pb = (const char *)b + i * osz;
        if (memcmp(pa, pb, osz) == 0) continue;
        if (gs_type_is_float(ot)) {
            double va = as_double(ot, pa), vb = as_double(ot, pb);
            if (va != va && vb != vb) continue; /* NaN == NaN */
        }
        snprintf(why, len, "value %zu: %.17g vs %.17g", i, as_double(ot, pa), as_double(ot, pb));
        return (long long)i;
    }
    return -1;
}

/* ---- part 1: the backend driven directly ------------------------------------------------- */

typedef struct run_cfg {
    gs_host_mem hm;
    int buffers;
    gs_dev_alloc da;
    size_t chunk;       /* requested input elements per chunk */
    uint64_t limit;     /* --device-mem-limit, 0 = none */
    int random_chunks;  /* chunk sizes drawn from [0, chunk] (some empty) instead of all full */
} run_cfg;

static const char *hm_name[] = {"pinned", "pageable", "registered", "mapped"};
static const char *da_name[] = {"once", "per-chunk", "async"};

/* Engine options for backend bk on this test's device under rc, for elements of isz bytes; every
 * other option zero, the total size unknown. */
static gs_engine_opts engine_opts(gs_backend_kind bk, const run_cfg *rc, size_t isz)
{
    gs_engine_opts o;
    memset(&o, 0, sizeof o);
    o.backend = bk;
    o.device = g_dev;
    o.chunk_bytes = rc->chunk * isz;
    o.buffers = rc->buffers;
    o.host_mem = rc->hm;
    o.dev_alloc = rc->da;
    o.device_mem_limit = rc->limit;
    o.total_bytes = -1;
    return o;
}

typedef struct drive_out {
    void *vals;
    size_t nvals;
    size_t chunk_used; /* b->chunk_elems */
    int depth;
    gs_run_stats stats;
} drive_out;

#define MAXCH 80

static int drive_gpu(const gs_job *j, const gs_variant *v, gs_type t, const void *in, size_t n, const run_cfg *rc,
                     drive_out *res, gs_status *st)
{
    gs_engine_opts o;
    gs_backend_cfg c;
    gs_backend *b = NULL;
    gs_chunk ins[MAXCH], outs[MAXCH];
    int freeq[MAXCH], nfree = 0, nch, ret = GS_OK;
    int inflight_idx[MAXCH], head = 0, inflight = 0;
    size_t isz = gs_type_size(t), osz = gs_type_size(out_type_of(j, t)), cols = (size_t)cols_of(j);
    size_t halo = j->op == GS_OP_MINMAX ? (size_t)(j->minmax.window - 1) : 0;
    size_t pos = 0, CE;
    uint64_t seq = 0, next_ret = 0;
    int sent_last = 0;

    memset(res, 0, sizeof *res);
    o = engine_opts(GS_BACKEND_GPU, rc, isz);
    memset(&c, 0, sizeof c);
    c.job = j;
    c.variant = v;
    c.in_type = t;
    c.out_type = out_type_of(j, t);
    c.chunk_elems = rc->chunk;
    c.halo = halo;
    c.out_cap = rc->chunk * cols;
    c.opts = &o;
    if ((ret = gs_backend_gpu_create(&b, &c, st))) return ret;
    CE = b->chunk_elems;
    res->chunk_used = CE;
    res->depth = b->depth;
    if (CE == 0 || CE > rc->chunk || b->depth < 1) {
        gs_fail(st, GS_EDATA, "backend reports depth %d, chunk %zu (asked %zu)", b->depth, CE, rc->chunk);
        b->destroy(b);
        return GS_EDATA;
    }
    nch = b->depth + 2;
    if (nch > MAXCH) nch = MAXCH;
    memset(ins, 0, sizeof ins);
    memset(outs, 0, sizeof outs);
    for (int i = 0; i < nch; i++) {
        ins[i].buf = b->host_alloc(b, (halo + CE) * isz, st);
        outs[i].buf = ins[i].buf ? b->host_alloc(b, CE * cols * osz, st) : NULL;
        if (!ins[i].buf || !outs[i].buf) {
            ret = st->code ? st->code : GS_ENOMEM;
            nch = i + 1;
            goto done;
        }
        ins[i].data = (char *)ins[i].buf + halo * isz;
        ins[i].cap = CE;
        outs[i].data = outs[i].buf;
        outs[i].cap = CE * cols;
        freeq[nfree++] = i;
    }
    res->vals = malloc(n * cols * osz + 16);

    while (!sent_last || inflight) {
        if (inflight == b->depth || (sent_last && inflight)) {
            gs_chunk *ri, *ro;
            if ((ret = b->retire(b, &ri, &ro, st))) goto done;
            int k = inflight_idx[head];
            head = (head + 1) % MAXCH;
            inflight--;
            if (ri != &ins[k] || ro != &outs[k]) {
                ret = gs_fail(st, GS_EDATA, "retire returned chunk %td, expected %d (out of order)", ri - ins, k);
                goto done;
            }
            if (ri->seq != next_ret++) {
                ret = gs_fail(st, GS_EDATA, "retire returned seq %llu out of order", (unsigned long long)ri->seq);
                goto done;
            }
            if (res->nvals + ro->n > n * cols) {
                ret = gs_fail(st, GS_EDATA, "backend produced more than %zu values", n * cols);
                goto done;
            }
            memcpy((char *)res->vals + res->nvals * osz, ro->data, ro->n * osz);
            res->nvals += ro->n;
            /* the engine reuses a retired input buffer at once: scribble on it */
            memset(ri->buf, 0xA5, (halo + CE) * isz);
            freeq[nfree++] = k;
            continue;
        }
        if (sent_last) continue;
        size_t len = CE;
        if (rc->random_chunks) len = (rnd() % 16 == 0) ? 0 : (size_t)(rnd() % (CE + 1));
        if (len > n - pos) len = n - pos;
        int k = freeq[--nfree];
        memcpy(ins[k].data, (const char *)in + pos * isz, len * isz);
        ins[k].n = len;
        ins[k].seq = seq++;
        pos += len;
        outs[k].n = 0;
        if ((ret = b->submit(b, &ins[k], &outs[k], st))) goto done;
        inflight_idx[(head + inflight) % MAXCH] = k;
        inflight++;
        sent_last = pos == n;
    }
    memset(&res->stats, 0, sizeof res->stats);
    b->stats(b, &res->stats);

done:
    for (int i = 0; i < nch; i++) {
        if (ins[i].buf) b->host_free(b, ins[i].buf);
        if (outs[i].buf) b->host_free(b, outs[i].buf);
    }
    b->destroy(b);
    return ret;
}

static const char *g_prefix = "gpu";

/* Run one direct case and report it. */
static void check_direct(const char *extra, const gs_job *j, const gs_variant *v, gs_type t, size_t n, data_kind dk,
                         const run_cfg *rc)
{
    char name[320], lab[160], why[256] = "";
    gs_status st;
    drive_out res;
    void *ref = NULL, *in;
    size_t nref = 0;
    int ok = 1;
    memset(&st, 0, sizeof st);
    job_label(j, t, lab, sizeof lab);
    snprintf(name, sizeof name, "%s/%s/n%zu/%s/b%d/%s/chunk%zu%s%s%s%s", g_prefix, lab, n, hm_name[rc->hm], rc->buffers,
             da_name[rc->da], rc->chunk, rc->random_chunks ? "r" : "", rc->limit ? "/limited" : "",
             v ? "/" : "", v ? v->name : "");
    if (extra && *extra) {
        size_t l = strlen(name);
        snprintf(name + l, sizeof name - l, "/%s", extra);
    }
    in = gen(t, n, dk, n * 31 + (uint64_t)t * 7 + (uint64_t)j->op);
    if (reference(j, t, in, n, &ref, &nref, &st)) {
        CHECK(0, name, "reference failed: %s", st.msg);
        goto out;
    }
    memset(&st, 0, sizeof st);
    if (drive_gpu(j, v, t, in, n, rc, &res, &st)) {
        CHECK(0, name, "%s", st.msg);
        free(res.vals);
        goto out;
    }
    if (res.nvals != nref) {
        ok = 0;
        snprintf(why, sizeof why, "%zu values, expected %zu", res.nvals, nref);
    } else if (!(j->op == GS_OP_COMPACT && j->count_only) &&
               compare(j, t, in, res.vals, ref, nref, why, sizeof why) >= 0) {
        ok = 0;
    } else if (rc->limit && res.stats.peak_device_mem > rc->limit) {
        ok = 0;
        snprintf(why, sizeof why, "peak device memory %llu > --device-mem-limit %llu",
                 (unsigned long long)res.stats.peak_device_mem, (unsigned long long)rc->limit);
    } else if (res.stats.nstages != 3 || !res.stats.backend || strncmp(res.stats.backend, "gpu: ", 5) != 0) {
        ok = 0;
        snprintf(why, sizeof why, "stats: %d stages, backend '%s'", res.stats.nstages,
                 res.stats.backend ? res.stats.backend : "(null)");
    }
    CHECK(ok, name, "%s (chunk used %zu, depth %d)", why, res.chunk_used, res.depth);
    free(res.vals);
out:
    free(ref);
    free(in);
}

static data_kind kind_for(const gs_job *j)
{
    if (j->op == GS_OP_SCAN) return j->scan.op == GS_SCAN_SUM ? D_SUM : D_SMALL;
    return D_SMALL_NAN;
}

static const gs_type all_types[] = {GS_I32, GS_I64, GS_U32, GS_U64, GS_F32, GS_F64};

/* Every op and parameter set on one type, with the given run configuration. */
static void ops_on_type(gs_type t, size_t n, const run_cfg *rc)
{
    gs_job j;
    for (int op = GS_SCAN_SUM; op <= GS_SCAN_MAX; op++)
        for (int ex = 0; ex <= 1; ex++) {
            j = job_scan(t, (gs_scan_op)op, ex, t);
            check_direct("", &j, NULL, t, n, kind_for(&j), rc);
        }
    if (t == GS_I32 || t == GS_U32 || t == GS_F32) {
        gs_type w = t == GS_I32 ? GS_I64 : t == GS_U32 ? GS_U64 : GS_F64;
        j = job_scan(t, GS_SCAN_SUM, 0, w);
        check_direct("", &j, NULL, t, n, kind_for(&j), rc);
        j = job_scan(t, GS_SCAN_MAX, 1, w);
        check_direct("", &j, NULL, t, n, kind_for(&j), rc);
    }
    j = job_compact(t, GS_PRED_NONZERO, 0, 0, 0, 0);
    check_direct("", &j, NULL, t, n, D_SMALL_NAN, rc);
    j = job_compact(t, GS_PRED_GT, 3, 0, 1, 0);
    check_direct("", &j, NULL, t, n, D_SMALL_NAN, rc);
    j = job_compact(t, GS_PRED_EQ, 0, 0, 0, 1);
    check_direct("", &j, NULL, t, n, D_SMALL_NAN, rc);
    j = job_compact(t, GS_PRED_RANGE, -5, 5, 0, 0);
    check_direct("", &j, NULL, t, n, D_SMALL_NAN, rc);
    j = job_compact(t, GS_PRED_NE, 1, 0, 1, 1);
    check_direct("", &j, NULL, t, n, D_SMALL_NAN, rc);
    j = job_compact(t, GS_PRED_GE, 2, 0, 0, 0);
    j.count_only = 1;
    check_direct("", &j, NULL, t, n, D_SMALL_NAN, rc);
    if (gs_type_is_float(t)) {
        j = job_compact(t, GS_PRED_NAN, 0, 0, 0, 1);
        check_direct("", &j, NULL, t, n, D_SMALL_NAN, rc);
        j = job_compact(t, GS_PRED_FINITE, 0, 0, 0, 0);
        check_direct("", &j, NULL, t, n, D_SMALL_NAN, rc);
    }
    static const uint64_t ws[] = {1, 2, 37, 5000};
    for (size_t w = 0; w < sizeof ws / sizeof ws[0]; w++)
        for (int partial = 0; partial <= 1; partial++) {
            j = job_minmax(t, ws[w], partial, GS_MM_BOTH);
            check_direct("", &j, NULL, t, n, D_SMALL_NAN, rc);
        }
    j = job_minmax(t, 100, 0, GS_MM_MIN);
    check_direct("", &j, NULL, t, n, D_SMALL_NAN, rc);
    j = job_minmax(t, 100, 1, GS_MM_MAX);
    check_direct("", &j, NULL, t, n, D_SMALL_NAN, rc);
}

/* A few representative jobs for the memory-mode matrix. */
static void representative(size_t n, const run_cfg *rc)
{
    gs_job j;
    j = job_scan(GS_I32, GS_SCAN_SUM, 1, GS_I32);
    check_direct("", &j, NULL, GS_I32, n, D_SUM, rc);
    j = job_scan(GS_F32, GS_SCAN_SUM, 0, GS_F32);
    check_direct("", &j, NULL, GS_F32, n, D_SUM, rc);
    j = job_compact(GS_I32, GS_PRED_NONZERO, 0, 0, 0, 0);
    check_direct("", &j, NULL, GS_I32, n, D_SMALL_NAN, rc);
    j = job_compact(GS_F64, GS_PRED_GT, 0, 0, 0, 1);
    check_direct("", &j, NULL, GS_F64, n, D_SMALL_NAN, rc);
    j = job_compact(GS_U32, GS_PRED_LT, 7, 0, 0, 0);
    j.count_only = 1;
    check_direct("", &j, NULL, GS_U32, n, D_SMALL_NAN, rc);
    j = job_minmax(GS_F32, 37, 0, GS_MM_BOTH);
    check_direct("", &j, NULL, GS_F32, n, D_SMALL_NAN, rc);
    j = job_minmax(GS_I64, 5000, 1, GS_MM_BOTH); /* W > chunk: the halo spans several chunks */
    check_direct("", &j, NULL, GS_I64, n, D_SMALL_NAN, rc);
}

static void part_direct(void)
{
    run_cfg rc;
    const size_t n = 100003;

    /* every op x type: pinned, double buffering, random chunk sizes up to 4096 (W=5000 > chunk) */
    memset(&rc, 0, sizeof rc);
    rc.hm = GS_HOST_PINNED;
    rc.buffers = 2;
    rc.da = GS_DEV_ONCE;
    rc.chunk = 4096;
    rc.random_chunks = 1;
    for (size_t i = 0; i < sizeof all_types / sizeof all_types[0]; i++) ops_on_type(all_types[i], n, &rc);

    /* host-mem x buffers x device-alloc */
    for (int hm = 0; hm < 4; hm++)
        for (int bufs = 1; bufs <= 3; bufs++)
            for (int da = 0; da < 3; da++) {
                memset(&rc, 0, sizeof rc);
                rc.hm = (gs_host_mem)hm;
                rc.buffers = bufs;
                rc.da = (gs_dev_alloc)da;
                rc.chunk = 4099;
                representative(n, &rc);
            }

    /* chunk sizes: 1, 7, 1000, 65536, larger than n; sizes 0, 1, 2, 999 */
    {
        static const size_t chunks[] = {1, 7, 1000, 65536, 1u << 20};
        static const size_t sizes[] = {0, 1, 2, 999};
        memset(&rc, 0, sizeof rc);
        rc.hm = GS_HOST_PINNED;
        rc.buffers = 3;
        rc.da = GS_DEV_ONCE;
        for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
            rc.chunk = chunks[c];
            representative(chunks[c] < 1000 ? 2999 : n, &rc);
        }
        rc.chunk = 64;
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) representative(sizes[s], &rc);
    }

    /* --device-mem-limit forces a smaller chunk than asked: many chunks, peak under the limit */
    {
        gs_job j;
        memset(&rc, 0, sizeof rc);
        rc.hm = GS_HOST_PINNED;
        rc.buffers = 2;
        rc.chunk = 1u << 20;
        rc.limit = 512u << 10;
        for (int da = 0; da < 3; da++) {
            rc.da = (gs_dev_alloc)da;
            representative(300007, &rc);
        }
        rc.da = GS_DEV_ONCE;
        rc.hm = GS_HOST_MAPPED;
        representative(300007, &rc);

        /* the chunk really was lowered */
        gs_status st;
        drive_out res;
        void *in = gen(GS_I32, 1000, D_SUM, 5);
        rc.hm = GS_HOST_PINNED;
        j = job_scan(GS_I32, GS_SCAN_SUM, 0, GS_I32);
        memset(&st, 0, sizeof st);
        int r = drive_gpu(&j, NULL, GS_I32, in, 1000, &rc, &res, &st);
        CHECK(r == 0 && res.chunk_used < rc.chunk && res.stats.peak_device_mem <= rc.limit, "gpu/mem-limit/chunk-lowered",
              "rc %d (%s), chunk %zu of %zu asked, peak %llu", r, st.msg, res.chunk_used, rc.chunk,
              (unsigned long long)res.stats.peak_device_mem);
        free(res.vals);

        /* a limit too small for anything: GS_ENOMEM that names the option */
        rc.limit = 1000;
        memset(&st, 0, sizeof st);
        r = drive_gpu(&j, NULL, GS_I32, in, 1000, &rc, &res, &st);
        CHECK(r == GS_ENOMEM && strstr(st.msg, "--device-mem-limit"), "gpu/mem-limit/too-small",
              "rc %d: %s", r, st.msg);
        if (r == 0) free(res.vals);

        /* minmax whose halo alone passes the limit */
        j = job_minmax(GS_F64, 1000000, 0, GS_MM_BOTH);
        rc.limit = 1u << 20;
        memset(&st, 0, sizeof st);
        void *inf = gen(GS_F64, 1000, D_SMALL, 5);
        r = drive_gpu(&j, NULL, GS_F64, inf, 1000, &rc, &res, &st);
        CHECK(r == GS_ENOMEM && strstr(st.msg, "--device-mem-limit"), "gpu/mem-limit/halo-too-large",
              "rc %d: %s", r, st.msg);
        if (r == 0) free(res.vals);
        free(inf);
        free(in);
    }

    /* every GPU variant through the streaming path */
    {
        size_t nv = 0;
        const gs_variant *vs = gs_variants(&nv);
        memset(&rc, 0, sizeof rc);
        rc.hm = GS_HOST_PINNED;
        rc.buffers = 2;
        rc.da = GS_DEV_ONCE;
        rc.chunk = 5000;
        rc.random_chunks = 1;
        for (size_t i = 0; i < nv; i++) {
            const gs_variant *v = &vs[i];
            gs_status st;
            if (v->where != GS_GPU || v->op == GS_OP_ROLLING) continue; /* rolling: tests/gpu/test_rolling_gpu.sh */
            for (int ti = 0; ti < 2; ti++) {
                gs_type t = ti ? GS_F64 : GS_I32;
                gs_job js[3];
                int nj = 0;
                if (v->op == GS_OP_SCAN) {
                    js[nj++] = job_scan(t, GS_SCAN_SUM, 0, t);
                    js[nj++] = job_scan(t, GS_SCAN_MIN, 1, t);
                } else if (v->op == GS_OP_COMPACT) {
                    js[nj++] = job_compact(t, GS_PRED_NONZERO, 0, 0, 0, 0);
                    js[nj++] = job_compact(t, GS_PRED_RANGE, -3, 3, 1, 1);
                } else {
                    js[nj++] = job_minmax(t, 37, 0, GS_MM_BOTH);
                    js[nj++] = job_minmax(t, 7001, 1, GS_MM_BOTH);
                }
                for (int k = 0; k < nj; k++) {
                    memset(&st, 0, sizeof st);
                    int ok = js[k].op == GS_OP_SCAN      ? gs_variant_check_scan(v, &js[k].scan, &st)
                             : js[k].op == GS_OP_COMPACT ? gs_variant_check_compact(v, &js[k].compact, &st)
                                                         : gs_variant_check_minmax(v, &js[k].minmax, &st);
                    if (ok != GS_OK) continue; /* this variant does not take these parameters */
                    check_direct("", &js[k], v, t, 60013, kind_for(&js[k]), &rc);
                }
            }
        }
    }
}

/* ---- part 2: through gs_engine_run, GPU against CPU ----------------------------------------- */

typedef struct mem_src {
    const char *data;
    size_t n, pos, isz;
} mem_src;

static int mem_read(void *ctx, void *buf, size_t cap, size_t *got, gs_status *st)
{
    mem_src *m = ctx;
    size_t k = m->n - m->pos < cap ? m->n - m->pos : cap;
    (void)st;
    if (k > 12345) k = 12345; /* short reads, as from a pipe */
    memcpy(buf, m->data + m->pos * m->isz, k * m->isz);
    m->pos += k;
    *got = k;
    return GS_OK;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *p = NULL;
    long sz;
    *len = 0;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (sz = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        p = malloc((size_t)sz + 1);
        if (p && fread(p, 1, (size_t)sz, f) == (size_t)sz) *len = (size_t)sz;
        else {
            free(p);
            p = NULL;
        }
    }
    fclose(f);
    return p;
}

/* Run the engine; the raw output comes back in *out (malloc'd, *len bytes). */
static int engine_run(const gs_job *j, gs_backend_kind bk, const run_cfg *rc, gs_type t, const void *in, size_t n,
                      char **out, size_t *len, uint64_t *count, gs_run_stats *stats, gs_status *st)
{
    gs_engine_opts o;
    gs_source src;
    mem_src ms = {in, n, 0, gs_type_size(t)};
    gs_writer *w = NULL;
    gs_write_opts wo;
    char path[256];
    const char *tmp = getenv("TMPDIR");
    int fd, ret;

    *out = NULL;
    *len = 0;
    o = engine_opts(bk, rc, gs_type_size(t));
    memset(&src, 0, sizeof src);
    src.read = mem_read;
    src.ctx = &ms;
    src.type = t;
    src.count = (int64_t)n;
    memset(stats, 0, sizeof *stats);

    snprintf(path, sizeof path, "%s/gs_test_stream_gpu_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if ((fd = mkstemp(path)) < 0) return gs_fail_errno(st, errno, "mkstemp %s", path);
    close(fd);
    if (!j->count_only) {
        memset(&wo, 0, sizeof wo);
        wo.format = GS_FMT_RAW;
        wo.type = gs_job_out_type(j, t);
        wo.ncols = gs_job_out_cols(j);
        wo.rows = -1;
        wo.force = 1;
        if ((ret = gs_writer_open(&w, path, &wo, st))) {
            unlink(path);
            return ret;
        }
    }
    ret = gs_engine_run(j, &o, &src, w, count, stats, st);
    if (w) {
        if (ret) gs_writer_abort(w);
        else ret = gs_writer_close(w, st);
    }
    if (!ret && !j->count_only) {
        *out = read_file(path, len);
        if (!*out && n) ret = gs_fail(st, GS_EDATA, "cannot read back %s", path);
    }
    unlink(path);
    return ret;
}

static void check_engine(const gs_job *j, gs_type t, size_t n, const run_cfg *rc)
{
    char name[320], lab[160], why[256] = "";
    gs_status st;
    gs_run_stats sg, sc;
    char *og = NULL, *oc = NULL;
    size_t lg = 0, lc = 0;
    uint64_t cg = 0, cc = 0;
    void *in;
    int ok = 1;
    job_label(j, t, lab, sizeof lab);
    snprintf(name, sizeof name, "engine/%s/n%zu/%s/b%d/%s/chunk%zu%s", lab, n, hm_name[rc->hm], rc->buffers,
             da_name[rc->da], rc->chunk, rc->limit ? "/limited" : "");
    in = gen(t, n, kind_for(j), n * 17 + (uint64_t)t);
    memset(&st, 0, sizeof st);
    if (engine_run(j, GS_BACKEND_GPU, rc, t, in, n, &og, &lg, &cg, &sg, &st)) {
        CHECK(0, name, "gpu: %s", st.msg);
        goto out;
    }
    memset(&st, 0, sizeof st);
    if (engine_run(j, GS_BACKEND_CPU, rc, t, in, n, &oc, &lc, &cc, &sc, &st)) {
        CHECK(0, name, "cpu: %s", st.msg);
        goto out;
    }
    if (!sg.backend || strncmp(sg.backend, "gpu", 3) != 0) {
        ok = 0;
        snprintf(why, sizeof why, "ran on '%s', not the GPU", sg.backend ? sg.backend : "(null)");
    } else if (cg != cc) {
        ok = 0;
        snprintf(why, sizeof why, "count %llu, cpu backend %llu", (unsigned long long)cg, (unsigned long long)cc);
    } else if (lg != lc) {
        ok = 0;
        snprintf(why, sizeof why, "%zu output bytes, cpu backend %zu", lg, lc);
    } else if (lg) {
        size_t nvals = lg / gs_type_size(gs_job_out_type(j, t));
        long long at = compare(j, t, in, og, oc, nvals, why, sizeof why);
        if (at >= 0) {
            /* which one is wrong? the sequential reference says */
            void *ref = NULL;
            size_t nref = 0;
            gs_status rs;
            memset(&rs, 0, sizeof rs);
            ok = 0;
            if (!reference(j, t, in, n, &ref, &nref, &rs) && nref == nvals) {
                char w2[64];
                int gpu_ok = compare(j, t, in, og, ref, nvals, w2, sizeof w2) < 0;
                int cpu_ok = compare(j, t, in, oc, ref, nvals, w2, sizeof w2) < 0;
                size_t l = strlen(why);
                snprintf(why + l, sizeof why - l, " (gpu %s, cpu %s the reference)", gpu_ok ? "matches" : "differs from",
                         cpu_ok ? "matches" : "differs from");
            }
            free(ref);
        }
    }
    CHECK(ok, name, "%s", why);
out:
    free(og);
    free(oc);
    free(in);
}

static void part_engine(void)
{
    run_cfg rc;
    const size_t n = 300007;
    gs_job j;
    memset(&rc, 0, sizeof rc);
    rc.hm = GS_HOST_PINNED;
    rc.buffers = 2;
    rc.da = GS_DEV_ONCE;
    rc.chunk = 16384;
    for (size_t i = 0; i < sizeof all_types / sizeof all_types[0]; i++) {
        gs_type t = all_types[i];
        j = job_scan(t, GS_SCAN_SUM, 0, t);
        check_engine(&j, t, n, &rc);
        j = job_scan(t, GS_SCAN_MAX, 1, t);
        check_engine(&j, t, n, &rc);
        j = job_compact(t, GS_PRED_GT, 0, 0, 0, 0);
        check_engine(&j, t, n, &rc);
        j = job_compact(t, GS_PRED_NONZERO, 0, 0, 1, 1);
        check_engine(&j, t, n, &rc);
        j = job_compact(t, GS_PRED_LE, 2, 0, 0, 0);
        j.count_only = 1;
        check_engine(&j, t, n, &rc);
        j = job_minmax(t, 501, 0, GS_MM_BOTH);
        check_engine(&j, t, n, &rc);
        j = job_minmax(t, 40000, 1, GS_MM_BOTH); /* W > chunk */
        check_engine(&j, t, n, &rc);
    }
    for (int hm = 0; hm < 4; hm++)
        for (int bufs = 1; bufs <= 3; bufs++) {
            rc.hm = (gs_host_mem)hm;
            rc.buffers = bufs;
            rc.da = (gs_dev_alloc)((hm + bufs) % 3);
            j = job_scan(GS_I32, GS_SCAN_SUM, 0, GS_I64);
            check_engine(&j, GS_I32, n, &rc);
            j = job_compact(GS_F32, GS_PRED_RANGE, -2, 2, 0, 0);
            check_engine(&j, GS_F32, n, &rc);
            j = job_minmax(GS_U64, 1234, bufs == 2, GS_MM_BOTH);
            check_engine(&j, GS_U64, n, &rc);
        }
    /* a run that starts inside a longer stream (an MPI rank's shard): the scan carry on entry and
     * compact's index base reach the GPU kernels through the backend's carry_init hooks; the CPU
     * backend (checked against whole-file runs by tests/cli/test_mpi.sh) gives the same */
    j = job_scan(GS_I64, GS_SCAN_SUM, 0, GS_I64);
    j.has_carry = 1;
    j.carry.i64 = -123456789012345;
    check_engine(&j, GS_I64, n, &rc);
    j = job_scan(GS_I32, GS_SCAN_SUM, 1, GS_I64);
    j.has_carry = 1;
    j.carry.i64 = 4000000000;
    check_engine(&j, GS_I32, n, &rc);
    j = job_scan(GS_F32, GS_SCAN_MAX, 1, GS_F32);
    j.has_carry = 1;
    j.carry.f32 = 0.5f;
    check_engine(&j, GS_F32, n, &rc);
    j = job_compact(GS_U32, GS_PRED_NONZERO, 0, 0, 0, 1);
    j.index_base = 1000000000007ull;
    check_engine(&j, GS_U32, n, &rc);
    /* larger than the device memory we allow: many times --device-mem-limit */
    rc.hm = GS_HOST_PINNED;
    rc.buffers = 2;
    rc.da = GS_DEV_ONCE;
    rc.chunk = 1u << 20;
    rc.limit = 1u << 20;
    j = job_scan(GS_F64, GS_SCAN_SUM, 0, GS_F64);
    check_engine(&j, GS_F64, 2000003, &rc);
    j = job_compact(GS_I64, GS_PRED_NONZERO, 0, 0, 0, 1);
    check_engine(&j, GS_I64, 2000003, &rc);
    j = job_minmax(GS_F32, 3000, 0, GS_MM_BOTH);
    check_engine(&j, GS_F32, 2000003, &rc);
}

int main(void)
{
    char desc[256], *list;
    const char *d = getenv("GS_TEST_DEVICE");
    g_dev = d ? atoi(d) : 0;
    if (!gs_gpu_available(g_dev, desc, sizeof desc)) {
        printf("# no usable GPU %d (%s): GPU streaming tests skipped\n", g_dev, desc);
        return CHECK_DONE();
    }
    printf("# %s\n", desc);
    list = malloc(8192);
    int nd = gs_gpu_describe(list, 8192);
    CHECK(nd > g_dev && strlen(list) > 0 && list[strlen(list) - 1] == '\n', "gpu/describe", "%d devices, '%s'", nd, list);
    free(list);
    CHECK(!gs_gpu_available(nd + 5, desc, sizeof desc), "gpu/available/absent-device", "device %d reported usable", nd + 5);

    part_direct();
    part_engine();
    return CHECK_DONE();
}
