#define _GNU_SOURCE // sched_getaffinity, cpu_set_t
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../variants/isa/clock.h"
#include "clock_probe.h"
#include "contention.h"
#include "stages/stage.h"

static struct {
    int threads, cpus; // 0: not read (one thread, or no OpenMP)
} team;

// Pinned threads stay where they were bound, and a thread bound to a core
// already taken shares it for the whole run (the case behind
// harness/app.c's start_again: 2 threads on one core, half the speed,
// flagged by none of the per-case probes, which watch other tasks, not
// ours).
void xf_contention_team(int threads)
{
#ifdef _OPENMP
    if (threads < 2) return;
    cpu_set_t all;
    CPU_ZERO(&all);
#pragma omp parallel num_threads(threads)
    {
        cpu_set_t mine;
        if (sched_getaffinity(0, sizeof mine, &mine) == 0) {
#pragma omp critical(xf_team_cpus)
            CPU_OR(&all, &all, &mine);
        }
    }
    team.threads = threads, team.cpus = CPU_COUNT(&all);
#else
    (void)threads;
#endif
}

// Runnable threads of this process (state R in /proc/self/task/*/stat):
// our own OpenMP or BLAS workers spinning are not competitors.
static int own_running(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) return 1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = '\0';
        const char *close = strrchr(buf, ')'); // the name may hold spaces and parentheses
        if (close && close[1] == ' ' && close[2] == 'R') n++;
    }
    closedir(d);
    return n;
}

static double thread_cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return 1e9 * (double)t.tv_sec + (double)t.tv_nsec;
}

static void read_stat(xf_snapshot *s)
{
    s->steal_ticks = 0, s->procs_running = 0;
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        unsigned long long v[8];
        // cpu  user nice system idle iowait irq softirq steal ...
        if (!strncmp(line, "cpu ", 4) &&
            sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                   &v[6], &v[7]) == 8)
            s->steal_ticks = v[7];
        else
            sscanf(line, "procs_running %d", &s->procs_running);
    }
    fclose(f);
}

// The core clock (clock_probe.h): a register-add chain and a multiply
// chain, each the best of 5 tries (an interruption can only make a try
// slower), 0 (unknown, flags nothing) where the two disagree. A clock that
// moved between before and after (thermal or power limits, a co-tenant's
// turbo budget) changes what a time means.
//
// The runnable count is read after each try and the smallest kept: a
// kernel thread that wakes for a moment is not a competitor, a process
// that keeps a core busy is runnable at every read.
static double clock_ghz(int *fewest_running)
{
    xf_snapshot st;
    *fewest_running = 1 << 30;
    double add = 0.0, mul = 0.0;
    for (int t = 0; t < 5; t++) {
        const double a = xf_chain_ghz(XF_CHAIN_ADD_REG, 1), m = xf_chain_ghz(XF_CHAIN_IMUL, 1);
        if (a > add) add = a;
        if (m > mul) mul = m;
        read_stat(&st);
        st.procs_running -= own_running();
        if (st.procs_running < *fewest_running) *fewest_running = st.procs_running;
    }
    return xf_clock_agreed(add, mul);
}

// Wall time, this thread's CPU time and the steal ticks: what brackets the
// timed loop.
static void read_times(xf_snapshot *s)
{
    xf_snapshot st;
    read_stat(&st);
    s->steal_ticks = st.steal_ticks;
    s->thread_cpu_ns = thread_cpu_ns();
    s->wall_ns = xf_now_ns();
}

void xf_snapshot_take(xf_snapshot *s, int at_end)
{
    // The clock chain and the runnable reads (about 3 ms) stay outside the
    // bracket of the timed loop: before it at the start, after it at the end.
    if (at_end) read_times(s);
    int fewest;
    s->clock_ghz = clock_ghz(&fewest);
    s->procs_running = fewest;
    s->load1 = 0.0;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &s->load1) != 1) s->load1 = 0.0;
        fclose(f);
    }
    if (!at_end) read_times(s);
}

// The thresholds, each above what an idle machine of this kind shows (a
// clean 1 s measurement: steal 0-1%, the thread at 99-100% of wall time, the
// clock within 2%), below what one competing busy process causes (steal or
// preemption of tens of percent, a second runnable task):
// - steal above 5% of a CPU and at least 2 ticks: the host ran someone
//   else on our CPU for that share of the time (ticks are 10 ms: a 0.5 s
//   case sees 5% as 2-3 ticks; one tick in a short loop is not a share);
// - the timing thread ran under 90% of the wall time: it was preempted (a
//   task pinned to its core takes half);
// - another runnable task at every read at either end: a co-runner
//   competes for a core
//   (with 2 cores, for ours or the one our memory traffic shares);
// - the clock moved by more than 10% between the two ends.
void xf_contention_of(const xf_snapshot *b, const xf_snapshot *a, xf_contention *c)
{
    memset(c, 0, sizeof *c);
    const double wall = a->wall_ns - b->wall_ns;
    const long hz = sysconf(_SC_CLK_TCK);
    c->steal_pct = wall > 0 && hz > 0 ? 100.0 * (double)(a->steal_ticks - b->steal_ticks) / ((double)hz * wall * 1e-9) : 0;
    c->thread_cpu_pct = wall > 0 ? 100.0 * (a->thread_cpu_ns - b->thread_cpu_ns) / wall : 100.0;
    c->others_running = b->procs_running > a->procs_running ? b->procs_running : a->procs_running;
    if (c->others_running < 0) c->others_running = 0;
    c->clock_before_ghz = b->clock_ghz, c->clock_after_ghz = a->clock_ghz;
    c->load1 = a->load1;
    if (c->steal_pct > 5.0 && a->steal_ticks - b->steal_ticks >= 2) xf_append(c->why, sizeof c->why, "%ssteal %.0f%% of a CPU", c->why[0] ? "; " : "", c->steal_pct);
    if (c->thread_cpu_pct < 90.0)
        xf_append(c->why, sizeof c->why, "%sthread ran %.0f%% of wall time", c->why[0] ? "; " : "", c->thread_cpu_pct);
    if (c->others_running > 0)
        xf_append(c->why, sizeof c->why, "%s%d other runnable task(s)", c->why[0] ? "; " : "", c->others_running);
    if (b->clock_ghz > 0 && a->clock_ghz > 0 &&
        (a->clock_ghz > 1.1 * b->clock_ghz || a->clock_ghz < b->clock_ghz / 1.1))
        xf_append(c->why, sizeof c->why, "%sclock %.2f -> %.2f GHz", c->why[0] ? "; " : "", b->clock_ghz, a->clock_ghz);
    if (team.cpus && team.cpus < team.threads)
        xf_append(c->why, sizeof c->why, "%s%d threads on %d CPU%s", c->why[0] ? "; " : "", team.threads, team.cpus,
                  team.cpus == 1 ? "" : "s");
    c->contended = c->why[0] != '\0';
}
