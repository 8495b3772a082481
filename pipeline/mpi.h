/* mpi.h - one job run as MPI ranks over contiguous shards of one file (pipeline/mpi.c;
 * the ranks from the environment: pipeline/ranks.c).
 *
 * Rank r of K reads its shard of the input (raw, npy, or zstd by frames) through the usual engine
 * and writes its part of one output file with MPI-IO, so the result is the one a single process
 * gives. The ranks are known from the launcher's environment before any MPI call, so a process
 * started without mpirun (or as one rank) runs as it always does and never initialises MPI. */
#ifndef GS_MPI_H
#define GS_MPI_H

#include "pipeline.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_ranks {
    int rank, size, local_rank; /* size 1: not started as several ranks */
    int local_size;             /* ranks on this host (1 where the launcher does not say) */
} gs_ranks;

/* From the environment mpirun/mpiexec give each process (Open MPI, MPICH/Hydra). */
gs_ranks gs_ranks_detect(void);
/* The default --threads of a rank: the host's cores shared by the ranks on it (at least 1), or 0
 * (all cores) where it is alone on its host. */
int gs_ranks_threads(const gs_ranks *r);
/* 1 if this build has MPI; a line for `info` (the library, or where MPI is, or why not). */
int gs_mpi_built(void);
/* MPI lives in a second binary, gpustream-mpi (same sources, pipeline/mpi.c with MPI), so that
 * gpustream never needs libmpi. In a build without MPI: 1 with its path where gpustream-mpi is
 * beside this executable; else (or in gpustream-mpi itself) 0. */
#define GS_MPI_BINARY "gpustream-mpi"
int gs_mpi_binary(char *path, size_t len);
void gs_mpi_describe(char *buf, size_t len);

typedef struct gs_mpi_job {
    const char *in, *out;
    gs_read_opts rd;
    gs_write_opts wr;   /* format, type, ncols, colnames, zstd ... resolved; rows are set here */
    gs_job job;         /* op and types resolved for the input's type */
    gs_engine_opts eng;
    int device_given;   /* else rank r uses GPU (local rank mod devices) */
    const char *keep_names; /* --keep: the results' names for rank 0's header line (wr.colnames is NULL) */
} gs_mpi_job;

/* What rank 0 reports for the whole run. */
typedef struct gs_mpi_report {
    int ranks;
    uint64_t n;            /* input elements */
    uint64_t count;        /* compact: kept elements; else output rows */
    double wall_min, wall_max;
    double busy_min[8], busy_max[8]; /* per stage of gs_run_stats, over ranks */
    double start_to_init;  /* rank 0: seconds from its exec to MPI_Init (10 ms steps; -1: unknown) */
    double mpi_init;       /* MPI_Init, the longest rank's */
    char note[256];        /* a note to show once (e.g. one zstd frame: rank 0 reads it alone) */
} gs_mpi_report;

/* Run m as this process's rank (initialising MPI). Every rank returns the same code and status
 * (the first failing rank's message). On rank 0, stats holds the sums over ranks (wall: the
 * longest) and rep the rest; *is_root is 1 on rank 0, which alone should print. */
int gs_mpi_run(gs_mpi_job *m, gs_run_stats *stats, gs_mpi_report *rep, int *is_root, gs_status *st);
/* MPI_Finalize (if MPI was initialised); returns the seconds it took. After a failed run, call it
 * once rank 0 has printed the error: it waits for every rank, so no rank ends (and has mpirun stop
 * the others) before rank 0's message is out. After a successful one every rank ends with status
 * 0, so rank 0 may print after it. */
double gs_mpi_finish(void);

#ifdef __cplusplus
}
#endif
#endif
