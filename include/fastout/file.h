// fastout: a fast, safe, buffered file writer for one thread.
//
// This is the core writer that every other fastout feature builds on. Its hot
// path -- put() and write() while the data fits -- is one pointer comparison
// and a copy, inline. Everything else (flushing, errors, line buffering) is out
// of line in src/file.cpp.
#ifndef FASTOUT_FILE_H_
#define FASTOUT_FILE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

#include <fmt/compile.h>
#include <fmt/format.h>

#if defined(__GNUC__) || defined(__clang__)
#  define FASTOUT_API __attribute__((visibility("default")))
#  define FASTOUT_ALWAYS_INLINE inline __attribute__((always_inline))
#  define FASTOUT_LIKELY(x) __builtin_expect(!!(x), 1)
#else
#  define FASTOUT_API
#  define FASTOUT_ALWAYS_INLINE inline
#  define FASTOUT_LIKELY(x) (x)
#endif

#define FASTOUT_VERSION_MAJOR 0
#define FASTOUT_VERSION_MINOR 1
#define FASTOUT_VERSION_PATCH 0

struct iovec;

namespace fastout {

/// The buffer size a writer gets when none is given: 256 KiB.
///
/// Chosen by the W5 `sweep` workload of `fastout-bench` (docs/buffer-size.md
/// has the figures): on the machines we measured, write() into the page cache
/// still costs ~13% more at 64 KiB than at the plateau, ~4% at 256 KiB, and
/// nothing measurable above 1 MiB. 256 KiB keeps a writer's memory modest while
/// staying within a few percent of the best.
inline constexpr std::size_t default_buffer_size = 256 * 1024;

/// What happens to an existing file at the path when it is opened.
enum class open_mode {
  truncate,          ///< create or truncate: fopen's "w" (the default)
  append,            ///< create or append at the end: fopen's "a"
  create_exclusive,  ///< create; fail with EEXIST if it exists: fopen's "wx"
};

/// When the buffer is written to the file, besides flush() and close().
enum class buffering {
  automatic,  ///< line-buffered on a terminal, fully buffered otherwise (stdio's rule)
  full,       ///< only when the buffer is full
  line,       ///< also after every call whose data holds a '\n'
};

/// Everything that can be chosen when a writer is opened.
struct file_options {
  open_mode mode = open_mode::truncate;
  /// Permission bits for a file that is created, masked by the umask (fopen's 0666).
  unsigned permissions = 0666;
  /// Fixed at open and never reallocated. 0 means unbuffered: every call goes
  /// straight to the file.
  std::size_t buffer_size = default_buffer_size;
  buffering buffer_mode = buffering::automatic;
  /// {fmt}-style open flags (file::CREATE | file::APPEND | ...), used exactly
  /// as given instead of `mode` when set; -1, the default, means `mode`.
  /// Write access is implied (file::WRONLY unless file::RDWR is given).
  int flags = -1;
};

/// Counters a writer keeps; reading them costs nothing on the hot path.
struct file_stats {
  /// Bytes handed to put()/write(), including those of a call that threw.
  std::uint64_t bytes_accepted = 0;
  /// Bytes the kernel reported as written: exact even after an error.
  std::uint64_t bytes_written = 0;
  /// write()/writev() system calls made, including ones interrupted by signals.
  std::uint64_t write_calls = 0;
  /// Times buffered data was sent to the file (when full, on flush(), on close()).
  std::uint64_t flushes = 0;
};

/// What a writer that is destroyed without close() could not write.
struct error_report {
  const char* path;            ///< the path, or a name such as "<stdout>"
  std::error_code error;       ///< the cause
  std::uint64_t bytes_lost;    ///< bytes accepted that never reached the file
};

/// Called when a writer is destroyed (or move-assigned over) without close()
/// and could not write everything it accepted, or could not close the file.
/// It must not throw. It runs on the thread that destroyed the writer.
using error_handler = void (*)(const error_report& report) noexcept;

/// Replaces the process-wide error handler and returns the previous one.
/// nullptr restores the default, which prints one line to stderr naming the
/// path, the cause and the number of bytes lost. Thread-safe.
FASTOUT_API error_handler set_error_handler(error_handler handler) noexcept;

/// The default error handler, so a replacement can chain to it.
FASTOUT_API void default_error_handler(const error_report& report) noexcept;

namespace detail {

// A reference to a NUL-terminated string: const char*, std::string, or
// anything with c_str() such as std::filesystem::path.
class cstring_view {
 public:
  cstring_view(const char* s) noexcept : str_(s) {}
  template <typename S, typename = decltype(static_cast<const char*>(
                            std::declval<const S&>().c_str()))>
  cstring_view(const S& s) noexcept : str_(s.c_str()) {}
  const char* c_str() const noexcept { return str_; }

 private:
  const char* str_;
};

// The part of a writer the inline hot path touches. It is first in the
// object and standard-layout so that a C inline fast path can share it.
struct buffer_state {
  char* pos;    // where the next byte goes
  char* limit;  // the hot path may fill up to here; pos == limit sends
                // the next call out of line (full, line mode, error, closed)
};

struct buffer_size_param {
  std::size_t value;
};
struct buffer_size_key {
  constexpr buffer_size_param operator=(std::size_t n) const noexcept { return {n}; }
};
struct permissions_param {
  unsigned value;
};
struct permissions_key {
  constexpr permissions_param operator=(unsigned bits) const noexcept { return {bits}; }
};

}  // namespace detail

/// `fastout::buffer_size = n` as a parameter of output_file(), as in {fmt}.
inline constexpr detail::buffer_size_key buffer_size{};
/// `fastout::permissions = 0600` as a parameter of output_file().
inline constexpr detail::permissions_key permissions{};

class cursor;

namespace detail {
class print_buffer;
template <typename T> struct hex_value;
// Formats into a fmt buffer; lets out-of-line code re-run an inline format.
using format_function = void (*)(void* context, fmt::detail::buffer<char>& out);
}  // namespace detail

/// A buffered writer to one file descriptor, for one thread at a time.
///
/// Errors are reported as std::system_error carrying errno and the path, at the
/// call that met them. They are sticky: every later call throws again, and
/// stats().bytes_written says exactly how much reached the file. close() is
/// the checked way out; the destructor flushes, never throws, and reports what
/// it could not write through the error handler (see set_error_handler()).
class FASTOUT_API file {
 public:
  /// {fmt}-compatible open flags, for `output_file(path, file::WRONLY | ...)`.
  /// As in {fmt} they are passed to open() as they are: without CREATE the
  /// file must exist, and CREATE without TRUNC or APPEND overwrites it from
  /// the start. Unlike {fmt}, write access is implied, so file::APPEND alone
  /// appends instead of opening read-only.
  enum { RDONLY = 0, WRONLY = 01, RDWR = 02, CREATE = 0100, EXCL = 0200, TRUNC = 01000, APPEND = 02000 };

  /// A closed writer; every write to it throws.
  file() noexcept;

  /// Opens `path` for writing (always O_CLOEXEC).
  /// Throws std::system_error naming the path and the cause if it cannot be
  /// opened (missing directory, a directory, no permission, exists with
  /// create_exclusive, ...) or if options.buffer_size cannot be allocated.
  explicit file(detail::cstring_view path, const file_options& options = {});

  /// Takes ownership of `fd`: close() closes it. `name` is used in errors
  /// (default "<fd N>"). Throws std::system_error(EBADF) if fd is negative.
  static file adopt(int fd, const file_options& options = {}, std::string name = {});
  /// Writes to `fd` without owning it: close() flushes but leaves it open.
  static file borrow(int fd, const file_options& options = {}, std::string name = {});

  ~file();
  file(file&& other) noexcept;
  file& operator=(file&& other) noexcept;
  file(const file&) = delete;
  file& operator=(const file&) = delete;

  /// Writes one byte. Inline: a comparison and a store while it fits.
  FASTOUT_ALWAYS_INLINE void put(char c) {
    if (FASTOUT_LIKELY(state_.pos != state_.limit)) {
      *state_.pos++ = c;
      return;
    }
    put_slow(c);
  }

  /// Writes `size` bytes. Inline: a comparison and a copy while they fit.
  /// Data at least as large as the buffer goes to the file in one writev()
  /// together with what is buffered, without being copied.
  FASTOUT_ALWAYS_INLINE void write(const void* data, std::size_t size) {
    // size - 1: an empty write goes out of line, so memcpy never sees the
    // null data of an empty string_view (undefined behaviour) and a closed
    // writer throws even for it.
    if (FASTOUT_LIKELY(size - 1 < static_cast<std::size_t>(state_.limit - state_.pos))) {
      std::memcpy(state_.pos, data, size);
      state_.pos += size;
      return;
    }
    write_slow(static_cast<const char*>(data), size);
  }
  FASTOUT_ALWAYS_INLINE void write(std::string_view s) { write(s.data(), s.size()); }

  /// Formats with {fmt} straight into the buffer, as fmt::ostream::print:
  /// the format string is checked at compile time (use fmt::runtime() for one
  /// known only at run time). Text is never split across a flush unless it is
  /// larger than the whole buffer, and a format error at run time throws
  /// fmt::format_error and leaves no part of the text in the file.
  template <typename... T>
  void print(fmt::format_string<T...> format, T&&... args);
  /// The same for a compiled format, `print(FMT_COMPILE("{}\n"), x)`: the
  /// fastest way to format, which fmt::output_file cannot take.
  template <typename S, typename... T,
            std::enable_if_t<std::is_base_of<fmt::detail::compiled_string, S>::value, int> = 0>
  void print(const S& format, T&&... args);
  /// print() followed by '\n', written as one piece.
  template <typename... T>
  void println(fmt::format_string<T...> format, T&&... args);
  template <typename S, typename... T,
            std::enable_if_t<std::is_base_of<fmt::detail::compiled_string, S>::value, int> = 0>
  void println(const S& format, T&&... args);
  /// print() with type-erased arguments, as fmt::vprint.
  void vprint(fmt::string_view format, fmt::format_args args);

  /// Scalar output without a format string: the same text as fmt's "{}".
  /// Integers of every width, floating point (shortest round trip), bool,
  /// char, C strings, string views, fastout::hex(x), and any type with a
  /// fmt::formatter.
  template <typename T>
  file& operator<<(const T& value);

  /// Sends everything buffered to the file. Throws on error (sticky).
  void flush();
  /// Flushes, then closes the descriptor if this writer owns it. Idempotent:
  /// closing a closed writer does nothing. Throws std::system_error if
  /// anything accepted could not be written or the close failed; the
  /// descriptor is released either way.
  void close();

  /// A fast local cursor for tight loops; see fastout::cursor.
  cursor make_cursor() noexcept;

  bool is_open() const noexcept { return fd_ >= 0; }
  int descriptor() const noexcept { return fd_; }
  /// The path given at open, or the name of an adopted/borrowed descriptor.
  const std::string& path() const noexcept { return path_; }
  /// The buffer's capacity, fixed at open (0 for an unbuffered writer).
  std::size_t buffer_capacity() const noexcept {
    return static_cast<std::size_t>(buffer_end_ - buffer_);
  }
  /// Bytes accepted that have not been sent to the file yet.
  std::size_t bytes_pending() const noexcept {
    return static_cast<std::size_t>(state_.pos - buffer_);
  }
  bool line_buffered() const noexcept { return line_buffered_; }
  /// The sticky error, or an empty error_code while all is well.
  std::error_code error() const noexcept;
  file_stats stats() const noexcept;

 private:
  friend class cursor;
  friend class detail::print_buffer;
  template <typename F>
  static void call_format(void* context, fmt::detail::buffer<char>& out) {
    (*static_cast<F*>(context))(out);
  }
  template <typename F>
  void format_with(F& format);
  void print_slow(detail::format_function format, void* context, bool validated);
  void print_unbuffered(detail::format_function format, void* context);
  void print_streaming(detail::format_function format, void* context);
  void flush_complete_lines(const char* text_begin);
  template <typename T>
  FASTOUT_ALWAYS_INLINE void write_scalar(T value);
  template <typename T>
  void write_scalar_slow(T value);
  struct fd_tag {};
  file(fd_tag, int fd, bool owns_fd, const file_options& options, std::string name);
  void allocate_buffer(std::size_t size);
  void choose_buffering(buffering mode);

  void put_slow(char c);
  void write_slow(const char* data, std::size_t size);
  void write_buffered(const char* data, std::size_t size);
  void ensure_usable() const;
  [[noreturn]] void throw_unusable() const;
  [[noreturn]] void fail(int error_number);
  std::string failure_message(const char* action) const;
  void drain_buffer();
  int write_buffer_and(const char* data, std::size_t size) noexcept;
  int write_vector(struct ::iovec* iov, int count) noexcept;
  int finish_close() noexcept;
  void release() noexcept;
  void free_buffer() noexcept;
  void discard() noexcept;

  detail::buffer_state state_;  // first: the hot path and the C API use it
  char* buffer_;                // start of the buffer (or a shared empty spot)
  char* buffer_end_;
  int fd_ = -1;
  bool owns_fd_ = false;
  bool line_buffered_ = false;
  bool closing_failed_ = false;   // the sticky error came from close()
  int error_ = 0;                 // sticky errno; 0 while all is well
  std::uint64_t bytes_drained_ = 0;  // accepted bytes no longer in the buffer
  std::uint64_t bytes_written_ = 0;
  std::uint64_t write_calls_ = 0;
  std::uint64_t flushes_ = 0;
  std::string path_;
};

/// A copy of a writer's buffer cursor in local variables, for tight loops.
///
/// file::put() must reload the buffer pointer after every byte, because a
/// `char` store may alias the writer itself. A cursor is a local object whose
/// address never escapes, so the compiler keeps its pointers in registers:
/// `put()` in a loop compiles to a compare and a store, as fast as a
/// hand-written buffer. Use it for byte-at-a-time loops; use file::put() and
/// file::write() everywhere else.
///
/// While a cursor is alive, write only through it: it hands the position back
/// to the writer in its destructor (or in commit()).
class cursor {
 public:
  explicit cursor(file& f) noexcept : file_(&f), pos_(f.state_.pos), limit_(f.state_.limit) {}
  ~cursor() { commit(); }
  cursor(const cursor&) = delete;
  cursor& operator=(const cursor&) = delete;

  FASTOUT_ALWAYS_INLINE void put(char c) {
    if (FASTOUT_LIKELY(pos_ != limit_)) {
      *pos_++ = c;
      return;
    }
    sync_around([&] { file_->put_slow(c); });
  }
  FASTOUT_ALWAYS_INLINE void write(const void* data, std::size_t size) {
    if (FASTOUT_LIKELY(size - 1 < static_cast<std::size_t>(limit_ - pos_))) {  // as file::write
      std::memcpy(pos_, data, size);
      pos_ += size;
      return;
    }
    sync_around([&] { file_->write_slow(static_cast<const char*>(data), size); });
  }
  FASTOUT_ALWAYS_INLINE void write(std::string_view s) { write(s.data(), s.size()); }
  void flush() {
    sync_around([&] { file_->flush(); });
  }

  /// Hands the position back to the writer; the cursor stays usable.
  void commit() noexcept {
    if (pos_ != nullptr) file_->state_.pos = pos_;
  }

 private:
  template <typename F>
  FASTOUT_ALWAYS_INLINE void sync_around(F&& out_of_line_call) {
    commit();  // not a plain store: after a throw pos_ is null
    // If the call throws, the writer's own position is the truth: a null
    // cursor neither writes it back nor stores, and the next call goes
    // out of line again to meet the sticky error.
    pos_ = limit_ = nullptr;
    out_of_line_call();
    pos_ = file_->state_.pos;
    limit_ = file_->state_.limit;
  }

  file* file_;
  char* pos_;
  char* limit_;
};

inline cursor file::make_cursor() noexcept { return cursor(*this); }

namespace detail {
inline void apply_param(file_options& o, buffer_size_param p) { o.buffer_size = p.value; }
inline void apply_param(file_options& o, permissions_param p) { o.permissions = p.value; }
// When parameters disagree, the last one wins: an open_mode after flags
// replaces them.
inline void apply_param(file_options& o, open_mode m) {
  o.mode = m;
  o.flags = -1;
}
inline void apply_param(file_options& o, buffering b) { o.buffer_mode = b; }
// Integers and unscoped enums: a single flag such as file::APPEND has the type
// of file's unnamed enum, and must work as it does in {fmt}.
template <typename T, typename = std::enable_if_t<std::is_integral<T>::value ||
                                                  (std::is_enum<T>::value &&
                                                   std::is_convertible<T, int>::value)>>
void apply_param(file_options& o, T flags) {
  o.flags = static_cast<int>(flags);
}
}  // namespace detail

/// Opens a writer, {fmt} style: `output_file(path, fastout::buffer_size = n)`.
/// Parameters in any order: buffer_size = n, permissions = bits, an open_mode,
/// a buffering, or {fmt}-style flags (file::WRONLY | file::CREATE | file::APPEND).
template <typename... Params>
file output_file(detail::cstring_view path, Params... params) {
  file_options options;
  (detail::apply_param(options, params), ...);
  return file(path, options);
}

/// A writer to standard output (fd 1, not owned), named "<stdout>". As with
/// stdio, it is line-buffered on a terminal and fully buffered otherwise.
FASTOUT_API file stdout_file(const file_options& options = {});
/// A writer to standard error (fd 2, not owned), named "<stderr>".
/// Unbuffered unless options say otherwise, as stdio's stderr.
FASTOUT_API file stderr_file();
FASTOUT_API file stderr_file(const file_options& options);

}  // namespace fastout

// Formatting (print, println, <<) is a feature of its own; its definitions
// live in format.h, which is always available through this header.
#include <fastout/format.h>

#endif  // FASTOUT_FILE_H_
