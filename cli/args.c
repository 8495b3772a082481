/* cli/args.c - argv walked once: options (long, long=value, short, short+value, bundled flags),
 * '--', up to two positionals (IN and OUT; gen: OUT), and `then` between the stages of a chain
 * (each stage's options follow its verb; run-wide options and IN/OUT may come in any stage). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

const char *opt_label(const opt_def *o, char *buf, size_t len)
{
    if (o->shrt) snprintf(buf, len, "-%c/--%s", o->shrt, o->lng);
    else snprintf(buf, len, "--%s", o->lng);
    return buf;
}

/* The setting an option sets: its own, but --progress/--no-progress and --header/--no-header
 * are one setting each. */
static int opt_setting(const opt_def *o)
{
    return o->id == O_NOPROGRESS ? O_PROGRESS : o->id == O_NOHEADER ? O_HEADER : (int)o->id;
}

const verb_def *find_verb(const char *name)
{
    for (size_t i = 0; i < cli_nverbs; i++)
        if (!strcmp(name, cli_verbs[i].name)) return &cli_verbs[i];
    return NULL;
}

static int not_a_stage(const char *name)
{
    return usage_error(NULL, "%s is not a chain stage (chains take scan, compact, minmax and rolling)", name);
}

/* In a chain, a run-wide option may be given in any stage, once, or again with the same value
 * (within a stage the last one given counts, as for a single verb). */
static int chain_once(cli *c, const opt_def *o, const char *val)
{
    int key = opt_setting(o);
    const char *txt = o->id == O_NOPROGRESS || o->id == O_NOHEADER ? "off"
                      : o->id == O_PROGRESS || o->id == O_HEADER  ? "on"
                      : val                                      ? val
                                                                 : "";
    if (!c->seen_val[key]) {
        c->seen_val[key] = txt;
        c->seen_opt[key] = o;
        c->seen_stage[key] = c->nstages + 1;
        return 0;
    }
    if (!strcmp(c->seen_val[key], txt)) return 0;
    char a[48], b[48], va[80] = "", vb[80] = "";
    if (o->arg) {
        snprintf(va, sizeof va, " '%s'", c->seen_val[key]);
        snprintf(vb, sizeof vb, " '%s'", txt);
    }
    err_stage[0] = 0; /* the message names both stages */
    return usage_error(NULL, "%s%s in stage %d and %s%s in stage %d: a chain takes run-wide options once",
                       opt_label(c->seen_opt[key], a, sizeof a), va, c->seen_stage[key], opt_label(o, b, sizeof b), vb,
                       c->nstages + 1);
}

/* Start parsing a stage of verb v: the stage options' defaults. */
static void stage_begin(cli *c, const verb_def *v)
{
    c->verb = v;
    memset(&c->job, 0, sizeof c->job);
    c->job.minmax.only = GS_MM_BOTH;
    c->job.minmax.ddof = 1;
    c->job.minmax.min_periods = 1;
    c->pred = "nonzero";
    c->out_type_given = c->window_given = c->min_periods_given = 0;
    if (c->chain) snprintf(err_stage, sizeof err_stage, "stage %d (%s): ", c->nstages + 1, v->name);
}

/* Options as given, applied once a stage's words are walked (a single verb: once argv is): a
 * repeated option takes its last value (as git and zstd do: `minmax -w 0 -w 3` runs with 3), a
 * list option (bench) its last list, and of --progress/--no-progress (--header/--no-header) the
 * last one counts. g[first..n) are the stage being parsed. */
typedef struct given_opt {
    const opt_def *o;
    const char *val;
} given_opt;

typedef struct given_list {
    given_opt *g;
    int n, first;
} given_list;

static void give(given_list *l, const opt_def *o, const char *val)
{
    l->g[l->n++] = (given_opt){o, val};
}

static int apply_given(cli *c, const given_opt *g, int n)
{
    for (int i = 0; i < n; i++) {
        int later = 0, k;
        for (k = i + 1; k < n && !later; k++) later = opt_setting(g[k].o) == opt_setting(g[i].o);
        /* one column a run: a second --col is a mistake, never last-wins */
        char verb[32];
        snprintf(verb, sizeof verb, "%s ", c->verb->name);
        if (later && g[i].o->id == O_COL && strcmp(g[i].val, g[k - 1].val))
            return usage_error(verb, "--col given twice ('%s' and '%s'): give several columns as one list "
                                     "(--col %s,%s)", g[i].val, g[k - 1].val, g[i].val, g[k - 1].val);
        if (later) continue;
        if (c->chain && !(g[i].o->verbs & S_STAGE) && g[i].o->id != O_HELP) {
            int crc = chain_once(c, g[i].o, g[i].val);
            if (crc) return crc;
        }
        int rc = apply_opt(c, g[i].o, g[i].val);
        if (rc) return rc;
    }
    return 0;
}

/* Finish the stage being parsed: apply its options, keep what it set. */
static int stage_end(cli *c, given_list *l)
{
    int rc = apply_given(c, l->g + l->first, l->n - l->first);
    l->first = l->n;
    if (rc) return rc;
    if (!(c->chain || (c->verb->bit & V_STAGE))) return 0;
    char verb[32];
    snprintf(verb, sizeof verb, "%s ", c->verb->name);
    if (c->verb->bit == V_MINMAX && !c->window_given) return usage_error(verb, "minmax needs --window W (-w W)");
    if (c->verb->bit == V_ROLLING && !c->window_given) return usage_error(verb, "rolling needs --window W (-w W)");
    if (c->verb->bit == V_ROLLING && !c->job.minmax.nagg) c->job.minmax.agg[c->job.minmax.nagg++] = GS_AGG_MEAN;
    if (c->verb->bit == V_ROLLING && c->job.minmax.min_periods > c->job.minmax.window)
        return usage_error(verb, "--min-periods %llu is more than the window's %llu values",
                           (unsigned long long)c->job.minmax.min_periods, (unsigned long long)c->job.minmax.window);
    cli_stage *k = &c->stages[c->nstages++];
    k->verb = c->verb;
    k->job = c->job;
    k->pred = c->pred;
    k->out_type_given = c->out_type_given;
    k->window_given = c->window_given;
    k->min_periods_given = c->min_periods_given;
    size_t at = strlen(c->title);
    snprintf(c->title + at, sizeof c->title - at, "%s%s", at ? " then " : "", c->verb->name);
    return 0;
}

/* `then` at argv[*i]: the stage before ends, the verb after it begins the next. */
static int parse_then(cli *c, int argc, char **argv, int *i, given_list *l)
{
    int rc = stage_end(c, l);
    if (rc) return rc;
    const verb_def *v = *i + 1 < argc ? find_verb(argv[*i + 1]) : NULL;
    if (c->nstages == GS_CHAIN_MAX) return usage_error(NULL, "a chain has at most %d stages", GS_CHAIN_MAX);
    snprintf(err_stage, sizeof err_stage, "stage %d: ", c->nstages + 1);
    if (*i + 1 >= argc) return usage_error(NULL, "'then' needs a verb after it (scan, compact, minmax or rolling)");
    if (!v) return usage_error(NULL, "unknown verb '%s' after 'then' (scan, compact, minmax or rolling)", argv[*i + 1]);
    if (!(v->bit & V_STAGE)) return not_a_stage(v->name);
    (*i)++;
    stage_begin(c, v);
    return 0;
}

/* --name, --name=value or --name value at argv[*i]. */
static int parse_long(cli *c, const char *verb, int argc, char **argv, int *i, given_list *l)
{
    const char *a = argv[*i], *val = NULL;
    const opt_def *o = NULL;
    char name[64];
    const char *eq = strchr(a + 2, '=');
    size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
    snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), a + 2);
    for (size_t k = 0; k < cli_nopts; k++)
        if (!strcmp(cli_opts[k].lng, name)) o = &cli_opts[k];
    if (!o || !(o->verbs & c->verb->bit)) return usage_error(verb, "unknown option '--%s' for %s", name, c->verb->name);
    if (eq) {
        if (!o->arg) return usage_error(verb, "option '--%s' takes no value", name);
        val = eq + 1;
    } else if (o->arg == 1) {
        if (*i + 1 >= argc) return usage_error(verb, "option '--%s' needs a value", name);
        val = argv[++*i];
    }
    if (o->id == O_HELP) {
        print_verb_help(c->verb, 1);
        return CLI_HELP_SHOWN;
    }
    give(l, o, val);
    return 0;
}

/* Short options at argv[*i], possibly bundled (-zf) or with an attached value (-ti64, -w500). */
static int parse_short(cli *c, const char *verb, int argc, char **argv, int *i, given_list *l)
{
    for (const char *p = argv[*i] + 1; *p; p++) {
        const opt_def *o = NULL;
        for (size_t k = 0; k < cli_nopts; k++)
            if (cli_opts[k].shrt == *p) o = &cli_opts[k];
        if (!o || !(o->verbs & c->verb->bit)) return usage_error(verb, "unknown option '-%c' for %s", *p, c->verb->name);
        if (o->id == O_HELP) {
            print_verb_help(c->verb, 0);
            return CLI_HELP_SHOWN;
        }
        if (o->arg == 1) {
            if (p[1]) give(l, o, p + 1);
            else if (*i + 1 < argc) give(l, o, argv[++*i]);
            else return usage_error(verb, "option '-%c' needs a value", *p);
            return 0;
        }
        give(l, o, NULL);
    }
    return 0;
}

/* IN and OUT (gen: OUT) from the positionals; '-' is stdin or stdout. */
static int set_files(cli *c, const char *verb, const char *const *pos, int npos)
{
    for (int k = 0; k < npos; k++) /* '' is no file name; open("") would name nothing useful */
        if (!pos[k][0]) return usage_error(verb, "invalid file name '' (use '-' for stdin or stdout)");
    if (c->verb->bit == V_GEN) {
        if (npos > 1) return usage_error(verb, "gen takes one argument, OUT");
        c->out = pos[0];
    } else {
        c->in = pos[0];
        c->out = pos[1];
    }
    if (c->in && !strcmp(c->in, "-")) c->in = NULL;
    if (c->out && !strcmp(c->out, "-")) c->out = NULL;
    return 0;
}

/* The words after the verb, into l (the options) and pos (the positionals); each stage's
 * options are applied as its `then` is met. */
static int walk_words(cli *c, int argc, char **argv, given_list *l, const char **pos, int *npos)
{
    int only_pos = 0;
    char verb[32];
    snprintf(verb, sizeof verb, "%s ", c->verb->name);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        int rc = 0;
        if (!only_pos && !strcmp(a, "then")) {
            rc = parse_then(c, argc, argv, &i, l);
            snprintf(verb, sizeof verb, "%s ", c->verb->name);
        } else if (only_pos || a[0] != '-' || !strcmp(a, "-")) {
            if (*npos == 2) return usage_error(verb, "unexpected argument '%s' (at most IN and OUT)", a);
            pos[(*npos)++] = a;
        } else if (!strcmp(a, "--"))
            only_pos = 1;
        else if (a[1] == '-')
            rc = parse_long(c, verb, argc, argv, &i, l);
        else
            rc = parse_short(c, verb, argc, argv, &i, l);
        if (rc) return rc;
    }
    return stage_end(c, l);
}

int parse_args(cli *c, int argc, char **argv)
{
    for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "then")) c->chain = 1;
    stage_begin(c, c->verb);
    if (c->chain && !(c->verb->bit & V_STAGE)) return not_a_stage(c->verb->name);
    /* at most one option per argv word, plus bundled flags: argc * (flags in a word) bounds it */
    int cap = 16;
    for (int i = 2; i < argc; i++) cap += (int)strlen(argv[i]);
    given_list l = {malloc((size_t)cap * sizeof *l.g), 0, 0};
    if (!l.g) {
        say_error("out of memory");
        return EXIT_DATA;
    }
    const char *pos[2] = {NULL, NULL};
    int npos = 0;
    int rc = walk_words(c, argc, argv, &l, pos, &npos);
    free(l.g);
    if (rc) return rc;
    char verb[32]; /* the last stage's, for the files' errors */
    snprintf(verb, sizeof verb, "%s ", c->verb->name);
    if (c->nstages) c->verb = c->stages[0].verb; /* the first stage's verb runs the chain (cmd_compute) */
    err_stage[0] = 0;
    return set_files(c, verb, pos, npos);
}
