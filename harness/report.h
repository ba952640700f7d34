// Human-readable lines and CSV rows for checked (and timed) cases.
#ifndef XF_REPORT_H
#define XF_REPORT_H

#include <stdio.h>

#include "check.h"
#include "machine.h"
#include "timer.h"

// "b=3 h=8 dk=64 sq=17 sk=113 pad=some causal=1": the fields the stage uses.
void xf_case_describe(const xf_case *c, char *buf, size_t size);
// The options that rebuild exactly this case.
void xf_case_options(const xf_case *c, char *buf, size_t size);

// Opens FILE for appending, writing the header if it is new or empty.
// NULL (and a message) if it cannot be opened.
FILE *xf_csv_open(const char *path);
// One row. t NULL: the check failed and no time is stored.
// pct_peak < 0: unknown, left empty.
void xf_csv_row(FILE *f, const xf_instance *in, const char *variant, const char *cflags,
                int threads, const xf_check_result *chk, const xf_timing *t, double prepare_ns,
                double pct_peak, const xf_machine *m, const xf_exec *ex);

#endif
