// SPDX-License-Identifier: MIT
// W2 `bytes`: 256 MiB (32 MiB with --quick) written one byte at a time.
// W4 runs most of these contenders too, on 1 MiB.
#include <cstdio>
#include <memory>

#include <fmt/os.h>

#include "contenders.h"
#include "inputs.h"
#include "sinks.h"

namespace fastout_bench {

#if defined(_WIN32)
namespace {
// W2 on Windows: the C runtime's putc (locked) and _putc_nolock (a macro on
// the FILE's own buffer), its fwrite (add_windows_fwrite()), the ofstream,
// the limit and fastout, its cursor and its C door.
std::vector<contender> windows_bytes_contenders(const std::shared_ptr<const bytes_input>& input,
                                                std::vector<absent_contender>& absent) {
  const char* const pattern = input->pattern;
  auto put = [pattern](auto& out, std::size_t i) { out.put(pattern[i & 63]); };

  contender_list c(input, input->count);
  c.add<stdio_sink>("putc", [pattern](std::FILE* f, std::size_t i) { putc(pattern[i & 63], f); });
  c.add<stdio_sink>("_putc_nolock",
                    [pattern](std::FILE* f, std::size_t i) { _putc_nolock(pattern[i & 63], f); });
  add_windows_fwrite(
      c, [pattern](auto write, std::FILE* f, std::size_t i) { write(&pattern[i & 63], 1, 1, f); });
  c.add<ofstream_sink>("ofstream", put);
  c.add<ofstream_sink>("ofstream_1m", put, buffer_1m);
  c.add<limit_sink>("limit", put);
  c.add<limit_sink>("limit_256k", put, buffer_256k);
  c.add<fastout_sink>("fastout", put);
  c.add<fastout_cursor_sink>("fastout_cursor", put);
  c.add<fastout_c_sink>(
      "fastout_c", [pattern](fastout_file* f, std::size_t i) { fastout_putc(pattern[i & 63], f); });
  c.add<fastout_c_cursor_sink>("fastout_c_cursor",
                               [pattern](fastout_c_cursor_sink::cursor& out, std::size_t i) {
                                 fastout_cursor_putc(pattern[i & 63], &out.state);
                               });
  absent = c.take_absent();
  return c.take();
}
}  // namespace
#else
std::vector<contender> bytes_contenders(const std::shared_ptr<const bytes_input>& input) {
  const char* const pattern = input->pattern;

  // One put() per byte: the limit's store, fastout's put() and its cursor's,
  // ofstream::put(), and one write() per byte.
  auto put = [pattern](auto& out, std::size_t i) { out.put(pattern[i & 63]); };
  auto fwrite_byte = [pattern](std::FILE* f, std::size_t i) {
    fwrite_unlocked(&pattern[i & 63], 1, 1, f);
  };

  contender_list c(input, input->count);
  c.add<stdio_sink>("fprintf", [pattern](std::FILE* f, std::size_t i) {
    std::fprintf(f, "%c", pattern[i & 63]);
  });
  c.add<stdio_sink>("putc", [pattern](std::FILE* f, std::size_t i) { putc(pattern[i & 63], f); });
  c.add<stdio_sink>("putc_unlocked",
                    [pattern](std::FILE* f, std::size_t i) { putc_unlocked(pattern[i & 63], f); });
  c.add<stdio_sink>("fwrite_unlocked", fwrite_byte);
  c.add<stdio_sink>("fwrite_unlocked_256k", fwrite_byte, buffer_256k);
  c.add<ofstream_sink>("ofstream", put);
  c.add<ofstream_sink>("ofstream_1m", put, buffer_1m);
  c.add<fmt_file_sink>("fmt_output_file", [pattern](fmt::ostream& out, std::size_t i) {
    out.print("{}", pattern[i & 63]);
  });
  c.add<unbuffered_sink>("write_per_call", put);
  c.add<limit_sink>("limit", put);
  c.add<limit_sink>("limit_256k", put, buffer_256k);
  c.add<fastout_sink>("fastout", put);
  c.add<fastout_cursor_sink>("fastout_cursor", put);
  // The C API's inline fastout_putc(), as a C program's putc loop becomes.
  c.add<fastout_c_sink>(
      "fastout_c", [pattern](fastout_file* f, std::size_t i) { fastout_putc(pattern[i & 63], f); });
  c.add<fastout_c_cursor_sink>("fastout_c_cursor",
                               [pattern](fastout_c_cursor_sink::cursor& out, std::size_t i) {
                                 fastout_cursor_putc(pattern[i & 63], &out.state);
                               });
  return c.take();
}
#endif

workload make_bytes(const workload_options& options) {
  auto input = make_bytes_input((options.quick ? std::size_t{32} : std::size_t{256}) << 20);
  workload w;
  w.bytes = input->count;
#if defined(_WIN32)
  w.contenders = windows_bytes_contenders(input, w.absent);
  return w;
#endif
  // fprintf, {fmt} and one write() per byte would take minutes on 256 MiB.
  w.contenders = without(bytes_contenders(input), {"fprintf", "fmt_output_file", "write_per_call"});
  return w;
}

}  // namespace fastout_bench
