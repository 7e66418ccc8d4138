/* Unknown fields in the text format, as protobuf C++ 3.21 prints an
 * UnknownFieldSet (TextFormat::Printer::PrintUnknownFields):
 *
 *   5: 150                      varint, unsigned decimal
 *   5: 0x0000000a               fixed32 (fixed64: 16 hex digits)
 *   5 {                         a group, or a length-delimited value that
 *     1: 2                      parses as a message of unknown fields
 *   }
 *   5: "\001abc"                any other length-delimited value (CEscape)
 *
 * "Parses as a message" is protobuf C++'s own test, reproduced exactly
 * since it decides the output: the value is not empty, fewer than 10
 * length-delimited levels enclose it (each level's budget is one less), and
 * WireFormat::SkipMessage over a CodedInputStream accepts it whole: tags and
 * lengths are varints of up to 10 bytes cut to 32 bits, field number 0, wire
 * types 6 and 7, an end-group tag outside its group or a length of 2^31 or
 * more fail, and groups nest at most `budget` deep. These rules are looser
 * than the parser's (a 6-byte tag passes here), which is why this is a
 * checker of its own and not the decoder.
 */
#include <inttypes.h>
#include <stdio.h>

#include "internal/text.h"

#define UNKNOWN_BUDGET 10 /* protobuf C++'s kUnknownFieldRecursionLimit */
#define NO_GROUP UINT32_MAX

/* A varint of up to 10 bytes, the low 64 bits of its value; NULL if longer
 * or cut. */
static const char *read_varint(const char *p, const char *end, uint64_t *v) {
  uint64_t r = 0;
  for (int i = 0; i < 10 && p < end; i++) {
    uint8_t b = (uint8_t)*p++;
    r |= (uint64_t)(b & 0x7f) << (7 * i);
    if (!(b & 0x80)) {
      *v = r;
      return p;
    }
  }
  return NULL;
}

/* Walk the fields of p[0..end) up to the end (group == NO_GROUP) or to the
 * end-group tag of `group`, printing them when o is set. Returns the
 * pointer after what was walked, NULL where protobuf C++ would fail.
 * groups_left bounds nesting while checking; budget is the printer's. */
static const char *walk(pbdyn__strbuf *o, const char *p, const char *end, uint32_t group,
                        int groups_left, int budget, int depth) {
  char tmp[64];
  while (p < end) {
    uint64_t v;
    if (!(p = read_varint(p, end, &v))) return NULL;
    uint32_t tag = (uint32_t)v, number = tag >> 3, wt = tag & 7;
    if (wt == 4) return group != NO_GROUP && number == group ? p : NULL;
    if (number == 0) return NULL;
    if (o) {
      pbdyn__strbuf_indent(o, depth);
      snprintf(tmp, sizeof tmp, "%" PRIu32, number);
      pbdyn__strbuf_puts(o, tmp);
    }
    switch (wt) {
      case 0:
        if (!(p = read_varint(p, end, &v))) return NULL;
        snprintf(tmp, sizeof tmp, ": %" PRIu64 "\n", v);
        break;
      case 1:
      case 5: {
        size_t n = wt == 1 ? 8 : 4;
        if ((size_t)(end - p) < n) return NULL;
        v = 0;
        for (size_t i = 0; i < n; i++) v |= (uint64_t)(uint8_t)p[i] << (8 * i);
        p += n;
        snprintf(tmp, sizeof tmp, wt == 1 ? ": 0x%016" PRIx64 "\n" : ": 0x%08" PRIx64 "\n", v);
        break;
      }
      case 2: {
        if (!(p = read_varint(p, end, &v))) return NULL;
        uint32_t len = (uint32_t)v;
        if (len > INT32_MAX || len > (size_t)(end - p)) return NULL;
        const char *body = p;
        p += len;
        if (!o) continue;
        if (len && budget > 0 && walk(NULL, body, p, NO_GROUP, budget, 0, 0) == p) {
          pbdyn__strbuf_puts(o, " {\n");
          walk(o, body, p, NO_GROUP, budget, budget - 1, depth + 1);
          pbdyn__strbuf_indent(o, depth);
          pbdyn__strbuf_puts(o, "}\n");
        } else {
          pbdyn__strbuf_puts(o, ": \"");
          pbdyn__text_escape(o, body, len);
          pbdyn__strbuf_puts(o, "\"\n");
        }
        continue;
      }
      case 3:
        if (groups_left <= 0) return NULL;
        if (o) pbdyn__strbuf_puts(o, " {\n");
        if (!(p = walk(o, p, end, number, groups_left - 1, budget, depth + 1))) return NULL;
        if (o) {
          pbdyn__strbuf_indent(o, depth);
          pbdyn__strbuf_puts(o, "}\n");
        }
        continue;
      default:
        return NULL;
    }
    if (o) pbdyn__strbuf_puts(o, tmp);
  }
  return group == NO_GROUP ? p : NULL;
}

void pbdyn__text_unknown(pbdyn__strbuf *o, const char *p, size_t n, int depth) {
  /* The decoder bounded group nesting already (max_depth). */
  walk(o, p, p + n, NO_GROUP, INT32_MAX, UNKNOWN_BUDGET, depth);
}
