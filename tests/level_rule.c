// --variant best's rule for level candidates (xf_level_with, harness/
// stats.c): an earlier-listed candidate wins over the fastest only when
// its median is within the margin AND their ratio's interval reaches 1.
// The first case is the race that picked fp32 avx2's seq-512 pass over
// avx512's on Zen 4 (three rounds of one pass each, medians 389.5 and
// 332.9 ms, one avx2 round fast): its interval reaches 1, its median is
// 17% slower, and it must not count as level.
#include <stdio.h>

#include "../harness/stats.h"

typedef struct {
    const char *what;
    double a[3], b[3];
    int level;
} trial;

int main(void)
{
    const trial trials[] = {
        {"a 17% slower by median, one round fast: not level", {389.5, 300.1, 420.3}, {332.9, 341.0, 320.4}, 0},
        {"a 1% slower, rounds overlapping: level", {101.0, 99.0, 103.0}, {100.0, 102.0, 98.0}, 1},
        {"a 10% slower, every round: not level", {110.0, 111.0, 110.5}, {100.0, 100.5, 101.0}, 0},
        {"a 1.5% slower, every round (interval above 1): not level", {101.5, 101.6, 101.4}, {100.0, 100.1, 99.9}, 0},
    };
    const int starts[3] = {0, 1, 2};
    int bad = 0;
    for (size_t t = 0; t < sizeof trials / sizeof *trials; t++) {
        const xf_samples a = {trials[t].a, 3, starts, 3}, b = {trials[t].b, 3, starts, 3};
        const int level = xf_level_with(&a, &b, 0.02);
        if (level != trials[t].level) {
            bad++;
            printf("FAIL: %s: xf_level_with said %d\n", trials[t].what, level);
        }
    }
    printf("level rule: %d of %zu cases wrong\n", bad, sizeof trials / sizeof *trials);
    return bad != 0;
}
