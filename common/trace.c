/* trace.c - a timeline of a run kept in memory (trace.h). Each event takes a slot by an atomic
 * counter, so threads record without a lock; slots are read after the run. */
#include "trace.h"
#include "gs.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define GS_TRACE_MAX 16384
#define GS_TRACE_TEXT 128

typedef struct {
    double t;
    char text[GS_TRACE_TEXT];
} gs_trace_ev;

static gs_trace_ev *gs_tr;
static double gs_tr_t0;
static atomic_size_t gs_tr_n;
static atomic_int gs_tr_on;

void gs_trace_enable(void)
{
    if (atomic_load(&gs_tr_on)) return;
    if (!(gs_tr = calloc(GS_TRACE_MAX, sizeof *gs_tr))) return;
    gs_tr_t0 = gs_now();
    atomic_store(&gs_tr_on, 1);
}

int gs_trace_enabled(void) { return atomic_load_explicit(&gs_tr_on, memory_order_relaxed); }

void gs_trace(const char *fmt, ...)
{
    if (!atomic_load_explicit(&gs_tr_on, memory_order_acquire)) return;
    const double t = gs_now() - gs_tr_t0;
    const size_t i = atomic_fetch_add(&gs_tr_n, 1);
    if (i >= GS_TRACE_MAX) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(gs_tr[i].text, sizeof gs_tr[i].text, fmt, ap);
    va_end(ap);
    gs_tr[i].t = t;
}

size_t gs_trace_count(size_t *dropped)
{
    const size_t n = atomic_load(&gs_tr_n);
    if (dropped) *dropped = n > GS_TRACE_MAX ? n - GS_TRACE_MAX : 0;
    return n > GS_TRACE_MAX ? GS_TRACE_MAX : n;
}

const char *gs_trace_event(size_t i, double *t)
{
    *t = gs_tr[i].t;
    return gs_tr[i].text;
}
