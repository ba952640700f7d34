// Which roof a timed row is held against: the compute roof of the
// arithmetic its kernels ran (FMA, the bf16 dot product, AMX), or the
// bandwidth of the memory level holding its bytes; and what ran in it.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rates.h"
#include "registry.h"
#include "stages/stage.h"

// How the primitive variant `name` of stage s in dtype d computes bf16
// here (its family says so).
static xf_bf16_arith arith_of(xf_stage s, const char *name, xf_dtype d)
{
    const xf_variant *v = xf_registry_find_dtype(s, name, d);
    const xf_family *f = v ? xf_registry_find_family(v->family) : NULL;
    return f && f->bf16_arith ? f->bf16_arith() : XF_ARITH_FMA;
}

// The highest arithmetic any kernel of a bf16 row ran (AMX over vdpbf16ps
// over FMA): a primitive's own, or any a composition called
// (stage_variants are '+'-joined where best mixed them).
static xf_bf16_arith ran_arith(const xf_runner *r, xf_stage s, xf_dtype d)
{
    if (d != XF_BF16) return XF_ARITH_FMA;
    if (r->v) return arith_of(s, r->v->name, d);
    xf_bf16_arith top = XF_ARITH_FMA;
    for (int p = 0; p < XF_FIRST_COMPOUND; p++) {
        char name[96];
        for (const char *q = r->ex.stage_variants[p]; *q;) {
            size_t n = strcspn(q, "+");
            snprintf(name, sizeof name, "%.*s", (int)n, q);
            const xf_bf16_arith a = arith_of((xf_stage)p, name, d);
            if (a > top) top = a;
            q += n + (q[n] == '+');
        }
    }
    return top;
}

// Whose compute roof a row is held against. A bf16 row that ran on AMX
// (the amx family; oneDNN from avx512_core_amx), even in part: AMX's, the highest compute
// roof a CPU has (a oneDNN bf16 GEMM on AMX read 700-1050% of the
// vdpbf16ps roof on a Xeon); unknown (no %peak) where it was not
// measured. A bf16 row whose kernels compute with the bf16 dot product
// (vdpbf16ps; oneDNN at avx512_core_bf16): the dot product's, where it was
// measured; a composition that mixes it with FMA is held against the
// higher of the two roofs, never a flattering one (the clock scales both
// alike). A bf16 row that widens to fp32 and uses FMA (avx2bf16,
// avx512bf16w) is held against the FMA roof: on a Xeon whose vdpbf16ps
// runs at half the FMA rate, the dot product's roof would put it near
// 200%; on Zen 4, where it runs at twice, near 50%.
static xf_bf16_arith roof_arith(const xf_peak *peak, const xf_instance *in, xf_bf16_arith ran, int threads)
{
    if (ran == XF_ARITH_AMX) return XF_ARITH_AMX;
    if (ran != XF_ARITH_DOT || peak->bf16_1 <= 0) return XF_ARITH_FMA;
    return in->c.stage < XF_FIRST_COMPOUND ||
                   xf_peak_flops_of(peak, XF_BF16, threads) >= xf_peak_flops_of(peak, XF_F32, threads)
               ? XF_ARITH_DOT
               : XF_ARITH_FMA;
}

// Which roof a row is held against. Streaming stages (the descriptor's
// memory_bound) move a few bytes per flop: the bandwidth of the memory
// level that holds their working set. The rest: the roofline's attainable
// rate, min(FMA peak, that bandwidth x useful FLOPs per byte), in useful
// FLOPs (a kernel that skips masked tiles does less than the dense count,
// and a dense rate over the FMA peak would claim more than the machine can
// do). A GEMM at Transformer shapes is under the FMA roof; the same GEMM
// on a few rows (lm_head for one token, decoding) is under a bandwidth one.
xf_row_rates xf_rates_of(const xf_peak *peak, const xf_instance *in, const xf_timing *t, int threads, const xf_runner *runner)
{
    xf_row_rates r = {.roof = XF_ROOF_FMA, .pct_peak = -1.0, .useful_pct_peak = -1.0};
    if (peak->flops_1 <= 0) return r;
    // At the clock read around the timed loop, the higher of its two ends
    // (peak.h: a roof is a rate per cycle; the higher clock gives the
    // higher roof, never a flattering one)
    const xf_contention *st = &t->state;
    const double ghz =
        st->clock_before_ghz > 0 && st->clock_after_ghz > 0 ? fmax(st->clock_before_ghz, st->clock_after_ghz) : 0.0;
    r.arith = roof_arith(peak, in, ran_arith(runner, in->c.stage, in->c.dtype), threads);
    const double flops = r.arith == XF_ARITH_AMX ? xf_peak_amx_at(peak, threads, ghz)
                                                 : xf_peak_flops_at(peak, r.arith == XF_ARITH_DOT ? XF_BF16 : XF_F32,
                                                                    threads, ghz);
    if (flops <= 0) return r; // AMX ran and its roof is unknown here
    r.useful_pct_peak = 100.0 * in->useful_flops / t->median_ns / flops;
    const xf_stage_desc *desc = xf_stage_desc_of(in->c.stage);
    const xf_roof level = xf_peak_level(peak, in->bytes, threads);
    const double bw = desc->read_roof ? xf_peak_read_bw(peak, level, threads) : xf_peak_bw(peak, level, threads);
    if (!desc->memory_bound && bw * in->useful_flops / in->bytes >= flops) {
        r.pct_peak = r.useful_pct_peak;
        return r;
    }
    r.roof = level, r.read = desc->read_roof;
    r.pct_peak = 100.0 * in->bytes / t->median_ns / bw;
    return r;
}

// What ran: "stage=variant" for a primitive; for a compound stage, the
// variants each primitive stage ran with in this pass (best may pick
// several per stage: '+'-joined).
void xf_composition_of(const xf_runner *r, xf_stage s, char *buf, size_t size)
{
    if (r->v) {
        snprintf(buf, size, "%s=%s", xf_stage_name(s), r->v->name);
        return;
    }
    size_t len = 0;
    buf[0] = '\0';
    for (int p = 0; p < XF_FIRST_COMPOUND && len < size; p++)
        if (r->ex.stage_variants[p][0])
            len += (size_t)snprintf(buf + len, size - len, "%s%s=%s", len ? ";" : "",
                                    xf_stage_name((xf_stage)p), r->ex.stage_variants[p]);
}
