/* csv_lines.h - the line engine of the csv and text formats (io/csv_lines.c; private to io/).
 *
 * Decoding: the engine reads large blocks from a byte source, cuts each block after its last
 * line end (the rest is carried into the next block), splits it into pieces at line ends, and
 * runs the format's piece parser on every piece in parallel (gs_parallel_for). Each piece
 * collects its values, its count of '\n' and its first error; values are handed out in piece
 * order, and an error's line number is the lines of the earlier pieces plus its own. The next
 * block is read during the parse (read-ahead). A format may parse the blocks that hold a quote
 * character in order instead (csv: libcsv, io/csv.c). Before the first block, the format may
 * look at the first bytes and consume some (csv: the line-end style and the header). */
#ifndef GS_IO_CSV_LINES_H
#define GS_IO_CSV_LINES_H

#include "io_internal.h"

/* --keep: the splitter cuts the kept fields of rows where no column past this many is looked at. */
#define GS_KEEP_CUT 32

/* A quoted csv field this long is a missing closing quote. */
#define GS_LINES_MAX_FIELD ((size_t)64 << 20)

/* What a piece parser needs to know. */
typedef struct gs_lparse {
    gs_type type;
    size_t esize;
    int col;        /* csv: 1-based column */
    char delim;     /* csv: field delimiter */
    int trim_sp;    /* csv: ' ' is surrounding space (not when it is the delimiter) */
    int trim_tab;   /* csv: '\t' is surrounding space (not when it is the delimiter); '\r' always is */
    int skip_bad;
    gs_na_mode na;  /* what a missing value reads as (io/missing.c) */
    char na_val[8]; /* GS_NA_VALUE: the value */
    /* csv, several columns (io/csv_cols.c): ncols > 1 values a row, of columns cols[] (1-based, the
     * list's order), the last of them maxcol; a piece's values are then rows of ncols x esize bytes */
    int ncols;
    int cols[GS_WRITE_COLS_MAX];
    int maxcol;
    /* --keep's columns cut by the fast splitter (io/csv_rows.c): nkeep > 0 where the store takes each
     * row's kept fields rather than the row (one value column, at most GS_KEEP_CUT columns looked at) */
    int nkeep, keep_need, keep_value;
    int keep_cols[GS_KEEP_CUT];
} gs_lparse;

/* csv: ch is surrounding space of a field. */
static inline int gs_lparse_trim(const gs_lparse *c, char ch)
{
    return ch == '\r' || (ch == ' ' && c->trim_sp) || (ch == '\t' && c->trim_tab);
}

/* csv: [p, e) is a line of surrounding space only (never the delimiter: "\t" is a row of two empty
 * fields in a tab-separated file), which libcsv skips. */
static inline int gs_lparse_blank(const gs_lparse *c, const char *p, const char *e)
{
    for (; p < e; p++)
        if (!gs_lparse_trim(c, *p)) return 0;
    return 1;
}

enum { GS_PERR_NONE = 0, GS_PERR_INVALID, GS_PERR_RANGE, GS_PERR_MISSING, GS_PERR_TOOLONG, GS_PERR_QUOTE, GS_PERR_NA };

typedef struct gs_piece {
    const char *begin, *end; /* the bytes to parse (whole lines; the last may lack its '\n') */
    char *vals;              /* output values (esize each) */
    size_t n, cap;
    uint64_t lines;          /* '\n' in [begin, end); complete when err == GS_PERR_NONE */
    uint64_t skipped;        /* bad rows/tokens skipped (skip_bad, na skip) */
    uint64_t *skips;         /* where: the piece's value count at each skip (when rows are recorded) */
    size_t nskips, skcap;
    int keep_skips;          /* record skips (the reader has a row map) */
    /* keep_rows (compact --rows, --keep): value i's row (several columns: row i's) is spans[2i]
     * bytes from begin (negative: in the row carried over from the block before), spans[2i+1]
     * bytes long (-1 until the row ends); text: a block parsed in order, its bytes copied (the
     * carried row first) for the row store, which holds other pieces' rows in the block itself */
    int keep_rows;
    int64_t *spans;
    size_t spcap;
    char *text;
    size_t text_cap;         /* bytes allocated at text */
    size_t text_len;         /* kept: bytes used */
    int kept;                /* text holds each value's kept fields (gs_piece_kept), not rows */
    const char *ext;         /* the values are here, not at vals: a block parsed elsewhere (n of them) */
    int64_t open_row;        /* seq: in, -(carried bytes); out: where a row open at the end began */
    int quoted;              /* csv: the piece holds a quote character (and was not parsed) */
    int err;                 /* first error: GS_PERR_* */
    int nomem;               /* ran out of memory */
    uint64_t err_line;       /* '\n' before the error, counted from begin */
    int err_field;           /* 1-based field, 0 = none (text) */
    int err_nfields;         /* fields in the row (GS_PERR_MISSING) */
    char err_tok[48];        /* the offending text, shortened */
} gs_piece;

/* Room for one more value; returns its address, or NULL (and sets pc->nomem) when out of
 * memory. The value counts once the parser increments pc->n. */
void *gs_piece_grow(gs_piece *pc, size_t esize);
static inline void *gs_piece_slot(gs_piece *pc, size_t esize)
{
    if (pc->n < pc->cap) return pc->vals + pc->n * esize;
    return gs_piece_grow(pc, esize);
}

/* Record a bad value at line `line` (counted from the piece start): returns 1 when the
 * parser must stop (no skip_bad), 0 after counting a skip. */
int gs_piece_bad(const gs_lparse *c, gs_piece *pc, int kind, uint64_t line, int field, int nfields,
                 const char *tok, size_t len);

/* keep_rows: the row of the value just counted (pc->n - 1) starts `start` bytes from pc->begin and
 * is len bytes long (-1: not known yet). Returns 1 when out of memory. */
int gs_piece_span_grow(gs_piece *pc, int64_t start, int64_t len);
static inline int gs_piece_span(gs_piece *pc, int64_t start, int64_t len)
{
    const size_t i = pc->n - 1;
    if (2 * i + 2 > pc->spcap) return gs_piece_span_grow(pc, start, len);
    pc->spans[2 * i] = start;
    pc->spans[2 * i + 1] = len;
    return 0;
}

/* keep_rows with c->nkeep (csv's splitter, io/csv_split.c): the kept fields of the row [p, e) (its line end
 * excluded) of the value just counted, as in the input and joined by the delimiter (the value's field
 * after them where c->keep_value), onto pc->text with their span. Returns 1 when out of memory. */
int gs_piece_kept(const gs_lparse *c, gs_piece *pc, const char *p, const char *e);

/* A row dropped (a missing value under --na skip; gs_piece_bad under skip_bad): counted, and where
 * the reader keeps a row map, recorded at the piece's value count. Returns 1 when out of memory. */
int gs_piece_skip(gs_piece *pc);

/* keep_rows with nkeep kept columns cut by the splitter, before a piece's parse (io/csv_rows.c): the
 * piece's text, for its values' kept fields. 0 where memory is short (pc->nomem set). */
int gs_piece_kept_text(gs_piece *pc, gs_rowtext *store, int nkeep);
/* keep_rows, after a piece's parse (io/csv_rows.c): a piece of a sequential block (seq) copies its
 * bytes for the row store, after the row carried into the block, and carries on the bytes of a row
 * it leaves open (midrow); another's rows stay in the block. */
void gs_piece_text(gs_piece *pc, gs_rowtext *store, int seq, int midrow, char **carry, size_t *carry_len);
/* After a block, its np pieces in order: their skips into the row map at stream positions from
 * *stream_n on, their rows into the store (either may be NULL), those without a copy where they lie
 * in block (the block's memory, lent to the store); *stream_n advances by their values. -1 where
 * memory is short. */
struct gs_rowmap;
int gs_pieces_keep(gs_piece *pieces, size_t np, struct gs_rowmap *rows, gs_rowtext *text, gs_rowtext_mem *block,
                   uint64_t *stream_n);

/* Parses a piece of whole lines; pieces run in parallel. */
typedef void (*gs_piece_fn)(const gs_lparse *c, gs_piece *pc);
/* csv: the fast splitter of a piece without quote characters (csv_lines.c); a piece with one
 * only sets pc->quoted (the engine then gives the block to the sequential parser). */
void gs_csv_piece(const gs_lparse *c, gs_piece *pc);

/* csv, several columns (io/csv_cols.c): a row's state while its fields come (the fast splitter's
 * and libcsv's alike); field numbers are counted by the caller in fields before each call. */
typedef struct gs_colrow {
    int fields;  /* fields seen in the row */
    int na_skip; /* a missing value under --na skip: the row is dropped at its end */
    int dropped; /* a bad field was skipped (--skip-bad): the rest of the row is not looked at */
    char held[GS_WRITE_COLS_MAX * 8]; /* the values of a row that goes on in the next block */
} gs_colrow;
/* libcsv's blocks: a row open at a block's end keeps its values so far (unhold 0, after the block),
 * and takes them into the next block's piece (unhold 1, before it). */
void gs_colrow_hold(const gs_lparse *c, gs_piece *pc, gs_colrow *w, int unhold);
void gs_colrow_begin(gs_colrow *w);
int gs_colrow_field(const gs_lparse *c, gs_piece *pc, gs_colrow *w, const char *f, size_t len, uint64_t line);
/* The row's end; keep_rows: a row taken lies row_len bytes from row_at (as gs_piece_span's). */
int gs_colrow_end(const gs_lparse *c, gs_piece *pc, gs_colrow *w, int blank, uint64_t line, int64_t row_at,
                  int64_t row_len);
/* The fast splitter for several columns (gs_csv_piece's, where c->ncols > 1). */
void gs_csv_piece_cols(const gs_lparse *c, gs_piece *pc);
/* --col as a list against the first row (f: its n cells; NULL: none read, --no-header or an empty
 * input): whether that row is a header, cfg's columns, d's ncols and colnames (*colnames: the
 * names' memory, for gs_csv_cols_free). */
int gs_csv_cols_setup(gs_lparse *cfg, gs_decoder *d, const gs_read_opts *o, char *const *f, int n, int *is_header,
                      char ***colnames, gs_status *st);
void gs_csv_cols_free(char **colnames, int k);

/* Parses a whole block in order (a block holding a quote, or one that starts inside a quoted
 * row): into pc, whose lines are counted from line_base ('\n' before the block). *midrow says
 * whether the previous block ended inside a row and is set to whether this one does; at_eof:
 * the input ends with this block. Out of memory sets pc->nomem. */
typedef void (*gs_seq_fn)(void *ctx, const gs_lparse *c, gs_piece *pc, uint64_t line_base, int at_eof, int *midrow);

/* What a format gives the engine. */
typedef struct gs_lines_dialect {
    gs_piece_fn piece;
    gs_seq_fn seq;              /* NULL: every block goes to pieces */
    void *ctx;                  /* seq's state: the engine owns it from gs_lines_open on */
    void (*ctx_free)(void *ctx);
    int ws_cut;                 /* text: blocks and pieces may end after any whitespace */
} gs_lines_dialect;

typedef struct gs_ldec gs_ldec; /* a line decoder */

/* Open a line decoder on src with delimiter delim; reads the first bytes and drops a UTF-8 byte
 * order mark. On failure the caller keeps src. */
int gs_lines_open(gs_ldec **L, gs_bsrc *src, const gs_read_opts *o, char delim, const gs_lines_dialect *dl,
                  gs_status *st);
gs_decoder *gs_lines_decoder(gs_ldec *L);
gs_lparse *gs_lines_cfg(gs_ldec *L);
/* Before the first block: the bytes not yet consumed, and whether the source has ended. */
const char *gs_lines_peek(const gs_ldec *L, size_t *n, int *eof);
/* Read more of the source into the peek (at least one read; a full buffer grows). */
int gs_lines_more(gs_ldec *L, gs_status *st);
/* Consume the first n bytes of the peek, which hold `lines` line ends (a header). */
void gs_lines_take(gs_ldec *L, size_t n, uint64_t lines);
/* Lines end in a lone '\r': every '\r', buffered or read from now on, is read as '\n'. */
void gs_lines_cr(gs_ldec *L);
/* The message of pc's error, its lines counted after `earlier` lines. */
int gs_lines_fail(gs_ldec *L, const gs_piece *pc, uint64_t earlier, gs_status *st);
/* Close without the source (a failed open: the caller keeps it). */
void gs_lines_abandon(gs_ldec *L);

#endif
