/* codec_xxh64.cuh - XXH64 (seed 0) on the device, for the zstd frame checksum (RFC 8878 keeps its
 * low 32 bits): codec_decode.cu checks decoded frames where the kernels read them, codec_encode.cu
 * hashes the kernels' output before it is encoded. Those bytes live only in device memory, and
 * libxxhash (xxhash.h) has host functions only, which device code cannot call; so the algorithm is
 * written here, over four threads a frame, with libxxhash's constants. The host's XXH64 is
 * libxxhash's. */
#ifndef GS_GPU_CODEC_XXH64_CUH
#define GS_GPU_CODEC_XXH64_CUH

#include <stddef.h>
#include <stdint.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

__device__ __forceinline__ uint64_t gzx_rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
__device__ __forceinline__ uint64_t gzx_round(uint64_t acc, uint64_t in)
{
    acc += in * XXH_PRIME64_2;
    return gzx_rotl(acc, 31) * XXH_PRIME64_1;
}
__device__ __forceinline__ uint64_t gzx_merge(uint64_t h, uint64_t v)
{
    h ^= gzx_round(0, v);
    return h * XXH_PRIME64_1 + XXH_PRIME64_4;
}

/* XXH64 of p[0, len), p at a multiple of 8, by the four lanes of a group (j = threadIdx.x & 3):
 * lane j runs accumulator j over the 32-byte stripes (8-byte loads), lane 0 merges and hashes the
 * tail. Every thread of the warp calls it (shuffles; a thread with nothing to hash passes len 0);
 * the result is valid in lane 0 of each group. */
__device__ __forceinline__ uint64_t gzx_xxh64(const unsigned char *p, size_t len)
{
    const unsigned j = threadIdx.x & 3u, base = (threadIdx.x & 31u) & ~3u;
    const size_t stripes = len / 32;
    uint64_t v = j == 0 ? XXH_PRIME64_1 + XXH_PRIME64_2 : j == 1 ? XXH_PRIME64_2 : j == 2 ? 0 : 0 - XXH_PRIME64_1;
    const uint64_t *q = (const uint64_t *)p + j;
#pragma unroll 8
    for (size_t i = 0; i < stripes; i++) v = gzx_round(v, q[4 * i]);
    const uint64_t v1 = __shfl_sync(0xffffffffu, v, base), v2 = __shfl_sync(0xffffffffu, v, base + 1),
                   v3 = __shfl_sync(0xffffffffu, v, base + 2), v4 = __shfl_sync(0xffffffffu, v, base + 3);
    if (j) return 0;
    uint64_t h;
    if (len >= 32) {
        h = gzx_rotl(v1, 1) + gzx_rotl(v2, 7) + gzx_rotl(v3, 12) + gzx_rotl(v4, 18);
        h = gzx_merge(gzx_merge(gzx_merge(gzx_merge(h, v1), v2), v3), v4);
    } else
        h = XXH_PRIME64_5;
    h += len;
    const unsigned char *t = p + stripes * 32;
    size_t r = len & 31;
    for (; r >= 8; r -= 8, t += 8)
        h = gzx_rotl(h ^ gzx_round(0, *(const uint64_t *)t), 27) * XXH_PRIME64_1 + XXH_PRIME64_4;
    if (r >= 4) {
        h = gzx_rotl(h ^ (uint64_t)(*(const uint32_t *)t) * XXH_PRIME64_1, 23) * XXH_PRIME64_2 + XXH_PRIME64_3;
        t += 4;
        r -= 4;
    }
    for (; r; r--, t++) h = gzx_rotl(h ^ *t * XXH_PRIME64_5, 11) * XXH_PRIME64_1;
    h ^= h >> 33;
    h *= XXH_PRIME64_2;
    h ^= h >> 29;
    h *= XXH_PRIME64_3;
    h ^= h >> 32;
    return h;
}

#endif
