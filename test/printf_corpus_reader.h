// SPDX-License-Identifier: MIT
// test/printf_corpus.txt read into cases: glibc's bytes for a format and
// its arguments, recorded on Linux by printf_corpus_generator.c (whose
// comment describes the fields). printf_corpus_test.cpp checks the engine
// against every case; the printf fuzz target (fuzz/printf_corpus_oracle.cpp)
// against one an input picks, where there is no glibc to ask. Neither
// GoogleTest nor fastout is needed here.
#ifndef FASTOUT_TEST_PRINTF_CORPUS_READER_H_
#define FASTOUT_TEST_PRINTF_CORPUS_READER_H_

#include <cerrno>
#include <cfenv>
#include <cfloat>
#include <cstddef>
#include <cstring>
#include <istream>
#include <string>
#include <utility>
#include <vector>

namespace fastout_test {

enum class corpus_kind { int_value, long_long_value, double_value, long_double_value, pointer };

struct corpus_argument {
  corpus_kind what = corpus_kind::int_value;
  int i = 0;
  long long j = 0;
  double d = 0;
  long double e = 0;
  std::string text;           // s:
  std::vector<wchar_t> wide;  // w:, with its terminator
  bool null = false;          // z, W
  bool is_wide = false;
  bool is_count = false;  // n:
  std::string count_kind;
  bool is_address = false;  // p:
  unsigned long long address = 0;
  long long cell = 0;  // where a caller may have %n store
};

struct corpus_case {
  int line = 0;
  std::string tags;
  int rounding = FE_TONEAREST;
  int error = 0;  // errno before the call (for %m)
  std::string format;
  std::vector<corpus_argument> args;
  bool fails = false;
  int result = 0;        // what printf returned, if it did not fail
  int error_number = 0;  // the errno it failed with, if it did
  std::string text;
  std::vector<long long> counts;  // what each %n stored, in order
};

namespace corpus_detail {

inline std::vector<std::string> split(const std::string& line, char separator) {
  std::vector<std::string> fields(1);
  for (char c : line) {
    if (c == separator)
      fields.emplace_back();
    else
      fields.back() += c;
  }
  return fields;
}

inline int hex_digit(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c - 'A' + 10;
}

// The corpus's text: bytes as they are, but "\xHH".
inline std::string unescape(const std::string& escaped) {
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

inline unsigned long long parse_hex(const std::string& text) {
  unsigned long long value = 0;
  for (char c : text) value = value * 16 + static_cast<unsigned>(hex_digit(c));
  return value;
}

inline int errno_of(const std::string& name) {
  if (name == "EINVAL") return EINVAL;
  if (name == "EILSEQ") return EILSEQ;
  if (name == "EOVERFLOW") return EOVERFLOW;
  return -1;
}

inline corpus_argument parse_argument(const std::string& token) {
  corpus_argument a;
  const std::string value = token.size() > 2 ? token.substr(2) : std::string();
  a.what = corpus_kind::pointer;
  switch (token[0]) {
    case 'i':
      a.what = corpus_kind::int_value;
      a.i = std::stoi(value);
      break;
    case 'j':
      a.what = corpus_kind::long_long_value;
      a.j = std::stoll(value);
      break;
    case 'd': {
      a.what = corpus_kind::double_value;
      const unsigned long long bits = parse_hex(value);
      std::memcpy(&a.d, &bits, sizeof a.d);
      break;
    }
    case 'e': {
      // x87's 10 bytes, as they lie in memory.
      a.what = corpus_kind::long_double_value;
      unsigned char bytes[sizeof(long double)] = {};
      for (std::size_t i = 0; i < 10 && 2 * i + 1 < value.size(); ++i)
        bytes[i] =
            static_cast<unsigned char>(hex_digit(value[2 * i]) * 16 + hex_digit(value[2 * i + 1]));
      std::memcpy(&a.e, bytes, sizeof a.e);
      break;
    }
    case 's': a.text = unescape(value); break;
    case 'z': a.null = true; break;
    case 'w':
      a.is_wide = true;
      for (const std::string& code : split(value, ','))
        if (!code.empty()) a.wide.push_back(static_cast<wchar_t>(parse_hex(code)));
      a.wide.push_back(L'\0');
      break;
    case 'W':
      a.is_wide = true;
      a.null = true;
      break;
    case 'p':
      a.is_address = true;
      a.address = parse_hex(value);
      break;
    case 'n':
      a.is_count = true;
      a.count_kind = value;
      break;
  }
  return a;
}

inline corpus_case parse_case(const std::vector<std::string>& f) {
  corpus_case c;
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
  return c;
}

// Whether `format` has a '%', then any of "-+ #0'I*$" and digits and '.',
// then 'l' and an integer conversion (diouxXbB). (Not std::regex: g++ 12
// warns inside <regex> under -fsanitize=address at -O2, and warnings are
// errors.)
inline bool has_long_integer_directive(const std::string& format) {
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

}  // namespace corpus_detail

// Every case of the corpus `in`, with its line number. A line that is not
// a case (not 8 fields) is skipped and named in `problems`.
inline std::vector<corpus_case> read_printf_corpus(std::istream& in,
                                                   std::vector<std::string>& problems) {
  std::vector<corpus_case> cases;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> fields = corpus_detail::split(line, '\t');
    if (fields.size() != 8) {
      problems.push_back("line " + std::to_string(number) + ": " + std::to_string(fields.size()) +
                         " fields, not 8");
      continue;
    }
    cases.push_back(corpus_detail::parse_case(fields));
    cases.back().line = number;
  }
  return cases;
}

// Why a case cannot be checked on this platform, or nullptr.
inline const char* corpus_case_left_out(const corpus_case& c) {
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
  if (sizeof(long) < sizeof(long long) && corpus_detail::has_long_integer_directive(c.format))
    return "%l of an integer: long is 32 bits here, 64 in the corpus";
#if !(LDBL_MANT_DIG == 64 && (defined(__x86_64__) || defined(__i386__)))
  if (c.tags.find("x87") != std::string::npos)
    return "a long double given by x87 bits: long double is another format here";
#endif
  static_cast<void>(c);
  return nullptr;
}

// What a %n of `a`'s length (hh, h, l, ...) stored in `cell`.
inline long long corpus_count(const corpus_argument& a, const void* cell) {
  const auto read_as = [cell](auto value) {
    std::memcpy(&value, cell, sizeof value);
    return static_cast<long long>(value);
  };
  const std::string& k = a.count_kind;
  if (k == "hh") return read_as(static_cast<signed char>(0));
  if (k == "h") return read_as(static_cast<short>(0));
  if (k == "i") return read_as(0);
  if (k == "l" || k == "t") return read_as(0L);
  if (k == "z") return read_as(std::size_t{0});
  return read_as(0LL);  // ll, j
}

}  // namespace fastout_test

#endif  // FASTOUT_TEST_PRINTF_CORPUS_READER_H_
