/* csv_scan.h - wide scans of csv text (private to io/): a field's end and a line's end, 16 bytes a
 * step with SSE2, else 8 with SWAR. The fast splitter (csv_split.c) and --keep's rows (rowkeep.c). */
#ifndef GS_IO_CSV_SCAN_H
#define GS_IO_CSV_SCAN_H

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Wide loads: 8 bytes at a time in a 64-bit word (SWAR). bytes_eq sets the high bit of each
 * byte of w equal to the byte of `pat` (a byte repeated 8 times), exactly: no borrow crosses
 * from one byte into the next, so a match never shows in a neighbour. The first match is the
 * lowest set bit (x86 and ARM are little-endian; elsewhere, a byte loop). */
#define SWAR_ONES 0x0101010101010101ull
#define SWAR_LOW7 0x7f7f7f7f7f7f7f7full
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SWAR_OK 1
#else
#define SWAR_OK 0
#endif

static inline uint64_t bytes_eq(uint64_t w, uint64_t pat)
{
    uint64_t x = w ^ pat;
    return ~(((x & SWAR_LOW7) + SWAR_LOW7) | x | SWAR_LOW7);
}

static inline uint64_t load8(const char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* The first delimiter or line end in [p, end), or end: 16 bytes a step with SSE2 (every x86-64
 * has it), else 8 with SWAR, then the last few. */
static inline const char *gs_field_end(const char *p, const char *end, char delim)
{
#if defined(__SSE2__)
    const __m128i vd = _mm_set1_epi8(delim), vn = _mm_set1_epi8('\n');
    for (; end - p >= 16; p += 16) {
        __m128i w = _mm_loadu_si128((const __m128i *)(const void *)p);
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(w, vd), _mm_cmpeq_epi8(w, vn)));
        if (m) return p + __builtin_ctz(m);
    }
#endif
#if SWAR_OK
    const uint64_t pd = SWAR_ONES * (unsigned char)delim, pn = SWAR_ONES * '\n';
    for (; end - p >= 8; p += 8) {
        uint64_t w = load8(p), m = bytes_eq(w, pd) | bytes_eq(w, pn);
        if (m) return p + (__builtin_ctzll(m) >> 3);
    }
#endif
    while (p < end && *p != delim && *p != '\n') p++;
    return p;
}

/* The first line end in [p, end), or end. Most lines have a few bytes left after the selected
 * field: a few wide steps beat a memchr call; a long rest goes to memchr. */
static inline const char *gs_line_end(const char *p, const char *end)
{
#if defined(__SSE2__)
    const __m128i vn = _mm_set1_epi8('\n');
    for (int i = 0; i < 2 && end - p >= 16; i++, p += 16) {
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), vn));
        if (m) return p + __builtin_ctz(m);
    }
#endif
#if SWAR_OK
    const uint64_t pn = SWAR_ONES * '\n';
    for (int i = 0; i < 4 && end - p >= 8; i++, p += 8) {
        uint64_t m = bytes_eq(load8(p), pn);
        if (m) return p + (__builtin_ctzll(m) >> 3);
    }
#endif
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    return nl ? nl : end;
}

#endif
