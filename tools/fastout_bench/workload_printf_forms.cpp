// SPDX-License-Identifier: MIT
// W19 `printf_*`: the printf formats real programs write, with flags,
// widths and precisions beside literal text (issue 29), in three tables:
//
//   W19_xxd    xxd -i's "%s0x%02x", one call a byte, the separator "  ",
//              ", " or ",\n  " as xxd writes them (12 bytes a line)
//   W19_table  a table row, "%-12s %8.2f %6d\n"
//   W19_log    a log line, "%04d-%02d-%02dT%02d:%02d:%02d.%06d %-5s %s\n"
//
// Contenders: fprintf, and the printf engines of W6-W8
// (add_printf_engines(): fastout_printf, printf_limit, stb_sprintf,
// fmt_printf). printf_limit, {fmt}'s compiled format of the same text into
// a raw buffer, is the reference every output must match byte for byte.
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <memory>
#include <random>
#include <string>
#include <vector>

// fastout before {fmt}: see sinks.h.
#include <fastout/c_api.h>
#include <fastout/file.h>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "contenders.h"
#include "inputs.h"
#include "sinks.h"

namespace fastout_bench {
namespace {

// Adds fprintf and the printf engines for `printf_row(print, i)`, whose
// print(format, args...) is fprintf's, and the limit's `limit_row`.
template <std::size_t row_bound, typename PrintfRow, typename LimitRow>
std::vector<contender> printf_form_contenders(std::shared_ptr<const void> input, std::size_t count,
                                              PrintfRow printf_row, LimitRow limit_row,
                                              std::vector<absent_contender>& absent) {
  contender_list c(std::move(input), count);
  c.add<stdio_sink>("fprintf", [printf_row](std::FILE* f, std::size_t i) {
    printf_row([f](const char* format, auto... args) { std::fprintf(f, format, args...); }, i);
  });
  add_printf_engines<row_bound>(c, printf_row, limit_row);
  absent = c.take_absent();
  return c.take();
}

// ---------------------------------------------------------------- W19_xxd

struct xxd_input {
  std::vector<unsigned char> bytes;
};

// xxd -i's separator before byte i: none but the indent before the first,
// a new line every 12 bytes.
inline const char* xxd_separator(std::size_t i) {
  return i == 0 ? "  " : i % 12 == 0 ? ",\n  " : ", ";
}

// ",\n  0xff": 8 bytes.
constexpr std::size_t xxd_row_bound = 16;

}  // namespace

workload make_printf_xxd(const workload_options& options) {
  auto input = std::make_shared<xxd_input>();
  input->bytes.resize(options.count(4000000, 1000000));
  std::mt19937 random(19);
  for (auto& b : input->bytes) b = static_cast<unsigned char>(random() & 0xff);
  const unsigned char* const bytes = input->bytes.data();
  auto limit_row = [bytes](limit_sink::cursor& out, std::size_t i) {
    out.format_to(xxd_row_bound, FMT_COMPILE("{}0x{:02x}"), xxd_separator(i), bytes[i]);
  };
  workload w;
  w.bytes = formatted_size(input->bytes.size(), xxd_row_bound, [bytes](char* pos, std::size_t i) {
    return fmt::format_to(pos, FMT_COMPILE("{}0x{:02x}"), xxd_separator(i), bytes[i]);
  });
  w.reference = "printf_limit";
  w.contenders = printf_form_contenders<xxd_row_bound>(
      input, input->bytes.size(),
      [bytes](auto print, std::size_t i) {
        print("%s0x%02x", xxd_separator(i), static_cast<unsigned>(bytes[i]));
      },
      limit_row, w.absent);
  return w;
}

// -------------------------------------------------------------- W19_table

namespace {

struct table_row {
  std::uint32_t name_offset;  // into table_input::names, NUL-terminated
  double price;
  int qty;
};

struct table_input {
  std::vector<table_row> rows;
  std::string names;
};

// A name of at most 16 bytes (longer than the column now and then), a
// price below 1e7 (at most 10 with two decimals), a qty of at most 11, two
// spaces and a newline: 40 bytes at most.
constexpr std::size_t table_row_bound = 64;

}  // namespace

workload make_printf_table(const workload_options& options) {
  auto input = std::make_shared<table_input>();
  input->rows.resize(options.count(1000000, 250000));
  std::mt19937_64 random(1919);
  std::uniform_int_distribution<int> name_size(3, 16);
  std::uniform_int_distribution<int> letter(0, 25);
  std::uniform_int_distribution<std::int64_t> cents(-99999, 999999999);
  std::uniform_int_distribution<int> qty(-1000, 1000000);
  for (auto& row : input->rows) {
    row.name_offset = static_cast<std::uint32_t>(input->names.size());
    const int size = name_size(random);
    for (int k = 0; k < size; ++k) input->names += static_cast<char>('a' + letter(random));
    input->names += '\0';
    // Whole cents: never a tie between two roundings, so that every
    // library's "%.2f" agrees.
    row.price = static_cast<double>(cents(random)) / 100;
    row.qty = qty(random);
  }
  const table_row* const rows = input->rows.data();
  const char* const names = input->names.data();
  auto limit_row = [rows, names](limit_sink::cursor& out, std::size_t i) {
    const table_row& r = rows[i];
    out.format_to(table_row_bound, FMT_COMPILE("{:<12} {:8.2f} {:6}\n"), names + r.name_offset,
                  r.price, r.qty);
  };
  workload w;
  w.bytes =
      formatted_size(input->rows.size(), table_row_bound, [rows, names](char* pos, std::size_t i) {
        const table_row& r = rows[i];
        return fmt::format_to(pos, FMT_COMPILE("{:<12} {:8.2f} {:6}\n"), names + r.name_offset,
                              r.price, r.qty);
      });
  w.reference = "printf_limit";
  w.contenders = printf_form_contenders<table_row_bound>(
      input, input->rows.size(),
      [rows, names](auto print, std::size_t i) {
        const table_row& r = rows[i];
        print("%-12s %8.2f %6d\n", names + r.name_offset, r.price, r.qty);
      },
      limit_row, w.absent);
  return w;
}

// ---------------------------------------------------------------- W19_log

namespace {

struct log_row {
  std::int16_t year;
  std::int8_t month, day, hour, minute, second;
  std::uint8_t level;
  std::int32_t microsecond;
  std::uint16_t message;
};

constexpr const char* log_levels[] = {"INFO", "WARN", "ERROR", "DEBUG", "TRACE"};
constexpr const char* log_messages[] = {
    "connection accepted from 10.0.3.17:52144",
    "request GET /api/v2/items?page=3 200 in 4.2 ms",
    "cache miss for key user:48213:profile",
    "retrying upstream call (attempt 2 of 5)",
    "flushed 128 records to segment 000417",
    "worker 7 idle",
    "configuration reloaded",
    "slow query: SELECT id, name FROM accounts WHERE region = 'eu-west' took 812 ms",
    "session expired",
    "disk usage at 81% on /var/lib/data",
    "TLS handshake failed: certificate has expired",
    "queue depth 1024 exceeds soft limit 1000",
};

struct log_input {
  std::vector<log_row> rows;
};

// A timestamp of 26 bytes, a level of 5, the longest message (78), two
// spaces and a newline: 112 bytes at most.
constexpr std::size_t log_row_bound = 128;

}  // namespace

workload make_printf_log(const workload_options& options) {
  auto input = std::make_shared<log_input>();
  input->rows.resize(options.count(1000000, 250000));
  std::mt19937_64 random(191919);
  std::uniform_int_distribution<std::int64_t> gap(0, 50000);  // microseconds
  std::uniform_int_distribution<int> level(0, 4);
  std::uniform_int_distribution<int> message(
      0, static_cast<int>(sizeof log_messages / sizeof log_messages[0]) - 1);
  std::int64_t now = 1795910400LL * 1000000;  // 2026-11-29T00:00:00Z
  for (auto& row : input->rows) {
    now += gap(random);
    const std::time_t seconds = static_cast<std::time_t>(now / 1000000);
    std::tm t{};
    ::gmtime_r(&seconds, &t);
    row.year = static_cast<std::int16_t>(t.tm_year + 1900);
    row.month = static_cast<std::int8_t>(t.tm_mon + 1);
    row.day = static_cast<std::int8_t>(t.tm_mday);
    row.hour = static_cast<std::int8_t>(t.tm_hour);
    row.minute = static_cast<std::int8_t>(t.tm_min);
    row.second = static_cast<std::int8_t>(t.tm_sec);
    row.microsecond = static_cast<std::int32_t>(now % 1000000);
    row.level = static_cast<std::uint8_t>(level(random));
    row.message = static_cast<std::uint16_t>(message(random));
  }
  const log_row* const rows = input->rows.data();
  auto format_row = [rows](char* pos, std::size_t i) {
    const log_row& r = rows[i];
    return fmt::format_to(pos, FMT_COMPILE("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06} {:<5} {}\n"),
                          int{r.year}, int{r.month}, int{r.day}, int{r.hour}, int{r.minute},
                          int{r.second}, int{r.microsecond}, log_levels[r.level],
                          log_messages[r.message]);
  };
  auto limit_row = [format_row](limit_sink::cursor& out, std::size_t i) {
    out.append(log_row_bound, [format_row, i](char* pos) { return format_row(pos, i); });
  };
  workload w;
  w.bytes = formatted_size(input->rows.size(), log_row_bound, format_row);
  w.reference = "printf_limit";
  w.contenders = printf_form_contenders<log_row_bound>(
      input, input->rows.size(),
      [rows](auto print, std::size_t i) {
        const log_row& r = rows[i];
        print("%04d-%02d-%02dT%02d:%02d:%02d.%06d %-5s %s\n", int{r.year}, int{r.month}, int{r.day},
              int{r.hour}, int{r.minute}, int{r.second}, int{r.microsecond}, log_levels[r.level],
              log_messages[r.message]);
      },
      limit_row, w.absent);
  return w;
}

}  // namespace fastout_bench
