/* gzwrap — the command-line front end of libcpulab-gzwrap: one file (or standard input)
 * re-wrapped into another format without recompressing. The library does the work; this
 * file parses flags, opens the input, prints the notes and errors, and exits in one place;
 * output.c decides how the output is written so that it never appears half-written as a
 * file, and streams to pipes wherever the format allows.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gzwrap.h>

#include "output.h"

/* A progress line on standard error (a terminal) for inputs of this size and more: from
 * about 0.2 s of work at zlib's ~0.3 GB/s of compressed input, updated once a second. */
#define PROGRESS_MIN (64ll << 20)

/* The default output's suffix per target format (pigz -z writes .zz). */
static const char *const SUFFIX[] = {
    [GZWRAP_FORMAT_GZIP] = ".gz", [GZWRAP_FORMAT_ZLIB] = ".zz",
    [GZWRAP_FORMAT_DEFLATE] = ".deflate", [GZWRAP_FORMAT_MYSQL] = ".my"};

enum exit_code {
    EXIT_OK = 0,
    EXIT_INVALID = 1,     /* the input is not a valid stream of its format */
    EXIT_USAGE = 2,       /* the command line is at fault */
    EXIT_IO = 3,          /* a file could not be opened, read, written or renamed */
    EXIT_CANNOT = 4,      /* valid input that the target cannot hold, or not in this build */
    EXIT_VERIFY = 5,      /* --verify found the output different from the input */
};

static const char USAGE[] =
    "usage: gzwrap [--to FORMAT] [--from FORMAT] [-c | -o OUTPUT] [-f] [--verify] [INPUT]\n"
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
    "  -o, --output FILE    write FILE (- is standard output). By default an INPUT file\n"
    "                       gives INPUT with its suffix (.gz .zz .z .deflate .my) replaced\n"
    "                       by the target's: .gz, .zz (zlib), .deflate or .my (mysql);\n"
    "                       standard input gives standard output\n"
    "  -c, --stdout         write standard output\n"
    "  -f, --force          replace an existing FILE (a symbolic link is followed; a FIFO\n"
    "                       or device is written into, never replaced)\n"
    "  -k, --keep           accepted for gzip's sake: INPUT is never removed\n"
    "      --verify         decode the output again with zlib and compare its length,\n"
    "                       CRC-32 and Adler-32 with the input's data (the output is held\n"
    "                       back until then)\n"
    "      --inflater IMPL  auto (default), isal or zlib\n"
    "      --crc32 IMPL     auto, isal, libdeflate or zlib\n"
    "      --adler32 IMPL   auto, isal, libdeflate, zlib, or gzwrap's own: portable, avx2,\n"
    "                       avx512 or avx512-vnni (where the CPU runs it)\n"
    "      --list-impls     print the implementations this build has, then exit\n"
    "  -v, --verbose        say what was found and done (on standard error)\n"
    "  -q, --quiet          no notes about dropped gzip header fields, no progress line\n"
    "  -h, --help           this text\n"
    "      --version        the version\n"
    "\n"
    "A FILE appears only on success, whole: it is written unnamed beside its place and\n"
    "linked in at the end; a replaced file keeps its mode and (as root) its owner. Standard\n"
    "output streams, except what may still change: a COMPRESS() value read from a pipe is\n"
    "held whole (its length comes first; from a file, a first pass measures it); of gzip\n"
    "input, the last block of each member (it is marked final until the next member shows\n"
    "up; finding where blocks start costs about as much CPU time again as the inflate,\n"
    "spent only on a pipe), in $TMPDIR; after a failure it has at most a prefix without\n"
    "the target's trailer. Compressed data is never written to a terminal.\n"
    "Inputs of 64 MiB or more show a progress line when standard error is a terminal.\n"
    "\n"
    "Header fields that the target cannot carry (a gzip file name, comment, time, extra\n"
    "field; a later member's header) are dropped with a note on standard error.\n"
    "\n"
    "Exit status: 0 done; 1 the input is invalid (the message names the byte offset and what\n"
    "was expected there); 2 usage error; 3 a file could not be opened, read or written (the\n"
    "message gives the system's reason); 4 the target cannot hold this input (COMPRESS()\n"
    "holds < 1 GiB; a zlib preset dictionary) or the implementation is not in this build;\n"
    "5 --verify found a difference.\n";

static gzw_dest *open_dest; /* removed (a temporary) or cut back (in place) on failure */

static void on_signal(int sig) {
    gzw_dest_on_signal();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Catch the signals that would leave a named temporary behind, except those ignored when
 * gzwrap started: under nohup SIGHUP stays ignored, as gzip leaves it. */
static void catch_signals(void) {
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            signal(sigs[i], on_signal);
    }
}

static int die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int die(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("gzwrap: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    if (open_dest) {
        gzw_dest_abort(open_dest);
        open_dest = NULL;
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

/* The library names its options by their field (`from`); the command by its flag. */
static const char *as_flags(const char *msg) {
    static char buf[2 * GZWRAP_TEXT_MAX];
    const char *at = strstr(msg, "`from`");
    if (!at)
        return msg;
    snprintf(buf, sizeof buf, "%.*s--from%s", (int)(at - msg), msg, at + 6);
    return buf;
}

/* The input, counted for the progress line. */
typedef struct input {
    int fd, err;
    const char *name;
    uint64_t done, size; /* size: 0 when no progress line is shown */
    time_t shown;
} input;

static void progress(input *in, int final) {
    time_t now = time(NULL);
    if (!final && now == in->shown)
        return;
    in->shown = now;
    if (final)
        fputs("\r\033[K", stderr);
    else
        fprintf(stderr, "\rgzwrap: %s: %3d%% of %llu MiB", in->name,
                (int)(100 * in->done / in->size), (unsigned long long)(in->size >> 20));
}

static long long input_read(void *ctx, void *buf, size_t cap) {
    input *in = ctx;
    for (;;) {
        ssize_t n = read(in->fd, buf, cap);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            in->err = errno;
        else if ((in->done += (uint64_t)n, in->size))
            progress(in, 0);
        return n;
    }
}

static long long fd_read(void *ctx, void *buf, size_t cap) {
    for (;;) {
        ssize_t n = read(*(int *)ctx, buf, cap);
        if (n >= 0 || errno != EINTR)
            return n;
    }
}

/* The data's length, for COMPRESS() to a pipe, whose length comes first: from a regular
 * file a first pass with zlib's decoder measures it, so that the value streams as it is
 * made instead of waiting whole in a spool in $TMPDIR (from a pipe only the spool can hold
 * it). 0 where it cannot be known: not a regular file, an undetected format, an input
 * that fails to decode (the conversion says why), no data at all (COMPRESS('') is '',
 * which the spool cuts back). The input is left where it was. */
static uint64_t measured_length(int fd, gzwrap_format from) {
    struct stat st;
    off_t start = lseek(fd, 0, SEEK_CUR);
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || start < 0)
        return 0;
    if (from == GZWRAP_FORMAT_AUTO) {
        uint8_t head[16];
        ssize_t n = pread(fd, head, sizeof head, start);
        if (n < 0 || gzwrap_format_detect(head, (size_t)n, (size_t)n < sizeof head, &from))
            return 0;
    }
    gzwrap_reader rd = {&fd, fd_read};
    gzwrap_check chk;
    gzwrap_status st1 = gzwrap_stream_check(from, &rd, &chk, NULL);
    if (lseek(fd, start, SEEK_SET) != start)
        return 0;
    return st1 == GZWRAP_OK ? chk.data_bytes : 0;
}

/* gzip's habit: INPUT with its format's suffix replaced by the target's; NULL when that
 * would be INPUT itself. */
static char *default_output(const char *input, gzwrap_format to) {
    static const char *const known[] = {".gz", ".zz", ".z", ".deflate", ".my"};
    const char *suffix = SUFFIX[to];
    size_t n = strlen(input);
    for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
        size_t k = strlen(known[i]);
        if (n > k && strcmp(input + n - k, known[i]) == 0 && input[n - k - 1] != '/') {
            n -= k;
            break;
        }
    }
    char *out = malloc(n + strlen(suffix) + 1);
    memcpy(out, input, n);
    strcpy(out + n, suffix);
    if (strcmp(out, input) == 0) {
        free(out);
        return NULL;
    }
    return out;
}

static void print_impls(void) {
    static const gzwrap_role roles[] = {GZWRAP_ROLE_INFLATE, GZWRAP_ROLE_CRC32, GZWRAP_ROLE_ADLER32};
    static const char *const names[] = {"inflate", "crc32", "adler32"};
    for (int r = 0; r < 3; r++) {
        printf("%-8s auto=%s", names[r], gzwrap_impl_name(gzwrap_impl_resolve(GZWRAP_IMPL_AUTO, roles[r])));
        for (int i = GZWRAP_IMPL_ZLIB; i <= GZWRAP_IMPL_LAST; i++)
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
        {"stdout", no_argument, 0, 'c'},         {"keep", no_argument, 0, 'k'},
        {"verify", no_argument, 0, OPT_VERIFY},  {"inflater", required_argument, 0, OPT_INFLATER},
        {"crc32", required_argument, 0, OPT_CRC}, {"adler32", required_argument, 0, OPT_ADLER},
        {"list-impls", no_argument, 0, OPT_LIST}, {"verbose", no_argument, 0, 'v'},
        {"quiet", no_argument, 0, 'q'},          {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, OPT_VERSION}, {0, 0, 0, 0}};
    gzwrap_options opt;
    gzwrap_options_init(&opt);
    const char *output = NULL;
    int force = 0, to_stdout = 0, verify = 0, verbose = 0, quiet = 0, c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":t:F:o:fckvqh", longopts, NULL)) != -1) {
        /* the flag as typed, for messages: -t, -tzlib, --to, --to=zlib, --t=zlib */
        const char *flag = optarg && argv[optind - 1] == optarg ? argv[optind - 2]
                                                                 : argv[optind - 1];
        size_t flag_len = strcspn(flag, "=");
        if (optarg && optarg > flag && optarg < flag + flag_len)
            flag_len = (size_t)(optarg - flag);
        char typed[64];
        snprintf(typed, sizeof typed, "%.*s", (int)flag_len, flag);
        gzwrap_impl *impl = NULL;
        switch (c) {
        case 't':
            if (gzwrap_format_parse(optarg, &opt.to) || opt.to == GZWRAP_FORMAT_AUTO)
                return die(EXIT_USAGE, "%s %s: expected gzip, zlib, deflate or mysql", typed,
                           optarg);
            break;
        case 'F':
            if (gzwrap_format_parse(optarg, &opt.from))
                return die(EXIT_USAGE, "%s %s: expected auto, gzip, zlib, deflate or mysql",
                           typed, optarg);
            break;
        case 'o': output = optarg; break;
        case 'f': force = 1; break;
        case 'c': to_stdout = 1; break;
        case 'k': break; /* the input is always kept */
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
        default:
            if (optopt)
                return die(EXIT_USAGE, "unknown option -%c (see --help)", optopt);
            return die(EXIT_USAGE, "unknown option %s (see --help)", argv[optind - 1]);
        }
        if (impl && gzwrap_impl_parse(optarg, impl))
            return die(EXIT_USAGE, "%s %s: expected auto, isal, libdeflate or zlib", typed,
                       optarg);
    }
    if (argc - optind > 1)
        return die(EXIT_USAGE, "one INPUT at most, got %d (see --help)", argc - optind);
    if (to_stdout && output && strcmp(output, "-") != 0)
        return die(EXIT_USAGE, "-c and -o %s: say one place for the output", output);
    const char *input_name = optind < argc ? argv[optind] : "-";
    int from_stdin = strcmp(input_name, "-") == 0;
    if (output && strcmp(output, "-") == 0) /* as in gzip and pigz */
        to_stdout = 1, output = NULL;
    if (!output && !to_stdout && !from_stdin &&
        !(output = default_output(input_name, opt.to)))
        return die(EXIT_USAGE, "%s would be its own output (--to %s): use -o FILE or -c",
                   input_name, gzwrap_format_name(opt.to));

    input in = {from_stdin ? STDIN_FILENO : open(input_name, O_RDONLY | O_CLOEXEC), 0,
                from_stdin ? "standard input" : input_name, 0, 0, 0};
    if (in.fd < 0)
        return die(EXIT_IO, "%s: cannot open: %s", input_name, strerror(errno));
    struct stat ist;
    if (isatty(STDERR_FILENO) && !quiet && fstat(in.fd, &ist) == 0 && S_ISREG(ist.st_mode) &&
        ist.st_size >= PROGRESS_MIN)
        in.size = (uint64_t)ist.st_size;
    /* whatever the verbosity: -v writes to standard error, not instead of the data */
    if (!output && isatty(STDOUT_FILENO))
        return die(EXIT_USAGE, "will not write compressed data to a terminal: use -o FILE or "
                               "a redirection");

    gzw_dest dest;
    int r = output ? gzw_dest_open_path(&dest, output, force) : gzw_dest_open_stdout(&dest);
    if (r == -2)
        return die(EXIT_USAGE, "%s exists: use -f to replace it", output);
    if (r)
        return die(EXIT_IO, "%s: %s: %s", dest.name, dest.why, strerror(dest.err));
    open_dest = &dest;
    dest.hold_all = verify; /* zlib's check reads the output back before it is passed on */
    /* a pipe gets a gzip member's blocks as they are walked, not the member at its end */
    if (dest.kind == GZW_DEST_STREAM && !verify && opt.to == GZWRAP_FORMAT_MYSQL)
        opt.data_length = measured_length(in.fd, opt.from);
    opt.walk_blocks = dest.kind == GZW_DEST_STREAM && !verify &&
                      (opt.to != GZWRAP_FORMAT_MYSQL || opt.data_length);
    catch_signals();

    opt.all_checksums = verify;
    gzwrap_report rep;
    gzwrap_reader rd = {&in, input_read};
    gzwrap_writer wr = gzw_dest_writer(&dest);
    gzwrap_status st = gzwrap_stream_convert(&opt, &rd, &wr, &rep);
    if (in.size)
        progress(&in, 1);
    if (st == GZWRAP_ERR_READ && in.err)
        return die(EXIT_IO, "%s: %s", in.name, strerror(in.err));
    if (st == GZWRAP_ERR_WRITE && dest.err)
        return die(EXIT_IO, "%s: %s: %s", dest.name, dest.why, strerror(dest.err));
    if (st)
        return die(exit_for(st), "%s: byte %llu: %s (%s)", in.name,
                   (unsigned long long)rep.error_offset, as_flags(rep.error),
                   gzwrap_status_str(st));
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
                "%llu alignment block(s), %llu block(s) walked to join; %llu bytes in, %llu "
                "out; inflate %s, crc32 %s, adler32 %s\n",
                gzwrap_format_name(rep.from), gzwrap_format_name(rep.to),
                (unsigned long long)rep.members, (unsigned long long)rep.data_bytes,
                (unsigned long long)rep.payload_bytes, (unsigned long long)rep.aligned,
                (unsigned long long)rep.blocks_walked,
                (unsigned long long)rep.in_bytes, (unsigned long long)rep.out_bytes,
                gzwrap_impl_name(rep.inflater_impl), gzwrap_impl_name(rep.crc32_impl),
                gzwrap_impl_name(rep.adler32_impl));

    if (verify) {
        int rfd = gzw_dest_reopen(&dest);
        if (rfd < 0)
            return die(EXIT_IO, "--verify: cannot read the output back: %s", strerror(errno));
        gzwrap_reader vrd = {&rfd, fd_read};
        gzwrap_check chk;
        gzwrap_report crep;
        gzwrap_status cs = gzwrap_stream_check(opt.to, &vrd, &chk, &crep);
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
    if (gzw_dest_commit(&dest) != 0)
        return die(EXIT_IO, "%s: %s: %s", dest.name, dest.why, strerror(dest.err));
    open_dest = NULL;
    return EXIT_OK;
}
