/* SPDX-License-Identifier: MIT */
/* Makes test/printf_corpus.txt: cases of (format, arguments, glibc's bytes),
 * formatted here by glibc's snprintf, for printf_corpus_test.cpp to hold
 * fastout_printf to on every platform, where glibc is not there to ask.
 *
 *   printf_corpus_generator > test/printf_corpus.txt
 *
 * Run it on Linux with glibc 2.36 (the glibc fastout's printf is glibc's
 * bytes of); the CTest printf_corpus_is_the_generators_output checks that
 * the committed corpus is what it makes, where that is the glibc. It takes
 * no input: its cases come from fixed lists and a fixed seed.
 *
 * A line is one case, its fields separated by tabs:
 *
 *   tags  rounding  errno  format  arguments  result  text  counts
 *
 * - tags: "-", or a comma-separated list of what makes the case's text the
 *   platform's rather than glibc's alone: "libc" (%m: strerror's text and
 *   errno's name), "wide" (a wide character beyond ASCII, which wcrtomb()
 *   converts or refuses by the platform's "C" locale), "x87" (a long double
 *   given by its x87 bits);
 * - rounding: n, u, d or z (to nearest, upward, downward, toward zero);
 * - errno: the value errno has before the call (for %m);
 * - format, text: the bytes, printable ASCII as they are but '\', tab and
 *   space, and every other byte as \xHH;
 * - arguments: up to 4, space-separated: i:<int> j:<long long> (decimal),
 *   d:<a double's 16 hex digits of bits>, e:<an x87 long double's 10 bytes,
 *   20 hex digits, little-endian>, s:<a string, escaped>, z (a null char*),
 *   w:<a wide string: hex code points, comma-separated, or nothing>, W (a
 *   null wchar_t*), p:<a pointer's value, hex>, n:<hh|h|i|l|ll|j|z|t> (a
 *   pointer to a zeroed cell for %n of that length); "-" for none;
 * - result: snprintf's, or the errno's name (EINVAL, EILSEQ, EOVERFLOW)
 *   where it fails (its text is then empty);
 * - counts: "-", or what each n: cell holds afterwards, comma-separated, in
 *   the arguments' order (read as the length's type). */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fenv.h>
#include <float.h>
#include <gnu/libc-version.h>
#include <limits.h>
#include <math.h>
#include <printf.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <wchar.h>

/* ------------------------------------------------------------ randomness */

static uint64_t rng_state = 20260101;

static uint64_t next64(void) { /* splitmix64 */
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static unsigned below(unsigned n) { return (unsigned)(next64() % n); }
static int chance(unsigned percent) { return below(100) < percent; }
/* (The random calls are one to a statement, or sequenced by ?: and &&: the
 * order of a function's arguments is the compiler's, and the corpus must
 * come out the same from every build of the generator.) */
static uint64_t random_bits(void) {
  const unsigned shift = below(64);
  return next64() >> shift;
}

/* -------------------------------------------------------------- a case */

enum kind { A_INT, A_LLONG, A_DOUBLE, A_LDOUBLE, A_STRING, A_WSTRING, A_POINTER, A_COUNT };

struct argument {
  enum kind kind;
  long long integer;
  double d;
  long double ld;
  char string[128];
  int null;
  wchar_t wide[16];
  char count_kind[3];
  long long cell; /* %n's target */
};

struct test_case {
  char tags[32];
  int rounding; /* FE_* */
  int error;    /* errno before the call */
  char format[512];
  struct argument args[4];
  int count;
};

static void clear(struct test_case* c) {
  memset(c, 0, sizeof *c);
  c->rounding = FE_TONEAREST;
  strcpy(c->tags, "-");
}

static void tag(struct test_case* c, const char* name) {
  if (strstr(c->tags, name) != NULL) return;
  if (strcmp(c->tags, "-") == 0)
    strcpy(c->tags, name);
  else {
    strcat(c->tags, ",");
    strcat(c->tags, name);
  }
}

static struct argument* add_argument(struct test_case* c, enum kind kind) {
  struct argument* a = &c->args[c->count++];
  memset(a, 0, sizeof *a);
  a->kind = kind;
  return a;
}

static void put_escaped(const char* text, size_t size) {
  size_t i;
  for (i = 0; i < size; ++i) {
    unsigned char b = (unsigned char)text[i];
    if (b > ' ' && b < 127 && b != '\\')
      putchar(b);
    else
      printf("\\x%02x", b);
  }
}

static const char* rounding_name(int mode) {
  return mode == FE_UPWARD ? "u" : mode == FE_DOWNWARD ? "d" : mode == FE_TOWARDZERO ? "z" : "n";
}

static const char* error_name(int error) {
  switch (error) {
    case EINVAL: return "EINVAL";
    case EILSEQ: return "EILSEQ";
    case EOVERFLOW: return "EOVERFLOW";
    default: return NULL;
  }
}

static char text[1 << 16];

/* One argument as the corpus writes it. */
static void put_argument(const struct argument* a) {
  switch (a->kind) {
    case A_INT: printf("i:%d", (int)a->integer); break;
    case A_LLONG: printf("j:%lld", a->integer); break;
    case A_DOUBLE: {
      uint64_t bits;
      memcpy(&bits, &a->d, sizeof bits);
      printf("d:%016llx", (unsigned long long)bits);
      break;
    }
    case A_LDOUBLE: {
      unsigned char bytes[sizeof(long double)];
      int i;
      memcpy(bytes, &a->ld, sizeof bytes);
      printf("e:");
      for (i = 0; i < 10; ++i) printf("%02x", bytes[i]);
      break;
    }
    case A_STRING:
      if (a->null)
        printf("z");
      else {
        printf("s:");
        put_escaped(a->string, strlen(a->string));
      }
      break;
    case A_WSTRING:
      if (a->null)
        printf("W");
      else {
        int i;
        printf("w:");
        for (i = 0; a->wide[i] != 0; ++i) printf("%s%x", i > 0 ? "," : "", (unsigned)a->wide[i]);
      }
      break;
    case A_POINTER: printf("p:%llx", (unsigned long long)a->integer); break;
    case A_COUNT: printf("n:%s", a->count_kind); break;
  }
}

/* snprintf with the case's arguments: a switch over their kinds, 4 at most,
 * grouped as the calling convention takes them (int, long long, double,
 * long double, pointer). */
#define ARG_INT(a) ((int)(a).integer)
#define ARG_LLONG(a) ((a).integer)
#define ARG_DOUBLE(a) ((a).d)
#define ARG_LDOUBLE(a) ((a).ld)
#define ARG_POINTER(a) (pointer_of(&(a)))

static void* pointer_of(struct argument* a) {
  switch (a->kind) {
    case A_STRING: return a->null ? NULL : (void*)a->string;
    case A_WSTRING: return a->null ? NULL : (void*)a->wide;
    case A_COUNT: return &a->cell;
    default: return (void*)(uintptr_t)a->integer;
  }
}

static int class_of(enum kind kind) {
  switch (kind) {
    case A_INT: return 0;
    case A_LLONG: return 1;
    case A_DOUBLE: return 2;
    case A_LDOUBLE: return 3;
    default: return 4;
  }
}

/* A table of macros, a case label and a call each, expanded in call()'s
 * switch: clang-format 14 would join a long one into the next #define. */
/* clang-format off */
#define CLASS_0 INT
#define CLASS_1 LLONG
#define CLASS_2 DOUBLE
#define CLASS_3 LDOUBLE
#define CLASS_4 POINTER
#define ARG_OF(cls, x) ARG_OF_(cls, x)
#define ARG_OF_(cls, x) ARG_##cls(c->args[x])
#define K(n) CLASS_##n
#define S1(a) \
  case 5 + (a): return snprintf(text, sizeof text, c->format, ARG_OF(K(a), 0));
#define S2(a, b) \
  case 30 + (a) * 5 + (b): return snprintf(text, sizeof text, c->format, ARG_OF(K(a), 0), ARG_OF(K(b), 1));
#define S3(a, b, d)                                                                 \
  case 155 + ((a) * 5 + (b)) * 5 + (d):                                             \
    return snprintf(text, sizeof text, c->format, ARG_OF(K(a), 0), ARG_OF(K(b), 1), \
                    ARG_OF(K(d), 2));
#define S4(a, b, d, e)                                                              \
  case 780 + (((a) * 5 + (b)) * 5 + (d)) * 5 + (e):                                 \
    return snprintf(text, sizeof text, c->format, ARG_OF(K(a), 0), ARG_OF(K(b), 1), \
                    ARG_OF(K(d), 2), ARG_OF(K(e), 3));
#define S2_(a) S2(a, 0) S2(a, 1) S2(a, 2) S2(a, 3) S2(a, 4)
#define S3_(a, b) S3(a, b, 0) S3(a, b, 1) S3(a, b, 2) S3(a, b, 3) S3(a, b, 4)
#define S3__(a) S3_(a, 0) S3_(a, 1) S3_(a, 2) S3_(a, 3) S3_(a, 4)
#define S4_(a, b, d) S4(a, b, d, 0) S4(a, b, d, 1) S4(a, b, d, 2) S4(a, b, d, 3) S4(a, b, d, 4)
#define S4__(a, b) S4_(a, b, 0) S4_(a, b, 1) S4_(a, b, 2) S4_(a, b, 3) S4_(a, b, 4)
#define S4___(a) S4__(a, 0) S4__(a, 1) S4__(a, 2) S4__(a, 3) S4__(a, 4)
/* clang-format on */

#if defined(__GNUC__)
#  pragma GCC diagnostic ignored "-Wformat-nonliteral"
#  pragma GCC diagnostic ignored "-Wformat-security"
#endif

static int call(struct test_case* c) {
  int code = 0, i;
  for (i = 0; i < c->count; ++i) code = code * 5 + class_of(c->args[i].kind);
  switch (c->count == 0   ? 0
          : c->count == 1 ? 5 + code
          : c->count == 2 ? 30 + code
          : c->count == 3 ? 155 + code
                          : 780 + code) {
    case 0:
      return snprintf(text, sizeof text, c->format, 0);
      /* clang-format off */
    S1(0) S1(1) S1(2) S1(3) S1(4)
    S2_(0) S2_(1) S2_(2) S2_(3) S2_(4)
    S3__(0) S3__(1) S3__(2) S3__(3) S3__(4)
    S4___(0) S4___(1) S4___(2) S4___(3) S4___(4)
          /* clang-format on */
          default : break;
  }
  fprintf(stderr, "no call for %d arguments\n", c->count);
  exit(2);
}

/* The value %n stored in a cell, read as its length's type. */
static long long count_of(const struct argument* a) {
  const char* k = a->count_kind;
  if (strcmp(k, "hh") == 0) {
    signed char value;
    memcpy(&value, &a->cell, sizeof value);
    return value;
  }
  if (strcmp(k, "h") == 0) {
    short value;
    memcpy(&value, &a->cell, sizeof value);
    return value;
  }
  if (strcmp(k, "i") == 0) {
    int value;
    memcpy(&value, &a->cell, sizeof value);
    return value;
  }
  return a->cell; /* l, ll, j, z, t: 64 bits here */
}

static unsigned long cases_written;

/* Formats the case with glibc and writes its line. */
static void emit(struct test_case* c) {
  int result, error, i, any_count = 0;
  if (strlen(c->format) >= sizeof c->format - 1) return;
  for (i = 0; i < c->count; ++i) c->args[i].cell = 0;
  fesetround(c->rounding);
  errno = c->error;
  result = call(c);
  error = errno;
  fesetround(FE_TONEAREST);
  if (result >= (int)sizeof text) return; /* too long for the corpus */
  if (result < 0 && error_name(error) == NULL) {
    fprintf(stderr, "\"%s\" failed with errno %d\n", c->format, error);
    exit(2);
  }
  printf("%s\t%s\t%d\t", c->tags, rounding_name(c->rounding), c->error);
  put_escaped(c->format, strlen(c->format));
  putchar('\t');
  if (c->count == 0) putchar('-');
  for (i = 0; i < c->count; ++i) {
    if (i > 0) putchar(' ');
    put_argument(&c->args[i]);
  }
  putchar('\t');
  if (result < 0)
    printf("%s\t", error_name(error));
  else
    printf("%d\t", result);
  put_escaped(text, result > 0 ? (size_t)result : 0);
  putchar('\t');
  for (i = 0; i < c->count; ++i) {
    if (c->args[i].kind != A_COUNT) continue;
    printf("%s%lld", any_count ? "," : "", count_of(&c->args[i]));
    any_count = 1;
  }
  if (!any_count) putchar('-');
  putchar('\n');
  ++cases_written;
}

/* ---------------------------------------------------------------- values */

static long long random_integer(void) {
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
  if (pick < 3) {
    unsigned long long e = edges[below(sizeof edges / sizeof edges[0])];
    return (long long)(chance(50) ? e : 0 - e);
  }
  if (pick < 6) return chance(50) ? (long long)below(2001) : -(long long)below(2001);
  return (long long)random_bits();
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
                                 1e-300,
                                 99.96,
                                 999999.7,
                                 0.000099999,
                                 9.9999999};
  unsigned pick = below(20);
  double value;
  if (pick < 4) {
    uint64_t bits = next64();
    memcpy(&value, &bits, sizeof value);
    return value;
  }
  if (pick < 8)
    value = edges[below(sizeof edges / sizeof edges[0])];
  else if (pick < 9)
    value = below(2) ? HUGE_VAL : NAN;
  else if (pick < 12) {
    const double digits = (double)(long long)below(2000001);
    value = digits * pow(10.0, (int)below(61) - 30);
  } else if (pick < 15) {
    const double tie = (double)below(4096) + 0.5;
    value = ldexp(tie, -(int)below(12));
  } else if (pick < 18) {
    const double mantissa = (double)(next64() >> 11);
    value = ldexp(mantissa, (int)below(2100) - 1100);
  } else {
    value = (double)(long long)random_bits() / 1000.0;
  }
  return chance(30) ? -value : value;
}

/* An x87 long double from its bits: 10 bytes, anything. */
static long double random_x87(void) {
  long double value = 0;
  unsigned char bytes[sizeof(long double)];
  uint64_t mantissa = random_bits();
  unsigned exponent = chance(20) ? (chance(50) ? 0u : 0x7fffu) : below(0x8000);
  if (chance(80) && exponent != 0) mantissa |= (uint64_t)1 << 63;
  memset(bytes, 0, sizeof bytes);
  memcpy(bytes, &mantissa, 8);
  exponent |= chance(50) ? 0x8000u : 0u;
  bytes[8] = (unsigned char)exponent;
  bytes[9] = (unsigned char)(exponent >> 8);
  memcpy(&value, bytes, sizeof bytes < sizeof value ? sizeof bytes : sizeof value);
  return value;
}

static void random_string(char* s, size_t capacity) {
  size_t length = below(chance(10) ? 100 : 20), i;
  if (length >= capacity) length = capacity - 1;
  for (i = 0; i < length; ++i) s[i] = (char)(chance(95) ? 32 + below(95) : 128 + below(128));
  s[length] = '\0';
}

/* ------------------------------------------------------------ the formats */

static void add(char* format, const char* text_to_add) {
  if (strlen(format) + strlen(text_to_add) < 500) strcat(format, text_to_add);
}

static void add_number(char* format, unsigned value) {
  char n[16];
  snprintf(n, sizeof n, "%u", value);
  add(format, n);
}

static void add_literal(char* format) {
  size_t length = chance(10) ? 10 + below(40) : below(4), i, at = strlen(format);
  if (at + length >= 500) return;
  for (i = 0; i < length; ++i) {
    char ch = (char)(chance(97) ? 32 + below(95) : '\n');
    format[at + i] = ch == '%' ? '+' : ch;
  }
  format[at + length] = '\0';
}

/* Flags, a width and a precision; returns which are '*' (1: the width, 2:
 * the precision). */
static int add_flags_width_precision(char* format, unsigned largest_precision) {
  static const char flags[] = "-+ #0";
  int stars = 0;
  size_t i;
  for (i = 0; i < sizeof flags - 1; ++i)
    if (chance(15)) {
      char flag[2] = {flags[i], 0};
      add(format, flag);
    }
  if (chance(2)) add(format, "'");
  if (chance(2)) add(format, "I");
  switch (below(12)) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4:
    case 5: break;
    case 6:
    case 7:
    case 8:
    case 9: add_number(format, 1 + below(30)); break;
    case 10: add_number(format, 30 + below(100)); break;
    default: add(format, "*"); stars |= 1;
  }
  switch (below(10)) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4: break;
    case 5: add(format, "."); break;
    case 6:
    case 7:
      add(format, ".");
      add_number(format, below(25));
      break;
    case 8:
      add(format, ".");
      add_number(format, below(largest_precision + 1));
      break;
    default: add(format, ".*"); stars |= 2;
  }
  return stars;
}

static void add_stars(struct test_case* c, int stars) {
  if (stars & 1) add_argument(c, A_INT)->integer = (long long)below(81) - 40;
  if (stars & 2) add_argument(c, A_INT)->integer = (long long)below(50) - 5;
}

static const char* pick(const char* const* choices, size_t count) {
  return choices[below((unsigned)count)];
}
#define PICK(array) pick(array, sizeof array / sizeof array[0])

/* One random directive between literal text. */
static void random_case(void) {
  static const char* const integer_lengths[] = {"",   "",  "",  "hh", "h", "l",
                                                "ll", "j", "z", "t",  "L", "q"};
  static const char* const signed_conversions[] = {"d", "i"};
  static const char* const unsigned_conversions[] = {"u", "o", "x", "X", "b", "B"};
  static const char* const float_conversions[] = {"f", "F", "e", "E", "g", "G", "a", "A"};
  static const char* const unknown[] = {"y", "k", "v", "D", "O", "U", "w", "&", "hld", "lh"};
  struct test_case c;
  unsigned which = below(100);
  int stars;
  clear(&c);
  add_literal(c.format);
  add(c.format, "%");
  stars = add_flags_width_precision(c.format, which >= 30 && which < 55 ? 200 : 40);
  add_stars(&c, stars);
  if (which < 30) {
    const char* length = PICK(integer_lengths);
    const int is_signed = chance(50);
    struct argument* a;
    add(c.format, length);
    add(c.format, is_signed ? PICK(signed_conversions) : PICK(unsigned_conversions));
    /* Integers of every length travel as a long long (the callee reads the
     * int it wants from it) but for the plain and short ones. */
    a = add_argument(&c, *length == '\0' || *length == 'h' ? A_INT : A_LLONG);
    a->integer = random_integer();
    if (a->kind == A_INT) a->integer = (int)(a->integer & 0xffffffff);
  } else if (which < 55) {
    static const char* const lengths[] = {"", "", "", "", "l", "L", "L", "h", "j"};
    const char* length = PICK(lengths);
    add(c.format, length);
    add(c.format, PICK(float_conversions));
    if (*length == 'L' && LDBL_MANT_DIG == 64) {
      add_argument(&c, A_LDOUBLE)->ld = random_x87();
      tag(&c, "x87");
    } else {
      if (*length == 'L') c.format[strlen(c.format) - 2] = 'l';
      add_argument(&c, A_DOUBLE)->d = random_double();
    }
    if (chance(15)) c.rounding = chance(33) ? FE_UPWARD : chance(50) ? FE_DOWNWARD : FE_TOWARDZERO;
  } else if (which < 70) {
    /* "%hs" only glibc's second parser takes (a string); "%js" its first
     * reads as "%ls" (j sets its long bit). */
    struct argument* a;
    const char* length = chance(80) ? "" : chance(50) ? "h" : "j";
    add(c.format, length);
    add(c.format, "s");
    if (*length == 'j') {
      int i, n = (int)below(12);
      a = add_argument(&c, A_WSTRING);
      for (i = 0; i < n; ++i) a->wide[i] = (wchar_t)(32 + below(95));
    } else {
      a = add_argument(&c, A_STRING);
      if (chance(5))
        a->null = 1;
      else
        random_string(a->string, sizeof a->string);
    }
  } else if (which < 76) {
    add(c.format, "c");
    const long long byte = (long long)below(256);
    add_argument(&c, A_INT)->integer = byte - (chance(10) ? 128 : 0);
  } else if (which < 80) {
    struct argument* a;
    add(c.format, "p");
    a = add_argument(&c, A_POINTER);
    a->integer = chance(10) ? 0 : (long long)random_bits();
  } else if (which < 83) {
    add(c.format, "%");
  } else if (which < 88) {
    /* Wide characters: ASCII, or beyond (the platform's "C" locale). */
    const int beyond = chance(30);
    if (chance(50)) {
      struct argument* a;
      int i, n = (int)below(12);
      add(c.format, chance(50) ? "ls" : "S");
      a = add_argument(&c, A_WSTRING);
      if (chance(5)) a->null = 1;
      for (i = 0; i < n && !a->null; ++i)
        a->wide[i] = (wchar_t)(beyond && chance(30) ? 160 + below(2000) : 32 + below(95));
      if (beyond) tag(&c, "wide");
    } else {
      add(c.format, chance(50) ? "lc" : "C");
      add_argument(&c, A_INT)->integer = beyond ? 160 + below(2000) : 32 + below(95);
      if (beyond) tag(&c, "wide");
    }
  } else if (which < 91) {
    add(c.format, PICK(unknown));
  } else if (which < 94) {
    /* %m: errno's text, or name, or number. */
    add(c.format, chance(50) ? "m" : "#m");
    c.error = chance(70) ? (int)below(134) : (int)below(100000) - 50000;
    tag(&c, "libc");
  } else {
    /* The format ends inside the directive: EINVAL. */
  }
  if (which < 94) add_literal(c.format);
  emit(&c);
}

/* Positional arguments, and glibc's first parser handing over to its
 * second after part of the format. */
static void positional_case(void) {
  static const char* const templates[] = {
      "%1$d %2$s %1$+d|",   "%2$*1$d|%3$.*1$f", "%3$lld-%2$s-%1$c",
      "%1$.3s%1$s%2$10.1e", "%2$#o%1$+d",       "%2$s|%1$08.3f|%2$.1s",
      "%1$-*3$s|%2$*3$x",   "%d %1$d %2$d",     "%2$d %d",
      "%3$d %1$d",          "%hd%y%d",          "%d%5-d%s",
      "%1$d%2$n",           "%1$hf %2$hhd"};
  struct test_case c;
  const unsigned which = below(sizeof templates / sizeof templates[0]);
  clear(&c);
  add_literal(c.format);
  add(c.format, templates[which]);
  add_literal(c.format);
  switch (which) {
    case 0:
      add_argument(&c, A_INT)->integer = (int)(random_integer() & 0xffffffff);
      random_string(add_argument(&c, A_STRING)->string, 40);
      break;
    case 1:
      add_argument(&c, A_INT)->integer = (long long)below(30) - 10;
      add_argument(&c, A_INT)->integer = (int)(random_integer() & 0xffffffff);
      add_argument(&c, A_DOUBLE)->d = random_double();
      break;
    case 2:
      add_argument(&c, A_INT)->integer = 32 + below(95);
      random_string(add_argument(&c, A_STRING)->string, 40);
      add_argument(&c, A_LLONG)->integer = random_integer();
      break;
    case 3:
      random_string(add_argument(&c, A_STRING)->string, 40);
      add_argument(&c, A_DOUBLE)->d = random_double();
      break;
    case 4:
      add_argument(&c, A_INT)->integer = (int)(random_integer() & 0xffffffff);
      add_argument(&c, A_INT)->integer = (int)(random_integer() & 0xffffffff);
      break;
    case 5:
      add_argument(&c, A_DOUBLE)->d = random_double();
      random_string(add_argument(&c, A_STRING)->string, 40);
      break;
    case 6:
      random_string(add_argument(&c, A_STRING)->string, 40);
      add_argument(&c, A_INT)->integer = (int)(random_integer() & 0xffffffff);
      add_argument(&c, A_INT)->integer = (long long)below(30) - 10;
      break;
    case 7:
    case 8:
    case 9:
    case 10: {
      int i;
      for (i = 0; i < 3; ++i) add_argument(&c, A_INT)->integer = (int)(random_integer() & 0xffff);
      break;
    }
    case 11: /* "%d", "%5-" (unknown: no argument) and "d", "%s" */
      add_argument(&c, A_INT)->integer = (int)(random_integer() & 0xffff);
      strcpy(add_argument(&c, A_STRING)->string, "str");
      break;
    case 12:
      add_argument(&c, A_INT)->integer = (int)(random_integer() & 0xffffffff);
      strcpy(add_argument(&c, A_COUNT)->count_kind, "i");
      break;
    default:
      add_argument(&c, A_DOUBLE)->d = random_double();
      add_argument(&c, A_INT)->integer = (int)(random_integer() & 0xffffffff);
      break;
  }
  emit(&c);
}

/* %n of every length. */
static void count_case(void) {
  static const char* const lengths[] = {"hh", "h", "", "l", "ll", "j", "z", "t"};
  struct test_case c;
  int i;
  clear(&c);
  for (i = 0; i < 3; ++i) {
    const char* length = PICK(lengths);
    struct argument* a;
    add_literal(c.format);
    if (chance(40)) {
      add(c.format, "%s");
      random_string(add_argument(&c, A_STRING)->string, 60);
      if (c.count == 4) break;
    }
    add(c.format, "%");
    add(c.format, length);
    add(c.format, "n");
    a = add_argument(&c, A_COUNT);
    strcpy(a->count_kind, *length == '\0' ? "i" : length);
    if (c.count == 4) break;
  }
  emit(&c);
}

/* What may follow a '%', glibc's or not, typed by glibc's own
 * parse_printf_format(): integers as a long long where a length could
 * make it one, else an int; strings; doubles. */
static void soup_case(void) {
  static const char* const pieces[] = {
      "-",  "+",  " ",  "#", "0", "'",  "I",    "1",  "2",  "9",   "10", "*",  "*1$", "*2$",
      "1$", "2$", "0$", "$", ".", ".*", ".*1$", ".0", ".1", ".12", "h",  "hh", "l",   "ll",
      "L",  "q",  "j",  "z", "Z", "t",  "%",    "d",  "i",  "u",   "x",  "X",  "b",   "c",
      "s",  "S",  "p",  "m", "e", "f",  "g",    "a",  "y",  "!",   "{",  "\t"};
  static const char* const conversions[] = {"d", "i", "u", "x", "s", "c", "%", "f",
                                            "e", "g", "a", "b", "y", "q", "l"};
  struct test_case c;
  int types[16], prefix_types[16], count, k;
  size_t i;
  for (;;) {
    unsigned directives = 1 + below(2), d, n;
    int ok = 1;
    clear(&c);
    for (d = 0; d < directives; ++d) {
      add_literal(c.format);
      add(c.format, "%");
      n = below(5);
      for (i = 0; i < n; ++i) add(c.format, PICK(pieces));
      if (chance(85)) add(c.format, PICK(conversions));
    }
    add_literal(c.format);
    /* No run of digits past 3 (pieces side by side): a width of a billion
     * takes glibc seconds, and the corpus has its limits elsewhere. */
    for (i = 0, n = 0; c.format[i] != '\0' && ok; ++i) {
      n = c.format[i] >= '0' && c.format[i] <= '9' ? n + 1 : 0;
      if (n > 3) ok = 0;
    }
    /* No '*' beside a string: the width would be the string's pointer
     * (the test below would catch it, after glibc wrote a billion
     * spaces). */
    if (strchr(c.format, '*') != NULL && strpbrk(c.format, "sS") != NULL) ok = 0;
    if (!ok) continue;
    memset(types, 0, sizeof types);
    count = (int)parse_printf_format(c.format, 16, types);
    if (count > 4) continue;
    /* No argument read one way and taken another. */
    for (i = 0; c.format[i] != '\0' && ok; ++i) {
      char prefix[512];
      int m;
      if (c.format[i] != '%') continue;
      memcpy(prefix, c.format, i);
      prefix[i] = '\0';
      memset(prefix_types, 0, sizeof prefix_types);
      m = (int)parse_printf_format(prefix, 16, prefix_types);
      for (k = 0; k < m && k < count; ++k)
        if (prefix_types[k] != types[k]) ok = 0;
    }
    for (k = 0; k < count && ok; ++k) {
      const int type = types[k];
      struct argument* a;
      if (type == PA_STRING) {
        a = add_argument(&c, A_STRING);
        strcpy(a->string, "cell");
      } else if (type == PA_DOUBLE) {
        /* Small in its low 32 bits: a directive may take its width or
         * precision from the argument it prints (glibc keeps positional
         * arguments in a union, and reads that int from the double). */
        double value = random_double();
        uint64_t bits;
        memcpy(&bits, &value, sizeof bits);
        bits = (bits & ~(uint64_t)0xffffffffu) | below(40);
        memcpy(&add_argument(&c, A_DOUBLE)->d, &bits, sizeof bits);
      } else if ((type & ~(PA_FLAG_SHORT | PA_FLAG_LONG | PA_FLAG_LONG_LONG)) == PA_INT ||
                 type == PA_CHAR || type == PA_WCHAR) {
        /* Small: it may be a width. A long long where a length could make
         * the first parser read one. A wide character stays ASCII. */
        a = add_argument(&c, strpbrk(c.format, "lLqjztZ") != NULL ? A_LLONG : A_INT);
        a->integer = type == PA_WCHAR ? 32 + below(95) : (long long)below(60) - 20;
      } else {
        ok = 0; /* pointers, long doubles, %n: left to the other cases */
      }
    }
    if (ok) {
      /* A directive may read its width from the string it prints (glibc
       * keeps positional arguments in a union): the text would be the
       * pointer's. The same case from another address must print the same,
       * and not much. */
      static struct test_case moved;
      static char first[sizeof text];
      int first_result, moved_result;
      first_result = call(&c);
      memcpy(first, text, sizeof first);
      moved = c;
      moved_result = call(&moved);
      ok = first_result == moved_result && first_result < 4096 &&
           (first_result < 0 || memcmp(first, text, (size_t)first_result) == 0);
    }
    if (ok) break;
  }
  if (strchr(c.format, 'm') != NULL) tag(&c, "libc"); /* perhaps a %m */
  emit(&c);
}

/* The limits: numbers in directives past INT_MAX, and widths and
 * precisions from arguments at them. */
static void limit_cases(void) {
  static const char* const formats[] = {"%2147483648d",
                                        "%.2147483648d",
                                        "%1$2147483648d",
                                        "%1$.2147483648d",
                                        "%99999999999$d",
                                        "%*99999999999$d",
                                        "%.*99999999999$d",
                                        "%d%",
                                        "%-",
                                        "%1$d%",
                                        "%y%"};
  struct test_case c;
  size_t i;
  for (i = 0; i < sizeof formats / sizeof formats[0]; ++i) {
    clear(&c);
    strcpy(c.format, formats[i]);
    add_argument(&c, A_INT)->integer = 7;
    emit(&c);
  }
  clear(&c);
  strcpy(c.format, "%.*s|%.*d");
  add_argument(&c, A_INT)->integer = INT_MAX;
  strcpy(add_argument(&c, A_STRING)->string, "whole");
  add_argument(&c, A_INT)->integer = -1;
  add_argument(&c, A_INT)->integer = 5;
  emit(&c);
}

int main(void) {
  int i;
  printf(
      "# fastout's printf corpus: glibc %s's snprintf, made by test/printf_corpus_generator.c"
      "\n# (see it for the fields); printf_corpus_test.cpp checks fastout_printf against it\n",
      gnu_get_libc_version());
  limit_cases();
  for (i = 0; i < 9000; ++i) random_case();
  for (i = 0; i < 1500; ++i) positional_case();
  for (i = 0; i < 600; ++i) count_case();
  for (i = 0; i < 2500; ++i) soup_case();
  fprintf(stderr, "%lu cases\n", cases_written);
  return 0;
}
