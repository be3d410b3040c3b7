// SPDX-License-Identifier: MIT
// The printf target's reading of a format: which arguments each directive
// takes and how, as glibc 2.36's parser (stdio-common/printf-parsemb.c,
// __parse_one_specmb) reads them, so that the target can give printf
// arguments of the types it will read. On glibc the target checks every
// answer against the C library's own parse_printf_format(); elsewhere this
// is the only typing there is.
//
// Two readers in glibc read a format: the first (vfprintf's own loop)
// takes the directives it knows in order and hands over to the second
// (printf_positional, whose parser this mirrors) at a positional argument
// or a directive it does not know. They differ in what 'L' and 'q' mean
// before an integer or 's': the first reads "%Ld" as a long long and "%Ls"
// as a wide string, the second "%1$Ld" as an int and "%1$Ls" as a narrow
// string. The target passes a long long where either may read one (an
// int read from it is its low half on the platforms glibc runs on), and a
// string that both readings end inside of where the two disagree.
#ifndef FASTOUT_FUZZ_PRINTF_FORMAT_SCAN_H_
#define FASTOUT_FUZZ_PRINTF_FORMAT_SCAN_H_

#include <algorithm>
#include <climits>
#include <cstddef>
#include <vector>

namespace fastout_fuzz {

// How a directive reads its data argument.
enum class reads : unsigned char {
  nothing,      // %%, %m, a conversion glibc does not know, the end of the format
  integer,      // diouxXbB
  floating,     // eEfFgGaA
  character,    // c, C: an int (wint_t for %lc and %C)
  narrow_text,  // s
  wide_text,    // ls, S
  either_text,  // Ls, qs: narrow to one of glibc's readers, wide to the other
  pointer,      // p
  count,        // n: a pointer to where the count goes
};

struct directive {
  int data_arg = -1;                 // the argument read, -1 for none
  int width_arg = -1;                // `*`: the argument holding the width
  int precision_arg = -1;            // `.*`: the argument holding the precision
  int width = 0;                     // a width written in the format (0 if none or too large)
  int precision = -1;                // a precision written in the format, -1 if none
  bool width_too_large = false;      // digits over INT_MAX: an error or no width
  bool precision_too_large = false;  // the same for a precision
  unsigned char conversion = 0;
  unsigned char modifier = 0;  // h, l, L, q, z, Z, t or j (the first of "hh", "ll"), or 0
  bool doubled = false;        // "hh" or "ll"
  reads what = reads::nothing;
  // The type glibc's second reader gives the data argument (<printf.h>'s
  // PA_* values, so that they compare with parse_printf_format()'s).
  int second_reader_type = 0;
  // An integer or %n that either reader may take as 8 bytes.
  bool eight_bytes = false;
  bool long_double = false;  // a floating conversion of a long double
  bool wide_char = false;    // %lc, %C (and %Lc, %qc to the first reader)
};

// <printf.h>'s values, for the check against glibc's parse_printf_format().
enum : int { pa_int, pa_char, pa_wchar, pa_string, pa_wstring, pa_pointer, pa_double = 7 };
enum : int { pa_flag_long_long = 1 << 8, pa_flag_long = 1 << 9, pa_flag_short = 1 << 10 };
constexpr int pa_flag_long_double = pa_flag_long_long;
constexpr int pa_flag_ptr = 1 << 11;

struct scanned_format {
  std::vector<directive> directives;
  std::size_t argument_count = 0;  // what printf reads: max(sequential, largest N$)
};

namespace format_scan_detail {

inline bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

// What glibc's read_int() reads: the digits at p (p ends after all of
// them), or -1 for a number over INT_MAX. (Kept apart from the engine's
// own reading: a 64-bit sum held just past INT_MAX.)
inline int read_int(const unsigned char*& p) {
  constexpr long long too_large = static_cast<long long>(INT_MAX) + 1;
  long long value = 0;
  for (; is_digit(*p); ++p) value = std::min(value * 10 + (*p - '0'), too_large);
  return value == too_large ? -1 : static_cast<int>(value);
}

// A width or precision written out: its value, or too_large past INT_MAX.
inline void read_number(const unsigned char*& p, int& value, bool& too_large) {
  const int n = read_int(p);
  if (n == -1)
    too_large = true;
  else
    value = n;
}

// A '*' (p after it): "*N$" takes argument N into `arg`; a plain '*' the
// next sequential one (counted in `taken`), leaving p just after the '*'.
inline void read_star(const unsigned char*& p, std::size_t& posn, std::size_t& taken,
                      std::size_t& largest_position, int& arg) {
  const unsigned char* after_star = p;
  if (is_digit(*p)) {
    const int n = read_int(p);
    if (n != 0 && *p == '$') {
      if (n != -1) {
        arg = n - 1;
        largest_position = std::max(largest_position, static_cast<std::size_t>(n));
      }
      ++p;
    }
  }
  if (arg < 0) {
    arg = static_cast<int>(posn++);
    ++taken;
    p = after_star;
  }
}

inline const unsigned char* next_percent(const unsigned char* p) {
  while (*p != '\0' && *p != '%') ++p;
  return p;
}

// One directive at `format` (its '%'); returns the sequential arguments it
// takes, as __parse_one_specmb() does.
inline std::size_t parse_one(const unsigned char* format, std::size_t posn, directive& d,
                             std::size_t& largest_position, const unsigned char*& next) {
  std::size_t taken = 0;
  ++format;
  if (is_digit(*format)) {
    const unsigned char* begin = format;
    const int n = read_int(format);
    if (n != 0 && *format == '$') {
      ++format;
      if (n != -1) {
        d.data_arg = n - 1;
        if (static_cast<std::size_t>(n) > largest_position)
          largest_position = static_cast<std::size_t>(n);
      }
    } else {
      format = begin;
    }
  }
  // Flags; the loop stops at the first other byte, or at the end.
  while (*format == ' ' || *format == '+' || *format == '-' || *format == '#' || *format == '0' ||
         *format == '\'' || *format == 'I')
    ++format;
  if (*format == '*') {
    read_star(++format, posn, taken, largest_position, d.width_arg);
  } else if (is_digit(*format)) {
    read_number(format, d.width, d.width_too_large);
  }
  if (*format == '.') {
    ++format;
    if (*format == '*') {
      read_star(++format, posn, taken, largest_position, d.precision_arg);
    } else if (is_digit(*format)) {
      read_number(format, d.precision, d.precision_too_large);
    } else {
      d.precision = 0;  // "%.d" is "%.0d"
    }
  }
  bool is_long = false, is_long_double = false, is_short = false, is_char = false;
  switch (*format++) {
    case 'h':
      d.modifier = 'h';
      if (*format != 'h') {
        is_short = true;
      } else {
        ++format;
        is_char = true;
        d.doubled = true;
      }
      break;
    case 'l':
      d.modifier = 'l';
      is_long = true;
      if (*format != 'l') break;
      ++format;
      d.doubled = true;
      is_long_double = true;
      break;
    case 'L':
    case 'q':
      d.modifier = format[-1];
      is_long_double = true;
      break;
    case 'z':
    case 'Z':
    case 't':
    case 'j':
      // size_t, ptrdiff_t and intmax_t are as wide as long on the
      // platforms glibc runs on: is_long, not is_long_double.
      d.modifier = format[-1];
      is_long = sizeof(std::size_t) > sizeof(unsigned);
      is_long_double = sizeof(std::size_t) > sizeof(unsigned long);
      break;
    default: --format; break;
  }
  d.conversion = *format;
  int type = pa_int;
  bool takes_data = true;
  const bool l_or_q = d.modifier == 'L' || d.modifier == 'q';
  switch (d.conversion) {
    case 'i':
    case 'd':
    case 'u':
    case 'o':
    case 'X':
    case 'x':
    case 'B':
    case 'b':
      d.what = reads::integer;
      type = is_long    ? pa_int | pa_flag_long
             : is_short ? pa_int | pa_flag_short
             : is_char  ? pa_char
                        : pa_int;
      d.eight_bytes = is_long || l_or_q;
      break;
    case 'e':
    case 'E':
    case 'f':
    case 'F':
    case 'g':
    case 'G':
    case 'a':
    case 'A':
      d.what = reads::floating;
      d.long_double = is_long_double;
      type = is_long_double ? pa_double | pa_flag_long_double : pa_double;
      break;
    case 'c':
      d.what = reads::character;
      d.wide_char = is_long || l_or_q;
      type = pa_char;
      break;
    case 'C':
      d.what = reads::character;
      d.wide_char = true;
      type = pa_wchar;
      break;
    case 's':
      d.what = l_or_q ? reads::either_text : is_long ? reads::wide_text : reads::narrow_text;
      type = pa_string;
      break;
    case 'S':
      d.what = reads::wide_text;
      type = pa_wstring;
      break;
    case 'p':
      d.what = reads::pointer;
      type = pa_pointer;
      break;
    case 'n':
      d.what = reads::count;
      d.eight_bytes = true;  // the cell is large enough for any length
      type = pa_int | pa_flag_ptr;
      break;
    default: takes_data = false; break;
  }
  d.second_reader_type = type;
  if (!takes_data) {
    d.what = reads::nothing;
    d.data_arg = -1;
  } else if (d.data_arg == -1) {
    d.data_arg = static_cast<int>(posn);
    ++taken;
  }
  next = d.conversion == '\0' ? format : next_percent(format + 1);
  return taken;
}

}  // namespace format_scan_detail

inline scanned_format scan_format(const char* text) {
  using namespace format_scan_detail;
  scanned_format result;
  std::size_t sequential = 0, largest_position = 0;
  for (const unsigned char* f = next_percent(reinterpret_cast<const unsigned char*>(text));
       *f != '\0';) {
    directive d;
    const unsigned char* next = f;
    sequential += parse_one(f, sequential, d, largest_position, next);
    result.directives.push_back(d);
    f = next;
  }
  result.argument_count = sequential > largest_position ? sequential : largest_position;
  return result;
}

}  // namespace fastout_fuzz

#endif  // FASTOUT_FUZZ_PRINTF_FORMAT_SCAN_H_
