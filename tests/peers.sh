#!/bin/sh
# Every row records how the peer libraries ran (blas_core, dnnl_isa,
# xsmm_target), and the OpenBLAS core it records is never below this CPU's
# vector level (capped by XFBENCH_MAX_ISA, at most AVX-512: OpenBLAS's
# widest fp32 kernels) unless the same field says why; uncapped, no peer
# carries xfbench's cap. Planted: a user's
# OPENBLAS_CORETYPE=Prescott is respected, and the row says it holds
# OpenBLAS below the CPU.
# Usage: peers.sh path/to/xfbench
set -u
bin=$1
fail() { echo "FAILED: $*"; exit 1; }
"$bin" list | grep -q '^linear  *blas ' || { echo "SKIP: the blas family is not built"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { # csv file, then env assignments
    out=$1; shift
    env "$@" "$bin" bench --stage linear --variant blas --seq 16 --min-time 0 --min-reps 1 --csv "$tmp/$out" \
        >"$tmp/$out.log" 2>&1 || fail "bench exited $?: $(cat "$tmp/$out.log")"
}
run own.csv
grep -q '^# peers: blas_core ' "$tmp/own.csv.log" || fail "bench does not print the peers line"
planted=1
case "${XFBENCH_MAX_ISA:-}" in scalar) planted=0 ;; esac
[ $planted -eq 1 ] && run planted.csv OPENBLAS_CORETYPE=Prescott XFBENCH_WHY_OPENBLAS_CORETYPE=
/usr/bin/python3 - "$tmp" "$planted" <<'PY' || fail "a recorded OpenBLAS core is below the CPU without a reason"
import csv, os, sys
csv.field_size_limit(sys.maxsize)
tmp, planted = sys.argv[1], sys.argv[2] == "1"
cores = {"skylakex": 2, "cooperlake": 2, "sapphirerapids": 2, "haswell": 1, "zen": 1}
def want(isa):
    f = set(isa.split())
    level = 2 if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= f else 1 if {"avx2", "fma"} <= f else 0
    cap = {"scalar": 0, "avx2": 1}.get(os.environ.get("XFBENCH_MAX_ISA", ""), 2)
    return min(level, cap)
def check(path):
    rows = list(csv.DictReader(open(path)))
    assert rows, path
    for r in rows:
        for col in ("blas_core", "dnnl_isa", "xsmm_target"):
            assert r[col], (col, r)
        core = r["blas_core"].split()[0].lower()
        ok = cores.get(core, 0) >= want(r["isa"]) or "below this CPU" in r["blas_core"]
        assert ok, r["blas_core"]
    return rows
own = check(os.path.join(tmp, "own.csv"))
# Uncapped, xfbench caps no peer (oneDNN then reaches AMX where the CPU
# has it): a cap recorded without XFBENCH_MAX_ISA is xfbench's own doing.
if not os.environ.get("XFBENCH_MAX_ISA"):
    for r in own:
        assert not any("xfbench's cap" in r[c] for c in ("blas_core", "dnnl_isa", "xsmm_target")), r
if planted:
    r = check(os.path.join(tmp, "planted.csv"))[0]
    assert r["blas_core"].startswith("Prescott") and "from the environment" in r["blas_core"], r["blas_core"]
    assert "OPENBLAS_CORETYPE holds it there" in r["blas_core"], r["blas_core"]
PY
echo "peers: $(sed -n 's/^# peers: //p' "$tmp/own.csv.log")"
