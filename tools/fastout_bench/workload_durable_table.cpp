// SPDX-License-Identifier: MIT
// W12f `durable_table`: W6's 10,000,000 int64, one per line, written
// durably, with --quick too: durability only shows on outputs of some
// size (about 204 MB here). The question (issue 16) is what durability
// costs when formatting is the work: whether the disk can write the file
// while the caller formats, so that close() waits only for the tail.
//
// Every contender formats with FMT_COMPILE("{}\n") into a 256 KiB buffer,
// fastout's default, so that the rows differ only in how the data is made
// durable: `fastout` does not sync (the reference: what durability is
// measured against), `limit_sync` is the hand-written loop and fdatasync()
// at the end, `fastout_sync` is fastout::sync = true and `fastout_durable`
// what W12's is (sync, and page_cache::drop where the kernel takes
// RWF_DONTCACHE).
#include <cstdint>
#include <memory>
#include <vector>

// fastout before {fmt}: see sinks.h.
#include <fastout/file.h>

#include <fmt/compile.h>

#include "contenders.h"
#include "inputs.h"
#include "sinks.h"

namespace fastout_bench {
namespace {

constexpr std::size_t int_row_bound = int_text_bound + 1;  // the value and '\n'

std::vector<contender> durable_table_contenders(const std::shared_ptr<const ints_input>& input) {
  const std::int64_t* const values = input->values.data();
  auto limit_row = [values](limit_sink::cursor& out, std::size_t i) {
    out.format_to(int_row_bound, FMT_COMPILE("{}\n"), values[i]);
  };
  auto fastout_row = [values](fastout::file& out, std::size_t i) {
    out.print(FMT_COMPILE("{}\n"), values[i]);
  };

  sink_options limit_sync = buffer_256k;
  limit_sync.sync = true;
  limit_sync.sync_data_only = true;  // what fastout::sync does
  sink_options sync;
  sync.sync = true;
  sink_options durable = sync;
  durable.fastout_cache = fastout::page_cache::drop;

  contender_list c(input, input->values.size());
  c.add<fastout_sink>("fastout", fastout_row);
  c.add<limit_sink>("limit_sync", limit_row, limit_sync);
  c.add<fastout_sink>("fastout_sync", fastout_row, sync);
  c.add<fastout_sink>("fastout_durable", fastout_row, durable);
  return c.take();
}

}  // namespace

workload make_durable_table(const workload_options& options) {
  auto input = make_ints_input(options.count(10000000, 10000000));
  const std::int64_t* const values = input->values.data();
  workload w;
  w.bytes = formatted_size(input->values.size(), int_row_bound, [values](char* pos, std::size_t i) {
    return fmt::format_to(pos, FMT_COMPILE("{}\n"), values[i]);
  });
  w.reference = "fastout";
  w.baseline = "limit_sync";
  w.contenders = durable_table_contenders(input);
  return w;
}

}  // namespace fastout_bench
