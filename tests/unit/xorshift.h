/* xorshift.h - the unit tests' seeded random numbers: Marsaglia's xorshift64 over a state the
 * test program keeps (and may seed afresh), so that every run draws the same sequence. */
#ifndef GS_XORSHIFT_H
#define GS_XORSHIFT_H

#include <stdint.h>

/* Advances *state (shifts 13, 7, 17) and returns its new value. */
static inline uint64_t xorshift64(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

#endif
