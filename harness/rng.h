// Seeded, reproducible inputs: splitmix64 (Steele, Lea, Flood 2014), the
// same stream on every machine and compiler.
#ifndef XF_RNG_H
#define XF_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t s;
} xf_rng;

static inline uint64_t xf_rng_next(xf_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// Uniform in [lo, hi), from the top 24 bits so every value is an exact fp32.
static inline float xf_rng_uniform(xf_rng *r, float lo, float hi)
{
    return lo + (hi - lo) * (float)((xf_rng_next(r) >> 40) * (1.0 / 16777216.0));
}

void xf_rng_fill(xf_rng *r, float *x, size_t count, float lo, float hi);

#endif
