// SPDX-License-Identifier: MIT
#include "bars.h"

#include <cstdint>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join (in <fmt/format.h> before fmt 11)

#include <fastout/file.h>
#include <fastout/print.h>

#include "many_outputs.h"
#include "sinks.h"

namespace fastout_bench {
namespace {

enum class bar_kind {
  at_most_times,    // contender's time <= threshold * rival's time
  faster_at_least,  // rival's time >= threshold * contender's time
  write_calls,      // ceil(bytes / threshold) calls, give or take 1
  // The largest output of the contenders (compressed) is at most threshold
  // times the rival's.
  size_at_most,
  // The largest peak RSS of the contenders (W17, run in child processes)
  // is at most the rival's plus threshold bytes, or threshold bytes where
  // there is no rival.
  rss_at_most,
  // The most threads any of the contenders had is at most threshold.
  threads_at_most,
  // Every one of the contenders completed, with every output right
  // (W17_10k_fd and W17_10k_fd_hard, where a writer may fail).
  completes,
  // The contender's time is at most the rival's plus threshold seconds
  // (W18: a process of fastout's at most 100 us slower than stdio's).
  extra_time_at_most,
};

struct bar_spec {
  const char* workload;
  bar_kind kind;
  const char* contenders;  // comma-separated: the fastest of them is judged
  const char* rival;
  double threshold;
  // For a speed bar: the contender that shows how far the bar can be reached
  // at all (the hand-written limit). Its own ratio to the rival is printed
  // beside the bar, so a bar that even the limit misses says so.
  const char* reference = nullptr;
  // The bar holds only where the kernel and filesystem took RWF_DONTCACHE
  // (fastout::page_cache::drop); elsewhere it is SKIP, saying so.
  bool needs_dontcache = false;
  // Said after the bar's description, in parentheses: where its threshold
  // comes from, when that is not the issue's own figure.
  const char* about = nullptr;
};

// Issue 28's budget and pool (many_outputs.h): the library's own figures;
// a worker's codec state is still a stated estimate there.
const double budget = static_cast<double>(many_outputs_budget);
const double pool_threads = static_cast<double>(many_outputs_pool_threads());
const double budget_and_workers = static_cast<double>(
    many_outputs_budget + many_outputs_pool_threads() * many_outputs_worker_state);
constexpr const char* budget_about =
    "the budget is the library's, fastout::buffer_budget(): its default or FASTOUT_BUFFER_BUDGET";
constexpr const char* pool_about = "the pool's threads: fastout::compression_pool_threads()";

// The bars of issues 2, 3, 8, 9, 10, 11, 16, 17, 23 and 28. Later issues add theirs here.
const bar_spec bar_specs[] = {
    {"W1", bar_kind::at_most_times, "fastout", "limit", 1.5},
    {"W1", bar_kind::faster_at_least, "fastout", "fprintf", 5, "limit"},
    {"W1", bar_kind::faster_at_least, "fastout", "fmt_output_file", 3, "limit"},
    {"W2", bar_kind::at_most_times, "fastout,fastout_cursor", "limit", 1.3},
    {"W10", bar_kind::at_most_times, "fastout", "limit", 1.1},
    {"W1", bar_kind::write_calls, "fastout", nullptr,
     static_cast<double>(fastout::default_buffer_size)},
    {"W2", bar_kind::write_calls, "fastout", nullptr,
     static_cast<double>(fastout::default_buffer_size)},
    {"W2", bar_kind::write_calls, "fastout_cursor", nullptr,
     static_cast<double>(fastout::default_buffer_size)},
    // Issue 3: formatting, against {fmt}'s compiled formats into a raw buffer
    // (1.2x there; issue 8 asks 1.1x, on every {fmt} from 9 to 12).
    {"W1f", bar_kind::at_most_times, "fastout_compile", "fmt_compile_limit", 1.1},
    {"W6", bar_kind::at_most_times, "fastout_compile", "fmt_compile_limit", 1.1},
    {"W7", bar_kind::at_most_times, "fastout_compile", "fmt_compile_limit", 1.1},
    {"W8", bar_kind::at_most_times, "fastout_compile", "fmt_compile_limit", 1.1},
    {"W1f", bar_kind::faster_at_least, "fastout_compile", "fmt_output_file", 2,
     "fmt_compile_limit"},
    {"W6", bar_kind::faster_at_least, "fastout_compile", "fmt_output_file", 2, "fmt_compile_limit"},
    {"W7", bar_kind::faster_at_least, "fastout_compile", "fmt_output_file", 2, "fmt_compile_limit"},
    {"W8", bar_kind::faster_at_least, "fastout_compile", "fmt_output_file", 2, "fmt_compile_limit"},
    {"W6", bar_kind::faster_at_least, "fastout", "fmt_output_file", 1.2},
    {"W8", bar_kind::faster_at_least, "fastout", "fmt_output_file", 1.2},
    {"W6", bar_kind::at_most_times, "fastout_shift", "fastout_compile", 1.1},
    // Issue 11: safe replacement costs nothing over truncating in place, and
    // the fast durable mode beats a hand-written buffer plus fsync.
    {"W11", bar_kind::at_most_times, "fastout_replace", "fastout", 1.05},
    {"W12", bar_kind::faster_at_least, "fastout_durable", "limit_sync", 1.5, nullptr, true},
    // Issue 16: durable output while the caller formats. Until the writer
    // starts writeback while it goes on, fastout_sync waits for the whole
    // file at close(), as limit_sync does, and these bars fail.
    {"W11", bar_kind::at_most_times, "fastout_replace_sync", "fastout_replace", 1.5},
    {"W12f", bar_kind::at_most_times, "fastout_sync", "fastout", 1.15},
    {"W12f", bar_kind::faster_at_least, "fastout_sync", "limit_sync", 1.2},
    // Issue 10: iostreams and standard output.
    {"W3", bar_kind::faster_at_least, "fastout_ostream_deferred", "ofstream_endl", 6,
     "ofstream_1m"},
    {"W3", bar_kind::at_most_times, "fastout_ostream_deferred", "ofstream_1m", 1.05},
    {"W3", bar_kind::faster_at_least, "fastout", "ofstream_1m", 2},
    {"W1", bar_kind::faster_at_least, "fastout_stdout", "stdout_printf", 5, "limit"},
    {"W1", bar_kind::write_calls, "fastout_stdout", nullptr,
     static_cast<double>(fastout::default_buffer_size)},
    // Issue 9: the C API. fastout_putc() as fast as the limit's store;
    // fastout_write() of small pieces well ahead of fwrite and of a
    // memcpy, which is no limit there; fastout_printf() ahead of fprintf.
    {"W2", bar_kind::at_most_times, "fastout_c", "limit", 1.3},
    // fastout_putc() reloads the position after every byte, as put() does;
    // the cursor is the C API's answer, as fastout_cursor is C++'s.
    {"W2", bar_kind::at_most_times, "fastout_c_cursor", "limit", 1.3},
    {"W2", bar_kind::write_calls, "fastout_c", nullptr,
     static_cast<double>(fastout::default_buffer_size)},
    {"W2", bar_kind::write_calls, "fastout_c_cursor", nullptr,
     static_cast<double>(fastout::default_buffer_size)},
    // No reference: the limit is no limit on W9 (the next bar).
    {"W9", bar_kind::faster_at_least, "fastout_c", "fwrite_unlocked_256k", 3},
    {"W9", bar_kind::at_most_times, "fastout_c", "limit", 1.0},
    {"W7", bar_kind::faster_at_least, "fastout_printf", "fprintf", 2},
    // Issue 23: printf at compiled speed. printf_limit is {fmt}'s compiled
    // format of the same text into a raw buffer; fmt_printf is fmt::fprintf
    // and stb_sprintf stbsp_snprintf into a buffer, other printf engines.
    // A bar against stb_sprintf is SKIP where stb writes other bytes (its
    // "%.17g" is not correctly rounded).
    {"W6", bar_kind::at_most_times, "fastout_printf", "printf_limit", 1.3},
    {"W7", bar_kind::at_most_times, "fastout_printf", "printf_limit", 1.3},
    {"W8", bar_kind::at_most_times, "fastout_printf", "printf_limit", 1.3},
    {"W6", bar_kind::faster_at_least, "fastout_printf", "fprintf", 3, "printf_limit"},
    {"W6", bar_kind::faster_at_least, "fastout_printf", "fmt_printf", 1, "printf_limit"},
    {"W7", bar_kind::faster_at_least, "fastout_printf", "fmt_printf", 1, "printf_limit"},
    {"W8", bar_kind::faster_at_least, "fastout_printf", "fmt_printf", 1, "printf_limit"},
    {"W6", bar_kind::faster_at_least, "fastout_printf", "stb_sprintf", 1, "printf_limit"},
    {"W7", bar_kind::faster_at_least, "fastout_printf", "stb_sprintf", 1, "printf_limit"},
    {"W8", bar_kind::faster_at_least, "fastout_printf", "stb_sprintf", 1, "printf_limit"},
    // Issue 17: compressed output, zstd at level 3 and gzip at 6. The
    // fastout rows come with the writer's compression option; until then
    // they are absent and so are these bars. format_only, the text
    // formatted and never compressed or written, is the most any bar could
    // show.
    {"W14", bar_kind::at_most_times, "fastout_zstd_w0", "zstd_limit", 1.1, "format_only"},
    {"W14", bar_kind::faster_at_least, "fastout_zstd_w1", "zstd_limit", 1.3, "format_only"},
    {"W14", bar_kind::at_most_times, "fastout_zstd_w1", "popen_zstd", 1.1, "format_only"},
    {"W14", bar_kind::faster_at_least, "fastout_gzip_w1", "gzwrite", 2, "format_only"},
    {"W14", bar_kind::faster_at_least, "fastout_gzip_w2", "gzwrite", 3, "format_only"},
    {"W14", bar_kind::size_at_most, "fastout_gzip_w0,fastout_gzip_w1,fastout_gzip_w2", "gzwrite",
     1},
    {"W14", bar_kind::at_most_times, "fastout_gzip_w1", "htslib_bgzf_w1", 1, "format_only"},
    {"W14", bar_kind::at_most_times, "fastout_gzip_w2", "htslib_bgzf_w2", 1, "format_only"},
    {"W15", bar_kind::at_most_times, "fastout_zstd_w0", "zstd_limit", 1.1, "format_only"},
    {"W15", bar_kind::at_most_times, "fastout_zstd_w1", "popen_zstd", 1.1, "format_only"},
    {"W15", bar_kind::faster_at_least, "fastout_gzip_w1", "gzwrite", 2, "format_only"},
    {"W15", bar_kind::faster_at_least, "fastout_gzip_w2", "gzwrite", 3, "format_only"},
    {"W15", bar_kind::size_at_most, "fastout_gzip_w0,fastout_gzip_w1,fastout_gzip_w2", "gzwrite",
     1},
    {"W15", bar_kind::at_most_times, "fastout_gzip_w1", "htslib_bgzf_w1", 1, "format_only"},
    {"W15", bar_kind::at_most_times, "fastout_gzip_w2", "htslib_bgzf_w2", 1, "format_only"},
    // Issue 23: a flush costs what stdio's costs -- one write() of what is
    // pending -- so records flushed one at a time are no slower through
    // fastout_fprintf() and fastout_flush() than through fprintf and fflush.
    {"W16", bar_kind::at_most_times, "fastout_printf", "fprintf", 1.0, "limit"},
    // Issue 29: printf's fast path for the formats real programs write,
    // flags, widths and precisions among literal text.
    {"W19_xxd", bar_kind::faster_at_least, "fastout_printf", "fprintf", 2.5, "printf_limit"},
    {"W19_xxd", bar_kind::at_most_times, "fastout_printf", "printf_limit", 1.3},
    {"W19_table", bar_kind::faster_at_least, "fastout_printf", "fprintf", 2.5, "printf_limit"},
    {"W19_table", bar_kind::at_most_times, "fastout_printf", "printf_limit", 1.3},
    {"W19_log", bar_kind::faster_at_least, "fastout_printf", "fprintf", 2.5, "printf_limit"},
    {"W19_log", bar_kind::at_most_times, "fastout_printf", "printf_limit", 1.3},
    // Issue 28: many outputs from one thread. Its bars are set for the
    // writer with a memory budget, a shared pool of compression workers and
    // a way past the descriptor limit; until fastout has them most of these
    // fail, and their figures are the "before". fastout is the
    // faster of its C++ and C rows (W17_10k's --quick table has only the
    // C one), judged by the largest peak RSS of the two.
    {"W17_10k", bar_kind::at_most_times, "fastout,fastout_c", "fwrite", 0.6},
    {"W17_10k", bar_kind::rss_at_most, "fastout,fastout_c", "fwrite", budget, nullptr, false,
     budget_about},
    {"W17_1k", bar_kind::at_most_times, "fastout,fastout_c", "fwrite", 0.5},
    {"W17_1k", bar_kind::rss_at_most, "fastout,fastout_c", "fwrite", budget, nullptr, false,
     budget_about},
    // Whatever the key pattern: never slower than stdio with its 4 KiB
    // buffers, and within the budget over stdio's memory.
    {"W17_1k", bar_kind::at_most_times, "fastout,fastout_c", "fwrite_unlocked", 1},
    {"W17_10k", bar_kind::at_most_times, "fastout,fastout_c", "fwrite_unlocked", 1},
    {"W17_1k_even", bar_kind::at_most_times, "fastout,fastout_c", "fwrite_unlocked", 1},
    {"W17_1k_even", bar_kind::rss_at_most, "fastout,fastout_c", "fwrite_unlocked", budget, nullptr,
     false, budget_about},
    {"W17_10k_even", bar_kind::at_most_times, "fastout,fastout_c", "fwrite_unlocked", 1},
    {"W17_10k_even", bar_kind::rss_at_most, "fastout,fastout_c", "fwrite_unlocked", budget, nullptr,
     false, budget_about},
    // gzip: the writer with its default workers, the shared pool's.
    {"W17_1k_gz", bar_kind::threads_at_most, "fastout_gzip", nullptr, pool_threads + 1, nullptr,
     false, pool_about},
    {"W17_1k_gz", bar_kind::rss_at_most, "fastout_gzip", nullptr, budget_and_workers, nullptr,
     false, "the budget and a worker's codec state are stand-ins, many_outputs.h"},
    {"W17_1k_gz", bar_kind::at_most_times, "fastout_gzip", "gzwrite", 0.5},
    {"W17_1k_gz", bar_kind::at_most_times, "fastout_gzip", "htslib_bgzf_pool", 1},
    {"W17_1k_gz", bar_kind::size_at_most, "fastout_gzip", "gzwrite", 1},
    {"W17_10k_fd", bar_kind::completes, "fastout,fastout_c", nullptr, 0},
    {"W17_10k_fd_hard", bar_kind::completes, "fastout,fastout_c", nullptr, 0, nullptr, false,
     "the hard limit at 256 too"},
    // Issue 29: a C program through fastout starts as fast as with stdio,
    // libfastout-c static and shared, linked as docs/c-api.md says.
    {"W18", bar_kind::extra_time_at_most, "fastout_c_static", "stdio", 100e-6},
    {"W18", bar_kind::extra_time_at_most, "fastout_c_shared", "stdio", 100e-6},
};

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> items;
  std::istringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) items.push_back(item);
  return items;
}

// 64 MiB, or 66.5 MiB.
std::string mebibytes(double bytes) {
  const double mib = bytes / (1024.0 * 1024.0);
  return mib == static_cast<double>(static_cast<std::int64_t>(mib))
             ? fmt::format("{} MiB", mib)
             : fmt::format("{:.1f} MiB", mib);
}

std::string describe(const bar_spec& spec) {
  std::vector<std::string> names = split(spec.contenders);
  std::string who =
      names.size() == 1 ? names[0] : fmt::format("the fastest of {}", fmt::join(names, ", "));
  switch (spec.kind) {
    case bar_kind::at_most_times:
      return fmt::format("{} takes at most {}x the time of {}", who, spec.threshold, spec.rival);
    case bar_kind::faster_at_least:
      return fmt::format("{} is at least {}x faster than {}", who, spec.threshold, spec.rival);
    case bar_kind::write_calls:
      return fmt::format("{} makes ceil(bytes / {} KiB) write calls, give or take 1", who,
                         spec.threshold / 1024);
    case bar_kind::size_at_most:
      who = names.size() == 1 ? names[0]
                              : fmt::format("the largest output of {}", fmt::join(names, ", "));
      return spec.threshold == 1 ? fmt::format("{} is no larger than {}'s", who, spec.rival)
                                 : fmt::format("{} is at most {}x the size of {}'s", who,
                                               spec.threshold, spec.rival);
    case bar_kind::rss_at_most: {
      who = names.size() == 1 ? names[0] : fmt::format("the larger of {}", fmt::join(names, ", "));
      const std::string allowance = mebibytes(spec.threshold);
      return spec.rival != nullptr
                 ? fmt::format("{}'s peak RSS is at most {}'s + {}", who, spec.rival, allowance)
                 : fmt::format("{}'s peak RSS is at most {}", who, allowance);
    }
    case bar_kind::threads_at_most:
      return fmt::format("{} runs at most {} threads (the pool's {} and the caller)", who,
                         spec.threshold, spec.threshold - 1);
    case bar_kind::extra_time_at_most:
      return fmt::format("{} takes at most {:.0f} us more than {} a run", who, spec.threshold * 1e6,
                         spec.rival);
    case bar_kind::completes:
      return fmt::format(
          "{} {} under RLIMIT_NOFILE {}, every output right",
          names.size() == 1 ? names[0] : fmt::format("{}", fmt::join(names, " and ")),
          names.size() == 1 ? "completes" : "complete", many_outputs_descriptor_limit);
  }
  return {};
}

std::string described(const bar_spec& spec) {
  std::string text = describe(spec);
  if (spec.about != nullptr) text += fmt::format(" ({})", spec.about);
  return text;
}

const workload_result* find_workload(const std::vector<workload_result>& results,
                                     const std::string& id) {
  for (const auto& r : results)
    if (r.id == id) return &r;
  return nullptr;
}

// Adds the reference's own ratio to a speed bar: what the hand-written limit
// reaches against the same rival in the same run.
void note_reference(const bar_spec& spec, const workload_result& w, bar_result& bar) {
  if (spec.reference == nullptr) return;
  const contender_result* reference = w.find(spec.reference);
  double rival = w.median_of(spec.rival);
  if (reference == nullptr || !reference->ok() || rival <= 0) return;
  double seconds = reference->median_seconds();
  bar.reference = spec.reference;
  bar.reference_value = spec.kind == bar_kind::at_most_times ? seconds / rival : rival / seconds;
  bool reachable = spec.kind == bar_kind::at_most_times ? bar.reference_value <= spec.threshold
                                                        : bar.reference_value >= spec.threshold;
  bar.note += fmt::format("; {} itself: {:.2f}x{}{}", spec.reference, bar.reference_value,
                          spec.kind == bar_kind::faster_at_least ? " faster" : "",
                          reachable ? "" : ", so the bar is out of reach in this run");
}

// A bar that names a contender this build lacks cannot be judged: ABSENT,
// saying which and why. Returns whether it is.
bool check_absent(const bar_spec& spec, const workload_result& w, bar_result& bar) {
  std::vector<std::string> names = split(spec.contenders);
  std::string missing;
  std::size_t absent = 0;
  for (const std::string& name : names) {
    if (const std::string* why = w.absence_of(name)) {
      ++absent;
      if (missing.empty()) missing = name + " is absent: " + *why;
    }
  }
  const std::string* rival_why = spec.rival != nullptr ? w.absence_of(spec.rival) : nullptr;
  if (absent < names.size() && rival_why == nullptr) return false;
  bar.status = "ABSENT";
  bar.note =
      absent == names.size() ? missing : std::string(spec.rival) + " is absent: " + *rival_why;
  return true;
}

// The contender of the bar with the largest `figure(c)` among those that ran
// and wrote the right bytes, or nullptr; the note names the first that did
// not.
template <typename Figure>
const contender_result* largest(const bar_spec& spec, const workload_result& w, bar_result& bar,
                                Figure figure) {
  const contender_result* judged = nullptr;
  for (const std::string& name : split(spec.contenders)) {
    const contender_result* c = w.find(name);
    if (c == nullptr || !c->ok()) {
      if (w.absence_of(name) == nullptr && bar.note.empty())
        bar.note = name + (c == nullptr ? " did not run" : " failed");
      continue;
    }
    if (judged == nullptr || figure(*c) > figure(*judged)) judged = c;
  }
  return judged;
}

void check_size(const bar_spec& spec, const workload_result& w, bar_result& bar) {
  // The largest of the outputs that were checked and right.
  const contender_result* judged =
      largest(spec, w, bar, [](const contender_result& c) { return c.bytes; });
  const contender_result* rival = w.find(spec.rival);
  if (judged == nullptr) return;
  if (rival == nullptr || !rival->ok()) {
    bar.note = std::string(spec.rival) + " did not run or failed";
    return;
  }
  bar.note = judged->name;
  bar.value = static_cast<double>(judged->bytes) / static_cast<double>(rival->bytes);
  bar.measured =
      fmt::format("{:.3f}x ({} bytes against {})", bar.value, judged->bytes, rival->bytes);
  bar.status = bar.value <= spec.threshold ? "PASS" : "FAIL";
}

// rss_at_most and threads_at_most: the largest figure among the contenders
// that ran and wrote the right bytes.
void check_resources(const bar_spec& spec, const workload_result& w, bar_result& bar) {
  const bool rss = spec.kind == bar_kind::rss_at_most;
  auto figure = [rss](const contender_result& c) {
    return rss ? c.peak_rss_kib_of_runs() : c.threads_of_runs();
  };
  const contender_result* judged = largest(spec, w, bar, figure);
  if (judged == nullptr) return;
  bar.note = judged->name;
  if (figure(*judged) < 0) {
    bar.note += rss ? ": its peak RSS is unknown here" : ": its threads are unknown here";
    return;
  }
  if (!rss) {
    bar.value = static_cast<double>(figure(*judged));
    bar.measured = fmt::format("{} threads", figure(*judged));
    bar.status = bar.value <= spec.threshold ? "PASS" : "FAIL";
    return;
  }
  const double mine = static_cast<double>(figure(*judged)) * 1024;
  double allowed = spec.threshold;
  std::string rival_text;
  if (spec.rival != nullptr) {
    const contender_result* rival = w.find(spec.rival);
    if (rival == nullptr || !rival->ok() || figure(*rival) < 0) {
      bar.note = std::string(spec.rival) + " did not run or failed";
      return;
    }
    allowed += static_cast<double>(figure(*rival)) * 1024;
    rival_text =
        fmt::format(" against {} + {}", mebibytes(static_cast<double>(figure(*rival)) * 1024),
                    mebibytes(spec.threshold));
  }
  bar.value = mine;
  bar.threshold = allowed;
  bar.measured = fmt::format("{}{}", mebibytes(mine), rival_text);
  bar.status = mine <= allowed ? "PASS" : "FAIL";
}

// completes: every one of the contenders ran and wrote the right bytes.
void check_completes(const bar_spec& spec, const workload_result& w, bar_result& bar) {
  for (const std::string& name : split(spec.contenders)) {
    const contender_result* c = w.find(name);
    if (w.absence_of(name) != nullptr) continue;
    if (c == nullptr || (c->seconds.empty() && c->error.empty())) {
      bar.note = name + " did not run";
      return;
    }
    if (!c->ok()) {
      bar.measured = "failed";
      bar.note = name + ": " + (c->error.empty() ? std::string("its output is wrong") : c->error);
      return;
    }
  }
  bar.measured = "completed";
  bar.status = "PASS";
}

// extra_time_at_most: the difference of the medians (and of the fastest
// runs, for value_from_min).
void check_extra_time(const bar_spec& spec, const workload_result& w, bar_result& bar) {
  const contender_result* judged = w.find(spec.contenders);
  const contender_result* rival = w.find(spec.rival);
  if (judged == nullptr || !judged->ok()) {
    bar.note = std::string(spec.contenders) + " did not run or failed";
    return;
  }
  if (rival == nullptr || !rival->ok()) {
    bar.note = std::string(spec.rival) + " did not run or failed";
    return;
  }
  bar.note = judged->name;
  bar.value = judged->median_seconds() - rival->median_seconds();
  bar.value_from_min = judged->min_seconds() - rival->min_seconds();
  bar.threshold = spec.threshold;
  bar.measured = fmt::format("{:+.0f} us (fastest runs: {:+.0f} us)", bar.value * 1e6,
                             bar.value_from_min * 1e6);
  bar.status = bar.value <= spec.threshold ? "PASS" : "FAIL";
}

void check(const bar_spec& spec, const workload_result& w, bar_result& bar) {
  bar.status = "FAIL";
  if (check_absent(spec, w, bar)) return;
  if (spec.kind == bar_kind::size_at_most) {
    check_size(spec, w, bar);
    return;
  }
  if (spec.kind == bar_kind::rss_at_most || spec.kind == bar_kind::threads_at_most) {
    check_resources(spec, w, bar);
    return;
  }
  if (spec.kind == bar_kind::completes) {
    check_completes(spec, w, bar);
    return;
  }
  if (spec.kind == bar_kind::extra_time_at_most) {
    check_extra_time(spec, w, bar);
    return;
  }
  // The fastest of the contenders that ran and wrote the right bytes.
  const contender_result* judged = nullptr;
  for (const std::string& name : split(spec.contenders)) {
    if (w.absence_of(name) != nullptr) continue;  // judged among the others
    const contender_result* c = w.find(name);
    if (c == nullptr || !c->ok() || c->differs_as_expected()) {
      if (bar.note.empty())
        bar.note = name + (c == nullptr || (c->seconds.empty() && c->error.empty()) ? " did not run"
                           : c->differs_as_expected() ? " writes other bytes"
                                                      : " failed");
      continue;
    }
    if (judged == nullptr || c->median_seconds() < judged->median_seconds()) judged = c;
  }
  if (judged == nullptr) return;
  bar.note = judged->name;

  if (spec.kind == bar_kind::write_calls) {
    std::int64_t calls = judged->median_write_calls();
    auto buffer = static_cast<std::uint64_t>(spec.threshold);
    auto expected = static_cast<std::int64_t>((w.bytes + buffer - 1) / buffer);
    bar.value = static_cast<double>(calls);
    bar.threshold = static_cast<double>(expected);
    if (calls < 0) {
      bar.measured = "unknown";
      bar.note += ": /proc/self/io has no syscw";
      return;
    }
    bar.measured = fmt::format("{} calls (expected {})", calls, expected);
    bar.status = calls >= expected - 1 && calls <= expected + 1 ? "PASS" : "FAIL";
    return;
  }

  // A contender expected to write other bytes (contender::may_differ)
  // keeps its figures, but a bar against it would compare other work.
  const contender_result* rival_result = w.find(spec.rival);
  if (rival_result != nullptr && rival_result->differs_as_expected()) {
    bar.status = "SKIP";
    bar.note += fmt::format("; {} writes other bytes, so the bar does not apply", spec.rival);
    return;
  }
  double rival = w.median_of(spec.rival);
  if (rival <= 0) {
    bar.note = std::string(spec.rival) + " did not run or failed";
    return;
  }
  double mine = judged->median_seconds();
  double rival_min = w.find(spec.rival)->min_seconds();
  double mine_min = judged->min_seconds();
  bar.threshold = spec.threshold;
  if (spec.kind == bar_kind::at_most_times) {
    bar.value = mine / rival;
    bar.value_from_min = mine_min / rival_min;
    bar.measured = fmt::format("{:.2f}x (fastest runs: {:.2f}x)", bar.value, bar.value_from_min);
    bar.status = bar.value <= spec.threshold ? "PASS" : "FAIL";
  } else {
    bar.value = rival / mine;
    bar.value_from_min = rival_min / mine_min;
    bar.measured =
        fmt::format("{:.2f}x faster (fastest runs: {:.2f}x)", bar.value, bar.value_from_min);
    bar.status = bar.value >= spec.threshold ? "PASS" : "FAIL";
  }
  note_reference(spec, w, bar);
  if (spec.needs_dontcache && last_dontcache_support() != dontcache_support::taken) {
    bar.status = "SKIP";
    bar.note +=
        "; RWF_DONTCACHE is not supported by this kernel or filesystem (Linux 6.14 and "
        "later, on ext4, xfs, btrfs...), so " +
        bar.note.substr(0, bar.note.find(';')) + " wrote as fastout_sync does";
  }
}

}  // namespace

std::vector<bar_result> check_bars(const std::vector<workload_result>& results) {
  std::vector<bar_result> bars;
  for (const bar_spec& spec : bar_specs) {
    bar_result bar;
    bar.workload = spec.workload;
    bar.description = described(spec);
    bar.threshold = spec.threshold;
    const workload_result* w = find_workload(results, spec.workload);
    if (w == nullptr || w->interrupted || !w->left_out.empty()) {
      bar.status = "SKIP";
      bar.note = w == nullptr     ? "workload not run"
                 : w->interrupted ? "interrupted"
                                  : "workload left out: " + w->left_out;
    } else if (!w->error.empty()) {
      bar.status = "FAIL";
      bar.note = w->error;
    } else {
      check(spec, *w, bar);
    }
    bars.push_back(bar);
  }
  return bars;
}

}  // namespace fastout_bench
