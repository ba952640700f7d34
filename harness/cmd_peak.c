// xfbench peak, and the roofs every timed row is held against: measured
// once per machine and build, cached (harness/peak.h), flagged when the
// machine was busy while they were measured.
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "contention.h"
#include "registry.h"
#include "../variants/isa/blocking.h"

static xf_peak peak; // the denominators of pct_peak (flops_1 == 0: unknown)

// The cached peaks of this machine, or a short measurement (then cached).
// The roofs, with the machine's state around their measurement: a roof
// measured while something else ran is too low and every row would stand
// above it. Such roofs are flagged busy (cached so, and warned of in every
// run that uses them) until a quiet measurement replaces them: a short
// measurement under a busy loop pinned to our core once left a 56 GFLOP/s
// FMA roof, 60% of this Zen 3's, in the cache for an hour.
static int measure_peak(double seconds, FILE *log)
{
    xf_snapshot before, after;
    xf_contention state;
    xf_snapshot_take(&before, 0);
    const int rc = xf_peak_measure(&peak, seconds, log);
    xf_snapshot_take(&after, 1);
    xf_contention_of(&before, &after, &state);
    peak.busy = state.contended;
    if (rc == 0 && state.contended)
        printf("# WARNING: the machine was busy while its peak was measured (%s): the roofs may be low\n", state.why);
    return rc;
}

const xf_peak *xf_app_peak(const xf_machine *m)
{
    if (xf_peak_load(&peak, m) == 0) return &peak;
    char path[512];
    xf_peak_cache_path(path, sizeof path);
    printf("# measuring this machine's peak (once; cached in %s; 'xfbench peak' measures longer)\n", path);
    fflush(stdout);
    if (measure_peak(0.3, NULL) == 0) xf_peak_save(&peak, m);
    return &peak;
}

// How the peer libraries run here, as every row records it.
void xf_print_peers(const xf_machine *m)
{
    printf("# peers:");
    for (int p = 0; p < XF_NPEER_COLUMNS; p++) printf("%s %s %s", p ? ";" : "", xf_peer_columns[p], m->peer[p]);
    putchar('\n');
}

// Per compute-bound stage, the bf16 variants that can run here by their
// arithmetic, and those of the arithmetic with the highest measured roof
// (level: vdpbf16ps and FMA within 5%, either): what --variant best should
// end up choosing among, and where this CPU has no kernel of that kind.
static void print_bf16_arithmetic(int level)
{
    static const xf_stage compute_bound[] = {XF_LINEAR, XF_LM_HEAD, XF_ATTENTION};
    const double roof[3] = {peak.flops_1, peak.bf16_1, peak.amx_1}; // by xf_bf16_arith
    for (size_t i = 0; i < sizeof compute_bound / sizeof *compute_bound; i++) {
        char list[3][256] = {"", "", ""};
        for (int f = 0; f < xf_registry_count(); f++) {
            const xf_family *fam = xf_registry_family(f);
            if (strcmp(fam->name, "naive") == 0) continue; // the baseline, never the pick
            for (const xf_variant *v = fam->variants; v->name; v++) {
                if (v->stage != compute_bound[i] || v->dtype != XF_BF16 || xf_variant_unavailable(v)) continue;
                char *l = list[fam->bf16_arith ? fam->bf16_arith() : XF_ARITH_FMA];
                size_t len = strlen(l);
                snprintf(l + len, 256 - len, "%s%s", len ? " " : "", v->name);
            }
        }
        int top = -1;
        for (int k = 0; k < 3; k++)
            if (*list[k] && roof[k] > 0 && (top < 0 || roof[k] > roof[top])) top = k;
        char pick[3 * 256] = "none";
        if (top >= 0) snprintf(pick, sizeof pick, "%s", list[top]);
        if (level && top >= 0 && top != XF_ARITH_AMX && *list[XF_ARITH_DOT] && *list[XF_ARITH_FMA])
            snprintf(pick, sizeof pick, "%s %s", list[XF_ARITH_DOT], list[XF_ARITH_FMA]);
        printf("  bf16 %-10s vdpbf16ps: %-20s AMX: %-8s FMA on widened bf16: %-24s -> %s\n",
               xf_stage_name(compute_bound[i]), *list[XF_ARITH_DOT] ? list[XF_ARITH_DOT] : "(none here)",
               *list[XF_ARITH_AMX] ? list[XF_ARITH_AMX] : "(none)", *list[XF_ARITH_FMA] ? list[XF_ARITH_FMA] : "(none here)",
               pick);
    }
}

int xf_cmd_peak(const xf_machine *m)
{
    char path[512];
    xf_peak_cache_path(path, sizeof path);
    printf("# %s | %s | %s\n", m->cpu, m->isa, m->compiler);
    xf_print_peers(m);
    if (measure_peak(1.0, stdout) != 0) {
        printf("the roofs could not be measured (out of memory?); nothing cached\n");
        return 1;
    }
    xf_peak_save(&peak, m);
    const xf_blocking *b = xf_blocking_get();
    printf("blocking from the caches (variants/isa/blocking.c): gemm B block %zu KiB, A block %zu KiB, k slice",
           b->gemm_b_block >> 10, b->gemm_a_block >> 10);
    for (int i = 0; i < xf_registry_count(); i++)
        if (xf_registry_family(i)->gemm_nr)
            printf(" %d (%s)", xf_gemm_kc(xf_registry_family(i)->gemm_nr), xf_registry_family(i)->name);
    printf("; streaming stores from %zu MiB read+written; libxsmm k slice %d; omp chunks of %zu KiB of rows\n",
           b->stream_working_set >> 20, b->xsmm_kc, b->chunk >> 10);
    if (peak.bf16_1 > 0) {
        printf("peak: bf16 dot product %.1f GFLOP/s on 1 thread (%s), %.1f on %d\n", peak.bf16_1, peak.bf16_family,
               peak.bf16_all, peak.procs);
        // Which arithmetic pays for bf16 storage here, from the two roofs:
        // the stages with dot products run at the faster one; the rest
        // have none, so widen to fp32 whatever the CPU: bf16 halves their
        // bytes, and the widening and rounding cost them instructions (the
        // bf16 softmax is bound by them on Zen 4: docs/performance.md).
        const double ratio = peak.bf16_1 / peak.flops_1;
        const int dot = ratio > 1.05, level = !dot && ratio >= 0.95;
        printf("bf16 arithmetic here: the dot product runs at %.2fx the fp32 FMA roof, so bf16 linear, lm_head and"
               " attention%s should %s; embed, softmax, add_layernorm and rmsnorm have no dot product: they widen to"
               " fp32 on any CPU (bf16 halves their bytes; widening and rounding add instructions)\n",
               ratio, peak.amx_1 > 0 ? ", where they do not run on AMX," : "",
               dot ? "compute with vdpbf16ps" : level ? "do either (the roofs are level)" : "widen to fp32 and use FMA");
        if (peak.amx_1 > 0)
            printf("bf16 on AMX here: %.1f GFLOP/s on 1 thread (%.1fx the FMA roof), %.1f on %d; the amx family and"
                   " oneDNN (from avx512_core_amx) compute on it, and their rows are held against this roof\n",
                   peak.amx_1, peak.amx_1 / peak.flops_1, peak.amx_all, peak.procs);
        print_bf16_arithmetic(level);
    }
    printf("peak: FMA %.1f GFLOP/s on 1 thread (%s), %.1f on %d; DRAM triad %.1f GB/s on 1, %.1f on %d; DRAM read"
           " %.1f GB/s on 1, %.1f on %d; cached in %s (each roof the highest measured on this machine; compute"
           " roofs per cycle, at %.2f GHz: 0 unknown)\n",
           peak.flops_1, peak.flops_family, peak.flops_all, peak.procs, peak.bw_1[XF_ROOF_DRAM],
           peak.bw_all[XF_ROOF_DRAM], peak.procs, peak.rd_1[XF_ROOF_DRAM], peak.rd_all[XF_ROOF_DRAM], peak.procs, path, peak.ghz);
    return 0;
}
