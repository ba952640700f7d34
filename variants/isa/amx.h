// AMX (Intel's tile matrix unit, Sapphire Rapids and later): whether its
// bf16 dot product may run here, and its throughput, the roof of the rows a
// peer computes on it (oneDNN from avx512_core_amx). No xfbench kernel uses
// AMX; the roof exists so that those rows are held against what their
// arithmetic can do, not against vdpbf16ps (a oneDNN bf16 GEMM on AMX read
// 700-1050% of that roof on a Xeon).
#ifndef XF_AMX_H
#define XF_AMX_H

// NULL if AMX-BF16 may run here: the CPU reports AMX-TILE and AMX-BF16,
// Linux grants this process the tile state (arch_prctl), and
// XFBENCH_MAX_ISA is unset (every cap imitates a CPU without AMX). Else why
// not.
const char *xf_amx_unavailable(void);

// Sustained bf16 GFLOP/s of tdpbf16ps on the calling thread, measured for
// about `seconds`; 0 if AMX is unavailable.
double xf_amx_bf16_gflops(double seconds);

#endif
