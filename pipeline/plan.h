/* plan.h - the run's plan: which backend computes, how the input is decoded and the output
 * encoded, the chunk and the buffers, each with the reason for it (pipeline/plan.c).
 *
 * One place decides these. gs_plan_make is a pure function of the options (gs_plan_in), io's
 * description of the input (gs_input_desc, made before anything reads it) and the facts the
 * caller learns when the plan asks (nvCOMP, the GPU encoder): it says in p->need what it lacks,
 * the caller finds that out and asks again. What can only be known once the reader and the writer
 * are open (the elements, their type, whether the writer takes zstd frames) settles the plan
 * (gs_plan_settle); a stream of unknown size settles its backend at its first chunk
 * (gs_plan_first_chunk). The engine carries the plan out; backends never re-decide it. */
#ifndef GS_PLAN_H
#define GS_PLAN_H

#include "../common/gs.h"
#include "../io/io.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gs_chain;

typedef enum gs_backend_kind { GS_BACKEND_AUTO = 0, GS_BACKEND_CPU, GS_BACKEND_GPU } gs_backend_kind;
/* --host-mem; direct: a mapped file's pages page-locked where they lie (the plan's direct input),
 * anything else through pinned staging buffers as with pinned. */
typedef enum gs_host_mem { GS_HOST_PINNED = 0, GS_HOST_PAGEABLE, GS_HOST_REGISTERED, GS_HOST_MAPPED, GS_HOST_DIRECT } gs_host_mem;
typedef enum gs_dev_alloc { GS_DEV_ONCE = 0, GS_DEV_PER_CHUNK, GS_DEV_ASYNC } gs_dev_alloc;
/* --codec auto|cpu|gpu: the zstd codec for each direction (the rules: plan.c). */
typedef enum gs_codec_kind { GS_CODEC_AUTO = 0, GS_CODEC_CPU, GS_CODEC_GPU } gs_codec_kind;

/* ---- the rules' numbers ------------------------------------------------------------------------
 * --backend auto: an input known to be smaller than this many bytes runs on the CPU and CUDA is
 * never initialised; a stream of unknown size takes the GPU once its first chunk has filled.
 * Measured on an H100 host (16 cores, a page-cached raw i32 file to /dev/null, 2026-11-23,
 * docs/PERFORMANCE.md, "Start-up and backend choice"): a GPU run costs 0.16-0.30 s more than its
 * transfers, and the GPU first beats the CPU backend at 8 GiB for scan (0.341 s against 0.389) and
 * minmax -w 500 (0.485 against 0.654), while at 4 GiB it loses both (scan 0.227 against 0.181,
 * minmax 0.320 against 0.297); compact crosses below 4 GiB (0.252 against 0.312). One crossover
 * for every op. */
#define GS_AUTO_GPU_MIN_BYTES (8ull << 30)
/* --backend auto, an output of csv or text whose values print as floats and that the GPU backend
 * formats (gs_plan_text): formatting floats is the host's largest cost there and the device's
 * smallest, so the GPU pays from a smaller input: binary input from this many values printed (its
 * elements times the chain's output columns, at most), text input (parsed on the host on either
 * backend) from this many bytes. Measured on an H200 host (16 cores, 2026-11-29, docs/PERFORMANCE.md
 * "Text formatted on the GPU"), whole process, GPU against CPU: raw f64 to csv, rolling --agg
 * mean,std 2^25 elements 0.44 against 0.36-0.41 s, 2^26 0.51-0.56 against 0.76-0.80; scan --op max
 * and compact 2^26 0.33-0.39 against 0.12-0.28, 2^27 0.41-0.46 against 0.38-0.60; csv to csv of
 * 1.04 GB (4e7 rows) 0.41-0.57 against 0.28-0.55 (rolling level, minmax and compact the CPU), 2.6 GB
 * 0.70-0.83 against 0.76-1.40 (every float job the GPU). */
#define GS_AUTO_GPU_TEXT_MIN_VALUES (1ull << 27)
#define GS_AUTO_GPU_TEXT_MIN_BYTES (2ull << 30)
/* --backend auto, a stream of unknown size: a window keeps its last W-1 inputs on the device,
 * allocated before the first chunk; a window whose W-1 inputs take more than this runs on the
 * CPU, which keeps only the inputs that came. */
#define GS_AUTO_GPU_HALO_MAX_BYTES (4ull << 30)
/* Input bytes per chunk when none is asked for, and as --help says it: of 8M to 64M, the fastest
 * for scan, compact and minmax on both backends over a 16 GB file (docs/PERFORMANCE.md, "Chunk
 * size"). */
#define GS_CHUNK_DEFAULT ((size_t)16 << 20)
#define GS_CHUNK_DEFAULT_TEXT "16M"
/* Input bytes per chunk when libzstd compresses the output of a run on the CPU backend and no
 * --chunk is given: the encoder sets the pace (about 0.1 GB/s a thread at level 3), not the chunk,
 * and the engine's (buffers + 2) input and output chunks then hold 32 MiB instead of 128 MiB beside
 * the encoder's own batches. convert -t i32 --threads 2 of 1.6 GB to .zst: peak RSS 122 MB with
 * these chunks, 196 MB with 16 MiB ones (docs/PERFORMANCE.md, "The zstd encoder's memory"). */
#define GS_CHUNK_ZENC_DEFAULT ((size_t)4 << 20)
/* Chunks in flight on the GPU when none is asked for (double buffering). */
#define GS_BUFFERS_DEFAULT 2
/* --codec auto takes, per direction, the codec measured faster (docs/PERFORMANCE.md, "GPU zstd
 * (nvCOMP)", on an H100 host with 16 cores). Decoding: a verb on the GPU backend decodes a .zst
 * input of at least GS_CODEC_AUTO_GPU_DEC_MIN_BYTES (decompressed) on the device, where its kernels
 * read it, when its first frame is at most GS_GPU_ZDEC_FRAME_MAX and nvCOMP loads; everything
 * else decodes with libzstd (through the host, the GPU decoder's 4 GB of 64K frames took 1.70 s
 * busy against libzstd's 1.3-1.8 s, and 16M frames 6.5 s). Encoding goes to the GPU, where one
 * with nvCOMP is usable, for an input of at least GS_CODEC_AUTO_GPU_ENC_MIN_BYTES (convert of a
 * 4 GB raw file to .zst: 2.04 s against 2.90 s, CUDA's 0.4 s start included) with no --level and
 * a --frame-size the GPU takes. */
#define GS_CODEC_AUTO_GPU_ENC_MIN_BYTES (1ull << 30)
#define GS_CODEC_AUTO_GPU_DEC_MIN_BYTES (1ull << 30)
/* Uncompressed bytes per zstd frame of the output when --frame-size is not given: libzstd's
 * frames, and the GPU encoder's. nvCOMP asks for many small chunks per batch (its guide: 64 KiB)
 * and gives each a few threads: `gpustream bench --zstd` (nvCOMP 6.0.0 on an H100, 256 MiB of
 * sparse:0.5 i32, device memory to device memory) compresses 64K frames at 10.1 GB/s and 256K
 * frames at 5.9 for the same ratio (4.11 / 4.12). Where the GPU backend encodes its output, a call
 * holds one chunk's output: the headline compaction (H100, 2026-11-24, docs/PERFORMANCE.md) took
 * 1.575 s with 64K frames and 1.073 s with 32K (16K: 1.041 s with 4 buffers, 2.4% larger output;
 * 32K: 0.8% larger than 64K). */
#define GS_ZSTD_FRAME_DEFAULT ((size_t)16 << 20)
#define GS_GPU_ZSTD_FRAME ((size_t)32 << 10)
/* The largest frame the GPU backend decodes itself; larger ones decode on the host. bench --zstd
 * (nvCOMP 6.0.0, H100, 256 MiB of sparse:0.5 i32) decodes 64K frames at 59 GB/s, 256K at 30, 1M
 * at 10 and 16M at 0.7, where libzstd on 16 cores does 5.5-5.9. */
#define GS_GPU_ZDEC_FRAME_MAX ((size_t)1 << 20)
/* Input bytes per chunk when the GPU backend decodes or encodes the frames and no --chunk is
 * given: nvCOMP's decoder gives each frame a few threads, so a call needs thousands of frames to
 * fill the device. A 16 MiB chunk of 64K frames (256 a call) decoded at 4.3 GB/s in compact
 * --pred nonzero of 4 GB (H100, nvCOMP 6.0.0); bench --zstd: 59 GB/s with 4096 a call. */
#define GS_ZDEC_CHUNK_DEFAULT ((size_t)64 << 20)
/* Chunks in flight when the GPU backend decodes or encodes zstd frames and none is asked for:
 * each chunk's nvCOMP calls run on a stream of their own, so more chunks in flight keep more
 * frames on the device at once. The headline compaction (H100, 2026-11-24, docs/PERFORMANCE.md):
 * 0.972 s with 4 against 1.119 s with 2. */
#define GS_ZGPU_BUFFERS 4
/* The direct input (--host-mem direct, the command line's default): the file's pages are page-locked
 * in windows of this many chunks, registered ahead of the copies (on the thread pool, one
 * registration a chunk where chunks start on page boundaries) and released behind them. Every
 * input byte then crosses host memory once (the copy engine's read of the page cache) instead of
 * three times (page cache -> staging copy -> copy engine). What a window costs to pin against
 * copying it: --stats' rows "file pin" and "read+decode" (docs/PERFORMANCE.md). */
#define GS_DIRECT_WINDOW_CHUNKS 4

/* --device 0,1 or all: the GPUs one process deals its chunks to (at most this many; ALL: every one
 * the machine has, known once CUDA has started). */
#define GS_DEVICES_MAX 16
#define GS_DEVICES_ALL (-1)
/* Whether --device named several GPUs (a list of two or more, or all). */
static inline int gs_devices_several(int ndevices) { return ndevices > 1 || ndevices == GS_DEVICES_ALL; }
/* ---- what the user asked ----------------------------------------------------------------------- */
typedef struct gs_plan_in {
    const struct gs_chain *chain; /* the stages; a stage's op GS_OP_NONE: convert or gen */
    int reads;                    /* the input comes through a reader (not the generator) */
    gs_backend_kind backend;      /* --backend */
    gs_codec_kind codec;          /* --codec */
    gs_host_mem host_mem;         /* --host-mem */
    gs_dev_alloc dev_alloc;       /* --device-alloc */
    size_t chunk_bytes;           /* --chunk (0: not given) */
    int buffers;                  /* --buffers (0: not given) */
    int level_given;              /* --level */
    size_t frame_size;            /* --frame-size (0: not given) */
    int out_zstd;                 /* the output is zstd (-z, or OUT named .zst) */
    int ranks;                    /* MPI ranks run shards of the input: codecs through the host */
    int devices;                  /* --device: GPUs (0 or 1: one; GS_DEVICES_ALL): with several, the
                                     input goes through the staging buffers */
} gs_plan_in;

/* ---- what the caller learned when the plan asked ------------------------------------------------ */
typedef struct gs_plan_facts {
    int nvcomp;                  /* nvCOMP loads (gs_nvcomp_describe): 1, 0, or -1 not asked */
    const char *nvcomp_why;      /* where it does not: why */
    int encoder;                 /* the GPU encoder made ahead (strict with --codec gpu): 1, 0 (it cannot
                                    be had), -1 not asked */
    const char *encoder_why;     /* where it cannot: why */
    size_t enc_frame_max;        /* its frames: at most this many bytes ... */
    size_t enc_frame_align;      /* ... at multiples of this */
} gs_plan_facts;

/* What gs_plan_make lacks (p->need): GS_DESC_* of the description (gs_input_describe), and these. */
#define GS_PLAN_NEED_NVCOMP 0x100u
#define GS_PLAN_NEED_ENCODER 0x200u

/* ---- the plan ----------------------------------------------------------------------------------- */
typedef enum gs_plan_backend {
    GS_PLAN_CPU = 0,   /* the CPU backend; CUDA never starts */
    GS_PLAN_GPU,       /* the GPU backend; CUDA starts at once */
    GS_PLAN_BY_SIZE,   /* auto: by the input's size, once the reader knows it (gs_plan_settle) */
    GS_PLAN_BY_STREAM, /* auto, size unknown: the GPU if the stream fills its first chunk */
} gs_plan_backend;
/* How the input's zstd frames are decoded: libzstd on the host (the reader), by the GPU backend
 * where its kernels read them (the reader hands out frames: gs_read_opts.zframes), or by the GPU
 * codec through the host (the reader's gs_zcodec). */
typedef enum gs_plan_decode { GS_DECODE_HOST = 0, GS_DECODE_FRAMES, GS_DECODE_CODEC } gs_plan_decode;
/* How the output's zstd frames are encoded: libzstd on the host, or the GPU codec (the writer's
 * gs_zcodec; and by the GPU backend itself where the plan's zencode is set). */
typedef enum gs_plan_encode { GS_ENCODE_HOST = 0, GS_ENCODE_GPU } gs_plan_encode;

#define GS_PLAN_WHY 320
typedef struct gs_plan {
    int made;                /* gs_plan_make finished (need == 0) */
    unsigned need;           /* what it lacks: ask, then call gs_plan_make again */
    gs_plan_backend backend;
    int gpu_required;        /* --backend gpu, a GPU --algo, --codec gpu: no CPU fallback */
    int warm;                /* chunks run on the CPU while CUDA starts (the same bytes for any split) */
    int read_early;          /* the reader fills chunks before the backend has started */
    gs_plan_decode decode;
    gs_plan_encode encode;
    size_t frame_size;       /* the output's zstd frames */
    int host_zstd;           /* the output is zstd that libzstd encodes on the host */
    size_t zencode;          /* the GPU backend encodes its output in frames of this size (0: no) */
    int zdecode;             /* the GPU backend decodes the input's frames (decode == FRAMES) */
    size_t chunk_bytes;
    int buffers;             /* chunks in flight on the GPU */
    int direct;              /* the input's chunks are read where they lie in the mapped file (gs_plan_input) */
    int devices;             /* GPUs the GPU backend deals chunks to: 1, several, or GS_DEVICES_ALL */
    int text_gpu;            /* the GPU backend formats the output text where its kernels wrote the values
                                (gs_plan_text) */
    int parse_gpu;           /* the GPU backend parses the input's csv blocks (gs_plan_parse) */
    /* the reasons, one line each ("" where the choice does not arise) */
    char why_backend[GS_PLAN_WHY], why_warm[GS_PLAN_WHY], why_decode[GS_PLAN_WHY], why_encode[GS_PLAN_WHY],
        why_chunk[GS_PLAN_WHY], why_buffers[GS_PLAN_WHY], why_input[GS_PLAN_WHY], why_text[GS_PLAN_WHY],
        why_parse[GS_PLAN_WHY];
    /* kept for gs_plan_settle */
    int by_size;             /* auto: the backend follows the input's size */
    gs_backend_kind opt_backend;
    gs_host_mem host_mem;
    size_t opt_chunk;
    int opt_buffers;
    size_t zencode_asked;
    int64_t in_bytes;        /* the input's bytes (gs_input_desc.size: -1 where unknown) */
} gs_plan;

/* Make the plan. GS_OK with p->need = 0: made; GS_OK with p->need set: find those out (the
 * description's with gs_input_describe, the facts) and call again with the same in; GS_EUSAGE or
 * GS_EDATA where the options cannot be carried out (--level with --codec gpu; --codec gpu where
 * the GPU encoder cannot be had or nvCOMP does not load). */
int gs_plan_make(const gs_plan_in *in, const gs_input_desc *d, const gs_plan_facts *f, gs_plan *p, gs_status *st);
/* Settle what the open reader and writer tell: the chain with its types, the input's elements
 * (-1 if unknown) of type in_type, whether they are parsed from text on the host (gs_source.parsed),
 * whether the writer takes zstd frames (gs_writer_takes_frames), and whether it takes text formatted
 * elsewhere (gs_chain_text_form). The same inputs give the same
 * plan: settling twice changes nothing. */
void gs_plan_settle(gs_plan *p, const struct gs_chain *chain, int64_t elems, gs_type in_type, int parsed,
                    int out_frames, int out_text);
/* The input's path, once settled: read where it lies (p->direct) where --host-mem direct, the
 * backend may be the GPU and the source hands out views of a mapped file (gs_source.view: a
 * regular, uncompressed raw or npy file); else through the staging buffers. Settling twice changes
 * nothing. */
void gs_plan_input(gs_plan *p, int views);
/* The output's text, once settled: formatted by the GPU backend (p->text_gpu) where the backend may
 * be the GPU, the output is text that the writer takes whole (`form`: csv or text, each column
 * printed in the chain's output type, one input column, no input rows or positions mapped beside
 * the results), on every GPU where there are several; else the writer formats the values on the host. Settling twice
 * changes nothing. */
void gs_plan_text(gs_plan *p, int form);
/* The input's csv, once settled: parsed by the GPU backend (p->parse_gpu) where the backend may be
 * the GPU (with several, the first device parses) and the source can take values parsed elsewhere
 * (`can`: csv whose values go without their rows, no row dropped: gs_reader_parses_text); the device takes the blocks it can parse
 * exactly and the host parses the rest. Else the reader parses. Settling twice changes nothing. */
void gs_plan_parse(gs_plan *p, int can);
/* A GS_PLAN_BY_STREAM backend once the first chunk of chunk_bytes is in: filled (the GPU) or the
 * stream ended first (the CPU). */
void gs_plan_first_chunk(gs_plan *p, int filled, uint64_t chunk_bytes);
/* The reasons -v and --stats give, one line each, into why[] (at most GS_PLAN_NOTES), the backend's
 * first: with gpu 0, every reason known now, but for a stream (GS_PLAN_BY_STREAM) without those of
 * the GPU backend's own choices, which wait for its first chunk (gs_plan_first_chunk); with gpu 1,
 * the backend's and those, given then where the GPU takes the stream. Returns how many. */
#define GS_PLAN_NOTES 9
#define GS_PLAN_BACKEND_NOTE "backend: " /* the first reason's lead */
int gs_plan_notes(const gs_plan *p, int gpu, const char **why);
/* "1 GiB", "16 MiB" or "4096 B", as the reasons say sizes. */
void gs_plan_size_text(char *buf, size_t len, uint64_t bytes);

#ifdef __cplusplus
}
#endif
#endif
