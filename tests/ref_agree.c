// The fast fp64 reference (kernels/gemm_d.h: blocked, threaded) against the
// plain loops it replaces, on every case of a grid of every stage: each
// reference value and each bound (compound stages: 8 sigma of the error
// model's variance) must agree to 1e-12 relative. Why that tolerance: both
// are fp64 sums of the same terms in different orders, which differ by
// about n 2^-53 (1e-13 at n = 2048) of the sum of the terms' magnitudes;
// a different formula, term or index would differ by far more. Relative
// to what: a value against the largest magnitude of its output (a sum that
// cancels to near 0 has no relative accuracy in either order), a bound
// (positive sums, no cancellation) against itself.
// --portable: the GEMM's portable C tile instead of the AVX2+FMA one (what
// a CPU without them runs). --bf16: the cases in bf16 (the error model's
// stored roundings and P rounded to bf16 in the compositions).
// Usage: ref-agree quick|full [--portable] [--bf16] [STAGE...]
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/grid.h"
#include "../harness/options.h"
#include "../harness/report.h"
#include "../kernels/gemm_d.h"
#include "../harness/stages/stage.h"

enum { MAX_OUT = XF_MAX_OUTPUTS };

static const double TOL = 1e-12;

// One case: its reference by the plain loops, then the fast way; prints
// each output beyond TOL and returns how many; *worst_val and *worst_bound
// grow to the largest relative differences seen. -1: out of memory.
static int agree_case(const xf_case *c, int p_bf16, double *worst_val, double *worst_bound)
{
    xf_instance in;
    if (xf_instance_build(&in, c)) return -1;
    // A math_ulp of 4: the bounds' exp term present, as a SIMD variant's.
    xf_ref_set_plain(1);
    xf_instance_reference(&in, 4.0, p_bf16);
    double *ref[MAX_OUT], *bound[MAX_OUT];
    for (int k = 0; k < in.nout; k++) {
        const size_t bytes = in.out[k].count * sizeof(double);
        ref[k] = malloc(bytes), bound[k] = malloc(bytes);
        memcpy(ref[k], in.ref[k], bytes), memcpy(bound[k], in.bound[k], bytes);
    }
    xf_ref_set_plain(0);
    in.bound_ulp = -1.0; // computed again, the fast way
    xf_instance_reference(&in, 4.0, p_bf16);
    int failed = 0;
    for (int k = 0; k < in.nout; k++) {
        double scale = 0.0, dv = 0.0, db = 0.0;
        for (size_t i = 0; i < in.out[k].count; i++) scale = fmax(scale, fabs(ref[k][i]));
        for (size_t i = 0; i < in.out[k].count; i++) {
            dv = fmax(dv, fabs(in.ref[k][i] - ref[k][i]) / (scale > 0 ? scale : 1.0));
            db = fmax(db, fabs(in.bound[k][i] - bound[k][i]) / (bound[k][i] > 0 ? bound[k][i] : 1.0));
        }
        *worst_val = fmax(*worst_val, dv), *worst_bound = fmax(*worst_bound, db);
        if (!(dv <= TOL && db <= TOL)) {
            char desc[256];
            xf_case_describe(c, desc, sizeof desc);
            printf("DISAGREE %s %s%s output %s: value %.3g, bound %.3g (relative)\n", xf_stage_name(c->stage), desc,
                   p_bf16 ? " (P in bf16)" : "", in.out_name[k], dv, db);
            failed++;
        }
        free(ref[k]), free(bound[k]);
    }
    xf_instance_free(&in);
    return failed;
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "quick") && strcmp(argv[1], "full"))) {
        fprintf(stderr, "usage: ref-agree quick|full [--portable] [--bf16] [STAGE...]\n");
        return 2;
    }
    int first_stage = 2;
    if (argc > first_stage && !strcmp(argv[first_stage], "--portable")) xf_ref_set_portable(1), first_stage++;
    const int bf16 = argc > first_stage && !strcmp(argv[first_stage], "--bf16");
    first_stage += bf16;
    char *fake[] = {"xfbench", "check", "--dtype", "bf16"};
    xf_options o;
    xf_options_parse(bf16 ? 4 : 2, fake, &o);
    int failed = 0, total = 0;
    for (int s = 0; s < XF_NSTAGES; s++) {
        int wanted = argc == first_stage;
        for (int i = first_stage; i < argc; i++) wanted |= !strcmp(argv[i], xf_stage_name((xf_stage)s));
        if (!wanted) continue;
        xf_case one = xf_case_of_stage(&o.shape, (xf_stage)s), *cases;
        const int n = xf_grid_cases(argv[1], (xf_stage)s, &one, &cases);
        double worst_val = 0.0, worst_bound = 0.0;
        // Attention's bound also as for a kernel that rounds P to bf16.
        const int p_modes = s == XF_ATTENTION ? 2 : 1;
        for (int c = 0; c < n * p_modes; c++, total++) {
            const int f = agree_case(&cases[c % n], c / n, &worst_val, &worst_bound);
            if (f < 0) {
                fprintf(stderr, "ref-agree: out of memory building a %s case\n", xf_stage_name((xf_stage)s));
                return 2;
            }
            failed += f;
        }
        printf("%-14s %4d case(s): fast vs plain reference, largest relative difference: value %.3g, bound %.3g\n",
               xf_stage_name((xf_stage)s), n * p_modes, worst_val, worst_bound);
        free(cases);
    }
    printf("ref-agree: %d case(s), %d output(s) beyond %g\n", total, failed, TOL);
    return failed ? 1 : 0;
}
