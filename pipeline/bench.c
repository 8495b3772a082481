/* bench.c - the host half of `gpustream bench`: builds the cases, generates inputs (never all
 * zeros), computes the CPU reference once per case, times every selected variant, verifies its
 * output, and reports rows through a callback (the CLI prints them and writes CSV/JSON).
 * Device timing lives in bench_gpu.cu; stream mode drives a backend directly from filled
 * staging buffers so it measures the schedule, not a file or a pipe. bench --zstd and
 * bench --chain live in bench_zstd_chain.c. */
#include "bench.h"
#include "../common/pool.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double gs_bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n ? v[n / 2] : 0;
}

static int algo_selected(const gs_bench_opts *o, const char *name)
{
    if (!o->algos || !strcmp(o->algos, "all")) return 1;
    size_t len = strlen(name);
    for (const char *p = o->algos; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == len && !strncmp(p, name, len)) return 1;
        p += l + (e ? 1 : 0);
    }
    return 0;
}

int gs_bench_gen_fill(const gs_gen_opts *g, void *buf, gs_status *st)
{
    gs_source s;
    int rc = gs_gen_source(&s, g, st);
    if (rc) return rc;
    uint64_t done = 0;
    while (done < g->n && !rc) {
        size_t got = 0;
        rc = s.read(s.ctx, (char *)buf + done * gs_type_size(g->type), (size_t)(g->n - done), &got, st);
        done += got;
        if (!got) break;
    }
    gs_gen_source_free(&s);
    return rc;
}

int gs_bench_make_input(gs_op op, gs_type t, uint64_t n, double density, void *buf, gs_status *st)
{
    gs_gen_opts g = {n, t, GS_DIST_UNIFORM, 0, 100, 12345};
    if (op == GS_OP_COMPACT) {
        g.dist = GS_DIST_SPARSE;
        g.a = density;
    } else if (op == GS_OP_MINMAX)
        g.dist = GS_DIST_WALK;
    else if (gs_type_is_float(t)) {
        g.a = -1;
        g.b = 1;
    }
    return gs_bench_gen_fill(&g, buf, st);
}

/* Compare a variant's output with the reference. Integer outputs and float min/max must be
 * bit-identical (any NaN equals any NaN); float sums may differ by reassociation, bounded by
 * a tolerance on the running sum of magnitudes. */
static int outputs_match(const gs_job *j, gs_type t, const void *in, uint64_t n, const void *ref, uint64_t ref_n,
                         const void *got, uint64_t got_n, char *why, size_t wlen)
{
    if (ref_n != got_n) {
        snprintf(why, wlen, "%llu values, reference has %llu", (unsigned long long)got_n, (unsigned long long)ref_n);
        return 0;
    }
    int float_sum = j->op == GS_OP_SCAN && j->scan.op == GS_SCAN_SUM && gs_type_is_float(t);
    if (!float_sum) {
        size_t es = gs_type_size(t);
        const unsigned char *a = ref, *b = got;
        for (uint64_t i = 0; i < ref_n; i++) {
            if (memcmp(a + i * es, b + i * es, es)) {
                int both_nan = 0;
                if (t == GS_F32) both_nan = isnan(((const float *)ref)[i]) && isnan(((const float *)got)[i]);
                if (t == GS_F64) both_nan = isnan(((const double *)ref)[i]) && isnan(((const double *)got)[i]);
                if (!both_nan) {
                    snprintf(why, wlen, "first difference at %llu", (unsigned long long)i);
                    return 0;
                }
            }
        }
        return 1;
    }
    double mag = 0;
    for (uint64_t i = 0; i < n; i++) {
        double x = t == GS_F32 ? ((const float *)in)[i] : ((const double *)in)[i];
        double r = t == GS_F32 ? ((const float *)ref)[i] : ((const double *)ref)[i];
        double g = t == GS_F32 ? ((const float *)got)[i] : ((const double *)got)[i];
        mag += fabs(x);
        double tol = (t == GS_F32 ? 1e-5 : 1e-12) * (mag + 1);
        if (!(fabs(r - g) <= tol) && !(isnan(r) && isnan(g))) {
            snprintf(why, wlen, "element %llu: %g vs reference %g", (unsigned long long)i, g, r);
            return 0;
        }
    }
    return 1;
}

/* One whole-array call of a CPU variant (identity carry, no halo); *out_n values. */
static int run_cpu(const gs_variant *v, const gs_job *j, const void *in, uint64_t n, void *out, uint64_t *out_n,
                   gs_status *st)
{
    switch (j->op) {
    case GS_OP_SCAN: {
        gs_value carry;
        gs_scan_identity(j->scan.op, j->scan.out_type, &carry);
        *out_n = n;
        return v->cpu.scan(&j->scan, in, out, (size_t)n, &carry, st);
    }
    case GS_OP_COMPACT: {
        size_t kept = 0;
        int rc = v->cpu.compact(&j->compact, in, (size_t)n, out, 0, &kept, st);
        *out_n = kept;
        return rc;
    }
    default: {
        uint64_t w1 = j->minmax.window - 1;
        *out_n = n > w1 ? (n - w1) * (uint64_t)gs_job_out_cols(j) : 0;
        if (!*out_n) return GS_OK;
        return v->cpu.minmax(&j->minmax, in, (size_t)n, (size_t)w1, out, st);
    }
    }
}

static uint64_t bytes_moved(const gs_job *j, gs_type t, uint64_t n, uint64_t out_n)
{
    size_t es = gs_type_size(t);
    size_t os = j->op == GS_OP_SCAN ? gs_type_size(j->scan.out_type) : j->op == GS_OP_COMPACT && j->compact.indices ? 8 : es;
    if (j->op == GS_OP_MINMAX && j->minmax.nagg) os = gs_type_size(j->minmax.out_type);
    return n * es + out_n * os;
}

/* The reference for a case: the CPU reference variant, except minmax with windows over 16, where
 * the O(nW) naive variant would take hours on long ones: there cpu-lemire (O(1) amortized, one
 * thread), which the unit tests check against naive on every window shape. Rolling's reference is
 * cpu-sweep: its states in its order without the vector lanes, so the lanes (cpu-vhgw) and the GPU
 * are checked byte for byte against code they do not share. */
static const gs_variant *reference_for(const gs_job *j)
{
    if (j->op == GS_OP_SCAN) return gs_variant_find(GS_OP_SCAN, "cpu");
    if (j->op == GS_OP_COMPACT) return gs_variant_find(GS_OP_COMPACT, "cpu");
    if (j->minmax.nagg) return gs_variant_find(GS_OP_ROLLING, "cpu-sweep"); /* every variant gives its bits */
    return gs_variant_find(GS_OP_MINMAX, j->minmax.window <= 16 ? "cpu-naive" : "cpu-lemire");
}

int gs_bench_plan(const gs_bench_opts *o, int use_gpu, const gs_variant *v, int blocks[GS_BENCH_MAXBLOCKS])
{
    if (!(o->ops & (1u << v->op)) || (v->where == GS_GPU) != (use_gpu != 0)) return 0;
    if (!algo_selected(o, v->name) && strcmp(v->name, "cub")) return 0;
    int k = 0;
    if (v->where == GS_GPU)
        for (int i = 0; i < o->nblocks; i++)
            if (gs_variant_block_ok(v, o->blocks[i])) blocks[k++] = o->blocks[i];
    if (!k) blocks[k++] = 0;
    return k;
}

/* The job with the params' block of its op set. */
static gs_job with_block(const gs_job *j, int block)
{
    gs_job b = *j;
    b.scan.block = b.compact.block = b.minmax.block = block;
    return b;
}

void gs_bench_new_row(gs_bench_row *row, const char *mode, const char *op, const char *variant, gs_type t,
                      uint64_t n, const char *param, int block)
{
    memset(row, 0, sizeof *row);
    row->mode = mode;
    row->op = op;
    row->variant = variant;
    row->type = t;
    row->n = n;
    row->block = block;
    snprintf(row->param, sizeof row->param, "%s", param);
}

typedef struct case_ctx {
    const gs_bench_opts *o;
    const gs_bench_env *env;
    gs_bench_cb cb;
    void *cb_ctx;
    int use_gpu;
} case_ctx;

/* Verify a timed row against the reference and fill its rates. A failed run (rc) makes a FAILED
 * row, not a failed bench; the reference's own row is marked so, having nothing else to match
 * (GS_BENCH_REFERENCE). Returns GS_OK. */
static int check_row(const case_ctx *c, gs_bench_row *row, const gs_job *j, gs_type t, const void *in, uint64_t n,
                     const void *ref, uint64_t ref_n, const void *out, uint64_t out_n, int rc, const gs_status *vst,
                     int is_ref)
{
    if (rc) {
        row->passed = 0;
        snprintf(row->why, sizeof row->why, "%s", vst->msg);
    } else if (is_ref)
        row->passed = GS_BENCH_REFERENCE;
    else
        row->passed = outputs_match(j, j->op == GS_OP_SCAN ? j->scan.out_type : j->op == GS_OP_MINMAX && j->minmax.nagg ? j->minmax.out_type : t, in, n, ref, ref_n, out, out_n,
                                    row->why, sizeof row->why);
    if (row->ms > 0) {
        row->gelem_s = n / row->ms / 1e6;
        row->gb_s = bytes_moved(j, t, n, out_n) / row->ms / 1e6;
        if (!strcmp(row->mode, "device") && c->env->copy_gbs > 0) row->pct_ceiling = 100 * row->gb_s / c->env->copy_gbs;
    }
    return GS_OK;
}

int gs_bench_plain_cub_applies(const gs_job *j, uint64_t n)
{
    if (n > (uint64_t)INT32_MAX) return 0;
    if (j->op == GS_OP_SCAN) return !j->scan.exclusive && j->scan.out_type == j->scan.type;
    return j->op == GS_OP_COMPACT && j->compact.pred == GS_PRED_NONZERO && !j->compact.invert && !j->compact.indices;
}

static int run_case(case_ctx *c, gs_job *j, gs_type t, uint64_t n, double density, const char *param, gs_status *st)
{
    size_t es = gs_type_size(t);
    size_t os = 8; /* room for any output type */
    size_t in_bytes, out_bytes, out_cap;
    /* Sizes the machine cannot address are refused before anything is allocated or filled. */
    if (gs_mul_size(n, j->op == GS_OP_MINMAX ? (size_t)gs_job_out_cols(j) : 1, &out_cap) || gs_mul_size(n, es, &in_bytes) ||
        gs_add_size(in_bytes, 64, &in_bytes) || gs_mul_size(out_cap, os, &out_bytes) ||
        gs_add_size(out_bytes, 64, &out_bytes))
        return gs_fail(st, GS_ENOMEM, "bench: out of host memory for n = %llu", (unsigned long long)n);
    void *in = malloc(in_bytes), *ref = malloc(out_bytes), *out = malloc(out_bytes);
    if (!in || !ref || !out) {
        free(in), free(ref), free(out);
        return gs_fail(st, GS_ENOMEM, "bench: out of host memory for n = %llu", (unsigned long long)n);
    }
    int rc = gs_bench_make_input(j->op, t, n, density, in, st);
    uint64_t ref_n = 0;
    const gs_variant *refv = reference_for(j);
    if (!rc) rc = run_cpu(refv, j, in, n, ref, &ref_n, st);
    if (rc) goto done;

    size_t nv;
    const gs_variant *vs = gs_variants(&nv);
    double cub_ms = 0;
    /* The plain CUB call first, so every other row can say how it compares. */
    if (c->use_gpu && gs_bench_plain_cub_applies(j, n)) {
        gs_bench_row row;
        uint64_t out_n = 0;
        gs_status vst = {0};
        gs_bench_new_row(&row, "device", gs_op_name(j->op), GS_BENCH_PLAIN_CUB, t, n, param, 0);
        memset(out, 0xA5, out_cap * os);
        rc = gs_bench_gpu_plain_cub(c->o->device, j, in, n, c->o->reps > 0 ? c->o->reps : 10, &row.ms, out, &out_n, &vst);
        rc = check_row(c, &row, j, t, in, n, ref, ref_n, out, out_n, rc, &vst, 0);
        cub_ms = row.passed ? row.ms : 0;
        row.vs_cub = cub_ms > 0 ? 1 : 0;
        c->cb(c->cb_ctx, &row);
    }
    /* cub first among the variants (it runs whatever --algo says). */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < nv; i++) {
            const gs_variant *v = &vs[i];
            int blocks[GS_BENCH_MAXBLOCKS];
            const gs_op vop = gs_job_variant_op(j); /* its rows */
            const int nblocks = v->op == vop ? gs_bench_plan(c->o, c->use_gpu, v, blocks) : 0;
            if (!nblocks || (pass == 0) != !strcmp(v->name, "cub")) continue;
            if (!(v->types & GS_TYPE_BIT(t))) continue;
            /* The O(nW) teaching variants would take minutes on long windows. */
            if (j->op == GS_OP_MINMAX && ((j->minmax.window > 512 && !strcmp(v->name, "cpu-naive")) ||
                                          (j->minmax.window > 4096 && !strcmp(v->name, "linear"))))
                continue;
            for (int bi = 0; bi < nblocks; bi++) {
                const gs_job jb = with_block(j, blocks[bi]);
                gs_bench_row row;
                gs_bench_new_row(&row, v->where == GS_GPU ? "device" : "cpu", gs_job_name(j), v->name, t, n,
                                 param,
                                 j->op == GS_OP_MINMAX ? gs_variant_block_minmax(v, blocks[bi], &j->minmax)
                                                       : gs_variant_block(v, blocks[bi]));
                uint64_t out_n = 0;
                gs_status vst = {0};
                int reps = c->o->reps > 0 ? c->o->reps : 10;
                memset(out, 0xA5, out_cap * os); /* poison: unwritten outputs cannot pass */
                if (v->where == GS_GPU) {
                    rc = gs_bench_gpu_variant(c->o->device, v, &jb, in, n, reps, &row.ms, out, &out_n, &vst);
                } else {
                    double *ts = malloc(sizeof(double) * (size_t)(reps + 1));
                    rc = run_cpu(v, &jb, in, n, out, &out_n, &vst); /* warm-up */
                    for (int r = 0; r < reps && !rc && ts; r++) {
                        double t0 = gs_now();
                        rc = run_cpu(v, &jb, in, n, out, &out_n, &vst);
                        ts[r] = (gs_now() - t0) * 1e3;
                    }
                    row.ms = ts && !rc ? gs_bench_median(ts, reps) : 0;
                    free(ts);
                }
                rc = check_row(c, &row, j, t, in, n, ref, ref_n, out, out_n, rc, &vst, v == refv);
                row.vs_cub = (cub_ms > 0 && row.ms > 0) ? cub_ms / row.ms : 0;
                c->cb(c->cb_ctx, &row);
            }
        }
    }
done:
    free(in);
    free(ref);
    free(out);
    return rc;
}

/* Stream mode: chunks filled once, then submitted round-robin for `total` elements. */
static int run_stream(case_ctx *c, gs_job *j, gs_type t, uint64_t total, gs_host_mem hm, int buffers, gs_dev_alloc da,
                      gs_status *st)
{
    gs_engine_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.backend = GS_BACKEND_GPU;
    eo.device = c->o->device;
    eo.buffers = buffers;
    eo.host_mem = hm;
    eo.dev_alloc = da;
    eo.chunk_bytes = c->o->chunk_bytes ? c->o->chunk_bytes : GS_CHUNK_DEFAULT;
    size_t es = gs_type_size(t);
    gs_type ot = gs_job_out_type(j, t);
    size_t chunk = eo.chunk_bytes / es;
    const gs_variant *v = NULL;
    int rc = gs_job_resolve(j, c->use_gpu ? GS_GPU : GS_CPU, 0, &v, st);
    if (rc) return rc;
    gs_backend_cfg cfg = {j, v, t, ot, chunk, 0, chunk, &eo, NULL, NULL, NULL, 0, 0, 0};
    gs_backend *b = NULL;
    rc = c->use_gpu ? gs_backend_gpu_create(&b, &cfg, st) : gs_backend_cpu_create(&b, &cfg, st);
    if (rc) return rc;
    if (b->chunk_elems && b->chunk_elems < chunk) chunk = b->chunk_elems;
    int nch = b->depth + 2;
    gs_chunk ins[18], outs[18];
    memset(ins, 0, sizeof ins);
    memset(outs, 0, sizeof outs);
    if (nch > 18) nch = 18;
    for (int i = 0; i < nch && !rc; i++) {
        ins[i].buf = ins[i].data = b->host_alloc(b, chunk * es, st);
        outs[i].buf = outs[i].data = b->host_alloc(b, chunk * gs_type_size(ot), st);
        ins[i].cap = outs[i].cap = chunk;
        if (!ins[i].buf || !outs[i].buf) rc = st->code ? st->code : GS_ENOMEM;
        else rc = gs_bench_make_input(j->op, t, chunk, 0.5, ins[i].data, st);
        ins[i].n = chunk;
    }
    /* A CPU backend on the same chunk sequence checks the result: the sum over every output
     * value's bits must agree (integers; the stream benches use i32 and u32). */
    uint64_t gpu_sig = 0, cpu_sig = 0, chunks_total = total / chunk + (total % chunk != 0);
    double t0 = 0, wall = 0;
    for (int pass = 0; pass < 2 && !rc; pass++) {
        gs_backend *bb = b;
        if (pass == 1) {
            const gs_variant *cv = NULL;
            rc = gs_job_resolve(j, GS_CPU, 0, &cv, st);
            gs_backend_cfg cc = cfg;
            cc.variant = cv;
            if (!rc) rc = gs_backend_cpu_create(&bb, &cc, st);
            if (rc) break;
        }
        uint64_t *sig = pass ? &cpu_sig : &gpu_sig;
        int inflight = 0;
        uint64_t next = 0;
        t0 = gs_now();
        while ((next < chunks_total || inflight) && !rc) {
            if (inflight == bb->depth || next == chunks_total) {
                gs_chunk *ri, *ro;
                rc = bb->retire(bb, &ri, &ro, st);
                if (rc) break;
                inflight--;
                const uint32_t *w = ro->data;
                size_t words = ro->n * gs_type_size(ot) / 4;
                for (size_t k = 0; k < words; k += 4099) *sig += w[k] * (k + 1); /* sampled signature */
                *sig += ro->n;
                continue;
            }
            int slot = (int)(next % (uint64_t)nch);
            ins[slot].seq = next;
            rc = bb->submit(bb, &ins[slot], &outs[slot], st);
            inflight++;
            next++;
        }
        if (pass == 0) wall = gs_now() - t0;
        if (pass == 1) bb->destroy(bb);
    }
    if (!rc) {
        gs_bench_row row;
        memset(&row, 0, sizeof row);
        row.mode = "stream";
        row.op = gs_op_name(j->op);
        row.variant = v->name;
        row.type = t;
        row.n = chunks_total * chunk;
        snprintf(row.param, sizeof row.param, "%s buffers=%d%s%s", gs_host_mem_name(hm), buffers,
                 da == GS_DEV_ONCE ? "" : " alloc=", da == GS_DEV_ONCE ? "" : gs_dev_alloc_names[da]);
        row.ms = wall * 1e3;
        row.gelem_s = row.n / wall / 1e9;
        row.gb_s = row.n * es / wall / 1e9; /* input bytes per second, each way */
        double ceil = j->op == GS_OP_SCAN ? c->env->both_gbs : c->env->h2d_gbs;
        row.pct_ceiling = ceil > 0 ? 100 * row.gb_s / ceil : 0;
        row.passed = gpu_sig == cpu_sig;
        if (!row.passed) snprintf(row.why, sizeof row.why, "output signature differs from the CPU backend");
        c->cb(c->cb_ctx, &row);
    }
    for (int i = 0; i < nch; i++) {
        if (ins[i].buf) b->host_free(b, ins[i].buf);
        if (outs[i].buf) b->host_free(b, outs[i].buf);
    }
    b->destroy(b);
    return rc;
}

int gs_bench_ceilings(const gs_bench_opts *o, gs_bench_env *env, gs_status *st)
{
    memset(env, 0, sizeof *env);
    char desc[128] = "";
    if (o->backend == GS_BACKEND_CPU) return GS_OK;
    if (!gs_gpu_available(o->device, desc, sizeof desc)) {
        if (o->backend == GS_BACKEND_GPU) return gs_fail(st, GS_EDATA, "bench --backend gpu: no usable GPU (%s)", desc[0] ? desc : "none found");
        if (o->stream) return gs_fail(st, GS_EDATA, "bench --stream measures the GPU schedule: no usable GPU (%s)", desc[0] ? desc : "none found");
        return GS_OK;
    }
    return gs_bench_gpu_ceilings(o->device, env, st);
}

int gs_bench_run(const gs_bench_opts *o, const gs_bench_env *env, gs_bench_cb cb, void *ctx, gs_status *st)
{
    case_ctx c = {o, env, cb, ctx, env->gpu[0] != 0 && o->backend != GS_BACKEND_CPU};
    if (o->backend == GS_BACKEND_GPU && !c.use_gpu) return gs_fail(st, GS_EDATA, "bench --backend gpu: no usable GPU");
    int rc = GS_OK;
    if (o->stream) {
        if (!c.use_gpu) return gs_fail(st, GS_EDATA, "bench --stream measures the GPU schedule: no usable GPU");
        for (int opi = 0; opi < 2 && !rc; opi++) {
            gs_op op = opi ? GS_OP_COMPACT : GS_OP_SCAN;
            if (!(o->ops & (1u << op))) continue;
            gs_job j;
            memset(&j, 0, sizeof j);
            j.op = op;
            gs_type t = o->ntypes ? o->types[0] : GS_I32;
            j.scan = (gs_scan_params){t, t, GS_SCAN_SUM, 0, 0};
            j.compact.type = t;
            j.compact.pred = GS_PRED_NONZERO;
            for (int d = 0; d < (o->ndev_allocs ? o->ndev_allocs : 1) && !rc; d++)
                for (int h = 0; h < o->nhost_mems && !rc; h++)
                    for (int bi = 0; bi < o->nbuffers && !rc; bi++)
                        rc = run_stream(&c, &j, t, o->nsizes ? o->sizes[0] : (1ull << 31), o->host_mems[h],
                                        o->buffers[bi], o->ndev_allocs ? o->dev_allocs[d] : GS_DEV_ONCE, st);
        }
        return rc;
    }
    for (int opi = 0; opi < 4 && !rc; opi++) {
        const int rolling = opi == 3;
        gs_op op = rolling ? GS_OP_MINMAX : (gs_op)opi;
        if (!(o->ops & (1u << (rolling ? GS_OP_ROLLING : op)))) continue;
        for (int ti = 0; ti < o->ntypes && !rc; ti++) {
            gs_type t = o->types[ti];
            for (int si = 0; si < o->nsizes && !rc; si++) {
                uint64_t n = o->sizes[si];
                gs_job j;
                memset(&j, 0, sizeof j);
                j.op = op;
                if (op == GS_OP_SCAN) {
                    j.scan = (gs_scan_params){t, t, GS_SCAN_SUM, 0, 0};
                    rc = run_case(&c, &j, t, n, 0, "sum", st);
                } else if (op == GS_OP_COMPACT) {
                    j.compact.type = t;
                    j.compact.pred = GS_PRED_NONZERO;
                    for (int d = 0; d < o->ndensities && !rc; d++) {
                        char p[48];
                        snprintf(p, sizeof p, "density=%.2f", o->densities[d]);
                        rc = run_case(&c, &j, t, n, o->densities[d], p, st);
                    }
                } else {
                    j.minmax.type = t;
                    j.minmax.only = GS_MM_BOTH;
                    char aggs[96] = "";
                    if (rolling) { /* --agg, else mean; pandas' defaults otherwise */
                        j.minmax.nagg = o->nagg ? o->nagg : 1;
                        j.minmax.agg[0] = GS_AGG_MEAN;
                        for (int k = 0; k < o->nagg; k++) j.minmax.agg[k] = o->agg[k];
                        j.minmax.ddof = 1;
                        j.minmax.min_periods = 1;
                        j.minmax.out_type = gs_roll_out_type(&j.minmax);
                        for (int k = 0; k < j.minmax.nagg; k++)
                            snprintf(aggs + strlen(aggs), sizeof aggs - strlen(aggs), "%s%s", k ? "," : " ",
                                     gs_agg_name((gs_agg)j.minmax.agg[k]));
                    }
                    for (int w = 0; w < o->nwindows && !rc; w++) {
                        char p[128];
                        j.minmax.window = o->windows[w];
                        if (j.minmax.window > n) continue;
                        snprintf(p, sizeof p, "W=%llu%s", (unsigned long long)o->windows[w], aggs);
                        rc = run_case(&c, &j, t, n, 0, p, st);
                    }
                }
            }
        }
    }
    return rc;
}

#ifndef GS_HAVE_CUDA
int gs_bench_gpu_plain_cub(int device, const gs_job *job, const void *h_in, uint64_t n, int reps, double *ms,
                           void *h_out, uint64_t *out_n, gs_status *st)
{
    (void)device, (void)job, (void)h_in, (void)n, (void)reps, (void)ms, (void)h_out, (void)out_n;
    return gs_fail(st, GS_EDATA, "built without CUDA");
}

int gs_bench_gpu_ceilings(int device, gs_bench_env *env, gs_status *st)
{
    (void)device;
    (void)env;
    return gs_fail(st, GS_EDATA, "built without CUDA");
}

int gs_bench_gpu_variant(int device, const gs_variant *v, const gs_job *job, const void *h_in, uint64_t n, int reps,
                         double *ms, void *h_out, uint64_t *out_n, gs_status *st)
{
    (void)device, (void)v, (void)job, (void)h_in, (void)n, (void)reps, (void)ms, (void)h_out, (void)out_n;
    return gs_fail(st, GS_EDATA, "built without CUDA");
}
#endif
