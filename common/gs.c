/* gs.c - status messages, type names and sizes, exact value parsing, conversion, size parsing, large buffers. */
#include "gs.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <time.h>

int gs_fail(gs_status *st, int code, const char *fmt, ...)
{
    if (st && st->code == GS_OK) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(st->msg, sizeof st->msg, fmt, ap);
        va_end(ap);
        st->code = code;
    }
    return code;
}

int gs_fail_errno(gs_status *st, int errnum, const char *fmt, ...)
{
    if (st && st->code == GS_OK) {
        va_list ap;
        size_t len;
        va_start(ap, fmt);
        vsnprintf(st->msg, sizeof st->msg, fmt, ap);
        va_end(ap);
        len = strlen(st->msg);
        snprintf(st->msg + len, sizeof st->msg - len, ": %s", strerror(errnum));
        st->code = (errnum == EPIPE) ? GS_EPIPE : (errnum == ENOMEM ? GS_ENOMEM : GS_EDATA);
    }
    return st ? st->code : GS_EDATA;
}

static const struct {
    const char *name;
    size_t size;
    int is_float, is_signed;
} type_info[GS_NTYPES] = {
    [GS_I32] = {"i32", 4, 0, 1}, [GS_I64] = {"i64", 8, 0, 1}, [GS_U32] = {"u32", 4, 0, 0},
    [GS_U64] = {"u64", 8, 0, 0}, [GS_F32] = {"f32", 4, 1, 1}, [GS_F64] = {"f64", 8, 1, 1},
};

size_t gs_type_size(gs_type t) { return (unsigned)t < GS_NTYPES ? type_info[t].size : 0; }
const char *gs_type_name(gs_type t) { return (unsigned)t < GS_NTYPES ? type_info[t].name : "?"; }
int gs_type_is_float(gs_type t) { return (unsigned)t < GS_NTYPES && type_info[t].is_float; }
int gs_type_is_signed(gs_type t) { return (unsigned)t < GS_NTYPES && type_info[t].is_signed; }

int gs_type_parse(const char *s, gs_type *t)
{
    static const struct {
        const char *alias;
        gs_type t;
    } aliases[] = {
        {"i32", GS_I32}, {"int32", GS_I32}, {"int", GS_I32},      {"i64", GS_I64},   {"int64", GS_I64},
        {"long", GS_I64}, {"u32", GS_U32},  {"uint32", GS_U32},   {"u64", GS_U64},   {"uint64", GS_U64},
        {"f32", GS_F32},  {"float32", GS_F32}, {"float", GS_F32}, {"f64", GS_F64},   {"float64", GS_F64},
        {"double", GS_F64},
    };
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcasecmp(s, aliases[i].alias) == 0) {
            *t = aliases[i].t;
            return 0;
        }
    return -1;
}

/* Integers are parsed with strto[u]ll in base 10 and must consume the whole string: "1.5" or
 * "1e3" is not an integer (the user asked for exact values). */
int gs_value_parse(const char *s, gs_type t, gs_value *v)
{
    char *end;
    if (!s || !*s) return -1;
    errno = 0;
    switch (t) {
    case GS_I32:
    case GS_I64: {
        long long x = strtoll(s, &end, 10);
        if (*end || end == s) return -1;
        if (errno == ERANGE) return -2;
        if (t == GS_I32) {
            if (x < INT32_MIN || x > INT32_MAX) return -2;
            v->i32 = (int32_t)x;
        } else
            v->i64 = x;
        return 0;
    }
    case GS_U32:
    case GS_U64: {
        /* strtoull skips any white space and then negates a '-': refuse it after any white
         * space too, or "\t-5" would read as 2^64-5. */
        const char *p = s;
        while (isspace((unsigned char)*p)) p++;
        if (*p == '-') return -2;
        unsigned long long x = strtoull(p, &end, 10);
        if (*end || end == p) return -1;
        if (errno == ERANGE) return -2;
        if (t == GS_U32) {
            if (x > UINT32_MAX) return -2;
            v->u32 = (uint32_t)x;
        } else
            v->u64 = x;
        return 0;
    }
    case GS_F32: {
        float x = strtof(s, &end);
        if (*end || end == s) return -1;
        v->f32 = x;
        return 0;
    }
    case GS_F64: {
        double x = strtod(s, &end);
        if (*end || end == s) return -1;
        v->f64 = x;
        return 0;
    }
    default: return -1;
    }
}

/* Conversions go through the widest type of the source's kind. Float -> int saturates
 * (C leaves out-of-range conversion undefined), NaN -> 0. */
static int64_t sat_i64(double x, double lo, double hi)
{
    if (x != x) return 0;
    if (x <= lo) return (int64_t)lo;
    if (x >= hi) return (int64_t)hi;
    return (int64_t)x;
}

void gs_convert(const void *in, gs_type tin, void *out, gs_type tout, size_t n)
{
    if (tin == tout) {
        if (in != out) memmove(out, in, n * gs_type_size(tin));
        return;
    }
    /* Walk forward when the output is not wider than the input, backward otherwise, so an
     * in-place conversion never overwrites input it has yet to read. */
    int backward = gs_type_size(tout) > gs_type_size(tin);
    for (size_t k = 0; k < n; k++) {
        size_t i = backward ? n - 1 - k : k;
        int kind; /* 0 signed, 1 unsigned, 2 float */
        int64_t si = 0;
        uint64_t ui = 0;
        double f = 0;
        switch (tin) {
        case GS_I32: si = ((const int32_t *)in)[i]; kind = 0; break;
        case GS_I64: si = ((const int64_t *)in)[i]; kind = 0; break;
        case GS_U32: ui = ((const uint32_t *)in)[i]; kind = 1; break;
        case GS_U64: ui = ((const uint64_t *)in)[i]; kind = 1; break;
        case GS_F32: f = ((const float *)in)[i]; kind = 2; break;
        default: f = ((const double *)in)[i]; kind = 2; break;
        }
        switch (tout) {
        case GS_I32:
            ((int32_t *)out)[i] = kind == 0 ? (int32_t)(si < INT32_MIN ? INT32_MIN : si > INT32_MAX ? INT32_MAX : si)
                                 : kind == 1 ? (int32_t)(ui > INT32_MAX ? INT32_MAX : ui)
                                             : (int32_t)sat_i64(f, INT32_MIN, INT32_MAX);
            break;
        case GS_I64:
            ((int64_t *)out)[i] = kind == 0 ? si : kind == 1 ? (int64_t)(ui > INT64_MAX ? INT64_MAX : ui)
                                 : sat_i64(f, -9223372036854775808.0, 9223372036854775807.0);
            break;
        case GS_U32:
            ((uint32_t *)out)[i] = kind == 0 ? (uint32_t)(si < 0 ? 0 : si > UINT32_MAX ? UINT32_MAX : si)
                                 : kind == 1 ? (uint32_t)(ui > UINT32_MAX ? UINT32_MAX : ui)
                                 : (f != f || f <= 0) ? 0 : f >= 4294967295.0 ? UINT32_MAX : (uint32_t)f;
            break;
        case GS_U64:
            ((uint64_t *)out)[i] = kind == 0 ? (uint64_t)(si < 0 ? 0 : si) : kind == 1 ? ui
                                 : (f != f || f <= 0) ? 0 : f >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)f;
            break;
        case GS_F32: ((float *)out)[i] = kind == 0 ? (float)si : kind == 1 ? (float)ui : (float)f; break;
        default: ((double *)out)[i] = kind == 0 ? (double)si : kind == 1 ? (double)ui : f; break;
        }
    }
}

int gs_size_parse(const char *s, uint64_t *out)
{
    char *end;
    double mult = 1;
    if (!s || !*s || *s == '-') return -1;
    if (s[0] == '2' && s[1] == '^') {
        char *e2;
        unsigned long p = strtoul(s + 2, &e2, 10);
        if (e2 == s + 2 || *e2 || p > 63) return -1;
        *out = 1ull << p;
        return 0;
    }
    /* Plain digits are read exactly (a double would turn 2^63-1 into 2^63). */
    size_t nd = strspn(s, "0123456789");
    if (nd && !s[nd]) {
        errno = 0;
        unsigned long long u = strtoull(s, &end, 10);
        if (errno == ERANGE || u == ULLONG_MAX) return -1; /* the same range as below: < 2^64 - 1 */
        *out = u;
        return 0;
    }
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || errno == ERANGE || x != x || x < 0) return -1;
    if (*end) {
        switch (*end) {
        case 'k': mult = 1e3; break;
        case 'K': mult = 1024.0; break;
        case 'M': mult = 1024.0 * 1024; break;
        case 'G': mult = 1024.0 * 1024 * 1024; break;
        case 'T': mult = 1024.0 * 1024 * 1024 * 1024; break;
        default: return -1;
        }
        end++;
        if (*end == 'i') end++; /* KiB, MiB */
        if (*end == 'B') end++;
        if (*end) return -1;
    }
    x *= mult;
    if (x >= 18446744073709551615.0 || x != floor(x)) return -1;
    *out = (uint64_t)x;
    return 0;
}

double gs_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void *gs_alloc_large(size_t n)
{
    void *p = NULL;
    const size_t align = n >= GS_HUGE_PAGE ? GS_HUGE_PAGE : 4096;
    if (posix_memalign(&p, align, n ? n : 1)) return NULL;
    if (align == GS_HUGE_PAGE) (void)madvise(p, n, MADV_HUGEPAGE); /* advice: the kernel may refuse */
    return p;
}
