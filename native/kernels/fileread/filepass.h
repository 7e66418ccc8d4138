/* filepass.h — what fileread.c and smallfiles.c share: the checksum every strategy uses,
 * the page-cache residency check, and untimed scratch memory. Include after
 * cpulab_harness.h and <sys/mman.h>. */
#ifndef CPULAB_FILEPASS_H
#define CPULAB_FILEPASS_H

/* The sum of n/8 little-endian 64-bit words, modulo 2^64. `p` is 8-byte aligned (a page
 * or an aligned buffer) and n a multiple of 8: the file sizes are checked to be one. */
__attribute__((noinline)) /* one copy for every strategy, and one to read: cpulab asm */
static uint64_t sum_words(const void *p, size_t n)
{
    const uint64_t *w = p;
    uint64_t sum = 0;
    for (size_t i = 0; i < n / 8; i++)
        sum += w[i];
    return sum;
}

/* Pages of the open file `fd` (`size` bytes, `pages` pages) in the page cache now:
 * mincore() of a fresh, untouched mapping, into `residency` (one byte per page). */
static size_t file_resident_pages(int fd, const char *path, size_t size, size_t pages,
                                  unsigned char *residency)
{
    void *p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        clh_fail("mmap(%s) for mincore: %s", path, strerror(errno));
    if (mincore(p, size, residency) != 0)
        clh_fail("mincore(%s): %s", path, strerror(errno));
    munmap(p, size);
    size_t n = 0;
    for (size_t i = 0; i < pages; i++)
        n += residency[i] & 1;
    return n;
}

/* Anonymous memory, faulted in now rather than in a timed pass. */
static void *must_map(size_t n, const char *what)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        clh_fail("mmap(%zu bytes) for %s: %s", n, what, strerror(errno));
    memset(p, 0, n);
    return p;
}

#endif /* CPULAB_FILEPASS_H */
