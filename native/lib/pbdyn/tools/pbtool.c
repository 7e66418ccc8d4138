/* pbtool — the command-line front end of libcpulab-pbdyn: a binary protobuf
 * message on standard input printed in the text format, as `protoc --decode`
 * and `protoc --decode_raw` print it, with the schema taken from a
 * descriptor set instead of .proto files, or in the proto3 JSON mapping; and
 * the way back, the text format (as `protoc --encode` reads it) or JSON read
 * into a binary message. The library does the work; this file parses the command
 * line, reads the files, and exits in one place.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pbdyn.h>

enum exit_code {
  EXIT_OK = 0,
  EXIT_INVALID = 1, /* the message does not parse (protoc's "Failed to parse input.") */
  EXIT_USAGE = 2,   /* the command line is at fault, or no such type */
  EXIT_IO = 3,      /* a file could not be read, or the output written */
  EXIT_SCHEMA = 4,  /* the descriptor set is malformed */
};

static const char USAGE[] =
    "usage: pbtool decode --descriptor-set FILE TYPE < MESSAGE\n"
    "       pbtool decode --descriptor-set FILE --json TYPE < MESSAGE\n"
    "       pbtool decode-raw < MESSAGE\n"
    "       pbtool encode --descriptor-set FILE TYPE < TEXT > MESSAGE\n"
    "       pbtool encode --descriptor-set FILE --json TYPE < JSON > MESSAGE\n"
    "\n"
    "Print a binary protobuf message (standard input) in the text format, byte for byte\n"
    "as protoc 3.21 prints it, or read the text format back into a binary message:\n"
    "\n"
    "  decode      as `protoc --decode=TYPE -I... FILE.proto`: TYPE is a full message\n"
    "              name (pkg.Outer.Inner); FILE a FileDescriptorSet that holds it and\n"
    "              everything it imports (protoc --include_imports --descriptor_set_out).\n"
    "              Extensions print as unknown fields (by number).\n"
    "  decode-raw  as `protoc --decode_raw`: every field by number, with no schema.\n"
    "  encode      as `protoc --encode=TYPE -I... FILE.proto`: the text format on\n"
    "              standard input (what decode prints, unknown fields by number\n"
    "              included) written as a binary message to standard output, known\n"
    "              fields in field-number order, then the unknown ones. With --json,\n"
    "              the proto3 JSON mapping instead (field JSON or proto names,\n"
    "              well-known types in their own forms), as protobuf's JSON parser\n"
    "              reads it.\n"
    "\n"
    "  -d, --descriptor-set FILE   the schema of `decode`\n"
    "      --json                  `decode` prints the proto3 JSON mapping instead, on\n"
    "                              one line (field JSON names, 64-bit integers quoted,\n"
    "                              well-known types in their own forms), as protobuf's\n"
    "                              MessageToJsonString does; `encode` reads it\n"
    "  -h, --help                  this text\n"
    "      --version               the version\n"
    "\n"
    "Messages nest at most 100 deep, as in protoc. Exit status: 0 printed; 1 the message\n"
    "does not parse (the reason on standard error: \"Failed to parse input\", then pbdyn's\n"
    "error and the byte offset of the field at fault; for encode, the line, column and\n"
    "byte offset of the token at fault), or with --json holds a value that\n"
    "has no JSON form (\"Failed to print JSON\": a Timestamp out of range, an Any of a\n"
    "type not in FILE, ...); 2 usage error or unknown TYPE; 3 a file could not be read or\n"
    "the output written; 4 the descriptor set is malformed.\n";

static int die(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("pbtool: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  if (code == EXIT_USAGE) fputs("Try 'pbtool --help'.\n", stderr);
  return code;
}

/* The whole of f, malloc'd (never NULL on success, even when empty). */
static char *read_all(FILE *f, size_t *size) {
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap) break;
    char *nb = realloc(buf, cap *= 2);
    if (!nb) free(buf);
    buf = nb;
  }
  if (buf && ferror(f)) {
    free(buf);
    return NULL;
  }
  *size = n;
  return buf;
}

/* A one-message descriptor set (file "e", message "E" with no fields): decode-raw
 * decodes into it, so that every field is unknown and checked by the same decoder. */
static const char EMPTY_SCHEMA[] = "\x0a\x08\x0a\x01" "e" "\x22\x03\x0a\x01" "E";

/* Decode the message on standard input as m and print it: in the text
 * format, or as JSON (a line). */
static int print_message(const pbdyn_msgdef *m, bool json) {
  size_t len, text_len;
  char *buf = read_all(stdin, &len), *text;
  if (!buf) return die(EXIT_IO, "standard input: %s", strerror(errno));
  pbdyn_arena *a = pbdyn_arena_new(0);
  pbdyn_msg *msg = a ? pbdyn_msg_new(m, a) : NULL;
  size_t at = PBDYN_NO_OFFSET;
  pbdyn_decode_opts opts = {0, PBDYN_DECODER_FAST, 0, &at};
  pbdyn_status st = msg ? pbdyn_decode(buf, len, msg, m, a, &opts) : PBDYN_ERR_NOMEM,
               print_st = PBDYN_OK;
  if (st == PBDYN_OK && json) {
    print_st = pbdyn_json_encode(msg, m, a, &text, &text_len, NULL);
    if (print_st == PBDYN_OK) text[text_len++] = '\n'; /* over the NUL: fwrite needs none */
  } else if (st == PBDYN_OK) {
    print_st = pbdyn_text_encode(msg, m, a, &text, &text_len);
  }
  int code = EXIT_OK;
  if (st != PBDYN_OK && at != PBDYN_NO_OFFSET) {
    code = die(EXIT_INVALID, "Failed to parse input: %s at byte %zu (%zu bytes of %s)",
               pbdyn_status_str(st), at, len, pbdyn_msgdef_name(m));
  } else if (st != PBDYN_OK) {
    code = die(st == PBDYN_ERR_NOMEM ? EXIT_IO : EXIT_INVALID,
               "Failed to parse input: %s (%zu bytes of %s)", pbdyn_status_str(st), len,
               pbdyn_msgdef_name(m));
  } else if (print_st != PBDYN_OK) {
    code = die(print_st == PBDYN_ERR_NOMEM ? EXIT_IO : EXIT_INVALID,
               "Failed to print JSON: %s (%s)", pbdyn_status_str(print_st), pbdyn_msgdef_name(m));
  } else if (fwrite(text, 1, text_len, stdout) != text_len || fflush(stdout) != 0) {
    code = die(EXIT_IO, "standard output: %s", strerror(errno));
  }
  pbdyn_arena_free(a);
  free(buf);
  return code;
}

/* Parse the text format (or JSON) on standard input as m and write its
 * binary form. */
static int encode_message(const pbdyn_msgdef *m, bool json) {
  size_t len, bin_len;
  char *text = read_all(stdin, &len), *bin;
  if (!text) return die(EXIT_IO, "standard input: %s", strerror(errno));
  pbdyn_arena *a = pbdyn_arena_new(0);
  pbdyn_msg *msg = a ? pbdyn_msg_new(m, a) : NULL;
  pbdyn_parse_error at = {PBDYN_NO_OFFSET, 0, 0};
  pbdyn_parse_opts opts = {0, 0, &at};
  pbdyn_status st = !msg ? PBDYN_ERR_NOMEM
                    : json ? pbdyn_json_decode(text, len, msg, m, a, &opts)
                           : pbdyn_text_decode(text, len, msg, m, a, &opts);
  if (st == PBDYN_OK) st = pbdyn_encode(msg, m, a, &bin, &bin_len);
  int code = EXIT_OK;
  if (st != PBDYN_OK && at.offset != PBDYN_NO_OFFSET) {
    code = die(EXIT_INVALID, "Failed to parse input: %s at line %" PRIu32 " column %" PRIu32
               " (byte %zu of %s)", pbdyn_status_str(st), at.line, at.column, at.offset,
               pbdyn_msgdef_name(m));
  } else if (st != PBDYN_OK) {
    code = die(st == PBDYN_ERR_NOMEM ? EXIT_IO : EXIT_INVALID, "Failed to encode: %s (%s)",
               pbdyn_status_str(st), pbdyn_msgdef_name(m));
  } else if (fwrite(bin, 1, bin_len, stdout) != bin_len || fflush(stdout) != 0) {
    code = die(EXIT_IO, "standard output: %s", strerror(errno));
  }
  pbdyn_arena_free(a);
  free(text);
  return code;
}

static int load_schema(const char *path, const char *data, size_t len, pbdyn_schema **s) {
  pbdyn_status st = pbdyn_schema_load(data, len, s);
  if (st != PBDYN_OK)
    return die(EXIT_SCHEMA, "%s: not a descriptor set: %s", path, pbdyn_status_str(st));
  return EXIT_OK;
}

/* decode or encode: the schema from the file at path, then the message type. */
static int cmd_typed(const char *path, const char *type, bool encode, bool json) {
  FILE *f = fopen(path, "rb");
  if (!f) return die(EXIT_IO, "%s: %s", path, strerror(errno));
  size_t len;
  char *fds = read_all(f, &len);
  int saved = errno;
  fclose(f);
  if (!fds) return die(EXIT_IO, "%s: %s", path, strerror(saved));
  pbdyn_schema *s = NULL;
  int code = load_schema(path, fds, len, &s);
  free(fds);
  if (code != EXIT_OK) return code;
  const pbdyn_msgdef *m = pbdyn_schema_find(s, type[0] == '.' ? type + 1 : type);
  if (!m) code = die(EXIT_USAGE, "%s: no message type %s", path, type);
  else code = encode ? encode_message(m, json) : print_message(m, json);
  pbdyn_schema_free(s);
  return code;
}

static int cmd_decode_raw(void) {
  pbdyn_schema *s = NULL;
  int code = load_schema("(built-in)", EMPTY_SCHEMA, sizeof EMPTY_SCHEMA - 1, &s);
  if (code != EXIT_OK) return code;
  code = print_message(pbdyn_schema_find(s, "E"), false);
  pbdyn_schema_free(s);
  return code;
}

static int run(int argc, char **argv) {
  const char *fds = NULL, *args[2];
  int nargs = 0;
  bool json = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(USAGE, stdout);
      return EXIT_OK;
    } else if (!strcmp(a, "--version")) {
      printf("pbtool %s\n", PBDYN_VERSION_STRING);
      return EXIT_OK;
    } else if (!strcmp(a, "-d") || !strcmp(a, "--descriptor-set")) {
      if (++i == argc) return die(EXIT_USAGE, "%s needs a FILE", a);
      fds = argv[i];
    } else if (!strncmp(a, "--descriptor-set=", 17)) {
      fds = a + 17;
    } else if (!strcmp(a, "--json")) {
      json = true;
    } else if (a[0] == '-' && a[1]) {
      return die(EXIT_USAGE, "unknown option %s", a);
    } else if (nargs == 2) {
      return die(EXIT_USAGE, "unexpected argument %s", a);
    } else {
      args[nargs++] = a;
    }
  }
  if (nargs == 0) return die(EXIT_USAGE, "no command (decode, decode-raw or encode)");
  if (!strcmp(args[0], "decode") || !strcmp(args[0], "encode")) {
    if (!fds) return die(EXIT_USAGE, "%s needs --descriptor-set FILE", args[0]);
    if (nargs != 2) return die(EXIT_USAGE, "%s needs a TYPE", args[0]);
    return cmd_typed(fds, args[1], args[0][0] == 'e', json);
  }
  if (!strcmp(args[0], "decode-raw")) {
    if (nargs != 1 || fds || json)
      return die(EXIT_USAGE, "decode-raw takes no TYPE, descriptor set or --json");
    return cmd_decode_raw();
  }
  return die(EXIT_USAGE, "unknown command %s", args[0]);
}

int main(int argc, char **argv) { return run(argc, argv); }
