// SPDX-License-Identifier: MIT
// What fastout's printf engine asks of the C library (printf_internal.h):
// the current locale, the directives whose text depends on it, and the
// texts of errno.
//
// The engine prints the "C" locale's numbers itself. Where the locale of
// the calling thread (LC_NUMERIC, LC_CTYPE) changes them -- a decimal point
// other than ".", digit grouping for the '\'' flag, other digits for the
// 'I' flag -- it hands that one directive, its width and precision written
// out as numbers, to the C library's snprintf, which knows the locale: the
// only C library formatter the engine calls, and only from this file (a
// test checks the other files' objects). %m's text is strerror_r()'s, in
// the locale's language, and %#m's name is glibc's strerrorname_np().
#include <cerrno>
#include <climits>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#if !defined(_WIN32)
#  include <langinfo.h>
#endif

#include "doors/printf_internal.h"

namespace fastout {
namespace detail {
namespace printf_engine {

bool decimal_point_is_dot() noexcept {
#ifdef __GLIBC__
  // The calling thread's locale (uselocale()), as glibc's printf reads it.
  const char* point = ::nl_langinfo(RADIXCHAR);
#else
  const char* point = std::localeconv()->decimal_point;
#endif
  return point != nullptr && point[0] == '.' && point[1] == '\0';
}

bool locale_groups_digits() noexcept {
#ifdef __GLIBC__
  const char* separator = ::nl_langinfo(THOUSEP);
  const char* grouping = ::nl_langinfo(__GROUPING);
#else
  const std::lconv* conventions = std::localeconv();
  const char* separator = conventions->thousands_sep;
  const char* grouping = conventions->grouping;
#endif
  // glibc groups when there is a separator and a first group size that is
  // neither 0 nor CHAR_MAX (nor negative).
  return separator != nullptr && separator[0] != '\0' && grouping != nullptr && grouping[0] > 0 &&
         grouping[0] != CHAR_MAX;
}

bool locale_digits_are_ascii() noexcept {
#ifdef __GLIBC__
  // 'I': LC_CTYPE's outdigits, ASCII in most locales.
  for (int i = 0; i < 10; ++i) {
    const char* digit = ::nl_langinfo(static_cast<nl_item>(_NL_CTYPE_OUTDIGIT0_MB + i));
    if (digit == nullptr || digit[0] != '0' + i || digit[1] != '\0') return false;
  }
#endif
  return true;
}

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

namespace {
// strerror_r is the GNU one (returning the text) or the XSI one (returning
// 0 and writing the text): either way, the text.
[[maybe_unused]] const char* strerror_result(const char* text, char*) { return text; }
[[maybe_unused]] const char* strerror_result(int error, char* buffer) {
  return error == 0 ? buffer : "Unknown error";
}
}  // namespace

const char* errno_text(int error_number, char* buffer, std::size_t size) noexcept {
  buffer[0] = '\0';
#if defined(_WIN32)
  // The C runtime's strerror_s (Windows has no strerror_r), in the same
  // shape as XSI's.
  return strerror_result(static_cast<int>(::strerror_s(buffer, size, error_number)), buffer);
#else
  return strerror_result(::strerror_r(error_number, buffer, size), buffer);
#endif
}

const char* errno_name(int error_number) noexcept {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
  return ::strerrorname_np(error_number);
#else
  (void)error_number;
  return nullptr;
#endif
}

}  // namespace printf_engine
}  // namespace detail
}  // namespace fastout
