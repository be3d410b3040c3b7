// SPDX-License-Identifier: MIT
// W1 `lines`: 1,000,000 lines of "test data\n", each contender writing them
// its own idiomatic way, to a file it opens or to standard output
// redirected to the file (add_standard_output()). W5 runs the buffered ones
// beside its sweep.
#include <cstdio>
#include <fstream>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include <fmt/os.h>

#include "contenders.h"
#include "inputs.h"
#include "sinks.h"

namespace fastout_bench {

#if defined(_WIN32)
namespace {
// W1 on Windows: the C runtime's stdio as a Windows program has it (every
// call takes the stream's lock; _putc_nolock and _fwrite_nolock do not), the
// ofstream, {fmt}, WriteFile per line, the limit and fastout.
std::vector<contender> windows_lines_contenders(const std::shared_ptr<const lines_input>& input,
                                                std::vector<absent_contender>& absent) {
  const std::string& text_string = input->text;
  const std::string_view text = input->text;
  const char* const text_c = input->text.c_str();
  const char* const line = input->line.c_str();
  const std::size_t size = input->line.size();

  auto shift_line = [&text_string](std::ofstream& out, std::size_t) { out << text_string << '\n'; };
  auto whole_line = [line, size](auto& out, std::size_t) { out.write(line, size); };

  contender_list c(input, input->count);
  // MinGW-w64's g++ compiles C++ with its own printf (__USE_MINGW_ANSI_STDIO),
  // which writes through the runtime's stdio; __ms_fprintf is msvcrt's own.
  c.add<stdio_sink>("fprintf",
                    [text_c](std::FILE* f, std::size_t) { std::fprintf(f, "%s\n", text_c); });
#  if defined(__MINGW32__)
  c.add<stdio_sink>("fprintf_msvcrt",
                    [text_c](std::FILE* f, std::size_t) { __ms_fprintf(f, "%s\n", text_c); });
#  endif
  c.add<stdio_sink>("fputs", [line](std::FILE* f, std::size_t) { std::fputs(line, f); });
  add_windows_fwrite(
      c, [line, size](auto write, std::FILE* f, std::size_t) { write(line, 1, size, f); });
  c.add<stdio_sink>("putc", [line, size](std::FILE* f, std::size_t) {
    for (std::size_t j = 0; j < size; ++j) putc(line[j], f);
  });
  c.add<stdio_sink>("_putc_nolock", [line, size](std::FILE* f, std::size_t) {
    for (std::size_t j = 0; j < size; ++j) _putc_nolock(line[j], f);
  });
  c.add<ofstream_sink>("ofstream", shift_line);
  c.add<ofstream_sink>("ofstream_1m", shift_line, buffer_1m);
  c.add<fmt_file_sink>("fmt_output_file",
                       [text](fmt::ostream& out, std::size_t) { out.print("{}\n", text); });
  c.add<unbuffered_sink>("write_per_call", whole_line);
  c.add<limit_sink>("limit", whole_line);
  c.add<limit_sink>("limit_256k", whole_line, buffer_256k);
  c.add<fastout_sink>("fastout", fastout_line(text));
  add_standard_output(c, 0, 0, 0);
  absent = c.take_absent();
  return c.take();
}
}  // namespace
#else
std::vector<contender> lines_contenders(const std::shared_ptr<const lines_input>& input) {
  const std::string& text_string = input->text;
  const std::string_view text = input->text;
  const char* const text_c = input->text.c_str();
  const char* const line = input->line.c_str();
  const std::size_t size = input->line.size();

  // Rows more than one contender writes.
  auto fwrite_line = [line, size](std::FILE* f, std::size_t) { fwrite_unlocked(line, 1, size, f); };
  auto shift_line = [&text_string](std::ofstream& out, std::size_t) { out << text_string << '\n'; };
  // The whole line in one call: one write() per line, or the limit's
  // memcpy of the whole line into its buffer.
  auto whole_line = [line, size](auto& out, std::size_t) { out.write(line, size); };

  contender_list c(input, input->count);
  c.add<stdio_sink>("fprintf",
                    [text_c](std::FILE* f, std::size_t) { std::fprintf(f, "%s\n", text_c); });
  c.add<stdio_sink>("fputs", [line](std::FILE* f, std::size_t) { std::fputs(line, f); });
  c.add<stdio_sink>("fwrite_unlocked", fwrite_line);
  c.add<stdio_sink>("fwrite_unlocked_256k", fwrite_line, buffer_256k);
  c.add<stdio_sink>("putc", [line, size](std::FILE* f, std::size_t) {
    for (std::size_t j = 0; j < size; ++j) putc(line[j], f);
  });
  c.add<stdio_sink>("putc_unlocked", [line, size](std::FILE* f, std::size_t) {
    for (std::size_t j = 0; j < size; ++j) putc_unlocked(line[j], f);
  });
  c.add<ofstream_sink>("ofstream", shift_line);
  c.add<ofstream_sink>("ofstream_endl", [&text_string](std::ofstream& out, std::size_t) {
    out << text_string << std::endl;
  });
  c.add<ofstream_sink>("ofstream_1m", shift_line, buffer_1m);
  c.add<fmt_file_sink>("fmt_output_file",
                       [text](fmt::ostream& out, std::size_t) { out.print("{}\n", text); });
  c.add<unbuffered_sink>("write_per_call", whole_line);
  c.add<limit_sink>("limit", whole_line);
  c.add<limit_sink>("limit_256k", whole_line, buffer_256k);
  c.add<fastout_sink>("fastout", fastout_line(text));
  add_standard_output(
      c, [text_c](auto&, std::size_t) { std::printf("%s\n", text_c); },
      [&text_string](std::ostream& out, std::size_t) { out << text_string << '\n'; },
      fastout_line(text));
  return c.take();
}
#endif

workload make_lines(const workload_options&) {
  auto input = make_lines_input();
  workload w;
  w.bytes = input->bytes();
#if defined(_WIN32)
  w.contenders = windows_lines_contenders(input, w.absent);
#else
  w.contenders = lines_contenders(input);
#endif
  return w;
}

}  // namespace fastout_bench
