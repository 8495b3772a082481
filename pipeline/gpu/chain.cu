/* gpu/chain.cu - the stages of a chain on the device (backend.cuh): each stage an op of its own
 * (a gs_gpu with its carry) on the schedule's k stream, the data between stages in device buffers
 * of their own; the chain's device memory is counted in stage 0's budget. */
#include <cuda_runtime.h>
#include <stdlib.h>

#include "backend.cuh"

/* ---- chains ---------------------------------------------------------------------------------- */

/* A chain on slot s, on the k stream: stage 0 reads [halo | chunk] at kin, each later stage reads
 * the output of the one before in d_mid (its halo copied into the head room there), the last
 * writes d_out; ev_st[k] follows stage k. The data never leave the device between stages. A
 * compaction before a later stage: the host waits for that stage's count (published to mapped
 * memory by its carry_out) -- the one value that crosses PCIe between stages, since the launchers
 * take n from the host. A stage given 0 elements leaves its carry and the stages after it alone.
 * *vals: the last stage's output values (0 while a last compaction's count is unknown). */
int gs_gpu_chain_run(gs_gpu *g, int s, gs_gpu_slot *sl, char *kin, uint64_t n, void *scratch, uint64_t *vals,
                     gs_status *st)
{
    uint64_t nk = n;
    int k = 0, rc;
    *vals = 0;
    for (; k < g->nst && nk; k++) {
        gs_gpu *x = g->st[k];
        const int last = k == g->nst - 1;
        const uint64_t hl = x->hl, m = hl + nk;
        uint64_t first = 0, v = 0;
        char *kout = last ? sl->d_out : sl->d_mid[k] + g->st[k + 1]->hl * x->osz;
        if (k > 0) kin = sl->d_mid[k - 1];
        x->ops->plan(x, nk, hl, &first, &v);
        g->st_in[k] += nk;
        if ((rc = x->ops->carry_in(x, kin, hl, st))) return rc;
        if ((rc = x->ops->launch(x, kin, kout, nk, m, first, scratch, st))) return rc;
        if ((rc = x->ops->carry_out(x, s, kin, nk, m, st))) return rc;
        if (k > 0) x->base += nk; /* stage 0's base moves in gpu_submit */
        GS_CU(g->dev, cudaEventRecord(sl->ev_st[k], g->s_k));
        g->b_k += nk * x->isz + (x->ops->counted ? 0 : v * x->osz);
        if (last) {
            *vals = x->ops->counted ? 0 : v;
            return GS_OK;
        }
        if (x->ops->counted) {
            GS_CU(g->dev, cudaEventSynchronize(sl->ev_st[k]));
            if (x->h_count[s] > nk)
                return gs_fail(st, GS_EDATA, "gpu %d: stage %d: compact kernel (%s) returned count %llu for %llu elements",
                               g->dev, k + 1, x->v->name, (unsigned long long)x->h_count[s], (unsigned long long)nk);
            nk = x->h_count[s];
            g->b_k += nk * x->osz;
        } else
            nk = v; /* scan: n values; minmax --only: one per window end */
    }
    for (; k < g->nst; k++) GS_CU(g->dev, cudaEventRecord(sl->ev_st[k], g->s_k)); /* emptied: zero time */
    /* A last compaction that did not run publishes no count: its slot's count is 0. The slot's
     * previous chunk retired (its ev_d2h1 followed its publish), so the host may write it. */
    if (g->last->ops->counted) g->last->h_count[s] = 0;
    return GS_OK;
}

/* Stage k (>= 1) of a chain: its own gs_gpu with the schedule's device and streams, its parameters
 * checked; nothing allocated yet (gs_gpu_fit counts what it will need). */
static int gpu_stage_make(gs_gpu *g, const gs_backend_cfg *c, int k, gs_status *st)
{
    gs_gpu *x = (gs_gpu *)calloc(1, sizeof *x);
    const gs_job *j = &c->chain->stage[k];
    int rc;
    if (!x) return gs_fail(st, GS_ENOMEM, "out of host memory");
    g->st[k] = x;
    x->dev = g->dev;
    x->job = *j;
    x->op = j->op;
    x->v = c->variants[k];
    x->ops = gs_gpu_op_find(j->op);
    x->host_mem = g->host_mem;
    x->dev_alloc = GS_DEV_ONCE;
    x->depth = g->depth;
    x->isz = gs_type_size(c->types[k]);
    x->cols = 1;
    x->count_only = j->count_only;
    x->s_h2d = g->s_h2d;
    x->s_k = g->s_k;
    x->s_d2h = g->s_d2h;
    x->last = x;
    if (!x->ops || !x->v) return gs_fail(st, GS_EDATA, "gpu backend: stage %d: nothing to compute", k + 1);
    if ((rc = x->ops->setup(x, c->types[k], st))) return rc;
    if (x->v->where != GS_GPU || x->v->op != gs_job_variant_op(&x->job) || !x->ops->has_launcher(x->v))
        return gs_fail(st, GS_EUSAGE, "stage %d: --algo %s is not a GPU variant of %s", k + 1, x->v->name,
                       gs_op_name(x->op));
    return x->ops->check(x, st);
}

/* The later stages, made before the chunk is fitted to the budget (their buffers count in it). */
int gs_gpu_chain_stages(gs_gpu *g, const gs_backend_cfg *c, gs_status *st)
{
    int rc;
    for (int k = 1; k < g->nst; k++)
        if ((rc = gpu_stage_make(g, c, k, st))) return rc;
    g->last = g->st[g->nst - 1];
    return GS_OK;
}

/* Once the chunk is fitted: each later stage's carry (counted in stage 0's budget), the shared
 * scratch (stages run one after another on the k stream: the largest need), and per slot the
 * buffers between stages and the stage events. */
int gs_gpu_chain_create(gs_gpu *g, gs_status *st)
{
    int i, k, rc;
    for (k = 1; k < g->nst; k++) {
        gs_gpu *x = g->st[k];
        x->C = g->C;
        x->dev_budget = g->dev_budget > g->dev_cur ? g->dev_budget - g->dev_cur : 0;
        x->scratch_bytes = x->ops->scratch(x, x->C);
        rc = x->ops->carry_init(x, st);
        g->dev_cur += x->dev_cur; /* the chain's device memory, counted once in stage 0 */
        if (g->dev_cur > g->dev_peak) g->dev_peak = g->dev_cur;
        if (rc) return rc;
        if (x->scratch_bytes > g->scratch_bytes) g->scratch_bytes = x->scratch_bytes;
    }
    for (i = 0; i < g->depth; i++)
        for (k = 0; k < g->nst; k++) {
            GS_CU(g->dev, cudaEventCreateWithFlags(&g->slot[i].ev_st[k], cudaEventDefault));
            if (k == g->nst - 1) continue;
            const gs_gpu *nx = g->st[k + 1];
            if ((rc = gs_gpu_dmalloc(g, (void **)&g->slot[i].d_mid[k], (nx->H + g->C) * nx->isz, GS_DEV_ONCE, 0, st)))
                return rc;
        }
    return GS_OK;
}

/* Free what gs_gpu_chain_create made (the streams are synchronised). */
void gs_gpu_chain_destroy(gs_gpu *g)
{
    for (int i = 0; i < g->depth; i++)
        for (int k = 0; k < GS_CHAIN_MAX; k++) {
            if (g->slot[i].d_mid[k]) (void)cudaFree(g->slot[i].d_mid[k]);
            if (g->slot[i].ev_st[k]) (void)cudaEventDestroy(g->slot[i].ev_st[k]);
        }
    for (int k = 1; k < g->nst; k++) {
        gs_gpu *x = g->st[k];
        if (!x) continue;
        if (x->d_carry) (void)cudaFree(x->d_carry);
        if (x->d_count) (void)cudaFree(x->d_count);
        if (x->d_halo) (void)cudaFree(x->d_halo);
        if (x->h_count) (void)cudaFreeHost(x->h_count);
        free(x);
    }
}
