// SPDX-License-Identifier: MIT
// fastout-bench: the types the parts of the driver share, and how to add to
// it.
//
// A workload is a fixed amount of output (W1 `lines`, W2 `bytes`, ...) and its
// contenders, each writing exactly that output its own way. The driver times
// every contender on the same directory, checks that its file is
// byte-identical to the reference contender's (`limit`, or the workload's
// own check), and compares the times.
//
// A contender is three things (contenders.h): a name; a sink, the library it
// writes with (sinks.h: stdio_sink, ofstream_sink, fmt_file_sink,
// unbuffered_sink, limit_sink, fastout_sink, fastout_cursor_sink,
// fastout_ostream_sink, and the standard-output sinks), opened with
// sink_options such as buffer_1m; and a row, a lambda `row(out, i)` that
// writes row i in the contender's idiom through what the sink's out()
// returns. Every contender runs the same loop, write_rows(): open, every row,
// close with every error checked.
//
// Adding a contender to a workload whose library has a sink: one row in the
// workload's xxx_contenders() function (workload_xxx.cpp), in the order it
// should run,
//
//   c.add<stdio_sink>("fwrite_unlocked_256k", fwrite_line, buffer_256k);
//
// reusing a row the workload already has where the idiom is the same (a
// generic `[](auto& out, std::size_t i)` row serves every sink whose out()
// has the calls it makes: `out << x` fits ofstream and fastout alike). Then
// one row in the workload's table in docs/benchmarks.md.
//
// Adding a library: a sink in sinks.h and sinks.cpp, of the shape described
// there: a constructor that opens a path with sink_options, out(), a close()
// that throws if anything was lost, a destructor that releases without
// throwing. If the loop's state must stay in registers, out() returns a
// cursor by value (limit_sink::cursor). Then its rows in each workload.
// For instance: a C API sink whose out() is the C handle, its rows calling
// fastout_putc() or fastout_printf() as stdio's call putc() and fprintf().
// A sink honours every field of sink_options its library can
// (sink_options::sync, which W11 and W12 use, in every sink's close();
// deferred_flushes, the iostream adapter's flush policy).
//
// Adding a workload: a workload_xxx.cpp with its input (made with fixed seeds,
// outside the timed region; none needed when options.list_only), an
// xxx_contenders() of rows, and a factory `workload make_xxx(const
// workload_options&)` declared below; one line in the registry in
// workloads.cpp (id, name, the line --help shows); a section in
// docs/benchmarks.md. A workload may name its own reference and baseline
// contenders and give a check_output for outputs that are right without
// being byte-identical (W7 in workload_format.cpp does both), and a
// prepare() that puts something at the path before every run, untimed (W11
// puts the file it rewrites). Its bars are
// rows in bars.cpp. Later workloads take their own W-numbers.
#ifndef FASTOUT_BENCH_BENCH_H_
#define FASTOUT_BENCH_BENCH_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fastout_bench {

/// What a workload's factory may depend on.
struct workload_options {
  bool quick = false;  ///< --quick: smaller sizes
  /// --list: only the summary and the contenders' names are wanted, so the
  /// factory may skip making the input (`bytes` may then be wrong).
  bool list_only = false;
};

/// Writes a workload's whole output to `path`: open, write, close. It throws
/// (std::exception) if anything fails; the driver reports it. It runs inside
/// the timed region, so it must not print anything.
using write_function = std::function<void(const char* path)>;

struct contender {
  std::string name;
  write_function run;
  /// The buffer size this contender was given, where that is what it varies
  /// (the W5 sweep); 0 otherwise.
  std::size_t buffer_size = 0;
};

struct workload {
  std::string id;       ///< "W1": what --only and the bars use
  std::string name;     ///< "lines"
  std::string summary;  ///< one line for the table header
  std::uint64_t bytes = 0;  ///< the size of every contender's output
  /// What one run writes, when a run writes its output more than once (W11
  /// rewrites its file several times in a row): what MB/s counts. 0: `bytes`.
  std::uint64_t bytes_per_run = 0;
  /// Runs before every run of every contender, the reference's too, outside
  /// the timed region, with the path the run will write: W11 puts the file
  /// to be rewritten there. Empty: the path does not exist when a run starts.
  std::function<void(const std::string& path)> prepare;
  /// The contender whose output every other one must match, and the limit the
  /// ratios compare against. It also makes one untimed warm-up run.
  std::string reference = "limit";
  /// The contender the "/fprintf" column compares against, if present.
  std::string baseline = "fprintf";
  std::vector<contender> contenders;
  /// For output that is right without being byte-identical to the
  /// reference's (say, doubles that only need to parse back to the same
  /// values): returns an empty string if the output at `path` is right,
  /// otherwise what is wrong. Empty: it must be byte-identical.
  std::function<std::string(const std::string& reference_path, const std::string& path,
                            const std::string& contender)>
      check_output;
};

/// The workloads the driver knows, in the order they run. A factory builds a
/// workload's input only when the workload is selected.
struct workload_entry {
  const char* id;    ///< "W1"
  const char* name;  ///< "lines"
  /// One line for --help: what every contender writes, and the --quick size
  /// where it differs.
  const char* help;
  workload (*make)(const workload_options& options);
};
const std::vector<workload_entry>& workload_registry();

/// 1000000 as "1,000,000", for workload summaries.
std::string with_commas(std::uint64_t n);

// The factories, one per workload (workload_*.cpp).
workload make_lines(const workload_options& options);   // W1
workload make_bytes(const workload_options& options);   // W2
workload make_results(const workload_options& options); // W3
workload make_echo(const workload_options& options);    // W4
workload make_sweep(const workload_options& options);   // W5
workload make_big(const workload_options& options);     // W10
workload make_replace(const workload_options& options);  // W11
workload make_durable(const workload_options& options);  // W12
workload make_patch(const workload_options& options);   // W9
// workload_format.cpp
workload make_lines_print(const workload_options& options);  // W1f
workload make_ints(const workload_options& options);         // W6
workload make_doubles(const workload_options& options);      // W7
workload make_csv(const workload_options& options);          // W8

}  // namespace fastout_bench

#endif  // FASTOUT_BENCH_BENCH_H_
