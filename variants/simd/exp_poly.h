// The exp both SIMD families share, the one copy of its constants, after
// Cephes' expf (Moshier): exp(x) = 2^n exp(r), n = round(x log2 e),
// r = x - n ln2 with ln2 in two parts (Cody and Waite) so r is nearly
// exact, and exp(r) for |r| <= ln2/2 by a polynomial of degree 6. Each
// vec.h includes this after its vocabulary (xv_set1, xv_fma, xv_mul,
// xv_add) and does the rounding and the scaling by 2^n in its own
// instructions. Error measured on every float of [-87.33, 0] by
// tests/exp_ulp.c: XF_SIMD_EXP_ULP (variants/simd/kernel_table.h).
#ifndef XF_EXP_POLY_H
#define XF_EXP_POLY_H

// Below XF_EXP_MIN 2^n would be subnormal: such arguments (and -inf) give
// exactly 0, so a masked score contributes nothing. Above XF_EXP_MAX exp
// overflows (avx512 clamps there; avx2 does not, and gives garbage from
// 88.7 on): softmax never gets there (its arguments are <= 0).
#define XF_EXP_MIN -87.33654f
#define XF_EXP_MAX 88.0f
#define XF_EXP_LOG2E 1.44269504088896341f
#define XF_EXP_LN2_HI 0.693359375f // 8 significant bits: n * LN2_HI is exact
#define XF_EXP_LN2_LO -2.12194440e-4f

// r = x - n ln2, in two steps.
static inline xv xv_exp_reduce(xv x, xv n)
{
    xv r = xv_fma(n, xv_set1(-XF_EXP_LN2_HI), x);
    return xv_fma(n, xv_set1(-XF_EXP_LN2_LO), r);
}

// exp(r) for |r| <= ln2/2: 1 + r + r^2 P(r), P of degree 4 fitted for the
// least maximum relative error (Lawson's iteration on 4000 Chebyshev
// points, coefficients rounded to float): 3.8e-9, 0.03 ulp, so the
// reduction and the final roundings make the error. Cephes' P of degree
// 5 costs one FMA more per vector for nothing measurable (1.26 ulp both).
static inline xv xv_exp_poly(xv r)
{
    xv p = xv_set1(1.381461275741458e-3f);
    p = xv_fma(p, r, xv_set1(8.368710055947304e-3f));
    p = xv_fma(p, r, xv_set1(4.166838899254799e-2f));
    p = xv_fma(p, r, xv_set1(1.666652113199234e-1f));
    p = xv_fma(p, r, xv_set1(4.999999403953552e-1f));
    return xv_fma(p, xv_mul(r, r), xv_add(r, xv_set1(1.0f)));
}

// Both families' xv_exp2 (the fused attention's, base 2) are table-driven
// and fit their own cubics (each vec.h); this is the floor they share.
#define XF_EXP2_MIN -126.0f // below, 2^x is subnormal: flushed to exactly 0

#endif
