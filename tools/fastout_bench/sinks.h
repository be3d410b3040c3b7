// SPDX-License-Identifier: MIT
// fastout-bench: the sinks, one per library a contender writes with.
//
// A sink opens a path the way its library does, with the buffer the
// contender's sink_options ask for; out() hands the contender's loop what it
// writes through (a FILE*, an ofstream, a fastout::file, ...); close() flushes
// and closes with every error checked, so that a contender that silently
// lost data cannot win. Opening and closing are out of line: they run once
// per timed run, never per byte. How a row is written (putc or
// putc_unlocked, `out << x << '\n'` or std::endl, print or FMT_COMPILE) is
// the contender's idiom and stays in its row (contenders.h).
//
// Every sink has the same shape, which write_rows() in contenders.h relies on:
//
//   class xxx_sink {
//    public:
//     xxx_sink(const char* path, const sink_options& options);  // throws
//     W out();        // what a row writes through: a handle, a reference,
//                     // or a cursor returned by value (see limit_sink)
//     void close();   // flushes and closes; throws if anything was lost
//     ~xxx_sink();    // after a throw: releases everything, checks nothing
//   };
//
// `path` must outlive the sink. A sink's out() is called once per run, and
// what it returns lives until the loop is done, before close().
//
// The standard-output sinks (stdout_redirect and below) point the driver's
// own fd 1 at the path for the run, so that printf, std::cout and
// fastout::standard_output() write as they do in a program whose output is
// redirected to a file. They are POSIX-only: the Windows build has none.
//
// On Windows the limit and write_per_call write with WriteFile on a handle
// from CreateFileW, and every file is binary: stdio's is opened "wb",
// {fmt}'s with O_BINARY, the ofstream with ios::binary (as everywhere), so
// that no '\n' becomes "\r\n" and every output can match the reference.
#ifndef FASTOUT_BENCH_SINKS_H_
#define FASTOUT_BENCH_SINKS_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <ostream>
#include <string>

// fastout first: its fmt_compat.h keeps GCC 12 from a false -Warray-bounds
// inside {fmt} 12, which would otherwise reach the compiled double writer.
#include <fastout/c_api.h>
#include <fastout/cursor.h>
#include <fastout/file.h>
#include <fastout/iostream.h>
#include <fastout/print.h>
#include <fastout/standard_streams.h>

#include <fmt/compile.h>
#include <fmt/format.h>
#include <fmt/os.h>

struct hts_tpool;  // htslib's thread pool (htslib/thread_pool.h): see sink_options

namespace fastout_bench {

/// How a contender opens its sink. A sink uses what its library has and
/// ignores the rest (unbuffered_sink has no buffer).
struct sink_options {
  /// The buffer the library is given, in bytes; 0 for the library's own
  /// (stdio's and libstdc++'s default, fastout's 256 KiB, the limit's 1 MiB).
  std::size_t buffer_size = 0;
  /// close() returns only once the data is on disk (W11, W12): fsync() of
  /// the sink's descriptor after the last write, for stdio, the limit and
  /// write() per call; fsync() through a descriptor of its own after the
  /// stream closes, for ofstream and {fmt}, which hide theirs;
  /// fastout::sync = true for fastout, which makes it fdatasync() (fsync()
  /// when replacing).
  bool sync = false;
  /// With sync: fdatasync() instead of fsync() where the sink calls it on
  /// its own descriptor (stdio, the limit, write() per call), as
  /// fastout::sync does when it does not replace (W12f's limit_sync).
  bool sync_data_only = false;
  /// stdio only: write "<path>.tmp" and rename() it over the path in
  /// close(), the replacement people write by hand (W11).
  bool rename_into_place = false;
  /// fastout only: how it opens the path, what it asks of the page cache,
  /// and how much it preallocates (W11, W12).
  fastout::open_mode fastout_mode = fastout::open_mode::truncate;
  fastout::page_cache fastout_cache = fastout::page_cache::keep;
  std::uint64_t fastout_preallocate = 0;
  /// fastout only: compressed output (W14, W15), format, level and workers.
  fastout::compression_options fastout_compression{};
  /// For fastout's iostream adapter: fastout::flush_policy::on_close, so
  /// that std::endl and std::flush do not write.
  bool deferred_flushes = false;
  /// htslib's BGZF writer (compressed_sinks.h): the threads bgzf_mt() is
  /// given.
  int threads = 0;
  /// htslib's BGZF writer: a thread pool the file shares with others
  /// (bgzf_thread_pool(), what hts_set_thread_pool() does for a BGZF
  /// file), instead of threads of its own (W17_1k_gz). The caller creates
  /// it and destroys it after every file is closed.
  hts_tpool* htslib_pool = nullptr;
  /// popen_sink (compressed_sinks.h): the command that reads the text on
  /// its standard input and writes the output on its standard output.
  const char* command = nullptr;
  /// discard_sink (compressed_sinks.h): how many bytes it must have been
  /// given by close().
  std::uint64_t expected_bytes = 0;
};

/// A 1 MiB buffer: the limit's own, and the one the `_1m` contenders give
/// their library.
inline constexpr sink_options buffer_1m{std::size_t{1} << 20};
/// The iostream adapter with fastout::flush_policy::on_close.
inline constexpr sink_options deferred_flushes = [] {
  sink_options options;
  options.deferred_flushes = true;
  return options;
}();
/// A 256 KiB buffer, fastout's default: the `_256k` stdio contenders set it
/// with setvbuf(), and `limit_256k` is the hand-written limit with it. Where
/// a core's L2 cache holds 1 MiB or less, the 1 MiB buffer and the
/// page-cache pages write() copies it into no longer fit in L2 together, and
/// the smaller buffer is faster (more so while other processes share the
/// L3): `limit_256k` shows how much of fastout's lead over `limit` is that.
inline constexpr sink_options buffer_256k{std::size_t{256} << 10};

/// What the limit and write_per_call write to: a descriptor, or on Windows
/// a Win32 HANDLE. `no_file` is none.
#if defined(_WIN32)
using native_file = void*;
inline native_file const no_file = nullptr;
#else
using native_file = int;
inline constexpr native_file no_file = -1;
#endif

/// Throws std::system_error with errno, naming what failed and the path.
[[noreturn]] void throw_errno(const char* action, const char* path);
/// Throws std::runtime_error naming what failed and the path.
[[noreturn]] void throw_failure(const char* action, const char* path);
/// write() until everything is written, retrying EINTR; throws on failure.
/// On Windows: WriteFile, in pieces of at most 1 GiB.
void write_all(native_file fd, const char* data, std::size_t size, const char* path);
/// open(path) for writing, creating or truncating it; throws on failure.
/// On Windows: CreateFileW(CREATE_ALWAYS) on the path widened from UTF-8.
native_file open_fd(const char* path);
/// close(fd); throws on failure (but not on EINTR, after which Linux has
/// closed it). On Windows: CloseHandle.
void close_fd(native_file fd, const char* path);

#if defined(_WIN32)
/// The C runtime's _fwrite_nolock, which this program's runtime may lack:
/// the UCRT has it, and Debian's MinGW-w64 links msvcrt.dll, whose Windows
/// copy has not (Wine's has). Looked up once with GetProcAddress in that
/// runtime's DLL; nullptr where it is not there.
using fwrite_function = std::size_t (*)(const void*, std::size_t, std::size_t, std::FILE*);
fwrite_function runtime_fwrite_nolock() noexcept;
/// Why runtime_fwrite_nolock() is nullptr, for the table's absent line.
std::string why_no_fwrite_nolock();
#endif

/// stdio: fopen(path, "w") ("wb" on Windows), with a buffer of options.buffer_size set by
/// setvbuf() if it is not 0. out() is the FILE*, for fprintf, fputs, putc,
/// putc_unlocked, fwrite_unlocked. close() checks ferror() and fclose(),
/// after fflush() and fsync() with options.sync. With
/// options.rename_into_place it writes "<path>.tmp" and renames it over
/// the path in close().
class stdio_sink {
 public:
  stdio_sink(const char* path, const sink_options& options);
  ~stdio_sink();
  stdio_sink(const stdio_sink&) = delete;
  stdio_sink& operator=(const stdio_sink&) = delete;

  std::FILE* out() const noexcept { return file_; }
  void close();

 private:
  // glibc ignores the size when setvbuf() is given no buffer, so the sink
  // provides one; declared before file_, it outlives the FILE.
  std::unique_ptr<char[]> buffer_;
  std::FILE* file_ = nullptr;
  const char* path_;
  std::string temporary_;  // with rename_into_place: what is written, then renamed
  bool sync_;
  bool sync_data_only_;
};

/// iostreams: a std::ofstream opened binary and truncating, with a buffer of
/// options.buffer_size set by pubsetbuf() before open() (as libstdc++
/// requires) if it is not 0. out() is the stream. close() throws if any write
/// or the close failed.
class ofstream_sink {
 public:
  ofstream_sink(const char* path, const sink_options& options);
  ofstream_sink(const ofstream_sink&) = delete;
  ofstream_sink& operator=(const ofstream_sink&) = delete;

  std::ofstream& out() noexcept { return out_; }
  void close();

 private:
  std::unique_ptr<char[]> buffer_;  // declared before out_: it outlives the stream
  std::ofstream out_;
  const char* path_;
  bool sync_;
};

/// {fmt}: fmt::output_file(path), with fmt::buffer_size if
/// options.buffer_size is not 0. out() is the fmt::ostream, whose print()
/// takes a format string parsed at run time. close() is fmt's, which throws
/// on any failure.
class fmt_file_sink {
 public:
  fmt_file_sink(const char* path, const sink_options& options);
  ~fmt_file_sink() {
    if (closed_) out_.~ostream();
  }
  fmt_file_sink(const fmt_file_sink&) = delete;
  fmt_file_sink& operator=(const fmt_file_sink&) = delete;

  fmt::ostream& out() noexcept { return out_; }
  void close();

 private:
  // fmt::ostream's destructor flushes what is buffered and throws if that
  // fails, which ends the program when it runs during a throw. In a union
  // it is destroyed only once it closed cleanly; after a failure it is
  // leaked (a contender that failed never runs again). It stays inside the
  // sink, not on the heap: moving it changed which copy of {fmt}'s inline
  // functions the linker kept, and fmt_output_file's instruction count.
  union {
    fmt::ostream out_;
  };
  bool closed_ = false;
  const char* path_;
  bool sync_;
};

/// No buffer at all: open(), then one write() per call (the
/// `write_per_call` contender; WriteFile on Windows). out() has put(c) and
/// write(data, size).
class unbuffered_sink {
 public:
  struct writer {
    native_file fd;
    const char* path;
    void write(const char* data, std::size_t size) const { write_all(fd, data, size, path); }
    void put(char c) const { write_all(fd, &c, 1, path); }
  };

  unbuffered_sink(const char* path, const sink_options& options);
  ~unbuffered_sink();
  unbuffered_sink(const unbuffered_sink&) = delete;
  unbuffered_sink& operator=(const unbuffered_sink&) = delete;

  writer out() const noexcept { return writer{fd_, path_}; }
  void close();

 private:
  native_file fd_ = no_file;
  const char* path_;
  bool sync_;
  bool sync_data_only_;
};

/// The hand-written limit: the fastest reasonable code with no library, a
/// buffer (options.buffer_size, 1 MiB unless given) and a write() when it is
/// full (WriteFile on Windows). out() is a cursor that keeps the fill position in a local, as a
/// hand-written loop would; only flushing is out of line.
class limit_sink {
 public:
  class cursor;

  limit_sink(const char* path, const sink_options& options);
  ~limit_sink();
  limit_sink(const limit_sink&) = delete;
  limit_sink& operator=(const limit_sink&) = delete;

  cursor out() noexcept;
  /// Writes what is buffered and closes the file. Call it after the cursor
  /// is gone: the cursor hands its position back when it is destroyed.
  void close();

 private:
  friend class cursor;
  // Writes [buffer_, pos) to the file; returns buffer_.
  char* flush(char* pos);
  // write() when `size` bytes do not fit after `pos`: flushes, then sends a
  // piece at least as large as the buffer straight to the file and copies a
  // smaller one. Returns the new position.
  char* write_slow(char* pos, const char* data, std::size_t size);

  native_file fd_ = no_file;
  std::unique_ptr<char[]> storage_;
  char* buffer_ = nullptr;
  char* end_ = nullptr;
  char* pos_ = nullptr;  // where the last cursor left off
  const char* path_;
  bool sync_;
  bool sync_data_only_;
};

/// The limit's fill position and end in locals. The cursor is a local object
/// whose address never escapes (its out-of-line calls go through a pointer
/// to the sink, not to the cursor), so the compiler keeps both in registers:
/// a `char` store through the position cannot alias them. This is what a
/// hand-written loop with a `char* pos` local compiles to.
class limit_sink::cursor {
 public:
  explicit cursor(limit_sink& sink) noexcept : sink_(&sink), pos_(sink.pos_), end_(sink.end_) {}
  ~cursor() { sink_->pos_ = pos_; }
  cursor(const cursor&) = delete;
  cursor& operator=(const cursor&) = delete;

  /// A store, and a write() when the buffer is full.
  void put(char c) {
    if (pos_ == end_) pos_ = sink_->flush(pos_);
    *pos_++ = c;
  }

  /// One memcpy while it fits; see write_slow() for what does not. `<`,
  /// not `<=`: a piece as large as the whole buffer must go straight to the
  /// file even when the buffer is empty (W10 writes 1 MiB pieces through a
  /// 1 MiB buffer), and one that would fill the buffer exactly is only sent
  /// a little earlier.
  void write(const char* data, std::size_t size) {
    if (size < static_cast<std::size_t>(end_ - pos_)) {
      std::memcpy(pos_, data, size);
      pos_ += size;
      return;
    }
    pos_ = sink_->write_slow(pos_, data, size);
  }

  /// fmt::format_to(pos, format, args...) with a compiled format
  /// (FMT_COMPILE), after a write() if less than `bound` bytes, the most
  /// that one call can write, are left: a row never needs a check of its
  /// own. `bound` must not exceed the buffer.
  template <typename S, typename... T>
  void format_to(std::size_t bound, const S& format, const T&... args) {
    if (pos_ > end_ - bound) pos_ = sink_->flush(pos_);
    pos_ = fmt::format_to(pos_, format, args...);
  }

  /// `pos = format_row(pos)`, after a write() if less than `bound` bytes
  /// are left: for a row formatted by a function that several contenders
  /// share (W14, W15), which returns the end of what it wrote.
  template <typename FormatRow>
  void append(std::size_t bound, FormatRow format_row) {
    if (pos_ > end_ - bound) pos_ = sink_->flush(pos_);
    pos_ = format_row(pos_);
  }

 private:
  limit_sink* sink_;
  char* pos_;
  char* const end_;
};

inline limit_sink::cursor limit_sink::out() noexcept { return cursor(*this); }

/// fastout: fastout::output_file(path), with fastout::buffer_size if
/// options.buffer_size is not 0, and the open mode, sync, page cache and
/// preallocation the options ask for. out() is the fastout::file, for put,
/// write, print and <<. close() is fastout's, which throws on any failure
/// (and, replacing, puts the new file in place).
class fastout_sink {
 public:
  fastout_sink(const char* path, const sink_options& options);

  fastout::file& out() noexcept { return file_; }
  void close();

 protected:
  fastout::file file_;
  bool drop_cache_;
};

/// What the kernel made of fastout::page_cache::drop (RWF_DONTCACHE) the
/// last time a fastout sink asked for it in this run: W12's bar is judged
/// only where it was taken.
enum class dontcache_support { untried, taken, refused };
dontcache_support last_dontcache_support() noexcept;

/// fastout through the cursor of file::make_cursor(), for byte-at-a-time
/// loops (the `fastout_cursor` contender). The cursor hands its position back
/// when the loop is done, before close().
class fastout_cursor_sink : public fastout_sink {
 public:
  using fastout_sink::fastout_sink;

  fastout::cursor out() noexcept { return file_.make_cursor(); }
};

/// fastout's iostream adapter: a fastout::ofstream(path), with
/// fastout::buffer_size if options.buffer_size is not 0 and
/// flush_policy::on_close if options.deferred_flushes. out() is the stream,
/// so ofstream's rows serve it as they are. close() throws, with the
/// stream's error_message(), if the stream failed.
class fastout_ostream_sink {
 public:
  fastout_ostream_sink(const char* path, const sink_options& options);

  fastout::ofstream& out() noexcept { return out_; }
  void close();

 private:
  fastout::ofstream out_;
  const char* path_;
};

// ------------------------------------------------------- standard output
#if !defined(_WIN32)

/// Points fd 1 at `path` for one run, as a shell's `> path` does for a
/// program, and puts the driver's own standard output back in restore() or
/// the destructor. stdio's stdout is given what glibc gives a program whose
/// stdout is that file: full buffering, with st_blksize bytes (BUFSIZ at
/// most), in a buffer of the driver's; restore() puts back line buffering
/// if fd 1 is a terminal. The driver's own text must be flushed first (the
/// measuring loop does).
class stdout_redirect {
 public:
  explicit stdout_redirect(const char* path);
  ~stdout_redirect();
  stdout_redirect(const stdout_redirect&) = delete;
  stdout_redirect& operator=(const stdout_redirect&) = delete;

  /// Puts the driver's own fd 1 back; throws if it cannot.
  void restore();
  /// Where fd 1 points, for the sink's error messages.
  const char* path() const noexcept { return path_; }

 private:
  int saved_ = -1;  // the driver's own fd 1
  const char* path_;
};

/// C's stdout redirected to the file: out() is stdout, for printf and
/// putchar_unlocked rows. close() flushes it and throws if stdio saw an
/// error.
class stdout_stdio_sink {
 public:
  stdout_stdio_sink(const char* path, const sink_options& options);

  std::FILE* out() const noexcept { return stdout; }
  void close();

 private:
  stdout_redirect redirect_;
};

/// std::cout redirected to the file, synced with stdio as it is by default:
/// libstdc++ hands every insertion to stdio's stdout. out() is std::cout.
class cout_sink {
 public:
  cout_sink(const char* path, const sink_options& options);

  std::ostream& out() noexcept;
  void close();

 private:
  stdout_redirect redirect_;
};

#  if defined(__GLIBCXX__)
/// std::cout as std::ios::sync_with_stdio(false) makes it in libstdc++: a
/// __gnu_cxx::stdio_filebuf<char> on stdout's descriptor with a BUFSIZ
/// buffer of its own, which is what that call installs. It is installed
/// with cout.rdbuf() for the run and removed after it, because
/// sync_with_stdio(false) cannot be undone in a process that goes on to run
/// the synced contenders. out() is std::cout.
class cout_unsynced_sink {
 public:
  cout_unsynced_sink(const char* path, const sink_options& options);
  ~cout_unsynced_sink();

  std::ostream& out() noexcept;
  void close();

 private:
  stdout_redirect redirect_;
  std::unique_ptr<std::streambuf> buffer_;
  std::streambuf* saved_ = nullptr;  // cout's own stream buffer
};
#  endif

/// fastout::standard_output() on the redirected fd 1, with the buffering it
/// would choose at the start of a program whose stdout is that file
/// (set_standard_output_options()). out() is the writer. close() flushes it,
/// throwing what it throws.
class fastout_stdout_sink {
 public:
  fastout_stdout_sink(const char* path, const sink_options& options);

  fastout::file& out() noexcept { return fastout::standard_output(); }
  void close();

 private:
  stdout_redirect redirect_;
};

/// std::cout and printf after fastout::sync_with_stdio(): both write into
/// fastout::standard_output(), on the redirected fd 1. out() is std::cout;
/// a printf row ignores it. close() undoes the sync (which flushes) and
/// throws if fastout's writer or std::cout failed.
class fastout_synced_sink {
 public:
  fastout_synced_sink(const char* path, const sink_options& options);
  ~fastout_synced_sink();

  std::ostream& out() noexcept;
  void close();

 private:
  stdout_redirect redirect_;
  bool synced_ = false;
};
#endif  // !_WIN32: standard output

/// fastout's C API: fastout_open(path, options) with options.buffer_size if
/// it is not 0. out() is the fastout_file* handle, for fastout_putc,
/// fastout_write and fastout_printf. close() is fastout_close(), whose
/// negative result (the first error met, sticky) is thrown with its name.
class fastout_c_sink {
 public:
  fastout_c_sink(const char* path, const sink_options& options);
  ~fastout_c_sink() { fastout_close(file_); }
  fastout_c_sink(const fastout_c_sink&) = delete;
  fastout_c_sink& operator=(const fastout_c_sink&) = delete;

  fastout_file* out() const noexcept { return file_; }
  void close();

 protected:
  fastout_file* file_;
  const char* path_;
};

/// The C API through a fastout_cursor, for byte-at-a-time loops (the
/// `fastout_c_cursor` contender). out() begins the cursor, which ends -- by
/// value, so that its address never escapes the loop -- when the loop is
/// done, before close(). An error of the cursor is the writer's too, and
/// close() reports it.
class fastout_c_cursor_sink : public fastout_c_sink {
 public:
  struct cursor {
    explicit cursor(fastout_file* file) noexcept : state(fastout_cursor_begin(file)) {}
    ~cursor() { fastout_cursor_end(state); }
    cursor(const cursor&) = delete;
    cursor& operator=(const cursor&) = delete;
    fastout_cursor state;
  };

  using fastout_c_sink::fastout_c_sink;
  cursor out() const noexcept { return cursor(file_); }
};

}  // namespace fastout_bench

#endif  // FASTOUT_BENCH_SINKS_H_
