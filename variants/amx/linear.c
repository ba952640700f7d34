// bf16 linear on AMX: y = x W^T + b, x, W and y in bf16; tdpbf16ps
// multiplies a 16 x 32 bf16 tile of x by a 32 x 16 one of W^T (stored as
// 16 rows of 16 pairs of k) into a 16 x 16 fp32 tile, every product exact,
// each pair summed into fp32 (as vdpbf16ps does, lane by lane).
// - W is packed in prepare into panels of NR = 32 columns, per block of 32
//   k the panel's two 16-column tiles, 1 KiB each, [panel][k/32][2][16][16][2]
//   (tdpbf16ps's "VNNI" layout: row r of a tile holds pairs (2r, 2r+1) of
//   k for 16 columns), zero past n and past k.
// - A block of C of MR = 32 rows x NR columns is four accumulator tiles
//   (more than tdpbf16ps's latency over its issue interval, as the roof
//   probe found: variants/isa/amx.c), fed per block of k by two tiles of x
//   loaded in place (row stride k) and W's two; each tile loaded serves
//   two tdpbf16ps. Each accumulator starts as the bias (a tile load with
//   row stride 0 repeats one row). x is copied, zero-padded, only where a
//   tile would read past it: a last block of fewer than MR rows, or k not
//   a multiple of 32.
// - Loops, outermost first: column blocks of W sized to half the L2
//   (variants/isa/blocking.c), as the other GEMMs' are; blocks of MR rows
//   of x; chunks of k that keep those rows in L1 (xf_amx_chunk); the
//   panels, whose fp32 blocks of C carry from chunk to chunk.
// - At most XF_FEW_ROWS rows (a decode step): the weights stream, and the tile unit
//   would be 16 rows of which one works: avx512bf16's streamed kernel.
// - Threads (--threads, OpenMP): as the omp family's GEMM, each thread runs
//   these loops over its own share, of the row blocks of x where there are
//   more of them than panels of W, else of the panels (QKV at seq 512: 16
//   row blocks, 48 panels), so no thread waits for another inside a call;
//   each has its own tiles, padded copy of x and blocks of C. A decode
//   step's output columns are shared out (each weight row read once).
// Proven natively only: no emulator runs AMX (SIMDe has no tiles); the
// checks skip (exit 77) on every CPU without it.
#include <stdlib.h>
#include <string.h>

#include "../../kernels/half.h"
#include "../avx512/vec.h"
#include "../avx512bf16/family.h"
#include "../isa/amx.h"
#include "../isa/blocking.h"
#include "../isa/huge.h"
#include "../isa/team.h"
#include "../simd/kernel_table.h"
#include "family.h"
#include "tiles.h"

typedef struct {
    xf_bf16 *bp;   // W packed [panel][kblock][2][TK/2][TC][2]
    float *bias;   // b widened, zero past n (whole panels)
    xf_bf16 *pad;  // per thread, MR x kpad: x's rows of one block, zero past m and k
    float *c;      // per thread, a column block's MR x NR fp32 blocks of C, [panel][MR][NR]
    size_t pad_stride, c_stride; // elements from one thread's pad, c to the next's
    int panels, kblocks, kpad;
    int chunk;     // k blocks of one pass over a column block (x's MR rows of them stay in L1)
    int span;      // panels of one column block (half the L2)
    int threads;
    int drop_last_share; // the mutant: the last of two or more threads does nothing
    void *few;     // avx512bf16's context where m <= XF_FEW_ROWS, else NULL
} amx_ctx;

// y (rows x cols, row stride n) = bf16(relu(c)), c a finished MR x NR block of C.
static void store(const float *c, int relu, xf_bf16 *y, int n, int rows, int cols)
{
    const __m512 zero = _mm512_setzero_ps();
    xf_bf16 row[NR];
    for (int i = 0; i < rows; i++) {
        __m512 lo = _mm512_loadu_ps(c + i * NR), hi = _mm512_loadu_ps(c + i * NR + TC);
        if (relu) lo = _mm512_max_ps(lo, zero), hi = _mm512_max_ps(hi, zero);
        xf_bf16 *out = cols == NR ? y + (size_t)i * n : row;
        xv_store_bf16(out, lo);
        xv_store_bf16(out + TC, hi);
        if (cols < NR) memcpy(y + (size_t)i * n, row, (size_t)cols * sizeof *y);
    }
}

// Rows ra..rz of x (ra a multiple of MR) times panels pa..pz of W, into y;
// pad and c are the calling thread's.
static void gemm_part(const xf_linear_args *a, const amx_ctx *l, int ra, int rz, int pa, int pz, xf_bf16 *pad,
                      float *cs)
{
    const size_t panel_elems = (size_t)l->kblocks * 2 * TILE;
    for (int p0 = pa; p0 < pz; p0 += l->span) {
        const int p1 = p0 + l->span < pz ? p0 + l->span : pz;
        for (int r0 = ra; r0 < rz; r0 += MR) {
            const int rows = rz - r0 < MR ? rz - r0 : MR;
            const xf_bf16 *x = a->x16 + (size_t)r0 * a->k;
            size_t lda = (size_t)a->k;
            if (rows < MR || a->k != l->kpad) { // a tile would read past x's rows or row ends
                xf_amx_pad_rows(pad, l->kpad, x, (size_t)a->k, rows, a->k);
                x = pad, lda = (size_t)l->kpad;
            }
            for (int kb0 = 0; kb0 < l->kblocks; kb0 += l->chunk) {
                const int kbs = l->kblocks - kb0 < l->chunk ? l->kblocks - kb0 : l->chunk;
                for (int p = p0; p < p1; p++) {
                    float *c = cs + (size_t)(p - p0) * MR * NR;
                    const xf_bf16 *w = l->bp + (size_t)p * panel_elems + (size_t)kb0 * 2 * TILE;
                    xf_amx_block(kbs, x + (size_t)kb0 * TK, lda, w, XF_AMX_B_STREAMED,
                                 kb0 ? c : l->bias + (size_t)p * NR, kb0 ? NR * sizeof *c : 0, c, NR);
                    if (kb0 + kbs == l->kblocks) {
                        const int cols = a->n - p * NR < NR ? a->n - p * NR : NR;
                        store(c, a->relu, a->y16 + (size_t)r0 * a->n + (size_t)p * NR, a->n, rows, cols);
                    }
                }
            }
        }
    }
}

// x is (m,k) bf16, w (n,k) bf16 (PyTorch's layout), y (m,n) bf16
void xf_amx_linear_run(const void *args, void *ctx)
{
    const xf_linear_args *a = args;
    amx_ctx *l = ctx;
    if (l->few) {
#pragma omp parallel num_threads(l->threads)
        {
            int ja, jz; // 16 columns a unit, as the omp family's
            xf_team_columns(a->n, 16, xf_team_thread(), xf_team_size(), &ja, &jz);
            if (ja < jz) xf_avx512bf16_linear_columns(args, l->few, ja, jz);
        }
        return;
    }
#pragma omp parallel num_threads(l->threads)
    {
        const int t = xf_team_thread(), nt = xf_team_size();
        int ra, rz, pa, pz; // this thread's rows and panels
        xf_team_gemm_part(a->m, MR, l->panels, t, nt, &ra, &rz, &pa, &pz);
        if (ra < rz && pa < pz && !(l->drop_last_share && nt > 1 && t == nt - 1)) {
            xf_amx_tiles_16x64();
            gemm_part(a, l, ra, rz, pa, pz, l->pad + l->pad_stride * t, l->c + l->c_stride * t);
            xf_amx_tiles_release();
        }
    }
}

void xf_amx_linear_release(void *ctx)
{
    amx_ctx *l = ctx;
    if (!l) return;
    if (l->few) xf_avx512bf16_linear_release(l->few);
    free(l->bp), free(l->bias), free(l->pad), free(l->c);
    free(l);
}

// swapped: the mutant's bug, the two halves of every pair of k exchanged in
// the packed tiles (each output then pairs x's k with W's k+1 and back).
// drop_last_share: the other mutant's (amx_ctx).
static int prepare(const xf_linear_args *a, void **ctx, int swapped, int drop_last_share)
{
    amx_ctx *l = calloc(1, sizeof *l);
    if (!l) return -1;
    l->threads = xf_team_threads();
    l->drop_last_share = drop_last_share;
    if (a->m <= XF_FEW_ROWS) {
        if (xf_avx512bf16_linear_prepare_rows(a, &l->few)) {
            free(l);
            return -1;
        }
        *ctx = l;
        return 0;
    }
    l->panels = (a->n + NR - 1) / NR;
    l->kblocks = (a->k + TK - 1) / TK;
    l->kpad = l->kblocks * TK;
    l->bp = xf_alloc_huge(xf_amx_packed_elems(a->n, a->k) * sizeof(xf_bf16));
    l->bias = calloc((size_t)l->panels * NR, sizeof(float));
    l->chunk = xf_amx_chunk(l->kblocks);
    l->span = (int)(xf_blocking_get()->gemm_b_block / (xf_amx_packed_elems(NR, a->k) * sizeof(xf_bf16)));
    if (l->span > l->panels) l->span = l->panels;
    if (l->span < 1) l->span = 1;
    // whole cache lines a thread, so no two threads write one
    l->pad_stride = (size_t)MR * l->kpad;
    l->c_stride = (size_t)l->span * MR * NR;
    l->pad = aligned_alloc(64, l->pad_stride * l->threads * sizeof(xf_bf16));
    l->c = aligned_alloc(64, l->c_stride * l->threads * sizeof(float));
    if (!l->bp || !l->bias || !l->pad || !l->c) {
        xf_amx_linear_release(l);
        return -1;
    }
    for (int j = 0; a->b16 && j < a->n; j++) l->bias[j] = xf_bf16_to_f32(a->b16[j]);
    xf_amx_pack(l->bp, a->n, a->k, a->w16, (size_t)a->k, 1, swapped);
    *ctx = l;
    return 0;
}

int xf_amx_linear_prepare(const void *args, void **ctx) { return prepare(args, ctx, 0, 0); }
int xf_amx_linear_prepare_pairs_swapped(const void *args, void **ctx) { return prepare(args, ctx, 1, 0); }
int xf_amx_linear_prepare_last_share_dropped(const void *args, void **ctx) { return prepare(args, ctx, 0, 1); }

// lm_head: the linear with the table as its weight (xf_lm_head_as_linear).
int xf_amx_lm_head_prepare(const void *args, void **ctx)
{
    const xf_linear_args l = xf_lm_head_as_linear(args);
    return xf_amx_linear_prepare(&l, ctx);
}

// x is (rows,d), table is (vocab,d), logits are (rows,vocab), all bf16
void xf_amx_lm_head_run(const void *args, void *ctx)
{
    const xf_linear_args l = xf_lm_head_as_linear(args);
    xf_amx_linear_run(&l, ctx);
}

void xf_amx_lm_head_release(void *ctx) { xf_amx_linear_release(ctx); }
