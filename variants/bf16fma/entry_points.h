// A bf16-storage family's entry points (bf16fma.h), declared from the
// family's name alone, so that code compiled without that family's ISA
// flags (the mutants, variants/mutant) can call them without including
// bf16fma.h and the fp32 family's vec.h behind it.
#ifndef XF_BF16FMA_ENTRY_POINTS_H
#define XF_BF16FMA_ENTRY_POINTS_H

// Every primitive stage but rmsnorm, each with variant.h's three entry
// points xf_<family>_<stage>_prepare, _run, _release; and the linear with
// the halves of each pair exchanged in its few-row panels (columns j and
// j + XV_W of a panel): variants/mutant's, which must fail.
#define XF_BF16_STAGES(X, family)                                                                             \
    X(family, embed) X(family, linear) X(family, add_layernorm) X(family, softmax) X(family, attention)     \
    X(family, lm_head)
// xf_<family>_<name>: every entry point's name (bf16fma.h's XF_BF_FN too).
#define XF_BF_CAT_(family, name) xf_##family##_##name
#define XF_BF_CAT(family, name) XF_BF_CAT_(family, name)
#define XF_BF16_DECLARE_STAGE_(family, stage)                                                                 \
    int XF_BF_CAT(family, stage##_prepare)(const void *args, void **ctx);                                     \
    void XF_BF_CAT(family, stage##_run)(const void *args, void *ctx);                                         \
    void XF_BF_CAT(family, stage##_release)(void *ctx);
#define XF_BF16_DECLARE_(family)                                                                              \
    XF_BF16_STAGES(XF_BF16_DECLARE_STAGE_, family)                                                            \
    int XF_BF_CAT(family, linear_prepare_pairs_swapped)(const void *args, void **ctx);
#define XF_BF16_DECLARE(family) XF_BF16_DECLARE_(family) // family expanded first

#endif
