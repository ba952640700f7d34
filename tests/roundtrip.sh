#!/bin/sh
# The safetensors format both ways with the reference implementation (PyPI's
# safetensors): the golden files, written by it, load in xfbench (the golden
# tests), and a file xfbench writes loads in it with the right names,
# dtypes, shapes and values. Skips (77) without the project's venv.
# Usage: roundtrip.sh path/to/xfbench source_root
set -u
bin=$1
top=$2
py=$top/.venv/bin/python
if ! "$py" -c "import safetensors, numpy" 2>/dev/null; then
    echo "SKIP: no .venv with safetensors and numpy (run scripts/setup python)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
golden=$top/tests/golden/d32_h4_2x2_pad.safetensors
"$bin" forward --weights "$golden" --out "$tmp/out.safetensors" --min-time 0 --min-reps 1 >/dev/null || {
    echo "xfbench forward --out failed"; exit 1; }
"$py" - "$tmp/out.safetensors" "$golden" <<'PY'
import sys
import numpy as np
from safetensors import safe_open
from safetensors.numpy import load_file

ours = load_file(sys.argv[1])
ref = load_file(sys.argv[2])
assert sorted(ours) == ["memory", "output"], sorted(ours)
with safe_open(sys.argv[1], "np") as f:
    meta = f.metadata()
assert meta["producer"] == "xfbench" and meta["heads"] == "4", meta
# Rows at padded positions are zero by xfbench's contract (PyTorch leaves a
# value there no one reads): compared are the real rows; padded ones must
# be exactly 0.
masks = {"memory": "src_key_padding_mask", "output": "tgt_key_padding_mask"}
for name, torch_name in (("memory", "torch.memory"), ("output", "torch.output")):
    a, b = ours[name], ref[torch_name]
    assert a.dtype == np.float32 and a.shape == b.shape, (name, a.dtype, a.shape, b.shape)
    pad = ref[masks[name]].astype(bool) if masks[name] in ref else np.zeros(a.shape[:2], bool)
    assert not np.any(a[pad]), (name, "padded rows not zero")
    err = float(np.max(np.abs(a[~pad] - b[~pad])))
    assert err < 1e-4, (name, err)
    print(f"{name}: {a.dtype} {a.shape}, max |xfbench - torch| = {err:.3g} over {int((~pad).sum())} real rows,"
          f" {int(pad.sum())} padded rows zero")
print("xfbench's file loads in safetensors with the right names, shapes and values")
PY
