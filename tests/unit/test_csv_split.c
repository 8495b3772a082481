/* test_csv_split.c - csv's fast splitter (gs_csv_piece: wide loads over the bytes) against a
 * byte-at-a-time reference on random pieces: fields and lines of every length across the 8- and
 * 16-byte steps, the delimiter and the line end in the last bytes of a piece (the tail loop),
 * bytes with the high bit set next to the delimiter's and '\n''s codes (0x8a, 0xac), every
 * delimiter, surrounding spaces, blank lines, short rows, bad values with skip_bad, and a quote
 * character anywhere (such pieces are libcsv's: the splitter only reports them); an empty field
 * or an NA spelling reads as NaN. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../io/csv_lines.h"
#include "../../io/missing.h"
#include "check.h"
#include "xorshift.h"

static uint64_t rng_state = 0x853c49e6748fea9bull;
static uint64_t rnd(void) { return xorshift64(&rng_state); }

/* The reference: one line at a time, one byte at a time. Returns the values' count, or -1 at
 * the first error (then *err_line says where); *lines the '\n' seen, *skipped the bad values
 * skipped. */
static long reference(const gs_lparse *c, const char *p, const char *end, double *out, uint64_t *lines,
                      uint64_t *skipped, uint64_t *err_line)
{
    long n = 0;
    *lines = *skipped = 0;
    while (p < end) {
        const char *nl = p;
        while (nl < end && *nl != '\n') nl++;
        int blank = 1;
        for (const char *q = p; q < nl; q++) blank &= gs_lparse_trim(c, *q);
        /* the selected field */
        const char *f = p;
        int k = 1;
        for (const char *q = p; q < nl && k < c->col; q++)
            if (*q == c->delim) k++, f = q + 1;
        const char *fe = f;
        while (fe < nl && *fe != c->delim) fe++;
        if (k < c->col) {
            if (!blank) {
                if (!c->skip_bad) return *err_line = *lines, -1;
                ++*skipped;
            }
        } else {
            while (f < fe && gs_lparse_trim(c, *f)) f++;
            while (fe > f && gs_lparse_trim(c, fe[-1])) fe--;
            if (f < fe || !blank) {
                double v;
                if (gs_num_parse(f, (size_t)(fe - f), GS_F64, &v) == 0) out[n++] = v;
                else if (gs_na_spelling(f, (size_t)(fe - f))) out[n++] = __builtin_nan(""); /* missing */
                else if (!c->skip_bad) return *err_line = *lines, -1;
                else ++*skipped;
            }
        }
        if (nl == end) break;
        ++*lines;
        p = nl + 1;
    }
    return n;
}

static const char *junk[] = {"abc", "", "x\xac", "\xac\x8a", "\x8a", "\xe2\x82\xac", "zz zz", "1e5", "-"};

/* A random piece of `rows` lines; the selected column holds numbers unless `bad` (then now and
 * then junk), the others junk; delimiters from delims. */
static size_t make_piece(char *buf, int rows, int col, char delim, int bad)
{
    char *o = buf;
    for (int r = 0; r < rows; r++) {
        int kind = (int)(rnd() % 20);
        if (kind == 0) { /* blank line, maybe spaces */
            o += sprintf(o, "%s", rnd() % 2 ? "" : " \t\r");
        } else {
            int nf = kind == 1 ? (int)(rnd() % (unsigned)col) + 1 : col + (int)(rnd() % 4);
            if (kind == 1 && nf >= col) nf = col - 1;
            for (int k = 1; k <= nf; k++) {
                if (k > 1) *o++ = delim;
                if (k == col) {
                    if (rnd() % 4 == 0) *o++ = ' ';
                    if (bad && rnd() % 10 == 0) o += sprintf(o, "%s", junk[rnd() % 9]);
                    else if (rnd() % 2) o += sprintf(o, "%.*g", 1 + (int)(rnd() % 17), (double)(int64_t)rnd() / 1e9);
                    else o += sprintf(o, "%lld", (long long)(rnd() % 100000000000ull));
                    if (rnd() % 4 == 0) *o++ = '\t' == delim ? ' ' : '\t';
                } else {
                    /* other fields: junk of any length, no delimiter or '\n' in it */
                    int len = (int)(rnd() % 40);
                    for (int i = 0; i < len; i++) {
                        char ch = (char)(rnd() % 2 ? 'a' + rnd() % 26 : (rnd() % 2 ? 0x8a : 0xac));
                        if (ch != delim && ch != '\n') *o++ = ch;
                    }
                }
            }
            if (rnd() % 5 == 0) *o++ = '\r';
        }
        if (r + 1 < rows || rnd() % 2) *o++ = '\n';
    }
    return (size_t)(o - buf);
}

int main(void)
{
    static const char delims[] = {',', ';', '\t', '|', ' '};
    char *buf = malloc(1 << 20);
    double *ref = malloc(sizeof(double) * 20000);
    int bad = 0, cases = 0, errors = 0, quoted = 0;
    for (int it = 0; it < 3000; it++) {
        gs_lparse c;
        memset(&c, 0, sizeof c);
        c.type = GS_F64;
        c.esize = 8;
        c.col = 1 + (int)(rnd() % 4);
        c.delim = delims[rnd() % 5];
        c.trim_sp = c.delim != ' ';
        c.trim_tab = c.delim != '\t';
        c.skip_bad = (int)(rnd() % 2);
        size_t len = make_piece(buf, 1 + (int)(rnd() % 300), c.col, c.delim, (int)(rnd() % 3 == 0));
        /* the piece may end anywhere inside the buffer: cut at a random point (past the last
         * line end, as the engine never does, only shortens the last line) */
        size_t cut = rnd() % 4 ? len : len - rnd() % (len + 1);
        /* now and then a quote character anywhere: the splitter parses nothing and says so (the
         * engine then gives the block to libcsv) */
        int quote = rnd() % 8 == 0 && cut > 0;
        if (quote) buf[rnd() % cut] = '"';
        uint64_t lines, skipped, err_line = 0;
        long n = reference(&c, buf, buf + cut, ref, &lines, &skipped, &err_line);
        gs_piece pc;
        memset(&pc, 0, sizeof pc);
        pc.begin = buf;
        pc.end = buf + cut;
        gs_csv_piece(&c, &pc);
        int ok;
        if (quote) {
            quoted++;
            ok = pc.quoted && pc.n == 0 && !pc.err;
        } else if (n < 0) {
            errors++;
            ok = pc.err != GS_PERR_NONE && pc.err_line == err_line;
        } else
            ok = pc.err == GS_PERR_NONE && pc.n == (size_t)n && pc.lines == lines && pc.skipped == skipped &&
                 (n == 0 || memcmp(pc.vals, ref, (size_t)n * 8) == 0);
        cases++;
        if (!ok && bad++ < 5)
            printf("# case %d: col %d delim 0x%02x skip_bad %d: reference %ld values %llu lines, splitter %zu "
                   "values %llu lines err %d\n",
                   it, c.col, (unsigned char)c.delim, c.skip_bad, n, (unsigned long long)lines, pc.n,
                   (unsigned long long)pc.lines, pc.err);
        free(pc.vals);
    }
    CHECK(bad == 0, "csv_split_against_reference", "%d of %d pieces differ (%d with an error)", bad, cases, errors);
    CHECK(errors > 100 && errors < cases, "csv_split_cases_cover_errors", "%d of %d with an error", errors, cases);
    CHECK(quoted > 100, "csv_split_cases_cover_quotes", "%d of %d with a quote", quoted, cases);
    free(buf);
    free(ref);
    return CHECK_DONE();
}
