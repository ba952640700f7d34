// What a result row must say about where it was measured.
#ifndef XF_MACHINE_H
#define XF_MACHINE_H

typedef struct {
    char cpu[128];      // /proc/cpuinfo model name
    char isa[128];      // SIMD features this CPU reports, space separated
    char compiler[64];
    char commit[64];
    char date[32];      // of this run, UTC, ISO 8601
    char host[64];      // $XFBENCH_HOST, else the host name: merges sweeps of several machines
    double mem_available; // bytes the kernel says are available now
} xf_machine;

void xf_machine_read(xf_machine *m);

#endif
