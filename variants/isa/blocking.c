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
    // The A block stays in the L3 while every column block of B streams
    // over it: a quarter of this core's share of the L3 (caches.h: in a VM
    // the share is what the guest is told, not what it owns; other guests'
    // cores use the same L3). Zen 3 under KVM (32 MiB for 2 CPUs): 4 MiB,
    // the A of a seq-2048 linear's k slice.
    b.gemm_a_block = c->l3_core / 4;
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

// The k slice: A's micro-panel (mr rows x kc floats, read in place) is
// what every B panel of a column block multiplies in turn, so it must stay
// in the L1d: half of it, the other half for the B lines streaming through
// from the L2 and C's tile. This is BLIS's rule for its micro-panel kept in
// L1 (its Haswell and Zen sgemm use a 6 x 16 tile like the avx2 family's,
// with KC 256 where the L1d is 32 KiB), here as large as the rule allows:
// a longer slice means fewer passes over C. Multiples of 64, at least 128.
// mr 6: 640 for a 32 KiB L1d (Zen 3, Zen 4), 1024 for 48 KiB (Golden Cove).
// Before, the slice was sized so one B panel filled the B block (2048-4096
// on these CPUs): A's micro-panel (48-96 KiB) then spilled to L2 on every
// B panel.
int xf_gemm_kc(int mr)
{
    const size_t l1d = xf_caches_get()->l1d;
    const int kc = (int)(l1d / 2 / ((size_t)(mr > 0 ? mr : 1) * sizeof(float))) / 64 * 64;
    return kc > 128 ? kc : 128;
}

int xf_stream_output(size_t working_set) { return working_set >= xf_blocking_get()->stream_working_set; }

int xf_chunk_rows(size_t row_bytes)
{
    size_t rows = row_bytes ? xf_blocking_get()->chunk / row_bytes : 1;
    return rows > 1 ? (int)rows : 1;
}
