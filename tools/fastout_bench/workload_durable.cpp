// SPDX-License-Identifier: MIT
// W12 `durable`: 1 GiB (256 MiB with --quick) in 1 MiB pieces, written to a
// new file and on disk before close() returns. The question is what
// fastout's fast durable mode (page_cache::drop, RWF_DONTCACHE, then a
// sync) gains over buffered writes and a sync, where the kernel and the
// filesystem have RWF_DONTCACHE (Linux 6.14 and later); elsewhere
// fastout_durable writes as fastout_sync does, and its bar says so.
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "bench.h"
#include "contenders.h"
#include "sinks.h"

namespace fastout_bench {
namespace {

struct durable_input {
  std::vector<char> piece;
  std::size_t count;
};

std::vector<contender> durable_contenders(const std::shared_ptr<const durable_input>& input) {
  const char* const piece = input->piece.data();
  const std::size_t size = input->piece.size();
  auto write_piece = [piece, size](auto& out, std::size_t) { out.write(piece, size); };

  sink_options sync;
  sync.sync = true;
  sink_options dontcache = sync;
  dontcache.fastout_cache = fastout::page_cache::drop;
  sink_options preallocated = sync;
  preallocated.fastout_preallocate = std::uint64_t{size} * input->count;

  contender_list c(input, input->count);
  c.add<limit_sink>("limit_sync", write_piece, sync);
  c.add<fastout_sink>("fastout_sync", write_piece, sync);
  c.add<fastout_sink>("fastout_durable", write_piece, dontcache);
  c.add<fastout_sink>("fastout_sync_prealloc", write_piece, preallocated);
  return c.take();
}

}  // namespace

workload make_durable(const workload_options& options) {
  const std::size_t piece_size = std::size_t{1} << 20;
  const std::size_t mib = options.quick ? 256 : 1024;
  auto input = std::make_shared<durable_input>();
  input->count = mib;
  if (!options.list_only) {
    input->piece.resize(piece_size);
    for (std::size_t i = 0; i < piece_size; ++i)
      input->piece[i] = (i & 63) == 63 ? '\n' : static_cast<char>('a' + (i * 7 + i / 64) % 26);
  }
  workload w;
  w.id = "W12";
  w.name = "durable";
  w.summary = fmt::format("{} MiB in 1 MiB pieces to a new file, synced before close returns", mib);
  w.bytes = std::uint64_t{piece_size} * mib;
  w.reference = "limit_sync";
  w.baseline.clear();
  w.contenders = durable_contenders(input);
  return w;
}

}  // namespace fastout_bench
