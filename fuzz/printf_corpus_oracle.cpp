// SPDX-License-Identifier: MIT
// The printf target's judge where glibc is not there to ask: the bytes
// glibc 2.36 made, recorded in test/printf_corpus.txt (its fields are
// described in test/printf_corpus_generator.c; printf_corpus_test.cpp reads
// it with the same reader, printf_corpus_reader.h). Each input runs one recorded case, picked by the
// input's hash, through a writer with the buffer and the bytes before it
// that the input's settings choose: it must return the recorded result,
// store the recorded %n counts and write the recorded text, twice. The
// cases whose text is the platform's by nature are left out as the test
// leaves them out.
#include <cerrno>
#include <cfenv>
#include <cfloat>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "fuzz_input.h"
#include "printf_call_shapes.h"
#include "printf_corpus_reader.h"
#include "printf_fuzzer.h"

namespace fastout_fuzz {
namespace {

using fastout_test::corpus_case;
using fastout_test::corpus_kind;

std::vector<corpus_case> corpus;

passed passed_as(corpus_kind kind) {
  switch (kind) {
    case corpus_kind::int_value: return passed::int_value;
    case corpus_kind::long_long_value: return passed::long_long_value;
    case corpus_kind::double_value: return passed::double_value;
    case corpus_kind::long_double_value: return passed::long_double_value;
    case corpus_kind::pointer: break;
  }
  return passed::pointer;
}

}  // namespace

void load_printf_corpus() {
  const char* path = std::getenv("FASTOUT_PRINTF_CORPUS");
  if (path == nullptr) path = FASTOUT_PRINTF_CORPUS;
  std::ifstream in(path, std::ios::binary);
  std::vector<std::string> problems;
  for (corpus_case& c : fastout_test::read_printf_corpus(in, problems))
    if (fastout_test::corpus_case_left_out(c) == nullptr && c.args.size() <= most_mixed_arguments)
      corpus.push_back(std::move(c));
  if (!problems.empty()) fail(std::string(path) + ": " + problems.front());
  if (corpus.size() < 10000)
    fail(std::string("cannot read the printf corpus ") + path +
         " (set FASTOUT_PRINTF_CORPUS to test/printf_corpus.txt)");
}

void run_corpus_case(const std::uint8_t* data, std::size_t size) {
  static scratch_file file;
  std::uint64_t hash = 14695981039346656037ull;  // FNV-1a
  for (std::size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 1099511628211ull;
  corpus_case& c = corpus[hash % corpus.size()];
  input in(data, size);
  in.text();  // the same settings as the input's own case, but the locale and the lead
  const std::uint8_t buffer = in.byte();
  const std::uint8_t before = in.byte();
  writer_settings settings = read_settings(buffer, before, in.byte());
  settings.utf8 = false;
  settings.rounding = c.rounding;
  settings.errno_before = c.error;

  argument_values values{};
  passed types[most_mixed_arguments];
  for (std::size_t k = 0; k < c.args.size(); ++k) {
    const fastout_test::corpus_argument& a = c.args[k];
    types[k] = passed_as(a.what);
    values.i[k] = a.i;
    values.ll[k] = a.j;
    values.d[k] = a.d;
    values.ld[k] = a.e;
    values.p[k] = a.is_count  ? static_cast<const void*>(cells[k])
                  : a.null    ? nullptr
                  : a.is_wide ? static_cast<const void*>(a.wide.data())
                  : a.is_address
                      ? reinterpret_cast<const void*>(static_cast<std::uintptr_t>(a.address))
                      : static_cast<const void*>(a.text.c_str());
  }
  call_context context;
  context.format = c.format.c_str();
  context.shown_format = c.format;
  context.errno_before = c.error;
  context.rounding = c.rounding;
  const std::string where = "test/printf_corpus.txt line " + std::to_string(c.line) +
                            ", format \"" + escaped(c.format) + "\", " + show_settings(settings);
  context.out = open_writer(file, settings);
  call_with_shape(&context, context.format, types, c.args.size(), values);
  if (context.segments.size() != 2) fail("no call shape for " + where);
  const int result = c.fails ? -c.error_number : c.result;
  for (int pass = 0; pass < 2; ++pass) {
    if (context.results[pass] != result)
      fail("fastout_vfprintf() returned " + std::to_string(context.results[pass]) +
           ", glibc (recorded) " + std::to_string(result) + ": " + where);
    if (c.fails && context.errnos[pass] != c.error_number)
      fail("fastout_vfprintf() failed with " + std::to_string(result) + " but left errno " +
           std::to_string(context.errnos[pass]) + ": " + where);
  }
  std::size_t n = 0;
  for (std::size_t k = 0; k < c.args.size(); ++k) {
    if (!c.args[k].is_count) continue;
    const long long stored = fastout_test::corpus_count(c.args[k], cells[k]);
    if (n < c.counts.size() && stored != c.counts[n])
      fail("%n stored " + std::to_string(stored) + ", glibc (recorded) " +
           std::to_string(c.counts[n]) + ": " + where);
    ++n;
  }
  if (fastout_close(context.out) != 0) fail("fastout_close() failed: " + where);
  const std::string actual = file.contents();
  const std::string written_before(settings.written_before, 'w');
  if (!c.fails && actual != written_before + c.text + c.text)
    fail("the file differs from glibc's recorded text: " + where);
  if (c.fails && actual.compare(0, written_before.size(), written_before) != 0)
    fail("a failed call changed what was written before it: " + where);
}

}  // namespace fastout_fuzz
