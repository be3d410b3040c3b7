// SPDX-License-Identifier: MIT
// The sinks of sinks.h: how each library opens a path and closes it with every error checked.
#include "sinks.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(_WIN32)
#  include <io.h>
#  include <windows.h>

#  include "win32.h"
#elif defined(__GLIBCXX__)
#  include <ext/stdio_filebuf.h>
#endif

namespace fastout_bench {
#if defined(_WIN32)
native_file open_fd(const char* path) {
  HANDLE handle = ::CreateFileW(widen(path).c_str(), GENERIC_WRITE,
                                FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                                CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (handle == INVALID_HANDLE_VALUE) throw_last_error("open (CreateFileW)", path);
  return handle;
}

void close_fd(native_file fd, const char* path) {
  if (!::CloseHandle(fd)) throw_last_error("close", path);
}

namespace {
void close_quietly(native_file fd) { ::CloseHandle(fd); }
}  // namespace
#else
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

namespace {
void close_quietly(int fd) { ::close(fd); }
}  // namespace
#endif

namespace {

#if defined(_WIN32)
// FlushFileBuffers: data and metadata, and the drive's cache; Windows has no
// data-only flush.
void sync_fd(native_file fd, const char* path, bool = false) {
  if (!::FlushFileBuffers(fd)) throw_last_error("flush (FlushFileBuffers)", path);
}

// For the streams that hide their handle: FlushFileBuffers through another
// one, which needs write access.
void sync_path(const char* path) {
  HANDLE handle = ::CreateFileW(widen(path).c_str(), GENERIC_WRITE,
                                FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                                OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (handle == INVALID_HANDLE_VALUE) throw_last_error("open for FlushFileBuffers", path);
  try {
    sync_fd(handle, path);
  } catch (...) {
    ::CloseHandle(handle);
    throw;
  }
  ::CloseHandle(handle);
}

// The handle under a stdio stream.
native_file stdio_handle(std::FILE* file) {
  return reinterpret_cast<HANDLE>(::_get_osfhandle(::_fileno(file)));
}
#else
void sync_fd(int fd, const char* path, bool data_only = false) {
  int result;
  do {
    result = data_only ? ::fdatasync(fd) : ::fsync(fd);
  } while (result != 0 && errno == EINTR);
  if (result != 0) throw_errno(data_only ? "fdatasync" : "fsync", path);
}

// For the streams that hide their descriptor: fsync() through another one,
// which syncs the same file.
void sync_path(const char* path) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw_errno("open for fsync", path);
  try {
    sync_fd(fd, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
}

int stdio_handle(std::FILE* file) { return ::fileno(file); }
#endif

std::atomic<int> dontcache_seen{static_cast<int>(dontcache_support::untried)};

}  // namespace

void throw_errno(const char* action, const char* path) {
#if defined(_WIN32)
  // MinGW's and MSVC's system_category() read Win32 codes, not errno values.
  throw std::system_error(errno, std::generic_category(),
                          std::string("cannot ") + action + " \"" + path + "\"");
#else
  throw std::system_error(errno, std::system_category(),
                          std::string("cannot ") + action + " \"" + path + "\"");
#endif
}

void throw_failure(const char* action, const char* path) {
  throw std::runtime_error(std::string("cannot ") + action + " \"" + path + "\"");
}

#if defined(_WIN32)
void write_all(native_file fd, const char* data, std::size_t size, const char* path) {
  while (size > 0) {
    const DWORD piece = static_cast<DWORD>(std::min<std::size_t>(size, std::size_t{1} << 30));
    DWORD written = 0;
    if (!::WriteFile(fd, data, piece, &written, nullptr)) throw_last_error("write", path);
    if (written == 0) {
      errno = EIO;
      throw_errno("write", path);
    }
    data += written;
    size -= written;
  }
}

fwrite_function runtime_fwrite_nolock() noexcept {
#  if defined(_UCRT) || defined(_MSC_VER)
  return &::_fwrite_nolock;
#  else
  // msvcrt.dll, the runtime MinGW-w64 links by default, whose header
  // declares _fwrite_nolock only for the runtimes that have it.
  static const fwrite_function found = []() -> fwrite_function {
    HMODULE runtime = ::GetModuleHandleW(L"msvcrt.dll");
    if (runtime == nullptr) return nullptr;
    FARPROC address = ::GetProcAddress(runtime, "_fwrite_nolock");
    return address != nullptr
               ? reinterpret_cast<fwrite_function>(reinterpret_cast<void (*)()>(address))
               : nullptr;
  }();
  return found;
#  endif
}

std::string why_no_fwrite_nolock() {
  return ::GetModuleHandleW(L"msvcrt.dll") == nullptr
             ? "msvcrt.dll, the C runtime this build links, is not loaded"
             : "msvcrt.dll, the C runtime this build links, exports no _fwrite_nolock (neither "
               "Windows' nor Wine's; the UCRT has it: a build linked with the UCRT runs it)";
}
#else
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
#endif

// stdio ---------------------------------------------------------------------

// A constructor that throws runs no destructor of its own: each one undoes
// what it did before throwing.
stdio_sink::stdio_sink(const char* path, const sink_options& options)
    : path_(path), sync_(options.sync), sync_data_only_(options.sync_data_only) {
  if (options.rename_into_place) temporary_ = std::string(path) + ".tmp";
  const char* opened = temporary_.empty() ? path : temporary_.c_str();
  if (options.buffer_size > 0) buffer_.reset(new char[options.buffer_size]);
#if defined(_WIN32)
  file_ = std::fopen(opened, "wb");
#else
  file_ = std::fopen(opened, "w");
#endif
  if (file_ == nullptr) throw_errno("fopen", opened);
  if (buffer_ != nullptr && std::setvbuf(file_, buffer_.get(), _IOFBF, options.buffer_size) != 0) {
    std::fclose(file_);
    if (!temporary_.empty()) std::remove(opened);
    throw_failure("setvbuf", opened);
  }
}

stdio_sink::~stdio_sink() {
  if (file_ != nullptr) std::fclose(file_);
  if (!temporary_.empty()) std::remove(temporary_.c_str());  // only still there after a failure
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
        sync_fd(stdio_handle(file), written, sync_data_only_);
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

#if defined(_WIN32)
namespace {
// {fmt}'s flags with O_BINARY, without which the C runtime's open() is in
// text mode and every '\n' becomes "\r\n" (fmt issue 2115). output_file()
// cannot take both flags and a buffer size ({fmt} 12's ostream_params
// deduces only one), so both go in one ostream_params, which it copies: a
// detail of {fmt}, used only in the Windows build, whose {fmt} is 12.1.0
// (scripts/windows/build-deps).
fmt::ostream open_fmt_binary(const char* path, std::size_t buffer_size) {
  fmt::detail::ostream_params params;
  params.oflag = fmt::file::WRONLY | fmt::file::CREATE | fmt::file::TRUNC | O_BINARY;
  if (buffer_size > 0) params.buffer_size = buffer_size;
  return fmt::output_file(path, params);
}
}  // namespace

fmt_file_sink::fmt_file_sink(const char* path, const sink_options& options)
    : out_(open_fmt_binary(path, options.buffer_size)),
#else
fmt_file_sink::fmt_file_sink(const char* path, const sink_options& options)
    : out_(options.buffer_size > 0 ? fmt::output_file(path, fmt::buffer_size = options.buffer_size)
                                   : fmt::output_file(path)),
#endif
      path_(path),
      sync_(options.sync) {
}

void fmt_file_sink::close() {
  out_.close();
  closed_ = true;
  if (sync_) sync_path(path_);
}

// write() per call ----------------------------------------------------------

unbuffered_sink::unbuffered_sink(const char* path, const sink_options& options)
    : fd_(open_fd(path)),
      path_(path),
      sync_(options.sync),
      sync_data_only_(options.sync_data_only) {}

unbuffered_sink::~unbuffered_sink() {
  if (fd_ != no_file) close_quietly(fd_);
}

void unbuffered_sink::close() {
  if (sync_) sync_fd(fd_, path_, sync_data_only_);
  native_file fd = fd_;
  fd_ = no_file;
  close_fd(fd, path_);
}

// The limit -----------------------------------------------------------------

limit_sink::limit_sink(const char* path, const sink_options& options)
    : path_(path), sync_(options.sync), sync_data_only_(options.sync_data_only) {
  const std::size_t size = options.buffer_size > 0 ? options.buffer_size : buffer_1m.buffer_size;
  storage_.reset(new char[size]);
  buffer_ = storage_.get();
  end_ = buffer_ + size;
  pos_ = buffer_;
  fd_ = open_fd(path);
}

limit_sink::~limit_sink() {
  if (fd_ != no_file) close_quietly(fd_);
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
  if (sync_) sync_fd(fd_, path_, sync_data_only_);
  native_file fd = fd_;
  fd_ = no_file;
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
  o.compression = options.fastout_compression;
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

// fastout's iostream adapter --------------------------------------------------

fastout_ostream_sink::fastout_ostream_sink(const char* path, const sink_options& options)
    : path_(path) {
  fastout::stream_options stream;
  if (options.buffer_size > 0) stream.buffer_size = options.buffer_size;
  stream.flush =
      options.deferred_flushes ? fastout::flush_policy::on_close : fastout::flush_policy::standard;
  out_.open(path, std::ios::binary | std::ios::trunc, stream);
  if (!out_.is_open()) throw std::runtime_error(out_.error_message());
}

void fastout_ostream_sink::close() {
  bool failed = !out_.good();
  out_.close();
  if (failed || out_.fail())
    throw std::runtime_error("cannot write (fastout::ofstream) \"" + std::string(path_) +
                             "\": " + out_.error_message());
}

// Standard output -----------------------------------------------------------
#if !defined(_WIN32)

namespace {
// stdio's stdout buffer while fd 1 is redirected. It outlives every run:
// stdout keeps using it for the driver's own text afterwards.
char stdout_buffer[BUFSIZ];
}  // namespace

stdout_redirect::stdout_redirect(const char* path) : path_(path) {
  std::fflush(stdout);  // the driver's own text goes to its own stdout
  int fd = open_fd(path);
  saved_ = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 10);
  if (saved_ < 0 || ::dup2(fd, STDOUT_FILENO) < 0) {
    int error = errno;
    ::close(fd);
    if (saved_ >= 0) ::close(saved_);
    saved_ = -1;
    errno = error;
    throw_errno("redirect standard output to", path);
  }
  ::close(fd);
  // glibc's choice for a program whose stdout is this file
  // (_IO_file_doallocate): st_blksize bytes, or BUFSIZ if that is larger.
  struct stat st;
  std::size_t size = BUFSIZ;
  if (::fstat(STDOUT_FILENO, &st) == 0 && st.st_blksize > 0 &&
      static_cast<std::size_t>(st.st_blksize) < size)
    size = static_cast<std::size_t>(st.st_blksize);
  std::setvbuf(stdout, stdout_buffer, _IOFBF, size);
}

stdout_redirect::~stdout_redirect() {
  if (saved_ < 0) return;
  std::fflush(stdout);
  std::clearerr(stdout);
  ::dup2(saved_, STDOUT_FILENO);
  ::close(saved_);
  std::setvbuf(stdout, nullptr, ::isatty(STDOUT_FILENO) == 1 ? _IOLBF : _IOFBF, 0);
}

void stdout_redirect::restore() {
  int saved = saved_;
  saved_ = -1;
  int result = ::dup2(saved, STDOUT_FILENO);
  int error = errno;
  ::close(saved);
  std::setvbuf(stdout, nullptr, ::isatty(STDOUT_FILENO) == 1 ? _IOLBF : _IOFBF, 0);
  if (result < 0) {
    errno = error;
    throw_errno("restore standard output after", path_);
  }
}

stdout_stdio_sink::stdout_stdio_sink(const char* path, const sink_options&) : redirect_(path) {}

void stdout_stdio_sink::close() {
  bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  std::clearerr(stdout);
  redirect_.restore();
  if (failed) throw_failure("write (stdout)", redirect_.path());
}

cout_sink::cout_sink(const char* path, const sink_options&) : redirect_(path) {}

std::ostream& cout_sink::out() noexcept { return std::cout; }

void cout_sink::close() {
  bool failed = !std::cout.flush().good() || std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  std::cout.clear();
  std::clearerr(stdout);
  redirect_.restore();
  if (failed) throw_failure("write (std::cout)", redirect_.path());
}

#  if defined(__GLIBCXX__)
cout_unsynced_sink::cout_unsynced_sink(const char* path, const sink_options&) : redirect_(path) {
  std::cout.flush();
  buffer_.reset(new __gnu_cxx::stdio_filebuf<char>(stdout, std::ios::out));
  saved_ = std::cout.rdbuf(buffer_.get());
}

cout_unsynced_sink::~cout_unsynced_sink() {
  if (saved_ != nullptr) std::cout.rdbuf(saved_);
}

std::ostream& cout_unsynced_sink::out() noexcept { return std::cout; }

void cout_unsynced_sink::close() {
  bool failed = !std::cout.flush().good();
  std::cout.rdbuf(saved_);  // also clears cout's state
  saved_ = nullptr;
  buffer_.reset();
  redirect_.restore();
  if (failed) throw_failure("write (std::cout, unsynced)", redirect_.path());
}
#  endif

fastout_stdout_sink::fastout_stdout_sink(const char* path, const sink_options& options)
    : redirect_(path) {
  fastout::file_options chosen;
  if (options.buffer_size > 0) chosen.buffer_size = options.buffer_size;
  // The standard streams report write errors at exit by default; a run
  // whose output failed must stop at the call that met the error instead.
  chosen.errors = fastout::write_errors::throw_exception;
  fastout::set_standard_output_options(chosen);  // automatic: fully buffered, on a file
}

void fastout_stdout_sink::close() {
  fastout::standard_output().flush();
  redirect_.restore();
}

fastout_synced_sink::fastout_synced_sink(const char* path, const sink_options& options)
    : redirect_(path) {
  fastout::set_standard_output_options({});
  fastout::sync_with_stdio(true, options.deferred_flushes ? fastout::flush_policy::on_close
                                                          : fastout::flush_policy::standard);
  synced_ = true;
}

fastout_synced_sink::~fastout_synced_sink() {
  if (!synced_) return;
  try {
    fastout::sync_with_stdio(false);
  } catch (const std::exception&) {
    // A run that failed already reported why.
  }
}

std::ostream& fastout_synced_sink::out() noexcept { return std::cout; }

void fastout_synced_sink::close() {
  bool failed = !std::cout.flush().good() || std::ferror(stdout) != 0;
  std::clearerr(stdout);  // the stdio stream in fastout's stead, used again next run
  synced_ = false;
  fastout::sync_with_stdio(false);  // flushes fastout's writer; throws if it cannot
  std::cout.clear();
  redirect_.restore();
  if (failed) throw_failure("write (std::cout or printf through fastout)", redirect_.path());
}
#endif  // !_WIN32: standard output

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
  if (fastout_close(f) == EOF)  // as fclose(): the cause is in errno
    throw std::runtime_error(std::string("cannot write to \"") + path_ +
                             "\" (fastout_close): " + fastout_error_name(errno));
}

}  // namespace fastout_bench
