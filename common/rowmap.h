/* rowmap.h - the input rows a stream of values skipped, kept beside the stream, so that positions
 * in the stream become positions in the input (data rows, 0-based, as pandas counts them on the
 * whole frame).
 *
 * A reader that drops rows (a missing value under `--na skip`, a bad field under `--skip-bad`)
 * records each drop as "k rows skipped just before stream value s"; the record is a sorted list of
 * (s, rows skipped up to and including there), one entry per run of drops, so it stays small where
 * drops are rare and is at most one entry per value where every other row is dropped. Stream
 * value p came from input row p + (rows skipped at stream positions <= p). The reader appends
 * while a writer thread translates the positions of earlier values: both lock. */
#ifndef GS_ROWMAP_H
#define GS_ROWMAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_rowmap gs_rowmap;

/* NULL where memory is short. */
gs_rowmap *gs_rowmap_new(void);
void gs_rowmap_free(gs_rowmap *m);
/* k rows were skipped just before stream value s; s never decreases from call to call.
 * 0, or -1 where memory is short. */
int gs_rowmap_add(gs_rowmap *m, uint64_t s, uint64_t k);
/* Rows skipped in all so far. */
uint64_t gs_rowmap_skipped(const gs_rowmap *m);
/* The input row of each of the n stream positions pos[i] (any order; ascending runs are fastest),
 * in place. Valid for positions whose values the reader has handed out. */
void gs_rowmap_rows(const gs_rowmap *m, uint64_t *pos, size_t n);

#ifdef __cplusplus
}
#endif
#endif
