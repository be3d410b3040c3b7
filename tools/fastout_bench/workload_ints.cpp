// SPDX-License-Identifier: MIT
// W6 `ints`: int64 values spread over the whole range, one per line, "{}\n",
// to a file each contender opens, and to standard output redirected to it.
// The contenders of W1f, plus `out << x` through ofstream and fastout
// (`fastout_shift`, which share the row), and the printf engines with
// fprintf's own format, "%lld\n" (add_printf_engines(); printf_limit's is
// "{}\n").
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <vector>

// fastout before {fmt}: see sinks.h.
#include <fastout/c_api.h>
#include <fastout/file.h>

#include <fmt/compile.h>
#include <fmt/os.h>

#include "contenders.h"
#include "inputs.h"
#include "sinks.h"

namespace fastout_bench {
namespace {

// "-9223372036854775808\n" is 21 bytes.
constexpr std::size_t int_row_bound = 24;
static_assert(int_row_bound >= int_text_bound + 1, "a value and its newline");

std::vector<contender> ints_contenders(const std::shared_ptr<const ints_input>& input,
                                       std::vector<absent_contender>& absent) {
  const std::int64_t* const values = input->values.data();

  auto shift = [values](auto& out, std::size_t i) { out << values[i] << '\n'; };

  contender_list c(input, input->values.size());
  c.add<stdio_sink>("fprintf", [values](std::FILE* f, std::size_t i) {
    std::fprintf(f, "%" PRId64 "\n", values[i]);
  });
#if defined(__MINGW32__)
  // The C runtime's own fprintf; "fprintf" is MinGW-w64's (workload_lines.cpp).
  c.add<stdio_sink>("fprintf_msvcrt", [values](std::FILE* f, std::size_t i) {
    __ms_fprintf(f, "%lld\n", static_cast<long long>(values[i]));
  });
#endif
  c.add<ofstream_sink>("ofstream", shift);
  add_formatting_per_line<int_row_bound>(c, values);
  c.add<fastout_sink>("fastout_shift", shift);
  add_standard_output(
      c, [values](auto&, std::size_t i) { std::printf("%" PRId64 "\n", values[i]); }, shift, shift);
  add_printf_engines<int_row_bound>(
      c,
      [values](auto print, std::size_t i) { print("%lld\n", static_cast<long long>(values[i])); },
      [values](limit_sink::cursor& out, std::size_t i) {
        out.format_to(int_row_bound, FMT_COMPILE("{}\n"), values[i]);
      });
  absent = c.take_absent();
  return c.take();
}

}  // namespace

workload make_ints(const workload_options& options) {
  auto input = make_ints_input(options.count(10000000, 2000000));
  const std::int64_t* const values = input->values.data();
  workload w;
  w.bytes = formatted_size(input->values.size(), int_row_bound, [values](char* pos, std::size_t i) {
    return fmt::format_to(pos, FMT_COMPILE("{}\n"), values[i]);
  });
  w.reference = "fmt_compile_limit";
  w.contenders = ints_contenders(input, w.absent);
  return w;
}

}  // namespace fastout_bench
