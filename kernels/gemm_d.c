#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

#include "gemm_d.h"

// -1: not yet read from XFBENCH_REF ("plain" selects the plain loops).
static int plain_loops = -1;

void xf_ref_set_plain(int plain) { plain_loops = plain; }

int xf_ref_plain(void)
{
    if (plain_loops < 0) {
        const char *env = getenv("XFBENCH_REF");
        plain_loops = env && !strcmp(env, "plain");
    }
    return plain_loops;
}

int xf_ref_in_parallel(void)
{
#ifdef _OPENMP
    return omp_in_parallel();
#else
    return 0;
#endif
}

int xf_ref_threads(void)
{
#ifdef _OPENMP
    return omp_get_num_procs();
#else
    return 1;
#endif
}

// BLIS's loops: the register tile MR x NR (12 AVX2 accumulators), a KC x NR
// micro-panel of b (16 KiB) in the L1, an MC x KC block of a (192 KiB) in
// the L2, a KC x NC panel of b (up to 8 MiB) in the L3, each packed once.
// The kernels' own blocking (variants/isa/blocking.c) is not reused: the
// reference must not depend on what it checks.
enum { MR = 6, NR = 8, KC = 256, MC = 96, NC = 4096 };

// kc x nr of b into [p][NR], zero-padded past n.
static void pack_b(int kc, int nr, const double *b, size_t rsb, size_t csb, double *out)
{
    for (int p = 0; p < kc; p++)
        for (int j = 0; j < NR; j++) out[p * NR + j] = j < nr ? b[p * rsb + j * csb] : 0.0;
}

static void pack_a(int mr, int kc, const double *a, size_t rsa, size_t csa, double *out)
{
    for (int p = 0; p < kc; p++)
        for (int i = 0; i < MR; i++) out[p * MR + i] = i < mr ? a[i * rsa + p * csa] : 0.0;
}

// ap is [kc][MR], bp is [kc][NR], t is (MR,NR).
// The tile's sums: portable C, and on a CPU with AVX2 and FMA the same
// sums with fused multiply-adds (one rounding per product and sum instead
// of two: the same fp64 arithmetic, at four times the rate).
static void tile_c(int kc, const double *ap, const double *bp, double t[MR][NR])
{
    for (int p = 0; p < kc; p++)
        for (int i = 0; i < MR; i++)
            for (int j = 0; j < NR; j++) t[i][j] += ap[p * MR + i] * bp[p * NR + j];
}

#if defined(__x86_64__)
// ap is [kc][MR], bp is [kc][NR], c is (MR,NR) at row stride ldc.
// A whole tile: the sums added to (add) or stored in c directly.
__attribute__((target("avx2,fma"))) static void tile_fma(int kc, const double *ap, const double *bp, double *c,
                                                         size_t ldc, int add)
{
    // Named accumulators: gcc keeps an array of vectors in memory.
    __m256d c00 = _mm256_setzero_pd(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00,
            c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    for (int p = 0; p < kc; p++, ap += MR, bp += NR) {
        const __m256d b0 = _mm256_loadu_pd(bp), b1 = _mm256_loadu_pd(bp + 4);
        __m256d a = _mm256_broadcast_sd(ap);
        c00 = _mm256_fmadd_pd(a, b0, c00), c01 = _mm256_fmadd_pd(a, b1, c01);
        a = _mm256_broadcast_sd(ap + 1);
        c10 = _mm256_fmadd_pd(a, b0, c10), c11 = _mm256_fmadd_pd(a, b1, c11);
        a = _mm256_broadcast_sd(ap + 2);
        c20 = _mm256_fmadd_pd(a, b0, c20), c21 = _mm256_fmadd_pd(a, b1, c21);
        a = _mm256_broadcast_sd(ap + 3);
        c30 = _mm256_fmadd_pd(a, b0, c30), c31 = _mm256_fmadd_pd(a, b1, c31);
        a = _mm256_broadcast_sd(ap + 4);
        c40 = _mm256_fmadd_pd(a, b0, c40), c41 = _mm256_fmadd_pd(a, b1, c41);
        a = _mm256_broadcast_sd(ap + 5);
        c50 = _mm256_fmadd_pd(a, b0, c50), c51 = _mm256_fmadd_pd(a, b1, c51);
    }
    const __m256d acc[MR][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}};
    for (int i = 0; i < MR; i++, c += ldc)
        for (int h = 0; h < 2; h++)
            _mm256_storeu_pd(c + 4 * h, add ? _mm256_add_pd(_mm256_loadu_pd(c + 4 * h), acc[i][h]) : acc[i][h]);
}
#endif

static int portable_tiles;

void xf_ref_set_portable(int portable) { portable_tiles = portable; }

// Read-only after libgcc's start-up constructor: safe from any thread.
static int have_fma(void)
{
#if defined(__x86_64__)
    return !portable_tiles && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

// ap is [kc][MR], bp is [kc][NR]; c is (mr,nr) of a tile at row stride ldc
static void micro(int kc, const double *ap, const double *bp, double *c, size_t ldc, int mr, int nr, int add, int use_fma)
{
#if defined(__x86_64__)
    if (use_fma) {
        if (mr == MR && nr == NR) {
            tile_fma(kc, ap, bp, c, ldc, add);
            return;
        }
        double t[MR][NR]; // a tile at the edge: computed whole, written in part
        tile_fma(kc, ap, bp, &t[0][0], NR, 0);
        for (int i = 0; i < mr; i++)
            for (int j = 0; j < nr; j++) c[i * ldc + j] = add ? c[i * ldc + j] + t[i][j] : t[i][j];
        return;
    }
#endif
    double t[MR][NR] = {{0}};
    tile_c(kc, ap, bp, t);
    for (int i = 0; i < mr; i++)
        for (int j = 0; j < nr; j++) c[i * ldc + j] = add ? c[i * ldc + j] + t[i][j] : t[i][j];
}

// a is (m,k) at strides (rsa,csa), b is (k,n) at (rsb,csb), c is (m,n) at row stride ldc
void xf_gemm_d(int m, int n, int k, const double *a, size_t rsa, size_t csa, const double *b, size_t rsb,
               size_t csb, double *c, size_t ldc)
{
    if (k == 0) {
        for (int i = 0; i < m; i++) memset(c + (size_t)i * ldc, 0, (size_t)n * sizeof *c);
        return;
    }
    const int ncap = n < NC ? n : NC;
    double *bp = malloc((size_t)KC * (ncap + NR) * sizeof *bp);
    const int use_fma = have_fma();
    for (int jc = 0; jc < n; jc += NC) {
        const int nc = n - jc < NC ? n - jc : NC;
        for (int pc = 0; pc < k; pc += KC) {
            const int kc = k - pc < KC ? k - pc : KC;
#pragma omp parallel num_threads(xf_ref_threads()) if (!xf_ref_in_parallel() && (size_t)m * nc * kc > 1 << 18)
            {
#pragma omp for
                for (int jr = 0; jr < nc; jr += NR)
                    pack_b(kc, nc - jr < NR ? nc - jr : NR, b + (size_t)pc * rsb + (size_t)(jc + jr) * csb, rsb, csb,
                           bp + (size_t)jr * kc);
                double *ap = malloc((size_t)KC * MC * sizeof *ap);
#pragma omp for schedule(dynamic)
                for (int ic = 0; ic < m; ic += MC) {
                    const int mc = m - ic < MC ? m - ic : MC;
                    for (int ir = 0; ir < mc; ir += MR)
                        pack_a(mc - ir < MR ? mc - ir : MR, kc, a + (size_t)(ic + ir) * rsa + (size_t)pc * csa, rsa,
                               csa, ap + (size_t)ir * kc);
                    for (int jr = 0; jr < nc; jr += NR)
                        for (int ir = 0; ir < mc; ir += MR)
                            micro(kc, ap + (size_t)ir * kc, bp + (size_t)jr * kc,
                                  c + (size_t)(ic + ir) * ldc + jc + jr, ldc, mc - ir < MR ? mc - ir : MR,
                                  nc - jr < NR ? nc - jr : NR, pc > 0, use_fma);
                }
                free(ap);
            }
        }
    }
    free(bp);
}
