// SPDX-License-Identifier: MIT
#include "decompress.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "libraries.h"

#if FASTOUT_BENCH_HAVE_ZSTD
#  include <zstd.h>
#endif
#if FASTOUT_BENCH_HAVE_ZLIB
#  include <zlib.h>
#endif

namespace fastout_bench {
namespace {

constexpr std::size_t read_size = std::size_t{1} << 20;

// What a check found wrong; caught in check_decompressed().
struct wrong : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A file opened for reading, read a piece at a time.
class input_file {
 public:
  input_file(const std::string& path, const char* what) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw wrong(fmt::format("cannot read {}: {}", what, std::strerror(errno)));
  }
  ~input_file() { ::close(fd_); }
  input_file(const input_file&) = delete;
  input_file& operator=(const input_file&) = delete;

  // Up to `size` bytes; 0 at the end.
  std::size_t read(char* data, std::size_t size) {
    for (;;) {
      ssize_t n = ::read(fd_, data, size);
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno != EINTR) throw wrong(fmt::format("cannot read back: {}", std::strerror(errno)));
    }
  }

  // `size` bytes at `offset`, or false if the file is shorter.
  bool read_at(std::uint64_t offset, unsigned char* data, std::size_t size) {
    std::size_t done = 0;
    while (done < size) {
      ssize_t n = ::pread(fd_, data + done, size - done, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }

  std::uint64_t size() const {
    struct stat st;
    return ::fstat(fd_, &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  }

 private:
  std::string path_;
  int fd_;
};

// The reference file as an expected_text.
class file_text : public expected_text {
 public:
  explicit file_text(const std::string& path) : file_(path, "the reference") {}
  std::size_t read(char* data, std::size_t size) override { return file_.read(data, size); }

 private:
  input_file file_;
};

// The expected text, compared piece by piece with the output's text.
class reference_text {
 public:
  // `decompressed`: the text compared comes out of a decompressor, which
  // the messages say.
  reference_text(expected_text& source, bool decompressed)
      : source_(source), buffer_(new char[read_size]), decompressed_(decompressed) {}

  // Compares the next `size` bytes of the output's text; throws at the
  // first that differs, or if the text is longer than the reference.
  void compare(const char* data, std::size_t size) {
    while (size > 0) {
      if (pos_ == end_) {
        end_ = source_.read(buffer_.get(), read_size);
        pos_ = 0;
        if (end_ == 0)
          throw wrong(fmt::format("{} more than the reference's {} bytes",
                                  decompressed_ ? "it decompresses to" : "it holds", offset_));
      }
      std::size_t n = std::min(size, end_ - pos_);
      if (std::memcmp(data, buffer_.get() + pos_, n) != 0) {
        std::size_t i = 0;
        while (data[i] == buffer_[pos_ + i]) ++i;
        throw wrong(fmt::format("{} the reference at byte {}",
                                decompressed_ ? "decompressed, it differs from" : "it differs from",
                                offset_ + i));
      }
      data += n;
      size -= n;
      pos_ += n;
      offset_ += n;
    }
  }

  // Throws if the reference goes on after the output's text.
  void finish() {
    std::uint64_t rest = end_ - pos_;
    for (;;) {
      std::size_t n = source_.read(buffer_.get(), read_size);
      if (n == 0) break;
      rest += n;
    }
    pos_ = end_ = 0;
    if (rest > 0)
      throw wrong(fmt::format("{} {} bytes, fewer than the reference's {}",
                              decompressed_ ? "it decompresses to" : "it holds", offset_,
                              offset_ + rest));
  }

 private:
  expected_text& source_;
  std::unique_ptr<char[]> buffer_;
  bool decompressed_;
  std::size_t pos_ = 0;
  std::size_t end_ = 0;
  std::uint64_t offset_ = 0;
};

// A plain output: its bytes as they are.
void check_plain(reference_text& reference, input_file& file) {
  std::unique_ptr<char[]> buffer(new char[read_size]);
  for (;;) {
    std::size_t n = file.read(buffer.get(), read_size);
    if (n == 0) break;
    reference.compare(buffer.get(), n);
  }
}

#if FASTOUT_BENCH_HAVE_ZSTD
void check_zstd(reference_text& reference, input_file& file) {
  std::unique_ptr<ZSTD_DStream, std::size_t (*)(ZSTD_DStream*)> stream(ZSTD_createDStream(),
                                                                       ZSTD_freeDStream);
  if (stream == nullptr) throw wrong("cannot create a zstd decompressor");
  std::unique_ptr<char[]> in_buffer(new char[read_size]);
  const std::size_t out_size = ZSTD_DStreamOutSize();
  std::unique_ptr<char[]> out_buffer(new char[out_size]);
  std::size_t last = 0;  // what the last call returned: 0 once a frame is complete
  bool any = false;
  for (;;) {
    std::size_t n = file.read(in_buffer.get(), read_size);
    if (n == 0) break;
    any = true;
    ZSTD_inBuffer in{in_buffer.get(), n, 0};
    while (in.pos < in.size) {
      ZSTD_outBuffer out{out_buffer.get(), out_size, 0};
      last = ZSTD_decompressStream(stream.get(), &out, &in);
      if (ZSTD_isError(last))
        throw wrong(fmt::format("it is not a sound zstd stream: {}", ZSTD_getErrorName(last)));
      reference.compare(out_buffer.get(), out.pos);
    }
  }
  if (!any) throw wrong("it is empty: not even one zstd frame");
  // The input is all taken; what the decoder still holds comes out now.
  for (;;) {
    ZSTD_inBuffer in{nullptr, 0, 0};
    ZSTD_outBuffer out{out_buffer.get(), out_size, 0};
    if (last == 0) break;
    last = ZSTD_decompressStream(stream.get(), &out, &in);
    if (ZSTD_isError(last))
      throw wrong(fmt::format("it is not a sound zstd stream: {}", ZSTD_getErrorName(last)));
    reference.compare(out_buffer.get(), out.pos);
    if (out.pos == 0 && last != 0) throw wrong("it is cut short: its last zstd frame does not end");
  }
}
#endif

#if FASTOUT_BENCH_HAVE_ZLIB
void check_gzip(reference_text& reference, input_file& file) {
  z_stream z;
  std::memset(&z, 0, sizeof z);
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw wrong("cannot create a zlib decompressor");
  std::unique_ptr<z_stream, int (*)(z_stream*)> end(&z, inflateEnd);
  std::unique_ptr<char[]> in_buffer(new char[read_size]);
  std::unique_ptr<char[]> out_buffer(new char[read_size]);
  bool in_member = false;  // a member has begun and not ended
  std::uint64_t members = 0;
  for (;;) {
    if (z.avail_in == 0) {
      std::size_t n = file.read(in_buffer.get(), read_size);
      if (n == 0) break;
      z.next_in = reinterpret_cast<Bytef*>(in_buffer.get());
      z.avail_in = static_cast<uInt>(n);
    }
    if (!in_member) {
      // Another member follows the last one, as gzip -d reads them; any
      // other bytes after a member are an error here, not ignored.
      if (members > 0 && inflateReset(&z) != Z_OK) throw wrong("cannot reset zlib");
      in_member = true;
    }
    z.next_out = reinterpret_cast<Bytef*>(out_buffer.get());
    z.avail_out = static_cast<uInt>(read_size);
    int result = inflate(&z, Z_NO_FLUSH);
    reference.compare(out_buffer.get(), read_size - z.avail_out);
    if (result == Z_STREAM_END) {
      in_member = false;
      ++members;
    } else if (result != Z_OK && result != Z_BUF_ERROR) {
      throw wrong(fmt::format("it is not a sound gzip stream (member {}): {}", members + 1,
                              z.msg != nullptr ? z.msg : "zlib error"));
    }
  }
  if (in_member) throw wrong("it is cut short: its last gzip member does not end");
  if (members == 0) throw wrong("it is empty: not even one gzip member");
}
#endif

// BGZF on top of gzip: the first block carries the BC field, and the file
// ends with the empty block BGZF readers take for its end.
void check_bgzf_frame(input_file& file) {
  static constexpr unsigned char eof[28] = {0x1f, 0x8b, 8,   4,   0, 0, 0,    0, 0, 0xff,
                                            6,    0,    'B', 'C', 2, 0, 0x1b, 0, 3, 0,
                                            0,    0,    0,   0,   0, 0, 0,    0};
  unsigned char header[16];
  if (!file.read_at(0, header, sizeof header) || header[0] != 0x1f || header[1] != 0x8b ||
      (header[3] & 4) == 0 || header[12] != 'B' || header[13] != 'C')
    throw wrong("it is not BGZF: its first gzip member has no BC field");
  const std::uint64_t size = file.size();
  unsigned char tail[sizeof eof];
  if (size < sizeof eof || !file.read_at(size - sizeof eof, tail, sizeof tail) ||
      std::memcmp(tail, eof, sizeof eof) != 0)
    throw wrong("it does not end with BGZF's end-of-file block");
}

}  // namespace

std::string check_decompressed(const std::string& reference_path, const std::string& path,
                               output_format format) {
  if (format == output_format::plain || format == output_format::none)
    return "not a compressed format";
  try {
    file_text reference(reference_path);
    return check_output(reference, path, format);
  } catch (const wrong& e) {
    return e.what();
  }
}

std::string check_output(expected_text& expected, const std::string& path, output_format format) {
  try {
    reference_text reference(expected, format != output_format::plain);
    input_file file(path, "the output");
    switch (format) {
      case output_format::plain: check_plain(reference, file); break;
      case output_format::zstd:
#if FASTOUT_BENCH_HAVE_ZSTD
        check_zstd(reference, file);
        break;
#else
        return "the driver was built without libzstd, which reads zstd output back";
#endif
      case output_format::bgzf: check_bgzf_frame(file); [[fallthrough]];
      case output_format::gzip:
#if FASTOUT_BENCH_HAVE_ZLIB
        check_gzip(reference, file);
        break;
#else
        return "the driver was built without zlib, which reads gzip output back";
#endif
      case output_format::none: return "no output to check";
    }
    reference.finish();
  } catch (const wrong& e) {
    return e.what();
  }
  return {};
}

}  // namespace fastout_bench
