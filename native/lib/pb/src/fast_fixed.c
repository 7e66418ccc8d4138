/* Fast field functions of the fixed-width kinds (fixed32/sfixed32/float,
 * fixed64/sfixed64/double): every cardinality and tag size, generated from
 * the lists in internal/fast.h. */
#include "internal/fast.h"

PB_FAST_FIXED_FUNCS(PB_FAST_DEFINE_SCALAR)
