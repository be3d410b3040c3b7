// SPDX-License-Identifier: MIT
// printf formats, parsed once (printf_internal.h): glibc 2.36's two
// parsers, into a plan that printf.cpp caches per thread.
//
// glibc reads a format with two parsers. The first (vfprintf's jump tables)
// takes the directives in order, each argument as it comes, and accepts
// flags only before the width, a length modifier only where C puts one.
// When it meets a directive it does not know, or a positional argument
// ("%1$d", "*2$"), the second (printf_positional, with __parse_one_spec)
// reads the whole format again from its first directive: it is more
// lenient (it takes "%hf" and "%hs", which the first refuses), it learns
// the type of every argument before taking any, and it prints what it does
// not know back as text. The two differ in what the length modifiers mean
// ("%Ld" is a long long to the first, an int to the second) and in how
// they fail (a width over INT_MAX is EOVERFLOW to the first and no width to
// the second): fastout keeps both, as glibc has them, so that every format
// prints glibc's bytes.
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cwchar>
#include <limits>
#include <memory>

#include "doors/printf_internal.h"

namespace fastout {
namespace detail {
namespace printf_engine {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// glibc's read_int(): the number at p (a digit), or -1 if it exceeds
// INT_MAX; p ends after every digit either way.
int read_int(const char*& p) {
  int value = *p - '0';
  while (is_digit(*++p)) {
    if (value < 0) continue;
    const int digit = *p - '0';
    if (value > INT_MAX / 10 || value * 10 > INT_MAX - digit)
      value = -1;
    else
      value = value * 10 + digit;
  }
  return value;
}

// What "z", "t" and "j" set, as glibc's parsers do from the type sizes:
// is_long when the type is wider than int, is_long_double when it is wider
// than long.
template <typename T>
std::uint8_t length_of_type() {
  std::uint8_t length = 0;
  if (sizeof(T) > sizeof(unsigned int)) length |= length_long;
  if (sizeof(T) > sizeof(unsigned long)) length |= length_long_double;
  return length;
}

// Where long is narrower than a pointer (64-bit Windows: LLP64), size_t,
// ptrdiff_t and intmax_t are wider than long, and glibc's rule above makes
// "z", "t" and "j" long long for an integer, as Windows' own printf reads
// them. No glibc target has that model: on its 64-bit ones the rule never
// makes a floating-point directive take a long double, so neither does it
// here, and "%jf" reads the double a caller passes, as on 64-bit Linux.
constexpr bool long_is_narrower_than_a_pointer = sizeof(long) < sizeof(void*);
void length_of_type_for_floats(directive& d, bool length_of_type) {
  if (long_is_narrower_than_a_pointer && length_of_type &&
      (d.what == action::floating || d.what == action::hex_floating))
    d.length = static_cast<std::uint8_t>(d.length & ~length_long_double);
}

// The longest digits of an integer argument in a base, for bound.
constexpr std::uint32_t longest_digits(unsigned base) {
  return base == 2 ? 64 : base == 8 ? 22 : base == 16 ? 16 : 20;
}

// Sets what a directive does from its conversion, and returns false if
// neither parser knows it.
bool classify(directive& d, char conversion) {
  d.conversion = conversion;
  switch (conversion) {
    case '%': d.what = action::percent; return true;
    case 'd':
    case 'i': d.what = action::signed_number; return true;
    case 'u': d.what = action::unsigned_number; return true;
    case 'o':
      d.what = action::unsigned_number;
      d.base = 8;
      return true;
    case 'x':
    case 'X':
      d.what = action::unsigned_number;
      d.base = 16;
      d.upper = conversion == 'X';
      return true;
    case 'b':
    case 'B':
      d.what = action::unsigned_number;
      d.base = 2;
      return true;
    case 'e':
    case 'E':
    case 'f':
    case 'F':
    case 'g':
    case 'G': d.what = action::floating; return true;
    case 'a':
    case 'A': d.what = action::hex_floating; return true;
    case 'c':
    case 'C': d.what = action::character; return true;
    case 's':
    case 'S': d.what = action::string; return true;
    case 'p':
      d.what = action::pointer;
      d.base = 16;
      return true;
    case 'n': d.what = action::count; return true;
    case 'm': d.what = action::strerror; return true;
    default: d.what = action::unknown; return false;
  }
}

// The most bytes a directive writes with no width: 0 where only its
// argument says.
std::uint32_t content_bound_of(const directive& d) {
  const auto precision = static_cast<std::uint32_t>(d.precision < 0 ? 0 : d.precision);
  if (d.precision > 1 << 20) return 0;
  switch (d.what) {
    case action::percent: return 1;
    case action::signed_number:
    case action::unsigned_number:
    case action::pointer:
      // A sign and "0x", and the digits or the precision's zeros.
      return 3 + std::max(longest_digits(d.base), precision);
    case action::floating:
      // "-" digits "." digits "e+dddd"; %f of a double has at most 309
      // integer digits, of a long double 4933.
      if (d.length & length_long_double) return 0;
      if (d.conversion == 'f' || d.conversion == 'F') return 1 + 309 + 1 + precision;
      return 1 + 1 + 1 + std::max(precision, 6u) + 6 + 4;
    case action::hex_floating:
      if (d.length & length_long_double) return 0;
      return 1 + 2 + 1 + 1 + std::max(precision, 13u) + 6;
    case action::character: return (d.length & length_long) || d.conversion == 'C' ? 0 : 1;
    default: return 0;  // strings, %m: their length
  }
}

// The most bytes a directive of the first parser writes, its width
// included: 0 where only its argument or the locale says.
std::uint32_t bound_of(const directive& d) {
  if (d.flags & (flag_precision_star | flag_width_star | flag_group | flag_i18n)) return 0;
  if (d.what == action::count) return 0;
  const std::uint32_t content = content_bound_of(d);
  if (content == 0 || d.width > 1 << 20) return 0;
  return std::max(content, static_cast<std::uint32_t>(d.width));
}

// How the fast executor writes a directive with flags, a width or a
// precision (glibc's layout, in printf.cpp's put_formatted_...), if it
// can, and the room it needs for it. Not: widths from arguments, the
// locale's flags, '#' on a double, octal and binary, "h" and "hh", long
// doubles, wide characters and strings; widths and integer precisions
// larger than largest_fast_width, double precisions larger than
// largest_fast_precision.
void choose_formatted_fast(directive& d) {
  using fast_kind = directive::fast_kind;
  if (d.flags & (flag_width_star | flag_group | flag_i18n)) return;
  if (d.width > largest_fast_width || d.precision > largest_fast_width) return;
  const auto width = static_cast<std::uint32_t>(d.width);
  const bool precision_star = (d.flags & flag_precision_star) != 0;
  const std::uint8_t length = d.length;
  const bool wide_integer = sizeof(long) == sizeof(long long) && (length & length_long) != 0 &&
                            (length & (length_char | length_short)) == 0;
  std::uint32_t content = 0;
  switch (d.what) {
    case action::signed_number:
      if (precision_star) return;
      if (length == 0)
        d.fast = fast_kind::formatted_int;
      else if (wide_integer)
        d.fast = fast_kind::formatted_long_long;
      else
        return;
      // And 8 bytes more: the short layout copies 24 after its padding.
      content = bound_of(d) + 8;
      break;
    case action::unsigned_number:
      if (precision_star || (d.base != 10 && d.base != 16)) return;
      if (length == 0)
        d.fast = fast_kind::formatted_unsigned;
      else if (wide_integer)
        d.fast = fast_kind::formatted_unsigned_long_long;
      else
        return;
      content = bound_of(d) + 8;
      break;
    case action::floating:
      if (precision_star || (d.flags & flag_alt) || (length & length_long_double) ||
          d.precision > largest_fast_precision)
        return;
      d.fast = fast_kind::formatted_double;
      // Written a byte in (room for a sign), then laid out in the width.
      content = static_cast<std::uint32_t>(fast_double_room(d.precision)) + 1 + width;
      break;
    case action::character:
      if (precision_star || length != 0 || d.conversion != 'c') return;
      d.fast = fast_kind::padded_character;
      content = std::max<std::uint32_t>(1, width);
      break;
    case action::string:
      if (length != 0 || d.conversion != 's') return;
      d.fast = fast_kind::padded_string;  // and the padded string's length, when it is known
      break;
    default: return;
  }
  if ((d.what == action::signed_number || d.what == action::unsigned_number) &&
      (d.flags & ~flag_pad_zero) == 0 && d.precision < 0 && d.width <= 16)
    d.fast_pad = (d.flags & flag_pad_zero) ? '0' : ' ';
  d.fast_room = content + std::max<std::uint32_t>(16, d.next - d.end);
}

// How the fast executor writes a directive of the first parser, if it
// can, and the room it needs for it and the literal text after it (whose
// size is known by then).
void choose_fast(directive& d) {
  using fast_kind = directive::fast_kind;
  d.fast = fast_kind::none;
  // No flags; a precision from an argument only for strings. The others
  // are choose_formatted_fast()'s.
  if ((d.flags != 0 && !(d.flags == flag_precision_star && d.what == action::string)) ||
      d.width != 0)
    return choose_formatted_fast(d);
  const bool plain_precision = d.precision < 0 && !(d.flags & flag_precision_star);
  const std::uint8_t length = d.length;
  // 64-bit "l", "ll", "L", "q", "j", "z", "t" where long is long long: read
  // as a long long, as glibc reads a long there.
  const bool wide_integer = sizeof(long) == sizeof(long long) && (length & length_long) != 0 &&
                            (length & (length_char | length_short)) == 0;
  std::uint32_t content = 0;
  switch (d.what) {
    case action::percent:
      d.fast = fast_kind::percent;
      content = 1;
      break;
    case action::signed_number:
      if (!plain_precision) return choose_formatted_fast(d);
      if (length == 0)
        d.fast = fast_kind::int_value;
      else if (wide_integer)
        d.fast = fast_kind::long_long_value;
      else
        return;
      content = 21;
      break;
    case action::unsigned_number:
      if (d.base != 10 && d.base != 16) return;
      if (!plain_precision) return choose_formatted_fast(d);
      if (length == 0)
        d.fast = d.base == 10 ? fast_kind::unsigned_value : fast_kind::hex_value;
      else if (wide_integer)
        d.fast =
            d.base == 10 ? fast_kind::unsigned_long_long_value : fast_kind::hex_long_long_value;
      else
        return;
      content = 21;
      break;
    case action::floating:
      if ((d.flags & flag_precision_star) || (length & length_long_double) ||
          d.precision > largest_fast_precision)
        return;
      d.fast = fast_kind::double_value;
      content = static_cast<std::uint32_t>(fast_double_room(d.precision));
      break;
    case action::character:
      if (length != 0 || d.conversion != 'c') return;
      d.fast = fast_kind::character;
      content = 1;
      break;
    case action::string:
      if (length != 0 || d.conversion != 's') return;
      d.fast = fast_kind::string;  // and the string's length, when it is known
      break;
    case action::count:
      if (length != 0) return;
      d.fast = fast_kind::count;
      break;
    default: return;
  }
  d.fast_room = content + std::max<std::uint32_t>(16, d.next - d.end);
}

// ------------------------------------------------ glibc's first parser

// Step 0: flags, in any order and number. A '-' makes glibc's pad ' '
// again, and a '0' after it does not change that.
void read_first_flags(const char*& f, directive& d) {
  bool left = false;
  bool pad_zero = false;
  for (;; ++f) {
    switch (*f) {
      case ' ': d.flags |= flag_space; continue;
      case '+': d.flags |= flag_showsign; continue;
      case '-':
        left = true;
        pad_zero = false;
        continue;
      case '#': d.flags |= flag_alt; continue;
      case '0':
        if (!left) pad_zero = true;
        continue;
      case '\'': d.flags |= flag_group; continue;
      case 'I': d.flags |= flag_i18n; continue;
      default: break;
    }
    break;
  }
  if (left) d.flags |= flag_left;
  if (pad_zero) d.flags |= flag_pad_zero;
}

// A '*' at `f`, a width or a precision from the next argument: `f` ends
// after it. The first parser leaves to the second a '*' followed by a
// digit ("*2$", or "*5", whose digit is not a width), and fails where that
// number exceeds INT_MAX.
stop read_first_star(const char*& f) {
  const char* t = ++f;
  if (is_digit(*t)) {
    const int position = read_int(t);
    if (position == -1) return stop::overflow;
    if (position != 0 && *t == '$') return stop::positional;
  }
  return is_digit(*f) ? stop::positional : stop::at_end;
}

// The width: a number, or '*' and the next argument.
stop read_first_width(const char*& f, directive& d) {
  if (*f == '*') {
    d.flags |= flag_width_star;
    return read_first_star(f);
  }
  if (*f >= '1' && *f <= '9') {
    d.width = read_int(f);
    if (d.width == -1) return stop::overflow;
    if (*f == '$') return stop::positional;
  }
  return stop::at_end;
}

// The precision: '.' and a number (none is 0), or ".*" and the next
// argument.
stop read_first_precision(const char*& f, directive& d) {
  if (*f != '.') return stop::at_end;
  ++f;
  if (*f == '*') {
    d.flags |= flag_precision_star;
    return read_first_star(f);
  }
  d.precision = 0;
  if (is_digit(*f)) {
    d.precision = read_int(f);
    if (d.precision == -1) return stop::overflow;
  }
  return stop::at_end;
}

// Which conversions the first parser takes after a length modifier (its
// steps 3a, 3b and 4): after "h" only integers, %n and %% (and %b); after
// "l", "ll" and the others, everything its tables take.
enum class after_length : std::uint8_t { nothing, h, other };

after_length read_first_length(const char*& f, directive& d) {
  switch (*f) {
    case 'h':
      ++f;
      if (*f != 'h') {
        d.length = length_short;
        return after_length::h;
      }
      ++f;
      d.length = length_char;
      return after_length::other;
    case 'l':
      ++f;
      d.length = length_long;
      if (*f == 'l') {
        ++f;
        d.length |= length_long_double;
      }
      return after_length::other;
    case 'L':
    case 'q': d.length = length_long | length_long_double; break;
    case 'z':
    case 'Z': d.length = length_of_type<std::size_t>(); break;
    case 't': d.length = length_of_type<std::ptrdiff_t>(); break;
    case 'j': d.length = length_of_type<std::uintmax_t>(); break;
    default: return after_length::nothing;
  }
  ++f;
  return after_length::other;
}

// Reads the directive whose '%' is at `percent`, as vfprintf's jump tables
// do. Returns stop::at_end if it is one the first parser formats (then
// `d` holds it), or how the first parser stops there.
stop parse_first(const char* format, const char* percent, directive& d) {
  d.begin = static_cast<std::uint32_t>(percent - format);
  const char* f = percent + 1;
  read_first_flags(f, d);
  stop how = read_first_width(f, d);
  if (how == stop::at_end) how = read_first_precision(f, d);
  if (how != stop::at_end) return how;
  const bool length_of_a_type = *f == 'z' || *f == 'Z' || *f == 't' || *f == 'j';
  const after_length step = read_first_length(f, d);
  const char conversion = *f;
  if (conversion == '\0') return stop::invalid;
  if (!classify(d, conversion)) return stop::positional;
  length_of_type_for_floats(d, length_of_a_type);
  if (step == after_length::h && d.what != action::signed_number &&
      d.what != action::unsigned_number && d.what != action::count && d.what != action::percent)
    return stop::positional;
  d.end = static_cast<std::uint32_t>(f + 1 - format);
  return stop::at_end;
}

// ----------------------------------------------- glibc's second parser

// The arguments of the directive the second parser reads: those the
// directives before it took in order, those it takes in order, and the
// highest position named so far.
struct argument_positions {
  std::size_t next;   // the next argument in order
  std::size_t taken;  // by this directive, in order
  std::size_t& largest_position;

  std::int32_t take_next() {
    ++taken;
    return static_cast<std::int32_t>(next++);
  }
  // "N$", N at least 1 and at most INT_MAX.
  std::int32_t name(int n) {
    largest_position = std::max(largest_position, static_cast<std::size_t>(n));
    return n - 1;
  }
};

// "%N$": the directive's argument by position (N past INT_MAX names none:
// the argument is then the next in order).
void read_second_position(const char*& f, directive& d, argument_positions& args) {
  if (!is_digit(*f)) return;
  const char* begin = f;
  const int n = read_int(f);
  if (n == 0 || *f != '$') {
    f = begin;  // a width, or the '0' flag
    return;
  }
  ++f;
  if (n != -1) d.data_arg = args.name(n);
}

// Flags, up to the end of the format; '0' pads with zeros unless '-' is
// there too, wherever it is.
void read_second_flags(const char*& f, directive& d) {
  bool pad_zero = false;
  for (; *f != '\0'; ++f) {
    switch (*f) {
      case ' ': d.flags |= flag_space; continue;
      case '+': d.flags |= flag_showsign; continue;
      case '-': d.flags |= flag_left; continue;
      case '#': d.flags |= flag_alt; continue;
      case '0': pad_zero = true; continue;
      case '\'': d.flags |= flag_group; continue;
      case 'I': d.flags |= flag_i18n; continue;
      default: break;
    }
    break;
  }
  if (pad_zero && !(d.flags & flag_left)) d.flags |= flag_pad_zero;
}

// A '*' at `f`, then either "N$" (the Nth argument) or the next argument
// in order (and `f` just after the '*'): which one goes to `arg`.
void read_second_star(const char*& f, std::int32_t& arg, argument_positions& args) {
  const char* begin = ++f;
  if (is_digit(*f)) {
    const int n = read_int(f);
    if (n != 0 && *f == '$') {
      if (n != -1) arg = args.name(n);
      ++f;
    }
  }
  if (arg < 0) {
    arg = args.take_next();
    f = begin;
  }
}

// The width and the precision: numbers (one past INT_MAX is none), or '*'.
void read_second_width_and_precision(const char*& f, directive& d, argument_positions& args) {
  if (*f == '*') {
    read_second_star(f, d.width_arg, args);
  } else if (is_digit(*f)) {
    const int n = read_int(f);
    if (n != -1) d.width = n;
  }
  if (*f != '.') return;
  ++f;
  if (*f == '*') {
    read_second_star(f, d.precision_arg, args);
  } else if (is_digit(*f)) {
    const int n = read_int(f);
    if (n != -1) d.precision = n;
  } else {
    d.precision = 0;
  }
}

// The length modifier: "L" and "q" are long double only, to this parser.
void read_second_length(const char*& f, directive& d) {
  switch (*f) {
    case 'h':
      d.length = f[1] == 'h' ? length_char : length_short;
      f += d.length == length_char ? 2 : 1;
      return;
    case 'l':
      d.length = f[1] == 'l' ? length_long | length_long_double : length_long;
      f += f[1] == 'l' ? 2 : 1;
      return;
    case 'L':
    case 'q': d.length = length_long_double; break;
    case 'z':
    case 'Z': d.length = length_of_type<std::size_t>(); break;
    case 't': d.length = length_of_type<std::ptrdiff_t>(); break;
    case 'j': d.length = length_of_type<std::uintmax_t>(); break;
    default: return;
  }
  ++f;
}

// Reads the directive at `percent` as __parse_one_specmb does. `next_arg`
// is the number of arguments the directives before it took in order;
// returns how many this one takes in order, and raises `largest_position`
// to the highest positional index it names.
std::size_t parse_second(const char* format, const char* percent, std::size_t next_arg,
                         std::size_t& largest_position, directive& d) {
  argument_positions args{next_arg, 0, largest_position};
  d.begin = static_cast<std::uint32_t>(percent - format);
  const char* f = percent + 1;
  read_second_position(f, d, args);
  read_second_flags(f, d);
  read_second_width_and_precision(f, d, args);
  const bool length_of_a_type = *f == 'z' || *f == 'Z' || *f == 't' || *f == 'j';
  read_second_length(f, d);
  const char conversion = *f++;
  classify(d, conversion);
  length_of_type_for_floats(d, length_of_a_type);
  // %m, %%, the end of the format and what glibc does not know take no
  // argument.
  const bool takes_argument =
      d.what != action::percent && d.what != action::strerror && d.what != action::unknown;
  if (takes_argument && d.data_arg == -1)
    d.data_arg = args.take_next();
  else if (!takes_argument && d.data_arg != -1)
    d.data_arg = -1;  // named, but never read: only counted
  if (conversion == '\0') {
    d.end = d.next = static_cast<std::uint32_t>(f - 1 - format);
  } else {
    d.end = static_cast<std::uint32_t>(f - format);
    const char* next = std::strchr(f, '%');
    d.next =
        static_cast<std::uint32_t>(next != nullptr ? next - format : f + std::strlen(f) - format);
  }
  return args.taken;
}

// The type glibc's second parser takes a directive's argument with.
arg_type type_of(const directive& d) {
  switch (d.what) {
    case action::signed_number:
    case action::unsigned_number:
      if ((d.length & length_long_double) && sizeof(long) != sizeof(long long))
        return arg_type::long_long_value;
      if (d.length & length_long) return arg_type::long_value;
      return arg_type::int_value;
    case action::floating:
    case action::hex_floating:
      return d.length & length_long_double ? arg_type::long_double_value : arg_type::double_value;
    case action::character: return d.conversion == 'C' ? arg_type::wint_value : arg_type::int_value;
    default: return arg_type::pointer_value;  // strings, %p, %n
  }
}

// The most positional arguments fastout takes: POSIX's NL_ARGMAX. glibc
// takes any number, reading that many from the va_list (and allocating
// for them); a format naming more is not one a program can mean.
constexpr std::size_t most_positional_arguments = 4096;

void parse_second_all(const char* format, plan& p) {
  std::size_t next_arg = 0;
  std::size_t largest_position = 0;
  for (const char* f = format + p.lead; *f != '\0';) {
    directive d;
    next_arg += parse_second(format, f, next_arg, largest_position, d);
    p.second.push_back(d);
    f = format + d.next;
  }
  const std::size_t count = std::max(next_arg, largest_position);
  if (count > most_positional_arguments) {
    p.after_first = stop::invalid;
    p.second.clear();
    return;
  }
  // Gaps are ints; a later directive's type wins, as in glibc.
  p.arg_types.assign(count, arg_type::int_value);
  for (const directive& d : p.second) {
    if (d.width_arg >= 0) p.arg_types[static_cast<std::size_t>(d.width_arg)] = arg_type::int_value;
    if (d.precision_arg >= 0)
      p.arg_types[static_cast<std::size_t>(d.precision_arg)] = arg_type::int_value;
    if (d.data_arg >= 0) p.arg_types[static_cast<std::size_t>(d.data_arg)] = type_of(d);
  }
}

}  // namespace

std::size_t plan::memory() const noexcept {
  // The text's heap block (none while it is short enough for the string
  // itself), and the vectors'.
  const std::size_t text_heap = text.capacity() > 15 ? text.capacity() + 1 : 0;
  return sizeof(plan) + text_heap + first.capacity() * sizeof(directive) +
         second.capacity() * sizeof(directive) + arg_types.capacity() * sizeof(arg_type);
}

void parse(const char* format, std::size_t size, plan& p) {
  p.text.assign(format, size);
  p.text.append(17, '\0');  // the null, and room for 16-byte copies
  p.size = static_cast<std::uint32_t>(size);
  const char* percent = std::strchr(format, '%');
  p.lead = static_cast<std::uint32_t>(
      percent != nullptr ? static_cast<std::size_t>(percent - format) : size);
  p.after_first = stop::at_end;
  std::size_t bound = p.lead;
  bool bounded = true;
  for (const char* f = percent; f != nullptr;) {
    directive d;
    stop how = parse_first(format, f, d);
    if (how != stop::at_end) {
      p.after_first = how;
      break;
    }
    const char* next = std::strchr(format + d.end, '%');
    d.next = static_cast<std::uint32_t>(next != nullptr ? static_cast<std::size_t>(next - format)
                                                        : size);
    d.bound = bound_of(d);
    choose_fast(d);
    if (d.what == action::floating || d.what == action::hex_floating) p.has_floats = true;
    if (d.what == action::strerror) p.uses_errno = true;
    // %n writes nothing.
    if (d.bound == 0 && d.what != action::count) bounded = false;
    bound += d.bound + (d.next - d.end);
    p.first.push_back(d);
    f = next;
  }
  p.bound = bounded && p.after_first == stop::at_end ? bound : 0;
  p.fast =
      p.after_first == stop::at_end && p.lead <= std::numeric_limits<std::uint32_t>::max() - 16;
  for (const directive& d : p.first)
    if (d.fast == directive::fast_kind::none) p.fast = false;
  if (p.after_first == stop::positional) {
    parse_second_all(format, p);
    for (const directive& d : p.second)
      if (d.what == action::strerror) p.uses_errno = true;
  }
}

}  // namespace printf_engine
}  // namespace detail
}  // namespace fastout
