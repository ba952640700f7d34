// Was the machine busy while a case was timed? Snapshots before and after
// the timed loop (timer.c), turned into the state every row records and a
// `contended` verdict with its reason (docs/design.md, "Trusting a number").
#ifndef XF_CONTENTION_H
#define XF_CONTENTION_H

typedef struct {
    double wall_ns, thread_cpu_ns;          // CLOCK_MONOTONIC, this thread's CPU time
    unsigned long long steal_ticks;         // /proc/stat "cpu" steal, all CPUs (USER_HZ ticks)
    int procs_running;                      // runnable tasks not of this process (fewest of 5 reads)
    double load1;                           // /proc/loadavg, 1-minute
    double clock_ghz;                       // clock_probe.h: two chains agreeing; 0: unknown
} xf_snapshot;

typedef struct {
    double steal_pct;      // CPU time the hypervisor took, in % of one CPU over the wall time
    int others_running;    // runnable tasks of other processes, the more of the two ends
    double thread_cpu_pct; // the timing thread's CPU time over the wall time, in %
    double clock_before_ghz, clock_after_ghz; // 0: unknown (the chains disagree, or not x86-64)
    double load1;          // at the end; recorded, not judged (a 1-minute average lags)
    int contended;
    char why[200];         // the reasons, ';'-separated, empty if not contended
} xf_contention;

// How many CPUs the OpenMP team of `threads` may run on (the union of its
// threads' CPU masks), read once before any case; fewer than threads:
// every case is contended ("2 threads on 1 CPU"), whatever its timings.
void xf_contention_team(int threads);

// at_end 0: just before the timed loop; 1: just after it.
void xf_snapshot_take(xf_snapshot *s, int at_end);
void xf_contention_of(const xf_snapshot *before, const xf_snapshot *after, xf_contention *c);

#endif
