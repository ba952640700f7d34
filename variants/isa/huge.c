#define _DEFAULT_SOURCE // madvise
#include <stdlib.h>
#include <sys/mman.h>

#include "huge.h"

void *xf_alloc_huge(size_t bytes)
{
    const size_t page = (size_t)2 << 20;
    const size_t size = (bytes + page - 1) / page * page;
    void *p = aligned_alloc(page, size ? size : page);
    if (p && size) madvise(p, size, MADV_HUGEPAGE);
    return p;
}
