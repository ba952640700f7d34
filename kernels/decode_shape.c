// The full pass and generation as views of one another (kernels/decode.h):
// the fields they share, copied in one place for every caller (the model
// file's --decode, the comparison with PyTorch, the generate reference,
// the counts and the composed generate's encoder).
#include "decode.h"

// The fields of the same name in both (the target's length is seq_t in
// one, steps in the other).
#define SHARED(X)                                                                                    \
    X(batch) X(seq_s) X(heads) X(dk) X(d_ff) X(enc_layers) X(dec_layers) X(vocab) X(src_ids) X(tgt_ids) \
    X(src_table) X(tgt_table) X(src_x) X(tgt_x) X(enc) X(dec) X(enc_norm) X(dec_norm) X(src_pad)     \
    X(tgt_pad) X(memory) X(y) X(dtype) X(src_x16) X(tgt_x16) X(memory16) X(y16)
#define FROM_GENERATE(field) .field = g->field,
#define FROM_FORWARD(field) .field = f->field,

xf_forward_args xf_forward_of_generate(const xf_generate_args *g)
{
    return (xf_forward_args){SHARED(FROM_GENERATE).seq_t = g->steps};
}

xf_generate_args xf_generate_of_forward(const xf_forward_args *f)
{
    return (xf_generate_args){SHARED(FROM_FORWARD).steps = f->seq_t};
}
