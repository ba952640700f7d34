#include <stddef.h>

#include "rng.h"

void xf_rng_fill(xf_rng *r, float *x, size_t count, float lo, float hi)
{
    for (size_t i = 0; i < count; i++) x[i] = xf_rng_uniform(r, lo, hi);
}
