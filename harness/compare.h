// xfbench compare A.csv B.csv [--fail-below R]: per-case speed of run B
// relative to run A (two commits, machines or compilers), with geometric
// means per stage and variant, as llama.cpp's compare tool reports its op
// benchmarks. Exit 1 if a geometric mean is below R, 2 on bad input.
#ifndef XF_COMPARE_H
#define XF_COMPARE_H

int xf_compare_main(int argc, char **argv);

#endif
