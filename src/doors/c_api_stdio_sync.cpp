// SPDX-License-Identifier: MIT
// fastout_sync_with_stdio() (include/fastout/c_api.h), in an object of its
// own: in libfastout it is C++'s sync_with_stdio() (src/doors/iostream.cpp),
// which needs <iostream>, whose static ios_base::Init builds the C++ locale
// and the standard streams when the program starts; a static libfastout's C
// program that never calls it links neither this object nor iostream.cpp's.
// In libfastout-c (FASTOUT_PRIVATE_CXX_RUNTIME) it is stdio's half alone:
// the C++ runtime there is fastout's own, and no program's std::cout is
// written through it, so libfastout-c is built without iostream.cpp and
// starts as a C program does (docs/c-api.md, "Building a C program with
// fastout").
#include <fastout/c_api.h>

#include <exception>

#include "doors/c_boundary_internal.h"

#ifdef FASTOUT_PRIVATE_CXX_RUNTIME
#  include "doors/stdio_sync_internal.h"
#else
#  include <fastout/iostream.h>
#endif

int fastout_sync_with_stdio(int on) noexcept {
  try {
#ifdef FASTOUT_PRIVATE_CXX_RUNTIME
    return fastout::detail::sync_stdio_streams(on != 0) ? 1 : 0;
#else
    return fastout::sync_with_stdio(on != 0) ? 1 : 0;
#endif
  } catch (...) {
    return fastout::failure(fastout::error_number_of(std::current_exception()));
  }
}
