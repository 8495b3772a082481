/* job.c - what a job computes: its output type, columns and rows, the carry it starts with, the
 * variant that runs each stage (checked against its parameters), a chain's shape rules, and the
 * text forms the CLI and the fuzz targets parse (predicates, host-memory modes). */
#include "pipeline.h"
#include "../common/pool.h"

#include <stdio.h>
#include <string.h>

static const char *const host_mem_names[] = {"pinned", "pageable", "registered", "mapped", "direct"};
const char *const gs_dev_alloc_names[GS_NDEV_ALLOC] = {"once", "per-chunk", "async"};

const char *gs_host_mem_name(gs_host_mem m) { return (unsigned)m <= GS_HOST_DIRECT ? host_mem_names[m] : "?"; }

int gs_host_mem_parse(const char *s, gs_host_mem *m)
{
    for (int i = 0; i <= GS_HOST_DIRECT; i++)
        if (!strcmp(s, host_mem_names[i])) {
            *m = (gs_host_mem)i;
            return 0;
        }
    return -1;
}

/* ---- a job's output ---------------------------------------------------------------------------- */
gs_op gs_job_variant_op(const gs_job *j)
{
    return j->op == GS_OP_MINMAX && j->minmax.nagg ? GS_OP_ROLLING : j->op;
}

uint64_t gs_job_halo(const gs_job *j)
{
    if (j->op != GS_OP_MINMAX || j->minmax.window == 0) return 0;
    const uint64_t h = j->minmax.window - 1;
    return j->in_known && j->in_max < h ? j->in_max : h;
}

gs_type gs_job_out_type(const gs_job *j, gs_type in)
{
    switch (j->op) {
    case GS_OP_SCAN: return j->scan.out_type;
    case GS_OP_COMPACT: return j->compact.indices ? GS_U64 : in;
    case GS_OP_MINMAX: {
        if (!j->minmax.nagg) return in;
        if (j->roll_out_type_given) return j->minmax.out_type;
        gs_minmax_params p = j->minmax;
        p.type = in;
        return gs_roll_out_type(&p);
    }
    default: return j->out_type;
    }
}

int gs_job_out_cols(const gs_job *j)
{
    if (j->op == GS_OP_MINMAX && j->minmax.nagg) return j->minmax.nagg;
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

const char *gs_job_name(const gs_job *j)
{
    return gs_op_name(j->as_rolling ? GS_OP_ROLLING : gs_job_variant_op(j));
}

int gs_chain_out_cols(const gs_chain *c) { return gs_job_out_cols(&c->stage[c->n - 1]); }

gs_type gs_chain_out_type(const gs_chain *c, gs_type in)
{
    for (int k = 0; c && k < c->n; k++) in = gs_job_out_type(&c->stage[k], in);
    return in;
}

int64_t gs_chain_out_rows(const gs_chain *c, int64_t n)
{
    for (int k = 0; k < c->n; k++) n = gs_job_out_rows(&c->stage[k], n);
    return n;
}

int gs_chain_writes_positions(const gs_chain *c)
{
    const gs_job *last = &c->stage[c->n - 1];
    if (last->op != GS_OP_COMPACT || !last->compact.indices || last->count_only) return 0;
    for (int k = 0; k + 1 < c->n; k++)
        if (c->stage[k].op == GS_OP_COMPACT) return 0;
    return 1;
}

int gs_chain_keeps_rows(const gs_chain *c, int upto)
{
    for (int k = 0; k < upto && k < c->n; k++)
        if (c->stage[k].op != GS_OP_SCAN && !(c->stage[k].op == GS_OP_MINMAX && c->stage[k].partial)) return 0;
    return 1;
}

int gs_job_arg_cols(const gs_job *j, unsigned *mask)
{
    *mask = 0;
    for (int k = 0; j->op == GS_OP_MINMAX && k < j->minmax.nagg; k++)
        if (j->minmax.agg[k] == GS_AGG_ARGMIN || j->minmax.agg[k] == GS_AGG_ARGMAX) *mask |= 1u << k;
    return *mask != 0;
}

/* ---- variants ---------------------------------------------------------------------------------- */
int gs_job_resolve(const gs_job *j, gs_where where, int threads, const gs_variant **v, gs_status *st)
{
    const gs_variant *var;
    if (j->op == GS_OP_NONE) {
        *v = NULL;
        return GS_OK;
    }
    const gs_op vop = gs_job_variant_op(j); /* the registry's rows */
    if (j->algo) {
        var = gs_variant_find(vop, j->algo);
        if (!var)
            return gs_fail(st, GS_EUSAGE, "unknown --algo '%s' for this verb (gpustream info lists them)", j->algo);
        if (var->where != where)
            return gs_fail(st, GS_EUSAGE, "--algo %s runs on the %s; it needs --backend %s", j->algo,
                           var->where == GS_GPU ? "GPU" : "CPU", var->where == GS_GPU ? "gpu" : "cpu");
    } else {
        var = gs_variant_default_for(vop, where, threads > 0 ? threads : gs_ncores());
        if (!var) return gs_fail(st, GS_EDATA, "no %s variant compiled in", where == GS_GPU ? "GPU" : "CPU");
    }
    int rc = j->op == GS_OP_SCAN      ? gs_variant_check_scan(var, &j->scan, st)
             : j->op == GS_OP_COMPACT ? gs_variant_check_compact(var, &j->compact, st)
                                      : gs_variant_check_minmax(var, &j->minmax, st);
    if (rc) return rc;
    *v = var;
    return GS_OK;
}

/* "stage K (VERB): " ahead of a message already in st. */
static int stage_fail(gs_status *st, const gs_chain *c, int k)
{
    char msg[sizeof st->msg];
    const int code = st->code ? st->code : GS_EUSAGE;
    snprintf(msg, sizeof msg, "%s", st->msg);
    st->code = GS_OK; /* gs_fail keeps a first failure: this one rewrites it */
    return gs_fail(st, code, "stage %d (%s): %.*s", k + 1, gs_job_name(&c->stage[k]), (int)(sizeof msg - 40), msg);
}

int gs_chain_resolve(const gs_chain *c, gs_where where, int threads, const gs_variant **v, gs_status *st)
{
    for (int k = 0; k < c->n; k++)
        if (gs_job_resolve(&c->stage[k], where, threads, &v[k], st)) return c->n > 1 ? stage_fail(st, c, k) : st->code;
    return GS_OK;
}

int gs_chain_check(const gs_chain *c, gs_type in, gs_status *st)
{
    if (c->n < 1 || c->n > GS_CHAIN_MAX)
        return gs_fail(st, GS_EUSAGE, "a chain has 1 to %d stages, not %d", GS_CHAIN_MAX, c->n);
    for (int k = 0; k < c->n; k++) {
        const gs_job *j = &c->stage[k];
        const int last = k == c->n - 1;
        if (j->op != GS_OP_SCAN && j->op != GS_OP_COMPACT && j->op != GS_OP_MINMAX)
            gs_fail(st, GS_EUSAGE, "not a chain stage (chains take scan, compact, minmax and rolling)");
        else if (!last && j->count_only)
            gs_fail(st, GS_EUSAGE, "--count ends a chain: make this the last stage, or drop --count");
        else if (!last && j->op == GS_OP_MINMAX && gs_job_out_cols(j) > 1 && (j->minmax.nagg || j->as_rolling))
            gs_fail(st, GS_EUSAGE, "rolling writes %d columns, which no stage reads: give one --agg to pass one "
                                   "column on", gs_job_out_cols(j));
        else if (!last && j->op == GS_OP_MINMAX && !j->minmax.nagg && j->minmax.only == GS_MM_BOTH)
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

/* ---- text forms ----------------------------------------------------------------------------------- */
int gs_pred_parse(const char *s, gs_type t, gs_compact_params *p, gs_status *st)
{
    char buf[256];
    if (strlen(s) >= sizeof buf) return gs_fail(st, GS_EUSAGE, "predicate too long");
    snprintf(buf, sizeof buf, "%s", s);
    char *args = strchr(buf, ':');
    if (args) *args++ = 0;
    for (int k = 0; k <= GS_PRED_NAN; k++) {
        const char *name = gs_pred_name((gs_pred_kind)k);
        const int nargs = gs_pred_nargs((gs_pred_kind)k);
        if (strcmp(buf, name)) continue;
        p->pred = (gs_pred_kind)k;
        if (nargs == 0) {
            if (args) return gs_fail(st, GS_EUSAGE, "predicate '%s' takes no value", name);
            return GS_OK;
        }
        if (!args) return gs_fail(st, GS_EUSAGE, "predicate '%s' needs a value, e.g. %s:0", s, name);
        char *b = NULL;
        if (nargs == 2) {
            /* range:A:B; a ':' may not appear inside a number, so split at the first one. */
            b = strchr(args, ':');
            if (!b) return gs_fail(st, GS_EUSAGE, "predicate '%s' needs two values, e.g. range:0:10", s);
            *b++ = 0;
        }
        int rc = gs_value_parse(args, t, &p->a);
        if (!rc && b) rc = gs_value_parse(b, t, &p->b);
        if (rc && rc != -2 && gs_type_is_float(t)) /* no number at all, whatever the type */
            return gs_fail(st, GS_EUSAGE, "invalid value in predicate '%s' (not a number)", s);
        if (rc)
            return gs_fail(st, GS_EUSAGE, "invalid value in predicate '%s' for type %s%s", s, gs_type_name(t),
                           rc == -2 ? " (out of range)" : " (integers only)");
        return GS_OK;
    }
    return gs_fail(st, GS_EUSAGE,
                   "unknown predicate '%s' (expected nonzero, eq:V, ne:V, gt:V, ge:V, lt:V, le:V, range:A:B, finite or nan)", s);
}
