// SPDX-License-Identifier: MIT
// The sinks of compressed_sinks.h: how each library opens a path, what it
// does with a full buffer, and how it closes with every error checked.
#include "compressed_sinks.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

namespace fastout_bench {
namespace {

// Whether `program` is an executable file in a directory of $PATH, as the
// shell would find it.
bool on_path(const char* program) {
  const char* path = std::getenv("PATH");
  std::string directories = path != nullptr ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  for (;;) {
    std::size_t colon = directories.find(':', start);
    std::string directory = directories.substr(start, colon - start);
    if (directory.empty()) directory = ".";
    if (::access((directory + "/" + program).c_str(), X_OK) == 0) return true;
    if (colon == std::string::npos) return false;
    start = colon + 1;
  }
}

// `text` as one word for /bin/sh.
std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace

std::string missing_dependency(std::initializer_list<dependency> needs) {
  for (dependency need : needs) {
    switch (need) {
      case dependency::zlib:
        if (!FASTOUT_BENCH_HAVE_ZLIB)
          return "the driver was built without zlib (Debian: zlib1g-dev), which writes it "
                 "or reads its gzip output back";
        break;
      case dependency::zstd:
        if (!FASTOUT_BENCH_HAVE_ZSTD)
          return "the driver was built without libzstd (Debian: libzstd-dev), which writes it "
                 "or reads its zstd output back";
        break;
      case dependency::libdeflate:
        if (!FASTOUT_BENCH_HAVE_LIBDEFLATE)
          return "the driver was built without libdeflate (Debian: libdeflate-dev)";
        break;
      case dependency::htslib:
        if (!FASTOUT_BENCH_HAVE_HTSLIB)
          return "the driver was built without htslib (Debian: libhts-dev)";
        break;
      case dependency::gzip_program:
        if (!on_path("gzip")) return "no gzip program on PATH (Debian: gzip)";
        break;
      case dependency::zstd_program:
        if (!on_path("zstd")) return "no zstd program on PATH (Debian: zstd)";
        break;
    }
  }
  return {};
}

// The chunk ------------------------------------------------------------------

chunk_sink::chunk_sink(std::size_t capacity)
    : storage_(new char[capacity]),
      buffer_(storage_.get()),
      end_(buffer_ + capacity),
      pos_(buffer_) {}

chunk_sink::~chunk_sink() = default;

char* chunk_sink::take_chunk(char* pos) {
  consume(buffer_, static_cast<std::size_t>(pos - buffer_));
  return buffer_;
}

void chunk_sink::consume_rest() {
  char* pos = pos_;
  pos_ = buffer_;
  consume(buffer_, static_cast<std::size_t>(pos - buffer_));
}

// format_only ----------------------------------------------------------------

discard_sink::discard_sink(const char*, const sink_options& options)
    : chunk_sink(compression_chunk), expected_(options.expected_bytes) {}

void discard_sink::consume(const char*, std::size_t size) { formatted_ += size; }

void discard_sink::close() {
  consume_rest();
  if (formatted_ != expected_)
    throw std::runtime_error(
        fmt::format("formatted {} bytes, not the reference's {}", formatted_, expected_));
}

// zstd_limit -----------------------------------------------------------------

#if FASTOUT_BENCH_HAVE_ZSTD
zstd_limit_sink::zstd_limit_sink(const char* path, const sink_options&)
    : chunk_sink(compression_chunk),
      output_size_(ZSTD_compressBound(compression_chunk)),
      path_(path) {
  context_ = ZSTD_createCCtx();
  if (context_ == nullptr) throw_failure("create a zstd context for", path);
  for (auto [parameter, value] :
       {std::pair{ZSTD_c_compressionLevel, zstd_level}, std::pair{ZSTD_c_checksumFlag, 1}}) {
    std::size_t result = ZSTD_CCtx_setParameter(context_, parameter, value);
    if (ZSTD_isError(result)) {
      ZSTD_freeCCtx(context_);
      throw std::runtime_error(std::string("cannot set up zstd for \"") + path +
                               "\": " + ZSTD_getErrorName(result));
    }
  }
  output_.reset(new char[output_size_]);
  try {
    fd_ = open_fd(path);
  } catch (...) {
    ZSTD_freeCCtx(context_);
    throw;
  }
}

zstd_limit_sink::~zstd_limit_sink() {
  ZSTD_freeCCtx(context_);
  if (fd_ >= 0) ::close(fd_);
}

void zstd_limit_sink::compress(const char* data, std::size_t size, ZSTD_EndDirective end) {
  ZSTD_inBuffer in{data, size, 0};
  for (;;) {
    ZSTD_outBuffer out{output_.get(), output_size_, 0};
    std::size_t left = ZSTD_compressStream2(context_, &out, &in, end);
    if (ZSTD_isError(left))
      throw std::runtime_error(std::string("cannot compress (zstd) \"") + path_ +
                               "\": " + ZSTD_getErrorName(left));
    if (out.pos > 0) write_all(fd_, output_.get(), out.pos, path_);
    // ZSTD_e_end is done only when nothing is left to flush: stopping when
    // the input is taken would cut the frame short.
    if (end == ZSTD_e_end ? left == 0 : in.pos == in.size) return;
  }
}

void zstd_limit_sink::consume(const char* data, std::size_t size) {
  compress(data, size, ZSTD_e_continue);
}

void zstd_limit_sink::close() {
  consume_rest();
  compress(nullptr, 0, ZSTD_e_end);
  int fd = fd_;
  fd_ = -1;
  close_fd(fd, path_);
}
#endif

// bgzf_limit -----------------------------------------------------------------

#if FASTOUT_BENCH_HAVE_LIBDEFLATE
namespace {

constexpr std::size_t bgzf_header_size = 18;
constexpr std::size_t bgzf_footer_size = 8;  // CRC-32 and the input size
constexpr std::size_t bgzf_largest_block = 65536;
constexpr std::size_t bgzf_chunk_blocks = 4;

// An empty block: what BGZF readers take for the end of the file.
constexpr unsigned char bgzf_eof[28] = {0x1f, 0x8b, 8,    4, 0, 0, 0, 0, 0, 0xff, 6, 0, 'B', 'C',
                                        2,    0,    0x1b, 0, 3, 0, 0, 0, 0, 0,    0, 0, 0,   0};

void put_le16(unsigned char* p, std::size_t value) {
  p[0] = static_cast<unsigned char>(value);
  p[1] = static_cast<unsigned char>(value >> 8);
}

void put_le32(unsigned char* p, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(value >> (8 * i));
}

}  // namespace

bgzf_limit_sink::bgzf_limit_sink(const char* path, const sink_options&)
    : chunk_sink(bgzf_chunk_blocks * bgzf_block_input),
      output_(new char[bgzf_chunk_blocks * bgzf_largest_block]),
      path_(path) {
  compressor_ = libdeflate_alloc_compressor(gzip_level);
  if (compressor_ == nullptr) throw_failure("create a libdeflate compressor for", path);
  // Any block input then compresses into a block of at most 64 KiB.
  if (bgzf_header_size + libdeflate_deflate_compress_bound(compressor_, bgzf_block_input) +
          bgzf_footer_size >
      bgzf_largest_block) {
    libdeflate_free_compressor(compressor_);
    throw_failure("fit a BGZF block (libdeflate's bound is too large) for", path);
  }
  try {
    fd_ = open_fd(path);
  } catch (...) {
    libdeflate_free_compressor(compressor_);
    throw;
  }
}

bgzf_limit_sink::~bgzf_limit_sink() {
  libdeflate_free_compressor(compressor_);
  if (fd_ >= 0) ::close(fd_);
}

void bgzf_limit_sink::consume(const char* data, std::size_t size) {
  auto* out = reinterpret_cast<unsigned char*>(output_.get());
  std::size_t used = 0;
  while (size > 0) {
    const std::size_t input = size < bgzf_block_input ? size : bgzf_block_input;
    unsigned char* block = out + used;
    static constexpr unsigned char header[16] = {0x1f, 0x8b, 8, 4, 0,   0,   0, 0,
                                                 0,    0xff, 6, 0, 'B', 'C', 2, 0};
    std::memcpy(block, header, sizeof header);
    std::size_t compressed =
        libdeflate_deflate_compress(compressor_, data, input, block + bgzf_header_size,
                                    bgzf_largest_block - bgzf_header_size - bgzf_footer_size);
    if (compressed == 0) throw_failure("compress a BGZF block (libdeflate) for", path_);
    const std::size_t block_size = bgzf_header_size + compressed + bgzf_footer_size;
    put_le16(block + 16, block_size - 1);
    unsigned char* footer = block + bgzf_header_size + compressed;
    put_le32(footer, libdeflate_crc32(0, data, input));
    put_le32(footer + 4, static_cast<std::uint32_t>(input));
    used += block_size;
    data += input;
    size -= input;
  }
  if (used > 0) write_all(fd_, output_.get(), used, path_);
}

void bgzf_limit_sink::close() {
  consume_rest();
  write_all(fd_, reinterpret_cast<const char*>(bgzf_eof), sizeof bgzf_eof, path_);
  int fd = fd_;
  fd_ = -1;
  close_fd(fd, path_);
}
#endif

// gzwrite --------------------------------------------------------------------

#if FASTOUT_BENCH_HAVE_ZLIB
gzfile_sink::gzfile_sink(const char* path, const sink_options&) : path_(path) {
  const std::string mode = "wb" + std::to_string(gzip_level);
  errno = 0;
  file_ = gzopen(path, mode.c_str());
  if (file_ == nullptr) {
    if (errno == 0) errno = ENOMEM;  // zlib could not allocate its state
    throw_errno("open (gzopen)", path);
  }
}

gzfile_sink::~gzfile_sink() {
  if (file_ != nullptr) gzclose(file_);
}

void gzfile_sink::close() {
  gzFile file = file_;
  file_ = nullptr;
  // A write that failed is sticky in zlib's state: every later call
  // returned an error, and gzerror() still says what the first was.
  int error = Z_OK;
  const char* message = gzerror(file, &error);
  std::string failure = error != Z_OK && message != nullptr ? message : "";
  errno = 0;
  int closed = gzclose(file);
  int close_errno = errno;
  if (error != Z_OK)
    throw std::runtime_error(std::string("cannot write (zlib) \"") + path_ + "\": " + failure);
  if (closed != Z_OK) {
    if (closed == Z_ERRNO && close_errno != 0) {
      errno = close_errno;
      throw_errno("write and close (gzclose)", path_);
    }
    throw std::runtime_error(std::string("cannot write and close (gzclose) \"") + path_ +
                             "\": zlib error " + std::to_string(closed));
  }
}
#endif

// htslib ---------------------------------------------------------------------

#if FASTOUT_BENCH_HAVE_HTSLIB
htslib_bgzf_sink::htslib_bgzf_sink(const char* path, const sink_options& options) : path_(path) {
  const std::string mode = "w" + std::to_string(gzip_level);
  file_ = bgzf_open(path, mode.c_str());
  if (file_ == nullptr) throw_errno("open (bgzf_open)", path);
  if (options.htslib_pool != nullptr) {
    if (bgzf_thread_pool(file_, options.htslib_pool, 0) != 0) {
      bgzf_close(file_);
      file_ = nullptr;
      throw_failure("share the thread pool with (bgzf_thread_pool)", path);
    }
  } else if (options.threads > 0 && bgzf_mt(file_, options.threads, 256) != 0) {
    bgzf_close(file_);
    file_ = nullptr;
    throw_failure("start the threads of (bgzf_mt)", path);
  }
}

htslib_bgzf_sink::~htslib_bgzf_sink() {
  if (file_ != nullptr) bgzf_close(file_);
}

void htslib_bgzf_sink::fail(BGZF* file, const char* path) {
  throw std::runtime_error(
      fmt::format("cannot write (bgzf_write) \"{}\": errcode {:#x}{}", path,
                  static_cast<unsigned>(file->errcode),
                  errno != 0 ? std::string(": ") + std::strerror(errno) : std::string()));
}

void htslib_bgzf_sink::close() {
  BGZF* file = file_;
  file_ = nullptr;
  // errcode is sticky: a bgzf_write() that failed left it set.
  auto error = static_cast<unsigned>(file->errcode);
  errno = 0;
  int closed = bgzf_close(file);
  int close_errno = errno;
  if (error != 0 || closed != 0)
    throw std::runtime_error(fmt::format(
        "cannot write (htslib BGZF) \"{}\": errcode {:#x}{}{}", path_, error,
        closed != 0 ? ", bgzf_close() failed" : "",
        close_errno != 0 ? std::string(": ") + std::strerror(close_errno) : std::string()));
}
#endif

// popen ----------------------------------------------------------------------

popen_sink::popen_sink(const char* path, const sink_options& options) {
  if (options.command == nullptr) throw_failure("popen (no command given) for", path);
  command_ = std::string("exec ") + options.command + " > " + shell_quote(path);
  struct sigaction ignore;
  std::memset(&ignore, 0, sizeof ignore);
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigpipe_saved_ = ::sigaction(SIGPIPE, &ignore, &saved_sigpipe_) == 0;
  pipe_ = ::popen(command_.c_str(), "we");
  if (pipe_ == nullptr) {
    int error = errno;
    restore_sigpipe();
    errno = error;
    throw_errno("popen", command_.c_str());
  }
}

popen_sink::~popen_sink() {
  if (pipe_ != nullptr) ::pclose(pipe_);
  restore_sigpipe();
}

void popen_sink::restore_sigpipe() noexcept {
  if (sigpipe_saved_) ::sigaction(SIGPIPE, &saved_sigpipe_, nullptr);
  sigpipe_saved_ = false;
}

void popen_sink::close() {
  std::FILE* pipe = pipe_;
  pipe_ = nullptr;
  errno = 0;
  bool failed = std::fflush(pipe) != 0 || std::ferror(pipe) != 0;
  int write_errno = errno;
  int status = ::pclose(pipe);  // closes the pipe and waits for the command
  int wait_errno = errno;
  restore_sigpipe();
  if (status == -1) {
    errno = wait_errno;
    throw_errno("wait for", command_.c_str());
  }
  // The command's failure first: it is why writing into its pipe failed.
  if (WIFSIGNALED(status))
    throw std::runtime_error(
        fmt::format("\"{}\" was killed by signal {}", command_, WTERMSIG(status)));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(
        fmt::format("\"{}\" exited with status {}", command_, WEXITSTATUS(status)));
  if (failed) {
    if (write_errno == 0) throw_failure("write (stdio) into the pipe of", command_.c_str());
    errno = write_errno;
    throw_errno("write (stdio) into the pipe of", command_.c_str());
  }
}

}  // namespace fastout_bench
