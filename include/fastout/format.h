// fastout formatting: {fmt} format strings, compiled formats and scalar
// output, written straight into a fastout::file's buffer.
//
// There is no formatter of our own here: the text is {fmt}'s. What this adds
// is the path into the file: fmt writes into the free space of the writer's
// buffer through a fmt::detail::buffer whose grow() is the only way out of
// line, with no temporary string and no heap allocation, whatever the size.
//
// A formatted piece is never split across a flush unless it is larger than
// the whole buffer. If it does not fit in the free space, the older text is
// sent and the piece moves to the front of the buffer. If it is larger than
// the buffer, the rest of the first pass is discarded -- fmt still checks the
// whole format, so a format error throws before anything of the piece is
// written -- and a second pass streams it through the buffer.
#ifndef FASTOUT_FORMAT_H_
#define FASTOUT_FORMAT_H_

#include <fastout/file.h>

#include <limits>
#include <tuple>
#include <utility>

namespace fastout {

/// Writes an integer as hexadecimal digits, as fmt's "{:x}": `out << hex(255)`
/// writes "ff".
template <typename T>
constexpr detail::hex_value<T> hex(T value) noexcept {
  static_assert(std::is_integral<T>::value, "fastout::hex takes an integer");
  return detail::hex_value<T>{value};
}

namespace detail {

template <typename T>
struct hex_value {
  T value;
};

// fmt's buffer over the free space of a writer: the first pass of a print.
// Its grow() (src/format.cpp) sends older text to make room, or, when the
// piece alone is larger than the buffer, switches to discarding into
// scratch_ so fmt can finish checking the format.
class FASTOUT_API print_buffer final : public fmt::detail::buffer<char> {
 public:
  FASTOUT_ALWAYS_INLINE print_buffer(file& f, char* end) noexcept
      : buffer<char>(f.state_.pos, 0, static_cast<std::size_t>(end - f.state_.pos)), file_(&f) {}
  print_buffer(const print_buffer&) = delete;
  print_buffer& operator=(const print_buffer&) = delete;
  ~print_buffer() = default;

  // True if the piece turned out larger than the whole buffer: nothing of it
  // is in the buffer, and the format was checked to the end.
  bool overflowed() const noexcept { return overflowed_; }

 private:
  void grow(std::size_t capacity) override;

  file* file_;
  bool overflowed_ = false;
  char scratch_[64];
};

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
using is_fast_scalar = std::integral_constant<
    bool, (std::is_integral<T>::value && !std::is_same<T, bool>::value &&
           !std::is_same<T, char>::value) ||
              std::is_same<T, float>::value || std::is_same<T, double>::value>;

template <typename T>
FASTOUT_ALWAYS_INLINE char* format_scalar(char* out, T value) {
  return fmt::format_to(out, FMT_COMPILE("{}"), value);
}
template <typename T>
FASTOUT_ALWAYS_INLINE char* format_scalar(char* out, hex_value<T> hex) {
  return fmt::format_to(out, FMT_COMPILE("{:x}"), hex.value);
}

// True for the types fmt formats as strings (C strings, std::string, string
// views): not for nullptr, nor for a type that converts to a string view but
// has a formatter of its own, whose text may be anything.
template <typename T>
using formats_as_string = std::integral_constant<
    bool, std::is_convertible<const T&, std::string_view>::value &&
              (fmt::detail::mapped_type_constant<T, fmt::format_context>::value ==
                   fmt::detail::type::string_type ||
               fmt::detail::mapped_type_constant<T, fmt::format_context>::value ==
                   fmt::detail::type::cstring_type)>;

// A bound is -1 when there is none; a sum of bounds must not wrap around to
// a small one.
constexpr std::size_t add_bounds(std::size_t a, std::size_t b) noexcept {
  return a + b < a ? static_cast<std::size_t>(-1) : a + b;
}
constexpr std::size_t multiply_bounds(std::size_t count, std::size_t each) noexcept {
  return each != 0 && count > static_cast<std::size_t>(-1) / each ? static_cast<std::size_t>(-1)
                                                                  : count * each;
}

// The length of a string argument; no bound for a null C string, so that
// fmt's own path reports the error.
template <typename T>
std::size_t string_size(const T& text) {
  if constexpr (std::is_pointer<T>::value) {
    if (text == nullptr) return static_cast<std::size_t>(-1);
  }
  if constexpr (std::is_same<T, fmt::string_view>::value) {
    return text.size();
  } else {
    return std::string_view(text).size();
  }
}

// The longest text a compiled format can make with these arguments, when it
// can be known before formatting: literal text, "{}" fields of scalars and
// strings, and with fmt 9 most fields with specs of those (below). Then
// print(FMT_COMPILE(...)) checks the free space once and lets fmt write
// straight into the buffer through a char*, fmt's fastest output, instead
// of through a fmt::detail::buffer. An underestimate would write past the
// buffer, so every bound is generous and anything uncertain stays unknown.
//
// For each part of fmt's compiled format (fmt::detail::compile's tree):
// known(), and the bound in two halves, so that most of it is worked out by
// the compiler: constant_size(), the same for every call, and
// argument_size(), what depends on the values (a string's length).
template <typename Part>
struct compiled_size {
  static constexpr bool known(const Part&) { return false; }
};
template <>
struct compiled_size<fmt::detail::text<char>> {
  static constexpr bool known(const fmt::detail::text<char>&) { return true; }
  static constexpr std::size_t constant_size(const fmt::detail::text<char>& part) {
    return part.data.size();
  }
  template <typename... A>
  static std::size_t argument_size(const fmt::detail::text<char>&, const A&...) {
    return 0;
  }
};
template <>
struct compiled_size<fmt::detail::code_unit<char>> {
  static constexpr bool known(const fmt::detail::code_unit<char>&) { return true; }
  static constexpr std::size_t constant_size(const fmt::detail::code_unit<char>&) { return 1; }
  template <typename... A>
  static std::size_t argument_size(const fmt::detail::code_unit<char>&, const A&...) {
    return 0;
  }
};
// The part is empty: the functions take any, so that the probe's plain
// fields (below) can share them.
template <typename T, int N>
struct compiled_size<fmt::detail::field<char, T, N>> {
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
      return string_size(fmt::detail::get_arg_checked<T, N>(args...));
    } else {
      return 0;
    }
  }
};
template <typename L, typename R>
struct compiled_size<fmt::detail::concat<L, R>> {
  static constexpr bool known(const fmt::detail::concat<L, R>& parts) {
    return compiled_size<L>::known(parts.lhs) && compiled_size<R>::known(parts.rhs);
  }
  static constexpr std::size_t constant_size(const fmt::detail::concat<L, R>& parts) {
    return add_bounds(compiled_size<L>::constant_size(parts.lhs),
                      compiled_size<R>::constant_size(parts.rhs));
  }
  template <typename... A>
  static std::size_t argument_size(const fmt::detail::concat<L, R>& parts, const A&... args) {
    return add_bounds(compiled_size<L>::argument_size(parts.lhs, args...),
                      compiled_size<R>::argument_size(parts.rhs, args...));
  }
};

#if FMT_VERSION >= 90000 && FMT_VERSION < 100000
#  define FASTOUT_BOUNDED_SPECS 1
// Fields with specs. fmt compiles "{:.2f}" to a spec_field holding the
// formatter<T> that parsed ".2f", but in fmt 9 that formatter keeps the
// parsed specs private. So bounded_format compiles the format a second time,
// at compile time, with each argument type fastout can bound replaced by
// spec_probe<T>, whose formatter parses the same text with the same fmt
// function (parse_format_specs, as formatter<T>::parse does) and keeps the
// specs public. The walk over the format string is fmt's own in both
// compilations, so the probe's tree has the same parts in the same places;
// the real compilation still does the formatting, and reports any format
// error. This uses fmt 9's internals (the compiled parts,
// dynamic_specs_handler, dynamic_format_specs): with other fmt versions a
// field with specs stays unknown and takes fmt::detail::buffer.
template <typename T>
struct spec_probe {};

}  // namespace detail
}  // namespace fastout

namespace fmt {
// Parses as fmt 9's formatter<T>::parse for the built-in types, without its
// checks (the real compilation makes them), and keeps the specs public.
// Never formats: no format().
template <typename T>
struct formatter<fastout::detail::spec_probe<T>, char> {
  detail::dynamic_format_specs<char> specs;

  template <typename ParseContext>
  constexpr auto parse(ParseContext& context) -> decltype(context.begin()) {
    auto begin = context.begin(), end = context.end();
    if (begin == end) return begin;
    return detail::parse_format_specs(begin, end,
                                      detail::dynamic_specs_handler<ParseContext>(specs, context));
  }
};
}  // namespace fmt

namespace fastout {
namespace detail {

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

using parsed_specs = fmt::detail::dynamic_format_specs<char>;

// The presentations fmt writes as an integer (or, for 'c', one char).
constexpr bool is_integer_presentation(fmt::presentation_type type) {
  using p = fmt::presentation_type;
  return type == p::none || type == p::dec || type == p::oct || type == p::hex_lower ||
         type == p::hex_upper || type == p::bin_lower || type == p::bin_upper || type == p::chr;
}
constexpr bool is_float_presentation(fmt::presentation_type type) {
  using p = fmt::presentation_type;
  return type == p::none || type == p::general_lower || type == p::general_upper ||
         type == p::exp_lower || type == p::exp_upper || type == p::fixed_lower ||
         type == p::fixed_upper || type == p::hexfloat_lower || type == p::hexfloat_upper;
}
constexpr bool is_fixed_presentation(fmt::presentation_type type) {
  return type == fmt::presentation_type::fixed_lower || type == fmt::presentation_type::fixed_upper;
}

template <typename T>
constexpr bool spec_is_bounded(const parsed_specs& specs) {
  using p = fmt::presentation_type;
  constexpr spec_kind kind = spec_kind_of<T>();
  // A width or precision taken from an argument, and the locale's digits,
  // separators and decimal point ('L') are known only when formatting.
  if (specs.width_ref.kind != fmt::detail::arg_id_kind::none ||
      specs.precision_ref.kind != fmt::detail::arg_id_kind::none || specs.localized ||
      specs.width < 0 || specs.precision < -1) {
    return false;
  }
  if constexpr (kind == spec_kind::integer) {
    return is_integer_presentation(specs.type);
  } else if constexpr (kind == spec_kind::boolean) {
    return specs.type == p::string || is_integer_presentation(specs.type);
  } else if constexpr (kind == spec_kind::character) {
    return is_integer_presentation(specs.type);  // not '?': escapes may be longer
  } else if constexpr (kind == spec_kind::floating) {
    return is_float_presentation(specs.type);
  } else if constexpr (kind == spec_kind::string) {
    return specs.type == p::none || specs.type == p::string;  // not '?' either
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
// characters of fill.size() bytes (up to 4: UTF-8), or one-byte '0's; then
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
// and 16 bytes of slack against an off-by-one in this reading of fmt 9's
// writers.
template <typename T>
constexpr std::size_t spec_constant_size(const parsed_specs& specs) {
  using p = fmt::presentation_type;
  constexpr spec_kind kind = spec_kind_of<T>();
  constexpr std::size_t slack = 16;
  constexpr auto int_bits = static_cast<std::size_t>(std::numeric_limits<unsigned>::digits);
  const std::size_t padding =
      multiply_bounds(static_cast<std::size_t>(specs.width), specs.fill.size());
  const bool has_precision = specs.precision >= 0;
  const std::size_t precision = has_precision ? static_cast<std::size_t>(specs.precision) : 0;
  std::size_t value = 0;
  if constexpr (kind == spec_kind::integer) {
    constexpr auto bits =
        static_cast<std::size_t>(std::numeric_limits<std::make_unsigned_t<T>>::digits);
    value = integer_size(bits, precision);
  } else if constexpr (kind == spec_kind::boolean) {
    value = specs.type == p::none || specs.type == p::string ? 5 : integer_size(int_bits, precision);
  } else if constexpr (kind == spec_kind::character) {
    value = specs.type == p::none || specs.type == p::chr ? 1 : integer_size(int_bits, precision);
  } else if constexpr (kind == spec_kind::floating) {
    if (specs.type == p::none && !has_precision) {
      value = 25;
    } else if (specs.type == p::hexfloat_lower || specs.type == p::hexfloat_upper) {
      value = add_bounds(precision > 13 ? precision : 13, 11);
    } else {
      value = add_bounds(has_precision ? precision : 6, 8);
    }
  }
  return add_bounds(padding, add_bounds(value, slack));
}

template <typename T, int N>
struct compiled_size<fmt::detail::field<char, spec_probe<T>, N>>
    : compiled_size<fmt::detail::field<char, T, N>> {};

template <typename T, int N>
struct compiled_size<fmt::detail::spec_field<char, spec_probe<T>, N>> {
  using part = fmt::detail::spec_field<char, spec_probe<T>, N>;
  static constexpr spec_kind kind = spec_kind_of<T>();

  static constexpr bool known(const part& field) { return spec_is_bounded<T>(field.fmt.specs); }
  static constexpr std::size_t constant_size(const part& field) {
    return spec_constant_size<T>(field.fmt.specs);
  }
  template <typename... A>
  static std::size_t argument_size(const part& field, const A&... args) {
    if constexpr (kind == spec_kind::string) {
      // A precision only shortens it; it counts code points, not bytes.
      return string_size(fmt::detail::get_arg_checked<T, N>(args...));
    } else if constexpr (kind == spec_kind::floating) {
      if (!is_fixed_presentation(field.fmt.specs.type)) return 0;
      // The integral part: 15 digits below 1e15, 16 if the rounding carries;
      // up to 309 for a double (39 for a float). NaN compares false: it
      // takes the large bound, and is 3 chars.
      const double value = static_cast<double>(fmt::detail::get_arg_checked<T, N>(args...));
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
  static constexpr auto compiled = fmt::detail::compile<bound_probe<T>...>(S());
  using compiled_type = fmt::remove_cvref_t<decltype(compiled)>;
  static constexpr bool value = compiled_size<compiled_type>::known(compiled);
  template <typename... A>
  static std::size_t max_size(const A&... args) {
    constexpr std::size_t constant = compiled_size<compiled_type>::constant_size(compiled);
    return add_bounds(constant, compiled_size<compiled_type>::argument_size(compiled, args...));
  }
};

#if FMT_VERSION >= 90000 && FMT_VERSION < 100000
#  define FASTOUT_STATIC_DISPATCH 1
// Runtime format strings, faster: fmt's own runtime formatting
// (fmt::detail::vformat_to in fmt/format.h) with two changes. An argument of
// a built-in type is formatted through its static type instead of a
// type-erased fmt::basic_format_arg; and the parsed format -- literal text,
// fields and their parsed specs -- is remembered per thread for each list of
// argument types, so that the next call with the same format string only
// compares it and replays. Parsing, specs, writers and errors are all fmt's,
// so the text is the same. This uses fmt 9's internals; other fmt versions
// take fmt::vformat_to.

// One parsed format string. Trivial, so a thread_local costs no guard.
struct format_plan {
  static constexpr std::size_t max_format_size = 64;
  static constexpr std::size_t max_segments = 8;
  enum kind : unsigned char { text, field, field_with_specs };
  struct segment {
    kind what;
    unsigned char arg;
    unsigned short offset, size;  // of a text segment, in the format string
    fmt::basic_format_specs<char> specs;
  };
  // The format string the plan was made for; a size of -1 matches none.
  std::size_t format_size;
  char format[max_format_size];
  std::size_t segment_count;
  segment segments[max_segments];
};

// Copies short literal text inline ("\n", ", ") rather than through fmt's
// append and a memcpy call.
FASTOUT_ALWAYS_INLINE void append_text(fmt::detail::buffer<char>& out, const char* begin,
                                       std::size_t size) {
  std::size_t used = out.size();
  if (size <= 16 && out.capacity() - used >= size) {
    char* to = out.data() + used;
    for (std::size_t i = 0; i < size; ++i) to[i] = begin[i];
    out.try_resize(used + size);
    return;
  }
  out.append(begin, begin + size);
}

template <typename... T>
class static_formatter {
 public:
  static_formatter(fmt::detail::buffer<char>& out, fmt::format_args format_args,
                   const T&... args)
      : out_(out), context_(fmt::appender(out), format_args), args_(args...) {}

  // Replays a plan made by record().
  FASTOUT_ALWAYS_INLINE void replay(const format_plan& plan) {
    for (std::size_t i = 0; i < plan.segment_count; ++i) {
      const format_plan::segment& s = plan.segments[i];
      switch (s.what) {
        case format_plan::text:
          append_text(out_, plan.format + s.offset, s.size);
          break;
        case format_plan::field:
          visit_builtin(s.arg, [&](auto value) { write_default(value); });
          break;
        case format_plan::field_with_specs:
          visit_builtin(s.arg, [&](auto value) { write_with_specs(value, s.specs); });
          break;
      }
    }
  }

  // Formats by fmt's parser; records a plan into `plan` when the format can
  // be replayed (short enough, no user-defined types, no dynamic width).
  void record(fmt::string_view format, format_plan* plan) {
    plan_ = plan;
    if (plan_ != nullptr) {
      plan_->format_size = static_cast<std::size_t>(-1);  // matches nothing until done
      plan_->segment_count = 0;
      if (format.size() > format_plan::max_format_size) plan_ = nullptr;
    }
    format_begin_ = format.data();
    fmt::detail::parse_format_string<false>(format, handler(*this, format));
    if (plan_ != nullptr) {
      // An empty format may have no storage: memcpy must not see its null.
      if (format.size() != 0) std::memcpy(plan_->format, format.data(), format.size());
      plan_->format_size = format.size();  // last: a throw above leaves no plan
    }
  }

 private:
  // The handler fmt's parse_format_string() calls.
  struct handler : fmt::detail::error_handler {
    handler(static_formatter& formatter, fmt::string_view format)
        : self(formatter), parse_context(format) {}
    static_formatter& self;
    fmt::format_parse_context parse_context;

    void on_text(const char* begin, const char* end) {
      std::size_t size = static_cast<std::size_t>(end - begin);
      if (size == 0) return;
      append_text(self.out_, begin, size);
      if (format_plan::segment* s = self.add_segment(format_plan::text, 0)) {
        s->offset = static_cast<unsigned short>(begin - self.format_begin_);
        s->size = static_cast<unsigned short>(size);
      }
    }
    int on_arg_id() { return parse_context.next_arg_id(); }
    int on_arg_id(int id) {
      parse_context.check_arg_id(id);
      return id;
    }
    int on_arg_id(fmt::string_view name) {
      // The position a name stands for is the caller's, and differs between
      // calls with the same argument types: never part of a plan.
      self.plan_ = nullptr;
      int id = self.context_.arg_id(name);
      if (id < 0) on_error("argument not found");
      return id;
    }

    void on_replacement_field(int id, const char*) {
      if (self.visit_builtin(id, [&](auto value) { self.write_default(value); })) {
        self.add_segment(format_plan::field, id);
        return;
      }
      self.plan_ = nullptr;  // a user-defined type: fmt's own path
      auto& context = self.context_;
      context.advance_to(fmt::visit_format_arg(
          fmt::detail::default_arg_formatter<char>{context.out(), context.args(),
                                                   context.locale()},
          fmt::detail::get_arg(context, id)));
    }

    const char* on_format_specs(int id, const char* begin, const char* end) {
      auto& context = self.context_;
      fmt::detail::type arg_type = fmt::detail::type::custom_type;
      self.visit_builtin(id, [&](auto value) {
        arg_type = fmt::detail::mapped_type_constant<decltype(value), fmt::format_context>::value;
      });
      if (arg_type == fmt::detail::type::custom_type) {
        self.plan_ = nullptr;
        auto arg = fmt::detail::get_arg(context, id);
        parse_context.advance_to(parse_context.begin() + (begin - &*parse_context.begin()));
        fmt::visit_format_arg(fmt::detail::custom_formatter<char>{parse_context, context}, arg);
        return parse_context.begin();
      }
      const char* specs_begin = begin;
      auto specs = fmt::basic_format_specs<char>();
      fmt::detail::specs_checker<fmt::detail::specs_handler<char>> checker(
          fmt::detail::specs_handler<char>(specs, parse_context, context), arg_type);
      begin = fmt::detail::parse_format_specs(begin, end, checker);
      if (begin == end || *begin != '}') on_error("missing '}' in format string");
      self.visit_builtin(id, [&](auto value) { self.write_with_specs(value, specs); });
      // A width or precision taken from an argument differs per call.
      if (std::memchr(specs_begin, '{', static_cast<std::size_t>(begin - specs_begin)) != nullptr)
        self.plan_ = nullptr;
      if (format_plan::segment* s = self.add_segment(format_plan::field_with_specs, id))
        s->specs = specs;
      return begin;
    }
  };

  format_plan::segment* add_segment(format_plan::kind what, int arg) {
    if (plan_ == nullptr) return nullptr;
    if (plan_->segment_count == format_plan::max_segments) {
      plan_ = nullptr;
      return nullptr;
    }
    format_plan::segment* s = &plan_->segments[plan_->segment_count++];
    s->what = what;
    s->arg = static_cast<unsigned char>(arg);
    return s;
  }

  template <typename V>
  FASTOUT_ALWAYS_INLINE void write_default(V value) {
    context_.advance_to(fmt::detail::write<char>(context_.out(), value));
  }
  template <typename V>
  FASTOUT_ALWAYS_INLINE void write_with_specs(V value, const fmt::basic_format_specs<char>& specs) {
    context_.advance_to(
        fmt::detail::arg_formatter<char>{context_.out(), specs, context_.locale()}(value));
  }

  // Calls f with the id-th argument as fmt maps it (long -> long long,
  // std::string -> string_view, ...) if that is a built-in type; returns
  // false for a user-defined type or an id out of range.
  template <typename F>
  FASTOUT_ALWAYS_INLINE bool visit_builtin(int id, F&& f) {
    return visit_builtin(id, f, std::index_sequence_for<T...>());
  }
  template <typename F, std::size_t... I>
  FASTOUT_ALWAYS_INLINE bool visit_builtin(int id, F& f, std::index_sequence<I...>) {
    bool done = false;
    ((static_cast<int>(I) == id ? (done = visit_one(f, std::get<I>(args_))) : false), ...);
    return done;
  }
  template <typename F, typename A>
  FASTOUT_ALWAYS_INLINE bool visit_one(F& f, const A& arg) {
    constexpr auto type = fmt::detail::mapped_type_constant<A, fmt::format_context>::value;
    if constexpr (type == fmt::detail::type::custom_type || type == fmt::detail::type::none_type) {
      return false;
    } else {
      f(fmt::detail::arg_mapper<fmt::format_context>().map(arg));
      return true;
    }
  }

  fmt::detail::buffer<char>& out_;
  fmt::format_context context_;
  std::tuple<const T&...> args_;
  format_plan* plan_ = nullptr;
  const char* format_begin_ = nullptr;
};

// The plan for the format string last used with these argument types on
// this thread.
template <typename... T>
inline thread_local format_plan last_plan{};

template <typename... T>
FASTOUT_ALWAYS_INLINE void format_static(fmt::detail::buffer<char>& out, fmt::string_view format,
                                         fmt::format_args format_args, const T&... args) {
  static_formatter<T...> formatter(out, format_args, args...);
  format_plan& plan = last_plan<T...>;
  if (FASTOUT_LIKELY(plan.format_size == format.size() &&
                     (format.size() == 0 ||  // no null pointer for memcmp
                      std::memcmp(plan.format, format.data(), format.size()) == 0))) {
    formatter.replay(plan);
    return;
  }
  // Slower, and rare in a loop: parse, and remember for next time. Only
  // argument counts a plan can index are remembered.
  formatter.record(format, sizeof...(T) <= 255 ? &plan : nullptr);
}
#endif

}  // namespace detail

template <typename F>
FASTOUT_ALWAYS_INLINE void file::format_with(F& format) {
  if (FASTOUT_LIKELY(state_.pos != state_.limit)) {
    detail::print_buffer out(*this, state_.limit);
    format(out);
    if (FASTOUT_LIKELY(!out.overflowed())) {
      state_.pos = out.data() + out.size();
      return;
    }
    print_slow(&call_format<F>, &format, true);
    return;
  }
  print_slow(&call_format<F>, &format, false);
}

template <typename... T>
void file::print(fmt::format_string<T...> format, T&&... args) {
#ifdef FASTOUT_STATIC_DISPATCH
  auto format_args = fmt::make_format_args(args...);
  fmt::string_view format_string = format;
  auto format_into = [&](fmt::detail::buffer<char>& out) {
    detail::format_static(out, format_string, format_args, args...);
  };
  format_with(format_into);
#else
  vprint(format, fmt::make_format_args(args...));
#endif
}

template <typename S, typename... T,
          std::enable_if_t<std::is_base_of<fmt::detail::compiled_string, S>::value, int>>
void file::print(const S& format, T&&... args) {
  if constexpr (detail::bounded_format<S, T...>::value) {
    std::size_t bound = detail::bounded_format<S, T...>::max_size(args...);
    // bound - 1, as file::write(): an empty text goes out of line, so that a
    // closed writer, or one with a sticky error, throws even for it.
    if (FASTOUT_LIKELY(bound - 1 < static_cast<std::size_t>(state_.limit - state_.pos))) {
      state_.pos = fmt::format_to(state_.pos, format, args...);
      return;
    }
  }
  auto format_into = [&](fmt::detail::buffer<char>& out) {
    fmt::format_to(fmt::appender(out), format, std::forward<T>(args)...);
  };
  format_with(format_into);
}

template <typename... T>
void file::println(fmt::format_string<T...> format, T&&... args) {
  auto format_args = fmt::make_format_args(args...);
  fmt::string_view format_string = format;
  auto format_into = [&](fmt::detail::buffer<char>& out) {
#ifdef FASTOUT_STATIC_DISPATCH
    detail::format_static(out, format_string, format_args, args...);
#else
    fmt::detail::vformat_to(out, format_string, format_args);
#endif
    out.push_back('\n');
  };
  format_with(format_into);
}

template <typename S, typename... T,
          std::enable_if_t<std::is_base_of<fmt::detail::compiled_string, S>::value, int>>
void file::println(const S& format, T&&... args) {
  if constexpr (detail::bounded_format<S, T...>::value) {
    // bound < room leaves a byte for the '\n', and cannot wrap as bound + 1 would.
    std::size_t bound = detail::bounded_format<S, T...>::max_size(args...);
    if (FASTOUT_LIKELY(bound < static_cast<std::size_t>(state_.limit - state_.pos))) {
      state_.pos = fmt::format_to(state_.pos, format, args...);
      *state_.pos++ = '\n';
      return;
    }
  }
  auto format_into = [&](fmt::detail::buffer<char>& out) {
    fmt::format_to(fmt::appender(out), format, std::forward<T>(args)...);
    out.push_back('\n');
  };
  format_with(format_into);
}

template <typename T>
FASTOUT_ALWAYS_INLINE void file::write_scalar(T value) {
  constexpr std::size_t max_size = detail::max_scalar_size<T>();
  if (FASTOUT_LIKELY(static_cast<std::size_t>(state_.limit - state_.pos) >= max_size)) {
    state_.pos = detail::format_scalar(state_.pos, value);
    return;
  }
  write_scalar_slow(value);
}

template <typename T>
void file::write_scalar_slow(T value) {
  char text[detail::max_scalar_size<T>()];
  char* end = detail::format_scalar(text, value);
  write_slow(text, static_cast<std::size_t>(end - text));
}

template <typename T>
file& file::operator<<(const T& value) {
  if constexpr (detail::is_fast_scalar<T>::value || detail::is_hex_value<T>::value) {
    write_scalar(value);
  } else if constexpr (std::is_same<T, char>::value) {
    put(value);
  } else if constexpr (std::is_same<T, bool>::value) {
    write(value ? std::string_view("true") : std::string_view("false"));
  } else if constexpr (detail::formats_as_string<T>::value) {
    if constexpr (std::is_pointer<T>::value) {
      if (value == nullptr) {  // fmt's format_error, not strlen(nullptr)
        print(FMT_COMPILE("{}"), value);
        return *this;
      }
    }
    write(std::string_view(value));
  } else {
    // fmt's runtime "{}", the definition of the text; its compiled "{}"
    // differs for some types (nullptr throws instead of writing "0x0").
    print("{}", value);
  }
  return *this;
}

}  // namespace fastout

#endif  // FASTOUT_FORMAT_H_
