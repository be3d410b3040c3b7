// SPDX-License-Identifier: MIT
// An output_sink on a descriptor, for the tests that drive compressed
// output's engine without a writer. The library has none of its own: a
// writer's compressed bytes leave through the writer's one write path. This
// one makes the calls through the fake system-call table, so the engine's
// handling of what a sink reports (short writes continued, the exact count
// on failure, a sticky error) can be tested with the fakes.
#ifndef FASTOUT_COMPRESSION_TEST_SINK_H_
#define FASTOUT_COMPRESSION_TEST_SINK_H_

#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdint>

#include <poll.h>
#include <sys/uio.h>

#include "stages/compression_internal.h"
#include "platform/platform_internal.h"

namespace fastout_test {

// Short writes continued, EINTR retried, EAGAIN waited out with poll(), the
// first other failure sticky.
class fd_output_sink final : public fastout::detail::output_sink {
 public:
  explicit fd_output_sink(int fd) noexcept : fd_(fd) {}

  int write(struct iovec* iov, int count, std::uint64_t& written) noexcept override {
    using fastout::detail::platform;
    if (error_ != 0) return error_;
    while (count > 0) {
      if (iov->iov_len == 0) {
        ++iov;
        --count;
        continue;
      }
      ++write_calls_;
      ssize_t result = count == 1 ? platform.write(fd_, iov->iov_base, iov->iov_len)
                                  : platform.writev(fd_, iov, count < IOV_MAX ? count : IOV_MAX);
      if (result > 0) {
        auto done = static_cast<std::size_t>(result);
        written += done;
        while (count > 0 && done >= iov->iov_len) {
          done -= iov->iov_len;
          ++iov;
          --count;
        }
        if (count > 0) {
          iov->iov_base = static_cast<char*>(iov->iov_base) + done;
          iov->iov_len -= done;
        }
        continue;
      }
      int error_number = result == 0 ? EIO : errno;
      if (error_number == EINTR) continue;
      if (error_number == EAGAIN || error_number == EWOULDBLOCK) {
        if (platform.wait_writable(fd_) == 0 || errno == EINTR) continue;
        error_number = errno;
      }
      error_ = error_number;
      return error_number;
    }
    return 0;
  }

  int error() const noexcept { return error_; }
  std::uint64_t write_calls() const noexcept { return write_calls_; }

 private:
  int fd_;
  int error_ = 0;
  std::uint64_t write_calls_ = 0;
};

}  // namespace fastout_test

#endif  // FASTOUT_COMPRESSION_TEST_SINK_H_
