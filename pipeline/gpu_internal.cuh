/* gpu_internal.cuh - what the three parts of the GPU backend share:
 *   gpu_device.cu   device queries (info, --backend auto), CUDA error mapping, the usability probe
 *   gpu_memory.cu   counted device allocation, the budget fit, host staging memory (--host-mem)
 *   gpu_backend.cu  the schedule (streams, events, submit/retire) and the per-op carry hooks
 * Only pipeline/gpu_*.cu and the GPU zstd codec (pipeline/gpu/codec.cuh) include it. */
#ifndef GS_GPU_INTERNAL_CUH
#define GS_GPU_INTERNAL_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "pipeline.h"

#define GS_GPU_MAX_DEPTH 64
#define GS_GPU_ALIGN 256ull /* cudaMalloc alignment; also what we count per allocation */

/* Fill st from a CUDA error: "gpu 0: cudaMemcpyAsync: <reason>"; out of memory -> GS_ENOMEM. */
int gs_cu_fail(gs_status *st, cudaError_t e, const char *call, int dev);

#define GS_CU(dev, call)                                                 \
    do {                                                                 \
        cudaError_t e_ = (call);                                         \
        if (e_ != cudaSuccess) return gs_cu_fail(st, e_, #call, (dev));  \
    } while (0)

/* Why cudaGetDeviceCount failed (e) or found nothing: no driver library, no device, an old driver. */
void gs_gpu_why_none(cudaError_t e, char *why, size_t len);

/* 1 if `dev` can run this build's kernels; else 0 with the reason in why. */
int gs_gpu_probe(int dev, char *why, size_t len);

typedef struct gs_gpu_slot {
    /* device buffers (mode once: for the whole run; per-chunk/async: for the chunk in flight) */
    char *d_in;      /* (H + C) * isz: [halo | chunk], 256-aligned start (unused when mapped) */
    char *d_out;     /* out values of one chunk (unused when mapped) */
    void *d_scratch; /* per-chunk/async modes only; mode once shares g->d_scratch */
    cudaEvent_t ev_h2d0, ev_h2d1, ev_k0, ev_k1, ev_d2h0, ev_d2h1;
    /* the chunk in flight here */
    gs_chunk *in, *out;
    uint64_t n, vals;     /* input elements; output values (compact: known once the count is back) */
    int empty;            /* n == 0: nothing was queued */
    int h2d_done;         /* H2D events were recorded for this chunk */
    int d2h_issued;       /* D2H events were recorded for this chunk */
    /* a chain: stage k's output when k is not the last (head room for stage k+1's halo first), and
     * the event after stage k on the k stream (its time; a compaction's count is valid there) */
    char *d_mid[GS_CHAIN_MAX];
    cudaEvent_t ev_st[GS_CHAIN_MAX];
    /* zstd frames: their compressed bytes (once the slot's chunk came as frames: zdec), and the
     * event between their H2D and their decoding */
    unsigned char *d_comp;
    unsigned char *d_zfix; /* decoded frames whose place is not at the decoder's alignment (a
                              minmax halo of odd length before it), copied there after */
    cudaStream_t zs;       /* the slot's decoding stream: chunks in flight decode at once */
    cudaEvent_t ev_z;
    int zdec;
    uint64_t zbytes;
    /* output encoded as zstd frames (zenc: its bytes, raw, queued at ev_d2h0..ev_d2h1 on zs), and
     * the events around the copy of the packed frames */
    uint64_t zenc;
    int zcount; /* queued with the device's count (a compaction): zenc is the bound until retire */
    cudaEvent_t ev_zc0, ev_zc1;
} gs_gpu_slot;

typedef struct gs_gpu gs_gpu;

/* One operation's part of the schedule: its sizes, its carry across chunks, its launch. The
 * schedule calls these in stream order on the k stream; a chain runs several per chunk. */
typedef struct gs_gpu_op {
    gs_op op;
    /* Sizes for input type `in`: g->osz, g->cols, g->H; checks the parameters. */
    int (*setup)(gs_gpu *g, gs_type in, gs_status *st);
    /* 1 if the variant has a launcher for this op. */
    int (*has_launcher)(const gs_variant *v);
    /* The variant accepts these parameters (type, op, predicate, widening). */
    int (*check)(const gs_gpu *g, gs_status *st);
    /* Scratch bytes of one launch over chunks of C elements. */
    size_t (*scratch)(const gs_gpu *g, uint64_t C);
    /* Device bytes the carry holds for the run (counted in the budget). */
    uint64_t (*carry_bytes)(const gs_gpu *g, uint64_t C);
    /* Allocate and initialise the carry (once, after the streams exist). */
    int (*carry_init)(gs_gpu *g, gs_status *st);
    /* Output values of a chunk of n inputs after hl halo elements, and the first window end
     * (minmax); the default is n values from 0. */
    void (*plan)(const gs_gpu *g, uint64_t n, uint64_t hl, uint64_t *first, uint64_t *vals);
    /* Before the kernel, on the k stream: carry into the chunk (minmax: halo into the head). */
    int (*carry_in)(gs_gpu *g, char *kin, uint64_t hl, gs_status *st);
    /* The kernel on the k stream. */
    int (*launch)(gs_gpu *g, const char *kin, char *kout, uint64_t n, uint64_t m, uint64_t first, void *scratch,
                  gs_status *st);
    /* After the kernel, on the k stream: carry out (minmax: tail to d_halo; compact: publish the
     * count of slot s); updates the host's view (g->hl, g->base). */
    int (*carry_out)(gs_gpu *g, int s, const char *kin, uint64_t n, uint64_t m, gs_status *st);
    /* 1: the output count is known only after the kernel (compact). */
    int counted;
} gs_gpu_op;

struct gs_gpu {
    int dev;
    char devname[256];
    gs_job job;
    const gs_variant *v;
    const gs_gpu_op *ops;
    gs_op op;
    size_t isz, osz;  /* input element and output value sizes */
    int cols;         /* minmax: 2 with (min, max) pairs */
    int count_only;   /* compact --count: the values are never copied back */
    gs_host_mem host_mem;
    gs_dev_alloc dev_alloc;
    int mapped;       /* host_mem == mapped: kernels read and write host memory */
    int depth;
    uint64_t C;       /* input elements per chunk (after fitting the budget) */
    uint64_t H;       /* minmax halo capacity W-1 (0 otherwise) */
    size_t scratch_bytes;
    cudaStream_t s_h2d, s_k, s_d2h;
    int streams_made;
    cudaMemPool_t pool;
    int pool_made;
    void *d_scratch;  /* mode once */
    /* carries */
    void *d_carry;    /* scan: one out_type value */
    uint64_t *d_count;/* compact: the kernel's count, published to h_count[s] on the k stream */
    char *d_halo;     /* minmax: the last hl inputs of the stream so far */
    void *d_sink;     /* compact --count with mapped memory: where the unwanted values go */
    uint64_t *h_count;/* pinned and mapped, one per slot */
    uint64_t *dh_count;/* its device address */
    uint64_t hl;      /* halo elements the next chunk gets (host's copy of the device state) */
    uint64_t base;    /* elements submitted so far (compact --indices) */
    uint64_t nsub, nret;
    gs_gpu_slot slot[GS_GPU_MAX_DEPTH];
    uint64_t dev_cur, dev_peak, dev_budget;
    double t_h2d, t_k, t_d2h;
    uint64_t b_h2d, b_k, b_d2h;
    /* A chain (nst > 1): this struct is stage 0 and runs the schedule; st[k] holds stage k's
     * parameters, variant and carry (st[0] = this); last = st[nst - 1] writes d_out (last = this
     * without a chain). Per stage: kernel seconds and elements in, for --stats. */
    int nst;
    gs_gpu *st[GS_CHAIN_MAX];
    gs_gpu *last;
    double t_st[GS_CHAIN_MAX];
    uint64_t st_in[GS_CHAIN_MAX];
    /* zstd frames decoded here (NULL: chunks come decoded): the decoder, the check's verdict per
     * slot (pinned, mapped), decode seconds and decoded bytes */
    struct gs_gzdec *zd;
    unsigned *h_zbad, *dh_zbad;
    int zfirst; /* the first chunk of frames was decoded (see gpu_zqueue) */
    double t_zdec;
    uint64_t b_zout;
    /* the output encoded as zstd frames here (NULL: values go back): the encoder, its seconds and
     * the raw bytes it took */
    struct gs_gzenc *ze;
    double t_zenc;
    uint64_t b_zenc;
};

/* ---- gpu/codec_decode.cu: zstd frames decoded into the backend's input buffers ------------------
 * For chunks that arrive as compressed frames (gs_chunk.zn, from gs_reader_frames): nvCOMP's
 * batched decoder writes each frame where the kernels read it, then a check kernel takes every
 * frame's status, decoded size and XXH64 (four threads a frame, one per accumulator) against what
 * the host read from its header. One table set and temp area per chunk in flight (`slots`), so
 * the slots' queues may run at once on streams of their own. GS_EDATA saying why where nvCOMP is
 * not there. */
typedef struct gs_gzdec gs_gzdec;
int gs_gzdec_create(gs_gzdec **d, int dev, int slots, size_t max_frames, size_t frame_max, size_t max_bytes,
                    gs_status *st);
/* nvCOMP's alignment for compressed input and decoded output (at least 8). */
size_t gs_gzdec_in_align(const gs_gzdec *d);
size_t gs_gzdec_out_align(const gs_gzdec *d);
/* Device bytes it holds (temp area and tables). */
uint64_t gs_gzdec_dev_bytes(const gs_gzdec *d);
/* Queue on s: frames t[0..n), compressed at comp + t[i].off on the device, decoded to out + t[i].at
 * (out and every t[i].at at gs_gzdec_out_align); then the check, which sets *bad (device address
 * of memory the host reads) to 1 + the index of a frame that failed, and leaves it alone when all
 * are good. The slot's table is rewritten only after its previous queue has completed. */
int gs_gzdec_queue(gs_gzdec *d, int slot, const gs_zfref *t, size_t n, const unsigned char *comp, unsigned char *out,
                   unsigned *bad, cudaStream_t s, gs_status *st);
void gs_gzdec_destroy(gs_gzdec *d);
/* ---- gpu/codec_encode.cu: the backend's output encoded as zstd frames on the device ------------
 * For output chunks that go back as compressed frames (gs_engine_opts.zencode): nvCOMP's batched
 * encoder compresses the kernels' output buffer in frames of `frame` bytes into per-frame slots,
 * a kernel takes each frame's XXH64, another packs the frames end to end, and the table (sizes,
 * statuses, offsets, checksums) goes back to pinned memory; the caller reads it once the queue has
 * completed (gs_gzenc_take), then copies the packed bytes back (gs_gzenc_copy). One table set,
 * temp area and frame area per chunk in flight (`slots`). GS_EDATA saying why where nvCOMP is not
 * there. */
typedef struct gs_gzenc gs_gzenc;
int gs_gzenc_create(gs_gzenc **e, int dev, int slots, size_t frame, size_t max_bytes, gs_status *st);
size_t gs_gzenc_max_frames(const gs_gzenc *e);
/* The most bytes the frames of max_bytes of output can take. */
size_t gs_gzenc_bound(const gs_gzenc *e);
uint64_t gs_gzenc_dev_bytes(const gs_gzenc *e);
/* Queue on s: src[0, len) (device, at a multiple of 8, 0 < len <= max_bytes) encoded into slot's
 * frames, checksummed, packed, and its table copied back. With count (device-readable, e.g.
 * mapped; valid when the queue runs), only the first count x esize bytes (at most len): nothing
 * waits on the host for a compaction's count; the frames len allows past them are encoded from 8
 * bytes each and left out of the packed bytes. */
int gs_gzenc_queue(gs_gzenc *e, int slot, const unsigned char *src, size_t len, const volatile uint64_t *count,
                   size_t esize, cudaStream_t s, gs_status *st);
/* After the queue completed: the frames' table (off in the packed bytes, csize, at, dsize, xxh) for
 * the first len bytes (the count x esize of a queue with a count), *nframes and the packed *bytes;
 * an error where nvCOMP failed one of these frames or the table is not whole. */
int gs_gzenc_take(gs_gzenc *e, int slot, size_t len, gs_zfref *t, size_t *nframes, size_t *bytes, gs_status *st);
/* Queue on s the copy of the slot's packed bytes to host memory dst. */
int gs_gzenc_copy(gs_gzenc *e, int slot, void *dst, size_t bytes, cudaStream_t s, gs_status *st);
void gs_gzenc_destroy(gs_gzenc *e);

/* The zstd watchdog (nvCOMP's decoder has been seen never to finish on a corrupt frame): poll
 * stream s, or event ev where s is NULL, with short sleeps until done or past a deadline of a fixed
 * time plus `bytes` at a fixed rate (*limit: that deadline, seconds). cudaSuccess when done,
 * cudaErrorNotReady when the deadline passed (the process then stops calling CUDA:
 * gs_gpu_abandoned), else the query's error. */
cudaError_t gs_gpu_zwatch(cudaStream_t s, cudaEvent_t ev, uint64_t bytes, double *limit);

/* ---- gpu_memory.cu ---- */
uint64_t gs_gpu_al(uint64_t x);
uint64_t gs_gpu_out_vals(const gs_gpu *g, uint64_t C);
uint64_t gs_gpu_in_bytes(const gs_gpu *g);
uint64_t gs_gpu_out_bytes(const gs_gpu *g);
/* Fit the chunk (g->C) to the device budget (--device-mem-limit or 7/8 of the free memory). */
int gs_gpu_fit(gs_gpu *g, uint64_t want, const gs_engine_opts *o, gs_status *st);
/* Counted allocation: GS_DEV_ONCE and GS_DEV_PER_CHUNK use cudaMalloc, GS_DEV_ASYNC the pool on `stream`. */
int gs_gpu_dmalloc(gs_gpu *g, void **p, uint64_t bytes, gs_dev_alloc mode, cudaStream_t stream, gs_status *st);
int gs_gpu_dfree(gs_gpu *g, void **p, uint64_t bytes, gs_dev_alloc mode, cudaStream_t stream, gs_status *st);
/* Slot buffers for one chunk (per-chunk and async modes), and their release on `s`. */
int gs_gpu_slot_alloc(gs_gpu *g, gs_gpu_slot *sl, gs_status *st);
int gs_gpu_slot_release(gs_gpu *g, gs_gpu_slot *sl, cudaStream_t s, gs_status *st);
/* Host staging memory in the --host-mem mode (the backend's host_alloc/host_free). */
void *gs_gpu_host_alloc(gs_backend *b, size_t bytes, gs_status *st);
void gs_gpu_host_free(gs_backend *b, void *p);
/* Page-lock engine-allocated memory in place (--host-mem pinned only: cudaHostRegister). */
int gs_gpu_host_register(gs_backend *b, void *p, size_t bytes, gs_status *st);
void gs_gpu_host_unregister(gs_backend *b, void *p);
/* Device address of a chunk's data in mapped host memory. */
int gs_gpu_mapped_ptr(gs_gpu *g, const gs_chunk *c, char **dp, gs_status *st);

#endif
