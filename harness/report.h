// Human-readable lines and CSV rows for checked (and timed) cases.
#ifndef XF_REPORT_H
#define XF_REPORT_H

#include <stdio.h>

#include "check.h"
#include "machine.h"
#include "peak.h"
#include "timer.h"

// A timed row's rates against the machine's roofs.
typedef struct {
    xf_roof roof;           // what pct_peak is against
    int read;               // a bandwidth roof: the read-only one (named "<level>-read")
    xf_bf16_arith arith;    // the compute roof: FMA's, the bf16 dot product's ("bf16-dot") or AMX's ("bf16-amx")
    double pct_peak;        // < 0: unknown
    double useful_pct_peak; // useful GFLOP/s over the FMA roof; < 0: unknown
    const char *composition; // what ran: "linear=avx512;attention=avx512-flash;..."
} xf_row_rates;

// The roof's name as rows print it: "FMA", "bf16-dot", "bf16-amx", "DRAM", "DRAM-read", ...
const char *xf_rates_roof_name(const xf_row_rates *r);

// "b=3 h=8 dk=64 sq=17 sk=113 pad=some causal=1": the fields the stage uses.
void xf_case_describe(const xf_case *c, char *buf, size_t size);
// The options that rebuild exactly this case.
void xf_case_options(const xf_case *c, char *buf, size_t size);

// Opens FILE for appending, writing the header if it is new or empty.
// NULL, with why, if it cannot be opened or holds other columns.
FILE *xf_csv_open(const char *path, const char **why);
// One case's row, appended to csv and as one JSON object (every column by
// name, samples_ns an array) to jsonl; either may be NULL; both flushed.
// t NULL: the check failed and no time or rate is stored. Percentages < 0:
// unknown, left empty.
void xf_report_row(FILE *csv, FILE *jsonl, const xf_instance *in, const char *variant, const char *cflags,
                   int threads, const xf_check_result *chk, const xf_timing *t, double prepare_ns,
                   const xf_row_rates *rates, const xf_machine *m, const xf_exec *ex);

#endif
