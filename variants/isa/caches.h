// This CPU's data cache sizes, read at run time so that every blocking
// and threshold derived from them follows the machine it runs on, not the
// one it was tuned on.
#ifndef XF_CACHES_H
#define XF_CACHES_H

#include <stddef.h>

typedef struct {
    size_t l1d, l2, l3;    // bytes: L1 data and L2 per core, L3 in all
    const char *source[3]; // where each came from: "sysconf", "sysfs" or "default"
} xf_caches;

// Read once: sysconf(_SC_LEVEL*_CACHE_SIZE), else
// /sys/devices/system/cpu/cpu0/cache/index*/size, else the defaults below.
const xf_caches *xf_caches_get(void);

// Stated defaults when neither source knows (a common x86-64 server core).
enum { XF_DEFAULT_L1D = 32 << 10, XF_DEFAULT_L2 = 1 << 20, XF_DEFAULT_L3 = 32 << 20 };

#endif
