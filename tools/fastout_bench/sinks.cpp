#include "sinks.h"

#include <cerrno>
#include <stdexcept>
#include <string>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

namespace fastout_bench {
namespace {

int open_fd(const char* path) {
  int fd;
  do {
    fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) throw_errno("open", path);
  return fd;
}

void close_fd(int fd, const char* path) {
  if (::close(fd) != 0 && errno != EINTR) throw_errno("close", path);
}

}  // namespace

void throw_errno(const char* action, const char* path) {
  throw std::system_error(errno, std::system_category(),
                          std::string("cannot ") + action + " \"" + path + "\"");
}

void throw_failure(const char* action, const char* path) {
  throw std::runtime_error(std::string("cannot ") + action + " \"" + path + "\"");
}

void write_all(int fd, const char* data, std::size_t size, const char* path) {
  while (size > 0) {
    ssize_t written = ::write(fd, data, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      throw_errno("write", path);
    }
    if (written == 0) {
      errno = EIO;
      throw_errno("write", path);
    }
    data += written;
    size -= static_cast<std::size_t>(written);
  }
}

// stdio ---------------------------------------------------------------------

// A constructor that throws runs no destructor of its own: each one undoes
// what it did before throwing.
stdio_sink::stdio_sink(const char* path, const sink_options& options) : path_(path) {
  if (options.buffer_size > 0) buffer_.reset(new char[options.buffer_size]);
  file_ = std::fopen(path, "w");
  if (file_ == nullptr) throw_errno("fopen", path);
  if (buffer_ != nullptr && std::setvbuf(file_, buffer_.get(), _IOFBF, options.buffer_size) != 0) {
    std::fclose(file_);
    throw_failure("setvbuf", path);
  }
}

stdio_sink::~stdio_sink() {
  if (file_ != nullptr) std::fclose(file_);
}

void stdio_sink::close() {
  std::FILE* file = file_;
  file_ = nullptr;
  bool failed = std::ferror(file) != 0;
  if (std::fclose(file) != 0 || failed) throw_errno("write (stdio)", path_);
}

// iostreams -----------------------------------------------------------------

ofstream_sink::ofstream_sink(const char* path, const sink_options& options) : path_(path) {
  if (options.buffer_size > 0) {
    buffer_.reset(new char[options.buffer_size]);
    out_.rdbuf()->pubsetbuf(buffer_.get(), static_cast<std::streamsize>(options.buffer_size));
  }
  out_.open(path, std::ios::out | std::ios::binary | std::ios::trunc);
  if (!out_.is_open()) throw_errno("open (ofstream)", path);
}

void ofstream_sink::close() {
  bool failed = !out_.good();
  out_.close();
  if (failed || out_.fail()) throw_failure("write (ofstream)", path_);
}

// {fmt} ---------------------------------------------------------------------

fmt_file_sink::fmt_file_sink(const char* path, const sink_options& options)
    : out_(options.buffer_size > 0 ? fmt::output_file(path, fmt::buffer_size = options.buffer_size)
                                   : fmt::output_file(path)) {}

// write() per call ----------------------------------------------------------

unbuffered_sink::unbuffered_sink(const char* path, const sink_options&)
    : fd_(open_fd(path)), path_(path) {}

unbuffered_sink::~unbuffered_sink() {
  if (fd_ >= 0) ::close(fd_);
}

void unbuffered_sink::close() {
  int fd = fd_;
  fd_ = -1;
  close_fd(fd, path_);
}

// The limit -----------------------------------------------------------------

limit_sink::limit_sink(const char* path, const sink_options& options) : path_(path) {
  const std::size_t size =
      options.buffer_size > 0 ? options.buffer_size : buffer_1m.buffer_size;
  storage_.reset(new char[size]);
  buffer_ = storage_.get();
  end_ = buffer_ + size;
  pos_ = buffer_;
  fd_ = open_fd(path);
}

limit_sink::~limit_sink() {
  if (fd_ >= 0) ::close(fd_);
}

char* limit_sink::flush(char* pos) {
  write_all(fd_, buffer_, static_cast<std::size_t>(pos - buffer_), path_);
  return buffer_;
}

char* limit_sink::write_slow(char* pos, const char* data, std::size_t size) {
  pos = flush(pos);
  if (size >= static_cast<std::size_t>(end_ - buffer_)) {
    write_all(fd_, data, size, path_);
    return pos;
  }
  std::memcpy(pos, data, size);
  return pos + size;
}

void limit_sink::close() {
  pos_ = flush(pos_);
  int fd = fd_;
  fd_ = -1;
  close_fd(fd, path_);
}

// fastout -------------------------------------------------------------------

namespace {
fastout::file open_fastout(const char* path, const sink_options& options) {
  if (options.buffer_size > 0)
    return fastout::output_file(path, fastout::buffer_size = options.buffer_size);
  return fastout::output_file(path);
}
}  // namespace

fastout_sink::fastout_sink(const char* path, const sink_options& options)
    : file_(open_fastout(path, options)) {}

}  // namespace fastout_bench
