// The prepare/run bookkeeping behind compose.h: contexts and scratch buffers
// found by call position, and per-primitive timing.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../isa/clock.h"
#include "../isa/huge.h"
#include "../../kernels/half.h"
#include "exec.h"

// Adds v's name to the stage's list if it is not there yet.
static void note_variant(xf_exec *ex, xf_stage stage, const xf_variant *v)
{
    char *list = ex->stage_variants[stage];
    const size_t len = strlen(v->name), used = strlen(list);
    for (const char *p = list; (p = strstr(p, v->name)); p += len)
        if ((p == list || p[-1] == '+') && (p[len] == '\0' || p[len] == '+')) return;
    if (used + len + 2 <= sizeof ex->stage_variants[stage])
        snprintf(list + used, sizeof ex->stage_variants[stage] - used, "%s%s", used ? "+" : "", v->name);
}

// The earlier call of this stage with the same args, or -1. Generation
// makes thousands of calls over a few hundred distinct args: a linear scan
// from the latest is enough.
static int same_call(const xf_exec *ex, xf_stage stage, const void *args, size_t size)
{
    for (int i = ex->nctx - 1; i >= 0; i--) {
        const struct xf_exec_ctx *c = &ex->ctx[i];
        if (c->stage == stage && c->size == size && !memcmp(c->args, args, size)) return i;
    }
    return -1;
}

void xf_exec_call(xf_exec *ex, xf_stage stage, const void *args, size_t size)
{
    if (ex->preparing) {
        ex->ctx = realloc(ex->ctx, (size_t)(ex->nctx + 1) * sizeof *ex->ctx);
        const int earlier = same_call(ex, stage, args, size);
        struct xf_exec_ctx c = {.stage = stage, .size = size, .args = malloc(size)};
        if (c.args) memcpy(c.args, args, size);
        else ex->failed = 1;
        if (earlier >= 0) {
            c.p = ex->ctx[earlier].p, c.v = ex->ctx[earlier].v, c.shared = 1;
        } else {
            c.v = ex->ops.pick ? ex->ops.pick(ex->ops.pick_user, stage, args) : ex->ops.op[stage];
            if (!c.v || (c.v->prepare && c.v->prepare(args, &c.p) != 0)) ex->failed = 1;
            if (c.v) note_variant(ex, stage, c.v);
        }
        ex->ctx[ex->nctx++] = c;
        return;
    }
    const struct xf_exec_ctx *c = &ex->ctx[ex->next_ctx++];
    double t0 = xf_now_ns();
    c->v->run(args, c->p);
    ex->stage_ns[stage] += xf_now_ns() - t0;
    ex->stage_calls[stage]++;
}

float *xf_exec_buffer(xf_exec *ex, size_t count)
{
    if (!ex->preparing) return ex->buf[ex->next_buf++];
    // 64-byte aligned, a whole number of cache lines, as SIMD variants want;
    // from 2 MiB on (a decode step's KV caches) in huge pages, which a step
    // streams (isa/huge.h).
    size_t bytes = (count * sizeof(float) + 63) & ~(size_t)63;
    float *b = xf_alloc_huge(bytes);
    if (b) memset(b, 0, bytes);
    else ex->failed = 1;
    ex->buf = realloc(ex->buf, (size_t)(ex->nbuf + 1) * sizeof *ex->buf);
    ex->buf[ex->nbuf++] = b;
    return b;
}

// Prepare mode: w's copy, made on its first use. Both modes keep or find
// the copy by call position, as xf_exec_buffer does its buffers: run
// mode, timed, does no search.
static const xf_bf16 *copy_of(xf_exec *ex, const float *w, size_t count)
{
    for (int i = ex->nw16 - 1; i >= 0; i--)
        if (ex->w16[i].w == w) return ex->w16[i].copy;
    xf_bf16 *copy = malloc((count ? count : 1) * sizeof *copy);
    struct xf_exec_weight *grown = realloc(ex->w16, (size_t)(ex->nw16 + 1) * sizeof *grown);
    if (grown) ex->w16 = grown;
    if (!copy || !grown) {
        free(copy);
        return NULL;
    }
    for (size_t i = 0; i < count; i++) copy[i] = xf_bf16_from_f32(w[i]);
    ex->w16[ex->nw16++] = (struct xf_exec_weight){w, copy};
    return copy;
}

const xf_bf16 *xf_exec_bf16(xf_exec *ex, const float *w, size_t count)
{
    if (!w) return NULL;
    if (!ex->preparing) return ex->w16_calls[ex->next_w16++];
    const xf_bf16 *copy = copy_of(ex, w, count);
    const xf_bf16 **grown = realloc(ex->w16_calls, (size_t)(ex->nw16_calls + 1) * sizeof *grown);
    if (grown) ex->w16_calls = grown;
    if (!copy || !grown) {
        ex->failed = 1;
        return NULL;
    }
    ex->w16_calls[ex->nw16_calls++] = copy;
    return copy;
}

void xf_exec_begin(xf_exec *ex, int preparing)
{
    ex->preparing = preparing;
    ex->next_ctx = ex->next_buf = ex->next_w16 = 0;
}

void xf_compose_release(xf_exec *ex)
{
    for (int i = 0; i < ex->nctx; i++) {
        const xf_variant *v = ex->ctx[i].v;
        if (ex->ctx[i].p && v && v->release && !ex->ctx[i].shared) v->release(ex->ctx[i].p);
        free(ex->ctx[i].args);
    }
    for (int i = 0; i < ex->nbuf; i++) free(ex->buf[i]);
    for (int i = 0; i < ex->nw16; i++) free(ex->w16[i].copy);
    free(ex->w16);
    free(ex->w16_calls);
    free(ex->ctx);
    free(ex->buf);
    memset(ex, 0, sizeof *ex);
}

int xf_ops_p_bf16(const xf_ops *ops)
{
    int any = ops->pick && ops->pick_p_bf16;
    for (int s = 0; s < XF_FIRST_COMPOUND; s++)
        if (ops->op[s] && ops->op[s]->p_bf16) any = 1;
    return any;
}

double xf_ops_math_ulp(const xf_ops *ops)
{
    double m = ops->pick ? ops->pick_math_ulp : 0.0;
    for (int s = 0; s < XF_FIRST_COMPOUND; s++)
        if (ops->op[s] && ops->op[s]->math_ulp > m) m = ops->op[s]->math_ulp;
    return m;
}
