/* cli/bench_out.c - `gpustream bench`: its defaults, the header (the GPU, its measured ceilings,
 * what each column means), one row per timed case as a table, JSON lines or CSV, and --chain's
 * stages parsed like a command line's. pipeline/bench.c times and checks; this file prints. */
#include "cli.h"
#include "../common/pool.h"

#include <errno.h>
#include <string.h>

typedef struct bench_out {
    FILE *csv;
    int json, failed, rows;
    const gs_bench_env *env;
} bench_out;

static void bench_row(void *ctx, const gs_bench_row *r)
{
    bench_out *b = ctx;
    b->rows++;
    if (!r->passed) b->failed++;
    char ratio[16] = "-", block[16] = "-", ceil[16] = "-", ceil_json[16] = "null";
    if (r->vs_cub > 0) snprintf(ratio, sizeof ratio, "%.2fx", r->vs_cub);
    if (r->pct_ceiling > 0) { /* CPU rows have no ceiling */
        snprintf(ceil, sizeof ceil, "%.1f%%", r->pct_ceiling);
        snprintf(ceil_json, sizeof ceil_json, "%.1f", r->pct_ceiling);
    }
    if (r->block > 0) snprintf(block, sizeof block, "%d", r->block);
    const char *check = r->passed == GS_BENCH_REFERENCE ? "reference" : r->passed ? "passed" : "FAILED";
    if (b->json)
        printf("{\"mode\":\"%s\",\"op\":\"%s\",\"variant\":\"%s\",\"type\":\"%s\",\"n\":%llu,\"param\":\"%s\","
               "\"block\":%d,\"ms\":%.4f,\"gelem_s\":%.3f,\"gb_s\":%.2f,\"pct_ceiling\":%s,\"vs_cub\":%.3f,"
               "\"passed\":%s,\"reference\":%s}\n",
               r->mode, r->op, r->variant, gs_type_name(r->type), (unsigned long long)r->n, r->param, r->block, r->ms,
               r->gelem_s, r->gb_s, ceil_json, r->vs_cub, r->passed ? "true" : "false",
               r->passed == GS_BENCH_REFERENCE ? "true" : "false");
    else
        printf("%-6s %-7s %-14s %-4s %11llu %-22s %5s %10.4f %9.3f %9.1f %7s %7s  %s%s%s\n", r->mode, r->op,
               r->variant, gs_type_name(r->type), (unsigned long long)r->n, r->param, block, r->ms, r->gelem_s,
               r->gb_s, ceil, ratio, check, r->passed ? "" : ": ",
               r->passed ? "" : r->why);
    if (b->csv)
        fprintf(b->csv, "%s,%s,%s,%s,%llu,%s,%d,%.5f,%.4f,%.3f,%.2f,%.4f,%s\n", r->mode, r->op, r->variant,
                gs_type_name(r->type), (unsigned long long)r->n, r->param, r->block, r->ms, r->gelem_s, r->gb_s,
                r->pct_ceiling, r->vs_cub, check);
    fflush(stdout);
}

/* Text output: which GPU variants cannot run every --block size, and what they do instead. */
static void bench_block_notes(const gs_bench_opts *o)
{
    size_t nv;
    const gs_variant *v = gs_variants(&nv);
    for (size_t i = 0; i < nv; i++) {
        int blocks[GS_BENCH_MAXBLOCKS];
        const int k = gs_bench_plan(o, 1, &v[i], blocks);
        if (!k || (k == o->nblocks && blocks[0])) continue; /* not run, or at every listed size */
        char skipped[64] = "", sizes[64];
        size_t len = 0;
        for (int b = 0; b < o->nblocks; b++)
            if (!gs_variant_block_ok(&v[i], o->blocks[b]))
                len += (size_t)snprintf(skipped + len, sizeof skipped - len, "%s%d", len ? "," : "", o->blocks[b]);
        if (!blocks[0] && !v[i].blocks)
            printf("# %s %s: its own launch shapes, --block does not apply: one run (the vs cub reference)\n",
                   gs_op_name(v[i].op), v[i].name);
        else if (!blocks[0])
            printf("# %s %s: takes none of --block %s (it takes %s): one run at its default, %d threads\n",
                   gs_op_name(v[i].op), v[i].name, skipped, gs_blocks_str(v[i].blocks, sizes, sizeof sizes), v[i].block_default);
        else
            printf("# %s %s: skips --block %s (it takes %s)\n", gs_op_name(v[i].op), v[i].name, skipped,
                   gs_blocks_str(v[i].blocks, sizes, sizeof sizes));
    }
}

/* bench --chain 'A [OPTIONS] then B ...': the text parsed as a chain's stages, into sub; only the
 * stages' own options (bench generates the input: -n, -t, --chunk, --backend are bench's). */
static int bench_chain_parse(cli *c, cli *sub)
{
    static char buf[1024];
    char *argv[66];
    int argc = 0;
    if (strlen(c->bench_chain) >= sizeof buf) return usage_error("bench ", "--chain text too long");
    snprintf(buf, sizeof buf, "%s", c->bench_chain);
    argv[argc++] = "gpustream";
    for (char *tok = strtok(buf, " \t"); tok && argc < 65; tok = strtok(NULL, " \t")) argv[argc++] = tok;
    argv[argc] = NULL;
    const verb_def *v = argc > 1 ? find_verb(argv[1]) : NULL;
    if (!v || !(v->bit & V_STAGE))
        return usage_error("bench ", "--chain takes 'scan|compact|minmax [OPTIONS] then ...', not '%s'", c->bench_chain);
    memset(sub, 0, sizeof *sub);
    sub->verb = v;
    sub->chain = 1; /* stage-named errors; run-wide options noted */
    int rc = parse_args(sub, argc, argv); /* CLI_HELP_SHOWN for a stage's --help */
    if (rc) return rc;
    for (int k = 0; k <= O_JSON; k++)
        if (sub->seen_val[k]) {
            char l[48];
            return usage_error("bench ", "--chain takes the stages' own options: give %s to bench itself",
                               opt_label(sub->seen_opt[k], l, sizeof l));
        }
    if (sub->in || sub->out) return usage_error("bench ", "--chain takes no IN or OUT: bench makes its input (-n, -t)");
    return 0;
}

/* Each type: the stages set up for it, then timed and checked. */
static int bench_chain_run(cli *c, cli *sub, bench_out *b, const gs_bench_env *env, gs_status *st)
{
    for (int ti = 0; ti < c->bench.ntypes; ti++) {
        gs_chain ch;
        memset(&ch, 0, sizeof ch);
        ch.n = sub->nstages;
        gs_type t = c->bench.types[ti];
        for (int k = 0; k < ch.n; k++) {
            int rc = stage_setup(sub, k, t, &ch.stage[k]);
            if (rc) return gs_fail(st, GS_EUSAGE, "bench --chain: stage %d does not take type %s", k + 1,
                                   gs_type_name(c->bench.types[ti]));
            t = gs_job_out_type(&ch.stage[k], t);
        }
        int rc = gs_bench_chain(&c->bench, env, &ch, c->bench.types[ti], bench_row, b, st);
        if (rc) return rc;
    }
    return GS_OK;
}

/* --algo's names, checked against the registry before anything runs. */
static int bench_check_algos(const char *algos)
{
    if (!algos || !strcmp(algos, "all")) return 0;
    size_t nv;
    const gs_variant *v = gs_variants(&nv);
    for (const char *p = algos; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p), k = 0;
        while (k < nv && (strlen(v[k].name) != l || strncmp(v[k].name, p, l))) k++;
        if (k == nv) return usage_error("bench ", "unknown --algo '%.*s' (gpustream info lists them)", (int)l, p);
        p += l + (e ? 1 : 0);
    }
    return 0;
}

/* What bench takes from the other options, and the combinations it refuses. */
static int bench_setup(cli *c, gs_bench_opts *o)
{
    o->backend = c->eng.backend;
    o->device = c->eng.device;
    if (c->eng.ndevices) return usage_error("bench ", "--device takes one GPU (a number) in bench");
    o->chunk_bytes = c->eng.chunk_bytes;
    if (o->zstd && (o->stream || c->bench_chain))
        return usage_error("bench ", "--zstd times the codecs: it takes no %s", o->stream ? "--stream" : "--chain");
    if (!o->zstd && (o->nframes || o->level || c->bench_dist_given))
        return usage_error("bench ", "--frame-size, --level and --dist apply to bench --zstd");
    o->gen = c->gen;
    if (!c->bench_dist_given) { /* the zeros and values of a compaction's input */
        o->gen.dist = GS_DIST_SPARSE;
        o->gen.a = 0.5;
    }
    if (o->zstd && !o->nframes) {
        static const size_t f[] = {64 << 10, 256 << 10, 1 << 20, 16 << 20};
        for (int i = 0; i < 4; i++) o->frames[o->nframes++] = f[i];
    }
    if (o->nblocks && !GS_HAVE_TUNING)
        return usage_error("bench ", "--block needs the block sizes this build leaves out: rebuild with make TUNING=1");
    return 0;
}

/* Defaults: every op, i32, sizes larger than L2 on the GPU, smaller on a CPU. */
static void bench_defaults(gs_bench_opts *o, int gpu)
{
    if (!o->ops) o->ops = 7;
    if (!o->ntypes) o->types[o->ntypes++] = GS_I32;
    if (!o->nsizes) o->sizes[o->nsizes++] = o->stream ? (1ull << 30) : gpu ? (1ull << 28) : (1ull << 24);
    if (!o->ndensities) {
        o->densities[0] = 0.01, o->densities[1] = 0.5, o->densities[2] = 0.99;
        o->ndensities = 3;
    }
    if (!o->nwindows) {
        static const uint64_t w_gpu[] = {2, 64, 500, 4096, 1000000}, w_cpu[] = {2, 500, 4096};
        const uint64_t *w = gpu ? w_gpu : w_cpu;
        for (int i = 0; i < (gpu ? 5 : 3); i++) o->windows[o->nwindows++] = w[i];
    }
    if (!o->nhost_mems) {
        for (int i = 0; i < 4; i++) o->host_mems[i] = (gs_host_mem)i;
        o->nhost_mems = 4;
    }
    if (!o->nbuffers) {
        for (int i = 0; i < 3; i++) o->buffers[i] = i + 1;
        o->nbuffers = 3;
    }
}

/* The text header's lines on the codecs (bench --zstd). */
static void bench_zstd_notes(const cli *c, const gs_bench_opts *o, int gpu)
{
    char nvc[1024] = "";
    const int nvcomp = gs_nvcomp_describe(nvc, sizeof nvc);
    printf("# zstd: libzstd %s at level %d on %d threads, host memory to host memory (wall clock)\n",
           gs_zstd_version(), o->level ? o->level : 3, gs_pool_threads());
    if (gpu && o->backend != GS_BACKEND_CPU && nvcomp)
        printf("# zstd: %s on the GPU, device memory to device memory (events); %%ceil: raw bytes/s "
               "against pinned H2D\n", nvc);
    else
        printf("# zstd: no nvCOMP rows: %s\n", o->backend == GS_BACKEND_CPU ? "--backend cpu" : !gpu ? "no GPU" : nvc);
    printf("# zstd: data %s, GB/s counts raw (uncompressed) bytes\n", c->bench_dist_given ? "as --dist" : "sparse:0.5");
}

/* The header on stdout: as text, the machine, its ceilings and the columns; as JSON, the ceilings. */
static void bench_header(const cli *c, const gs_bench_opts *o, const gs_bench_env *env, const cli *sub)
{
    const int gpu = env->gpu[0] != 0;
    if (c->bench_json) {
        if (gpu)
            printf("{\"mode\":\"ceilings\",\"gpu\":\"%s\",\"copy_gb_s\":%.1f,\"h2d_gb_s\":%.1f,\"d2h_gb_s\":%.1f,"
                   "\"both_gb_s\":%.1f,\"pageable_h2d_gb_s\":%.1f,\"pageable_d2h_gb_s\":%.1f}\n",
                   env->gpu, env->copy_gbs, env->h2d_gbs, env->d2h_gbs, env->both_gbs, env->h2d_pageable_gbs,
                   env->d2h_pageable_gbs);
        return;
    }
    if (gpu) {
        printf("# gpu %s, %d SMs, L2 %d MB, %s, clocks SM %d MHz mem %d MHz\n", env->gpu, env->sms, env->l2_bytes >> 20,
               env->driver, env->sm_clock_mhz, env->mem_clock_mhz);
        printf("# ceilings: device copy %.0f GB/s (read+write); pinned H2D %.1f, D2H %.1f, both at once %.1f GB/s each; "
               "pageable H2D %.1f, D2H %.1f GB/s\n",
               env->copy_gbs, env->h2d_gbs, env->d2h_gbs, env->both_gbs, env->h2d_pageable_gbs, env->d2h_pageable_gbs);
        if (!o->stream && !o->zstd)
            printf("# vs CUB: time of %s (a direct cub::DeviceScan::InclusiveSum/InclusiveScan or "
                   "cub::DeviceSelect::If call on the same device buffers) / time of the row\n",
                   GS_BENCH_PLAIN_CUB);
    } else if (!o->zstd)
        printf("# no GPU: CPU variants on %d threads\n", gs_pool_threads());
    if (o->zstd) bench_zstd_notes(c, o, gpu);
    if (gpu && o->nblocks && !o->stream) bench_block_notes(o);
    if (c->bench_chain) printf("# chain: %s (%s)\n", c->bench_chain, sub->title);
    printf("%-6s %-7s %-14s %-4s %11s %-22s %5s %10s %9s %9s %7s %7s  %s\n", "mode", "op", "variant", "type", "n",
           "param", "block", "ms", "Gelem/s", "GB/s", "%ceil", "vs CUB", "check");
}

static void bench_csv_header(FILE *f, const gs_bench_env *env)
{
    fprintf(f, "# gpu=%s copy_gbs=%.1f h2d=%.1f d2h=%.1f both=%.1f pageable_h2d=%.1f pageable_d2h=%.1f\n",
            env->gpu[0] ? env->gpu : "none", env->copy_gbs, env->h2d_gbs, env->d2h_gbs, env->both_gbs,
            env->h2d_pageable_gbs, env->d2h_pageable_gbs);
    fprintf(f, "mode,op,variant,type,n,param,block,ms,gelem_s,gb_s,pct_ceiling,vs_cub,check\n");
}

static int bench_csv_error(const cli *c)
{
    say_error("%s: %s", c->bench_csv, strerror(errno));
    return EXIT_DATA;
}

int cmd_bench(cli *c)
{
    gs_bench_opts *o = &c->bench;
    gs_status st = {0};
    gs_bench_env env;
    static cli sub;
    int rc = bench_check_algos(o->algos);
    if (!rc && c->bench_chain) rc = bench_chain_parse(c, &sub);
    if (!rc) rc = bench_setup(c, o);
    if (rc) return rc == CLI_HELP_SHOWN ? EXIT_OK : rc;
    if (gs_bench_ceilings(o, &env, &st)) return finish_status(&st);
    const int gpu = env.gpu[0] != 0;
    if (o->nblocks && (!gpu || o->backend == GS_BACKEND_CPU))
        say_note("--block applies to GPU variants: the CPU variants run as usual");
    else if (o->nblocks && o->stream)
        say_note("--block applies to device mode: --stream runs the default variants at their tuned shapes");
    bench_defaults(o, gpu);
    bench_out b = {NULL, c->bench_json, 0, 0, &env};
    if (c->bench_csv && !(b.csv = fopen(c->bench_csv, "w"))) return bench_csv_error(c);
    bench_header(c, o, &env, &sub);
    if (b.csv) bench_csv_header(b.csv, &env);
    rc = c->bench_chain ? bench_chain_run(c, &sub, &b, &env, &st)
         : o->zstd      ? gs_bench_zstd(o, &env, bench_row, &b, &st)
                        : gs_bench_run(o, &env, bench_row, &b, &st);
    if (b.csv && fclose(b.csv)) return bench_csv_error(c);
    if (rc) return finish_status(&st);
    if (!c->bench_json) printf("# %d rows, %d FAILED\n", b.rows, b.failed);
    return b.failed ? EXIT_DATA : EXIT_OK;
}
