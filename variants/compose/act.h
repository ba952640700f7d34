// The element type of a composition's activations. compose.c and decode.c
// are written once and compiled twice, for fp32 and for bf16 (the _bf16.c
// files define XF_COMPOSE_BF16 and include them), as the SIMD kernels are
// compiled once per ISA: every buffer between two primitive calls is then
// stored in the composition's dtype, and every call gets that dtype's views.
#ifndef XF_COMPOSE_ACT_H
#define XF_COMPOSE_ACT_H

#include "../../kernels/half.h"
#include "exec.h"

#ifdef XF_COMPOSE_BF16
typedef xf_bf16 xf_act;
#define XF_ACT_DTYPE XF_BF16
// The args field of this dtype's view: .XF_ACT(x) is .x16 in bf16.
#define XF_ACT(field) field##16
// Names of the pieces compose.c and decode.c share (parts.h), per dtype.
#define XF_PART(name) xf_part16_##name
// A weight as this dtype's variants read it: a bf16 copy rounded from the
// fp32 one in prepare (exec.c), the same copy for every call.
#define XF_WEIGHT(ex, w, count) xf_exec_bf16(ex, w, count)
static inline float xf_act_value(xf_act v) { return xf_bf16_to_f32(v); }
#else
typedef float xf_act;
#define XF_ACT_DTYPE XF_F32
#define XF_ACT(field) field
#define XF_PART(name) xf_part_##name
#define XF_WEIGHT(ex, w, count) ((void)(ex), (void)(count), (w))
static inline float xf_act_value(xf_act v) { return v; }
#endif

// A scratch buffer of count activations, the same one on every pass.
static inline xf_act *xf_act_buffer(xf_exec *ex, size_t count)
{
    return (xf_act *)xf_exec_buffer(ex, (count * sizeof(xf_act) + sizeof(float) - 1) / sizeof(float));
}

#endif
