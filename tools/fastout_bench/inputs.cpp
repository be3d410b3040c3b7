// SPDX-License-Identifier: MIT
#include "inputs.h"

#include <cstring>
#include <random>

namespace fastout_bench {

std::shared_ptr<const lines_input> make_lines_input() {
  auto input = std::make_shared<lines_input>();
  input->text = "test data";
  input->line = input->text + '\n';
  input->count = 1000000;
  return input;
}

std::shared_ptr<const bytes_input> make_bytes_input(std::size_t count) {
  static const char pattern[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_\n";
  static_assert(sizeof pattern == 64 + 1, "64 bytes and a NUL");
  auto input = std::make_shared<bytes_input>();
  std::memcpy(input->pattern, pattern, 64);
  input->count = count;
  return input;
}

std::shared_ptr<const ints_input> make_ints_input(std::size_t count) {
  auto input = std::make_shared<ints_input>();
  input->values.resize(count);
  std::mt19937_64 random(6);  // fixed: the same values in every run
  for (auto& value : input->values) value = static_cast<std::int64_t>(random());
  return input;
}

std::shared_ptr<const pieces_input> make_pieces_input(std::size_t count) {
  auto input = std::make_shared<pieces_input>();
  input->count = count;
  if (count > 0) {
    input->piece.resize(pieces_input::piece_size);
    for (std::size_t i = 0; i < pieces_input::piece_size; ++i)
      input->piece[i] = (i & 63) == 63 ? '\n' : static_cast<char>('a' + (i * 7 + i / 64) % 26);
  }
  return input;
}

}  // namespace fastout_bench
