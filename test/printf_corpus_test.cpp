// SPDX-License-Identifier: MIT
// fastout_printf against glibc's bytes recorded on Linux (test/printf_corpus.txt,
// made by test/printf_corpus_generator.c): the same bytes on every platform,
// where no glibc is there to ask. This test asks no C library formatter for
// what to expect: the corpus says it.
//
// Every case runs through writers with buffers of 1, 7 and 64 bytes, none,
// and the default size, case after case: each call must return the
// recorded result, store the recorded %n counts, and the file must hold
// the recorded texts one after another. A case whose text is the
// platform's by nature is run only where that platform is glibc's: %m (the
// C library's texts of errno), wide characters beyond ASCII (the "C"
// locale's conversion), long doubles given by x87 bits (another long
// double elsewhere), %l of an integer where long is 32 bits (Windows); the
// test says how many it leaves out, and why.
#include <fastout/c_api.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cfenv>
#include <cfloat>
#include <climits>
#include <cstdarg>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "printf_corpus_reader.h"
#include "test_util.h"

#ifndef FASTOUT_PRINTF_CORPUS
#  error "the build names the corpus: FASTOUT_PRINTF_CORPUS"
#endif

namespace {

using fastout_test::read_file;
using fastout_test::temp_dir;

using argument = fastout_test::corpus_argument;
using fastout_test::corpus_case;
using fastout_test::corpus_kind;

std::vector<corpus_case> load_corpus() {
  std::ifstream in(FASTOUT_PRINTF_CORPUS, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << FASTOUT_PRINTF_CORPUS;
  std::vector<std::string> problems;
  std::vector<corpus_case> cases = fastout_test::read_printf_corpus(in, problems);
  for (const std::string& problem : problems)
    ADD_FAILURE() << FASTOUT_PRINTF_CORPUS << ": " << problem;
  return cases;
}

// The call, with the case's arguments (up to 4), through fastout_vprintf.
int through(fastout_file* f, const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int result = fastout_vfprintf(f, format, args);
  va_end(args);
  return result;
}

const void* pointer_of(argument& a) {
  if (a.is_count) return &a.cell;
  if (a.null) return nullptr;
  if (a.is_wide) return a.wide.data();
  if (a.is_address) return reinterpret_cast<const void*>(static_cast<std::uintptr_t>(a.address));
  return a.text.c_str();
}

template <typename... T>
int call_with(fastout_file* f, corpus_case& c, std::size_t k, T... done) {
  if (k == c.args.size()) return through(f, c.format.c_str(), done...);
  if constexpr (sizeof...(T) < 4) {
    argument& a = c.args[k];
    switch (a.what) {
      case corpus_kind::int_value: return call_with(f, c, k + 1, done..., a.i);
      case corpus_kind::long_long_value: return call_with(f, c, k + 1, done..., a.j);
      case corpus_kind::double_value: return call_with(f, c, k + 1, done..., a.d);
      case corpus_kind::long_double_value: return call_with(f, c, k + 1, done..., a.e);
      case corpus_kind::pointer:
        // (Every pointer travels the same way on the platforms fastout
        // builds for: a char*, wchar_t* or counter read from a void*.)
        return call_with(f, c, k + 1, done..., pointer_of(a));
    }
  }
  ADD_FAILURE() << "line " << c.line << ": more than 4 arguments";
  return INT_MIN;
}

// One case through `f`: its result and %n counts, or a failure message.
std::string run_case(fastout_file* f, corpus_case& c) {
  for (argument& a : c.args) a.cell = 0;
  std::fesetround(c.rounding);
  errno = c.error;
  const int result = call_with(f, c, 0);
  std::fesetround(FE_TONEAREST);
  const int expected = c.fails ? -c.error_number : c.result;
  if (result != expected)
    return "returned " + std::to_string(result) + ", glibc " + std::to_string(expected);
  std::size_t n = 0;
  for (const argument& a : c.args) {
    if (!a.is_count) continue;
    if (n < c.counts.size() && fastout_test::corpus_count(a, &a.cell) != c.counts[n])
      return "%n stored " + std::to_string(fastout_test::corpus_count(a, &a.cell)) + ", glibc " +
             std::to_string(c.counts[n]);
    ++n;
  }
  return std::string();
}

std::string describe(const corpus_case& c) {
  std::string shown;
  for (char ch : c.format) shown += ch == '\n' ? std::string("\\n") : std::string(1, ch);
  return "corpus line " + std::to_string(c.line) + ", format \"" + shown + "\"";
}

TEST(printf_corpus, fastout_prints_glibcs_recorded_bytes) {
  std::vector<corpus_case> cases = load_corpus();
  ASSERT_GT(cases.size(), 10000u) << "the corpus is missing or cut short";
  // What this platform cannot check, counted by reason.
  std::vector<std::pair<std::string, int>> reasons;
  std::vector<bool> checked(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const char* why = fastout_test::corpus_case_left_out(cases[i]);
    checked[i] = why == nullptr;
    if (why == nullptr) continue;
    bool counted = false;
    for (auto& r : reasons)
      if (r.first == why) {
        ++r.second;
        counted = true;
      }
    if (!counted) reasons.emplace_back(why, 1);
  }
  for (const auto& r : reasons)
    std::cout << "printf_corpus: " << r.second << " cases left out: " << r.first << "\n";

  temp_dir dir;
  for (std::size_t buffer : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{64},
                             std::size_t{FASTOUT_DEFAULT_BUFFER_SIZE}}) {
    SCOPED_TRACE("buffer size " + std::to_string(buffer));
    const std::string path = dir.file("out" + std::to_string(buffer));
    fastout_options options;
    fastout_options_init(&options);
    options.buffer_size = buffer;
    fastout_file* f = fastout_open(path.c_str(), &options);
    ASSERT_NE(f, nullptr);
    // A failing case runs on its own writer: none of its text may be added
    // (with a small buffer, what streamed before the failure would be).
    fastout_file* failing = fastout_open(dir.file("failing").c_str(), nullptr);
    ASSERT_NE(failing, nullptr);
    std::string expected;
    std::vector<std::size_t> starts;
    std::vector<std::size_t> owners;
    int failures = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      if (!checked[i]) continue;
      corpus_case& c = cases[i];
      std::string wrong = run_case(c.fails ? failing : f, c);
      if (!wrong.empty() && failures++ < 10) ADD_FAILURE() << describe(c) << ": " << wrong;
      if (c.fails) continue;
      starts.push_back(expected.size());
      owners.push_back(i);
      expected += c.text;
    }
    EXPECT_EQ(fastout_close(f), 0);
    EXPECT_EQ(fastout_close(failing), 0);
    EXPECT_EQ(read_file(dir.file("failing")), "") << "a failing call left text";
    const std::string actual = read_file(path);
    if (actual != expected) {
      std::size_t at = 0;
      while (at < actual.size() && at < expected.size() && actual[at] == expected[at]) ++at;
      std::size_t k = 0;
      while (k + 1 < starts.size() && starts[k + 1] <= at) ++k;
      ADD_FAILURE() << "the file differs from the corpus at byte " << at << " (of " << actual.size()
                    << ", corpus " << expected.size() << "), in " << describe(cases[owners[k]])
                    << ": file \"" << actual.substr(at, 30) << "\", corpus \""
                    << expected.substr(at, 30) << "\"";
    }
  }
}

}  // namespace
