// SPDX-License-Identifier: MIT
// A program linked as a C program links libfastout-c (the C driver, the C++
// runtime from the archives fastout::c names), whose last words are
// libfastout-c's terminate handler's (src/doors/c_boundary.cpp): run by
// c_program_link.cmake, which expects the exception's type and what()
// on standard error, an abort, and no demangler in the program. Before
// that, the program asks through the C++ API for what the C API cannot
// (a replacement), which libfastout-c refuses: the replace stage is not in
// it, and the script checks that the program carries none of it. In a
// build with zstd, it also asks for zstd with the library made unloadable:
// the refusal must give the loader's reason.
#include <cerrno>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <system_error>

#include <fastout/c_api.h>
#include <fastout/compression.h>
#include <fastout/file.h>

namespace {

// Called through a pointer, so that the compiler cannot see the throw
// meet the noexcept: std::terminate() at run time, as a defect would.
void (*volatile thrower)() = [] {
  throw std::runtime_error("an exception left a noexcept function");
};

void escape() noexcept { thrower(); }

}  // namespace

int main(int argc, char** argv) {
  // argv[1]: a directory to try a replacement in; argv[2]: "zstd" or none.
  if (argc < 2) return 2;
  try {
    fastout::file replaced =
        fastout::output_file(std::string(argv[1]) + "/replaced", fastout::open_mode::replace);
    return 3;  // accepted: the replace stage is there after all
  } catch (const std::system_error& e) {
    if (e.code().value() != ENOTSUP) return 4;
    if (fastout_printf("replace: %s\n", e.what()) < 0) return 1;
  }
  // argv[2] "zstd": the script names a libzstd that is not there
  // (FASTOUT_ZSTD_LIBRARY); the open is refused with the loader's reason,
  // not as a build without zstd would be.
  if (argc > 2 && std::string(argv[2]) == "zstd") {
    try {
      fastout::file compressed = fastout::output_file(std::string(argv[1]) + "/unloadable.zst",
                                                      fastout::compression = fastout::zstd{});
      return 5;  // written compressed without its library
    } catch (const std::system_error& e) {
      if (e.code().value() != ENOTSUP) return 6;
      if (fastout_printf("zstd: %s\n", e.what()) < 0) return 1;
    }
  }
  // What a C program calls, so the C API's boundary is linked as it is in
  // every C program.
  if (fastout_puts("before the exception") < 0) return 1;
  if (fastout_flush(fastout_stdout()) < 0) return 1;
  escape();
  return 0;
}
