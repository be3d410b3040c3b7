// SPDX-License-Identifier: MIT
// W11 `replace`: an existing file rewritten several times in a row, 256 MiB
// (64 MiB with --quick) in 1 MiB pieces, three times per run. Before every
// run the driver puts a file of the same size there and syncs it, so the
// first rewrite replaces a file that is on disk and the next two one that
// is still in the page cache, as a program that keeps rewriting its output
// does. The question is what a safe replacement costs against truncating
// the file in place, and what a rename costs against an exchange.
#include <cerrno>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "contenders.h"
#include "inputs.h"
#include "sinks.h"

namespace fastout_bench {
namespace {

constexpr int rewrites = 3;

// The file a run rewrites: as large as the output, other bytes, on disk.
void put_old_file(const std::string& path, std::size_t pieces) {
  std::vector<char> old(pieces_input::piece_size, 'o');
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

std::vector<contender> replace_contenders(const std::shared_ptr<const pieces_input>& input) {
  auto fwrite_piece = fwrite_piece_row(*input);
  auto write_piece = write_piece_row(*input);

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
  auto input = make_pieces_input(options.count(256, 64));
  workload w;
  w.bytes = input->bytes();
  w.bytes_per_run = w.bytes * rewrites;
  w.prepare = [pieces = input->count](const std::string& path) { put_old_file(path, pieces); };
  w.reference = "fastout";
  w.baseline.clear();
  w.contenders = replace_contenders(input);
  return w;
}

}  // namespace fastout_bench
