// SPDX-License-Identifier: MIT
// What the print tests share (print_test.cpp, print_differential_test.cpp,
// format_cache_test.cpp, scalar_output_test.cpp): user-defined types with
// formatters of their own, and the harness that holds fastout's output to
// fmt::format's through every buffer size and from every starting offset.
#ifndef FASTOUT_TEST_PRINT_TEST_UTIL_H_
#define FASTOUT_TEST_PRINT_TEST_UTIL_H_

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
#include "sanitizers.h"

// Skips a sweep of one thread's formatting under ThreadSanitizer, saying
// why (sanitizers.h).
#if defined(FASTOUT_TEST_TSAN)
#  define FASTOUT_SKIP_UNDER_THREAD_SANITIZER() GTEST_SKIP() << FASTOUT_TEST_SWEEP_NOT_UNDER_TSAN
#else
#  define FASTOUT_SKIP_UNDER_THREAD_SANITIZER() \
    do {                                        \
    } while (false)
#endif

// ------------------------------------------------------ user-defined types
// At namespace scope, so that fmt::formatter can be specialized for them.
namespace print_test {

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

}  // namespace print_test

namespace fmt {

template <>
struct formatter<print_test::counted> : formatter<string_view> {
  template <typename FormatContext>
  auto format(const print_test::counted& value, FormatContext& ctx) const -> decltype(ctx.out()) {
    ++*value.formats;
    auto out = ctx.out();
    for (std::size_t i = 0; i < value.size; ++i) *out++ = value.c;
    return fmt::format_to(out, "#{}", *value.formats);
  }
};

template <>
struct formatter<print_test::point> {
  char presentation = 'c';

  template <typename ParseContext>
  constexpr auto parse(ParseContext& ctx) -> decltype(ctx.begin()) {
    auto it = ctx.begin();
    if (it != ctx.end() && (*it == 'c' || *it == 'p')) presentation = *it++;
    if (it != ctx.end() && *it != '}') throw format_error("invalid point format");
    return it;
  }

  template <typename FormatContext>
  auto format(const print_test::point& p, FormatContext& ctx) const -> decltype(ctx.out()) {
    if (presentation == 'p') return fmt::format_to(ctx.out(), "{};{}", p.x, p.y);
    return fmt::format_to(ctx.out(), "({}, {})", p.x, p.y);
  }
};

template <>
struct formatter<print_test::label> : formatter<string_view> {
  template <typename FormatContext>
  auto format(const print_test::label& l, FormatContext& ctx) const -> decltype(ctx.out()) {
    return formatter<string_view>::format(string_view(l.text), ctx);
  }
};

template <>
struct formatter<print_test::big_text> {
  template <typename ParseContext>
  constexpr auto parse(ParseContext& ctx) -> decltype(ctx.begin()) {
    return ctx.begin();
  }

  template <typename FormatContext>
  auto format(const print_test::big_text& t, FormatContext& ctx) const -> decltype(ctx.out()) {
    auto out = ctx.out();
    for (std::size_t i = 0; i < t.size; ++i) *out++ = t.c;
    if (t.fail) throw format_error("big_text failed on purpose");
    return out;
  }
};

template <>
struct formatter<print_test::loud> {
  template <typename ParseContext>
  constexpr auto parse(ParseContext& ctx) -> decltype(ctx.begin()) {
    return ctx.begin();
  }

  template <typename FormatContext>
  auto format(const print_test::loud& l, FormatContext& ctx) const -> decltype(ctx.out()) {
    return fmt::format_to(ctx.out(), "{}!!!!!!!!!!!!!!!!!!!!", l.text);
  }
};

template <>
struct formatter<print_test::logged> {
  template <typename ParseContext>
  constexpr auto parse(ParseContext& ctx) -> decltype(ctx.begin()) {
    return ctx.begin();
  }

  template <typename FormatContext>
  auto format(const print_test::logged& l, FormatContext& ctx) const -> decltype(ctx.out()) {
    l.log->print("log {} {:>5}\n", l.value, l.value);
    return fmt::format_to(ctx.out(), "L{}", l.value);
  }
};

}  // namespace fmt

namespace print_test {

using fastout::buffering;
using fastout::file;
using fastout::file_options;
using fastout_test::read_file;
using fastout_test::temp_dir;
using fastout_test::with_buffer;
using fastout_test::size_list;

// ------------------------------------------------------------ the harness

struct writer_config {
  std::size_t buffer;
  buffering mode;
};

inline std::string describe(const writer_config& config) {
  return "buffer " + std::to_string(config.buffer) +
         (config.mode == buffering::line ? " (line-buffered)" : "");
}

// Unbuffered, every size from 1 to 64, a few large ones, and line-buffered
// writers: every split of a piece across a flush, and every path out of line.
inline std::vector<writer_config> every_config() {
  std::vector<writer_config> configs;
  configs.push_back({0, buffering::full});
  for (std::size_t size = 1; size <= 64; ++size) configs.push_back({size, buffering::full});
  for (std::size_t size : size_list{100, 1000, 4096, 65536})
    configs.push_back({size, buffering::full});
  for (std::size_t size : size_list{0, 1, 2, 7, 16, 64, 1000})
    configs.push_back({size, buffering::line});
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
inline outcome reference_into(FormatInto&& format_into) {
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

inline std::string printable(std::string_view text, std::size_t max_size = 120) {
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
      : path_(std::move(path)),
        config_(config),
        out_(path_, with_buffer(config.buffer, config.mode)) {}

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
                    << (threw ? " threw \"" + message + "\"" : " did not throw") << "; fmt "
                    << (c.want.throws ? "threw \"" : "wrote \"") << printable(c.want.text) << "\"";
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
    auto it = std::upper_bound(
        starts_.begin(), starts_.end(), at,
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
                    << ", expected " << total << "; written " << written_before << " -> " << written
                    << "; pending " << out_.bytes_pending() << ")";
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
inline bool run_in_sequence(const std::vector<piece_case>& cases,
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
inline bool run_at_every_offset(const std::vector<piece_case>& cases,
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
inline std::vector<writer_config> offset_configs() {
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
      case 1: return static_cast<T>(between(-1000, 1000));
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
      case 1: return static_cast<float>(between(-100000, 100000)) / 100.0f;
      default: return static_cast<float>(floating());
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
      default: return static_cast<long double>(floating());
    }
  }

  // Text for string arguments: ASCII, multi-byte and wide UTF-8, newlines,
  // braces, and now and then a NUL or a long run.
  std::string text(bool allow_nul) {
    static const char* const pieces[] = {"a",           "b",  "z",  "Q",        " ",
                                         "0",           "7",  ",",  "-",        "{",
                                         "}",           "\n", "\t", "\xc3\xa9", "\xe6\x97\xa5",
                                         "\xe2\x86\x92"};
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
    static const char* const pieces[] = {"a", "x", "Y", " ",  ", ", ": ", "=",        "|", "0",
                                         "9", ".", "-", "{{", "}}", "\n", "\xc3\xa9", "#", "%"};
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

// Prints a literal format four ways -- checked at compile time, compiled,
// and both with println -- and checks each against fmt.
#define ADD_LITERAL_CASES(cases, S, ...)                                                           \
  do {                                                                                             \
    (cases).push_back({"print(" #S ")", reference_into([&](fmt::memory_buffer& out) {              \
                         fmt::format_to(fmt::appender(out), S, __VA_ARGS__);                       \
                       }),                                                                         \
                       [&](file& f) { f.print(S, __VA_ARGS__); }});                                \
    (cases).push_back({"print(FMT_COMPILE(" #S "))", reference_into([&](fmt::memory_buffer& out) { \
                         fmt::format_to(fmt::appender(out), FMT_COMPILE(S), __VA_ARGS__);          \
                       }),                                                                         \
                       [&](file& f) { f.print(FMT_COMPILE(S), __VA_ARGS__); }});                   \
    (cases).push_back({"println(" #S ")", reference_into([&](fmt::memory_buffer& out) {            \
                         fmt::format_to(fmt::appender(out), S, __VA_ARGS__);                       \
                         out.push_back('\n');                                                      \
                       }),                                                                         \
                       [&](file& f) { f.println(S, __VA_ARGS__); }});                              \
    (cases).push_back({"println(FMT_COMPILE(" #S "))",                                             \
                       reference_into([&](fmt::memory_buffer& out) {                               \
                         fmt::format_to(fmt::appender(out), FMT_COMPILE(S), __VA_ARGS__);          \
                         out.push_back('\n');                                                      \
                       }),                                                                         \
                       [&](file& f) { f.println(FMT_COMPILE(S), __VA_ARGS__); }});                 \
  } while (false)

}  // namespace print_test

#endif  // FASTOUT_TEST_PRINT_TEST_UTIL_H_
