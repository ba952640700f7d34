#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caches.h"

// sysfs: index*/level and type say which cache a directory describes,
// size reads like "48K" or "32M".
static size_t sysfs_size(int level)
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
        return unit == 'K' ? n << 10 : unit == 'M' ? n << 20 : unit == 'G' ? n << 30 : n;
    }
    return 0;
}

// Where glibc's sysconf and the kernel's sysfs disagree, the smaller: glibc
// 2.36 on a Zen 3 under KVM reports a 256 MiB L3 (eight CCXs' worth) where
// sysfs and lscpu say 32 MiB, and blocking for an L3 the core does not have
// is the worse error.
static void one(size_t *out, const char **src, int sc_name, int level, size_t fallback)
{
    long v = sysconf(sc_name);
    size_t s = sysfs_size(level);
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
    if (*end) return -1;
    c->l1d = v[0], c->l2 = v[1], c->l3 = v[2];
    for (int i = 0; i < 3; i++) c->source[i] = "XFBENCH_CACHES";
    return 1;
}

const char *xf_caches_env_error(void)
{
    xf_caches c;
    return from_env(&c) < 0 ? "XFBENCH_CACHES must be L1D,L2,L3 in bytes with an optional K, M or G, e.g. "
                              "32K,1M,32M (each at least 1K)"
                            : NULL;
}

const xf_caches *xf_caches_get(void)
{
    static xf_caches c;
    static int ready;
    if (!ready && from_env(&c) == 1) ready = 1;
    if (!ready) {
        one(&c.l1d, &c.source[0], _SC_LEVEL1_DCACHE_SIZE, 1, XF_DEFAULT_L1D);
        one(&c.l2, &c.source[1], _SC_LEVEL2_CACHE_SIZE, 2, XF_DEFAULT_L2);
        one(&c.l3, &c.source[2], _SC_LEVEL3_CACHE_SIZE, 3, XF_DEFAULT_L3);
        ready = 1;
    }
    return &c;
}
