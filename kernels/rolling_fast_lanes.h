/* rolling_fast_lanes.h - the lane work of kernels/rolling_fast.c for RF_L tiles side by side,
 * included there once per lane count (RF_L, and RF_N naming the functions of that count): the sum
 * family runs RF_LS lanes, the var family RF_LV (its Welford step is a long chain: more lanes in
 * flight). Only rolling_fast.c includes it, after its types and state helpers. */

/* x[i][l] = src[off[l] + step * i] for i in [0, len) */
RF_INLINE void RF_N(rf_gather)(const double *src, const int64_t *off, int64_t step, int64_t len, double x[][RF_L])
{
    for (int64_t i = 0; i < len; i++)
        for (int l = 0; l < RF_L; l++) x[i][l] = src[off[l] + step * i];
}
/* x[i][l] = src[off[l] + i] for i in [0, len): 4 x 4 blocks, then the rows left one at a time */
RF_INLINE void RF_N(rf_load)(const double *src, const int64_t *off, int64_t len, double x[][RF_L])
{
    int64_t i = 0;
    for (; i + 4 <= len; i += 4)
        for (int l = 0; l < RF_L; l += 4) {
            const double *const s[4] = {src + off[l] + i, src + off[l + 1] + i, src + off[l + 2] + i, src + off[l + 3] + i};
            double *const d[4] = {&x[i][l], &x[i + 1][l], &x[i + 2][l], &x[i + 3][l]};
            rf_tr4(d, s);
        }
    for (; i < len; i++)
        for (int l = 0; l < RF_L; l++) x[i][l] = src[off[l] + i];
}

/* The totals of RF_L tiles of len values starting at in[p[l]], into *out[l]. */
static RF_WIDE void RF_N(rf_tot)(const rf_ctx *c, int64_t len, const int64_t *p, rf_st *const *out)
{
    _Alignas(64) double x[RF_T][RF_L];
    double a0[RF_L], a1[RF_L], a2[RF_L];
    rf_st id;
    rf_init(c->var, &id);
    RF_N(rf_load)(c->in, p, len, x);
    RF_PREFETCH(c, p[RF_L - 1] + RF_T, RF_L * RF_T); /* the next tiles in order: this is the first read */
    for (int l = 0; l < RF_L; l++) rf_get(c->var, &id, &a0[l], &a1[l], &a2[l]);
    if (c->var) {
        for (int64_t i = 0; i < len; i++)
            for (int l = 0; l < RF_L; l++) gs_rs_var_step(&a0[l], &a1[l], &a2[l], x[i][l], c->rn[i + 1]);
    } else {
        double s[RF_L], e[RF_L]; /* the chains in registers */
        for (int l = 0; l < RF_L; l++) s[l] = a0[l], e[l] = a1[l];
        for (int64_t i = 0; i < len; i++)
            for (int l = 0; l < RF_L; l++) gs_rs_twosum(&s[l], &e[l], x[i][l]);
        for (int l = 0; l < RF_L; l++) a0[l] = s[l], a1[l] = e[l];
    }
    for (int l = 0; l < RF_L; l++) rf_put(c->var, out[l], a0[l], a1[l], a2[l], (uint64_t)len);
}

/* o[i][l] = column agg's value of v[i][l] (the sum, or the variance) for i < len, as written (NaN
 * canonical): one loop per aggregate, each free of branches */
RF_INLINE void RF_N(rf_col)(int agg, uint64_t n, int64_t len, double v[][RF_L], double o[][RF_L])
{
    if (agg == GS_AGG_MEAN) {
        for (int64_t i = 0; i < len; i++)
            for (int l = 0; l < RF_L; l++) o[i][l] = gs_rs_canon(gs_rs_sum_col(GS_AGG_MEAN, v[i][l], n));
    } else if (agg == GS_AGG_STD) {
        for (int64_t i = 0; i < len; i++)
            for (int l = 0; l < RF_L; l++) o[i][l] = gs_rs_canon(gs_rs_var_col(GS_AGG_STD, v[i][l]));
    } else { /* sum, var: the value itself */
        for (int64_t i = 0; i < len; i++)
            for (int l = 0; l < RF_L; l++) o[i][l] = gs_rs_canon(v[i][l]);
    }
}

/* Column f of the lanes' rows: o[i][l] for i < len at rows pe[l] - first + i. */
RF_INLINE void RF_N(rf_write)(const rf_ctx *c, int f, int64_t len, const int64_t *pe, double o[][RF_L])
{
    const gs_rs_cols *cols = c->cols;
    if (cols->otype == GS_F32) { /* as gs_rs_put_f writes it */
        float *out = (float *)(void *)cols->out + cols->col[f];
        for (int l = 0; l < RF_L; l++) {
            float *r = out + (uint64_t)(pe[l] - c->first) * cols->k;
            for (int64_t i = 0; i < len; i++) r[(uint64_t)i * cols->k] = gs_rs_f32(o[i][l]);
        }
        return;
    }
    double *out = (double *)(void *)cols->out + cols->col[f];
    if (cols->k == 1) { /* rows of one value: 4 x 4 blocks, then the rows left one at a time */
        int64_t i = 0;
        for (; i + 4 <= len; i += 4)
            for (int l = 0; l < RF_L; l += 4) {
                const double *const s[4] = {o[i] + l, o[i + 1] + l, o[i + 2] + l, o[i + 3] + l};
                double *const d[4] = {out + (pe[l] - c->first) + i, out + (pe[l + 1] - c->first) + i,
                                      out + (pe[l + 2] - c->first) + i, out + (pe[l + 3] - c->first) + i};
                rf_tr4(d, s);
            }
        for (; i < len; i++)
            for (int l = 0; l < RF_L; l++) out[pe[l] - c->first + i] = o[i][l];
        return;
    }
    for (int l = 0; l < RF_L; l++) {
        double *r = out + (uint64_t)(pe[l] - c->first) * cols->k;
        for (int64_t i = 0; i < len; i++) r[(uint64_t)i * cols->k] = o[i][l];
    }
}

/* For lanes of tiles at block offsets kq[l]: re[i][l] = 1/n of the prefix to kq[l] + i (n = kq[l] +
 * i + 1), rs[i][l] = 1/n of the suffix from there (n = W - kq[l] - i), nf[i][l] = nafb there. Lanes
 * of one tile index share the values; lanes of consecutive tiles read rows of c->tp, ts, tn; others
 * gather them. */
RF_INLINE void RF_N(rf_factors)(const rf_ctx *c, int64_t len, const int64_t *kq, double re[][RF_L], double rs[][RF_L],
                          double nf[][RF_L])
{
    int same = 1, rows = c->tp != NULL && RF_L == RF_LV;
    for (int l = 1; l < RF_L; l++) same &= kq[l] == kq[0], rows &= kq[l] == kq[0] + l * RF_T;
    const int64_t k0 = kq[0];
    if (same) {
        for (int64_t i = 0; i < len; i++)
            for (int l = 0; l < RF_L; l++)
                re[i][l] = c->rn[k0 + i + 1], rs[i][l] = c->rn[c->W - k0 - i], nf[i][l] = c->nafb[k0 + i];
    } else if (rows) {
        for (int64_t i = 0; i < len; i++)
            for (int l = 0; l < RF_L; l++) {
                const int64_t r = (k0 + i) * RF_L + l;
                re[i][l] = c->tp[r], rs[i][l] = c->ts[r], nf[i][l] = c->tn[r];
            }
    } else {
        int64_t o[RF_L];
        for (int l = 0; l < RF_L; l++) o[l] = kq[l] + 1;
        RF_N(rf_gather)(c->rn, o, 1, len, re);
        for (int l = 0; l < RF_L; l++) o[l] = c->W - kq[l];
        RF_N(rf_gather)(c->rn, o, -1, len, rs);
        RF_N(rf_gather)(c->nafb, kq, 1, len, nf);
    }
}

/* The windows of the sum family's ends i < n (n <= len - 1) from the prefixes to them (a chain from
 * (a0, a1) through xe[i]) and the suffixes s[i + 1] after them: v[i] their sums, o[i] column agg's
 * value of them (agg: sum or mean, a constant where inlined). */
RF_INLINE void RF_N(rf_ends_s)(int agg, uint64_t W, int64_t n, double *a0, double *a1, double xe[][RF_L],
                              double s0[][RF_L], double s1[][RF_L], double v[][RF_L], double o[][RF_L])
{
    for (int64_t i = 0; i < n; i++)
        for (int l = 0; l < RF_L; l++) {
            double t, e;
            gs_rs_twosum(&a0[l], &a1[l], xe[i][l]);
            gs_rs_sum2(s0[i + 1][l], s1[i + 1][l], a0[l], a1[l], &t, &e);
            v[i][l] = gs_rs_sum_value(t, e);
            o[i][l] = gs_rs_canon(gs_rs_sum_col(agg, v[i][l], W));
        }
}
/* the same for the var family (var or std): the prefixes' factors re, the merges' nf */
RF_INLINE void RF_N(rf_ends_v)(int agg, double dof, int64_t n, double *a0, double *a1, double *a2, double xe[][RF_L],
                              double re[][RF_L], double nf[][RF_L], double s0[][RF_L], double s1[][RF_L],
                              double s2[][RF_L], double v[][RF_L], double o[][RF_L])
{
    for (int64_t i = 0; i < n; i++)
        for (int l = 0; l < RF_L; l++) {
            gs_rs_var_step(&a0[l], &a1[l], &a2[l], xe[i][l], re[i][l]);
            const double d = gs_rs_var_d(s0[i + 1][l], s1[i + 1][l], a0[l], a1[l]);
            v[i][l] = gs_rs_var_val(gs_rs_var_m2(s2[i + 1][l], a2[l], d, nf[i][l]), dof);
            o[i][l] = gs_rs_canon(gs_rs_var_col(agg, v[i][l]));
        }
}

/* RF_L tiles of len ends, each at local pe[l] with block offset kq[l] = 32k: prefixes from
 * ptb[l], the last end's from pta[l]; suffixes in the block before from stn[l]. A block's last
 * tiles (last) have no suffix at their last end: the block's whole prefix is its window. First the
 * suffixes s[j] from 32k + j in the block before (s[len] = ST from the next tile on, the identity
 * past a block's last tile), then the prefixes to each end with the end's window, its value and
 * the first column's, in one pass; the other columns from the values. */
static RF_WIDE void RF_N(rf_group)(const rf_ctx *c, int64_t len, int last, const int64_t *pe, const int64_t *kq,
                              rf_st *const *ptb, rf_st *const *pta, rf_st *const *stn)
{
    _Alignas(64) double xe[RF_T][RF_L], xs[RF_T][RF_L], re[RF_T][RF_L], rs[RF_T][RF_L], nf[RF_T][RF_L];
    _Alignas(64) double s0[RF_T + 1][RF_L], s1[RF_T + 1][RF_L], s2[RF_T + 1][RF_L], v[RF_T][RF_L];
    double a0[RF_L], a1[RF_L], a2[RF_L], b0[RF_L], b1[RF_L], b2[RF_L];
    int64_t o[RF_L];
    const int var = c->var, agg = c->cols->agg[0];
    for (int l = 0; l < RF_L && !var; l++) /* the rows' lines, for writing, while the sums are taken */
        RF_PREFETCHW(c->cols->out + (uint64_t)(pe[l] - c->first) * c->cols->k * c->cols->osz,
                     (uint64_t)len * c->cols->k * c->cols->osz);
    RF_N(rf_load)(c->in, pe, len, xe);
    for (int l = 0; l < RF_L; l++) o[l] = pe[l] - c->W + 1;
    RF_N(rf_load)(c->in, o, len - 1, xs); /* xs[i - 1]: the block before's value at 32k + i */
    if (var) RF_N(rf_factors)(c, len, kq, re, rs, nf);
    for (int l = 0; l < RF_L; l++) {
        rf_get(var, ptb[l], &a0[l], &a1[l], &a2[l]);
        rf_get(var, stn[l], &b0[l], &b1[l], &b2[l]);
        s0[len][l] = b0[l], s1[len][l] = b1[l], s2[len][l] = b2[l];
    }
    if (var) {
        for (int64_t j = len - 1; j >= 1; j--)
            for (int l = 0; l < RF_L; l++) {
                gs_rs_var_step(&b0[l], &b1[l], &b2[l], xs[j - 1][l], rs[j][l]);
                s0[j][l] = b0[l], s1[j][l] = b1[l], s2[j][l] = b2[l];
            }
        /* the ends before the last; xs's rows are free for the first column */
        if (agg == GS_AGG_STD) RF_N(rf_ends_v)(GS_AGG_STD, c->dof, len - 1, a0, a1, a2, xe, re, nf, s0, s1, s2, v, xs);
        else RF_N(rf_ends_v)(GS_AGG_VAR, c->dof, len - 1, a0, a1, a2, xe, re, nf, s0, s1, s2, v, xs);
        for (int l = 0; l < RF_L; l++) { /* the last end: its prefix is PT through the tile */
            const gs_rs_var p = pta[l]->v;
            if (last) v[len - 1][l] = gs_rs_var_value(p, c->cols->ddof);
            else {
                const double d = gs_rs_var_d(s0[len][l], s1[len][l], p.mean, p.ml);
                v[len - 1][l] = gs_rs_var_val(gs_rs_var_m2(s2[len][l], p.m2, d, nf[len - 1][l]), c->dof);
            }
        }
    } else {
        for (int64_t j = len - 1; j >= 1; j--)
            for (int l = 0; l < RF_L; l++) {
                gs_rs_twosum(&b0[l], &b1[l], xs[j - 1][l]);
                s0[j][l] = b0[l], s1[j][l] = b1[l];
            }
        if (agg == GS_AGG_MEAN) RF_N(rf_ends_s)(GS_AGG_MEAN, (uint64_t)c->W, len - 1, a0, a1, xe, s0, s1, v, xs);
        else RF_N(rf_ends_s)(GS_AGG_SUM, (uint64_t)c->W, len - 1, a0, a1, xe, s0, s1, v, xs);
        for (int l = 0; l < RF_L; l++) {
            const gs_rs_sumf p = pta[l]->s;
            if (last) v[len - 1][l] = gs_rs_sumf_value(p);
            else {
                double t, e;
                gs_rs_sum2(s0[len][l], s1[len][l], p.s, p.c, &t, &e);
                v[len - 1][l] = gs_rs_sum_value(t, e);
            }
        }
    }
    RF_N(rf_col)(agg, (uint64_t)c->W, 1, &v[len - 1], &xs[len - 1]);
    RF_N(rf_write)(c, 0, len, pe, xs);
    for (int f = 1; f < c->cols->nf; f++) {
        RF_N(rf_col)(c->cols->agg[f], (uint64_t)c->W, len, v, xs);
        RF_N(rf_write)(c, f, len, pe, xs);
    }
}
