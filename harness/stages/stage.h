// A stage as the harness knows it. Everything xfbench does with a stage
// goes through its descriptor: build an instance of a shape, compute its
// reference, count the memory a case needs, describe a case in one line and
// as the options that rebuild it, list its check grid, and (primitives) turn
// a call's arguments back into a case, or (compounds) say which primitives
// it calls. One file per stage in this folder; the table (table.c) is made
// from the stage lists in kernels/xf_common.h and checked against the enum
// at compile time. How to add one: docs/adding.md.
#ifndef XF_STAGE_H
#define XF_STAGE_H

#include <stddef.h>

#include "../case.h"
#include "../grid.h"
#include "../rng.h"

// Bytes a case needs, for the memory estimates (bytes_needed): an fp32
// element, and an output (its fp32 value plus the fp64 reference value and
// bound the check keeps).
enum { XF_F32_BYTES = 4, XF_OUT_BYTES = 4 + 8 + 8 };

// csv_columns: the encoder and decoder layers (forward), a GEMM's n and k
// (linear).
enum { XF_CSV_LAYERS = 1u, XF_CSV_NK = 2u };

typedef struct {
    // Which roof its %peak is against: 1, the bandwidth of the memory level
    // holding its bytes (it moves a few bytes per flop); 0, the FMA peak.
    int memory_bound;
    // 1: its traffic is reads (a decode step streams weights and caches,
    // writes a few rows): bandwidth roofs are the read-only ones
    // (xf_peak_read_bw), not triad's.
    int read_roof;
    // The args of in->c with seeded inputs and weights (stages/inputs.h)
    // and guarded outputs (xf_instance_add_output); sets in->flops,
    // in->bytes and, where masked work is skipped, in->useful_flops.
    // 0, or -1 when out of memory.
    int (*build)(xf_instance *in, xf_rng *r);
    // in->ref and in->bound of every output for a variant with this
    // math_ulp. Compound stages leave the error model's variance in bound
    // (the instance turns it into sigmas: kernels/errmodel.h).
    void (*reference)(xf_instance *in, double math_ulp);
    // Bytes the case will allocate (inputs, weights, outputs, fp64
    // reference and scratch), estimated from above before anything is.
    double (*bytes_needed)(const xf_case *c);
    // "b=3 h=8 dk=64 sq=17 sk=113 pad=some causal=1": the fields it uses.
    void (*describe)(const xf_case *c, char *buf, size_t size);
    // The options it reads beyond --stage --batch --heads --dk --seq-q
    // --seq-k --seed, as they rebuild this case (" --n 1536 --k 512 ...").
    void (*options)(const xf_case *c, char *buf, size_t size);
    // Its check grid (grid.c), quick or full.
    void (*grid)(xf_grid *g, int full);
    // Primitives: the case of a call's args (what best tunes on); fills the
    // shape fields of c, whose stage, seed and padding are set.
    void (*case_of)(const void *args, xf_case *c);
    // Compounds: whether it calls primitive stage p.
    int (*calls)(xf_stage p);
    // The vocabulary of a case that names none (0: 1000, enough for the
    // embedding's gathers; generate: a real model's, since its lm_head
    // dominates a decoding step).
    int default_vocab;
    // The CSV columns it fills beyond the shape every stage has.
    unsigned csv_columns;
    // Optional: switch a checked instance to what is timed (timed 1;
    // generate --greedy: the argmax loop, once the teacher-forced check
    // passed) and back to the checked contract (timed 0).
    void (*timed_mode)(xf_instance *in, int timed);
} xf_stage_desc;

const xf_stage_desc *xf_stage_desc_of(xf_stage s);

// What softmax and attention share: "b=.. h=.. dk=.. sq=.. sk=.. pad=..
// causal=.." and " --pad .. --causal ..".
void xf_describe_masked(const xf_case *c, char *buf, size_t size);
void xf_masked_options(const xf_case *c, char *buf, size_t size);

// What the norms share (add_layernorm, rmsnorm): "rows=.. d=..", no
// options of their own, and a call's (rows, d) as a case (seq_q = seq_k =
// rows, dk = d).
void xf_describe_rows(const xf_case *c, char *buf, size_t size);
void xf_no_options(const xf_case *c, char *buf, size_t size);
void xf_rows_case_of(int rows, int d, xf_case *c);

// Appends printf-style text to buf (size bytes, NUL-terminated).
void xf_append(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
