#!/bin/sh
# The PyTorch decoding peer is timed only after its cached loop agrees
# with the tutorial way (scripts/py/torch_decode.py, check_cached): the
# same greedy tokens in fp32, logits within BF16_LOGIT_TOL in bf16. Here,
# on a small model, the check must pass the real loop and refuse the
# planted one (--plant: K/V one position late) in both dtypes. Skips (77)
# without PyTorch in the project's venv.
# Usage: torch_decode_check.sh source_root
set -u
top=$1
py=$top/.venv/bin/python
if ! "$py" -c "import torch" 2>/dev/null; then
    echo "SKIP: no PyTorch in .venv (run scripts/setup torch)"
    exit 77
fi
failures=0
for dtype in f32 bf16; do
    for plant in "" --plant; do
        out=$("$py" "$top/scripts/py/torch_decode.py" --check-only --dtype $dtype $plant --d-model 32 --heads 2 \
            --d-ff 64 --layers 2 --vocab 100 --seq-s 8 --steps 16 2>&1)
        rc=$?
        want=0
        [ -n "$plant" ] && want=1
        echo "$dtype ${plant:-real}: exit $rc (want $want): $(echo "$out" | tail -1)"
        [ "$rc" -eq "$want" ] || failures=$((failures + 1))
    done
done
[ "$failures" -eq 0 ] || { echo "FAIL: $failures case(s)"; exit 1; }
