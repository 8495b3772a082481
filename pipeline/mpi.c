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
#include "../common/trace.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef GS_HAVE_MPI
#include <unistd.h>

int gs_mpi_built(void) { return 0; }

int gs_mpi_binary(char *path, size_t len)
{
    char exe[4096];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return 0;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash) return 0;
    slash[1] = 0;
    if ((size_t)snprintf(path, len, "%s" GS_MPI_BINARY, exe) >= len) return 0;
    return access(path, X_OK) == 0;
}

void gs_mpi_describe(char *buf, size_t len)
{
    char path[4096];
    if (gs_mpi_binary(path, sizeof path))
        snprintf(buf, len, "in %s (mpirun -n K gpustream runs it: ranks over shards of one file)", path);
    else
        snprintf(buf, len, "not built (no " GS_MPI_BINARY " beside this binary: make MPI=1 with mpicc on the PATH)");
}

int gs_mpi_run(gs_mpi_job *m, gs_run_stats *stats, gs_mpi_report *rep, int *is_root, gs_status *st)
{
    (void)m, (void)stats, (void)rep;
    *is_root = gs_ranks_detect().rank == 0;
    return gs_fail(st, GS_EUSAGE, "started as several MPI ranks, but this binary has no MPI "
                                  "(" GS_MPI_BINARY " has: make MPI=1 with mpicc on the PATH)");
}

double gs_mpi_finish(void) { return 0; }
#else
#include "shard.h"

#include <errno.h>
#include <libgen.h>
#include <mpi.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define COPY_BLOCK ((size_t)16 << 20) /* temp file -> MPI file */

int gs_mpi_built(void) { return 1; }

int gs_mpi_binary(char *path, size_t len)
{
    (void)path, (void)len;
    return 0;
}

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

/* MPI_Exscan's user op: inout = in (op) inout, in rank order (not commutative for float sums). */
static gs_scan_op carry_op_kind;
static gs_type carry_op_type;
static void carry_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    gs_value *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        gs_value v = a[i];
        gs_fold(carry_op_kind, carry_op_type, &v, &b[i], 1);
        b[i] = v;
    }
}

/* ---- output sinks -------------------------------------------------------------------------- */
/* MPI-IO reports a short write as success with fewer bytes: the reason is read from the file
 * system holding the output (a full one, or one over a quota the statistics cannot show). */
static const char *short_write_reason(const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    struct statvfs sv;
    if (statvfs(dirname(dir), &sv) == 0 && sv.f_bavail == 0) return strerror(ENOSPC);
    return "the file system took fewer bytes than asked (full, or over a quota?)";
}

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
        if (got != piece) return gs_fail(st, GS_EDATA, "%s: write failed: %d of %d bytes written: %s", k->name, got, piece,
                                          short_write_reason(k->name));
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

/* One rank's run: what its steps (run_ranks) share. */
typedef struct rank_run {
    const mpi_ctx *x;
    gs_mpi_job *m;
    gs_layout L;
    gs_job job;                   /* m->job with this rank's carry, index base and --partial */
    gs_shard h;
    uint64_t kept;                /* compact: the elements this shard keeps */
    int carry_pass;               /* a first pass ran (scan, compact, csv/text) */
    double tc;                    /* seconds of the first pass and its exscans */
    uint64_t rows, rs, re;        /* rows this rank outputs; the input range [rs, re) it reads */
    uint64_t row_off, total_rows; /* rows before this rank's; of all ranks */
    uint64_t dropped;             /* csv/text: rows of the shard's lines dropped (the first pass's count) */
} rank_run;

/* The shard: csv/text line-aligned byte ranges (element numbers after the first pass), else
 * elements from the layout. */
static void shard_bounds(rank_run *k, gs_status *st)
{
    const mpi_ctx *x = k->x;
    gs_mpi_job *m = k->m;
    const gs_layout *L = &k->L;
    gs_shard *h = &k->h;
    *h = (gs_shard){0, 0, 0, 0, L->format == GS_FMT_CSV || L->format == GS_FMT_TEXT};
    if (h->text) { /* line-aligned byte ranges; element numbers after the first pass */
        uint64_t t0b = (uint64_t)((unsigned __int128)L->size * (unsigned)x->rank / (unsigned)x->size);
        uint64_t t1b = (uint64_t)((unsigned __int128)L->size * (unsigned)(x->rank + 1) / (unsigned)x->size);
        int rc = x->rank ? gs_layout_line_start(L, m->in, t0b, &h->b0, st) : GS_OK;
        if (!rc) rc = x->rank + 1 < x->size ? gs_layout_line_start(L, m->in, t1b, &h->b1, st) : (h->b1 = L->size, GS_OK);
        /* Messages name lines of the whole file: the lines before this range. */
        uint64_t lines = 0, before = 0;
        if (!rc) rc = gs_layout_count_lines(m->in, h->b0 > L->head_len ? h->b0 : L->head_len, h->b1, &lines, st);
        MPI_Exscan(&lines, &before, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        m->rd.line_offset = x->rank ? before : 0;
    } else {
        h->s = gs_shard_start(L, x->size, x->rank);
        h->e = gs_shard_start(L, x->size, x->rank + 1);
    }
}

/* Carries: the scan total of the shards before this one; compact's kept count; csv/text: the
 * elements before this shard (counted in the same pass). Sets the shard's elements and the job's
 * index base and carry; returns the status all ranks agreed on. */
static int first_pass(rank_run *k, gs_status *st)
{
    const mpi_ctx *x = k->x;
    gs_mpi_job *m = k->m;
    gs_layout *L = &k->L;
    gs_shard *h = &k->h;
    gs_job *job = &k->job;
    k->tc = MPI_Wtime();
    uint64_t nelem = 0, dropped = 0; /* dropped: csv/text rows the shard's reader skipped */
    gs_value total;
    if (job->op == GS_OP_SCAN) gs_shard_total(m, L, h, &total, &nelem, st);
    else if (job->op == GS_OP_COMPACT && !L->compressed && !h->text) {
        gs_shard_pass(m, L, h, NULL, &k->kept, st);
        nelem = h->e - h->s;
    } else if (job->op == GS_OP_COMPACT) {
        gs_job cj = *job;
        cj.count_only = 1;
        cj.rows = cj.keep = 0; /* counted: no rows kept */
        gs_read_opts rd = m->rd;
        rd.keep_rows = 0;
        rd.keep = NULL;
        gs_reader *r = NULL;
        gs_run_stats cs;
        memset(&cs, 0, sizeof cs);
        int rc = h->text ? gs_reader_open_lines(&r, m->in, &rd, L, h->b0, h->b1, UINT64_MAX, st)
                         : gs_reader_open_range(&r, m->in, &rd, L, h->s, h->e - h->s, st);
        if (!rc) {
            gs_source src = gs_source_from_reader(r);
            rank_device(m);
            gs_engine_run(&cj, &m->eng, &src, NULL, &k->kept, &cs, st);
            dropped = gs_reader_skipped(r);
            gs_reader_close(r);
        }
        nelem = cs.elems_in;
    } else if (h->text)
        gs_shard_count(m, L, h, &nelem, &dropped, st);
    k->carry_pass = job->op == GS_OP_SCAN || job->op == GS_OP_COMPACT || h->text;
    if (agree(x, st)) return st->code;
    if (h->text) {
        MPI_Exscan(&nelem, &h->s, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&nelem, &L->n, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        if (x->rank == 0) h->s = 0; /* undefined there */
        h->e = h->s + nelem;
    }
    job->index_base = job->row_base = h->s;
    k->dropped = dropped;
    if (h->text && job->op != GS_OP_SCAN) { /* positions are input rows: the rows dropped before count */
        uint64_t before = 0;
        MPI_Exscan(&dropped, &before, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        if (x->rank) job->row_base += before;
    }
    if (job->op == GS_OP_SCAN) {
        gs_value carry;
        MPI_Op op;
        carry_op_kind = job->scan.op;
        carry_op_type = job->scan.out_type;
        MPI_Op_create(carry_op, 0, &op);
        int err = MPI_Exscan(&total, &carry, 1, MPI_UINT64_T, op, MPI_COMM_WORLD);
        MPI_Op_free(&op);
        if (err != MPI_SUCCESS) mpi_fail(st, err, "MPI_Exscan");
        if (agree(x, st)) return st->code;
        job->has_carry = x->rank > 0;
        job->carry = carry;
    }
    k->tc = MPI_Wtime() - k->tc;
    if (k->carry_pass) gs_trace("mpi: rank %d: the first pass and its exscan done (%.4f s)", x->rank, k->tc);
    return GS_OK;
}

/* The output: rank 0 opens it (temp name beside the target), all ranks open that with MPI-IO.
 * Returns the status all ranks agreed on. */
static int open_output(const rank_run *k, gs_outfile **of, MPI_File *fh, gs_status *st)
{
    const mpi_ctx *x = k->x;
    char path[PATH_MAX] = "";
    if (x->rank == 0 && !gs_outfile_open(of, k->m->out, k->m->wr.force, st))
        snprintf(path, sizeof path, "%s", gs_outfile_path(*of));
    if (agree(x, st)) return st->code;
    MPI_Bcast(path, (int)sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    int err = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, MPI_INFO_NULL, fh);
    if (err != MPI_SUCCESS) mpi_fail(st, err, k->m->out);
    if (agree(x, st)) {
        if (*fh != MPI_FILE_NULL) MPI_File_close(fh);
        gs_outfile_abort(*of);
        return st->code;
    }
    return GS_OK;
}

/* The main pass: this rank's rows through the engine, written at its offset of the MPI file, or
 * (zstd, csv, text) to a temp file then copied to the offset MPI_Exscan of the sizes gives. */
static void main_pass(rank_run *k, MPI_File fh, gs_run_stats *stats, gs_status *st)
{
    const mpi_ctx *x = k->x;
    gs_mpi_job *m = k->m;
    const gs_shard *h = &k->h;
    size_t osz = gs_type_size(m->wr.type), cols = (size_t)m->wr.ncols;
    gs_write_opts wo = m->wr;
    char head[256];
    size_t head_len = 0;
    if (wo.format == GS_FMT_NPY) {
        head_len = gs_npy_header_bytes(head, sizeof head, wo.type, k->total_rows, wo.ncols);
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
        uint64_t hdr = m->wr.format == GS_FMT_NPY ? gs_npy_header_bytes(head, sizeof head, m->wr.type, k->total_rows, m->wr.ncols) : 0;
        ak.off = x->rank ? (MPI_Offset)(hdr + k->row_off * cols * osz) : 0;
    }
    int rc = deferred ? temp_fd(&fk.fd, st) : GS_OK;
    gs_byte_sink bk = deferred ? (gs_byte_sink){fd_write, &fk, m->out} : (gs_byte_sink){at_write, &ak, m->out};
    gs_writer *w = NULL;
    if (!rc) rc = gs_writer_open_sink(&w, &bk, &wo, head, head_len, st);
    gs_reader *r = NULL;
    if (!rc) rc = gs_shard_open(m, &k->L, h, k->rs, k->re, &r, st);
    if (!rc) rc = gs_shard_rows_head(m, r, w, x->rank == 0, st); /* --rows, --keep: rows of this shard */
    uint64_t done = 0;
    if (!rc) {
        gs_source src = gs_source_from_reader(r);
        memset(stats, 0, sizeof *stats);
        rank_device(m);
        rc = gs_engine_run(&k->job, &m->eng, &src, w, &done, stats, st);
        /* a window shard's reader parses on past the W-1 elements it reads after its lines */
        stats->skipped = h->text && k->job.op == GS_OP_MINMAX ? k->dropped : gs_reader_skipped(r);
        gs_trace("mpi: rank %d: the main pass done", x->rank);
        if (!rc && done != k->rows)
            rc = gs_fail(st, GS_EDATA, "%s: %llu rows computed where %llu were planned (did the input change?)", m->in,
                         (unsigned long long)done, (unsigned long long)k->rows);
    }
    if (w) {
        if (rc) gs_writer_abort(w);
        else rc = gs_writer_close(w, st);
    }
    gs_reader_close(r);
    if (k->carry_pass)
        add_stage(stats, k->job.op == GS_OP_SCAN ? "carry pass" : "count pass", k->tc,
                  h->text ? h->b1 - h->b0 : (h->e - h->s) * gs_type_size(k->L.type));
    if (!agree(x, st) && deferred) { /* place each rank's bytes */
        uint64_t size = fk.size, at = 0;
        MPI_Exscan(&size, &at, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        ak.off = x->rank ? (MPI_Offset)at : 0;
        copy_out(fk.fd, size, &ak, st);
        agree(x, st);
        stats->bytes_out = size;
    }
    if (fk.fd >= 0) close(fk.fd);
}

/* Closes the MPI file; rank 0 renames it into place once every rank succeeded, else removes it. */
static void commit_output(const mpi_ctx *x, gs_outfile *of, MPI_File *fh, const char *name, gs_status *st)
{
    int err = MPI_File_close(fh);
    if (err != MPI_SUCCESS && !st->code) mpi_fail(st, err, name);
    if (x->rank == 0) {
        if (agree(x, st)) gs_outfile_abort(of);
        else gs_outfile_commit(of, st);
    } else
        agree(x, st);
}

static int run_ranks(const mpi_ctx *x, gs_mpi_job *m, gs_run_stats *stats, gs_mpi_report *rep, gs_status *st)
{
    double t0 = MPI_Wtime();
    rank_run k = {.x = x, .m = m, .job = m->job};
    gs_layout_read(&k.L, m->in, &m->rd, st);
    if (agree(x, st)) {
        gs_layout_free(&k.L);
        return st->code;
    }
    if (k.job.op == GS_OP_NONE) k.job.out_type = m->wr.type;
    shard_bounds(&k, st);
    if (agree(x, st)) goto out;
    if (x->rank == 0 && k.L.compressed && k.L.nframes == 1 && k.L.n)
        snprintf(rep->note, sizeof rep->note, "%s is one zstd frame: rank 0 reads it alone", m->in);
    if (k.job.op == GS_OP_MINMAX && x->rank) k.job.partial = 0;
    if (first_pass(&k, st)) goto out;

    uint64_t s = k.h.s, e = k.h.e;
    k.rows = k.job.op == GS_OP_COMPACT ? k.kept : plan_rows(&k.job, &k.L, s, e, &k.rs, &k.re);
    if (k.job.op == GS_OP_COMPACT) k.rs = s, k.re = e;
    MPI_Exscan(&k.rows, &k.row_off, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&k.rows, &k.total_rows, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (x->rank == 0) k.row_off = 0; /* undefined there */
    if (k.job.count_only) {
        memset(stats, 0, sizeof *stats);
        stats->cuda_init = stats->gpu_setup = -1; /* the counting pass alone: no backend */
        add_stage(stats, "count pass", k.tc, (e - s) * gs_type_size(k.L.type));
        report(x, &k.L, MPI_Wtime() - t0, stats, rep, k.total_rows);
        goto out;
    }

    gs_outfile *of = NULL;
    MPI_File fh = MPI_FILE_NULL;
    if (open_output(&k, &of, &fh, st)) goto out;
    main_pass(&k, fh, stats, st);
    commit_output(x, of, &fh, m->out, st);
    if (!agree(x, st)) report(x, &k.L, MPI_Wtime() - t0, stats, rep, k.total_rows);
out:
    gs_layout_free(&k.L);
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
