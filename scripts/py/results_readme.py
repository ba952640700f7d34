"""Writes results/README.md from the CSVs under results/<machine>/: first the
CPUs seen side by side (roofs, GEMM and attention as % of the FMA roof,
ours and the best peer, the full pass against PyTorch, decoding tokens/s),
then for each machine its metadata (CPU, ISA, compilers, flags per family, commits,
dates, hosts), its hand-written NOTES.md if it has one, the verdicts of scripts/perf_targets
(targets/) if it ran there, and, per CSV, a summary table: for every case, the fastest
variant that passed its check, its GFLOP/s (dense and useful), % of its
roof and which roof, and its speedup over naive, blas and dnnl where those
ran; links to the machine's text reports (the PyTorch race). Standard library only.
Usage: results_readme.py [RESULTS_DIR]"""
import csv
import math
import os
import re
import statistics
import sys
from collections import defaultdict

# samples_ns holds every timed call: far past csv's default 128 KiB field limit.
csv.field_size_limit(sys.maxsize)

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def die(message):
    print(f"results_readme: {message}", file=sys.stderr)
    sys.exit(2)


def case_of(r):
    st = r["stage"]
    if r.get("shape"):  # the stage's own description (CSVs since the shape column)
        return f"{st} {r['shape']}"
    if st == "linear":
        return f"linear m={int(r['batch']) * int(r['seq_q'])} n={r['n']} k={r['k']}"
    if st in ("add_layernorm", "embed"):
        return f"{st} rows={int(r['batch']) * int(r['seq_q'])} d={r['d_model']}"
    s = f"{st} b={r['batch']} h={r['heads']} dk={r['dk']} s={r['seq_q']}"
    if st == "forward":
        s += f" layers={r['layers']}+{r['layers']}"
    s += f" pad={r['pad']}" if st in ("attention", "softmax", "forward") else ""
    return s + (" causal" if st in ("attention", "softmax") and r["causal"] == "1" else "")


def table(rows):
    times = defaultdict(lambda: defaultdict(list))
    extra = {}
    for r in rows:
        if r["passed"] != "1" or not r["median_ns"]:
            continue
        k = (case_of(r), r["threads"])
        times[k][r["variant"]].append(float(r["median_ns"]))
        extra[k, r["variant"]] = r
    out = ["| case | threads | fastest | GFLOP/s | useful GFLOP/s | % roof | roof | vs naive | vs blas | vs dnnl |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for k in sorted(times, key=lambda k: (k[0].split()[0], int(k[1]), k[0])):
        med = {v: statistics.median(t) for v, t in times[k].items()}
        best = min(med, key=med.get)
        r = extra[k, best]
        # The row kept is one of the fastest variant's; its rates scale to
        # the median of its repeats.
        scale = float(r["median_ns"]) / med[best]
        gf = float(r["gflops"]) * scale
        useful = float(r.get("useful_gflops") or r["gflops"]) * scale
        pct = f"{float(r['pct_peak']) * scale:.1f}" if r["pct_peak"] else ""
        ratio = [f"{med[p] / med[best]:.2f}x" if p in med else "" for p in ("naive", "blas", "dnnl")]
        out.append(f"| {k[0]} | {k[1]} | {best} | {gf:.1f} | {useful:.1f} | {pct} | {r.get('roof', '')} | "
                   + " | ".join(ratio) + " |")
    return out


# xfbench's own kernel families and the libraries it races (variant names
# start with the family's).
OURS = ("avx2", "avx512", "omp")
PEERS = ("blas", "dnnl", "libxsmm")
GEMM_SHAPES = {("1536", "512"), ("2048", "512"), ("512", "2048")}  # QKV, FFN1, FFN2 (n, k)


def read_text(path):
    try:
        with open(path) as fh:
            return fh.read()
    except OSError:
        return ""


def roofs(d):
    """FMA roof, GEMM tile ceiling and bf16 roof on 1 thread and the DRAM triad, from machine.txt or
    peak.txt."""
    text = read_text(os.path.join(d, "machine.txt")) + read_text(os.path.join(d, "peak.txt"))
    fma = re.search(r"peak: FMA ([\d.]+) GFLOP/s on 1 thread \((\w+)\)", text)
    bf16 = re.search(r"peak: bf16 dot product ([\d.]+) GFLOP/s on 1 thread", text)
    dram = re.search(r"DRAM triad ([\d.]+) GB/s on 1", text)
    # `xfbench peak`'s GEMM tile in L1 of the family that set the FMA roof: the most its GEMM and
    # attention can reach, as a share of that roof
    tile = re.search(r"GEMM tile in L1 [\d.]+ GFLOP/s, ([\d.]+) of the FMA loop: the ceiling of "
                     + (re.escape(fma.group(2)) if fma else "-") + "'s", text)
    return (f"{float(fma.group(1)):.0f} ({fma.group(2)})" if fma else "-",
            f"{float(tile.group(1)) * 100:.0f}%" if tile else "-",
            f"{float(bf16.group(1)):.0f}" if bf16 else "-", f"{float(dram.group(1)):.1f}" if dram else "-")


def fp32_one_thread(rows, stage):
    return [r for r in rows if r["stage"] == stage and r["threads"] == "1" and r["passed"] == "1"
            and r.get("dtype", "f32") in ("", "f32") and r["median_ns"]]


def newest(rows):
    """The rows of the newest commit among them that raced ours against a peer (else of the newest
    commit): older runs of the same machine stay in their CSVs and the tables below, not in the
    side-by-side one, and a later run of our kernels alone does not hide the peers' column."""
    if not rows:
        return rows
    families = defaultdict(set)  # commit -> the families its rows ran
    for r in rows:
        families[r.get("commit")].add(r["variant"].split("-")[0])
    raced = {c for c, f in families.items() if f & set(OURS) and f & set(PEERS)}
    pool = [r for r in rows if r.get("commit") in raced] or rows
    last = max(pool, key=lambda r: r.get("date", ""))
    return [r for r in pool if r.get("commit") == last.get("commit")]


def best_pct(per_variant, group):
    """The best % of roof among a group's variants: 'x% (variant)'."""
    got = {v: p for v, p in per_variant.items() if v.split("-")[0] in group}
    if not got:
        return "-"
    v = max(got, key=got.get)
    return f"{got[v]:.0f}% ({v})"


def pct_of(r):
    return float(r.get("useful_pct_peak") or r["pct_peak"] or "nan")


def gemm(rows):
    """Per variant: the geometric mean over QKV, FFN1, FFN2 at m 512 of its median % of the FMA roof."""
    by = defaultdict(lambda: defaultdict(list))
    for r in newest([r for r in fp32_one_thread(rows, "linear")
                     if int(r["batch"]) * int(r["seq_q"]) == 512 and (r["n"], r["k"]) in GEMM_SHAPES]):
        by[r["variant"]][r["n"], r["k"]].append(pct_of(r))
    return {v: math.exp(statistics.mean(math.log(statistics.median(x)) for x in s.values()))
            for v, s in by.items() if len(s) == len(GEMM_SHAPES)}


def attention(rows):
    """Per variant: its median % of the FMA roof (useful FLOPs) at seq 2048, 8 heads, dk 64, not causal."""
    by = defaultdict(list)
    for r in newest([r for r in fp32_one_thread(rows, "attention")
                     if (r["seq_q"], r["seq_k"], r["heads"], r["dk"], r["causal"]) == ("2048", "2048", "8", "64", "0")]):
        by[r["variant"]].append(pct_of(r))
    return {v: statistics.median(x) for v, x in by.items()}


def vs_torch(d, rows):
    text = read_text(os.path.join(d, "vs_torch_seq512_t1.txt"))
    m = re.search(r"headline: xfbench \S+ is ([\d.]+)x the speed of the fastest PyTorch path \((PyTorch [^ ]+)", text)
    if m:
        return f"{m.group(1)}x {m.group(2)}"
    # Else PyTorch's times written down beside the CSV of xfbench's pass on
    # the same weights (forward_weights_f32.csv): the fastest variant's median.
    m = re.search(r"pytorch forward seq512 threads1 f32 ms: ([\d. ]+)", read_text(os.path.join(d, "torch_times.txt")))
    path = os.path.join(d, "forward_weights_f32.csv")
    if not m or not os.path.exists(path):
        return "-"
    with open(path, newline="") as fh:
        by = defaultdict(list)
        for r in fp32_one_thread(list(csv.DictReader(fh)), "forward"):
            by[r["variant"]].append(float(r["median_ns"]) / 1e6)
    if not by:
        return "-"
    ours = min(statistics.median(t) for t in by.values())
    torch_ms = min(float(x) for x in m.group(1).split())
    return f"{torch_ms / ours:.2f}x PyTorch (torch_times.txt)"


def decoding(d, rows):
    """scripts/vs_torch --decode's batch-1 lines where it ran, else the generate rows at batch 1."""
    text = read_text(os.path.join(d, "vs_torch_decode_t1.txt"))
    # Both layouts: before and after vs_torch named the dtype in each line.
    ours = re.search(r"batch 1:.*?xfbench \S+\s+(?:f32\s+)?\(.*?\)\s+[\d.]+ ms\s+([\d.]+) tokens/s", text, re.S)
    ratio = re.search(r"headline batch 1: xfbench (?:f32 )?is ([\d.]+)x (PyTorch \S+)'s fastest cached way(?: in f32)?$",
                      text, re.M)
    if ours:
        return f"{float(ours.group(1)):.0f}" + (f", {ratio.group(1)}x {ratio.group(2)} cached" if ratio else "")
    by = defaultdict(list)
    for r in fp32_one_thread(rows, "generate"):
        if r["batch"] == "1" and r.get("tokens_per_s"):
            by[r["variant"]].append(float(r["tokens_per_s"]))
    if not by:
        return "-"
    v = max(by, key=lambda v: statistics.median(by[v]))
    return f"{statistics.median(by[v]):.0f} ({v})"


def side_by_side(root, machines, rows_of):
    """The CPUs seen, one row each (issue 25)."""
    out = ["## The CPUs seen, side by side", "",
           "1 thread, fp32. Roofs from `xfbench peak` (GFLOP/s, GB/s); GEMM: the geometric mean over",
           "QKV, FFN1 and FFN2 at seq 512 of each variant's median % of the FMA roof, the best of ours",
           "(avx2, avx512, omp) and of the peers (OpenBLAS, oneDNN, libxsmm); attention: seq 2048, 8",
           "heads, dk 64, not causal, useful FLOPs; the full pass (6+6 layers, seq 512) against",
           "PyTorch's fastest path; decoding at batch 1 (tokens/s, fastest variant). A dash: not",
           "measured there. Tile ceiling: the FMA roof family's GEMM micro-kernel with its operands in L1,",
           "as a share of the FMA roof (`xfbench peak`): no GEMM or attention of that family passes it.",
           "Where each figure comes from: the machine's section below.", "",
           "| machine | CPU | FMA roof | tile ceiling | bf16 roof | DRAM triad | GEMM ours | GEMM peer |"
           " attention ours | attention peer | full pass vs PyTorch | decoding batch 1 |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for m in machines:
        d, rows = os.path.join(root, m), rows_of[m]
        cpu = ", ".join(sorted({r.get("cpu", "") for r in rows} - {""})) or "-"
        fma, tile, bf16, dram = roofs(d)
        g, a = gemm(rows), attention(rows)
        out.append(f"| {m} | {cpu} | {fma} | {tile} | {bf16} | {dram} | {best_pct(g, OURS)} | {best_pct(g, PEERS)} | "
                   f"{best_pct(a, OURS)} | {best_pct(a, PEERS)} | {vs_torch(d, rows)} | {decoding(d, rows)} |")
    return out + [""]


def notes(root, m):
    """results/<m>/NOTES.md (hand-written: what was measured and what it means),
    its headings moved under the machine's, its relative links made relative to
    results/; [] if there is none."""
    path = os.path.join(root, m, "NOTES.md")
    if not os.path.exists(path):
        return []
    out = []
    for line in read_text(path).splitlines():
        if line.startswith("<!--"):
            continue
        if line.startswith("#"):
            line = "##" + line
        out.append(re.sub(r"\]\((?!https?:|#|/)([^)]+)\)", lambda g: f"]({m}/{g.group(1)})", line))
    return out + [""]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "results")
    if not os.path.isdir(root):
        die(f"{root}: no such directory")
    lines = ["# Results", "",
             "Generated by `scripts/py/results_readme.py` from the CSVs below (do not edit by hand). Every",
             "number is from a row that passed its check against the fp64 reference. GFLOP/s count dense",
             "FLOPs (masked work that is skipped still counts); useful GFLOP/s count only the visible",
             "(query, key) pairs of attention and the rows computed. `% roof` is against the roof `xfbench",
             "peak` measured on that machine for that thread count, named in `roof`: FMA for compute-bound",
             "stages (useful FLOPs), else the triad bandwidth of the smallest memory level that holds the",
             "stage's bytes (L1, L2, L3, DRAM). Speedups are time ratios inside the same file.", "",
             "The AMD EPYC Zen 4 results measured before roofs and useful FLOPs existed (their `% peak`",
             "set cached data against the DRAM triad and skipped masked work against the FMA peak, up",
             "to 268%) were removed at issue 11; git keeps them (`git show 45108b3:results/README.md`).", ""]
    machines = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    sections, rows_of = [], {}
    for m in machines:
        # The machine's own CSVs and its merged sweeps (not the per-host
        # copies, nor hyperfine's).
        csvs = sorted(f for f in os.listdir(os.path.join(root, m)) if f.endswith(".csv"))
        for sub in ("sweep", "targets"):  # targets/: scripts/perf_targets, its verdicts shown instead of its tables
            if os.path.isdir(os.path.join(root, m, sub)):
                csvs += sorted(f"{sub}/{f}" for f in os.listdir(os.path.join(root, m, sub)) if f.endswith(".csv"))
        if not csvs:
            continue
        all_rows = {}
        for f in csvs:
            with open(os.path.join(root, m, f), newline="") as fh:
                all_rows[f] = list(csv.DictReader(fh))
        rows = [r for rs in all_rows.values() for r in rs]
        if not rows:
            continue
        rows_of[m] = rows
        lines, saved = [], lines
        meta = lambda col: ", ".join(sorted({r.get(col, "") for r in rows} - {""})) or "-"  # noqa: E731
        flags = sorted({(r["variant"].split("-")[0], r["cflags"]) for r in rows if r.get("cflags")})
        lines += [f"## {m}", "", f"- CPU: {meta('cpu')}", f"- ISA: {meta('isa')}", f"- compiler: {meta('compiler')}",
                  f"- commits: {meta('commit')}", f"- dates: {min(r['date'] for r in rows)} to {max(r['date'] for r in rows)}",
                  f"- hosts: {meta('host')}", "- flags per family: " + "; ".join(f"{v}: `{c}`" for v, c in dict(flags).items()),
                  ""]
        if os.path.exists(os.path.join(root, m, "machine.txt")):
            lines += [f"Machine, build options and peak: [{m}/machine.txt]({m}/machine.txt)", ""]
        plots = os.path.join(root, m, "plots")
        if os.path.isdir(plots):
            lines += ["Plots: " + ", ".join(f"[{p[:-4]}]({m}/plots/{p})" for p in sorted(os.listdir(plots))
                                          if p.endswith(".png")), ""]
        reports = sorted(f for f in os.listdir(os.path.join(root, m)) if f.endswith(".txt") and f != "machine.txt")
        if reports:
            lines += ["Reports: " + ", ".join(f"[{f[:-4]}]({m}/{f})" for f in reports), ""]
        if os.path.exists(os.path.join(root, m, "SOURCE.md")):
            lines += [f"Where these came from: [{m}/SOURCE.md]({m}/SOURCE.md)", ""]
        lines += notes(root, m)
        verdicts = os.path.join(root, m, "targets", "verdicts.txt")
        if os.path.exists(verdicts):
            lines += ["### The issues' targets here (`scripts/perf_targets`)", "",
                      f"Every command and its output: [{m}/targets/commands.txt]({m}/targets/commands.txt).", "",
                      "```"] + read_text(verdicts).splitlines() + ["```", ""]
        for f in (f for f in csvs if not f.startswith("targets/")):
            lines += [f"### {f} ({len(all_rows[f])} rows)", ""] + table(all_rows[f]) + [""]
        sections += lines
        lines = saved
    lines += side_by_side(root, sorted(rows_of), rows_of) + sections
    dest = os.path.join(root, "README.md")
    with open(dest, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print(f"wrote {dest}")


if __name__ == "__main__":
    main()
