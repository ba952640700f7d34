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

void xf_amx_pack(xf_bf16 *dst, int n, int k, const xf_bf16 *src, size_t col_stride, size_t k_stride, int swapped)
{
    const int panels = (n + NR - 1) / NR, kblocks = (k + TK - 1) / TK;
    for (int p = 0; p < panels; p++)
        for (int kb = 0; kb < kblocks; kb++)
            for (int half = 0; half < 2; half++)
                for (int r = 0; r < TK / 2; r++)
                    for (int j = 0; j < TC; j++)
                        for (int e = 0; e < 2; e++) {
                            const int col = p * NR + half * TC + j, kk = kb * TK + 2 * r + (swapped ? 1 - e : e);
                            *dst++ = col < n && kk < k ? src[(size_t)col * col_stride + (size_t)kk * k_stride] : 0;
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
