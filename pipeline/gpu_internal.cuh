/* gpu_internal.cuh - what the GPU code of pipeline/ shares: CUDA error mapping and the usability
 * probe (gpu/device.cu), and the device zstd codec's parts the GPU backend drives (gpu/codec_*.cu).
 * The backend's own state is gpu/backend.cuh's. Only CUDA sources include it. */
#ifndef GS_GPU_INTERNAL_CUH
#define GS_GPU_INTERNAL_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "pipeline.h"

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

/* ---- gpu/codec_decode.cu: zstd frames decoded into the backend's input buffers -------------------------
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
/* ---- gpu/codec_encode.cu: the backend's output encoded as zstd frames on the device -------------------
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

#endif
