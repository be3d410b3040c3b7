// SPDX-License-Identifier: MIT
// A program that writes compressed standard output, for
// compressed_stdout_test.cpp, which runs it with its descriptors and
// signals set up and looks at how it exits:
//
//   compressed_stdout_helper DOOR FORMAT WORKERS LINES
//
// DOOR is `cxx` (fastout::standard_output() after
// set_standard_output_options()), `c` (fastout_open_stdout() with
// compression options) or `c_first` (fastout_set_stdout_options(), then
// fastout_printf() to standard output); FORMAT `zstd` or `gzip`. It writes LINES numbered
// lines and returns 0 from main: the exit handler ends the stream, and
// reports what it could not write (turning status 0 into 1).
#include <fastout/c_api.h>
#include <fastout/compression.h>
#include <fastout/fastout.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#if defined(_WIN32)
#  include <fcntl.h>
#  include <io.h>
#endif

int main(int argc, char** argv) {
#if defined(_WIN32)
  // The helper's own stdio lines without the C runtime's text mode (its
  // \r before \n); fastout itself never translates a byte.
  ::_setmode(1, _O_BINARY);
  ::_setmode(2, _O_BINARY);
#endif
  if (argc != 5) {
    std::fprintf(stderr, "usage: compressed_stdout_helper cxx|c|c_first zstd|gzip WORKERS LINES\n");
    return 2;
  }
  const bool zstd = std::strcmp(argv[2], "zstd") == 0;
  const unsigned workers = static_cast<unsigned>(std::atoi(argv[3]));
  const long lines = std::atol(argv[4]);
  if (std::strcmp(argv[1], "cxx") == 0) {
    fastout::file_options options;
    options.compression = zstd ? fastout::compression_options(fastout::zstd{})
                               : fastout::compression_options(fastout::gzip{});
    options.compression.workers = workers;
    fastout::set_standard_output_options(options);
    fastout::file& out = fastout::standard_output();
    for (long i = 0; i < lines; ++i) out.print("{} standard output line\n", i);
    return 0;
  }
  fastout_options options;
  fastout_options_init(&options);
  options.compression = zstd ? FASTOUT_COMPRESSION_ZSTD : FASTOUT_COMPRESSION_GZIP;
  options.compression_workers = workers;
  if (std::strcmp(argv[1], "c_first") == 0) {
    int error = fastout_set_stdout_options(&options);
    if (error < 0) {
      std::fprintf(stderr, "fastout_set_stdout_options: %s\n", fastout_error_name(error));
      return 2;
    }
    for (long i = 0; i < lines; ++i) fastout_printf("%ld standard output line\n", i);
    return 0;
  }
  fastout_file* out = fastout_open_stdout(&options);
  if (out == nullptr) {
    std::perror("fastout_open_stdout");
    return 2;
  }
  for (long i = 0; i < lines; ++i) fastout_fprintf(out, "%ld standard output line\n", i);
  return 0;
}
