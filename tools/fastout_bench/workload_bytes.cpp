// SPDX-License-Identifier: MIT
// W2 `bytes`: 256 MiB (32 MiB with --quick) written one byte at a time.
// W4 `echo`: 1 MiB written one char at a time, which is small enough for the
// slow contenders too, including one write() per char; and as an echo
// writes it, to standard output redirected to the file: GNU echo's
// putchar() (coreutils makes it putchar_unlocked()) into stdio's stdout,
// and examples/echo.cpp's put() into fastout::standard_output().
// Both have fastout_c, the C API's fastout_putc(), and fastout_c_cursor,
// its cursor.
//
// Byte i of the output is pattern[i & 63]: cheap to produce, the same for
// every contender, and not something a compiler can turn into a memset.
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "bench.h"
#include "contenders.h"
#include "sinks.h"

namespace fastout_bench {
namespace {

struct bytes_input {
  char pattern[64];
  std::size_t count;
};

std::shared_ptr<const bytes_input> make_input(std::size_t count) {
  static const char pattern[] =
      "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_\n";
  static_assert(sizeof pattern == 64 + 1, "64 bytes and a NUL");
  auto input = std::make_shared<bytes_input>();
  std::memcpy(input->pattern, pattern, 64);
  input->count = count;
  return input;
}

// Every contender W2 and W4 have, in the order they run; W2 leaves out
// fprintf, {fmt} and one write() per byte, which would take minutes on
// 256 MiB, and W4 the second limit.
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
  c.add<stdio_sink>("putc_unlocked", [pattern](std::FILE* f, std::size_t i) {
    putc_unlocked(pattern[i & 63], f);
  });
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
  c.add<fastout_c_sink>("fastout_c", [pattern](fastout_file* f, std::size_t i) {
    fastout_putc(pattern[i & 63], f);
  });
  c.add<fastout_c_cursor_sink>("fastout_c_cursor",
                               [pattern](fastout_c_cursor_sink::cursor& out, std::size_t i) {
                                 fastout_cursor_putc(pattern[i & 63], &out.state);
                               });
  return c.take();
}

}  // namespace

workload make_bytes(const workload_options& options) {
  std::size_t mib = options.quick ? 32 : 256;
  auto input = make_input(mib << 20);
  workload w;
  w.id = "W2";
  w.name = "bytes";
  w.summary = fmt::format("{} MiB, one byte at a time", mib);
  w.bytes = input->count;
  w.contenders = without(bytes_contenders(input), {"fprintf", "fmt_output_file", "write_per_call"});
  return w;
}

workload make_echo(const workload_options&) {
  auto input = make_input(std::size_t{1} << 20);
  workload w;
  w.id = "W4";
  w.name = "echo";
  w.summary = "1 MiB, one char at a time; to stdout as GNU echo and examples/echo.cpp write";
  w.bytes = input->count;
  w.contenders = without(bytes_contenders(input), {"limit_256k"});
  // echo's code paths: each char of an argument put on standard output.
  const char* const pattern = input->pattern;
  contender_list c(input, input->count);
  c.add<stdout_stdio_sink>("stdout_putchar_unlocked", [pattern](std::FILE*, std::size_t i) {
    putchar_unlocked(pattern[i & 63]);
  });
  c.add<fastout_stdout_sink>("fastout_stdout", [pattern](fastout::file& out, std::size_t i) {
    out.put(pattern[i & 63]);
  });
  for (auto& echo : c.take()) w.contenders.push_back(std::move(echo));
  return w;
}

}  // namespace fastout_bench
