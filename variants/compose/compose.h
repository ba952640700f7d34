// Compound stages (ffn, encoder/decoder layer, forward pass, decode_layer,
// generate) composed from whichever primitive variants are chosen, one per
// primitive stage.
//
// A composition is driven twice through the same code: once in prepare mode
// (each primitive's prepare is called with the args it will later run with,
// and scratch buffers are allocated) and then any number of times in run
// mode, where the same calls, in the same order, find their contexts and
// buffers by position. So weight packing and allocation stay outside the
// timed region, and the per-stage time breakdown comes for free.
#ifndef XF_COMPOSE_H
#define XF_COMPOSE_H

#include "../../kernels/decode.h"
#include "../variant.h"

// Bugs planted in the compositions, for tests only (xfbench-mutants
// --plant): each must fail the checks of the stages it touches.
typedef enum {
    XF_BUG_NONE,
    XF_BUG_CACHE_SHORT,      // self-attention reads one cache row short (not the new token's)
    XF_BUG_APPEND_LATE,      // the new K|V appended after self-attention read the cache
    XF_BUG_CROSS_READS_SELF, // cross-attention reads the self-attention cache
    XF_BUG_PAD_ROWS_LEFT,    // outputs at padded rows left as they were, not zeroed
} xf_compose_bug;

// Set by xfbench-mutants only: every composition plants it.
extern xf_compose_bug xf_compose_planted_bug;

typedef struct xf_ops {
    const xf_variant *op[XF_FIRST_COMPOUND]; // one variant per primitive stage
    // Optional: choose the variant per call instead (per stage and shape,
    // e.g. the autotuned best-of), in prepare mode; NULL refuses the shape.
    // math_ulp then bounds every variant pick may return.
    const xf_variant *(*pick)(void *user, xf_stage stage, const void *args);
    void *pick_user;
    double pick_math_ulp;
    int pick_p_bf16; // 1 if pick may return a variant whose p_bf16 is 1
} xf_ops;

typedef struct {
    xf_ops ops;
    int preparing;
    struct xf_exec_ctx {
        void *p;
        const xf_variant *v;
        xf_stage stage;
        void *args;  // a copy, to find later calls with the same args
        size_t size;
        int shared;  // p belongs to an earlier call
    } *ctx;             // one per primitive call, in call order
    int nctx, next_ctx;
    float **buf;        // scratch buffers, in request order
    int nbuf, next_buf;
    struct xf_exec_weight {
        const float *w;
        xf_bf16 *copy;
    } *w16;             // bf16 copies of weights (xf_exec_bf16), one per weight
    int nw16;
    const xf_bf16 **w16_calls; // the copy each xf_exec_bf16 call got, in call order
    int nw16_calls, next_w16;
    int failed;         // a prepare failed (variant unusable for this shape)
    double stage_ns[XF_FIRST_COMPOUND]; // run mode: time spent in each primitive
    long stage_calls[XF_FIRST_COMPOUND];
    char stage_variants[XF_FIRST_COMPOUND][96]; // the variants each stage ran, '+'-joined
} xf_exec;

// Builds ex for the compound stage and its args (xf_<stage>_args).
// Returns 0 on success, -1 if a primitive's prepare failed.
int xf_compose_prepare(xf_exec *ex, const xf_ops *ops, xf_stage stage, const void *args);
void xf_compose_run(xf_exec *ex, xf_stage stage, const void *args);
void xf_compose_release(xf_exec *ex);

// Largest math_ulp among the chosen primitives (for the check's bound).
double xf_ops_math_ulp(const xf_ops *ops);
// 1 if any primitive composed (or pick) rounds attention's P to bf16.
int xf_ops_p_bf16(const xf_ops *ops);

#endif
