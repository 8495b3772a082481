/* job.c - parsing what a job computes from its text form (predicates), shared by the CLI and
 * the fuzz targets. */
#include "pipeline.h"

#include <stdio.h>
#include <string.h>

const char *const gs_dev_alloc_names[GS_NDEV_ALLOC] = {"once", "per-chunk", "async"};

typedef struct pred_name {
    const char *name;
    gs_pred_kind kind;
    int nargs;
} pred_name;

static const pred_name preds[] = {
    {"nonzero", GS_PRED_NONZERO, 0}, {"eq", GS_PRED_EQ, 1}, {"ne", GS_PRED_NE, 1}, {"gt", GS_PRED_GT, 1},
    {"ge", GS_PRED_GE, 1},           {"lt", GS_PRED_LT, 1}, {"le", GS_PRED_LE, 1}, {"range", GS_PRED_RANGE, 2},
    {"finite", GS_PRED_FINITE, 0},   {"nan", GS_PRED_NAN, 0},
};

int gs_pred_parse(const char *s, gs_type t, gs_compact_params *p, gs_status *st)
{
    char buf[256];
    if (strlen(s) >= sizeof buf) return gs_fail(st, GS_EUSAGE, "predicate too long");
    snprintf(buf, sizeof buf, "%s", s);
    char *args = strchr(buf, ':');
    if (args) *args++ = 0;
    for (size_t i = 0; i < sizeof preds / sizeof preds[0]; i++) {
        if (strcmp(buf, preds[i].name)) continue;
        p->pred = preds[i].kind;
        if (preds[i].nargs == 0) {
            if (args) return gs_fail(st, GS_EUSAGE, "predicate '%s' takes no value", preds[i].name);
            return GS_OK;
        }
        if (!args) return gs_fail(st, GS_EUSAGE, "predicate '%s' needs a value, e.g. %s:0", s, preds[i].name);
        char *b = NULL;
        if (preds[i].nargs == 2) {
            /* range:A:B; a ':' may not appear inside a number, so split at the first one. */
            b = strchr(args, ':');
            if (!b) return gs_fail(st, GS_EUSAGE, "predicate '%s' needs two values, e.g. range:0:10", s);
            *b++ = 0;
        }
        int rc = gs_value_parse(args, t, &p->a);
        if (!rc && b) rc = gs_value_parse(b, t, &p->b);
        if (rc)
            return gs_fail(st, GS_EUSAGE, "invalid value in predicate '%s' for type %s%s", s, gs_type_name(t),
                           rc == -2 ? " (out of range)" : gs_type_is_float(t) ? "" : " (integers only)");
        return GS_OK;
    }
    return gs_fail(st, GS_EUSAGE,
                   "unknown predicate '%s' (expected nonzero, eq:V, ne:V, gt:V, ge:V, lt:V, le:V, range:A:B, finite or nan)", s);
}
