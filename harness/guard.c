#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"

// 4 KiB each side: catches an off-by-one and a whole stray row of up to
// 1024 floats; the pattern is a NaN no arithmetic produces.
enum { GUARD_BYTES = 4096 };
static const uint32_t GUARD_WORD = 0x7fa5a5a5u;
static const uint32_t POISON_WORD = 0x7fc0deadu;

static void fill(void *p, size_t bytes, uint32_t word)
{
    uint32_t *w = p;
    for (size_t i = 0; i < bytes / 4; i++) w[i] = word;
}

int xf_guarded_alloc(xf_guarded *g, size_t count)
{
    size_t body = (count * sizeof(float) + 63) & ~(size_t)63;
    g->raw = aligned_alloc(64, body + 2 * GUARD_BYTES);
    if (!g->raw) return -1;
    g->data = (float *)(g->raw + GUARD_BYTES);
    g->count = count;
    fill(g->raw, GUARD_BYTES, GUARD_WORD);
    // Everything after the data, including the alignment padding, is guard.
    fill((unsigned char *)(g->data + count), body - count * sizeof(float) + GUARD_BYTES,
         GUARD_WORD);
    return 0;
}

void xf_guarded_free(xf_guarded *g)
{
    free(g->raw);
    g->raw = NULL;
    g->data = NULL;
}

void xf_guarded_poison(xf_guarded *g) { fill(g->data, g->count * sizeof(float), POISON_WORD); }

int xf_guarded_intact(const xf_guarded *g, long *offset)
{
    const uint32_t *before = (const uint32_t *)g->raw;
    for (long i = 0; i < GUARD_BYTES / 4; i++)
        if (before[i] != GUARD_WORD) {
            *offset = i - GUARD_BYTES / 4;
            return 0;
        }
    size_t body = (g->count * sizeof(float) + 63) & ~(size_t)63;
    const uint32_t *after = (const uint32_t *)(g->data + g->count);
    size_t n = (body - g->count * sizeof(float) + GUARD_BYTES) / 4;
    for (size_t i = 0; i < n; i++)
        if (after[i] != GUARD_WORD) {
            *offset = (long)(g->count + i);
            return 0;
        }
    return 1;
}
