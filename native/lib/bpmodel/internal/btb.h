/* The last-target table (BTB), shared by both predictors. */
#ifndef BPM_INTERNAL_BTB_H
#define BPM_INTERNAL_BTB_H

#include <stdint.h>

#include "bpmodel.h"

typedef struct bpm_btb_entry {
  uint32_t site;
  uint32_t target;
  uint64_t stamp; /* last use, for LRU; 0 = empty */
} bpm_btb_entry;

typedef struct bpm_btb {
  bpm_btb_entry *e;
  uint32_t sets, ways;
  uint64_t clock;
} bpm_btb;

bpm_status bpm_btb_init(bpm_btb *b, uint32_t entries, uint32_t ways);
void bpm_btb_free(bpm_btb *b);
/* Predicted target of `site` (1) or none (0); then records `actual`. */
int bpm_btb_access(bpm_btb *b, uint32_t site, uint32_t actual, uint32_t *predicted);

#endif
