// The workloads the driver runs, in order. Later issues add theirs here.
#include "bench.h"

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

const std::vector<workload_entry>& workload_registry() {
  static const std::vector<workload_entry> registry = {
      {"W1", "lines", make_lines},
      {"W2", "bytes", make_bytes},
      {"W4", "echo", make_echo},
      {"W5", "sweep", make_sweep},
      {"W1f", "lines_print", make_lines_print},
      {"W6", "ints", make_ints},
      {"W7", "doubles", make_doubles},
      {"W8", "csv", make_csv},
      {"W10", "big", make_big},
  };
  return registry;
}

}  // namespace fastout_bench
