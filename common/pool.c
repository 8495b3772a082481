/* pool.c - a persistent thread pool. A job is nparts calls of one function; jobs from several
 * submitting threads share one queue. Workers (and the submitter itself) claim parts with an
 * atomic counter, so a job finishes even if every worker is busy elsewhere. */
#include "pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct job {
    gs_part_fn fn;
    void *ctx;
    size_t nparts;
    atomic_size_t next; /* next part to claim */
    atomic_size_t done; /* parts finished */
    int users;          /* workers inside run_parts(j); guarded by pool.mu. The job lives on the
                           submitter's stack, so it may not return while any remain. */
    struct job *link;   /* queue link */
} job;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t work; /* a job was queued, or stop */
    pthread_cond_t fin;  /* a job finished */
    job *head;           /* jobs with parts left to claim */
    int nthreads, stop, started;
    pthread_t *tids;
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, 0};

int gs_ncores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* Claim and run parts of j until none are left; returns after the last claimed part. */
static void run_parts(job *j)
{
    for (;;) {
        size_t p = atomic_fetch_add(&j->next, 1);
        if (p >= j->nparts) return;
        j->fn(j->ctx, p, j->nparts);
        if (atomic_fetch_add(&j->done, 1) + 1 == j->nparts) {
            pthread_mutex_lock(&pool.mu);
            pthread_cond_broadcast(&pool.fin);
            pthread_mutex_unlock(&pool.mu);
        }
    }
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&pool.mu);
    for (;;) {
        while (!pool.stop && !pool.head) pthread_cond_wait(&pool.work, &pool.mu);
        if (pool.stop) break;
        job *j = pool.head;
        /* Unlink a job once all its parts are claimed; others keep it at the head. */
        if (atomic_load(&j->next) >= j->nparts) {
            pool.head = j->link;
            continue;
        }
        j->users++;
        pthread_mutex_unlock(&pool.mu);
        run_parts(j);
        pthread_mutex_lock(&pool.mu);
        if (pool.head == j && atomic_load(&j->next) >= j->nparts) pool.head = j->link;
        if (--j->users == 0) pthread_cond_broadcast(&pool.fin);
    }
    pthread_mutex_unlock(&pool.mu);
    return NULL;
}

int gs_pool_start(int nthreads)
{
    pthread_mutex_lock(&pool.mu);
    if (!pool.started) {
        if (nthreads <= 0) nthreads = gs_ncores();
        /* The submitting thread works too, so nthreads-1 workers give nthreads in all. */
        int nw = nthreads - 1;
        pool.tids = nw > 0 ? calloc((size_t)nw, sizeof *pool.tids) : NULL;
        pool.nthreads = 0;
        for (int i = 0; i < nw && pool.tids; i++)
            if (pthread_create(&pool.tids[i], NULL, worker, NULL) == 0) pool.nthreads++;
        pool.started = 1;
    }
    int n = pool.nthreads + 1;
    pthread_mutex_unlock(&pool.mu);
    return n;
}

int gs_pool_threads(void) { return gs_pool_start(0); }

void gs_pool_stop(void)
{
    pthread_mutex_lock(&pool.mu);
    if (!pool.started) {
        pthread_mutex_unlock(&pool.mu);
        return;
    }
    pool.stop = 1;
    pthread_cond_broadcast(&pool.work);
    pthread_mutex_unlock(&pool.mu);
    for (int i = 0; i < pool.nthreads; i++) pthread_join(pool.tids[i], NULL);
    free(pool.tids);
    pool.tids = NULL;
    pool.nthreads = 0;
    pool.started = 0;
    pool.stop = 0;
    pool.head = NULL;
}

void gs_parallel_for(size_t nparts, gs_part_fn fn, void *ctx)
{
    if (nparts == 0) return;
    if (nparts == 1 || gs_pool_threads() == 1) {
        for (size_t p = 0; p < nparts; p++) fn(ctx, p, nparts);
        return;
    }
    job j = {.fn = fn, .ctx = ctx, .nparts = nparts, .users = 0, .link = NULL};
    atomic_init(&j.next, 0);
    atomic_init(&j.done, 0);
    pthread_mutex_lock(&pool.mu);
    job **tail = &pool.head;
    while (*tail) tail = &(*tail)->link;
    *tail = &j;
    pthread_cond_broadcast(&pool.work);
    pthread_mutex_unlock(&pool.mu);

    run_parts(&j);

    pthread_mutex_lock(&pool.mu);
    /* Unlink j first so no further worker picks it up, then wait for the parts and for every
     * worker that entered it to leave. */
    for (job **pp = &pool.head; *pp; pp = &(*pp)->link)
        if (*pp == &j) {
            *pp = j.link;
            break;
        }
    while (atomic_load(&j.done) < nparts || j.users > 0) pthread_cond_wait(&pool.fin, &pool.mu);
    pthread_mutex_unlock(&pool.mu);
}

/* ---- two passes in rounds of blocks ----------------------------------------------------------- */
typedef struct rounds_job {
    size_t n, block, blk0; /* blk0: the round's first block */
    gs_block_fn fn;
    void *ctx;
} rounds_job;

static void rounds_part(void *vj, size_t part, size_t nparts)
{
    const rounds_job *j = vj;
    (void)nparts;
    const size_t b = (j->blk0 + part) * j->block;
    j->fn(j->ctx, part, b, b + j->block < j->n ? b + j->block : j->n);
}

void gs_block_rounds(size_t n, size_t block, size_t per_round, gs_block_fn pass1, void (*between)(void *ctx, size_t nb),
                     gs_block_fn pass2, void *ctx)
{
    const size_t nblocks = (n + block - 1) / block;
    rounds_job j = {.n = n, .block = block, .ctx = ctx};
    for (j.blk0 = 0; j.blk0 < nblocks; j.blk0 += per_round) {
        const size_t nb = nblocks - j.blk0 < per_round ? nblocks - j.blk0 : per_round;
        j.fn = pass1;
        gs_parallel_for(nb, rounds_part, &j);
        between(ctx, nb);
        j.fn = pass2;
        gs_parallel_for(nb, rounds_part, &j);
    }
}

typedef struct copy_job {
    unsigned char *dst;
    const unsigned char *src;
    size_t n;
} copy_job;

static void copy_part(void *ctx, size_t part, size_t nparts)
{
    const copy_job *j = ctx;
    size_t b, e;
    gs_split(j->n, nparts, part, &b, &e);
    memcpy(j->dst + b, j->src + b, e - b);
}

void gs_parallel_copy(void *dst, const void *src, size_t n, size_t nparts)
{
    if (nparts <= 1) {
        memcpy(dst, src, n);
        return;
    }
    copy_job j = {dst, src, n};
    gs_parallel_for(nparts, copy_part, &j);
}
