// SPDX-License-Identifier: MIT
// W9 `patch`: 20,000,000 binary writes of random sizes from 1 to 16 bytes
// (4,000,000 with --quick), as a binary-patch or serialization tool writes
// its records: each write is a piece of a 64 KiB block of random bytes, at an
// offset and of a size drawn with a fixed seed when the workload is built.
//
// The sizes are as unpredictable as the data, which is the point: per call,
// a writer pays its fixed cost (a lock, a vtable, a check) and the copy of a
// few bytes whose length a branch predictor cannot guess. glibc's fwrite
// copies up to 20 bytes in a byte loop, and a variable-length memcpy (the
// limit's, and fastout's C++ write()) branches on the size class, so the
// hand-written `limit` is no limit here: fastout_write() copies up to 16
// bytes without a branch on the size (fastout_copy_small in c_api.h).
#include <cstdio>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include <fastout/c_api.h>

#include "contenders.h"
#include "sinks.h"

namespace fastout_bench {
namespace {

constexpr std::size_t block_size = std::size_t{64} << 10;
constexpr std::size_t largest_piece = 16;

struct patch_input {
  std::vector<char> block;
  // One per write: the offset in the block times 16, plus the size - 1.
  std::vector<std::uint32_t> pieces;
};

std::vector<contender> patch_contenders(const std::shared_ptr<const patch_input>& input,
                                        std::vector<absent_contender>& absent) {
  const char* const block = input->block.data();
  const std::uint32_t* const pieces = input->pieces.data();

  // The limit's write() (a memcpy into its buffer) and fastout's C++ write().
  auto write_piece = [block, pieces](auto& out, std::size_t i) {
    std::uint32_t piece = pieces[i];
    out.write(block + (piece >> 4), (piece & 15) + 1);
  };

  contender_list c(input, input->pieces.size());
#if defined(_WIN32)
  // The C runtime's fwrite, locked and, where it has it, not
  // (add_windows_fwrite()); the limit and fastout, C++ and C.
  add_windows_fwrite(c, [block, pieces](auto write, std::FILE* f, std::size_t i) {
    std::uint32_t piece = pieces[i];
    write(block + (piece >> 4), (piece & 15) + 1, 1, f);
  });
#else
  auto fwrite_piece = [block, pieces](std::FILE* f, std::size_t i) {
    std::uint32_t piece = pieces[i];
    fwrite_unlocked(block + (piece >> 4), (piece & 15) + 1, 1, f);
  };
  c.add<stdio_sink>("fwrite", [block, pieces](std::FILE* f, std::size_t i) {
    std::uint32_t piece = pieces[i];
    std::fwrite(block + (piece >> 4), (piece & 15) + 1, 1, f);
  });
  c.add<stdio_sink>("fwrite_unlocked", fwrite_piece);
  c.add<stdio_sink>("fwrite_unlocked_256k", fwrite_piece, buffer_256k);
#endif
  c.add<limit_sink>("limit", write_piece);
  c.add<fastout_sink>("fastout", write_piece);
  // The C API, as a C program's fwrite loop becomes.
  c.add<fastout_c_sink>("fastout_c", [block, pieces](fastout_file* f, std::size_t i) {
    std::uint32_t piece = pieces[i];
    fastout_write(block + (piece >> 4), (piece & 15) + 1, 1, f);
  });
  absent = c.take_absent();
  return c.take();
}

}  // namespace

workload make_patch(const workload_options& options) {
  auto input = std::make_shared<patch_input>();
  std::mt19937_64 random(9);  // fixed: the same writes in every run
  input->block.resize(block_size);
  for (char& byte : input->block) byte = static_cast<char>(random());
  input->pieces.resize(options.count(20000000, 4000000));
  std::uniform_int_distribution<std::uint32_t> offset(0, block_size - largest_piece);
  std::uniform_int_distribution<std::uint32_t> size(1, largest_piece);
  std::uint64_t bytes = 0;
  for (std::uint32_t& piece : input->pieces) {
    std::uint32_t n = size(random);
    piece = offset(random) << 4 | (n - 1);
    bytes += n;
  }
  workload w;
  w.bytes = bytes;
  // The bar is against stdio with fastout's buffer size.
#if defined(_WIN32)
  w.baseline = "fwrite_256k";
#else
  w.baseline = "fwrite_unlocked_256k";
#endif
  w.contenders = patch_contenders(input, w.absent);
  return w;
}

}  // namespace fastout_bench
