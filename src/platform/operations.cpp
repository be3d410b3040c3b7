// SPDX-License-Identifier: MIT
// The operations built on the platform table that are the same on every
// platform: the write loop, and syncing with Apple's full sync where there
// is one. Everything here calls the system through the table, so tests can
// fail each call, and the fallbacks of one platform run (with fakes) on
// every other.
#include "platform/platform_internal.h"

#include <algorithm>
#include <atomic>

namespace fastout::detail {
namespace {

// writev() takes at most IOV_MAX segments (1024 on Linux and the BSDs; the
// callers pass a handful).
constexpr int max_segments = 1024;

// One call of the table: write() for one segment (a flush is one plain
// write(), never a writev() with an empty segment), writev() for several,
// write_uncached() while the system takes it.
ssize_t write_once(int fd, const struct iovec* segments, int count, bool uncached) noexcept {
  if (uncached) return platform.write_uncached(fd, segments, count);
  if (count == 1) return platform.write(fd, segments->iov_base, segments->iov_len);
  return platform.writev(fd, segments, count);
}

}  // namespace

FASTOUT_HOT int write_all(int fd, struct iovec* iov, int count, bool& uncached,
                          write_counts& counts, std::size_t cap) noexcept {
  if (cap == 0) cap = max_write_size;
  while (count > 0) {
    if (iov->iov_len == 0) {
      ++iov;
      --count;
      continue;
    }
    // Each call as much as the cap allows: whole segments while they fit,
    // then the part of the next one that fills the call up to the cap. The
    // kernel would cut one call of everything there itself, so a large
    // piece after a few buffered bytes costs no call more than it forces.
    int segment_count = 0;
    std::size_t total = 0;
    while (segment_count < count && segment_count < max_segments &&
           iov[segment_count].iov_len <= cap - total) {
      total += iov[segment_count].iov_len;
      ++segment_count;
    }
    struct iovec* cut = nullptr;  // the segment the call takes only a part of
    std::size_t cut_length = 0;   // its whole length, put back after the call
    if (segment_count < count && segment_count < max_segments && total < cap) {
      cut = &iov[segment_count];
      cut_length = cut->iov_len;
      cut->iov_len = cap - total;
      ++segment_count;
    }
    ++counts.calls;
    const ssize_t result = write_once(fd, iov, segment_count, uncached);
    if (cut != nullptr) cut->iov_len = cut_length;
    if (result < 0 && uncached && uncached_write_refused(errno)) {
      // Nothing was written: plain writes carry on.
      uncached = false;
      continue;
    }
    if (result > 0) {
      auto written = static_cast<std::size_t>(result);
      counts.bytes += written;
      while (count > 0 && written >= iov->iov_len) {
        written -= iov->iov_len;
        ++iov;
        --count;
      }
      if (count > 0) {
        iov->iov_base = static_cast<char*>(iov->iov_base) + written;
        iov->iov_len -= written;
      }
      continue;
    }
    int error_number = result == 0 ? EIO : errno;  // 0 for a non-empty write: no progress
    if (error_number == EINTR) continue;
    if (error_number == EAGAIN || error_number == EWOULDBLOCK) {
      // A non-blocking descriptor (a borrowed pipe, say): wait until it can
      // take more rather than lose or spin.
      if (platform.wait_writable(fd) == 0 || errno == EINTR) continue;
      error_number = errno;
    }
    return error_number;
  }
  return 0;
}

int sync_file(int fd, bool metadata) noexcept {
  // Apple's fsync() leaves the data in the drive's cache; F_FULLFSYNC does
  // not. A filesystem that refuses it (SMB, some FUSE ones) gets fsync(),
  // as SQLite and libuv do; a real failure is a failure. Elsewhere
  // full_fsync() says ENOTSUP at once.
  if (retry_interrupted([&] { return platform.full_fsync(fd); }) == 0) return 0;
  if (errno != ENOTSUP && errno != EOPNOTSUPP && errno != EINVAL && errno != ENOTTY) return -1;
  return retry_interrupted([&] { return metadata ? platform.fsync(fd) : platform.fdatasync(fd); });
}

bool raise_descriptor_limit_once() noexcept {
  // Once per process, whatever happens: a limit that could not be raised
  // will not be raised by asking again, and a program that lowered it after
  // fastout raised it meant to.
  static std::atomic<bool> tried{false};
  if (tried.exchange(true, std::memory_order_relaxed)) return false;
  return platform.raise_descriptor_limit() == 0;
}

int sync_directory(int dir) noexcept {
  return retry_interrupted([&] { return platform.fsync(dir); });
}

}  // namespace fastout::detail
