#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/half.h"
#include "model_file.h"
#include "rng.h"
#include "stages/inputs.h"

#define ERR(...) (snprintf(err, err_size, __VA_ARGS__), -1)
#define ERRP(...) (snprintf(err, err_size, __VA_ARGS__), NULL)

static const char *const MHA[] = {"in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"};
static const char *const ENC_SUFFIX[] = {
    "self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight",
    "self_attn.out_proj.bias", "linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias",
    "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias"};
static const char *const DEC_EXTRA[] = {
    "multihead_attn.in_proj_weight", "multihead_attn.in_proj_bias", "multihead_attn.out_proj.weight",
    "multihead_attn.out_proj.bias", "norm3.weight", "norm3.bias"};
static const char *const OTHER[] = {
    "encoder.norm.weight", "encoder.norm.bias", "decoder.norm.weight", "decoder.norm.bias", "src",
    "tgt", "src_key_padding_mask", "tgt_key_padding_mask", "torch.memory", "torch.output"};

#define COUNT(a) ((int)(sizeof a / sizeof a[0]))
enum { MAX_LAYERS = 1000 };

static int in_set(const char *s, const char *const *set, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(s, set[i])) return 1;
    return 0;
}

// "encoder.layers.12.linear1.weight" -> 12 and "linear1.weight"; -1 if the
// name is not of that form (leading zeros and huge indices are refused).
static int layer_index(const char *name, const char *prefix, const char **suffix)
{
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n)) return -1;
    const char *p = name + n;
    int idx = 0, digits = 0;
    while (*p >= '0' && *p <= '9' && digits < 5) idx = idx * 10 + (*p++ - '0'), digits++;
    if (!digits || *p != '.' || (digits > 1 && name[n] == '0') || idx >= MAX_LAYERS) return -1;
    *suffix = p + 1;
    return idx;
}

typedef struct {
    xf_instance *in;
    const xf_st *st;
    char *err;
    size_t err_size;
    xf_dtype dtype; // the run's: bf16 rounds every value read
} binder;

// The tensor, which must be F32, BF16 or F16 of exactly this shape, as
// fp32 in aligned memory (the file's data has no alignment guarantee):
// 16-bit floats widened, which is exact (kernels/half.h), so a model saved
// in bf16 runs as the fp32 model with those weights. A bf16 run
// (--dtype bf16) rounds every value to bf16 (exact for a BF16 tensor).
static const float *tensor_as_f32(binder *b, const char *name, int ndim, const int64_t *shape)
{
    char *err = b->err;
    size_t err_size = b->err_size;
    const xf_st_tensor *t = xf_st_find(b->st, name);
    if (!t) return ERRP("missing tensor '%s'", name);
    const int bf16 = !strcmp(t->dtype, "BF16"), f16 = !strcmp(t->dtype, "F16");
    if (strcmp(t->dtype, "F32") && !bf16 && !f16)
        return ERRP("tensor '%s' is %s, expected F32, BF16 or F16", name, t->dtype);
    int ok = t->ndim == ndim;
    for (int d = 0; ok && d < ndim; d++) ok = t->shape[d] == shape[d];
    if (!ok) {
        char got[96] = "", want[96] = "";
        for (int d = 0; d < t->ndim; d++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%lld", d ? ", " : "", (long long)t->shape[d]);
        for (int d = 0; d < ndim; d++)
            snprintf(want + strlen(want), sizeof want - strlen(want), "%s%lld", d ? ", " : "", (long long)shape[d]);
        return ERRP("tensor '%s' has shape [%s], expected [%s]", name, got, want);
    }
    float *x = xf_instance_own(b->in, t->numel * sizeof(float));
    if (!x) return ERRP("out of memory copying tensor '%s'", name);
    if (!bf16 && !f16) {
        memcpy(x, t->data, t->nbytes);
    } else {
        for (size_t i = 0; i < t->numel; i++) { // little-endian, as safetensors stores them
            const uint16_t h = (uint16_t)(t->data[2 * i] | t->data[2 * i + 1] << 8);
            x[i] = bf16 ? xf_bf16_to_f32(h) : xf_f16_to_f32(h);
        }
    }
    if (b->dtype == XF_BF16)
        for (size_t i = 0; i < t->numel; i++) x[i] = xf_round_bf16(x[i]);
    return x;
}

static const float *mat(binder *b, const char *name, int64_t rows, int64_t cols)
{
    int64_t s[2] = {rows, cols};
    return tensor_as_f32(b, name, 2, s);
}

static const float *vec(binder *b, const char *name, int64_t n) { return tensor_as_f32(b, name, 1, &n); }

static int mha(binder *b, const char *prefix, int d, xf_mha_weights *w)
{
    char n[4][160];
    for (int i = 0; i < 4; i++) snprintf(n[i], sizeof n[i], "%s.%s", prefix, MHA[i]);
    w->in_proj_w = mat(b, n[0], 3 * d, d);
    w->in_proj_b = w->in_proj_w ? vec(b, n[1], 3 * d) : NULL;
    w->out_proj_w = w->in_proj_b ? mat(b, n[2], d, d) : NULL;
    w->out_proj_b = w->out_proj_w ? vec(b, n[3], d) : NULL;
    return w->out_proj_b ? 0 : -1;
}

static int norm(binder *b, const char *prefix, int d, xf_norm_weights *w)
{
    char g[160], be[160];
    snprintf(g, sizeof g, "%s.weight", prefix);
    snprintf(be, sizeof be, "%s.bias", prefix);
    w->gamma = vec(b, g, d);
    w->beta = w->gamma ? vec(b, be, d) : NULL;
    return w->beta ? 0 : -1;
}

static int ffn(binder *b, const char *prefix, int d, int d_ff, xf_ffn_weights *w)
{
    char n[4][160];
    const char *const parts[4] = {"linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias"};
    for (int i = 0; i < 4; i++) snprintf(n[i], sizeof n[i], "%s.%s", prefix, parts[i]);
    w->w1 = mat(b, n[0], d_ff, d);
    w->b1 = w->w1 ? vec(b, n[1], d_ff) : NULL;
    w->w2 = w->b1 ? mat(b, n[2], d, d_ff) : NULL;
    w->b2 = w->w2 ? vec(b, n[3], d) : NULL;
    return w->b2 ? 0 : -1;
}

// Every tensor must be one xfbench knows; returns the layer counts.
static int scan_names(const xf_st *st, int *enc, int *dec, char *err, size_t err_size)
{
    *enc = *dec = 0;
    for (int i = 0; i < st->n; i++) {
        const char *name = st->t[i].name, *suffix;
        int l;
        if ((l = layer_index(name, "encoder.layers.", &suffix)) >= 0 && in_set(suffix, ENC_SUFFIX, COUNT(ENC_SUFFIX))) {
            if (l + 1 > *enc) *enc = l + 1;
        } else if ((l = layer_index(name, "decoder.layers.", &suffix)) >= 0 &&
                   (in_set(suffix, ENC_SUFFIX, COUNT(ENC_SUFFIX)) || in_set(suffix, DEC_EXTRA, COUNT(DEC_EXTRA)))) {
            if (l + 1 > *dec) *dec = l + 1;
        } else if (!in_set(name, OTHER, COUNT(OTHER))) {
            return ERR("unexpected tensor '%.120s' (not an nn.Transformer weight, input or output)", name);
        }
    }
    if (!*enc && !*dec) return ERR("no encoder.layers.N or decoder.layers.N weights");
    return 0;
}

static int heads_from(const xf_st *st, const xf_case *base, int heads_given, int d, char *err,
                      size_t err_size)
{
    const char *meta = xf_st_meta(st, "heads");
    int heads = heads_given ? base->heads : 0;
    if (meta) {
        char *end;
        long h = strtol(meta, &end, 10);
        if (end == meta || *end || h < 1 || h > d) return ERR("metadata heads '%.20s' is not a head count", meta);
        if (heads_given && h != heads) return ERR("--heads %d disagrees with the file's metadata heads %ld", heads, h);
        heads = (int)h;
    }
    if (!heads) return ERR("the head count is not in the file's metadata ('heads'); give --heads");
    if (d % heads) return ERR("d_model %d is not a multiple of %d heads", d, heads);
    return heads;
}

// A BOOL or U8 padding mask of exactly (batch, seq) holding only 0 and 1.
static const uint8_t *mask(binder *b, const char *name, int batch, int seq)
{
    char *err = b->err;
    size_t err_size = b->err_size;
    const xf_st_tensor *t = xf_st_find(b->st, name);
    if (!t) return NULL;
    if (strcmp(t->dtype, "BOOL") && strcmp(t->dtype, "U8"))
        return ERRP("tensor '%s' is %s, expected BOOL or U8", name, t->dtype);
    if (t->ndim != 2 || t->shape[0] != batch || t->shape[1] != seq)
        return ERRP("tensor '%s' is not of shape [%d, %d]", name, batch, seq);
    for (size_t i = 0; i < t->numel; i++)
        if (t->data[i] > 1) return ERRP("tensor '%s' holds %u, not 0 or 1", name, t->data[i]);
    uint8_t *m = xf_instance_own(b->in, t->numel);
    if (!m) return ERRP("out of memory");
    memcpy(m, t->data, t->numel);
    return m;
}

// An input sequence: from the file ([batch, seq, d], as tensor_as_f32() takes it) or seeded.
static const float *sequence(binder *b, xf_rng *r, const char *name, int *batch, int *seq, int d)
{
    const xf_st_tensor *t = xf_st_find(b->st, name);
    if (t) {
        if (t->ndim != 3 || t->shape[2] != d || t->shape[0] < 1 || t->shape[1] < 1 ||
            t->shape[0] > (1 << 20) || t->shape[1] > (1 << 20)) {
            snprintf(b->err, b->err_size, "tensor '%s' is not of shape [batch, seq, %d] (batch-first)", name, d);
            return NULL;
        }
        *batch = (int)t->shape[0], *seq = (int)t->shape[1];
        int64_t s[3] = {*batch, *seq, d};
        return tensor_as_f32(b, name, 3, s);
    }
    size_t count = (size_t)*batch * *seq * d;
    float *x = xf_instance_own(b->in, count * sizeof *x);
    if (!x) {
        snprintf(b->err, b->err_size, "out of memory");
        return NULL;
    }
    xf_rng_fill(r, x, count, -1.0f, 1.0f);
    if (b->dtype == XF_BF16)
        for (size_t i = 0; i < count; i++) x[i] = xf_round_bf16(x[i]);
    return x;
}

// d_model and d_ff from the first layer's tensors (an encoder's, or a
// decoder-only file's decoder's): 0, or -1 with the reason.
static int model_dims(const xf_st *st, int enc_layers, int *d, int *d_ff, char *err, size_t err_size)
{
    char first[64];
    snprintf(first, sizeof first, "%s.layers.0.self_attn.in_proj_weight", enc_layers ? "encoder" : "decoder");
    const xf_st_tensor *ip = xf_st_find(st, first);
    if (!ip) return ERR("missing tensor '%s'", first);
    if (ip->ndim != 2 || ip->shape[1] < 1 || ip->shape[1] > (1 << 20) || ip->shape[0] != 3 * ip->shape[1])
        return ERR("tensor '%s' is not of shape [3*d_model, d_model]", first);
    *d = (int)ip->shape[1];
    snprintf(first, sizeof first, "%s.layers.0.linear1.weight", enc_layers ? "encoder" : "decoder");
    const xf_st_tensor *l1 = xf_st_find(st, first);
    if (!l1) return ERR("missing tensor '%s'", first);
    if (l1->ndim != 2 || l1->shape[0] < 1 || l1->shape[0] > (1 << 24))
        return ERR("tensor '%s' is not of shape [d_ff, d_model]", first);
    *d_ff = (int)l1->shape[0];
    return 0;
}

// Every layer's weights and the final norms (both halves present, or
// neither) bound into a (its heads, dk, d_ff and layer counts already set).
static int bind_layers(binder *b, xf_forward_args *a, int d)
{
    const size_t enc_bytes = ((size_t)a->enc_layers + 1) * sizeof *a->enc;
    const size_t dec_bytes = ((size_t)a->dec_layers + 1) * sizeof *a->dec;
    xf_encoder_weights *enc = xf_instance_own(b->in, enc_bytes);
    xf_decoder_weights *dec = xf_instance_own(b->in, dec_bytes);
    char *err = b->err;
    const size_t err_size = b->err_size;
    if (!enc || !dec) return ERR("out of memory");
    memset(enc, 0, enc_bytes), memset(dec, 0, dec_bytes);
    a->enc = enc, a->dec = dec;
    char p[96];
    for (int l = 0; l < a->enc_layers; l++) {
        snprintf(p, sizeof p, "encoder.layers.%d", l);
        char sa[112], n1[112], n2[112];
        snprintf(sa, sizeof sa, "%s.self_attn", p), snprintf(n1, sizeof n1, "%s.norm1", p), snprintf(n2, sizeof n2, "%s.norm2", p);
        if (mha(b, sa, d, &enc[l].self_attn) || ffn(b, p, d, a->d_ff, &enc[l].ffn) ||
            norm(b, n1, d, &enc[l].norm1) || norm(b, n2, d, &enc[l].norm2))
            return -1;
    }
    for (int l = 0; l < a->dec_layers; l++) {
        snprintf(p, sizeof p, "decoder.layers.%d", l);
        char sa[112], ca[112], n1[112], n2[112], n3[112];
        snprintf(sa, sizeof sa, "%s.self_attn", p), snprintf(ca, sizeof ca, "%s.multihead_attn", p);
        snprintf(n1, sizeof n1, "%s.norm1", p), snprintf(n2, sizeof n2, "%s.norm2", p), snprintf(n3, sizeof n3, "%s.norm3", p);
        if (mha(b, sa, d, &dec[l].self_attn) || mha(b, ca, d, &dec[l].cross_attn) ||
            ffn(b, p, d, a->d_ff, &dec[l].ffn) || norm(b, n1, d, &dec[l].norm1) ||
            norm(b, n2, d, &dec[l].norm2) || norm(b, n3, d, &dec[l].norm3))
            return -1;
    }
    const char *norms[2] = {"encoder.norm", "decoder.norm"};
    xf_norm_weights *nw[2] = {&a->enc_norm, &a->dec_norm};
    for (int i = 0; i < 2; i++) {
        char g[32], be[32];
        snprintf(g, sizeof g, "%s.weight", norms[i]), snprintf(be, sizeof be, "%s.bias", norms[i]);
        if ((xf_st_find(b->st, g) || xf_st_find(b->st, be)) && norm(b, norms[i], d, nw[i])) return -1;
    }
    return 0;
}

// The inputs: the file's src and tgt and their padding masks, or seeded
// ones of base's batch and lengths for any the file does not hold.
static int bind_inputs(binder *b, xf_forward_args *a, const xf_case *base, int d)
{
    char *err = b->err;
    const size_t err_size = b->err_size;
    xf_rng r = {base->seed};
    int bs = base->batch, s = base->seq_k, bt = base->batch, t = base->seq_q;
    a->src_x = sequence(b, &r, "src", &bs, &s, d);
    if (!a->src_x) return -1;
    if (xf_st_find(b->st, "src")) bt = bs; // a generated target follows the file's batch
    a->tgt_x = sequence(b, &r, "tgt", &bt, &t, d);
    if (!a->tgt_x) return -1;
    if (bs != bt) return ERR("'src' has batch %d but 'tgt' has batch %d", bs, bt);
    a->batch = bs, a->seq_s = s, a->seq_t = t;
    err[0] = '\0';
    a->src_pad = mask(b, "src_key_padding_mask", bs, s);
    if (!a->src_pad && err[0]) return -1;
    a->tgt_pad = mask(b, "tgt_key_padding_mask", bs, t);
    if (!a->tgt_pad && err[0]) return -1;
    return 0;
}

int xf_instance_from_file(xf_instance *in, const xf_st *st, const xf_case *base, int heads_given,
                          char *err, size_t err_size)
{
    memset(in, 0, sizeof *in);
    in->bound_ulp = -1.0;
    in->model_bound = 1;
    int enc_layers, dec_layers, d, d_ff;
    if (scan_names(st, &enc_layers, &dec_layers, err, err_size)) return -1;
    if (model_dims(st, enc_layers, &d, &d_ff, err, err_size)) return -1;
    int heads = heads_from(st, base, heads_given, d, err, err_size);
    if (heads < 0) return -1;

    binder b = {in, st, err, err_size, base->dtype};
    xf_forward_args *a = &in->args.forward;
    *a = (xf_forward_args){.heads = heads, .dk = d / heads, .d_ff = d_ff, .enc_layers = enc_layers,
                           .dec_layers = dec_layers};
    if (bind_layers(&b, a, d) || bind_inputs(&b, a, base, d)) return -1;
    const int bs = a->batch, s = a->seq_s, t = a->seq_t;

    in->c = *base;
    in->c.stage = XF_FORWARD;
    in->c.batch = bs, in->c.heads = heads, in->c.dk = d / heads, in->c.d_ff = d_ff;
    in->c.seq_q = t, in->c.seq_k = s, in->c.layers = enc_layers, in->c.dec_layers = dec_layers;
    in->c.final_norm = a->enc_norm.gamma != NULL;
    in->c.pad = a->src_pad || a->tgt_pad ? XF_PAD_SOME : XF_PAD_NONE;
    in->c.from_file = 1;
    if (xf_instance_add_output(in, "memory", (size_t)bs * s * d) ||
        xf_instance_add_output(in, "y", (size_t)bs * t * d))
        return ERR("out of memory");
    a->memory = in->out[0].data, a->y = in->out[1].data;
    if (base->dtype == XF_BF16) { // every tensor rounded by tensor_as_f32(): bf16 views of the inputs, bf16 outputs
        a->dtype = XF_BF16, a->memory16 = in->out[0].data16, a->y16 = in->out[1].data16;
        a->src_x16 = xf_own_bf16(in, (float *)a->src_x, (size_t)bs * s * d);
        a->tgt_x16 = xf_own_bf16(in, (float *)a->tgt_x, (size_t)bs * t * d);
        if (!a->src_x16 || !a->tgt_x16) return ERR("out of memory");
    }
    in->flops = xf_forward_flops(a), in->bytes = xf_forward_bytes(a);
    in->useful_flops = xf_forward_useful_flops(a);
    return 0;
}

int xf_instance_decode_file(xf_instance *in, char *err, size_t err_size)
{
    const xf_forward_args f = in->args.forward;
    for (int b = 0; f.tgt_pad && b < f.batch; b++)
        for (int t = 1; t < f.seq_t; t++)
            if (f.tgt_pad[(size_t)b * f.seq_t + t - 1] && !f.tgt_pad[(size_t)b * f.seq_t + t])
                return ERR("--decode: tgt_key_padding_mask of sequence %d is not trailing (position %d is padding,"
                           " %d is not): a decoded sequence cannot resume after its end", b, t - 1, t);
    xf_generate_args *a = &in->args.generate;
    *a = xf_generate_of_forward(&f);
    in->c.stage = XF_GENERATE;
    in->flops = xf_generate_flops(a), in->bytes = xf_generate_bytes(a);
    in->useful_flops = xf_generate_useful_flops(a);
    in->tokens = (double)f.batch * f.seq_t, in->steps = f.seq_t;
    return 0;
}
