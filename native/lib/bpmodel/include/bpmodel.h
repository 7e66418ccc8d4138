/* bpmodel: trace-driven models of indirect-branch prediction (source `model`).
 *
 * Input: a sequence of indirect branches, each a (site, target) pair of
 * 32-bit ids (for the VM: the jump site and the handler's opcode of each
 * dispatch, see VM_TRACE_* in vm.h). Output: how many a predictor would
 * have mispredicted. These are models of two textbook designs, not of any
 * CPU; they let a machine without a PMU (or a user with one CPU) see how the
 * dispatch technique changes predictability, as the seed's table of CPU
 * generations does (S1).
 *
 * Predictors:
 *  - last target (BTB only): a set-associative table, LRU, tagged by the
 *    full site id, holding the last target seen at the site; predicts that
 *    target (a site not in the table counts as a miss). Default 4096 entries,
 *    4 ways: far more than the VM's sites, so only the design limits it.
 *  - ITTAGE-like (Seznec, "A 64-Kbytes ITTAGE indirect branch predictor",
 *    JWAC-2 2011, simplified): the BTB above as base predictor, plus N tagged
 *    tables indexed by the site hashed with a path history of the last L_i
 *    targets (geometric L_i). Entry: tag, target, 2-bit confidence, 1-bit
 *    useful. The longest matching table provides the prediction (the next
 *    longest when the provider's confidence is 0); on a miss entries with
 *    useful == 0 are allocated in up to two longer tables; useful bits are
 *    cleared every 2^18 branches. Defaults: 6 tables of 512 entries, lengths 2, 4, 8, 16,
 *    32, 64 dispatches, 11-bit tags, 8 history bits per dispatch: about
 *    6 * 512 * (11 + 32 + 2 + 1) bits = 17.3 KiB plus the BTB.
 * Both are deterministic: the same trace and configuration give the same
 * counts (tests compare them with a Python transcription).
 */
#ifndef BPMODEL_H
#define BPMODEL_H

/* The version of this header and of the library built with it (semantic versioning).
 * BPM_VERSION is MAJOR * 10000 + MINOR * 100 + PATCH, for use in #if. */
#define BPM_VERSION_MAJOR 0
#define BPM_VERSION_MINOR 1
#define BPM_VERSION_PATCH 0
#define BPM_VERSION (BPM_VERSION_MAJOR * 10000 + BPM_VERSION_MINOR * 100 + BPM_VERSION_PATCH)
#define BPM_VERSION_STRING "0.1.0"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bpm_status {
  BPM_OK = 0,
  BPM_ERR_CONFIG = 1, /* a size not a power of two, too many tables, ... */
  BPM_ERR_NOMEM = 2,
  BPM_ERR_ARGUMENT = 3,
} bpm_status;

typedef enum bpm_kind { BPM_LAST_TARGET = 0, BPM_ITTAGE = 1 } bpm_kind;

#define BPM_MAX_TABLES 12

typedef struct bpm_config {
  bpm_kind kind;
  /* BTB (both kinds): entries and ways, powers of two, ways <= entries */
  uint32_t btb_entries;
  uint32_t btb_ways;
  /* ITTAGE only */
  uint32_t ntables;                    /* 1..BPM_MAX_TABLES */
  uint32_t log_entries;                /* entries per table = 2^log_entries, 1..20 */
  uint32_t tag_bits;                   /* 2..16 */
  uint32_t hist_bits;                  /* history bits per branch, 1..min(log_entries, tag_bits - 1) */
  uint32_t hist_len[BPM_MAX_TABLES];   /* branches of history per table, increasing, 1..511 */
  uint32_t useful_reset_log;           /* clear useful bits every 2^this branches (8..40) */
} bpm_config;

/* Fills `cfg` with the defaults documented above for `kind`. */
void bpm_config_default(bpm_kind kind, bpm_config *cfg);

typedef struct bpm_stats {
  uint64_t branches;
  uint64_t misses;
  uint64_t btb_cold;  /* misses where the BTB had no entry for the site */
  uint64_t provided;  /* ITTAGE: predictions made by a tagged table */
} bpm_stats;

/* Runs the predictor over n branches (sites[i], targets[i]) from a cold
 * state and adds the counts to *stats (zero it first). */
bpm_status bpm_simulate(const bpm_config *cfg, const uint32_t *sites, const uint32_t *targets,
                        size_t n, bpm_stats *stats);

/* The same for VM dispatch records (site in bits 8..23, target in 0..7). */
bpm_status bpm_simulate_vmtrace(const bpm_config *cfg, const uint32_t *records, size_t n,
                                bpm_stats *stats);

/* Short text for a status; never NULL. */
const char *bpm_status_str(bpm_status st);

#ifdef __cplusplus
}
#endif

#endif /* BPMODEL_H */
