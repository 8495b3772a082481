/* ranks.c - the MPI ranks this process was started as, from its launcher's environment (see
 * mpi.h). Built with or without MPI: no MPI call is made here. */
#include "mpi.h"
#include "../common/pool.h"

#include <stdlib.h>
#include <string.h>

/* A launcher (mpirun, mpiexec, srun) leaves the address by which ranks reach it: PMIx's server
 * URI or namespace (Open MPI 4 and 5, MPICH with PMIx, Slurm), Open MPI's HNP, or the simple PMI
 * wire (MPICH's Hydra, Slurm's pmi2). Rank variables without it were set by hand, not by a
 * launcher: the process runs alone. */
static int gs_launched(void)
{
    extern char **environ;
    static const char *const names[] = {"PMIX_NAMESPACE", "OMPI_MCA_orte_hnp_uri", "PMI_FD", "PMI_PORT"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (getenv(names[i])) return 1;
    for (char **e = environ; e && *e; e++)
        if (!strncmp(*e, "PMIX_SERVER_URI", 15)) return 1;
    return 0;
}

gs_ranks gs_ranks_detect(void)
{
    static const struct {
        const char *size, *rank, *local, *local_size;
    } env[] = {
        {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"}, /* Open MPI */
        {"PMI_SIZE", "PMI_RANK", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"}, /* MPICH, Hydra */
    };
    gs_ranks r = {0, 1, 0, 1};
    for (size_t i = 0; gs_launched() && i < sizeof env / sizeof *env; i++) {
        const char *s = getenv(env[i].size), *k = getenv(env[i].rank), *l = getenv(env[i].local);
        const char *ls = getenv(env[i].local_size);
        if (!s || !k) continue;
        r.size = atoi(s);
        r.rank = atoi(k);
        r.local_rank = l ? atoi(l) : r.rank;
        r.local_size = ls ? atoi(ls) : 1; /* unknown: as if alone on the host */
        if (r.local_size < 1 || r.local_size > r.size) r.local_size = 1;
        if (r.size < 1 || r.rank < 0 || r.rank >= r.size) r = (gs_ranks){0, 1, 0, 1};
        break;
    }
    return r;
}

int gs_ranks_threads(const gs_ranks *r)
{
    if (r->local_size <= 1) return 0;
    int n = gs_ncores() / r->local_size;
    return n > 1 ? n : 1;
}
