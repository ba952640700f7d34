// compose.c with bf16 activations (act.h).
#define XF_COMPOSE_BF16
#include "compose.c"
