/* Fast field functions of the varint kinds (bool, int32/uint32/open enum,
 * int64/uint64, sint32, sint64, closed enum): every cardinality and tag
 * size, generated from the lists in internal/fast.h. */
#include "internal/fast.h"

PB_FAST_VARINT_FUNCS(PB_FAST_DEFINE_SCALAR)
