#include "blocking.h"

#include "caches.h"

const xf_blocking *xf_blocking_get(void)
{
    static xf_blocking b;
    static int ready;
    if (ready) return &b;
    const xf_caches *c = xf_caches_get();
    // Half the L2 for the B block, which every A panel of a row block
    // streams: the other half holds the A panel, C's tile and what the
    // prefetchers bring. A B panel streamed from L3 instead of L2 cost the
    // micro-kernel 5-10% on Zen 4.
    b.gemm_b_block = c->l2 / 2;
    // A quarter of the L3 (shared by the cores, and by the B block and C
    // while they stream through it) for the A block.
    b.gemm_a_block = c->l3 / 4;
    // A row kernel (softmax, add_layernorm) whose call reads and writes
    // more than half the L3 writes its output by streaming stores: its
    // output cannot stay in the L3 for the next stage anyway, so streaming
    // saves the read for ownership. Half, because the L3 is shared with the
    // other cores (in a VM, with cores of guests it does not see) and is a
    // victim or non-inclusive cache, so such a working set already misses.
    // Zen 3 under KVM (32 MiB L3), avx2 softmax and add_layernorm, cached
    // time / streamed time: 0.97 at 8 MiB working sets, 0.91-1.39 at
    // 12-32 MiB, 1.17-1.34 at 48-256 MiB. Below, the output stays cached
    // where the next stage finds it. (A VM may report its socket's whole
    // L3, 260 MiB on one Xeon: XFBENCH_CACHES sets the share instead.)
    b.stream_working_set = c->l3 / 2;
    // libxsmm's kernel walks the whole A tile (BM x kc) for each column of
    // its C tile, so the A tile and the B tile beside it (BN x kc) must
    // stay in L2 between its calls: a quarter of the L2 for the pair,
    // leaving the rest for C and the next tiles. Zen 4: kc 640.
    int kc = (int)(c->l2 / 4 / ((XF_XSMM_BM + XF_XSMM_BN) * sizeof(float))) / XF_XSMM_BK * XF_XSMM_BK;
    b.xsmm_kc = kc > XF_XSMM_BK ? kc : XF_XSMM_BK;
    // A thread's chunk of rows is what its L1 holds: one hand-out of the
    // dynamic schedule (an atomic on a shared counter) is then amortised
    // over an L1 of streaming, and the chunks stay small enough for the
    // last ones to even out the threads (causal softmax rows grow along
    // the sequence). Zen 4, d 512: 16 rows.
    b.chunk = c->l1d;
    ready = 1;
    return &b;
}

// The longest k slice whose B panel (kc x nr floats) fits the B block, so
// at least one panel is reused from L2 by every A panel, in multiples of
// 256 (at least 256). A longer slice means fewer passes over C (read and
// written once per slice). Zen 4, avx512 (nr 64): 2048, FFN2's k in one
// slice.
int xf_gemm_kc(int nr)
{
    int kc = (int)(xf_blocking_get()->gemm_b_block / ((size_t)nr * sizeof(float))) / 256 * 256;
    return kc > 256 ? kc : 256;
}

int xf_stream_output(size_t working_set) { return working_set >= xf_blocking_get()->stream_working_set; }

int xf_chunk_rows(size_t row_bytes)
{
    size_t rows = row_bytes ? xf_blocking_get()->chunk / row_bytes : 1;
    return rows > 1 ? (int)rows : 1;
}
