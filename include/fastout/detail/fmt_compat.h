// SPDX-License-Identifier: MIT
// Every use of {fmt}'s internals (fmt::detail) in fastout, in one place:
// the rest of fastout uses {fmt}'s public API. fastout builds with the {fmt}
// its user brings, 9.1 to 12.x, each tested (scripts/test --fmt VERSION).
// Version by version, what it relies on:
//
// 1. fmt::detail::buffer<char>, so that fmt's growth calls fastout: a
//    virtual grow() in 9.x and 10.x, a grow function pointer from 11.0.
//    fmt_buffer<> hides the difference.
// 2. Compiled formats: the tag fmt::detail::compiled_string until 10.x,
//    fmt::compiled_string from 11.0; the compiled tree (compile, text,
//    code_unit, field, spec_field, concat, get_arg_checked), unchanged from
//    9.0 to 12.1, which fastout walks at compile time to bound a compiled
//    format's text (bounded_format.h).
// 3. A field's parsed specs (width, precision, fill size, presentation),
//    private to fmt's formatters, read by a probe type that parses the same
//    text with fmt's parse_format_specs: parsed_spec. 9.x through a
//    dynamic_specs_handler; 10.x plain fields; 11.1 and later accessors,
//    one presentation value per kind of type. 11.0 is not probed: its
//    fields with specs take fmt's buffer path, correct and only slower.
// 4. The argument type fmt maps a C++ type to (type, mapped_type_constant):
//    given a context in 9.x and 10.x, a character type from 11.0.
// 5. fmt::writer (11.1 and later), public, tested here by version only.
// 6. fmt::detail::buffer_size, the type of fmt::buffer_size = n, which
//    output_file() accepts from code that includes <fmt/os.h>.
// 7. fmt::detail::format_float, the digits of a double at a precision
//    (fixed: digits after the point; otherwise significant digits, trailing
//    zeros kept), for fastout_printf's engine (src/doors/printf_float.cpp),
//    which lays them out by printf's rules. The public API would do, but
//    {fmt} 9's float formatter carries a %a branch that calls snprintf, and
//    the engine must not. 9.x and 10.x take a float_specs (format,
//    showpoint); 11.1 and later a format_specs (type, alt) and binary32.
//    11.0 is not relied on: there the digits come from the public API.
// format_cache.h uses 1 and 4 and lists its own needs.
#ifndef FASTOUT_DETAIL_FMT_COMPAT_H_
#define FASTOUT_DETAIL_FMT_COMPAT_H_

#include <cstddef>
#include <string_view>
#include <type_traits>

// GCC 12 at -O2 warns inside {fmt}'s own writers when they are instantiated
// for a char* output, as fastout's scalar << does: -Warray-bounds in {fmt}
// 12's double writer, and in C++20 -Wstringop-overflow in {fmt} 11's
// write2digits (an "offset 4294967295" into the scalar's text). Both are
// false positives in {fmt}'s code (fmt's headers are system headers, but GCC
// reports warnings from inlined code anyway). The warning state is
// kept by source location, so this silences it in {fmt}'s code only, for
// fastout's build and for its users'.
#if defined(__GNUC__) && !defined(__clang__)
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Warray-bounds"
#  pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
#include <fmt/compile.h>
#include <fmt/format.h>
#if defined(__GNUC__) && !defined(__clang__)
#  pragma GCC diagnostic pop
#endif

#if FMT_VERSION < 90000
#  error "fastout needs {fmt} 9.1 or later"
#endif

// fmt 9 and 10 name their inline namespace v9 and v10; FMT_BEGIN_NAMESPACE
// opens the right one.
FMT_BEGIN_NAMESPACE
namespace detail {
struct buffer_size;  // <fmt/os.h>: the type of fmt::buffer_size = n
}
FMT_END_NAMESPACE

#if FMT_VERSION >= 110100
#  define FASTOUT_FMT_HAS_WRITER 1
#endif
#if (FMT_VERSION >= 90000 && FMT_VERSION < 110000) || FMT_VERSION >= 110100
#  define FASTOUT_FMT_PROBES_SPECS 1
#endif

namespace fastout {
namespace detail {

// ---------------------------------------------------------------- 1. buffer

// A fmt buffer whose growth calls Derived::on_grow(capacity). on_grow() must
// leave room for at least one more char (fmt's contract), by sending text
// away or by pointing the buffer somewhere else with set().
template <typename Derived>
class fmt_buffer : public fmt::detail::buffer<char> {
 protected:
  ~fmt_buffer() = default;  // never deleted through a base: as fmt's own buffer
#if FMT_VERSION >= 110000
  fmt_buffer(char* data, std::size_t capacity) noexcept
      : fmt::detail::buffer<char>(&grow_through, data, 0, capacity) {}

 private:
  static void grow_through(fmt::detail::buffer<char>& self, std::size_t capacity) {
    static_cast<Derived&>(self).on_grow(capacity);
  }
#else
  fmt_buffer(char* data, std::size_t capacity) noexcept
      : fmt::detail::buffer<char>(data, 0, capacity) {}

 private:
  void grow(std::size_t capacity) final { static_cast<Derived&>(*this).on_grow(capacity); }
#endif
};

// The type every fmt buffer derives from, for functions that take any.
using fmt_buffer_base = fmt::detail::buffer<char>;

// ------------------------------------------------------- 2. compiled formats

#if FMT_VERSION >= 110000
template <typename S>
using is_compiled_format_string = fmt::is_compiled_string<S>;
#else
template <typename S>
using is_compiled_format_string = fmt::detail::is_compiled_string<S>;
#endif

// The parts of fmt's compiled format tree.
using compiled_text = fmt::detail::text<char>;
using compiled_code_unit = fmt::detail::code_unit<char>;
template <typename T, int N>
using compiled_field = fmt::detail::field<char, T, N>;
template <typename T, int N>
using compiled_spec_field = fmt::detail::spec_field<char, T, N>;
template <typename L, typename R>
using compiled_concat = fmt::detail::concat<L, R>;

// The compiled tree of format S for arguments of types Args.
template <typename... Args, typename S>
constexpr auto compile_format(S format) {
  return fmt::detail::compile<Args...>(format);
}

// The N-th argument, as the compiled field of type T reads it.
template <typename T, int N, typename... A>
constexpr const T& compiled_argument(const A&... args) {
  return fmt::detail::get_arg_checked<T, N>(args...);
}

// ---------------------------------------------------------- 4. argument types

#if FMT_VERSION >= 110000
template <typename T>
constexpr fmt::detail::type fmt_type_of() {
  return fmt::detail::mapped_type_constant<T, char>::value;
}
#else
template <typename T>
constexpr fmt::detail::type fmt_type_of() {
  return fmt::detail::mapped_type_constant<T, fmt::format_context>::value;
}
#endif

// True for the types fmt formats as strings (C strings, std::string, string
// views): not for nullptr, nor for a type that converts to a string view but
// has a formatter of its own, whose text may be anything.
template <typename T>
using formats_as_string =
    std::integral_constant<bool, std::is_convertible<const T&, std::string_view>::value &&
                                     (fmt_type_of<T>() == fmt::detail::type::string_type ||
                                      fmt_type_of<T>() == fmt::detail::type::cstring_type)>;

// -------------------------------------------------------------- 3. the specs

// A field's specs as fastout reads them, the same for every fmt version.
enum class spec_type : unsigned char {
  none,
  dec,
  oct,
  hex,
  bin,
  chr,
  string,
  debug,
  pointer,
  exp,
  fixed,
  general,
  hexfloat,
  unknown
};

struct parsed_spec {
  int width = 0;
  int precision = -1;         // -1: none
  std::size_t fill_size = 1;  // bytes of the fill character (UTF-8: up to 4)
  spec_type type = spec_type::none;
  bool localized = false;  // 'L'
  bool dynamic = false;    // a width or precision taken from an argument
};

template <typename T>
struct spec_probe {};

#ifdef FASTOUT_FMT_PROBES_SPECS

constexpr spec_type to_spec_type(fmt::presentation_type type, bool floating) {
  using p = fmt::presentation_type;
#  if FMT_VERSION >= 110100
  // One value per kind of type: 'e' is 1, and so is '?'.
  if (floating) {
    switch (type) {
      case p::none: return spec_type::none;
      case p::exp: return spec_type::exp;
      case p::fixed: return spec_type::fixed;
      case p::general: return spec_type::general;
      case p::hexfloat: return spec_type::hexfloat;
      default: return spec_type::unknown;
    }
  }
  switch (type) {
    case p::none: return spec_type::none;
    case p::debug: return spec_type::debug;
    case p::string: return spec_type::string;
    case p::dec: return spec_type::dec;
    case p::hex: return spec_type::hex;
    case p::oct: return spec_type::oct;
    case p::bin: return spec_type::bin;
    case p::chr: return spec_type::chr;
    default: return spec_type::unknown;
  }
#  else
  (void)floating;
  switch (type) {
    case p::none: return spec_type::none;
    case p::dec: return spec_type::dec;
    case p::oct: return spec_type::oct;
    case p::hex_lower:
    case p::hex_upper: return spec_type::hex;
    case p::bin_lower:
    case p::bin_upper: return spec_type::bin;
    case p::hexfloat_lower:
    case p::hexfloat_upper: return spec_type::hexfloat;
    case p::exp_lower:
    case p::exp_upper: return spec_type::exp;
    case p::fixed_lower:
    case p::fixed_upper: return spec_type::fixed;
    case p::general_lower:
    case p::general_upper: return spec_type::general;
    case p::chr: return spec_type::chr;
    case p::string: return spec_type::string;
    case p::pointer: return spec_type::pointer;
    case p::debug: return spec_type::debug;
  }
  return spec_type::unknown;
#  endif
}

template <typename Specs>
constexpr parsed_spec summarize(const Specs& specs, bool floating) {
  parsed_spec result;
  result.width = specs.width;
  result.precision = specs.precision;
#  if FMT_VERSION >= 110100
  result.fill_size = specs.fill_size();
  result.type = to_spec_type(specs.type(), floating);
  result.localized = specs.localized();
  result.dynamic = specs.dynamic();
#  else
  result.fill_size = specs.fill.size();
  result.type = to_spec_type(specs.type, floating);
  result.localized = specs.localized;
  result.dynamic = specs.width_ref.kind != fmt::detail::arg_id_kind::none ||
                   specs.precision_ref.kind != fmt::detail::arg_id_kind::none;
#  endif
  return result;
}

#endif  // FASTOUT_FMT_PROBES_SPECS

// ------------------------------------------------------ 7. float digits

// Appends to `buffer` the decimal digits of `value` (finite, >= 0):
// `precision` of them after the point if `fixed`, else `precision`
// significant ones (>= 1), correctly rounded to nearest (ties to even), and
// returns the decimal exponent of the last: value ~ digits * 10^exponent.
// A fixed value that rounds to zero may give no digits, or zeros.
inline int float_digits(double value, int precision, bool fixed,
                        fmt::detail::buffer<char>& buffer) {
#if FMT_VERSION >= 110100
  fmt::format_specs specs;
  specs.set_type(fixed ? fmt::presentation_type::fixed : fmt::presentation_type::exp);
  specs.set_alt();
  return fmt::detail::format_float(value, precision, specs, false, buffer);
#elif FMT_VERSION >= 110000
  // The public API's text, read back: "d.ddde+XX", or "ddd.ddd".
  const std::size_t start = buffer.size();
  if (fixed)
    fmt::format_to(fmt::appender(buffer), "{:.{}f}", value, precision);
  else
    fmt::format_to(fmt::appender(buffer), "{:.{}e}", value, precision - 1);
  const char* text = buffer.data() + start;
  const std::size_t size = buffer.size() - start;
  std::size_t end = size;
  int exponent = 0;
  if (!fixed) {
    std::size_t e = 0;
    while (text[e] != 'e') ++e;
    for (std::size_t i = e + 2; i < size; ++i) exponent = exponent * 10 + (text[i] - '0');
    if (text[e + 1] == '-') exponent = -exponent;
    exponent -= precision - 1;
    end = e;
  } else {
    exponent = -precision;
  }
  std::size_t out = start;
  for (std::size_t i = 0; i < end; ++i)
    if (text[i] != '.') buffer.data()[out++] = text[i];
  buffer.try_resize(out);
  return exponent;
#else
  fmt::detail::float_specs specs{};
  specs.format = fixed ? fmt::detail::float_format::fixed : fmt::detail::float_format::exp;
  specs.showpoint = true;
  return fmt::detail::format_float(value, precision, specs, buffer);
#endif
}

}  // namespace detail
}  // namespace fastout

#ifdef FASTOUT_FMT_PROBES_SPECS
FMT_BEGIN_NAMESPACE
// Parses a field's specs as fmt's formatter<T> does for the built-in types,
// with fmt's own parse_format_specs, and keeps them where fastout can read
// them. It never formats (no format()): only fastout's compile-time bound
// of a compiled format uses it, in a second compilation of the same format.
template <typename T>
struct formatter<fastout::detail::spec_probe<T>, char> {
  fastout::detail::parsed_spec spec;

  template <typename ParseContext>
  constexpr auto parse(ParseContext& context) -> decltype(context.begin()) {
    auto begin = context.begin(), end = context.end();
    if (begin == end || *begin == '}') return begin;
    detail::dynamic_format_specs<char> specs;
#  if FMT_VERSION >= 100000
    begin =
        detail::parse_format_specs(begin, end, specs, context, fastout::detail::fmt_type_of<T>());
#  else
    begin = detail::parse_format_specs(begin, end,
                                       detail::dynamic_specs_handler<ParseContext>(specs, context));
#  endif
    spec = fastout::detail::summarize(specs, std::is_floating_point<T>::value);
    return begin;
  }
};
FMT_END_NAMESPACE
#endif

#endif  // FASTOUT_DETAIL_FMT_COMPAT_H_
