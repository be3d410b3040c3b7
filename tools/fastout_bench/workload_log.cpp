// SPDX-License-Identifier: MIT
// W14 `log`: 1,000,000 log lines (500,000 with --quick), compressed
// (issue 17). A line is what a server's log holds: a timestamp to the
// microsecond, a level, a module and a message with two integers and a
// double,
//
//   2024-05-01 08:00:01.234567 INFO  [storage] request 1000042 done in 5213 us, load 3.142
//
// about 86 bytes, 86.5 MB in all. The levels are mostly INFO, the request
// numbers rise, the durations spread from 10 us to 1 s: text that
// compresses as logs do, about 6x with gzip -6 and 5.3x with zstd -3.
// compressed.h has the contenders; every output must decompress to the
// text format_row writes.
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <vector>

// fastout before {fmt}: see sinks.h.
#include <fastout/file.h>

#include <fmt/compile.h>

#include "compressed.h"
#include "contenders.h"
#include "inputs.h"

// One line, for {fmt} and for printf: the same bytes, so the double has a
// fixed precision and the level is padded by both.
#define FASTOUT_BENCH_LOG_FORMAT \
  "2024-05-01 {:02}:{:02}:{:02}.{:06} {:<5} [{}] request {} done in {} us, load {:.3f}\n"
#define FASTOUT_BENCH_LOG_PRINTF \
  "2024-05-01 %02d:%02d:%02d.%06d %-5s [%s] request %d done in %d us, load %.3f\n"

namespace fastout_bench {
namespace {

const char* const levels[] = {"INFO", "DEBUG", "WARN", "ERROR"};
const char* const modules[] = {"http",      "storage",     "cache",   "auth",
                               "scheduler", "replication", "metrics", "gc"};

struct log_input {
  struct record {
    std::int64_t time;  // microseconds since midnight
    std::int32_t request;
    std::int32_t duration;  // microseconds
    double load;
    std::uint8_t level;   // into levels
    std::uint8_t module;  // into modules
  };
  std::vector<record> records;
};

// "2024-05-01 23:59:59.999999 ERROR [replication] request 2147483647 done in
// 2147483647 us, load 16.000\n" is 104 bytes: the most a line of this input
// takes (the hours stay below 24, the load below 16).
constexpr std::size_t log_row_bound = 128;

// The clock time of a record, as every contender splits it.
struct clock_time {
  int hours, minutes, seconds, micros;
};
inline clock_time split_time(std::int64_t time) {
  return {static_cast<int>(time / 3600000000), static_cast<int>(time / 60000000 % 60),
          static_cast<int>(time / 1000000 % 60), static_cast<int>(time % 1000000)};
}

std::shared_ptr<const log_input> make_log_input(std::size_t count) {
  auto input = std::make_shared<log_input>();
  input->records.resize(count);
  std::mt19937_64 random(14);  // fixed: the same lines in every run
  std::uniform_int_distribution<int> step(0, 150);
  std::uniform_int_distribution<int> percent(0, 99);
  std::uniform_int_distribution<int> module(0, 7);
  std::uniform_int_distribution<int> gap(1, 3);
  std::uniform_real_distribution<double> log_duration(std::log(10.0), std::log(1e6));
  std::uniform_real_distribution<double> load(0, 16);
  std::int64_t time = std::int64_t{8} * 3600000000;  // 08:00
  std::int32_t request = 1000000;
  for (auto& r : input->records) {
    time += step(random);
    request += gap(random);
    int p = percent(random);
    r.time = time;
    r.request = request;
    r.duration = static_cast<std::int32_t>(std::exp(log_duration(random)));
    r.load = load(random);
    r.level = static_cast<std::uint8_t>(p < 80 ? 0 : p < 92 ? 1 : p < 98 ? 2 : 3);
    r.module = static_cast<std::uint8_t>(module(random));
  }
  return input;
}

}  // namespace

workload make_log(const workload_options& options) {
  auto input = make_log_input(options.count(1000000, 500000));
  const log_input::record* const records = input->records.data();

  auto format_row = [records](char* pos, std::size_t i) {
    const log_input::record& r = records[i];
    clock_time t = split_time(r.time);
    return fmt::format_to(pos, FMT_COMPILE(FASTOUT_BENCH_LOG_FORMAT), t.hours, t.minutes, t.seconds,
                          t.micros, levels[r.level], modules[r.module], r.request, r.duration,
                          r.load);
  };
  auto printf_row = [records](auto print, std::size_t i) {
    const log_input::record& r = records[i];
    clock_time t = split_time(r.time);
    print(FASTOUT_BENCH_LOG_PRINTF, t.hours, t.minutes, t.seconds, t.micros, levels[r.level],
          modules[r.module], static_cast<int>(r.request), static_cast<int>(r.duration), r.load);
  };
  auto fastout_row = [records](fastout::file& out, std::size_t i) {
    const log_input::record& r = records[i];
    clock_time t = split_time(r.time);
    out.print(FMT_COMPILE(FASTOUT_BENCH_LOG_FORMAT), t.hours, t.minutes, t.seconds, t.micros,
              levels[r.level], modules[r.module], r.request, r.duration, r.load);
  };

  workload w;
  w.bytes = formatted_size(input->records.size(), log_row_bound, format_row);
  contender_list c(input, input->records.size());
  w.write_reference =
      add_compressed<log_row_bound>(c, w.bytes, format_row, printf_row, fastout_row);
  w.contenders = c.take();
  w.absent = c.take_absent();
  w.reference = "format_only";
  w.baseline = "gzwrite";
  return w;
}

}  // namespace fastout_bench

#undef FASTOUT_BENCH_LOG_FORMAT
#undef FASTOUT_BENCH_LOG_PRINTF
