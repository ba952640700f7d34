// The one interface every implementation of a primitive stage sits behind
// (BLIS-style: one reference, many kernels). A family is a static library
// exporting a NULL-terminated table of these.
#ifndef XF_VARIANT_H
#define XF_VARIANT_H

#include "../kernels/add_layernorm.h"
#include "../kernels/attention.h"
#include "../kernels/embed.h"
#include "../kernels/linear.h"
#include "../kernels/lm_head.h"
#include "../kernels/rmsnorm.h"
#include "../kernels/softmax.h"

// How a bf16 kernel computes (xf_family.bf16_arith), in rising order of
// the roofs seen so far (AMX's above vdpbf16ps' above FMA's, except on a
// Xeon, where vdpbf16ps runs at half the FMA rate: the roofs are measured,
// never assumed, harness/rates.c).
typedef enum { XF_ARITH_FMA, XF_ARITH_DOT, XF_ARITH_AMX } xf_bf16_arith;

typedef struct xf_variant {
    xf_stage stage;
    const char *family;  // "naive", "avx2", ...; also the compound-stage selector
    const char *name;    // unique across the registry, e.g. "naive", "mutant-scale"
    const char *summary; // one line for `xfbench list`
    // The storage type it reads and writes (XF_F32 unless set): a case runs
    // the variants of its own dtype only (docs/design.md, Precision).
    xf_dtype dtype;
    // Largest error, in ulps, of the transcendental functions it uses
    // (exp, sin, cos, pow, sqrt/rsqrt); fed into the check's bound.
    double math_ulp;
    // 1: an attention that rounds its probabilities to bf16 before P V
    // (vdpbf16ps takes bf16 operands); the check's bound then carries that
    // rounding (kernels/attention_ref.c). 0: P stays in fp32.
    int p_bf16;
    // NULL if it can run on this CPU and build, else why not.
    const char *(*unavailable)(void);
    // Optional: reorder weights, JIT, allocate; outside the timed region.
    // args points to the stage's args struct (xf_<stage>_args). Returns 0 on
    // success; *ctx is then passed to run and release.
    int (*prepare)(const void *args, void **ctx);
    void (*run)(const void *args, void *ctx);
    void (*release)(void *ctx);
} xf_variant;

// One entry of a family's variant table; unavailable, prepare and release
// may be NULL. A table ends with XF_VARIANTS_END.
#define XF_VARIANT(stage_, family_, name_, summary_, math_ulp_, unavailable_, prepare_, run_, release_)    \
    {.stage = stage_, .family = family_, .name = name_, .summary = summary_, .math_ulp = math_ulp_,      \
     .unavailable = unavailable_, .prepare = prepare_, .run = run_, .release = release_}
#define XF_VARIANTS_END {.name = NULL}

// A family: one static library, its own compile flags, its variants.
typedef struct {
    const char *name;
    const char *cflags;          // as the build compiled it (XF_FAMILY_CFLAGS)
    const xf_variant *variants;  // terminated by an entry with name == NULL
    // SIMD families and naive (SSE2, the x86-64 baseline): FMA throughput
    // of their vectors on this thread, in GFLOP/s, measured for about
    // `seconds` (NULL for the others), and the instruction set it needs
    // (xf_isa, variants/isa/isa.h).
    double (*fma_gflops)(double seconds);
    // SIMD families and amx: the GEMM micro-kernel's (amx: its block of
    // four tiles') GFLOP/s with its operands in L1, the ceiling of their
    // GEMM and attention (NULL for the others).
    double (*tile_gflops)(double seconds);
    // One STREAM-triad pass a = b + 3 c in its vectors (n a multiple of 16,
    // 64-byte aligned arrays; stream: non-temporal stores), for the memory
    // roofs; NULL for the families without their own vectors.
    void (*triad)(float *a, const float *b, const float *c, long n, int stream);
    // One read-only pass: the sum of b[0..n) (n a multiple of 128, 64-byte
    // aligned), for the read roofs of what streams weights and caches
    // (decoding); NULL for the families without their own vectors.
    float (*read)(const float *b, long n);
    int isa;
    // Families with a bf16 dot product (avx512bf16: vdpbf16ps): its
    // throughput on this thread, GFLOP/s (2 flops per product and add), the
    // roof of bf16 rows (harness/peak.c); NULL for the others (bf16 rows
    // of a CPU without one are held against the fp32 FMA roof: their
    // arithmetic is fp32 FMA).
    double (*bf16_gflops)(double seconds);
    // SIMD families: columns of their GEMM's B panel (the k slice
    // follows from it: variants/isa/blocking.h); 0 for the others.
    int gemm_nr;
    // Libraries with their own thread pools (OpenBLAS, oneDNN): told the
    // --threads count; NULL for families that use OpenMP's.
    void (*set_threads)(int threads);
    // Libraries that choose their kernels by the CPU themselves (OpenBLAS,
    // oneDNN, libxsmm): the CSV column that records how they run here
    // (harness/report.c), and what to write in it: the kernels they chose
    // and, where those are below the CPU's level (xf_isa_level), why.
    // NULL for the others.
    const char *runtime_column;
    void (*runtime)(char *buf, size_t size);
    // A library whose own CPU detection can fall below the CPU (OpenBLAS
    // 0.3.21 calls a Sapphire Rapids "Prescott"): sets its environment to
    // the kernels of the CPU's level, unless the user set it; 1 if it did
    // (the library reads it when loaded: the process must restart). NULL
    // for the others.
    int (*raise_dispatch)(void);
    // The arithmetic of the family's bf16 kernels here: the bf16 dot
    // product (vdpbf16ps), AMX's (tdpbf16ps: oneDNN from avx512_core_amx),
    // or, NULL or XF_ARITH_FMA, widened to fp32 and FMA. Picks the compute
    // roof of their bf16 rows (harness/rates.c).
    xf_bf16_arith (*bf16_arith)(void);
    // 1: compiled on an emulation of its instruction set (SIMDe:
    // variants/emulated; its cflags say how), listed as "emulated",
    // checked, never timed or raced; only the test program
    // xfbench-emulated has such families. 0 for the native ones.
    int emulated;
} xf_family;

// A family compiled with -DXF_EMULATED (variants/emulated) sets .emulated.
#ifdef XF_EMULATED
#define XF_IS_EMULATED 1
#else
#define XF_IS_EMULATED 0
#endif

// Each family defines one xf_family named xf_family_<name>; the harness
// finds the families meson built through the generated xf_families.h.

#endif
