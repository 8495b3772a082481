/* npy.c - NumPy .npy files (format versions 1, 2 and 3).
 *
 * Reading: the header is a Python dict literal, {'descr': '<f8', 'fortran_order': False,
 * 'shape': (1000,), }, parsed here by a small scanner. Little-endian (or byte-order-free) i4 i8
 * u4 u8 f4 f8 are accepted; shapes (n,), (n,1) and (n,2) are read flat in C order (an (n,2)
 * array gives 2n values), fortran_order only where it cannot change the order. A header whose
 * element count disagrees with the data is an error: at open when the size is known, otherwise
 * when the data ends (pipes, zstd).
 *
 * Writing: a version 1 header padded to 64 bytes, shape (n,) or (n,2). When the row count is
 * not known in advance the header is written with room for a 20-digit count and rewritten at
 * close, which needs a seekable, uncompressed sink. */
#include "io_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "raw and npy I/O assume a little-endian host"
#endif

#define GS_NPY_MAGIC "\x93NUMPY"
#define GS_NPY_MAX_HEADER (1u << 20) /* numpy itself refuses headers over 10 KB by default */

/* The descr strings numpy writes for our types, in gs_type order. */
static const char *const gs_npy_descr[GS_NTYPES] = {"<i4", "<i8", "<u4", "<u8", "<f4", "<f8"};

/* Read exactly n bytes unless the source ends first. */
static int gs_read_full(gs_bsrc *src, void *buf, size_t n, size_t *got, gs_status *st)
{
    *got = 0;
    while (*got < n) {
        size_t g = 0;
        int rc = src->read(src, (unsigned char *)buf + *got, n - *got, &g, st);
        if (rc) return rc;
        if (!g) break;
        *got += g;
    }
    return GS_OK;
}

/* ---- header parsing -------------------------------------------------------------------------- */
typedef struct gs_npy_hdr {
    char descr[64];
    int fortran;
    int ndim;
    int64_t shape[8];
    int have_descr, have_fortran, have_shape;
} gs_npy_hdr;

typedef struct gs_scan {
    const char *p, *end;
} gs_scan;

static void gs_skip_ws(gs_scan *s)
{
    while (s->p < s->end && isspace((unsigned char)*s->p)) s->p++;
}

static int gs_eat(gs_scan *s, char c)
{
    gs_skip_ws(s);
    if (s->p < s->end && *s->p == c) {
        s->p++;
        return 1;
    }
    return 0;
}

/* A quoted Python string without escapes (numpy never writes any in these fields). */
static int gs_scan_str(gs_scan *s, char *out, size_t cap)
{
    gs_skip_ws(s);
    if (s->p >= s->end || (*s->p != '\'' && *s->p != '"')) return -1;
    char q = *s->p++;
    size_t n = 0;
    while (s->p < s->end && *s->p != q) {
        if (n + 1 >= cap) return -1;
        out[n++] = *s->p++;
    }
    if (s->p >= s->end) return -1;
    s->p++;
    out[n] = 0;
    return 0;
}

static int gs_scan_word(gs_scan *s, const char *w)
{
    gs_skip_ws(s);
    size_t n = strlen(w);
    if ((size_t)(s->end - s->p) >= n && !memcmp(s->p, w, n)) {
        s->p += n;
        return 1;
    }
    return 0;
}

/* Parse the dict; on failure *why says what was wrong. */
static int gs_npy_parse(const char *txt, size_t len, gs_npy_hdr *h, const char **why)
{
    gs_scan s = {txt, txt + len};
    memset(h, 0, sizeof *h);
    *why = "expected a dict";
    if (!gs_eat(&s, '{')) return -1;
    while (!gs_eat(&s, '}')) {
        char key[32];
        *why = "expected a quoted key";
        if (gs_scan_str(&s, key, sizeof key)) return -1;
        *why = "expected ':'";
        if (!gs_eat(&s, ':')) return -1;
        if (!strcmp(key, "descr")) {
            gs_skip_ws(&s);
            if (s.p < s.end && *s.p == '[') { /* a structured dtype */
                snprintf(h->descr, sizeof h->descr, "[...]");
                while (s.p < s.end && *s.p != ']') s.p++;
                if (s.p < s.end) s.p++;
            } else if (gs_scan_str(&s, h->descr, sizeof h->descr)) {
                *why = "bad 'descr'";
                return -1;
            }
            h->have_descr = 1;
        } else if (!strcmp(key, "fortran_order")) {
            if (gs_scan_word(&s, "True")) h->fortran = 1;
            else if (gs_scan_word(&s, "False")) h->fortran = 0;
            else {
                *why = "bad 'fortran_order'";
                return -1;
            }
            h->have_fortran = 1;
        } else if (!strcmp(key, "shape")) {
            *why = "bad 'shape'";
            if (!gs_eat(&s, '(')) return -1;
            while (!gs_eat(&s, ')')) {
                gs_skip_ws(&s);
                int64_t v = 0;
                int digits = 0;
                while (s.p < s.end && isdigit((unsigned char)*s.p)) {
                    if (v > (INT64_MAX - 9) / 10) {
                        *why = "shape too large";
                        return -1;
                    }
                    v = v * 10 + (*s.p++ - '0');
                    digits++;
                }
                if (!digits || h->ndim == 8) return -1;
                if (s.p < s.end && *s.p == 'L') s.p++; /* Python 2 longs */
                h->shape[h->ndim++] = v;
                if (!gs_eat(&s, ',')) {
                    if (!gs_eat(&s, ')')) return -1;
                    break;
                }
            }
            h->have_shape = 1;
        } else {
            *why = "unknown key";
            return -1;
        }
        if (!gs_eat(&s, ',')) {
            *why = "expected ',' or '}'";
            if (!gs_eat(&s, '}')) return -1;
            break;
        }
    }
    *why = "missing 'descr', 'fortran_order' or 'shape'";
    return h->have_descr && h->have_fortran && h->have_shape ? 0 : -1;
}

/* '<f8' -> GS_F64; byte order '<', '=' (native, little here) and '|' (none) are accepted. */
static int gs_npy_type(const char *descr, gs_type *t)
{
    if (strlen(descr) != 3 || !strchr("<=|", descr[0])) return -1;
    for (int i = 0; i < GS_NTYPES; i++)
        if (!strcmp(descr + 1, gs_npy_descr[i] + 1)) {
            *t = (gs_type)i;
            return 0;
        }
    return -1;
}

/* ---- decoder --------------------------------------------------------------------------------- */
typedef struct gs_npydec {
    gs_decoder base;
    size_t esize;
    uint64_t left;          /* elements the header promises that are not yet delivered */
    unsigned char *carry;   /* the start of an element split across reads (esize bytes) */
    size_t ncarry;
    /* several columns of an (n, K) array: esize is a row of K values; the rows handed out hold
     * columns sel[0..nsel) (0-based) of each, through scratch where that is not all K in order */
    int nsel, kin;
    int sel[GS_WRITE_COLS_MAX];
    size_t vsize;
    unsigned char *scratch;
    size_t scratch_rows;
} gs_npydec;

static int gs_npy_lying(const gs_decoder *d, uint64_t data_bytes, size_t esize, gs_status *st)
{
    if (data_bytes % esize == 0)
        return gs_fail(st, GS_EDATA, "%s: header says %lld elements but the file holds %llu", d->src->name,
                       (long long)d->count, (unsigned long long)(data_bytes / esize));
    return gs_fail(st, GS_EDATA, "%s: header says %lld elements (%llu bytes) but the file holds %llu bytes of data",
                   d->src->name, (long long)d->count, (unsigned long long)d->count * esize,
                   (unsigned long long)data_bytes);
}

static int gs_npydec_read(gs_decoder *dd, void *buf, size_t cap, size_t *got, gs_status *st)
{
    gs_npydec *d = (gs_npydec *)dd;
    gs_bsrc *src = d->base.src;
    *got = 0;
    if (cap == 0) return GS_OK;
    if (d->left == 0) { /* all promised elements delivered: the data must end here */
        unsigned char scratch[1 << 16];
        uint64_t extra = 0;
        for (;;) {
            size_t g = 0;
            int rc = src->read(src, scratch, sizeof scratch, &g, st);
            if (rc) return rc;
            if (!g) break;
            extra += g;
        }
        if (extra) return gs_npy_lying(dd, (uint64_t)d->base.count * d->esize + extra, d->esize, st);
        return GS_OK;
    }
    if (cap > d->left) cap = (size_t)d->left;
    unsigned char *p = buf;
    size_t want = cap * d->esize, have = d->ncarry;
    memcpy(p, d->carry, d->ncarry);
    d->ncarry = 0;
    while (have < d->esize) {
        size_t g = 0;
        int rc = src->read(src, p + have, want - have, &g, st);
        if (rc) return rc;
        if (!g) {
            uint64_t delivered = (uint64_t)d->base.count - d->left;
            return gs_npy_lying(dd, delivered * d->esize + have, d->esize, st);
        }
        have += g;
    }
    size_t whole = have - have % d->esize;
    d->ncarry = have - whole;
    memcpy(d->carry, p + whole, d->ncarry);
    *got = whole / d->esize;
    d->left -= *got;
    return GS_OK;
}

/* Several columns: rows of the selected columns, gathered from whole rows of the array. */
static int gs_npydec_read_cols(gs_decoder *dd, void *buf, size_t cap, size_t *got, gs_status *st)
{
    gs_npydec *d = (gs_npydec *)dd;
    if (cap > d->scratch_rows) cap = d->scratch_rows;
    int rc = gs_npydec_read(dd, d->scratch, cap, got, st);
    for (size_t r = 0; !rc && r < *got; r++)
        for (int i = 0; i < d->nsel; i++)
            memcpy((char *)buf + (r * (size_t)d->nsel + (size_t)i) * d->vsize,
                   d->scratch + r * d->esize + (size_t)d->sel[i] * d->vsize, d->vsize);
    return rc;
}

/* --col on an npy input: columns of a 2-D C-order array (n, K), 1-based indices; *nsel = 0 where the
 * array is read flat (no --col, and K <= 2: (n,1) and (n,2) read as before). */
static int npy_cols(const gs_npy_hdr *h, const gs_read_opts *o, const char *name, int *sel, int *nsel, gs_status *st)
{
    *nsel = 0;
    const int two_d = h->ndim == 2 && !h->fortran && h->shape[1] > 0;
    if (!(o && o->col && *o->col)) {
        if (!two_d || h->shape[1] <= 2) return GS_OK;
        if (h->shape[1] > GS_WRITE_COLS_MAX)
            return gs_fail(st, GS_EUSAGE, "%s: an npy array of %lld columns: pick at most %d with --col", name,
                           (long long)h->shape[1], GS_WRITE_COLS_MAX);
        for (int i = 0; i < (int)h->shape[1]; i++) sel[i] = i;
        *nsel = (int)h->shape[1];
        return GS_OK;
    }
    if (!two_d)
        return gs_fail(st, GS_EUSAGE, "%s: --col on npy input takes columns of a 2-D array in C order (n, k); this "
                                      "one is %d-D%s", name, h->ndim, h->fortran ? " in fortran order" : "");
    int k = 0, r = gs_cols_resolve(o->col, NULL, 0, sel, &k, name, st);
    if (r) return r;
    for (int i = 0; i < k; i++) {
        if (sel[i] > h->shape[1])
            return gs_fail(st, GS_EUSAGE, "%s: --col %d, but the npy array has %lld columns", name, sel[i],
                           (long long)h->shape[1]);
        sel[i]--;
    }
    *nsel = k;
    return GS_OK;
}

/* Frames up to the elements the header promises; what follows them is for gs_npydec_read to judge. */
/* The promised elements where they lie (the data's end is still checked by a read). */
static int gs_npydec_view(gs_decoder *dd, size_t cap, int take, const void **p, size_t *got, gs_status *st)
{
    gs_npydec *d = (gs_npydec *)dd;
    size_t bytes = 0;
    *p = NULL;
    *got = 0;
    if (d->ncarry || d->left == 0 || !d->base.src->view) return GS_OK;
    if (cap > d->left) cap = (size_t)d->left;
    if (cap > SIZE_MAX / d->esize) cap = SIZE_MAX / d->esize;
    int rc = d->base.src->view(d->base.src, cap * d->esize, take, p, &bytes, st);
    if (rc || !bytes) return rc;
    if (bytes % d->esize) { /* the file ends inside an element */
        const uint64_t delivered = (uint64_t)d->base.count - d->left;
        return gs_npy_lying(dd, delivered * d->esize + bytes, d->esize, st);
    }
    *got = bytes / d->esize;
    if (take) d->left -= *got;
    return GS_OK;
}

static int gs_npydec_frames(gs_decoder *dd, const gs_zframes_req *q, size_t *nf, size_t *elems, gs_status *st)
{
    gs_npydec *d = (gs_npydec *)dd;
    gs_zframes_req r = *q;
    uint64_t bytes = 0;
    *nf = 0;
    *elems = 0;
    if (d->ncarry || d->left == 0 || !d->base.src->frames) return GS_OK;
    if (d->left <= r.content_max / d->esize) r.content_max = (size_t)d->left * d->esize;
    int rc = d->base.src->frames(d->base.src, &r, d->esize, nf, &bytes, st);
    if (rc || !*nf) return rc;
    d->left -= bytes / d->esize;
    *elems = (size_t)(bytes / d->esize);
    return GS_OK;
}

static void gs_npydec_close(gs_decoder *d)
{
    d->src->close(d->src);
    free(((gs_npydec *)d)->scratch);
    free(d);
}

int gs_dec_open_npy(gs_decoder **out, gs_bsrc *src, const gs_read_opts *o, gs_status *st)
{
    *out = NULL;
    unsigned char pre[12];
    size_t got;
    int rc = gs_read_full(src, pre, 10, &got, st);
    if (rc) return rc;
    if (got < 6 || memcmp(pre, GS_NPY_MAGIC, 6))
        return gs_fail(st, GS_EDATA, "%s: not an npy file (no \\x93NUMPY magic)", src->name);
    if (got < 10) return gs_fail(st, GS_EDATA, "%s: truncated npy header", src->name);
    int major = pre[6], minor = pre[7];
    size_t prefix = 10, hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
    if (major == 2 || major == 3) {
        if ((rc = gs_read_full(src, pre + 10, 2, &got, st))) return rc;
        if (got < 2) return gs_fail(st, GS_EDATA, "%s: truncated npy header", src->name);
        prefix = 12;
        hlen |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    } else if (major != 1) {
        return gs_fail(st, GS_EDATA, "%s: unsupported npy version %d.%d", src->name, major, minor);
    }
    if (hlen > GS_NPY_MAX_HEADER) return gs_fail(st, GS_EDATA, "%s: npy header too long (%zu bytes)", src->name, hlen);
    char *txt = malloc(hlen + 1);
    if (!txt) return gs_fail(st, GS_ENOMEM, "out of memory");
    if ((rc = gs_read_full(src, txt, hlen, &got, st))) {
        free(txt);
        return rc;
    }
    if (got < hlen) {
        free(txt);
        return gs_fail(st, GS_EDATA, "%s: truncated npy header", src->name);
    }
    txt[hlen] = 0;
    gs_npy_hdr h;
    const char *why;
    int bad = gs_npy_parse(txt, hlen, &h, &why);
    free(txt);
    if (bad) return gs_fail(st, GS_EDATA, "%s: invalid npy header: %s", src->name, why);

    gs_type t;
    if (gs_npy_type(h.descr, &t)) {
        /* The descr comes from the file: show it as one line of printable text. */
        char shown[64];
        size_t k = 0;
        for (const char *c = h.descr; *c && k + 1 < sizeof shown; c++)
            shown[k++] = (*c >= 0x20 && *c < 0x7f) ? *c : '?';
        shown[k] = 0;
        return gs_fail(st, GS_EDATA, "%s: unsupported dtype '%s' (gpustream reads little-endian i4 i8 u4 u8 f4 f8)",
                       src->name, shown);
    }
    /* Flat reading is the array's order only for (n,), (n,1), (n,2) in C order, or any shape
     * with at most one dimension above 1. */
    int big = 0;
    uint64_t count = 1;
    for (int i = 0; i < h.ndim; i++) {
        big += h.shape[i] > 1;
        if (h.shape[i] && count > (uint64_t)INT64_MAX / gs_type_size(t) / (uint64_t)h.shape[i])
            return gs_fail(st, GS_EDATA, "%s: npy shape too large", src->name);
        count *= (uint64_t)h.shape[i];
    }
    int sel[GS_WRITE_COLS_MAX], nsel = 0;
    int rc_cols = npy_cols(&h, o, src->name, sel, &nsel, st);
    if (rc_cols) return rc_cols;
    int shape_ok = h.ndim <= 1 || (h.ndim == 2 && h.shape[1] <= 2) || big <= 1 || nsel;
    if (!shape_ok || (h.fortran && big > 1)) {
        char sh[160] = "";
        for (int i = 0, n = 0; i < h.ndim && n < (int)sizeof sh - 24; i++)
            n += snprintf(sh + n, sizeof sh - (size_t)n, "%s%lld", i ? ", " : "", (long long)h.shape[i]);
        return gs_fail(st, GS_EDATA, "%s: unsupported npy shape (%s)%s: expected (n,), (n,1) or (n,2)", src->name, sh,
                       h.fortran ? " in fortran order" : "");
    }
    if (o && o->type_given && o->type != t)
        return gs_fail(st, GS_EUSAGE, "%s: -t %s given but the file holds %s ('%s')", src->name, gs_type_name(o->type),
                       gs_type_name(t), h.descr);

    size_t esize = gs_type_size(t);
    if (src->size >= 0) { /* src->size counts from the start, header included */
        uint64_t data = (uint64_t)src->size - (prefix + hlen);
        if (data != count * esize) {
            gs_decoder tmp = {.count = (int64_t)count, .src = src};
            return gs_npy_lying(&tmp, data, esize, st);
        }
    }
    const int kin = nsel ? (int)h.shape[1] : 1;
    gs_npydec *d = calloc(1, sizeof *d + esize * (size_t)kin);
    if (!d) return gs_fail(st, GS_ENOMEM, "out of memory");
    d->carry = (unsigned char *)(d + 1);
    d->base.read = gs_npydec_read;
    d->base.close = gs_npydec_close;
    d->base.frames = gs_npydec_frames;
    d->base.view = gs_npydec_view;
    d->base.type = t;
    d->base.count = (int64_t)count;
    d->base.src = src;
    d->esize = esize;
    d->left = count;
    if (nsel) { /* rows of the selected columns */
        d->nsel = nsel;
        d->kin = kin;
        d->vsize = esize;
        memcpy(d->sel, sel, sizeof sel);
        d->esize = esize * (size_t)kin;
        d->left = count / (uint64_t)kin;
        d->base.count = (int64_t)d->left;
        d->base.ncols = nsel;
        d->base.frames = NULL;
        d->base.view = NULL;
        d->base.read = gs_npydec_read_cols;
        d->scratch_rows = ((size_t)1 << 20) / d->esize + 1;
        if (!(d->scratch = malloc(d->scratch_rows * d->esize))) {
            free(d);
            return gs_fail(st, GS_ENOMEM, "out of memory");
        }
    }
    *out = &d->base;
    return GS_OK;
}

/* ---- encoder --------------------------------------------------------------------------------- */
typedef struct gs_npyenc {
    gs_encoder base;
    size_t esize;
    int ncols;
    int64_t rows;   /* promised in the header at open; -1 if unknown */
    size_t hdr_len; /* bytes of the header, padding included */
    gs_type type;
} gs_npyenc;

/* Format a v1 header for rows (-1: the widest count, to reserve room) into out. With total = 0
 * it is padded to the next multiple of 64; else to exactly total. Returns its length, or 0 if it
 * does not fit in total. */
static size_t gs_npy_header(char *out, size_t cap, gs_type t, int64_t rows, int ncols, size_t total)
{
    char dict[160], cols[16] = "";
    if (ncols > 1) snprintf(cols, sizeof cols, " %d", ncols);
    int n = rows < 0 ? snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%s,%s), }",
                                gs_npy_descr[t], "99999999999999999999", cols)
                     : snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%lld,%s), }",
                                gs_npy_descr[t], (long long)rows, cols);
    size_t need = 10 + (size_t)n + 1; /* prefix, dict, newline */
    if (!total) total = (need + 63) / 64 * 64;
    if (need > total || total > cap || total - 10 > 65535) return 0;
    memcpy(out, GS_NPY_MAGIC "\x01\x00", 8);
    out[8] = (char)((total - 10) & 0xff);
    out[9] = (char)((total - 10) >> 8);
    memcpy(out + 10, dict, (size_t)n);
    memset(out + 10 + n, ' ', total - need);
    out[total - 1] = '\n';
    return total;
}

size_t gs_npy_header_bytes(char *out, size_t cap, gs_type t, uint64_t rows, int ncols)
{
    return gs_npy_header(out, cap, t, (int64_t)rows, ncols > 1 ? ncols : 1, 0);
}

static int gs_npyenc_write(gs_encoder *ee, const void *vals, size_t n, gs_status *st)
{
    gs_npyenc *e = (gs_npyenc *)ee;
    int rc = e->base.sink->write(e->base.sink, vals, n * e->esize, st);
    if (rc == GS_OK) e->base.values += n;
    return rc;
}

static void gs_npyenc_abort(gs_encoder *e)
{
    e->sink->abort(e->sink);
    free(e);
}

static int gs_npyenc_close(gs_encoder *ee, gs_status *st)
{
    gs_npyenc *e = (gs_npyenc *)ee;
    gs_bsink *k = e->base.sink;
    int rc = GS_OK;
    int64_t rows = (int64_t)(e->base.values / (uint64_t)e->ncols);
    if (e->base.values % (uint64_t)e->ncols)
        rc = gs_fail(st, GS_EDATA, "%s: %llu values do not make whole rows of %d", k->name,
                     (unsigned long long)e->base.values, e->ncols);
    else if (rows != e->rows) { /* unknown at open, or the promise was wrong: rewrite the header */
        char hdr[256];
        if (!k->seekable || !gs_npy_header(hdr, sizeof hdr, e->type, rows, e->ncols, e->hdr_len))
            rc = gs_fail(st, GS_EDATA, "%s: npy header promised %lld rows but %lld were written", k->name,
                         (long long)e->rows, (long long)rows);
        else
            rc = k->pwrite(k, hdr, e->hdr_len, 0, st);
    }
    if (rc) {
        gs_npyenc_abort(ee);
        return rc;
    }
    free(e);
    return k->close(k, st);
}

int gs_enc_open_npy(gs_encoder **out, gs_bsink *k, const gs_write_opts *o, gs_status *st)
{
    *out = NULL;
    if (o->rows < 0 && !k->seekable)
        return gs_fail(st, GS_EUSAGE, "npy output of unknown length needs a seekable file; use raw or give a file name");
    gs_npyenc *e = calloc(1, sizeof *e);
    if (!e) return gs_fail(st, GS_ENOMEM, "out of memory");
    e->base.write = gs_npyenc_write;
    e->base.close = gs_npyenc_close;
    e->base.abort = gs_npyenc_abort;
    e->base.sink = k;
    e->base.plain = 1;
    e->type = o->type;
    e->esize = gs_type_size(o->type);
    e->ncols = o->ncols > 1 ? o->ncols : 1;
    e->rows = o->rows;
    /* An unknown count reserves room for the widest one, so the patch at close always fits. */
    char hdr[256];
    e->hdr_len = gs_npy_header(hdr, sizeof hdr, o->type, o->rows, e->ncols, 0);
    if (k->plain)
        k->plain(k, o->rows >= 0 ? (int64_t)e->hdr_len + o->rows * (int64_t)e->ncols * (int64_t)e->esize : -1);
    int rc = k->write(k, hdr, e->hdr_len, st);
    if (rc) {
        free(e);
        return rc;
    }
    *out = &e->base;
    return GS_OK;
}
