// SPDX-License-Identifier: MIT
// The versions libfastout was built as and with (include/fastout/config.h),
// and the check that it compiles with the {fmt} its CMake found.
#include <fastout/config.h>
#include <fmt/format.h>

// CMakeLists.txt reads FMT_VERSION from the headers of the fmt::fmt target
// it links and passes it here: a compiler that finds another {fmt} first on
// its include path (the system's, beside a parent project's own) stops now,
// instead of building a library that fails to link or misbehaves later.
#ifdef FASTOUT_EXPECTED_FMT_VERSION
static_assert(
    FMT_VERSION == FASTOUT_EXPECTED_FMT_VERSION,
    "the {fmt} headers fastout compiles with are not fmt::fmt's (" FASTOUT_EXPECTED_FMT_HEADER
    "): another {fmt} comes first on the include path");
#endif

extern "C" {

FASTOUT_API int fastout_version() { return FASTOUT_VERSION; }

FASTOUT_API int fastout_fmt_version() { return FMT_VERSION; }

}  // extern "C"
