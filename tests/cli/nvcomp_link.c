/* nvcomp_link.c - driver for test_nvcomp.sh: pipeline/gpu/codec_*.cu built against nvCOMP's headers,
 * linked alone, loads libnvcomp.so.6 at run time. Prints the info line, then what asking for the
 * GPU codec gives (a codec where a GPU is usable, else the reason). Exit 0 when the library loaded. */
#include <stdio.h>
#include "../../pipeline/pipeline.h"

/* The device query and start-up live in gpu/device.cu, which this link leaves out: no device here. */
int gs_gpu_available(int device, char *desc, size_t len)
{
    (void)device;
    snprintf(desc, len, "no GPU in this link test");
    return 0;
}

void gs_gpu_init_start(int device) { (void)device; }

int gs_gpu_init_wait(int device, char *why, size_t len, double *secs)
{
    (void)device, (void)secs;
    snprintf(why, len, "no GPU in this link test");
    return 0;
}

int main(void)
{
    char buf[4096];
    int loaded = gs_nvcomp_describe(buf, sizeof buf);
    printf("describe: %s\n", buf);
    gs_zcodec *c = NULL;
    gs_status st = {0};
    int rc = gs_gpu_zcodec_create(&c, 0, &st);
    printf("create: %d %s\n", rc, rc ? st.msg : "ok");
    gs_gpu_zcodec_destroy(c);
    /* made ahead (--codec auto): made at once; its first call finds no device and stops it */
    c = NULL;
    rc = gs_gpu_zcodec_create_ahead(&c, 0, 0, &st);
    if (!rc) {
        const unsigned char *out = (const unsigned char *)"x";
        size_t off = 0, clen = 0;
        unsigned char src[64] = {0};
        int erc = c->encode(c, src, sizeof src, sizeof src, &out, &off, &clen, &st);
        printf("ahead: %d encode %d out %s stopped %s\n", rc, erc, out ? "set" : "NULL", c->stopped ? c->stopped : "no");
    } else
        printf("ahead: %d %s\n", rc, st.msg);
    gs_gpu_zcodec_destroy(c);
    return loaded ? 0 : 1;
}
