// SPDX-License-Identifier: MIT
// Test-only, and only in the Windows build: the file size limit of
// file_size_limit.h for the C tests (c_test.h declares it), which make one
// with setrlimit(RLIMIT_FSIZE) on Linux. test/CMakeLists.txt adds this file
// to every C test program of the Windows build.
#include "windows/file_size_limit.h"

#include <memory>

// Limits every file the platform table writes to `limit` bytes, with
// ERROR_FILE_TOO_LARGE (EFBIG) past it, for the rest of the process (a C
// test sets it in the child process c_test_run_in_child() starts).
extern "C" void c_test_limit_file_size(long long limit) {
  static std::unique_ptr<fastout_test::windows_file_size_limit> current;
  current.reset();
  current.reset(new fastout_test::windows_file_size_limit(limit));
}
