// SPDX-License-Identifier: MIT
// W10 `big`: 1 GiB (256 MiB with --quick) written in 1 MiB pieces. Here the
// cost is the copy and the system calls, not the per-call overhead, so the
// question is whether a writer gets out of the way of large writes.
#include <cstdio>
#include <fstream>
#include <memory>

#include <fmt/os.h>

#include "contenders.h"
#include "inputs.h"
#include "sinks.h"

namespace fastout_bench {
namespace {

std::vector<contender> big_contenders(const std::shared_ptr<const pieces_input>& input) {
  const char* const piece = input->piece.data();
  const std::size_t size = input->piece.size();

  auto fwrite_piece = fwrite_piece_row(*input);
  const auto stream_size = static_cast<std::streamsize>(size);
  auto ofstream_piece = [piece, stream_size](std::ofstream& out, std::size_t) {
    out.write(piece, stream_size);
  };
  // One write() per piece; fastout's write(); and the limit's write(), which
  // copies into its buffer what fits and sends a piece at least as large as
  // the buffer straight to the file after what is buffered, since copying it
  // would only cost time.
  auto write_piece = write_piece_row(*input);

  contender_list c(input, input->count);
  c.add<stdio_sink>("fwrite_unlocked", fwrite_piece);
  c.add<stdio_sink>("fwrite_unlocked_256k", fwrite_piece, buffer_256k);
  c.add<ofstream_sink>("ofstream", ofstream_piece);
  c.add<ofstream_sink>("ofstream_1m", ofstream_piece, buffer_1m);
  c.add<fmt_file_sink>("fmt_output_file",
                       [text = fmt::string_view(piece, size)](fmt::ostream& out, std::size_t) {
                         out.print("{}", text);
                       });
  c.add<unbuffered_sink>("write_per_call", write_piece);
  c.add<limit_sink>("limit", write_piece);
  c.add<fastout_sink>("fastout", write_piece);
  return c.take();
}

}  // namespace

workload make_big(const workload_options& options) {
  auto input = make_pieces_input(options.count(1024, 256));
  workload w;
  w.bytes = input->bytes();
  w.baseline.clear();
  w.contenders = big_contenders(input);
  return w;
}

}  // namespace fastout_bench
