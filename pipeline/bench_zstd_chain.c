/* bench_zstd_chain.c - the host half of `gpustream bench --zstd` (libzstd beside nvCOMP on frames of
 * generated data) and `gpustream bench --chain` (a chain beside its stages run one by one): cases,
 * timing, checks and rows; the shared case helpers live in bench.c, nvCOMP's timing in
 * pipeline/gpu/codec_bench.cu. */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- bench --zstd ----------------------------------------------------------------------------- */

/* "64K", "16M", "1000" */
static void frame_label(size_t f, char *buf, size_t len)
{
    if (f % (1u << 20) == 0) snprintf(buf, len, "%zuM", f >> 20);
    else if (f % 1024 == 0) snprintf(buf, len, "%zuK", f >> 10);
    else snprintf(buf, len, "%zu", f);
}

typedef struct zcase {
    const gs_bench_opts *o;
    const gs_bench_env *env;
    gs_bench_cb cb;
    void *cb_ctx;
    gs_type t;
    uint64_t n;
    size_t len;
} zcase;

/* Report a zstd row: rates from ms, the share of pinned H2D where a GPU was measured. */
static void zrow(const zcase *z, const char *op, const char *variant, const char *param, double ms, int passed,
                 const char *why)
{
    gs_bench_row row;
    gs_bench_new_row(&row, "zstd", op, variant, z->t, z->n, param, 0);
    row.ms = ms;
    row.passed = passed;
    if (!passed) snprintf(row.why, sizeof row.why, "%s", why);
    if (ms > 0) {
        row.gelem_s = z->n / ms / 1e6;
        row.gb_s = z->len / ms / 1e6;
        if (z->env->h2d_gbs > 0) row.pct_ceiling = 100 * row.gb_s / z->env->h2d_gbs;
    }
    z->cb(z->cb_ctx, &row);
}

/* Decode frames with libzstd into back and compare with raw: 1 if equal, else 0 with why. */
static int zcheck(const zcase *z, const unsigned char *raw, const unsigned char *frames, const size_t *off,
                  const size_t *clen, size_t frame, unsigned char *back, char *why, size_t whylen)
{
    gs_status vst = {0};
    memset(back, 0x5A, z->len);
    if (gs_zstd_frames_decode(frames, off, clen, z->len, frame, back, &vst)) {
        snprintf(why, whylen, "libzstd: %.140s", vst.msg);
        return 0;
    }
    if (memcmp(back, raw, z->len)) {
        snprintf(why, whylen, "decoded bytes differ from the input");
        return 0;
    }
    return 1;
}

static int zstd_case(const zcase *z, const unsigned char *raw, size_t frame, unsigned char *back, int use_gpu,
                     gs_status *st)
{
    const gs_bench_opts *o = z->o;
    const int reps = o->reps > 0 ? o->reps : 3, level = o->level ? o->level : 3;
    const size_t nf = gs_zstd_frames_count(z->len, frame), bound = gs_zstd_frame_bound(frame);
    unsigned char *slots = malloc(nf * bound);
    size_t *clen = malloc(2 * nf * sizeof *clen);
    double *ts = malloc(sizeof(double) * (size_t)(reps + 1));
    if (!slots || !clen || !ts) {
        free(slots), free(clen), free(ts);
        return gs_fail(st, GS_ENOMEM, "out of memory");
    }
    size_t *off = clen + nf;
    for (size_t f = 0; f < nf; f++) off[f] = f * bound;
    char fl[24], param[48], why[160] = "";
    frame_label(frame, fl, sizeof fl);
    /* libzstd: encode, then decode its frames; a warm-up, then reps */
    gs_status vst = {0};
    int rc = GS_OK;
    for (int r = -1; r < reps && !rc; r++) {
        double t0 = gs_now();
        rc = gs_zstd_frames_compress(raw, z->len, frame, level, slots, clen, &vst);
        if (r >= 0) ts[r] = gs_now() - t0;
    }
    if (rc) {
        zrow(z, "encode", "libzstd", fl, 0, 0, vst.msg);
        free(slots), free(clen), free(ts);
        return GS_OK;
    }
    const double enc_ms = gs_bench_median(ts, reps) * 1e3;
    size_t bytes = 0;
    for (size_t f = 0; f < nf; f++) bytes += clen[f];
    for (int r = -1; r < reps && !rc; r++) {
        double t0 = gs_now();
        rc = gs_zstd_frames_decode(slots, off, clen, z->len, frame, back, &vst);
        if (r >= 0) ts[r] = gs_now() - t0;
    }
    const double dec_ms = rc ? 0 : gs_bench_median(ts, reps) * 1e3;
    int ok = !rc && !memcmp(back, raw, z->len);
    if (!ok) snprintf(why, sizeof why, "%.150s", rc ? vst.msg : "decoded bytes differ from the input");
    snprintf(param, sizeof param, "frame=%s ratio=%.2f", fl, bytes ? (double)z->len / bytes : 0);
    zrow(z, "encode", "libzstd", param, enc_ms, ok, why);
    snprintf(param, sizeof param, "frame=%s of libzstd", fl);
    zrow(z, "decode", "libzstd", param, dec_ms, ok, why);
    if (use_gpu) {
        gs_bench_gpu_zstd_out g;
        if (gs_bench_gpu_zstd(o->device, raw, z->len, frame, slots, off, clen, reps, &g, &vst)) {
            zrow(z, "encode", "nvcomp", fl, 0, 0, vst.msg);
        } else {
            ok = zcheck(z, raw, g.frames, g.off, g.clen, frame, back, why, sizeof why);
            snprintf(param, sizeof param, "frame=%s ratio=%.2f", fl, g.bytes ? (double)z->len / g.bytes : 0);
            zrow(z, "encode", "nvcomp", param, g.enc_ms, ok, why);
            snprintf(param, sizeof param, "frame=%s of nvcomp", fl);
            zrow(z, "decode", "nvcomp", param, g.dec_ms, g.dec_ok, g.why);
            snprintf(param, sizeof param, "frame=%s of libzstd", fl);
            zrow(z, "decode", "nvcomp", param, g.dec_lz_ms, g.dec_lz_ok, g.why_lz);
        }
        gs_bench_gpu_zstd_free(&g);
    }
    free(slots), free(clen), free(ts);
    return GS_OK;
}

void gs_bench_gpu_zstd_free(gs_bench_gpu_zstd_out *r)
{
    free(r->frames);
    free(r->clen); /* off shares its block */
    r->frames = NULL;
    r->clen = r->off = NULL;
}

int gs_bench_zstd(const gs_bench_opts *o, const gs_bench_env *env, gs_bench_cb cb, void *ctx, gs_status *st)
{
    char nv[1024] = "";
    const int use_gpu = env->gpu[0] != 0 && o->backend != GS_BACKEND_CPU && gs_nvcomp_describe(nv, sizeof nv);
    if (o->backend == GS_BACKEND_GPU && !use_gpu)
        return gs_fail(st, GS_EDATA, "bench --zstd --backend gpu: %s", env->gpu[0] ? nv : "no usable GPU");
    int rc = GS_OK;
    for (int ti = 0; ti < o->ntypes && !rc; ti++)
        for (int si = 0; si < o->nsizes && !rc; si++) {
            zcase z = {o, env, cb, ctx, o->types[ti], o->sizes[si], 0};
            z.len = (size_t)(z.n * gs_type_size(z.t));
            if (!z.len) continue;
            unsigned char *raw = malloc(z.len), *back = malloc(z.len);
            if (!raw || !back) rc = gs_fail(st, GS_ENOMEM, "bench --zstd: out of memory for %zu bytes", z.len);
            gs_gen_opts g = o->gen;
            g.n = z.n;
            g.type = z.t;
            if (!rc) rc = gs_bench_gen_fill(&g, raw, st);
            for (int fi = 0; fi < o->nframes && !rc; fi++) rc = zstd_case(&z, raw, o->frames[fi], back, use_gpu, st);
            free(raw), free(back);
        }
    return rc;
}

/* ---- bench --chain ---------------------------------------------------------------------------- */

/* Run a chain (n >= 1 stages) on a backend from host memory to host memory as the engine does:
 * each chunk copied into a staging buffer (the reader's work), submitted, its output appended to
 * out (the writer's work). *out_n values; *sec the wall time; per-stage busy times into stats. */
static int chain_drive(const gs_chain *ch, const gs_type *types, int use_gpu, const gs_bench_opts *o, const void *in,
                       uint64_t n, void *out, uint64_t *out_n, double *sec, gs_run_stats *stats, gs_status *st)
{
    gs_engine_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.backend = use_gpu ? GS_BACKEND_GPU : GS_BACKEND_CPU;
    eo.device = o->device;
    eo.buffers = 2;
    eo.chunk_bytes = o->chunk_bytes ? o->chunk_bytes : (64u << 20);
    const gs_job *j0 = &ch->stage[0];
    const size_t es = gs_type_size(types[0]), os = gs_type_size(types[ch->n]);
    const int cols = gs_chain_out_cols(ch);
    size_t chunk = eo.chunk_bytes / es ? eo.chunk_bytes / es : 1;
    const size_t halo = j0->op == GS_OP_MINMAX ? (size_t)(j0->minmax.window - 1) : 0;
    const gs_variant *vars[GS_CHAIN_MAX];
    for (int k = 0; k < ch->n; k++) {
        int rc = gs_job_resolve(&ch->stage[k], use_gpu ? GS_GPU : GS_CPU, 0, &vars[k], st);
        if (rc) return rc;
    }
    gs_backend_cfg cfg = {j0, vars[0], types[0], types[ch->n], chunk, halo, chunk * (size_t)cols, &eo,
                          ch->n > 1 ? ch : NULL, vars, types, 0, 0, 0};
    gs_backend *b = NULL;
    int rc = use_gpu ? gs_backend_gpu_create(&b, &cfg, st) : gs_backend_cpu_create(&b, &cfg, st);
    if (rc) return rc;
    if (b->chunk_elems && b->chunk_elems < chunk) chunk = b->chunk_elems;
    enum { NCH = 18 };
    int nch = b->depth + 2 < NCH ? b->depth + 2 : NCH;
    gs_chunk ins[NCH], outs[NCH];
    memset(ins, 0, sizeof ins);
    memset(outs, 0, sizeof outs);
    for (int i = 0; i < nch && !rc; i++) {
        ins[i].buf = b->host_alloc(b, (halo + chunk) * es, st);
        outs[i].buf = outs[i].data = b->host_alloc(b, chunk * (size_t)cols * os, st);
        if (!ins[i].buf || !outs[i].buf) rc = st->code ? st->code : GS_ENOMEM;
        else ins[i].data = (char *)ins[i].buf + halo * es;
        ins[i].cap = chunk;
        outs[i].cap = chunk * (size_t)cols;
    }
    uint64_t next = 0, done = 0, nchunks = (n + chunk - 1) / chunk;
    int inflight = 0;
    *out_n = 0;
    double t0 = gs_now();
    while (!rc && (next < nchunks || inflight)) {
        if (inflight == b->depth || next == nchunks) {
            gs_chunk *ri, *ro;
            if ((rc = b->retire(b, &ri, &ro, st))) break;
            inflight--;
            memcpy((char *)out + *out_n * os, ro->data, ro->n * os);
            *out_n += ro->n;
            continue;
        }
        gs_chunk *ci = &ins[next % (uint64_t)nch], *co = &outs[next % (uint64_t)nch];
        ci->n = (size_t)(n - done < chunk ? n - done : chunk);
        ci->seq = next;
        memcpy(ci->data, (const char *)in + done * es, ci->n * es);
        done += ci->n;
        rc = b->submit(b, ci, co, st);
        inflight++;
        next++;
    }
    *sec = gs_now() - t0;
    if (!rc && stats) b->stats(b, stats);
    for (int i = 0; i < nch; i++) {
        if (ins[i].buf) b->host_free(b, ins[i].buf);
        if (outs[i].buf) b->host_free(b, outs[i].buf);
    }
    b->destroy(b);
    return rc;
}

/* The chain's output against the stages run one by one: bit for bit (any NaN equals any NaN), but
 * where a stage sums floats: its chunks differ (a stage after compact sees other boundaries), so
 * within 1e-3 (f32) or 1e-9 (f64) of the largest magnitude so far. */
static int chain_outputs_match(const gs_chain *ch, gs_type t, const void *ref, uint64_t ref_n, const void *got,
                               uint64_t got_n, char *why, size_t wlen)
{
    if (ref_n != got_n) {
        snprintf(why, wlen, "%llu values, the stages one by one give %llu", (unsigned long long)got_n,
                 (unsigned long long)ref_n);
        return 0;
    }
    int fsum = 0;
    for (int k = 0; k < ch->n; k++)
        fsum |= ch->stage[k].op == GS_OP_SCAN && ch->stage[k].scan.op == GS_SCAN_SUM && gs_type_is_float(ch->stage[k].scan.out_type);
    const size_t es = gs_type_size(t);
    double big = 0;
    for (uint64_t i = 0; i < ref_n; i++) {
        const int same = !memcmp((const char *)ref + i * es, (const char *)got + i * es, es);
        if (same && !(fsum && gs_type_is_float(t))) continue;
        double r = t == GS_F32 ? ((const float *)ref)[i] : t == GS_F64 ? ((const double *)ref)[i] : 0;
        double g = t == GS_F32 ? ((const float *)got)[i] : t == GS_F64 ? ((const double *)got)[i] : 1;
        if (fabs(r) > big) big = fabs(r);
        if (same || (isnan(r) && isnan(g))) continue;
        if (fsum && gs_type_is_float(t) && fabs(r - g) <= (t == GS_F32 ? 1e-3 : 1e-9) * (big + 1)) continue;
        snprintf(why, wlen, "first difference at output %llu", (unsigned long long)i);
        return 0;
    }
    return 1;
}

int gs_bench_chain(const gs_bench_opts *o, const gs_bench_env *env, const gs_chain *ch, gs_type in_type,
                   gs_bench_cb cb, void *ctx, gs_status *st)
{
    const int use_gpu = env->gpu[0] != 0 && o->backend != GS_BACKEND_CPU;
    if (o->backend == GS_BACKEND_GPU && !use_gpu) return gs_fail(st, GS_EDATA, "bench --backend gpu: no usable GPU");
    int rc = GS_OK;
    const int reps = o->reps > 0 ? o->reps : 3;
    for (int si = 0; si < o->nsizes && !rc; si++) {
        const uint64_t n = o->sizes[si];
        const gs_chain c = *ch;
        gs_type types[GS_CHAIN_MAX + 1];
        types[0] = in_type;
        for (int k = 0; k < c.n; k++) types[k + 1] = gs_job_out_type(&c.stage[k], types[k]);
        if ((rc = gs_chain_check(&c, types[0], st))) return rc;
        /* Every stage writes at most as many values as it reads, but the last minmax's pairs. */
        const size_t cap = (size_t)n * 2 * 8 + 64;
        void *in = malloc((size_t)n * gs_type_size(types[0]) + 64), *a = malloc(cap), *bb = malloc(cap),
             *got = malloc(cap);
        if (!in || !a || !bb || !got) {
            free(in), free(a), free(bb), free(got);
            return gs_fail(st, GS_ENOMEM, "bench --chain: out of host memory for n = %llu", (unsigned long long)n);
        }
        rc = gs_bench_make_input(c.stage[0].op, types[0], n, 0.5, in, st);
        /* The stages one by one, each over the whole output of the one before; then the chain. */
        double stage_s[GS_CHAIN_MAX] = {0}, one_s = 0, chain_s = 0, *ts = malloc(sizeof(double) * (size_t)reps);
        uint64_t ref_n = 0, got_n = 0;
        gs_run_stats cst;
        const void *src = in;
        uint64_t src_n = n;
        void *dst = a;
        for (int k = 0; k < c.n && !rc && ts; k++) {
            gs_chain one = {1, {c.stage[k]}};
            for (int r = 0; r < reps && !rc; r++)
                rc = chain_drive(&one, &types[k], use_gpu, o, src, src_n, dst, &ref_n, &ts[r], NULL, st);
            stage_s[k] = rc ? 0 : gs_bench_median(ts, reps);
            one_s += stage_s[k];
            src = dst;
            src_n = ref_n;
            dst = dst == a ? bb : a;
        }
        for (int r = 0; r < reps && !rc && ts; r++) {
            memset(&cst, 0, sizeof cst);
            rc = chain_drive(&c, types, use_gpu, o, in, n, got, &got_n, &ts[r], &cst, st);
        }
        if (!ts && !rc) rc = gs_fail(st, GS_ENOMEM, "out of host memory");
        if (!rc) chain_s = gs_bench_median(ts, reps);
        gs_bench_row row;
        memset(&row, 0, sizeof row);
        row.mode = "chain";
        row.type = types[0];
        row.n = n;
        row.passed = !rc && chain_outputs_match(&c, types[c.n], src, ref_n, got, got_n, row.why, sizeof row.why);
        const size_t ib = (size_t)n * gs_type_size(types[0]);
        for (int k = 0; k < c.n && !rc; k++) {
            row.op = gs_op_name(c.stage[k].op);
            gs_variant const *v = NULL;
            gs_status ign = {0};
            gs_job_resolve(&c.stage[k], use_gpu ? GS_GPU : GS_CPU, 0, &v, &ign);
            row.variant = v ? v->name : "?";
            snprintf(row.param, sizeof row.param, "alone, stage %d of %d", k + 1, c.n);
            row.ms = stage_s[k] * 1e3;
            row.gelem_s = row.ms > 0 ? n / row.ms / 1e6 : 0;
            cb(ctx, &row);
        }
        if (!rc) {
            row.op = "stages";
            row.variant = use_gpu ? "gpu" : "cpu";
            snprintf(row.param, sizeof row.param, "one by one (sum)");
            row.ms = one_s * 1e3;
            row.gelem_s = row.ms > 0 ? n / row.ms / 1e6 : 0;
            row.gb_s = row.ms > 0 ? ib / row.ms / 1e6 : 0;
            cb(ctx, &row);
            row.op = "chain";
            snprintf(row.param, sizeof row.param, "%.2fx one by one", chain_s > 0 ? one_s / chain_s : 0);
            row.ms = chain_s * 1e3;
            row.gelem_s = row.ms > 0 ? n / row.ms / 1e6 : 0;
            row.gb_s = row.ms > 0 ? ib / row.ms / 1e6 : 0;
            cb(ctx, &row);
        }
        free(ts);
        free(in), free(a), free(bb), free(got);
    }
    return rc;
}

#ifndef GS_HAVE_CUDA
int gs_bench_gpu_zstd(int device, const unsigned char *raw, size_t len, size_t frame, const unsigned char *lz,
                      const size_t *lz_off, const size_t *lz_clen, int reps, gs_bench_gpu_zstd_out *r, gs_status *st)
{
    (void)device, (void)raw, (void)len, (void)frame, (void)lz, (void)lz_off, (void)lz_clen, (void)reps;
    memset(r, 0, sizeof *r);
    return gs_fail(st, GS_EDATA, "built without CUDA");
}
#endif
