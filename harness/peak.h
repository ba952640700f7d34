// The machine's measured roofs, the denominators of pct_peak: fp32 FMA
// throughput (the best vectors the CPU and XFBENCH_MAX_ISA allow) and the
// read+write bandwidth of each memory level (STREAM triad at a working set
// sized from the detected cache sizes), and its read-only bandwidth, on 1
// thread and on all of them.
#ifndef XF_PEAK_H
#define XF_PEAK_H

#include <stdio.h>

#include "../kernels/xf_common.h"
#include "machine.h"

typedef enum { XF_ROOF_L1, XF_ROOF_L2, XF_ROOF_L3, XF_ROOF_DRAM, XF_NLEVELS, XF_ROOF_FMA = XF_NLEVELS } xf_roof;

const char *xf_roof_name(xf_roof r); // "L1", "L2", "L3", "DRAM", "FMA"

typedef struct {
    int procs;                 // threads of the "all" measurements
    double flops_1, flops_all; // GFLOP/s
    double bw_1[XF_NLEVELS], bw_all[XF_NLEVELS]; // GB/s, triad counting (12 bytes per element)
    double rd_1[XF_NLEVELS], rd_all[XF_NLEVELS]; // GB/s of a read-only pass (4 bytes per element)
    double ws[XF_NLEVELS];     // working set each level was measured at, bytes, 1 thread
    double cache[3];           // L1d, L2 per core, L3 in all, bytes (variants/isa/caches.h)
    char flops_family[16];     // the family whose vectors gave flops_*
    double bf16_1, bf16_all;   // GFLOP/s of a bf16 dot product (vdpbf16ps), 0 where none runs
    char bf16_family[16];      // the family it was measured in, "" if none
    double amx_1, amx_all;     // GFLOP/s of AMX's bf16 dot product (tdpbf16ps), 0 where none runs
    int busy;                  // measured while the machine was busy (contention.h): roofs may be low
    // The core clock (clock_probe.h) when the compute roofs were measured,
    // GHz; 0: unknown. A KVM host's clock moves between sessions (3.36 to
    // 3.68 GHz on one Zen 4): a compute roof is a rate per cycle, held
    // against each case at the clock read around it (xf_peak_flops_at).
    double ghz;
} xf_peak;

// Measures (printing a table to log if not NULL). 0, or -1 if nothing
// could be measured.
int xf_peak_measure(xf_peak *p, double seconds, FILE *log);
// The cache file for this machine (keyed inside by CPU model, ISA, cap,
// thread count and caches; named apart for a cap, XFBENCH_CACHES or fewer
// CPUs allowed than the machine has).
void xf_peak_cache_path(char *buf, size_t size);
// <stem>.txt in the cache directory, or <stem>-<cap>-caches-...-cpusN.txt
// for such a run: what peak.txt and best.txt are named by.
void xf_run_cache_path(const char *stem, char *buf, size_t size);
// $XDG_CACHE_HOME/xfbench/<file> (else ~/.cache/xfbench/<file>), and the
// directories above a path made.
void xf_cache_path(const char *file, char *buf, size_t size);
void xf_cache_mkdirs(char *path);
// 0 if the cache holds this machine's peaks.
int xf_peak_load(xf_peak *p, const xf_machine *m);
// Caches p, each roof the highest of p's and the cache's (p updated): a
// busy host only ever slows a roof's measurement down (a neighbour's
// threads, a sibling VM's memory traffic), so the highest measured is the
// nearest the physical roof; a low one would put rows above 100%. The
// cache's compute roofs are first scaled to p's clock (both known): the
// highest rate per cycle is kept, not the fastest session's clock.
void xf_peak_save(xf_peak *p, const xf_machine *m);

// The roof a run on `threads` threads is measured against: the 1-thread
// value, scaled by threads up to the all-thread value.
double xf_peak_flops(const xf_peak *p, int threads);
// The compute roof of rows of dtype d: bf16 rows against the bf16 dot
// product's where the CPU has one (else the fp32 FMA's: the AVX2 bf16
// kernels widen to fp32 and use FMA).
double xf_peak_flops_of(const xf_peak *p, xf_dtype d, int threads);
// The same at a case's clock (ghz, as contention.h reads it around the
// timed loop; 0: unknown, the roof as measured): scaled by ghz / p->ghz.
double xf_peak_flops_at(const xf_peak *p, xf_dtype d, int threads, double ghz);
// The AMX roof at a case's clock likewise; 0 where it was not measured.
double xf_peak_amx_at(const xf_peak *p, int threads, double ghz);
double xf_peak_bw(const xf_peak *p, xf_roof level, int threads);
// The read-only roof: what bounds a stage whose traffic is reads (a decode
// step streams weights and caches and writes a few rows). On the Zen 3 of
// this project one core reads DRAM at about 2/3 of its triad rate: triad's
// reads, with its writes on the side.
double xf_peak_read_bw(const xf_peak *p, xf_roof level, int threads);
// The memory level whose roof bounds a stage that moves `bytes` per call
// on `threads` threads: the smallest level holding at least half of them
// (a working set up to twice a level's size is still served largely from
// it; a roof must bound, so the faster level is taken).
xf_roof xf_peak_level(const xf_peak *p, double bytes, int threads);

#endif
