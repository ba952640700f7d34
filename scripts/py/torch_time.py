"""Times PyTorch's nn.Transformer forward pass on a model file written by
scripts/torch_golden (weights, inputs and masks), with whichever torch the
running interpreter has, and prints one JSON line: version, BLAS, threads,
mode, median and all times in ns (and for compile, the compile time and
graph breaks; or why the mode is unavailable). vs_torch runs it under
each PyTorch it finds.

Modes, all in eval() and under inference_mode(), as PyTorch's users run
inference:
  default     the model as nn.Transformer builds it: the encoder's fast
              path with nested tensors on, which skips padded source rows
              (PyTorch 1.13 fails here when every source ends in padding:
              its memory comes back shorter than the memory mask; the
              mode is then reported unavailable with that error)
  nested-off  enable_nested_tensor off: every row computed, as xfbench and
              its reference do (what scripts/vs_torch alone ran before)
  compile     torch.compile of the default pass (PyTorch >= 2; inductor's
              C++ backend); the first call, which compiles, is timed apart"""
import argparse
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from xfpy import die, need  # noqa: E402

torch = None


def import_torch(threads, pin):
    """Imports torch with every thread pool it may use capped at threads:
    Debian's 1.13 links OpenBLAS as a "generic" BLAS, so
    torch.set_num_threads(1) does not reach OpenBLAS, which then runs on
    every core (measured: 494 ms "on 1 thread", 798 ms really on one).
    pin: OpenMP threads bound to cores, as xfbench's; else unbound and
    passive, which OpenBLAS's own pthreads need next to OpenMP's (1.13 on 2
    threads: 784 ms pinned, 498 ms unpinned and passive)."""
    global torch
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(threads)
    if pin:
        os.environ.update(OMP_PROC_BIND="close", OMP_PLACES="cores")
    else:
        os.environ.update(OMP_PROC_BIND="false", OMP_WAIT_POLICY="passive")
        os.environ.pop("OMP_PLACES", None)
    torch = need("torch", "scripts/setup torch (Debian's 1.13) or scripts/setup torch2 (PyPI's current)")
    need("safetensors", "scripts/setup python")


def blas():
    m = re.search(r"BLAS_INFO=(\w+)", torch.__config__.show())
    return m.group(1) if m else "unknown"


def reason(e):
    """An exception as one line: its type and the first line of its message."""
    text = str(e).strip()
    return f"{type(e).__name__}: {text.splitlines()[0] if text else ''}"


def timed(fn, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - t0)
    return times


def compiled_pass(model, run, inputs):
    """torch.compile of the whole pass; returns (fn, compile_ns, graph
    breaks), or raises with the reason it cannot compile here."""
    if not hasattr(torch, "compile"):
        raise RuntimeError(f"torch.compile needs PyTorch >= 2 (this is {torch.__version__})")
    import torch._dynamo as dynamo

    def whole(src, tgt, src_pad, tgt_pad):
        return run(model, src, tgt, src_pad, tgt_pad)

    breaks = None
    try:
        explained = dynamo.explain(whole)(*inputs)
        breaks = explained.graph_break_count
    except Exception:  # explain is diagnostics only: its failure is not the mode's
        pass
    dynamo.reset()
    fn = torch.compile(whole)
    t0 = time.perf_counter_ns()
    fn(*inputs)
    return (lambda: fn(*inputs)), time.perf_counter_ns() - t0, breaks


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--pin", type=int, default=1, help="1: OpenMP threads bound to cores; 0: unbound, passive")
    ap.add_argument("--mode", default="default", choices=("default", "nested-off", "compile"))
    ap.add_argument("--dtype", default="f32", choices=("f32", "bf16"),
                    help="bf16: the model and inputs as torch.bfloat16 (model.to(torch.bfloat16))")
    args = ap.parse_args()
    if not os.path.exists(args.model):
        die(f"xfbench: --model {args.model}: no such file")
    if args.threads < 1:
        die("xfbench: --threads must be >= 1")
    import_torch(args.threads, args.pin)
    from safetensors.torch import load_file
    from safetensors import safe_open
    from torch_golden import for_inference, run, transformer
    t = load_file(args.model)
    with safe_open(args.model, "pt") as f:
        heads = int(f.metadata()["heads"])
    enc = len({k.split(".")[2] for k in t if k.startswith("encoder.layers.")})
    dec = len({k.split(".")[2] for k in t if k.startswith("decoder.layers.")})
    d_ff, d_model = t["encoder.layers.0.linear1.weight"].shape
    torch.set_num_threads(args.threads)
    model = transformer(d_model, heads, enc, dec, d_ff)
    model.load_state_dict({k: v for k, v in t.items() if not k.startswith(("src", "tgt", "torch."))})
    inputs = (t["src"], t["tgt"], t["src_key_padding_mask"], t["tgt_key_padding_mask"])
    if args.dtype == "bf16":
        model = model.to(torch.bfloat16)
        inputs = (inputs[0].to(torch.bfloat16), inputs[1].to(torch.bfloat16)) + inputs[2:]
    out = {"version": torch.__version__, "blas": blas(), "threads": torch.get_num_threads(), "pinned": args.pin,
           "mode": args.mode, "dtype": args.dtype}
    if args.mode == "nested-off":
        for_inference(model)
    else:
        model.eval()
    fn = lambda: run(model, *inputs)  # noqa: E731
    if args.mode == "compile":
        try:
            fn, out["compile_ns"], out["graph_breaks"] = compiled_pass(model, run, inputs)
        except Exception as e:  # any failure to compile is the mode's result, stated
            out["unavailable"] = reason(e)
            print(json.dumps(out))
            return
    try:
        fn()  # warm-up
    except Exception as e:  # e.g. PyTorch 1.13's fast path: its memory comes back shorter than the source
        # mask when every sequence ends in padding; a user of nn.Transformer gets this error, so it is the mode's
        # result, stated
        out["unavailable"] = reason(e)
        print(json.dumps(out))
        return
    times = timed(fn, args.reps)
    out.update(median_ns=sorted(times)[len(times) // 2], times_ns=times)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
