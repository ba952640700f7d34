// Every family built into this binary, and lookups by stage and name.
#ifndef XF_REGISTRY_H
#define XF_REGISTRY_H

#include "../variants/compose/compose.h"
#include "../variants/variant.h"

// Families compiled in; tests add the mutant family before running.
void xf_registry_add(const xf_family *f);
int xf_registry_count(void);
const xf_family *xf_registry_family(int i);
const xf_family *xf_registry_find_family(const char *name);

// A primitive variant by stage and name (the first of any dtype), or NULL;
// and by stage, name and dtype (a family may name its fp32 and bf16
// variants alike: naive, dnnl).
const xf_variant *xf_registry_find(xf_stage stage, const char *name);
const xf_variant *xf_registry_find_dtype(xf_stage stage, const char *name, xf_dtype d);

// Why v cannot run here, or NULL if it can.
const char *xf_variant_unavailable(const xf_variant *v);

// Whether the compound stage calls the primitive stage prim itself
// (softmax runs inside attention; ffn calls only linear; embed only in
// forward).
int xf_compound_calls(xf_stage compound, xf_stage prim);

// Whether family f has a variant of dtype d of a primitive the compound
// stage calls (else it has no composition of that dtype).
int xf_family_composes(const xf_family *f, xf_stage compound, xf_dtype d);

// The primitives a compound stage of this family runs with in dtype d: the
// family's first available variant of dtype d of each primitive stage, then the
// "stage=variant,..." overrides in use (may be NULL). Where the family has
// no variant of a stage at all (a peer library without LayerNorm, say),
// it borrows this project's tuned kernel for threads (omp on several,
// else the widest SIMD family the CPU allows; naive only where none can
// run; in bf16 the bf16 families), each borrowing described in note (may
// be NULL). Returns 0; 1 if the family's own kernel of a stage the compound
// calls cannot run here, or it has no variant of dtype d the compound
// calls (the composition is unavailable: never run under the family's
// name), with the reason in err; -1 on a usage error, in err.
int xf_ops_for_family(const char *family, const char *use, xf_stage compound, xf_dtype d, int threads, xf_ops *ops,
                      char *note, size_t note_size, char *err, size_t err_size);
// "linear=avx512;attention=avx512-flash;...": the primitives ops composes
// for the compound stage, only those it calls.
void xf_ops_composition(const xf_ops *ops, xf_stage compound, char *buf, size_t size);

#endif
