// The machine's measured peaks, the denominators of pct_peak: fp32 FMA
// throughput (the best SIMD family's vectors) and STREAM-triad memory
// bandwidth beyond the last-level cache, on 1 thread and on all of them.
#ifndef XF_PEAK_H
#define XF_PEAK_H

#include <stdio.h>

#include "machine.h"

typedef struct {
    int procs;                // threads of the "all" measurements
    double flops_1, flops_all; // GFLOP/s
    double bw_1, bw_all;       // GB/s
    char flops_family[16];     // the family whose vectors gave flops_*
} xf_peak;

// Measures (printing a table to log if not NULL). 0, or -1 if no SIMD
// family can run here (flops then 0).
int xf_peak_measure(xf_peak *p, double seconds, FILE *log);
// The cache file for this machine (CPU model, ISA, thread count).
void xf_peak_cache_path(char *buf, size_t size);
// $XDG_CACHE_HOME/xfbench/<file> (else ~/.cache/xfbench/<file>), and the
// directories above a path made.
void xf_cache_path(const char *file, char *buf, size_t size);
void xf_cache_mkdirs(char *path);
// 0 if the cache holds this machine's peaks.
int xf_peak_load(xf_peak *p, const xf_machine *m);
void xf_peak_save(const xf_peak *p, const xf_machine *m);

// The peak a run on `threads` threads is measured against: the 1-thread
// value, scaled by threads up to the all-thread value.
double xf_peak_flops(const xf_peak *p, int threads);
double xf_peak_bw(const xf_peak *p, int threads);

#endif
