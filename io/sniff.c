/* sniff.c - what an input's first bytes and a file's name say of its format.
 *
 * Content: an input with no format given (no --from, no npy or zstd magic, no known extension) is
 * CSV or text when its first block is text: no NUL or other control byte but tab, CR and LF, bytes
 * over 0x7f only as UTF-8, and a line break. Its delimiter is the first of , TAB ; | found
 * outside quotes on every line of the block; without one it is one column: text where a line holds
 * several whitespace-separated tokens, else csv (so that a header line is recognised). Raw binary
 * values hold control bytes almost at once, so nothing else is taken for text.
 * Names: .tsv and .tab are tab-delimited csv; extensions of formats gpustream does not write
 * (parquet, npz, json, xlsx, ...) are named, so that the command line can refuse them. */
#include "io_internal.h"

#include <string.h>
#include <strings.h>

#define SNIFF_LINES 64 /* lines looked at for the delimiter */

static int is_ctl(unsigned char c) { return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f; }

int gs_sniff_text(const unsigned char *p, size_t n, int whole, gs_format *fmt, char *delim)
{
    static const char cand[] = {',', '\t', ';', '|'};
    size_t cnt[4] = {0}, lines = 0;
    int every[4] = {1, 1, 1, 1}, inq = 0, multi_tok = 0, in_tok = 0, toks = 0, any = 0;
    size_t end = n;
    *fmt = GS_FMT_AUTO;
    *delim = 0;
    if (n == 0 || !(memchr(p, '\n', n) || memchr(p, '\r', n))) return 0;
    for (size_t i = 0; i < n; i++) {
        if (is_ctl(p[i])) return 0;
        if (p[i] >= 0x80) { /* UTF-8 only: a lead byte and its continuation bytes */
            const int more = (p[i] & 0xe0) == 0xc0 ? 1 : (p[i] & 0xf0) == 0xe0 ? 2 : (p[i] & 0xf8) == 0xf0 ? 3 : -1;
            if (more < 0 || (p[i] == 0xc0 || p[i] == 0xc1)) return 0;
            for (int k = 1; k <= more; k++)
                if (i + (size_t)k < n && (p[i + (size_t)k] & 0xc0) != 0x80) return 0;
            i += (size_t)more;
        }
    }
    if (!whole) { /* complete lines only */
        while (end > 0 && p[end - 1] != '\n' && p[end - 1] != '\r') end--;
        if (end == 0) return 0;
    }
    for (size_t i = 0; i <= end && lines < SNIFF_LINES; i++) {
        const unsigned char c = i < end ? p[i] : '\n';
        if (c == '"') inq = !inq;
        if (inq) continue;
        if (c == '\n' || c == '\r') {
            if (any) {
                for (int k = 0; k < 4; k++) every[k] &= cnt[k] > 0;
                multi_tok |= toks > 1;
                lines++;
            }
            memset(cnt, 0, sizeof cnt);
            any = in_tok = toks = 0;
            continue;
        }
        for (int k = 0; k < 4; k++) cnt[k] += c == (unsigned char)cand[k];
        if (c != ' ' && c != '\t') any = 1;
        const int sp = c == ' ' || c == '\t';
        if (!sp && !in_tok) toks++;
        in_tok = !sp;
    }
    if (!lines) return 0;
    for (int k = 0; k < 4; k++)
        if (every[k]) {
            *fmt = GS_FMT_CSV;
            *delim = cand[k];
            return 1;
        }
    *fmt = multi_tok ? GS_FMT_TEXT : GS_FMT_CSV;
    return 1;
}

/* The name's extension after one ".zst", without its dot ("" where none). */
static const char *name_ext(const char *path, size_t *len)
{
    *len = 0;
    if (!path || !strcmp(path, "-")) return "";
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 4 && !strcasecmp(base + n - 4, ".zst")) n -= 4;
    for (size_t i = n; i > 1; i--)
        if (base[i - 1] == '.') {
            *len = n - i;
            return base + i;
        }
    return "";
}

char gs_delim_from_name(const char *path)
{
    size_t n;
    const char *e = name_ext(path, &n);
    return (n == 3 && (!strncasecmp(e, "tsv", 3) || !strncasecmp(e, "tab", 3))) ? '\t' : 0;
}

const char *gs_foreign_ext(const char *path)
{
    static const char *const foreign[] = {"parquet", "pq", "npz", "feather", "arrow", "ipc", "orc", "avro",
                                          "json", "jsonl", "ndjson", "xlsx", "xls", "ods", "h5", "hdf5", "hdf",
                                          "pkl", "pickle", "mat", "nc", "gz", "bz2", "xz", "lz4", "zip", "7z",
                                          "tar", "sqlite", "db", "dta", "sav", "html", "xml", NULL};
    size_t n;
    const char *e = name_ext(path, &n);
    for (const char *const *f = foreign; *f; f++)
        if (strlen(*f) == n && !strncasecmp(e, *f, n)) return *f;
    return NULL;
}
