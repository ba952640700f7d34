// The AVX-512 (F/BW/VL/DQ) vocabulary the generic kernels of variants/simd
// are written in, and this family's GEMM register blocking.
#ifndef XF_VEC_AVX512_H
#define XF_VEC_AVX512_H

#include <stdint.h>

#include "../isa/isa.h"

#ifdef XF_EMULATED
// The same kernels again with every intrinsic computed by SIMDe on AVX2,
// for the checks on a CPU without AVX-512 (variants/emulated/simde.h):
// their own names, never timed.
#include "../emulated/simde.h"
#define XF_FN(name) xf_avx512_emu_##name
#define XF_FAMILY_NAME "avx512-emu"
#define XF_FAMILY_VAR xf_family_avx512_emu
#define XF_FAMILY_ISA XF_ISA_AVX2
#else
#include <immintrin.h>
#define XF_FN(name) xf_avx512_##name
#define XF_FAMILY_NAME "avx512"
#define XF_FAMILY_VAR xf_family_avx512 // its xf_family, as registry.c names it
#define XF_FAMILY_ISA XF_ISA_AVX512
#endif
// Row stride of the score tiles the fused attention feeds as A: its key
// tile. 256 rather than avx2's 128 halves the per-tile work (each row's
// max reduction, its rescaling factor and output rescale) against the
// same FMAs; the tile's K and V (64 KiB each at dk 64) stream from L2
// either way. Zen 4, seq 2048, 1 thread, with the base-2 exp: minima of
// alternating processes 88.2-90.6 ms at 128, 86.3-87.4 at 256 (and the
// vector row sums).
#define XF_UK_ROWS_LDA 256
#define XF_GEMM_DESC "6x64 zmm micro-kernel"

typedef __m512 xv;
enum { XV_W = 16 };

// GEMM micro-tile: 6 rows x 64 columns = 24 zmm accumulators, 4 for the B
// row, 1 for the broadcast A element: 29 of the 32 registers. Per k step 24
// FMAs against 4 vector loads and 6 broadcasts. Measured against 14 x 32
// (28 accumulators, 2 B loads, 14 broadcasts): the same in L1 (112-114
// GFLOP/s), 3-6% faster in the full GEMM at the Transformer-base shapes
// (fewer broadcasts, 512 rows split evenly).
enum { XF_GEMM_MR = 6, XF_GEMM_NR = 64 };
// The vectors across a micro-tile row (variants/simd/ukernel_body.h).
#define XF_UK_COLS(X, i) X(i, 0) X(i, 1) X(i, 2) X(i, 3)
// The few-row micro-tile (gemm.c, "Few rows"): up to 8 rows x 32 columns,
// 16 accumulators, 2 B loads and 8 broadcasts a k step, so a decode step
// of 5 to 8 rows reads each weight panel once.
enum { XF_GEMM_FEW_MR = 8, XF_GEMM_FEW_NR = 32 };
#define XF_UK_FEW_COLS(X, i) X(i, 0) X(i, 1)
// No prefetch in the ragged kernels of 3 to 5 rows (ukernels.c): B's
// lines 4 KiB ahead made a decode step's linear from DRAM slower (Zen 4,
// 1 thread, 128 MiB weight, k 512: 4 rows 4.11-4.61 -> 5.63-5.99 ms, 3
// rows 4.07-4.47 -> 4.42-4.99), as B 24 steps ahead had before.
enum { XF_UK_RAGGED_AHEAD = 0 };
// bf16fma's few-row tile (variants/bf16fma/linear.c): up to 8 rows x 32
// columns widened from bf16 pairs, the fp32 few-row tile's shape.
#define XF_BF16_TILE_MAX 8 // a macro: bf16fma/linear.c builds its tiles up to it

static inline xv xv_load(const float *p) { return _mm512_loadu_ps(p); }
// A vector of a stream that comes from DRAM once (decode.c's weight rows),
// loaded as two 256-bit halves: on Zen 4 that row kernel streamed a 65 MB
// matrix at 1.35x the speed of one 512-bit load a line, and decoded 1.45x
// the tokens (docs/performance.md, "Decoding"). The insert is one shuffle
// a line in a loop that waits on memory.
static inline xv xv_load_streamed(const float *p)
{
    return _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_loadu_ps(p)), _mm256_loadu_ps(p + 8), 1);
}
static inline void xv_store(float *p, xv v) { _mm512_storeu_ps(p, v); }
static inline xv xv_set1(float x) { return _mm512_set1_ps(x); }
static inline xv xv_zero(void) { return _mm512_setzero_ps(); }
static inline xv xv_add(xv a, xv b) { return _mm512_add_ps(a, b); }
static inline xv xv_sub(xv a, xv b) { return _mm512_sub_ps(a, b); }
static inline xv xv_mul(xv a, xv b) { return _mm512_mul_ps(a, b); }
static inline xv xv_max(xv a, xv b) { return _mm512_max_ps(a, b); }
static inline xv xv_fma(xv a, xv b, xv c) { return _mm512_fmadd_ps(a, b, c); }
static inline float xv_hsum(xv v) { return _mm512_reduce_add_ps(v); }
static inline float xv_hmax(xv v) { return _mm512_reduce_max_ps(v); }

static inline __mmask16 tail_mask(int n) { return (__mmask16)((1u << n) - 1u); }
// The first n < XV_W lanes from p, the others fill.
static inline xv xv_load_tail(const float *p, int n, float fill)
{
    return _mm512_mask_loadu_ps(_mm512_set1_ps(fill), tail_mask(n), p);
}
static inline void xv_store_tail(float *p, xv v, int n) { _mm512_mask_storeu_ps(p, tail_mask(n), v); }
// A store that bypasses the caches (p aligned to the vector): for output
// written once and not read again soon, it saves reading the line first.
static inline void xv_stream(float *p, xv v) { _mm512_stream_ps(p, v); }

// v with -inf in the lanes whose padding byte (pad[0..XV_W)) is non-zero.
static inline xv xv_pad_to_neg_inf(xv v, const uint8_t *pad)
{
    __m128i p = _mm_loadu_si128((const __m128i *)pad);
    return _mm512_mask_mov_ps(v, _mm_test_epi8_mask(p, p), _mm512_set1_ps(-__builtin_inff()));
}

// bf16 in and out of these vectors (the bf16 families of variants/bf16fma,
// and avx512bf16's outputs): widened exactly by a shift (bf16 is the top
// half of fp32); rounded to nearest even, NaNs kept quiet, as
// kernels/half.h's xf_bf16_from_f32 does one at a time (vcvtneps2bf16
// would flush denormal inputs to zero: the same rounding everywhere keeps
// one bound).
static inline xv xv_load_bf16(const uint16_t *p)
{
    const __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p));
    return _mm512_castsi512_ps(_mm512_slli_epi32(w, 16));
}
// A vector of 2 XV_W bf16 read as XV_W pairs (bf16fma's few-row panels
// put columns j and j + XV_W side by side): the first of each pair
// widened by a shift, the second by a mask. Two instructions for 2 XV_W
// weights, none crossing lanes, where xv_load_bf16 takes a widening
// shuffle and a shift for XV_W.
static inline xv xv_bf16_pairs_lo(xv v) { return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_castps_si512(v), 16)); }
static inline xv xv_bf16_pairs_hi(xv v)
{
    return _mm512_and_ps(v, _mm512_castsi512_ps(_mm512_set1_epi32((int)0xFFFF0000u)));
}
static inline void xv_store_bf16(uint16_t *p, xv v)
{
    const __m512i bits = _mm512_castps_si512(v);
    const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1));
    __m512i r = _mm512_add_epi32(bits, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7FFF)));
    const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    r = _mm512_mask_mov_epi32(r, nan, _mm512_or_si512(bits, _mm512_set1_epi32(0x00400000)));
    _mm256_storeu_si256((__m256i *)p, _mm512_cvtepi32_epi16(_mm512_srli_epi32(r, 16)));
}

#include "../simd/exp_poly.h"

// exp(x) for x <= 88 (simd/exp_poly.h), times 2^n by vscalefps. Arguments
// below -87.33 (where 2^n would be subnormal) and -inf give exactly 0: a
// masked score must contribute nothing.
static inline xv xv_exp(xv x)
{
    const __mmask16 tiny = _mm512_cmp_ps_mask(x, _mm512_set1_ps(XF_EXP_MIN), _CMP_LT_OQ);
    x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(XF_EXP_MIN)), _mm512_set1_ps(XF_EXP_MAX));
    xv n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(XF_EXP_LOG2E)),
                                _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    xv p = xv_exp_poly(xv_exp_reduce(x, n));
    // p * 2^n in one instruction (vscalefps) instead of building 2^n.
    return _mm512_maskz_scalef_ps((__mmask16)~tiny, p, n);
}

// 2^x for x <= 127; below XF_EXP2_MIN (and -inf) exactly 0. By a table of
// 2^(j/16) in one register (vpermps): adding 1.5 * 2^19 rounds x to
// sixteenths and leaves j, that sixteenth's index, in the low bits, so
// x = n + j/16 + r with |r| <= 1/32 exact, and 2^x = 2^n T[j] 2^r, 2^r by a
// cubic (1.6e-9 relative, fitted as exp_poly.h's; T[j] rounded, 4.7e-8 at
// worst) as T + (T r) q(r), whose last FMA is the only rounding of size.
// Four FMA-pipe instructions and vscalefps against the degree-6 route's
// seven (the fused attention's softmax competes with its micro-kernels
// for those pipes). Error measured on every float of [-126, 0] by
// tests/exp_ulp.c.
static inline xv xv_exp2(xv x)
{
    const __m512 table = _mm512_setr_ps(1.0f, 1.0442737340927124f, 1.0905077457427979f, 1.1387885808944702f,
                                        1.1892070770263672f, 1.2418577671051025f, 1.2968395948410034f,
                                        1.3542555570602417f, 1.4142135381698608f, 1.4768261909484863f,
                                        1.5422108173370361f, 1.610490322113037f, 1.6817928552627563f,
                                        1.7562521696090698f, 1.8340080976486206f, 1.9152065515518188f);
    const __mmask16 tiny = _mm512_cmp_ps_mask(x, _mm512_set1_ps(XF_EXP2_MIN), _CMP_LT_OQ);
    const xv magic = _mm512_set1_ps(786432.0f); // 1.5 * 2^19: its ulp is 1/16
    const xv t = _mm512_add_ps(x, magic);
    const xv n = _mm512_sub_ps(t, magic); // x rounded to sixteenths: n + j/16
    const xv r = _mm512_sub_ps(x, n);
    const xv tj = _mm512_permutexvar_ps(_mm512_castps_si512(t), table); // T[j], j the low 4 bits of t
    xv q = _mm512_fmadd_ps(_mm512_set1_ps(0.055502135306596756f), r, _mm512_set1_ps(0.24023428559303284f));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(0.6931471824645996f));
    const xv m = _mm512_fmadd_ps(_mm512_mul_ps(tj, r), q, tj);
    // vscalefps multiplies by 2^floor(n): the whole part, j/16 being >= 0
    return _mm512_maskz_scalef_ps((__mmask16)~tiny, m, n);
}

// The GEMM micro-kernels (variants/simd/ukernels.c): C[0..MR)[0..NR) (row
// stride ldc) = (init ? bias row or 0 : C) + A B, B packed [kc][NR]; then
// ReLU if relu. Here A is MR rows of stride XF_UK_ROWS_LDA (a score tile).
void XF_FN(gemm_ukernel_rows)(int kc, const float *a, const float *b, float *c, int ldc, int init,
                               const float *bias, int relu);
// The same with A as MR rows of run-time stride lda (the GEMM's unpacked
// row panels), prefetching into L1 the MR rows of stride lda at pf as it
// goes (the next panel; pf = a when there is none).
void XF_FN(gemm_ukernel_lda)(int kc, const float *a, long lda, const float *pf, const float *b, float *c,
                             int ldc, int init, const float *bias, int relu);

#endif
