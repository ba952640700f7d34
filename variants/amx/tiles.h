// What the amx family's GEMMs share (variants/amx/linear.c, attention.c):
// one product y = x W^T, where W (n,k) is packed into AMX's pair tiles and
// x is read by strided tile loads, blocked as 2 x 2 tiles of C.
#ifndef XF_AMX_TILES_H
#define XF_AMX_TILES_H

#include <stddef.h>

#include <immintrin.h>

#include "../../kernels/xf_common.h"

// A tile: TR rows of TK bf16 (x) or of TC pairs of k (W), or TR x TC fp32
// (C). A block of C: MR x NR, four accumulator tiles. TILE: bf16 elements
// of one packed W tile (1 KiB).
enum { TR = 16, TK = 32, TC = 16, MR = 2 * TR, NR = 2 * TC, TILE = TK * TC };

// The packed size of an (n,k) W: panels of NR columns, each kblocks blocks
// of k of two tiles.
static inline size_t xf_amx_packed_elems(int n, int k)
{
    return (size_t)((n + NR - 1) / NR) * ((k + TK - 1) / TK) * 2 * TILE;
}

// dst (xf_amx_packed_elems(n,k)) = W packed [panel][k/TK][2][TK/2][TC][2]
// (tdpbf16ps's layout: row r of a tile holds pairs (2r, 2r+1) of k for TC
// columns), zero past n and k, where W's element (col, kk) is
// src[col * col_stride + kk * k_stride] (PyTorch's (n,k) weight: k, 1; the
// transpose of a (k,n) matrix: 1, n). swapped: a mutant's bug, the two
// halves of every pair exchanged.
void xf_amx_pack(xf_bf16 *dst, int n, int k, const xf_bf16 *src, size_t col_stride, size_t k_stride, int swapped);

// dst (MR, kpad) = the first rows of src (rows, k; row stride lds), zero
// past rows and k: a block of x a tile may read whole.
void xf_amx_pad_rows(xf_bf16 *dst, int kpad, const xf_bf16 *src, size_t lds, int rows, int k);

// Blocks of k in one chunk of a product over kblocks of them: equal chunks
// whose MR rows of x fill at most 3/4 of the L1 (caches.h), so that every
// panel that meets them reads them from L1 while W streams past with the
// non-temporal hint. (Xeon, 48 KiB L1: the linear's k 512 in one chunk of
// 32 KiB read 0.69-0.71 ms for QKV at seq 512, in chunks of 24 + 8 KiB
// 0.79-0.81.)
int xf_amx_chunk(int kblocks);

// GFLOP/s of xf_amx_block with its operands in L1, on the calling thread
// (0 where AMX does not run): the ceiling `xfbench peak` prints beside the
// AMX roof.
double xf_amx_block_gflops(double seconds);

// c (MR x NR fp32, row stride ldc) = c0 + a b: a is MR rows of x (row
// stride lda elements), b one packed panel, kblocks blocks of k; c0 is c
// (c0_stride ldc * 4 bytes: a k chunk after the first), a row repeated on
// every row (c0_stride 0: the bias), or NULL for zeros. Each source tile
// is reloaded as soon as its last tdpbf16ps of the step has been issued
// (the tile registers are not renamed: a load into a source tile waits
// for the instructions reading it). Measured on a Xeon (KVM, AMX),
// scratch loop over 48 panels x 16 row blocks at k 512: 34-37% of the AMX
// roof loaded in order, 46-50% so. b's tiles are loaded per b_hint:
// - XF_AMX_B_STREAMED, the non-temporal hint (tileloaddt1), for the
//   linear's W: x's rows, reused by every panel, stay in L1 (same Xeon,
//   seq 512, 1 thread, against plain loads: QKV 0.73-0.77 ms against
//   0.82-0.90, FFN1 1.10-1.15 against 1.15-1.20; FFN2, k 2048, 1.07-1.12
//   against 0.98-1.06, left streamed with the others);
// - XF_AMX_B_KEPT, plain tileloadd, for the attention's packed K and V,
//   which every query block of the head reads again: at seq 2048 (256
//   KiB each a head), 1 thread, 27.2-27.9 ms streamed against 22.1-23.1
//   kept (docs/performance.md).
// Needs the tiles configured (xf_amx_tiles_16x64).
typedef enum { XF_AMX_B_STREAMED, XF_AMX_B_KEPT } xf_amx_b_hint;
// A macro: the tile number must reach the instruction as a constant.
#define XF_AMX_LOAD_B(tile, src, stride, kept)                                                                  \
    do {                                                                                                       \
        if (kept)                                                                                              \
            _tile_loadd(tile, src, stride);                                                                    \
        else                                                                                                   \
            _tile_stream_loadd(tile, src, stride);                                                             \
    } while (0)
static inline void xf_amx_block(int kblocks, const xf_bf16 *a, size_t lda, const xf_bf16 *b, xf_amx_b_hint b_hint,
                                const float *c0, size_t c0_stride, float *c, size_t ldc)
{
    const size_t stride = lda * sizeof *a, wstride = TC * 2 * sizeof *b, cstride = ldc * sizeof *c;
    if (c0) {
        const float *lower = c0 + (c0_stride ? TR * ldc : 0);
        _tile_loadd(0, c0, c0_stride);
        _tile_loadd(1, c0 + TC, c0_stride);
        _tile_loadd(2, lower, c0_stride);
        _tile_loadd(3, lower + TC, c0_stride);
    } else {
        _tile_zero(0);
        _tile_zero(1);
        _tile_zero(2);
        _tile_zero(3);
    }
    _tile_loadd(4, a, stride);
    const int kept = b_hint == XF_AMX_B_KEPT;
    XF_AMX_LOAD_B(6, b, wstride, kept);
    for (int kb = 0; kb < kblocks; kb++, a += TK, b += 2 * TILE) {
        XF_AMX_LOAD_B(7, b + TILE, wstride, kept);
        _tile_dpbf16ps(0, 4, 6);
        _tile_loadd(5, a + TR * lda, stride);
        _tile_dpbf16ps(1, 4, 7);
        if (kb + 1 < kblocks) _tile_loadd(4, a + TK, stride);
        _tile_dpbf16ps(2, 5, 6);
        if (kb + 1 < kblocks) XF_AMX_LOAD_B(6, b + 2 * TILE, wstride, kept);
        _tile_dpbf16ps(3, 5, 7);
    }
    _tile_stored(0, c, cstride);
    _tile_stored(1, c + TC, cstride);
    _tile_stored(2, c + TR * ldc, cstride);
    _tile_stored(3, c + TR * ldc + TC, cstride);
}

#endif
