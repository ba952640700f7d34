// What the xfbench commands (harness/cmd_*.c, dispatched by app.c) share:
// the variants a run selects and the cases they run on (selection.c), and
// this machine's roofs (cmd_peak.c).
#ifndef XF_COMMANDS_H
#define XF_COMMANDS_H

#include "case.h"
#include "machine.h"
#include "options.h"
#include "peak.h"
#include "rounds.h"
#include "runner.h"

// One variant to run on a stage: a primitive variant, or a family's
// composition for a compound stage.
typedef struct {
    xf_runner r;
    const char *cflags;
    const char *unavailable; // why it cannot run here, or NULL
    char why[256];           // a composition's reason, which unavailable points to
    char note[256];          // borrowings of a composition
} xf_entry;

typedef struct {
    int passed, failed, skipped;
} xf_tally;

enum { XF_MAX_ENTRIES = XF_ROUNDS_MAX }; // entries of one stage: timed in one run of rounds

extern const char *xf_prog_name; // as the user called it, for the repro lines

// selection.c: which stages and variants the options name, checked
// against the registry before anything runs.
int xf_stage_selected(const xf_options *o, int s);
int xf_select_entries(xf_stage stage, const xf_options *o, const xf_machine *m, xf_entry *out, int max);
void xf_validate_selection(const xf_options *o);
void xf_refuse_oversized(const xf_case *c, const xf_machine *m);
void xf_refuse_oversized_shape(const xf_options *o, const xf_machine *m);
void xf_build_or_die(xf_instance *in, const xf_case *c, const xf_machine *m);

// cmd_peak.c: the roofs rows are held against (cached, else measured
// briefly and cached; bench calls it once), and how the peers run here.
const xf_peak *xf_app_peak(const xf_machine *m);
void xf_print_peers(const xf_machine *m);

// The commands; each returns the process's exit code.
int xf_cmd_list(void);
int xf_cmd_check(const xf_options *o, const xf_machine *m);
int xf_cmd_bench(const xf_options *o, const xf_machine *m, int breakdown); // forward: breakdown 1
int xf_cmd_peak(const xf_machine *m);
void xf_forward_options(xf_options *o); // forward's own option rules

#endif
