#!/bin/sh
# forward --variant best: the first run tunes every call's shape (checked,
# timed, printed), then times the whole pass of each family and of the
# per-call composition and keeps the fastest (so best never loses to a
# family in context), and caches the choices; the second reuses them
# without timing anything; a cache from another build or machine is
# started afresh.
# Usage: best_of.sh path/to/xfbench
set -u
bin=$1
fail() { echo "FAILED: $*"; exit 1; }
XDG_CACHE_HOME=$(mktemp -d)
export XDG_CACHE_HOME
trap 'rm -rf "$XDG_CACHE_HOME"' EXIT
run() { "$bin" forward --variant best --layers 1 --seq 9 --heads 2 --dk 16 --min-time 0 --min-reps 1; }
out=$(run) || fail "first run: $out"
cache=$XDG_CACHE_HOME/xfbench/best.txt
[ -s "$cache" ] || fail "no cache written at $cache"
tuned=$(printf '%s\n' "$out" | grep -c '^best: .*(ms:')
[ "$tuned" -ge 4 ] || fail "expected >= 4 tuned shapes (embed, linear, attention, add_layernorm), got $tuned"
passes=$(printf '%s\n' "$out" | grep '^best: forward .*(whole passes, medians of 3 interleaved rounds, ms:') || fail "the whole passes were not timed: $out"
printf '%s\n' "$passes" | grep -q " per-call [0-9]" || fail "whole pass of the per-call composition missing: $passes"
printf '%s\n' "$out" | grep -q '^forward  *best .* ok (err/bound' || fail "best forward not checked ok: $out"
out=$(run) || fail "second run: $out"
printf '%s\n' "$out" | grep -q '(ms:' && fail "the second run tuned again instead of using the cache"
[ "$(wc -l < "$cache")" -eq $((tuned + 2)) ] || fail "the cache holds not every choice (header, $tuned calls, the pass): $(cat "$cache")"
# The calls' choices are shown when the pass composes them (per-call wins).
printf '%s\n' "$out" | grep -q '^best: forward .*cached in' || fail "second run did not show the cached whole-pass choice"
sed -i '1s/^build /build other-commit /' "$cache"
out=$(run) || fail "third run: $out"
[ "$(printf '%s\n' "$out" | grep -c 'ms:')" -eq $((tuned + 1)) ] || fail "a stale cache was reused"
head -n 1 "$cache" | grep -q other-commit && fail "the stale cache was not rewritten"
echo "best-of: $tuned shapes and the whole pass tuned, cached, reused, and retuned after a build change"
