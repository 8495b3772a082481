/* pred.h - the compact predicates on one element, the one definition the CPU (compact_cpu.c) and
 * GPU (compact_*.cu) kernels share: C comparisons in the element type, so a NaN fails every
 * comparison (ne and nonzero hold for it); integers are always finite and never NaN. `kind` is a
 * gs_pred_kind (kernels.h); callers that pass a constant get the one comparison inlined, so loops
 * keep the switch outside. Invert is the caller's: kept = test != invert. */
#ifndef GS_PRED_H
#define GS_PRED_H

#include <math.h>

#include "kernels.h"
#include "ops.h"

#define GS_PRED_DEF(S, T, FINITE, NAN_)                                 \
    GS_HD int gs_pred_test_##S(int kind, T x, T a, T b)                 \
    {                                                                   \
        switch (kind) {                                                 \
        case GS_PRED_NONZERO: return x != (T)0;                         \
        case GS_PRED_EQ: return x == a;                                 \
        case GS_PRED_NE: return x != a;                                 \
        case GS_PRED_GT: return x > a;                                  \
        case GS_PRED_GE: return x >= a;                                 \
        case GS_PRED_LT: return x < a;                                  \
        case GS_PRED_LE: return x <= a;                                 \
        case GS_PRED_RANGE: return (a <= x) & (x <= b);                 \
        case GS_PRED_FINITE: return FINITE;                             \
        case GS_PRED_NAN: return NAN_;                                  \
        default: return 0;                                              \
        }                                                               \
    }
/* Comparisons like `x >= 0` on unsigned types are meant (they follow the user's predicate). */
#ifndef __CUDACC__
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtype-limits"
#endif
GS_PRED_DEF(i32, int32_t, 1, 0)
GS_PRED_DEF(i64, int64_t, 1, 0)
GS_PRED_DEF(u32, uint32_t, 1, 0)
GS_PRED_DEF(u64, uint64_t, 1, 0)
GS_PRED_DEF(f32, float, isfinite((double)x) != 0, x != x)
GS_PRED_DEF(f64, double, isfinite(x) != 0, x != x)
#ifndef __CUDACC__
#pragma GCC diagnostic pop
#endif
#undef GS_PRED_DEF

#endif
