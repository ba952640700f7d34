// Synthetic xfbench CSVs with a known answer, for tests/compare_stats.sh:
// CASES linear cases of SAMPLES per-call times each, drawn from a
// lognormal of relative spread SIGMA around 1 ms, times SHIFT for the
// first PLANTED cases (all if not given). A fraction of the draws (OUTLIERS)
// are slowed by a further 20-60%, as preemption does on a shared machine.
// ROWS rows per case (1), each a run whose every sample is scaled by its own
// lognormal draw of spread DRIFT (0): the machine moving between runs.
// Usage: synth_csv OUT CASES SAMPLES SHIFT SIGMA OUTLIERS SEED [PLANTED [ROWS DRIFT]]
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../harness/rng.h"

static xf_rng rng;

static double uniform(void) // (0, 1)
{
    return ((double)(xf_rng_next(&rng) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(void) // Box-Muller; two statements fix the draws' order
{
    const double r = sqrt(-2.0 * log(uniform()));
    return r * cos(6.283185307179586 * uniform());
}

int main(int argc, char **argv)
{
    if (argc < 8 || argc > 11 || argc == 10) {
        fprintf(stderr, "usage: synth_csv OUT CASES SAMPLES SHIFT SIGMA OUTLIERS SEED [PLANTED [ROWS DRIFT]]\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "w");
    const int cases = atoi(argv[2]), samples = atoi(argv[3]);
    const double shift = atof(argv[4]), sigma = atof(argv[5]), outliers = atof(argv[6]);
    rng.s = strtoull(argv[7], NULL, 10);
    const int planted = argc >= 9 ? atoi(argv[8]) : cases, rows = argc == 11 ? atoi(argv[9]) : 1;
    const double drift = argc == 11 ? atof(argv[10]) : 0.0;
    if (!f || cases < 1 || samples < 1 || rows < 1) return 2;
    fprintf(f, "stage,variant,batch,heads,dk,seq_q,seq_k,d_model,d_ff,layers,n,k,relu,pad,causal,threads,"
               "median_ns,passed,samples_ns\n");
    for (int c = 0; c < cases; c++)
        for (int r = 0; r < rows; r++) {
            fprintf(f, "linear,synth,1,8,64,%d,%d,512,2048,0,1536,512,0,none,0,1,0,1,", 16 * (c + 1), 16 * (c + 1));
            const double run = exp(drift * normal());
            for (int s = 0; s < samples; s++) {
                double t = 1e6 * run * exp(sigma * normal()) * (c < planted ? shift : 1.0);
                if (uniform() < outliers) t *= 1.2 + 0.4 * uniform();
                fprintf(f, "%s%.0f", s ? ";" : "", t);
            }
            fputc('\n', f);
        }
    return fclose(f) ? 2 : 0;
}
