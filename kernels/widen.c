#include <stdlib.h>

#include "xf_common.h"

double *xf_widen(const float *x, size_t count)
{
    double *y = malloc((count ? count : 1) * sizeof *y);
    if (y)
        for (size_t i = 0; i < count; i++) y[i] = x[i];
    return y;
}
