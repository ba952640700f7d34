// bf16 Add & Norm on any AVX2 CPU: x and r read as bf16 (half the bytes),
// v = x + r widened into a scratch row that stays in L1, mean and variance
// about the mean from it in fp32 (two passes, as the fp32 families), y
// normalised, scaled and shifted in fp32 and rounded to bf16 on the store.
// gamma and beta are widened once, in prepare. Measured on Zen 3 (docs/
// performance.md, bf16): with its partial sums in an indexed array (kept
// in memory by gcc) this ran no faster than fp32 on half the bytes.
#include <math.h>
#include <stdlib.h>

#include "../../kernels/half.h"
#include "bf16.h"
#include "family.h"

typedef struct {
    float *v, *gamma, *beta; // scratch row (d), gamma and beta widened (d), d rounded up to 8
} norm_ctx;

// x, r, y are (rows,d) bf16
void xf_avx2bf16_add_layernorm_run(const void *args, void *ctx)
{
    const xf_add_layernorm_args *a = args;
    norm_ctx *n = ctx;
    const int d = a->d, body = d - d % 8;
    for (int i = 0; i < a->rows; i++) {
        const xf_bf16 *x = a->x16 + (size_t)i * d, *r = a->r16 + (size_t)i * d;
        xf_bf16 *y = a->y16 + (size_t)i * d;
        // The next row's x and r asked for while this row computes (one
        // line per 32 elements): the rows then stream from memory instead
        // of each pass waiting on its first misses.
        const xf_bf16 *nx = i + 1 < a->rows ? x + d : x, *nr = i + 1 < a->rows ? r + d : r;
        // Two partial sums in each reduction, named (gcc keeps an indexed
        // array of them in memory): one made every pass wait on its add.
        __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
        for (int c = 0; c < body; c += 8) {
            if ((c & 31) == 0) _mm_prefetch((const char *)(nx + c), _MM_HINT_T0), _mm_prefetch((const char *)(nr + c), _MM_HINT_T0);
            const __m256 v = _mm256_add_ps(xf_bf16x8_load(x + c), xf_bf16x8_load(r + c));
            _mm256_storeu_ps(n->v + c, v);
            if (c & 8) s1 = _mm256_add_ps(s1, v);
            else s0 = _mm256_add_ps(s0, v);
        }
        float sum = xf_f32x8_hsum(_mm256_add_ps(s0, s1));
        for (int c = body; c < d; c++) sum += n->v[c] = xf_bf16_to_f32(x[c]) + xf_bf16_to_f32(r[c]);
        const float mean = sum / (float)d;
        const __m256 m = _mm256_set1_ps(mean);
        __m256 q0 = _mm256_setzero_ps(), q1 = _mm256_setzero_ps();
        for (int c = 0; c < body; c += 8) {
            const __m256 cen = _mm256_sub_ps(_mm256_loadu_ps(n->v + c), m);
            if (c & 8) q1 = _mm256_fmadd_ps(cen, cen, q1);
            else q0 = _mm256_fmadd_ps(cen, cen, q0);
        }
        float var = xf_f32x8_hsum(_mm256_add_ps(q0, q1));
        for (int c = body; c < d; c++) var += (n->v[c] - mean) * (n->v[c] - mean);
        const float rstd = 1.0f / sqrtf(var / (float)d + XF_LN_EPS);
        const __m256 rs = _mm256_set1_ps(rstd);
        for (int c = 0; c < body; c += 8) {
            const __m256 cen = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(n->v + c), m), rs);
            const __m256 out = _mm256_fmadd_ps(cen, _mm256_loadu_ps(n->gamma + c), _mm256_loadu_ps(n->beta + c));
            _mm_storeu_si128((__m128i *)(y + c), xf_bf16x8_round(out));
        }
        for (int c = body; c < d; c++) y[c] = xf_bf16_from_f32((n->v[c] - mean) * rstd * n->gamma[c] + n->beta[c]);
    }
}

int xf_avx2bf16_add_layernorm_prepare(const void *args, void **ctx)
{
    const xf_add_layernorm_args *a = args;
    norm_ctx *n = calloc(1, sizeof *n);
    const size_t d8 = ((size_t)a->d + 7) / 8 * 8;
    if (!n || !(n->v = malloc(d8 * sizeof(float))) || !(n->gamma = malloc(d8 * sizeof(float))) ||
        !(n->beta = malloc(d8 * sizeof(float)))) {
        xf_avx2bf16_add_layernorm_release(n);
        return -1;
    }
    for (int c = 0; c < a->d; c++) n->gamma[c] = xf_bf16_to_f32(a->gamma16[c]), n->beta[c] = xf_bf16_to_f32(a->beta16[c]);
    *ctx = n;
    return 0;
}

void xf_avx2bf16_add_layernorm_release(void *ctx)
{
    norm_ctx *n = ctx;
    if (!n) return;
    free(n->v), free(n->gamma), free(n->beta);
    free(n);
}
