#ifndef XF_APP_H
#define XF_APP_H

// The whole xfbench program; main() only registers families and calls it.
int xf_main(int argc, char **argv);

#endif
