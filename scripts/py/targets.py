"""The targets of issues 25 and 27, measured on this machine by one command,
and a verdict on each: so that the session which lands on a new CPU (a
Xeon, say) learns in about twenty minutes which targets hold there, and a
reader can judge a recorded directory again without rerunning it.

  targets.py run DIR [--xfbench BIN] [--torch] [--quick]   measure into DIR, then judge
  targets.py judge DIR                                     judge what DIR holds

run writes one CSV and one text file per command into DIR (commands.txt
lists them in order, with the wall time and exit status of each), 1
thread pinned unless a target names 2. --torch adds scripts/vs_torch in
bf16 (PyTorch 2 from `scripts/setup torch2`; its wheel is gigabytes, so
it is not the default); --quick runs every command on tiny shapes (for
the tests). judge prints one line per target and writes DIR/verdicts.txt.

A verdict is `holds`, `level` (a target of the form "at least as fast as
X" whose median ratio is below 1 while some round had us ahead: within
this machine's noise, not shown behind), `MISSES`, `not applicable` (a
target for another kind of CPU), `recorded` (a fact, no threshold), or
`not measured` with the reason (a variant this CPU lacks, a failed check:
bench never times a result that failed). Ratios between variants are
medians of per-round ratios of one `bench --rounds 3` run, as bench
prints them; ratios between dtypes come from processes run alternately,
f32 then bf16, twice. Standard library only."""
import csv
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

csv.field_size_limit(sys.maxsize)  # samples_ns holds every timed call

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# The issues' shapes: Transformer-base's QKV, FFN1 and FFN2 at seq 512,
# attention with 8 heads of dk 64, the 6 + 6 layer pass at seq 512,
# decoding 128 steps from a source of 128. --quick swaps in tiny ones, so a
# test runs every command in two minutes: its verdicts test the script,
# not the machine. time: the races' options; pass_time: each --variant best
# pass's (a quick one tunes on few samples); race: best against the families.
FULL = {"linear": {"QKV": (1536, 512), "FFN1": (2048, 512), "FFN2": (512, 2048)}, "lin_seq": "512",
        "attention": (512, 1024, 2048), "model": [], "seq": "512", "gen": ["--seq-k", "128", "--steps", "128"],
        "time": ["--min-time", "1"], "pass_time": ["--min-time", "2"], "race": ["--min-time", "0"]}
QUICK = {"linear": {"QKV": (96, 32), "FFN1": (128, 32), "FFN2": (32, 128)}, "lin_seq": "16",
         "attention": (32, 64), "model": ["--layers", "1", "--heads", "2", "--dk", "16", "--vocab", "64"], "seq": "16",
         "gen": ["--seq-k", "16", "--steps", "4"], "time": ["--min-time", "0", "--min-reps", "2"],
         "pass_time": ["--min-time", "0", "--min-reps", "2", "--tune-time", "0.002"],
         "race": ["--min-time", "0", "--tune-time", "0.002"]}
OURS_F32 = ("avx512", "avx2", "omp")
OURS_FLASH = ("avx512-flash", "avx2-flash", "omp-flash")
THREE_PASS = ("avx512-3pass", "avx2-3pass")
OURS_BF16 = ("avx512bf16", "avx512bf16w", "avx2bf16", "amx")
FAMILIES = ("avx512", "avx2", "omp", "dnnl")  # the fp32 families best is raced against


def die(message):
    print(f"targets: {message}", file=sys.stderr)
    sys.exit(2)


# ---------------------------------------------------------------- measuring

def commands(torch, z):
    """(file stem, argv after xfbench, cold best cache?) in the order run;
    z is FULL or QUICK."""
    rounds = ["--rounds", "3"] + z["time"]
    out = [("peak", ["peak"], False), ("default", ["bench"] + (["--stage", "linear", "--seq", "16"] if z is QUICK else []),
                                       False)]
    for name, (n, k) in z["linear"].items():
        lin = ["bench", "--stage", "linear", "--seq", z["lin_seq"], "--n", str(n), "--k", str(k), "--relu", "0"]
        out.append((f"linear_{name}_f32", lin + ["--variant", ",".join(OURS_F32 + ("libxsmm", "blas", "dnnl"))] + rounds,
                    False))
        out.append((f"linear_{name}_bf16", lin + ["--dtype", "bf16", "--variant", ",".join(OURS_BF16 + ("dnnl",))] + rounds,
                    False))
    for s in z["attention"]:
        v = ",".join(OURS_FLASH + THREE_PASS + ("libxsmm", "blas", "dnnl"))
        out.append((f"attention_{s}", ["bench", "--stage", "attention", "--seq", str(s), "--pad", "none", "--variant", v]
                    + rounds, False))
    gen = ["bench", "--stage", "generate", "--greedy", "1"] + z["gen"] + z["model"]
    for i in (1, 2):  # alternating dtypes: the ratio's two sides share the machine's mood
        for dt in ("f32", "bf16"):
            out.append((f"forward_{dt}_{i}", ["bench", "--stage", "forward", "--seq", z["seq"], "--dtype", dt]
                        + z["model"] + ["--variant", "best"] + z["pass_time"], False))
        for dt in ("f32", "bf16"):
            out.append((f"generate_b1_{dt}_{i}", gen + ["--batch", "1", "--dtype", dt, "--variant", "best"] + z["pass_time"],
                        False))
    b8 = gen + ["--batch", "8", "--variant", "best", "--threads", "2"] + z["pass_time"]
    out.append(("best_b8_cold", b8, True))
    out.append(("best_b8_warm", b8, True))  # the same cache, now warm: re-times nothing
    race = ["--variant", ",".join(("best",) + FAMILIES), "--rounds", "3", "--min-reps", "3"] + z["race"]
    out.append(("best_b8_rounds", gen + ["--batch", "8", "--threads", "2"] + race, False))
    out.append(("best_b1_rounds", gen + ["--batch", "1"] + race, False))
    if torch:
        out.append(("vs_torch_bf16", ["vs_torch", "--seq", z["seq"], "--threads", "1", "--variant", "best",
                                      "--rounds", "2", "--dtype", "bf16"], False))
    return out


def run(d, xfbench, torch, quick):
    os.makedirs(d, exist_ok=True)
    env = dict(os.environ)
    env.setdefault("OMP_PROC_BIND", "close")  # unpinned, this VM sometimes puts two threads on one core
    env.setdefault("OMP_PLACES", "cores")
    cold = tempfile.mkdtemp(prefix="xfbench-targets-")  # an empty best cache, the measured roofs copied in
    log = open(os.path.join(d, "commands.txt"), "w")
    if quick:
        log.write("# --quick: tiny shapes; the verdicts test the script, not the machine\n")
    cmds = commands(torch, QUICK if quick else FULL)
    for i, (stem, argv, cold_cache) in enumerate(cmds):
        e = dict(env)
        if cold_cache:
            e["XDG_CACHE_HOME"] = cold
        if argv[0] == "vs_torch":
            full = [os.path.join(TOP, "scripts", "vs_torch")] + argv[1:]
        else:
            full = [xfbench] + argv + (["--csv", os.path.join(d, stem + ".csv")] if argv[0] == "bench" else [])
            if os.path.exists(os.path.join(d, stem + ".csv")):
                os.remove(os.path.join(d, stem + ".csv"))
        print(f"targets: [{i + 1}/{len(cmds)}] {stem}", file=sys.stderr, flush=True)
        t0 = time.monotonic()
        with open(os.path.join(d, stem + ".txt"), "w") as f:
            rc = subprocess.run(full, stdout=f, stderr=subprocess.STDOUT, env=e).returncode
        wall = time.monotonic() - t0
        cache = "XDG_CACHE_HOME=<empty> " if cold_cache else ""
        log.write(f"{stem}\t{wall:.1f} s\texit {rc}\t{cache}{' '.join([os.path.basename(full[0])] + full[1:])}\n")
        log.flush()
        if stem == "peak":  # the roofs every later command reads (peak*.txt: capped runs have their own), cold too
            home = env.get("XDG_CACHE_HOME") or os.path.join(env.get("HOME") or "/tmp", ".cache")
            src = os.path.join(home, "xfbench")
            os.makedirs(os.path.join(cold, "xfbench"), exist_ok=True)
            for name in os.listdir(src) if os.path.isdir(src) else []:
                if name.startswith("peak"):
                    shutil.copy(os.path.join(src, name), os.path.join(cold, "xfbench", name))
    log.close()
    shutil.rmtree(cold, ignore_errors=True)


# ---------------------------------------------------------------- judging

def rows_of(d, stem):
    p = os.path.join(d, stem + ".csv")
    if not os.path.exists(p):
        return []
    with open(p) as f:
        return [r for r in csv.DictReader(f) if r["passed"] == "1" and r["median_ns"]]


def rounds_of(rows):
    """variant -> its median ns per round, in round order (a --rounds run
    writes each variant's row once a round, rounds in order)."""
    out = {}
    for r in rows:
        out.setdefault(r["variant"], []).append(float(r["median_ns"]))
    return out


def winner(times, ours):
    """The fastest of ours by median of round medians, or None."""
    have = [v for v in ours if v in times]
    return min(have, key=lambda v: statistics.median(times[v])) if have else None


def speed_vs(times, ours, other):
    """(median, min, max) over rounds of other's time / ours's: >= 1 means
    ours is at least as fast."""
    r = [o / u for u, o in zip(times[ours], times[other])]
    return statistics.median(r), min(r), max(r)


def at_least(ratio, what):
    """A verdict on "ours at least as fast as what" from speed_vs's ratio."""
    med, lo, hi = ratio
    text = f"{what}'s time / ours {med:.3f}x [{lo:.3f}, {hi:.3f}]"
    if med >= 1.0:
        return "holds", text
    # Below 1 in the median yet ahead in some round: the rounds here differ
    # by up to 10% (noise), so not shown behind, and not shown ahead.
    return ("level" if hi >= 1.0 else "MISSES"), text


def pct_roof(rows, variant, useful):
    col = "useful_pct_peak" if useful else "pct_peak"
    return statistics.median(float(r[col]) for r in rows if r["variant"] == variant)


def roof_of(rows, variant):
    """The roof (GFLOP/s) a row was held against, from its rate and %."""
    r = [r for r in rows if r["variant"] == variant and float(r["useful_pct_peak"]) > 0]
    if not r:
        return float("nan"), "no roof"
    return statistics.median(float(x["useful_gflops"]) * 100 / float(x["useful_pct_peak"]) for x in r), r[0]["roof"]


def race_targets(add, label, rows, ours, pct, useful, peers):
    """A --rounds race's targets: our fastest at >= pct% of the roof its row
    names, and at least as fast as each peer that ran. Returns (winner or
    None, times by round)."""
    times = rounds_of(rows)
    w = winner(times, ours)
    if not w:
        add(label, "not measured", "no passing row of ours")
        return None, times
    p = pct_roof(rows, w, useful)
    roof, roof_name = roof_of(rows, w)
    add(f"{label}: >= {pct}% of its roof", "holds" if p >= pct else "MISSES",
        f"{w} {p:.1f}%{' (useful FLOPs)' if useful else ''} of {roof_name} ({roof:.0f} GFLOP/s)")
    for other in peers:
        if other in times:
            add(f"{label}: at least as fast as {other}", *at_least(speed_vs(times, w, other), other))
    return w, times


def verdicts(d):
    out = []  # (target, verdict, evidence)

    def add(target, verdict, evidence):
        out.append((target, verdict, evidence))

    rows = rows_of(d, "default")
    if rows:
        flagged = [r for r in rows if r["contended"] == "1"]
        why = sorted({r["contended_why"] for r in flagged})
        # Rows timed again (--retime) are counted beside the verdict: a
        # clean retime is not a flag, but how often the host disturbed a
        # timing is part of the evidence.
        retimed = [r for r in rows if int(r.get("attempts") or 1) > 1]
        add("25.1 default benchmark: no row flagged contended (an idle machine)",
            "holds" if not flagged else "MISSES", f"{len(flagged)} of {len(rows)} rows flagged" + (f": {'; '.join(why[:3])}" if why else "")
            + f"; {len(retimed)} timed again after a contended attempt")
        cores = sorted({r["blas_core"] for r in rows if r["variant"] == "blas" and r.get("blas_core")})
        # Not a target with a threshold (tests/peers.sh checks the core
        # against the CPU's ISA): what the "vs blas" ratios ran against.
        add("25.2 the OpenBLAS core its rows ran", "recorded" if cores else "not measured",
            ", ".join(cores) or "no blas row")
    else:
        add("25.1 default benchmark", "not measured", "no default.csv with passing rows")

    for name in FULL["linear"]:
        race_targets(add, f"25.4 linear {name} f32", rows_of(d, f"linear_{name}_f32"), OURS_F32, 90, False, ("dnnl",))
    seqs = sorted(int(f[len("attention_"):-4]) for f in os.listdir(d) if f.startswith("attention_") and f.endswith(".csv"))
    if not seqs:
        add("25.5 attention", "not measured", "no attention_*.csv")
    for s in seqs:
        race_targets(add, f"25.5 attention seq {s}", rows_of(d, f"attention_{s}"), OURS_FLASH, 80, True,
                     ("dnnl",) + THREE_PASS)

    cold = os.path.join(d, "best_b8_cold.txt")
    walls = {}
    if os.path.exists(os.path.join(d, "commands.txt")):
        for line in open(os.path.join(d, "commands.txt")):
            if line.startswith("#"):
                continue
            f = line.split("\t")
            walls[f[0]] = (float(f[1].split()[0]), f[2].strip())
    if os.path.exists(cold):
        # The issue times the tuning; best prints its total when a pass is
        # settled ("best: N calls and passes tuned in S s").
        totals = [line.split(" tuned in ")[1].split()[0] for line in open(cold) if " calls and passes tuned in " in line
                  and "so far" not in line]
        wall, rc = walls.get("best_b8_cold", (float("nan"), "exit ?"))
        target = "25.6 first generate --variant best, batch 8, 2 threads: tuned in < 60 s"
        if totals and rc == "exit 0":
            tuned = float(totals[-1])
            add(target, "holds" if tuned < 60 else "MISSES", f"tuned in {tuned:.1f} s; the whole command {wall:.1f} s")
        else:
            add(target, "not measured", f"no tuning total in best_b8_cold.txt ({rc}; was the cache warm?)")
    warm = os.path.join(d, "best_b8_warm.txt")
    if os.path.exists(warm):
        tuned = sum("interleaved rounds" in line for line in open(warm))
        cached = sum("(cached in" in line for line in open(warm))
        add("25.6 the same with a warm cache re-times nothing", "holds" if tuned == 0 and cached else "MISSES",
            f"{tuned} choices raced, {cached} read from the cache")
    for b in ("b1", "b8"):
        times = rounds_of(rows_of(d, f"best_{b}_rounds"))
        fam = winner(times, FAMILIES)
        if "best" in times and fam:
            add(f"25.6 generate batch {b[1:]}: best never slower than the fastest family", *at_least(
                speed_vs(times, "best", fam), fam))
        else:
            add(f"25.6 generate batch {b[1:]}: best vs the families", "not measured", "best or every family missing")

    for name in FULL["linear"]:
        rows, f32 = rows_of(d, f"linear_{name}_bf16"), rows_of(d, f"linear_{name}_f32")
        w, times = race_targets(add, f"27.5 linear {name} bf16", rows, OURS_BF16, 90, False, ("dnnl",))
        if not w:
            continue
        wf = winner(rounds_of(f32), OURS_F32)
        if wf:
            fma, _ = roof_of(f32, wf)
            bf16_dot = [roof_of(rows, "avx512bf16")[0]] if "avx512bf16" in times else []
            speed = statistics.median(rounds_of(f32)[wf]) / statistics.median(times[w])
            if bf16_dot and bf16_dot[0] >= 1.5 * fma:
                add(f"27.5 linear {name}: bf16 >= 1.6x f32 (vdpbf16ps >= 1.5x FMA here)",
                    "holds" if speed >= 1.6 else "MISSES",
                    f"{w} {speed:.2f}x {wf} (medians of round medians, back-to-back runs); "
                    f"roofs {bf16_dot[0]:.0f} / {fma:.0f} GFLOP/s")
            else:
                add(f"27.5 linear {name}: bf16 >= 1.6x f32", "not applicable",
                    f"vdpbf16ps below 1.5x the FMA roof here ({w} {speed:.2f}x {wf})")

    for stem, target, need, col in (("forward", "27.5 bf16 full pass seq 512 never slower than f32", 1.0, "median_ns"),
                                    ("generate_b1", "27.5 decoding batch 1: bf16 >= 1.7x f32 tokens/s", 1.7,
                                     "tokens_per_s")):
        pairs = []
        for i in (1, 2):
            a, b = rows_of(d, f"{stem}_f32_{i}"), rows_of(d, f"{stem}_bf16_{i}")
            best = [r for r in a if r["variant"] == "best"], [r for r in b if r["variant"] == "best"]
            if best[0] and best[1]:
                x, y = float(best[0][0][col]), float(best[1][0][col])
                pairs.append(x / y if col == "median_ns" else y / x)
        if pairs:
            med = statistics.median(pairs)
            add(target, "holds" if med >= need else "MISSES",
                f"bf16 {med:.2f}x f32 (pairs: {', '.join(f'{p:.2f}x' for p in pairs)})")
        else:
            add(target, "not measured", f"no pair of passing {stem} rows")

    t = os.path.join(d, "vs_torch_bf16.txt")
    head = [line for line in open(t) if line.startswith("headline:")] if os.path.exists(t) else []
    if head:
        try:
            x = float(head[0].split(" is ")[1].split("x")[0])
            add("27.5 bf16 full pass >= 1.5x PyTorch's bf16", "holds" if x >= 1.5 else "MISSES", head[0].strip())
        except (IndexError, ValueError):
            add("27.5 bf16 full pass >= 1.5x PyTorch's bf16", "not measured", "unreadable headline: " + head[0].strip())
    else:
        add("27.5 bf16 full pass >= 1.5x PyTorch's bf16", "not measured",
            "run with --torch (PyTorch 2: scripts/setup torch2)" if not os.path.exists(t) else "vs_torch printed no headline")
    return out


def judge(d):
    if not os.path.isdir(d):
        die(f"no directory {d}")
    v = verdicts(d)
    width = max(len(t) for t, _, _ in v)
    lines = [f"{t:<{width}}  {verdict:<14}  {ev}" for t, verdict, ev in v]
    log = os.path.join(d, "commands.txt")
    if os.path.exists(log) and open(log).readline().startswith("#"):
        lines.insert(0, open(log).readline().strip())
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    with open(os.path.join(d, "verdicts.txt"), "w") as f:
        f.write(text)
    missed = sum(verdict == "MISSES" for _, verdict, _ in v)
    print(f"targets: {len(v)} targets, {missed} missed, "
          f"{sum(verdict == 'not measured' for _, verdict, _ in v)} not measured", file=sys.stderr)


def main(argv):
    if len(argv) < 2 or argv[0] not in ("run", "judge"):
        die("usage: targets.py run DIR [--xfbench BIN] [--torch] [--quick] | targets.py judge DIR")
    d = argv[1]
    if argv[0] == "run":
        xfbench, torch, quick, rest = os.path.join(TOP, "build", "xfbench"), False, False, argv[2:]
        while rest:
            if rest[0] in ("--torch", "--quick"):
                torch, quick = torch or rest[0] == "--torch", quick or rest[0] == "--quick"
                rest = rest[1:]
            elif rest[0] == "--xfbench" and len(rest) > 1:
                xfbench, rest = rest[1], rest[2:]
            else:
                die(f"unknown argument {rest[0]}")
        if not os.access(xfbench, os.X_OK):
            die(f"no xfbench at {xfbench} (scripts/build)")
        run(d, xfbench, torch, quick)
    elif len(argv) > 2:
        die(f"unknown argument {argv[2]}")
    judge(d)


if __name__ == "__main__":
    main(sys.argv[1:])
