// SPDX-License-Identifier: MIT
// The runtime format cache: print("{} {}\n", a, b) faster than
// fmt::vformat_to, which parses the format string on every call and formats
// each argument through a type-erased fmt::basic_format_arg.
//
// The first call with a format string is fmt's own, errors and all; if fmt
// took it, plan_format() splits it into literal text and fields, each
// field's specs parsed by fmt::formatter<T> of its argument's type, and the
// plan is kept per thread for that list of argument types. A later call
// with the same text replays the plan with the arguments' static types. A
// string fmt rejects is never planned, so its errors are always fmt's own.
// Left to fmt on every call: types that are not fmt's built-in ones, named
// fields, a width or precision from an argument, and strings longer than 64
// characters or with more than 8 fields (fewer with leading text or
// escaped braces).
//
// What it relies on (public API unless marked; format_cache_test.cpp checks
// the text against fmt's on every version):
// - fmt::formatter<T> of the built-in types: parse() of a
//   format_parse_context holding the specs and a const format(); they are
//   what fmt's runtime path writes a field with, and trivially destructible
//   from 9.1 to 12.1 (a plan keeps them as raw bytes; a type whose
//   formatter is not stays fmt's).
// - The format_parse_context and format_context constructors (their
//   parameters differ by version; see the code).
// - FMT_COMPILE("{}") for fields without specs, but not for strings, whose
//   compiled "{}" differs (a null C string).
// - fmt::make_format_args on non-const arguments (named arguments, 11.0+).
// - Internal: fmt_compat.h's fmt_buffer_base (1) and fmt_type_of (4).
#ifndef FASTOUT_DETAIL_FORMAT_CACHE_H_
#define FASTOUT_DETAIL_FORMAT_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <fastout/config.h>
#include <fastout/detail/decimal.h>
#include <fastout/detail/fmt_compat.h>

#define FASTOUT_FORMAT_CACHE 1

namespace fastout {
namespace detail {

// ------------------------------------------------- built-in argument types

// The type fmt's runtime path formats an argument of type T as, when fastout
// formats it statically; void for the types left to fmt. fmt maps arguments
// the same way (fmt::detail::arg_mapper, or type_mapper from 11.0):
// small integers widen, long is long long where they have the same size,
// strings become string views, char arrays C strings.
template <typename T>
struct static_arg {
  using type = void;
};
template <typename T, typename As>
struct static_arg_as {
  using type = As;
};
template <>
struct static_arg<bool> : static_arg_as<bool, bool> {};
template <>
struct static_arg<char> : static_arg_as<char, char> {};
template <>
struct static_arg<signed char> : static_arg_as<signed char, int> {};
template <>
struct static_arg<short> : static_arg_as<short, int> {};
template <>
struct static_arg<int> : static_arg_as<int, int> {};
template <>
struct static_arg<unsigned char> : static_arg_as<unsigned char, unsigned> {};
template <>
struct static_arg<unsigned short> : static_arg_as<unsigned short, unsigned> {};
template <>
struct static_arg<unsigned> : static_arg_as<unsigned, unsigned> {};
template <>
struct static_arg<long>
    : static_arg_as<long, std::conditional_t<sizeof(long) == sizeof(long long), long long, int>> {};
template <>
struct static_arg<unsigned long>
    : static_arg_as<unsigned long,
                    std::conditional_t<sizeof(unsigned long) == sizeof(unsigned long long),
                                       unsigned long long, unsigned>> {};
template <>
struct static_arg<long long> : static_arg_as<long long, long long> {};
template <>
struct static_arg<unsigned long long> : static_arg_as<unsigned long long, unsigned long long> {};
template <>
struct static_arg<float> : static_arg_as<float, float> {};
template <>
struct static_arg<double> : static_arg_as<double, double> {};
template <>
struct static_arg<long double> : static_arg_as<long double, long double> {};
template <>
struct static_arg<const char*> : static_arg_as<const char*, const char*> {};
template <>
struct static_arg<char*> : static_arg_as<char*, const char*> {};
template <std::size_t N>
struct static_arg<char[N]> : static_arg_as<char[N], const char*> {};
template <>
struct static_arg<std::string> : static_arg_as<std::string, fmt::string_view> {};
template <>
struct static_arg<std::string_view> : static_arg_as<std::string_view, fmt::string_view> {};
template <>
struct static_arg<fmt::string_view> : static_arg_as<fmt::string_view, fmt::string_view> {};
template <>
struct static_arg<const void*> : static_arg_as<const void*, const void*> {};
template <>
struct static_arg<void*> : static_arg_as<void*, const void*> {};
template <>
struct static_arg<std::nullptr_t> : static_arg_as<std::nullptr_t, const void*> {};

template <typename T>
using static_arg_t = typename static_arg<T>::type;

template <typename T, typename As = static_arg_t<T>>
constexpr bool formats_statically() {
  if constexpr (std::is_void<As>::value) {
    return false;
  } else {
    // fmt agrees on the type, and its formatter can live in a plan.
    return fmt_type_of<T>() == fmt_type_of<As>() &&
           std::is_trivially_destructible<fmt::formatter<As>>::value;
  }
}

// An argument as the type it is formatted as.
template <typename T>
FASTOUT_ALWAYS_INLINE static_arg_t<T> static_value(const T& value) {
  using as = static_arg_t<T>;
  if constexpr (std::is_same<as, fmt::string_view>::value) {
    return fmt::string_view(value.data(), value.size());
  } else {
    return static_cast<as>(value);
  }
}

// ---------------------------------------------------------------- the plan

// One step of a planned format: a field (or none, for text at the start or
// after "{{" and "}}"), then the literal text that follows it (an offset and
// a size in the format string, 0 for none). "{},{:.2f}\n" is two steps.
struct plan_step {
  enum kind_type : unsigned char { text_only, field, field_with_specs };
  kind_type kind;
  unsigned char arg;
  unsigned short text_offset, text_size;
};

struct plan_limits {
  static constexpr std::size_t max_format_size = 64;
  static constexpr std::size_t max_steps = 8;
};

constexpr std::size_t max_of(std::initializer_list<std::size_t> values) {
  std::size_t result = 1;
  for (std::size_t v : values) result = v > result ? v : result;
  return result;
}

// Room for the formatter of any of the types A.
template <typename... A>
struct alignas(max_of({alignof(fmt::formatter<static_arg_t<A>>)...})) formatter_slot {
  unsigned char bytes[max_of({sizeof(fmt::formatter<static_arg_t<A>>)...})];
};

// A format string planned for arguments of types A. Trivial, so that a
// thread_local costs no guard. Zero-initialized, it is the plan of the empty
// format, which writes nothing.
template <typename... A>
struct format_plan : plan_limits {
  // The format string the plan is for; a size of -1 matches none.
  std::size_t format_size;
  char format[max_format_size];
  // True when fmt formats this string: plan_format() did not take it.
  bool by_fmt;
  std::size_t step_count;
  plan_step steps[max_steps];
  formatter_slot<A...> formatters[max_steps];  // of fields with specs
};

// Parses the specs in [begin, end) of a field of argument `arg` with the
// argument type's formatter, constructed in `slot`; returns where they end.
using parse_specs_function = const char* (*)(void* slot, unsigned arg, const char* begin,
                                             const char* end);

// Scans a format string into steps: the replacement-field grammar of fmt's
// format strings, without named fields or nested replacement fields.
// Returns the number of steps, or -1 if fmt must format this string
// (anything not planned, including every syntax error: fmt reports it).
// Lets a formatter's parse() throw.
inline FASTOUT_NOINLINE int plan_format(const char* format, std::size_t size, std::size_t arg_count,
                                        plan_step* steps, void* formatters,
                                        std::size_t formatter_size,
                                        parse_specs_function parse_specs) {
  if (size > plan_limits::max_format_size) return -1;
  const char* const end = format + size;
  std::size_t count = 0;
  auto add_field = [&](plan_step::kind_type kind, std::size_t arg) {
    if (count == plan_limits::max_steps) return false;
    steps[count++] = {kind, static_cast<unsigned char>(arg), 0, 0};
    return true;
  };
  // Text after a field without text yet is the field's; other text (at the
  // start, after an escape) takes a step of its own.
  auto add_text = [&](const char* begin, const char* last) {
    if (count == 0 || steps[count - 1].text_size != 0) {
      if (!add_field(plan_step::text_only, 0)) return false;
    }
    steps[count - 1].text_offset = static_cast<unsigned short>(begin - format);
    steps[count - 1].text_size = static_cast<unsigned short>(last - begin);
    return true;
  };
  enum { no_index, automatic, manual } indexing = no_index;
  std::size_t next_arg = 0;
  const char* text = format;  // the literal text not yet in a step
  const char* p = format;
  while (p != end) {
    const char c = *p;
    if (c != '{' && c != '}') {
      ++p;
      continue;
    }
    if (p + 1 != end && p[1] == c) {  // "{{" or "}}": the text up to one of them
      if (!add_text(text, p + 1)) return -1;
      p += 2;
      text = p;
      continue;
    }
    if (c == '}') return -1;  // unmatched
    if (p != text && !add_text(text, p)) return -1;
    if (++p == end) return -1;
    std::size_t arg;
    if (*p == '}' || *p == ':') {
      if (indexing == manual) return -1;
      indexing = automatic;
      arg = next_arg++;
    } else if (*p >= '0' && *p <= '9') {
      if (indexing == automatic) return -1;
      indexing = manual;
      arg = 0;
      if (*p == '0') {
        ++p;  // fmt takes no other digit after a leading 0
      } else {
        while (p != end && *p >= '0' && *p <= '9' && arg < 256)
          arg = arg * 10 + static_cast<std::size_t>(*p++ - '0');
      }
      if (p == end || (*p != '}' && *p != ':')) return -1;
    } else {
      return -1;  // a name, or not an index at all
    }
    if (arg >= arg_count) return -1;
    if (*p == '}') {
      if (!add_field(plan_step::field, arg)) return -1;
    } else {
      if (count == plan_limits::max_steps) return -1;
      const char* specs = ++p;
      p = parse_specs(static_cast<unsigned char*>(formatters) + count * formatter_size,
                      static_cast<unsigned>(arg), specs, end);
      if (p == end || *p != '}') return -1;
      // A width or precision from an argument differs per call; a '{' fill
      // is an error.
      if (std::memchr(specs, '{', static_cast<std::size_t>(p - specs)) != nullptr) return -1;
      add_field(plan_step::field_with_specs, arg);
    }
    text = ++p;
  }
  if (text != end && !add_text(text, end)) return -1;
  return static_cast<int>(count);
}

// Calls f(value) with the argument number `index` of args.
template <typename F, typename... A>
FASTOUT_ALWAYS_INLINE void visit_arg(std::size_t index, F&& f, const A&... args) {
  std::size_t i = 0;
  (void)((i++ == index ? (f(args), true) : false) || ...);
}

template <typename As>
const char* parse_specs_as(void* slot, const char* begin, const char* end) {
  auto* formatter = ::new (slot) fmt::formatter<As>();
  fmt::format_parse_context context(fmt::string_view(begin, static_cast<std::size_t>(end - begin)));
  return formatter->parse(context);
}

template <typename... A>
const char* parse_specs(void* slot, unsigned arg, const char* begin, const char* end) {
  const char* result = end;  // with no arguments, never called
  std::size_t i = 0;
  (void)slot, (void)begin;
  (void)((i++ == arg ? (result = parse_specs_as<static_arg_t<A>>(slot, begin, end), true)
                     : false) ||
         ...);
  return result;
}

// ------------------------------------------------------------- formatting

// Short texts are copied and compared here with a few loads of 8, 4 or 1
// bytes, overlapping, rather than through calls to memcpy and memcmp: the
// texts of a format ("\n", ", ") and most format strings are that short.
//
// GCC 12 at -O3 inlines these into a print("{}\n", ...) and warns
// (-Warray-bounds) that the 8-byte load could read past the 4-byte literal:
// it cannot see that `size` is a length the plan took from that very
// literal, so the 8-byte branch never runs for it. A false positive in
// fastout's own code, silenced here only, for fastout's build and its users'.
#if defined(__GNUC__) && !defined(__clang__)
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Warray-bounds"
#endif
template <typename Word>
FASTOUT_ALWAYS_INLINE Word load_word(const char* from) {
  Word word;
  std::memcpy(&word, from, sizeof word);
  return word;
}
template <typename Word>
FASTOUT_ALWAYS_INLINE void store_word(char* to, Word word) {
  std::memcpy(to, &word, sizeof word);
}

// Copies `size` bytes, at most 16.
FASTOUT_ALWAYS_INLINE void copy_short(char* to, const char* from, std::size_t size) {
  if (size >= 8) {
    auto first = load_word<std::uint64_t>(from);
    auto last = load_word<std::uint64_t>(from + size - 8);
    store_word(to, first);
    store_word(to + size - 8, last);
  } else if (size >= 4) {
    auto first = load_word<std::uint32_t>(from);
    auto last = load_word<std::uint32_t>(from + size - 4);
    store_word(to, first);
    store_word(to + size - 4, last);
  } else if (size != 0) {  // 1 to 3 bytes: these three cover them
    char first = from[0], middle = from[size / 2], last = from[size - 1];
    to[0] = first;
    to[size / 2] = middle;
    to[size - 1] = last;
  }
}

// Whether `size` bytes at a and b are the same, for any size.
FASTOUT_ALWAYS_INLINE bool same_text(const char* a, const char* b, std::size_t size) {
  if (size < 8) {
    if (size >= 4) {
      return ((load_word<std::uint32_t>(a) ^ load_word<std::uint32_t>(b)) |
              (load_word<std::uint32_t>(a + size - 4) ^ load_word<std::uint32_t>(b + size - 4))) ==
             0;
    }
    return size == 0 || (a[0] == b[0] && a[size / 2] == b[size / 2] && a[size - 1] == b[size - 1]);
  }
  std::uint64_t difference = 0;
  for (std::size_t i = 0; i + 8 < size; i += 8)
    difference |= load_word<std::uint64_t>(a + i) ^ load_word<std::uint64_t>(b + i);
  difference |= load_word<std::uint64_t>(a + size - 8) ^ load_word<std::uint64_t>(b + size - 8);
  return difference == 0;
}
#if defined(__GNUC__) && !defined(__clang__)
#  pragma GCC diagnostic pop
#endif

FASTOUT_ALWAYS_INLINE void append_text(fmt_buffer_base& out, const char* begin, std::size_t size) {
  std::size_t used = out.size();
  if (size <= 16 && out.capacity() - used >= size) {
    copy_short(out.data() + used, begin, size);
    out.try_resize(used + size);
    return;
  }
  out.append(begin, begin + size);
}

// A field without specs, as fmt's runtime "{}" writes it.
template <typename As>
FASTOUT_ALWAYS_INLINE void write_plain(fmt_buffer_base& out, As value) {
  if constexpr (std::is_same<As, fmt::string_view>::value) {
    append_text(out, value.data(), value.size());
  } else if constexpr (std::is_same<As, const char*>::value) {
    if (FASTOUT_UNLIKELY(value == nullptr)) {
      // fmt's error for a null C string, from fmt's runtime "{}" (its
      // formatter does not check in 9.x).
      fmt::vformat_to(fmt::appender(out), "{}", fmt::make_format_args(value));
      return;
    }
    append_text(out, value, std::strlen(value));
  } else {
    // Not for strings: the compiled "{}" of a string type differs (a null C
    // string); for the others it calls the writer of fmt's runtime "{}".
    if constexpr (std::is_same<As, int>::value || std::is_same<As, long long>::value ||
                  std::is_same<As, unsigned>::value ||
                  std::is_same<As, unsigned long long>::value) {
      // Integers (every narrower one arrives widened to one of these):
      // decimal.h's digits, the same as fmt's "{}" and faster (its chunks
      // of eight digits do not wait on each other).
      const std::size_t used = out.size();
      if (FASTOUT_LIKELY(out.capacity() - used >= decimal::most_bytes_stored + 1)) {
        char* end;
        if constexpr (std::is_signed<As>::value)
          end = decimal::write_signed(out.data() + used, value);
        else
          end = decimal::write(out.data() + used, value);
        out.try_resize(static_cast<std::size_t>(end - out.data()));
        return;
      }
    } else if constexpr (std::is_arithmetic<As>::value && !std::is_same<As, bool>::value &&
                         !std::is_same<As, char>::value && !std::is_same<As, long double>::value) {
      // Through a char* where the longest text fits: fmt's fastest output.
      // The shortest double, "-2.2250738585072014e-308", has 24 chars.
      constexpr std::size_t longest = 32;
      const std::size_t used = out.size();
      if (FASTOUT_LIKELY(out.capacity() - used >= longest)) {
        char* end = fmt::format_to(out.data() + used, FMT_COMPILE("{}"), value);
        out.try_resize(static_cast<std::size_t>(end - out.data()));
        return;
      }
    }
    fmt::format_to(fmt::appender(out), FMT_COMPILE("{}"), value);
  }
}

template <typename As, typename... A>
FASTOUT_ALWAYS_INLINE void write_with_specs(fmt_buffer_base& out, const formatter_slot<A...>& slot,
                                            As value) {
  const auto& formatter = *std::launder(reinterpret_cast<const fmt::formatter<As>*>(slot.bytes));
  fmt::format_context context{fmt::appender(out), fmt::format_args()};
  formatter.format(value, context);
}

template <typename... A>
FASTOUT_ALWAYS_INLINE void replay(fmt_buffer_base& out, const format_plan<A...>& plan,
                                  const char* format, const A&... args) {
  for (std::size_t i = 0; i < plan.step_count; ++i) {
    const plan_step& step = plan.steps[i];
    switch (step.kind) {
      case plan_step::text_only: break;
      case plan_step::field:
        visit_arg(
            step.arg, [&](const auto& value) { write_plain(out, static_value(value)); }, args...);
        break;
      case plan_step::field_with_specs:
        visit_arg(
            step.arg,
            [&](const auto& value) {
              write_with_specs(out, plan.formatters[i], static_value(value));
            },
            args...);
        break;
    }
    if (step.text_size != 0) append_text(out, format + step.text_offset, step.text_size);
  }
}

// The plan for the format string last used with these argument types on
// this thread.
template <typename... A>
inline thread_local format_plan<A...> last_plan{};

// The first call with a format string: fmt formats it, errors and all, and
// a string fmt took is then planned for the next calls, or marked as fmt's.
template <typename... A>
FASTOUT_NOINLINE void format_and_plan(fmt_buffer_base& out, fmt::string_view format, A&... args) {
  format_plan<std::remove_cv_t<A>...>& plan = last_plan<std::remove_cv_t<A>...>;
  plan.format_size = static_cast<std::size_t>(-1);  // matches nothing until done
  fmt::vformat_to(fmt::appender(out), format, fmt::make_format_args(args...));
  if (format.size() > plan.max_format_size) return;
  int count = -1;
  try {
    count = plan_format(format.data(), format.size(), sizeof...(A), plan.steps, plan.formatters,
                        sizeof(plan.formatters[0]), &parse_specs<std::remove_cv_t<A>...>);
  } catch (const fmt::format_error&) {
    // Specs fmt took and its formatter did not: fmt's, to be safe.
  }
  // An empty format may have no storage: memcpy must not see its null.
  if (format.size() != 0) std::memcpy(plan.format, format.data(), format.size());
  plan.by_fmt = count < 0;
  plan.step_count = count < 0 ? 0 : static_cast<std::size_t>(count);
  plan.format_size = format.size();  // last: a throw above leaves no plan
}

// print()'s formatting of a runtime format string. The arguments keep the
// constness print() got them with: fmt recognizes a named argument only as a
// non-const fmt::detail::named_arg (11.0 and later).
template <typename... A>
FASTOUT_ALWAYS_INLINE void format_static(fmt_buffer_base& out, fmt::string_view format,
                                         A&... args) {
  if constexpr (sizeof...(A) > 255 || !(formats_statically<std::remove_cv_t<A>>() && ...)) {
    fmt::vformat_to(fmt::appender(out), format, fmt::make_format_args(args...));
  } else {
    const format_plan<std::remove_cv_t<A>...>& plan = last_plan<std::remove_cv_t<A>...>;
    if (FASTOUT_LIKELY(plan.format_size == format.size() &&
                       same_text(plan.format, format.data(), format.size()))) {
      if (FASTOUT_LIKELY(!plan.by_fmt)) {
        replay(out, plan, format.data(), args...);
      } else {
        fmt::vformat_to(fmt::appender(out), format, fmt::make_format_args(args...));
      }
      return;
    }
    // Slower, and rare in a loop: plan, and remember for next time.
    format_and_plan(out, format, args...);
  }
}

}  // namespace detail
}  // namespace fastout

#endif  // FASTOUT_DETAIL_FORMAT_CACHE_H_
