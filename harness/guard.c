#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"

// 4 KiB each side: catches an off-by-one and a whole stray row of up to
// 1024 floats; the pattern is a NaN no arithmetic produces (a signalling
// one), in the element's own width: 0x7fa5a5a5 for fp32, 0x7fa5 for bf16.
enum { GUARD_BYTES = 4096 };
static const uint32_t GUARD_WORD = 0x7fa5a5a5u, POISON_WORD = 0x7fc0deadu;
static const uint16_t GUARD_HALF = 0x7fa5u, POISON_HALF = 0x7fc1u;

static void fill(void *p, size_t bytes, size_t elem, int poison)
{
    if (elem == 4) {
        const uint32_t w = poison ? POISON_WORD : GUARD_WORD;
        for (size_t i = 0; i < bytes / 4; i++) memcpy((unsigned char *)p + 4 * i, &w, 4);
    } else {
        const uint16_t h = poison ? POISON_HALF : GUARD_HALF;
        for (size_t i = 0; i < bytes / 2; i++) memcpy((unsigned char *)p + 2 * i, &h, 2);
    }
}

static size_t body_bytes(const xf_guarded *g) { return (g->count * g->elem + 63) & ~(size_t)63; }

static int alloc(xf_guarded *g, size_t count, size_t elem)
{
    g->elem = elem;
    g->count = count;
    size_t body = body_bytes(g);
    g->raw = aligned_alloc(64, body + 2 * GUARD_BYTES);
    if (!g->raw) return -1;
    g->data = (float *)(g->raw + GUARD_BYTES);
    g->data16 = elem == 2 ? (xf_bf16 *)(g->raw + GUARD_BYTES) : NULL;
    fill(g->raw, GUARD_BYTES, elem, 0);
    // Everything after the data, including the alignment padding, is guard.
    fill(g->raw + GUARD_BYTES + count * elem, body - count * elem + GUARD_BYTES, elem, 0);
    return 0;
}

int xf_guarded_alloc(xf_guarded *g, size_t count) { return alloc(g, count, 4); }
int xf_guarded_alloc_bf16(xf_guarded *g, size_t count) { return alloc(g, count, 2); }

void xf_guarded_free(xf_guarded *g)
{
    free(g->raw);
    g->raw = NULL;
    g->data = NULL;
    g->data16 = NULL;
}

void xf_guarded_poison(xf_guarded *g) { fill(g->data, g->count * g->elem, g->elem, 1); }

int xf_guarded_intact(const xf_guarded *g, long *offset)
{
    unsigned char want[GUARD_BYTES];
    fill(want, GUARD_BYTES, g->elem, 0);
    for (long i = 0; i < GUARD_BYTES; i += (long)g->elem)
        if (memcmp(g->raw + i, want + i, g->elem)) {
            *offset = (i - GUARD_BYTES) / (long)g->elem;
            return 0;
        }
    const unsigned char *after = g->raw + GUARD_BYTES + g->count * g->elem;
    size_t n = body_bytes(g) - g->count * g->elem + GUARD_BYTES;
    for (size_t i = 0; i < n; i += g->elem)
        if (memcmp(after + i, want, g->elem)) {
            *offset = (long)(g->count + i / g->elem);
            return 0;
        }
    return 1;
}
