/* bpmodel_test.c — the predictor models on traces whose answer is known by reasoning.
 * Run by ctest; the Python suite (tests/test_bpmodel.py) also compares every count with a
 * plain-Python transcription of both predictors on random and VM traces.
 *
 * - One site, one target: the only miss is the cold one, for both predictors.
 * - One site alternating between two targets: a last-target table misses every branch
 *   (it always predicts the other target); ITTAGE, which hashes in the path history,
 *   learns the period and misses at most 2% once warmed up.
 * - Four sites, each with its own fixed target, fit in the table: four cold misses.
 * - The VM record form (site << 8 | target) counts the same as the two-array form, and
 *   the same trace always gives the same counts.
 * - Bad configurations and arguments give a status, not a crash.
 * One line per failed check, a summary last; exit 1 on any failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpmodel.h"

static int failed, passed;

#define CHECK(cond, ...)                                                                 \
  do {                                                                                   \
    if (cond) {                                                                          \
      passed++;                                                                          \
    } else {                                                                             \
      failed++;                                                                          \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                        \
      printf(__VA_ARGS__);                                                               \
      printf("\n");                                                                      \
    }                                                                                    \
  } while (0)

#define N 20000

static uint32_t sites[N], targets[N], records[N];

static bpmodel_stats simulate(bpmodel_kind kind, size_t n) {
  bpmodel_config cfg;
  bpmodel_config_init(kind, &cfg);
  bpmodel_stats s = {0};
  bpmodel_status st = bpmodel_trace_simulate(&cfg, sites, targets, n, &s);
  CHECK(st == BPMODEL_OK, "bpmodel_trace_simulate: %s", bpmodel_status_str(st));
  CHECK(s.branches == n, "branches %llu, expected %zu", (unsigned long long)s.branches, n);
  return s;
}

static const char *name(bpmodel_kind k) {
  return k == BPMODEL_KIND_ITTAGE ? "ittage" : "last-target";
}

static void test_known_traces(void) {
  static const bpmodel_kind kinds[] = {BPMODEL_KIND_LAST_TARGET, BPMODEL_KIND_ITTAGE};
  for (int k = 0; k < 2; k++) {
    for (size_t i = 0; i < N; i++) sites[i] = 7, targets[i] = 42;
    bpmodel_stats s = simulate(kinds[k], N);
    CHECK(s.misses == 1 && s.btb_cold == 1, "%s, one target: %llu misses, %llu cold",
          name(kinds[k]), (unsigned long long)s.misses, (unsigned long long)s.btb_cold);

    for (size_t i = 0; i < N; i++) sites[i] = 7, targets[i] = (uint32_t)(i & 1);
    s = simulate(kinds[k], N);
    if (kinds[k] == BPMODEL_KIND_LAST_TARGET)
      CHECK(s.misses == N, "last-target, alternating: %llu misses, expected %d",
            (unsigned long long)s.misses, N);
    else
      CHECK(s.misses <= N / 50 && s.provided > N / 2,
            "ittage, alternating: %llu misses (at most %d), %llu from tagged tables",
            (unsigned long long)s.misses, N / 50, (unsigned long long)s.provided);

    for (size_t i = 0; i < N; i++) sites[i] = (uint32_t)(i % 4), targets[i] = (uint32_t)(i % 4) * 3;
    s = simulate(kinds[k], N);
    CHECK(s.misses == 4 && s.btb_cold == 4, "%s, four fixed sites: %llu misses, %llu cold",
          name(kinds[k]), (unsigned long long)s.misses, (unsigned long long)s.btb_cold);
  }
}

static void test_record_form_and_determinism(void) {
  uint64_t x = 88172645463325252ull; /* xorshift64: a trace with structure and noise */
  for (size_t i = 0; i < N; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    sites[i] = (uint32_t)(x % 40);
    targets[i] = (uint32_t)((sites[i] * 7 + (i % 3 == 0 ? x >> 32 : 0)) % 256);
    records[i] = sites[i] << 8 | targets[i];
  }
  for (int k = 0; k < 2; k++) {
    bpmodel_kind kind = k ? BPMODEL_KIND_ITTAGE : BPMODEL_KIND_LAST_TARGET;
    bpmodel_stats a = simulate(kind, N), b = simulate(kind, N), r = {0};
    bpmodel_config cfg;
    bpmodel_config_init(kind, &cfg);
    CHECK(bpmodel_vmtrace_simulate(&cfg, records, N, &r) == BPMODEL_OK, "vmtrace status");
    CHECK(a.misses == b.misses && a.provided == b.provided, "%s: two runs differ", name(kind));
    CHECK(a.misses == r.misses && a.btb_cold == r.btb_cold && a.provided == r.provided,
          "%s: record form %llu misses, array form %llu", name(kind),
          (unsigned long long)r.misses, (unsigned long long)a.misses);
    CHECK(a.misses > 0 && a.misses < N, "%s: %llu misses on a partly random trace",
          name(kind), (unsigned long long)a.misses);
  }
}

static void test_bad_input(void) {
  bpmodel_config cfg;
  bpmodel_stats s = {0};
  bpmodel_config_init(BPMODEL_KIND_LAST_TARGET, &cfg);
  cfg.btb_entries = 3000; /* not a power of two */
  CHECK(bpmodel_trace_simulate(&cfg, sites, targets, 10, &s) == BPMODEL_ERR_CONFIG,
        "btb_entries 3000");
  bpmodel_config_init(BPMODEL_KIND_ITTAGE, &cfg);
  cfg.hist_len[2] = cfg.hist_len[1]; /* lengths must increase */
  CHECK(bpmodel_trace_simulate(&cfg, sites, targets, 10, &s) == BPMODEL_ERR_CONFIG,
        "equal lengths");
  cfg.ntables = BPMODEL_MAX_TABLES + 1;
  CHECK(bpmodel_trace_simulate(&cfg, sites, targets, 10, &s) == BPMODEL_ERR_CONFIG,
        "too many tables");
  bpmodel_config_init(BPMODEL_KIND_ITTAGE, &cfg);
  CHECK(bpmodel_trace_simulate(NULL, sites, targets, 10, &s) == BPMODEL_ERR_ARGUMENT,
        "NULL config");
  CHECK(bpmodel_trace_simulate(&cfg, NULL, targets, 10, &s) == BPMODEL_ERR_ARGUMENT,
        "NULL sites");
  CHECK(bpmodel_trace_simulate(&cfg, sites, NULL, 10, &s) == BPMODEL_ERR_ARGUMENT,
        "NULL targets");
  CHECK(bpmodel_trace_simulate(&cfg, sites, targets, 10, NULL) == BPMODEL_ERR_ARGUMENT,
        "NULL stats");
  CHECK(bpmodel_vmtrace_simulate(&cfg, NULL, 10, &s) == BPMODEL_ERR_ARGUMENT, "NULL records");
  CHECK(bpmodel_vmtrace_simulate(NULL, records, 10, &s) == BPMODEL_ERR_ARGUMENT,
        "NULL config (records)");
  CHECK(bpmodel_vmtrace_simulate(&cfg, records, 10, NULL) == BPMODEL_ERR_ARGUMENT,
        "NULL stats (records)");
  CHECK(s.branches == 0 && s.misses == 0, "a failed call changed the stats");
  CHECK(bpmodel_trace_simulate(&cfg, NULL, NULL, 0, &s) == BPMODEL_OK && s.branches == 0,
        "empty trace");
}

/* Every status has its own text, and a value outside the enum still gets one. */
static void test_status_str(void) {
  const char *unknown = bpmodel_status_str((bpmodel_status)99);
  CHECK(unknown != NULL, "bpmodel_status_str(99) returned NULL");
  for (int a = BPMODEL_OK; a <= BPMODEL_ERR_ARGUMENT; a++) {
    const char *text = bpmodel_status_str((bpmodel_status)a);
    CHECK(text && *text && strcmp(text, unknown) != 0, "status %d has no text", a);
    for (int b = BPMODEL_OK; b < a; b++)
      CHECK(strcmp(text, bpmodel_status_str((bpmodel_status)b)) != 0,
            "statuses %d and %d share \"%s\"", a, b, text);
  }
}

int main(void) {
  test_known_traces();
  test_record_form_and_determinism();
  test_bad_input();
  test_status_str();
  printf("bpmodel_test: %d checks passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
