// SPDX-License-Identifier: MIT
// W15 `table`: W6's int64 values as a tab-separated table of 10 columns,
// 1,000,000 rows (100,000 with --quick), compressed (issue 17): a data
// export whose every field is a full-range integer. Random digits compress
// only about 2x, and deflate works harder on them than on W14's log lines
// (zlib's gzip -6 at about 18 MB/s here, against 60 there). compressed.h
// has the contenders; every output must decompress to the text format_row
// writes.
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <memory>

// fastout before {fmt}: see sinks.h.
#include <fastout/file.h>

#include <fmt/compile.h>

#include "compressed.h"
#include "contenders.h"
#include "inputs.h"

// One row, for {fmt} and for printf.
#define FASTOUT_BENCH_TABLE_FORMAT "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n"
#define FASTOUT_BENCH_TABLE_PRINTF                                                         \
  "%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 \
  "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\n"

namespace fastout_bench {
namespace {

constexpr std::size_t table_columns = 10;
// Ten values and their separators: 10 * 21 = 210 bytes at most.
constexpr std::size_t table_row_bound = table_columns * (int_text_bound + 1) + 14;

}  // namespace

workload make_table(const workload_options& options) {
  const std::size_t rows = options.count(1000000, 100000);
  auto input = make_ints_input(rows * table_columns);
  const std::int64_t* const values = input->values.data();

  auto format_row = [values](char* pos, std::size_t i) {
    const std::int64_t* v = values + i * table_columns;
    return fmt::format_to(pos, FMT_COMPILE(FASTOUT_BENCH_TABLE_FORMAT), v[0], v[1], v[2], v[3],
                          v[4], v[5], v[6], v[7], v[8], v[9]);
  };
  auto printf_row = [values](auto print, std::size_t i) {
    const std::int64_t* v = values + i * table_columns;
    print(FASTOUT_BENCH_TABLE_PRINTF, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]);
  };
  auto fastout_row = [values](fastout::file& out, std::size_t i) {
    const std::int64_t* v = values + i * table_columns;
    out.print(FMT_COMPILE(FASTOUT_BENCH_TABLE_FORMAT), v[0], v[1], v[2], v[3], v[4], v[5], v[6],
              v[7], v[8], v[9]);
  };

  workload w;
  w.bytes = formatted_size(rows, table_row_bound, format_row);
  contender_list c(input, rows);
  w.write_reference =
      add_compressed<table_row_bound>(c, w.bytes, format_row, printf_row, fastout_row);
  w.contenders = c.take();
  w.absent = c.take_absent();
  w.reference = "format_only";
  w.baseline = "gzwrite";
  return w;
}

}  // namespace fastout_bench

#undef FASTOUT_BENCH_TABLE_FORMAT
#undef FASTOUT_BENCH_TABLE_PRINTF
