"""Times PyTorch's nn.Transformer forward pass, under every PyTorch found
(Debian's 1.13 in .venv, the current PyPI one in .venv-torch2), and
xfbench's checked forward pass on the same weights, inputs, masks and
thread count, interleaved in one run, and prints each with the ratios."""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

from xfpy import die

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PY = os.path.join(TOP, "scripts", "py")
TORCHES = [os.path.join(TOP, ".venv", "bin", "python"), os.path.join(TOP, ".venv-torch2", "bin", "python")]


def torch_time(python, model, threads, reps, pin):
    r = subprocess.run([python, os.path.join(PY, "torch_time.py"), "--model", model, "--threads", str(threads),
                        "--reps", str(reps), "--pin", str(pin)], capture_output=True, text=True)
    if r.returncode != 0:
        die(f"xfbench: {python} torch_time.py failed: {r.stderr.strip().splitlines()[-1:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def xf_time(args, model, reps, show):
    with tempfile.NamedTemporaryFile(suffix=".csv") as rows:
        r = subprocess.run([args.xfbench, "forward", "--weights", model, "--variant", args.variant,
                            "--threads", str(args.threads), "--min-reps", str(reps), "--min-time", "0",
                            "--csv", rows.name], capture_output=True, text=True)
        if show:
            sys.stdout.write(r.stdout)
        if r.returncode != 0:
            sys.stdout.write(r.stdout)
            die(f"xfbench: the {args.variant} forward pass failed (exit {r.returncode}): no time is compared\n{r.stderr}")
        with open(rows.name) as f:
            return next(csv.DictReader(f))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--d-model", type=int, default=512)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--d-ff", type=int, default=0)
    ap.add_argument("--layers", type=int, default=6, help="encoder and decoder layers each")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--src-keep", type=float, default=0.75,
                    help="fraction of the source keys kept (the rest is padding); 1: no padding")
    ap.add_argument("--tgt-keep", type=float, default=1.0, help="the same for the target")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=5, help="timed passes per contender per round")
    ap.add_argument("--rounds", type=int, default=2, help="interleaved rounds (noise here is up to 10%%)")
    ap.add_argument("--variant", default="best", help="xfbench variant family, or best")
    ap.add_argument("--xfbench", default=os.path.join(TOP, "build", "xfbench"))
    args = ap.parse_args()
    torches = [p for p in TORCHES if os.path.exists(p)]
    if not torches:
        die("xfbench: no PyTorch found; run scripts/setup torch (Debian 1.13) or scripts/setup torch2 (PyPI)")
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "model.safetensors")
        subprocess.run([torches[0], os.path.join(PY, "torch_golden.py"), "--out", model,
                        "--d-model", str(args.d_model), "--heads", str(args.heads), "--d-ff", str(args.d_ff),
                        "--enc-layers", str(args.layers), "--dec-layers", str(args.layers),
                        "--batch", str(args.batch), "--src-len", str(args.seq), "--tgt-len", str(args.seq),
                        "--pad", "0", "--src-keep", str(args.src_keep), "--tgt-keep", str(args.tgt_keep)],
                       check=True)
        runs = {}
        info = {}
        # On more than one thread PyTorch runs both pinned (as xfbench) and
        # unpinned with passive OpenMP waits, and is credited with the faster.
        pins = (1, 0) if args.threads > 1 else (1,)
        # Each xfbench run checks its pass (against the fp64 reference and
        # PyTorch's stored outputs) before timing it: minutes at seq 2048.
        for round_no in range(args.rounds):
            for python in torches:
                for pin in pins:
                    r = torch_time(python, model, args.threads, args.reps, pin)
                    info[python, pin] = r
                    runs.setdefault((python, pin), []).extend(r["times_ns"])
            row = xf_time(args, model, args.reps, round_no == 0)
            runs.setdefault("xf", []).append(float(row["median_ns"]))
    gflop = float(row["gflops"]) * float(row["median_ns"]) / 1e9  # dense FLOPs of the pass
    xf_ns = statistics.median(runs["xf"])
    print(f"\nnn.Transformer forward, d_model {args.d_model}, {args.heads} heads, {args.layers}+{args.layers} layers,"
          f" batch {args.batch}, seq {args.seq}, source keeps {args.src_keep:.0%}, target {args.tgt_keep:.0%},"
          f" {args.threads} thread(s);"
          f" {gflop:.2f} dense GFLOP per pass (masked work counted); medians over {args.rounds} interleaved rounds")
    for python in torches:
        t, pin = min((statistics.median(runs[python, p]), p) for p in pins)
        i = info[python, pin]
        how = "pinned" if pin else "unpinned"
        print(f"  PyTorch {i['version']:<14} (BLAS {i['blas']:<7}, {i['threads']} thr {how:<8}) {t / 1e6:10.2f} ms"
              f" {gflop / t * 1e9:8.2f} GFLOP/s   xfbench is {t / xf_ns:.2f}x faster")
    # The row's % of peak is for its own round; this one is for the median.
    peak = float(row["gflops"]) / (float(row["pct_peak"]) / 100)
    print(f"  xfbench {args.variant:<14} ({row['threads']} thr pinned, checked)   {xf_ns / 1e6:10.2f} ms"
          f" {gflop / xf_ns * 1e9:8.2f} GFLOP/s   {100 * gflop / xf_ns * 1e9 / peak:.1f}% of the measured peak"
          f" ({peak:.1f} GFLOP/s); rounds: " + " ".join(f"{t / 1e6:.1f}" for t in runs["xf"]) + " ms")


if __name__ == "__main__":
    main()
