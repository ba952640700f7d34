// The prepare/run bookkeeping behind compose.h: contexts and scratch buffers
// found by call position, and per-primitive timing.
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec.h"

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

void xf_exec_call(xf_exec *ex, xf_stage stage, const void *args)
{
    const xf_variant *v = ex->ops.op[stage];
    if (ex->preparing) {
        void *ctx = NULL;
        if (v->prepare && v->prepare(args, &ctx) != 0) ex->failed = 1;
        ex->ctx = realloc(ex->ctx, (size_t)(ex->nctx + 1) * sizeof *ex->ctx);
        ex->ctx[ex->nctx++] = (struct xf_exec_ctx){ctx, stage};
        return;
    }
    void *ctx = ex->ctx[ex->next_ctx++].p;
    double t0 = now_ns();
    v->run(args, ctx);
    ex->stage_ns[stage] += now_ns() - t0;
    ex->stage_calls[stage]++;
}

float *xf_exec_buffer(xf_exec *ex, size_t count)
{
    if (!ex->preparing) return ex->buf[ex->next_buf++];
    // 64-byte aligned, a whole number of cache lines, as SIMD variants want.
    size_t bytes = (count * sizeof(float) + 63) & ~(size_t)63;
    float *b = aligned_alloc(64, bytes ? bytes : 64);
    if (b) memset(b, 0, bytes);
    else ex->failed = 1;
    ex->buf = realloc(ex->buf, (size_t)(ex->nbuf + 1) * sizeof *ex->buf);
    ex->buf[ex->nbuf++] = b;
    return b;
}

void xf_exec_begin(xf_exec *ex, int preparing)
{
    ex->preparing = preparing;
    ex->next_ctx = ex->next_buf = 0;
}

void xf_compose_release(xf_exec *ex)
{
    for (int i = 0; i < ex->nctx; i++) {
        const xf_variant *v = ex->ops.op[ex->ctx[i].stage];
        if (ex->ctx[i].p && v->release) v->release(ex->ctx[i].p);
    }
    for (int i = 0; i < ex->nbuf; i++) free(ex->buf[i]);
    free(ex->ctx);
    free(ex->buf);
    memset(ex, 0, sizeof *ex);
}

double xf_ops_math_ulp(const xf_ops *ops)
{
    double m = 0.0;
    for (int s = 0; s < XF_FIRST_COMPOUND; s++)
        if (ops->op[s] && ops->op[s]->math_ulp > m) m = ops->op[s]->math_ulp;
    return m;
}
