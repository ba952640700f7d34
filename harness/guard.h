// Output buffers fenced by guard zones, as ggml's test-backend-ops does: a
// variant that writes outside its output, or leaves part of it unwritten,
// fails its check instead of passing by luck.
#ifndef XF_GUARD_H
#define XF_GUARD_H

#include <stddef.h>

#include "../kernels/xf_common.h"

typedef struct {
    unsigned char *raw;
    float *data;    // 64-byte aligned, count elements: floats, or
    xf_bf16 *data16; // the same memory as bf16 (a bf16 output), else NULL
    size_t count;
    size_t elem;    // bytes per element: 4 or 2
} xf_guarded;

// 0 on success, -1 if out of memory.
int xf_guarded_alloc(xf_guarded *g, size_t count);
// The same for count bf16 elements (data16 set).
int xf_guarded_alloc_bf16(xf_guarded *g, size_t count);
void xf_guarded_free(xf_guarded *g);
// Fill the data with a NaN sentinel, so any element a variant does not
// write fails the comparison.
void xf_guarded_poison(xf_guarded *g);
// 1 if both guard zones still hold their pattern; else 0 and *offset is the
// first damaged element, counted from the start of data (negative: before it).
int xf_guarded_intact(const xf_guarded *g, long *offset);

#endif
