/* csv.h - the row writer of io/csv.c, which text.c shares (private to io/). Values are split
 * into runs of rows formatted in parallel into per-run text buffers, written to the sink in
 * order. */
#ifndef GS_IO_CSV_H
#define GS_IO_CSV_H

#include "io_internal.h"

/* Open a row encoder: sep between the two values of a (min, max) row; header (a whole line
 * without its '\n') written first when not NULL. */
int gs_lines_enc_open(gs_encoder **e, gs_bsink *k, const gs_write_opts *o, char sep, const char *header,
                      gs_status *st);

#endif
