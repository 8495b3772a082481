/* test_kernels_gpu.cu - every GPU variant of kernels/ (scan_*.cu, compact_*.cu, minmax_*.cu) against the
 * CPU reference launchers of kernels.h, on fresh random data (the seed is printed; --seed N
 * repeats a run). One "PASS name" / "FAIL name: why" line per check (tests/unit/check.h); exit
 * status 1 on any failure.
 *
 *   test_kernels_gpu            the full matrix: all types x ops x incl/excl x widenings, all
 *                               predicates (+invert, +indices), windows 1..10^6 and > n, first = 0
 *                               and W-1; sizes 0, 1, 31, 2^20+3 and 2^28 (defaults and cub); chunked
 *                               runs with the carry left on the device and the minmax halo built as
 *                               the engine builds it; one run of 2^32 + 2^20 elements (scan and
 *                               compact lookback, u32); every GPU variant at every block size it
 *                               accepts (the params' block, as gpustream bench --block sets it), i32
 *                               and f64, whole and chunked
 *   test_kernels_gpu --quick    a representative small run of each default, and (make TUNING=1) of the defaults at
 *                               their smallest and largest block sizes (for compute-sanitizer)
 *   test_kernels_gpu --bench    times every variant on 2^28 elements in device memory (warm-up,
 *                               L2 flushed, median of 15 with cudaEvents) against a device copy and
 *                               cub, each result checked against the CPU once; prints a table
 *   test_kernels_gpu --bench --tune   also times other tile shapes of the three defaults (i32;
 *                               make TUNING=1 builds them)
 *   options: --seed N, --no-big (skip the > 2^32 run), --reps N (bench), --only scan,compact,minmax,blocks
 *            (the matrix or the bench for those operations only; blocks: the block-size sweep)
 *
 * Outputs are poisoned (0xA5 bytes) before each run, every expected element is compared (floats
 * bit for bit except NaN payloads; float sums numerically, on data whose partial sums are exact)
 * and the poison past the last expected element must survive. */
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <unistd.h>

#include "../../kernels/kernels.h"
#include "../../kernels/kernels_gpu.h"
#include "../unit/check.h"

#define CK(x)                                                                                              \
    do {                                                                                                   \
        cudaError_t e_ = (x);                                                                              \
        if (e_ != cudaSuccess) {                                                                           \
            printf("FAIL cuda: %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);                \
            fflush(stdout);                                                                                \
            exit(1);                                                                                       \
        }                                                                                                  \
    } while (0)

static const uint64_t N20 = (1ull << 20) + 3, N28 = 1ull << 28;
static const size_t SLACK = 64; /* poisoned elements past the end that must stay untouched */
static uint64_t g_seed;
static std::string g_only; /* --only: comma-separated operations, empty = all */
static bool want(const char *op)
{
    return g_only.empty() || ("," + g_only + ",").find("," + std::string(op) + ",") != std::string::npos;
}
static int g_threads = 8;
static size_t g_dev_n = (size_t)-1; /* bytes of h_in already in d_in, or -1 */
static std::string g_ref_key;      /* what h_ref holds */

/* ---- host helpers ------------------------------------------------------------------------------ */
template <class F> static void par(size_t n, F f)
{
    if (n < (1u << 16) || g_threads < 2) {
        f((size_t)0, n);
        return;
    }
    std::vector<std::thread> th;
    for (int t = 0; t < g_threads; t++) th.emplace_back(f, n * t / g_threads, n * (t + 1) / g_threads);
    for (auto &x : th) x.join();
}

static inline uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Data: G_FULL random bits (ints) or uniform(-1000, 1000) (floats); G_SMALL values in [-100, 100]
 * (unsigned [0, 200]) and, for floats, multiples of 1/4 in [-8, 8] so float sums are exact in any
 * order; G_DENS nonzero (1..100) with probability `density`, else 0. `special`: the fraction of
 * float elements replaced by NaN, -0.0, +0.0, +inf or -inf. Element i depends on (seed, i) only. */
enum { G_FULL, G_SMALL, G_DENS };
struct gen_spec {
    int kind;
    double special, density;
    uint64_t seed;
};
static const char *gen_name(const gen_spec &g)
{
    static char b[64];
    snprintf(b, sizeof b, "%s%s", g.kind == G_FULL ? "full" : g.kind == G_SMALL ? "small" : "dens",
             g.special > 0 ? "+special" : "");
    return b;
}

template <class T> static T gen_one(const gen_spec &g, uint64_t i)
{
    const uint64_t h = mix64(g.seed * 0x100000001b3ull + i), h2 = mix64(h);
    const double u = (double)(h >> 11) * 0x1.0p-53, u2 = (double)(h2 >> 11) * 0x1.0p-53;
    if constexpr (std::is_floating_point<T>::value) {
        if (g.special > 0 && u2 < g.special) {
            switch (h2 & 7) {
            case 0: case 1: return (T)NAN;
            case 2: return (T)-0.0;
            case 3: return (T)0.0;
            case 4: return (T)INFINITY;
            default: return (T)-INFINITY;
            }
        }
        if (g.kind == G_FULL) return (T)((u * 2 - 1) * 1000);
        if (g.kind == G_SMALL) return (T)((int)(h % 65) - 32) / 4;
        return u >= g.density ? (T)0 : (T)(1 + (h2 % 100));
    } else {
        if (g.kind == G_FULL) return (T)h;
        if (g.kind == G_SMALL) return std::is_signed<T>::value ? (T)((int)(h % 201) - 100) : (T)(h % 201);
        return u >= g.density ? (T)0 : (T)(1 + (h2 % 100));
    }
}

static void gen(gs_type t, void *buf, uint64_t off, size_t n, const gen_spec &g)
{
    g_dev_n = (size_t)-1;
    g_ref_key.clear();
    par(n, [&](size_t b, size_t e) {
        for (size_t i = b; i < e; i++) switch (t) {
            case GS_I32: ((int32_t *)buf)[i] = gen_one<int32_t>(g, off + i); break;
            case GS_I64: ((int64_t *)buf)[i] = gen_one<int64_t>(g, off + i); break;
            case GS_U32: ((uint32_t *)buf)[i] = gen_one<uint32_t>(g, off + i); break;
            case GS_U64: ((uint64_t *)buf)[i] = gen_one<uint64_t>(g, off + i); break;
            case GS_F32: ((float *)buf)[i] = gen_one<float>(g, off + i); break;
            default: ((double *)buf)[i] = gen_one<double>(g, off + i); break;
            }
    });
}

static std::string fmt(gs_type t, const void *p)
{
    char b[96];
    switch (t) {
    case GS_I32: snprintf(b, sizeof b, "%d", *(const int32_t *)p); break;
    case GS_I64: snprintf(b, sizeof b, "%lld", (long long)*(const int64_t *)p); break;
    case GS_U32: snprintf(b, sizeof b, "%u", *(const uint32_t *)p); break;
    case GS_U64: snprintf(b, sizeof b, "%llu", (unsigned long long)*(const uint64_t *)p); break;
    case GS_F32: {
        uint32_t u;
        memcpy(&u, p, 4);
        snprintf(b, sizeof b, "%.9g (0x%08x)", *(const float *)p, u);
        break;
    }
    default: {
        uint64_t u;
        memcpy(&u, p, 8);
        snprintf(b, sizeof b, "%.17g (0x%016llx)", *(const double *)p, (unsigned long long)u);
        break;
    }
    }
    return b;
}

/* elem_eq for the floating type F (float, double). */
template <class F> static bool float_eq(const void *a, const void *b, bool numeric)
{
    F x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    if (x != x || y != y) return x != x && y != y;
    return numeric ? x == y : memcmp(a, b, sizeof x) == 0;
}

/* Equal: same bits, or both NaN; numeric (float sums): == or both NaN. */
static bool elem_eq(gs_type t, const void *a, const void *b, bool numeric)
{
    if (t == GS_F32) return float_eq<float>(a, b, numeric);
    if (t == GS_F64) return float_eq<double>(a, b, numeric);
    return memcmp(a, b, gs_type_size(t)) == 0;
}

/* First index where got != exp (n elements), or (size_t)-1. Parallel. */
static size_t first_diff(gs_type t, const void *got, const void *exp, size_t n, bool numeric)
{
    const size_t sz = gs_type_size(t);
    std::vector<size_t> bad(g_threads + 1, (size_t)-1);
    const int T = n < (1u << 16) ? 1 : g_threads;
    std::vector<std::thread> th;
    for (int k = 0; k < T; k++)
        th.emplace_back([&, k] {
            const size_t b = n * k / T, e = n * (k + 1) / T;
            for (size_t i = b; i < e; i++)
                if (!elem_eq(t, (const char *)got + i * sz, (const char *)exp + i * sz, numeric)) {
                    bad[k] = i;
                    return;
                }
        });
    for (auto &x : th) x.join();
    for (int k = 0; k < T; k++)
        if (bad[k] != (size_t)-1) return bad[k];
    return (size_t)-1;
}

static size_t poison_diff(const void *p, size_t bytes)
{
    for (size_t i = 0; i < bytes; i++)
        if (((const unsigned char *)p)[i] != 0xA5) return i;
    return (size_t)-1;
}

/* ---- device buffers -------------------------------------------------------------------------- */
struct dbuf {
    void *p = nullptr;
    size_t bytes = 0;
    void need(size_t b)
    {
        if (b <= bytes) return;
        g_dev_n = (size_t)-1; /* (d_in's contents are gone) */
        if (p) CK(cudaFree(p));
        bytes = b < 256 ? 256 : b;
        CK(cudaMalloc(&p, bytes));
    }
    void release()
    {
        g_dev_n = (size_t)-1;
        if (p) CK(cudaFree(p));
        p = nullptr;
        bytes = 0;
    }
    char *c() { return (char *)p; }
};
static dbuf d_in, d_out, d_scr, d_small;
static std::vector<char> h_in, h_ref, h_got;
static void hneed(std::vector<char> &v, size_t b)
{
    if (v.size() < b) v.resize(b);
}

/* ---- variants ------------------------------------------------------------------------------- */
/* A scan or compact variant: its name, entry point and scratch size; slow: a teaching variant
 * (no 2^28 in the test matrix). */
template <class Fn, class ScratchFn> struct sc_variant {
    const char *name;
    Fn fn;
    ScratchFn scratch;
    bool slow;
};
typedef sc_variant<gs_scan_gpu_fn, gs_scan_gpu_scratch_fn> scan_v;
typedef sc_variant<gs_compact_gpu_fn, gs_compact_gpu_scratch_fn> compact_v;
static const scan_v scan_vs[] = {
    {"naive", gs_scan_gpu_naive, gs_scan_gpu_naive_scratch, true},
    {"blelloch", gs_scan_gpu_blelloch, gs_scan_gpu_blelloch_scratch, true},
    {"blelloch-smem", gs_scan_gpu_blelloch_smem, gs_scan_gpu_blelloch_smem_scratch, true},
    {"lookback", gs_scan_gpu_lookback, gs_scan_gpu_lookback_scratch, false},
    {"cub", gs_scan_gpu_cub, gs_scan_gpu_cub_scratch, false},
};
static const compact_v compact_vs[] = {
    {"scan", gs_compact_gpu_scan, gs_compact_gpu_scan_scratch, true},
    {"ballot", gs_compact_gpu_ballot, gs_compact_gpu_ballot_scratch, true},
    {"lookback", gs_compact_gpu_lookback, gs_compact_gpu_lookback_scratch, false},
    {"cub", gs_compact_gpu_cub, gs_compact_gpu_cub_scratch, false},
};
struct minmax_v {
    const char *name;
    gs_minmax_gpu_fn fn;
    gs_minmax_gpu_scratch_fn scratch;
    int speed; /* 0 linear O(W), 1 tiled O(log W), 2 vhgw */
};
static const minmax_v minmax_vs[] = {
    {"linear", gs_minmax_gpu_linear, gs_minmax_gpu_linear_scratch, 0},
    {"tiled", gs_minmax_gpu_tiled, gs_minmax_gpu_tiled_scratch, 1},
    {"vhgw", gs_minmax_gpu_vhgw, gs_minmax_gpu_vhgw_scratch, 2},
};

/* " block=N" in a check's name when the params ask for N threads per block */
static std::string block_tag(int block) { return block ? " block=" + std::to_string(block) : std::string(); }
static const char *op_name(gs_scan_op o) { return o == GS_SCAN_SUM ? "sum" : o == GS_SCAN_MIN ? "min" : "max"; }
static const char *pred_names[] = {"nonzero", "eq", "ne", "gt", "ge", "lt", "le", "range", "finite", "nan"};

/* ============================================================================================
 * scan
 * ============================================================================================ */

/* h_in[0..bytes) to d_in unless it is there already */
static void upload(size_t bytes)
{
    if (g_dev_n == bytes) return;
    d_in.need(bytes + 16);
    CK(cudaMemcpy(d_in.p, h_in.data(), bytes, cudaMemcpyHostToDevice));
    g_dev_n = bytes;
}

/* Runs variant v over the first n elements of h_in (already generated), in the given chunks
 * (consecutive calls, the carry staying on the device), and checks against gs_scan_cpu. */
static void scan_check(const scan_v &v, const gs_scan_params &p, size_t n, const std::vector<size_t> &chunks,
                       const char *gname, bool numeric)
{
    char name[256];
    snprintf(name, sizeof name, "scan %s %s->%s %s %s n=%zu%s%s%s [%s]", v.name, gs_type_name(p.type),
             gs_type_name(p.out_type), op_name(p.op), p.exclusive ? "excl" : "incl", n,
             chunks.size() > 1 ? " chunks=" : "", chunks.size() > 1 ? std::to_string(chunks.size()).c_str() : "",
             block_tag(p.block).c_str(), gname);
    const size_t isz = gs_type_size(p.type), osz = gs_type_size(p.out_type);
    gs_status st;
    st.code = 0;
    st.msg[0] = 0;
    gs_value carry, gcarry;
    gs_scan_identity(p.op, p.out_type, &carry);
    hneed(h_ref, (n + SLACK) * osz);
    hneed(h_got, (n + SLACK) * osz);
    static gs_value ref_carry;
    char key[128];
    snprintf(key, sizeof key, "scan %d %d %d %d %zu", p.type, p.out_type, p.op, p.exclusive, n);
    if (g_ref_key != key) {
        if (gs_scan_cpu(&p, h_in.data(), h_ref.data(), n, &carry, &st)) {
            CHECK(0, name, "cpu reference: %s", st.msg);
            return;
        }
        ref_carry = carry;
        g_ref_key = key;
    }
    carry = ref_carry;
    size_t cmax = 0;
    for (size_t c : chunks) cmax = std::max(cmax, c);
    d_out.need((n + SLACK) * osz);
    const size_t scr = v.scratch(&p, cmax);
    d_scr.need(scr);
    d_small.need(64);
    upload(n * isz);
    CK(cudaMemset(d_out.p, 0xA5, (n + SLACK) * osz));
    gs_scan_identity(p.op, p.out_type, &gcarry);
    CK(cudaMemcpy(d_small.p, &gcarry, sizeof gcarry, cudaMemcpyHostToDevice));
    size_t off = 0;
    for (size_t c : chunks) {
        if (v.fn(&p, d_in.c() + off * isz, d_out.c() + off * osz, c, d_small.p, d_scr.p, d_scr.bytes, 0, &st)) {
            CHECK(0, name, "launcher: %s", st.msg);
            return;
        }
        off += c;
    }
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        CHECK(0, name, "cuda: %s", cudaGetErrorString(e));
        exit(1);
    }
    CK(cudaMemcpy(h_got.data(), d_out.p, (n + SLACK) * osz, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&gcarry, d_small.p, sizeof gcarry, cudaMemcpyDeviceToHost));
    const size_t bad = first_diff(p.out_type, h_got.data(), h_ref.data(), n, numeric);
    if (bad != (size_t)-1) {
        CHECK(0, name, "out[%zu] = %s, expected %s (seed %llu)", bad, fmt(p.out_type, h_got.data() + bad * osz).c_str(),
              fmt(p.out_type, h_ref.data() + bad * osz).c_str(), (unsigned long long)g_seed);
        return;
    }
    const size_t pz = poison_diff(h_got.data() + n * osz, SLACK * osz);
    if (pz != (size_t)-1) {
        CHECK(0, name, "wrote past the end (byte %zu after element %zu)", pz, n);
        return;
    }
    CHECK(elem_eq(p.out_type, &gcarry, &carry, numeric), name, "carry %s, expected %s",
          fmt(p.out_type, &gcarry).c_str(), fmt(p.out_type, &carry).c_str());
}

static const gs_type pair_in[] = {GS_I32, GS_I64, GS_U32, GS_U64, GS_F32, GS_F64, GS_I32, GS_U32, GS_F32};
static const gs_type pair_out[] = {GS_I32, GS_I64, GS_U32, GS_U64, GS_F32, GS_F64, GS_I64, GS_U64, GS_F64};

static void test_scan(void)
{
    const size_t sizes[] = {0, 1, 31, N20};
    for (int pi = 0; pi < 9; pi++) {
        const gs_type tin = pair_in[pi];
        const bool isf = gs_type_is_float(tin);
        for (size_t n : sizes) {
            /* sums: small values (float partial sums exact); min/max: full range + specials */
            gen_spec gsum = {G_SMALL, isf ? 0.001 : 0, 0, g_seed + 11 * pi + n};
            gen_spec gmm = {G_FULL, isf ? 0.01 : 0, 0, g_seed + 13 * pi + n + 1};
            hneed(h_in, n * 8 + 64);
            for (int op = 0; op < 3; op++) {
                const gen_spec &g = op == GS_SCAN_SUM ? gsum : gmm;
                gen(tin, h_in.data(), 0, n, g);
                for (int ex = 0; ex < 2; ex++) {
                    gs_scan_params p = {tin, pair_out[pi], (gs_scan_op)op, ex, 0};
                    for (const scan_v &v : scan_vs)
                        scan_check(v, p, n, std::vector<size_t>{n}, gen_name(g), op == GS_SCAN_SUM);
                }
            }
        }
        /* integer sums that wrap */
        if (!isf) {
            gen_spec g = {G_FULL, 0, 0, g_seed + 17 * pi};
            gen(tin, h_in.data(), 0, N20, g);
            for (const scan_v &v : scan_vs)
                scan_check(v, {tin, pair_out[pi], GS_SCAN_SUM, 0, 0}, N20, std::vector<size_t>{N20}, gen_name(g), false);
        }
    }
    /* chunked: consecutive calls, carry on the device; odd offsets take the unaligned paths */
    const std::vector<size_t> chunks = {1000, 1, 0, 4096, 123457, 31, (size_t)N20 - 1000 - 1 - 4096 - 123457 - 31};
    for (int pi = 0; pi < 9; pi++)
        for (int op = 0; op < 3; op++) {
            const gs_type tin = pair_in[pi];
            gen_spec g = {op == GS_SCAN_SUM ? G_SMALL : G_FULL, gs_type_is_float(tin) ? 0.002 : 0, 0, g_seed + 100 + pi};
            gen(tin, h_in.data(), 0, N20, g);
            for (int ex = 0; ex < 2; ex++)
                for (const scan_v &v : scan_vs)
                    scan_check(v, {tin, pair_out[pi], (gs_scan_op)op, ex, 0}, N20, chunks, gen_name(g), op == GS_SCAN_SUM);
        }
    /* 2^28, defaults and cub: a selection of pairs and ops */
    struct {
        int pi, op, ex, kind;
    } big[] = {{0, 0, 0, G_FULL}, {0, 0, 1, G_SMALL}, {1, 1, 0, G_FULL}, {6, 0, 0, G_FULL}, {4, 0, 0, G_SMALL},
               {5, 2, 1, G_FULL}, {8, 0, 1, G_SMALL}, {3, 2, 0, G_FULL}, {2, 1, 1, G_FULL}};
    hneed(h_in, N28 * 8 + 64);
    for (auto &b : big) {
        const gs_type tin = pair_in[b.pi];
        gen_spec g = {b.kind, gs_type_is_float(tin) ? 0.0001 : 0, 0, g_seed + 200 + b.pi};
        gen(tin, h_in.data(), 0, N28, g);
        gs_scan_params p = {tin, pair_out[b.pi], (gs_scan_op)b.op, b.ex, 0};
        for (const scan_v &v : scan_vs)
            if (!v.slow) scan_check(v, p, N28, std::vector<size_t>{N28}, gen_name(g), b.op == GS_SCAN_SUM);
        if (b.pi == 0 && b.ex == 0) /* chunks of 2^26 + 1 elements: unaligned chunk starts at scale */
            for (const scan_v &v : scan_vs)
                if (!v.slow)
                    scan_check(v, p, N28, {(1u << 26) + 1, (1u << 26) + 1, (1u << 26) + 1, (1u << 26) - 3},
                               gen_name(g), false);
    }
}

/* ============================================================================================
 * compact
 * ============================================================================================ */

static void set_operand(gs_type t, gs_value *v, double x)
{
    switch (t) {
    case GS_I32: v->i32 = (int32_t)x; break;
    case GS_I64: v->i64 = (int64_t)x; break;
    case GS_U32: v->u32 = (uint32_t)x; break;
    case GS_U64: v->u64 = (uint64_t)x; break;
    case GS_F32: v->f32 = (float)x; break;
    default: v->f64 = x; break;
    }
}
static gs_compact_params make_pred(gs_type t, int kind, int invert, int indices, bool full)
{
    gs_compact_params p;
    memset(&p, 0, sizeof p);
    p.type = t;
    p.pred = (gs_pred_kind)kind;
    p.invert = invert;
    p.indices = indices;
    const bool uns = t == GS_U32 || t == GS_U64;
    double a = uns ? 100 : 0, b = uns ? 150 : 40; /* small data: [-100, 100] / [0, 200] / floats [-8, 8] */
    if (gs_type_is_float(t) && !full) {
        a = 0.5;
        b = 4.25;
    }
    if (kind == GS_PRED_EQ || kind == GS_PRED_NE) a = gs_type_is_float(t) ? (full ? 0 : 1.25) : (uns ? 7 : -7);
    if (full && !gs_type_is_float(t)) { /* full-range ints: split the range */
        if (t == GS_U32) a = 2147483648.0, b = 3e9;
        else if (t == GS_U64) a = 9.2e18, b = 1.3e19;
        else a = 0, b = t == GS_I32 ? 1e9 : 4e18;
    }
    set_operand(t, &p.a, a);
    set_operand(t, &p.b, b);
    return p;
}

static void compact_check(const compact_v &v, const gs_compact_params &p, size_t n, const std::vector<size_t> &chunks,
                          uint64_t base, const char *gname)
{
    char name[256];
    snprintf(name, sizeof name, "compact %s %s %s%s%s n=%zu%s%s%s [%s]", v.name, gs_type_name(p.type),
             pred_names[p.pred], p.invert ? " invert" : "", p.indices ? " indices" : "", n,
             chunks.size() > 1 ? " chunks=" : "", chunks.size() > 1 ? std::to_string(chunks.size()).c_str() : "",
             block_tag(p.block).c_str(), gname);
    const size_t isz = gs_type_size(p.type), osz = p.indices ? 8 : isz;
    const gs_type ot = p.indices ? GS_U64 : p.type;
    gs_status st;
    st.code = 0;
    st.msg[0] = 0;
    size_t kept = 0;
    hneed(h_ref, (n + SLACK) * osz);
    hneed(h_got, (n + SLACK) * osz);
    static size_t ref_kept;
    char key[160];
    snprintf(key, sizeof key, "compact %d %d %d %d %llu %llu %zu %llu", p.type, p.pred, p.invert, p.indices,
             (unsigned long long)p.a.u64, (unsigned long long)p.b.u64, n, (unsigned long long)base);
    if (g_ref_key != key) {
        if (gs_compact_cpu(&p, h_in.data(), n, h_ref.data(), base, &ref_kept, &st)) {
            CHECK(0, name, "cpu reference: %s", st.msg);
            return;
        }
        g_ref_key = key;
    }
    kept = ref_kept;
    size_t cmax = 0;
    for (size_t c : chunks) cmax = std::max(cmax, c);
    d_out.need((n + SLACK) * osz);
    d_scr.need(v.scratch(&p, cmax));
    d_small.need(64);
    upload(n * isz);
    CK(cudaMemset(d_out.p, 0xA5, (n + SLACK) * osz));
    size_t off = 0, got = 0;
    for (size_t c : chunks) {
        CK(cudaMemset(d_small.p, 0xA5, 8));
        if (v.fn(&p, d_in.c() + off * isz, c, d_out.c() + got * osz, base + off, (uint64_t *)d_small.p, d_scr.p,
                 d_scr.bytes, 0, &st)) {
            CHECK(0, name, "launcher: %s", st.msg);
            return;
        }
        uint64_t cnt = 0;
        cudaError_t e = cudaMemcpy(&cnt, d_small.p, 8, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) {
            CHECK(0, name, "cuda: %s", cudaGetErrorString(e));
            exit(1);
        }
        if (cnt > c) {
            CHECK(0, name, "chunk at %zu: count %llu > %zu elements", off, (unsigned long long)cnt, c);
            return;
        }
        got += cnt;
        off += c;
    }
    if (got != kept) {
        CHECK(0, name, "kept %zu, expected %zu (seed %llu)", got, kept, (unsigned long long)g_seed);
        return;
    }
    CK(cudaMemcpy(h_got.data(), d_out.p, (n + SLACK) * osz, cudaMemcpyDeviceToHost));
    const size_t bad = first_diff(ot, h_got.data(), h_ref.data(), kept, false);
    if (bad != (size_t)-1) {
        CHECK(0, name, "out[%zu] = %s, expected %s (seed %llu)", bad, fmt(ot, h_got.data() + bad * osz).c_str(),
              fmt(ot, h_ref.data() + bad * osz).c_str(), (unsigned long long)g_seed);
        return;
    }
    const size_t pz = poison_diff(h_got.data() + kept * osz, (n - kept + SLACK) * osz);
    CHECK(pz == (size_t)-1, name, "wrote past the kept elements (byte %zu after element %zu)", pz, kept);
}

static void test_compact(void)
{
    const size_t sizes[] = {0, 1, 31, N20};
    const std::vector<size_t> chunks = {1000, 1, 0, 4096, 123457, 31, (size_t)N20 - 1000 - 1 - 4096 - 123457 - 31};
    for (int t = 0; t < GS_NTYPES; t++) {
        const gs_type ty = (gs_type)t;
        const bool isf = gs_type_is_float(ty);
        for (size_t n : sizes) {
            gen_spec g = {G_SMALL, isf ? 0.05 : 0, 0, g_seed + 300 + t + n};
            hneed(h_in, (n + 64) * 8);
            gen(ty, h_in.data(), 0, n, g);
            for (int k = 0; k <= GS_PRED_NAN; k++)
                for (int inv = 0; inv < 2; inv++)
                    for (int idx = 0; idx < 2; idx++)
                        for (const compact_v &v : compact_vs)
                            compact_check(v, make_pred(ty, k, inv, idx, false), n, std::vector<size_t>{n},
                                          1000000007ull * idx, gen_name(g));
        }
        /* full-range data, chunked with bases */
        gen_spec g = {G_FULL, isf ? 0.02 : 0, 0, g_seed + 400 + t};
        gen(ty, h_in.data(), 0, N20, g);
        for (int k : {GS_PRED_GT, GS_PRED_RANGE, GS_PRED_NONZERO, GS_PRED_NAN})
            for (int idx = 0; idx < 2; idx++)
                for (const compact_v &v : compact_vs)
                    compact_check(v, make_pred(ty, k, k == GS_PRED_RANGE, idx, true), N20, chunks, (1ull << 40) * idx,
                                  gen_name(g));
    }
    /* 2^28, defaults and cub */
    struct {
        gs_type t;
        int kind, inv, idx;
        double dens;
    } big[] = {{GS_I32, GS_PRED_NONZERO, 0, 0, 0.5}, {GS_I32, GS_PRED_NONZERO, 0, 1, 0.01},
               {GS_I32, GS_PRED_NONZERO, 1, 0, 0.99}, {GS_F32, GS_PRED_GT, 0, 0, -1},
               {GS_F64, GS_PRED_NAN, 1, 1, -1},        {GS_U64, GS_PRED_RANGE, 0, 0, -1}};
    hneed(h_in, N28 * 8 + 64);
    for (auto &b : big) {
        gen_spec g = {b.dens >= 0 ? G_DENS : G_FULL, gs_type_is_float(b.t) ? 0.01 : 0, b.dens, g_seed + 500 + b.kind};
        gen(b.t, h_in.data(), 0, N28, g);
        for (const compact_v &v : compact_vs)
            if (!v.slow)
                compact_check(v, make_pred(b.t, b.kind, b.inv, b.idx, b.dens < 0), N28, std::vector<size_t>{N28},
                              123 * b.idx, gen_name(g));
    }
}

/* ============================================================================================
 * minmax
 * ============================================================================================ */

static int mm_ref(const gs_minmax_params *p, const void *in, size_t m, size_t first, void *out, gs_status *st)
{
    const uint64_t w = std::min<uint64_t>(p->window, m);
    if ((double)(m - first) * (double)w < 3e8) return gs_minmax_cpu_naive(p, in, m, first, out, st);
    if (m <= (1u << 24)) return gs_minmax_cpu_lemire(p, in, m, first, out, st);
    return gs_minmax_cpu_vhgw(p, in, m, first, out, st);
}

/* One call on the whole of h_in[0..m) with rows from `first`, or (chunks non-empty) the engine's
 * way: per chunk, [halo | chunk] with the halo the last min(W-1, seen) inputs and first = halo
 * length (partial) or max(halo length, W-1); the rows are concatenated. */
static void minmax_check(const minmax_v &v, const gs_minmax_params &p, size_t m, size_t first,
                         const std::vector<size_t> &chunks, bool partial, const char *gname)
{
    char name[256];
    const char *only = p.only == GS_MM_BOTH ? "" : p.only == GS_MM_MIN ? " only=min" : " only=max";
    if (chunks.empty())
        snprintf(name, sizeof name, "minmax %s %s W=%llu m=%zu first=%zu%s%s [%s]", v.name, gs_type_name(p.type),
                 (unsigned long long)p.window, m, first, only, block_tag(p.block).c_str(), gname);
    else
        snprintf(name, sizeof name, "minmax %s %s W=%llu n=%zu chunks=%zu%s%s%s [%s]", v.name, gs_type_name(p.type),
                 (unsigned long long)p.window, m, chunks.size(), partial ? " partial" : "", only,
                 block_tag(p.block).c_str(), gname);
    const size_t sz = gs_type_size(p.type), cols = p.only == GS_MM_BOTH ? 2 : 1;
    const uint64_t W = p.window;
    if (!chunks.empty()) first = partial ? 0 : (size_t)std::min<uint64_t>(W - 1, m);
    const size_t rows = first < m ? m - first : 0;
    gs_status st;
    st.code = 0;
    st.msg[0] = 0;
    hneed(h_ref, (rows * cols + SLACK) * sz);
    hneed(h_got, (rows * cols + SLACK) * sz);
    char key[160];
    snprintf(key, sizeof key, "minmax %d %llu %d %zu %zu", p.type, (unsigned long long)p.window, p.only, m, first);
    if (rows && g_ref_key != key) {
        if (mm_ref(&p, h_in.data(), m, first, h_ref.data(), &st)) {
            CHECK(0, name, "cpu reference: %s", st.msg);
            return;
        }
        g_ref_key = key;
    }
    d_small.need(64);
    if (chunks.empty()) {
        d_out.need((rows * cols + SLACK) * sz);
        d_scr.need(v.scratch(&p, m));
        upload(m * sz);
        CK(cudaMemset(d_out.p, 0xA5, (rows * cols + SLACK) * sz));
        if (v.fn(&p, d_in.p, m, first, d_out.p, d_scr.p, d_scr.bytes, 0, &st)) {
            CHECK(0, name, "launcher: %s", st.msg);
            return;
        }
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            CHECK(0, name, "cuda: %s", cudaGetErrorString(e));
            exit(1);
        }
        CK(cudaMemcpy(h_got.data(), d_out.p, (rows * cols + SLACK) * sz, cudaMemcpyDeviceToHost));
    } else {
        const uint64_t H = W - 1;
        size_t cmax = 0;
        for (size_t c : chunks) cmax = std::max(cmax, c);
        const size_t mmax = (size_t)std::min<uint64_t>(H, m) + cmax;
        d_in.need(mmax * sz + 16);
        d_out.need((mmax * cols + SLACK) * sz);
        d_scr.need(v.scratch(&p, mmax));
        size_t off = 0, hl = 0, rgot = 0;
        memset(h_got.data(), 0xA5, (rows * cols + SLACK) * sz);
        for (size_t c : chunks) {
            /* [halo | chunk] from the host copy: the halo is in[off-hl .. off) */
            const size_t mc = hl + c;
            const size_t fc = partial ? hl : (size_t)std::max<uint64_t>(hl, H);
            g_dev_n = (size_t)-1;
            CK(cudaMemcpy(d_in.p, h_in.data() + (off - hl) * sz, mc * sz, cudaMemcpyHostToDevice));
            if (fc < mc) {
                CK(cudaMemset(d_out.p, 0xA5, ((mc - fc) * cols + SLACK) * sz));
                if (v.fn(&p, d_in.p, mc, fc, d_out.p, d_scr.p, d_scr.bytes, 0, &st)) {
                    CHECK(0, name, "launcher: %s", st.msg);
                    return;
                }
                cudaError_t e = cudaMemcpy(h_got.data() + rgot * cols * sz, d_out.p, (mc - fc) * cols * sz,
                                           cudaMemcpyDeviceToHost);
                if (e != cudaSuccess) {
                    CHECK(0, name, "cuda: %s", cudaGetErrorString(e));
                    exit(1);
                }
                std::vector<unsigned char> tail(SLACK * sz);
                CK(cudaMemcpy(tail.data(), d_out.c() + (mc - fc) * cols * sz, SLACK * sz, cudaMemcpyDeviceToHost));
                if (poison_diff(tail.data(), SLACK * sz) != (size_t)-1) {
                    CHECK(0, name, "chunk at %zu wrote past its %zu rows", off, mc - fc);
                    return;
                }
                rgot += mc - fc;
            }
            off += c;
            hl = (size_t)std::min<uint64_t>(H, mc);
        }
        if (rgot != rows) {
            CHECK(0, name, "%zu rows, expected %zu", rgot, rows);
            return;
        }
    }
    const size_t bad = first_diff(p.type, h_got.data(), h_ref.data(), rows * cols, false);
    if (bad != (size_t)-1) {
        CHECK(0, name, "out[%zu] (row %zu) = %s, expected %s (seed %llu)", bad, bad / cols,
              fmt(p.type, h_got.data() + bad * sz).c_str(), fmt(p.type, h_ref.data() + bad * sz).c_str(),
              (unsigned long long)g_seed);
        return;
    }
    const size_t pz = chunks.empty() ? poison_diff(h_got.data() + rows * cols * sz, SLACK * sz) : (size_t)-1;
    CHECK(pz == (size_t)-1, name, "wrote past the last row (byte %zu)", pz);
}

static void test_minmax(void)
{
    const uint64_t wins[] = {1, 2, 3, 5, 17, 64, 500, 4095, 4096, 4097, 4098, 8193, 100000, 1000000};
    hneed(h_in, (N28 + 64) * 8);
    for (int t = 0; t < GS_NTYPES; t++) {
        const gs_type ty = (gs_type)t;
        const bool isf = gs_type_is_float(ty);
        gen_spec g = {G_FULL, isf ? 0.001 : 0, 0, g_seed + 600 + t};
        /* tiny sizes, every window, first = 0 and W-1 */
        for (size_t m : {(size_t)0, (size_t)1, (size_t)31}) {
            gen(ty, h_in.data(), 0, m, g);
            for (uint64_t W : {1ull, 2ull, 3ull, 31ull, 32ull, 1000ull})
                for (const minmax_v &v : minmax_vs) {
                    gs_minmax_params p = {.type = ty, .window = W, .only = GS_MM_BOTH, .block = 0};
                    minmax_check(v, p, m, 0, {}, false, gen_name(g));
                    if (W - 1 <= m) minmax_check(v, p, m, (size_t)(W - 1), {}, false, gen_name(g));
                }
        }
        /* 2^20+3: every window (linear only where O(W) per row is affordable) */
        gen(ty, h_in.data(), 0, N20, g);
        for (uint64_t W : wins)
            for (const minmax_v &v : minmax_vs) {
                if (v.speed == 0 && W > 4096) continue;
                for (int only = 0; only < 3; only++) {
                    if (only && (W != 500 && W != 100000)) continue;
                    gs_minmax_params p = {.type = ty, .window = W, .only = (gs_mm_only)only, .block = 0};
                    minmax_check(v, p, N20, (size_t)std::min<uint64_t>(W - 1, N20), {}, false, gen_name(g));
                    if (!only && (v.speed > 0 || W <= 64)) minmax_check(v, p, N20, 0, {}, false, gen_name(g));
                    if (!only && v.speed == 2) minmax_check(v, p, N20, 12345, {}, false, gen_name(g));
                }
            }
        /* W > n */
        for (const minmax_v &v : minmax_vs) {
            gs_minmax_params p = {.type = ty, .window = 3000000, .only = GS_MM_BOTH, .block = 0};
            if (v.speed > 0) minmax_check(v, p, N20, 0, {}, false, gen_name(g));
            minmax_check(v, p, N20, N20, {}, false, gen_name(g));
        }
        /* linear at W = 10^6: few rows */
        minmax_check(minmax_vs[0], {ty, 1000000, GS_MM_BOTH, 0}, N20, N20 - 5000, {}, false, gen_name(g));
        /* chunked like the engine, halo carried */
        const std::vector<size_t> chunks = {1000, 1, 7, 4096, 300000, 31, (size_t)N20 - 1000 - 1 - 7 - 4096 - 300000 - 31};
        for (uint64_t W : {1ull, 2ull, 64ull, 500ull, 4097ull, 100000ull, 1000000ull})
            for (const minmax_v &v : minmax_vs) {
                if (v.speed == 0 && W > 4096) continue;
                for (int partial = 0; partial < 2; partial++)
                    minmax_check(v, {ty, W, GS_MM_BOTH, 0}, N20, 0, chunks, partial, gen_name(g));
            }
    }
    /* 2^28, vhgw (and tiled at one window) */
    for (gs_type ty : {GS_I32, GS_F32, GS_F64, GS_U64}) {
        gen_spec g = {G_FULL, gs_type_is_float(ty) ? 0.0001 : 0, 0, g_seed + 700 + ty};
        gen(ty, h_in.data(), 0, N28, g);
        for (uint64_t W : {2ull, 500ull, 1000000ull}) {
            if (ty != GS_I32 && W == 2) continue;
            gs_minmax_params p = {.type = ty, .window = W, .only = GS_MM_BOTH, .block = 0};
            minmax_check(minmax_vs[2], p, N28, (size_t)(W - 1), {}, false, gen_name(g));
            if (ty == GS_I32 && W == 500) {
                minmax_check(minmax_vs[2], p, N28, 0, {}, false, gen_name(g));
                minmax_check(minmax_vs[1], p, N28, (size_t)(W - 1), {}, false, gen_name(g));
            }
        }
    }
}

/* ============================================================================================
 * block sizes: every GPU variant at every block size its registry row accepts (the params' block,
 * as bench --block sets it), on i32 and f64 (and i32->i64 scans), sizes 0, 1, 31 and 2^20+3 (no
 * multiple of any tile), a few ops, predicates and windows, whole and chunked; and the launchers
 * refuse the sizes they were not built for
 * ============================================================================================ */

struct block_run {
    const gs_variant *v;
    int block;
};
/* (variant, block) for every GPU variant of op that takes a block size, at each size it accepts */
static std::vector<block_run> block_runs(gs_op op)
{
    size_t nv = 0;
    const gs_variant *vs = gs_variants(&nv);
    std::vector<block_run> r;
    for (size_t i = 0; i < nv; i++)
        if (vs[i].op == op && vs[i].where == GS_GPU)
            for (int b = 32; b <= 1024; b *= 2)
                if (vs[i].blocks & GS_BLOCK_BIT(b)) r.push_back({&vs[i], b});
    return r;
}
static scan_v scan_of(const gs_variant *v) { return {v->name, v->gpu.scan, v->scratch.scan, false}; }
static compact_v compact_of(const gs_variant *v) { return {v->name, v->gpu.compact, v->scratch.compact, false}; }
static minmax_v minmax_of(const gs_variant *v)
{
    return {v->name, v->gpu.minmax, v->scratch.minmax, !strcmp(v->name, "linear") ? 0 : !strcmp(v->name, "tiled") ? 1 : 2};
}

static void test_block_sweep(void)
{
    const size_t sizes[] = {0, 1, 31, N20};
    const std::vector<size_t> chunks = {1000, 1, 0, 4096, 123457, 31, (size_t)N20 - 1000 - 1 - 4096 - 123457 - 31};
    const std::vector<block_run> sr = block_runs(GS_OP_SCAN), cr = block_runs(GS_OP_COMPACT),
                                 mr = block_runs(GS_OP_MINMAX);
    CHECK(sr.size() >= 20 && cr.size() >= 14 && mr.size() >= 13, "blocks: every GPU variant but cub sweeps",
          "%zu scan, %zu compact, %zu minmax (variant, block) pairs", sr.size(), cr.size(), mr.size());
    hneed(h_in, (N20 + 64) * 8);
    for (gs_type ty : {GS_I32, GS_F64}) {
        const bool isf = gs_type_is_float(ty);
        for (size_t n : sizes) {
            /* scan: inclusive sums of small values (float sums exact), exclusive max of the full range,
             * and (i32) the widening to i64 */
            for (int op : {GS_SCAN_SUM, GS_SCAN_MAX}) {
                gen_spec g = {op == GS_SCAN_SUM ? G_SMALL : G_FULL, isf ? 0.001 : 0, 0, g_seed + 900 + 7 * ty + n + op};
                gen(ty, h_in.data(), 0, n, g);
                std::vector<gs_type> outs = {ty};
                if (ty == GS_I32 && op == GS_SCAN_SUM) outs.push_back(GS_I64);
                for (const gs_type to : outs)
                    for (const block_run &b : sr)
                        scan_check(scan_of(b.v), {ty, to, (gs_scan_op)op, op == GS_SCAN_MAX, b.block}, n,
                                   std::vector<size_t>{n}, gen_name(g), op == GS_SCAN_SUM);
            }
            /* compact: nonzero values, gt inverted as indices (8-byte staging), range values */
            gen_spec g = {G_SMALL, isf ? 0.05 : 0, 0, g_seed + 950 + 7 * ty + n};
            gen(ty, h_in.data(), 0, n, g);
            for (int k : {GS_PRED_NONZERO, GS_PRED_GT, GS_PRED_RANGE})
                for (const block_run &b : cr) {
                    gs_compact_params p = make_pred(ty, k, k == GS_PRED_GT, k == GS_PRED_GT, false);
                    p.block = b.block;
                    compact_check(compact_of(b.v), p, n, std::vector<size_t>{n}, 1000000007ull * p.indices, gen_name(g));
                }
            /* minmax: W = 1 (its own kernel), 2 and 17 (vhgw's small shape), 18 and 34 (the other shape's
             * smallest groups), 500, 4097 (longer than some tiles: vhgw's large path), 10^5, W > n;
             * rows from W-1, and from 0 (clipped windows) */
            gen_spec gm = {G_FULL, isf ? 0.001 : 0, 0, g_seed + 980 + 7 * ty + n};
            gen(ty, h_in.data(), 0, n, gm);
            for (uint64_t W : {1ull, 2ull, 17ull, 18ull, 34ull, 500ull, 4097ull, 100000ull, 3000000ull}) {
                std::vector<size_t> firsts = {(size_t)std::min<uint64_t>(W - 1, n)};
                if (W > 1) firsts.push_back(0);
                for (size_t first : firsts)
                    for (const block_run &b : mr) {
                        const minmax_v v = minmax_of(b.v);
                        /* linear is O(W) a row: long windows only on tiny inputs (as test_minmax) */
                        if (v.speed == 0 && n > 31 && (W > 4096 || (first == 0 && W > 64))) continue;
                        minmax_check(v, {ty, W, GS_MM_BOTH, b.block}, n, first, {}, false, gen_name(gm));
                    }
            }
        }
        /* chunked: the scan carry and the compaction base cross calls, the minmax halo is rebuilt */
        gen_spec g = {G_SMALL, isf ? 0.002 : 0, 0, g_seed + 990 + ty};
        gen(ty, h_in.data(), 0, N20, g);
        for (const block_run &b : sr)
            scan_check(scan_of(b.v), {ty, ty, GS_SCAN_SUM, 0, b.block}, N20, chunks, gen_name(g), true);
        for (const block_run &b : cr) {
            gs_compact_params p = make_pred(ty, GS_PRED_GT, 0, 1, false);
            p.block = b.block;
            compact_check(compact_of(b.v), p, N20, chunks, 1ull << 40, gen_name(g));
        }
        const std::vector<size_t> mchunks = {1000, 1, 7, 4096, 300000, 31, (size_t)N20 - 1000 - 1 - 7 - 4096 - 300000 - 31};
        for (const block_run &b : mr)
            for (uint64_t W : {2ull, 500ull, 4097ull}) {
                const minmax_v v = minmax_of(b.v);
                if (v.speed == 0 && W > 500) continue;
                minmax_check(v, {ty, W, GS_MM_BOTH, b.block}, N20, 0, mchunks, W == 500, gen_name(g));
            }
    }
}

static void test_blocks(void)
{
    if (GS_HAVE_TUNING) test_block_sweep();
    else printf("SKIP blocks: the block-size sweep needs a make TUNING=1 build\n");
    /* launchers refuse a size they have no kernel for, before launching anything (a default build:
     * every size but 0, in each variant that has a default block size) */
    size_t nv = 0;
    const gs_variant *vs = gs_variants(&nv);
    gen_spec g = {G_SMALL, 0, 0, g_seed + 999};
    gen(GS_I32, h_in.data(), 0, 1000, g);
    upload(1000 * 4);
    d_out.need(16000 * 2);
    d_small.need(64);
    for (size_t i = 0; i < nv; i++) {
        const gs_variant *v = &vs[i];
        if (v->where != GS_GPU || !(v->blocks || (!GS_HAVE_TUNING && v->block_default))) continue;
        for (int b : {48, 2048, 32, 1024, 512}) {
            if (v->blocks & GS_BLOCK_BIT(b)) continue;
            gs_status st;
            st.code = 0;
            st.msg[0] = 0;
            int rc;
            if (v->op == GS_OP_SCAN) {
                const gs_scan_params p = {GS_I32, GS_I32, GS_SCAN_SUM, 0, b};
                d_scr.need(v->scratch.scan(&p, 1000));
                rc = v->gpu.scan(&p, d_in.p, d_out.p, 1000, d_small.p, d_scr.p, d_scr.bytes, 0, &st);
            } else if (v->op == GS_OP_COMPACT) {
                gs_compact_params p = make_pred(GS_I32, GS_PRED_NONZERO, 0, 0, false);
                p.block = b;
                d_scr.need(v->scratch.compact(&p, 1000));
                rc = v->gpu.compact(&p, d_in.p, 1000, d_out.p, 0, (uint64_t *)d_small.p, d_scr.p, d_scr.bytes, 0, &st);
            } else {
                const gs_minmax_params p = {.type = GS_I32, .window = 500, .only = GS_MM_BOTH, .block = b};
                d_scr.need(v->scratch.minmax(&p, 1000));
                rc = v->gpu.minmax(&p, d_in.p, 1000, 499, d_out.p, d_scr.p, d_scr.bytes, 0, &st);
            }
            char name[96];
            snprintf(name, sizeof name, "blocks: %s launcher refuses %d threads per block", v->name, b);
            CHECK(rc == GS_EUSAGE && strstr(st.msg, "threads per block") != NULL, name, "rc %d: %s", rc, st.msg);
        }
    }
    CK(cudaDeviceSynchronize());
}

/* ============================================================================================
 * more than 2^32 elements: u32 sum scan (lookback, cub) and compact lookback (values and sparse
 * indices). Data made from a hash of the index, checked piece by piece.
 * ============================================================================================ */

static void test_big(void)
{
    const uint64_t N = (1ull << 32) + (1ull << 20), P = 1ull << 27; /* P: host piece */
    size_t fr = 0, tot = 0;
    CK(cudaMemGetInfo(&fr, &tot));
    if (fr < N * 8 + (2ull << 30)) {
        printf("# skip >2^32 run: %.1f GB free on the device, %.1f needed\n", fr / 1e9, (N * 8 + (2ull << 30)) / 1e9);
        return;
    }
    d_in.release();
    d_out.release();
    d_scr.release();
    char *din, *dout;
    CK(cudaMalloc(&din, N * 4));
    CK(cudaMalloc(&dout, N * 4));
    void *hp;
    CK(cudaMallocHost(&hp, P * 4 * 3));
    uint32_t *hin = (uint32_t *)hp, *hgot = hin + P, *href = hgot + P;
    const gen_spec g = {G_FULL, 0, 0, g_seed + 900};
    for (uint64_t o = 0; o < N; o += P) {
        const size_t c = (size_t)std::min(P, N - o);
        gen(GS_U32, hin, o, c, g);
        CK(cudaMemcpy(din + o * 4, hin, c * 4, cudaMemcpyHostToDevice));
    }
    d_small.need(64);
    gs_status st;
    st.code = 0;
    st.msg[0] = 0;
    /* scan */
    for (int vi : {3, 4}) {
        const scan_v &v = scan_vs[vi];
        char name[128];
        snprintf(name, sizeof name, "scan %s u32->u32 sum incl n=%llu (> 2^32)", v.name, (unsigned long long)N);
        const gs_scan_params p = {GS_U32, GS_U32, GS_SCAN_SUM, 0, 0};
        void *scr;
        const size_t sb = v.scratch(&p, N);
        CK(cudaMalloc(&scr, sb));
        CK(cudaMemset(dout, 0xA5, N * 4));
        CK(cudaMemset(d_small.p, 0, 8));
        const double t0 = gs_now();
        int rc = v.fn(&p, din, dout, N, d_small.p, scr, sb, 0, &st);
        cudaError_t e = cudaDeviceSynchronize();
        const double t1 = gs_now();
        if (rc || e != cudaSuccess) {
            CHECK(0, name, "%s", rc ? st.msg : cudaGetErrorString(e));
            CK(cudaFree(scr));
            continue;
        }
        gs_value carry;
        carry.u64 = 0;
        size_t bad = (size_t)-1;
        for (uint64_t o = 0; o < N && bad == (size_t)-1; o += P) {
            const size_t c = (size_t)std::min(P, N - o);
            gen(GS_U32, hin, o, c, g);
            gs_scan_cpu(&p, hin, href, c, &carry, &st);
            CK(cudaMemcpy(hgot, dout + o * 4, c * 4, cudaMemcpyDeviceToHost));
            const size_t b = first_diff(GS_U32, hgot, href, c, false);
            if (b != (size_t)-1) {
                bad = o + b;
                CHECK(0, name, "out[%zu] = %u, expected %u", bad, hgot[b], href[b]);
            }
        }
        uint32_t gc = 0;
        CK(cudaMemcpy(&gc, d_small.p, 4, cudaMemcpyDeviceToHost));
        if (bad == (size_t)-1)
            CHECK(gc == carry.u32, name, "carry %u, expected %u (kernel %.1f ms)", gc, carry.u32, (t1 - t0) * 1e3);
        CK(cudaFree(scr));
    }
    /* compact lookback: values (half kept) and sparse indices (positions above 2^32) */
    for (int idx = 0; idx < 2; idx++) {
        char name[128];
        snprintf(name, sizeof name, "compact lookback u32 gt %s n=%llu (> 2^32)", idx ? "indices" : "values",
                 (unsigned long long)N);
        gs_compact_params p;
        memset(&p, 0, sizeof p);
        p.type = GS_U32;
        p.pred = GS_PRED_GT;
        p.a.u32 = idx ? 0xFFF00000u : 0x80000000u;
        p.indices = idx;
        const size_t sb = gs_compact_gpu_lookback_scratch(&p, N);
        void *scr;
        CK(cudaMalloc(&scr, sb));
        CK(cudaMemset(dout, 0xA5, N * 4));
        int rc = gs_compact_gpu_lookback(&p, din, N, dout, 0, (uint64_t *)d_small.p, scr, sb, 0, &st);
        cudaError_t e = cudaDeviceSynchronize();
        if (rc || e != cudaSuccess) {
            CHECK(0, name, "%s", rc ? st.msg : cudaGetErrorString(e));
            CK(cudaFree(scr));
            continue;
        }
        uint64_t cnt = 0;
        CK(cudaMemcpy(&cnt, d_small.p, 8, cudaMemcpyDeviceToHost));
        const size_t osz = idx ? 8 : 4;
        uint64_t kept = 0;
        bool ok = true;
        std::vector<char> ref(P * 8), got(P * 8);
        for (uint64_t o = 0; o < N && ok; o += P) {
            const size_t c = (size_t)std::min(P, N - o);
            gen(GS_U32, hin, o, c, g);
            size_t k = 0;
            gs_compact_cpu(&p, hin, c, ref.data(), o, &k, &st);
            if (kept + k > cnt) {
                CHECK(0, name, "kept %llu, expected at least %llu", (unsigned long long)cnt, (unsigned long long)(kept + k));
                ok = false;
                break;
            }
            CK(cudaMemcpy(got.data(), dout + kept * osz, k * osz, cudaMemcpyDeviceToHost));
            const size_t b = first_diff(idx ? GS_U64 : GS_U32, got.data(), ref.data(), k, false);
            if (b != (size_t)-1) {
                CHECK(0, name, "out[%llu] = %s, expected %s", (unsigned long long)(kept + b),
                      fmt(idx ? GS_U64 : GS_U32, got.data() + b * osz).c_str(),
                      fmt(idx ? GS_U64 : GS_U32, ref.data() + b * osz).c_str());
                ok = false;
            }
            kept += k;
        }
        if (ok) CHECK(cnt == kept, name, "kept %llu, expected %llu", (unsigned long long)cnt, (unsigned long long)kept);
        CK(cudaFree(scr));
    }
    CK(cudaFreeHost(hp));
    CK(cudaFree(din));
    CK(cudaFree(dout));
}

/* ============================================================================================
 * --quick: one representative small run of each default (for compute-sanitizer)
 * ============================================================================================ */

static void test_quick(void)
{
    const size_t n = 100003;
    hneed(h_in, n * 8 + 64);
    const std::vector<size_t> chunks = {4096, 1, 30000, n - 4096 - 1 - 30000};
    gen_spec g = {G_SMALL, 0.01, 0, g_seed};
    gen(GS_I32, h_in.data(), 0, n, g);
    scan_check(scan_vs[3], {GS_I32, GS_I32, GS_SCAN_SUM, 0, 0}, n, chunks, "small", true);
    scan_check(scan_vs[3], {GS_I32, GS_I64, GS_SCAN_MAX, 1, 0}, n, std::vector<size_t>{n}, "small", false);
    compact_check(compact_vs[2], make_pred(GS_I32, GS_PRED_GT, 0, 0, false), n, chunks, 0, "small");
    compact_check(compact_vs[2], make_pred(GS_I32, GS_PRED_NONZERO, 1, 1, false), n, std::vector<size_t>{n}, 77, "small");
    gen(GS_F64, h_in.data(), 0, n, g);
    scan_check(scan_vs[3], {GS_F64, GS_F64, GS_SCAN_MIN, 1, 0}, n, std::vector<size_t>{n}, "small", false);
    compact_check(compact_vs[2], make_pred(GS_F64, GS_PRED_NAN, 1, 0, false), n, std::vector<size_t>{n}, 0, "small");
    gen(GS_I32, h_in.data(), 0, n, g);
    for (uint64_t W : {2ull, 500ull, 5000ull, 40000ull}) {
        minmax_check(minmax_vs[2], {GS_I32, W, GS_MM_BOTH, 0}, n, 0, {}, false, "small");
        minmax_check(minmax_vs[2], {GS_I32, W, GS_MM_MIN, 0}, n, (size_t)(W - 1), {}, false, "small");
        minmax_check(minmax_vs[2], {GS_I32, W, GS_MM_BOTH, 0}, n, 0, chunks, true, "small");
    }
    /* block-size overrides (make TUNING=1): the largest tiles (compact lookback's dynamic shared
     * staging, vhgw's large-window path) and the smallest */
#if GS_HAVE_TUNING
    for (int b : {64, 256}) {
        minmax_check(minmax_vs[2], {GS_I32, 40000, GS_MM_BOTH, b}, n, 0, {}, false, "small");
        minmax_check(minmax_vs[2], {GS_I32, 500, GS_MM_BOTH, b}, n, 499, {}, false, "small");
    }
    for (int b : {64, 512}) {
        scan_check(scan_vs[3], {GS_I32, GS_I32, GS_SCAN_SUM, 0, b}, n, chunks, "small", true);
        gs_compact_params p = make_pred(GS_I32, GS_PRED_NONZERO, 1, 1, false);
        p.block = b;
        compact_check(compact_vs[2], p, n, chunks, 0, "small");
    }
#endif
}

/* ============================================================================================
 * --bench
 * ============================================================================================ */

struct bench_row {
    std::string op, variant, type, param;
    double ms, gelem, gbs, pct, vs_cub;
    bool ok;
};
static std::vector<bench_row> rows;
static int g_reps = 15;
#ifdef GS_TUNING
static bool g_tune = false;
#endif
static dbuf d_flush;

/* median time (ms) of f() over reps, after a warm-up; L2 flushed before each rep (outside the
 * timed region) by writing a buffer twice the L2 size */
template <class F> static double time_ms(F f)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    f();
    CK(cudaDeviceSynchronize());
    std::vector<float> ts;
    for (int i = 0; i < g_reps; i++) {
        CK(cudaMemsetAsync(d_flush.p, i & 0xff, d_flush.bytes));
        CK(cudaEventRecord(a));
        f();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        ts.push_back(ms);
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    std::sort(ts.begin(), ts.end());
    return ts[ts.size() / 2];
}

static double g_copy_gbs;

static void add_row(const char *op, const char *var, const char *type, const std::string &param, double ms, double elems,
                    double bytes, bool ok)
{
    bench_row r;
    r.op = op;
    r.variant = var;
    r.type = type;
    r.param = param;
    r.ms = ms;
    r.gelem = elems / ms / 1e6;
    r.gbs = bytes / ms / 1e6;
    r.pct = 100.0 * r.gbs / g_copy_gbs;
    r.vs_cub = 0;
    r.ok = ok;
    rows.push_back(r);
    printf("# %-8s %-16s %-4s %-14s %10.3f ms %9.1f Gelem/s %9.1f GB/s %6.1f%%  %s\n", op, var, type, param.c_str(), ms,
           r.gelem, r.gbs, r.pct, ok ? "passed" : "FAILED");
    fflush(stdout);
}

static void bench(void)
{
    const size_t n = N28;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("# device: %s, %d SMs, L2 %d MB, %.1f GB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20,
           prop.totalGlobalMem / 1e9);
    d_flush.need((size_t)std::max(prop.l2CacheSize, 1 << 20) * 2);
    d_in.need(n * 8 + 64);
    d_out.need((2 * n + SLACK) * 8);
    d_small.need(64);
    hneed(h_in, n * 8 + 64);
    hneed(h_ref, 2 * n * 8 + 64);
    hneed(h_got, 2 * n * 8 + 64);
    gs_status st;
    st.code = 0;
    st.msg[0] = 0;

    /* the ceiling: device-to-device copy of 2^28 x 4 bytes, read + write */
    double ms = time_ms([&] { CK(cudaMemcpyAsync(d_out.p, d_in.p, n * 4, cudaMemcpyDeviceToDevice)); });
    g_copy_gbs = 2.0 * n * 4 / ms / 1e6;
    add_row("copy", "cudaMemcpy", "i32", "", ms, n, 2.0 * n * 4, true);

    /* ---- scan ---- */
    struct {
        gs_type t;
        gs_scan_op op;
        bool all;
    } sc[] = {{GS_I32, GS_SCAN_SUM, true}, {GS_I64, GS_SCAN_SUM, false}, {GS_F32, GS_SCAN_SUM, false},
              {GS_F64, GS_SCAN_SUM, false}, {GS_I32, GS_SCAN_MAX, false}};
    for (auto &c : sc) {
        if (!want("scan")) break;
        const gs_scan_params p = {c.t, c.t, c.op, 0, 0};
        const size_t sz = gs_type_size(c.t);
        gen_spec g = {G_SMALL, 0, 0, g_seed + 1};
        gen(c.t, h_in.data(), 0, n, g);
        CK(cudaMemcpy(d_in.p, h_in.data(), n * sz, cudaMemcpyHostToDevice));
        gs_value carry;
        gs_scan_identity(p.op, p.out_type, &carry);
        gs_scan_cpu(&p, h_in.data(), h_ref.data(), n, &carry, &st);
        for (const scan_v &v : scan_vs) {
            if (!c.all && v.slow) continue;
            d_scr.need(v.scratch(&p, n));
            gs_value id;
            gs_scan_identity(p.op, p.out_type, &id);
            /* timed reps leave the carry running on (values do not matter for time) */
            auto run = [&] {
                if (v.fn(&p, d_in.p, d_out.p, n, d_small.p, d_scr.p, d_scr.bytes, 0, &st)) {
                    printf("FAIL bench scan %s: %s\n", v.name, st.msg);
                    exit(1);
                }
            };
            CK(cudaMemset(d_out.p, 0xA5, n * sz));
            CK(cudaMemcpy(d_small.p, &id, 8, cudaMemcpyHostToDevice));
            run();
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(h_got.data(), d_out.p, n * sz, cudaMemcpyDeviceToHost));
            const bool ok = first_diff(c.t, h_got.data(), h_ref.data(), n, c.op == GS_SCAN_SUM) == (size_t)-1;
            ms = time_ms(run);
            add_row("scan", v.name, gs_type_name(c.t), op_name(c.op), ms, n, 2.0 * n * sz, ok);
        }
#ifdef GS_TUNING
        if (c.t == GS_I32 && c.op == GS_SCAN_SUM && g_tune) {
            d_scr.need(64 << 20);
            for (int k = 0;; k++) {
                char desc[32];
                CK(cudaMemset(d_small.p, 0, 8));
                CK(cudaMemset(d_out.p, 0xA5, n * sz));
                if (gs_scan_gpu_lookback_tune(k, desc, sizeof desc, d_in.p, d_out.p, n, d_small.p, d_scr.p, d_scr.bytes, 0,
                                              &st))
                    break;
                CK(cudaDeviceSynchronize());
                CK(cudaMemcpy(h_got.data(), d_out.p, n * sz, cudaMemcpyDeviceToHost));
                const bool ok = first_diff(c.t, h_got.data(), h_ref.data(), n, true) == (size_t)-1;
                ms = time_ms([&] {
                    gs_scan_gpu_lookback_tune(k, desc, sizeof desc, d_in.p, d_out.p, n, d_small.p, d_scr.p, d_scr.bytes,
                                              0, &st);
                });
                add_row("scan", (std::string("lookback@") + desc).c_str(), "i32", "sum", ms, n, 2.0 * n * sz, ok);
            }
        }
#endif
    }
    /* ---- compact: nonzero at densities 1%, 50%, 99% (i32), gt on f32 ---- */
    struct {
        gs_type t;
        int kind;
        double dens;
    } cc[] = {{GS_I32, GS_PRED_NONZERO, 0.01}, {GS_I32, GS_PRED_NONZERO, 0.5}, {GS_I32, GS_PRED_NONZERO, 0.99},
              {GS_F32, GS_PRED_GT, 0.5}};
    for (auto &c : cc) {
        if (!want("compact")) break;
        gs_compact_params p = make_pred(c.t, c.kind, 0, 0, false);
        if (c.kind == GS_PRED_GT) p.a.f32 = 50.5f;
        const size_t sz = gs_type_size(c.t);
        gen_spec g = {G_DENS, 0, c.dens, g_seed + 2};
        gen(c.t, h_in.data(), 0, n, g);
        CK(cudaMemcpy(d_in.p, h_in.data(), n * sz, cudaMemcpyHostToDevice));
        size_t kept = 0;
        gs_compact_cpu(&p, h_in.data(), n, h_ref.data(), 0, &kept, &st);
        char param[64];
        snprintf(param, sizeof param, "%s %.0f%%", pred_names[c.kind], 100.0 * kept / n);
        for (const compact_v &v : compact_vs) {
            d_scr.need(v.scratch(&p, n));
            auto run = [&] {
                if (v.fn(&p, d_in.p, n, d_out.p, 0, (uint64_t *)d_small.p, d_scr.p, d_scr.bytes, 0, &st)) {
                    printf("FAIL bench compact %s: %s\n", v.name, st.msg);
                    exit(1);
                }
            };
            CK(cudaMemset(d_out.p, 0xA5, n * sz));
            run();
            uint64_t cnt = 0;
            CK(cudaMemcpy(&cnt, d_small.p, 8, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(h_got.data(), d_out.p, kept * sz, cudaMemcpyDeviceToHost));
            const bool ok = cnt == kept && first_diff(c.t, h_got.data(), h_ref.data(), kept, false) == (size_t)-1;
            ms = time_ms(run);
            add_row("compact", v.name, gs_type_name(c.t), param, ms, n, (double)n * sz + (double)kept * sz, ok);
        }
#ifdef GS_TUNING
        if (c.t == GS_I32 && g_tune) {
            d_scr.need(64 << 20);
            for (int k = 0;; k++) {
                char desc[32];
                CK(cudaMemset(d_out.p, 0xA5, n * sz));
                if (gs_compact_gpu_lookback_tune(k, desc, sizeof desc, &p, d_in.p, n, d_out.p, (uint64_t *)d_small.p,
                                                 d_scr.p, d_scr.bytes, 0, &st))
                    break;
                uint64_t cnt = 0;
                CK(cudaMemcpy(&cnt, d_small.p, 8, cudaMemcpyDeviceToHost));
                CK(cudaMemcpy(h_got.data(), d_out.p, kept * sz, cudaMemcpyDeviceToHost));
                const bool ok = cnt == kept && first_diff(c.t, h_got.data(), h_ref.data(), kept, false) == (size_t)-1;
                ms = time_ms([&] {
                    gs_compact_gpu_lookback_tune(k, desc, sizeof desc, &p, d_in.p, n, d_out.p, (uint64_t *)d_small.p,
                                                 d_scr.p, d_scr.bytes, 0, &st);
                });
                add_row("compact", (std::string("lookback@") + desc).c_str(), "i32", param, ms, n,
                        (double)n * sz + (double)kept * sz, ok);
            }
        }
#endif
    }
    /* ---- minmax ---- */
    struct {
        gs_type t;
        uint64_t W;
    } mc[] = {{GS_I32, 2}, {GS_I32, 64}, {GS_I32, 500}, {GS_I32, 4096}, {GS_I32, 1000000}, {GS_F32, 500}, {GS_F64, 500}};
    for (auto &c : mc) {
        if (!want("minmax")) break;
        const gs_minmax_params p = {.type = c.t, .window = c.W, .only = GS_MM_BOTH, .block = 0};
        const size_t sz = gs_type_size(c.t), first = (size_t)(c.W - 1), R = n - first;
        gen_spec g = {G_FULL, 0, 0, g_seed + 3};
        gen(c.t, h_in.data(), 0, n, g);
        CK(cudaMemcpy(d_in.p, h_in.data(), n * sz, cudaMemcpyHostToDevice));
        gs_minmax_cpu_vhgw(&p, h_in.data(), n, first, h_ref.data(), &st);
        for (const minmax_v &v : minmax_vs) {
            if (v.speed == 0 && c.W > 64) continue;
            if (v.speed == 1 && c.W > 4096) continue;
            d_scr.need(v.scratch(&p, n));
            auto run = [&] {
                if (v.fn(&p, d_in.p, n, first, d_out.p, d_scr.p, d_scr.bytes, 0, &st)) {
                    printf("FAIL bench minmax %s: %s\n", v.name, st.msg);
                    exit(1);
                }
            };
            CK(cudaMemset(d_out.p, 0xA5, 2 * R * sz));
            run();
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(h_got.data(), d_out.p, 2 * R * sz, cudaMemcpyDeviceToHost));
            const bool ok = first_diff(c.t, h_got.data(), h_ref.data(), 2 * R, false) == (size_t)-1;
            ms = time_ms(run);
            add_row("minmax", v.name, gs_type_name(c.t), "W=" + std::to_string(c.W), ms, n, (double)n * sz + 2.0 * R * sz,
                    ok);
        }
#ifdef GS_TUNING
        if ((c.t == GS_I32 || (c.t == GS_F64 && c.W == 500)) && g_tune) {
            d_scr.need(64 << 20);
            for (int k = 0;; k++) {
                char desc[32];
                CK(cudaMemset(d_out.p, 0xA5, 2 * R * sz));
                if (gs_minmax_gpu_vhgw_tune(k, desc, sizeof desc, &p, d_in.p, n, first, d_out.p, d_scr.p, d_scr.bytes, 0,
                                            &st))
                    break;
                CK(cudaDeviceSynchronize());
                CK(cudaMemcpy(h_got.data(), d_out.p, 2 * R * sz, cudaMemcpyDeviceToHost));
                const bool ok = first_diff(c.t, h_got.data(), h_ref.data(), 2 * R, false) == (size_t)-1;
                ms = time_ms([&] {
                    gs_minmax_gpu_vhgw_tune(k, desc, sizeof desc, &p, d_in.p, n, first, d_out.p, d_scr.p, d_scr.bytes, 0,
                                            &st);
                });
                add_row("minmax", (std::string("vhgw@") + desc).c_str(), gs_type_name(c.t), "W=" + std::to_string(c.W), ms,
                        n, (double)n * sz + 2.0 * R * sz, ok);
            }
        }
#endif
    }
    /* ratio to cub of the same (op, type, param) */
    for (auto &r : rows)
        for (auto &c : rows)
            if (c.variant == "cub" && c.op == r.op && c.type == r.type && c.param == r.param) r.vs_cub = c.ms / r.ms;
    printf("\n%-8s %-16s %-4s %-14s %10s %9s %9s %7s %7s  %s\n", "op", "variant", "type", "param", "ms", "Gelem/s",
           "GB/s", "%copy", "x cub", "check");
    for (auto &r : rows) {
        char cub[16] = "";
        if (r.vs_cub > 0) snprintf(cub, sizeof cub, "%.2f", r.vs_cub);
        printf("%-8s %-16s %-4s %-14s %10.3f %9.1f %9.1f %6.1f%% %7s  %s\n", r.op.c_str(), r.variant.c_str(),
               r.type.c_str(), r.param.c_str(), r.ms, r.gelem, r.gbs, r.pct, cub, r.ok ? "passed" : "FAILED");
        if (!r.ok) gs_t_fail++;
    }
    printf("# n = 2^28 elements in device memory, median of %d reps after a warm-up, L2 flushed before each\n", g_reps);
}

/* ============================================================================================ */

int main(int argc, char **argv)
{
    bool do_bench = false, quick = false, big = true, big_only = false;
    g_seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--bench")) do_bench = true;
        else if (!strcmp(argv[i], "--quick")) quick = true;
        else if (!strcmp(argv[i], "--no-big")) big = false;
        else if (!strcmp(argv[i], "--tune")) {
#ifdef GS_TUNING
            g_tune = true;
#else
            fprintf(stderr, "%s: --tune: the tune shapes are not in this build; rebuild with make TUNING=1\n", argv[0]);
            return 2;
#endif
        }
        else if (!strcmp(argv[i], "--big-only")) big_only = true;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) g_seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) g_reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) g_only = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--bench [--tune] | --quick | --big-only] [--no-big] [--seed N] [--reps N] [--only OPS]\n",
                    argv[0]);
            return 2;
        }
    }
    g_threads = std::max(1u, std::min(64u, std::thread::hardware_concurrency()));
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("# no CUDA device: GPU kernel tests skipped\n");
        return 0;
    }
    CK(cudaSetDevice(0));
    printf("# seed %llu\n", (unsigned long long)g_seed);
    fflush(stdout);
    const double t0 = gs_now();
    if (do_bench) {
        bench();
    } else if (quick) {
        test_quick();
    } else if (big_only) {
        test_big();
    } else {
        if (want("scan")) test_scan();
        printf("# scan done %.1f s\n", gs_now() - t0);
        fflush(stdout);
        if (want("compact")) test_compact();
        printf("# compact done %.1f s\n", gs_now() - t0);
        fflush(stdout);
        if (want("minmax")) test_minmax();
        printf("# minmax done %.1f s\n", gs_now() - t0);
        fflush(stdout);
        if (want("blocks")) test_blocks();
        printf("# blocks done %.1f s\n", gs_now() - t0);
        fflush(stdout);
        if (big) test_big();
        printf("# big done %.1f s\n", gs_now() - t0);
    }
    return CHECK_DONE();
}
