// SPDX-License-Identifier: MIT
// What the driver prints: the table, the bars and the JSON (report.h).
#include "report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>

#include <fmt/format.h>

#include <fastout/file.h>

namespace fastout_bench {
namespace {

// 1000000 as "1,000,000".
std::string with_commas(std::uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string format_time(double seconds) {
  if (seconds >= 10) return fmt::format("{:.1f} s", seconds);
  if (seconds >= 1) return fmt::format("{:.2f} s", seconds);
  if (seconds >= 0.1) return fmt::format("{:.0f} ms", seconds * 1e3);
  if (seconds >= 0.01) return fmt::format("{:.1f} ms", seconds * 1e3);
  return fmt::format("{:.2f} ms", seconds * 1e3);
}

// This contender's time over `other`'s, or 0 if either is missing.
double ratio(const workload_result& w, const contender_result& c, const std::string& other) {
  if (other.empty() || !c.ok()) return 0;
  double base = w.median_of(other);
  return base > 0 ? c.median_seconds() / base : 0;
}

std::string format_ratio(double r) { return r > 0 ? fmt::format("{:.2f}", r) : "-"; }

std::string output_status(const contender_result& c) {
  if (c.failed_as_allowed()) return "failed";
  if (!c.error.empty()) return "FAILED";
  if (!c.checked) return "not run";
  if (c.format == output_format::none) return "discarded";
  if (c.differs_as_expected()) return "differs";
  return c.identical ? "identical" : "DIFFERS";
}

bool is_compressed(output_format format) {
  return format != output_format::plain && format != output_format::none;
}

const char* format_label(output_format format) {
  switch (format) {
    case output_format::plain: return "plain";
    case output_format::zstd: return "zstd";
    case output_format::gzip: return "gzip";
    case output_format::bgzf: return "bgzf";
    case output_format::none: return "none";
  }
  return "plain";
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20)
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(ch)));
        else
          out += ch;
    }
  }
  return out + "\"";
}

std::string json_number(double x) { return std::isfinite(x) ? fmt::format("{}", x) : "null"; }

std::string json_ratio(double r) { return r > 0 ? json_number(r) : "null"; }

}  // namespace

void print_header(const machine_info& machine, const run_settings& settings) {
  std::printf("fastout-bench: fastout against stdio, iostreams, {fmt} and a hand-written limit\n");
  for (const auto& field : machine.fields())
    if (field.label != nullptr) std::printf("  %-14s %s\n", field.label, field.value.c_str());
  if (!machine.optimized)
    std::printf("  ** this driver was built without optimization: its times mean nothing **\n");
  std::printf(
      "  %-14s median of %d run%s%s; each run opens, writes and closes a new file;\n"
      "  %-14s contenders take turns, each round starting one later\n",
      "method", settings.runs, settings.runs == 1 ? "" : "s", settings.quick ? " (--quick)" : "",
      "");
  std::printf(
      "  %-14s /fprintf and /limit are the time over that contender's: below 1 is faster;\n"
      "  %-14s %s;\n"
      "  %-14s the JSON also has every run's time, and page faults per run\n",
      "columns", "", write_calls_description().c_str(), "");
#if !defined(_WIN32)
  if (settings.child_runs) std::printf("  %-14s %s\n", "W17", child_measures_description().c_str());
#endif
  std::printf("\n");
  std::fflush(stdout);
}

void print_workload(const workload_result& w, int runs) {
  if (!w.left_out.empty()) {
    std::printf("%s %s: %s\n  left out: %s\n\n", w.id.c_str(), w.name.c_str(), w.summary.c_str(),
                w.left_out.c_str());
    std::fflush(stdout);
    return;
  }
  // W17's tables: how many files, and their own number of runs.
  std::printf("%s %s: %s, %s bytes%s\n", w.id.c_str(), w.name.c_str(), w.summary.c_str(),
              with_commas(w.bytes).c_str(),
              w.outputs > 0 ? fmt::format(" in {} files, {} run{}", with_commas(w.outputs), runs,
                                          runs == 1 ? "" : "s")
                                  .c_str()
                            : "");
  if (!w.error.empty()) {
    std::printf("  not measured: %s\n\n", w.error.c_str());
    std::fflush(stdout);
    return;
  }
  // The ratio columns are as wide as their titles; a compressed workload
  // has a column for the size of each file (its MB/s count the text).
  const std::string baseline_title = w.baseline.empty() ? "" : "/" + w.baseline;
  const std::string reference_title = "/" + w.reference;
  const int baseline_width = std::max(9, static_cast<int>(baseline_title.size()));
  const int reference_width = std::max(8, static_cast<int>(reference_title.size()));
  const bool compressed = w.compressed();
  // Runs in child processes (W17) have their peak resident set and threads.
  const bool child = w.in_child;
  std::printf("  %-22s %10s %10s %*s %*s %12s %7s%s%s  %s\n", "contender", "median", "min",
              baseline_width, baseline_title.c_str(), reference_width, reference_title.c_str(),
              "write calls", "MB/s",
              child ? fmt::format(" {:>10} {:>7}", "peak RSS", "threads").c_str() : "",
              compressed ? "    compressed" : "", "output");
  for (const auto& c : w.contenders) {
    std::string median = c.seconds.empty() ? "-" : format_time(c.median_seconds());
    std::string fastest = c.seconds.empty() ? "-" : format_time(c.min_seconds());
    std::int64_t calls = c.median_write_calls();
    std::string speed =
        c.ok() ? fmt::format("{:.0f}",
                             static_cast<double>(w.bytes_per_run > 0 ? w.bytes_per_run : w.bytes) /
                                 c.median_seconds() / 1e6)
               : "-";
    std::string size;
    if (compressed)
      size = fmt::format(" {:>13}", is_compressed(c.format) && c.checked && c.error.empty()
                                        ? with_commas(c.bytes)
                                        : std::string("-"));
    std::string resources;
    if (child) {
      const std::int64_t rss = c.peak_rss_kib_of_runs();
      const std::int64_t threads = c.threads_of_runs();
      resources =
          fmt::format(" {:>10} {:>7}",
                      c.seconds.empty() ? "-"
                      : rss >= 0 ? fmt::format("{:.1f} MiB", static_cast<double>(rss) / 1024.0)
                                 : "?",
                      c.seconds.empty() ? "-"
                      : threads >= 0    ? std::to_string(threads)
                                        : "?");
    }
    std::printf("  %-22s %10s %10s %*s %*s %12s %7s%s%s  %s\n", c.name.c_str(), median.c_str(),
                fastest.c_str(), baseline_width,
                w.baseline.empty() ? "" : format_ratio(ratio(w, c, w.baseline)).c_str(),
                reference_width, format_ratio(ratio(w, c, w.reference)).c_str(),
                calls >= 0 ? std::to_string(calls).c_str() : "?", speed.c_str(), resources.c_str(),
                size.c_str(), output_status(c).c_str());
  }
  for (const auto& c : w.contenders) {
    if (c.failed_as_allowed())
      std::printf("  %s failed, as it may here: %s\n", c.name.c_str(), c.error.c_str());
    else if (!c.error.empty())
      std::printf("  %s failed: %s\n", c.name.c_str(), c.error.c_str());
    else if (c.differs_as_expected())
      std::printf(
          "  %s differs, as it may: %s; its figures are kept, and no bar is judged "
          "against it\n",
          c.name.c_str(),
          c.difference.empty() ? fmt::format("its bytes are not {}'s", w.reference).c_str()
                               : c.difference.c_str());
    else if (c.checked && !c.identical && !c.difference.empty())
      std::printf("  %s wrote %llu bytes: %s\n", c.name.c_str(),
                  static_cast<unsigned long long>(c.bytes), c.difference.c_str());
    else if (c.checked && !c.identical)
      std::printf("  %s wrote %llu bytes that differ from %s's\n", c.name.c_str(),
                  static_cast<unsigned long long>(c.bytes), w.reference.c_str());
    else if (!c.seconds.empty() && static_cast<int>(c.seconds.size()) < runs)
      std::printf("  %s: only %zu of %d runs\n", c.name.c_str(), c.seconds.size(), runs);
  }
  // Absent contenders, those with the same reason on one line.
  std::vector<bool> listed(w.absent.size(), false);
  for (std::size_t i = 0; i < w.absent.size(); ++i) {
    if (listed[i]) continue;
    std::string names;
    for (std::size_t j = i; j < w.absent.size(); ++j) {
      if (listed[j] || w.absent[j].reason != w.absent[i].reason) continue;
      listed[j] = true;
      names += (names.empty() ? "" : ", ") + w.absent[j].name;
    }
    std::printf("  absent: %s: %s\n", names.c_str(), w.absent[i].reason.c_str());
  }
  if (w.interrupted) std::printf("  interrupted\n");
  std::printf("\n");
  std::fflush(stdout);
}

void print_bars(const std::vector<bar_result>& bars) {
  std::printf("Bars (ratios of medians from this run; a bar fails only on those):\n");
  for (const auto& b : bars) {
    std::string figure = b.measured.empty() ? "" : ": " + b.measured;
    std::string note = b.note.empty() ? "" : " [" + b.note + "]";
    std::printf("  %-4s %-4s %s%s%s\n", b.status.c_str(), b.workload.c_str(), b.description.c_str(),
                figure.c_str(), note.c_str());
  }
  std::fflush(stdout);
}

std::string write_json(const std::string& path, const machine_info& machine,
                       const run_settings& settings, const std::vector<workload_result>& results,
                       const std::vector<bar_result>& bars, const std::string& plot_path) {
  std::string out = "{\n  \"tool\": \"fastout-bench\",\n";
  out += fmt::format("  \"settings\": {{\"runs\": {}, \"quick\": {}, \"workloads\": [",
                     settings.runs, settings.quick);
  for (std::size_t i = 0; i < settings.workloads.size(); ++i)
    out += (i > 0 ? ", " : "") + json_string(settings.workloads[i]);
  out += "]},\n  \"machine\": {";
  bool first = true;
  for (const auto& field : machine.fields()) {
    if (field.key == nullptr) continue;
    out += fmt::format("{}\n    {}: {}", first ? "" : ",", json_string(field.key),
                       field.is_number ? field.value : json_string(field.value));
    first = false;
  }
  out += "\n  },\n  \"workloads\": [";
  first = true;
  for (const auto& w : results) {
    std::string absent;
    for (std::size_t i = 0; i < w.absent.size(); ++i)
      absent += fmt::format("{}{{\"contender\": {}, \"reason\": {}}}", i > 0 ? ", " : "",
                            json_string(w.absent[i].name), json_string(w.absent[i].reason));
    out += fmt::format(
        "{}\n    {{\"id\": {}, \"name\": {}, \"summary\": {}, \"bytes\": {}, "
        "\"bytes_per_run\": {}, \"outputs\": {}, \"runs\": {}, \"reference\": {}, "
        "\"baseline\": {}, \"interrupted\": {}, \"error\": {}, \"left_out\": {}, "
        "\"absent\": [{}]}}",
        first ? "" : ",", json_string(w.id), json_string(w.name), json_string(w.summary), w.bytes,
        w.bytes_per_run > 0 ? w.bytes_per_run : w.bytes, w.outputs > 0 ? w.outputs : 1, w.runs,
        json_string(w.reference), w.baseline.empty() ? "null" : json_string(w.baseline),
        w.interrupted, w.error.empty() ? "null" : json_string(w.error),
        w.left_out.empty() ? "null" : json_string(w.left_out), absent);
    first = false;
  }
  out += "\n  ],\n  \"results\": [";
  first = true;
  for (const auto& w : results) {
    for (const auto& c : w.contenders) {
      std::string times;
      for (std::size_t i = 0; i < c.seconds.size(); ++i)
        times += (i > 0 ? ", " : "") + json_number(c.seconds[i]);
      std::int64_t calls = c.median_write_calls();
      out += fmt::format(
          "{}\n    {{\"workload\": {}, \"workload_name\": {}, \"contender\": {}, "
          "\"median_s\": {}, \"min_s\": {}, \"max_s\": {}, \"times_s\": [{}], "
          "\"write_calls\": {}, \"page_faults\": {}, \"peak_rss_kib\": {}, \"threads\": {}, "
          "\"bytes\": {}, \"identical\": {}, \"may_differ\": {}, \"may_fail\": {}, "
          "\"ratio_to_baseline\": {}, \"ratio_to_limit\": {}, \"buffer_size\": {}, "
          "\"format\": {}, \"compressed_bytes\": {}, \"difference\": {}, \"error\": {}}}",
          first ? "" : ",", json_string(w.id), json_string(w.name), json_string(c.name),
          c.seconds.empty() ? "null" : json_number(c.median_seconds()),
          c.seconds.empty() ? "null" : json_number(c.min_seconds()),
          c.seconds.empty() ? "null" : json_number(c.max_seconds()), times,
          calls >= 0 ? std::to_string(calls) : "null",
          c.median_page_faults() >= 0 ? std::to_string(c.median_page_faults()) : "null",
          c.peak_rss_kib_of_runs() >= 0 ? std::to_string(c.peak_rss_kib_of_runs()) : "null",
          c.threads_of_runs() >= 0 ? std::to_string(c.threads_of_runs()) : "null", c.bytes,
          c.checked && c.identical, c.may_differ, c.may_fail, json_ratio(ratio(w, c, w.baseline)),
          json_ratio(ratio(w, c, w.reference)),
          c.buffer_size > 0 ? std::to_string(c.buffer_size) : "null",
          json_string(format_label(c.format)),
          is_compressed(c.format) && c.checked ? std::to_string(c.bytes) : "null",
          c.difference.empty() ? "null" : json_string(c.difference),
          c.error.empty() ? "null" : json_string(c.error));
      first = false;
    }
  }
  out += "\n  ],\n  \"bars\": [";
  first = true;
  for (const auto& b : bars) {
    out += fmt::format(
        "{}\n    {{\"workload\": {}, \"description\": {}, \"status\": {}, \"pass\": {}, "
        "\"measured\": {}, \"value\": {}, \"value_from_min\": {}, \"threshold\": {}, "
        "\"reference\": {}, \"reference_value\": {}, \"note\": {}}}",
        first ? "" : ",", json_string(b.workload), json_string(b.description),
        json_string(b.status), b.status == "PASS", json_string(b.measured), json_number(b.value),
        b.value_from_min > 0 ? json_number(b.value_from_min) : "null", json_number(b.threshold),
        b.reference.empty() ? "null" : json_string(b.reference),
        b.reference.empty() ? "null" : json_number(b.reference_value), json_string(b.note));
    first = false;
  }
  out += fmt::format("\n  ],\n  \"plot\": {}\n}}\n",
                     plot_path.empty() ? "null" : json_string(plot_path));
  return write_text_file(path, out);
}

std::string write_text_file(const std::string& path, const std::string& text) {
  try {
    fastout::file file(path);
    file.write(text);
    file.close();
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

}  // namespace fastout_bench
