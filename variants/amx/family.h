// The amx family: bf16 storage, Intel's AMX tile unit for the GEMMs
// (tdpbf16ps: 16 x 16 fp32 outputs a step, each the sum of 32 exact bf16
// products; variants/amx/linear.c). Its variants: linear, lm_head and
// attention; its compositions borrow the bf16 kernels it has none of
// (registry.c).
#ifndef XF_AMX_FAMILY_H
#define XF_AMX_FAMILY_H

#include "../variant.h"

int xf_amx_linear_prepare(const void *args, void **ctx);
void xf_amx_linear_run(const void *args, void *ctx);
void xf_amx_linear_release(void *ctx);
int xf_amx_lm_head_prepare(const void *args, void **ctx);
void xf_amx_lm_head_run(const void *args, void *ctx);
void xf_amx_lm_head_release(void *ctx);
int xf_amx_attention_prepare(const void *args, void **ctx);
void xf_amx_attention_run(const void *args, void *ctx);
void xf_amx_attention_release(void *ctx);
// The mutants (variants/mutant): the packed tiles with the two halves of
// every pair of k exchanged, which only the checks can see; the
// attention's packed K with those of every pair of dk.
int xf_amx_linear_prepare_pairs_swapped(const void *args, void **ctx);
// The linear whose last thread skips its share (on 2 or more threads): the
// tests on 2 threads must see it, which they would not if the team were
// one thread.
int xf_amx_linear_prepare_last_share_dropped(const void *args, void **ctx);
int xf_amx_attention_prepare_pairs_swapped(const void *args, void **ctx);
// NULL if AMX-BF16 and AVX512_BF16 (the few-row kernel, the epilogue) run
// here, else why not.
const char *xf_amx_family_unavailable(void);

#endif
