// Packing for the amx family's tiles (tiles.h), and the ceiling of their
// block.
#include "tiles.h"

#include <stdlib.h>
#include <string.h>

#include "../isa/amx.h"
#include "../isa/caches.h"
#include "../isa/clock.h"

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

// xf_amx_block on operands kept in L1 (x's rows and one packed panel
// filling at most 3/4 of the L1d, as xf_amx_chunk sizes x's rows alone; C
// loaded and stored by every call, as in the linear's k chunks): what the
// family's GEMMs could reach if W never had to come from L2. On a Xeon
// (KVM, AMX exposed) 0.77-0.79 of the AMX roof at 8 blocks of k, 0.62-0.63
// at 16 (64 KiB of operands, past the 48 KiB L1; docs/performance.md).
double xf_amx_block_gflops(double seconds)
{
    if (xf_amx_unavailable()) return 0.0;
    int kblocks = (int)(xf_caches_get()->l1d * 3 / 4 / ((MR + NR) * TK * sizeof(xf_bf16)));
    if (kblocks < 1) kblocks = 1;
    const size_t a_elems = (size_t)MR * kblocks * TK, b_elems = (size_t)kblocks * 2 * TILE;
    xf_bf16 *a = aligned_alloc(64, a_elems * sizeof *a), *b = aligned_alloc(64, b_elems * sizeof *b);
    float *c = aligned_alloc(64, (size_t)MR * NR * sizeof *c);
    if (!a || !b || !c) {
        free(a), free(b), free(c);
        return 0.0;
    }
    // Zeros: tdpbf16ps takes as long on any operands (it flushes
    // denormals), and C stays finite.
    memset(a, 0, a_elems * sizeof *a), memset(b, 0, b_elems * sizeof *b), memset(c, 0, (size_t)MR * NR * sizeof *c);
    xf_amx_tiles_16x64();
    const long batch = 1024;
    long calls = 0;
    const double t0 = xf_now_ns();
    double t1;
    do {
        for (long i = 0; i < batch; i++) xf_amx_block(kblocks, a, (size_t)kblocks * TK, b, XF_AMX_B_KEPT, c, NR, c, NR);
        calls += batch;
        t1 = xf_now_ns();
    } while (t1 - t0 < seconds * 1e9);
    xf_amx_tiles_release();
    free(a), free(b), free(c);
    // Four tdpbf16ps a block of k: 16 x 16 outputs, 32 products each.
    return 4.0 * kblocks * TR * TC * TK * 2 * (double)calls / (t1 - t0);
}
