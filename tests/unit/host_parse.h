/* host_parse.h - the GPU's csv parse of a block, done on the host for the unit tests (fake_gpu.h's
 * fake backend, test_csv_textparse.c's parser): kernels/numparse.h's gs_numparse_row a line, a quote
 * anywhere or one line it declines declining the block, as kernels/text_gpu.cu's gs_text_gpu_parse
 * does. Header-only: each test program is one file. */
#ifndef GS_HOST_PARSE_H
#define GS_HOST_PARSE_H

#include <stdlib.h>
#include <string.h>

#include "../../io/io.h"
#include "../../kernels/numparse.h"

/* The block's rows into *vals (grown as needed, *cap rows): GS_OK and *n rows, GS_TEXT_DECLINED, or
 * GS_ENOMEM. */
static inline int host_parse_block(const gs_text_block *b, char **vals, size_t *cap, size_t *n)
{
    const size_t es = gs_type_size(b->type) * (size_t)b->ncols;
    gs_numparse_cols c = {b->ncols, 0, {0}};
    for (int j = 0; j < b->ncols; j++) c.maxcol = b->cols[j] > c.maxcol ? b->cols[j] : c.maxcol, c.col[j] = b->cols[j];
    if (memchr(b->text, '"', b->bytes)) return GS_TEXT_DECLINED;
    size_t k = 0;
    for (const char *p = b->text, *e = b->text + b->bytes; p < e; k++) {
        const char *nl = memchr(p, '\n', (size_t)(e - p)), *le = nl ? nl : e;
        if (k >= *cap) {
            char *nv = realloc(*vals, (2 * *cap + 1024) * es);
            if (!nv) return GS_ENOMEM;
            *vals = nv;
            *cap = 2 * *cap + 1024;
        }
        if (gs_numparse_row(p, le, &c, b->delim, b->trim_sp, b->trim_tab, b->type, *vals + k * es))
            return GS_TEXT_DECLINED;
        p = nl ? nl + 1 : e;
    }
    *n = k;
    return GS_OK;
}

#endif
