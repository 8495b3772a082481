/* fuzz_npy.c - libFuzzer target for the npy decoder (io/npy.c): the header scanner (a Python
 * dict literal), version and length fields, dtype and shape checks, and the count-versus-data
 * check made at open (size known) or when the data ends (size unknown: pipes, zstd).
 *
 * Input: one option byte, then the bytes of an .npy file.
 *   bits 0-2  -t type (mod 6) and bit 3 whether -t was given (then a mismatch must be GS_EUSAGE)
 *   bits 4-7  the short-read step (1 .. 57 bytes, or 64 KiB when 0) of the first decode; the
 *             second reads 64 KiB minus that
 * The file is decoded twice, as a source of known size and as one of unknown size. Checks,
 * besides the sanitizers':
 *   - a failure has a one-line message of printable text naming the input ("fuzz.npy: ...");
 *   - the two decodes agree: both fail or both succeed with the same type and values;
 *   - a success means the file is exactly prefix + header + count * row size (a row: a value, or
 *     every column of a 2-D array of 3 to 16 columns, read as columns), the header
 *     is numpy's (magic, version 1/2/3, a dict), and the values are the bytes after the header;
 *   - a decoder that fails to open leaves its source to the caller (ASan sees a double free
 *     or a leak otherwise).
 *
 * Run: bash tests/fuzz/run.sh (builds into build/fuzz/), or by hand:
 *   build/fuzz/fuzz_npy -max_total_time=60 -max_len=65536 CORPUS_COPY tests/fuzz/corpus_npy */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/pool.h"
#include "fuzz_mem.h"

#define NAME "fuzz.npy"

typedef struct gs_fz_npy_result {
    int rc;
    gs_status st;
    gs_type type;
    int64_t count;  /* rows */
    size_t row;     /* bytes of a row: a value, or one of each column of a 2-D array (ncols) */
    gs_fz_buf vals; /* bytes of the values read */
} gs_fz_npy_result;

static void gs_fz_npy_decode(const uint8_t *data, size_t len, const gs_read_opts *o, int size_known, size_t step,
                             gs_fz_npy_result *r)
{
    int closed = 0;
    gs_decoder *d = NULL;
    memset(r, 0, sizeof *r);
    gs_fz_src *m = gs_fz_src_new(NAME, data, len, size_known, step, &closed);
    r->rc = gs_dec_open_npy(&d, &m->base, o, &r->st);
    gs_fz_check_msg(r->rc, &r->st, NAME);
    if (r->rc) {
        if (d || closed) abort(); /* the source is still the caller's */
        m->base.close(&m->base);
        return;
    }
    if (!d || d->src != &m->base || (unsigned)d->type >= GS_NTYPES || d->count < 0) abort();
    if (o->type_given && d->type != o->type) abort();
    r->type = d->type;
    r->count = d->count;
    size_t es = gs_type_size(d->type) * (size_t)(d->ncols > 1 ? d->ncols : 1); /* a row */
    r->row = es;
    uint64_t total = 0;
    for (size_t want = 1;; want = want * 7 % 1021 + 1) {
        size_t got = 0;
        gs_fz_reserve(&r->vals, want * es);
        r->rc = d->read(d, r->vals.p + r->vals.n, want, &got, &r->st);
        if (r->rc) break;
        if (got > want) abort();
        if (got == 0) break;
        r->vals.n += got * es;
        total += got;
        if (total > (uint64_t)d->count) abort(); /* more than the header promised */
    }
    gs_fz_check_msg(r->rc, &r->st, NAME);
    if (r->rc == GS_OK && total != (uint64_t)d->count) abort();
    d->close(d);
    if (!closed) abort(); /* the decoder owns and closes its source */
}

/* What a successful decode implies about the bytes. */
static void gs_fz_npy_expect(const uint8_t *data, size_t len, const gs_fz_npy_result *r)
{
    if (len < 10 || memcmp(data, "\x93NUMPY", 6)) abort();
    int major = data[6];
    size_t prefix = major == 1 ? 10 : 12;
    if (major < 1 || major > 3 || len < prefix) abort();
    size_t hlen = (size_t)data[8] | (size_t)data[9] << 8;
    if (major > 1) hlen |= (size_t)data[10] << 16 | (size_t)data[11] << 24;
    size_t es = r->row; /* no --col: every column of a row, in order: the row's bytes as stored */
    if (len < prefix + hlen || len - prefix - hlen != (uint64_t)r->count * es) abort();
    if (hlen == 0 || memchr(data + prefix, '{', hlen) == NULL) abort();
    if (r->vals.n != (uint64_t)r->count * es || (r->vals.n && memcmp(r->vals.p, data + prefix + hlen, r->vals.n)))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int started;
    if (!started) {
        gs_pool_start(2);
        started = 1;
    }
    if (size < 1) return 0;
    uint8_t opt = data[0];
    gs_read_opts o;
    memset(&o, 0, sizeof o);
    o.type = (gs_type)((opt & 7) % GS_NTYPES);
    o.type_given = (opt >> 3) & 1;
    size_t step = (opt >> 4) ? (size_t)(opt >> 4) * 4 - 3 : 65536;
    const uint8_t *in = data + 1;
    size_t len = size - 1;

    gs_fz_npy_result known, unknown;
    gs_fz_npy_decode(in, len, &o, 1, step, &known);
    gs_fz_npy_decode(in, len, &o, 0, 65536 - step, &unknown);
    if ((known.rc == GS_OK) != (unknown.rc == GS_OK)) abort();
    if (known.rc == GS_OK) {
        if (known.type != unknown.type || known.count != unknown.count || known.row != unknown.row ||
            known.vals.n != unknown.vals.n ||
            (known.vals.n && memcmp(known.vals.p, unknown.vals.p, known.vals.n)))
            abort();
        gs_fz_npy_expect(in, len, &known);
    } else if (known.rc == GS_EUSAGE && !o.type_given && !strstr(known.st.msg, "columns")) {
        abort(); /* only a -t mismatch, or more columns than gpustream reads at once, is a usage error */
    }
    free(known.vals.p);
    free(unknown.vals.p);
    return 0;
}
