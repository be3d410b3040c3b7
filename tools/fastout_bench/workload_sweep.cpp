// SPDX-License-Identifier: MIT
// W5 `sweep`: W1's output from fastout with every buffer size from 1 KiB to
// 8 MiB, beside W1's buffered contenders; plot.cpp draws it.
#include <memory>
#include <string>

#include "contenders.h"
#include "inputs.h"
#include "sinks.h"

namespace fastout_bench {
namespace {

// "1k", "256k", "8m".
std::string size_name(std::size_t bytes) {
  if (bytes >= (std::size_t{1} << 20) && bytes % (std::size_t{1} << 20) == 0)
    return std::to_string(bytes >> 20) + "m";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + "k";
  return std::to_string(bytes);
}

}  // namespace

workload make_sweep(const workload_options&) {
  auto input = make_lines_input();
  // W1's buffered contenders run in the same rounds as the sweep, so that the
  // plot's reference lines were measured side by side with it. The two that
  // make a system call per line take 150 times as long: they are in W1.
  std::vector<contender> buffered =
      without(lines_contenders(input), {"ofstream_endl", "write_per_call", "fastout"});
  contender_list c(input, input->count, without(std::move(buffered), standard_output_contenders));
  for (std::size_t size = 1024; size <= (std::size_t{8} << 20); size *= 2)
    c.add<fastout_sink>("fastout_" + size_name(size), fastout_line(input->text), sink_options{size})
        .buffer_size = size;
  workload w;
  w.bytes = input->bytes();
  w.contenders = c.take();
  return w;
}

}  // namespace fastout_bench
