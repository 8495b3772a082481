/* cli/codecs.c - how a run is set up around the engine: the zstd codecs of its input and output
 * (--codec, and auto's choice), and the engine's call with the progress line and notes. */
#include "cli.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- zstd codecs ----------------------------------------------------------------------------- */
/* The input's bytes, for auto's choice of encoder: a regular file's size, or where it is zstd
 * (by name) and not already past the mark, the decompressed size its first frames give (an estimate
 * past 8 MiB: gs_zstd_content_estimate); 0 if
 * unknown (stdin, frames without a content size). */
static uint64_t input_bytes_look(cli *c)
{
    struct stat sb;
    if (!c->in || !strcmp(c->in, "-") || stat(c->in, &sb) || !S_ISREG(sb.st_mode)) return 0;
    int zst = 0;
    gs_format_from_name(c->in, &zst);
    if (!zst || (uint64_t)sb.st_size >= GS_CODEC_AUTO_GPU_ENC_MIN_BYTES) return (uint64_t)sb.st_size;
    return gs_zstd_content_estimate(c->in); /* from the first frames: a walk of every frame reads the whole file */
}

/* The same, looked at once (both directions' choices ask). */
static uint64_t input_bytes(cli *c)
{
    if (!c->in_bytes_have) {
        c->in_bytes_val = input_bytes_look(c);
        c->in_bytes_have = 1;
    }
    return c->in_bytes_val;
}

/* --codec auto's encoder, for a run that writes zstd over in_bytes of input (0: unknown; -1: IN's,
 * looked at here, after the cheaper reasons to keep libzstd): the GPU's, as pipeline.h's rule
 * says, where nvCOMP loads and takes the frame size; else NULL (libzstd). The device starts
 * beside the run (gs_gpu_zcodec_create_ahead); where it does not, libzstd compresses. Never an
 * error: auto falls back. */
static gs_zcodec *auto_encoder(cli *c, int64_t in_bytes)
{
    gs_status st = {0};
    gs_zcodec *z = NULL;
    if (c->level_given || c->eng.backend == GS_BACKEND_CPU) return NULL;
    const uint64_t bytes = in_bytes < 0 ? input_bytes(c) : (uint64_t)in_bytes;
    if (bytes < GS_CODEC_AUTO_GPU_ENC_MIN_BYTES || gs_gpu_zcodec_create_ahead(&z, c->eng.device, 0, &st)) return NULL;
    size_t frame = c->frame_given ? c->wr.frame_size : GS_GPU_ZSTD_FRAME;
    if (frame > z->frame_max || frame % z->frame_align) {
        gs_gpu_zcodec_destroy(z);
        return NULL;
    }
    c->wr.frame_size = frame;
    if (verbose || c->stats)
        say_note("--codec auto: zstd encoding goes to the GPU (nvCOMP, %zuK frames; %llu MB of input)", frame >> 10,
                 (unsigned long long)(bytes / 1000000));
    return z;
}

/* The device codec for each direction that runs on the GPU (--codec, or auto's choice).
 * in_bytes: the input's size, 0 if unknown, -1 for IN's (see auto_encoder). */
int setup_codecs(cli *c, int decode, int encode, int64_t in_bytes, gs_status *st)
{
    if (encode && c->codec == GS_CODEC_AUTO) {
        int zst = 0;
        if (c->out) gs_format_from_name(c->out, &zst);
        if (c->zstd || zst) c->wr.zcodec = auto_encoder(c, in_bytes);
    }
    /* --codec gpu: the codecs are made ahead, CUDA starting beside the reading (strict: where the
     * device does not start, their first call fails) */
    if (encode && c->codec == GS_CODEC_GPU) {
        if (c->level_given)
            return gs_fail(st, GS_EUSAGE, "--level: the GPU zstd encoder (nvCOMP) has no levels; use --codec cpu for one");
        if (!c->frame_given) c->wr.frame_size = GS_GPU_ZSTD_FRAME;
        if (gs_gpu_zcodec_create_ahead(&c->wr.zcodec, c->eng.device, 1, st)) return st->code;
    }
    /* A verb whose output goes to the GPU's encoder: where the GPU backend runs it, the output is
     * encoded where its kernels wrote it and only the frames come back (gs_engine_opts.zencode);
     * the chunks run on the CPU while CUDA starts go to the codec through the host. One process
     * only (MPI ranks write their shards as before). */
    if (encode && c->wr.zcodec && c->nstages && in_bytes && c->eng.backend != GS_BACKEND_CPU)
        c->eng.zencode = c->wr.frame_size;
    const char *ze = getenv("GS_TEST_CPU_ZENC"); /* tests: the CPU backend hands over frames (cpu_backend.c) */
    if (encode && c->nstages && in_bytes && c->eng.backend == GS_BACKEND_CPU && ze && (*ze == '1' || *ze == '2'))
        c->eng.zencode = c->wr.frame_size;
    /* A verb that may run on the GPU backend hands it the frames themselves, to decode where its
     * kernels read them (pipeline.h, GS_CODEC_AUTO): --codec gpu, and auto where nvCOMP loads.
     * The frames it cannot take, and the chunks read while CUDA starts, decode with libzstd: no
     * other nvCOMP decoding runs on the device, so a decoder that never finishes on corrupt input
     * meets only the backend's own watchdog, never a CUDA call that would wait for it. */
    const char *zt = getenv("GS_TEST_CPU_ZFRAMES"); /* tests: the CPU backend takes frames (cpu_backend.c) */
    if (decode && c->nstages && c->eng.backend == GS_BACKEND_CPU && c->codec != GS_CODEC_GPU && zt && *zt == '1') {
        c->rd.zframes = c->eng.zdecode = 1;
        return GS_OK;
    }
    if (decode && c->nstages && c->eng.backend != GS_BACKEND_CPU && in_bytes /* not MPI ranks' shards */ &&
        (c->codec == GS_CODEC_GPU ||
         (c->codec == GS_CODEC_AUTO && c->in && gs_zstd_first_frame_size(c->in) <= GS_GPU_ZDEC_FRAME_MAX &&
          (in_bytes < 0 ? input_bytes(c) : (uint64_t)in_bytes) >= GS_CODEC_AUTO_GPU_DEC_MIN_BYTES &&
          gs_nvcomp_describe(NULL, 0)))) {
        if (c->codec == GS_CODEC_GPU) { /* asked for: nvCOMP and the GPU backend, or an error */
            char why[PATH_MAX + 300];
            if (!gs_nvcomp_describe(why, sizeof why)) return gs_fail(st, GS_EDATA, "--codec gpu: %s", why);
            if (c->eng.backend == GS_BACKEND_AUTO) c->eng.backend = GS_BACKEND_GPU;
        }
        c->rd.zframes = c->eng.zdecode = 1;
        if (c->codec == GS_CODEC_AUTO && (verbose || c->stats))
            say_note("--codec auto: the GPU backend decodes the zstd frames where its kernels read them (nvCOMP)");
        return GS_OK;
    }
    if (decode && c->codec == GS_CODEC_GPU && gs_gpu_zcodec_create_ahead(&c->rd.zcodec, c->eng.device, 1, st))
        return st->code;
    return GS_OK;
}

int run_engine(cli *c, const gs_chain *ch, gs_source *src, gs_writer *w, gs_run_stats *stats,
                      uint64_t *count, gs_status *st)
{
    if (c->progress) {
        c->eng.progress = on_progress;
        c->eng.progress_ctx = c;
    }
    if (verbose || c->stats) c->eng.note = on_note;
    int rc = gs_engine_run_chain(ch, &c->eng, src, w, count, stats, st);
    if (c->progress) fputs("\r\033[K", stderr);
    return rc;
}

