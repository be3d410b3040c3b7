// SPDX-License-Identifier: MIT
// fastout::file, the writer: a fast, safe, buffered writer to one file
// descriptor, for one thread. Every other fastout feature builds on it.
//
// Its hot path -- put() and write() while the text fits -- is one pointer
// comparison and a copy, inline (detail/hot_path.h, shared with the C API);
// everything else (opening, flushing, errors, line buffering, closing) is
// out of line in src/writer/file.cpp. Formatting is <fastout/print.h>, the cursor
// <fastout/cursor.h>, the open options <fastout/options.h>, the counters and
// the error handler <fastout/errors.h> (included here); <fastout/fastout.h>
// brings them all.
#ifndef FASTOUT_FILE_H_
#define FASTOUT_FILE_H_

// One clear error before C++17, instead of pages of them: the rest of the
// header is skipped.
#if __cplusplus < 201703L
#  error "fastout's C++ API needs C++17 or later: compile with -std=c++17 (or newer)"
#else

#  include <cstddef>
#  include <cstdint>
#  include <string>
#  include <string_view>
#  include <system_error>
#  include <type_traits>
#  include <utility>

#  include <fastout/config.h>
#  include <fastout/detail/fmt_compat.h>
#  include <fastout/detail/hot_path.h>
#  include <fastout/detail/stand_ins.h>
#  include <fastout/detail/writer.h>
#  include <fastout/errors.h>
#  include <fastout/options.h>

namespace fastout {

/// A piece of text larger than the whole buffer -- a print() or a printf
/// that outgrows it -- goes to the file in chunks of at least this size. A
/// writer whose buffer is smaller gets a streaming area of this size the
/// first time a piece outgrows its buffer.
inline constexpr std::size_t streaming_chunk_size = 64 * 1024;

class file;

namespace detail {

// Wide text in UTF-8: UTF-16 where wchar_t has 16 bits (Windows), UTF-32
// where it has 32. Every unit is kept: a surrogate without its pair (which
// a Windows file name may hold) becomes its own 3-byte form (WTF-8), which
// the Windows platform turns back into the same unit, so no name is lost.
inline std::string utf8_of_wide(const wchar_t* text) {
  std::string out;
  if (text == nullptr) return out;
  for (; *text != 0; ++text) {
    auto code = static_cast<std::uint32_t>(*text);
    if (sizeof(wchar_t) == 2) {
      code &= 0xFFFF;
      const auto next = static_cast<std::uint32_t>(text[1]) & 0xFFFF;
      if (code >= 0xD800 && code <= 0xDBFF && next >= 0xDC00 && next <= 0xDFFF) {
        code = 0x10000 + ((code - 0xD800) << 10) + (next - 0xDC00);
        ++text;
      }
    }
    if (code > 0x10FFFF) code = 0xFFFD;
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }
  return out;
}

// A path as the API takes it: a NUL-terminated string (const char*,
// std::string, anything with c_str() such as std::filesystem::path) in
// UTF-8, or anything whose c_str() is wide (std::filesystem::path on
// Windows, std::wstring), held here in UTF-8 for the call.
class cstring_view {
 public:
  cstring_view(const char* s) noexcept : str_(s) {}
  template <typename S,
            typename = decltype(static_cast<const char*>(std::declval<const S&>().c_str())),
            int = 0>
  cstring_view(const S& s) noexcept : str_(s.c_str()) {}
  template <typename S,
            typename = decltype(static_cast<const wchar_t*>(std::declval<const S&>().c_str())),
            long = 0>
  cstring_view(const S& s) : utf8_(utf8_of_wide(s.c_str())), owned_(true) {
    str_ = utf8_.c_str();
  }
  cstring_view(const cstring_view& other)
      : str_(other.str_), utf8_(other.utf8_), owned_(other.owned_) {
    if (owned_) str_ = utf8_.c_str();
  }
  cstring_view& operator=(const cstring_view&) = delete;
  const char* c_str() const noexcept { return str_; }

 private:
  const char* str_;
  std::string utf8_;
  bool owned_ = false;
};

}  // namespace detail

/// A buffered writer to one file descriptor, for one thread at a time.
///
/// Errors are reported as std::system_error carrying errno and the path, at the
/// call that met them. They are sticky: every later put(), write() and print()
/// throws again (and flush() too, until the writer is closed), and
/// stats().bytes_written says exactly how much reached the file. close() is
/// the checked way out; the destructor flushes, never throws, and reports what
/// it could not write through the error handler (see set_error_handler()).
/// A writer opened with write_errors::report (the standard streams' default)
/// throws no write error at all: see write_errors.
namespace detail {
// The writer behind a file: its internal interface (detail/writer.h), for
// fastout's own features; and the file a writer is (every writer is one).
writer& writer_of(file& f) noexcept;
const writer& writer_of(const file& f) noexcept;
file& file_of(writer& w) noexcept;
}  // namespace detail

class FASTOUT_API file : private detail::writer {
 public:
  /// {fmt}-compatible open flags, for `output_file(path, file::WRONLY | ...)`.
  /// As in {fmt} they are passed to open() as they are: without CREATE the
  /// file must exist, and CREATE without TRUNC or APPEND overwrites it from
  /// the start. Unlike {fmt}, write access is implied, so file::APPEND alone
  /// appends instead of opening read-only.
#  if defined(_WIN32)
  // {fmt}'s are the C runtime's _O_* values on Windows.
  enum {RDONLY = 0,   WRONLY = 1,    RDWR = 2,    CREATE = 0x100,
        EXCL = 0x400, TRUNC = 0x200, APPEND = 0x8};
#  else
  enum {
    RDONLY = 0,
    WRONLY = 01,
    RDWR = 02,
    CREATE = 0100,
    EXCL = 0200,
    TRUNC = 01000,
    APPEND = 02000
  };
#  endif

  /// A closed writer; every write to it throws.
  file() noexcept = default;

  /// Opens `path` for writing (always O_CLOEXEC).
  /// Throws std::system_error naming the path and the cause if it cannot be
  /// opened (missing directory, a directory, no permission, exists with
  /// create_exclusive, ...) or if options.buffer_size cannot be allocated.
  /// With open_mode::replace it creates the new file beside the target and
  /// also refuses a target that is not a regular file (EISDIR for a
  /// directory, EINVAL for a device, FIFO or socket), a chain of more than
  /// 40 links (ELOOP), and {fmt}-style flags (EINVAL).
  explicit file(detail::cstring_view path, const file_options& options = {});

  /// Takes ownership of `fd`: close() closes it. `name` is used in errors
  /// (default "<fd N>"). Throws std::system_error(EBADF) if fd is negative,
  /// and EINVAL for options that need a path (open_mode::replace,
  /// sync_directory); the descriptor is closed then too.
  static file adopt(int fd, const file_options& options = {}, std::string name = {});
  /// Writes to `fd` without owning it: close() flushes but leaves it open.
  static file borrow(int fd, const file_options& options = {}, std::string name = {});

  /// Flushes and closes; what could not be written goes to the error handler.
  /// A writer opened with open_mode::replace that was not closed or
  /// committed discards its new content instead, leaves the target as it
  /// was, and tells the error handler (not_replaced, ECANCELED).
  ~file() = default;
  /// A moved-from writer is closed, with zero counters and no error; a write
  /// to it throws EBADF, saying that it was moved from.
  file(file&& other) noexcept = default;
  /// Closes this writer first (reporting as the destructor does).
  file& operator=(file&& other) noexcept = default;
  file(const file&) = delete;
  file& operator=(const file&) = delete;
  void swap(file& other) noexcept { writer::swap(other); }

  /// Writes one byte. Inline: a comparison and a store while it fits.
  FASTOUT_ALWAYS_INLINE void put(char c) {
    if (FASTOUT_LIKELY(fastout_buffer_put(this, c))) return;
    put_slow(c);
  }

  /// Writes `size` bytes. Inline: a comparison and a copy while they fit.
  /// Data at least as large as the buffer goes to the file in one writev()
  /// together with what is buffered, without being copied.
  FASTOUT_ALWAYS_INLINE void write(const void* data, std::size_t size) {
    if (FASTOUT_LIKELY(fastout_buffer_write(this, data, size))) return;
    write_slow(static_cast<const char*>(data), size);
  }
  FASTOUT_ALWAYS_INLINE void write(std::string_view s) { write(s.data(), s.size()); }

  // Formatting, as fmt::ostream's -- print(), println(), vprint(), << and
  // the conversion to fmt::writer -- is documented and defined in
  // <fastout/print.h>: a program that calls these without it stops here at
  // compile time (detail::printing, in detail/stand_ins.h).
  template <typename... T>
  void print(fmt::format_string<T...> format, T&&... args) {
    detail::printing<detail::print_h, T...>::template runtime<false>(*this, format,
                                                                     std::forward<T>(args)...);
  }
  template <typename S, typename... T,
            std::enable_if_t<detail::is_compiled_format_string<S>::value, int> = 0>
  void print(const S& format, T&&... args) {
    detail::printing<detail::print_h, T...>::template compiled<false>(*this, format,
                                                                      std::forward<T>(args)...);
  }
  template <typename... T>
  void println(fmt::format_string<T...> format, T&&... args) {
    detail::printing<detail::print_h, T...>::template runtime<true>(*this, format,
                                                                    std::forward<T>(args)...);
  }
  template <typename S, typename... T,
            std::enable_if_t<detail::is_compiled_format_string<S>::value, int> = 0>
  void println(const S& format, T&&... args) {
    detail::printing<detail::print_h, T...>::template compiled<true>(*this, format,
                                                                     std::forward<T>(args)...);
  }
  void vprint(fmt::string_view format, fmt::format_args args);
  template <typename T>
  file& operator<<(const T& value) {
    detail::printing<detail::print_h, T>::shift(*this, value);
    return *this;
  }

#  ifdef FASTOUT_FMT_HAS_WRITER
  operator fmt::writer() { return as_fmt_writer(); }
#  endif

  /// Sends everything buffered to the file. Throws on error (sticky; with
  /// write_errors::report it does not throw, and error() says). On a closed
  /// writer it does nothing, as fmt::ostream::flush(), even after an error:
  /// the error was thrown by the call that met it, or by close().
  using writer::flush;
  /// Flushes, then closes the descriptor if this writer owns it. Idempotent:
  /// closing a closed writer does nothing. Throws std::system_error if
  /// anything accepted could not be written or the close failed; the
  /// descriptor is released either way. With sync, sync_directory or
  /// preallocate it also syncs, releases unused space and syncs the
  /// directory, and throws if any of that fails.
  ///
  /// With open_mode::replace, close() commits: it flushes, syncs if asked,
  /// gives the new file its final permissions (the target's, or
  /// file_options::permissions masked by the umask for a new file) and owner,
  /// puts it in place of the target, and syncs the directory if asked. If
  /// anything before the new file is in place fails, the new file is
  /// removed, the target is left as it was, and the exception says so; if
  /// syncing the directory fails afterwards, the new content is in place
  /// and the exception says that it may not survive a power loss.
  ///
  /// With write_errors::report it throws none of these: what it could not
  /// do goes to the error handler, as from the destructor, and error()
  /// keeps the cause.
  using writer::close;
  /// The same as close(), under the name QSaveFile users know: with
  /// open_mode::replace, puts the new content in place of the target.
  void commit() { close(); }
  /// open_mode::replace: gives up the new content. The new file is removed,
  /// the target is left as it was, and the writer is closed, without a
  /// report to the error handler. Throws std::system_error if the new file
  /// cannot be removed (the message names it), and EINVAL on a writer not
  /// opened with open_mode::replace, whose bytes are already in its file.
  /// Does nothing on a closed writer.
  using writer::cancel;
  /// Flushes, then waits until the file's data is on disk (fdatasync; fsync
  /// in replace mode). Throws std::system_error on failure (with
  /// write_errors::report, error() holds it instead); a failed sync is
  /// final, so the error is sticky, as a write error is. For a log that
  /// must be durable at points of the program's choosing.
  using writer::sync;
  /// A fast local cursor for tight loops: see <fastout/cursor.h>.
  cursor make_cursor();

  using writer::is_open;
  /// The descriptor written to, or -1 once closed. Asking for it keeps it
  /// open from then on: a writer whose descriptor the program has is never
  /// released beyond the descriptor limit (file_options::
  /// keep_descriptor_open). If it had been released and its file cannot be
  /// reopened, -1, and the next call reports why.
  using writer::descriptor;
  /// The path given at open, or the name of an adopted/borrowed descriptor.
  using writer::path;
  /// The buffer's capacity, fixed at open (0 for an unbuffered writer).
  using writer::buffer_capacity;
  /// Bytes accepted that have not been sent to the file yet. Text a live
  /// cursor has put counts once the cursor commits.
  using writer::bytes_pending;
  using writer::line_buffered;
  /// True if writes go out with RWF_DONTCACHE (page_cache::drop): asked for,
  /// and not refused by the system or filesystem at the writes made so far.
  using writer::drops_page_cache;
  /// The sticky error, or an empty error_code while all is well.
  using writer::error;
  /// How this writer treats a write error: write_errors::throw_exception or
  /// write_errors::report (never automatic).
  using writer::error_mode;
  using writer::stats;
  /// How this writer compresses, settled at open (by_extension resolved to
  /// the path's format; the workers it was given); format is
  /// compression_format::none for a plain writer.
  using writer::compression;

 private:
  // The writer's internal interface (detail/writer.h), for fastout's own
  // features: this is the only way in.
  friend detail::writer& detail::writer_of(file& f) noexcept;
  friend const detail::writer& detail::writer_of(const file& f) noexcept;
  friend file& detail::file_of(detail::writer& w) noexcept;

  // Opening assembles the writer's route out (src/open/open.cpp).
  struct fd_tag {};
  file(fd_tag, int fd, bool owns_fd, const file_options& options, std::string name);
};

namespace detail {
inline writer& writer_of(file& f) noexcept { return f; }
inline const writer& writer_of(const file& f) noexcept { return f; }
inline file& file_of(writer& w) noexcept { return static_cast<file&>(w); }
}  // namespace detail

inline void swap(file& a, file& b) noexcept { a.swap(b); }

/// {fmt}'s name for its writer: code written for fmt::ostream compiles
/// against fastout::ostream.
using ostream = file;

namespace detail {
// fmt::buffer_size = n (from code half-way from {fmt}, which includes
// <fmt/os.h>) as fastout's; every other parameter as it is.
template <typename P>
constexpr decltype(auto) as_option(const P& p) noexcept {
  if constexpr (std::is_same<P, fmt::detail::buffer_size>::value) {
    return buffer_size_param{p.value};
  } else {
    return (p);
  }
}
}  // namespace detail

/// Opens a writer, {fmt} style: `output_file(path, fastout::buffer_size = n)`.
/// Parameters in any order: buffer_size = n (fastout's or {fmt}'s),
/// permissions = bits, an open_mode, a buffering, a write_errors, sync = b,
/// sync_directory = b, preallocate = bytes, a page_cache, a symlinks,
/// compression = zstd{level} / gzip{level} / by_extension{} and
/// compression_workers = n, or {fmt}-style flags (file::WRONLY |
/// file::CREATE | file::APPEND). When an open_mode and flags disagree, the
/// last one wins, except that open_mode::replace and flags are refused
/// together in either order.
template <typename... Params>
file output_file(detail::cstring_view path, const Params&... params) {
  file_options options;
  detail::apply_options(options, detail::as_option(params)...);
  return file(path, options);
}

/// A new writer to standard output (fd 1, not owned), named "<stdout>". As
/// with stdio, it is line-buffered on a terminal and fully buffered
/// otherwise. Each call makes a writer with a buffer of its own, which
/// nothing flushes at exit; for the one process-wide writer that is, see
/// standard_output() in <fastout/standard_streams.h>.
FASTOUT_API file stdout_file(const file_options& options = {});
/// A writer to standard error (fd 2, not owned), named "<stderr>".
/// Unbuffered unless options say otherwise, as stdio's stderr.
FASTOUT_API file stderr_file();
FASTOUT_API file stderr_file(const file_options& options);

}  // namespace fastout

#endif  // C++17
#endif  // FASTOUT_FILE_H_
