"""Times PyTorch's nn.Transformer forward pass on a model file written by
scripts/torch_golden (weights, inputs and masks), with whichever torch the
running interpreter has, and prints one JSON line: version, BLAS, threads,
median and all times in ns. vs_torch runs it under each PyTorch it finds."""
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--pin", type=int, default=1, help="1: OpenMP threads bound to cores; 0: unbound, passive")
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
    for_inference(model)
    inputs = (t["src"], t["tgt"], t["src_key_padding_mask"], t["tgt_key_padding_mask"])
    run(model, *inputs)  # warm-up
    times = []
    for _ in range(args.reps):
        t0 = time.perf_counter_ns()
        run(model, *inputs)
        times.append(time.perf_counter_ns() - t0)
    print(json.dumps({"version": torch.__version__, "blas": blas(), "threads": torch.get_num_threads(),
                      "pinned": args.pin,
                      "median_ns": sorted(times)[len(times) // 2], "times_ns": times}))


if __name__ == "__main__":
    main()
