/* cli/verbs.c - the verbs that run the engine once (scan, compact, minmax and convert, alone or
 * chained; gen), and info. Over MPI ranks, compute hands its job to cli/ranks.c. */
#include "cli.h"
#include "../common/pool.h"

#include <string.h>

/* Resolve the output and open it. */
static int open_output(cli *c, gs_format in_fmt, gs_type out_type, int cols, int64_t rows, const char *colnames,
                       gs_writer **w, gs_status *st)
{
    resolve_output(c, in_fmt, out_type, cols, rows, colnames);
    return gs_writer_open(w, c->out, &c->wr, st);
}

/* A rolling job of min and max alone, in that order, or of one of them, with minmax's windows
 * (NaN not skipped, no --min-periods above 1, its own types and variants): minmax's job, whose
 * output is the same bytes (docs/USAGE.md) from minmax's kernels. */
static void rolling_as_minmax(const cli_stage *s, gs_job *j)
{
    const gs_minmax_params *p = &j->minmax;
    if (p->skip_nan || p->min_periods > 1 || s->out_type_given || j->algo) return;
    if (p->nagg == 2 && p->agg[0] == GS_AGG_MIN && p->agg[1] == GS_AGG_MAX) j->minmax.only = GS_MM_BOTH;
    else if (p->nagg == 1 && p->agg[0] == GS_AGG_MIN) j->minmax.only = GS_MM_MIN;
    else if (p->nagg == 1 && p->agg[0] == GS_AGG_MAX) j->minmax.only = GS_MM_MAX;
    else return;
    j->minmax.nagg = 0;
    j->as_rolling = 1;
}

/* Fill in stage k's parameters for its input type t. Returns 0 or an exit status. */
int stage_setup(cli *c, int k, gs_type t, gs_job *j)
{
    const cli_stage *s = &c->stages[k];
    gs_status st = {0};
    *j = s->job;
    switch (s->verb->bit) {
    case V_SCAN:
        j->op = GS_OP_SCAN;
        j->scan.type = t;
        j->scan.out_type = s->out_type_given ? j->out_type : t;
        j->keep = c->rd.keep != NULL && k == c->nstages - 1;
        break;
    case V_COMPACT:
        j->op = GS_OP_COMPACT;
        j->compact.type = t;
        j->keep = c->rd.keep != NULL && k == c->nstages - 1;
        if (j->rows || j->keep) j->compact.indices = 1; /* the positions, which the writer turns into rows */
        if (gs_pred_parse(s->pred, t, &j->compact, &st)) {
            if (c->chain) snprintf(err_stage, sizeof err_stage, "stage %d (compact): ", k + 1);
            int rc = usage_error("compact ", "%s", st.msg);
            err_stage[0] = 0;
            return rc;
        }
        break;
    case V_ROLLING:
        j->op = GS_OP_MINMAX;
        j->minmax.type = t;
        j->keep = c->rd.keep != NULL && k == c->nstages - 1;
        j->roll_out_type_given = s->out_type_given;
        if (s->out_type_given) j->minmax.out_type = j->out_type;
        /* Whole windows hold W values: there --min-periods only counts where NaN are skipped. */
        if (!j->partial && !(j->minmax.skip_nan && gs_type_is_float(t))) j->minmax.min_periods = 1;
        rolling_as_minmax(s, j);
        j->minmax.out_type = gs_job_out_type(j, t);
        break;
    default:
        j->op = GS_OP_MINMAX;
        j->minmax.type = t;
        j->keep = c->rd.keep != NULL && k == c->nstages - 1;
        break;
    }
    return 0;
}

/* A rolling stage's column types for its input type t (csv and text print each in its own). */
static void stage_coltypes(const gs_job *j, gs_type t, gs_type *ct)
{
    gs_minmax_params p = j->minmax;
    p.type = t;
    for (int k = 0; k < p.nagg; k++)
        ct[k] = j->roll_out_type_given ? p.out_type : gs_agg_type((gs_agg)p.agg[k], t, gs_roll_missing(&p));
}

/* The CSV header of a stage's output, from its input's: each statistic of a window after the
 * input's name ("price_mean,price_std", "price_min,price_max"), or alone ("min,max") where the input
 * has none; minmax names its columns as rolling --agg min,max does. */
void stage_colname(const gs_job *j, char *name, size_t len)
{
    if (j->op == GS_OP_MINMAX) {
        static const char *const pair[] = {"min", "max"};
        const int both = !j->minmax.nagg && j->minmax.only == GS_MM_BOTH;
        const int n = j->minmax.nagg ? j->minmax.nagg : both ? 2 : 1;
        char in[128];
        size_t at = 0;
        snprintf(in, sizeof in, "%.*s", (int)sizeof in - 1, name);
        for (int k = 0; k < n && at < len; k++) {
            const char *stat = j->minmax.nagg ? gs_agg_name((gs_agg)j->minmax.agg[k])
                               : both          ? pair[k]
                                               : j->minmax.only == GS_MM_MIN ? "min" : "max";
            at += (size_t)snprintf(name + at, len - at, "%s%s%s%s", k ? "," : "", in, in[0] ? "_" : "", stat);
        }
    } else if (j->op == GS_OP_COMPACT && j->compact.indices && !j->keep)
        snprintf(name, len, "index");
}

/* Before the input is opened: what MPI ranks cannot run, and each compact stage's predicate, its
 * shape and numbers (in the type the stage gets from -t's, else from f64, the widest; its range
 * for the input's type once it is open). minmax's window was checked while parsing. */
static int compute_precheck(cli *c, const gs_ranks *ranks)
{
    char verb[32];
    snprintf(verb, sizeof verb, "%s ", c->verb->name);
    if (check_output_name(c, verb)) return EXIT_USAGE;
    int crc = columns_precheck(c, ranks->size);
    if (crc) return crc;
    if (ranks->size > 1 && (!c->in || (!c->out && !c->stages[c->nstages - 1].job.count_only))) {
        say_error("with %d MPI ranks, IN and OUT must be files (ranks read shards of IN and write parts of OUT)",
                  ranks->size);
        return EXIT_USAGE;
    }
    if (ranks->size > 1 && c->eng.ndevices) {
        say_error("with MPI ranks, --device takes one GPU a rank (without it, rank r takes GPU r mod the host's count)");
        return EXIT_USAGE;
    }
    if (ranks->size > 1 && c->chain) {
        say_error("chains (then) do not run over MPI ranks; run each verb over the ranks in turn");
        return EXIT_USAGE;
    }
    for (int k = 0; k < c->nstages; k++) {
        const gs_job *j = &c->stages[k].job;
        const char *why = !j->rows ? NULL
                          : j->compact.indices ? "--rows writes rows, --indices positions: choose one"
                          : j->count_only ? "--count prints a count, --rows writes rows: choose one"
                          : k + 1 < c->nstages ? "--rows writes the input's rows: make it the last stage"
                          : c->to_given && c->to != GS_FMT_CSV && c->to != GS_FMT_TEXT
                              ? "--rows writes the input's rows as text: --to csv or --to text"
                              : NULL;
        for (int e = 0; j->rows && !why && e < k; e++)
            if (c->stages[e].verb->bit == V_COMPACT) why = "--rows after a compact stage: its positions are no input rows";
        if (why) {
            if (c->chain) snprintf(err_stage, sizeof err_stage, "stage %d (compact): ", k + 1);
            int rc = usage_error("compact ", "%s", why);
            err_stage[0] = 0;
            return rc;
        }
    }
    const gs_job *last = &c->stages[c->nstages ? c->nstages - 1 : 0].job;
    int compacts = 0; /* compact stages: a chain with one keeps no input rows beside its results */
    for (int k = 0; k < c->nstages; k++) compacts += c->stages[k].verb->bit == V_COMPACT;
    const char *keep_why = !c->rd.keep ? NULL
                           : c->nstages > 1 && compacts
                               ? "--keep in a chain takes scan, minmax and rolling stages (a compact stage's results "
                                 "are no longer one a row); run compact --keep alone"
                           : last->compact.indices || last->count_only || last->rows
                               ? "--keep writes columns beside the values: not with --indices, --count or --rows"
                           : c->to_given && c->to != GS_FMT_CSV ? "--keep writes CSV rows: --to csv"
                                                                : NULL;
    if (keep_why) return usage_error(verb, "%s", keep_why);
    const int drops = c->rd.skip_bad || c->rd.na == GS_NA_SKIP;
    for (int k = 0; drops && k < c->nstages; k++) {
        gs_job j = c->stages[k].job;
        unsigned cols;
        j.op = GS_OP_MINMAX;
        const int arg = c->stages[k].verb->bit == V_ROLLING && gs_job_arg_cols(&j, &cols);
        if (arg && k + 1 < c->nstages) {
            say_error("stage %d (rolling): argmin/argmax before another stage, with %s: positions are input rows only "
                      "where they are written; make rolling the last stage", k + 1, c->rd.skip_bad ? "--skip-bad" : "--na skip");
            return EXIT_USAGE;
        }
    }
    for (int k = 0; drops && k + 1 < c->nstages; k++)
        if (c->stages[k].verb->bit == V_COMPACT && c->stages[k].job.compact.indices) {
            say_error("stage %d (compact): --indices before another stage, with %s: positions are input rows only "
                      "where they are written; make compact --indices the last stage",
                      k + 1, c->rd.skip_bad ? "--skip-bad" : "--na skip");
            return EXIT_USAGE;
        }
    gs_type pre_t = c->rd.type_given ? c->rd.type : GS_F64;
    for (int k = 0; k < c->nstages; k++) {
        gs_job pre;
        int rc = stage_setup(c, k, pre_t, &pre);
        if (rc) return rc;
        pre_t = gs_job_out_type(&pre, pre_t);
    }
    return 0;
}

/* The stages, each for the type the one before writes (convert: one stage of its own); *out_type:
 * what the last one writes. Returns 0 or an exit status. */
static int build_chain(cli *c, gs_type in_type, gs_chain *ch, gs_type *out_type)
{
    memset(ch, 0, sizeof *ch);
    ch->n = c->nstages ? c->nstages : 1;
    gs_type t = in_type;
    if (!c->nstages) {
        ch->stage[0] = c->job;
        ch->stage[0].op = GS_OP_NONE;
        ch->stage[0].out_type = c->out_type_given ? c->job.out_type : in_type;
        t = ch->stage[0].out_type;
    }
    for (int k = 0; k < c->nstages; k++) {
        int rc = stage_setup(c, k, t, &ch->stage[k]);
        if (rc) return rc;
        t = gs_job_out_type(&ch->stage[k], t);
    }
    *out_type = t;
    return 0;
}

/* The CSV header of the output: the input's, followed through the stages; NULL where it has none. */
static const char *chain_colnames(gs_reader *r, const gs_chain *ch, char *buf, size_t len)
{
    const char *in_col = gs_reader_colname(r);
    const gs_job *last = &ch->stage[ch->n - 1];
    if (!in_col && last->op != GS_OP_MINMAX) return NULL;
    /* a window's statistics (minmax, rolling) name their columns after the input's, or alone */
    snprintf(buf, len, "%s", in_col ? in_col : "");
    for (int k = 0; k < ch->n; k++) stage_colname(&ch->stage[k], buf, len);
    return buf;
}

void warn_skipped(const cli *c, uint64_t n)
{
    if (n)
        say_warning("skipped %llu row%s (%s)", (unsigned long long)n, n == 1 ? "" : "s",
                    c->rd.na == GS_NA_SKIP && c->rd.skip_bad ? "--na skip, --skip-bad"
                    : c->rd.na == GS_NA_SKIP               ? "missing values, --na skip"
                                                           : "bad fields, --skip-bad");
}

/* After a run: the windows no output filled, the count (to OUT where one is named), --stats. */
static int compute_report(const cli *c, const gs_chain *ch, const gs_run_stats *stats, uint64_t count,
                          const uint64_t *counts, int k)
{
    for (int k = 0; k < ch->n; k++) {
        const gs_job *j = &ch->stage[k];
        uint64_t n_in = ch->n > 1 ? stats->chain_in[k] : stats->elems_in;
        if (j->op != GS_OP_MINMAX || j->partial || n_in >= j->minmax.window) continue;
        warn_short_window(ch->n > 1 ? k + 1 : 0, j->minmax.window, n_in);
    }
    warn_skipped(c, stats->skipped);
    if (ch->stage[ch->n - 1].count_only && c->out) {
        gs_status st = {0};
        char line[24 * GS_WRITE_COLS_MAX];
        if (k > 1) columns_count_line(line, sizeof line, counts, k);
        else snprintf(line, sizeof line, "%llu\n", (unsigned long long)count);
        if (gs_write_text_out(c->out, c->force, line, &st)) return finish_status(&st);
    } else if (ch->stage[ch->n - 1].count_only) {
        char line[24 * GS_WRITE_COLS_MAX];
        if (k > 1) columns_count_line(line, sizeof line, counts, k);
        else snprintf(line, sizeof line, "%llu\n", (unsigned long long)count);
        fputs(line, stdout);
    }
    if (c->stats) print_stats(c, stats);
    return EXIT_OK;
}

static int put_writer(void *ctx, const char *p, size_t len, gs_status *st)
{
    return gs_writer_write_bytes((gs_writer *)ctx, p, len, st);
}

/* The chain in this process, from r (closed here) to OUT. */
static int compute_one(cli *c, gs_reader *r, const gs_chain *ch, gs_type out_type, int cols, const char *names)
{
    gs_status st = {0};
    gs_writer *w = NULL;
    gs_run_stats stats;
    memset(&stats, 0, sizeof stats);
    uint64_t count = 0, counts[GS_WRITE_COLS_MAX] = {0};
    gs_source src = gs_source_from_reader(r);
    c->eng.col_counts = counts;
    const int64_t rows = gs_chain_out_rows(ch, gs_reader_count(r));
    int rc = 0;
    const gs_job *last = &ch->stage[ch->n - 1];
    gs_rowtext *text = last->rows || last->keep ? gs_reader_rowtext(r) : NULL;
    const char *result = names;
    if (text) names = NULL; /* rows or columns as in the input: the header first, then text rows */
    if (!last->count_only) rc = open_output(c, gs_reader_format(r), out_type, cols, rows, names, &w, &st);
    size_t hlen = 0;
    const char *head = text && last->rows ? gs_rowtext_header(text, &hlen) : NULL;
    if (!rc && head) rc = gs_writer_write_bytes(w, head, hlen, &st);
    if (!rc && text && last->keep) {
        gs_rowtext_keep_cols(text, cols, last->op == GS_OP_MINMAX && last->minmax.nagg ? c->coltypes : NULL);
        rc = gs_rowtext_keep_header(text, result, put_writer, w, &st);
    }
    if (rc && w) {
        gs_writer_abort(w);
        gs_reader_close(r);
        return finish_status(&st);
    }
    if (!rc) {
        rc = run_engine(c, ch, &src, w, &stats, &count, &st);
        stats.skipped = gs_reader_skipped(r);
        if (rc) gs_writer_abort(w);
        else if (w) rc = gs_writer_finish(w, &stats.bytes_out, &st);
    }
    gs_reader_close(r);
    if (rc) return finish_status(&st);
    set_write_stage(&stats);
    return compute_report(c, ch, &stats, count, counts, src.cols);
}

/* compact --rows and --keep write text rows of the input: CSV (or text for --rows) input, and the
 * output in the input's format (--keep: CSV) unless --to says. 0 or an exit status (r closed). */
static int rows_output(cli *c, gs_reader *r, const gs_job *last)
{
    if (!last->rows && !last->keep) return 0;
    if (!gs_reader_rowtext(r) || (last->keep && gs_reader_format(r) != GS_FMT_CSV)) {
        say_error("%s, which needs CSV%s input (this input is %s)",
                  last->rows ? "compact --rows writes the input's rows" : "--keep writes input columns",
                  last->rows ? " or text" : "", gs_format_name(gs_reader_format(r)));
        gs_reader_close(r);
        return EXIT_USAGE;
    }
    if (!c->to_given) c->to = last->keep ? GS_FMT_CSV : gs_reader_format(r), c->to_given = 1;
    return 0;
}

int cmd_compute(cli *c)
{
    gs_status st = {0};
    gs_reader *r = NULL;
    int rc;
    gs_ranks ranks = gs_ranks_detect();
    if ((rc = compute_precheck(c, &ranks))) return rc;
    const cli_stage *last = &c->stages[c->nstages ? c->nstages - 1 : 0];
    c->rd.keep_rows = last->job.rows || c->rd.keep;
    c->rd.keep_value = c->rd.keep && last->verb->bit == V_COMPACT; /* compact writes the value's field as read */
    if ((rc = setup_codecs(c, 1, 1, ranks.size == 1 ? -1 : 0, &st))) return finish_status(&st);
    if ((rc = gs_reader_open(&r, c->in, &c->rd, &st))) return finish_status(&st);
    gs_type in_type = gs_reader_type(r), out_type;
    gs_chain ch;
    if ((rc = build_chain(c, in_type, &ch, &out_type))) {
        gs_reader_close(r);
        return rc;
    }
    if (ch.n > 1 && gs_chain_check(&ch, in_type, &st)) { /* before any output exists */
        gs_reader_close(r);
        return finish_status(&st);
    }
    char colnames[2048];
    const int ncol = gs_reader_cols(r); /* several columns: each gives gs_chain_out_cols results a row */
    if ((rc = columns_opened(c, ncol, ranks.size))) {
        gs_reader_close(r);
        return rc;
    }
    const char *names = ncol > 1 ? columns_header(r, &ch, colnames, sizeof colnames)
                                 : chain_colnames(r, &ch, colnames, sizeof colnames);
    const int cols = gs_chain_out_cols(&ch) * ncol;
    gs_type t = in_type;
    for (int k = 0; k + 1 < ch.n; k++) t = gs_job_out_type(&ch.stage[k], t);
    if (ch.stage[ch.n - 1].op == GS_OP_MINMAX && ch.stage[ch.n - 1].minmax.nagg) {
        stage_coltypes(&ch.stage[ch.n - 1], t, c->coltypes);
        columns_coltypes(c->coltypes, gs_chain_out_cols(&ch), ncol);
        c->wr.coltypes = c->coltypes;
    }
    if ((rc = rows_output(c, r, &ch.stage[ch.n - 1]))) return rc;
    if (ranks.size > 1) {
        gs_format in_fmt = gs_reader_format(r);
        gs_reader_close(r);
        return cmd_compute_ranks(c, &ch.stage[ch.n - 1], in_fmt, out_type, cols, names);
    }
    return compute_one(c, r, &ch, out_type, cols, names);
}

int cmd_gen(cli *c)
{
    gs_status st = {0};
    gs_source src;
    gs_writer *w = NULL;
    gs_run_stats stats;
    memset(&stats, 0, sizeof stats);
    if (!c->n_given) return usage_error("gen ", "gen needs -n N");
    if (check_output_name(c, "gen ")) return EXIT_USAGE;
    if (!c->rd.type_given) c->gen.type = GS_I32;
    const uint64_t gen_bytes = c->gen.n * gs_type_size(c->rd.type_given ? c->gen.type : GS_I32);
    if (setup_codecs(c, 0, 1, gen_bytes > INT64_MAX ? INT64_MAX : (int64_t)gen_bytes, &st)) return finish_status(&st);
    if (gs_gen_source(&src, &c->gen, &st)) return finish_status(&st);
    c->job.op = GS_OP_NONE;
    c->job.out_type = c->gen.type;
    c->eng.backend = GS_BACKEND_CPU; /* generation is host work; no compute */
    gs_chain one = {1, {c->job}};
    int rc = open_output(c, GS_FMT_RAW, c->gen.type, 1, (int64_t)c->gen.n, "value", &w, &st);
    if (!rc) rc = run_engine(c, &one, &src, w, &stats, NULL, &st);
    if (rc) {
        gs_writer_abort(w);
        gs_gen_source_free(&src);
        return finish_status(&st);
    }
    rc = gs_writer_finish(w, &stats.bytes_out, &st);
    gs_gen_source_free(&src);
    if (rc) return finish_status(&st);
    set_write_stage(&stats);
    stats.algo = "gen";
    if (c->stats) print_stats(c, &stats);
    return EXIT_OK;
}

int cmd_info(cli *c)
{
    char devs[4096];
    (void)c;
    int ndev = gs_gpu_describe(devs, sizeof devs);
    print_version();
#ifdef GS_HAVE_CUDA
    printf("build      CUDA compiled in (static cudart)\n");
#else
    printf("build      CPU only (built without CUDA: no nvcc at build time, or make CUDA=0)\n");
#endif
    printf("zstd       %s\n", gs_zstd_version());
    char nvc[1024];
    gs_nvcomp_describe(nvc, sizeof nvc);
    printf("nvcomp     %s\n", nvc);
    char mpi[256];
    gs_mpi_describe(mpi, sizeof mpi);
    printf("mpi        %s\n", mpi);
    printf("cpu        %d cores\n", gs_ncores());
    if (ndev > 0) printf("devices    %d\n%s", ndev, devs);
    else {
        char why[256] = "";
        gs_gpu_available(0, why, sizeof why);
        printf("devices    none (%s): the CPU backend runs every verb\n", why[0] ? why : "no GPU");
    }
    printf("tuning     %s\n", GS_HAVE_TUNING ? "block sizes and tune shapes built (make TUNING=1)"
                                            : "tuned launches only (make TUNING=1 builds the bench --block sizes)");
    /* c holds the command line's defaults (info takes none of these options) */
    printf("defaults   chunk " GS_CHUNK_DEFAULT_TEXT " and buffers %d (%zuM and %d where the GPU backend decodes or "
           "encodes zstd frames; %zuM where libzstd encodes a CPU run's output), host-mem %s, "
           "zstd frames %zuM level %d (GPU codec: %zuK frames), codec auto = gpu decode from %llu MiB of input (a verb "
           "on the GPU backend, frames up to %zuK), gpu encode from %llu MiB of input (else cpu)\n",
           GS_BUFFERS_DEFAULT, GS_ZDEC_CHUNK_DEFAULT >> 20, GS_ZGPU_BUFFERS, GS_CHUNK_ZENC_DEFAULT >> 20,
           gs_host_mem_name(c->eng.host_mem), (size_t)c->wr.frame_size >> 20, c->wr.level, GS_GPU_ZSTD_FRAME >> 10,
           GS_CODEC_AUTO_GPU_DEC_MIN_BYTES >> 20, GS_GPU_ZDEC_FRAME_MAX >> 10, GS_CODEC_AUTO_GPU_ENC_MIN_BYTES >> 20);
    printf("\nvariants (--algo; * = default for its backend)\n");
    size_t nv;
    const gs_variant *v = gs_variants(&nv);
    for (size_t i = 0; i < nv; i++) {
        char types[64] = "";
        for (int t = 0; t < GS_NTYPES; t++)
            if (v[i].types & GS_TYPE_BIT(t)) {
                strcat(types, gs_type_name((gs_type)t));
                strcat(types, " ");
            }
        printf("  %-8s %-14s %s %-4s %-24s %s\n", gs_op_name(v[i].op), v[i].name, (v[i].flags & GS_V_DEFAULT) ? "*" : " ",
               v[i].where == GS_GPU ? "gpu" : "cpu", types, v[i].desc ? v[i].desc : "");
        if (v[i].where == GS_GPU) {
            char sizes[64];
            if (v[i].blocks)
                printf("  %-8s %-14s   threads per block: %d; bench --block takes %s\n", "", "", v[i].block_default,
                       gs_blocks_str(v[i].blocks, sizes, sizeof sizes));
            else if (v[i].block_default)
                printf("  %-8s %-14s   threads per block: %d (other sizes: make TUNING=1)\n", "", "",
                       v[i].block_default);
            else
                printf("  %-8s %-14s   threads per block: its own launch shapes (bench --block does not apply)\n", "",
                       "");
        }
    }
    return EXIT_OK;
}
