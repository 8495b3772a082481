/* gpustream.c - the command line's verb table and main; the rest of the command line is in cli/
 * (cli/cli.h lists its files). The command line is the only part that prints to the user or
 * exits; everything below it returns a gs_status.
 *
 *   gpustream VERB [OPTIONS] [IN [OUT]]
 *   gpustream VERB [OPTIONS] then VERB [OPTIONS] ... [IN [OUT]]     (a chain)
 */
#include "cli/cli.h"
#include "common/pool.h"

#include <string.h>
#include <unistd.h>

const verb_def cli_verbs[] = {
    {"scan", V_SCAN, cmd_compute, "prefix scan: running sum, min or max",
     "gpustream scan [--op sum|min|max] [--exclusive] [--out-type T] [OPTIONS] [IN [OUT]]",
     "  gpustream scan -t i64 ticks.raw cumsum.raw\n"
     "  gpustream scan --op max data.csv --col price --to csv > runmax.csv\n"
     "  gpustream scan -t i64 --col 2-4 trades.csv totals.npy\n"
     "  gpustream gen -n 1e9 -t i32 | gpustream scan --out-type i64 -t i32 --stats > /dev/null\n"
     "  gpustream compact --pred gt:0 then scan --out-type i64 -t i32 ticks.raw cum.raw\n"},
    {"compact", V_COMPACT, cmd_compute, "stream compaction: keep the elements a predicate accepts",
     "gpustream compact [--pred P] [--invert] [--indices] [--count] [OPTIONS] [IN [OUT]]",
     "  gpustream compact --pred nonzero in.zst out.zst\n"
     "  gpustream compact --pred range:10:20 --indices -t f32 x.raw idx.npy\n"
     "  gpustream compact --pred nan --count -t f64 series.npy\n"
     "  gpustream compact --pred gt:0 --count --col a,b,c table.csv\n"
     "  gpustream compact --pred nonzero then scan then minmax -w 500 --only max in.zst out.zst\n"},
    {"minmax", V_MINMAX, cmd_compute, "sliding-window minimum and maximum",
     "gpustream minmax -w W [--partial] [--only min|max] [OPTIONS] [IN [OUT]]",
     "  zstdcat ticks.i64.zst | gpustream minmax --window 500 -t i64 | zstd > env.zst\n"
     "  gpustream minmax -w 60 --partial prices.csv --col close envelope.csv\n"
     "  gpustream minmax -w 1000 --only max -t f32 signal.raw peaks.npy\n"
     "  gpustream minmax -w 100 --only min -t f32 then compact --pred lt:0 --indices sig.raw dips.raw\n"},
    {"rolling", V_ROLLING, cmd_compute, "window sum, mean, var, std, count, min, max, argmin, argmax",
     "gpustream rolling -w W [--agg LIST] [--partial [--min-periods N]] [--ddof N] [--skip-nan] [OPTIONS] [IN [OUT]]",
     "  gpustream rolling -w 500 --agg mean,std trades.csv --col price stats.csv\n"
     "  gpustream rolling -w 20 --agg mean,std --col price,volume trades.csv stats.csv\n"
     "  gpustream rolling -w 100 --agg sum,count,argmax -t i64 ticks.raw out.npy\n"
     "  gpustream rolling -w 20 --partial --min-periods 5 --skip-nan --agg mean prices.csv --col close ma.csv\n"
     "  gpustream compact --pred finite then rolling -w 1000 --agg std -t f64 x.npy vol.npy\n"},
    {"convert", V_CONVERT, cmd_compute, "change format, type or compression; no compute",
     "gpustream convert [--out-type T] [--to FMT] [-z] [OPTIONS] [IN [OUT]]",
     "  gpustream convert data.csv --col 2 -t f32 data.npy\n"
     "  gpustream convert -t i64 big.raw big.raw.zst\n"
     "  gpustream convert x.npy --to csv | head\n"},
    {"gen", V_GEN, cmd_gen, "write synthetic data (deterministic for a seed)",
     "gpustream gen -n N [-t T] [--dist D] [--seed S] [--to FMT] [-z] [OUT]",
     "  gpustream gen -n 2^28 -t i32 --dist sparse:0.5 > x.raw\n"
     "  gpustream gen -n 4e9 -t f32 --dist walk | gpustream minmax -w 100000 -t f32 --stats > /dev/null\n"
     "  gpustream gen -n 1000 -t f64 --dist normal:0:1 --to csv walk.csv\n"},
    {"bench", V_BENCH, cmd_bench, "time every variant, verified against the CPU reference",
     "gpustream bench [--op scan|compact|minmax|all] [-n SIZES] [-t TYPES] [--algo LIST|all] [--window LIST]\n"
     "                [--density LIST] [--block LIST] [--reps N]\n"
     "                [--stream [--host-mem LIST] [--buffers LIST] [--device-alloc LIST]]\n"
     "                [--chain 'A then B ...'] [--zstd [--frame-size LIST] [--level N] [--dist D]]\n"
     "                [--csv FILE] [--json]",
     "  gpustream bench --op all\n"
     "  gpustream bench --op scan -n 2^20,2^24,2^28 -t i32,f64 --csv scan.csv\n"
     "  gpustream bench --op all --block 64,128,256,512 --density 0.5 --window 500 --csv blocks.csv\n"
     "  gpustream bench --op minmax --window 2,64,500,4096,1e6\n"
     "  gpustream bench --stream --host-mem pinned,pageable,registered,mapped --buffers 1,2,3\n"
     "  gpustream bench --stream --host-mem pinned --buffers 2 --device-alloc once,per-chunk,async\n"
     "  gpustream bench --chain 'compact --pred nonzero then scan then minmax -w 500 --only max' -n 2^28\n"
     "  gpustream bench --zstd -n 2^28 --frame-size 64K,16M --dist sparse:0.5\n"},
    {"info", V_INFO, cmd_info, "build options, devices, limits and kernel variants", "gpustream info",
     "  gpustream info\n"},
};
const size_t cli_nverbs = sizeof cli_verbs / sizeof cli_verbs[0];

/* The words that need no verb: --help (or help [VERB]), --generate and --version. Returns 1 with
 * *rc set where argv[1] is one of them. */
static int run_without_verb(int argc, char **argv, int *rc)
{
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        const verb_def *v = argc > 2 && !strcmp(argv[1], "help") ? find_verb(argv[2]) : NULL;
        if (v) print_verb_help(v, 1);
        else print_main_help(stdout);
        *rc = check_stdout();
        return 1;
    }
    if (!strcmp(argv[1], "--generate")) {
        *rc = cmd_generate(argc == 3 ? argv[2] : NULL);
        if (!*rc) *rc = check_stdout();
        return 1;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
        print_version();
        *rc = check_stdout();
        return 1;
    }
    return 0;
}

/* The defaults the options may change. */
static void cli_defaults(cli *c)
{
    c->rd.type = GS_I32;
    c->eng.buffers = 0; /* the engine's default (pipeline.h) */
    /* pinned staging: on the H200 host (2026-11-27, docs/PERFORMANCE.md, "Binary file I/O") locking a
     * page-cached file's windows in place (--host-mem direct) ran at 13 GB/s where 16 threads copy
     * into pinned buffers at 84 GB/s: a 16 GB scan took 1.96 s direct against 0.73 s pinned */
    c->eng.host_mem = GS_HOST_PINNED;
    c->wr.level = 3;
    c->wr.frame_size = 16u << 20;
    c->gen.dist = GS_DIST_UNIFORM;
    c->gen.a = 0;
    c->gen.b = 100;
    c->gen.seed = 1;
    c->gen.type = GS_I32;
    c->progress = isatty(STDERR_FILENO);
}

int main(int argc, char **argv)
{
    trace_start();
    if (argc < 2) {
        fprintf(stderr, "usage: " CLI_USAGE "\n"
                        "Try 'gpustream --help' for the verbs and examples.\n");
        return EXIT_USAGE;
    }
    int rc;
    if (run_without_verb(argc, argv, &rc)) return rc;
    gs_ranks ranks = gs_ranks_detect();
    if (ranks.size > 1 && !gs_mpi_built()) exec_mpi_binary(argv);
    mute = ranks.size > 1 && ranks.rank > 0;
    cli c;
    memset(&c, 0, sizeof c);
    c.verb = find_verb(argv[1]);
    if (!c.verb) return usage_error(NULL, "unknown verb '%s' (scan, compact, minmax, rolling, convert, gen, bench, info)", argv[1]);
    cli_defaults(&c);
    rc = parse_args(&c, argc, argv);
    if (rc == CLI_HELP_SHOWN) return check_stdout();
    if (rc) return mute ? EXIT_OK : rc; /* rank 0 reports it (see below) */
    if (!isatty(STDERR_FILENO) || quiet) c.progress = 0;
    if (!c.eng.threads) /* several ranks on this host share its cores (an explicit --threads wins) */
        c.eng.threads = c.rd.threads = c.wr.threads = gs_ranks_threads(&ranks);
    install_signals();
    gs_pool_start(c.eng.threads);
    rc = c.verb->fn(&c);
    trace_print();
    const gs_zcodec *zs[2] = {c.rd.zcodec, c.wr.zcodec};
    for (int d = 0; d < 2; d++)
        if (zs[d] && zs[d]->stopped && (verbose || c.stats)) say_note("%s", zs[d]->stopped);
    gs_gpu_zcodec_destroy(c.rd.zcodec);
    gs_gpu_zcodec_destroy(c.wr.zcodec);
    const int rc2 = check_stdout();
    /* A usage error found before the ranks met is rank 0's to report: the others end quietly,
     * since a rank ending first with an error has mpirun stop rank 0 before it says why. */
    const int code = mute && !ranks_ran ? EXIT_OK : rc ? rc : rc2;
    /* A GPU given up on may still run a hung kernel, which the CUDA runtime's teardown at exit
     * could wait for: the process ends without that teardown. */
    if (gs_gpu_abandoned()) _exit(code);
    /* A CUDA start-up begun for this run (the run may have ended without it) is joined before
     * the runtime's teardown at exit. */
    if (gs_gpu_started()) gs_gpu_init_wait(c.eng.device, NULL, 0, NULL);
    return code;
}
