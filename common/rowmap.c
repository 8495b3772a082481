/* rowmap.c - the input rows a stream skipped (rowmap.h). */
#include "rowmap.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct run {
    uint64_t at;   /* stream position the rows were skipped before */
    uint64_t upto; /* rows skipped at positions <= at */
} run;

struct gs_rowmap {
    pthread_mutex_t mu;
    run *r;
    size_t n, cap;
};

gs_rowmap *gs_rowmap_new(void)
{
    gs_rowmap *m = calloc(1, sizeof *m);
    if (m) pthread_mutex_init(&m->mu, NULL);
    return m;
}

void gs_rowmap_free(gs_rowmap *m)
{
    if (!m) return;
    pthread_mutex_destroy(&m->mu);
    free(m->r);
    free(m);
}

int gs_rowmap_add(gs_rowmap *m, uint64_t s, uint64_t k)
{
    int rc = 0;
    if (!k) return 0;
    pthread_mutex_lock(&m->mu);
    if (m->n && m->r[m->n - 1].at == s) m->r[m->n - 1].upto += k;
    else {
        if (m->n == m->cap) {
            size_t nc = m->cap ? m->cap * 2 : 64;
            run *nr = realloc(m->r, nc * sizeof *nr);
            if (!nr) rc = -1;
            else m->r = nr, m->cap = nc;
        }
        if (!rc) {
            m->r[m->n] = (run){s, (m->n ? m->r[m->n - 1].upto : 0) + k};
            m->n++;
        }
    }
    pthread_mutex_unlock(&m->mu);
    return rc;
}

uint64_t gs_rowmap_skipped(const gs_rowmap *m)
{
    gs_rowmap *w = (gs_rowmap *)m;
    pthread_mutex_lock(&w->mu);
    uint64_t k = m->n ? m->r[m->n - 1].upto : 0;
    pthread_mutex_unlock(&w->mu);
    return k;
}

/* The number of runs with at <= p. */
static size_t runs_upto(const run *r, size_t n, uint64_t p)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r[mid].at <= p) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

void gs_rowmap_rows(const gs_rowmap *m, uint64_t *pos, size_t n)
{
    gs_rowmap *w = (gs_rowmap *)m;
    pthread_mutex_lock(&w->mu);
    const run *r = m->r;
    size_t i = 0; /* runs with at <= the last position: walked forward while positions ascend */
    uint64_t last = 0;
    for (size_t k = 0; k < n; k++) {
        uint64_t p = pos[k];
        if (p < last) i = runs_upto(r, m->n, p);
        else if (i < m->n && r[i].at <= p) {
            if (i + 8 < m->n && r[i + 8].at <= p) i = runs_upto(r, m->n, p); /* a long way ahead */
            else
                while (i < m->n && r[i].at <= p) i++;
        }
        last = p;
        pos[k] = p + (i ? r[i - 1].upto : 0);
    }
    pthread_mutex_unlock(&w->mu);
}
