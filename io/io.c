/* io.c - the public side of io/ (io.h): format names, and readers and writers stacked from the
 * layers of io_internal.h.
 *
 *   reader: file/stdin source -> [zstd source, when the bytes start with a zstd magic]
 *           -> decoder chosen by --from, else the npy magic, else the extension, else raw
 *   writer: file/stdout sink -> [zstd sink, when asked] -> encoder of the given format
 *
 * Ownership: a layer that opens takes its lower layer; a decoder or encoder that fails to open
 * leaves it to the caller here, which closes or aborts it. */
#include "io_internal.h"
#include "zstd_index.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const gs_format_names[] = {"auto", "raw", "npy", "csv", "text"};

const char *gs_format_name(gs_format f)
{
    return (unsigned)f < sizeof gs_format_names / sizeof *gs_format_names ? gs_format_names[f] : "?";
}

int gs_format_parse(const char *s, gs_format *f)
{
    static const struct {
        const char *name;
        gs_format f;
    } names[] = {{"raw", GS_FMT_RAW}, {"bin", GS_FMT_RAW}, {"npy", GS_FMT_NPY},
                 {"csv", GS_FMT_CSV}, {"text", GS_FMT_TEXT}, {"txt", GS_FMT_TEXT}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (s && !strcasecmp(s, names[i].name)) {
            *f = names[i].f;
            return 0;
        }
    return -1;
}

gs_format gs_format_from_name(const char *path, int *zst)
{
    static const struct {
        const char *ext;
        gs_format f;
    } exts[] = {{".npy", GS_FMT_NPY}, {".csv", GS_FMT_CSV}, {".tsv", GS_FMT_CSV}, {".tab", GS_FMT_CSV}, {".txt", GS_FMT_TEXT}, {".text", GS_FMT_TEXT},
                {".raw", GS_FMT_RAW}, {".bin", GS_FMT_RAW}, {".i32", GS_FMT_RAW}, {".i64", GS_FMT_RAW},
                {".u32", GS_FMT_RAW}, {".u64", GS_FMT_RAW}, {".f32", GS_FMT_RAW}, {".f64", GS_FMT_RAW}};
    int z = 0;
    gs_format f = GS_FMT_AUTO;
    if (path && strcmp(path, "-")) {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        size_t n = strlen(base);
        if (n > 4 && !strcasecmp(base + n - 4, ".zst")) {
            z = 1;
            n -= 4;
        }
        for (size_t i = 0; i < sizeof exts / sizeof *exts; i++) {
            size_t e = strlen(exts[i].ext);
            if (n > e && !strncasecmp(base + n - e, exts[i].ext, e)) {
                f = exts[i].f;
                break;
            }
        }
    }
    if (zst) *zst = z;
    return f;
}

/* ---- reader ---------------------------------------------------------------------------------- */
struct gs_reader {
    gs_decoder *dec;
    gs_format format;
    int compressed;
    int raw_assumed; /* no format given and the bytes are not text: errors name --from */
    char delim;      /* csv: the delimiter in use */
    char *name;
};

#define GS_SNIFF_BLOCK ((size_t)4 << 10)  /* the first block sniffed for text */
#define GS_SNIFF_MAX ((size_t)64 << 10)   /* ... or up to this much, for a first line longer than it */

/* An input of no format known by magic or name: text (csv or text, with its delimiter) or raw.
 * Everything looked at stays in the source's peek buffer (a pipe loses nothing). */
static int gs_detect_text(gs_bsrc *src, gs_format *f, char *delim, gs_status *st)
{
    unsigned char *buf = malloc(GS_SNIFF_MAX);
    size_t got = 0, want = GS_SNIFF_BLOCK;
    int rc = buf ? GS_OK : gs_fail(st, GS_ENOMEM, "%s: out of memory", src->name);
    *f = GS_FMT_AUTO;
    while (!rc) {
        rc = gs_bsrc_peek(src, buf, want, &got, st);
        if (rc || got < want || memchr(buf, '\n', got) || memchr(buf, '\r', got) || want == GS_SNIFF_MAX) break;
        want = GS_SNIFF_MAX;
    }
    if (!rc) gs_sniff_text(buf, got, got < want, f, delim);
    free(buf);
    return rc;
}

#define GS_SKIP_PEEK ((size_t)64 << 10) /* how far detection looks past skippable frames */

/* Is the input zstd? A zstd (or legacy) frame magic says yes. Skippable frames carry no data, so
 * they count only when a zstd frame follows them within the first 64 KiB (or they run past it
 * and, in a file, end within it: the decoder then judges what follows): raw values that happen to
 * begin with a skippable magic are never read as an empty stream, nor as frames running past the
 * file's end. */
static int gs_detect_zstd(gs_bsrc *src, int *yes, gs_status *st)
{
    unsigned char head[4];
    size_t got = 0;
    *yes = 0;
    int rc = gs_bsrc_peek(src, head, 4, &got, st);
    if (rc || got < 4) return rc;
    gs_zkind k = gs_zstd_kind(gs_le32(head));
    if (k == GS_ZK_FRAME || k == GS_ZK_LEGACY) {
        *yes = 1;
        return GS_OK;
    }
    if (k != GS_ZK_SKIP) return GS_OK;
    unsigned char *buf = malloc(GS_SKIP_PEEK);
    if (!buf) return gs_fail(st, GS_ENOMEM, "%s: out of memory", src->name);
    rc = gs_bsrc_peek(src, buf, GS_SKIP_PEEK, &got, st);
    for (size_t at = 0; !rc && at + 4 <= got;) { /* the input ending in or right after the chain: not zstd */
        gs_zfinfo fi;
        const int head_rc = gs_zframe_head(buf + at, got - at, &fi);
        if (fi.kind == GS_ZK_FRAME || fi.kind == GS_ZK_LEGACY) {
            *yes = 1;
            break;
        }
        if (fi.kind != GS_ZK_SKIP || head_rc != GS_ZF_OK) break;
        if (src->size >= 0 && at + fi.csize > (uint64_t)src->size) break; /* past the file's end */
        if (at + fi.csize + 4 > GS_SKIP_PEEK) { /* past what detection looks at */
            *yes = got == GS_SKIP_PEEK;
            break;
        }
        at += (size_t)fi.csize;
    }
    free(buf);
    return rc;
}

/* For a name ending in .zst that holds something else: what it is, for the message. */
static const char *gs_other_format(const unsigned char *p, size_t n)
{
    if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b) return " (it is gzip)";
    if (n >= 6 && !memcmp(p, "\xFD" "7zXZ\0", 6)) return " (it is xz)";
    if (n >= 3 && !memcmp(p, "BZh", 3)) return " (it is bzip2)";
    if (n >= 4 && gs_le32(p) == 0x184D2204u) return " (it is lz4)";
    if (n >= 4 && (gs_le32(p) & GS_ZSTD_SKIP_MASK) == GS_ZSTD_ANY_MAGIC) return " (a zstd format older than v0.5)";
    return "";
}

int gs_reader_open(gs_reader **out, const char *path, const gs_read_opts *o, gs_status *st)
{
    *out = NULL;
    gs_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->name = strdup(path && strcmp(path, "-") ? path : "stdin"))) {
        free(r);
        return gs_fail(st, GS_ENOMEM, "out of memory");
    }
    gs_bsrc *src = NULL;
    unsigned char magic[6];
    size_t got = 0;
    int named_zst = 0, zstd = 0;
    gs_format_from_name(path, &named_zst);
    int rc = gs_bsrc_open_file(&src, path, o->threads, st);
    /* A .zst name says compressed; an explicit --from raw says not; else the magic decides. */
    if (!rc && !named_zst && o->format != GS_FMT_RAW) rc = gs_detect_zstd(src, &zstd, st);
    if (!rc && named_zst) {
        rc = gs_bsrc_peek(src, magic, 6, &got, st);
        const gs_zkind k = got >= 4 ? gs_zstd_kind(gs_le32(magic)) : GS_ZK_NONE;
        if (!rc && got == 0) rc = gs_fail(st, GS_EDATA, "%s: empty file, not in zstd format", r->name);
        else if (!rc && k == GS_ZK_NONE)
            rc = gs_fail(st, GS_EDATA, "%s: not in zstd format%s", r->name, gs_other_format(magic, got));
        zstd = 1;
    }
    if (!rc && zstd) {
        r->compressed = 1;
        rc = gs_bsrc_open_zstd(&src, src, o, st);
        if (rc) src = NULL; /* closed by the zstd layer */
    }
    gs_format f = o->format;
    char delim = o->delim ? o->delim : gs_delim_from_name(path);
    if (!rc && f == GS_FMT_AUTO) {
        rc = gs_bsrc_peek(src, magic, 6, &got, st);
        if (!rc) f = got == 6 && !memcmp(magic, "\x93NUMPY", 6) ? GS_FMT_NPY : gs_format_from_name(path, NULL);
        char sniffed = 0;
        if (!rc && f == GS_FMT_AUTO) rc = gs_detect_text(src, &f, &sniffed, st);
        if (!delim) delim = sniffed;
        if (f == GS_FMT_AUTO) f = GS_FMT_RAW, r->raw_assumed = 1;
    }
    if (!rc && o->col && f != GS_FMT_CSV && f != GS_FMT_NPY)
        rc = gs_fail(st, GS_EUSAGE, "%s: --col applies to CSV and 2-D npy input, and this input is %s%s", r->name, gs_format_name(f),
                     r->raw_assumed ? " (no format given, and it does not start as text; --from csv reads it as CSV)" : "");
    if (!rc) {
        /* Text columns are usually decimals: without -t they are read as f64 (raw stays i32). */
        gs_read_opts to = *o;
        if (!o->type_given && (f == GS_FMT_CSV || f == GS_FMT_TEXT)) to.type = GS_F64;
        to.delim = delim;
        r->delim = delim ? delim : ',';
        r->format = f;
        switch (f) {
        case GS_FMT_NPY: rc = gs_dec_open_npy(&r->dec, src, o, st); break;
        case GS_FMT_CSV: rc = gs_dec_open_csv(&r->dec, src, &to, st); break;
        case GS_FMT_TEXT: rc = gs_dec_open_text(&r->dec, src, &to, st); break;
        default: rc = gs_dec_open_raw(&r->dec, src, o->type, st); break;
        }
    }
    if (rc) {
        if (src) src->close(src);
        free(r->name);
        free(r);
        return rc;
    }
    *out = r;
    return GS_OK;
}

int gs_reader_from_decoder(gs_reader **out, gs_decoder *dec, gs_format f, int compressed, const char *name,
                           gs_status *st)
{
    *out = NULL;
    gs_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->name = strdup(name))) {
        free(r);
        return gs_fail(st, GS_ENOMEM, "out of memory");
    }
    r->dec = dec;
    r->format = f;
    r->compressed = compressed;
    *out = r;
    return GS_OK;
}

gs_type gs_reader_type(const gs_reader *r) { return r->dec->type; }
gs_format gs_reader_format(const gs_reader *r) { return r->format; }
char gs_reader_delim(const gs_reader *r) { return r->delim; }
int gs_reader_compressed(const gs_reader *r) { return r->compressed; }
int64_t gs_reader_count(const gs_reader *r) { return r->dec->count; }
const char *gs_reader_colname(const gs_reader *r) { return r->dec->colname; }
const char *gs_reader_name(const gs_reader *r) { return r->name; }
int gs_reader_cols(const gs_reader *r) { return r->dec->ncols > 1 ? r->dec->ncols : 1; }
const char *gs_reader_colname_at(const gs_reader *r, int i)
{
    if (r->dec->ncols <= 1) return i == 0 ? r->dec->colname : NULL;
    return r->dec->colnames && i >= 0 && i < r->dec->ncols ? r->dec->colnames[i] : NULL;
}
uint64_t gs_reader_skipped(const gs_reader *r) { return r->dec->skipped; }
const struct gs_rowmap *gs_reader_rows(const gs_reader *r) { return r->dec->rows; }
gs_rowtext *gs_reader_rowtext(const gs_reader *r) { return r->dec->text; }
uint64_t gs_reader_bytes(const gs_reader *r) { return r->dec->src ? r->dec->src->consumed : 0; }

int gs_reader_read(gs_reader *r, void *buf, size_t cap, size_t *got, gs_status *st)
{
    int rc = r->dec->read(r->dec, buf, cap, got, st);
    if (rc == GS_EDATA && r->raw_assumed && !strstr(st->msg, "--from")) { /* a raw error of a format assumed */
        const size_t n = strlen(st->msg);
        snprintf(st->msg + n, sizeof st->msg - n, " (read as raw: no format given; --from csv or --from text reads text)");
    }
    return rc;
}

int gs_reader_frames(gs_reader *r, const gs_zframes_req *q, size_t *nframes, size_t *elems, gs_status *st)
{
    *nframes = 0;
    *elems = 0;
    return r->dec->frames ? r->dec->frames(r->dec, q, nframes, elems, st) : GS_OK;
}

int gs_reader_view(gs_reader *r, size_t cap, int take, const void **p, size_t *got, gs_status *st)
{
    *p = NULL;
    *got = 0;
    return r->dec->view && cap ? r->dec->view(r->dec, cap, take, p, got, st) : GS_OK;
}

int gs_reader_maps(const gs_reader *r)
{
    return r->dec->view && r->dec->src && r->dec->src->view && r->dec->src->size > 0;
}

int gs_reader_parses_text(const gs_reader *r) { return r->dec->text_parser != NULL && r->dec->text_parser(r->dec, NULL, 0); }

void gs_reader_text_parser(gs_reader *r, const gs_text_parser *p)
{
    if (r->dec->text_parser) r->dec->text_parser(r->dec, p, 1);
}

void gs_reader_close(gs_reader *r)
{
    if (!r) return;
    r->dec->close(r->dec);
    free(r->name);
    free(r);
}

/* ---- writer ---------------------------------------------------------------------------------- */
struct gs_writer {
    gs_encoder *enc;
    uint64_t final_bytes; /* the file sink's count after its last flush (set by its close) */
};

int gs_writer_open(gs_writer **out, const char *path, const gs_write_opts *o, gs_status *st)
{
    *out = NULL;
    /* Compressed output is binary whatever the format inside. */
    int binary = o->zstd || o->format == GS_FMT_RAW || o->format == GS_FMT_NPY;
    gs_bsink *k = NULL;
    int rc = gs_bsink_open_file(&k, path, o->force, binary, st);
    return rc ? rc : gs_writer_from_sink(out, k, o, st);
}

/* Stack [zstd] and the encoder on k (taken: aborted on failure). */
int gs_writer_from_sink(gs_writer **out, gs_bsink *k, const gs_write_opts *o, gs_status *st)
{
    *out = NULL;
    gs_writer *w = calloc(1, sizeof *w);
    if (!w) {
        k->abort(k);
        return gs_fail(st, GS_ENOMEM, "out of memory");
    }
    int rc = GS_OK;
    k->final_written = &w->final_bytes;
    if (o->zstd) {
        rc = gs_bsink_open_zstd(&k, k, o, st);
        if (rc) k = NULL; /* aborted by the zstd layer */
    }
    if (!rc) {
        switch (o->format) {
        case GS_FMT_RAW: rc = gs_enc_open_raw(&w->enc, k, o, st); break;
        case GS_FMT_NPY: rc = gs_enc_open_npy(&w->enc, k, o, st); break;
        case GS_FMT_CSV: rc = gs_enc_open_csv(&w->enc, k, o, st); break;
        case GS_FMT_TEXT: rc = gs_enc_open_text(&w->enc, k, o, st); break;
        default: rc = gs_fail(st, GS_EUSAGE, "no output format given"); break;
        }
    }
    if (rc) {
        if (k) k->abort(k);
        free(w);
        return rc;
    }
    *out = w;
    return GS_OK;
}

int gs_writer_write(gs_writer *w, const void *vals, size_t n, gs_status *st)
{
    return n ? w->enc->write(w->enc, vals, n, st) : GS_OK;
}

int gs_writer_write_bytes(gs_writer *w, const void *buf, size_t n, gs_status *st)
{
    return n ? w->enc->sink->write(w->enc->sink, buf, n, st) : GS_OK;
}

int gs_writer_takes_frames(const gs_writer *w) { return w->enc->plain && w->enc->sink->frames != NULL; }

int gs_writer_text_form(const gs_writer *w, char *sep)
{
    if (sep) *sep = w->enc->text_sep;
    return w->enc->text_cols;
}

int gs_writer_write_text(gs_writer *w, const void *text, size_t n, size_t values, gs_status *st)
{
    if (!w->enc->text_cols) return gs_fail(st, GS_EUSAGE, "%s: this output does not take text", w->enc->sink->name);
    int rc = n ? w->enc->sink->write(w->enc->sink, text, n, st) : GS_OK;
    if (rc == GS_OK) w->enc->values += values;
    return rc;
}

int gs_writer_write_frames(gs_writer *w, const unsigned char *buf, const gs_zfref *t, size_t n, size_t values,
                           gs_status *st)
{
    if (!gs_writer_takes_frames(w))
        return gs_fail(st, GS_EUSAGE, "%s: this output does not take zstd frames", w->enc->sink->name);
    int rc = n ? w->enc->sink->frames(w->enc->sink, buf, t, n, st) : GS_OK;
    if (rc == GS_OK) w->enc->values += values;
    return rc;
}

int gs_writer_end(gs_writer *w, gs_status *st)
{
    gs_bsink *k = w->enc->sink;
    return k->end ? k->end(k, st) : GS_OK;
}

int gs_writer_finish(gs_writer *w, uint64_t *bytes_out, gs_status *st)
{
    int rc = w->enc->close(w->enc, st);
    if (!rc && bytes_out) *bytes_out = w->final_bytes;
    free(w);
    return rc;
}

int gs_writer_close(gs_writer *w, gs_status *st) { return gs_writer_finish(w, NULL, st); }

void gs_writer_abort(gs_writer *w)
{
    if (!w) return;
    w->enc->abort(w->enc);
    free(w);
}

uint64_t gs_writer_bytes(const gs_writer *w) { return w->enc->sink->written; }
