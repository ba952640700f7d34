#!/bin/sh
# XFBENCH_MAX_ISA caps the SIMD families and the peers: a capped family is
# listed as unavailable and its checks skip (exit 77) instead of running,
# and so does every compound stage of it (never run under its name on
# other code); the AVX2 family runs and passes with AVX-512 capped off;
# oneDNN and libxsmm dispatch no wider than the cap; a bad value is
# refused. Runs on any x86-64 CPU: what the CPU itself lacks is checked as
# unavailable rather than capped.
# Usage: isa_cap.sh path/to/xfbench
set -u
bin=$1
fail() { echo "FAILED: $*"; exit 1; }
runs() { "$bin" list | grep -q "^linear *$1 *ok"; }

err=$(XFBENCH_MAX_ISA=sse9 "$bin" check --stage linear 2>&1 >/dev/null)
[ $? -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "bad XFBENCH_MAX_ISA not refused: $err"

# Whatever this CPU lacks or the cap removes: the family and its compound
# stages are unavailable, and a check of them exits 77.
for cap in avx512 avx2 scalar; do
    fams="avx512bf16"
    [ $cap = avx2 ] && fams="avx512bf16 avx512 avx512bf16w"
    [ $cap = scalar ] && fams="avx512bf16 avx512 avx512bf16w avx2 omp avx2bf16"
    for fam in $fams; do
        # bf16-only families: their linear is dtype=bf16, their checks need --dtype bf16
        dt=f32
        "$bin" list | grep -q "^linear *$fam .*dtype=bf16" && dt=bf16
        "$bin" list | grep -q "^linear *$fam " || continue # not built
        XFBENCH_MAX_ISA=$cap "$bin" list | grep -q "^linear *$fam *n/a" || fail "$fam not unavailable under $cap"
        XFBENCH_MAX_ISA=$cap "$bin" list | grep -q "^forward *$fam *n/a" ||
            fail "forward $fam listed as runnable under $cap"
        XFBENCH_MAX_ISA=$cap "$bin" check --stage forward --variant "$fam" --seq 3 --layers 1 --dtype $dt >/dev/null
        [ $? -eq 77 ] || fail "check of forward $fam under $cap did not skip with 77"
        XFBENCH_MAX_ISA=$cap "$bin" bench --stage forward --variant "$fam" --seq 3 --layers 1 --min-time 0 --dtype $dt >/dev/null
        [ $? -eq 77 ] || fail "bench of forward $fam under $cap did not skip with 77"
    done
done
if runs avx512; then
    XFBENCH_MAX_ISA=avx2 "$bin" list | grep -q '^linear *avx512 *n/a.*capped by XFBENCH_MAX_ISA' ||
        fail "avx512 not listed as capped under XFBENCH_MAX_ISA=avx2"
else
    echo "note: this CPU or build has no avx512 family: its cap is not observable here"
fi
if runs avx512bf16; then
    XFBENCH_MAX_ISA=avx512 "$bin" list | grep -q '^linear *avx512bf16 *n/a.*capped by XFBENCH_MAX_ISA' ||
        fail "avx512bf16 not listed as capped under XFBENCH_MAX_ISA=avx512"
    XFBENCH_MAX_ISA=avx512 "$bin" check --variant avx2bf16,avx512bf16w --dtype bf16 --grid quick >/dev/null ||
        fail "the FMA bf16 families fail with AVX512_BF16 capped off"
else
    echo "note: this CPU or build has no AVX512_BF16: the avx512bf16 cap is not observable here"
fi

if ! runs avx2; then
    echo "note: the avx2 family cannot run on this CPU or build: only unavailability checked"
    exit 0
fi
XFBENCH_MAX_ISA=avx2 "$bin" check --variant avx2 --grid quick >/dev/null ||
    fail "the avx2 family fails with AVX-512 capped off"
if runs omp; then # omp runs the avx2 kernels when capped
    XFBENCH_MAX_ISA=avx2 "$bin" check --variant omp --grid quick --threads 2 >/dev/null ||
        fail "the omp family fails on the avx2 kernels"
fi
# The peers follow the cap (their own variables, unless the user set them).
if runs dnnl; then
    XFBENCH_MAX_ISA=avx2 ONEDNN_VERBOSE=1 "$bin" check --stage linear --variant dnnl --seq 3 2>&1 |
        grep -q 'isa:Intel AVX2$' || fail "oneDNN not capped at AVX2"
    XFBENCH_MAX_ISA=scalar ONEDNN_VERBOSE=1 "$bin" check --stage linear --variant dnnl --seq 3 2>&1 |
        grep -q 'isa:Intel SSE4.1$' || fail "oneDNN not capped at SSE4.1 under scalar"
fi
if runs libxsmm; then
    XFBENCH_MAX_ISA=avx2 LIBXSMM_VERBOSE=1 "$bin" check --stage linear --variant libxsmm --seq 3 2>&1 |
        grep -q 'LIBXSMM_TARGET: hsw' || fail "libxsmm not capped at hsw"
    XFBENCH_MAX_ISA=scalar "$bin" list | grep -q '^linear *libxsmm *n/a' || fail "libxsmm runs under scalar"
fi
echo "XFBENCH_MAX_ISA caps, skips and refuses as documented"
