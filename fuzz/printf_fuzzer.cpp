// SPDX-License-Identifier: MIT
// Fuzz target: fastout_vfprintf() against the C library's vsnprintf().
//
// On glibc, a format and its arguments go to vsnprintf() and, twice (the
// second call replays the plan the first made), to fastout_vfprintf() on a
// writer with a buffer of any size from none up: every call must return
// what glibc returned, leave errno as glibc left it, store what glibc
// stores through %n, and put glibc's bytes in the file -- or, where glibc
// fails (EINVAL, EILSEQ, EOVERFLOW), fail the same way having written at
// most the text glibc had made before it failed. Strings and wide strings
// end exactly at a page that cannot be read; where every directive that
// reads one has a precision, it has no terminator and ends after as many
// characters as the largest precision (printf may read no further), so
// that a read past what the precision allows faults even without
// AddressSanitizer.
//
// Elsewhere (no glibc to ask) the target checks that nothing crashes and
// that the second call writes what the first did, and holds the engine to
// glibc's bytes recorded in test/printf_corpus.txt
// (printf_corpus_oracle.cpp); -DFASTOUT_FUZZ_PRINTF_CORPUS_ORACLE=ON
// builds that here too.
//
// The input (fuzz_input.h reads it; past its end every byte is 0):
//
//   FORMAT '\0' SETTINGS ARGUMENTS
//
//   FORMAT     the format's bytes; a format alone is a whole input
//   SETTINGS   four bytes:
//     [0] the writer's buffer: 0 none (unbuffered: the engine streams
//         through 4 KiB on the stack), 1 the default (256 KiB), 2-129 that
//         less 1 (1 to 128 bytes), 130-199 ((b - 129) * 61 bytes), 200-255
//         sizes about the engine's and writer's limits
//     [1] bytes written before the call: 0-127 that many, 128-255 (buffer
//         size - (b - 128)), so that the call's text starts near the end
//     [2] bit 0: locale C.UTF-8 (else C); bits 1-2: the rounding mode;
//         bit 3: line buffering; bits 4-7: errno before the call (for %m)
//     [3] literal text put before the format, from a table of lengths (0,
//         16, 4095, 4097, 65537, ...): where the call's own text meets the
//         engine's limits (4 KiB of an unbuffered writer's text on the
//         stack, 64 KiB of streaming), so that any directive may be the one
//         that finds part of the call already in the file
//   ARGUMENTS  for each argument the format reads, in order (glibc's
//              reading of the format, printf_format_scan.h, says which
//              ones and how; one argument a directive does not read is an
//              int):
//     an int           1 byte: 0-127 that less 32; 128-191 from a table of
//                      edges (INT_MAX, INT_MIN, 4096, ...); 192-255 the next
//                      4 bytes (8 for a long long)
//     a wide character (%lc, %C) as a wide string's character, below
//     a double         1 byte: 0-127 a table (0, -0, inf, nan, DBL_MAX, the
//                      smallest subnormal, ties, ...); 128-255 the next 8
//                      bytes, its bits
//     a long double    1 byte: 0-127 a table, 128-255 the next 10 bytes (x87
//                      bits, pseudo-denormals and invalid encodings too)
//     a string (%s, %ls, %S)  1 byte: 0 and 240-255 as long as its largest
//                      precision (the boundary a precision makes: no
//                      terminator, the last character just before the
//                      unreadable page; 5 characters without a precision),
//                      so also past the input's end; 1 a null pointer; n
//                      the next n - 2 characters. A narrow string's character is 1 byte;
//                      a wide one's is 1 byte: 0-127 that, 128-239 from a
//                      table of code points the locale cannot convert or
//                      converts to several bytes (0xe9, surrogates,
//                      0x10ffff, ...), 240-255 the next 4 bytes
//     a pointer (%p)   1 byte: 0 null, 1-127 from a table, 128-255 the next
//                      8 bytes
//     %n's target      nothing: a cell the target compares after each call
#include <fastout/c_api.h>

#include <algorithm>
#include <cerrno>
#include <cfenv>
#include <cfloat>
#include <climits>
#include <clocale>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <cwchar>
#include <string>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "fuzz_values.h"
#include "printf_call_shapes.h"
#include "printf_format_scan.h"
#include "printf_fuzzer.h"
#include "scratch_file.h"

#if defined(__GLIBC__) && !defined(FASTOUT_FUZZ_PRINTF_CORPUS_ORACLE)
#  define FASTOUT_FUZZ_PRINTF_GLIBC 1
#  include <printf.h>
#else
#  define FASTOUT_FUZZ_PRINTF_GLIBC 0
#endif

// printf's arguments are the target's own: AddressSanitizer's printf
// interceptor would read them again by its own parser, which knows less
// of glibc's formats than glibc does.
extern "C" const char* __asan_default_options() { return "check_printf=0"; }

namespace fastout_fuzz {

// The call's text is kept to this much, which glibc makes at about
// 100 MB/s: a width of INT_MAX takes glibc 17 s (and a precision of
// INT_MAX for %f, minutes), so formats whose text could be longer are not
// tried, except where a width or precision over INT_MAX fails at once.
constexpr std::size_t longest_text = std::size_t{1} << 18;

alignas(16) char cells[most_arguments][cell_size];

void reset_cells() {
  std::memset(cells, 0, sizeof cells);
  for (std::size_t k = 0; k < most_arguments; ++k) {
    std::memcpy(cells[k], "cell", 4);
    cells[k][4] = static_cast<char>('a' + k);
  }
}

namespace {

// ------------------------------------------------------------ the values

const std::uintptr_t pointer_edges[] = {1,
                                        0xff,
                                        0x1000,
                                        0xdeadbeef,
                                        0x7fffffffffff,
                                        0x800000000000,
                                        UINTPTR_MAX,
                                        UINTPTR_MAX / 2,
                                        0x123456789abcdef0,
                                        0x10};

const int errno_values[] = {0,      EINVAL, ENOENT, EILSEQ, ERANGE, EOVERFLOW, 1234,    -1,
                            EAGAIN, ENOSPC, EPIPE,  EDOM,   133,    134,       INT_MAX, INT_MIN};

const std::size_t lead_sizes[] = {0,    0,    0,    0,    1,    7,     8,     15,
                                  16,   17,   63,   64,   255,  256,   4000,  4090,
                                  4095, 4096, 4097, 5000, 8192, 65535, 65536, 65537};

const std::size_t buffer_edges[] = {255,   256,   257,   511,    512,    1023,   1024,
                                    4095,  4096,  4097,  8191,   8192,   16384,  32768,
                                    65535, 65536, 65537, 131072, 262143, 262144, 262145};

// ------------------------------------------------- the arguments, typed

enum class kind : unsigned char {
  int32,
  int64,
  floating,
  long_floating,
  narrow_text,
  wide_text,
  cell,     // a writable cell that ends inside as a narrow and as a wide string
  address,  // %p's value, never read through
};

struct argument {
  kind what = kind::int32;
  bool wide_char = false;
  // Its uses as a string: whether each has a precision, and the largest.
  bool every_use_precise = true;
  long long largest_precision = -1;
  std::vector<int> precision_args;  // uses whose precision is an argument
  std::vector<int> precisions;      // uses whose precision is written
  // The value.
  long long integer = 0;
  double d = 0;
  long double ld = 0;
  bool null_text = false;
  bool as_long_as_precision = false;
  std::string narrow;
  std::wstring wide;
  std::string shown;  // for the report
};

struct use_classes {
  bool integer = false, floating = false, long_floating = false, text = false;
  bool narrow = false, wide = false, either = false, address = false, count = false;
  bool eight_bytes = false, wide_char = false;
  // glibc's second reader keeps each argument in a union, stored by the
  // type of the last directive that names it: an int's slot read as a long
  // has garbage in its high half.
  bool stored_in_eight = false, read_as_eight = false;
};

// Two pages per argument, the second unreadable: a string ends where the
// first does.
char* guard_pages = nullptr;
std::size_t page_size = 0;

char* page_end(std::size_t k) { return guard_pages + (2 * k + 1) * page_size; }

void make_guard_pages() {
  page_size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* pages = mmap(nullptr, 2 * most_arguments * page_size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (pages == MAP_FAILED) {
    std::perror("fastout fuzz: mmap");
    std::exit(2);
  }
  guard_pages = static_cast<char*>(pages);
  for (std::size_t k = 0; k < most_arguments; ++k)
    if (mprotect(page_end(k), page_size, PROT_NONE) != 0) {
      std::perror("fastout fuzz: mprotect");
      std::exit(2);
    }
}

// Where the string goes: its last character (or terminator) is the last
// byte before the unreadable page.
const void* place_text(std::size_t k, argument& a) {
  if (a.null_text) return nullptr;
  const bool terminated =
      !(a.every_use_precise && a.largest_precision >= 0 &&
        static_cast<long long>(a.what == kind::wide_text ? a.wide.size() : a.narrow.size()) >=
            a.largest_precision);
  if (a.what == kind::narrow_text) {
    const std::size_t size = a.narrow.size() + (terminated ? 1 : 0);
    char* at = page_end(k) - size;
    std::memcpy(at, a.narrow.data(), a.narrow.size());
    if (terminated) at[a.narrow.size()] = '\0';
    a.shown += terminated ? "" : " (no terminator, at an unreadable page)";
    return at;
  }
  const std::size_t count = a.wide.size() + (terminated ? 1 : 0);
  auto* at = reinterpret_cast<wchar_t*>(page_end(k)) - count;
  std::memcpy(at, a.wide.data(), a.wide.size() * sizeof(wchar_t));
  if (terminated) at[a.wide.size()] = L'\0';
  a.shown += terminated ? "" : " (no terminator, at an unreadable page)";
  return at;
}

std::string show_wide(const std::wstring& text) {
  std::string shown = "L\"";
  char piece[16];
  for (wchar_t c : text) {
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      shown += static_cast<char>(c);
    } else {
      std::snprintf(piece, sizeof piece, "\\x%x", static_cast<unsigned>(c));
      shown += piece;
    }
  }
  return shown + "\"";
}

// ------------------------------------------------------------ one case

// The text of the call's arguments.
std::string show_arguments(const std::vector<argument>& args) {
  std::string shown;
  for (std::size_t k = 0; k < args.size(); ++k) {
    shown += "\n  argument " + std::to_string(k + 1) + ": " + args[k].shown;
  }
  return shown;
}

bool classify(const scanned_format& scanned, std::vector<argument>& args) {
  std::vector<use_classes> uses(scanned.argument_count);
  auto integer_use = [&](int k) {
    if (k < 0) return;
    uses[static_cast<std::size_t>(k)].integer = true;
    uses[static_cast<std::size_t>(k)].stored_in_eight = false;
  };
  for (const directive& d : scanned.directives) {
    integer_use(d.width_arg);
    integer_use(d.precision_arg);
    if (d.data_arg < 0) continue;
    const auto k = static_cast<std::size_t>(d.data_arg);
    use_classes& u = uses[k];
    argument& a = args[k];
    switch (d.what) {
      case reads::nothing: break;
      case reads::integer:
      case reads::character:
        u.integer = true;
        u.eight_bytes = u.eight_bytes || d.eight_bytes;
        u.wide_char = u.wide_char || d.wide_char;
        u.stored_in_eight = (d.second_reader_type & pa_flag_long) != 0;
        u.read_as_eight = u.read_as_eight || u.stored_in_eight;
        break;
      case reads::floating: (d.long_double ? u.long_floating : u.floating) = true; break;
      case reads::narrow_text:
      case reads::wide_text:
      case reads::either_text:
        u.text = true;
        (d.what == reads::narrow_text ? u.narrow
         : d.what == reads::wide_text ? u.wide
                                      : u.either) = true;
        if (d.precision_arg >= 0)
          a.precision_args.push_back(d.precision_arg);
        else if (d.precision >= 0 && !d.precision_too_large)
          a.precisions.push_back(d.precision);
        else
          a.every_use_precise = false;
        break;
      case reads::pointer: u.address = true; break;
      case reads::count: u.count = true; break;
    }
  }
  for (std::size_t k = 0; k < uses.size(); ++k) {
    const use_classes& u = uses[k];
    argument& a = args[k];
    const bool any_pointer = u.text || u.address || u.count;
    if (static_cast<int>(u.integer) + static_cast<int>(u.floating) +
            static_cast<int>(u.long_floating) + static_cast<int>(any_pointer) >
        1)
      return false;  // read as two types: undefined
    if (u.read_as_eight && !u.stored_in_eight) return false;
    if (u.floating) {
      a.what = kind::floating;
    } else if (u.long_floating) {
      a.what = kind::long_floating;
    } else if (any_pointer) {
      if (u.count || u.either || (u.narrow && u.wide))
        a.what = kind::cell;
      else if (u.narrow)
        a.what = kind::narrow_text;
      else if (u.wide)
        a.what = kind::wide_text;
      else
        a.what = kind::address;
    } else {
      a.what = u.eight_bytes ? kind::int64 : kind::int32;
      a.wide_char = u.wide_char;
    }
  }
  return true;
}

#if FASTOUT_FUZZ_PRINTF_GLIBC
// The target's reading of the format is glibc's: a difference is the
// target's mistake, found here rather than as a false report.
void check_reading(const char* format, const scanned_format& scanned) {
  int glibc_types[64];
  int types[64];
  for (int& t : glibc_types) t = PA_INT;
  for (int& t : types) t = PA_INT;
  const std::size_t count = parse_printf_format(format, 64, glibc_types);
  bool same = count == scanned.argument_count;
  for (const directive& d : scanned.directives) {
    if (d.width_arg >= 0 && d.width_arg < 64) types[d.width_arg] = PA_INT;
    if (d.precision_arg >= 0 && d.precision_arg < 64) types[d.precision_arg] = PA_INT;
    if (d.data_arg >= 0 && d.data_arg < 64) types[d.data_arg] = d.second_reader_type;
  }
  for (std::size_t k = 0; same && k < count && k < 64; ++k) same = types[k] == glibc_types[k];
  if (!same)
    fail("the target reads \"" + escaped(format) + "\" otherwise than glibc's " +
         "parse_printf_format(): " + std::to_string(scanned.argument_count) + " arguments, glibc " +
         std::to_string(count));
}
#endif

// An upper bound of the call's text.
std::size_t text_bound(const char* format, const scanned_format& scanned,
                       const std::vector<argument>& args) {
  std::size_t total = std::strlen(format);
  auto value = [&](int k) { return static_cast<int>(args[static_cast<std::size_t>(k)].integer); };
  for (const directive& d : scanned.directives) {
    std::size_t width = static_cast<std::size_t>(d.width);
    if (d.width_arg >= 0) {
      const int w = value(d.width_arg);
      width = w == INT_MIN ? std::size_t{1} << 31 : static_cast<std::size_t>(w < 0 ? -w : w);
    }
    long long precision = d.precision_too_large ? -1 : d.precision;
    if (d.precision_arg >= 0) precision = value(d.precision_arg) < 0 ? -1 : value(d.precision_arg);
    const std::size_t p = precision < 0 ? 0 : static_cast<std::size_t>(precision);
    std::size_t content = 64;
    if (d.data_arg >= 0) {
      const argument& a = args[static_cast<std::size_t>(d.data_arg)];
      switch (d.what) {
        case reads::integer: content = 200 + 2 * p; break;
        case reads::floating: content = (d.long_double ? 7000 : 500) + 2 * p; break;
        case reads::pointer: content = 40 + 2 * p; break;
        case reads::narrow_text:
        case reads::wide_text:
          content = a.what == kind::narrow_text ? a.narrow.size()
                    : a.what == kind::wide_text ? 4 * a.wide.size()
                                                : 4 * cell_size;
          break;
        default: content = 4 * cell_size; break;
      }
    } else if (d.conversion == 'm') {
      content = 1024;
    } else {
      width = 0;  // "%5%" and a conversion glibc does not know are not padded
    }
    total += width > content ? width : content;
    if (total > longest_text) return total;
  }
  return total;
}

int current_locale = -1;

}  // namespace

// The locale, set only when it changes (setlocale() is not cheap).
void use_locale(bool utf8) {
  const int wanted = utf8 ? 1 : 0;
  if (wanted == current_locale) return;
  if (std::setlocale(LC_ALL, utf8 ? "C.UTF-8" : "C") == nullptr) {
    std::fprintf(stderr, "fastout fuzz: no locale %s\n", utf8 ? "C.UTF-8" : "C");
    std::exit(2);
  }
  current_locale = wanted;
}

writer_settings read_settings(std::uint8_t buffer, std::uint8_t before, std::uint8_t setting) {
  static const int roundings[] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
  writer_settings s;
  s.buffer_size = buffer == 1     ? FASTOUT_DEFAULT_BUFFER_SIZE
                  : buffer <= 129 ? (buffer == 0 ? 0 : buffer - 1u)
                  : buffer < 200  ? (buffer - 129u) * 61u
                                  : from_table(buffer_edges, buffer - 200u);
  s.written_before = before < 128 ? before : 0;
  if (before >= 128 && s.buffer_size > before - 128u)
    s.written_before = s.buffer_size - (before - 128u);
  s.utf8 = (setting & 1) != 0;
  s.rounding = roundings[(setting >> 1) & 3];
  s.line = (setting & 8) != 0;
  s.errno_before = errno_values[setting >> 4];
  return s;
}

std::string show_settings(const writer_settings& s) {
  static const char* const modes[] = {"to nearest", "upward", "downward", "toward zero"};
  const int mode = s.rounding == FE_UPWARD       ? 1
                   : s.rounding == FE_DOWNWARD   ? 2
                   : s.rounding == FE_TOWARDZERO ? 3
                                                 : 0;
  return "buffer size " + std::to_string(s.buffer_size) + (s.line ? " (line-buffered)" : "") +
         ", " + std::to_string(s.written_before) + " bytes written before, locale " +
         (s.utf8 ? "C.UTF-8" : "C") + ", rounding " + modes[mode] + ", errno " +
         std::to_string(s.errno_before);
}

fastout_file* open_writer(scratch_file& file, const writer_settings& settings) {
  use_locale(settings.utf8);
  file.reset();
  fastout_options options;
  fastout_options_init(&options);
  options.buffer_size = settings.buffer_size;
  options.buffering = settings.line ? FASTOUT_BUFFERING_LINE : FASTOUT_BUFFERING_FULL;
  fastout_file* out = fastout_fdopen(file.fd(), FASTOUT_BORROW, &options);
  if (out == nullptr) fail("fastout_fdopen() failed: " + std::string(std::strerror(errno)));
  const std::string before(settings.written_before, 'w');
  if (fastout_write(before.data(), 1, before.size(), out) != before.size())
    fail("writing the bytes before the call failed");
  return out;
}

// ------------------------------------------------------------ the call

#if FASTOUT_FUZZ_PRINTF_GLIBC
namespace {

char glibc_text[longest_text + 1];
char glibc_other[longest_text + 1];
alignas(16) char glibc_cells[most_arguments][cell_size];

std::string window(const std::string& text, std::size_t at) {
  const std::size_t begin = at > 20 ? at - 20 : 0;
  return "\"" + escaped(std::string_view(text).substr(begin, 60)) + "\"";
}

[[noreturn]] void mismatch(call_context* c, const std::string& what) {
  fail("fastout_vfprintf() and glibc's vsnprintf() differ: " + what + "\n  format \"" +
       escaped(c->shown_format) + "\"" + c->description);
}

}  // namespace
#endif

namespace {

fastout_stats stats_of(fastout_file* out) {
  fastout_stats stats;
  if (fastout_get_stats(out, &stats) != 0) fail("fastout_get_stats() failed");
  return stats;
}

}  // namespace

int run_call(call_context* c, const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::string expected;
  int glibc_result = 0;
  int glibc_errno = 0;
  std::size_t partial = 0;
#if FASTOUT_FUZZ_PRINTF_GLIBC
  {
    va_list copy;
    va_copy(copy, args);
    reset_cells();
    std::fesetround(c->rounding);
    errno = c->errno_before;
    glibc_result = std::vsnprintf(glibc_text, sizeof glibc_text, format, copy);
    glibc_errno = errno;
    std::fesetround(FE_TONEAREST);
    va_end(copy);
    std::memcpy(glibc_cells, cells, sizeof cells);
  }
  if (glibc_result >= static_cast<int>(sizeof glibc_text))
    fail("the text is longer than the target's bound (" + std::to_string(c->text_bound) +
         "): the bound is wrong, for \"" + escaped(c->shown_format) + "\"");
  if (glibc_result >= 0) {
    expected.assign(glibc_text, static_cast<std::size_t>(glibc_result));
  } else {
    // What glibc made before it failed: the bytes up to the '\0' it ends
    // them with, found as where two runs over different fillings differ.
    char* runs[2] = {glibc_text, glibc_other};
    const std::size_t span =
        c->text_bound + 1 < sizeof glibc_text ? c->text_bound + 1 : sizeof glibc_text;
    for (int run = 0; run < 2; ++run) {
      std::memset(runs[run], run == 0 ? 0xaa : 0x55, span);
      va_list copy;
      va_copy(copy, args);
      reset_cells();
      std::fesetround(c->rounding);
      errno = c->errno_before;
      std::vsnprintf(runs[run], span, format, copy);
      std::fesetround(FE_TONEAREST);
      va_end(copy);
    }
    while (partial < span && glibc_text[partial] == glibc_other[partial]) ++partial;
    partial = partial == 0 ? 0 : partial - 1;
    expected.assign(glibc_text, partial);
  }
#endif
  for (int pass = 0; pass < 2; ++pass) {
    const char* which = pass == 0 ? "the first call" : "the second call (its plan cached)";
    va_list copy;
    va_copy(copy, args);
    reset_cells();
    const fastout_stats before = stats_of(c->out);
    std::fesetround(c->rounding);
    errno = c->errno_before;
    const int result = fastout_vfprintf(c->out, format, copy);
    const int result_errno = errno;
    std::fesetround(FE_TONEAREST);
    va_end(copy);
    const fastout_stats after = stats_of(c->out);
    const std::size_t taken =
        static_cast<std::size_t>(after.bytes_accepted - before.bytes_accepted);
    c->results[pass] = result;
    c->errnos[pass] = result_errno;
#if FASTOUT_FUZZ_PRINTF_GLIBC
    if (glibc_result >= 0) {
      if (result != glibc_result)
        mismatch(c, std::string(which) + " returned " + std::to_string(result) + ", glibc " +
                        std::to_string(glibc_result) + " (errno " + std::to_string(glibc_errno) +
                        ")");
      if (taken != expected.size())
        mismatch(c, std::string(which) + " returned " + std::to_string(result) +
                        " but the writer took " + std::to_string(taken) + " bytes");
      if (std::memcmp(cells, glibc_cells, sizeof cells) != 0)
        mismatch(c, std::string(which) + ": %n stored otherwise than glibc");
    } else {
      if (result != -glibc_errno)
        mismatch(c, std::string(which) + " returned " + std::to_string(result) +
                        ", glibc failed with errno " + std::to_string(glibc_errno));
      if (taken > partial)
        mismatch(c, std::string(which) + " failed as glibc's did, but the writer took " +
                        std::to_string(taken) + " bytes of it, more than the " +
                        std::to_string(partial) + " glibc had made before it failed");
    }
    if (result_errno != glibc_errno)
      mismatch(c, std::string(which) + " left errno " + std::to_string(result_errno) + ", glibc " +
                      std::to_string(glibc_errno));
    c->segments.push_back({taken, expected.substr(0, taken)});
#else
    static_cast<void>(partial);
    if (result >= 0 && taken != static_cast<std::size_t>(result))
      fail(std::string(which) + " returned " + std::to_string(result) + " but the writer took " +
           std::to_string(taken) + " bytes, for \"" + escaped(c->shown_format) + "\"");
    if (pass == 0) {
      glibc_result = result;
      glibc_errno = result_errno;
    } else if (result != glibc_result || result_errno != glibc_errno) {
      fail("the second call returned " + std::to_string(result) + " (errno " +
           std::to_string(result_errno) + "), the first " + std::to_string(glibc_result) +
           " (errno " + std::to_string(glibc_errno) + "), for \"" + escaped(c->shown_format) +
           "\"");
    }
    c->segments.push_back({taken, std::string()});
#endif
  }
  va_end(args);
  return glibc_result;
}

namespace {

void check_file(call_context& c, const std::string& before, const std::string& actual) {
  std::string expected = before;
  for (const segment& s : c.segments) expected += s.expected;
#if FASTOUT_FUZZ_PRINTF_GLIBC
  if (actual != expected) {
    std::size_t at = 0;
    while (at < actual.size() && at < expected.size() && actual[at] == expected[at]) ++at;
    mismatch(&c, "the file holds " + std::to_string(actual.size()) + " bytes, glibc's text " +
                     std::to_string(expected.size()) + "; they differ at byte " +
                     std::to_string(at) + ": file " + window(actual, at) + ", glibc " +
                     window(expected, at));
  }
#else
  // The two calls wrote the same text: the second is the first's copy.
  std::size_t size = before.size();
  for (const segment& s : c.segments) size += s.size;
  if (actual.size() != size || actual.compare(0, before.size(), before) != 0)
    fail("the file holds " + std::to_string(actual.size()) + " bytes, the writer took " +
         std::to_string(size) + ", for \"" + escaped(c.shown_format) + "\"");
  if (c.segments.size() == 2 && c.segments[0].size == c.segments[1].size &&
      actual.compare(before.size(), c.segments[0].size, actual, before.size() + c.segments[0].size,
                     c.segments[1].size) != 0)
    fail("the second call wrote otherwise than the first, for \"" + escaped(c.shown_format) + "\"");
#endif
}

void run_printf_case(const std::uint8_t* data, std::size_t size) {
  static scratch_file file;
  input in(data, size);
  const std::string_view given = in.text();
  const std::uint8_t buffer = in.byte();
  const std::uint8_t before = in.byte();
  const writer_settings settings = read_settings(buffer, before, in.byte());
  const std::size_t lead = from_table(lead_sizes, in.byte());
  std::string format;
  for (std::size_t i = 0; i < lead; ++i)
    format += static_cast<char>(i % 64 == 63 ? '\n' : 'A' + i % 26);
  format += given;

  const scanned_format scanned = scan_format(format.c_str());
#if FASTOUT_FUZZ_PRINTF_GLIBC
  check_reading(format.c_str(), scanned);
#endif
  if (scanned.argument_count > most_arguments) return;
  std::vector<argument> args(scanned.argument_count);
  if (!classify(scanned, args)) return;

  // The values, in the arguments' order.
  argument_values values{};
  passed types[most_arguments];
  for (std::size_t k = 0; k < args.size(); ++k) {
    argument& a = args[k];
    char shown[96];
    switch (a.what) {
      case kind::int32:
      case kind::int64:
        if (a.wide_char) {
          a.integer = static_cast<int>(static_cast<std::uint32_t>(read_wide_char(in, 0)));
        } else {
          a.integer = read_integer(in, a.what == kind::int64);
        }
        std::snprintf(shown, sizeof shown, "%s %lld", a.what == kind::int64 ? "long long" : "int",
                      a.integer);
        a.shown = shown;
        values.i[k] = static_cast<int>(a.integer);
        values.ll[k] = a.integer;
        types[k] = a.what == kind::int64 ? passed::long_long_value : passed::int_value;
        break;
      case kind::floating:
        a.d = read_double(in);
        std::snprintf(shown, sizeof shown, "double %a", a.d);
        a.shown = shown;
        values.d[k] = a.d;
        types[k] = passed::double_value;
        break;
      case kind::long_floating: {
        a.ld = read_long_double(in);
        unsigned char bytes[sizeof(long double)];
        std::memcpy(bytes, &a.ld, sizeof bytes);
        a.shown = "long double, bytes";
        for (std::size_t i = 0; i < 10 && i < sizeof bytes; ++i) {
          std::snprintf(shown, sizeof shown, " %02x", bytes[i]);
          a.shown += shown;
        }
        values.ld[k] = a.ld;
        types[k] = passed::long_double_value;
        break;
      }
      case kind::narrow_text:
      case kind::wide_text: {
        const std::uint8_t selector = in.byte();
        a.null_text = selector == 1;
        a.as_long_as_precision = selector == 0 || selector >= 240;
        const std::size_t length = selector < 2 || selector >= 240 ? 0 : selector - 2u;
        for (std::size_t i = 0; i < length; ++i) {
          if (a.what == kind::narrow_text)
            a.narrow += in.empty() ? static_cast<char>('a' + i % 26) : static_cast<char>(in.byte());
          else
            a.wide += read_wide_char(in, i);
        }
        types[k] = passed::pointer;
        break;
      }
      case kind::cell:
        values.p[k] = cells[k];
        a.shown = "a cell (\"cell\" and zeros)";
        types[k] = passed::pointer;
        break;
      case kind::address: {
        const std::uint8_t s = in.byte();
        const std::uintptr_t address = s == 0     ? 0
                                       : s < 0x80 ? from_table(pointer_edges, s)
                                                  : static_cast<std::uintptr_t>(in.bits(8));
        values.p[k] = reinterpret_cast<const void*>(address);
        std::snprintf(shown, sizeof shown, "pointer %#jx", static_cast<std::uintmax_t>(address));
        a.shown = shown;
        types[k] = passed::pointer;
        break;
      }
    }
  }
  if (!has_shape(types, args.size())) return;

  // The strings, now that every precision is known.
  for (std::size_t k = 0; k < args.size(); ++k) {
    argument& a = args[k];
    if (a.what != kind::narrow_text && a.what != kind::wide_text) continue;
    for (int p : a.precisions) a.largest_precision = std::max<long long>(a.largest_precision, p);
    for (int arg : a.precision_args) {
      const int p = static_cast<int>(args[static_cast<std::size_t>(arg)].integer);
      if (p < 0) a.every_use_precise = false;
      a.largest_precision = std::max<long long>(a.largest_precision, p);
    }
    if (a.as_long_as_precision) {
      const std::size_t length =
          a.every_use_precise && a.largest_precision >= 0 && a.largest_precision <= 4000
              ? static_cast<std::size_t>(a.largest_precision)
              : 5;
      for (std::size_t i = 0; i < length; ++i) {
        if (a.what == kind::narrow_text)
          a.narrow += static_cast<char>('a' + i % 26);
        else
          a.wide += static_cast<wchar_t>(L'a' + static_cast<wchar_t>(i % 26));
      }
    }
    // Where every use has a precision, printf reads no character past the
    // largest: the string ends there, at the unreadable page.
    if (a.every_use_precise && a.largest_precision >= 0) {
      const auto cut = static_cast<std::size_t>(a.largest_precision);
      if (a.narrow.size() > cut) a.narrow.resize(cut);
      if (a.wide.size() > cut) a.wide.resize(cut);
    }
    if (a.narrow.size() > page_size - 1 || a.wide.size() > page_size / sizeof(wchar_t) - 1) return;
    a.shown = a.null_text                   ? "a null string"
              : a.what == kind::narrow_text ? "\"" + escaped(a.narrow) + "\""
                                            : show_wide(a.wide);
    values.p[k] = place_text(k, a);
  }

  call_context c;
  c.format = format.c_str();
  c.errno_before = settings.errno_before;
  c.rounding = settings.rounding;
  c.text_bound = text_bound(format.c_str(), scanned, args);
  if (c.text_bound > longest_text) return;
  c.description = "\n  " + show_settings(settings) +
                  (lead != 0 ? ", after " + std::to_string(lead) + " bytes of literal text" : "") +
                  show_arguments(args);
  c.shown_format = std::string(given);

  c.out = open_writer(file, settings);
  call_with_shape(&c, c.format, types, args.size(), values);
  if (c.segments.size() != 2) fail("no call shape for a list the target accepted");
  const int closed = fastout_close(c.out);
  if (closed != 0) fail("fastout_close() failed: " + std::to_string(closed));
  check_file(c, std::string(settings.written_before, 'w'), file.contents());
}

}  // namespace
}  // namespace fastout_fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fastout_fuzz::make_guard_pages();
#if !FASTOUT_FUZZ_PRINTF_GLIBC
  fastout_fuzz::load_printf_corpus();
#endif
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fastout_fuzz::run_printf_case(data, size);
#if !FASTOUT_FUZZ_PRINTF_GLIBC
  fastout_fuzz::run_corpus_case(data, size);
#endif
  return 0;
}
