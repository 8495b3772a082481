/* fuzz_csv.c - libFuzzer target for the csv and text decoders (io/csv.c, io/csv_lines.c,
 * io/text.c) and the number conversions under them (io/numfmt.c).
 *
 * The first byte chooses the options, the rest is the input, fed through an in-memory byte
 * source that hands out short reads. Any status is fine (bad input must fail cleanly); the
 * checks are the sanitizers' plus two oracles:
 *   - whatever decodes, formatted back (csv encoder, several threads) and decoded again, gives
 *     the same values bit for bit (NaN payloads aside);
 *   - the same input decoded with 1 thread and with 3 threads gives the same values, the same
 *     status and the same message.
 *
 * Build and run (corpus in tests/fuzz/corpus_csv/): tests/fuzz/run.sh builds it with every io/ and common/ source
 *   build/fuzz_csv -max_total_time=60 -max_len=4096 tests/fuzz/corpus_csv
 *
 * Option byte: bits 0-1 header mode (auto, yes, no, auto); bits 2-3 delimiter (',', ';', tab,
 * space); bits 4-6 the type (mod 6: i32 i64 u32 u64 f32 f64); bit 6 also skip_bad; bit 7 text
 * format instead of csv; the low 6 bits also set the block size (64..568 bytes). For csv, the
 * second byte picks --col: (none), 1, 2, 3, the header name "b" (bits 0-2), the missing values (bits
 * 3-4: NaN/error, --na skip, --na 7) and whether rows are kept beside the values (bit 5: compact
 * --rows' row store, every value's row asked for as it is read; the row map, where rows drop, must
 * translate positions to strictly increasing input rows). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/pool.h"
#include "../../common/rowmap.h"
#include "../../io/csv_lines.h"
#include "fuzz_mem.h"

typedef struct mem_sink {
    gs_bsink base;
    char *p;
    size_t n, cap;
} mem_sink;

static int sink_write(gs_bsink *k, const void *buf, size_t n, gs_status *st)
{
    mem_sink *m = (mem_sink *)k;
    (void)st;
    if (m->n + n > m->cap) {
        m->cap = (m->n + n) * 2 + 64;
        m->p = realloc(m->p, m->cap);
        if (!m->p) abort();
    }
    memcpy(m->p + m->n, buf, n);
    m->n += n;
    return GS_OK;
}
static int sink_close(gs_bsink *k, gs_status *st)
{
    (void)k;
    (void)st;
    return GS_OK; /* the harness frees the sink after reading it */
}
static void sink_abort(gs_bsink *k) { (void)k; }

typedef struct result {
    int rc;
    gs_status st;
    char *vals;
    size_t n;
} result;

static int put_none(void *ctx, const char *p, size_t len, gs_status *st)
{
    (void)ctx, (void)st;
    if (len && !p) abort();
    return GS_OK;
}

/* The row store and the row map after a read of got values from position `at`. */
static void check_rows(gs_decoder *d, uint64_t at, size_t got)
{
    uint64_t *pos = malloc((got ? got : 1) * sizeof *pos);
    gs_status st = {0};
    if (!pos) abort();
    for (size_t i = 0; i < got; i++) pos[i] = at + i;
    if (d->text && (gs_rowtext_write(d->text, pos, got, put_none, NULL, &st) != GS_OK)) abort();
    if (d->text) gs_rowtext_release(d->text, at + got);
    if (d->rows) {
        gs_rowmap_rows(d->rows, pos, got);
        for (size_t i = 0; i < got; i++)
            if (pos[i] < at + i || (i && pos[i] <= pos[i - 1])) abort();
    }
    free(pos);
}

static result decode(const uint8_t *data, size_t len, const gs_read_opts *o, int text, size_t step)
{
    result r;
    gs_decoder *d = NULL;
    memset(&r, 0, sizeof r);
    /* a pipe (no size) handing out reads of at most step bytes; data is NULL for an empty
     * re-encoded text */
    gs_fz_src *m = gs_fz_src_new("fuzz.csv", data, len, 0, step, NULL);
    r.rc = text ? gs_dec_open_text(&d, &m->base, o, &r.st) : gs_dec_open_csv(&d, &m->base, o, &r.st);
    if (r.rc) {
        m->base.close(&m->base);
        return r;
    }
    size_t es = gs_type_size(o->type), cap = 0;
    for (size_t want = 3;; want = want * 5 % 997 + 1) {
        size_t got = 0;
        if (r.n + want > cap) {
            cap = (r.n + want) * 2;
            r.vals = realloc(r.vals, cap * es);
            if (!r.vals) abort();
        }
        r.rc = d->read(d, r.vals + r.n * es, want, &got, &r.st);
        if (r.rc || got == 0) break;
        check_rows(d, r.n, got);
        r.n += got;
    }
    d->close(d);
    return r;
}

static int same_values(const result *a, const result *b, gs_type t)
{
    size_t es = gs_type_size(t);
    if (a->n != b->n) return 0;
    for (size_t i = 0; i < a->n; i++) {
        const char *x = a->vals + i * es, *y = b->vals + i * es;
        if (memcmp(x, y, es) == 0) continue;
        if (t == GS_F64 && isnan(*(const double *)x) && isnan(*(const double *)y)) continue;
        if (t == GS_F32 && isnan(*(const float *)x) && isnan(*(const float *)y)) continue;
        return 0;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int started;
    static const char delims[4] = {',', ';', '\t', ' '};
    static const char *cols[8] = {NULL, "1", "2", "3", "b", NULL, "2", "1"};
    if (!started) {
        gs_pool_start(3);
        started = 1;
    }
    if (size < 1) return 0;
    uint8_t opt = data[0];
    int text = opt >> 7;
    gs_read_opts o;
    memset(&o, 0, sizeof o);
    o.type = (gs_type)(((opt >> 4) & 7) % GS_NTYPES);
    o.header = (gs_header_mode)((opt & 3) == 3 ? 0 : opt & 3);
    o.delim = delims[(opt >> 2) & 3];
    o.skip_bad = (opt >> 6) & 1;
    const uint8_t *in = data + 1;
    size_t len = size - 1;
    if (!text && len > 0) {
        o.col = cols[in[0] & 7];
        o.na = (gs_na_mode)(((in[0] >> 3) & 3) % 3);
        o.na_value = "7";
        o.keep_rows = (in[0] >> 5) & 1;
        in++, len--;
    }
    /* Small blocks so that block cuts, read-ahead and piece splits happen on small inputs. */
    o.block_size = 64 + (size_t)(opt & 0x3f) * 8;

    o.threads = 1;
    result r1 = decode(in, len, &o, text, 1 + (size_t)(opt % 7) * 13);
    o.threads = 3;
    result r3 = decode(in, len, &o, text, 4096);
    if (r1.rc != r3.rc || strcmp(r1.st.msg, r3.st.msg) || (r1.rc == 0 && !same_values(&r1, &r3, o.type))) abort();

    if (r1.rc == 0) {
        /* format back and read again */
        gs_write_opts w;
        memset(&w, 0, sizeof w);
        w.format = text ? GS_FMT_TEXT : GS_FMT_CSV;
        w.type = o.type;
        w.ncols = 1;
        w.rows = -1;
        w.threads = 2;
        mem_sink k;
        memset(&k, 0, sizeof k);
        k.base.write = sink_write;
        k.base.close = sink_close;
        k.base.abort = sink_abort;
        k.base.name = "fuzz.out";
        gs_encoder *e = NULL;
        gs_status st = {0};
        int rc = text ? gs_enc_open_text(&e, &k.base, &w, &st) : gs_enc_open_csv(&e, &k.base, &w, &st);
        if (rc) abort();
        if (e->write(e, r1.vals, r1.n, &st) || e->close(e, &st)) abort();
        gs_read_opts o2;
        memset(&o2, 0, sizeof o2);
        o2.type = o.type;
        o2.header = GS_HDR_NO;
        o2.threads = 2;
        o2.block_size = o.block_size;
        result r2 = decode((const uint8_t *)k.p, k.n, &o2, text, 777);
        if (r2.rc || !same_values(&r1, &r2, o.type)) abort();
        free(r2.vals);
        free(k.p);
    }
    free(r1.vals);
    free(r3.vals);
    return 0;
}
