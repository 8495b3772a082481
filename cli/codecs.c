/* cli/codecs.c - how a run is set up around the engine: the plan (backend, zstd codecs, chunk,
 * buffers) asked for and its device codecs made, the output's format, and the engine's call with
 * the progress line and notes. */
#include "cli.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- zstd codecs ----------------------------------------------------------------------------- */
/* The run's plan (pipeline/plan.h) decides the codecs, with the backend, the chunk and the
 * buffers: it is made here from the options and io's description of IN (gs_input_describe: a
 * regular file's size, its frame headers where the plan asks; a pipe is never read here), with
 * the facts it asks for (nvCOMP, the GPU encoder made ahead). The device codecs it names are made
 * here; the engine carries out the rest (c->eng.plan). */

/* The stages as the plan sees them before the input's type is known: each one's operation and
 * --algo (a chain of one GS_OP_NONE: convert and gen compute nothing). */
static void plan_chain(const cli *c, gs_chain *ch)
{
    memset(ch, 0, sizeof *ch);
    ch->n = c->nstages ? c->nstages : 1;
    ch->stage[0].op = GS_OP_NONE;
    for (int k = 0; k < c->nstages; k++) {
        ch->stage[k] = c->stages[k].job;
        ch->stage[k].op = GS_OP_NONE;
        for (int op = GS_OP_SCAN; op < GS_OP_NONE; op++)
            if (!strcmp(gs_op_name((gs_op)op), c->stages[k].verb->name)) ch->stage[k].op = (gs_op)op;
        if (c->stages[k].verb->bit == V_ROLLING) ch->stage[k].op = GS_OP_MINMAX; /* a minmax job with aggregates */
    }
}

/* What the plan asks for: the description's facts, whether nvCOMP loads, the GPU encoder made
 * ahead (*enc: strict with --codec gpu, whose first call then fails where the device does not
 * start; else it stops and libzstd encodes). */
static void plan_ask(cli *c, unsigned need, gs_input_desc *d, gs_plan_facts *f, gs_zcodec **enc, char *why,
                     size_t len, gs_status *est)
{
    if (need & (GS_DESC_FIRST_FRAME | GS_DESC_CONTENT)) gs_input_describe(c->in, need, d);
    if (need & GS_PLAN_NEED_NVCOMP) {
        f->nvcomp = gs_nvcomp_describe(why, len);
        f->nvcomp_why = why;
    }
    if (need & GS_PLAN_NEED_ENCODER) {
        f->encoder = gs_gpu_zcodec_create_ahead(enc, c->eng.device, c->codec == GS_CODEC_GPU, est) == GS_OK;
        f->encoder_why = est->msg;
        if (f->encoder) {
            f->enc_frame_max = (*enc)->frame_max;
            f->enc_frame_align = (*enc)->frame_align;
        }
    }
}

/* The plan for a run that decodes IN (decode) and writes an output (encode), and the device codecs
 * it names. in_bytes: the input's size for gen, -1 for IN's (described here), 0 for MPI ranks'
 * shards (their codecs are the host's). */
int setup_codecs(cli *c, int decode, int encode, int64_t in_bytes, gs_status *st)
{
    gs_chain ch;
    int zst = 0;
    plan_chain(c, &ch);
    if (c->out) gs_format_from_name(c->out, &zst);
    const gs_plan_in in = {&ch, decode, c->eng.backend, c->codec, c->eng.host_mem, c->eng.dev_alloc,
                           c->eng.chunk_bytes, c->eng.buffers, c->level_given, c->frame_given ? c->wr.frame_size : 0,
                           encode && (c->zstd || zst), in_bytes == 0, c->eng.ndevices};
    gs_input_desc d = {in_bytes, 0, GS_ZSTD_SIZE_UNKNOWN, 0, 0};
    if (in_bytes < 0) gs_input_describe(c->in, 0, &d);
    c->eng.total_bytes = d.size; /* the progress line's total: a regular file's bytes (compressed or
                                    not, as the reader counts them) or gen's; -1 where unknown */
    gs_plan_facts f = {-1, NULL, -1, NULL, 0, 0};
    gs_status est = {0};
    char nvwhy[PATH_MAX + 300];
    gs_zcodec *enc = NULL;
    gs_plan *p = &c->eng.plan;
    int rc;
    while (!(rc = gs_plan_make(&in, &d, &f, p, st)) && p->need)
        plan_ask(c, p->need, &d, &f, &enc, nvwhy, sizeof nvwhy, &est);
    if (!rc && encode && p->encode == GS_ENCODE_GPU) { /* the encoder it asked for */
        c->wr.frame_size = p->frame_size;
        c->wr.zcodec = enc;
        enc = NULL;
    }
    gs_gpu_zcodec_destroy(enc); /* asked for, not taken */
    if (rc) return rc;
    c->rd.zframes = p->decode == GS_DECODE_FRAMES;
    if (decode && p->decode == GS_DECODE_CODEC && gs_gpu_zcodec_create_ahead(&c->rd.zcodec, c->eng.device, 1, st))
        return st->code;
    return GS_OK;
}

/* The output's format and compression into c->wr. */
int check_output_name(const cli *c, const char *verb)
{
    const char *ext = c->out && !c->to_given ? gs_foreign_ext(c->out) : NULL;
    if (!ext) return 0;
    return usage_error(verb, "%s: gpustream does not write .%s; it writes raw, npy (.npy), csv (.csv, .tsv) and text "
                             "(.txt), each optionally zstd-compressed (.zst); --to FMT writes one of them under this name",
                       c->out, ext);
}

void resolve_output(cli *c, gs_format in_fmt, gs_type out_type, int cols, int64_t rows, const char *colnames)
{
    int ext_zst = 0;
    gs_format ext = c->out ? gs_format_from_name(c->out, &ext_zst) : GS_FMT_AUTO;
    gs_format fmt = c->to_given ? c->to : ext != GS_FMT_AUTO ? ext : in_fmt != GS_FMT_AUTO ? in_fmt : GS_FMT_RAW;
    c->wr.format = fmt;
    c->wr.type = out_type;
    c->wr.ncols = cols;
    c->wr.rows = rows;
    c->wr.colnames = (fmt == GS_FMT_CSV || fmt == GS_FMT_TEXT) ? colnames : NULL;
    c->wr.zstd = c->zstd || ext_zst;
    c->wr.force = c->force;
    if (!c->wr.delim && fmt == GS_FMT_CSV && !c->to_given) c->wr.delim = gs_delim_from_name(c->out); /* .tsv */
}

/* The plan's reasons, one line each (-v, --stats), once the reader and the writer settled it (a
 * stream's GPU reasons come from the engine, where the GPU takes it). */
static void plan_notes(const gs_plan *p)
{
    const char *why[GS_PLAN_NOTES];
    const int n = gs_plan_notes(p, 0, why);
    say_note(GS_PLAN_BACKEND_NOTE "%s", why[0]);
    for (int i = 1; i < n; i++) say_note("%s", why[i]);
}


int run_engine(cli *c, const gs_chain *ch, gs_source *src, gs_writer *w, gs_run_stats *stats,
                      uint64_t *count, gs_status *st)
{
    if (c->progress) {
        c->eng.progress = on_progress;
        c->eng.progress_ctx = c;
    }
    if (verbose || c->stats) c->eng.note = on_note;
    const int one = src->cols <= 1; /* several columns: each chunk is split, never frames or views */
    const int64_t values = src->count >= 0 && !one ? src->count * src->cols : src->count;
    const int form = gs_chain_text_form(ch, src, w, NULL);
    gs_plan_settle(&c->eng.plan, ch, values, src->type, src->parsed, one && w && gs_writer_takes_frames(w), form > 0);
    gs_plan_input(&c->eng.plan, one && src->view != NULL);
    gs_plan_text(&c->eng.plan, form > 0);
    gs_plan_parse(&c->eng.plan, src->text_parser != NULL);
    if (verbose || c->stats) plan_notes(&c->eng.plan);
    int rc = gs_engine_run_chain(ch, &c->eng, src, w, count, stats, st);
    if (c->progress) fputs("\r\033[K", stderr);
    return rc;
}

