// The useful-FLOP count (kernels/counts.c) against a brute-force count of
// the visible (query, key) pairs, with the contract's own visibility rule
// (xf_key_visible), on random masks, lengths and causal flags. The
// compound stages sum the same function over their attention calls.
#include <stdio.h>
#include <stdlib.h>

#include "../kernels/attention.h"

static unsigned long long state = 88172645463325252ull;
static unsigned next(void)
{
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return (unsigned)(state >> 32);
}

int main(void)
{
    int bad = 0;
    for (int trial = 0; trial < 2000; trial++) {
        const int batch = 1 + next() % 3, heads = 1 + next() % 4, dk = 1 + next() % 64;
        const int seq_q = 1 + next() % 40, seq_k = 1 + next() % 40, causal = next() % 2;
        const int density = next() % 4; // none, few, half, all padded
        uint8_t *pad = malloc((size_t)batch * seq_k);
        for (int i = 0; i < batch * seq_k; i++)
            pad[i] = density == 0 ? 0 : density == 3 ? 1 : (int)(next() % 4) < density;
        const int use_pad = next() % 4 != 0;
        xf_attention_args a = {.batch = batch, .heads = heads, .dk = dk, .seq_q = seq_q, .seq_k = seq_k,
                               .key_pad = use_pad ? pad : NULL, .causal = causal};
        double pairs = 0.0;
        for (int b = 0; b < batch; b++)
            for (int i = 0; i < seq_q; i++)
                for (int j = 0; j < seq_k; j++)
                    pairs += xf_key_visible(use_pad ? pad + (size_t)b * seq_k : NULL, causal, i, j);
        const double want = 4.0 * heads * dk * pairs, got = xf_attention_useful_flops(&a);
        if (got != want || got > xf_attention_flops(&a)) {
            printf("MISMATCH b=%d h=%d dk=%d sq=%d sk=%d causal=%d pad=%d: useful %.0f, brute force %.0f\n",
                   batch, heads, dk, seq_q, seq_k, causal, use_pad ? density : -1, got, want);
            bad++;
        }
        free(pad);
    }
    if (bad) return 1;
    printf("useful FLOPs equal the brute-force visible-pair count on 2000 random masks\n");
    return 0;
}
