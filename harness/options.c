#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

_Noreturn void xf_die_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("xfbench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

// Sizes are whole numbers from 1 to 2^30: larger ones cannot be indexed
// with the int dimensions of the stage contracts.
static int parse_int(const char *opt, const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE)
        xf_die_usage("%s: '%s' is not a whole number", opt, s);
    if (v < lo || v > hi) xf_die_usage("%s: %ld is out of range [%ld, %ld]", opt, v, lo, hi);
    return (int)v;
}

static double parse_double(const char *opt, const char *s, double lo, double hi)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || !(v >= lo && v <= hi))
        xf_die_usage("%s: '%s' is not a number in [%g, %g]", opt, s, lo, hi);
    return v;
}

enum { SIZE_MAX_ARG = 1 << 30 };

// What the shape options give before they are combined: d_model, seq and
// steps set other fields, and --d-model must agree with --dk if both are set.
typedef struct {
    int d_model, dk_set, seq, seq_q, seq_k, steps;
} shape_given;

// The shape options (--batch ... --greedy): 1 if opt is one of them.
static int parse_shape_option(const char *opt, const char *val, xf_case *c, shape_given *g, int *heads_set)
{
    if (!strcmp(opt, "--batch")) c->batch = parse_int(opt, val, 1, SIZE_MAX_ARG);
    else if (!strcmp(opt, "--heads")) c->heads = parse_int(opt, val, 1, SIZE_MAX_ARG), *heads_set = 1;
    else if (!strcmp(opt, "--dk")) c->dk = parse_int(opt, val, 1, SIZE_MAX_ARG), g->dk_set = 1;
    else if (!strcmp(opt, "--d-model")) g->d_model = parse_int(opt, val, 1, SIZE_MAX_ARG);
    else if (!strcmp(opt, "--d-ff")) c->d_ff = parse_int(opt, val, 1, SIZE_MAX_ARG);
    else if (!strcmp(opt, "--seq")) g->seq = parse_int(opt, val, 1, SIZE_MAX_ARG);
    else if (!strcmp(opt, "--seq-q")) g->seq_q = parse_int(opt, val, 1, SIZE_MAX_ARG);
    else if (!strcmp(opt, "--seq-k")) g->seq_k = parse_int(opt, val, 1, SIZE_MAX_ARG);
    else if (!strcmp(opt, "--layers")) c->layers = parse_int(opt, val, 0, 1000);
    else if (!strcmp(opt, "--vocab")) c->vocab = parse_int(opt, val, 1, SIZE_MAX_ARG);
    else if (!strcmp(opt, "--n")) c->n = parse_int(opt, val, 1, SIZE_MAX_ARG);
    else if (!strcmp(opt, "--k")) c->k = parse_int(opt, val, 1, SIZE_MAX_ARG);
    else if (!strcmp(opt, "--relu")) c->relu = parse_int(opt, val, 0, 1);
    else if (!strcmp(opt, "--causal")) c->causal = parse_int(opt, val, 0, 1);
    else if (!strcmp(opt, "--final-norm")) c->final_norm = parse_int(opt, val, 0, 1);
    else if (!strcmp(opt, "--depth")) c->depth = parse_int(opt, val, 0, SIZE_MAX_ARG - 1);
    else if (!strcmp(opt, "--steps")) g->steps = parse_int(opt, val, 1, SIZE_MAX_ARG);
    else if (!strcmp(opt, "--greedy")) c->greedy = parse_int(opt, val, 0, 1);
    else if (!strcmp(opt, "--seed")) c->seed = (uint64_t)parse_int(opt, val, 0, INT_MAX);
    else if (!strcmp(opt, "--dtype")) {
        int d = xf_dtype_from_name(val);
        if (d < 0) xf_die_usage("--dtype: '%s' is not f32 or bf16", val);
        c->dtype = (xf_dtype)d;
    } else if (!strcmp(opt, "--pad")) {
        int p = xf_pad_from_name(val);
        if (p < 0) xf_die_usage("--pad: '%s' is not none, some, all-but-one or all", val);
        c->pad = (xf_pad)p;
    } else return 0;
    return 1;
}

// What to run and how (--stage ... --min-reps): 1 if opt is one of them.
static int parse_run_option(const char *opt, const char *val, xf_options *o)
{
    if (!strcmp(opt, "--stage")) o->stages = val;
    else if (!strcmp(opt, "--variant")) o->variants = val;
    else if (!strcmp(opt, "--use")) o->use = val;
    else if (!strcmp(opt, "--grid")) {
        if (strcmp(val, "quick") && strcmp(val, "full")) xf_die_usage("--grid: '%s' is not quick or full", val);
        o->grid = val;
    } else if (!strcmp(opt, "--csv")) o->csv = val;
    else if (!strcmp(opt, "--jsonl")) o->jsonl = val;
    else if (!strcmp(opt, "--strict")) o->strict = parse_int(opt, val, 0, 1);
    else if (!strcmp(opt, "--retime")) o->retime = parse_int(opt, val, 0, 10);
    else if (!strcmp(opt, "--retune")) o->retune = parse_int(opt, val, 0, 1);
    else if (!strcmp(opt, "--tune-time")) o->tune_time = parse_double(opt, val, 0.0, 60.0);
    else if (!strcmp(opt, "--rounds")) o->rounds = parse_int(opt, val, 1, 10000);
    else if (!strcmp(opt, "--order-seed")) o->order_seed = (uint64_t)parse_int(opt, val, 0, INT_MAX);
    else if (!strcmp(opt, "--weights")) o->weights = val;
    else if (!strcmp(opt, "--out")) o->out = val;
    else if (!strcmp(opt, "--decode")) o->decode = parse_int(opt, val, 0, 1);
    else if (!strcmp(opt, "--threads")) o->threads = parse_int(opt, val, 1, 1024);
    else if (!strcmp(opt, "--min-time")) o->min_time = parse_double(opt, val, 0.0, 3600.0);
    else if (!strcmp(opt, "--min-reps")) o->min_reps = parse_int(opt, val, 1, 1000000);
    else return 0;
    return 1;
}

// The shape from what was given: d_model into dk, the lengths, d_ff's
// default; sizes whose products would overflow the contracts' ints refused.
static void finish_shape(xf_case *c, const shape_given *g)
{
    if (g->d_model) {
        if (g->dk_set && g->d_model != c->heads * c->dk)
            xf_die_usage("--d-model %d disagrees with --heads %d * --dk %d = %ld", g->d_model, c->heads, c->dk,
                         (long)c->heads * c->dk);
        if (g->d_model % c->heads)
            xf_die_usage("--d-model %d is not a multiple of --heads %d", g->d_model, c->heads);
        c->dk = g->d_model / c->heads;
    }
    if ((long)c->heads * c->dk > SIZE_MAX_ARG)
        xf_die_usage("d_model = heads * dk = %ld is too large", (long)c->heads * c->dk);
    c->dec_layers = c->layers;
    if (g->seq) c->seq_q = c->seq_k = g->seq;
    if (g->seq_q) c->seq_q = g->seq_q;
    if (g->seq_k) c->seq_k = g->seq_k;
    if (g->steps) {
        if (g->seq_q && g->seq_q != g->steps)
            xf_die_usage("--steps %d disagrees with --seq-q %d (the same length)", g->steps, g->seq_q);
        c->seq_q = g->steps;
    }
    if (!c->d_ff) c->d_ff = (long)4 * c->heads * c->dk > SIZE_MAX_ARG ? SIZE_MAX_ARG : 4 * c->heads * c->dk;
    long max_seq = c->seq_q > c->seq_k ? c->seq_q : c->seq_k;
    if ((long)c->batch * max_seq > SIZE_MAX_ARG)
        xf_die_usage("batch * seq = %ld rows is too large", (long)c->batch * max_seq);
}

void xf_options_parse(int argc, char **argv, xf_options *o)
{
    memset(o, 0, sizeof *o);
    // Transformer-base (Vaswani et al. 2017, table 3) at sequence length 128.
    o->shape = (xf_case){.batch = 1, .heads = 8, .dk = 64, .seq_q = 128, .seq_k = 128,
                         .d_ff = 0, .layers = 6, .vocab = 0, .pad = XF_PAD_SOME,
                         .final_norm = 1, .seed = 1};
    o->stages = "all";
    o->variants = NULL;
    o->threads = 1;
    o->min_time = 0.5;
    o->tune_time = 0.05;
    o->min_reps = 5;
    o->rounds = 1;
    o->retime = 2;
    o->order_seed = 1;
    shape_given given = {0};
    if (argc < 2) xf_die_usage("no command given (try 'xfbench --help')");
    o->command = argv[1];
    if (strcmp(o->command, "--help") == 0 || strcmp(o->command, "-h") == 0 ||
        strcmp(o->command, "help") == 0) {
        o->command = "help";
        o->help = 1;
        return;
    }
    for (int i = 2; i < argc; i++) {
        char *opt = argv[i], *val = NULL;
        if (strcmp(opt, "--help") == 0 || strcmp(opt, "-h") == 0) {
            o->help = 1;
            continue;
        }
        if (strncmp(opt, "--", 2) != 0) xf_die_usage("unexpected argument '%s'", opt);
        char *eq = strchr(opt, '=');
        if (eq) *eq = '\0', val = eq + 1;
        else if (i + 1 < argc) val = argv[++i];
        else xf_die_usage("%s needs a value", opt);
        if (!parse_shape_option(opt, val, &o->shape, &given, &o->heads_set) && !parse_run_option(opt, val, o))
            xf_die_usage("unknown option '%s' (try 'xfbench %s --help')", opt, o->command);
    }
    finish_shape(&o->shape, &given);
}

// xfbench --help: the commands and the environment.
static void usage_overview(void)
{
    puts("usage: xfbench COMMAND [options]   (xfbench COMMAND --help for its options)\n"
         "commands:\n"
         "  list     every stage x variant, available here or not, and why\n"
         "  check    run variants against the fp64 reference; exit 1 on any failure\n"
         "  bench    check, then time; print GFLOP/s and GB/s; --csv FILE appends rows\n"
         "  forward  the whole encoder-decoder pass: check, time, per-stage breakdown\n"
         "  peak     measure this machine's FMA peak and memory bandwidth (cached for bench)\n"
         "  compare  A.csv B.csv [--fail-below R] [--seed N]: per-case speedup of run B over run A with\n"
         "           95% bootstrap intervals and Mann-Whitney p-values, geometric means per stage and\n"
         "           variant with intervals; exit 1 if a whole interval lies below R\n"
         "environment: XFBENCH_MAX_ISA=scalar|avx2|avx512|avx512bf16 caps the SIMD families used;\n"
         "  XFBENCH_REF=plain checks with the fp64 reference's plain loops (default fast: blocked, threaded)");
}

void xf_usage(const char *command)
{
    if (!command || !strcmp(command, "help")) {
        usage_overview();
        return;
    }
    printf("usage: xfbench %s [options]\n", command);
    if (!strcmp(command, "list")) {
        puts("  lists every stage and variant with availability; no options");
        return;
    }
    if (!strcmp(command, "peak")) {
        puts("  measures fp32 FMA throughput per SIMD family and STREAM-triad bandwidth, on 1 thread\n"
             "  and all threads, and caches them ($XDG_CACHE_HOME or ~/.cache/xfbench/peak.txt)");
        return;
    }
    puts("shape (defaults: Transformer-base at seq 128):\n"
         "  --batch N (1)  --heads N (8)  --dk N (64)  --d-model N (heads*dk)  --d-ff N (4*d_model)\n"
         "  --seq N (128: both lengths)  --seq-q N (query/target)  --seq-k N (key/source)\n"
         "  --layers N (6: encoder and decoder layers each)  --vocab N (generate 32000, else 1000)  --final-norm 0|1 (1)\n"
         "  --n N --k N (linear outputs/inputs; default 3*d_model and d_model, the QKV projection)\n"
         "  --relu 0|1 (0)  --pad none|some|all-but-one|all (some)  --causal 0|1 (0)  --seed N (1)\n"
         "  --dtype f32|bf16 (f32: storage of inputs, weights, outputs; bf16 runs the bf16 variants)\n"
         "  decoding: --depth N (0: decode_layer's cache rows before the new token)\n"
         "    --steps N (generate's tokens; = --seq-q)  --greedy 0|1 (0: time teacher-forced, 1: argmax loop)\n"
         "selection:");
    if (!strcmp(command, "forward"))
        puts("  --variant FAMILY[,...] (naive)  the families whose composition runs the pass");
    else
        puts("  --stage S[,S...] (all; primitives: every primitive stage)  --variant V[,V...] (all; a family name selects its variants)");
    puts("  --use stage=variant[,...]  primitives used by compound stages (default: the family's)");
    if (!strcmp(command, "check")) puts("  --grid quick|full  check a built-in grid of shapes instead of one shape");
    if (!strcmp(command, "forward"))
        puts("weights:\n"
             "  --weights FILE.safetensors  nn.Transformer state_dict names (batch-first inputs\n"
             "      src, tgt, src_key_padding_mask, tgt_key_padding_mask optional; heads from\n"
             "      metadata 'heads' or --heads); compares with torch.memory/torch.output if present\n"
             "  --out FILE.safetensors      write 'memory' and 'output'\n"
             "  --decode 0|1 (0)            1: the file's model decoded token by token (stage generate:\n"
             "      encoder once, one decoder step per row of tgt, KV caches), checked against the full\n"
             "      pass and compared with PyTorch's full-pass outputs");
    if (strcmp(command, "check"))
        puts("timing:\n"
             "  --min-time S (0.5)  --min-reps N (5)  --threads N (1)  --csv FILE (append rows)\n"
             "  --jsonl FILE  one JSON object per case (every CSV column, samples_ns as an array), flushed per case\n"
             "  --rounds R (1)  time the selected variants in R rounds, each in a fresh random order; ratios\n"
             "      between variants are medians of per-round ratios  --order-seed N (1)  seeds those orders\n"
             "  --retime N (2)  a case timed while the machine was contended is timed again, up to N times;\n"
             "      the row keeps the last timing and records how many were made (attempts)\n"
             "  --strict 0|1 (0)  1: a case still contended after its retimes is not recorded; exit 3\n"
             "  --retune 0|1 (0)  1: --variant best tunes again instead of using its cached choices\n"
             "  --tune-time S (0.05)  --variant best: seconds per candidate and round racing a call\n"
             "      (a whole pass: 6x); shorter tunes faster and chooses on fewer samples");
}

int xf_list_next(const char **p, char *item, size_t size)
{
    if (!**p) return 0;
    const char *end = strchr(*p, ',');
    size_t len = end ? (size_t)(end - *p) : strlen(*p);
    snprintf(item, size, "%.*s", (int)len, *p);
    *p += len + (end ? 1 : 0);
    return 1;
}
