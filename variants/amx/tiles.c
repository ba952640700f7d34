// Packing for the amx family's tiles (tiles.h).
#include "tiles.h"

#include <string.h>

#include "../isa/caches.h"

int xf_amx_chunk(int kblocks)
{
    int most = (int)(xf_caches_get()->l1d * 3 / 4 / (MR * TK * sizeof(xf_bf16)));
    if (most < 1) most = 1;
    const int chunks = (kblocks + most - 1) / most;
    return chunks ? (kblocks + chunks - 1) / chunks : 1;
}

// One tile, any layout, with zeros past n and k: the general case.
static void pack_tile_any(xf_bf16 *dst, int col0, int kk0, int n, int k, const xf_bf16 *src, size_t col_stride,
                          size_t k_stride, int swapped)
{
    for (int r = 0; r < TK / 2; r++)
        for (int j = 0; j < TC; j++)
            for (int e = 0; e < 2; e++) {
                const int col = col0 + j, kk = kk0 + 2 * r + (swapped ? 1 - e : e);
                *dst++ = col < n && kk < k ? src[(size_t)col * col_stride + (size_t)kk * k_stride] : 0;
            }
}

// A whole tile of a W whose rows run along k (k_stride 1: the linear's W,
// the attention's K): a pair of k is one 32-bit word of a row, so the tile
// is the 16 x 16 transpose of those words, in four rounds of shuffles:
// words, then double words interleaved within 128-bit lanes (u[4i + m],
// lane L: column 4L + m of rows 4i..4i+3), then lanes gathered twice.
// (The general loop took 15 us for one head's K at seq 512, dk 64, on a
// Xeon: an eighth of the amx attention's time there.)
static void pack_tile_rows(xf_bf16 *dst, const xf_bf16 *src, size_t col_stride, int swapped)
{
    __m512i r[TC], t[TC], u[TC];
    for (int j = 0; j < TC; j++) {
        r[j] = _mm512_loadu_si512(src + (size_t)j * col_stride);
        if (swapped) r[j] = _mm512_rol_epi32(r[j], 16);
    }
    for (int i = 0; i < TC; i += 2) {
        t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
    }
    for (int i = 0; i < TC; i += 4) {
        u[i] = _mm512_unpacklo_epi64(t[i], t[i + 2]);
        u[i + 1] = _mm512_unpackhi_epi64(t[i], t[i + 2]);
        u[i + 2] = _mm512_unpacklo_epi64(t[i + 1], t[i + 3]);
        u[i + 3] = _mm512_unpackhi_epi64(t[i + 1], t[i + 3]);
    }
    for (int m = 0; m < 4; m++) {
        const __m512i x0 = _mm512_shuffle_i32x4(u[m], u[4 + m], 0x88), x1 = _mm512_shuffle_i32x4(u[m], u[4 + m], 0xdd);
        const __m512i y0 = _mm512_shuffle_i32x4(u[8 + m], u[12 + m], 0x88),
                      y1 = _mm512_shuffle_i32x4(u[8 + m], u[12 + m], 0xdd);
        _mm512_storeu_si512(dst + (0 + m) * 2 * TC, _mm512_shuffle_i32x4(x0, y0, 0x88)); // lane 0: column m
        _mm512_storeu_si512(dst + (4 + m) * 2 * TC, _mm512_shuffle_i32x4(x1, y1, 0x88));
        _mm512_storeu_si512(dst + (8 + m) * 2 * TC, _mm512_shuffle_i32x4(x0, y0, 0xdd));
        _mm512_storeu_si512(dst + (12 + m) * 2 * TC, _mm512_shuffle_i32x4(x1, y1, 0xdd));
    }
}

// A whole tile of a W whose columns are contiguous (col_stride 1: the
// attention's V^T): row r interleaves rows 2r and 2r + 1 of k.
static void pack_tile_cols(xf_bf16 *dst, const xf_bf16 *src, size_t k_stride)
{
    const __m512i pairs = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8, 23, 7, 22,
                                           6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    for (int r = 0; r < TK / 2; r++, dst += 2 * TC) {
        const xf_bf16 *even = src + (size_t)(2 * r) * k_stride;
        const __m512i both = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const void *)even)),
                                                _mm256_loadu_si256((const void *)(even + k_stride)), 1);
        _mm512_storeu_si512(dst, _mm512_permutexvar_epi16(pairs, both));
    }
}

void xf_amx_pack(xf_bf16 *dst, int n, int k, const xf_bf16 *src, size_t col_stride, size_t k_stride, int swapped)
{
    const int panels = (n + NR - 1) / NR, kblocks = (k + TK - 1) / TK;
    for (int p = 0; p < panels; p++)
        for (int kb = 0; kb < kblocks; kb++)
            for (int half = 0; half < 2; half++, dst += TILE) {
                const int col0 = p * NR + half * TC, kk0 = kb * TK, whole = col0 + TC <= n && kk0 + TK <= k;
                if (whole && k_stride == 1)
                    pack_tile_rows(dst, src + (size_t)col0 * col_stride + kk0, col_stride, swapped);
                else if (whole && col_stride == 1 && !swapped)
                    pack_tile_cols(dst, src + col0 + (size_t)kk0 * k_stride, k_stride);
                else
                    pack_tile_any(dst, col0, kk0, n, k, src, col_stride, k_stride, swapped);
            }
}

void xf_amx_pad_rows(xf_bf16 *dst, int kpad, const xf_bf16 *src, size_t lds, int rows, int k)
{
    for (int i = 0; i < MR; i++, dst += kpad) {
        const int have = i < rows ? k : 0;
        if (have) memcpy(dst, src + (size_t)i * lds, (size_t)have * sizeof *dst);
        memset(dst + have, 0, (size_t)(kpad - have) * sizeof *dst);
    }
}
