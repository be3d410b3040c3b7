// SPDX-License-Identifier: MIT
// fastout-bench: the sinks of the compressed workloads (W14, W15,
// W17_1k_gz), one per way a program writes compressed text today, with the
// shape every sink has (sinks.h):
//
//   gzfile_sink        zlib's gzopen(), gzprintf(), gzclose()      gzwrite
//   popen_sink         popen() of `gzip -6` or `zstd -3 -T1`, fed  popen_gzip,
//                      by stdio                                    popen_zstd
//   htslib_bgzf_sink   htslib's bgzf_open() and bgzf_mt(), or      htslib_bgzf_w1, _w2,
//                      bgzf_thread_pool() on a shared pool         htslib_bgzf_pool
//   zstd_limit_sink    libzstd's streaming API, on the caller's    zstd_limit
//                      thread, a 256 KiB chunk at a time
//   bgzf_limit_sink    libdeflate, BGZF blocks, on the caller's    bgzf_limit
//                      thread, a chunk of four blocks at a time
//   discard_sink       formats and throws the text away            format_only
//
// The libraries are optional (tools/CMakeLists.txt): a sink whose library
// was not found is not compiled, and missing_dependency() says which
// contenders this build lacks and why.
//
// The hand-written limits and discard_sink format into a chunk through a
// cursor (chunk_sink::cursor) exactly as limit_sink does, so that what they
// differ in is only what happens to a full chunk.
#ifndef FASTOUT_BENCH_COMPRESSED_SINKS_H_
#define FASTOUT_BENCH_COMPRESSED_SINKS_H_

#include <signal.h>  // struct sigaction

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <string>

#include "libraries.h"
#include "sinks.h"

#if FASTOUT_BENCH_HAVE_ZLIB
#  include <zlib.h>
#endif
#if FASTOUT_BENCH_HAVE_HTSLIB
#  include <htslib/bgzf.h>
#endif

#if FASTOUT_BENCH_HAVE_ZSTD
#  include <zstd.h>
#endif
#if FASTOUT_BENCH_HAVE_LIBDEFLATE
#  include <libdeflate.h>
#endif

namespace fastout_bench {

/// The levels every compressing contender uses (issue 17's bars are at
/// these): zstd's default, 3, and gzip's, 6.
inline constexpr int zstd_level = 3;
inline constexpr int gzip_level = 6;

/// The pipes' commands, at those levels (keep them in step); zstd with one
/// worker thread, -T1, as issue 17 asks, and without its progress output.
inline constexpr const char* popen_gzip_command = "gzip -6";
inline constexpr const char* popen_zstd_command = "zstd -3 -T1 -q";

/// The input a hand-written limit compresses at a time.
inline constexpr std::size_t compression_chunk = std::size_t{256} << 10;

/// The most input one BGZF block holds: htslib's BGZF_BLOCK_SIZE, so that
/// the compressed block is sure to fit BGZF's 64 KiB.
inline constexpr std::size_t bgzf_block_input = 0xff00;

/// What a contender needs that a build or a machine may lack.
enum class dependency {
  zlib,          ///< gzwrite; also reading back every gzip output
  zstd,          ///< zstd_limit; also reading back every zstd output
  libdeflate,    ///< bgzf_limit
  htslib,        ///< htslib_bgzf_w1, htslib_bgzf_w2
  gzip_program,  ///< popen_gzip: `gzip` on PATH
  zstd_program,  ///< popen_zstd: `zstd` on PATH
};

/// Why a contender that needs `needs` cannot run here, for the table (the
/// first thing missing), or an empty string if it can.
std::string missing_dependency(std::initializer_list<dependency> needs);

/// A buffer of `capacity` bytes that a cursor formats into and a derived
/// sink empties when it is full: what the hand-written limits and
/// format_only share. out() is the cursor.
class chunk_sink {
 public:
  class cursor;

  chunk_sink(const chunk_sink&) = delete;
  chunk_sink& operator=(const chunk_sink&) = delete;

  cursor out() noexcept;

 protected:
  explicit chunk_sink(std::size_t capacity);
  virtual ~chunk_sink();

  /// Takes the text in [data, data + size): compresses it, or counts it.
  /// Throws if anything fails.
  virtual void consume(const char* data, std::size_t size) = 0;
  /// consume()s what the last cursor left in the buffer: a derived close()
  /// calls it first.
  void consume_rest();

 private:
  friend class cursor;
  // Out of line, through a pointer to the sink, so that the cursor's
  // address never escapes and its position stays in a register. Consumes
  // [buffer_, pos) and returns buffer_.
  char* take_chunk(char* pos);

  std::unique_ptr<char[]> storage_;
  char* buffer_;
  char* end_;
  char* pos_;
};

/// limit_sink::cursor's twin: the fill position and end in locals, and
/// take_chunk() when less than a row's bound is left.
class chunk_sink::cursor {
 public:
  explicit cursor(chunk_sink& sink) noexcept : sink_(&sink), pos_(sink.pos_), end_(sink.end_) {}
  ~cursor() { sink_->pos_ = pos_; }
  cursor(const cursor&) = delete;
  cursor& operator=(const cursor&) = delete;

  /// `pos = format_row(pos)`, after emptying the buffer if less than
  /// `bound` bytes, the most one row takes, are left.
  template <typename FormatRow>
  void append(std::size_t bound, FormatRow format_row) {
    if (pos_ > end_ - bound) pos_ = sink_->take_chunk(pos_);
    pos_ = format_row(pos_);
  }

 private:
  chunk_sink* sink_;
  char* pos_;
  char* const end_;
};

inline chunk_sink::cursor chunk_sink::out() noexcept { return cursor(*this); }

/// format_only: the text formatted into a 256 KiB buffer that is never
/// compressed or written, the floor of every compressed contender. It
/// creates no file at `path`. close() throws unless it was given exactly
/// options.expected_bytes, so that a floor that formatted less cannot win.
class discard_sink : public chunk_sink {
 public:
  discard_sink(const char* path, const sink_options& options);
  void close();

 private:
  void consume(const char* data, std::size_t size) override;

  std::uint64_t formatted_ = 0;
  std::uint64_t expected_;
};

#if FASTOUT_BENCH_HAVE_ZSTD
/// zstd_limit: ZSTD_compressStream2() at zstd_level with the content
/// checksum (as `zstd` and fastout write), on the caller's thread, a 256
/// KiB chunk of text at a time, and one write() of what each chunk gave.
class zstd_limit_sink : public chunk_sink {
 public:
  zstd_limit_sink(const char* path, const sink_options& options);
  ~zstd_limit_sink() override;
  /// Ends the frame, writes it out and closes the file.
  void close();

 private:
  void consume(const char* data, std::size_t size) override;
  // Feeds [data, data + size) with `end` (ZSTD_e_continue or ZSTD_e_end)
  // until the input is taken (and, for ZSTD_e_end, the frame is out),
  // writing the output as it comes.
  void compress(const char* data, std::size_t size, ZSTD_EndDirective end);

  int fd_ = -1;
  ZSTD_CCtx* context_ = nullptr;
  std::unique_ptr<char[]> output_;
  std::size_t output_size_;
  const char* path_;
};
#endif

#if FASTOUT_BENCH_HAVE_LIBDEFLATE
/// bgzf_limit: BGZF written by hand on the caller's thread, each block
/// libdeflate_deflate_compress() of at most bgzf_block_input bytes at
/// gzip_level, with its header, CRC-32 and size; the chunk is four blocks'
/// input (255 KiB), so one write() per chunk; close() adds BGZF's
/// end-of-file block.
class bgzf_limit_sink : public chunk_sink {
 public:
  bgzf_limit_sink(const char* path, const sink_options& options);
  ~bgzf_limit_sink() override;
  void close();

 private:
  void consume(const char* data, std::size_t size) override;

  int fd_ = -1;
  libdeflate_compressor* compressor_ = nullptr;
  std::unique_ptr<char[]> output_;
  const char* path_;
};
#endif

#if FASTOUT_BENCH_HAVE_ZLIB
/// gzwrite: gzopen(path, "wb6"), zlib's own buffering (gzbuffer's default),
/// and gzprintf() or gzwrite() by the rows. close() checks gzerror() and
/// gzclose().
class gzfile_sink {
 public:
  gzfile_sink(const char* path, const sink_options& options);
  ~gzfile_sink();
  gzfile_sink(const gzfile_sink&) = delete;
  gzfile_sink& operator=(const gzfile_sink&) = delete;

  gzFile out() const noexcept { return file_; }
  void close();

 private:
  gzFile file_ = nullptr;
  const char* path_;
};
#endif

#if FASTOUT_BENCH_HAVE_HTSLIB
/// htslib_bgzf_w1, _w2: bgzf_open(path, "w6") and bgzf_mt() with
/// options.threads threads; rows bgzf_write() each formatted row, as
/// samtools writes a record, through out(), which checks what it returns.
/// close() checks the sticky error and bgzf_close(). With
/// options.htslib_pool (W17's htslib_bgzf_pool), bgzf_thread_pool() on
/// that shared pool instead of bgzf_mt(): htslib then starts one thread of
/// the file's own, which writes its compressed blocks out in order.
class htslib_bgzf_sink {
 public:
  struct writer {
    BGZF* file;
    const char* path;
    void write(const char* data, std::size_t size) const {
      if (bgzf_write(file, data, size) < 0) fail(file, path);
    }
  };

  htslib_bgzf_sink(const char* path, const sink_options& options);
  ~htslib_bgzf_sink();
  htslib_bgzf_sink(const htslib_bgzf_sink&) = delete;
  htslib_bgzf_sink& operator=(const htslib_bgzf_sink&) = delete;

  writer out() const noexcept { return writer{file_, path_}; }
  void close();
  /// Throws what a failed bgzf_write() met.
  [[noreturn]] static void fail(BGZF* file, const char* path);

 private:
  BGZF* file_ = nullptr;
  const char* path_;
};
#endif

/// popen_gzip, popen_zstd: popen() of `options.command > path`, fed by
/// stdio (the pipe's default buffer) through fprintf() by the rows: the
/// shell's way. SIGPIPE is ignored while the pipe is open, so that a
/// command that dies makes fprintf() fail instead of killing the driver.
/// close() checks ferror() and that the command exited with status 0.
class popen_sink {
 public:
  popen_sink(const char* path, const sink_options& options);
  ~popen_sink();
  popen_sink(const popen_sink&) = delete;
  popen_sink& operator=(const popen_sink&) = delete;

  std::FILE* out() const noexcept { return pipe_; }
  void close();

 private:
  void restore_sigpipe() noexcept;

  std::FILE* pipe_ = nullptr;
  std::string command_;
  struct sigaction saved_sigpipe_;
  bool sigpipe_saved_ = false;
};

}  // namespace fastout_bench

#endif  // FASTOUT_BENCH_COMPRESSED_SINKS_H_
