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
// one write() per call).
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

#include "bench.h"
#include "sinks.h"

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
  /// into: each contender keeps it alive.
  contender_list(std::shared_ptr<const void> input, std::size_t count)
      : input_(std::move(input)), count_(count) {}

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
    const std::size_t count = count_;
    contenders_.push_back(contender{
        std::move(name), [input = input_, options, count, setup, row](const char* path) {
          write_rows<Sink>(path, options, count, setup, row);
        }});
    return contenders_.back();
  }

  /// The contenders, in the order they were added.
  std::vector<contender> take() { return std::move(contenders_); }

 private:
  std::shared_ptr<const void> input_;
  std::size_t count_;
  std::vector<contender> contenders_;
};

/// `contenders` without the ones named in `names`, in the same order: for a
/// workload that shares another's rows but not all of them.
std::vector<contender> without(std::vector<contender> contenders,
                               std::initializer_list<const char*> names);

}  // namespace fastout_bench

#endif  // FASTOUT_BENCH_CONTENDERS_H_
