// AMX (Intel's tile matrix unit, Sapphire Rapids and later): whether its
// bf16 dot product may run here, the tile configuration every user of it
// here shares, and its throughput: the roof of the rows computed on it (the
// amx family's linear, variants/amx; oneDNN from avx512_core_amx), so that
// they are held against what their arithmetic can do, not against
// vdpbf16ps (a oneDNN bf16 GEMM on AMX read 700-1050% of that roof on a
// Xeon).
#ifndef XF_AMX_H
#define XF_AMX_H

// NULL if AMX-BF16 may run here: the CPU reports AMX-TILE and AMX-BF16,
// Linux grants this process the tile state (arch_prctl), and
// XFBENCH_MAX_ISA is unset (every cap imitates a CPU without AMX). Else why
// not.
const char *xf_amx_unavailable(void);

// Palette 1 with all eight tiles at their largest, 16 rows x 64 bytes (16
// x 32 bf16 sources, 16 x 16 fp32 accumulators), on the calling thread;
// zeroes every tile. Only where xf_amx_unavailable() is NULL. Release
// (tilerelease) before the thread runs other code for long: a configured
// tile state makes every context switch save 8 KiB more.
void xf_amx_tiles_16x64(void);
void xf_amx_tiles_release(void);

// Sustained bf16 GFLOP/s of tdpbf16ps on the calling thread, measured for
// about `seconds`; 0 if AMX is unavailable.
double xf_amx_bf16_gflops(double seconds);

#endif
