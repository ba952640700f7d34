// Threaded softmax, add_layernorm and rmsnorm: rows handed out in chunks (an L1 of
// rows: variants/isa/blocking.c), each row done by the SIMD family's row
// kernel with the thread's scratch row. The chunks are dynamic because causal softmax rows grow in cost along the
// sequence. Whether to stream the output is decided once, from the whole
// call's working set, as the single-thread kernel does.
#include <stdlib.h>

#include "omp_family.h"

typedef struct {
    const xf_simd_kernels *k;
    xf_omp_buffers rows;
    int threads;
} rows_ctx;

static int rows_prepare(size_t row_floats, void **ctx)
{
    rows_ctx *r = calloc(1, sizeof *r);
    if (!r) return -1;
    r->k = xf_simd_widest_kernels();
    r->threads = xf_team_threads();
    if (xf_omp_buffers_new(&r->rows, r->threads, row_floats) != 0) return free(r), -1;
    *ctx = r;
    return 0;
}

void xf_omp_rows_release(void *ctx)
{
    rows_ctx *r = ctx;
    if (r) free(r->rows.base);
    free(r);
}

int xf_omp_softmax_prepare(const void *args, void **ctx)
{
    return rows_prepare((size_t)((const xf_softmax_args *)args)->seq_k, ctx);
}

int xf_omp_add_layernorm_prepare(const void *args, void **ctx)
{
    return rows_prepare((size_t)((const xf_add_layernorm_args *)args)->d, ctx);
}

int xf_omp_rmsnorm_prepare(const void *args, void **ctx)
{
    (void)args;
    return rows_prepare(0, ctx); // its row kernel needs no scratch row
}


// x and y are (batch,heads,seq_q,seq_k)
void xf_omp_softmax_run(const void *args, void *ctx)
{
    const xf_softmax_args *a = args;
    const rows_ctx *r = ctx;
    const size_t rows = (size_t)a->batch * a->heads * a->seq_q;
    const int stream = xf_stream_output(2 * rows * a->seq_k * sizeof(float)); // x read, y written
    const size_t chunk = (size_t)xf_chunk_rows((size_t)a->seq_k * sizeof(float));
#pragma omp parallel for schedule(dynamic) num_threads(r->threads)
    for (size_t r0 = 0; r0 < rows; r0 += chunk)
        r->k->softmax_rows(a, r0, r0 + chunk < rows ? r0 + chunk : rows,
                           xf_omp_buffer(&r->rows, xf_team_thread()), stream);
}

// x, r, y are (rows,d)
void xf_omp_add_layernorm_run(const void *args, void *ctx)
{
    const xf_add_layernorm_args *a = args;
    const rows_ctx *r = ctx;
    const int stream = xf_stream_output(3 * (size_t)a->rows * a->d * sizeof(float)); // x, r read, y written
    const int chunk = xf_chunk_rows((size_t)a->d * sizeof(float));
#pragma omp parallel for schedule(dynamic) num_threads(r->threads)
    for (int r0 = 0; r0 < a->rows; r0 += chunk)
        r->k->add_layernorm_rows(a, r0, r0 + chunk < a->rows ? r0 + chunk : a->rows,
                                 xf_omp_buffer(&r->rows, xf_team_thread()), stream);
}

// x, y are (rows,d)
void xf_omp_rmsnorm_run(const void *args, void *ctx)
{
    const xf_rmsnorm_args *a = args;
    const rows_ctx *r = ctx;
    const int stream = xf_stream_output(2 * (size_t)a->rows * a->d * sizeof(float)); // x read, y written
    const int chunk = xf_chunk_rows((size_t)a->d * sizeof(float));
#pragma omp parallel for schedule(dynamic) num_threads(r->threads)
    for (int r0 = 0; r0 < a->rows; r0 += chunk)
        r->k->rmsnorm_rows(a, r0, r0 + chunk < a->rows ? r0 + chunk : a->rows, stream);
}
