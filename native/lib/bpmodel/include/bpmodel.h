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
 *
 * NULL pointers (the one rule of every cpulab header): a pointer argument may be NULL only
 * where its comment says so. Every function that returns a bpmodel_status checks
 * the others and returns BPMODEL_ERR_ARGUMENT for a NULL one, leaving *stats unchanged
 * (the arrays may be NULL when n is 0); bpmodel_config_init does not check its cfg (a
 * NULL there is undefined behaviour).
 */
#ifndef BPMODEL_H
#define BPMODEL_H

/* The version of this header and of the library built with it (semantic versioning).
 * BPMODEL_VERSION is MAJOR * 10000 + MINOR * 100 + PATCH, for use in #if. */
#define BPMODEL_VERSION_MAJOR 0
#define BPMODEL_VERSION_MINOR 2
#define BPMODEL_VERSION_PATCH 0
#define BPMODEL_VERSION (BPMODEL_VERSION_MAJOR * 10000 + BPMODEL_VERSION_MINOR * 100 + BPMODEL_VERSION_PATCH)
#define BPMODEL_VERSION_STRING "0.2.0"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bpmodel_status {
  BPMODEL_OK = 0,
  BPMODEL_ERR_CONFIG = 1, /* a size not a power of two, too many tables, ... */
  BPMODEL_ERR_NOMEM = 2,
  BPMODEL_ERR_ARGUMENT = 3,
} bpmodel_status;

typedef enum bpmodel_kind {
  BPMODEL_KIND_LAST_TARGET = 0,
  BPMODEL_KIND_ITTAGE = 1,
} bpmodel_kind;

#define BPMODEL_MAX_TABLES 12

typedef struct bpmodel_config {
  bpmodel_kind kind;
  /* BTB (both kinds): entries and ways, powers of two, ways <= entries */
  uint32_t btb_entries;
  uint32_t btb_ways;
  /* ITTAGE only */
  uint32_t ntables;     /* 1..BPMODEL_MAX_TABLES */
  uint32_t log_entries; /* entries per table = 2^log_entries, 1..20 */
  uint32_t tag_bits;    /* 2..16 */
  uint32_t hist_bits;   /* history bits per branch, 1..min(log_entries, tag_bits - 1) */
  /* branches of history per table, increasing, 1..511 */
  uint32_t hist_len[BPMODEL_MAX_TABLES];
  uint32_t useful_reset_log; /* clear useful bits every 2^this branches (8..40) */
} bpmodel_config;

/* Fills `cfg` with the defaults documented above for `kind`. */
void bpmodel_config_init(bpmodel_kind kind, bpmodel_config *cfg);

typedef struct bpmodel_stats {
  uint64_t branches;
  uint64_t misses;
  uint64_t btb_cold;  /* misses where the BTB had no entry for the site */
  uint64_t provided;  /* ITTAGE: predictions made by a tagged table */
} bpmodel_stats;

/* Runs the predictor over n branches (sites[i], targets[i]) from a cold
 * state and adds the counts to *stats (zero it first). */
bpmodel_status bpmodel_trace_simulate(const bpmodel_config *cfg, const uint32_t *sites,
                                      const uint32_t *targets, size_t n,
                                      bpmodel_stats *stats);

/* The same for VM dispatch records (site in bits 8..23, target in 0..7). */
bpmodel_status bpmodel_vmtrace_simulate(const bpmodel_config *cfg, const uint32_t *records,
                                        size_t n, bpmodel_stats *stats);

/* Short text for a status; never NULL. */
const char *bpmodel_status_str(bpmodel_status st);

#ifdef __cplusplus
}
#endif

#endif /* BPMODEL_H */
