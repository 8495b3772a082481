/* test_plan.c - the run's plan (pipeline/plan.c) as a table: each row gives the options, io's
 * description of the input, the facts the plan may ask for, and what the reader and the writer
 * settle (elements, type, whether the writer takes frames, a stream's first chunk); it expects the
 * backend, the warm start, both codecs, the chunk and buffers, the facts asked for, and the
 * reasons. The plan is pure: the rows run in any order, each asks only what it needs. */
#include "check.h"
#include "../../pipeline/pipeline.h"

#include <string.h>

#define GIB (1ull << 30)
#define MIB (1ull << 20)
#define UNK GS_ZSTD_SIZE_UNKNOWN

typedef struct row {
    const char *name;
    /* the stages: one verb (op), or a chain of two (op, op2); scan's out type f32 for a float sum */
    gs_op op, op2;
    int fsum;
    const char *algo;
    /* the options */
    gs_backend_kind backend;
    gs_codec_kind codec;
    gs_host_mem host_mem;
    gs_dev_alloc dev_alloc;
    size_t chunk, frame;
    int buffers, level, out_zstd, ranks, gen;
    uint64_t window; /* minmax's window (0: 2) */
    /* the input as io describes it (size 0 with known 0: an unknown size is -1) */
    int64_t size;
    int zst;
    uint64_t first_frame, content;
    /* the facts, where asked: nvCOMP loads; the GPU encoder (1 made, 0 cannot be had) */
    int nvcomp, encoder;
    /* settled: elements (-1 unknown), type, parsed from text, the writer takes frames; 1 filled / 2
     * ended first chunk */
    int64_t elems;
    gs_type type;
    int parsed;
    int out_frames, first;
    int out_text; /* the writer takes text formatted elsewhere (gs_chain_text_form) */
    /* expected */
    int rc;
    gs_plan_backend want_backend;
    int want_warm;
    gs_plan_decode want_decode;
    gs_plan_encode want_encode;
    size_t want_frame, want_zencode, want_chunk;
    int want_buffers;
    unsigned want_asked; /* every fact asked for, over all the calls */
    const char *why_backend, *why_decode, *why_encode, *why_chunk, *why_buffers, *why_warm;
} row;

/* The CLI's loop: make, answer what it asks, make again. */
static int plan(const row *r, gs_chain *ch, gs_plan *p, unsigned *asked, gs_status *st)
{
    memset(ch, 0, sizeof *ch);
    ch->n = r->op2 != GS_OP_NONE ? 2 : 1;
    ch->stage[0].op = r->op;
    ch->stage[0].algo = r->algo;
    ch->stage[0].scan.op = GS_SCAN_SUM;
    ch->stage[0].scan.out_type = r->fsum ? GS_F32 : GS_I32;
    ch->stage[1].op = r->op2;
    ch->stage[0].minmax.window = r->window ? r->window : 2;
    gs_plan_in in = {ch,          !r->gen,  r->backend,   r->codec, r->host_mem, r->dev_alloc, r->chunk,
                     r->buffers,  r->level, r->frame,     r->out_zstd, r->ranks, 0};
    gs_input_desc d = {r->size ? r->size : -1, r->zst, UNK, 0, 0};
    gs_plan_facts f = {-1, NULL, -1, NULL, 0, 0};
    int rc;
    *asked = 0;
    for (int round = 0; round < 8; round++) {
        if ((rc = gs_plan_make(&in, &d, &f, p, st)) || !p->need) return rc;
        *asked |= p->need;
        if (p->need & GS_DESC_FIRST_FRAME) d.first_frame = r->first_frame ? r->first_frame : UNK;
        if (p->need & GS_DESC_CONTENT) d.content = r->content;
        d.have |= p->need & (GS_DESC_FIRST_FRAME | GS_DESC_CONTENT);
        if (p->need & GS_PLAN_NEED_NVCOMP) {
            f.nvcomp = r->nvcomp;
            f.nvcomp_why = "libnvcomp.so.6 not found";
        }
        if (p->need & GS_PLAN_NEED_ENCODER) {
            f.encoder = r->encoder;
            f.encoder_why = "--codec gpu: no GPU here";
            f.enc_frame_max = 16 * MIB;
            f.enc_frame_align = 8;
        }
    }
    return gs_fail(st, GS_EDATA, "the plan kept asking");
}

static void check_why(const char *name, const char *what, const char *got, const char *want)
{
    char n[160];
    snprintf(n, sizeof n, "%s: %s reason", name, what);
    if (want) CHECK(strstr(got, want) != NULL, n, "'%s' does not hold '%s'", got, want);
}

/* whether one of the n notes in why is the reason s */
static int has_note(const char **why, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (why[i] == s) return 1;
    return 0;
}

/* gs_plan_notes of a plan with the csv parsed where it may be: the backend's reason first; the GPU
 * backend's own reasons (here the parse's) now where it is the GPU, never where it is the CPU, and
 * for a stream only once its first chunk gave it to the GPU */
static void check_notes(const char *name, const gs_plan *p0)
{
    const char *why[GS_PLAN_NOTES];
    char n[160];
    gs_plan p = *p0;
    int k = gs_plan_notes(&p, 0, why);
    snprintf(n, sizeof n, "%s: notes now", name);
    CHECK(k >= 1 && why[0] == p.why_backend && has_note(why, k, p.why_chunk) &&
              has_note(why, k, p.why_parse) == (p.backend != GS_PLAN_CPU && p.backend != GS_PLAN_BY_STREAM),
          n, "%d notes, backend %d", k, p.backend);
    if (p.backend != GS_PLAN_BY_STREAM) return;
    gs_plan q = p;
    gs_plan_first_chunk(&q, 1, q.chunk_bytes);
    k = gs_plan_notes(&q, 1, why);
    snprintf(n, sizeof n, "%s: notes once the GPU took the stream", name);
    CHECK(k >= 2 && why[0] == q.why_backend && strstr(q.why_backend, "filled") && has_note(why, k, q.why_parse) &&
              !has_note(why, k, q.why_chunk) && has_note(why, k, q.why_warm) == (q.why_warm[0] != 0),
          n, "%d notes (%s)", k, q.why_backend);
    q = p;
    gs_plan_first_chunk(&q, 0, q.chunk_bytes);
    k = gs_plan_notes(&q, 0, why);
    snprintf(n, sizeof n, "%s: notes once the CPU took the stream", name);
    CHECK(!has_note(why, k, q.why_parse) && !has_note(why, k, q.why_buffers), n, "%d notes (%s)", k, q.why_backend);
}

static void run_row(const row *r)
{
    gs_chain ch;
    gs_plan p;
    gs_status st = {0};
    unsigned asked = 0;
    char n[160];
    if (r->algo && !gs_variant_find(r->op, r->algo)) { /* a GPU variant in a build without CUDA */
        printf("SKIP %s: --algo %s is not in this build\n", r->name, r->algo);
        return;
    }
    int rc = plan(r, &ch, &p, &asked, &st);
    snprintf(n, sizeof n, "%s: status", r->name);
    CHECK(rc == r->rc, n, "status %d (%s), want %d", rc, st.msg, r->rc);
    if (rc || r->rc) return;
    snprintf(n, sizeof n, "%s: facts asked", r->name);
    CHECK(asked == r->want_asked, n, "asked 0x%x, want 0x%x", asked, r->want_asked);
    gs_plan_settle(&p, &ch, r->elems ? r->elems : -1, r->type, r->parsed, r->out_frames, r->out_text);
    if (r->first) gs_plan_first_chunk(&p, r->first == 1, p.chunk_bytes);
    snprintf(n, sizeof n, "%s: backend", r->name);
    CHECK(p.backend == r->want_backend, n, "backend %d, want %d (%s)", p.backend, r->want_backend, p.why_backend);
    snprintf(n, sizeof n, "%s: warm start", r->name);
    CHECK(p.warm == r->want_warm, n, "warm %d, want %d (%s)", p.warm, r->want_warm, p.why_warm);
    snprintf(n, sizeof n, "%s: codecs", r->name);
    CHECK(p.decode == r->want_decode && p.encode == r->want_encode && p.zdecode == (r->want_decode == GS_DECODE_FRAMES),
          n, "decode %d, encode %d, want %d, %d", p.decode, p.encode, r->want_decode, r->want_encode);
    snprintf(n, sizeof n, "%s: frames", r->name);
    CHECK(p.frame_size == (r->want_frame ? r->want_frame : GS_ZSTD_FRAME_DEFAULT) && p.zencode == r->want_zencode, n,
          "frame %zu zencode %zu", p.frame_size, p.zencode);
    snprintf(n, sizeof n, "%s: chunk and buffers", r->name);
    CHECK(p.chunk_bytes == (r->want_chunk ? r->want_chunk : GS_CHUNK_DEFAULT) &&
              p.buffers == (r->want_buffers ? r->want_buffers : GS_BUFFERS_DEFAULT),
          n, "chunk %zu buffers %d", p.chunk_bytes, p.buffers);
    check_why(r->name, "backend", p.why_backend, r->why_backend);
    check_why(r->name, "decode", p.why_decode, r->why_decode);
    check_why(r->name, "encode", p.why_encode, r->why_encode);
    check_why(r->name, "chunk", p.why_chunk, r->why_chunk);
    check_why(r->name, "buffers", p.why_buffers, r->why_buffers);
    check_why(r->name, "warm", p.why_warm, r->why_warm);
    /* the output's text: the GPU backend formats it where it may run and the writer takes it whole */
    gs_plan_text(&p, 1);
    const int want_text = p.backend != GS_PLAN_CPU;
    snprintf(n, sizeof n, "%s: text on the device", r->name);
    CHECK(p.text_gpu == want_text && (want_text ? strstr(p.why_text, "formatted on the GPU") != NULL : 1), n,
          "text_gpu %d, want %d (%s)", p.text_gpu, want_text, p.why_text);
    gs_plan_text(&p, 0);
    snprintf(n, sizeof n, "%s: text the writer formats", r->name);
    CHECK(!p.text_gpu && !p.why_text[0], n, "text_gpu %d (%s)", p.text_gpu, p.why_text);
    /* the input's csv: the GPU backend parses it where it may run and the reader can take the values */
    gs_plan_parse(&p, 1);
    snprintf(n, sizeof n, "%s: csv parsed on the device", r->name);
    CHECK(p.parse_gpu == want_text && (want_text ? strstr(p.why_parse, "parsed on the GPU") != NULL : !p.why_parse[0]), n,
          "parse_gpu %d, want %d (%s)", p.parse_gpu, want_text, p.why_parse);
    check_notes(r->name, &p);
    gs_plan_parse(&p, 0);
    snprintf(n, sizeof n, "%s: csv the reader parses", r->name);
    CHECK(!p.parse_gpu && !p.why_parse[0], n, "parse_gpu %d (%s)", p.parse_gpu, p.why_parse);
    if (want_text) {
        p.devices = GS_DEVICES_ALL;
        gs_plan_text(&p, 1);
        snprintf(n, sizeof n, "%s: text with several GPUs", r->name);
        CHECK(p.text_gpu, n, "text_gpu %d (%s)", p.text_gpu, p.why_text);
        gs_plan_parse(&p, 1);
        snprintf(n, sizeof n, "%s: csv with several GPUs", r->name);
        CHECK(p.parse_gpu, n, "parse_gpu %d (%s)", p.parse_gpu, p.why_parse);
    }
}

#define NONE2 .op2 = GS_OP_NONE
static const row rows[] = {
    /* ---- the backend ---- */
    {.name = "convert", .op = GS_OP_NONE, NONE2, .size = 4096, .elems = 1024,
     .want_backend = GS_PLAN_CPU, .why_backend = "nothing to compute; CUDA not initialised"},
    {.name = "gen to .zst, 4 KiB", .op = GS_OP_NONE, NONE2, .gen = 1, .out_zstd = 1, .size = 4096,
     .want_backend = GS_PLAN_CPU, .why_encode = "under 1 GiB", .want_chunk = 4 * MIB,
     .why_chunk = "chunks of 4 MiB (libzstd encodes the output on the CPU backend"},
    /* libzstd's output of a CPU run: small chunks (the engine's memory beside the encoder's) */
    {.name = "scan to .zst on the CPU backend", .op = GS_OP_SCAN, NONE2, .backend = GS_BACKEND_CPU, .size = 64 * MIB,
     .elems = 16 * MIB, .out_zstd = 1, .want_backend = GS_PLAN_CPU, .want_chunk = 4 * MIB,
     .why_chunk = "chunks of 4 MiB (libzstd encodes"},
    {.name = "scan to .zst on the CPU backend, --chunk", .op = GS_OP_SCAN, NONE2, .backend = GS_BACKEND_CPU,
     .chunk = 32 * MIB, .size = 64 * MIB, .elems = 16 * MIB, .out_zstd = 1, .want_backend = GS_PLAN_CPU,
     .want_chunk = 32 * MIB, .why_chunk = "chunks of 32 MiB (--chunk)"},
    {.name = "scan to .zst on the GPU backend keeps its chunks", .want_asked = GS_DESC_FIRST_FRAME, .op = GS_OP_SCAN,
     NONE2, .backend = GS_BACKEND_GPU, .level = 3, .size = 64 * MIB, .elems = 16 * MIB, .out_zstd = 1,
     .want_backend = GS_PLAN_GPU, .want_warm = 1, .why_chunk = "chunks of 16 MiB (the default)"},
    {.name = "--backend cpu", .op = GS_OP_SCAN, NONE2, .backend = GS_BACKEND_CPU, .size = 64 * GIB, .elems = 16 * GIB,
     .want_backend = GS_PLAN_CPU, .why_backend = "--backend cpu; CUDA not initialised"},
    {.name = "--backend gpu", .want_asked = GS_DESC_FIRST_FRAME, .op = GS_OP_SCAN, NONE2, .backend = GS_BACKEND_GPU, .size = 4096, .elems = 1024,
     .want_backend = GS_PLAN_GPU, .want_warm = 1, .why_backend = "--backend gpu",
     .why_warm = "chunks run on the CPU while CUDA starts"},
    {.name = "a CPU --algo", .want_asked = GS_DESC_FIRST_FRAME, .op = GS_OP_SCAN, NONE2, .algo = "cpu-par", .size = 64 * GIB, .elems = 16 * GIB,
     .want_backend = GS_PLAN_CPU, .why_backend = "--algo cpu-par runs on the CPU; CUDA not initialised"},
    {.name = "auto, a small file", .want_asked = GS_DESC_FIRST_FRAME, .op = GS_OP_SCAN, NONE2, .size = 4096, .elems = 1024,
     .want_backend = GS_PLAN_CPU, .why_backend = "auto: input 4096 B < crossover 8 GiB; CUDA not initialised"},
    {.name = "auto, a file at the crossover", .want_asked = GS_DESC_FIRST_FRAME, .op = GS_OP_COMPACT, NONE2, .size = 8 * GIB, .elems = 2 * GIB,
     .want_backend = GS_PLAN_GPU, .want_warm = 1, .why_backend = "auto: input 8589934592 B >= crossover 8 GiB"},
    {.name = "auto, i64 one element under the crossover", .want_asked = GS_DESC_FIRST_FRAME, .op = GS_OP_MINMAX, NONE2, .elems = GIB - 1, .type = GS_I64,
     .want_backend = GS_PLAN_CPU, .why_backend = "auto: input 8589934584 B < crossover"},
    {.name = "auto, a stream that fills its first chunk", .want_asked = GS_DESC_FIRST_FRAME, .op = GS_OP_SCAN, NONE2, .first = 1,
     .want_backend = GS_PLAN_GPU, .want_warm = 1, .why_backend = "auto: the stream filled the first chunk (16 MiB)"},
    {.name = "auto, a stream that ends first", .want_asked = GS_DESC_FIRST_FRAME, .op = GS_OP_SCAN, NONE2, .first = 2, .want_backend = GS_PLAN_CPU,
     .why_backend = "auto: the stream ended before the first chunk (16 MiB) filled; CUDA not initialised"},
    {.name = "auto, a stream before its first chunk", .want_asked = GS_DESC_FIRST_FRAME, .op = GS_OP_SCAN, NONE2, .chunk = 1000,
     .want_backend = GS_PLAN_BY_STREAM, .want_warm = 1, .want_chunk = 1000,
     .why_backend = "the GPU if the stream fills its first chunk (1000 B)", .why_chunk = "chunks of 1000 B (--chunk)"},
    {.name = "auto, a stream, a window of 2^40", .want_asked = GS_DESC_FIRST_FRAME, .op = GS_OP_MINMAX, NONE2,
     .window = 1ull << 40, .type = GS_F64, .want_backend = GS_PLAN_CPU,
     .why_backend = "auto: a window's W-1 inputs take more than 4 GiB of device memory and the input's size is unknown"},
    {.name = "auto, a stream, a window of 2^29 i32", .want_asked = GS_DESC_FIRST_FRAME, .op = GS_OP_MINMAX, NONE2,
     .window = 1ull << 29, .type = GS_I32, .want_backend = GS_PLAN_BY_STREAM, .want_warm = 1,
     .why_backend = "the GPU if the stream fills its first chunk"},
    {.name = "auto, a file of 4 KiB, a window of 2^40", .want_asked = GS_DESC_FIRST_FRAME, .op = GS_OP_MINMAX, NONE2,
     .window = 1ull << 40, .size = 4096, .elems = 512, .type = GS_F64, .want_backend = GS_PLAN_CPU,
     .why_backend = "auto: input 4096 B < crossover"},
    {.name = "auto, CSV: the CPU", .want_asked = GS_DESC_FIRST_FRAME, .op = GS_OP_MINMAX, NONE2, .size = 16 * GIB,
     .type = GS_F64, .parsed = 1, .want_backend = GS_PLAN_CPU,
     .why_backend = "auto: values parsed from text on the host, which sets the pace on either backend; CUDA not initialised"},
    {.name = "auto, CSV of 2 GiB, floats printed as text: the GPU", .want_asked = GS_DESC_FIRST_FRAME, .op = GS_OP_MINMAX,
     NONE2, .size = 2 * GIB, .type = GS_F64, .parsed = 1, .out_text = 1, .want_backend = GS_PLAN_GPU, .want_warm = 1,
     .why_backend = "auto: text input of 2147483648 B >= crossover 2 GiB for floats printed as text (the GPU formats them)"},
    {.name = "auto, CSV of 2 GiB less a byte, floats printed as text: the CPU", .want_asked = GS_DESC_FIRST_FRAME,
     .op = GS_OP_MINMAX, NONE2, .size = 2 * GIB - 1, .type = GS_F64, .parsed = 1, .out_text = 1,
     .want_backend = GS_PLAN_CPU,
     .why_backend = "auto: text input of 2147483647 B < crossover 2 GiB for floats printed as text (the GPU formats "
                    "them); CUDA not initialised"},
    {.name = "auto, CSV of 16 GiB, integers printed as text: the CPU", .want_asked = GS_DESC_FIRST_FRAME,
     .op = GS_OP_SCAN, NONE2, .size = 16 * GIB, .type = GS_I32, .parsed = 1, .out_text = 1, .want_backend = GS_PLAN_CPU,
     .why_backend = "auto: values parsed from text on the host"},
    {.name = "auto, CSV of 2 GiB, floats to raw: the CPU", .want_asked = GS_DESC_FIRST_FRAME, .op = GS_OP_MINMAX, NONE2,
     .size = 2 * GIB, .type = GS_F64, .parsed = 1, .want_backend = GS_PLAN_CPU,
     .why_backend = "auto: values parsed from text on the host"},
    {.name = "auto, raw f64 of 512 MiB, minmax printed as text (2^27 floats): the GPU", .want_asked = GS_DESC_FIRST_FRAME,
     .op = GS_OP_MINMAX, NONE2, .size = 512 * MIB, .elems = (int64_t)(1) << 26, .type = GS_F64, .out_text = 1,
     .want_backend = GS_PLAN_GPU, .want_warm = 1,
     .why_backend = "auto: 134217728 floats printed as text at most >= crossover 134217728 (the GPU formats them)"},
    {.name = "auto, raw f64 of 512 MiB less 8 B, minmax printed as text: the CPU", .want_asked = GS_DESC_FIRST_FRAME,
     .op = GS_OP_MINMAX, NONE2, .size = 512 * MIB - 8, .elems = ((int64_t)(1) << 26) - 1, .type = GS_F64,
     .out_text = 1, .want_backend = GS_PLAN_CPU,
     .why_backend = "auto: 134217726 floats printed as text at most < crossover 134217728 (the GPU formats them); "
                    "CUDA not initialised"},
    {.name = "auto, raw i32 of 2 GiB, integers printed as text: the CPU", .want_asked = GS_DESC_FIRST_FRAME,
     .op = GS_OP_SCAN, NONE2, .size = 2 * GIB, .elems = (int64_t)(GIB / 2), .type = GS_I32, .out_text = 1,
     .want_backend = GS_PLAN_CPU, .why_backend = "auto: input 2147483648 B < crossover 8 GiB; CUDA not initialised"},
    {.name = "CSV, --backend gpu: the GPU", .want_asked = GS_DESC_FIRST_FRAME, .op = GS_OP_SCAN, NONE2,
     .backend = GS_BACKEND_GPU, .size = 16 * GIB, .type = GS_F64, .parsed = 1, .want_backend = GS_PLAN_GPU,
     .want_warm = 1, .why_backend = "--backend gpu"},
    {.name = "auto, a stream, --host-mem registered", .want_asked = GS_DESC_FIRST_FRAME, .op = GS_OP_SCAN, NONE2, .host_mem = GS_HOST_REGISTERED,
     .want_backend = GS_PLAN_GPU,
     .why_backend = "auto: input of unknown size (the --host-mem mode needs the backend before reading)",
     .why_warm = "(the --host-mem mode)"},
    /* ---- the warm start ---- */
    {.name = "no warm start: a float sum", .want_asked = GS_DESC_FIRST_FRAME, .op = GS_OP_SCAN, NONE2, .fsum = 1, .backend = GS_BACKEND_GPU,
     .want_backend = GS_PLAN_GPU, .why_warm = "a float sum's rounding"},
    {.name = "no warm start: a chain", .want_asked = GS_DESC_FIRST_FRAME, .op = GS_OP_COMPACT, .op2 = GS_OP_SCAN, .backend = GS_BACKEND_GPU,
     .want_backend = GS_PLAN_GPU, .why_warm = "(a chain)"},
    {.name = "no warm start: a GPU --algo", .want_asked = GS_DESC_FIRST_FRAME, .op = GS_OP_SCAN, NONE2, .algo = "lookback", .size = 4096, .elems = 1024,
     .want_backend = GS_PLAN_GPU, .why_backend = "--algo lookback runs on the GPU", .why_warm = "a named --algo"},
    {.name = "--chunk and --buffers", .want_asked = GS_DESC_FIRST_FRAME, .op = GS_OP_SCAN, NONE2, .backend = GS_BACKEND_GPU, .chunk = 3 * MIB, .buffers = 5,
     .want_backend = GS_PLAN_GPU, .want_warm = 1, .want_chunk = 3 * MIB, .want_buffers = 5,
     .why_chunk = "chunks of 3 MiB (--chunk)", .why_buffers = "--buffers 5"},
    /* ---- decoding ---- */
    {.name = "auto decode: 64K frames, 2 GiB", .op = GS_OP_COMPACT, NONE2, .size = 2 * GIB, .zst = 1,
     .first_frame = 64 << 10, .nvcomp = 1, .out_frames = 1,
     .want_backend = GS_PLAN_GPU, .want_decode = GS_DECODE_FRAMES, .want_chunk = 64 * MIB, .want_buffers = 4,
     .want_asked = GS_DESC_FIRST_FRAME | GS_PLAN_NEED_NVCOMP,
     .why_backend = "auto: input of unknown size (zstd on the GPU backend needs the backend before reading)",
     .why_decode = "--codec auto: the GPU backend decodes the zstd frames where its kernels read them (nvCOMP)",
     .why_chunk = "thousands of frames a call", .why_buffers = "4 chunks in flight"},
    {.name = "auto decode: a .zst under 1 GiB", .op = GS_OP_SCAN, NONE2, .size = 100 * MIB, .zst = 1,
     .first_frame = 64 << 10, .content = 500 * MIB, .want_backend = GS_PLAN_BY_STREAM, .want_warm = 1,
     .want_asked = GS_DESC_FIRST_FRAME | GS_DESC_CONTENT, .why_decode = "libzstd decodes (524288000 B of input"},
    {.name = "auto decode: 16 MiB frames", .op = GS_OP_SCAN, NONE2, .size = 4 * GIB, .zst = 1, .first_frame = 16 * MIB,
     .want_backend = GS_PLAN_BY_STREAM, .want_warm = 1, .want_asked = GS_DESC_FIRST_FRAME,
     .why_decode = "the first frame holds more than 1 MiB"},
    {.name = "auto decode: no nvCOMP", .op = GS_OP_SCAN, NONE2, .size = 4 * GIB, .zst = 1, .first_frame = 64 << 10,
     .want_backend = GS_PLAN_BY_STREAM, .want_warm = 1, .want_asked = GS_DESC_FIRST_FRAME | GS_PLAN_NEED_NVCOMP,
     .why_decode = "libnvcomp.so.6 not found"},
    {.name = "auto decode: --backend cpu asks nothing", .op = GS_OP_SCAN, NONE2, .backend = GS_BACKEND_CPU,
     .size = 4 * GIB, .zst = 1, .want_backend = GS_PLAN_CPU, .why_decode = "--codec auto: libzstd decodes"},
    {.name = "auto decode: MPI ranks ask nothing", .op = GS_OP_SCAN, NONE2, .ranks = 1, .size = 4 * GIB, .zst = 1,
     .out_zstd = 1, .want_backend = GS_PLAN_BY_STREAM, .want_warm = 1,
     .why_encode = "the input's size is unknown"},
    {.name = "auto decode: --host-mem mapped", .op = GS_OP_SCAN, NONE2, .host_mem = GS_HOST_MAPPED, .size = 2 * GIB,
     .zst = 1, .first_frame = 64 << 10, .nvcomp = 1, .want_backend = GS_PLAN_GPU,
     .want_asked = GS_DESC_FIRST_FRAME | GS_PLAN_NEED_NVCOMP, .why_decode = "--host-mem mapped: zstd frames decode on the host"},
    {.name = "--codec gpu: the GPU backend, both ways", .op = GS_OP_MINMAX, NONE2, .codec = GS_CODEC_GPU, .size = 4096,
     .nvcomp = 1, .encoder = 1, .out_frames = 1, .want_backend = GS_PLAN_GPU, .want_decode = GS_DECODE_FRAMES,
     .want_encode = GS_ENCODE_GPU, .want_frame = 32 << 10, .want_zencode = 32 << 10, .want_chunk = 64 * MIB,
     .want_buffers = 4, .want_asked = GS_PLAN_NEED_NVCOMP | GS_PLAN_NEED_ENCODER,
     .why_backend = "--codec gpu", .why_warm = "zstd frames on the GPU backend"},
    {.name = "--codec gpu, --backend cpu: the codec through the host", .op = GS_OP_SCAN, NONE2,
     .backend = GS_BACKEND_CPU, .codec = GS_CODEC_GPU, .encoder = 1, .out_frames = 1, .want_backend = GS_PLAN_CPU,
     .want_decode = GS_DECODE_CODEC, .want_encode = GS_ENCODE_GPU, .want_frame = 32 << 10,
     .want_asked = GS_PLAN_NEED_ENCODER},
    {.name = "--codec gpu without an encoder", .op = GS_OP_SCAN, NONE2, .codec = GS_CODEC_GPU, .rc = GS_EDATA},
    {.name = "--codec gpu without nvCOMP", .op = GS_OP_SCAN, NONE2, .codec = GS_CODEC_GPU, .encoder = 1, .rc = GS_EDATA},
    {.name = "--codec gpu with --level", .op = GS_OP_SCAN, NONE2, .codec = GS_CODEC_GPU, .level = 1, .rc = GS_EUSAGE},
    /* ---- encoding ---- */
    {.name = "auto encode: a 4 GiB input", .op = GS_OP_COMPACT, NONE2, .size = 4 * GIB, .elems = GIB, .out_zstd = 1,
     .encoder = 1, .out_frames = 1, .want_backend = GS_PLAN_CPU, .want_encode = GS_ENCODE_GPU, .want_frame = 32 << 10,
     .want_zencode = 32 << 10, .want_chunk = 64 * MIB, .want_buffers = 4, .want_asked = GS_DESC_FIRST_FRAME | GS_PLAN_NEED_ENCODER,
     .why_encode = "--codec auto: zstd encoding goes to the GPU (nvCOMP, 32K frames; 4294 MB of input)"},
    {.name = "auto encode: to CSV (no frames from the backend)", .op = GS_OP_SCAN, NONE2, .size = 4 * GIB,
     .out_zstd = 1, .encoder = 1, .out_frames = 0, .want_backend = GS_PLAN_BY_STREAM, .want_warm = 1,
     .want_encode = GS_ENCODE_GPU, .want_frame = 32 << 10, .want_asked = GS_DESC_FIRST_FRAME | GS_PLAN_NEED_ENCODER},
    {.name = "auto encode: a frame size it cannot take", .op = GS_OP_SCAN, NONE2, .size = 4 * GIB, .out_zstd = 1,
     .frame = 12345, .encoder = 1, .want_backend = GS_PLAN_BY_STREAM, .want_warm = 1, .want_frame = 12345,
     .want_asked = GS_DESC_FIRST_FRAME | GS_PLAN_NEED_ENCODER, .why_encode = "takes frames of at most 16777216 B at multiples of 8, not 12345"},
    {.name = "auto encode: --level keeps libzstd", .want_asked = GS_DESC_FIRST_FRAME, .op = GS_OP_SCAN, NONE2, .size = 4 * GIB, .out_zstd = 1, .level = 1,
     .want_backend = GS_PLAN_BY_STREAM, .want_warm = 1, .why_encode = "(--level)"},
    {.name = "auto encode: a .zst of 2 GiB decompressed", .op = GS_OP_SCAN, NONE2, .backend = GS_BACKEND_GPU,
     .size = 300 * MIB, .zst = 1, .first_frame = 16 * MIB, .content = 2 * GIB, .out_zstd = 1, .encoder = 0,
     .want_backend = GS_PLAN_GPU, .want_warm = 1,
     .want_asked = GS_DESC_CONTENT | GS_DESC_FIRST_FRAME | GS_PLAN_NEED_ENCODER, .why_encode = "(no GPU encoder)"},
    {.name = "auto encode: --device-alloc async", .op = GS_OP_SCAN, NONE2, .backend = GS_BACKEND_GPU,
     .dev_alloc = GS_DEV_ASYNC, .size = 4 * GIB, .out_zstd = 1, .encoder = 1, .out_frames = 1,
     .want_backend = GS_PLAN_GPU, .want_warm = 1, .want_encode = GS_ENCODE_GPU, .want_frame = 32 << 10,
     .want_asked = GS_DESC_FIRST_FRAME | GS_PLAN_NEED_ENCODER, .why_encode = "zstd frames are encoded on the host"},
    {.name = "gen: the GPU encodes a big output", .op = GS_OP_NONE, NONE2, .gen = 1, .size = 2 * GIB, .out_zstd = 1,
     .encoder = 1, .out_frames = 1, .want_backend = GS_PLAN_CPU, .want_encode = GS_ENCODE_GPU, .want_frame = 32 << 10,
     .want_asked = GS_PLAN_NEED_ENCODER},
};

int main(void)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) run_row(&rows[i]);
    /* a window keeps W-1 inputs, or as many as reach the stage where that is known */
    gs_job j = {0};
    j.op = GS_OP_MINMAX;
    j.minmax.window = 1ull << 40;
    uint64_t h1 = gs_job_halo(&j);
    j.in_known = 1, j.in_max = 3;
    uint64_t h2 = gs_job_halo(&j);
    j.in_max = 1ull << 50;
    uint64_t h3 = gs_job_halo(&j);
    j.minmax.window = 1;
    uint64_t h4 = gs_job_halo(&j);
    j.op = GS_OP_SCAN;
    uint64_t h5 = gs_job_halo(&j);
    CHECK(h1 == (1ull << 40) - 1 && h2 == 3 && h3 == (1ull << 40) - 1 && h4 == 0 && h5 == 0, "job halo: W-1 or the inputs",
          "%llu %llu %llu %llu %llu", (unsigned long long)h1, (unsigned long long)h2, (unsigned long long)h3,
          (unsigned long long)h4, (unsigned long long)h5);
    char buf[32];
    gs_plan_size_text(buf, sizeof buf, 8 * GIB);
    CHECK(!strcmp(buf, "8 GiB"), "size text: GiB", "%s", buf);
    gs_plan_size_text(buf, sizeof buf, 3 * MIB);
    CHECK(!strcmp(buf, "3 MiB"), "size text: MiB", "%s", buf);
    gs_plan_size_text(buf, sizeof buf, 4097);
    CHECK(!strcmp(buf, "4097 B"), "size text: bytes", "%s", buf);
    return CHECK_DONE();
}
