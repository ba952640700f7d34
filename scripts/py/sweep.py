"""Named parameter sweeps of xfbench, driven by hyperfine.

Each sweep is a list of points (one shape, one thread count); each point is
one `xfbench bench` command over every available variant of its stage, run
by hyperfine (-N, -L over the point's parameter, --export-json/-csv) for
whole-process times, while xfbench appends its checked in-process kernel
times to <out>/<host>/<sweep>.csv. Points whose rows are already there are
skipped (resumable); --list prints one command per point, to spread a
sweep over machines (GNU parallel, a Slurm array); --merge joins the
per-host CSVs into <out>/<sweep>.csv. A variant that fails its check is
stored with passed=0 and no time (never plotted) and reported at the end.

naive is timed only where a call needs at most NAIVE_GFLOP dense GFLOP: it
runs at about 2.5 GFLOP/s here, and every process also checks against the
fp64 reference; the points it sits out are listed, not hidden.
"""
import argparse
import csv
import os
import shlex
import socket
import subprocess
import sys
import time

from xfpy import require_clean

# samples_ns holds every timed call: far past csv's default 128 KiB field limit.
csv.field_size_limit(sys.maxsize)

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NAIVE_GFLOP = 2.0


def die(message):
    print(f"sweep: {message}", file=sys.stderr)
    sys.exit(2)


def attention_gflop(p):
    return 4.0 * p.get("batch", 1) * p["heads"] * p["seq"] * p["seq"] * p["dk"] / 1e9


def linear_gflop(p):
    return 2.0 * p.get("batch", 1) * p["seq"] * p["n"] * p["k"] / 1e9


# A point: the xfbench options, the parameter hyperfine's -L names, and the
# CSV columns that identify its rows.
def point(stage, param, threads=1, dtype="f32", **shape):
    return {"stage": stage, "param": param, "threads": threads, "dtype": dtype, **shape}


def sweeps(quick):
    """name -> list of points; --quick: tiny shapes (under a minute in all)."""
    if quick:
        dks, heads, seqs = (8, 16), (1, 2), (16, 32, 64)
        base = {"heads": 2, "dk": 16, "seq": 32}
        lin_seqs, lin_shapes = (16,), ((96, 32), (128, 32), (32, 128))
        fwd = [dict(seq=16, layers=1, heads=2, dk=16)]
        thr = dict(seq=64, heads=2, dk=16, n=96, k=32)
        dec_batches, dec_depths, dec = (1, 4), (0, 16), dict(heads=2, dk=16, seq=16)
        prec = [("linear", dict(seq=16, n=96, k=32)), ("attention", base),
                ("decode_layer", dict(batch=1, depth=8, heads=2, dk=16, seq=16))]
    else:
        dks, heads, seqs = (16, 32, 64, 128, 256), (1, 2, 4, 8, 16), tuple(2 ** i for i in range(6, 13))
        base = {"heads": 8, "dk": 64, "seq": 512}
        lin_seqs, lin_shapes = (128, 512, 2048), ((1536, 512), (512, 512), (2048, 512), (512, 2048))
        fwd = [dict(seq=128, layers=6, heads=8, dk=64), dict(seq=512, layers=6, heads=8, dk=64)]
        thr = dict(seq=2048, heads=8, dk=64, n=1536, k=512)
        # Decoding: batch 1..64 at depth 128 (where a step turns from
        # bandwidth- to compute-bound), depth 0..2048 at batch 1; source 128.
        dec_batches, dec_depths, dec = (1, 2, 4, 8, 16, 32, 64), (0, 128, 512, 1024, 2048), dict(heads=8, dk=64, seq=128)
        # bf16 beside fp32: the GEMM and weight-streaming linears, attention,
        # Add & Norm, a decode step and the whole pass.
        prec = [("linear", dict(seq=512, n=1536, k=512)), ("linear", dict(seq=512, n=512, k=2048)),
                ("linear", dict(seq=1, n=32000, k=512)), ("attention", base),
                ("add_layernorm", dict(seq=2048, heads=8, dk=64, batch=8)),
                ("decode_layer", dict(batch=1, depth=128, heads=8, dk=64, seq=128)),
                ("forward", dict(seq=128, layers=6, heads=8, dk=64))]
    s = {
        "dk": [point("attention", "dk", **{**base, "dk": d}) for d in dks],
        "heads": [point("attention", "heads", **{**base, "heads": h}) for h in heads],
        "seq": [point(st, "seq", **{**base, "seq": q}) for st in ("attention", "softmax") for q in seqs],
        "linear": [point("linear", "seq", seq=q, n=n, k=k) for q in lin_seqs for n, k in lin_shapes] +
                  [point("add_layernorm", "seq", seq=q, heads=base["heads"], dk=base["dk"]) for q in lin_seqs],
        "forward": [point("forward", "seq", **f) for f in fwd],
        "threads": [point(st, "threads", threads=t, **{kk: v for kk, v in thr.items()
                                                      if st == "linear" or kk not in ("n", "k")})
                    for st in ("linear", "attention") for t in (1, 2)],
        "decode": [point("decode_layer", "batch", batch=b, depth=dec_depths[1], **dec) for b in dec_batches] +
                  [point("decode_layer", "depth", batch=1, depth=dp, **dec) for dp in dec_depths if dp != dec_depths[1]],
        "precision": [point(st, "dtype", dtype=dt, **shape) for st, shape in prec for dt in ("f32", "bf16")],
    }
    s["all"] = [p for name in ("dk", "heads", "seq", "linear", "forward", "threads", "decode", "precision")
                for p in s[name]]
    return s


def available(xfbench, stage, dtype):
    """The variants of stage in dtype that run here (`list` marks the bf16 ones "dtype=bf16:")."""
    out = subprocess.run([xfbench, "list"], capture_output=True, text=True, check=True).stdout
    names = [ln.split()[1] for ln in out.splitlines()[1:]
             if ln.split()[0] == stage and ln.split()[2] == "ok" and (" dtype=bf16: " in ln) == (dtype == "bf16")]
    return [n for n in names if n != "best"]


def variants_for(xfbench, p):
    vs = available(xfbench, p["stage"], p["dtype"])
    gf = attention_gflop(p) if p["stage"] == "attention" else linear_gflop(p) if p["stage"] == "linear" else None
    if p["stage"] == "softmax":
        gf = p["heads"] * p["seq"] ** 2 * 5 / 1e9
    if p["stage"] == "forward":
        gf = 12 * p["seq"] * (p["heads"] * p["dk"]) ** 2 * 2 * 12 / 1e9  # rough: the linears of 6+6 layers
    skipped = []
    if gf is not None and gf > NAIVE_GFLOP and "naive" in vs:
        vs.remove("naive")
        skipped.append("naive")
    if p["threads"] > 1:  # single-thread families would only repeat their 1-thread rows
        vs = [v for v in vs if v.startswith(("omp", "dnnl", "blas"))]
    return vs, skipped


def options(p, value_placeholder=True):
    """xfbench options of the point; its swept parameter as hyperfine's {param}."""
    o = ["--stage", p["stage"]]
    for key in ("batch", "heads", "dk", "seq", "n", "k", "layers", "depth"):
        if key == "batch" and key not in p:
            o += ["--batch", "1"]
            continue
        if key in p:
            v = "{%s}" % key if value_placeholder and key == p["param"] else str(p[key])
            o += [f"--{key}", v]
    v = "{threads}" if value_placeholder and p["param"] == "threads" else str(p["threads"])
    dt = "{dtype}" if value_placeholder and p["param"] == "dtype" else p["dtype"]
    return o + ["--threads", v, "--pad", "some", "--dtype", dt]


def matches(row, p):
    want = {"stage": p["stage"], "threads": p["threads"], "heads": p.get("heads"), "dk": p.get("dk"),
            "seq_k" if "depth" in p else "seq_q": p.get("seq"), "n": p.get("n"), "k": p.get("k"),
            "layers": p.get("layers"), "batch": p.get("batch")}
    # the depth is in the stage's own description (column shape)
    if "depth" in p and f"depth={p['depth']} " not in row.get("shape", "") + " ":
        return False
    if row.get("dtype", "f32") != p["dtype"]:
        return False
    return all(v is None or row.get(col) == str(v) for col, v in want.items())


def rows_of(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def point_id(p):
    return "-".join([p["stage"]] + [f"{k}{p[k]}" for k in ("batch", "heads", "dk", "seq", "n", "k", "layers",
                                                            "depth", "threads") if k in p] +
                    (["bf16"] if p["dtype"] == "bf16" else []))


def run_point(args, p, csv_path, json_dir, index, total):
    vs, skipped = variants_for(args.xfbench, p)
    done = [r for r in rows_of(csv_path) if matches(r, p)]
    if len(done) >= len(vs) * args.runs:
        print(f"[{index}/{total}] {point_id(p)}: done ({len(done)} rows), skipped", flush=True)
        return
    if skipped:
        print(f"[{index}/{total}] {point_id(p)}: naive sits out (more than {NAIVE_GFLOP:g} GFLOP per call)")
    cmd = " ".join([shlex.quote(args.xfbench), "bench"] + options(p) +
                   ["--variant", ",".join(vs), "--min-time", str(args.min_time), "--min-reps", "3",
                    "--csv", shlex.quote(csv_path)])
    name = f"{args.sweep}-{point_id(p)}"
    hf = ["hyperfine", "-N", "--runs", str(args.runs), "--ignore-failure",
          "--export-json", os.path.join(json_dir, name + ".json"),
          "--export-csv", os.path.join(json_dir, name + ".csv"),
          "-L", p["param"], str(p[p["param"]]), cmd]
    if not sys.stdout.isatty():
        hf[1:1] = ["--style", "basic"]
    print(f"[{index}/{total}] {point_id(p)}: {len(vs)} variants x {args.runs} runs", flush=True)
    r = subprocess.run(hf)
    if r.returncode != 0:
        die(f"hyperfine failed on {point_id(p)} (exit {r.returncode})")


def merge(out, sweep):
    rows, header = [], None
    for host in sorted(os.listdir(out)):
        path = os.path.join(out, host, sweep + ".csv")
        if os.path.isfile(path):
            with open(path, newline="") as f:
                reader = csv.reader(f)
                h = next(reader, None)
                if h is None:
                    continue
                if header and h != header:
                    die(f"{path}: columns differ from the other hosts' (another xfbench version?)")
                header = h
                rows += list(reader)
    if not header:
        die(f"no {out}/*/{sweep}.csv to merge")
    dest = os.path.join(out, sweep + ".csv")
    with open(dest, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    print(f"merged {len(rows)} rows from {out}/*/{sweep}.csv into {dest}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sweep", help="dk, heads, seq, linear, forward, threads, decode, precision (bf16 beside fp32)"
                                  " or all")
    ap.add_argument("--quick", action="store_true", help="tiny shapes, under a minute (CI)")
    ap.add_argument("--out", default=os.path.join(TOP, "results", "sweeps"), help="results directory")
    ap.add_argument("--runs", type=int, default=2, help="hyperfine runs per point (each appends CSV rows)")
    ap.add_argument("--min-time", type=float, help="xfbench --min-time per variant (0.2 s; --quick 0.01)")
    ap.add_argument("--list", action="store_true", help="print one command per point instead of running")
    ap.add_argument("--point", type=int, help="run only point N (from --list)")
    ap.add_argument("--merge", action="store_true", help="join <out>/<host>/<sweep>.csv into <out>/<sweep>.csv")
    ap.add_argument("--xfbench", default=os.path.join(TOP, "build", "xfbench"))
    ap.add_argument("--allow-dirty", action="store_true",
                    help="record into results/ from a tree with uncommitted changes (rows say -dirty)")
    args = ap.parse_args()
    table = sweeps(args.quick)
    if args.sweep not in table:
        die(f"unknown sweep '{args.sweep}' (one of: {', '.join(table)})")
    if args.min_time is None:
        args.min_time = 0.01 if args.quick else 0.2
    if args.runs < 1 or args.min_time < 0:
        die("--runs must be >= 1 and --min-time >= 0")
    points = table[args.sweep]
    if not args.list:
        require_clean(TOP, os.path.join(args.out, "x"), args.allow_dirty)
    if args.merge:
        merge(args.out, args.sweep)
        return
    if args.list:
        me = [os.path.join(TOP, "scripts", "sweep"), args.sweep] + (["--quick"] if args.quick else [])
        for i in range(len(points)):
            print(" ".join(shlex.quote(a) for a in me + ["--out", args.out, "--runs", str(args.runs),
                                                         "--point", str(i)]))
        return
    if args.point is not None and not 0 <= args.point < len(points):
        die(f"--point {args.point}: the {args.sweep} sweep has points 0 to {len(points) - 1}")
    if not os.access(args.xfbench, os.X_OK):
        die(f"{args.xfbench}: not built (scripts/build)")
    host = os.environ.get("XFBENCH_HOST") or socket.gethostname()
    host_dir = os.path.join(args.out, host)
    json_dir = os.path.join(host_dir, "hyperfine")
    os.makedirs(json_dir, exist_ok=True)
    csv_path = os.path.join(host_dir, args.sweep + ".csv")
    chosen = [points[args.point]] if args.point is not None else points
    started = time.monotonic()
    for i, p in enumerate(chosen, 1):
        # The time left, from the mean time of the points so far (points
        # differ in cost, so a rough guide), once it has run a few seconds.
        spent = time.monotonic() - started
        if i > 1 and spent > 5:
            print(f"sweep: {args.sweep}: point {i} of {len(chosen)}, about {spent / (i - 1) * (len(chosen) - i + 1):.0f} s"
                  f" left ({spent:.0f} s so far)", file=sys.stderr, flush=True)
        run_point(args, p, csv_path, json_dir, i if args.point is None else args.point + 1,
                  len(points))
    failed = [r for r in rows_of(csv_path) if r["passed"] != "1"]
    for r in failed:
        print(f"FAILED CHECK (not timed, not plotted): {r['stage']} {r['variant']} heads={r['heads']} "
              f"dk={r['dk']} seq={r['seq_q']} threads={r['threads']}")
    print(f"{csv_path}: {len(rows_of(csv_path))} rows, {len(failed)} failed their check")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
