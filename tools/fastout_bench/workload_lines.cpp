// SPDX-License-Identifier: MIT
// W1 `lines`: 1,000,000 lines of "test data\n", each contender writing them
// its own idiomatic way, to a file it opens or to standard output
// redirected to the file (stdout_printf, cout, cout_unsynced, cout_fastout,
// stdout_printf_fastout, fastout_stdout). W5 `sweep`: the same output from fastout with every
// buffer size from 1 KiB to 8 MiB, beside W1's buffered contenders.
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "bench.h"
#include "contenders.h"
#include "sinks.h"

namespace fastout_bench {
namespace {

struct lines_input {
  std::string text;  // a line without its '\n'
  std::string line;  // text + '\n'
  std::size_t count;
};

std::shared_ptr<const lines_input> make_input() {
  auto input = std::make_shared<lines_input>();
  input->text = "test data";
  input->line = input->text + '\n';
  input->count = 1000000;
  return input;
}

// fastout's idiom: the text, then the newline.
auto fastout_line(std::string_view text) {
  return [text](auto& out, std::size_t) {
    out.write(text);
    out.put('\n');
  };
}

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

  // Standard output, redirected to the file as by `> file`.
  auto cout_line = [&text_string](std::ostream& out, std::size_t) { out << text_string << '\n'; };
  auto printf_line = [text_c](auto&, std::size_t) { std::printf("%s\n", text_c); };
  c.add<stdout_stdio_sink>("stdout_printf", printf_line);
  c.add<cout_sink>("cout", cout_line);
#if defined(__GLIBCXX__)
  c.add<cout_unsynced_sink>("cout_unsynced", cout_line);
#endif
  c.add<fastout_synced_sink>("cout_fastout", cout_line);
  c.add<fastout_synced_sink>("stdout_printf_fastout", printf_line);
  c.add<fastout_stdout_sink>("fastout_stdout", fastout_line(text));
  return c.take();
}

// W1's contenders that write to standard output.
const std::initializer_list<const char*> stdout_contenders = {
    "stdout_printf", "cout", "cout_unsynced", "cout_fastout", "stdout_printf_fastout",
    "fastout_stdout"};

// "1k", "256k", "8m".
std::string size_name(std::size_t bytes) {
  if (bytes >= (std::size_t{1} << 20) && bytes % (std::size_t{1} << 20) == 0)
    return std::to_string(bytes >> 20) + "m";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + "k";
  return std::to_string(bytes);
}

std::string describe(const lines_input& in) {
  return fmt::format("{} lines of \"{}\\n\"", with_commas(in.count), in.text);
}

}  // namespace

workload make_lines(const workload_options&) {
  auto input = make_input();
  workload w;
  w.id = "W1";
  w.name = "lines";
  w.summary = describe(*input);
  w.bytes = std::uint64_t{input->count} * input->line.size();
  w.contenders = lines_contenders(input);
  return w;
}

workload make_sweep(const workload_options&) {
  auto input = make_input();
  workload w;
  w.id = "W5";
  w.name = "sweep";
  w.summary = describe(*input) + ", fastout with buffers of 1 KiB to 8 MiB";
  w.bytes = std::uint64_t{input->count} * input->line.size();
  // W1's buffered contenders run in the same rounds as the sweep, so that the
  // plot's reference lines were measured side by side with it. The two that
  // make a system call per line take 150 times as long: they are in W1.
  w.contenders = without(lines_contenders(input), {"ofstream_endl", "write_per_call", "fastout"});
  w.contenders = without(std::move(w.contenders), stdout_contenders);
  contender_list c(input, input->count);
  for (std::size_t size = 1024; size <= (std::size_t{8} << 20); size *= 2)
    c.add<fastout_sink>("fastout_" + size_name(size), fastout_line(input->text),
                        sink_options{size})
        .buffer_size = size;
  for (auto& sized : c.take()) w.contenders.push_back(std::move(sized));
  return w;
}

}  // namespace fastout_bench
