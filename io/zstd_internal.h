/* zstd_internal.h - what the zstd files of io/ share among themselves: the decoding source's state
 * (io/zstd_source.c; io/zstd_device.c for its batches through a device codec, io/zstd_frames.c
 * for its frames handed out whole) and two pool helpers the source and the sink (io/zstd_sink.c)
 * both use (io/zstd_mem.c). */
#ifndef GS_ZSTD_INTERNAL_H
#define GS_ZSTD_INTERNAL_H

#include "io_internal.h"
#include "zstd_index.h"

#include <pthread.h>
#include <zstd.h>

/* ---- pool helpers (io/zstd_mem.c) ------------------------------------------------------------- */
/* memcpy in pieces of GS_ZSTD_COPY_PIECE on up to `threads` pool workers. */
void gs_par_copy(void *dst, const void *src, size_t n, int threads);
/* Raise *stop under mu, wake t's waits on cv, and wait for t to end. */
void gs_thread_stop(pthread_mutex_t *mu, pthread_cond_t *cv, int *stop, pthread_t t);

/* ---- the decoding source ------------------------------------------------------------------------ */
typedef struct gs_zframe {
    size_t off, csize;  /* in the window */
    size_t doff, dsize; /* in the batch output */
    int cpu;            /* libzstd decodes it (the device codec did not, or not verifiably) */
    uint32_t xxh;       /* the frame's checksum, for frames given to the device codec */
} gs_zframe;

/* A batch's frames as the device codec takes them (parallel arrays, dev_cap long). */
typedef struct gs_zdev {
    const unsigned char **src;
    size_t *csize, *dsize, *doff, *idx;
    unsigned char *ok;
} gs_zdev;

/* One batch decoded ahead: its bytes, how far the caller has read them, and how it ended. */
enum { GS_ZSLOT_FREE, GS_ZSLOT_READY }; /* FREE: the decoder's to fill; READY: the caller's */
typedef struct gs_zslot {
    unsigned char *buf; /* cap bytes */
    size_t cap, len, pos; /* len 0 with rc 0: the end of the input */
    int state, rc;      /* rc: the decoder's status (sticky: it stops after an error) */
    gs_status st;
    uint64_t consumed;  /* the input's bytes behind this slot's end */
} gs_zslot;

typedef struct gs_zsrc {
    gs_bsrc base;
    gs_bsrc *in;
    int threads;
    unsigned char *win; /* compressed bytes [win_pos, win_len) not yet decoded */
    size_t win_cap, win_pos, win_len;
    size_t win_max; /* the window doubles up to this while the input fills it */
    int win_full;   /* the last read filled the window */
    int in_eof;
    unsigned char *out; /* a decoded batch not yet handed out: [out_pos, out_len) */
    size_t out_cap, out_pos, out_len;
    /* While a chunk's frames are indexed (gs_zsrc_frames), the window keeps every byte from chunk_at
     * on: the frames found are at offsets from there, and win_pos is the index's cursor. */
    int indexing;
    size_t chunk_at;
    uint64_t decoded;   /* bytes decoded so far (batches and streamed frames) */
    int skip_first;     /* a skippable frame came before anything was decoded */
    gs_zframe *frames;
    size_t frames_cap;
    gs_zcodec *codec; /* device codec, or NULL */
    int frames_mode;  /* frames are handed out whole (gs_zsrc_frames): never decode ahead */
    double fill_s;    /* seconds in the source's reads (GS_TRACE's timeline only) */
    size_t frames_max; /* the largest frame asked for so far (SIZE_MAX before the first ask) */
    gs_zdev dev;      /* its batch arrays */
    size_t dev_cap;
    ZSTD_DCtx **dctx; /* one per worker */
    ZSTD_DStream *ds; /* streaming fallback */
    ZSTD_DStream *look_ds; /* the format's look at the first decoded bytes (gs_zsrc_look) */
    int streaming;    /* inside a streamed frame */
    uint64_t in_consumed; /* bytes taken from s->in, behind everything decoded so far */
    /* Decoding ahead (regular files, several threads, no device codec): a decoder thread fills
     * the two slots in turn with gs_zsrc_pull while the caller copies out of the other. */
    int ahead;          /* 1: on; 0: the caller decodes (gs_zsrc_pull) */
    int ahead_running;  /* the decoder thread exists */
    int ahead_stop;     /* close: the decoder ends at its next wait */
    int ahead_cur;      /* the slot the caller reads */
    size_t slot_want;   /* the slots' size: doubles while batches fill them, up to a batch */
    gs_zslot slot[2];
    pthread_t ahead_tid;
    pthread_mutex_t ahead_mu;
    pthread_cond_t ahead_cv;
} gs_zsrc;

/* What the next frame in the window is (gs_zsrc_next). */
enum { GS_ZN_END, GS_ZN_SKIP, GS_ZN_BATCH, GS_ZN_STREAM, GS_ZN_STOP };

/* io/zstd_source.c */
/* Drop the window's bytes before win_pos (before chunk_at while indexing): the rest moves to its
 * start. Window offsets held from before (a batch's frames) no longer hold. */
void gs_zsrc_shift(gs_zsrc *s);
/* What the next frame is: GS_ZN_BATCH with its compressed and decoded sizes where it is whole in
 * the window with a content size, GS_ZN_STREAM for the streaming decoder, GS_ZN_SKIP, GS_ZN_END,
 * or GS_ZN_STOP (no room to see it without moving the window). Fills the window as needed; it
 * moves only with may_move (when no batch refers to window offsets). */
int gs_zsrc_next(gs_zsrc *s, int may_move, int *kind, size_t *csize, size_t *dsize, gs_status *st);
/* Skip the skippable frame at win_pos, reading past it without keeping it. */
int gs_zsrc_skip(gs_zsrc *s, gs_status *st);
/* Room for at least n + 1 entries in s->frames. */
int gs_zsrc_frames_room(gs_zsrc *s, size_t n, gs_status *st);

/* io/zstd_device.c */
/* Give the device codec the frames of the batch's [0, n) it may decode into dst; mark the ones it
 * verifiably did (frames[f].cpu = 0). */
int gs_zsrc_device_batch(gs_zsrc *s, size_t n, unsigned char *dst, gs_status *st);

/* io/zstd_frames.c */
/* gs_bsrc.frames of a source opened for frames (gs_reader_frames). */
int gs_zsrc_frames(gs_bsrc *b, const gs_zframes_req *q, size_t esize, size_t *nf, uint64_t *bytes, gs_status *st);

#endif
