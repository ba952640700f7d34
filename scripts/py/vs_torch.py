"""Times PyTorch's nn.Transformer forward pass and xfbench's (checked)
forward pass on the same weights, inputs, masks and thread count, in one
run, and prints both with the ratio."""
import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile

from xfpy import need

torch = need("torch", "scripts/setup torch")
need("safetensors", "scripts/setup python")

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def blas_of_torch():
    cfg = torch.__config__.show()
    m = re.search(r"BLAS_INFO=(\w+)", cfg)
    return m.group(1) if m else "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--d-model", type=int, default=512)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--d-ff", type=int, default=0)
    ap.add_argument("--layers", type=int, default=6, help="encoder and decoder layers each")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--pad", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--variant", default="naive", help="xfbench variant family")
    ap.add_argument("--xfbench", default=os.path.join(TOP, "build", "xfbench"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "model.safetensors")
        subprocess.run([sys.executable, os.path.join(TOP, "scripts", "py", "torch_golden.py"),
                        "--out", model, "--d-model", str(args.d_model), "--heads", str(args.heads),
                        "--d-ff", str(args.d_ff), "--enc-layers", str(args.layers),
                        "--dec-layers", str(args.layers), "--batch", str(args.batch),
                        "--src-len", str(args.seq), "--tgt-len", str(args.seq),
                        "--pad", str(args.pad), "--threads", str(args.threads),
                        "--time", str(args.reps)], check=True)
        from safetensors import safe_open
        with safe_open(model, "pt") as f:
            meta = f.metadata()
        rows = os.path.join(tmp, "xf.csv")
        r = subprocess.run([args.xfbench, "forward", "--weights", model, "--variant", args.variant,
                            "--threads", str(args.threads), "--min-reps", str(args.reps),
                            "--min-time", "0", "--csv", rows], capture_output=True, text=True)
        sys.stdout.write(r.stdout)
        if r.returncode != 0:
            sys.exit(f"xfbench: the {args.variant} forward pass failed its check (exit {r.returncode}):"
                     f" no time is compared\n{r.stderr}")
        with open(rows) as f:
            row = next(csv.DictReader(f))
    torch_ns = float(meta["torch_median_ns"])
    xf_ns = float(row["median_ns"])
    gflop = float(row["gflops"]) * xf_ns / 1e9  # dense FLOPs of the pass
    print(f"\nnn.Transformer forward, d_model {args.d_model}, {args.heads} heads, "
          f"{args.layers}+{args.layers} layers, batch {args.batch}, seq {args.seq}, "
          f"pad {args.pad}, {args.threads} thread(s); {gflop:.2f} dense GFLOP per pass")
    print(f"  PyTorch {torch.__version__} (BLAS {blas_of_torch()}), median of {args.reps}: "
          f"{torch_ns / 1e6:10.2f} ms  {gflop / torch_ns * 1e9:7.2f} GFLOP/s")
    print(f"  xfbench {args.variant:<10} median of >= {args.reps}:   "
          f"{xf_ns / 1e6:10.2f} ms  {gflop / xf_ns * 1e9:7.2f} GFLOP/s  (checked: {row['passed'] == '1'})")
    print(f"  xfbench time / PyTorch time = {xf_ns / torch_ns:.2f}")


if __name__ == "__main__":
    main()
