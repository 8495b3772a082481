/* codec_stubs.cu - the GPU zstd codec's API in a CUDA build without nvCOMP's headers: every call
 * says so (GS_EDATA). The CPU-only build's stubs of the public part are cpu_backend.c's. */
#ifndef GS_HAVE_NVCOMP
#include <stdio.h>
#include <string.h>

#include "codec.cuh"
#include "../bench.h"

/* What every call says, and what to do about it. */
#define GZC_NONE "this gpustream was built without nvCOMP"
#define GZC_NONE_FIX " (make deps-nvcomp-local or NVCOMP_HOME=dir, then rebuild)"

extern "C" int gs_nvcomp_describe(char *buf, size_t len)
{
    snprintf(buf, len, "not built in (no nvCOMP headers at build time: make deps-nvcomp-local or NVCOMP_HOME=dir, then rebuild)");
    return 0;
}

extern "C" int gs_gpu_zcodec_create(gs_zcodec **out, int device, gs_status *st)
{
    (void)device;
    *out = NULL;
    return gs_fail(st, GS_EDATA, "--codec gpu: " GZC_NONE GZC_NONE_FIX);
}

extern "C" int gs_gpu_zcodec_create_ahead(gs_zcodec **out, int device, int strict, gs_status *st)
{
    (void)strict;
    return gs_gpu_zcodec_create(out, device, st);
}

extern "C" void gs_gpu_zcodec_destroy(gs_zcodec *c) { (void)c; }

int gs_gzdec_create(gs_gzdec **d, int dev, int slots, size_t max_frames, size_t frame_max, size_t max_bytes,
                    gs_status *st)
{
    (void)dev, (void)slots, (void)max_frames, (void)frame_max, (void)max_bytes;
    *d = NULL;
    return gs_fail(st, GS_EDATA, "zstd frames on the GPU: " GZC_NONE);
}
size_t gs_gzdec_in_align(const gs_gzdec *d) { (void)d; return 8; }
size_t gs_gzdec_out_align(const gs_gzdec *d) { (void)d; return 8; }
uint64_t gs_gzdec_dev_bytes(const gs_gzdec *d) { (void)d; return 0; }
int gs_gzdec_queue(gs_gzdec *d, int slot, const gs_zfref *t, size_t n, const unsigned char *comp, unsigned char *out,
                   unsigned *bad, cudaStream_t s, gs_status *st)
{
    (void)d, (void)slot, (void)t, (void)n, (void)comp, (void)out, (void)bad, (void)s;
    return gs_fail(st, GS_EDATA, "zstd frames on the GPU: " GZC_NONE);
}
void gs_gzdec_destroy(gs_gzdec *d) { (void)d; }

int gs_gzenc_create(gs_gzenc **e, int dev, int slots, size_t frame, size_t max_bytes, gs_status *st)
{
    (void)dev, (void)slots, (void)frame, (void)max_bytes;
    *e = NULL;
    return gs_fail(st, GS_EDATA, "zstd frames from the GPU: " GZC_NONE);
}
size_t gs_gzenc_max_frames(const gs_gzenc *e) { (void)e; return 0; }
size_t gs_gzenc_bound(const gs_gzenc *e) { (void)e; return 0; }
uint64_t gs_gzenc_dev_bytes(const gs_gzenc *e) { (void)e; return 0; }
int gs_gzenc_queue(gs_gzenc *e, int slot, const unsigned char *src, size_t len, const volatile uint64_t *count,
                   size_t esize, cudaStream_t s, gs_status *st)
{
    (void)e, (void)slot, (void)src, (void)len, (void)count, (void)esize, (void)s;
    return gs_fail(st, GS_EDATA, "zstd frames from the GPU: " GZC_NONE);
}
int gs_gzenc_take(gs_gzenc *e, int slot, size_t len, gs_zfref *t, size_t *nframes, size_t *bytes, gs_status *st)
{
    (void)e, (void)slot, (void)len, (void)t, (void)nframes, (void)bytes;
    return gs_fail(st, GS_EDATA, "zstd frames from the GPU: " GZC_NONE);
}
int gs_gzenc_copy(gs_gzenc *e, int slot, void *dst, size_t bytes, cudaStream_t s, gs_status *st)
{
    (void)e, (void)slot, (void)dst, (void)bytes, (void)s;
    return gs_fail(st, GS_EDATA, "zstd frames from the GPU: " GZC_NONE);
}
void gs_gzenc_destroy(gs_gzenc *e) { (void)e; }

extern "C" int gs_bench_gpu_zstd(int device, const unsigned char *raw, size_t len, size_t frame, const unsigned char *lz,
                                 const size_t *lz_off, const size_t *lz_clen, int reps, gs_bench_gpu_zstd_out *r,
                                 gs_status *st)
{
    (void)device, (void)raw, (void)len, (void)frame, (void)lz, (void)lz_off, (void)lz_clen, (void)reps;
    memset(r, 0, sizeof *r);
    return gs_fail(st, GS_EDATA, "bench --zstd: " GZC_NONE GZC_NONE_FIX);
}

#endif /* !GS_HAVE_NVCOMP */
