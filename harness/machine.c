#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "machine.h"
#include "registry.h"
#include "xf_version.h"

static void read_cpu_model(char *out, size_t size)
{
    snprintf(out, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            colon += 2;
            colon[strcspn(colon, "\n")] = '\0';
            snprintf(out, size, "%s", colon);
            break;
        }
    }
    fclose(f);
}

static double read_mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    double kb = -1.0;
    if (f) {
        char line[256];
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
        fclose(f);
    }
    if (kb > 0) return kb * 1024.0;
    return (double)sysconf(_SC_AVPHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
}

const char *const xf_peer_columns[XF_NPEER_COLUMNS] = {"blas_core", "dnnl_isa", "xsmm_target"};

static void read_peers(xf_machine *m)
{
    for (int c = 0; c < XF_NPEER_COLUMNS; c++) {
        snprintf(m->peer[c], sizeof m->peer[c], "not built");
        for (int i = 0; i < xf_registry_count(); i++) {
            const xf_family *f = xf_registry_family(i);
            if (f->runtime && f->runtime_column && !strcmp(f->runtime_column, xf_peer_columns[c]))
                f->runtime(m->peer[c], sizeof m->peer[c]);
        }
        for (char *p = m->peer[c]; *p; p++) // a quoted CSV field: no quotes or line breaks
            if (*p == '"' || *p == '\n') *p = '\'';
    }
}

void xf_machine_read(xf_machine *m)
{
    read_cpu_model(m->cpu, sizeof m->cpu);
    m->isa[0] = '\0';
    __builtin_cpu_init();
#define FEATURE(name)                                                                        \
    if (__builtin_cpu_supports(name)) strcat(strcat(m->isa, m->isa[0] ? " " : ""), name);
    FEATURE("sse4.2") FEATURE("avx") FEATURE("avx2") FEATURE("fma") FEATURE("avx512f")
    FEATURE("avx512bw") FEATURE("avx512vl") FEATURE("avx512dq") FEATURE("avx512vnni")
    FEATURE("avx512bf16")
#undef FEATURE
#if defined(__clang__)
    snprintf(m->compiler, sizeof m->compiler, "clang %d.%d.%d", __clang_major__, __clang_minor__,
             __clang_patchlevel__);
#elif defined(__GNUC__)
    snprintf(m->compiler, sizeof m->compiler, "gcc %d.%d.%d", __GNUC__, __GNUC_MINOR__,
             __GNUC_PATCHLEVEL__);
#else
    snprintf(m->compiler, sizeof m->compiler, "unknown");
#endif
    snprintf(m->commit, sizeof m->commit, "%s", XF_GIT_COMMIT);
    time_t now = time(NULL);
    strftime(m->date, sizeof m->date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    const char *host = getenv("XFBENCH_HOST");
    if (host && *host) snprintf(m->host, sizeof m->host, "%s", host);
    else if (gethostname(m->host, sizeof m->host) != 0) snprintf(m->host, sizeof m->host, "unknown");
    m->host[sizeof m->host - 1] = '\0';
    for (char *c = m->host; *c; c++) // a CSV field: no separators or quotes
        if (*c == ',' || *c == '"' || *c == '\n') *c = '_';
    m->mem_available = read_mem_available();
    read_peers(m);
}
