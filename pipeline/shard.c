/* shard.c - a rank's shard of the input and the first pass over it (gs_mpi_run, pipeline/mpi.c):
 * the scan's total or compact's kept count, on the CPU thread pool. No MPI call is made here. */
#include "shard.h"
#include "../common/pool.h"
#include "../kernels/ops.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FOLD_BLOCK ((size_t)16 << 20) /* bytes per block of the reduce pass (fixes float sums) */
#define FOLD_PARTS 64                 /* parts per block, folded in parallel then in order */

/* First element of rank r's shard (r = K: the end). */
uint64_t gs_shard_start(const gs_layout *L, int K, int r)
{
    if (r <= 0) return 0;
    if (r >= K) return L->n;
    if (!L->compressed) return L->n / (uint64_t)K * (uint64_t)r + ((uint64_t)r < L->n % (uint64_t)K ? (uint64_t)r : L->n % (uint64_t)K);
    uint64_t total = L->frame_pos[L->nframes];
    uint64_t target = (uint64_t)((unsigned __int128)total * (unsigned)r / (unsigned)K);
    size_t f = 0;
    while (f < L->nframes && L->frame_pos[f] < target) f++;
    uint64_t pos = f < L->nframes ? L->frame_pos[f] : total;
    if (pos <= L->data_off) return 0;
    size_t esize = gs_type_size(L->type);
    uint64_t e = (pos - L->data_off + esize - 1) / esize;
    return e < L->n ? e : L->n;
}

/* A reader of elements [rs, re) of the input, rs = the shard's start (re may pass its end). */
int gs_shard_open(const gs_mpi_job *m, const gs_layout *L, const gs_shard *h, uint64_t rs, uint64_t re, gs_reader **r,
                  gs_status *st)
{
    if (!h->text) return gs_reader_open_range(r, m->in, &m->rd, L, rs, re - rs, st);
    return gs_reader_open_lines(r, m->in, &m->rd, L, h->b0, re > h->e ? UINT64_MAX : h->b1, re - rs, st);
}

static int put_writer(void *ctx, const char *p, size_t len, gs_status *st)
{
    return gs_writer_write_bytes((gs_writer *)ctx, p, len, st);
}

int gs_shard_rows_head(const gs_mpi_job *m, gs_reader *r, gs_writer *w, int head, gs_status *st)
{
    const gs_job *j = &m->job;
    gs_rowtext *t = gs_reader_rowtext(r);
    if ((!j->rows && !j->keep) || !t) return GS_OK;
    if (j->keep) gs_rowtext_keep_cols(t, m->wr.ncols, m->wr.coltypes);
    if (!head) return GS_OK;
    if (j->keep) return gs_rowtext_keep_header(t, m->keep_names, put_writer, w, st);
    size_t n = 0;
    const char *row = gs_rowtext_header(t, &n);
    return row ? gs_writer_write_bytes(w, row, n, st) : GS_OK;
}

/* The read options of a first pass: values only, no rows kept. */
static gs_read_opts pass_opts(const gs_mpi_job *m)
{
    gs_read_opts rd = m->rd;
    rd.keep_rows = 0;
    rd.keep = NULL;
    return rd;
}

/* csv/text: elements in the shard's lines (the whole of them: e is not known yet). */
int gs_shard_count(const gs_mpi_job *m, const gs_layout *L, const gs_shard *h, uint64_t *count, uint64_t *dropped,
                   gs_status *st)
{
    gs_reader *r = NULL;
    *count = 0;
    const gs_read_opts rd = pass_opts(m);
    int rc = gs_reader_open_lines(&r, m->in, &rd, L, h->b0, h->b1, UINT64_MAX, st);
    void *buf = rc ? NULL : malloc(FOLD_BLOCK);
    if (!rc && !buf) rc = gs_fail(st, GS_ENOMEM, "out of host memory");
    size_t got = 0, cap = FOLD_BLOCK / gs_type_size(L->type);
    while (!rc && !(rc = gs_reader_read(r, buf, cap, &got, st)) && got) *count += got;
    free(buf);
    *dropped = r ? gs_reader_skipped(r) : 0;
    gs_reader_close(r);
    return rc;
}

/* ---- the scan reduce pass ------------------------------------------------------------------ */
#define GS_FOLD(T, F)                                                                 \
    static T fold_##F(gs_scan_op op, const T *x, size_t n, T a)                       \
    {                                                                                 \
        if (op == GS_SCAN_SUM)                                                        \
            for (size_t i = 0; i < n; i++) a = gs_add_##F(a, x[i]);                   \
        else if (op == GS_SCAN_MIN)                                                   \
            for (size_t i = 0; i < n; i++) a = gs_min_##F(a, x[i]);                   \
        else                                                                          \
            for (size_t i = 0; i < n; i++) a = gs_max_##F(a, x[i]);                   \
        return a;                                                                     \
    }
GS_FOLD(int32_t, i32)
GS_FOLD(int64_t, i64)
GS_FOLD(uint32_t, u32)
GS_FOLD(uint64_t, u64)
GS_FOLD(float, f32)
GS_FOLD(double, f64)
#undef GS_FOLD

/* *a = *a (op) x[0..n) for values of type t. */
void gs_fold(gs_scan_op op, gs_type t, gs_value *a, const void *x, size_t n)
{
    switch (t) {
    case GS_I32: a->i32 = fold_i32(op, x, n, a->i32); break;
    case GS_I64: a->i64 = fold_i64(op, x, n, a->i64); break;
    case GS_U32: a->u32 = fold_u32(op, x, n, a->u32); break;
    case GS_U64: a->u64 = fold_u64(op, x, n, a->u64); break;
    case GS_F32: a->f32 = fold_f32(op, x, n, a->f32); break;
    default: a->f64 = fold_f64(op, x, n, a->f64); break;
    }
}

/* The first pass over an uncompressed shard (raw/npy): the scan's total or compact's kept count.
 * The shard is cut in blocks of FOLD_BLOCK bytes, each block in FOLD_PARTS parts; every part is a
 * task on the pool that preads its bytes into a buffer of its own (small enough to stay in the
 * core's cache) and folds or counts them. Part values are folded in order, block after block, so a
 * float total is the same for any thread count. pread rather than a mapping: the mapping's page
 * faults and page tables (set up as the pass touches 4 KiB pages, torn down by munmap) made the
 * pass up to twice as slow (docs/SCALING.md). BATCH_BLOCKS blocks go to the pool at once. */
#define BATCH_BLOCKS 16
#define PART_BYTES (FOLD_BLOCK / FOLD_PARTS)

typedef struct pass_job {
    const gs_mpi_job *m;
    int fd;
    uint64_t at;          /* file offset of the shard's first element */
    uint64_t n;           /* elements in the shard */
    size_t isz, cap;      /* element size; elements per block */
    uint64_t blk0;        /* first block of this batch */
    gs_value *part;       /* scan: [BATCH_BLOCKS * FOLD_PARTS] part values */
    uint64_t *kept;       /* compact: the same, counts */
    char **buf;           /* per-slot buffers: PART_BYTES of input, then the part in out_type */
    atomic_int *busy;     /* slot in use */
    int nslots;
    atomic_int err;       /* first errno of a failed pread (EIO: the file shrank) */
} pass_job;

static void pass_part(void *ctx, size_t q, size_t nq)
{
    pass_job *j = ctx;
    (void)nq;
    uint64_t b = j->blk0 + q / FOLD_PARTS, bs = b * j->cap;
    size_t bn = j->n - bs < j->cap ? (size_t)(j->n - bs) : j->cap, pb, pe;
    gs_split(bn, FOLD_PARTS, q % FOLD_PARTS, &pb, &pe);
    int slot = 0; /* never more parts run at once than slots: the pool's threads and the caller */
    while (atomic_exchange(&j->busy[slot], 1)) slot = (slot + 1) % j->nslots;
    char *buf = j->buf[slot];
    size_t len = (pe - pb) * j->isz, got = 0;
    off_t off = (off_t)(j->at + (bs + pb) * j->isz);
    while (got < len) {
        ssize_t r = pread(j->fd, buf + got, len - got, off + (off_t)got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            int zero = 0;
            atomic_compare_exchange_strong(&j->err, &zero, r < 0 ? errno : EIO);
            break;
        }
        got += (size_t)r;
    }
    if (got == len && j->part) {
        const gs_scan_params *p = &j->m->job.scan;
        const void *x = buf;
        if (p->out_type != p->type) {
            gs_convert(buf, p->type, buf + PART_BYTES, p->out_type, pe - pb);
            x = buf + PART_BYTES;
        }
        gs_scan_identity(p->op, p->out_type, &j->part[q]);
        gs_fold(p->op, p->out_type, &j->part[q], x, pe - pb);
    } else if (got == len)
        j->kept[q] = gs_compact_count_cpu(&j->m->job.compact, buf, pe - pb);
    atomic_store(&j->busy[slot], 0);
}

/* The first pass over elements [h->s, h->e) of an uncompressed file: *total (scan, in out_type)
 * or *kept (compact). */
int gs_shard_pass(const gs_mpi_job *m, const gs_layout *L, const gs_shard *h, gs_value *total, uint64_t *kept,
                  gs_status *st)
{
    pass_job j;
    memset(&j, 0, sizeof j);
    j.m = m;
    j.isz = gs_type_size(L->type);
    j.cap = FOLD_BLOCK / j.isz;
    j.at = L->data_off + h->s * j.isz;
    j.n = h->e - h->s;
    j.nslots = gs_pool_threads() + 1; /* gs_parallel_for's caller runs parts too */
    atomic_init(&j.err, 0);
    if (kept) *kept = 0;
    if (!j.n) return GS_OK;
    /* a slot: a part's input, then (scan --out-type) room for it converted */
    size_t slot_bytes = PART_BYTES + (total ? PART_BYTES / j.isz * gs_type_size(m->job.scan.out_type) : 0);
    size_t nv = (size_t)BATCH_BLOCKS * FOLD_PARTS;
    j.buf = calloc((size_t)j.nslots, sizeof *j.buf);
    j.busy = calloc((size_t)j.nslots, sizeof *j.busy);
    if (total) j.part = malloc(nv * sizeof *j.part);
    else j.kept = malloc(nv * sizeof *j.kept);
    int rc = j.buf && j.busy && (j.part || j.kept) ? GS_OK : gs_fail(st, GS_ENOMEM, "out of host memory");
    for (int i = 0; !rc && i < j.nslots; i++)
        if (!(j.buf[i] = malloc(slot_bytes))) rc = gs_fail(st, GS_ENOMEM, "out of host memory");
    for (int i = 0; !rc && i < j.nslots; i++) atomic_init(&j.busy[i], 0);
    j.fd = rc ? -1 : open(m->in, O_RDONLY | O_CLOEXEC);
    if (!rc && j.fd < 0) rc = gs_fail_errno(st, errno, "%s", m->in);
    uint64_t nblocks = (j.n + j.cap - 1) / j.cap;
    for (j.blk0 = 0; !rc && j.blk0 < nblocks; j.blk0 += BATCH_BLOCKS) {
        uint64_t nb = nblocks - j.blk0 < BATCH_BLOCKS ? nblocks - j.blk0 : BATCH_BLOCKS;
        gs_parallel_for((size_t)nb * FOLD_PARTS, pass_part, &j);
        int e = atomic_load(&j.err);
        if (e) rc = gs_fail_errno(st, e, "%s: reading the shard", m->in);
        for (size_t q = 0; !rc && q < nb * FOLD_PARTS; q++) {
            if (total) gs_fold(m->job.scan.op, m->job.scan.out_type, total, &j.part[q], 1);
            else *kept += j.kept[q];
        }
    }
    if (j.fd >= 0) close(j.fd);
    for (int i = 0; j.buf && i < j.nslots; i++) free(j.buf[i]);
    free(j.buf);
    free((void *)j.busy);
    free(j.part);
    free(j.kept);
    return rc;
}

/* Folds block by block through a range reader (zstd, csv/text), each block in FOLD_PARTS parts. */
typedef struct fold_job {
    const gs_scan_params *p;
    const void *in; /* the block being folded */
    void *conv; /* in converted to out_type (NULL when the types agree) */
    size_t n;
    gs_value part[FOLD_PARTS];
} fold_job;

static void fold_part(void *ctx, size_t part, size_t nparts)
{
    fold_job *j = ctx;
    size_t b, e, osz = gs_type_size(j->p->out_type);
    gs_split(j->n, nparts, part, &b, &e);
    const void *x = (const char *)j->in + b * gs_type_size(j->p->type);
    if (j->conv) {
        gs_convert(x, j->p->type, (char *)j->conv + b * osz, j->p->out_type, e - b);
        x = (char *)j->conv + b * osz;
    }
    gs_scan_identity(j->p->op, j->p->out_type, &j->part[part]);
    gs_fold(j->p->op, j->p->out_type, &j->part[part], x, e - b);
}

static void fold_block(fold_job *j, const void *in, size_t n, gs_value *total)
{
    j->in = in;
    j->n = n;
    gs_parallel_for(FOLD_PARTS, fold_part, j);
    for (int k = 0; k < FOLD_PARTS; k++) gs_fold(j->p->op, j->p->out_type, total, &j->part[k], 1);
}

/* The shard's total (in out_type), folded block by block, each block in FOLD_PARTS parts.
 * Uncompressed files: gs_shard_pass; zstd and csv/text through a range reader. */
int gs_shard_total(const gs_mpi_job *m, const gs_layout *L, const gs_shard *h, gs_value *total, uint64_t *count,
                   gs_status *st)
{
    const gs_scan_params *p = &m->job.scan;
    uint64_t s = h->s, e = h->e;
    gs_scan_identity(p->op, p->out_type, total);
    *count = 0;
    if (s == e && !h->text) return GS_OK;
    if (!L->compressed && !h->text) {
        *count = e - s;
        return gs_shard_pass(m, L, h, total, NULL, st);
    }
    size_t isz = gs_type_size(p->type), cap = FOLD_BLOCK / isz;
    void *conv = p->out_type != p->type ? malloc(cap * gs_type_size(p->out_type)) : NULL;
    if (p->out_type != p->type && !conv) return gs_fail(st, GS_ENOMEM, "out of host memory");
    fold_job j = {p, NULL, conv, 0, {{0}}};
    int rc = GS_OK;
    gs_reader *r = NULL;
    void *buf = malloc(FOLD_BLOCK);
    if (!buf) rc = gs_fail(st, GS_ENOMEM, "out of host memory");
    const gs_read_opts rd = pass_opts(m);
    if (!rc) rc = h->text ? gs_reader_open_lines(&r, m->in, &rd, L, h->b0, h->b1, UINT64_MAX, st)
                          : gs_reader_open_range(&r, m->in, &rd, L, s, e - s, st);
    while (!rc) {
        size_t n = 0, got = 0;
        while (n < cap && !(rc = gs_reader_read(r, (char *)buf + n * isz, cap - n, &got, st)) && got) n += got;
        if (rc || !n) break;
        fold_block(&j, buf, n, total);
        *count += n;
    }
    free(buf);
    free(conv);
    gs_reader_close(r);
    return rc;
}
