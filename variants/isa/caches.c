#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caches.h"

// CPUs in a shared_cpu_list such as "0-3,8-11"; 0 if unreadable.
static int count_cpus(FILE *f)
{
    int n = 0, a, b;
    char sep;
    while (fscanf(f, "%d", &a) == 1) {
        b = a;
        if (fscanf(f, "%c", &sep) == 1 && sep == '-') {
            if (fscanf(f, "%d", &b) != 1) return 0;
            if (fscanf(f, "%c", &sep) != 1) sep = '\n';
        }
        n += b >= a ? b - a + 1 : 0;
        if (sep != ',') break;
    }
    return n;
}

// sysfs: index*/level and type say which cache a directory describes,
// size reads like "48K" or "32M"; *sharing (if not NULL) the CPUs in its
// shared_cpu_list.
static size_t sysfs_size(int level, int *sharing)
{
    for (int i = 0; i < 8; i++) {
        char path[96], type[32] = "";
        int lv = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        FILE *f = fopen(path, "r");
        if (!f) break;
        int ok = fscanf(f, "%d", &lv) == 1;
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if (!ok || lv != level || !(f = fopen(path, "r"))) continue;
        ok = fscanf(f, "%31s", type) == 1;
        fclose(f);
        if (!ok || !strcmp(type, "Instruction")) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (!(f = fopen(path, "r"))) continue;
        unsigned long n = 0;
        char unit = 0;
        ok = fscanf(f, "%lu%c", &n, &unit) >= 1;
        fclose(f);
        if (!ok || !n) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", i);
        if (sharing && (f = fopen(path, "r"))) {
            *sharing = count_cpus(f);
            fclose(f);
        }
        return unit == 'K' ? n << 10 : unit == 'M' ? n << 20 : unit == 'G' ? n << 30 : n;
    }
    return 0;
}

// Where glibc's sysconf and the kernel's sysfs disagree, the smaller: glibc
// 2.36 on a Zen 3 under KVM reports a 256 MiB L3 (eight CCXs' worth) where
// sysfs and lscpu say 32 MiB, and blocking for an L3 the core does not have
// is the worse error.
static void one(size_t *out, const char **src, int sc_name, int level, size_t fallback, int *sharing)
{
    long v = sysconf(sc_name);
    size_t s = sysfs_size(level, sharing);
    if (v > 0 && s && (size_t)v != s) *out = (size_t)v < s ? (size_t)v : s, *src = "smaller of sysconf, sysfs";
    else if (v > 0) *out = (size_t)v, *src = "sysconf";
    else if (s) *out = s, *src = "sysfs";
    else *out = fallback, *src = "default";
}

// "48K" -> 49152; 0 if it is not a size (or not between 1 KiB and 64 GiB).
static size_t parse_size(const char *s, char **end)
{
    if (*s < '0' || *s > '9') return 0;
    unsigned long long n = strtoull(s, end, 10);
    int shift = **end == 'K' ? 10 : **end == 'M' ? 20 : **end == 'G' ? 30 : 0;
    if (shift) ++*end;
    if (n > (1ull << 36) >> shift) return 0;
    n <<= shift;
    return n >= 1024 ? (size_t)n : 0;
}

// 1 if XFBENCH_CACHES is set and valid (then c holds it), 0 if unset, -1
// if malformed.
static int from_env(xf_caches *c)
{
    const char *s = getenv("XFBENCH_CACHES");
    if (!s || !*s) return 0;
    size_t v[3];
    char *end = (char *)s;
    for (int i = 0; i < 3; i++) {
        if (i && *end++ != ',') return -1;
        if (!(v[i] = parse_size(end, &end))) return -1;
    }
    long sharing = 1;
    if (*end == ',') {
        const char *at = ++end;
        sharing = strtol(at, &end, 10);
        if (end == at || sharing < 1 || sharing > 4096) return -1;
    }
    if (*end) return -1;
    c->l1d = v[0], c->l2 = v[1], c->l3 = v[2], c->l3_sharing = (int)sharing;
    for (int i = 0; i < 3; i++) c->source[i] = "XFBENCH_CACHES";
    return 1;
}

const char *xf_caches_env_error(void)
{
    xf_caches c;
    return from_env(&c) < 0 ? "XFBENCH_CACHES must be L1D,L2,L3[,SHARING]: bytes with an optional K, M or G, "
                              "each at least 1K, and the CPUs sharing the L3 (1-4096, default 1), e.g. 32K,1M,32M,8"
                            : NULL;
}

const xf_caches *xf_caches_get(void)
{
    static xf_caches c;
    static int ready;
    if (!ready && from_env(&c) == 1) {
        c.l3_core = c.l3 / (size_t)c.l3_sharing;
        ready = 1;
    }
    if (!ready) {
        c.l3_sharing = 0;
        one(&c.l1d, &c.source[0], _SC_LEVEL1_DCACHE_SIZE, 1, XF_DEFAULT_L1D, NULL);
        one(&c.l2, &c.source[1], _SC_LEVEL2_CACHE_SIZE, 2, XF_DEFAULT_L2, NULL);
        one(&c.l3, &c.source[2], _SC_LEVEL3_CACHE_SIZE, 3, XF_DEFAULT_L3, &c.l3_sharing);
        if (c.l3_sharing < 1) c.l3_sharing = 1;
        c.l3_core = c.l3 / (size_t)c.l3_sharing;
        ready = 1; // written once, before any thread reads (the first call is the run's setup)
    }
    return &c;
}
