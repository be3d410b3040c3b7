// SPDX-License-Identifier: MIT
// fastout: a fast, safe, buffered file writer for one thread.
//
// This is the core writer that every other fastout feature builds on, and
// the one header a user includes: it brings formatting (print, println, <<)
// and the cursor with it. Its hot path -- put(), write() and print() while
// the text fits -- is one pointer comparison and a copy, inline. Everything
// else (flushing, errors, line buffering) is out of line in src/file.cpp.
#ifndef FASTOUT_FILE_H_
#define FASTOUT_FILE_H_

// One clear error before C++17, instead of pages of them: the rest of the
// header is skipped.
#if __cplusplus < 201703L
#  error "fastout's C++ API needs C++17 or later: compile with -std=c++17 (or newer)"
#else

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

#include <fastout/config.h>
#include <fastout/detail/hot_path.h>
#include <fastout/format.h>

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

/// A formatted piece larger than the whole buffer goes to the file in chunks
/// of at least this size. A writer whose buffer is smaller gets a streaming
/// area of this size the first time one print() outgrows its buffer.
inline constexpr std::size_t streaming_chunk_size = 64 * 1024;

/// What happens to an existing file at the path when it is opened.
enum class open_mode {
  truncate,          ///< create or truncate: fopen's "w" (the default)
  append,            ///< create or append at the end: fopen's "a"
  create_exclusive,  ///< create; fail with EEXIST if it exists: fopen's "wx"
  /// Write a new file beside the target and put it in place of the target
  /// on close() (or commit()): the path shows the old content or the whole
  /// new content, never anything in between, whatever happens to the
  /// process. Destroyed without close() or commit(), or after an error, the
  /// writer leaves the target as it was. Only a regular file (or nothing)
  /// can be replaced. docs/safe-replace.md says what survives a crash and
  /// what survives a power loss, option by option.
  replace,
};

/// What open_mode::replace does when the path is a symbolic link.
enum class symlinks {
  /// Replace the file the link points to (through any chain of links) and
  /// keep the link, as Qt's QSaveFile does. A dangling link gets its file
  /// created. A link to anything but a regular file is refused.
  follow,
  /// Replace the link itself with the new file.
  replace_link,
};

/// What the page cache keeps of what a writer writes.
enum class page_cache {
  keep,  ///< as write(): the data stays cached until memory is needed
  /// Each write drops its pages from the cache once they are on disk
  /// (pwritev2 with RWF_DONTCACHE, Linux 6.14 and later): for large output
  /// that will not be read back soon, it saves the copy the cache would
  /// keep and makes a following sync faster. Where the kernel or the
  /// filesystem lacks it, the writer falls back to plain writes at its first
  /// write; drops_page_cache() tells which.
  drop,
};

/// When the buffer is written to the file, besides flush() and close().
enum class buffering {
  automatic,  ///< line-buffered on a terminal, fully buffered otherwise (stdio's rule)
  full,       ///< only when the buffer is full
  line,       ///< also after every call whose data holds a '\n'
};

/// What a write error (ENOSPC, EPIPE, EIO, a failed sync, ...) does to the
/// calls of a writer: file_options::errors.
enum class write_errors {
  /// `report` for the process-wide standard_output() and standard_error(),
  /// `throw_exception` for every other writer (the default).
  automatic,
  /// The call that meets the error throws std::system_error, and so does
  /// every later call (refused: none of its bytes are accepted), as
  /// fmt::ostream does.
  throw_exception,
  /// stdio's way, and coreutils' close_stdout(): no call throws a write
  /// error. The error is sticky and readable (error(), stats()); the call
  /// that met it and every later one are accepted and dropped, without a
  /// system call, and counted as lost; the error handler reports it once,
  /// with every byte lost, when the writer is closed or destroyed (for the
  /// standard streams, when the process exits, whose status it makes
  /// nonzero). Misuse still throws: a closed writer (EBADF), a live cursor
  /// (EBUSY), a format error.
  report,
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
  /// Whether a write error is thrown or reported (see write_errors).
  write_errors errors = write_errors::automatic;
  /// {fmt}-style open flags (file::CREATE | file::APPEND | ...), used exactly
  /// as given instead of `mode` when set; -1, the default, means `mode`.
  /// Write access is implied (file::WRONLY unless file::RDWR is given), and
  /// O_CLOEXEC is always added. O_SYNC and O_DSYNC are accepted as well.
  /// Refused together with open_mode::replace.
  int flags = -1;
  /// Before close() returns (before the new file is put in place, with
  /// open_mode::replace), wait until the file's data is on disk:
  /// fdatasync(), or fsync() in replace mode, where the new file's metadata
  /// matters too. A failed sync is final: the error is sticky and a
  /// replacement whose sync failed is never put in place.
  bool sync = false;
  /// After close() creates or replaces the file, fsync() the directory that
  /// holds it, so that its name survives a power loss too. With sync, that
  /// makes the file durable once close() returns.
  bool sync_directory = false;
  /// What the page cache keeps of the written data (page_cache::drop: for
  /// large output not read back soon, with sync the fast durable mode).
  page_cache cache = page_cache::keep;
  /// Bytes to reserve for the file at open (fallocate with
  /// FALLOC_FL_KEEP_SIZE), when the final size is known or estimated; what
  /// is not used is released at close. 0: none. Where the filesystem cannot
  /// preallocate, the writer writes without it.
  std::uint64_t preallocate = 0;
  /// What open_mode::replace does with a symbolic link at the path.
  symlinks symlink_mode = symlinks::follow;
};

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
/// Either way bytes_accepted - bytes_written is what a failed writer lost:
/// with write_errors::report, every byte the program wrote that did not
/// reach the file.
struct file_stats {
  /// Bytes handed to the writer, including those of a call that threw.
  std::uint64_t bytes_accepted = 0;
  /// Bytes the kernel reported as written: exact even after an error.
  std::uint64_t bytes_written = 0;
  /// write()/writev() system calls made, including ones interrupted by signals.
  std::uint64_t write_calls = 0;
  /// Times buffered data was sent to the file (when full, on flush(), on close()).
  std::uint64_t flushes = 0;
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

using buffer_state = fastout_buffer_state;

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
struct sync_param {
  bool value;
};
struct sync_key {
  constexpr sync_param operator=(bool on) const noexcept { return {on}; }
};
struct sync_directory_param {
  bool value;
};
struct sync_directory_key {
  constexpr sync_directory_param operator=(bool on) const noexcept { return {on}; }
};
struct preallocate_param {
  std::uint64_t value;
};
struct preallocate_key {
  constexpr preallocate_param operator=(std::uint64_t bytes) const noexcept { return {bytes}; }
};

// What close() does beyond closing the descriptor: sync, release
// preallocated space, put a replacement in place (src/replace_internal.h).
class close_plan;

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

}  // namespace detail

/// `fastout::buffer_size = n` as a parameter of output_file(), as in {fmt}.
inline constexpr detail::buffer_size_key buffer_size{};
/// `fastout::permissions = 0600` as a parameter of output_file().
inline constexpr detail::permissions_key permissions{};
/// `fastout::sync = true` as a parameter of output_file(): file_options::sync.
inline constexpr detail::sync_key sync{};
/// `fastout::sync_directory = true`: file_options::sync_directory.
inline constexpr detail::sync_directory_key sync_directory{};
/// `fastout::preallocate = bytes`: file_options::preallocate.
inline constexpr detail::preallocate_key preallocate{};

class cursor;

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
class FASTOUT_API file : private fastout_buffer_state {
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

  /// Formats with {fmt} straight into the buffer, as fmt::ostream::print,
  /// and formats every argument exactly once.
  ///
  /// When the format string is checked against the arguments is {fmt}'s
  /// rule: at compile time when compiled as C++20 or later, or in C++17 when
  /// it is wrapped in FMT_STRING ("{} {}" with one argument does not
  /// compile then); otherwise (a plain literal in C++17, fmt::runtime())
  /// only at run time, where a bad one throws fmt::format_error.
  ///
  /// Text that fits in the buffer is never split across a flush, and a
  /// format error at run time leaves none of it in the file. Text larger
  /// than the whole buffer streams to the file as {fmt} makes it, in chunks
  /// of at least streaming_chunk_size; a format error then leaves only the
  /// chunks that had already gone out (file_stats says what is counted).
  template <typename... T>
  void print(fmt::format_string<T...> format, T&&... args);
  /// The same for a compiled format, `print(FMT_COMPILE("{}\n"), x)`: the
  /// fastest way to format, which fmt::output_file cannot take.
  template <typename S, typename... T,
            std::enable_if_t<detail::is_compiled_format_string<S>::value, int> = 0>
  void print(const S& format, T&&... args);
  /// print() followed by '\n', written as one piece.
  template <typename... T>
  void println(fmt::format_string<T...> format, T&&... args);
  template <typename S, typename... T,
            std::enable_if_t<detail::is_compiled_format_string<S>::value, int> = 0>
  void println(const S& format, T&&... args);
  /// print() with type-erased arguments, as fmt::vprint.
  void vprint(fmt::string_view format, fmt::format_args args);

  /// Scalar output without a format string: the same text as fmt's "{}".
  /// Integers of every width, floating point (shortest round trip), bool,
  /// char, C strings, string views, fastout::hex(x), and any type with a
  /// fmt::formatter.
  template <typename T>
  file& operator<<(const T& value);

#ifdef FASTOUT_FMT_HAS_WRITER
  /// A fmt::writer over this writer's buffer, as fmt::ostream converts to
  /// one ({fmt} 11.1 and later). Text printed through it and through the
  /// writer itself comes out in the order it was printed. Line buffering
  /// applies to its text at the writer's next call.
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
  /// A fast local cursor for tight loops; see fastout::cursor.
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
  /// The negative error code of the last C API call on this writer that
  /// failed, or 0 (fastout_last_error()); the C API sets it.
  int last_call_error() const noexcept { return last_call_error_; }
  void set_last_call_error(int code) noexcept { last_call_error_ = code; }

 private:
  template <typename F>
  static void call_format(void* context, detail::fmt_buffer_base& out) {
    (*static_cast<F*>(context))(out);
  }
  template <typename F>
  void format_with(F& format);
  template <bool Newline, typename S, typename... V>
  void print_bounded(std::size_t bound, const S& format, V... values);
  template <typename T>
  FASTOUT_ALWAYS_INLINE void write_scalar(T value);
  template <typename T>
  void write_scalar_slow(T value);
  struct fd_tag {};
  file(fd_tag, int fd, bool owns_fd, const file_options& options, std::string name);
  void allocate_buffer(std::size_t size);
  void finish_opening(const file_options& options);
  void choose_buffering(buffering mode);

  void put_slow(char c);
  void write_slow(const char* data, std::size_t size);
  void append(const char* data, std::size_t size);
  int append_fully_buffered(const char* data, std::size_t size) noexcept;
  void accept_text(const char* text_begin);
  char* send_piece(detail::piece& p, char* at);
  std::pair<char*, std::size_t> streaming_area() noexcept;
  void take_back_from_borrower();
  void restore_limit() noexcept;
  [[noreturn]] void throw_unusable() const;
  [[noreturn]] void throw_lent_to_cursor() const;
  void fail_call(int error_number);
  void drop_text(std::size_t size) noexcept;
  void close_or_report(bool throw_error);
  std::string failure_message(const char* action) const;
  void flush_buffer();
  int empty_buffer(const char* more, std::size_t more_size) noexcept;
  int write_vector(struct ::iovec* iov, int count) noexcept;
  int flush_and_close(bool commit) noexcept;
  void free_buffer() noexcept;
  void close_and_report(bool commit) noexcept;
  std::string close_failure_message() const;

  // The base fastout_buffer_state holds pos and limit: first, for the hot
  // path and the C API.
  char* buffer_;                // start of the buffer (or a shared empty spot)
  char* buffer_end_;
  char* streaming_area_ = nullptr;  // for pieces larger than a small buffer
  detail::buffer_borrower* borrower_ = nullptr;  // who the free space is lent to
  bool lent_to_cursor_ = false;  // ... or lent to a cursor, which cannot give it back
  int fd_ = -1;
  bool owns_fd_ = false;
  bool line_buffered_ = false;
  bool closing_failed_ = false;   // the sticky error came from close()
  bool sync_failed_ = false;      // ... or from sync()
  bool reports_errors_ = false;   // write_errors::report: nothing thrown for a write error
  bool moved_from_ = false;       // closed by a move, for the message of a later call
  int error_ = 0;                 // sticky errno; 0 while all is well
  int last_call_error_ = 0;       // the C API's fastout_last_error()
  int write_flags_ = 0;           // pwritev2 flags (RWF_DONTCACHE), 0 for write/writev
  // Sync, preallocation, replacement: what close() does beyond closing the
  // descriptor (src/replace.cpp). Null for a plain writer.
  detail::close_plan* close_plan_ = nullptr;
  std::uint64_t bytes_drained_ = 0;  // accepted bytes no longer in the buffer
  std::uint64_t bytes_written_ = 0;
  std::uint64_t write_calls_ = 0;
  std::uint64_t flushes_ = 0;
  std::string path_;
#ifdef FASTOUT_FMT_HAS_WRITER
  detail::writer_buffer writer_buffer_{*this};
#endif
};

inline void swap(file& a, file& b) noexcept { a.swap(b); }

/// {fmt}'s name for its writer: code written for fmt::ostream compiles
/// against fastout::ostream.
using ostream = file;

/// A copy of a writer's buffer cursor in local variables, for tight loops.
///
/// file::put() must reload the buffer pointer after every byte, because a
/// `char` store may alias the writer itself. A cursor is a local object whose
/// address never escapes, so the compiler keeps its pointers in registers:
/// `put()` in a loop compiles to a compare and a store, as fast as a
/// hand-written buffer. Use it for byte-at-a-time loops; use file::put() and
/// file::write() everywhere else.
///
/// While a cursor is alive the writer's buffer is lent to it: write only
/// through the cursor. A call on the writer itself (write, print, flush,
/// close, ...) throws std::system_error(EBUSY) instead of losing the
/// cursor's bytes, and stats() counts them once the cursor commits. The
/// cursor hands its position back in commit() and in its destructor.
class cursor {
 public:
  /// Throws std::system_error(EBUSY) if another cursor is alive on `f`.
  explicit cursor(file& f) : file_(&f) { borrow(); }
  ~cursor() {
    if (space_.pos != nullptr) file_->take_back_from_cursor(space_.pos);
  }
  cursor(const cursor&) = delete;
  cursor& operator=(const cursor&) = delete;

  FASTOUT_ALWAYS_INLINE void put(char c) {
    if (FASTOUT_LIKELY(fastout_buffer_put(&space_, c))) return;
    sync_around([&] { file_->put(c); });
  }
  FASTOUT_ALWAYS_INLINE void write(const void* data, std::size_t size) {
    if (FASTOUT_LIKELY(fastout_buffer_write(&space_, data, size))) return;
    sync_around([&] { file_->write(data, size); });
  }
  FASTOUT_ALWAYS_INLINE void write(std::string_view s) { write(s.data(), s.size()); }
  void flush() {
    sync_around([&] { file_->flush(); });
  }

  /// Hands the position back to the writer, so that its stats() count the
  /// cursor's bytes; the cursor stays usable.
  void commit() {
    sync_around([] {});
  }

 private:
  void borrow() { space_ = file_->lend_to_cursor(); }
  template <typename F>
  FASTOUT_ALWAYS_INLINE void sync_around(F&& call_on_the_writer) {
    // If the call throws, the writer's own position is the truth: the
    // cursor stays null, gives nothing back in its destructor, and its next
    // call goes out of line again to meet the sticky error.
    if (space_.pos != nullptr) file_->take_back_from_cursor(space_.pos);
    space_.pos = space_.limit = nullptr;
    call_on_the_writer();
    borrow();
  }

  file* file_;
  detail::buffer_state space_ = {nullptr, nullptr};
};

inline cursor file::make_cursor() { return cursor(*this); }

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
                  "or {fmt}-style flags such as file::WRONLY | file::CREATE");
  }
}
}  // namespace detail

/// Opens a writer, {fmt} style: `output_file(path, fastout::buffer_size = n)`.
/// Parameters in any order: buffer_size = n (fastout's or {fmt}'s),
/// permissions = bits, an open_mode, a buffering, a write_errors, sync = b,
/// sync_directory = b, preallocate = bytes, a page_cache, a symlinks, or
/// {fmt}-style flags (file::WRONLY | file::CREATE | file::APPEND). When an
/// open_mode and flags disagree, the last one wins, except that
/// open_mode::replace and flags are refused together in either order.
template <typename... Params>
file output_file(detail::cstring_view path, const Params&... params) {
  file_options options;
  (detail::apply_param(options, params), ...);
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

// ------------------------------------------------------------- printing

template <typename F>
FASTOUT_ALWAYS_INLINE void file::format_with(F& format) {
  if (FASTOUT_LIKELY(pos != limit)) {
    detail::print_buffer out(*this, pos, limit);
    format(out);
    if (FASTOUT_LIKELY(!out.out_of_line())) {
      pos = out.data() + out.size();
      return;
    }
    out.finish();
    return;
  }
  detail::print_out_of_line(*this, &call_format<F>, &format);
}

template <typename... T>
void file::print(fmt::format_string<T...> format, T&&... args) {
#ifdef FASTOUT_FORMAT_CACHE
  fmt::string_view format_string = format;
  auto format_into = [&](detail::fmt_buffer_base& out) {
    detail::format_static(out, format_string, args...);
  };
  format_with(format_into);
#else
  vprint(format, fmt::make_format_args(args...));
#endif
}

template <typename S, typename... T,
          std::enable_if_t<detail::is_compiled_format_string<S>::value, int>>
void file::print(const S& format, T&&... args) {
  if constexpr (detail::bounded_format<S, T...>::value &&
                detail::copies_cheaply<fmt::remove_cvref_t<T>...>::value) {
    print_bounded<false>(detail::bounded_format<S, T...>::max_size(args...), format,
                         detail::fast_argument(args)...);
  } else {
    auto format_into = [&](detail::fmt_buffer_base& out) {
      fmt::format_to(fmt::appender(out), format, std::forward<T>(args)...);
    };
    format_with(format_into);
  }
}

// The arguments are copies (detail::fast_argument), in both paths: had the
// slow path taken the caller's by reference, they would live in memory that
// every char the fast path writes might change, for all the compiler knows.
template <bool Newline, typename S, typename... V>
FASTOUT_ALWAYS_INLINE void file::print_bounded(std::size_t bound, const S& format, V... values) {
  const auto room = static_cast<std::size_t>(limit - pos);
  // print: bound - 1, as file::write(): an empty text goes out of line, so
  // that a closed writer, or one with a sticky error, throws even for it.
  // println: bound < room leaves a byte for the '\n', and cannot wrap as
  // bound + 1 would.
  if (FASTOUT_LIKELY(Newline ? bound < room : bound - 1 < room)) {
    pos = fmt::format_to(pos, format, values...);
    if constexpr (Newline) *pos++ = '\n';
    return;
  }
  // By copy: a value whose address reached this lambda would be stored to
  // memory before the fast path on every call.
  auto format_into = [&format, values...](detail::fmt_buffer_base& out) {
    fmt::format_to(fmt::appender(out), format, values...);
    if constexpr (Newline) out.push_back('\n');
  };
  format_with(format_into);
}

template <typename... T>
void file::println(fmt::format_string<T...> format, T&&... args) {
  fmt::string_view format_string = format;
  auto format_into = [&](detail::fmt_buffer_base& out) {
#ifdef FASTOUT_FORMAT_CACHE
    detail::format_static(out, format_string, args...);
#else
    fmt::vformat_to(fmt::appender(out), format_string, fmt::make_format_args(args...));
#endif
    out.push_back('\n');
  };
  format_with(format_into);
}

template <typename S, typename... T,
          std::enable_if_t<detail::is_compiled_format_string<S>::value, int>>
void file::println(const S& format, T&&... args) {
  if constexpr (detail::bounded_format<S, T...>::value &&
                detail::copies_cheaply<fmt::remove_cvref_t<T>...>::value) {
    print_bounded<true>(detail::bounded_format<S, T...>::max_size(args...), format,
                        detail::fast_argument(args)...);
  } else {
    auto format_into = [&](detail::fmt_buffer_base& out) {
      fmt::format_to(fmt::appender(out), format, std::forward<T>(args)...);
      out.push_back('\n');
    };
    format_with(format_into);
  }
}

template <typename T>
FASTOUT_ALWAYS_INLINE void file::write_scalar(T value) {
  constexpr std::size_t max_size = detail::max_scalar_size<T>();
  if (FASTOUT_LIKELY(static_cast<std::size_t>(limit - pos) >= max_size)) {
    pos = detail::format_scalar(pos, value);
    return;
  }
  write_scalar_slow(value);
}

template <typename T>
void file::write_scalar_slow(T value) {
  char text[detail::max_scalar_size<T>()];
  char* end = detail::format_scalar(text, value);
  write_slow(text, static_cast<std::size_t>(end - text));
}

template <typename T>
file& file::operator<<(const T& value) {
  if constexpr (detail::is_fast_scalar<T>::value || detail::is_hex_value<T>::value) {
    write_scalar(value);
  } else if constexpr (std::is_same<T, char>::value) {
    put(value);
  } else if constexpr (std::is_same<T, bool>::value) {
    write(value ? std::string_view("true") : std::string_view("false"));
  } else if constexpr (detail::formats_as_string<T>::value) {
    if constexpr (std::is_pointer<T>::value) {
      if (value == nullptr) {  // fmt's format_error, not strlen(nullptr)
        print(FMT_COMPILE("{}"), value);
        return *this;
      }
    }
    write(std::string_view(value));
  } else {
    // fmt's runtime "{}", the definition of the text; its compiled "{}"
    // differs for some types (nullptr throws instead of writing "0x0").
    print("{}", value);
  }
  return *this;
}

}  // namespace fastout

#endif  // C++17
#endif  // FASTOUT_FILE_H_
