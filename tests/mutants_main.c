// xfbench with the deliberately broken variants of variants/mutant
// registered: the tests run it and require every mutant to FAIL.
#include "../harness/app.h"
#include "../harness/registry.h"

extern const xf_family xf_family_mutant;

int main(int argc, char **argv)
{
    xf_registry_add(&xf_family_mutant);
    return xf_main(argc, argv);
}
