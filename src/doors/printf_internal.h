// SPDX-License-Identifier: MIT
// fastout's printf engine, behind fastout_fprintf() and its siblings
// (defined in src/doors/printf.cpp). Internal: not installed.
//
// The engine is fastout's own: glibc 2.36's printf, byte for byte, for
// every conversion, flag, length modifier and argument form glibc documents
// in the "C" locale, on every platform. Its parts:
//
//   printf.cpp         what every call goes through, together so that it is
//                      inlined into the C functions: vprintf_to(), the C
//                      door's printf family (fastout_fprintf, ...), the
//                      per-thread cache of plans, and the fast executors
//                      (common directives, with flags, widths and
//                      precisions written in the format, straight into
//                      the writer's free space)
//   printf_call.cpp    the general executor: any plan, its arguments in
//                      order or by position; integers (their decimal digits
//                      from detail/decimal.h), strings, characters, %p, %n,
//                      %m, %%, and what glibc prints for a directive it does
//                      not know
//   printf_output.cpp  a call's text on its way into the writer (output)
//   printf_format.cpp  parsing, as glibc's two parsers do, into a plan
//   printf_float.cpp   floating point: digits from {fmt} where they are
//                      glibc's, exact big-number digits where {fmt} cannot
//                      give them (long double, large precisions, another
//                      rounding mode), %a, and printf's layout of them
//   printf_locale.cpp  what only the C library knows: the locale (decimal
//                      point, grouping, digits), the directives that depend
//                      on it (through its snprintf), and the texts of
//                      errno for %m
//
// Only printf_locale.cpp calls a C library formatter: a test
// (printf_engine_uses_no_libc_formatter) checks the others' object files.
#ifndef FASTOUT_PRINTF_INTERNAL_H_
#define FASTOUT_PRINTF_INTERNAL_H_

#include <cstdarg>
#include <cstddef>
#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fastout/file.h>

namespace fastout {
class file;
namespace detail {

/// The engine's entry, vprintf_to(writer, format, args), is inline in
/// printf.cpp, under the C door's printf family (fastout_fprintf() and its
/// siblings, defined there beside the cache of plans): it appends to
/// `writer` exactly the bytes glibc 2.36's vfprintf(format, args) would
/// write, and returns their number.
///
/// The text goes into the writer's free space; a text that fits in the
/// buffer is never split across a flush (older text is sent to make room),
/// and a text larger than the whole buffer streams to the file. Returns a
/// negative errno where glibc's would fail (EINVAL, EILSEQ, EOVERFLOW, and
/// ENOMEM for positional arguments past NL_ARGMAX): none of the text is then
/// added unless part of it had already been sent. Throws std::system_error
/// for a write error, as the writer's own calls do. `args` is consumed as
/// vfprintf consumes it. Thread-safe: several threads may print with
/// several writers at once.

namespace printf_engine {

// ------------------------------------------------------------- directives

// A directive's flags, as glibc's struct printf_info has them, and whether
// its width and precision come from the next arguments (glibc's first
// parser, which takes arguments in order).
enum : std::uint16_t {
  flag_left = 1,       // '-', or a negative width argument
  flag_showsign = 2,   // '+'
  flag_space = 4,      // ' '
  flag_alt = 8,        // '#'
  flag_pad_zero = 16,  // '0', and glibc's pad character is '0'
  flag_group = 32,     // '\'': the locale's digit grouping
  flag_i18n = 64,      // 'I': the locale's digits
  flag_width_star = 128,
  flag_precision_star = 256,
};

// Length modifiers, as glibc's printf_info bits: what "hh", "h", "l", "ll",
// "L", "q", "j", "z" and "t" set depends on the parser and on the
// platform's type sizes, as in glibc.
enum : std::uint8_t {
  length_char = 1,
  length_short = 2,
  length_long = 4,
  length_long_double = 8,  // also "ll" and "q": long long for integers
};

// What a directive does.
enum class action : std::uint8_t {
  percent,          // %%
  signed_number,    // %d %i
  unsigned_number,  // %u %o %x %X %b %B
  floating,         // %f %F %e %E %g %G
  hex_floating,     // %a %A
  character,        // %c %C
  string,           // %s %S
  pointer,          // %p
  count,            // %n
  strerror,         // %m
  unknown,          // anything else: glibc prints the directive back
};

// The type of an argument, as the second parser (positional arguments)
// takes it from the va_list.
enum class arg_type : std::uint8_t {
  int_value,  // int, and what promotes to it; glibc's default for a gap
  long_value,
  long_long_value,
  double_value,
  long_double_value,
  pointer_value,
  wint_value,
};

struct directive {
  std::uint32_t begin = 0;  // offset of its '%' in the format
  std::uint32_t end = 0;    // after it: the literal text after it is [end, next)
  std::uint32_t next = 0;
  int width = 0;       // 0: none
  int precision = -1;  // -1: none
  // Positional arguments (the second parser): the arguments' indexes, -1
  // where there is none.
  std::int32_t width_arg = -1;
  std::int32_t precision_arg = -1;
  std::int32_t data_arg = -1;
  std::uint16_t flags = 0;
  std::uint8_t length = 0;
  char conversion = 0;  // glibc's spec: '\0' where the format ended
  action what = action::unknown;
  // For a number, the base (2, 8, 10 or 16) and upper-case digits.
  std::uint8_t base = 10;
  bool upper = false;
  // The most bytes this directive can write, its width included, or 0
  // where only its argument says (strings, %m, widths or precisions from
  // arguments) or the locale (the '\'' and 'I' flags).
  std::uint32_t bound = 0;
  // The fast executor's: how it writes this directive, if it can (the
  // common directives, plain or with flags, a width and a precision written
  // in the format), and the room that takes with the literal text after
  // it, or with 16 bytes if that is shorter (a fixed-size copy).
  enum class fast_kind : std::uint8_t {
    none,
    percent,
    int_value,        // %d %i
    long_long_value,  // %ld %lld %jd %zd ... where they are 64 bits
    unsigned_value,   // %u
    unsigned_long_long_value,
    hex_value,  // %x %X
    hex_long_long_value,
    character,     // %c
    string,        // %s %.Ns %.*s
    double_value,  // %f %e %g and upper case, a precision up to 128
    count,         // %n
    // With flags, a width or a precision (none from an argument but a
    // string's precision), each at most largest_fast_width: glibc's
    // layout of the same, in the fast executor.
    formatted_int,                 // %5d %+d %-8ld %.3d ... (int)
    formatted_long_long,           // the same where the argument is 64 bits
    formatted_unsigned,            // %02x %#x %6u ... (unsigned)
    formatted_unsigned_long_long,  // %016lx ...
    padded_character,              // %3c %-2c
    padded_string,                 // %-12s %8.3s %-*.*s without the width star
    formatted_double,              // %8.2f %+e %08.3f %-10g, no '#'
  } fast = fast_kind::none;
  // For a formatted integer that is only padded (no precision, no flag but
  // '0', a width of at most 16: "%02x", "%6d"), the padding character, ' '
  // or '0', for the fast executor's short layout; 0 for glibc's full one.
  char fast_pad = 0;
  std::uint32_t fast_room = 0;
};

// The widest width and largest integer precision the fast executor takes
// (it makes room for all of it at once); larger ones are the general
// executor's.
constexpr int largest_fast_width = 1024;

// How glibc's first parser left the format after the directives it took.
enum class stop : std::uint8_t {
  at_end,      // the whole format
  positional,  // the second parser takes over at the next directive
  invalid,     // EINVAL: the format ends inside a directive
  overflow,    // EOVERFLOW: a number in a directive exceeds INT_MAX
};

// A parsed format: what a call does with it, computed once.
struct plan {
  // The format and 16 zeros after its null: the cache checks the contents
  // against it, and literal text of up to 16 bytes is copied from it with
  // one fixed-size copy.
  std::string text;
  std::uint32_t size = 0;  // strlen(format)
  std::uint32_t lead = 0;  // the literal text before the first directive
  // The directives glibc's first parser takes (arguments in order), and
  // then what happens.
  std::vector<directive> first;
  stop after_first = stop::at_end;
  // With stop::positional: every directive as glibc's second parser reads
  // it, from the first (those already done in order are skipped), and the
  // arguments it takes, all of them, in order, by type.
  std::vector<directive> second;
  std::vector<arg_type> arg_types;
  // The most bytes `first` can write, literal text included, when every
  // directive has a bound (and stop::at_end); 0 otherwise.
  std::size_t bound = 0;
  // Whether `first` has floating-point directives (the locale's decimal
  // point may make them longer than their bound).
  bool has_floats = false;
  // Whether a directive prints errno (%m): the call keeps it at its start.
  bool uses_errno = false;
  // Whether the fast executor can take every directive (stop::at_end).
  bool fast = false;
  // For a fast plan of one number between two literal texts of up to 16
  // bytes ("%lld\n", "%.17g\n"), the fast executor made for its kind
  // (printf.cpp sets it when it caches the plan); nullptr otherwise.
  int (*run_one)(file& writer, const plan& p, std::va_list args) = nullptr;

  /// The heap memory this plan holds, for the cache's budget.
  std::size_t memory() const noexcept;
};

/// Parses `format` (strlen(format) == size) into `p`, as glibc 2.36 would.
void parse(const char* format, std::size_t size, plan& p);

// The per-thread cache of plans (printf.cpp): at most cache_plans plans, of
// formats of at most longest_cached_format bytes with at most
// most_cached_directives directives and most_cached_arguments positional
// arguments; other formats are parsed at every call. Its memory, in the
// worst case, is cache_memory_bound bytes per thread that prints (a usual
// format's plan takes a few hundred).
constexpr std::size_t cache_plans = 64;
constexpr std::size_t longest_cached_format = 256;
constexpr std::size_t most_cached_directives = 32;
constexpr std::size_t most_cached_arguments = 64;
constexpr std::size_t largest_cached_plan = sizeof(plan) + longest_cached_format + 18 +
                                            2 * most_cached_directives * sizeof(directive) +
                                            most_cached_arguments * sizeof(arg_type);
constexpr std::size_t cache_memory_bound =
    cache_plans * (largest_cached_plan + 2 * sizeof(void*)) + 64;
/// The memory the calling thread's cache holds now (for tests).
std::size_t cache_memory() noexcept;
/// The set of the cache that `format`'s address falls into (for tests that
/// fill one set on purpose).
std::size_t cache_set_of(const char* format) noexcept;

// ------------------------------------------------------------ the output

// One call's text on its way into the writer: a piece the writer began
// (file::begin_piece()), or, while the text fits, the writer's free space
// (file::room()), committed at the end. The producer keeps its position in
// a local `char* pos` that it passes to these calls and gets back, so that
// the compiler keeps it in a register across char stores.
class output {
 public:
  /// Throws std::system_error if the writer cannot take a call (closed,
  /// failed, lent to a cursor), as file::begin_piece() does.
  explicit output(file& writer);
  output(const output&) = delete;
  output& operator=(const output&) = delete;

  char* start() const noexcept { return start_; }
  char* limit() const noexcept { return end_; }
  std::size_t room(const char* pos) const noexcept { return static_cast<std::size_t>(end_ - pos); }
  /// Bytes of the call's text so far.
  std::size_t count(const char* pos) const noexcept {
    return sent_ + static_cast<std::size_t>(pos - start_);
  }

  /// Room for `size` more bytes at the returned position: contiguous if the
  /// text can stay whole in the buffer, else possibly less (the text
  /// streams), but never none. Sends older text, or the call's own, to make
  /// it; throws std::system_error on a write error.
  char* make_room(char* pos, std::size_t size);

  FASTOUT_ALWAYS_INLINE char* append(char* pos, const char* data, std::size_t size) {
    if (FASTOUT_LIKELY(size <= room(pos))) {
      std::memcpy(pos, data, size);
      return pos + size;
    }
    return append_slow(pos, data, size);
  }
  FASTOUT_ALWAYS_INLINE char* put(char* pos, char c) {
    if (FASTOUT_UNLIKELY(pos == end_)) pos = make_room(pos, 1);
    *pos = c;
    return pos + 1;
  }
  FASTOUT_NOINLINE char* append_slow(char* pos, const char* data, std::size_t size);
  FASTOUT_NOINLINE char* fill(char* pos, char c, std::size_t size);
  // How many of `size` bytes the next chunk at `pos` takes: room is made
  // first where there is none, or where the text stays whole and all of it
  // does not fit (streaming, the area is filled before it is sent).
  std::size_t next_chunk(char*& pos, std::size_t size);

  /// Whether `size` more bytes would make the call's text longer than
  /// INT_MAX, which printf cannot count: then the call fails with
  /// EOVERFLOW (set here), and the directive writes nothing.
  bool too_long(const char* pos, std::size_t size) noexcept {
    if (FASTOUT_LIKELY(size <= static_cast<std::size_t>(INT_MAX) - count(pos))) return false;
    error = EOVERFLOW;
    return true;
  }
  /// A directive's padding, as glibc computes it: `width` less what the
  /// directive writes, in int arithmetic that wraps (INT_MIN, a width of
  /// "*" that was -INT_MIN, leaves a huge padding and EOVERFLOW); none if
  /// that is not positive.
  static std::size_t padding(long long width, std::size_t size) noexcept {
    const auto rest =
        static_cast<int>(static_cast<std::uint32_t>(static_cast<unsigned long long>(width) - size));
    return rest > 0 ? static_cast<std::size_t>(rest) : 0;
  }

  /// The call's text is the writer's: its length, or -EOVERFLOW (the text
  /// is then dropped, as for fail()) if it exceeds INT_MAX.
  int finish(char* pos);

  /// Set by a directive that fails the call (a positive errno).
  int error = 0;
  /// The call fails: none of its text is added, unless some was sent
  /// already; then, as glibc's vfprintf, what was made before stays.
  /// Returns -error_number.
  int fail(char* pos, int error_number);

 private:
  char* begin_piece(char* pos);

  file& writer_;
  char* start_;  // where the text not yet sent begins
  char* end_;
  std::size_t sent_ = 0;  // bytes of the text sent already (streaming)
  bool in_piece_ = false;
  piece piece_{};
  char spare_[4096];  // the piece of a writer with no buffer
};

// ------------------------------------------ the general executor: printf_call.cpp

/// The general executor, where the fast one (printf.cpp) does not take a
/// call or cannot finish it: the call of plan `p` from its start (`index`
/// is whole_call; `pos` is not used), or from directive `index` of
/// p.first, the call's text so far in the writer's free space ending at
/// `pos`. `args` is taken by value: the arguments from where the caller
/// stopped (on x86-64 Linux a pointer to the caller's va_list, on 64-bit
/// Windows a copy of its position), consumed in order from there. Returns
/// as vprintf_to() does.
constexpr std::size_t whole_call = static_cast<std::size_t>(-1);
int continue_in_general(file& writer, const plan& p, std::size_t index, char* pos,
                        std::va_list args);
/// The same from directive `index`, a %s of `s` (with `precision`, -1 for
/// none; its width and flags the directive's) whose arguments the fast
/// executor took already: a null one, or one longer than the room.
int continue_with_string(file& writer, const plan& p, std::size_t index, char* pos,
                         std::va_list args, const char* s, int precision);

/// The digits of `value` in base 2, 8 or 16, ending at `end`; returns
/// where they begin.
inline char* base_digits(char* end, unsigned long long value, unsigned base, bool upper) {
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  const unsigned shift = base == 16 ? 4 : base == 8 ? 3 : 1;
  do {
    *--end = digits[value & (base - 1)];
    value >>= shift;
  } while (value != 0);
  return end;
}

// ------------------------------------------------------- floating point

// The parts of a directive the floating-point layout needs.
struct float_spec {
  char conversion;  // f F e E g G a A
  std::uint16_t flags;
  int width;
  int precision;  // -1: none
};

/// Writes `value` (a double, or a long double when `is_long_double`) as
/// glibc's printf_fp / printf_fphex would for `spec`, in the "C" locale
/// and the current rounding mode. Returns the new position, or nullptr
/// with *error set where glibc fails.
char* put_double(output& out, char* pos, const float_spec& spec, double value);
char* put_long_double(output& out, char* pos, const float_spec& spec, long double value);

/// The fast path: a double with no flags and no width, in the "C" locale,
/// to nearest, `precision` (-1 for none) at most largest_fast_precision,
/// into room for at least fast_double_room(...) bytes. Writes it and returns
/// the new position.
constexpr int largest_fast_precision = 128;
constexpr std::size_t fast_double_room(int precision) {
  return 1 + 309 + 1 + 6 + static_cast<std::size_t>(precision < 0 ? 6 : precision) + 8;
}
char* put_plain_double(char* pos, char conversion, int precision, double value);

/// The rounding mode glibc's printf follows (on x86, the x87 control
/// word's, as glibc reads it), as FE_TONEAREST, FE_UPWARD, ...
int rounding_mode() noexcept;

// ------------------------------------------ the C library: printf_locale.cpp

/// What the calling thread's locale does to numbers (LC_NUMERIC, LC_CTYPE):
/// whether the decimal point is ".", whether '\'' groups digits (glibc's
/// test: a separator and a first group size), and whether 'I' prints ASCII
/// digits.
bool decimal_point_is_dot() noexcept;
bool locale_groups_digits() noexcept;
bool locale_digits_are_ascii() noexcept;

/// One directive (its flags, width, precision, length and conversion, with
/// widths and precisions as numbers) formatted by the C library's snprintf,
/// for the forms that depend on the locale. Returns the text's length and
/// writes it through `out`, or a negative errno.
int locale_integer(output& out, char*& pos, const directive& d, std::uint16_t flags, int width,
                   int precision, bool negative, unsigned long long magnitude);
int locale_double(output& out, char*& pos, const float_spec& spec, std::uint8_t length,
                  double value);
int locale_long_double(output& out, char*& pos, const float_spec& spec, std::uint8_t length,
                       long double value);

/// The text of errno `error_number` for %m (strerror_r's, in the current
/// locale), into `buffer`; returns it.
const char* errno_text(int error_number, char* buffer, std::size_t size) noexcept;
/// The name of errno `error_number` for %#m ("ENOENT"), or nullptr where the
/// C library does not name it: glibc then prints the number.
const char* errno_name(int error_number) noexcept;

}  // namespace printf_engine
}  // namespace detail
}  // namespace fastout

#endif  // FASTOUT_PRINTF_INTERNAL_H_
