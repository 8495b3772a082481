/* job.c - parsing what a job computes from its text form (predicates, host-memory modes), shared
 * by the CLI and the fuzz targets. */
#include "pipeline.h"

#include <stdio.h>
#include <string.h>

static const char *const host_mem_names[] = {"pinned", "pageable", "registered", "mapped"};
const char *const gs_dev_alloc_names[GS_NDEV_ALLOC] = {"once", "per-chunk", "async"};

const char *gs_host_mem_name(gs_host_mem m) { return (unsigned)m <= GS_HOST_MAPPED ? host_mem_names[m] : "?"; }

int gs_host_mem_parse(const char *s, gs_host_mem *m)
{
    for (int i = 0; i <= GS_HOST_MAPPED; i++)
        if (!strcmp(s, host_mem_names[i])) {
            *m = (gs_host_mem)i;
            return 0;
        }
    return -1;
}

int gs_pred_parse(const char *s, gs_type t, gs_compact_params *p, gs_status *st)
{
    char buf[256];
    if (strlen(s) >= sizeof buf) return gs_fail(st, GS_EUSAGE, "predicate too long");
    snprintf(buf, sizeof buf, "%s", s);
    char *args = strchr(buf, ':');
    if (args) *args++ = 0;
    for (int k = 0; k <= GS_PRED_NAN; k++) {
        const char *name = gs_pred_name((gs_pred_kind)k);
        const int nargs = gs_pred_nargs((gs_pred_kind)k);
        if (strcmp(buf, name)) continue;
        p->pred = (gs_pred_kind)k;
        if (nargs == 0) {
            if (args) return gs_fail(st, GS_EUSAGE, "predicate '%s' takes no value", name);
            return GS_OK;
        }
        if (!args) return gs_fail(st, GS_EUSAGE, "predicate '%s' needs a value, e.g. %s:0", s, name);
        char *b = NULL;
        if (nargs == 2) {
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
