// SPDX-License-Identifier: MIT
// Tests of fastout's formatting (include/fastout/print.h): print, println,
// vprint and FMT_COMPILE against fmt::format, over randomized formats and
// arguments, through every buffer size and from every starting offset; the
// per-thread format cache; format errors; scalar <<; user-defined, ranges,
// chrono and std formatters; and sticky write errors. Allocation is checked
// in format_alloc_test.cpp.
#include <fastout/file.h>
#include <fastout/print.h>

#include <fmt/chrono.h>
#include <fmt/compile.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fmt/std.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <sstream>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "test_util.h"

// ------------------------------------------------------ user-defined types
// At namespace scope, so that fmt::formatter can be specialized for them.
namespace format_test {

// A formatter with its own spec: 'c' (the default) writes "(x, y)", 'p'
// writes "x;y", and anything else is a format error.
struct point {
  int x;
  int y;
};

// Reuses fmt's string formatter, so fill, width and precision work.
struct label {
  std::string text;
};

// Writes `size` copies of `c` one at a time, then throws fmt::format_error
// if `fail` is set: an error after more text than any buffer holds.
struct big_text {
  std::size_t size;
  char c;
  bool fail;
};

// Converts to a string view, but its formatter writes more than that: fmt
// formats it with the formatter, so print and << must too.
struct loud {
  std::string text;
  operator std::string_view() const { return text; }
};

// Its formatter prints `value` to another writer, then writes "L<value>".
struct logged {
  fastout::file* log;
  int value;
};

// Counts how often fmt formats it: every argument must be formatted once,
// whatever the sizes. Its text is `size` copies of `c` followed by the
// count so far, so a second formatting would also show in the text.
struct counted {
  std::size_t size;
  char c;
  int* formats;
};

}  // namespace format_test

namespace fmt {

template <>
struct formatter<format_test::counted> : formatter<string_view> {
  template <typename FormatContext>
  auto format(const format_test::counted& value, FormatContext& ctx) const -> decltype(ctx.out()) {
    ++*value.formats;
    auto out = ctx.out();
    for (std::size_t i = 0; i < value.size; ++i) *out++ = value.c;
    return fmt::format_to(out, "#{}", *value.formats);
  }
};

template <>
struct formatter<format_test::point> {
  char presentation = 'c';

  template <typename ParseContext>
  constexpr auto parse(ParseContext& ctx) -> decltype(ctx.begin()) {
    auto it = ctx.begin();
    if (it != ctx.end() && (*it == 'c' || *it == 'p')) presentation = *it++;
    if (it != ctx.end() && *it != '}') throw format_error("invalid point format");
    return it;
  }

  template <typename FormatContext>
  auto format(const format_test::point& p, FormatContext& ctx) const -> decltype(ctx.out()) {
    if (presentation == 'p') return fmt::format_to(ctx.out(), "{};{}", p.x, p.y);
    return fmt::format_to(ctx.out(), "({}, {})", p.x, p.y);
  }
};

template <>
struct formatter<format_test::label> : formatter<string_view> {
  template <typename FormatContext>
  auto format(const format_test::label& l, FormatContext& ctx) const -> decltype(ctx.out()) {
    return formatter<string_view>::format(string_view(l.text), ctx);
  }
};

template <>
struct formatter<format_test::big_text> {
  template <typename ParseContext>
  constexpr auto parse(ParseContext& ctx) -> decltype(ctx.begin()) {
    return ctx.begin();
  }

  template <typename FormatContext>
  auto format(const format_test::big_text& t, FormatContext& ctx) const -> decltype(ctx.out()) {
    auto out = ctx.out();
    for (std::size_t i = 0; i < t.size; ++i) *out++ = t.c;
    if (t.fail) throw format_error("big_text failed on purpose");
    return out;
  }
};

template <>
struct formatter<format_test::loud> {
  template <typename ParseContext>
  constexpr auto parse(ParseContext& ctx) -> decltype(ctx.begin()) {
    return ctx.begin();
  }

  template <typename FormatContext>
  auto format(const format_test::loud& l, FormatContext& ctx) const -> decltype(ctx.out()) {
    return fmt::format_to(ctx.out(), "{}!!!!!!!!!!!!!!!!!!!!", l.text);
  }
};

template <>
struct formatter<format_test::logged> {
  template <typename ParseContext>
  constexpr auto parse(ParseContext& ctx) -> decltype(ctx.begin()) {
    return ctx.begin();
  }

  template <typename FormatContext>
  auto format(const format_test::logged& l, FormatContext& ctx) const -> decltype(ctx.out()) {
    l.log->print("log {} {:>5}\n", l.value, l.value);
    return fmt::format_to(ctx.out(), "L{}", l.value);
  }
};

}  // namespace fmt

namespace {

using fastout::buffering;
using fastout::file;
using fastout::file_options;
using format_test::big_text;
using format_test::label;
using format_test::logged;
using format_test::loud;
using format_test::point;
using fastout_test::read_file;
using fastout_test::temp_dir;

using fastout_test::with_buffer;

// ------------------------------------------------------------ the harness

using fastout_test::size_list;

struct writer_config {
  std::size_t buffer;
  buffering mode;
};

std::string describe(const writer_config& config) {
  return "buffer " + std::to_string(config.buffer) +
         (config.mode == buffering::line ? " (line-buffered)" : "");
}

// Unbuffered, every size from 1 to 64, a few large ones, and line-buffered
// writers: every split of a piece across a flush, and every path out of line.
std::vector<writer_config> every_config() {
  std::vector<writer_config> configs;
  configs.push_back({0, buffering::full});
  for (std::size_t size = 1; size <= 64; ++size) configs.push_back({size, buffering::full});
  for (std::size_t size : size_list{100, 1000, 4096, 65536}) configs.push_back({size, buffering::full});
  for (std::size_t size : size_list{0, 1, 2, 7, 16, 64, 1000}) configs.push_back({size, buffering::line});
  return configs;
}

// What fmt makes of one piece: its text, or the message of the format_error
// it throws.
struct outcome {
  outcome() = default;
  outcome(bool error, std::string what) : throws(error), text(std::move(what)) {}

  bool throws = false;
  std::string text;  // the text, or the format_error's message
  // When it throws: the text fmt made before the error, if the case says.
  // A piece larger than the buffer keeps the chunks of it that streamed out.
  bool prefix_known = false;
  std::string prefix;
};

// What fmt makes: the text, or the error and the text made before it.
template <typename FormatInto>
outcome reference_into(FormatInto&& format_into) {
  outcome result;
  fmt::memory_buffer text;
  try {
    format_into(text);
  } catch (const fmt::format_error& e) {
    result.throws = true;
    result.text = e.what();
    result.prefix_known = true;
    result.prefix = fmt::to_string(text);
    return result;
  }
  result.text = fmt::to_string(text);
  return result;
}

// One call into a writer, and what fmt says it must write. `whole` marks a
// print, which promises never to split text that fits in the buffer across a
// flush (<< and write() make no such promise).
struct piece_case {
  std::string name;
  outcome want;
  std::function<void(file&)> print;
  bool whole = true;
};

std::string printable(std::string_view text, std::size_t max_size = 120) {
  std::string out;
  for (char c : text.substr(0, max_size)) {
    if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  if (text.size() > max_size) out += "...";
  return out;
}

// A writer and the text it must hold. piece() makes one call, compares what
// it did with fmt's outcome, and checks the writer's promises about flushing;
// finish() closes the writer and compares the whole file.
class checked_writer {
 public:
  checked_writer(std::string path, writer_config config)
      : path_(std::move(path)), config_(config), out_(path_, with_buffer(config.buffer, config.mode)) {}

  file& out() { return out_; }
  const std::string& expected() const { return expected_; }

  // Text written with write(), to move the next piece to an offset.
  void fill(std::size_t size, char c) {
    filler_.assign(size, c);
    std::uint64_t written_before = out_.stats().bytes_written;
    std::uint64_t accepted_before = expected_.size();
    out_.write(filler_);
    expected_ += filler_;
    check_after(written_before, accepted_before, filler_.size(), false, "fill");
  }

  void flush() { out_.flush(); }

  // Returns false (after reporting why) if the call did something else than
  // fmt's outcome says, or broke a promise; the caller stops there.
  bool piece(const piece_case& c) {
    const std::uint64_t accepted_before = expected_.size();
    const std::uint64_t written_before = out_.stats().bytes_written;
    bool threw = false;
    std::string message;
    try {
      c.print(out_);
    } catch (const fmt::format_error& e) {
      threw = true;
      message = e.what();
    }
    if (threw != c.want.throws) {
      ADD_FAILURE() << describe(config_) << ": " << printable(c.name)
                    << (threw ? " threw \"" + message + "\"" : " did not throw")
                    << "; fmt " << (c.want.throws ? "threw \"" : "wrote \"")
                    << printable(c.want.text) << "\"";
      return false;
    }
    if (threw && message != c.want.text) {
      ADD_FAILURE() << describe(config_) << ": " << printable(c.name) << " threw \"" << message
                    << "\", fmt threw \"" << c.want.text << "\"";
      return false;
    }
    std::size_t size = 0;
    if (!threw) {
      starts_.emplace_back(expected_.size(), &c.name);
      expected_ += c.want.text;
      size = c.want.text.size();
    } else if (std::uint64_t kept = out_.stats().bytes_accepted - accepted_before; kept != 0) {
      // A format error leaves no text of a piece that fits in the buffer;
      // one that outgrew it keeps the chunks that had already gone to the
      // file -- a part of what fmt made, none of it still pending -- and
      // drops the rest.
      if (!c.want.prefix_known || kept > c.want.prefix.size() || out_.bytes_pending() != 0) {
        ADD_FAILURE() << describe(config_) << ": " << printable(c.name) << " threw and kept "
                      << kept << " bytes, " << out_.bytes_pending() << " of them pending; fmt made "
                      << (c.want.prefix_known ? std::to_string(c.want.prefix.size()) : "unknown")
                      << " before the error";
        return false;
      }
      starts_.emplace_back(expected_.size(), &c.name);
      expected_ += c.want.prefix.substr(0, static_cast<std::size_t>(kept));
      size = static_cast<std::size_t>(kept);
    }
    return check_after(written_before, accepted_before, size, c.whole && !threw, c.name);
  }

  // Closes the writer and compares the file with the text of every piece.
  bool finish() {
    out_.close();
    std::string actual = read_file(path_);
    if (actual == expected_) return true;
    std::size_t at = 0;
    while (at < actual.size() && at < expected_.size() && actual[at] == expected_[at]) ++at;
    std::string name = "(filler)";
    auto it = std::upper_bound(starts_.begin(), starts_.end(), at,
                               [](std::size_t offset, const std::pair<std::size_t, const std::string*>& s) {
                                 return offset < s.first;
                               });
    if (it != starts_.begin()) name = *std::prev(it)->second;
    std::size_t from = at >= 20 ? at - 20 : 0;
    ADD_FAILURE() << describe(config_) << ": the file differs from fmt's text at byte " << at
                  << " of " << expected_.size() << " (file has " << actual.size()
                  << "), in the piece " << printable(name) << "\n  file: \""
                  << printable(std::string_view(actual).substr(from, 60)) << "\"\n  fmt:  \""
                  << printable(std::string_view(expected_).substr(from, 60)) << "\"";
    return false;
  }

 private:
  bool check_after(std::uint64_t written_before, std::uint64_t accepted_before, std::size_t size,
                   bool whole, const std::string& name) {
    fastout::file_stats stats = out_.stats();
    const std::uint64_t total = expected_.size();
    const std::uint64_t written = stats.bytes_written;
    bool ok = true;
    auto broken = [&](const char* promise) {
      ADD_FAILURE() << describe(config_) << ", after " << printable(name) << ": " << promise
                    << " (accepted " << accepted_before << " -> " << stats.bytes_accepted
                    << ", expected " << total << "; written " << written_before << " -> "
                    << written << "; pending " << out_.bytes_pending() << ")";
      ok = false;
    };
    if (stats.bytes_accepted != total) broken("bytes_accepted counts exactly the text printed");
    if (written < written_before || written > total)
      broken("the bytes written only grow, up to what was accepted");
    if (out_.bytes_pending() != total - written) broken("what is not written is pending");
    if (config_.buffer == 0) {
      if (written != total) broken("an unbuffered writer sends every call at once");
    } else if (total - written > config_.buffer) {
      broken("no more than the buffer is pending");
    } else if (config_.mode == buffering::line) {
      if (expected_.find('\n', static_cast<std::size_t>(written)) != std::string::npos)
        broken("a line-buffered writer sends every complete line");
    } else if (whole && size <= config_.buffer && written != written_before &&
               written != accepted_before) {
      broken("a piece that fits in the buffer is never split across a flush");
    }
    return ok;
  }

  std::string path_;
  writer_config config_;
  file out_;
  std::string expected_;
  std::string filler_;
  std::vector<std::pair<std::size_t, const std::string*>> starts_;  // of each piece
};

// Every case, one after another, through one writer per config: the pieces
// start wherever the ones before left off.
bool run_in_sequence(const std::vector<piece_case>& cases,
                     const std::vector<writer_config>& configs) {
  temp_dir dir;
  for (const writer_config& config : configs) {
    checked_writer w(dir.file("out"), config);
    for (const piece_case& c : cases)
      if (!w.piece(c)) return false;
    if (!w.finish()) return false;
  }
  return true;
}

// Every case from every starting offset 0..buffer size: each piece meets
// the end of the buffer at each of its bytes.
bool run_at_every_offset(const std::vector<piece_case>& cases,
                         const std::vector<writer_config>& configs) {
  temp_dir dir;
  for (const writer_config& config : configs) {
    checked_writer w(dir.file("out"), config);
    for (std::size_t offset = 0; offset <= config.buffer; ++offset) {
      for (const piece_case& c : cases) {
        w.flush();
        w.fill(offset, static_cast<char>('a' + offset % 26));
        if (!w.piece(c)) return false;
      }
    }
    if (!w.finish()) return false;
  }
  return true;
}

// Every offset of every buffer size from 1 to 64 took over four minutes (far
// more under the sanitizers); the small sizes, where a piece meets the end
// of the buffer in every way, and the sizes around the powers of two cover
// the same splits.
std::vector<writer_config> offset_configs() {
  std::vector<writer_config> configs;
  for (std::size_t size = 1; size <= 16; ++size) configs.push_back({size, buffering::full});
  for (std::size_t size : size_list{17, 31, 32, 33, 63, 64})
    configs.push_back({size, buffering::full});
  for (std::size_t size : size_list{1, 2, 3, 5, 8, 13, 21})
    configs.push_back({size, buffering::line});
  return configs;
}

// ----------------------------------------------------- random arguments

class random_source {
 public:
  explicit random_source(std::uint64_t seed) : engine_(seed) {}

  std::uint64_t bits() { return engine_(); }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(bits() % n); }
  int between(int low, int high) {
    return low + static_cast<int>(below(static_cast<std::size_t>(high - low + 1)));
  }
  bool chance(unsigned percent) { return below(100) < percent; }

  // Extremes, small values, and values of every magnitude.
  template <typename T>
  T integer() {
    using limits = std::numeric_limits<T>;
    switch (below(8)) {
      case 0: {
        const T extremes[] = {limits::min(),
                              limits::max(),
                              T(0),
                              T(1),
                              static_cast<T>(-1),
                              static_cast<T>(limits::max() - 1),
                              static_cast<T>(limits::min() + 1)};
        return extremes[below(std::size(extremes))];
      }
      case 1:
        return static_cast<T>(between(-1000, 1000));
      default: {
        std::uint64_t value = bits() >> below(64);
        T result;
        std::memcpy(&result, &value, sizeof result);  // the low bytes
        return chance(50) ? result : static_cast<T>(~result);
      }
    }
  }

  double floating() {
    switch (below(10)) {
      case 0: {
        const double specials[] = {0.0,
                                   -0.0,
                                   std::numeric_limits<double>::infinity(),
                                   -std::numeric_limits<double>::infinity(),
                                   std::numeric_limits<double>::quiet_NaN(),
                                   std::copysign(std::numeric_limits<double>::quiet_NaN(), -1.0),
                                   std::numeric_limits<double>::denorm_min(),
                                   std::numeric_limits<double>::min(),
                                   std::numeric_limits<double>::max(),
                                   std::numeric_limits<double>::lowest(),
                                   std::numeric_limits<double>::epsilon(),
                                   -2.2250738585072014e-308,
                                   1.0,
                                   0.1,
                                   1e15,
                                   1e16,
                                   1e17,
                                   9007199254740993.0,
                                   1e-4,
                                   1e-5,
                                   123456.789};
        return specials[below(std::size(specials))];
      }
      case 1:
      case 2:
      case 3: {  // any bit pattern: subnormals, NaN payloads, everything
        std::uint64_t value = bits();
        double result;
        std::memcpy(&result, &value, sizeof result);
        return result;
      }
      case 4:
      case 5:  // short decimals, as prices are
        return static_cast<double>(between(-1000000, 1000000)) / std::pow(10.0, between(0, 8));
      default: {
        double mantissa = static_cast<double>(bits() >> 11) / 9007199254740992.0;
        return std::ldexp(chance(50) ? mantissa : -mantissa, between(-1080, 1030));
      }
    }
  }

  float single() {
    switch (below(4)) {
      case 0: {
        std::uint32_t value = static_cast<std::uint32_t>(bits());
        float result;
        std::memcpy(&result, &value, sizeof result);
        return result;
      }
      case 1:
        return static_cast<float>(between(-100000, 100000)) / 100.0f;
      default:
        return static_cast<float>(floating());
    }
  }

  // Valid long doubles only: other bit patterns of the x87 format are not
  // numbers fmt promises anything about.
  long double extended() {
    switch (below(4)) {
      case 0: {
        const long double specials[] = {std::numeric_limits<long double>::max(),
                                        std::numeric_limits<long double>::lowest(),
                                        std::numeric_limits<long double>::min(),
                                        std::numeric_limits<long double>::denorm_min(),
                                        std::numeric_limits<long double>::infinity(),
                                        std::numeric_limits<long double>::quiet_NaN(),
                                        0.0L,
                                        -0.0L,
                                        0.1L,
                                        1e20L};
        return specials[below(std::size(specials))];
      }
      case 1: {
        long double mantissa = static_cast<long double>(bits()) / 18446744073709551616.0L;
        return std::ldexp(chance(50) ? mantissa : -mantissa, between(-16400, 16380));
      }
      default:
        return static_cast<long double>(floating());
    }
  }

  // Text for string arguments: ASCII, multi-byte and wide UTF-8, newlines,
  // braces, and now and then a NUL or a long run.
  std::string text(bool allow_nul) {
    static const char* const pieces[] = {"a", "b", "z", "Q", " ", "0", "7", ",", "-", "{", "}",
                                         "\n", "\t", "\xc3\xa9", "\xe6\x97\xa5", "\xe2\x86\x92"};
    std::size_t size = chance(5) ? static_cast<std::size_t>(between(100, 400)) : below(12);
    std::string result;
    for (std::size_t i = 0; i < size; ++i) {
      if (allow_nul && chance(1)) {
        result += '\0';
        continue;
      }
      result += pieces[below(std::size(pieces))];
    }
    return result;
  }

  // Literal text for a format string: braces come escaped.
  std::string format_text() {
    static const char* const pieces[] = {"a",  "x", "Y", " ",  ", ", ": ", "=",      "|", "0",
                                         "9",  ".", "-", "{{", "}}", "\n", "\xc3\xa9", "#", "%"};
    std::size_t size = chance(8) ? static_cast<std::size_t>(between(20, 70)) : 1 + below(6);
    std::string result;
    for (std::size_t i = 0; i < size; ++i) {
      if (chance(1)) {
        result += '\0';
        continue;
      }
      result += pieces[below(std::size(pieces))];
    }
    return result;
  }

 private:
  std::mt19937_64 engine_;
};

// ------------------------------------- the random argument pack and formats

// One argument of every kind at fixed positions; a random format picks among
// them by manual index, or takes a prefix with automatic indexing.
struct argument_pack {
  int i;                   // 0
  unsigned u;              // 1
  long l;                  // 2
  unsigned long ul;        // 3
  long long ll;             // 4
  unsigned long long ull;  // 5
  short s;                 // 6
  unsigned short us;       // 7
  signed char sc;          // 8
  unsigned char uc;        // 9
  double d;                // 10
  float f;                 // 11
  long double ld;          // 12
  std::string cstr;        // 13, passed as const char*
  std::string str;         // 14, passed as std::string
  std::string view;        // 15, passed as std::string_view
  char c;                  // 16
  bool b;                  // 17
  std::uintptr_t ptr;      // 18, passed as const void*
  int width;               // 19, for dynamic widths
  int precision;           // 20, for dynamic precisions
};

#define PACK_ARGS(p)                                                                          \
  (p).i, (p).u, (p).l, (p).ul, (p).ll, (p).ull, (p).s, (p).us, (p).sc, (p).uc, (p).d, (p).f,  \
      (p).ld, (p).cstr.c_str(), (p).str, std::string_view((p).view), (p).c, (p).b,            \
      reinterpret_cast<const void*>((p).ptr), (p).width, (p).precision

enum class arg_kind { integer, floating, string, character, boolean, pointer };
constexpr int pack_size = 21;
constexpr int width_index = 19;
constexpr int precision_index = 20;

arg_kind kind_of(int index) {
  if (index < 10 || index >= 19) return arg_kind::integer;
  if (index < 13) return arg_kind::floating;
  if (index < 16) return arg_kind::string;
  if (index == 16) return arg_kind::character;
  if (index == 17) return arg_kind::boolean;
  return arg_kind::pointer;
}

argument_pack random_pack(random_source& r) {
  argument_pack p;
  p.i = r.integer<int>();
  p.u = r.integer<unsigned>();
  p.l = r.integer<long>();
  p.ul = r.integer<unsigned long>();
  p.ll = r.integer<long long>();
  p.ull = r.integer<unsigned long long>();
  p.s = r.integer<short>();
  p.us = r.integer<unsigned short>();
  p.sc = r.integer<signed char>();
  p.uc = r.integer<unsigned char>();
  p.d = r.floating();
  p.f = r.single();
  p.ld = r.extended();
  p.cstr = r.text(false);
  p.str = r.text(true);
  p.view = r.text(true);
  p.c = static_cast<char>(r.chance(80) ? r.between(32, 126) : r.between(-128, 127));
  p.b = r.chance(50);
  p.ptr = static_cast<std::uintptr_t>(r.chance(10) ? 0 : r.bits() >> r.below(64));
  int w = r.below(100) < 90 ? r.between(0, 40) : r.between(100, 400);
  if (r.chance(3)) w = -1;  // fmt: "negative width"
  if (r.chance(1)) w = 5000;
  p.width = w;
  p.precision = r.chance(4) ? -1 : r.between(0, 20);
  return p;
}

// A random format spec (what follows ':') for an argument of `kind`. Mostly
// valid; now and then one fmt rejects, so that errors are compared too.
std::string random_spec(random_source& r, arg_kind kind, bool manual) {
  static const char* const fills[] = {"*", "-", "0", " ", "x", "\xc3\xa9", "\xe2\x86\x92", "{", "}"};
  static const char* const types[][9] = {
      {"", "d", "x", "X", "o", "b", "B", "c", "d"},  // integer
      {"", "e", "E", "f", "F", "g", "G", "a", "A"},  // floating
      {"", "s", "", "s", "", "s", "", "s", ""},      // string
      {"", "c", "d", "x", "o", "b", "", "c", ""},    // character
      {"", "s", "d", "x", "", "s", "", "", ""},      // boolean
      {"", "p", "", "p", "", "p", "", "p", ""},      // pointer
  };
  const bool numeric = kind == arg_kind::integer || kind == arg_kind::floating;
  const bool odd = r.chance(2);  // a spec that may not fit the kind
  std::string spec;
  if (r.chance(35)) {
    if (r.chance(60)) spec += fills[r.below(r.chance(95) ? 7 : 9)];
    spec += "<>^"[r.below(3)];
  }
  if ((numeric || odd) && r.chance(25)) spec += "+- "[r.below(3)];
  if ((numeric || odd) && r.chance(15)) spec += '#';
  if ((numeric || odd) && r.chance(15)) spec += '0';
  if (r.chance(45)) {
    std::size_t roll = r.below(100);
    if (manual && roll < 15) {
      spec += "{" + std::to_string(width_index) + "}";
    } else if (roll < 25) {
      spec += std::to_string(r.between(30, 150));
    } else if (roll < 29) {
      spec += std::to_string(r.between(200, 1200));
    } else if (roll < 30) {
      spec += "5000";
    } else {
      spec += std::to_string(r.between(1, 20));
    }
  }
  if (((kind == arg_kind::floating || kind == arg_kind::string) && r.chance(40)) || (odd && r.chance(50))) {
    std::size_t roll = r.below(100);
    if (manual && roll < 15) {
      spec += ".{" + std::to_string(precision_index) + "}";
    } else if (roll < 25) {
      spec += "." + std::to_string(r.between(18, 60));
    } else {
      spec += "." + std::to_string(r.between(0, 17));
    }
  }
  if (odd && r.chance(50)) {
    spec += static_cast<char>('A' + r.below(58));  // any letter, or a few signs
  } else {
    spec += types[static_cast<int>(odd ? static_cast<arg_kind>(r.below(6)) : kind)][r.below(9)];
  }
  return spec;
}

// Now and then a broken format: fmt's parser errors must come out alike.
// Not "{:{}}": its width would come from the next argument, any integer of
// the pack, and gigabytes of padding would stream to the file before a later
// error. "{:{19}}" mixes automatic and manual indexing, which fmt rejects
// before writing the field, whatever comes before it.
void maybe_break(random_source& r, std::string& format) {
  if (!r.chance(3)) return;
  static const char* const breakers[] = {"{", "}", "{99}", "{:", "{0", "{}{0}", "{0}{}", "{:{19}}",
                                         "{x}", "{-1}", "{0:", "{:d"};
  std::string breaker = breakers[r.below(std::size(breakers))];
  format.insert(r.chance(30) ? 0 : format.size(), breaker);
}

// Fields with manual indices, in any order, some used twice, with dynamic
// widths and precisions: short formats (the cache keeps them) and long ones.
std::string random_manual_format(random_source& r) {
  std::string format;
  std::size_t segments = 1 + r.below(r.chance(25) ? 14 : 6);
  for (std::size_t i = 0; i < segments; ++i) {
    if (r.chance(40)) {
      format += r.format_text();
      continue;
    }
    int index = static_cast<int>(r.below(pack_size));
    format += "{" + std::to_string(index);
    if (r.chance(70)) format += ":" + random_spec(r, kind_of(index), true);
    format += "}";
  }
  maybe_break(r, format);
  return format;
}

// Fields with automatic indexing take the arguments in order.
std::string random_auto_format(random_source& r) {
  std::string format;
  std::size_t fields = 1 + r.below(r.chance(20) ? pack_size : 4);
  for (std::size_t index = 0; index < fields; ++index) {
    if (r.chance(50)) format += r.format_text();
    format += r.chance(30) ? "{}" : "{:" + random_spec(r, kind_of(static_cast<int>(index)), false) + "}";
  }
  if (r.chance(30)) format += r.format_text();
  maybe_break(r, format);
  return format;
}

// A random format with two sets of arguments: the second use of a format
// replays the cached plan (when it is cached), with different values.
struct random_case {
  std::string format;
  argument_pack first;
  argument_pack second;
};

std::vector<random_case> random_cases(std::uint64_t seed, std::size_t count) {
  random_source r(seed);
  std::vector<random_case> cases;
  cases.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    random_case c;
    c.format = i % 2 == 0 ? random_manual_format(r) : random_auto_format(r);
    c.first = random_pack(r);
    c.second = random_pack(r);
    cases.push_back(std::move(c));
  }
  return cases;
}

// Each random case as two pieces: the first values through print(), the
// second through print(), println() or vprint() in turn.
std::vector<piece_case> pieces_of(const std::vector<random_case>& cases) {
  std::vector<piece_case> pieces;
  pieces.reserve(2 * cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const random_case& c = cases[i];
    pieces.push_back({"print(runtime(\"" + c.format + "\"))", reference_into([&](fmt::memory_buffer& out) {
                        fmt::format_to(fmt::appender(out), fmt::runtime(c.format), PACK_ARGS(c.first));
                      }),
                      [&c](file& f) { f.print(fmt::runtime(c.format), PACK_ARGS(c.first)); }});
    switch (i % 3) {
      case 0:
        pieces.push_back({"println(runtime(\"" + c.format + "\"))", reference_into([&](fmt::memory_buffer& out) {
                            fmt::format_to(fmt::appender(out), fmt::runtime(c.format), PACK_ARGS(c.second));
                            out.push_back('\n');
                          }),
                          [&c](file& f) { f.println(fmt::runtime(c.format), PACK_ARGS(c.second)); }});
        break;
      case 1:
        pieces.push_back(
            {"vprint(\"" + c.format + "\")", reference_into([&](fmt::memory_buffer& out) {
               fmt::format_to(fmt::appender(out), fmt::runtime(c.format), PACK_ARGS(c.second));
             }),
             [&c](file& f) { fastout_test::vprint_with(f, c.format, PACK_ARGS(c.second)); }});
        break;
      default:
        pieces.push_back(
            {"print(runtime(\"" + c.format + "\")), again", reference_into([&](fmt::memory_buffer& out) {
               fmt::format_to(fmt::appender(out), fmt::runtime(c.format), PACK_ARGS(c.second));
             }),
             [&c](file& f) { f.print(fmt::runtime(c.format), PACK_ARGS(c.second)); }});
        break;
    }
  }
  return pieces;
}

// The random set makes both outcomes often enough to mean something.
void expect_mixed_outcomes(const std::vector<piece_case>& pieces) {
  std::size_t errors = 0, large = 0, newlines = 0;
  for (const piece_case& p : pieces) {
    if (p.want.throws) {
      ++errors;
    } else {
      if (p.want.text.size() > 64) ++large;
      if (p.want.text.find('\n') != std::string::npos) ++newlines;
    }
  }
  EXPECT_GT(errors, pieces.size() / 50) << "format errors in the random set";
  EXPECT_LT(errors, pieces.size() / 3) << "format errors in the random set";
  EXPECT_GT(large, pieces.size() / 20) << "pieces larger than 64 bytes";
  EXPECT_GT(newlines, pieces.size() / 20) << "pieces with a newline";
}

// ---------------------------------------------- differential: random formats

// Padding through a buffer of a few bytes is fmt's fill() a character at a
// time, twice for a piece larger than the buffer: every size from 1 to 64
// took a minute here. These sizes keep the tiny buffers, both sides of the
// powers of two and the large ones; random_formats_from_every_offset
// covers every split.
std::vector<writer_config> random_configs() {
  std::vector<writer_config> configs;
  for (std::size_t size : size_list{0, 1, 2, 3, 5, 7, 8, 9, 16, 31, 33, 64, 1000, 65536})
    configs.push_back({size, buffering::full});
  for (std::size_t size : size_list{0, 1, 7, 64}) configs.push_back({size, buffering::line});
  return configs;
}

TEST(print_differential, random_formats_through_many_buffer_sizes) {
  std::vector<random_case> cases = random_cases(20240601, 3000);
  std::vector<piece_case> pieces = pieces_of(cases);
  expect_mixed_outcomes(pieces);
  EXPECT_TRUE(run_in_sequence(pieces, random_configs()));
}

TEST(print_differential, random_formats_from_every_offset) {
  std::vector<random_case> cases = random_cases(977, 30);
  std::vector<piece_case> pieces = pieces_of(cases);
  EXPECT_TRUE(run_at_every_offset(pieces, offset_configs()));
}

// Unbuffered writers format on the stack, 4096 bytes at a time.
TEST(print_differential, random_formats_with_large_pieces_unbuffered) {
  std::vector<random_case> cases = random_cases(31337, 400);
  for (random_case& c : cases) {
    c.first.str.assign(4000 + c.first.str.size(), 's');
    c.second.width = 4090 + c.second.width % 16;
  }
  std::vector<piece_case> pieces = pieces_of(cases);
  EXPECT_TRUE(run_in_sequence(pieces, {{0, buffering::full}, {0, buffering::line}, {4096, buffering::full}}));
}

// Named arguments, mixed with positional ones.
TEST(print_differential, random_formats_with_named_arguments) {
  random_source r(4242);
  struct named_case {
    std::string format;
    int i;
    double d;
    std::string s;
    unsigned long long u;
  };
  std::vector<named_case> cases;
  cases.reserve(600);
  static const char* const names[] = {"i", "d", "s", "u"};
  static const arg_kind kinds[] = {arg_kind::integer, arg_kind::floating, arg_kind::string,
                                   arg_kind::integer};
  for (int n = 0; n < 600; ++n) {
    named_case c;
    std::size_t fields = 1 + r.below(5);
    for (std::size_t k = 0; k < fields; ++k) {
      if (r.chance(50)) c.format += r.format_text();
      // By name, or now and then by position.
      std::size_t arg = r.below(4);
      c.format += "{" + (r.chance(80) ? std::string(names[arg]) : std::to_string(arg));
      if (r.chance(60)) c.format += ":" + random_spec(r, kinds[arg], false);
      c.format += "}";
    }
    if (r.chance(5)) c.format += "{nope}";
    c.i = r.integer<int>();
    c.d = r.floating();
    c.s = r.text(true);
    c.u = r.integer<unsigned long long>();
    cases.push_back(std::move(c));
  }
  std::vector<piece_case> pieces;
  for (const named_case& c : cases) {
    pieces.push_back(
        {c.format, reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime(c.format), fmt::arg("i", c.i), fmt::arg("d", c.d),
                              fmt::arg("s", c.s), fmt::arg("u", c.u)); }),
         [&c](file& f) {
           f.print(fmt::runtime(c.format), fmt::arg("i", c.i), fmt::arg("d", c.d), fmt::arg("s", c.s),
                   fmt::arg("u", c.u));
         }});
  }
  EXPECT_TRUE(run_in_sequence(pieces, every_config()));
}

// -------------------------------------- differential: compile-time formats

// Prints a literal format four ways -- checked at compile time, compiled,
// and both with println -- and checks each against fmt.
#define ADD_LITERAL_CASES(cases, S, ...)                                                     \
  do {                                                                                       \
    (cases).push_back({"print(" #S ")", reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), S, __VA_ARGS__); }), \
                       [&](file& f) { f.print(S, __VA_ARGS__); }});                          \
    (cases).push_back({"print(FMT_COMPILE(" #S "))",                                         \
                       reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), FMT_COMPILE(S), __VA_ARGS__); }), \
                       [&](file& f) { f.print(FMT_COMPILE(S), __VA_ARGS__); }});             \
    (cases).push_back({"println(" #S ")",                                                    \
                       reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), S, __VA_ARGS__); out.push_back('\n'); }),        \
                       [&](file& f) { f.println(S, __VA_ARGS__); }});                        \
    (cases).push_back({"println(FMT_COMPILE(" #S "))",                                       \
                       reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), FMT_COMPILE(S), __VA_ARGS__); out.push_back('\n'); }), \
                       [&](file& f) { f.println(FMT_COMPILE(S), __VA_ARGS__); }});           \
  } while (false)

// Values for the literal formats; the cases refer to them.
struct literal_values {
  std::int8_t i8;
  std::uint8_t u8;
  std::int16_t i16;
  std::uint16_t u16;
  std::int32_t i32;
  std::uint32_t u32;
  std::int64_t i64;
  std::uint64_t u64;
  double d;
  float f;
  long double ld;
  std::string s;
  std::string big;
  char c;
  bool b;
  const void* p;
  int width;
  int precision;
  point pt;
  label lb;
};

literal_values random_literal_values(random_source& r) {
  literal_values v;
  v.i8 = r.integer<std::int8_t>();
  v.u8 = r.integer<std::uint8_t>();
  v.i16 = r.integer<std::int16_t>();
  v.u16 = r.integer<std::uint16_t>();
  v.i32 = r.integer<std::int32_t>();
  v.u32 = r.integer<std::uint32_t>();
  v.i64 = r.integer<std::int64_t>();
  v.u64 = r.integer<std::uint64_t>();
  v.d = r.floating();
  v.f = r.single();
  v.ld = r.extended();
  v.s = r.text(true);
  v.big = std::string(static_cast<std::size_t>(r.between(60, 6000)), 'B') + r.text(true);
  v.c = static_cast<char>(r.between(32, 126));
  v.b = r.chance(50);
  v.p = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(r.bits()));
  v.width = r.between(0, 80);
  v.precision = r.between(0, 30);
  v.pt = {r.integer<int>(), r.integer<int>()};
  v.lb = {r.text(false)};
  return v;
}

void add_literal_cases(std::vector<piece_case>& cases, const literal_values& v) {
  ADD_LITERAL_CASES(cases, "{}", v.i32);
  ADD_LITERAL_CASES(cases, "{} {} {} {} {} {} {} {}", v.i8, v.u8, v.i16, v.u16, v.i32, v.u32, v.i64, v.u64);
  ADD_LITERAL_CASES(cases, "{:+} {:#x} {:#o} {:#b} {:08X} {:<6d}|{:^7}|", v.i8, v.u8, v.i16, v.u16, v.i32, v.i64, v.u64);
  ADD_LITERAL_CASES(cases, "{} {} {}", v.d, v.f, v.ld);
  ADD_LITERAL_CASES(cases, "{:>12.3f}|{:<+14e}|{:^#12g}|{:a}|{:E}|{:.0f}", v.d, v.d, v.f, v.d, v.ld, v.d);
  ADD_LITERAL_CASES(cases, "{:.17g} {:.40f}", v.d, v.d);
  ADD_LITERAL_CASES(cases, "{}|{:>10}|{:*^9.3}|{:.0}|{:s}", v.s, v.s, v.s, v.s, v.s);
  ADD_LITERAL_CASES(cases, "{} {:c} {:d} {:#x} {:>4}", v.c, v.c, v.c, v.c, v.c);
  ADD_LITERAL_CASES(cases, "{} {:>6} {:d} {:s}", v.b, v.b, v.b, v.b);
  ADD_LITERAL_CASES(cases, "{} {:p} {:>30}", v.p, v.p, v.p);
  ADD_LITERAL_CASES(cases, "{1} {0} {1} {2}", v.i32, v.s, v.d);
  ADD_LITERAL_CASES(cases, "{{}} {{{}}} }}{{", v.i32);
  ADD_LITERAL_CASES(cases, "{:{}}|{:.{}f}|{:{}.{}e}", v.i32, v.width, v.d, v.precision, v.d, v.width, v.precision);
  ADD_LITERAL_CASES(cases, "{0:>{1}}|{2:.{3}}", v.s, v.width, v.s, v.precision);
  ADD_LITERAL_CASES(cases, "{} {:>5000}", v.i32, v.s);
  ADD_LITERAL_CASES(cases, "{}|{}", v.big, v.i64);
  ADD_LITERAL_CASES(cases, "{:\xc3\xa9^21}|{:\xe2\x86\x92<9}", v.s, v.i32);
  ADD_LITERAL_CASES(cases, "{name:>12}|{other}|{0}", fmt::arg("name", v.i64), fmt::arg("other", v.s));
  ADD_LITERAL_CASES(cases, "{} {:p} {:c}", v.pt, v.pt, v.pt);
  ADD_LITERAL_CASES(cases, "{}|{:>20}|{:.3}", v.lb, v.lb, v.lb);
  ADD_LITERAL_CASES(cases, "{}", big_text{static_cast<std::size_t>(v.width) * 100, 'T', false});
  ADD_LITERAL_CASES(cases, "line\n{}\nline {}\n", v.i32, v.s);
  ADD_LITERAL_CASES(cases, "{}", std::string_view(v.s));
  ADD_LITERAL_CASES(cases, "{}{}", v.s.c_str(), 'x');
  // Char arrays, short and longer than 16 bytes: the bounded compiled path
  // hands fmt a pointer to them (detail::fast_argument).
  ADD_LITERAL_CASES(cases, "{}|{:>40}|{}", "a char array longer than sixteen bytes", "short", v.s);
  // No arguments at all.
  cases.push_back({"print(\"no fields\\n\")", {false, "no fields\n"}, [](file& f) { f.print("no fields\n"); }});
  cases.push_back({"println(\"{{}}\")", {false, "{}\n"}, [](file& f) { f.println("{{}}"); }});
  cases.push_back({"print(FMT_COMPILE(\"x{{\"))", {false, "x{"}, [](file& f) { f.print(FMT_COMPILE("x{{")); }});
  cases.push_back({"print(\"\")", {false, ""}, [](file& f) { f.print(""); }});
}

TEST(print_differential, compile_time_and_compiled_formats_through_every_buffer_size) {
  random_source r(7);
  std::vector<literal_values> values;
  for (int i = 0; i < 12; ++i) values.push_back(random_literal_values(r));
  std::vector<piece_case> cases;
  for (const literal_values& v : values) add_literal_cases(cases, v);
  EXPECT_TRUE(run_in_sequence(cases, every_config()));
}

TEST(print_differential, compile_time_and_compiled_formats_from_every_offset) {
  random_source r(8);
  literal_values v = random_literal_values(r);
  v.big.resize(100);
  std::vector<piece_case> cases;
  add_literal_cases(cases, v);
  EXPECT_TRUE(run_at_every_offset(cases, offset_configs()));
}

// A piece larger than the whole buffer, from every offset, in every way.
TEST(print_differential, pieces_larger_than_the_buffer) {
  std::string s = "tail";
  std::vector<piece_case> cases;
  ADD_LITERAL_CASES(cases, "{:>5000}", s);
  ADD_LITERAL_CASES(cases, "{:<70}|{}", s, 42);
  ADD_LITERAL_CASES(cases, "{}", big_text{300, 'x', false});
  ADD_LITERAL_CASES(cases, "a\n{:>130}\nb", s);
  cases.push_back({"vprint(\"{:>5000}\")", reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), "{:>5000}", s); }),
                   [&](file& f) { fastout_test::vprint_with(f, "{:>5000}", s); }});
  EXPECT_TRUE(run_at_every_offset(cases, offset_configs()));
  EXPECT_TRUE(run_in_sequence(cases, every_config()));
}

// ------------------------------- compiled formats with specs: the bounded path

// print(FMT_COMPILE(...)) writes straight into the buffer when
// detail::bounded_format bounds the text before formatting; with fmt 9 that
// includes fields with specs of built-in scalars and strings. An
// underestimate writes past the buffer, so every format below is checked
// three ways: at compile time, that it takes the bounded path (the
// optimization cannot silently go); against fmt::formatted_size, that the
// bound holds the text, over extreme and random values; and through files at
// every buffer size and offset, against fmt::format.

// Arguments for the formats with specs.
struct spec_values {
  std::int64_t i64;
  std::uint64_t u64;
  std::int32_t i32;
  std::uint32_t u32;
  std::int16_t i16;
  std::uint16_t u16;
  std::int8_t i8;
  std::uint8_t u8;
  double d;
  float f;
  std::string s;
  std::string mutable_text;  // passed as char*
  char array[12];            // passed as char[12]
  char c;
  bool b;

  spec_values(std::int64_t a_i64, std::uint64_t a_u64, double a_d, float a_f, std::string a_s,
              char a_c, bool a_b)
      : i64(a_i64),
        u64(a_u64),
        i32(static_cast<std::int32_t>(a_i64)),
        u32(static_cast<std::uint32_t>(a_u64)),
        i16(static_cast<std::int16_t>(a_i64)),
        u16(static_cast<std::uint16_t>(a_u64)),
        i8(static_cast<std::int8_t>(a_i64)),
        u8(static_cast<std::uint8_t>(a_u64)),
        d(a_d),
        f(a_f),
        s(std::move(a_s)),
        mutable_text(s),
        array(),
        c(a_c),
        b(a_b) {
    s.copy(array, sizeof array - 1);
  }
};

// Each format with its arguments, for X(format, args...): the W8 row; every
// integer presentation, sign, '#' and '0'; multi-byte fills; 'f', 'e', 'g',
// 'a' and none with precisions up to past fmt's 767 digits; float; every
// string type with precision and width; bool and char as text and as
// integers; widths wider than the small buffers; manual indexing.
// {fmt} 10 and later reject 'c' for a bool and a sign for a char.
#if FMT_VERSION >= 100000
#  define BOOL_SPECS "{:>6}|{:<6s}|{:d}|{:#x}|{:05d}|{:^7}|{:b}|{:o}"
#  define CHAR_SPECS "{:>4}|{:c}|{:*^5}|{:d}|{:#x}|{:x}|{:08b}"
#else
#  define BOOL_SPECS "{:>6}|{:<6s}|{:d}|{:#x}|{:05d}|{:^7}|{:b}|{:c}"
#  define CHAR_SPECS "{:>4}|{:c}|{:*^5}|{:d}|{:#x}|{:+d}|{:08b}"
#endif
#define FOR_EACH_SPEC_FORMAT(X, v)                                                                 \
  X("{},{:.2f},{},{}\n", v.i64, v.d, v.s, v.i32);                                                  \
  X("{:>12}|{:<+8}|{:^#10x}|{:08X}|{: d}|{:#o}|{:o}", v.i32, v.i64, v.u64, v.i32, v.i16, v.u16,    \
    v.i8);                                                                                          \
  X("{:#b}|{:B}|{:#066b}|{:b}|{:#B}|{:x}|{:#X}", v.i64, v.u64, v.i64, v.u8, v.i8, v.i64, v.u64);    \
  X("{:c}|{:>5c}|{:d}|{:+d}|{:#x}|{:<3}|{:-}", v.u8, v.u8, v.u8, v.i8, v.u16, v.u32, v.i16);         \
  X("{:\xc3\xa9^30}|{:\xf0\x9f\x92\xa1>12}|{:\xe2\x86\x92<9}|{:\xf0\x9f\x92\xa1^+#20x}", v.s, v.i32, \
    v.d, v.i64);                                                                                    \
  X("{:\xc3\xa9<08}|{:\xf0\x9f\x92\xa1>+010.3f}", v.i32, v.d);                                     \
  X("{:.2f}|{:+.0f}|{:#.0f}|{:F}|{:12.3f}|{:014.2f}|{:f}", v.d, v.d, v.d, v.d, v.f, v.d, v.d);      \
  X("{:e}|{:.0e}|{:#.3E}|{:+.17e}|{:.40e}|{:>30e}", v.d, v.d, v.d, v.d, v.d, v.d);                  \
  X("{:g}|{:.1g}|{:#G}|{:.17g}|{:#.30g}|{:.0}|{:.5}|{:#.0g}", v.d, v.d, v.d, v.d, v.d, v.d, v.d,     \
    v.d);                                                                                           \
  X("{:a}|{:.0a}|{:#A}|{:.20a}|{:+a}|{:#.3a}", v.d, v.d, v.d, v.d, v.d, v.d);                       \
  X("{}|{:}|{:>30}|{:<+}|{: }|{:015}|{:#}", v.d, v.d, v.d, v.d, v.d, v.d, v.d);                     \
  X("{:.2f}|{:e}|{:g}|{:a}|{:>20}|{:.10}|{:#}|{:.50f}|{:+015.3e}", v.f, v.f, v.f, v.f, v.f, v.f,    \
    v.f, v.f, v.f);                                                                                 \
  X("{:.400f}|{:.800e}", v.d, v.d);                                                                 \
  X("{:#.500g}|{:.800f}|{:.800a}", v.d, v.d, v.d);                                                  \
  X("{:.3}|{:>20.5s}|{:*<12}|{:^9}|{:.0}|{:s}", v.s, std::string_view(v.s), v.s.c_str(), v.array,  \
    v.s, v.s);                                                                                      \
  X("{:>8.2}|{:\xc3\xa9^10}|{:\xe2\x86\x92>7.1}", const_cast<char*>(v.mutable_text.c_str()),        \
    fmt::string_view(v.s), v.array);                                                                \
  X(BOOL_SPECS, v.b, v.b, v.b, v.b, v.b, v.b, v.b, v.b);                                            \
  X(CHAR_SPECS, v.c, v.c, v.c, v.c, v.c, v.c, v.c);                                                 \
  X("{:>500}|{:<300.2f}", v.i32, v.d);                                                              \
  X("{0:>10}|{0:x}|{1:.3f}|{0}|{2:>4}", v.i32, v.d, v.s);                                           \
  X("x{{{:>5}}}y", v.i32)

// Values at the edges of each type: the longest integers in every base,
// 309-digit doubles, the smallest, NaN and infinities (with signs), the
// rounding that carries into a 16th integral digit, negative zero; empty,
// multi-byte and malformed UTF-8 text (a precision counts code points).
std::vector<spec_values> extreme_spec_values() {
  using dbl = std::numeric_limits<double>;
  using flt = std::numeric_limits<float>;
  using i64 = std::numeric_limits<std::int64_t>;
  using u64 = std::numeric_limits<std::uint64_t>;
  std::vector<spec_values> values;
  values.emplace_back(i64::min(), u64::max(), dbl::max(), flt::max(), "h\xc3\xa9llo w\xc3\xb6rld",
                      'x', true);
  values.emplace_back(i64::max(), 0, dbl::lowest(), flt::lowest(), "", '\0', false);
  values.emplace_back(0, 1, dbl::quiet_NaN(), -flt::quiet_NaN(), "\x80\x80\x80\x80\x80\xbf",
                      static_cast<char>(-1), true);
  values.emplace_back(-1, u64::max() - 1, -dbl::infinity(), flt::infinity(),
                      "\xf0\x9f\x92\xa1\xe6\x97\xa5", '}', false);
  values.emplace_back(i64::min() + 1, 1ull << 63, dbl::min(), flt::min(), "{}", '\n', true);
  values.emplace_back(-128, 255, dbl::denorm_min(), flt::denorm_min(), "a", '~', false);
  values.emplace_back(-32768, 65535, 999999999999999.9, 0.5f, "0123456789abcdef", 'A', true);
  values.emplace_back(127, 128, -999999999999999.5, -99999.995f, "tab\tnewline\n", 'z', false);
  values.emplace_back(42, 42, 1e15, 1e15f, std::string(300, 'w'), '0', true);
  values.emplace_back(-42, 0x7f, -0.0, -0.0f, "\xe2\x86\x92", ' ', false);
  values.emplace_back(1, 2, 0.005, 0.125f, "x", '\x7f', true);
  values.emplace_back(-2, 3, std::copysign(dbl::quiet_NaN(), -1.0), -flt::infinity(), "yz", 'q',
                      false);
  return values;
}

spec_values random_spec_values(random_source& r) {
  return spec_values(r.integer<std::int64_t>(), r.integer<std::uint64_t>(), r.floating(),
                     r.single(), r.text(false), static_cast<char>(r.between(-128, 127)),
                     r.chance(50));
}

template <typename... T, typename S>
constexpr bool takes_bounded_path(S) {
  return fastout::detail::bounded_format<S, T...>::value;
}

// The bound must hold fmt's text; with fmt 9 the format must be bounded at
// all (checked when the function is instantiated, that is at compile time).
template <typename S, typename... T>
void expect_bounded(const char* name, const S& format, const T&... args) {
  using bounded = fastout::detail::bounded_format<S, const T&...>;
#ifdef FASTOUT_FMT_PROBES_SPECS
  static_assert(bounded::value, "print(FMT_COMPILE(...)) must take the bounded path here");
#endif
  if constexpr (bounded::value) {
    std::size_t size = fmt::formatted_size(format, args...);
    std::size_t bound = bounded::max_size(args...);
    EXPECT_LE(size, bound) << name << " wrote \"" << printable(fmt::format(format, args...))
                           << "\"";
  }
}

#define EXPECT_BOUNDED(S, ...) expect_bounded(#S, FMT_COMPILE(S), __VA_ARGS__)

void expect_spec_bounds(const spec_values& v) { FOR_EACH_SPEC_FORMAT(EXPECT_BOUNDED, v); }

void add_spec_cases(std::vector<piece_case>& cases, const spec_values& v) {
#define ADD_SPEC_CASES(S, ...) ADD_LITERAL_CASES(cases, S, __VA_ARGS__)
  FOR_EACH_SPEC_FORMAT(ADD_SPEC_CASES, v);
#undef ADD_SPEC_CASES
}

// Fields the bound cannot know before formatting keep fmt's buffer: a width
// or precision from an argument, the locale ('L'), escapes ('?'), long
// double, pointers, and types with formatters of their own (even one that
// reuses fmt's string formatter), chrono and ranges among them.
static_assert(!takes_bounded_path<int, int>(FMT_COMPILE("{:{}}")));
static_assert(!takes_bounded_path<double, int>(FMT_COMPILE("{:.{}f}")));
static_assert(!takes_bounded_path<std::string, int, int>(FMT_COMPILE("{:>{}.{}}")));
static_assert(!takes_bounded_path<int, int>(FMT_COMPILE("{0:{1}}")));
static_assert(!takes_bounded_path<int>(FMT_COMPILE("{:L}")));
static_assert(!takes_bounded_path<double>(FMT_COMPILE("{:.2Lf}")));
static_assert(!takes_bounded_path<std::string>(FMT_COMPILE("{:?}")));
static_assert(!takes_bounded_path<char>(FMT_COMPILE("{:?}")));
static_assert(!takes_bounded_path<long double>(FMT_COMPILE("{:.2f}")));
static_assert(!takes_bounded_path<long double>(FMT_COMPILE("{}")));
static_assert(!takes_bounded_path<const void*>(FMT_COMPILE("{:>20}")));
static_assert(!takes_bounded_path<const char*>(FMT_COMPILE("{:p}")));
static_assert(!takes_bounded_path<label>(FMT_COMPILE("{:>20}")));
static_assert(!takes_bounded_path<point>(FMT_COMPILE("{:p}")));
static_assert(!takes_bounded_path<loud>(FMT_COMPILE("{}")));
static_assert(!takes_bounded_path<std::chrono::seconds>(FMT_COMPILE("{:%H:%M}")));
static_assert(!takes_bounded_path<std::vector<int>>(FMT_COMPILE("{::>3}")));
static_assert(!takes_bounded_path<decltype(fmt::arg("x", 1))>(FMT_COMPILE("{x:>5}")));
// Plain fields of scalars and strings take it, as before.
static_assert(takes_bounded_path<int, unsigned long long, double, float, bool, char, std::string,
                                 std::string_view, const char*>(FMT_COMPILE("{}{}{}{}{}{}{}{}{}")));

TEST(print_bounded, the_bound_holds_extreme_values) {
  for (const spec_values& v : extreme_spec_values()) expect_spec_bounds(v);
}

TEST(print_bounded, the_bound_holds_random_values) {
  random_source r(1309);
  for (int i = 0; i < 3000; ++i) expect_spec_bounds(random_spec_values(r));
}

TEST(print_bounded, specs_through_every_buffer_size) {
  random_source r(2718);
  std::vector<spec_values> values = extreme_spec_values();
  for (int i = 0; i < 4; ++i) values.push_back(random_spec_values(r));
  std::vector<piece_case> cases;
  for (const spec_values& v : values) add_spec_cases(cases, v);
  EXPECT_TRUE(run_in_sequence(cases, every_config()));
}

TEST(print_bounded, specs_from_every_offset) {
  std::vector<spec_values> values = extreme_spec_values();
  std::vector<piece_case> cases;
  for (std::size_t i : size_list{0, 2, 6}) add_spec_cases(cases, values[i]);
  EXPECT_TRUE(run_at_every_offset(cases, offset_configs()));
}

// ---------------------------------------------------------- the format cache

// The cache is per thread and per list of argument types; each test below
// uses formats with several argument lists on purpose.

TEST(format_cache, same_format_alternating_with_others_of_the_same_types) {
  static const char* const formats[] = {"{} {}\n", "{1} {0}\n", "{:>6}|{:<6}\n", "[{0}]\n",
                                        "{}{}",    "{:x}:{}\n", "{1:.2}{0:+}"};
  std::vector<std::pair<int, std::string>> values;
  random_source r(99);
  for (int i = 0; i < 300; ++i) values.emplace_back(r.integer<int>(), r.text(false));
  std::vector<piece_case> cases;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto& v = values[i];
    // The same format twice in a row, then another: replay, and switch.
    for (const char* format : {formats[i % 7], formats[i % 7], formats[(i * 3 + 1) % 7]}) {
      cases.push_back({format, reference_into([&v, format](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime(format), v.first, v.second); }),
                       [&v, format](file& f) { f.print(fmt::runtime(format), v.first, v.second); }});
    }
  }
  EXPECT_TRUE(run_in_sequence(cases, {{0, buffering::full}, {4096, buffering::full}, {7, buffering::line}}));
}

// A runtime format in the same storage, changed in place: the cache must
// compare the text, not the address or the size.
TEST(format_cache, a_runtime_format_reused_at_the_same_address_is_compared) {
  temp_dir dir;
  file f(dir.file("out"));
  std::string expected;
  std::string format;
  format.reserve(100);
  const char* address = format.data();
  // Pairs of the same length.
  static const char* const contents[] = {"{0}-{1}", "{1}-{0}", "{:>5}|{}", "{:<5}|{}", "{:x}{:d}",
                                         "{:o}{:d}", "{0}{0}",   "{1}{1}",   "{0}{0}",  "a{}b{}"};
  for (int round = 0; round < 3; ++round) {
    for (const char* content : contents) {
      format.assign(content);
      ASSERT_EQ(format.data(), address);
      f.print(fmt::runtime(format), 10 + round, 20);
      expected += fmt::format(fmt::runtime(format), 10 + round, 20);
      f.println(fmt::runtime(format), 11, 21 + round);
      expected += fmt::format(fmt::runtime(format), 11, 21 + round) + '\n';
    }
  }
  // A char array edited in place, one character at a time.
  char text[] = "{0:>4}|{1:>4}";
  for (char align : {'>', '<', '^', '>'}) {
    text[3] = align;
    text[10] = align;
    f.print(fmt::runtime(std::string_view(text)), 1, 2);
    expected += fmt::format(fmt::runtime(std::string_view(text)), 1, 2);
  }
  f.close();
  EXPECT_EQ(read_file(dir.file("out")), expected);
}

// Formats of 64 characters and 8 steps (a field and the text after it) are
// planned, longer ones and ones with more steps are not; both stay right as
// values change, and formats that share a prefix with a cached one are not
// taken for it.
TEST(format_cache, long_formats_and_formats_with_many_segments_are_fmts) {
  std::vector<std::string> formats;
  for (std::size_t size : size_list{63, 64, 65, 66, 200}) {
    std::string padding(size - 7, '.');
    formats.push_back("{}" + padding + "{}|{}");
    formats.push_back("{}" + padding.substr(1) + ",{}|{}");  // differs near the end
    formats.push_back("{2}" + padding.substr(2) + "{1}{0}");
  }
  // 8 and 9 steps, and formats with text between fields (and errors).
  formats.push_back("{0}{1}{2}{0}{1}{2}{0}{1}");
  formats.push_back("{0}{1}{2}{0}{1}{2}{0}{1}{2}");
  formats.push_back("x{0}{1}{2}{0}{1}{2}{0}{1}");
  formats.push_back("x{0}-{1}-{2}-{0}-{1}-{2}-{0}|");
  formats.push_back("{}a{}b{}c{}");
  formats.push_back("{}a{}b{}c{}d");
  formats.push_back("{}a{}b{}c{}d{}");
  formats.push_back("x{}a{}b{}c{}d{}");
  formats.push_back("{}{}{}{0}{1}{2}{0}{1}");
  formats.push_back("{}{}{}{0}{1}{2}{0}{1}{2}");
  formats.push_back("{:x}{:o}{:b}{0:x}{1:o}{2:b}{0}{1}{2}");
  for (std::size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(formats[i].size(), 63u);
    ASSERT_EQ(formats[3 + i].size(), 64u);
    ASSERT_EQ(formats[6 + i].size(), 65u);
  }
  random_source r(5);
  std::vector<std::array<long long, 3>> values;
  for (int i = 0; i < 200; ++i) values.push_back({r.integer<long long>(), r.integer<long long>(), r.integer<long long>()});
  std::vector<piece_case> cases;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto& v = values[i];
    for (std::size_t k : {i % formats.size(), i % formats.size(), (i * 7 + 3) % formats.size()}) {
      const std::string& format = formats[k];
      cases.push_back({format, reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime(format), v[0], v[1], v[2]); }),
                       [&v, &format](file& f) { f.print(fmt::runtime(format), v[0], v[1], v[2]); }});
    }
  }
  EXPECT_TRUE(run_in_sequence(cases, {{0, buffering::full}, {64, buffering::full}, {4096, buffering::full}}));
}

// A format that throws midway leaves no plan behind: the same string throws
// again with the same types, works with types that suit it, and a string of
// the same length that differs after the error is not replayed as it.
TEST(format_cache, a_format_that_throws_midway_leaves_no_plan) {
  const std::string text = "abc";
  std::vector<piece_case> cases;
  auto add = [&](std::string name, outcome want, std::function<void(file&)> print) {
    cases.push_back({std::move(name), std::move(want), std::move(print)});
  };
  for (int round = 0; round < 3; ++round) {
    add("{} {:d} with a string", reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime("{} {:d}"), 1, text); }),
        [&](file& f) { f.print(fmt::runtime("{} {:d}"), 1, text); });
    add("{} {:s} with a string", reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime("{} {:s}"), 1, text); }),
        [&](file& f) { f.print(fmt::runtime("{} {:s}"), 1, text); });
    add("{} {:d} with an int", reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime("{} {:d}"), 1, 2); }),
        [&](file& f) { f.print(fmt::runtime("{} {:d}"), 1, 2); });
    add("{} {:d} with a string again", reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime("{} {:d}"), 1, text); }),
        [&](file& f) { f.print(fmt::runtime("{} {:d}"), 1, text); });
    // Cached, then the same types with a format that fails late, then again.
    add("{}|{} cached", reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime("{}|{}"), 7, text); }),
        [&](file& f) { f.print(fmt::runtime("{}|{}"), 7, text); });
    add("{}|{:d} fails", reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime("{}|{:d}"), 7, text); }),
        [&](file& f) { f.print(fmt::runtime("{}|{:d}"), 7, text); });
    add("{}|{} again", reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime("{}|{}"), 8, text); }),
        [&](file& f) { f.print(fmt::runtime("{}|{}"), 8, text); });
    // A value-dependent error: a negative dynamic width.
    for (int width : {-1, 5, -1, 6}) {
      add("{:{}} width " + std::to_string(width),
          reference_into([=](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime("{:{}}|"), 42, width); }),
          [=](file& f) { f.print(fmt::runtime("{:{}}|"), 42, width); });
    }
    // An argument index out of range, after a field that was written.
    add("{0}{1}{2} with two", reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime("{0}{1}{2}"), 1, text); }),
        [&](file& f) { f.print(fmt::runtime("{0}{1}{2}"), 1, text); });
    add("{0}{1}{1} with two", reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime("{0}{1}{1}"), 1, text); }),
        [&](file& f) { f.print(fmt::runtime("{0}{1}{1}"), 1, text); });
  }
  for (const piece_case& c : cases) {
    if (c.name.find("with a string") != std::string::npos && c.name.find("{:d}") != std::string::npos) {
      ASSERT_TRUE(c.want.throws) << c.name;
    }
  }
  EXPECT_TRUE(run_in_sequence(cases, {{0, buffering::full}, {1, buffering::full}, {64, buffering::full}}));
}

// Named arguments are found by name on every call: two calls with the same
// format and the same argument types may name them in another order.
TEST(format_cache, named_arguments_are_looked_up_on_every_call) {
  std::vector<piece_case> cases;
  for (int round = 0; round < 3; ++round) {
    cases.push_back({"{a} with a first", reference_into([](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), "{a}|", fmt::arg("a", 1), fmt::arg("b", 2)); }),
                     [](file& f) { f.print("{a}|", fmt::arg("a", 1), fmt::arg("b", 2)); }});
    cases.push_back({"{a} with a second", reference_into([](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), "{a}|", fmt::arg("b", 1), fmt::arg("a", 2)); }),
                     [](file& f) { f.print("{a}|", fmt::arg("b", 1), fmt::arg("a", 2)); }});
    cases.push_back({"{a:>4} with a second", reference_into([](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), "{a:>4}|", fmt::arg("b", 1), fmt::arg("a", 2)); }),
                     [](file& f) { f.print("{a:>4}|", fmt::arg("b", 1), fmt::arg("a", 2)); }});
    cases.push_back({"{a:>4} with a first", reference_into([](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), "{a:>4}|", fmt::arg("a", 1), fmt::arg("b", 2)); }),
                     [](file& f) { f.print("{a:>4}|", fmt::arg("a", 1), fmt::arg("b", 2)); }});
    cases.push_back({"{a} with no a", reference_into([](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime("{a}|"), fmt::arg("x", 1), fmt::arg("y", 2)); }),
                     [](file& f) { f.print(fmt::runtime("{a}|"), fmt::arg("x", 1), fmt::arg("y", 2)); }});
  }
  ASSERT_NE(cases[0].want.text, cases[1].want.text);
  ASSERT_TRUE(cases[4].want.throws);
  EXPECT_TRUE(run_in_sequence(cases, {{0, buffering::full}, {4096, buffering::full}}));
}

// Each thread has its own cache: two threads printing with the same format
// and argument types, each to its own writer, at the same time.
TEST(format_cache, two_threads_with_the_same_format_each_keep_their_plan) {
  temp_dir dir;
  std::atomic<int> ready{0};
  auto work = [&](int id, std::string* expected) {
    file f(dir.file("out" + std::to_string(id)), with_buffer(id == 0 ? 61 : 4096));
    ready.fetch_add(1);
    while (ready.load() < 2) std::this_thread::yield();
    for (int i = 0; i < 20000; ++i) {
      long long value = static_cast<long long>(i) * (id == 0 ? 7919 : -104729);
      double d = i / (id == 0 ? 3.0 : 7.0);
      const char* format = i % 3 == 0 ? "{} {:.3f}\n" : i % 3 == 1 ? "{:>12}|{:e}\n" : "{1}:{0:x}\n";
      f.print(fmt::runtime(format), value, d);
      *expected += fmt::format(fmt::runtime(format), value, d);
    }
    f.close();
  };
  std::string expected[2];
  std::thread first(work, 0, &expected[0]);
  std::thread second(work, 1, &expected[1]);
  first.join();
  second.join();
  EXPECT_EQ(read_file(dir.file("out0")), expected[0]);
  EXPECT_EQ(read_file(dir.file("out1")), expected[1]);
}

// An empty runtime format, including one with no storage at all.
TEST(format_cache, empty_formats_give_fmts_text) {
  std::vector<piece_case> cases;
  for (int round = 0; round < 2; ++round) {
    cases.push_back({"{}", {false, "1"}, [](file& f) { f.print(fmt::runtime("{}"), 1); }});
    cases.push_back({"empty view", {false, ""}, [](file& f) { f.print(fmt::runtime(std::string_view()), 1); }});
    cases.push_back({"empty string", {false, ""}, [](file& f) { f.print(fmt::runtime(""), 1); }});
    cases.push_back({"{:d} fails", reference_into([](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime("{:d}"), "s"); }),
                     [](file& f) { f.print(fmt::runtime("{:d}"), "s"); }});
    cases.push_back({"empty view, no args", {false, ""}, [](file& f) { f.print(fmt::runtime(std::string_view())); }});
    cases.push_back({"empty println", {false, "\n"}, [](file& f) { f.println(fmt::runtime(std::string_view()), 2); }});
    cases.push_back({"empty vprint", {false, ""}, [](file& f) { fastout_test::vprint_with(f, std::string_view(), 3); }});
  }
  EXPECT_TRUE(run_in_sequence(cases, {{0, buffering::full}, {8, buffering::full}, {8, buffering::line}}));
}

// A format string the same length as the cached one, differing in one
// character, at every position of every length a plan holds: the cache
// compares the whole text (short texts without memcmp). The character is an
// argument index, so that taking one string for the other shows.
TEST(format_cache, formats_differing_in_one_character_are_told_apart) {
  std::vector<std::string> formats;
  for (std::size_t size = 3; size <= 66; ++size) {
    std::string text(size, 'a');
    for (std::size_t i = 0; i < size; ++i) text[i] = static_cast<char>('a' + i % 26);
    for (std::size_t at = 1; at + 1 < size; ++at) {
      std::string format = text;
      format.replace(at - 1, 3, "{0}");
      formats.push_back(format);
      format[at] = '1';
      formats.push_back(format);
    }
    formats.push_back(text);  // and text alone, copied whole at every length
  }
  std::vector<piece_case> cases;
  for (const std::string& format : formats) {
    cases.push_back({format, reference_into([&format](fmt::memory_buffer& out) {
                       fmt::format_to(fmt::appender(out), fmt::runtime(format), 1, 2);
                     }),
                     [&format](file& f) { f.print(fmt::runtime(format), 1, 2); }});
  }
  EXPECT_TRUE(run_in_sequence(cases, {{0, buffering::full}, {5, buffering::full}, {64, buffering::full}, {4096, buffering::full}}));
}

// Every type formatted without fmt's type-erased arguments, with and without
// specs, each format twice in a row (the second call replays the plan), with
// new values every round.
TEST(format_cache, every_built_in_type_is_replayed) {
  random_source r(2718);
  std::vector<piece_case> cases;
  static char buffer[] = "mutable";
  static const char array[] = "array";
  static int target = 0;
  for (int round = 0; round < 40; ++round) {
    const auto i8 = r.integer<signed char>();
    const auto u8 = r.integer<unsigned char>();
    const auto i16 = r.integer<short>();
    const auto u16 = r.integer<unsigned short>();
    const auto i32 = r.integer<int>();
    const auto u32 = r.integer<unsigned>();
    const auto il = r.integer<long>();
    const auto ul = r.integer<unsigned long>();
    const auto ill = r.integer<long long>();
    const auto ull = r.integer<unsigned long long>();
    const double d = r.floating();
    const float f = r.single();
    const long double ld = r.extended();
    const bool b = r.chance(50);
    const char c = static_cast<char>(r.between(32, 126));
    const std::string s = r.text(true);
    const void* p = r.chance(20) ? nullptr : static_cast<const void*>(&target);
    auto add = [&](std::string name, outcome want, std::function<void(file&)> print) {
      cases.push_back({name, want, print});
      cases.push_back({name + ", again", want, print});
    };
#define ADD_RUNTIME_CASE(S, ...)                                                                    \
  add("print(runtime(" #S "))",                                                                     \
      reference_into([=](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime(S), __VA_ARGS__); }), \
      [=](file& out) { out.print(fmt::runtime(S), __VA_ARGS__); })
    ADD_RUNTIME_CASE("{} {} {} {} {} {} {} {} {} {}|", i8, u8, i16, u16, i32, u32, il, ul, ill, ull);
    ADD_RUNTIME_CASE("{:+} {:#x} {:o} {:>5} {:<6} {:^7} {:08} {:b} {:X} {:#b}|", i8, u8, i16, u16, i32, u32, il, ul, ill, ull);
    ADD_RUNTIME_CASE("{} {} {}|{:.3e}|{:>10.2f}|{:g}", d, f, ld, d, f, ld);
    ADD_RUNTIME_CASE("{} {} {:d} {:>3} {:x} {:s}|", b, c, c, c, b, b);
    ADD_RUNTIME_CASE("{}|{:>9}|{:.2}|{}|{:*<8}", s, s, std::string_view(s), fmt::string_view(s), std::string_view(s));
    ADD_RUNTIME_CASE("{} {} {:>8} {:<9}|", array, buffer, array, static_cast<char*>(buffer));
    ADD_RUNTIME_CASE("{} {} {:>20} {}|", p, nullptr, static_cast<void*>(&target), static_cast<const void*>(nullptr));
    ADD_RUNTIME_CASE("{1}{0}{1}|{0:>4}", i32, s);
#undef ADD_RUNTIME_CASE
  }
  EXPECT_TRUE(run_in_sequence(cases, {{0, buffering::full}, {7, buffering::full}, {4096, buffering::full}}));
}

#ifdef FASTOUT_FORMAT_CACHE
// What the cache plans, and what it leaves to fmt: a planner that planned
// nothing would pass every test above, fmt formatting everything.
TEST(format_cache, plans_what_it_can_and_leaves_the_rest_to_fmt) {
  temp_dir dir;
  file f(dir.file("out"));
  const std::string s = "s";
  struct expectation {
    const char* format;
    int planned;  // 1: planned, 0: fmt's, -1: not remembered at all
  };
  static const expectation expectations[] = {
      {"{}\n", 1}, {"{} {}", 1}, {"{1}{0}", 1}, {"{:>5}|{:<3}", 1}, {"{{}}{}}}{}", 1}, {"", 1},
      {"{:x}:{:.1}", 1}, {"{0}a{1}b{0}c{1}", 1},
      {"{}{0}", -1},                    // an error: mixed indexing
      {"{:{}}", -1},                    // an error: the width is a string
      {"{1:{0}}", 0},                   // a width from an argument
      {"{:>8}{:d}", -1},                // an error
      {"{name}", -1},                   // an error: no such name
      {"x{0}a{1}b{0}c{1}d{0}e", 1},           // 6 steps: "x", then a field and its text
      {"{0}{1}{0}{1}{0}{1}{0}{1}", 1},        // 8 steps
      {"{0}{1}{0}{1}{0}{1}{0}{1}{0}", 0},     // 9
      {"x{0}{1}{0}{1}{0}{1}{0}{1}", 0},       // 9
      {"{{{0}{1}{0}{1}{0}{1}{0}", 1},         // 8
      {"{0}{{{1}{0}{1}}}{0}{1}{0}{1}", 1},    // 8: "{" and "}" are text after a field
      {"a{{b{0}{1}{0}{1}{0}{1}{0}", 0},       // 9: "a{" and "b" are two steps
      {"{}12345678901234567890123456789012345678901234567890123456789012", 1},  // 64
      {"{}123456789012345678901234567890123456789012345678901234567890123", -1},  // 65
  };
  for (const expectation& e : expectations) {
    SCOPED_TRACE(e.format);
    try {
      f.print(fmt::runtime(e.format), 42, s);
    } catch (const fmt::format_error&) {
    }
    const auto& plan = fastout::detail::last_plan<int, std::string>;
    const std::size_t size = std::strlen(e.format);
    if (e.planned < 0) {
      EXPECT_NE(plan.format_size, size);
    } else {
      ASSERT_EQ(plan.format_size, size);
      EXPECT_EQ(std::string_view(plan.format, size), e.format);
      EXPECT_EQ(plan.by_fmt, e.planned == 0);
    }
  }
}
#endif

// ------------------------------------------------------------------ errors

// A format error throws fmt::format_error and leaves nothing of that print
// in the file, even after text larger than the free space or than the whole
// buffer; what came before is intact and the writer goes on. run_*() check
// each of these against fmt's own error and the file against fmt's text.
TEST(format_error, leaves_no_text_from_every_offset) {
  const std::string text = "text";
  std::vector<piece_case> cases;
  auto add = [&](std::string name, outcome want, std::function<void(file&)> print) {
    cases.push_back({std::move(name), std::move(want), std::move(print)});
  };
  add("{:d} with a string", reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime("{:d}"), text); }),
      [&](file& f) { f.print(fmt::runtime("{:d}"), text); });
  add("ok 1", {false, "1|"}, [](file& f) { f.print("{}|", 1); });
  add("{2} with one argument", reference_into([](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime("a{2}"), 1); }),
      [](file& f) { f.print(fmt::runtime("a{2}"), 1); });
  add("unmatched {", reference_into([](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime("abc {"), 1); }),
      [](file& f) { f.print(fmt::runtime("abc {"), 1); });
  add("unmatched }", reference_into([](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime("abc } {}"), 1); }),
      [](file& f) { f.print(fmt::runtime("abc } {}"), 1); });
  add("ok 2", {false, "2|"}, [](file& f) { f.print("{}|", 2); });
  add("{:>40}{:d}: larger than the free space, then an error",
      reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime("{:>40}{:d}"), "x", text); }),
      [&](file& f) { f.print(fmt::runtime("{:>40}{:d}"), "x", text); });
  add("{:>5000}{:d}: larger than the buffer, then an error",
      reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime("{:>5000}{:d}"), "x", text); }),
      [&](file& f) { f.print(fmt::runtime("{:>5000}{:d}"), "x", text); });
  add("println {:>5000}{", reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime("{:>5000}{"), "x"); }),
      [&](file& f) { f.println(fmt::runtime("{:>5000}{"), "x"); });
  add("vprint {:>5000}{:d}", reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime("{:>5000}{:d}"), "x", text); }),
      [&](file& f) { fastout_test::vprint_with(f, "{:>5000}{:d}", "x", text); });
  add("vprint {:>50}{2}", reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime("{:>50}{2}"), "x", text); }),
      [&](file& f) { fastout_test::vprint_with(f, "{:>50}{2}", "x", text); });
  add("a\\n{:>100}\\n{:d}: newlines, then an error",
      reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime("a\n{:>100}\n{:d}"), "x", text); }),
      [&](file& f) { f.print(fmt::runtime("a\n{:>100}\n{:d}"), "x", text); });
  add("ok 3", {false, "3\n"}, [](file& f) { f.println("{}", 3); });
  // Errors from a user's formatter, after it wrote more than any buffer.
  add("big_text that fails", reference_into([](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), "{}", big_text{5000, 'b', true}); }),
      [](file& f) { f.print("{}", big_text{5000, 'b', true}); });
  add("FMT_COMPILE big_text that fails",
      reference_into([](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), FMT_COMPILE("{}"), big_text{5000, 'b', true}); }),
      [](file& f) { f.print(FMT_COMPILE("{}"), big_text{5000, 'b', true}); });
  add("println FMT_COMPILE big_text that fails",
      reference_into([](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), FMT_COMPILE("{}"), big_text{30, 'b', true}); }),
      [](file& f) { f.println(FMT_COMPILE("{}"), big_text{30, 'b', true}); });
  add("<< big_text that fails", reference_into([](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), "{}", big_text{70, 'b', true}); }),
      [](file& f) { f << big_text{70, 'b', true}; });
  add("{:>100} then a failing big_text",
      reference_into([](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), "{:>100}{}", "x", big_text{10, 'b', true}); }),
      [](file& f) { f.print("{:>100}{}", "x", big_text{10, 'b', true}); });
  add("a point with a bad spec", reference_into([](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime("{} {:q}"), 1, point{1, 2}); }),
      [](file& f) { f.print(fmt::runtime("{} {:q}"), 1, point{1, 2}); });
  add("ok 4", {false, "4|"}, [](file& f) { f.print(FMT_COMPILE("{}|"), 4); });
  // A null C string is fmt's error too, whatever comes before it. fmt's
  // compiled formats crash on one in some versions (9.1 with specs, 11 and
  // 12 for "{}"): print(FMT_COMPILE) throws fmt's runtime error instead.
  static const char* const null_string = nullptr;
  const std::string seven = "sevenxx";
  const outcome null_error(true, "string pointer is null");
  add("FMT_COMPILE {}{} with a null C string second", null_error,
      [&](file& f) { f.print(FMT_COMPILE("{}{}"), seven, null_string); });
  add("FMT_COMPILE abcdefg{} with a null C string", null_error,
      [](file& f) { f.print(FMT_COMPILE("abcdefg{}"), null_string); });
  add("println FMT_COMPILE {}{} with a null C string second", null_error,
      [&](file& f) { f.println(FMT_COMPILE("{}{}"), seven, null_string); });
  add("println FMT_COMPILE {} with a null C string", null_error,
      [](file& f) { f.println(FMT_COMPILE("{}"), null_string); });
  add("FMT_COMPILE {:>5} with a null C string", null_error,
      [](file& f) { f.print(FMT_COMPILE("{:>5}"), null_string); });
  add("{}{} with a null C string second", reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), "{}{}", seven, null_string); }),
      [&](file& f) { f.print("{}{}", seven, null_string); });
  add("<< a null C string", reference_into([](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), "{}", null_string); }),
      [](file& f) { f << null_string; });
  add("ok 5: << nullptr", reference_into([](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), "{}", nullptr); }), [](file& f) { f << nullptr; });
  // fmt's compiled "{}" takes nullptr for a null C string (and throws, or
  // in 10.2 crashes), where its runtime "{}" writes "0x0".
  add("FMT_COMPILE nullptr, fmt's error", null_error,
      [](file& f) { f.print(FMT_COMPILE("{}|{}"), nullptr, 1); });
  std::size_t errors = 0;
  for (const piece_case& c : cases) errors += c.want.throws ? 1 : 0;
  ASSERT_EQ(errors, cases.size() - 5);  // the "ok" cases
  EXPECT_TRUE(run_at_every_offset(cases, offset_configs()));
  EXPECT_TRUE(run_in_sequence(cases, every_config()));
}

// A format error in a piece larger than the buffer: what had to go out to
// make room for it stays, and so do the chunks of the piece that streamed
// out; the text that had not had to leave yet is dropped, and uncounted.
struct streaming_error_case {
  std::size_t buffer;
  std::size_t piece;  // bytes big_text makes before it throws
  std::size_t kept;   // of them, the chunks that had gone to the file
};

TEST(format_error, a_piece_keeps_only_the_chunks_that_had_gone_out) {
  const streaming_error_case cases[] = {
      // Larger than a 4 KiB buffer, but it fits in the 64 KiB streaming
      // area: none of it had to go out.
      {4096, 6000, 0},
      {4096, 65536, 0},
      {4096, 65537, 65536},
      {4096, 200000, 3 * 65536},
      {0, 6000, 0},
      {0, 200000, 3 * 65536},
      // The buffer itself is the streaming area: it goes out whole each time.
      {fastout::default_buffer_size, 200000, 0},
      {fastout::default_buffer_size, 600000, 2 * fastout::default_buffer_size},
  };
  for (const streaming_error_case& c : cases) {
    SCOPED_TRACE("buffer " + std::to_string(c.buffer) + ", piece " + std::to_string(c.piece));
    temp_dir dir;
    const std::string path = dir.file("out");
    file f(path, with_buffer(c.buffer));
    f.write("before|");
    try {
      f.print("{}", big_text{c.piece, 'b', true});
      ADD_FAILURE() << "no format error";
    } catch (const fmt::format_error& e) {
      EXPECT_STREQ(e.what(), "big_text failed on purpose");
    }
    fastout::file_stats s = f.stats();
    EXPECT_EQ(s.bytes_accepted, 7 + c.kept);
    EXPECT_EQ(f.bytes_pending(), c.kept == 0 && c.buffer >= 7 && c.piece < c.buffer ? 7u : 0u);
    EXPECT_EQ(s.bytes_written + f.bytes_pending(), s.bytes_accepted);
    f.write("|after");
    f.close();
    EXPECT_EQ(f.stats().bytes_accepted, 7 + c.kept + 6);
    EXPECT_EQ(read_file(path), "before|" + std::string(c.kept, 'b') + "|after");
  }
}

TEST(format_error, a_closed_writer_throws_system_error) {
  file f;
  try {
    f.print("{}", 1);
    ADD_FAILURE() << "print to a closed writer did not throw";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EBADF);
  }
  EXPECT_THROW(f.println(FMT_COMPILE("{}"), 1), std::system_error);
  EXPECT_THROW(f << 1, std::system_error);
  EXPECT_THROW(f << 2.5, std::system_error);
  EXPECT_THROW(fastout_test::vprint_with(f, "{}", 1), std::system_error);
  // Even when there is nothing to write, as for write("").
  EXPECT_THROW(f.print(FMT_COMPILE("{}"), std::string()), std::system_error);
  EXPECT_THROW(f.print(FMT_COMPILE("")), std::system_error);
  EXPECT_THROW(f.print(""), std::system_error);
  EXPECT_THROW(f.print(fmt::runtime("{}"), ""), std::system_error);
  EXPECT_THROW(f << "", std::system_error);
}

// ------------------------------------------------------------ sticky errors

class print_on_a_full_disk : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "/dev/full is not writable here";
  }
};

template <typename F>
int error_of(F&& call) {
  try {
    call();
  } catch (const std::system_error& e) {
    return e.code().value();
  }
  return 0;
}

void expect_every_call_fails(file& f) {
  EXPECT_EQ(error_of([&] { f.print("{}", 1); }), ENOSPC);
  EXPECT_EQ(error_of([&] { f.print(fmt::runtime("{}"), 1); }), ENOSPC);
  EXPECT_EQ(error_of([&] { f.println("{}", 1); }), ENOSPC);
  EXPECT_EQ(error_of([&] { f.print(FMT_COMPILE("{}"), 1); }), ENOSPC);
  EXPECT_EQ(error_of([&] { f.println(FMT_COMPILE("{}"), 1); }), ENOSPC);
  EXPECT_EQ(error_of([&] { fastout_test::vprint_with(f, "{}", 1); }), ENOSPC);
  EXPECT_EQ(error_of([&] { f.print("{:>5000}", 1); }), ENOSPC);
  EXPECT_EQ(error_of([&] { f << 1; }), ENOSPC);
  EXPECT_EQ(error_of([&] { f << 1.5; }), ENOSPC);
  EXPECT_EQ(error_of([&] { f << "text"; }), ENOSPC);
  EXPECT_EQ(error_of([&] { f << 'c'; }), ENOSPC);
  EXPECT_EQ(error_of([&] { f << fastout::hex(255); }), ENOSPC);
  EXPECT_EQ(error_of([&] { f << point{1, 2}; }), ENOSPC);
  EXPECT_EQ(error_of([&] { f.print(FMT_COMPILE("{}"), ""); }), ENOSPC);  // nothing to write
  EXPECT_EQ(error_of([&] { f.print(""); }), ENOSPC);
  EXPECT_EQ(f.error().value(), ENOSPC);
  EXPECT_EQ(error_of([&] { f.close(); }), ENOSPC);
}

TEST_F(print_on_a_full_disk, the_print_that_needs_the_flush_throws_and_later_ones_too) {
  file f("/dev/full", with_buffer(64));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(error_of([&] { f.print("{:>9}|", i); }), 0) << i;  // 60 bytes
  EXPECT_EQ(f.stats().bytes_written, 0u);
  EXPECT_EQ(error_of([&] { f.print("{:>9}|", 6); }), ENOSPC);
  expect_every_call_fails(f);
}

TEST_F(print_on_a_full_disk, each_print_path_meets_the_error) {
  // Per path: a buffer that is nearly full, then the call that needs a flush.
  const std::function<void(file&)> calls[] = {
      [](file& f) { f.print(fmt::runtime("{:>9}"), 7); },
      [](file& f) { f.println("{:>8}", 7); },
      [](file& f) { f.print(FMT_COMPILE("{:>9}"), 7); },
      [](file& f) { f.println(FMT_COMPILE("{:>8}"), 7); },
      [](file& f) { fastout_test::vprint_with(f, "{:>9}", 7); },
      [](file& f) { f << 123456789; },
      [](file& f) { f << 0.125; },
      [](file& f) { f << fastout::hex(0x123456789LL); },
      [](file& f) { f << point{1234, 5}; },
      [](file& f) { f.print("{:>5000}", 7); },  // larger than the buffer
  };
  for (const auto& call : calls) {
    file f("/dev/full", with_buffer(64));
    f.write(std::string(60, 'x'));
    EXPECT_EQ(error_of([&] { call(f); }), ENOSPC);
    expect_every_call_fails(f);
  }
}

TEST_F(print_on_a_full_disk, unbuffered_and_line_buffered_writers_meet_the_error) {
  {
    file f("/dev/full", with_buffer(0));
    EXPECT_EQ(error_of([&] { f.print("{}", 1); }), ENOSPC);
    expect_every_call_fails(f);
  }
  {
    file f("/dev/full", with_buffer(0));
    EXPECT_EQ(error_of([&] { f.print("{:>6000}", 1); }), ENOSPC);  // two passes
    expect_every_call_fails(f);
  }
  {
    file f("/dev/full", with_buffer(64, buffering::line));
    EXPECT_EQ(error_of([&] { f.print("no newline {}", 1); }), 0);
    EXPECT_EQ(error_of([&] { f.println("{}", 2); }), ENOSPC);
    expect_every_call_fails(f);
  }
  {
    file f("/dev/full", with_buffer(64, buffering::line));
    EXPECT_EQ(error_of([&] { f << 12; }), 0);
    EXPECT_EQ(error_of([&] { f << '\n'; }), ENOSPC);
    expect_every_call_fails(f);
  }
}

// ------------------------------------------------------------ scalar output

template <typename T>
void add_scalar(std::vector<piece_case>& cases, const char* type, T value) {
  cases.push_back({std::string("<< ") + type, reference_into([value](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), "{}", value); }),
                   [value](file& f) { f << value; }, false});
}

template <typename T>
void add_hex(std::vector<piece_case>& cases, const char* type, T value) {
  cases.push_back({std::string("<< hex ") + type, reference_into([value](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), "{:x}", value); }),
                   [value](file& f) { f << fastout::hex(value); }, false});
}

template <typename T>
void add_integers(std::vector<piece_case>& cases, random_source& r, const char* type, std::size_t count) {
  using limits = std::numeric_limits<T>;
  for (T value : {limits::min(), limits::max(), T(0), T(1), static_cast<T>(limits::min() + 1),
                  static_cast<T>(limits::max() - 1), static_cast<T>(-1)}) {
    add_scalar(cases, type, value);
    add_hex(cases, type, value);
  }
  for (std::size_t i = 0; i < count; ++i) {
    add_scalar(cases, type, r.integer<T>());
    add_hex(cases, type, r.integer<T>());
  }
}

std::vector<piece_case> scalar_cases(std::size_t count) {
  random_source r(12345);
  std::vector<piece_case> cases;
  add_integers<std::int8_t>(cases, r, "int8_t", count);
  add_integers<std::uint8_t>(cases, r, "uint8_t", count);
  add_integers<std::int16_t>(cases, r, "int16_t", count);
  add_integers<std::uint16_t>(cases, r, "uint16_t", count);
  add_integers<std::int32_t>(cases, r, "int32_t", count);
  add_integers<std::uint32_t>(cases, r, "uint32_t", count);
  add_integers<std::int64_t>(cases, r, "int64_t", count);
  add_integers<std::uint64_t>(cases, r, "uint64_t", count);
  add_integers<long long>(cases, r, "long long", count);
  add_integers<unsigned long long>(cases, r, "unsigned long long", count);
  add_integers<long>(cases, r, "long", count);
  add_integers<signed char>(cases, r, "signed char", count);
  add_integers<unsigned char>(cases, r, "unsigned char", count);
  add_integers<unsigned short>(cases, r, "unsigned short", count);
#ifdef __SIZEOF_INT128__
  __extension__ typedef __int128 int128;
  __extension__ typedef unsigned __int128 uint128;
  const uint128 all = ~uint128(0);
  for (uint128 u : {all, all >> 1, (all >> 1) + 1, uint128(0), uint128(1)}) {
    add_scalar(cases, "unsigned __int128", u);
    add_scalar(cases, "__int128", static_cast<int128>(u));
  }
  for (std::size_t i = 0; i < count; ++i) {
    uint128 u = (uint128(r.bits()) << 64 | r.bits()) >> r.below(128);
    add_scalar(cases, "unsigned __int128", u);
    add_scalar(cases, "__int128", static_cast<int128>(r.chance(50) ? u : ~u));
  }
#endif
  for (double d : {0.0, -0.0, std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(),
                   std::copysign(std::numeric_limits<double>::quiet_NaN(), -1.0),
                   std::numeric_limits<double>::denorm_min(), -std::numeric_limits<double>::denorm_min(),
                   std::numeric_limits<double>::min(), -2.2250738585072014e-308,
                   -2.2250738585072009e-308, std::numeric_limits<double>::max(),
                   std::numeric_limits<double>::lowest(), -1.2345678901234567e-5, 1e15, 1e16, 1e-4,
                   1e-5, 0.1, 1.0 / 3.0, 9007199254740993.0}) {
    add_scalar(cases, "double", d);
  }
  for (float f : {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                  std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min(),
                  -std::numeric_limits<float>::min(), std::numeric_limits<float>::max(), 0.1f,
                  1.0f / 3.0f, 16777217.0f, 1e-5f}) {
    add_scalar(cases, "float", f);
  }
  for (std::size_t i = 0; i < 10 * count; ++i) {
    std::uint64_t bits = r.bits();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    add_scalar(cases, "double (random bits)", d);
    add_scalar(cases, "double", r.floating());
    std::uint32_t bits32 = static_cast<std::uint32_t>(r.bits());
    float f;
    std::memcpy(&f, &bits32, sizeof f);
    add_scalar(cases, "float (random bits)", f);
    if (i % 8 == 0) {  // subnormals
      std::uint64_t sub = r.bits() >> 12;
      std::memcpy(&d, &sub, sizeof d);
      add_scalar(cases, "double (subnormal)", r.chance(50) ? d : -d);
    }
  }
  for (std::size_t i = 0; i < count; ++i) add_scalar(cases, "long double", r.extended());
  add_scalar(cases, "bool", true);
  add_scalar(cases, "bool", false);
  add_hex(cases, "bool", true);
  for (int c = -128; c < 128; ++c) {
    add_scalar(cases, "char", static_cast<char>(c));
    add_hex(cases, "char", static_cast<char>(c));
  }
  static const std::string strings[] = {"", "a", "hello, world", "line\n", "tab\there\n\n",
                                        std::string(100, 'L'), std::string(3000, 'H'), "\xe6\x97\xa5"};
  for (const std::string& s : strings) {
    cases.push_back({"<< std::string", {false, s}, [&s](file& f) { f << s; }, false});
    cases.push_back({"<< string_view", {false, s}, [&s](file& f) { f << std::string_view(s); }, false});
    cases.push_back({"<< const char*", {false, s}, [&s](file& f) { f << s.c_str(); }, false});
  }
  cases.push_back({"<< char array", {false, "literal"}, [](file& f) { f << "literal"; }, false});
  cases.push_back({"<< point", reference_into([](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), "{}", point{-3, 4}); }),
                   [](file& f) { f << point{-3, 4}; }, false});
  cases.push_back({"<< label", {false, "lbl"}, [](file& f) { f << label{"lbl"}; }, false});
  cases.push_back({"<< loud", reference_into([](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), "{}", loud{"ab"}); }),
                   [](file& f) { f << loud{"ab"}; }, false});
  cases.push_back({"<< nullptr", reference_into([](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), "{}", nullptr); }),
                   [](file& f) { f << nullptr; }, false});
  cases.push_back({"<< big_text", {false, std::string(100, 'g')}, [](file& f) { f << big_text{100, 'g', false}; }, false});
  cases.push_back({"<< path", reference_into([](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), "{}", std::filesystem::path("a b/c")); }),
                   [](file& f) { f << std::filesystem::path("a b/c"); }, false});
  cases.push_back({"<< void*", reference_into([](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), "{}", static_cast<const void*>(strings)); }),
                   [](file& f) { f << static_cast<const void*>(strings); }, false});
  cases.push_back({"<< vector", reference_into([](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), "{}", std::vector<int>{1, 2, 3}); }),
                   [](file& f) { f << std::vector<int>{1, 2, 3}; }, false});
  return cases;
}

TEST(scalar_output, every_scalar_type_through_every_buffer_size) {
  std::vector<piece_case> cases = scalar_cases(200);
  EXPECT_TRUE(run_in_sequence(cases, every_config()));
}

TEST(scalar_output, near_the_end_of_the_buffer) {
  std::vector<piece_case> all = scalar_cases(3);
  // Every 7th case, and every case longer than 16 bytes but not too long.
  std::vector<piece_case> cases;
  for (std::size_t i = 0; i < all.size(); ++i) {
    std::size_t size = all[i].want.text.size();
    if (i % 7 == 0 || (size > 16 && size < 200)) cases.push_back(all[i]);
  }
  EXPECT_TRUE(run_at_every_offset(cases, offset_configs()));
}

// The text is fmt's even where C's would differ: shortest round trip.
TEST(scalar_output, floating_point_is_the_shortest_round_trip) {
  temp_dir dir;
  file f(dir.file("out"), with_buffer(4096));
  f << 0.1 << ' ' << 1e16 << ' ' << -0.0 << ' ' << 5e-324 << ' ' << 0.1f << ' ' << 1e300 << ' '
    << std::numeric_limits<double>::infinity() << ' ' << std::numeric_limits<double>::quiet_NaN();
  f.close();
  EXPECT_EQ(read_file(dir.file("out")), "0.1 1e+16 -0 5e-324 0.1 1e+300 inf nan");
}

TEST(scalar_output, chars_and_small_integers_as_fmt_formats_them) {
  temp_dir dir;
  file f(dir.file("out"), with_buffer(16));
  f << 'A' << static_cast<signed char>(65) << static_cast<unsigned char>(200) << static_cast<std::int8_t>(-128)
    << true << false << fastout::hex(-255) << fastout::hex(static_cast<std::uint8_t>(0xab))
    << fastout::hex(std::numeric_limits<std::int64_t>::min());
  f.close();
  EXPECT_EQ(read_file(dir.file("out")), "A65200-128truefalse-ffab-8000000000000000");
}

// ------------------------------------------- user, ranges, chrono and std

TEST(formatters, user_ranges_chrono_and_std_types_are_fmts) {
  const std::vector<int> numbers{1, -2, 300};
  const std::vector<std::string> words{"a", "b c", "\"q\""};
  const std::map<std::string, int> counts{{"one", 1}, {"two", 2}};
  const std::set<char> letters{'x', 'y'};
  const std::array<double, 3> doubles{0.5, -1e-7, 3.0};
  const std::tuple<int, std::string, double> tuple{7, "seven", 7.5};
  const std::pair<int, char> pair{1, 'p'};
  const std::vector<std::vector<int>> nested{{1, 2}, {}, {3}};
  std::vector<int> many(3000);
  for (std::size_t i = 0; i < many.size(); ++i) many[i] = static_cast<int>(i * i);
  const std::chrono::seconds seconds(3661);
  const std::chrono::milliseconds millis(-1234);
  const std::chrono::duration<double> fractional(1.5);
  const std::chrono::nanoseconds nanos(123456789);
  std::tm tm{};
  tm.tm_year = 124;
  tm.tm_mon = 1;
  tm.tm_mday = 29;
  tm.tm_hour = 23;
  tm.tm_min = 59;
  tm.tm_sec = 58;
  tm.tm_wday = 4;
  tm.tm_yday = 59;
  const std::filesystem::path path("dir/file name.txt");
  const std::variant<int, std::string> variant_int(5), variant_string(std::string("v"));
  const std::monostate mono{};
  const point pt{3, -4};
  const label lb{"label text"};

  std::vector<piece_case> cases;
  ADD_LITERAL_CASES(cases, "{} {:p} {:c}|{:>20}|{:*<15.5}|", pt, pt, pt, lb, lb);
  ADD_LITERAL_CASES(cases, "{}", loud{"ab"});
  ADD_LITERAL_CASES(cases, "{}|{}|{}", 1, loud{"cd"}, "x");
  ADD_LITERAL_CASES(cases, "{}|{}|{}|{}|{}", numbers, words, counts, letters, doubles);
  ADD_LITERAL_CASES(cases, "{}|{}|{}", tuple, pair, nested);
  ADD_LITERAL_CASES(cases, "{::#x}|{:n}|{::>5}", numbers, numbers, numbers);
  ADD_LITERAL_CASES(cases, "[{}]", fmt::join(numbers, ", "));
  ADD_LITERAL_CASES(cases, "{}", many);
  ADD_LITERAL_CASES(cases, "{}|{}|{}|{}", seconds, millis, fractional, nanos);
  ADD_LITERAL_CASES(cases, "{:%H:%M:%S}|{:>12}|{:%Q %q}", seconds, seconds, millis);
  ADD_LITERAL_CASES(cases, "{:%Y-%m-%d %H:%M:%S}|{:%F %T}|{:>30%F}", tm, tm, tm);
  ADD_LITERAL_CASES(cases, "{}|{}|{}|{}", path, variant_int, variant_string, mono);
  for (const std::string format : {"{} {:p}", "{:c}", "{:x}"}) {
    cases.push_back({"runtime point " + format, reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), fmt::runtime(format), pt, pt); }),
                     [format, &pt](file& f) { f.print(fmt::runtime(format), pt, pt); }});
  }
  cases.push_back({"vprint ranges", reference_into([&](fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), "{} {}", numbers, counts); }),
                   [&](file& f) { fastout_test::vprint_with(f, "{} {}", numbers, counts); }});
  EXPECT_TRUE(run_in_sequence(cases, every_config()));
  std::vector<piece_case> small;
  for (const piece_case& c : cases)
    if (c.want.text.size() < 200) small.push_back(c);
  EXPECT_TRUE(run_at_every_offset(small, {{1, buffering::full}, {13, buffering::full}, {64, buffering::full}, {16, buffering::line}}));
}

// A formatter that itself prints to another writer on the same thread, in
// the middle of a print (and of its first use of a format): both files come
// out whole. (A piece larger than the buffer is formatted twice, so its
// formatter's side effects would happen twice: not tested as a promise.)
TEST(formatters, a_formatter_that_prints_to_another_writer) {
  temp_dir dir;
  for (std::size_t size : size_list{0, 32, 4096}) {
    file log(dir.file("log"), with_buffer(size));
    file out(dir.file("out"), with_buffer(size));
    std::string expected_log, expected_out;
    for (int i = 0; i < 100; ++i) {
      const char* format = i % 2 == 0 ? "{} {}|" : "{1} {0:>20}|";
      out.print(fmt::runtime(format), i, logged{&log, i});
      expected_out += fmt::format(fmt::runtime(format), i, fmt::format("L{}", i));
      expected_log += fmt::format("log {} {:>5}\n", i, i);
      log.print("{}:", i);
      expected_log += fmt::format("{}:", i);
    }
    out.close();
    log.close();
    EXPECT_EQ(read_file(dir.file("out")), expected_out) << "buffer " << size;
    EXPECT_EQ(read_file(dir.file("log")), expected_log) << "buffer " << size;
  }
}

// ------------------------------------------------------ every argument once

// The bug this guards against: a print larger than the buffer formatted its
// arguments twice, so a single-pass range came out empty the second time.
TEST(print, a_joined_stream_is_read_once_through_every_buffer_size) {
  temp_dir dir;
  std::string numbers;
  for (int i = 0; i < 300; ++i) numbers += std::to_string(i * 37) + " ";
  std::istringstream reference_in(numbers);
  const std::string expected =
      fmt::format("[{}]\n", fmt::join(std::istream_iterator<int>(reference_in),
                                      std::istream_iterator<int>(), ","));
  ASSERT_GT(expected.size(), 1000u);
  for (const writer_config& config : every_config()) {
    SCOPED_TRACE(describe(config));
    std::string path = dir.file("join");
    file f(path, with_buffer(config.buffer, config.mode));
    f.write("<");
    std::istringstream in(numbers);
    f.print("[{}]\n", fmt::join(std::istream_iterator<int>(in), std::istream_iterator<int>(), ","));
    std::istringstream in2(numbers);
    f.println(FMT_COMPILE("{}"), fmt::join(std::istream_iterator<int>(in2), std::istream_iterator<int>(), ","));
    f.close();
    EXPECT_EQ(read_file(path), "<" + expected + expected.substr(1, expected.size() - 3) + "\n");
  }
}

// The issue's own figure: 100,000 numbers joined from a stream are 588,890
// bytes with the default buffer (it was 2).
TEST(print, a_hundred_thousand_numbers_from_a_stream_are_read_once) {
  temp_dir dir;
  std::string numbers;
  for (int i = 0; i < 100000; ++i) numbers += std::to_string(i) + "\n";
  std::istringstream in(numbers);
  std::string path = dir.file("numbers");
  file f(path);
  f.print("{}\n", fmt::join(std::istream_iterator<int>(in), std::istream_iterator<int>(), ","));
  f.close();
  std::string text = read_file(path);
  EXPECT_EQ(text.size(), 588890u);
  EXPECT_EQ(text.substr(0, 8), "0,1,2,3,");
  EXPECT_EQ(text.substr(text.size() - 12), "99998,99999\n");
}

// A formatter with a side effect runs once per argument on every path:
// runtime, compiled and type-erased formats, print and println, pieces
// smaller than the free space, larger than the free space, and larger
// than the whole buffer.
TEST(print, a_formatter_runs_once_per_argument) {
  temp_dir dir;
  for (const writer_config& config : every_config()) {
    SCOPED_TRACE(describe(config));
    std::string path = dir.file("counted");
    file f(path, with_buffer(config.buffer, config.mode));
    std::string expected;
    int formats = 0;
    for (std::size_t size : size_list{0, 1, 5, 30, 63, 64, 65, 200, 5000, 70000}) {
      format_test::counted value{size, 'v', &formats};
      const int before = formats;
      f.print("({})", value);
      expected += "(" + std::string(size, 'v') + "#" + std::to_string(before + 1) + ")";
      f.println(FMT_COMPILE("{}|{}"), value, value);
      expected += std::string(size, 'v') + "#" + std::to_string(before + 2) + "|" +
                  std::string(size, 'v') + "#" + std::to_string(before + 3) + "\n";
      fastout_test::vprint_with(f, "{}", value);
      expected += std::string(size, 'v') + "#" + std::to_string(before + 4);
      f << value;
      expected += std::string(size, 'v') + "#" + std::to_string(before + 5);
      EXPECT_EQ(formats, before + 5) << "size " << size;
    }
    f.close();
    EXPECT_EQ(read_file(path), expected);
  }
}

// A piece larger than the buffer streams in chunks of at least
// streaming_chunk_size, whatever the buffer size: not in buffer-sized (or,
// unbuffered, 4 KiB) writes. One print of 16 MiB.
TEST(print, a_large_piece_goes_out_in_chunks_of_at_least_64_kib) {
  temp_dir dir;
  const std::size_t piece = std::size_t{16} << 20;
  const std::string text(piece, 'z');
  for (std::size_t buffer : size_list{0, 1, 4096, 65535, 65536, fastout::default_buffer_size}) {
    for (buffering mode : {buffering::full, buffering::line}) {
      SCOPED_TRACE("buffer " + std::to_string(buffer) + (mode == buffering::line ? ", line" : ""));
      std::string path = dir.file("stream");
      file f(path, with_buffer(buffer, mode));
      f.write("head\n");
      f.print("{}{}\n", text, 7);
      f.close();
      const std::size_t chunk = std::max(buffer, fastout::streaming_chunk_size);
      // Whole chunks, then the rest, and the head where it is not sent with
      // the first chunk; never more.
      EXPECT_LE(f.stats().write_calls, piece / chunk + 3);
      EXPECT_GE(f.stats().write_calls, piece / (2 * chunk));
      EXPECT_EQ(fastout_test::file_size_at(path), static_cast<long long>(piece + 7));
    }
  }
}

#ifdef FASTOUT_FMT_HAS_WRITER
// {fmt} 11.1 and later: a fastout::file converts to fmt::writer, as
// fmt::ostream does, and text through both comes out in order.
TEST(print, the_fmt_writer_shares_the_buffer_in_order) {
  temp_dir dir;
  for (const writer_config& config : every_config()) {
    SCOPED_TRACE(describe(config));
    std::string path = dir.file("writer");
    file f(path, with_buffer(config.buffer, config.mode));
    fmt::writer w = f;
    std::string expected;
    for (int i = 0; i < 200; ++i) {
      w.print("w{} ", i);
      expected += fmt::format("w{} ", i);
      if (i % 3 == 0) {
        f.print("f{}\n", i);
        expected += fmt::format("f{}\n", i);
      }
      if (i % 7 == 0) {
        w.print("{:>100}\n", i);
        expected += fmt::format("{:>100}\n", i);
      }
      if (i % 50 == 0) f.flush();
    }
    EXPECT_EQ(f.stats().bytes_accepted, expected.size());
    w.print("last");
    expected += "last";
    f.close();
    EXPECT_EQ(read_file(path), expected);
  }
}
#endif

// ------------------------------------------------------------ line buffering

TEST(print, complete_lines_reach_a_line_buffered_file_at_once) {
  temp_dir dir;
  std::string path = dir.file("out");
  file f(path, with_buffer(64, buffering::line));
  f.print("partial {}", 1);
  EXPECT_EQ(read_file(path), "");
  f.println(" end {}", 2);
  EXPECT_EQ(read_file(path), "partial 1 end 2\n");
  f.print(FMT_COMPILE("a\nb{}"), 3);
  EXPECT_EQ(read_file(path), "partial 1 end 2\na\n");
  f << 4 << '\n';
  EXPECT_EQ(read_file(path), "partial 1 end 2\na\nb34\n");
  f.print("{:>100}\ntail", "long");
  EXPECT_EQ(read_file(path), fmt::format("partial 1 end 2\na\nb34\n{:>100}\n", "long"));
  EXPECT_EQ(f.bytes_pending(), 4u);
  f.close();
}

}  // namespace
