// SPDX-License-Identifier: MIT
// Test-only, and only in the Windows build: a file size limit through the
// platform table, for the tests that make one for real on Linux
// (RLIMIT_FSIZE, a small tmpfs). test_util.h includes it for the C++ tests;
// file_size_limit_c.cpp gives it to the C tests.
#ifndef FASTOUT_TEST_WINDOWS_FILE_SIZE_LIMIT_H_
#define FASTOUT_TEST_WINDOWS_FILE_SIZE_LIMIT_H_

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <vector>

#include <sys/stat.h>

#include "platform/platform_internal.h"

namespace fastout_test {

// A file that cannot grow past `limit` bytes, for the lifetime of the
// object, through the platform table's write() and writev(): what a Linux
// test makes happen for real with RLIMIT_FSIZE (EFBIG) or a small tmpfs
// (ENOSPC), which Windows has not. A write that would cross the limit
// writes what fits (a short write, as the kernel's), and the next one
// fails with the errno the Windows platform gives `windows_error`:
// ERROR_FILE_TOO_LARGE (EFBIG), what Windows says where a file outgrows
// what its filesystem or share takes (FAT32's 4 GiB, a WebDAV share's
// limit), or ERROR_DISK_FULL (ENOSPC), a full volume. The limit is on the
// file's size (every write of the tests that use it lands at the end) and
// applies to regular files only, as RLIMIT_FSIZE does. Writes that do not
// go through fastout's table (a test's own std::ofstream) are not limited.
class windows_file_size_limit {
 public:
  explicit windows_file_size_limit(long long limit, unsigned long windows_error = 223)
      : saved_(fastout::detail::platform) {  // 223: ERROR_FILE_TOO_LARGE
    state() = {limit, windows_error};
    fastout::detail::platform.write = [](int fd, const void* data, size_t size) -> ssize_t {
      struct iovec piece = {const_cast<void*>(data), size};
      return limited_writev(fd, &piece, 1);
    };
    fastout::detail::platform.writev = limited_writev;
  }
  ~windows_file_size_limit() { fastout::detail::platform = saved_; }
  windows_file_size_limit(const windows_file_size_limit&) = delete;
  windows_file_size_limit& operator=(const windows_file_size_limit&) = delete;

 private:
  struct settings {
    long long limit;
    unsigned long windows_error;
  };
  static settings& state() {
    static settings current = {0, 0};
    return current;
  }
  static ssize_t limited_writev(int fd, const struct iovec* iov, int count) {
    const fastout::detail::platform_calls& real = fastout::detail::real_platform;
    struct stat st;
    if (real.fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return real.writev(fd, iov, count);
    std::size_t total = 0;
    for (int k = 0; k < count; ++k) total += iov[k].iov_len;
    const long long room = state().limit - static_cast<long long>(st.st_size);
    if (total > 0 && room <= 0) {
      errno = fastout::detail::errno_of_windows_error(state().windows_error);
      return -1;
    }
    std::vector<struct iovec> fitting;
    std::size_t left = static_cast<std::size_t>(room);
    for (int k = 0; k < count && left > 0; ++k) {
      const std::size_t size = std::min(iov[k].iov_len, left);
      fitting.push_back({iov[k].iov_base, size});
      left -= size;
    }
    return real.writev(fd, fitting.data(), static_cast<int>(fitting.size()));
  }

  fastout::detail::platform_calls saved_;
};

}  // namespace fastout_test

#endif  // FASTOUT_TEST_WINDOWS_FILE_SIZE_LIMIT_H_
