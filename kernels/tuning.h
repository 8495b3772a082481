/* tuning.h - the GPU launch shapes, each with the one figure that chose it, and the block sizes a
 * build offers beyond them. How each shape was found and what else was tried: kernels/TUNING.md
 * (v1 .. v5). Figures: NVIDIA H200 (132 SMs), i32, 2^28 elements in device memory, median of 10+
 * reps with L2 flushed; a device copy of the same bytes takes 0.505 ms (4240 GB/s read + write).
 *
 * Plain C for the registry (threads per block of each default launch); the tile shapes below are
 * C++ constants for the .cu files. make TUNING=1 (GS_TUNING) also builds the block sizes
 * `gpustream bench --block` sweeps and the shapes `test_kernels_gpu --bench --tune` tries; a
 * default build holds the tuned launches only (build times: docs/PERFORMANCE.md). */
#ifndef GS_TUNING_H
#define GS_TUNING_H

/* ---- threads per block of each GPU variant's default launch (gs_variant.block_default) ---- */
#define GS_GRID_THREADS 256             /* grid-stride kernels: naive, blelloch, compact scan, linear, tiled */
#define GS_BS_THREADS 256               /* blelloch-smem (tiles of 2 x threads) */
#define GS_BALLOT_THREADS 256           /* ballot (tiles of 8 x threads) */
#define GS_SCAN_LOOKBACK_THREADS 128    /* gs_scan_lookback_cfg4 / cfg8 / incr_cfg */
#define GS_COMPACT_LOOKBACK_THREADS 128 /* gs_compact_lookback_cfg4 / cfg8 */
#define GS_MINMAX_VHGW_THREADS 128      /* gs_minmax_vhgw_*cfg*, but for: */
#define GS_MINMAX_VHGW_MID_THREADS 64   /* gs_minmax_vhgw_mid_cfg4: 4-byte types, LO < W-1 <= HI */
#define GS_MINMAX_VHGW_MID_LO 16        /* W-1 <= 16: the `lo` shapes (groups of rows inside a thread) */
#define GS_MINMAX_VHGW_MID_HI 1024

/* ---- block sizes beyond the defaults (GS_BLOCK_BIT masks, kernels.h) ----
 * The sizes each variant is built for, in a TUNING=1 build; none in a default build, whose
 * launchers refuse a block size with a message that names make TUNING=1. vhgw: not 512 (each
 * thread count is ~40 kernels; with 512 the file took 2.1x its compile time). */
#ifdef GS_TUNING
#define GS_BUILT_BLOCKS(mask) (mask)
#else
#define GS_BUILT_BLOCKS(mask) 0u
#endif
#define GS_VHGW_BLOCKS_ALL (GS_BLOCK_BIT(64) | GS_BLOCK_BIT(128) | GS_BLOCK_BIT(256))

#ifdef __cplusplus
/* ---- tile shapes (CUB style: data, with the measurement that chose them) ---- */

/* __launch_bounds__ minimum blocks per SM for a kernel holding `regs` registers a thread: lets
 * ptxas use them (without a minimum it capped some tile shapes below need and spilled). */
#define GS_MIN_BLOCKS(threads, regs) ((65536 / ((threads) * (regs))) > 0 ? (65536 / ((threads) * (regs))) : 1)

struct gs_tile_cfg {
    int threads; /* per block */
    int items;   /* per thread (a multiple of the 16-byte vector width) */
};

/* scan lookback: threads x (sitems staged in shared memory + ritems in registers) per tile, by
 * input element size; minb4 / minb8: the __launch_bounds__ minimum of resident blocks per SM when
 * the output type has 4 / 8 bytes (it caps registers at 65536 / (threads x minb)). Float sums and
 * 8-byte types: i32 sum with this kernel 0.588 ms (TUNING.md v3); f32 sum 0.644, i64 1.282. */
struct gs_scan_cfg {
    int threads, sitems, ritems, minb4, minb8;
};
constexpr gs_scan_cfg gs_scan_lookback_cfg4 = {GS_SCAN_LOOKBACK_THREADS, 52, 28, 7, 4};
constexpr gs_scan_cfg gs_scan_lookback_cfg8 = {GS_SCAN_LOOKBACK_THREADS, 26, 14, 7, 5};

/* scan lookback, exact operators (integer sums, min, max) on 4-byte, 16-byte aligned data: the
 * incremental look-back over persistent blocks (TUNING.md v5). One block per SM of `threads` x
 * bytes / (threads x element size) items; `stages` tiles in a cp.async ring; the tile `ahead`
 * rounds on is reduced and published before a tile looks back.
 * i32 sum: 0.571 ms (gpustream bench --op scan -t i32, 2026-11-22, ccaa20c), plain CUB 0.689. */
struct gs_scan_incr_cfg {
    int threads, bytes, stages, ahead;
};
constexpr gs_scan_incr_cfg gs_scan_lookback_incr_cfg = {GS_SCAN_LOOKBACK_THREADS, 64 * 1024, 3, 1};

/* compact lookback, by element size; `regs` caps registers (occupancy beats registers here: the
 * same 128x32 kernel ran 0.553 ms at 64 registers and 0.526 ms at 56; TUNING.md v3).
 * i32 nonzero at density 0.5: 0.526 ms (511 Gelem/s); plain CUB DeviceSelect::If ~0.59. */
struct gs_compact_cfg {
    int threads, items, regs;
};
constexpr gs_compact_cfg gs_compact_lookback_cfg4 = {GS_COMPACT_LOOKBACK_THREADS, 32, 56};
constexpr gs_compact_cfg gs_compact_lookback_cfg8 = {GS_COMPACT_LOOKBACK_THREADS, 16, 64};

/* minmax vhgw: threads x items output rows per block (items: a power of two), by W (TUNING.md v1-v4):
 *   lo   W-1 <= 16 (groups inside a thread):          i32 W = 2: 0.801 ms
 *   mid  16 < W-1 <= 1024, 4-byte types:               i32 W = 500: 0.857 ms (313 Gelem/s)
 *   the rest (groups across threads, all large W):     i32 W = 4096: 0.980 ms; W = 10^6: 1.105 ms
 * 8-byte types take 128x16 everywhere: f64 W = 500 2.845 ms. */
constexpr gs_tile_cfg gs_minmax_vhgw_cfg4 = {GS_MINMAX_VHGW_THREADS, 32};
constexpr gs_tile_cfg gs_minmax_vhgw_lo_cfg4 = {GS_MINMAX_VHGW_THREADS, 16};
constexpr gs_tile_cfg gs_minmax_vhgw_mid_cfg4 = {GS_MINMAX_VHGW_MID_THREADS, 32};
constexpr gs_tile_cfg gs_minmax_vhgw_cfg8 = {GS_MINMAX_VHGW_THREADS, 16};
constexpr gs_tile_cfg gs_minmax_vhgw_lo_cfg8 = {GS_MINMAX_VHGW_THREADS, 16};
constexpr gs_tile_cfg gs_minmax_vhgw_mid_cfg8 = {GS_MINMAX_VHGW_THREADS, 16};
/* cfg4 blocks whose groups span threads are capped at 80 registers so that 6 blocks fit per SM,
 * with the largest shared-memory carveout: W = 10^6 1.293 -> 1.105 ms (TUNING.md v4). */
constexpr int gs_minmax_vhgw_wide_minb4 = 6;
#endif

#endif
