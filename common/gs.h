/* gs.h - the basics every part of gpustream shares: status codes with a message,
 * element types, scalar values, and small helpers. Plain C11; safe to include from
 * CUDA (.cu) files. No I/O, no printing. */
#ifndef GS_H
#define GS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status ---------------------------------------------------------------------------
 * Library functions return int: GS_OK (0) or one of the codes below, and on failure fill
 * a gs_status with a one-line message (no "error:" prefix, no newline), e.g.
 *   "in.csv: line 1042 field 3: invalid number 'abc'".
 * The CLI (gpustream.c) alone prints it and maps the code to an exit status. */
enum {
    GS_OK = 0,
    GS_EDATA = 1,  /* bad data or runtime failure: exit 1 */
    GS_EUSAGE = 2, /* bad option or argument: exit 2 */
    GS_EPIPE = 3,  /* downstream closed the pipe: end quietly, exit 0 */
    GS_EINTR = 4,  /* interrupted by a signal: exit 1 (130 for SIGINT in the CLI) */
    GS_ENOMEM = 5, /* host or device memory exhausted: exit 1 */
};

typedef struct gs_status {
    int code;
    char msg[512];
} gs_status;

/* Set st (if not NULL and not already failed) and return code. printf-style message. */
int gs_fail(gs_status *st, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Like gs_fail but appends ": strerror(errnum)". */
int gs_fail_errno(gs_status *st, int errnum, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- element types ---------------------------------------------------------------------- */
typedef enum gs_type { GS_I32 = 0, GS_I64, GS_U32, GS_U64, GS_F32, GS_F64, GS_NTYPES } gs_type;

#define GS_TYPE_BIT(t) (1u << (t))
#define GS_ALL_TYPES 0x3fu

size_t gs_type_size(gs_type t);
const char *gs_type_name(gs_type t);         /* "i32" ... */
int gs_type_parse(const char *s, gs_type *t); /* 0 ok, -1 unknown; accepts i32, int32, f32, float32, float, double ... */
int gs_type_is_float(gs_type t);
int gs_type_is_signed(gs_type t);

/* A scalar of any element type. */
typedef union gs_value {
    int32_t i32;
    int64_t i64;
    uint32_t u32;
    uint64_t u64;
    float f32;
    double f64;
} gs_value;

/* Parse a number as type t, exactly (integers: full 64-bit range, no fraction; floats:
 * strtod/strtof semantics plus nan, inf, -inf). 0 ok, -1 invalid, -2 out of range. */
int gs_value_parse(const char *s, gs_type t, gs_value *v);

/* Convert n elements from one type to another. Narrowing saturates, for integers and floats
 * alike: a value beyond the output type becomes its minimum or maximum; NaN -> 0 in an integer
 * type; f64 -> f32 rounds (beyond f32's range to +-inf, as IEEE says). */
void gs_convert(const void *in, gs_type tin, void *out, gs_type tout, size_t n);

/* ---- sizes ---------------------------------------------------------------------------- */
/* Parse "64M", "1G", "2^28", "4e9", "1000", "16KiB". Suffixes K M G T (x1024) and
 * k (x1000) ; e-notation and 2^N accepted. 0 ok, -1 invalid. */
int gs_size_parse(const char *s, uint64_t *out);

/* Checked size arithmetic: 0 and *r = a*b (a+b), or -1 when the result does not fit. Every
 * count x element size that comes from the user goes through these. */
static inline int gs_mul_size(uint64_t a, uint64_t b, size_t *r)
{
    uint64_t x;
    if (__builtin_mul_overflow(a, b, &x) || x > (uint64_t)SIZE_MAX) return -1;
    *r = (size_t)x;
    return 0;
}
static inline int gs_add_size(uint64_t a, uint64_t b, size_t *r)
{
    uint64_t x;
    if (__builtin_add_overflow(a, b, &x) || x > (uint64_t)SIZE_MAX) return -1;
    *r = (size_t)x;
    return 0;
}

/* ---- bytes --------------------------------------------------------------------------------- */
/* The little-endian 32-bit value at p (file formats: zstd frame headers and magics). */
static inline uint32_t gs_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Monotonic seconds. */
double gs_now(void);

/* Host buffers from this size are 2 MiB-aligned with huge pages advised (gs_alloc_large): a
 * buffer written once gets its pages in 512 times fewer faults where the kernel allows. */
#define GS_HUGE_PAGE ((size_t)2 << 20)
/* n bytes (malloc'd: free() and realloc() take them), or NULL. */
void *gs_alloc_large(size_t n);

#ifdef __cplusplus
}
#endif
#endif
