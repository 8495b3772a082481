/* part.c - parts of one file for several processes (MPI ranks): the layout of a regular file
 * (where element i lies: in the file for raw/npy, in the decompressed stream for zstd, with every
 * frame's file offset and content size from its header), a reader of a range of elements, and a
 * writer into a caller's byte sink.
 *
 * A range of a zstd file is read from the frame holding its first byte: the frames from there on
 * are a valid zstd stream, decoded as usual (in parallel), the bytes before the range skipped and
 * the stream cut after it. */
#include "io_internal.h"
#include "zstd_index.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

void gs_layout_free(gs_layout *L)
{
    free(L->frame_off);
    free(L->frame_pos);
    L->frame_off = L->frame_pos = NULL;
    L->nframes = 0;
}

/* Walk the frame headers of a mapped zstd file. */
static int gs_layout_frames(gs_layout *L, const unsigned char *p, uint64_t size, const char *path, gs_status *st)
{
    size_t cap = 0;
    uint64_t off = 0, pos = 0;
    while (off < size) {
        size_t avail = size - off > (uint64_t)SIZE_MAX ? SIZE_MAX : (size_t)(size - off);
        gs_zfinfo fi;
        if (gs_zframe_parse(p + off, avail, &fi) != GS_ZF_OK)
            return gs_fail(st, GS_EDATA, "%s: corrupt or truncated zstd frame at byte %llu: %s", path,
                           (unsigned long long)off, gs_zframe_error(&fi));
        if (fi.content == GS_ZSTD_SIZE_UNKNOWN)
            return gs_fail(st, GS_EDATA,
                           "%s: a zstd frame at byte %llu does not give its size, so the file cannot be split across "
                           "ranks (recompress it with gpustream convert, or run one process)",
                           path, (unsigned long long)off);
        if (L->nframes + 2 > cap) {
            cap = cap ? 2 * cap : 64;
            uint64_t *a = realloc(L->frame_off, cap * sizeof *a);
            if (a) L->frame_off = a;
            uint64_t *b = a ? realloc(L->frame_pos, cap * sizeof *b) : NULL;
            if (!b) return gs_fail(st, GS_ENOMEM, "out of memory");
            L->frame_pos = b;
        }
        L->frame_off[L->nframes] = off;
        L->frame_pos[L->nframes] = pos;
        L->nframes++;
        off += fi.csize;
        pos += fi.content;
    }
    if (!L->frame_pos && !(L->frame_pos = malloc(sizeof *L->frame_pos))) return gs_fail(st, GS_ENOMEM, "out of memory");
    L->frame_pos[L->nframes] = pos;
    return GS_OK;
}

int gs_layout_read(gs_layout *L, const char *path, const gs_read_opts *o, gs_status *st)
{
    memset(L, 0, sizeof *L);
    if (!path || !strcmp(path, "-")) return gs_fail(st, GS_EUSAGE, "stdin cannot be split across ranks: give a file");
    gs_reader *r = NULL;
    int rc = gs_reader_open(&r, path, o, st); /* detection, npy header, type checks */
    if (rc) return rc;
    L->format = gs_reader_format(r);
    L->compressed = gs_reader_compressed(r);
    L->type = gs_reader_type(r);
    L->delim = gs_reader_delim(r);
    int64_t count = gs_reader_count(r);
    int has_header = gs_reader_colname(r) != NULL;
    gs_reader_close(r);
    int text = L->format != GS_FMT_RAW && L->format != GS_FMT_NPY;
    if (text && L->compressed)
        return gs_fail(st, GS_EDATA, "%s: compressed %s input cannot be split across ranks (decompress it first)",
                       path, gs_format_name(L->format));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb)) {
        int e = errno;
        if (fd >= 0) close(fd);
        return gs_fail_errno(st, e, "%s", path);
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return gs_fail(st, GS_EUSAGE, "%s: not a regular file, so it cannot be split across ranks", path);
    }
    uint64_t size = (uint64_t)sb.st_size, total = size;
    size_t esize = gs_type_size(L->type);
    if (text) { /* the header is the first line (ended by the first '\n') */
        L->size = size;
        for (uint64_t at = 0; has_header && !L->head_len && at < size;) {
            char buf[4096];
            ssize_t got = pread(fd, buf, sizeof buf, (off_t)at);
            if (got <= 0) break;
            char *nl = memchr(buf, '\n', (size_t)got), *cr = memchr(buf, '\r', (size_t)got);
            /* ranks find their lines by LF: lines ended by CR alone would be one line to them */
            char after = 0; /* the byte after the CR, in this block or the next */
            if (cr && cr + 1 < buf + got) after = cr[1];
            else if (cr && pread(fd, &after, 1, (off_t)(at + (uint64_t)got)) != 1) after = 0;
            if (cr && (!nl || cr < nl) && after != '\n' && at + (uint64_t)(cr - buf) + 1 < size) {
                close(fd);
                return gs_fail(st, GS_EDATA, "%s: lines ended by CR alone cannot be split across ranks (give them "
                                             "LF line ends, or run one process)", path);
            }
            if (nl) L->head_len = at + (uint64_t)(nl - buf) + 1;
            at += (uint64_t)got;
        }
        if (has_header && !L->head_len) L->head_len = size;
        close(fd);
        return GS_OK;
    }
    if (L->compressed) {
        void *p = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
        if (p == MAP_FAILED) {
            int e = errno;
            close(fd);
            return gs_fail_errno(st, e, "%s: mmap", path);
        }
        rc = gs_layout_frames(L, p, size, path, st);
        if (p) munmap(p, size);
        if (rc) { /* the frame table may not exist yet */
            close(fd);
            gs_layout_free(L);
            return rc;
        }
        total = L->frame_pos[L->nframes];
    }
    close(fd);
    /* npy: the data end the file; raw: the whole of it (stray bytes were refused at open). */
    uint64_t n = count >= 0 ? (uint64_t)count : total / esize;
    if (n > total / esize || (L->format == GS_FMT_RAW && total % esize)) {
        gs_layout_free(L);
        return gs_fail(st, GS_EDATA, "%s: %llu bytes do not hold %llu elements of %s", path,
                       (unsigned long long)total, (unsigned long long)n, gs_type_name(L->type));
    }
    L->n = n;
    L->data_off = total - n * esize;
    return GS_OK;
}

/* ---- a window of a byte source: a prefix, then skip, then at most left bytes --------------------- */
typedef struct gs_wsrc {
    gs_bsrc base;
    gs_bsrc *in;
    uint64_t skip, left;
    int to_end;          /* left is not a promise: the input may end before */
    char *prefix;        /* served first (a csv header line) */
    size_t prefix_len, prefix_pos;
} gs_wsrc;

static int gs_wsrc_read(gs_bsrc *b, void *buf, size_t cap, size_t *got, gs_status *st)
{
    gs_wsrc *s = (gs_wsrc *)b;
    *got = 0;
    if (s->prefix_pos < s->prefix_len) {
        size_t n = s->prefix_len - s->prefix_pos < cap ? s->prefix_len - s->prefix_pos : cap;
        memcpy(buf, s->prefix + s->prefix_pos, n);
        s->prefix_pos += n;
        *got = n;
        return GS_OK;
    }
    while (s->skip) {
        size_t want = s->skip < cap ? (size_t)s->skip : cap, g = 0;
        int rc = s->in->read(s->in, buf, want, &g, st);
        if (rc) return rc;
        if (!g) return gs_fail(st, GS_EDATA, "%s: ends before the range to read", b->name);
        s->skip -= g;
    }
    if (cap > s->left) cap = (size_t)s->left;
    size_t n = 0;
    while (n < cap) { /* the end of the range is not the end of the input: fill cap */
        size_t g = 0;
        int rc = s->in->read(s->in, (char *)buf + n, cap - n, &g, st);
        if (rc) return rc;
        if (!g && s->to_end) break;
        if (!g) return gs_fail(st, GS_EDATA, "%s: ends %llu bytes before the range to read does", b->name,
                               (unsigned long long)(s->left - n));
        n += g;
    }
    s->left -= n;
    *got = n;
    b->consumed = s->in->consumed;
    return GS_OK;
}

static void gs_wsrc_close(gs_bsrc *b)
{
    gs_wsrc *s = (gs_wsrc *)b;
    s->in->close(s->in);
    free(s->prefix);
    free(s);
}

int gs_reader_open_range(gs_reader **r, const char *path, const gs_read_opts *o, const gs_layout *L,
                         uint64_t first, uint64_t count, gs_status *st)
{
    *r = NULL;
    size_t esize = gs_type_size(L->type);
    if (first > L->n || count > L->n - first)
        return gs_fail(st, GS_EUSAGE, "%s: range %llu+%llu is outside its %llu elements", path,
                       (unsigned long long)first, (unsigned long long)count, (unsigned long long)L->n);
    uint64_t at = L->data_off + first * esize, skip = 0, file_off = at;
    if (L->compressed) { /* the frame holding byte `at`; a range that is empty starts anywhere */
        size_t f = 0;
        while (f + 1 < L->nframes && L->frame_pos[f + 1] <= at) f++;
        file_off = L->nframes ? L->frame_off[f] : 0;
        skip = L->nframes ? at - L->frame_pos[f] : 0;
    }
    gs_bsrc *src = NULL;
    gs_wsrc *w = NULL;
    int rc = gs_bsrc_open_file(&src, path, o->threads, st);
    if (!rc) rc = gs_bsrc_file_seek(src, count ? file_off : 0, st);
    if (!rc && L->compressed && count) {
        rc = gs_bsrc_open_zstd(&src, src, o, st);
        if (rc) src = NULL; /* closed by the zstd layer */
    }
    if (!rc && !(w = calloc(1, sizeof *w))) rc = gs_fail(st, GS_ENOMEM, "out of memory");
    if (rc) {
        if (src) src->close(src);
        return rc;
    }
    w->base.read = gs_wsrc_read;
    w->base.close = gs_wsrc_close;
    w->base.name = src->name;
    w->base.size = (int64_t)(count * esize);
    w->in = src;
    w->skip = count ? skip : 0;
    w->left = count * esize;
    gs_decoder *dec = NULL;
    if ((rc = gs_dec_open_raw(&dec, &w->base, L->type, st))) {
        gs_wsrc_close(&w->base);
        return rc;
    }
    if ((rc = gs_reader_from_decoder(r, dec, L->format, L->compressed, path, st))) dec->close(dec);
    return rc;
}

/* ---- csv and text: ranges of lines --------------------------------------------------------------- */
int gs_layout_line_start(const gs_layout *L, const char *path, uint64_t off, uint64_t *at, gs_status *st)
{
    if (off <= L->head_len) {
        *at = L->head_len < L->size ? L->head_len : L->size;
        return GS_OK;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return gs_fail_errno(st, errno, "%s", path);
    char buf[65536];
    uint64_t pos = off - 1; /* a line starts at off if the byte before it ends one */
    *at = L->size;
    while (pos < L->size) {
        ssize_t got = pread(fd, buf, sizeof buf, (off_t)pos);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            int e = errno;
            close(fd);
            return gs_fail_errno(st, e, "%s", path);
        }
        if (got == 0) break;
        char *nl = memchr(buf, '\n', (size_t)got);
        if (nl) {
            *at = pos + (uint64_t)(nl - buf) + 1;
            break;
        }
        pos += (uint64_t)got;
    }
    close(fd);
    return GS_OK;
}

int gs_layout_count_lines(const char *path, uint64_t from, uint64_t to, uint64_t *lines, gs_status *st)
{
    *lines = 0;
    if (from >= to) return GS_OK;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return gs_fail_errno(st, errno, "%s", path);
    size_t cap = (size_t)1 << 20;
    char *buf = malloc(cap);
    int rc = buf ? GS_OK : gs_fail(st, GS_ENOMEM, "out of memory");
    while (!rc && from < to) {
        ssize_t got = pread(fd, buf, to - from < cap ? (size_t)(to - from) : cap, (off_t)from);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            rc = gs_fail_errno(st, got < 0 ? errno : EIO, "%s", path);
            break;
        }
        for (char *p = buf, *end = buf + got; (p = memchr(p, '\n', (size_t)(end - p))); p++) ++*lines;
        from += (uint64_t)got;
    }
    free(buf);
    close(fd);
    return rc;
}

/* A decoder that stops after max elements. */
typedef struct gs_capdec {
    gs_decoder base;
    gs_decoder *in;
    uint64_t left;
} gs_capdec;

static int gs_capdec_read(gs_decoder *d, void *buf, size_t cap, size_t *got, gs_status *st)
{
    gs_capdec *c = (gs_capdec *)d;
    *got = 0;
    if (cap > c->left) cap = (size_t)c->left;
    if (!cap) return GS_OK;
    int rc = c->in->read(c->in, buf, cap, got, st);
    c->left -= *got;
    d->skipped = c->in->skipped;
    return rc;
}

static void gs_capdec_close(gs_decoder *d)
{
    gs_capdec *c = (gs_capdec *)d;
    c->in->close(c->in);
    free(c);
}

int gs_reader_open_lines(gs_reader **r, const char *path, const gs_read_opts *o, const gs_layout *L,
                         uint64_t from, uint64_t to, uint64_t max, gs_status *st)
{
    *r = NULL;
    if (to > L->size) to = L->size;
    if (from < L->head_len) from = L->head_len < L->size ? L->head_len : L->size;
    if (to < from) to = from;
    gs_bsrc *src = NULL;
    gs_wsrc *w = NULL;
    int rc = gs_bsrc_open_file(&src, path, o->threads, st);
    if (!rc && !(w = calloc(1, sizeof *w))) rc = gs_fail(st, GS_ENOMEM, "out of memory");
    if (!rc && L->head_len && !(w->prefix = malloc(L->head_len))) rc = gs_fail(st, GS_ENOMEM, "out of memory");
    if (!rc && L->head_len) { /* the header line, for the decoder to resolve --col as on the whole file */
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t g = fd < 0 ? -1 : pread(fd, w->prefix, L->head_len, 0);
        if (g != (ssize_t)L->head_len) rc = gs_fail_errno(st, g < 0 ? errno : EIO, "%s: reading the header", path);
        if (fd >= 0) close(fd);
        w->prefix_len = L->head_len;
    }
    if (!rc) rc = gs_bsrc_file_seek(src, from, st);
    if (rc) {
        if (w) free(w->prefix);
        free(w);
        if (src) src->close(src);
        return rc;
    }
    w->base.read = gs_wsrc_read;
    w->base.close = gs_wsrc_close;
    w->base.name = src->name;
    w->base.size = (int64_t)(L->head_len + (to - from));
    w->in = src;
    w->left = to - from;
    w->to_end = 1;
    gs_read_opts ro = *o;
    ro.type = L->type;
    if (L->delim) ro.delim = L->delim; /* as the whole file was read (a .tsv, a delimiter found) */
    gs_decoder *dec = NULL;
    rc = L->format == GS_FMT_CSV ? gs_dec_open_csv(&dec, &w->base, &ro, st) : gs_dec_open_text(&dec, &w->base, &ro, st);
    if (rc) {
        gs_wsrc_close(&w->base);
        return rc;
    }
    gs_capdec *c = calloc(1, sizeof *c);
    if (!c) {
        dec->close(dec);
        return gs_fail(st, GS_ENOMEM, "out of memory");
    }
    c->base = *dec;
    c->base.read = gs_capdec_read;
    c->base.close = gs_capdec_close;
    c->base.count = -1;
    c->in = dec;
    c->left = max;
    if ((rc = gs_reader_from_decoder(r, &c->base, L->format, 0, path, st))) gs_capdec_close(&c->base);
    return rc;
}

/* ---- a byte sink of the caller's ------------------------------------------------------------------ */
typedef struct gs_csink {
    gs_bsink base;
    gs_byte_sink k;
} gs_csink;

static int gs_csink_write(gs_bsink *b, const void *buf, size_t n, gs_status *st)
{
    gs_csink *c = (gs_csink *)b;
    int rc = n ? c->k.write(c->k.ctx, buf, n, st) : GS_OK;
    if (!rc) b->written += n;
    return rc;
}

static int gs_csink_pwrite(gs_bsink *b, const void *buf, size_t n, uint64_t off, gs_status *st)
{
    (void)buf, (void)n, (void)off;
    return gs_fail(st, GS_EUSAGE, "%s: output is not seekable", b->name);
}

static int gs_csink_close(gs_bsink *b, gs_status *st)
{
    (void)st;
    free(b);
    return GS_OK;
}

static void gs_csink_abort(gs_bsink *b) { free(b); }

int gs_writer_open_sink(gs_writer **w, const gs_byte_sink *k, const gs_write_opts *o, const void *head,
                        size_t head_len, gs_status *st)
{
    *w = NULL;
    if (o->format == GS_FMT_NPY) return gs_fail(st, GS_EUSAGE, "npy into a byte sink: write its header as head");
    gs_csink *c = calloc(1, sizeof *c);
    if (!c) return gs_fail(st, GS_ENOMEM, "out of memory");
    c->base.write = gs_csink_write;
    c->base.pwrite = gs_csink_pwrite;
    c->base.close = gs_csink_close;
    c->base.abort = gs_csink_abort;
    c->base.name = k->name;
    c->k = *k;
    gs_write_opts plain = *o;
    plain.zstd = 0;
    gs_bsink *b = &c->base;
    int rc = GS_OK;
    if (o->zstd) {
        rc = gs_bsink_open_zstd(&b, b, o, st);
        if (rc) return rc; /* aborted by the zstd layer */
    }
    if (head_len && (rc = b->write(b, head, head_len, st))) {
        b->abort(b);
        return rc;
    }
    return gs_writer_from_sink(w, b, &plain, st);
}
