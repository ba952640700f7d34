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
const xf_family *xf_registry_family_of(const xf_variant *v);

// A primitive variant by stage and name, or NULL.
const xf_variant *xf_registry_find(xf_stage stage, const char *name);

// Why v cannot run here, or NULL if it can.
const char *xf_variant_unavailable(const xf_variant *v);

// The primitives a compound stage of this family runs with: the family's
// first available variant of each primitive stage, naive where it has none
// (each fallback described in note, which may be NULL), then the
// "stage=variant,..." overrides in use (may be NULL).
// Returns 0, or -1 with a one-line reason in err.
// Notes name only the primitives the compound stage calls.
int xf_ops_for_family(const char *family, const char *use, xf_stage compound, xf_ops *ops,
                      char *note, size_t note_size, char *err, size_t err_size);

#endif
