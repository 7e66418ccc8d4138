/* fileread.c — reading a whole file and checksumming every byte, by each way C offers.
 *
 * One iteration is one pass over --param path=FILE: open it, bring every byte into the
 * process, add it up as 64-bit words (the same sum_words() for every strategy, so that
 * only the way in differs), close it; unit "byte". Every pass's sum must equal
 * --param sum=N (the experiment writes the file and knows its sum), or the run fails.
 *
 *   read-4k .. read-4m  open + read() into one 4 KiB .. 4 MiB buffer, summed per chunk
 *   mmap                open + mmap(PROT_READ, MAP_PRIVATE), summed in place, munmap
 *   mmap-sequential     the same after madvise(MADV_SEQUENTIAL): read ahead harder,
 *                       drop pages behind
 *   mmap-populate       mmap(MAP_POPULATE): the kernel maps every page before the pass,
 *                       one fault-free walk instead of a fault per 16-page fault-around
 *   mmap-hugepage       the same as mmap after madvise(MADV_HUGEPAGE); whether the kernel
 *                       maps the file with huge pages is probed (below)
 *   fread               fopen + fread() in 64 KiB chunks (glibc hands requests of at least
 *                       its buffer's size straight to read(), into the caller's buffer)
 *   memory              the sum over a private copy of the file already in memory: the
 *                       ceiling that reading from the page cache can approach
 *
 * --param cache=warm (default): the file stays in the page cache; main reads it once and
 * before every call mincore() must find all of it resident (or it is read back, untimed,
 * and counted). --param cache=cold:
 * before every call, outside the timed region, posix_fadvise(POSIX_FADV_DONTNEED) evicts
 * it, and mincore() must confirm that at most 1% stayed, or the run fails (an eviction
 * without effect would pass warm reads off as cold). A cold case makes one pass per
 * call: a second pass would find the file cached.
 *
 * Extra lines, before the meta line (README.md of the harness, "Output"):
 *   {"type":"pmd-mapped","case":"mmap","bytes":N,"file_pmd_mapped":M}  for mmap and
 *       mmap-hugepage: the FilePmdMapped bytes (/proc/self/smaps) of one untimed pass in
 *       the same cache state: how much of the file the kernel mapped with huge pages
 *   {"type":"refused","case":"mmap-hugepage","reason":"..."}  the kernel refused the
 *       advice; the case is left out
 *   {"type":"eviction","pages":P,"resident":R}  cold only: the most pages mincore() found
 *       resident after any eviction, printed at the end
 *   {"type":"rewarm","pages":P,"calls":K,"most_missing":M}  warm only: before K calls
 *       some pages (at most M) had left the page cache and were read back, untimed
 */
#include "cpulab_harness.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "filepass.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)
#define MAX_CHUNK (4 * MiB)
#define FREAD_CHUNK (64 * KiB)
#define MAX_FILE ((uint64_t)16 << 30) /* the experiment's largest is 1 GiB */
#define EVICT_TOLERANCE 100           /* resident pages per 10,000 after an eviction: 1% */

enum way { WAY_READ, WAY_MMAP, WAY_FREAD, WAY_MEMORY };

struct strategy {
    const char *name;
    enum way way;
    size_t chunk;  /* read and fread: bytes per call                                     */
    int map_flags; /* mmap: added to MAP_PRIVATE                                          */
    int advice;    /* mmap: madvise() before the pass (0, MADV_NORMAL: none)              */
    int probe;     /* mmap: report the huge-page share of one untimed pass                */
};

static struct strategy strategies[] = {
    { .name = "read-4k", .way = WAY_READ, .chunk = 4 * KiB },
    { .name = "read-64k", .way = WAY_READ, .chunk = 64 * KiB },
    { .name = "read-1m", .way = WAY_READ, .chunk = 1 * MiB },
    { .name = "read-4m", .way = WAY_READ, .chunk = 4 * MiB },
    { .name = "mmap", .way = WAY_MMAP, .probe = 1 },
    { .name = "mmap-sequential", .way = WAY_MMAP, .advice = MADV_SEQUENTIAL },
    { .name = "mmap-populate", .way = WAY_MMAP, .map_flags = MAP_POPULATE },
    { .name = "mmap-hugepage", .way = WAY_MMAP, .advice = MADV_HUGEPAGE, .probe = 1 },
    { .name = "fread", .way = WAY_FREAD, .chunk = FREAD_CHUNK },
    { .name = "memory", .way = WAY_MEMORY },
};
#define NSTRATEGIES (sizeof strategies / sizeof strategies[0])

static const char *path;
static uint64_t expected_sum;
static size_t file_size, file_pages;
static int file_fd = -1;          /* held open for eviction and residency checks */
static unsigned char *chunk_buf;  /* MAX_CHUNK bytes, shared by read and fread   */
static uint64_t *memory_copy;     /* the file's bytes, for the `memory` ceiling  */
static unsigned char *residency;  /* mincore() vector, one byte per page         */
static size_t page_size, most_resident_after_eviction;
static size_t rewarmed_calls, most_missing_when_warm;

/* ---- the checksum ---------------------------------------------------------------------- */


static uint64_t checked(const struct strategy *s, uint64_t sum)
{
    if (sum != expected_sum)
        clh_fail("%s: checksum %" PRIu64 " of %s, expected %" PRIu64, s->name, sum, path,
                 expected_sum);
    return sum;
}

/* ---- one pass per strategy -------------------------------------------------------------- */

static int open_file(const struct strategy *s)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        clh_fail("%s: open(%s): %s", s->name, path, strerror(errno));
    return fd;
}

static uint64_t read_pass(const struct strategy *s)
{
    int fd = open_file(s);
    uint64_t sum = 0;
    size_t total = 0;
    for (;;) {
        /* Fill the whole chunk (a regular file returns it in one call), so that every
         * sum but the last covers exactly `chunk` bytes. */
        size_t got = 0;
        while (got < s->chunk) {
            ssize_t r = read(fd, chunk_buf + got, s->chunk - got);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0)
                clh_fail("%s: read(%s): %s", s->name, path, strerror(errno));
            if (r == 0)
                break;
            got += (size_t)r;
        }
        if (got == 0)
            break;
        sum += sum_words(chunk_buf, got);
        total += got;
        if (got < s->chunk)
            break;
    }
    close(fd);
    if (total != file_size)
        clh_fail("%s: read %zu bytes of %s, expected %zu", s->name, total, path, file_size);
    return sum;
}

static uint64_t mmap_pass(const struct strategy *s)
{
    int fd = open_file(s);
    void *p = mmap(NULL, file_size, PROT_READ, MAP_PRIVATE | s->map_flags, fd, 0);
    if (p == MAP_FAILED)
        clh_fail("%s: mmap(%s): %s", s->name, path, strerror(errno));
    if (s->advice != MADV_NORMAL && madvise(p, file_size, s->advice) != 0)
        clh_fail("%s: madvise: %s", s->name, strerror(errno));
    uint64_t sum = sum_words(p, file_size);
    munmap(p, file_size);
    close(fd);
    return sum;
}

static uint64_t fread_pass(const struct strategy *s)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        clh_fail("%s: fopen(%s): %s", s->name, path, strerror(errno));
    uint64_t sum = 0;
    size_t got, total = 0;
    while ((got = fread(chunk_buf, 1, s->chunk, f)) > 0) {
        sum += sum_words(chunk_buf, got);
        total += got;
        if (got < s->chunk) /* a short chunk is the last (or an error, checked next) */
            break;
    }
    if (ferror(f))
        clh_fail("%s: fread(%s): %s", s->name, path, strerror(errno));
    fclose(f);
    if (total != file_size)
        clh_fail("%s: read %zu bytes of %s, expected %zu", s->name, total, path, file_size);
    return sum;
}

static uint64_t pass(uint64_t iters, void *arg)
{
    const struct strategy *s = arg;
    uint64_t last = 0;
    for (uint64_t i = 0; i < iters; i++) {
        switch (s->way) {
        case WAY_READ: last = read_pass(s); break;
        case WAY_MMAP: last = mmap_pass(s); break;
        case WAY_FREAD: last = fread_pass(s); break;
        case WAY_MEMORY:
            clh_escape(memory_copy); /* the copy may not be assumed unchanged between passes */
            last = sum_words(memory_copy, file_size);
            break;
        }
        checked(s, last);
    }
    return last;
}

/* ---- the page cache --------------------------------------------------------------------- */


static void evict(void *arg)
{
    (void)arg;
    int rc = posix_fadvise(file_fd, 0, 0, POSIX_FADV_DONTNEED);
    if (rc != 0)
        clh_fail("eviction refused: posix_fadvise(POSIX_FADV_DONTNEED): %s", strerror(rc));
    size_t left = file_resident_pages(file_fd, path, file_size, file_pages, residency);
    if (left > most_resident_after_eviction)
        most_resident_after_eviction = left;
    if (left * 10000 > file_pages * EVICT_TOLERANCE)
        clh_fail("eviction without effect: posix_fadvise(POSIX_FADV_DONTNEED) left %zu of %zu "
                 "pages of %s resident (mincore)", left, file_pages, path);
}

/* Warm: every pass starts with all of the file in the page cache. The kernel may drop a
 * few pages between passes (~0.2% of a 1 GiB file here, a whole large folio at a time);
 * they are read back, outside the timed region, and counted. */
static void check_warm(void *arg)
{
    const struct strategy *s = arg;
    size_t n = file_resident_pages(file_fd, path, file_size, file_pages, residency);
    if (n == file_pages)
        return;
    rewarmed_calls++;
    if (file_pages - n > most_missing_when_warm)
        most_missing_when_warm = file_pages - n;
    for (size_t off = 0; off < file_size; off += MAX_CHUNK)
        if (pread(file_fd, chunk_buf, MAX_CHUNK, (off_t)off) < 0)
            clh_fail("pread(%s): %s", path, strerror(errno));
    n = file_resident_pages(file_fd, path, file_size, file_pages, residency);
    if (n < file_pages)
        clh_fail("warm cache lost before %s: only %zu of %zu pages of %s stay resident "
                 "(mincore) after reading it again", s ? s->name : "the first case", n,
                 file_pages, path);
}

/* ---- set-up ----------------------------------------------------------------------------- */


static void read_whole_file(void)
{
    size_t got = 0;
    while (got < file_size) {
        ssize_t r = pread(file_fd, (char *)memory_copy + got, file_size - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            clh_fail("pread(%s): %s", path, r < 0 ? strerror(errno) : "unexpected end of file");
        got += (size_t)r;
    }
}

/* FilePmdMapped of the mapping at `addr` in /proc/self/smaps, in bytes; -1 if not found. */
static long long pmd_mapped(const void *addr)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[512];
    int inside = 0;
    long long kib = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long start;
        char dash;
        if (sscanf(line, "%lx%c", &start, &dash) == 2 && dash == '-')
            inside = start == (unsigned long)addr;
        else if (inside && sscanf(line, "FilePmdMapped: %lld kB", &kib) == 1)
            break;
    }
    fclose(f);
    return kib < 0 ? -1 : kib * 1024;
}

/* One untimed pass the way `s` maps the file: NULL and a line saying how much of the file
 * the kernel mapped with huge pages, or the reason it refused the advice. */
static const char *probe_mapping(const struct strategy *s)
{
    static char why[160];
    void *p = mmap(NULL, file_size, PROT_READ, MAP_PRIVATE | s->map_flags, file_fd, 0);
    if (p == MAP_FAILED)
        clh_fail("%s: mmap(%s): %s", s->name, path, strerror(errno));
    if (s->advice != MADV_NORMAL && madvise(p, file_size, s->advice) != 0) {
        snprintf(why, sizeof why, "madvise(%s) on a file mapping: %s",
                 s->advice == MADV_HUGEPAGE ? "MADV_HUGEPAGE" : "MADV_SEQUENTIAL",
                 strerror(errno));
        munmap(p, file_size);
        return why;
    }
    uint64_t sum = sum_words(p, file_size);
    long long huge = pmd_mapped(p);
    munmap(p, file_size);
    if (sum != expected_sum)
        clh_fail("%s probe: checksum %" PRIu64 ", expected %" PRIu64, s->name, sum,
                 expected_sum);
    printf("{\"type\":\"pmd-mapped\",\"case\":\"%s\",\"bytes\":%zu,\"file_pmd_mapped\":%lld}\n",
           s->name, file_size, huge);
    return NULL;
}

static void open_test_file(void)
{
    file_fd = open(path, O_RDONLY);
    if (file_fd < 0)
        clh_usage_error("--param path=%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(file_fd, &st) != 0)
        clh_fail("fstat(%s): %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        clh_usage_error("--param path=%s: not a regular file", path);
    if (st.st_size <= 0 || st.st_size % 8 != 0 || (uint64_t)st.st_size > MAX_FILE)
        clh_usage_error("--param path=%s: %lld bytes; want a multiple of 8 from 8 to 16 GiB",
                        path, (long long)st.st_size);
    file_size = (size_t)st.st_size;
}

int main(int argc, char **argv)
{
    clh_init(argc, argv);
    path = clh_param_str("path", "");
    expected_sum = clh_param_u64("sum", 0);
    const char *cache = clh_param_str("cache", "warm");
    int cold = strcmp(cache, "cold") == 0;
    if (!cold && strcmp(cache, "warm") != 0)
        clh_usage_error("--param cache=%s: want warm or cold", cache);
    if (!*path)
        clh_usage_error("--param path=FILE is required: the file to read");
    open_test_file();

    page_size = (size_t)sysconf(_SC_PAGESIZE);
    file_pages = (file_size + page_size - 1) / page_size;
    residency = must_map(file_pages, "the mincore vector");
    chunk_buf = must_map(MAX_CHUNK, "the read buffer");
    memory_copy = must_map(file_size, "the in-memory copy");
    read_whole_file(); /* also leaves the file in the page cache */
    if (sum_words(memory_copy, file_size) != expected_sum)
        clh_fail("%s sums to %" PRIu64 ", expected %" PRIu64 " (--param sum)", path,
                 sum_words(memory_copy, file_size), expected_sum);

    clh_case cases[NSTRATEGIES];
    size_t n = 0;
    for (size_t i = 0; i < NSTRATEGIES; i++) {
        struct strategy *s = &strategies[i];
        if (s->probe) {
            if (cold)
                evict(NULL); /* probe the cache state the case will run in */
            const char *why = probe_mapping(s);
            if (why) {
                printf("{\"type\":\"refused\",\"case\":\"%s\",\"reason\":\"%s\"}\n", s->name, why);
                continue;
            }
        }
        int io = s->way != WAY_MEMORY;
        cases[n++] = (clh_case){
            .name = s->name, .fn = pass, .arg = s, .units_per_iter = file_size,
            .unit = "byte",
            .setup = io ? (cold ? evict : check_warm) : NULL,
            .iters = io && cold ? 1 : 0,
        };
    }
    if (cold)
        evict(NULL); /* fail before any timing if this kernel will not drop the file */
    else
        check_warm(NULL);
    fflush(stdout);
    int rc = clh_run(cases, n);
    if (cold)
        printf("{\"type\":\"eviction\",\"pages\":%zu,\"resident\":%zu}\n", file_pages,
               most_resident_after_eviction);
    else
        printf("{\"type\":\"rewarm\",\"pages\":%zu,\"calls\":%zu,\"most_missing\":%zu}\n",
               file_pages, rewarmed_calls, most_missing_when_warm);
    close(file_fd);
    return rc;
}
