/* fuzz_options.c - libFuzzer target for the parsers behind the command line's option values:
 * gs_size_parse (--chunk, -n, --window ...), gs_value_parse, gs_type_parse (common/gs.c),
 * gs_pred_parse for every element type (pipeline/job.c), gs_dist_parse and the generator it
 * configures (pipeline/gen.c), gs_format_parse and gs_format_from_name (io/io.c).
 *
 * Input: the bytes up to the first NUL, as one option value; every parser gets it. Checks,
 * besides the sanitizers' (UB in a parser or in what a parsed value drives is a finding):
 *   - integers: gs_value_parse agrees with an independent reading of strtol's grammar
 *     (spaces, a sign, decimal digits, nothing after) and the type's range, for i32 i64 u32
 *     u64 (unsigned: no minus sign at all);
 *   - floats: a parsed value printed with enough digits reads back to the same bits;
 *   - sizes: a parsed size printed in decimal reads back to itself (below 2^53, where doubles
 *     are exact); a plain string of digits reads as that integer; 2^N is 1 << N;
 *   - predicates: a success has a known kind, and its operands are what gs_value_parse gives
 *     for the text after ':' (split at the first ':' for range:A:B); a failure is GS_EUSAGE
 *     with a message;
 *   - --dist: a success keeps the documented bounds, and 64 values of every type are
 *     generated from it (the CLI's gen does just this);
 *   - types and formats: a parsed name maps back through gs_type_name / gs_format_name;
 *     a name's format survives appending ".zst", which is reported.
 *
 * Run: bash tests/fuzz/run.sh, or build/fuzz/fuzz_options -max_len=65536 CORPUS_COPY */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/pool.h"
#include "../../pipeline/pipeline.h"

/* strtol's grammar in base 10, exactly: 0 ok, -1 invalid, -2 out of range. Unsigned types
 * take no sign but '+' (strtoul would negate a '-'; an option value never means that). */
static int gs_fz_int(const char *s, gs_type t, gs_value *v)
{
    const int sgn = gs_type_is_signed(t);
    const unsigned bits = (unsigned)gs_type_size(t) * 8;
    while (isspace((unsigned char)*s)) s++;
    int neg = 0;
    if (*s == '+' || *s == '-') neg = *s++ == '-';
    if (!isdigit((unsigned char)*s)) return -1;
    uint64_t mag = 0;
    int over = 0;
    for (; isdigit((unsigned char)*s); s++) {
        unsigned d = (unsigned)(*s - '0');
        if (mag > (UINT64_MAX - d) / 10) over = 1;
        else mag = mag * 10 + d;
    }
    if (*s) return -1;
    if (neg && !sgn) return -2;
    uint64_t lim = sgn ? (neg ? (uint64_t)1 << (bits - 1) : ((uint64_t)1 << (bits - 1)) - 1)
                       : (bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1);
    if (over || mag > lim) return -2;
    memset(v, 0, sizeof *v);
    switch (t) {
    case GS_I32: v->i32 = neg ? (int32_t)(0 - (uint32_t)mag) : (int32_t)mag; break;
    case GS_I64: v->i64 = neg ? (int64_t)(0 - mag) : (int64_t)mag; break;
    case GS_U32: v->u32 = (uint32_t)mag; break;
    default: v->u64 = mag; break;
    }
    return 0;
}

static int gs_fz_same(gs_type t, const gs_value *a, const gs_value *b)
{
    return memcmp(a, b, gs_type_size(t)) == 0;
}

static void gs_fz_value(const char *s)
{
    for (int ti = 0; ti < GS_NTYPES; ti++) {
        gs_type t = (gs_type)ti;
        gs_value v, r;
        memset(&v, 0, sizeof v);
        int rc = gs_value_parse(s, t, &v);
        if (rc != 0 && rc != -1 && rc != -2) abort();
        if (!gs_type_is_float(t)) {
            int rr = gs_fz_int(s, t, &r);
            if ((rc == 0) != (rr == 0) || (rc == 0 && !gs_fz_same(t, &v, &r))) abort();
            continue;
        }
        if (rc) continue;
        char buf[64];
        if (t == GS_F32) snprintf(buf, sizeof buf, "%.9g", (double)v.f32);
        else snprintf(buf, sizeof buf, "%.17g", v.f64);
        if (gs_value_parse(buf, t, &r)) abort();
        if (t == GS_F32 ? v.f32 == v.f32 : v.f64 == v.f64) {
            if (!gs_fz_same(t, &v, &r)) abort();
        } else if (t == GS_F32 ? r.f32 == r.f32 : r.f64 == r.f64) {
            abort(); /* NaN read back as a number */
        }
    }
}

static void gs_fz_size(const char *s)
{
    uint64_t v = 0, w = 0;
    if (gs_size_parse(s, &v)) return;
    if (s[0] == '-') abort();
    if (v < ((uint64_t)1 << 53)) {
        char buf[32];
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
        if (gs_size_parse(buf, &w) || w != v) abort();
    }
    size_t n = strlen(s);
    if (n && n <= 15 && strspn(s, "0123456789") == n && v != strtoull(s, NULL, 10)) abort();
    if (s[0] == '2' && s[1] == '^' && v != (uint64_t)1 << strtoul(s + 2, NULL, 10)) abort();
}

static void gs_fz_pred(const char *s)
{
    for (int ti = 0; ti < GS_NTYPES; ti++) {
        gs_type t = (gs_type)ti;
        gs_compact_params p;
        gs_status st = {0};
        memset(&p, 0, sizeof p);
        p.type = t;
        int rc = gs_pred_parse(s, t, &p, &st);
        if (rc) {
            /* One line, unless it quotes a value that holds a newline itself. */
            if (rc != GS_EUSAGE || st.code != GS_EUSAGE || !st.msg[0] || (strchr(st.msg, '\n') && !strchr(s, '\n')))
                abort();
            continue;
        }
        if ((unsigned)p.pred > GS_PRED_NAN) abort();
        const char *colon = strchr(s, ':');
        int nargs = p.pred == GS_PRED_RANGE ? 2 : (p.pred == GS_PRED_NONZERO || p.pred >= GS_PRED_FINITE) ? 0 : 1;
        if (!nargs) {
            if (colon) abort();
            continue;
        }
        if (!colon) abort();
        char a[256], *b = NULL;
        snprintf(a, sizeof a, "%s", colon + 1);
        if (nargs == 2) {
            if (!(b = strchr(a, ':'))) abort();
            *b++ = 0;
        }
        gs_value va, vb;
        memset(&va, 0, sizeof va);
        memset(&vb, 0, sizeof vb);
        if (gs_value_parse(a, t, &va) || (b && gs_value_parse(b, t, &vb))) abort();
        int nan_a = gs_type_is_float(t) && (t == GS_F32 ? va.f32 != va.f32 : va.f64 != va.f64);
        if (!nan_a && !gs_fz_same(t, &va, &p.a)) abort();
        if (b && memcmp(&vb, &p.b, gs_type_size(t)) && !gs_type_is_float(t)) abort();
    }
}

static void gs_fz_dist(const char *s)
{
    gs_gen_opts g;
    gs_status st = {0};
    memset(&g, 0, sizeof g);
    g.seed = 1;
    if (gs_dist_parse(s, &g, &st)) {
        if (st.code != GS_EUSAGE || !st.msg[0]) abort();
        return;
    }
    switch (g.dist) {
    case GS_DIST_UNIFORM: if (!(g.b >= g.a)) abort(); break;
    case GS_DIST_NORMAL: if (!(g.b >= 0)) abort(); break;
    case GS_DIST_WALK: break;
    case GS_DIST_SPARSE: if (!(g.a >= 0 && g.a <= 1)) abort(); break;
    case GS_DIST_SINE: if (!(g.a >= 1)) abort(); break;
    default: abort();
    }
    /* Generate from it, as `gpustream gen --dist S -t T` does (-DGS_FZ_NO_GEN: not, to fuzz
     * past a known finding there). */
#ifndef GS_FZ_NO_GEN
    for (int ti = 0; ti < GS_NTYPES; ti++) {
        uint64_t buf[64];
        size_t got = 0;
        gs_source src;
        g.type = (gs_type)ti;
        g.n = 64;
        if (gs_gen_source(&src, &g, &st)) abort();
        if (src.read(src.ctx, buf, 64, &got, &st) || got != 64) abort();
        gs_gen_source_free(&src);
    }
#endif
}

static void gs_fz_names(const char *s)
{
    gs_type t;
    if (!gs_type_parse(s, &t)) {
        gs_type t2;
        if ((unsigned)t >= GS_NTYPES || gs_type_parse(gs_type_name(t), &t2) || t2 != t) abort();
    }
    gs_format f, f2;
    if (!gs_format_parse(s, &f)) {
        if (f <= GS_FMT_AUTO || f > GS_FMT_TEXT || gs_format_parse(gs_format_name(f), &f2) || f2 != f) abort();
    }
    int z = -1, z2 = -1;
    gs_format e = gs_format_from_name(s, &z);
    if ((unsigned)e > GS_FMT_TEXT || (z != 0 && z != 1)) abort();
    if (e != GS_FMT_AUTO && z == 0) {
        size_t n = strlen(s);
        char *zs = malloc(n + 5);
        if (!zs) abort();
        memcpy(zs, s, n);
        memcpy(zs + n, ".zst", 5);
        if (gs_format_from_name(zs, &z2) != e || z2 != 1) abort();
        free(zs);
    }
    if (gs_format_from_name(s, NULL) != e) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int started;
    if (!started) {
        gs_pool_start(2);
        started = 1;
    }
    char *s = malloc(size + 1);
    if (!s) abort();
    memcpy(s, data, size);
    s[size] = 0; /* an option value ends at its first NUL */
    gs_fz_size(s);
    gs_fz_value(s);
    gs_fz_pred(s);
    gs_fz_dist(s);
    gs_fz_names(s);
    free(s);
    return 0;
}
