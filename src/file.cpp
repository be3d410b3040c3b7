// The out-of-line part of fastout::file: opening, flushing, errors, closing.
// The inline hot path is in include/fastout/file.h.
#include <fastout/file.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <new>

#include <fcntl.h>
#include <unistd.h>

#include "system_calls_internal.h"

namespace fastout {
namespace {

using detail::system_calls;

// Where pos and limit point in a writer that has no buffer (closed or
// unbuffered). pos == limit, so the hot path never stores here.
char no_buffer[1];

std::atomic<error_handler> current_error_handler{nullptr};

std::string quoted(const std::string& path) { return "\"" + path + "\""; }

}  // namespace

void default_error_handler(const error_report& report) noexcept {
  // snprintf into the stack and one write(2): no allocation, no stdio lock,
  // usable from a destructor run during unwinding.
  char line[1024];
  int length = std::snprintf(line, sizeof line,
                             "fastout: lost %llu bytes writing \"%s\": %s\n",
                             static_cast<unsigned long long>(report.bytes_lost), report.path,
                             std::strerror(report.error.value()));
  if (length <= 0) return;
  size_t size = std::min(static_cast<size_t>(length), sizeof line - 1);
  if (size == sizeof line - 1) line[size - 1] = '\n';
  ssize_t ignored = ::write(STDERR_FILENO, line, size);
  (void)ignored;  // nowhere left to report a failure to report
}

error_handler set_error_handler(error_handler handler) noexcept {
  error_handler previous = current_error_handler.exchange(handler);
  return previous != nullptr ? previous : default_error_handler;
}

namespace {
// open()'s flags for a writer's options: its open_mode, or {fmt}-style flags
// taken as they are, as fmt::file does, except that write access is implied.
// Returns -1 if the flags hold a bit that is not one of file's, or both
// WRONLY and RDWR.
int open_flags(const file_options& options) {
  if (options.flags == -1) {
    switch (options.mode) {
      case open_mode::truncate: return O_WRONLY | O_CREAT | O_TRUNC;
      case open_mode::append: return O_WRONLY | O_CREAT | O_APPEND;
      case open_mode::create_exclusive: return O_WRONLY | O_CREAT | O_EXCL;
    }
    return -1;
  }
  constexpr int known = file::WRONLY | file::RDWR | file::CREATE | file::EXCL | file::TRUNC |
                        file::APPEND;
  int flags = options.flags;
  if ((flags & ~known) != 0 || (flags & file::WRONLY && flags & file::RDWR)) return -1;
  int result = flags & file::RDWR ? O_RDWR : O_WRONLY;
  if (flags & file::CREATE) result |= O_CREAT;
  if (flags & file::EXCL) result |= O_EXCL;
  if (flags & file::TRUNC) result |= O_TRUNC;
  if (flags & file::APPEND) result |= O_APPEND;
  return result;
}
}  // namespace

file::file() noexcept
    : state_{no_buffer, no_buffer}, buffer_(no_buffer), buffer_end_(no_buffer) {}

file::file(detail::cstring_view path, const file_options& options) : file() {
  path_ = path.c_str();
  int flags = open_flags(options);
  if (flags == -1)
    throw std::system_error(EINVAL, std::system_category(),
                            "cannot open " + quoted(path_) + " for writing: open flags " +
                                fmt::format("{:#o}", options.flags) +
                                " are not a combination of fastout::file's");
  flags |= O_CLOEXEC;
  // The buffer first: a writer that cannot get one must not have truncated
  // or created the file. The object is constructed (delegating constructor),
  // so from here on the destructor frees what was taken.
  allocate_buffer(options.buffer_size);
  int fd;
  do {
    fd = system_calls.open(path.c_str(), flags, static_cast<mode_t>(options.permissions));
  } while (fd < 0 && errno == EINTR);
  if (fd < 0)
    throw std::system_error(errno, std::system_category(),
                            "cannot open " + quoted(path_) + " for writing");
  fd_ = fd;
  owns_fd_ = true;
  choose_buffering(options.buffer_mode);
}

file::file(fd_tag, int fd, bool owns_fd, const file_options& options, std::string name)
    : file() {
  path_ = name.empty() ? "<fd " + std::to_string(fd) + ">" : std::move(name);
  if (fd < 0)
    throw std::system_error(EBADF, std::system_category(),
                            "cannot write to " + quoted(path_));
  // The descriptor first: if the buffer cannot be had, the destructor
  // closes an adopted descriptor, as it would have closed it later.
  fd_ = fd;
  owns_fd_ = owns_fd;
  allocate_buffer(options.buffer_size);
  choose_buffering(options.buffer_mode);
}

file file::adopt(int fd, const file_options& options, std::string name) {
  return file(fd_tag{}, fd, true, options, std::move(name));
}

file file::borrow(int fd, const file_options& options, std::string name) {
  return file(fd_tag{}, fd, false, options, std::move(name));
}

file stdout_file(const file_options& options) {
  return file::borrow(STDOUT_FILENO, options, "<stdout>");
}

file stderr_file() {
  file_options options;
  options.buffer_size = 0;
  return stderr_file(options);
}

file stderr_file(const file_options& options) {
  return file::borrow(STDERR_FILENO, options, "<stderr>");
}

void file::allocate_buffer(std::size_t size) {
  if (size == 0) return;  // unbuffered: buffer_ stays the shared empty spot
  char* buffer = new (std::nothrow) char[size];
  if (buffer == nullptr)
    throw std::system_error(ENOMEM, std::system_category(),
                            "cannot allocate a " + std::to_string(size) + "-byte buffer for " +
                                quoted(path_));
  buffer_ = buffer;
  buffer_end_ = buffer + size;
}

void file::choose_buffering(buffering mode) {
  switch (mode) {
    case buffering::full: line_buffered_ = false; break;
    case buffering::line: line_buffered_ = true; break;
    case buffering::automatic: {
      // stdio's rule: a terminal is line-buffered. Only a character device
      // can be one, so files and pipes cost one fstat and no ioctl.
      struct stat st;
      line_buffered_ = system_calls.fstat(fd_, &st) == 0 && S_ISCHR(st.st_mode) &&
                       system_calls.isatty(fd_) == 1;
      break;
    }
  }
  state_.pos = buffer_;
  state_.limit = line_buffered_ ? buffer_ : buffer_end_;
}

file::~file() { discard(); }

file::file(file&& other) noexcept
    : state_(other.state_),
      buffer_(other.buffer_),
      buffer_end_(other.buffer_end_),
      fd_(other.fd_),
      owns_fd_(other.owns_fd_),
      line_buffered_(other.line_buffered_),
      closing_failed_(other.closing_failed_),
      error_(other.error_),
      bytes_drained_(other.bytes_drained_),
      bytes_written_(other.bytes_written_),
      write_calls_(other.write_calls_),
      flushes_(other.flushes_),
      path_(std::move(other.path_)) {
  other.release();
  other.fd_ = -1;
}

file& file::operator=(file&& other) noexcept {
  if (this == &other) return *this;
  discard();
  state_ = other.state_;
  buffer_ = other.buffer_;
  buffer_end_ = other.buffer_end_;
  fd_ = other.fd_;
  owns_fd_ = other.owns_fd_;
  line_buffered_ = other.line_buffered_;
  closing_failed_ = other.closing_failed_;
  error_ = other.error_;
  bytes_drained_ = other.bytes_drained_;
  bytes_written_ = other.bytes_written_;
  write_calls_ = other.write_calls_;
  flushes_ = other.flushes_;
  path_ = std::move(other.path_);
  other.release();
  other.fd_ = -1;
  return *this;
}

// Forgets the buffer without freeing it (the caller has taken or freed it).
void file::free_buffer() noexcept {
  if (buffer_ != buffer_end_) delete[] buffer_;
  release();
}

void file::release() noexcept {
  state_.pos = state_.limit = buffer_ = buffer_end_ = no_buffer;
}

std::error_code file::error() const noexcept {
  return error_ != 0 ? std::error_code(error_, std::system_category()) : std::error_code();
}

file_stats file::stats() const noexcept {
  file_stats s;
  s.bytes_accepted = bytes_drained_ + bytes_pending();
  s.bytes_written = bytes_written_;
  s.write_calls = write_calls_;
  s.flushes = flushes_;
  return s;
}

std::string file::failure_message(const char* action) const {
  return "cannot " + std::string(action) + " " + quoted(path_) + " (" +
         std::to_string(bytes_written_) + " of " + std::to_string(stats().bytes_accepted) +
         " bytes reached the file)";
}

void file::throw_unusable() const {
  if (error_ != 0)
    throw std::system_error(error_, std::system_category(),
                            failure_message("write to") + " after an earlier error");
  throw std::system_error(EBADF, std::system_category(),
                          "cannot write to " + quoted(path_) + ": the writer is closed");
}

void file::fail(int error_number) {
  throw std::system_error(error_number, std::system_category(), failure_message("write to"));
}

// Writes every byte of iov[0..count), continuing short writes, retrying
// EINTR and waiting out EAGAIN. Returns 0, or the errno that stopped it,
// which then also becomes the sticky error.
int file::write_vector(struct iovec* iov, int count) noexcept {
  while (count > 0) {
    if (iov->iov_len == 0) {
      ++iov;
      --count;
      continue;
    }
    ++write_calls_;
    ssize_t result = count == 1 ? system_calls.write(fd_, iov->iov_base, iov->iov_len)
                                : system_calls.writev(fd_, iov, count);
    if (result > 0) {
      size_t written = static_cast<size_t>(result);
      bytes_written_ += written;
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
      struct pollfd ready = {fd_, POLLOUT, 0};
      if (system_calls.poll(&ready, 1, -1) >= 0 || errno == EINTR) continue;
      error_number = errno;
    }
    error_ = error_number;
    state_.limit = state_.pos;  // every later call goes out of line and throws
    return error_number;
  }
  return 0;
}

// Sends what is buffered followed by `size` bytes of `data` (which may be
// none) in as few system calls as possible, and empties the buffer.
int file::write_buffer_and(const char* data, std::size_t size) noexcept {
  std::size_t pending = bytes_pending();
  if (pending == 0 && size == 0) return 0;
  // Counted as drained before the attempt: if it fails, bytes_written_ says
  // exactly how much got through and the rest is reported as lost.
  bytes_drained_ += pending + size;
  if (pending > 0) ++flushes_;
  struct iovec iov[2] = {{buffer_, pending}, {const_cast<char*>(data), size}};
  state_.pos = buffer_;
  state_.limit = line_buffered_ ? buffer_ : buffer_end_;
  return write_vector(iov, 2);
}

void file::ensure_usable() const {
  if (fd_ < 0 || error_ != 0) throw_unusable();
}

void file::drain_buffer() {
  if (int error_number = write_buffer_and(nullptr, 0)) fail(error_number);
}

void file::put_slow(char c) {
  ensure_usable();
  if (buffer_ == buffer_end_) {  // unbuffered
    if (int error_number = write_buffer_and(&c, 1)) fail(error_number);
    return;
  }
  if (state_.pos == buffer_end_) {
    if (int error_number = write_buffer_and(nullptr, 0)) {
      ++bytes_drained_;  // `c` is accepted (and lost) too: stats() counts a call that threw
      fail(error_number);
    }
  }
  *state_.pos++ = c;
  if (line_buffered_) {
    if (c == '\n') drain_buffer();
    state_.limit = state_.pos;
  }
}

// The fully buffered part of write_slow(): fill what room there is, drain a
// full buffer, and keep the rest; data as large as the buffer bypasses it.
void file::write_buffered(const char* data, std::size_t size) {
  std::size_t capacity = buffer_capacity();
  if (size >= capacity) {
    if (int error_number = write_buffer_and(data, size)) fail(error_number);
    return;
  }
  std::size_t room = static_cast<std::size_t>(buffer_end_ - state_.pos);
  if (size > room) {
    std::memcpy(state_.pos, data, room);
    state_.pos += room;
    data += room;
    size -= room;
    drain_buffer();
  }
  std::memcpy(state_.pos, data, size);
  state_.pos += size;
}

void file::write_slow(const char* data, std::size_t size) {
  ensure_usable();
  if (size == 0) return;  // `data` may be null: keep it away from memcpy
  // stats() counts every byte of a call that threw as accepted (and lost),
  // however much of it had reached the buffer when the error came.
  const std::uint64_t accepted_after = bytes_drained_ + bytes_pending() + size;
  try {
    // Unbuffered, there is nothing to hold back: the call goes out whole.
    if (!line_buffered_ || buffer_ == buffer_end_) {
      write_buffered(data, size);
      return;
    }
    // As stdio: everything through the last newline goes to the file now; a
    // trailing partial line waits in the buffer.
    const void* last_newline = size > 0 ? ::memrchr(data, '\n', size) : nullptr;
    if (last_newline != nullptr) {
      std::size_t through = static_cast<std::size_t>(static_cast<const char*>(last_newline) - data) + 1;
      write_buffered(data, through);
      drain_buffer();
      data += through;
      size -= through;
    }
    write_buffered(data, size);
    state_.limit = state_.pos;
  } catch (const std::system_error&) {
    bytes_drained_ = accepted_after - bytes_pending();  // nothing is pending after a failure
    throw;
  }
}

void file::flush() {
  ensure_usable();
  drain_buffer();
}

// Flushes and releases everything; returns the errno of the first failure
// (the sticky error, the flush, or close()), or 0.
int file::finish_close() noexcept {
  int error_number = error_;
  if (error_number == 0) error_number = write_buffer_and(nullptr, 0);
  bytes_drained_ += bytes_pending();  // lost if the flush failed; still accepted
  if (owns_fd_ && system_calls.close(fd_) != 0 && errno != EINTR && error_number == 0) {
    // Linux releases the descriptor even when close() fails, and EINTR does
    // not mean the data is in doubt, so never retry; report anything else.
    error_number = errno;
    closing_failed_ = true;
  }
  free_buffer();
  fd_ = -1;
  error_ = error_number;
  return error_number;
}

void file::close() {
  if (fd_ < 0) return;
  if (int error_number = finish_close()) {
    throw std::system_error(error_number, std::system_category(),
                            failure_message(closing_failed_ ? "close" : "write to"));
  }
}

void file::discard() noexcept {
  if (fd_ < 0) {
    free_buffer();  // closed, or a constructor that failed to open after taking it
    return;
  }
  if (int error_number = finish_close()) {
    error_handler handler = current_error_handler.load();
    if (handler == nullptr) handler = default_error_handler;
    file_stats s = stats();
    handler(error_report{path_.c_str(), std::error_code(error_number, std::system_category()),
                         s.bytes_accepted - s.bytes_written});
  }
}

}  // namespace fastout
