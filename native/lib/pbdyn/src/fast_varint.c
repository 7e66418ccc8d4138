/* Fast field functions of the varint kinds (bool, int32/uint32/open enum,
 * int64/uint64, sint32, sint64, closed enum): every cardinality and tag
 * size, 48 functions from PBDYN_FAST_VARINT_FUNCS (internal/fast.h). Their
 * cores are in internal/fast_scalar.h and fast_packed.h, shared with the
 * fixed kinds and inlined by the switch decoder too. */
#include "internal/fast_packed.h"

PBDYN_FAST_VARINT_FUNCS(PBDYN_FAST_DEFINE_SCALAR)
