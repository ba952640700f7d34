#!/bin/sh
# xfbench compare on two small CSVs with a known answer (tests/compare):
# linear avx512 2x faster in B (A's three rows: median 1000 ns vs 500),
# naive unchanged, attention 0.8x and 1.6x (geometric mean 1.131); the
# failed row of A is left out and counted; --fail-below gates on a case's
# or a geometric mean's interval (CSVs from before samples_ns: each row's
# median is one sample); bad input gets one line and exit 2. The
# statistics on synthetic samples: compare_stats.sh.
# Usage: compare.sh path/to/xfbench path/to/tests/compare
set -u
bin=$1
dir=$2
fail() { echo "FAILED: $*"; exit 1; }
out=$("$bin" compare "$dir/a.csv" "$dir/b.csv") || fail "compare exited $?: $out"
for want in 'linear avx512 +2.0000x \[1.8000, 2.2000\] over 1 case' 'linear naive +1.0000x \[1.0000, 1.0000\] over 1 case' \
    'attention avx512-flash +1.1314x \[1.1314, 1.1314\] over 2 case' '4 case\(s\) in common: 0 faster, 0 slower, 4 same within noise; 0 only in A, 1 only in B' \
    'not compared\): 1 in A, 0 in B'; do
    printf '%s\n' "$out" | grep -Eq "$want" || fail "missing '$want' in: $out"
done
"$bin" compare "$dir/a.csv" "$dir/b.csv" --fail-below 0.75 >/dev/null || fail "--fail-below 0.75 failed"
"$bin" compare "$dir/a.csv" "$dir/b.csv" --fail-below 0.85 >/dev/null
[ $? -eq 1 ] || fail "--fail-below 0.85 did not exit 1 (one attention case is 0.800x, its geometric mean 1.131x)"
"$bin" compare "$dir/a.csv" "$dir/b.csv" --fail-below 1.05 >/dev/null
[ $? -eq 1 ] || fail "--fail-below 1.05 did not exit 1 (naive is 1.000x)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'a,b\n1,2\n' >"$tmp/other.csv"
head -1 "$dir/a.csv" >"$tmp/header_only.csv"
: >"$tmp/empty.csv"
for args in "$dir/a.csv" "$dir/a.csv $tmp/missing.csv" "$dir/a.csv $tmp/other.csv" "$dir/a.csv $tmp/empty.csv" \
    "$dir/a.csv $tmp/header_only.csv" "$dir/a.csv $dir/b.csv --fail-below x" "$dir/a.csv $dir/b.csv --bogus" "$dir/a.csv $dir/b.csv --seed -1"; do
    err=$("$bin" compare $args 2>&1 >/dev/null)
    rc=$?
    [ $rc -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "compare $args: exit $rc, '$err'"
done
echo "compare: known speedups, geometric means, gate and errors as expected"
