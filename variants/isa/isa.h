// Which instruction sets the SIMD families may use here: what the CPU
// reports, capped by XFBENCH_MAX_ISA (scalar | avx2 | avx512 | avx512bf16:
// avx512 leaves AVX512_BF16 out, so the bf16 families' AVX2 path runs on a
// CPU that has it), in the
// spirit of oneDNN's ONEDNN_MAX_CPU_ISA, so that the AVX2 path is tested on
// an AVX-512 machine and a missing feature shows as "unavailable", never
// as SIGILL.
#ifndef XF_ISA_H
#define XF_ISA_H

typedef enum { XF_ISA_SCALAR, XF_ISA_AVX2, XF_ISA_AVX512, XF_ISA_AVX512BF16 } xf_isa;

// NULL if XFBENCH_MAX_ISA is unset or valid, else a one-line complaint.
const char *xf_isa_env_error(void);
// 1 if XFBENCH_MAX_ISA is set: a run imitating a smaller CPU (every cap
// leaves AMX out, variants/isa/amx.h), whatever its level.
int xf_isa_capped(void);
// NULL if a family needing isa may run here, else why not.
const char *xf_isa_unavailable(xf_isa isa);

// The widest level that may run here (the CPU's, capped), and its name as
// XFBENCH_MAX_ISA spells it.
xf_isa xf_isa_level(void);
const char *xf_isa_name(xf_isa isa);

// Caps the peer libraries the same way, unless the user capped them
// already: ONEDNN_MAX_CPU_ISA, LIBXSMM_TARGET (hsw, generic) and
// OPENBLAS_CORETYPE (Haswell, Nehalem). Returns 1 if it set one: OpenBLAS
// reads its variable when it is loaded, so the caller must restart itself.
// Each variable it sets is explained in XFBENCH_WHY_<variable> (what the
// rows record: xf_peer_env_why).
int xf_isa_cap_peers(void);

// Why xfbench set a peer's variable (NULL: it did not; the value is then
// the user's own, or unset).
const char *xf_peer_env_why(const char *var);
// Sets var=value for a peer library and says why (XFBENCH_WHY_<var>).
void xf_peer_env_set(const char *var, const char *value, const char *why);

#endif
