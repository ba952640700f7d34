// bf16 Add & Norm with fp32 arithmetic (bf16fma.h): x and r read as bf16
// (half the bytes), v = x + r widened into a scratch row that stays in L1,
// mean and variance about the mean from it in fp32 (two passes, as the
// fp32 families), y normalised, scaled and shifted in fp32 and rounded to
// bf16 on the store. gamma and beta are widened once, in prepare. Measured
// on Zen 3 (docs/performance.md, bf16): with its partial sums in an
// indexed array (kept in memory by gcc) this ran no faster than fp32 on
// half the bytes.
#include <math.h>
#include <stdlib.h>

#include "bf16fma.h"
#include "../isa/huge.h"

typedef struct {
    float *v, *gamma, *beta; // scratch row (d), gamma and beta widened (d), d rounded up to XV_W
} norm_ctx;

// x, r, y are (rows,d) bf16
void XF_BF_FN(add_layernorm_run)(const void *args, void *ctx)
{
    const xf_add_layernorm_args *a = args;
    norm_ctx *n = ctx;
    const int d = a->d, body = d - d % XV_W;
    for (int i = 0; i < a->rows; i++) {
        const xf_bf16 *x = a->x16 + (size_t)i * d, *r = a->r16 + (size_t)i * d;
        xf_bf16 *y = a->y16 + (size_t)i * d;
        // The next row's x and r asked for while this row computes (one
        // line per 32 elements): the rows then stream from memory instead
        // of each pass waiting on its first misses.
        const xf_bf16 *nx = i + 1 < a->rows ? x + d : x, *nr = i + 1 < a->rows ? r + d : r;
        // Two partial sums in each reduction, named (gcc keeps an indexed
        // array of them in memory): one made every pass wait on its add.
        xv s0 = xv_zero(), s1 = xv_zero();
        for (int c = 0; c < body; c += XV_W) {
            if ((c & 31) == 0) _mm_prefetch((const char *)(nx + c), _MM_HINT_T0), _mm_prefetch((const char *)(nr + c), _MM_HINT_T0);
            const xv v = xv_add(xv_load_bf16(x + c), xv_load_bf16(r + c));
            xv_store(n->v + c, v);
            if ((c / XV_W) & 1) s1 = xv_add(s1, v);
            else s0 = xv_add(s0, v);
        }
        float sum = xv_hsum(xv_add(s0, s1));
        for (int c = body; c < d; c++) sum += n->v[c] = xf_bf16_to_f32(x[c]) + xf_bf16_to_f32(r[c]);
        const float mean = sum / (float)d;
        const xv m = xv_set1(mean);
        xv q0 = xv_zero(), q1 = xv_zero();
        for (int c = 0; c < body; c += XV_W) {
            const xv cen = xv_sub(xv_load(n->v + c), m);
            if ((c / XV_W) & 1) q1 = xv_fma(cen, cen, q1);
            else q0 = xv_fma(cen, cen, q0);
        }
        float var = xv_hsum(xv_add(q0, q1));
        for (int c = body; c < d; c++) var += (n->v[c] - mean) * (n->v[c] - mean);
        const float rstd = 1.0f / sqrtf(var / (float)d + XF_LN_EPS);
        const xv rs = xv_set1(rstd);
        for (int c = 0; c < body; c += XV_W) {
            const xv cen = xv_mul(xv_sub(xv_load(n->v + c), m), rs);
            xv_store_bf16(y + c, xv_fma(cen, xv_load(n->gamma + c), xv_load(n->beta + c)));
        }
        for (int c = body; c < d; c++) y[c] = xf_bf16_from_f32((n->v[c] - mean) * rstd * n->gamma[c] + n->beta[c]);
    }
}

int XF_BF_FN(add_layernorm_prepare)(const void *args, void **ctx)
{
    const xf_add_layernorm_args *a = args;
    norm_ctx *n = calloc(1, sizeof *n);
    const size_t dw = ((size_t)a->d + XV_W - 1) / XV_W * XV_W;
    if (!n || !(n->v = xf_alloc_lines(dw * sizeof(float))) || !(n->gamma = xf_alloc_lines(dw * sizeof(float))) ||
        !(n->beta = xf_alloc_lines(dw * sizeof(float)))) {
        XF_BF_FN(add_layernorm_release)(n);
        return -1;
    }
    xf_bf16_widen_rows(a->gamma16, 0, 1, a->d, n->gamma, 0);
    xf_bf16_widen_rows(a->beta16, 0, 1, a->d, n->beta, 0);
    *ctx = n;
    return 0;
}

void XF_BF_FN(add_layernorm_release)(void *ctx)
{
    norm_ctx *n = ctx;
    if (!n) return;
    free(n->v), free(n->gamma), free(n->beta);
    free(n);
}
