// SPDX-License-Identifier: MIT
// The registry, made from FASTOUT_BENCH_WORKLOADS in bench.h, and without(),
// which the workloads that borrow another's contenders share.
#include <cctype>
#include <cstring>
#include <string>

#include "bench.h"
#include "contenders.h"

namespace fastout_bench {

const std::vector<workload_entry>& workload_registry() {
#define FASTOUT_BENCH_ENTRY(id, name, summary) {#id, #name, summary, make_##name},
  static const std::vector<workload_entry> registry = {
      FASTOUT_BENCH_BUILT_WORKLOADS(FASTOUT_BENCH_ENTRY)};
#undef FASTOUT_BENCH_ENTRY
  return registry;
}

bool is_left_out_of_this_build(const std::string& id_or_name) {
  // Each id, its family ("W17" of "W17_1k") and each name.
#define FASTOUT_BENCH_NAME(id, name, summary) #id, family_of(#id), #name,
  auto family_of = [](const char* id) {
    const char* underscore = std::strchr(id, '_');
    return underscore == nullptr ? std::string(id) : std::string(id, underscore);
  };
  static const std::string every[] = {FASTOUT_BENCH_WORKLOADS(FASTOUT_BENCH_NAME)};
#undef FASTOUT_BENCH_NAME
  for (const std::string& known : every) {
    std::string a = known, b = id_or_name;
    for (char& ch : a) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    for (char& ch : b) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (a == b) return true;
  }
  return false;
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
