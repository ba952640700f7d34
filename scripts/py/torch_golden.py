"""Builds a random nn.Transformer (dropout 0, eval mode), random embedded
inputs and padding masks, runs PyTorch's forward pass, and writes weights,
inputs and PyTorch's outputs to one safetensors file that
`xfbench forward --weights FILE` reads and compares against.

Names follow nn.Transformer's state_dict; inputs are batch-first:
src (B,S,d), tgt (B,T,d), src_key_padding_mask (B,S), tgt_key_padding_mask
(B,T) (True = padding); outputs torch.memory (B,S,d), torch.output (B,T,d).
Padding never covers every key of a sequence (PyTorch gives NaN there,
xfbench zeros), and the target keeps its first position, so no causal row
is fully masked.

--dtype bf16 or f16 stores the weights and inputs in that type, rounded
from the fp32 model by PyTorch, and PyTorch's outputs (F32) computed in
fp32 from the rounded values: the fp32 model whose weights are those
16-bit numbers, which xfbench reads by widening them exactly.
"""
import argparse

from xfpy import die, need

torch = need("torch", "scripts/setup torch")
st_torch = need("safetensors.torch", "scripts/setup python")


def transformer(d_model, heads, enc_layers, dec_layers, d_ff):
    """nn.Transformer as xfbench reads it: batch-first, dropout 0."""
    return torch.nn.Transformer(d_model=d_model, nhead=heads, num_encoder_layers=enc_layers,
                                num_decoder_layers=dec_layers, dim_feedforward=d_ff, dropout=0.0,
                                batch_first=True)


def for_inference(model):
    """Eval mode, and every row computed: the nested-tensor fast path zeroes
    the encoder outputs of padded positions, which the reference semantics
    compute like any other row."""
    model.eval()
    for attr in ("enable_nested_tensor", "use_nested_tensor"):
        if hasattr(model.encoder, attr):
            setattr(model.encoder, attr, False)
    return model


def build(args):
    torch.manual_seed(args.seed)
    model = transformer(args.d_model, args.heads, args.enc_layers, args.dec_layers, args.d_ff)
    # PyTorch initialises attention biases to 0 and LayerNorm to (1, 0);
    # random values make every parameter matter to the comparison.
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("in_proj_bias") or name.endswith("out_proj.bias"):
                p.uniform_(-args.d_model ** -0.5, args.d_model ** -0.5)
            elif "norm" in name and name.endswith("weight"):
                p.uniform_(0.5, 1.5)
            elif "norm" in name and name.endswith("bias"):
                p.uniform_(-0.5, 0.5)
    return for_inference(model)


def padding(batch, length, rng, pad, keep_fraction=0.0):
    mask = torch.zeros(batch, length, dtype=torch.bool)
    if keep_fraction > 0:  # the same kept prefix in every sequence
        mask[:, max(1, round(keep_fraction * length)):] = True
    elif pad:
        for b in range(batch):
            keep = int(torch.randint(1, length + 1, (1,), generator=rng))
            mask[b, keep:] = True
    return mask


def run(model, src, tgt, src_pad, tgt_pad):
    tgt_mask = torch.triu(torch.full((tgt.shape[1], tgt.shape[1]), float("-inf")), diagonal=1)
    with torch.inference_mode():
        memory = model.encoder(src, src_key_padding_mask=src_pad)
        out = model.decoder(tgt, memory, tgt_mask=tgt_mask, tgt_key_padding_mask=tgt_pad,
                            memory_key_padding_mask=src_pad)
    return memory, out


DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}


def rounded(t, dtype):
    """t rounded to dtype (PyTorch rounds to nearest even) and back to fp32."""
    return t.to(dtype).to(torch.float32)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--d-model", type=int, default=32)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--d-ff", type=int, default=0, help="default 4 * d_model")
    ap.add_argument("--enc-layers", type=int, default=2)
    ap.add_argument("--dec-layers", type=int, default=2)
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--src-len", type=int, default=9)
    ap.add_argument("--tgt-len", type=int, default=7)
    ap.add_argument("--pad", type=int, default=1, help="1: random key padding, 0: none")
    ap.add_argument("--src-keep", type=float, default=0.0,
                    help="if > 0: every source keeps this fraction of its keys (instead of --pad)")
    ap.add_argument("--tgt-keep", type=float, default=0.0, help="the same for the target")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--dtype", choices=sorted(DTYPES), default="f32",
                    help="storage type of the weights and inputs (outputs stay F32)")
    args = ap.parse_args()
    args.d_ff = args.d_ff or 4 * args.d_model
    if args.d_model % args.heads:
        die("xfbench: --d-model must be a multiple of --heads")
    torch.set_num_threads(args.threads)
    model = build(args)
    rng = torch.Generator().manual_seed(args.seed + 1)
    src = torch.rand(args.batch, args.src_len, args.d_model, generator=rng) * 2 - 1
    tgt = torch.rand(args.batch, args.tgt_len, args.d_model, generator=rng) * 2 - 1
    src_pad = padding(args.batch, args.src_len, rng, args.pad, args.src_keep)
    tgt_pad = padding(args.batch, args.tgt_len, rng, args.pad, args.tgt_keep)
    dtype = DTYPES[args.dtype]
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(rounded(p, dtype))
    src, tgt = rounded(src, dtype), rounded(tgt, dtype)
    memory, out = run(model, src, tgt, src_pad, tgt_pad)
    tensors = {k: v.detach().to(dtype).contiguous() for k, v in model.state_dict().items()}
    tensors.update({"src": src.to(dtype), "tgt": tgt.to(dtype), "src_key_padding_mask": src_pad,
                    "tgt_key_padding_mask": tgt_pad, "torch.memory": memory.contiguous(),
                    "torch.output": out.contiguous()})
    meta = {"heads": str(args.heads), "torch_version": torch.__version__,
            "made_by": "scripts/torch_golden", "seed": str(args.seed), "dtype": args.dtype}
    st_torch.save_file(tensors, args.out, metadata=meta)


if __name__ == "__main__":
    main()
