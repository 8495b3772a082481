/* cols.c - --col as a list: "a,b,c" (header names or 1-based indices) and ranges "2-5", for
 * several columns of a CSV or a 2-D npy read in one pass. A single column ("price", "3") keeps
 * its own path (io/csv.c's header stage). */
#include "io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* How many of the header's names a failed lookup lists, and how many characters of them. */
#define COL_HINT_NAMES 8
#define COL_HINT_CHARS 160

int gs_col_lookup(char *const *names, int n, const char *q, size_t len, const char *src, const char *what,
                  gs_status *st)
{
    for (int i = 0; i < n; i++)
        if (strlen(names[i]) == len && !memcmp(names[i], q, len)) return i;
    char hint[COL_HINT_CHARS + 64];
    size_t h = 0;
    int near = -1;
    for (int i = 0; i < n && near < 0; i++)
        if (strlen(names[i]) == len && !strncasecmp(names[i], q, len)) near = i;
    if (near >= 0)
        snprintf(hint, sizeof hint, "; did you mean '%s'?", names[near]);
    else {
        h = (size_t)snprintf(hint, sizeof hint, "; its column%s:", n == 1 ? "" : "s");
        int shown = 0;
        for (; shown < n && shown < COL_HINT_NAMES && h + strlen(names[shown]) + 3 <= COL_HINT_CHARS; shown++)
            h += (size_t)snprintf(hint + h, sizeof hint - h, "%s '%s'", shown ? "," : "", names[shown]);
        if (shown < n) snprintf(hint + h, sizeof hint - h, " and %d more", n - shown);
    }
    if (n == 0) hint[0] = 0;
    gs_fail(st, GS_EDATA, "%s: no column named '%.*s' in the header%s%s", src, (int)len, q, what, hint);
    return -1;
}

/* Item [p, e) of a list, trimmed of spaces. */
static void trim(const char **p, const char **e)
{
    while (*p < *e && (**p == ' ' || **p == '\t')) (*p)++;
    while (*e > *p && ((*e)[-1] == ' ' || (*e)[-1] == '\t')) (*e)--;
}

/* A range "A-B" of two numbers: 1 with *a, *b set (not checked); 0 for anything else (a name
 * may hold '-'). */
static int item_range(const char *p, const char *e, long *a, long *b)
{
    const char *q = p;
    long v = 0, w = 0;
    if (q == e || *q < '0' || *q > '9') return 0;
    for (; q < e && *q >= '0' && *q <= '9'; q++) v = v < 100000000 ? v * 10 + (*q - '0') : v;
    while (q < e && (*q == ' ' || *q == '\t')) q++;
    if (q == e || *q != '-') return 0;
    q++;
    while (q < e && (*q == ' ' || *q == '\t')) q++;
    if (q == e) return 0;
    for (; q < e && *q >= '0' && *q <= '9'; q++) w = w < 100000000 ? w * 10 + (*q - '0') : w;
    if (q != e) return 0;
    *a = v;
    *b = w;
    return 1;
}

/* A number "3": 1 with *v set; 0 for a name. */
static int item_number(const char *p, const char *e, long *v)
{
    char buf[32];
    if ((size_t)(e - p) >= sizeof buf) return 0;
    memcpy(buf, p, (size_t)(e - p));
    buf[e - p] = 0;
    return gs_col_number(buf, v);
}

int gs_cols_is_list(const char *spec)
{
    long a, b;
    if (!spec) return 0;
    if (strchr(spec, ',')) return 1;
    const char *p = spec, *e = spec + strlen(spec);
    trim(&p, &e);
    return item_range(p, e, &a, &b);
}

/* Walk the list: each item resolved to 1-based columns appended to cols (names through names[],
 * NULL: no header). check_only: names are not looked up (counted as one column each). */
static int walk(const char *spec, char *const *names, int nnames, int check_only, int *cols, int *k,
                const char *src, gs_status *st)
{
    *k = 0;
    for (const char *p = spec;;) {
        const char *end = strchr(p, ','), *q = p, *e = end ? end : p + strlen(p);
        trim(&q, &e);
        long a, b;
        if (q == e) return gs_fail(st, GS_EUSAGE, "--col '%s': an empty column in the list", spec);
        if (item_range(q, e, &a, &b)) {
            if (a < 1 || b < a)
                return gs_fail(st, GS_EUSAGE, "--col '%s': invalid range '%.*s' (columns are counted from 1, the "
                                              "first end not above the second)", spec, (int)(e - q), q);
        } else if (item_number(q, e, &a)) {
            if (a < 1) return gs_fail(st, GS_EUSAGE, "--col '%s': invalid column '%.*s' (columns are counted from 1)",
                                      spec, (int)(e - q), q);
            b = a;
        } else if (check_only)
            a = b = 0; /* a name: resolved once the header is read */
        else if (!names)
            return gs_fail(st, GS_EUSAGE, "--col '%s': column '%.*s' is given by name, which needs a header line",
                           spec, (int)(e - q), q);
        else {
            const int i = gs_col_lookup(names, nnames, q, (size_t)(e - q), src, "", st);
            if (i < 0) return GS_EDATA;
            a = b = i + 1;
        }
        for (long c = a; c <= b; c++) {
            if (*k == GS_WRITE_COLS_MAX)
                return gs_fail(st, GS_EUSAGE, "--col '%s' selects more than %d columns: at most %d a run", spec,
                               GS_WRITE_COLS_MAX, GS_WRITE_COLS_MAX);
            for (int i = 0; c && i < *k; i++)
                if (cols[i] == (int)c)
                    return gs_fail(st, GS_EUSAGE, "--col '%s': column %ld ('%.*s') is in the list twice", spec, c,
                                   (int)(e - q), q);
            cols[(*k)++] = (int)c;
        }
        if (!end) break;
        p = end + 1;
    }
    return GS_OK;
}

int gs_cols_names_only(const char *spec)
{
    for (const char *p = spec;;) {
        const char *end = strchr(p, ','), *q = p, *e = end ? end : p + strlen(p);
        long a, b;
        trim(&q, &e);
        if (item_range(q, e, &a, &b) || item_number(q, e, &a)) return 0;
        if (!end) return 1;
        p = end + 1;
    }
}

int gs_cols_check(const char *spec, int *k, gs_status *st)
{
    int cols[GS_WRITE_COLS_MAX];
    return walk(spec, NULL, 0, 1, cols, k, "", st);
}

int gs_cols_resolve(const char *spec, char *const *names, int nnames, int *cols, int *k, const char *src,
                    gs_status *st)
{
    return walk(spec, names, nnames, 0, cols, k, src, st);
}
