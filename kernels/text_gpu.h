/* text_gpu.h - numbers and CSV/text on the device (kernels/text_gpu.cu): rows of values printed as
 * io/numfmt.c's gs_num_format prints them (kernels/numtext.h), for a GPU backend that writes its
 * output text itself; csv lines parsed as the host parses them (kernels/numparse.h), for one that
 * reads its input text itself. C-includable; CUDA builds only. */
#ifndef GS_TEXT_GPU_H
#define GS_TEXT_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "../common/gs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Scratch bytes for gs_text_gpu_rows of at most rows_max rows of k values of type t. */
size_t gs_text_gpu_scratch(uint64_t rows_max, int k, gs_type t);

/* The text of rows of k values of type t (row-major at d_vals), each value as gs_num_format prints
 * it, joined by sep, each row ending in '\n', into d_text (at most text_cap bytes): the rows are
 * *d_rows (a device count, read by the kernels: a compaction's; at most rows, the bound the work is
 * sized by) where d_rows is non-NULL, else rows. Writes the text's length to *d_len (device) and 1
 * to *d_bad where some value could not be formatted on the device (gs_numtext_* returned -1) or the
 * text would pass text_cap (then the caller formats on the host; d_text is undefined), else 0.
 * Queued on stream; nothing synchronises. */
int gs_text_gpu_rows(const void *d_vals, gs_type t, int k, uint64_t rows, const uint64_t *d_rows, char sep,
                     char *d_text, size_t text_cap, uint64_t *d_len, int *d_bad, void *d_scratch,
                     size_t scratch_bytes, void *stream, gs_status *st);

/* Scratch bytes for gs_text_gpu_parse of at most `bytes` of text. */
size_t gs_text_gpu_parse_scratch(size_t bytes);

/* The csv lines at d_text (`bytes`, whole lines; the last may lack its '\n'): each line's fields
 * cols[0..ncols) (1-based, split at delim, trimmed as trim_sp and trim_tab say; at most
 * GS_NUMPARSE_COLS_MAX) as a row of ncols values of type t into d_vals, in order, as
 * gs_numparse_row takes them. d_res[0] (device) gets the number of lines, d_res[1] 1 where the host
 * must parse the block instead (a line declined, a '"' in the text, or more than vals_max values;
 * d_vals is then undefined), else 0. Queued on stream; nothing synchronises. */
int gs_text_gpu_parse(const char *d_text, size_t bytes, const int *cols, int ncols, char delim, int trim_sp,
                      int trim_tab, gs_type t, void *d_vals, uint64_t vals_max, uint64_t *d_res, void *d_scratch,
                      size_t scratch_bytes, void *stream, gs_status *st);

#ifdef __cplusplus
}
#endif

#endif
