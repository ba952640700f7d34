#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../variants/isa/isa.h"
#include "peak.h"
#include "registry.h"
#include "runner.h"

static int procs(void)
{
#ifdef _OPENMP
    return omp_get_num_procs();
#else
    return 1;
#endif
}

// Best of three: a neighbour on this VM can only slow a measurement down.
static double fma_on(const xf_family *f, int threads, double seconds)
{
    double best = 0.0;
    for (int rep = 0; rep < 3; rep++) {
        double total = 0.0;
#ifdef _OPENMP
#pragma omp parallel num_threads(threads) reduction(+ : total)
#endif
        total += f->fma_gflops(seconds / 3);
        if (total > best) best = total;
    }
    (void)threads;
    return best;
}

// STREAM triad a = b + s c on 3 arrays of 32 Mi floats (384 MiB, 12x the
// 32 MiB L3), best of 5, counting 12 bytes per element as STREAM does.
static double triad(int threads)
{
    const long n = 32l << 20;
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    if (!a || !b || !c) return free(a), free(b), free(c), 0.0;
    double best = 1e30;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static)
#endif
    for (long i = 0; i < n; i++) a[i] = 0.0f, b[i] = 1.0f, c[i] = 2.0f; // first touch per thread
    for (int rep = 0; rep < 5; rep++) {
        double t0 = xf_now_ns();
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static)
#endif
        for (long i = 0; i < n; i++) a[i] = b[i] + 3.0f * c[i];
        double t = (xf_now_ns() - t0) * 1e-9;
        if (t < best) best = t;
    }
    volatile float sink = a[n / 2];
    (void)sink;
    (void)threads;
    free(a), free(b), free(c);
    return 12.0 * n / best / 1e9;
}

int xf_peak_measure(xf_peak *p, double seconds, FILE *log)
{
    memset(p, 0, sizeof *p);
    p->procs = procs();
    if (log) fprintf(log, "%-10s %14s %14s\n", "", "1 thread", "all threads");
    for (int i = 0; i < xf_registry_count(); i++) {
        const xf_family *f = xf_registry_family(i);
        if (!f->fma_gflops || xf_isa_unavailable((xf_isa)f->isa)) continue;
        double one = fma_on(f, 1, seconds), all = fma_on(f, p->procs, seconds);
        if (log) fprintf(log, "FMA %-6s %8.1f GFLOP/s %8.1f GFLOP/s (%d threads)\n", f->name, one, all, p->procs);
        if (one > p->flops_1) {
            p->flops_1 = one, p->flops_all = all;
            snprintf(p->flops_family, sizeof p->flops_family, "%s", f->name);
        }
    }
    p->bw_1 = triad(1);
    p->bw_all = triad(p->procs);
    if (log) fprintf(log, "triad      %8.1f GB/s    %8.1f GB/s    (%d threads; 3 x 128 MiB arrays)\n",
                     p->bw_1, p->bw_all, p->procs);
    return p->flops_1 > 0 ? 0 : -1;
}

void xf_cache_path(const char *file, char *buf, size_t size)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && *xdg) snprintf(buf, size, "%s/xfbench/%s", xdg, file);
    else snprintf(buf, size, "%s/.cache/xfbench/%s", home && *home ? home : "/tmp", file);
}

void xf_cache_mkdirs(char *path)
{
    // One level at a time; a failure shows when the file is opened.
    for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        mkdir(path, 0755);
        *s = '/';
    }
}

void xf_peak_cache_path(char *buf, size_t size) { xf_cache_path("peak.txt", buf, size); }

static void key(const xf_machine *m, char *buf, size_t size)
{
    snprintf(buf, size, "%s|%s|%d", m->cpu, m->isa, procs());
}

int xf_peak_load(xf_peak *p, const xf_machine *m)
{
    char path[512], want[512], line[1024];
    xf_peak_cache_path(path, sizeof path);
    key(m, want, sizeof want);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    int ok = fgets(line, sizeof line, f) && !strncmp(line, want, strlen(want)) && line[strlen(want)] == '\n' &&
             fscanf(f, "%d %lf %lf %lf %lf %15s", &p->procs, &p->flops_1, &p->flops_all, &p->bw_1,
                    &p->bw_all, p->flops_family) == 6;
    fclose(f);
    return ok && p->flops_1 > 0 && p->bw_1 > 0 ? 0 : -1;
}

void xf_peak_save(const xf_peak *p, const xf_machine *m)
{
    char path[512], k[512];
    xf_peak_cache_path(path, sizeof path);
    xf_cache_mkdirs(path);
    FILE *f = fopen(path, "w");
    if (!f) return;
    key(m, k, sizeof k);
    fprintf(f, "%s\n%d %.3f %.3f %.3f %.3f %s\n", k, p->procs, p->flops_1, p->flops_all, p->bw_1,
            p->bw_all, p->flops_family);
    fclose(f);
}

static double scaled(double one, double all, int procs, int threads)
{
    if (threads <= 1) return one;
    return threads >= procs ? all : one * threads < all ? one * threads : all;
}

double xf_peak_flops(const xf_peak *p, int threads) { return scaled(p->flops_1, p->flops_all, p->procs, threads); }
double xf_peak_bw(const xf_peak *p, int threads) { return scaled(p->bw_1, p->bw_all, p->procs, threads); }
