// The compute roofs are rates per cycle (harness/peak.h), and each rule of
// that is checked on planted caches in a directory of the test's own:
// the cached roof is put at the new measurement's clock before the higher
// of the two is kept; a roof at a known clock wins over one at an unknown
// clock, either way round; a case's roof is scaled to the clock read
// around it, and left as measured where either clock is unknown; a
// roof's clock is never below what its rate needs at two FMA units.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../harness/peak.h"
#include "../harness/registry.h"

static int failures;

static void expect(const char *what, double got, double want)
{
    const int ok = fabs(got - want) <= 1e-3 * fabs(want);
    printf("%s %s: %.3f (want %.3f)\n", ok ? "ok    " : "FAILED", what, got, want);
    failures += !ok;
}

// A cache entry with every roof the loader asks for: fp32 FMA `flops` on 1
// thread (twice on all), bf16 twice that, AMX ten times, measured at `ghz`.
static xf_peak planted(double flops, double ghz)
{
    xf_peak p = {.procs = 2, .flops_1 = flops, .flops_all = 2 * flops, .bf16_1 = 2 * flops, .bf16_all = 4 * flops,
                 .amx_1 = 10 * flops, .amx_all = 20 * flops, .ghz = ghz};
    for (int l = 0; l < XF_NLEVELS; l++) p.bw_1[l] = p.bw_all[l] = p.rd_1[l] = p.rd_all[l] = p.ws[l] = 100.0;
    p.cache[0] = 32768, p.cache[1] = 1 << 20, p.cache[2] = 32 << 20;
    strcpy(p.flops_family, "avx512"), strcpy(p.bf16_family, "avx512bf16");
    return p;
}

// Saves `first`, then `second` over it; what the cache then holds.
static xf_peak saved(const xf_machine *m, xf_peak first, xf_peak second)
{
    char path[512];
    xf_peak_cache_path(path, sizeof path);
    unlink(path);
    xf_peak_save(&first, m);
    xf_peak_save(&second, m);
    xf_peak held;
    if (xf_peak_load(&held, m) != 0) {
        printf("FAILED: the cache written at %s does not load\n", path);
        exit(1);
    }
    return held;
}

int main(void)
{
    // The cache directory of this test alone, under TMPDIR (else /tmp).
    char dir[512];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/xf-roof-clock-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
    setenv("XDG_CACHE_HOME", dir, 1);
    xf_machine m;
    xf_machine_read(&m);

    // 100 GFLOP/s at 3 GHz is 133.3 at 4: it beats 120 measured at 4.
    xf_peak p = saved(&m, planted(100, 3.0), planted(120, 4.0));
    expect("an older roof at a lower clock, put at the new clock", p.flops_1, 100 * 4.0 / 3.0);
    expect("  its bf16 roof alike", p.bf16_1, 200 * 4.0 / 3.0);
    expect("  its AMX roof alike", p.amx_1, 1000 * 4.0 / 3.0);
    expect("  kept at the new clock", p.ghz, 4.0);
    // 150 at 4 GHz is 112.5 at 3: 120 measured at 3 is kept.
    p = saved(&m, planted(150, 4.0), planted(120, 3.0));
    expect("an older roof at a higher clock, below the new one there", p.flops_1, 120);
    // Unknown clocks: the known one wins, whichever is higher.
    p = saved(&m, planted(900, 0.0), planted(100, 3.0));
    expect("a new roof at a known clock over an old one at none", p.flops_1, 100);
    expect("  at its clock", p.ghz, 3.0);
    p = saved(&m, planted(100, 3.0), planted(900, 0.0));
    expect("an old roof at a known clock over a new one at none", p.flops_1, 100);
    expect("  at its clock", p.ghz, 3.0);
    p = saved(&m, planted(90, 0.0), planted(100, 0.0));
    expect("neither clock known: the higher", p.flops_1, 100);

    // An avx2 roof of 100 GFLOP/s cannot have run below 100 / 32 = 3.125
    // GHz, whatever the chains read (3.0): at a new clock of 3.125 it stays
    // 100, not the 104.2 the reading would make it.
    xf_peak avx2 = planted(100, 3.0);
    strcpy(avx2.flops_family, "avx2");
    if (xf_registry_find_family("avx2")) {
        p = saved(&m, avx2, planted(50, 3.125));
        expect("a roof's clock no lower than two FMA units need for its rate", p.flops_1, 100);
    }
    else printf("note: no avx2 family in this build: the clock floor not checked\n");

    // A case's roof at its clock.
    p = planted(100, 4.0);
    expect("a case at 2 GHz against a roof measured at 4", xf_peak_flops_at(&p, XF_F32, 1, 2.0), 50);
    expect("  a bf16 case", xf_peak_flops_at(&p, XF_BF16, 1, 2.0), 100);
    expect("  on 2 threads", xf_peak_flops_at(&p, XF_F32, 2, 2.0), 100);
    expect("  an AMX case", xf_peak_amx_at(&p, 1, 2.0), 500);
    expect("a case at an unknown clock", xf_peak_flops_at(&p, XF_F32, 1, 0.0), 100);
    p.ghz = 0;
    expect("a roof at an unknown clock", xf_peak_flops_at(&p, XF_F32, 1, 2.0), 100);

    // What the saves made: the cache file, its xfbench/ directory, dir.
    char path[600];
    xf_peak_cache_path(path, sizeof path);
    unlink(path);
    snprintf(path, sizeof path, "%s/xfbench", dir);
    if (rmdir(path) != 0 || rmdir(dir) != 0) printf("note: %s left behind\n", dir);
    printf(failures ? "%d rule(s) broken\n" : "the compute roofs are kept and scaled per cycle\n", failures);
    return failures != 0;
}
