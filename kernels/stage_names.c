#include <string.h>

#include "xf_common.h"

#define NAME_(name, NAME) [XF_##NAME] = #name,
static const char *const names[XF_NSTAGES] = {XF_STAGES(NAME_)};

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

static const char *const dtype_names[XF_NDTYPES] = {[XF_F32] = "f32", [XF_BF16] = "bf16"};

const char *xf_dtype_name(xf_dtype d) { return (d >= 0 && d < XF_NDTYPES) ? dtype_names[d] : "?"; }

int xf_dtype_from_name(const char *name)
{
    for (int d = 0; d < XF_NDTYPES; d++)
        if (strcmp(name, dtype_names[d]) == 0) return d;
    return -1;
}
