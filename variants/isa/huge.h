// Memory for data a kernel streams from DRAM (a decode step's weights and
// caches): from 2 MiB on, 2 MiB aligned and advised into transparent huge
// pages; smaller blocks 64-byte aligned as usual (a huge page each would
// waste most of it). Why: a core's L2 prefetcher stops at every 4 KiB page
// boundary and each page costs a TLB walk; measured on Zen 3 (KVM, THP
// "madvise"), one thread streaming a 65 MB matrix-vector product: 8-9 GB/s
// from 4 KiB pages, 13-15 GB/s from 2 MiB pages (docs/design.md, Decoding).
#ifndef XF_HUGE_H
#define XF_HUGE_H

#include <stddef.h>

// bytes of memory (uninitialised, a whole number of 64-byte lines) to
// free(); NULL if out of memory. The advice is best effort: where the
// kernel has THP off the pages stay 4 KiB. The block's pages are dropped
// before it is returned, so that heap memory malloc reuses is faulted in
// afresh, in huge pages.
void *xf_alloc_huge(size_t bytes);

// bytes of memory (uninitialised, whole 64-byte lines, 64-byte aligned) to
// free(); NULL if out of memory. For the buffers a kernel's loops load
// vectors from (packed panels, score tiles, accumulators): glibc's malloc
// returns blocks of 128 KiB and more 16 bytes past a page (its chunk
// header), so every 64-byte load from them would span two cache lines,
// and every other 32-byte one (docs/performance.md, "Those Xeon figures").
void *xf_alloc_lines(size_t bytes);
// The same, zeroed (as calloc).
void *xf_alloc_lines_zero(size_t bytes);

#endif
