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
