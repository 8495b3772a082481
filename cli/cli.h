/* cli/cli.h - what the command line's files share (gpustream.c and cli/): the verb and option
 * tables' types, the values the options set (struct cli), the messages, and each file's entry
 * points. The command line is the only part of gpustream that prints to the user or exits;
 * pipeline/ and io/ return a gs_status.
 *
 *   gpustream.c   the verb table and main
 *   messages.c    notes, warnings and errors on stderr; exit statuses; stdout's check; GS_TRACE
 *   options.c     the option table and each option's value
 *   args.c        argv walked once: options, IN and OUT, the stages of a chain
 *   help.c        --help, and the man page and completion (doc.c renders them)
 *   verbs.c       scan, compact, minmax and convert (one run), gen, info
 *   ranks.c       a verb over MPI ranks
 *   codecs.c      the zstd codecs of a run, and the engine's call
 *   stats.c       the progress line and --stats
 *   bench_out.c   the bench verb and its rows
 *   signals.c     partial outputs removed when a signal ends the run */
#ifndef GS_CLI_H
#define GS_CLI_H

#include "../io/io.h"
#include "../pipeline/bench.h"
#include "../pipeline/mpi.h"
#include "../pipeline/pipeline.h"

#include <stdint.h>
#include <stdio.h>

#ifndef GS_VERSION
#define GS_VERSION "0.1.0"
#endif
#define CLI_USAGE "gpustream VERB [OPTIONS] [IN [OUT]]"

enum { EXIT_OK = 0, EXIT_DATA = 1, EXIT_USAGE = 2 };
/* parse_args: a --help was shown; the process ends with stdout's check (not an exit status). */
#define CLI_HELP_SHOWN (-1)

/* ---- verbs and options as data ------------------------------------------------------------- */
enum verb_bit {
    V_SCAN = 1 << 0, V_COMPACT = 1 << 1, V_MINMAX = 1 << 2, V_CONVERT = 1 << 3, V_GEN = 1 << 4,
    V_INFO = 1 << 5, V_BENCH = 1 << 6, V_ROLLING = 1 << 7,
};
#define V_COMPUTE (V_SCAN | V_COMPACT | V_MINMAX | V_CONVERT | V_ROLLING)
#define V_OUTPUT (V_COMPUTE | V_GEN)
#define V_ENGINE (V_COMPUTE | V_GEN)
#define V_STAGE (V_SCAN | V_COMPACT | V_MINMAX | V_ROLLING) /* verbs a chain takes */
/* In opt_def.verbs: an option of the stage it is given in; every other option of a chain's verbs
 * describes the whole run (IN, OUT, -t, --chunk ...) and may be given once, in any stage. */
#define S_STAGE (1u << 16)

enum opt_id {
    O_TYPE, O_FROM, O_TO, O_ZSTD, O_LEVEL, O_FRAME, O_COL, O_HEADER, O_NOHEADER, O_DELIM, O_SKIPBAD, O_NA,
    O_BACKEND, O_DEVICE, O_ALGO, O_CHUNK, O_BUFFERS, O_HOSTMEM, O_DEVALLOC, O_DEVLIMIT, O_THREADS,
    O_CODEC, O_FORCE, O_QUIET, O_VERBOSE, O_PROGRESS, O_NOPROGRESS, O_STATS, O_OUTTYPE,
    O_OP, O_EXCLUSIVE, O_PRED, O_INVERT, O_INDICES, O_COUNT, O_ROWS, O_KEEP, O_WINDOW, O_PARTIAL, O_ONLY,
    O_AGG, O_DDOF, O_SKIPNAN, O_MINPERIODS,
    O_N, O_DIST, O_SEED, O_HELP,
    O_BLOCK, O_DENSITY, O_REPS, O_STREAM, O_CHAIN, O_CSV, O_JSON,
};

typedef struct opt_def {
    enum opt_id id;
    const char *lng;
    char shrt;
    int arg; /* 0 none, 1 required, 2 optional (--stats[=json]) */
    unsigned verbs;
    const char *meta, *help;
} opt_def;

typedef struct cli cli;
typedef int (*verb_fn)(cli *c);

typedef struct verb_def {
    const char *name;
    unsigned bit;
    verb_fn fn;
    const char *summary;
    const char *usage;
    const char *examples;
} verb_def;

extern const verb_def cli_verbs[]; /* gpustream.c */
extern const size_t cli_nverbs;
extern const opt_def cli_opts[]; /* options.c */
extern const size_t cli_nopts;

/* What one stage's options set (a single verb is a chain of one stage). */
typedef struct cli_stage {
    const verb_def *verb;
    gs_job job;
    const char *pred; /* --pred text: parsed once the input type is known (npy headers) */
    int out_type_given, window_given;
    int min_periods_given;
} cli_stage;

/* Everything the options set. verb, job, pred and the *_given flags are the stage being parsed. */
struct cli {
    const verb_def *verb;
    const char *in, *out;
    gs_job job;
    const char *pred;
    cli_stage stages[GS_CHAIN_MAX];
    int nstages, chain;               /* chain: the command line has `then` */
    const char *seen_val[O_JSON + 1]; /* chain: a run-wide option's first value ... */
    const opt_def *seen_opt[O_JSON + 1];
    int seen_stage[O_JSON + 1];       /* ... and the stage it was given in */
    char title[128];                  /* "compact then scan" for --stats */
    gs_engine_opts eng;
    gs_read_opts rd;
    gs_write_opts wr;
    gs_gen_opts gen;
    int to_given, zstd, force, progress, stats, stats_json, out_type_given, n_given, window_given, device_given;
    int level_given, frame_given;
    int min_periods_given;            /* rolling --min-periods (else 1) */
    gs_type coltypes[GS_ROLL_COLS_MAX]; /* rolling: each column's own type, for csv and text */
    gs_codec_kind codec;
    gs_format to;
    gs_bench_opts bench;
    const char *bench_csv, *bench_chain;
    int bench_json, bench_dist_given;
};

/* ---- messages.c ---------------------------------------------------------------------------- */
extern int quiet;          /* -q: no notes or warnings */
extern int verbose;        /* -v: notes that are otherwise shown only with --stats */
extern int mute;           /* MPI ranks other than 0: rank 0 says what all agreed on */
extern int ranks_ran;      /* cmd_compute_ranks ran (MPI initialised and finalised) */
extern char err_stage[48]; /* in a chain, "stage K (VERB): " ahead of that stage's option errors */

#define CLI_PRINTF(f, a) __attribute__((format(printf, f, a)))
/* One line on stderr: "gpustream: KIND: message". Notes and warnings obey -q; errors never do. */
void say_error(const char *fmt, ...) CLI_PRINTF(1, 2);
void say_warning(const char *fmt, ...) CLI_PRINTF(1, 2);
void say_note(const char *fmt, ...) CLI_PRINTF(1, 2);
/* A usage error: the message, then where to find help (verb: "scan " or NULL); returns EXIT_USAGE. */
int usage_error(const char *verb, const char *fmt, ...) CLI_PRINTF(2, 3);
/* A library status as the exit status; says the error (a closed pipe downstream ends quietly). */
int finish_status(const gs_status *st);
/* stdout flushed and checked: a full disk or a failed write is an error (git's rule). */
int check_stdout(void);
/* GS_TRACE=1: record the run's timeline (common/trace.h); trace_print writes it to stderr. */
void trace_start(void);
void trace_print(void);

/* ---- options.c and args.c ------------------------------------------------------------------ */
/* Apply one option's value. Returns 0 or an exit status. */
int apply_opt(cli *c, const opt_def *o, const char *val);
/* The name an option is shown by: "-t/--type" or "--chunk". */
const char *opt_label(const opt_def *o, char *buf, size_t len);
const verb_def *find_verb(const char *name);
/* Walk argv (c->verb set from argv[1]): 0, an exit status or CLI_HELP_SHOWN. */
int parse_args(cli *c, int argc, char **argv);

/* ---- help.c -------------------------------------------------------------------------------- */
void print_version(void);
void print_main_help(FILE *f);
void print_verb_help(const verb_def *v, int full); /* full: --help; else -h, a summary */
/* --generate man|complete-bash|algo-names (what: NULL where it is missing). */
int cmd_generate(const char *what);

/* ---- verbs.c, ranks.c, bench_out.c ----------------------------------------------------------- */
int cmd_compute(cli *c);
int cmd_gen(cli *c);
int cmd_info(cli *c);
int cmd_bench(cli *c);
/* Stage k's job for its input type t. Returns 0 or an exit status. */
int stage_setup(cli *c, int k, gs_type t, gs_job *j);
/* The engine's notes (a fallback to the CPU): shown with -v or --stats. */
void on_note(void *ctx, const char *msg);
/* The one warning line of a run that dropped n rows (--na skip, --skip-bad); nothing for 0. */
void warn_skipped(const cli *c, uint64_t n);
/* "window W is longer than the input": stage 0 for a single verb, else the chain's stage number. */
void warn_short_window(int stage, uint64_t window, uint64_t n);
/* The output's format and compression into c->wr. */
void resolve_output(cli *c, gs_format in_fmt, gs_type out_type, int cols, int64_t rows, const char *colnames);
/* The job over MPI ranks on shards of IN (pipeline/mpi.c); rank 0 alone prints. */
int cmd_compute_ranks(cli *c, const gs_job *job, gs_format in_fmt, gs_type out_type, int cols, const char *names);
/* Started as several ranks by a build without MPI: exec gpustream-mpi from beside this executable
 * with the same arguments; returns only where there is none (or it cannot start). */
void exec_mpi_binary(char **argv);

/* ---- columns.c: several columns in one pass ----------------------------------------------- */
/* Before the input is opened, for a --col list: its form and what several columns cannot run
 * (MPI ranks, --keep, --rows, compact but a last --count, more than GS_WRITE_COLS_MAX output
 * columns); columns_opened: the same rules once the input says it has k columns (a 2-D npy).
 * 0 or EXIT_USAGE. */
int columns_precheck(const cli *c, int nranks);
int columns_opened(const cli *c, int k, int nranks);
/* The CSV header of k columns' results ("price,volume"; "price_min,price_max,..."; without input
 * names, rolling's aggregates after each column's place in the list: "1_mean,2_mean"), or NULL. */
const char *columns_header(gs_reader *r, const gs_chain *ch, char *buf, size_t len);
/* Column types of m results repeated for k columns (ct holds the first column's m). */
void columns_coltypes(gs_type *ct, int m, int k);
/* compact --count over k columns: "3,5\n". */
void columns_count_line(char *line, size_t len, const uint64_t *counts, int k);
/* The CSV header of a stage's output from its input's (name: the input's, replaced in place). */
void stage_colname(const gs_job *j, char *name, size_t len);

/* ---- codecs.c -------------------------------------------------------------------------------- */
/* OUT named with the extension of a format gpustream does not write, and no --to: a usage error. */
int check_output_name(const cli *c, const char *verb);
int setup_codecs(cli *c, int decode, int encode, int64_t in_bytes, gs_status *st);
int run_engine(cli *c, const gs_chain *ch, gs_source *src, gs_writer *w, gs_run_stats *stats, uint64_t *count,
               gs_status *st);

/* ---- stats.c --------------------------------------------------------------------------------- */
void on_progress(void *ctx, uint64_t bytes, int64_t total, double elapsed);
void print_stats(const cli *c, const gs_run_stats *s);
/* After print_stats, for a run over MPI ranks: the spread over the ranks and MPI's own times. */
void print_rank_stats(const cli *c, const gs_run_stats *s, const gs_mpi_report *rep, double finalize_s);
/* The write stage's bytes: the writer's final count, taken at its close. */
void set_write_stage(gs_run_stats *s);

/* ---- signals.c ------------------------------------------------------------------------------- */
void install_signals(void);

#endif
