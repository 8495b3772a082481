/* rolling_fast.h - the CPU's sweep of the sum (sum, mean) and var (var, std) families without
 * --skip-nan on the input as f64 (kernels/rolling_fast.c): the states of rolling_cpu.c's sweep by
 * the same operations in the same order, several tiles side by side in vector lanes. */
#ifndef GS_ROLLING_FAST_H
#define GS_ROLLING_FAST_H

#include <stddef.h>

#include "kernels.h"
#include "rolling_rows.h"

/* Whether the fast sweep serves this family (var: the var family, else the sum family) with these
 * columns for nout rows: f64 or f32 input (integers: the var family only, the sum family's state
 * being an exact integer sum) without --skip-nan, f64 or f32 columns written in their own type,
 * W <= 2^20, min_periods <= W, and for var W <= 2 nout + 4096 (its tables hold W values). */
int gs_roll_fast_ok(const gs_minmax_params *p, const gs_rs_cols *cols, int var, size_t nout);

/* The rows of window ends e in [e_lo, e_hi) of in[0..m) (rows counted from first), each a whole
 * window of W values (an end of block 1 or later: base + e >= W); in: the input as f64, each
 * value as the families take it ((double)x). 0, or -1 out of memory. */
int gs_roll_fast(const gs_minmax_params *p, const gs_rs_cols *cols, int var, const double *in, size_t m,
                 size_t first, size_t e_lo, size_t e_hi);

#endif
