#!/bin/sh
# scripts/sweep and scripts/plot on tiny shapes: a quick sweep writes its
# CSV (checked rows) and hyperfine's JSON and CSV; a second run skips what
# is done; --list gives one command per point, which GNU parallel runs as
# two "hosts" (two local slots, XFBENCH_HOST=slot1/slot2) whose CSVs
# --merge joins by their host column; plot makes every PNG and SVG from
# the sweeps and refuses empty or malformed CSVs with exit 2.
# Usage: sweep_plot.sh path/to/source-root path/to/xfbench
set -u
top=$1
bin=$2
fail() { echo "FAILED: $*"; exit 1; }
command -v hyperfine >/dev/null || fail "hyperfine is not installed (scripts/setup sweep)"
/usr/bin/python3 -c "import matplotlib" 2>/dev/null || fail "matplotlib is not installed (scripts/setup plot)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
sweep() { /usr/bin/python3 "$top/scripts/py/sweep.py" "$@" --quick --xfbench "$bin" --out "$tmp/out"; }
XFBENCH_HOST=local sweep dk >"$tmp/log" 2>&1 || fail "quick dk sweep: $(tail -5 "$tmp/log")"
csv="$tmp/out/local/dk.csv"
[ -s "$csv" ] || fail "no $csv"
/usr/bin/python3 - "$csv" "$tmp/out/local/hyperfine" <<'PY' || fail "the sweep's outputs do not parse"
import csv, glob, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and all(r["passed"] == "1" and float(r["median_ns"]) > 0 and r["host"] == "local" for r in rows), rows[:1]
assert {r["dk"] for r in rows} == {"8", "16"}, {r["dk"] for r in rows}
js = glob.glob(sys.argv[2] + "/*.json")
assert len(js) == 2 and all(json.load(open(j))["results"][0]["mean"] > 0 for j in js), js
PY
XFBENCH_HOST=local sweep dk >"$tmp/log2" 2>&1 || fail "second dk sweep failed"
[ "$(grep -c 'done (.* rows), skipped' "$tmp/log2")" -eq 2 ] || fail "the second run did not skip the done points"
n=$(sweep seq --list | wc -l)
[ "$n" -eq 6 ] || fail "seq --list printed $n commands, want 6 (attention and softmax at 3 lengths)"
if command -v parallel >/dev/null; then
    # The listed commands start with scripts/sweep (set-up, build); here the
    # build is the one under test, so they call the sweep itself.
    sweep seq --list | sed "s|^[^ ]*/scripts/sweep |/usr/bin/python3 $top/scripts/py/sweep.py |; s|\$| --xfbench $bin|" |
        parallel -j2 --will-cite 'XFBENCH_HOST=slot{%} sh -c {}' >"$tmp/plog" 2>&1 || fail "parallel sweep: $(tail -5 "$tmp/plog")"
    sweep seq --merge >/dev/null || fail "merge failed"
    hosts=$(/usr/bin/python3 -c "import csv,sys; print(' '.join(sorted({r['host'] for r in csv.DictReader(open(sys.argv[1]))})))" "$tmp/out/seq.csv")
    [ "$hosts" = "slot1 slot2" ] || fail "merged hosts are '$hosts', want 'slot1 slot2'"
else
    fail "GNU parallel is not installed (scripts/setup sweep)"
fi
XFBENCH_HOST=local sweep forward >/dev/null 2>&1 || fail "quick forward sweep"
XFBENCH_HOST=local sweep decode >/dev/null 2>&1 || fail "quick decode sweep"
# bf16 beside fp32: every point in both dtypes, each row of its own dtype
XFBENCH_HOST=local sweep precision >"$tmp/plog2" 2>&1 || fail "quick precision sweep: $(tail -3 "$tmp/plog2")"
/usr/bin/python3 - "$tmp/out/local/precision.csv" <<'PY' || fail "the precision sweep's rows are not both dtypes of each point"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
for r in rows:
    by.setdefault((r["stage"], r["dtype"]), set()).add(r["variant"])
assert {d for _, d in by} == {"f32", "bf16"}, by
assert all((s, "f32") in by and (s, "bf16") in by for s, _ in by), by
assert "avx2bf16" not in by.get(("linear", "f32"), ()) and "avx2" not in by.get(("linear", "bf16"), ()), by
PY
/usr/bin/python3 "$top/scripts/py/plot.py" "$tmp/out/seq.csv" "$tmp/out/local/dk.csv" "$tmp/out/local/forward.csv" \
    "$tmp/out/local/decode.csv" "$tmp/out/local/precision.csv" --out "$tmp/plots" >"$tmp/plotlog" 2>&1 ||
    fail "plot: $(cat "$tmp/plotlog")"
for p in attention_vs_seq attention_vs_dk roofline forward_stages speedup_vs_blas decode_vs_batch bf16_speedup; do
    for ext in png svg; do
        [ -s "$tmp/plots/$p.$ext" ] || fail "no $p.$ext"
    done
done
# Shapes ordered by their numbers, not as text (dk 16 before 128).
/usr/bin/python3 - "$top/scripts/py" <<'PY' || fail "plot orders shapes as text"
import sys
sys.path.insert(0, sys.argv[1])
from plot import natural
cases = [("attention", "128"), ("attention", "16"), ("attention", "256"), ("attention", "32"), ("attention", "64")]
assert [c[1] for c in sorted(cases, key=natural)] == ["16", "32", "64", "128", "256"], sorted(cases, key=natural)
assert sorted(["b=1 dk=128", "b=1 dk=16"], key=natural) == ["b=1 dk=16", "b=1 dk=128"]
PY
: >"$tmp/empty.csv"
printf 'a,b\n1,2\n' >"$tmp/other.csv"
head -1 "$csv" >"$tmp/header.csv"
{ head -1 "$csv"; echo "attention,x,1"; } >"$tmp/short.csv"
for f in empty other header short missing; do
    err=$(/usr/bin/python3 "$top/scripts/py/plot.py" "$tmp/$f.csv" --out "$tmp/p2" 2>&1 >/dev/null)
    rc=$?
    [ $rc -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "plot $f.csv: exit $rc, '$err'"
done
echo "sweep and plot: resumable, listable, merged across two hosts, plotted; bad CSVs refused"
