/* cli/columns.c - several columns in one pass (--col a,b,c; a 2-D npy): what the command line
 * allows with them, the output's header and column types, and compact --count's line. */
#include "cli.h"

#include <string.h>

/* What several columns cannot run: MPI ranks, compact --rows, compact other than a last --count,
 * more output columns than a writer takes (--keep's come before those, as the input's text). k: the
 * columns (known before the input is opened for a --col list, after it for an npy of k columns).
 * Returns 0 or EXIT_USAGE. */
static int columns_rules(const cli *c, int k, int nranks)
{
    char verb[32];
    snprintf(verb, sizeof verb, "%s ", c->verb->name);
    if (nranks > 1) return usage_error(verb, "several columns (--col a,b) do not run over MPI ranks");
    const gs_job *last = &c->stages[c->nstages ? c->nstages - 1 : 0].job;
    if (last->rows) return usage_error(verb, "%s", GS_COLUMNS_ROWS);
    if (!c->nstages) return 0; /* convert: the columns as rows */
    int m = 1;
    for (int s = 0; s < c->nstages; s++) {
        const gs_job *j = &c->stages[s].job;
        if (c->stages[s].verb->bit == V_COMPACT && !(s + 1 == c->nstages && j->count_only))
            return usage_error(verb, "%s", GS_COLUMNS_COMPACT);
    }
    const cli_stage *ls = &c->stages[c->nstages - 1];
    if (ls->verb->bit == V_ROLLING) m = last->minmax.nagg ? last->minmax.nagg : 1;
    else if (ls->verb->bit == V_MINMAX) m = last->minmax.only ? 1 : 2;
    if (k * m > GS_WRITE_COLS_MAX)
        return usage_error(verb, "%d columns of %d result%s each make %d output columns: at most %d", k, m,
                           m == 1 ? "" : "s", k * m, GS_WRITE_COLS_MAX);
    return 0;
}

int columns_precheck(const cli *c, int nranks)
{
    if (!gs_cols_is_list(c->rd.col)) return 0;
    gs_status st = {0};
    int k = 0;
    char verb[32];
    snprintf(verb, sizeof verb, "%s ", c->verb->name);
    if (gs_cols_check(c->rd.col, &k, &st)) return usage_error(verb, "%s", st.msg);
    /* names alone may be one header cell holding ',': judged once the header is read */
    return gs_cols_names_only(c->rd.col) ? 0 : columns_rules(c, k, nranks);
}

int columns_opened(const cli *c, int k, int nranks) { return k > 1 ? columns_rules(c, k, nranks) : 0; }

/* Column i's names after the chain: the input's name through each stage; a minmax pair or an
 * aggregate gets the input's name before it ("price_min", "price_mean"). */
static void column_names(const gs_chain *ch, const char *in, char *out, size_t len)
{
    snprintf(out, len, "%s", in);
    for (int s = 0; s < ch->n; s++) stage_colname(&ch->stage[s], out, len);
}

const char *columns_header(gs_reader *r, const gs_chain *ch, char *buf, size_t len)
{
    const int k = gs_reader_cols(r), named = gs_reader_colname_at(r, 0) != NULL;
    const gs_job *last = &ch->stage[ch->n - 1];
    if (!named && !(last->op == GS_OP_MINMAX && last->minmax.nagg)) return NULL;
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < k && at < len; i++) {
        char num[16], one[512];
        const char *in = gs_reader_colname_at(r, i);
        if (!in) { /* no header: the column's place in the list */
            snprintf(num, sizeof num, "%d", i + 1);
            in = num;
        }
        column_names(ch, in, one, sizeof one);
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? "," : "", one);
    }
    return buf;
}

void columns_coltypes(gs_type *ct, int m, int k)
{
    for (int i = 1; i < k; i++) memcpy(ct + (size_t)i * (size_t)m, ct, (size_t)m * sizeof *ct);
}

void columns_count_line(char *line, size_t len, const uint64_t *counts, int k)
{
    size_t at = 0;
    line[0] = 0;
    for (int i = 0; i < k && at < len; i++)
        at += (size_t)snprintf(line + at, len - at, "%s%llu", i ? "," : "", (unsigned long long)counts[i]);
    if (at < len) snprintf(line + at, len - at, "\n");
}
