/* The last-target table (BTB), shared by both predictors. */
#ifndef BPMODEL_INTERNAL_BTB_H
#define BPMODEL_INTERNAL_BTB_H

#include <stdint.h>

#include "bpmodel.h"

typedef struct bpmodel__btb_entry {
  uint32_t site;
  uint32_t target;
  uint64_t stamp; /* last use, for LRU; 0 = empty */
} bpmodel__btb_entry;

typedef struct bpmodel__btb {
  bpmodel__btb_entry *e;
  uint32_t sets, ways;
  uint64_t clock;
} bpmodel__btb;

bpmodel_status bpmodel__btb_init(bpmodel__btb *b, uint32_t entries, uint32_t ways);
void bpmodel__btb_free(bpmodel__btb *b);
/* Predicted target of `site` (1) or none (0); then records `actual`. */
int bpmodel__btb_access(bpmodel__btb *b, uint32_t site, uint32_t actual, uint32_t *predicted);

#endif
