// SPDX-License-Identifier: MIT
// The route's defaults, which hand every call to the next stage, and the
// last stage, the platform's file (file_stage_internal.h).
#include "stages/file_stage_internal.h"

#include <cerrno>
#include <new>
#include <system_error>
#include <thread>

#include "stages/descriptors_internal.h"
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

// ------------------------------------------------------- the stage's lock

bool stage_lock::try_lock() noexcept {
  if (!release_gate_.try_lock()) return false;
  std::uint8_t expected = unheld;
  if (state_.compare_exchange_strong(expected, held_by_release, std::memory_order_acquire,
                                     std::memory_order_relaxed))
    return true;
  release_gate_.unlock();
  return false;
}

void stage_lock::unlock_release() noexcept {
  state_.store(unheld, std::memory_order_release);
  release_gate_.unlock();
}

void stage_lock::lock_after_release() noexcept {
  for (;;) {
    {
      // Free once the release has let go of the state.
      std::lock_guard<std::mutex> wait(release_gate_);
      std::uint8_t expected = unheld;
      if (state_.compare_exchange_strong(expected, held_by_writer, std::memory_order_acquire,
                                         std::memory_order_relaxed))
        return;
    }
    // Held by the writer's own side: a writer used from two threads at
    // once, which fastout does not support; wait rather than break.
    std::this_thread::yield();
  }
}

// ------------------------------------------------------------ the file

file_stage::~file_stage() {
  // Under its lock: a release may be under way on another thread.
  std::unique_lock<stage_lock> hold(lock_, std::defer_lock);
  if (releasable_) hold.lock();
  if (owns_fd_ && fd_ >= 0) {
    const int saved = errno;
    platform.close(fd_);
    errno = saved;
  }
  fd_ = -1;
  if (releasable_) unregister_releasable(this);
}

FASTOUT_HOT int file_stage::drain(char*& buffer, std::size_t, std::size_t pending, const char* more,
                                  std::size_t more_size) noexcept {
  // The common drain, without a second virtual call: as stage::drain().
  struct iovec iov[2] = {{buffer, pending}, {const_cast<char*>(more), more_size}};
  const int skip = pending == 0 ? 1 : 0;
  if (releasable_) return write_releasable(iov + skip, (more_size == 0 ? 1 : 2) - skip);
  return write_all(fd_, iov + skip, (more_size == 0 ? 1 : 2) - skip, uncached_, counts_);
}

FASTOUT_HOT int file_stage::write(struct iovec* iov, int count) noexcept {
  if (releasable_) return write_releasable(iov, count);
  return write_all(fd_, iov, count, uncached_, counts_);
}

int file_stage::sync(bool metadata) noexcept {
  if (!releasable_) return sync_file(fd_, metadata) == 0 ? 0 : errno;
  std::lock_guard<stage_lock> hold(lock_);
  if (int error_number = take_back_descriptor()) return error_number;
  return sync_file(fd_, metadata) == 0 ? 0 : errno;
}

int file_stage::finish(int error_number, bool, bool) noexcept {
  // Under its lock, and still registered until the descriptor is closed:
  // an open on another thread that meets the limit meanwhile sees a writer
  // busy, about to give a descriptor back, and tries again.
  std::unique_lock<stage_lock> hold(lock_, std::defer_lock);
  if (releasable_) {
    hold.lock();
    if (release_error_ != 0 && error_number == 0) {
      // The close of a release failed (NFS reports a write's failure
      // there): the data may not be in the file.
      error_number = release_error_;
      closing_failed_ = true;
    }
    release_error_ = 0;
  }
  if (owns_fd_ && fd_ >= 0) {
    // Linux releases the descriptor even when close() fails, and EINTR does
    // not put the data in doubt: never retry; report anything else.
    if (platform.close(fd_) != 0 && errno != EINTR && error_number == 0) {
      error_number = errno;
      closing_failed_ = true;
    }
  }
  fd_ = -1;
  released_ = false;
  if (releasable_) unregister_releasable(this);
  return error_number;
}

// ------------------------------------------------ beyond the descriptor limit

void file_stage::make_releasable(const std::string& path, int open_flags) noexcept {
  if (!owns_fd_ || fd_ < 0) return;
  try {
    path_ = path;
  } catch (const std::bad_alloc&) {
    return;  // not releasable: it keeps its descriptor, as before
  }
  reopen_flags_ = (open_flags & ~(O_CREAT | O_TRUNC | O_EXCL)) | O_CLOEXEC;
  append_ = (open_flags & O_APPEND) != 0;
  last_use_.store(next_use_stamp(), std::memory_order_relaxed);
  releasable_ = true;
  register_releasable(this);  // its lock publishes the fields above
}

FASTOUT_HOT int file_stage::write_releasable(struct iovec* iov, int count) noexcept {
  std::lock_guard<stage_lock> hold(lock_);
  if (int error_number = take_back_descriptor()) return error_number;
  const std::uint64_t last = last_use_.load(std::memory_order_relaxed);
  const std::uint64_t now = use_stamp_after(last);
  if (now != last) last_use_.store(now, std::memory_order_relaxed);
  return write_all(fd_, iov, count, uncached_, counts_);
}

file_stage::release_result file_stage::try_release() noexcept {
  std::unique_lock<stage_lock> hold(lock_, std::try_to_lock);
  if (!hold.owns_lock()) return release_result::busy;
  if (pinned_ || released_ || fd_ < 0) return release_result::never;
  const int saved = errno;
  struct stat st;
  // Only a regular file can be reopened where it was left: a FIFO, a
  // terminal or a device opened by its path keeps its descriptor.
  if (platform.fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    errno = saved;
    return release_result::never;
  }
  off_t offset = 0;
  if (!append_) {
    offset = platform.lseek(fd_, 0, SEEK_CUR);
    if (offset < 0) {
      errno = saved;
      return release_result::never;
    }
  }
  // Where the file cannot be told from every other for certain, it keeps
  // its descriptor: nothing may ever be written into another file.
  if (platform.identify(fd_, &identity_) != 0) {
    errno = saved;
    return release_result::never;
  }
  offset_ = offset;
  // As finish(): the descriptor is gone whatever close() says; a failure
  // other than EINTR is the writer's to hear at its next call.
  if (platform.close(fd_) != 0 && errno != EINTR) release_error_ = errno;
  fd_ = -1;
  released_ = true;
  errno = saved;
  return release_result::released;
}

FASTOUT_HOT int file_stage::take_back_descriptor() noexcept {
  if (release_error_ != 0) {
    const int error_number = release_error_;
    release_error_ = 0;
    closing_failed_ = true;
    return error_number;
  }
  if (!released_) return 0;
  return reopen();
}

int file_stage::reopen() noexcept {
  // Without O_CREAT: a file that is gone is not made again, empty.
  const int fd = open_retrying_descriptor_limit(
      [&] { return platform.open(path_.c_str(), reopen_flags_, 0); });
  int error_number = 0;
  if (fd < 0) {
    error_number = errno;
  } else {
    file_identity now;
    if (platform.identify(fd, &now) != 0) {
      error_number = errno;
    } else if (now != identity_) {
      error_number = ESTALE;
      path_replaced_ = true;
    } else if (!append_ && platform.lseek(fd, offset_, SEEK_SET) < 0) {
      error_number = errno;
    }
    if (error_number != 0) {
      const int saved = errno;
      platform.close(fd);
      errno = saved;
    }
  }
  if (error_number != 0) {
    reopen_failed_ = true;
    return error_number;
  }
  fd_ = fd;
  released_ = false;
  if (!pinned_) register_releasable(this);
  return 0;
}

int file_stage::pin() noexcept {
  std::lock_guard<stage_lock> hold(lock_);
  if (!pinned_) {
    pinned_ = true;
    unregister_releasable(this);
  }
  if (released_ && !reopen_failed_) reopen();
  return released_ ? -1 : fd_;
}

// The writer asks descriptor() before it seeks (writer::seek()), which pins
// a releasable stage: its descriptor is back, and stays, by the time this
// runs.
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
  // be one, so files and pipes cost one fstat and no ioctl. A released
  // file is a regular one.
  std::unique_lock<stage_lock> hold(lock_, std::defer_lock);
  if (releasable_) {
    hold.lock();
    if (released_) return false;
  }
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
  const std::string reached =
      std::to_string(counts_.bytes) + " of " + std::to_string(accepted) + " bytes reached the file";
  if (reopen_failed_) {
    // Its descriptor was released beyond the descriptor limit, and the
    // file could not be had again.
    if (path_replaced_)
      return "cannot reopen " + quoted(path) +
             " to go on writing: the path no longer names the file fastout was writing "
             "(renamed or replaced; " +
             reached + ")";
    return "cannot reopen " + quoted(path) + " to go on writing (" + reached + ")";
  }
  return "cannot " + std::string(action) + " " + quoted(path) + " (" + reached + ")";
}

std::string file_stage::describe_close_failure(const std::string& path, std::uint64_t,
                                               std::uint64_t accepted, bool sync_failed) const {
  return describe_failure(closing_failed_ && !reopen_failed_ ? "close"
                          : sync_failed                      ? "sync"
                                                             : "write to",
                          path, accepted);
}

void file_stage::complete_report(error_report& report, std::uint64_t) const noexcept {
  report.close_failed = closing_failed_;
}

}  // namespace fastout::detail
