// SPDX-License-Identifier: MIT
// W12 `durable`: 1 GiB (256 MiB with --quick) in 1 MiB pieces, written to a
// new file and on disk before close() returns. The question is what
// fastout's fast durable mode (page_cache::drop, RWF_DONTCACHE, then a
// sync) gains over buffered writes and a sync, where the kernel and the
// filesystem have RWF_DONTCACHE (Linux 6.14 and later); elsewhere
// fastout_durable writes as fastout_sync does, and its bar says so.
#include <memory>
#include <vector>

#include "contenders.h"
#include "inputs.h"
#include "sinks.h"

namespace fastout_bench {
namespace {

std::vector<contender> durable_contenders(const std::shared_ptr<const pieces_input>& input) {
  auto write_piece = write_piece_row(*input);

  sink_options sync;
  sync.sync = true;
  sink_options dontcache = sync;
  dontcache.fastout_cache = fastout::page_cache::drop;
  sink_options preallocated = sync;
  preallocated.fastout_preallocate = input->bytes();

  contender_list c(input, input->count);
  c.add<limit_sink>("limit_sync", write_piece, sync);
  c.add<fastout_sink>("fastout_sync", write_piece, sync);
  c.add<fastout_sink>("fastout_durable", write_piece, dontcache);
  c.add<fastout_sink>("fastout_sync_prealloc", write_piece, preallocated);
  return c.take();
}

}  // namespace

workload make_durable(const workload_options& options) {
  auto input = make_pieces_input(options.count(1024, 256));
  workload w;
  w.bytes = input->bytes();
  w.reference = "limit_sync";
  w.baseline.clear();
  w.contenders = durable_contenders(input);
  return w;
}

}  // namespace fastout_bench
