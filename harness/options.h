// Command-line options of every xfbench command, parsed strictly: any bad
// value is one line on stderr and exit code 2.
#ifndef XF_OPTIONS_H
#define XF_OPTIONS_H

#include "case.h"

typedef struct {
    const char *command;
    xf_case shape;         // the case built from the shape options
    const char *stages;    // comma list or "all"
    const char *variants;  // comma list or "all"
    const char *use;       // compound stages: stage=variant overrides
    const char *grid;      // check: "quick" or "full"; NULL: the one shape
    const char *csv;       // bench/forward: append rows here
    const char *jsonl;     // bench/forward: append one JSON object per case here
    int strict;            // bench/forward: contended cases are not recorded; exit 3
    int retime;            // bench/forward: a contended case is timed again, up to this many times
    int retune;            // --variant best: ignore the cached choices
    double tune_time;      // --variant best: seconds per candidate and round when tuning a call
    int rounds;            // bench/forward: interleaved rounds of the selected variants
    uint64_t order_seed;   // the rounds' random orders
    const char *weights;   // forward: nn.Transformer weights (safetensors)
    const char *out;       // forward: write memory and output here (safetensors)
    int decode;            // forward --weights: decode the file's model token by token (generate)
    int heads_set;         // --heads was given
    int threads;
    double min_time;       // seconds
    int min_reps;
    int help;
} xf_options;

// Parses argv[1..]; on error prints one line and exits with code 2.
void xf_options_parse(int argc, char **argv, xf_options *o);
void xf_usage(const char *command);

// The comma lists of --stage, --variant and --use, walked one item at a
// time: copies the item at *p into item (at most size - 1 bytes), moves *p
// past it and its comma; 0 when the list is done.
int xf_list_next(const char **p, char *item, size_t size);

// Prints "xfbench: <message>" and exits 2.
_Noreturn void xf_die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
