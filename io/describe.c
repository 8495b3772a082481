/* describe.c - the reader's description of its input before anything reads it (io.h,
 * gs_input_describe): the facts the run's plan (pipeline/plan.c) asks for, from a regular file's
 * size and its zstd frame headers. A pipe is never read here: its bytes are the reader's alone. */
#include "io.h"

#include <string.h>
#include <sys/stat.h>

void gs_input_describe(const char *path, unsigned want, gs_input_desc *d)
{
    struct stat sb;
    const int named = path && strcmp(path, "-");
    const int regular = named && stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
    if (!d->have) {
        d->first_frame = GS_ZSTD_SIZE_UNKNOWN;
        d->content = 0;
    }
    d->size = regular ? (int64_t)sb.st_size : -1;
    d->zst_name = 0;
    if (named) gs_format_from_name(path, &d->zst_name);
    want &= ~d->have;
    if ((want & GS_DESC_FIRST_FRAME) && regular) d->first_frame = gs_zstd_first_frame_size(path);
    if ((want & GS_DESC_CONTENT) && regular) d->content = gs_zstd_content_estimate(path);
    d->have |= want;
}
