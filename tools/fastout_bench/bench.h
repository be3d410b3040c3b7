// SPDX-License-Identifier: MIT
// fastout-bench: the workloads it runs, and the types the parts of the
// driver share.
//
// A workload is a fixed output (W1 `lines`, W2 `bytes`, ...) and its
// contenders, each writing exactly that output its own way: a name, a sink
// (sinks.h: the library it writes with) and a row that writes row i in the
// contender's idiom (contenders.h). The driver times them side by side and
// checks every output against the reference contender's.
//
// Adding a workload is one line in FASTOUT_BENCH_WORKLOADS, where it should
// run, and one file, workload_<name>.cpp (CMake builds every workload_*.cpp),
// that defines `workload make_<name>(const workload_options&)`: it builds
// the input with fixed seeds (not when options.list_only), adds the
// contenders, and sets `bytes`, and `reference`, `baseline`, `prepare`,
// `check_output`, `write_reference` or `absent` where the defaults do not
// fit. The driver fills in id, name
// and summary from the line. Then a row in docs/benchmarks.md's table, and
// its bars in bars.cpp. What more than one workload writes is in inputs.h.
// Workloads that are tables of one study share a file and an id before
// `_`: W17's six are in workload_many.cpp, and `--only W17` runs them all.
#ifndef FASTOUT_BENCH_BENCH_H_
#define FASTOUT_BENCH_BENCH_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

/// The workloads, in the order they run: X(id, name, summary). The summary
/// is the one line --help, --list and the table show: what every contender
/// writes, and the --quick size where it differs.
#define FASTOUT_BENCH_WORKLOADS(X)                                                             \
  X(W1, lines, "1,000,000 lines of \"test data\\n\", also to a redirected stdout")             \
  X(W2, bytes, "256 MiB one byte at a time (32 MiB with --quick)")                             \
  X(W3, results, "524,288 classifier result lines through iostreams' <<, with std::endl")      \
  X(W4, echo, "1 MiB one char at a time, with one write() per char, and as echo does")         \
  X(W5, sweep, "W1 through fastout with buffers of 1 KiB to 8 MiB, plotted")                   \
  X(W1f, lines_print, "W1 through print(\"{}\\n\", s), runtime and FMT_COMPILE")               \
  X(W6, ints, "10,000,000 int64, one per line (2,000,000 --quick), also to stdout")            \
  X(W7, doubles, "2,000,000 doubles, shortest round trip (500,000 --quick)")                   \
  X(W8, csv, "1,000,000 rows of id,price,name,qty (500,000 --quick)")                          \
  X(W9, patch, "20,000,000 binary writes of 1 to 16 bytes (4,000,000 --quick)")                \
  X(W10, big, "1 GiB in 1 MiB pieces (256 MiB with --quick)")                                  \
  X(W11, replace, "an existing 256 MiB file rewritten 3 times (64 MiB with --quick)")          \
  X(W12, durable, "1 GiB made durable before close (256 MiB with --quick)")                    \
  X(W12f, durable_table, "W6's 10,000,000 int64 made durable before close, also with --quick") \
  X(W14, log, "1,000,000 log lines (500,000 --quick), compressed: zstd -3, gzip -6")           \
  X(W15, table,                                                                                \
    "W6's int64 in 10 tab-separated columns, 1,000,000 rows (100,000 --quick), "               \
    "compressed")                                                                              \
  X(W16, flush, "200,000 records flushed one at a time, as seqtk comp does (50,000 --quick)")  \
  X(W17_1k, many_1k, "1,000 outputs, records by a skewed key, 1 GiB (8 MiB --quick)")          \
  X(W17_10k, many_10k, "W17_1k with 10,000 outputs")                                           \
  X(W17_1k_even, many_1k_even, "W17_1k with the records dealt to the outputs in turn")         \
  X(W17_10k_even, many_10k_even, "W17_10k with the records dealt in turn (not with --quick)")  \
  X(W17_1k_gz, many_1k_gzip, "W17_1k compressed, gzip -6 (4 MiB --quick)")                     \
  X(W17_10k_fd, many_10k_fd, "W17_10k under a descriptor limit of 256: who completes")         \
  X(W17_10k_fd_hard, many_10k_fd_hard, "W17_10k_fd with the hard limit at 256 too")            \
  X(W18, startup, "a C program printing 3 lines, 2,000 processes: stdio, fastout, C++")        \
  X(W19_xxd, printf_xxd, "xxd -i's \"%s0x%02x\", 4,000,000 bytes (1,000,000 --quick)")         \
  X(W19_table, printf_table, "\"%-12s %8.2f %6d\\n\", 1,000,000 rows (250,000 --quick)")       \
  X(W19_log, printf_log, "\"%04d-%02d-...%06d %-5s %s\\n\", 1,000,000 log lines (250,000 --quick)")

/// The workloads the Windows build of the driver runs, with their summaries
/// there (no redirected standard output): the others use what only POSIX
/// has (they call fsync, rename over open files, popen, gnuplot, read their
/// compressed outputs with pread, and W17 forks a child per run, sets
/// RLIMIT_NOFILE and reads /proc) and are not built for Windows.
/// tools/CMakeLists.txt builds these workloads' files.
#define FASTOUT_BENCH_WINDOWS_WORKLOADS(X)                          \
  X(W1, lines, "1,000,000 lines of \"test data\\n\"")               \
  X(W2, bytes, "256 MiB one byte at a time (32 MiB with --quick)")  \
  X(W6, ints, "10,000,000 int64, one per line (2,000,000 --quick)") \
  X(W9, patch, "20,000,000 binary writes of 1 to 16 bytes (4,000,000 --quick)")

/// The workloads this build runs: every one, or on Windows those above.
#if defined(_WIN32)
#  define FASTOUT_BENCH_BUILT_WORKLOADS FASTOUT_BENCH_WINDOWS_WORKLOADS
#else
#  define FASTOUT_BENCH_BUILT_WORKLOADS FASTOUT_BENCH_WORKLOADS
#endif

namespace fastout_bench {

/// What a workload's factory may depend on.
struct workload_options {
  bool quick = false;  ///< --quick: smaller sizes
  /// --list: only the contenders' names are wanted, so the factory may skip
  /// making the input (`bytes` may then be wrong).
  bool list_only = false;

  /// How many rows (values, pieces) a workload with a --quick size makes:
  /// `full`, or `quick` with --quick, and none for --list.
  std::size_t count(std::size_t full, std::size_t quick_count) const {
    return list_only ? 0 : quick ? quick_count : full;
  }
};

/// Writes a workload's whole output to `path`: open, write, close. It throws
/// (std::exception) if anything fails; the driver reports it. It runs inside
/// the timed region, so it must not print anything.
using write_function = std::function<void(const char* path)>;

/// What a contender's file holds, which says how the driver checks it
/// against the reference (the uncompressed text).
enum class output_format {
  plain,  ///< the text itself: byte for byte the reference's
  zstd,   ///< zstd frames: decompressed with libzstd, the reference's bytes
  gzip,   ///< gzip members: decompressed with zlib, the reference's bytes
  bgzf,   ///< gzip as BGZF: the same, and it must end with BGZF's EOF block
  /// No file: the contender formats and discards (W14's and W15's
  /// format_only). Its run checks that it formatted the reference's
  /// number of bytes, and throws if not.
  none,
};

struct contender {
  std::string name;
  write_function run;
  /// The buffer size this contender was given, where that is what it varies
  /// (the W5 sweep); 0 otherwise.
  std::size_t buffer_size = 0;
  output_format output = output_format::plain;
  /// Its output is expected to differ from the reference (stb_sprintf's
  /// "%.17g" is not correctly rounded): it is still compared, and a
  /// difference is shown as `differs` in its row with its figures kept, but
  /// it does not fail the run, and a bar judged against it is SKIP.
  bool may_differ = false;
  /// Its run may fail, and is expected to today (W17_10k_fd: a writer that
  /// meets the descriptor limit fails with EMFILE): a failure is shown as
  /// `failed` in its row with its message below the table, and does not
  /// fail the run; a bar that needs it to complete says FAIL. Output it does
  /// write is still checked, and must be right.
  bool may_fail = false;
};

/// A contender this build of the driver cannot run, and why (a library or
/// a program missing when it was built, or a fastout feature that does not
/// exist yet). The table and the JSON list it, and a bar that names it says
/// ABSENT, never PASS.
struct absent_contender {
  std::string name;
  std::string reason;
};

struct workload {
  // From the registry line (FASTOUT_BENCH_WORKLOADS); factories leave them.
  std::string id;       ///< "W1": what --only and the bars use
  std::string name;     ///< "lines"
  std::string summary;  ///< one line for --help, --list and the table header

  /// The size of every contender's output; where contenders compress, of
  /// the text before compression (the reference's).
  std::uint64_t bytes = 0;
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
  /// The contenders this workload has elsewhere but not in this build.
  std::vector<absent_contender> absent;
  /// Writes the reference output, untimed, where the reference contender
  /// writes none (W14 and W15, whose reference is format_only, the floor):
  /// the uncompressed text every compressed output must decompress to.
  /// Empty: the reference contender's own run writes it.
  write_function write_reference;
  /// For output that is right without being byte-identical to the
  /// reference's (say, doubles that only need to parse back to the same
  /// values): returns an empty string if the output at `path` is right,
  /// otherwise what is wrong. Empty: it must be byte-identical.
  std::function<std::string(const std::string& reference_path, const std::string& path,
                            const std::string& contender)>
      check_output;

  // Many outputs (W17; POSIX only: the Windows build has no such workload).
  /// How many files one run writes: 0 for one file at the path a run is
  /// given (every workload but W17). Otherwise that path is a new, empty
  /// directory, which the driver removes with everything in it once the
  /// run has been looked at, and check_outputs must be set.
  std::size_t outputs = 0;
  /// Checks what a run wrote at `path` (W17: every file of the directory,
  /// against the bytes the workload computes from its input), read as
  /// `format`: returns an empty string if it is right, otherwise what is
  /// wrong. Where it is set the driver writes no reference file and makes
  /// no warm-up run (the workload knows the bytes), and `reference` only
  /// names the contender of the ratio column.
  std::function<std::string(const std::string& path, output_format format)> check_outputs;
  /// Every run in a child process of its own (fork()): the child times the
  /// run and counts its write calls and page faults as the driver does,
  /// and also reports its peak resident set and its most threads
  /// (measure.h says how), which a run in the driver's own process could
  /// not tell apart from what earlier runs left.
  bool in_child = false;
  /// Runs in the child before the timed region, after fork(): W17_10k_fd
  /// lowers the descriptor limit there. Throws if it cannot.
  std::function<void()> child_setup;
  /// The rounds when --runs is not given, with or without --quick; 0: the
  /// driver's (W18's 2,000: each round is one process started).
  int runs = 0;
  /// The rounds with --quick when --runs is not given; 0: the driver's
  /// (5). W17's tables run 1 to 3: each of their runs creates thousands of
  /// files.
  int quick_runs = 0;
  /// Why this workload is left out of this run (W17_10k_even with
  /// --quick), or empty: the driver then prints the reason in place of its
  /// table, and its bars are SKIP.
  std::string left_out;
};

// The factories, one per workload, in workload_<name>.cpp.
#define FASTOUT_BENCH_DECLARE_FACTORY(id, name, summary) \
  workload make_##name(const workload_options& options);
FASTOUT_BENCH_WORKLOADS(FASTOUT_BENCH_DECLARE_FACTORY)
#undef FASTOUT_BENCH_DECLARE_FACTORY

/// One registry line. A workload's input is made only when it is selected.
struct workload_entry {
  const char* id;
  const char* name;
  const char* summary;
  workload (*make)(const workload_options& options);

  /// The workload, with its id, name and summary.
  workload build(const workload_options& options) const;
};

/// FASTOUT_BENCH_BUILT_WORKLOADS, in order: FASTOUT_BENCH_WORKLOADS, or on
/// Windows FASTOUT_BENCH_WINDOWS_WORKLOADS.
const std::vector<workload_entry>& workload_registry();

/// Whether `id_or_name` names a workload of FASTOUT_BENCH_WORKLOADS that
/// this build does not run (on Windows), for --only's message.
bool is_left_out_of_this_build(const std::string& id_or_name);

}  // namespace fastout_bench

#endif  // FASTOUT_BENCH_BENCH_H_
