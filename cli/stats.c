/* cli/stats.c - the progress line and --stats (text, or one json object), from the engine's
 * gs_run_stats; over MPI ranks, also their spread. All on stderr: stdout carries the data. */
#include "cli.h"
#include "../common/pool.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void human_bytes(char *buf, size_t len, double b)
{
    const char *u[] = {"B", "kB", "MB", "GB", "TB"};
    int k = 0;
    while (b >= 1000 && k < 4) b /= 1000, k++;
    snprintf(buf, len, k ? "%.1f %s" : "%.0f %s", b, u[k]);
}

/* The progress line names the verb (a chain: its stages), so two gpustream processes in one pipe
 * can be told apart. */
void on_progress(void *ctx, uint64_t bytes, int64_t total, double elapsed)
{
    const cli *c = ctx;
    char a[32], r[32];
    human_bytes(a, sizeof a, (double)bytes);
    human_bytes(r, sizeof r, elapsed > 0 ? bytes / elapsed : 0);
    if (total > 0 && bytes > 0) {
        double eta = elapsed * ((double)total / bytes - 1);
        fprintf(stderr, "\r%s: %s  %5.1f%%  %s/s  ETA %.0f s   ", c->chain ? c->title : c->verb->name, a, 100.0 * bytes / total, r,
                eta > 0 ? eta : 0);
    } else
        fprintf(stderr, "\r%s: %s  %s/s   ", c->chain ? c->title : c->verb->name, a, r);
}

/* A rate is printed only where it means something: over at least a millisecond, and never for
 * bytes thrown away by /dev/null. Returns the rate, or -1 (printed as "-", json null). */
#define GS_MIN_RATE_S 1e-3
static double rate(double amount, double secs)
{
    return secs >= GS_MIN_RATE_S && amount > 0 ? amount / secs : -1;
}

static const char *fmt_rate(char *buf, size_t len, const char *fmt, double r)
{
    if (r < 0) snprintf(buf, len, "-");
    else snprintf(buf, len, fmt, r);
    return buf;
}

/* Whether OUT (or stdout) is /dev/null. */
static int output_is_null(const cli *c)
{
    struct stat a, n;
    if (stat("/dev/null", &n) || !S_ISCHR(n.st_mode)) return 0;
    if (c->out ? stat(c->out, &a) : fstat(STDOUT_FILENO, &a)) return 0;
    return S_ISCHR(a.st_mode) && a.st_rdev == n.st_rdev;
}

/* What both forms print, derived from the stats. stage_rate has a row for every stage the stats
 * can hold. */
typedef struct stats_view {
    double stage_rate[sizeof ((gs_run_stats *)0)->stage / sizeof ((gs_run_stats *)0)->stage[0]];
    double overlap, gelem, gbs_in;
    int out_null;
} stats_view;

static void stats_view_of(const cli *c, const gs_run_stats *s, stats_view *v)
{
    double busy = 0;
    for (int i = 0; i < s->nstages; i++) busy += s->stage[i].busy;
    v->overlap = s->wall > 0 ? busy / s->wall : 0;
    v->out_null = output_is_null(c);
    for (int i = 0; i < s->nstages; i++)
        v->stage_rate[i] = v->out_null && !strcmp(s->stage[i].name, GS_STAGE_WRITE)
                               ? -1
                               : rate(s->stage[i].bytes / 1e9, s->stage[i].busy);
    v->gelem = rate(s->elems_in / 1e9, s->wall);
    v->gbs_in = rate(s->bytes_in / 1e9, s->wall);
}

/* Seconds for JSON: null where nothing was measured (a negative time: e.g. CUDA never started). */
static const char *json_secs(char *buf, size_t len, const char *fmt, double secs)
{
    if (secs < 0) snprintf(buf, len, "null");
    else snprintf(buf, len, fmt, secs);
    return buf;
}

static void print_stats_json(const cli *c, const gs_run_stats *s, const stats_view *v)
{
    char r1[32], ci[32], gs[32], rel[32];
    fprintf(stderr,
            "{\"verb\":\"%s\",\"backend\":\"%s\",\"backend_why\":\"%s\",\"cuda_init_s\":%s,\"gpu_setup_s\":%s,\"algo\":\"%s\","
            "\"threads\":%d,\"wall_s\":%.6f,\"release_s\":%s,\"elements_in\":%llu,"
            "\"elements_out\":%llu,\"bytes_in\":%llu,\"bytes_out\":%llu,\"chunks\":%llu,\"gelem_per_s\":%s,"
            "\"overlap\":%.3f,\"peak_rss_bytes\":%llu,\"peak_device_bytes\":%llu,\"skipped\":%llu,\"stages\":[",
            c->chain ? c->title : c->verb->name, s->backend ? s->backend : "?", s->why,
            json_secs(ci, sizeof ci, "%.6f", s->cuda_init), json_secs(gs, sizeof gs, "%.6f", s->gpu_setup),
            s->algo ? s->algo : "?", gs_pool_threads(), s->wall, json_secs(rel, sizeof rel, "%.6f", s->release),
            (unsigned long long)s->elems_in, (unsigned long long)s->elems_out, (unsigned long long)s->bytes_in,
            (unsigned long long)s->bytes_out, (unsigned long long)s->chunks,
            v->gelem < 0 ? "null" : fmt_rate(r1, sizeof r1, "%.4f", v->gelem), v->overlap, (unsigned long long)s->peak_rss,
            (unsigned long long)s->peak_device_mem, (unsigned long long)s->skipped);
    for (int i = 0; i < s->nstages; i++)
        fprintf(stderr, "%s{\"name\":\"%s\",\"busy_s\":%.6f,\"bytes\":%llu,\"gb_per_s\":%s}", i ? "," : "",
                s->stage[i].name, s->stage[i].busy, (unsigned long long)s->stage[i].bytes,
                v->stage_rate[i] < 0 ? "null" : fmt_rate(r1, sizeof r1, "%.3f", v->stage_rate[i]));
    fprintf(stderr, "]");
    const gs_zcodec *zj[2] = {c->rd.zcodec, c->wr.zcodec};
    for (int d = 0; d < 2; d++)
        if (zj[d])
            fprintf(stderr, ",\"zstd_%s_gpu\":{\"busy_s\":%.6f,\"bytes_in\":%llu,\"bytes_out\":%llu,\"frames\":%llu,"
                    "\"frames_libzstd\":%llu}",
                    d ? "enc" : "dec", d ? zj[d]->enc_s : zj[d]->dec_s,
                    (unsigned long long)(d ? zj[d]->enc_in : zj[d]->dec_in),
                    (unsigned long long)(d ? zj[d]->enc_out : zj[d]->dec_out),
                    (unsigned long long)(d ? zj[d]->enc_frames : zj[d]->dec_frames),
                    (unsigned long long)(d ? zj[d]->enc_cpu_frames : zj[d]->dec_cpu_frames));
    fprintf(stderr, "}\n");
}

/* The codecs through the host, in text: where they did something (the GPU backend may have done it all). */
static void print_codec_rows(const cli *c)
{
    char bi[32], bo[32];
    const gs_zcodec *zd = c->rd.zcodec, *ze = c->wr.zcodec;
    if (zd && !(zd->dec_frames || zd->dec_cpu_frames)) zd = NULL;
    if (ze && !(ze->enc_frames || ze->enc_cpu_frames)) ze = NULL;
    if (zd) {
        human_bytes(bi, sizeof bi, (double)zd->dec_in);
        human_bytes(bo, sizeof bo, (double)zd->dec_out);
        fprintf(stderr, "  %-12s busy %8.3f s  %8.2f GB/s  %s -> %s, %llu frames (%llu more by libzstd)\n",
                "zstd dec gpu", zd->dec_s, zd->dec_s > 0 ? zd->dec_out / zd->dec_s / 1e9 : 0, bi, bo,
                (unsigned long long)zd->dec_frames, (unsigned long long)zd->dec_cpu_frames);
    }
    if (ze) {
        human_bytes(bi, sizeof bi, (double)ze->enc_in);
        human_bytes(bo, sizeof bo, (double)ze->enc_out);
        fprintf(stderr, "  %-12s busy %8.3f s  %8.2f GB/s  %s -> %s, %llu frames (%llu more by libzstd), ratio %.3f\n",
                "zstd enc gpu", ze->enc_s, ze->enc_s > 0 ? ze->enc_in / ze->enc_s / 1e9 : 0, bi, bo,
                (unsigned long long)ze->enc_frames, (unsigned long long)ze->enc_cpu_frames,
                ze->enc_out ? (double)ze->enc_in / ze->enc_out : 0);
    }
}

static void print_stats_text(const cli *c, const gs_run_stats *s, const stats_view *v)
{
    char r1[32], r2[32], r3[32], bi[32], bo[32], rss[32], dev[32];
    human_bytes(bi, sizeof bi, (double)s->bytes_in);
    human_bytes(bo, sizeof bo, (double)s->bytes_out);
    human_bytes(rss, sizeof rss, (double)s->peak_rss);
    human_bytes(dev, sizeof dev, (double)s->peak_device_mem);
    fprintf(stderr, "gpustream %s: backend %s%s%s%s, %d CPU thread%s, algo %s\n", c->chain ? c->title : c->verb->name,
            s->backend ? s->backend : "?", s->why[0] ? " (" : "", s->why, s->why[0] ? ")" : "", gs_pool_threads(),
            gs_pool_threads() == 1 ? "" : "s", s->algo ? s->algo : "?");
    if (s->cuda_init >= 0) fprintf(stderr, "  cuda init  %.3f s on its own thread, beside reading\n", s->cuda_init);
    if (s->gpu_setup >= 0) fprintf(stderr, "  gpu setup  %.3f s once CUDA was up (device buffers, streams)\n", s->gpu_setup);
    fprintf(stderr, "  elements   %llu in, %llu out, %llu chunks\n", (unsigned long long)s->elems_in,
            (unsigned long long)s->elems_out, (unsigned long long)s->chunks);
    fprintf(stderr, "  wall       %.3f s  %s Gelem/s  in %s (%s GB/s)  out %s%s\n", s->wall,
            fmt_rate(r2, sizeof r2, "%.3f", v->gelem), bi, fmt_rate(r3, sizeof r3, "%.2f", v->gbs_in), bo,
            v->out_null ? " (/dev/null)" : "");
    for (int i = 0; i < s->nstages; i++)
        fprintf(stderr, "  %-12s busy %8.3f s  %8s GB/s\n", s->stage[i].name, s->stage[i].busy,
                fmt_rate(r1, sizeof r1, "%.2f", v->stage_rate[i]));
    if (s->release >= 0.0005)
        fprintf(stderr, "  release    %.3f s after the wall time (staging and device memory)\n", s->release);
    print_codec_rows(c);
    fprintf(stderr, "  overlap    %.2f (stage busy time / wall time)\n", v->overlap);
    fprintf(stderr, "  memory     peak RSS %s, device %s\n", rss, dev);
    if (s->skipped) fprintf(stderr, "  skipped    %llu rows (--na skip, --skip-bad)\n", (unsigned long long)s->skipped);
}

void print_stats(const cli *c, const gs_run_stats *s)
{
    stats_view v;
    stats_view_of(c, s, &v);
    if (c->stats_json) print_stats_json(c, s, &v);
    else print_stats_text(c, s, &v);
}

void print_rank_stats(const cli *c, const gs_run_stats *s, const gs_mpi_report *rep, double finalize_s)
{
    if (c->stats_json) {
        char st[32];
        fprintf(stderr,
                "{\"ranks\":%d,\"wall_min_s\":%.6f,\"wall_max_s\":%.6f,\"mpi_init_s\":%.6f,\"mpi_finalize_s\":%.6f,"
                "\"start_to_init_s\":%s}\n",
                rep->ranks, rep->wall_min, rep->wall_max, rep->mpi_init, finalize_s,
                json_secs(st, sizeof st, "%.2f", rep->start_to_init));
        return;
    }
    fprintf(stderr, "  ranks      %d: wall %.3f to %.3f s; stage times above are summed over ranks, per rank:\n",
            rep->ranks, rep->wall_min, rep->wall_max);
    const int nbusy = (int)(sizeof rep->busy_min / sizeof rep->busy_min[0]);
    for (int i = 0; i < s->nstages && i < nbusy; i++)
        fprintf(stderr, "  %-12s busy %8.3f to %.3f s\n", s->stage[i].name, rep->busy_min[i], rep->busy_max[i]);
    fprintf(stderr, "  mpi        MPI_Init %.3f s (the longest rank's), MPI_Finalize %.3f s (rank 0's); "
                    "rank 0 started %.2f s before MPI_Init\n",
            rep->mpi_init, finalize_s, rep->start_to_init);
}

/* The engine counted the output before the writer's last flush; the writer's final count (taken
 * at close) is the output's size, and the write stage's bytes with it. */
void set_write_stage(gs_run_stats *s)
{
    for (int i = 0; i < s->nstages; i++)
        if (!strcmp(s->stage[i].name, GS_STAGE_WRITE)) s->stage[i].bytes = s->bytes_out;
}
