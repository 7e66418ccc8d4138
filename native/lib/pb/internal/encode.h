/* Helpers the encoder shares with the dump: map entries in wire order with
 * the last duplicate key winning. */
#ifndef PB_INTERNAL_ENCODE_H
#define PB_INTERNAL_ENCODE_H

#include "internal/msg.h"

/* Indices of the map entries that survive (the last of each key), in
 * arrival order; *n receives their count. malloc'd; NULL if out of memory
 * (and *n = 0 with an empty map). */
uint32_t *pb_map_live_entries(const pb_array *arr, const pb_msgdef *entry, uint32_t *n);

/* Order of two map keys (numbers by value, strings bytewise), for sorting. */
int pb_map_key_cmp(const pb_fielddef *kf, const pb_msg *a, const pb_msg *b);

#endif /* PB_INTERNAL_ENCODE_H */
