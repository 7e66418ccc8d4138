/* splitmix.h — the tests' pseudo-random numbers: splitmix64 (Vigna), one stream per
 * program, seeded by assigning rng_state. */
#ifndef RTDIV_TESTS_SPLITMIX_H
#define RTDIV_TESTS_SPLITMIX_H

#include <stdint.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng_next(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

#endif
