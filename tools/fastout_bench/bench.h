// fastout-bench: the types the parts of the driver share.
//
// A workload is a fixed amount of output (W1 `lines`, W2 `bytes`, ...) and a
// table of contenders, each a function that opens a path, writes exactly that
// output its own way, and closes the file. The driver times every contender
// on the same directory, checks that its file is byte-identical to the
// reference contender's (`limit`), and compares the times.
//
// Adding a workload: write a `workload make_xxx(const workload_options&)` in
// its own workload_xxx.cpp (see workload_lines.cpp) and add one line to the
// registry in workloads.cpp. Adding a contender: add a function and one row to
// the workload's contender table.
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

/// Binds a contender function to its workload's input, which stays alive as
/// long as any contender that uses it.
template <typename Input>
contender bind_contender(const char* name, std::shared_ptr<const Input> input,
                         void (*write)(const char* path, const Input& input),
                         std::size_t buffer_size = 0) {
  return contender{name, [input, write](const char* path) { write(path, *input); }, buffer_size};
}

/// One row of a contender table: a name and the function that writes the
/// workload's output.
template <typename Input>
struct contender_row {
  const char* name;
  void (*write)(const char* path, const Input& input);
};

template <typename Input, std::size_t N>
std::vector<contender> bind_contenders(const contender_row<Input> (&rows)[N],
                                       std::shared_ptr<const Input> input) {
  std::vector<contender> result;
  for (const auto& row : rows) result.push_back(bind_contender(row.name, input, row.write));
  return result;
}

/// The workloads the driver knows, in the order they run. A factory builds a
/// workload's input only when the workload is selected.
struct workload_entry {
  const char* id;
  const char* name;
  workload (*make)(const workload_options& options);
};
const std::vector<workload_entry>& workload_registry();

/// 1000000 as "1,000,000", for workload summaries.
std::string with_commas(std::uint64_t n);

// The factories, one per workload (workload_*.cpp).
workload make_lines(const workload_options& options);   // W1
workload make_bytes(const workload_options& options);   // W2
workload make_echo(const workload_options& options);    // W4
workload make_sweep(const workload_options& options);   // W5
workload make_big(const workload_options& options);     // W10
// workload_format.cpp
workload make_lines_print(const workload_options& options);  // W1f
workload make_ints(const workload_options& options);         // W6
workload make_doubles(const workload_options& options);      // W7
workload make_csv(const workload_options& options);          // W8

}  // namespace fastout_bench

#endif  // FASTOUT_BENCH_BENCH_H_
