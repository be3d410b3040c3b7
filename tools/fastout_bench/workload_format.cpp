// SPDX-License-Identifier: MIT
// The formatting workloads (issue 3): W1f `lines_print` (W1's lines through
// print), W6 `ints`, W7 `doubles` and W8 `csv`. Every contender formats the
// same values its own way: fprintf, ofstream, fmt::output_file with a runtime
// format, fastout with a runtime format (`fastout`) and with FMT_COMPILE
// (`fastout_compile`), `out << x` on W6 (`fastout_shift`), and
// `fmt_compile_limit`, the reference: fmt::format_to with FMT_COMPILE into a
// raw 1 MiB buffer and write(), the fastest {fmt}'s formatting can go with no
// I/O layer on top.
//
// The values are generated with fixed seeds when the workload is built,
// outside the timed region. Each contender is a row (contenders.h): how it
// formats one value, or one line of the CSV, through its library's sink.
// fmt_output_file and fastout share their row (`out.print("{}\n", x)` is the
// same code for both), as ofstream and fastout_shift share `out << x`. W6
// and W7 also have fastout_printf: the C API's fastout_printf() with
// fprintf's own format, beside fprintf.
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

// fastout first: its fmt_compat.h keeps GCC 12 from a false -Warray-bounds
// inside {fmt} 12, which would otherwise reach the compiled double writer.
#include <fastout/file.h>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "bench.h"
#include "contenders.h"
#include "sinks.h"

namespace fastout_bench {
namespace {

// The size of what `row(pos, i)` writes for every row, through a scratch
// buffer: the workload's promised size, computed once when it is built.
template <typename Row>
std::uint64_t total_size(std::size_t count, std::size_t row_bound, Row row) {
  std::vector<char> scratch(row_bound);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < count; ++i)
    total += static_cast<std::uint64_t>(row(scratch.data(), i) - scratch.data());
  return total;
}

// ---------------------------------------------------------------------------
// W1f `lines_print`: W1's 1,000,000 lines of "test data\n", each written as a
// formatted string argument: "{}\n".

struct lines_input {
  std::string text;  // a line without its '\n'
  std::size_t count;
};

std::vector<contender> lines_contenders(const std::shared_ptr<const lines_input>& input) {
  const std::string& text_string = input->text;
  const std::string_view text = input->text;
  const char* const text_c = input->text.c_str();
  const std::size_t bound = text.size() + 1;

  auto print = [text](auto& out, std::size_t) { out.print("{}\n", text); };
  auto compile_limit = [text, bound](limit_sink::cursor& out, std::size_t) {
    out.format_to(bound, FMT_COMPILE("{}\n"), text);
  };

  contender_list c(input, input->count);
  c.add<stdio_sink>("fprintf",
                    [text_c](std::FILE* f, std::size_t) { std::fprintf(f, "%s\n", text_c); });
  c.add<ofstream_sink>("ofstream", [&text_string](std::ofstream& out, std::size_t) {
    out << text_string << '\n';
  });
  c.add<fmt_file_sink>("fmt_output_file", print);
  c.add<limit_sink>("fmt_compile_limit", compile_limit);
  c.add<limit_sink>("fmt_compile_limit_256k", compile_limit, buffer_256k);
  c.add<fastout_sink>("fastout", print);
  c.add<fastout_sink>("fastout_compile", [text](fastout::file& out, std::size_t) {
    out.print(FMT_COMPILE("{}\n"), text);
  });
  return c.take();
}

// ---------------------------------------------------------------------------
// W6 `ints`: int64 values spread over the whole range, one per line, "{}\n",
// to a file each contender opens, and to standard output redirected to it.

struct ints_input {
  std::vector<std::int64_t> values;
};

// "-9223372036854775808\n" is 21 bytes.
constexpr std::size_t int_row_bound = 24;

std::vector<contender> ints_contenders(const std::shared_ptr<const ints_input>& input) {
  const std::int64_t* const values = input->values.data();

  auto shift = [values](auto& out, std::size_t i) { out << values[i] << '\n'; };
  auto print = [values](auto& out, std::size_t i) { out.print("{}\n", values[i]); };
  auto compile_limit = [values](limit_sink::cursor& out, std::size_t i) {
    out.format_to(int_row_bound, FMT_COMPILE("{}\n"), values[i]);
  };

  contender_list c(input, input->values.size());
  c.add<stdio_sink>("fprintf", [values](std::FILE* f, std::size_t i) {
    std::fprintf(f, "%" PRId64 "\n", values[i]);
  });
  c.add<ofstream_sink>("ofstream", shift);
  c.add<fmt_file_sink>("fmt_output_file", print);
  c.add<limit_sink>("fmt_compile_limit", compile_limit);
  c.add<limit_sink>("fmt_compile_limit_256k", compile_limit, buffer_256k);
  c.add<fastout_sink>("fastout", print);
  c.add<fastout_sink>("fastout_compile", [values](fastout::file& out, std::size_t i) {
    out.print(FMT_COMPILE("{}\n"), values[i]);
  });
  c.add<fastout_sink>("fastout_shift", shift);

  // Standard output, redirected to the file as by `> file`: printf,
  // std::cout synced with stdio (the default) and not, std::cout and printf
  // through fastout::sync_with_stdio(), and fastout::standard_output().
  auto printf_row = [values](auto&, std::size_t i) { std::printf("%" PRId64 "\n", values[i]); };
  c.add<stdout_stdio_sink>("stdout_printf", printf_row);
  c.add<cout_sink>("cout", shift);
#if defined(__GLIBCXX__)
  c.add<cout_unsynced_sink>("cout_unsynced", shift);
#endif
  c.add<fastout_synced_sink>("cout_fastout", shift);
  c.add<fastout_synced_sink>("stdout_printf_fastout", printf_row);
  c.add<fastout_stdout_sink>("fastout_stdout", shift);
  c.add<fastout_c_sink>("fastout_printf", [values](fastout_file* f, std::size_t i) {
    fastout_printf(f, "%lld\n", static_cast<long long>(values[i]));
  });
  return c.take();
}

// ---------------------------------------------------------------------------
// W7 `doubles`: one per line as the shortest text that reads back to the same
// value, fmt's "{}". C and iostreams have no such format: fprintf writes
// "%.17g" and ofstream setprecision(17), which read back to the same value
// in more digits, so their outputs are checked by parsing them back.

struct doubles_input {
  std::vector<double> values;
};

// The longest "{}" of a double, "-2.2250738585072014e-308", is 24 bytes; a
// fixed-notation one ("-1234567890123456.8") is shorter.
constexpr std::size_t double_row_bound = 32;

std::vector<contender> doubles_contenders(const std::shared_ptr<const doubles_input>& input) {
  const double* const values = input->values.data();

  auto print = [values](auto& out, std::size_t i) { out.print("{}\n", values[i]); };
  auto compile_limit = [values](limit_sink::cursor& out, std::size_t i) {
    out.format_to(double_row_bound, FMT_COMPILE("{}\n"), values[i]);
  };

  contender_list c(input, input->values.size());
  c.add<stdio_sink>("fprintf", [values](std::FILE* f, std::size_t i) {
    std::fprintf(f, "%.17g\n", values[i]);
  });
  c.add_with_setup<ofstream_sink>(
      "ofstream", [](std::ofstream& out) { out << std::setprecision(17); },
      [values](std::ofstream& out, std::size_t i) { out << values[i] << '\n'; });
  c.add<fmt_file_sink>("fmt_output_file", print);
  c.add<limit_sink>("fmt_compile_limit", compile_limit);
  c.add<limit_sink>("fmt_compile_limit_256k", compile_limit, buffer_256k);
  c.add<fastout_sink>("fastout", print);
  c.add<fastout_sink>("fastout_compile", [values](fastout::file& out, std::size_t i) {
    out.print(FMT_COMPILE("{}\n"), values[i]);
  });
  c.add<fastout_c_sink>("fastout_printf", [values](fastout_file* f, std::size_t i) {
    fastout_printf(f, "%.17g\n", values[i]);
  });
  return c.take();
}

// Reads all of `path`; returns false (with errno set) if it cannot.
bool read_whole_file(const std::string& path, std::string& text) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  text.clear();
  char chunk[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int error = errno;
      ::close(fd);
      errno = error;
      return false;
    }
    if (n == 0) break;
    text.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return true;
}

// The check for an output that is not byte-identical to the reference: only
// fprintf's, ofstream's and fastout_printf's may differ. Each line of
// fprintf's and ofstream's must parse back with strtod to exactly the bits of
// the value it was written from; fastout_printf's must be exactly fprintf's,
// line by line: glibc's snprintf("%.17g") of the same value.
std::string check_doubles(const doubles_input& in, const std::string& path,
                          const std::string& contender) {
  if (contender != "fprintf" && contender != "ofstream" && contender != "fastout_printf")
    return "not byte-identical to the reference, and it should be";
  std::string text;
  if (!read_whole_file(path, text))
    return fmt::format("cannot read the output: {}", std::strerror(errno));
  if (contender == "fastout_printf") {
    std::string expected;
    char line[64];
    for (double value : in.values) {
      int size = std::snprintf(line, sizeof line, "%.17g\n", value);
      expected.append(line, static_cast<std::size_t>(size));
    }
    if (text == expected) return {};
    std::size_t at = 0;
    while (at < text.size() && at < expected.size() && text[at] == expected[at]) ++at;
    return fmt::format("differs from fprintf's \"%.17g\\n\" at byte {}", at);
  }
  const char* p = text.c_str();
  const char* const end = p + text.size();
  const std::size_t count = in.values.size();
  for (std::size_t i = 0; i < count; ++i) {
    const char* line_end = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    if (line_end == nullptr) return fmt::format("{} lines, not {}", i, count);
    char* parsed_end = nullptr;
    double value = std::strtod(p, &parsed_end);
    if (parsed_end != line_end)
      return fmt::format("line {} is not one number: \"{}\"", i + 1,
                         std::string_view(p, static_cast<std::size_t>(line_end - p)));
    if (std::memcmp(&value, &in.values[i], sizeof value) != 0)
      return fmt::format("line {} reads back as {}, not {}", i + 1, value, in.values[i]);
    p = line_end + 1;
  }
  if (p != end) return fmt::format("more than {} lines", count);
  return {};
}

// ---------------------------------------------------------------------------
// W8 `csv`: rows of id,price,name,qty: an int64, a double with 2 decimals, a
// string of 5 to 20 letters and an int32.

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

std::vector<contender> csv_contenders(const std::shared_ptr<const csv_input>& input) {
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
        out << r.id << ',' << r.price << ','
            << std::string_view(names + r.name_offset, r.name_size) << ',' << r.qty << '\n';
      });
  c.add<fmt_file_sink>("fmt_output_file", print);
  c.add<limit_sink>("fmt_compile_limit", compile_limit);
  c.add<limit_sink>("fmt_compile_limit_256k", compile_limit, buffer_256k);
  c.add<fastout_sink>("fastout", print);
  c.add<fastout_sink>("fastout_compile", [rows, names](fastout::file& out, std::size_t i) {
    const csv_row& r = rows[i];
    out.print(FMT_COMPILE("{},{:.2f},{},{}\n"), r.id, r.price,
              std::string_view(names + r.name_offset, r.name_size), r.qty);
  });
  return c.take();
}

// ---------------------------------------------------------------------------

// Every formatting workload is judged against fmt_compile_limit.
workload formatting_workload(const char* id, const char* name, std::string summary) {
  workload w;
  w.id = id;
  w.name = name;
  w.summary = std::move(summary);
  w.reference = "fmt_compile_limit";
  return w;
}

}  // namespace

workload make_lines_print(const workload_options&) {
  auto input = std::make_shared<lines_input>();
  input->text = "test data";
  input->count = 1000000;
  workload w = formatting_workload(
      "W1f", "lines_print",
      fmt::format("{} lines of \"{}\\n\" through print(\"{{}}\\n\", s)", with_commas(input->count),
                  input->text));
  w.bytes = std::uint64_t{input->count} * (input->text.size() + 1);
  w.contenders = lines_contenders(input);
  return w;
}

workload make_ints(const workload_options& options) {
  const std::size_t count = options.quick ? 2000000 : 10000000;
  auto input = std::make_shared<ints_input>();
  // --list needs only the names: no values, and no promised size.
  input->values.resize(options.list_only ? 0 : count);
  std::mt19937_64 random(6);  // fixed: the same values in every run
  for (auto& value : input->values) value = static_cast<std::int64_t>(random());
  workload w = formatting_workload(
      "W6", "ints", fmt::format("{} int64 over the whole range, one per line", with_commas(count)));
  const std::int64_t* const values = input->values.data();
  w.bytes = total_size(input->values.size(), int_row_bound, [values](char* pos, std::size_t i) {
    return fmt::format_to(pos, FMT_COMPILE("{}\n"), values[i]);
  });
  w.contenders = ints_contenders(input);
  return w;
}

workload make_doubles(const workload_options& options) {
  const std::size_t count = options.quick ? 500000 : 2000000;
  auto input = std::make_shared<doubles_input>();
  input->values.resize(options.list_only ? 0 : count);
  // A random sign, 52 random mantissa bits and a binary exponent from -100
  // to 100: magnitudes from 1e-30 to 1e30, so that fmt writes both fixed
  // ("0.00123...", "12345.6...") and exponent ("1.23...e+25") forms.
  std::mt19937_64 random(7);
  std::uniform_int_distribution<int> exponent(-100, 100);
  for (auto& value : input->values) {
    std::uint64_t bits = random();
    double mantissa = 1.0 + static_cast<double>(bits >> 12) * 0x1p-52;
    value = std::ldexp(mantissa, exponent(random));
    if ((bits & 1) != 0) value = -value;
  }
  workload w = formatting_workload(
      "W7", "doubles",
      fmt::format("{} doubles from 1e-30 to 1e30, shortest round trip, one per line",
                  with_commas(count)));
  const double* const values = input->values.data();
  w.bytes = total_size(input->values.size(), double_row_bound, [values](char* pos, std::size_t i) {
    return fmt::format_to(pos, FMT_COMPILE("{}\n"), values[i]);
  });
  std::shared_ptr<const doubles_input> shared(input);
  w.contenders = doubles_contenders(shared);
  w.check_output = [shared](const std::string&, const std::string& path,
                            const std::string& contender) {
    return check_doubles(*shared, path, contender);
  };
  return w;
}

workload make_csv(const workload_options& options) {
  const std::size_t count = options.quick ? 500000 : 1000000;
  auto input = std::make_shared<csv_input>();
  input->rows.resize(options.list_only ? 0 : count);
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
  workload w = formatting_workload(
      "W8", "csv",
      fmt::format("{} rows of id,price,name,qty: \"{{}},{{:.2f}},{{}},{{}}\\n\"",
                  with_commas(count)));
  const csv_row* const rows = input->rows.data();
  const char* const names = input->names.data();
  w.bytes = total_size(input->rows.size(), csv_row_bound, [rows, names](char* pos, std::size_t i) {
    const csv_row& r = rows[i];
    return fmt::format_to(pos, FMT_COMPILE("{},{:.2f},{},{}\n"), r.id, r.price,
                          std::string_view(names + r.name_offset, r.name_size), r.qty);
  });
  w.contenders = csv_contenders(input);
  return w;
}

}  // namespace fastout_bench
