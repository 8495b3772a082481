/* gpu/backend.cuh - the GPU backend's state and what its files share:
 *   backend.cu  the schedule (streams, events, submit/retire), stats, create and destroy
 *   ops.cu      each operation's part of the schedule (sizes, carry hooks, launch)
 *   chain.cu    the stages of a chain on the device
 *   frames.cu   chunks of zstd frames decoded where the kernels read them
 *   zencode.cu  the output encoded as zstd frames where the kernels wrote it
 *   textout.cu  the output formatted as text where the kernels wrote it
 *   textin.cu   the input's csv parsed on the device, for the reader
 *   memory.cu   counted device allocation, the budget fit, host staging memory (--host-mem)
 *   device.cu   CUDA's start-up, device queries, CUDA error mapping, the usability probe
 *   multi.cu    several devices in one run: chunks dealt in turn, carries passed on
 * Only these files include it. */
#ifndef GS_GPU_BACKEND_CUH
#define GS_GPU_BACKEND_CUH

#include "../gpu_internal.cuh"

#define GS_GPU_MAX_DEPTH 64
#define GS_GPU_ALIGN 256ull /* cudaMalloc alignment; also what we count per allocation */

/* Synchronisation flags for the events the host waits on. Spinning (default) wakes the driving
 * thread fastest, which keeps the next H2D queued; cudaEventBlockingSync frees a core for the
 * reader instead. Measure before changing. */
#ifndef GS_GPU_WAIT_EVENT_FLAGS
#define GS_GPU_WAIT_EVENT_FLAGS cudaEventDefault
#endif

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
    /* output formatted as text (tx: queued at ev_d2h0..ev_d2h1 on zs), into d_text with the
     * formatter's scratch d_tscr */
    char *d_text;
    void *d_tscr;
    int tx;
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
    unsigned file_flags; /* the direct input's cudaHostRegister flags (read-only where the device takes it) */
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
    /* the output formatted as text here (tcols 0: values go back): rows of tcols values joined by
     * tsep, of type ttype, at most tcap bytes a chunk; per slot, the text's length and whether a value needed the
     * host (on the device, and their copies in pinned memory); format seconds and the values formatted */
    int tcols;
    char tsep;
    gs_type ttype;
    uint64_t tcap;
    size_t tscr_bytes;
    uint64_t *h_tlen, *d_tlen;
    int *h_tbad, *d_tbad;
    double t_text;
    uint64_t b_text;
    /* the input's csv parsed here (NULL: the reader parses; textin.cu) */
    struct gs_gtin *tin;
};

/* ---- gpu/memory.cu ---------------------------------------------------------------------------- */
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
/* Host staging memory in the --host-mem mode (the backend's host_alloc/host_free); where the GPU
 * was given up (gs_gpu_abandoned), none is made and none freed (the process's end frees it). */
void *gs_gpu_host_alloc(gs_backend *b, size_t bytes, gs_status *st);
void gs_gpu_host_free(gs_backend *b, void *p);
/* Page-lock engine-allocated memory in place (--host-mem pinned only: cudaHostRegister). */
int gs_gpu_host_register(gs_backend *b, void *p, size_t bytes, gs_status *st);
int gs_gpu_host_unregister(gs_backend *b, void *p);
/* The plan's direct input: page-lock pages of a file mapped read-only where they lie, and release
 * them (gs_backend.file_register, file_unregister); and whether this device can (0 and why if not). */
int gs_gpu_file_register(gs_backend *b, const void *p, size_t bytes, gs_status *st);
void gs_gpu_file_unregister(gs_backend *b, const void *p, size_t bytes, int settled);
int gs_gpu_file_can(gs_gpu *g, int *can, char *why, size_t len, gs_status *st);
/* Device address of a chunk's data in mapped host memory. */
int gs_gpu_mapped_ptr(gs_gpu *g, const gs_chunk *c, char **dp, gs_status *st);


/* ---- ops.cu ------------------------------------------------------------------------------------- */
/* The part of the schedule for op (NULL: none on the GPU). */
const gs_gpu_op *gs_gpu_op_find(gs_op op);
/* Copy n elements of size isz (4 or 8; dst and src aligned to it) on `s` with a small kernel. */
int gs_gpu_copy(void *dst, const void *src, uint64_t n, size_t isz, cudaStream_t s, int dev, gs_status *st);
/* Every stage's carries from one schedule to another of the same chain (multi.cu), on to's k stream
 * (peer: to's device reads from's memory, or it is the same device: a kernel copies them). */
int gs_gpu_carry_pass(gs_gpu *to, const gs_gpu *from, int peer, gs_status *st);

/* ---- backend.cu --------------------------------------------------------------------------------- */
/* GS_OK, or where a device codec gave up on the GPU (the GPU zstd codec's watchdog: gs_gpu_abandoned)
 * the error that says no more work goes there. */
int gs_gpu_given_up(int dev, gs_status *st);
/* Seconds between two completed events (0 where they cannot say). */
double gs_gpu_ms(cudaEvent_t a, cudaEvent_t b);
/* Slot s's compaction count (op x's, published by its carry_out; at most `most` values) into
 * sl->vals, the values the kernel wrote counted in its bytes. */
int gs_gpu_take_count(gs_gpu *g, const gs_gpu *x, int s, gs_gpu_slot *sl, uint64_t most, gs_status *st);

/* ---- multi.cu ------------------------------------------------------------------------------------ */
/* The backend of several devices (c->opts->ndevices > 1 or GS_DEVICES_ALL): one GPU backend each. */
int gs_gpu_multi_create(gs_backend **out, const gs_backend_cfg *c, gs_status *st);

/* ---- chain.cu ------------------------------------------------------------------------------------ */
/* A chain on slot s, on the k stream: stage 0 reads [halo | chunk] at kin, the last writes d_out.
 * *vals: the last stage's output values (0 while a last compaction's count is unknown). */
int gs_gpu_chain_run(gs_gpu *g, int s, gs_gpu_slot *sl, char *kin, uint64_t n, void *scratch, uint64_t *vals,
                     gs_status *st);
/* The later stages, the shared scratch, the buffers between stages; and their release. */
int gs_gpu_chain_stages(gs_gpu *g, const gs_backend_cfg *c, gs_status *st);
int gs_gpu_chain_create(gs_gpu *g, gs_status *st);
void gs_gpu_chain_destroy(gs_gpu *g);

/* ---- frames.cu ----------------------------------------------------------------------------------- */
/* Set up decoding of the plan's zstd frames; where it cannot be had (nvCOMP, the device budget),
 * the chunks come decoded and why says so. */
void gs_gpu_zsetup(gs_gpu *g, gs_backend *b, const gs_backend_cfg *c, char *why, size_t len);
/* Chunk in's frames to slot s, decoded to dst and checked on the slot's stream (ev_h2d1 after). */
int gs_gpu_zqueue(gs_gpu *g, int s, gs_gpu_slot *sl, const gs_chunk *in, char *dst, gs_status *st);
/* Retire's first step for a chunk of frames: decoded in time, every frame passed the check. */
int gs_gpu_zretire(gs_gpu *g, int s, gs_gpu_slot *sl, gs_status *st);

/* ---- zencode.cu ---------------------------------------------------------------------------------- */
/* Set up encoding of the output in the plan's zstd frames; where it cannot be had, values go back
 * and why says so. */
void gs_gpu_zesetup(gs_gpu *g, gs_backend *b, const gs_backend_cfg *c, char *why, size_t len);
/* Whether slot sl's output goes back as zstd frames encoded on the device. */
int gs_gpu_zenc_wanted(const gs_gpu *g, const gs_gpu_slot *sl);
/* Encode on the slot's stream after kernel(k): `bytes` of d_out, or with count (a compaction's,
 * on the device) the count's values, at most `bytes`. */
int gs_gpu_issue_zenc(gs_gpu *g, gs_gpu_slot *sl, uint64_t bytes, const volatile uint64_t *count, gs_status *st);
/* Retire's wait for an encoded chunk, then its frames (or values) back into the output chunk. */
int gs_gpu_zenc_retire(gs_gpu *g, int s, gs_gpu_slot *sl, gs_status *st);

/* ---- textout.cu ---------------------------------------------------------------------------------- */
/* Set up formatting of the output as text (cfg->text_cols); where it cannot be had (the memory
 * mode, the device budget), values go back and why says so. */
void gs_gpu_tsetup(gs_gpu *g, gs_backend *b, const gs_backend_cfg *c, char *why, size_t len);
/* Whether slot sl's output of `vals` values goes back as text formatted on the device. */
int gs_gpu_text_wanted(const gs_gpu *g, const gs_gpu_slot *sl, uint64_t vals);
/* Format slot sl's `vals` values on the slot's stream after kernel(k) (ev_d2h0..ev_d2h1). */
int gs_gpu_issue_text(gs_gpu *g, gs_gpu_slot *sl, uint64_t vals, gs_status *st);
/* Retire's wait for a formatted chunk, then its text back into the output chunk's buffer; where a
 * value needed the host or the text would not fit, the values go back instead. */
int gs_gpu_text_retire(gs_gpu *g, int s, gs_gpu_slot *sl, gs_status *st);
/* The slots' text buffers and the results, freed. */
void gs_gpu_text_free(gs_gpu *g);

/* ---- textin.cu ----------------------------------------------------------------------------------- */
/* Set up the csv parser (cfg->text_in) as b->text_in; where it cannot be had (memory), why says so
 * and the reader parses. */
void gs_gpu_tin_setup(gs_gpu *g, gs_backend *b, const gs_backend_cfg *c, char *why, size_t len);
/* For --stats: seconds the reader spent in the parser, bytes of text parsed, blocks declined. */
void gs_gpu_tin_stats(const gs_gpu *g, double *busy, uint64_t *bytes, uint64_t *declined);
/* The parser, its stream and buffers, freed (once the reader no longer calls it). */
void gs_gpu_tin_free(gs_gpu *g);
#endif
