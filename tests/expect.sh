# expect_fail WHAT_TO_GREP ARGS...: `$bin check ARGS` must FAIL (exit 1 and
# a FAIL line matching WHAT_TO_GREP); otherwise counts one in $failures.
# Sourced by mutants.sh and emulated.sh, which set bin and failures.
expect_fail() {
    want=$1; shift
    out=$("$bin" check "$@" 2>&1); rc=$?
    if [ $rc -ne 1 ] || ! printf '%s\n' "$out" | grep -q "^FAIL.*$want"; then
        echo "NOT CAUGHT (exit $rc): $(basename "$bin") check $*"
        printf '%s\n' "$out" | tail -3
        failures=$((failures + 1))
        return
    fi
    echo "caught: $* -> $(printf '%s\n' "$out" | grep -m1 '^FAIL' | sed 's/.*\] *//; s/  repro.*//')"
}
