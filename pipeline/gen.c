/* gen.c - synthetic series for demos, tests and benchmarks. Value i is a pure function of
 * (seed, i) - a counter-based hash (splitmix64) - so output never depends on chunking or
 * threads, and chunks are filled in parallel on the pool. The walk is an integer random walk
 * (steps -100..100), exact in every type; float walks are scaled by 0.01. */
#include "pipeline.h"
#include "../common/pool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct gen {
    gs_gen_opts g;
    uint64_t pos;  /* next index */
    int64_t walk;  /* walk value before pos */
} gen;

static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline uint64_t rnd(uint64_t seed, uint64_t i, uint64_t stream)
{
    return mix64(seed * 0x9e3779b97f4a7c15ull + i * 0xd1b54a32d192ed03ull + stream * 0x8cb92ba72f3d8dd7ull + 1);
}

static inline double unit(uint64_t r) { return (double)(r >> 11) * 0x1.0p-53; } /* [0, 1) */

static inline int64_t walk_step(uint64_t seed, uint64_t i) { return (int64_t)(rnd(seed, i, 7) % 201) - 100; }

/* The value before type conversion: integer types get an int64, floats a double. */
static inline void value_at(const gs_gen_opts *g, uint64_t i, int64_t walk, int64_t *iv, double *fv)
{
    double x;
    switch (g->dist) {
    case GS_DIST_UNIFORM: {
        if (!gs_type_is_float(g->type)) {
            int64_t lo = (int64_t)g->a, hi = (int64_t)g->b;
            /* Unsigned arithmetic: the span of a wide range does not fit int64. */
            uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
            uint64_t r = rnd(g->seed, i, 1);
            *iv = (int64_t)((uint64_t)lo + (span ? (uint64_t)(((unsigned __int128)r * span) >> 64) : r));
            return;
        }
        x = g->a + (g->b - g->a) * unit(rnd(g->seed, i, 1));
        break;
    }
    case GS_DIST_NORMAL: {
        double u1 = unit(rnd(g->seed, i, 2)), u2 = unit(rnd(g->seed, i, 3));
        x = g->a + g->b * sqrt(-2.0 * log(1.0 - u1)) * cos(6.283185307179586 * u2);
        break;
    }
    case GS_DIST_WALK:
        if (!gs_type_is_float(g->type)) {
            *iv = walk;
            return;
        }
        x = (double)walk * 0.01;
        break;
    case GS_DIST_SPARSE:
        if (unit(rnd(g->seed, i, 4)) >= g->a) x = 0;
        else if (!gs_type_is_float(g->type)) {
            *iv = 1 + (int64_t)(rnd(g->seed, i, 5) % 100);
            return;
        } else
            x = 1.0 + 99.0 * unit(rnd(g->seed, i, 5));
        break;
    default: /* sine */
        x = 1000.0 * sin(6.283185307179586 * (double)(i % (uint64_t)g->a) / g->a);
        break;
    }
    *iv = (int64_t)llround(x);
    *fv = x;
}

typedef struct fill_ctx {
    const gs_gen_opts *g;
    void *buf;
    uint64_t pos;
    size_t n;
    int64_t walk0;       /* walk value before pos */
    int64_t *part_sums;  /* walk: sum of steps per part */
    int pass;
} fill_ctx;

static void fill_part(void *c, size_t p, size_t np)
{
    fill_ctx *f = c;
    const gs_gen_opts *g = f->g;
    size_t b, e;
    gs_split(f->n, np, p, &b, &e);
    if (f->pass == 0) { /* walk: sum this part's steps */
        int64_t s = 0;
        for (size_t k = b; k < e; k++) s += walk_step(g->seed, f->pos + k);
        f->part_sums[p] = s;
        return;
    }
    int64_t walk = f->walk0;
    if (g->dist == GS_DIST_WALK)
        for (size_t q = 0; q < p; q++) walk += f->part_sums[q];
    for (size_t k = b; k < e; k++) {
        uint64_t i = f->pos + k;
        int64_t iv = 0;
        double fv = 0;
        if (g->dist == GS_DIST_WALK) walk += walk_step(g->seed, i);
        value_at(g, i, walk, &iv, &fv);
        switch (g->type) {
        case GS_I32: ((int32_t *)f->buf)[k] = (int32_t)iv; break;
        case GS_I64: ((int64_t *)f->buf)[k] = iv; break;
        case GS_U32: ((uint32_t *)f->buf)[k] = (uint32_t)iv; break;
        case GS_U64: ((uint64_t *)f->buf)[k] = (uint64_t)iv; break;
        case GS_F32: ((float *)f->buf)[k] = (float)fv; break;
        default: ((double *)f->buf)[k] = fv; break;
        }
    }
}

static int gen_read(void *ctx, void *buf, size_t cap, size_t *got, gs_status *st)
{
    gen *s = ctx;
    (void)st;
    uint64_t left = s->g.n - s->pos;
    size_t n = left < cap ? (size_t)left : cap;
    *got = n;
    if (!n) return GS_OK;
    size_t parts = (size_t)gs_pool_threads() * 4;
    if (parts > n / 4096 + 1) parts = n / 4096 + 1;
    int64_t sums[1024];
    if (parts > 1024) parts = 1024;
    fill_ctx f = {&s->g, buf, s->pos, n, s->walk, sums, 1};
    if (s->g.dist == GS_DIST_WALK) {
        f.pass = 0;
        gs_parallel_for(parts, fill_part, &f);
        f.pass = 1;
    }
    gs_parallel_for(parts, fill_part, &f);
    if (s->g.dist == GS_DIST_WALK)
        for (size_t q = 0; q < parts; q++) s->walk += sums[q];
    s->pos += n;
    return GS_OK;
}

static uint64_t gen_bytes(void *ctx)
{
    gen *s = ctx;
    return s->pos * gs_type_size(s->g.type);
}

int gs_dist_parse(const char *s, gs_gen_opts *g, gs_status *st)
{
    char name[16];
    const char *colon = strchr(s, ':');
    size_t len = colon ? (size_t)(colon - s) : strlen(s);
    if (len >= sizeof name) goto bad;
    memcpy(name, s, len);
    name[len] = 0;
    const char *args = colon ? colon + 1 : NULL;
    char *end;
    if (!strcmp(name, "uniform") || !strcmp(name, "normal")) {
        g->dist = name[0] == 'u' ? GS_DIST_UNIFORM : GS_DIST_NORMAL;
        g->a = name[0] == 'u' ? 0 : 0;
        g->b = name[0] == 'u' ? 100 : 1;
        if (args) {
            g->a = strtod(args, &end);
            if (end == args || *end != ':') goto bad;
            g->b = strtod(end + 1, &end);
            if (*end || end == args) goto bad;
        }
        if (!isfinite(g->a) || !isfinite(g->b)) goto bad;
        if (g->dist == GS_DIST_UNIFORM && g->b < g->a) goto bad;
        if (g->dist == GS_DIST_NORMAL && !(g->b >= 0)) goto bad;
        /* Integer types draw from [A, B] as int64: keep the bounds inside it. */
        if (g->dist == GS_DIST_UNIFORM && (g->a < -9.2e18 || g->b > 9.2e18)) goto bad;
    } else if (!strcmp(name, "walk")) {
        g->dist = GS_DIST_WALK;
        if (args) goto bad;
    } else if (!strcmp(name, "sparse") || !strcmp(name, "sine")) {
        g->dist = name[1] == 'p' ? GS_DIST_SPARSE : GS_DIST_SINE;
        g->a = name[1] == 'p' ? 0.01 : 1000;
        if (args) {
            g->a = strtod(args, &end);
            if (end == args || *end) goto bad;
        }
        if (g->dist == GS_DIST_SPARSE && !(g->a >= 0 && g->a <= 1)) goto bad;
        /* The period indexes i % PERIOD as an integer: at most 2^53. */
        if (g->dist == GS_DIST_SINE && !(g->a >= 1 && g->a <= 9007199254740992.0)) goto bad;
    } else
        goto bad;
    return GS_OK;
bad:
    return gs_fail(st, GS_EUSAGE,
                   "invalid --dist '%s' (expected uniform:A:B, normal:MU:SIGMA, walk, sparse:P or sine:PERIOD)", s);
}

int gs_gen_source(gs_source *s, const gs_gen_opts *g, gs_status *st)
{
    gen *x = calloc(1, sizeof *x);
    if (!x) return gs_fail(st, GS_ENOMEM, "out of memory");
    x->g = *g;
    memset(s, 0, sizeof *s); /* one column; no frames, views or row records */
    s->read = gen_read;
    s->ctx = x;
    s->type = g->type;
    s->count = (int64_t)g->n;
    s->bytes = gen_bytes;
    return GS_OK;
}

void gs_gen_source_free(gs_source *s)
{
    free(s->ctx);
    s->ctx = NULL;
}
