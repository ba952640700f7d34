// The xfbench program: options parsed, the machine read, the selection
// validated, threads pinned and the peers capped (by starting again), then
// one command: list (cmd_list.c), check (cmd_check.c), bench and forward
// (cmd_bench.c), peak (cmd_peak.c); compare (compare.c) reads CSVs only.
#define _GNU_SOURCE // sched_setaffinity, cpu_set_t
#include <libgen.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "app.h"
#include "commands.h"
#include "compare.h"
#include "contention.h"
#include "registry.h"
#include "../variants/isa/blocking.h"
#include "../variants/isa/caches.h"
#include "../variants/isa/isa.h"

const char *xf_prog_name = "xfbench";

static int run_list(const xf_options *o, const xf_machine *m) { return (void)o, (void)m, xf_cmd_list(); }
static int run_check(const xf_options *o, const xf_machine *m) { return xf_cmd_check(o, m); }
static int run_bench(const xf_options *o, const xf_machine *m) { return xf_cmd_bench(o, m, 0); }
static int run_forward(const xf_options *o, const xf_machine *m) { return xf_cmd_bench(o, m, 1); }
static int run_peak(const xf_options *o, const xf_machine *m) { return (void)o, xf_cmd_peak(m); }

// execv keeps the calling thread's CPU mask, and where the user pinned
// (OMP_PROC_BIND set), OpenMP bound this thread to its first place when it
// loaded: started again on that one core, OpenMP then put every thread on
// it (Zen 4, 2 threads, XFBENCH_MAX_ISA=avx2 restarting: omp linear 80-84
// GFLOP/s against 154-162 when xfbench set the pinning). So the mask goes
// back to every CPU of OpenMP's places (built from the mask the process
// was started with) first. On failure, carry on (unpinned, peers
// uncapped).
static void start_again(char **argv)
{
#ifdef _OPENMP
    cpu_set_t all;
    CPU_ZERO(&all);
    int ids[CPU_SETSIZE];
    for (int p = 0; p < omp_get_num_places(); p++)
        if (omp_get_place_num_procs(p) <= CPU_SETSIZE) {
            omp_get_place_proc_ids(p, ids);
            for (int i = 0; i < omp_get_place_num_procs(p); i++)
                if (ids[i] >= 0 && ids[i] < CPU_SETSIZE) CPU_SET(ids[i], &all);
        }
    if (CPU_COUNT(&all)) (void)sched_setaffinity(0, sizeof all, &all);
#endif
    execv("/proc/self/exe", argv);
}

// The commands (compare, which reads CSVs and runs nothing, is dispatched
// before options are parsed; xf_usage holds the help text).
typedef struct {
    const char *name;
    int (*run)(const xf_options *o, const xf_machine *m);
    void (*options)(xf_options *o); // the command's own option rules, or NULL
    int pins_threads;               // measures on every thread, so pins them even with --threads 1
    int needs_machine;              // the machine read and the selection validated first
} command;

static const command commands[] = {
    {"list", run_list, NULL, 0, 0},           {"check", run_check, NULL, 0, 1},
    {"bench", run_bench, NULL, 0, 1},         {"forward", run_forward, xf_forward_options, 0, 1},
    {"peak", run_peak, NULL, 1, 1},
};

int xf_main(int argc, char **argv)
{
    xf_prog_name = basename(argv[0]);
    if (argc >= 2 && !strcmp(argv[1], "compare")) return xf_compare_main(argc - 2, argv + 2);
    xf_options o;
    xf_options_parse(argc, argv, &o);
    if (o.help) {
        xf_usage(o.command);
        return 0;
    }
    const command *cmd = NULL;
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (!strcmp(o.command, commands[i].name)) cmd = &commands[i];
    if (!cmd) xf_die_usage("unknown command '%s' (try 'xfbench --help')", o.command);
    if (cmd->options)
        cmd->options(&o);
    else if (o.weights || o.out || o.decode)
        xf_die_usage("--weights, --out and --decode belong to the forward command");
    // Threads are pinned (close, one per core) unless the user chose
    // otherwise: unpinned, this kind of VM sometimes runs two threads on one
    // core and silently halves a 2-thread result. The OpenMP runtime reads
    // these variables when the program starts, so set them and start again.
    // XFBENCH_MAX_ISA caps the peers too (variants/isa/isa.h), so that a
    // capped run imitates the smaller CPU end to end.
    const char *isa_err = xf_isa_env_error();
    if (isa_err) xf_die_usage("%s", isa_err);
    const char *caches_err = xf_caches_env_error();
    if (caches_err) xf_die_usage("%s", caches_err);
    // Read once here, before any thread: the kernels' threads read them
    // (caches.c and blocking.c fill them on the first call).
    (void)xf_blocking_get();
    const char *ref = getenv("XFBENCH_REF");
    if (ref && strcmp(ref, "plain") && strcmp(ref, "fast"))
        xf_die_usage("XFBENCH_REF='%s' is not plain or fast (the fp64 reference's loops)", ref);
    int restart = xf_isa_cap_peers();
    for (int i = 0; i < xf_registry_count(); i++)
        if (xf_registry_family(i)->raise_dispatch) restart |= xf_registry_family(i)->raise_dispatch();
    if ((o.threads > 1 || cmd->pins_threads) && !getenv("OMP_PROC_BIND") && !getenv("OMP_PLACES")) {
        setenv("OMP_PROC_BIND", "close", 1);
        setenv("OMP_PLACES", "cores", 1);
        restart = 1;
    }
    if (restart) start_again(argv);
    // Every command runs after the peers' caps took effect: under
    // XFBENCH_MAX_ISA=avx2 on an AVX512_BF16 CPU, oneDNN's bf16 matmul is as
    // unavailable to list as to bench (listed ok before the cap, it failed
    // bench-csv's count).
    if (!cmd->needs_machine) return cmd->run(&o, NULL);
    xf_validate_selection(&o);
#ifdef _OPENMP
    omp_set_num_threads(o.threads);
#endif
    xf_contention_team(o.threads);
    for (int i = 0; i < xf_registry_count(); i++)
        if (xf_registry_family(i)->set_threads) xf_registry_family(i)->set_threads(o.threads);
    xf_machine m;
    xf_machine_read(&m);
    if (!o.grid) xf_refuse_oversized_shape(&o, &m);
    return cmd->run(&o, &m);
}
