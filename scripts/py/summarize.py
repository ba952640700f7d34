"""Summarises xfbench CSV files: per case (stage and shape), the median over
repeated rows of each variant's median time, its GFLOP/s (dense and
useful: masked attention pairs not counted), GB/s, % of its roof (the
roof: FMA, or the memory level holding a memory-bound stage's bytes), and
its speed relative to naive, blas, dnnl, best and (for avx2) avx512.
Standard library only. Usage: summarize.py FILE.csv [FILE.csv ...]"""
import csv
import statistics
import sys
from collections import defaultdict

# samples_ns holds every timed call: far past csv's default 128 KiB field limit.
csv.field_size_limit(sys.maxsize)


def die(message):
    print(f"summarize.py: {message}", file=sys.stderr)
    sys.exit(2)

SHAPE = ("stage", "batch", "heads", "dk", "seq_q", "seq_k", "d_model", "d_ff", "layers", "n", "k", "relu",
         "pad", "causal", "threads")
# CSVs without the shape column: the fields each stage's shape depends on
# (the others are left at their defaults in the CSV and would only mislead).
SHOWN = {
    "embed": ("batch", "seq_q", "d_model"),
    "linear": ("batch", "seq_q", "n", "k", "relu"),
    "softmax": ("batch", "heads", "seq_q", "seq_k", "pad", "causal"),
    "attention": ("batch", "heads", "dk", "seq_q", "seq_k", "pad", "causal"),
    "add_layernorm": ("batch", "seq_q", "d_model"),
    "ffn": ("batch", "seq_q", "d_model", "d_ff"),
}
COMPOUND = ("batch", "heads", "dk", "seq_q", "seq_k", "d_ff", "layers", "pad")


def main():
    if len(sys.argv) < 2:
        die("usage: summarize.py FILE.csv [FILE.csv ...]")
    rows = []
    for path in sys.argv[1:]:
        try:
            with open(path, newline="") as f:
                got = list(csv.DictReader(f))
        except OSError as e:
            die(f"{path}: {e.strerror}")
        if not got or "median_ns" not in got[0]:
            die(f"{path}: not an xfbench CSV (no rows or no median_ns column)")
        rows += got
    cases = defaultdict(lambda: defaultdict(list))
    failed = []
    for r in rows:
        key = tuple(r[c] for c in SHAPE)
        if r["passed"] != "1":
            failed.append((key, r["variant"]))
            continue
        cases[key][r["variant"]].append(r)
    for key, variants in cases.items():
        shape = dict(zip(SHAPE, key))
        r0 = next(iter(variants.values()))[0]
        if r0.get("shape"):  # the stage's own description (CSVs since the shape column)
            desc = f"stage={shape['stage']} {r0['shape']} threads={shape['threads']}"
        else:
            fields = ("stage",) + SHOWN.get(shape["stage"], COMPOUND) + ("threads",)
            desc = " ".join(f"{k}={shape[k]}" for k in fields)
        print(f"\n{desc}")
        med = {v: statistics.median(float(r["median_ns"]) for r in rs) for v, rs in variants.items()}
        base = {b: med[b] for b in ("naive", "blas", "dnnl", "best") if b in med}
        fam512 = {v: t for v, t in med.items() if v.startswith("avx512")}
        print(f"  {'variant':14} {'runs':>4} {'median ms':>10} {'GFLOP/s':>8} {'useful':>8} {'GB/s':>6} {'%roof':>6}"
              f" {'roof':>4}  "
              + " ".join(f"{'x' + b:>7}" for b in base) + "  avx512/avx2")
        for v in sorted(med, key=med.get):
            rs = variants[v]
            r0 = rs[0]
            gflops = float(r0["gflops"]) * float(r0["median_ns"]) / med[v]
            gbps = float(r0["gbps"]) * float(r0["median_ns"]) / med[v]
            useful = float(r0.get("useful_gflops") or r0["gflops"]) * float(r0["median_ns"]) / med[v]
            pct = statistics.median(float(r["pct_peak"]) for r in rs) if r0["pct_peak"] else float("nan")
            roof = r0.get("roof") or ""
            rel = " ".join(f"{base[b] / med[v]:7.2f}" for b in base)
            twin = v.replace("avx2", "avx512")
            ratio = f"{med[v] / med[twin]:5.2f}" if v.startswith("avx2") and twin in fam512 else ""
            print(f"  {v:14} {len(rs):4} {med[v] / 1e6:10.3f} {gflops:8.2f} {useful:8.2f} {gbps:6.2f} {pct:6.1f}"
                  f" {roof:>4}  {rel}  {ratio}")
    if failed:
        print(f"\n{len(failed)} rows failed their check and are not summarised: {failed[:5]}")


if __name__ == "__main__":
    main()
