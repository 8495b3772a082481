/* text_gpu.cu - rows of values as text on the device (text_gpu.h), byte for byte what
 * gs_num_format prints (kernels/numtext.h; tests/unit/test_numtext.c holds the two equal).
 *
 * Three steps on the stream: each row's length (its values formatted into registers and counted:
 * digits, separators, the newline), 0 for the rows past the device count, and one more 0 at the
 * end; CUB's exclusive sum of those rows + 1 lengths, whose last entry is the text's length; then
 * each row formatted again and written at its offset, unless a value fell outside numtext.h's
 * exact range or the text would pass the capacity, where *d_bad tells the caller to format on the
 * host instead. One thread per row (grid-stride); the writes are not coalesced. */
#include "gpu_common.cuh"
#include "numtext.h"
#include "text_gpu.h"

#include <cub/device/device_scan.cuh>

/* Alignment of the scratch's parts (lens, offs, CUB's storage). */
#define GS_TEXT_ALIGN 256

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

/* lens[i] = the length of row i's text (0 past the count; lens[rows] = 0); *bad = 1 where a value
 * is out of the exact range. */
template <class T>
__global__ void gs_text_len_k(const T *vals, int k, uint64_t rows, const uint64_t *d_rows, uint64_t *lens, int *bad)
{
    const uint64_t n = gs_text_count(d_rows, rows);
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i <= rows; i += stride) {
        uint64_t len = 0;
        if (i < n) {
            const T *row = vals + i * (uint64_t)k;
            int out = 0;
            for (int j = 0; j < k; j++) {
                char buf[GS_NUMTEXT_MAX];
                const int w = gs_text_value(buf, row[j]);
                out |= w < 0;
                len += (uint64_t)(w < 0 ? 0 : w) + 1; /* the separator, or the newline after the last */
            }
            if (out) *bad = 1;
        }
        lens[i] = len;
    }
}

/* Row i's text at text + offs[i], unless the pass above found a value out of range or the total
 * (offs[rows]) passes cap. */
template <class T>
__global__ void gs_text_put_k(const T *vals, int k, uint64_t rows, const uint64_t *d_rows, char sep,
                              const uint64_t *offs, char *text, size_t cap, const int *bad)
{
    if (*bad || offs[rows] > cap) return;
    const uint64_t n = gs_text_count(d_rows, rows);
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const T *row = vals + i * (uint64_t)k;
        char *o = text + offs[i];
        for (int j = 0; j < k; j++) {
            char buf[GS_NUMTEXT_MAX];
            const int w = gs_text_value(buf, row[j]);
            for (int b = 0; b < w; b++) *o++ = buf[b];
            *o++ = j + 1 < k ? sep : '\n';
        }
    }
}

/* The length, and the capacity's verdict. */
__global__ void gs_text_total_k(const uint64_t *offs, uint64_t rows, size_t cap, uint64_t *len, int *bad)
{
    const uint64_t total = offs[rows];
    *len = total;
    if (total > cap) *bad = 1;
}

/* Scratch layout: lens and offs (rows + 1 each), then CUB's temporary storage. */
static size_t gs_text_array_bytes(uint64_t rows) { return gs_align_up((size_t)(rows + 1) * sizeof(uint64_t), GS_TEXT_ALIGN); }

static cudaError_t gs_text_scan(void *tmp, size_t &tmp_bytes, const uint64_t *lens, uint64_t *offs, uint64_t items,
                                cudaStream_t s)
{
    return cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, lens, offs, items, s);
}

extern "C" size_t gs_text_gpu_scratch(uint64_t rows_max)
{
    size_t tmp = 0;
    if (gs_text_scan(NULL, tmp, NULL, NULL, rows_max + 1, 0) != cudaSuccess) return 0;
    return 2 * gs_text_array_bytes(rows_max) + gs_align_up(tmp, GS_TEXT_ALIGN);
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
    const size_t arr = gs_text_array_bytes(rows);
    GS_FORWARD(gs_check_scratch("text gpu", scratch_bytes, 2 * arr + tmp, st));
    uint64_t *lens = (uint64_t *)d_scratch;
    uint64_t *offs = (uint64_t *)((char *)d_scratch + arr);
    void *cub_tmp = (char *)d_scratch + 2 * arr;
    const int threads = 256;
    const unsigned grid = gs_grid_for(rows + 1, threads);
    return gs_dispatch_type(t, st, [&](auto x) -> int {
        typedef decltype(x) T;
        gs_text_len_k<T><<<grid, threads, 0, s>>>((const T *)d_vals, k, rows, d_rows, lens, d_bad);
        GS_LAUNCH_CHECK(st);
        size_t have = tmp;
        GS_CUDA_CHECK(st, gs_text_scan(cub_tmp, have, lens, offs, rows + 1, s));
        gs_text_put_k<T><<<grid, threads, 0, s>>>((const T *)d_vals, k, rows, d_rows, sep, offs, d_text, text_cap,
                                                  d_bad);
        GS_LAUNCH_CHECK(st);
        gs_text_total_k<<<1, 1, 0, s>>>(offs, rows, text_cap, d_len, d_bad);
        GS_LAUNCH_CHECK(st);
        return GS_OK;
    });
}
