// The thread team of the threaded families (omp, amx): `--threads` sets
// OpenMP's count (the harness), each family splits a call's work into
// shares that write nothing in common, so no thread waits for another
// inside a call. Static inline: each family's files are compiled with
// -fopenmp, and read OpenMP's state directly. One thread where the build
// has no OpenMP.
#ifndef XF_TEAM_H
#define XF_TEAM_H

#ifdef _OPENMP
#include <omp.h>
#endif

// Threads a run will use: omp_get_max_threads() (1 without OpenMP), read
// at prepare time to size per-thread buffers.
static inline int xf_team_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

// The calling thread's number in its team (0 outside a parallel region).
static inline int xf_team_thread(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

// Threads in the calling team (1 outside a parallel region).
static inline int xf_team_size(void)
{
#ifdef _OPENMP
    return omp_get_num_threads();
#else
    return 1;
#endif
}

// [*lo, *hi): share t of nt of `units`, in order; the shares differ by at
// most one unit and cover every unit once.
static inline void xf_team_share(int units, int t, int nt, int *lo, int *hi)
{
    *lo = (int)((long)units * t / nt);
    *hi = (int)((long)units * (t + 1) / nt);
}

// Thread t's columns [*ja, *jz) of n, shared in units of `unit` columns: a
// decode step's linear, where each weight row is then read by one thread,
// once.
static inline void xf_team_columns(int n, int unit, int t, int nt, int *ja, int *jz)
{
    xf_team_share((n + unit - 1) / unit, t, nt, ja, jz);
    *ja *= unit;
    *jz = *jz * unit < n ? *jz * unit : n;
}

// Thread t's part of a GEMM of m rows (blocks of mr) by `panels` panels of
// W: rows [*ra, *rz) and panels [*pa, *pz). The row blocks are shared out
// where there are at least as many of them as panels, else the panels
// (each thread then reads only its part of W: on a Xeon, QKV at seq 512
// on 2 threads split by rows was 11-18% slower, docs/performance.md).
// Every thread's part is its own, so no thread waits for another.
static inline void xf_team_gemm_part(int m, int mr, int panels, int t, int nt, int *ra, int *rz, int *pa, int *pz)
{
    const int row_blocks = (m + mr - 1) / mr;
    *ra = 0, *rz = m, *pa = 0, *pz = panels;
    if (row_blocks >= panels) {
        xf_team_share(row_blocks, t, nt, ra, rz);
        *ra *= mr;
        *rz = *rz * mr < m ? *rz * mr : m;
    } else {
        xf_team_share(panels, t, nt, pa, pz);
    }
}

#endif
