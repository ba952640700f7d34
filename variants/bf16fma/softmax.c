// bf16 softmax with fp32 arithmetic (bf16fma.h): the fp32 family's softmax
// rows (variants/simd/softmax.c, through its kernel table) with the scores
// widened as they are read and the probabilities rounded to bf16 as they
// are written: half the bytes of fp32's, the same three passes over an
// fp32 row in L1.
#include <stdlib.h>

#include "bf16fma.h"
#include "../isa/huge.h"

int XF_BF_FN(softmax_prepare)(const void *args, void **ctx)
{
    const xf_softmax_args *a = args;
    *ctx = xf_alloc_lines(((size_t)a->seq_k + XV_W) * sizeof(float)); // one row
    return *ctx ? 0 : -1;
}

void XF_BF_FN(softmax_release)(void *ctx) { free(ctx); }

// x and y are (batch,heads,seq_q,seq_k) bf16; ctx is a row of seq_k floats
void XF_BF_FN(softmax_run)(const void *args, void *ctx)
{
    const xf_softmax_args *a = args;
    XF_FN(kernels).softmax_rows_bf16(a, 0, (size_t)a->batch * a->heads * a->seq_q, ctx);
}
