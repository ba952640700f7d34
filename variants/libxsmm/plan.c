// Blocked, batch-reduced GEMM plans over libxsmm's JIT kernels (xsmm.h).
#include <string.h>

#include "../isa/blocking.h"
#include "../isa/isa.h"
#include "xsmm.h"

static libxsmm_smmfunction_reducebatch_strd dispatch(int m, int n, int k, const xf_xsmm_plan *p, int beta)
{
    const libxsmm_blasint lda = p->lda, ldb = p->ldb, ldc = p->ldc;
    const float alpha = 1.0f, b = (float)beta;
    const int flags = LIBXSMM_GEMM_FLAG_NONE, prefetch = LIBXSMM_GEMM_PREFETCH_NONE;
    // A's k block starts BK columns on (BK lda floats), B's BK rows on.
    return libxsmm_smmdispatch_reducebatch_strd(m, n, k, (libxsmm_blasint)(XF_XSMM_BK * (size_t)p->lda * sizeof(float)),
                                                (libxsmm_blasint)(XF_XSMM_BK * sizeof(float)), &lda, &ldb, &ldc,
                                                &alpha, &b, &flags, &prefetch);
}

int xf_xsmm_plan_make(xf_xsmm_plan *p, int m, int n, int k, int lda, size_t a_tile, int ldb, int ldc)
{
    *p = (xf_xsmm_plan){.m = m, .n = n, .k = k, .lda = lda, .a_tile = a_tile, .ldb = ldb, .ldc = ldc,
                        .kc = xf_blocking_get()->xsmm_kc};
    const int mm[2] = {XF_XSMM_BM, m % XF_XSMM_BM}, nn[2] = {XF_XSMM_BN, n % XF_XSMM_BN};
    const int blocks = k / XF_XSMM_BK, rest = k % XF_XSMM_BK;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            if (mm[i] == 0 || nn[j] == 0 || (i == 0 && m < XF_XSMM_BM) || (j == 0 && n < XF_XSMM_BN)) continue;
            // The first slice's k blocks start C (beta 0), later ones add;
            // the k end adds onto k blocks, or starts C when there are none.
            for (int beta = 0; beta < (blocks > p->kc / XF_XSMM_BK ? 2 : 1); beta++)
                if (blocks && !(p->body[beta][i][j] = dispatch(mm[i], nn[j], XF_XSMM_BK, p, beta))) return -1;
            if (rest && !(p->tail[i][j] = dispatch(mm[i], nn[j], rest, p, blocks > 0))) return -1;
        }
    return 0;
}

int xf_xsmm_plan_slices(const xf_xsmm_plan *p) { return p->k ? (p->k + p->kc - 1) / p->kc : 1; }

void xf_xsmm_plan_tile(const xf_xsmm_plan *p, const float *a, const float *b, float *c, int i0, int j0, int s)
{
    const int k0 = s * p->kc;
    const int ie = p->m - i0 < XF_XSMM_BM, je = p->n - j0 < XF_XSMM_BN;
    const int kn = p->k - k0 < p->kc ? p->k - k0 : p->kc;
    const unsigned long long blocks = (unsigned long long)(kn / XF_XSMM_BK);
    const float *at = a + (size_t)(i0 / XF_XSMM_BM) * p->a_tile + (size_t)k0 * p->lda, *bt = b + k0 + (size_t)j0 * p->ldb;
    float *ct = c + i0 + (size_t)j0 * p->ldc;
    if (blocks) p->body[k0 > 0][ie][je](at, bt, ct, &blocks);
    if (kn % XF_XSMM_BK) {
        const unsigned long long one = 1;
        const size_t kb = blocks * XF_XSMM_BK;
        p->tail[ie][je](at + kb * p->lda, bt + kb, ct, &one);
    }
    if (p->k == 0) // no products: C is 0 (the callers add their bias)
        for (int j = 0; j < (je ? p->n - j0 : XF_XSMM_BN); j++)
            memset(ct + (size_t)j * p->ldc, 0, sizeof(float) * (size_t)(ie ? p->m - i0 : XF_XSMM_BM));
}

const char *xf_xsmm_unavailable(void)
{
    static int ready;
    const xf_simd_kernels *k = xf_simd_widest_kernels();
    if (!k) return "needs AVX2 or AVX-512 (and the avx2 or avx512 kernels for its softmax)";
    if (!ready) { // tell the JIT the ISA cap before the first dispatch
        libxsmm_init();
        if (k->isa != XF_ISA_AVX512) libxsmm_set_target_arch("hsw"); // else its own CPU detection
        ready = 1;
    }
    return NULL;
}
