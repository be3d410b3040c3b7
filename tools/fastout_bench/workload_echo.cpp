// SPDX-License-Identifier: MIT
// W4 `echo`: 1 MiB written one char at a time, which is small enough for
// W2's slow contenders too, including one write() per char; and as an echo
// writes it, to standard output redirected to the file: GNU echo's
// putchar() (coreutils makes it putchar_unlocked()) into stdio's stdout,
// and examples/echo.cpp's put() into fastout::standard_output().
#include <cstdio>
#include <memory>

#include "contenders.h"
#include "inputs.h"
#include "sinks.h"

namespace fastout_bench {

workload make_echo(const workload_options&) {
  auto input = make_bytes_input(std::size_t{1} << 20);
  const char* const pattern = input->pattern;
  contender_list c(input, input->count, without(bytes_contenders(input), {"limit_256k"}));
  // echo's code paths: each char of an argument put on standard output.
  c.add<stdout_stdio_sink>("stdout_putchar_unlocked", [pattern](std::FILE*, std::size_t i) {
    putchar_unlocked(pattern[i & 63]);
  });
  c.add<fastout_stdout_sink>(
      "fastout_stdout", [pattern](fastout::file& out, std::size_t i) { out.put(pattern[i & 63]); });
  workload w;
  w.bytes = input->count;
  w.contenders = c.take();
  return w;
}

}  // namespace fastout_bench
