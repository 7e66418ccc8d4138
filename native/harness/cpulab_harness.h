/* cpulab_harness.h — the measurement harness every cpulab kernel program includes.
 *
 * Design. A kernel is one C file: it calls clh_init(argc, argv), reads its --param values,
 * and hands a table of cases to clh_run(). The harness owns everything around the work:
 *
 *   - Iteration count. Per case: one untimed warm-up call of 1 iteration, then calls of
 *     1, 2, 4, ... iterations until one takes >= target/8, then the count is scaled to the
 *     target (default 50 ms) and fixed for every repetition of that case, so that all reps
 *     of a case measure the same work. --iters N (or a case's .iters) skips calibration:
 *     instruction counts under valgrind are then a linear function of N.
 *   - Order. Cases are interleaved A B A B ... across reps, so that slow drifts of a shared
 *     machine (frequency, neighbours) spread over every case instead of biasing one.
 *   - Time. clock_gettime(CLOCK_MONOTONIC) ns and TSC ticks around each timed call; the
 *     TSC reads are fenced (lfence;rdtsc before, rdtscp;lfence after) so the work cannot
 *     leak out of the bracket. No TSC (non-x86, rdtsc disabled) -> "tsc" unavailable with a
 *     reason, and no "tsc" field in the reps.
 *   - Counters. perf_event_open: hardware group cycles, instructions, branches,
 *     branch-misses (user+kernel; on EACCES/EPERM retried user-only); software group
 *     task-clock, page-faults, context-switches. Each group is read once before and once
 *     after the call (PERF_FORMAT_GROUP with enabled/running times) and scaled when the
 *     kernel multiplexed it. An event that cannot be opened is reported unavailable with
 *     its errno, the others are kept; a rep never carries a value for an unavailable
 *     counter (never a 0 that means "unknown").
 *   - Output. JSON lines on stdout, built by a small writer (no hand-placed commas): one
 *     "meta" line, then one "rep" line per case per repetition; errors as one "error" line
 *     (exit 2 for bad flags or values, 1 for failures at run time). The schema is in
 *     native/harness/README.md; CLH_SCHEMA changes with it.
 *
 * Everything is static: each kernel program is a single translation unit. Only Linux
 * syscalls are used directly (no _GNU_SOURCE needed, so the header may come after other
 * includes). Builds warning-free with gcc-12 and clang-19, -std=gnu11 -Wall.
 */
#ifndef CPULAB_HARNESS_H
#define CPULAB_HARNESS_H

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#ifdef __linux__
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#define CLH_X86 1
#include <cpuid.h>
#endif

/* Version of the JSON-lines schema (README.md, "Output"). */
#define CLH_SCHEMA 1
#define CLH_VERSION "1.0"

#define CLH_API static __attribute__((unused))
#define CLH_INLINE static inline __attribute__((always_inline, unused))

/* ---------------------------------------------------------------- public API ---- */

/* A case runs `iters` iterations of its work and returns a value the harness keeps
 * (stored into a volatile), so the work has an observable result. */
typedef uint64_t (*clh_fn)(uint64_t iters, void *arg);

typedef struct clh_case {
    const char *name;          /* case name: --case filter, "case" field of rep lines  */
    clh_fn fn;                 /* the timed function                                    */
    void *arg;                 /* passed to fn, setup and teardown                      */
    uint64_t units_per_iter;   /* work units one iteration does (0 means 1)             */
    const char *unit;          /* name of a unit: "dispatch", "byte" (NULL: "iter")     */
    void (*setup)(void *arg);  /* before every call, outside the timed region (or NULL) */
    void (*teardown)(void *arg); /* after every call, outside the timed region         */
    uint64_t iters;            /* fixed iteration count, no calibration (0: calibrate)  */
} clh_case;

/* Keep the object `p` points to (and all memory) as if read and written here: stops the
 * compiler from deleting stores or computations whose result is only in memory. */
CLH_INLINE void clh_escape(const void *p) { __asm__ volatile("" : : "g"(p) : "memory"); }

/* A compiler barrier for all memory: values must be in memory before, reloaded after. */
CLH_INLINE void clh_clobber(void) { __asm__ volatile("" : : : "memory"); }

/* `x`, with the compiler no longer knowing its value: stops constant folding. */
CLH_INLINE uint64_t clh_opaque_u64(uint64_t x) { __asm__("" : "+r"(x)); return x; }

CLH_API void clh_init(int argc, char **argv);
CLH_API uint64_t clh_param_u64(const char *name, uint64_t def);
CLH_API double clh_param_f64(const char *name, double def);
CLH_API const char *clh_param_str(const char *name, const char *def);
CLH_API uint64_t clh_call_iters(void);
CLH_API void clh_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
CLH_API void clh_usage_error(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
CLH_API int clh_run(const clh_case *cases, size_t ncases);

/* ---------------------------------------------------------------- state ---------- */

#define CLH_MAX_PARAMS 64
#define CLH_MAX_FILTER 64
#define CLH_MAX_CPUS 1024
#define CLH_NCOUNTERS 7

enum { CLH_P_NONE, CLH_P_U64, CLH_P_F64, CLH_P_STR };

typedef struct {
    const char *key, *given;   /* given: the value from --param, or NULL            */
    int kind;                  /* how the program read it (CLH_P_*), NONE: never    */
    uint64_t u;
    double f;
    const char *s;
} clh_param_;

typedef struct {
    const char *name, *source, *unit;
    int hw;
    uint32_t type;
    uint64_t config;
} clh_event_;

#ifdef __linux__
#define CLH_EV(n, src, unit, hw, t, c) { n, src, unit, hw, PERF_TYPE_##t, PERF_COUNT_##c }
#else
#define CLH_EV(n, src, unit, hw, t, c) { n, src, unit, hw, 0, 0 }
#endif
/* Rep lines list the counters in this order. */
static const clh_event_ clh_events_[CLH_NCOUNTERS] __attribute__((unused)) = {
    CLH_EV("cycles", "pmu", "count", 1, HARDWARE, HW_CPU_CYCLES),
    CLH_EV("instructions", "pmu", "count", 1, HARDWARE, HW_INSTRUCTIONS),
    CLH_EV("branches", "pmu", "count", 1, HARDWARE, HW_BRANCH_INSTRUCTIONS),
    CLH_EV("branch-misses", "pmu", "count", 1, HARDWARE, HW_BRANCH_MISSES),
    CLH_EV("task-clock", "sw", "ns", 0, SOFTWARE, SW_TASK_CLOCK),
    CLH_EV("page-faults", "sw", "count", 0, SOFTWARE, SW_PAGE_FAULTS),
    CLH_EV("context-switches", "sw", "count", 0, SOFTWARE, SW_CONTEXT_SWITCHES),
};
#undef CLH_EV

typedef struct {
    int available, user_only;
    char reason[320];
} clh_counter_;

/* One perf group, read with PERF_FORMAT_GROUP: {nr, enabled, running, value[nr]}. */
typedef struct {
    int fd, n;
    int ids[CLH_NCOUNTERS];
    uint64_t before[3 + CLH_NCOUNTERS], after[3 + CLH_NCOUNTERS];
} clh_group_;

/* One timed call. have[i]: 0 no value (unavailable), 1 value, 2 available but never
 * scheduled during the call (multiplexed out): written as null. */
typedef struct {
    uint64_t ns, tsc;
    uint64_t val[CLH_NCOUNTERS];
    unsigned char have[CLH_NCOUNTERS];
    int scaled;
} clh_sample_;

static struct {
    int inited, argc;
    char **argv;
    const char *prog;
    double target_ms;
    double slower; /* CPULAB_SLOWER: spin this fraction of each call's time on top of it */
    uint64_t reps, iters;
    long cpu;
    int cpu_given, no_pmu, list;
    const char *filter[CLH_MAX_FILTER];
    int nfilter;
    clh_param_ params[CLH_MAX_PARAMS];
    int nparams;
    uint64_t call_iters;
    int pinned;
    long pinned_cpu;
    const char *pin_how;
    char pin_reason[160];
    int tsc_ok, tsc_rdtscp, tsc_invariant;
    const char *tsc_reason;
    clh_counter_ ctr[CLH_NCOUNTERS];
    clh_group_ groups[CLH_NCOUNTERS];
    int ngroups;
} clh_ __attribute__((unused));

static volatile uint64_t clh_sink_ __attribute__((unused));

/* ---------------------------------------------------------------- JSON writer ---- */

/* Builds one JSON line; the writer places commas and colons, callers only say what
 * comes next. Nesting up to 16 levels. */
typedef struct {
    char *buf;
    size_t len, cap;
    int depth, after_key;
    unsigned char fresh[16];
} clh_json_;

CLH_API void clh_j_put_(clh_json_ *j, const char *s, size_t n)
{
    if (j->len + n + 2 > j->cap) {
        size_t cap = j->cap ? j->cap : 1024;
        while (cap < j->len + n + 2)
            cap *= 2;
        char *b = realloc(j->buf, cap);
        if (!b) {
            fputs("cpulab harness: out of memory\n", stderr);
            exit(1);
        }
        j->buf = b;
        j->cap = cap;
    }
    memcpy(j->buf + j->len, s, n);
    j->len += n;
}

CLH_API void clh_j_sep_(clh_json_ *j)
{
    if (j->after_key) {
        j->after_key = 0;
        return;
    }
    if (j->depth > 0) {
        if (!j->fresh[j->depth])
            clh_j_put_(j, ",", 1);
        j->fresh[j->depth] = 0;
    }
}

CLH_API void clh_j_open_(clh_json_ *j, char c)
{
    clh_j_sep_(j);
    clh_j_put_(j, &c, 1);
    j->fresh[++j->depth] = 1;
}

CLH_API void clh_j_close_(clh_json_ *j, char c)
{
    clh_j_put_(j, &c, 1);
    j->depth--;
}

/* Length of the valid UTF-8 sequence at p (RFC 3629: no overlongs, no surrogates), or 0. */
CLH_API size_t clh_utf8_len_(const unsigned char *p)
{
    unsigned c = p[0], lo = 0x80, hi = 0xbf;
    size_t n;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        lo = c == 0xe0 ? 0xa0 : 0x80;
        hi = c == 0xed ? 0x9f : 0xbf;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        lo = c == 0xf0 ? 0x90 : 0x80;
        hi = c == 0xf4 ? 0x8f : 0xbf;
    } else
        return 0;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return n;
}

/* A JSON string: quotes, backslashes and control characters escaped, bytes that are not
 * valid UTF-8 replaced by U+FFFD. */
CLH_API void clh_j_str_(clh_json_ *j, const char *s)
{
    clh_j_sep_(j);
    clh_j_put_(j, "\"", 1);
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            char e[2] = { '\\', (char)c };
            clh_j_put_(j, e, 2);
            p++;
        } else if (c < 0x20 || c == 0x7f) {
            char e[8];
            const char *sh = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;
            if (!sh)
                snprintf(e, sizeof e, "\\u%04x", c);
            clh_j_put_(j, sh ? sh : e, strlen(sh ? sh : e));
            p++;
        } else if (c < 0x80) {
            clh_j_put_(j, (const char *)p, 1);
            p++;
        } else {
            size_t n = clh_utf8_len_(p);
            if (n) {
                clh_j_put_(j, (const char *)p, n);
                p += n;
            } else {
                clh_j_put_(j, "\\ufffd", 6);
                p++;
            }
        }
    }
    clh_j_put_(j, "\"", 1);
}

CLH_API void clh_j_key_(clh_json_ *j, const char *k)
{
    clh_j_str_(j, k);
    clh_j_put_(j, ":", 1);
    j->after_key = 1;
}

CLH_API void clh_j_raw_(clh_json_ *j, const char *s)
{
    clh_j_sep_(j);
    clh_j_put_(j, s, strlen(s));
}

CLH_API void clh_j_u64_(clh_json_ *j, uint64_t v)
{
    char b[24];
    snprintf(b, sizeof b, "%" PRIu64, v);
    clh_j_raw_(j, b);
}

CLH_API void clh_j_i64_(clh_json_ *j, int64_t v)
{
    char b[24];
    snprintf(b, sizeof b, "%" PRId64, v);
    clh_j_raw_(j, b);
}

/* The shortest decimal that reads back as exactly `v` (integral values print as
 * integers: 50, not 50.0); null for inf/nan, which JSON cannot carry. */
CLH_API void clh_j_f64_(clh_json_ *j, double v)
{
    char b[40];
    if (!isfinite(v)) {
        clh_j_raw_(j, "null");
        return;
    }
    /* Integral and exact in a double: print as an integer (no libm needed). */
    if ((v < 0 ? -v : v) < 0x1p53 && v == (double)(int64_t)v) {
        snprintf(b, sizeof b, "%.0f", v);
        clh_j_raw_(j, b);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(b, sizeof b, "%.*g", prec, v);
        if (strtod(b, NULL) == v)
            break;
    }
    clh_j_raw_(j, b);
}

CLH_API void clh_j_kstr_(clh_json_ *j, const char *k, const char *v) { clh_j_key_(j, k); clh_j_str_(j, v); }
CLH_API void clh_j_ku64_(clh_json_ *j, const char *k, uint64_t v) { clh_j_key_(j, k); clh_j_u64_(j, v); }
CLH_API void clh_j_kbool_(clh_json_ *j, const char *k, int v) { clh_j_key_(j, k); clh_j_raw_(j, v ? "true" : "false"); }

/* Write the line to stdout and start over. Flushed at once: a run that is killed
 * still leaves every finished line behind. */
CLH_API void clh_j_emit_(clh_json_ *j)
{
    clh_j_put_(j, "\n", 1);
    fwrite(j->buf, 1, j->len, stdout);
    fflush(stdout);
    j->len = 0;
    j->depth = 0;
    j->after_key = 0;
}

/* ---------------------------------------------------------------- errors --------- */

__attribute__((noreturn, unused)) static void clh_vdie_(int code, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    clh_json_ j = { 0 };
    clh_j_open_(&j, '{');
    clh_j_kstr_(&j, "type", "error");
    clh_j_kstr_(&j, "message", msg);
    clh_j_close_(&j, '}');
    clh_j_emit_(&j);
    free(j.buf);
    fprintf(stderr, "%s: %s\n", clh_.prog ? clh_.prog : "cpulab kernel", msg);
    exit(code);
}

/* Exit 2: the command line is at fault (bad flag, bad value, unknown case, a --param
 * value the kernel cannot use). */
CLH_API void clh_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    clh_vdie_(2, fmt, ap);
}

/* Exit 1: something failed at run time (a wrong result, a failed syscall). */
CLH_API void clh_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    clh_vdie_(1, fmt, ap);
}

/* ---------------------------------------------------------------- flags ---------- */

static const char clh_usage_[] __attribute__((unused)) =
    "usage: %s [flags]\n"
    "  --target-ms MS   time per timed call when calibrating (default 50)\n"
    "  --reps R         repetitions of every case, interleaved (default 10)\n"
    "  --iters N        fixed iteration count for every case, no calibration\n"
    "  --case NAME      run only this case (repeatable)\n"
    "  --cpu K          pin to CPU K; -1: do not pin (default: the CPU it starts on)\n"
    "  --no-pmu         do not open the hardware counters\n"
    "  --param K=V      a kernel parameter (repeatable)\n"
    "  --list           print the cases as JSON lines and exit\n"
    "  --help           this text\n"
    "Output: JSON lines on stdout (see native/harness/README.md).\n";

/* Decimal (or 0x hex) unsigned integer, the whole string, in range. */
CLH_API int clh_parse_u64_(const char *s, uint64_t *out)
{
    char *end;
    if (!s || !((s[0] >= '0' && s[0] <= '9')))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10);
    if (errno || *end || end == s)
        return -1;
    *out = v;
    return 0;
}

CLH_API int clh_parse_f64_(const char *s, double *out)
{
    char *end;
    if (!s || !*s)
        return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

CLH_API void clh_init(int argc, char **argv)
{
    memset(&clh_, 0, sizeof clh_);
    clh_.inited = 1;
    clh_.argc = argc;
    clh_.argv = argv;
    const char *slash = argc > 0 && argv[0] ? strrchr(argv[0], '/') : NULL;
    clh_.prog = argc > 0 && argv[0] ? (slash ? slash + 1 : argv[0]) : "cpulab kernel";
    clh_.target_ms = 50;
    clh_.reps = 10;
    /* A change of known size for testing the lab's statistics (`cpulab check aa
     * --slower`): every timed call made longer by this percentage, by a spin inside it. */
    const char *slower = getenv("CPULAB_SLOWER");
    if (slower && *slower) {
        double pct;
        if (clh_parse_f64_(slower, &pct) || pct < 0 || pct > 1000)
            clh_usage_error("CPULAB_SLOWER '%s': want a percentage from 0 to 1000", slower);
        clh_.slower = pct / 100;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--", 2) != 0)
            clh_usage_error("unexpected argument '%s' (flags start with --; see --help)", a);
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
#define CLH_IS(s) (nlen == sizeof(s) - 1 && memcmp(name, s, nlen) == 0)
        if (CLH_IS("help")) {
            printf(clh_usage_, clh_.prog);
            exit(0);
        }
        if (CLH_IS("no-pmu") || CLH_IS("list")) {
            if (eq)
                clh_usage_error("--%.*s takes no value", (int)nlen, name);
            if (CLH_IS("list"))
                clh_.list = 1;
            else
                clh_.no_pmu = 1;
            continue;
        }
        if (!(CLH_IS("target-ms") || CLH_IS("reps") || CLH_IS("iters") || CLH_IS("case") ||
              CLH_IS("cpu") || CLH_IS("param")))
            clh_usage_error("unknown flag '--%.*s' (see --help)", (int)nlen, name);
        const char *v = eq ? eq + 1 : NULL;
        if (!v) {
            if (i + 1 >= argc || strncmp(argv[i + 1], "--", 2) == 0)
                clh_usage_error("--%s needs a value", name);
            v = argv[++i];
        }
        if (CLH_IS("target-ms")) {
            if (clh_parse_f64_(v, &clh_.target_ms) || clh_.target_ms <= 0 || clh_.target_ms > 1e7)
                clh_usage_error("--target-ms '%s': want a number of milliseconds, > 0 and <= 1e7", v);
        } else if (CLH_IS("reps")) {
            if (clh_parse_u64_(v, &clh_.reps) || clh_.reps < 1 || clh_.reps > 1000000000)
                clh_usage_error("--reps '%s': want an integer from 1 to 1e9", v);
        } else if (CLH_IS("iters")) {
            if (clh_parse_u64_(v, &clh_.iters) || clh_.iters < 1)
                clh_usage_error("--iters '%s': want an integer >= 1", v);
        } else if (CLH_IS("cpu")) {
            uint64_t c;
            if (strcmp(v, "-1") == 0)
                clh_.cpu = -1;
            else if (clh_parse_u64_(v, &c) == 0 && c < CLH_MAX_CPUS)
                clh_.cpu = (long)c;
            else
                clh_usage_error("--cpu '%s': want a CPU number from 0 to %d, or -1", v, CLH_MAX_CPUS - 1);
            clh_.cpu_given = 1;
        } else if (CLH_IS("case")) {
            if (!*v)
                clh_usage_error("--case: empty name");
            if (clh_.nfilter == CLH_MAX_FILTER)
                clh_usage_error("--case given more than %d times", CLH_MAX_FILTER);
            clh_.filter[clh_.nfilter++] = v;
        } else { /* param */
            const char *peq = strchr(v, '=');
            if (!peq || peq == v)
                clh_usage_error("--param '%s': want KEY=VALUE", v);
            size_t klen = (size_t)(peq - v);
            for (int k = 0; k < clh_.nparams; k++)
                if (strlen(clh_.params[k].key) == klen && memcmp(clh_.params[k].key, v, klen) == 0)
                    clh_usage_error("--param %.*s given twice", (int)klen, v);
            if (clh_.nparams == CLH_MAX_PARAMS)
                clh_usage_error("more than %d --param", CLH_MAX_PARAMS);
            char *key = strndup(v, klen);
            if (!key)
                clh_fail("out of memory");
            clh_.params[clh_.nparams++] = (clh_param_){ .key = key, .given = peq + 1 };
        }
#undef CLH_IS
    }
}

/* ---------------------------------------------------------------- params --------- */

CLH_API clh_param_ *clh_param_slot_(const char *name, int kind)
{
    if (!clh_.inited)
        clh_fail("clh_param_* called before clh_init");
    clh_param_ *p = NULL;
    for (int k = 0; k < clh_.nparams && !p; k++)
        if (strcmp(clh_.params[k].key, name) == 0)
            p = &clh_.params[k];
    if (!p) {
        if (clh_.nparams == CLH_MAX_PARAMS)
            clh_fail("more than %d parameters", CLH_MAX_PARAMS);
        p = &clh_.params[clh_.nparams++];
        *p = (clh_param_){ .key = name };
    }
    if (p->kind != CLH_P_NONE && p->kind != kind)
        clh_fail("parameter '%s' read with two different types", name);
    p->kind = kind;
    return p;
}

/* --param NAME=V as an unsigned integer (decimal or 0x hex); `def` when not given. */
CLH_API uint64_t clh_param_u64(const char *name, uint64_t def)
{
    clh_param_ *p = clh_param_slot_(name, CLH_P_U64);
    p->u = def;
    if (p->given && clh_parse_u64_(p->given, &p->u))
        clh_usage_error("--param %s=%s: want an unsigned integer", name, p->given);
    return p->u;
}

/* --param NAME=V as a finite floating-point number; `def` when not given. */
CLH_API double clh_param_f64(const char *name, double def)
{
    clh_param_ *p = clh_param_slot_(name, CLH_P_F64);
    p->f = def;
    if (p->given && clh_parse_f64_(p->given, &p->f))
        clh_usage_error("--param %s=%s: want a finite number", name, p->given);
    return p->f;
}

/* --param NAME=V as a string; `def` when not given. */
CLH_API const char *clh_param_str(const char *name, const char *def)
{
    clh_param_ *p = clh_param_slot_(name, CLH_P_STR);
    p->s = p->given ? p->given : def;
    return p->s;
}

/* The iteration count of the call being set up, run or torn down (for setup hooks that
 * size their data by it). */
CLH_API uint64_t clh_call_iters(void) { return clh_.call_iters; }

/* ---------------------------------------------------------------- pinning -------- */

/* Default: the CPU the program starts on (the scheduler's own choice, so two runs do not
 * all crowd onto CPU 0). An explicit --cpu that cannot be had is a usage error; a default
 * pin that fails is reported in meta and the run goes on. */
CLH_API void clh_pin_(void)
{
    long want = clh_.cpu;
    if (clh_.cpu_given && want < 0) {
        snprintf(clh_.pin_reason, sizeof clh_.pin_reason, "not pinned: --cpu -1");
        return;
    }
    if (!clh_.cpu_given) {
        unsigned cpu = 0;
        if (syscall(SYS_getcpu, &cpu, NULL, NULL) != 0) {
            snprintf(clh_.pin_reason, sizeof clh_.pin_reason, "getcpu: %s", strerror(errno));
            return;
        }
        want = cpu;
    }
    if (want >= CLH_MAX_CPUS) {
        snprintf(clh_.pin_reason, sizeof clh_.pin_reason, "CPU %ld beyond the harness's limit %d",
                 want, CLH_MAX_CPUS);
        return;
    }
    unsigned long mask[CLH_MAX_CPUS / (8 * sizeof(unsigned long))] = { 0 };
    mask[want / (8 * sizeof(unsigned long))] |= 1UL << (want % (8 * sizeof(unsigned long)));
    if (syscall(SYS_sched_setaffinity, 0, sizeof mask, mask) != 0) {
        if (clh_.cpu_given)
            clh_usage_error("--cpu %ld: sched_setaffinity: %s", want, strerror(errno));
        snprintf(clh_.pin_reason, sizeof clh_.pin_reason, "sched_setaffinity(CPU %ld): %s", want,
                 strerror(errno));
        return;
    }
    clh_.pinned = 1;
    clh_.pinned_cpu = want;
    clh_.pin_how = clh_.cpu_given ? "--cpu" : "the CPU it started on";
}

/* ---------------------------------------------------------------- TSC ------------ */

CLH_API void clh_tsc_detect_(void)
{
#ifdef CLH_X86
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(d & (1u << 4))) {
        clh_.tsc_reason = "CPUID reports no time-stamp counter";
        return;
    }
#ifdef PR_GET_TSC
    int mode = 0;
    if (prctl(PR_GET_TSC, &mode, 0, 0, 0) == 0 && mode == PR_TSC_SIGSEGV) {
        clh_.tsc_reason = "rdtsc is disabled for this process (prctl PR_SET_TSC)";
        return;
    }
#endif
    clh_.tsc_ok = 1;
    if (__get_cpuid(0x80000001, &a, &b, &c, &d))
        clh_.tsc_rdtscp = (d >> 27) & 1;
    if (__get_cpuid(0x80000007, &a, &b, &c, &d))
        clh_.tsc_invariant = (d >> 8) & 1;
#else
    clh_.tsc_reason = "no TSC: not an x86 CPU";
#endif
}

/* lfence before rdtsc: earlier instructions have completed before the counter is read. */
CLH_INLINE uint64_t clh_tsc_begin_(void)
{
#ifdef CLH_X86
    uint32_t lo, hi;
    __asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) : : "memory");
    return ((uint64_t)hi << 32) | lo;
#else
    return 0;
#endif
}

/* rdtscp waits for earlier instructions; lfence after it keeps later ones from starting
 * before the read. Without rdtscp: lfence;rdtsc;lfence. */
CLH_INLINE uint64_t clh_tsc_end_(void)
{
#ifdef CLH_X86
    uint32_t lo, hi, aux;
    if (clh_.tsc_rdtscp)
        __asm__ volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux) : : "memory");
    else
        __asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
    (void)aux;
    return ((uint64_t)hi << 32) | lo;
#else
    return 0;
#endif
}

/* ---------------------------------------------------------------- counters ------- */

#ifdef __linux__
CLH_API int clh_perf_try_(int id, int group_fd, int user_only)
{
    struct perf_event_attr at;
    memset(&at, 0, sizeof at);
    at.size = sizeof at;
    at.type = clh_events_[id].type;
    at.config = clh_events_[id].config;
    at.disabled = group_fd == -1; /* a leader starts disabled; members follow it */
    at.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                     PERF_FORMAT_TOTAL_TIME_RUNNING;
    at.exclude_kernel = user_only;
    at.exclude_hv = user_only;
    return (int)syscall(SYS_perf_event_open, &at, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* Open event `id` (in `group_fd`'s group, or alone with -1): user+kernel first, user
 * only after EACCES/EPERM (kernel.perf_event_paranoid >= 2 allows only that). */
CLH_API int clh_perf_open_(int id, int group_fd, int *user_only, int *err)
{
    *user_only = 0;
    int fd = clh_perf_try_(id, group_fd, 0);
    if (fd < 0 && (errno == EACCES || errno == EPERM)) {
        fd = clh_perf_try_(id, group_fd, 1);
        *user_only = fd >= 0;
    }
    *err = fd < 0 ? errno : 0;
    return fd;
}

CLH_API void clh_perf_reason_(int id, int err)
{
    char hint[160] = "";
    if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV || err == EINVAL)
        snprintf(hint, sizeof hint, "; the CPU or the hypervisor does not provide this event "
                                    "(a virtual machine without a virtual PMU?)");
    else if (err == EACCES || err == EPERM) {
        char par[16] = "?";
        FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
        if (f) {
            if (!fgets(par, sizeof par, f))
                strcpy(par, "?");
            par[strcspn(par, "\n")] = 0;
            fclose(f);
        }
        snprintf(hint, sizeof hint, "; not allowed even for user space only "
                                    "(kernel.perf_event_paranoid=%s, or a seccomp filter)", par);
    } else if (err == ENOSYS)
        snprintf(hint, sizeof hint, "; the kernel has no perf events");
    snprintf(clh_.ctr[id].reason, sizeof clh_.ctr[id].reason, "perf_event_open(%s): %s (errno %d)%s",
             clh_events_[id].name, strerror(err), err, hint);
}
#endif

/* The hardware events form one group (read together, scheduled together); an event
 * that cannot join it is tried alone, and one that cannot be opened at all is reported
 * unavailable while the others are kept. The software events form a second group. */
CLH_API void clh_counters_open_(void)
{
    clh_.ngroups = 0;
    for (int hw = 1; hw >= 0; hw--) {
        int leader = -1;
        for (int id = 0; id < CLH_NCOUNTERS; id++) {
            if (clh_events_[id].hw != hw)
                continue;
            clh_counter_ *c = &clh_.ctr[id];
            if (hw && clh_.no_pmu) {
                snprintf(c->reason, sizeof c->reason, "disabled by --no-pmu");
                continue;
            }
#ifdef __linux__
            int uo = 0, err = 0, fd = -1;
            if (leader >= 0) {
                clh_group_ *g = &clh_.groups[leader];
                fd = clh_perf_open_(id, g->fd, &uo, &err);
                if (fd >= 0) {
                    g->ids[g->n++] = id;
                    c->available = 1;
                    c->user_only = uo;
                    continue;
                }
            }
            fd = clh_perf_open_(id, -1, &uo, &err);
            if (fd < 0) {
                clh_perf_reason_(id, err);
                continue;
            }
            clh_group_ *g = &clh_.groups[clh_.ngroups];
            memset(g, 0, sizeof *g);
            g->fd = fd;
            g->ids[g->n++] = id;
            if (leader < 0)
                leader = clh_.ngroups;
            clh_.ngroups++;
            c->available = 1;
            c->user_only = uo;
#else
            snprintf(c->reason, sizeof c->reason, "perf_event_open(%s): not Linux",
                     clh_events_[id].name);
#endif
        }
    }
#ifdef __linux__
    for (int g = 0; g < clh_.ngroups; g++) {
        ioctl(clh_.groups[g].fd, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
        ioctl(clh_.groups[g].fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
    }
#endif
}

CLH_API void clh_counters_close_(void)
{
    for (int g = 0; g < clh_.ngroups; g++)
        close(clh_.groups[g].fd);
    clh_.ngroups = 0;
}

CLH_API void clh_counters_read_(int after)
{
    for (int g = 0; g < clh_.ngroups; g++) {
        clh_group_ *gr = &clh_.groups[g];
        uint64_t *dst = after ? gr->after : gr->before;
        ssize_t want = (ssize_t)((3 + gr->n) * sizeof(uint64_t));
        ssize_t got = read(gr->fd, dst, (size_t)want);
        if (got != want)
            clh_fail("read(perf group of %s): %s", clh_events_[gr->ids[0]].name,
                     got < 0 ? strerror(errno) : "short read");
    }
}

/* value * enabled / running: the kernel's estimate for a multiplexed counter. */
CLH_API uint64_t clh_scale_(uint64_t v, uint64_t enabled, uint64_t running)
{
#ifdef __SIZEOF_INT128__
    unsigned __int128 r = (unsigned __int128)v * enabled / running;
    return r > UINT64_MAX ? UINT64_MAX : (uint64_t)r;
#else
    return (uint64_t)((long double)v * enabled / running + 0.5L);
#endif
}

CLH_API void clh_counters_delta_(clh_sample_ *s)
{
    memset(s->have, 0, sizeof s->have);
    s->scaled = 0;
    for (int g = 0; g < clh_.ngroups; g++) {
        clh_group_ *gr = &clh_.groups[g];
        uint64_t en = gr->after[1] - gr->before[1], run = gr->after[2] - gr->before[2];
        for (int k = 0; k < gr->n; k++) {
            int id = gr->ids[k];
            uint64_t v = gr->after[3 + k] - gr->before[3 + k];
            if (run == en) {
                s->val[id] = v;
                s->have[id] = 1;
            } else if (run == 0) {
                s->have[id] = 2;
                s->scaled = 1;
            } else {
                s->val[id] = clh_scale_(v, en, run);
                s->have[id] = 1;
                s->scaled = 1;
            }
        }
    }
}

/* ---------------------------------------------------------------- running -------- */

/* Spin until the time since t0 has grown by `fraction` of what it was on entry. */
CLH_API void clh_spin_(const struct timespec *t0, double fraction)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t took = (int64_t)(now.tv_sec - t0->tv_sec) * 1000000000 + (now.tv_nsec - t0->tv_nsec);
    int64_t until = took + (int64_t)((double)took * fraction);
    do
        clock_gettime(CLOCK_MONOTONIC, &now);
    while ((int64_t)(now.tv_sec - t0->tv_sec) * 1000000000 + (now.tv_nsec - t0->tv_nsec) < until);
}

CLH_API void clh_call_(const clh_case *c, uint64_t iters, clh_sample_ *s)
{
    struct timespec t0, t1;
    clh_.call_iters = iters;
    if (c->setup)
        c->setup(c->arg);
    clh_counters_read_(0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint64_t k0 = clh_tsc_begin_();
    uint64_t r = c->fn(iters, c->arg);
    if (clh_.slower > 0)
        clh_spin_(&t0, clh_.slower);
    uint64_t k1 = clh_tsc_end_();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    clh_counters_read_(1);
    clh_sink_ = r;
    if (c->teardown)
        c->teardown(c->arg);
    s->ns = (uint64_t)((int64_t)(t1.tv_sec - t0.tv_sec) * 1000000000 + (t1.tv_nsec - t0.tv_nsec));
    s->tsc = k1 - k0;
    clh_counters_delta_(s);
}

/* The iteration count of case `c` for all its reps, and where it came from. */
CLH_API uint64_t clh_calibrate_(const clh_case *c, const char **from)
{
    clh_sample_ s;
    clh_call_(c, 1, &s); /* warm-up: first touch of code, data, lazy binding */
    if (clh_.iters) {
        *from = "--iters";
        return clh_.iters;
    }
    if (c->iters) {
        *from = "case";
        return c->iters;
    }
    *from = "calibration";
    double target = clh_.target_ms * 1e6;
    uint64_t it = 1;
    for (;;) {
        clh_call_(c, it, &s);
        if ((double)s.ns >= target / 8)
            break;
        if (it >= (UINT64_C(1) << 62))
            clh_fail("case %s: %" PRIu64 " iterations take only %" PRIu64
                     " ns: was the loop optimised away?", c->name, it, s.ns);
        it *= 2;
    }
    double n = (double)it * target / (double)(s.ns ? s.ns : 1);
    return n < 1 ? 1 : n > 0x1p62 ? UINT64_C(1) << 62 : (uint64_t)(n + 0.5);
}

CLH_API void clh_emit_meta_(const clh_case *const *sel, const uint64_t *iters,
                            const char *const *from, size_t nsel)
{
    clh_json_ j = { 0 };
    clh_j_open_(&j, '{');
    clh_j_kstr_(&j, "type", "meta");
    clh_j_ku64_(&j, "schema", CLH_SCHEMA);
    clh_j_kstr_(&j, "harness", "cpulab_harness.h " CLH_VERSION);
    clh_j_key_(&j, "argv");
    clh_j_open_(&j, '[');
    for (int i = 0; i < clh_.argc; i++)
        clh_j_str_(&j, clh_.argv[i]);
    clh_j_close_(&j, ']');
    clh_j_key_(&j, "target_ms");
    clh_j_f64_(&j, clh_.target_ms);
    clh_j_ku64_(&j, "reps", clh_.reps);
    if (clh_.slower > 0) {
        clh_j_key_(&j, "slower_pct");
        clh_j_f64_(&j, clh_.slower * 100);
    }
    clh_j_key_(&j, "iters");
    if (clh_.iters)
        clh_j_u64_(&j, clh_.iters);
    else
        clh_j_raw_(&j, "null");

    clh_j_key_(&j, "pinning");
    clh_j_open_(&j, '{');
    clh_j_kbool_(&j, "pinned", clh_.pinned);
    if (clh_.pinned) {
        clh_j_key_(&j, "cpu");
        clh_j_i64_(&j, clh_.pinned_cpu);
        clh_j_kstr_(&j, "chosen_by", clh_.pin_how);
    } else
        clh_j_kstr_(&j, "reason", clh_.pin_reason);
    clh_j_close_(&j, '}');

    struct timespec res;
    clh_j_key_(&j, "clock");
    clh_j_open_(&j, '{');
    clh_j_kstr_(&j, "id", "CLOCK_MONOTONIC");
    if (clock_getres(CLOCK_MONOTONIC, &res) == 0)
        clh_j_ku64_(&j, "resolution_ns", (uint64_t)res.tv_sec * 1000000000u + (uint64_t)res.tv_nsec);
    clh_j_close_(&j, '}');

    clh_j_key_(&j, "tsc");
    clh_j_open_(&j, '{');
    clh_j_kbool_(&j, "available", clh_.tsc_ok);
    if (clh_.tsc_ok) {
        clh_j_kstr_(&j, "source", "tsc");
        clh_j_kbool_(&j, "rdtscp", clh_.tsc_rdtscp);
        clh_j_kbool_(&j, "invariant", clh_.tsc_invariant);
    } else
        clh_j_kstr_(&j, "reason", clh_.tsc_reason);
    clh_j_close_(&j, '}');

    int any = 0, user = 0;
    for (int id = 0; id < CLH_NCOUNTERS; id++) {
        any |= clh_.ctr[id].available;
        user |= clh_.ctr[id].available && clh_.ctr[id].user_only;
    }
    clh_j_key_(&j, "mode");
    if (any)
        clh_j_str_(&j, user ? "user" : "user+kernel");
    else
        clh_j_raw_(&j, "null");
    clh_j_key_(&j, "counters");
    clh_j_open_(&j, '{');
    for (int id = 0; id < CLH_NCOUNTERS; id++) {
        const clh_counter_ *c = &clh_.ctr[id];
        clh_j_key_(&j, clh_events_[id].name);
        clh_j_open_(&j, '{');
        clh_j_kbool_(&j, "available", c->available);
        clh_j_kstr_(&j, "source", clh_events_[id].source);
        if (c->available) {
            clh_j_kstr_(&j, "unit", clh_events_[id].unit);
            clh_j_kstr_(&j, "mode", c->user_only ? "user" : "user+kernel");
        } else
            clh_j_kstr_(&j, "reason", c->reason);
        clh_j_close_(&j, '}');
    }
    clh_j_close_(&j, '}');

    clh_j_key_(&j, "params");
    clh_j_open_(&j, '{');
    for (int k = 0; k < clh_.nparams; k++) {
        const clh_param_ *p = &clh_.params[k];
        clh_j_key_(&j, p->key);
        if (p->kind == CLH_P_U64)
            clh_j_u64_(&j, p->u);
        else if (p->kind == CLH_P_F64)
            clh_j_f64_(&j, p->f);
        else if (p->s)
            clh_j_str_(&j, p->s);
        else
            clh_j_raw_(&j, "null");
    }
    clh_j_close_(&j, '}');

    clh_j_key_(&j, "cases");
    clh_j_open_(&j, '[');
    for (size_t i = 0; i < nsel; i++) {
        clh_j_open_(&j, '{');
        clh_j_kstr_(&j, "name", sel[i]->name);
        clh_j_kstr_(&j, "unit", sel[i]->unit ? sel[i]->unit : "iter");
        clh_j_ku64_(&j, "units_per_iter", sel[i]->units_per_iter ? sel[i]->units_per_iter : 1);
        clh_j_ku64_(&j, "iters", iters[i]);
        clh_j_kstr_(&j, "iters_from", from[i]);
        clh_j_close_(&j, '}');
    }
    clh_j_close_(&j, ']');
    clh_j_close_(&j, '}');
    clh_j_emit_(&j);
    free(j.buf);
}

CLH_API void clh_emit_rep_(clh_json_ *j, const clh_case *c, uint64_t rep, uint64_t iters,
                           const clh_sample_ *s)
{
    uint64_t upi = c->units_per_iter ? c->units_per_iter : 1, units;
    if (__builtin_mul_overflow(iters, upi, &units))
        clh_fail("case %s: %" PRIu64 " iterations x %" PRIu64 " units overflow 64 bits", c->name,
                 iters, upi);
    clh_j_open_(j, '{');
    clh_j_kstr_(j, "type", "rep");
    clh_j_kstr_(j, "case", c->name);
    clh_j_ku64_(j, "rep", rep);
    clh_j_ku64_(j, "iters", iters);
    clh_j_ku64_(j, "units", units);
    clh_j_kstr_(j, "unit", c->unit ? c->unit : "iter");
    clh_j_ku64_(j, "ns", s->ns);
    if (clh_.tsc_ok)
        clh_j_ku64_(j, "tsc", s->tsc);
    clh_j_kbool_(j, "scaled", s->scaled);
    clh_j_key_(j, "counters");
    clh_j_open_(j, '{');
    for (int id = 0; id < CLH_NCOUNTERS; id++) {
        if (!clh_.ctr[id].available)
            continue;
        clh_j_key_(j, clh_events_[id].name);
        if (s->have[id] == 1)
            clh_j_u64_(j, s->val[id]);
        else
            clh_j_raw_(j, "null");
    }
    clh_j_close_(j, '}');
    clh_j_close_(j, '}');
    clh_j_emit_(j);
}

/* Run the cases the flags select: --list, or calibrate, print meta, then reps x cases
 * interleaved. Returns the process exit status (0); failures exit from inside. */
CLH_API int clh_run(const clh_case *cases, size_t ncases)
{
    if (!clh_.inited)
        clh_fail("clh_run called before clh_init");
    for (int k = 0; k < clh_.nparams; k++) {
        if (!clh_.params[k].given || clh_.params[k].kind != CLH_P_NONE)
            continue;
        char known[512] = "";
        for (int q = 0; q < clh_.nparams; q++)
            if (clh_.params[q].kind != CLH_P_NONE)
                snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
                         known[0] ? ", " : "", clh_.params[q].key);
        clh_usage_error("unknown --param '%s' (this program takes: %s)", clh_.params[k].key,
                         known[0] ? known : "none");
    }
    char names[1024] = "";
    for (size_t i = 0; i < ncases; i++) {
        if (!cases[i].name || !cases[i].fn)
            clh_fail("case %zu has no name or no function", i);
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                 cases[i].name);
    }
    for (int f = 0; f < clh_.nfilter; f++) {
        size_t i = 0;
        while (i < ncases && strcmp(cases[i].name, clh_.filter[f]) != 0)
            i++;
        if (i == ncases)
            clh_usage_error("unknown case '%s' (cases: %s)", clh_.filter[f], names);
    }
    const clh_case **sel = calloc(ncases + 1, sizeof *sel);
    uint64_t *iters = calloc(ncases + 1, sizeof *iters);
    const char **from = calloc(ncases + 1, sizeof *from);
    if (!sel || !iters || !from)
        clh_fail("out of memory");
    size_t nsel = 0;
    for (size_t i = 0; i < ncases; i++) {
        int keep = clh_.nfilter == 0;
        for (int f = 0; f < clh_.nfilter && !keep; f++)
            keep = strcmp(cases[i].name, clh_.filter[f]) == 0;
        if (keep)
            sel[nsel++] = &cases[i];
    }
    clh_json_ j = { 0 };
    if (clh_.list) {
        for (size_t i = 0; i < nsel; i++) {
            clh_j_open_(&j, '{');
            clh_j_kstr_(&j, "type", "case");
            clh_j_kstr_(&j, "name", sel[i]->name);
            clh_j_kstr_(&j, "unit", sel[i]->unit ? sel[i]->unit : "iter");
            clh_j_ku64_(&j, "units_per_iter", sel[i]->units_per_iter ? sel[i]->units_per_iter : 1);
            clh_j_close_(&j, '}');
            clh_j_emit_(&j);
        }
    } else {
        clh_pin_();
        clh_tsc_detect_();
        clh_counters_open_();
        for (size_t i = 0; i < nsel; i++)
            iters[i] = clh_calibrate_(sel[i], &from[i]);
        clh_emit_meta_(sel, iters, from, nsel);
        clh_sample_ s;
        for (uint64_t r = 0; r < clh_.reps; r++)
            for (size_t i = 0; i < nsel; i++) {
                clh_call_(sel[i], iters[i], &s);
                clh_emit_rep_(&j, sel[i], r, iters[i], &s);
            }
        clh_counters_close_();
    }
    free(j.buf);
    free(sel);
    free(iters);
    free(from);
    return 0;
}

#endif /* CPULAB_HARNESS_H */
