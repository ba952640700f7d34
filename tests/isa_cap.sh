#!/bin/sh
# XFBENCH_MAX_ISA caps the SIMD families: a capped family is listed as
# unavailable and its checks skip (exit 77) instead of running; the AVX2
# family runs and passes with AVX-512 capped off; a bad value is refused.
# Usage: isa_cap.sh path/to/xfbench
set -u
bin=$1
fail() { echo "FAILED: $*"; exit 1; }
if ! "$bin" list | grep -q '^linear *avx2 *ok'; then
    echo "SKIP: the avx2 family cannot run on this CPU or build"
    exit 77
fi
XFBENCH_MAX_ISA=avx2 "$bin" list | grep -q '^linear *avx512 *n/a.*capped by XFBENCH_MAX_ISA' ||
    fail "avx512 not listed as capped under XFBENCH_MAX_ISA=avx2"
XFBENCH_MAX_ISA=avx2 "$bin" check --stage linear --variant avx512 --seq 3 >/dev/null
[ $? -eq 77 ] || fail "a capped family's check did not skip with 77"
XFBENCH_MAX_ISA=avx2 "$bin" check --variant avx2 --grid quick >/dev/null ||
    fail "the avx2 family fails with AVX-512 capped off"
XFBENCH_MAX_ISA=scalar "$bin" list | grep -q '^linear *avx2 *n/a' || fail "avx2 not capped by scalar"
if "$bin" list | grep -q '^linear *omp *ok'; then # omp runs the avx2 kernels when capped
    XFBENCH_MAX_ISA=avx2 "$bin" check --variant omp --grid quick --threads 2 >/dev/null ||
        fail "the omp family fails on the avx2 kernels"
    XFBENCH_MAX_ISA=scalar "$bin" list | grep -q '^linear *omp *n/a' || fail "omp not unavailable under scalar"
fi
err=$(XFBENCH_MAX_ISA=sse9 "$bin" check --stage linear 2>&1 >/dev/null)
[ $? -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "bad XFBENCH_MAX_ISA not refused: $err"
echo "XFBENCH_MAX_ISA caps, skips and refuses as documented"
