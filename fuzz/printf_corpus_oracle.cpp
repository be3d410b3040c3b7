// SPDX-License-Identifier: MIT
// The printf target's judge where glibc is not there to ask: the bytes
// glibc 2.36 made, recorded in test/printf_corpus.txt (its fields are
// described in test/printf_corpus_generator.c; printf_corpus_test.cpp reads
// it the same way). Each input runs one recorded case, picked by the
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
#include "printf_fuzzer.h"

namespace fastout_fuzz {
namespace {

struct recorded_argument {
  passed how = passed::int_value;
  long long integer = 0;
  double d = 0;
  long double ld = 0;
  std::string text;
  std::vector<wchar_t> wide;
  bool null = false;
  bool is_wide = false;
  bool is_count = false;
  std::string count_kind;
  std::uintptr_t address = 0;
  bool is_address = false;
};

struct recorded_case {
  int line = 0;
  int rounding = FE_TONEAREST;
  int error = 0;
  std::string format;
  std::vector<recorded_argument> args;
  bool fails = false;
  int result = 0;
  std::string text;
  std::vector<long long> counts;
};

std::vector<recorded_case> corpus;

std::vector<std::string> split(const std::string& line, char separator) {
  std::vector<std::string> fields(1);
  for (char c : line) {
    if (c == separator)
      fields.emplace_back();
    else
      fields.back() += c;
  }
  return fields;
}

int hex_digit(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c - 'A' + 10;
}

std::string unescape(const std::string& escaped_text) {
  std::string bytes;
  for (std::size_t i = 0; i < escaped_text.size(); ++i) {
    if (escaped_text[i] == '\\' && i + 3 < escaped_text.size() + 1 && escaped_text[i + 1] == 'x') {
      bytes +=
          static_cast<char>(hex_digit(escaped_text[i + 2]) * 16 + hex_digit(escaped_text[i + 3]));
      i += 3;
    } else {
      bytes += escaped_text[i];
    }
  }
  return bytes;
}

unsigned long long parse_hex(const std::string& text) {
  unsigned long long value = 0;
  for (char c : text) value = value * 16 + static_cast<unsigned>(hex_digit(c));
  return value;
}

recorded_argument parse_argument(const std::string& token) {
  recorded_argument a;
  const std::string value = token.size() > 2 ? token.substr(2) : std::string();
  switch (token[0]) {
    case 'i': a.integer = std::stoi(value); break;
    case 'j':
      a.how = passed::long_long_value;
      a.integer = std::stoll(value);
      break;
    case 'd': {
      a.how = passed::double_value;
      const unsigned long long bits = parse_hex(value);
      std::memcpy(&a.d, &bits, sizeof a.d);
      break;
    }
    case 'e': {
      a.how = passed::long_double_value;
      unsigned char bytes[sizeof(long double)] = {};
      for (std::size_t i = 0; i < 10 && 2 * i + 1 < value.size(); ++i)
        bytes[i] =
            static_cast<unsigned char>(hex_digit(value[2 * i]) * 16 + hex_digit(value[2 * i + 1]));
      std::memcpy(&a.ld, bytes, sizeof a.ld);
      break;
    }
    case 's':
      a.how = passed::pointer;
      a.text = unescape(value);
      break;
    case 'z':
    case 'W':
      a.how = passed::pointer;
      a.null = true;
      break;
    case 'w':
      a.how = passed::pointer;
      a.is_wide = true;
      for (const std::string& code : split(value, ','))
        if (!code.empty()) a.wide.push_back(static_cast<wchar_t>(parse_hex(code)));
      a.wide.push_back(L'\0');
      break;
    case 'p':
      a.how = passed::pointer;
      a.is_address = true;
      a.address = static_cast<std::uintptr_t>(parse_hex(value));
      break;
    case 'n':
      a.how = passed::pointer;
      a.is_count = true;
      a.count_kind = value;
      break;
    default: break;
  }
  return a;
}

int errno_of(const std::string& name) {
  return name == "EINVAL"      ? EINVAL
         : name == "EILSEQ"    ? EILSEQ
         : name == "EOVERFLOW" ? EOVERFLOW
                               : -1;
}

// As printf_corpus_test.cpp's left_out(): the cases this platform cannot check.
bool left_out(const std::string& tags, const std::string& format) {
#ifndef __GLIBC__
  if (tags.find("libc") != std::string::npos || tags.find("wide") != std::string::npos) return true;
#endif
#if !(LDBL_MANT_DIG == 64 && (defined(__x86_64__) || defined(__i386__)))
  if (tags.find("x87") != std::string::npos) return true;
#endif
  if (sizeof(long) < sizeof(long long) && format.find('l') != std::string::npos) return true;
  static_cast<void>(tags);
  static_cast<void>(format);
  return false;
}

template <typename T>
long long read_as(const char* cell) {
  T value;
  std::memcpy(&value, cell, sizeof value);
  return static_cast<long long>(value);
}

long long count_in(const recorded_argument& a, const char* cell) {
  const std::string& k = a.count_kind;
  if (k == "hh") return read_as<signed char>(cell);
  if (k == "h") return read_as<short>(cell);
  if (k == "i") return read_as<int>(cell);
  if (k == "l" || k == "t") return read_as<long>(cell);
  if (k == "z") return read_as<std::size_t>(cell);
  return read_as<long long>(cell);
}

}  // namespace

void load_printf_corpus() {
  const char* path = std::getenv("FASTOUT_PRINTF_CORPUS");
  if (path == nullptr) path = FASTOUT_PRINTF_CORPUS;
  std::ifstream in(path, std::ios::binary);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> f = split(line, '\t');
    if (f.size() != 8) fail(std::string(path) + ":" + std::to_string(number) + ": not 8 fields");
    if (left_out(f[0], f[3])) continue;
    recorded_case c;
    c.line = number;
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
      c.result = -errno_of(f[5]);
    } else {
      c.result = std::stoi(f[5]);
    }
    c.text = unescape(f[6]);
    if (f[7] != "-")
      for (const std::string& count : split(f[7], ',')) c.counts.push_back(std::stoll(count));
    if (c.args.size() <= most_mixed_arguments) corpus.push_back(std::move(c));
  }
  if (corpus.size() < 10000)
    fail(std::string("cannot read the printf corpus ") + path +
         " (set FASTOUT_PRINTF_CORPUS to test/printf_corpus.txt)");
}

void run_corpus_case(const std::uint8_t* data, std::size_t size) {
  static scratch_file file;
  std::uint64_t hash = 14695981039346656037ull;  // FNV-1a
  for (std::size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 1099511628211ull;
  recorded_case& c = corpus[hash % corpus.size()];
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
    recorded_argument& a = c.args[k];
    types[k] = a.how;
    values.i[k] = static_cast<int>(a.integer);
    values.ll[k] = a.integer;
    values.d[k] = a.d;
    values.ld[k] = a.ld;
    values.p[k] = a.is_count     ? static_cast<const void*>(cells[k])
                  : a.null       ? nullptr
                  : a.is_wide    ? static_cast<const void*>(a.wide.data())
                  : a.is_address ? reinterpret_cast<const void*>(a.address)
                                 : static_cast<const void*>(a.text.c_str());
  }
  call_context context;
  context.format = c.format.c_str();
  context.shown_format = c.format;
  context.errno_before = c.error;
  context.rounding = c.rounding;
  const std::string where = "test/printf_corpus.txt line " + std::to_string(c.line) +
                            ", format \"" + escaped(c.format) + "\", " + show_settings(settings);
  use_locale(false);  // the corpus is the "C" locale's
  file.reset();
  context.out = open_writer(file, settings);
  const std::string written_before(settings.written_before, 'w');
  if (!written_before.empty() && fastout_write(written_before.data(), 1, written_before.size(),
                                               context.out) != written_before.size())
    fail("writing before the call failed");
  call_with_shape(&context, context.format, types, c.args.size(), values);
  if (context.segments.size() != 2) fail("no call shape for " + where);
  for (int pass = 0; pass < 2; ++pass) {
    if (context.results[pass] != c.result)
      fail("fastout_vfprintf() returned " + std::to_string(context.results[pass]) +
           ", glibc (recorded) " + std::to_string(c.result) + ": " + where);
    if (c.fails && context.errnos[pass] != -c.result)
      fail("fastout_vfprintf() failed with " + std::to_string(c.result) + " but left errno " +
           std::to_string(context.errnos[pass]) + ": " + where);
  }
  std::size_t n = 0;
  for (std::size_t k = 0; k < c.args.size(); ++k) {
    if (!c.args[k].is_count) continue;
    if (n < c.counts.size() && count_in(c.args[k], cells[k]) != c.counts[n])
      fail("%n stored " + std::to_string(count_in(c.args[k], cells[k])) + ", glibc (recorded) " +
           std::to_string(c.counts[n]) + ": " + where);
    ++n;
  }
  if (fastout_close(context.out) != 0) fail("fastout_close() failed: " + where);
  const std::string actual = file.contents();
  if (!c.fails && actual != written_before + c.text + c.text)
    fail("the file differs from glibc's recorded text: " + where);
  if (c.fails && actual.compare(0, written_before.size(), written_before) != 0)
    fail("a failed call changed what was written before it: " + where);
}

}  // namespace fastout_fuzz
