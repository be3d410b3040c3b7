// SPDX-License-Identifier: MIT
// W7 `doubles`: one per line as the shortest text that reads back to the same
// value, fmt's "{}", by the contenders of W1f, and the printf engines with
// "%.17g\n" (add_printf_engines(); printf_limit's is "{:.17g}\n"). C and
// iostreams have no such format: fprintf writes "%.17g" and ofstream
// setprecision(17), which read back to the same value in more digits, so
// their outputs are checked by parsing them back.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

// fastout before {fmt}: see sinks.h.
#include <fastout/c_api.h>
#include <fastout/file.h>

#include <fmt/compile.h>
#include <fmt/format.h>
#include <fmt/os.h>

#include "contenders.h"
#include "inputs.h"
#include "sinks.h"

namespace fastout_bench {
namespace {

struct doubles_input {
  std::vector<double> values;
};

// The longest "{}" of a double, "-2.2250738585072014e-308", is 24 bytes; a
// fixed-notation one ("-1234567890123456.8") is shorter.
constexpr std::size_t double_row_bound = 32;

std::vector<contender> doubles_contenders(const std::shared_ptr<const doubles_input>& input,
                                          std::vector<absent_contender>& absent) {
  const double* const values = input->values.data();

  contender_list c(input, input->values.size());
  c.add<stdio_sink>(
      "fprintf", [values](std::FILE* f, std::size_t i) { std::fprintf(f, "%.17g\n", values[i]); });
  c.add_with_setup<ofstream_sink>(
      "ofstream", [](std::ofstream& out) { out << std::setprecision(17); },
      [values](std::ofstream& out, std::size_t i) { out << values[i] << '\n'; });
  add_formatting_per_line<double_row_bound>(c, values);
  add_printf_engines<double_row_bound>(
      c, [values](auto print, std::size_t i) { print("%.17g\n", values[i]); },
      [values](limit_sink::cursor& out, std::size_t i) {
        out.format_to(double_row_bound, FMT_COMPILE("{:.17g}\n"), values[i]);
      });
  absent = c.take_absent();
  return c.take();
}

// Reads all of `path`; returns false (with errno set) if it cannot.
bool read_whole_file(const std::string& path, std::string& text) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  text.clear();
  char chunk[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int error = errno;
      ::close(fd);
      errno = error;
      return false;
    }
    if (n == 0) break;
    text.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return true;
}

// The check for an output that is not byte-identical to the reference: only
// fprintf's, ofstream's and the printf engines' may differ. Each line of
// fprintf's and ofstream's must parse back with strtod to exactly the bits of
// the value it was written from; the printf engines' (fastout_printf,
// printf_limit's "{:.17g}\n", stb_sprintf, fmt_printf) must be exactly
// fprintf's, line by line: glibc's snprintf("%.17g") of the same value.
std::string check_doubles(const doubles_input& in, const std::string& path,
                          const std::string& contender) {
  const bool printf_engine = contender == "fastout_printf" || contender == "printf_limit" ||
                             contender == "stb_sprintf" || contender == "fmt_printf";
  if (contender != "fprintf" && contender != "ofstream" && !printf_engine)
    return "not byte-identical to the reference, and it should be";
  std::string text;
  if (!read_whole_file(path, text))
    return fmt::format("cannot read the output: {}", std::strerror(errno));
  if (printf_engine) {
    std::string expected;
    char line[64];
    for (double value : in.values) {
      int size = std::snprintf(line, sizeof line, "%.17g\n", value);
      expected.append(line, static_cast<std::size_t>(size));
    }
    if (text == expected) return {};
    std::size_t at = 0;
    while (at < text.size() && at < expected.size() && text[at] == expected[at]) ++at;
    std::size_t line_start = expected.rfind('\n', at == 0 ? 0 : at - 1);
    line_start = line_start == std::string::npos || at == 0 ? 0 : line_start + 1;
    std::size_t expected_end = expected.find('\n', at);
    std::size_t text_end = text.find('\n', at);
    return fmt::format(
        "differs from fprintf's \"%.17g\\n\" at byte {}: \"{}\" where glibc "
        "writes \"{}\"",
        at, text.substr(line_start, text_end - line_start),
        expected.substr(line_start, expected_end - line_start));
  }
  const char* p = text.c_str();
  const char* const end = p + text.size();
  const std::size_t count = in.values.size();
  for (std::size_t i = 0; i < count; ++i) {
    const char* line_end =
        static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    if (line_end == nullptr) return fmt::format("{} lines, not {}", i, count);
    char* parsed_end = nullptr;
    double value = std::strtod(p, &parsed_end);
    if (parsed_end != line_end)
      return fmt::format("line {} is not one number: \"{}\"", i + 1,
                         std::string_view(p, static_cast<std::size_t>(line_end - p)));
    if (std::memcmp(&value, &in.values[i], sizeof value) != 0)
      return fmt::format("line {} reads back as {}, not {}", i + 1, value, in.values[i]);
    p = line_end + 1;
  }
  if (p != end) return fmt::format("more than {} lines", count);
  return {};
}

}  // namespace

workload make_doubles(const workload_options& options) {
  auto input = std::make_shared<doubles_input>();
  input->values.resize(options.count(2000000, 500000));
  // A random sign, 52 random mantissa bits and a binary exponent from -100
  // to 100: magnitudes from 1e-30 to 1e30, so that fmt writes both fixed
  // ("0.00123...", "12345.6...") and exponent ("1.23...e+25") forms.
  std::mt19937_64 random(7);
  std::uniform_int_distribution<int> exponent(-100, 100);
  for (auto& value : input->values) {
    std::uint64_t bits = random();
    double mantissa = 1.0 + static_cast<double>(bits >> 12) * 0x1p-52;
    value = std::ldexp(mantissa, exponent(random));
    if ((bits & 1) != 0) value = -value;
  }
  const double* const values = input->values.data();
  workload w;
  w.bytes =
      formatted_size(input->values.size(), double_row_bound, [values](char* pos, std::size_t i) {
        return fmt::format_to(pos, FMT_COMPILE("{}\n"), values[i]);
      });
  w.reference = "fmt_compile_limit";
  std::shared_ptr<const doubles_input> shared(input);
  w.contenders = doubles_contenders(shared, w.absent);
  w.check_output = [shared](const std::string&, const std::string& path,
                            const std::string& contender) {
    return check_doubles(*shared, path, contender);
  };
  return w;
}

}  // namespace fastout_bench
