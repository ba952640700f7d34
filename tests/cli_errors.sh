#!/bin/sh
# Bad input never crashes or hangs xfbench: each case below must exit with
# code 2 and print exactly one line, on stderr, naming the problem.
# Usage: cli_errors.sh path/to/xfbench
set -u
bin=$1
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect() { # expect WORDS_IN_MESSAGE ARGS...
    want=$1; shift
    timeout 20 "$bin" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
    lines=$(wc -l <"$tmp/err")
    if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -qi -- "$want" "$tmp/err" || [ -s "$tmp/out" ]; then
        echo "WRONG (exit $rc, $lines stderr lines): xfbench $*"
        cat "$tmp/err" "$tmp/out" | head -3
        failures=$((failures + 1))
    else
        echo "ok: xfbench $* -> $(cat "$tmp/err")"
    fi
}

expect "no command"
expect "unknown command" frobnicate
expect "unknown stage" check --stage attn
expect "no variant named" check --stage linear --variant avx9000
expect "no variant named" check --stage attention --variant mutant-scale-dropped
expect "needs a value" check --heads
expect "not a whole number" check --heads eight
expect "not a whole number" check --dk 6.5
expect "not a whole number" check --seq 12abc
expect "out of range" check --batch 0
expect "out of range" check --seq -3
expect "disagrees with --seq-q" bench --stage generate --steps 8 --seq-q 9
expect "give --weights" forward --decode 1
expect "belong to the forward command" bench --decode 1
expect "out of range" check --stage decode_layer --depth -1
expect "out of range" bench --stage generate --greedy 2
expect "not f32 or bf16" check --dtype fp8
expect "runs f32, the case is bf16" check --stage forward --dtype bf16 --variant naive --use linear=blas
expect "runs bf16, the case is f32" check --stage linear --variant avx2bf16
expect "runs f32, the case is bf16" check --stage linear --variant avx2 --dtype bf16
expect "out of range" check --d-ff 99999999999
expect "disagrees" check --d-model 500 --heads 8 --dk 64
expect "not a multiple" check --d-model 100 --heads 8
expect "unknown option" check --sequence 5
expect "unexpected argument" check linear
expect "pad" check --pad half
expect "grid" check --grid medium
expect "bytes" check --stage attention --seq 1000000 --batch 1000 --heads 16
expect "bytes" bench --stage softmax --seq 200000 --batch 64
expect "bytes" check --stage forward --heads 64 --dk 1024 --layers 1000
expect "too large" check --batch 1073741824 --seq 2
expect "cannot open" bench --stage embed --seq 2 --csv /nonexistent/dir/x.csv
printf 'stage,variant,median_ns\nlinear,naive,5\n' >"$tmp/old.csv"
expect "other columns" bench --stage embed --seq 2 --csv "$tmp/old.csv"
expect "not a primitive stage" check --stage ffn --use ffn=naive
expect "no ffn variant\|no linear variant" check --stage ffn --use linear=nope
expect "stage=variant" check --stage ffn --use linear
expect "does not apply" forward --stage linear
expect "number" bench --min-time abc
# XFBENCH_CACHES (variants/isa/caches.h): three sizes, each at least 1K, and
# optionally the CPUs sharing the L3 (1-4096).
for caches in 32K,1M 32K,1M,32M,1G 32X,1M,32M ,1M,32M 512,1M,32M 32K,1M,99999G 32K,1M,32M,0 32K,1M,32M, 32K,1M,32M,8,2; do
    XFBENCH_CACHES=$caches expect "XFBENCH_CACHES" check --stage linear
done

XFBENCH_REF=quick expect "XFBENCH_REF" check --stage linear
expect "cannot open" bench --stage embed --seq 2 --jsonl /nonexistent/dir/x.jsonl
expect "out of range" bench --stage embed --seq 2 --rounds 0
expect "out of range" bench --stage embed --seq 2 --strict 2
expect "out of range" bench --stage embed --seq 2 --retime 11
expect "not a whole number" bench --stage embed --seq 2 --retime x
expect "not a whole number" bench --stage embed --seq 2 --order-seed x

# scripts/vs_torch refuses what it would otherwise ignore (before looking
# for PyTorch, so any python3 runs this).
bin_saved=$bin
bin=python3
expect "not a list of positive whole numbers" "$(dirname "$0")/../scripts/py/vs_torch.py" --decode --batches 1,x
expect "out of range" "$(dirname "$0")/../scripts/py/vs_torch.py" --decode --rounds 0
bin=$bin_saved

# Help is not an error.
for c in list check bench forward; do
    "$bin" $c --help >/dev/null 2>&1 || { echo "WRONG: xfbench $c --help failed"; failures=$((failures + 1)); }
done
"$bin" --help >/dev/null || failures=$((failures + 1))

if [ $failures -ne 0 ]; then echo "$failures CLI error cases went wrong"; exit 1; fi
echo "every bad input was refused with one line and exit code 2"
