/* SPDX-License-Identifier: MIT */
/* fastout_printf against glibc's snprintf: the judge of "exactly printf's
 * bytes".
 *
 * Random formats and arguments -- every conversion, flag, width, precision
 * (literal and `*`) and length modifier glibc accepts, positional arguments,
 * %n, %m, %ls, unknown conversions, huge and tiny doubles, inf and nan,
 * exact ties, strings with precisions -- are formatted by snprintf and by
 * fastout_printf into a writer, case after case. The file must hold exactly
 * the concatenation of snprintf's texts, and every call must return what
 * snprintf returned. Each buffer size from 1 to 64 gets its own run (and
 * seed), so that every split of a text across a flush and every path of the
 * engine (in the buffer, making room, streaming, glibc for the whole call
 * after part of it streamed) is taken; then unbuffered and the default size.
 *
 * A failure names the case (its index, format and buffer size) and the first
 * byte that differs. FASTOUT_PRINTF_CASES (default 8000 per buffer size)
 * and FASTOUT_PRINTF_SEED change the run. */
#include "c_test.h"

#include <fastout/c_api.h>

#include <fenv.h>
#include <float.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

/* ------------------------------------------------------------ randomness */

static uint64_t rng_state;

static uint64_t next64(void) { /* splitmix64 */
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static unsigned below(unsigned n) { return (unsigned)(next64() % n); }
static int chance(unsigned percent) { return below(100) < percent; }

static unsigned long long random_integer(void) {
  static const unsigned long long edges[] = {
      0, 1, 2, 7, 8, 9, 10, 15, 16, 99, 100, 127, 128, 255, 256, 32767, 32768, 65535, 65536,
      2147483647ull, 2147483648ull, 4294967295ull, 4294967296ull, 9223372036854775807ull,
      9223372036854775808ull, 18446744073709551615ull, 1000000000000000000ull};
  unsigned pick = below(10);
  unsigned long long value;
  if (pick < 3) return edges[below(sizeof edges / sizeof edges[0])] * (chance(50) ? 1 : (unsigned long long)-1);
  if (pick < 6) {
    value = below(2001);
    return chance(50) ? value : (unsigned long long)-(long long)value;
  }
  value = next64();
  return value >> below(64);  /* every magnitude */
}

static double random_double(void) {
  static const double edges[] = {0.0, 1.0, 0.5, 1.5, 2.5, 0.25, 0.125, 0.375, 9.5, 0.05, 0.95,
                                 99.5, 999.5, 1e15, 1e16, 1e17, 1e21, 1e22, 1e23, 1e-5, 1e-4,
                                 123456789.0, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, DBL_MAX, DBL_MIN,
                                 4.9406564584124654e-324, 2.2250738585072009e-308, 1e300, 1e-300};
  unsigned pick = below(20);
  double value;
  if (pick < 4) { /* any bits: subnormals, nan payloads, infinities */
    uint64_t bits = next64();
    memcpy(&value, &bits, sizeof value);
    return value;
  }
  if (pick < 7) value = edges[below(sizeof edges / sizeof edges[0])];
  else if (pick < 8) value = below(2) ? HUGE_VAL : NAN;
  else if (pick < 11) value = (double)(long long)below(2000001) * pow(10.0, (int)below(61) - 30);
  else if (pick < 14) value = ldexp((double)below(4096) + 0.5, -(int)below(12)); /* ties */
  else if (pick < 17) value = ldexp((double)(next64() >> 11), (int)below(2100) - 1100);
  else value = (double)(long long)(next64() >> below(64)) / 1000.0;
  return chance(30) ? -value : value;
}

static long double random_long_double(void) {
  long double value = (long double)random_double();
  if (chance(50)) value *= 1.0L + (long double)(next64() >> 11) / 9007199254740992.0L;
  if (chance(10)) value = ldexpl(value, (int)below(8000) - 4000);
  return value;
}

static char strings[8][600];
static wchar_t wide_strings[4][40];

/* A string of printable bytes, and sometimes bytes above 127. */
static const char* random_string(int slot) {
  char* s = strings[slot];
  size_t length = chance(5) ? 100 + below(480) : below(30);
  size_t i;
  if (chance(5)) return NULL;
  for (i = 0; i < length; ++i) {
    unsigned c = chance(95) ? 32 + below(95) : 128 + below(128);
    s[i] = (char)c;
  }
  s[length] = '\0';
  return s;
}

/* Wide strings and characters: ASCII unless `wide` (then any BMP code
 * point, which the "C" locale cannot convert: EILSEQ). */
static const wchar_t* random_wide_string(int slot, int wide) {
  wchar_t* s = wide_strings[slot];
  size_t length = below(30), i;
  if (chance(5)) return NULL;
  for (i = 0; i < length; ++i) s[i] = (wchar_t)(wide && chance(20) ? 160 + below(20000) : 32 + below(95));
  s[length] = 0;
  return s;
}

/* ------------------------------------------------------------ directives */

enum kind {
  K_INT, K_LONG, K_LLONG, K_INTMAX, K_SSIZE, K_PTRDIFF,
  K_UINT, K_ULONG, K_ULLONG, K_UINTMAX, K_SIZE, K_UPTRDIFF,
  K_DOUBLE, K_LDOUBLE, K_STRING, K_WSTRING, K_CHAR, K_WINT, K_POINTER, K_NOTHING,
  K_END /* the format ends inside the directive */
};

struct format {
  char text[1024];
  size_t size;
};

static void add(struct format* f, const char* text) {
  size_t n = strlen(text);
  if (f->size + n < sizeof f->text) {
    memcpy(f->text + f->size, text, n + 1);
    f->size += n;
  }
}

static void add_literal(struct format* f) {
  size_t length = chance(4) ? 50 + below(400) : below(8), i;
  char text[512];
  for (i = 0; i < length; ++i) {
    text[i] = (char)(chance(97) ? 32 + below(95) : '\n');
    if (text[i] == '%') text[i] = '+';
  }
  text[length] = '\0';
  add(f, text);
}

static void add_number(struct format* f, unsigned value) {
  char text[16];
  snprintf(text, sizeof text, "%u", value);
  add(f, text);
}

/* Flags, width and precision; `stars` says which of them are `*`. */
static void add_flags_width_precision(struct format* f, int allow_stars, int* stars,
                                      unsigned largest_precision) {
  static const char flags[] = "-+ #0";
  size_t i;
  for (i = 0; i < sizeof flags - 1; ++i)
    if (chance(12)) {
      char flag[2] = {flags[i], 0};
      add(f, flag);
    }
  if (chance(2)) add(f, "'");
  if (chance(2)) add(f, "I");
  *stars = 0;
  switch (below(20)) {
    case 0: case 1: case 2: case 3: case 4: case 5: case 6: case 7: case 8: case 9: break;
    case 10: case 11: case 12: case 13: case 14: case 15: add_number(f, 1 + below(30)); break;
    case 16: add_number(f, 100 + below(3000)); break;
    default:
      if (allow_stars) {
        add(f, "*");
        *stars |= 1;
      }
  }
  switch (below(10)) {
    case 0: case 1: case 2: case 3: case 4: break;
    case 5: add(f, "."); break;
    case 6: case 7:
      add(f, ".");
      add_number(f, below(25));
      break;
    case 8:
      add(f, ".");
      add_number(f, below(largest_precision + 1));
      break;
    default:
      if (allow_stars) {
        add(f, ".*");
        *stars |= 2;
      }
  }
}

static const char* pick(const char* const* choices, size_t count) { return choices[below((unsigned)count)]; }
#define PICK(array) pick(array, sizeof array / sizeof array[0])

static enum kind add_integer_conversion(struct format* f, int is_signed) {
  static const char* const signed_conversions[] = {"d", "i"};
  static const char* const unsigned_conversions[] = {"u", "o", "x", "X"};
  static const char* const lengths[] = {"", "", "", "", "hh", "h", "l", "l", "ll", "ll", "j", "z", "t", "L", "q"};
  const char* length = PICK(lengths);
  add(f, length);
  add(f, is_signed ? PICK(signed_conversions) : PICK(unsigned_conversions));
  if (*length == '\0' || *length == 'h') return is_signed ? K_INT : K_UINT;
  if (strcmp(length, "l") == 0) return is_signed ? K_LONG : K_ULONG;
  if (*length == 'j') return is_signed ? K_INTMAX : K_UINTMAX;
  if (*length == 'z') return is_signed ? K_SSIZE : K_SIZE;
  if (*length == 't') return is_signed ? K_PTRDIFF : K_UPTRDIFF;
  return is_signed ? K_LLONG : K_ULLONG; /* ll, L, q */
}

static enum kind add_float_conversion(struct format* f) {
  static const char* const conversions[] = {"f", "F", "e", "E", "g", "G", "f", "e", "g", "a", "A"};
  unsigned length = below(10);
  if (length == 0) add(f, "l");
  if (length == 1) add(f, "L");
  add(f, PICK(conversions));
  return length == 1 ? K_LDOUBLE : K_DOUBLE;
}

/* A random directive; returns the kind of its argument. `errors`: it may be
 * one that glibc refuses. */
static enum kind add_directive(struct format* f, int allow_stars, int* stars, int errors) {
  unsigned which = below(100);
  add(f, "%");
  add_flags_width_precision(f, allow_stars, stars, which < 45 && which >= 25 ? 200 : 40);
  if (which < 15) return add_integer_conversion(f, 1);
  if (which < 25) return add_integer_conversion(f, 0);
  if (which < 45) return add_float_conversion(f);
  if (which < 60) {
    add(f, "s");
    return K_STRING;
  }
  if (which < 66) {
    add(f, "c");
    return K_CHAR;
  }
  if (which < 70) {
    add(f, "p");
    return K_POINTER;
  }
  if (which < 73) {
    add(f, "%");
    return K_NOTHING;
  }
  if (which < 75) {
    add(f, "m");
    return K_NOTHING;
  }
  if (which < 78) {
    add(f, chance(50) ? "ls" : "S");
    return K_WSTRING;
  }
  if (which < 81) {
    add(f, chance(50) ? "lc" : "C");
    return K_WINT;
  }
  if (which < 84) {
    /* Not this engine's: %b is glibc 2.35's binary, the others print as
     * they are. The argument is an unsigned int either way. */
    static const char* const unknown[] = {"b", "B", "y", "k", "v", "hld"};
    add(f, PICK(unknown));
    return K_UINT;
  }
  if (errors && which < 87) return K_END; /* "%" and flags at the end: EINVAL */
  return add_integer_conversion(f, chance(50));
}

/* ------------------------------------------------------------ the judge */

struct run {
  fastout_file* out;
  size_t buffer_size;
  char* expected;
  size_t expected_size, expected_capacity;
  size_t* offsets; /* where each case's text starts in `expected` */
  char (*formats)[80];
  size_t cases, capacity;
  char mismatch[1024]; /* the first case whose result differed */
};

static char glibc_text[1 << 18];
static int glibc_errno; /* errno after snprintf */
static int fixed_errno; /* errno before each call, for %m */

static void record(struct run* r, const char* format, int expected, int actual) {
  if (r->cases == r->capacity) {
    r->capacity = r->capacity * 2 + 1024;
    r->offsets = (size_t*)realloc(r->offsets, r->capacity * sizeof *r->offsets);
    r->formats = (char(*)[80])realloc(r->formats, r->capacity * sizeof *r->formats);
    if (r->offsets == NULL || r->formats == NULL) exit(2);
  }
  r->offsets[r->cases] = r->expected_size;
  snprintf(r->formats[r->cases], sizeof r->formats[0], "%s", format);
  ++r->cases;
  if (expected >= (int)sizeof glibc_text) {
    fprintf(stderr, "a case made %d bytes, more than the test's buffer: %s\n", expected, format);
    exit(2);
  }
  if (expected > 0) {
    size_t n = (size_t)expected;
    if (r->expected_size + n > r->expected_capacity) {
      r->expected_capacity = (r->expected_size + n) * 2;
      r->expected = (char*)realloc(r->expected, r->expected_capacity);
      if (r->expected == NULL) exit(2);
    }
    memcpy(r->expected + r->expected_size, glibc_text, n);
    r->expected_size += n;
  }
  if (r->mismatch[0] == '\0' && (expected < 0 ? actual != -glibc_errno : actual != expected)) {
    snprintf(r->mismatch, sizeof r->mismatch,
             "case %lu, buffer size %lu: fastout_printf(\"%s\") returned %d, snprintf %d (errno %d)",
             (unsigned long)r->cases - 1, (unsigned long)r->buffer_size, format, actual, expected,
             glibc_errno);
  }
}

/* Both calls with the same arguments; errno is the same before each. */
#define BOTH(r, format, ...)                                                   \
  do {                                                                         \
    int both_expected, both_actual;                                            \
    errno = fixed_errno;                                                       \
    both_expected = snprintf(glibc_text, sizeof glibc_text, format, __VA_ARGS__); \
    glibc_errno = errno;                                                       \
    errno = fixed_errno;                                                       \
    both_actual = fastout_printf((r)->out, format, __VA_ARGS__);               \
    record((r), format, both_expected, both_actual);                           \
  } while (0)

struct arguments {
  int i;
  long l;
  long long ll;
  intmax_t j;
  ssize_t z;
  ptrdiff_t t;
  unsigned u;
  unsigned long ul;
  unsigned long long ull;
  uintmax_t uj;
  size_t uz;
  double d;
  long double ld;
  const char* s;
  const wchar_t* ws;
  int c;
  wint_t wc;
  void* p;
  int width, precision;
};

static void random_arguments(struct arguments* a, int slot, int wide) {
  unsigned long long bits = random_integer();
  a->i = (int)(bits & 0xffffffffu);
  a->l = (long)bits;
  a->ll = (long long)bits;
  a->j = (intmax_t)bits;
  a->z = (ssize_t)bits;
  a->t = (ptrdiff_t)bits;
  a->u = (unsigned)bits;
  a->ul = (unsigned long)bits;
  a->ull = bits;
  a->uj = (uintmax_t)bits;
  a->uz = (size_t)bits;
  a->d = random_double();
  a->ld = random_long_double();
  a->s = random_string(slot);
  a->ws = random_wide_string(slot, wide);
  a->c = chance(2) ? 0 : (int)below(256) - (chance(10) ? 128 : 0);
  a->wc = (wint_t)(wide && chance(30) ? 160 + below(20000) : chance(2) ? 0 : 32 + below(95));
  a->p = chance(10) ? NULL : (void*)(uintptr_t)(next64() >> below(64));
  a->width = chance(5) ? (int)below(6001) - 3000 : (int)below(81) - 40;
  a->precision = chance(5) ? (int)below(250) : (int)below(46) - 5;
}

#define CALL_STARS(r, format, stars, a, value)                                  \
  switch (stars) {                                                             \
    case 0: BOTH(r, format, value); break;                                     \
    case 1: BOTH(r, format, (a)->width, value); break;                         \
    case 2: BOTH(r, format, (a)->precision, value); break;                     \
    default: BOTH(r, format, (a)->width, (a)->precision, value); break;        \
  }

static void call_with(struct run* r, const char* format, enum kind kind, int stars,
                      const struct arguments* a) {
  switch (kind) {
    case K_INT: CALL_STARS(r, format, stars, a, a->i); break;
    case K_LONG: CALL_STARS(r, format, stars, a, a->l); break;
    case K_LLONG: CALL_STARS(r, format, stars, a, a->ll); break;
    case K_INTMAX: CALL_STARS(r, format, stars, a, a->j); break;
    case K_SSIZE: CALL_STARS(r, format, stars, a, a->z); break;
    case K_PTRDIFF: CALL_STARS(r, format, stars, a, a->t); break;
    case K_UINT: CALL_STARS(r, format, stars, a, a->u); break;
    case K_ULONG: CALL_STARS(r, format, stars, a, a->ul); break;
    case K_ULLONG: CALL_STARS(r, format, stars, a, a->ull); break;
    case K_UINTMAX: CALL_STARS(r, format, stars, a, a->uj); break;
    case K_SIZE:
    case K_UPTRDIFF: CALL_STARS(r, format, stars, a, a->uz); break;
    case K_DOUBLE: CALL_STARS(r, format, stars, a, a->d); break;
    case K_LDOUBLE: CALL_STARS(r, format, stars, a, a->ld); break;
    case K_STRING: CALL_STARS(r, format, stars, a, a->s); break;
    case K_WSTRING: CALL_STARS(r, format, stars, a, a->ws); break;
    case K_CHAR: CALL_STARS(r, format, stars, a, a->c); break;
    case K_WINT: CALL_STARS(r, format, stars, a, a->wc); break;
    case K_POINTER: CALL_STARS(r, format, stars, a, a->p); break;
    case K_NOTHING:
    case K_END: CALL_STARS(r, format, stars, a, 0); break; /* an extra argument is ignored */
  }
}

/* One directive between literal text. */
static void single_case(struct run* r, int errors, int wide) {
  struct format f;
  struct arguments a;
  int stars;
  enum kind kind;
  f.size = 0;
  f.text[0] = '\0';
  add_literal(&f);
  kind = add_directive(&f, 1, &stars, errors);
  if (kind != K_END) add_literal(&f);
  random_arguments(&a, 0, wide);
  call_with(r, f.text, kind, stars, &a);
}

/* Three directives of an int, an unsigned long long, a double or a string. */
#define VALUE_0(a) (a).i
#define VALUE_1(a) (a).ull
#define VALUE_2(a) (a).d
#define VALUE_3(a) (a).s
#define CASE3(k1, k2, k3)                                                                   \
  case (k1) * 16 + (k2) * 4 + (k3):                                                         \
    BOTH(r, f.text, VALUE_##k1(a[0]), VALUE_##k2(a[1]), VALUE_##k3(a[2]));                  \
    break;
#define CASES_AFTER2(k1, k2) CASE3(k1, k2, 0) CASE3(k1, k2, 1) CASE3(k1, k2, 2) CASE3(k1, k2, 3)
#define CASES_AFTER1(k1) \
  CASES_AFTER2(k1, 0) CASES_AFTER2(k1, 1) CASES_AFTER2(k1, 2) CASES_AFTER2(k1, 3)

static void multi_case(struct run* r) {
  static const char* const int_conversions[] = {"d", "i", "hd", "hhi"};
  static const char* const ull_conversions[] = {"llu", "llo", "llx", "llX", "lld"};
  static const char* const double_conversions[] = {"f", "F", "e", "E", "g", "G", "a", "A", "lf"};
  struct format f;
  struct arguments a[3];
  int i, code = 0, stars;
  f.size = 0;
  f.text[0] = '\0';
  for (i = 0; i < 3; ++i) {
    int kind = (int)below(4);
    code = code * 4 + kind;
    add_literal(&f);
    add(&f, "%");
    add_flags_width_precision(&f, 0, &stars, 40);
    add(&f, kind == 0   ? PICK(int_conversions)
            : kind == 1 ? PICK(ull_conversions)
            : kind == 2 ? PICK(double_conversions)
                        : "s");
    random_arguments(&a[i], i, 0);
  }
  add_literal(&f);
  switch (code) { CASES_AFTER1(0) CASES_AFTER1(1) CASES_AFTER1(2) CASES_AFTER1(3) }
}

/* Positional arguments, after literal text that may already have streamed. */
static void positional_case(struct run* r) {
  static const char* const templates[] = {
      "%1$d %2$s %1$+d|",          "%2$*1$d|%3$.*1$f",       "%3$lld-%2$s-%1$c",
      "%1$.3s%1$s%2$10.1e",        "%2$#o%1$+d",             "%2$s|%1$08.3f|%2$.1s",
      "%1$-*3$s|%2$*3$x",          "%4$Lg %3$p %2$hhd %1$S",
  };
  struct format f;
  struct arguments a;
  unsigned which = below(sizeof templates / sizeof templates[0]);
  int small = (int)below(30) - 10;
  f.size = 0;
  f.text[0] = '\0';
  add_literal(&f);
  add(&f, templates[which]);
  add_literal(&f);
  random_arguments(&a, 0, 0);
  switch (which) {
    case 0: BOTH(r, f.text, a.i, a.s); break;
    case 1: BOTH(r, f.text, small, a.i, a.d); break;
    case 2: BOTH(r, f.text, a.c, a.s, a.ll); break;
    case 3: BOTH(r, f.text, a.s, a.d); break;
    case 4: BOTH(r, f.text, a.i, a.u); break;
    case 5: BOTH(r, f.text, a.d, a.s); break;
    case 6: BOTH(r, f.text, a.s, a.u, small); break;
    default: BOTH(r, f.text, a.ws, a.i, a.p, a.ld); break;
  }
}

/* A text larger than the streaming area (64 KiB): "%*d" with a huge width,
 * then a random directive, which may be one glibc must take over after part
 * of the call went to the file. */
#define CALL_AFTER_WIDE(r, format, width, number, value) BOTH(r, format, width, number, value)
static void streaming_case(struct run* r) {
  struct format f;
  struct arguments a;
  int stars, width = 60000 + (int)below(140000);
  enum kind kind;
  f.size = 0;
  f.text[0] = '\0';
  add(&f, chance(50) ? "%*d" : "%-*d");
  add_literal(&f);
  kind = add_directive(&f, 0, &stars, 0);
  add_literal(&f);
  random_arguments(&a, 0, 0);
  switch (kind) {
    case K_INT: CALL_AFTER_WIDE(r, f.text, width, a.i, a.i); break;
    case K_LONG: CALL_AFTER_WIDE(r, f.text, width, a.i, a.l); break;
    case K_LLONG: CALL_AFTER_WIDE(r, f.text, width, a.i, a.ll); break;
    case K_INTMAX: CALL_AFTER_WIDE(r, f.text, width, a.i, a.j); break;
    case K_SSIZE: CALL_AFTER_WIDE(r, f.text, width, a.i, a.z); break;
    case K_PTRDIFF: CALL_AFTER_WIDE(r, f.text, width, a.i, a.t); break;
    case K_UINT: CALL_AFTER_WIDE(r, f.text, width, a.i, a.u); break;
    case K_ULONG: CALL_AFTER_WIDE(r, f.text, width, a.i, a.ul); break;
    case K_ULLONG: CALL_AFTER_WIDE(r, f.text, width, a.i, a.ull); break;
    case K_UINTMAX: CALL_AFTER_WIDE(r, f.text, width, a.i, a.uj); break;
    case K_SIZE:
    case K_UPTRDIFF: CALL_AFTER_WIDE(r, f.text, width, a.i, a.uz); break;
    case K_DOUBLE: CALL_AFTER_WIDE(r, f.text, width, a.i, a.d); break;
    case K_LDOUBLE: CALL_AFTER_WIDE(r, f.text, width, a.i, a.ld); break;
    case K_STRING: CALL_AFTER_WIDE(r, f.text, width, a.i, a.s); break;
    case K_WSTRING: CALL_AFTER_WIDE(r, f.text, width, a.i, a.ws); break;
    case K_CHAR: CALL_AFTER_WIDE(r, f.text, width, a.i, a.c); break;
    case K_WINT: CALL_AFTER_WIDE(r, f.text, width, a.i, a.wc); break;
    case K_POINTER: CALL_AFTER_WIDE(r, f.text, width, a.i, a.p); break;
    case K_NOTHING:
    case K_END: CALL_AFTER_WIDE(r, f.text, width, a.i, 0); break;
  }
}

/* %n of every length, after directives and text. */
static void count_case(struct run* r) {
  struct format f;
  struct arguments a;
  int stars, n1 = -1, n2 = -1;
  signed char c1 = -1, c2 = -1;
  long long ll1 = -1, ll2 = -1;
  short h1 = -1, h2 = -1;
  f.size = 0;
  f.text[0] = '\0';
  add_literal(&f);
  add(&f, "%n%");
  add_flags_width_precision(&f, 0, &stars, 40);
  add(&f, "d");
  add_literal(&f);
  add(&f, "%hhn%s");
  add_literal(&f);
  add(&f, "%lln%hn");
  random_arguments(&a, 0, 0);
  /* fastout's call is BOTH's second, so n1... hold its counts; glibc's again: */
  BOTH(r, f.text, &n1, a.i, &c1, a.s, &ll1, &h1);
  errno = fixed_errno;
  snprintf(glibc_text, sizeof glibc_text, f.text, &n2, a.i, &c2, a.s, &ll2, &h2);
  if (r->mismatch[0] == '\0' && (n1 != n2 || c1 != c2 || ll1 != ll2 || h1 != h2))
    snprintf(r->mismatch, sizeof r->mismatch, "%%n in \"%s\": fastout stored %d %d %lld %d, glibc %d %d %lld %d",
             f.text, n1, c1, ll1, h1, n2, c2, ll2, h2);
}

/* ------------------------------------------------------------- the runs */

static size_t case_count(void) {
  const char* text = getenv("FASTOUT_PRINTF_CASES");
  return text != NULL ? (size_t)strtoul(text, NULL, 10) : 8000;
}

static unsigned long long base_seed(void) {
  const char* text = getenv("FASTOUT_PRINTF_SEED");
  return text != NULL ? strtoull(text, NULL, 10) : 20251122;
}

/* Where the file and the expected text first differ, as a message. */
static void describe_difference(const struct run* r, const char* actual, size_t actual_size,
                                char* message, size_t message_size) {
  size_t i = 0, c = 0, size = actual_size < r->expected_size ? actual_size : r->expected_size;
  while (i < size && actual[i] == r->expected[i]) ++i;
  while (c + 1 < r->cases && r->offsets[c + 1] <= i) ++c;
  snprintf(message, message_size,
           "buffer size %lu: the file (%lu bytes) and snprintf's texts (%lu bytes) differ at byte "
           "%lu, in case %lu, format \"%s\" (byte %lu of its text): file \"%.30s\", expected \"%.30s\"",
           (unsigned long)r->buffer_size, (unsigned long)actual_size,
           (unsigned long)r->expected_size, (unsigned long)i, (unsigned long)c,
           r->cases > 0 ? r->formats[c] : "", (unsigned long)(i - (r->cases > 0 ? r->offsets[c] : 0)),
           i < actual_size ? actual + i : "", i < r->expected_size ? r->expected + i : "");
}

enum { ERRORS = 1, WIDE = 2, LINE = 4 };

/* `count` random cases through one writer with this buffer size; 0, or 1
 * with a message. */
static int run_cases(const char* path, size_t buffer_size, unsigned long long seed, size_t count,
                     int options, char* message, size_t message_size) {
  struct run r;
  fastout_options o;
  size_t i, actual_size = 0;
  char* actual;
  int closed, failed = 0;
  fastout_stats stats;
  memset(&r, 0, sizeof r);
  rng_state = seed;
  fastout_options_init(&o);
  o.buffer_size = buffer_size;
  o.buffering = options & LINE ? FASTOUT_BUFFERING_LINE : FASTOUT_BUFFERING_FULL;
  r.buffer_size = buffer_size;
  r.out = fastout_open(path, &o);
  if (r.out == NULL) {
    snprintf(message, message_size, "cannot open %s: %s", path, strerror(errno));
    return 1;
  }
  for (i = 0; i < count; ++i) {
    unsigned which = below(100);
    fixed_errno = 1 + (int)below(130);
    if (below(1000) < 3) streaming_case(&r);
    else if (which < 70) single_case(&r, options & ERRORS, options & WIDE);
    else if (which < 85) multi_case(&r);
    else if (which < 93) positional_case(&r);
    else count_case(&r);
  }
  fastout_get_stats(r.out, &stats);
  closed = fastout_close(r.out);
  actual = c_test_read_file(path, &actual_size);
  if (r.mismatch[0] != '\0') {
    snprintf(message, message_size, "%s", r.mismatch);
    failed = 1;
  } else if (closed != 0) {
    snprintf(message, message_size, "fastout_close: %s", fastout_error_name(closed));
    failed = 1;
  } else if (actual == NULL || actual_size != r.expected_size ||
             memcmp(actual, r.expected, actual_size) != 0) {
    describe_difference(&r, actual != NULL ? actual : "", actual_size, message, message_size);
    failed = 1;
  } else if (stats.bytes_accepted != r.expected_size) {
    snprintf(message, message_size, "buffer size %lu: %llu bytes accepted, expected %lu",
             (unsigned long)buffer_size, (unsigned long long)stats.bytes_accepted,
             (unsigned long)r.expected_size);
    failed = 1;
  }
  free(actual);
  free(r.expected);
  free(r.offsets);
  free(r.formats);
  return failed;
}

#define CHECK_RUN(buffer_size, seed, count, options)                                      \
  do {                                                                                    \
    char message[2048];                                                                   \
    if (run_cases(c_test_path("out"), buffer_size, seed, count, options, message,         \
                  sizeof message) != 0) {                                                 \
      c_test_report(__FILE__, __LINE__, message);                                         \
      return;                                                                             \
    }                                                                                     \
  } while (0)

TEST(every_buffer_size_from_1_to_64) {
  C_TEST_SKIP_ON_WINDOWS("fastout_printf is held to glibc's printf, which Windows has not (MinGW's snprintf differs; the printf issue owns its bytes on Windows)");
  size_t size;
  for (size = 1; size <= 64; ++size) CHECK_RUN(size, base_seed() + size, case_count(), 0);
}

TEST(unbuffered_and_default_buffer) {
  C_TEST_SKIP_ON_WINDOWS("fastout_printf is held to glibc's printf, which Windows has not (MinGW's snprintf differs; the printf issue owns its bytes on Windows)");
  CHECK_RUN(0, base_seed() + 1000, case_count(), 0);
  CHECK_RUN(FASTOUT_DEFAULT_BUFFER_SIZE, base_seed() + 1001, case_count() * 8, 0);
}

/* Buffers of at least 64 KiB stream a large text through themselves. */
TEST(large_buffers) {
  C_TEST_SKIP_ON_WINDOWS("fastout_printf is held to glibc's printf, which Windows has not (MinGW's snprintf differs; the printf issue owns its bytes on Windows)");
  CHECK_RUN(65536, base_seed() + 1100, case_count() * 2, 0);
  CHECK_RUN(100003, base_seed() + 1101, case_count() * 2, 0);
}

TEST(line_buffered) {
  C_TEST_SKIP_ON_WINDOWS("fastout_printf is held to glibc's printf, which Windows has not (MinGW's snprintf differs; the printf issue owns its bytes on Windows)");
  size_t size;
  for (size = 1; size <= 200; size += 13)
    CHECK_RUN(size, base_seed() + 2000 + size, case_count() / 4, LINE);
}

/* Formats glibc refuses ("%" at the end, a wide character the locale cannot
 * convert): the same negative errno, and none of the text in the file. */
TEST(errors_match_glibc) {
  C_TEST_SKIP_ON_WINDOWS("fastout_printf is held to glibc's printf, which Windows has not (MinGW's snprintf differs; the printf issue owns its bytes on Windows)");
  CHECK_RUN(FASTOUT_DEFAULT_BUFFER_SIZE, base_seed() + 3000, case_count() * 2, ERRORS | WIDE);
  CHECK_RUN(0, base_seed() + 3001, case_count(), ERRORS | WIDE);
}

/* glibc rounds by the rounding mode; fastout then lets it format. */
TEST(another_rounding_mode) {
  C_TEST_SKIP_ON_WINDOWS("fastout_printf is held to glibc's printf, which Windows has not (MinGW's snprintf differs; the printf issue owns its bytes on Windows)");
  int modes[3], i;
  modes[0] = FE_UPWARD;
  modes[1] = FE_DOWNWARD;
  modes[2] = FE_TOWARDZERO;
  for (i = 0; i < 3; ++i) {
    fesetround(modes[i]);
    {
      char message[2048];
      int failed = run_cases(c_test_path("out"), 64, base_seed() + 4000 + (unsigned)i,
                             case_count() / 2, 0, message, sizeof message);
      fesetround(FE_TONEAREST);
      if (failed) {
        c_test_report(__FILE__, __LINE__, message);
        return;
      }
    }
  }
}

/* Wide characters in a UTF-8 locale. */
TEST(utf8_locale) {
  C_TEST_SKIP_ON_WINDOWS("fastout_printf is held to glibc's printf, which Windows has not (MinGW's snprintf differs; the printf issue owns its bytes on Windows)");
  if (setlocale(LC_ALL, "C.UTF-8") == NULL) {
    c_test_skip("no C.UTF-8 locale");
    return;
  }
  {
    char message[2048];
    int failed = run_cases(c_test_path("out"), 37, base_seed() + 5000, case_count(), ERRORS | WIDE,
                           message, sizeof message);
    setlocale(LC_ALL, "C");
    if (failed) {
      c_test_report(__FILE__, __LINE__, message);
      return;
    }
  }
}

/* A decimal comma and digit grouping (de_DE, compiled by localedef into the
 * test's directory): every floating-point and ' directive is glibc's. */
TEST(decimal_comma_locale) {
  C_TEST_SKIP_ON_WINDOWS("fastout_printf is held to glibc's printf, which Windows has not (MinGW's snprintf differs; the printf issue owns its bytes on Windows)");
  char command[1024];
  snprintf(command, sizeof command,
           "localedef -i de_DE -f UTF-8 '%s/de_DE.UTF-8' >/dev/null 2>&1", c_test_dir_path);
  if (system(command) != 0) {
    c_test_skip("localedef cannot compile de_DE.UTF-8");
    return;
  }
  setenv("LOCPATH", c_test_dir_path, 1);
  if (setlocale(LC_ALL, "de_DE.UTF-8") == NULL) {
    unsetenv("LOCPATH");
    c_test_skip("the compiled de_DE.UTF-8 locale does not load");
    return;
  }
  {
    char message[2048];
    char text[64];
    const char* grouped = "%.2f %'d"; /* not a literal: ISO C has no ' flag */
    int failed;
    snprintf(text, sizeof text, grouped, 1234.5, 1234567);
    failed = strcmp(text, "1234,50 1.234.567") != 0;
    if (!failed)
      failed = run_cases(c_test_path("out"), 29, base_seed() + 6000, case_count(), 0, message,
                         sizeof message);
    else
      snprintf(message, sizeof message, "the locale is not de_DE's: \"%s\"", text);
    setlocale(LC_ALL, "C");
    unsetenv("LOCPATH");
    if (failed) {
      c_test_report(__FILE__, __LINE__, message);
      return;
    }
  }
}

#define ALL_TESTS(X)                  \
  X(every_buffer_size_from_1_to_64)   \
  X(unbuffered_and_default_buffer)    \
  X(large_buffers)                    \
  X(line_buffered)                    \
  X(errors_match_glibc)               \
  X(another_rounding_mode)            \
  X(utf8_locale)                      \
  X(decimal_comma_locale)

C_TEST_MAIN(ALL_TESTS)
