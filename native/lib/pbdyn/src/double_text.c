/* The shortest decimal of a double (internal/double_text.h) from one
 * printf conversion: "%.16e" gives 17 digits, which always read back; the 15
 * and 16 digit roundings are made from them and checked with strtod, and the
 * "%g" text is built from the digits that won. A double costs one conversion
 * and one or two strtod, as protobuf C++'s and upb's "%.15g, else %.17g";
 * trying "%.1g" to "%.17g" in turn, as before, cost up to 17 of each: 1,245
 * instructions per byte of JSON on the packed-fixed payload, 158 now
 * (callgrind). */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/double_text.h"

/* printf's exponent: "e+05", "e-308" (at least two digits). */
static size_t exponent_text(char *out, int exp) {
  size_t k = 0;
  out[k++] = 'e';
  out[k++] = exp < 0 ? '-' : '+';
  int a = exp < 0 ? -exp : exp;
  if (a >= 100) out[k++] = (char)('0' + a / 100);
  out[k++] = (char)('0' + a / 10 % 10);
  out[k++] = (char)('0' + a % 10);
  return k;
}

/* "%.*e" text at out of the n digits at mant and exponent exp, with the
 * decimal point the C library writes (`radix`: strtod reads the locale's). */
static void e_text(char *out, bool neg, const char *mant, int n, int exp, char radix) {
  size_t k = 0;
  if (neg) out[k++] = '-';
  out[k++] = mant[0];
  if (n > 1) {
    out[k++] = radix;
    memcpy(out + k, mant + 1, (size_t)n - 1);
    k += (size_t)n - 1;
  }
  k += exponent_text(out + k, exp);
  out[k] = 0;
}

/* The 17 digits at m17 rounded to k (15 or 16) at out, *exp adjusted on a
 * carry (9.99..e5 -> 1.00..e6); false when the digits past k are exactly
 * 5 then zeros: v itself may lie either side of that halfway point, and
 * only a conversion of v says which. */
static bool round_digits(const char *m17, int k, char *out, int *exp) {
  bool half = m17[k] == '5';
  for (int i = k + 1; i < 17 && half; i++) half = m17[i] == '0';
  if (half) return false;
  memcpy(out, m17, (size_t)k);
  if (m17[k] < '5') return true;
  int i = k - 1;
  while (i >= 0 && out[i] == '9') out[i--] = '0';
  if (i >= 0) {
    out[i]++;
  } else {
    out[0] = '1';
    ++*exp;
  }
  return true;
}

/* v with the fewest significant digits (1 to 17) that read back as v, as
 * "%.*e" writes it, in buf (PBDYN_DOUBLE_TEXT bytes); returns the count. Any decimal of 15
 * digits or fewer is a different double's from any other (DBL_DIG), so when
 * v rounded to 15 digits reads back, the fewest is that rounding's count
 * without its trailing zeros (a shorter decimal that reads back would be
 * within half a unit of the 15th digit of v, so the rounding itself,
 * zero-padded); else 16, else 17. The 15 and 16 digit roundings are taken
 * from the 17 digits of one conversion (but for a tie there), so a double
 * costs one conversion and one or two strtod, as the peers' %.15g then
 * %.17g. Subnormals, whose precision is less, try every count. */
static int fewest_digits(double v, char *buf) {
  int digits = 17;
  if (v != 0 && fabs(v) < DBL_MIN) { /* subnormal: fewer digits are exact */
    for (digits = 1; digits < 17; digits++) {
      snprintf(buf, PBDYN_DOUBLE_TEXT, "%.*e", digits - 1, v);
      if (strtod(buf, NULL) == v) break;
    }
    if (digits == 17) snprintf(buf, PBDYN_DOUBLE_TEXT, "%.16e", v);
  } else {
    char s17[PBDYN_DOUBLE_TEXT], m17[17], m[17];
    snprintf(s17, sizeof s17, "%.16e", v);
    bool neg = s17[0] == '-';
    const char *p = s17 + neg;
    char radix = p[1];
    m17[0] = p[0];
    memcpy(m17 + 1, p + 2, 16);
    int exp17 = atoi(p + 18 + 1);
    for (digits = 15; digits < 17; digits++) {
      int exp = exp17;
      if (round_digits(m17, digits, m, &exp)) e_text(buf, neg, m, digits, exp, radix);
      else snprintf(buf, PBDYN_DOUBLE_TEXT, "%.*e", digits - 1, v);
      if (strtod(buf, NULL) == v) break;
    }
    if (digits == 17) memcpy(buf, s17, sizeof s17);
  }
  for (char *e = strchr(buf, 'e'); digits > 1 && e[-1] == '0'; e--) digits--;
  return digits;
}

/* "%.*g" with precision `digits` of the number that "%.*e" wrote at e with
 * as many digits, without a second conversion: fixed notation when its
 * exponent is from -4 to digits - 1, else scientific ("1e+22", at least two
 * exponent digits), trailing zeros dropped. */
static size_t g_from_e(char *out, const char *e, int digits) {
  char mant[24];
  int n = 0;
  size_t k = 0;
  if (*e == '-') out[k++] = *e++;
  mant[n++] = *e++;
  if (*e != 'e') e++; /* the decimal point, whatever the locale's */
  while (*e != 'e') mant[n++] = *e++;
  int exp = atoi(e + 1);
  while (n > 1 && mant[n - 1] == '0') n--;
  if (exp < -4 || exp >= digits) {
    out[k++] = mant[0];
    if (n > 1) {
      out[k++] = '.';
      memcpy(out + k, mant + 1, (size_t)n - 1);
      k += (size_t)n - 1;
    }
    k += exponent_text(out + k, exp);
  } else if (exp >= 0) { /* exp < digits: the integer part is within mant */
    int whole = exp + 1 < n ? exp + 1 : n;
    memcpy(out + k, mant, (size_t)whole);
    k += (size_t)whole;
    for (int i = whole; i <= exp; i++) out[k++] = '0';
    if (n > whole) {
      out[k++] = '.';
      memcpy(out + k, mant + whole, (size_t)(n - whole));
      k += (size_t)(n - whole);
    }
  } else {
    out[k++] = '0';
    out[k++] = '.';
    for (int i = -1; i > exp; i--) out[k++] = '0';
    memcpy(out + k, mant, (size_t)n);
    k += (size_t)n;
  }
  out[k] = 0;
  return k;
}

size_t pbdyn__double_shortest(double v, char *out) {
  char e[PBDYN_DOUBLE_TEXT];
  int digits = fewest_digits(v, e);
  return g_from_e(out, e, digits);
}
