#!/bin/sh
# The emulated checks bite: the emulated avx512bf16 linear with a pair of k
# dropped must FAIL on the GEMM path and on the few-row path, and its
# attention with a pair of dk dropped on a masked causal case, where the
# emulated kernels themselves pass the very same cases; and the emulated program
# refuses to time anything. Exit 77 where the emulated families cannot run
# (no AVX2, or XFBENCH_MAX_ISA below it).
# Usage: emulated.sh path/to/xfbench-emulated
set -u
bin=$1
failures=0
. "$(dirname "$0")/expect.sh"

if ! "$bin" list | grep -q "^linear *avx512bf16-emu *emulated"; then
    echo "SKIP: the emulated families cannot run here ($("$bin" list | grep -m1 '^linear *avx512bf16-emu' |
        sed 's/.*unavailable: //; s/  \[.*//'))"
    exit 77
fi

for shape in "--seq 9 --n 70 --k 64" "--seq 2 --n 70 --k 64"; do
    args="--stage linear --batch 1 $shape --dtype bf16"
    expect_fail "mutant-emu-bf16-dropped-pair.*error" --variant mutant-emu-bf16-dropped-pair $args
    if ! out=$("$bin" check --variant avx512bf16-emu $args 2>&1) || ! printf '%s\n' "$out" | grep -q "^PASS"; then
        echo "CONTROL FAILED: avx512bf16-emu does not pass: xfbench-emulated check $args"
        failures=$((failures + 1))
    fi
done

args="--stage attention --batch 2 --heads 3 --dk 24 --seq 17 --pad some --causal 1 --dtype bf16"
expect_fail "mutant-emu-bf16-attention-dropped-pair.*error" --variant mutant-emu-bf16-attention-dropped-pair $args
if ! out=$("$bin" check --variant avx512bf16-emu $args 2>&1) || ! printf '%s\n' "$out" | grep -q "^PASS"; then
    echo "CONTROL FAILED: avx512bf16-emu does not pass: xfbench-emulated check $args"
    failures=$((failures + 1))
fi

for cmd in bench forward peak; do
    "$bin" $cmd --stage linear --variant avx512-emu >/dev/null 2>&1; rc=$?
    if [ $rc -ne 2 ]; then
        echo "TIMED: xfbench-emulated $cmd exited $rc, not 2 (emulated kernels are never timed)"
        failures=$((failures + 1))
    fi
done

[ $failures -eq 0 ] && echo "emulated: the mutants caught (linear on both paths, attention); nothing timed"
[ $failures -eq 0 ]
