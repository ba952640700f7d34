// One checked and timed case: a stage, a shape, a mask pattern, a seed; and
// its instance: inputs, guarded outputs, the fp64 reference and its bound.
#ifndef XF_CASE_H
#define XF_CASE_H

#include "../kernels/decode.h"
#include "../variants/compose/compose.h"
#include "../variants/variant.h"
#include "guard.h"

typedef enum { XF_PAD_NONE, XF_PAD_SOME, XF_PAD_ALL_BUT_ONE, XF_PAD_ALL, XF_NPADS } xf_pad;

const char *xf_pad_name(xf_pad p);
int xf_pad_from_name(const char *name); // -1 if unknown

// Sequence lengths: seq_q is the query / target length, seq_k the key /
// source (memory) length. The encoder runs on seq_k, the decoder on seq_q.
typedef struct {
    xf_stage stage;
    int batch, heads, dk, seq_q, seq_k, d_ff, vocab;
    int layers, dec_layers; // forward: encoder and decoder layers (--layers sets both)
    int n, k;       // linear: outputs and inputs (0: 3*d_model and d_model, the QKV projection)
    int relu;       // linear: fused ReLU
    xf_pad pad;     // key padding of every attention (source and target)
    int causal;     // attention, softmax (the decoder is always causal)
    int final_norm; // forward: encoder.norm and decoder.norm present
    int from_file;  // forward: weights (and maybe inputs) from --weights
    int depth;      // decode_layer: cache rows already filled (the new token's position)
    int greedy;     // generate: time the argmax loop (after the teacher-forced check)
    xf_dtype dtype; // storage of inputs, weights and outputs (--dtype)
    uint64_t seed;
} xf_case;

// The shape options as stage s runs them: its stage set, and an unset
// --vocab (0) resolved to the stage's default (generate: 32000, a
// translation model's vocabulary; the others 1000).
xf_case xf_case_of_stage(const xf_case *shape, xf_stage s);

static inline int xf_case_d_model(const xf_case *c) { return c->heads * c->dk; }

// Bytes the case needs (inputs, weights, outputs, fp64 reference and
// scratch), to refuse what would not fit before allocating anything.
double xf_case_bytes(const xf_case *c);

enum { XF_MAX_OUTPUTS = 3 };

typedef struct xf_instance {
    xf_case c;
    union {
        xf_embed_args embed;
        xf_linear_args linear;
        xf_softmax_args softmax;
        xf_attention_args attention;
        xf_add_layernorm_args add_layernorm;
        xf_lm_head_args lm_head;
        xf_rmsnorm_args rmsnorm;
        xf_ffn_args ffn;
        xf_encoder_layer_args encoder_layer;
        xf_decoder_layer_args decoder_layer;
        xf_forward_args forward;
        xf_decode_layer_args decode_layer;
        xf_generate_args generate;
    } args;
    int nout;
    const char *out_name[XF_MAX_OUTPUTS];
    xf_guarded out[XF_MAX_OUTPUTS];
    double *ref[XF_MAX_OUTPUTS];   // fp64 reference, one per output element
    double *bound[XF_MAX_OUTPUTS]; // allowed |out - ref| per element
    double bound_ulp;              // math_ulp the bounds were computed for (-1: none yet)
    int bound_p_bf16;              // and the p_bf16 (variant.h) they were computed for
    int model_bound;               // 1: error-model bound (compound), 0: componentwise
    double flops, bytes;
    double useful_flops;           // flops less the masked attention pairs (kernels/counts.c)
    double tokens, steps;          // decoding: tokens a call produces, in how many steps (0: not decoding)
    void **owned;                  // inputs and weights, freed with the instance
    int nowned;
} xf_instance;

// 0, or -1 when out of memory.
int xf_instance_build(xf_instance *in, const xf_case *c);
// 64-byte aligned memory (uninitialised) freed with the instance; NULL if
// out of memory.
void *xf_instance_own(xf_instance *in, size_t bytes);
// A guarded output of count floats with its reference and bound arrays;
// 0, or -1 if out of memory.
int xf_instance_add_output(xf_instance *in, const char *name, size_t count);
// Computes ref and bound for a variant with this math_ulp and p_bf16
// (variant.h; cached).
void xf_instance_reference(xf_instance *in, double math_ulp, int p_bf16);
void xf_instance_free(xf_instance *in);

#endif
