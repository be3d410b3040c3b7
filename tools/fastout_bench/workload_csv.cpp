// SPDX-License-Identifier: MIT
// W8 `csv`: rows of id,price,name,qty: an int64, a double with 2 decimals, a
// string of 5 to 20 letters and an int32, "{},{:.2f},{},{}\n", by the
// contenders of W1f, and the printf engines with "%lld,%.2f,%.*s,%d\n"
// (add_printf_engines(); printf_limit's is the reference's format).
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

// fastout before {fmt}: see sinks.h.
#include <fastout/file.h>

#include <fmt/compile.h>
#include <fmt/os.h>

#include "contenders.h"
#include "inputs.h"
#include "sinks.h"

namespace fastout_bench {
namespace {

struct csv_row {
  std::int64_t id;
  double price;
  std::uint32_t name_offset;  // into csv_input::names
  std::uint32_t name_size;
  std::int32_t qty;
};

struct csv_input {
  std::vector<csv_row> rows;
  std::string names;  // every row's name, one after another
};

// An id of 20 bytes, a price below 1e9 (at most 12 with two decimals), a name
// of 20, a qty of 11, three commas and a newline: 67 bytes at most.
constexpr std::size_t csv_row_bound = 80;

std::vector<contender> csv_contenders(const std::shared_ptr<const csv_input>& input,
                                      std::vector<absent_contender>& absent) {
  const csv_row* const rows = input->rows.data();
  const char* const names = input->names.data();

  auto print = [rows, names](auto& out, std::size_t i) {
    const csv_row& r = rows[i];
    out.print("{},{:.2f},{},{}\n", r.id, r.price,
              std::string_view(names + r.name_offset, r.name_size), r.qty);
  };
  auto compile_limit = [rows, names](limit_sink::cursor& out, std::size_t i) {
    const csv_row& r = rows[i];
    out.format_to(csv_row_bound, FMT_COMPILE("{},{:.2f},{},{}\n"), r.id, r.price,
                  std::string_view(names + r.name_offset, r.name_size), r.qty);
  };
  auto compile = [rows, names](fastout::file& out, std::size_t i) {
    const csv_row& r = rows[i];
    out.print(FMT_COMPILE("{},{:.2f},{},{}\n"), r.id, r.price,
              std::string_view(names + r.name_offset, r.name_size), r.qty);
  };

  contender_list c(input, input->rows.size());
  c.add<stdio_sink>("fprintf", [rows, names](std::FILE* f, std::size_t i) {
    const csv_row& r = rows[i];
    std::fprintf(f, "%" PRId64 ",%.2f,%.*s,%" PRId32 "\n", r.id, r.price,
                 static_cast<int>(r.name_size), names + r.name_offset, r.qty);
  });
  c.add_with_setup<ofstream_sink>(
      "ofstream", [](std::ofstream& out) { out << std::fixed << std::setprecision(2); },
      [rows, names](std::ofstream& out, std::size_t i) {
        const csv_row& r = rows[i];
        out << r.id << ',' << r.price << ',' << std::string_view(names + r.name_offset, r.name_size)
            << ',' << r.qty << '\n';
      });
  add_formatting(c, print, compile_limit, compile);
  add_printf_engines<csv_row_bound>(
      c,
      [rows, names](auto printf_call, std::size_t i) {
        const csv_row& r = rows[i];
        printf_call("%lld,%.2f,%.*s,%d\n", static_cast<long long>(r.id), r.price,
                    static_cast<int>(r.name_size), names + r.name_offset, static_cast<int>(r.qty));
      },
      compile_limit);
  absent = c.take_absent();
  return c.take();
}

}  // namespace

workload make_csv(const workload_options& options) {
  auto input = std::make_shared<csv_input>();
  input->rows.resize(options.count(1000000, 500000));
  std::mt19937_64 random(8);
  std::uniform_int_distribution<int> id_gap(1, 1000);
  std::uniform_int_distribution<std::int64_t> cents(1, 9999999);  // 0.01 to 99999.99
  std::uniform_int_distribution<int> name_size(5, 20);
  std::uniform_int_distribution<int> letter(0, 51);
  std::uniform_int_distribution<std::int32_t> qty(-1000, 100000);
  static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  std::int64_t id = 1000000000000;
  for (auto& row : input->rows) {
    id += id_gap(random);
    row.id = id;
    // Whole cents: never a tie between two roundings, so that every
    // library's "%.2f" agrees.
    row.price = static_cast<double>(cents(random)) / 100;
    row.name_offset = static_cast<std::uint32_t>(input->names.size());
    row.name_size = static_cast<std::uint32_t>(name_size(random));
    for (std::uint32_t k = 0; k < row.name_size; ++k) input->names += letters[letter(random)];
    row.qty = qty(random);
  }
  const csv_row* const rows = input->rows.data();
  const char* const names = input->names.data();
  workload w;
  w.bytes =
      formatted_size(input->rows.size(), csv_row_bound, [rows, names](char* pos, std::size_t i) {
        const csv_row& r = rows[i];
        return fmt::format_to(pos, FMT_COMPILE("{},{:.2f},{},{}\n"), r.id, r.price,
                              std::string_view(names + r.name_offset, r.name_size), r.qty);
      });
  w.reference = "fmt_compile_limit";
  w.contenders = csv_contenders(input, w.absent);
  return w;
}

}  // namespace fastout_bench
