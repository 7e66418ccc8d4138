/* Helpers the encoder shares with the dump: map entries in wire order with
 * the last duplicate key winning. */
#ifndef PBDYN_INTERNAL_ENCODE_H
#define PBDYN_INTERNAL_ENCODE_H

#include "internal/msg.h"

/* Indices of the map entries that survive (the last of each key), in
 * arrival order; *n receives their count. malloc'd; NULL if out of memory
 * (and *n = 0 with an empty map). */
uint32_t *pbdyn__map_live_entries(const pbdyn__array *arr, const pbdyn_msgdef *entry, uint32_t *n);

/* The surviving entries of a map sorted by key (numbers by value, strings
 * bytewise), as the text format and the dump print them; *n receives their
 * count. malloc'd; NULL if out of memory. */
const pbdyn_msg **pbdyn__map_sorted_entries(const pbdyn__array *arr, const pbdyn_msgdef *entry,
                                            uint32_t *n);

#endif /* PBDYN_INTERNAL_ENCODE_H */
