#include <string.h>

#include "../variants/isa/clock.h"
#include "runner.h"

int xf_runner_prepare(xf_runner *r, xf_instance *in)
{
    double t0 = xf_now_ns();
    int rc = 0;
    r->ctx = NULL;
    if (r->v) {
        r->math_ulp = r->v->math_ulp, r->p_bf16 = r->v->p_bf16;
        if (r->v->prepare) rc = r->v->prepare(&in->args, &r->ctx);
    } else if (r->resolve && r->resolve(r, in) != 0) {
        memset(&r->ex, 0, sizeof r->ex); // release has nothing to free
        rc = -1;
    } else {
        r->math_ulp = xf_ops_math_ulp(&r->ops), r->p_bf16 = xf_ops_p_bf16(&r->ops);
        rc = xf_compose_prepare(&r->ex, &r->ops, in->c.stage, &in->args);
    }
    r->prepare_ns = xf_now_ns() - t0;
    return rc;
}

void xf_runner_run(xf_runner *r, xf_instance *in)
{
    if (r->v) r->v->run(&in->args, r->ctx);
    else xf_compose_run(&r->ex, in->c.stage, &in->args);
}

void xf_runner_release(xf_runner *r)
{
    if (r->v) {
        if (r->ctx && r->v->release) r->v->release(r->ctx);
        r->ctx = NULL;
    } else {
        xf_compose_release(&r->ex);
    }
}
