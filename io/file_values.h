/* file_values.h - values into a regular file in large puts: one pwrite stream, or (tmpfs, many
 * threads) pieces on the pool's threads through a shared mapping of the file: io/file_values.c.
 * Used by the file sink (io/file_sink.c) for raw and npy outputs. */
#ifndef GS_FILE_VALUES_H
#define GS_FILE_VALUES_H

#include <stddef.h>
#include <stdint.h>

#define GS_VPIECE ((size_t)2 << 20) /* the smallest piece a put hands to another thread */

typedef struct gs_fvals {
    int fd;
    int nomap;            /* puts go as one pwrite stream */
    uint64_t size;        /* the file's size as last set here */
    unsigned char *map;   /* the window: file bytes [map_at, map_at + map_len) */
    uint64_t map_at, map_len;
} gs_fvals;

/* fd open for reading and writing; one stream or a mapping as io/file_values.c decides. */
void gs_fvals_init(gs_fvals *v, int fd);
/* n bytes at file offset at (the file grows to hold them); 0 or the errno of the write that failed. */
int gs_fvals_put(gs_fvals *v, const unsigned char *p, size_t n, uint64_t at);
/* no put follows: the window unmapped */
void gs_fvals_end(gs_fvals *v);

#endif
