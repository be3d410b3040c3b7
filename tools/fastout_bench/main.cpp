// SPDX-License-Identifier: MIT
// fastout-bench: times fastout against stdio, iostreams, {fmt} and a
// hand-written limit on the same workloads in one run, checks that every
// contender wrote exactly the same bytes, and checks fastout's bars.
//
// Map: bench.h (the workloads in order, the types, and how to add a
// workload), workloads.cpp (the registry made from that list), sinks.h (one
// sink per library), contenders.h (the loop every contender runs, and
// contender_list), workload_<name>.cpp (one per workload: its input and
// rows), inputs.h (what several workloads write), measure.cpp (timed runs,
// write-call counts, output checks, progress), machine.cpp, bars.cpp,
// report.cpp (table and JSON), plot.cpp (W5's PNG).
#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>

#if defined(_WIN32)
#  include <fcntl.h>
#  include <io.h>
#  include <windows.h>

#  include "win32.h"
#endif

#include <fmt/format.h>

#include "bars.h"
#include "bench.h"
#include "machine.h"
#include "measure.h"
#include "report.h"

namespace fastout_bench {
namespace {

enum exit_code {
  exit_ok = 0,
  exit_output_differs = 1,  // or a contender or workload failed
  exit_usage = 2,
  exit_bar_failed = 3,  // only with --strict
  exit_interrupted = 130,
};

struct options {
  bool quick = false;
  int runs = 0;             // 0: the default for the mode
  bool runs_given = false;  // --runs was given: it holds for every workload
  bool strict = false;
  bool list = false;
  std::string only;
  std::string dir;
  std::string json;
  std::string plot = "fastout-sweep.png";
};

void print_usage(std::FILE* out) {
#if defined(_WIN32)
  std::fprintf(
      out,
      "Usage: fastout-bench [options]\n"
      "\n"
      "Times fastout against the C runtime's stdio, iostreams, {fmt} and a hand-written\n"
      "limit, each writing the same bytes into the same directory; checks that every\n"
      "output is byte-identical to the limit's; prints a table. This is the Windows\n"
      "build: it runs the workloads below and judges no bar, and under Wine its\n"
      "figures are only indicative (Wine's system calls are not Windows').\n"
      "\n"
      "Options:\n"
      "  --quick        smaller sizes (below), a minute or two\n"
      "  --runs N       timed runs of each contender (default 5, also with --quick);\n"
      "                 the table shows the median\n"
      "  --only LIST    run only these workloads, by id or name: --only W1,W9 or lines,patch\n"
      "  --dir DIR      write the outputs in a new directory made inside DIR\n"
      "                 (default the temporary directory, GetTempPathW); it is removed\n"
      "                 at the end\n"
      "  --json FILE    also write every figure to FILE as JSON\n"
      "  --plot FILE    (W5's plot: W5 is not in the Windows build)\n"
      "  --strict       (no bar is judged in the Windows build: no effect)\n"
      "  --list         list the workloads and their contenders, and exit\n"
      "  -h, --help     show this help\n"
      "\n"
      "Workloads (--list also shows their contenders):\n");
#else
  std::fprintf(
      out,
      "Usage: fastout-bench [options]\n"
      "\n"
      "Times fastout against stdio, iostreams, {fmt} and a hand-written limit, each\n"
      "writing the same bytes into the same directory; checks that every output is\n"
      "byte-identical to the limit's; prints a table and checks fastout's bars.\n"
      "\n"
      "Options:\n"
      "  --quick        smaller sizes (below), a few minutes\n"
      "  --runs N       timed runs of each contender (default 5, also with --quick, but\n"
      "                 1 to 3 for W17's tables with --quick); the table shows the median\n"
      "  --only LIST    run only these workloads, by id or name: --only W1,W5 or lines,sweep;\n"
      "                 W17 is all six W17 tables, W17_10k one of them\n"
      "  --dir DIR      write the outputs in a new directory made inside DIR\n"
      "                 (default $TMPDIR, else /tmp); it is removed at the end\n"
      "  --json FILE    also write every figure to FILE as JSON\n"
      "  --plot FILE    where the W5 sweep plot goes (default fastout-sweep.png)\n"
      "  --strict       also exit non-zero when a bar fails or names an absent contender\n"
      "  --list         list the workloads and their contenders, and exit\n"
      "  -h, --help     show this help\n"
      "\n"
      "Workloads (--list also shows their contenders):\n");
#endif
  const auto& registry = workload_registry();
  std::size_t width = 0;
  for (const auto& entry : registry)
    width = std::max(width, std::strlen(entry.id) + 1 + std::strlen(entry.name));
  for (const auto& entry : registry) {
    std::string label = std::string(entry.id) + " " + entry.name;
    std::fprintf(out, "  %-*s  %s\n", static_cast<int>(width), label.c_str(), entry.summary);
  }
  std::fprintf(out,
               "\n"
               "Exit status: 0 when every output is identical to the reference (and, with\n"
               "--strict, every bar passes); 1 when an output differs or a contender fails\n"
               "(but for one that may: W17_10k_fd's writers that meet the descriptor limit);\n"
               "2 on a bad command line; 3 when a bar fails (or is ABSENT) under --strict;\n"
               "130 when interrupted.\n");
}

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "fastout-bench: %s\n(fastout-bench --help lists the options)\n",
               message.c_str());
  std::exit(exit_usage);
}

options parse_options(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_value = false;
    if (arg.compare(0, 2, "--") == 0 && arg.find('=') != std::string::npos) {
      value = arg.substr(arg.find('=') + 1);
      arg = arg.substr(0, arg.find('='));
      has_value = true;
    }
    auto take_value = [&]() -> std::string {
      if (has_value) return value;
      if (i + 1 >= argc) usage_error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "-h" || arg == "--help") {
      print_usage(stdout);
      std::exit(exit_ok);
    } else if (arg == "--quick") {
      o.quick = true;
    } else if (arg == "--strict") {
      o.strict = true;
    } else if (arg == "--list") {
      o.list = true;
    } else if (arg == "--runs") {
      std::string n = take_value();
      char* end = nullptr;
      long runs = std::strtol(n.c_str(), &end, 10);
      if (n.empty() || *end != '\0' || runs < 1 || runs > 1000)
        usage_error("--runs takes a number from 1 to 1000, not \"" + n + "\"");
      o.runs = static_cast<int>(runs);
      o.runs_given = true;
    } else if (arg == "--only") {
      o.only = take_value();
    } else if (arg == "--dir") {
      o.dir = take_value();
    } else if (arg == "--json") {
      o.json = take_value();
    } else if (arg == "--plot") {
      o.plot = take_value();
    } else {
      usage_error("unknown option \"" + arg + "\"");
    }
    if (has_value && (arg == "--quick" || arg == "--strict" || arg == "--list"))
      usage_error(arg + " takes no value");
  }
  // Five runs even with --quick: the smaller workloads take a few
  // milliseconds, and a median of three moved bars by 20% between runs.
  if (o.runs == 0) o.runs = 5;
  return o;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The registry's entries that --only selects, in the registry's order.
std::vector<workload_entry> select_workloads(const std::string& only) {
  const auto& registry = workload_registry();
  if (only.empty()) return registry;
  std::vector<bool> chosen(registry.size(), false);
  std::istringstream in(only);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    bool found = false;
    for (std::size_t i = 0; i < registry.size(); ++i) {
      // "W17" is every table of W17 (W17_1k, W17_10k_fd, ...).
      const std::string id = registry[i].id;
      const std::string family = id.substr(0, id.find('_'));
      if (lower(item) == lower(id) || lower(item) == registry[i].name ||
          (family != id && lower(item) == lower(family))) {
        chosen[i] = true;
        found = true;
      }
    }
    if (!found && is_left_out_of_this_build(item)) {
      std::string built;
      for (const auto& entry : registry)
        built += (built.empty() ? "" : ", ") + std::string(entry.id);
      usage_error("--only: workload \"" + item + "\" is not in the Windows build of the driver, " +
                  "which runs " + built + " (docs/benchmarks.md says why)");
    }
    if (!found) usage_error("--only: no workload \"" + item + "\" (see --list)");
  }
  std::vector<workload_entry> selected;
  for (std::size_t i = 0; i < registry.size(); ++i)
    if (chosen[i]) selected.push_back(registry[i]);
  if (selected.empty()) usage_error("--only selects no workload");
  return selected;
}

volatile std::sig_atomic_t stop_requested = 0;

extern "C" void request_stop(int) { stop_requested = 1; }

// Ctrl-C stops after the current run, so the outputs are still removed; a
// second one kills at once. SA_RESTART keeps the signal from turning a
// contender's write() into an EINTR that stdio would count as an error.
// Windows' C runtime resets a handler to SIG_DFL when it runs it, as
// SA_RESETHAND does, and interrupts no write.
#if defined(_WIN32)
void catch_interrupts() {
  std::signal(SIGINT, request_stop);
  std::signal(SIGTERM, request_stop);
}

// The Windows temporary directory (GetTempPathW: TMP, TEMP, ...), without
// its trailing backslash.
std::string default_parent_dir() {
  wchar_t path[MAX_PATH + 1];
  DWORD size = ::GetTempPathW(MAX_PATH + 1, path);
  if (size == 0 || size > MAX_PATH) return ".";
  std::string dir = narrow(std::wstring(path, size));
  while (dir.size() > 3 && (dir.back() == '\\' || dir.back() == '/')) dir.pop_back();
  return dir;
}
#else
void catch_interrupts() {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = request_stop;
  action.sa_flags = static_cast<int>(SA_RESTART | SA_RESETHAND);
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

std::string default_parent_dir() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}
#endif

int run(const options& o) {
  workload_options workload_opts;
  workload_opts.quick = o.quick;
  std::vector<workload_entry> selected = select_workloads(o.only);

  if (o.list) {
    workload_options list_opts = workload_opts;
    list_opts.list_only = true;
    for (const auto& entry : selected) {
      workload w = entry.build(list_opts);
      std::printf("%s %s: %s\n ", w.id.c_str(), w.name.c_str(), w.summary.c_str());
      for (const auto& c : w.contenders) std::printf(" %s", c.name.c_str());
      std::printf("\n");
      for (const auto& a : w.absent)
        std::printf("  absent: %s: %s\n", a.name.c_str(), a.reason.c_str());
    }
    return exit_ok;
  }

  // A workload's rounds: --runs if given, else its own (W18's 2,000), else
  // its own with --quick (W17's 1 to 3), else the default.
  auto runs_of = [&o](const workload& w) {
    if (!o.runs_given && w.runs > 0) return w.runs;
    return !o.runs_given && o.quick && w.quick_runs > 0 ? w.quick_runs : o.runs;
  };
  std::vector<workload> workloads;
  std::size_t steps = 0;
  run_settings settings;
  settings.runs = o.runs;
  settings.quick = o.quick;
  settings.strict = o.strict;
  for (const auto& entry : selected) {
    workloads.push_back(entry.build(workload_opts));
    if (workloads.back().left_out.empty())
      steps += progress_steps(workloads.back(), runs_of(workloads.back()));
    settings.workloads.push_back(entry.id);
    settings.child_runs = settings.child_runs || workloads.back().in_child;
  }

  const std::string parent = o.dir.empty() ? default_parent_dir() : o.dir;
  struct stat st;
  if (::stat(parent.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    usage_error("\"" + parent + "\" is not a directory");
  catch_interrupts();
  work_dir dir(parent);

  machine_info machine = collect_machine_info(dir.path());
  print_header(machine, settings);

  std::vector<workload_result> results;
  progress bar(steps);
  for (const auto& w : workloads) {
    if (!w.left_out.empty()) {
      workload_result skipped;
      skipped.id = w.id;
      skipped.name = w.name;
      skipped.summary = w.summary;
      skipped.left_out = w.left_out;
      results.push_back(skipped);
      print_workload(results.back(), 0);
      continue;
    }
    results.push_back(run_workload(w, dir, runs_of(w), bar, &stop_requested));
    print_workload(results.back(), runs_of(w));
    if (stop_requested) break;
  }

  std::string plot_path;
#if !defined(_WIN32)  // W5 is not in the Windows build
  const workload_result* sweep = nullptr;
  for (const auto& r : results)
    if (r.id == "W5") sweep = &r;

  if (sweep != nullptr && sweep->error.empty() && !stop_requested) {
    std::string error = plot_sweep(*sweep, machine, o.runs, o.plot, dir);
    if (error.empty()) {
      char resolved[4096];
      plot_path = ::realpath(o.plot.c_str(), resolved) != nullptr ? resolved : o.plot;
      std::printf("W5 plot: %s\n\n", plot_path.c_str());
    } else {
      std::printf("W5 plot: not drawn: %s\n\n", error.c_str());
    }
  }
#endif

#if defined(_WIN32)
  // The bars were set on Linux against Linux's contenders; under Wine the
  // figures are only indicative, and no bar is judged on them.
  std::vector<bar_result> bars;
  std::printf(
      "Bars: not judged in the Windows build: they are set and checked on Linux, and figures "
      "under Wine are only indicative\n");
  std::fflush(stdout);
#else
  std::vector<bar_result> bars = check_bars(results);
  print_bars(bars);
#endif

  bool outputs_ok = true;
  for (const auto& r : results) {
    if (!r.error.empty()) outputs_ok = false;
    for (const auto& c : r.contenders)
      if ((!c.error.empty() && !c.may_fail) || (c.checked && !c.identical && !c.may_differ))
        outputs_ok = false;
  }
  bool bars_ok = std::none_of(bars.begin(), bars.end(),
                              [](const bar_result& b) { return b.status == "FAIL"; });
  // A bar whose contender is absent from this build was not judged: it did
  // not pass, and --strict says so.
  auto bars_absent = std::count_if(bars.begin(), bars.end(),
                                   [](const bar_result& b) { return b.status == "ABSENT"; });

  if (!o.json.empty()) {
    std::string error = write_json(o.json, machine, settings, results, bars, plot_path);
    if (error.empty()) {
      std::printf("\nJSON: %s\n", o.json.c_str());
    } else {
      std::fprintf(stderr, "fastout-bench: cannot write the JSON: %s\n", error.c_str());
      outputs_ok = false;
    }
  }
  std::printf("\n");
  if (stop_requested)
    std::printf("RESULT: INTERRUPTED: the figures above are incomplete\n");
  else if (!outputs_ok)
    std::printf("RESULT: FAILED: an output differs from the reference or a contender failed\n");
  else if (!bars_ok || bars_absent > 0)
    std::printf("RESULT: outputs identical; %s%s%s%s\n", bars_ok ? "" : "a bar FAILED",
                !bars_ok && bars_absent > 0 ? ", and " : "",
                bars_absent > 0
                    ? fmt::format("{} bar{} could not be judged (ABSENT: a contender is not "
                                  "in this build)",
                                  bars_absent, bars_absent == 1 ? "" : "s")
                          .c_str()
                    : "",
                o.strict ? "" : " (exit status 0 without --strict)");
#if defined(_WIN32)
  else
    std::printf("RESULT: outputs identical (no bar is judged in the Windows build)\n");
#else
  else
    std::printf("RESULT: outputs identical; every bar that ran passed\n");
#endif
  std::fflush(stdout);

  if (stop_requested) {
    std::fprintf(stderr, "fastout-bench: interrupted\n");
    return exit_interrupted;
  }
  if (!outputs_ok) return exit_output_differs;
  if ((!bars_ok || bars_absent > 0) && o.strict) return exit_bar_failed;
  return exit_ok;
}

}  // namespace
}  // namespace fastout_bench

int main(int argc, char** argv) {
  using namespace fastout_bench;
#if defined(_WIN32)
  // The table as it is, "\n" and not "\r\n", into a file, a pipe or Wine's
  // terminal alike; a console shows either.
  _setmode(_fileno(stdout), _O_BINARY);
  _setmode(_fileno(stderr), _O_BINARY);
#endif
  options o = parse_options(argc, argv);
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fastout-bench: %s\n", e.what());
    return exit_output_differs;
  }
}
