/* Fast field functions of sub-messages: every cardinality and tag size,
 * generated from the lists in internal/fast.h. Groups and maps go to the
 * generic decoder. */
#include "internal/fast.h"

PB_FAST_MESSAGE_FUNCS(PB_FAST_DEFINE_MESSAGE)
