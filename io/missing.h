/* missing.h - a csv/text field's value, with missing values as the reader's options say
 * (io/missing.c; private to io/). Every field of csv and text goes through gs_field_parse. */
#ifndef GS_IO_MISSING_H
#define GS_IO_MISSING_H

#include "csv_lines.h"

/* gs_field_parse's answer for a missing value under --na skip: the row is dropped. */
#define GS_FIELD_SKIP (-1)

/* The value of field [f, f+len) (surrounding space already trimmed) into out: 0, GS_FIELD_SKIP,
 * or the GS_PERR_* of a bad field (GS_PERR_NA: missing in an integer column, no --na). */
int gs_field_parse(const gs_lparse *c, const char *f, size_t len, void *out);
/* 1 where [f, f+len) is empty or one of pandas' default NA spellings. */
int gs_na_spelling(const char *f, size_t len);
/* Whether a first row of n cells is a header, judged by cell col (0-based): one that is a name (not
 * a number, not missing) says yes, a number no; a missing one (an empty header cell, as pandas writes
 * over its index) leaves it to the row: a header where some cell is a name and none a number. */
int gs_row_is_header(const char *const *f, int n, int col);
/* Fill c's missing-value settings from o for c->type: GS_EUSAGE where --na's value is no number of
 * that type. */
int gs_na_setup(gs_lparse *c, const gs_read_opts *o, const char *name, gs_status *st);

#endif
