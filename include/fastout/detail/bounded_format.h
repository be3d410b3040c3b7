// SPDX-License-Identifier: MIT
// Text whose longest size is known before it is formatted, so that print()
// and << can check the free space once and let {fmt} write straight into
// the buffer through a char*, fmt's fastest output: scalars (<<), and
// compiled formats (FMT_COMPILE) of literal text and fields of scalars and
// strings, with specs where the {fmt} version lets fastout read them
// (fmt_compat.h, 2 and 3). An underestimate would write past the buffer, so
// every bound is generous, and anything uncertain stays unbounded.
#ifndef FASTOUT_DETAIL_BOUNDED_FORMAT_H_
#define FASTOUT_DETAIL_BOUNDED_FORMAT_H_

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include <fastout/config.h>
#include <fastout/detail/fmt_compat.h>

namespace fastout {
namespace detail {

// fastout::hex(x): an integer written as fmt's "{:x}" (<fastout/print.h>).
template <typename T>
struct hex_value {
  T value;
};

// ------------------------------------------------------- scalars for <<

template <typename T>
struct is_hex_value : std::false_type {};
template <typename T>
struct is_hex_value<hex_value<T>> : std::true_type {};

// The longest text fmt's "{}" makes for these scalars, so that the inline
// path can format straight into the buffer after one room check.
template <typename T>
constexpr std::size_t max_scalar_size() {
  if constexpr (is_hex_value<T>::value) {
    return max_scalar_size<decltype(T::value)>();
  } else if constexpr (std::is_floating_point<T>::value) {
    return 64;  // the longest double, "-2.2250738585072014e-308", is 24
  } else {
    return 2 + std::numeric_limits<T>::digits;  // binary digits and a sign would fit
  }
}

template <typename T>
using is_fast_scalar =
    std::integral_constant<bool, (std::is_integral<T>::value && !std::is_same<T, bool>::value &&
                                  !std::is_same<T, char>::value) ||
                                     std::is_same<T, float>::value ||
                                     std::is_same<T, double>::value>;

template <typename T>
FASTOUT_ALWAYS_INLINE char* format_scalar(char* out, T value) {
  return fmt::format_to(out, FMT_COMPILE("{}"), value);
}
template <typename T>
FASTOUT_ALWAYS_INLINE char* format_scalar(char* out, hex_value<T> hex) {
  return fmt::format_to(out, FMT_COMPILE("{:x}"), hex.value);
}

// ------------------------------------------- bounds of compiled formats

// A bound is -1 when there is none; a sum of bounds must not wrap around to
// a small one.
constexpr std::size_t add_bounds(std::size_t a, std::size_t b) noexcept {
  return a + b < a ? static_cast<std::size_t>(-1) : a + b;
}
constexpr std::size_t multiply_bounds(std::size_t count, std::size_t each) noexcept {
  return each != 0 && count > static_cast<std::size_t>(-1) / each ? static_cast<std::size_t>(-1)
                                                                  : count * each;
}

// fmt's runtime error for a null C string. Its compiled formats crash on one
// instead in some versions (9.1 with specs, 10.2 for nullptr, 11 and 12 for
// a plain "{}"): a bounded compiled format throws this before writing.
[[noreturn]] FASTOUT_NOINLINE inline void throw_null_string() {
  throw fmt::format_error("string pointer is null");
}

// The length of a string argument.
template <typename T>
std::size_t string_size(const T& text) {
  if constexpr (std::is_pointer<T>::value) {
    if (text == nullptr) throw_null_string();
  }
  if constexpr (std::is_same<T, fmt::string_view>::value) {
    return text.size();
  } else {
    return std::string_view(text).size();
  }
}

// An argument as print() of a bounded compiled format hands it to
// fmt::format_to: a copy of a scalar, pointer or view, a char array as a
// pointer, and a std::string as a std::string_view. fmt writes the same text
// for each. The caller's own argument then never has its address taken, so
// the compiler keeps it in a register, where fmt's char* writes, which may
// alias any memory, cannot change it (docs/benchmarks.md, "Why the hot path
// is what it is").
template <typename... T>
struct copies_cheaply
    : std::conjunction<std::disjunction<
          std::is_same<T, std::string>, std::is_array<T>,
          std::bool_constant<std::is_trivially_copyable<T>::value && sizeof(T) <= 16>>...> {};

template <typename T>
FASTOUT_ALWAYS_INLINE auto fast_argument(const T& value) {
  if constexpr (std::is_same<T, std::string>::value) {
    return std::string_view(value);
  } else if constexpr (std::is_array<T>::value) {
    return static_cast<const std::remove_extent_t<T>*>(value);
  } else {
    return value;
  }
}

// The longest text a compiled format can make with these arguments, when it
// can be known before formatting. Then print(FMT_COMPILE(...)) checks the
// free space once and lets fmt write straight into the buffer through a
// char*, fmt's fastest output, instead of through a print_buffer. An
// underestimate would write past the buffer, so every bound is generous and
// anything uncertain stays unknown.
//
// For each part of fmt's compiled format (fmt_compat.h, 2): known(), and the
// bound in two halves, so that most of it is worked out by the compiler:
// constant_size(), the same for every call, and argument_size(), what
// depends on the values (a string's length).
template <typename Part>
struct compiled_size {
  static constexpr bool known(const Part&) { return false; }
};
template <>
struct compiled_size<compiled_text> {
  static constexpr bool known(const compiled_text&) { return true; }
  static constexpr std::size_t constant_size(const compiled_text& part) { return part.data.size(); }
  template <typename... A>
  static std::size_t argument_size(const compiled_text&, const A&...) {
    return 0;
  }
};
template <>
struct compiled_size<compiled_code_unit> {
  static constexpr bool known(const compiled_code_unit&) { return true; }
  static constexpr std::size_t constant_size(const compiled_code_unit&) { return 1; }
  template <typename... A>
  static std::size_t argument_size(const compiled_code_unit&, const A&...) {
    return 0;
  }
};
// The part is empty: the functions take any, so that the probe's plain
// fields (below) can share them.
template <typename T, int N>
struct compiled_size<compiled_field<T, N>> {
  static constexpr bool is_string = formats_as_string<T>::value;
  template <typename Field>
  static constexpr bool known(const Field&) {
    return is_fast_scalar<T>::value || is_string || std::is_same<T, bool>::value ||
           std::is_same<T, char>::value;
  }
  template <typename Field>
  static constexpr std::size_t constant_size(const Field&) {
    if constexpr (is_string) {
      return 0;
    } else if constexpr (std::is_same<T, bool>::value) {
      return 5;  // "false"
    } else if constexpr (std::is_same<T, char>::value) {
      return 1;
    } else {
      return max_scalar_size<T>();
    }
  }
  template <typename Field, typename... A>
  static std::size_t argument_size(const Field&, const A&... args) {
    if constexpr (is_string) {
      return string_size(compiled_argument<T, N>(args...));
    } else {
      return 0;
    }
  }
};
// A nullptr in a compiled format is fmt's "string pointer is null".
template <int N>
struct compiled_size<compiled_field<std::nullptr_t, N>> {
  template <typename Field>
  static constexpr bool known(const Field&) {
    return true;
  }
  template <typename Field>
  static constexpr std::size_t constant_size(const Field&) {
    return 0;
  }
  template <typename Field, typename... A>
  static std::size_t argument_size(const Field&, const A&...) {
    throw_null_string();
  }
};
template <typename L, typename R>
struct compiled_size<compiled_concat<L, R>> {
  static constexpr bool known(const compiled_concat<L, R>& parts) {
    return compiled_size<L>::known(parts.lhs) && compiled_size<R>::known(parts.rhs);
  }
  static constexpr std::size_t constant_size(const compiled_concat<L, R>& parts) {
    return add_bounds(compiled_size<L>::constant_size(parts.lhs),
                      compiled_size<R>::constant_size(parts.rhs));
  }
  template <typename... A>
  static std::size_t argument_size(const compiled_concat<L, R>& parts, const A&... args) {
    return add_bounds(compiled_size<L>::argument_size(parts.lhs, args...),
                      compiled_size<R>::argument_size(parts.rhs, args...));
  }
};

#ifdef FASTOUT_FMT_PROBES_SPECS
// Fields with specs. fmt compiles "{:.2f}" to a spec_field holding the
// formatter<T> that parsed ".2f", which keeps the parsed specs private. So
// bounded_format compiles the format a second time, at compile time, with
// each argument type fastout can bound replaced by spec_probe<T>, whose
// formatter (fmt_compat.h, 3) parses the same text with the same fmt
// function and keeps the specs. The walk over the format string is fmt's own
// in both compilations, so the probe's tree has the same parts in the same
// places; the real compilation still does the formatting, and reports any
// format error.

// How fmt writes a value of T with specs; `none` for the types fastout does
// not bound (long double, pointers, user types, ...), which are not probed.
enum class spec_kind { none, integer, boolean, character, floating, string };

template <typename T, typename... U>
using is_one_of = std::disjunction<std::is_same<T, U>...>;

template <typename T>
constexpr spec_kind spec_kind_of() {
  if constexpr (std::is_same<T, bool>::value) {
    return spec_kind::boolean;
  } else if constexpr (std::is_same<T, char>::value) {
    return spec_kind::character;
  } else if constexpr (is_one_of<T, signed char, unsigned char, short, unsigned short, int,
                                 unsigned, long, unsigned long, long long,
                                 unsigned long long>::value) {
    return spec_kind::integer;
  } else if constexpr (is_one_of<T, float, double>::value) {
    return spec_kind::floating;
  } else if constexpr (is_one_of<T, std::string, std::string_view, fmt::string_view, const char*,
                                 char*>::value ||
                       (std::is_array<T>::value &&
                        std::is_same<std::remove_extent_t<T>, char>::value)) {
    return spec_kind::string;
  } else {
    return spec_kind::none;
  }
}

template <typename T>
using bound_probe = std::conditional_t<spec_kind_of<fmt::remove_cvref_t<T>>() != spec_kind::none,
                                       spec_probe<fmt::remove_cvref_t<T>>, T>;

// The presentations fmt writes as an integer (or, for 'c', one char).
constexpr bool is_integer_presentation(spec_type type) {
  return type == spec_type::none || type == spec_type::dec || type == spec_type::oct ||
         type == spec_type::hex || type == spec_type::bin || type == spec_type::chr;
}
constexpr bool is_float_presentation(spec_type type) {
  return type == spec_type::none || type == spec_type::general || type == spec_type::exp ||
         type == spec_type::fixed || type == spec_type::hexfloat;
}

template <typename T>
constexpr bool spec_is_bounded(const parsed_spec& spec) {
  constexpr spec_kind kind = spec_kind_of<T>();
  // A width or precision taken from an argument, and the locale's digits,
  // separators and decimal point ('L') are known only when formatting.
  if (spec.dynamic || spec.localized || spec.width < 0 || spec.precision < -1) return false;
  if constexpr (kind == spec_kind::integer) {
    return is_integer_presentation(spec.type);
  } else if constexpr (kind == spec_kind::boolean) {
    return spec.type == spec_type::string || is_integer_presentation(spec.type);
  } else if constexpr (kind == spec_kind::character) {
    return is_integer_presentation(spec.type);  // not '?': escapes may be longer
  } else if constexpr (kind == spec_kind::floating) {
    return is_float_presentation(spec.type);
  } else if constexpr (kind == spec_kind::string) {
    return spec.type == spec_type::none || spec.type == spec_type::string;  // not '?' either
  } else {
    return false;
  }
}

// An integer as fmt writes it with specs: a sign and a "0x" or "0b" prefix
// (octal's '0' is shorter), then the digits -- binary has the most. fmt
// rejects a precision for integers, but its writer would pad to one.
constexpr std::size_t integer_size(std::size_t bits, std::size_t precision) {
  return add_bounds(3, precision > bits ? precision : bits);
}

// The constant part of a field's bound. Padding is at most `width` fill
// characters of fill_size bytes (up to 4: UTF-8), or one-byte '0's; then
// the value itself, at most:
//   integers  integer_size() of their bits ('c': one char)
//   bool      "false", or integer_size() of an int
//   char      one char, or integer_size() of an int
//   strings   their length: argument_size()
//   floating  'e': a sign, precision + 1 digits, a point, "e+308": p + 8
//             'g', or no type with a precision: as 'e' with p digits, or
//               fixed notation: a sign, "0.000" and p digits, p + 6
//             no type, no precision: the shortest round trip, 17 digits, a
//               sign, a point and "e-308" (or "0.000"): 25
//             'a' (snprintf's %a): a sign, "0x1.", max(p, 13) hex digits,
//               "p-1074": p + 11
//             'f': a sign, a point and p digits, p + 2, and the integral
//               part: argument_size(), as it can have 309 digits
//             nan, inf: a sign and 3
// (fmt's default precision is 6 for 'e', 'f' and 'g', 0 means 1 for 'g'),
// and 16 bytes of slack against an off-by-one in this reading of fmt's
// writers, which have not changed in this from 9.1 to 12.1.
template <typename T>
constexpr std::size_t spec_constant_size(const parsed_spec& spec) {
  constexpr spec_kind kind = spec_kind_of<T>();
  constexpr std::size_t slack = 16;
  constexpr auto int_bits = static_cast<std::size_t>(std::numeric_limits<unsigned>::digits);
  const std::size_t padding = multiply_bounds(static_cast<std::size_t>(spec.width), spec.fill_size);
  const bool has_precision = spec.precision >= 0;
  const std::size_t precision = has_precision ? static_cast<std::size_t>(spec.precision) : 0;
  std::size_t value = 0;
  if constexpr (kind == spec_kind::integer) {
    constexpr auto bits =
        static_cast<std::size_t>(std::numeric_limits<std::make_unsigned_t<T>>::digits);
    value = integer_size(bits, precision);
  } else if constexpr (kind == spec_kind::boolean) {
    value = spec.type == spec_type::none || spec.type == spec_type::string
                ? 5
                : integer_size(int_bits, precision);
  } else if constexpr (kind == spec_kind::character) {
    value = spec.type == spec_type::none || spec.type == spec_type::chr
                ? 1
                : integer_size(int_bits, precision);
  } else if constexpr (kind == spec_kind::floating) {
    if (spec.type == spec_type::none && !has_precision) {
      value = 25;
    } else if (spec.type == spec_type::hexfloat) {
      value = add_bounds(precision > 13 ? precision : 13, 11);
    } else {
      value = add_bounds(has_precision ? precision : 6, 8);
    }
  }
  return add_bounds(padding, add_bounds(value, slack));
}

template <typename T, int N>
struct compiled_size<compiled_field<spec_probe<T>, N>> : compiled_size<compiled_field<T, N>> {};

template <typename T, int N>
struct compiled_size<compiled_spec_field<spec_probe<T>, N>> {
  using part = compiled_spec_field<spec_probe<T>, N>;
  static constexpr spec_kind kind = spec_kind_of<T>();

  static constexpr bool known(const part& field) { return spec_is_bounded<T>(field.fmt.spec); }
  static constexpr std::size_t constant_size(const part& field) {
    return spec_constant_size<T>(field.fmt.spec);
  }
  template <typename... A>
  static std::size_t argument_size(const part& field, const A&... args) {
    if constexpr (kind == spec_kind::string) {
      // A precision only shortens it; it counts code points, not bytes.
      return string_size(compiled_argument<T, N>(args...));
    } else if constexpr (kind == spec_kind::floating) {
      if (field.fmt.spec.type != spec_type::fixed) return 0;
      // The integral part: 15 digits below 1e15, 16 if the rounding carries;
      // up to 309 for a double (39 for a float). NaN compares false: it
      // takes the large bound, and is 3 chars.
      const double value = static_cast<double>(compiled_argument<T, N>(args...));
      constexpr auto widest = static_cast<std::size_t>(std::numeric_limits<T>::max_exponent10 + 2);
      return value < 1e15 && value > -1e15 ? 16 : widest;
    } else {
      return 0;
    }
  }
};
#else
template <typename T>
using bound_probe = T;
#endif

template <typename S, typename... T>
struct bounded_format {
  static constexpr auto compiled = compile_format<bound_probe<T>...>(S());
  using compiled_type = fmt::remove_cvref_t<decltype(compiled)>;
  static constexpr bool value = compiled_size<compiled_type>::known(compiled);
  template <typename... A>
  static std::size_t max_size(const A&... args) {
    constexpr std::size_t constant = compiled_size<compiled_type>::constant_size(compiled);
    return add_bounds(constant, compiled_size<compiled_type>::argument_size(compiled, args...));
  }
};

}  // namespace detail
}  // namespace fastout

#endif  // FASTOUT_DETAIL_BOUNDED_FORMAT_H_
