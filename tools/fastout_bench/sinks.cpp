#include "sinks.h"

#include <atomic>
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

void sync_fd(int fd, const char* path) {
  int result;
  do {
    result = ::fsync(fd);
  } while (result != 0 && errno == EINTR);
  if (result != 0) throw_errno("fsync", path);
}

// For the streams that hide their descriptor: fsync() through another one,
// which syncs the same file.
void sync_path(const char* path) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw_errno("open for fsync", path);
  int result;
  do {
    result = ::fsync(fd);
  } while (result != 0 && errno == EINTR);
  int error = errno;
  ::close(fd);
  errno = error;
  if (result != 0) throw_errno("fsync", path);
}

std::atomic<int> dontcache_seen{static_cast<int>(dontcache_support::untried)};

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
stdio_sink::stdio_sink(const char* path, const sink_options& options)
    : path_(path), sync_(options.sync) {
  if (options.rename_into_place) temporary_ = std::string(path) + ".tmp";
  const char* opened = temporary_.empty() ? path : temporary_.c_str();
  if (options.buffer_size > 0) buffer_.reset(new char[options.buffer_size]);
  file_ = std::fopen(opened, "w");
  if (file_ == nullptr) throw_errno("fopen", opened);
  if (buffer_ != nullptr && std::setvbuf(file_, buffer_.get(), _IOFBF, options.buffer_size) != 0) {
    std::fclose(file_);
    if (!temporary_.empty()) ::unlink(opened);
    throw_failure("setvbuf", opened);
  }
}

stdio_sink::~stdio_sink() {
  if (file_ != nullptr) std::fclose(file_);
  if (!temporary_.empty()) ::unlink(temporary_.c_str());  // only still there after a failure
}

void stdio_sink::close() {
  std::FILE* file = file_;
  file_ = nullptr;
  const char* written = temporary_.empty() ? path_ : temporary_.c_str();
  bool failed = std::ferror(file) != 0;
  if (sync_ && !failed) {
    failed = std::fflush(file) != 0;
    if (!failed) {
      try {
        sync_fd(::fileno(file), written);
      } catch (...) {
        std::fclose(file);
        throw;
      }
    }
  }
  if (std::fclose(file) != 0 || failed) throw_errno("write (stdio)", written);
  if (!temporary_.empty()) {
    if (::rename(written, path_) != 0) throw_errno("rename into place", path_);
    temporary_.clear();
  }
}

// iostreams -----------------------------------------------------------------

ofstream_sink::ofstream_sink(const char* path, const sink_options& options)
    : path_(path), sync_(options.sync) {
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
  if (sync_) sync_path(path_);
}

// {fmt} ---------------------------------------------------------------------

fmt_file_sink::fmt_file_sink(const char* path, const sink_options& options)
    : out_(options.buffer_size > 0 ? fmt::output_file(path, fmt::buffer_size = options.buffer_size)
                                   : fmt::output_file(path)),
      path_(path),
      sync_(options.sync) {}

void fmt_file_sink::close() {
  out_.close();
  closed_ = true;
  if (sync_) sync_path(path_);
}

// write() per call ----------------------------------------------------------

unbuffered_sink::unbuffered_sink(const char* path, const sink_options& options)
    : fd_(open_fd(path)), path_(path), sync_(options.sync) {}

unbuffered_sink::~unbuffered_sink() {
  if (fd_ >= 0) ::close(fd_);
}

void unbuffered_sink::close() {
  if (sync_) sync_fd(fd_, path_);
  int fd = fd_;
  fd_ = -1;
  close_fd(fd, path_);
}

// The limit -----------------------------------------------------------------

limit_sink::limit_sink(const char* path, const sink_options& options)
    : path_(path), sync_(options.sync) {
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
  if (sync_) sync_fd(fd_, path_);
  int fd = fd_;
  fd_ = -1;
  close_fd(fd, path_);
}

// fastout -------------------------------------------------------------------

namespace {
fastout::file open_fastout(const char* path, const sink_options& options) {
  fastout::file_options o;
  if (options.buffer_size > 0) o.buffer_size = options.buffer_size;
  o.mode = options.fastout_mode;
  o.sync = options.sync;
  o.cache = options.fastout_cache;
  o.preallocate = options.fastout_preallocate;
  return fastout::file(path, o);
}
}  // namespace

fastout_sink::fastout_sink(const char* path, const sink_options& options)
    : file_(open_fastout(path, options)),
      drop_cache_(options.fastout_cache == fastout::page_cache::drop) {}

void fastout_sink::close() {
  file_.close();
  if (drop_cache_) {
    dontcache_seen = static_cast<int>(file_.drops_page_cache() ? dontcache_support::taken
                                                               : dontcache_support::refused);
  }
}

dontcache_support last_dontcache_support() noexcept {
  return static_cast<dontcache_support>(dontcache_seen.load());
}

// fastout's C API -------------------------------------------------------------

fastout_c_sink::fastout_c_sink(const char* path, const sink_options& options) : path_(path) {
  fastout_options o;
  fastout_options_init(&o);
  if (options.buffer_size > 0) o.buffer_size = options.buffer_size;
  file_ = fastout_open(path, &o);
  if (file_ == nullptr) throw_errno("open (fastout_open)", path);
}

void fastout_c_sink::close() {
  fastout_file* f = file_;
  file_ = nullptr;
  int result = fastout_close(f);
  if (result < 0)
    throw std::runtime_error(std::string("cannot write to \"") + path_ +
                             "\" (fastout_close): " + fastout_error_name(result));
}

}  // namespace fastout_bench
