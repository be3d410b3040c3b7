// SPDX-License-Identifier: MIT
// fastout-bench: a workload's contenders as rows. A contender is a name, a
// sink (sinks.h: the library it writes with, and its options) and a row: a
// lambda `row(out, i)` that writes row i of the output through what the
// sink's out() returns, in the contender's own idiom:
//
//   contender_list c(input, input->count);
//   c.add<stdio_sink>("putc", [line, size](std::FILE* f, std::size_t) {
//     for (std::size_t j = 0; j < size; ++j) putc(line[j], f);
//   });
//   c.add<limit_sink>("limit_256k", whole_line, buffer_256k);
//
// Contenders that share an idiom share the row: a generic lambda
// `[...](auto& out, std::size_t i) { out.put(...); }` serves every sink whose
// out() has put() (the limit's cursor, fastout, fastout's cursor, ofstream,
// one write() per call). Contenders that several workloads have are added
// in one call: add_formatting() and add_standard_output() below.
//
// write_rows() below is the one loop every contender runs: open the sink,
// call the row for every i, close. The row is a template argument, so it is
// inlined into the loop: no virtual call and no std::function per row. The
// row captures what it reads (pointers into the input, sizes) by value, and
// write_rows() takes it by value, so those are locals the compiler keeps in
// registers: a `char` store may alias anything in memory, and a contender
// must not pay for reloading the input when its rivals do not.
#ifndef FASTOUT_BENCH_CONTENDERS_H_
#define FASTOUT_BENCH_CONTENDERS_H_

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/printf.h>

#include "bench.h"
#include "libraries.h"
#include "sinks.h"

#if FASTOUT_BENCH_HAVE_STB
#  include <stb_sprintf.h>
#endif

namespace fastout_bench {

/// Does nothing to a sink's out() before the rows; see add_with_setup().
struct no_setup {
  template <typename Out>
  void operator()(Out&) const {}
};

/// Opens a `Sink` on `path`, calls `setup(out)` once and `row(out, i)` for
/// every i below `count`, where `out` is what the sink's out() returned,
/// and closes the sink, which throws if anything was lost.
template <typename Sink, typename Setup, typename Row>
void write_rows(const char* path, const sink_options& options, std::size_t count, Setup setup,
                Row row) {
  Sink sink(path, options);
  {
    // A reference for a reference, and a local for a cursor returned by
    // value, which hands its position back at the end of this block.
    auto&& out = sink.out();
    setup(out);
    for (std::size_t i = 0; i < count; ++i) row(out, i);
  }
  sink.close();
}

/// The contenders of one workload, added one row at a time.
class contender_list {
 public:
  /// Every contender writes `count` rows. `input` is what the rows point
  /// into: each contender keeps it alive. The list starts with `borrowed`,
  /// contenders of another workload on the same input (W4 and W5 run W2's
  /// and W1's).
  contender_list(std::shared_ptr<const void> input, std::size_t count,
                 std::vector<contender> borrowed = {})
      : input_(std::move(input)), count_(count), contenders_(std::move(borrowed)) {}

  /// Adds a contender that writes through a `Sink` opened with `options`,
  /// calling `row(out, i)` for every row. Returns it (valid until the next
  /// add), for the W5 sweep to set its buffer_size.
  template <typename Sink, typename Row>
  contender& add(std::string name, Row row, const sink_options& options = {}) {
    return add_with_setup<Sink>(std::move(name), no_setup{}, row, options);
  }

  /// The same, calling `setup(out)` once before the rows: for stream state
  /// such as `out << std::setprecision(17)`.
  template <typename Sink, typename Setup, typename Row>
  contender& add_with_setup(std::string name, Setup setup, Row row,
                            const sink_options& options = {}) {
    contender added;
    added.name = std::move(name);
    added.run = make_writer<Sink>(setup, row, options);
    contenders_.push_back(std::move(added));
    return contenders_.back();
  }

  /// What add() would run, without adding a contender: for
  /// workload::write_reference.
  template <typename Sink, typename Row>
  write_function writer(Row row, const sink_options& options = {}) const {
    return make_writer<Sink>(no_setup{}, row, options);
  }

  /// Records that this build has no contender `name`, and why.
  void add_absent(std::string name, std::string reason) {
    absent_.push_back(absent_contender{std::move(name), std::move(reason)});
  }

  /// The contenders, in the order they were added.
  std::vector<contender> take() { return std::move(contenders_); }
  /// The absent ones, in the order they were recorded.
  std::vector<absent_contender> take_absent() { return std::move(absent_); }

 private:
  template <typename Sink, typename Setup, typename Row>
  write_function make_writer(Setup setup, Row row, const sink_options& options) const {
    return [input = input_, options, count = count_, setup, row](const char* path) {
      write_rows<Sink>(path, options, count, setup, row);
    };
  }

  std::shared_ptr<const void> input_;
  std::size_t count_;
  std::vector<contender> contenders_;
  std::vector<absent_contender> absent_;
};

/// `contenders` without the ones named in `names`, in the same order: for a
/// workload that shares another's rows but not all of them.
std::vector<contender> without(std::vector<contender> contenders,
                               std::initializer_list<const char*> names);

/// Adds the contenders every formatting workload (W1f, W6, W7, W8) has, after
/// its fprintf and ofstream, in this order: fmt_output_file; the reference,
/// fmt_compile_limit, and fmt_compile_limit_256k; fastout; fastout_compile.
/// `print_row` is `out.print("...", x)` with a runtime format, the same code
/// for fmt::ostream and fastout::file; `compile_limit_row` the limit's
/// format_to() with FMT_COMPILE; `compile_row` fastout's print() with it.
template <typename PrintRow, typename CompileLimitRow, typename CompileRow>
void add_formatting(contender_list& c, PrintRow print_row, CompileLimitRow compile_limit_row,
                    CompileRow compile_row) {
  c.add<fmt_file_sink>("fmt_output_file", print_row);
  c.add<limit_sink>("fmt_compile_limit", compile_limit_row);
  c.add<limit_sink>("fmt_compile_limit_256k", compile_limit_row, buffer_256k);
  c.add<fastout_sink>("fastout", print_row);
  c.add<fastout_sink>("fastout_compile", compile_row);
}

/// add_formatting() for one value per line, "{}\n" (W6, W7): `values[i]`
/// and its newline take at most `row_bound` bytes, a constant so that the
/// limit's check is as cheap as in a hand-written loop.
template <std::size_t row_bound, typename T>
void add_formatting_per_line(contender_list& c, const T* values) {
  add_formatting(
      c, [values](auto& out, std::size_t i) { out.print("{}\n", values[i]); },
      [values](limit_sink::cursor& out, std::size_t i) {
        out.format_to(row_bound, FMT_COMPILE("{}\n"), values[i]);
      },
      [values](fastout::file& out, std::size_t i) { out.print(FMT_COMPILE("{}\n"), values[i]); });
}

/// Adds the printf engines of W6, W7 and W8 (issue 23), in this order:
/// fastout_printf (the C API's fastout_printf()); printf_limit, {fmt}'s
/// compiled format of the same text into the limit's raw 1 MiB buffer, then
/// write(): the most a printf engine on {fmt}'s digits could reach (the
/// engine's own decimal digits go past it); stb_sprintf
/// (stbsp_snprintf into a 256 KiB buffer, then write(); absent without
/// Debian's libstb-dev, and allowed to differ: its "%.17g" is not correctly
/// rounded); fmt_printf (fmt::fprintf into a stdio FILE, as fprintf).
/// `printf_row(print, i)` calls `print(format, args...)` with the printf
/// format of the workload, which the first three share; `limit_row` is the
/// limit's format_to() with FMT_COMPILE of the same text; `row_bound` is the
/// most a row can take, terminating null included.
template <std::size_t row_bound, typename PrintfRow, typename LimitRow>
void add_printf_engines(contender_list& c, PrintfRow printf_row, LimitRow limit_row) {
  c.add<fastout_c_sink>("fastout_printf", [printf_row](fastout_file* f, std::size_t i) {
    printf_row([f](const char* format, auto... args) { fastout_fprintf(f, format, args...); }, i);
  });
  c.add<limit_sink>("printf_limit", limit_row);
#if FASTOUT_BENCH_HAVE_STB
  c.add<limit_sink>(
       "stb_sprintf",
       [printf_row](limit_sink::cursor& out, std::size_t i) {
         out.append(row_bound, [printf_row, i](char* pos) {
           printf_row(
               [&pos](const char* format, auto... args) {
                 pos += stbsp_snprintf(pos, static_cast<int>(row_bound), format, args...);
               },
               i);
           return pos;
         });
       },
       buffer_256k)
      .may_differ = true;
#elif defined(_WIN32)
  c.add_absent("stb_sprintf", "not in the Windows build (Debian's libstb-dev is for Linux)");
#else
  c.add_absent("stb_sprintf", "built without stb_sprintf (Debian's libstb-dev)");
#endif
  c.add<stdio_sink>("fmt_printf", [printf_row](std::FILE* f, std::size_t i) {
    printf_row([f](const char* format, auto... args) { fmt::fprintf(f, format, args...); }, i);
  });
}

/// The names add_standard_output() adds, for without().
inline const std::initializer_list<const char*> standard_output_contenders = {
    "stdout_printf",         "cout",          "cout_unsynced", "cout_fastout",
    "stdout_printf_fastout", "fastout_stdout"};

#if defined(_WIN32)
/// The Windows build has no standard-output contenders: it records them as
/// absent, saying why (W1, W6).
template <typename PrintfRow, typename StreamRow, typename FastoutRow>
void add_standard_output(contender_list& c, PrintfRow, StreamRow, FastoutRow) {
  for (const char* name : standard_output_contenders)
    c.add_absent(name,
                 "not in the Windows build: the driver points its own standard output at the "
                 "file with dup2() on descriptor 1, which is POSIX's (and sync_with_stdio() "
                 "is ENOTSUP on Windows)");
}

/// One fwrite() of the C runtime, as a callable a row is given: std::fwrite
/// itself (a direct call), or a pointer the runtime was asked for.
struct crt_fwrite {
  std::size_t operator()(const void* data, std::size_t size, std::size_t count,
                         std::FILE* f) const {
    return std::fwrite(data, size, count, f);
  }
};

/// Adds the C runtime's fwrite contenders a Windows program has, in this
/// order: fwrite and fwrite_256k (locked, as every msvcrt and UCRT stdio
/// call is; _256k with setvbuf(), as the field report's tool did), then
/// _fwrite_nolock and _fwrite_nolock_256k, which skip the lock, where the
/// runtime has it (runtime_fwrite_nolock()), and absent, saying why, where
/// it has not. `row(write, f, i)` writes row i with
/// `write(data, size, count, f)`.
template <typename Row>
void add_windows_fwrite(contender_list& c, Row row) {
  c.add<stdio_sink>("fwrite", [row](std::FILE* f, std::size_t i) { row(crt_fwrite{}, f, i); });
  c.add<stdio_sink>(
      "fwrite_256k", [row](std::FILE* f, std::size_t i) { row(crt_fwrite{}, f, i); }, buffer_256k);
  if (fwrite_function nolock = runtime_fwrite_nolock()) {
    c.add<stdio_sink>("_fwrite_nolock",
                      [row, nolock](std::FILE* f, std::size_t i) { row(nolock, f, i); });
    c.add<stdio_sink>(
        "_fwrite_nolock_256k", [row, nolock](std::FILE* f, std::size_t i) { row(nolock, f, i); },
        buffer_256k);
  } else {
    c.add_absent("_fwrite_nolock", why_no_fwrite_nolock());
    c.add_absent("_fwrite_nolock_256k", why_no_fwrite_nolock());
  }
}
#else
/// Adds the contenders that write to standard output redirected to the file,
/// as by `> file` (W1, W6), in this order: printf, std::cout synced with
/// stdio (the default) and not, std::cout and printf through
/// fastout::sync_with_stdio(), and fastout::standard_output().
/// `printf_row(out, i)` calls printf and ignores `out`; `stream_row` writes
/// to a std::ostream, `fastout_row` to a fastout::file.
template <typename PrintfRow, typename StreamRow, typename FastoutRow>
void add_standard_output(contender_list& c, PrintfRow printf_row, StreamRow stream_row,
                         FastoutRow fastout_row) {
  c.add<stdout_stdio_sink>("stdout_printf", printf_row);
  c.add<cout_sink>("cout", stream_row);
#  if defined(__GLIBCXX__)
  c.add<cout_unsynced_sink>("cout_unsynced", stream_row);
#  endif
  c.add<fastout_synced_sink>("cout_fastout", stream_row);
  c.add<fastout_synced_sink>("stdout_printf_fastout", printf_row);
  c.add<fastout_stdout_sink>("fastout_stdout", fastout_row);
}
#endif

}  // namespace fastout_bench

#endif  // FASTOUT_BENCH_CONTENDERS_H_
