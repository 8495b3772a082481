/* gpu/ops.cu - each operation's part of the GPU schedule (gs_gpu_op, backend.cuh): its sizes,
 * scratch and checks, and its carry across chunks, kept on the device: scan's running total in
 * d_carry (read and rewritten by each kernel), compaction's index base and its count (the one value
 * the host must learn per chunk, published to mapped memory), minmax's last W-1 inputs in d_halo
 * (copied into the head of each chunk and back, ordered on the k stream). */
#include <cuda_runtime.h>
#include <string.h>

#include "backend.cuh"

/* Small kernels for the k stream. Its bookkeeping (halo copies, publishing the compact count) runs
 * on the SMs, not as cudaMemcpyAsync: a copy on the k stream could queue in a copy engine behind a
 * large H2D/D2H of another chunk and hold up the next kernel; these never do. */
template <typename T>
__global__ void gs_gpu_copy_kernel(T *__restrict__ dst, const T *__restrict__ src, uint64_t n)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
        dst[i] = src[i];
}

/* The count to pinned mapped host memory: the write is visible to the host once ev_k1 completes. */
__global__ void gs_gpu_publish_count(volatile uint64_t *h_count, const uint64_t *d_count)
{
    *h_count = *d_count;
}

int gs_gpu_copy(void *dst, const void *src, uint64_t n, size_t isz, cudaStream_t s, int dev, gs_status *st)
{
    const unsigned threads = 256;
    uint64_t blocks = (n + threads - 1) / threads;
    if (!n) return GS_OK;
    if (blocks > 1024) blocks = 1024;
    if (isz == 8)
        gs_gpu_copy_kernel<uint64_t><<<(unsigned)blocks, threads, 0, s>>>((uint64_t *)dst, (const uint64_t *)src, n);
    else if (isz == 4)
        gs_gpu_copy_kernel<uint32_t><<<(unsigned)blocks, threads, 0, s>>>((uint32_t *)dst, (const uint32_t *)src, n);
    else
        return gs_fail(st, GS_EDATA, "gpu backend: no copy for %zu-byte elements", isz);
    GS_CU(dev, cudaGetLastError());
    return GS_OK;
}

/* ---- the hooks of each operation --------------------------------------------------------------------- */

static void plan_all(const gs_gpu *g, uint64_t n, uint64_t hl, uint64_t *first, uint64_t *vals)
{
    (void)g;
    (void)hl;
    *first = 0;
    *vals = n;
}

static int carry_none(gs_gpu *g, char *kin, uint64_t hl, gs_status *st)
{
    (void)g;
    (void)kin;
    (void)hl;
    (void)st;
    return GS_OK;
}

/* scan: the running total in d_carry, read and rewritten by each kernel. */
static int scan_setup(gs_gpu *g, gs_type in, gs_status *st)
{
    (void)st;
    g->job.scan.type = in;
    g->osz = gs_type_size(g->job.scan.out_type);
    return GS_OK;
}
static int scan_has(const gs_variant *v) { return v->gpu.scan != NULL; }
static int scan_check(const gs_gpu *g, gs_status *st) { return gs_variant_check_scan(g->v, &g->job.scan, st); }
static size_t scan_scratch(const gs_gpu *g, uint64_t C)
{
    return g->v->scratch.scan ? g->v->scratch.scan(&g->job.scan, C) : 0;
}
static uint64_t scan_carry_bytes(const gs_gpu *g, uint64_t C)
{
    (void)C;
    return gs_gpu_al(g->osz);
}
static int scan_carry_init(gs_gpu *g, gs_status *st)
{
    gs_value id;
    int rc;
    if ((rc = gs_gpu_dmalloc(g, &g->d_carry, g->osz, GS_DEV_ONCE, 0, st))) return rc;
    gs_job_scan_start(&g->job, &id);
    /* the initial carry, ahead of kernel(0) on the k stream; synchronised once because `id` is
     * on the stack */
    GS_CU(g->dev, cudaMemcpyAsync(g->d_carry, &id, g->osz, cudaMemcpyHostToDevice, g->s_k));
    GS_CU(g->dev, cudaStreamSynchronize(g->s_k));
    return GS_OK;
}
static int scan_launch(gs_gpu *g, const char *kin, char *kout, uint64_t n, uint64_t m, uint64_t first, void *scratch,
                       gs_status *st)
{
    (void)m;
    (void)first;
    return g->v->gpu.scan(&g->job.scan, kin, kout, n, g->d_carry, scratch, g->scratch_bytes, (void *)g->s_k, st);
}
static int scan_carry_out(gs_gpu *g, int s, const char *kin, uint64_t n, uint64_t m, gs_status *st)
{
    (void)g;
    (void)s;
    (void)kin;
    (void)n;
    (void)m;
    (void)st;
    return GS_OK;
}

/* compact: the index base (elements before the chunk) and the count, published per slot. */
static int compact_setup(gs_gpu *g, gs_type in, gs_status *st)
{
    (void)st;
    g->job.compact.type = in;
    g->osz = g->job.compact.indices ? sizeof(uint64_t) : g->isz;
    return GS_OK;
}
static int compact_has(const gs_variant *v) { return v->gpu.compact != NULL; }
static int compact_check(const gs_gpu *g, gs_status *st)
{
    return gs_variant_check_compact(g->v, &g->job.compact, st);
}
static size_t compact_scratch(const gs_gpu *g, uint64_t C)
{
    return g->v->scratch.compact ? g->v->scratch.compact(&g->job.compact, C) : 0;
}
static uint64_t compact_carry_bytes(const gs_gpu *g, uint64_t C)
{
    return gs_gpu_al(sizeof(uint64_t)) + (g->mapped && g->count_only ? gs_gpu_al(C * g->osz) : 0);
}
static int compact_carry_init(gs_gpu *g, gs_status *st)
{
    int rc;
    g->base = g->job.index_base;
    if ((rc = gs_gpu_dmalloc(g, (void **)&g->d_count, sizeof(uint64_t), GS_DEV_ONCE, 0, st))) return rc;
    GS_CU(g->dev, cudaHostAlloc((void **)&g->h_count, (size_t)g->depth * sizeof(uint64_t), cudaHostAllocMapped));
    memset(g->h_count, 0, (size_t)g->depth * sizeof(uint64_t));
    GS_CU(g->dev, cudaHostGetDevicePointer((void **)&g->dh_count, g->h_count, 0));
    if (g->mapped && g->count_only && (rc = gs_gpu_dmalloc(g, &g->d_sink, g->C * g->osz, GS_DEV_ONCE, 0, st)))
        return rc;
    return GS_OK;
}
static int compact_launch(gs_gpu *g, const char *kin, char *kout, uint64_t n, uint64_t m, uint64_t first,
                          void *scratch, gs_status *st)
{
    (void)m;
    (void)first;
    return g->v->gpu.compact(&g->job.compact, kin, n, kout, g->base, g->d_count, scratch, g->scratch_bytes,
                             (void *)g->s_k, st);
}
static int compact_carry_out(gs_gpu *g, int s, const char *kin, uint64_t n, uint64_t m, gs_status *st)
{
    (void)kin;
    (void)m;
    (void)n;
    gs_gpu_publish_count<<<1, 1, 0, g->s_k>>>(g->dh_count + s, g->d_count);
    GS_CU(g->dev, cudaGetLastError());
    return GS_OK;
}

/* minmax: the last W-1 inputs of the stream so far in d_halo, copied to the head of each chunk. */
static int minmax_setup(gs_gpu *g, gs_type in, gs_status *st)
{
    g->job.minmax.type = in;
    g->osz = g->isz;
    g->cols = g->job.minmax.only == GS_MM_BOTH ? 2 : 1;
    if (g->job.minmax.nagg) { /* rolling: nagg columns of one type */
        g->job.minmax.out_type = gs_job_out_type(&g->job, in);
        g->osz = gs_type_size(g->job.minmax.out_type);
        g->cols = g->job.minmax.nagg;
    }
    if (g->job.minmax.window == 0) return gs_fail(st, GS_EUSAGE, "minmax: window must be at least 1");
    g->H = gs_job_halo(&g->job);
    if (g->H > (UINT64_C(1) << 56) / g->isz)
        return gs_fail(st, GS_EUSAGE, "minmax: window %llu is too large", (unsigned long long)g->job.minmax.window);
    return GS_OK;
}
static int minmax_has(const gs_variant *v) { return v->gpu.minmax != NULL; }
static int minmax_check(const gs_gpu *g, gs_status *st) { return gs_variant_check_minmax(g->v, &g->job.minmax, st); }
static size_t minmax_scratch(const gs_gpu *g, uint64_t C)
{
    return g->v->scratch.minmax ? g->v->scratch.minmax(&g->job.minmax, g->H + C) : 0;
}
static uint64_t minmax_carry_bytes(const gs_gpu *g, uint64_t C)
{
    (void)C;
    return gs_gpu_al(g->H * g->isz);
}
static int minmax_carry_init(gs_gpu *g, gs_status *st)
{
    g->base = g->job.index_base; /* rolling: absolute positions (the backend moves it per chunk) */
    int rc = g->H ? gs_gpu_dmalloc(g, (void **)&g->d_halo, g->H * g->isz, GS_DEV_ONCE, 0, st) : GS_OK;
    if (rc || !g->job.halo_len) return rc;
    /* continuing a stream: its last inputs are the first chunk's halo */
    if (g->job.halo_len > g->H)
        return gs_fail(st, GS_EDATA, "gpu backend: a halo of %llu elements for a window of %llu",
                       (unsigned long long)g->job.halo_len, (unsigned long long)g->job.minmax.window);
    GS_CU(g->dev, cudaMemcpy(g->d_halo, g->job.halo, g->job.halo_len * g->isz, cudaMemcpyHostToDevice));
    g->hl = g->job.halo_len;
    g->job.halo = NULL; /* the caller's memory: not read again */
    return GS_OK;
}
static void minmax_plan(const gs_gpu *g, uint64_t n, uint64_t hl, uint64_t *first, uint64_t *vals)
{
    const uint64_t m = hl + n;
    /* first = halo length with --partial, else the first end whose window is whole */
    *first = g->job.partial ? hl : (hl > g->H ? hl : g->H);
    *vals = *first < m ? (m - *first) * (uint64_t)g->cols : 0;
}
/* halo in: the previous chunk's tail copy to d_halo precedes this on the k stream (mapped: into
 * the engine's head room through its device address) */
static int minmax_carry_in(gs_gpu *g, char *kin, uint64_t hl, gs_status *st)
{
    return gs_gpu_copy(kin, g->d_halo, hl, g->isz, g->s_k, g->dev, st);
}
static int minmax_launch(gs_gpu *g, const char *kin, char *kout, uint64_t n, uint64_t m, uint64_t first,
                         void *scratch, gs_status *st)
{
    if (first >= m) return GS_OK; /* no whole window yet */
    gs_minmax_params p = g->job.minmax;
    p.base = g->base - (m - n); /* rolling: where [halo | chunk] starts in the stream */
    return g->v->gpu.minmax(&p, kin, m, first, kout, scratch, g->scratch_bytes, (void *)g->s_k, st);
}
/* halo out: the last min(W-1, m) inputs of [halo | chunk]; the next chunk's halo-in copy comes
 * after this on the k stream, so d_halo needs no second buffer. */
static int minmax_carry_out(gs_gpu *g, int s, const char *kin, uint64_t n, uint64_t m, gs_status *st)
{
    uint64_t hl2 = m < g->H ? m : g->H;
    int rc;
    (void)s;
    (void)n;
    if (!g->H) return GS_OK;
    if ((rc = gs_gpu_copy(g->d_halo, kin + (m - hl2) * g->isz, hl2, g->isz, g->s_k, g->dev, st))) return rc;
    g->hl = hl2;
    return GS_OK;
}

static const gs_gpu_op gs_gpu_ops[] = {
    {GS_OP_SCAN, scan_setup, scan_has, scan_check, scan_scratch, scan_carry_bytes, scan_carry_init, plan_all,
     carry_none, scan_launch, scan_carry_out, 0},
    {GS_OP_COMPACT, compact_setup, compact_has, compact_check, compact_scratch, compact_carry_bytes,
     compact_carry_init, plan_all, carry_none, compact_launch, compact_carry_out, 1},
    {GS_OP_MINMAX, minmax_setup, minmax_has, minmax_check, minmax_scratch, minmax_carry_bytes, minmax_carry_init,
     minmax_plan, minmax_carry_in, minmax_launch, minmax_carry_out, 0},
};

const gs_gpu_op *gs_gpu_op_find(gs_op op)
{
    for (size_t i = 0; i < sizeof gs_gpu_ops / sizeof gs_gpu_ops[0]; i++)
        if (gs_gpu_ops[i].op == op) return &gs_gpu_ops[i];
    return NULL;
}

/* Every stage's carries from `from` (another schedule of the same chain, on from->dev) to `to`, on
 * to's k stream, which the caller has made wait for from's last chunk: the host's view (the halo's
 * length, the elements before) and the device's (scan's running total, minmax's halo). A kernel
 * copies them where `peer` says to's device reads from's memory (or it is the same device), else the
 * runtime's peer copy. Compaction's count is per chunk, never carried. */
int gs_gpu_carry_pass(gs_gpu *to, const gs_gpu *from, int peer, gs_status *st)
{
    const cudaStream_t s = to->s_k;
    for (int k = 0; k < to->nst; k++) {
        gs_gpu *x = to->st[k];
        const gs_gpu *y = from->st[k];
        const void *src[2] = {y->d_carry, y->d_halo};
        void *dst[2] = {x->d_carry, x->d_halo};
        const uint64_t n[2] = {y->d_carry ? 1u : 0u, y->d_halo ? y->hl : 0u};
        const size_t sz[2] = {x->osz, x->isz};
        x->hl = y->hl;
        x->base = y->base;
        for (int i = 0; i < 2; i++) {
            if (!n[i]) continue;
            if (!dst[i]) return gs_fail(st, GS_EDATA, "gpu backend: stage %d of gpu %d has no carry to take", k + 1, to->dev);
            int rc = GS_OK;
            if (peer) rc = gs_gpu_copy(dst[i], src[i], n[i], sz[i], s, to->dev, st);
            else GS_CU(to->dev, cudaMemcpyPeerAsync(dst[i], to->dev, src[i], from->dev, n[i] * sz[i], s));
            if (rc) return rc;
        }
    }
    return GS_OK;
}
