#!/bin/sh
# Threads pinned by the user (OMP_PROC_BIND, OMP_PLACES) stay on as many
# cores as they ask for when xfbench starts itself again (here for
# XFBENCH_MAX_ISA, which caps the peers through their environment; on an
# Intel CPU also for OPENBLAS_CORETYPE): OpenMP had bound the first
# process's thread to one core, which the second inherited, and 2 threads
# then shared it. A row records that as contended ("2 threads on 1 CPU").
# Planted: the same run confined to one CPU (taskset) must read so.
# Usage: pinning.sh path/to/xfbench
set -u
bin=$1
fail() { echo "FAILED: $*"; exit 1; }
[ "$(nproc)" -ge 2 ] || { echo "SKIP: one CPU: 2 threads cannot have a core each"; exit 77; }
command -v taskset >/dev/null || { echo "SKIP: no taskset for the planted case"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { # csv file, then the command's prefix
    out=$1; shift
    "$@" "$bin" bench --stage softmax --seq 16 --threads 2 --min-time 0 --min-reps 1 --csv "$tmp/$out" \
        >"$tmp/$out.log" 2>&1 || fail "bench exited $?: $(cat "$tmp/$out.log")"
}
# scalar: a cap below every CPU, so xfbench always starts again.
run pinned.csv env OMP_PROC_BIND=close OMP_PLACES=cores XFBENCH_MAX_ISA=scalar
run planted.csv env OMP_PROC_BIND=close OMP_PLACES=cores XFBENCH_MAX_ISA=scalar taskset -c 0
/usr/bin/python3 - "$tmp" <<'PY' || fail "threads placement misread"
import csv, sys
tmp = sys.argv[1]
def rows(name):
    r = list(csv.DictReader(open(f"{tmp}/{name}")))
    assert r, f"{name}: no rows"
    return r
for r in rows("pinned.csv"):
    assert "threads on" not in r["contended_why"], f"pinned: {r['variant']}: {r['contended_why']}"
for r in rows("planted.csv"):
    assert "2 threads on 1 CPU" in r["contended_why"] and r["contended"] == "1", f"planted: {r['variant']}: {r['contended_why']}"
print("pinning: threads on their own cores after a restart; one CPU for 2 threads flagged")
PY
