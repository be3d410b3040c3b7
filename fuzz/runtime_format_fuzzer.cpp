// SPDX-License-Identifier: MIT
// Fuzz target: fastout's print(fmt::runtime(format), args...) against
// fmt::format(fmt::runtime(format), args...).
//
// Each input's format and arguments are printed, twice, through writers with
// buffers of 0 (none), 1, 7 and 64 bytes and the default size, in an order
// the input rotates: the first print of a format is fmt's own and plans it
// (include/fastout/detail/format_cache.h), the others replay the plan. Each
// must write fmt::format's text, or throw fmt::format_error with fmt's
// message when fmt::format does, having written no more than a prefix of
// what fmt had made before it threw (text larger than the buffer streams).
//
// The input (fuzz_input.h reads it; past its end every byte is 0):
//
//   FORMAT '\0' SETTINGS COUNT ARGUMENTS
//
//   SETTINGS   1 byte: bits 0-2, the writer that prints first (0 unbuffered,
//              1, 7, 64 bytes, the default); bit 3, println instead of
//              print; bit 4, line buffering; bits 5-7, bytes written before
//              (0, 1, 5, 6, 63, 100, 1000, 70000)
//   COUNT      1 byte: the number of arguments, mod 4
//   ARGUMENTS  each a type byte and its value. One argument's type is mod
//              12: int, unsigned, long long, unsigned long long, double,
//              float, long double, bool, char, const char* (1 byte length,
//              then the bytes, up to a '\0'),
//              std::string_view (the same, any bytes), const void*. Of two
//              it is mod 5: int, long long, double, const char*,
//              std::string_view; of three, mod 3: int, double,
//              std::string_view. Integers and floating point read as
//              fuzz_values.h says.
//
// A width or precision written in the format between 70000 and INT_MAX
// would make text faster than it can be compared: such formats are not
// tried (larger ones fail at once in fmt, and are). With a nested field
// ("{:{}}") the integer arguments are kept below 70000 for the same reason.
#include <fastout/fastout.h>

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <iterator>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "fuzz_input.h"
#include "fuzz_values.h"
#include "scratch_file.h"

namespace fastout_fuzz {
namespace {

constexpr long long largest_size = 70000;

struct slot {
  int i = 0;
  unsigned u = 0;
  long long ll = 0;
  unsigned long long ull = 0;
  double d = 0;
  float f = 0;
  long double ld = 0;
  bool b = false;
  char c = 0;
  const char* text = nullptr;
  std::string_view view;
  const void* pointer = nullptr;
  std::string bytes;
  std::string shown;
};

struct settings {
  std::size_t first = 0;
  bool newline = false;
  bool line = false;
  std::size_t written_before = 0;
  std::string format;
  std::string description;
};

const std::size_t buffer_sizes[] = {0, 1, 7, 64, fastout::default_buffer_size};

scratch_file& the_file() {
  static scratch_file file;
  return file;
}

// Whether a number written in the format is one whose text is too long to
// compare (see above), and whether a field is nested.
bool too_large(const std::string& format, bool& nested) {
  nested = false;
  int depth = 0;
  for (std::size_t i = 0; i < format.size(); ++i) {
    const char c = format[i];
    if (c == '{') {
      if (depth == 0 && i + 1 < format.size() && format[i + 1] == '{') {
        ++i;
        continue;
      }
      if (depth > 0) nested = true;
      ++depth;
    } else if (c == '}' && depth > 0) {
      --depth;
    } else if (c >= '0' && c <= '9') {
      unsigned long long value = 0;
      std::size_t j = i;
      while (j < format.size() && format[j] >= '0' && format[j] <= '9' && value < (1ULL << 40))
        value = value * 10 + static_cast<unsigned>(format[j++] - '0');
      while (j < format.size() && format[j] >= '0' && format[j] <= '9') ++j;
      if (value >= static_cast<unsigned long long>(largest_size) && value <= INT_MAX) return true;
      i = j - 1;
    }
  }
  return false;
}

std::string describe(const settings& s) {
  return "\n  format \"" + escaped(s.format) + "\"" + s.description;
}

template <typename... T>
void print_to(fastout::file& out, bool newline, const std::string& format, const T&... args) {
  if (newline)
    out.println(fmt::runtime(format), args...);
  else
    out.print(fmt::runtime(format), args...);
}

template <typename... T>
void check(const settings& s, const T&... args) {
  std::string expected;
  bool throws = false;
  std::string message;
  try {
    expected = fmt::format(fmt::runtime(s.format), args...);
    if (s.newline) expected += '\n';
  } catch (const fmt::format_error& e) {
    throws = true;
    message = e.what();
  }
  std::string partial;
  if (throws) {
    fmt::memory_buffer made;
    try {
      fmt::format_to(std::back_inserter(made), fmt::runtime(s.format), args...);
    } catch (const fmt::format_error&) {
    }
    partial.assign(made.data(), made.size());
  }
  scratch_file& file = the_file();
  const std::string before(s.written_before, 'w');
  for (std::size_t n = 0; n < 5; ++n) {
    const std::size_t buffer_size = buffer_sizes[(s.first + n) % 5];
    const std::string where = " (buffer size " + std::to_string(buffer_size) + ")";
    file.reset();
    fastout::file_options options;
    options.buffer_size = buffer_size;
    options.buffer_mode = s.line ? fastout::buffering::line : fastout::buffering::full;
    fastout::file out = fastout::file::borrow(file.fd(), options);
    out.write(before);
    std::size_t taken[2] = {0, 0};
    for (int call = 0; call < 2; ++call) {
      const auto accepted = out.stats().bytes_accepted;
      bool threw = false;
      try {
        print_to(out, s.newline, s.format, args...);
      } catch (const fmt::format_error& e) {
        threw = true;
        if (!throws)
          fail("print() threw fmt::format_error (\"" + std::string(e.what()) +
               "\"), fmt::format made \"" + escaped(expected) + "\"" + where + describe(s));
        if (message != e.what())
          fail("print() threw \"" + std::string(e.what()) + "\", fmt::format \"" + message + "\"" +
               where + describe(s));
      } catch (const std::exception& e) {
        fail("print() threw \"" + std::string(e.what()) + "\"" + where + describe(s));
      }
      if (throws && !threw)
        fail("print() did not throw, fmt::format threw \"" + message + "\"" + where + describe(s));
      taken[call] = static_cast<std::size_t>(out.stats().bytes_accepted - accepted);
      const std::size_t most = throws ? partial.size() : expected.size();
      if (throws ? taken[call] > most : taken[call] != most)
        fail("the writer took " + std::to_string(taken[call]) + " bytes of a print whose text is " +
             std::to_string(expected.size()) + " bytes" +
             (throws ? " (" + std::to_string(partial.size()) + " made before fmt threw)" : "") +
             where + describe(s));
    }
    out.close();
    const std::string& text = throws ? partial : expected;
    const std::string wanted = before + text.substr(0, taken[0]) + text.substr(0, taken[1]);
    const std::string actual = file.contents();
    if (actual != wanted) {
      std::size_t at = 0;
      while (at < actual.size() && at < wanted.size() && actual[at] == wanted[at]) ++at;
      fail("the file differs from fmt::format's text at byte " + std::to_string(at) + ": file \"" +
           escaped(actual.substr(at > 20 ? at - 20 : 0, 60)) + "\", fmt \"" +
           escaped(wanted.substr(at > 20 ? at - 20 : 0, 60)) + "\"" + where + describe(s));
    }
  }
}

// ------------------------------------------------------------ the calls

// Each list of types is a function of its own (and fastout's plan for it),
// about half a second of compiling each: every type alone, two of five,
// three of three.
constexpr unsigned char one_kinds[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
constexpr unsigned char two_kinds[] = {0, 2, 4, 9, 10};
constexpr unsigned char three_kinds[] = {0, 4, 10};

// Kind's member of a slot, in one_kinds' order.
template <unsigned char Kind>
const auto& value_of(const slot& a) {
  return std::get<Kind>(
      std::tie(a.i, a.u, a.ll, a.ull, a.d, a.f, a.ld, a.b, a.c, a.text, a.view, a.pointer));
}

template <std::size_t Count, unsigned char... Kinds, typename... T>
void with_kinds(const settings& s, const unsigned char* kinds, const slot* slots,
                const T&... done) {
  constexpr std::size_t k = sizeof...(T);
  if constexpr (k == Count) {
    check(s, done...);
  } else {
    auto next = [&](auto kind) {
      constexpr unsigned char chosen = decltype(kind)::value;
      if (kinds[k] != chosen) return false;
      with_kinds<Count, Kinds...>(s, kinds, slots, done..., value_of<chosen>(slots[k]));
      return true;
    };
    static_cast<void>((next(std::integral_constant<unsigned char, Kinds>()) || ...));
  }
}

// An argument as a report shows it: its type, then its value.
template <unsigned char... Kinds>
std::string shown(unsigned char kind, const slot& a,
                  std::integer_sequence<unsigned char, Kinds...>) {
  static const char* const types[] = {"int",    "unsigned",    "long long",   "unsigned long long",
                                      "double", "float",       "long double", "bool",
                                      "char",   "const char*", "string_view", "const void*"};
  std::string value;
  if (kind == 8)
    value = "'" + escaped(std::string(1, a.c)) + "'";
  else if (kind == 9 || kind == 10)
    value = "\"" + escaped(a.bytes) + "\"";
  else
    static_cast<void>(
        ((kind == Kinds && (value = fmt::format("{}", value_of<Kinds>(a)), true)) || ...));
  return std::string(types[kind]) + " " + value;
}

void read_value(input& in, unsigned char kind, bool small_integers, slot& a) {
  auto clamp = [&](long long v) { return small_integers ? v % largest_size : v; };
  switch (kind) {
    case 0: a.i = static_cast<int>(clamp(read_integer(in, false))); break;
    case 1: a.u = static_cast<unsigned>(clamp(read_integer(in, false) & 0xffffffff)); break;
    case 2: a.ll = clamp(read_integer(in, true)); break;
    case 3:
      a.ull = static_cast<unsigned long long>(clamp(read_integer(in, true)));
      if (small_integers) a.ull %= static_cast<unsigned long long>(largest_size);
      break;
    case 4: a.d = read_double(in); break;
    case 5: a.f = static_cast<float>(read_double(in)); break;
    case 6: a.ld = read_long_double(in); break;
    case 7: a.b = (in.byte() & 1) != 0; break;
    case 8: a.c = static_cast<char>(in.byte()); break;
    case 9:
    case 10: {
      // (No null const char*: {fmt} 9.1 reads one given a width, "{:>5}".)
      const std::uint8_t length = in.byte();
      a.bytes = std::string(in.take(length));
      if (kind == 9) a.bytes = a.bytes.substr(0, a.bytes.find('\0'));
      a.text = a.bytes.c_str();
      a.view = a.bytes;
      break;
    }
    default: {
      const std::uint8_t b = in.byte();
      const std::uintptr_t address =
          b < 0x80 ? b * std::uintptr_t{0x1001} : static_cast<std::uintptr_t>(in.bits(8));
      a.pointer = reinterpret_cast<const void*>(address);
      break;
    }
  }
  a.shown = shown(kind, a, std::make_integer_sequence<unsigned char, 12>());
}

}  // namespace
}  // namespace fastout_fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fastout_fuzz;
  static const std::size_t befores[] = {0, 1, 5, 6, 63, 100, 1000, 70000};
  input in(data, size);
  settings s;
  s.format = std::string(in.text());
  const std::uint8_t setting = in.byte();
  s.first = (setting & 7u) % 5;
  s.newline = (setting & 8) != 0;
  s.line = (setting & 16) != 0;
  s.written_before = befores[setting >> 5];
  bool nested = false;
  if (too_large(s.format, nested)) return 0;
  const std::size_t count = in.byte() % 4;
  unsigned char kinds[3] = {0, 0, 0};
  slot slots[3];
  for (std::size_t k = 0; k < count; ++k) {
    const std::uint8_t b = in.byte();
    kinds[k] = count == 1   ? one_kinds[b % std::size(one_kinds)]
               : count == 2 ? two_kinds[b % std::size(two_kinds)]
                            : three_kinds[b % std::size(three_kinds)];
    read_value(in, kinds[k], nested, slots[k]);
  }
  s.description = "\n  " + std::to_string(s.written_before) + " bytes written before" +
                  (s.newline ? ", println" : "") + (s.line ? ", line-buffered" : "");
  for (std::size_t k = 0; k < count; ++k)
    s.description += "\n  argument " + std::to_string(k + 1) + ": " + slots[k].shown;
  // (The lists of one_kinds, two_kinds and three_kinds.)
  switch (count) {
    case 0: check(s); break;
    case 1: with_kinds<1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11>(s, kinds, slots); break;
    case 2: with_kinds<2, 0, 2, 4, 9, 10>(s, kinds, slots); break;
    default: with_kinds<3, 0, 4, 10>(s, kinds, slots); break;
  }
  return 0;
}
