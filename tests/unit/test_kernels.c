/* test_kernels.c - unit tests of every CPU kernel variant (scan, compact, minmax) and of the
 * registry, against oracles written here from the definitions in kernels.h and ops.h (plain
 * loops; exact 64-bit integer arithmetic for wrapping sums, compensated sums for floats, index
 * comparisons for min/max), on seeded random inputs with edge values, one-shot and chunked.
 * Set GS_TEST_SEED to vary the inputs; the seed is printed as a comment line. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/pool.h"
#include "../../kernels/kernels.h"
#include "../../pipeline/bench.h"
#include "check.h"

#define BIG_N (((size_t)1 << 20) + 3)

static const size_t sizes[] = {0, 1, 2, 1000, BIG_N};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Chunk lengths the chunked runs cycle through: odd, tiny, and larger than one 64Ki block. */
static const size_t chunk_cycle[] = {1, 7, 1000, 4097, 70001, 200003};
static const size_t small_chunk_cycle[] = {1, 7, 1000, 4097};

static const gs_type all_types[] = {GS_I32, GS_I64, GS_U32, GS_U64, GS_F32, GS_F64};
static const char *const tname[] = {"i32", "i64", "u32", "u64", "f32", "f64"};

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "test_kernels: out of memory\n");
        exit(2);
    }
    return p;
}

/* ---- random numbers (splitmix64) ------------------------------------------------------------ */
static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static size_t rnd_below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

/* ---- element access, written independently of gs.c ------------------------------------------ */
static size_t esize(gs_type t) { return (t == GS_I32 || t == GS_U32 || t == GS_F32) ? 4 : 8; }
static int isflt(gs_type t) { return t == GS_F32 || t == GS_F64; }
static int issigned(gs_type t) { return t == GS_I32 || t == GS_I64; }

/* Raw bits, zero-extended. */
static uint64_t get_bits(gs_type t, const void *a, size_t i)
{
    if (esize(t) == 4) {
        uint32_t v;
        memcpy(&v, (const char *)a + 4 * i, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, (const char *)a + 8 * i, 8);
    return v;
}
static void set_bits(gs_type t, void *a, size_t i, uint64_t b)
{
    if (esize(t) == 4) {
        uint32_t v = (uint32_t)b;
        memcpy((char *)a + 4 * i, &v, 4);
    } else {
        memcpy((char *)a + 8 * i, &b, 8);
    }
}
static int64_t get_i(gs_type t, const void *a, size_t i)
{
    const uint64_t b = get_bits(t, a, i);
    if (t == GS_I32) return (int64_t)(int32_t)(uint32_t)b;
    return (int64_t)b;
}
static uint64_t get_u(gs_type t, const void *a, size_t i) { return get_bits(t, a, i); }
/* Float element as a double, from its raw bits. */
static double get_f(gs_type t, const void *a, size_t i)
{
    const uint64_t b = get_bits(t, a, i);
    const union {
        uint32_t u;
        float f;
    } w32 = {(uint32_t)b};
    const union {
        uint64_t u;
        double d;
    } w64 = {b};
    return t == GS_F32 ? w32.f : w64.d;
}
static int el_nan(gs_type t, const void *a, size_t i) { return isflt(t) && isnan(get_f(t, a, i)); }

/* Element a[i] strictly below b[j] in the order of ops.h: -0.0 < +0.0. NaN: not called. */
static int el_lt(gs_type t, const void *a, size_t i, const void *b, size_t j)
{
    if (issigned(t)) return get_i(t, a, i) < get_i(t, b, j);
    if (!isflt(t)) return get_u(t, a, i) < get_u(t, b, j);
    const double x = get_f(t, a, i), y = get_f(t, b, j);
    if (x != y) return x < y;
    return signbit(x) && !signbit(y);
}

/* ---- inputs ---------------------------------------------------------------------------------
 * Integers: full-range random bits (sums wrap), small values (ties), and the extremes.
 * Floats: multiples of 1/8 in [-1000, 1000] (ties, exact), +-0.0 often; +-inf and NaN only in
 * the second half, so the first half still tests finite sums and NaN-free windows. Never all
 * zeros. */
static void *gen(gs_type t, size_t n)
{
    void *a = xmalloc(n * esize(t));
    for (size_t i = 0; i < n; i++) {
        const unsigned r = (unsigned)(rnd() % 100);
        uint64_t b;
        if (!isflt(t)) {
            const int w32 = esize(t) == 4;
            if (r < 70) b = rnd();
            else if (r < 88) b = (uint64_t)((int64_t)(rnd() % 101) - 50);
            else if (r < 91) b = issigned(t) ? (w32 ? 0x80000000u : 0x8000000000000000ull) : 0; /* MIN */
            else if (r < 94) b = issigned(t) ? (w32 ? 0x7fffffffu : 0x7fffffffffffffffull) : ~0ull; /* MAX */
            else if (r < 97) b = 0;
            else b = ~0ull; /* -1 / UINT_MAX */
            if (w32) b &= 0xffffffffu;
            set_bits(t, a, i, b);
            continue;
        }
        double v;
        if (r < 84) v = (double)((int64_t)(rnd() % 16001) - 8000) / 8.0;
        else if (r < 90) v = 0.0;
        else if (r < 96) v = -0.0;
        else if (r < 98 && i >= n / 2) v = (rnd() & 1) ? INFINITY : -INFINITY;
        else v = (double)(rnd() % 1000) / 3.0; /* inexact thirds */
        if (t == GS_F32) {
            float f = (float)v;
            memcpy((char *)a + 4 * i, &f, 4);
        } else {
            memcpy((char *)a + 8 * i, &v, 8);
        }
    }
    if (isflt(t) && n >= 4) { /* a few NaNs in the second half, one with a payload and sign */
        const size_t k = n > 100000 ? n / 40000 : 2;
        for (size_t j = 0; j < k; j++) {
            const size_t i = n / 2 + rnd_below(n - n / 2);
            if (t == GS_F32) set_bits(t, a, i, (j & 1) ? 0xffc00123u : 0x7fc00000u);
            else set_bits(t, a, i, (j & 1) ? 0xfff8000000000123ull : 0x7ff8000000000000ull);
        }
    }
    if (n > 0) set_bits(t, a, 0, t == GS_F32 ? 0x3f800000u : t == GS_F64 ? 0x3ff0000000000000ull : 5);
    return a;
}

/* ---- scan oracle ----------------------------------------------------------------------------- */
typedef struct scan_expect {
    uint64_t *bits;       /* exact expected bits in out_type (all but float sums) */
    unsigned char *isnan; /* float min/max, float sums: NaN expected */
    double *val, *scale;  /* float sums: the value (compensated double sum) and
                           * the sum of |x| (the error scale) */
} scan_expect;

/* Input i converted to out_type (the widenings are exact). */
static void widen(gs_type tin, gs_type tout, const void *in, void *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (tin == tout) set_bits(tout, out, i, get_bits(tin, in, i));
        else if (tin == GS_I32) set_bits(tout, out, i, (uint64_t)get_i(tin, in, i));
        else if (tin == GS_U32) set_bits(tout, out, i, get_u(tin, in, i));
        else {
            double d = get_f(tin, in, i);
            memcpy((char *)out + 8 * i, &d, 8);
        }
    }
}

static uint64_t mask_of(gs_type t) { return esize(t) == 4 ? 0xffffffffull : ~0ull; }

/* Identity of op in type t, as bits (the definition in kernels.h, written out). */
static uint64_t identity_bits(gs_scan_op op, gs_type t)
{
    if (op == GS_SCAN_SUM) return t == GS_F32 ? 0x80000000u : t == GS_F64 ? 0x8000000000000000ull : 0; /* -0.0 */
    const int mn = op == GS_SCAN_MIN;
    switch (t) {
    case GS_I32: return mn ? 0x7fffffffu : 0x80000000u;
    case GS_I64: return mn ? 0x7fffffffffffffffull : 0x8000000000000000ull;
    case GS_U32: return mn ? 0xffffffffu : 0;
    case GS_U64: return mn ? ~0ull : 0;
    case GS_F32: return mn ? 0x7f800000u : 0xff800000u;
    default: return mn ? 0x7ff0000000000000ull : 0xfff0000000000000ull;
    }
}

/* Expected outputs for one-shot scan of x[0..n) from the identity, plus the final total at
 * index n. */
static scan_expect scan_oracle(const gs_scan_params *p, const void *x, size_t n)
{
    const gs_type to = p->out_type;
    scan_expect e = {xmalloc((n + 1) * 8), xmalloc(n + 1), xmalloc((n + 1) * sizeof(double)),
                     xmalloc((n + 1) * sizeof(double))};
    const int fsum = isflt(to) && p->op == GS_SCAN_SUM;
    void *xo = xmalloc(n * 8 + 8);
    widen(p->type, to, x, xo, n);
    uint64_t acc = identity_bits(p->op, to);
    double fs = 0, fc = 0, fscale = 0; /* Neumaier-compensated sum: fs + fc, nearly exact */
    int nan = 0;
    for (size_t i = 0; i <= n; i++) {
        if (p->exclusive || i == n) { /* the value before x[i] */
            e.bits[i] = acc, e.isnan[i] = (unsigned char)nan;
            if (fsum) e.val[i] = fs + fc, e.scale[i] = fscale, e.isnan[i] = (unsigned char)isnan(fs);
        }
        if (i == n) break;
        if (p->op == GS_SCAN_SUM) {
            if (fsum) {
                const double v = get_f(to, xo, i), t = fs + v;
                if (isfinite(t)) fc += fabs(fs) >= fabs(v) ? (fs - t) + v : (v - t) + fs;
                fs = t, fscale += fabs(v);
            } else {
                acc = (acc + get_bits(to, xo, i)) & mask_of(to); /* sign-extension done by widen() */
            }
        } else if (!nan) {
            if (el_nan(to, xo, i)) {
                nan = 1;
            } else { /* replace the running extreme (starting at the identity) if x[i] beats it */
                const uint64_t cur = acc;
                if (p->op == GS_SCAN_MIN ? el_lt(to, xo, i, &cur, 0) : el_lt(to, &cur, 0, xo, i))
                    acc = get_bits(to, xo, i);
            }
        }
        if (!p->exclusive) {
            e.bits[i] = acc, e.isnan[i] = (unsigned char)nan;
            if (fsum) e.val[i] = fs + fc, e.scale[i] = fscale, e.isnan[i] = (unsigned char)isnan(fs);
        }
    }
    free(xo);
    return e;
}

static void scan_expect_free(scan_expect *e)
{
    free(e->bits), free(e->isnan), free(e->val), free(e->scale);
}

/* Float-sum tolerance relative to the sum of |x| (reassociation error grows with it). */
static double sum_tol(gs_type to) { return to == GS_F32 ? 1e-5 : 1e-12; }

/* got[i] vs expected i (or the carry vs expected n when is_carry). 1 if it matches. */
static int scan_match(const gs_scan_params *p, const scan_expect *e, const void *got, size_t gi, size_t ei)
{
    const gs_type to = p->out_type;
    if (isflt(to)) {
        const double g = get_f(to, got, gi);
        if (e->isnan[ei]) return isnan(g);
        if (p->op != GS_SCAN_SUM) return get_bits(to, got, gi) == e->bits[ei];
        if (isinf(e->val[ei])) return g == e->val[ei];
        return fabs(g - e->val[ei]) <= sum_tol(to) * e->scale[ei] + 1e-300;
    }
    return get_bits(to, got, gi) == e->bits[ei];
}

/* Index of the first mismatch in got[0..n) (SIZE_MAX if none); also checks the carry. */
static size_t scan_verify(const gs_scan_params *p, const scan_expect *e, const void *got, size_t n,
                          const gs_value *carry)
{
    for (size_t i = 0; i < n; i++)
        if (!scan_match(p, e, got, i, i)) return i;
    if (carry && !scan_match(p, e, carry, 0, n)) return n;
    return SIZE_MAX;
}

/* a and b (both out_type, n values) equal: bits, or for float sums within the tolerance. */
static size_t scan_same(const gs_scan_params *p, const scan_expect *e, const void *a, const void *b, size_t n)
{
    const gs_type to = p->out_type;
    for (size_t i = 0; i < n; i++) {
        if (isflt(to) && p->op == GS_SCAN_SUM) {
            const double x = get_f(to, a, i), y = get_f(to, b, i);
            if (isnan(x) || isnan(y)) {
                if (isnan(x) != isnan(y)) return i;
            } else if (isinf(x) || isinf(y)) {
                if (x != y) return i;
            } else if (fabs(x - y) > 2 * sum_tol(to) * e->scale[i] + 1e-300) {
                return i;
            }
        } else if (get_bits(to, a, i) != get_bits(to, b, i)) {
            if (!(isflt(to) && isnan(get_f(to, a, i)) && isnan(get_f(to, b, i)))) return i;
        }
    }
    return SIZE_MAX;
}

static const char *const op_name[] = {"sum", "min", "max"};

/* The CPU scan and compact variants under test, by name: sequential and parallel. */
typedef struct cpu_variant {
    const char *name;
    gs_scan_cpu_fn scan;
    gs_compact_cpu_fn compact;
} cpu_variant;
static const cpu_variant cpu_variants[] = {{"cpu", gs_scan_cpu, gs_compact_cpu},
                                           {"cpu-par", gs_scan_cpu_par, gs_compact_cpu_par}};

static void test_scan_identity(void)
{
    int ok = 1;
    for (int op = 0; op < 3; op++)
        for (size_t k = 0; k < 6; k++) {
            gs_value v;
            gs_scan_identity((gs_scan_op)op, all_types[k], &v);
            if (get_bits(all_types[k], &v, 0) != identity_bits((gs_scan_op)op, all_types[k])) ok = 0;
        }
    CHECK(ok, "scan identity: sum 0 (floats -0.0), min type max/+inf, max type min/-inf", "a wrong identity");
}

/* Chunked run over consecutive chunks from `cycle`, carrying the total. */
static int scan_chunked(const cpu_variant *v, const gs_scan_params *p, const void *x, size_t n, void *out,
                        const size_t *cycle, size_t ncycle, gs_value *carry)
{
    gs_status st = {0};
    gs_scan_identity(p->op, p->out_type, carry);
    size_t off = 0, c = 0;
    while (off < n) {
        size_t len = cycle[c++ % ncycle];
        if (len > n - off) len = n - off;
        if (v->scan(p, (const char *)x + off * esize(p->type), (char *)out + off * esize(p->out_type), len, carry,
                  &st))
            return -1;
        off += len;
    }
    return 0;
}

static void test_scan(void)
{
    static const gs_type widen_to[][2] = {{GS_I32, GS_I64}, {GS_U32, GS_U64}, {GS_F32, GS_F64}};
    gs_type pairs[9][2];
    for (int k = 0; k < 6; k++) pairs[k][0] = pairs[k][1] = all_types[k];
    for (int k = 0; k < 3; k++) pairs[6 + k][0] = widen_to[k][0], pairs[6 + k][1] = widen_to[k][1];

    for (size_t si = 0; si < NSIZES; si++) {
        const size_t n = sizes[si];
        for (int pi = 0; pi < 9; pi++) {
            void *x = gen(pairs[pi][0], n);
            void *out = xmalloc(n * 8 + 8), *out2 = xmalloc(n * 8 + 8);
            for (int op = 0; op < 3; op++) {
                for (int ex = 0; ex < 2; ex++) {
                    const gs_scan_params p = {pairs[pi][0], pairs[pi][1], (gs_scan_op)op, ex, 0};
                    scan_expect e = scan_oracle(&p, x, n);
                    for (size_t vi = 0; vi < 2; vi++) {
                        const cpu_variant *v = &cpu_variants[vi];
                        char name[160], why[600] = "";
                        snprintf(name, sizeof name, "scan %s %s->%s %s %s n=%zu", v->name, tname[p.type],
                                 tname[p.out_type], op_name[op], ex ? "exclusive" : "inclusive", n);
                        gs_status st = {0};
                        gs_value carry;
                        gs_scan_identity(p.op, p.out_type, &carry);
                        int ok = v->scan(&p, x, out, n, &carry, &st) == GS_OK;
                        if (!ok) snprintf(why, sizeof why, "returned an error: %s", st.msg);
                        size_t bad = ok ? scan_verify(&p, &e, out, n, &carry) : 0;
                        if (ok && bad != SIZE_MAX) {
                            ok = 0;
                            snprintf(why, sizeof why, "%s %zu differs from the oracle", bad == n ? "carry after" : "output",
                                     bad);
                        }
                        /* chunked: same result as one shot (sizes worth chunking) */
                        if (ok && n >= 1000) {
                            gs_value c2;
                            const int small = n < BIG_N;
                            if (scan_chunked(v, &p, x, n, out2, small ? small_chunk_cycle : chunk_cycle,
                                             small ? 4 : 6, &c2)) {
                                ok = 0;
                                snprintf(why, sizeof why, "chunked run returned an error");
                            } else if ((bad = scan_same(&p, &e, out, out2, n)) != SIZE_MAX) {
                                ok = 0;
                                snprintf(why, sizeof why, "chunked output %zu differs from one shot", bad);
                            } else if (!scan_match(&p, &e, &c2, 0, n)) {
                                ok = 0;
                                snprintf(why, sizeof why, "chunked final carry differs from the oracle");
                            }
                        }
                        CHECK(ok, name, "%s", why);
                    }
                    scan_expect_free(&e);
                }
            }
            free(x), free(out), free(out2);
        }
    }
}

/* Carry in from a non-identity value; edge sums that wrap; in-place; bad widenings. */
static void test_scan_edges(void)
{
    gs_status st = {0};
    /* Float sums of -0.0 from the identity: -0.0 while every element so far is -0.0, as numpy's
     * cumsum, one block and many (cpu-par's parallel blocks). */
    {
        const size_t n = 3 * 65536 + 5;
        double *x = xmalloc(n * 8), *out = xmalloc(n * 8);
        float *xf = xmalloc(n * 4), *of = xmalloc(n * 4);
        int ok = 1;
        for (size_t i = 0; i < n; i++) x[i] = -0.0, xf[i] = -0.0f;
        for (size_t vi = 0; vi < 2; vi++)
            for (size_t len = 1; len <= n; len += n - 1) {
                gs_scan_params p = {GS_F64, GS_F64, GS_SCAN_SUM, 0, 0}, q = {GS_F32, GS_F32, GS_SCAN_SUM, 0, 0},
                               w = {GS_F32, GS_F64, GS_SCAN_SUM, 0, 0};
                gs_value c, cf, cw;
                gs_scan_identity(GS_SCAN_SUM, GS_F64, &c);
                gs_scan_identity(GS_SCAN_SUM, GS_F32, &cf);
                gs_scan_identity(GS_SCAN_SUM, GS_F64, &cw);
                ok &= cpu_variants[vi].scan(&p, x, out, len, &c, &st) == GS_OK && signbit(out[0]) &&
                      signbit(out[len - 1]) && signbit(c.f64);
                ok &= cpu_variants[vi].scan(&q, xf, of, len, &cf, &st) == GS_OK && signbit(of[0]) &&
                      signbit(of[len - 1]) && signbit(cf.f32);
                ok &= cpu_variants[vi].scan(&w, xf, out, len, &cw, &st) == GS_OK && signbit(out[len - 1]);
            }
        x[7] = 1.0, x[9] = -1.0; /* 1 + -1 is +0.0, and stays +0.0 after more -0.0 */
        for (size_t vi = 0; vi < 2; vi++) {
            gs_scan_params p = {GS_F64, GS_F64, GS_SCAN_SUM, 0, 0};
            gs_value c;
            gs_scan_identity(GS_SCAN_SUM, GS_F64, &c);
            ok &= cpu_variants[vi].scan(&p, x, out, n, &c, &st) == GS_OK && signbit(out[6]) && out[7] == 1.0 &&
                  out[9] == 0.0 && !signbit(out[9]) && !signbit(out[n - 1]);
        }
        CHECK(ok, "scan sum of -0.0 stays -0.0 (numpy's cumsum)", "a +0.0");
        free(x), free(out), free(xf), free(of);
    }
    /* i64: INT64_MAX + 1 wraps to INT64_MIN; i32 -> i64 does not wrap. */
    {
        const int64_t x[3] = {INT64_MAX, 1, INT64_MIN};
        int64_t out[3];
        gs_scan_params p = {GS_I64, GS_I64, GS_SCAN_SUM, 0, 0};
        int ok = 1;
        for (size_t vi = 0; vi < 2; vi++) {
            gs_value c = {.i64 = 0};
            ok &= cpu_variants[vi].scan(&p, x, out, 3, &c, &st) == GS_OK && out[0] == INT64_MAX &&
                  out[1] == INT64_MIN && out[2] == 0 && c.i64 == 0;
        }
        CHECK(ok, "scan sum i64 wraps at INT64_MAX", "wrong wrap");
    }
    {
        const int32_t x[2] = {INT32_MAX, INT32_MAX};
        int64_t out[2];
        int32_t o32[2];
        gs_scan_params p = {GS_I32, GS_I64, GS_SCAN_SUM, 0, 0}, q = {GS_I32, GS_I32, GS_SCAN_SUM, 0, 0};
        int ok = 1;
        for (size_t vi = 0; vi < 2; vi++) {
            gs_value c = {.i64 = 0}, c32 = {.i32 = 0};
            ok &= cpu_variants[vi].scan(&p, x, out, 2, &c, &st) == GS_OK && out[1] == 2 * (int64_t)INT32_MAX;
            ok &= cpu_variants[vi].scan(&q, x, o32, 2, &c32, &st) == GS_OK && o32[1] == -2;
        }
        CHECK(ok, "scan sum i32->i64 widens, i32 wraps", "wrong widening or wrap");
    }
    {
        const uint64_t x[2] = {UINT64_MAX, 2};
        uint64_t out[2];
        gs_scan_params p = {GS_U64, GS_U64, GS_SCAN_SUM, 1, 0};
        int ok = 1;
        for (size_t vi = 0; vi < 2; vi++) {
            gs_value c = {.u64 = 5};
            ok &= cpu_variants[vi].scan(&p, x, out, 2, &c, &st) == GS_OK && out[0] == 5 && out[1] == 4 && c.u64 == 6;
        }
        CHECK(ok, "scan exclusive u64 from carry 5 wraps past UINT64_MAX", "wrong exclusive carry");
    }
    {   /* min with -0.0/+0.0 and NaN, max from a carry */
        const double x[5] = {0.0, -0.0, 0.0, NAN, -1.0};
        double out[5];
        gs_scan_params p = {GS_F64, GS_F64, GS_SCAN_MIN, 0, 0}, q = {GS_F64, GS_F64, GS_SCAN_MAX, 0, 0};
        int ok = 1;
        for (size_t vi = 0; vi < 2; vi++) {
            gs_value c;
            gs_scan_identity(GS_SCAN_MIN, GS_F64, &c);
            ok &= cpu_variants[vi].scan(&p, x, out, 5, &c, &st) == GS_OK && out[0] == 0 && !signbit(out[0]) &&
                  signbit(out[1]) && signbit(out[2]) && isnan(out[3]) && isnan(out[4]) && isnan(c.f64);
            c.f64 = -0.0;
            ok &= cpu_variants[vi].scan(&q, x, out, 3, &c, &st) == GS_OK && !signbit(out[0]) && !signbit(out[1]) &&
                  !signbit(c.f64);
        }
        CHECK(ok, "scan f64 min/max: -0.0 below +0.0, NaN sticks", "wrong zero sign or NaN");
    }
    {   /* in place, large enough for several blocks */
        const size_t n = 300000;
        int32_t *a = gen(GS_I32, n), *b = xmalloc(n * 4), *ref = xmalloc(n * 4);
        gs_scan_params p = {GS_I32, GS_I32, GS_SCAN_SUM, 1, 0};
        int ok = 1;
        for (size_t vi = 0; vi < 2; vi++) {
            gs_value c = {.i32 = 0}, c2 = {.i32 = 0};
            memcpy(b, a, n * 4);
            ok &= cpu_variants[vi].scan(&p, a, ref, n, &c, &st) == GS_OK;
            ok &= cpu_variants[vi].scan(&p, b, b, n, &c2, &st) == GS_OK;
            ok &= memcmp(b, ref, n * 4) == 0 && c.i32 == c2.i32;
        }
        CHECK(ok, "scan in place (in == out) equals out of place", "in-place result differs");
        free(a), free(b), free(ref);
    }
    {
        int ok = 1;
        const gs_type bad[][2] = {{GS_I32, GS_F64}, {GS_I64, GS_I32}, {GS_F64, GS_F32}, {GS_U32, GS_I64}};
        for (size_t k = 0; k < 4; k++)
            for (size_t vi = 0; vi < 2; vi++) {
                gs_status s = {0};
                gs_scan_params p = {bad[k][0], bad[k][1], GS_SCAN_SUM, 0, 0};
                gs_value c = {.u64 = 0};
                int32_t dummy = 0;
                ok &= cpu_variants[vi].scan(&p, &dummy, &dummy, 0, &c, &s) == GS_EUSAGE && s.code == GS_EUSAGE &&
                      strstr(s.msg, tname[bad[k][0]]) && strstr(s.msg, tname[bad[k][1]]);
            }
        CHECK(ok, "scan refuses widenings other than i32->i64 u32->u64 f32->f64", "accepted or unclear message");
    }
}

/* Float sums of cpu-par depend on the chunk alone: 1, 2 and 3 threads give the same bits. */
static void test_scan_thread_independence(void)
{
    const size_t n = 5 * ((size_t)1 << 16) + 123;
    int ok = 1;
    for (int k = 0; k < 2; k++) {
        const gs_type t = k ? GS_F64 : GS_F32;
        void *x = gen(t, n / 2), *ref = xmalloc(n * 8), *out = xmalloc(n * 8);
        void *xx = xmalloc(n * esize(t)); /* finite data: the second half of gen() has inf/NaN */
        for (size_t i = 0; i < n; i++) set_bits(t, xx, i, get_bits(t, x, i % (n / 4)));
        gs_scan_params p = {t, t, GS_SCAN_SUM, 0, 0};
        gs_value c0, c;
        for (int th = 1; th <= 3; th++) {
            gs_status st = {0};
            gs_pool_stop();
            gs_pool_start(th);
            gs_scan_identity(GS_SCAN_SUM, t, &c);
            ok &= gs_scan_cpu_par(&p, xx, th == 1 ? ref : out, n, &c, &st) == GS_OK;
            if (th == 1) c0 = c;
            else ok &= memcmp(ref, out, n * esize(t)) == 0 && memcmp(&c0, &c, esize(t)) == 0;
        }
        free(x), free(xx), free(ref), free(out);
    }
    gs_pool_stop();
    gs_pool_start(0);
    CHECK(ok, "scan cpu-par float sums bit-identical with 1, 2, 3 threads", "results depend on the thread count");

    /* min/max: cpu-par equals cpu bit for bit, NaN payloads included (the first NaN wins) */
    ok = 1;
    for (int k = 0; k < 2; k++) {
        const gs_type t = k ? GS_F64 : GS_F32;
        void *x = gen(t, n), *a = xmalloc(n * 8), *b = xmalloc(n * 8);
        const size_t at[4] = {3 * 65536 + 17, 3 * 65536 + 9, 3 * 65536 + 40000, 4 * 65536 + 5};
        for (size_t j = 0; j < n; j++) /* only the NaNs placed below, with distinct payloads */
            if (el_nan(t, x, j)) set_bits(t, x, j, 0);
        for (size_t j = 0; j < 4; j++)
            set_bits(t, x, at[j], t == GS_F32 ? 0x7fc00001u + (uint32_t)j : 0xfff8000000000001ull + j);
        for (int op = GS_SCAN_MIN; op <= GS_SCAN_MAX; op++)
            for (int ex = 0; ex < 2; ex++) {
                gs_scan_params p = {t, t, (gs_scan_op)op, ex, 0};
                gs_value c1, c2;
                gs_status st = {0};
                gs_scan_identity(p.op, t, &c1), gs_scan_identity(p.op, t, &c2);
                ok &= gs_scan_cpu(&p, x, a, n, &c1, &st) == GS_OK && gs_scan_cpu_par(&p, x, b, n, &c2, &st) == GS_OK;
                ok &= memcmp(a, b, n * esize(t)) == 0 && memcmp(&c1, &c2, esize(t)) == 0;
                ok &= get_bits(t, a, n - 1) == get_bits(t, x, at[1]); /* the first NaN */
            }
        free(x), free(a), free(b);
    }
    CHECK(ok, "scan cpu-par float min/max bit-identical to cpu, first NaN payload kept", "payload or value differs");
}

/* ---- compact ---------------------------------------------------------------------------------- */
static const char *const pred_name[] = {"nonzero", "eq", "ne", "gt", "ge", "lt", "le", "range", "finite", "nan"};

/* The predicate, per its definition: compare in the element type, NaN fails comparisons. */
static int oracle_pred(const gs_compact_params *p, const void *x, size_t i)
{
    const gs_type t = p->type;
    int r;
    if (isflt(t)) {
        const double v = get_f(t, x, i), a = get_f(t, &p->a, 0), b = get_f(t, &p->b, 0);
        switch (p->pred) {
        case GS_PRED_NONZERO: r = v != 0; break;
        case GS_PRED_EQ: r = v == a; break;
        case GS_PRED_NE: r = v != a; break;
        case GS_PRED_GT: r = v > a; break;
        case GS_PRED_GE: r = v >= a; break;
        case GS_PRED_LT: r = v < a; break;
        case GS_PRED_LE: r = v <= a; break;
        case GS_PRED_RANGE: r = a <= v && v <= b; break;
        case GS_PRED_FINITE: r = isfinite(v); break;
        default: r = isnan(v); break;
        }
    } else {
        /* signed: compare as int64; unsigned: as uint64 */
        const int s = issigned(t);
        const int64_t vi = get_i(t, x, i), ai = get_i(t, &p->a, 0), bi = get_i(t, &p->b, 0);
        const uint64_t vu = get_u(t, x, i), au = get_u(t, &p->a, 0), bu = get_u(t, &p->b, 0);
        const int lt = s ? vi < ai : vu < au, gt = s ? vi > ai : vu > au, eq = vu == au;
        switch (p->pred) {
        case GS_PRED_NONZERO: r = vu != 0; break;
        case GS_PRED_EQ: r = eq; break;
        case GS_PRED_NE: r = !eq; break;
        case GS_PRED_GT: r = gt; break;
        case GS_PRED_GE: r = !lt; break;
        case GS_PRED_LT: r = lt; break;
        case GS_PRED_LE: r = !gt; break;
        case GS_PRED_RANGE: r = s ? (ai <= vi && vi <= bi) : (au <= vu && vu <= bu); break;
        case GS_PRED_FINITE: r = 1; break;
        default: r = 0; break;
        }
    }
    return r != (p->invert != 0);
}

/* Operands: values from the data (so eq hits), a <= b for range; sometimes NaN for floats. */
static void pick_operands(gs_compact_params *p, const void *x, size_t n)
{
    const gs_type t = p->type;
    memset(&p->a, 0, sizeof p->a), memset(&p->b, 0, sizeof p->b);
    if (n == 0) return;
    size_t i = rnd_below(n), j = rnd_below(n);
    for (int tries = 0; tries < 50 && (el_nan(t, x, i) || el_nan(t, x, j)); tries++) i = rnd_below(n), j = rnd_below(n);
    if (!el_nan(t, x, i) && !el_nan(t, x, j) && el_lt(t, x, j, x, i)) {
        const size_t k = i;
        i = j, j = k;
    }
    set_bits(t, &p->a, 0, get_bits(t, x, i));
    set_bits(t, &p->b, 0, get_bits(t, x, j));
}

static void test_compact(void)
{
    for (size_t si = 0; si < NSIZES; si++) {
        const size_t n = sizes[si];
        for (size_t ti = 0; ti < 6; ti++) {
            const gs_type t = all_types[ti];
            void *x = gen(t, n);
            void *exp = xmalloc(n * 8), *out = xmalloc(n * 8), *out2 = xmalloc(n * 8);
            unsigned char *keep = xmalloc(n);
            for (int pr = 0; pr <= GS_PRED_NAN; pr++) {
                gs_compact_params p = {.type = t, .pred = (gs_pred_kind)pr};
                pick_operands(&p, x, n);
                for (size_t i = 0; i < n; i++) keep[i] = (unsigned char)oracle_pred(&p, x, i);
                int ok[2] = {1, 1};
                char why[2][600] = {"", ""};
                for (int mode = 0; mode < 4; mode++) {
                    p.invert = mode & 1, p.indices = (mode >> 1) & 1;
                    const uint64_t base = p.indices ? (uint64_t)1 << 33 : 0; /* > 32 bits */
                    const size_t osz = p.indices ? 8 : esize(t);
                    size_t nexp = 0;
                    for (size_t i = 0; i < n; i++)
                        if (keep[i] != p.invert) {
                            if (p.indices) set_bits(GS_U64, exp, nexp++, base + i);
                            else set_bits(t, exp, nexp++, get_bits(t, x, i));
                        }
                    for (size_t vi = 0; vi < 2; vi++) {
                        const cpu_variant *v = &cpu_variants[vi];
                        gs_status st = {0};
                        size_t kept = SIZE_MAX;
                        if (!ok[vi]) continue;
                        if (v->compact(&p, x, n, out, base, &kept, &st) != GS_OK) {
                            ok[vi] = 0, snprintf(why[vi], sizeof why[vi], "returned an error: %s", st.msg);
                        } else if (kept != nexp || memcmp(out, exp, nexp * osz) != 0) {
                            ok[vi] = 0, snprintf(why[vi], sizeof why[vi], "invert=%d indices=%d: kept %zu, oracle %zu%s",
                                                 p.invert, p.indices, kept, nexp, kept == nexp ? ", values differ" : "");
                        } else if (n >= 1000 && (n < BIG_N || mode == 0 || mode == 3)) { /* chunked, base advancing */
                            const size_t *cyc = n < BIG_N ? small_chunk_cycle : chunk_cycle;
                            const size_t ncyc = n < BIG_N ? 4 : 6;
                            size_t off = 0, c = 0, total = 0;
                            while (off < n && ok[vi]) {
                                size_t len = cyc[c++ % ncyc], k2 = 0;
                                if (len > n - off) len = n - off;
                                if (v->compact(&p, (const char *)x + off * esize(t), len, (char *)out2 + total * osz,
                                          base + off, &k2, &st))
                                    ok[vi] = 0;
                                total += k2, off += len;
                            }
                            if (!ok[vi] || total != nexp || memcmp(out2, exp, nexp * osz) != 0)
                                ok[vi] = 0, snprintf(why[vi], sizeof why[vi], "invert=%d indices=%d: chunked run differs",
                                                     p.invert, p.indices);
                        }
                    }
                }
                for (size_t vi = 0; vi < 2; vi++) {
                    char name[160];
                    snprintf(name, sizeof name, "compact %s %s %s (x4: invert, indices) n=%zu", cpu_variants[vi].name,
                             tname[ti], pred_name[pr], n);
                    CHECK(ok[vi], name, "%s", why[vi]);
                }
                /* gs_pred_eval: the one-element reference agrees with the oracle */
                if (n == 1000) {
                    int same = 1;
                    for (int inv = 0; inv < 2; inv++) {
                        p.invert = inv, p.indices = 0;
                        for (size_t i = 0; i < n; i++)
                            same &= gs_pred_eval(&p, (const char *)x + i * esize(t)) == oracle_pred(&p, x, i);
                    }
                    char name[120];
                    snprintf(name, sizeof name, "gs_pred_eval %s %s (+invert)", tname[ti], pred_name[pr]);
                    CHECK(same, name, "disagrees with the oracle");
                }
            }
            free(x), free(exp), free(out), free(out2), free(keep);
        }
    }
}

static void test_compact_edges(void)
{
    gs_status st = {0};
    int ok = 1;
    /* NaN: fails eq/gt/range, passes ne and nonzero; finite/nan; -0.0 == 0 */
    const double x[6] = {NAN, -0.0, INFINITY, -INFINITY, 2.0, 0.0};
    struct { gs_pred_kind k; double a, b; int expect[6]; } cases[] = {
        {GS_PRED_NONZERO, 0, 0, {1, 0, 1, 1, 1, 0}}, {GS_PRED_EQ, 0, 0, {0, 1, 0, 0, 0, 1}},
        {GS_PRED_NE, 2, 0, {1, 1, 1, 1, 0, 1}},      {GS_PRED_GT, 0, 0, {0, 0, 1, 0, 1, 0}},
        {GS_PRED_LE, 0, 0, {0, 1, 0, 1, 0, 1}},      {GS_PRED_RANGE, -0.0, 2, {0, 1, 0, 0, 1, 1}},
        {GS_PRED_FINITE, 0, 0, {0, 1, 0, 0, 1, 1}},  {GS_PRED_NAN, 0, 0, {1, 0, 0, 0, 0, 0}},
        {GS_PRED_RANGE, NAN, 2, {0, 0, 0, 0, 0, 0}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t vi = 0; vi < 2; vi++) {
            gs_compact_params p = {.type = GS_F64, .pred = cases[c].k, .a.f64 = cases[c].a, .b.f64 = cases[c].b,
                                   .indices = 1};
            uint64_t idx[6];
            size_t kept = 0, ne = 0;
            ok &= cpu_variants[vi].compact(&p, x, 6, idx, 0, &kept, &st) == GS_OK;
            for (size_t i = 0; i < 6; i++)
                if (cases[c].expect[i]) ok &= ne < kept && idx[ne++] == i;
            ok &= kept == ne;
        }
    CHECK(ok, "compact f64 predicates on NaN, +-inf, -0.0", "wrong kept set");
    /* integers: finite always, nan never, extremes compare in the element type */
    ok = 1;
    const uint64_t u[3] = {UINT64_MAX, 0, 1};
    const int64_t s[3] = {INT64_MIN, -1, INT64_MAX};
    for (size_t vi = 0; vi < 2; vi++) {
        size_t kept;
        uint64_t o[3];
        gs_compact_params p = {.type = GS_U64, .pred = GS_PRED_GT, .a.u64 = 0};
        ok &= cpu_variants[vi].compact(&p, u, 3, o, 0, &kept, &st) == GS_OK && kept == 2 && o[0] == UINT64_MAX;
        p.pred = GS_PRED_FINITE;
        ok &= cpu_variants[vi].compact(&p, u, 3, o, 0, &kept, &st) == GS_OK && kept == 3;
        p.pred = GS_PRED_NAN;
        ok &= cpu_variants[vi].compact(&p, u, 3, o, 0, &kept, &st) == GS_OK && kept == 0;
        gs_compact_params q = {.type = GS_I64, .pred = GS_PRED_LT, .a.i64 = 0};
        ok &= cpu_variants[vi].compact(&q, s, 3, o, 0, &kept, &st) == GS_OK && kept == 2 && (int64_t)o[0] == INT64_MIN;
    }
    CHECK(ok, "compact integer predicates: finite always, nan never, extremes", "wrong kept set");
    /* in place, values */
    ok = 1;
    {
        const size_t n = 300000;
        for (size_t vi = 0; vi < 2; vi++) {
            int32_t *a = gen(GS_I32, n), *ref = xmalloc(n * 4);
            gs_compact_params p = {.type = GS_I32, .pred = GS_PRED_GT, .a.i32 = 0};
            size_t k1, k2;
            ok &= cpu_variants[vi].compact(&p, a, n, ref, 0, &k1, &st) == GS_OK;
            ok &= cpu_variants[vi].compact(&p, a, n, a, 0, &k2, &st) == GS_OK;
            ok &= k1 == k2 && memcmp(a, ref, k1 * 4) == 0;
            free(a), free(ref);
        }
    }
    CHECK(ok, "compact in place (in == out) equals out of place", "in-place result differs");
}

/* ---- minmax ------------------------------------------------------------------------------------ */
/* Oracle: for each window end e in [0, n), the min and max of in[max(0,e-W+1)..e] by the order
 * of ops.h (typed comparisons below), or NaN where the window holds a NaN (found by a prefix
 * count of NaNs). Direct O(W) per window when that is cheap, else doubling: ext_2k[i] =
 * op(ext_k[i], ext_k[i+k]) over windows starting at i, and a window of W = op(ext_P[s],
 * ext_P[e-P+1]) with P the largest power of two <= W (min and max are idempotent, so the two
 * halves may overlap). Kept as expected bits per end, with a NaN flag. */
typedef struct mm_expect {
    uint64_t *bmin, *bmax; /* expected bits, valid where !nan[e] */
    unsigned char *nan;
} mm_expect;

/* x[i] strictly below x[j]; -0.0 below +0.0; never called on NaN. */
typedef int (*lt_fn)(const void *x, size_t i, size_t j);
#define ORACLE_LT_INT(S, T) \
    static int lt_##S(const void *x, size_t i, size_t j) { return ((const T *)x)[i] < ((const T *)x)[j]; }
#define ORACLE_LT_FLT(S, T)                                                 \
    static int lt_##S(const void *x, size_t i, size_t j)                    \
    {                                                                       \
        const T a = ((const T *)x)[i], b = ((const T *)x)[j];               \
        return a < b || (a == b && signbit(a) && !signbit(b));              \
    }
ORACLE_LT_INT(i32, int32_t)
ORACLE_LT_INT(i64, int64_t)
ORACLE_LT_INT(u32, uint32_t)
ORACLE_LT_INT(u64, uint64_t)
ORACLE_LT_FLT(f32, float)
ORACLE_LT_FLT(f64, double)
static const lt_fn lt_of[6] = {lt_i32, lt_i64, lt_u32, lt_u64, lt_f32, lt_f64};

static mm_expect mm_oracle(gs_type t, const void *x, size_t n, uint64_t W)
{
    const lt_fn lt = lt_of[t];
    mm_expect r = {xmalloc(n * 8), xmalloc(n * 8), xmalloc(n)};
    size_t *imin = xmalloc(n * sizeof(size_t)), *imax = xmalloc(n * sizeof(size_t));
    size_t *nanc = xmalloc((n + 1) * sizeof(size_t));
    unsigned char *isn = xmalloc(n);
    nanc[0] = 0;
    for (size_t i = 0; i < n; i++) isn[i] = (unsigned char)el_nan(t, x, i), nanc[i + 1] = nanc[i] + isn[i];
    /* ends whose window is clipped at 0: running prefix (results after a NaN are overridden) */
    const size_t nclip = W - 1 < n ? (size_t)(W - 1) : n;
    size_t pmin = SIZE_MAX, pmax = SIZE_MAX;
    for (size_t e = 0; e < nclip; e++) {
        if (!isn[e]) {
            if (pmin == SIZE_MAX || lt(x, e, pmin)) pmin = e;
            if (pmax == SIZE_MAX || lt(x, pmax, e)) pmax = e;
        }
        imin[e] = pmin, imax[e] = pmax;
    }
    const size_t full = n - nclip; /* windows of exactly W elements, ends e >= W-1 */
    if (full && (double)full * (double)W <= 2e7) {
        for (size_t e = nclip; e < n; e++) {
            size_t mn = SIZE_MAX, mx = SIZE_MAX;
            for (size_t i = e + 1 - (size_t)W; i <= e; i++) {
                if (isn[i]) continue;
                if (mn == SIZE_MAX || lt(x, i, mn)) mn = i;
                if (mx == SIZE_MAX || lt(x, mx, i)) mx = i;
            }
            imin[e] = mn, imax[e] = mx;
        }
    } else if (full) {
        size_t *emin = xmalloc(n * sizeof(size_t)), *emax = xmalloc(n * sizeof(size_t));
        for (size_t i = 0; i < n; i++) emin[i] = emax[i] = i;
        size_t P = 1;
        while (2 * P <= W) { /* ext_P -> ext_2P for starts i with i + 2P <= n */
            for (size_t i = 0; i + 2 * P <= n; i++) {
                if (lt(x, emin[i + P], emin[i])) emin[i] = emin[i + P];
                if (lt(x, emax[i], emax[i + P])) emax[i] = emax[i + P];
            }
            P *= 2;
        }
        for (size_t e = nclip; e < n; e++) {
            const size_t a = e + 1 - (size_t)W, b = e + 1 - P;
            imin[e] = lt(x, emin[b], emin[a]) ? emin[b] : emin[a];
            imax[e] = lt(x, emax[a], emax[b]) ? emax[b] : emax[a];
        }
        free(emin), free(emax);
    }
    for (size_t e = 0; e < n; e++) {
        const size_t s = e + 1 > W ? e + 1 - (size_t)W : 0;
        r.nan[e] = nanc[e + 1] != nanc[s];
        r.bmin[e] = r.nan[e] ? 0 : get_bits(t, x, imin[e]);
        r.bmax[e] = r.nan[e] ? 0 : get_bits(t, x, imax[e]);
    }
    free(nanc), free(isn), free(imin), free(imax);
    return r;
}

static void mm_expect_free(mm_expect *e) { free(e->bmin), free(e->bmax), free(e->nan); }

/* got = output rows for ends e = e0 .. e0+rows-1, in the layout of `only`. First bad row or SIZE_MAX. */
static size_t mm_verify(gs_type t, const mm_expect *ex, size_t e0, size_t rows, gs_mm_only only, const void *got)
{
    const size_t cols = only == GS_MM_BOTH ? 2 : 1;
    const uint64_t *want[2] = {only == GS_MM_MAX ? ex->bmax : ex->bmin, ex->bmax};
    const int w4 = esize(t) == 4, flt = isflt(t);
    for (size_t r = 0; r < rows; r++) {
        const size_t e = e0 + r;
        for (size_t c = 0; c < cols; c++) {
            uint64_t g;
            if (w4) {
                uint32_t g4;
                memcpy(&g4, (const char *)got + 4 * (r * cols + c), 4);
                g = g4;
            } else {
                memcpy(&g, (const char *)got + 8 * (r * cols + c), 8);
            }
            if (!ex->nan[e]) {
                if (g != want[c][e]) return r;
            } else if (!flt || (w4 ? (g & 0x7fffffffu) <= 0x7f800000u
                                   : (g & 0x7fffffffffffffffull) <= 0x7ff0000000000000ull)) {
                return r; /* a NaN was due */
            }
        }
    }
    return SIZE_MAX;
}

typedef struct mm_variant {
    const char *name;
    gs_minmax_cpu_fn fn;
    int quadratic; /* O(m W): skip big cases */
} mm_variant;
static const mm_variant mm_variants[] = {
    {"cpu-naive", gs_minmax_cpu_naive, 1}, {"cpu-lemire", gs_minmax_cpu_lemire, 0}, {"cpu-vhgw", gs_minmax_cpu_vhgw, 0}};

static int mm_affordable(const mm_variant *v, size_t rows, uint64_t W, int chunked)
{
    return !v->quadratic || (double)rows * (double)(W < rows ? W : rows) <= (chunked ? 3e6 : 1e7);
}

/* Stream x through fn in chunks, as the engine does: each call gets the previous min(W-1, seen)
 * inputs as halo, then the chunk; first = halo length, plus what the stream start still lacks
 * when not partial. Output rows are appended. Returns the row count or SIZE_MAX on error. */
static size_t mm_chunked(const mm_variant *v, const gs_minmax_params *p, int partial, const void *x, size_t n,
                         const size_t *cycle, size_t ncycle, void *out)
{
    const size_t es = esize(p->type), cols = p->only == GS_MM_BOTH ? 2 : 1;
    const size_t halo_max = p->window - 1 < n ? (size_t)(p->window - 1) : n;
    char *buf = xmalloc((halo_max + n) * es + 8);
    size_t g = 0, c = 0, rows = 0;
    while (g < n) {
        size_t len = cycle[c++ % ncycle];
        if (len > n - g) len = n - g;
        const size_t h = g < halo_max ? g : halo_max, m = h + len;
        memcpy(buf, (const char *)x + (g - h) * es, m * es);
        size_t first = h;
        if (!partial && g < p->window - 1) first += (size_t)(p->window - 1) - g;
        if (first > m) first = m;
        gs_status st = {0};
        if (v->fn(p, buf, m, first, (char *)out + rows * cols * es, &st) != GS_OK) {
            free(buf);
            return SIZE_MAX;
        }
        rows += m - first, g += len;
    }
    free(buf);
    return rows;
}

static const char *const only_name[] = {"both", "min", "max"};

/* One (type, n, W) case for all variants and both alignments (first = 0 partial, W-1); the
 * min-only / max-only layouts too when all_only. */
static void mm_case(gs_type t, const void *x, size_t n, uint64_t W, const mm_expect *ex, int chunked, int all_only)
{
    const size_t es = esize(t);
    void *out = xmalloc(2 * n * es + 16), *out2 = xmalloc(2 * n * es + 16);
    for (size_t vi = 0; vi < 3; vi++) {
        const mm_variant *v = &mm_variants[vi];
        for (int partial = 1; partial >= 0; partial--) {
            const size_t first = partial ? 0 : (W - 1 < n ? (size_t)(W - 1) : n), rows = n - first;
            if (!mm_affordable(v, rows, W, chunked)) continue;
            char name[200], why[600] = "";
            snprintf(name, sizeof name, "minmax %s %s n=%zu W=%llu first=%s%s%s", v->name, tname[t], n,
                     (unsigned long long)W, partial ? "0" : "W-1", chunked ? " chunked" : "",
                     all_only ? " (both, min, max)" : "");
            int ok = 1;
            for (int only = 0; only < (all_only ? 3 : 1) && ok; only++) {
                const gs_minmax_params p = {.type = t, .window = W, .only = (gs_mm_only)only, .block = 0};
                size_t bad, got_rows = rows;
                if (chunked) {
                    got_rows = mm_chunked(v, &p, partial, x, n, n > 100000 ? chunk_cycle + 2 : small_chunk_cycle,
                                          n > 100000 ? 4 : 4, out);
                } else {
                    gs_status st = {0};
                    if (v->fn(&p, x, n, first, out, &st) != GS_OK) got_rows = SIZE_MAX;
                }
                if (got_rows != rows) {
                    ok = 0, snprintf(why, sizeof why, "only=%s: %zu rows, expected %zu", only_name[only], got_rows, rows);
                } else if ((bad = mm_verify(t, ex, first, rows, (gs_mm_only)only, out)) != SIZE_MAX) {
                    ok = 0, snprintf(why, sizeof why, "only=%s: row %zu (end %zu) differs from the oracle",
                                     only_name[only], bad, bad + first);
                }
            }
            CHECK(ok, name, "%s", why);
        }
    }
    free(out), free(out2);
}

static void test_minmax(void)
{
    for (size_t si = 0; si < NSIZES; si++) {
        const size_t n = sizes[si];
        for (size_t ti = 0; ti < 6; ti++) {
            const gs_type t = all_types[ti];
            void *x = gen(t, n);
            const uint64_t wins[] = {1, 2, 7, 500, n ? n : 1, (uint64_t)n + 1};
            for (size_t wi = 0; wi < 6; wi++) {
                if (wi >= 4 && n <= 2 && wins[wi] <= 7) continue; /* same as a window above */
                mm_expect ex = mm_oracle(t, x, n, wins[wi]);
                mm_case(t, x, n, wins[wi], &ex, 0, n < BIG_N || wi == 3);
                /* chunked, as the engine streams it; big inputs: W = 7 and 500 */
                if (n == BIG_N && (wi == 2 || wi == 3)) mm_case(t, x, n, wins[wi], &ex, 1, 0);
                mm_expect_free(&ex);
            }
            free(x);
        }
    }
    /* chunked with every window, tiny chunks and halos longer than the chunks */
    const size_t n = 20011;
    for (size_t ti = 0; ti < 6; ti++) {
        const gs_type t = all_types[ti];
        void *x = gen(t, n);
        const uint64_t wins[] = {1, 2, 7, 500, n, (uint64_t)n + 1};
        for (size_t wi = 0; wi < 6; wi++) {
            mm_expect ex = mm_oracle(t, x, n, wins[wi]);
            mm_case(t, x, n, wins[wi], &ex, 1, 1);
            mm_expect_free(&ex);
        }
        free(x);
    }
}

static void test_minmax_edges(void)
{
    gs_status st = {0};
    int ok = 1;
    /* -0.0 / +0.0 ties in either order, NaN payloads, W > m, m = 0 */
    const float x[6] = {0.0f, -0.0f, 0.0f, -0.0f, NAN, 1.0f};
    for (size_t vi = 0; vi < 3; vi++) {
        float o[12];
        gs_minmax_params p = {.type = GS_F32, .window = 2, .only = GS_MM_BOTH, .block = 0};
        ok &= mm_variants[vi].fn(&p, x, 6, 1, o, &st) == GS_OK;
        for (int r = 0; r < 3; r++) ok &= o[2 * r] == 0 && signbit(o[2 * r]) && o[2 * r + 1] == 0 && !signbit(o[2 * r + 1]);
        ok &= isnan(o[6]) && isnan(o[7]) && isnan(o[8]) && isnan(o[9]);
        ok &= mm_variants[vi].fn(&p, x, 0, 0, o, &st) == GS_OK;
        gs_minmax_params q = {.type = GS_F32, .window = 1000000000000ull, .only = GS_MM_MIN, .block = 0};
        ok &= mm_variants[vi].fn(&q, x, 4, 0, o, &st) == GS_OK && o[0] == 0 && !signbit(o[0]) && signbit(o[1]);
    }
    CHECK(ok, "minmax f32: -0.0 below +0.0 in ties, NaN windows, W far above m, m = 0", "wrong zero sign or NaN");
    ok = 1;
    for (size_t vi = 0; vi < 3; vi++) {
        gs_status s = {0};
        gs_minmax_params p = {.type = GS_I32, .window = 0, .only = GS_MM_BOTH, .block = 0};
        int32_t d = 0;
        ok &= mm_variants[vi].fn(&p, &d, 1, 0, &d, &s) == GS_EUSAGE && s.msg[0];
    }
    CHECK(ok, "minmax refuses W = 0", "accepted W = 0");
    /* one thread and several give the same vhgw output */
    ok = 1;
    {
        const size_t n = 400003;
        double *a = gen(GS_F64, n), *o1 = xmalloc(2 * n * 8), *o2 = xmalloc(2 * n * 8);
        gs_minmax_params p = {.type = GS_F64, .window = 1000, .only = GS_MM_BOTH, .block = 0};
        gs_pool_stop();
        gs_pool_start(1);
        ok &= gs_minmax_cpu_vhgw(&p, a, n, 0, o1, &st) == GS_OK;
        gs_pool_stop();
        gs_pool_start(3);
        ok &= gs_minmax_cpu_vhgw(&p, a, n, 0, o2, &st) == GS_OK;
        for (size_t i = 0; i < 2 * n; i++) ok &= (isnan(o1[i]) && isnan(o2[i])) || memcmp(&o1[i], &o2[i], 8) == 0;
        gs_pool_stop();
        gs_pool_start(0);
        free(a), free(o1), free(o2);
    }
    CHECK(ok, "minmax cpu-vhgw same with 1 and 3 threads", "depends on the thread count");
    /* W larger than the vhgw tile (multi-tile suffixes), checked against the oracle */
    ok = 1;
    {
        const size_t n = 200000;
        const uint64_t wins[] = {2047, 2048, 2049, 4097, 50001};
        for (size_t ti = 0; ti < 6 && ok; ti++)
            for (size_t wi = 0; wi < 5 && ok; wi++) {
                void *a = gen(all_types[ti], n), *o = xmalloc(2 * n * 8);
                mm_expect ex = mm_oracle(all_types[ti], a, n, wins[wi]);
                gs_minmax_params p = {.type = all_types[ti], .window = wins[wi], .only = GS_MM_BOTH, .block = 0};
                ok &= gs_minmax_cpu_vhgw(&p, a, n, 0, o, &st) == GS_OK &&
                      mm_verify(all_types[ti], &ex, 0, n, GS_MM_BOTH, o) == SIZE_MAX;
                ok &= gs_minmax_cpu_vhgw(&p, a, n, 12345, o, &st) == GS_OK &&
                      mm_verify(all_types[ti], &ex, 12345, n - 12345, GS_MM_BOTH, o) == SIZE_MAX;
                mm_expect_free(&ex), free(a), free(o);
            }
    }
    CHECK(ok, "minmax cpu-vhgw W around and above the tile size, any first", "differs from the oracle");

    /* One low spike at p and one high spike at p2 on a flat input, for every p of a block: each
     * position must reach exactly the windows that hold it, whichever tile or block it is in. */
    {
        int oks = 1;
        const size_t ws[2] = {4097, 5000};
        for (size_t k = 0; k < 2 && oks; k++) {
            const size_t W = ws[k], n = 3 * W + 5;
            int32_t *a = xmalloc(n * 4), *o = xmalloc(2 * n * 4);
            for (size_t pos = W; pos < 2 * W && oks; pos++) {
                const size_t off = (pos - W) % 2048; /* W = 5000: near the 2048-element tiles, and a sample */
                if (k == 1 && off > 3 && off < 2044 && (pos - W) % 97) continue;
                const size_t p2 = W + (pos - W + W / 3) % W;
                for (size_t i = 0; i < n; i++) a[i] = 7;
                a[pos] = -1, a[p2] = 99;
                gs_minmax_params p = {.type = GS_I32, .window = W, .only = GS_MM_BOTH, .block = 0};
                oks &= gs_minmax_cpu_vhgw(&p, a, n, 0, o, &st) == GS_OK;
                for (size_t e = 0; e < n; e++) {
                    const size_t s0 = e + 1 > W ? e + 1 - W : 0;
                    oks &= o[2 * e] == (s0 <= pos && pos <= e ? -1 : 7);
                    oks &= o[2 * e + 1] == (s0 <= p2 && p2 <= e ? 99 : 7);
                }
            }
            free(a), free(o);
        }
        CHECK(oks, "minmax cpu-vhgw: a spike at every position of a block reaches exactly its windows (W 4097, 5000)",
              "a window misses or gains the spike");
    }

    /* Structured inputs, where every output depends on one exact position (on a falling ramp the
     * max is the window's first element, the min its last), so an off-by-one anywhere in a
     * suffix, prefix, tile or expiry shows; random data hides them behind repeated extremes. */
    const size_t n = 100003;
    const uint64_t wins[] = {2, 7, 500, 2047, 2048, 2049, 4097, 50001};
    const gs_type pt[] = {GS_I32, GS_U64, GS_F32, GS_F64};
    for (int kind = 0; kind < 4; kind++) {
        static const char *const kname[] = {"rising ramp", "falling ramp", "rising saw", "falling saw"};
        int okk = 1;
        for (size_t ti = 0; ti < 4; ti++) {
            const gs_type t = pt[ti];
            void *a = xmalloc(n * 8), *o = xmalloc(2 * n * 8);
            for (size_t i = 0; i < n; i++) {
                const int64_t v = kind == 0 ? (int64_t)i : kind == 1 ? (int64_t)(n - i) : kind == 2 ? (int64_t)(i % 3001)
                                                                                           : (int64_t)(3001 - i % 2999);
                if (t == GS_F32) {
                    float f = (float)v - 50000.0f;
                    memcpy((char *)a + 4 * i, &f, 4);
                } else if (t == GS_F64) {
                    double d = (double)v - 50000.5;
                    memcpy((char *)a + 8 * i, &d, 8);
                } else {
                    set_bits(t, a, i, (uint64_t)v);
                }
            }
            for (size_t wi = 0; wi < sizeof wins / sizeof wins[0]; wi++) {
                mm_expect ex = mm_oracle(t, a, n, wins[wi]);
                const size_t firsts[3] = {0, (size_t)wins[wi] - 1, 54321};
                for (size_t vi = 1; vi < 3; vi++) /* lemire (one alignment), vhgw */
                    for (size_t fi = 0; fi < (vi == 1 ? 1 : 3); fi++) {
                        gs_minmax_params p = {.type = t, .window = wins[wi], .only = GS_MM_BOTH, .block = 0};
                        okk &= mm_variants[vi].fn(&p, a, n, firsts[fi], o, &st) == GS_OK &&
                               mm_verify(t, &ex, firsts[fi], n - firsts[fi], GS_MM_BOTH, o) == SIZE_MAX;
                    }
                mm_expect_free(&ex);
            }
            free(a), free(o);
        }
        char name[120];
        snprintf(name, sizeof name, "minmax cpu-lemire, cpu-vhgw on a %s, W 2 .. 50001, three alignments", kname[kind]);
        CHECK(okk, name, "differs from the oracle");
    }
}

/* ---- registry -------------------------------------------------------------------------------- */
static void test_registry(void)
{
    size_t n = 0;
    const gs_variant *vs = gs_variants(&n);
    int ok = vs && n >= 7 && vs[n].name == NULL;
    const char *cpu[][2] = {{"cpu", "s"},        {"cpu-par", "s"},    {"cpu", "c"},       {"cpu-par", "c"},
                            {"cpu-naive", "m"},  {"cpu-lemire", "m"}, {"cpu-vhgw", "m"}};
    for (size_t k = 0; k < 7; k++) {
        const gs_op op = cpu[k][1][0] == 's' ? GS_OP_SCAN : cpu[k][1][0] == 'c' ? GS_OP_COMPACT : GS_OP_MINMAX;
        const gs_variant *v = gs_variant_find(op, cpu[k][0]);
        ok &= v && v->where == GS_CPU && v->op == op && v->types == GS_ALL_TYPES && v->desc && v->desc[0];
    }
    ok &= gs_variant_find(GS_OP_SCAN, "cpu")->cpu.scan == gs_scan_cpu;
    ok &= gs_variant_find(GS_OP_MINMAX, "cpu-lemire")->cpu.minmax == gs_minmax_cpu_lemire;
    ok &= gs_variant_find(GS_OP_ROLLING, "cpu-sweep")->cpu.minmax == gs_rolling_cpu_sweep &&
          (gs_variant_find(GS_OP_ROLLING, "cpu-sweep")->flags & GS_V_REFERENCE) &&
          gs_variant_find(GS_OP_ROLLING, "cpu-vhgw")->cpu.minmax == gs_rolling_cpu;
    ok &= gs_variant_find(GS_OP_SCAN, "cpu-vhgw") == NULL && gs_variant_find(GS_OP_MINMAX, "nope") == NULL;
    ok &= gs_variant_find(GS_OP_SCAN, NULL) == NULL;
    CHECK(ok, "registry lists the CPU variants", "missing or wrong rows");

    ok = gs_variant_default(GS_OP_SCAN, GS_CPU) == gs_variant_find(GS_OP_SCAN, "cpu-par") &&
         gs_variant_default(GS_OP_COMPACT, GS_CPU) == gs_variant_find(GS_OP_COMPACT, "cpu-par") &&
         gs_variant_default(GS_OP_MINMAX, GS_CPU) == gs_variant_find(GS_OP_MINMAX, "cpu-vhgw");
    int refs = 0, defaults_per_op[GS_OP_ROLLING + 1][2] = {{0}};
    for (size_t i = 0; i < n; i++) {
        refs += (vs[i].flags & GS_V_REFERENCE) != 0;
        if (vs[i].flags & GS_V_DEFAULT) defaults_per_op[vs[i].op][vs[i].where]++;
    }
    ok &= refs == 4 && defaults_per_op[GS_OP_ROLLING][GS_CPU] == 1 && defaults_per_op[GS_OP_ROLLING][GS_GPU] <= 1;
    for (int o = 0; o < 3; o++) ok &= defaults_per_op[o][GS_CPU] == 1 && defaults_per_op[o][GS_GPU] <= 1;
#ifdef GS_HAVE_CUDA
    ok &= gs_variant_default(GS_OP_SCAN, GS_GPU) == gs_variant_find(GS_OP_SCAN, "lookback") &&
          gs_variant_default(GS_OP_COMPACT, GS_GPU) == gs_variant_find(GS_OP_COMPACT, "lookback") &&
          gs_variant_default(GS_OP_MINMAX, GS_GPU) == gs_variant_find(GS_OP_MINMAX, "vhgw");
#else
    ok &= gs_variant_default(GS_OP_SCAN, GS_GPU) == NULL && n == 9;
#endif
    CHECK(ok, "registry: one default per op and backend, cpu-par/cpu-par/cpu-vhgw on CPU", "wrong defaults");

    gs_status st = {0};
    const gs_variant *sc = gs_variant_find(GS_OP_SCAN, "cpu-par");
    gs_scan_params sp = {GS_I32, GS_I64, GS_SCAN_MAX, 1, 0};
    ok = gs_variant_check_scan(sc, &sp, &st) == GS_OK;
    sp.out_type = GS_F64;
    ok &= gs_variant_check_scan(sc, &sp, &st) == GS_EUSAGE && strstr(st.msg, "f64") != NULL;
    gs_compact_params cp = {.type = GS_F32, .pred = GS_PRED_RANGE, .invert = 1, .indices = 1};
    ok &= gs_variant_check_compact(gs_variant_find(GS_OP_COMPACT, "cpu"), &cp, &st) == GS_OK;
    gs_minmax_params mp = {.type = GS_U64, .window = 0, .only = GS_MM_BOTH, .block = 0};
    gs_status st2 = {0};
    ok &= gs_variant_check_minmax(gs_variant_find(GS_OP_MINMAX, "cpu-vhgw"), &mp, &st2) == GS_EUSAGE;
    mp.window = 5;
    gs_status st3 = {0};
    ok &= gs_variant_check_minmax(gs_variant_find(GS_OP_MINMAX, "cpu-vhgw"), &mp, &st3) == GS_OK;
    /* a variant without a type names it and points at info */
    gs_variant narrow = *gs_variant_find(GS_OP_SCAN, "cpu");
    narrow.types = GS_TYPE_BIT(GS_I32);
    narrow.flags &= ~(unsigned)GS_V_EXCLUSIVE;
    gs_status st4 = {0}, st5 = {0};
    gs_scan_params np = {GS_I64, GS_I64, GS_SCAN_SUM, 0, 0};
    ok &= gs_variant_check_scan(&narrow, &np, &st4) == GS_EUSAGE && strstr(st4.msg, "'cpu'") &&
          strstr(st4.msg, "i64") && strstr(st4.msg, "gpustream info");
    np.type = np.out_type = GS_I32, np.exclusive = 1;
    ok &= gs_variant_check_scan(&narrow, &np, &st5) == GS_EUSAGE && strstr(st5.msg, "exclusive");
    CHECK(ok, "registry checks: widenings, predicates, window, unsupported type message", "wrong verdict or message");
}

/* Threads per block: each GPU row takes its default and exactly the sizes of its mask, and refuses
 * the others with a message that names what it takes; cub and the CPU rows take none. */
static int check_one_block(const gs_variant *v, int block, gs_status *st)
{
    gs_scan_params sp = {GS_I32, GS_I32, GS_SCAN_SUM, 0, block};
    gs_compact_params cp = {.type = GS_I32, .pred = GS_PRED_NONZERO, .block = block};
    gs_minmax_params mp = {.type = GS_I32, .window = 5, .only = GS_MM_BOTH, .block = block};
    return v->op == GS_OP_SCAN      ? gs_variant_check_scan(v, &sp, st)
           : v->op == GS_OP_COMPACT ? gs_variant_check_compact(v, &cp, st)
                                    : gs_variant_check_minmax(v, &mp, st);
}

static void test_registry_blocks(void)
{
    char buf[64];
    int ok = !strcmp(gs_blocks_str(GS_BLOCKS_ANY, buf, sizeof buf), "32, 64, 128, 256, 512, 1024") &&
             !strcmp(gs_blocks_str(GS_BLOCKS_TPL, buf, sizeof buf), "64, 128, 256, 512") &&
             !strcmp(gs_blocks_str(0, buf, sizeof buf), "none") && gs_block_valid(32) && gs_block_valid(1024) &&
             !gs_block_valid(0) && !gs_block_valid(16) && !gs_block_valid(100) && !gs_block_valid(2048) &&
             !gs_block_valid(-64) && GS_BLOCK_BIT(32) == 1u && GS_BLOCK_BIT(1024) == 32u && GS_BLOCK_BIT(100) == 0u;
    CHECK(ok, "block sizes: powers of two from 32 to 1024, as text", "%s", buf);
    size_t n = 0;
    const gs_variant *vs = gs_variants(&n);
    const int sizes[] = {32, 64, 128, 256, 512, 1024, 16, 48, 100, 2048};
    for (size_t i = 0; i < n; i++) {
        const gs_variant *v = &vs[i];
        char name[96], why[192] = "";
        snprintf(name, sizeof name, "registry blocks: %s %s %s", gs_op_name(v->op), v->where == GS_GPU ? "gpu" : "cpu",
                 v->name);
        gs_status st = {0};
        /* CPU variants, CUB and the rolling rows launch at their own shapes */
        const int fixed = v->where == GS_CPU || !strcmp(v->name, "cub") || v->op == GS_OP_ROLLING;
        ok = fixed ? v->blocks == 0 && v->block_default == 0
             : GS_HAVE_TUNING ? (v->blocks & ~GS_BLOCKS_ANY) == 0 && (v->blocks & GS_BLOCK_BIT(v->block_default)) != 0
                              : v->blocks == 0 && gs_block_valid(v->block_default); /* the tuned launch only */
        ok &= check_one_block(v, 0, &st) == GS_OK && gs_variant_block(v, 0) == v->block_default;
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0] && ok; k++) {
            const int b = sizes[k], want = (v->blocks & GS_BLOCK_BIT(b)) != 0;
            gs_status bs = {0};
            const int rc = check_one_block(v, b, &bs);
            ok &= want ? rc == GS_OK && gs_variant_block_ok(v, b) && gs_variant_block(v, b) == b
                       : rc == GS_EUSAGE && !gs_variant_block_ok(v, b) && strstr(bs.msg, v->name) != NULL &&
                             strstr(bs.msg, fixed            ? "takes no block size"
                                            : GS_HAVE_TUNING ? gs_blocks_str(v->blocks, buf, sizeof buf)
                                                             : "make TUNING=1") != NULL;
            if (!ok) snprintf(why, sizeof why, "block %d: rc %d, '%.120s'", b, rc, bs.msg);
        }
        CHECK(ok, name, "blocks 0x%x default %d: %s", v->blocks, v->block_default, why);
    }
#ifdef GS_HAVE_CUDA
    const gs_variant *lb = gs_variant_find(GS_OP_SCAN, "lookback"), *nv = gs_variant_find(GS_OP_SCAN, "naive"),
                     *vh = gs_variant_find(GS_OP_MINMAX, "vhgw");
    gs_status st = {0};
    gs_scan_params sp = {GS_I32, GS_I32, GS_SCAN_SUM, 0, 32};
    if (GS_HAVE_TUNING)
        ok = lb->blocks == GS_BLOCKS_TPL && nv->blocks == GS_BLOCKS_ANY &&
             vh->blocks == (GS_BLOCK_BIT(64) | GS_BLOCK_BIT(128) | GS_BLOCK_BIT(256)) &&
             gs_variant_check_scan(lb, &sp, &st) == GS_EUSAGE &&
             !strcmp(st.msg, "variant 'lookback' does not take 32 threads per block (it accepts 64, 128, 256, 512)");
    else
        ok = lb->blocks == 0 && nv->blocks == 0 && vh->blocks == 0 && gs_variant_check_scan(lb, &sp, &st) == GS_EUSAGE &&
             !strcmp(st.msg, "variant 'lookback' runs 128 threads per block in this build (asked for 32; other sizes: "
                             "make TUNING=1)");
    ok &= lb->block_default == 128 && nv->block_default == 256 && vh->block_default == 128;
    CHECK(ok, "registry blocks: lookback 64-512 (default 128), naive 32-1024 (256), vhgw 64-256 (make TUNING=1; "
              "else the defaults only)", "%s", st.msg);
#endif
}

/* bench --block: which runs each variant gets (gs_bench_plan, shared by the bench and its notes) */
static void test_bench_plan(void)
{
    gs_bench_opts o;
    memset(&o, 0, sizeof o);
    o.ops = 1u << GS_OP_SCAN;
    int b[GS_BENCH_MAXBLOCKS];
    const gs_variant *cpu = gs_variant_find(GS_OP_SCAN, "cpu-par"), *mm = gs_variant_find(GS_OP_MINMAX, "cpu-vhgw");
    int ok = gs_bench_plan(&o, 0, cpu, b) == 1 && b[0] == 0 && gs_bench_plan(&o, 0, mm, b) == 0 &&
             gs_bench_plan(&o, 1, cpu, b) == 0;
    o.blocks[0] = 64, o.blocks[1] = 32, o.nblocks = 2;
    ok &= gs_bench_plan(&o, 0, cpu, b) == 1 && b[0] == 0; /* CPU variants: one run as usual */
    o.algos = "cpu";
    ok &= gs_bench_plan(&o, 0, cpu, b) == 0 && gs_bench_plan(&o, 0, gs_variant_find(GS_OP_SCAN, "cpu"), b) == 1;
#ifdef GS_HAVE_CUDA
    o.algos = "lookback,naive";
    const gs_variant *lb = gs_variant_find(GS_OP_SCAN, "lookback"), *nv = gs_variant_find(GS_OP_SCAN, "naive"),
                     *cub = gs_variant_find(GS_OP_SCAN, "cub"), *bs = gs_variant_find(GS_OP_SCAN, "blelloch-smem");
    if (!GS_HAVE_TUNING) /* a default build: every GPU variant once, at its tuned launch */
        ok &= gs_bench_plan(&o, 1, lb, b) == 1 && b[0] == 0 && gs_bench_plan(&o, 1, nv, b) == 1 && b[0] == 0;
    else
        ok &= gs_bench_plan(&o, 1, lb, b) == 1 && b[0] == 64 &&                  /* 32: not a lookback size */
              gs_bench_plan(&o, 1, nv, b) == 2 && b[0] == 64 && b[1] == 32;     /* the listed order */
    ok &= gs_bench_plan(&o, 1, cub, b) == 1 && b[0] == 0;                         /* the reference, once */
    ok &= gs_bench_plan(&o, 1, bs, b) == 0 && gs_bench_plan(&o, 0, lb, b) == 0; /* not selected; not GPU mode */
    o.blocks[0] = 32, o.nblocks = 1;
    ok &= gs_bench_plan(&o, 1, lb, b) == 1 && b[0] == 0; /* accepts none of them: its default */
    o.nblocks = 0;
    ok &= gs_bench_plan(&o, 1, nv, b) == 1 && b[0] == 0;
#endif
    CHECK(ok, "bench plan: each listed block size a GPU variant accepts, else one run at its default", "wrong plan");
}

int main(void)
{
    const char *s = getenv("GS_TEST_SEED");
    const uint64_t seed = s ? strtoull(s, NULL, 0) : 20261121u;
    rng_state = seed;
    printf("# test_kernels seed %llu (set GS_TEST_SEED to change)\n", (unsigned long long)seed);
    gs_pool_start(0);
    test_scan_identity();
    test_scan();
    test_scan_edges();
    test_scan_thread_independence();
    test_compact();
    test_compact_edges();
    test_minmax();
    test_minmax_edges();
    test_registry();
    test_registry_blocks();
    test_bench_plan();
    gs_pool_stop();
    return CHECK_DONE();
}
