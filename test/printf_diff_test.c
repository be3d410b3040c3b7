/* SPDX-License-Identifier: MIT */
/* fastout_printf against glibc's snprintf: the judge of "exactly printf's
 * bytes".
 *
 * Random formats and arguments -- every conversion (%b too), flag, width,
 * precision (literal and `*`) and length modifier glibc accepts, and the ones
 * only its second parser takes ("%hf", "%js"), positional arguments, %n of
 * every length, %m and %#m, %ls, directives glibc does not know and malformed
 * ones of every shape ("soup": random flags, digits, '$', '*', '.', lengths
 * and bytes after a '%', typed by glibc's own parse_printf_format()), huge
 * and tiny doubles, long doubles from random bits (pseudo-denormals and the
 * x87's invalid encodings included), inf and nan, exact ties, %a rounding,
 * precisions past {fmt}'s range and the engine's buffers, strings with
 * precisions -- are formatted by snprintf and by fastout_printf into a
 * writer, case after case. The file must hold exactly the concatenation of
 * snprintf's texts, every call must return what snprintf returned, and %n
 * must store what glibc stores. Each buffer size from 1 to 64 gets its own
 * run (and seed), so that every split of a text across a flush and every
 * path of the engine (the fast executor, the general one, making room,
 * streaming, a hand-over between them) is taken; then unbuffered and the
 * default size, other rounding modes and locales, and the limits near
 * INT_MAX; and %ls, %S, %lc and %C of characters the locale cannot convert,
 * whose failure must leave in the file what glibc's leaves in its stream.
 *
 * A failure names the case (its index, format and buffer size) and the first
 * byte that differs. FASTOUT_PRINTF_CASES (default 8000 per buffer size)
 * and FASTOUT_PRINTF_SEED change the run. */
/* mmap()'s MAP_ANONYMOUS, beside c_test.h's X/Open. */
#define _DEFAULT_SOURCE 1
#include "c_test.h"

#include <fastout/c_api.h>

#include <errno.h>
#include <fenv.h>
#include <float.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <printf.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#include <sys/mman.h>

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
  static const unsigned long long edges[] = {0,
                                             1,
                                             2,
                                             7,
                                             8,
                                             9,
                                             10,
                                             15,
                                             16,
                                             99,
                                             100,
                                             127,
                                             128,
                                             255,
                                             256,
                                             32767,
                                             32768,
                                             65535,
                                             65536,
                                             2147483647ull,
                                             2147483648ull,
                                             4294967295ull,
                                             4294967296ull,
                                             9223372036854775807ull,
                                             9223372036854775808ull,
                                             18446744073709551615ull,
                                             1000000000000000000ull};
  unsigned pick = below(10);
  unsigned long long value;
  if (pick < 3)
    return edges[below(sizeof edges / sizeof edges[0])] * (chance(50) ? 1 : (unsigned long long)-1);
  if (pick < 6) {
    value = below(2001);
    return chance(50) ? value : (unsigned long long)-(long long)value;
  }
  value = next64();
  return value >> below(64); /* every magnitude */
}

static double random_double(void) {
  static const double edges[] = {0.0,
                                 1.0,
                                 0.5,
                                 1.5,
                                 2.5,
                                 0.25,
                                 0.125,
                                 0.375,
                                 9.5,
                                 0.05,
                                 0.95,
                                 99.5,
                                 999.5,
                                 1e15,
                                 1e16,
                                 1e17,
                                 1e21,
                                 1e22,
                                 1e23,
                                 1e-5,
                                 1e-4,
                                 123456789.0,
                                 0.1,
                                 0.2,
                                 0.3,
                                 1.0 / 3,
                                 2.0 / 3,
                                 DBL_MAX,
                                 DBL_MIN,
                                 4.9406564584124654e-324,
                                 2.2250738585072009e-308,
                                 1e300,
                                 1e-300};
  unsigned pick = below(20);
  double value;
  if (pick < 4) { /* any bits: subnormals, nan payloads, infinities */
    uint64_t bits = next64();
    memcpy(&value, &bits, sizeof value);
    return value;
  }
  if (pick < 7)
    value = edges[below(sizeof edges / sizeof edges[0])];
  else if (pick < 8)
    value = below(2) ? HUGE_VAL : NAN;
  else if (pick < 11)
    value = (double)(long long)below(2000001) * pow(10.0, (int)below(61) - 30);
  else if (pick < 14)
    value = ldexp((double)below(4096) + 0.5, -(int)below(12)); /* ties */
  else if (pick < 17)
    value = ldexp((double)(next64() >> 11), (int)below(2100) - 1100);
  else
    value = (double)(long long)(next64() >> below(64)) / 1000.0;
  return chance(30) ? -value : value;
}

static long double random_long_double(void) {
  long double value;
#if LDBL_MANT_DIG == 64
  if (chance(25)) {
    /* Any x87 bits: denormals, pseudo-denormals, and the encodings the
     * x87 takes for NaN (unnormals, pseudo-infinities, pseudo-NaNs). */
    unsigned char bytes[sizeof(long double)];
    uint64_t mantissa = next64() >> below(64);
    unsigned exponent = chance(20) ? (chance(50) ? 0u : 0x7fffu) : below(0x8000);
    if (chance(80) && exponent != 0) mantissa |= (uint64_t)1 << 63;
    memset(bytes, 0, sizeof bytes);
    memcpy(bytes, &mantissa, 8);
    exponent |= chance(50) ? 0x8000u : 0u;
    bytes[8] = (unsigned char)exponent;
    bytes[9] = (unsigned char)(exponent >> 8);
    memcpy(&value, bytes, sizeof value);
    return value;
  }
#endif
  value = (long double)random_double();
  if (chance(50)) value *= 1.0L + (long double)(next64() >> 11) / 9007199254740992.0L;
  if (chance(10)) value = ldexpl(value, (int)below(32000) - 16000);
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
  for (i = 0; i < length; ++i)
    s[i] = (wchar_t)(wide && chance(20) ? 160 + below(20000) : 32 + below(95));
  s[length] = 0;
  return s;
}

/* ------------------------------------------------------------ directives */

enum kind {
  K_INT,
  K_LONG,
  K_LLONG,
  K_INTMAX,
  K_SSIZE,
  K_PTRDIFF,
  K_UINT,
  K_ULONG,
  K_ULLONG,
  K_UINTMAX,
  K_SIZE,
  K_UPTRDIFF,
  K_DOUBLE,
  K_LDOUBLE,
  K_STRING,
  K_WSTRING,
  K_CHAR,
  K_WINT,
  K_POINTER,
  K_NOTHING,
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
    case 0:
    case 1:
    case 2:
    case 3:
    case 4:
    case 5:
    case 6:
    case 7:
    case 8:
    case 9: break;
    case 10:
    case 11:
    case 12:
    case 13:
    case 14:
    case 15: add_number(f, 1 + below(30)); break;
    case 16: add_number(f, 100 + below(3000)); break;
    default:
      if (allow_stars) {
        add(f, "*");
        *stars |= 1;
      }
  }
  switch (below(10)) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4: break;
    case 5: add(f, "."); break;
    case 6:
    case 7:
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

static const char* pick(const char* const* choices, size_t count) {
  return choices[below((unsigned)count)];
}
#define PICK(array) pick(array, sizeof array / sizeof array[0])

static enum kind add_integer_conversion(struct format* f, int is_signed) {
  static const char* const signed_conversions[] = {"d", "i"};
  static const char* const unsigned_conversions[] = {"u", "o", "x", "X", "b", "B"};
  static const char* const lengths[] = {"",   "",   "",  "",  "hh", "h", "l", "l",
                                        "ll", "ll", "j", "z", "t",  "L", "q"};
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
  /* "L", "ll" and "q" are long double; "h" and "hh" only glibc's second
   * parser takes; "j", "z" and "t" leave a double. */
  static const char* const lengths[] = {"l", "L", "L", "ll", "q", "h", "hh", "j", "z", "t"};
  const char* length = below(10) < 6 ? "" : PICK(lengths);
  add(f, length);
  add(f, PICK(conversions));
  return *length == 'L' || *length == 'q' || strcmp(length, "ll") == 0 ? K_LDOUBLE : K_DOUBLE;
}

/* A random directive; returns the kind of its argument. `errors`: it may be
 * one that glibc refuses. */
static enum kind add_directive(struct format* f, int allow_stars, int* stars, int errors) {
  unsigned which = below(100);
  unsigned largest_precision = 40;
  add(f, "%");
  /* Floating point: past {fmt}'s 128 now and then, and far past it. */
  if (which < 45 && which >= 25) largest_precision = chance(3) ? 3000 : 200;
  add_flags_width_precision(f, allow_stars, stars, largest_precision);
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
    /* Conversions glibc does not know: it prints them back. An unsigned
     * int is passed, and not read. */
    static const char* const unknown[] = {"y", "k", "v", "D", "O",   "U",
                                          "w", "H", "&", "~", "hld", "lh"};
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
  char mismatch[1024];         /* the first case whose result differed */
  unsigned long long accepted; /* the writer's bytes_accepted after the last case */
};

/* Notes the first case whose result differed, its message cut to fit:
 * through vsnprintf(), which -Wformat-truncation does not judge, since an
 * unoptimized build would otherwise fail on every message that names a
 * format as long as the buffer. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
note_mismatch(struct run* r, const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(r->mismatch, sizeof r->mismatch, format, args);
  va_end(args);
}

static char glibc_text[1 << 18];
static int glibc_errno; /* errno after snprintf */
static int fixed_errno; /* errno before each call, for %m */

static void record(struct run* r, const char* format, int expected, int actual) {
  const int glibc_result = expected;
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
  {
    /* What the writer took: all of the text, or, for a call that fails,
     * nothing unless part of it had streamed to the file already, and then
     * glibc's text up to the failure, all of it (snprintf leaves it in its
     * buffer). */
    fastout_stats stats;
    unsigned long long accepted;
    fastout_get_stats(r->out, &stats);
    accepted = stats.bytes_accepted - r->accepted;
    r->accepted = stats.bytes_accepted;
    if (expected < 0) {
      if (accepted != 0 && accepted != strlen(glibc_text) && r->mismatch[0] == '\0')
        note_mismatch(
            r,
            "case %lu, buffer size %lu: fastout_printf(\"%s\") failed as glibc's, but sent "
            "%llu bytes, where glibc made %lu",
            (unsigned long)r->cases - 1, (unsigned long)r->buffer_size, format, accepted,
            (unsigned long)strlen(glibc_text));
      else
        expected = (int)accepted; /* those bytes, compared with the file */
    } else if (accepted != (unsigned long long)expected && r->mismatch[0] == '\0' &&
               actual == expected) {
      note_mismatch(r,
                    "case %lu, buffer size %lu: fastout_printf(\"%s\") returned %d but the writer "
                    "took %llu bytes",
                    (unsigned long)r->cases - 1, (unsigned long)r->buffer_size, format, actual,
                    accepted);
    }
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
  if (r->mismatch[0] == '\0' && (glibc_result < 0 ? actual != -glibc_errno : actual != expected)) {
    snprintf(
        r->mismatch, sizeof r->mismatch,
        "case %lu, buffer size %lu: fastout_printf(\"%s\") returned %d, snprintf %d (errno %d)",
        (unsigned long)r->cases - 1, (unsigned long)r->buffer_size, format, actual, glibc_result,
        glibc_errno);
  }
}

/* Both calls with the same arguments; errno is the same before each. */
#define BOTH(r, format, ...)                                                      \
  do {                                                                            \
    int both_expected, both_actual;                                               \
    errno = fixed_errno;                                                          \
    both_expected = snprintf(glibc_text, sizeof glibc_text, format, __VA_ARGS__); \
    glibc_errno = errno;                                                          \
    errno = fixed_errno;                                                          \
    both_actual = fastout_fprintf((r)->out, format, __VA_ARGS__);                 \
    record((r), format, both_expected, both_actual);                              \
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

#define CALL_STARS(r, format, stars, a, value)                          \
  switch (stars) {                                                      \
    case 0: BOTH(r, format, value); break;                              \
    case 1: BOTH(r, format, (a)->width, value); break;                  \
    case 2: BOTH(r, format, (a)->precision, value); break;              \
    default: BOTH(r, format, (a)->width, (a)->precision, value); break; \
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

/* One floating-point directive, mostly of a long double, at precisions up
 * to 5000: the engine's exact digits, past {fmt}'s. */
static void float_case(struct run* r) {
  static const char* const conversions[] = {"f", "F", "e", "E", "g", "G", "a", "A"};
  struct format f;
  struct arguments a;
  int stars;
  const int is_long = chance(70);
  f.size = 0;
  f.text[0] = '\0';
  add_literal(&f);
  add(&f, "%");
  add_flags_width_precision(&f, 1, &stars, chance(10) ? 5000 : 60);
  if (is_long) add(&f, chance(80) ? "L" : "ll");
  add(&f, PICK(conversions));
  add_literal(&f);
  random_arguments(&a, 0, 0);
  call_with(r, f.text, is_long ? K_LDOUBLE : K_DOUBLE, stars, &a);
}

/* Three directives of an int, an unsigned long long, a double or a string. */
#define VALUE_0(a) (a).i
#define VALUE_1(a) (a).ull
#define VALUE_2(a) (a).d
#define VALUE_3(a) (a).s
#define CASE3(k1, k2, k3)                                                  \
  case (k1)*16 + (k2)*4 + (k3):                                            \
    BOTH(r, f.text, VALUE_##k1(a[0]), VALUE_##k2(a[1]), VALUE_##k3(a[2])); \
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

/* The fast executor's forms (src/doors/printf.cpp): three directives of
 * integers (every length, in decimal and hexadecimal), doubles, strings and
 * characters with any of the flags, widths around the largest it takes
 * (1024), precisions (".", ".0" with the value 0, around 1024 too), between
 * short literal texts; or a %s whose precision is an argument, with a width
 * and flags. The values are random_integer()'s: 0, negatives, INT_MIN,
 * LLONG_MIN and the other edges among them. */
static void add_fast_flags_width_precision(struct format* f) {
  static const char flags[] = "-+ #0";
  size_t i;
  for (i = 0; i < sizeof flags - 1; ++i)
    if (chance(30)) {
      char flag[2] = {flags[i], 0};
      add(f, flag);
    }
  switch (below(10)) {
    case 0:
    case 1:
    case 2:
    case 3: break;
    case 4: add_number(f, 1020 + below(10)); break;
    case 5: add_number(f, 21 + below(180)); break;
    default: add_number(f, 1 + below(20));
  }
  switch (below(20)) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4:
    case 5:
    case 6:
    case 7: break;
    case 8:
    case 9: add(f, "."); break;
    case 10:
      add(f, ".");
      add_number(f, 1020 + below(10));
      break;
    case 11:
      add(f, ".");
      add_number(f, 120 + below(15));
      break;
    default: add(f, "."); add_number(f, below(21));
  }
}

static void fast_form_case(struct run* r) {
  static const char* const int_conversions[] = {"d", "i", "u", "x", "X", "hd", "hhx", "c", "o"};
  static const char* const ull_conversions[] = {"lld", "lli", "llu", "llx", "llX", "ld",
                                                "lx",  "zu",  "zd",  "jd",  "jx"};
  static const char* const double_conversions[] = {"f", "f", "f", "F", "e", "E", "g", "G", "lf"};
  struct format f;
  struct arguments a[3];
  int i, code = 0;
  f.size = 0;
  f.text[0] = '\0';
  if (chance(10)) {
    /* A string's precision from an argument, beside a width and flags. */
    random_arguments(&a[0], 0, 0);
    add(&f, chance(50) ? "<" : "");
    add(&f, "%");
    if (chance(50)) add(&f, "-");
    if (chance(20)) add(&f, "0");
    add_number(&f, below(30));
    add(&f, ".*s>");
    BOTH(r, f.text, a[0].precision, a[0].s);
    return;
  }
  for (i = 0; i < 3; ++i) {
    int kind = (int)below(4);
    code = code * 4 + kind;
    if (chance(70)) {
      size_t length = below(9), j;
      char text[16];
      for (j = 0; j < length; ++j) text[j] = chance(90) ? (char)('a' + below(26)) : '\n';
      text[length] = '\0';
      add(&f, text);
    }
    add(&f, "%");
    add_fast_flags_width_precision(&f);
    add(&f, kind == 0   ? PICK(int_conversions)
            : kind == 1 ? PICK(ull_conversions)
            : kind == 2 ? PICK(double_conversions)
                        : "s");
    random_arguments(&a[i], i, 0);
  }
  if (chance(70)) add(&f, chance(50) ? "\n" : ", ");
  switch (code) { CASES_AFTER1(0) CASES_AFTER1(1) CASES_AFTER1(2) CASES_AFTER1(3) }
}

/* Positional arguments, after literal text that may already have streamed. */
static void positional_case(struct run* r) {
  static const char* const templates[] = {
      "%1$d %2$s %1$+d|", "%2$*1$d|%3$.*1$f",     "%3$lld-%2$s-%1$c", "%1$.3s%1$s%2$10.1e",
      "%2$#o%1$+d",       "%2$s|%1$08.3f|%2$.1s", "%1$-*3$s|%2$*3$x", "%4$Lg %3$p %2$hhd %1$S",
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
    note_mismatch(r, "%%n in \"%s\": fastout stored %d %d %lld %d, glibc %d %d %lld %d", f.text, n1,
                  c1, ll1, h1, n2, c2, ll2, h2);
}

/* %n of every length, in one format: each stores into its own cell, and
 * glibc's cells must equal fastout's. */
static void counts_of_every_length_case(struct run* r) {
  static const char* const lengths[] = {"hh", "h", "", "l", "ll", "j", "z", "t", "L", "q"};
  struct format f;
  union cell {
    long long ll;
    char bytes[16];
  } mine[4], glibcs[4];
  const char* chosen[4];
  int i, expected, actual;
  f.size = 0;
  f.text[0] = '\0';
  for (i = 0; i < 4; ++i) {
    add_literal(&f);
    add(&f, "%");
    chosen[i] = PICK(lengths);
    add(&f, chosen[i]);
    add(&f, "n");
  }
  add_literal(&f);
  memset(glibcs, 0x5a, sizeof glibcs);
  memset(mine, 0x5a, sizeof mine);
  errno = fixed_errno;
  expected = snprintf(glibc_text, sizeof glibc_text, f.text, &glibcs[0], &glibcs[1], &glibcs[2],
                      &glibcs[3]);
  glibc_errno = errno;
  errno = fixed_errno;
  actual = fastout_fprintf(r->out, f.text, &mine[0], &mine[1], &mine[2], &mine[3]);
  record(r, f.text, expected, actual);
  if (r->mismatch[0] == '\0' && memcmp(mine, glibcs, sizeof mine) != 0)
    note_mismatch(r, "%%n in \"%s\": fastout stored other bytes than glibc", f.text);
}

/* %m and %#m, with errno anything: known, unknown, negative. */
static void errno_case(struct run* r) {
  static const char* const directives[] = {"%m",    "%#m",    "%20m",   "%-30m|", "%.5m",  "%#.3m",
                                           "%#10m", "%#+08m", "%# -8m", "%#.0m",  "%#.20m"};
  struct format f;
  int saved = fixed_errno;
  f.size = 0;
  f.text[0] = '\0';
  add_literal(&f);
  add(&f, PICK(directives));
  add_literal(&f);
  add(&f, PICK(directives));
  switch (below(4)) {
    case 0: fixed_errno = (int)below(140); break;
    case 1: fixed_errno = 1000 + (int)below(100000); break;
    case 2: fixed_errno = -(int)below(1000) - 1; break;
    default: fixed_errno = (int)below(40); break;
  }
  BOTH(r, f.text, 0);
  fixed_errno = saved;
}

/* More directives than the engine caches plans for (32), and more
 * positional arguments than it keeps on the stack (32). */
#define INTS_40(a)                                                                               \
  a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], \
      a[15], a[16], a[17], a[18], a[19], a[20], a[21], a[22], a[23], a[24], a[25], a[26], a[27], \
      a[28], a[29], a[30], a[31], a[32], a[33], a[34], a[35], a[36], a[37], a[38], a[39]
static void many_directives_case(struct run* r) {
  struct format f;
  int values[40], i;
  const int positional = chance(50);
  f.size = 0;
  f.text[0] = '\0';
  for (i = 0; i < 40; ++i) {
    char directive[32];
    values[i] = (int)(random_integer() & 0xffffffffu);
    if (positional)
      snprintf(directive, sizeof directive, "%%%u$%sd,", 1 + below(40), chance(20) ? "+" : "");
    else
      snprintf(directive, sizeof directive, "%%%sd;", chance(20) ? "-9" : "");
    add(&f, directive);
  }
  if (positional) add(&f, "%40$x"); /* every argument is named */
  BOTH(r, f.text, INTS_40(values));
}

/* ----------------------------------------------------------------- soup */

/* What may follow a '%', glibc's or not, in random order: the directives
 * of a soup case. Its arguments serve every reading glibc may make of them:
 * five pointers, to writable cells that hold a string (narrow and wide,
 * and take %n), at addresses whose low 32 bits are 0 to 256 (an int read
 * from one, or a width, is small), and five doubles whose low 32 bits are small
 * too (a positional argument glibc keeps as a double and reads as an int).
 * Integers and pointers travel in the integer registers and the stack,
 * doubles in their own registers, so that every directive reads one of
 * them, on x86-64 and AArch64 (this test runs where glibc does). A format
 * is made again if glibc's parse_printf_format() gives it a long double,
 * more arguments of a kind than there are, or a type for an argument that
 * an earlier directive read otherwise (glibc keeps each positional
 * argument in a union, and reading an int's slot as a pointer is
 * undefined). */
enum { SOUP_ARGS = 5 };
static char* soup_region; /* the cells, or null where they cannot be had */
static char soup_glibc_cells[SOUP_ARGS * 64];

static void make_soup_region(void) {
  static const uintptr_t places[] = {0x300000000u, 0x500000000u, 0x700000000u, 0x2300000000u};
  size_t i;
  for (i = 0; i < sizeof places / sizeof places[0] && soup_region == NULL; ++i) {
    void* at =
        mmap((void*)places[i], 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (at == MAP_FAILED) continue;
    if ((uintptr_t)at == places[i])
      soup_region = (char*)at;
    else
      munmap(at, 4096);
  }
}

static void reset_soup_cells(void) {
  int k;
  memset(soup_region, 0, SOUP_ARGS * 64);
  for (k = 0; k < SOUP_ARGS; ++k) {
    memcpy(soup_region + 64 * k, "cell", 4);
    soup_region[64 * k + 4] = (char)('0' + k);
  }
}

static void add_soup_directive(struct format* f) {
  static const char* const pieces[] = {
      "-",   "+",   " ",  "#",  "0",  "'",  "I", "1", "2",  "9",    "10",   "0",       "*",  "*1$",
      "*2$", "*3$", "1$", "2$", "3$", "0$", "$", ".", ".*", ".*1$", ".*2$", ".0",      ".1", ".12",
      "h",   "hh",  "l",  "ll", "L",  "q",  "j", "z", "Z",  "t",    "%",    "d",       "i",  "u",
      "o",   "x",   "X",  "b",  "B",  "c",  "C", "s", "S",  "p",    "n",    "m",       "e",  "f",
      "g",   "a",   "A",  "E",  "F",  "G",  "y", "k", "!",  "{",    "\t",   "\xc3\xa9"};
  static const char* const conversions[] = {"d", "i", "u", "x", "s", "c", "p", "n", "m", "%",
                                            "f", "e", "g", "a", "S", "C", "b", "y", "q", "l"};
  unsigned n = below(6), i;
  add(f, "%");
  for (i = 0; i < n; ++i) add(f, PICK(pieces));
  if (chance(85)) add(f, PICK(conversions));
}

static int soup_kind(int type) {
  if (type == (PA_DOUBLE | PA_FLAG_LONG_DOUBLE)) return -1;
  if (type == PA_DOUBLE || type == PA_FLOAT) return 1;
  return 0;
}

/* Whether `format`'s arguments can be given (see above): the types of the
 * arguments before each '%' (glibc's, up to there) are the final ones. */
static int soup_is_safe(const char* format) {
  int types[64], prefix_types[64], count, kinds[2] = {0, 0}, k;
  size_t i;
  char prefix[1024];
  /* Gaps are ints, as glibc's printf takes them (parse_printf_format()
   * leaves them as they were). */
  memset(types, 0, sizeof types);
  count = (int)parse_printf_format(format, 64, types);
  if (count > 64) return 0;
  for (k = 0; k < count; ++k) {
    int kind = soup_kind(types[k]);
    if (kind < 0) return 0;
    ++kinds[kind];
  }
  if (kinds[0] > SOUP_ARGS || kinds[1] > SOUP_ARGS) return 0;
  for (i = 0; format[i] != '\0'; ++i) {
    int n;
    if (format[i] != '%') continue;
    memcpy(prefix, format, i);
    prefix[i] = '\0';
    memset(prefix_types, 0, sizeof prefix_types);
    n = (int)parse_printf_format(prefix, 64, prefix_types);
    for (k = 0; k < n && k < count; ++k)
      if (prefix_types[k] != types[k]) return 0;
  }
  return 1;
}

static void soup_case(struct run* r) {
  struct format f;
  double d[SOUP_ARGS];
  void* p[SOUP_ARGS];
  int k, expected, actual;
  if (soup_region == NULL) return;
  for (;;) {
    unsigned directives = 1 + below(3), i;
    f.size = 0;
    f.text[0] = '\0';
    for (i = 0; i < directives; ++i) {
      add_literal(&f);
      add_soup_directive(&f);
    }
    if (chance(80)) add_literal(&f);
    if (soup_is_safe(f.text)) break;
  }
  for (k = 0; k < SOUP_ARGS; ++k) {
    uint64_t bits;
    double value = random_double();
    memcpy(&bits, &value, sizeof bits);
    bits = (bits & ~(uint64_t)0xffffffffu) | below(300);
    memcpy(&d[k], &bits, sizeof bits);
    p[k] = soup_region + 64 * k;
  }
  reset_soup_cells();
  errno = fixed_errno;
  expected = snprintf(glibc_text, sizeof glibc_text, f.text, p[0], p[1], p[2], p[3], p[4], d[0],
                      d[1], d[2], d[3], d[4]);
  glibc_errno = errno;
  memcpy(soup_glibc_cells, soup_region, sizeof soup_glibc_cells);
  reset_soup_cells();
  errno = fixed_errno;
  actual =
      fastout_fprintf(r->out, f.text, p[0], p[1], p[2], p[3], p[4], d[0], d[1], d[2], d[3], d[4]);
  record(r, f.text, expected, actual);
  if (r->mismatch[0] == '\0' && memcmp(soup_region, soup_glibc_cells, sizeof soup_glibc_cells) != 0)
    note_mismatch(
        r, "case %lu, buffer size %lu: \"%s\" left other bytes in its %%n cells than glibc's",
        (unsigned long)r->cases - 1, (unsigned long)r->buffer_size, f.text);
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
  snprintf(
      message, message_size,
      "buffer size %lu: the file (%lu bytes) and snprintf's texts (%lu bytes) differ at byte "
      "%lu, in case %lu, format \"%s\" (byte %lu of its text): file \"%.30s\", expected \"%.30s\"",
      (unsigned long)r->buffer_size, (unsigned long)actual_size, (unsigned long)r->expected_size,
      (unsigned long)i, (unsigned long)c, r->cases > 0 ? r->formats[c] : "",
      (unsigned long)(i - (r->cases > 0 ? r->offsets[c] : 0)), i < actual_size ? actual + i : "",
      i < r->expected_size ? r->expected + i : "");
}

enum { ERRORS = 1, WIDE = 2, LINE = 4, FLOATS = 8, FAST_FORMS = 16 };

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
  if (soup_region == NULL) {
    make_soup_region();
    if (soup_region == NULL)
      fprintf(stderr, "no page at an address with small low 32 bits: soup cases are left out\n");
  }
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
    if (options & FLOATS)
      float_case(&r);
    else if (options & FAST_FORMS)
      fast_form_case(&r);
    else if (below(1000) < 3)
      streaming_case(&r);
    else if (below(1000) < 2)
      many_directives_case(&r);
    else if (which < 60)
      single_case(&r, options & ERRORS, options & WIDE);
    else if (which < 72)
      multi_case(&r);
    else if (which < 79)
      positional_case(&r);
    else if (which < 83)
      count_case(&r);
    else if (which < 85)
      counts_of_every_length_case(&r);
    else if (which < 87)
      errno_case(&r);
    else
      soup_case(&r);
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

#define CHECK_RUN(buffer_size, seed, count, options)                              \
  do {                                                                            \
    char message[2048];                                                           \
    if (run_cases(c_test_path("out"), buffer_size, seed, count, options, message, \
                  sizeof message) != 0) {                                         \
      c_test_report(__FILE__, __LINE__, message);                                 \
      return;                                                                     \
    }                                                                             \
  } while (0)

TEST(every_buffer_size_from_1_to_64) {
  size_t size;
  C_TEST_SKIP_UNDER_THREAD_SANITIZER();
  for (size = 1; size <= 64; ++size) CHECK_RUN(size, base_seed() + size, case_count(), 0);
}

/* The fast executor's forms at every buffer size up to a few of their
 * texts' lengths, where it runs out of room at each directive in turn and
 * hands over to the general executor, and in the default buffer, unbuffered
 * and line-buffered (another_rounding_mode and decimal_comma_locale run
 * them too: there the doubles are the general executor's). */
TEST(fast_forms_at_every_buffer_size) {
  size_t size;
  C_TEST_SKIP_UNDER_THREAD_SANITIZER();
  for (size = 1; size <= 96; ++size)
    CHECK_RUN(size, base_seed() + 5000 + size, case_count() / 4, FAST_FORMS);
  CHECK_RUN(0, base_seed() + 5100, case_count() / 4, FAST_FORMS);
  CHECK_RUN(FASTOUT_DEFAULT_BUFFER_SIZE, base_seed() + 5101, case_count() * 2, FAST_FORMS);
  CHECK_RUN(FASTOUT_DEFAULT_BUFFER_SIZE, base_seed() + 5102, case_count() / 4, FAST_FORMS | LINE);
}

TEST(unbuffered_and_default_buffer) {
  CHECK_RUN(0, base_seed() + 1000, case_count(), 0);
  CHECK_RUN(FASTOUT_DEFAULT_BUFFER_SIZE, base_seed() + 1001, case_count() * 8, 0);
}

/* Buffers of at least 64 KiB stream a large text through themselves. */
TEST(large_buffers) {
  CHECK_RUN(65536, base_seed() + 1100, case_count() * 2, 0);
  CHECK_RUN(100003, base_seed() + 1101, case_count() * 2, 0);
}

TEST(line_buffered) {
  size_t size;
  for (size = 1; size <= 200; size += 13)
    CHECK_RUN(size, base_seed() + 2000 + size, case_count() / 4, LINE);
}

/* Formats glibc refuses ("%" at the end, a wide character the locale cannot
 * convert): the same negative errno, and none of the text in the file. */
TEST(errors_match_glibc) {
  CHECK_RUN(FASTOUT_DEFAULT_BUFFER_SIZE, base_seed() + 3000, case_count() * 2, ERRORS | WIDE);
  CHECK_RUN(0, base_seed() + 3001, case_count(), ERRORS | WIDE);
}

/* glibc rounds by the rounding mode; fastout then lets it format. */
TEST(another_rounding_mode) {
  int modes[3], i;
  modes[0] = FE_UPWARD;
  modes[1] = FE_DOWNWARD;
  modes[2] = FE_TOWARDZERO;
  for (i = 0; i < 3; ++i) {
    fesetround(modes[i]);
    {
      char message[2048];
      int failed = run_cases(c_test_path("out"), 64, base_seed() + 4000 + (unsigned)i,
                             case_count() / 2, 0, message, sizeof message) ||
                   run_cases(c_test_path("out"), 64, base_seed() + 4010 + (unsigned)i,
                             case_count() / 4, FAST_FORMS, message, sizeof message);
      fesetround(FE_TONEAREST);
      if (failed) {
        c_test_report(__FILE__, __LINE__, message);
        return;
      }
    }
  }
}

/* Long doubles from random bits, and doubles, at large precisions, in
 * every rounding mode (glibc's digits are exact and rounded once, by the
 * mode). */
TEST(long_doubles_and_large_precisions) {
  int modes[4], i;
  modes[0] = FE_TONEAREST;
  modes[1] = FE_UPWARD;
  modes[2] = FE_DOWNWARD;
  modes[3] = FE_TOWARDZERO;
  for (i = 0; i < 4; ++i) {
    char message[2048];
    int failed;
    fesetround(modes[i]);
    failed = run_cases(c_test_path("out"), 61, base_seed() + 7000 + (unsigned)i, case_count(),
                       FLOATS, message, sizeof message);
    fesetround(FE_TONEAREST);
    if (failed) {
      c_test_report(__FILE__, __LINE__, message);
      return;
    }
  }
}

/* Texts near and past INT_MAX bytes, and numbers in directives past it:
 * glibc's results and errors (EOVERFLOW), through a writer on /dev/null
 * (the text is 2 GiB: only the results are compared), and widths of
 * millions byte for byte. */
static int limit_failures;
static void check_limit(fastout_file* null_writer, const char* format, int expected, int actual,
                        int glibc_error) {
  if (expected < 0 ? actual == -glibc_error : actual == expected) return;
  if (limit_failures++ == 0)
    fprintf(stderr, "fastout_printf(\"%s\") returned %d, glibc %d (errno %d)\n", format, actual,
            expected, glibc_error);
  (void)null_writer;
}
#define LIMIT(format, ...)                                                       \
  do {                                                                           \
    int limit_expected, limit_actual, limit_errno;                               \
    errno = 0;                                                                   \
    limit_expected = snprintf(NULL, 0, format, __VA_ARGS__);                     \
    limit_errno = errno;                                                         \
    limit_actual = fastout_fprintf(null_writer, format, __VA_ARGS__);            \
    check_limit(null_writer, format, limit_expected, limit_actual, limit_errno); \
  } while (0)

TEST(limits_of_int) {
  fastout_file* null_writer = fastout_open("/dev/null", NULL);
  /* Each of the first four makes glibc write 2 GiB (into nothing): a few
   * seconds each. */
  const char* formats[] = {"%2147483647d",    "%2147483647d%d",  "%.2147483647d",
                           "%2147483646d%c",  "%2147483648d",    "%.2147483648d",
                           "%1$2147483648d",  "%1$.2147483648d", "%99999999999$d",
                           "%*99999999999$d", "%.*99999999999$d"};
  size_t i;
  CHECK(null_writer != NULL);
  if (null_writer == NULL) return;
  /* The seven cases that make 2 GiB take about 100 s: the C11 build runs
   * them, the C99 one (the same engine) does not. Under an emulator (qemu
   * for aarch64), glibc's padding runs about ten times slower: there they
   * are left to the native run. Either says so. */
  static const char* const emulator[] = {FASTOUT_TEST_EMULATOR NULL};
  const int emulated = emulator[0] != NULL;
  const int c99 = __STDC_VERSION__ < 201112L;
  const int skip_large = emulated || c99;
  if (emulated)
    fprintf(stderr,
            "limits_of_int: under %s, the seven cases that print 2 GiB are skipped "
            "(too slow emulated; the native run has them)\n",
            emulator[0]);
  else if (c99)
    fprintf(stderr,
            "limits_of_int: the seven cases that print 2 GiB are skipped in the C99 "
            "build (about 100 s; the C11 build runs them)\n");
  limit_failures = 0;
  for (i = skip_large ? 4 : 0; i < sizeof formats / sizeof formats[0]; ++i) {
    /* Not literals: ISO C's format check knows neither '$' nor these sizes. */
    const char* format = formats[i];
    if (strchr(format, 's') != NULL)
      LIMIT(format, "x");
    else
      LIMIT(format, 1, 'c');
  }
  {
    /* Variables: the compiler's format check would count these. */
    const char* star = "%-*d";
    const char* star_precision = "%.*d";
    const char* left = "%-*d|";
    const char* fixed = "%.*f";
    const char* exponent = "%.*Le";
    volatile int largest = INT_MAX, smallest = INT_MIN;
    if (!skip_large) {
      LIMIT(star, smallest, 1); /* glibc's -INT_MIN wraps: 2 GiB of padding, EOVERFLOW */
      LIMIT(star_precision, largest, 1);
      LIMIT(left, smallest + 1, 7);
    }
    LIMIT(fixed, 100000000, 1.0);
    LIMIT(exponent, 100000000, 1.0L);
  }
  CHECK_EQ(limit_failures, 0);
  CHECK_EQ(fastout_close(null_writer), 0);
  {
    /* Millions, byte for byte. */
    char message[2048];
    struct run r;
    fastout_options o;
    memset(&r, 0, sizeof r);
    fastout_options_init(&o);
    r.out = fastout_open(c_test_path("wide"), &o);
    r.buffer_size = FASTOUT_DEFAULT_BUFFER_SIZE;
    if (r.out == NULL) return;
    fixed_errno = 0;
    {
      const char* width = "%*d|%-*.*s|%0*.*f";
      int both_expected, both_actual;
      char* text = (char*)malloc(40000000);
      errno = 0;
      both_expected =
          snprintf(text, 40000000, width, 9000000, -5, 3000000, 20, "abc", 3000001, 2000, 1e300);
      both_actual =
          fastout_fprintf(r.out, width, 9000000, -5, 3000000, 20, "abc", 3000001, 2000, 1e300);
      CHECK_EQ(both_actual, both_expected);
      CHECK_EQ(fastout_close(r.out), 0);
      if (both_expected > 0) CHECK_FILE(c_test_path("wide"), text, (size_t)both_expected);
      free(text);
    }
    (void)message;
  }
}

/* Wide characters in a UTF-8 locale. */
TEST(utf8_locale) {
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
  char command[1024];
  snprintf(command, sizeof command, "localedef -i de_DE -f UTF-8 '%s/de_DE.UTF-8' >/dev/null 2>&1",
           c_test_dir_path);
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
                         sizeof message) ||
               run_cases(c_test_path("out"), 29, base_seed() + 6001, case_count() / 2, FAST_FORMS,
                         message, sizeof message);
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

/* ------------------------------------------ unconvertible wide characters */

/* glibc converts a %ls or %S string in chunks of up to 256 bytes
 * (outstring_converted_wide_string): a chunk with a character the locale
 * cannot convert is not written, the call fails with EILSEQ, and the chunks
 * before it stay written; a right-justified string is measured first (all
 * of it, or as much as its precision lets), and a failure there leaves no
 * padding, and nothing at all under a precision. These cases hold fastout
 * to that: strings failing at several places (either side of a chunk's
 * end, past the precision), widths either side, precisions, %lc and %C,
 * after text that has or has not gone to the file yet. A failing call must
 * leave in the file nothing, or, where part of its text had been sent
 * already, exactly glibc's text up to the failure. */

struct wide_run {
  fastout_file* out;
  size_t buffer_size;
  char* expected; /* what the file must hold */
  size_t expected_size, expected_capacity;
  char* glibc; /* snprintf's text */
  char mismatch[1024];
  unsigned long long accepted;
  size_t cases;
};

enum { WIDE_GLIBC_SIZE = 1 << 20, WIDE_LONGEST = 6000 };
static wchar_t wide_text[WIDE_LONGEST + 1];
static char narrow_text[5001];

static void wide_call(struct wide_run* r, const char* format, ...) {
  va_list glibc_args, fastout_args;
  int expected, actual, error;
  size_t glibc_size, accepted;
  fastout_stats stats;
  ++r->cases;
  va_start(glibc_args, format);
  va_copy(fastout_args, glibc_args);
  r->glibc[0] = '\0';
  errno = 0;
  expected = vsnprintf(r->glibc, WIDE_GLIBC_SIZE, format, glibc_args);
  error = errno;
  va_end(glibc_args);
  actual = fastout_vfprintf(r->out, format, fastout_args);
  va_end(fastout_args);
  glibc_size = expected >= 0 ? (size_t)expected : strlen(r->glibc);
  if (glibc_size >= WIDE_GLIBC_SIZE) {
    fprintf(stderr, "a case made %lu bytes, more than the test's buffer: %s\n",
            (unsigned long)glibc_size, format);
    exit(2);
  }
  fastout_get_stats(r->out, &stats);
  accepted = (size_t)(stats.bytes_accepted - r->accepted);
  r->accepted = stats.bytes_accepted;
  if (r->mismatch[0] == '\0') {
    if (expected < 0 ? actual != -error : actual != expected)
      snprintf(r->mismatch, sizeof r->mismatch,
               "case %lu, buffer size %lu: fastout_printf(\"%s\") returned %d, glibc %d (errno %d)",
               (unsigned long)r->cases, (unsigned long)r->buffer_size, format, actual, expected,
               error);
    else if (accepted != glibc_size && !(expected < 0 && accepted == 0))
      snprintf(r->mismatch, sizeof r->mismatch,
               "case %lu, buffer size %lu: fastout_printf(\"%s\") returned %d and left %lu bytes "
               "in the file; glibc's text is %lu bytes%s",
               (unsigned long)r->cases, (unsigned long)r->buffer_size, format, actual,
               (unsigned long)accepted, (unsigned long)glibc_size,
               expected < 0 ? " (a failed call leaves none, or all of glibc's)" : "");
  }
  if (accepted == glibc_size && glibc_size != 0) {
    if (r->expected_size + glibc_size > r->expected_capacity) {
      r->expected_capacity = (r->expected_size + glibc_size) * 2;
      r->expected = (char*)realloc(r->expected, r->expected_capacity);
      if (r->expected == NULL) exit(2);
    }
    memcpy(r->expected + r->expected_size, r->glibc, glibc_size);
    r->expected_size += glibc_size;
  }
}

/* A wide string of `length` characters, the one at `bad` (if below length)
 * one the locale cannot convert. In a UTF-8 locale (`utf8`), characters of
 * one, two and three bytes, so that chunks end inside them. */
static const wchar_t* make_wide_text(size_t length, size_t bad, int utf8) {
  static const wchar_t utf8_letters[] = {L'a', 0xe9, 0x4e2d, L'b', L'c', 0x3b1, 0x20ac};
  size_t i;
  for (i = 0; i < length; ++i) {
    wchar_t c = (wchar_t)(L'A' + i % 26);
    if (utf8 && chance(50)) c = utf8_letters[below(7)];
    wide_text[i] = c;
  }
  /* Not in the "C" locale (ASCII), and a surrogate, which UTF-8 cannot
   * encode. */
  if (bad < length) wide_text[bad] = utf8 ? (wchar_t)0xd800 : (wchar_t)0xe9;
  wide_text[length] = 0;
  return wide_text;
}

static size_t wide_place(size_t length) {
  static const size_t places[] = {0, 1, 4, 100, 170, 255, 256, 257, 300, 511, 512, 513, 1000, 4500};
  if (chance(15)) return length; /* none */
  if (chance(50)) return below((unsigned)length + 1);
  return places[below(sizeof places / sizeof places[0])];
}

static void wide_string_case(struct wide_run* r, int utf8) {
  static const unsigned lengths[] = {0, 1, 5, 10, 200, 255, 256, 257, 300, 600, 1100, 5000};
  static const int widths[] = {-300, -20, 0, 3, 20, 300, 1000, 6000};
  static const int precisions[] = {-1, 0, 3, 4, 5, 100, 254, 255, 256, 257, 300, 512, 600, 10000};
  static const char* const forms[] = {"%ls",     "%S",       "%*ls",        "%*S",
                                      "%-*ls",   "%.*ls",    "%.*S",        "%*.*ls",
                                      "%-*.*ls", "%2$*1$ls", "%3$*1$.*2$ls"};
  /* Text before: none, a few bytes, and more than the unbuffered writer's
   * 4 KiB, the 64 KiB streaming area, and the default buffer. */
  static const int prefix_widths[] = {0, 5, 4701, 70000, 300000};
  const size_t length = chance(80) ? lengths[below(12)] : below(WIDE_LONGEST + 1);
  const wchar_t* w = make_wide_text(length, wide_place(length), utf8);
  const int width = chance(70) ? widths[below(8)] : (int)below(601) - 300;
  int precision = chance(70) ? precisions[below(14)] : (int)below(700);
  const char* form = forms[below(sizeof forms / sizeof forms[0])];
  const int prefix = prefix_widths[below(chance(60) ? 2 : 5)];
  char format[64];
  if (chance(10)) precision = -1 - (int)below(5); /* a negative one is none */
  snprintf(format, sizeof format, "<%%*d|%s>%s", form, chance(50) ? "\n" : "");
  if (strchr(form, '$') != NULL) {
    /* Positional: the prefix is its first argument too. */
    if (strstr(form, "3$") != NULL) {
      snprintf(format, sizeof format, "<%%4$*5$d|%s>", form);
      wide_call(r, format, width, precision, w, 1, prefix);
    } else {
      snprintf(format, sizeof format, "<%%3$*4$d|%s>", form);
      wide_call(r, format, width, w, 1, prefix);
    }
  } else if (strstr(form, "*.*") != NULL)
    wide_call(r, format, prefix, 1, width, precision, w);
  else if (strchr(form, '*') != NULL)
    wide_call(r, format, prefix, 1, strchr(form, '.') != NULL ? precision : width, w);
  else
    wide_call(r, format, prefix, 1, w);
}

static void wide_char_case(struct wide_run* r, int utf8) {
  static const char* const forms[] = {"%lc", "%C", "%*lc", "%-*lc", "%*C", "%1$*2$lc"};
  static const int prefix_widths[] = {0, 5, 4701, 70000, 300000};
  const char* form = forms[below(sizeof forms / sizeof forms[0])];
  const int prefix = prefix_widths[below(chance(60) ? 2 : 5)];
  const int width = (int)below(41) - 20;
  const wint_t c = chance(60) ? (wint_t)(utf8 ? 0xdc00 : 0xe9) : (wint_t)(utf8 ? 0x4e2d : L'x');
  char format[64];
  if (strchr(form, '$') != NULL) {
    snprintf(format, sizeof format, "%s|%%3$*4$d", form);
    wide_call(r, format, c, width, 1, prefix);
    return;
  }
  snprintf(format, sizeof format, "%%*d|%s|", form);
  if (strchr(form, '*') != NULL)
    wide_call(r, format, prefix, 1, width, c);
  else
    wide_call(r, format, prefix, 1, c);
}

/* `count` cases through a writer with this buffer size; 0, or 1 with a
 * message. */
static int run_wide_cases(const char* path, size_t buffer_size, unsigned long long seed,
                          size_t count, int utf8, char* message, size_t message_size) {
  struct wide_run r;
  fastout_options o;
  size_t i, actual_size = 0;
  char* actual;
  int closed, failed = 0;
  memset(&r, 0, sizeof r);
  rng_state = seed;
  r.buffer_size = buffer_size;
  r.glibc = (char*)malloc(WIDE_GLIBC_SIZE);
  if (r.glibc == NULL) exit(2);
  fastout_options_init(&o);
  o.buffer_size = buffer_size;
  r.out = fastout_open(path, &o);
  if (r.out == NULL) {
    snprintf(message, message_size, "cannot open %s: %s", path, strerror(errno));
    return 1;
  }
  memset(narrow_text, 'n', sizeof narrow_text - 1);
  /* The issue's case: 4,701 bytes of glibc's, and none of the failing
   * chunk ("MNOP"). */
  wide_call(&r, "%#*.181ls%*ls", 4701, L"an ASCII string", 20,
            utf8 ? L"MNOP\xd800RSTUV" : L"MNOP\xe9RSTUV");
  wide_call(&r, "%s%ls", narrow_text, utf8 ? L"MNOP\xd800RSTUV" : L"MNOP\xe9RSTUV");
  for (i = 0; i < count; ++i) {
    if (chance(80))
      wide_string_case(&r, utf8);
    else
      wide_char_case(&r, utf8);
  }
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
    size_t at = 0;
    while (actual != NULL && at < actual_size && at < r.expected_size &&
           actual[at] == r.expected[at])
      ++at;
    snprintf(message, message_size,
             "buffer size %lu: the file (%lu bytes) and glibc's texts (%lu bytes) differ at byte "
             "%lu",
             (unsigned long)buffer_size, (unsigned long)actual_size, (unsigned long)r.expected_size,
             (unsigned long)at);
    failed = 1;
  }
  free(actual);
  free(r.expected);
  free(r.glibc);
  return failed;
}

static void check_wide_runs(int utf8, unsigned long long seed) {
  static const size_t sizes[] = {0, 1, 7, FASTOUT_DEFAULT_BUFFER_SIZE};
  size_t i;
  for (i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    char message[2048];
    if (run_wide_cases(c_test_path("out"), sizes[i], seed + i, case_count() / 8, utf8, message,
                       sizeof message) != 0) {
      c_test_report(__FILE__, __LINE__, message);
      return;
    }
  }
}

TEST(unconvertible_wide_characters_fail_as_glibc) { check_wide_runs(0, base_seed() + 8000); }

TEST(unconvertible_wide_characters_fail_as_glibc_in_utf8) {
  if (setlocale(LC_ALL, "C.UTF-8") == NULL) {
    c_test_skip("no C.UTF-8 locale");
    return;
  }
  check_wide_runs(1, base_seed() + 8100);
  setlocale(LC_ALL, "C");
}

#define ALL_TESTS(X)                             \
  X(every_buffer_size_from_1_to_64)              \
  X(fast_forms_at_every_buffer_size)             \
  X(long_doubles_and_large_precisions)           \
  X(limits_of_int)                               \
  X(unbuffered_and_default_buffer)               \
  X(large_buffers)                               \
  X(line_buffered)                               \
  X(errors_match_glibc)                          \
  X(another_rounding_mode)                       \
  X(utf8_locale)                                 \
  X(decimal_comma_locale)                        \
  X(unconvertible_wide_characters_fail_as_glibc) \
  X(unconvertible_wide_characters_fail_as_glibc_in_utf8)

C_TEST_MAIN(ALL_TESTS)
