#!/bin/sh
# forward --variant best: the first run tunes every call's shape (checked,
# raced, printed), then races the whole pass of each family and of the
# per-call composition and keeps the fastest (so best never loses to a
# family in context), and caches the choices; the second reuses them
# without timing anything; --retune 1 tunes again; a cache from another
# build or machine is started afresh, and a capped run keeps a file of its
# own. generate --variant best keys a
# decode step's self-attention by classes of cache depth (powers of two),
# not by depth, and the padded batch's per-sequence attention by classes of
# length.
# (--tune-time 0.002: what is tested here is the tuning's logic, not its choices.)
# Usage: best_of.sh path/to/xfbench
set -u
bin=$1
fail() { echo "FAILED: $*"; exit 1; }
XDG_CACHE_HOME=$(mktemp -d)
export XDG_CACHE_HOME
trap 'rm -rf "$XDG_CACHE_HOME"' EXIT
run() { "$bin" forward --variant best --layers 1 --seq 9 --heads 2 --dk 16 --min-time 0 --min-reps 1 --tune-time 0.002 "$@"; }
out=$(run) || fail "first run: $out"
# best.txt, or best-<cap>.txt where this suite runs under XFBENCH_MAX_ISA
# (as the avx2-capped and scalar suites do).
cache=$XDG_CACHE_HOME/xfbench/best${XFBENCH_MAX_ISA:+-$XFBENCH_MAX_ISA}.txt
[ -s "$cache" ] || fail "no cache written at $cache: $(ls "$XDG_CACHE_HOME/xfbench")"
tuned=$(printf '%s\n' "$out" | grep -c '^best: .*(medians of 3 interleaved rounds, ms:')
[ "$tuned" -ge 4 ] || fail "expected >= 4 tuned shapes (embed, linear, attention, add_layernorm), got $tuned"
passes=$(printf '%s\n' "$out" | grep '^best: forward .*(whole passes, medians of 3 interleaved rounds, ms:') || fail "the whole passes were not timed: $out"
printf '%s\n' "$passes" | grep -Eq " [*]?per-call ([0-9]|>[0-9.]+x)" || fail "whole pass of the per-call composition missing (neither timed nor dropped as slower): $passes"
printf '%s\n' "$out" | grep -q '^forward  *best .* ok (err/bound' || fail "best forward not checked ok: $out"
out=$(run) || fail "second run: $out"
printf '%s\n' "$out" | grep -q 'ms:' && fail "the second run tuned again instead of using the cache"
[ "$(wc -l < "$cache")" -eq $((tuned + 2)) ] || fail "the cache holds not every choice (header, $tuned calls, the pass): $(cat "$cache")"
# The calls' choices are shown when the pass composes them (per-call wins).
printf '%s\n' "$out" | grep -q '^best: forward .*cached in' || fail "second run did not show the cached whole-pass choice"
out=$(run --retune 1) || fail "--retune run: $out"
[ "$(printf '%s\n' "$out" | grep -c 'ms:')" -eq $((tuned + 1)) ] || fail "--retune 1 did not tune every call and the pass again: $out"
out=$(run) || fail "run after --retune: $out"
printf '%s\n' "$out" | grep -q 'ms:' && fail "the run after --retune tuned again instead of using the new choices"
# A capped run keeps a cache of its own: the machine's is neither rewritten
# nor retuned after it.
before=$(cat "$cache")
other=scalar
[ "${XFBENCH_MAX_ISA:-}" = scalar ] && other=avx2
out=$(XFBENCH_MAX_ISA=$other run) || fail "capped run: $out"
[ -s "$XDG_CACHE_HOME/xfbench/best-$other.txt" ] || fail "the run capped at $other wrote no best-$other.txt: $(ls "$XDG_CACHE_HOME/xfbench")"
[ "$(cat "$cache")" = "$before" ] || fail "the capped run rewrote the machine's cache"
out=$(run) || fail "run after the capped one: $out"
printf '%s\n' "$out" | grep -q 'ms:' && fail "the run after a capped one tuned again"
sed -i '1s/^build /build other-commit /' "$cache"
out=$(run) || fail "third run: $out"
[ "$(printf '%s\n' "$out" | grep -c 'ms:')" -eq $((tuned + 1)) ] || fail "a stale cache was reused"
head -n 1 "$cache" | grep -q other-commit && fail "the stale cache was not rewritten"
# Decoding: 9 steps are cache depths 1..9, keyed as the classes 1, 2, 4, 8, 16.
out=$("$bin" bench --stage generate --batch 3 --seq-k 9 --steps 9 --layers 1 --heads 2 --dk 16 --vocab 50 \
    --variant best --min-time 0 --min-reps 1 --tune-time 0.002 2>&1) || fail "generate best: $out"
printf '%s\n' "$out" | grep -q '^generate  *best .* ok (err/bound' || fail "best generate not checked ok: $out"
depths=$(grep '^attention .* sq=1 ' "$cache" | sed 's/.* sk=\([0-9]*\) .*/\1/' | sort -n | tr '\n' ' ')
[ "$depths" = "1 2 4 8 16 " ] || fail "decode attention keyed by depths '$depths', not the classes 1 2 4 8 16"
# The encoder's per-sequence calls (3 lengths of a padded batch, up to 9)
# are keyed by classes of length too.
lengths=$(grep '^attention ' "$cache" | grep -v ' sq=1 ' | sed 's/.* sq=\([0-9]*\) sk=\([0-9]*\) .*/\1 \2/' | tr '\n' ' ')
[ -n "$lengths" ] || fail "no per-sequence attention call was tuned: $(cat "$cache")"
for n in $lengths; do
    case $n in 1 | 2 | 4 | 8 | 16) ;; *) fail "a per-sequence attention call keyed by length $n, not its class: $lengths" ;; esac
done
echo "best-of: $tuned shapes and the whole pass tuned, cached, reused, retuned on request and after a build change, capped apart;" \
    "decode attention by depth classes ($depths), per-sequence attention by length classes ($lengths)"
