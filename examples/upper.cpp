// SPDX-License-Identifier: MIT
// A filter: copies standard input to standard output in upper case.
//
//   upper [--stats] < in > out
//
// It handles one byte at a time, which is where fastout::cursor pays: the
// cursor keeps the buffer position in registers for the whole loop, where
// file::put() would reload it after every byte. With --stats it tells on
// standard error how many bytes it wrote and in how many write calls.
//
// It asks for write errors to be thrown, to say in its own words that the
// output could not be written (fastout's default for standard output is to
// report them at exit instead, as coreutils' close_stdout() does).
#include <fastout/fastout.h>

#include <cstdio>
#include <cstring>
#include <system_error>

namespace {

char to_upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

}  // namespace

int main(int argc, char** argv) {
  bool show_stats = argc > 1 && std::strcmp(argv[1], "--stats") == 0;
  try {
    fastout::file_options options;
    options.errors = fastout::write_errors::throw_exception;
    fastout::set_standard_output_options(options);
    // The process-wide writer on standard output: fully buffered into a
    // file or a pipe, line-buffered on a terminal.
    fastout::file& out = fastout::standard_output();
    static char input[1 << 16];
    std::size_t size;
    while ((size = std::fread(input, 1, sizeof input, stdin)) > 0) {
      fastout::cursor cursor = out.make_cursor();
      for (std::size_t i = 0; i < size; ++i) cursor.put(to_upper(input[i]));
    }  // the cursor hands its position back to `out` here
    if (std::ferror(stdin)) {
      std::perror("upper: reading standard input");
      return 1;
    }
    out.flush();  // the checked way: throws if anything could not be written
    if (show_stats) {
      fastout::file_stats stats = out.stats();
      // FMT_STRING: the format is checked when the program is built, in
      // C++17 too (C++20 checks a plain literal).
      fastout::standard_error().print(FMT_STRING("upper: {} bytes in {} write call{}\n"),
                                      stats.bytes_written, stats.write_calls,
                                      stats.write_calls == 1 ? "" : "s");
    }
  } catch (const std::system_error& e) {
    std::fprintf(stderr, "upper: %s\n", e.what());
    return 1;
  }
  return 0;
}
