// SPDX-License-Identifier: MIT
// The workloads the driver runs, in order, and what their factories share.
// Later issues add theirs to the registry; --help and --list are made from it.
#include "bench.h"
#include "contenders.h"

namespace fastout_bench {

std::string with_commas(std::uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
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

const std::vector<workload_entry>& workload_registry() {
  static const std::vector<workload_entry> registry = {
      {"W1", "lines", "1,000,000 lines of \"test data\\n\", also to a redirected stdout",
       make_lines},
      {"W2", "bytes", "256 MiB one byte at a time (32 MiB with --quick)", make_bytes},
      {"W3", "results", "524,288 classifier result lines through iostreams' <<, with std::endl",
       make_results},
      {"W4", "echo", "1 MiB one char at a time, with one write() per char, and as echo does",
       make_echo},
      {"W5", "sweep", "W1 through fastout with buffers of 1 KiB to 8 MiB, plotted", make_sweep},
      {"W1f", "lines_print", "W1 through print(\"{}\\n\", s), runtime and FMT_COMPILE",
       make_lines_print},
      {"W6", "ints", "10,000,000 int64, one per line (2,000,000 --quick), also to stdout",
       make_ints},
      {"W7", "doubles", "2,000,000 doubles, shortest round trip (500,000 --quick)",
       make_doubles},
      {"W8", "csv", "1,000,000 rows of id,price,name,qty (500,000 --quick)", make_csv},
      {"W9", "patch", "20,000,000 binary writes of 1 to 16 bytes (4,000,000 --quick)",
       make_patch},
      {"W10", "big", "1 GiB in 1 MiB pieces (256 MiB with --quick)", make_big},
      {"W11", "replace", "an existing 256 MiB file rewritten 3 times (64 MiB with --quick)",
       make_replace},
      {"W12", "durable", "1 GiB made durable before close (256 MiB with --quick)", make_durable},
  };
  return registry;
}

}  // namespace fastout_bench
