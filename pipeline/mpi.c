/* mpi.c - one job as MPI ranks over contiguous shards of one file (see mpi.h).
 *
 *   shards    raw/npy: elements split evenly; zstd: whole frames, split by decompressed bytes
 *             (a file of one frame goes to rank 0 alone). Every rank computes every boundary
 *             from the file's layout, so no message is needed to agree on them.
 *   carries   scan: a reduce pass over the shard, then MPI_Exscan of the totals (a user op in
 *             rank order: sums wrap, floats added as (((T0 + T1) + T2) ...)); the scan then
 *             starts from that carry. compact: a counting pass, MPI_Exscan of the counts for the
 *             output offsets; --indices start at the shard's first element. Both passes run on
 *             the CPU thread pool, each thread preading its parts of the shard where the file is
 *             uncompressed raw/npy (memory-bound), else through a range reader (compact: the
 *             usual engine with --count).
 *             minmax: the rank also reads the W-1 elements after its shard from the file;
 *             --partial applies to rank 0's start only. csv/text: line-aligned byte ranges, the
 *             elements of each counted in the first pass (MPI_Exscan numbers them).
 *   output    one file opened by all ranks with MPI-IO. raw/npy: each rank writes at its
 *             offset as it goes (npy header by rank 0, for the total rows). zstd, csv and text:
 *             each rank writes its bytes (its own zstd frames) to an unlinked temp file, then
 *             copies them to the offset MPI_Exscan of the sizes gives; concatenated frames are
 *             one valid zstd stream. The file is a temp name beside the target that rank 0
 *             renames into place once every rank succeeded (MPI_Allreduce of the status).
 *   errors    each step ends by agreeing on the status: the lowest failing rank's message goes
 *             to all, so one line is printed (by rank 0) and the temp file is removed. */
#include "mpi.h"
#include "../common/pool.h"
#include "../common/trace.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A launcher (mpirun, mpiexec, srun) leaves the address by which ranks reach it: PMIx's server
 * URI or namespace (Open MPI 4 and 5, MPICH with PMIx, Slurm), Open MPI's HNP, or the simple PMI
 * wire (MPICH's Hydra, Slurm's pmi2). Rank variables without it were set by hand, not by a
 * launcher: the process runs alone. */
static int gs_launched(void)
{
    extern char **environ;
    static const char *const names[] = {"PMIX_NAMESPACE", "OMPI_MCA_orte_hnp_uri", "PMI_FD", "PMI_PORT"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (getenv(names[i])) return 1;
    for (char **e = environ; e && *e; e++)
        if (!strncmp(*e, "PMIX_SERVER_URI", 15)) return 1;
    return 0;
}

gs_ranks gs_ranks_detect(void)
{
    static const struct {
        const char *size, *rank, *local, *local_size;
    } env[] = {
        {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"}, /* Open MPI */
        {"PMI_SIZE", "PMI_RANK", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"}, /* MPICH, Hydra */
    };
    gs_ranks r = {0, 1, 0, 1};
    for (size_t i = 0; gs_launched() && i < sizeof env / sizeof *env; i++) {
        const char *s = getenv(env[i].size), *k = getenv(env[i].rank), *l = getenv(env[i].local);
        const char *ls = getenv(env[i].local_size);
        if (!s || !k) continue;
        r.size = atoi(s);
        r.rank = atoi(k);
        r.local_rank = l ? atoi(l) : r.rank;
        r.local_size = ls ? atoi(ls) : 1; /* unknown: as if alone on the host */
        if (r.local_size < 1 || r.local_size > r.size) r.local_size = 1;
        if (r.size < 1 || r.rank < 0 || r.rank >= r.size) r = (gs_ranks){0, 1, 0, 1};
        break;
    }
    return r;
}

int gs_ranks_threads(const gs_ranks *r)
{
    if (r->local_size <= 1) return 0;
    int n = gs_ncores() / r->local_size;
    return n > 1 ? n : 1;
}

#ifndef GS_HAVE_MPI
int gs_mpi_built(void) { return 0; }

void gs_mpi_describe(char *buf, size_t len) { snprintf(buf, len, "not built in (make MPI=1 with mpicc on the PATH)"); }

int gs_mpi_run(gs_mpi_job *m, gs_run_stats *stats, gs_mpi_report *rep, int *is_root, gs_status *st)
{
    (void)m, (void)stats, (void)rep;
    *is_root = gs_ranks_detect().rank == 0;
    return gs_fail(st, GS_EUSAGE, "started as several MPI ranks, but this gpustream was built without MPI "
                                  "(rebuild with mpicc on the PATH)");
}

double gs_mpi_finish(void) { return 0; }
#else
#include "../kernels/ops.h"

#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdatomic.h>
#include <unistd.h>

#define FOLD_BLOCK ((size_t)16 << 20) /* bytes per block of the reduce pass (fixes float sums) */
#define FOLD_PARTS 64                 /* parts per block, folded in parallel then in order */
#define COPY_BLOCK ((size_t)16 << 20) /* temp file -> MPI file */

int gs_mpi_built(void) { return 1; }

void gs_mpi_describe(char *buf, size_t len)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    MPI_Get_library_version(v, &n); /* allowed before MPI_Init */
    char *nl = strpbrk(v, ",\n");
    if (nl) *nl = 0;
    snprintf(buf, len, "%s (mpirun -n K: ranks over shards of one file)", v);
}

typedef struct mpi_ctx {
    int rank, size;
} mpi_ctx;

static int mpi_fail(gs_status *st, int err, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(err, msg, &len);
    return gs_fail(st, GS_EDATA, "%s: %s", what, msg);
}

/* Every rank leaves with the same status: the lowest failing rank's. */
static int agree(const mpi_ctx *x, gs_status *st)
{
    int me = st->code ? x->rank : x->size, first = x->size;
    MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == x->size) return GS_OK;
    MPI_Bcast(st, (int)sizeof *st, MPI_BYTE, first, MPI_COMM_WORLD);
    return st->code;
}

/* ---- shards ------------------------------------------------------------------------------- */
/* First element of rank r's shard (r = K: the end). */
static uint64_t shard_start(const gs_layout *L, int K, int r)
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

/* A rank's shard: elements [s, e) of the input; csv/text: also the bytes [b0, b1) of its lines,
 * whose element numbers are known only after a pass over them. */
typedef struct shard {
    uint64_t s, e, b0, b1;
    int text;
} shard;

/* A reader of elements [rs, re) of the input, rs = the shard's start (re may pass its end). */
static int open_shard(const gs_mpi_job *m, const gs_layout *L, const shard *h, uint64_t rs, uint64_t re, gs_reader **r,
                      gs_status *st)
{
    if (!h->text) return gs_reader_open_range(r, m->in, &m->rd, L, rs, re - rs, st);
    return gs_reader_open_lines(r, m->in, &m->rd, L, h->b0, re > h->e ? UINT64_MAX : h->b1, re - rs, st);
}

/* csv/text: elements in the shard's lines (the whole of them: e is not known yet). */
static int count_elems(const gs_mpi_job *m, const gs_layout *L, const shard *h, uint64_t *count, gs_status *st)
{
    gs_reader *r = NULL;
    *count = 0;
    int rc = gs_reader_open_lines(&r, m->in, &m->rd, L, h->b0, h->b1, UINT64_MAX, st);
    void *buf = rc ? NULL : malloc(FOLD_BLOCK);
    if (!rc && !buf) rc = gs_fail(st, GS_ENOMEM, "out of host memory");
    size_t got = 0, cap = FOLD_BLOCK / gs_type_size(L->type);
    while (!rc && !(rc = gs_reader_read(r, buf, cap, &got, st)) && got) *count += got;
    free(buf);
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
static void fold(gs_scan_op op, gs_type t, gs_value *a, const void *x, size_t n)
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
        fold(p->op, p->out_type, &j->part[q], x, pe - pb);
    } else if (got == len)
        j->kept[q] = gs_compact_count_cpu(&j->m->job.compact, buf, pe - pb);
    atomic_store(&j->busy[slot], 0);
}

/* The first pass over elements [h->s, h->e) of an uncompressed file: *total (scan, in out_type)
 * or *kept (compact). */
static int shard_pass(const gs_mpi_job *m, const gs_layout *L, const shard *h, gs_value *total, uint64_t *kept,
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
            if (total) fold(m->job.scan.op, m->job.scan.out_type, total, &j.part[q], 1);
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
    fold(j->p->op, j->p->out_type, &j->part[part], x, e - b);
}

static void fold_block(fold_job *j, const void *in, size_t n, gs_value *total)
{
    j->in = in;
    j->n = n;
    gs_parallel_for(FOLD_PARTS, fold_part, j);
    for (int k = 0; k < FOLD_PARTS; k++) fold(j->p->op, j->p->out_type, total, &j->part[k], 1);
}

/* The shard's total (in out_type), folded block by block, each block in FOLD_PARTS parts.
 * Uncompressed files: shard_pass; zstd and csv/text through a range reader. */
static int shard_total(const gs_mpi_job *m, const gs_layout *L, const shard *h, gs_value *total, uint64_t *count,
                       gs_status *st)
{
    const gs_scan_params *p = &m->job.scan;
    uint64_t s = h->s, e = h->e;
    gs_scan_identity(p->op, p->out_type, total);
    *count = 0;
    if (s == e && !h->text) return GS_OK;
    if (!L->compressed && !h->text) {
        *count = e - s;
        return shard_pass(m, L, h, total, NULL, st);
    }
    size_t isz = gs_type_size(p->type), cap = FOLD_BLOCK / isz;
    void *conv = p->out_type != p->type ? malloc(cap * gs_type_size(p->out_type)) : NULL;
    if (p->out_type != p->type && !conv) return gs_fail(st, GS_ENOMEM, "out of host memory");
    fold_job j = {p, NULL, conv, 0, {{0}}};
    int rc = GS_OK;
    gs_reader *r = NULL;
    void *buf = malloc(FOLD_BLOCK);
    if (!buf) rc = gs_fail(st, GS_ENOMEM, "out of host memory");
    if (!rc) rc = h->text ? gs_reader_open_lines(&r, m->in, &m->rd, L, h->b0, h->b1, UINT64_MAX, st)
                          : gs_reader_open_range(&r, m->in, &m->rd, L, s, e - s, st);
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

/* MPI_Exscan's user op: inout = in (op) inout, in rank order (not commutative for float sums). */
static gs_scan_op carry_op_kind;
static gs_type carry_op_type;
static void carry_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    gs_value *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        gs_value v = a[i];
        fold(carry_op_kind, carry_op_type, &v, &b[i], 1);
        b[i] = v;
    }
}

/* ---- output sinks -------------------------------------------------------------------------- */
typedef struct at_sink {
    MPI_File fh;
    MPI_Offset off;
    const char *name;
} at_sink;

static int at_write(void *ctx, const void *buf, size_t n, gs_status *st)
{
    at_sink *k = ctx;
    const char *p = buf;
    while (n) {
        int piece = n > ((size_t)1 << 30) ? 1 << 30 : (int)n, got = 0;
        MPI_Status ms;
        int err = MPI_File_write_at(k->fh, k->off, p, piece, MPI_BYTE, &ms);
        if (err != MPI_SUCCESS) return mpi_fail(st, err, k->name);
        MPI_Get_count(&ms, MPI_BYTE, &got);
        if (got != piece) return gs_fail(st, GS_EDATA, "%s: write failed: %d of %d bytes written", k->name, got, piece);
        k->off += piece;
        p += piece;
        n -= (size_t)piece;
    }
    return GS_OK;
}

typedef struct fd_sink {
    int fd;
    uint64_t size;
    const char *name;
} fd_sink;

static int fd_write(void *ctx, const void *buf, size_t n, gs_status *st)
{
    fd_sink *k = ctx;
    const char *p = buf;
    while (n) {
        ssize_t r = write(k->fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return gs_fail_errno(st, r < 0 ? errno : ENOSPC, "%s: temp file", k->name);
        p += r;
        n -= (size_t)r;
        k->size += (uint64_t)r;
    }
    return GS_OK;
}

/* An unlinked temp file in $TMPDIR (or /tmp) for a rank's compressed or text output. */
static int temp_fd(int *fd, gs_status *st)
{
    const char *dir = getenv("TMPDIR");
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/gpustream-rank-XXXXXX", dir && *dir ? dir : "/tmp");
    *fd = mkstemp(path);
    if (*fd < 0) return gs_fail_errno(st, errno, "%s", path);
    unlink(path);
    return GS_OK;
}

/* Copy a rank's temp file into the MPI file at off. */
static int copy_out(int fd, uint64_t size, at_sink *k, gs_status *st)
{
    char *buf = malloc(COPY_BLOCK);
    if (!buf) return gs_fail(st, GS_ENOMEM, "out of host memory");
    int rc = GS_OK;
    for (uint64_t at = 0; at < size && !rc;) {
        size_t want = size - at < COPY_BLOCK ? (size_t)(size - at) : COPY_BLOCK;
        ssize_t r = pread(fd, buf, want, (off_t)at);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) rc = gs_fail_errno(st, r < 0 ? errno : EIO, "%s: reading back the temp file", k->name);
        else {
            rc = at_write(k, buf, (size_t)r, st);
            at += (uint64_t)r;
        }
    }
    free(buf);
    return rc;
}

/* ---- the run ------------------------------------------------------------------------------ */
static void add_stage(gs_run_stats *s, const char *name, double busy, uint64_t bytes)
{
    if (s->nstages < (int)(sizeof s->stage / sizeof *s->stage)) s->stage[s->nstages++] = (gs_stage_stat){name, busy, bytes};
}

/* Rows this rank outputs, and the input range [*rs, *re) it reads. */
static uint64_t plan_rows(const gs_job *j, const gs_layout *L, uint64_t s, uint64_t e, uint64_t *rs, uint64_t *re)
{
    *rs = s;
    *re = e;
    if (j->op != GS_OP_MINMAX) return e - s;
    uint64_t w1 = j->minmax.window - 1;
    uint64_t end = L->n - e > w1 ? e + w1 : L->n;
    if (e == s && !j->partial) return 0; /* j->partial is set on rank 0 only */
    *re = end;
    if (j->partial) return end - s;
    return end - s > w1 ? end - s - w1 : 0;
}

static void report(const mpi_ctx *x, const gs_layout *L, double wall, gs_run_stats *stats, gs_mpi_report *rep,
                   uint64_t count)
{
    double init = rep->mpi_init;
    MPI_Reduce(x->rank ? &init : MPI_IN_PLACE, &rep->mpi_init, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    uint64_t u[6] = {stats->elems_out, stats->bytes_in, stats->bytes_out, stats->chunks, stats->skipped, 0}, us[6];
    uint64_t mx[2] = {stats->peak_rss, stats->peak_device_mem}, mxr[2];
    double w[3] = {wall, wall, wall}, busy[8] = {0}, bsum[8], bmin[8], bmax[8];
    uint64_t bb[8] = {0}, bbs[8];
    for (int i = 0; i < stats->nstages && i < 8; i++) busy[i] = stats->stage[i].busy, bb[i] = stats->stage[i].bytes;
    double wmin = 0, wmax = 0;
    MPI_Reduce(u, us, 6, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(mx, mxr, 2, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&w[0], &wmin, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&w[1], &wmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(busy, bsum, 8, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(busy, bmin, 8, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(busy, bmax, 8, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(bb, bbs, 8, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (x->rank) return;
    stats->wall = wmax;
    stats->elems_in = L->n;
    stats->elems_out = us[0];
    stats->bytes_in = us[1];
    stats->bytes_out = us[2];
    stats->chunks = us[3];
    stats->skipped = us[4];
    stats->peak_rss = mxr[0];
    stats->peak_device_mem = mxr[1];
    for (int i = 0; i < stats->nstages && i < 8; i++) {
        stats->stage[i].busy = bsum[i];
        stats->stage[i].bytes = bbs[i];
        rep->busy_min[i] = bmin[i];
        rep->busy_max[i] = bmax[i];
    }
    rep->ranks = x->size;
    rep->n = L->n;
    rep->count = count;
    rep->wall_min = wmin;
    rep->wall_max = wmax;
}

/* Seconds since this process was started, from /proc (steps of a clock tick); -1 where unknown. */
static double since_start(void)
{
    char buf[1024];
    FILE *f = fopen("/proc/self/stat", "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')'); /* the command name may hold spaces: fields follow the last ')' */
    int field = 2;
    for (; p && *p; p++)
        if (*p == ' ' && ++field == 22) { /* starttime, in clock ticks since boot */
            struct timespec now;
            clock_gettime(CLOCK_BOOTTIME, &now);
            return (double)now.tv_sec + now.tv_nsec * 1e-9 - (double)strtoull(p + 1, NULL, 10) / (double)sysconf(_SC_CLK_TCK);
        }
    return -1;
}

/* The GPU of a rank that started CUDA by its local rank (gs_mpi_run), once the device count is known. */
static void rank_device(gs_mpi_job *m)
{
    if (m->eng.backend != GS_BACKEND_GPU || m->device_given) return;
    int d = gs_gpu_init_device();
    if (d >= 0) m->eng.device = d;
}

static int run_ranks(const mpi_ctx *x, gs_mpi_job *m, gs_run_stats *stats, gs_mpi_report *rep, gs_status *st)
{
    double t0 = MPI_Wtime();
    gs_layout L;
    gs_job job = m->job;
    int rc = gs_layout_read(&L, m->in, &m->rd, st);
    if (agree(x, st)) {
        gs_layout_free(&L);
        return st->code;
    }
    if (job.op == GS_OP_NONE) job.out_type = m->wr.type;
    shard h = {0, 0, 0, 0, L.format == GS_FMT_CSV || L.format == GS_FMT_TEXT};
    if (h.text) { /* line-aligned byte ranges; element numbers after the first pass */
        uint64_t t0b = (uint64_t)((unsigned __int128)L.size * (unsigned)x->rank / (unsigned)x->size);
        uint64_t t1b = (uint64_t)((unsigned __int128)L.size * (unsigned)(x->rank + 1) / (unsigned)x->size);
        rc = x->rank ? gs_layout_line_start(&L, m->in, t0b, &h.b0, st) : GS_OK;
        if (!rc) rc = x->rank + 1 < x->size ? gs_layout_line_start(&L, m->in, t1b, &h.b1, st) : (h.b1 = L.size, GS_OK);
        /* Messages name lines of the whole file: the lines before this range. */
        uint64_t lines = 0, before = 0;
        if (!rc) rc = gs_layout_count_lines(m->in, h.b0 > L.head_len ? h.b0 : L.head_len, h.b1, &lines, st);
        MPI_Exscan(&lines, &before, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        m->rd.line_offset = x->rank ? before : 0;
    } else {
        h.s = shard_start(&L, x->size, x->rank);
        h.e = shard_start(&L, x->size, x->rank + 1);
    }
    if (agree(x, st)) goto out;
    if (x->rank == 0 && L.compressed && L.nframes == 1 && L.n)
        snprintf(rep->note, sizeof rep->note, "%s is one zstd frame: rank 0 reads it alone", m->in);
    if (job.op == GS_OP_MINMAX && x->rank) job.partial = 0;

    /* Carries: the scan total of the shards before this one; compact's kept count; csv/text: the
     * elements before this shard (counted in the same pass). */
    double tc = MPI_Wtime();
    uint64_t kept = 0, nelem = 0;
    int carry_pass = 0;
    gs_value total;
    if (job.op == GS_OP_SCAN) rc = shard_total(m, &L, &h, &total, &nelem, st);
    else if (job.op == GS_OP_COMPACT && !L.compressed && !h.text) {
        rc = shard_pass(m, &L, &h, NULL, &kept, st);
        nelem = h.e - h.s;
    } else if (job.op == GS_OP_COMPACT) {
        gs_job cj = job;
        cj.count_only = 1;
        gs_reader *r = NULL;
        gs_run_stats cs;
        memset(&cs, 0, sizeof cs);
        rc = h.text ? gs_reader_open_lines(&r, m->in, &m->rd, &L, h.b0, h.b1, UINT64_MAX, st)
                    : gs_reader_open_range(&r, m->in, &m->rd, &L, h.s, h.e - h.s, st);
        if (!rc) {
            gs_source src = gs_source_from_reader(r);
            rank_device(m);
            rc = gs_engine_run(&cj, &m->eng, &src, NULL, &kept, &cs, st);
            gs_reader_close(r);
        }
        nelem = cs.elems_in;
    } else if (h.text)
        rc = count_elems(m, &L, &h, &nelem, st);
    carry_pass = job.op == GS_OP_SCAN || job.op == GS_OP_COMPACT || h.text;
    if (agree(x, st)) goto out;
    if (h.text) {
        MPI_Exscan(&nelem, &h.s, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&nelem, &L.n, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        if (x->rank == 0) h.s = 0; /* undefined there */
        h.e = h.s + nelem;
    }
    uint64_t s = h.s, e = h.e;
    job.index_base = s;
    if (job.op == GS_OP_SCAN) {
        gs_value carry;
        MPI_Op op;
        carry_op_kind = job.scan.op;
        carry_op_type = job.scan.out_type;
        MPI_Op_create(carry_op, 0, &op);
        int err = MPI_Exscan(&total, &carry, 1, MPI_UINT64_T, op, MPI_COMM_WORLD);
        MPI_Op_free(&op);
        if (err != MPI_SUCCESS) mpi_fail(st, err, "MPI_Exscan");
        if (agree(x, st)) goto out;
        job.has_carry = x->rank > 0;
        job.carry = carry;
    }
    tc = MPI_Wtime() - tc;
    if (carry_pass) gs_trace("mpi: rank %d: the first pass and its exscan done (%.4f s)", x->rank, tc);

    uint64_t rs, re;
    uint64_t rows = job.op == GS_OP_COMPACT ? kept : plan_rows(&job, &L, s, e, &rs, &re);
    if (job.op == GS_OP_COMPACT) rs = s, re = e;
    uint64_t row_off = 0, total_rows = 0;
    MPI_Exscan(&rows, &row_off, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&rows, &total_rows, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (x->rank == 0) row_off = 0; /* undefined there */
    if (job.count_only) {
        memset(stats, 0, sizeof *stats);
        stats->cuda_init = stats->gpu_setup = -1; /* the counting pass alone: no backend */
        add_stage(stats, "count pass", tc, (e - s) * gs_type_size(L.type));
        report(x, &L, MPI_Wtime() - t0, stats, rep, total_rows);
        goto out;
    }

    /* The output: rank 0 opens it (temp name beside the target), all ranks open that with MPI-IO. */
    gs_outfile *of = NULL;
    char path[PATH_MAX] = "";
    if (x->rank == 0 && !(rc = gs_outfile_open(&of, m->out, m->wr.force, st)))
        snprintf(path, sizeof path, "%s", gs_outfile_path(of));
    if (agree(x, st)) goto out;
    MPI_Bcast(path, (int)sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_File fh = MPI_FILE_NULL;
    int err = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    if (err != MPI_SUCCESS) mpi_fail(st, err, m->out);
    if (agree(x, st)) {
        if (fh != MPI_FILE_NULL) MPI_File_close(&fh);
        gs_outfile_abort(of);
        goto out;
    }

    size_t osz = gs_type_size(m->wr.type), cols = (size_t)m->wr.ncols;
    gs_write_opts wo = m->wr;
    char head[256];
    size_t head_len = 0;
    if (wo.format == GS_FMT_NPY) {
        head_len = gs_npy_header_bytes(head, sizeof head, wo.type, total_rows, wo.ncols);
        wo.format = GS_FMT_RAW;
    }
    if (x->rank) {
        wo.colnames = NULL; /* the csv header line is rank 0's */
        head_len = 0;
    }
    int deferred = wo.zstd || wo.format == GS_FMT_CSV || wo.format == GS_FMT_TEXT;
    at_sink ak = {fh, 0, m->out};
    fd_sink fk = {-1, 0, m->out};
    if (!deferred) { /* rank 0 writes the npy header (its head) at 0, its rows after it */
        uint64_t hdr = m->wr.format == GS_FMT_NPY ? gs_npy_header_bytes(head, sizeof head, m->wr.type, total_rows, m->wr.ncols) : 0;
        ak.off = x->rank ? (MPI_Offset)(hdr + row_off * cols * osz) : 0;
    }
    rc = deferred ? temp_fd(&fk.fd, st) : GS_OK;
    gs_byte_sink bk = deferred ? (gs_byte_sink){fd_write, &fk, m->out} : (gs_byte_sink){at_write, &ak, m->out};
    gs_writer *w = NULL;
    if (!rc) rc = gs_writer_open_sink(&w, &bk, &wo, head, head_len, st);
    gs_reader *r = NULL;
    if (!rc) rc = open_shard(m, &L, &h, rs, re, &r, st);
    uint64_t done = 0;
    if (!rc) {
        gs_source src = gs_source_from_reader(r);
        memset(stats, 0, sizeof *stats);
        rank_device(m);
        rc = gs_engine_run(&job, &m->eng, &src, w, &done, stats, st);
        gs_trace("mpi: rank %d: the main pass done", x->rank);
        if (!rc && done != rows)
            rc = gs_fail(st, GS_EDATA, "%s: %llu rows computed where %llu were planned (did the input change?)", m->in,
                         (unsigned long long)done, (unsigned long long)rows);
    }
    if (w) {
        if (rc) gs_writer_abort(w);
        else rc = gs_writer_close(w, st);
    }
    gs_reader_close(r);
    if (carry_pass) add_stage(stats, job.op == GS_OP_SCAN ? "carry pass" : "count pass", tc, h.text ? h.b1 - h.b0 : (e - s) * gs_type_size(L.type));
    if (!agree(x, st) && deferred) { /* place each rank's bytes */
        uint64_t size = fk.size, at = 0;
        MPI_Exscan(&size, &at, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        ak.off = x->rank ? (MPI_Offset)at : 0;
        copy_out(fk.fd, size, &ak, st);
        agree(x, st);
        stats->bytes_out = size;
    }
    if (fk.fd >= 0) close(fk.fd);
    err = MPI_File_close(&fh);
    if (err != MPI_SUCCESS && !st->code) mpi_fail(st, err, m->out);
    if (x->rank == 0) {
        if (agree(x, st)) gs_outfile_abort(of);
        else gs_outfile_commit(of, st);
    } else
        agree(x, st);
    if (!agree(x, st)) report(x, &L, MPI_Wtime() - t0, stats, rep, total_rows);
out:
    gs_layout_free(&L);
    return st->code;
}

int gs_mpi_run(gs_mpi_job *m, gs_run_stats *stats, gs_mpi_report *rep, int *is_root, gs_status *st)
{
    int provided = 0, rank = 0, size = 1;
    gs_ranks rk = gs_ranks_detect();
    *is_root = rk.rank == 0;
    memset(rep, 0, sizeof *rep);
    rep->start_to_init = since_start();
    /* --backend gpu: CUDA starts on its own thread now, on the rank's device (local rank mod the
     * device count, chosen there), as Open MPI advises: a device chosen before MPI_Init. MPI_Init,
     * the layout and the first pass then hide its start-up. */
    if (m->eng.backend == GS_BACKEND_GPU) {
        if (m->device_given) gs_gpu_init_start(m->eng.device);
        else gs_gpu_init_start_rank(rk.local_rank);
    }
    /* The engine's writer thread writes the MPI file while the main thread waits in the engine:
     * one thread at a time, never two at once. */
    double t0 = gs_now();
    int err = MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
    rep->mpi_init = gs_now() - t0;
    gs_trace("mpi: MPI_Init done (%.4f s)", rep->mpi_init);
    if (err != MPI_SUCCESS) return mpi_fail(st, err, "MPI_Init_thread");
    if (provided < MPI_THREAD_SERIALIZED)
        return gs_fail(st, GS_EDATA, "this MPI library does not allow calls from more than one thread "
                                     "(MPI_THREAD_SERIALIZED)");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    *is_root = rank == 0;
    mpi_ctx x = {rank, size};
    if (m->eng.backend == GS_BACKEND_AUTO && !m->device_given) {
        int ndev = gs_gpu_describe(NULL, 0);
        if (ndev > 0) m->eng.device = rk.local_rank % ndev;
    }
    return run_ranks(&x, m, stats, rep, st);
}

double gs_mpi_finish(void)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    double t = gs_now();
    if (init && !fin) MPI_Finalize();
    return gs_now() - t;
}
#endif
