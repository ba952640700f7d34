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
    // How each peer library runs here (xf_family.runtime: OpenBLAS's core,
    // oneDNN's ISA, libxsmm's target, with why where below the CPU's
    // level), one CSV column each, named by xf_peer_columns; "not built"
    // where the family is not.
    char peer[3][240];
} xf_machine;

enum { XF_NPEER_COLUMNS = 3 };
extern const char *const xf_peer_columns[XF_NPEER_COLUMNS];

void xf_machine_read(xf_machine *m);

#endif
