/* The last-target table: set-associative, LRU, tagged by the full site id.
 *
 * Prediction for a site is the target it jumped to last time; a site not in
 * the table predicts nothing (a miss). This is all the indirect-branch
 * prediction a CPU without history has (the "BTB-only" predictor of S1).
 */
#include <stdlib.h>

#include "internal/btb.h"
#include "internal/hash.h"

static int bpm_pow2(uint32_t x) { return x && !(x & (x - 1)); }

bpm_status bpm_btb_init(bpm_btb *b, uint32_t entries, uint32_t ways) {
  if (!bpm_pow2(entries) || !bpm_pow2(ways) || ways > entries || entries > (1u << 24))
    return BPM_ERR_CONFIG;
  b->e = calloc(entries, sizeof *b->e);
  if (!b->e) return BPM_ERR_NOMEM;
  b->sets = entries / ways;
  b->ways = ways;
  b->clock = 0;
  return BPM_OK;
}

void bpm_btb_free(bpm_btb *b) {
  free(b->e);
  b->e = NULL;
}

int bpm_btb_access(bpm_btb *b, uint32_t site, uint32_t actual, uint32_t *predicted) {
  bpm_btb_entry *set = &b->e[(size_t)(bpm_mix32(site) & (b->sets - 1)) * b->ways];
  b->clock++;
  bpm_btb_entry *victim = &set[0];
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
