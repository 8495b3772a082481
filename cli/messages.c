/* cli/messages.c - what the command line says on stderr (notes, warnings, errors, the run's
 * timeline under GS_TRACE=1), the exit status a library status becomes, and stdout's final check. */
#include "cli.h"
#include "../common/trace.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int quiet;
int verbose;
int mute;
int ranks_ran;
char err_stage[48];

/* One message, one line: control characters in it (a newline in a file name or a --col value)
 * are written as C escapes (\n, \x01). */
static void put_escaped(const char *m)
{
    for (const unsigned char *p = (const unsigned char *)m; *p; p++) {
        if (*p == '\n') fputs("\\n", stderr);
        else if (*p == '\r') fputs("\\r", stderr);
        else if (*p < 0x20 || *p == 0x7f) fprintf(stderr, "\\x%02x", *p);
        else fputc(*p, stderr);
    }
}

static void vsay(const char *kind, int always, const char *fmt, va_list ap)
{
    if ((quiet && !always) || mute) return;
    fprintf(stderr, "gpustream: %s: %s", kind, always ? err_stage : "");
    char small[512], *m = small;
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n >= (int)sizeof small && (m = malloc((size_t)n + 1))) vsnprintf(m, (size_t)n + 1, fmt, aq);
    va_end(aq);
    put_escaped(m ? m : small);
    if (m != small) free(m);
    fputc('\n', stderr);
}

#define GS_SAY(name, kind, always)  \
    void name(const char *fmt, ...) \
    {                               \
        va_list ap;                 \
        va_start(ap, fmt);          \
        vsay(kind, always, fmt, ap); \
        va_end(ap);                 \
    }
GS_SAY(say_error, "error", 1)
GS_SAY(say_warning, "warning", 0)
GS_SAY(say_note, "note", 0)
#undef GS_SAY

int usage_error(const char *verb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay("error", 1, fmt, ap);
    va_end(ap);
    if (!mute) fprintf(stderr, "Try 'gpustream %s--help' for more information.\n", verb ? verb : "");
    return EXIT_USAGE;
}

int finish_status(const gs_status *st)
{
    switch (st->code) {
    case GS_OK: return EXIT_OK;
    case GS_EPIPE: return EXIT_OK; /* downstream closed: end quietly */
    case GS_EUSAGE: say_error("%s", st->msg); return EXIT_USAGE;
    default: say_error("%s", st->msg); return EXIT_DATA;
    }
}

int check_stdout(void)
{
    if (fflush(stdout) || ferror(stdout)) {
        if (errno == EPIPE) return EXIT_OK;
        say_error("stdout: write failed: %s", strerror(errno));
        return EXIT_DATA;
    }
    return EXIT_OK;
}

/* ---- GS_TRACE ---------------------------------------------------------------------------------
 * GS_TRACE=1: the run's timeline (common/trace.h) on stderr after it, one event a line: seconds
 * since the process started, then what happened (docs/PERFORMANCE.md reads start-up with it). */
void trace_start(void)
{
    const char *trace = getenv("GS_TRACE");
    if (trace && trace[0] == '1') {
        gs_trace_enable();
        gs_trace("process: main");
    }
}

static int trace_cmp(const void *a, const void *b)
{
    double ta, tb;
    gs_trace_event(*(const size_t *)a, &ta);
    gs_trace_event(*(const size_t *)b, &tb);
    return (ta > tb) - (ta < tb);
}

void trace_print(void)
{
    size_t dropped = 0, n = gs_trace_enabled() ? gs_trace_count(&dropped) : 0;
    size_t *ix = n ? malloc(n * sizeof *ix) : NULL;
    if (!ix) return;
    for (size_t i = 0; i < n; i++) ix[i] = i;
    qsort(ix, n, sizeof *ix, trace_cmp);
    for (size_t i = 0; i < n; i++) {
        double t;
        const char *text = gs_trace_event(ix[i], &t);
        fprintf(stderr, "trace %9.4f  %s\n", t, text);
    }
    if (dropped) fprintf(stderr, "trace: %zu later events not kept\n", dropped);
    free(ix);
}

/* A fallback to the CPU, at the start of the run: shown with -v or --stats (never with -q). */
void on_note(void *ctx, const char *msg)
{
    (void)ctx;
    say_note("%s", msg);
}

void warn_short_window(int stage, uint64_t window, uint64_t n)
{
    if (stage)
        say_warning("stage %d (minmax): window %llu is longer than its input (%llu elements): no output", stage,
                    (unsigned long long)window, (unsigned long long)n);
    else
        say_warning("window %llu is longer than the input (%llu elements): no output", (unsigned long long)window,
                    (unsigned long long)n);
}
