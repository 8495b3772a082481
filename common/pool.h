/* pool.h - a persistent thread pool with parallel-for, and the two-pass block rounds of the
 * parallel CPU kernels built on it. Several threads may call
 * gs_parallel_for at once (reader, compute and writer stages share one pool); the
 * caller works on its own job's pieces too, so a call always makes progress. */
#ifndef GS_POOL_H
#define GS_POOL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* fn runs once for each part p in [0, nparts). */
typedef void (*gs_part_fn)(void *ctx, size_t part, size_t nparts);

/* Start the process-wide pool with nthreads workers (0 = all cores). Idempotent:
 * later calls with another count are ignored. Returns the worker count. */
int gs_pool_start(int nthreads);
int gs_pool_threads(void); /* workers in the pool (starts it with all cores if needed) */
void gs_pool_stop(void);

/* Run fn(ctx, p, nparts) for p in [0, nparts) on the pool and the calling thread; returns
 * when all parts are done. nparts <= 1 runs inline. */
void gs_parallel_for(size_t nparts, gs_part_fn fn, void *ctx);

/* memcpy of n bytes in nparts contiguous pieces on the pool (nparts <= 1: inline). */
void gs_parallel_copy(void *dst, const void *src, size_t n, size_t nparts);

/* fn runs on block `slot` of a round: elements [b, e). */
typedef void (*gs_block_fn)(void *ctx, size_t slot, size_t b, size_t e);

/* Two passes over [0, n) in blocks of `block` elements, taken in rounds of at most per_round
 * blocks (so the second pass re-reads from cache): per round, pass1 on each of its nb blocks in
 * parallel (slot 0..nb-1), then between(ctx, nb) on the calling thread, then pass2 like pass1. */
void gs_block_rounds(size_t n, size_t block, size_t per_round, gs_block_fn pass1, void (*between)(void *ctx, size_t nb),
                     gs_block_fn pass2, void *ctx);

/* Split [0, n) into nparts contiguous ranges; range p is [*b, *e). */
static inline void gs_split(size_t n, size_t nparts, size_t p, size_t *b, size_t *e)
{
    size_t q = n / nparts, r = n % nparts;
    *b = p * q + (p < r ? p : r);
    *e = *b + q + (p < r ? 1 : 0);
}

/* Number of cores online. */
int gs_ncores(void);

#ifdef __cplusplus
}
#endif
#endif
