// The AMX-BF16 roof: independent tdpbf16ps into six accumulator tiles
// (more than its latency over its issue interval, about 52 / 16 cycles on
// Sapphire Rapids; four read within 2% of six on a Xeon), the way
// tensor-core peaks are measured, so that nothing but the tile unit is
// timed (the two source tiles stay put; no loads in the loop). Written in
// inline assembly, which the assembler takes without -mamx-* flags, so the
// file builds with the rest of variants/isa on any x86-64 compiler.
// syscall() is outside POSIX (the build defines _POSIX_C_SOURCE).
#define _DEFAULT_SOURCE
#include "amx.h"

#include <stdint.h>
#include <string.h>

#include "clock.h"
#include "isa.h"

#if defined(__x86_64__) && defined(__linux__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>

// Linux's request for the tile data state (arch/x86/include/uapi/asm/prctl.h).
enum { ARCH_REQ_XCOMP_PERM = 0x1023, XFEATURE_XTILEDATA = 18 };

static int cpu_has_amx_bf16(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return (d >> 22 & 1) && (d >> 24 & 1); // AMX-BF16, AMX-TILE
}

const char *xf_amx_unavailable(void)
{
    static int state = -1; // the permission is asked once a process
    if (xf_isa_capped()) return "capped by XFBENCH_MAX_ISA";
    if (state < 0)
        state = !cpu_has_amx_bf16() ? 1 : syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) != 0 ? 2 : 0;
    return state == 1 ? "this CPU lacks AMX-BF16" : state == 2 ? "Linux refused the AMX tile state" : NULL;
}

// Palette 1: eight tiles of 16 rows x 64 bytes (16 x 32 bf16 sources, 16 x
// 16 fp32 accumulators), the largest each tdpbf16ps takes.
typedef struct {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} tile_config;

void xf_amx_tiles_16x64(void)
{
    tile_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.palette = 1;
    for (int t = 0; t < 8; t++) cfg.colsb[t] = 64, cfg.rows[t] = 16;
    __asm__ volatile("ldtilecfg %0" : : "m"(cfg));
}

void xf_amx_tiles_release(void) { __asm__ volatile("tilerelease" ::); }

double xf_amx_bf16_gflops(double seconds)
{
    if (xf_amx_unavailable()) return 0.0;
    xf_amx_tiles_16x64();
    __asm__ volatile("tilezero %%tmm0\n\ttilezero %%tmm1\n\ttilezero %%tmm2\n\ttilezero %%tmm3\n\t"
                     "tilezero %%tmm4\n\ttilezero %%tmm5\n\ttilezero %%tmm6\n\ttilezero %%tmm7" ::);
    const long batch = 1 << 14;
    long iters = 0;
    const double t0 = xf_now_ns();
    double t1;
    do {
        for (long i = 0; i < batch; i++)
            __asm__ volatile("tdpbf16ps %%tmm7, %%tmm6, %%tmm0\n\t"
                             "tdpbf16ps %%tmm7, %%tmm6, %%tmm1\n\t"
                             "tdpbf16ps %%tmm7, %%tmm6, %%tmm2\n\t"
                             "tdpbf16ps %%tmm7, %%tmm6, %%tmm3\n\t"
                             "tdpbf16ps %%tmm7, %%tmm6, %%tmm4\n\t"
                             "tdpbf16ps %%tmm7, %%tmm6, %%tmm5" ::);
        iters += batch;
        t1 = xf_now_ns();
    } while (t1 - t0 < seconds * 1e9);
    xf_amx_tiles_release();
    // Each tdpbf16ps: 16 x 16 outputs, 32 products each, 2 flops a product.
    return 6.0 * 16 * 16 * 32 * 2 * (double)iters / (t1 - t0);
}
#else
const char *xf_amx_unavailable(void) { return "AMX is x86-64 Linux only"; }
void xf_amx_tiles_16x64(void) {}
void xf_amx_tiles_release(void) {}
double xf_amx_bf16_gflops(double seconds)
{
    (void)seconds;
    return 0.0;
}
#endif
