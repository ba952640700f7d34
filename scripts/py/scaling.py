"""Scaling tables from an xfbench CSV: per case and variant, GFLOP/s on 1
and 2 threads (medians over repeated rows), the speedup and % of the
thread count's peak; 1-thread ratios of one variant to another (libxsmm
and omp to avx512, where both ran); and GFLOP/s against batch at a fixed
thread count.
Standard library only. Usage: scaling.py FILE.csv"""
import csv
import statistics
import sys
from collections import defaultdict

# samples_ns holds every timed call: far past csv's default 128 KiB field limit.
csv.field_size_limit(sys.maxsize)


def die(message):
    print(f"scaling.py: {message}", file=sys.stderr)
    sys.exit(2)


def shape(r):
    if r["stage"] == "linear":
        return f"linear m={int(r['batch']) * int(r['seq_q'])} n={r['n']} k={r['k']}"
    return f"{r['stage']} b={r['batch']} h={r['heads']} dk={r['dk']} s={r['seq_q']} pad={r['pad']}"


def main():
    if len(sys.argv) != 2:
        die("usage: scaling.py FILE.csv")
    try:
        with open(sys.argv[1], newline="") as f:
            rows = [r for r in csv.DictReader(f)]
    except OSError as e:
        die(f"{sys.argv[1]}: {e.strerror}")
    if not rows or "gflops" not in rows[0]:
        die(f"{sys.argv[1]}: not an xfbench CSV with rows")
    rows = [r for r in rows if r["passed"] == "1" and r["gflops"]]  # failed rows carry no time
    gf = defaultdict(list)
    pct = defaultdict(list)
    for r in rows:
        k = (shape(r), r["variant"], int(r["threads"]))
        gf[k].append(float(r["gflops"]))
        pct[k].append(float(r["pct_peak"]))
    med = {k: statistics.median(v) for k, v in gf.items()}
    print("Strong scaling (GFLOP/s, dense; medians over repeated rows; threads pinned)")
    print(f"{'case':<48} {'variant':<10} {'1 thread':>9} {'2 threads':>10} {'speedup':>8} {'% peak (2)':>11}")
    cases = sorted({(s, v) for (s, v, t) in med if t in (1, 2) and (s, v, 1) in med and (s, v, 2) in med})
    for s, v in cases:
        one, two = med[s, v, 1], med[s, v, 2]
        print(f"{s:<48} {v:<10} {one:9.1f} {two:10.1f} {two / one:7.2f}x {statistics.median(pct[s, v, 2]):10.1f}%")
    pairs = [(v, "avx512") for v in ("libxsmm", "omp")]
    ratios = [(s, v, w) for (s, v, t) in sorted(med) for vv, w in pairs
              if t == 1 and v == vv and (s, w, 1) in med]
    if ratios:
        print("\n1 thread, against avx512 in the same run (GFLOP/s ratio; below 1: slower than avx512)")
        for s, v, w in ratios:
            print(f"  {s:<46} {v:<8} {med[s, v, 1]:7.1f} vs {med[s, w, 1]:7.1f} GFLOP/s: {med[s, v, 1] / med[s, w, 1]:.3f}x")
    print("\nThroughput against batch, seq 512, 2 threads (GFLOP/s; linear: the QKV projection)")
    by = defaultdict(list)
    for r in rows:
        if r["threads"] != "2" or r["seq_q"] != "512" or (r["stage"] == "linear" and (r["n"], r["k"]) != ("1536", "512")):
            continue
        by[r["stage"], r["variant"], int(r["batch"])].append(float(r["gflops"]))
    for stage, v in sorted({(st, v) for st, v, _ in by}):
        series = {b: statistics.median(g) for (st, vv, b), g in by.items() if (st, vv) == (stage, v)}
        if len(series) > 1:
            print(f"  {stage:<10} {v:<10} " + "  ".join(f"b={b}: {g:.1f}" for b, g in sorted(series.items())))


if __name__ == "__main__":
    main()
