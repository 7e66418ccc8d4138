/* Values as the host sees them: make, inspect, print, parse.
 *
 * Floats print with %.17g, which reads back to the same bits: the expected
 * results in the programs' `.expect` lines are exact, not approximate.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/state.h"

vm_value vm_value_int(int32_t i) { return vm_mkint(i); }

vm_value vm_value_float(double d) {
  /* any NaN becomes the canonical one, below the tags */
  return d != d ? vm_mkflt(__builtin_nan("")) : vm_mkflt(d);
}

vm_kind vm_value_kind(vm_value v) {
  if (vm_isflt(v)) return VM_KIND_FLOAT;
  if (vm_isint(v)) return VM_KIND_INT;
  if (vm_isarr(v)) return VM_KIND_ARRAY;
  return VM_KIND_NIL;
}

int32_t vm_value_as_int(vm_value v) { return vm_int(v); }
double vm_value_as_float(vm_value v) { return vm_flt(v); }

int vm_value_format(vm_value v, char *buf, size_t size) {
  switch (vm_value_kind(v)) {
    case VM_KIND_INT: return snprintf(buf, size, "%d", (int)vm_int(v));
    case VM_KIND_FLOAT: {
      double d = vm_flt(v);
      if (d == floor(d) && fabs(d) < 1e17)
        return snprintf(buf, size, "%.1f", d); /* 3.0, not 3: still a float */
      return snprintf(buf, size, "%.17g", d);
    }
    case VM_KIND_ARRAY: return snprintf(buf, size, "array[%u]", (unsigned)vm_arr(v)->len);
    default: return snprintf(buf, size, "nil");
  }
}

vm_status vm_value_parse(const char *text, vm_value *out) {
  if (!text || !out) return VM_ERR_ARGUMENT;
  const char *s = text;
  const char *digits = s + (*s == '-' || *s == '+');
  int is_int = *digits != 0;
  int hex = digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
  for (const char *q = digits + (hex ? 2 : 0); *q; q++) {
    if (!(hex ? ((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f') || (*q >= 'A' && *q <= 'F'))
              : (*q >= '0' && *q <= '9'))) {
      is_int = 0;
      break;
    }
  }
  if (hex && !digits[2]) is_int = 0;
  char *end;
  errno = 0;
  if (is_int) {
    long long v = strtoll(s, &end, hex ? 16 : 10);
    if (errno || *end || v < INT32_MIN || v > INT32_MAX) return VM_ERR_RANGE;
    *out = vm_mkint((int32_t)v);
    return VM_OK;
  }
  if (!*s || hex) return VM_ERR_SYNTAX;
  /* only decimal floats: digits, one point, an exponent */
  for (const char *q = digits; *q; q++)
    if (!strchr("0123456789.eE+-", *q)) return VM_ERR_SYNTAX;
  double d = strtod(s, &end);
  if (*end || end == s) return VM_ERR_SYNTAX;
  if (!isfinite(d)) return VM_ERR_RANGE;
  *out = vm_mkflt(d);
  return VM_OK;
}
