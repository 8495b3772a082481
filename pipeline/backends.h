/* backends.h - what the engine makes its backend from: a CPU backend, a GPU backend and the
 * GPU's start-up (gs_backend_parts). A CPU plan gets the CPU backend; a GPU plan gets the
 * composite of warm.c, which starts the GPU, runs chunks on the CPU meanwhile where the plan
 * allows, and hands the CPU's carries over. The built-in parts are the backends of pipeline/cpu/
 * and pipeline/gpu/; tests give fakes (gs_engine_opts.parts). */
#ifndef GS_BACKENDS_H
#define GS_BACKENDS_H

#include "pipeline.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_backend_parts {
    /* The CPU backend for c, its stages' variants resolved here (c->variant(s) are not read). */
    int (*cpu)(gs_backend **b, const gs_backend_cfg *c, gs_status *st);
    /* The stages have GPU variants that take their parameters: a usage error otherwise. */
    int (*gpu_check)(const gs_backend_cfg *c, gs_status *st);
    /* The GPU's start-up: begun on its own thread (begin), done (ready: a wait would not block),
     * waited for (wait: 1 if the device is usable, else 0 and why; *secs its duration, -1 where
     * nothing ran). */
    void (*gpu_begin)(int device);
    int (*gpu_ready)(void);
    int (*gpu_wait)(int device, char *why, size_t len, double *secs);
    /* The GPU backend once the start-up succeeded, its variants resolved here. */
    int (*gpu)(gs_backend **b, const gs_backend_cfg *c, gs_status *st);
    /* The devices the start-up found, once it knows (--device all); NULL: one. */
    int (*gpu_count)(void);
    /* The start-up of several devices (gs_gpu_init_start_list); NULL: gpu_begin of the first. */
    void (*gpu_begin_list)(const int *devs, int n);
} gs_backend_parts;

/* The backends built in (pipeline/backends.c). */
extern const gs_backend_parts gs_backend_parts_builtin;

/* The backend of a GPU plan (pipeline/warm.c): the GPU's start-up begun now; chunks run on the
 * CPU until it is done where `warm`; then the GPU backend, continuing from the CPU's carries, or
 * where it cannot be had and is not `required`, the CPU backend (a note says why). c is copied; its
 * job and opts must outlive the backend. */
int gs_backend_warm_create(gs_backend **b, const gs_backend_parts *parts, const gs_backend_cfg *c, int warm,
                           int required, gs_status *st);

/* Several columns in one pass (pipeline/columns.c): the engine's chunks are rows of k values (2 to
 * GS_WRITE_COLS_MAX) of c->in_type; each column runs on a backend of its own, made by make(ctx, its
 * cfg) as the plan makes one, with its own carries; the outputs come back as rows of k x m values
 * (column c's m after column c-1's; m = c->out_cap / c->chunk_elems / k). Every column must write as
 * many values as the others, except under compact --count (gs_backend_columns_counts: each column's
 * count, k entries). c is copied; its job, chain and opts must outlive the backend. */
typedef int (*gs_backend_make_fn)(void *ctx, const gs_backend_cfg *c, gs_backend **b, gs_status *st);
int gs_backend_columns_create(gs_backend **b, int k, const gs_backend_cfg *c, gs_backend_make_fn make, void *ctx,
                              gs_status *st);
void gs_backend_columns_counts(const gs_backend *b, uint64_t *counts);
/* What several columns run: every stage writes as many rows for each (compact only as the chain's
 * last --count), so input columns may ride beside them (--keep: a row's kept columns before its
 * k x m results), but not compact --rows. */
int gs_columns_check(const gs_chain *chain, gs_status *st);

#ifdef __cplusplus
}
#endif
#endif
