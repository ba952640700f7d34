#include <math.h>

#include "naive.h"

void xf_naive_softmax_row(int n, float *t, const uint8_t *pad_row, int causal, int i)
{
    float max = -INFINITY;
    for (int j = 0; j < n; j++)
        if (xf_key_visible(pad_row, causal, i, j) && t[j] > max) max = t[j];
    if (max == -INFINITY) { // every key masked: zeros, not exp(-inf - -inf) = NaN
        for (int j = 0; j < n; j++) t[j] = 0.0f;
        return;
    }
    float sum = 0.0f;
    for (int j = 0; j < n; j++) {
        t[j] = xf_key_visible(pad_row, causal, i, j) ? expf(t[j] - max) : 0.0f;
        sum += t[j];
    }
    for (int j = 0; j < n; j++) t[j] /= sum;
}

// x and y are (batch,heads,seq_q,seq_k)
void xf_naive_softmax(const void *args, void *ctx)
{
    (void)ctx;
    const xf_softmax_args *a = args;
    for (int b = 0; b < a->batch; b++) {
        const uint8_t *pad = a->key_pad ? a->key_pad + (size_t)b * a->seq_k : NULL;
        for (int h = 0; h < a->heads; h++)
            for (int i = 0; i < a->seq_q; i++) {
                size_t row = (((size_t)b * a->heads + h) * a->seq_q + i) * a->seq_k;
                float *y = a->y + row;
                for (int j = 0; j < a->seq_k; j++) y[j] = a->scale * a->x[row + j];
                xf_naive_softmax_row(a->seq_k, y, pad, a->causal, i);
            }
    }
}
