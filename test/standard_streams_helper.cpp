// SPDX-License-Identifier: MIT
// A program for standard_streams_test: what happens to fastout's standard
// output and error when a process runs and exits can only be seen from
// outside it. The test runs this with its descriptors, signals, limits and
// environment set up, and checks what came out and how it ended.
//
//   standard_streams_helper SCENARIO [N [STATUS]]
//
// Each scenario writes something and ends in its own way (see below). Lines
// starting with "helper:" on stderr are the helper's own reports.
#include <fastout/iostream.h>
#include <fastout/print.h>
#include <fastout/standard_streams.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <system_error>

#include <unistd.h>
#if defined(_WIN32)
#  include <fcntl.h>
#  include <io.h>

#  include "windows/file_size_limit.h"
#endif

namespace {

using fastout::standard_error;
using fastout::standard_output;

// Written from a static object's destructor: the object is made before
// main() and before standard_output() is first used, so its destructor runs
// after main() returns, before the exit handler.
struct writes_when_destroyed {
  const char* text = nullptr;
  ~writes_when_destroyed() {
    if (text != nullptr) standard_output().write(text, std::strlen(text));
  }
};
writes_when_destroyed static_object;

// Runs from the program's fini array, after every exit handler.
const char* late_text = nullptr;
__attribute__((destructor)) void write_late() {
  if (late_text != nullptr) standard_output().write(late_text, std::strlen(late_text));
}

void report_stats(const char* which, const fastout::file& f) {
  fastout::file_stats s = f.stats();
  std::fprintf(stderr, "helper: %s write calls %llu, pending %zu, line-buffered %d, buffer %zu\n",
               which, static_cast<unsigned long long>(s.write_calls), f.bytes_pending(),
               f.line_buffered() ? 1 : 0, f.buffer_capacity());
}

void write_lines(fastout::file& out, long count) {
  for (long i = 0; i < count; ++i) out.print("line {}\n", i);
}

[[noreturn]] void exit_from_deep_inside(int status) { std::exit(status); }

// Lines of exactly 100 bytes, `bytes` / 100 of them.
void write_100_byte_lines(fastout::file& out, long bytes) {
  for (long i = 0; i < bytes / 100; ++i) out.print("{:>99}\n", i);
}

// Asks for the exceptions that a write error on standard output throws.
void ask_for_exceptions() {
  fastout::file_options options;
  options.errors = fastout::write_errors::throw_exception;
  fastout::set_standard_output_options(options);
}

int run(const std::string& scenario, long n, int status) {
  fastout::file& out = standard_output();
  if (scenario == "hello") {
    out.write("hello\n");  // never flushed by the program
    return 0;
  }
  if (scenario == "exit") {
    out.write("via exit()\n");
    exit_from_deep_inside(static_cast<int>(n));
  }
  if (scenario == "quick_exit") {
    out.write("lost, as stdio's would be\n");
    std::_Exit(0);
  }
  if (scenario == "destructors") {
    static_object.text = "from a static destructor\n";
    late_text = "from a destructor function\n";
    out.write("from main\n");
    return 0;
  }
  if (scenario == "describe") {
    report_stats("stdout", out);
    report_stats("stderr", standard_error());
    std::fprintf(stderr, "helper: same %d\n",
                 &standard_output() == &out && &standard_error() == &standard_error() ? 1 : 0);
    return 0;
  }
  if (scenario == "lines") {
    write_lines(out, n);
    return 0;
  }
  if (scenario == "lines-catch" || scenario == "lines-ignore") {
    ask_for_exceptions();
    try {
      write_lines(out, n);
      out.flush();
    } catch (const std::system_error& e) {
      if (scenario == "lines-ignore") return 0;  // as if all was well
      std::fprintf(stderr, "helper: %s\n", e.what());
      return 1;
    }
    return 0;
  }
  if (scenario == "print-bytes") {
    // A program that never catches anything and never looks at an error:
    // N bytes, then main() returns STATUS.
    write_100_byte_lines(out, n);
    return status;
  }
  if (scenario == "print-bytes-stats") {
    // The same, and what the writer knows before the exit handler reports.
    write_100_byte_lines(out, n);
    const fastout::file_stats s = out.stats();
    std::fprintf(stderr, "helper: error %d, accepted %llu, written %llu, write calls %llu\n",
                 out.error().value(), static_cast<unsigned long long>(s.bytes_accepted),
                 static_cast<unsigned long long>(s.bytes_written),
                 static_cast<unsigned long long>(s.write_calls));
    return status;
  }
  if (scenario == "print-bytes-exceptions") {
    // A program that asked for exceptions gets the first write error thrown.
    ask_for_exceptions();
    try {
      write_100_byte_lines(out, n);
    } catch (const std::system_error& e) {
      std::fprintf(stderr, "helper: caught %s\n", e.what());
      return status;
    }
    std::fprintf(stderr, "helper: nothing was thrown\n");
    return 0;
  }
  if (scenario == "cout-lines" || scenario == "printf-lines") {
    // Through std::cout or printf, synced with fastout: errors set badbit
    // or return -1, nothing throws, and the loop runs to the end.
    fastout::sync_with_stdio();
    for (long i = 0; i < n; ++i) {
      if (scenario == "cout-lines") {
        std::cout << "line " << i << '\n';
      } else {
        std::printf("line %ld\n", i);
      }
    }
    std::fprintf(stderr, "helper: cout good %d, stdout error %d, write calls %llu\n",
                 std::cout.good() ? 1 : 0, std::ferror(stdout) ? 1 : 0,
                 static_cast<unsigned long long>(out.stats().write_calls));
    return 0;
  }
  if (scenario == "stderr") {
    fastout::file& err = standard_error();
    err.write("one ");
    err.print("{} ", 2);
    err.put('\n');
    report_stats("stderr", err);
    return 0;
  }
  if (scenario == "line-mode") {
    fastout::file_options options;
    options.buffer_mode = fastout::buffering::line;
    fastout::set_standard_output_options(options);
    out.write("a\nb\n");
    out.write("c\n");
    out.write("partial");
    report_stats("stdout", out);
    return 0;
  }
  if (scenario == "mixed-synced") {
    // Every way of writing to standard output and error, interleaved.
    fastout::sync_with_stdio();
    std::printf("1 printf\n");
    out.write("2 fastout\n");
    std::cout << "3 cout " << 3.5 << '\n';
    std::puts("4 puts");
    out.print("{} fastout print\n", 5);
    std::putchar('6');
    std::putchar('\n');
    std::fputs("7 fputs\n", stdout);
    std::cout << "8 cout endl" << std::endl;
    std::fwrite("9 fwrite\n", 1, 9, stdout);
    out.write(std::string(300000, 'x'));  // larger than the buffer
    out.put('\n');
    std::printf("10 %s\n", std::string(5000, 'y').c_str());
    std::fprintf(stderr, "e1 fprintf\n");
    standard_error().write("e2 fastout\n");
    std::cerr << "e3 cerr\n";
    std::clog << "e4 clog\n";
    std::fputs("e5 fputs\n", stderr);
    return 0;
  }
  if (scenario == "mixed-unsynced") {
    // Without sync_with_stdio(): each flushes before the other writes.
    std::printf("1 printf\n");
    std::fflush(stdout);
    out.write("2 fastout\n");
    out.flush();
    std::cout << "3 cout\n";
    std::cout.flush();
    out.write("4 fastout\n");
    return 0;
  }
  if (scenario == "sync-unsync") {
    fastout::sync_with_stdio(true, fastout::flush_policy::on_close);
    std::printf("1 printf synced\n");
    std::cout << "2 cout synced" << std::endl;
    bool was = fastout::sync_with_stdio(false);
    std::printf("3 printf %d\n", was ? 1 : 0);
    std::cout << "4 cout" << std::endl;
    out.write("5 fastout\n");
    return 0;
  }
  if (scenario == "cout-endl") {
    // std::endl n times through std::cout synced with fastout, with the
    // flush policy named by argv[2]: "standard" or "on_close".
    fastout::sync_with_stdio(
        true, n == 0 ? fastout::flush_policy::standard : fastout::flush_policy::on_close);
    for (int i = 0; i < 5; ++i) std::cout << "line " << i << std::endl;
    report_stats("stdout", out);
    return 0;
  }
  if (scenario == "prompt") {
    // On a terminal, printf's partial line is visible at once.
    fastout::sync_with_stdio();
    std::printf("name? ");
    report_stats("stdout", out);
    return 0;
  }
  std::fprintf(stderr, "helper: unknown scenario \"%s\"\n", scenario.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
#if defined(_WIN32)
  // The helper's own stdio lines without the C runtime's text mode, which
  // would put \r before each \n: the test compares them with Linux's.
  // (fastout itself never translates a byte, whatever the mode.)
  ::_setmode(1, _O_BINARY);
  ::_setmode(2, _O_BINARY);
  // A file size limit, which Linux's test sets with setrlimit() before it
  // starts the helper: through the platform table here, for the whole
  // process, the exit handler included (so never destroyed).
  if (const char* limit = std::getenv("FASTOUT_TEST_FILE_SIZE_LIMIT"); limit && *limit)
    new fastout_test::windows_file_size_limit(std::strtoll(limit, nullptr, 10));
#endif
  if (argc < 2) {
    std::fprintf(stderr, "usage: standard_streams_helper SCENARIO [N]\n");
    return 2;
  }
  long n = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 0;
  int status = argc > 3 ? static_cast<int>(std::strtol(argv[3], nullptr, 10)) : 0;
  return run(argv[1], n, status);
}
