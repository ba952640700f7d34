// The core clock, read from chains of dependent integer instructions: how
// contention.c tells that the clock moved while a case was timed. Two
// chains of different instructions and latencies are timed; where they
// disagree the clock is unknown (docs/design.md, "Trusting a number").
#ifndef XF_CLOCK_PROBE_H
#define XF_CLOCK_PROBE_H

typedef enum {
    // add reg, reg: 1 cycle each on every x86-64 core seen; no core
    // removes a register-operand add at rename.
    XF_CHAIN_ADD_REG,
    // imul reg, reg: 3 cycles each on every x86-64 core since Core 2 and
    // K8 (Agner Fog's tables; uops.info for Golden Cove and Zen 4).
    XF_CHAIN_IMUL,
    // add $1, reg: 1 cycle on older cores, but Golden Cove and later
    // (Sapphire and Emerald Rapids) execute up to 5 dependent immediate
    // adds a cycle at rename, so it reads 10-17 GHz there. Kept only to
    // prove that the cross-check rejects such a chain (tests/clock_probe.c).
    XF_CHAIN_ADD_IMM,
} xf_chain;

// The chain's rate as a clock in GHz (instructions per ns times their
// latency in cycles), best of `tries` (an interruption can only slow a
// try); 0 where the chain cannot be run (not x86-64).
double xf_chain_ghz(xf_chain chain, int tries);

// Two readings of the clock from different chains: their mean where they
// agree within XF_CLOCK_AGREE, else 0 (unknown): a chain that a core
// shortcuts reads a clock that is not the core's, and no other reading
// says which of the two is right.
#define XF_CLOCK_AGREE 1.15
double xf_clock_agreed(double a_ghz, double b_ghz);

#endif
