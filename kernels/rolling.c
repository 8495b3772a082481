/* rolling.c - the rolling aggregates' names and types: what each --agg word computes into which
 * column type, and the one type a row of columns is written in. The CPU and GPU kernels and the CLI
 * take these facts from here. */
#include "kernels.h"

#include <string.h>

static const char *const agg_names[GS_NAGG] = {"sum", "mean", "var", "std", "count", "min", "max", "argmin", "argmax"};

const char *gs_agg_name(gs_agg a) { return (unsigned)a < GS_NAGG ? agg_names[a] : "?"; }

int gs_agg_parse(const char *s, gs_agg *a)
{
    for (int k = 0; k < GS_NAGG; k++)
        if (!strcmp(s, agg_names[k])) {
            *a = (gs_agg)k;
            return 0;
        }
    return -1;
}

/* sum of integers: i64 or u64 by signedness; mean, var and std: f64, f32 for f32 input; count,
 * argmin and argmax: u64; min and max: the input type. An integer-valued column that may have to
 * say "no value" is f64, where NaN says it. */
gs_type gs_agg_type(gs_agg a, gs_type in, int missing)
{
    gs_type t;
    switch (a) {
    case GS_AGG_SUM: t = gs_type_is_float(in) ? in : gs_type_is_signed(in) ? GS_I64 : GS_U64; break;
    case GS_AGG_MEAN:
    case GS_AGG_VAR:
    case GS_AGG_STD: t = in == GS_F32 ? GS_F32 : GS_F64; break;
    case GS_AGG_MIN:
    case GS_AGG_MAX: t = in; break;
    default: t = GS_U64; break;
    }
    return missing && !gs_type_is_float(t) ? GS_F64 : t;
}

int gs_roll_missing(const gs_minmax_params *p)
{
    return p->min_periods > 1 || (p->skip_nan && gs_type_is_float(p->type));
}

gs_type gs_roll_out_type(const gs_minmax_params *p)
{
    const int missing = gs_roll_missing(p);
    gs_type t0 = gs_agg_type((gs_agg)p->agg[0], p->type, missing);
    int same = 1, anyfloat = 0, anysigned = 0;
    for (int k = 0; k < p->nagg; k++) {
        const gs_type t = gs_agg_type((gs_agg)p->agg[k], p->type, missing);
        same &= t == t0;
        anyfloat |= gs_type_is_float(t);
        anysigned |= gs_type_is_signed(t);
    }
    return same ? t0 : anyfloat ? GS_F64 : anysigned ? GS_I64 : GS_U64;
}
