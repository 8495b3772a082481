/* rolling_fast_lanes.h - the lane work of kernels/rolling_fast.c for RF_L tiles side by side,
 * included there once per lane count (RF_L, and RF_N naming the functions of that count): the sum
 * family runs RF_LS lanes, the var family RF_LV (its Welford step is a long chain: more lanes in
 * flight). Only rolling_fast.c includes it, after its types and state helpers. */

/* x[i][l] = src[off[l] + step * i] for i in [0, len) */
RF_INLINE void RF_N(rf_gather)(const double *src, const int64_t *off, int64_t step, int64_t len, double x[][RF_L])
{
    int64_t i0 = 0;
#if defined(RF_VEC) && RF_L == RF_LV /* for 8 lanes (the sum family) the loads one by one were faster */
    if (step == 1) /* 8 consecutive values of 8 lanes at a time, turned over */
        for (; i0 + 8 <= len; i0 += 8)
            for (int l0 = 0; l0 < RF_L; l0 += 8) {
                const double *s[8];
                double *d[8];
                for (int j = 0; j < 8; j++) s[j] = src + off[l0 + j] + i0, d[j] = &x[i0 + j][l0];
                rf_t8(s, d);
            }
#endif
    for (int64_t i = i0; i < len; i++)
        for (int l = 0; l < RF_L; l++) x[i][l] = src[off[l] + step * i];
}

/* The totals of RF_L tiles of len values starting at in[p[l]], into *out[l]. */
static RF_WIDE void RF_N(rf_tot)(const rf_ctx *c, int64_t len, const int64_t *p, rf_st *const *out)
{
    _Alignas(64) double x[RF_T][RF_L];
    double a0[RF_L], a1[RF_L], a2[RF_L];
    rf_st id;
    rf_init(c->var, &id);
    RF_N(rf_gather)(c->in, p, 1, len, x);
    RF_PREFETCH(c, p[RF_L - 1] + RF_T, RF_L * RF_T); /* the next tiles in order: this is the first read */
    for (int l = 0; l < RF_L; l++) rf_get(c->var, &id, &a0[l], &a1[l], &a2[l]);
    if (c->var) {
        for (int64_t i = 0; i < len; i++)
            for (int l = 0; l < RF_L; l++) gs_rs_var_step(&a0[l], &a1[l], &a2[l], x[i][l], c->rn[i + 1]);
    } else {
        for (int64_t i = 0; i < len; i++)
            for (int l = 0; l < RF_L; l++) gs_rs_twosum(&a0[l], &a1[l], x[i][l]);
    }
    for (int l = 0; l < RF_L; l++) rf_put(c->var, out[l], a0[l], a1[l], a2[l], (uint64_t)len);
}

/* The lanes' rows: v[i][l] for i < len (the sum, or the variance) into each of the family's columns. */
RF_INLINE void RF_N(rf_store)(const rf_ctx *c, int64_t len, const int64_t *pe, double v[][RF_L], double o[][RF_L])
{
    const gs_rs_cols *cols = c->cols;
    for (int f = 0; f < cols->nf; f++) {
        const int agg = cols->agg[f];
        const uint64_t n = (uint64_t)c->W;
        /* one loop per aggregate, each free of branches */
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
        if (cols->otype == GS_F32) { /* as gs_rs_put_f writes it */
            float *out = (float *)(void *)cols->out + cols->col[f];
            for (int l = 0; l < RF_L; l++) {
                float *r = out + (uint64_t)(pe[l] - c->first) * cols->k;
                for (int64_t i = 0; i < len; i++) r[(uint64_t)i * cols->k] = gs_rs_f32(o[i][l]);
            }
            continue;
        }
        double *out = (double *)(void *)cols->out + cols->col[f];
        int64_t i0 = 0;
#ifdef RF_VEC
        if (cols->k == 1) /* one column: 8 rows of 8 lanes at a time, turned over */
            for (; i0 + 8 <= len; i0 += 8)
                for (int l0 = 0; l0 < RF_L; l0 += 8) {
                    const double *s[8];
                    double *d[8];
                    for (int j = 0; j < 8; j++) s[j] = &o[i0 + j][l0], d[j] = out + (uint64_t)(pe[l0 + j] - c->first) + i0;
                    rf_t8(s, d);
                }
#endif
        for (int l = 0; l < RF_L; l++) {
            double *r = out + (uint64_t)(pe[l] - c->first) * cols->k;
            for (int64_t i = i0; i < len; i++) r[(uint64_t)i * cols->k] = o[i][l];
        }
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

/* RF_L tiles of len ends, each at local pe[l] with block offset kq[l] = 32k: prefixes from
 * ptb[l], the last end's from pta[l]; suffixes in the block before from stn[l]. A block's last
 * tiles (last) have no suffix at their last end: the block's whole prefix is its window. The
 * families' loops are apart so that each is one straight run of vector operations. */
static RF_WIDE void RF_N(rf_group)(const rf_ctx *c, int64_t len, int last, const int64_t *pe, const int64_t *kq,
                              rf_st *const *ptb, rf_st *const *pta, rf_st *const *stn)
{
    _Alignas(64) double xe[RF_T][RF_L], xs[RF_T][RF_L], re[RF_T][RF_L], rs[RF_T][RF_L], nf[RF_T][RF_L];
    _Alignas(64) double p0[RF_T][RF_L], p1[RF_T][RF_L], p2[RF_T][RF_L];
    _Alignas(64) double s0[RF_T + 1][RF_L], s1[RF_T + 1][RF_L], s2[RF_T + 1][RF_L];
    double a0[RF_L], a1[RF_L], a2[RF_L], b0[RF_L], b1[RF_L], b2[RF_L];
    int64_t o[RF_L];
    const int var = c->var;
    const int64_t nm = last ? len - 1 : len; /* ends whose window is suffix (+) prefix */
    for (int l = 0; l < RF_L; l++) RF_PREFETCH_OUT(c, pe[l], len);
    RF_N(rf_gather)(c->in, pe, 1, len, xe);
    for (int l = 0; l < RF_L; l++) o[l] = pe[l] - c->W + 1;
    RF_N(rf_gather)(c->in, o, 1, len - 1, xs); /* xs[i - 1]: the block before's value at 32k + i */
    if (var) RF_N(rf_factors)(c, len, kq, re, rs, nf);
    /* prefixes p[i] to 32k + i from ptb (p[len - 1] = PT through the tile), and side by side the
     * suffixes s[j] from 32k + j in the block before (s[len] = ST from the next tile on, the
     * identity past a block's last tile): two chains in flight */
    for (int l = 0; l < RF_L; l++) {
        rf_get(var, ptb[l], &a0[l], &a1[l], &a2[l]);
        rf_get(var, stn[l], &b0[l], &b1[l], &b2[l]);
        s0[len][l] = b0[l], s1[len][l] = b1[l], s2[len][l] = b2[l];
    }
    if (var) {
        for (int64_t i = 0, j = len - 1; i < len; i++, j--) {
            for (int l = 0; l < RF_L; l++) {
                gs_rs_var_step(&a0[l], &a1[l], &a2[l], xe[i][l], re[i][l]);
                p0[i][l] = a0[l], p1[i][l] = a1[l], p2[i][l] = a2[l];
            }
            if (j >= 1)
                for (int l = 0; l < RF_L; l++) {
                    gs_rs_var_step(&b0[l], &b1[l], &b2[l], xs[j - 1][l], rs[j][l]);
                    s0[j][l] = b0[l], s1[j][l] = b1[l], s2[j][l] = b2[l];
                }
        }
    } else {
        for (int64_t i = 0, j = len - 1; i < len; i++, j--) {
            for (int l = 0; l < RF_L; l++) {
                gs_rs_twosum(&a0[l], &a1[l], xe[i][l]);
                p0[i][l] = a0[l], p1[i][l] = a1[l];
            }
            if (j >= 1)
                for (int l = 0; l < RF_L; l++) {
                    gs_rs_twosum(&b0[l], &b1[l], xs[j - 1][l]);
                    s0[j][l] = b0[l], s1[j][l] = b1[l];
                }
        }
    }
    for (int l = 0; l < RF_L; l++) rf_get(var, pta[l], &p0[len - 1][l], &p1[len - 1][l], &p2[len - 1][l]);
    /* each end's window: the suffix from its start (+) the prefix to it; its sum or variance */
    if (var) {
        for (int64_t i = 0; i < nm; i++)
            for (int l = 0; l < RF_L; l++) {
                const double d = gs_rs_var_d(s0[i + 1][l], s1[i + 1][l], p0[i][l], p1[i][l]);
                xe[i][l] = gs_rs_var_val(gs_rs_var_m2(s2[i + 1][l], p2[i][l], d, nf[i][l]), c->dof);
            }
        if (last)
            for (int l = 0; l < RF_L; l++) xe[len - 1][l] = gs_rs_var_value(pta[l]->v, c->cols->ddof);
    } else {
        for (int64_t i = 0; i < nm; i++)
            for (int l = 0; l < RF_L; l++) {
                double t, e;
                gs_rs_sum2(s0[i + 1][l], s1[i + 1][l], p0[i][l], p1[i][l], &t, &e);
                xe[i][l] = gs_rs_sum_value(t, e);
            }
        if (last)
            for (int l = 0; l < RF_L; l++) xe[len - 1][l] = gs_rs_sumf_value(pta[l]->s);
    }
    RF_N(rf_store)(c, len, pe, xe, xs);
}


/* Short windows (W <= RF_SHORT_W, one tile a block: no totals nor chains): RF_L whole blocks side
 * by side from local jb0, one in each lane. Each end's window is the suffix of the block before
 * from its start (folded from that block's end) (+) its own block's prefix to it; a block's last
 * end, its whole prefix. */
RF_INLINE void RF_N(rf_short_lanes)(const rf_ctx *c, int64_t jb0, const int W)
{
    _Alignas(64) double xs[RF_SHORT_W][RF_L], xe[RF_SHORT_W][RF_L], o[RF_SHORT_W][RF_L];
    _Alignas(64) double s0[RF_SHORT_W][RF_L], s1[RF_SHORT_W][RF_L], s2[RF_SHORT_W][RF_L];
    double a0[RF_L], a1[RF_L], a2[RF_L];
    int64_t pe[RF_L];
    for (int l = 0; l < RF_L; l++) pe[l] = jb0 + (int64_t)l * W;
    RF_PREFETCH_OUT(c, jb0, RF_L * W); /* the lanes' blocks are consecutive */
    for (int k = 0; k + 1 < W; k++) /* the block before's value k + 1 from its end */
        for (int l = 0; l < RF_L; l++) xs[k][l] = c->in[pe[l] - 1 - k];
    for (int k = 0; k < W; k++)
        for (int l = 0; l < RF_L; l++) xe[k][l] = c->in[pe[l] + k];
    if (c->var) {
        for (int l = 0; l < RF_L; l++) a0[l] = 0.0, a1[l] = 0.0, a2[l] = 0.0;
        for (int k = 0; k + 1 < W; k++) /* s[k]: the suffix of k + 1 values */
            for (int l = 0; l < RF_L; l++) {
                gs_rs_var_step(&a0[l], &a1[l], &a2[l], xs[k][l], c->rn[k + 1]);
                s0[k][l] = a0[l], s1[k][l] = a1[l], s2[k][l] = a2[l];
            }
        for (int l = 0; l < RF_L; l++) a0[l] = 0.0, a1[l] = 0.0, a2[l] = 0.0;
        for (int r = 0; r < W; r++) { /* the end at block offset r: the prefix of r + 1 values */
            const int ns = W - 1 - r;
            for (int l = 0; l < RF_L; l++) {
                gs_rs_var_step(&a0[l], &a1[l], &a2[l], xe[r][l], c->rn[r + 1]);
                if (ns) {
                    const double d = gs_rs_var_d(s0[ns - 1][l], s1[ns - 1][l], a0[l], a1[l]);
                    o[r][l] = gs_rs_var_val(gs_rs_var_m2(s2[ns - 1][l], a2[l], d, c->nafb[r]), c->dof);
                } else {
                    o[r][l] = gs_rs_var_val(a2[l], c->dof);
                }
            }
        }
    } else {
        for (int l = 0; l < RF_L; l++) a0[l] = -0.0, a1[l] = 0.0;
        for (int k = 0; k + 1 < W; k++)
            for (int l = 0; l < RF_L; l++) {
                gs_rs_twosum(&a0[l], &a1[l], xs[k][l]);
                s0[k][l] = a0[l], s1[k][l] = a1[l];
            }
        for (int l = 0; l < RF_L; l++) a0[l] = -0.0, a1[l] = 0.0;
        for (int r = 0; r < W; r++) {
            const int ns = W - 1 - r;
            for (int l = 0; l < RF_L; l++) {
                gs_rs_twosum(&a0[l], &a1[l], xe[r][l]);
                double t = a0[l], e = a1[l];
                if (ns) gs_rs_sum2(s0[ns - 1][l], s1[ns - 1][l], a0[l], a1[l], &t, &e);
                o[r][l] = gs_rs_sum_value(t, e);
            }
        }
    }
    RF_N(rf_store)(c, W, pe, o, xs);
}

/* nb whole blocks from local jb, nb a multiple of RF_L: rf_short_lanes with W a constant up to 4
 * (5 for var: all its windows here) (with a few values a block, the loops' own work is most of
 * it: W = 1 took 7x the time with W read at run time) */
static RF_WIDE void RF_N(rf_short)(const rf_ctx *c, int64_t jb, int64_t nb)
{
    const int W = (int)c->W;
#define RF_SHORT_CASE(w)                                                                             \
    case w:                                                                                          \
        for (int64_t b = 0; b < nb; b += RF_L) RF_N(rf_short_lanes)(c, jb + b * (w), w);              \
        break;
    switch (W) {
        RF_SHORT_CASE(1)
        RF_SHORT_CASE(2)
        RF_SHORT_CASE(3)
        RF_SHORT_CASE(4)
#if RF_L == RF_LS /* the sum family's windows from 5 on (the var family's end at RF_SHORT_VAR = 5) */
    default:
        for (int64_t b = 0; b < nb; b += RF_L) RF_N(rf_short_lanes)(c, jb + b * W, W);
        break;
#else
        RF_SHORT_CASE(5)
    default: break;
#endif
    }
#undef RF_SHORT_CASE
}
