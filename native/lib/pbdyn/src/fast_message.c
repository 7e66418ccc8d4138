/* Fast field functions of sub-messages: every cardinality and tag size, 6
 * functions from PBDYN_FAST_MESSAGE_FUNCS (internal/fast.h). Their cores are
 * in internal/fast_message.h, inlined by the switch decoder too. Groups
 * and maps go to the generic decoder. */
#include "internal/fast_message.h"

PBDYN_FAST_MESSAGE_FUNCS(PBDYN_FAST_DEFINE_MESSAGE)
