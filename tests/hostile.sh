#!/bin/sh
# Every malformed file in tests/hostile is refused by `xfbench forward
# --weights` with exit code 2 and one stderr line containing the words
# tests/hostile/EXPECT pairs it with; nothing on stdout.
# Usage: hostile.sh path/to/xfbench path/to/tests/hostile
set -u
bin=$1
dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tab=$(printf '\t')
failures=0 count=0
while IFS="$tab" read -r file want; do
    count=$((count + 1))
    timeout 20 "$bin" forward --weights "$dir/$file" --min-time 0 --min-reps 1 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || [ -s "$tmp/out" ] || ! grep -qF -- "$want" "$tmp/err"; then
        echo "WRONG (exit $rc): $file: $(head -c 300 "$tmp/err") (wanted: $want)"
        failures=$((failures + 1))
    else
        echo "ok: $file -> $(cat "$tmp/err")"
    fi
done <"$dir/EXPECT"
[ "$count" -gt 0 ] || { echo "no cases in $dir/EXPECT"; exit 1; }
[ $failures -eq 0 ] || { echo "$failures of $count malformed files were not refused properly"; exit 1; }
echo "$count malformed files refused, each with one line and exit code 2"
