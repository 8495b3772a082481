/* rolling_vhgw.cu - rolling aggregates on the GPU: the CPU's states (kernels/rolling_cpu.c, "the
 * sweep"), tile by tile, so that every output has the CPU backend's bits.
 * Chunked semantics of kernels.h: in[0..m) is halo + chunk; outputs for window ends e = first..m-1
 * over in[max(0, e-W+1) .. e], p->nagg columns of p->out_type a row; p->base is the absolute
 * position of in[0].
 *
 *   vhgw  blocks of W at absolute positions cut into tiles of GS_ROLL_TILE (32); per family of
 *         states (rolling_ops.h), three kernels:
 *           rs_tot_k    one thread per tile wholly in memory: its total (its values folded left to
 *                       right from the identity)
 *           rs_chain_k  one thread per block: PT before each tile (totals merged left to right) where
 *                       the block starts in memory, ST from each tile on (merged right to left) where
 *                       it ends in memory
 *           rs_out_k    one thread per tile of outputs: the suffixes of the same tile of the block
 *                       before (folded from its end, in local memory), then the prefix left to right,
 *                       each row suffix (+) prefix, written by rolling_rows.h
 *         W <= 32 (one tile a block) needs no totals: the prefix starts from the identity and no
 *         window starts inside a tile before its block's last.
 * Work is O(1) per element for any W; the chains are W/32 merges per block, sequential. */
#include "gpu_common.cuh"
#include "kernels_gpu.h"
#include "rolling_vhgw.cuh"

#include <string.h>

/* ---- host side ------------------------------------------------------------------------------------ */
extern "C" size_t gs_rolling_gpu_vhgw_scratch(const gs_minmax_params *p, uint64_t m_max)
{
    if (p->window <= RS_T) return 0;
    const uint64_t nslots = (m_max / p->window + 2) * ((p->window + RS_T - 1) / RS_T < m_max / RS_T + 2
                                                          ? (p->window + RS_T - 1) / RS_T : m_max / RS_T + 2);
    return (size_t)(3 * nslots * 32 + 3 * 256); /* three arrays of states of at most 32 bytes */
}

template <class F, class T>
static int rs_family(const RsGrid &g, const T *in, char *scratch, const gs_rs_cols &cols, cudaStream_t s, gs_status *st)
{
    typedef typename F::S S;
    const int threads = 128;
    const size_t arr = gs_align_up(g.nslots * sizeof(S), 256);
    S *tot = (S *)scratch, *pt = (S *)(scratch + arr), *stx = (S *)(scratch + 2 * arr);
    if (g.M > 1) {
        rs_tot_k<F, T><<<(unsigned)gs_cdiv(g.nslots, threads), threads, 0, s>>>(g, in, tot);
        GS_LAUNCH_CHECK(st);
        rs_chain_k<F><<<(unsigned)gs_cdiv(g.nb, threads), threads, 0, s>>>(g, tot, pt, stx);
        GS_LAUNCH_CHECK(st);
    }
    rs_out_k<F, T><<<(unsigned)gs_cdiv(g.nslots, threads), threads, 0, s>>>(g, in, pt, stx, cols);
    GS_LAUNCH_CHECK(st);
    return GS_OK;
}

extern "C" int gs_rolling_gpu_vhgw(const gs_minmax_params *p, const void *d_in, uint64_t m, uint64_t first, void *d_out,
                                   void *d_scratch, size_t scratch_bytes, void *stream, gs_status *st)
{
    if (p->window < 1) return gs_fail(st, GS_EUSAGE, "rolling: window must be at least 1");
    if (p->nagg < 1 || p->nagg > GS_ROLL_COLS_MAX)
        return gs_fail(st, GS_EUSAGE, "rolling: 1 to %d aggregates, not %d", GS_ROLL_COLS_MAX, p->nagg);
    if (first >= m) return GS_OK;
    if (p->window > (UINT64_C(1) << 62)) return gs_fail(st, GS_EUSAGE, "rolling: window %llu is too large",
                                                         (unsigned long long)p->window);
    GS_FORWARD(gs_check_scratch("rolling vhgw", scratch_bytes, gs_rolling_gpu_vhgw_scratch(p, m), st));
    RsGrid g;
    rs_grid(p, m, first, &g);
    const cudaStream_t s = gs_stream(stream);
    return gs_dispatch_type(p->type, st, [&](auto t) -> int {
        typedef decltype(t) T;
        const T *in = (const T *)d_in;
        for (int fam = 0; fam < GS_RS_NFAM; fam++) { /* as rolling_cpu.c's families */
            gs_rs_cols c;
            gs_rs_family_cols(p, fam, d_out, &c);
            if (!c.nf) continue;
            int rc;
            char *sc = (char *)d_scratch;
            switch (fam) {
            case GS_RS_FAM_SUM: /* T decides the state at compile time: no kernels for the other */
                if constexpr (gs_is_float<T>::value) rc = rs_family<RsSumF, T>(g, in, sc, c, s, st);
                else rc = rs_family<RsSumI, T>(g, in, sc, c, s, st);
                break;
            case GS_RS_FAM_VAR: rc = rs_family<RsVar, T>(g, in, sc, c, s, st); break;
            case GS_RS_FAM_CNT: rc = rs_family<RsCnt, T>(g, in, sc, c, s, st); break;
            case GS_RS_FAM_MIN: rc = rs_family<RsMin, T>(g, in, sc, c, s, st); break;
            default: rc = rs_family<RsMax, T>(g, in, sc, c, s, st); break;
            }
            if (rc) return rc;
        }
        return GS_OK;
    });
}
