// SPDX-License-Identifier: MIT
// W10 `big`: 1 GiB (256 MiB with --quick) written in 1 MiB pieces. Here the
// cost is the copy and the system calls, not the per-call overhead, so the
// question is whether a writer gets out of the way of large writes.
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench.h"
#include "contenders.h"
#include "sinks.h"

namespace fastout_bench {
namespace {

struct big_input {
  std::vector<char> piece;
  std::size_t count;
};

std::vector<contender> big_contenders(const std::shared_ptr<const big_input>& input) {
  const char* const piece = input->piece.data();
  const std::size_t size = input->piece.size();

  auto fwrite_piece = [piece, size](std::FILE* f, std::size_t) {
    fwrite_unlocked(piece, 1, size, f);
  };
  const auto stream_size = static_cast<std::streamsize>(size);
  auto ofstream_piece = [piece, stream_size](std::ofstream& out, std::size_t) {
    out.write(piece, stream_size);
  };
  // One write() per piece; fastout's write(); and the limit's write(), which
  // copies into its buffer what fits and sends a piece at least as large as
  // the buffer straight to the file after what is buffered, since copying it
  // would only cost time.
  auto write_piece = [piece, size](auto& out, std::size_t) { out.write(piece, size); };

  contender_list c(input, input->count);
  c.add<stdio_sink>("fwrite_unlocked", fwrite_piece);
  c.add<stdio_sink>("fwrite_unlocked_256k", fwrite_piece, buffer_256k);
  c.add<ofstream_sink>("ofstream", ofstream_piece);
  c.add<ofstream_sink>("ofstream_1m", ofstream_piece, buffer_1m);
  c.add<fmt_file_sink>("fmt_output_file", [text = fmt::string_view(piece, size)](
                                              fmt::ostream& out, std::size_t) {
    out.print("{}", text);
  });
  c.add<unbuffered_sink>("write_per_call", write_piece);
  c.add<limit_sink>("limit", write_piece);
  c.add<fastout_sink>("fastout", write_piece);
  return c.take();
}

}  // namespace

workload make_big(const workload_options& options) {
  const std::size_t piece_size = std::size_t{1} << 20;
  const std::size_t mib = options.quick ? 256 : 1024;
  auto input = std::make_shared<big_input>();
  // Text with a line structure, so that the file is easy to inspect; the
  // contents do not matter to any contender.
  input->piece.resize(piece_size);
  for (std::size_t i = 0; i < piece_size; ++i)
    input->piece[i] = (i & 63) == 63 ? '\n' : static_cast<char>('a' + (i * 7 + i / 64) % 26);
  input->count = mib;
  workload w;
  w.id = "W10";
  w.name = "big";
  w.summary = fmt::format("{} MiB in 1 MiB pieces", mib);
  w.bytes = std::uint64_t{piece_size} * input->count;
  w.baseline.clear();
  w.contenders = big_contenders(input);
  return w;
}

}  // namespace fastout_bench
