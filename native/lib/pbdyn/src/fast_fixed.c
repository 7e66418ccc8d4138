/* Fast field functions of the fixed-width kinds (fixed32/sfixed32/float,
 * fixed64/sfixed64/double): every cardinality and tag size, 16 functions
 * from PBDYN_FAST_FIXED_FUNCS (internal/fast.h). Their cores are in
 * internal/fast_scalar.h and fast_packed.h, shared with the varint kinds
 * and inlined by the switch decoder too. */
#include "internal/fast_packed.h"

PBDYN_FAST_FIXED_FUNCS(PBDYN_FAST_DEFINE_SCALAR)
