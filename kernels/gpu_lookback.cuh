/* gpu_lookback.cuh - decoupled look-back (Merrill & Garland 2016) for the single-pass kernels
 * (scan_lookback.cu, compact_lookback.cu): tile status words that pack flag and value, and the
 * warp that folds its predecessors' published values. */
#ifndef GS_GPU_LOOKBACK_CUH
#define GS_GPU_LOOKBACK_CUH

#include "gpu_common.cuh"
#include "gpu_mem.cuh"
#include "gpu_warp.cuh"

/* Tile status for a decoupled look-back over values of type T: flag 0 = not yet, 1 = the tile's
 * aggregate, 2 = its inclusive prefix. 4-byte T: one 8-byte word (value << 32 | flag); 8-byte T:
 * one 16-byte word {flag, value}. Zeroed by the launcher (cudaMemsetAsync) before each launch. */
enum { GS_TILE_X = 0, GS_TILE_A = 1, GS_TILE_P = 2 };
template <class T, int S = sizeof(T)> struct gs_tile_status;
template <class T> struct gs_tile_status<T, 4> {
    typedef uint64_t word;
    static GS_DEV void put(word *w, int flag, T v) { gs_st_relaxed_u64(w, (gs_to_bits(v) << 32) | (uint64_t)flag); }
    static GS_DEV word load(const word *w) { return gs_ld_relaxed_u64(w); }
    static GS_DEV void split(word x, int *flag, T *v)
    {
        *flag = (int)(x & 0xffffffffu);
        *v = gs_from_bits<T>(x >> 32);
    }
    static GS_DEV void get(const word *w, int *flag, T *v) { split(load(w), flag, v); }
};
template <class T> struct gs_tile_status<T, 8> {
    typedef ulonglong2 word;
    static GS_DEV void put(word *w, int flag, T v)
    {
        ulonglong2 x;
        x.x = (unsigned long long)flag;
        x.y = gs_to_bits(v);
        gs_st_relaxed_u128(w, x);
    }
    static GS_DEV word load(const word *w) { return gs_ld_relaxed_u128(w); }
    static GS_DEV void split(word x, int *flag, T *v)
    {
        *flag = (int)x.x;
        *v = gs_from_bits<T>(x.y);
    }
    static GS_DEV void get(const word *w, int *flag, T *v) { split(load(w), flag, v); }
};

/* Decoupled look-back, run by one whole warp for tile `tile` >= 1 after it published its
 * aggregate: returns op(everything before the tile) in every lane. Lane l watches tile
 * end-32+l of a window [end-32, end). Deterministic: exact ops fold windows with trees; other
 * ops (float sums) fold strictly left to right from the nearest inclusive prefix, so the result
 * does not depend on which predecessors had published their prefix yet. */
template <class T, class Op>
GS_DEV T gs_lookback(const typename gs_tile_status<T>::word *status, int64_t tile, Op op)
{
    typedef gs_tile_status<T> S;
    const int lane = (int)gs_lane();
    int64_t end = tile;
    T acc = Op::identity(); /* fold of the windows after the current one (exact ops) */
    for (;;) {
        const int64_t idx = end - 32 + lane;
        int flag = GS_TILE_P;
        T v = Op::identity();
        if (idx >= 0) S::get(&status[idx], &flag, &v);
        /* every lane takes part in the vote (lanes before tile 0 hold a virtual prefix) */
        for (int spins = 0; __any_sync(GS_FULL_MASK, flag == GS_TILE_X); spins++) {
            if (spins > 4) __nanosleep(32);
            if (flag == GS_TILE_X) S::get(&status[idx], &flag, &v);
        }
        const unsigned pmask = __ballot_sync(GS_FULL_MASK, flag == GS_TILE_P);
        if (Op::exact) {
            const int start = pmask ? 31 - __clz((int)pmask) : 0;
            T win = gs_warp_fold_from(v, start, op);
            acc = op(win, acc);
            if (pmask) return acc;
        } else {
            if (pmask) {
                const int start = 31 - __clz((int)pmask);
                if (end == tile) return gs_warp_fold_from(v, start, op);
                /* Found beyond the first window: fold forward, window by window, from here.
                 * Re-read each window: a later inclusive prefix restarts the fold (it is the
                 * left fold up to its tile, so the bits are the same either way). */
                T f = gs_warp_fold_from(v, start, op);
                for (int64_t e = end + 32; e <= tile; e += 32) {
                    const int64_t j = e - 32 + lane;
                    int fl;
                    T u;
                    S::get(&status[j], &fl, &u); /* j >= 0: windows past the first are real */
                    const unsigned pm = __ballot_sync(GS_FULL_MASK, fl == GS_TILE_P);
                    if (pm) {
                        const int s = 31 - __clz((int)pm);
                        f = gs_warp_fold_from(u, s, op);
                    } else {
                        for (int l = 0; l < 32; l++) f = op(f, __shfl_sync(GS_FULL_MASK, u, l));
                    }
                }
                return f;
            }
        }
        end -= 32;
    }
}

#endif
