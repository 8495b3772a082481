/* plan.c - the run's plan (plan.h): the rules that pick the backend, the zstd codecs, the chunk
 * and the buffers, and the reason for each. Pure: no I/O, no device, no clock; what it does not
 * know it asks for (gs_plan.need). */
#include "plan.h"
#include "pipeline.h"

#include <stdio.h>
#include <string.h>

void gs_plan_size_text(char *buf, size_t len, uint64_t b)
{
    if (b >= (1ull << 30) && b % (1ull << 30) == 0) snprintf(buf, len, "%llu GiB", (unsigned long long)(b >> 30));
    else if (b >= (1ull << 20) && b % (1ull << 20) == 0) snprintf(buf, len, "%llu MiB", (unsigned long long)(b >> 20));
    else snprintf(buf, len, "%llu B", (unsigned long long)b);
}

static int computes(const gs_chain *c) { return c && c->n > 0 && c->stage[0].op != GS_OP_NONE; }

/* The variant that the first stage naming an --algo names (it says where the chain runs). */
static const gs_variant *chain_named(const gs_chain *c)
{
    for (int k = 0; c && k < c->n; k++)
        if (c->stage[k].algo) return gs_variant_find(c->stage[k].op, c->stage[k].algo);
    return NULL;
}

/* The input's bytes for the codec rules: a regular file's size, or for one named .zst under the
 * mark, the decompressed size its frame headers give; 0 where unknown. */
static uint64_t input_bytes(const gs_plan_in *in, const gs_input_desc *d, unsigned *need)
{
    if (in->ranks || d->size < 0) return 0;
    if (!d->zst_name || (uint64_t)d->size >= GS_CODEC_AUTO_GPU_ENC_MIN_BYTES) return (uint64_t)d->size;
    if (!(d->have & GS_DESC_CONTENT)) {
        *need |= GS_DESC_CONTENT;
        return 0;
    }
    return d->content;
}

/* The output's codec, its frames, and whether the GPU backend encodes them itself. */
static int plan_encode(const gs_plan_in *in, const gs_input_desc *d, const gs_plan_facts *f, gs_plan *p,
                       gs_status *st)
{
    char *why = p->why_encode;
    const size_t n = sizeof p->why_encode;
    p->frame_size = in->frame_size ? in->frame_size : GS_ZSTD_FRAME_DEFAULT;
    p->encode = GS_ENCODE_HOST;
    if (in->codec == GS_CODEC_GPU) {
        if (in->level_given)
            return gs_fail(st, GS_EUSAGE, "--level: the GPU zstd encoder (nvCOMP) has no levels; use --codec cpu for one");
        if (f->encoder < 0) {
            p->need |= GS_PLAN_NEED_ENCODER;
            return GS_OK;
        }
        if (!f->encoder) return gs_fail(st, GS_EDATA, "%s", f->encoder_why ? f->encoder_why : "--codec gpu: no GPU encoder");
        if (!in->frame_size) p->frame_size = GS_GPU_ZSTD_FRAME;
        p->encode = GS_ENCODE_GPU;
        snprintf(why, n, "--codec gpu: zstd encoding goes to the GPU (nvCOMP, %zuK frames)", p->frame_size >> 10);
    } else if (!in->out_zstd) {
        why[0] = 0;
    } else if (in->codec == GS_CODEC_CPU) {
        snprintf(why, n, "--codec cpu: libzstd encodes");
    } else if (in->level_given) {
        snprintf(why, n, "--codec auto: libzstd encodes (--level)");
    } else if (in->backend == GS_BACKEND_CPU) {
        snprintf(why, n, "--codec auto: libzstd encodes (--backend cpu)");
    } else {
        unsigned need = 0;
        const uint64_t bytes = input_bytes(in, d, &need);
        const size_t frame = in->frame_size ? in->frame_size : GS_GPU_ZSTD_FRAME;
        char mark[32];
        gs_plan_size_text(mark, sizeof mark, GS_CODEC_AUTO_GPU_ENC_MIN_BYTES);
        if (need) {
            p->need |= need;
            return GS_OK;
        }
        if (!bytes) {
            snprintf(why, n, "--codec auto: libzstd encodes (the input's size is unknown)");
        } else if (bytes < GS_CODEC_AUTO_GPU_ENC_MIN_BYTES) {
            snprintf(why, n, "--codec auto: libzstd encodes (%llu B of input, under %s)", (unsigned long long)bytes, mark);
        } else if (f->encoder < 0) {
            p->need |= GS_PLAN_NEED_ENCODER;
            return GS_OK;
        } else if (!f->encoder) {
            snprintf(why, n, "--codec auto: libzstd encodes (no GPU encoder)");
        } else if (frame > f->enc_frame_max || (f->enc_frame_align && frame % f->enc_frame_align)) {
            snprintf(why, n, "--codec auto: libzstd encodes (the GPU encoder takes frames of at most %zu B at "
                     "multiples of %zu, not %zu)", f->enc_frame_max, f->enc_frame_align, frame);
        } else {
            p->encode = GS_ENCODE_GPU;
            p->frame_size = frame;
            snprintf(why, n, "--codec auto: zstd encoding goes to the GPU (nvCOMP, %zuK frames; %llu MB of input)",
                     frame >> 10, (unsigned long long)(bytes / 1000000));
        }
    }
    p->host_zstd = in->out_zstd && p->encode == GS_ENCODE_HOST;
    /* The GPU backend encodes its output where its kernels wrote it, so that only the frames cross
     * back (one process: MPI ranks write their shards through the host). */
    p->zencode_asked = 0;
    if (p->encode == GS_ENCODE_GPU && computes(in->chain) && !in->ranks && in->backend != GS_BACKEND_CPU) {
        if (in->host_mem == GS_HOST_MAPPED || in->dev_alloc != GS_DEV_ONCE) {
            size_t at = strlen(why);
            snprintf(why + at, n - at, "; --host-mem mapped or --device-alloc per-chunk/async: zstd frames are "
                     "encoded on the host");
        } else
            p->zencode_asked = p->frame_size;
    }
    return GS_OK;
}

/* --codec auto decodes on the GPU backend where the frames are small and many (GS_CODEC_AUTO_*):
 * 1 yes, 0 no (why says so), -1 asking (p->need). */
static int auto_frames(const gs_plan_in *in, const gs_input_desc *d, const gs_plan_facts *f, gs_plan *p)
{
    char *why = p->why_decode;
    const size_t n = sizeof p->why_decode;
    unsigned need = 0;
    if (!(d->have & GS_DESC_FIRST_FRAME)) {
        p->need |= GS_DESC_FIRST_FRAME;
        return -1;
    }
    if (d->first_frame > GS_GPU_ZDEC_FRAME_MAX) {
        if (d->zst_name || d->first_frame != GS_ZSTD_SIZE_UNKNOWN)
            snprintf(why, n, "--codec auto: libzstd decodes (%s)",
                     d->first_frame == GS_ZSTD_SIZE_UNKNOWN ? "the first frame's size is unknown"
                                                            : "the first frame holds more than 1 MiB");
        return 0;
    }
    const uint64_t bytes = input_bytes(in, d, &need);
    if (need) {
        p->need |= need;
        return -1;
    }
    if (bytes < GS_CODEC_AUTO_GPU_DEC_MIN_BYTES) {
        snprintf(why, n, "--codec auto: libzstd decodes (%llu B of input, under 1 GiB)", (unsigned long long)bytes);
        return 0;
    }
    if (f->nvcomp < 0) {
        p->need |= GS_PLAN_NEED_NVCOMP;
        return -1;
    }
    if (!f->nvcomp) {
        snprintf(why, n, "--codec auto: libzstd decodes (%.250s)", f->nvcomp_why ? f->nvcomp_why : "no nvCOMP");
        return 0;
    }
    return 1;
}

/* The input's codec; --codec gpu also asks for the GPU backend (*backend). */
static int plan_decode(const gs_plan_in *in, const gs_input_desc *d, const gs_plan_facts *f, gs_plan *p,
                       gs_backend_kind *backend, gs_status *st)
{
    char *why = p->why_decode;
    const size_t n = sizeof p->why_decode;
    p->decode = GS_DECODE_HOST;
    why[0] = 0;
    if (!in->reads) return GS_OK;
    const int frames_possible = computes(in->chain) && in->backend != GS_BACKEND_CPU && !in->ranks;
    if (frames_possible && in->codec == GS_CODEC_GPU) {
        if (f->nvcomp < 0) {
            p->need |= GS_PLAN_NEED_NVCOMP;
            return GS_OK;
        }
        if (!f->nvcomp) return gs_fail(st, GS_EDATA, "--codec gpu: %s", f->nvcomp_why ? f->nvcomp_why : "no nvCOMP");
        if (*backend == GS_BACKEND_AUTO) *backend = GS_BACKEND_GPU;
        p->gpu_required = 1;
    } else if (frames_possible && in->codec == GS_CODEC_AUTO) {
        const int yes = auto_frames(in, d, f, p);
        if (yes <= 0) return GS_OK;
    } else if (in->codec == GS_CODEC_GPU) {
        p->decode = GS_DECODE_CODEC;
        snprintf(why, n, "--codec gpu: the GPU decodes zstd frames through the host");
        return GS_OK;
    } else {
        if (d->zst_name)
            snprintf(why, n, "--codec %s: libzstd decodes", in->codec == GS_CODEC_CPU ? "cpu" : "auto");
        return GS_OK;
    }
    if (in->host_mem == GS_HOST_MAPPED) {
        snprintf(why, n, "--host-mem mapped: zstd frames decode on the host");
        return GS_OK;
    }
    p->decode = GS_DECODE_FRAMES;
    if (in->codec == GS_CODEC_AUTO)
        snprintf(why, n, "--codec auto: the GPU backend decodes the zstd frames where its kernels read them (nvCOMP)");
    else
        snprintf(why, n, "--codec gpu: the GPU backend decodes the zstd frames where its kernels read them");
    return GS_OK;
}

/* The backend as far as the options decide it (the input's size settles auto). */
static void plan_backend(const gs_plan_in *in, gs_backend_kind backend, gs_plan *p)
{
    char *why = p->why_backend;
    const size_t n = sizeof p->why_backend;
    const gs_variant *named = chain_named(in->chain);
    if (!computes(in->chain)) { /* convert and gen compute nothing: no GPU round trip */
        p->backend = GS_PLAN_CPU;
        snprintf(why, n, "nothing to compute; CUDA not initialised");
    } else if (backend == GS_BACKEND_CPU) {
        p->backend = GS_PLAN_CPU;
        snprintf(why, n, "--backend cpu; CUDA not initialised");
    } else if (backend == GS_BACKEND_GPU) {
        p->backend = GS_PLAN_GPU;
        p->gpu_required = 1;
        snprintf(why, n, in->backend == GS_BACKEND_GPU ? "--backend gpu" : "--codec gpu: the GPU backend decodes the frames");
    } else if (named) {
        p->backend = named->where == GS_GPU ? GS_PLAN_GPU : GS_PLAN_CPU;
        p->gpu_required = named->where == GS_GPU;
        snprintf(why, n, "--algo %s runs on the %s%s", named->name, named->where == GS_GPU ? "GPU" : "CPU",
                 named->where == GS_GPU ? "" : "; CUDA not initialised");
    } else {
        p->backend = GS_PLAN_BY_SIZE;
        p->by_size = 1;
        snprintf(why, n, "auto: by the input's size");
    }
}

int gs_plan_make(const gs_plan_in *in, const gs_input_desc *d, const gs_plan_facts *f, gs_plan *p, gs_status *st)
{
    static const gs_plan_facts none = {-1, NULL, -1, NULL, 0, 0};
    static const gs_input_desc nodesc = {-1, 0, GS_ZSTD_SIZE_UNKNOWN, 0, 0};
    int rc;
    memset(p, 0, sizeof *p);
    if (!f) f = &none;
    if (!d) d = &nodesc;
    gs_backend_kind backend = in->backend;
    if ((rc = plan_encode(in, d, f, p, st)) || (rc = plan_decode(in, d, f, p, &backend, st))) return rc;
    if (p->need) return GS_OK;
    plan_backend(in, backend, p);
    p->zdecode = p->decode == GS_DECODE_FRAMES;
    p->opt_backend = backend;
    p->host_mem = in->host_mem;
    p->opt_chunk = in->chunk_bytes;
    p->opt_buffers = in->buffers;
    p->zencode = p->zencode_asked;
    p->in_bytes = d->size;
    p->devices = gs_devices_several(in->devices) ? in->devices : 1;
    p->made = 1;
    return GS_OK;
}

/* Whether chunks may run on the CPU while CUDA starts: only where every backend gives the same
 * bytes for any split of the input (integer sums, min and max scans, compaction, minmax), for a
 * single verb whose variant is not named (--algo runs that variant on every chunk), in the memory
 * modes that let the reader start before the backend exists. */
static int warm_ok(const gs_plan *p, const gs_chain *c, char *why, size_t n)
{
    const gs_job *j = c && c->n ? &c->stage[0] : NULL;
    const char *no = NULL;
    if (!j || c->n != 1) no = "a chain";
    else if (j->algo) no = "a named --algo";
    else if (!p->read_early) no = p->zdecode || p->zencode ? "zstd frames on the GPU backend" : "the --host-mem mode";
    else if (j->op == GS_OP_SCAN && j->scan.op == GS_SCAN_SUM && gs_type_is_float(j->scan.out_type))
        no = "a float sum's rounding depends on where the chunks split";
    else if (j->op != GS_OP_SCAN && j->op != GS_OP_COMPACT && j->op != GS_OP_MINMAX) no = "nothing to compute";
    if (no) snprintf(why, n, "no chunk on the CPU while CUDA starts (%s)", no);
    else snprintf(why, n, "chunks run on the CPU while CUDA starts, the GPU continues from their carries");
    return !no;
}

/* The bytes of the longest window's W-1 inputs in the chain (each stage's input type). */
static uint64_t chain_halo_bytes(const gs_chain *c, gs_type t)
{
    uint64_t most = 0;
    for (int k = 0; c && k < c->n; k++) {
        const gs_job *j = &c->stage[k];
        if (j->op == GS_OP_MINMAX && j->minmax.window > 1) {
            const uint64_t w1 = j->minmax.window - 1, sz = gs_type_size(t);
            const uint64_t b = w1 > UINT64_MAX / sz ? UINT64_MAX : w1 * sz;
            if (b > most) most = b;
        }
        t = gs_job_out_type(j, t);
    }
    return most;
}

void gs_plan_settle(gs_plan *p, const gs_chain *chain, int64_t elems, gs_type in_type, int parsed, int out_frames,
                    int out_text)
{
    char sz[32];
    p->zencode = out_frames ? p->zencode_asked : 0;
    const int zframes = p->zdecode || p->zencode;
    const int zgpu = zframes && p->opt_backend != GS_BACKEND_CPU;
    p->buffers = p->opt_buffers > 0 ? p->opt_buffers : zgpu ? GS_ZGPU_BUFFERS : GS_BUFFERS_DEFAULT;
    if (p->opt_buffers > 0) snprintf(p->why_buffers, sizeof p->why_buffers, "--buffers %d", p->opt_buffers);
    else snprintf(p->why_buffers, sizeof p->why_buffers, "%d chunks in flight on the GPU (%s)", p->buffers,
                  zgpu ? "zstd frames on the GPU backend: each chunk's frames on a stream of their own" : "the default");
    p->chunk_bytes = p->opt_chunk ? p->opt_chunk : zframes ? GS_ZDEC_CHUNK_DEFAULT : GS_CHUNK_DEFAULT;
    gs_plan_size_text(sz, sizeof sz, p->chunk_bytes);
    if (p->opt_chunk) snprintf(p->why_chunk, sizeof p->why_chunk, "chunks of %s (--chunk)", sz);
    else snprintf(p->why_chunk, sizeof p->why_chunk, "chunks of %s (%s)", sz,
                  zframes ? "zstd frames on the GPU backend: thousands of frames a call" : "the default");
    p->read_early = (p->host_mem == GS_HOST_PINNED || p->host_mem == GS_HOST_PAGEABLE || p->host_mem == GS_HOST_DIRECT) &&
                    !zgpu;
    const int warm = p->opt_backend != GS_BACKEND_CPU && warm_ok(p, chain, p->why_warm, sizeof p->why_warm);
    if (p->by_size) {
        char cross[32];
        /* floats printed as text: the GPU backend formats them, which pays from a smaller input */
        const int ftext = out_text && gs_type_is_float(gs_chain_out_type(chain, in_type)) && p->devices == 1;
        const uint64_t cross_bytes = ftext && parsed ? GS_AUTO_GPU_TEXT_MIN_BYTES : GS_AUTO_GPU_MIN_BYTES;
        gs_plan_size_text(cross, sizeof cross, cross_bytes);
        if (parsed && !zframes && ftext && p->in_bytes >= 0) {
            const int small = (uint64_t)p->in_bytes < cross_bytes;
            p->backend = small ? GS_PLAN_CPU : GS_PLAN_GPU;
            snprintf(p->why_backend, sizeof p->why_backend, "auto: text input of %lld B %s crossover %s for floats "
                     "printed as text (the GPU formats them)%s", (long long)p->in_bytes, small ? "<" : ">=", cross,
                     small ? "; CUDA not initialised" : "");
        } else if (parsed && !zframes) {
            /* the host parses the text on either backend, and with integers or binary out that is the
             * run's pace (docs/PERFORMANCE.md, "CSV": scan of an i64 column to csv 0.54 s on the GPU
             * backend against 0.47 on the CPU's) */
            p->backend = GS_PLAN_CPU;
            snprintf(p->why_backend, sizeof p->why_backend, "auto: values parsed from text on the host, which "
                     "sets the pace on either backend; CUDA not initialised");
        } else if (elems >= 0 && ftext) {
            const uint64_t vals = (uint64_t)elems * (uint64_t)gs_chain_out_cols(chain);
            const int small = vals < GS_AUTO_GPU_TEXT_MIN_VALUES;
            p->backend = small ? GS_PLAN_CPU : GS_PLAN_GPU;
            snprintf(p->why_backend, sizeof p->why_backend, "auto: %llu floats printed as text at most %s crossover "
                     "%llu (the GPU formats them)%s", (unsigned long long)vals, small ? "<" : ">=",
                     (unsigned long long)GS_AUTO_GPU_TEXT_MIN_VALUES, small ? "; CUDA not initialised" : "");
        } else if (elems >= 0) {
            const uint64_t bytes = (uint64_t)elems * gs_type_size(in_type);
            const int small = bytes < cross_bytes;
            p->backend = small ? GS_PLAN_CPU : GS_PLAN_GPU;
            snprintf(p->why_backend, sizeof p->why_backend, "auto: input %llu B %s crossover %s%s",
                     (unsigned long long)bytes, small ? "<" : ">=", cross, small ? "; CUDA not initialised" : "");
        } else if (chain_halo_bytes(chain, in_type) > GS_AUTO_GPU_HALO_MAX_BYTES) {
            gs_plan_size_text(sz, sizeof sz, GS_AUTO_GPU_HALO_MAX_BYTES);
            p->backend = GS_PLAN_CPU;
            snprintf(p->why_backend, sizeof p->why_backend, "auto: a window's W-1 inputs take more than %s of device "
                     "memory and the input's size is unknown; CUDA not initialised", sz);
        } else if (!p->read_early) {
            p->backend = GS_PLAN_GPU;
            snprintf(p->why_backend, sizeof p->why_backend, "auto: input of unknown size (%s needs the backend before "
                     "reading)", p->host_mem == GS_HOST_PINNED || p->host_mem == GS_HOST_PAGEABLE || p->host_mem == GS_HOST_DIRECT
                                     ? "zstd on the GPU backend" : "the --host-mem mode");
        } else {
            p->backend = GS_PLAN_BY_STREAM;
            gs_plan_size_text(sz, sizeof sz, p->chunk_bytes);
            snprintf(p->why_backend, sizeof p->why_backend, "auto: the GPU if the stream fills its first chunk (%s)", sz);
        }
    }
    p->warm = warm && p->backend != GS_PLAN_CPU;
    if (p->backend == GS_PLAN_CPU) p->why_warm[0] = 0;
    if (!p->opt_chunk && !zframes && p->host_zstd && p->backend == GS_PLAN_CPU) {
        p->chunk_bytes = GS_CHUNK_ZENC_DEFAULT;
        gs_plan_size_text(sz, sizeof sz, p->chunk_bytes);
        snprintf(p->why_chunk, sizeof p->why_chunk, "chunks of %s (libzstd encodes the output on the CPU backend: "
                 "the encoder sets the pace; small chunks keep the memory small)", sz);
    }
}

void gs_plan_input(gs_plan *p, int views)
{
    char *why = p->why_input;
    const size_t n = sizeof p->why_input;
    p->direct = 0;
    why[0] = 0;
    if (p->backend == GS_PLAN_CPU) return; /* the CPU backend reads its chunks: no choice arises */
    if (p->host_mem != GS_HOST_DIRECT) {
        snprintf(why, n, "input read into the staging buffers (--host-mem %s)", gs_host_mem_name(p->host_mem));
    } else if (p->devices != 1) {
        snprintf(why, n, "input copied through pinned staging buffers (several GPUs: the file is read where it lies "
                 "for one)");
    } else if (!views) {
        snprintf(why, n, "input copied through pinned staging buffers (not a regular, uncompressed raw or npy file)");
    } else {
        p->direct = 1;
        snprintf(why, n, "input read where it lies: the file's pages page-locked in windows of %d chunks, the copies "
                 "read the page cache (pinned staging buffers where the device refuses)", GS_DIRECT_WINDOW_CHUNKS);
    }
}

/* Text work the GPU backend takes where it can (*on, with why): none on the CPU backend, where the
 * reader or the writer does it and no choice arises. */
static void plan_text_work(const gs_plan *p, int can, int *on, char *why, size_t n, const char *gpu_why)
{
    *on = p->backend != GS_PLAN_CPU && can;
    snprintf(why, n, "%s", *on ? gpu_why : "");
}

void gs_plan_text(gs_plan *p, int form)
{
    plan_text_work(p, form, &p->text_gpu, p->why_text, sizeof p->why_text,
                   "output text formatted on the GPU where its kernels wrote the values (the host where a value needs "
                   "it)");
}

void gs_plan_parse(gs_plan *p, int can)
{
    plan_text_work(p, can, &p->parse_gpu, p->why_parse, sizeof p->why_parse,
                   "csv parsed on the GPU once it has started, block by block, up to the first block it leaves to the "
                   "host (a quote, a missing value, a number outside its exact fast path)");
}

int gs_plan_notes(const gs_plan *p, int gpu, const char **why)
{
    const int stream = p->backend == GS_PLAN_BY_STREAM, cpu = p->backend == GS_PLAN_CPU;
    /* the GPU backend's own: empty on the CPU's (the choices do not arise there) */
    const char *const own[] = {p->why_warm, p->why_buffers, p->why_input, p->why_text, p->why_parse};
    const char *const any[] = {p->why_decode, p->why_encode, p->why_chunk};
    int n = 0;
    why[n++] = p->why_backend;
    for (size_t i = 0; i < sizeof any / sizeof any[0] && !gpu; i++)
        if (any[i][0]) why[n++] = any[i];
    if (cpu || (stream && !gpu)) return n; /* a stream's own wait for its first chunk */
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        if (own[i][0]) why[n++] = own[i];
    return n;
}

void gs_plan_first_chunk(gs_plan *p, int filled, uint64_t chunk_bytes)
{
    char cb[32];
    if (p->backend != GS_PLAN_BY_STREAM) return;
    gs_plan_size_text(cb, sizeof cb, chunk_bytes);
    p->backend = filled ? GS_PLAN_GPU : GS_PLAN_CPU;
    if (filled) snprintf(p->why_backend, sizeof p->why_backend, "auto: the stream filled the first chunk (%s)", cb);
    else
        snprintf(p->why_backend, sizeof p->why_backend,
                 "auto: the stream ended before the first chunk (%s) filled; CUDA not initialised", cb);
    if (!filled) {
        p->warm = 0;
        p->why_warm[0] = 0;
    }
}
