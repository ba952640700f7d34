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
    if (p) madvise(p, size, MADV_HUGEPAGE);
    return p;
}
