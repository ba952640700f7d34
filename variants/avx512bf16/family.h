// The avx512bf16 family: bf16 storage and vdpbf16ps, which multiplies pairs
// of bf16 exactly and adds both products to an fp32 lane, at twice the
// fp32 FMA rate on Zen 4 (docs/design.md, Precision). Its variants: linear,
// lm_head and attention; its compositions borrow avx512bf16w's other
// kernels.
#ifndef XF_AVX512BF16_FAMILY_H
#define XF_AVX512BF16_FAMILY_H

#include "../isa/isa.h"
#include "../variant.h"

#ifdef XF_EMULATED // the same code on SIMDe (variants/emulated/simde.h), never timed
#define XF_DOT_FN(name) xf_avx512bf16_emu_##name
#define XF_DOT_NAME "avx512bf16-emu"
#define XF_DOT_VAR xf_family_avx512bf16_emu
#define XF_DOT_ISA XF_ISA_AVX2
#define XF_DOT_W_FN(name) xf_avx512bf16w_emu_##name
#else
#define XF_DOT_FN(name) xf_avx512bf16_##name
#define XF_DOT_NAME "avx512bf16"
#define XF_DOT_VAR xf_family_avx512bf16
#define XF_DOT_ISA XF_ISA_AVX512BF16
#define XF_DOT_W_FN(name) xf_avx512bf16w_##name // the bf16-storage FMA family it defers decode steps to
#endif

int XF_DOT_FN(linear_prepare)(const void *args, void **ctx);
void XF_DOT_FN(linear_run)(const void *args, void *ctx);
void XF_DOT_FN(linear_release)(void *ctx);
// A decode step's linear of at most XF_FEW_ROWS rows on the row kernel
// (linear_prepare takes it only up to 2 rows), and columns j0..j1 of such
// a call: the amx family's threads each run their share.
int XF_DOT_FN(linear_prepare_rows)(const void *args, void **ctx);
void XF_DOT_FN(linear_columns)(const void *args, void *ctx, int j0, int j1);
int XF_DOT_FN(lm_head_prepare)(const void *args, void **ctx);
void XF_DOT_FN(lm_head_run)(const void *args, void *ctx);
void XF_DOT_FN(lm_head_release)(void *ctx);
int XF_DOT_FN(attention_prepare)(const void *args, void **ctx);
void XF_DOT_FN(attention_run)(const void *args, void *ctx);
void XF_DOT_FN(attention_release)(void *ctx);
int XF_DOT_W_FN(attention_prepare)(const void *args, void **ctx);
void XF_DOT_W_FN(attention_run)(const void *args, void *ctx);
void XF_DOT_W_FN(attention_release)(void *ctx);
// The mutant (variants/mutant): the panels packed with the second pair of
// k dropped (zeros), which only the checks can see; the attention's K with
// the second pair of dk dropped.
int XF_DOT_FN(linear_prepare_dropped_pair)(const void *args, void **ctx);
int XF_DOT_FN(attention_prepare_dropped_pair)(const void *args, void **ctx);
// dst (rows, cols; row stride ldd) = bf16(src (rows, cols; row stride lds)
// times the row's scale[r]): the attention's last step, which the amx
// family's attention shares.
void XF_DOT_FN(scale_round_rows)(const float *src, int lds, const float *scale, int rows, int cols, xf_bf16 *dst,
                                 size_t ldd);
// vdpbf16ps throughput on this thread for about `seconds`, GFLOP/s (4
// flops per bf16 pair: two products, two adds).
double XF_DOT_FN(dot_gflops)(double seconds);
const char *XF_DOT_FN(unavailable)(void);

#endif
