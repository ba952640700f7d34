// Which roof a timed row is held against, and what ran in it.
#ifndef XF_RATES_H
#define XF_RATES_H

#include <stddef.h>

#include "case.h"
#include "peak.h"
#include "report.h"
#include "runner.h"
#include "timer.h"

// The row's %peak and its roof (report.h's xf_row_rates, composition
// unset) for runner r timed as t on `threads` threads.
xf_row_rates xf_rates_of(const xf_peak *peak, const xf_instance *in, const xf_timing *t, int threads,
                         const xf_runner *r);
// "stage=variant" for a primitive; for a compound stage the variants each
// primitive stage ran with ("+"-joined where best mixed them).
void xf_composition_of(const xf_runner *r, xf_stage s, char *buf, size_t size);

#endif
