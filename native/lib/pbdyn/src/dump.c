/* Canonical text dump, for differential tests: two decoders agree on a
 * message exactly when their dumps are equal byte for byte. The format is
 * chosen to be produced as easily from Google's Python objects:
 *
 *   <number>:<name> <value>        one line per present value
 *   <number>:<name> {              a message (groups and map entries too)
 *     ...                          its lines, indented by two spaces
 *   }
 *   ? <hex>                        the unknown fields, last, if any
 *
 * Values: integers in decimal (enums by number), true/false, floats as
 * f:<8 hex digits> and doubles as d:<16 hex digits> of their bits (NaNs
 * with the quiet bit set, as a float->double->float trip leaves them),
 * strings and bytes as x:<hex>. Map entries are sorted by key, the last
 * duplicate winning, and always show key (1) and value (2).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/encode.h"
#include "internal/print.h"


static void hex(pbdyn__strbuf *o, const char *p, size_t n) {
  static const char digits[] = "0123456789abcdef";
  char tmp[128];
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    tmp[k++] = digits[(uint8_t)p[i] >> 4];
    tmp[k++] = digits[(uint8_t)p[i] & 15];
    if (k == sizeof tmp) {
      pbdyn__strbuf_put(o, tmp, k);
      k = 0;
    }
  }
  pbdyn__strbuf_put(o, tmp, k);
}

static void dump_msg(pbdyn__strbuf *o, const pbdyn_msg *msg, const pbdyn_msgdef *m, int depth);

static void dump_value(pbdyn__strbuf *o, const pbdyn_fielddef *f, const void *p, int depth) {
  char tmp[64];
  uint32_t u32;
  uint64_t u64;
  switch (f->type) {
    case PBDYN_TYPE_BOOL: pbdyn__strbuf_puts(o, *(const bool *)p ? "true" : "false"); return;
    case PBDYN_TYPE_INT32: case PBDYN_TYPE_SINT32: case PBDYN_TYPE_SFIXED32: case PBDYN_TYPE_ENUM:
      memcpy(&u32, p, 4);
      snprintf(tmp, sizeof tmp, "%" PRId32, (int32_t)u32);
      break;
    case PBDYN_TYPE_UINT32: case PBDYN_TYPE_FIXED32:
      memcpy(&u32, p, 4);
      snprintf(tmp, sizeof tmp, "%" PRIu32, u32);
      break;
    case PBDYN_TYPE_INT64: case PBDYN_TYPE_SINT64: case PBDYN_TYPE_SFIXED64:
      memcpy(&u64, p, 8);
      snprintf(tmp, sizeof tmp, "%" PRId64, (int64_t)u64);
      break;
    case PBDYN_TYPE_UINT64: case PBDYN_TYPE_FIXED64:
      memcpy(&u64, p, 8);
      snprintf(tmp, sizeof tmp, "%" PRIu64, u64);
      break;
    case PBDYN_TYPE_FLOAT:
      memcpy(&u32, p, 4);
      if ((u32 & 0x7f800000) == 0x7f800000 && (u32 & 0x007fffff)) u32 |= 0x00400000;
      snprintf(tmp, sizeof tmp, "f:%08" PRIx32, u32);
      break;
    case PBDYN_TYPE_DOUBLE:
      memcpy(&u64, p, 8);
      if ((u64 & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (u64 & 0xfffffffffffffull))
        u64 |= 0x8000000000000ull;
      snprintf(tmp, sizeof tmp, "d:%016" PRIx64, u64);
      break;
    case PBDYN_TYPE_STRING:
    case PBDYN_TYPE_BYTES: {
      const pbdyn_str *s = p;
      pbdyn__strbuf_puts(o, "x:");
      hex(o, s->data, s->size);
      return;
    }
    default: { /* MESSAGE, GROUP */
      const pbdyn_msg *sub = *(pbdyn_msg *const *)p;
      pbdyn__strbuf_puts(o, "{\n");
      if (sub) dump_msg(o, sub, f->msg, depth + 1);
      pbdyn__strbuf_indent(o, depth);
      pbdyn__strbuf_puts(o, "}");
      return;
    }
  }
  pbdyn__strbuf_puts(o, tmp);
}

static void line(pbdyn__strbuf *o, const pbdyn_fielddef *f, const void *p, int depth) {
  char tmp[32];
  pbdyn__strbuf_indent(o, depth);
  snprintf(tmp, sizeof tmp, "%" PRIu32 ":", f->number);
  pbdyn__strbuf_puts(o, tmp);
  pbdyn__strbuf_puts(o, f->name);
  pbdyn__strbuf_puts(o, " ");
  dump_value(o, f, p, depth);
  pbdyn__strbuf_puts(o, "\n");
}

static void number_name(pbdyn__strbuf *o, const pbdyn_fielddef *f) {
  char tmp[32];
  snprintf(tmp, sizeof tmp, "%" PRIu32 ":", f->number);
  pbdyn__strbuf_puts(o, tmp);
  pbdyn__strbuf_puts(o, f->name);
}

static const pbdyn__printer DUMP = {line, number_name};

static void dump_msg(pbdyn__strbuf *o, const pbdyn_msg *msg, const pbdyn_msgdef *m, int depth) {
  pbdyn__print_fields(o, &DUMP, msg, m, depth);
  const pbdyn__unknown *u = pbdyn__msg_unknown_ptr(msg);
  if (u && u->size) {
    pbdyn__strbuf_indent(o, depth);
    pbdyn__strbuf_puts(o, "? ");
    hex(o, u->data, u->size);
    pbdyn__strbuf_puts(o, "\n");
  }
}

pbdyn_status pbdyn_dump(const pbdyn_msg *msg, const pbdyn_msgdef *m, pbdyn_arena *a, char **outp,
                        size_t *size) {
  if (!msg || !a || !outp || !size || !(m = pbdyn__msg_check(msg, m))) return PBDYN_ERR_ARG;
  pbdyn__strbuf o = {NULL, 0, 0, false};
  dump_msg(&o, msg, m, 0);
  return pbdyn__strbuf_finish(&o, a, outp, size);
}
