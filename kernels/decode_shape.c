// The full pass and generation as views of one another (kernels/decode.h):
// the fields they share, copied in one place for every caller (the model
// file's --decode, the comparison with PyTorch, the generate reference,
// the counts and the composed generate's encoder).
#include "decode.h"

xf_forward_args xf_forward_of_generate(const xf_generate_args *g)
{
    return (xf_forward_args){.batch = g->batch, .seq_s = g->seq_s, .seq_t = g->steps, .heads = g->heads,
                             .dk = g->dk, .d_ff = g->d_ff, .enc_layers = g->enc_layers,
                             .dec_layers = g->dec_layers, .vocab = g->vocab, .src_ids = g->src_ids,
                             .tgt_ids = g->tgt_ids, .src_table = g->src_table, .tgt_table = g->tgt_table,
                             .src_x = g->src_x, .tgt_x = g->tgt_x, .enc = g->enc, .dec = g->dec,
                             .enc_norm = g->enc_norm, .dec_norm = g->dec_norm, .src_pad = g->src_pad,
                             .tgt_pad = g->tgt_pad, .memory = g->memory, .y = g->y, .dtype = g->dtype,
                             .src_x16 = g->src_x16, .tgt_x16 = g->tgt_x16, .memory16 = g->memory16,
                             .y16 = g->y16};
}

xf_generate_args xf_generate_of_forward(const xf_forward_args *f)
{
    return (xf_generate_args){.batch = f->batch, .seq_s = f->seq_s, .steps = f->seq_t, .heads = f->heads,
                              .dk = f->dk, .d_ff = f->d_ff, .enc_layers = f->enc_layers,
                              .dec_layers = f->dec_layers, .vocab = f->vocab, .src_ids = f->src_ids,
                              .tgt_ids = f->tgt_ids, .src_table = f->src_table, .tgt_table = f->tgt_table,
                              .src_x = f->src_x, .tgt_x = f->tgt_x, .enc = f->enc, .dec = f->dec,
                              .enc_norm = f->enc_norm, .dec_norm = f->dec_norm, .src_pad = f->src_pad,
                              .tgt_pad = f->tgt_pad, .memory = f->memory, .y = f->y, .dtype = f->dtype,
                              .src_x16 = f->src_x16, .tgt_x16 = f->tgt_x16, .memory16 = f->memory16,
                              .y16 = f->y16};
}
