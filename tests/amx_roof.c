// The AMX roof holds (variants/isa/amx.h): where AMX-BF16 runs, its
// measured rate per cycle (the clock from the agreed chains,
// harness/clock_probe.h) lies between the fp32 FMA's most (64 flops a
// cycle: two 16-lane FMA units; a tile unit slower than that would not be
// worth a roof) and the tile unit's own (1024: one 16 x 16 x 32 tdpbf16ps
// every 16 cycles on Sapphire Rapids), 10% over for the clock's error.
// Where AMX does not run, it skips, saying why (exit 77).
#include <stdio.h>

#include "../harness/clock_probe.h"
#include "../variants/isa/amx.h"

int main(void)
{
    const char *why = xf_amx_unavailable();
    if (why) return printf("SKIP: %s\n", why), 77;
    const double ghz = xf_clock_agreed(xf_chain_ghz(XF_CHAIN_ADD_REG, 20), xf_chain_ghz(XF_CHAIN_IMUL, 20));
    double best = 0.0;
    for (int i = 0; i < 3; i++) {
        const double r = xf_amx_bf16_gflops(0.1);
        if (r > best) best = r;
    }
    if (ghz <= 0) return printf("SKIP: the clock is unknown (the chains disagree)\n"), 77;
    const double per_cycle = best / ghz;
    printf("AMX bf16 %.1f GFLOP/s at %.3f GHz: %.0f flops a cycle\n", best, ghz, per_cycle);
    if (per_cycle <= 64 || per_cycle > 1.1 * 1024)
        return printf("FAILED: %.0f flops a cycle is outside (64, 1126]\n", per_cycle), 1;
    return 0;
}
