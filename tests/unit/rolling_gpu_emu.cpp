/* tests/unit/rolling_gpu_emu.cpp - the GPU rolling kernels (kernels/rolling_vhgw.cuh) run on the
 * host, one thread index after another, against the CPU kernel (gs_rolling_cpu), byte for byte:
 * every family, type, W (1 to larger than the chunk), first output, stream position (base) and
 * NaN mode. The index arithmetic and the order of the merges are what a machine without a GPU can
 * check; tests/gpu/test_rolling_gpu.sh checks the device itself. Built and run by
 * tests/cli/test_rolling.sh (clang++ -O2, or g++ -O0: see there) with the CPU objects.
 * Prints PASS/FAIL lines. */
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__ __restrict
#include <stdint.h>
struct gs_emu_idx {
    unsigned x;
};
static gs_emu_idx blockIdx, threadIdx, blockDim;

#include "kernels/rolling_vhgw.cuh"
#include "kernels/rolling_vhgw_short.cuh"
#include "kernels/rolling_vhgw_warp.cuh"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <type_traits>
#include <vector>

static int npass, nfail;

/* one launch: every index in turn */
template <class K> static void launch(uint64_t n, K k)
{
    blockDim.x = 128;
    for (uint64_t i = 0; i < n; i++) {
        blockIdx.x = (unsigned)(i / 128);
        threadIdx.x = (unsigned)(i % 128);
        k();
    }
}

static int nwarp_slots, nfuse_blocks, nshort_ends; /* what the warp and short paths took, over every case */
static uint64_t ngroup_blocks; /* blocks whose chains ran in two levels (var, more than RS_GR tiles) */

/* rs_out_short_k of rolling_vhgw.cu, on the host: each step for every thread of a launch block
 * before the next (rs_short_launch's choice of W too) */
template <class F, int W = 1> static void emu_short(const RsGrid &g, const double *in, const gs_rs_cols &cols)
{
    if constexpr (W <= (int)RsShort<F>::wmax) {
        if (g.W != (uint64_t)W) return emu_short<F, W + 1>(g, in, cols);
        std::vector<double> x(RS_SHORT_BUF);
        const uint64_t ends = (g.fast_hi - g.fast_lo) * g.W;
        for (uint64_t bi = 0; bi * RS_SHORT_ENDS < ends; bi++) {
            const int64_t e0 = rs_short_e0(g, bi);
            const int n = rs_short_n(g, e0);
            std::fill(x.begin(), x.end(), NAN); /* a read of what no thread wrote shows */
            for (int t = 0; t < RS_SHORT_THREADS; t++) rs_short_load(g, x.data(), in, e0, n, t);
            for (int t = 0; t < n; t++) rs_short_end<F, W>(g, x.data(), e0, t, cols);
            nshort_ends += n;
        }
    }
}

/* rs_out_warp_k of rolling_vhgw.cu, on the host: each step for every lane before the next */
static void emu_warp(const RsGrid &g, const double *in, const gs_rs_sumf *pt, const gs_rs_sumf *st,
                     const gs_rs_sumf *tots, double *out, int mean)
{
    std::vector<double> before(RS_WARP_BUF), own(RS_WARP_BUF);
    for (uint64_t s0 = g.fast_lo; s0 < g.fast_hi; s0 += 32) {
        const uint64_t slast = s0 + 31 < g.fast_hi ? s0 + 31 : g.fast_hi - 1;
        const int64_t lo = rs_warp_t0(g, s0);
        const int n = (int)(rs_warp_t1(g, slast) - lo);
        RsWarpLane L[32];
        double ss[32][RS_TI], sc[32][RS_TI];
        for (int l = 0; l < 32; l++) rs_warp_lane(g, s0 + l, s0 + l <= slast, pt, st, tots, &L[l]);
        std::fill(before.begin(), before.end(), NAN); /* a read of what no lane wrote shows */
        std::fill(own.begin(), own.end(), NAN);
        for (int l = 0; l < 32; l++) rs_warp_load(before.data(), in, lo - (int64_t)g.W, n, l);
        for (int l = 0; l < 32; l++) rs_warp_load(own.data(), in, lo, n, l);
        for (int l = 0; l < 32; l++) rs_warp_suffix(L[l], before.data(), (int)(L[l].t0 - lo), ss[l], sc[l]);
        for (int l = 0; l < 32; l++) rs_warp_prefix(L[l], own.data(), (int)(L[l].t0 - lo), ss[l], sc[l], (double)g.W, mean);
        for (int l = 0; l < 32; l++) rs_warp_store(own.data(), out + (lo - (int64_t)g.first), n, l);
        nwarp_slots += (int)(slast + 1 - s0);
    }
}

/* rs_out_fuse_k of rolling_vhgw.cu, on the host: each step for every lane before the next, the
 * shuffles reading the other lanes' results */
static void emu_fuse(const RsGrid &g, const double *in, double *out, int mean)
{
    std::vector<double> before(RS_WARP_BUF), own(RS_WARP_BUF);
    const uint64_t per = 32 / g.M, jhi = g.fast_hi / g.M;
    const int M = (int)g.M;
    for (uint64_t jj0 = g.fast_lo / g.M; jj0 < jhi; jj0 += per) {
        const uint64_t nbk = jhi - jj0 < per ? jhi - jj0 : per;
        const int64_t lo = rs_jb(g, jj0);
        const int n = (int)(nbk * g.W);
        RsWarpLane L[32];
        int bl[32], b[32];
        gs_rs_sumf tb[32];
        double ss[32][RS_TI], sc[32][RS_TI];
        std::fill(before.begin(), before.end(), NAN); /* a read of what no lane wrote shows */
        std::fill(own.begin(), own.end(), NAN);
        for (int l = 0; l < 32; l++) rs_warp_load(before.data(), in, lo - (int64_t)g.W, n, l);
        for (int l = 0; l < 32; l++) rs_warp_load(own.data(), in, lo, n, l);
        for (int l = 0; l < 32; l++) rs_warp_lane_fused(g, jj0, nbk, l, &L[l], &bl[l]), b[l] = (int)(L[l].t0 - lo);
        for (int l = 0; l < 32 && M > 1; l++) tb[l] = rs_warp_total(L[l].len, before.data(), b[l]);
        for (int l = 0; l < 32 && M > 1; l++) L[l].stnext = rs_warp_st(M, l - bl[l], [&](int i) { return tb[(bl[l] + i) & 31]; });
        for (int l = 0; l < 32; l++) rs_warp_suffix(L[l], before.data(), b[l], ss[l], sc[l]);
        for (int l = 0; l < 32 && M > 1; l++) L[l].tot = rs_warp_total(L[l].len, own.data(), b[l]);
        for (int l = 0; l < 32 && M > 1; l++) L[l].before = rs_warp_pt(M, l - bl[l], [&](int i) { return L[(bl[l] + i) & 31].tot; });
        for (int l = 0; l < 32; l++) rs_warp_prefix(L[l], own.data(), b[l], ss[l], sc[l], (double)g.W, mean);
        for (int l = 0; l < 32; l++) rs_warp_store(own.data(), out + (lo - (int64_t)g.first), n, l);
        nfuse_blocks += (int)nbk;
    }
}

/* rs_family of rolling_vhgw.cu, on the host */
template <class F, class T>
static void emu_family(const RsGrid &g0, const T *in, const gs_rs_cols &cols)
{
    typedef typename F::S S;
    RsGrid g = g0;
    if constexpr (std::is_same<F, RsSumF>::value && std::is_same<T, double>::value) rs_warp_range(&g, &cols);
    if constexpr (RsShort<F>::wmax > 0 && std::is_same<T, double>::value) rs_short_range(&g, &cols, RsShort<F>::wmax);
    S poison; /* what no kernel writes (the blocks the fused warp path skips) must not be read */
    memset(&poison, 0xff, sizeof poison);
    std::vector<S> tot(g.nslots + 1, poison), pt(g.nslots + 1, poison), st(g.nslots + 1, poison);
    std::vector<S> sl(g.ngslots + 1, poison), sr(g.ngslots + 1, poison), ptg(g.ngslots + 1, poison), stg(g.ngslots + 1, poison);
    if (g.M > 1) {
        launch(g.nslots, [&] { rs_tot_k<F, T>(g, in, tot.data()); });
        if (!rs_grouped<F>(g)) { /* the plain chains (rs_chain_w on the GPU from RS_CHAIN_WARP tiles: the same merges) */
            launch(g.nb, [&] { rs_chain_k<F>(g, tot.data(), pt.data(), st.data()); });
        } else { /* the chains in two levels */
            launch(g.ngslots, [&] { rs_grp_k<F>(g, tot.data(), sl.data(), sr.data()); });
            launch(g.nb, [&] { rs_sup_k<F>(g, sl.data(), sr.data(), ptg.data(), stg.data()); });
            launch(g.ngslots, [&] { rs_fin_k<F>(g, tot.data(), ptg.data(), stg.data(), sr.data(), pt.data(), st.data()); });
            ngroup_blocks += g.nb;
        }
    }
    launch(g.nslots, [&] { rs_out_k<F, T>(g, in, pt.data(), st.data(), tot.data(), cols); });
    if constexpr (RsShort<F>::wmax > 0 && std::is_same<T, double>::value)
        if (g.fast == RS_FAST_SHORT) emu_short<F>(g, in, cols);
    if constexpr (std::is_same<F, RsSumF>::value && std::is_same<T, double>::value) {
        if (g.fast == RS_FAST_FUSE) emu_fuse(g, in, (double *)cols.out, cols.agg[0] == GS_AGG_MEAN);
        else if (g.fast == RS_FAST_WARP)
            emu_warp(g, in, (const gs_rs_sumf *)pt.data(), (const gs_rs_sumf *)st.data(), (const gs_rs_sumf *)tot.data(),
                     (double *)cols.out, cols.agg[0] == GS_AGG_MEAN);
    }
    if (rs_grouped<F>(g)) launch(g.ngslots, [&] { rs_fix_k<F>(g, pt.data(), st.data(), cols); });
}

template <class T>
static void emu_rolling(const gs_minmax_params *p, const T *in, uint64_t m, uint64_t first, void *out)
{
    RsGrid g;
    rs_grid(p, m, first, &g);
    for (int fam = 0; fam < GS_RS_NFAM; fam++) {
        gs_rs_cols c;
        gs_rs_family_cols(p, fam, out, &c);
        if (!c.nf) continue;
        switch (fam) {
        case GS_RS_FAM_SUM:
            if (gs_type_is_float(p->type)) emu_family<RsSumF, T>(g, in, c);
            else emu_family<RsSumI, T>(g, in, c);
            break;
        case GS_RS_FAM_VAR: emu_family<RsVar, T>(g, in, c); break;
        case GS_RS_FAM_CNT: emu_family<RsCnt, T>(g, in, c); break;
        case GS_RS_FAM_MIN: emu_family<RsMin, T>(g, in, c); break;
        default: emu_family<RsMax, T>(g, in, c); break;
        }
    }
}

template <class T> static void fill(T *x, size_t m, unsigned seed, int nans)
{
    srand(seed);
    for (size_t i = 0; i < m; i++) {
        double v = (rand() % 2001 - 1000) / 7.0;
        if (i % 97 < 20) v = 3.0; /* runs of equal values: ties for argmin/argmax */
        x[i] = (T)(gs_type_is_float(GS_F64) && (T)0.5 != 0 ? 1e6 + v : v);
        if (nans && (T)0.5 != 0 && rand() % 50 == 0) x[i] = (T)NAN;
    }
}

template <class T> static void one_type(gs_type t, const char *tn)
{
    const size_t m = 5003;
    std::vector<T> x(m);
    const int pass0 = npass;
    const uint64_t windows[] = {1, 2, 7, 8, 9, 17, 31, 32, 33, 64, 65, 100, 1000, 3000, 5003, 9000};
    const uint64_t bases[] = {0, 7, 1000000007};
    for (int nans = 0; nans < 2; nans++) {
        fill(x.data(), m, 17 + nans, nans);
        for (uint64_t W : windows)
            for (uint64_t base : bases)
                for (int mode = 0; mode < 3; mode++) { /* whole windows; --partial at 0; --skip-nan */
                    if (mode == 1 && base) continue; /* clipped windows exist at the stream's start only */
                    gs_minmax_params p;
                    memset(&p, 0, sizeof p);
                    p.type = t;
                    p.window = W;
                    p.nagg = GS_NAGG;
                    for (int k = 0; k < GS_NAGG; k++) p.agg[k] = (unsigned char)k;
                    p.ddof = 1;
                    p.skip_nan = mode == 2;
                    p.min_periods = mode == 0 ? 1 : 3 < W ? 3 : W;
                    p.out_type = gs_roll_out_type(&p);
                    p.base = base;
                    const uint64_t first = mode == 1 ? 0 : W - 1;
                    if (first >= m) continue;
                    const size_t bytes = (m - first) * GS_NAGG * gs_type_size(p.out_type);
                    std::vector<char> a(bytes, 0x5a), b(bytes, 0x3c);
                    gs_status st = {};
                    if (gs_rolling_cpu(&p, x.data(), m, first, a.data(), &st)) {
                        printf("FAIL emu %s: cpu: %s\n", tn, st.msg);
                        nfail++;
                        continue;
                    }
                    emu_rolling(&p, x.data(), m, first, b.data());
                    if (memcmp(a.data(), b.data(), bytes)) {
                        size_t i = 0;
                        while (a[i] == b[i]) i++;
                        printf("FAIL gpu kernels on the host = cpu: %s W=%llu base=%llu mode=%d nan=%d: byte %zu (row %zu)\n",
                               tn, (unsigned long long)W, (unsigned long long)base, mode, nans, i,
                               i / (GS_NAGG * gs_type_size(p.out_type)));
                        nfail++;
                    } else
                        npass++;
                }
    }
    printf("PASS gpu kernels on the host = cpu, byte for byte: %s (%d cases)\n", tn, npass - pass0);
}

/* The CPU's lane sweep (kernels/rolling_fast.c) on its own paths: one aggregate a row (rows of one
 * value), the sum and var families together, windows of one tile and less (W <= 32), windows past
 * its tables of lane rows (W > 2^16), ranges that start inside a block (first > W - 1), NaN
 * propagated, --skip-nan where there is none to skip; on f64, on f32 (f32 columns) and on integers
 * (the var family, f64 columns). The f64 sum and mean alone are also the GPU's warp paths
 * (rolling_vhgw_warp.cuh): fused up to W = 1024, not from 1025; and on f64 every window of the
 * GPU's short path (rolling_vhgw_short.cuh, one kernel a W: 1 to 8) and the next. */
template <class T> static void lane_sweep(gs_type t, const char *tn, int all_windows)
{
    const size_t m = 150001;
    std::vector<T> x(m), y(m);
    fill(x.data(), m, 29, 1);
    fill(y.data(), m, 31, 0); /* no NaN: --skip-nan skips nothing, and takes the lanes */
    const unsigned char sets[][4] = {{GS_AGG_MEAN}, {GS_AGG_STD}, {GS_AGG_SUM, GS_AGG_VAR}, {GS_AGG_MEAN, GS_AGG_STD, GS_AGG_SUM, GS_AGG_VAR}, {GS_AGG_VAR, GS_AGG_STD}, {GS_AGG_SUM}};
    const int nsets[] = {1, 1, 2, 4, 2, 1};
    const uint64_t windows[] = {1, 2, 3, 4, 5, 6, 8, 10, 16, 20, 31, 32, 33, 50, 63, 64, 96, 100, 513, 1000, 1024, 1025, 70001};
    const uint64_t few[] = {1, 5, 32, 33, 100, 70001}; /* the other types: one of each kind */
    int n0 = npass;
    for (int si = 0; si < 6; si++)
        for (uint64_t W : all_windows ? std::vector<uint64_t>(std::begin(windows), std::end(windows))
                                      : std::vector<uint64_t>(std::begin(few), std::end(few)))
            for (int v = 0; v < 4; v++) { /* the first row at W - 1 or inside a block; --skip-nan */
                const uint64_t first = v & 1 ? W + 4321 : W - 1;
                const int skip = v >> 1;
                const T *in = skip ? y.data() : x.data();
                gs_minmax_params p;
                memset(&p, 0, sizeof p);
                p.type = t;
                p.window = W;
                p.nagg = nsets[si];
                memcpy(p.agg, sets[si], (size_t)nsets[si]);
                p.ddof = 1;
                p.min_periods = 1;
                p.skip_nan = skip;
                p.out_type = gs_roll_out_type(&p);
                p.base = v < 2 ? 12345 : 1000000010; /* two stream positions of in[0]: blocks at other offsets */
                const size_t bytes = (m - first) * (size_t)p.nagg * gs_type_size(p.out_type);
                std::vector<char> a(bytes, 0x5a), b(bytes, 0x3c);
                gs_status st = {};
                if (gs_rolling_cpu(&p, in, m, first, a.data(), &st)) {
                    printf("FAIL emu %s lane sweep: cpu: %s\n", tn, st.msg);
                    nfail++;
                    continue;
                }
                emu_rolling(&p, in, m, first, b.data());
                if (memcmp(a.data(), b.data(), bytes)) {
                    printf("FAIL gpu kernels on the host = cpu lane sweep: %s aggs %d W=%llu first=%zu skip-nan %d\n", tn,
                           si, (unsigned long long)W, (size_t)first, skip);
                    nfail++;
                } else
                    npass++;
            }
    printf("PASS gpu kernels on the host = cpu lane sweep, byte for byte: %s (%d cases)\n", tn, npass - n0);
}

int main()
{
    lane_sweep<double>(GS_F64, "f64", 1);
    lane_sweep<float>(GS_F32, "f32", 0);
    lane_sweep<int32_t>(GS_I32, "i32", 0);
    lane_sweep<uint64_t>(GS_U64, "u64", 0);
    one_type<double>(GS_F64, "f64");
    one_type<float>(GS_F32, "f32");
    one_type<int32_t>(GS_I32, "i32");
    one_type<int64_t>(GS_I64, "i64");
    one_type<uint32_t>(GS_U32, "u32");
    one_type<uint64_t>(GS_U64, "u64");
    /* the f64 sum and mean alone took the warp path (rolling_vhgw_warp.cuh) on most of their tiles */
    if (nwarp_slots > 5000 && nfuse_blocks > 10000)
        printf("PASS the warp paths ran (%d tiles a warp of 32, %d blocks fused)\n", nwarp_slots, nfuse_blocks);
    else printf("FAIL the warp paths ran on %d tiles and %d blocks only\n", nwarp_slots, nfuse_blocks), nfail++;
    /* blocks of more than a group of tiles ran their chains in two levels */
    if (ngroup_blocks > 100) printf("PASS the two-level chains ran (%llu blocks)\n", (unsigned long long)ngroup_blocks);
    else printf("FAIL the two-level chains ran on %llu blocks only\n", (unsigned long long)ngroup_blocks), nfail++;
    /* the f64 sum and var families of windows under 32 took the short path on most of their ends */
    if (nshort_ends > 1000000) printf("PASS the short path ran (%d ends)\n", nshort_ends);
    else printf("FAIL the short path ran on %d ends only\n", nshort_ends), nfail++;
    return nfail != 0;
}
