#include "rounds.h"

#include <string.h>

#include "rng.h"

// Draws before the best draw so far is taken: a few thousand permutations
// of a handful of candidates cost microseconds.
enum { TRIES = 4096 };

// How many live candidates of order would run at a place (among the live
// ones) more often than share, given count[i][place], the times candidate
// i ran there.
static int over_share(const int *order, int n, const int *live, int share, int (*count)[XF_ROUNDS_MAX])
{
    int over = 0;
    for (int k = 0, place = 0; k < n; k++)
        if (live[order[k]]) over += count[order[k]][place++] + 1 > share;
    return over;
}

// Fisher-Yates from the identity: uniform over the orders.
static void shuffle(int *order, int n, xf_rng *rng)
{
    for (int i = 0; i < n; i++) order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        const int j = (int)(xf_rng_next(rng) % (uint64_t)(i + 1)), x = order[i];
        order[i] = order[j], order[j] = x;
    }
}

// Each round's order is drawn uniformly among those that keep every
// candidate's places balanced: none runs at a place (first, second, ...
// last, among the live ones) more often than its share of the rounds so
// far, so over R <= n rounds no candidate runs at the same place twice.
// Uniform orders alone left one candidate last in all three rounds of a
// race (one of five, a 1-in-25 draw that a fixed seed then repeated in
// every run): a place that runs faster or slower every round (the first
// after a peer's thread pool, say) was charged to one candidate each time.
// Where no balanced order turns up in TRIES draws (a last round that only
// one Latin square completes), the draw with the fewest places over share.
void xf_rounds_run(int n, int rounds, uint64_t seed, int *live, const xf_round_steps *steps)
{
    int order[XF_ROUNDS_MAX], count[XF_ROUNDS_MAX][XF_ROUNDS_MAX] = {{0}};
    for (int i = 0; i < n; i++) order[i] = i;
    xf_rng rng = {seed};
    for (int round = 0; round < rounds; round++) {
        int in = 0; // live candidates; each one's share of a place: ceil(rounds up to this one / in)
        for (int i = 0; i < n; i++) in += live[i] != 0;
        const int share = in ? (round + in) / in : 1;
        for (int t = 0, best = n + 1; rounds > 1 && best > 0 && t < TRIES; t++) {
            int draw[XF_ROUNDS_MAX];
            shuffle(draw, n, &rng);
            const int over = over_share(draw, n, live, share, count);
            if (over < best) {
                best = over;
                memcpy(order, draw, (size_t)n * sizeof *order);
            }
        }
        if (steps->before) steps->before(steps->ctx, round, order, live);
        for (int k = 0, place = 0; k < n; k++)
            if (live[order[k]]) {
                count[order[k]][place++]++;
                steps->time_one(steps->ctx, order[k], round);
            }
    }
}
