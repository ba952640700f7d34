// The AVX-512 intrinsics, computed without AVX-512: SIMDe (Debian
// libsimde-dev 0.7.4) under their own names (its native aliases), on the
// AVX2 and FMA the emulated families are compiled for. The kernels of
// variants/simd, variants/bf16fma and variants/avx512bf16 are compiled a
// second time against this header instead of <immintrin.h>, so that their
// checks run on any AVX2 CPU (docs/design.md, "Emulated AVX-512"). For
// correctness only: emulation says nothing about their speed, and the
// emulated families are never timed (tests/emulated_main.c runs check and
// list only; harness/best.c never races them).
//
// SIMDe 0.7.4 lacks the 9 intrinsics below; without them a call would reach
// gcc's own AVX-512 inline and fail to compile ("target specific option
// mismatch"), never silently run native code. Each is written lane by
// lane to the Intel manual's definition: the masked loads and stores touch
// only the lanes their mask selects (the kernels rely on that at row ends,
// where the other lanes may lie past the buffer), and the reductions add
// in the tree order gcc's own use (halves, then quarters, ...), so the
// rounding is the one the native build sees.
#ifndef XF_EMULATED_SIMDE_H
#define XF_EMULATED_SIMDE_H

#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>
#include <stdint.h>
#include <string.h>

static inline simde__m512 xf_emu_mask_loadu_ps(simde__m512 src, simde__mmask16 k, const void *p)
{
    float lane[16];
    simde_mm512_storeu_ps(lane, src);
    for (int i = 0; i < 16; i++)
        if (k >> i & 1) memcpy(&lane[i], (const float *)p + i, sizeof(float));
    return simde_mm512_loadu_ps(lane);
}
#define _mm512_mask_loadu_ps(src, k, p) xf_emu_mask_loadu_ps(src, k, p)
#define _mm512_maskz_loadu_ps(k, p) xf_emu_mask_loadu_ps(simde_mm512_setzero_ps(), k, p)

static inline void xf_emu_mask_storeu_ps(void *p, simde__mmask16 k, simde__m512 v)
{
    float lane[16];
    simde_mm512_storeu_ps(lane, v);
    for (int i = 0; i < 16; i++)
        if (k >> i & 1) memcpy((float *)p + i, &lane[i], sizeof(float));
}
#define _mm512_mask_storeu_ps(p, k, v) xf_emu_mask_storeu_ps(p, k, v)

// 32 lanes of 16 bits (bf16 rows), the others zero.
static inline simde__m512i xf_emu_maskz_loadu_epi16(simde__mmask32 k, const void *p)
{
    uint16_t lane[32] = {0};
    for (int i = 0; i < 32; i++)
        if (k >> i & 1) memcpy(&lane[i], (const uint16_t *)p + i, sizeof(uint16_t));
    return simde_mm512_loadu_si512(lane);
}
#define _mm512_maskz_loadu_epi16(k, p) xf_emu_maskz_loadu_epi16(k, p)

static inline float xf_emu_reduce_ps(simde__m512 v, int max)
{
    float x[16];
    simde_mm512_storeu_ps(x, v);
    for (int half = 8; half >= 1; half /= 2)
        for (int i = 0; i < half; i++) x[i] = max ? (x[i] > x[i + half] ? x[i] : x[i + half]) : x[i] + x[i + half];
    return x[0];
}
#define _mm512_reduce_add_ps(v) xf_emu_reduce_ps(v, 0)
#define _mm512_reduce_max_ps(v) xf_emu_reduce_ps(v, 1)

// A non-temporal store is an ordinary store to the program (p 64-byte
// aligned, as vmovntps requires: checked here, where the CPU would fault).
static inline void xf_emu_stream_ps(void *p, simde__m512 v)
{
    if ((uintptr_t)p % 64) __builtin_trap();
    simde_mm512_storeu_ps(p, v);
}
#define _mm512_stream_ps(p, v) xf_emu_stream_ps(p, v)

// vpmovdw: each 32-bit lane truncated to its low 16 bits.
static inline simde__m256i xf_emu_cvtepi32_epi16(simde__m512i v)
{
    uint32_t wide[16];
    uint16_t narrow[16];
    simde_mm512_storeu_si512(wide, v);
    for (int i = 0; i < 16; i++) narrow[i] = (uint16_t)wide[i];
    return simde_mm256_loadu_si256(narrow);
}
#define _mm512_cvtepi32_epi16(v) xf_emu_cvtepi32_epi16(v)

// vpmovzxwd: 16 lanes of 16 bits zero-extended to 32.
static inline simde__m512i xf_emu_cvtepu16_epi32(simde__m256i v)
{
    uint16_t narrow[16];
    uint32_t wide[16];
    simde_mm256_storeu_si256(narrow, v);
    for (int i = 0; i < 16; i++) wide[i] = narrow[i];
    return simde_mm512_loadu_si512(wide);
}
#define _mm512_cvtepu16_epi32(v) xf_emu_cvtepu16_epi32(v)

// vptestmb: bit i set where byte i of a AND b is non-zero.
static inline simde__mmask16 xf_emu_test_epi8_mask(simde__m128i a, simde__m128i b)
{
    uint8_t x[16], y[16];
    simde_mm_storeu_si128(x, a);
    simde_mm_storeu_si128(y, b);
    simde__mmask16 k = 0;
    for (int i = 0; i < 16; i++) k |= (simde__mmask16)((x[i] & y[i]) != 0) << i;
    return k;
}
#define _mm_test_epi8_mask(a, b) xf_emu_test_epi8_mask(a, b)

// vcvtneps2bf16: each lane rounded to nearest even, a denormal input read
// as zero (its sign kept), a NaN made quiet; no output is denormal.
static inline simde__m256bh xf_emu_cvtneps_pbh(simde__m512 v)
{
    float x[16];
    uint16_t y[16];
    simde_mm512_storeu_ps(x, v);
    for (int i = 0; i < 16; i++) {
        uint32_t b;
        memcpy(&b, &x[i], sizeof b);
        if ((b & 0x7F800000u) == 0) b &= 0x80000000u;
        if ((b & 0x7FFFFFFFu) > 0x7F800000u) y[i] = (uint16_t)(b >> 16 | 0x0040u);
        else y[i] = (uint16_t)((b + 0x7FFFu + (b >> 16 & 1u)) >> 16);
    }
    simde__m256bh r;
    memcpy(&r, y, sizeof r);
    return r;
}
#define _mm512_cvtneps_pbh(v) xf_emu_cvtneps_pbh(v)

#endif
