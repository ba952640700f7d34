#!/bin/sh
# bench checks before it times, writes one CSV row per case with the
# docs/design.md CSV columns, and never stores a speed for a result that failed.
# Usage: bench_csv.sh path/to/xfbench path/to/xfbench-mutants
set -u
bin=$1
mut=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The peak cache of this run only: the test measures it, and leaves the
# user's cache alone.
export XDG_CACHE_HOME="$tmp"
fail() { echo "FAILED: $*"; exit 1; }
# rows_ok FILE DTYPE: every row passed, with positive median, GFLOP/s (and
# pct_peak for f32) and that dtype (csv: quoted fields hold commas).
rows_ok() {
    /usr/bin/python3 - "$1" "$2" <<'PY'
import csv, sys
csv.field_size_limit(sys.maxsize)
bad = [r for r in csv.DictReader(open(sys.argv[1]))
       if not (r["passed"] == "1" and float(r["median_ns"]) > 0 and float(r["gflops"]) > 0 and r["dtype"] == sys.argv[2]
               and (sys.argv[2] != "f32" or float(r["pct_peak"]) > 0)
               and len(r["samples_ns"].split(";")) == int(r["reps"]))]
sys.exit(1 if bad else 0)
PY
}

tiny="--batch 2 --heads 2 --dk 8 --seq 9 --layers 1 --vocab 20 --min-time 0.01 --min-reps 3"
"$bin" bench $tiny --variant naive --csv "$tmp/a.csv" >"$tmp/out" || fail "bench on tiny shapes exited $?"
head -1 "$tmp/a.csv" | grep -q '^stage,variant,batch,heads,dk,seq_q,seq_k,d_model,d_ff,.*threads,reps,median_ns,min_ns,.*gflops,gbps,pct_peak,max_abs_err,max_rel_err,.*passed,cpu' ||
    fail "CSV header lacks the docs/design.md columns"
rows=$(($(wc -l <"$tmp/a.csv") - 1))
stages=$("$bin" list | awk '$2 == "naive" {print $1}' | sort -u | wc -l)
[ "$stages" -ge 10 ] && [ "$rows" -eq "$stages" ] || fail "expected $stages rows (one per stage), got $rows"
# Every variant built here, every stage: every row passed and has a
# positive median, GFLOP/s and percentage of the machine's peak.
"$bin" bench $tiny --csv "$tmp/all.csv" >"$tmp/out" || fail "bench of every variant exited $?"
# best is benchmarked only when named (its autotune takes time).
# (The fp32 ones: a bf16 variant, "dtype=bf16" in the list, runs under --dtype bf16.)
available=$("$bin" list | awk '$3 == "ok" && $1 != "stage" && $2 != "best" && !/ dtype=/' | wc -l)
[ $(($(wc -l <"$tmp/all.csv") - 1)) -eq "$available" ] || fail "not one row per available stage x variant ($available)"
rows_ok "$tmp/all.csv" f32 ||
    fail "a row without passed=1, median_ns > 0, gflops > 0, pct_peak > 0, dtype f32 and reps samples"
# And every bf16 variant, in bf16.
"$bin" bench $tiny --dtype bf16 --csv "$tmp/bf16.csv" >"$tmp/out" || fail "bench --dtype bf16 exited $?"
available=$("$bin" list | awk '$3 == "ok" && / dtype=bf16/' | wc -l)
[ "$available" -ge 1 ] && [ $(($(wc -l <"$tmp/bf16.csv") - 1)) -eq "$available" ] ||
    fail "not one row per available bf16 variant ($available)"
rows_ok "$tmp/bf16.csv" bf16 ||
    fail "a bf16 row without passed=1, median_ns > 0, gflops > 0 and dtype bf16"

# Each bf16 row against the roof of its arithmetic (docs/design.md,
# Roofs): the widening kernels (naive, avx2bf16, avx512bf16w) against the FMA roof, the
# vdpbf16ps ones against the dot product's, oneDNN's by its ISA (AMX's roof
# from avx512_core_amx), at a linear that is compute-
# bound here (a row whose roof is a bandwidth says nothing of this).
"$bin" bench --stage linear --dtype bf16 --batch 1 --heads 8 --dk 64 --seq 64 --min-time 0.01 --min-reps 3 \
    --csv "$tmp/bf16_roofs.csv" >"$tmp/out" || fail "bench of the bf16 linears exited $?"
/usr/bin/python3 - "$tmp/bf16_roofs.csv" <<'PY' || fail "a bf16 row held against another arithmetic's roof"
import csv, sys
csv.field_size_limit(sys.maxsize)
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["roof"] in ("FMA", "bf16-dot", "bf16-amx")]
want = {"naive": "FMA", "avx2bf16": "FMA", "avx512bf16w": "FMA", "avx512bf16": "bf16-dot"}
def wanted(r):  # oneDNN's by the ISA it ran (its dnnl_isa column)
    if r["variant"] != "dnnl": return want.get(r["variant"])
    isa = r.get("dnnl_isa", "")
    return "bf16-amx" if isa.startswith("avx512_core_amx") else "bf16-dot" if isa.startswith("avx512_core_bf16") else "FMA"
bad = [(r["variant"], r["roof"]) for r in rows if wanted(r) and r["roof"] != wanted(r)]
print("bf16 rows and their roofs:", sorted((r["variant"], r["roof"]) for r in rows), "wrong:", bad)
sys.exit(1 if bad or not rows else 0)
PY

# A second run appends rows, not a second header.
"$bin" bench $tiny --stage linear --csv "$tmp/a.csv" >/dev/null || fail "second bench run"
[ "$(grep -c '^stage,' "$tmp/a.csv")" -eq 1 ] || fail "header written twice"

# A variant that fails its check: exit 1, row stored with passed=0 and no time.
"$mut" bench $tiny --stage linear --variant mutant-bias-dropped --csv "$tmp/b.csv" >"$tmp/out"
[ $? -eq 1 ] || fail "bench of a failing variant did not exit 1"
grep -q "FAILED CHECK, not timed" "$tmp/out" || fail "failing variant not reported as such"
awk -F, 'NR == 2 && $29 == 0 && $17 == "" && $18 == "" && $22 == "" { ok = 1 } END { exit !ok }' "$tmp/b.csv" ||
    fail "failed row stores a time or passed != 0: $(sed -n 2p "$tmp/b.csv")"

# forward prints the per-stage breakdown.
"$bin" forward $tiny >"$tmp/f" || fail "forward exited $?"
grep -q "per-stage time" "$tmp/f" && grep -q "attention" "$tmp/f" || fail "no per-stage breakdown"
echo "bench CSV and the no-speed-for-failures rule hold"
