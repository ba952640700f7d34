// The softmax of the bf16 attentions (avx512bf16's and amx's): a row's
// max, then its exps rounded to bf16 as the P of P V. Needs vec.h's
// avx512 vocabulary and AVX512_BF16 (or SIMDe's emulation of both).
#ifndef XF_AVX512BF16_PROB_ROWS_H
#define XF_AVX512BF16_PROB_ROWS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../../kernels/half.h"

// The max of the first n_vis raw scores s that are not padding (-inf if
// none is).
static inline float xf_prob_row_max(const float *s, int n_vis, const uint8_t *pad)
{
    xv vmax = xv_set1(-INFINITY);
    int j = 0;
    for (; j + XV_W <= n_vis; j += XV_W) {
        xv v = xv_load(s + j);
        if (pad) v = xv_pad_to_neg_inf(v, pad + j);
        vmax = xv_max(vmax, v);
    }
    float max = xv_hmax(vmax);
    for (; j < n_vis; j++) // the last n_vis % XV_W one by one: a vector would read pad past the row
        if (!(pad && pad[j]) && s[j] > max) max = s[j];
    return max;
}

// p[j0..j1) = bf16(2^(c s_j - c max)) for the keys j below n_vis that are
// not padding, 0 for the others (j1 - j0 a multiple of XV_W); their fp32
// values added to sum. c = log2 e / sqrt(dk): one FMA and the base-2 exp,
// whose roundings are the ones the reference grants each exp argument
// (xf_softmax_arg_error), as in the fused fp32 attention (simd/flash.c).
// vcvtneps2bf16 rounds as kernels/half.h does and reads a denormal as
// zero, which vdpbf16ps and tdpbf16ps would do with its bf16 value anyway.
static inline void xf_prob_row_exp(const float *s, int j0, int j1, int n_vis, const uint8_t *pad, xv c,
                                   xv neg_cmax, xf_bf16 *p, xv *sum)
{
    for (int j = j0; j < j1; j += XV_W, p += XV_W) {
        xv v;
        if (j + XV_W <= n_vis) {
            v = xv_load(s + j);
            if (pad) v = xv_pad_to_neg_inf(v, pad + j);
        } else { // past n_vis: -inf, which gives 0 (pad and s are not read there)
            float t[XV_W];
            for (int l = 0; l < XV_W; l++) t[l] = j + l < n_vis && !(pad && pad[j + l]) ? s[j + l] : -INFINITY;
            v = xv_load(t);
        }
        const xv e = xv_exp2(xv_fma(v, c, neg_cmax));
        const __m256bh b = _mm512_cvtneps_pbh(e);
        memcpy(p, &b, sizeof b);
        *sum = xv_add(*sum, e);
    }
}

#endif
