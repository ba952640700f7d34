#define _DEFAULT_SOURCE // madvise
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "huge.h"

void *xf_alloc_lines(size_t bytes) { return aligned_alloc(64, bytes ? (bytes + 63) / 64 * 64 : 64); }

void *xf_alloc_lines_zero(size_t bytes)
{
    void *p = xf_alloc_lines(bytes);
    if (p) memset(p, 0, bytes);
    return p;
}

void *xf_alloc_huge(size_t bytes)
{
    const size_t page = (size_t)2 << 20;
    if (bytes < page) return xf_alloc_lines(bytes);
    const size_t size = (bytes + page - 1) / page * page;
    void *p = aligned_alloc(page, size);
    if (!p) return NULL;
    madvise(p, size, MADV_HUGEPAGE);
    // The advice makes huge pages only where a page is first touched, and
    // malloc may hand back heap memory an earlier variant (or best's
    // tuning) already touched in 4 KiB pages: glibc raises its mmap
    // threshold at each large free, then serves large blocks from the
    // heap. Those pages are dropped (the block is uninitialised anyway), so
    // its first touch faults huge ones in. Measured on Zen 4, generate at
    // batch 8 on 2 threads: best running the omp family's very pass after
    // tuning in the same process read 0.92-0.99x omp's row's speed in four
    // runs, 1.008-1.015x in three with this (docs/design.md, Huge pages).
    madvise(p, size, MADV_DONTNEED);
    return p;
}
