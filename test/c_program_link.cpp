// SPDX-License-Identifier: MIT
// A program linked as a C program links libfastout-c (the C driver, the C++
// runtime from the archives fastout::c names), whose last words are
// libfastout-c's terminate handler's (src/doors/c_boundary.cpp): run by
// c_program_link.cmake, which expects the exception's type and what()
// on standard error, an abort, and no demangler in the program.
#include <stdexcept>

#include <fastout/c_api.h>

namespace {

// Called through a pointer, so that the compiler cannot see the throw
// meet the noexcept: std::terminate() at run time, as a defect would.
void (*volatile thrower)() = [] { throw std::runtime_error("an exception left a noexcept function"); };

void escape() noexcept { thrower(); }

}  // namespace

int main() {
  // What a C program calls, so the C API's boundary is linked as it is in
  // every C program.
  if (fastout_puts("before the exception") < 0) return 1;
  if (fastout_flush(fastout_stdout()) < 0) return 1;
  escape();
  return 0;
}
