// SPDX-License-Identifier: MIT
// fastout_printf's engine beyond its bytes (src/doors/printf_internal.h):
// the per-thread cache of parsed formats -- a format changed at the same
// address is parsed again, the memory stays within its bound, threads print
// at once (run under ThreadSanitizer too), a thread's last calls after its
// cache is gone -- which formats the fast executor takes, the limit on
// positional arguments, and strings read no
// further than their precision lets the engine (arrays with no terminator,
// ending at an unreadable page). The bytes themselves are
// printf_diff_test.c's (against glibc) and printf_corpus_test.cpp's
// (against glibc's recorded bytes).
#include <fastout/c_api.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <clocale>
#include <cstdio>
#include <cstring>
#include <cwchar>
#include <string>
#include <thread>
#include <vector>

#if defined(_WIN32)
#  include <windows.h>
#else
#  include <sys/mman.h>
#  include <unistd.h>
#endif

#include "doors/printf_internal.h"
#include "test_util.h"

namespace {

using fastout_test::read_file;
using fastout_test::temp_dir;

// A writer for the test, and what it holds once closed.
class printed {
 public:
  explicit printed(const std::string& path)
      : path_(path), file_(fastout_open(path.c_str(), nullptr)) {
    EXPECT_NE(file_, nullptr) << path;
  }
  ~printed() {
    if (file_ != nullptr) fastout_close(file_);
  }
  printed(const printed&) = delete;
  printed& operator=(const printed&) = delete;

  fastout_file* get() const { return file_; }
  std::string text() {
    EXPECT_EQ(fastout_close(file_), 0);
    file_ = nullptr;
    return read_file(path_);
  }

 private:
  std::string path_;
  fastout_file* file_;
};

// Calls fastout_printf with a format that is not a literal (the compiler's
// format check cannot follow the test's buffers).
template <typename... T>
int print(fastout_file* file, const char* format, T... args) {
  return fastout_fprintf(file, format, args...);
}

TEST(printf_engine, a_format_changed_at_its_address_is_parsed_again) {
  temp_dir dir;
  printed out(dir.file("out"));
  char format[64] = "%d|";
  EXPECT_EQ(print(out.get(), format, 7), 2);
  EXPECT_EQ(print(out.get(), format, 8), 2);  // from the cache
  std::strcpy(format, "%s|");                 // same address, another directive
  EXPECT_EQ(print(out.get(), format, "str"), 4);
  std::strcpy(format, "%s");  // shorter
  EXPECT_EQ(print(out.get(), format, "x"), 1);
  std::strcpy(format, "%s and %x\n");  // longer
  EXPECT_EQ(print(out.get(), format, "y", 255u), 9);
  format[1] = 'c';  // one byte changed in place
  EXPECT_EQ(print(out.get(), format, 'z', 16u), 9);
  EXPECT_EQ(out.text(), "7|8|str|xy and ff\nz and 10\n");
}

TEST(printf_engine, a_format_at_a_freed_address_is_parsed_again) {
  temp_dir dir;
  printed out(dir.file("out"));
  std::string expected;
  for (int round = 0; round < 200; ++round) {
    // The allocator often gives the freed block back: a new format at an
    // address the cache has seen.
    std::string text = round % 2 == 0 ? "%d-" : "[%s]";
    char* format = new char[text.size() + 1];
    std::memcpy(format, text.c_str(), text.size() + 1);
    if (round % 2 == 0) {
      print(out.get(), format, round);
      expected += std::to_string(round) + "-";
    } else {
      print(out.get(), format, "s");
      expected += "[s]";
    }
    delete[] format;
  }
  EXPECT_EQ(out.text(), expected);
}

// More formats than the cache holds, again and again: each is right, and
// the cache stays within the memory docs/c-api.md states.
TEST(printf_engine, many_formats_stay_right_and_the_cache_within_its_bound) {
  using fastout::detail::printf_engine::cache_memory;
  using fastout::detail::printf_engine::cache_memory_bound;
  using fastout::detail::printf_engine::largest_cached_plan;
  temp_dir dir;
  printed out(dir.file("out"));
  std::vector<std::string> formats;
  for (int i = 0; i < 300; ++i) formats.push_back("f" + std::to_string(i) + ":%d %s\n");
  // The largest plans the cache keeps: 256 bytes of format, 32 directives
  // that glibc's first parser takes but the last, then all of them again
  // by the second parser.
  for (int i = 0; i < 80; ++i) {
    std::string f = std::to_string(i);
    for (int k = 0; k < 31; ++k) f += "%.0d";
    f += "%1$.0d";
    f.resize(256, 'x');
    formats.push_back(f);
  }
  std::string expected;
  for (int round = 0; round < 3; ++round) {
    for (std::size_t i = 0; i < formats.size(); ++i) {
      if (i < 300) {
        print(out.get(), formats[i].c_str(), round, "r");
        expected += "f" + std::to_string(i) + ":" + std::to_string(round) + " r\n";
      } else {
        // Every argument 0 with precision 0: nothing, but the text.
        int zeros[32] = {};
        fastout_fprintf(out.get(), formats[i].c_str(), zeros[0], zeros[1], zeros[2], zeros[3],
                        zeros[4], zeros[5], zeros[6], zeros[7], zeros[8], zeros[9], zeros[10],
                        zeros[11], zeros[12], zeros[13], zeros[14], zeros[15], zeros[16], zeros[17],
                        zeros[18], zeros[19], zeros[20], zeros[21], zeros[22], zeros[23], zeros[24],
                        zeros[25], zeros[26], zeros[27], zeros[28], zeros[29], zeros[30],
                        zeros[31]);
        // The text without its directives.
        const std::string& f = formats[i];
        expected += f.substr(0, f.find('%')) + f.substr(f.rfind('d') + 1);
      }
      EXPECT_LE(cache_memory(), cache_memory_bound) << "after format " << i;
    }
  }
  // The cache is full of the largest plans now: close to its bound, and
  // never over it.
  EXPECT_GT(cache_memory(), cache_memory_bound / 2);
  EXPECT_LE(cache_memory(), cache_memory_bound);
  EXPECT_LT(largest_cached_plan, 8192u);
  EXPECT_EQ(out.text(), expected);
}

// Several threads, each with its writer, print the same formats (the same
// pointers) at once: each thread has its own plans. Run under
// ThreadSanitizer by scripts/test --sanitize thread.
TEST(printf_engine, threads_print_at_once) {
  temp_dir dir;
  static const char* const formats[] = {"%d\n", "%lld|%s\n", "%.3f %e\n", "%5x %-4c|\n",
                                        "%2$s %1$d\n"};
  constexpr int threads = 4;
  constexpr int calls = 4000;
  std::vector<std::thread> workers;
  std::vector<std::string> paths;
  for (int t = 0; t < threads; ++t) paths.push_back(dir.file("out" + std::to_string(t)));
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([t, &paths] {
      fastout_file* out = fastout_open(paths[static_cast<std::size_t>(t)].c_str(), nullptr);
      if (out == nullptr) return;
      for (int i = 0; i < calls; ++i) {
        switch ((i + t) % 5) {
          case 0: print(out, formats[0], i); break;
          case 1: print(out, formats[1], static_cast<long long>(i) * t, "s"); break;
          case 2: print(out, formats[2], i / 8.0, i * 1.5); break;
          case 3: print(out, formats[3], static_cast<unsigned>(i), 'a' + t); break;
          default: print(out, formats[4], i, "p"); break;
        }
      }
      fastout_close(out);
    });
  }
  for (auto& worker : workers) worker.join();
  for (int t = 0; t < threads; ++t) {
    std::string expected;
    char line[128];
    for (int i = 0; i < calls; ++i) {
      switch ((i + t) % 5) {
        case 0: std::snprintf(line, sizeof line, "%d\n", i); break;
        case 1:
          std::snprintf(line, sizeof line, "%lld|%s\n", static_cast<long long>(i) * t, "s");
          break;
        case 2: std::snprintf(line, sizeof line, "%.3f %e\n", i / 8.0, i * 1.5); break;
        case 3:
          std::snprintf(line, sizeof line, "%5x %-4c|\n", static_cast<unsigned>(i), 'a' + t);
          break;
        default: std::snprintf(line, sizeof line, "%s %d\n", "p", i); break;
      }
      expected += line;
    }
    EXPECT_EQ(read_file(paths[static_cast<std::size_t>(t)]), expected) << "thread " << t;
  }
}

// A thread's objects destroyed after its cache of plans: they still print
// (parsing each format), and nothing leaks (LeakSanitizer).
TEST(printf_engine, a_thread_prints_after_its_cache_is_gone) {
  temp_dir dir;
  const std::string path = dir.file("out");
  struct last_words {
    fastout_file* out = nullptr;
    ~last_words() {
      if (out == nullptr) return;
      print(out, "%s %d\n", "bye", 1);
      fastout_close(out);
    }
  };
  std::thread worker([&path] {
    // Constructed before the thread's first print, so destroyed after its
    // cache (thread_local objects go in reverse order).
    static thread_local last_words words;
    words.out = fastout_open(path.c_str(), nullptr);
    print(words.out, "%s %d\n", "hello", 0);
  });
  worker.join();
  EXPECT_EQ(read_file(path), "hello 0\nbye 1\n");
}

// glibc reads any number of positional arguments from the va_list; fastout
// reads at most NL_ARGMAX (4096), and refuses a format naming more, before
// printing anything.
TEST(printf_engine, more_than_4096_positional_arguments_are_refused) {
  temp_dir dir;
  printed out(dir.file("out"));
  EXPECT_EQ(print(out.get(), "a%4097$d", 1), -EINVAL);
  EXPECT_EQ(print(out.get(), "b%1$d\n", 2), 3);
  EXPECT_EQ(out.text(), "b2\n");
}

// One readable and writable page followed by one that can be neither read
// nor written: an array placed so that it ends where the page ends kills the
// test if anything reads one byte past it.
class guarded_page {
 public:
  guarded_page() {
#if defined(_WIN32)
    SYSTEM_INFO info;
    GetSystemInfo(&info);
    size_ = info.dwPageSize;
    void* at = VirtualAlloc(nullptr, 2 * size_, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
    DWORD old_protection;
    if (at == nullptr) {
      reason_ = "VirtualAlloc failed: Windows error " + std::to_string(GetLastError());
      return;
    }
    pages_ = static_cast<char*>(at);
    if (!VirtualProtect(pages_ + size_, size_, PAGE_NOACCESS, &old_protection))
      reason_ =
          "VirtualProtect(PAGE_NOACCESS) failed: Windows error " + std::to_string(GetLastError());
#else
    size_ = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    void* at = mmap(nullptr, 2 * size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (at == MAP_FAILED) {
      reason_ = std::string("mmap failed: ") + std::strerror(errno);
      return;
    }
    pages_ = static_cast<char*>(at);
    if (mprotect(pages_ + size_, size_, PROT_NONE) != 0)
      reason_ = std::string("mprotect(PROT_NONE) failed: ") + std::strerror(errno);
#endif
  }
  ~guarded_page() {
    if (pages_ == nullptr) return;
#if defined(_WIN32)
    VirtualFree(pages_, 0, MEM_RELEASE);
#else
    munmap(pages_, 2 * size_);
#endif
  }
  guarded_page(const guarded_page&) = delete;
  guarded_page& operator=(const guarded_page&) = delete;

  /// Empty if the guard is in place, else why not (the test then skips).
  const std::string& unavailable() const { return reason_; }
  /// `count` elements of `text` copied to the end of the readable page,
  /// with no terminator after them; returns where they begin.
  template <typename Char>
  const Char* at_end(const Char* text, std::size_t count) {
    char* begin = pages_ + size_ - count * sizeof(Char);
    std::memcpy(begin, text, count * sizeof(Char));
    return reinterpret_cast<const Char*>(begin);
  }

 private:
  char* pages_ = nullptr;
  std::size_t size_ = 0;
  std::string reason_;
};

// The formats real programs write run in the fast executor (issue 29;
// their bytes are printf_diff_test's), and the forms it does not lay out
// stay the general executor's, so that neither side drifts unseen.
TEST(printf_engine, real_formats_take_the_fast_executor) {
  using fastout::detail::printf_engine::plan;
  auto is_fast = [](const char* format) {
    plan p;
    fastout::detail::printf_engine::parse(format, std::strlen(format), p);
    return p.fast;
  };
  static const char* const fast[] = {"%s0x%02x",
                                     "%-12s %8.2f %6d\n",
                                     "%04d-%02d-%02dT%02d:%02d:%02d.%06d %-5s %s\n",
                                     "%5d",
                                     "%08.3f",
                                     "%+d",
                                     "% d",
                                     "%#x",
                                     "%#X",
                                     "%.3d",
                                     "%.0d",
                                     "%-+ #05.3d",
                                     "%3c",
                                     "%-2c",
                                     "%-12s",
                                     "%8.3s",
                                     "%8.*s",
                                     "%.*s",
                                     "%+e",
                                     "%-10g",
                                     "% 012.4E",
                                     "%1024d",
                                     "%.1024x",
                                     "%8.128f",
                                     "[%5d|%-5s|%5.1f|%%|%c]\n"};
  for (const char* format : fast) EXPECT_TRUE(is_fast(format)) << format;
  // 64-bit integers where long is 64 bits (LP64), read as the fast executor
  // reads them; where long is 32 bits they are the general executor's.
  static const char* const fast_where_long_is_64_bits[] = {"%-8ld", "%-+ #05.3lld", "%016llx",
                                                           "%zu",   "%jd",          "%8tx"};
  if (sizeof(long) == sizeof(long long)) {
    for (const char* format : fast_where_long_is_64_bits) EXPECT_TRUE(is_fast(format)) << format;
  }
  for (const char* format :
       {"%*d",  "%-*s", "%'d",    "%Id",  "%o",      "%#o",    "%b",      "%hd",
        "%hhx", "%#f",  "%#8.0f", "%Lf",  "%8.129f", "%1025d", "%.1025d", "%.*d",
        "%.*c", "%8p",  "%5lc",   "%8ls", "%5m",     "%1$5d",  "%5a"})
    EXPECT_FALSE(is_fast(format)) << format;
}

// A precision exists so that an array with no terminator can be printed:
// "%.3s" and "%.3ls" of three characters that end at an unreadable page
// read those three and no more, through every path of the engine (the fast
// executor, the general one, the second parser, widths on either side,
// precisions from arguments) and every buffer size.
TEST(printf_engine, a_precision_reads_no_character_past_it) {
  guarded_page narrow_page, wide_page;
  if (!narrow_page.unavailable().empty()) GTEST_SKIP() << narrow_page.unavailable();
  if (!wide_page.unavailable().empty()) GTEST_SKIP() << wide_page.unavailable();
  const char* abc = narrow_page.at_end("abc", 3);
  const wchar_t* wide_abc = wide_page.at_end(L"abc", 3);
  struct narrow_case {
    const char* format;
    const char* expected;
  };
  static const narrow_case narrow_cases[] = {
      {"[%.3s]", "[abc]"},        {"[%.2s]", "[ab]"},        {"[%5.3s]", "[  abc]"},
      {"[%-5.3s]", "[abc  ]"},    {"[%1$.3s]", "[abc]"},     {"[%1$5.3s]", "[  abc]"},
      {"[%.3s|%d]", "[abc|7]"},   {"[%.3ls]", "[abc]"},      {"[%.2ls]", "[ab]"},
      {"[%6.3ls]", "[   abc]"},   {"[%-6.3ls]", "[abc   ]"}, {"[%.3S]", "[abc]"},
      {"[%6.3S]", "[   abc]"},    {"[%1$.3ls]", "[abc]"},    {"[%1$6.3ls]", "[   abc]"},
      {"[%1$-6.3S]", "[abc   ]"}, {"[%.3ls|%d]", "[abc|7]"},
  };
  for (std::size_t buffer_size :
       {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{FASTOUT_DEFAULT_BUFFER_SIZE}}) {
    temp_dir dir;
    const std::string path = dir.file("out");
    fastout_options options;
    fastout_options_init(&options);
    options.buffer_size = buffer_size;
    fastout_file* out = fastout_open(path.c_str(), &options);
    ASSERT_NE(out, nullptr) << path;
    std::string expected;
    for (const narrow_case& c : narrow_cases) {
      const bool wide = std::strchr(c.format, 'l') != nullptr || std::strchr(c.format, 'S');
      const int result = wide ? print(out, c.format, wide_abc, 7) : print(out, c.format, abc, 7);
      EXPECT_EQ(result, static_cast<int>(std::strlen(c.expected)))
          << c.format << ", buffer size " << buffer_size;
      expected += c.expected;
    }
    // Precisions from arguments.
    EXPECT_EQ(print(out, "[%.*s]", 3, abc), 5);
    EXPECT_EQ(print(out, "[%*.*s]", -4, 3, abc), 6);
    EXPECT_EQ(print(out, "[%.*ls]", 3, wide_abc), 5);
    EXPECT_EQ(print(out, "[%*.*ls]", 5, 3, wide_abc), 7);
    EXPECT_EQ(print(out, "[%2$.*1$ls]", 3, wide_abc), 5);
    expected += "[abc][abc ][abc][  abc][abc]";
    ASSERT_EQ(fastout_close(out), 0);
    EXPECT_EQ(read_file(path), expected) << "buffer size " << buffer_size;
  }
}

// The same in a multibyte locale: "%.6ls" of three two-byte characters
// reads the three (six bytes) and not a fourth.
TEST(printf_engine, a_precision_in_bytes_reads_no_character_past_it) {
  guarded_page page;
  if (!page.unavailable().empty()) GTEST_SKIP() << page.unavailable();
  if (std::setlocale(LC_ALL, "C.UTF-8") == nullptr)
    GTEST_SKIP() << "no C.UTF-8 locale: setlocale(LC_ALL, \"C.UTF-8\") failed";
  const wchar_t* three = page.at_end(L"\u00e9\u00e9\u00e9", 3);
  temp_dir dir;
  printed out(dir.file("out"));
  const int plain = print(out.get(), "[%.6ls]", three);
  const int padded = print(out.get(), "[%8.6ls]", three);
  const int left = print(out.get(), "[%-8.6ls]", three);
  const int shorter = print(out.get(), "[%.5ls]", three);  // two fit, the third does not
  std::setlocale(LC_ALL, "C");
  EXPECT_EQ(plain, 8);
  EXPECT_EQ(padded, 10);
  EXPECT_EQ(left, 10);
  EXPECT_EQ(shorter, 6);
  EXPECT_EQ(out.text(),
            "[\xc3\xa9\xc3\xa9\xc3\xa9][  \xc3\xa9\xc3\xa9\xc3\xa9]"
            "[\xc3\xa9\xc3\xa9\xc3\xa9  ][\xc3\xa9\xc3\xa9]");
}

}  // namespace
