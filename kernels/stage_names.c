#include <string.h>

#include "xf_common.h"

static const char *const names[XF_NSTAGES] = {
    [XF_EMBED] = "embed",
    [XF_LINEAR] = "linear",
    [XF_SOFTMAX] = "softmax",
    [XF_ATTENTION] = "attention",
    [XF_ADD_LAYERNORM] = "add_layernorm",
    [XF_FFN] = "ffn",
    [XF_ENCODER_LAYER] = "encoder_layer",
    [XF_DECODER_LAYER] = "decoder_layer",
    [XF_FORWARD] = "forward",
};

const char *xf_stage_name(xf_stage s)
{
    return (s >= 0 && s < XF_NSTAGES) ? names[s] : "?";
}

int xf_stage_from_name(const char *name)
{
    for (int s = 0; s < XF_NSTAGES; s++)
        if (strcmp(name, names[s]) == 0) return s;
    return -1;
}
