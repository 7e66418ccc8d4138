/* gzwrap — the command-line front end of libcpulab-gzwrap: one file (or standard input)
 * re-wrapped into another format without recompressing. The library does the work; this
 * file parses flags, opens files, prints the notes and errors, and exits in one place.
 *
 * Output never appears half-written: with -o it goes to a temporary file in the target's
 * folder, renamed over the target only on success; without -o it is spooled to an
 * unnamed temporary file and copied to standard output only on success.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gzwrap.h>

enum exit_code {
    EXIT_OK = 0,
    EXIT_INVALID = 1,     /* the input is not a valid stream of its format */
    EXIT_USAGE = 2,       /* the command line is at fault */
    EXIT_IO = 3,          /* a file could not be opened, read, written or renamed */
    EXIT_CANNOT = 4,      /* valid input that the target cannot hold, or not in this build */
    EXIT_VERIFY = 5,      /* --verify found the output different from the input */
};

static const char USAGE[] =
    "usage: gzwrap [--to FORMAT] [--from FORMAT] [-o OUTPUT [-f]] [--verify] [INPUT]\n"
    "\n"
    "Re-wrap a gzip, zlib, raw deflate or MySQL/MariaDB COMPRESS() stream into another of\n"
    "these formats without recompressing: the deflate bytes are copied as they are, and the\n"
    "checksum and length the target needs are computed by inflating the stream once, which\n"
    "also checks the source's own. Several gzip members (cat a.gz b.gz, pigz, bgzip) become\n"
    "one stream. INPUT is a file or - (standard input, the default).\n"
    "\n"
    "  -t, --to FORMAT      gzip, zlib (default), deflate or mysql (COMPRESS(): a 4-byte\n"
    "                       little-endian length, then zlib; UNCOMPRESS() reads it back)\n"
    "  -F, --from FORMAT    the input's format; by default found from its first bytes\n"
    "                       (raw deflate has none: say --from deflate)\n"
    "  -o, --output FILE    write FILE (replaced only on success); default standard output\n"
    "  -f, --force          replace an existing FILE\n"
    "      --verify         decode the output again with zlib and compare its length,\n"
    "                       CRC-32 and Adler-32 with the input's data\n"
    "      --inflater IMPL  auto (default), isal or zlib\n"
    "      --crc32 IMPL     auto, isal, libdeflate or zlib\n"
    "      --adler32 IMPL   auto, isal, libdeflate or zlib\n"
    "      --list-impls     print the implementations this build has, then exit\n"
    "  -v, --verbose        say what was found and done (on standard error)\n"
    "  -q, --quiet          do not print notes about dropped gzip header fields\n"
    "  -h, --help           this text\n"
    "      --version        the version\n"
    "\n"
    "Header fields that the target cannot carry (a gzip file name, comment, time, extra\n"
    "field; a later member's header) are dropped with a note on standard error.\n"
    "\n"
    "Exit status: 0 done; 1 the input is invalid (the message names the byte offset and what\n"
    "was expected there); 2 usage error; 3 a file could not be opened, read or written;\n"
    "4 the target cannot hold this input (COMPRESS() holds < 1 GiB; a zlib preset\n"
    "dictionary) or the implementation is not in this build; 5 --verify found a difference.\n";

static char *tmp_path; /* the temporary output, removed on failure and on signals */

static void on_signal(int sig) {
    if (tmp_path)
        unlink(tmp_path);
    signal(sig, SIG_DFL);
    raise(sig);
}

static int die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int die(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("gzwrap: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    if (tmp_path) {
        unlink(tmp_path);
        tmp_path = NULL;
    }
    return code;
}

static int exit_for(gzwrap_status st) {
    switch (st) {
    case GZWRAP_OK: return EXIT_OK;
    case GZWRAP_ERR_UNSUPPORTED:
    case GZWRAP_ERR_TOO_LARGE:
    case GZWRAP_ERR_NEEDS_SEEK:
    case GZWRAP_ERR_UNAVAILABLE: return EXIT_CANNOT;
    case GZWRAP_ERR_READ:
    case GZWRAP_ERR_WRITE:
    case GZWRAP_ERR_NOMEM: return EXIT_IO;
    case GZWRAP_ERR_ARG: return EXIT_USAGE;
    default: return EXIT_INVALID;
    }
}

static long long fd_read(void *ctx, void *buf, size_t cap) {
    for (;;) {
        ssize_t n = read(*(int *)ctx, buf, cap);
        if (n >= 0 || errno != EINTR)
            return n;
    }
}

static int copy_fd(int from, int to) {
    static char buf[1 << 20];
    for (;;) {
        ssize_t n = read(from, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return (int)n;
        for (char *p = buf; n > 0;) {
            ssize_t w = write(to, p, (size_t)n);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                return -1;
            p += w, n -= w;
        }
    }
}

/* A temporary file beside `target` (the rename stays within one file system). */
static int open_temp_beside(const char *target) {
    char *copy = strdup(target);
    const char *dir = dirname(copy);
    char *base_copy = strdup(target);
    const char *base = basename(base_copy);
    size_t n = strlen(dir) + strlen(base) + 32;
    tmp_path = malloc(n);
    snprintf(tmp_path, n, "%s/.%s.gzwrap-XXXXXX", dir, base);
    free(copy), free(base_copy);
    int fd = mkstemp(tmp_path);
    if (fd < 0) {
        free(tmp_path);
        tmp_path = NULL;
        return -1;
    }
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    return fd;
}

/* An unnamed temporary file for standard output's spool. */
static int open_spool(void) {
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    int fd = open(dir, O_TMPFILE | O_RDWR, 0600);
    if (fd >= 0)
        return fd;
    char path[4096];
    snprintf(path, sizeof path, "%s/gzwrap-XXXXXX", dir);
    fd = mkstemp(path);
    if (fd >= 0)
        unlink(path);
    return fd;
}

static void print_impls(void) {
    static const gzwrap_role roles[] = {GZWRAP_ROLE_INFLATE, GZWRAP_ROLE_CRC32, GZWRAP_ROLE_ADLER32};
    static const char *const names[] = {"inflate", "crc32", "adler32"};
    for (int r = 0; r < 3; r++) {
        printf("%-8s auto=%s", names[r], gzwrap_impl_name(gzwrap_impl_resolve(GZWRAP_IMPL_AUTO, roles[r])));
        for (int i = GZWRAP_IMPL_ZLIB; i <= GZWRAP_IMPL_LIBDEFLATE; i++)
            if (gzwrap_impl_available((gzwrap_impl)i, roles[r]))
                printf(" %s", gzwrap_impl_name((gzwrap_impl)i));
        printf("\n");
    }
}

int main(int argc, char **argv) {
    enum { OPT_VERIFY = 256, OPT_INFLATER, OPT_CRC, OPT_ADLER, OPT_LIST, OPT_VERSION };
    static const struct option longopts[] = {
        {"to", required_argument, 0, 't'},       {"from", required_argument, 0, 'F'},
        {"output", required_argument, 0, 'o'},   {"force", no_argument, 0, 'f'},
        {"verify", no_argument, 0, OPT_VERIFY},  {"inflater", required_argument, 0, OPT_INFLATER},
        {"crc32", required_argument, 0, OPT_CRC}, {"adler32", required_argument, 0, OPT_ADLER},
        {"list-impls", no_argument, 0, OPT_LIST}, {"verbose", no_argument, 0, 'v'},
        {"quiet", no_argument, 0, 'q'},          {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, OPT_VERSION}, {0, 0, 0, 0}};
    gzwrap_options opt;
    gzwrap_options_init(&opt);
    const char *output = NULL;
    int force = 0, verify = 0, verbose = 0, quiet = 0, c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":t:F:o:fvqh", longopts, NULL)) != -1) {
        gzwrap_impl *impl = NULL;
        switch (c) {
        case 't':
            if (gzwrap_format_parse(optarg, &opt.to) || opt.to == GZWRAP_FORMAT_AUTO)
                return die(EXIT_USAGE, "--to %s: expected gzip, zlib, deflate or mysql", optarg);
            break;
        case 'F':
            if (gzwrap_format_parse(optarg, &opt.from))
                return die(EXIT_USAGE, "--from %s: expected auto, gzip, zlib, deflate or mysql",
                           optarg);
            break;
        case 'o': output = optarg; break;
        case 'f': force = 1; break;
        case 'v': verbose = 1; break;
        case 'q': quiet = 1; break;
        case OPT_VERIFY: verify = 1; break;
        case OPT_INFLATER: impl = &opt.inflater; break;
        case OPT_CRC: impl = &opt.crc32; break;
        case OPT_ADLER: impl = &opt.adler32; break;
        case OPT_LIST: print_impls(); return EXIT_OK;
        case 'h': fputs(USAGE, stdout); return EXIT_OK;
        case OPT_VERSION: printf("gzwrap %s\n", GZWRAP_VERSION_STRING); return EXIT_OK;
        case ':': return die(EXIT_USAGE, "%s needs a value (see --help)", argv[optind - 1]);
        default: return die(EXIT_USAGE, "unknown option %s (see --help)", argv[optind - 1]);
        }
        if (impl && gzwrap_impl_parse(optarg, impl))
            return die(EXIT_USAGE, "%s %s: expected auto, isal, libdeflate or zlib",
                       argv[optind - 2], optarg);
    }
    if (argc - optind > 1)
        return die(EXIT_USAGE, "one INPUT at most, got %d (see --help)", argc - optind);
    const char *input = optind < argc ? argv[optind] : "-";
    int in_fd = strcmp(input, "-") == 0 ? STDIN_FILENO : open(input, O_RDONLY | O_CLOEXEC);
    if (in_fd < 0)
        return die(EXIT_IO, "%s: cannot open: %s", input, strerror(errno));
    if (output && !force && access(output, F_OK) == 0)
        return die(EXIT_USAGE, "%s exists: use -f to replace it", output);
    if (!output && isatty(STDOUT_FILENO) && !verbose)
        return die(EXIT_USAGE, "will not write compressed data to a terminal: use -o FILE or "
                               "a redirection");

    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
    int out_fd = output ? open_temp_beside(output) : open_spool();
    if (out_fd < 0)
        return die(EXIT_IO, "%s: cannot create a temporary file: %s",
                   output ? output : "standard output", strerror(errno));

    opt.all_checksums = verify;
    gzwrap_report rep;
    gzwrap_status st = gzwrap_fd_convert(&opt, in_fd, out_fd, &rep);
    const char *shown = in_fd == STDIN_FILENO ? "standard input" : input;
    if (st)
        return die(exit_for(st), "%s: byte %llu: %s (%s)", shown,
                   (unsigned long long)rep.error_offset, rep.error, gzwrap_status_str(st));
    if (!quiet)
        for (size_t i = 0; i < rep.n_notes; i++) {
            const gzwrap_note *n = &rep.notes[i];
            fprintf(stderr, "gzwrap: note: %s", n->text);
            if (n->members > 1)
                fprintf(stderr, " (members %llu and %llu more)",
                        (unsigned long long)n->first_member, (unsigned long long)n->members - 1);
            else if (rep.members > 1)
                fprintf(stderr, " (member %llu)", (unsigned long long)n->first_member);
            fputc('\n', stderr);
        }
    if (verbose)
        fprintf(stderr,
                "gzwrap: %s -> %s: %llu member(s), %llu bytes of data, %llu deflate bytes copied, "
                "%llu alignment block(s); %llu bytes in, %llu out; inflate %s, crc32 %s, "
                "adler32 %s\n",
                gzwrap_format_name(rep.from), gzwrap_format_name(rep.to),
                (unsigned long long)rep.members, (unsigned long long)rep.data_bytes,
                (unsigned long long)rep.payload_bytes, (unsigned long long)rep.aligned,
                (unsigned long long)rep.in_bytes, (unsigned long long)rep.out_bytes,
                gzwrap_impl_name(rep.inflater_impl), gzwrap_impl_name(rep.crc32_impl),
                gzwrap_impl_name(rep.adler32_impl));

    if (verify) {
        int rfd = dup(out_fd);
        if (rfd < 0 || lseek(rfd, 0, SEEK_SET) != 0)
            return die(EXIT_IO, "--verify: cannot read the output back: %s", strerror(errno));
        gzwrap_reader rd = {&rfd, fd_read};
        gzwrap_check chk;
        gzwrap_report crep;
        gzwrap_status cs = gzwrap_stream_check(opt.to, &rd, &chk, &crep);
        close(rfd);
        if (cs)
            return die(EXIT_VERIFY, "--verify: zlib cannot decode the output: byte %llu: %s",
                       (unsigned long long)crep.error_offset, crep.error);
        if (chk.data_bytes != rep.data_bytes || chk.crc32 != rep.crc32 ||
            chk.adler32 != rep.adler32)
            return die(EXIT_VERIFY,
                       "--verify: the output decodes to %llu bytes (CRC-32 %08X, Adler-32 %08X), "
                       "the input to %llu (CRC-32 %08X, Adler-32 %08X)",
                       (unsigned long long)chk.data_bytes, chk.crc32, chk.adler32,
                       (unsigned long long)rep.data_bytes, rep.crc32, rep.adler32);
        if (verbose)
            fprintf(stderr, "gzwrap: verified: %llu bytes, CRC-32 %08X, Adler-32 %08X\n",
                    (unsigned long long)chk.data_bytes, chk.crc32, chk.adler32);
    }

    if (output) {
        if (fsync(out_fd) != 0 || close(out_fd) != 0)
            return die(EXIT_IO, "%s: %s", output, strerror(errno));
        if (rename(tmp_path, output) != 0)
            return die(EXIT_IO, "%s: cannot rename %s over it: %s", output, tmp_path,
                       strerror(errno));
        free(tmp_path);
        tmp_path = NULL;
    } else {
        if (lseek(out_fd, 0, SEEK_SET) != 0 || copy_fd(out_fd, STDOUT_FILENO) != 0)
            return die(EXIT_IO, "standard output: %s", strerror(errno));
        close(out_fd);
    }
    return EXIT_OK;
}
