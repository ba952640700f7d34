// rmsnorm: y = x / rms(x) * gamma (kernels/rmsnorm.h).
#include "inputs.h"
#include "stage.h"

// Every third row is quiet (|x| < 1e-3, mean(x^2) about eps / 3): there
// eps decides half of y, so a kernel that drops it, or adds it outside the
// root, fails by far. On the loud rows (|x| < 1, mean(x^2) about 1/3) eps
// moves y by about 1.5e-6 relative, the size of the bound (d u / 2 at
// d 64), which catches its loss there only at small d.
enum { QUIET_EVERY = 3 };
#define QUIET_SCALE 1e-3f

static int build(xf_instance *in, xf_rng *r)
{
    const xf_case *c = &in->c;
    const int d = xf_case_d_model(c);
    xf_rmsnorm_args *a = &in->args.rmsnorm;
    *a = (xf_rmsnorm_args){.rows = c->batch * c->seq_q, .d = d};
    size_t count = (size_t)a->rows * d;
    float *x = xf_own_uniform(in, r, count, -1.0f, 1.0f);
    xf_norm_weights n;
    if (!x || xf_make_norm(in, r, d, &n) || xf_instance_add_output(in, "y", count)) return -1;
    for (int i = QUIET_EVERY - 1; i < a->rows; i += QUIET_EVERY)
        for (int j = 0; j < d; j++) x[(size_t)i * d + j] *= QUIET_SCALE;
    a->x = x, a->gamma = n.gamma, a->y = in->out[0].data;
    in->flops = xf_rmsnorm_flops(a), in->bytes = xf_rmsnorm_bytes(a);
    return 0;
}

static void reference(xf_instance *in, double ulp)
{
    xf_ref_rmsnorm(&in->args.rmsnorm, ulp, in->ref[0], in->bound[0]);
}

// x, gamma and beta (xf_make_norm draws both) in fp32, the output.
static double bytes_needed(const xf_case *c)
{
    double elems = (double)c->batch * c->seq_q * xf_case_d_model(c);
    return XF_F32_BYTES * (elems + 2.0 * xf_case_d_model(c)) + XF_OUT_BYTES * elems;
}

static void case_of(const void *args, xf_case *c)
{
    const xf_rmsnorm_args *a = args;
    xf_rows_case_of(a->rows, a->d, c);
}

const xf_stage_desc xf_stage_rmsnorm = {.memory_bound = 1, .build = build, .reference = reference,
                                        .bytes_needed = bytes_needed, .describe = xf_describe_rows,
                                        .options = xf_no_options, .grid = xf_grid_rows, .case_of = case_of};
