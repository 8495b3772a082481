/* rolling_rows.h - a window's states (rolling_ops.h) into its row of output columns, shared by the
 * CPU and GPU kernels so that both write the same bits: each aggregate's value in its column's
 * type (gs_agg_type), converted to the type every column is written in as gs_convert converts
 * (saturating, NaN -> 0 in integers), NaN where the window has fewer than min_periods values. */
#ifndef GS_ROLLING_ROWS_H
#define GS_ROLLING_ROWS_H

#include <math.h>
#include <string.h>

#include "kernels.h"
#include "rolling_ops.h"

/* The columns one family writes, and where. */
typedef struct gs_rs_cols {
    char *out;        /* row r starts at out + r * k * osz */
    uint64_t k, osz;  /* columns per row, bytes per value */
    uint64_t mp;      /* min_periods */
    int otype, in;    /* gs_type written, input type */
    int ddof, nf;     /* nf: this family's columns */
    int col[GS_ROLL_COLS_MAX];
    unsigned char agg[GS_ROLL_COLS_MAX];   /* gs_agg of col[i] */
    unsigned char ctype[GS_ROLL_COLS_MAX]; /* gs_type of col[i] */
} gs_rs_cols;

/* The families of states, one pass each (CPU and GPU alike), and the family of an aggregate. */
enum { GS_RS_FAM_SUM, GS_RS_FAM_VAR, GS_RS_FAM_CNT, GS_RS_FAM_MIN, GS_RS_FAM_MAX, GS_RS_NFAM };
/* Whether a family's chains of tile totals run in two levels, over groups of GS_ROLL_GROUP tiles
 * (rolling_cpu.c's sweep): var's, whose merge is a long dependent step, so that a chain of W/32 of
 * them no longer bounds the GPU at long windows (H200, std at W = 10^6: 11.3 ms against 16.1);
 * the others' chains are cheap, and stay plain on every backend. */
#define GS_RS_GROUPED(fam) ((fam) == GS_RS_FAM_VAR)
static inline int gs_rs_family(int a)
{
    return a == GS_AGG_SUM || a == GS_AGG_MEAN  ? GS_RS_FAM_SUM
           : a == GS_AGG_VAR || a == GS_AGG_STD ? GS_RS_FAM_VAR
           : a == GS_AGG_COUNT                  ? GS_RS_FAM_CNT
           : a == GS_AGG_MIN || a == GS_AGG_ARGMIN ? GS_RS_FAM_MIN
                                                   : GS_RS_FAM_MAX;
}

/* The columns of p's rows at out that family fam writes (c->nf = 0: none), each in its
 * gs_agg_type. */
static inline void gs_rs_family_cols(const gs_minmax_params *p, int fam, void *out, gs_rs_cols *c)
{
    const int missing = gs_roll_missing(p);
    memset(c, 0, sizeof *c);
    c->out = (char *)out;
    c->k = (uint64_t)p->nagg;
    c->osz = gs_type_size(p->out_type);
    c->mp = p->min_periods;
    c->otype = p->out_type;
    c->in = p->type;
    c->ddof = p->ddof;
    for (int k = 0; k < p->nagg; k++) {
        if (gs_rs_family(p->agg[k]) != fam) continue;
        c->col[c->nf] = k;
        c->agg[c->nf] = (unsigned char)p->agg[k];
        c->ctype[c->nf++] = (unsigned char)gs_agg_type((gs_agg)p->agg[k], p->type, missing);
    }
}

/* A value of column type ct (kind 0: si, 1: ui, 2: f; f32 columns hold f rounded to f32) stored as
 * type ot: gs_convert's rules. */
GS_HD void gs_rs_store(char *dst, int ot, int ct, int64_t si, uint64_t ui, double f, float f32)
{
    const int kind = ct == GS_I32 || ct == GS_I64 ? 0 : ct == GS_U32 || ct == GS_U64 ? 1 : 2;
    if (ct == GS_F32 && ot == GS_F32) { /* the bits as they are (a NaN's included) */
        *(float *)dst = f32;
        return;
    }
    if (ct == GS_F32) f = f32 != f32 ? gs_rs_nan() : (double)f32; /* one NaN on the host and the device */
    switch (ot) {
    case GS_I32:
        *(int32_t *)dst = kind == 0 ? (int32_t)(si < INT32_MIN ? INT32_MIN : si > INT32_MAX ? INT32_MAX : si)
                          : kind == 1 ? (int32_t)(ui > INT32_MAX ? INT32_MAX : ui)
                          : f != f ? 0 : f <= (double)INT32_MIN ? INT32_MIN : f >= (double)INT32_MAX ? INT32_MAX : (int32_t)f;
        break;
    case GS_I64:
        *(int64_t *)dst = kind == 0 ? si : kind == 1 ? (int64_t)(ui > INT64_MAX ? INT64_MAX : ui)
                          : f != f ? 0 : f <= -9223372036854775808.0 ? INT64_MIN
                          : f >= 9223372036854775807.0 ? INT64_MAX : (int64_t)f;
        break;
    case GS_U32:
        *(uint32_t *)dst = kind == 0 ? (uint32_t)(si < 0 ? 0 : si > UINT32_MAX ? UINT32_MAX : si)
                           : kind == 1 ? (uint32_t)(ui > UINT32_MAX ? UINT32_MAX : ui)
                           : (f != f || f <= 0) ? 0 : f >= 4294967295.0 ? UINT32_MAX : (uint32_t)f;
        break;
    case GS_U64:
        *(uint64_t *)dst = kind == 0 ? (uint64_t)(si < 0 ? 0 : si) : kind == 1 ? ui
                           : (f != f || f <= 0) ? 0 : f >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)f;
        break;
    case GS_F32: *(float *)dst = kind == 0 ? (float)si : kind == 1 ? (float)ui : (float)f; break;
    default:
        if (kind == 2 && ct == GS_F64) { /* the bits as they are */
            union { double d; uint64_t u; } b;
            b.d = f;
            *(uint64_t *)dst = b.u;
        } else {
            *(double *)dst = kind == 0 ? (double)si : kind == 1 ? (double)ui : f;
        }
        break;
    }
}

GS_HD char *gs_rs_at(const gs_rs_cols *c, uint64_t row, int i) { return c->out + (row * c->k + (uint64_t)c->col[i]) * c->osz; }
/* a NaN as the quiet NaN with the sign clear, whatever bits the arithmetic left (they differ
 * between the CPU and the GPU) */
GS_HD double gs_rs_canon(double d) { return d != d ? gs_rs_nan() : d; }
/* d in an f32 column: rounded once, a NaN as the one quiet f32 NaN */
GS_HD float gs_rs_f32(double d)
{
    union { float f; uint32_t u; } q;
    if (d != d) q.u = 0x7fc00000u;
    else q.f = (float)d;
    return q.f;
}
/* the value of a sum-family column (sum or mean) from the sum s of n values, and of a var-family
 * column (var or std) from the variance v */
GS_HD double gs_rs_sum_col(int agg, double s, uint64_t n) { return agg == GS_AGG_SUM ? s : s / (double)n; }
GS_HD double gs_rs_var_col(int agg, double v) { return agg == GS_AGG_VAR ? v : sqrt(v); }
/* a float result in column i (an f32 column rounds it), a NaN as gs_rs_canon writes it */
GS_HD void gs_rs_put_f(const gs_rs_cols *c, uint64_t row, int i, double d)
{
    d = gs_rs_canon(d);
    if (c->ctype[i] == GS_F64 && c->otype == GS_F64) { /* the common case, as gs_rs_store writes it */
        *(double *)gs_rs_at(c, row, i) = d;
        return;
    }
    gs_rs_store(gs_rs_at(c, row, i), c->otype, c->ctype[i] == GS_F32 ? GS_F32 : GS_F64, 0, 0, d, gs_rs_f32(d));
}
/* an integer result in column i (an f64 column, one that may hold NaN, takes it as a double) */
GS_HD void gs_rs_put_u(const gs_rs_cols *c, uint64_t row, int i, uint64_t u)
{
    if (c->ctype[i] == GS_F64) gs_rs_put_f(c, row, i, (double)u);
    else gs_rs_store(gs_rs_at(c, row, i), c->otype, GS_U64, 0, u, 0.0, 0.0f);
}

GS_HD void gs_rs_row_sumf(const gs_rs_cols *c, uint64_t row, gs_rs_sumf a)
{
    const int miss = a.n < c->mp;
    const double s = a.n ? gs_rs_sumf_value(a) : 0.0; /* an empty sum (--min-periods 0) is +0, as pandas */
    for (int i = 0; i < c->nf; i++)
        gs_rs_put_f(c, row, i, miss ? gs_rs_nan() : gs_rs_sum_col(c->agg[i], s, a.n));
}
/* (double)s, the nearest f64; from 64 bits where s fits them (the same value: the conversion from
 * 128 bits is a call into the compiler's library) */
GS_HD double gs_rs_i128_f64(gs_i128 s)
{
    const int64_t t = (int64_t)s;
    return (gs_i128)t == s ? (double)t : (double)s;
}
GS_HD void gs_rs_row_sumi(const gs_rs_cols *c, uint64_t row, gs_rs_sumi a)
{
    const int miss = a.n < c->mp;
    for (int i = 0; i < c->nf; i++) {
        if (miss) gs_rs_put_f(c, row, i, gs_rs_nan());
        else if (c->agg[i] == GS_AGG_MEAN) gs_rs_put_f(c, row, i, gs_rs_i128_f64(a.s) / (double)a.n);
        else if (c->ctype[i] == GS_F64) gs_rs_put_f(c, row, i, gs_rs_i128_f64(a.s));
        else { /* wraps as integer sums do: i64 and u64 share the bits */
            const uint64_t u = (uint64_t)a.s;
            gs_rs_store(gs_rs_at(c, row, i), c->otype, c->ctype[i], (int64_t)u, u, 0.0, 0.0f);
        }
    }
}
GS_HD void gs_rs_row_var(const gs_rs_cols *c, uint64_t row, gs_rs_var a)
{
    const int miss = a.n < c->mp;
    const double v = gs_rs_var_value(a, c->ddof);
    for (int i = 0; i < c->nf; i++) gs_rs_put_f(c, row, i, miss ? gs_rs_nan() : gs_rs_var_col(c->agg[i], v));
}
GS_HD void gs_rs_row_cnt(const gs_rs_cols *c, uint64_t row, gs_rs_cnt a)
{
    const int miss = a.all < c->mp; /* as pandas: the window's length, NaN included */
    for (int i = 0; i < c->nf; i++) {
        if (miss) gs_rs_put_f(c, row, i, gs_rs_nan());
        else gs_rs_put_u(c, row, i, a.valid);
    }
}
/* min or max (the value from its key, in the input type) and argmin or argmax */
GS_HD void gs_rs_row_ext(const gs_rs_cols *c, uint64_t row, gs_rs_ext a)
{
    const int miss = a.n < c->mp || a.n == 0;
    for (int i = 0; i < c->nf; i++) {
        if (miss) gs_rs_put_f(c, row, i, gs_rs_nan());
        else if (c->agg[i] == GS_AGG_ARGMIN || c->agg[i] == GS_AGG_ARGMAX) gs_rs_put_u(c, row, i, a.p);
        else {
            int64_t si = 0;
            uint64_t ui = 0;
            double f = 0.0;
            float f32 = 0.0f;
            switch (c->in) {
            case GS_I32: si = (int32_t)a.k; break;
            case GS_I64: si = a.k; break;
            case GS_U32: ui = (uint32_t)a.k; break;
            case GS_U64: ui = (uint64_t)a.k ^ (UINT64_C(1) << 63); break;
            case GS_F32: f32 = gs_funkey_f32((int32_t)a.k); f = (double)f32; break;
            default: f = gs_funkey_f64(a.k); break;
            }
            const int ct = c->ctype[i];
            if (ct == GS_F64 && c->in != GS_F64) /* a column that may hold NaN */
                gs_rs_store(gs_rs_at(c, row, i), c->otype, GS_F64, 0, 0,
                            c->in == GS_I32 || c->in == GS_I64 ? (double)si
                            : c->in == GS_F32 ? (f32 != f32 ? gs_rs_nan() : f) : (double)ui, 0.0f);
            else gs_rs_store(gs_rs_at(c, row, i), c->otype, c->in, si, ui, f, f32);
        }
    }
}

#endif
