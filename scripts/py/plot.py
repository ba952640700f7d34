"""Plots from xfbench CSVs (bench --csv, scripts/sweep): GFLOP/s against seq
(a panel per dk), heads and dk; speedup over naive and over the blas peer;
a roofline with every roof the machine measured (FMA, and triad bandwidth
of L1, L2, L3 and DRAM); forward time by stage; throughput against
threads; and bf16 against fp32 per stage and shape (the fastest variant of
each dtype). Rates are useful GFLOP/s where the CSV has them (masked attention
pairs not counted: kernels/counts.c), dense otherwise. PNG and SVG of each into --out. Only rows that
passed their check are plotted. Run with /usr/bin/python3 (Debian's
matplotlib): scripts/plot FILE.csv [FILE.csv ...] [--out DIR]."""
import argparse
import csv
import math
import os
import re
import statistics
import sys
from collections import defaultdict

# samples_ns holds every timed call: far past csv's default 128 KiB field limit.
csv.field_size_limit(sys.maxsize)

NEED = ("stage", "variant", "batch", "heads", "dk", "seq_q", "seq_k", "n", "k", "layers", "threads",
        "median_ns", "gflops", "gbps", "pct_peak", "passed", "cpu", "compiler", "commit")
# Rows held against a bandwidth roof: column roof other than FMA; CSVs
# before that column: these stages.
MEMORY_BOUND = ("embed", "softmax", "add_layernorm")


# The compute roofs a row can name: fp32 FMA, and the bf16 dot product
# (bf16 rows whose kernels compute with vdpbf16ps).
COMPUTE_ROOFS = ("FMA", "bf16-dot", "bf16-amx")


def bandwidth_bound(r):
    return r["roof"] not in COMPUTE_ROOFS if r.get("roof") else r["stage"] in MEMORY_BOUND


def die(message):
    print(f"plot: {message}", file=sys.stderr)
    sys.exit(2)


try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    die("matplotlib is missing: scripts/setup plot (Debian's python3-matplotlib, for /usr/bin/python3)")


def load(paths):
    rows = []
    for path in paths:
        try:
            with open(path, newline="") as f:
                reader = csv.DictReader(f)
                if not reader.fieldnames:
                    die(f"{path}: empty file")
                missing = [c for c in NEED if c not in reader.fieldnames]
                if missing:
                    die(f"{path}: not an xfbench CSV (no column {', '.join(missing)})")
                got = list(reader)
        except OSError as e:
            die(f"{path}: {e.strerror}")
        except csv.Error as e:
            die(f"{path}: malformed CSV: {e}")
        for i, r in enumerate(got, 2):
            if None in r or any(v is None for v in r.values()):
                die(f"{path}:{i}: the row has a different number of fields than the header")
            if r["passed"] not in ("0", "1"):
                die(f"{path}:{i}: passed is '{r['passed']}', not 0 or 1")
        rows += got
    if not rows:
        die("no rows in " + ", ".join(paths))
    good = [r for r in rows if r["passed"] == "1" and r["gflops"]]
    if not good:
        die("no row passed its check: nothing to plot")
    for r in good:
        for col in ("gflops", "gbps", "median_ns"):
            try:
                r[col] = float(r[col])
            except ValueError:
                die(f"a row's {col} is '{r[col]}', not a number")
        r["pct_peak"] = float(r["pct_peak"]) if r["pct_peak"] else None
        # Older CSVs have no useful rate: their rows count dense FLOPs.
        r["useful"] = float(r["useful_gflops"]) if r.get("useful_gflops") else r["gflops"]
        r["useful_pct"] = float(r["useful_pct_peak"]) if r.get("useful_pct_peak") else r["pct_peak"]
    return good, len(rows) - len(good)


def natural(key):
    """A sort key that orders numbers inside strings by value ("dk=16" before
    "dk=128"), for a string or a tuple of them."""
    if isinstance(key, (tuple, list)):
        return tuple(natural(k) for k in key)
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", str(key)))


def caption(rows):
    def one(col):
        vals = sorted({r[col] for r in rows})
        return vals[0] if len(vals) == 1 else f"{len(vals)} {col}s ({', '.join(vals[:3])}{', ...' if len(vals) > 3 else ''})"
    hosts = sorted({r.get("host", "") for r in rows} - {""})
    return (f"{one('cpu')} | {one('compiler')} | commit {one('commit')}"
            + (f" | host {', '.join(hosts)}" if hosts else "") + " | checked rows only")


def label(r, multi_host):
    """The variant, " bf16" for rows of that dtype (naive runs both), and the host if several."""
    return (r["variant"] + (" bf16" if r.get("dtype") == "bf16" else "")
            + (f" @{r.get('host')}" if multi_host else ""))


def med(values):
    return statistics.median(values)


def save(fig, out, name, rows, made):
    fig.text(0.5, 0.005, caption(rows), ha="center", va="bottom", fontsize=7)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    for ext in ("png", "svg"):
        path = os.path.join(out, f"{name}.{ext}")
        fig.savefig(path, dpi=110)
        made.append(path)
    plt.close(fig)


def series(rows, xcol, fixed, multi_host):
    """{label: {x: median gflops}} over rows, grouped by the fixed columns."""
    s = defaultdict(lambda: defaultdict(list))
    for r in rows:
        s[label(r, multi_host)][int(r[xcol])].append(r["useful"])
    return {k: {x: med(v) for x, v in d.items()} for k, d in s.items() if len(d) > 1}


def line_panels(rows, xcol, title, out, name, made, multi_host, logx=True):
    """GFLOP/s against xcol, one line per variant, one panel per value of
    the other shape columns (dk for the seq sweep), which must not vary
    along a line."""
    groups = defaultdict(list)
    for r in rows:
        key = tuple((c, r[c]) for c in ("stage", "batch", "heads", "dk", "seq_q", "seq_k", "n", "k", "threads", "pad",
                                        "causal")
                    if c != xcol and (c != "seq_k" or xcol != "seq_q"))
        groups[key].append(r)
    panels = [(k, g) for k, g in groups.items() if len({r[xcol] for r in g}) > 1]
    if not panels:
        return
    panels.sort(key=lambda kg: tuple(int(v) if v.isdigit() else v for _, v in kg[0]))
    fig, axes = plt.subplots(1, len(panels), figsize=(max(7, 5 * len(panels)), 4.3), squeeze=False)
    for ax, (key, g) in zip(axes[0], panels):
        for lab, pts in sorted(series(g, xcol, key, multi_host).items()):
            xs = sorted(pts)
            ax.plot(xs, [pts[x] for x in xs], marker="o", label=lab)
        k = dict(key)
        ax.set_title(f"{k['stage']}: " + ", ".join(f"{c}={v}" for c, v in k.items()
                                                   if c not in ("stage", "pad", "causal") and v != "0"), fontsize=8)
        ax.set_xlabel({"seq_q": "sequence length (tokens)", "heads": "heads", "dk": "head dimension dk",
                       "threads": "threads"}[xcol])
        ax.set_ylabel("useful GFLOP/s (masked pairs not counted)")
        if logx:
            ax.set_xscale("log", base=2)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(title)
    save(fig, out, name, rows, made)


def speedups(rows, base, out, made, multi_host):
    """Speedup of every variant over `base` (naive or blas) on the cases
    where both ran: time(base) / time(variant)."""
    by_case = defaultdict(dict)
    for r in rows:
        case = (r["stage"], r["batch"], r["heads"], r["dk"], r["seq_q"], r["seq_k"], r["n"], r["k"], r["layers"],
                r["threads"], r.get("host", ""))
        by_case[case].setdefault(r["variant"], []).append(r["median_ns"])
    cases = [(c, v) for c, v in by_case.items() if base in v and len(v) > 1]
    if not cases:
        return
    cases.sort(key=lambda cv: natural(cv[0]))
    names = sorted({n for _, v in cases for n in v if n != base})
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(cases) + 2), 4.5))
    width = 0.8 / max(1, len(names))
    for i, n in enumerate(names):
        xs, ys = [], []
        for j, (c, v) in enumerate(cases):
            if n in v:
                xs.append(j + i * width)
                ys.append(med(v[base]) / med(v[n]))
        ax.bar(xs, ys, width, label=n)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(cases))])
    ax.set_xticklabels([f"{c[0]}\n" + (f"m={int(c[1]) * int(c[4])} n={c[6]} k={c[7]}" if c[0] == "linear"
                                       else f"h={c[2]} dk={c[3]} s={c[4]}") + f"\n{c[9]} thr" for c, _ in cases],
                       fontsize=6)
    ax.axhline(1.0, color="black", lw=0.8)
    ax.set_yscale("log")
    ax.set_ylabel(f"speedup over {base} (time ratio, log scale)")
    ax.legend(fontsize=7, ncol=2)
    ax.grid(axis="y", alpha=0.3)
    fig.suptitle(f"Speedup over {base} on the cases where both ran")
    save(fig, out, f"speedup_vs_{base}", rows, made)


LEVELS = ("L1", "L2", "L3", "DRAM")


def cached_roofs(cpus):
    """Roofs from the peak xfbench cached on this machine (its peak.txt),
    if the rows were measured on the same CPU: {level: GB/s}, FMA GFLOP/s
    (1 thread). Format (harness/peak.c): a key line "v2|cpu|...", then
    "procs flops_1 flops_all family", then per level "bw_1 bw_all ws" (v3:
    then the read-only "rd_1 rd_all")."""
    cache = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "xfbench", "peak.txt")
    try:
        with open(cache) as f:
            key = f.readline().split("|")
            if len(key) < 2 or key[0] not in ("v2", "v3") or key[1] not in cpus:
                return {}, None
            flops = float(f.readline().split()[1])
            return {lv: float(f.readline().split()[0]) for lv in LEVELS}, flops
    except (OSError, IndexError, ValueError):
        return {}, None


def roofline(rows, out, made, multi_host):
    """Arithmetic intensity (useful FLOP per byte of compulsory traffic)
    against useful GFLOP/s, 1-thread rows, with every roof: the FMA peak
    and the triad bandwidth of each memory level, as the rows' own %peak
    imply them (each memory-bound row is held against the level that holds
    its bytes: column roof), completed from this machine's cached peak when
    the rows are its own."""
    one = [r for r in rows if r["threads"] == "1" and r["gbps"] > 0]
    if not one:
        return
    flops_roof = [r["useful"] * 100 / r["useful_pct"] for r in one
                  if r["useful_pct"] and r.get("roof", "FMA") in ("FMA", "") and not bandwidth_bound(r)]
    bw = defaultdict(list)
    for r in one:
        if r["pct_peak"] and bandwidth_bound(r):
            bw[r.get("roof") or "DRAM"].append(r["gbps"] * 100 / r["pct_peak"])
    bw = {lv: med(v) for lv, v in bw.items() if lv in LEVELS}
    cached_bw, cached_flops = cached_roofs({r["cpu"] for r in one})
    for lv, v in cached_bw.items():
        bw.setdefault(lv, v)
    peak = med(flops_roof) if flops_roof else cached_flops
    if not peak:
        return
    fig, ax = plt.subplots(figsize=(7, 5))
    ais = [r["useful"] / r["gbps"] for r in one]
    lo, hi = min(ais) / 2, max(ais) * 2
    if bw:  # far enough right to show where the slowest roof meets FMA
        hi = max(hi, 2 * peak / min(bw.values()))
    xs = [lo * (hi / lo) ** (i / 100) for i in range(101)]
    ax.axhline(peak, color="black", lw=1.2, label=f"FMA {peak:.0f} GFLOP/s (measured)")
    for i, lv in enumerate(lv for lv in LEVELS if lv in bw):
        ax.plot(xs, [min(peak, bw[lv] * x) for x in xs], color="black", lw=1.0, ls=("-", "--", "-.", ":")[i],
                label=f"{lv} triad {bw[lv]:.0f} GB/s (measured)")
    marks = "os^vD<>p*hX"
    for i, st in enumerate(sorted({r["stage"] for r in one})):
        pts = [r for r in one if r["stage"] == st]
        ax.scatter([r["useful"] / r["gbps"] for r in pts], [r["useful"] for r in pts], s=14,
                   marker=marks[i % len(marks)], label=st, alpha=0.7)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (useful FLOP per byte of compulsory traffic)")
    ax.set_ylabel("useful GFLOP/s, 1 thread")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    fig.suptitle("Roofline, every checked 1-thread row, every measured roof")
    save(fig, out, "roofline", rows, made)


def forward_stages(rows, out, made, multi_host):
    """Forward-pass time per pass, stacked by primitive stage (stage_ms)."""
    fw = [r for r in rows if r["stage"] == "forward" and r.get("stage_ms")]
    if not fw:
        return
    bars = defaultdict(lambda: defaultdict(list))
    for r in fw:
        bar = f"{label(r, multi_host)}\nseq {r['seq_q']}, {r['threads']} thr"
        for part in r["stage_ms"].split(";"):
            st, ms = part.split("=")
            bars[bar][st].append(float(ms))
    names = sorted(bars)
    stages = [s for s in ("embed", "linear", "attention", "add_layernorm") if any(s in bars[n] for n in names)]
    fig, ax = plt.subplots(figsize=(max(6, 0.8 * len(names) + 2), 4.5))
    bottom = [0.0] * len(names)
    for st in stages:
        hs = [med(bars[n][st]) if st in bars[n] else 0.0 for n in names]
        ax.bar(range(len(names)), hs, bottom=bottom, label=st)
        bottom = [b + h for b, h in zip(bottom, hs)]
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, fontsize=6)
    ax.set_ylabel("ms per forward pass")
    ax.legend(fontsize=7)
    ax.grid(axis="y", alpha=0.3)
    fig.suptitle("Forward pass time by stage")
    save(fig, out, "forward_stages", rows, made)


def decode_batches(rows, out, made, multi_host):
    """Decoding: tokens/s of a decode_layer step against batch (column
    tokens_per_s), per variant, under both roofs of the step: the memory
    roof (the bandwidth of the level holding its bytes, from the rows' own
    %peak, or this machine's cached peak: batch x bandwidth / bytes of the
    step) and the FMA roof (batch x FMA peak / FLOPs of the step)."""
    dec = [r for r in rows if r["stage"] == "decode_layer" and r.get("tokens_per_s") and r["threads"] == "1"]
    if len({r["batch"] for r in dec}) < 2:
        return
    depth = {r["shape"].split("depth=")[1].split()[0] for r in dec if "depth=" in r.get("shape", "")}
    if len(depth) > 1:  # the batch series at its most common depth
        common = max(depth, key=lambda d: sum(f"depth={d} " in r["shape"] + " " for r in dec))
        dec = [r for r in dec if f"depth={common} " in r["shape"] + " "]
    fig, ax = plt.subplots(figsize=(7, 5))
    by = defaultdict(lambda: defaultdict(list))
    for r in dec:
        by[label(r, multi_host)][int(r["batch"])].append(float(r["tokens_per_s"]))
    for name, pts in sorted(by.items()):
        xs = sorted(pts)
        ax.plot(xs, [med(pts[x]) for x in xs], marker="o", ms=3, label=name)
    # The roofs, per batch: from the step's own bytes and useful FLOPs.
    # A step's bytes (the weights, mostly) hardly change with the batch, so
    # one level holds them at every batch: its bandwidth from the rows held
    # against it (at large batches the FMA roof is the lower one), else
    # this machine's cached DRAM triad.
    cached_bw, cached_flops = cached_roofs({r["cpu"] for r in dec})
    held = [(r["gbps"] * 100 / r["pct_peak"], r["roof"]) for r in dec if r["pct_peak"] and r.get("roof") not in COMPUTE_ROOFS]
    bw, level = (med([h[0] for h in held]), held[0][1]) if held else (cached_bw.get("DRAM"), "DRAM")
    steps = {}
    for r in dec:
        steps.setdefault(int(r["batch"]), (r["gbps"] * r["median_ns"], r["useful"] * r["median_ns"]))
    xs = sorted(steps)
    if bw:
        ax.plot(xs, [b * bw * 1e9 / steps[b][0] for b in xs], color="black", ls="--", lw=1,
                label=f"memory roof ({level} {bw:.0f} GB/s)")
    if cached_flops:
        ax.plot(xs, [b * cached_flops * 1e9 / steps[b][1] for b in xs], color="black", lw=1,
                label=f"FMA roof ({cached_flops:.0f} GFLOP/s)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("batch (sequences decoded together)")
    ax.set_ylabel("tokens/s, one decoder layer, 1 thread")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    fig.suptitle("Decoding: tokens/s against batch, under the memory and FMA roofs")
    save(fig, out, "decode_vs_batch", rows, made)


def precision(rows, out, made):
    """bf16 against fp32: per stage, shape and thread count, the fastest
    fp32 variant's median time over the fastest bf16 variant's (bars above
    1: bf16 faster), each bar named with the two winners."""
    runs = defaultdict(list)  # (stage, shape, threads), dtype, variant -> medians of its rows
    for r in rows:
        key = (r["stage"], r.get("shape", "").replace(" dtype=bf16", "").strip(), r["threads"])
        runs[key, r.get("dtype") or "f32", r["variant"]].append(r["median_ns"])
    best = defaultdict(dict)  # (stage, shape, threads) -> dtype -> (median ns, variant)
    for (key, dtype, variant), ts in runs.items():
        t = med(ts)
        if dtype not in best[key] or t < best[key][dtype][0]:
            best[key][dtype] = (t, variant)
    pairs = [(k, d["f32"], d["bf16"]) for k, d in sorted(best.items(), key=lambda kd: natural(kd[0])) if "f32" in d and "bf16" in d]
    if not pairs:
        return
    fig, ax = plt.subplots(figsize=(8, 1.2 + 0.45 * len(pairs)))
    names = [f"{k[0]} {k[1][:48]}{' t' + k[2] if k[2] != '1' else ''}\n{f[1]} / {b[1]}" for k, f, b in pairs]
    ratios = [f[0] / b[0] for _, f, b in pairs]
    ax.barh(range(len(pairs)), ratios, color=["tab:green" if x >= 1 else "tab:red" for x in ratios])
    ax.axvline(1.0, color="black", lw=1)
    for i, x in enumerate(ratios):
        ax.text(x, i, f" {x:.2f}x", va="center", fontsize=7)
    ax.set_yticks(range(len(pairs)))
    ax.set_yticklabels(names, fontsize=6)
    ax.invert_yaxis()
    ax.set_xlabel("bf16 speedup: fastest fp32 time / fastest bf16 time (same run)")
    fig.suptitle("bf16 against fp32, per stage and shape (fastest variant of each dtype)")
    save(fig, out, "bf16_speedup", rows, made)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--out", default="plots", help="directory for the PNG and SVG files")
    args = ap.parse_args()
    rows, failed = load(args.csv)
    os.makedirs(args.out, exist_ok=True)
    multi_host = len({r.get("host", "") for r in rows}) > 1
    made = []
    att = [r for r in rows if r["stage"] == "attention"]
    line_panels(att, "seq_q", "Attention: GFLOP/s against sequence length (a panel per dk)", args.out,
                "attention_vs_seq", made, multi_host)
    line_panels(att, "heads", "Attention: GFLOP/s against heads", args.out, "attention_vs_heads", made,
                multi_host)
    line_panels(att, "dk", "Attention: GFLOP/s against dk", args.out, "attention_vs_dk", made, multi_host)
    speedups(rows, "naive", args.out, made, multi_host)
    speedups(rows, "blas", args.out, made, multi_host)
    roofline(rows, args.out, made, multi_host)
    forward_stages(rows, args.out, made, multi_host)
    decode_batches(rows, args.out, made, multi_host)
    precision(rows, args.out, made)
    line_panels([r for r in rows if r["stage"] in ("linear", "attention")], "threads",
                "Throughput against threads (pinned)", args.out, "threads", made, multi_host, logx=False)
    if not made:
        die("the rows hold no sweep to plot (each plot needs a parameter that varies)")
    for path in made:
        print(path)
    print(f"plot: {len(made) // 2} plots from {len(rows)} checked rows ({failed} rows that failed or have no time left out)")


if __name__ == "__main__":
    main()
