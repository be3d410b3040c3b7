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

#include "test_util.h"

#ifndef FASTOUT_PRINTF_CORPUS
#  error "the build names the corpus: FASTOUT_PRINTF_CORPUS"
#endif

namespace {

using fastout_test::read_file;
using fastout_test::temp_dir;

enum class kind { int_value, long_long_value, double_value, long_double_value, pointer };

struct argument {
  kind what = kind::int_value;
  int i = 0;
  long long j = 0;
  double d = 0;
  long double e = 0;
  std::string text;           // s:
  std::vector<wchar_t> wide;  // w:
  bool null = false;          // z, W
  bool is_wide = false;
  bool is_count = false;  // n:
  std::string count_kind;
  bool is_address = false;  // p:
  unsigned long long address = 0;
  long long cell = 0;  // %n's target
};

struct corpus_case {
  int line = 0;
  std::string tags;
  int rounding = FE_TONEAREST;
  int error = 0;
  std::string format;
  std::vector<argument> args;
  bool fails = false;
  int result = 0;
  int error_number = 0;
  std::string text;
  std::vector<long long> counts;
};

std::vector<std::string> split(const std::string& line, char separator) {
  std::vector<std::string> fields;
  std::string field;
  for (char c : line) {
    if (c == separator) {
      fields.push_back(field);
      field.clear();
    } else {
      field += c;
    }
  }
  fields.push_back(field);
  return fields;
}

int hex_digit(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c - 'A' + 10;
}

std::string unescape(const std::string& escaped) {
  std::string bytes;
  for (std::size_t i = 0; i < escaped.size(); ++i) {
    if (escaped[i] == '\\' && i + 3 < escaped.size() + 1 && escaped[i + 1] == 'x') {
      bytes += static_cast<char>(hex_digit(escaped[i + 2]) * 16 + hex_digit(escaped[i + 3]));
      i += 3;
    } else {
      bytes += escaped[i];
    }
  }
  return bytes;
}

unsigned long long parse_hex(const std::string& text) {
  unsigned long long value = 0;
  for (char c : text) value = value * 16 + static_cast<unsigned>(hex_digit(c));
  return value;
}

int errno_of(const std::string& name) {
  if (name == "EINVAL") return EINVAL;
  if (name == "EILSEQ") return EILSEQ;
  if (name == "EOVERFLOW") return EOVERFLOW;
  return -1;
}

argument parse_argument(const std::string& token) {
  argument a;
  const std::string value = token.size() > 2 ? token.substr(2) : std::string();
  switch (token[0]) {
    case 'i':
      a.what = kind::int_value;
      a.i = std::stoi(value);
      break;
    case 'j':
      a.what = kind::long_long_value;
      a.j = std::stoll(value);
      break;
    case 'd': {
      a.what = kind::double_value;
      const unsigned long long bits = parse_hex(value);
      std::memcpy(&a.d, &bits, sizeof a.d);
      break;
    }
    case 'e': {
      a.what = kind::long_double_value;
      unsigned char bytes[sizeof(long double)] = {};
      for (std::size_t i = 0; i < 10 && 2 * i + 1 < value.size(); ++i)
        bytes[i] =
            static_cast<unsigned char>(hex_digit(value[2 * i]) * 16 + hex_digit(value[2 * i + 1]));
      std::memcpy(&a.e, bytes, sizeof a.e);
      break;
    }
    case 's':
      a.what = kind::pointer;
      a.text = unescape(value);
      break;
    case 'z':
      a.what = kind::pointer;
      a.null = true;
      break;
    case 'w':
      a.what = kind::pointer;
      a.is_wide = true;
      for (const std::string& code : split(value, ','))
        if (!code.empty()) a.wide.push_back(static_cast<wchar_t>(parse_hex(code)));
      a.wide.push_back(L'\0');
      break;
    case 'W':
      a.what = kind::pointer;
      a.is_wide = true;
      a.null = true;
      break;
    case 'p':
      a.what = kind::pointer;
      a.is_address = true;
      a.address = parse_hex(value);
      break;
    case 'n':
      a.what = kind::pointer;
      a.is_count = true;
      a.count_kind = value;
      break;
  }
  return a;
}

std::vector<corpus_case> load_corpus() {
  std::vector<corpus_case> cases;
  std::ifstream in(FASTOUT_PRINTF_CORPUS, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << FASTOUT_PRINTF_CORPUS;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> f = split(line, '\t');
    if (f.size() != 8) {
      ADD_FAILURE() << FASTOUT_PRINTF_CORPUS << ":" << number << ": " << f.size()
                    << " fields, not 8";
      continue;
    }
    corpus_case c;
    c.line = number;
    c.tags = f[0];
    c.rounding = f[1] == "u"   ? FE_UPWARD
                 : f[1] == "d" ? FE_DOWNWARD
                 : f[1] == "z" ? FE_TOWARDZERO
                               : FE_TONEAREST;
    c.error = std::stoi(f[2]);
    c.format = unescape(f[3]);
    if (f[4] != "-")
      for (const std::string& token : split(f[4], ' ')) c.args.push_back(parse_argument(token));
    if (!f[5].empty() && f[5][0] == 'E') {
      c.fails = true;
      c.error_number = errno_of(f[5]);
    } else {
      c.result = std::stoi(f[5]);
    }
    c.text = unescape(f[6]);
    if (f[7] != "-")
      for (const std::string& count : split(f[7], ',')) c.counts.push_back(std::stoll(count));
    cases.push_back(std::move(c));
  }
  return cases;
}

// Whether `format` has a '%', then any of "-+ #0'I*$" and digits and '.',
// then 'l' and an integer conversion (diouxXbB). (Not std::regex: g++ 12
// warns inside <regex> under -fsanitize=address at -O2, and warnings are
// errors.)
bool has_long_integer_directive(const std::string& format) {
  for (std::size_t at = format.find('%'); at != std::string::npos; at = format.find('%', at + 1)) {
    std::size_t i = at + 1;
    while (i < format.size() && format[i] != '\0' &&
           std::strchr("-+ #0'I*$0123456789.", format[i]) != nullptr)
      ++i;
    if (i + 1 < format.size() && format[i] == 'l' && format[i + 1] != '\0' &&
        std::strchr("diouxXbB", format[i + 1]) != nullptr)
      return true;
  }
  return false;
}

// Why a case cannot be checked on this platform, or nullptr.
const char* left_out(const corpus_case& c) {
#ifndef __GLIBC__
  if (c.tags.find("libc") != std::string::npos)
    return "%m: the text of errno is the C library's (glibc's here)";
  if (c.tags.find("wide") != std::string::npos)
    return "a wide character beyond ASCII: the \"C\" locale converts it (glibc's refuses it)";
#endif
  // Windows' long is 32 bits: the corpus's %ld, %lu, %lx... were given
  // glibc's 64-bit long (as a long long, which a 32-bit long is not). Any
  // "%...l" before an integer conversion counts, "%%l" too: a few cases
  // more left out, none checked wrongly.
  if (sizeof(long) < sizeof(long long) && has_long_integer_directive(c.format))
    return "%l of an integer: long is 32 bits here, 64 in the corpus";
#if !(LDBL_MANT_DIG == 64 && (defined(__x86_64__) || defined(__i386__)))
  if (c.tags.find("x87") != std::string::npos)
    return "a long double given by x87 bits: long double is another format here";
#endif
  (void)c;
  return nullptr;
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
      case kind::int_value: return call_with(f, c, k + 1, done..., a.i);
      case kind::long_long_value: return call_with(f, c, k + 1, done..., a.j);
      case kind::double_value: return call_with(f, c, k + 1, done..., a.d);
      case kind::long_double_value: return call_with(f, c, k + 1, done..., a.e);
      case kind::pointer:
        // (Every pointer travels the same way on the platforms fastout
        // builds for: a char*, wchar_t* or counter read from a void*.)
        return call_with(f, c, k + 1, done..., pointer_of(a));
    }
  }
  ADD_FAILURE() << "line " << c.line << ": more than 4 arguments";
  return INT_MIN;
}

template <typename T>
long long read_as(const long long& cell) {
  T value;
  std::memcpy(&value, &cell, sizeof value);
  return static_cast<long long>(value);
}

long long count_in(const argument& a) {
  const std::string& k = a.count_kind;
  if (k == "hh") return read_as<signed char>(a.cell);
  if (k == "h") return read_as<short>(a.cell);
  if (k == "i") return read_as<int>(a.cell);
  if (k == "l" || k == "t") return read_as<long>(a.cell);
  if (k == "z") return read_as<std::size_t>(a.cell);
  return a.cell;  // ll, j
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
    if (n < c.counts.size() && count_in(a) != c.counts[n])
      return "%n stored " + std::to_string(count_in(a)) + ", glibc " + std::to_string(c.counts[n]);
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
    const char* why = left_out(cases[i]);
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
