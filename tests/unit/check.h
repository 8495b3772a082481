/* check.h - the unit tests' harness: each CHECK prints "PASS name" or "FAIL name: why";
 * tests/run.sh counts those lines across every test program. */
#ifndef GS_CHECK_H
#define GS_CHECK_H
#include <stdio.h>
#include <stdarg.h>

static int gs_t_pass, gs_t_fail;

static inline void gs_t_report(int ok, const char *name, const char *fmt, ...)
{
    if (ok) {
        gs_t_pass++;
        printf("PASS %s\n", name);
    } else {
        va_list ap;
        gs_t_fail++;
        printf("FAIL %s: ", name);
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf("\n");
    }
    fflush(stdout);
}
/* CHECK(cond, name, why-format, ...) */
#define CHECK(cond, name, ...) gs_t_report(!!(cond), name, __VA_ARGS__)
/* Last line of main: return CHECK_DONE(); */
#define CHECK_DONE() (printf("# %d passed, %d failed\n", gs_t_pass, gs_t_fail), gs_t_fail ? 1 : 0)
#endif
