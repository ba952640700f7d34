// Internal to variants/compose: the calls compose.c makes on an xf_exec.
#ifndef XF_EXEC_H
#define XF_EXEC_H

#include "compose.h"

void xf_exec_begin(xf_exec *ex, int preparing);
// Prepare mode: prepare the stage's variant for args (size bytes), or share
// the context of an earlier call with the very same args (a variant's
// prepare depends on its args only, and calls run one at a time). Run
// mode: run it.
void xf_exec_call(xf_exec *ex, xf_stage stage, const void *args, size_t size);
// A scratch buffer of count floats' bytes (64-byte aligned), the same one on
// every pass. Sized in floats, it also holds other types: the rows' ints
// (compose/rows.c), token ids and cache pointers (compose/decode.c), bf16
// activations (act.h).
float *xf_exec_buffer(xf_exec *ex, size_t count);
// The bf16 copy of fp32 weights w (count values, already bf16 values in a
// bf16 instance, so exact), made in prepare mode on w's first use and
// found by w after that: NULL for w NULL. The copies are untimed, as a
// variant's weight packing is.
const xf_bf16 *xf_exec_bf16(xf_exec *ex, const float *w, size_t count);

#endif
