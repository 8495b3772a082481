/* paths.h - names of the unit tests' scratch files: dir/name in one of 8 rotating buffers, so that
 * a call may take several such paths at once. */
#ifndef GS_PATHS_H
#define GS_PATHS_H

#include <stdio.h>

/* "dir/name", valid until 8 more paths have been made. */
static inline const char *dir_path(const char *dir, const char *name)
{
    static char bufs[8][512];
    static unsigned i;
    char *b = bufs[i++ % 8];
    snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
    return b;
}

#endif
