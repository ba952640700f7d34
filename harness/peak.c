#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../variants/isa/amx.h"
#include "../variants/isa/caches.h"
#include "../variants/isa/clock.h"
#include "../variants/isa/isa.h"
#include "../variants/isa/huge.h"
#include "clock_probe.h"
#include "peak.h"
#include "registry.h"
#include "runner.h"

const char *xf_roof_name(xf_roof r)
{
    static const char *const names[] = {"L1", "L2", "L3", "DRAM", "FMA"};
    return names[r];
}

static int procs(void)
{
#ifdef _OPENMP
    return omp_get_num_procs();
#else
    return 1;
#endif
}

// Best of ten short samples: a neighbour on this VM can only slow a
// measurement down, and bursts last seconds. Best of three samples of a
// third of the time each once measured a Zen 3 core at 72.9 GFLOP/s where
// it sustains 95, and a GEMM then stood at 117% of that "peak".
// rate: a family's fma_gflops or bf16_gflops.
static double rate_on(double (*rate)(double), int threads, double seconds)
{
    enum { SAMPLES = 10 };
    double best = 0.0;
    for (int rep = 0; rep < SAMPLES; rep++) {
        double total = 0.0;
#ifdef _OPENMP
#pragma omp parallel num_threads(threads) reduction(+ : total)
#endif
        total += rate(seconds / SAMPLES);
        if (total > best) best = total;
    }
    (void)threads;
    return best;
}

static double fma_on(const xf_family *f, int threads, double seconds)
{
    return rate_on(f->fma_gflops, threads, seconds);
}

typedef void (*triad_fn)(float *a, const float *b, const float *c, long n, int stream);
typedef float (*read_fn)(const float *b, long n);

// Arrays of the roofs: from 2 MiB on in huge pages, as the data of the
// kernels they bound (variants/isa/huge.h).
static float *roof_array(size_t bytes) { return xf_alloc_huge(bytes); }

// STREAM triad (read NULL) or a read-only pass (triad NULL) with
// `per_thread` bytes of working set on each thread, counting 12 bytes per
// element for triad (3 arrays) as STREAM does and 4 for a read (1 array):
// every thread its own arrays (first touch), passes repeated so each
// sample moves at least 512 MiB per thread, best of `samples`.
static double stream_bw(triad_fn triad, read_fn read, double per_thread, int threads, int stream, int samples)
{
    const double width = triad ? 12.0 : 4.0;
    const long n = ((long)(per_thread / width) + 127) / 128 * 128;
    const long passes = (long)((512.0 * (1 << 20)) / (width * n)) + 1;
    double best = 1e30;
    int failed = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(threads) reduction(| : failed)
#endif
    {
        const size_t bytes = (size_t)n * sizeof(float);
        float *a = triad ? roof_array(bytes) : NULL, *b = roof_array(bytes), *c = triad ? roof_array(bytes) : NULL;
        failed = !b || (triad && (!a || !c));
        if (!failed)
            for (long i = 0; i < n; i++) b[i] = 1.0f;
        if (!failed && triad)
            for (long i = 0; i < n; i++) a[i] = 0.0f, c[i] = 2.0f;
        float sum = 0.0f;
        for (int s = 0; s < samples; s++) {
            double t0 = 0.0;
#ifdef _OPENMP
#pragma omp barrier
#pragma omp master
#endif
            t0 = xf_now_ns();
            for (long r = 0; r < passes && !failed; r++) {
                if (triad) triad(a, b, c, n, stream);
                else sum += read(b, n);
            }
#ifdef _OPENMP
#pragma omp barrier
#pragma omp master
#endif
            {
                double t = xf_now_ns() - t0;
                if (t < best) best = t;
            }
        }
        if (!failed) {
            volatile float sink = triad ? a[n / 2] : sum;
            (void)sink;
        }
        free(a), free(b), free(c);
    }
    (void)threads;
    if (failed) return 0.0;
    return width * (double)n * passes * threads / best;
}

static double triad_bw(triad_fn triad, double per_thread, int threads, int stream, int samples)
{
    return stream_bw(triad, NULL, per_thread, threads, stream, samples);
}

static double read_bw(read_fn read, double per_thread, int threads, int samples)
{
    return stream_bw(NULL, read, per_thread, threads, 0, samples);
}

// The working set each level is measured at on one thread: half of it
// (so the level below does not hold it: each is at least twice the one
// below on the CPUs seen); DRAM at 4x the L3 (at least 384 MiB), within
// a quarter of the memory available. Reported roofs are made monotone
// (xf_peak_measure).
static void working_sets(const xf_caches *c, double mem_available, double ws[XF_NLEVELS])
{
    ws[XF_ROOF_L1] = c->l1d / 2.0;
    ws[XF_ROOF_L2] = c->l2 / 2.0;
    ws[XF_ROOF_L3] = c->l3 / 2.0;
    double dram = 4.0 * c->l3 > 384.0 * (1 << 20) ? 4.0 * c->l3 : 384.0 * (1 << 20);
    if (mem_available > 0 && dram > mem_available / 4) dram = mem_available / 4;
    ws[XF_ROOF_DRAM] = dram;
}

// How the FMA roof could be fooled, and the guard: a rate above what two
// FMA units can issue (2 x 2 flops x lanes a cycle: no x86-64 core has
// more) at the clock the chains read means the timer or the loop lies (a
// loop the compiler shortened, a clock that jumped); below is what a busy
// neighbour or a throttled core shows, which the best of ten samples and
// the cache's highest-ever roof guard against. Printed as flops per cycle.
static double clock_now(void)
{
    return xf_clock_agreed(xf_chain_ghz(XF_CHAIN_ADD_REG, 20), xf_chain_ghz(XF_CHAIN_IMUL, 20));
}

static int fma_lanes(const xf_family *f) { return f->isa >= XF_ISA_AVX512 ? 16 : f->isa == XF_ISA_AVX2 ? 8 : 4; }

// The clock kept with an FMA roof of `gflops` measured by `family`: the
// chains' reading, but at least the clock that rate needs at two FMA
// units' 2 x 2 x lanes flops a cycle. The host's clock moves within a
// second, and the chains, timed after the loop, once read 3.46 GHz for an
// avx2 roof of 113.6 GFLOP/s: 32.9 flops a cycle of 32 possible, a roof
// 3% above any the core can reach at a case's clock.
static double roof_clock(double gflops, const char *family, double ghz)
{
    const xf_family *f = family[0] ? xf_registry_find_family(family) : NULL;
    if (ghz <= 0 || !f) return ghz;
    const double needs = gflops / (4.0 * fma_lanes(f));
    return ghz > needs ? ghz : needs;
}

static void fma_plausible(FILE *log, const xf_family *f, double gflops, double ghz)
{
    const int lanes = fma_lanes(f);
    if (ghz <= 0) {
        fprintf(log, "    (clock unknown: the clock chains disagree; flops per cycle not checked)\n");
        return;
    }
    const double per_cycle = gflops / ghz, most = 2.0 * 2.0 * lanes;
    fprintf(log, "    %.1f flops/cycle at %.2f GHz (at most %.0f: two FMA units of %d lanes)\n", per_cycle, ghz, most,
            lanes);
    if (per_cycle > 1.05 * most)
        fprintf(log, "warning: %s's FMA rate is more than two FMA units can issue at the measured clock: the timer"
                     " or the clock probe is fooled\n", f->name);
}

// What the family's GEMM micro-kernel (amx: its block of tiles) sustains
// with its operands in L1, against the rate of the roof loop named `roof`
// (`roof_gflops`): the share of the roof its GEMM and attention rows could
// reach at best. Printed, not kept: %peak stays against the roof, the
// measure the project's targets are set in.
static void tile_ceiling(FILE *log, const xf_family *f, const char *roof, double roof_gflops, double seconds)
{
    if (!f->tile_gflops) return;
    const double tile = rate_on(f->tile_gflops, 1, seconds);
    fprintf(log, "    GEMM tile in L1 %.1f GFLOP/s, %.2f of the %s loop: the ceiling of %s's GEMM and attention\n", tile,
            tile / roof_gflops, roof, f->name);
    // The tile does the roof loop's work and more: faster, the loop was
    // slowed (a neighbour, a clock change) and every row's %peak is high.
    if (tile > 1.05 * roof_gflops)
        fprintf(log, "warning: %s's GEMM tile outran its roof loop: the roof was measured low\n", f->name);
}

// The FMA roofs on 1 and all threads: the best SIMD family's vectors;
// naive's (SSE2) only where none runs. *triad and *read: that family's
// bandwidth loops (NULL if none ran).
static void measure_fma(xf_peak *p, double seconds, FILE *log, triad_fn *triad, read_fn *read)
{
    for (int pass = 0; pass < 2 && !p->flops_1; pass++)
        for (int i = 0; i < xf_registry_count(); i++) {
            const xf_family *f = xf_registry_family(i);
            if (!f->fma_gflops || xf_isa_unavailable((xf_isa)f->isa)) continue;
            if ((pass == 0) != (f->isa != XF_ISA_SCALAR)) continue;
            double one = fma_on(f, 1, seconds), all = fma_on(f, p->procs, seconds);
            const double ghz = clock_now(); // right after: the clock the roof ran at
            // Every core has its own FMA units: all threads well below procs
            // x one means the host ran two of them on one core (seen on this
            // VM: 96.8 GFLOP/s on 2 threads against 96.2 on 1). Measured
            // again, up to three times, keeping the best.
            for (int retry = 0; retry < 3 && all < 0.75 * p->procs * one; retry++) {
                const double again = fma_on(f, p->procs, seconds);
                if (again > all) all = again;
            }
            if (log && all < 0.75 * p->procs * one)
                fprintf(log, "warning: %d threads reach only %.2fx one thread's FMA rate: the host may be running"
                             " them on fewer cores; rows on %d threads are held against this measured roof\n",
                        p->procs, all / one, p->procs);
            if (log) {
                fprintf(log, "FMA %-10s %10.1f GFLOP/s %10.1f GFLOP/s (%d threads)\n", f->name, one, all, p->procs);
                fma_plausible(log, f, one, ghz);
                tile_ceiling(log, f, "FMA", one, seconds);
            }
            if (one > p->flops_1) {
                p->flops_1 = one, p->flops_all = all, p->ghz = roof_clock(one, f->name, ghz);
                *triad = f->triad, *read = f->read;
                snprintf(p->flops_family, sizeof p->flops_family, "%s", f->name);
            }
        }
}

// The bf16 dot product's roof, where a family has one that runs here.
static void measure_bf16(xf_peak *p, double seconds, FILE *log)
{
    for (int i = 0; i < xf_registry_count(); i++) {
        const xf_family *f = xf_registry_family(i);
        if (!f->bf16_gflops || xf_isa_unavailable((xf_isa)f->isa)) continue;
        const double one = rate_on(f->bf16_gflops, 1, seconds), all = rate_on(f->bf16_gflops, p->procs, seconds);
        if (log)
            fprintf(log, "bf16 %-9s %10.1f GFLOP/s %10.1f GFLOP/s (%d threads; the roof of bf16 rows)\n", f->name,
                    one, all, p->procs);
        if (one > p->bf16_1) {
            p->bf16_1 = one, p->bf16_all = all;
            snprintf(p->bf16_family, sizeof p->bf16_family, "%s", f->name);
        }
    }
}

// AMX's bf16 roof, where it runs here (variants/isa/amx.h).
static void measure_amx(xf_peak *p, double seconds, FILE *log)
{
    const char *why = xf_amx_unavailable();
    if (why) {
        if (log) fprintf(log, "bf16 AMX       none here (%s)\n", why);
        return;
    }
    p->amx_1 = rate_on(xf_amx_bf16_gflops, 1, seconds), p->amx_all = rate_on(xf_amx_bf16_gflops, p->procs, seconds);
    if (log)
        fprintf(log, "bf16 AMX  %14.1f GFLOP/s %10.1f GFLOP/s (%d threads; tdpbf16ps: the roof of rows that run on AMX)\n",
                p->amx_1, p->amx_all, p->procs);
    const xf_family *amx = xf_registry_find_family("amx");
    if (log && amx && p->amx_1 > 0) tile_ceiling(log, amx, "AMX", p->amx_1, seconds);
}

// The triad and read-only bandwidths of every memory level, on 1 and all threads.
static void measure_bandwidths(xf_peak *p, triad_fn triad, read_fn read, double seconds)
{
    // Best of many: bandwidth bursts of neighbours last longer than one sample.
    const int samples = seconds >= 1.0 ? 15 : 3;
    for (int l = XF_NLEVELS - 1; l >= 0; l--) {
        // L1 and L2 are per core: each thread its own working set; L3 and
        // DRAM are shared: the working set split between the threads.
        const int shared = l >= XF_ROOF_L3;
        p->bw_1[l] = triad_bw(triad, p->ws[l], 1, 0, samples);
        p->bw_all[l] = triad_bw(triad, shared ? p->ws[l] / p->procs : p->ws[l], p->procs, 0, samples);
        // A row is held against a level when the level holds at least half
        // its bytes (xf_peak_level), so the smallest working set of a
        // level's rows is twice the level before: measured there too, and
        // the faster counts (bandwidth only falls as a working set grows).
        // This also covers a virtual machine's L3, reported as the whole
        // socket's, more than its share. DRAM: streaming stores too, which
        // skip the read for ownership of a.
        const double edge = l == XF_ROOF_L1 ? 0.0 : l == XF_ROOF_DRAM ? 2.0 * p->cache[2] : 2.0 * p->cache[l - 1];
        if (edge > 0 && edge < p->ws[l]) {
            double one = triad_bw(triad, edge, 1, 0, samples);
            // on all threads, the level before holds procs x its size if
            // it is per core (L1, L2): each thread twice its own share
            const double per_thread = l == XF_ROOF_DRAM ? edge / p->procs : edge;
            double all = triad_bw(triad, per_thread, p->procs, 0, samples);
            if (one > p->bw_1[l]) p->bw_1[l] = one;
            if (all > p->bw_all[l]) p->bw_all[l] = all;
        }
        if (l == XF_ROOF_DRAM) {
            double one = triad_bw(triad, p->ws[l], 1, 1, samples);
            double all = triad_bw(triad, p->ws[l] / p->procs, p->procs, 1, samples);
            if (one > p->bw_1[l]) p->bw_1[l] = one;
            if (all > p->bw_all[l]) p->bw_all[l] = all;
        }
        // The read-only roof at the same working sets (and at the edge).
        p->rd_1[l] = read_bw(read, p->ws[l], 1, samples);
        p->rd_all[l] = read_bw(read, shared ? p->ws[l] / p->procs : p->ws[l], p->procs, samples);
        if (edge > 0 && edge < p->ws[l]) {
            double one = read_bw(read, edge, 1, samples);
            double all = read_bw(read, l == XF_ROOF_DRAM ? edge / p->procs : edge, p->procs, samples);
            if (one > p->rd_1[l]) p->rd_1[l] = one;
            if (all > p->rd_all[l]) p->rd_all[l] = all;
        }
        // A roof bounds: a level is never slower than the one behind it
        // (a working set it holds could always be served from further out).
        if (l < XF_ROOF_DRAM && p->bw_1[l] < p->bw_1[l + 1]) p->bw_1[l] = p->bw_1[l + 1];
        if (l < XF_ROOF_DRAM && p->bw_all[l] < p->bw_all[l + 1]) p->bw_all[l] = p->bw_all[l + 1];
        if (l < XF_ROOF_DRAM && p->rd_1[l] < p->rd_1[l + 1]) p->rd_1[l] = p->rd_1[l + 1];
        if (l < XF_ROOF_DRAM && p->rd_all[l] < p->rd_all[l + 1]) p->rd_all[l] = p->rd_all[l + 1];
    }
}

static void print_bandwidths(const xf_peak *p, FILE *log)
{
    for (int l = 0; l < XF_NLEVELS && log; l++)
        fprintf(log, "triad %-8s %10.1f GB/s    %10.1f GB/s    (%d threads; working set %.3g MiB%s)\n",
                xf_roof_name((xf_roof)l), p->bw_1[l], p->bw_all[l], p->procs, p->ws[l] / (1 << 20),
                l == XF_ROOF_L1 ? "" : l == XF_ROOF_DRAM ? " and 2x L3, stores cached or streaming" : " and 2x the level before");
    for (int l = 0; l < XF_NLEVELS && log; l++)
        fprintf(log, "read  %-8s %10.1f GB/s    %10.1f GB/s    (read-only: the roof of decoding)\n",
                xf_roof_name((xf_roof)l), p->rd_1[l], p->rd_all[l]);
}

int xf_peak_measure(xf_peak *p, double seconds, FILE *log)
{
    memset(p, 0, sizeof *p);
    p->procs = procs();
    const xf_caches *c = xf_caches_get();
    p->cache[0] = (double)c->l1d, p->cache[1] = (double)c->l2, p->cache[2] = (double)c->l3;
    xf_machine m;
    xf_machine_read(&m);
    working_sets(c, m.mem_available, p->ws);
    if (log) {
        fprintf(log, "caches: L1d %.0f KiB (%s), L2 %.0f KiB (%s) per core, L3 %.0f MiB (%s), shared by %d CPU(s): %.1f MiB a core\n",
                p->cache[0] / 1024, c->source[0], p->cache[1] / 1024, c->source[1],
                p->cache[2] / (1 << 20), c->source[2], c->l3_sharing, (double)c->l3_core / (1 << 20));
        fprintf(log, "%-14s %16s %16s\n", "", "1 thread", "all threads");
    }
    triad_fn triad = NULL;
    read_fn read = NULL;
    measure_fma(p, seconds, log, &triad, &read);
    if (!triad || !read) return -1;
    measure_bf16(p, seconds, log);
    measure_amx(p, seconds, log);
    measure_bandwidths(p, triad, read, seconds);
    print_bandwidths(p, log);
    return p->flops_1 > 0 && p->bw_1[XF_ROOF_DRAM] > 0 ? 0 : -1;
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

// A capped run, one with other caches, or one allowed fewer CPUs than the
// machine has (taskset) has other roofs and other fastest kernels: a file
// of its own (stem-avx2.txt, ...), so that runs alternating between them
// do not measure or tune again each time, and none overwrites the
// machine's (stem.txt is the machine as it is).
void xf_run_cache_path(const char *stem, char *buf, size_t size)
{
    const char *cap = getenv("XFBENCH_MAX_ISA"), *caches = getenv("XFBENCH_CACHES");
    char capped[40] = "", cached[80] = "", cpus[24] = "", file[160];
    if (cap && *cap) snprintf(capped, sizeof capped, "-%s", cap);
    if (caches && *caches) {
        const xf_caches *c = xf_caches_get();
        snprintf(cached, sizeof cached, "-caches-%zu-%zu-%zu", c->l1d, c->l2, c->l3);
    }
    if (procs() != (int)sysconf(_SC_NPROCESSORS_ONLN)) snprintf(cpus, sizeof cpus, "-cpus%d", procs());
    snprintf(file, sizeof file, "%s%s%s%s.txt", stem, capped, cached, cpus);
    xf_cache_path(file, buf, size);
}

void xf_peak_cache_path(char *buf, size_t size) { xf_run_cache_path("peak", buf, size); }

// The cap and the cache sizes are part of the key: a capped run's roofs
// are the smaller CPU's, and the working sets follow the caches
// (XFBENCH_CACHES may imitate another CPU's).
static void key(const xf_machine *m, char *buf, size_t size)
{
    const char *cap = getenv("XFBENCH_MAX_ISA");
    const xf_caches *c = xf_caches_get();
    snprintf(buf, size, "v4|%s|%s|cap %s|%d|caches %zu %zu %zu", m->cpu, m->isa, cap && *cap ? cap : "none", procs(),
             c->l1d, c->l2, c->l3);
}

int xf_peak_load(xf_peak *p, const xf_machine *m)
{
    char path[512], want[512], line[1024];
    xf_peak_cache_path(path, sizeof path);
    key(m, want, sizeof want);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    memset(p, 0, sizeof *p);
    int ok = fgets(line, sizeof line, f) && !strncmp(line, want, strlen(want)) && line[strlen(want)] == '\n' &&
             fscanf(f, "%d %lf %lf %15s", &p->procs, &p->flops_1, &p->flops_all, p->flops_family) == 4;
    for (int l = 0; ok && l < XF_NLEVELS; l++)
        ok = fscanf(f, "%lf %lf %lf %lf %lf", &p->bw_1[l], &p->bw_all[l], &p->ws[l], &p->rd_1[l], &p->rd_all[l]) == 5 &&
             p->bw_1[l] > 0 && p->rd_1[l] > 0;
    ok = ok && fscanf(f, "%lf %lf %lf", &p->cache[0], &p->cache[1], &p->cache[2]) == 3;
    ok = ok && fscanf(f, "%lf %lf %15s", &p->bf16_1, &p->bf16_all, p->bf16_family) == 3;
    if (!strcmp(p->bf16_family, "-")) p->bf16_family[0] = '\0';
    if (ok && fscanf(f, " busy %d", &p->busy) != 1) p->busy = 0; // a file from before the flag
    if (ok && fscanf(f, " ghz %lf", &p->ghz) != 1) p->ghz = 0;   // before the clock: unknown
    ok = ok && fscanf(f, " amx %lf %lf", &p->amx_1, &p->amx_all) == 2;
    fclose(f);
    return ok && p->flops_1 > 0 ? 0 : -1;
}

static void keep_max(double *now, double before)
{
    if (before > *now) *now = before;
}

// The compute roofs kept of p's and old's: each the higher once old's are
// put at p's clock. A roof at a known clock wins over one at an unknown
// clock (a file from before the clock was kept, or chains that disagreed):
// the two cannot be compared, and only the known one can be scaled.
static void keep_compute_roofs(xf_peak *p, xf_peak *old)
{
    old->ghz = roof_clock(old->flops_1, old->flops_family, old->ghz); // a file from before the floor
    if (p->ghz > 0 && old->ghz > 0) {
        const double to_now = p->ghz / old->ghz;
        old->flops_1 *= to_now, old->flops_all *= to_now, old->bf16_1 *= to_now, old->bf16_all *= to_now;
        old->amx_1 *= to_now, old->amx_all *= to_now;
    }
    else if (p->ghz > 0) return;
    else if (old->ghz > 0) {
        p->flops_1 = old->flops_1, p->flops_all = old->flops_all, p->ghz = old->ghz;
        p->bf16_1 = old->bf16_1, p->bf16_all = old->bf16_all, p->amx_1 = old->amx_1, p->amx_all = old->amx_all;
        return;
    }
    keep_max(&p->flops_1, old->flops_1), keep_max(&p->flops_all, old->flops_all);
    keep_max(&p->bf16_1, old->bf16_1), keep_max(&p->bf16_all, old->bf16_all);
    keep_max(&p->amx_1, old->amx_1), keep_max(&p->amx_all, old->amx_all);
}

void xf_peak_save(xf_peak *p, const xf_machine *m)
{
    char path[512], k[512];
    xf_peak old;
    if (xf_peak_load(&old, m) == 0 && old.procs == p->procs) {
        // Busy only if both were: each roof below is the higher of the two.
        p->busy = p->busy && old.busy;
        keep_compute_roofs(p, &old);
        for (int l = 0; l < XF_NLEVELS; l++) {
            keep_max(&p->bw_1[l], old.bw_1[l]), keep_max(&p->bw_all[l], old.bw_all[l]);
            keep_max(&p->rd_1[l], old.rd_1[l]), keep_max(&p->rd_all[l], old.rd_all[l]);
        }
    }
    xf_peak_cache_path(path, sizeof path);
    xf_cache_mkdirs(path);
    FILE *f = fopen(path, "w");
    if (!f) return;
    key(m, k, sizeof k);
    fprintf(f, "%s\n%d %.3f %.3f %s\n", k, p->procs, p->flops_1, p->flops_all, p->flops_family);
    for (int l = 0; l < XF_NLEVELS; l++)
        fprintf(f, "%.3f %.3f %.0f %.3f %.3f\n", p->bw_1[l], p->bw_all[l], p->ws[l], p->rd_1[l], p->rd_all[l]);
    fprintf(f, "%.0f %.0f %.0f\n", p->cache[0], p->cache[1], p->cache[2]);
    fprintf(f, "%.3f %.3f %s\n", p->bf16_1, p->bf16_all, p->bf16_family[0] ? p->bf16_family : "-");
    fprintf(f, "busy %d\nghz %.3f\namx %.3f %.3f\n", p->busy, p->ghz, p->amx_1, p->amx_all);
    fclose(f);
}

static double scaled(double one, double all, int procs, int threads)
{
    if (threads <= 1) return one;
    return threads >= procs ? all : one * threads < all ? one * threads : all;
}

double xf_peak_flops(const xf_peak *p, int threads) { return scaled(p->flops_1, p->flops_all, p->procs, threads); }

double xf_peak_flops_of(const xf_peak *p, xf_dtype d, int threads)
{
    if (d == XF_BF16 && p->bf16_1 > 0) return scaled(p->bf16_1, p->bf16_all, p->procs, threads);
    return xf_peak_flops(p, threads);
}
double xf_peak_flops_at(const xf_peak *p, xf_dtype d, int threads, double ghz)
{
    const double flops = xf_peak_flops_of(p, d, threads);
    return ghz > 0 && p->ghz > 0 ? flops * ghz / p->ghz : flops;
}

double xf_peak_amx_at(const xf_peak *p, int threads, double ghz)
{
    const double flops = scaled(p->amx_1, p->amx_all, p->procs, threads);
    return ghz > 0 && p->ghz > 0 ? flops * ghz / p->ghz : flops;
}

double xf_peak_bw(const xf_peak *p, xf_roof level, int threads)
{
    return scaled(p->bw_1[level], p->bw_all[level], p->procs, threads);
}

double xf_peak_read_bw(const xf_peak *p, xf_roof level, int threads)
{
    return scaled(p->rd_1[level], p->rd_all[level], p->procs, threads);
}

xf_roof xf_peak_level(const xf_peak *p, double bytes, int threads)
{
    const int cores = threads < p->procs ? threads : p->procs;
    const double held[3] = {p->cache[0] * cores, p->cache[1] * cores, p->cache[2]};
    for (int l = 0; l < 3; l++)
        if (bytes / 2 <= held[l]) return (xf_roof)l;
    return XF_ROOF_DRAM;
}
