/* codec_loader.cu - nvCOMP, opened with dlopen at the first run that asks for the GPU codec. Where
 * the library is looked for, first match wins:
 *   $GS_NVCOMP_LIB (a path to the .so; if set, nothing else is tried)
 *   <directory of the gpustream binary>/.deps/nvcomp/lib64/libnvcomp.so.6  (make deps-nvcomp-local)
 *   the library directory found at build time (GS_NVCOMP_LIBDIR)
 *   libnvcomp.so.6 on the loader's path
 * Also the codec's failures as gs_status (library code: returns, never prints). */
#ifdef GS_HAVE_NVCOMP
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec.cuh"

#define GS_NVC_SONAME "libnvcomp.so.6"

gs_nvc_api gs_nvc;
static pthread_once_t nvc_once = PTHREAD_ONCE_INIT;

static int nvc_try(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(gs_nvc.why, sizeof gs_nvc.why, "%s", e ? e : path);
        return 0;
    }
    struct {
        void **slot;
        const char *name;
    } syms[] = {
        {(void **)&gs_nvc.props, "nvcompGetProperties"},
        {(void **)&gs_nvc.dalign, "nvcompBatchedZstdDecompressGetRequiredAlignments"},
        {(void **)&gs_nvc.dtemp, "nvcompBatchedZstdDecompressGetTempSize"},
        {(void **)&gs_nvc.dec, "nvcompBatchedZstdDecompressAsync"},
        {(void **)&gs_nvc.calign, "nvcompBatchedZstdCompressGetRequiredAlignments"},
        {(void **)&gs_nvc.ctemp, "nvcompBatchedZstdCompressGetTempSize"},
        {(void **)&gs_nvc.cmax, "nvcompBatchedZstdCompressGetMaxOutputChunkSize"},
        {(void **)&gs_nvc.enc, "nvcompBatchedZstdCompressAsync"},
    };
    for (size_t i = 0; i < sizeof syms / sizeof *syms; i++)
        if (!(*syms[i].slot = dlsym(h, syms[i].name))) {
            snprintf(gs_nvc.why, sizeof gs_nvc.why, "%s lacks %s (nvCOMP 6 is needed)", path, syms[i].name);
            dlclose(h);
            return 0;
        }
    nvcompProperties_t p;
    if (gs_nvc.props(&p) != nvcompSuccess) {
        snprintf(gs_nvc.why, sizeof gs_nvc.why, "%s: nvcompGetProperties failed", path);
        dlclose(h);
        return 0;
    }
    gs_nvc.version = p.version;
    gs_nvc.lib = h;
    snprintf(gs_nvc.path, sizeof gs_nvc.path, "%s", path);
    return 1;
}

static void nvc_load(void)
{
    const char *env = getenv("GS_NVCOMP_LIB");
    if (env && *env) {
        if (!nvc_try(env)) {
            char why[sizeof gs_nvc.why];
            snprintf(why, sizeof why, "GS_NVCOMP_LIB=%.1000s: %.2000s", env, gs_nvc.why);
            memcpy(gs_nvc.why, why, sizeof why);
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
    char why[sizeof gs_nvc.why];
    snprintf(why, sizeof why, "%s not found (make deps-nvcomp-local, or set GS_NVCOMP_LIB): %.2000s",
             GS_NVC_SONAME, gs_nvc.why);
    memcpy(gs_nvc.why, why, sizeof why);
}

int gs_nvc_ready(void)
{
    pthread_once(&nvc_once, nvc_load);
    return gs_nvc.lib != NULL;
}

extern "C" int gs_nvcomp_describe(char *buf, size_t len)
{
    if (gs_nvc_ready())
        snprintf(buf, len, "nvCOMP %u.%u.%u (%s)", gs_nvc.version / 1000, gs_nvc.version % 1000 / 100,
                 gs_nvc.version % 100, gs_nvc.path);
    else
        snprintf(buf, len, "nvCOMP headers compiled in, library not loaded: %s", gs_nvc.why);
    return gs_nvc.lib != NULL;
}

int gs_gzc_cuda_fail(gs_status *st, cudaError_t e, const char *what, int dev)
{
    (void)cudaGetLastError();
    return gs_fail(st, e == cudaErrorMemoryAllocation ? GS_ENOMEM : GS_EDATA, "gpu %d: zstd codec: %s: %s", dev,
                   what, cudaGetErrorString(e));
}

int gs_gzc_nvc_fail(gs_status *st, nvcompStatus_t e, const char *what, int dev)
{
    return gs_fail(st, GS_EDATA, "gpu %d: zstd codec: %s: nvCOMP status %d", dev, what, (int)e);
}

#endif /* GS_HAVE_NVCOMP */
