#include "clock_probe.h"
#include "../variants/isa/clock.h"

// Per try: ITERS loop trips of 32 chained instructions (about 0.2 ms of
// adds, 0.5 ms of multiplies at 3 GHz). The loop counter's own add and
// branch are independent of the chain and run beside it.
enum { ITERS = 1 << 14, CHAIN = 32 };

static double one_try(xf_chain chain)
{
#if defined(__x86_64__)
    unsigned long long x = 1, one = 1;
    const int iters = chain == XF_CHAIN_IMUL ? ITERS / 2 : ITERS;
    const double latency = chain == XF_CHAIN_IMUL ? 3.0 : 1.0;
    const double t0 = xf_now_ns();
    for (int i = 0; i < iters; i++) {
        if (chain == XF_CHAIN_ADD_REG) __asm__ volatile(".rept 32\n\tadd %1, %0\n\t.endr" : "+r"(x) : "r"(one));
        else if (chain == XF_CHAIN_IMUL) __asm__ volatile(".rept 32\n\timul %1, %0\n\t.endr" : "+r"(x) : "r"(one));
        else __asm__ volatile(".rept 32\n\tadd $1, %0\n\t.endr" : "+r"(x));
    }
    const double ns = xf_now_ns() - t0;
    return ns > 0 ? (double)iters * CHAIN * latency / ns : 0.0;
#else
    (void)chain;
    return 0.0;
#endif
}

double xf_chain_ghz(xf_chain chain, int tries)
{
    double best = 0.0;
    for (int t = 0; t < tries; t++) {
        const double ghz = one_try(chain);
        if (ghz > best) best = ghz;
    }
    return best;
}

double xf_clock_agreed(double a, double b)
{
    if (a <= 0 || b <= 0 || a > XF_CLOCK_AGREE * b || b > XF_CLOCK_AGREE * a) return 0.0;
    return (a + b) / 2;
}
