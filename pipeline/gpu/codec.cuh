/* codec.cuh - what the parts of the GPU zstd codec share (only pipeline/gpu/codec_*.cu include it):
 *   codec_loader.cu    libnvcomp.so.6 opened at run time (GS_NVCOMP_LIB), its errors as gs_status
 *   codec_watchdog.cu  the deadline on every wait for nvCOMP, and the process's "GPU given up" flag
 *   codec_host.cu      the gs_zcodec of io/'s readers and writers (batches through host memory)
 *   codec_decode.cu    frames decoded into the GPU backend's input and checked there (gs_gzdec)
 *   codec_encode.cu    the GPU backend's output encoded as frames on the device (gs_gzenc)
 *   codec_bench.cu     bench --zstd's device half
 *   codec_stubs.cu     the same API where the build has no nvCOMP headers
 * codec_xxh64.cuh holds the device checksum the decoder and the encoder share.
 *
 * nvCOMP is optional twice over: the build needs its headers (GS_HAVE_NVCOMP, from NVCOMP_HOME or
 * else .deps/nvcomp, which make deps-nvcomp-local fills), and libnvcomp.so.6 is opened with
 * dlopen only when a run asks for the GPU codec, so the binary starts where it is absent.
 * nvCOMP 6's zstd compression options are reserved bytes: there is no level to set.
 *
 * Module loading. CUDA loads a module's kernels at their first launch (lazy loading, CUDA's
 * default), nvCOMP's included: the first nvCOMP call of a process pays for loading them, and a
 * load may wait for the work already on the device. The frame check, launched behind a decoder
 * that may never end, is loaded when the decoder is made (codec_decode.cu). CUDA_MODULE_LOADING=
 * EAGER, read by the driver at cuInit, is the user's switch to load everything at the start. */
#ifndef GS_GPU_CODEC_CUH
#define GS_GPU_CODEC_CUH

#include <cuda_runtime.h>
#include <stddef.h>

#include "../gpu_internal.cuh"

/* The largest frame the device takes: nvCOMP's compressor limit (16 MiB); larger frames decode
 * on the CPU. (Frames of 16 MiB already decode slower on the device than on the host's cores:
 * docs/PERFORMANCE.md, "GPU zstd (nvCOMP)", bench --zstd.) */
#define GS_NVC_FRAME_MAX ((size_t)16 << 20)

/* Threads of the kernels that give each frame four threads (one XXH64 accumulator each). */
#define GS_GZX_THREADS 128 /* 32 frames a block */

#ifdef GS_HAVE_NVCOMP
#include <limits.h>
#include <nvcomp.h>
#include <nvcomp/zstd.h>

/* ---- codec_loader.cu: the library, loaded once -------------------------------------------------- */
typedef struct gs_nvc_api {
    void *lib;
    char path[PATH_MAX];
    char why[PATH_MAX + 200]; /* why it is not loaded */
    unsigned version;         /* nvcompProperties_t.version: major*1000 + minor*100 + patch */
    decltype(&nvcompGetProperties) props;
    decltype(&nvcompBatchedZstdDecompressGetRequiredAlignments) dalign;
    decltype(&nvcompBatchedZstdDecompressGetTempSize) dtemp;
    decltype(&nvcompBatchedZstdDecompressAsync) dec;
    decltype(&nvcompBatchedZstdCompressGetRequiredAlignments) calign;
    decltype(&nvcompBatchedZstdCompressGetTempSize) ctemp;
    decltype(&nvcompBatchedZstdCompressGetMaxOutputChunkSize) cmax;
    decltype(&nvcompBatchedZstdCompressAsync) enc;
} gs_nvc_api;

/* The entry points, valid once gs_nvc_ready() returned 1 (else gs_nvc.why says why). */
extern gs_nvc_api gs_nvc;
/* Loads the library the first time (thread-safe); 1 if it is there. */
int gs_nvc_ready(void);

/* Fill st from a CUDA error ("gpu 0: zstd codec: <what>: <reason>"; out of memory -> GS_ENOMEM)
 * or an nvCOMP status; return the code. */
int gs_gzc_cuda_fail(gs_status *st, cudaError_t e, const char *what, int dev);
int gs_gzc_nvc_fail(gs_status *st, nvcompStatus_t e, const char *what, int dev);

/* In a function with a gs_status *st and a z whose z->dev names the device: return the failure. */
#define GZC_CU(call, what)                                                     \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess) return gs_gzc_cuda_fail(st, e_, what, z->dev);  \
    } while (0)
#define GZC_NV(call, what)                                                     \
    do {                                                                       \
        nvcompStatus_t e_ = (call);                                            \
        if (e_ != nvcompSuccess) return gs_gzc_nvc_fail(st, e_, what, z->dev); \
    } while (0)

static inline size_t gs_gzc_al(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* ---- codec_encode.cu -------------------------------------------------------------------------------
 * Queue on s the packing of n encoded frames from their slots (src[f], len[f] bytes; device
 * tables) to dst + off[f]: one block a frame. */
cudaError_t gs_gzc_gather(const unsigned char *const *src, const size_t *len, const size_t *off, unsigned char *dst,
                          size_t n, cudaStream_t s);
#endif /* GS_HAVE_NVCOMP */

#endif
