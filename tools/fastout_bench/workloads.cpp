// SPDX-License-Identifier: MIT
// The registry, made from FASTOUT_BENCH_WORKLOADS in bench.h, and without(),
// which the workloads that borrow another's contenders share.
#include "bench.h"
#include "contenders.h"

namespace fastout_bench {

const std::vector<workload_entry>& workload_registry() {
#define FASTOUT_BENCH_ENTRY(id, name, summary) {#id, #name, summary, make_##name},
  static const std::vector<workload_entry> registry = {
      FASTOUT_BENCH_WORKLOADS(FASTOUT_BENCH_ENTRY)};
#undef FASTOUT_BENCH_ENTRY
  return registry;
}

workload workload_entry::build(const workload_options& options) const {
  workload w = make(options);
  w.id = id;
  w.name = name;
  w.summary = summary;
  return w;
}

std::vector<contender> without(std::vector<contender> contenders,
                               std::initializer_list<const char*> names) {
  std::vector<contender> kept;
  for (auto& c : contenders) {
    bool named = false;
    for (const char* name : names) named = named || c.name == name;
    if (!named) kept.push_back(std::move(c));
  }
  return kept;
}

}  // namespace fastout_bench
