#!/bin/sh
# Fresh random nn.Transformer models of shapes no committed file has, made
# by PyTorch now, must match `xfbench forward --weights` (every family
# given that can run here; the others are named as unavailable). Skips
# (77) without PyTorch in the project's venv. The seed is
# printed: rerun with XF_FRESH_SEED=N to reproduce. The three models are
# stored in F32, BF16 and F16 (torch_golden --dtype: weights and inputs
# rounded, PyTorch's outputs from the rounded values), so the loader's
# widening of 16-bit floats meets PyTorch's own conversion each run.
# Usage: torch_fresh.sh path/to/xfbench source_root family...
set -u
bin=$1
top=$2
shift 2
py=$top/.venv/bin/python
if ! "$py" -c "import torch, safetensors" 2>/dev/null; then
    echo "SKIP: no PyTorch in .venv (run scripts/setup torch)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seed=${XF_FRESH_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
echo "seed $seed"
failures=0
for i in 1 2 3; do
    dtype=$(echo f32 bf16 f16 | cut -d' ' -f"$i")
    # Shapes drawn from the seed: heads 1-8, dk 2-16, layers 1-3 (PyTorch 1.13
    # cannot run an encoder of 0 layers), lengths 1-24.
    set -- $("$py" -c "
import random
r = random.Random($seed * 10 + $i)
h = r.randint(1, 8); dk = r.randint(2, 16)
print(h * dk, h, r.randint(1, 6) * h * dk // 2 + 1, r.randint(1, 3), r.randint(1, 3),
      r.randint(1, 3), r.randint(1, 24), r.randint(1, 24))") "$@"
    d=$1 h=$2 ff=$3 enc=$4 dec=$5 b=$6 s=$7 t=$8
    shift 8
    "$py" "$top/scripts/py/torch_golden.py" --out "$tmp/m$i.safetensors" --d-model "$d" --heads "$h" \
        --d-ff "$ff" --enc-layers "$enc" --dec-layers "$dec" --batch "$b" --src-len "$s" --tgt-len "$t" \
        --seed "$((seed + i))" --dtype "$dtype" || { failures=$((failures + 1)); continue; }
    for fam in "$@"; do
        out=$("$bin" forward --weights "$tmp/m$i.safetensors" --variant "$fam" --min-time 0 --min-reps 1 2>&1)
        rc=$?
        echo "d_model=$d heads=$h d_ff=$ff layers=$enc+$dec batch=$b src=$s tgt=$t $dtype $fam: exit $rc"
        # 77: the family cannot run on this CPU (or under XFBENCH_MAX_ISA);
        # said, not counted as agreeing.
        if [ $rc -eq 77 ]; then printf '%s\n' "$out" | grep -m1 'unavailable'; continue; fi
        printf '%s\n' "$out" | grep -E '^(PASS|FAIL)'
        if [ $rc -ne 0 ] || [ "$(printf '%s\n' "$out" | grep -c '^PASS')" -ne 4 ]; then failures=$((failures + 1)); fi
    done
done
[ $failures -eq 0 ] || { echo "$failures fresh PyTorch models disagreed (seed $seed)"; exit 1; }
echo "3 fresh PyTorch models agree"
