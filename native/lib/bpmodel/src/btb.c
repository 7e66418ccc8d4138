/* The last-target table: set-associative, LRU, tagged by the full site id.
 *
 * Prediction for a site is the target it jumped to last time; a site not in
 * the table predicts nothing (a miss). This is all the indirect-branch
 * prediction a CPU without history has (the "BTB-only" predictor of S1).
 */
#include <stdlib.h>

#include "internal/btb.h"
#include "internal/hash.h"

static int bpmodel__pow2(uint32_t x) { return x && !(x & (x - 1)); }

bpmodel_status bpmodel__btb_init(bpmodel__btb *b, uint32_t entries, uint32_t ways) {
  if (!bpmodel__pow2(entries) || !bpmodel__pow2(ways) || ways > entries || entries > (1u << 24))
    return BPMODEL_ERR_CONFIG;
  b->e = calloc(entries, sizeof *b->e);
  if (!b->e) return BPMODEL_ERR_NOMEM;
  b->sets = entries / ways;
  b->ways = ways;
  b->clock = 0;
  return BPMODEL_OK;
}

void bpmodel__btb_free(bpmodel__btb *b) {
  free(b->e);
  b->e = NULL;
}

int bpmodel__btb_access(bpmodel__btb *b, uint32_t site, uint32_t actual, uint32_t *predicted) {
  bpmodel__btb_entry *set = &b->e[(size_t)(bpmodel__mix32(site) & (b->sets - 1)) * b->ways];
  b->clock++;
  bpmodel__btb_entry *victim = &set[0];
  for (uint32_t w = 0; w < b->ways; w++) {
    if (set[w].stamp && set[w].site == site) {
      *predicted = set[w].target;
      set[w].target = actual;
      set[w].stamp = b->clock;
      return 1;
    }
    /* empty ways have stamp 0, so the first empty one (or the oldest) wins */
    if (set[w].stamp < victim->stamp) victim = &set[w];
  }
  victim->site = site;
  victim->target = actual;
  victim->stamp = b->clock;
  return 0;
}
