/* The search core (_core.c) compiled for Contract Bridge: 4 suits x 13 ranks x 1 copy. */
#define GEO_SPECIAL 1
#define GEO_S 4
#define GEO_R 13
#define GEO_C 1
#define GEO_NAME bridge
#include "_core.c"
