/* missing.c - missing values in csv and text: which fields are missing, and what they read as.
 *
 * A field is missing when it is empty (after surrounding space) or spelled as one of pandas'
 * read_csv default NA values (pandas._libs.parsers.STR_NA_VALUES, pandas 3.1, case-sensitive):
 * gs_na_spellings below. A missing value reads as NaN in a float column, and is an error in an
 * integer column unless --na says what to do: --na V reads it as V, --na skip drops the row (the
 * reader's row map keeps input positions right). Under --na V and --na skip a float NaN counts as
 * missing too, as pandas' fillna and dropna treat it. The number parser (numfmt.c) sees every
 * field first; only a field it rejects, or a NaN under --na, is looked up here, so plain numbers
 * pay nothing. */
#include "missing.h"

#include <stdio.h>
#include <string.h>

const char *const gs_na_spellings[] = {"",     "#N/A", "#N/A N/A", "#NA",  "-1.#IND", "-1.#QNAN", "-NaN",
                                       "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A",   "NA",       "NULL",
                                       "NaN",  "None", "n/a",    "nan",  "null",  NULL};

int gs_na_spelling(const char *f, size_t len)
{
    if (len == 0) return 1;
    if (len > 8) return 0; /* the longest spelling is "#N/A N/A" */
    for (const char *const *s = gs_na_spellings + 1; *s; s++)
        if (strlen(*s) == len && !memcmp(*s, f, len)) return 1;
    return 0;
}

static int is_nan(gs_type t, const void *v)
{
    if (t == GS_F64) {
        double x;
        memcpy(&x, v, sizeof x);
        return x != x;
    }
    if (t == GS_F32) {
        float x;
        memcpy(&x, v, sizeof x);
        return x != x;
    }
    return 0;
}

/* What a missing value reads as. */
static int missing(const gs_lparse *c, void *out)
{
    switch (c->na) {
    case GS_NA_VALUE: memcpy(out, c->na_val, c->esize); return 0;
    case GS_NA_SKIP: return GS_FIELD_SKIP;
    default:
        if (c->type == GS_F64) {
            const double x = __builtin_nan("");
            memcpy(out, &x, sizeof x);
            return 0;
        }
        if (c->type == GS_F32) {
            const float x = __builtin_nanf("");
            memcpy(out, &x, sizeof x);
            return 0;
        }
        return GS_PERR_NA;
    }
}

int gs_field_parse(const gs_lparse *c, const char *f, size_t len, void *out)
{
    const int r = len ? gs_num_parse(f, len, c->type, out) : -1;
    /* a NaN in the text ("nan", "-nan", "-NaN") is a missing value: the one NaN, whatever sign it was
     * written with (pandas'), so a window's first NaN is its argmin and argmax whatever the signs */
    if (r == 0) return is_nan(c->type, out) ? missing(c, out) : 0;
    if (r == -1 && gs_na_spelling(f, len)) return missing(c, out);
    return r == -2 ? GS_PERR_RANGE : GS_PERR_INVALID;
}

int gs_na_setup(gs_lparse *c, const gs_read_opts *o, const char *name, gs_status *st)
{
    c->na = o->na;
    if (o->na != GS_NA_VALUE) return GS_OK;
    const char *v = o->na_value ? o->na_value : "";
    if (gs_num_parse(v, strlen(v), c->type, c->na_val) != 0)
        return gs_fail(st, GS_EUSAGE, "%s: --na value '%s' is not a number of type %s", name, v,
                       gs_type_name(c->type));
    return GS_OK;
}

int gs_row_is_header(const char *const *f, int n, int col)
{
    double x;
    if (gs_num_parse(f[col], strlen(f[col]), GS_F64, &x) == 0) return 0;
    if (!gs_na_spelling(f[col], strlen(f[col]))) return 1;
    int names = 0, numbers = 0;
    for (int i = 0; i < n; i++) {
        if (gs_num_parse(f[i], strlen(f[i]), GS_F64, &x) == 0) numbers++;
        else if (!gs_na_spelling(f[i], strlen(f[i]))) names++;
    }
    return names && !numbers;
}
