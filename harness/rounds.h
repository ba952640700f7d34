// Interleaved rounds, the one way bench and best time several candidates
// (docs/design.md, Timing): every candidate still in is timed once per
// round, each round in a fresh random order with every candidate's places
// balanced (rounds.c), so drift over the run and a burst of noise hit
// every candidate alike instead of whichever was timed then. The orders
// come from a seed: the same seed, the same orders.
#ifndef XF_ROUNDS_H
#define XF_ROUNDS_H

#include <stdint.h>

enum { XF_ROUNDS_MAX = 64 }; // candidates in one run of rounds

typedef struct {
    // Before each round, with that round's order (candidate indices, the
    // ones out included): may print it, or take candidates out (live[i]
    // = 0, e.g. the clearly slower after the first round). May be NULL.
    void (*before)(void *ctx, int round, const int *order, int *live);
    // Times candidate i in the given round.
    void (*time_one)(void *ctx, int i, int round);
    void *ctx;
} xf_round_steps;

// Runs `rounds` rounds over the n (<= XF_ROUNDS_MAX) candidates with
// live[i] set, in orders drawn from seed; live[] is updated by before.
// One round keeps the candidates' own order (nothing to interleave).
void xf_rounds_run(int n, int rounds, uint64_t seed, int *live, const xf_round_steps *steps);

#endif
