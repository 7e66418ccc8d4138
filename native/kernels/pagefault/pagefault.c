/* pagefault.c — what one minor page fault costs, and what part of it is the trap.
 *
 * Every case is a loop that does nothing but the thing measured, one unit per page (or
 * per call for `syscall`). Setup and teardown run around every call, outside the timed
 * region: each call starts from memory that is mapped but not yet faulted in (or, for the
 * pre-faulted cases, from the state they need), and its mapping is removed afterwards.
 *
 *   anon-write     first write to an anonymous page: allocate, zero, map (1 fault/page)
 *   zero-read      first read of an anonymous page: map the shared zero page (1 fault/page);
 *                  the seed's contrived case
 *   zero-cow       write to a page that maps the zero page: copy-on-write (1 fault/page)
 *   file-read      read of a file page already in the page cache (1 fault/page): only
 *                  every STRIDE-th page of a sparse file exists, so the kernel's
 *                  fault-around (16 pages by default) finds nothing else to map
 *   thp-write      first write to a 2 MiB transparent huge page, counted per 4 KiB page
 *                  (1/512 fault/page); fails with the reason if the kernel gives small pages
 *   populate-map   mmap(MAP_POPULATE) of the pages: the anon-write work with no trap per page
 *   populate-write madvise(MADV_POPULATE_WRITE) on mapped pages: the same, by another path
 *   populate-read  madvise(MADV_POPULATE_READ): zero-read's work with no trap per page
 *   mapped-write   write to pages already populated: the loop alone (0 faults/page)
 *   mapped-read    read of pages already mapping the zero page: the loop alone
 *   syscall        syscall(SYS_getppid): the bare kernel round trip, for scale
 *   memset-page    memset of one 4 KiB page in user space: the kernel's clear_page share
 *
 * (fault - populate) per page estimates the trap's own share of a fault; the harness's
 * software page-fault counter (which counts traps, not populate's in-kernel faults) shows
 * ~1 per page where a fault is taken and ~0 where the memory was pre-faulted.
 */
#include "cpulab_harness.h"

#include <fcntl.h>
#include <sys/mman.h>

#ifndef MADV_POPULATE_READ /* Linux 5.14; older headers lack the names, not the kernel */
#define MADV_POPULATE_READ 22
#define MADV_POPULATE_WRITE 23
#endif

#define MAX_BYTES (UINT64_C(1) << 36) /* one call maps at most 64 GiB of address space */
#define FILE_STRIDE 64                /* pages: beyond any fault-around window (64 KiB) */
/* The no-fault cases run a fixed 64 MiB per call: calibrated, their ~10 ns per page would
 * ask for tens of GiB, populated afresh in every setup. 64 MiB still exceeds any LLC. */
#define NO_FAULT_PAGES 16384

static size_t page_size, huge_size;

struct region {
    char *base;     /* what the timed loop touches (huge-aligned for thp-write)           */
    char *map;      /* what munmap releases                                               */
    size_t len, map_len;
    size_t stride;  /* bytes between touched addresses                                    */
};

/* ---- mappings ------------------------------------------------------------------------ */

static size_t call_bytes(const char *what, size_t stride)
{
    uint64_t n = clh_call_iters();
    if (n > MAX_BYTES / stride)
        clh_fail("%s: %" PRIu64 " pages would map more than 64 GiB", what, n);
    return (size_t)n * stride;
}

static void map_anon(struct region *r, const char *what, int extra_flags)
{
    r->stride = page_size;
    r->len = r->map_len = call_bytes(what, page_size);
    void *p = mmap(NULL, r->len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | extra_flags, -1, 0);
    if (p == MAP_FAILED)
        clh_fail("%s: mmap(%zu bytes): %s", what, r->len, strerror(errno));
    r->base = r->map = p;
    /* Huge pages (2 MiB or the smaller mTHP sizes) would turn many touches into one fault. */
    if (madvise(p, r->len, MADV_NOHUGEPAGE) != 0)
        clh_fail("%s: madvise(MADV_NOHUGEPAGE): %s", what, strerror(errno));
}

static void populate(struct region *r, int advice, const char *what)
{
    if (madvise(r->base, r->len, advice) != 0)
        clh_fail("%s: madvise(%s): %s%s", what,
                 advice == MADV_POPULATE_READ ? "MADV_POPULATE_READ" : "MADV_POPULATE_WRITE",
                 strerror(errno), errno == EINVAL ? " (the kernel predates Linux 5.14)" : "");
}

static void unmap(void *arg)
{
    struct region *r = arg;
    if (r->map && munmap(r->map, r->map_len) != 0)
        clh_fail("munmap(%zu bytes): %s", r->map_len, strerror(errno));
    r->map = r->base = NULL;
}

/* ---- the timed loops ------------------------------------------------------------------ */

static uint64_t write_pages(uint64_t iters, void *arg)
{
    struct region *r = arg;
    volatile char *p = r->base;
    for (uint64_t i = 0; i < iters; i++)
        p[i * r->stride] = 1;
    return iters;
}

static uint64_t read_pages(uint64_t iters, void *arg)
{
    struct region *r = arg;
    const volatile char *p = r->base;
    uint64_t sum = 0;
    for (uint64_t i = 0; i < iters; i++)
        sum += (unsigned char)p[i * r->stride];
    return sum + iters;
}

/* ---- anonymous memory ----------------------------------------------------------------- */

static void setup_fresh(void *arg) { map_anon(arg, "fresh pages", 0); }

static void setup_zero_mapped(void *arg)
{
    map_anon(arg, "zero-mapped pages", 0);
    populate(arg, MADV_POPULATE_READ, "zero-mapped pages");
}

static void setup_populated(void *arg)
{
    map_anon(arg, "populated pages", 0);
    populate(arg, MADV_POPULATE_WRITE, "populated pages");
}

/* populate-map: the mmap call itself is what is timed; setup only sizes it. */
static void setup_sized(void *arg)
{
    struct region *r = arg;
    r->stride = page_size;
    r->len = r->map_len = call_bytes("populate-map", page_size);
}

static uint64_t populate_map(uint64_t iters, void *arg)
{
    struct region *r = arg;
    /* No madvise can precede a populating mmap: main()'s PR_SET_THP_DISABLE is what keeps
     * huge pages out of this mapping when THP is in `always` mode. */
    void *p = mmap(NULL, r->len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED)
        clh_fail("populate-map: mmap(MAP_POPULATE, %zu bytes): %s", r->len, strerror(errno));
    r->base = r->map = p;
    return iters;
}

static uint64_t populate_write(uint64_t iters, void *arg)
{
    populate(arg, MADV_POPULATE_WRITE, "populate-write");
    return iters;
}

static uint64_t populate_read(uint64_t iters, void *arg)
{
    populate(arg, MADV_POPULATE_READ, "populate-read");
    return iters;
}

/* ---- transparent huge pages ----------------------------------------------------------- */

static void setup_thp(void *arg)
{
    struct region *r = arg;
    uint64_t pages = clh_call_iters() * (huge_size / page_size);
    if (pages > MAX_BYTES / page_size)
        clh_fail("thp-write: %" PRIu64 " huge pages would map more than 64 GiB",
                 clh_call_iters());
    r->stride = huge_size;
    r->len = (size_t)pages * page_size;
    r->map_len = r->len + huge_size; /* room to align the start to a huge page */
    void *p = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        clh_fail("thp-write: mmap(%zu bytes): %s", r->map_len, strerror(errno));
    r->map = p;
    if (prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0) != 0)
        clh_fail("thp-write: prctl(PR_SET_THP_DISABLE, 0): %s", strerror(errno));
    r->base = (char *)(((uintptr_t)p + huge_size - 1) & ~(uintptr_t)(huge_size - 1));
    if (madvise(r->base, r->len, MADV_HUGEPAGE) != 0)
        clh_fail("thp-write: madvise(MADV_HUGEPAGE): %s (transparent huge pages are not "
                 "built into this kernel)", strerror(errno));
}

/* kB of the mapping that starts at `start` backed by anonymous huge pages, from smaps. */
static long anon_huge_kb(const void *start)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        clh_fail("thp-write: /proc/self/smaps: %s", strerror(errno));
    char line[512];
    int inside = 0;
    long kb = -1;
    while (fgets(line, sizeof line, f)) {
        uintptr_t lo, hi;
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &lo, &hi) == 2)
            inside = lo <= (uintptr_t)start && (uintptr_t)start < hi;
        else if (inside && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
            break;
    }
    fclose(f);
    return kb;
}

/* A refusal is a failure with its reason, never a silent small-page figure. */
static void teardown_thp(void *arg)
{
    struct region *r = arg;
    long want = (long)(r->len / 1024), got = anon_huge_kb(r->base);
    prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
    if (got != want) {
        unmap(arg);
        clh_fail("thp-write: the kernel refused huge pages: %ld of %ld kB were huge "
                 "(see /sys/kernel/mm/transparent_hugepage/enabled and defrag)", got, want);
    }
    unmap(arg);
}

/* ---- a page-cache file ---------------------------------------------------------------- */

/* One sparse file per process, unlinked as soon as it exists so that nothing is left
 * behind whatever way the process ends. Pages written with pwrite stay in the page cache. */
static struct {
    const char *dir;
    int fd;
    uint64_t pages; /* touchable pages written so far: page i is at i * FILE_STRIDE */
} cache_file = { .fd = -1 };

static void grow_cache_file(uint64_t pages)
{
    if (cache_file.fd < 0) {
        char path[4096];
        if (snprintf(path, sizeof path, "%s/cpulab-pagefault-XXXXXX", cache_file.dir) >=
            (int)sizeof path)
            clh_usage_error("--param dir=%s: path too long", cache_file.dir);
        cache_file.fd = mkstemp(path);
        if (cache_file.fd < 0)
            clh_fail("file-read: cannot create a file in %s (--param dir=...): %s",
                     cache_file.dir, strerror(errno));
        unlink(path);
    }
    char *buf = malloc(page_size);
    if (!buf)
        clh_fail("file-read: out of memory");
    memset(buf, 0x5a, page_size);
    for (uint64_t i = cache_file.pages; i < pages; i++)
        if (pwrite(cache_file.fd, buf, page_size, (off_t)(i * FILE_STRIDE * page_size)) !=
            (ssize_t)page_size)
            clh_fail("file-read: writing the file in %s: %s", cache_file.dir, strerror(errno));
    free(buf);
    cache_file.pages = pages;
}

static void setup_file(void *arg)
{
    struct region *r = arg;
    r->stride = FILE_STRIDE * page_size;
    uint64_t n = clh_call_iters();
    r->len = r->map_len = call_bytes("file-read", r->stride);
    if (n > cache_file.pages)
        grow_cache_file(n);
    void *p = mmap(NULL, r->len, PROT_READ, MAP_SHARED, cache_file.fd, 0);
    if (p == MAP_FAILED)
        clh_fail("file-read: mmap of the file: %s", strerror(errno));
    r->base = r->map = p;
}

/* ---- scale: a system call, and zeroing a page in user space ---------------------------- */

static uint64_t null_syscall(uint64_t iters, void *arg)
{
    (void)arg;
    uint64_t sum = 0;
    for (uint64_t i = 0; i < iters; i++)
        sum += (uint64_t)syscall(SYS_getppid);
    return sum;
}

static uint64_t memset_pages(uint64_t iters, void *arg)
{
    struct region *r = arg;
    for (uint64_t i = 0; i < iters; i++) {
        memset(r->base + i * r->stride, 0, page_size);
        clh_escape(r->base);
    }
    return iters;
}

int main(int argc, char **argv)
{
    clh_init(argc, argv);
    cache_file.dir = clh_param_str("dir", "/tmp");
    long ps = sysconf(_SC_PAGESIZE);
    if (ps <= 0)
        clh_fail("sysconf(_SC_PAGESIZE): %s", strerror(errno));
    page_size = (size_t)ps;
    huge_size = (size_t)clh_param_u64("huge", 2u << 20);
    if (huge_size < page_size || huge_size % page_size != 0)
        clh_usage_error("--param huge=%zu: want a multiple of the page size (%zu)", huge_size,
                        page_size);
    static struct region anon_write, zero_read, zero_cow, file_read, thp, pop_map, pop_write,
        pop_read, mapped_write, mapped_read, clear;
    /* Huge pages stay off for the whole process but the thp-write case: a populating mmap
     * cannot be madvised first. Where prctl fails, MADV_NOHUGEPAGE still guards the rest. */
    prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
    const char *page = "page";
    const clh_case cases[] = {
        { .name = "anon-write", .fn = write_pages, .arg = &anon_write, .unit = page,
          .setup = setup_fresh, .teardown = unmap },
        { .name = "zero-read", .fn = read_pages, .arg = &zero_read, .unit = page,
          .setup = setup_fresh, .teardown = unmap },
        { .name = "zero-cow", .fn = write_pages, .arg = &zero_cow, .unit = page,
          .setup = setup_zero_mapped, .teardown = unmap },
        { .name = "file-read", .fn = read_pages, .arg = &file_read, .unit = page,
          .setup = setup_file, .teardown = unmap },
        { .name = "thp-write", .fn = write_pages, .arg = &thp, .unit = page,
          .units_per_iter = huge_size / page_size, .setup = setup_thp,
          .teardown = teardown_thp },
        { .name = "populate-map", .fn = populate_map, .arg = &pop_map, .unit = page,
          .setup = setup_sized, .teardown = unmap },
        { .name = "populate-write", .fn = populate_write, .arg = &pop_write, .unit = page,
          .setup = setup_fresh, .teardown = unmap },
        { .name = "populate-read", .fn = populate_read, .arg = &pop_read, .unit = page,
          .setup = setup_fresh, .teardown = unmap },
        { .name = "mapped-write", .fn = write_pages, .arg = &mapped_write, .unit = page,
          .setup = setup_populated, .teardown = unmap, .iters = NO_FAULT_PAGES },
        { .name = "mapped-read", .fn = read_pages, .arg = &mapped_read, .unit = page,
          .setup = setup_zero_mapped, .teardown = unmap, .iters = NO_FAULT_PAGES },
        { .name = "syscall", .fn = null_syscall, .unit = "syscall" },
        { .name = "memset-page", .fn = memset_pages, .arg = &clear, .unit = page,
          .setup = setup_populated, .teardown = unmap, .iters = NO_FAULT_PAGES },
    };
    return clh_run(cases, sizeof cases / sizeof cases[0]);
}
