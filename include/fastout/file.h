// SPDX-License-Identifier: MIT
// fastout::file, the writer: a fast, safe, buffered writer to one file
// descriptor, for one thread. Every other fastout feature builds on it.
//
// Its hot path -- put() and write() while the text fits -- is one pointer
// comparison and a copy, inline (detail/hot_path.h, shared with the C API);
// everything else (opening, flushing, errors, line buffering, closing) is
// out of line in src/writer/file.cpp. Formatting is <fastout/print.h>, the cursor
// <fastout/cursor.h>, the open options <fastout/options.h>;
// <fastout/fastout.h> brings them all.
#ifndef FASTOUT_FILE_H_
#define FASTOUT_FILE_H_

// One clear error before C++17, instead of pages of them: the rest of the
// header is skipped.
#if __cplusplus < 201703L
#  error "fastout's C++ API needs C++17 or later: compile with -std=c++17 (or newer)"
#else

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

#include <fastout/config.h>
#include <fastout/detail/fmt_compat.h>
#include <fastout/detail/hot_path.h>
#include <fastout/detail/stand_ins.h>
#include <fastout/options.h>

struct iovec;

namespace fastout {

/// A piece of text larger than the whole buffer -- a print() or a printf
/// that outgrows it -- goes to the file in chunks of at least this size. A
/// writer whose buffer is smaller gets a streaming area of this size the
/// first time a piece outgrows its buffer.
inline constexpr std::size_t streaming_chunk_size = 64 * 1024;

class file;

/// Counters a writer keeps; reading them costs nothing on the hot path.
///
/// One rule on every path: a call's bytes are accepted when it hands them to
/// the writer, and stay accepted if writing them then fails. put() and
/// write() hand over all their bytes, even when they throw. print() (and
/// <<) hands over its text once the text is complete; text larger than the
/// whole buffer is handed over chunk by chunk as it streams to the file. So
/// a print that fails while making room for its text counts none of it, and
/// one that fails while streaming counts the chunks sent, the failing one
/// included. A format error hands over only the chunks of its piece that had
/// already streamed to the file: nothing of a piece that fits in the buffer,
/// and never the part that had not had to go out yet.
///
/// After a write error, with write_errors::throw_exception a later call
/// throws at once and is refused: none of its bytes are accepted. With
/// write_errors::report no call throws or stops early: every call, the one
/// that met the error included, hands over all its text, which is dropped.
/// Either way bytes_accepted - bytes_delivered is what a failed writer lost:
/// with write_errors::report, every byte the program wrote that did not
/// reach the file.
///
/// A writer that compresses counts what the program wrote (uncompressed) in
/// bytes_accepted and bytes_delivered, and what reached the file
/// (compressed) in bytes_written; a plain writer's bytes_delivered is its
/// bytes_written.
struct file_stats {
  /// Bytes handed to the writer, including those of a call that threw.
  std::uint64_t bytes_accepted = 0;
  /// Bytes the kernel reported as written: exact even after an error. For a
  /// writer that compresses, compressed bytes.
  std::uint64_t bytes_written = 0;
  /// write()/writev() system calls made, including ones interrupted by signals.
  std::uint64_t write_calls = 0;
  /// Times buffered data was sent to the file (when full, on flush(), on close()).
  std::uint64_t flushes = 0;
  /// Of bytes_accepted, those that reached the file: bytes_written for a
  /// plain writer; for one that compresses, the bytes whose compressed form
  /// reached the file whole (a reader decodes them), which grows a buffer at
  /// a time and is all of them after flush() or close().
  std::uint64_t bytes_delivered = 0;
};

/// What a writer that is destroyed without close() could not do.
struct error_report {
  const char* path;          ///< the path, or a name such as "<stdout>"
  std::error_code error;     ///< the cause
  std::uint64_t bytes_lost;  ///< bytes accepted that never reached the file
  bool close_failed;         ///< the cause came from close() itself
  /// The cause came from syncing the file or its directory: what was
  /// written reached the kernel but may not survive a power loss.
  bool sync_failed = false;
  /// open_mode::replace: the target was left as it was and everything the
  /// writer accepted was discarded (bytes_lost counts all of it). The error
  /// is ECANCELED when the writer was simply destroyed without close() or
  /// commit().
  bool not_replaced = false;
};

/// Called when a writer is destroyed (or move-assigned over) without close()
/// and could not write everything it accepted, could not sync or close the
/// file, or (open_mode::replace) discarded its new content. It must not
/// throw. It runs on the thread that destroyed the writer.
using error_handler = void (*)(const error_report& report) noexcept;

/// Replaces the process-wide error handler and returns the previous one.
/// nullptr restores the default, which prints one line to stderr naming the
/// path, the cause and the number of bytes lost. Thread-safe.
FASTOUT_API error_handler set_error_handler(error_handler handler) noexcept;

/// The default error handler, so a replacement can chain to it.
FASTOUT_API void default_error_handler(const error_report& report) noexcept;

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
  template <typename S, typename = decltype(static_cast<const char*>(
                            std::declval<const S&>().c_str())), int = 0>
  cstring_view(const S& s) noexcept : str_(s.c_str()) {}
  template <typename S, typename = decltype(static_cast<const wchar_t*>(
                            std::declval<const S&>().c_str())), long = 0>
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

using buffer_state = fastout_buffer_state;

// What close() does beyond flushing and closing the descriptor (sync,
// release preallocated space, put a replacement in place): the writer's
// plug-in point, src/stages/close_steps_internal.h.
class close_steps;

// Where a piece of text written in place is (see piece).
enum class piece_place : unsigned char {
  // In the writer's buffer after the text before it, and kept whole: when
  // it needs more room, it moves to the buffer's front if it fits there.
  buffer,
  // In the writer's buffer, sent with everything before it whenever it
  // needs more room: a piece larger than the buffer, or a borrower's text.
  buffer_streaming,
  // In the caller's spare area (the writer has no buffer), kept whole:
  // when it needs more room, it moves to the writer's streaming area.
  spare,
  // In a spare or streaming area outside the buffer, sent whenever it
  // needs more room.
  side_streaming,
};

// A piece of text that a producer writes straight into a writer: a print's,
// a printf's, a borrower's. The producer keeps its own position in [text,
// end), in a register; the writer moves the piece when it grows
// (file::grow_piece()) and takes its text when it ends (file::end_piece(),
// file::take_back()). Nothing else of the writer's is touched meanwhile.
struct piece {
  char* text;        // where its text that the writer does not have yet begins
  char* end;         // the end of the room it may fill
  std::size_t sent;  // bytes of it sent to the file already
  piece_place place;
};

// Something that writes into a writer's free space on its own, between the
// writer's own calls: fmt::writer's buffer, a stream buffer. It holds a
// piece from file::lend(). While it does, the writer's hot path goes out of
// line, where the writer first asks for the piece back (a cursor cannot be
// asked: see file::lend_to_cursor()).
class buffer_borrower {
 public:
  // Hands back the piece with writer.take_back(), and forgets it: the
  // borrower lends again before it writes. Throws what that throws.
  virtual void give_back(file& writer) = 0;
  // Bytes written into the piece and not yet given back.
  virtual std::size_t bytes_held() const noexcept = 0;

 protected:
  ~buffer_borrower() = default;
};

#ifdef FASTOUT_FMT_HAS_WRITER
// The buffer behind the fmt::writer a file converts to ({fmt} 11.1 and
// later): fmt writes into a piece it borrows, in the writer's buffer, or in
// spare_ for an unbuffered writer, whose text goes out when spare_ fills or
// when it is given back.
class FASTOUT_API writer_buffer final : public fmt_buffer<writer_buffer>, public buffer_borrower {
 public:
  explicit writer_buffer(file& f) noexcept : fmt_buffer(nullptr, 0), file_(&f) {}
  writer_buffer(const writer_buffer&) = delete;
  writer_buffer& operator=(const writer_buffer&) = delete;

  void on_grow(std::size_t capacity);
  void give_back(file& writer) override;
  std::size_t bytes_held() const noexcept override { return size(); }

 private:
  file* file_;
  piece piece_ = {nullptr, nullptr, 0, piece_place::buffer};
  char spare_[256];
};
#endif

// Everything a writer holds but its hot pointers (pos, limit) and
// fmt::writer's buffer: one aggregate, so that file::swap() and the move
// operations move all of it and a member added here cannot be forgotten
// there (file_state_test checks that file holds nothing else). The groups
// are only comments; the names keep file's member style.
struct file_state {
  // The buffer.
  char* buffer_ = nullptr;  // start of the buffer (or a shared empty spot)
  char* buffer_end_ = nullptr;
  char* streaming_area_ = nullptr;  // for pieces larger than a small buffer
  // Who the free space is lent to.
  buffer_borrower* borrower_ = nullptr;
  bool lent_to_cursor_ = false;  // ... or lent to a cursor, which cannot give it back
  // The descriptor and what closing it takes.
  bool owns_fd_ = false;
  int fd_ = -1;
  int write_flags_ = 0;  // pwritev2 flags (RWF_DONTCACHE), 0 for write/writev
  // What close() does beyond flushing and closing the descriptor (sync,
  // preallocation, replacement: src/stages/replace.cpp). Null for a plain writer.
  close_steps* close_steps_ = nullptr;
  // A writer that compresses: the same object as close_steps_ (which owns
  // it), a file::compression_room (src/stages/compressed_file.cpp). Null for a
  // plain writer.
  close_steps* compression_ = nullptr;
  std::string path_;
  // Modes and errors.
  bool line_buffered_ = false;
  bool reports_errors_ = false;  // write_errors::report: nothing thrown for a write error
  bool closing_failed_ = false;  // the sticky error came from close()
  bool sync_failed_ = false;     // ... or from sync()
  bool moved_from_ = false;      // closed by a move, for the message of a later call
  int error_ = 0;                // sticky errno; 0 while all is well
  int last_call_error_ = 0;      // the C API's fastout_last_error()
  // Counters (file_stats).
  std::uint64_t bytes_drained_ = 0;  // accepted bytes no longer in the buffer
  std::uint64_t bytes_written_ = 0;
  std::uint64_t write_calls_ = 0;
  std::uint64_t flushes_ = 0;
};

// print(), println() and << are defined in <fastout/print.h>, which
// specializes this for print_h. A program that calls them without that
// header stops here, at compile time, instead of at the linker.
struct print_h;
template <typename Tag, typename... T>
struct printing {
  static_assert(!std::is_same<Tag, Tag>::value,
                "fastout::file's print(), println() and << are in <fastout/print.h>: include it "
                "(or <fastout/fastout.h>, which has everything)");
  template <bool Newline, typename... A>
  static void runtime(A&&...) noexcept {}
  template <bool Newline, typename... A>
  static void compiled(A&&...) noexcept {}
  template <typename... A>
  static void shift(A&&...) noexcept {}
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
class FASTOUT_API file : private fastout_buffer_state, private detail::file_state {
 public:
  /// {fmt}-compatible open flags, for `output_file(path, file::WRONLY | ...)`.
  /// As in {fmt} they are passed to open() as they are: without CREATE the
  /// file must exist, and CREATE without TRUNC or APPEND overwrites it from
  /// the start. Unlike {fmt}, write access is implied, so file::APPEND alone
  /// appends instead of opening read-only.
#if defined(_WIN32)
  // {fmt}'s are the C runtime's _O_* values on Windows.
  enum { RDONLY = 0, WRONLY = 1, RDWR = 2, CREATE = 0x100, EXCL = 0x400, TRUNC = 0x200, APPEND = 0x8 };
#else
  enum { RDONLY = 0, WRONLY = 01, RDWR = 02, CREATE = 0100, EXCL = 0200, TRUNC = 01000, APPEND = 02000 };
#endif

  /// A closed writer; every write to it throws.
  file() noexcept;

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
  ~file();
  /// A moved-from writer is closed, with zero counters and no error; a write
  /// to it throws EBADF, saying that it was moved from.
  file(file&& other) noexcept;
  /// Closes this writer first (reporting as the destructor does).
  file& operator=(file&& other) noexcept;
  file(const file&) = delete;
  file& operator=(const file&) = delete;
  void swap(file& other) noexcept;

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
  // compile time (detail::printing).
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

#ifdef FASTOUT_FMT_HAS_WRITER
  operator fmt::writer();
#endif

  /// Sends everything buffered to the file. Throws on error (sticky; with
  /// write_errors::report it does not throw, and error() says). On a closed
  /// writer it does nothing, as fmt::ostream::flush(), even after an error:
  /// the error was thrown by the call that met it, or by close().
  void flush();
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
  void close();
  /// The same as close(), under the name QSaveFile users know: with
  /// open_mode::replace, puts the new content in place of the target.
  void commit() { close(); }
  /// open_mode::replace: gives up the new content. The new file is removed,
  /// the target is left as it was, and the writer is closed, without a
  /// report to the error handler. Throws std::system_error if the new file
  /// cannot be removed (the message names it), and EINVAL on a writer not
  /// opened with open_mode::replace, whose bytes are already in its file.
  /// Does nothing on a closed writer.
  void cancel();
  /// Flushes, then waits until the file's data is on disk (fdatasync; fsync
  /// in replace mode). Throws std::system_error on failure (with
  /// write_errors::report, error() holds it instead); a failed sync is
  /// final, so the error is sticky, as a write error is. For a log that
  /// must be durable at points of the program's choosing.
  void sync();
  /// A fast local cursor for tight loops: see <fastout/cursor.h>.
  cursor make_cursor();

  bool is_open() const noexcept { return fd_ >= 0; }
  int descriptor() const noexcept { return fd_; }
  /// The path given at open, or the name of an adopted/borrowed descriptor.
  const std::string& path() const noexcept { return path_; }
  /// The buffer's capacity, fixed at open (0 for an unbuffered writer).
  std::size_t buffer_capacity() const noexcept {
    return static_cast<std::size_t>(buffer_end_ - buffer_);
  }
  /// Bytes accepted that have not been sent to the file yet. Text a live
  /// cursor has put counts once the cursor commits.
  std::size_t bytes_pending() const noexcept;
  bool line_buffered() const noexcept { return line_buffered_; }
  /// True if writes go out with RWF_DONTCACHE (page_cache::drop): asked for,
  /// and not refused by the kernel or filesystem at the writes made so far.
  bool drops_page_cache() const noexcept { return write_flags_ != 0; }
  /// The sticky error, or an empty error_code while all is well.
  std::error_code error() const noexcept;
  /// How this writer treats a write error: write_errors::throw_exception or
  /// write_errors::report (never automatic).
  write_errors error_mode() const noexcept {
    return reports_errors_ ? write_errors::report : write_errors::throw_exception;
  }
  file_stats stats() const noexcept;

  // ---------------------------------------------------------------------
  // The writer's internal interface, for fastout's own features that write
  // into its buffer (formatting, the cursor, the C API, stream adapters).
  // Not for users: it may change in any release. Everything here but the
  // accessors is out of line.

  /// The state the inline hot paths share, C's fastout_putc() included.
  detail::buffer_state& hot_state() noexcept { return *this; }
  /// The writer whose hot state this is.
  static file& from_hot_state(detail::buffer_state& state) noexcept {
    return static_cast<file&>(state);
  }

  /// The buffer.
  char* buffer_begin() const noexcept { return buffer_; }
  char* buffer_end() const noexcept { return buffer_end_; }

  /// The room an inline producer may fill now, [pos, limit): empty whenever
  /// the call must go out of line. What it wrote, up to `end`, becomes the
  /// writer's with commit_room(end).
  detail::buffer_state room() const noexcept { return {pos, limit}; }
  void commit_room(char* end) noexcept { pos = end; }

  /// Begins a piece of text written in place, out of line (print's and
  /// printf's): takes lent space back, throws std::system_error if the
  /// writer cannot take a call (closed, failed, lent to a cursor), and
  /// returns the piece: in the free space, emptied first if it is full, or
  /// in `spare` if the writer has no buffer.
  detail::piece begin_piece(char* spare, std::size_t spare_size);
  /// Makes room for `more` bytes after `at`, the end of the piece's text so
  /// far, and returns where they go; p.text and p.end say where the piece
  /// is now. A piece kept whole moves to the front of the buffer, after the
  /// text before it is sent, if it fits there with `more`; otherwise (or if
  /// `more` is larger than the buffer) it streams from then on. A streaming
  /// piece sends what it has: its room may then be smaller than `more`, but
  /// never empty. Throws std::system_error on a write error, after which a
  /// whole piece is dropped, uncounted, and a streaming one counts what it
  /// sent (file_stats).
  char* grow_piece(detail::piece& p, char* at, std::size_t more);
  /// Ends a piece: its text up to `at` is the writer's, and a line-buffered
  /// writer sends its complete lines.
  void end_piece(detail::piece& p, char* at);

  /// Lends the free space to `borrower` as a streaming piece (in `spare` if
  /// the writer has no buffer; emptied first if it is full). Until
  /// take_back(), every call of the writer's own goes out of line, where the
  /// writer asks for the piece back. Takes back what another borrower holds,
  /// and throws std::system_error as begin_piece().
  detail::piece lend(detail::buffer_borrower& borrower, char* spare, std::size_t spare_size);
  /// Ends a loan: end_piece(), and the hot path opens again.
  void take_back(detail::piece& p, char* at);
  /// Lends the free space to a cursor, which cannot be asked for it back:
  /// until take_back_from_cursor(), every call of the writer's own throws
  /// std::system_error(EBUSY). Throws EBUSY if a cursor holds it already.
  detail::buffer_state lend_to_cursor();
  /// The writer carries on from `end`, where the cursor stopped.
  void take_back_from_cursor(char* end) noexcept;
  /// What every call of the writer's own does first: takes lent space back,
  /// and throws std::system_error if the writer is closed, has failed
  /// (write_errors::throw_exception), or is lent to a cursor (EBUSY).
  void take_back_and_check();
  /// close() for a caller that hands the failure on itself (the C API's
  /// fastout_close()): throws what close() met whatever the error mode, and
  /// never calls the error handler.
  void close_checked();
  /// How this writer compresses, settled at open (by_extension resolved to
  /// the path's format); format is compression_format::none for a plain
  /// writer.
  compression_options compression() const noexcept;

  /// The negative error code of the last C API call on this writer that
  /// failed, or 0 (fastout_last_error()); the C API sets it.
  int last_call_error() const noexcept { return last_call_error_; }
  void set_last_call_error(int code) noexcept { last_call_error_ = code; }

 private:
  struct fd_tag {};
  file(fd_tag, int fd, bool owns_fd, const file_options& options, std::string name);
  void allocate_buffer(std::size_t size);
  void finish_opening(const file_options& options);
  void choose_buffering(buffering mode);

  void put_slow(char c);
  void write_slow(const char* data, std::size_t size);
  void append(const char* data, std::size_t size);
  int append_fully_buffered(const char* data, std::size_t size) noexcept;
  FASTOUT_NOINLINE detail::piece begin_piece_slow(char* spare, std::size_t spare_size);
  void accept_text(const char* text_begin);
  char* send_piece(detail::piece& p, char* at);
  std::pair<char*, std::size_t> streaming_area() noexcept;
  void take_back_from_borrower();
  void reopen_hot_path() noexcept;
  [[noreturn]] void throw_unusable() const;
  [[noreturn]] void throw_lent_to_cursor() const;
  void fail_call(int error_number);
  void drop_text(std::size_t size) noexcept;
  void close_or_report(bool throw_error);
  std::string failure_message(const char* action) const;
  void flush_buffer();
  // The one route out of the buffer, and the one place that writes to the
  // descriptor (src/writer/file.cpp).
  int drain_buffer(const char* more, std::size_t more_size) noexcept;
  // Compressed output (src/stages/compressed_file.cpp): the route's other end for
  // a writer that compresses, whose buffers are the compression engine's,
  // and whose compressed bytes come back through write_to_file().
  struct compression_room;
  bool open_compression(const file_options& options);
  void add_close_steps(detail::close_steps* steps) noexcept;
  int drain_compressed(std::size_t pending, const char* more, std::size_t more_size) noexcept;
  void flush_compressed();
  int compression_failed(char* buffer) noexcept;
  void rebind_compression() noexcept;
  std::uint64_t compressed_bytes_delivered() const noexcept;
  std::string compression_failure_message(const char* action) const;
  compression_room& compressing() const noexcept;
  int write_to_file(struct ::iovec* iov, int count) noexcept;
  int flush_and_close(bool commit) noexcept;
  void free_buffer() noexcept;
  void close_and_report(bool commit) noexcept;
  std::string close_failure_message() const;

  // The state is in the two bases: pos and limit first (fastout_buffer_state,
  // for the hot path and the C API), then detail::file_state, which swap()
  // and the move operations move as one. fmt::writer's buffer stays with
  // its writer.
#ifdef FASTOUT_FMT_HAS_WRITER
  detail::writer_buffer writer_buffer_{*this};
#endif
};

inline void swap(file& a, file& b) noexcept { a.swap(b); }

/// {fmt}'s name for its writer: code written for fmt::ostream compiles
/// against fastout::ostream.
using ostream = file;

namespace detail {
template <typename P>
struct unsupported_output_file_parameter : std::false_type {};

// When parameters disagree, the last one wins: an open_mode after flags
// replaces them.
template <typename P>
void apply_param(file_options& o, const P& p) {
  if constexpr (std::is_same<P, buffer_size_param>::value) {
    o.buffer_size = p.value;
  } else if constexpr (std::is_same<P, fmt::detail::buffer_size>::value) {
    o.buffer_size = p.value;  // fmt::buffer_size = n, from half-migrated code
  } else if constexpr (std::is_same<P, permissions_param>::value) {
    o.permissions = p.value;
  } else if constexpr (std::is_same<P, open_mode>::value) {
    o.mode = p;
    // open_mode::replace never takes flags: kept, they are refused at open.
    if (p != open_mode::replace) o.flags = -1;
  } else if constexpr (std::is_same<P, buffering>::value) {
    o.buffer_mode = p;
  } else if constexpr (std::is_same<P, write_errors>::value) {
    o.errors = p;
  } else if constexpr (std::is_same<P, sync_param>::value) {
    o.sync = p.value;
  } else if constexpr (std::is_same<P, sync_directory_param>::value) {
    o.sync_directory = p.value;
  } else if constexpr (std::is_same<P, preallocate_param>::value) {
    o.preallocate = p.value;
  } else if constexpr (std::is_same<P, page_cache>::value) {
    o.cache = p;
  } else if constexpr (std::is_same<P, symlinks>::value) {
    o.symlink_mode = p;
  } else if constexpr (std::is_same<P, compression_options>::value ||
                       std::is_same<P, compression_choice_param>::value) {
    // A choice (zstd{...}) keeps the workers; compression_workers, if
    // given, is applied after every parameter.
    o.compression = p;
  } else if constexpr (std::is_same<P, compression_workers_param>::value) {
    o.compression.workers = p.value;
  } else if constexpr (std::is_integral<P>::value ||
                       (std::is_enum<P>::value && std::is_convertible<P, int>::value)) {
    // A single flag such as file::APPEND has the type of file's unnamed
    // enum, and must work as it does in {fmt}.
    o.flags = static_cast<int>(p);
  } else {
    static_assert(unsupported_output_file_parameter<P>::value,
                  "output_file() takes fastout::buffer_size = n (or fmt::buffer_size = n), "
                  "fastout::permissions = bits, a fastout::open_mode, a fastout::buffering, "
                  "a fastout::write_errors, "
                  "fastout::sync = b, fastout::sync_directory = b, fastout::preallocate = n, "
                  "a fastout::page_cache, a fastout::symlinks, "
                  "fastout::compression = zstd{...}/gzip{...}/by_extension{}, "
                  "fastout::compression_workers = n, "
                  "or {fmt}-style flags such as file::WRONLY | file::CREATE");
  }
}
}  // namespace detail

namespace detail {
template <typename P>
void apply_workers_param(compression_options& o, const P& p) {
  if constexpr (std::is_same<P, compression_workers_param>::value) o.workers = p.value;
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
  (detail::apply_param(options, params), ...);
  // compression_workers = n holds whatever the order: `compression = zstd{}`
  // after it must not reset the count to the default.
  (detail::apply_workers_param(options.compression, params), ...);
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
