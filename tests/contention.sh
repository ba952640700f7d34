#!/bin/sh
# The contended flag bites: with a busy loop pinned to the core xfbench is
# pinned to, every timed case is flagged (the timing thread gets about half
# the wall time, the loop is another runnable task), bench prints the
# warning, the row records contended=1 with its reason, and --strict 1
# records nothing and exits 3. The roofs, measured under the loop in a
# fresh cache, are flagged busy, warned of, and cached as such in a file
# of their own (the loop's taskset allows one CPU), never as the machine's.
# A contended timing is set aside and timed again (--retime): under the
# loop every attempt is contended and the row says so; a loop stopped
# after the first attempt leaves a clean second one, which the row keeps
# with the first's reasons.
# (Without the loop the flag depends on what else the machine runs, so it
# is not asserted here.)
# Usage: contention.sh path/to/xfbench
set -u
bin=$1
fail() { echo "FAILED: $*"; exit 1; }
command -v taskset >/dev/null || { echo "SKIP: no taskset"; exit 77; }
tmp=$(mktemp -d)
XDG_CACHE_HOME=$tmp/cache
export XDG_CACHE_HOME
taskset -c 0 sh -c 'while :; do :; done' &
loop=$!
brief=
trap 'kill $loop $brief 2>/dev/null; rm -rf "$tmp"' EXIT
sleep 0.2
out=$(taskset -c 0 "$bin" bench --stage softmax --variant naive --seq 32 --min-time 0.3 --csv "$tmp/run.csv")
rc=$?
[ $rc -eq 0 ] || fail "bench under a busy loop exited $rc: $out"
printf '%s\n' "$out" | grep -q "WARNING: contended while timed (.*thread ran" || fail "no contended warning: $out"
printf '%s\n' "$out" | grep -q "WARNING: the machine was busy while its peak was measured" ||
    fail "the roofs measured under the loop were not flagged: $out"
grep -qx "busy 1" "$XDG_CACHE_HOME"/xfbench/peak*.txt || fail "the roofs were not cached as busy"
if [ "$(nproc)" -gt 1 ] && [ -e "$XDG_CACHE_HOME/xfbench/peak.txt" ]; then
    fail "a run allowed one CPU wrote the machine's peak.txt"
fi
/usr/bin/python3 - "$tmp/run.csv" <<'PY' || fail "the row does not record contended=1 with its reason"
import csv, sys
csv.field_size_limit(sys.maxsize)
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 1 and rows[0]["contended"] == "1" and "thread ran" in rows[0]["contended_why"], rows
assert float(rows[0]["thread_cpu_pct"]) < 90, rows[0]["thread_cpu_pct"]
assert rows[0]["attempts"] == "3" and rows[0]["set_aside_why"].startswith("attempt 1: "), rows[0]["attempts"]
assert "attempt 2: " in rows[0]["set_aside_why"], rows[0]["set_aside_why"]
PY
[ "$(printf '%s\n' "$out" | grep -c "softmax naive: timing set aside, contended (.*thread ran")" -eq 2 ] ||
    fail "the two retimes were not printed: $out"
printf '%s\n' "$out" | grep -q "WARNING: contended while timed (.*) in every attempt" ||
    fail "the warning does not say every attempt was contended: $out"
out=$(taskset -c 0 "$bin" bench --stage softmax --variant naive --seq 32 --min-time 0.3 --strict 1 --csv "$tmp/strict.csv")
rc=$?
[ $rc -eq 3 ] || fail "--strict 1 under a busy loop exited $rc, not 3: $out"
[ "$(wc -l <"$tmp/strict.csv")" -eq 1 ] || fail "--strict 1 recorded a contended row"
kill $loop 2>/dev/null
# The loop stops when the first attempt is set aside: a later one is clean.
taskset -c 0 sh -c 'while :; do :; done' &
brief=$!
out=$(taskset -c 0 "$bin" bench --stage softmax --variant naive --seq 32 --min-time 0.3 --retime 4 \
    --csv "$tmp/retimed.csv" | while IFS= read -r line; do
        printf '%s\n' "$line"
        case $line in *"set aside"*) kill $brief 2>/dev/null ;; esac
    done)
kill $brief 2>/dev/null
/usr/bin/python3 - "$tmp/retimed.csv" <<'PY' || fail "a timing after the loop stopped was not the one kept: $out"
import csv, sys
csv.field_size_limit(sys.maxsize)
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 1, rows
r = rows[0]
assert r["contended"] == "0" and int(r["attempts"]) >= 2, (r["contended"], r["contended_why"], r["attempts"])
assert r["set_aside_why"].startswith("attempt 1: ") and "thread ran" in r["set_aside_why"], r["set_aside_why"]
PY
echo "contention: a pinned busy loop is flagged in every attempt, warned, recorded and refused by --strict; a stopped one is retimed clean"
