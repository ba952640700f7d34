#include "app.h"

int main(int argc, char **argv) { return xf_main(argc, argv); }
