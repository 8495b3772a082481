/* shard.h - a rank's shard of the input and the first pass over it (pipeline/shard.c), for
 * pipeline/mpi.c. */
#ifndef GS_SHARD_H
#define GS_SHARD_H

#include "mpi.h"

/* A rank's shard: elements [s, e) of the input; csv/text: also the bytes [b0, b1) of its lines,
 * whose element numbers are known only after a pass over them. */
typedef struct gs_shard {
    uint64_t s, e, b0, b1;
    int text;
} gs_shard;

/* First element of rank r's shard of K (r = K: the end). */
uint64_t gs_shard_start(const gs_layout *L, int K, int r);
/* A reader of elements [rs, re) of the input, rs = the shard's start (re may pass its end). */
int gs_shard_open(const gs_mpi_job *m, const gs_layout *L, const gs_shard *h, uint64_t rs, uint64_t re, gs_reader **r,
                  gs_status *st);
/* compact --rows and --keep: the shard's reader r keeps the rows its results are written as; the
 * rank that writes the head (rank 0) writes the header line of those rows to w first. */
int gs_shard_rows_head(const gs_mpi_job *m, gs_reader *r, gs_writer *w, int head, gs_status *st);
/* csv/text: elements in the shard's lines, and the rows its reader dropped (--na skip, --skip-bad). */
int gs_shard_count(const gs_mpi_job *m, const gs_layout *L, const gs_shard *h, uint64_t *count, uint64_t *dropped,
                   gs_status *st);
/* *a = *a (op) x[0..n) for values of type t. */
void gs_fold(gs_scan_op op, gs_type t, gs_value *a, const void *x, size_t n);
/* The first pass over an uncompressed shard (raw/npy): *total (scan, in out_type) or *kept (compact). */
int gs_shard_pass(const gs_mpi_job *m, const gs_layout *L, const gs_shard *h, gs_value *total, uint64_t *kept,
                  gs_status *st);
/* The scan's total of the shard (in out_type), *count its elements: any format. */
int gs_shard_total(const gs_mpi_job *m, const gs_layout *L, const gs_shard *h, gs_value *total, uint64_t *count,
                   gs_status *st);

#endif
