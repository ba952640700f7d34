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
    int l3_sharing;        // CPUs that share the L3 (sysfs shared_cpu_list; 1 if unknown)
    size_t l3_core;        // the L3's share of one core: l3 / l3_sharing
} xf_caches;

// Read once: XFBENCH_CACHES=L1D,L2,L3[,SHARING] (bytes, with an optional
// K, M or G, and the CPUs sharing the L3, default 1: "32K,1M,32M,8" is a
// Zen 4 core of an 8-core CCX), which imitates another CPU's caches the
// way XFBENCH_MAX_ISA imitates its instructions; else
// sysconf(_SC_LEVEL*_CACHE_SIZE) and
// /sys/devices/system/cpu/cpu0/cache/index*/size (the smaller where both
// answer and disagree), else the defaults below; the L3's sharing from
// /sys/devices/system/cpu/cpu0/cache/index*/shared_cpu_list. A VM sees
// only its own CPUs in that list (a 2-CPU guest on a 260 MiB Xeon L3 gets
// a 130 MiB share that other guests' cores are using too): no blocking
// here counts on more than a quarter of the share.
const xf_caches *xf_caches_get(void);
// NULL if XFBENCH_CACHES is unset or valid, else a one-line complaint.
const char *xf_caches_env_error(void);

// Stated defaults when neither source knows (a common x86-64 server core).
enum { XF_DEFAULT_L1D = 32 << 10, XF_DEFAULT_L2 = 1 << 20, XF_DEFAULT_L3 = 32 << 20 };

#endif
