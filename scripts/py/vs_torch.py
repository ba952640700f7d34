"""Times PyTorch's nn.Transformer forward pass, under every PyTorch found
(Debian's 1.13 in .venv, the current PyPI one in .venv-torch2), and
xfbench's checked forward pass on the same weights, inputs, masks and
thread count, interleaved in one run, and prints each with the ratios.

PyTorch is timed the ways its users run inference (torch_time.py): the
default path (eval(), inference_mode(), the encoder's nested-tensor fast
path on, skipping padded source rows), the fast path off (every row
computed, as xfbench does), and torch.compile of the default pass where
the PyTorch supports it (its compile time and graph breaks stated apart).
The headline ratio is against the fastest of them.

With --decode it races greedy token-by-token generation instead
(torch_decode.py): PyTorch's tutorial way (the decoder re-run on the
growing prefix) and its cached loop (per-layer K/V caches, F.linear,
F.scaled_dot_product_attention) against xfbench's checked generate stage
(--greedy 1, after its teacher-forced check), tokens per second at each
--batches, the same shapes (each side its own random weights: a step's
cost does not depend on their values). With --dtype bf16 both sides run
in bf16, and PyTorch's cached way and xfbench's generate in fp32 run
beside them."""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

from xfpy import die, require_clean

# samples_ns holds every timed call: far past csv's default 128 KiB field limit.
csv.field_size_limit(sys.maxsize)

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PY = os.path.join(TOP, "scripts", "py")
TORCHES = [os.path.join(TOP, ".venv", "bin", "python"), os.path.join(TOP, ".venv-torch2", "bin", "python")]


MODES = ("default", "nested-off", "compile")


def run_json(python, script, options):
    """One of the PyTorch timers under one PyTorch: its JSON line."""
    r = subprocess.run([python, os.path.join(PY, script)] + [str(o) for o in options], capture_output=True,
                       text=True)
    if r.returncode != 0:
        die(f"xfbench: {python} {script} failed: {r.stderr.strip().splitlines()[-1:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def torch_time(python, model, threads, reps, pin, mode, dtype):
    return run_json(python, "torch_time.py", ["--model", model, "--threads", threads, "--reps", reps, "--pin", pin,
                                              "--mode", mode, "--dtype", dtype])


def xf_row(args, options, what, show):
    """One checked xfbench run (options after the binary); its CSV row."""
    with tempfile.NamedTemporaryFile(suffix=".csv") as rows:
        r = subprocess.run([args.xfbench] + [str(o) for o in options] + ["--csv", rows.name], capture_output=True,
                           text=True)
        if show:
            sys.stdout.write(r.stdout)
        if r.returncode != 0:
            sys.stdout.write(r.stdout)
            die(f"xfbench: the {args.variant} {what} failed (exit {r.returncode}): no time is compared\n{r.stderr}")
        with open(rows.name) as f:
            return next(csv.DictReader(f))


def xf_time(args, model, reps, show, dtype):
    variant = args.f32_variant if dtype == "f32" and args.dtype != "f32" else args.variant
    return xf_row(args, ["forward", "--weights", model, "--variant", variant, "--threads", args.threads,
                         "--min-reps", reps, "--min-time", "0", "--dtype", dtype], "forward pass", show)


def torch_decode(python, args, batch, way, reps, pin, dtype):
    return run_json(python, "torch_decode.py", [
        "--way", way, "--batch", batch, "--threads", args.threads, "--reps", reps, "--pin", pin,
        "--d-model", args.d_model, "--heads", args.heads, "--d-ff", args.d_ff or 4 * args.d_model,
        "--layers", args.layers, "--vocab", args.vocab, "--seq-s", args.seq, "--steps", args.steps, "--dtype", dtype])


def xf_generate(args, batch, reps, show, dtype):
    """xfbench's generate, greedy, checked teacher-forced first."""
    variant = args.f32_variant if dtype == "f32" and args.dtype != "f32" else args.variant
    options = ["bench", "--stage", "generate", "--variant", variant, "--greedy", "1", "--batch", batch,
               "--seq-k", args.seq, "--steps", args.steps, "--pad", "none", "--d-model", args.d_model,
               "--heads", args.heads, "--layers", args.layers, "--vocab", args.vocab, "--threads", args.threads,
               "--min-reps", reps, "--min-time", "0", "--dtype", dtype] + (["--d-ff", args.d_ff] if args.d_ff else [])
    return xf_row(args, options, "generate", show)


def decode_race(args, torches):
    """Tokens/s of greedy generation: PyTorch's two ways under every
    PyTorch found, and xfbench, per batch; PyTorch timed in every round,
    xfbench (checked, which takes minutes) once, between the rounds. In
    bf16, PyTorch's cached way and xfbench in fp32 beside them."""
    pins = (1, 0) if args.threads > 1 else (1,)
    ways = [("rerun", args.dtype), ("cached", args.dtype)] + ([("cached", "f32")] if args.dtype != "f32" else [])
    dtypes = [args.dtype] + (["f32"] if args.dtype != "f32" else [])
    lines = [f"greedy generation, d_model {args.d_model}, {args.heads} heads, {args.layers}+{args.layers} layers,"
             f" vocab {args.vocab} (tied lm_head), source {args.seq}, {args.steps} steps (encoder included),"
             f" {args.dtype}, {args.threads} thread(s); PyTorch medians over {args.rounds} rounds"]
    for batch in [int(b) for b in args.batches.split(",")]:
        runs, info, rows = {}, {}, {}
        for round_no in range(args.rounds):
            for python in torches:
                for way, dtype in ways:
                    if any("unavailable" in info.get((python, way, dtype, p), {}) for p in pins):
                        continue
                    for pin in pins:
                        r = torch_decode(python, args, batch, way, args.rerun_reps if way == "rerun" else args.reps,
                                         pin, dtype)
                        info[python, way, dtype, pin] = r
                        runs.setdefault((python, way, dtype, pin), []).extend(r.get("times_ns", []))
            if round_no == (args.rounds - 1) // 2:  # xfbench between PyTorch's rounds
                for dtype in dtypes:
                    rows[dtype] = xf_generate(args, batch, args.reps,
                                              batch == int(args.batches.split(",")[0]) and dtype == args.dtype, dtype)
        row = rows[args.dtype]
        tokens = batch * args.steps
        xf_ns = float(row["median_ns"])
        lines.append(f" batch {batch}: {tokens} tokens per generation")
        fastest = {}
        for python in torches:
            for way, dtype in ways:
                i = info.get((python, way, dtype, pins[0]), {})
                name = f"  PyTorch {i.get('version', '?'):<14} {way:<7} {dtype:<5}"
                timed = [(statistics.median(runs[python, way, dtype, p]), p) for p in pins
                         if runs.get((python, way, dtype, p))]
                if not timed:
                    lines.append(f"{name} unavailable: {i.get('unavailable', 'no times')}")
                    continue
                t, pin = min(timed)
                i = info[python, way, dtype, pin]
                lines.append(f"{name} ({i['threads']} thr {'pinned' if pin else 'unpinned':<8}) {t / 1e6:10.1f} ms"
                             f" {tokens / t * 1e9:9.1f} tokens/s   xfbench {args.dtype} is {t / xf_ns:.2f}x faster"
                             + (f"   ({i['attention']})" if way == "cached" else ""))
                if (way, dtype) not in fastest or t < fastest[way, dtype][0]:
                    fastest[way, dtype] = (t, i["version"])
        for dtype in dtypes:
            r = rows[dtype]
            ns = float(r["median_ns"])
            lines.append(f"  xfbench {r['variant']:<13} {dtype:<5}"
                         f" ({r['threads']} thr pinned, checked) {ns / 1e6:10.1f} ms {tokens / ns * 1e9:9.1f} tokens/s"
                         f"   {float(r['ms_per_step']):.2f} ms per step; {float(r['gbps']):.1f} GB/s,"
                         f" {r['pct_peak']}% of the {r['roof']} roof")
        if "f32" in rows and args.dtype != "f32":
            lines.append(f"  xfbench {args.dtype} is {float(rows['f32']['median_ns']) / xf_ns:.2f}x its f32 tokens/s")
        for (way, dtype), (t, version) in sorted(fastest.items()):
            lines.append(f"  headline batch {batch}: xfbench {args.dtype} is {t / xf_ns:.2f}x PyTorch {version}'s"
                         f" fastest {way} way in {dtype}")
    lines[0] += f"; xfbench commit {row['commit']}, {row['cpu']}"
    print("\n" + "\n".join(lines))
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")


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
    ap.add_argument("--no-compile", action="store_true", help="leave torch.compile out (it compiles every round)")
    ap.add_argument("--out", help="also write the printed table to this file")
    ap.add_argument("--dtype", default="f32", choices=("f32", "bf16"),
                    help="bf16: the model stored in bf16, PyTorch run in torch.bfloat16, xfbench --dtype bf16"
                         " (and xfbench in fp32 on the same weights, for the bf16/fp32 ratio; with --decode,"
                         " PyTorch's cached way in fp32 too)")
    ap.add_argument("--f32-variant", help="--dtype bf16: the fp32 variant family that ratio is against (default: the"
                                          " family --variant's kernels widen from: avx2bf16 -> avx2, avx512bf16w and"
                                          " avx512bf16 -> avx512; best and naive: themselves)")
    ap.add_argument("--decode", action="store_true", help="race greedy token-by-token generation instead")
    ap.add_argument("--batches", default="1,8", help="--decode: batch sizes")
    ap.add_argument("--steps", type=int, default=128, help="--decode: tokens generated per sequence")
    ap.add_argument("--vocab", type=int, default=32000, help="--decode: vocabulary (tied lm_head)")
    ap.add_argument("--rerun-reps", type=int, default=1, help="--decode: timed generations of the rerun way per round")
    ap.add_argument("--allow-dirty", action="store_true",
                    help="--out into results/ from a tree with uncommitted changes (the table says -dirty)")
    args = ap.parse_args()
    batches = args.batches.split(",")
    if not all(b.isdigit() and int(b) > 0 for b in batches):
        die(f"xfbench: vs_torch --batches: '{args.batches}' is not a list of positive whole numbers (e.g. 1,8)")
    for name in ("rounds", "reps", "rerun_reps", "steps", "threads"):
        if getattr(args, name) < 1:
            die(f"xfbench: vs_torch --{name.replace('_', '-')}: {getattr(args, name)} is out of range (at least 1)")
    if not args.f32_variant:
        args.f32_variant = {"avx2bf16": "avx2", "avx512bf16w": "avx512", "avx512bf16": "avx512"}.get(args.variant, args.variant)
    if args.out:
        require_clean(TOP, args.out, args.allow_dirty)
    modes = MODES[:2] if args.no_compile else MODES
    torches = [p for p in TORCHES if os.path.exists(p)]
    if not torches:
        die("xfbench: no PyTorch found; run scripts/setup torch (Debian 1.13) or scripts/setup torch2 (PyPI)")
    if args.decode:
        if args.seq == 512 and "--seq" not in sys.argv:
            args.seq = 128  # the source length of the decoding race
        decode_race(args, torches)
        return
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "model.safetensors")
        subprocess.run([torches[0], os.path.join(PY, "torch_golden.py"), "--out", model,
                        "--d-model", str(args.d_model), "--heads", str(args.heads), "--d-ff", str(args.d_ff),
                        "--enc-layers", str(args.layers), "--dec-layers", str(args.layers),
                        "--batch", str(args.batch), "--src-len", str(args.seq), "--tgt-len", str(args.seq),
                        "--pad", "0", "--src-keep", str(args.src_keep), "--tgt-keep", str(args.tgt_keep),
                        "--dtype", args.dtype],
                       check=True)
        runs = {}
        info = {}
        # On more than one thread PyTorch runs both pinned (as xfbench) and
        # unpinned with passive OpenMP waits, and is credited with the faster.
        pins = (1, 0) if args.threads > 1 else (1,)
        # Each xfbench run checks its pass (against the fp64 reference and
        # PyTorch's stored outputs) before timing it. These rounds are a loop
        # here, not bench --rounds: they interleave PyTorch's processes with
        # xfbench's, which one xfbench process cannot do.
        for round_no in range(args.rounds):
            for python in torches:
                for mode in modes:
                    # A mode that failed (its reason stated) fails again: not re-run.
                    if any("unavailable" in info.get((python, mode, p), {}) for p in pins):
                        continue
                    for pin in pins:
                        r = torch_time(python, model, args.threads, args.reps, pin, mode, args.dtype)
                        info[python, mode, pin] = r
                        runs.setdefault((python, mode, pin), []).extend(r.get("times_ns", []))
            row = xf_time(args, model, args.reps, round_no == 0, args.dtype)
            runs.setdefault("xf", []).append(float(row["median_ns"]))
            if args.dtype != "f32":  # the same weights in fp32: what the precision buys
                runs.setdefault("xf32", []).append(float(xf_time(args, model, args.reps, False, "f32")["median_ns"]))
    gflop = float(row["gflops"]) * float(row["median_ns"]) / 1e9  # dense FLOPs of the pass
    xf_ns = statistics.median(runs["xf"])
    lines = [f"nn.Transformer forward, d_model {args.d_model}, {args.heads} heads, {args.layers}+{args.layers} layers,"
             f" batch {args.batch}, seq {args.seq}, source keeps {args.src_keep:.0%}, target {args.tgt_keep:.0%},"
             f" {args.dtype}, {args.threads} thread(s); {gflop:.2f} dense GFLOP per pass (masked work counted); medians over"
             f" {args.rounds} interleaved rounds; xfbench commit {row['commit']}, {row['cpu']}"]
    fastest = None
    for python in torches:
        for mode in modes:
            timed = [(statistics.median(runs[python, mode, p]), p) for p in pins if runs[python, mode, p]]
            i = info[python, mode, pins[0]]
            name = f"  PyTorch {i['version']:<14} {mode:<10}"
            if not timed:
                lines.append(f"{name} unavailable: {i.get('unavailable', 'no times')}")
                continue
            t, pin = min(timed)
            i = info[python, mode, pin]
            how = "pinned" if pin else "unpinned"
            extra = ""
            if mode == "compile":
                extra = (f"   (compile {i['compile_ns'] / 1e9:.1f} s, not in the time;"
                         f" graph breaks: {i.get('graph_breaks', 'unknown')})")
            lines.append(f"{name} (BLAS {i['blas']:<7}, {i['threads']} thr {how:<8}) {t / 1e6:10.2f} ms"
                         f" {gflop / t * 1e9:8.2f} GFLOP/s   xfbench is {t / xf_ns:.2f}x faster{extra}")
            if fastest is None or t < fastest[0]:
                fastest = (t, f"PyTorch {i['version']} {mode}")
    # The row's % of peak is for its own round; this one is for the median,
    # of the useful FLOPs (masked pairs not counted: counts.c).
    useful = float(row["useful_gflops"]) * float(row["median_ns"]) / 1e9
    peak = float(row["useful_gflops"]) / (float(row["useful_pct_peak"]) / 100)
    lines.append(f"  xfbench {args.variant:<21} ({row['threads']} thr pinned, checked)   {xf_ns / 1e6:10.2f} ms"
                 f" {gflop / xf_ns * 1e9:8.2f} GFLOP/s   {100 * useful / xf_ns * 1e9 / peak:.1f}% of the measured peak"
                 f" in useful FLOPs ({useful:.2f} GFLOP; peak {peak:.1f} GFLOP/s); rounds: "
                 + " ".join(f"{t / 1e6:.1f}" for t in runs["xf"]) + " ms")
    if "xf32" in runs:
        xf32 = statistics.median(runs["xf32"])
        lines.append(f"  xfbench {args.f32_variant:<21} in f32 on the same weights {xf32 / 1e6:10.2f} ms: {args.dtype} is"
                     f" {xf32 / xf_ns:.2f}x f32 (rounds: " + " ".join(f"{t / 1e6:.1f}" for t in runs["xf32"]) + " ms)")
    if fastest:
        lines.append(f"headline: xfbench {args.variant} is {fastest[0] / xf_ns:.2f}x the speed of the fastest PyTorch"
                     f" path ({fastest[1]}, {fastest[0] / 1e6:.2f} ms)")
    print("\n" + "\n".join(lines))
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")

if __name__ == "__main__":
    main()
