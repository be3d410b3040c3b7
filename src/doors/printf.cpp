// SPDX-License-Identifier: MIT
// fastout's printf engine (printf_internal.h): glibc's printf, byte for
// byte, straight into a writer's buffer.
//
// glibc's vsnprintf into the free space would be exact by construction, but
// its formatting is what makes fprintf slow. So the common directives are
// laid out here, by printf's rules, around digits that {fmt} makes through
// its public API (fmt::format_to with a compiled format into a char*):
// integers of every length in %d %i %u %o %x %X, %f %F %e %E %g %G of a
// double in the "C" locale and the default rounding mode, %s, %c, plain %p,
// %n and %%. {fmt} and glibc both print the exact decimal value of a double
// correctly rounded, so their digits agree; where they do not -- %a (glibc
// rounds ties to even, {fmt} 10-12 half up), '#' with %g ({fmt} 9) -- glibc
// formats. Everything else goes to glibc too:
//
// - per directive, with snprintf and the directive's own text and argument
//   (taken with its exact type): %a, %Lf, %ls, %lc, %C, %S, %m, the ' and I
//   flags, a null %s, %p with flags, floating point in another locale or
//   rounding mode, precisions over 128;
// - for the whole call, with vsnprintf (or vfprintf into a stream that feeds
//   the writer, for a text larger than the buffer): positional arguments
//   (%1$d), a conversion, length or flag this parser does not know (say %b,
//   or glibc's own registered ones), a format glibc refuses, widths over a
//   million. Part of the text may have gone to the file already when that is
//   found; glibc's first bytes are then the same, and are skipped.
//
// test/printf_diff_test.c holds the engine to glibc's snprintf over a large
// randomized set of formats and arguments, through every buffer size from 1
// to 64.

// glibc's fortified snprintf refuses %n in a writable format and aborts the
// process; the C API must never abort, and %n is printf's.
#undef _FORTIFY_SOURCE

#include "doors/printf_internal.h"
#include "platform/platform_internal.h"

#include <algorithm>
#include <cerrno>
#include <cfenv>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cwchar>
#include <exception>
#include <type_traits>


#include <fmt/compile.h>
#include <fmt/format.h>

#include <fastout/file.h>

namespace fastout {
namespace detail {
namespace {

// wint_t as it travels through `...`: itself where it is as wide as int
// (glibc), int where it is narrower (Windows' 16-bit wint_t is promoted).
using promoted_wint = decltype(+std::wint_t{});

enum : unsigned {
  flag_minus = 1,
  flag_plus = 2,
  flag_space = 4,
  flag_hash = 8,
  flag_zero = 16,
  flag_quote = 32,         // ': the locale's digit grouping
  flag_locale_digits = 64  // I: the locale's digits
};

enum class length_modifier : unsigned char { none, hh, h, l, ll, L, j, z, t };

// Widths, and precisions of numbers, larger than this are left to glibc
// with the whole call: it has its own limits near INT_MAX.
constexpr int largest_padding = 1 << 20;
// Floating point with a larger precision goes to glibc, so that the longest
// {fmt} text fits a small area: "%.128f" of 1e308 is 438 bytes, and with
// its sign 439.
constexpr int largest_float_precision = 128;
constexpr std::size_t float_area_size = 512;
// A directive's text, for snprintf: "%-+ #0'I*.*lld" is 14 bytes.
constexpr std::size_t largest_directive = 63;

struct directive {
  const char* begin;  // its '%'
  const char* end;    // after its conversion
  unsigned flags = 0;
  int width = 0;
  int precision = -1;  // none
  int stars = 0;  // 1: the width is an argument; 2: the precision; 3: both
  int star_width;  // those arguments as given, when `stars` says so
  int star_precision;
  length_modifier length = length_modifier::none;
  char conversion = 0;
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Reads a decimal number as glibc does; false if it exceeds INT_MAX.
bool parse_number(const char*& p, int& value) {
  long long n = 0;
  while (is_digit(*p)) {
    n = n * 10 + (*p++ - '0');
    if (n > INT_MAX) return false;
  }
  value = static_cast<int>(n);
  return true;
}

// |value| as %f %F %e %E %g %G with `precision` and, except for %g, '#'.
char* format_magnitude(char* out, double magnitude, char conversion, int precision,
                       bool alternate) {
  switch (conversion) {
    case 'f':
      return alternate ? fmt::format_to(out, FMT_COMPILE("{:#.{}f}"), magnitude, precision)
                       : fmt::format_to(out, FMT_COMPILE("{:.{}f}"), magnitude, precision);
    case 'F':
      return alternate ? fmt::format_to(out, FMT_COMPILE("{:#.{}F}"), magnitude, precision)
                       : fmt::format_to(out, FMT_COMPILE("{:.{}F}"), magnitude, precision);
    case 'e':
      return alternate ? fmt::format_to(out, FMT_COMPILE("{:#.{}e}"), magnitude, precision)
                       : fmt::format_to(out, FMT_COMPILE("{:.{}e}"), magnitude, precision);
    case 'E':
      return alternate ? fmt::format_to(out, FMT_COMPILE("{:#.{}E}"), magnitude, precision)
                       : fmt::format_to(out, FMT_COMPILE("{:.{}E}"), magnitude, precision);
    case 'g': return fmt::format_to(out, FMT_COMPILE("{:.{}g}"), magnitude, precision);
    default: return fmt::format_to(out, FMT_COMPILE("{:.{}G}"), magnitude, precision);
  }
}

// The digits of an unsigned value in a conversion's base.
char* format_digits(char* out, unsigned long long value, char conversion) {
  switch (conversion) {
    case 'o': return fmt::format_to(out, FMT_COMPILE("{:o}"), value);
    case 'x': return fmt::format_to(out, FMT_COMPILE("{:x}"), value);
    case 'X': return fmt::format_to(out, FMT_COMPILE("{:X}"), value);
    default: return fmt::format_to(out, FMT_COMPILE("{}"), value);
  }
}

#if defined(__GNUC__) || defined(__clang__)
#  pragma GCC diagnostic push
// The formats passed to glibc are the caller's directives, by design.
#  pragma GCC diagnostic ignored "-Wformat-nonliteral"
#  pragma GCC diagnostic ignored "-Wformat-security"
#endif

// One call to fastout_printf: its text on its way into the writer.
//
// The text is a piece the writer began (file::begin_piece()), written at
// `pos`, a local of run() and an argument and result of the helpers, so
// that the compiler keeps it in a register across char stores. While the
// call's text fits in the buffer the piece stays whole; once it proves
// larger, it streams to the file (file::grow_piece()). A writer with no
// buffer has the piece in stack_area_, which it streams through: the C API
// never allocates.
class printf_call {
 public:
  printf_call(file& writer, const char* format, std::va_list args)
      : writer_(writer), format_(format), saved_errno_(errno) {
    va_copy(args_, args);
    va_copy(original_, args);
    piece_ = writer_of(writer_).begin_piece(stack_area_, sizeof stack_area_);
    if (piece_.place == piece_place::spare) piece_.place = piece_place::side_streaming;
    capacity_ = writer_.buffer_capacity();
  }
  ~printf_call() {
    va_end(args_);
    va_end(original_);
  }
  printf_call(const printf_call&) = delete;
  printf_call& operator=(const printf_call&) = delete;

  int run();

 private:
  // status_ besides 0 (all well) and a positive errno (the call fails).
  static constexpr int glibc_takes_the_call = -1;

  std::size_t count(char* pos) const {
    return piece_.sent + static_cast<std::size_t>(pos - piece_.text);
  }
  std::size_t room(char* pos) const { return static_cast<std::size_t>(piece_.end - pos); }
  // While the call's text is in the buffer, kept whole.
  bool whole_in_buffer() const { return piece_.place == piece_place::buffer; }

  bool parse(const char*& p, directive& d);
  bool parse_flags_width_precision(const char*& p, directive& d);
  char* signed_argument(char* pos, const directive& d);
  char* unsigned_argument(char* pos, const directive& d);
  char* float_argument(char* pos, const directive& d);
  char* string_argument(char* pos, const directive& d);
  char* char_argument(char* pos, const directive& d);
  char* pointer_argument(char* pos, const directive& d);
  void store_count(char* pos, const directive& d);
  char* put_number(char* pos, const directive& d, char sign, const char* prefix,
                   std::size_t prefix_size, const char* digits, std::size_t digit_count,
                   bool force_leading_zero);
  char* put_padded(char* pos, const directive& d, char sign, std::size_t zeros, const char* body,
                   std::size_t body_size);
  bool floats_are_plain();

  char* glibc_argument(char* pos, const directive& d);
  template <typename T>
  char* glibc_value(char* pos, const directive& d, T value);
  template <typename... A>
  char* glibc_directive(char* pos, const directive& d, A... args);
  int glibc_whole_call();
  int glibc_whole_call_streaming();
  static ssize_t stream_write(void* cookie, const char* data, std::size_t size);

  FASTOUT_ALWAYS_INLINE char* append(char* pos, const char* data, std::size_t size) {
    if (FASTOUT_LIKELY(size <= room(pos))) {
      std::memcpy(pos, data, size);
      return pos + size;
    }
    return append_slow(pos, data, size);
  }
  FASTOUT_NOINLINE char* append_slow(char* pos, const char* data, std::size_t size);
  FASTOUT_NOINLINE char* fill(char* pos, char c, std::size_t size);
  FASTOUT_NOINLINE char* make_space(char* pos, std::size_t size) {
    return writer_of(writer_).grow_piece(piece_, pos, size);
  }
  int finish(char* pos);
  int fail(char* pos, int error_number);

  file& writer_;
  const char* const format_;
  std::va_list args_;      // the arguments, as the directives take them
  std::va_list original_;  // all of them again, for glibc
  const int saved_errno_;  // for %m, and for glibc's view of errno
  int status_ = 0;
  int float_state_ = -1;  // floats_are_plain(), once asked
  piece piece_;
  std::size_t capacity_;
  // For glibc_whole_call_streaming().
  std::size_t skip_ = 0;
  char* stream_pos_ = nullptr;
  std::exception_ptr stream_error_;
  char scratch_[1024];     // a directive's text from glibc, when it does not fit
  char stack_area_[4096];  // the area of a writer with no buffer
};

int printf_call::run() {
  const char* p = format_;
  char* pos = piece_.text;
  for (;;) {
    // Literal text: copied while there is room.
    char* end = piece_.end;
    char c;
    while ((c = *p) != '%' && c != '\0' && pos != end) {
      *pos++ = c;
      ++p;
    }
    if (c == '\0') return finish(pos);
    if (c != '%') {  // the area is full
      const char* literal_end = p;
      while (*literal_end != '%' && *literal_end != '\0') ++literal_end;
      pos = append_slow(pos, p, static_cast<std::size_t>(literal_end - p));
      p = literal_end;
      continue;
    }
    directive d;
    d.begin = p++;
    if (!parse(p, d)) return glibc_whole_call();
    switch (d.conversion) {
      case 'd':
      case 'i': pos = signed_argument(pos, d); break;
      case 'u':
      case 'o':
      case 'x':
      case 'X': pos = unsigned_argument(pos, d); break;
      case 'f':
      case 'F':
      case 'e':
      case 'E':
      case 'g':
      case 'G':
      case 'a':
      case 'A':
        if (d.length != length_modifier::none && d.length != length_modifier::l &&
            d.length != length_modifier::ll && d.length != length_modifier::L)
          return glibc_whole_call();
        pos = float_argument(pos, d);
        break;
      case 's':
        if (d.length != length_modifier::none && d.length != length_modifier::l)
          return glibc_whole_call();
        pos = string_argument(pos, d);
        break;
      case 'c':
        if (d.length != length_modifier::none && d.length != length_modifier::l)
          return glibc_whole_call();
        pos = char_argument(pos, d);
        break;
      case 'p':
        if (d.length != length_modifier::none) return glibc_whole_call();
        pos = pointer_argument(pos, d);
        break;
      case 'n':
        if (d.length == length_modifier::L) return glibc_whole_call();
        store_count(pos, d);
        break;
      case 'C':
      case 'S':
      case 'm':
        if (d.length != length_modifier::none) return glibc_whole_call();
        pos = glibc_argument(pos, d);
        break;
      case '%':
        if (d.end - d.begin != 2) return glibc_whole_call();  // "%5%": glibc's business
        pos = append(pos, "%", 1);
        break;
      default: return glibc_whole_call();
    }
    if (FASTOUT_UNLIKELY(status_ != 0)) {
      if (status_ == glibc_takes_the_call) return glibc_whole_call();
      return fail(pos, status_);
    }
  }
}

// Parses the directive whose '%' is at d.begin, from `p` just after it.
// False if glibc must format the whole call.
bool printf_call::parse(const char*& p, directive& d) {
  // Flags, a width and a precision all start below 'a': "%d", "%lld" and
  // "%s" go straight to their length and conversion.
  if (*p < 'a' && !parse_flags_width_precision(p, d)) return false;
  switch (*p) {
    case 'h':
      if (p[1] == 'h') {
        d.length = length_modifier::hh;
        ++p;
      } else {
        d.length = length_modifier::h;
      }
      ++p;
      break;
    case 'l':
      if (p[1] == 'l') {
        d.length = length_modifier::ll;
        ++p;
      } else {
        d.length = length_modifier::l;
      }
      ++p;
      break;
    case 'L':
    case 'q':
      d.length = length_modifier::L;
      ++p;
      break;
    case 'j':
      d.length = length_modifier::j;
      ++p;
      break;
    case 'z':
    case 'Z':
      d.length = length_modifier::z;
      ++p;
      break;
    case 't':
      d.length = length_modifier::t;
      ++p;
      break;
    default: break;
  }
  d.conversion = *p;
  if (d.conversion == '\0') return false;
  d.end = ++p;
  // A huge precision of a number: glibc's limits, as for widths. A string's
  // is only a maximum.
  if (d.precision > largest_padding && d.conversion != 's' && d.conversion != 'S') return false;
  return static_cast<std::size_t>(d.end - d.begin) <= largest_directive;
}

bool printf_call::parse_flags_width_precision(const char*& p, directive& d) {
  // "%1$d": positional arguments, which glibc takes by position for the
  // whole format.
  if (is_digit(*p) && *p != '0') {
    const char* q = p;
    while (is_digit(*q)) ++q;
    if (*q == '$') return false;
  }
  for (;; ++p) {
    switch (*p) {
      case '-': d.flags |= flag_minus; continue;
      case '+': d.flags |= flag_plus; continue;
      case ' ': d.flags |= flag_space; continue;
      case '#': d.flags |= flag_hash; continue;
      case '0': d.flags |= flag_zero; continue;
      case '\'': d.flags |= flag_quote; continue;
      case 'I': d.flags |= flag_locale_digits; continue;
      default: break;
    }
    break;
  }
  if (*p == '*') {
    if (is_digit(*++p)) return false;  // "*2$": positional
    int width = va_arg(args_, int);
    d.stars |= 1;
    d.star_width = width;
    if (width < -largest_padding || width > largest_padding) return false;
    if (width < 0) {
      d.flags |= flag_minus;
      width = -width;
    }
    d.width = width;
  } else if (is_digit(*p)) {
    if (!parse_number(p, d.width) || d.width > largest_padding) return false;
  }
  if (*p == '.') {
    if (*++p == '*') {
      if (is_digit(*++p)) return false;
      int precision = va_arg(args_, int);
      d.stars |= 2;
      d.star_precision = precision;
      d.precision = precision < 0 ? -1 : precision;
    } else {
      d.precision = 0;
      if (!parse_number(p, d.precision)) return false;
    }
  }
  return true;
}

// ------------------------------------------------------------- integers

char* printf_call::signed_argument(char* pos, const directive& d) {
  if (d.flags & (flag_quote | flag_locale_digits)) return glibc_argument(pos, d);
  long long value;
  switch (d.length) {
    case length_modifier::hh: value = static_cast<signed char>(va_arg(args_, int)); break;
    case length_modifier::h: value = static_cast<short>(va_arg(args_, int)); break;
    case length_modifier::l: value = va_arg(args_, long); break;
    case length_modifier::ll:
    case length_modifier::L: value = va_arg(args_, long long); break;
    case length_modifier::j: value = va_arg(args_, std::intmax_t); break;
    case length_modifier::z: value = va_arg(args_, ssize_t); break;
    case length_modifier::t: value = va_arg(args_, std::ptrdiff_t); break;
    default: value = va_arg(args_, int); break;
  }
  if (FASTOUT_LIKELY(d.flags == 0 && d.width == 0 && d.precision < 0)) {
    constexpr std::size_t longest = 20;  // "-9223372036854775808"
    if (FASTOUT_LIKELY(room(pos) >= longest)) return fmt::format_to(pos, FMT_COMPILE("{}"), value);
    char text[longest];
    char* text_end = fmt::format_to(text, FMT_COMPILE("{}"), value);
    return append(pos, text, static_cast<std::size_t>(text_end - text));
  }
  unsigned long long magnitude =
      value < 0 ? 0 - static_cast<unsigned long long>(value) : static_cast<unsigned long long>(value);
  char sign = value < 0                ? '-'
              : (d.flags & flag_plus)  ? '+'
              : (d.flags & flag_space) ? ' '
                                       : '\0';
  char digits[24];
  std::size_t digit_count = 0;
  if (magnitude != 0 || d.precision != 0)  // "%.0d" of 0 has no digits
    digit_count = static_cast<std::size_t>(format_digits(digits, magnitude, 'd') - digits);
  return put_number(pos, d, sign, "", 0, digits, digit_count, false);
}

char* printf_call::unsigned_argument(char* pos, const directive& d) {
  if (d.flags & (flag_quote | flag_locale_digits)) return glibc_argument(pos, d);
  unsigned long long value;
  switch (d.length) {
    case length_modifier::hh: value = static_cast<unsigned char>(va_arg(args_, unsigned)); break;
    case length_modifier::h: value = static_cast<unsigned short>(va_arg(args_, unsigned)); break;
    case length_modifier::l: value = va_arg(args_, unsigned long); break;
    case length_modifier::ll:
    case length_modifier::L: value = va_arg(args_, unsigned long long); break;
    case length_modifier::j: value = va_arg(args_, std::uintmax_t); break;
    case length_modifier::z: value = va_arg(args_, std::size_t); break;
    case length_modifier::t:
      value = va_arg(args_, std::make_unsigned_t<std::ptrdiff_t>);
      break;
    default: value = va_arg(args_, unsigned); break;
  }
  char digits[24];
  if (FASTOUT_LIKELY(d.flags == 0 && d.width == 0 && d.precision < 0)) {
    if (FASTOUT_LIKELY(room(pos) >= sizeof digits)) return format_digits(pos, value, d.conversion);
    char* digits_end = format_digits(digits, value, d.conversion);
    return append(pos, digits, static_cast<std::size_t>(digits_end - digits));
  }
  std::size_t digit_count = 0;
  if (value != 0 || d.precision != 0)
    digit_count = static_cast<std::size_t>(format_digits(digits, value, d.conversion) - digits);
  // '#': "0x" before a nonzero hexadecimal value; a leading 0 in octal.
  const bool hash = (d.flags & flag_hash) != 0;
  const char* prefix = "";  // never null: memcpy of 0 bytes from null is undefined
  if (hash && value != 0 && d.conversion == 'x') prefix = "0x";
  if (hash && value != 0 && d.conversion == 'X') prefix = "0X";
  return put_number(pos, d, '\0', prefix, std::strlen(prefix), digits, digit_count,
                    hash && d.conversion == 'o');
}

// Lays out an integer as printf does: [spaces][sign][prefix][zeros]digits
// [spaces]. The zeros come from the precision, or from the width with the
// '0' flag (ignored with a precision or '-').
char* printf_call::put_number(char* pos, const directive& d, char sign, const char* prefix,
                              std::size_t prefix_size, const char* digits,
                              std::size_t digit_count, bool force_leading_zero) {
  const std::size_t width = static_cast<std::size_t>(d.width);
  const std::size_t sign_size = sign != '\0' ? 1 : 0;
  std::size_t zeros = 0;
  if (d.precision >= 0) {
    const auto precision = static_cast<std::size_t>(d.precision);
    if (precision > digit_count) zeros = precision - digit_count;
  } else if ((d.flags & (flag_zero | flag_minus)) == flag_zero) {
    const std::size_t used = sign_size + prefix_size + digit_count;
    if (width > used) zeros = width - used;
  }
  if (force_leading_zero && zeros == 0 && (digit_count == 0 || digits[0] != '0')) zeros = 1;
  const std::size_t size = sign_size + prefix_size + zeros + digit_count;
  const std::size_t padding = width > size ? width - size : 0;
  const bool left = (d.flags & flag_minus) != 0;
  if (FASTOUT_LIKELY(size + padding <= room(pos))) {
    if (!left) {
      std::memset(pos, ' ', padding);
      pos += padding;
    }
    if (sign_size != 0) *pos++ = sign;
    std::memcpy(pos, prefix, prefix_size);
    pos += prefix_size;
    std::memset(pos, '0', zeros);
    pos += zeros;
    std::memcpy(pos, digits, digit_count);
    pos += digit_count;
    if (left) {
      std::memset(pos, ' ', padding);
      pos += padding;
    }
    return pos;
  }
  // Piece by piece, through make_space(): keeps the call whole if it fits.
  if (!left) pos = fill(pos, ' ', padding);
  if (sign_size != 0) pos = append(pos, &sign, 1);
  pos = append(pos, prefix, prefix_size);
  pos = fill(pos, '0', zeros);
  pos = append(pos, digits, digit_count);
  if (left) pos = fill(pos, ' ', padding);
  return pos;
}

// [spaces][sign][zeros]body[spaces], for everything but integers.
char* printf_call::put_padded(char* pos, const directive& d, char sign, std::size_t zeros,
                              const char* body, std::size_t body_size) {
  const std::size_t width = static_cast<std::size_t>(d.width);
  const std::size_t size = (sign != '\0' ? 1 : 0) + zeros + body_size;
  const std::size_t padding = width > size ? width - size : 0;
  const bool left = (d.flags & flag_minus) != 0;
  if (!left) pos = fill(pos, ' ', padding);
  if (sign != '\0') pos = append(pos, &sign, 1);
  pos = fill(pos, '0', zeros);
  pos = append(pos, body, body_size);
  if (left) pos = fill(pos, ' ', padding);
  return pos;
}

// -------------------------------------------------------- floating point

// {fmt} writes '.' and rounds to nearest; glibc follows the locale's
// decimal point and the rounding mode.
bool printf_call::floats_are_plain() {
  if (float_state_ < 0) {
    const char* point = detail::decimal_point();
    float_state_ = point != nullptr && point[0] == '.' && point[1] == '\0' &&
                   std::fegetround() == FE_TONEAREST;
  }
  return float_state_ != 0;
}

char* printf_call::float_argument(char* pos, const directive& d) {
  const char conversion = d.conversion;
  if (d.length == length_modifier::L || d.length == length_modifier::ll ||
      conversion == 'a' || conversion == 'A' ||
      ((d.flags & flag_hash) && (conversion == 'g' || conversion == 'G')) ||
      (d.flags & (flag_quote | flag_locale_digits)) || d.precision > largest_float_precision ||
      !floats_are_plain())
    return glibc_argument(pos, d);
  const double value = va_arg(args_, double);
  const char sign = std::signbit(value)        ? '-'
                    : (d.flags & flag_plus)    ? '+'
                    : (d.flags & flag_space)   ? ' '
                                               : '\0';
  const int precision = d.precision < 0 ? 6 : d.precision;
  const bool alternate = (d.flags & flag_hash) != 0;
  if (FASTOUT_LIKELY(d.width == 0 && room(pos) >= float_area_size)) {
    // No padding: straight into the buffer.
    if (sign != '\0') *pos++ = sign;
    return format_magnitude(pos, std::fabs(value), conversion, precision, alternate);
  }
  char text[float_area_size];
  char* text_end = format_magnitude(text, std::fabs(value), conversion, precision, alternate);
  const auto size = static_cast<std::size_t>(text_end - text);
  const std::size_t sign_size = sign != '\0' ? 1 : 0;
  if (FASTOUT_LIKELY(static_cast<std::size_t>(d.width) <= size + sign_size)) {
    if (FASTOUT_LIKELY(size + sign_size <= room(pos))) {
      if (sign_size != 0) *pos++ = sign;
      std::memcpy(pos, text, size);
      return pos + size;
    }
    if (sign_size != 0) pos = append(pos, &sign, 1);
    return append(pos, text, size);
  }
  std::size_t zeros = 0;
  if ((d.flags & (flag_zero | flag_minus)) == flag_zero && std::isfinite(value))
    zeros = static_cast<std::size_t>(d.width) - size - sign_size;
  return put_padded(pos, d, sign, zeros, text, size);
}

// ------------------------------------------------- strings, chars, %p, %n

char* printf_call::string_argument(char* pos, const directive& d) {
  if (d.length == length_modifier::l) return glibc_argument(pos, d);
  const char* s = va_arg(args_, const char*);
  if (s == nullptr) return glibc_value(pos, d, s);  // "(null)", or nothing, by precision
  const std::size_t size =
      d.precision >= 0 ? ::strnlen(s, static_cast<std::size_t>(d.precision)) : std::strlen(s);
  if (static_cast<std::size_t>(d.width) <= size) return append(pos, s, size);
  return put_padded(pos, d, '\0', 0, s, size);
}

char* printf_call::char_argument(char* pos, const directive& d) {
  if (d.length == length_modifier::l) return glibc_argument(pos, d);
  const char c = static_cast<char>(static_cast<unsigned char>(va_arg(args_, int)));
  if (d.width <= 1) return append(pos, &c, 1);
  return put_padded(pos, d, '\0', 0, &c, 1);
}

char* printf_call::pointer_argument(char* pos, const directive& d) {
  if (d.flags != 0 || d.width != 0 || d.precision >= 0) return glibc_argument(pos, d);
  const void* pointer = va_arg(args_, void*);
  if (pointer == nullptr) return append(pos, "(nil)", 5);
  char text[2 + 16] = {'0', 'x'};
  char* text_end = format_digits(text + 2, reinterpret_cast<std::uintptr_t>(pointer), 'x');
  return append(pos, text, static_cast<std::size_t>(text_end - text));
}

void printf_call::store_count(char* pos, const directive& d) {
  const std::size_t n = count(pos);
  switch (d.length) {
    case length_modifier::hh: *va_arg(args_, signed char*) = static_cast<signed char>(n); break;
    case length_modifier::h: *va_arg(args_, short*) = static_cast<short>(n); break;
    case length_modifier::l: *va_arg(args_, long*) = static_cast<long>(n); break;
    case length_modifier::ll: *va_arg(args_, long long*) = static_cast<long long>(n); break;
    case length_modifier::j: *va_arg(args_, std::intmax_t*) = static_cast<std::intmax_t>(n); break;
    case length_modifier::z: *va_arg(args_, ssize_t*) = static_cast<ssize_t>(n); break;
    case length_modifier::t:
      *va_arg(args_, std::ptrdiff_t*) = static_cast<std::ptrdiff_t>(n);
      break;
    default: *va_arg(args_, int*) = static_cast<int>(n); break;
  }
}

// --------------------------------------------------------------- glibc

// Takes the directive's argument with the type glibc takes it with, and
// lets glibc format the directive.
char* printf_call::glibc_argument(char* pos, const directive& d) {
  const bool is_long = d.length == length_modifier::l;
  switch (d.conversion) {
    case 'd':
    case 'i':
      switch (d.length) {
        case length_modifier::l: return glibc_value(pos, d, va_arg(args_, long));
        case length_modifier::ll:
        case length_modifier::L: return glibc_value(pos, d, va_arg(args_, long long));
        case length_modifier::j: return glibc_value(pos, d, va_arg(args_, std::intmax_t));
        case length_modifier::z: return glibc_value(pos, d, va_arg(args_, ssize_t));
        case length_modifier::t: return glibc_value(pos, d, va_arg(args_, std::ptrdiff_t));
        default: return glibc_value(pos, d, va_arg(args_, int));
      }
    case 'u':
    case 'o':
    case 'x':
    case 'X':
      switch (d.length) {
        case length_modifier::l: return glibc_value(pos, d, va_arg(args_, unsigned long));
        case length_modifier::ll:
        case length_modifier::L: return glibc_value(pos, d, va_arg(args_, unsigned long long));
        case length_modifier::j: return glibc_value(pos, d, va_arg(args_, std::uintmax_t));
        case length_modifier::z: return glibc_value(pos, d, va_arg(args_, std::size_t));
        case length_modifier::t:
          return glibc_value(pos, d, va_arg(args_, std::make_unsigned_t<std::ptrdiff_t>));
        default: return glibc_value(pos, d, va_arg(args_, unsigned));
      }
    case 'c': return is_long ? glibc_value(pos, d, va_arg(args_, promoted_wint))
                             : glibc_value(pos, d, va_arg(args_, int));
    case 'C': return glibc_value(pos, d, va_arg(args_, promoted_wint));
    case 's': return is_long ? glibc_value(pos, d, va_arg(args_, const wchar_t*))
                             : glibc_value(pos, d, va_arg(args_, const char*));
    case 'S': return glibc_value(pos, d, va_arg(args_, const wchar_t*));
    case 'p': return glibc_value(pos, d, va_arg(args_, void*));
    case 'm':  // no argument: strerror(errno)
      switch (d.stars) {
        case 1: return glibc_directive(pos, d, d.star_width);
        case 2: return glibc_directive(pos, d, d.star_precision);
        case 3: return glibc_directive(pos, d, d.star_width, d.star_precision);
        default: return glibc_directive(pos, d);
      }
    default:  // floating point
      if (d.length == length_modifier::L || d.length == length_modifier::ll)
        return glibc_value(pos, d, va_arg(args_, long double));
      return glibc_value(pos, d, va_arg(args_, double));
  }
}

template <typename T>
char* printf_call::glibc_value(char* pos, const directive& d, T value) {
  switch (d.stars) {
    case 1: return glibc_directive(pos, d, d.star_width, value);
    case 2: return glibc_directive(pos, d, d.star_precision, value);
    case 3: return glibc_directive(pos, d, d.star_width, d.star_precision, value);
    default: return glibc_directive(pos, d, value);
  }
}

// snprintf of the directive's own text with its arguments, into the free
// space if it fits, else through scratch_ or the space make_space() makes;
// a text larger than those sends the whole call to glibc.
template <typename... A>
char* printf_call::glibc_directive(char* pos, const directive& d, A... args) {
  char spec[largest_directive + 1];
  const auto spec_size = static_cast<std::size_t>(d.end - d.begin);
  std::memcpy(spec, d.begin, spec_size);
  spec[spec_size] = '\0';
  const std::size_t space = room(pos);
  errno = saved_errno_;
  const int result = std::snprintf(pos, space, spec, args...);
  if (result < 0) {
    status_ = errno;
    return pos;
  }
  const auto size = static_cast<std::size_t>(result);
  if (size < space) return pos + size;
  if (size < sizeof scratch_) {
    errno = saved_errno_;
    std::snprintf(scratch_, sizeof scratch_, spec, args...);
    return append(pos, scratch_, size);
  }
  if (whole_in_buffer() && count(pos) + size < capacity_) {
    pos = make_space(pos, size + 1);
    errno = saved_errno_;
    std::snprintf(pos, size + 1, spec, args...);
    return pos + size;
  }
  status_ = glibc_takes_the_call;
  return pos;
}

// glibc formats the whole call, from its first argument. Whatever this
// engine had written and not yet sent is dropped: glibc writes it again.
int printf_call::glibc_whole_call() {
  if (piece_.sent == 0 && piece_.place != piece_place::buffer_streaming) {
    char* start = piece_.text;
    const std::size_t space = room(start);
    std::va_list args;
    va_copy(args, original_);
    errno = saved_errno_;
    int result = std::vsnprintf(start, space, format_, args);
    int error_number = errno;
    va_end(args);
    if (result < 0) return fail(start, error_number);
    const auto size = static_cast<std::size_t>(result);
    if (size < space) return finish(start + size);
    if (whole_in_buffer() && size < capacity_) {
      start = make_space(start, size + 1);  // sends the older text
      va_copy(args, original_);
      errno = saved_errno_;
      std::vsnprintf(start, size + 1, format_, args);
      va_end(args);
      return finish(start + size);
    }
  }
  return glibc_whole_call_streaming();
}

// A text larger than the buffer: glibc's vfprintf into a stream whose
// writes append to this call (stream_write), so that it streams to the file
// without being held in memory. The first sent_ bytes are in the file
// already.
int printf_call::glibc_whole_call_streaming() {
  char* pos = piece_.text;
  // Known to be larger than the buffer: it streams from the start.
  if (whole_in_buffer()) pos = make_space(pos, SIZE_MAX);
  skip_ = piece_.sent;
  stream_pos_ = pos;
  // Unbuffered: every write comes here at once.
  std::FILE* stream = platform.open_write_stream(this, &printf_call::stream_write);
  if (stream == nullptr) return fail(pos, errno == ENOTSUP ? ENOTSUP : ENOMEM);
  std::va_list args;
  va_copy(args, original_);
  errno = saved_errno_;
  const int result = std::vfprintf(stream, format_, args);
  const int error_number = errno;
  va_end(args);
  std::fclose(stream);
  if (stream_error_) std::rethrow_exception(stream_error_);
  if (result < 0) return fail(stream_pos_, error_number);
  return finish(stream_pos_);
}

ssize_t printf_call::stream_write(void* cookie, const char* data, std::size_t size) {
  auto& call = *static_cast<printf_call*>(cookie);
  if (call.stream_error_) return -1;
  try {
    const std::size_t skipped = std::min(call.skip_, size);
    call.skip_ -= skipped;
    call.stream_pos_ = call.append(call.stream_pos_, data + skipped, size - skipped);
  } catch (...) {
    // Not through glibc's frames: rethrown once vfprintf has returned.
    call.stream_error_ = std::current_exception();
    return -1;
  }
  return static_cast<ssize_t>(size);
}

#if defined(__GNUC__) || defined(__clang__)
#  pragma GCC diagnostic pop
#endif

// ------------------------------------------------------------ the areas

char* printf_call::append_slow(char* pos, const char* data, std::size_t size) {
  while (size > 0) {
    std::size_t space = room(pos);
    // In the buffer, room for all of it is made at once, so that the call
    // stays whole; streaming, the area is filled before it is sent.
    if (space == 0 || (whole_in_buffer() && size > space)) {
      pos = make_space(pos, size);
      continue;
    }
    const std::size_t chunk = std::min(size, space);
    std::memcpy(pos, data, chunk);
    pos += chunk;
    data += chunk;
    size -= chunk;
  }
  return pos;
}

char* printf_call::fill(char* pos, char c, std::size_t size) {
  while (size > 0) {
    std::size_t space = room(pos);
    if (space == 0 || (whole_in_buffer() && size > space)) {
      pos = make_space(pos, size);
      continue;
    }
    const std::size_t chunk = std::min(size, space);
    std::memset(pos, c, chunk);
    pos += chunk;
    size -= chunk;
  }
  return pos;
}

int printf_call::finish(char* pos) {
  const std::size_t total = count(pos);
  if (total > static_cast<std::size_t>(INT_MAX)) return fail(pos, EOVERFLOW);
  writer_of(writer_).end_piece(piece_, pos);
  return static_cast<int>(total);
}

// The call fails: none of its text is added, unless some was sent already;
// then, as glibc's vfprintf, what was made before the failure stays.
int printf_call::fail(char* pos, int error_number) {
  if (piece_.sent != 0) writer_of(writer_).end_piece(piece_, pos);
  return -(error_number > 0 ? error_number : EINVAL);
}

}  // namespace

int vprintf_to(file& writer, const char* format, std::va_list args) {
  printf_call call(writer, format, args);
  return call.run();
}

}  // namespace detail
}  // namespace fastout
