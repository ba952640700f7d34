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

// The k slice: the longest whose B panel (kc x nr floats) fits the B
// block, so that panel stays in L2 while every A panel of the row block
// streams past it, and C is read and written once per slice (once in
// all at the Transformer-base shapes). Multiples of 64, at least 256.
// avx512 (nr 64): 2048 on a 1 MiB L2 (Zen 4), 4096 on 2 MiB (Golden
// Cove); avx2 (nr 16): 4096 on 512 KiB (Zen 3), 8192 on 1 MiB.
// This is not BLIS's rule, which sizes the slice so the micro-panel that
// is broadcast (here A's 6 x kc) stays in L1 across the panels it meets:
// 640 on a 32 KiB L1d. That reuse is worth less than the passes over C it
// costs. Zen 4, avx512, FFN2 (512 x 512 x 2048), 1 thread, in-process
// interleaved, 60 calls each, median as a fraction of the FMA loop timed
// in the same process: 4 slices of 512 0.935, 2 of 1024 0.953, one of
// 2048 0.969 (with 2 B panels a block 0.959). QKV and FFN1 (k 512, one
// slice either way) moved by less than the noise (0.92-0.94). avx2 on the
// same CPU: 512 to 2048 level (0.76-0.78, a noisy hour).
int xf_gemm_kc(int nr)
{
    const size_t panel_row = (size_t)(nr > 0 ? nr : 1) * sizeof(float);
    const size_t kc = xf_blocking_get()->gemm_b_block / panel_row / 64 * 64;
    return kc < 256 ? 256 : kc > (1u << 20) ? 1 << 20 : (int)kc;
}

int xf_stream_output(size_t working_set) { return working_set >= xf_blocking_get()->stream_working_set; }

int xf_chunk_rows(size_t row_bytes)
{
    size_t rows = row_bytes ? xf_blocking_get()->chunk / row_bytes : 1;
    return rows > 1 ? (int)rows : 1;
}
