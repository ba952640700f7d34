// The AVX2 + FMA vocabulary the generic kernels of variants/simd are written
// in, and this family's GEMM register blocking.
#ifndef XF_VEC_AVX2_H
#define XF_VEC_AVX2_H

#include <immintrin.h>
#include <stdint.h>

#include "../isa/isa.h"

#define XF_FN(name) xf_avx2_##name
#define XF_FAMILY_NAME "avx2"
#define XF_FAMILY_VAR xf_family_avx2 // its xf_family, as registry.c names it
#define XF_FAMILY_ISA XF_ISA_AVX2
// Row stride of the score tiles the fused attention feeds as A.
#define XF_UK_ROWS_LDA 128
#define XF_GEMM_DESC "6x16 ymm micro-kernel"

typedef __m256 xv;
enum { XV_W = 8 };

// GEMM micro-tile: 6 rows x 16 columns = 12 ymm accumulators, 2 for the B
// row, 1 for the broadcast A element: 15 of the 16 registers. Per k step 12
// FMAs (6 cycles on two FMA pipes) against 2 loads and 6 broadcasts.
enum { XF_GEMM_MR = 6, XF_GEMM_NR = 16 };
// The vectors across a micro-tile row (variants/simd/ukernel_body.h).
#define XF_UK_COLS(X, i) X(i, 0) X(i, 1)
// No few-row micro-tile (avx512's vec.h): 8 rows of 16 columns need 16
// accumulators, all 16 registers, and 8 x 8 (one B load, 8 broadcasts, 8
// FMAs a k step) streamed a 128 MiB weight at 8 rows slower than the 6 +
// 2-row kernels (Zen 4, 1 thread: 9.8-10.3 against 8.8-8.9 ms).
// The ragged kernels of 3 to 5 rows (ukernels.c) ask for B's line this
// many bytes ahead: a decode step of that many rows streams its weight
// from DRAM through them. Zen 4 (the avx2 family), 1 thread, a 128 MiB
// weight (k 512), ms per call, none -> 4 KiB: 3 rows 5.69-6.52 ->
// 4.68-4.75, 4 rows 6.02-6.42 -> 5.18-5.28, 5 rows 6.76-6.84 -> 5.55-5.98
// (1 KiB: 5.27-5.31 and 5.59-5.69 at 3 and 4 rows). At 2 rows it was
// slower (4.43-4.79 -> 4.95-4.99), and avx512's kernels were slower with
// it at every count (vec.h there).
enum { XF_UK_RAGGED_AHEAD = 4096 };
// bf16fma's few-row tile (variants/bf16fma/linear.c): up to 6 rows x 16
// columns widened from bf16 pairs: 12 accumulators, the pair vector's two
// halves, the broadcast and the mask, all 16 registers (the pair loaded
// twice, once by the mask's vandps).
#define XF_BF16_TILE_MAX 6 // a macro: bf16fma/linear.c builds its tiles up to it

static inline xv xv_load(const float *p) { return _mm256_loadu_ps(p); }
// A vector of a stream that comes from DRAM once (avx512's vec.h says why it differs there).
static inline xv xv_load_streamed(const float *p) { return xv_load(p); }
static inline void xv_store(float *p, xv v) { _mm256_storeu_ps(p, v); }
static inline xv xv_set1(float x) { return _mm256_set1_ps(x); }
static inline xv xv_zero(void) { return _mm256_setzero_ps(); }
static inline xv xv_add(xv a, xv b) { return _mm256_add_ps(a, b); }
static inline xv xv_sub(xv a, xv b) { return _mm256_sub_ps(a, b); }
static inline xv xv_mul(xv a, xv b) { return _mm256_mul_ps(a, b); }
static inline xv xv_max(xv a, xv b) { return _mm256_max_ps(a, b); }
static inline xv xv_fma(xv a, xv b, xv c) { return _mm256_fmadd_ps(a, b, c); }

static inline float xv_hsum(xv v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

static inline float xv_hmax(xv v)
{
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

static inline __m256i tail_mask(int n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
// The first n < XV_W lanes from p, the others fill (masked lanes are not
// read, so a tail at the end of a buffer is safe).
static inline xv xv_load_tail(const float *p, int n, float fill)
{
    __m256i m = tail_mask(n);
    return _mm256_blendv_ps(_mm256_set1_ps(fill), _mm256_maskload_ps(p, m), _mm256_castsi256_ps(m));
}
static inline void xv_store_tail(float *p, xv v, int n) { _mm256_maskstore_ps(p, tail_mask(n), v); }
// A store that bypasses the caches (p aligned to the vector): for output
// written once and not read again soon, it saves reading the line first.
static inline void xv_stream(float *p, xv v) { _mm256_stream_ps(p, v); }

// v with -inf in the lanes whose padding byte (pad[0..XV_W)) is non-zero.
static inline xv xv_pad_to_neg_inf(xv v, const uint8_t *pad)
{
    __m256i w = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)pad));
    __m256 m = _mm256_castsi256_ps(_mm256_cmpgt_epi32(w, _mm256_setzero_si256()));
    return _mm256_blendv_ps(v, _mm256_set1_ps(-__builtin_inff()), m);
}

// bf16 in and out of these vectors (the bf16 families of variants/bf16fma):
// widened exactly by a shift (bf16 is the top half of fp32); rounded to
// nearest even as kernels/half.h's xf_bf16_from_f32 does one at a time:
// adding 0x7FFF plus the lowest kept bit carries into the kept half
// exactly when rounding goes up; NaNs are kept quiet instead (the carry
// could turn a NaN into infinity).
static inline xv xv_load_bf16(const uint16_t *p)
{
    const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}
// A vector of 2 XV_W bf16 read as XV_W pairs (bf16fma's few-row panels
// put columns j and j + XV_W side by side): the first of each pair
// widened by a shift, the second by a mask. Two instructions for 2 XV_W
// weights, none crossing lanes, where xv_load_bf16 takes a widening
// shuffle and a shift for XV_W. The mask rather than two shifts: on
// Intel's ports the shifts share p0 and p1 with the FMAs and the mask
// need not (llvm-mca, scripts/mca: the 6-row tile at 80% of the FMA roof
// with shifts, 92% with the mask, Skylake-X and Sapphire Rapids); on Zen 4
// level (4 / 6 / 8 rows 2.98-3.53 / 4.10-4.20 / 7.04-7.13 ms against
// 3.20-3.40 / 4.07-4.33 / 6.71-7.01).
static inline xv xv_bf16_pairs_lo(xv v) { return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(v), 16)); }
static inline xv xv_bf16_pairs_hi(xv v)
{
    return _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32((int)0xFFFF0000u)));
}
static inline void xv_store_bf16(uint16_t *p, xv v)
{
    const __m256i bits = _mm256_castps_si256(v);
    const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
    __m256i r = _mm256_add_epi32(bits, _mm256_add_epi32(odd, _mm256_set1_epi32(0x7FFF)));
    const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    r = _mm256_blendv_epi8(r, _mm256_or_si256(bits, _mm256_set1_epi32(0x00400000)), nan);
    r = _mm256_srli_epi32(r, 16);
    _mm_storeu_si128((__m128i *)p, _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1)));
}

#include "../simd/exp_poly.h"

// exp(x) for x <= 88 (simd/exp_poly.h; callers pass max-subtracted
// arguments, <= 0); below -87.33 and -inf give 0. n = round(x log2 e) by
// the magic-number addition: x log2 e + 1.5 * 2^23 rounds to an integer
// whose low mantissa bits are n (+ 127, folded into the constant), so one
// FMA rounds, one subtraction gives n as a float, and one shift puts
// n + 127 into the exponent field of 2^n: three instructions instead of
// mul, round, convert, add and shift (17 against 20 per vector, 9-13% of
// the fused attention's time is exp).
static inline xv xv_exp(xv x)
{
    const __m256 tiny = _mm256_cmp_ps(x, _mm256_set1_ps(XF_EXP_MIN), _CMP_LT_OQ);
    x = _mm256_max_ps(x, _mm256_set1_ps(XF_EXP_MIN));
    const __m256 magic = _mm256_set1_ps(12582912.0f + 127.0f); // 1.5 * 2^23 + the exponent bias
    const __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(XF_EXP_LOG2E), magic);
    const xv n = _mm256_sub_ps(t, magic);
    const xv p = xv_exp_poly(xv_exp_reduce(x, n));
    const __m256i e = _mm256_slli_epi32(_mm256_castps_si256(t), 23); // (n + 127) << 23: 2^n
    return _mm256_andnot_ps(tiny, _mm256_mul_ps(p, _mm256_castsi256_ps(e)));
}

// 2^x for x <= 127; below XF_EXP2_MIN (and -inf) exactly 0. By a table of
// 2^(j/8) in one register (vpermps), as avx512's by sixteenths: adding
// 1.5 * 2^20 rounds x to eighths, x = n + j/8 + r with |r| <= 1/16 exact,
// and leaves in t's low bits 2^22 + 8n + j, so j indexes the table and t
// shifted right by 3 then left by 23 is n in the exponent field (the
// higher bits fall off), added to T[j] 2^r's bits as an integer. 2^r by a
// cubic fitted as exp_poly.h's (2.7e-8 relative with its coefficients
// rounded). Against the degree-6 route: four FMA-pipe instructions
// instead of eight, and a dependency chain about 24 cycles long instead
// of 45 (Zen 3/4 FMA latency 4), which the softmax loop waited on
// (xv_exp2's vandnps held 25% of the fused attention's own samples). No
// clamp: lanes below XF_EXP2_MIN (-inf, which gives NaN in r, included)
// are zeroed whatever the arithmetic made of them, and from XF_EXP2_MIN
// up n >= -126 with T[j] 2^r >= 1, so the integer add never leaves the
// normal range. Error measured on every float of [-126, 0] by
// tests/exp_ulp.c.
static inline xv xv_exp2(xv x)
{
    const __m256 table = _mm256_setr_ps(1.0f, 1.0905077457427979f, 1.1892070770263672f, 1.2968395948410034f,
                                        1.4142135381698608f, 1.5422108173370361f, 1.6817928552627563f,
                                        1.8340080976486206f);
    const __m256 tiny = _mm256_cmp_ps(x, _mm256_set1_ps(XF_EXP2_MIN), _CMP_LT_OQ);
    const __m256 magic = _mm256_set1_ps(1572864.0f); // 1.5 * 2^20: its ulp is 1/8
    const __m256 t = _mm256_add_ps(x, magic);
    const __m256 r = _mm256_sub_ps(x, _mm256_sub_ps(t, magic));
    const __m256i ti = _mm256_castps_si256(t);
    const __m256 tj = _mm256_permutevar8x32_ps(table, ti); // T[j], j the low 3 bits of t
    __m256 q = _mm256_fmadd_ps(_mm256_set1_ps(0.0554962232708931f), r, _mm256_set1_ps(0.2402576357126236f));
    q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(0.6931472420692444f));
    const __m256 m = _mm256_fmadd_ps(_mm256_mul_ps(tj, r), q, tj);
    const __m256i n = _mm256_slli_epi32(_mm256_srai_epi32(ti, 3), 23);
    return _mm256_andnot_ps(tiny, _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(m), n)));
}

// The GEMM micro-kernels (variants/simd/ukernels.c): C[0..MR)[0..NR) (row
// stride ldc) = (init ? bias row or 0 : C) + A B, B packed [kc][NR]; then
// ReLU if relu. Here A is MR rows of stride XF_UK_ROWS_LDA (a score tile).
void xf_avx2_gemm_ukernel_rows(int kc, const float *a, const float *b, float *c, int ldc, int init,
                              const float *bias, int relu);
// The same with A as MR rows of run-time stride lda (the GEMM's unpacked
// row panels), prefetching into L1 the MR rows of stride lda at pf as it
// goes (the next panel; pf = a when there is none).
void xf_avx2_gemm_ukernel_lda(int kc, const float *a, long lda, const float *pf, const float *b, float *c,
                            int ldc, int init, const float *bias, int relu);

#endif
