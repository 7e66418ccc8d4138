/* Fast field functions of strings and bytes (proto2 strings and bytes
 * unchecked, proto3 strings UTF-8 validated), copied into the arena or
 * aliased into the input: every cardinality and tag size, generated from the
 * lists in internal/fast.h. */
#include "internal/fast.h"

PB_FAST_STRING_FUNCS(PB_FAST_DEFINE_STRING)
