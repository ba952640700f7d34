// The avx512bf16 family: bf16 storage and vdpbf16ps, which multiplies pairs
// of bf16 exactly and adds both products to an fp32 lane, at twice the
// fp32 FMA rate on Zen 4 (docs/design.md, Precision). Its variants: linear
// and lm_head; its compositions borrow avx512bf16w's other kernels.
#ifndef XF_AVX512BF16_FAMILY_H
#define XF_AVX512BF16_FAMILY_H

#include "../variant.h"

int xf_avx512bf16_linear_prepare(const void *args, void **ctx);
void xf_avx512bf16_linear_run(const void *args, void *ctx);
void xf_avx512bf16_linear_release(void *ctx);
int xf_avx512bf16_lm_head_prepare(const void *args, void **ctx);
void xf_avx512bf16_lm_head_run(const void *args, void *ctx);
void xf_avx512bf16_lm_head_release(void *ctx);
// The mutant (variants/mutant): the panels packed with the second pair of
// k dropped (zeros), which only the checks can see.
int xf_avx512bf16_linear_prepare_dropped_pair(const void *args, void **ctx);
// vdpbf16ps throughput on this thread for about `seconds`, GFLOP/s (4
// flops per bf16 pair: two products, two adds).
double xf_avx512bf16_dot_gflops(double seconds);
const char *xf_avx512bf16_unavailable(void);

#endif
