#!/bin/sh
# Never a speed for a wrong result, whatever found it: a golden file whose
# stored PyTorch output is planted 1% off (one element) must fail
# `forward --weights` with exit 1, print no time, record its row with
# passed=0 and no median, and write --out with the failed verdict in its
# metadata. The file is made here from a committed golden one (Debian's
# /usr/bin/python3, standard library only: meson needs it anyway).
# Usage: torch_mismatch.sh path/to/xfbench golden.safetensors
set -u
bin=$1
golden=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 - "$golden" "$tmp/planted.safetensors" <<'PY' || { echo "could not plant the mismatch"; exit 1; }
import json, struct, sys
raw = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header, data = json.loads(raw[8:8 + n]), bytearray(raw[8 + n:])
t = header["torch.output"]
assert t["dtype"] == "F32", t
at = t["data_offsets"][0]
(x,) = struct.unpack_from("<f", data, at)
struct.pack_into("<f", data, at, x * 1.01 + 0.01)
open(sys.argv[2], "wb").write(raw[:8 + n] + bytes(data))
PY
for v in naive avx2; do
    "$bin" forward --weights "$tmp/planted.safetensors" --variant "$v" --min-time 0 --min-reps 1 \
        --csv "$tmp/rows.csv" --out "$tmp/out.safetensors" >"$tmp/log" 2>&1
    rc=$?
    if grep -q "unavailable" "$tmp/log"; then continue; fi
    [ "$rc" -eq 1 ] || { cat "$tmp/log"; echo "$v: exit $rc for a PyTorch mismatch, want 1"; exit 1; }
    grep -q "FAILED CHECK, not timed: the outputs differ from PyTorch" "$tmp/log" ||
        { cat "$tmp/log"; echo "$v: no 'FAILED CHECK, not timed' line"; exit 1; }
    if grep -qE "^forward +$v .* ok " "$tmp/log"; then cat "$tmp/log"; echo "$v: timed although it failed"; exit 1; fi
    grep -q '"check":"failed: the outputs differ' "$tmp/out.safetensors" ||
        { echo "$v: --out does not carry the failed verdict"; exit 1; }
    echo "$v: mismatch caught, not timed, --out marked failed"
done
/usr/bin/python3 - "$tmp/rows.csv" <<'PY'
import csv, sys
csv.field_size_limit(sys.maxsize)
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert rows, "no rows recorded"
for r in rows:
    assert r["passed"] == "0" and r["median_ns"] == "", (r["variant"], r["passed"], r["median_ns"])
print(f"{len(rows)} row(s) recorded with passed=0 and no time")
PY
