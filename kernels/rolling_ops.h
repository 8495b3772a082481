/* rolling_ops.h - the states rolling aggregates merge, shared by the CPU and GPU kernels so both
 * compute the same function. Every state is only added to and merged, never subtracted from:
 *   sumf   (s, c, n)        a float sum with its TwoSum compensation (values in f64)
 *   sumi   (s, n)           an exact 128-bit integer sum
 *   var    (n, mean, M2)    Welford's update, Chan's merge (the mean in double-double): M2 never
 *                           negative, exactly 0 on equal values
 *   min/max (key, pos, n)   an order key (NaN lowest for min, highest for max: it wins) and the
 *                           absolute position of the first extreme
 *   cnt    (all, valid)     values in the window and those that are not NaN
 * "add" puts one value on the right of a state (a prefix growing), "addl" on its left (a suffix
 * growing backwards); merge(a, b) has a's values before b's. Products that feed a sum go through
 * GS_DMUL so that the device never contracts them into an FMA (the host has none by default). */
#ifndef GS_ROLLING_OPS_H
#define GS_ROLLING_OPS_H

#include <stdint.h>

#include "ops.h"

/* Values per tile: block prefixes and suffixes are folded tile by tile, and tile totals merged in
 * order (rolling_cpu.c says how), so that the GPU computes each tile on its own thread and still
 * gives the CPU's bits. */
#define GS_ROLL_TILE ((size_t)32)
/* Tiles per group: a block's chains of tile totals run in two levels, over groups of this many
 * tiles and inside each group from the group's edge (rolling_cpu.c says how), so that the GPU's
 * longest chain is W / 1024 merges rather than W / 32. */
#define GS_ROLL_GROUP ((size_t)32)
/* Whether PT before tile k of a block of M tiles is rebased (PT a group before (+) that group's
 * left total) rather than PT before tile k - 1 (+) tile k - 1's total; whether ST from tile m on is
 * rebased (its group's right total (+) ST past the group) rather than tile m's total (+) ST from
 * m + 1. Neither is within the first and the last group. */
GS_HD int gs_roll_pt_rebased(uint64_t k, uint64_t M) { return k % GS_ROLL_GROUP == 0 && k > 0 && k < M; }
GS_HD int gs_roll_st_rebased(uint64_t m, uint64_t M) { return m % GS_ROLL_GROUP == 0 && m + GS_ROLL_GROUP < M; }

/* a product never contracted into an FMA with the sum it feeds */
GS_HD double gs_rs_mul(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}
#define GS_DMUL(a, b) gs_rs_mul((a), (b))

#ifdef __GNUC__
__extension__ typedef __int128 gs_i128;
#else
typedef __int128 gs_i128;
#endif

/* ---- order keys of floats --------------------------------------------------------------------
 * The IEEE bits with the magnitude bits flipped for negative numbers order as signed integers,
 * -0.0 just below +0.0. NaN becomes the lowest key in the min chain and the highest in the max
 * chain, and maps back to a NaN (the same bits whatever NaN came in). */
GS_HD int32_t gs_fkey_f32(float x)
{
    union { float f; uint32_t u; } c;
    c.f = x;
    c.u ^= (0u - (c.u >> 31)) >> 1;
    return (int32_t)c.u;
}
GS_HD float gs_funkey_f32(int32_t k)
{
    union { float f; uint32_t u; } c;
    c.u = (uint32_t)k;
    c.u ^= (0u - (c.u >> 31)) >> 1;
    return c.f;
}
GS_HD int64_t gs_fkey_f64(double x)
{
    union { double f; uint64_t u; } c;
    c.f = x;
    c.u ^= (0ull - (c.u >> 63)) >> 1;
    return (int64_t)c.u;
}
GS_HD double gs_funkey_f64(int64_t k)
{
    union { double f; uint64_t u; } c;
    c.u = (uint64_t)k;
    c.u ^= (0ull - (c.u >> 63)) >> 1;
    return c.f;
}
#define GS_KEY_PINF_F32 ((int32_t)0x7f800000)          /* key(+inf) */
#define GS_KEY_NINF_F32 (-(int32_t)0x7f800001)         /* key(-inf) */
#define GS_KEY_PINF_F64 ((int64_t)0x7ff0000000000000)  /* key(+inf) */
#define GS_KEY_NINF_F64 (-(int64_t)0x7ff0000000000001) /* key(-inf) */
GS_HD int32_t gs_kmin_f32(float x) { const int32_t k = gs_fkey_f32(x); return k > GS_KEY_PINF_F32 ? INT32_MIN : k; }
GS_HD int32_t gs_kmax_f32(float x) { const int32_t k = gs_fkey_f32(x); return k < GS_KEY_NINF_F32 ? INT32_MAX : k; }
GS_HD int64_t gs_kmin_f64(double x) { const int64_t k = gs_fkey_f64(x); return k > GS_KEY_PINF_F64 ? INT64_MIN : k; }
GS_HD int64_t gs_kmax_f64(double x) { const int64_t k = gs_fkey_f64(x); return k < GS_KEY_NINF_F64 ? INT64_MAX : k; }

GS_HD int gs_rs_finite(double x) { return x - x == 0.0; }
GS_HD double gs_rs_nan(void)
{
    union { double f; uint64_t u; } c;
    c.u = 0x7ff8000000000000ull;
    return c.f;
}

/* ---- float sum: TwoSum compensation ------------------------------------------------------------ */
typedef struct gs_rs_sumf {
    double s, c; /* running sum and the exact rounding errors summed; the value is s + c */
    uint64_t n;
} gs_rs_sumf;
GS_HD void gs_rs_sumf_init(gs_rs_sumf *a) { a->s = -0.0, a->c = 0.0, a->n = 0; }
/* The steps on the bare doubles, which the CPU's f64 sweep (rolling_fast.c) also runs eight tiles
 * side by side: (s, c) += x, and (as, ac) (+) (bs, bc). */
GS_HD void gs_rs_twosum(double *s, double *c, double x)
{
    const double t = *s + x, z = t - *s;
    *c += (*s - (t - z)) + (x - z);
    *s = t;
}
GS_HD void gs_rs_sum2(double as, double ac, double bs, double bc, double *rs, double *rc)
{
    const double t = as + bs, z = t - as;
    *rc = (ac + bc) + ((as - (t - z)) + (bs - z));
    *rs = t;
}
/* inf and NaN come out as the plain sum has them (the compensation is meaningless there); adding
 * -0.0 leaves every s as it is, so there is no branch */
GS_HD double gs_rs_sum_value(double s, double c) { return s + (gs_rs_finite(s) && c != 0.0 ? c : -0.0); }
GS_HD void gs_rs_sumf_add(gs_rs_sumf *a, double x)
{
    gs_rs_twosum(&a->s, &a->c, x);
    a->n++;
}
GS_HD gs_rs_sumf gs_rs_sumf_merge(gs_rs_sumf a, gs_rs_sumf b)
{
    gs_rs_sumf r;
    gs_rs_sum2(a.s, a.c, b.s, b.c, &r.s, &r.c);
    r.n = a.n + b.n;
    return r;
}
GS_HD double gs_rs_sumf_value(gs_rs_sumf a) { return gs_rs_sum_value(a.s, a.c); }

/* ---- integer sum: exact in 128 bits ------------------------------------------------------------ */
typedef struct gs_rs_sumi {
    gs_i128 s;
    uint64_t n;
} gs_rs_sumi;
GS_HD void gs_rs_sumi_init(gs_rs_sumi *a) { a->s = 0, a->n = 0; }
GS_HD void gs_rs_sumi_add(gs_rs_sumi *a, gs_i128 x) { a->s += x, a->n++; }
GS_HD gs_rs_sumi gs_rs_sumi_merge(gs_rs_sumi a, gs_rs_sumi b)
{
    gs_rs_sumi r;
    r.s = a.s + b.s;
    r.n = a.n + b.n;
    return r;
}

/* ---- variance: Welford's update, Chan's merge ------------------------------------------------- *
 * The mean is kept as an unevaluated pair mean + ml (double-double), so that x - mean is exact to
 * a rounding of the difference, not of the mean: for data near 1e9 with unit noise a plain double
 * mean is off by ~1e-7, which a plain Welford update carries into the variance's 7th digit. */
typedef struct gs_rs_var {
    double mean, ml, m2;
    uint64_t n;
} gs_rs_var;
GS_HD void gs_rs_var_init(gs_rs_var *a) { a->mean = 0.0, a->ml = 0.0, a->m2 = 0.0, a->n = 0; }
/* x - (hi + lo), its rounding error folded in */
GS_HD double gs_rs_dd_diff(double x, double hi, double lo)
{
    const double t = x - hi, z = t - x;
    const double e = (x - (t - z)) - (hi + z);
    return t + (e - lo);
}
/* (hi, lo) += q, renormalised */
GS_HD void gs_rs_dd_add(double *hi, double *lo, double q)
{
    const double s = *hi + q, z = s - *hi;
    const double e = (*hi - (s - z)) + (q - z);
    const double l = *lo + e, h = s + l;
    *lo = l - (h - s);
    *hi = h;
}
/* The steps on the bare doubles (as the sums'): Welford's update of (mean, ml, m2) by the value x
 * that makes n values, rn = 1/n (off the chain of means), with d = x - mean before it and M2 grown
 * by d^2 (n-1)/n (= d (x - mean after it), without a second double-double difference: 23 double
 * operations a step instead of 29); Chan's merge of a's (mean, ml) with b's:
 * the difference of the means d, and M2 from both M2s, d and nafb = a.n * b.n / (a.n + b.n). */
GS_HD void gs_rs_var_step(double *mean, double *ml, double *m2, double x, double rn)
{
    const double d = gs_rs_dd_diff(x, *mean, *ml);
    gs_rs_dd_add(mean, ml, GS_DMUL(d, rn));
    *m2 += GS_DMUL(GS_DMUL(d, d), 1.0 - rn);
}
GS_HD double gs_rs_var_d(double am, double aml, double bm, double bml) { return gs_rs_dd_diff(bm, am, aml) + bml; }
GS_HD double gs_rs_var_m2(double am2, double bm2, double d, double nafb) { return (am2 + bm2) + GS_DMUL(GS_DMUL(d, d), nafb); }
/* M2 / dof, dof = n - ddof; NaN where dof <= 0 */
GS_HD double gs_rs_var_val(double m2, double dof) { return dof > 0.0 ? m2 / dof : gs_rs_nan(); }
GS_HD void gs_rs_var_add(gs_rs_var *a, double x)
{
    a->n++;
    gs_rs_var_step(&a->mean, &a->ml, &a->m2, x, 1.0 / (double)a->n);
}
GS_HD gs_rs_var gs_rs_var_merge(gs_rs_var a, gs_rs_var b)
{
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    gs_rs_var r;
    r.n = a.n + b.n;
    const double d = gs_rs_var_d(a.mean, a.ml, b.mean, b.ml), fb = (double)b.n / (double)r.n;
    r.mean = a.mean, r.ml = a.ml;
    gs_rs_dd_add(&r.mean, &r.ml, GS_DMUL(d, fb));
    r.m2 = gs_rs_var_m2(a.m2, b.m2, d, GS_DMUL((double)a.n, fb));
    return r;
}
GS_HD double gs_rs_var_value(gs_rs_var a, int ddof) { return gs_rs_var_val(a.m2, (double)a.n - (double)ddof); }

/* ---- min, max with positions -------------------------------------------------------------------- */
typedef struct gs_rs_ext {
    int64_t k;
    uint64_t p, n;
} gs_rs_ext;
GS_HD void gs_rs_ext_init(gs_rs_ext *a) { a->k = 0, a->p = 0, a->n = 0; }
/* min: a new value on the right replaces only a lower one (the first extreme stays); on the left
 * it replaces an equal one too. */
GS_HD void gs_rs_min_add(gs_rs_ext *a, int64_t k, uint64_t p)
{
    if (a->n == 0 || k < a->k) a->k = k, a->p = p;
    a->n++;
}
GS_HD void gs_rs_min_addl(gs_rs_ext *a, int64_t k, uint64_t p)
{
    if (a->n == 0 || k <= a->k) a->k = k, a->p = p;
    a->n++;
}
GS_HD gs_rs_ext gs_rs_min_merge(gs_rs_ext a, gs_rs_ext b)
{
    gs_rs_ext r = (a.n == 0 || (b.n != 0 && b.k < a.k)) ? b : a;
    r.n = a.n + b.n;
    return r;
}
GS_HD void gs_rs_max_add(gs_rs_ext *a, int64_t k, uint64_t p)
{
    if (a->n == 0 || k > a->k) a->k = k, a->p = p;
    a->n++;
}
GS_HD void gs_rs_max_addl(gs_rs_ext *a, int64_t k, uint64_t p)
{
    if (a->n == 0 || k >= a->k) a->k = k, a->p = p;
    a->n++;
}
GS_HD gs_rs_ext gs_rs_max_merge(gs_rs_ext a, gs_rs_ext b)
{
    gs_rs_ext r = (a.n == 0 || (b.n != 0 && b.k > a.k)) ? b : a;
    r.n = a.n + b.n;
    return r;
}

/* ---- count ------------------------------------------------------------------------------------ */
typedef struct gs_rs_cnt {
    uint64_t all, valid;
} gs_rs_cnt;
GS_HD void gs_rs_cnt_init(gs_rs_cnt *a) { a->all = 0, a->valid = 0; }
GS_HD gs_rs_cnt gs_rs_cnt_merge(gs_rs_cnt a, gs_rs_cnt b)
{
    gs_rs_cnt r;
    r.all = a.all + b.all;
    r.valid = a.valid + b.valid;
    return r;
}

#endif
