/* zstd_test.h - what the zstd unit tests share: a seeded generator, data of three kinds, frames
 * libzstd writes, little-endian bytes, and the checksum as the reference library computes it.
 * Static: each test program has its own. */
#ifndef GS_ZSTD_TEST_H
#define GS_ZSTD_TEST_H

#include <stdint.h>
#include <stdlib.h>
#include <zstd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "xorshift.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull; /* a program may seed it afresh */
static uint64_t rnd(void) { return xorshift64(&rng); }

/* The zstd checksum of d, as the reference library computes it. */
static inline uint32_t xxh(const void *d, size_t n) { return (uint32_t)XXH64(d, n, 0); }

/* v as n little-endian bytes at p. */
static inline void put_le(unsigned char *p, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* kind 0: incompressible, 1: small numbers (compressible), 2: one byte repeated (RLE blocks). */
static unsigned char *make_data(size_t n, int kind)
{
    unsigned char *d = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++)
        d[i] = kind == 0 ? (unsigned char)rnd() : kind == 1 ? (unsigned char)(rnd() % 7 * (i % 3)) : 42;
    return d;
}

/* One frame: streamed (no content size) when pledge is 0, else with the size. */
static size_t make_frame(const unsigned char *d, size_t n, int level, int checksum, int with_size,
                         unsigned char **out)
{
    size_t cap = ZSTD_compressBound(n) + 64;
    *out = malloc(cap);
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, checksum);
    ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, with_size);
    size_t r;
    if (with_size) {
        r = ZSTD_compress2(c, *out, cap, d, n);
    } else { /* streaming without a pledged size: no content size in the header */
        ZSTD_outBuffer ob = {*out, cap, 0};
        ZSTD_inBuffer ib = {d, n, 0};
        r = ZSTD_compressStream2(c, &ob, &ib, ZSTD_e_end);
        r = ZSTD_isError(r) || r ? 0 : ob.pos;
    }
    ZSTD_freeCCtx(c);
    return ZSTD_isError(r) ? 0 : r;
}

#endif
