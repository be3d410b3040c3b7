// SPDX-License-Identifier: MIT
// fastout-bench: what more than one workload writes, made in one place: W1's
// lines (W1, W5, W1f), W2's bytes (W2, W4), W6's integers (W6, W12f, W15)
// and the 1 MiB pieces (W10, W11, W12); the contender lists W5 and W4
// borrow from W1 and W2; and the size of a formatted output (W6, W7, W8,
// W12f, W14, W15).
#ifndef FASTOUT_BENCH_INPUTS_H_
#define FASTOUT_BENCH_INPUTS_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bench.h"

namespace fastout_bench {

/// W1's 1,000,000 lines of "test data\n".
struct lines_input {
  std::string text;  ///< a line without its '\n'
  std::string line;  ///< text + '\n'
  std::size_t count;

  std::uint64_t bytes() const { return std::uint64_t{count} * line.size(); }
};
std::shared_ptr<const lines_input> make_lines_input();

/// W1's contenders, in the order they run (workload_lines.cpp); W5 runs the
/// buffered ones beside its sweep.
std::vector<contender> lines_contenders(const std::shared_ptr<const lines_input>& input);

/// fastout's idiom for one of W1's lines: the text, then the newline.
inline auto fastout_line(std::string_view text) {
  return [text](auto& out, std::size_t) {
    out.write(text);
    out.put('\n');
  };
}

/// `count` bytes, byte i being pattern[i & 63]: cheap to produce, the same
/// for every contender, and not something a compiler can turn into a
/// memset (W2, W4).
struct bytes_input {
  char pattern[64];
  std::size_t count;
};
std::shared_ptr<const bytes_input> make_bytes_input(std::size_t count);

/// Every contender W2 and W4 have, in the order they run
/// (workload_bytes.cpp); each leaves some out.
std::vector<contender> bytes_contenders(const std::shared_ptr<const bytes_input>& input);

/// W6's int64 values, spread over the whole range: the same `count` values
/// (from a std::mt19937_64 with a fixed seed) for every workload that asks
/// for as many (W6, W12f, W15).
struct ints_input {
  std::vector<std::int64_t> values;
};
std::shared_ptr<const ints_input> make_ints_input(std::size_t count);

/// The most one int64 takes as text: "-9223372036854775808" is 20 bytes.
inline constexpr std::size_t int_text_bound = 20;

/// `count` writes of one 1 MiB piece of text with a line structure, so that
/// the file is easy to inspect; the contents matter to no contender (W10,
/// W11, W12).
struct pieces_input {
  static constexpr std::size_t piece_size = std::size_t{1} << 20;
  std::vector<char> piece;  ///< empty if count is 0 (--list)
  std::size_t count;

  std::uint64_t bytes() const { return std::uint64_t{piece_size} * count; }
};
std::shared_ptr<const pieces_input> make_pieces_input(std::size_t count);

/// The piece in one call: `out.write(data, size)` (the limit, fastout, one
/// write() per call), and stdio's fwrite_unlocked().
inline auto write_piece_row(const pieces_input& input) {
  return [piece = input.piece.data(), size = input.piece.size()](auto& out, std::size_t) {
    out.write(piece, size);
  };
}
#if !defined(_WIN32)  // W10, W11 and W12 are not in the Windows build
inline auto fwrite_piece_row(const pieces_input& input) {
  return [piece = input.piece.data(), size = input.piece.size()](std::FILE* f, std::size_t) {
    fwrite_unlocked(piece, 1, size, f);
  };
}
#endif

/// The size of what `format(pos, i)`, which returns the end of what it
/// wrote, writes for every row below `count`, through a scratch buffer of
/// `row_bound` bytes: a formatting workload's size, computed once when it
/// is built.
template <typename Format>
std::uint64_t formatted_size(std::size_t count, std::size_t row_bound, Format format) {
  std::vector<char> scratch(row_bound);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < count; ++i)
    total += static_cast<std::uint64_t>(format(scratch.data(), i) - scratch.data());
  return total;
}

}  // namespace fastout_bench

#endif  // FASTOUT_BENCH_INPUTS_H_
