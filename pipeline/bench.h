/* bench.h - `gpustream bench`: every variant timed and verified against the CPU reference, and
 * the ceilings (device copy, PCIe both ways, pinned and pageable) measured in the same run.
 *   device mode: each GPU variant on data already in device memory (CUDA events, warm-up,
 *                median of repeats, inputs larger than L2 or L2 flushed between repeats), once per
 *                listed block size it accepts (--block), else once at its default;
 *   cpu mode:    each CPU variant (wall clock, median of repeats);
 *   stream mode: the backend's whole host -> device -> host schedule from staging buffers
 *                already filled (no file or pipe in the way), per host-memory mode and buffer count. */
#ifndef GS_BENCH_H
#define GS_BENCH_H

#include "pipeline.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_BENCH_MAXBLOCKS 6 /* 32 .. 1024 */

typedef struct gs_bench_opts {
    unsigned ops;           /* bit (1 << gs_op) for scan, compact, minmax, rolling (GS_OP_ROLLING) */
    int nagg;               /* rolling: --agg (none: mean) */
    unsigned char agg[GS_ROLL_COLS_MAX];
    uint64_t sizes[16];
    int nsizes;
    gs_type types[GS_NTYPES];
    int ntypes;
    const char *algos;      /* comma list, or NULL / "all" */
    int blocks[GS_BENCH_MAXBLOCKS]; /* GPU threads per block to sweep (--block); none = each variant's default */
    int nblocks;
    uint64_t windows[8];
    int nwindows;
    double densities[8];    /* compact: fraction kept */
    int ndensities;
    int reps;
    int stream;             /* stream mode instead of device/cpu mode */
    gs_host_mem host_mems[4];
    int nhost_mems;
    int buffers[4];
    int nbuffers;
    gs_dev_alloc dev_allocs[GS_NDEV_ALLOC]; /* stream mode: --device-alloc list (none = once) */
    int ndev_allocs;
    size_t chunk_bytes;     /* stream mode chunk */
    gs_backend_kind backend;/* auto: GPU variants if a GPU is usable, else CPU variants */
    int device;
    int zstd;               /* zstd mode instead of device/cpu mode */
    size_t frames[8];       /* zstd mode: uncompressed bytes per frame */
    int nframes;
    int level;              /* zstd mode: libzstd's level (0 = 3) */
    gs_gen_opts gen;        /* zstd mode: the data's distribution and seed (n and type per case) */
} gs_bench_opts;

typedef struct gs_bench_row {
    const char *mode;      /* "device", "cpu", "stream", "chain", "zstd" */
    const char *op;        /* "scan", "compact", "minmax"; zstd mode: "encode", "decode" */
    const char *variant;
    gs_type type;
    uint64_t n;
    char param[48];        /* "sum", "density=0.50", "W=500", "pinned buffers=2" */
    int block;             /* GPU threads per block used (the variant's default when none was asked
                              for); 0 for variants without one (cub), CPU and stream rows */
    double ms;             /* median */
    double gelem_s, gb_s;  /* elements / s; bytes moved (in + out) / s, zstd mode: raw bytes / s */
    double pct_ceiling;    /* % of the measured device copy (device), PCIe (stream) or pinned H2D (zstd) */
    double vs_cub;         /* time of plain CUB / time of this (> 1 = faster than CUB); 0 = no
                              plain-CUB row in the case (minmax, CPU, a case CUB has no call for) */
    int passed;            /* 1 passed, 0 FAILED, GS_BENCH_REFERENCE: the reference's own row */
    char why[512];         /* what failed */
} gs_bench_row;

#define GS_BENCH_REFERENCE 2 /* gs_bench_row.passed of the reference variant: nothing to compare */

typedef struct gs_bench_env {
    char gpu[256];          /* name, or empty */
    char driver[32];
    int sm_clock_mhz, mem_clock_mhz, sms;
    int l2_bytes;
    double copy_gbs;        /* device-to-device, read + write */
    double h2d_gbs, d2h_gbs, both_gbs; /* pinned; both = each way while both run */
    double h2d_pageable_gbs, d2h_pageable_gbs;
} gs_bench_env;

typedef void (*gs_bench_cb)(void *ctx, const gs_bench_row *row);

/* Measure the ceilings (GPU only; env->gpu stays empty without one). */
int gs_bench_ceilings(const gs_bench_opts *o, gs_bench_env *env, gs_status *st);
/* Run every selected case, calling cb once per row. */
int gs_bench_run(const gs_bench_opts *o, const gs_bench_env *env, gs_bench_cb cb, void *ctx, gs_status *st);
/* bench --chain: the chain (its stages' parameters set for in_type) from host memory to host memory through the backend's staging buffers, beside its stages run one by one over whole
 * arrays, for each size: a row per stage alone, one for their sum, one for the chain
 * (param: its speed-up over the stages one by one), checked against the stages one by one. */
int gs_bench_chain(const gs_bench_opts *o, const gs_bench_env *env, const gs_chain *ch, gs_type in_type,
                   gs_bench_cb cb, void *ctx, gs_status *st);
/* bench --zstd: for each type, size and frame size, data from opts->gen cut into frames and
 * compressed (op "encode") and decoded ("decode") by libzstd on the thread pool (host memory to
 * host memory, wall clock) and, with a GPU and nvCOMP, by nvCOMP (device memory to device
 * memory, events): nvCOMP decodes both its own frames and libzstd's. Medians of reps after a
 * warm-up; gb_s counts raw (uncompressed) bytes; param holds the frame size and, for encoding,
 * the ratio. Every row is checked: decoded bytes against the input, and each encoder's frames
 * decoded by libzstd. */
int gs_bench_zstd(const gs_bench_opts *o, const gs_bench_env *env, gs_bench_cb cb, void *ctx, gs_status *st);

/* How variant v takes part in device or cpu mode (use_gpu: GPU variants, else CPU ones): 0 if it
 * does not (its op or --algo not selected; cub always runs, beside the plain CUB call), else the
 * number of runs per case, with the params' block of each in blocks[]: the listed block sizes it
 * accepts, or one run at its default (0) when none are listed, it accepts none of them, or it is
 * a CPU variant. */
int gs_bench_plan(const gs_bench_opts *o, int use_gpu, const gs_variant *v, int blocks[GS_BENCH_MAXBLOCKS]);

/* The vendor reference of a device case: a direct CUB call on the same buffers, reported as the
 * row "plain-cub" before the variants and the reference of every row's vs_cub. It exists for
 * inclusive scans (sum, min, max; output type = input type) and for compaction with --pred
 * nonzero (values, not indices), on n < 2^31 (CUB's int item count, as its users call it). */
#define GS_BENCH_PLAIN_CUB "plain-cub"
int gs_bench_plain_cub_applies(const gs_job *job, uint64_t n);

/* ---- shared by the host half (bench.c, bench_zstd_chain.c) ------------------------------- */
/* The median of v[0..n) (sorts v); 0 when n is 0. */
double gs_bench_median(double *v, int n);
/* The generator's g->n values of g->type into buf. */
int gs_bench_gen_fill(const gs_gen_opts *g, void *buf, gs_status *st);
/* Fill an input for the op: scan uniform, compact sparse at the density (predicate nonzero),
 * minmax a random walk. */
int gs_bench_make_input(gs_op op, gs_type t, uint64_t n, double density, void *buf, gs_status *st);
/* A zeroed row with its labels, param and block set. */
void gs_bench_new_row(gs_bench_row *row, const char *mode, const char *op, const char *variant, gs_type t, uint64_t n,
                      const char *param, int block);

/* ---- GPU half (pipeline/bench_gpu.cu; stubs without CUDA) -------------------------------- */
int gs_bench_gpu_ceilings(int device, gs_bench_env *env, gs_status *st);
/* Time variant v on h_in (n elements of the op's input type) in device memory: warm-up, then
 * reps timed with events, median into *ms; output copied to h_out (capacity for the op's
 * output), values written into *out_n. */
int gs_bench_gpu_variant(int device, const gs_variant *v, const gs_job *job, const void *h_in, uint64_t n, int reps,
                         double *ms, void *h_out, uint64_t *out_n, gs_status *st);
/* The same for the plain CUB call (gs_bench_plain_cub_applies must hold). */
int gs_bench_gpu_plain_cub(int device, const gs_job *job, const void *h_in, uint64_t n, int reps, double *ms,
                           void *h_out, uint64_t *out_n, gs_status *st);

/* nvCOMP's side of bench --zstd (pipeline/gpu/codec_bench.cu): raw (len bytes) cut into frames of
 * `frame` bytes, compressed and its frames decoded, and libzstd's frames of the same cut (frame
 * f at lz + lz_off[f], lz_clen[f] bytes) decoded, each timed from device memory to device memory
 * (warm-up, then reps with events; medians). Decoded bytes are compared with the input on the
 * device. *r holds memory afterwards, failed or not: gs_bench_gpu_zstd_free releases it. */
typedef struct gs_bench_gpu_zstd_out {
    double enc_ms, dec_ms, dec_lz_ms; /* encode; decode of its own frames; of libzstd's */
    unsigned char *frames;            /* nvCOMP's frames end to end (frame f at off[f], clen[f] bytes) */
    size_t *clen, *off, bytes;        /* bytes: all of them */
    int dec_ok, dec_lz_ok;            /* every status success, every size exact, every byte equal */
    char why[160], why_lz[160];       /* what differed */
} gs_bench_gpu_zstd_out;
int gs_bench_gpu_zstd(int device, const unsigned char *raw, size_t len, size_t frame, const unsigned char *lz,
                      const size_t *lz_off, const size_t *lz_clen, int reps, gs_bench_gpu_zstd_out *r, gs_status *st);
void gs_bench_gpu_zstd_free(gs_bench_gpu_zstd_out *r);

#ifdef __cplusplus
}
#endif
#endif
