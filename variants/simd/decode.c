// The kernels of a decode step, where every call has a few rows (one token
// per sequence) and is bound by the bytes it reads, not by FMA:
// - linear_rows: y = x W^T + b for a linear of XF_DOT_ROWS rows (one),
//   W in PyTorch's (n,k) layout (no packing: a packed copy would be read
//   just the same), each weight row streamed once per call and dotted with
//   x while it is in registers. One weight row at a time: a single
//   sequential stream, which the prefetchers follow best (four rows
//   interleaved streamed a DRAM-resident matrix about 30% slower on Zen 3;
//   loaded by xv_load_streamed), with ROW_U independent accumulators along
//   k to cover the FMA latency. More rows run the GEMM (kernel_table.h
//   says why).
// - attend_heads: one query row, every head, over keys [j0, j1) read in
//   place from the cache (no packing: each key is used once), scores in
//   scratch, the unnormalised outputs with their max and sum (the
//   flash-decoding partial, merged by the caller: a whole row, or a
//   thread's key range).
#include <math.h>
#include <string.h>

#include "simd.h"

enum { ROW_U = 4 };

// y[r][j] = x row r . weight row j (+ b[j], ReLU).
static inline void dot_row(const xf_linear_args *a, const float *wj, int r, int j)
{
    const int k = a->k, step = ROW_U * XV_W, body = k - k % step;
    const float *x = a->x + (size_t)r * k;
    xv acc[ROW_U];
    for (int u = 0; u < ROW_U; u++) acc[u] = xv_zero();
    for (int p = 0; p < body; p += step)
        for (int u = 0; u < ROW_U; u++)
            acc[u] = xv_fma(xv_load_streamed(wj + p + u * XV_W), xv_load(x + p + u * XV_W), acc[u]);
    for (int p = body; p < k; p += XV_W) { // the last < ROW_U vectors, the last one partial
        const int n = k - p < XV_W ? k - p : XV_W;
        acc[0] = xv_fma(xv_load_tail(wj + p, n, 0.0f), xv_load_tail(x + p, n, 0.0f), acc[0]);
    }
    for (int u = 1; u < ROW_U; u++) acc[0] = xv_add(acc[0], acc[u]);
    const float v = xv_hsum(acc[0]) + (a->b ? a->b[j] : 0.0f);
    a->y[(size_t)r * a->n + j] = a->relu && v < 0.0f ? 0.0f : v;
}

// x is (m,k), w is (n,k), y is (m,n): columns j0..j1 of y, every row.
void XF_FN(linear_rows)(const xf_linear_args *a, int j0, int j1)
{
    for (int j = j0; j < j1; j++)
        for (int r = 0; r < a->m; r++) dot_row(a, a->w + (size_t)j * a->k, r, j);
}

// Query row i of batch b, every head, over keys [j0, j1): key rows are
// walked in order and each row's heads taken together, so the cache is
// read as one sequential stream (a head at a time would jump a whole
// cache row, 4 KiB at d_model 512, per key). s: scratch of heads x
// (j1 - j0) scores; o is (heads,dk): sum_j exp(s_hj - m_h) v_hj; m[h]
// receives the max (-inf: no visible key, o_h zero), l[h] the sum.
void XF_FN(attend_heads)(const xf_attention_args *a, int b, int i, int j0, int j1, float *s, float *o, float *m,
                         float *l)
{
    const int H = a->heads, dk = a->dk, tail = dk % XV_W, body = dk - tail;
    const xf_attention_head x = xf_attention_head_at(a, b, 0);
    const float *q = x.q + (size_t)i * a->ldq;
    const uint8_t *pad = a->key_pad ? a->key_pad + (size_t)b * a->seq_k : NULL;
    const float scale = 1.0f / sqrtf((float)dk);
    if (a->causal && j1 > i + 1) j1 = i + 1 > j0 ? i + 1 : j0;
    const int n = j1 - j0;
    for (int h = 0; h < H; h++) m[h] = -INFINITY, l[h] = 0.0f;
    memset(o, 0, (size_t)H * dk * sizeof *o);
    for (int j = j0; j < j1; j++) {
        const float *kj = x.k + (size_t)j * a->ldk;
        if (pad && pad[j]) { // a padded key costs no dot product
            for (int h = 0; h < H; h++) s[(size_t)h * n + (j - j0)] = -INFINITY;
            continue;
        }
        for (int h = 0; h < H; h++) {
            const float *qh = q + (size_t)h * dk, *kh = kj + (size_t)h * dk;
            xv acc = xv_zero();
            for (int p = 0; p < body; p += XV_W) acc = xv_fma(xv_load(qh + p), xv_load(kh + p), acc);
            if (tail) acc = xv_fma(xv_load_tail(qh + body, tail, 0.0f), xv_load_tail(kh + body, tail, 0.0f), acc);
            const float t = xv_hsum(acc) * scale;
            s[(size_t)h * n + (j - j0)] = t;
            if (t > m[h]) m[h] = t;
        }
    }
    for (int h = 0; h < H; h++) { // s_hj <- exp(s_hj - m_h), 0 where masked
        float *sh = s + (size_t)h * n;
        if (m[h] == -INFINITY) continue;
        l[h] = XF_FN(exp_sum)(sh, n, m[h]);
    }
    for (int j = j0; j < j1; j++) {
        const float *vj = x.v + (size_t)j * a->ldv;
        for (int h = 0; h < H; h++) {
            if (m[h] == -INFINITY) continue;
            const float p = s[(size_t)h * n + (j - j0)];
            if (p == 0.0f) continue;
            const xv pv = xv_set1(p);
            float *oh = o + (size_t)h * dk;
            const float *vh = vj + (size_t)h * dk;
            for (int c = 0; c < body; c += XV_W) xv_store(oh + c, xv_fma(pv, xv_load(vh + c), xv_load(oh + c)));
            for (int c = body; c < dk; c++) oh[c] += p * vh[c];
        }
    }
}

// Row i of batch b, every head: out = o / l, or zeros (no visible key).
void XF_FN(attend_finish)(const xf_attention_args *a, int b, int i, const float *o, const float *l)
{
    float *out = xf_attention_head_at(a, b, 0).out + (size_t)i * a->ldo;
    for (int h = 0; h < a->heads; h++) {
        const float inv = l[h] > 0.0f ? 1.0f / l[h] : 0.0f;
        for (int c = 0; c < a->dk; c++) out[h * a->dk + c] = o[h * a->dk + c] * inv;
    }
}
