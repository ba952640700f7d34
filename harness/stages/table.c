#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "stage.h"

#define DECLARE_(name, NAME) extern const xf_stage_desc xf_stage_##name;
XF_STAGES(DECLARE_)

// In the enum's order, from the same list: a stage named in
// kernels/xf_common.h without its descriptor does not link.
#define ENTRY_(name, NAME) &xf_stage_##name,
static const xf_stage_desc *const table[] = {XF_STAGES(ENTRY_)};
_Static_assert(sizeof table / sizeof *table == XF_NSTAGES, "one descriptor per stage");

const xf_stage_desc *xf_stage_desc_of(xf_stage s) { return table[s]; }

void xf_append(char *buf, size_t size, const char *fmt, ...)
{
    size_t len = strlen(buf);
    if (len >= size) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, size - len, fmt, ap);
    va_end(ap);
}

void xf_describe_masked(const xf_case *c, char *buf, size_t size)
{
    xf_append(buf, size, "b=%d h=%d dk=%d sq=%d sk=%d pad=%s causal=%d", c->batch, c->heads, c->dk, c->seq_q,
              c->seq_k, xf_pad_name(c->pad), c->causal);
}

void xf_masked_options(const xf_case *c, char *buf, size_t size)
{
    xf_append(buf, size, " --pad %s --causal %d", xf_pad_name(c->pad), c->causal);
}

void xf_describe_rows(const xf_case *c, char *buf, size_t size)
{
    xf_append(buf, size, "rows=%d d=%d", c->batch * c->seq_q, xf_case_d_model(c));
}

void xf_no_options(const xf_case *c, char *buf, size_t size) { (void)c, (void)buf, (void)size; }

void xf_rows_case_of(int rows, int d, xf_case *c) { c->seq_q = c->seq_k = rows, c->dk = d; }
