// SPDX-License-Identifier: MIT
// fastout_sync_with_stdio() (include/fastout/c_api.h), in an object of its
// own: it points std::cout and stdio's stdout at fastout's writers
// (src/doors/iostream.cpp), so it needs <iostream>, whose static
// ios_base::Init builds the C++ locale and the standard streams when the
// program starts. A static libfastout's C program that never calls it links
// neither this object nor iostream.cpp's, and starts as fast as with stdio
// (docs/c-api.md, "Building a C program with fastout").
#include <fastout/c_api.h>

#include <exception>

#include <fastout/iostream.h>

#include "doors/c_boundary_internal.h"

int fastout_sync_with_stdio(int on) noexcept {
  try {
    return fastout::sync_with_stdio(on != 0) ? 1 : 0;
  } catch (...) {
    return fastout::failure(fastout::error_number_of(std::current_exception()));
  }
}
