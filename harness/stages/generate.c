// generate: the encoder once, then --steps decoder steps through every
// layer with KV caches, the final norm and the tied lm_head
// (kernels/decode.h). Checked teacher-forced against the full pass; with
// --greedy the argmax loop is what is timed, once the same instance has
// passed that check (timed_mode).
#include "compound.h"
#include "inputs.h"

static int build(xf_instance *in, xf_rng *r)
{
    const xf_case *c = &in->c;
    const int d = xf_case_d_model(c);
    xf_generate_args *a = &in->args.generate;
    xf_encoder_weights *enc = xf_instance_own(in, (size_t)(c->layers + 1) * sizeof *enc);
    xf_decoder_weights *dec = xf_instance_own(in, (size_t)(c->dec_layers + 1) * sizeof *dec);
    if (!enc || !dec) return -1;
    *a = (xf_generate_args){.batch = c->batch, .seq_s = c->seq_k, .steps = c->seq_q, .heads = c->heads,
                            .dk = c->dk, .d_ff = c->d_ff, .enc_layers = c->layers, .dec_layers = c->dec_layers,
                            .vocab = c->vocab, .enc = enc, .dec = dec};
    const size_t tokens = (size_t)c->batch * c->seq_q;
    a->src_ids = xf_make_ids(in, r, (size_t)c->batch * c->seq_k, c->vocab);
    a->tgt_ids = xf_make_ids(in, r, tokens, c->vocab);
    a->tokens = xf_instance_own(in, tokens * sizeof *a->tokens);
    a->src_table = xf_make_table(in, r, c->vocab, d);
    a->tgt_table = xf_make_table(in, r, c->vocab, d);
    if (!a->src_ids || !a->tgt_ids || !a->tokens || !a->src_table || !a->tgt_table) return -1;
    for (int l = 0; l < c->layers; l++)
        if (xf_make_encoder(in, r, d, c->d_ff, &enc[l])) return -1;
    for (int l = 0; l < c->dec_layers; l++)
        if (xf_make_decoder(in, r, d, c->d_ff, &dec[l])) return -1;
    if (c->final_norm && (xf_make_norm(in, r, d, &a->enc_norm) || xf_make_norm(in, r, d, &a->dec_norm)))
        return -1;
    a->src_pad = xf_make_pad(in, c->batch, c->seq_k, c->pad);
    if (xf_instance_add_output(in, "memory", (size_t)c->batch * c->seq_k * d) ||
        xf_instance_add_output(in, "y", tokens * d) || xf_instance_add_output(in, "logits", tokens * c->vocab))
        return -1;
    a->memory = in->out[0].data, a->y = in->out[1].data, a->logits = in->out[2].data;
    in->flops = xf_generate_flops(a), in->bytes = xf_generate_bytes(a);
    in->useful_flops = xf_generate_useful_flops(a);
    in->tokens = (double)c->batch * c->seq_q, in->steps = c->seq_q;
    return 0;
}

static void reference(xf_instance *in, double ulp)
{
    xf_ref_generate_d(&in->args.generate, ulp, in->ref[0], in->bound[0], in->ref[1], in->bound[1], in->ref[2],
                      in->bound[2]);
}

static void timed_mode(xf_instance *in, int timed) { in->args.generate.greedy = timed && in->c.greedy; }

// Every layer's weights, both tables, the outputs (logits for every step),
// the caches; the reference's full pass at seq_t = steps.
static double bytes_needed(const xf_case *c)
{
    double d = xf_case_d_model(c), b = c->batch, t = c->seq_q, s = c->seq_k;
    double enc = xf_encoder_weight_floats(d, c->d_ff), dec = enc + 4 * d * d + 6 * d;
    return XF_F32 * (c->layers * enc + c->dec_layers * dec + 2.0 * c->vocab * d) +
           XF_OUT_BYTES * b * (s * d + t * d + t * c->vocab) + 16 * b * (s + t) * d +
           XF_F32 * c->dec_layers * b * (t + s) * 2 * d + xf_layer_activation_bytes(b * (s + t), b * s, d, c->d_ff);
}

static void describe(const xf_case *c, char *buf, size_t size)
{
    xf_append(buf, size, "b=%d h=%d dk=%d steps=%d sk=%d d_ff=%d layers=%d+%d vocab=%d final_norm=%d pad=%s%s",
              c->batch, c->heads, c->dk, c->seq_q, c->seq_k, c->d_ff, c->layers, c->dec_layers, c->vocab,
              c->final_norm, xf_pad_name(c->pad), c->greedy ? " greedy" : "");
}

static void options(const xf_case *c, char *buf, size_t size)
{
    xf_append(buf, size, " --layers %d --vocab %d --final-norm %d --greedy %d", c->layers, c->vocab, c->final_norm,
              c->greedy);
    xf_compound_options(c, buf, size);
}

static int calls(xf_stage p) { return p == XF_EMBED || p == XF_LM_HEAD || xf_layer_calls(p); }

const xf_stage_desc xf_stage_generate = {.read_roof = 1, .build = build, .reference = reference, .bytes_needed = bytes_needed,
                                         .describe = describe, .options = options, .grid = xf_grid_decode,
                                         .calls = calls, .timed_mode = timed_mode};
