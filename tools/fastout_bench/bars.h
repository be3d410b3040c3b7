// SPDX-License-Identifier: MIT
// The bars fastout must clear, checked against the figures of the same run:
// a speed claim is a ratio measured side by side, never an absolute time.
#ifndef FASTOUT_BENCH_BARS_H_
#define FASTOUT_BENCH_BARS_H_

#include <string>
#include <vector>

#include "measure.h"

namespace fastout_bench {

struct bar_result {
  std::string workload;     ///< "W1"
  std::string description;  ///< "fastout <= 1.5x the time of limit"
  /// "PASS", "FAIL", "SKIP" (its workload did not run, or the bar does not
  /// apply on this machine) or "ABSENT" (a contender it names is not in
  /// this build: it was not judged, and it did not pass)
  std::string status;
  std::string measured;  ///< the figure, as printed: "1.21x", "39 calls"
  double value = 0;      ///< the figure as a number (0 if there is none), from medians
  /// The same ratio from each contender's fastest run: noise from other
  /// processes only ever adds time, so a bar that passes on medians but not
  /// here (or the reverse) was decided by the noise.
  double value_from_min = 0;
  double threshold = 0;
  std::string note;  ///< which contender was judged, or why it failed
  /// For a speed bar with a reference (the hand-written limit): its name and
  /// its own ratio to the same rival, the most the bar could show.
  std::string reference;
  double reference_value = 0;
};

/// Checks every bar whose workload is in `results`; the others are SKIP.
std::vector<bar_result> check_bars(const std::vector<workload_result>& results);

}  // namespace fastout_bench

#endif  // FASTOUT_BENCH_BARS_H_
