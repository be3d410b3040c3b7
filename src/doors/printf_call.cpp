// SPDX-License-Identifier: MIT
// fastout's printf engine, its general executor (printf_internal.h): a call
// of any plan, every directive laid out by glibc's rules.
//
// A call runs its plan: the directives glibc's first parser takes, with
// their arguments in order, and, where that parser stops, the rest as
// glibc's second parser reads them, with every argument taken first by its
// type. Each directive is laid out here by glibc's rules (vfprintf-process-
// arg.c) around digits from detail/decimal.h (decimal) or a loop (other
// bases); floating point is printf_float.cpp's, and the forms that depend
// on the locale are printf_locale.cpp's. The fast executor (printf.cpp)
// hands a call over to this one where it stops.
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cfenv>
#include <cstring>
#include <cwchar>
#include <memory>
#include <type_traits>

#include <fastout/detail/decimal.h>
#include <fastout/file.h>

#include "doors/printf_internal.h"

namespace fastout {
namespace detail {
namespace printf_engine {
namespace {

// ------------------------------------------------------------- arguments

// glibc's union printf_arg, for the arguments of the second parser: each
// taken from the va_list by its type, and read back as the directive reads
// it (a union member; memcpy from the start of the slot reads what glibc's
// union would).
struct arg_slot {
  alignas(16) unsigned char bytes[16];
};

constexpr bool long_is_long_long = sizeof(long) == sizeof(long long);
constexpr bool long_is_int = sizeof(long) == sizeof(int);

// The arguments in order, as glibc's first parser takes them.
struct sequential_args {
  std::va_list* ap;

  int width(const directive&) { return va_arg(*ap, int); }
  int precision(const directive&) { return va_arg(*ap, int); }
  template <typename T>
  T get(const directive&) {
    return va_arg(*ap, T);
  }
};

// The arguments of the second parser, all taken already.
struct positional_args {
  const arg_slot* slots;

  template <typename T>
  T read(std::int32_t index) const {
    T value;
    std::memcpy(&value, slots[index].bytes, sizeof value);
    return value;
  }
  int width(const directive& d) { return read<int>(d.width_arg); }
  int precision(const directive& d) { return read<int>(d.precision_arg); }
  template <typename T>
  T get(const directive& d) {
    return read<T>(d.data_arg);
  }
};

// wint_t as it travels through `...`: itself where it is as wide as int
// (glibc), int where it is narrower (Windows' 16-bit wint_t is promoted,
// and va_arg of wint_t there is undefined: GCC makes it a trap).
using promoted_wint = decltype(+std::wint_t{});

// wchar_t is promoted to wint_t (or int) through ..., whatever its size.
template <>
wchar_t sequential_args::get<wchar_t>(const directive&) {
  return static_cast<wchar_t>(va_arg(*ap, promoted_wint));
}

// ---------------------------------------------------------------- digits

// The digits of `value` in `base`, written to the end of `area` (24 bytes
// hold a decimal, 64 a binary); returns where they begin.
char* number_digits(char* area_end, unsigned long long value, unsigned base, bool upper) {
  if (base == 10) {
    char text[24];
    char* text_end = decimal::write(text, value);
    const auto size = static_cast<std::size_t>(text_end - text);
    std::memcpy(area_end - size, text, size);
    return area_end - size;
  }
  return base_digits(area_end, value, base, upper);
}

// ------------------------------------------------------------- one call

class call {
 public:
  call(file& writer, const plan& p)
      : out_(writer), text_(p.text.data()), plan_(p), saved_errno_(p.uses_errno ? errno : 0) {}
  call(const call&) = delete;
  call& operator=(const call&) = delete;

  /// The whole call.
  int run(std::va_list& args);
  /// The rest of a call the fast executor began: the first parser's
  /// directives from `index` (the text so far ends at `pos`), and, when
  /// `pending` is not null, directive `index` is a %s of `pending` (its
  /// width and flags from the format) whose arguments were taken already.
  int run_from(std::size_t index, char* pos, std::va_list& args, const char* pending = nullptr,
               int pending_precision = -1, bool has_pending = false);

 private:
  int run_first(std::size_t index, char* pos, std::va_list& args, std::va_list* original);
  template <typename Args>
  char* directive_text(const directive& d, Args& args, char* pos);
  template <typename Args>
  char* integer(const directive& d, Args& args, char* pos, int width, int precision,
                std::uint16_t flags);
  char* put_number(char* pos, const directive& d, int width, int precision, std::uint16_t flags,
                   bool negative, unsigned long long magnitude, char spec);
  template <typename Args>
  char* floating(const directive& d, Args& args, char* pos, int width, int precision,
                 std::uint16_t flags);
  char* put_string(char* pos, const char* s, int width, int precision, std::uint16_t flags);
  char* put_wide_string(char* pos, const wchar_t* s, int width, int precision, std::uint16_t flags);
  char* put_wide_char(char* pos, wchar_t c, int width, std::uint16_t flags);
  char* put_unknown(char* pos, const directive& d, int width, int precision, std::uint16_t flags);
  char* put_padded(char* pos, const char* text, std::size_t size, int width, std::uint16_t flags);
  template <typename Args>
  void store_count(const directive& d, Args& args, char* pos);
  // The locale, asked at most once per call.
  bool plain_point() {
    if (plain_point_ < 0) plain_point_ = decimal_point_is_dot();
    return plain_point_ != 0;
  }
  bool groups() {
    if (groups_ < 0) groups_ = locale_groups_digits();
    return groups_ != 0;
  }
  bool plain_digits() {
    if (plain_digits_ < 0) plain_digits_ = locale_digits_are_ascii();
    return plain_digits_ != 0;
  }
  // The literal text [begin, end) of the format: up to 16 bytes (most
  // literals) in one fixed-size copy from the plan's padded copy.
  FASTOUT_ALWAYS_INLINE char* literal(char* pos, std::uint32_t begin, std::uint32_t end) {
    const std::size_t size = end - begin;
    if (FASTOUT_LIKELY(size <= 16 && out_.room(pos) >= 16)) {
      std::memcpy(pos, text_ + begin, 16);
      return pos + size;
    }
    return out_.append(pos, text_ + begin, size);
  }
  int run_positional(char* pos, std::va_list original);

  output out_;
  const char* const text_;  // the plan's copy of the format
  const plan& plan_;
  const int saved_errno_;         // for %m
  signed char plain_point_ = -1;  // -1: not asked yet
  signed char groups_ = -1;
  signed char plain_digits_ = -1;
};

int call::run(std::va_list& args) {
  char* pos = out_.start();
  if (plan_.lead != 0) pos = literal(pos, 0, plan_.lead);
  if (FASTOUT_UNLIKELY(plan_.after_first == stop::positional)) {
    std::va_list original;
    va_copy(original, args);
    const int result = run_first(0, pos, args, &original);
    va_end(original);
    return result;
  }
  return run_first(0, pos, args, nullptr);
}

int call::run_from(std::size_t index, char* pos, std::va_list& args, const char* pending,
                   int pending_precision, bool has_pending) {
  if (has_pending) {
    const directive& d = plan_.first[index];
    pos = put_string(pos, pending, d.width, pending_precision, d.flags);
    pos = literal(pos, d.end, d.next);
    ++index;
  }
  return run_first(index, pos, args, nullptr);
}

// The first parser's directives from `index`, then what follows them:
// the end, the second parser (with `original`, the arguments from the
// first), or a failure.
int call::run_first(std::size_t index, char* pos, std::va_list& args, std::va_list* original) {
  sequential_args in_order{&args};
  for (const directive *d = plan_.first.data() + index,
                       *end = plan_.first.data() + plan_.first.size();
       d != end; ++d) {
    pos = directive_text(*d, in_order, pos);
    if (FASTOUT_UNLIKELY(out_.error != 0)) return out_.fail(pos, out_.error);
    pos = literal(pos, d->end, d->next);
    // glibc counts in an int, and stops where the count overflows.
    if (FASTOUT_UNLIKELY(out_.count(pos) > static_cast<std::size_t>(INT_MAX)))
      return out_.fail(pos, EOVERFLOW);
  }
  switch (plan_.after_first) {
    case stop::at_end: return out_.finish(pos);
    case stop::positional: return run_positional(pos, *original);
    case stop::invalid: return out_.fail(pos, EINVAL);
    case stop::overflow: break;
  }
  return out_.fail(pos, EOVERFLOW);
}

// glibc's printf_positional(): every argument taken by its type, then the
// directives the first parser did not do.
int call::run_positional(char* pos, std::va_list original) {
  const std::size_t count = plan_.arg_types.size();
  arg_slot local_slots[32];
  std::unique_ptr<arg_slot[]> heap_slots;
  arg_slot* slots = local_slots;
  if (count > sizeof local_slots / sizeof local_slots[0]) {
    heap_slots.reset(new arg_slot[count]);
    slots = heap_slots.get();
  }
  std::va_list args;
  va_copy(args, original);
  for (std::size_t i = 0; i < count; ++i) {
    arg_slot& slot = slots[i];
    std::memset(slot.bytes, 0, sizeof slot.bytes);
    switch (plan_.arg_types[i]) {
      case arg_type::int_value: {
        const int value = va_arg(args, int);
        std::memcpy(slot.bytes, &value, sizeof value);
        break;
      }
      case arg_type::long_value: {
        const long value = va_arg(args, long);
        std::memcpy(slot.bytes, &value, sizeof value);
        break;
      }
      case arg_type::long_long_value: {
        const long long value = va_arg(args, long long);
        std::memcpy(slot.bytes, &value, sizeof value);
        break;
      }
      case arg_type::double_value: {
        const double value = va_arg(args, double);
        std::memcpy(slot.bytes, &value, sizeof value);
        break;
      }
      case arg_type::long_double_value: {
        const long double value = va_arg(args, long double);
        std::memcpy(slot.bytes, &value, sizeof value);
        break;
      }
      case arg_type::pointer_value: {
        void* value = va_arg(args, void*);
        std::memcpy(slot.bytes, &value, sizeof value);
        break;
      }
      case arg_type::wint_value: {
        // glibc keeps it as its union's wchar_t.
        const auto value = static_cast<wchar_t>(va_arg(args, promoted_wint));
        std::memcpy(slot.bytes, &value, sizeof value);
        break;
      }
    }
  }
  va_end(args);
  positional_args by_position{slots};
  for (std::size_t i = plan_.first.size(); i < plan_.second.size(); ++i) {
    const directive& d = plan_.second[i];
    pos = directive_text(d, by_position, pos);
    if (FASTOUT_UNLIKELY(out_.error != 0)) return out_.fail(pos, out_.error);
    pos = literal(pos, d.end, d.next);
    if (FASTOUT_UNLIKELY(out_.count(pos) > static_cast<std::size_t>(INT_MAX)))
      return out_.fail(pos, EOVERFLOW);
  }
  return out_.finish(pos);
}

// One directive, with its arguments from `args`.
template <typename Args>
char* call::directive_text(const directive& d, Args& args, char* pos) {
  std::uint16_t flags = d.flags;
  int width = d.width;
  int precision = d.precision;
  // Widths and precisions from arguments: a negative width is '-' (and, in
  // the first parser, spaces as padding); a negative precision is none.
  constexpr bool in_order = std::is_same<Args, sequential_args>::value;
  if (in_order ? (flags & flag_width_star) != 0 : d.width_arg >= 0) {
    width = args.width(d);
    if (width < 0) {
      flags |= flag_left;
      if (in_order) flags &= static_cast<std::uint16_t>(~flag_pad_zero);
      // -INT_MIN wraps to INT_MIN in glibc: no padding at all.
      width = width == INT_MIN ? INT_MIN : -width;
    }
  }
  if (in_order ? (flags & flag_precision_star) != 0 : d.precision_arg >= 0) {
    precision = args.precision(d);
    if (precision < 0) precision = -1;
  }
  switch (d.what) {
    case action::percent: return out_.put(pos, '%');
    case action::signed_number:
    case action::unsigned_number: return integer(d, args, pos, width, precision, flags);
    case action::floating:
    case action::hex_floating: return floating(d, args, pos, width, precision, flags);
    case action::character:
      if ((d.length & length_long) || d.conversion == 'C')
        return put_wide_char(pos, args.template get<wchar_t>(d), width, flags);
      {
        const char c = static_cast<char>(static_cast<unsigned char>(args.template get<int>(d)));
        if (FASTOUT_LIKELY(width >= 0 && width <= 1)) return out_.put(pos, c);
        return put_padded(pos, &c, 1, width, flags);
      }
    case action::string:
      if ((d.length & length_long) || d.conversion == 'S')
        return put_wide_string(pos, args.template get<const wchar_t*>(d), width, precision, flags);
      return put_string(pos, args.template get<const char*>(d), width, precision, flags);
    case action::pointer: {
      const void* pointer = args.template get<void*>(d);
      if (pointer == nullptr)
        return put_string(pos, "(nil)", width, precision < 5 ? 5 : precision, flags);
      // "%#x" of it, the sign flags kept (glibc goes straight to its
      // number layout), grouping not.
      return put_number(pos, d, width, precision,
                        static_cast<std::uint16_t>((flags | flag_alt) & ~flag_group), false,
                        reinterpret_cast<std::uintptr_t>(pointer), 'x');
    }
    case action::count: store_count(d, args, pos); return pos;
    case action::strerror: {
      if (flags & flag_alt) {
        const char* name = errno_name(saved_errno_);
        if (name != nullptr) return put_string(pos, name, width, precision, flags);
        // No name: the number, as %d.
        directive number = d;
        number.base = 10;
        const bool negative = saved_errno_ < 0;
        const unsigned long long magnitude = negative
                                                 ? 0 - static_cast<unsigned long long>(saved_errno_)
                                                 : static_cast<unsigned long long>(saved_errno_);
        return put_number(pos, number, width, precision, flags, negative, magnitude, 'm');
      }
      char text[1024];
      return put_string(pos, errno_text(saved_errno_, text, sizeof text), width, precision, flags);
    }
    case action::unknown: return put_unknown(pos, d, width, precision, flags);
  }
  return pos;
}

// ------------------------------------------------------------- integers

template <typename Args>
char* call::integer(const directive& d, Args& args, char* pos, int width, int precision,
                    std::uint16_t flags) {
  // The argument, read as glibc reads it from its length bits.
  const bool is_longlong = !long_is_long_long && (d.length & length_long_double) != 0;
  const bool is_long_num = !long_is_int && (d.length & length_long) != 0;
  bool negative = false;
  unsigned long long magnitude;
  if (d.what == action::signed_number) {
    long long value;
    if (is_longlong)
      value = args.template get<long long>(d);
    else if (is_long_num)
      value = args.template get<long>(d);
    else if (d.length & length_char)
      value = static_cast<signed char>(args.template get<unsigned>(d));
    else if (!(d.length & length_short))
      value = args.template get<int>(d);
    else
      value = static_cast<short>(args.template get<unsigned>(d));
    negative = value < 0;
    magnitude = negative ? 0 - static_cast<unsigned long long>(value)
                         : static_cast<unsigned long long>(value);
    // The plain case, "%d" or "%lld": the digits straight into the room.
    if (FASTOUT_LIKELY((flags | static_cast<unsigned>(width)) == 0 && precision < 0)) {
      if (FASTOUT_UNLIKELY(out_.room(pos) < 24)) pos = out_.make_room(pos, 24);
      if (out_.room(pos) >= 24) return decimal::write_signed(pos, value);
    }
  } else {
    if (is_longlong)
      magnitude = args.template get<unsigned long long>(d);
    else if (is_long_num)
      magnitude = args.template get<unsigned long>(d);
    else if (d.length & length_char)
      magnitude = static_cast<unsigned char>(args.template get<unsigned>(d));
    else if (!(d.length & length_short))
      magnitude = args.template get<unsigned>(d);
    else
      magnitude = static_cast<unsigned short>(args.template get<unsigned>(d));
    // '+' and ' ' are for signed conversions.
    flags &= static_cast<std::uint16_t>(~(flag_showsign | flag_space));
    if (FASTOUT_LIKELY((flags | static_cast<unsigned>(width)) == 0 && precision < 0 &&
                       d.base == 10)) {
      if (FASTOUT_UNLIKELY(out_.room(pos) < 24)) pos = out_.make_room(pos, 24);
      if (out_.room(pos) >= 24) return decimal::write(pos, magnitude);
    }
  }
  if (FASTOUT_UNLIKELY((flags & flag_group) || ((flags & flag_i18n) && d.base == 10))) {
    if (((flags & flag_group) && groups()) ||
        ((flags & flag_i18n) && d.base == 10 && !plain_digits())) {
      const int result = locale_integer(out_, pos, d, flags, width, precision, negative, magnitude);
      if (result < 0) out_.error = -result;
      return pos;
    }
  }
  return put_number(pos, d, width, precision, flags, negative, magnitude, d.conversion);
}

// glibc's number layout: [spaces][sign]["0x"][zeros]digits[spaces], the
// zeros from the precision, or from the width with the '0' flag (which a
// precision turns off); '#' puts "0x" (or "0X", "0b", "0B": `spec`) before
// a nonzero hexadecimal or binary number, and a leading 0 on octal.
char* call::put_number(char* pos, const directive& d, int width, int precision, std::uint16_t flags,
                       bool negative, unsigned long long magnitude, char spec) {
  bool pad_zero = (flags & flag_pad_zero) != 0;
  if (precision < 0)
    precision = 1;
  else
    pad_zero = false;
  const bool alt = (flags & flag_alt) != 0;
  char area[72];
  char* const area_end = area + sizeof area;
  char* digits = area_end;
  if (precision == 0 && magnitude == 0) {
    if (d.base == 8 && alt) *--digits = '0';
  } else {
    digits = number_digits(area_end, magnitude, d.base, d.upper);
  }
  auto length = static_cast<std::size_t>(area_end - digits);
  if (static_cast<std::size_t>(precision) <= length && magnitude != 0 && alt && d.base == 8) {
    *--digits = '0';
    ++length;
  }
  const std::size_t zeros = static_cast<std::size_t>(precision) > length
                                ? static_cast<std::size_t>(precision) - length
                                : 0;
  const bool prefix = magnitude != 0 && alt && (d.base == 16 || d.base == 2);
  const char sign = negative                  ? '-'
                    : (flags & flag_showsign) ? '+'
                    : (flags & flag_space)    ? ' '
                                              : '\0';
  // What is left of the width once the number is laid out.
  const std::size_t padding =
      output::padding(width, length + zeros + (prefix ? 2 : 0) + (sign != '\0' ? 1 : 0));
  const bool left = (flags & flag_left) != 0;
  std::size_t spaces_before = 0, spaces_after = 0, all_zeros = zeros;
  if (left)
    spaces_after = padding;
  else if (pad_zero)
    all_zeros += padding;
  else
    spaces_before = padding;
  const std::size_t size =
      spaces_before + (sign != '\0') + (prefix ? 2 : 0) + all_zeros + length + spaces_after;
  if (FASTOUT_UNLIKELY(out_.too_long(pos, size))) return pos;
  if (FASTOUT_UNLIKELY(size > out_.room(pos))) pos = out_.make_room(pos, size);
  if (FASTOUT_LIKELY(size <= out_.room(pos))) {
    std::memset(pos, ' ', spaces_before);
    pos += spaces_before;
    if (sign != '\0') *pos++ = sign;
    if (prefix) {
      *pos++ = '0';
      *pos++ = spec;
    }
    std::memset(pos, '0', all_zeros);
    pos += all_zeros;
    std::memcpy(pos, digits, length);
    pos += length;
    std::memset(pos, ' ', spaces_after);
    return pos + spaces_after;
  }
  // Larger than the room the writer could make: it streams.
  pos = out_.fill(pos, ' ', spaces_before);
  if (sign != '\0') pos = out_.put(pos, sign);
  if (prefix) {
    pos = out_.put(pos, '0');
    pos = out_.put(pos, spec);
  }
  pos = out_.fill(pos, '0', all_zeros);
  pos = out_.append(pos, digits, length);
  return out_.fill(pos, ' ', spaces_after);
}

// -------------------------------------------------------- floating point

template <typename Args>
char* call::floating(const directive& d, Args& args, char* pos, int width, int precision,
                     std::uint16_t flags) {
  float_spec spec{d.conversion, flags, width, precision};
  const bool is_long_double = (d.length & length_long_double) != 0;
  const bool hex = d.what == action::hex_floating;
  // The usual case, "%.2f" or "%.17g": straight into the room.
  if (FASTOUT_LIKELY((flags | static_cast<unsigned>(width)) == 0 && !is_long_double && !hex &&
                     precision <= largest_fast_precision)) {
    const double value = args.template get<double>(d);
    if (FASTOUT_LIKELY(plain_point() && rounding_mode() == FE_TONEAREST)) {
      const std::size_t room = fast_double_room(precision);
      if (FASTOUT_UNLIKELY(out_.room(pos) < room)) pos = out_.make_room(pos, room);
      if (FASTOUT_LIKELY(out_.room(pos) >= room))
        return put_plain_double(pos, d.conversion, precision, value);
    }
    float_spec spec_of_value{d.conversion, flags, width, precision};
    if (!plain_point()) {
      const int result = locale_double(out_, pos, spec_of_value, d.length, value);
      if (result < 0) out_.error = -result;
      return pos;
    }
    return put_double(out_, pos, spec_of_value, value);
  }
  const bool by_locale =
      !plain_point() ||
      (!hex && (((flags & flag_group) && groups()) || ((flags & flag_i18n) && !plain_digits())));
  int result = 0;
  if (is_long_double) {
    const long double value = args.template get<long double>(d);
    if (FASTOUT_UNLIKELY(by_locale))
      result = locale_long_double(out_, pos, spec, d.length, value);
    else
      pos = put_long_double(out_, pos, spec, value);
  } else {
    const double value = args.template get<double>(d);
    if (FASTOUT_UNLIKELY(by_locale))
      result = locale_double(out_, pos, spec, d.length, value);
    else
      pos = put_double(out_, pos, spec, value);
  }
  if (result < 0) out_.error = -result;
  return pos;
}

// ------------------------------------------------- strings and characters

// `text` padded to `width` with spaces, before it or, with '-', after it.
char* call::put_padded(char* pos, const char* text, std::size_t size, int width,
                       std::uint16_t flags) {
  const std::size_t padding = output::padding(width, size);
  const bool left = (flags & flag_left) != 0;
  if (FASTOUT_UNLIKELY(out_.too_long(pos, size + padding))) return pos;
  if (FASTOUT_LIKELY(size + padding <= out_.room(pos))) {
    if (!left) {
      std::memset(pos, ' ', padding);
      pos += padding;
    }
    std::memcpy(pos, text, size);
    pos += size;
    if (left) {
      std::memset(pos, ' ', padding);
      pos += padding;
    }
    return pos;
  }
  if (!left) pos = out_.fill(pos, ' ', padding);
  pos = out_.append(pos, text, size);
  if (left) pos = out_.fill(pos, ' ', padding);
  return pos;
}

char* call::put_string(char* pos, const char* s, int width, int precision, std::uint16_t flags) {
  std::size_t size;
  if (s == nullptr) {
    // "(null)" if the precision lets all of it through, else nothing.
    if (precision == -1 || precision >= 6) {
      s = "(null)";
      size = 6;
    } else {
      s = "";
      size = 0;
    }
  } else {
    size = precision >= 0 ? ::strnlen(s, static_cast<std::size_t>(precision)) : std::strlen(s);
  }
  if (FASTOUT_LIKELY(width >= 0 && static_cast<std::size_t>(width) <= size)) {
    if (FASTOUT_UNLIKELY(out_.too_long(pos, size))) return pos;
    return out_.append(pos, s, size);
  }
  return put_padded(pos, s, size, width, flags);
}

// A wide string as glibc's outstring_converted_wide_string() writes it: in
// the locale's multibyte form, converted in chunks of at most 256 bytes, as
// glibc's wcsrtombs() into its 256-byte buffer converts them. A chunk takes
// the characters that fit in it; one the locale cannot convert, met while
// the chunk has room left, fails the call (EILSEQ) and the chunk is not
// written: the chunks before it stay, as in glibc's stream. A precision
// limits the bytes, in whole characters, and no character is read past
// what it lets through (an array with no terminator is fine).
constexpr std::size_t wide_chunk_size = 256;
constexpr std::size_t conversion_failed = static_cast<std::size_t>(-1);

// One chunk: the characters of `s` whose bytes fit in `limit` (at most
// wide_chunk_size), into `chunk`; `s` ends after them, or null at the
// terminator. Returns their bytes (0: none fit, or none left), or
// conversion_failed with errno set.
std::size_t convert_chunk(const wchar_t*& s, std::size_t limit, std::mbstate_t& state,
                          char* chunk) {
  std::size_t size = 0;
  char bytes[MB_LEN_MAX > 16 ? MB_LEN_MAX : 16];
  // A character is looked at only while there is room for a byte of it,
  // as glibc's conversion loop checks its output's room first.
  while (size < limit) {
    if (*s == L'\0') {
      s = nullptr;
      break;
    }
    const std::mbstate_t before = state;
    const std::size_t n = std::wcrtomb(bytes, *s, &state);
    if (n == conversion_failed) {
      if (errno == 0) errno = EILSEQ;
      return conversion_failed;
    }
    if (n > limit - size) {  // the next chunk's
      state = before;
      break;
    }
    std::memcpy(chunk + size, bytes, n);
    size += n;
    ++s;
  }
  return size;
}

// glibc's first pass, for the padding before a string: the bytes of `s`,
// at most `limit` of them, or conversion_failed.
std::size_t converted_size(const wchar_t* s, std::size_t limit) {
  std::mbstate_t state{};
  char chunk[wide_chunk_size];
  std::size_t total = 0;
  while (limit > 0 && s != nullptr) {
    const std::size_t size = convert_chunk(s, std::min(limit, wide_chunk_size), state, chunk);
    if (size == conversion_failed) return conversion_failed;
    if (size == 0) break;
    total += size;
    limit -= size;
  }
  return total;
}

char* call::put_wide_string(char* pos, const wchar_t* s, int width, int precision,
                            std::uint16_t flags) {
  if (s == nullptr) return put_string(pos, nullptr, width, precision, flags);
  const bool left = (flags & flag_left) != 0;
  const std::size_t limit =
      precision >= 0 ? static_cast<std::size_t>(precision) : static_cast<std::size_t>(-1);
  if (width > 0 && !left) {
    const std::size_t size = converted_size(s, limit);
    // Under a precision, glibc's first pass fails the call before anything
    // is written; without one, it measured the whole string (wcsrtombs()
    // with no buffer), and its failure only leaves out the padding: the
    // chunks before the bad character are still written.
    if (size == conversion_failed && precision >= 0) {
      out_.error = errno;
      return pos;
    }
    if (size != conversion_failed && size < static_cast<std::size_t>(width)) {
      if (out_.too_long(pos, static_cast<std::size_t>(width) - size)) return pos;
      pos = out_.fill(pos, ' ', static_cast<std::size_t>(width) - size);
    }
  }
  std::mbstate_t state{};
  char chunk[wide_chunk_size];
  std::size_t total = 0;
  std::size_t remaining = limit;
  while (remaining > 0 && s != nullptr) {
    const std::size_t size = convert_chunk(s, std::min(remaining, wide_chunk_size), state, chunk);
    if (size == conversion_failed) {
      out_.error = errno;
      return pos;
    }
    if (size == 0) break;
    pos = out_.append(pos, chunk, size);
    total += size;
    if (precision >= 0) remaining -= size;
  }
  if (width > 0 && left && total < static_cast<std::size_t>(width)) {
    if (out_.too_long(pos, static_cast<std::size_t>(width) - total)) return pos;
    pos = out_.fill(pos, ' ', static_cast<std::size_t>(width) - total);
  }
  return pos;
}

char* call::put_wide_char(char* pos, wchar_t c, int width, std::uint16_t flags) {
  char bytes[MB_LEN_MAX > 16 ? MB_LEN_MAX : 16];
  std::mbstate_t state{};
  const std::size_t n = std::wcrtomb(bytes, c, &state);
  if (n == static_cast<std::size_t>(-1)) {
    out_.error = errno != 0 ? errno : EILSEQ;
    return pos;
  }
  return put_padded(pos, bytes, n, width, flags);
}

// -------------------------------------------------------------- %n, unknown

template <typename Args>
void call::store_count(const directive& d, Args& args, char* pos) {
  // glibc's done: an int, whatever the length.
  const int done = static_cast<int>(out_.count(pos));
  void* where = args.template get<void*>(d);
  const bool is_longlong = !long_is_long_long && (d.length & length_long_double) != 0;
  const bool is_long_num = !long_is_int && (d.length & length_long) != 0;
  if (is_longlong)
    *static_cast<long long*>(where) = done;
  else if (is_long_num)
    *static_cast<long*>(where) = done;
  else if (d.length & length_char)
    *static_cast<char*>(where) = static_cast<char>(done);
  else if (!(d.length & length_short))
    *static_cast<int*>(where) = done;
  else
    *static_cast<short*>(where) = static_cast<short>(done);
}

// glibc's printf_unknown(): a directive of the second parser that neither
// parser knows, printed back in a canonical form: '%', the flags, the
// width and precision (from arguments too), and the conversion character
// ('\0', where the format ended, is not printed).
char* call::put_unknown(char* pos, const directive& d, int width, int precision,
                        std::uint16_t flags) {
  char text[64];
  char* t = text;
  *t++ = '%';
  if (flags & flag_alt) *t++ = '#';
  if (flags & flag_group) *t++ = '\'';
  if (flags & flag_showsign)
    *t++ = '+';
  else if (flags & flag_space)
    *t++ = ' ';
  if (flags & flag_left) *t++ = '-';
  if (flags & flag_pad_zero) *t++ = '0';
  if (flags & flag_i18n) *t++ = 'I';
  char digits[24];
  char* const digits_end = digits + sizeof digits;
  if (width != 0) {
    // As an unsigned long: INT_MIN, from "*", prints as a huge number.
    const auto as_unsigned_long =
        static_cast<unsigned long long>(static_cast<unsigned long>(static_cast<long>(width)));
    const char* w = number_digits(digits_end, as_unsigned_long, 10, false);
    std::memcpy(t, w, static_cast<std::size_t>(digits_end - w));
    t += digits_end - w;
  }
  if (precision != -1) {
    *t++ = '.';
    const auto as_unsigned_long =
        static_cast<unsigned long long>(static_cast<unsigned long>(static_cast<long>(precision)));
    const char* p = number_digits(digits_end, as_unsigned_long, 10, false);
    std::memcpy(t, p, static_cast<std::size_t>(digits_end - p));
    t += digits_end - p;
  }
  if (d.conversion != '\0') *t++ = d.conversion;
  return out_.append(pos, text, static_cast<std::size_t>(t - text));
}

}  // namespace

int continue_in_general(file& writer, const plan& p, std::size_t index, char* pos,
                        std::va_list args) {
  std::va_list rest;
  va_copy(rest, args);
  call c(writer, p);
  const int result = index == whole_call ? c.run(rest) : c.run_from(index, pos, rest);
  va_end(rest);
  return result;
}

int continue_with_string(file& writer, const plan& p, std::size_t index, char* pos,
                         std::va_list args, const char* s, int precision) {
  std::va_list rest;
  va_copy(rest, args);
  call c(writer, p);
  const int result = c.run_from(index, pos, rest, s, precision, true);
  va_end(rest);
  return result;
}

}  // namespace printf_engine
}  // namespace detail
}  // namespace fastout
