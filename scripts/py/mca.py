"""What llvm-mca predicts for the GEMM micro-kernels' inner loops on cores
we may not have (Sapphire Rapids, Skylake-X, Zen 3), and for the fused
attention's exp loop on Intel's models (ATTENTION below): each kernel's
source compiled to assembly with its family's flags, the innermost loop that holds
the most multiply-adds cut out of the named function, and llvm-mca run on
it per CPU model. Prints cycles per loop trip, the multiply-adds in it,
and the share of the FMA roof that would give (two FMA ports on every
model here: p0 and p5 for zmm on Intel, two FMA pipes on Zen 3), with the
resource llvm-mca names as the bottleneck.

What it cannot see: llvm-mca assumes every load hits the L1, so a loop it
predicts at 100% and that measures at 70% is bound by the memory behind
the L1; and llvm 14's znver3 model charges a 256-bit FMA to both FMA pipes,
half the rate Zen 3 runs (docs/performance.md, "Blocking from what a core
owns").

Standard library only. Usage: mca.py TOP BUILD_DIR [MCA]"""
import os
import re
import subprocess
import sys

# (family, source, flags, function, include dir, CPU models)
KERNELS = [
    ("avx2", "variants/simd/ukernels.c", ["-mavx2", "-mfma"], "xf_avx2_gemm_ukernel_lda", "variants/avx2",
     ["znver3", "skylake-avx512", "sapphirerapids"]),
    ("avx512", "variants/simd/ukernels.c", ["-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512dq", "-mfma"],
     "xf_avx512_gemm_ukernel_lda", "variants/avx512", ["skylake-avx512", "sapphirerapids"]),
    ("avx512bf16", "variants/avx512bf16/linear.c",
     ["-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512dq", "-mavx512bf16", "-mfma"], "tile6",
     "variants/avx512bf16", ["sapphirerapids"]),
    # The FMA bf16 families' few-row pair tiles (decoding): 8 rows on zmm,
    # 6 on ymm, B widened in registers beside the FMAs.
    ("avx512bf16w", "variants/bf16fma/linear.c",
     ["-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512dq", "-mfma", "-DXF_BF16_FAMILY=avx512bf16w"], "pair_tile8",
     "variants/avx512", ["skylake-avx512", "sapphirerapids"]),
    ("avx2bf16", "variants/bf16fma/linear.c", ["-mavx2", "-mfma", "-DXF_BF16_FAMILY=avx2bf16"], "pair_tile6",
     "variants/avx2", ["znver3", "skylake-avx512", "sapphirerapids"]),
]
ARITH = re.compile(r"^\s*(vfmadd\w+|vdpbf16ps)\b")
LABEL = re.compile(r"^(\.L\w+):")
JUMP = re.compile(r"^\s*j\w+\s+(\.L\w+)")


def die(message):
    print(f"mca.py: {message}", file=sys.stderr)
    sys.exit(2)


def function_lines(asm, name):
    lines = asm.splitlines()
    try:
        start = lines.index(f"{name}:")
    except ValueError:
        die(f"no function {name} in the assembly (inlined, or renamed?)")
    end = next((i for i in range(start, len(lines)) if lines[i].strip().startswith(f".size\t{name},")), len(lines))
    return lines[start:end]


def innermost_loops(lines):
    """The bodies of the innermost loops (a label to a jump back to it,
    holding no other such loop), instructions only."""
    labels = {}
    loops = []
    for i, line in enumerate(lines):
        m = LABEL.match(line)
        if m:
            labels[m.group(1)] = i
            continue
        m = JUMP.match(line)
        if m and m.group(1) in labels:
            loops.append((labels[m.group(1)], i))
    for start, end in loops:
        if any((s, e) != (start, end) and start <= s and e <= end for s, e in loops):
            continue
        yield [l for l in lines[start + 1:end + 1]
               if l.strip() and not l.strip().startswith(".") and not LABEL.match(l)]


def hot_loop(lines):
    """The innermost loop with the most multiply-adds: an outer span can
    hold more of them (the bf16 tile's loop and its odd-k step, under the
    jump that closes the function's last branch) and is no loop the core
    repeats."""
    best = None
    for body in innermost_loops(lines):
        arith = sum(1 for l in body if ARITH.match(l))
        if arith and (best is None or arith > best[0]):
            best = (arith, body)
    if best is None:
        die("no loop with multiply-adds found")
    return best


def run_mca(mca, cpu, body):
    out = subprocess.run([mca, f"-mcpu={cpu}", "-iterations=400", "-bottleneck-analysis"],
                         input="\n".join(body) + "\n", capture_output=True, text=True)
    if out.returncode:
        return None, out.stderr.strip().splitlines()[0] if out.stderr.strip() else "llvm-mca failed"
    total = int(re.search(r"Total Cycles:\s+(\d+)", out.stdout).group(1))
    iters = int(re.search(r"Iterations:\s+(\d+)", out.stdout).group(1))
    limit = re.search(r"Limited by ([^\n]+)", out.stdout)
    bound = limit.group(1).strip() if limit else re.search(r"Block RThroughput:\s+([\d.]+)", out.stdout).group(0)
    return total / iters, bound


def main():
    if len(sys.argv) < 3:
        die("usage: mca.py TOP BUILD_DIR [MCA]")
    top, build = sys.argv[1], sys.argv[2]
    mca = sys.argv[3] if len(sys.argv) > 3 else "llvm-mca"
    cc = os.environ.get("CC", "cc")
    print(f"{'kernel':<12} {'cpu':<15} {'cycles/trip':>11} {'FMAs/trip':>9} {'ideal':>6} {'of roof':>8}  bottleneck")
    for family, src, flags, fn, inc, cpus in KERNELS:
        cmd = [cc, "-O3", "-std=c17", *flags, f"-I{os.path.join(top, inc)}", f"-I{build}", "-S", "-o", "-",
               os.path.join(top, src)]
        asm = subprocess.run(cmd, capture_output=True, text=True)
        if asm.returncode:
            print(f"{family:<12} (not compiled: {asm.stderr.strip().splitlines()[-1]})")
            continue
        arith, body = hot_loop(function_lines(asm.stdout, fn))
        ideal = arith / 2.0  # two FMA (or vdpbf16ps) issues a cycle
        for cpu in cpus:
            cycles, bound = run_mca(mca, cpu, body)
            if cycles is None:
                print(f"{family:<12} {cpu:<15} ({bound})")
                continue
            print(f"{family:<12} {cpu:<15} {cycles:11.2f} {arith:9d} {ideal:6.1f} {100 * ideal / cycles:7.1f}%  {bound}")
    attention(top, build, mca, cc)


# The fused attention's softmax on Intel's models: its exp pass (the
# innermost loop of flash_block holding vscalefps: one vector of 16 scores
# a trip) against the FMAs the two micro-kernels spend on those scores,
# 2 dk per score (Q K^T and P V) at two FMAs a cycle. On Intel every
# 512-bit instruction of the exp issues on the FMA ports (p0, p5), so the
# share of the FMA roof the flash kernel can reach, with its micro-kernels
# at the roof, is fma / (fma + exp). The row max pass is left out:
# llvm-mca would run one row's max chain alone (latency-bound, 4 cycles a
# vector), where the core overlaps the panel's rows' independent chains.
ATTENTION = ("avx512", "variants/simd/flash.c", ["-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512dq", "-mfma"],
             "xf_avx512_flash_block", "variants/avx512", ["skylake-avx512", "sapphirerapids"], 16, 64)


def exp_loop(lines):
    """The innermost loop holding vscalefps (the exp's last step)."""
    for body in innermost_loops(lines):
        if any(l.strip().startswith("vscalefps") for l in body):
            return body
    die("no exp loop (vscalefps) in the fused attention")


def attention(top, build, mca, cc):
    family, src, flags, fn, inc, cpus, width, dk = ATTENTION
    cmd = [cc, "-O3", "-std=c17", *flags, f"-I{os.path.join(top, inc)}", f"-I{build}", "-S", "-o", "-",
           os.path.join(top, src)]
    asm = subprocess.run(cmd, capture_output=True, text=True)
    if asm.returncode:
        die(f"{src} not compiled: {asm.stderr.strip().splitlines()[-1]}")
    body = exp_loop(function_lines(asm.stdout, fn))
    # per vector of `width` scores: 2 dk FMAs of `width` lanes (a score's dk
    # products in Q K^T and its dk in P V), two a cycle
    fma = 2 * dk / 2.0
    print()
    print(f"{'attention':<12} {'cpu':<15} {'exp/vector':>11} {'FMA cycles':>10} {'ceiling':>8}  "
          f"({family}-flash, dk {dk}: per {width} scores)")
    for cpu in cpus:
        cycles, bound = run_mca(mca, cpu, body)
        if cycles is None:
            die(f"llvm-mca on the exp loop for {cpu}: {bound}")
        print(f"{'attention':<12} {cpu:<15} {cycles:11.2f} {fma:10.1f} {100 * fma / (fma + cycles):7.1f}%")


if __name__ == "__main__":
    main()
