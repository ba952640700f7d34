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
    const size_t tokens = (size_t)c->batch * c->seq_q;
    xf_model m;
    if (xf_make_model(in, r, c, &m)) return -1;
    *a = (xf_generate_args){.batch = c->batch, .seq_s = c->seq_k, .steps = c->seq_q, .heads = c->heads,
                            .dk = c->dk, .d_ff = c->d_ff, .enc_layers = c->layers, .dec_layers = c->dec_layers,
                            .vocab = c->vocab, .src_ids = m.src_ids, .tgt_ids = m.tgt_ids,
                            .src_table = m.src_table, .tgt_table = m.tgt_table, .enc = m.enc, .dec = m.dec,
                            .enc_norm = m.enc_norm, .dec_norm = m.dec_norm};
    if (!(a->tokens = xf_instance_own(in, tokens * sizeof *a->tokens))) return -1;
    a->src_pad = xf_make_pad(in, c->batch, c->seq_k, c->pad);
    if (xf_instance_add_output(in, "memory", (size_t)c->batch * c->seq_k * d) ||
        xf_instance_add_output(in, "y", tokens * d) || xf_instance_add_output(in, "logits", tokens * c->vocab))
        return -1;
    a->memory = in->out[0].data, a->y = in->out[1].data, a->logits = in->out[2].data;
    if (c->dtype == XF_BF16) { // weights and tables already bf16 values (xf_own_uniform)
        a->dtype = XF_BF16, a->memory16 = in->out[0].data16, a->y16 = in->out[1].data16;
        a->logits16 = in->out[2].data16;
    }
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
    return XF_F32_BYTES * (c->layers * enc + c->dec_layers * dec + 2.0 * c->vocab * d) +
           XF_OUT_BYTES * b * (s * d + t * d + t * c->vocab) + 16 * b * (s + t) * d +
           XF_F32_BYTES * c->dec_layers * b * (t + s) * 2 * d + xf_layer_activation_bytes(b * (s + t), b * s, d, c->d_ff);
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

static void grid(xf_grid *g, int full) { xf_grid_decode(g, full, 1); }

const xf_stage_desc xf_stage_generate = {.read_roof = 1, .default_vocab = 32000, .build = build, .reference = reference, .bytes_needed = bytes_needed,
                                         .describe = describe, .options = options, .grid = grid,
                                         .calls = calls, .timed_mode = timed_mode};
