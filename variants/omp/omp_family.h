// The OpenMP-tiled family: every stage split across a thread team along
// the boundaries where threads share nothing they write (GEMM tiles, rows,
// flash query blocks), each piece run by the widest SIMD family this CPU
// allows (avx512, else avx2: variants/simd/kernel_table.h). The thread
// count is OpenMP's (xfbench --threads), read at prepare time
// (variants/isa/team.h).
#ifndef XF_OMP_FAMILY_H
#define XF_OMP_FAMILY_H

#include "../isa/team.h"
#include "../simd/kernel_table.h"

// Why the family cannot run here (no SIMD kernels may), or NULL; its
// kernels are then xf_simd_widest_kernels().
const char *xf_omp_unavailable(void);
// One buffer of `floats` floats per thread, 64-byte aligned, in one block
// (each rounded to whole cache lines, so threads never share a line);
// xf_omp_buffer(b, t) is thread t's.
typedef struct {
    float *base;
    size_t stride;
} xf_omp_buffers;
int xf_omp_buffers_new(xf_omp_buffers *b, int threads, size_t floats);
float *xf_omp_buffer(const xf_omp_buffers *b, int thread);

int xf_omp_linear_prepare(const void *args, void **ctx);
void xf_omp_linear_run(const void *args, void *ctx);
void xf_omp_linear_release(void *ctx);
int xf_omp_lm_head_prepare(const void *args, void **ctx);
void xf_omp_lm_head_run(const void *args, void *ctx);
int xf_omp_softmax_prepare(const void *args, void **ctx);
void xf_omp_softmax_run(const void *args, void *ctx);
int xf_omp_add_layernorm_prepare(const void *args, void **ctx);
void xf_omp_add_layernorm_run(const void *args, void *ctx);
int xf_omp_rmsnorm_prepare(const void *args, void **ctx);
void xf_omp_rmsnorm_run(const void *args, void *ctx);
void xf_omp_rows_release(void *ctx);
int xf_omp_embed_prepare(const void *args, void **ctx);
void xf_omp_embed_run(const void *args, void *ctx);
void xf_omp_embed_release(void *ctx);
int xf_omp_flash_prepare(const void *args, void **ctx);
void xf_omp_flash_run(const void *args, void *ctx);
void xf_omp_flash_release(void *ctx);
// A decode step's few query rows (decode_attention.c): run by flash when
// seq_q <= XF_FEW_ROWS.
int xf_omp_decode_attention_prepare(const void *args, void **ctx);
void xf_omp_decode_attention_run(const void *args, void *ctx);
void xf_omp_decode_attention_release(void *ctx);

#endif
