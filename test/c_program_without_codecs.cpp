// SPDX-License-Identifier: MIT
// A program linked as a C program links libfastout-c (the C driver, the C++
// runtime from the archives fastout::c names), with the libfastout-c a build
// with neither codec makes (fastout_c_without_codecs, test/CMakeLists.txt).
// It writes a file, then asks for zstd through the C API and for zstd and
// gzip through the C++ API, and prints what it was told:
// c_program_without_codecs.cmake holds that to what every build without
// the codecs says, word for word, and reads the program's symbols: nothing
// of the compression engine. argv[1]: a directory to write in.
#include <cerrno>
#include <string>
#include <system_error>

#include <fastout/c_api.h>
#include <fastout/file.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const std::string directory = argv[1];
  fastout_file* plain = fastout_open((directory + "/plain.txt").c_str(), nullptr);
  if (plain == nullptr || fastout_fprintf(plain, "%s %d\n", "plain", 1) < 0 ||
      fastout_close(plain) != 0)
    return 1;
  fastout_options options;
  fastout_options_init(&options);
  options.compression = FASTOUT_COMPRESSION_ZSTD;
  errno = 0;
  fastout_file* compressed = fastout_open((directory + "/c.zst").c_str(), &options);
  const int error_number = errno;
  if (fastout_printf("c: %s, %s, available %d\n", compressed == nullptr ? "refused" : "opened",
                     error_number == ENOTSUP ? "ENOTSUP" : "another errno",
                     fastout_compression_available(FASTOUT_COMPRESSION_ZSTD)) < 0)
    return 1;
  for (const fastout::compression_options format :
       {fastout::compression_options(fastout::zstd{}),
        fastout::compression_options(fastout::gzip{})}) {
    try {
      fastout::file out = fastout::output_file(directory + "/out", fastout::compression = format);
      if (fastout_puts("c++: opened") < 0) return 1;
    } catch (const std::system_error& e) {
      if (fastout_printf("c++: %d: %s\n", e.code().value() == ENOTSUP, e.what()) < 0) return 1;
    }
  }
  return fastout_flush(fastout_stdout()) == 0 ? 0 : 1;
}
