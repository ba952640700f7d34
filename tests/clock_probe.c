// The clock probe holds (harness/clock_probe.h). Default: the register-add
// and multiply chains agree within XF_CLOCK_AGREE and read a clock between
// 0.5 and 6 GHz. With "planted": the immediate-add chain, which Golden Cove
// and later cores shortcut at rename, is rejected by the cross-check
// against the multiply chain where this core shortcuts it; where it does
// not (it reads the same clock), the test skips, saying so (exit 77).
#include <stdio.h>
#include <string.h>

#include "../harness/clock_probe.h"

int main(int argc, char **argv)
{
    const int planted = argc > 1 && !strcmp(argv[1], "planted");
#if !defined(__x86_64__)
    puts("SKIP: the chains are x86-64 assembly");
    return 77;
#endif
    // Best of 50: the VM's neighbours can only slow a chain down, and a
    // disagreement from one slowed reading would be a false failure.
    const double add = xf_chain_ghz(XF_CHAIN_ADD_REG, 50), mul = xf_chain_ghz(XF_CHAIN_IMUL, 50);
    const double imm = xf_chain_ghz(XF_CHAIN_ADD_IMM, 50);
    printf("chains: add reg %.3f GHz, imul %.3f GHz, add imm %.3f GHz\n", add, mul, imm);
    if (!planted) {
        const double clock = xf_clock_agreed(add, mul);
        if (clock == 0.0) return printf("FAILED: the register-add and multiply chains disagree\n"), 1;
        if (clock < 0.5 || clock > 6.0) return printf("FAILED: a clock of %.3f GHz is no x86-64 core's\n", clock), 1;
        printf("clock %.3f GHz: the chains agree within %.0f%%\n", clock, 100 * (XF_CLOCK_AGREE - 1));
        return 0;
    }
    if (imm <= XF_CLOCK_AGREE * mul) {
        printf("SKIP: this core runs immediate adds one a cycle (%.3f GHz against the multiply chain's %.3f): "
               "nothing to reject here\n", imm, mul);
        return 77;
    }
    if (xf_clock_agreed(imm, mul) != 0.0)
        return printf("FAILED: the eliminated immediate-add chain was accepted as a clock\n"), 1;
    printf("the immediate-add chain (%.3f GHz) is rejected against the multiply chain (%.3f GHz)\n", imm, mul);
    return 0;
}
