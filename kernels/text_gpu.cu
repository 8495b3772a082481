/* text_gpu.cu - numbers and csv text on the device (text_gpu.h): rows of values as text, byte for
 * byte what gs_num_format prints (kernels/numtext.h; tests/unit/test_numtext.c holds the two equal),
 * and the lines of a csv block parsed into values (kernels/numparse.h), value for value what the
 * host parses.
 *
 * Formatting.
 * Three steps on the stream. Each row is formatted once, by one thread, into a slot of the scratch
 * (the row's longest text: k values of gs_numtext_bound bytes and their separators), and its
 * length kept (0 for the rows past the device count, and one more 0 at the end); CUB's exclusive
 * sum of those rows + 1 lengths places the rows, its last entry the text's length; then one warp a
 * row copies it from its slot to its place, the lanes on consecutive bytes (reads and writes
 * coalesced), unless a value fell outside numtext.h's exact range or the text would pass the
 * capacity, where *d_bad tells the caller to format on the host instead. Formatting once and copying
 * beside formatting twice (once to count, once to write in place, one thread a row): raw f64 of 2^28
 * to csv, rolling --agg mean,std, the formatter busy 0.141 s against 0.185 (minmax -w 500: 0.164
 * against 0.188), H200 host, 2026-11-29 (docs/PERFORMANCE.md, "Text formatted on the GPU"). */
#include "gpu_common.cuh"
#include "numparse.h"
#include "numtext.h"
#include "text_gpu.h"

#include <cub/device/device_scan.cuh>

/* Alignment of the scratch's parts (lens, offs, CUB's storage, the row slots). */
#define GS_TEXT_ALIGN 256
/* Threads per block of the kernels. */
#define GS_TEXT_THREADS 256
/* Parsing: the bytes of text one thread looks at for line starts. */
#define GS_PARSE_SPAN 64

/* One value as gs_num_format prints it (i32 and u32 widened): its length, or -1. */
__device__ __forceinline__ int gs_text_value(char *o, int32_t v) { return gs_numtext_i64(o, v); }
__device__ __forceinline__ int gs_text_value(char *o, int64_t v) { return gs_numtext_i64(o, v); }
__device__ __forceinline__ int gs_text_value(char *o, uint32_t v) { return gs_numtext_u64(o, v); }
__device__ __forceinline__ int gs_text_value(char *o, uint64_t v) { return gs_numtext_u64(o, v); }
__device__ __forceinline__ int gs_text_value(char *o, float v) { return gs_numtext_f32(o, v); }
__device__ __forceinline__ int gs_text_value(char *o, double v) { return gs_numtext_f64(o, v); }

/* The rows to print: the device count (bounded by rows) or rows. */
__device__ __forceinline__ uint64_t gs_text_count(const uint64_t *d_rows, uint64_t rows)
{
    if (!d_rows) return rows;
    const uint64_t n = *d_rows;
    return n < rows ? n : rows;
}

/* Row i's text into its slot (slot bytes apart), lens[i] its length (0 past the count; lens[rows]
 * = 0); *bad = 1 where a value is out of the exact range. */
template <class T>
__global__ void gs_text_row_k(const T *vals, int k, uint64_t rows, const uint64_t *d_rows, char sep, char *slots,
                              uint64_t slot, uint64_t *lens, int *bad)
{
    const uint64_t n = gs_text_count(d_rows, rows);
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i <= rows; i += stride) {
        uint64_t len = 0;
        if (i < n) {
            const T *row = vals + i * (uint64_t)k;
            char *o = slots + i * slot;
            int out = 0;
            for (int j = 0; j < k; j++) {
                const int w = gs_text_value(o + len, row[j]);
                out |= w < 0;
                len += (uint64_t)(w < 0 ? 0 : w);
                o[len++] = j + 1 < k ? sep : '\n';
            }
            if (out) *bad = 1;
        }
        lens[i] = len;
    }
}

/* Row i's text from its slot to text + offs[i], one warp a row, unless a value was out of range
 * or the total (offs[rows]) passes cap. */
__global__ void gs_text_put_k(uint64_t rows, const uint64_t *d_rows, const char *slots, uint64_t slot,
                              const uint64_t *offs, char *text, size_t cap, const int *bad)
{
    if (*bad || offs[rows] > cap) return;
    const uint64_t n = gs_text_count(d_rows, rows);
    const unsigned lane = threadIdx.x & 31;
    const uint64_t warps = (uint64_t)gridDim.x * (blockDim.x / 32);
    for (uint64_t i = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; i < n; i += warps) {
        const uint64_t at = offs[i], len = offs[i + 1] - at;
        const char *s = slots + i * slot;
        for (uint64_t b = lane; b < len; b += 32) text[at + b] = s[b];
    }
}

/* The length, and the capacity's verdict. */
__global__ void gs_text_total_k(const uint64_t *offs, uint64_t rows, size_t cap, uint64_t *len, int *bad)
{
    const uint64_t total = offs[rows];
    *len = total;
    if (total > cap) *bad = 1;
}

/* Scratch layout: lens and offs (rows + 1 each), CUB's temporary storage, then the rows' slots. */
static size_t gs_text_array_bytes(uint64_t rows) { return gs_align_up((size_t)(rows + 1) * sizeof(uint64_t), GS_TEXT_ALIGN); }
/* A row's slot: its longest text. */
static uint64_t gs_text_slot(gs_type t, int k) { return (uint64_t)k * (uint64_t)(gs_numtext_bound(t) + 1); }

static cudaError_t gs_text_scan(void *tmp, size_t &tmp_bytes, const uint64_t *lens, uint64_t *offs, uint64_t items,
                                cudaStream_t s)
{
    return cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, lens, offs, items, s);
}

extern "C" size_t gs_text_gpu_scratch(uint64_t rows_max, int k, gs_type t)
{
    size_t tmp = 0;
    if (gs_text_scan(NULL, tmp, NULL, NULL, rows_max + 1, 0) != cudaSuccess) return 0;
    return 2 * gs_text_array_bytes(rows_max) + gs_align_up(tmp, GS_TEXT_ALIGN) + (size_t)(rows_max * gs_text_slot(t, k));
}

extern "C" int gs_text_gpu_rows(const void *d_vals, gs_type t, int k, uint64_t rows, const uint64_t *d_rows,
                                char sep, char *d_text, size_t text_cap, uint64_t *d_len, int *d_bad,
                                void *d_scratch, size_t scratch_bytes, void *stream, gs_status *st)
{
    const cudaStream_t s = gs_stream(stream);
    if (k < 1) return gs_fail(st, GS_EUSAGE, "text gpu: %d values per row (at least 1)", k);
    GS_CUDA_CHECK(st, cudaMemsetAsync(d_bad, 0, sizeof(int), s));
    if (rows == 0) {
        GS_CUDA_CHECK(st, cudaMemsetAsync(d_len, 0, sizeof(uint64_t), s));
        return GS_OK;
    }
    size_t tmp = 0;
    GS_CUDA_CHECK(st, gs_text_scan(NULL, tmp, NULL, NULL, rows + 1, s));
    const size_t arr = gs_text_array_bytes(rows), tmp_al = gs_align_up(tmp, GS_TEXT_ALIGN);
    const uint64_t slot = gs_text_slot(t, k);
    GS_FORWARD(gs_check_scratch("text gpu", scratch_bytes, 2 * arr + tmp_al + (size_t)(rows * slot), st));
    uint64_t *lens = (uint64_t *)d_scratch;
    uint64_t *offs = (uint64_t *)((char *)d_scratch + arr);
    void *cub_tmp = (char *)d_scratch + 2 * arr;
    char *slots = (char *)d_scratch + 2 * arr + tmp_al;
    const unsigned grid = gs_grid_for(rows + 1, GS_TEXT_THREADS);
    const unsigned wgrid = gs_grid_for(rows * 32, GS_TEXT_THREADS);
    return gs_dispatch_type(t, st, [&](auto x) -> int {
        typedef decltype(x) T;
        gs_text_row_k<T><<<grid, GS_TEXT_THREADS, 0, s>>>((const T *)d_vals, k, rows, d_rows, sep, slots, slot, lens,
                                                          d_bad);
        GS_LAUNCH_CHECK(st);
        size_t have = tmp;
        GS_CUDA_CHECK(st, gs_text_scan(cub_tmp, have, lens, offs, rows + 1, s));
        gs_text_put_k<<<wgrid, GS_TEXT_THREADS, 0, s>>>(rows, d_rows, slots, slot, offs, d_text, text_cap, d_bad);
        GS_LAUNCH_CHECK(st);
        gs_text_total_k<<<1, 1, 0, s>>>(offs, rows, text_cap, d_len, d_bad);
        GS_LAUNCH_CHECK(st);
        return GS_OK;
    });
}

/* ---- parsing ------------------------------------------------------------------------------------
 * Three steps on the stream. One thread a span of GS_PARSE_SPAN bytes counts the lines that start in
 * it (at 0, or after a '\n') and looks for a quote character; CUB's exclusive sum of the counts
 * numbers the lines; then the same threads parse each line starting in their span into its place
 * (gs_numparse_row), the line read on past the span's end where it goes on. A quote, a declined
 * line or more lines than the values' room set res[1]; res[0] is the number of lines. */

/* Line starts in span c (lens[c]; lens[spans] = 0), and a quote's verdict. */
__global__ void gs_parse_count_k(const char *text, uint64_t bytes, uint64_t spans, uint64_t *lens, uint64_t *res)
{
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t c = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; c <= spans; c += stride) {
        uint64_t n = 0;
        int quote = 0;
        if (c < spans) {
            const uint64_t b = c * GS_PARSE_SPAN, e = b + GS_PARSE_SPAN < bytes ? b + GS_PARSE_SPAN : bytes;
            char prev = b ? text[b - 1] : '\n';
            for (uint64_t i = b; i < e; i++) {
                const char ch = text[i];
                n += prev == '\n';
                quote |= ch == '"';
                prev = ch;
            }
        }
        if (quote) res[1] = 1;
        lens[c] = n;
    }
}

/* The lines starting in span c, parsed into rows of cols.n values of vals from row offs[c] on. */
template <class T>
__global__ void gs_parse_line_k(const char *text, uint64_t bytes, uint64_t spans, const uint64_t *offs,
                                gs_numparse_cols cols, char delim, int trim_sp, int trim_tab, gs_type t, T *vals,
                                uint64_t vals_max, uint64_t *res)
{
    if (offs[spans] * (uint64_t)cols.n > vals_max) return;
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t c = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; c < spans; c += stride) {
        const uint64_t b = c * GS_PARSE_SPAN, e = b + GS_PARSE_SPAN < bytes ? b + GS_PARSE_SPAN : bytes;
        uint64_t at = offs[c];
        int bad = 0;
        for (uint64_t i = b; i < e; i++) {
            if (i && text[i - 1] != '\n') continue;
            uint64_t j = i;
            while (j < bytes && text[j] != '\n') j++;
            bad |= gs_numparse_row(text + i, text + j, &cols, delim, trim_sp, trim_tab, t, vals + at * cols.n);
            at++;
            i = j; /* the loop's step passes the '\n' */
        }
        if (bad) res[1] = 1;
    }
}

__global__ void gs_parse_total_k(const uint64_t *offs, uint64_t spans, int ncols, uint64_t vals_max, uint64_t *res)
{
    res[0] = offs[spans];
    if (offs[spans] * (uint64_t)ncols > vals_max) res[1] = 1;
}

static uint64_t gs_parse_spans(size_t bytes) { return ((uint64_t)bytes + GS_PARSE_SPAN - 1) / GS_PARSE_SPAN; }

extern "C" size_t gs_text_gpu_parse_scratch(size_t bytes)
{
    size_t tmp = 0;
    const uint64_t spans = gs_parse_spans(bytes);
    if (gs_text_scan(NULL, tmp, NULL, NULL, spans + 1, 0) != cudaSuccess) return 0;
    return 2 * gs_text_array_bytes(spans) + gs_align_up(tmp, GS_TEXT_ALIGN);
}

extern "C" int gs_text_gpu_parse(const char *d_text, size_t bytes, const int *cols, int ncols, char delim,
                                 int trim_sp, int trim_tab, gs_type t, void *d_vals, uint64_t vals_max,
                                 uint64_t *d_res, void *d_scratch, size_t scratch_bytes, void *stream, gs_status *st)
{
    const cudaStream_t s = gs_stream(stream);
    gs_numparse_cols c;
    if (ncols < 1 || ncols > GS_NUMPARSE_COLS_MAX) return gs_fail(st, GS_EUSAGE, "csv gpu: %d columns", ncols);
    c.n = ncols;
    c.maxcol = 0;
    for (int j = 0; j < ncols; j++) {
        if (cols[j] < 1) return gs_fail(st, GS_EUSAGE, "csv gpu: column %d (1-based)", cols[j]);
        c.col[j] = cols[j];
        if (cols[j] > c.maxcol) c.maxcol = cols[j];
    }
    GS_CUDA_CHECK(st, cudaMemsetAsync(d_res, 0, 2 * sizeof(uint64_t), s));
    if (bytes == 0) return GS_OK;
    const uint64_t spans = gs_parse_spans(bytes);
    size_t tmp = 0;
    GS_CUDA_CHECK(st, gs_text_scan(NULL, tmp, NULL, NULL, spans + 1, s));
    const size_t arr = gs_text_array_bytes(spans);
    GS_FORWARD(gs_check_scratch("csv gpu", scratch_bytes, 2 * arr + gs_align_up(tmp, GS_TEXT_ALIGN), st));
    uint64_t *lens = (uint64_t *)d_scratch;
    uint64_t *offs = (uint64_t *)((char *)d_scratch + arr);
    void *cub_tmp = (char *)d_scratch + 2 * arr;
    const unsigned grid = gs_grid_for(spans + 1, GS_TEXT_THREADS);
    gs_parse_count_k<<<grid, GS_TEXT_THREADS, 0, s>>>(d_text, bytes, spans, lens, d_res);
    GS_LAUNCH_CHECK(st);
    size_t have = tmp;
    GS_CUDA_CHECK(st, gs_text_scan(cub_tmp, have, lens, offs, spans + 1, s));
    GS_FORWARD(gs_dispatch_type(t, st, [&](auto x) -> int {
        typedef decltype(x) T;
        gs_parse_line_k<T><<<grid, GS_TEXT_THREADS, 0, s>>>(d_text, bytes, spans, offs, c, delim, trim_sp, trim_tab, t,
                                                            (T *)d_vals, vals_max, d_res);
        GS_LAUNCH_CHECK(st);
        return GS_OK;
    }));
    gs_parse_total_k<<<1, 1, 0, s>>>(offs, spans, ncols, vals_max, d_res);
    GS_LAUNCH_CHECK(st);
    return GS_OK;
}
