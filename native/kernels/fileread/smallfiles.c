/* smallfiles.c — reading many small files whole, where the cost per file, not per byte,
 * decides between read() and mmap.
 *
 * One iteration is one pass over --param files=N files of --param size=S bytes each,
 * DIR/0.bin .. DIR/<N-1>.bin (--param dir=DIR): open each, bring every byte into the
 * process, add it up as 64-bit words (the same sum_words() for every strategy), close it;
 * unit "file". The pass's sum over all files must equal --param sum=X, or the run fails.
 *
 *   files-read           open + read() of the whole file into one reused buffer (until
 *                        read() returns 0, as a reader that does not stat first) + close
 *   files-mmap           open + fstat + mmap(PROT_READ, MAP_PRIVATE) + sum + munmap +
 *                        close: a VMA set up and torn down, and at least one fault, per file
 *   files-mmap-populate  the same with MAP_POPULATE: the pages are mapped in the mmap()
 *                        call, no fault, but the page-table work stays
 *   files-fread          fopen + fread() in 64 KiB chunks + fclose (glibc's FILE and its
 *                        buffer are malloc'd and freed per file)
 *
 * --param cache=warm (default): before every call, outside the timed region, mincore()
 * must find every page of every file resident (missing pages are read back, untimed, and
 * counted). --param cache=cold: before every call posix_fadvise(POSIX_FADV_DONTNEED)
 * evicts each file, and mincore() must confirm that at most 1% of the pages stayed, or
 * the run fails; one pass per call.
 *
 * Extra lines, after the reps (as fileread.c):
 *   {"type":"eviction","pages":P,"resident":R}       cold only
 *   {"type":"rewarm","pages":P,"calls":K,"most_missing":M}  warm only
 */
#include "cpulab_harness.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "filepass.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)
#define MAX_FILES 100000
#define MAX_SIZE (16 * MiB)
#define FREAD_CHUNK (64 * KiB)
#define EVICT_TOLERANCE 100 /* resident pages per 10,000 after an eviction: 1% */

enum way { WAY_READ, WAY_MMAP, WAY_FREAD };

struct strategy {
    const char *name;
    enum way way;
    int map_flags; /* mmap: added to MAP_PRIVATE */
};

static const struct strategy strategies[] = {
    { .name = "files-read", .way = WAY_READ },
    { .name = "files-mmap", .way = WAY_MMAP },
    { .name = "files-mmap-populate", .way = WAY_MMAP, .map_flags = MAP_POPULATE },
    { .name = "files-fread", .way = WAY_FREAD },
};
#define NSTRATEGIES (sizeof strategies / sizeof strategies[0])

static const char *dir;
static uint64_t nfiles, expected_sum;
static size_t file_size, file_pages, page_size;
static char **paths;             /* built once: the lookup is timed, the formatting not */
static unsigned char *buf;       /* file_size + 8 bytes: read's buffer, fread's chunks  */
static unsigned char *residency; /* mincore() vector of one file                         */
static size_t most_resident_after_eviction, rewarmed_calls, most_missing_when_warm;


static void check_size(const struct strategy *s, const char *path, size_t got)
{
    if (got != file_size)
        clh_fail("%s: read %zu bytes of %s, expected %zu", s->name, got, path, file_size);
}

/* ---- one file per strategy ------------------------------------------------------------- */

static uint64_t read_file(const struct strategy *s, const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        clh_fail("%s: open(%s): %s", s->name, path, strerror(errno));
    size_t got = 0;
    for (;;) { /* the buffer has room past the file's size: the last read() returns 0 */
        ssize_t r = read(fd, buf + got, file_size + 8 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            clh_fail("%s: read(%s): %s", s->name, path, strerror(errno));
        if (r == 0 || (got += (size_t)r) > file_size)
            break;
    }
    close(fd);
    check_size(s, path, got);
    return sum_words(buf, got);
}

static uint64_t mmap_file(const struct strategy *s, const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        clh_fail("%s: open(%s): %s", s->name, path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0)
        clh_fail("%s: fstat(%s): %s", s->name, path, strerror(errno));
    check_size(s, path, (size_t)st.st_size);
    void *p = mmap(NULL, file_size, PROT_READ, MAP_PRIVATE | s->map_flags, fd, 0);
    if (p == MAP_FAILED)
        clh_fail("%s: mmap(%s): %s", s->name, path, strerror(errno));
    uint64_t sum = sum_words(p, file_size);
    munmap(p, file_size);
    close(fd);
    return sum;
}

static uint64_t fread_file(const struct strategy *s, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        clh_fail("%s: fopen(%s): %s", s->name, path, strerror(errno));
    uint64_t sum = 0;
    size_t got, total = 0;
    while ((got = fread(buf, 1, FREAD_CHUNK < file_size ? FREAD_CHUNK : file_size, f)) > 0) {
        sum += sum_words(buf, got);
        total += got;
    }
    if (ferror(f))
        clh_fail("%s: fread(%s): %s", s->name, path, strerror(errno));
    fclose(f);
    check_size(s, path, total);
    return sum;
}

static uint64_t pass(uint64_t iters, void *arg)
{
    const struct strategy *s = arg;
    uint64_t sum = 0;
    for (uint64_t i = 0; i < iters; i++) {
        sum = 0;
        for (uint64_t k = 0; k < nfiles; k++) {
            switch (s->way) {
            case WAY_READ: sum += read_file(s, paths[k]); break;
            case WAY_MMAP: sum += mmap_file(s, paths[k]); break;
            case WAY_FREAD: sum += fread_file(s, paths[k]); break;
            }
        }
        if (sum != expected_sum)
            clh_fail("%s: checksum %" PRIu64 " of %" PRIu64 " files in %s, expected %" PRIu64,
                     s->name, sum, nfiles, dir, expected_sum);
    }
    return sum;
}

/* ---- the page cache --------------------------------------------------------------------- */


static int open_quietly(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        clh_fail("open(%s): %s", path, strerror(errno));
    return fd;
}

/* Every file dropped from the page cache, and mincore() confirms it, outside the timing. */
static void evict(void *arg)
{
    (void)arg;
    size_t left = 0;
    for (uint64_t k = 0; k < nfiles; k++) {
        int fd = open_quietly(paths[k]);
        int rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        if (rc != 0)
            clh_fail("eviction refused: posix_fadvise(POSIX_FADV_DONTNEED): %s", strerror(rc));
        left += file_resident_pages(fd, paths[k], file_size, file_pages, residency);
        close(fd);
    }
    if (left > most_resident_after_eviction)
        most_resident_after_eviction = left;
    if (left * 10000 > nfiles * file_pages * EVICT_TOLERANCE)
        clh_fail("eviction without effect: posix_fadvise(POSIX_FADV_DONTNEED) left %zu of "
                 "%zu pages of the files in %s resident (mincore)", left,
                 (size_t)nfiles * file_pages, dir);
}

/* Warm: every pass starts with every page of every file in the page cache; pages the
 * kernel dropped in between are read back, untimed, and counted. */
static void check_warm(void *arg)
{
    (void)arg;
    size_t missing = 0;
    for (uint64_t k = 0; k < nfiles; k++) {
        int fd = open_quietly(paths[k]);
        size_t n = file_resident_pages(fd, paths[k], file_size, file_pages, residency);
        if (n < file_pages) {
            missing += file_pages - n;
            if (pread(fd, buf, file_size, 0) < 0)
                clh_fail("pread(%s): %s", paths[k], strerror(errno));
            if (file_resident_pages(fd, paths[k], file_size, file_pages, residency) < file_pages)
                clh_fail("warm cache lost: %s does not stay resident (mincore) after "
                         "reading it again", paths[k]);
        }
        close(fd);
    }
    if (missing) {
        rewarmed_calls++;
        if (missing > most_missing_when_warm)
            most_missing_when_warm = missing;
    }
}

/* ---- set-up ----------------------------------------------------------------------------- */


/* The names, each checked to be a regular file of `size` bytes, before anything runs. */
static void find_files(void)
{
    paths = calloc(nfiles, sizeof *paths);
    if (!paths)
        clh_fail("out of memory for %" PRIu64 " file names", nfiles);
    size_t room = strlen(dir) + 32; /* "/" + up to 20 digits + ".bin" */
    for (uint64_t k = 0; k < nfiles; k++) {
        if (!(paths[k] = malloc(room)))
            clh_fail("out of memory for file names");
        snprintf(paths[k], room, "%s/%" PRIu64 ".bin", dir, k);
        struct stat st;
        if (stat(paths[k], &st) != 0)
            clh_usage_error("--param dir=%s: %s: %s", dir, paths[k], strerror(errno));
        if (!S_ISREG(st.st_mode) || (size_t)st.st_size != file_size)
            clh_usage_error("--param dir=%s: %s is not a regular file of %zu bytes (--param "
                            "size)", dir, paths[k], file_size);
    }
}

int main(int argc, char **argv)
{
    clh_init(argc, argv);
    dir = clh_param_str("dir", "");
    nfiles = clh_param_u64("files", 1000);
    file_size = (size_t)clh_param_u64("size", 4096);
    expected_sum = clh_param_u64("sum", 0);
    const char *cache = clh_param_str("cache", "warm");
    int cold = strcmp(cache, "cold") == 0;
    if (!cold && strcmp(cache, "warm") != 0)
        clh_usage_error("--param cache=%s: want warm or cold", cache);
    if (!*dir)
        clh_usage_error("--param dir=DIR is required: the folder of files to read");
    if (nfiles < 1 || nfiles > MAX_FILES)
        clh_usage_error("--param files=%" PRIu64 ": want 1 to %d", nfiles, MAX_FILES);
    if (file_size < 8 || file_size > MAX_SIZE || file_size % 8 != 0)
        clh_usage_error("--param size=%zu: want a multiple of 8 from 8 to 16 MiB", file_size);
    find_files();

    page_size = (size_t)sysconf(_SC_PAGESIZE);
    file_pages = (file_size + page_size - 1) / page_size;
    residency = must_map(file_pages, "the mincore vector");
    buf = must_map(file_size + 8, "the read buffer");

    clh_case cases[NSTRATEGIES];
    for (size_t i = 0; i < NSTRATEGIES; i++)
        cases[i] = (clh_case){
            .name = strategies[i].name, .fn = pass, .arg = (void *)&strategies[i],
            .units_per_iter = nfiles, .unit = "file",
            .setup = cold ? evict : check_warm, .iters = cold ? 1 : 0,
        };
    if (cold)
        evict(NULL); /* fail before any timing if this kernel will not drop the files */
    else
        check_warm(NULL);
    fflush(stdout);
    int rc = clh_run(cases, NSTRATEGIES);
    size_t pages = (size_t)nfiles * file_pages;
    if (cold)
        printf("{\"type\":\"eviction\",\"pages\":%zu,\"resident\":%zu}\n", pages,
               most_resident_after_eviction);
    else
        printf("{\"type\":\"rewarm\",\"pages\":%zu,\"calls\":%zu,\"most_missing\":%zu}\n",
               pages, rewarmed_calls, most_missing_when_warm);
    return rc;
}
