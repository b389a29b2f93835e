/* rng.h - a small seeded generator (xoshiro256** seeded by splitmix64), so
 * that synthetic inputs and bootstrap resamples are reproducible from --seed.
 * State lives in the caller's struct: no globals. */
#ifndef MB_CORE_RNG_H
#define MB_CORE_RNG_H

#include <stdint.h>

typedef struct mb__rng {
    uint64_t s[4];
} mb__rng;

void mb__rng_seed(mb__rng *r, uint64_t seed);
uint64_t mb__rng_u64(mb__rng *r);
/* Uniform in [0, 1). */
double mb__rng_uniform(mb__rng *r);
/* Uniform integer in [0, n) without modulo bias; n > 0. */
uint64_t mb__rng_below(mb__rng *r, uint64_t n);
/* Standard normal (Box-Muller). */
double mb__rng_normal(mb__rng *r);

#endif
