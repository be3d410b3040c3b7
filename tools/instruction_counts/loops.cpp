// SPDX-License-Identifier: MIT
// fastout-loops: the loops of the driver's fastout contenders whose
// instruction counts a change must keep (W1, W2, W6, W7, W8, W9, W19), each in a
// function of its own that valgrind's callgrind can count alone
// (scripts/instruction-counts runs them). The rows are the driver's
// (tools/fastout_bench/workload_*.cpp), the inputs made the same way, the
// output /dev/null, so that a count depends only on the code: compare two
// versions of fastout by instructions, not seconds (HACKING.md,
// "Benchmarks").
//
//   fastout-loops LOOP [COUNT]     runs one loop COUNT times (default 1,000,000)
//   fastout-loops --list           names the loops
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/compile.h>

#include <fastout/c_api.h>
#include <fastout/fastout.h>

namespace {

constexpr const char* output_path = "/dev/null";

// Each loop_* is the whole timed part of one contender: callgrind's
// --toggle-collect counts only inside it. noinline keeps it a function of
// its own; the row inside is inlined as in the driver.
#define FASTOUT_LOOP __attribute__((noinline))

FASTOUT_LOOP void loop_w1_fastout(fastout::file& out, std::size_t count) {
  const std::string_view text = "test data";
  for (std::size_t i = 0; i < count; ++i) {
    out.write(text);
    out.put('\n');
  }
}

FASTOUT_LOOP void loop_w2_fastout(fastout::file& out, std::size_t count, const char* pattern) {
  for (std::size_t i = 0; i < count; ++i) out.put(pattern[i & 63]);
}

FASTOUT_LOOP void loop_w2_fastout_c(fastout_file* out, std::size_t count, const char* pattern) {
  for (std::size_t i = 0; i < count; ++i) fastout_putc(pattern[i & 63], out);
}

FASTOUT_LOOP void loop_w6_fastout(fastout::file& out, const std::int64_t* values,
                                  std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) out.print("{}\n", values[i]);
}

FASTOUT_LOOP void loop_w6_fastout_compile(fastout::file& out, const std::int64_t* values,
                                          std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) out.print(FMT_COMPILE("{}\n"), values[i]);
}

FASTOUT_LOOP void loop_w6_fastout_printf(fastout_file* out, const std::int64_t* values,
                                         std::size_t count) {
  for (std::size_t i = 0; i < count; ++i)
    fastout_fprintf(out, "%lld\n", static_cast<long long>(values[i]));
}

FASTOUT_LOOP void loop_w7_fastout_printf(fastout_file* out, const double* values,
                                         std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) fastout_fprintf(out, "%.17g\n", values[i]);
}

// W8's row, and W19's three formats (workload_csv.cpp,
// workload_printf_forms.cpp), on inputs made as the driver makes them.
struct printf_rows {
  std::vector<std::int64_t> ints;
  std::vector<double> prices;  // whole cents
  std::vector<const char*> names;
  std::string name_text;
};

FASTOUT_LOOP void loop_w8_fastout_printf(fastout_file* out, const printf_rows& rows,
                                         std::size_t count) {
  for (std::size_t i = 0; i < count; ++i)
    fastout_fprintf(out, "%lld,%.2f,%.*s,%d\n", static_cast<long long>(rows.ints[i]),
                    rows.prices[i], static_cast<int>(std::strlen(rows.names[i])), rows.names[i],
                    static_cast<int>(rows.ints[i] >> 44));
}

FASTOUT_LOOP void loop_w19_xxd_printf(fastout_file* out, const printf_rows& rows,
                                      std::size_t count) {
  for (std::size_t i = 0; i < count; ++i)
    fastout_fprintf(out, "%s0x%02x",
                    i == 0        ? "  "
                    : i % 12 == 0 ? ",\n  "
                                  : ", ",
                    static_cast<unsigned>(rows.ints[i] & 0xff));
}

FASTOUT_LOOP void loop_w19_table_printf(fastout_file* out, const printf_rows& rows,
                                        std::size_t count) {
  for (std::size_t i = 0; i < count; ++i)
    fastout_fprintf(out, "%-12s %8.2f %6d\n", rows.names[i], rows.prices[i],
                    static_cast<int>(rows.ints[i] >> 44));
}

FASTOUT_LOOP void loop_w19_log_printf(fastout_file* out, const printf_rows& rows,
                                      std::size_t count) {
  static const char* const levels[] = {"INFO", "WARN", "ERROR", "DEBUG", "TRACE"};
  for (std::size_t i = 0; i < count; ++i) {
    const auto v = static_cast<std::uint64_t>(rows.ints[i]);
    fastout_fprintf(out, "%04d-%02d-%02dT%02d:%02d:%02d.%06d %-5s %s\n", 2026,
                    static_cast<int>(v % 12 + 1), static_cast<int>(v % 28 + 1),
                    static_cast<int>(v % 24), static_cast<int>(v % 60),
                    static_cast<int>((v >> 8) % 60), static_cast<int>((v >> 16) % 1000000),
                    levels[v % 5], rows.names[i]);
  }
}

FASTOUT_LOOP void loop_w9_fastout(fastout::file& out, const char* block,
                                  const std::uint32_t* pieces, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t piece = pieces[i];
    out.write(block + (piece >> 4), (piece & 15) + 1);
  }
}

FASTOUT_LOOP void loop_w9_fastout_c(fastout_file* out, const char* block,
                                    const std::uint32_t* pieces, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t piece = pieces[i];
    fastout_write(block + (piece >> 4), (piece & 15) + 1, 1, out);
  }
}

// The driver's inputs (tools/fastout_bench/inputs.cpp, workload_*.cpp).
std::vector<std::int64_t> ints(std::size_t count) {
  std::vector<std::int64_t> values(count);
  std::mt19937_64 random(6);
  for (auto& value : values) value = static_cast<std::int64_t>(random());
  return values;
}

// W7's: a random sign and mantissa, a binary exponent from -100 to 100.
std::vector<double> doubles(std::size_t count) {
  std::vector<double> values(count);
  std::mt19937_64 random(7);
  std::uniform_int_distribution<int> exponent(-100, 100);
  for (auto& value : values) {
    const std::uint64_t bits = random();
    const double mantissa = 1.0 + static_cast<double>(bits >> 12) * 0x1p-52;
    value = std::ldexp(mantissa, exponent(random));
    if ((bits & 1) != 0) value = -value;
  }
  return values;
}

printf_rows printf_input(std::size_t count) {
  printf_rows rows;
  rows.ints = ints(count);
  std::mt19937_64 random(19);
  std::uniform_int_distribution<std::int64_t> cents(-99999, 999999999);
  std::uniform_int_distribution<int> name_size(3, 16);
  std::vector<std::size_t> offsets(count);
  for (std::size_t i = 0; i < count; ++i) {
    rows.prices.push_back(static_cast<double>(cents(random)) / 100);
    offsets[i] = rows.name_text.size();
    const int size = name_size(random);
    for (int k = 0; k < size; ++k) rows.name_text += static_cast<char>('a' + random() % 26);
    rows.name_text += '\0';
  }
  for (std::size_t offset : offsets) rows.names.push_back(rows.name_text.data() + offset);
  return rows;
}

struct patch {
  std::vector<char> block = std::vector<char>(std::size_t{64} << 10);
  std::vector<std::uint32_t> pieces;
};

patch patch_input(std::size_t count) {
  patch p;
  std::mt19937_64 random(9);
  for (auto& c : p.block) c = static_cast<char>(random());
  p.pieces.resize(count);
  std::uniform_int_distribution<std::uint32_t> offset(0, (64u << 10) - 16), size(1, 16);
  for (auto& piece : p.pieces) {
    const std::uint32_t n = size(random);
    piece = offset(random) << 4 | (n - 1);
  }
  return p;
}

const char* pattern() {
  static char bytes[64];
  for (int i = 0; i < 64; ++i) bytes[i] = static_cast<char>('a' + i % 26);
  return bytes;
}

void check(int result, const char* what) {
  if (result < 0) {
    std::fprintf(stderr, "fastout-loops: %s: %s\n", what, fastout_error_name(result));
    std::exit(1);
  }
}

fastout_file* open_c() {
  fastout_file* f = fastout_open(output_path, nullptr);
  if (f == nullptr) {
    std::fprintf(stderr, "fastout-loops: cannot open %s\n", output_path);
    std::exit(1);
  }
  return f;
}

constexpr const char* loop_names[] = {
    "w1_fastout",         "w2_fastout",        "w2_fastout_c",      "w6_fastout",
    "w6_fastout_compile", "w6_fastout_printf", "w7_fastout_printf", "w8_fastout_printf",
    "w9_fastout",         "w9_fastout_c",      "w19_xxd_printf",    "w19_table_printf",
    "w19_log_printf"};

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "--list") == 0) {
    for (const char* name : loop_names) std::printf("%s\n", name);
    return 0;
  }
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: fastout-loops LOOP [COUNT] | --list\n");
    return 2;
  }
  const std::string_view loop = argv[1];
  const std::size_t count = argc == 3 ? std::strtoull(argv[2], nullptr, 10) : 1000000;
  try {
    if (loop == "w1_fastout" || loop == "w2_fastout" || loop == "w6_fastout" ||
        loop == "w6_fastout_compile" || loop == "w9_fastout") {
      const auto values = loop.substr(0, 2) == "w6" ? ints(count) : std::vector<std::int64_t>();
      const patch p = loop == "w9_fastout" ? patch_input(count) : patch();
      fastout::file out(output_path);
      if (loop == "w1_fastout") loop_w1_fastout(out, count);
      if (loop == "w2_fastout") loop_w2_fastout(out, count, pattern());
      if (loop == "w6_fastout") loop_w6_fastout(out, values.data(), count);
      if (loop == "w6_fastout_compile") loop_w6_fastout_compile(out, values.data(), count);
      if (loop == "w9_fastout") loop_w9_fastout(out, p.block.data(), p.pieces.data(), count);
      out.close();
      return 0;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fastout-loops: %s\n", e.what());
    return 1;
  }
  if (loop == "w8_fastout_printf" || loop.substr(0, 4) == "w19_") {
    const printf_rows rows = printf_input(count);
    fastout_file* out = open_c();
    if (loop == "w8_fastout_printf") loop_w8_fastout_printf(out, rows, count);
    if (loop == "w19_xxd_printf") loop_w19_xxd_printf(out, rows, count);
    if (loop == "w19_table_printf") loop_w19_table_printf(out, rows, count);
    if (loop == "w19_log_printf") loop_w19_log_printf(out, rows, count);
    check(fastout_close(out) == EOF ? -errno : 0, "close");
    return 0;
  }
  if (loop == "w2_fastout_c" || loop == "w6_fastout_printf" || loop == "w7_fastout_printf" ||
      loop == "w9_fastout_c") {
    fastout_file* out = open_c();
    if (loop == "w2_fastout_c") loop_w2_fastout_c(out, count, pattern());
    if (loop == "w6_fastout_printf") {
      const auto values = ints(count);
      loop_w6_fastout_printf(out, values.data(), count);
    }
    if (loop == "w7_fastout_printf") {
      const auto values = doubles(count);
      loop_w7_fastout_printf(out, values.data(), count);
    }
    if (loop == "w9_fastout_c") {
      const patch p = patch_input(count);
      loop_w9_fastout_c(out, p.block.data(), p.pieces.data(), count);
    }
    check(fastout_close(out) == EOF ? -errno : 0, "close");  // as fclose(): errno
    return 0;
  }
  std::fprintf(stderr, "fastout-loops: no loop \"%s\" (see --list)\n", argv[1]);
  return 2;
}
