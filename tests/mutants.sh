#!/bin/sh
# Proves the checker bites: every deliberately broken variant must FAIL
# (exit 1, a FAIL line naming it) on a case where its bug shows, while the
# naive variant passes the very same case (so the failure is the mutant's).
# Usage: mutants.sh path/to/xfbench-mutants
set -u
bin=$1
failures=0

. "$(dirname "$0")/expect.sh"

expect_pass() {
    if ! "$bin" check "$@" >/dev/null 2>&1; then
        echo "CONTROL FAILED: naive does not pass: xfbench-mutants check $*"
        failures=$((failures + 1))
    fi
}

pair() { # pair VARIANT GREP ARGS...: the mutant fails, naive passes
    v=$1; g=$2; shift 2
    expect_fail "$g" --variant "$v" "$@"
    expect_pass --variant naive "$@"
}

att="--stage attention --batch 2 --heads 3 --dk 24 --seq 17"
pair mutant-scale-dropped "error" $att --pad none
pair mutant-mask-shifted "error" $att --pad some
pair mutant-causal-off "error" $att --pad none --causal 1
pair mutant-heads-swapped "error" $att --pad none
pair mutant-mask-shifted "error" --stage attention --batch 1 --heads 1 --dk 8 --seq-q 3 --seq-k 113 --pad all-but-one
pair mutant-keras-eps "error" --stage add_layernorm --batch 2 --heads 8 --dk 64 --seq 5
pair mutant-rms-eps-dropped "error" --stage rmsnorm --batch 1 --heads 2 --dk 8 --seq 3
pair mutant-write-past-end "guard zone" --stage linear --batch 1 --seq 3 --n 5 --k 7
pair mutant-bias-dropped "error" --stage linear --batch 1 --seq 3 --n 5 --k 7
pair mutant-last-row-skipped "nan" --stage linear --batch 1 --seq 3 --n 5 --k 7
pair mutant-softmax-mask-ignored "error" --stage softmax --batch 2 --heads 2 --dk 8 --seq 9 --pad some
pair mutant-embed-unscaled "error" --stage embed --batch 2 --heads 2 --dk 8 --seq 9
pair mutant-lm-head-scaled "error" --stage lm_head --batch 2 --heads 2 --dk 8 --seq 9 --vocab 37
pair mutant-bf16-truncated "error" --stage linear --batch 1 --seq 9 --n 33 --k 64 --dtype bf16
pair mutant-bf16-accumulator "error" --stage linear --batch 1 --seq 3 --n 5 --k 2048 --dtype bf16
pair mutant-bf16-softmax-truncated "error" --stage softmax --batch 2 --heads 2 --dk 8 --seq 33 --dtype bf16
pair mutant-bf16-add-layernorm-truncated "error" --stage add_layernorm --batch 2 --heads 8 --dk 8 --seq 5 --dtype bf16
pair mutant-bf16-embed-truncated "error" --stage embed --batch 2 --heads 2 --dk 16 --seq 9 --dtype bf16
# Where AVX2 runs: the halves of each pair exchanged in avx2bf16's few-row
# panels, at 1 row and at 8 (two passes), n ragged.
if "$bin" list | grep -q "^linear *mutant-bf16-pair-halves-swapped *ok"; then
    pair mutant-bf16-pair-halves-swapped "error" --stage linear --batch 1 --seq 1 --n 33 --k 64 --dtype bf16
    pair mutant-bf16-pair-halves-swapped "error" --stage linear --batch 1 --seq 8 --n 33 --k 64 --dtype bf16
fi
# Where AVX512_BF16 runs: a pair of k dropped from avx512bf16's panels, a
# pair of dk from its attention's packed keys.
if "$bin" list | grep -q "^linear *mutant-bf16-dropped-pair *ok"; then
    pair mutant-bf16-dropped-pair "error" --stage linear --batch 1 --seq 9 --n 70 --k 64 --dtype bf16
    pair mutant-bf16-dropped-pair "error" --stage linear --batch 1 --seq 2 --n 70 --k 64 --dtype bf16
    pair mutant-bf16-attention-dropped-pair "error" $att --pad some --causal 1 --dtype bf16
fi
# Where AMX runs: the halves of each pair of k exchanged in the amx
# linear's tiles, with k a multiple of 32 (x read in place) and not (x
# copied, zero-padded), and rows a ragged block; of dk in its attention's
# packed keys.
if "$bin" list | grep -q "^linear *mutant-amx-pairs-swapped *ok"; then
    pair mutant-amx-pairs-swapped "error" --stage linear --batch 1 --seq 40 --n 70 --k 64 --dtype bf16
    pair mutant-amx-pairs-swapped "error" --stage linear --batch 1 --seq 9 --n 33 --k 45 --dtype bf16
    pair mutant-amx-attention-pairs-swapped "error" $att --pad some --causal 1 --dtype bf16
    # the last thread's share skipped: caught on 2 threads (rows split,
    # then panels split), right on one, so the 2-thread tests do run two
    pair mutant-amx-last-share-dropped "nan" --stage linear --batch 1 --seq 130 --n 70 --k 64 --dtype bf16 --threads 2
    pair mutant-amx-last-share-dropped "nan" --stage linear --batch 1 --seq 40 --n 300 --k 45 --dtype bf16 --threads 2
    expect_pass --variant mutant-amx-last-share-dropped --stage linear --batch 1 --seq 130 --n 70 --k 64 --dtype bf16
fi

# Compound stages built on a broken primitive fail their end-to-end check:
# the error-model bound bites through whole layers and the whole pass.
small="--batch 2 --heads 2 --dk 8 --seq-q 7 --seq-k 9 --layers 2 --vocab 20"
expect_fail "naive" --stage encoder_layer --variant naive --use attention=mutant-scale-dropped $small
expect_fail "naive" --stage decoder_layer --variant naive --use attention=mutant-causal-off $small --pad none
# (whole-sequence layers pass no padding mask: they attend over the real
# tokens only; a decode step's cross-attention reads the padded memory with it)
expect_fail "naive" --stage decode_layer --variant naive --use attention=mutant-mask-shifted $small --depth 5 --pad some
expect_fail "naive" --stage ffn --variant naive --use linear=mutant-bias-dropped $small
expect_fail "naive" --stage forward --variant naive --use add_layernorm=mutant-keras-eps $small
expect_fail "naive" --stage forward --variant naive --use embed=mutant-embed-unscaled $small
expect_fail "naive" --stage forward --variant naive --use attention=mutant-heads-swapped $small
expect_pass --stage encoder_layer,decoder_layer,ffn,forward --variant naive $small --pad some
# bf16 compositions: the error model with every stored rounding still
# catches a bf16 accumulator (at d_ff 2048), and the planted bugs below. (A
# truncating store moves each value by at most 2 u_bf16, inside the
# model's 8 sigma: the rounding mode is checked per primitive, above.)
expect_fail "naive" --stage ffn --variant naive --use linear=mutant-bf16-accumulator --batch 1 --heads 8 --dk 64 --seq 3 --dtype bf16
expect_pass --stage ffn --variant naive --batch 1 --heads 8 --dk 64 --seq 3 --dtype bf16

# Bugs planted in the decode composition (--plant, tests/mutants_main.c):
# the decode step and generation, checked against the full pass, catch
# each in the families named (not the mutant family: its own broken
# kernels, one writing out of bounds, would abort a sanitized build); the
# same cases pass unplanted.
fams=naive,omp,avx2
dec="--batch 2 --heads 2 --dk 8 --seq-k 9 --depth 5 --steps 6 --layers 2 --vocab 20 --pad some"
for bug in cache-short append-late cross-reads-self; do
    for stage in decode_layer generate; do
        # the bf16 compositions (act.h) are the same code with bf16 buffers
        for dt in "f32 $fams" "bf16 naive,avx2bf16"; do
            set -- $dt
            out=$("$bin" --plant $bug check --stage $stage --variant $2 --dtype $1 $dec 2>&1); rc=$?
            passed=$(printf '%s\n' "$out" | grep -c '^PASS')
            failed=$(printf '%s\n' "$out" | grep -c '^FAIL')
            if [ $rc -ne 1 ] || [ "$passed" -ne 0 ] || [ "$failed" -lt 1 ]; then
                echo "NOT CAUGHT (exit $rc, $passed passed, $failed failed): xfbench-mutants --plant $bug check --stage $stage --variant $2 --dtype $1 $dec"
                failures=$((failures + 1))
            else
                echo "caught: --plant $bug --stage $stage --dtype $1 in all $failed families that ran"
            fi
        done
    done
done
expect_pass --stage decode_layer,generate --variant naive,omp $dec
expect_pass --stage decode_layer,generate --variant naive,avx2bf16 $dec --dtype bf16

# Padded batches: outputs at padded rows must be zero (the variants skip
# those rows); left unwritten, the whole-sequence stages fail in every family.
for stage in encoder_layer decoder_layer forward generate; do
    for dt in "f32 $fams" "bf16 naive,avx2bf16"; do
        set -- $dt
        out=$("$bin" --plant pad-rows-left check --stage $stage --variant $2 --dtype $1 $small --steps 7 --pad some 2>&1); rc=$?
        passed=$(printf '%s\n' "$out" | grep -c '^PASS')
        if [ $rc -ne 1 ] || [ "$passed" -ne 0 ]; then
            echo "NOT CAUGHT (exit $rc, $passed passed): xfbench-mutants --plant pad-rows-left check --stage $stage --dtype $1"
            failures=$((failures + 1))
        else
            echo "caught: --plant pad-rows-left --stage $stage --dtype $1"
        fi
    done
done

# Over the whole quick grid every mutant the binary lists (a new one
# included, without being named here) must be caught somewhere, and the
# grid must never crash it. On 2 threads: a threaded family's mutant may
# need them (mutant-amx-last-share-dropped); the others run as on one.
mutants=$("$bin" list | awk '$2 ~ /^mutant-/ {print $2}' | sort -u)
[ "$(printf '%s\n' "$mutants" | grep -c .)" -ge 11 ] || { echo "the mutant list is short: $mutants"; exit 1; }
for v in $mutants; do
    # A mutant of another dtype than f32 says so in the list (dtype=bf16).
    dtype=$("$bin" list | awk -v v="$v" '$2 == v && /dtype=bf16/ {print "bf16"; exit}')
    out=$("$bin" check --variant "$v" --grid quick --dtype "${dtype:-f32}" --threads 2 2>&1); rc=$?
    if [ $rc -eq 77 ]; then # a mutant of kernels this CPU cannot run (mutant-bf16-dropped-pair: AVX512_BF16)
        echo "quick grid: $v cannot run here, skipped: $(printf '%s\n' "$out" | grep -m1 '^SKIP' | sed 's/.*unavailable: //')"
        continue
    fi
    caught=$(printf '%s\n' "$out" | grep -c '^FAIL')
    total=$(printf '%s\n' "$out" | grep -c '^\(PASS\|FAIL\)')
    echo "quick grid: $v caught in $caught of $total cases"
    if [ $rc -ne 1 ] || [ "$caught" -eq 0 ]; then failures=$((failures + 1)); fi
done

if [ $failures -ne 0 ]; then
    echo "$failures mutation checks went wrong"
    exit 1
fi
echo "every mutant was caught"
