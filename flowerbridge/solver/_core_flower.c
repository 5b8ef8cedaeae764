/* The search core (_core.c) compiled for Flower Bridge: 3 suits x 10 ranks x 2 copies. */
#define GEO_SPECIAL 1
#define GEO_S 3
#define GEO_R 10
#define GEO_C 2
#define GEO_NAME flower
#include "_core.c"
