// xfbench with the AVX-512 families compiled a second time on SIMDe
// (variants/emulated) registered beside the native ones: avx512-emu,
// avx512bf16w-emu, avx512bf16-emu and the emulated mutant. Their checks run
// on any AVX2 CPU; nothing here is timed, so only check and list run.
#include <stdio.h>
#include <string.h>

#include "../harness/app.h"
#include "../harness/registry.h"

extern const xf_family xf_family_avx512_emu, xf_family_avx512bf16w_emu, xf_family_avx512bf16_emu,
    xf_family_mutant_emu;

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "xfbench-emulated: no command (check or list)\n");
        return 2;
    }
    if (strcmp(argv[1], "check") && strcmp(argv[1], "list") && strcmp(argv[1], "--help")) {
        fprintf(stderr, "xfbench-emulated: '%s': only check and list run here (emulated kernels are never timed)\n",
                argv[1]);
        return 2;
    }
    xf_registry_add(&xf_family_avx512_emu);
    xf_registry_add(&xf_family_avx512bf16w_emu);
    xf_registry_add(&xf_family_avx512bf16_emu);
    xf_registry_add(&xf_family_mutant_emu);
    return xf_main(argc, argv);
}
