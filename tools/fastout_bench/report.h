// SPDX-License-Identifier: MIT
// What the driver prints (stdout) and saves (--json, the W5 plot).
#ifndef FASTOUT_BENCH_REPORT_H_
#define FASTOUT_BENCH_REPORT_H_

#include <string>
#include <vector>

#include "bars.h"
#include "machine.h"
#include "measure.h"

namespace fastout_bench {

/// How the run was made, for the header and the JSON.
struct run_settings {
  int runs = 5;
  bool quick = false;
  bool strict = false;
  std::vector<std::string> workloads;  ///< the ids that were selected
  bool child_runs = false;             ///< a selected workload runs in child processes (W17)
};

void print_header(const machine_info& machine, const run_settings& settings);
/// One workload's table; printed as soon as the workload is done.
void print_workload(const workload_result& result, int runs);
void print_bars(const std::vector<bar_result>& bars);

/// Writes everything as JSON to `path`. Returns an empty string, or why it
/// could not.
std::string write_json(const std::string& path, const machine_info& machine,
                       const run_settings& settings, const std::vector<workload_result>& results,
                       const std::vector<bar_result>& bars, const std::string& plot_path);

/// Writes `text` to a new file at `path`. Returns an empty string, or why it
/// could not.
std::string write_text_file(const std::string& path, const std::string& text);

/// Plots W5 (`sweep`): fastout's time against its buffer size, with the
/// times of its other contenders (W1's, measured in the same rounds) as
/// horizontal lines, into the PNG at `png_path`, through gnuplot. The data
/// and script go into `dir`. Returns an empty string, or why it could not.
std::string plot_sweep(const workload_result& sweep, const machine_info& machine, int runs,
                       const std::string& png_path, work_dir& dir);

}  // namespace fastout_bench

#endif  // FASTOUT_BENCH_REPORT_H_
