// compose.h's entry points: a compound stage runs the composition of its
// dtype (act.h), fp32 or bf16, as its args say.
#include <string.h>

#include "exec.h"

// compose.c's dispatch, compiled once per dtype (parts.h)
void xf_part_dispatch(xf_exec *ex, xf_stage stage, const void *args);
void xf_part16_dispatch(xf_exec *ex, xf_stage stage, const void *args);

// The dtype of a compound stage's args.
static xf_dtype dtype_of(xf_stage stage, const void *args)
{
    switch (stage) {
    case XF_FFN: return ((const xf_ffn_args *)args)->dtype;
    case XF_ENCODER_LAYER: return ((const xf_encoder_layer_args *)args)->dtype;
    case XF_DECODER_LAYER: return ((const xf_decoder_layer_args *)args)->dtype;
    case XF_FORWARD: return ((const xf_forward_args *)args)->dtype;
    case XF_DECODE_LAYER: return ((const xf_decode_layer_args *)args)->dtype;
    case XF_GENERATE: return ((const xf_generate_args *)args)->dtype;
    default: return XF_F32;
    }
}

static void dispatch(xf_exec *ex, xf_stage stage, const void *args)
{
    if (dtype_of(stage, args) == XF_BF16) xf_part16_dispatch(ex, stage, args);
    else xf_part_dispatch(ex, stage, args);
}

int xf_compose_prepare(xf_exec *ex, const xf_ops *ops, xf_stage stage, const void *args)
{
    memset(ex, 0, sizeof *ex);
    ex->ops = *ops;
    xf_exec_begin(ex, 1);
    dispatch(ex, stage, args);
    return ex->failed ? -1 : 0;
}

void xf_compose_run(xf_exec *ex, xf_stage stage, const void *args)
{
    xf_exec_begin(ex, 0);
    dispatch(ex, stage, args);
}
