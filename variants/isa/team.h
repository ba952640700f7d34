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

#endif
