// SPDX-License-Identifier: MIT
// What fastout's printf engine asks of the platform and the C library
// (printf_internal.h): the current locale, the directives whose text
// depends on it, and the texts of errno.
//
// The engine prints the "C" locale's numbers itself. Where the locale of
// the calling thread (LC_NUMERIC, LC_CTYPE) changes them -- a decimal point
// other than ".", digit grouping for the '\'' flag, other digits for the
// 'I' flag -- it hands that one directive, its width and precision written
// out as numbers, to the C library's snprintf, which knows the locale: the
// only C library formatter the engine calls, and only from this file (a
// test checks the other files' objects). What the locale is, %m's text (in
// the locale's language) and %#m's name are the platform's to say
// (platform_internal.h): this file knows no system.
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "doors/printf_internal.h"
#include "platform/platform_internal.h"

namespace fastout {
namespace detail {
namespace printf_engine {

bool decimal_point_is_dot() noexcept {
  const char* point = decimal_point();
  return point[0] == '.' && point[1] == '\0';
}

bool locale_groups_digits() noexcept {
  // glibc groups when there is a separator and a first group size that is
  // neither 0 nor CHAR_MAX (nor negative).
  const digit_grouping grouping = thousands_grouping();
  return grouping.separator[0] != '\0' && grouping.sizes[0] > 0 && grouping.sizes[0] != CHAR_MAX;
}

bool locale_digits_are_ascii() noexcept { return outdigits_are_ascii(); }

namespace {

// The directive's text for snprintf: "%", its flags, its width and
// precision as numbers, a length and the conversion.
std::string directive_text(std::uint16_t flags, int width, int precision, const char* length,
                           char conversion) {
  std::string text = "%";
  if (flags & flag_left) text += '-';
  if (flags & flag_showsign) text += '+';
  if (flags & flag_space) text += ' ';
  if (flags & flag_alt) text += '#';
  if ((flags & flag_pad_zero) && !(flags & flag_left)) text += '0';
  if (flags & flag_group) text += '\'';
  if (flags & flag_i18n) text += 'I';
  if (width > 0) text += std::to_string(width);
  if (precision >= 0) text += '.' + std::to_string(precision);
  text += length;
  text += conversion;
  return text;
}

#if defined(__GNUC__) || defined(__clang__)
#  pragma GCC diagnostic push
// The format is the caller's directive, rebuilt: by design.
#  pragma GCC diagnostic ignored "-Wformat-nonliteral"
#  pragma GCC diagnostic ignored "-Wformat-security"
#endif

// snprintf of one directive with one argument, appended to the output.
template <typename T>
int format_one(output& out, char*& pos, const std::string& format, T value) {
  char local[512];
  int size = std::snprintf(local, sizeof local, format.c_str(), value);
  if (size < 0) return -(errno != 0 ? errno : EOVERFLOW);
  const char* text = local;
  std::unique_ptr<char[]> large;
  if (static_cast<std::size_t>(size) >= sizeof local) {
    large.reset(new char[static_cast<std::size_t>(size) + 1]);
    std::snprintf(large.get(), static_cast<std::size_t>(size) + 1, format.c_str(), value);
    text = large.get();
  }
  pos = out.append(pos, text, static_cast<std::size_t>(size));
  return size;
}

#if defined(__GNUC__) || defined(__clang__)
#  pragma GCC diagnostic pop
#endif

}  // namespace

int locale_integer(output& out, char*& pos, const directive& d, std::uint16_t flags, int width,
                   int precision, bool negative, unsigned long long magnitude) {
  // The value is already the directive's (sign-extended or truncated): it
  // prints the same as a long long.
  if (width < 0) width = 0;
  const std::string format = directive_text(flags, width, precision, "ll", d.conversion);
  if (d.what == action::signed_number) {
    const long long value =
        negative ? static_cast<long long>(0 - magnitude) : static_cast<long long>(magnitude);
    return format_one(out, pos, format, value);
  }
  return format_one(out, pos, format, magnitude);
}

namespace {
// A floating-point directive through snprintf. glibc's second parser leaves
// the '0' flag on where a negative width from an argument turned '-' on,
// which one directive's text cannot say: then printf_fphex pads nothing,
// and printf_fp pads with zeros after the number, up to the width counted
// in characters (its decimal point and separators are one each).
template <typename T>
int locale_float(output& out, char*& pos, const float_spec& spec, const char* length, T value) {
  const int width = spec.width < 0 ? 0 : spec.width;
  // (inf and nan are padded with spaces whatever the flags.)
  const bool zeros_after =
      (spec.flags & flag_left) && (spec.flags & flag_pad_zero) && value - value == 0;
  if (!zeros_after)
    return format_one(out, pos,
                      directive_text(spec.flags, width, spec.precision, length, spec.conversion),
                      value);
  const auto flags = static_cast<std::uint16_t>(spec.flags & ~flag_pad_zero);
  char* const start = pos;
  int size = format_one(out, pos, directive_text(flags, 0, spec.precision, length, spec.conversion),
                        value);
  if (size < 0 || spec.conversion == 'a' || spec.conversion == 'A') return size;
  // The characters of what was written (contiguous unless it streamed:
  // then counted as bytes, as in the "C" locale).
  std::size_t characters = static_cast<std::size_t>(size);
  if (pos - start == size) {
    const std::string text(start, static_cast<std::size_t>(size));
    const std::size_t n = std::mbstowcs(nullptr, text.c_str(), 0);
    if (n != static_cast<std::size_t>(-1)) characters = n;
  }
  if (static_cast<std::size_t>(width) > characters) {
    const std::size_t zeros = static_cast<std::size_t>(width) - characters;
    pos = out.fill(pos, '0', zeros);
    size += static_cast<int>(zeros);
  }
  return size;
}
}  // namespace

int locale_double(output& out, char*& pos, const float_spec& spec, std::uint8_t, double value) {
  return locale_float(out, pos, spec, "", value);
}

int locale_long_double(output& out, char*& pos, const float_spec& spec, std::uint8_t,
                       long double value) {
  return locale_float(out, pos, spec, "L", value);
}

const char* errno_text(int error_number, char* buffer, std::size_t size) noexcept {
  return localized_error_text(error_number, buffer, size);
}

const char* errno_name(int error_number) noexcept { return error_symbol(error_number); }

}  // namespace printf_engine
}  // namespace detail
}  // namespace fastout
