// SPDX-License-Identifier: MIT
// W1f `lines_print`: W1's lines, each written as a formatted string
// argument, "{}\n". The first of the formatting workloads (W1f, W6, W7, W8):
// every contender formats the same values its own way: fprintf, ofstream,
// fmt::output_file with a runtime format, fastout with a runtime format
// (`fastout`) and with FMT_COMPILE (`fastout_compile`), and
// `fmt_compile_limit`, the reference: fmt::format_to with FMT_COMPILE into a
// raw 1 MiB buffer and write(), the fastest {fmt}'s formatting can go with
// no I/O layer on top; add_formatting() in contenders.h adds the ones they
// all have.
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>

// fastout before {fmt}: see sinks.h.
#include <fastout/file.h>

#include <fmt/compile.h>
#include <fmt/os.h>

#include "contenders.h"
#include "inputs.h"
#include "sinks.h"

namespace fastout_bench {
namespace {

std::vector<contender> lines_print_contenders(const std::shared_ptr<const lines_input>& input) {
  const std::string& text_string = input->text;
  const std::string_view text = input->text;
  const char* const text_c = input->text.c_str();
  const std::size_t bound = input->line.size();

  auto print = [text](auto& out, std::size_t) { out.print("{}\n", text); };
  auto compile_limit = [text, bound](limit_sink::cursor& out, std::size_t) {
    out.format_to(bound, FMT_COMPILE("{}\n"), text);
  };
  auto compile = [text](fastout::file& out, std::size_t) { out.print(FMT_COMPILE("{}\n"), text); };

  contender_list c(input, input->count);
  c.add<stdio_sink>("fprintf",
                    [text_c](std::FILE* f, std::size_t) { std::fprintf(f, "%s\n", text_c); });
  c.add<ofstream_sink>(
      "ofstream", [&text_string](std::ofstream& out, std::size_t) { out << text_string << '\n'; });
  add_formatting(c, print, compile_limit, compile);
  return c.take();
}

}  // namespace

workload make_lines_print(const workload_options&) {
  auto input = make_lines_input();
  workload w;
  w.bytes = input->bytes();
  w.reference = "fmt_compile_limit";
  w.contenders = lines_print_contenders(input);
  return w;
}

}  // namespace fastout_bench
