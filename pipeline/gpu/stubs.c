/* gpu/stubs.c - the GPU API in a build without CUDA: no device, and each call says so (the CLI
 * reports the reason where a GPU was asked for; --backend auto runs on the CPU). */
#ifndef GS_HAVE_CUDA
#include "../pipeline.h"

#include <stdio.h>

#define GS_NO_CUDA "built without CUDA"

int gs_backend_gpu_create(gs_backend **b, const gs_backend_cfg *c, gs_status *st)
{
    (void)b;
    (void)c;
    return gs_fail(st, GS_EDATA, "this gpustream was " GS_NO_CUDA " (rebuild with nvcc on the PATH)");
}

void gs_gpu_init_start(int device) { (void)device; }
void gs_gpu_init_start_list(const int *devs, int n)
{
    (void)devs;
    (void)n;
}

void gs_gpu_init_start_rank(int local_rank) { (void)local_rank; }

int gs_gpu_started(void) { return 0; }


int gs_gpu_init_ready(void) { return 1; }

int gs_gpu_init_device(void) { return -1; }
int gs_gpu_init_count(void) { return 0; }

int gs_gpu_init_wait(int device, char *why, size_t len, double *secs)
{
    (void)device;
    if (why && len) snprintf(why, len, GS_NO_CUDA);
    if (secs) *secs = -1; /* nothing was started */
    return 0;
}

int gs_gpu_available(int device, char *desc, size_t len)
{
    (void)device;
    if (desc && len) snprintf(desc, len, GS_NO_CUDA);
    return 0;
}

int gs_gpu_describe(char *buf, size_t len)
{
    if (buf && len) buf[0] = 0;
    return 0;
}

int gs_gpu_zcodec_create(gs_zcodec **c, int device, gs_status *st)
{
    (void)device;
    *c = NULL;
    return gs_fail(st, GS_EDATA, "--codec gpu: this gpustream was " GS_NO_CUDA " (rebuild with nvcc on the PATH)");
}

int gs_gpu_zcodec_create_ahead(gs_zcodec **c, int device, int strict, gs_status *st)
{
    (void)strict;
    return gs_gpu_zcodec_create(c, device, st);
}

void gs_gpu_zcodec_destroy(gs_zcodec *c) { (void)c; }

int gs_gpu_abandoned(void) { return 0; }

int gs_nvcomp_describe(char *buf, size_t len)
{
    if (buf && len) snprintf(buf, len, "not built in (" GS_NO_CUDA ")");
    return 0;
}
#else
typedef int gs_gpu_stubs_unused; /* a CUDA build: the GPU sources under pipeline/ */
#endif
