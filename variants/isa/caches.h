// This CPU's data cache sizes, read at run time so that every blocking
// and threshold derived from them follows the machine it runs on, not the
// one it was tuned on.
#ifndef XF_CACHES_H
#define XF_CACHES_H

#include <stddef.h>

typedef struct {
    size_t l1d, l2, l3;    // bytes: L1 data and L2 per core, L3 in all
    const char *source[3]; // where each came from: "XFBENCH_CACHES", "sysconf", "sysfs",
                           // "smaller of sysconf, sysfs" or "default"
} xf_caches;

// Read once: XFBENCH_CACHES=L1D,L2,L3 (bytes, with an optional K, M or G:
// "32K,1M,32M" is a Zen 4 core), which imitates another CPU's caches the
// way XFBENCH_MAX_ISA imitates its instructions; else
// sysconf(_SC_LEVEL*_CACHE_SIZE) and
// /sys/devices/system/cpu/cpu0/cache/index*/size (the smaller where both
// answer and disagree), else the defaults below.
const xf_caches *xf_caches_get(void);
// NULL if XFBENCH_CACHES is unset or valid, else a one-line complaint.
const char *xf_caches_env_error(void);

// Stated defaults when neither source knows (a common x86-64 server core).
enum { XF_DEFAULT_L1D = 32 << 10, XF_DEFAULT_L2 = 1 << 20, XF_DEFAULT_L3 = 32 << 20 };

#endif
