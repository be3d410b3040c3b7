// SPDX-License-Identifier: MIT
// W11 `replace`: an existing file rewritten several times in a row, 256 MiB
// (64 MiB with --quick) in 1 MiB pieces, three times per run. Before every
// run the driver puts a file of the same size there and syncs it, so the
// first rewrite replaces a file that is on disk and the next two one that
// is still in the page cache, as a program that keeps rewriting its output
// does. The question is what a safe replacement costs against truncating
// the file in place, and what a rename costs against an exchange.
#include <cerrno>
#include <cstdio>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "bench.h"
#include "contenders.h"
#include "sinks.h"

namespace fastout_bench {
namespace {

constexpr int rewrites = 3;

struct replace_input {
  std::vector<char> piece;
  std::size_t count;
};

// The file a run rewrites: as large as the output, other bytes, on disk.
void put_old_file(const std::string& path, std::size_t pieces, std::size_t piece_size) {
  std::vector<char> old(piece_size, 'o');
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw_errno("open", path.c_str());
  try {
    for (std::size_t i = 0; i < pieces; ++i) write_all(fd, old.data(), old.size(), path.c_str());
    if (::fdatasync(fd) != 0) throw_errno("fdatasync", path.c_str());
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) throw_errno("close", path.c_str());
}

std::vector<contender> replace_contenders(const std::shared_ptr<const replace_input>& input) {
  const char* const piece = input->piece.data();
  const std::size_t size = input->piece.size();
  auto fwrite_piece = [piece, size](std::FILE* f, std::size_t) {
    fwrite_unlocked(piece, 1, size, f);
  };
  auto write_piece = [piece, size](auto& out, std::size_t) { out.write(piece, size); };

  sink_options rename_256k = buffer_256k;
  rename_256k.rename_into_place = true;
  sink_options replace;
  replace.fastout_mode = fastout::open_mode::replace;
  sink_options replace_sync = replace;
  replace_sync.sync = true;

  contender_list c(input, input->count);
  c.add<stdio_sink>("fwrite_unlocked_256k", fwrite_piece, buffer_256k);
  c.add<stdio_sink>("fwrite_rename_256k", fwrite_piece, rename_256k);
  c.add<fastout_sink>("fastout", write_piece);
  c.add<fastout_sink>("fastout_replace", write_piece, replace);
  c.add<fastout_sink>("fastout_replace_sync", write_piece, replace_sync);
  std::vector<contender> contenders = c.take();
  // Each run rewrites the file several times in a row.
  for (contender& one : contenders) {
    one.run = [write_once = std::move(one.run)](const char* path) {
      for (int i = 0; i < rewrites; ++i) write_once(path);
    };
  }
  return contenders;
}

}  // namespace

workload make_replace(const workload_options& options) {
  constexpr std::size_t piece_size = std::size_t{1} << 20;
  const std::size_t mib = options.quick ? 64 : 256;
  auto input = std::make_shared<replace_input>();
  input->count = mib;
  if (!options.list_only) {
    input->piece.resize(piece_size);
    for (std::size_t i = 0; i < piece_size; ++i)
      input->piece[i] = (i & 63) == 63 ? '\n' : static_cast<char>('a' + (i * 7 + i / 64) % 26);
  }
  workload w;
  w.id = "W11";
  w.name = "replace";
  w.summary = fmt::format("an existing {} MiB file rewritten {} times in a row, in 1 MiB pieces",
                          mib, rewrites);
  w.bytes = std::uint64_t{piece_size} * mib;
  w.bytes_per_run = w.bytes * rewrites;
  w.prepare = [mib](const std::string& path) { put_old_file(path, mib, piece_size); };
  w.reference = "fastout";
  w.baseline.clear();
  w.contenders = replace_contenders(input);
  return w;
}

}  // namespace fastout_bench
