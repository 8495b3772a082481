/* gpu_codec.cu - zstd on the device through nvCOMP's batched C API, as an io/ gs_zcodec.
 *
 * nvCOMP is optional twice over: the build needs its headers (GS_HAVE_NVCOMP, from NVCOMP_HOME,
 * .deps/nvcomp or the pip package nvidia-libnvcomp-cu13), and libnvcomp.so.6 is opened with
 * dlopen only when a run asks for the GPU codec, so the binary starts where it is absent. Where
 * the library is looked for, first match wins:
 *   $GS_NVCOMP_LIB (a path to the .so; if set, nothing else is tried)
 *   <directory of the gpustream binary>/.deps/nvcomp/lib64/libnvcomp.so.6  (make deps-nvcomp-local)
 *   the library directory found at build time (GS_NVCOMP_LIBDIR)
 *   libnvcomp.so.6 on the loader's path
 *
 * Decode: the batch's compressed frames are packed (by the thread pool) into a pinned staging
 * buffer at nvCOMP's input alignment, copied to the device in one transfer with the per-frame table, decompressed
 * by nvcompBatchedZstdDecompressAsync into a device buffer, and the statuses, actual sizes and
 * decoded bytes copied back. What the device is given was checked on the host first (io/zstd.c
 * with io/zstd_frames.c); a frame is reported done only with status success and exactly its
 * declared size, and io/zstd.c then verifies its XXH64 before keeping it.
 * Encode: the input batch goes to the device, nvcompBatchedZstdCompressAsync writes one frame
 * per `frame` bytes into slots of its worst-case size, a small kernel packs the frames end to end
 * (offsets from the sizes, which the host reads first), and one transfer brings them back into
 * pinned memory; io/zstd.c adds content size and checksum.
 * nvCOMP 6's zstd compression options are reserved bytes: there is no level to set.
 * Frames for the GPU backend (gs_gzdec, below the codec): decoded straight into the kernels' input
 * buffers and checked there by gzx_check (status, size, XXH64), nothing copied back.
 *
 * Each codec has its own stream and buffers (one reader or one writer drives it); buffers grow
 * to the largest batch seen and are kept. Library code: returns gs_status, never prints.
 *
 * Watchdog. nvCOMP's decoder has been seen never to finish on a corrupt frame that passed the
 * host's header checks, and cudaStreamSynchronize would then wait for ever. So every wait polls
 * the stream with short sleeps up to a deadline of GZC_WATCHDOG_S plus the batch's bytes at
 * GZC_WATCHDOG_BYTES_PER_S. On expiry the codec stops for good (gs_zcodec.stopped): a decode
 * reports no frame done, so io/ decodes the batch, and every later one, with libzstd, which
 * judges it; an encode fails. From then on nothing in the process calls CUDA on the device
 * (gs_gpu_abandoned): teardown is skipped and a hung kernel ends with the process. Decoded bytes
 * are copied back only once the decoder has finished, so nothing on the device writes into the
 * caller's memory after a timeout. */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpu_internal.cuh"
#include "bench.h"
#include "../common/pool.h"

/* Set once a codec gave up on its device: CUDA is not called again in this process. Read by
 * other threads (the GPU backend's), hence atomic. */
static int gzc_abandoned;

extern "C" int gs_gpu_abandoned(void) { return __atomic_load_n(&gzc_abandoned, __ATOMIC_ACQUIRE); }

/* The watchdog's deadline for a batch: this long, plus its bytes at this rate. */
#define GZC_WATCHDOG_S 2.0
#define GZC_WATCHDOG_BYTES_PER_S 1e9

cudaError_t gs_gpu_zwatch(cudaStream_t s, cudaEvent_t ev, uint64_t bytes, double *limit)
{
    const double t0 = gs_now();
    long nap = 10000; /* ns, doubling to 200 us */
    *limit = GZC_WATCHDOG_S + (double)bytes / GZC_WATCHDOG_BYTES_PER_S;
    for (;;) {
        cudaError_t e = s ? cudaStreamQuery(s) : cudaEventQuery(ev);
        if (e != cudaErrorNotReady) return e;
        if (gs_now() - t0 > *limit) {
            __atomic_store_n(&gzc_abandoned, 1, __ATOMIC_RELEASE);
            return cudaErrorNotReady;
        }
        struct timespec ts = {0, nap};
        nanosleep(&ts, NULL);
        if (nap < 200000) nap *= 2;
    }
}

#ifdef GS_HAVE_NVCOMP
#include <nvcomp.h>
#include <nvcomp/zstd.h>

#define GS_NVC_SONAME "libnvcomp.so.6"

/* ---- the library, loaded once ---------------------------------------------------------------- */
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

static gs_nvc_api nvc;
static pthread_once_t nvc_once = PTHREAD_ONCE_INIT;

static int nvc_try(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(nvc.why, sizeof nvc.why, "%s", e ? e : path);
        return 0;
    }
    struct {
        void **slot;
        const char *name;
    } syms[] = {
        {(void **)&nvc.props, "nvcompGetProperties"},
        {(void **)&nvc.dalign, "nvcompBatchedZstdDecompressGetRequiredAlignments"},
        {(void **)&nvc.dtemp, "nvcompBatchedZstdDecompressGetTempSize"},
        {(void **)&nvc.dec, "nvcompBatchedZstdDecompressAsync"},
        {(void **)&nvc.calign, "nvcompBatchedZstdCompressGetRequiredAlignments"},
        {(void **)&nvc.ctemp, "nvcompBatchedZstdCompressGetTempSize"},
        {(void **)&nvc.cmax, "nvcompBatchedZstdCompressGetMaxOutputChunkSize"},
        {(void **)&nvc.enc, "nvcompBatchedZstdCompressAsync"},
    };
    for (size_t i = 0; i < sizeof syms / sizeof *syms; i++)
        if (!(*syms[i].slot = dlsym(h, syms[i].name))) {
            snprintf(nvc.why, sizeof nvc.why, "%s lacks %s (nvCOMP 6 is needed)", path, syms[i].name);
            dlclose(h);
            return 0;
        }
    nvcompProperties_t p;
    if (nvc.props(&p) != nvcompSuccess) {
        snprintf(nvc.why, sizeof nvc.why, "%s: nvcompGetProperties failed", path);
        dlclose(h);
        return 0;
    }
    nvc.version = p.version;
    nvc.lib = h;
    snprintf(nvc.path, sizeof nvc.path, "%s", path);
    return 1;
}

static void nvc_load(void)
{
    const char *env = getenv("GS_NVCOMP_LIB");
    if (env && *env) {
        if (!nvc_try(env)) {
            char why[sizeof nvc.why];
            snprintf(why, sizeof why, "GS_NVCOMP_LIB=%.1000s: %.2000s", env, nvc.why);
            memcpy(nvc.why, why, sizeof why);
        }
        return;
    }
    char exe[PATH_MAX], cand[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) *slash = 0;
        snprintf(cand, sizeof cand, "%s/.deps/nvcomp/lib64/" GS_NVC_SONAME, exe);
        if (access(cand, R_OK) == 0 && nvc_try(cand)) return;
    }
#ifdef GS_NVCOMP_LIBDIR
    snprintf(cand, sizeof cand, "%s/" GS_NVC_SONAME, GS_NVCOMP_LIBDIR);
    if (access(cand, R_OK) == 0 && nvc_try(cand)) return;
#endif
    if (nvc_try(GS_NVC_SONAME)) return;
    char why[sizeof nvc.why];
    snprintf(why, sizeof why, "%s not found (make deps-nvcomp or deps-nvcomp-local, or set GS_NVCOMP_LIB): %.2000s",
             GS_NVC_SONAME, nvc.why);
    memcpy(nvc.why, why, sizeof why);
}

static int nvc_ready(void)
{
    pthread_once(&nvc_once, nvc_load);
    return nvc.lib != NULL;
}

extern "C" int gs_nvcomp_describe(char *buf, size_t len)
{
    if (nvc_ready())
        snprintf(buf, len, "nvCOMP %u.%u.%u (%s)", nvc.version / 1000, nvc.version % 1000 / 100, nvc.version % 100,
                 nvc.path);
    else
        snprintf(buf, len, "nvCOMP headers compiled in, library not loaded: %s", nvc.why);
    return nvc.lib != NULL;
}

/* ---- the codec --------------------------------------------------------------------------------- */
/* The largest frame the device takes: nvCOMP's compressor limit (16 MB); larger frames decode
 * on the CPU. (Frames of 16 MB already decode slower on the device than on the host's cores:
 * docs/PERFORMANCE.md, "GPU zstd (nvCOMP)", bench --zstd.) */
#define GS_NVC_FRAME_MAX ((size_t)16 << 20)

typedef struct gs_gzc {
    gs_zcodec base;
    int dev;
    cudaStream_t s;
    size_t din_align, dout_align, dtemp_align; /* decompression alignments */
    size_t cin_align, cout_align, ctemp_align; /* compression alignments */
    unsigned char *h_stage; size_t h_stage_cap; /* pinned: compressed frames, up (decode) or down (encode) */
    unsigned char *d_pack; size_t d_pack_cap;   /* device: encoded frames packed end to end */
    unsigned char *h_src; size_t h_src_cap;     /* pinned: encoder input, or decoder output, in pageable memory */
    unsigned char *d_a; size_t d_a_cap;         /* device: compressed (decode) / input (encode) */
    unsigned char *d_b; size_t d_b_cap;         /* device: decoded (decode) / compressed (encode) */
    unsigned char *d_temp; size_t d_temp_cap;
    unsigned char *h_meta; size_t meta_cap;     /* per-frame tables, pinned */
    unsigned char *d_meta; size_t d_meta_cap;   /* and on the device */
    int pending;                                /* made ahead: the device is set up at the first call */
    int strict;                                 /* --codec gpu: a device that did not start is an error */
    char why[400];                              /* gs_zcodec.stopped's text */
} gs_gzc;

static size_t al(size_t x, size_t a) { return (x + a - 1) / a * a; }

static int gzc_cuda(gs_status *st, cudaError_t e, const char *what, int dev)
{
    (void)cudaGetLastError();
    return gs_fail(st, e == cudaErrorMemoryAllocation ? GS_ENOMEM : GS_EDATA, "gpu %d: zstd codec: %s: %s", dev,
                   what, cudaGetErrorString(e));
}

static int gzc_nvc(gs_status *st, nvcompStatus_t e, const char *what, int dev)
{
    return gs_fail(st, GS_EDATA, "gpu %d: zstd codec: %s: nvCOMP status %d", dev, what, (int)e);
}

#define GZC_CU(call, what)                                              \
    do {                                                                \
        cudaError_t e_ = (call);                                        \
        if (e_ != cudaSuccess) return gzc_cuda(st, e_, what, z->dev);   \
    } while (0)
#define GZC_NV(call, what)                                              \
    do {                                                                \
        nvcompStatus_t e_ = (call);                                     \
        if (e_ != nvcompSuccess) return gzc_nvc(st, e_, what, z->dev);  \
    } while (0)

#define GS_GZC_STOPPED (-1) /* gzc_wait: the deadline passed (no gs_status code is negative) */

/* Wait for the work queued on the codec's stream (gs_gpu_zwatch). GS_OK when done; GS_GZC_STOPPED
 * (codec stopped, device abandoned) when the deadline passed; a CUDA error as a gs_status code. */
static int gzc_wait(gs_gzc *z, size_t bytes, const char *what, gs_status *st)
{
    double limit = 0;
    cudaError_t e = gs_gpu_zwatch(z->s, NULL, bytes, &limit);
    if (e == cudaSuccess) return GS_OK;
    if (e != cudaErrorNotReady) return gzc_cuda(st, e, what, z->dev);
    snprintf(z->why, sizeof z->why, "gpu %d: the GPU zstd %s did not finish within %.1f s; the GPU is no longer used",
             z->dev, what, limit);
    z->base.stopped = z->why;
    return GS_GZC_STOPPED;
}

/* The other codec of the run (reader and writer have one each) gave up on the device: this one
 * stops too, before any CUDA call. */
static void gzc_abandon_too(gs_gzc *z)
{
    snprintf(z->why, sizeof z->why, "gpu %d: the other GPU zstd codec timed out; the GPU is no longer used", z->dev);
    z->base.stopped = z->why;
}

/* Grow a device (pinned = 0) or pinned host (pinned = 1) buffer to at least need bytes. */
static int gzc_grow(gs_gzc *z, unsigned char **p, size_t *cap, size_t need, int pinned, gs_status *st)
{
    if (*cap >= need) return GS_OK;
    size_t n = need + need / 4;
    if (*p) GZC_CU(pinned ? cudaFreeHost(*p) : cudaFree(*p), "free");
    *p = NULL;
    *cap = 0;
    GZC_CU(pinned ? cudaMallocHost((void **)p, n) : cudaMalloc((void **)p, n), pinned ? "cudaMallocHost" : "cudaMalloc");
    *cap = n;
    return GS_OK;
}

/* Per-frame tables for n frames: pointers and sizes (8 bytes each) and statuses. */
static int gzc_meta(gs_gzc *z, size_t n, gs_status *st)
{
    size_t need = n * 7 * sizeof(size_t) + 64; /* the layouts in gzc_decode and gzc_encode */
    int rc = gzc_grow(z, &z->h_meta, &z->meta_cap, need, 1, st);
    return rc ? rc : gzc_grow(z, &z->d_meta, &z->d_meta_cap, need, 0, st);
}

/* Pack frames into the pinned staging buffer, a range of frames per pool part. */
typedef struct gzc_pack_job {
    unsigned char *dst;
    const unsigned char *const *src;
    const size_t *len, *off;
    size_t n;
} gzc_pack_job;

static void gzc_pack_part(void *ctx, size_t part, size_t nparts)
{
    const gzc_pack_job *j = (const gzc_pack_job *)ctx;
    size_t b, e;
    gs_split(j->n, nparts, part, &b, &e);
    for (size_t i = b; i < e; i++) memcpy(j->dst + j->off[i], j->src[i], j->len[i]);
}

/* Encoded frames from their worst-case slots to consecutive offsets: one block per frame. */
__global__ void gzc_gather(const unsigned char *const *src, const size_t *len, const size_t *off, unsigned char *dst)
{
    const unsigned char *s = src[blockIdx.x];
    unsigned char *d = dst + off[blockIdx.x];
    for (size_t i = threadIdx.x, n = len[blockIdx.x]; i < n; i += blockDim.x) d[i] = s[i];
}

/* A codec made ahead (gs_gpu_zcodec_create_ahead) meets the process's CUDA start-up at its first
 * call and makes its stream; if the device did not start, the codec stops (libzstd does its
 * work). 1 when the codec may run. */
static int gzc_ready(gs_gzc *z)
{
    if (z->pending) {
        char why[256];
        cudaError_t e = cudaSuccess;
        z->pending = 0;
        if (!gs_gpu_init_wait(z->dev, why, sizeof why, NULL) || (e = cudaSetDevice(z->dev)) != cudaSuccess ||
            (e = cudaStreamCreateWithFlags(&z->s, cudaStreamNonBlocking)) != cudaSuccess) {
            if (e != cudaSuccess) snprintf(why, sizeof why, "%s", cudaGetErrorString(e));
            (void)cudaGetLastError();
            z->s = NULL;
            if (z->strict) {
                snprintf(z->why, sizeof z->why, "--codec gpu: %s", why);
                return 0;
            }
            snprintf(z->why, sizeof z->why, "--codec auto: the GPU zstd codec did not start (%s); libzstd instead", why);
            z->base.stopped = z->why;
        }
    }
    return z->base.stopped == NULL && z->s; /* no stream: a strict codec whose device did not start */
}

static int gzc_decode(gs_zcodec *c, size_t n, const unsigned char *const *src, const size_t *csize, const size_t *dsize,
                      unsigned char *dst, const size_t *doff, unsigned char *ok, gs_status *st)
{
    gs_gzc *z = (gs_gzc *)c;
    if (gs_gpu_abandoned()) {
        gzc_abandon_too(z);
        memset(ok, 0, n);
        return GS_OK;
    }
    if (!gzc_ready(z)) {
        if (!z->base.stopped) return gs_fail(st, GS_EDATA, "%s", z->why); /* strict */
        memset(ok, 0, n);
        return GS_OK;
    }
    GZC_CU(cudaSetDevice(z->dev), "cudaSetDevice");
    size_t ctot = 0, dtot = 0, dmax = 0;
    int contiguous = 1; /* decoded frames land at doff: one copy back */
    for (size_t i = 0; i < n; i++) {
        if (dtot != doff[i] - doff[0]) contiguous = 0;
        ctot += al(csize[i], z->din_align);
        dtot += al(dsize[i], z->dout_align);
        if (dsize[i] > dmax) dmax = dsize[i];
    }
    size_t temp = 0;
    GZC_NV(nvc.dtemp(n, dmax, nvcompBatchedZstdDecompressDefaultOpts, &temp, dtot, z->s), "DecompressGetTempSize");
    int rc;
    if ((rc = gzc_grow(z, &z->h_stage, &z->h_stage_cap, ctot, 1, st)) || (rc = gzc_grow(z, &z->d_a, &z->d_a_cap, ctot, 0, st)) ||
        (rc = gzc_grow(z, &z->d_b, &z->d_b_cap, dtot, 0, st)) ||
        (rc = gzc_grow(z, &z->d_temp, &z->d_temp_cap, temp ? temp : 1, 0, st)) || (rc = gzc_meta(z, n, st)))
        return rc;
    /* tables: in ptrs, in sizes, out buffer sizes, out ptrs (uploaded); actual sizes, statuses
     * (downloaded); staging offsets (host only) */
    const void **in_p = (const void **)z->h_meta;
    size_t *in_sz = (size_t *)(in_p + n), *out_sz = in_sz + n, *act = out_sz + n + n;
    void **out_p = (void **)(out_sz + n);
    nvcompStatus_t *stat = (nvcompStatus_t *)(act + n);
    size_t *soff = act + 2 * n; /* after the statuses (n x 4 bytes) */
    size_t up = 4 * n * sizeof(size_t);
    size_t co = 0, dof = 0;
    for (size_t i = 0; i < n; i++) {
        soff[i] = co;
        in_p[i] = z->d_a + co;
        in_sz[i] = csize[i];
        out_sz[i] = dsize[i];
        out_p[i] = z->d_b + dof;
        co += al(csize[i], z->din_align);
        dof += al(dsize[i], z->dout_align);
    }
    gzc_pack_job pj = {z->h_stage, src, csize, soff, n};
    size_t parts = (size_t)gs_pool_threads();
    gs_parallel_for(parts < n ? parts : n, gzc_pack_part, &pj);
    const char *dm = (const char *)z->d_meta;
    GZC_CU(cudaMemcpyAsync(z->d_a, z->h_stage, co, cudaMemcpyHostToDevice, z->s), "H2D frames");
    GZC_CU(cudaMemcpyAsync(z->d_meta, z->h_meta, up, cudaMemcpyHostToDevice, z->s), "H2D table");
    GZC_NV(nvc.dec((const void *const *)dm, (const size_t *)(dm + n * sizeof(size_t)),
                   (const size_t *)(dm + 2 * n * sizeof(size_t)), (size_t *)(dm + 4 * n * sizeof(size_t)), n, z->d_temp,
                   temp, (void *const *)(dm + 3 * n * sizeof(size_t)), nvcompBatchedZstdDecompressDefaultOpts,
                   (nvcompStatus_t *)(dm + 5 * n * sizeof(size_t)), z->s),
           "DecompressAsync");
    GZC_CU(cudaMemcpyAsync(act, dm + up, n * (sizeof(size_t) + sizeof(nvcompStatus_t)), cudaMemcpyDeviceToHost, z->s),
           "D2H statuses");
    if ((rc = gzc_wait(z, co + dof, "decoder", st))) {
        if (rc != GS_GZC_STOPPED) return rc;
        memset(ok, 0, n); /* stopped: libzstd decodes the batch */
        return GS_OK;
    }
    /* Decoded bytes come back into dst when it is pinned, else into pinned memory first and then
     * by the pool into dst (with the device layout: frame i at out_p[i] - d_b). */
    cudaPointerAttributes pa;
    int pinned = cudaPointerGetAttributes(&pa, dst) == cudaSuccess && pa.type == cudaMemoryTypeHost;
    (void)cudaGetLastError();
    if (!pinned && (rc = gzc_grow(z, &z->h_src, &z->h_src_cap, dof, 1, st))) return rc;
    if (!pinned) {
        GZC_CU(cudaMemcpyAsync(z->h_src, z->d_b, dof, cudaMemcpyDeviceToHost, z->s), "D2H decoded");
    } else if (contiguous) {
        GZC_CU(cudaMemcpyAsync(dst + doff[0], z->d_b, doff[n - 1] - doff[0] + dsize[n - 1], cudaMemcpyDeviceToHost, z->s),
               "D2H decoded");
    } else {
        for (size_t i = 0; i < n; i++)
            GZC_CU(cudaMemcpyAsync(dst + doff[i], out_p[i], dsize[i], cudaMemcpyDeviceToHost, z->s), "D2H decoded");
    }
    if ((rc = gzc_wait(z, dof, "decoder's copy back", st)))
        return rc == GS_GZC_STOPPED ? gs_fail(st, GS_EDATA, "%s", z->why) : rc;
    if (!pinned) { /* frame i from its place in the device layout to doff[i] */
        const unsigned char **from = (const unsigned char **)malloc(n * sizeof *from);
        if (!from) return gs_fail(st, GS_ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) from[i] = z->h_src + ((unsigned char *)out_p[i] - z->d_b);
        gzc_pack_job uj = {dst, from, dsize, doff, n};
        gs_parallel_for(parts < n ? parts : n, gzc_pack_part, &uj);
        free(from);
    }
    for (size_t i = 0; i < n; i++) ok[i] = stat[i] == nvcompSuccess && act[i] == dsize[i];
    return GS_OK;
}

static int gzc_encode(gs_zcodec *c, const unsigned char *src, size_t len, size_t frame, const unsigned char **out,
                      size_t *off, size_t *clen, gs_status *st)
{
    gs_gzc *z = (gs_gzc *)c;
    if (gs_gpu_abandoned()) {
        gzc_abandon_too(z);
        return gs_fail(st, GS_EDATA, "%s", z->why);
    }
    if (!gzc_ready(z)) { /* never started: libzstd compresses the batch (strict: an error) */
        if (!z->base.stopped) return gs_fail(st, GS_EDATA, "%s", z->why);
        *out = NULL;
        return GS_OK;
    }
    GZC_CU(cudaSetDevice(z->dev), "cudaSetDevice");
    size_t n = (len + frame - 1) / frame, cmax = 0, temp = 0;
    GZC_NV(nvc.cmax(frame, nvcompBatchedZstdCompressDefaultOpts, &cmax), "CompressGetMaxOutputChunkSize");
    GZC_NV(nvc.ctemp(n, frame, nvcompBatchedZstdCompressDefaultOpts, &temp, len, z->s), "CompressGetTempSize");
    size_t dstride = al(cmax, z->cout_align);
    int rc;
    if ((rc = gzc_grow(z, &z->d_a, &z->d_a_cap, al(len, z->cin_align), 0, st)) ||
        (rc = gzc_grow(z, &z->d_b, &z->d_b_cap, n * dstride, 0, st)) ||
        (rc = gzc_grow(z, &z->d_temp, &z->d_temp_cap, temp ? temp : 1, 0, st)) || (rc = gzc_meta(z, n, st)))
        return rc;
    /* tables: in ptrs, in sizes, out ptrs (uploaded); out sizes, statuses (downloaded); packed
     * offsets (uploaded after) */
    const void **in_p = (const void **)z->h_meta;
    size_t *in_sz = (size_t *)(in_p + n), *out_sz = in_sz + 2 * n, *poff = in_sz + 4 * n; /* poff after the statuses */
    void **out_p = (void **)(in_sz + n);
    nvcompStatus_t *stat = (nvcompStatus_t *)(out_sz + n);
    for (size_t f = 0; f < n; f++) {
        in_p[f] = z->d_a + f * frame;
        in_sz[f] = len - f * frame < frame ? len - f * frame : frame;
        out_p[f] = z->d_b + f * dstride;
    }
    const char *dm = (const char *)z->d_meta;
    size_t up = 3 * n * sizeof(size_t);
    /* Pageable input is copied by the pool into pinned memory first: a pinned copy runs at the
     * link's speed, a pageable one at a fraction of it. */
    cudaPointerAttributes pa;
    if (cudaPointerGetAttributes(&pa, src) != cudaSuccess || pa.type != cudaMemoryTypeHost) {
        (void)cudaGetLastError();
        if ((rc = gzc_grow(z, &z->h_src, &z->h_src_cap, len, 1, st))) return rc;
        size_t piece = (size_t)4 << 20, np = (len + piece - 1) / piece;
        const unsigned char **ps = (const unsigned char **)malloc(np * (sizeof *ps + 2 * sizeof(size_t)));
        if (!ps) return gs_fail(st, GS_ENOMEM, "out of memory");
        size_t *pl = (size_t *)(ps + np), *po = pl + np;
        for (size_t i = 0; i < np; i++) {
            ps[i] = src + i * piece;
            po[i] = i * piece;
            pl[i] = len - po[i] < piece ? len - po[i] : piece;
        }
        gzc_pack_job pj = {z->h_src, ps, pl, po, np};
        size_t parts = (size_t)gs_pool_threads();
        gs_parallel_for(parts < np ? parts : np, gzc_pack_part, &pj);
        free(ps);
        src = z->h_src;
    }
    GZC_CU(cudaMemcpyAsync(z->d_a, src, len, cudaMemcpyHostToDevice, z->s), "H2D input");
    GZC_CU(cudaMemcpyAsync(z->d_meta, z->h_meta, up, cudaMemcpyHostToDevice, z->s), "H2D table");
    GZC_NV(nvc.enc((const void *const *)dm, (const size_t *)(dm + n * sizeof(size_t)), frame, n, z->d_temp, temp,
                   (void *const *)(dm + 2 * n * sizeof(size_t)), (size_t *)(dm + up), nvcompBatchedZstdCompressDefaultOpts,
                   (nvcompStatus_t *)(dm + up + n * sizeof(size_t)), z->s),
           "CompressAsync");
    GZC_CU(cudaMemcpyAsync(out_sz, dm + up, n * (sizeof(size_t) + sizeof(nvcompStatus_t)), cudaMemcpyDeviceToHost, z->s),
           "D2H sizes");
    if ((rc = gzc_wait(z, len + n * dstride, "encoder", st)))
        return rc == GS_GZC_STOPPED ? gs_fail(st, GS_EDATA, "%s", z->why) : rc;
    size_t total = 0;
    for (size_t f = 0; f < n; f++) {
        if (stat[f] != nvcompSuccess) return gzc_nvc(st, stat[f], "compressing a frame", z->dev);
        if (out_sz[f] > dstride)
            return gs_fail(st, GS_EDATA, "gpu %d: zstd codec: a compressed frame of %zu bytes exceeds its bound", z->dev,
                           out_sz[f]);
        poff[f] = off[f] = total;
        clen[f] = out_sz[f];
        total += out_sz[f];
    }
    if ((rc = gzc_grow(z, &z->d_pack, &z->d_pack_cap, total, 0, st)) ||
        (rc = gzc_grow(z, &z->h_stage, &z->h_stage_cap, total, 1, st)))
        return rc;
    GZC_CU(cudaMemcpyAsync((char *)z->d_meta + 5 * n * sizeof(size_t), poff, n * sizeof(size_t), cudaMemcpyHostToDevice,
                           z->s),
           "H2D offsets");
    gzc_gather<<<(unsigned)n, 256, 0, z->s>>>((const unsigned char *const *)(dm + 2 * n * sizeof(size_t)),
                                             (const size_t *)(dm + up), (const size_t *)(dm + 5 * n * sizeof(size_t)),
                                             z->d_pack);
    GZC_CU(cudaGetLastError(), "gather kernel");
    GZC_CU(cudaMemcpyAsync(z->h_stage, z->d_pack, total, cudaMemcpyDeviceToHost, z->s), "D2H frames");
    if ((rc = gzc_wait(z, 2 * total, "encoder's copy back", st)))
        return rc == GS_GZC_STOPPED ? gs_fail(st, GS_EDATA, "%s", z->why) : rc;
    *out = z->h_stage;
    return GS_OK;
}

static size_t gzc_bound(gs_zcodec *c, size_t frame)
{
    (void)c;
    size_t m = 0;
    if (nvc.cmax(frame, nvcompBatchedZstdCompressDefaultOpts, &m) != nvcompSuccess) return 0;
    return m;
}

extern "C" void gs_gpu_zcodec_destroy(gs_zcodec *c)
{
    gs_gzc *z = (gs_gzc *)c;
    if (!z) return;
    if (gs_gpu_abandoned()) { /* the device may still run a hung kernel: leave everything to the process's end */
        free(z);
        return;
    }
    if (!z->s) { /* made ahead and never used, or never started: nothing on the device */
        free(z);
        return;
    }
    if (cudaSetDevice(z->dev) == cudaSuccess) {
        if (z->s) cudaStreamSynchronize(z->s);
        cudaFreeHost(z->h_stage);
        cudaFreeHost(z->h_meta);
        cudaFree(z->d_pack);
        cudaFreeHost(z->h_src);
        cudaFree(z->d_a);
        cudaFree(z->d_b);
        cudaFree(z->d_temp);
        cudaFree(z->d_meta);
        if (z->s) cudaStreamDestroy(z->s);
    }
    (void)cudaGetLastError();
    free(z);
}

/* A codec with the host-side fields set: functions, limits and nvCOMP's alignments (host queries).
 * NULL with st set when nvCOMP cannot be loaded or queried. */
static gs_gzc *gzc_new(int device, gs_status *st)
{
    if (!nvc_ready()) {
        gs_fail(st, GS_EDATA, "--codec gpu: %s", nvc.why);
        return NULL;
    }
    nvcompAlignmentRequirements_t da, ca;
    if (nvc.dalign(nvcompBatchedZstdDecompressDefaultOpts, &da) != nvcompSuccess ||
        nvc.calign(nvcompBatchedZstdCompressDefaultOpts, &ca) != nvcompSuccess) {
        gs_fail(st, GS_EDATA, "gpu %d: zstd codec: nvCOMP alignment query failed", device);
        return NULL;
    }
    gs_gzc *z = (gs_gzc *)calloc(1, sizeof *z);
    if (!z) {
        gs_fail(st, GS_ENOMEM, "out of memory");
        return NULL;
    }
    z->dev = device;
    z->base.decode = gzc_decode;
    z->base.encode = gzc_encode;
    z->base.bound = gzc_bound;
    z->base.frame_max = GS_NVC_FRAME_MAX;
    z->base.name = "gpu";
    z->din_align = da.input > 8 ? da.input : 8;
    z->dout_align = da.output > 8 ? da.output : 8;
    z->cin_align = ca.input > 8 ? ca.input : 8;
    z->cout_align = ca.output > 8 ? ca.output : 8;
    z->base.frame_align = z->cin_align;
    return z;
}

extern "C" int gs_gpu_zcodec_create(gs_zcodec **out, int device, gs_status *st)
{
    *out = NULL;
    char why[512];
    gs_gzc *z = gzc_new(device, st);
    if (!z) return st->code;
    if (!gs_gpu_available(device, why, sizeof why)) {
        free(z);
        return gs_fail(st, GS_EDATA, "--codec gpu: %s", why);
    }
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&z->s, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        int rc = gzc_cuda(st, e, "stream", device);
        gs_gpu_zcodec_destroy(&z->base);
        return rc;
    }
    *out = &z->base;
    return GS_OK;
}

extern "C" int gs_gpu_zcodec_create_ahead(gs_zcodec **out, int device, int strict, gs_status *st)
{
    *out = NULL;
    gs_gzc *z = gzc_new(device, st);
    if (!z) return st->code;
    z->pending = 1;
    z->strict = strict;
    gs_gpu_init_start(device);
    *out = &z->base;
    return GS_OK;
}

static int gzx_warm(int dev, gs_status *st);

/* ---- frames decoded into the GPU backend's input (gs_gzdec) ---------------------------------- */
#define GZX_P1 11400714785074694791ull
#define GZX_P2 14029467366897019727ull
#define GZX_P3 1609587929392839161ull
#define GZX_P4 9650029242287828579ull
#define GZX_P5 2870177450012600261ull
#define GZX_THREADS 128 /* 32 frames a block */

__device__ __forceinline__ uint64_t gzx_rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
__device__ __forceinline__ uint64_t gzx_round(uint64_t acc, uint64_t in)
{
    acc += in * GZX_P2;
    return gzx_rotl(acc, 31) * GZX_P1;
}
__device__ __forceinline__ uint64_t gzx_merge(uint64_t h, uint64_t v)
{
    h ^= gzx_round(0, v);
    return h * GZX_P1 + GZX_P4;
}

/* XXH64 (seed 0) of p[0, len), p at a multiple of 8, by the four lanes of a group (j = threadIdx.x
 * & 3): lane j runs accumulator j over the 32-byte stripes (8-byte loads), lane 0 merges and
 * hashes the tail. Every thread of the warp calls it (shuffles; a thread with nothing to hash
 * passes len 0); the result is valid in lane 0 of each group. */
__device__ __forceinline__ uint64_t gzx_xxh64(const unsigned char *p, size_t len)
{
    const unsigned j = threadIdx.x & 3u, base = (threadIdx.x & 31u) & ~3u;
    const size_t stripes = len / 32;
    uint64_t v = j == 0 ? GZX_P1 + GZX_P2 : j == 1 ? GZX_P2 : j == 2 ? 0 : 0 - GZX_P1;
    const uint64_t *q = (const uint64_t *)p + j;
#pragma unroll 8
    for (size_t i = 0; i < stripes; i++) v = gzx_round(v, q[4 * i]);
    const uint64_t v1 = __shfl_sync(0xffffffffu, v, base), v2 = __shfl_sync(0xffffffffu, v, base + 1),
                   v3 = __shfl_sync(0xffffffffu, v, base + 2), v4 = __shfl_sync(0xffffffffu, v, base + 3);
    if (j) return 0;
    uint64_t h;
    if (len >= 32) {
        h = gzx_rotl(v1, 1) + gzx_rotl(v2, 7) + gzx_rotl(v3, 12) + gzx_rotl(v4, 18);
        h = gzx_merge(gzx_merge(gzx_merge(gzx_merge(h, v1), v2), v3), v4);
    } else
        h = GZX_P5;
    h += len;
    const unsigned char *t = p + stripes * 32;
    size_t r = len & 31;
    for (; r >= 8; r -= 8, t += 8) h = gzx_rotl(h ^ gzx_round(0, *(const uint64_t *)t), 27) * GZX_P1 + GZX_P4;
    if (r >= 4) {
        h = gzx_rotl(h ^ (uint64_t)(*(const uint32_t *)t) * GZX_P1, 23) * GZX_P2 + GZX_P3;
        t += 4;
        r -= 4;
    }
    for (; r; r--, t++) h = gzx_rotl(h ^ *t * GZX_P5, 11) * GZX_P1;
    h ^= h >> 33;
    h *= GZX_P2;
    h ^= h >> 29;
    h *= GZX_P3;
    h ^= h >> 32;
    return h;
}

/* Frame f is good when nvCOMP says so, with exactly dsize[f] bytes whose XXH64 (RFC 8878 keeps
 * the low 32 bits) is xxh[f]. Four threads a frame (every frame starts at a multiple of 8). */
__global__ void gzx_check(const unsigned char *const *out_p, const size_t *dsize, const size_t *act,
                          const nvcompStatus_t *stat, const uint32_t *xxh, size_t n, unsigned *bad)
{
    const size_t f = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 2;
    const int live = f < n;
    const size_t len = live ? dsize[f] : 0;
    const uint64_t h = gzx_xxh64(live ? out_p[f] : NULL, len);
    if (!live || (threadIdx.x & 3u)) return;
    if (stat[f] != nvcompSuccess || act[f] != len || (uint32_t)h != xxh[f]) atomicCAS(bad, 0u, (unsigned)(f + 1));
}

/* One table set: in ptrs, in sizes, out sizes, out ptrs (uploaded), actual sizes, statuses
 * (written by nvCOMP), checksums (uploaded): GZX_TAB_WORDS size_t words a frame. */
#define GZX_TAB_WORDS 7
struct gs_gzdec {
    int dev, slots;
    size_t max_frames, frame_max, in_align, out_align;
    size_t temp_bytes;      /* a slot's temp area, at the temp alignment apart */
    unsigned char *d_temp;  /* slots of them */
    unsigned char *h_tab, *d_tab; /* slots x max_frames x GZX_TAB_WORDS words, pinned / device */
};

size_t gs_gzdec_in_align(const gs_gzdec *d) { return d->in_align; }
size_t gs_gzdec_out_align(const gs_gzdec *d) { return d->out_align; }
uint64_t gs_gzdec_dev_bytes(const gs_gzdec *d)
{
    return (uint64_t)d->slots * (d->temp_bytes + d->max_frames * GZX_TAB_WORDS * sizeof(size_t));
}

void gs_gzdec_destroy(gs_gzdec *d)
{
    if (!d) return;
    if (!gs_gpu_abandoned() && cudaSetDevice(d->dev) == cudaSuccess) {
        cudaFree(d->d_temp);
        cudaFree(d->d_tab);
        cudaFreeHost(d->h_tab);
        (void)cudaGetLastError();
    }
    free(d);
}

int gs_gzdec_create(gs_gzdec **out, int dev, int slots, size_t max_frames, size_t frame_max, size_t max_bytes,
                    gs_status *st)
{
    *out = NULL;
    if (!nvc_ready()) return gs_fail(st, GS_EDATA, "zstd frames on the GPU: %s", nvc.why);
    nvcompAlignmentRequirements_t da;
    if (nvc.dalign(nvcompBatchedZstdDecompressDefaultOpts, &da) != nvcompSuccess)
        return gs_fail(st, GS_EDATA, "gpu %d: zstd frames: nvCOMP alignment query failed", dev);
    gs_gzdec *d = (gs_gzdec *)calloc(1, sizeof *d);
    if (!d) return gs_fail(st, GS_ENOMEM, "out of memory");
    d->dev = dev;
    d->slots = slots;
    d->max_frames = max_frames;
    d->frame_max = frame_max;
    d->in_align = da.input > 8 ? da.input : 8;
    d->out_align = da.output > 8 ? da.output : 8;
    const size_t tab = (size_t)slots * max_frames * GZX_TAB_WORDS * sizeof(size_t);
    cudaError_t e = cudaSetDevice(dev);
    int wrc = e == cudaSuccess ? gzx_warm(dev, st) : GS_OK;
    if (wrc) {
        free(d);
        return wrc;
    }
    nvcompStatus_t ns = nvc.dtemp(max_frames, frame_max, nvcompBatchedZstdDecompressDefaultOpts, &d->temp_bytes,
                                  max_bytes, 0);
    const size_t ta = da.temp > 256 ? da.temp : 256;
    d->temp_bytes = al(d->temp_bytes ? d->temp_bytes : 1, ta);
    if (e == cudaSuccess && ns == nvcompSuccess) e = cudaMalloc((void **)&d->d_temp, (size_t)slots * d->temp_bytes);
    if (e == cudaSuccess && ns == nvcompSuccess) e = cudaMalloc((void **)&d->d_tab, tab);
    if (e == cudaSuccess && ns == nvcompSuccess) e = cudaMallocHost((void **)&d->h_tab, tab);
    if (e != cudaSuccess || ns != nvcompSuccess) {
        int rc = e != cudaSuccess ? gzc_cuda(st, e, "frames' buffers", dev) : gzc_nvc(st, ns, "DecompressGetTempSize", dev);
        gs_gzdec_destroy(d);
        return rc;
    }
    *out = d;
    return GS_OK;
}

int gs_gzdec_queue(gs_gzdec *d, int slot, const gs_zfref *t, size_t n, const unsigned char *comp, unsigned char *out,
                   unsigned *bad, cudaStream_t s, gs_status *st)
{
    if (n == 0) return GS_OK;
    if (n > d->max_frames || slot < 0 || slot >= d->slots)
        return gs_fail(st, GS_EDATA, "gpu %d: zstd frames: %zu frames for a table of %zu", d->dev, n, d->max_frames);
    const size_t off = (size_t)slot * d->max_frames * GZX_TAB_WORDS * sizeof(size_t);
    size_t *h = (size_t *)(d->h_tab + off);
    const unsigned char *dt = d->d_tab + off;
    const void **in_p = (const void **)h;
    size_t *in_sz = h + n, *out_sz = h + 2 * n;
    void **out_p = (void **)(h + 3 * n);
    uint32_t *xxh = (uint32_t *)(h + 6 * n);
    for (size_t i = 0; i < n; i++) {
        if (t[i].dsize > d->frame_max || (t[i].at % d->out_align) || (t[i].off % d->in_align))
            return gs_fail(st, GS_EDATA, "gpu %d: zstd frames: frame %zu is not as the decoder takes it", d->dev, i);
        in_p[i] = comp + t[i].off;
        in_sz[i] = t[i].csize;
        out_sz[i] = t[i].dsize;
        out_p[i] = out + t[i].at;
        xxh[i] = t[i].xxh;
    }
    const size_t W = sizeof(size_t);
    cudaError_t e = cudaMemcpyAsync((void *)dt, h, 4 * n * W, cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess) e = cudaMemcpyAsync((void *)(dt + 6 * n * W), xxh, n * sizeof(uint32_t), cudaMemcpyHostToDevice, s);
    if (e != cudaSuccess) return gzc_cuda(st, e, "H2D frame table", d->dev);
    nvcompStatus_t ns = nvc.dec((const void *const *)dt, (const size_t *)(dt + n * W), (const size_t *)(dt + 2 * n * W),
                                (size_t *)(dt + 4 * n * W), n, d->d_temp + (size_t)slot * d->temp_bytes, d->temp_bytes,
                                (void *const *)(dt + 3 * n * W),
                                nvcompBatchedZstdDecompressDefaultOpts, (nvcompStatus_t *)(dt + 5 * n * W), s);
    if (ns != nvcompSuccess) return gzc_nvc(st, ns, "DecompressAsync", d->dev);
    const unsigned blocks = (unsigned)((4 * n + GZX_THREADS - 1) / GZX_THREADS);
    gzx_check<<<blocks, GZX_THREADS, 0, s>>>((const unsigned char *const *)(dt + 3 * n * W), (const size_t *)(dt + 2 * n * W),
                                            (const size_t *)(dt + 4 * n * W), (const nvcompStatus_t *)(dt + 5 * n * W),
                                            (const uint32_t *)(dt + 6 * n * W), n, bad);
    if ((e = cudaGetLastError()) != cudaSuccess) return gzc_cuda(st, e, "frame check kernel", d->dev);
    return GS_OK;
}

/* ---- frames encoded from the GPU backend's output (gs_gzenc) ---------------------------------- */
#define GZE_TAB_WORDS 8 /* in ptr, in size, out ptr, out size, status, offset, gathered size, XXH64 */
#define GZE_SCAN_THREADS 1024

struct gs_gzenc {
    int dev, slots;
    size_t frame, max_frames, stride; /* stride: nvCOMP's worst case for a frame, at its output alignment */
    size_t temp_bytes;                /* a slot's temp area */
    unsigned char *d_temp, *d_frames, *d_pack; /* per slot: temp, max_frames x stride, max_frames x stride */
    unsigned char *d_tab, *h_tab;     /* per slot: max_frames x GZE_TAB_WORDS words, device / pinned */
    size_t *queued;                   /* per slot: the frames of its last queue (the table's layout) */
};

/* The bytes to encode: len, or where the length is a count on the device (a compaction's, known
 * to the host only later), count x esize, at most len. */
__device__ size_t gze_len(const volatile uint64_t *count, size_t esize, size_t len)
{
    if (!count) return len;
    const uint64_t c = *count;
    return c > len / esize ? len : (size_t)c * esize;
}

/* Frame f of the batch: frame bytes of src from f x frame (the last shorter), into its slot;
 * frames past the length (a count smaller than len allows) are given 8 bytes of src, encoded and
 * then left out (gze_offsets). */
__global__ void gze_setup(const unsigned char *src, size_t len, const volatile uint64_t *count, size_t esize,
                          size_t frame, unsigned char *slots, size_t stride, size_t n, const void **in_p,
                          size_t *in_sz, void **out_p)
{
    __shared__ size_t blen;
    if (threadIdx.x == 0) blen = gze_len(count, esize, len);
    __syncthreads();
    const size_t f = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (f >= n) return;
    const size_t at = f * frame;
    in_p[f] = src + (at < blen ? at : 0);
    in_sz[f] = at < blen ? (blen - at < frame ? blen - at : frame) : 8;
    out_p[f] = slots + f * stride;
}

/* The frames' XXH64 (low 32 bits: the zstd checksum), four threads a frame. */
__global__ void gze_hash(const void *const *in_p, const size_t *in_sz, size_t n, uint64_t *xxh)
{
    const size_t f = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 2;
    const int live = f < n;
    const uint64_t h = gzx_xxh64(live ? (const unsigned char *)in_p[f] : NULL, live ? in_sz[f] : 0);
    if (live && !(threadIdx.x & 3u)) xxh[f] = h & 0xffffffffu;
}

/* Where each frame goes when packed end to end (one block): the exclusive sum of the sizes of
 * good frames; a failed frame, or one past its slot, is gathered as 0 bytes (the host refuses the
 * batch on its status or size), and so is a frame past the length (gze_setup). */
__global__ void gze_offsets(const size_t *out_sz, const nvcompStatus_t *stat, size_t n, size_t stride,
                            const volatile uint64_t *count, size_t esize, size_t len, size_t frame, size_t *off,
                            size_t *glen)
{
    __shared__ size_t part[GZE_SCAN_THREADS];
    __shared__ size_t live;
    if (threadIdx.x == 0) live = (gze_len(count, esize, len) + frame - 1) / frame;
    __syncthreads();
    const size_t per = (n + GZE_SCAN_THREADS - 1) / GZE_SCAN_THREADS, b = threadIdx.x * per;
    const size_t e = b + per < n ? b + per : n;
    size_t sum = 0;
    for (size_t f = b; f < e; f++) sum += f < live && stat[f] == nvcompSuccess && out_sz[f] <= stride ? out_sz[f] : 0;
    part[threadIdx.x] = sum;
    __syncthreads();
    for (unsigned d = 1; d < GZE_SCAN_THREADS; d <<= 1) { /* inclusive scan of the parts */
        const size_t add = threadIdx.x >= d ? part[threadIdx.x - d] : 0;
        __syncthreads();
        part[threadIdx.x] += add;
        __syncthreads();
    }
    size_t at = part[threadIdx.x] - sum;
    for (size_t f = b; f < e; f++) {
        const size_t g = f < live && stat[f] == nvcompSuccess && out_sz[f] <= stride ? out_sz[f] : 0;
        off[f] = at;
        glen[f] = g;
        at += g;
    }
}

/* nvCOMP's kernels and ours, loaded before the backend queues any of them: under CUDA's lazy
 * loading a kernel's first launch loads its module, which waits for the work already on the
 * device, so a first launch after a decoder that never finishes (corrupt input) would wait for
 * ever. Here, once per process: our kernels by name, nvCOMP's by one frame compressed and decoded. */
static int gzx_warm(int dev, gs_status *st)
{
    static int done;
    if (done) return GS_OK;
    cudaFuncAttributes fa;
    const void *ks[] = {(const void *)gzx_check, (const void *)gze_setup, (const void *)gze_hash,
                        (const void *)gze_offsets, (const void *)gzc_gather};
    for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
        cudaError_t e = cudaFuncGetAttributes(&fa, ks[i]);
        if (e != cudaSuccess) return gzc_cuda(st, e, "loading the codec's kernels", dev);
    }
    const size_t len = 4096, W = 8;
    size_t cmax = 0, ct = 0, dt = 0;
    nvcompStatus_t ns = nvc.cmax(len, nvcompBatchedZstdCompressDefaultOpts, &cmax);
    if (ns == nvcompSuccess) ns = nvc.ctemp(1, len, nvcompBatchedZstdCompressDefaultOpts, &ct, len, 0);
    if (ns == nvcompSuccess) ns = nvc.dtemp(1, len, nvcompBatchedZstdDecompressDefaultOpts, &dt, len, 0);
    if (ns != nvcompSuccess) return gzc_nvc(st, ns, "GetTempSize", dev);
    /* [raw | compressed | decoded | temp | table: in ptr, in size, out ptr, out size, status, act ptr, act size, buf size] */
    const size_t o_c = al(len, 256), o_d = o_c + al(cmax, 256), o_t = o_d + al(len, 256),
                 o_tab = o_t + al(ct > dt ? ct : dt, 256), total = o_tab + 16 * W;
    unsigned char *d = NULL;
    cudaStream_t s = NULL;
    size_t h[16] = {0};
    cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaMalloc((void **)&d, total);
    if (e == cudaSuccess) e = cudaMemsetAsync(d, 7, len, s);
    if (e == cudaSuccess) {
        h[0] = (size_t)d, h[1] = len, h[2] = (size_t)(d + o_c);        /* compress: in, size, out */
        h[5] = (size_t)(d + o_c), h[7] = (size_t)(d + o_d), h[8] = len; /* decode: in, out, its room */
        e = cudaMemcpyAsync(d + o_tab, h, 16 * W, cudaMemcpyHostToDevice, s);
    }
    const size_t *t = (const size_t *)(d + o_tab);
    if (e == cudaSuccess)
        ns = nvc.enc((const void *const *)t, t + 1, len, 1, d + o_t, ct, (void *const *)(t + 2), (size_t *)(t + 3),
                     nvcompBatchedZstdCompressDefaultOpts, (nvcompStatus_t *)(t + 4), s);
    if (e == cudaSuccess && ns == nvcompSuccess)
        ns = nvc.dec((const void *const *)(t + 5), t + 3, t + 8, (size_t *)(t + 9), 1, d + o_t, dt, (void *const *)(t + 7),
                     nvcompBatchedZstdDecompressDefaultOpts, (nvcompStatus_t *)(t + 10), s);
    double limit;
    if (e == cudaSuccess && ns == nvcompSuccess) e = gs_gpu_zwatch(s, NULL, len, &limit);
    if (e == cudaSuccess && ns == nvcompSuccess) e = cudaMemcpy(h, d + o_tab, 16 * W, cudaMemcpyDeviceToHost);
    if (d) (void)cudaFree(d);
    if (s) (void)cudaStreamDestroy(s);
    if (e != cudaSuccess) return gzc_cuda(st, e, "loading nvCOMP's kernels", dev);
    if (ns != nvcompSuccess) return gzc_nvc(st, ns, "loading nvCOMP's kernels", dev);
    if ((nvcompStatus_t)h[4] != nvcompSuccess || (nvcompStatus_t)h[10] != nvcompSuccess || h[9] != len)
        return gs_fail(st, GS_EDATA, "gpu %d: zstd codec: nvCOMP failed on a test frame", dev);
    done = 1;
    return GS_OK;
}

size_t gs_gzenc_frame(const gs_gzenc *e) { return e->frame; }
size_t gs_gzenc_max_frames(const gs_gzenc *e) { return e->max_frames; }
size_t gs_gzenc_bound(const gs_gzenc *e) { return e->max_frames * e->stride; }
uint64_t gs_gzenc_dev_bytes(const gs_gzenc *e)
{
    return (uint64_t)e->slots * (e->temp_bytes + 2 * e->max_frames * e->stride + e->max_frames * GZE_TAB_WORDS * 8);
}

void gs_gzenc_destroy(gs_gzenc *e)
{
    if (!e) return;
    if (!gs_gpu_abandoned() && cudaSetDevice(e->dev) == cudaSuccess) {
        cudaFree(e->d_temp);
        cudaFree(e->d_frames);
        cudaFree(e->d_pack);
        cudaFree(e->d_tab);
        cudaFreeHost(e->h_tab);
        (void)cudaGetLastError();
    }
    free(e->queued);
    free(e);
}

int gs_gzenc_create(gs_gzenc **out, int dev, int slots, size_t frame, size_t max_bytes, gs_status *st)
{
    *out = NULL;
    if (!nvc_ready()) return gs_fail(st, GS_EDATA, "zstd frames from the GPU: %s", nvc.why);
    nvcompAlignmentRequirements_t ca;
    if (nvc.calign(nvcompBatchedZstdCompressDefaultOpts, &ca) != nvcompSuccess)
        return gs_fail(st, GS_EDATA, "gpu %d: zstd frames: nvCOMP alignment query failed", dev);
    const size_t in_align = ca.input > 8 ? ca.input : 8, out_align = ca.output > 8 ? ca.output : 8;
    if (!frame || frame > GS_NVC_FRAME_MAX || frame % in_align)
        return gs_fail(st, GS_EUSAGE, "zstd frames of %zu bytes: the GPU encoder takes at most %zu, a multiple of %zu",
                       frame, (size_t)GS_NVC_FRAME_MAX, in_align);
    gs_gzenc *e = (gs_gzenc *)calloc(1, sizeof *e);
    if (e && !(e->queued = (size_t *)calloc((size_t)slots, sizeof *e->queued))) {
        free(e);
        e = NULL;
    }
    if (!e) return gs_fail(st, GS_ENOMEM, "out of memory");
    e->dev = dev;
    e->slots = slots;
    e->frame = frame;
    e->max_frames = (max_bytes + frame - 1) / frame;
    if (!e->max_frames) e->max_frames = 1;
    size_t cmax = 0;
    cudaError_t ce = cudaSetDevice(dev);
    int wrc = ce == cudaSuccess ? gzx_warm(dev, st) : GS_OK;
    if (wrc) {
        free(e->queued);
        free(e);
        return wrc;
    }
    nvcompStatus_t ns = nvc.cmax(frame, nvcompBatchedZstdCompressDefaultOpts, &cmax);
    if (ns == nvcompSuccess)
        ns = nvc.ctemp(e->max_frames, frame, nvcompBatchedZstdCompressDefaultOpts, &e->temp_bytes,
                       e->max_frames * frame, 0); /* (frames past a count hold 8 bytes each: gze_setup) */
    e->stride = al(cmax ? cmax : 1, out_align);
    const size_t ta = ca.temp > 256 ? ca.temp : 256;
    e->temp_bytes = al(e->temp_bytes ? e->temp_bytes : 1, ta);
    const size_t tab = (size_t)slots * e->max_frames * GZE_TAB_WORDS * 8, frames = (size_t)slots * e->max_frames * e->stride;
    if (ce == cudaSuccess && ns == nvcompSuccess) ce = cudaMalloc((void **)&e->d_temp, (size_t)slots * e->temp_bytes);
    if (ce == cudaSuccess && ns == nvcompSuccess) ce = cudaMalloc((void **)&e->d_frames, frames);
    if (ce == cudaSuccess && ns == nvcompSuccess) ce = cudaMalloc((void **)&e->d_pack, frames);
    if (ce == cudaSuccess && ns == nvcompSuccess) ce = cudaMalloc((void **)&e->d_tab, tab);
    if (ce == cudaSuccess && ns == nvcompSuccess) ce = cudaMallocHost((void **)&e->h_tab, tab);
    if (ce != cudaSuccess || ns != nvcompSuccess) {
        int rc = ce != cudaSuccess ? gzc_cuda(st, ce, "encoder's buffers", dev) : gzc_nvc(st, ns, "CompressGetTempSize", dev);
        gs_gzenc_destroy(e);
        return rc;
    }
    *out = e;
    return GS_OK;
}

int gs_gzenc_queue(gs_gzenc *e, int slot, const unsigned char *src, size_t len, const volatile uint64_t *count,
                   size_t esize, cudaStream_t s, gs_status *st)
{
    const size_t n = (len + e->frame - 1) / e->frame, W = 8;
    if (n == 0 || n > e->max_frames || slot < 0 || slot >= e->slots || (uintptr_t)src % 8 || (count && !esize))
        return gs_fail(st, GS_EDATA, "gpu %d: zstd frames: %zu bytes for an encoder of %zu frames", e->dev, len,
                       e->max_frames);
    unsigned char *t = e->d_tab + (size_t)slot * e->max_frames * GZE_TAB_WORDS * W;
    const void **in_p = (const void **)t;
    size_t *in_sz = (size_t *)(t + n * W), *out_sz = (size_t *)(t + 3 * n * W), *off = (size_t *)(t + 5 * n * W),
           *glen = (size_t *)(t + 6 * n * W);
    void **out_p = (void **)(t + 2 * n * W);
    nvcompStatus_t *stat = (nvcompStatus_t *)(t + 4 * n * W);
    uint64_t *xxh = (uint64_t *)(t + 7 * n * W);
    unsigned char *slots = e->d_frames + (size_t)slot * e->max_frames * e->stride;
    cudaError_t ce;
    e->queued[slot] = n;
    gze_setup<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(src, len, count, esize, e->frame, slots, e->stride, n, in_p,
                                                          in_sz, out_p);
    if ((ce = cudaGetLastError()) != cudaSuccess) return gzc_cuda(st, ce, "frame setup kernel", e->dev);
    nvcompStatus_t ns = nvc.enc((const void *const *)in_p, in_sz, e->frame, n, e->d_temp + (size_t)slot * e->temp_bytes,
                                e->temp_bytes, (void *const *)out_p, out_sz, nvcompBatchedZstdCompressDefaultOpts, stat, s);
    if (ns != nvcompSuccess) return gzc_nvc(st, ns, "CompressAsync", e->dev);
    gze_hash<<<(unsigned)((4 * n + GZX_THREADS - 1) / GZX_THREADS), GZX_THREADS, 0, s>>>(in_p, in_sz, n, xxh);
    if ((ce = cudaGetLastError()) != cudaSuccess) return gzc_cuda(st, ce, "checksum kernel", e->dev);
    gze_offsets<<<1, GZE_SCAN_THREADS, 0, s>>>(out_sz, stat, n, e->stride, count, esize, len, e->frame, off, glen);
    if ((ce = cudaGetLastError()) != cudaSuccess) return gzc_cuda(st, ce, "offsets kernel", e->dev);
    gzc_gather<<<(unsigned)n, 256, 0, s>>>((const unsigned char *const *)out_p, glen, off,
                                           e->d_pack + (size_t)slot * e->max_frames * e->stride);
    if ((ce = cudaGetLastError()) != cudaSuccess) return gzc_cuda(st, ce, "gather kernel", e->dev);
    /* sizes, statuses, offsets, gathered sizes and checksums back to the host */
    ce = cudaMemcpyAsync(e->h_tab + (size_t)slot * e->max_frames * GZE_TAB_WORDS * W, t + 3 * n * W, 5 * n * W,
                         cudaMemcpyDeviceToHost, s);
    return ce == cudaSuccess ? GS_OK : gzc_cuda(st, ce, "D2H frame table", e->dev);
}

int gs_gzenc_take(gs_gzenc *e, int slot, size_t len, gs_zfref *t, size_t *nframes, size_t *bytes, gs_status *st)
{
    const size_t q = e->queued[slot], n = (len + e->frame - 1) / e->frame; /* the table's layout; the live frames */
    if (n > q)
        return gs_fail(st, GS_EDATA, "gpu %d: zstd encoder: %zu bytes for %zu frames queued", e->dev, len, q);
    const size_t *h = (const size_t *)(e->h_tab + (size_t)slot * e->max_frames * GZE_TAB_WORDS * 8);
    const size_t *out_sz = h, *off = h + 2 * q, *glen = h + 3 * q;
    const nvcompStatus_t *stat = (const nvcompStatus_t *)(h + q);
    const uint64_t *xxh = (const uint64_t *)(h + 4 * q);
    size_t at = 0;
    for (size_t f = 0; f < n; f++) {
        if (stat[f] != nvcompSuccess) return gzc_nvc(st, stat[f], "compressing a frame", e->dev);
        if (out_sz[f] > e->stride || glen[f] != out_sz[f] || off[f] != at || !out_sz[f])
            return gs_fail(st, GS_EDATA, "gpu %d: zstd encoder: frame %zu of %zu bytes does not fit its slot", e->dev, f,
                           out_sz[f]);
        t[f].off = at;
        t[f].csize = out_sz[f];
        t[f].at = f * e->frame;
        t[f].dsize = len - f * e->frame < e->frame ? len - f * e->frame : e->frame;
        t[f].xxh = (uint32_t)xxh[f];
        at += out_sz[f];
    }
    *nframes = n;
    *bytes = at;
    return GS_OK;
}

int gs_gzenc_copy(gs_gzenc *e, int slot, void *dst, size_t bytes, cudaStream_t s, gs_status *st)
{
    cudaError_t ce = cudaMemcpyAsync(dst, e->d_pack + (size_t)slot * e->max_frames * e->stride, bytes,
                                     cudaMemcpyDeviceToHost, s);
    return ce == cudaSuccess ? GS_OK : gzc_cuda(st, ce, "D2H frames", e->dev);
}

/* ---- bench --zstd: nvCOMP's rates from device memory to device memory -------------------------- */

/* Count the bytes where a and b differ (n bytes; both from cudaMalloc). */
__global__ void gzb_diff(const unsigned char *a, const unsigned char *b, size_t n, unsigned long long *bad)
{
    unsigned long long k = 0;
    const size_t w = n / 8, step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < w; i += step)
        k += ((const unsigned long long *)a)[i] != ((const unsigned long long *)b)[i];
    for (size_t i = w * 8 + blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += step) k += a[i] != b[i];
    if (k) atomicAdd(bad, k);
}

/* Everything one measurement holds on the device; freed by gzb_free. */
typedef struct gzb {
    int dev;
    cudaStream_t s;
    cudaEvent_t e0, e1;
    unsigned char *raw, *enc, *dec, *lz, *temp, *tab, *packed;
    unsigned long long *bad;
    size_t *h; /* the host's copy of the tables */
} gzb;

static void gzb_free(gzb *b)
{
    void *d[] = {b->raw, b->enc, b->dec, b->lz, b->temp, b->tab, b->packed, b->bad};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        if (d[i]) cudaFree(d[i]);
    if (b->e0) cudaEventDestroy(b->e0);
    if (b->e1) cudaEventDestroy(b->e1);
    if (b->s) cudaStreamDestroy(b->s);
    (void)cudaGetLastError();
    free(b->h);
}

static int gzb_cmp_float(const void *x, const void *y)
{
    float a = *(const float *)x, c = *(const float *)y;
    return (a > c) - (a < c);
}

/* Time reps calls of one batched call (after a warm-up) with events on b->s; the median in ms. */
template <typename Call>
static int gzb_time(gzb *b, int reps, Call call, const char *what, double *ms, gs_status *st)
{
    float *t = (float *)malloc(sizeof(float) * (size_t)reps);
    if (!t) return gs_fail(st, GS_ENOMEM, "out of memory");
    int rc = GS_OK;
    for (int r = -1; r < reps && !rc; r++) {
        cudaError_t e = cudaEventRecord(b->e0, b->s);
        nvcompStatus_t ns = e == cudaSuccess ? call() : nvcompSuccess;
        if (e == cudaSuccess && ns == nvcompSuccess) e = cudaEventRecord(b->e1, b->s);
        if (e == cudaSuccess && ns == nvcompSuccess) e = cudaEventSynchronize(b->e1);
        if (e == cudaSuccess && ns == nvcompSuccess && r >= 0) e = cudaEventElapsedTime(&t[r], b->e0, b->e1);
        if (ns != nvcompSuccess) rc = gzc_nvc(st, ns, what, b->dev);
        else if (e != cudaSuccess) rc = gzc_cuda(st, e, what, b->dev);
    }
    if (!rc) {
        qsort(t, (size_t)reps, sizeof *t, gzb_cmp_float);
        *ms = t[reps / 2]; /* as bench.c's median */
    }
    free(t);
    return rc;
}

/* After a decode into b->dec: every status success, every size exact, and the bytes equal the
 * raw input. ok = 1 if so, else 0 with why. */
static int gzb_check(gzb *b, size_t n, size_t len, const size_t *want, const nvcompStatus_t *d_stat,
                     const size_t *d_act, int *ok, char *why, size_t whylen, gs_status *st)
{
    nvcompStatus_t *stat = (nvcompStatus_t *)malloc(n * (sizeof *stat + sizeof(size_t)) + sizeof(size_t));
    if (!stat) return gs_fail(st, GS_ENOMEM, "out of memory");
    size_t *act = (size_t *)(stat + n + (n & 1)); /* 8-byte aligned after n 4-byte statuses */
    unsigned long long bad = 0;
    int rc = GS_OK;
    cudaError_t e = cudaMemcpy(stat, d_stat, n * sizeof *stat, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess) e = cudaMemcpy(act, d_act, n * sizeof *act, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess) e = cudaMemset(b->bad, 0, sizeof *b->bad);
    if (e == cudaSuccess) {
        gzb_diff<<<1024, 256, 0, b->s>>>(b->raw, b->dec, len, b->bad);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaMemcpyAsync(&bad, b->bad, sizeof bad, cudaMemcpyDeviceToHost, b->s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(b->s);
    if (e != cudaSuccess) rc = gzc_cuda(st, e, "checking the decoded bytes", b->dev);
    *ok = !rc;
    for (size_t f = 0; f < n && *ok; f++)
        if (stat[f] != nvcompSuccess || act[f] != want[f]) {
            snprintf(why, whylen, "frame %zu: nvCOMP status %d, %zu bytes of %zu", f, (int)stat[f], act[f], want[f]);
            *ok = 0;
        }
    if (*ok && bad) {
        snprintf(why, whylen, "%llu decoded bytes differ from the input", bad);
        *ok = 0;
    }
    free(stat);
    return rc;
}

/* (z: GZC_CU and GZC_NV name the device by z->dev) */
static int gzb_run(gzb *z, const unsigned char *raw, size_t len, size_t frame, const unsigned char *lz,
                   const size_t *lz_off, const size_t *lz_clen, int reps, gs_bench_gpu_zstd_out *r, gs_status *st)
{
    nvcompAlignmentRequirements_t da, ca;
    GZC_NV(nvc.dalign(nvcompBatchedZstdDecompressDefaultOpts, &da), "DecompressGetRequiredAlignments");
    GZC_NV(nvc.calign(nvcompBatchedZstdCompressDefaultOpts, &ca), "CompressGetRequiredAlignments");
    if (frame % (ca.input > da.output ? ca.input : da.output))
        return gs_fail(st, GS_EUSAGE, "bench --zstd: nvCOMP takes frames of a multiple of %zu bytes",
                       ca.input > da.output ? ca.input : da.output);
    const size_t n = (len + frame - 1) / frame;
    size_t cmax = 0, ctemp = 0, dtemp = 0;
    GZC_NV(nvc.cmax(frame, nvcompBatchedZstdCompressDefaultOpts, &cmax), "CompressGetMaxOutputChunkSize");
    GZC_NV(nvc.ctemp(n, frame, nvcompBatchedZstdCompressDefaultOpts, &ctemp, len, z->s), "CompressGetTempSize");
    GZC_NV(nvc.dtemp(n, frame, nvcompBatchedZstdDecompressDefaultOpts, &dtemp, len, z->s), "DecompressGetTempSize");
    const size_t stride = al(cmax, ca.output > da.input ? ca.output : da.input);
    size_t lz_tot = 0;
    for (size_t f = 0; f < n; f++) lz_tot += al(lz_clen[f], da.input);
    /* tables, 8 bytes an entry: raw ptrs, raw sizes, enc ptrs, enc sizes, lz ptrs, lz sizes, dec ptrs,
     * actual sizes, statuses */
    const size_t tab = 9 * n * sizeof(size_t);
    GZC_CU(cudaMalloc((void **)&z->raw, al(len, 8)), "cudaMalloc");
    GZC_CU(cudaMalloc((void **)&z->dec, al(len, 8)), "cudaMalloc");
    GZC_CU(cudaMalloc((void **)&z->enc, n * stride), "cudaMalloc");
    GZC_CU(cudaMalloc((void **)&z->lz, lz_tot ? lz_tot : 1), "cudaMalloc");
    GZC_CU(cudaMalloc((void **)&z->temp, (ctemp > dtemp ? ctemp : dtemp) + 1), "cudaMalloc");
    GZC_CU(cudaMalloc((void **)&z->tab, tab), "cudaMalloc");
    GZC_CU(cudaMalloc((void **)&z->bad, sizeof *z->bad), "cudaMalloc");
    size_t *h = z->h = (size_t *)malloc(tab);
    if (!h) return gs_fail(st, GS_ENOMEM, "out of memory");
    const size_t *d = (const size_t *)z->tab;
    size_t *want = h + n, lo = 0;
    for (size_t f = 0; f < n; f++) {
        h[f] = (size_t)(z->raw + f * frame);
        want[f] = len - f * frame < frame ? len - f * frame : frame;
        h[2 * n + f] = (size_t)(z->enc + f * stride);
        h[4 * n + f] = (size_t)(z->lz + lo);
        h[5 * n + f] = lz_clen[f];
        h[6 * n + f] = (size_t)(z->dec + f * frame);
        lo += al(lz_clen[f], da.input);
    }
    int rc = GS_OK;
    cudaError_t e = cudaMemcpy(z->tab, h, tab, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaMemcpy(z->raw, raw, len, cudaMemcpyHostToDevice);
    for (size_t f = 0; f < n && e == cudaSuccess; f++)
        e = cudaMemcpy((void *)h[4 * n + f], lz + lz_off[f], lz_clen[f], cudaMemcpyHostToDevice);
    GZC_CU(e, "uploading the input");
    void *const *raw_p = (void *const *)d, *const *enc_p = (void *const *)(d + 2 * n), *const *lz_p = (void *const *)(d + 4 * n),
                *const *dec_p = (void *const *)(d + 6 * n);
    const size_t *raw_sz = d + n, *lz_sz = d + 5 * n;
    size_t *enc_sz = (size_t *)(d + 3 * n), *act = (size_t *)(d + 7 * n);
    nvcompStatus_t *stat = (nvcompStatus_t *)(d + 8 * n);
    const size_t temp = ctemp > dtemp ? ctemp : dtemp;
    rc = gzb_time(z, reps, [&] {
        return nvc.enc((const void *const *)raw_p, raw_sz, frame, n, z->temp, temp, enc_p, enc_sz,
                       nvcompBatchedZstdCompressDefaultOpts, stat, z->s);
    }, "CompressAsync", &r->enc_ms, st);
    if (rc) return rc;
    /* nvCOMP's frames, packed end to end, to the host for the ratio and libzstd's check */
    r->clen = (size_t *)malloc(n * 2 * sizeof(size_t));
    nvcompStatus_t *hs = (nvcompStatus_t *)malloc(n * sizeof *hs);
    if (!r->clen || !hs) {
        free(hs);
        return gs_fail(st, GS_ENOMEM, "out of memory");
    }
    r->off = r->clen + n;
    e = cudaMemcpy(r->clen, enc_sz, n * sizeof(size_t), cudaMemcpyDeviceToHost);
    if (e == cudaSuccess) e = cudaMemcpy(hs, stat, n * sizeof *hs, cudaMemcpyDeviceToHost);
    for (size_t f = 0; f < n && e == cudaSuccess && !rc; f++) {
        if (hs[f] != nvcompSuccess) rc = gzc_nvc(st, hs[f], "compressing a frame", z->dev);
        else if (r->clen[f] > stride) rc = gs_fail(st, GS_EDATA, "gpu %d: a compressed frame exceeds its bound", z->dev);
        r->off[f] = r->bytes;
        r->bytes += r->clen[f];
    }
    free(hs);
    GZC_CU(e, "reading the compressed sizes");
    if (rc) return rc;
    GZC_CU(cudaMalloc((void **)&z->packed, r->bytes + 1), "cudaMalloc");
    size_t *d_off = (size_t *)(d + 7 * n); /* the actual-size slots, free until the decodes */
    GZC_CU(cudaMemcpy(d_off, r->off, n * sizeof(size_t), cudaMemcpyHostToDevice), "uploading the offsets");
    gzc_gather<<<(unsigned)n, 256, 0, z->s>>>((const unsigned char *const *)enc_p, enc_sz, d_off, z->packed);
    GZC_CU(cudaGetLastError(), "gather kernel");
    if (!(r->frames = (unsigned char *)malloc(r->bytes + 1))) return gs_fail(st, GS_ENOMEM, "out of memory");
    GZC_CU(cudaMemcpyAsync(r->frames, z->packed, r->bytes, cudaMemcpyDeviceToHost, z->s), "copying the frames back");
    GZC_CU(cudaStreamSynchronize(z->s), "copying the frames back");
    /* Decode nvCOMP's frames, then libzstd's, each into dec cleared first, each checked. */
    for (int src = 0; src < 2; src++) {
        GZC_CU(cudaMemset(z->dec, 0xA5, len), "cudaMemset");
        void *const *in_p = src ? lz_p : enc_p;
        const size_t *in_sz = src ? lz_sz : enc_sz;
        rc = gzb_time(z, reps, [&] {
            return nvc.dec((const void *const *)in_p, in_sz, raw_sz, act, n, z->temp, temp, dec_p,
                           nvcompBatchedZstdDecompressDefaultOpts, stat, z->s);
        }, "DecompressAsync", src ? &r->dec_lz_ms : &r->dec_ms, st);
        if (!rc) rc = gzb_check(z, n, len, want, stat, act, src ? &r->dec_lz_ok : &r->dec_ok,
                                src ? r->why_lz : r->why, sizeof r->why, st);
        if (rc) return rc;
    }
    return GS_OK;
}

extern "C" int gs_bench_gpu_zstd(int device, const unsigned char *raw, size_t len, size_t frame, const unsigned char *lz,
                                 const size_t *lz_off, const size_t *lz_clen, int reps, gs_bench_gpu_zstd_out *r,
                                 gs_status *st)
{
    memset(r, 0, sizeof *r);
    if (!nvc_ready()) return gs_fail(st, GS_EDATA, "bench --zstd: %s", nvc.why);
    if (!len || !frame) return gs_fail(st, GS_EUSAGE, "bench --zstd: nothing to compress");
    gzb b;
    memset(&b, 0, sizeof b);
    b.dev = device;
    int rc = GS_OK;
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&b.s, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaEventCreate(&b.e0);
    if (e == cudaSuccess) e = cudaEventCreate(&b.e1);
    if (e != cudaSuccess) rc = gzc_cuda(st, e, "stream", device);
    if (!rc) rc = gzb_run(&b, raw, len, frame, lz, lz_off, lz_clen, reps, r, st);
    gzb_free(&b);
    return rc;
}

#else /* built with CUDA but without nvCOMP's headers */

extern "C" int gs_nvcomp_describe(char *buf, size_t len)
{
    snprintf(buf, len, "not built in (make deps-nvcomp or deps-nvcomp-local, then rebuild)");
    return 0;
}

extern "C" int gs_gpu_zcodec_create(gs_zcodec **out, int device, gs_status *st)
{
    (void)device;
    *out = NULL;
    return gs_fail(st, GS_EDATA, "--codec gpu: this gpustream was built without nvCOMP (make deps-nvcomp, then rebuild)");
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
    return gs_fail(st, GS_EDATA, "zstd frames on the GPU: this gpustream was built without nvCOMP");
}
size_t gs_gzdec_in_align(const gs_gzdec *d) { (void)d; return 8; }
size_t gs_gzdec_out_align(const gs_gzdec *d) { (void)d; return 8; }
uint64_t gs_gzdec_dev_bytes(const gs_gzdec *d) { (void)d; return 0; }
int gs_gzdec_queue(gs_gzdec *d, int slot, const gs_zfref *t, size_t n, const unsigned char *comp, unsigned char *out,
                   unsigned *bad, cudaStream_t s, gs_status *st)
{
    (void)d, (void)slot, (void)t, (void)n, (void)comp, (void)out, (void)bad, (void)s;
    return gs_fail(st, GS_EDATA, "zstd frames on the GPU: this gpustream was built without nvCOMP");
}
void gs_gzdec_destroy(gs_gzdec *d) { (void)d; }

int gs_gzenc_create(gs_gzenc **e, int dev, int slots, size_t frame, size_t max_bytes, gs_status *st)
{
    (void)dev, (void)slots, (void)frame, (void)max_bytes;
    *e = NULL;
    return gs_fail(st, GS_EDATA, "zstd frames from the GPU: this gpustream was built without nvCOMP");
}
size_t gs_gzenc_frame(const gs_gzenc *e) { (void)e; return 0; }
size_t gs_gzenc_max_frames(const gs_gzenc *e) { (void)e; return 0; }
size_t gs_gzenc_bound(const gs_gzenc *e) { (void)e; return 0; }
uint64_t gs_gzenc_dev_bytes(const gs_gzenc *e) { (void)e; return 0; }
int gs_gzenc_queue(gs_gzenc *e, int slot, const unsigned char *src, size_t len, const volatile uint64_t *count,
                   size_t esize, cudaStream_t s, gs_status *st)
{
    (void)e, (void)slot, (void)src, (void)len, (void)count, (void)esize, (void)s;
    return gs_fail(st, GS_EDATA, "zstd frames from the GPU: this gpustream was built without nvCOMP");
}
int gs_gzenc_take(gs_gzenc *e, int slot, size_t len, gs_zfref *t, size_t *nframes, size_t *bytes, gs_status *st)
{
    (void)e, (void)slot, (void)len, (void)t, (void)nframes, (void)bytes;
    return gs_fail(st, GS_EDATA, "zstd frames from the GPU: this gpustream was built without nvCOMP");
}
int gs_gzenc_copy(gs_gzenc *e, int slot, void *dst, size_t bytes, cudaStream_t s, gs_status *st)
{
    (void)e, (void)slot, (void)dst, (void)bytes, (void)s;
    return gs_fail(st, GS_EDATA, "zstd frames from the GPU: this gpustream was built without nvCOMP");
}
void gs_gzenc_destroy(gs_gzenc *e) { (void)e; }

extern "C" int gs_bench_gpu_zstd(int device, const unsigned char *raw, size_t len, size_t frame, const unsigned char *lz,
                                 const size_t *lz_off, const size_t *lz_clen, int reps, gs_bench_gpu_zstd_out *r,
                                 gs_status *st)
{
    (void)device, (void)raw, (void)len, (void)frame, (void)lz, (void)lz_off, (void)lz_clen, (void)reps;
    memset(r, 0, sizeof *r);
    return gs_fail(st, GS_EDATA, "bench --zstd: this gpustream was built without nvCOMP (make deps-nvcomp, then rebuild)");
}

#endif
