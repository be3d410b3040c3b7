// SPDX-License-Identifier: MIT
// Running a workload: the directory the outputs go to, the timed runs, the
// write-call counts, the check against the reference, and the progress line.
#ifndef FASTOUT_BENCH_MEASURE_H_
#define FASTOUT_BENCH_MEASURE_H_

#include <csignal>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "bench.h"

namespace fastout_bench {

/// A fresh directory made with mkdtemp() (on Windows CreateDirectoryW with
/// a random name) under `parent`. It removes the files
/// made through file() that are still there, then itself, and never anything
/// else: a file it did not create cannot be in a directory it just created.
class work_dir {
 public:
  /// Throws std::system_error if the directory cannot be created.
  explicit work_dir(const std::string& parent);
  ~work_dir();
  work_dir(const work_dir&) = delete;
  work_dir& operator=(const work_dir&) = delete;

  const std::string& path() const { return path_; }
  /// The path of `name` in the directory, to be removed at the end.
  std::string file(const std::string& name);
  /// Removes a file made through file(), if it exists.
  void remove(const std::string& file_path);
#if !defined(_WIN32)
  /// Creates the directory `name` in the directory, empty, to be removed
  /// with everything in it at the end (W17's runs write their outputs
  /// there). Throws std::system_error if it cannot.
  std::string directory(const std::string& name);
  /// Removes a directory made through directory() and every file in it.
  void remove_directory(const std::string& directory_path);
#endif

 private:
  std::string path_;
  std::set<std::string> files_;
  std::set<std::string> directories_;
};

/// Write system calls this process has made so far (`syscw` in
/// /proc/self/io; on Windows WriteOperationCount of GetProcessIoCounters),
/// or -1 if the system does not say (Wine counts none). Reading it writes
/// nothing.
std::int64_t write_calls_so_far();
/// Where the write-call column comes from, for the table's header.
std::string write_calls_description();
/// Page faults this process has taken so far (getrusage(); on Windows
/// PageFaultCount of GetProcessMemoryInfo), or -1 if the system does not
/// count them (Wine does not).
std::int64_t page_faults_so_far();

/// What one contender did on one workload.
struct contender_result {
  std::string name;
  std::size_t buffer_size = 0;            ///< see contender::buffer_size
  std::vector<double> seconds;            ///< one per timed run
  std::vector<std::int64_t> write_calls;  ///< one per timed run; -1 if unknown
  /// Page faults (minor and major) per timed run: fresh buffer memory and
  /// page-cache pages cost a fault each, which on a virtual machine can
  /// be a large part of a run.
  std::vector<std::int64_t> page_faults;
  /// Where the run was in a child process (workload::in_child), per timed
  /// run: the child's peak resident set (ru_maxrss, its high-water mark
  /// reset when the run starts) less its resident set then, in KiB: the
  /// memory the run added, whatever the driver held before it forked; -1
  /// where the system does not say.
  std::vector<std::int64_t> peak_rss_kib;
  /// And the most threads the child had at once, the caller included
  /// (sampled: measure.h's note_threads()); -1 where unknown.
  std::vector<std::int64_t> threads;
  std::uint64_t bytes = 0;                      ///< the size of its output file (compressed)
  output_format format = output_format::plain;  ///< what its file holds
  bool identical = false;                       ///< its output matched the reference
  bool checked = false;                         ///< its output was compared at all
  bool may_differ = false;                      ///< see contender::may_differ
  bool may_fail = false;                        ///< see contender::may_fail
  std::string error;                            ///< why it failed, if it did
  /// How its output differs from the reference, where the check can say
  /// (a compressed output: where the decompressed text first differs).
  std::string difference;

  /// It ran and its output was right, or differs as it was expected to
  /// (its figures are kept): see contender::may_differ.
  bool ok() const { return error.empty() && (identical || may_differ) && !seconds.empty(); }
  /// Its output differs from the reference, as it was expected to.
  bool differs_as_expected() const { return checked && !identical && may_differ && error.empty(); }
  /// It failed, as it may: see contender::may_fail.
  bool failed_as_allowed() const { return may_fail && !error.empty(); }
  double median_seconds() const;
  double min_seconds() const;
  double max_seconds() const;
  /// The median of the per-run counts, or -1 if unknown.
  std::int64_t median_write_calls() const;
  std::int64_t median_page_faults() const;
  /// The largest of the per-run figures, or -1 if unknown: a peak is what
  /// a budget must hold, in every run.
  std::int64_t peak_rss_kib_of_runs() const;
  std::int64_t threads_of_runs() const;
};

struct workload_result {
  std::string id;
  std::string name;
  std::string summary;
  std::uint64_t bytes = 0;
  std::uint64_t bytes_per_run = 0;  ///< see workload::bytes_per_run
  std::size_t outputs = 0;          ///< see workload::outputs
  bool in_child = false;            ///< see workload::in_child
  int runs = 0;                     ///< the rounds it was given
  std::string reference;
  std::string baseline;
  std::vector<contender_result> contenders;  ///< in the workload's order
  std::vector<absent_contender> absent;      ///< see workload::absent
  std::string error;                         ///< why the workload could not be measured
  std::string left_out;                      ///< see workload::left_out
  bool interrupted = false;

  /// The contender of that name, or nullptr.
  const contender_result* find(const std::string& contender) const;
  /// Its median time, if it ran and its output was right; otherwise 0.
  double median_of(const std::string& contender) const;
  /// Why the contender of that name is absent from this build, or nullptr.
  const std::string* absence_of(const std::string& contender) const;
  /// Whether any contender compresses: the table then has a size column.
  bool compressed() const;
};

/// The progress line on stderr: rewritten in place on a terminal, one line
/// per round otherwise. It is only ever written between timed runs.
class progress {
 public:
  explicit progress(std::size_t total_steps);
  /// Round `round` (1-based) of `rounds` of a workload begins.
  void round(const std::string& workload, int round, int rounds);
  /// A run of `contender` is about to start.
  void step(const std::string& workload, const std::string& what);
  /// Erases the line (on a terminal) so that the next output starts clean.
  void clear();

 private:
  bool terminal_;
  std::size_t done_ = 0;
  std::size_t total_;
  double start_;
  std::string last_round_;
};

/// How many progress steps run_workload() takes for `w`.
std::size_t progress_steps(const workload& w, int runs);

#if !defined(_WIN32)
/// Notes how many threads this process has now (`Threads:` in
/// /proc/self/status), for the peak a child run reports: a writer of many
/// outputs calls it when all of them are open and written, before closing
/// them, which is when a writer that keeps a thread per output has the
/// most. Between these calls the driver samples the child from outside
/// every 5 ms, which catches threads that come and go.
void note_threads();
/// How the child-run columns are measured, for the table's header.
std::string child_measures_description();
#endif

/// Runs `w`: one untimed run of the reference contender (a warm-up whose file
/// is the reference, kept only until every output has been checked), then
/// `runs` rounds in which every contender runs once, each round starting one
/// contender later so that drift is spread evenly.
/// Each contender's first output is compared with the reference byte for
/// byte, a compressed one after decompression (decompress.h); every
/// output is deleted once it has been looked at. Where the workload has a
/// write_reference, it writes the reference file instead of the
/// reference contender. Where it has check_outputs, there is no
/// reference run or file and each contender's first run is checked by it;
/// where it is in_child, every run is made in a child process. Stops early,
/// with `interrupted` set, when `*stop` becomes non-zero.
workload_result run_workload(const workload& w, work_dir& dir, int runs, progress& bar,
                             const volatile std::sig_atomic_t* stop);

}  // namespace fastout_bench

#endif  // FASTOUT_BENCH_MEASURE_H_
