// A model file's run against the outputs PyTorch stored in it
// (harness/torch_compare.c).
#ifndef XF_TORCH_COMPARE_H
#define XF_TORCH_COMPARE_H

#include <stdio.h>

#include "case.h"
#include "safetensors.h"

// If st holds PyTorch's outputs (torch.memory, torch.output), compares the
// instance's outputs and the fp64 reference with them and prints one line
// each. Returns the number of comparisons that failed (0 if none were made).
int xf_compare_with_torch(const xf_st *st, const xf_instance *in, const char *variant, FILE *out);

#endif
