// The map of a padded batch's real tokens (parts.h), the same for both
// dtypes, and the bug a test may plant in every composition.
#include "parts.h"

xf_compose_bug xf_compose_planted_bug = XF_BUG_NONE;

xf_rows xf_rows_of(xf_exec *ex, int batch, int seq, const uint8_t *pad)
{
    xf_rows r = {.batch = batch, .seq = seq, .pad = pad};
    // ints in float-sized scratch: the same buffers on every pass
    r.off = (int *)xf_exec_buffer(ex, (size_t)batch);
    r.len = (int *)xf_exec_buffer(ex, (size_t)batch);
    r.row = (int *)xf_exec_buffer(ex, (size_t)batch * seq);
    if (!r.off || !r.len || !r.row) return r; // out of memory: prepare has failed
    for (int b = 0; b < batch; b++) {
        r.off[b] = r.n;
        for (int s = 0; s < seq; s++)
            if (!pad || !pad[(size_t)b * seq + s]) r.row[r.n++] = b * seq + s;
        r.len[b] = r.n - r.off[b];
    }
    return r;
}

