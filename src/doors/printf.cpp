// SPDX-License-Identifier: MIT
// fastout's printf engine (printf_internal.h): glibc 2.36's printf, byte for
// byte, straight into a writer's buffer, with no C library formatter. Here,
// what every call goes through, together so that the compiler inlines it
// into the C functions: the per-thread cache of plans, the fast executors,
// and the C door's printf family (fastout_fprintf() and its siblings).
//
// A call finds its format's plan (printf_format.cpp: parsed once per thread
// and format) in the cache, and a plan of common directives (integers,
// strings, characters and doubles, with flags, widths and precisions
// written in the format) runs in a fast executor, straight into the
// writer's free space; every other call, and the rest of one a fast executor cannot
// finish, is the general executor's (printf_call.cpp).
//
// test/printf_diff_test.c holds the engine to glibc's snprintf through every
// buffer size from 1 to 64, and test/printf_corpus_test.cpp to glibc's bytes
// recorded on Linux, on any platform.
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cfenv>
#include <cstring>
#include <exception>
#include <memory>
#include <system_error>
#include <type_traits>

#include <fastout/detail/decimal.h>
#include <fastout/file.h>

#include <fastout/standard_streams.h>

#include "doors/c_boundary_internal.h"
#include "doors/printf_internal.h"

namespace fastout {
namespace detail {
namespace printf_engine {
namespace {

// --------------------------------------------------------------- the cache

// Each thread has its own cache of plans: a call never waits for another
// thread, and nothing is shared. A plan is found by its format's address,
// and checked against a copy of the format's text, byte by byte up to the
// null: a format changed in place, or another one at a freed format's
// address, is parsed again, and a shorter one is never read past its end.
// Four plans per set of addresses; a new one replaces the oldest. Four
// ways, not two: a program's formats lie side by side in its read-only data,
// and three of them falling into one set of two (a layout a compiler's flags
// could bring about: allocations.none_in_c_api_calls met one in a run out of
// four) parsed every call of all three again, each time.
constexpr std::size_t cache_ways = 4;
constexpr std::size_t cache_sets = 16;
static_assert(cache_sets * cache_ways == cache_plans, "printf_internal.h's bound");

struct cache_slot {
  const char* key = nullptr;
  std::unique_ptr<plan> cached;
};

struct plan_cache {
  cache_slot slots[cache_sets][cache_ways];
  unsigned char oldest[cache_sets] = {};  // the way filled longest ago in each set
};

// The cache is made on a thread's first call (threads that never print pay
// nothing) and freed when the thread exits; a call made after that, from a
// later thread_local destructor, parses without a cache.
plan_cache* const cache_gone = reinterpret_cast<plan_cache*>(std::uintptr_t{1});
thread_local plan_cache* this_thread_cache = nullptr;

struct cache_owner {
  ~cache_owner() {
    delete (this_thread_cache != cache_gone ? this_thread_cache : nullptr);
    this_thread_cache = cache_gone;
  }
};

FASTOUT_ALWAYS_INLINE std::size_t set_of(const char* format) {
  auto bits = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(format));
  bits *= 0x9E3779B97F4A7C15u;
  return static_cast<std::size_t>(bits >> 60);  // 16 sets
}

FASTOUT_ALWAYS_INLINE bool same_text(const plan& p, const char* format) {
  return std::strcmp(p.text.data(), format) == 0;
}

// The calling thread's plan for `format`, or nullptr.
FASTOUT_ALWAYS_INLINE const plan* cached_plan(const char* format) {
  plan_cache* cache = this_thread_cache;
  if (FASTOUT_UNLIKELY(cache == nullptr || cache == cache_gone)) return nullptr;
  const cache_slot* slots = cache->slots[set_of(format)];
  for (std::size_t way = 0; way < cache_ways; ++way) {
    if (slots[way].key == format) {
      const plan* p = slots[way].cached.get();
      return same_text(*p, format) ? p : nullptr;
    }
  }
  return nullptr;
}

int (*one_number_runner(const plan& p))(file&, const plan&, std::va_list);

// Parses `format`, and keeps the plan in the thread's cache if it is small
// enough (else in `local`).
const plan& new_plan(const char* format, std::unique_ptr<plan>& local) {
  const std::size_t size = std::strlen(format);
  auto parsed = std::make_unique<plan>();
  parse(format, size, *parsed);
  plan_cache* cache = this_thread_cache;
  const bool cacheable = size <= longest_cached_format &&
                         parsed->first.size() <= most_cached_directives &&
                         parsed->second.size() <= most_cached_directives &&
                         parsed->arg_types.size() <= most_cached_arguments;
  if (!cacheable || cache == cache_gone) {
    local = std::move(parsed);
    return *local;
  }
  parsed->run_one = one_number_runner(*parsed);
  // Kept: no more memory than it needs.
  parsed->text.shrink_to_fit();
  parsed->first.shrink_to_fit();
  parsed->second.shrink_to_fit();
  parsed->arg_types.shrink_to_fit();
  if (cache == nullptr) {
    static thread_local cache_owner owner;  // deletes it when the thread exits
    (void)owner;
    cache = this_thread_cache = new plan_cache;
  }
  const std::size_t set = set_of(format);
  // The way with this key (its text changed), else an empty one, else the
  // one filled longest ago (the ways of a set fill in turn).
  std::size_t way = cache_ways;
  for (std::size_t w = 0; w < cache_ways && way == cache_ways; ++w)
    if (cache->slots[set][w].key == format) way = w;
  for (std::size_t w = 0; w < cache_ways && way == cache_ways; ++w)
    if (cache->slots[set][w].key == nullptr) way = w;
  if (way == cache_ways) {
    way = cache->oldest[set];
    cache->oldest[set] = static_cast<unsigned char>((way + 1) % cache_ways);
  }
  cache_slot& slot = cache->slots[set][way];
  slot.key = format;
  slot.cached = std::move(parsed);
  return *slot.cached;
}

}  // namespace

std::size_t cache_set_of(const char* format) noexcept { return set_of(format); }

std::size_t cache_memory() noexcept {
  const plan_cache* cache = this_thread_cache;
  if (cache == nullptr || cache == cache_gone) return 0;
  std::size_t total = sizeof(plan_cache);
  for (const auto& set : cache->slots)
    for (const cache_slot& slot : set)
      if (slot.cached) total += slot.cached->memory();
  return total;
}

namespace {

// --------------------------------------------------------- the fast path

// The hexadecimal digits of value at pos.
FASTOUT_ALWAYS_INLINE char* put_hex(char* pos, unsigned long long value, bool upper) {
  int digits = 1;
  for (unsigned long long v = value >> 4; v != 0; v >>= 4) ++digits;
  base_digits(pos + digits, value, 16, upper);
  return pos + digits;
}

// The literal text [begin, end) of a plan's format at `at`: one 16-byte
// copy from the plan's padded copy if it is shorter (the room for it is
// part of the directive's before it, directive::fast_room).
FASTOUT_ALWAYS_INLINE char* fast_literal(char* at, const char* text, std::uint32_t begin,
                                         std::uint32_t end) {
  const std::size_t size = end - begin;
  if (FASTOUT_LIKELY(size <= 16))
    std::memcpy(at, text + begin, 16);
  else
    std::memcpy(at, text + begin, size);
  return at + size;
}

// A plain %s, %.Ns or %.*s at `pos`, if the string is not null and fits in
// `room`; else nullptr, and the general executor writes it.
FASTOUT_ALWAYS_INLINE char* fast_string(char* pos, std::size_t room, const char* s, int precision) {
  if (FASTOUT_UNLIKELY(s == nullptr)) return nullptr;
  const std::size_t size =
      precision >= 0 ? ::strnlen(s, static_cast<std::size_t>(precision)) : std::strlen(s);
  if (FASTOUT_UNLIKELY(room < size)) return nullptr;
  std::memcpy(pos, s, size);
  return pos + size;
}

// ------------------------------------- the fast path: flags, width, precision

// `n` bytes of `c` at `pos`, where there is room for n + 16: a short run
// (a width's few spaces or zeros) in one 16-byte copy, not a call.
template <char c>
FASTOUT_ALWAYS_INLINE char* fill(char* pos, std::size_t n) {
  static constexpr char run[16] = {c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c};
  if (FASTOUT_LIKELY(n <= 16))
    std::memcpy(pos, run, 16);
  else
    std::memset(pos, c, n);
  return pos + n;
}

// glibc's number layout (printf_call.cpp's call::put_number), for bases 10
// and 16 with a width and precision from the format (fast_kind::formatted_*):
// [spaces][sign]["0x"][zeros]digits[spaces]. `pos` has room for d.bound + 16
// (directive::fast_room), so that each part up to 16 bytes is one copy.
FASTOUT_ALWAYS_INLINE char* put_formatted_number(char* pos, const directive& d, char sign,
                                                 unsigned long long magnitude) {
  // The digits, and 16 bytes after their start to copy at once.
  char area[decimal::most_bytes_stored + 20] = {};
  char* const area_end = area + decimal::most_bytes_stored + 4;
  const char* digits = area;
  std::size_t length = 0;
  const int precision = d.precision;
  // Precision 0 with the value 0: no digits at all.
  if (precision != 0 || magnitude != 0) {
    if (d.base == 10) {
      length = static_cast<std::size_t>(decimal::write(area, magnitude) - area);
    } else {
      digits = base_digits(area_end, magnitude, 16, d.upper);
      length = static_cast<std::size_t>(area_end - digits);
    }
  }
  const std::uint16_t flags = d.flags;
  const std::size_t zeros =
      precision > static_cast<int>(length) ? static_cast<std::size_t>(precision) - length : 0;
  const bool prefix = d.base == 16 && (flags & flag_alt) != 0 && magnitude != 0;
  const std::size_t size = (sign != '\0' ? 1u : 0u) + (prefix ? 2u : 0u) + zeros + length;
  const auto width = static_cast<std::size_t>(d.width);
  const std::size_t padding = width > size ? width - size : 0;
  std::size_t spaces_before = 0, spaces_after = 0, all_zeros = zeros;
  // '-' wins over '0', and a precision turns '0' off.
  if (flags & flag_left)
    spaces_after = padding;
  else if ((flags & flag_pad_zero) && precision < 0)
    all_zeros += padding;
  else
    spaces_before = padding;
  pos = fill<' '>(pos, spaces_before);
  if (sign != '\0') *pos++ = sign;
  if (prefix) {
    pos[0] = '0';
    pos[1] = d.conversion;
    pos += 2;
  }
  pos = fill<'0'>(pos, all_zeros);
  if (FASTOUT_LIKELY(length <= 16))
    std::memcpy(pos, digits, 16);
  else
    std::memcpy(pos, digits, length);
  pos += length;
  return fill<' '>(pos, spaces_after);
}

// The digits of `magnitude` in d.base (10 or 16) ending at `end`; returns
// where they begin. Numbers below 100 (a date's fields, a byte's two hex
// digits) take a table's pair.
FASTOUT_ALWAYS_INLINE char* short_digits(char* end, const directive& d,
                                         unsigned long long magnitude) {
  static constexpr char pairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  if (d.base != 10) return base_digits(end, magnitude, 16, d.upper);
  if (FASTOUT_LIKELY(magnitude < 100)) {
    std::memcpy(end - 2, pairs + 2 * magnitude, 2);
    return end - 2 + (magnitude < 10 ? 1 : 0);
  }
  // decimal::write() writes from the start, so the digits go to a second
  // area and then end at `end`, in one 20-byte copy (`end` has 20 bytes
  // before it and 17 after).
  char digits[decimal::most_bytes_stored + 4];
  const auto length = static_cast<std::size_t>(decimal::write(digits, magnitude) - digits);
  char* const begin = end - length;
  std::memcpy(begin, digits, 20);
  return begin;
}

// A padded integer (directive::fast_pad: "%02x", "%6d", "%5u"), at `pos`
// with room for its width, 20 digits and 16 bytes: the width's padding and
// the digits, each in one copy. A negative number padded with zeros takes
// glibc's full layout (its sign goes before the zeros).
FASTOUT_ALWAYS_INLINE char* put_padded_number(char* pos, const directive& d, bool negative,
                                              unsigned long long magnitude) {
  char area[64] = {};
  char* const end = area + 40;
  char* digits = short_digits(end, d, magnitude);
  if (negative) *--digits = '-';
  const auto length = static_cast<std::size_t>(end - digits);
  const auto width = static_cast<std::size_t>(d.width);
  const std::size_t padding = width > length ? width - length : 0;
  pos = d.fast_pad == '0' ? fill<'0'>(pos, padding) : fill<' '>(pos, padding);
  std::memcpy(pos, digits, 24);
  return pos + length;
}

// A signed argument's sign, as glibc writes it: '-', or '+' or ' ' by the
// flags, or none ('\0').
FASTOUT_ALWAYS_INLINE char sign_of(bool negative, std::uint16_t flags) {
  return negative ? '-' : (flags & flag_showsign) ? '+' : (flags & flag_space) ? ' ' : '\0';
}

// A formatted integer (fast_kind::formatted_*): the short layout where it
// is only padded, else glibc's full one.
template <typename Signed>
FASTOUT_ALWAYS_INLINE char* put_formatted_signed(char* pos, const directive& d, Signed value) {
  const bool negative = value < 0;
  const auto magnitude = static_cast<unsigned long long>(
      negative ? 0 - static_cast<std::make_unsigned_t<Signed>>(value)
               : static_cast<std::make_unsigned_t<Signed>>(value));
  if (FASTOUT_LIKELY(d.fast_pad == ' ' || (d.fast_pad == '0' && !negative)))
    return put_padded_number(pos, d, negative, magnitude);
  return put_formatted_number(pos, d, sign_of(negative, d.flags), magnitude);
}

FASTOUT_ALWAYS_INLINE char* put_formatted_unsigned(char* pos, const directive& d,
                                                   unsigned long long magnitude) {
  if (FASTOUT_LIKELY(d.fast_pad != 0)) return put_padded_number(pos, d, false, magnitude);
  return put_formatted_number(pos, d, '\0', magnitude);
}

// `size` bytes at `text` (not in the buffer) padded to d.width with spaces,
// before them or, with '-', after them; `pos` has room for that and 16
// bytes more.
FASTOUT_ALWAYS_INLINE char* put_padded_text(char* pos, const char* text, std::size_t size,
                                            const directive& d) {
  const auto width = static_cast<std::size_t>(d.width);
  const std::size_t padding = width > size ? width - size : 0;
  const bool left = (d.flags & flag_left) != 0;
  if (!left) pos = fill<' '>(pos, padding);
  std::memcpy(pos, text, size);
  pos += size;
  if (left) pos = fill<' '>(pos, padding);
  return pos;
}

// A double with flags and a width (fast_kind::formatted_double), as
// glibc's printf_fp lays it out: put_plain_double()'s text a byte in, then
// its sign by the flags, and the width's spaces, or zeros after the sign
// for a finite number with '0' (inf and nan take spaces). `pos` has room for
// fast_double_room(d.precision) + 1 + d.width (and so for 32 bytes more
// than the text, and 16 more than the padding).
FASTOUT_ALWAYS_INLINE char* put_formatted_double(char* pos, const directive& d, double value) {
  char* text = pos + 1;
  char* const text_end = put_plain_double(text, d.conversion, d.precision, value);
  const std::uint16_t flags = d.flags;
  char sign;
  if (*text == '-') {
    sign = '-';
    ++text;
  } else {
    sign = sign_of(false, flags);
  }
  const auto body = static_cast<std::size_t>(text_end - text);
  const std::size_t size = body + (sign != '\0' ? 1u : 0u);
  const auto width = static_cast<std::size_t>(d.width);
  const std::size_t padding = width > size ? width - size : 0;
  const bool zeros =
      (flags & (flag_left | flag_pad_zero)) == flag_pad_zero && *text >= '0' && *text <= '9';
  const bool left = (flags & flag_left) != 0;
  if (FASTOUT_UNLIKELY(body > 32)) {
    // A long text (%f of a large number): moved, then what goes around it.
    char* const body_at =
        left ? pos + (sign != '\0' ? 1 : 0) : pos + padding + (sign != '\0' ? 1 : 0);
    std::memmove(body_at, text, body);
    if (left) {
      if (sign != '\0') *pos = sign;
      std::memset(body_at + body, ' ', padding);
      return body_at + body + padding;
    }
    if (zeros) {
      if (sign != '\0') *pos++ = sign;
      std::memset(pos, '0', padding);
    } else {
      std::memset(pos, ' ', padding);
      if (sign != '\0') pos[padding] = sign;
    }
    return body_at + body;
  }
  // The text in a register or two, out of the way of the padding and sign
  // that go before it.
  char moved[32];
  std::memcpy(moved, text, sizeof moved);
  if (!left) {
    if (zeros) {
      if (sign != '\0') *pos++ = sign;
      pos = fill<'0'>(pos, padding);
    } else {
      pos = fill<' '>(pos, padding);
      if (sign != '\0') *pos++ = sign;
    }
    std::memcpy(pos, moved, sizeof moved);
    return pos + body;
  }
  if (sign != '\0') *pos++ = sign;
  std::memcpy(pos, moved, sizeof moved);
  return fill<' '>(pos + body, padding);
}

// Whether the fast executor's doubles are glibc's here: the "C" locale's
// decimal point, and rounding to nearest; asked once per call (`known`,
// -1 until then).
FASTOUT_ALWAYS_INLINE bool plain_floats(signed char& known) {
  if (FASTOUT_UNLIKELY(known < 0))
    known = decimal_point_is_dot() && rounding_mode() == FE_TONEAREST;
  return known != 0;
}

// The fast executor: a plan made only of common directives, plain or with
// flags, widths and precisions from the format (plan::fast), written straight into the writer's free space
// while it has the room each directive can take, and committed at once
// (file::commit_room()), as a bounded print is. Where the room runs short,
// or a directive needs what this does not do (a string longer than the
// room, a null one, another locale or rounding mode), the general executor
// takes the call over from that directive with the text so far.
// `ap` is taken by value: on x86-64 Linux (System V) a pointer to the
// caller's va_list, on 64-bit Windows a copy of its position (a char*).
// Either way the arguments are consumed in order, as vfprintf consumes its
// va_list, and continue_in_general() and continue_with_string() are given
// `ap` as it stands, so they go on from where this stopped; nothing reads
// the caller's va_list after the call.
FASTOUT_HOT FASTOUT_NOINLINE int run_fast(file& writer, const plan& p, std::va_list ap) {
  using fast_kind = directive::fast_kind;
  const buffer_state room = writer_of(writer).room();
  char* pos = room.pos;
  char* const end = room.limit;
  const char* const text = p.text.data();
  if (p.lead != 0) {
    if (FASTOUT_UNLIKELY(static_cast<std::size_t>(end - pos) < p.lead + 16))
      return continue_in_general(writer, p, whole_call, pos, ap);
    pos = fast_literal(pos, text, 0, p.lead);
  }
  signed char floats_known = -1;
  const directive* const first = p.first.data();
  const directive* const last = first + p.first.size();
  for (const directive* at = first; at != last; ++at) {
    const directive& d = *at;
    // The directive's index, for a hand-over (computed there only).
    const auto i = [at, first] { return static_cast<std::size_t>(at - first); };
    if (FASTOUT_UNLIKELY(static_cast<std::size_t>(end - pos) < d.fast_room))
      return continue_in_general(writer, p, i(), pos, ap);
    switch (d.fast) {
      case fast_kind::percent: *pos++ = '%'; break;
      case fast_kind::int_value: pos = decimal::write_signed(pos, va_arg(ap, int)); break;
      case fast_kind::long_long_value:
        pos = decimal::write_signed(pos, va_arg(ap, long long));
        break;
      case fast_kind::unsigned_value: pos = decimal::write(pos, va_arg(ap, unsigned)); break;
      case fast_kind::unsigned_long_long_value:
        pos = decimal::write(pos, va_arg(ap, unsigned long long));
        break;
      case fast_kind::hex_value: pos = put_hex(pos, va_arg(ap, unsigned), d.upper); break;
      case fast_kind::hex_long_long_value:
        pos = put_hex(pos, va_arg(ap, unsigned long long), d.upper);
        break;
      case fast_kind::character:
        *pos++ = static_cast<char>(static_cast<unsigned char>(va_arg(ap, int)));
        break;
      case fast_kind::string: {
        int precision = d.precision;
        if (d.flags & flag_precision_star) precision = std::max(va_arg(ap, int), -1);
        const char* s = va_arg(ap, const char*);
        char* const after =
            fast_string(pos, static_cast<std::size_t>(end - pos) - d.fast_room, s, precision);
        if (FASTOUT_UNLIKELY(after == nullptr))
          return continue_with_string(writer, p, i(), pos, ap, s, precision);
        pos = after;
        break;
      }
      case fast_kind::double_value:
        if (FASTOUT_UNLIKELY(!plain_floats(floats_known)))
          return continue_in_general(writer, p, i(), pos, ap);
        pos = put_plain_double(pos, d.conversion, d.precision, va_arg(ap, double));
        break;
      case fast_kind::count: *va_arg(ap, int*) = static_cast<int>(pos - room.pos); break;
      case fast_kind::formatted_int: pos = put_formatted_signed(pos, d, va_arg(ap, int)); break;
      case fast_kind::formatted_long_long:
        pos = put_formatted_signed(pos, d, va_arg(ap, long long));
        break;
      case fast_kind::formatted_unsigned:
        pos = put_formatted_unsigned(pos, d, va_arg(ap, unsigned));
        break;
      case fast_kind::formatted_unsigned_long_long:
        pos = put_formatted_unsigned(pos, d, va_arg(ap, unsigned long long));
        break;
      case fast_kind::padded_character: {
        const char c = static_cast<char>(static_cast<unsigned char>(va_arg(ap, int)));
        pos = put_padded_text(pos, &c, 1, d);
        break;
      }
      case fast_kind::padded_string: {
        int precision = d.precision;
        if (d.flags & flag_precision_star) precision = std::max(va_arg(ap, int), -1);
        const char* s = va_arg(ap, const char*);
        if (FASTOUT_UNLIKELY(s == nullptr))
          return continue_with_string(writer, p, i(), pos, ap, s, precision);
        const std::size_t size =
            precision >= 0 ? ::strnlen(s, static_cast<std::size_t>(precision)) : std::strlen(s);
        const std::size_t padded = std::max(size, static_cast<std::size_t>(d.width));
        if (FASTOUT_UNLIKELY(static_cast<std::size_t>(end - pos) - d.fast_room < padded))
          return continue_with_string(writer, p, i(), pos, ap, s, precision);
        pos = put_padded_text(pos, s, size, d);
        break;
      }
      case fast_kind::formatted_double:
        if (FASTOUT_UNLIKELY(!plain_floats(floats_known)))
          return continue_in_general(writer, p, i(), pos, ap);
        pos = put_formatted_double(pos, d, va_arg(ap, double));
        break;
      case fast_kind::none: return continue_in_general(writer, p, i(), pos, ap);
    }
    pos = fast_literal(pos, text, d.end, d.next);
  }
  const auto total = static_cast<std::size_t>(pos - room.pos);
  if (FASTOUT_UNLIKELY(total > static_cast<std::size_t>(INT_MAX))) return -EOVERFLOW;
  writer_of(writer).commit_room(pos);
  return static_cast<int>(total);
}

// The fast executor for a plan of one number between two literal texts of
// up to 16 bytes (plan::run_one): run_fast() with nothing left to choose.
template <directive::fast_kind kind>
FASTOUT_HOT int run_one(file& writer, const plan& p, std::va_list ap) {
  using fast_kind = directive::fast_kind;
  const buffer_state room = writer_of(writer).room();
  char* pos = room.pos;
  const directive& d = p.first[0];
  // Both texts in one 16-byte copy each, and the number's room.
  if (FASTOUT_UNLIKELY(static_cast<std::size_t>(room.limit - pos) < 16 + d.fast_room))
    return continue_in_general(writer, p, whole_call, pos, ap);
  const char* const text = p.text.data();
  if (p.lead != 0) {
    std::memcpy(pos, text, 16);
    pos += p.lead;
  }
  switch (kind) {
    case fast_kind::int_value: pos = decimal::write_signed(pos, va_arg(ap, int)); break;
    case fast_kind::long_long_value: pos = decimal::write_signed(pos, va_arg(ap, long long)); break;
    case fast_kind::unsigned_value: pos = decimal::write(pos, va_arg(ap, unsigned)); break;
    case fast_kind::unsigned_long_long_value:
      pos = decimal::write(pos, va_arg(ap, unsigned long long));
      break;
    default:  // double_value
      if (FASTOUT_UNLIKELY(!decimal_point_is_dot() || rounding_mode() != FE_TONEAREST))
        return continue_in_general(writer, p, whole_call, room.pos, ap);
      pos = put_plain_double(pos, d.conversion, d.precision, va_arg(ap, double));
      break;
  }
  std::memcpy(pos, text + d.end, 16);
  pos += d.next - d.end;
  writer_of(writer).commit_room(pos);
  return static_cast<int>(pos - room.pos);
}

// The plan::run_one for `p`, if it is one number between short texts.
int (*one_number_runner(const plan& p))(file&, const plan&, std::va_list) {
  using fast_kind = directive::fast_kind;
  if (!p.fast || p.first.size() != 1 || p.lead > 16) return nullptr;
  const directive& d = p.first[0];
  if (d.next - d.end > 16) return nullptr;
  switch (d.fast) {
    case fast_kind::int_value: return &run_one<fast_kind::int_value>;
    case fast_kind::long_long_value: return &run_one<fast_kind::long_long_value>;
    case fast_kind::unsigned_value: return &run_one<fast_kind::unsigned_value>;
    case fast_kind::unsigned_long_long_value: return &run_one<fast_kind::unsigned_long_long_value>;
    case fast_kind::double_value: return &run_one<fast_kind::double_value>;
    default: return nullptr;
  }
}

// A call whose plan is not in the cache, or not fast, or whose writer's
// free space is closed.
FASTOUT_NOINLINE int run_general(file& writer, const char* format, const plan* p,
                                 std::va_list args) {
  std::unique_ptr<plan> local;
  if (p == nullptr) p = &new_plan(format, local);
  if (p->fast && writer_of(writer).room().pos != writer_of(writer).room().limit)
    return run_fast(writer, *p, args);
  return continue_in_general(writer, *p, whole_call, nullptr, args);
}
}  // namespace
}  // namespace printf_engine

namespace {
// vprintf_to() of printf_internal.h, inline in the C door below: a call
// whose plan is cached and whose writer's free space is open goes from the
// cache to its executor with no call in between.
FASTOUT_ALWAYS_INLINE int vprintf_to(file& writer, const char* format, std::va_list args) {
  using namespace printf_engine;
  const plan* p = cached_plan(format);
  if (FASTOUT_LIKELY(p != nullptr &&
                     writer_of(writer).room().pos != writer_of(writer).room().limit)) {
    if (FASTOUT_LIKELY(p->run_one != nullptr)) return p->run_one(writer, *p, args);
    if (FASTOUT_LIKELY(p->fast)) return run_fast(writer, *p, args);
  }
  return run_general(writer, format, p, args);
}
}  // namespace

}  // namespace detail
}  // namespace fastout

// ------------------------------------------- the C door's printf family

// fastout_fprintf() and its siblings (c_api.h), here rather than in
// c_api.cpp so that the cache lookup above is inlined into them
// (c_boundary_internal.h has the boundary's helpers they share with c_api.cpp).
namespace {
FASTOUT_ALWAYS_INLINE int print_formatted(fastout_file* handle, const char* format,
                                          std::va_list args) noexcept {
  using fastout::call_failed;
  if (handle == nullptr) return fastout::failure(EINVAL);
  fastout::file& writer = fastout::writer_of(handle);
  if (format == nullptr) return call_failed(writer, EINVAL);
  // A negative result is the call's own failure (a format glibc refuses, a
  // wide character, EOVERFLOW), unless the writer has failed: then its
  // sticky error, as for every call. A writer whose free space is open has
  // no sticky error (an error closes it), which saves asking: the usual
  // call, written into the free space, returns at once.
  int result;
  try {
    result = fastout::detail::vprintf_to(writer, format, args);
  } catch (...) {
    return call_failed(writer, fastout::error_number_of(std::current_exception()));
  }
  const fastout::detail::buffer_state free_space = fastout::detail::writer_of(writer).room();
  if (FASTOUT_LIKELY(result >= 0 && free_space.pos != free_space.limit)) return result;
  if (int error_number = fastout::detail::writer_of(writer).sticky_error())
    return call_failed(writer, error_number);
  if (result < 0) return call_failed(writer, -result);
  return result;
}
}  // namespace

FASTOUT_HOT int fastout_fprintf(fastout_file* handle, const char* format, ...) noexcept {
  va_list args;
  va_start(args, format);
  int result = print_formatted(handle, format, args);
  va_end(args);
  return result;
}

FASTOUT_HOT int fastout_vfprintf(fastout_file* handle, const char* format, va_list args) noexcept {
  return print_formatted(handle, format, args);
}

FASTOUT_HOT int fastout_printf(const char* format, ...) noexcept {
  fastout_file* handle = nullptr;
  if (int error = fastout::standard_handle(fastout::standard_output, handle)) return error;
  va_list args;
  va_start(args, format);
  int result = print_formatted(handle, format, args);
  va_end(args);
  return result;
}

FASTOUT_HOT int fastout_vprintf(const char* format, va_list args) noexcept {
  fastout_file* handle = nullptr;
  if (int error = fastout::standard_handle(fastout::standard_output, handle)) return error;
  return print_formatted(handle, format, args);
}
