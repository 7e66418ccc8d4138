/* Fast field functions of strings and bytes: every cardinality and tag
 * size, 12 functions from PBDYN_FAST_STRING_FUNCS (internal/fast.h). Their
 * cores are in internal/fast_string.h, inlined by the switch decoder too. */
#include "internal/fast_string.h"

PBDYN_FAST_STRING_FUNCS(PBDYN_FAST_DEFINE_STRING)
