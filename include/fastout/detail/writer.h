// SPDX-License-Identifier: MIT
// The writer behind fastout::file: its state, and the internal interface
// through which fastout's own features write into its buffer -- printing
// (<fastout/print.h>), the cursor, the C API, printf, the stream buffer --
// and through which opening assembles it. Not for users: it may change in
// any release. A user reads <fastout/file.h>, whose fastout::file is this
// writer with the user's calls; detail::writer_of(file&) is the way in.
//
// The writer is the buffer, the hot path, the pieces of text written in
// place, and the rules of buffering and errors. Everything behind the
// buffer -- compression, durability, replacement, the file itself -- is a
// chain of stages (src/stages/stage_internal.h) that the writer hands a
// full buffer, a flush, a sync and a close to, and of which it knows
// nothing else: the route out, `route_`, which opening (src/open/open.cpp)
// assembles. Everything here but the accessors is out of line, in
// src/writer/.
#ifndef FASTOUT_DETAIL_WRITER_H_
#define FASTOUT_DETAIL_WRITER_H_

#if __cplusplus >= 201703L

#  include <cstddef>
#  include <cstdint>
#  include <string>
#  include <system_error>
#  include <utility>

#  include <fastout/config.h>
#  include <fastout/detail/fmt_compat.h>
#  include <fastout/detail/hot_path.h>
#  include <fastout/errors.h>
#  include <fastout/options.h>

namespace fastout {

class file;

namespace detail {

class writer;
// A stage of the route out of the buffer (src/stages/stage_internal.h).
class stage;

using buffer_state = fastout_buffer_state;

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
// (writer::grow_piece()) and takes its text when it ends (writer::end_piece(),
// writer::take_back()). Nothing else of the writer's is touched meanwhile.
struct piece {
  char* text;        // where its text that the writer does not have yet begins
  char* end;         // the end of the room it may fill
  std::size_t sent;  // bytes of it sent to the file already
  piece_place place;
};

// Something that writes into a writer's free space on its own, between the
// writer's own calls: fmt::writer's buffer, a stream buffer. It holds a
// piece from writer::lend(). While it does, the writer's hot path goes out
// of line, where the writer first asks for the piece back (a cursor cannot
// be asked: see writer::lend_to_cursor()).
class buffer_borrower {
 public:
  // Hands back the piece with writer.take_back(), and forgets it: the
  // borrower lends again before it writes. Throws what that throws.
  virtual void give_back(writer& w) = 0;
  // Bytes written into the piece and not yet given back.
  virtual std::size_t bytes_held() const noexcept = 0;

 protected:
  ~buffer_borrower() = default;
};

#  ifdef FASTOUT_FMT_HAS_WRITER
// The buffer behind the fmt::writer a file converts to ({fmt} 11.1 and
// later): fmt writes into a piece it borrows, in the writer's buffer, or in
// spare_ for an unbuffered writer, whose text goes out when spare_ fills or
// when it is given back.
class FASTOUT_API writer_buffer final : public fmt_buffer<writer_buffer>, public buffer_borrower {
 public:
  explicit writer_buffer(writer& w) noexcept : fmt_buffer(nullptr, 0), writer_(&w) {}
  writer_buffer(const writer_buffer&) = delete;
  writer_buffer& operator=(const writer_buffer&) = delete;

  void on_grow(std::size_t capacity);
  void give_back(writer& w) override;
  std::size_t bytes_held() const noexcept override { return size(); }

 private:
  writer* writer_;
  piece piece_ = {nullptr, nullptr, 0, piece_place::buffer};
  char spare_[256];
};
#  endif

// Everything a writer holds but its hot pointers (pos, limit) and
// fmt::writer's buffer: one aggregate, so that swap() and the move
// operations move all of it and a member added here cannot be forgotten
// there (file_state_test checks that the writer holds nothing else). The
// groups are only comments.
struct file_state {
  // The buffer.
  char* buffer_ = nullptr;  // start of the buffer (or a shared empty spot)
  char* buffer_end_ = nullptr;
  char* streaming_area_ = nullptr;  // for pieces larger than a small buffer
  bool buffer_is_routes_ = false;   // the route's to free (compression's buffers)
  // The process's buffer budget (src/memory/buffer_budget_internal.h).
  bool buffer_from_budget_ = false;  // the budget sizes the buffer: it grows and shrinks
  std::size_t budget_charged_ = 0;   // charged for the buffer and a retired one
  // The buffer before it grew, while the writer may still move its tail
  // (the route's drain() contract): freed at the next drain or at close.
  char* retired_buffer_ = nullptr;
  std::size_t retired_size_ = 0;
  std::uint64_t drained_mark_ = 0;  // the process's drained bytes at this writer's last drain
  // Who the free space is lent to.
  buffer_borrower* borrower_ = nullptr;
  bool lent_to_cursor_ = false;  // ... or lent to a cursor, which cannot give it back
  // The route out: the stages a full buffer, a flush, a sync and close() go
  // through (src/stages/stage_internal.h). Null for a writer that was never
  // opened; kept after close() for the counts and messages.
  stage* route_ = nullptr;
  bool open_ = false;
  std::string path_;
  // Modes and errors.
  bool line_buffered_ = false;
  bool reports_errors_ = false;  // write_errors::report: nothing thrown for a write error
  bool sync_failed_ = false;     // the sticky error came from sync() or writeback
  bool moved_from_ = false;      // closed by a move, for the message of a later call
  int error_ = 0;                // sticky errno; 0 while all is well
  int last_call_error_ = 0;      // the C API's fastout_last_error()
  // Counters (file_stats); the route counts what reached the file.
  std::uint64_t bytes_drained_ = 0;  // accepted bytes no longer in the buffer
  std::uint64_t flushes_ = 0;
};

// The writer. Its public members are the internal interface and the calls
// that fastout::file gives its users (file.h says what each does); the C
// API reaches the same calls through a handle on its hot state.
class FASTOUT_API writer : protected fastout_buffer_state, protected file_state {
 public:
  // ------------------------------------------------ what a file's user calls
  // (documented in <fastout/file.h>)
  void flush();
  void close();
  void cancel();
  void sync();
  bool is_open() const noexcept { return open_; }
  int descriptor() const noexcept;
  const std::string& path() const noexcept { return path_; }
  std::size_t buffer_capacity() const noexcept {
    return static_cast<std::size_t>(buffer_end_ - buffer_);
  }
  std::size_t bytes_pending() const noexcept;
  bool line_buffered() const noexcept { return line_buffered_; }
  bool drops_page_cache() const noexcept;
  std::error_code error() const noexcept;
  write_errors error_mode() const noexcept {
    return reports_errors_ ? write_errors::report : write_errors::throw_exception;
  }
  file_stats stats() const noexcept;

  // The hot paths' slow halves: a full buffer, line buffering, an error, a
  // closed writer, lent space.
  void put_slow(char c);
  void write_slow(const char* data, std::size_t size);

  // ------------------------------------------------------ internal interface

  /// The state the inline hot paths share, C's fastout_putc() included.
  buffer_state& hot_state() noexcept { return *this; }
  /// The writer whose hot state this is.
  static writer& from_hot_state(buffer_state& state) noexcept {
    return static_cast<writer&>(state);
  }

  /// The buffer.
  char* buffer_begin() const noexcept { return buffer_; }
  char* buffer_end() const noexcept { return buffer_end_; }

  /// The room an inline producer may fill now, [pos, limit): empty whenever
  /// the call must go out of line. What it wrote, up to `end`, becomes the
  /// writer's with commit_room(end).
  buffer_state room() const noexcept { return {pos, limit}; }
  void commit_room(char* end) noexcept { pos = end; }

  /// Begins a piece of text written in place, out of line (print's and
  /// printf's): takes lent space back, throws std::system_error if the
  /// writer cannot take a call (closed, failed, lent to a cursor), and
  /// returns the piece: in the free space, emptied first if it is full, or
  /// in `spare` if the writer has no buffer.
  piece begin_piece(char* spare, std::size_t spare_size);
  /// Makes room for `more` bytes after `at`, the end of the piece's text so
  /// far, and returns where they go; p.text and p.end say where the piece
  /// is now. A piece kept whole moves to the front of the buffer, after the
  /// text before it is sent, if it fits there with `more`; otherwise (or if
  /// `more` is larger than the buffer) it streams from then on. A streaming
  /// piece sends what it has: its room may then be smaller than `more`, but
  /// never empty. Throws std::system_error on a write error, after which a
  /// whole piece is dropped, uncounted, and a streaming one counts what it
  /// sent (file_stats).
  char* grow_piece(piece& p, char* at, std::size_t more);
  /// Ends a piece: its text up to `at` is the writer's, and a line-buffered
  /// writer sends its complete lines.
  void end_piece(piece& p, char* at);

  /// Lends the free space to `borrower` as a streaming piece (in `spare` if
  /// the writer has no buffer; emptied first if it is full). Until
  /// take_back(), every call of the writer's own goes out of line, where the
  /// writer asks for the piece back. Takes back what another borrower holds,
  /// and throws std::system_error as begin_piece().
  piece lend(buffer_borrower& borrower, char* spare, std::size_t spare_size);
  /// Ends a loan: end_piece(), and the hot path opens again.
  void take_back(piece& p, char* at);
  /// Lends the free space to a cursor, which cannot be asked for it back:
  /// until take_back_from_cursor(), every call of the writer's own throws
  /// std::system_error(EBUSY). Throws EBUSY if a cursor holds it already.
  buffer_state lend_to_cursor();
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
  /// Moves where the next byte lands, as fseek() on a write stream: what is
  /// buffered goes to the file first, then the file position moves as
  /// lseek(offset, whence) moves it (SEEK_SET, SEEK_CUR or SEEK_END; the
  /// current position is the writer's, what is buffered included). Returns
  /// the new position. Throws std::system_error, having sent nothing, with
  /// ESPIPE where the output cannot seek (a pipe, a terminal, a compressed
  /// stream) and EINVAL for another `whence`; with the flush's error (which
  /// is sticky, whatever the error mode) or the writer's sticky error; with
  /// lseek()'s (EINVAL before the start), which is not sticky. The counts
  /// (file_stats) count bytes, not positions: a seek changes none of them.
  std::int64_t seek(std::int64_t offset, int whence);
  /// Where the next byte lands, as ftell(): the file position plus what is
  /// buffered, without writing; for a compressed stream, the bytes of text
  /// accepted so far. Throws std::system_error as seek() does (ESPIPE on a
  /// pipe; the sticky error).
  std::int64_t position();
  /// How this writer compresses, settled at open (by_extension resolved to
  /// the path's format); format is compression_format::none for a plain
  /// writer.
  compression_options compression() const noexcept;

  /// The negative error code of the last C API call on this writer that
  /// failed, or 0 (fastout_last_error()); the C API sets it.
  int last_call_error() const noexcept { return last_call_error_; }
  /// The sticky errno (error().value()), or 0, asked after every C API
  /// call: without the std::error_code, whose empty value is a call into
  /// the C++ runtime (std::system_category()).
  int sticky_error() const noexcept { return error_; }
  void set_last_call_error(int code) noexcept { last_call_error_ = code; }

#  ifdef FASTOUT_FMT_HAS_WRITER
  /// The fmt::writer a file converts to.
  fmt::writer as_fmt_writer() { return fmt::writer(writer_buffer_); }
#  endif

 protected:
  writer() noexcept;
  ~writer();
  writer(writer&& other) noexcept;
  writer& operator=(writer&& other) noexcept;
  writer(const writer&) = delete;
  writer& operator=(const writer&) = delete;
  void swap(writer& other) noexcept;

  // For opening (src/open/open.cpp): the path or name, the buffer the
  // writer allocates before the file is opened (none when the route brings
  // its own), then the route the writer sends everything to, whose first
  // stage it owns from here on, with the route's own buffer if it has one
  // (`route_buffer`, of `route_capacity` bytes).
  void set_path(std::string path) { path_ = std::move(path); }
  void allocate_buffer(const file_options& options);
  void attach(stage* route, char* route_buffer, std::size_t route_capacity,
              const file_options& options) noexcept;

 private:
  void choose_buffering(buffering mode);
  void append(const char* data, std::size_t size);
  int append_fully_buffered(const char* data, std::size_t size) noexcept;
  FASTOUT_NOINLINE piece begin_piece_slow(char* spare, std::size_t spare_size);
  void accept_text(const char* text_begin);
  char* send_piece(piece& p, char* at);
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
  void flush_route();
  // The one route out of the buffer: every byte that leaves it goes
  // through here to route_.
  // Why a drain comes, for the buffer budget's rules: the writer proves
  // busy by drains of a full buffer, and a buffer whose tail the caller
  // moves to the front of the new one after the drain (a piece, a partial
  // line) must not shrink.
  enum class drain_cause : unsigned char {
    counted,      // full if the bytes drained fill the buffer
    piece_moves,  // a piece did not fit in what was left: full, and it moves
    line_moves,   // a line-buffered writer's lines: its partial line moves
  };
  int drain_buffer(const char* more, std::size_t more_size,
                   drain_cause cause = drain_cause::counted) noexcept;
  void fit_buffer_to_use(std::size_t drained, bool filled, bool tail_moves) noexcept;
  bool replace_buffer(std::size_t size, bool tail_moves) noexcept;
  void release_retired_buffer() noexcept;
  int flush_and_close(bool commit) noexcept;
  void free_buffer() noexcept;
  void close_and_report(bool commit) noexcept;
  std::string close_failure_message() const;

  // The state is in the two bases: pos and limit first (fastout_buffer_state,
  // for the hot path and the C API), then file_state, which swap() and the
  // move operations move as one. fmt::writer's buffer stays with its
  // writer.
#  ifdef FASTOUT_FMT_HAS_WRITER
  writer_buffer writer_buffer_{*this};
#  endif
};

}  // namespace detail
}  // namespace fastout

#endif  // C++17
#endif  // FASTOUT_DETAIL_WRITER_H_
