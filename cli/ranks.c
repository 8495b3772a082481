/* cli/ranks.c - a verb over MPI ranks (pipeline/mpi.c): each rank runs the job on a shard of IN
 * and writes its part of OUT; rank 0 alone says the result, the warnings and --stats. gpustream
 * has no MPI: started as several ranks, it becomes gpustream-mpi, its MPI build, found beside it. */
#include "cli.h"

#include <string.h>
#include <unistd.h>

void exec_mpi_binary(char **argv)
{
    char path[4096];
    if (!gs_mpi_binary(path, sizeof path)) return; /* the run refuses, naming gpustream-mpi */
    argv[0] = path;
    execv(path, argv);
    /* it could not start: the run goes on here and refuses like a build without it */
}

int cmd_compute_ranks(cli *c, const gs_job *job, gs_format in_fmt, gs_type out_type, int cols, const char *names)
{
    gs_status st = {0};
    gs_run_stats stats;
    gs_mpi_report rep;
    memset(&stats, 0, sizeof stats);
    int root = 0;
    gs_mpi_job m = {c->in, c->out, c->rd, {0}, *job, c->eng, c->device_given, NULL};
    if (!job->count_only) { /* --rows and --keep: rank 0 writes the header line of the input's rows */
        resolve_output(c, in_fmt, out_type, cols, -1, job->rows || job->keep ? NULL : names);
        m.wr = c->wr;
        m.keep_names = job->keep ? names : NULL;
    }
    m.eng.progress = NULL;
    if (verbose || c->stats) m.eng.note = on_note; /* heard from rank 0 alone (the others are mute) */
    ranks_ran = gs_mpi_built(); /* else nothing waits for rank 0 to print: see main */
    int rc = gs_mpi_run(&m, &stats, &rep, &root, &st);
    if (rc) { /* said by rank 0 alone (the others are mute) before any rank may end */
        int code = finish_status(&st);
        fflush(stderr);
        gs_mpi_finish();
        return code;
    }
    /* Every rank succeeded: rank 0 says the result before MPI_Finalize, its --stats after it (they
     * include MPI_Finalize's time; every rank ends with status 0, so none is stopped early). */
    if (root) {
        if (rep.note[0]) say_note("%s", rep.note);
        if (job->op == GS_OP_MINMAX && !job->partial && rep.n < job->minmax.window)
            warn_short_window(0, job->minmax.window, rep.n);
        warn_skipped(c, stats.skipped);
        if (job->count_only) printf("%llu\n", (unsigned long long)rep.count);
        fflush(stdout);
    }
    double fin = gs_mpi_finish();
    if (!root) return EXIT_OK;
    if (c->stats) {
        print_stats(c, &stats);
        print_rank_stats(c, &stats, &rep, fin);
    }
    return check_stdout();
}
