/* trace.h - a timeline of a run kept in memory: events (seconds since gs_trace_enable, a line of
 * text) that any thread records and the CLI prints afterwards (GS_TRACE=1: gpustream.c). Off
 * unless enabled: gs_trace then costs one load. No I/O, no printing. */
#ifndef GS_TRACE_H
#define GS_TRACE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Start recording (at most GS_TRACE_MAX events; later ones are counted, not kept). */
void gs_trace_enable(void);
int gs_trace_enabled(void);
void gs_trace(const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* The events kept, in the order they were recorded, and how many were not kept. Read them once
 * every recording thread has stopped. */
size_t gs_trace_count(size_t *dropped);
const char *gs_trace_event(size_t i, double *t);

#ifdef __cplusplus
}
#endif
#endif
