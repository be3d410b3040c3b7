// SPDX-License-Identifier: MIT
// The W5 sweep as a PNG, drawn by gnuplot (Debian's gnuplot-nox): the data
// and the script are written into the work directory, and gnuplot runs as a
// child process once every timed run is over.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include <spawn.h>
#include <sys/wait.h>

#include <fmt/format.h>

#include <fastout/file.h>

#include "report.h"

extern char** environ;

namespace fastout_bench {
namespace {

// A string in gnuplot's double-quoted syntax.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '\n') {
      out += "\\n";
      continue;
    }
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

std::string size_label(std::size_t bytes) {
  if (bytes >= (std::size_t{1} << 20)) return fmt::format("{}M", bytes >> 20);
  return fmt::format("{}K", bytes >> 10);
}

// Runs `gnuplot script` and waits; returns an empty string or what failed.
std::string run_gnuplot(const std::string& script) {
  const char* argv[] = {"gnuplot", script.c_str(), nullptr};
  pid_t pid;
  int error = ::posix_spawnp(&pid, "gnuplot", nullptr, nullptr, const_cast<char**>(argv), environ);
  if (error != 0)
    return fmt::format("cannot run gnuplot: {} (Debian: apt-get install gnuplot-nox)",
                       std::strerror(error));
  int status;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return fmt::format("cannot wait for gnuplot: {}", std::strerror(errno));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "gnuplot failed (see above)";
  return {};
}

}  // namespace

std::string plot_sweep(const workload_result& sweep, const machine_info& machine, int runs,
                       const std::string& png_path, work_dir& dir) {
  std::string data = "# buffer_bytes median_ms min_ms max_ms\n";
  std::string tics;
  std::size_t points = 0;
  double low = 1e300, high = 0;  // the sweep's range, in ms
  for (const auto& c : sweep.contenders) {
    if (c.buffer_size == 0) continue;
    tics += fmt::format("{}{} {}", tics.empty() ? "" : ", ", quoted(size_label(c.buffer_size)),
                        c.buffer_size);
    if (!c.ok()) continue;
    data += fmt::format("{} {} {} {}\n", c.buffer_size, c.median_seconds() * 1e3,
                        c.min_seconds() * 1e3, c.max_seconds() * 1e3);
    low = std::min(low, c.min_seconds() * 1e3);
    high = std::max(high, c.max_seconds() * 1e3);
    ++points;
  }
  if (points == 0) return "no buffer size was measured";

  // The sweep's other contenders (W1's, measured in the same rounds) as
  // horizontal lines. The y axis spans the sweep and what is near it; a
  // contender far above it is still named in the key.
  for (const auto& c : sweep.contenders)
    if (c.buffer_size == 0 && c.ok()) low = std::min(low, c.median_seconds() * 1e3);
  const double y_min = low / 1.5, y_max = high * 3;
  // Log-scale tics at 1, 2 and 5 of every decade in view.
  std::string y_tics;
  for (double decade = std::pow(10.0, std::floor(std::log10(y_min))); decade <= y_max; decade *= 10)
    for (double step : {1.0, 2.0, 5.0})
      if (decade * step >= y_min && decade * step <= y_max)
        y_tics += fmt::format("{}{:g}", y_tics.empty() ? "" : ", ", decade * step);
  // Distinct colours, so that no two reference lines look alike.
  static const char* const colours[] = {"#e6194b", "#3cb44b", "#f58231", "#911eb4", "#46f0f0",
                                        "#f032e6", "#9a6324", "#808000", "#000075", "#fabebe",
                                        "#aaffc3", "#e6beff", "#ffd8b1", "#808080"};
  std::size_t next_colour = 0;
  std::string references;
  for (const auto& c : sweep.contenders) {
    if (c.buffer_size != 0 || !c.ok()) continue;
    double ms = c.median_seconds() * 1e3;
    std::string title =
        fmt::format("{}: {:.1f} ms{}", c.name, ms, ms > y_max ? " (off the chart)" : "");
    std::string style =
        c.name == "limit"
            ? std::string("lw 3 lc rgb 'black'")
            : fmt::format("lw 1.5 lc rgb '{}'",
                          colours[next_colour++ % (sizeof colours / sizeof colours[0])]);
    references += fmt::format(", \\\n  {} with lines {} title {}", ms, style, quoted(title));
  }

  const std::string data_path = dir.file("sweep.dat");
  const std::string script_path = dir.file("sweep.gp");
  std::string title = fmt::format(
      "fastout-bench W5 sweep: W1 through fastout by buffer size, median of {} runs\n{}, {} on {}",
      runs, machine.cpu, machine.filesystem, machine.kernel.substr(0, machine.kernel.find(' ', 6)));
  std::string script = fmt::format(
      "set terminal png noenhanced size 1200,720 font ',10'\n"
      "set output {output}\n"
      "set title {title}\n"
      "set logscale x 2\n"
      "set logscale y 10\n"
      "set yrange [{y_min}:{y_max}]\n"
      "set ytics ({y_tics})\n"
      "set xtics ({tics}) rotate by -45\n"
      "set xlabel 'fastout buffer size (log2 scale)'\n"
      "set ylabel 'time for W1, ms (median; bars from min to max; log scale)'\n"
      "set grid\n"
      "set key outside right top\n"
      "set arrow from {default}, graph 0 to {default}, graph 1 nohead lc rgb 'gray60'\n"
      "set label 'default' at {default}, graph 0.97 offset 0.5,0 tc rgb 'gray40'\n"
      "plot {data} using 1:2:3:4 with yerrorlines lw 2.5 pt 7 lc rgb '#0060c0' "
      "title 'fastout by buffer size'{references}\n",
      fmt::arg("output", quoted(png_path)), fmt::arg("title", quoted(title)),
      fmt::arg("tics", tics), fmt::arg("default", fastout::default_buffer_size),
      fmt::arg("data", quoted(data_path)), fmt::arg("references", references),
      fmt::arg("y_min", y_min), fmt::arg("y_max", y_max), fmt::arg("y_tics", y_tics));
  std::string error = write_text_file(data_path, data);
  if (error.empty()) error = write_text_file(script_path, script);
  if (error.empty()) error = run_gnuplot(script_path);
  dir.remove(data_path);
  dir.remove(script_path);
  return error;
}

}  // namespace fastout_bench
