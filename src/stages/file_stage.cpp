// SPDX-License-Identifier: MIT
// The route's defaults, which hand every call to the next stage, and the
// last stage, the platform's file (file_stage_internal.h).
#include "stages/file_stage_internal.h"

#include <cerrno>
#include <new>
#include <system_error>

#include "stages/messages_internal.h"

namespace fastout::detail {

// ------------------------------------------------------------- the defaults

stage::~stage() { delete next_; }

int stage::drain(char*& buffer, std::size_t, std::size_t pending, const char* more,
                 std::size_t more_size) noexcept {
  // No empty segment: a flush is one write() of the buffer, as stdio's is,
  // and writev() only when there are two pieces to send.
  struct iovec iov[2] = {{buffer, pending}, {const_cast<char*>(more), more_size}};
  const int skip = pending == 0 ? 1 : 0;
  return write(iov + skip, (more_size == 0 ? 1 : 2) - skip);
}
int stage::write(struct iovec* iov, int count) noexcept { return next_->write(iov, count); }
int stage::flush() noexcept { return next_->flush(); }
int stage::sync(bool metadata) noexcept { return next_->sync(metadata); }
int stage::finish(int error_number, bool error_from_sync, bool commit) noexcept {
  return next_->finish(error_number, error_from_sync, commit);
}
std::int64_t stage::seek(std::int64_t offset, int whence) noexcept {
  return next_->seek(offset, whence);
}
route_counts stage::counts() const noexcept { return next_->counts(); }
int stage::descriptor() const noexcept { return next_->descriptor(); }
bool stage::interactive() const noexcept { return next_->interactive(); }
bool stage::drops_page_cache() const noexcept { return next_->drops_page_cache(); }
compression_options stage::compression() const noexcept { return next_->compression(); }
bool stage::provisional() const noexcept { return next_->provisional(); }
std::string stage::describe_failure(const char* action, const std::string& path,
                                    std::uint64_t accepted) const {
  return next_->describe_failure(action, path, accepted);
}
std::string stage::describe_close_failure(const std::string& path, std::uint64_t delivered,
                                          std::uint64_t accepted, bool sync_failed) const {
  return next_->describe_close_failure(path, delivered, accepted, sync_failed);
}
bool stage::describes_close() const noexcept { return next_->describes_close(); }
void stage::complete_report(error_report& report, std::uint64_t accepted) const noexcept {
  next_->complete_report(report, accepted);
}
int stage::abandon_error() const noexcept { return next_->abandon_error(); }
bool stage::failed_in_writeback() const noexcept { return next_->failed_in_writeback(); }

// ------------------------------------------------------------ the file

file_stage::~file_stage() {
  if (owns_fd_ && fd_ >= 0) {
    const int saved = errno;
    platform.close(fd_);
    errno = saved;
  }
}

int file_stage::drain(char*& buffer, std::size_t, std::size_t pending, const char* more,
                      std::size_t more_size) noexcept {
  // The common drain, without a second virtual call: as stage::drain().
  struct iovec iov[2] = {{buffer, pending}, {const_cast<char*>(more), more_size}};
  const int skip = pending == 0 ? 1 : 0;
  return write_all(fd_, iov + skip, (more_size == 0 ? 1 : 2) - skip, uncached_, counts_);
}

int file_stage::write(struct iovec* iov, int count) noexcept {
  return write_all(fd_, iov, count, uncached_, counts_);
}

int file_stage::sync(bool metadata) noexcept { return sync_file(fd_, metadata) == 0 ? 0 : errno; }

int file_stage::finish(int error_number, bool, bool) noexcept {
  if (owns_fd_ && fd_ >= 0) {
    // Linux releases the descriptor even when close() fails, and EINTR does
    // not put the data in doubt: never retry; report anything else.
    if (platform.close(fd_) != 0 && errno != EINTR && error_number == 0) {
      error_number = errno;
      closing_failed_ = true;
    }
  }
  fd_ = -1;
  return error_number;
}

std::int64_t file_stage::seek(std::int64_t offset, int whence) noexcept {
  if (fd_ < 0) return -EBADF;
  const auto system_offset = static_cast<off_t>(offset);
  if (static_cast<std::int64_t>(system_offset) != offset) return -EOVERFLOW;
  const off_t position = platform.lseek(fd_, system_offset, whence);
  if (position < 0) return -(errno != 0 ? errno : EIO);
  return static_cast<std::int64_t>(position);
}

route_counts file_stage::counts() const noexcept {
  return {counts_.bytes, counts_.calls, counts_.bytes};
}

bool file_stage::interactive() const noexcept {
  // stdio's rule: a terminal is line-buffered. Only a character device can
  // be one, so files and pipes cost one fstat and no ioctl.
  struct stat st;
  return fd_ >= 0 && platform.fstat(fd_, &st) == 0 && S_ISCHR(st.st_mode) &&
         platform.is_terminal(fd_) == 1;
}

compression_options file_stage::compression() const noexcept {
  compression_options none;
  none.workers = 0;
  return none;
}

std::string file_stage::describe_failure(const char* action, const std::string& path,
                                         std::uint64_t accepted) const {
  return "cannot " + std::string(action) + " " + quoted(path) + " (" +
         std::to_string(counts_.bytes) + " of " + std::to_string(accepted) +
         " bytes reached the file)";
}

std::string file_stage::describe_close_failure(const std::string& path, std::uint64_t,
                                               std::uint64_t accepted, bool sync_failed) const {
  return describe_failure(closing_failed_ ? "close"
                          : sync_failed   ? "sync"
                                          : "write to",
                          path, accepted);
}

void file_stage::complete_report(error_report& report, std::uint64_t) const noexcept {
  report.close_failed = closing_failed_;
}

}  // namespace fastout::detail
