/* A conformance testee: speaks the protobuf conformance runner's protocol
 * (tests/data/conformance.proto) on stdin/stdout, for the binary tests, the
 * tests that print binary input as JSON, and the text-format tests. It
 * reads its requests and writes its responses with the pbdyn library
 * itself, so the protocol messages are decoded and encoded by the code under
 * test too.
 *
 * Usage: conformance_testee [ARG...] SCHEMA.pb
 *   SCHEMA.pb, the last argument: a descriptor set with conformance.proto and the test message
 *   types (for the upstream suite: test_messages_proto2.proto and
 *   test_messages_proto3.proto, compiled with protoc --include_imports).
 *   Environment PBDYN_TESTEE_DECODER=fast|switch|generic picks the decoder.
 *   Earlier arguments are ignored: protobuf 3.21's conformance_test_runner
 *   passes the testee its own path before the arguments it was given.
 *
 * Each request: the binary payload is decoded as message_type (a text
 * payload parsed by pbdyn_text_decode, a JSON one by pbdyn_json_decode, with
 * PBDYN_PARSE_IGNORE_UNKNOWN for the tests that ask for it) and, if that
 * succeeds, encoded back
 * (protobuf_payload), printed by pbdyn_json_encode (json_payload) or by
 * pbdyn_text_encode (text_payload) as the requested output format says; a
 * decode error is a parse_error naming the status, a value with no JSON form
 * (a Timestamp out of range, ...) a serialize_error. JSPB input and output
 * are answered "skipped", as are message types the schema does
 * not have, and text output without print_unknown_fields of a message that
 * has unknown fields (pbdyn_text_encode always prints them).
 * Exit status 0 at the end of input; 1 on a broken pipe or framing error.
 * At the end it prints to stderr how many binary requests it answered and
 * how many of them it skipped (a type missing from the schema), then the
 * same of the binary-to-JSON requests, so that a run can show that every
 * such test of the suite was really decoded and printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdyn.h"
#include "read_file.h"

enum {
  REQ_PROTOBUF_PAYLOAD = 1,
  REQ_JSON_PAYLOAD = 2,
  REQ_OUTPUT_FORMAT = 3,
  REQ_MESSAGE_TYPE = 4,
  REQ_TEST_CATEGORY = 5,
  REQ_TEXT_PAYLOAD = 8,
  REQ_PRINT_UNKNOWN_FIELDS = 9,
};
enum {
  RESP_PARSE_ERROR = 1,
  RESP_SERIALIZE_ERROR = 6,
  RESP_RUNTIME_ERROR = 2,
  RESP_PROTOBUF_PAYLOAD = 3,
  RESP_JSON_PAYLOAD = 4,
  RESP_SKIPPED = 5,
  RESP_TEXT_PAYLOAD = 8,
};
enum { FORMAT_PROTOBUF = 1, FORMAT_JSON = 2, FORMAT_TEXT = 4 };
enum { JSON_IGNORE_UNKNOWN_PARSING_TEST = 3 };

static pbdyn_schema *schema;
static const pbdyn_msgdef *req_def, *resp_def;
static pbdyn_decoder decoder = PBDYN_DECODER_FAST;
static size_t n_binary, n_parsed, n_rejected, n_skipped, n_skipped_binary;
/* protobuf input, JSON output: printed, rejected input, no JSON form, skipped type */
static size_t n_json, n_json_printed, n_json_rejected, n_json_unprintable, n_json_skipped;
/* JSON input: answered, rejected input, not printable as JSON, skipped type */
static size_t n_json_in, n_json_in_answered, n_json_in_rejected, n_json_in_unprintable,
    n_json_in_skipped;
/* text input or output: answered, rejected input, skipped (unknown fields to leave out) */
static size_t n_text, n_text_answered, n_text_rejected, n_text_skipped;

static bool read_exact(void *buf, size_t n) { return fread(buf, 1, n, stdin) == n; }

/* Set one string/bytes field of the response's oneof. */
static void respond(pbdyn_msg *resp, uint32_t field, const char *data, size_t n) {
  pbdyn_value v = {.str = {data, n}};
  pbdyn_msg_set(resp, pbdyn_msgdef_field_by_number(resp_def, field), v);
}

static void respond_str(pbdyn_msg *resp, uint32_t field, const char *s) {
  respond(resp, field, s, strlen(s));
}

/* Whether msg or any message inside it has unknown fields. */
static bool has_unknown(const pbdyn_msg *msg) {
  if (pbdyn_msg_unknown(msg).size) return true;
  const pbdyn_msgdef *m = pbdyn_msg_msgdef(msg);
  for (size_t i = 0; i < pbdyn_msgdef_field_count(m); i++) {
    const pbdyn_fielddef *f = pbdyn_msgdef_field(m, i);
    if (!pbdyn_fielddef_msg(f)) continue;
    if (!pbdyn_fielddef_is_repeated(f)) {
      const pbdyn_msg *sub = pbdyn_msg_get(msg, f).msg;
      if (sub && has_unknown(sub)) return true;
      continue;
    }
    for (size_t k = 0; k < pbdyn_msg_array_size(msg, f); k++)
      if (has_unknown(pbdyn_msg_array_get(msg, f, k).msg)) return true;
  }
  return false;
}

/* Handle one request; fills resp. */
static void serve(const char *req_buf, size_t req_len, pbdyn_msg *resp, pbdyn_arena *a) {
  pbdyn_msg *req = pbdyn_msg_new(req_def, a);
  if (pbdyn_decode(req_buf, req_len, req, req_def, a, NULL) != PBDYN_OK) {
    respond_str(resp, RESP_RUNTIME_ERROR, "cannot decode ConformanceRequest");
    return;
  }
  const pbdyn_fielddef *type_f = pbdyn_msgdef_field_by_number(req_def, REQ_MESSAGE_TYPE);
  const pbdyn_fielddef *payload_f = pbdyn_msgdef_field_by_number(req_def, REQ_PROTOBUF_PAYLOAD);
  const pbdyn_fielddef *format_f = pbdyn_msgdef_field_by_number(req_def, REQ_OUTPUT_FORMAT);
  pbdyn_str type = pbdyn_msg_get(req, type_f).str;
  char name[512];
  if (type.size >= sizeof name) {
    respond_str(resp, RESP_RUNTIME_ERROR, "message_type too long");
    return;
  }
  memcpy(name, type.data, type.size);
  name[type.size] = 0;
  if (strcmp(name, "conformance.FailureSet") == 0) {
    respond(resp, RESP_PROTOBUF_PAYLOAD, "", 0); /* no expected failures */
    return;
  }
  uint32_t input = pbdyn_msg_oneof_case(req, payload_f);
  if (input != REQ_PROTOBUF_PAYLOAD && input != REQ_TEXT_PAYLOAD && input != REQ_JSON_PAYLOAD) {
    n_skipped++;
    respond_str(resp, RESP_SKIPPED, "only binary, JSON and text-format input are supported");
    return;
  }
  int32_t format = pbdyn_msg_get(req, format_f).i32;
  if (format != FORMAT_PROTOBUF && format != FORMAT_JSON && format != FORMAT_TEXT) {
    n_skipped++;
    respond_str(resp, RESP_SKIPPED, "only binary, JSON and text-format output are supported");
    return;
  }
  bool json = format == FORMAT_JSON;
  bool text = format == FORMAT_TEXT || input == REQ_TEXT_PAYLOAD;
  bool json_in = input == REQ_JSON_PAYLOAD && !text;
  if (text) n_text++;
  else if (json_in) n_json_in++;
  else if (json) n_json++;
  else n_binary++;
  const pbdyn_msgdef *m = pbdyn_schema_find(schema, name);
  if (!m) {
    n_skipped++;
    if (text) n_text_skipped++;
    else if (json_in) n_json_in_skipped++;
    else if (json) n_json_skipped++;
    else n_skipped_binary++;
    respond_str(resp, RESP_SKIPPED, "message type not in the schema");
    return;
  }
  pbdyn_msg *msg = pbdyn_msg_new(m, a);
  pbdyn_status st;
  if (input != REQ_PROTOBUF_PAYLOAD) {
    pbdyn_str payload = pbdyn_msg_get(req, pbdyn_msgdef_field_by_number(req_def, input)).str;
    const pbdyn_fielddef *category_f = pbdyn_msgdef_field_by_number(req_def, REQ_TEST_CATEGORY);
    pbdyn_parse_opts po = {0, 0, NULL};
    if (pbdyn_msg_get(req, category_f).i32 == JSON_IGNORE_UNKNOWN_PARSING_TEST)
      po.flags = PBDYN_PARSE_IGNORE_UNKNOWN;
    st = input == REQ_JSON_PAYLOAD ? pbdyn_json_decode(payload.data, payload.size, msg, m, a, &po)
                                   : pbdyn_text_decode(payload.data, payload.size, msg, m, a, &po);
  } else {
    pbdyn_str payload = pbdyn_msg_get(req, payload_f).str;
    pbdyn_decode_opts opts = {0, decoder, 0};
    st = pbdyn_decode(payload.data, payload.size, msg, m, a, &opts);
  }
  if (st != PBDYN_OK) {
    if (text) n_text_rejected++;
    else if (json_in) n_json_in_rejected++;
    else if (json) n_json_rejected++;
    else n_rejected++;
    respond_str(resp, RESP_PARSE_ERROR, pbdyn_status_str(st));
    return;
  }
  char *out;
  size_t n;
  if (format == FORMAT_TEXT) {
    const pbdyn_fielddef *unknown_f =
        pbdyn_msgdef_field_by_number(req_def, REQ_PRINT_UNKNOWN_FIELDS);
    if (!pbdyn_msg_get(req, unknown_f).b && has_unknown(msg)) {
      n_skipped++;
      n_text_skipped++;
      respond_str(resp, RESP_SKIPPED, "pbdyn_text_encode prints unknown fields");
      return;
    }
    st = pbdyn_text_encode(msg, m, a, &out, &n);
    if (st != PBDYN_OK) {
      respond_str(resp, RESP_SERIALIZE_ERROR, pbdyn_status_str(st));
      return;
    }
    n_text_answered++;
    respond(resp, RESP_TEXT_PAYLOAD, out, n);
    return;
  }
  if (json) {
    st = pbdyn_json_encode(msg, m, a, &out, &n, NULL);
    if (st != PBDYN_OK) {
      if (json_in) n_json_in_unprintable++;
      else n_json_unprintable++;
      respond_str(resp, RESP_SERIALIZE_ERROR, pbdyn_status_str(st));
      return;
    }
    if (json_in) n_json_in_answered++;
    else n_json_printed++;
    respond(resp, RESP_JSON_PAYLOAD, out, n);
    return;
  }
  st = pbdyn_encode(msg, m, a, &out, &n);
  if (st != PBDYN_OK) {
    respond_str(resp, RESP_SERIALIZE_ERROR, pbdyn_status_str(st));
    return;
  }
  if (text) n_text_answered++;
  else if (json_in) n_json_in_answered++;
  else n_parsed++;
  respond(resp, RESP_PROTOBUF_PAYLOAD, out, n);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: conformance_testee [ARG...] SCHEMA.pb\n");
    return 2;
  }
  const char *dec = getenv("PBDYN_TESTEE_DECODER");
  if (dec && !strcmp(dec, "switch")) decoder = PBDYN_DECODER_SWITCH;
  else if (dec && !strcmp(dec, "generic")) decoder = PBDYN_DECODER_GENERIC;
  size_t n;
  char *buf = read_file(argv[argc - 1], &n);
  pbdyn_status st = buf ? pbdyn_schema_load(buf, n, &schema) : PBDYN_ERR_NOT_FOUND;
  free(buf);
  if (st != PBDYN_OK) {
    fprintf(stderr, "conformance_testee: %s: %s\n", argv[argc - 1], pbdyn_status_str(st));
    return 2;
  }
  req_def = pbdyn_schema_find(schema, "conformance.ConformanceRequest");
  resp_def = pbdyn_schema_find(schema, "conformance.ConformanceResponse");
  if (!req_def || !resp_def) {
    fprintf(stderr, "conformance_testee: %s lacks conformance.proto\n", argv[argc - 1]);
    return 2;
  }
  pbdyn_arena *a = pbdyn_arena_new(0);
  char *req = NULL;
  size_t cap = 0;
  for (;;) {
    uint8_t len4[4];
    if (fread(len4, 1, 4, stdin) != 4) break; /* end of input */
    size_t len = len4[0] | (size_t)len4[1] << 8 | (size_t)len4[2] << 16 | (size_t)len4[3] << 24;
    if (len > cap) {
      free(req);
      cap = len;
      req = malloc(cap);
      if (!req) return 1;
    }
    if (!read_exact(req, len)) return 1;
    pbdyn_arena_reset(a);
    pbdyn_msg *resp = pbdyn_msg_new(resp_def, a);
    serve(req, len, resp, a);
    char *out;
    size_t on;
    if (pbdyn_encode(resp, resp_def, a, &out, &on) != PBDYN_OK) return 1;
    uint8_t olen[4] = {(uint8_t)on, (uint8_t)(on >> 8), (uint8_t)(on >> 16), (uint8_t)(on >> 24)};
    if (fwrite(olen, 1, 4, stdout) != 4 || fwrite(out, 1, on, stdout) != on) return 1;
    fflush(stdout);
  }
  free(req);
  pbdyn_arena_free(a);
  pbdyn_schema_free(schema);
  fprintf(stderr,
          "conformance_testee: %zu binary requests (%zu parsed, %zu rejected, %zu skipped: "
          "type not in the schema); %zu binary-to-JSON requests (%zu printed, %zu rejected, "
          "%zu not printable, %zu skipped: type not in the schema); %zu text-format requests "
          "(%zu answered, %zu rejected, %zu skipped: type not in the schema, or unknown "
          "fields to leave out); %zu JSON-input requests (%zu answered, %zu rejected, "
          "%zu not printable, %zu skipped: type not in the schema), %zu other requests "
          "skipped\n",
          n_binary, n_parsed, n_rejected, n_skipped_binary, n_json, n_json_printed,
          n_json_rejected, n_json_unprintable, n_json_skipped, n_text, n_text_answered,
          n_text_rejected, n_text_skipped, n_json_in, n_json_in_answered, n_json_in_rejected,
          n_json_in_unprintable, n_json_in_skipped,
          n_skipped - n_skipped_binary - n_json_skipped - n_text_skipped - n_json_in_skipped);
  return 0;
}
