/* gpu/textin.cu - the input's csv parsed on the device (the plan's parse_gpu): the backend's
 * gs_text_parser, which the engine gives the reader once the backend has started
 * (gs_reader_text_parser). It runs on the reader's thread, on a stream of its own beside the
 * chunks': a block the reader offers crosses to the device in pieces (the pool copying one into
 * pinned memory while the one before crosses), is parsed there (kernels/text_gpu.cu's
 * gs_text_gpu_parse, a line at a time as kernels/numparse.h takes it), and its values come back
 * into pinned memory, where the reader hands them out as it hands out its own. A block the device
 * declines goes back to the reader unparsed: the values are the same either way. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.cuh"
#include "../../common/pool.h"
#include "../../kernels/text_gpu.h"

/* The text a block holds on the device at first: the reader's block and the tail it carries; a
 * longer block grows the buffer. Values: one a line, on the device as many as a block can hold
 * ("5\n" a line); in pinned memory as many as the blocks so far gave. */
#define GS_TIN_BYTES (GS_TEXT_BLOCK_BYTES + ((size_t)2 << 20))
/* The text crosses in pieces through two pinned buffers of this size: the pool copies a piece in
 * while the one before crosses. */
#define GS_TIN_PIECE ((size_t)4 << 20)
#define GS_TIN_COPY_PARTS 4

typedef struct gs_gtin {
    gs_gpu *g;
    cudaStream_t s;
    cudaEvent_t done, piece[2]; /* done: the block's values are back; piece[i]: h_piece[i] crossed */
    size_t cap;      /* text bytes the device's buffer holds */
    uint64_t vmax;   /* values the device's buffer holds */
    size_t hbytes;   /* bytes h_vals holds */
    char *h_piece[2], *d_text, *h_vals, *d_vals;
    uint64_t *h_res, *d_res;
    void *d_scr;
    size_t scr;
    /* for --stats: wall seconds in parse, bytes of text taken, blocks declined */
    double busy;
    uint64_t bytes, declined;
    gs_text_parser p;
} gs_gtin;

static void tin_buffers_free(gs_gtin *t)
{
    gs_status ignore;
    memset(&ignore, 0, sizeof ignore);
    gs_gpu *g = t->g;
    if (t->d_text) (void)gs_gpu_dfree(g, (void **)&t->d_text, t->cap, GS_DEV_ONCE, 0, &ignore);
    if (t->d_vals) (void)gs_gpu_dfree(g, (void **)&t->d_vals, t->vmax * 8, GS_DEV_ONCE, 0, &ignore);
    if (t->d_scr) (void)gs_gpu_dfree(g, &t->d_scr, t->scr, GS_DEV_ONCE, 0, &ignore);
    t->d_text = t->d_vals = NULL;
    t->d_scr = NULL;
    t->cap = 0;
    t->vmax = 0;
}

/* Device buffers for blocks of `bytes` of text. */
static int tin_buffers(gs_gtin *t, size_t bytes, gs_status *st)
{
    gs_gpu *g = t->g;
    tin_buffers_free(t);
    const uint64_t vmax = bytes / 2 + 1;
    const size_t scr = gs_text_gpu_parse_scratch(bytes);
    if (!scr) return gs_fail(st, GS_EDATA, "csv gpu: CUB's scratch size");
    int rc = gs_gpu_dmalloc(g, (void **)&t->d_text, bytes, GS_DEV_ONCE, 0, st);
    if (!rc) t->cap = bytes, t->vmax = vmax;
    if (!rc) rc = gs_gpu_dmalloc(g, (void **)&t->d_vals, vmax * 8, GS_DEV_ONCE, 0, st);
    if (!rc) rc = gs_gpu_dmalloc(g, &t->d_scr, scr, GS_DEV_ONCE, 0, st);
    if (!rc) t->scr = scr;
    if (g->dev_cur > g->dev_peak) g->dev_peak = g->dev_cur;
    return rc;
}

/* The block's text to the device, a piece at a time through the two pinned buffers. */
static int tin_send(gs_gtin *t, const char *text, size_t bytes, gs_status *st)
{
    gs_gpu *g = t->g;
    for (size_t off = 0, k = 0; off < bytes; off += GS_TIN_PIECE, k++) {
        const int i = (int)(k & 1);
        const size_t len = bytes - off < GS_TIN_PIECE ? bytes - off : GS_TIN_PIECE;
        if (k >= 2) GS_CU(g->dev, cudaEventSynchronize(t->piece[i])); /* its last piece has crossed */
        gs_parallel_copy(t->h_piece[i], text + off, len, GS_TIN_COPY_PARTS);
        GS_CU(g->dev, cudaMemcpyAsync(t->d_text + off, t->h_piece[i], len, cudaMemcpyHostToDevice, t->s));
        GS_CU(g->dev, cudaEventRecord(t->piece[i], t->s));
    }
    return GS_OK;
}

/* The block through the device: GS_OK with the values, GS_TEXT_DECLINED, or a failure. */
static int tin_run(gs_gtin *t, const gs_text_block *b, const void **vals, size_t *n, gs_status *st)
{
    gs_gpu *g = t->g;
    int rc;
    GS_CU(g->dev, cudaSetDevice(g->dev));
    if (b->bytes > t->cap && (rc = tin_buffers(t, b->bytes + b->bytes / 4, st))) return rc;
    if ((rc = tin_send(t, b->text, b->bytes, st))) return rc;
    if ((rc = gs_text_gpu_parse(t->d_text, b->bytes, b->cols, b->ncols, b->delim, b->trim_sp, b->trim_tab, b->type,
                                t->d_vals, t->vmax, t->d_res, t->d_scr, t->scr, t->s, st)))
        return rc;
    GS_CU(g->dev, cudaMemcpyAsync(t->h_res, t->d_res, 2 * sizeof *t->h_res, cudaMemcpyDeviceToHost, t->s));
    GS_CU(g->dev, cudaStreamSynchronize(t->s));
    if (t->h_res[1]) {
        t->declined++;
        return GS_TEXT_DECLINED;
    }
    const uint64_t k = t->h_res[0];
    const size_t vbytes = (size_t)k * (size_t)b->ncols * gs_type_size(b->type);
    if (vbytes > t->hbytes) { /* room for this block's values, and a quarter more */
        if (t->h_vals) (void)cudaFreeHost(t->h_vals);
        t->h_vals = NULL;
        t->hbytes = 0;
        GS_CU(g->dev, cudaHostAlloc((void **)&t->h_vals, vbytes + vbytes / 4, cudaHostAllocDefault));
        t->hbytes = vbytes + vbytes / 4;
    }
    GS_CU(g->dev, cudaMemcpyAsync(t->h_vals, t->d_vals, vbytes, cudaMemcpyDeviceToHost, t->s));
    GS_CU(g->dev, cudaEventRecord(t->done, t->s));
    GS_CU(g->dev, cudaEventSynchronize(t->done));
    t->bytes += b->bytes;
    *vals = t->h_vals;
    *n = (size_t)k;
    return GS_OK;
}

static int tin_parse(void *ctx, const gs_text_block *b, const void **vals, size_t *n, gs_status *st)
{
    gs_gtin *t = (gs_gtin *)ctx;
    const double t0 = gs_now();
    *n = 0;
    const int rc = tin_run(t, b, vals, n, st);
    t->busy += gs_now() - t0;
    return rc;
}

void gs_gpu_tin_setup(gs_gpu *g, gs_backend *b, const gs_backend_cfg *c, char *why, size_t len)
{
    gs_status tst;
    memset(&tst, 0, sizeof tst);
    why[0] = 0;
    if (!c->text_in) return;
    gs_gtin *t = (gs_gtin *)calloc(1, sizeof *t);
    if (!t) {
        snprintf(why, len, "csv parsed on the host: out of host memory");
        return;
    }
    t->g = g;
    g->tin = t;
    cudaError_t e = cudaStreamCreateWithFlags(&t->s, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&t->done, GS_GPU_WAIT_EVENT_FLAGS | cudaEventDisableTiming);
    for (int i = 0; i < 2 && e == cudaSuccess; i++) {
        e = cudaEventCreateWithFlags(&t->piece[i], GS_GPU_WAIT_EVENT_FLAGS | cudaEventDisableTiming);
        if (e == cudaSuccess) e = cudaHostAlloc((void **)&t->h_piece[i], GS_TIN_PIECE, cudaHostAllocDefault);
    }
    if (e == cudaSuccess) e = cudaHostAlloc((void **)&t->h_res, 2 * sizeof *t->h_res, cudaHostAllocDefault);
    int rc = e != cudaSuccess ? gs_cu_fail(&tst, e, "the csv parser's stream", g->dev)
                              : gs_gpu_dmalloc(g, (void **)&t->d_res, 2 * sizeof *t->d_res, GS_DEV_ONCE, 0, &tst);
    if (!rc) rc = tin_buffers(t, GS_TIN_BYTES, &tst);
    if (rc) {
        gs_gpu_tin_free(g);
        snprintf(why, len, "csv parsed on the host: %s", tst.msg);
        return;
    }
    t->p.parse = tin_parse;
    t->p.ctx = t;
    b->text_in = &t->p;
}

void gs_gpu_tin_stats(const gs_gpu *g, double *busy, uint64_t *bytes, uint64_t *declined)
{
    const gs_gtin *t = g->tin;
    *busy = t ? t->busy : 0;
    *bytes = t ? t->bytes : 0;
    *declined = t ? t->declined : 0;
}

void gs_gpu_tin_free(gs_gpu *g)
{
    gs_gtin *t = g->tin;
    if (!t) return;
    if (t->s) (void)cudaStreamSynchronize(t->s);
    tin_buffers_free(t);
    gs_status ignore;
    memset(&ignore, 0, sizeof ignore);
    if (t->d_res) (void)gs_gpu_dfree(g, (void **)&t->d_res, 2 * sizeof *t->d_res, GS_DEV_ONCE, 0, &ignore);
    if (t->h_res) (void)cudaFreeHost(t->h_res);
    if (t->h_vals) (void)cudaFreeHost(t->h_vals);
    for (int i = 0; i < 2; i++) {
        if (t->h_piece[i]) (void)cudaFreeHost(t->h_piece[i]);
        if (t->piece[i]) (void)cudaEventDestroy(t->piece[i]);
    }
    if (t->done) (void)cudaEventDestroy(t->done);
    if (t->s) (void)cudaStreamDestroy(t->s);
    free(t);
    g->tin = NULL;
    (void)cudaGetLastError();
}
