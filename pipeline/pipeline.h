/* pipeline.h - the chunk engine: source -> decode -> staging ring -> backend -> encode -> sink.
 *
 * Threads: a reader (decoding with the thread pool), the caller's thread driving the backend,
 * and a writer (encoding with the pool). Chunks carry a sequence number and move through
 * bounded queues, so memory is ~ (buffers + 2) x chunk whatever the input size.
 * Backends: cpu (thread pool, pipeline/cpu/) and gpu (CUDA streams, pipeline/gpu/); what runs is
 * the plan's (plan.h). */
#ifndef GS_PIPELINE_H
#define GS_PIPELINE_H

#include "../common/gs.h"
#include "../kernels/kernels.h"
#include "../io/io.h"
#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "pinned", "pageable", "registered", "mapped"; parse: 0, or -1 for another word */
const char *gs_host_mem_name(gs_host_mem m);
int gs_host_mem_parse(const char *s, gs_host_mem *m);
#define GS_NDEV_ALLOC 3
/* --device-alloc names, indexed by gs_dev_alloc (pipeline/job.c). */
extern const char *const gs_dev_alloc_names[GS_NDEV_ALLOC];

/* What to compute. */
typedef struct gs_job {
    gs_op op; /* GS_OP_NONE = convert */
    gs_scan_params scan;
    gs_compact_params compact;
    gs_minmax_params minmax;
    int partial;     /* minmax --partial */
    int roll_out_type_given; /* rolling: minmax.out_type is --out-type's (else gs_roll_out_type's) */
    int as_rolling;  /* minmax's job for a rolling of min and max alone (its bytes): named rolling */
    int count_only;  /* compact --count: no output, count reported */
    const char *algo;/* --algo, NULL = default */
    gs_type out_type;/* convert: output type */
    /* Where this run starts inside a longer stream (an MPI rank's shard): the scan carry on
     * entry when has_carry (else the identity), and the index of compact's first element. */
    int has_carry;
    gs_value carry;
    uint64_t index_base;
    /* compact --rows (with compact.indices set): the writer writes the input rows of the positions
     * (gs_source.text) instead of the positions */
    int rows;
    /* --keep (scan, minmax, rolling; compact with compact.indices set): the writer writes the kept
     * columns of each result's input row before it (gs_source.text), as CSV rows; a window's row is
     * the one at its right end */
    int keep;
    /* The input row of that first element (index_base plus the rows the stream dropped before it):
     * positions written as input rows (gs_source.rows) are row_base + the row within this run. */
    uint64_t row_base;
    /* minmax continuing a stream: the halo_len (<= W-1) inputs just before this start, read by
     * the backend when it is created */
    const void *halo;
    uint64_t halo_len;
    /* Where in_known (the engine sets it for a source of known length): at most in_max inputs reach
     * this stage in this run, the halo included, so a window keeps no more than in_max of them. */
    int in_known;
    uint64_t in_max;
} gs_job;

/* A chain: stages run one after another on every chunk, each with its own carry; the output
 * type of a stage is the input type of the next (`gpustream compact ... then scan then ...`).
 * A single verb is a chain of one. Every stage but the last writes one column (minmax --only),
 * and only the last may be compact --count. */
#define GS_CHAIN_MAX 8
typedef struct gs_chain {
    int n;
    gs_job stage[GS_CHAIN_MAX];
} gs_chain;

struct gs_backend_parts;

/* How to run it: the user's options, and the plan made from them (plan.h). */
typedef struct gs_engine_opts {
    gs_backend_kind backend;
    int device;                /* the GPU (the first of devices[] where ndevices > 1) */
    /* --device 0,1 or all: the GPUs the GPU backend deals chunks to in turn, each chunk's carries
     * passed on to the next one's device (pipeline/gpu/multi.cu). ndevices 0 or 1: `device` alone;
     * GS_DEVICES_ALL: every GPU the machine has (devices[] unused). */
    int ndevices;
    int devices[GS_DEVICES_MAX];
    size_t chunk_bytes;        /* input bytes per chunk (0: the plan's) */
    int buffers;               /* chunks in flight on the GPU (0: the plan's) */
    gs_host_mem host_mem;
    gs_dev_alloc dev_alloc;
    uint64_t device_mem_limit; /* 0 = no cap */
    int threads;               /* 0 = all cores */
    /* Called from the driving thread about every 0.25 s (NULL = none): bytes read so far, the
     * input's total bytes (-1 if unknown), seconds since the start. The CLI draws the line. */
    void (*progress)(void *ctx, uint64_t bytes_in, int64_t total_bytes, double elapsed);
    void *progress_ctx;
    int64_t total_bytes;       /* input size for the progress ETA, -1 if unknown */
    /* Called from the driving thread when the run falls back to the CPU for lack of a usable GPU,
     * or the GPU backend cannot take the zstd frames (NULL = none): the CLI shows it with -v or
     * --stats. */
    void (*note)(void *ctx, const char *msg);
    void *note_ctx;
    /* The run's plan (plan.h), made by the caller (made == 0: the engine makes one from the options
     * above, with the codecs on the host). The engine settles it for its source and writer; a
     * backend reads its zstd work there (plan.zdecode, plan.zencode). */
    gs_plan plan;
    /* The backends the plan's are made from (NULL: the CPU and GPU backends built in; tests give
     * fakes: pipeline/backends.h). */
    const struct gs_backend_parts *parts;
    /* A source of several columns under compact --count (NULL: not wanted): each column's count. */
    uint64_t *col_counts;
} gs_engine_opts;

/* What happened, for --stats. Times are seconds of busy time per stage. */
typedef struct gs_stage_stat {
    const char *name;
    double busy;
    uint64_t bytes;
} gs_stage_stat;
#define GS_STAGE_WRITE "encode+write" /* the writer's stage; its bytes are the output's */
#define GS_STAGE_WARM "cpu (cuda starting)" /* chunks run on the CPU while CUDA started */
#define GS_STAGE_PIN "file pin"     /* the direct input: windows of the mapped file page-locked */
#define GS_STAGE_UNPIN "file unpin" /* ... and released (the bytes: those page-locked) */

typedef struct gs_run_stats {
    double wall;
    uint64_t elems_in, elems_out; /* out: rows (minmax pairs count as one row) */
    uint64_t bytes_in, bytes_out; /* file/pipe bytes */
    uint64_t chunks;
    gs_stage_stat stage[8 + GS_CHAIN_MAX];
    int nstages;
    char stage_label[GS_CHAIN_MAX][32]; /* names of a chain's per-stage rows ("1 compact") */
    uint64_t chain_in[GS_CHAIN_MAX];    /* a chain's elements into each stage */
    uint64_t peak_rss;        /* bytes */
    uint64_t peak_device_mem; /* bytes of device memory this run allocated, at most */
    uint64_t skipped;         /* csv fields skipped */
    const char *backend;      /* "cpu" or "gpu: NVIDIA H200" (may point into backend_text) */
    const char *algo;         /* variant used (may point into algo_text) */
    char backend_text[288], algo_text[GS_CHAIN_MAX * 24];
    char why[512];            /* why this backend: "auto: input 4096 B < crossover 64 MiB; CUDA not initialised" */
    double cuda_init;         /* seconds CUDA start-up took on its own thread; -1 if never started */
    double release;           /* seconds spent releasing staging and device memory after the wall time */
    double gpu_setup;         /* seconds creating the GPU backend once CUDA was up (buffers, streams); -1 if none */
} gs_run_stats;

/* A source of elements: a gs_reader or the generator. */
typedef struct gs_source {
    int (*read)(void *ctx, void *buf, size_t cap, size_t *got, gs_status *st);
    void *ctx;
    gs_type type;
    int64_t count; /* elements if known, else -1 */
    uint64_t (*bytes)(void *ctx); /* bytes consumed so far, or NULL */
    /* Optional (NULL: none): the next chunk as compressed frames (gs_reader_frames). */
    int (*frames)(void *ctx, const gs_zframes_req *q, size_t *nframes, size_t *elems, gs_status *st);
    /* Optional (NULL: none, the source is no mapped file): the next up to cap elements where they
     * lie (gs_reader_view), consumed only where take is set; *got = 0 where not now (read instead). */
    int (*view)(void *ctx, size_t cap, int take, const void **p, size_t *got, gs_status *st);
    /* Optional (NULL: the stream is the input's rows): the rows the source dropped, by stream
     * position (common/rowmap.h). The engine writes positions (compact --indices, last in a chain
     * whose earlier stages keep positions) as input rows through it, on the host, whatever backend
     * computed them. */
    const struct gs_rowmap *rows;
    /* Optional (NULL: none): the input rows of the values (compact --rows), by stream position. */
    gs_rowtext *text;
    /* Columns read in one pass (0 or 1: one): each element read is a row of that many values of
     * `type`, one per column, and the run computes each column on its own (pipeline/columns.c). */
    int cols;
    /* The values are parsed from text on the host (CSV or text input). */
    int parsed;
    /* Optional (NULL: none): blocks of the input's text offered to p before the source parses them
     * (gs_reader_text_parser; NULL: none again), where the source can take values parsed elsewhere. */
    void (*text_parser)(void *ctx, const gs_text_parser *p);
} gs_source;

gs_source gs_source_from_reader(gs_reader *r);

/* Why compact takes several columns only as the last stage's --count, and --rows one column (the
 * engine and the CLI). */
#define GS_COLUMNS_COMPACT                                                                                      \
    "compact keeps a different number of values in each column: with several columns (--col a,b) it counts " \
    "them (--count, one count a column); for the values, run one column at a time"
#define GS_COLUMNS_ROWS "--rows takes one column (--col C)"

/* The output type and columns a job writes for an input type. */
gs_type gs_job_out_type(const gs_job *j, gs_type in);
/* The inputs a windowed stage keeps from one chunk to the next: W-1, or fewer where in_known says
 * fewer reach it (0 for a stage without a window). */
uint64_t gs_job_halo(const gs_job *j);
/* The registry's op of the job's variants: GS_OP_ROLLING for a rolling job (a GS_OP_MINMAX job
 * with aggregates), else the job's op. */
gs_op gs_job_variant_op(const gs_job *j);
int gs_job_out_cols(const gs_job *j);
/* The verb a job is ("scan", ..., "rolling" for a minmax job with aggregates). */
const char *gs_job_name(const gs_job *j);
/* Rows the job will output for n inputs (n known), or -1 if it depends on the data. */
int64_t gs_job_out_rows(const gs_job *j, int64_t n);

/* The same for a chain (the last stage's columns, rows through every stage). */
int gs_chain_out_cols(const gs_chain *c);
/* The type the chain's last stage writes for input of type in. */
gs_type gs_chain_out_type(const gs_chain *c, gs_type in);
int64_t gs_chain_out_rows(const gs_chain *c, int64_t n);
/* 1 where the chain writes positions of its input stream: its last stage is compact --indices (or
 * --rows) and no stage before it filters (scan and minmax keep positions). */
int gs_chain_writes_positions(const gs_chain *c);
/* The columns of a row where the chain's output may go to w as text formatted elsewhere (csv or text
 * whose columns all print in the chain's output type: gs_writer_text_form), for one input column
 * and an output that carries no input rows (positions or argmin/argmax mapped through src->rows,
 * --keep, --rows); else 0. *sep: the delimiter (pipeline/rowsout.c). */
struct gs_source;
int gs_chain_text_form(const gs_chain *chain, const struct gs_source *src, const gs_writer *w, char *sep);
/* 1 where stages [0, upto) keep positions one to one (scan, minmax/rolling --partial): a position
 * of stage upto's input is one of the chain's input. */
int gs_chain_keeps_rows(const gs_chain *c, int upto);
/* The columns of a rolling job that hold positions (argmin, argmax) as bits of *mask; 1 where any. */
int gs_job_arg_cols(const gs_job *j, unsigned *mask);
/* Check a chain of two or more stages whose stage parameters are filled in for the input type
 * `in`: the shape rules (one column between stages, --count last, no convert) and that each
 * stage's variant accepts its parameters. GS_EUSAGE with "stage K (VERB): ..." otherwise. */
int gs_chain_check(const gs_chain *c, gs_type in, gs_status *st);
/* The scan carry a run starts with: j->carry, or the identity of the op. */
void gs_job_scan_start(const gs_job *j, gs_value *carry);

/* Parse a --pred text ("nonzero", "gt:5", "range:A:B", ...) with operands in type t into p->pred,
 * p->a, p->b. GS_EUSAGE with a message on anything else. */
int gs_pred_parse(const char *s, gs_type t, gs_compact_params *p, gs_status *st);

/* Resolve the variant for the job and backend (checks it accepts the job); without --algo, the
 * default for the backend at `threads` CPU threads (0 = all cores). */
int gs_job_resolve(const gs_job *j, gs_where where, int threads, const gs_variant **v, gs_status *st);
/* The same for every stage of a chain (v[k]); errors name the stage of a chain of two or more. */
int gs_chain_resolve(const gs_chain *c, gs_where where, int threads, const gs_variant **v, gs_status *st);

/* Run: read all of src, compute, write to w (NULL with count_only). *count receives the
 * compact count (or output rows). stats may be NULL. */
int gs_engine_run(const gs_job *job, const gs_engine_opts *o, gs_source *src, gs_writer *w,
                  uint64_t *count, gs_run_stats *stats, gs_status *st);
/* The same for a chain; gs_engine_run is a chain of one. */
int gs_engine_run_chain(const gs_chain *chain, const gs_engine_opts *o, gs_source *src, gs_writer *w,
                        uint64_t *count, gs_run_stats *stats, gs_status *st);

/* ---- backends -------------------------------------------------------------------------------
 * The engine owns the chunk ring; a backend computes chunks in order, possibly asynchronously.
 * Input buffers have `halo` elements of head room before the data (minmax: W-1), which the
 * backend may use. The engine knows backends through this interface alone: the CPU backend
 * (pipeline/cpu/), the GPU backend (pipeline/gpu/), and the composite that runs chunks on the CPU
 * while the GPU starts (pipeline/warm.c). */
typedef struct gs_chunk {
    void *buf;       /* allocation start (head room first) */
    void *data;      /* = buf + halo elements: the chunk's elements */
    size_t n;        /* elements (input) or values (output) */
    size_t cap;      /* capacity in elements/values, head room excluded */
    uint64_t seq;
    /* An input chunk of zn > 0 zstd frames (a backend with zalign only): frame i's compressed
     * bytes at buf + zt[i].off, zbytes in all; they decode to the chunk's n elements. An output
     * chunk of zn > 0 frames (a backend with zenc_tab_max only): the same, encoding its n values
     * (each frame as the encoder wrote it: the writer adds content size and checksum). */
    gs_zfref *zt;
    size_t zn, zbytes;
    size_t zcap; /* an output chunk: bytes its buffer holds for frames (0: values only) */
    /* An output chunk of the backend that formats text (gs_backend.text_cols): tlen > 0 bytes of its
     * n values' text at buf (whole rows in the writer's form, gs_writer_write_text); 0: values.
     * tcap: the bytes its buffer holds for text (0: values only). */
    size_t tlen, tcap;
    uint64_t in_end; /* an output chunk, once retired: the input elements up to the end of its input */
} gs_chunk;

typedef struct gs_backend gs_backend;
struct gs_backend {
    const char *name;
    /* Staging memory for chunks (pinned for the GPU unless --host-mem says otherwise). */
    void *(*host_alloc)(gs_backend *b, size_t bytes, gs_status *st);
    void (*host_free)(gs_backend *b, void *p);
    /* Optional (NULL: the engine uses host_alloc): page-lock memory the engine allocated itself,
     * which costs a fraction of a fresh pinned allocation. host_unregister undoes it before the
     * engine frees the memory: 0, or 1 where the memory must be left alone (the device gave up and
     * may still use it: the process's end frees it). */
    int (*host_register)(gs_backend *b, void *p, size_t bytes, gs_status *st);
    int (*host_unregister)(gs_backend *b, void *p);
    /* Optional (NULL: none), for the plan's direct input (plan.direct, pipeline/direct.c): page-lock
     * [p, p + bytes), pages of a file mapped read-only, so that the copies read the chunks there
     * (the GPU: cudaHostRegister, read-only where the device requires it). May be called from
     * several threads at once. Non-zero where refused: the engine copies the chunks instead.
     * file_unregister undoes it: `settled` when no chunk in the range is in flight, else (the end
     * of a failed run) the backend waits for what may still read it. */
    int (*file_register)(gs_backend *b, const void *p, size_t bytes, gs_status *st);
    void (*file_unregister)(gs_backend *b, const void *p, size_t bytes, int settled);
    /* Accept chunk `in`, to produce its output into `out`. May return before it is done.
     * At most `depth` chunks are in flight; the engine retires before submitting more. */
    int (*submit)(gs_backend *b, gs_chunk *in, gs_chunk *out, gs_status *st);
    /* Wait for the oldest chunk in flight; return its in/out chunks with out->n set. */
    int (*retire)(gs_backend *b, gs_chunk **in, gs_chunk **out, gs_status *st);
    /* For --stats, called once the run is over, right after the engine appended the backend's own
     * row (its name, busy time and the bytes it took): its stages (H2D, kernel, D2H ...), the
     * device memory peak, the variants (s->algo), the backend's name (s->backend), and what it adds
     * to the reason for the backend (s->why). */
    void (*stats)(gs_backend *b, gs_run_stats *s);
    /* Optional (NULL: nothing to wait for): after a failure, before the engine frees anything,
     * wait for what is still queued; where that never ends (a zstd decoder on corrupt input), give
     * the device up so that no later call waits on it. */
    void (*quiesce)(gs_backend *b);
    void (*destroy)(gs_backend *b);
    /* Optional (NULL: ready when made): finish making the backend, waiting for what it needs (a
     * GPU's start-up); the fields below are final only once it returned. The engine calls it
     * before the first submit, except that a backend with `early` set takes chunks while it has
     * not started and runs each at once (the engine retires it before the next); `ready` then
     * says whether start would still wait. */
    int (*start)(gs_backend *b, gs_status *st);
    int (*ready)(gs_backend *b);
    int early;
    /* Optional: the job that continues where b stopped, every chunk retired: *j with stage 0's
     * carries, the scan carry, the compact index base and the minmax halo (j->halo points into
     * b's memory: copy it before b is destroyed). A backend made with that job continues the
     * stream, as an MPI rank's engine continues from its shard's carries. */
    void (*resume)(const gs_backend *b, gs_job *j);
    int pins;                /* chunks read before start are page-locked (host_register) or moved to
                                host_alloc memory before the backend reads them */
    int depth;               /* chunks that may be in flight at once (>= 1); after start, at most
                                what it was when made */
    size_t max_head;         /* 0: input buffers get cfg->halo elements of head room; else at most
                                this many (the backend joins a longer halo to the chunk itself) */
    size_t chunk_elems;      /* input elements per chunk the backend accepts (<= cfg->chunk_elems);
                                the engine sizes its staging buffers from this after start */
    /* zstd frames decoded by the backend (0: it takes decoded chunks only): compressed bytes at
     * multiples of zalign, zbuf_max in all, at most ztab_max frames of at most zframe_max bytes,
     * each starting at a multiple of zunit decoded bytes (a gs_zframes_req). */
    size_t zalign, zunit, zframe_max, ztab_max, zbuf_max;
    /* Output as zstd frames (0: values only): an output chunk may come back as at most
     * zenc_tab_max frames (its zt and zcap, given by the engine) in at most zenc_bytes of its
     * buffer; a chunk without them, or whose frames would not fit, comes back as values. */
    size_t zenc_tab_max, zenc_bytes;
    /* Output as text (0: values only; cfg->text_cols asks for it): an output chunk whose tcap holds
     * its text may come back as text (tlen). */
    int text_cols;
    /* Input text parsed by the backend (NULL: none; cfg->text_in asks for it): the parser the engine
     * gives the source (gs_source.text_parser) once the backend has started, valid until destroy. */
    const gs_text_parser *text_in;
    void *impl;              /* backend state */
};

/* Job parameters resolved for a backend. */
typedef struct gs_backend_cfg {
    const gs_job *job;
    const gs_variant *variant;
    gs_type in_type, out_type;
    size_t chunk_elems; /* max input elements per chunk */
    size_t halo;        /* head room elements (minmax W-1) */
    size_t out_cap;     /* output values per chunk */
    const gs_engine_opts *opts;
    /* A chain of two or more stages (NULL: job alone): stage k reads types[k], writes types[k+1]
     * with variants[k]; job and variant above are stage 0's. */
    const gs_chain *chain;
    const gs_variant *const *variants;
    const gs_type *types;
    /* The output as text formatted by the backend where it can (the plan's text_gpu): rows of
     * text_cols values joined by text_sep (0: values only). */
    int text_cols;
    char text_sep;
    /* The input's csv parsed by the backend where it can (the plan's parse_gpu): gs_backend.text_in. */
    int text_in;
} gs_backend_cfg;

/* A zeroed backend whose impl is a zeroed impl_bytes (both freed with free()); NULL with
 * GS_ENOMEM in st where memory is short. */
gs_backend *gs_backend_alloc(size_t impl_bytes, gs_status *st);
int gs_backend_cpu_create(gs_backend **b, const gs_backend_cfg *c, gs_status *st);
/* GPU backend, made at once (a caller that began CUDA's start-up waits for it first:
 * gs_gpu_init_wait); GS_EDATA with a message if no usable device. */
int gs_backend_gpu_create(gs_backend **b, const gs_backend_cfg *c, gs_status *st);
/* CUDA start-up (context creation, device checks) on its own thread, at most once per process, so
 * that it overlaps opening the input and reading the first chunks. gs_gpu_init_wait joins it
 * (starting it if need be): 1 if `device` is usable, else 0 with the true reason (no driver
 * library, no device, a driver older than the runtime, built without CUDA); *secs = its duration
 * (-1 where nothing was started). */
void gs_gpu_init_start(int device);
/* The same for several devices (n of devs, or GS_DEVICES_ALL: every one, devs unused): the first's
 * start-up as above, the others' contexts made beside it on threads of their own. */
void gs_gpu_init_start_list(const int *devs, int n);
int gs_gpu_init_wait(int device, char *why, size_t len, double *secs);
/* 1 once the start-up begun by gs_gpu_init_start has finished (or none was begun): a wait would
 * not block. */
int gs_gpu_init_ready(void);
/* 1 if this process started CUDA (gs_gpu_init_start), whatever came of it. */
int gs_gpu_started(void);
/* The same start-up for an MPI rank before MPI_Init: the device is the rank's (local_rank mod the
 * device count), chosen on that thread; gs_gpu_init_device waits until it is chosen (not for the
 * rest of the start-up) and returns it, or -1 where there is no device (gs_gpu_init_wait says why). */
void gs_gpu_init_start_rank(int local_rank);
int gs_gpu_init_device(void);
/* The devices the start-up found, waiting for its count (not for the rest of the start-up); 0 where
 * there are none or no start-up was begun. */
int gs_gpu_init_count(void);
/* 1 if this build has CUDA and a device is usable; fills a description (else the reason). */
int gs_gpu_available(int device, char *desc, size_t desc_len);
/* One line per device for `info` (empty string if none); returns device count (0 if none). */
int gs_gpu_describe(char *buf, size_t len);

/* ---- GPU zstd (pipeline/gpu/codec_*.cu: nvCOMP, loaded at run time) ----------------------------------------------------
 * The codec for each direction is the plan's (plan.h, --codec). */
/* 1 once a device codec gave up on its GPU (its watchdog expired, a kernel may still run there):
 * nothing may call CUDA again in this process, teardown included; the process just exits. */
int gs_gpu_abandoned(void);
/* What the messages about it say. */
#define GS_GPU_NO_LONGER_USED "the GPU is no longer used"
/* A device codec for io's readers and writers; GS_EDATA saying what is missing (CUDA, nvCOMP,
 * a GPU) when it cannot be had. One per reader or writer. */
int gs_gpu_zcodec_create(gs_zcodec **c, int device, gs_status *st);
/* The same made ahead: only nvCOMP is loaded now, and the process's CUDA start-up begun
 * (gs_gpu_init_start) on its own thread, beside opening and reading the input; the codec's first
 * call waits for it. Where the device did not start, a strict codec (--codec gpu) fails that call
 * with the reason; another (--codec auto) stops (gs_zcodec.stopped), so that libzstd does its
 * work. Fails at once only where nvCOMP cannot be loaded. */
int gs_gpu_zcodec_create_ahead(gs_zcodec **c, int device, int strict, gs_status *st);
void gs_gpu_zcodec_destroy(gs_zcodec *c);
/* For info: "nvCOMP 6.0.0 (path)", or why it is not there. Returns 1 if the library is loaded. */
int gs_nvcomp_describe(char *buf, size_t len);

/* ---- generator (pipeline/gen.c) --------------------------------------------------------------- */
typedef enum gs_dist { GS_DIST_UNIFORM = 0, GS_DIST_NORMAL, GS_DIST_WALK, GS_DIST_SPARSE, GS_DIST_SINE } gs_dist;
typedef struct gs_gen_opts {
    uint64_t n;
    gs_type type;
    gs_dist dist;
    double a, b; /* uniform A:B, normal MU:SIGMA, sparse P (a), sine PERIOD (a) */
    uint64_t seed;
} gs_gen_opts;
/* Parse "uniform:0:100", "normal:0:1", "walk", "sparse:0.5", "sine:1000". */
int gs_dist_parse(const char *s, gs_gen_opts *g, gs_status *st);
/* A source that yields the series; value i depends only on (seed, i), never on chunking. */
int gs_gen_source(gs_source *s, const gs_gen_opts *g, gs_status *st);
void gs_gen_source_free(gs_source *s);

#ifdef __cplusplus
}
#endif
#endif
