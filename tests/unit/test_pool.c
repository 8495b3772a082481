/* test_pool.c - the thread pool (common/pool.c): every part of every job runs exactly once, with
 * jobs submitted from several threads at once; a job makes progress while another job's parts
 * hold every worker; and a single part runs inline. */
#include "check.h"
#include "../../common/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct count_job {
    atomic_int *hits; /* one counter per part */
    size_t nparts;
    atomic_int wrong_n; /* calls that saw another nparts */
} count_job;

static void count_part(void *ctx, size_t p, size_t n)
{
    count_job *j = ctx;
    if (n != j->nparts || p >= n) {
        atomic_fetch_add(&j->wrong_n, 1);
        return;
    }
    atomic_fetch_add(&j->hits[p], 1);
}

/* A submitting thread: rounds of jobs of varying size. */
typedef struct submitter {
    int rounds, bad; /* bad: parts not run exactly once */
    unsigned seed;
} submitter;

static void *submit_main(void *arg)
{
    submitter *s = arg;
    for (int r = 0; r < s->rounds; r++) {
        s->seed = s->seed * 1103515245u + 12345u;
        size_t n = 1 + (s->seed >> 16) % 97;
        count_job j = {calloc(n, sizeof(atomic_int)), n, 0};
        if (!j.hits) {
            s->bad++;
            continue;
        }
        gs_parallel_for(n, count_part, &j);
        for (size_t p = 0; p < n; p++) s->bad += atomic_load(&j.hits[p]) != 1;
        s->bad += atomic_load(&j.wrong_n) != 0;
        free(j.hits);
    }
    return NULL;
}

/* Parts that wait until released, so that they hold every worker. */
typedef struct hold_job {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int released, inside;
} hold_job;

static void hold_part(void *ctx, size_t p, size_t n)
{
    (void)p, (void)n;
    hold_job *h = ctx;
    pthread_mutex_lock(&h->mu);
    h->inside++;
    pthread_cond_broadcast(&h->cv);
    while (!h->released) pthread_cond_wait(&h->cv, &h->mu);
    pthread_mutex_unlock(&h->mu);
}

static hold_job hold = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
static int hold_parts;

static void *hold_main(void *arg)
{
    (void)arg;
    gs_parallel_for((size_t)hold_parts, hold_part, &hold);
    return NULL;
}

int main(void)
{
    int threads = gs_pool_start(4);
    CHECK(threads == 4, "pool of 4 threads", "got %d", threads);

    /* several submitters at once */
    enum { NS = 6 };
    submitter s[NS];
    pthread_t t[NS];
    int started = 0;
    for (int i = 0; i < NS; i++) {
        s[i] = (submitter){300, 0, 7u + (unsigned)i};
        started += pthread_create(&t[i], NULL, submit_main, &s[i]) == 0;
    }
    CHECK(started == NS, "submitters started", "%d of %d", started, NS);
    int bad = 0;
    for (int i = 0; i < started; i++) {
        pthread_join(t[i], NULL);
        bad += s[i].bad;
    }
    CHECK(bad == 0, "every part of 1800 jobs from 6 threads ran exactly once", "%d wrong", bad);

    /* one job's parts hold the 3 workers and its submitter; a job submitted meanwhile still
     * finishes (its caller runs its parts), and the first finishes once released */
    hold_parts = threads;
    pthread_t ht;
    int hok = pthread_create(&ht, NULL, hold_main, NULL) == 0;
    pthread_mutex_lock(&hold.mu);
    while (hok && hold.inside < threads) pthread_cond_wait(&hold.cv, &hold.mu);
    pthread_mutex_unlock(&hold.mu);
    count_job j = {calloc(50, sizeof(atomic_int)), 50, 0};
    gs_parallel_for(50, count_part, &j);
    int once = 1;
    for (size_t p = 0; p < 50; p++) once &= atomic_load(&j.hits[p]) == 1;
    CHECK(hok && once, "a job finishes while another job's parts hold every worker", "hold thread %d, parts once %d", hok,
          once);
    free(j.hits);
    pthread_mutex_lock(&hold.mu);
    hold.released = 1;
    pthread_cond_broadcast(&hold.cv);
    pthread_mutex_unlock(&hold.mu);
    if (hok) pthread_join(ht, NULL);
    CHECK(hold.inside == threads, "the holding job ran all its parts", "%d of %d", hold.inside, threads);

    /* one part runs inline, on the caller */
    count_job one = {calloc(1, sizeof(atomic_int)), 1, 0};
    gs_parallel_for(1, count_part, &one);
    CHECK(atomic_load(&one.hits[0]) == 1, "a single part runs on the caller", "hits %d", atomic_load(&one.hits[0]));
    free(one.hits);
    gs_parallel_for(0, count_part, &one); /* no parts: nothing runs (one.hits is freed) */
    gs_pool_stop();
    return CHECK_DONE();
}
