#!/bin/sh
# xfbench compare's statistics on synthetic samples with known answers
# (synth_csv.c: lognormal per-call times, a share slowed as preemption
# does, runs that drift): A/A comparisons of 40 cases call at most 2 of
# them, with drift between runs too; a planted 3% slowdown at 30 samples a
# case, a 30% one at 5 samples and a 10% one over 5 drifting runs are
# called slower, and only where planted; geometric means' intervals hold the
# planted ratio and exclude 1; --fail-below gates on whole intervals; a
# seed gives the same intervals. Then bench's --csv and --jsonl: one
# sample per timed call, one JSON object per case.
# Usage: compare_stats.sh path/to/xfbench path/to/synth_csv
set -u
bin=$1
synth=$2
fail() { echo "FAILED: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
called() { "$bin" compare "$tmp/a.csv" "$tmp/b.csv" | grep -cE " (faster|slower)$"; }
# A/A: five pairs of draws from one distribution: at most 2 of 40 cases
# called, no whole interval below 0.95.
for seed in 1 2 3 4 5; do
    "$synth" "$tmp/a.csv" 40 30 1.0 0.03 0.05 "$seed"
    "$synth" "$tmp/b.csv" 40 30 1.0 0.03 0.05 "$((seed + 100))"
    n=$(called)
    [ "$n" -le 2 ] || fail "A/A seed $seed: $n of 40 cases called faster or slower"
    "$bin" compare "$tmp/a.csv" "$tmp/b.csv" --fail-below 0.95 >/dev/null || fail "A/A seed $seed: --fail-below 0.95 failed"
done
# The geometric mean's 95% interval holds 1 in A/A: in at least 18 of 20
# pairs (a correct 95% interval misses 1 in 3 or more of 20 pairs 7.5% of
# the time; 18 is the bar the intervals must clear, not a tuned seed list).
held=0
for seed in $(seq 11 30); do
    "$synth" "$tmp/a.csv" 40 30 1.0 0.03 0.05 "$seed"
    "$synth" "$tmp/b.csv" 40 30 1.0 0.03 0.05 "$((seed + 100))"
    "$bin" compare "$tmp/a.csv" "$tmp/b.csv" | grep 'over 40' |
        awk '{gsub(/[][,x]/, " "); exit !($4 <= 1 && $5 >= 1)}' && held=$((held + 1))
done
[ "$held" -ge 18 ] || fail "A/A: the geometric mean's interval held 1 in only $held of 20 pairs"
# A/A with drift between runs (3 rows a case, each run scaled by its own
# 5% draw): the runs are the units, at most 2 of 40 called; the same
# samples as one row each would be called far more often.
"$synth" "$tmp/a.csv" 40 30 1.0 0.01 0 21 40 3 0.05
"$synth" "$tmp/b.csv" 40 30 1.0 0.01 0 22 40 3 0.05
n=$(called)
[ "$n" -le 2 ] || fail "A/A with drift between runs: $n of 40 cases called"
# 3% slower at 30 samples (1% spread), 30% slower at 5 samples (3% spread),
# 10% slower over 5 runs a case drifting by 1%.
for planted in "30 1.03 0.01 0 1 0" "5 1.3 0.03 0 1 0" "30 1.1 0.01 0 5 0.01"; do
    set -- $planted
    "$synth" "$tmp/a.csv" 40 "$1" 1.0 "$3" "$4" 7 40 "$5" "$6"
    "$synth" "$tmp/b.csv" 40 "$1" "$2" "$3" "$4" 8 40 "$5" "$6"
    out=$("$bin" compare "$tmp/a.csv" "$tmp/b.csv")
    n=$(printf '%s\n' "$out" | grep -cE " slower$")
    [ "$n" -eq 40 ] || fail "$2x slower at $1 samples: $n of 40 cases called slower"
    "$bin" compare "$tmp/a.csv" "$tmp/b.csv" --fail-below 0.99 >/dev/null
    [ $? -eq 1 ] || fail "$2x slower at $1 samples: --fail-below 0.99 did not exit 1"
done
# The geometric mean of a 3% slowdown: about 1/1.03 = 0.971, its interval
# excluding 1 and within 1% of 0.971 (whether a 95% interval holds the
# truth is a coin weighted 19 to 1: the A/A loop above tests that).
"$synth" "$tmp/a.csv" 40 30 1.0 0.01 0 7
"$synth" "$tmp/b.csv" 40 30 1.03 0.01 0 8
gm=$("$bin" compare "$tmp/a.csv" "$tmp/b.csv" | grep 'over 40')
printf '%s\n' "$gm" | awk '{gsub(/[][,x]/, " "); if (!($4 > 0.961 && $5 < 0.981 && $4 < $3 && $3 < $5)) exit 1}' ||
    fail "3% slowdown: geometric mean interval wrong: $gm"
# Planted in the first 10 cases only: those 10 called, at most 2 others.
"$synth" "$tmp/a.csv" 40 30 1.0 0.02 0.05 11
"$synth" "$tmp/b.csv" 40 30 1.03 0.02 0.05 12 10
out=$("$bin" compare "$tmp/a.csv" "$tmp/b.csv")
hits=$(printf '%s\n' "$out" | grep -E " slower$" | grep -cE "seq_q=(16|32|48|64|80|96|112|128|144|160) ")
others=$(printf '%s\n' "$out" | grep -E " (faster|slower)$" | grep -cvE "seq_q=(16|32|48|64|80|96|112|128|144|160) ")
[ "$hits" -ge 9 ] && [ "$others" -le 2 ] || fail "planted in 10 of 40: $hits of them called, $others others"
# Seeded: the same seed, the same intervals; another seed, other draws.
a=$("$bin" compare "$tmp/a.csv" "$tmp/b.csv" --seed 5)
b=$("$bin" compare "$tmp/a.csv" "$tmp/b.csv" --seed 5)
c=$("$bin" compare "$tmp/a.csv" "$tmp/b.csv" --seed 6)
[ "$a" = "$b" ] || fail "--seed 5 twice gave different output"
[ "$a" != "$c" ] || fail "--seed 5 and --seed 6 gave the same intervals"
# bench: samples_ns holds reps samples, --jsonl one object per case.
"$bin" bench --stage softmax --variant naive --seq 16 --min-time 0 --min-reps 7 --csv "$tmp/run.csv" \
    --jsonl "$tmp/run.jsonl" >/dev/null || fail "bench --jsonl exited $?"
/usr/bin/python3 - "$tmp/run.csv" "$tmp/run.jsonl" <<'PY' || fail "samples_ns or --jsonl wrong"
import csv, json, sys
csv.field_size_limit(sys.maxsize)
rows = list(csv.DictReader(open(sys.argv[1])))
objs = [json.loads(l) for l in open(sys.argv[2])]
assert len(rows) == len(objs) == 1, (len(rows), len(objs))
r, o = rows[0], objs[0]
samples = [float(s) for s in r["samples_ns"].split(";")]
assert len(samples) == int(r["reps"]) >= 7 and o["samples_ns"] == samples, "samples"
assert sorted(samples)[len(samples) // 2] == float(r["median_ns"]), "median of the samples"
for k, v in r.items():
    if k != "samples_ns":
        assert str(o[k]) == v or (v == "" and o[k] is None) or float(o[k]) == float(v), (k, v, o[k])
assert o["contended"] in (0, 1) and o["clock_ghz_before"] >= 0
PY
echo "compare-stats: A/A, planted slowdowns, geometric means, gates, seeds, samples and JSONL as expected"
