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
// outside the timed region. Each contender is a loop over rows, written once
// per library below (each_row_*) with the row as a lambda, so that what
// differs between the contenders is only how a row is formatted. A loop
// reads its count and its arrays from the input into locals first, as in
// workload_lines.cpp.
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

#include <fmt/compile.h>
#include <fmt/format.h>
#include <fmt/os.h>

#include <fastout/file.h>
#include <fastout/format.h>

#include "bench.h"
#include "output_helpers.h"

namespace fastout_bench {
namespace {

// The loops, one per library. `row(writer, i)` writes row i.

template <typename Row>
void each_row_stdio(const char* path, std::size_t count, Row row) {
  std::FILE* f = open_stdio(path);
  for (std::size_t i = 0; i < count; ++i) row(f, i);
  close_stdio(f, path);
}

// `setup` sets the stream's flags (precision, fixed) once, before the loop.
template <typename Setup, typename Row>
void each_row_ofstream(const char* path, std::size_t count, Setup setup, Row row) {
  std::ofstream out;
  open_ofstream(out, path);
  setup(out);
  for (std::size_t i = 0; i < count; ++i) row(out, i);
  close_ofstream(out, path);
}

template <typename Row>
void each_row_fmt_output_file(const char* path, std::size_t count, Row row) {
  auto out = fmt::output_file(path);
  for (std::size_t i = 0; i < count; ++i) row(out, i);
  out.close();
}

template <typename Row>
void each_row_fastout(const char* path, std::size_t count, Row row) {
  fastout::file out(path);
  for (std::size_t i = 0; i < count; ++i) row(out, i);
  out.close();
}

// fmt_compile_limit: `row(pos, i)` formats row i at `pos` with
// fmt::format_to and FMT_COMPILE and returns the end. The buffer is written
// out when less than `row_bound` bytes (the most one row can take) are left,
// so a row never needs a check of its own. The fill position is a pointer
// in a local, which the compiler keeps in a register.
template <typename Row>
void each_row_compile_limit(const char* path, std::size_t count, std::size_t row_bound,
                            std::size_t buffer_size, Row row) {
  int fd = open_fd(path);
  std::unique_ptr<char[]> storage(new char[buffer_size]);
  char* const buffer = storage.get();
  char* const flush_at = buffer + (buffer_size - row_bound);
  char* pos = buffer;
  for (std::size_t i = 0; i < count; ++i) {
    if (pos > flush_at) {
      write_all(fd, buffer, static_cast<std::size_t>(pos - buffer), path);
      pos = buffer;
    }
    pos = row(pos, i);
  }
  write_all(fd, buffer, static_cast<std::size_t>(pos - buffer), path);
  close_fd(fd, path);
}

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

void lines_fprintf(const char* path, const lines_input& in) {
  const char* const text = in.text.c_str();
  each_row_stdio(path, in.count,
                 [text](std::FILE* f, std::size_t) { std::fprintf(f, "%s\n", text); });
}

void lines_ofstream(const char* path, const lines_input& in) {
  const std::string& text = in.text;
  each_row_ofstream(
      path, in.count, [](std::ofstream&) {},
      [&text](std::ofstream& out, std::size_t) { out << text << '\n'; });
}

void lines_fmt_output_file(const char* path, const lines_input& in) {
  const std::string_view text = in.text;
  each_row_fmt_output_file(path, in.count,
                           [text](fmt::ostream& out, std::size_t) { out.print("{}\n", text); });
}

void compile_lines(const char* path, const lines_input& in, std::size_t buffer_size) {
  const std::string_view text = in.text;
  each_row_compile_limit(path, in.count, text.size() + 1, buffer_size,
                         [text](char* pos, std::size_t) {
                           return fmt::format_to(pos, FMT_COMPILE("{}\n"), text);
                         });
}

void lines_fmt_compile_limit(const char* path, const lines_input& in) {
  compile_lines(path, in, limit_buffer_size);
}

void lines_fmt_compile_limit_256k(const char* path, const lines_input& in) {
  compile_lines(path, in, small_limit_buffer_size);
}

void lines_fastout(const char* path, const lines_input& in) {
  const std::string_view text = in.text;
  each_row_fastout(path, in.count,
                   [text](fastout::file& out, std::size_t) { out.print("{}\n", text); });
}

void lines_fastout_compile(const char* path, const lines_input& in) {
  const std::string_view text = in.text;
  each_row_fastout(path, in.count, [text](fastout::file& out, std::size_t) {
    out.print(FMT_COMPILE("{}\n"), text);
  });
}

const contender_row<lines_input> lines_contenders[] = {
    {"fprintf", lines_fprintf},
    {"ofstream", lines_ofstream},
    {"fmt_output_file", lines_fmt_output_file},
    {"fmt_compile_limit", lines_fmt_compile_limit},
    {"fmt_compile_limit_256k", lines_fmt_compile_limit_256k},
    {"fastout", lines_fastout},
    {"fastout_compile", lines_fastout_compile},
};

// ---------------------------------------------------------------------------
// W6 `ints`: int64 values spread over the whole range, one per line, "{}\n".

struct ints_input {
  std::vector<std::int64_t> values;
};

// "-9223372036854775808\n" is 21 bytes.
constexpr std::size_t int_row_bound = 24;

void ints_fprintf(const char* path, const ints_input& in) {
  const std::int64_t* const values = in.values.data();
  each_row_stdio(path, in.values.size(), [values](std::FILE* f, std::size_t i) {
    std::fprintf(f, "%" PRId64 "\n", values[i]);
  });
}

void ints_ofstream(const char* path, const ints_input& in) {
  const std::int64_t* const values = in.values.data();
  each_row_ofstream(
      path, in.values.size(), [](std::ofstream&) {},
      [values](std::ofstream& out, std::size_t i) { out << values[i] << '\n'; });
}

void ints_fmt_output_file(const char* path, const ints_input& in) {
  const std::int64_t* const values = in.values.data();
  each_row_fmt_output_file(path, in.values.size(), [values](fmt::ostream& out, std::size_t i) {
    out.print("{}\n", values[i]);
  });
}

void compile_ints(const char* path, const ints_input& in, std::size_t buffer_size) {
  const std::int64_t* const values = in.values.data();
  each_row_compile_limit(path, in.values.size(), int_row_bound, buffer_size,
                         [values](char* pos, std::size_t i) {
                           return fmt::format_to(pos, FMT_COMPILE("{}\n"), values[i]);
                         });
}

void ints_fmt_compile_limit(const char* path, const ints_input& in) {
  compile_ints(path, in, limit_buffer_size);
}

void ints_fmt_compile_limit_256k(const char* path, const ints_input& in) {
  compile_ints(path, in, small_limit_buffer_size);
}

void ints_fastout(const char* path, const ints_input& in) {
  const std::int64_t* const values = in.values.data();
  each_row_fastout(path, in.values.size(), [values](fastout::file& out, std::size_t i) {
    out.print("{}\n", values[i]);
  });
}

void ints_fastout_compile(const char* path, const ints_input& in) {
  const std::int64_t* const values = in.values.data();
  each_row_fastout(path, in.values.size(), [values](fastout::file& out, std::size_t i) {
    out.print(FMT_COMPILE("{}\n"), values[i]);
  });
}

void ints_fastout_shift(const char* path, const ints_input& in) {
  const std::int64_t* const values = in.values.data();
  each_row_fastout(path, in.values.size(),
                   [values](fastout::file& out, std::size_t i) { out << values[i] << '\n'; });
}

const contender_row<ints_input> ints_contenders[] = {
    {"fprintf", ints_fprintf},
    {"ofstream", ints_ofstream},
    {"fmt_output_file", ints_fmt_output_file},
    {"fmt_compile_limit", ints_fmt_compile_limit},
    {"fmt_compile_limit_256k", ints_fmt_compile_limit_256k},
    {"fastout", ints_fastout},
    {"fastout_compile", ints_fastout_compile},
    {"fastout_shift", ints_fastout_shift},
};

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

void doubles_fprintf(const char* path, const doubles_input& in) {
  const double* const values = in.values.data();
  each_row_stdio(path, in.values.size(), [values](std::FILE* f, std::size_t i) {
    std::fprintf(f, "%.17g\n", values[i]);
  });
}

void doubles_ofstream(const char* path, const doubles_input& in) {
  const double* const values = in.values.data();
  each_row_ofstream(
      path, in.values.size(), [](std::ofstream& out) { out << std::setprecision(17); },
      [values](std::ofstream& out, std::size_t i) { out << values[i] << '\n'; });
}

void doubles_fmt_output_file(const char* path, const doubles_input& in) {
  const double* const values = in.values.data();
  each_row_fmt_output_file(path, in.values.size(), [values](fmt::ostream& out, std::size_t i) {
    out.print("{}\n", values[i]);
  });
}

void compile_doubles(const char* path, const doubles_input& in, std::size_t buffer_size) {
  const double* const values = in.values.data();
  each_row_compile_limit(path, in.values.size(), double_row_bound, buffer_size,
                         [values](char* pos, std::size_t i) {
                           return fmt::format_to(pos, FMT_COMPILE("{}\n"), values[i]);
                         });
}

void doubles_fmt_compile_limit(const char* path, const doubles_input& in) {
  compile_doubles(path, in, limit_buffer_size);
}

void doubles_fmt_compile_limit_256k(const char* path, const doubles_input& in) {
  compile_doubles(path, in, small_limit_buffer_size);
}

void doubles_fastout(const char* path, const doubles_input& in) {
  const double* const values = in.values.data();
  each_row_fastout(path, in.values.size(), [values](fastout::file& out, std::size_t i) {
    out.print("{}\n", values[i]);
  });
}

void doubles_fastout_compile(const char* path, const doubles_input& in) {
  const double* const values = in.values.data();
  each_row_fastout(path, in.values.size(), [values](fastout::file& out, std::size_t i) {
    out.print(FMT_COMPILE("{}\n"), values[i]);
  });
}

const contender_row<doubles_input> doubles_contenders[] = {
    {"fprintf", doubles_fprintf},
    {"ofstream", doubles_ofstream},
    {"fmt_output_file", doubles_fmt_output_file},
    {"fmt_compile_limit", doubles_fmt_compile_limit},
    {"fmt_compile_limit_256k", doubles_fmt_compile_limit_256k},
    {"fastout", doubles_fastout},
    {"fastout_compile", doubles_fastout_compile},
};

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
// fprintf's and ofstream's may differ, and each of their lines must parse
// back with strtod to exactly the bits of the value it was written from.
std::string check_doubles(const doubles_input& in, const std::string& path,
                          const std::string& contender) {
  if (contender != "fprintf" && contender != "ofstream")
    return "not byte-identical to the reference, and it should be";
  std::string text;
  if (!read_whole_file(path, text))
    return fmt::format("cannot read the output: {}", std::strerror(errno));
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

void csv_fprintf(const char* path, const csv_input& in) {
  const csv_row* const rows = in.rows.data();
  const char* const names = in.names.data();
  each_row_stdio(path, in.rows.size(), [rows, names](std::FILE* f, std::size_t i) {
    const csv_row& r = rows[i];
    std::fprintf(f, "%" PRId64 ",%.2f,%.*s,%" PRId32 "\n", r.id, r.price,
                 static_cast<int>(r.name_size), names + r.name_offset, r.qty);
  });
}

void csv_ofstream(const char* path, const csv_input& in) {
  const csv_row* const rows = in.rows.data();
  const char* const names = in.names.data();
  each_row_ofstream(
      path, in.rows.size(), [](std::ofstream& out) { out << std::fixed << std::setprecision(2); },
      [rows, names](std::ofstream& out, std::size_t i) {
        const csv_row& r = rows[i];
        out << r.id << ',' << r.price << ','
            << std::string_view(names + r.name_offset, r.name_size) << ',' << r.qty << '\n';
      });
}

void csv_fmt_output_file(const char* path, const csv_input& in) {
  const csv_row* const rows = in.rows.data();
  const char* const names = in.names.data();
  each_row_fmt_output_file(path, in.rows.size(), [rows, names](fmt::ostream& out, std::size_t i) {
    const csv_row& r = rows[i];
    out.print("{},{:.2f},{},{}\n", r.id, r.price,
              std::string_view(names + r.name_offset, r.name_size), r.qty);
  });
}

void compile_csv(const char* path, const csv_input& in, std::size_t buffer_size) {
  const csv_row* const rows = in.rows.data();
  const char* const names = in.names.data();
  each_row_compile_limit(path, in.rows.size(), csv_row_bound, buffer_size,
                         [rows, names](char* pos, std::size_t i) {
                           const csv_row& r = rows[i];
                           return fmt::format_to(
                               pos, FMT_COMPILE("{},{:.2f},{},{}\n"), r.id, r.price,
                               std::string_view(names + r.name_offset, r.name_size), r.qty);
                         });
}

void csv_fmt_compile_limit(const char* path, const csv_input& in) {
  compile_csv(path, in, limit_buffer_size);
}

void csv_fmt_compile_limit_256k(const char* path, const csv_input& in) {
  compile_csv(path, in, small_limit_buffer_size);
}

void csv_fastout(const char* path, const csv_input& in) {
  const csv_row* const rows = in.rows.data();
  const char* const names = in.names.data();
  each_row_fastout(path, in.rows.size(), [rows, names](fastout::file& out, std::size_t i) {
    const csv_row& r = rows[i];
    out.print("{},{:.2f},{},{}\n", r.id, r.price,
              std::string_view(names + r.name_offset, r.name_size), r.qty);
  });
}

void csv_fastout_compile(const char* path, const csv_input& in) {
  const csv_row* const rows = in.rows.data();
  const char* const names = in.names.data();
  each_row_fastout(path, in.rows.size(), [rows, names](fastout::file& out, std::size_t i) {
    const csv_row& r = rows[i];
    out.print(FMT_COMPILE("{},{:.2f},{},{}\n"), r.id, r.price,
              std::string_view(names + r.name_offset, r.name_size), r.qty);
  });
}

const contender_row<csv_input> csv_contenders[] = {
    {"fprintf", csv_fprintf},
    {"ofstream", csv_ofstream},
    {"fmt_output_file", csv_fmt_output_file},
    {"fmt_compile_limit", csv_fmt_compile_limit},
    {"fmt_compile_limit_256k", csv_fmt_compile_limit_256k},
    {"fastout", csv_fastout},
    {"fastout_compile", csv_fastout_compile},
};

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
  w.contenders = bind_contenders(lines_contenders, std::shared_ptr<const lines_input>(input));
  return w;
}

workload make_ints(const workload_options& options) {
  const std::size_t count = options.quick ? 2000000 : 10000000;
  auto input = std::make_shared<ints_input>();
  input->values.resize(count);
  std::mt19937_64 random(6);  // fixed: the same values in every run
  for (auto& value : input->values) value = static_cast<std::int64_t>(random());
  workload w = formatting_workload(
      "W6", "ints", fmt::format("{} int64 over the whole range, one per line", with_commas(count)));
  const std::int64_t* const values = input->values.data();
  w.bytes = total_size(count, int_row_bound, [values](char* pos, std::size_t i) {
    return fmt::format_to(pos, FMT_COMPILE("{}\n"), values[i]);
  });
  w.contenders = bind_contenders(ints_contenders, std::shared_ptr<const ints_input>(input));
  return w;
}

workload make_doubles(const workload_options& options) {
  const std::size_t count = options.quick ? 500000 : 2000000;
  auto input = std::make_shared<doubles_input>();
  input->values.resize(count);
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
  w.bytes = total_size(count, double_row_bound, [values](char* pos, std::size_t i) {
    return fmt::format_to(pos, FMT_COMPILE("{}\n"), values[i]);
  });
  std::shared_ptr<const doubles_input> shared(input);
  w.contenders = bind_contenders(doubles_contenders, shared);
  w.check_output = [shared](const std::string&, const std::string& path,
                            const std::string& contender) {
    return check_doubles(*shared, path, contender);
  };
  return w;
}

workload make_csv(const workload_options& options) {
  const std::size_t count = options.quick ? 500000 : 1000000;
  auto input = std::make_shared<csv_input>();
  input->rows.resize(count);
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
  w.bytes = total_size(count, csv_row_bound, [rows, names](char* pos, std::size_t i) {
    const csv_row& r = rows[i];
    return fmt::format_to(pos, FMT_COMPILE("{},{:.2f},{},{}\n"), r.id, r.price,
                          std::string_view(names + r.name_offset, r.name_size), r.qty);
  });
  w.contenders = bind_contenders(csv_contenders, std::shared_ptr<const csv_input>(input));
  return w;
}

}  // namespace fastout_bench
