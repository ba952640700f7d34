#include "rounds.h"

#include "rng.h"

void xf_rounds_run(int n, int rounds, uint64_t seed, int *live, const xf_round_steps *steps)
{
    int order[XF_ROUNDS_MAX];
    for (int i = 0; i < n; i++) order[i] = i;
    xf_rng rng = {seed};
    for (int round = 0; round < rounds; round++) {
        // Fisher-Yates: uniform over the orders, a fresh one each round.
        for (int i = n - 1; rounds > 1 && i > 0; i--) {
            const int j = (int)(xf_rng_next(&rng) % (uint64_t)(i + 1)), x = order[i];
            order[i] = order[j], order[j] = x;
        }
        if (steps->before) steps->before(steps->ctx, round, order, live);
        for (int k = 0; k < n; k++)
            if (live[order[k]]) steps->time_one(steps->ctx, order[k], round);
    }
}
