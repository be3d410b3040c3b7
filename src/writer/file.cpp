// SPDX-License-Identifier: MIT
// The writer (include/fastout/detail/writer.h), out of line: buffering,
// flushing, errors, closing, and the internal interface that formatting,
// the cursor and the other features write through. The inline hot path is
// in include/fastout/file.h. Everything that leaves the buffer goes to the
// writer's route out (src/stages/stage_internal.h), through drain_buffer();
// the writer knows nothing of what the route's stages are.
#include <fastout/file.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <new>

#include "memory/buffer_budget_internal.h"
#include "memory/buffer_memory_internal.h"
#include "platform/platform_internal.h"
#include "stages/messages_internal.h"
#include "stages/stage_internal.h"

namespace fastout {
namespace {

using detail::platform;
using detail::quoted;

// Where pos and limit point in a writer that has no buffer (closed or
// unbuffered). pos == limit, so the hot path never stores here.
char no_buffer[1];

std::atomic<error_handler> current_error_handler{nullptr};

// The last '\n' in [begin, begin + size), or null (memrchr() is glibc's).
const char* last_newline_in(const char* begin, std::size_t size) noexcept {
  for (const char* at = begin + size; at != begin;) {
    if (*--at == '\n') return at;
  }
  return nullptr;
}

}  // namespace

void default_error_handler(const error_report& report) noexcept {
  // snprintf into the stack and one write(2): no allocation, no stdio lock,
  // usable from a destructor run during unwinding. Both system calls go
  // through the table, as every other the library makes.
  char line[1024];
  const char* cause = std::strerror(report.error.value());
  int length;
  if (report.not_replaced) {
    if (report.error.value() == ECANCELED)
      cause = "the writer was destroyed without close() or commit()";
    // The report does not say whether there was a target: what is at the
    // path now does (a replacement that was not put in place created
    // nothing there).
    const int saved_errno = errno;
    struct stat st;
    const bool exists =
        platform.fstatat(AT_FDCWD, report.path, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT;
    errno = saved_errno;
    length =
        std::snprintf(line, sizeof line,
                      "fastout: discarded %llu bytes meant to replace \"%s\": %s (\"%s\" %s)\n",
                      static_cast<unsigned long long>(report.bytes_lost), report.path, cause,
                      report.path, exists ? "is as it was" : "did not exist, and still does not");
  } else if (report.bytes_lost > 0) {
    length = std::snprintf(line, sizeof line, "fastout: lost %llu bytes writing \"%s\": %s\n",
                           static_cast<unsigned long long>(report.bytes_lost), report.path, cause);
  } else if (report.sync_failed) {
    length = std::snprintf(line, sizeof line,
                           "fastout: syncing \"%s\" failed: %s (everything accepted was written, "
                           "but may not survive a power loss)\n",
                           report.path, cause);
  } else if (report.close_failed) {
    length = std::snprintf(line, sizeof line,
                           "fastout: closing \"%s\" failed: %s (everything accepted was written)\n",
                           report.path, cause);
  } else {
    length =
        std::snprintf(line, sizeof line, "fastout: error writing \"%s\": %s\n", report.path, cause);
  }
  if (length <= 0) return;
  size_t size = std::min(static_cast<size_t>(length), sizeof line - 1);
  if (size == sizeof line - 1) line[size - 1] = '\n';
  ssize_t ignored = platform.write(detail::standard_error_descriptor, line, size);
  (void)ignored;  // nowhere left to report a failure to report
}

error_handler set_error_handler(error_handler handler) noexcept {
  error_handler previous = current_error_handler.exchange(handler);
  return previous != nullptr ? previous : default_error_handler;
}

namespace detail {

writer::writer() noexcept : fastout_buffer_state{no_buffer, no_buffer} {
  buffer_ = buffer_end_ = no_buffer;
}

void writer::attach(stage* route, char* route_buffer, std::size_t route_capacity,
                    const file_options& options) noexcept {
  route_ = route;
  open_ = true;
  if (route_buffer != nullptr) {
    // The route's own buffers (compression's): the writer fills them.
    buffer_ = route_buffer;
    buffer_end_ = route_buffer + route_capacity;
    buffer_is_routes_ = true;
  }
  reports_errors_ = options.errors == write_errors::report;
  choose_buffering(options.buffer_mode);
}

void writer::allocate_buffer(const file_options& options) {
  // Unbuffered, it holds nothing of the budget (and standard error, which
  // is, still opens to say what went wrong).
  if (options.buffer_size == 0) return;  // buffer_ stays the shared empty spot
  // A FASTOUT_BUFFER_BUDGET that cannot be read fails every other open,
  // rather than go on with a budget the user did not ask for.
  const std::string budget_problem = detail::budget_environment_error();
  if (!budget_problem.empty())
    throw std::system_error(EINVAL, detail::error_category(),
                            "cannot open " + quoted(path_) + ": " + budget_problem);
  // The budget sizes a buffer whose size the program did not choose; a
  // chosen size is charged as it is, whatever the budget says.
  const bool from_budget = options.buffer_size == default_buffer_size && !options.buffer_size_exact;
  std::size_t size = options.buffer_size;
  if (from_budget)
    size = detail::charge_opening_buffer();
  else
    detail::charge(size);
  // The library's reserve if no other writer holds it (no system call to
  // map it, none to unmap it at exit), else the heap.
  char* buffer = detail::allocate_buffer_memory(size);
  if (buffer == nullptr) {
    detail::refund(size);
    throw std::system_error(
        ENOMEM, detail::error_category(),
        "cannot allocate a " + std::to_string(size) + "-byte buffer for " + quoted(path_));
  }
  detail::add_holder();
  budget_charged_ = size;
  buffer_from_budget_ = from_budget;
  drained_mark_ = detail::count_drained(0);
  buffer_ = buffer;
  buffer_end_ = buffer + size;
}

void writer::choose_buffering(buffering mode) {
  switch (mode) {
    case buffering::full: line_buffered_ = false; break;
    case buffering::line: line_buffered_ = true; break;
    case buffering::automatic:
      // stdio's rule: a terminal is line-buffered (a compressed stream never
      // is: a frame per line would only make it larger).
      line_buffered_ = route_->interactive();
      break;
  }
  pos = buffer_;
  reopen_hot_path();
}

writer::~writer() {
  close_and_report(false);
  delete route_;
}

writer::writer(writer&& other) noexcept : writer() {
  swap(other);
  other.moved_from_ = true;
}

writer& writer::operator=(writer&& other) noexcept {
  // The old writer is closed (and reports) when `old` goes, and `other` is
  // left closed with zero counters, as after a move construction.
  writer old(std::move(other));
  swap(old);
  return *this;
}

void writer::swap(writer& other) noexcept {
  // Space lent to fmt::writer's buffer comes back first: the borrower is a
  // member and stays with its own writer. (A live cursor cannot be asked;
  // moving a writer under one is documented as unsupported, and the cursor's
  // take_back() ignores a position that is not in the buffer it borrowed.)
  for (writer* f : {this, &other}) {
    if (f->borrower_ != nullptr) {
      try {
        f->borrower_->give_back(*f);
      } catch (const std::system_error&) {
        // The writer holds the error as its sticky error; it travels with it.
      }
    }
  }
  using std::swap;
  swap(static_cast<fastout_buffer_state&>(*this), static_cast<fastout_buffer_state&>(other));
  swap(static_cast<file_state&>(*this), static_cast<file_state&>(other));
}

void writer::free_buffer() noexcept {
  // A compressing writer's buffers are its route's, which frees them.
  if (buffer_ != buffer_end_ && !buffer_is_routes_) detail::free_buffer_memory(buffer_);
  buffer_is_routes_ = false;
  release_retired_buffer();
  if (budget_charged_ != 0) {
    detail::refund(budget_charged_);
    detail::remove_holder();
    budget_charged_ = 0;
  }
  buffer_from_budget_ = false;
  delete[] streaming_area_;
  streaming_area_ = nullptr;
  pos = limit = buffer_ = buffer_end_ = no_buffer;
}

// Opens the hot path again unless something must send every call out of
// line: line buffering, an error, a closed writer, space lent out.
void writer::reopen_hot_path() noexcept {
  const bool closed_path =
      line_buffered_ || error_ != 0 || !open_ || borrower_ != nullptr || lent_to_cursor_;
  limit = closed_path ? pos : buffer_end_;
}

std::error_code writer::error() const noexcept {
  return error_ != 0 ? std::error_code(error_, detail::error_category()) : std::error_code();
}

std::size_t writer::bytes_pending() const noexcept {
  std::size_t pending = static_cast<std::size_t>(pos - buffer_);
  if (borrower_ != nullptr) pending += borrower_->bytes_held();
  return pending;
}

int writer::descriptor() const noexcept { return open_ ? route_->descriptor() : -1; }

bool writer::drops_page_cache() const noexcept {
  return route_ != nullptr && route_->drops_page_cache();
}

compression_options writer::compression() const noexcept {
  if (route_ != nullptr) return route_->compression();
  compression_options none;
  none.workers = 0;
  return none;
}

file_stats writer::stats() const noexcept {
  file_stats s;
  s.bytes_accepted = bytes_drained_ + bytes_pending();
  s.flushes = flushes_;
  s.buffer_size = buffer_capacity();
  if (route_ != nullptr) {
    const route_counts counts = route_->counts();
    s.bytes_written = counts.bytes_written;
    s.write_calls = counts.write_calls;
    s.bytes_delivered = counts.bytes_delivered;
  }
  return s;
}

// Built from the counters as they are: every byte of the failing call must
// be counted before this is called, so that the message, stats() and the
// error handler agree.
std::string writer::failure_message(const char* action) const {
  return route_->describe_failure(action, path_, stats().bytes_accepted);
}

void writer::throw_unusable() const {
  // With write_errors::report only a closed writer gets here: its write
  // error was reported when it was closed, and a write now is a mistake.
  if (error_ != 0 && !reports_errors_)
    throw std::system_error(error_, detail::error_category(),
                            failure_message("write to") + " after an earlier error");
  std::string why;
  if (moved_from_) {
    why =
        "cannot write through a fastout::file that was moved from: it is closed, and its file "
        "belongs to the writer it was moved to";
  } else if (path_.empty()) {
    why =
        "cannot write through a fastout::file that was never opened: a default-constructed "
        "writer is closed";
  } else {
    why = "cannot write to " + quoted(path_) + ": the writer is closed";
  }
  throw std::system_error(EBADF, detail::error_category(), why);
}

// A write error met by the current call, which has counted its bytes: thrown,
// or with write_errors::report kept as the sticky error, which the error
// handler reports when the writer is finished. Either way the writer's
// state is consistent (pos == limit).
void writer::fail_call(int error_number) {
  if (reports_errors_) return;
  if (sync_failed_)  // what reached the file could not be written back
    throw std::system_error(error_number, detail::error_category(),
                            failure_message("sync") + ", but may not survive a power loss");
  throw std::system_error(error_number, detail::error_category(), failure_message("write to"));
}

// write_errors::report after an error: what the buffer holds and the
// call's `size` bytes are accepted and dropped, without a system call, so
// that the report counts every byte the program wrote.
void writer::drop_text(std::size_t size) noexcept {
  bytes_drained_ += static_cast<std::size_t>(pos - buffer_) + size;
  pos = buffer_;
  reopen_hot_path();
}

// The one route out of the buffer: every byte that leaves it for the file
// -- a full buffer, a flush, a line, a piece that streams, data too large
// to buffer -- goes through here to the route's first stage. Sends what the
// buffer holds, then `more_size` bytes at `more` (none is fine), in as few
// system calls as possible, and empties the buffer (a route with buffers of
// its own gives the next one). Returns 0, or the errno that stopped it,
// which is then the sticky error.
FASTOUT_HOT int writer::drain_buffer(const char* more, std::size_t more_size,
                                     drain_cause cause) noexcept {
  // The tail of the buffer before the last resize has been moved by now.
  if (retired_buffer_ != nullptr) release_retired_buffer();
  const auto pending = static_cast<std::size_t>(pos - buffer_);
  if (pending == 0 && more_size == 0) return 0;
  if (error_ != 0) {
    // Failed before, with write_errors::report (otherwise the call would
    // have thrown at its start): dropped.
    drop_text(more_size);
    return error_;
  }
  // Counted as drained before the attempt: if it fails, the route's counts
  // say exactly how much got through and the rest is reported as lost.
  bytes_drained_ += pending + more_size;
  if (pending > 0) ++flushes_;
  const std::size_t capacity = buffer_capacity();
  int error_number = route_->drain(buffer_, capacity, pending, more, more_size);
  // A line-buffered writer's lines are readable at once: a compressed
  // stream ends a block (a plain route has nothing to do).
  if (error_number == 0 && line_buffered_) error_number = route_->flush();
  buffer_end_ = buffer_ + capacity;
  pos = buffer_;
  if (error_number != 0) {
    error_ = error_number;
    // Writing back what reached the file failed: final, as a failed sync.
    if (route_->failed_in_writeback()) sync_failed_ = true;
  } else if (buffer_from_budget_ || buffer_is_routes_) {
    const bool filled = cause == drain_cause::piece_moves || pending + more_size >= capacity;
    const bool tail_moves = cause != drain_cause::counted;
    if (buffer_from_budget_) {
      fit_buffer_to_use(pending + more_size, filled, tail_moves);
    } else {
      // The route's buffers (compression's) follow the same rules, by the
      // route's own sizes.
      std::size_t fitted = capacity;
      route_->fit_buffer(buffer_, fitted, pending + more_size, filled, tail_moves);
      buffer_end_ = buffer_ + fitted;
      pos = buffer_;
    }
  }
  reopen_hot_path();  // closed for good after an error
  return error_number;
}

// The budget's rules (detail::fit_at_drain()), at a drain of `drained`
// bytes that emptied the buffer (`filled`: it was full, or the call did not
// fit): a busy writer grows its buffer if the budget has room; one that is
// not busy gives its memory back while the budget is under pressure.
FASTOUT_HOT void writer::fit_buffer_to_use(std::size_t drained, bool filled,
                                           bool tail_moves) noexcept {
  const std::size_t capacity = buffer_capacity();
  switch (detail::fit_at_drain(drained_mark_, drained, filled, capacity, detail::smallest_buffer)) {
    case detail::buffer_fit::keep: return;
    case detail::buffer_fit::grow: {
      const std::size_t larger = std::min(capacity * detail::growth_factor, detail::largest_buffer);
      if (!detail::try_charge(larger)) {
        detail::note_refused_growth();
        return;
      }
      if (!replace_buffer(larger, tail_moves)) detail::refund(larger);
      return;
    }
    case detail::buffer_fit::give_back:
      // A smaller buffer could not take the tail the caller moves next.
      if (tail_moves) return;
      detail::charge(detail::smallest_buffer);
      if (!replace_buffer(detail::smallest_buffer, false)) detail::refund(detail::smallest_buffer);
      return;
  }
}

// The buffer, empty, becomes one of `size` bytes, already charged. The old
// one is freed now, or when the caller moves its tail (`tail_moves`) at the
// next drain. False, and nothing changed, if the memory cannot be had.
bool writer::replace_buffer(std::size_t size, bool tail_moves) noexcept {
  char* replacement = detail::allocate_buffer_memory(size);
  if (replacement == nullptr) return false;
  char* old = buffer_;
  const std::size_t old_size = buffer_capacity();
  budget_charged_ += size;
  buffer_ = replacement;
  buffer_end_ = replacement + size;
  pos = buffer_;
  if (tail_moves) {
    retired_buffer_ = old;
    retired_size_ = old_size;
  } else {
    detail::free_buffer_memory(old);
    detail::refund(old_size);
    budget_charged_ -= old_size;
  }
  return true;
}

void writer::release_retired_buffer() noexcept {
  if (retired_buffer_ == nullptr) return;
  detail::free_buffer_memory(retired_buffer_);
  detail::refund(retired_size_);
  budget_charged_ -= retired_size_;
  retired_buffer_ = nullptr;
  retired_size_ = 0;
}

FASTOUT_HOT void writer::flush_buffer() {
  if (int error_number = drain_buffer(nullptr, 0)) fail_call(error_number);
}

// ------------------------------------------------------- internal interface

void writer::take_back_and_check() {
  if (borrower_ != nullptr || lent_to_cursor_) take_back_from_borrower();
  if (!open_ || (error_ != 0 && !reports_errors_)) throw_unusable();
}

void writer::take_back_from_borrower() {
  if (lent_to_cursor_) throw_lent_to_cursor();
  borrower_->give_back(*this);
}

void writer::throw_lent_to_cursor() const {
  throw std::system_error(EBUSY, detail::error_category(),
                          "cannot use " + quoted(path_) +
                              " directly while a fastout::cursor is writing to it: destroy the "
                              "cursor or call its commit() first");
}

piece writer::begin_piece(char* spare, std::size_t spare_size) {
  // fastout_printf() begins a piece on every call: the usual case -- open,
  // well, not lent, with free space -- needs no call and no saved register.
  // An unbuffered writer's pos is at its buffer's end too.
  if (FASTOUT_LIKELY(borrower_ == nullptr && !lent_to_cursor_ && open_ && error_ == 0 &&
                     pos != buffer_end_))
    return {pos, buffer_end_, 0, piece_place::buffer};
  return begin_piece_slow(spare, spare_size);
}

piece writer::begin_piece_slow(char* spare, std::size_t spare_size) {
  take_back_and_check();
  if (buffer_ == buffer_end_) return {spare, spare + spare_size, 0, piece_place::spare};
  if (pos == buffer_end_) flush_buffer();  // room for the first byte
  // Line buffering keeps limit at pos, to send every call out of line; the
  // piece may still use all the free space.
  return {pos, buffer_end_, 0, piece_place::buffer};
}

char* writer::grow_piece(piece& p, char* at, std::size_t more) {
  using detail::piece_place;
  const auto length = static_cast<std::size_t>(at - p.text);
  if (p.place == piece_place::buffer) {
    if (more <= buffer_capacity() - length) {
      // It fits in the buffer once the text before it is sent: it moves to
      // the front and stays whole. On a write error it is dropped: a
      // print's text counts as accepted once it is complete.
      pos = p.text;  // where it began: the text before it is sent
      const int error_number = drain_buffer(nullptr, 0, drain_cause::piece_moves);
      if (error_number != 0) fail_call(error_number);  // returns with write_errors::report
      std::memmove(buffer_, p.text, length);
      p.text = buffer_;
      p.end = buffer_end_;
      return buffer_ + length;
    }
    // Larger than the buffer: it streams from here, through a larger area
    // of the writer's own if there is one.
    auto [area, area_size] = streaming_area();
    if (area != nullptr && area != buffer_ && length < area_size) {
      std::memcpy(area, p.text, length);
      p.text = area;
      p.end = area + area_size;
      p.place = piece_place::side_streaming;
      // The text before the piece goes out (the writer's pos is where the
      // piece began).
      if (int error_number = drain_buffer(nullptr, 0)) fail_call(error_number);
      return area + length;
    }
    p.place = piece_place::buffer_streaming;
    return send_piece(p, at);
  }
  if (p.place == piece_place::spare) {
    // No buffer: the piece outgrew the caller's spare area, and streams
    // through the writer's streaming area if it can have one, else through
    // the spare.
    p.place = piece_place::side_streaming;
    auto [area, area_size] = streaming_area();
    if (area != nullptr && length < area_size) {
      std::memcpy(area, p.text, length);
      p.text = area;
      p.end = area + area_size;
      return area + length;
    }
  }
  return send_piece(p, at);
}

// A streaming piece sends what it has and starts again at the front of its
// area.
char* writer::send_piece(piece& p, char* at) {
  const auto length = static_cast<std::size_t>(at - p.text);
  int error_number;
  if (p.place == piece_place::buffer_streaming) {
    // With everything before it, in one write.
    pos = at;
    error_number = drain_buffer(nullptr, 0);
    p.text = buffer_;
    p.end = buffer_end_;
  } else {
    error_number = drain_buffer(p.text, length);
  }
  p.sent += length;
  if (error_number != 0) fail_call(error_number);
  return p.text;
}

void writer::end_piece(piece& p, char* at) {
  using detail::piece_place;
  if (p.place == piece_place::buffer || p.place == piece_place::buffer_streaming) {
    pos = at;
    accept_text(p.text);
    return;
  }
  // Outside the buffer: into it, or to the file, as a write() would.
  if (at != p.text) append(p.text, static_cast<std::size_t>(at - p.text));
}

piece writer::lend(buffer_borrower& borrower, char* spare, std::size_t spare_size) {
  piece p = begin_piece(spare, spare_size);
  p.place =
      p.place == piece_place::spare ? piece_place::side_streaming : piece_place::buffer_streaming;
  borrower_ = &borrower;
  limit = pos;  // the writer's own calls go out of line, to take_back_and_check()
  return p;
}

void writer::take_back(piece& p, char* at) {
  borrower_ = nullptr;
  end_piece(p, at);
  reopen_hot_path();
}

buffer_state writer::lend_to_cursor() {
  if (lent_to_cursor_) throw_lent_to_cursor();
  if (borrower_ != nullptr) take_back_from_borrower();
  buffer_state space{pos, limit};
  lent_to_cursor_ = true;
  limit = pos;  // the writer's own calls go out of line, and throw EBUSY
  return space;
}

void writer::take_back_from_cursor(char* end) noexcept {
  // A position outside the buffer comes from a cursor that outlived a move
  // of its writer: the writer keeps its own.
  if (end >= buffer_ && end <= buffer_end_) pos = end;
  lent_to_cursor_ = false;
  reopen_hot_path();
}

// The text [text_begin, pos) is the writer's now: on a line-buffered writer,
// everything through its last '\n' goes to the file, as stdio does, and a
// trailing partial line waits in the buffer.
void writer::accept_text(const char* text_begin) {
  if (error_ != 0) {
    drop_text(0);  // write_errors::report after an error
    return;
  }
  if (line_buffered_ && pos != buffer_) {
    const char* last_newline =
        last_newline_in(text_begin, static_cast<std::size_t>(pos - text_begin));
    if (last_newline != nullptr) {
      char* partial_line = buffer_ + (last_newline - buffer_) + 1;
      std::size_t partial_size = static_cast<std::size_t>(pos - partial_line);
      pos = partial_line;
      int error_number = drain_buffer(nullptr, 0, drain_cause::line_moves);
      std::memmove(buffer_, partial_line, partial_size);
      pos = buffer_ + partial_size;
      if (error_number != 0) {
        bytes_drained_ += partial_size;  // accepted, and lost with the rest
        pos = buffer_;
        reopen_hot_path();
        fail_call(error_number);
      }
    }
  }
  reopen_hot_path();
}

// Where a piece larger than the buffer streams through: the buffer itself
// if it holds at least streaming_chunk_size bytes, otherwise an area
// allocated the first time it is asked for. {nullptr, 0} if that allocation
// failed: the piece streams through what it has.
std::pair<char*, std::size_t> writer::streaming_area() noexcept {
  if (buffer_capacity() >= streaming_chunk_size) return {buffer_, buffer_capacity()};
  if (streaming_area_ == nullptr) streaming_area_ = new (std::nothrow) char[streaming_chunk_size];
  if (streaming_area_ == nullptr) return {nullptr, 0};
  return {streaming_area_, streaming_chunk_size};
}

#ifdef FASTOUT_FMT_HAS_WRITER
// ------------------------------------------------------- fmt::writer

void writer_buffer::on_grow(std::size_t wanted) {
  writer& f = *writer_;
  if (data() == nullptr) {
    // Not lent (yet, or since the writer took it back): borrow.
    piece_ = f.lend(*this, spare_, sizeof spare_);
  } else {
    // The borrowed piece streams: what fmt wrote goes to the file with
    // everything before it. If that throws, fmt's view must still match
    // the piece, whose text now starts afresh.
    struct resync {
      writer_buffer& b;
      ~resync() {
        b.set(b.piece_.text, static_cast<std::size_t>(b.piece_.end - b.piece_.text));
        b.clear();
      }
    } after{*this};
    f.grow_piece(piece_, data() + size(), wanted - size());
    return;
  }
  set(piece_.text, static_cast<std::size_t>(piece_.end - piece_.text));
  clear();
}

void writer_buffer::give_back(writer& w) {
  char* at = data() + size();
  set(nullptr, 0);
  clear();
  w.take_back(piece_, at);
}
#endif

// ------------------------------------------------------------- writing

void writer::put_slow(char c) {
  take_back_and_check();
  if (error_ != 0) {  // write_errors::report after an error
    drop_text(1);
    return;
  }
  if (buffer_ == buffer_end_) {  // unbuffered
    if (int error_number = drain_buffer(&c, 1)) fail_call(error_number);
    return;
  }
  if (pos == buffer_end_) {
    if (int error_number = drain_buffer(nullptr, 0)) {
      ++bytes_drained_;  // `c` is accepted (and lost) too: stats() counts a call that threw
      fail_call(error_number);
      return;
    }
  }
  *pos++ = c;
  if (line_buffered_) {
    if (c == '\n') flush_buffer();
    limit = pos;
  }
}

// The fully buffered part of append(): fill what room there is, empty a
// full buffer, and keep the rest; data as large as the buffer bypasses it.
// Returns 0, or the errno of a failure, by which time all `size` bytes are
// counted as accepted.
int writer::append_fully_buffered(const char* data, std::size_t size) noexcept {
  if (size >= buffer_capacity()) return drain_buffer(data, size);
  std::size_t room = static_cast<std::size_t>(buffer_end_ - pos);
  if (size > room) {
    std::memcpy(pos, data, room);
    pos += room;
    data += room;
    size -= room;
    if (int error_number = drain_buffer(nullptr, 0)) {
      bytes_drained_ += size;  // the rest of the call: accepted, and lost
      return error_number;
    }
    // The budget may have given the writer a smaller buffer at the drain.
    if (size >= buffer_capacity()) return drain_buffer(data, size);
  }
  std::memcpy(pos, data, size);
  pos += size;
  return 0;
}

void writer::write_slow(const char* data, std::size_t size) {
  take_back_and_check();
  if (size == 0) return;  // `data` may be null: keep it away from memcpy
  append(data, size);
}

// The `size` bytes at `data` (at least one) are the writer's: into the
// buffer, or to the file, under the buffering rules.
void writer::append(const char* data, std::size_t size) {
  if (error_ != 0) {  // write_errors::report after an error
    drop_text(size);
    return;
  }
  // Unbuffered, there is nothing to hold back: the call goes out whole.
  if (!line_buffered_ || buffer_ == buffer_end_) {
    if (int error_number = append_fully_buffered(data, size)) fail_call(error_number);
    return;
  }
  // As stdio: everything through the last newline goes to the file now; a
  // trailing partial line waits in the buffer.
  if (const char* last_newline = last_newline_in(data, size)) {
    std::size_t through = static_cast<std::size_t>(last_newline - data) + 1;
    std::size_t rest = size - through;
    int error_number = append_fully_buffered(data, through);
    if (error_number == 0) error_number = drain_buffer(nullptr, 0);
    if (error_number != 0) {
      bytes_drained_ += rest;  // the partial line after it: accepted, and lost
      fail_call(error_number);
      return;
    }
    data += through;
    size = rest;
  }
  if (int error_number = append_fully_buffered(data, size)) fail_call(error_number);
  limit = pos;
}

FASTOUT_HOT void writer::flush() {
  if (!open_ && borrower_ == nullptr && !lent_to_cursor_) return;  // closed: nothing pending
  take_back_and_check();
  flush_buffer();
  flush_route();  // decodable up to here
}

// After the buffer went out: everything accepted is made decodable (a
// compressing route waits for its workers and ends a block or frame; a
// plain one has nothing to do).
FASTOUT_HOT void writer::flush_route() {
  if (error_ != 0) return;  // write_errors::report after a failure: nothing more is written
  if (int error_number = route_->flush()) {
    error_ = error_number;
    limit = pos;
    fail_call(error_number);
  }
}

// Flushes and releases everything; returns the errno of the first failure
// (the sticky error, the flush, close(), or a close step), or
// 0. `commit` is false in the destructor, move-assignment and cancel():
// then a replacement is discarded instead of put in place, unflushed.
int writer::flush_and_close(bool commit) noexcept {
  int error_number = error_;
  const bool discarding = route_->provisional() && !commit;
  buffer_from_budget_ = false;  // no resize at the last drain: the buffer goes below
  if (error_number == 0 && !discarding) error_number = drain_buffer(nullptr, 0);
  bytes_drained_ += static_cast<std::size_t>(pos - buffer_);  // lost if the flush failed
  // The rest is the route's: a compressed stream's end, sync, trim, close,
  // put in place, sync the directory, ... -- the descriptor closed whatever
  // fails.
  error_number = route_->finish(error_number, sync_failed_, commit);
  free_buffer();
  open_ = false;
  error_ = error_number;
  return error_number;
}

std::string writer::close_failure_message() const {
  const file_stats s = stats();
  return route_->describe_close_failure(path_, s.bytes_delivered, s.bytes_accepted, sync_failed_);
}

void writer::close() { close_or_report(!reports_errors_); }

void writer::close_checked() { close_or_report(true); }

// close(): its failure is thrown, or (write_errors::report) reported through
// the error handler, as the destructor would.
void writer::close_or_report(bool throw_error) {
  if (!open_) return;
  if (lent_to_cursor_) throw_lent_to_cursor();  // the writer stays open, nothing is lost
  if (!throw_error) {
    close_and_report(true);
    return;
  }
  if (borrower_ != nullptr) {
    try {
      borrower_->give_back(*this);
    } catch (const std::system_error&) {
      // A write error while taking lent text back is the sticky error now:
      // flush_and_close() releases the descriptor and it is thrown below.
    }
  }
  if (int error_number = flush_and_close(true)) {
    throw std::system_error(error_number, detail::error_category(), close_failure_message());
  }
}

void writer::cancel() {
  if (!open_) return;
  if (!route_->provisional())
    throw std::system_error(EINVAL, detail::error_category(),
                            "cannot cancel " + quoted(path_) +
                                ": only a writer opened with open_mode::replace can be canceled, "
                                "and what this one wrote is already in its file");
  if (lent_to_cursor_) throw_lent_to_cursor();
  if (borrower_ != nullptr) {
    try {
      borrower_->give_back(*this);
    } catch (const std::system_error&) {
      // Discarded with the rest.
    }
  }
  const int earlier_error = error_;
  flush_and_close(false);
  // Canceling is not an error; an earlier write error stays readable.
  error_ = earlier_error;
  if (int error_number = route_->abandon_error())
    throw std::system_error(error_number, detail::error_category(), close_failure_message());
}

void writer::sync() {
  take_back_and_check();
  flush_buffer();
  flush_route();
  if (error_ != 0) return;  // write_errors::report: failed, now or before; nothing to sync
  // The data (a replacing route asks for the metadata too: a new file that
  // takes another's place).
  if (int error_number = route_->sync(false)) {
    // Final: the kernel may have dropped the pages it could not write and
    // marked them clean, so a second sync could succeed without them.
    error_ = error_number;
    sync_failed_ = true;
    limit = pos;
    if (reports_errors_) return;
    throw std::system_error(error_, detail::error_category(),
                            failure_message("sync") + ", but may not survive a power loss");
  }
}

// ------------------------------------------------------------- seeking

namespace {
[[noreturn]] void throw_cannot_seek(int error_number, const std::string& path,
                                    const char* why = "") {
  throw std::system_error(error_number, detail::error_category(),
                          "cannot seek in " + quoted(path) + why);
}

// Where the file is, asked of the route once the writer has its descriptor
// (`descriptor`, from writer::descriptor(), which may reopen a released
// file): ESPIPE where it cannot seek, before anything is sent, as fseek()
// on a pipe changes nothing.
std::int64_t file_offset(int descriptor, detail::stage& route, const std::string& path) {
  if (descriptor < 0) throw_cannot_seek(EBADF, path);
  const std::int64_t here = route.seek(0, SEEK_CUR);
  if (here < 0) throw_cannot_seek(static_cast<int>(-here), path);
  return here;
}
}  // namespace

std::int64_t writer::seek(std::int64_t offset, int whence) {
  if (whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END)
    throw_cannot_seek(EINVAL, path_, ": whence is not SEEK_SET, SEEK_CUR or SEEK_END");
  take_back_and_check();
  // write_errors::report: not thrown by the calls, but the position after
  // a failed write is nobody's to know.
  if (error_ != 0) throw_cannot_seek(error_, path_);
  file_offset(descriptor(), *route_, path_);  // whether it can seek at all
  flush_buffer();                             // what is buffered belongs where it was written
  flush_route();
  if (error_ != 0) throw_cannot_seek(error_, path_);
  const std::int64_t position = route_->seek(offset, whence);
  if (position < 0) throw_cannot_seek(static_cast<int>(-position), path_);
  return position;
}

std::int64_t writer::position() {
  take_back_and_check();
  if (error_ != 0) throw_cannot_seek(error_, path_);
  const auto pending = static_cast<std::int64_t>(bytes_pending());
  // A compressed stream's position is the text's: what gztell() says, and
  // the iostream adapter's tellp().
  if (route_->compression().format != compression_format::none)
    return static_cast<std::int64_t>(bytes_drained_) + pending;
  return file_offset(descriptor(), *route_, path_) + pending;
}

void writer::close_and_report(bool commit) noexcept {
  if (borrower_ != nullptr) {
    try {
      borrower_->give_back(*this);
    } catch (const std::system_error&) {
      // The sticky error now; reported below with the rest.
    }
  }
  lent_to_cursor_ = false;  // a cursor that outlives its writer is beyond help
  if (!open_) {
    free_buffer();  // closed, or a constructor that failed to open after taking it
    return;
  }
  if (int error_number = flush_and_close(commit)) {
    error_handler handler = current_error_handler.load();
    if (handler == nullptr) handler = default_error_handler;
    file_stats s = stats();
    error_report report{path_.c_str(), std::error_code(error_number, detail::error_category()),
                        s.bytes_accepted - s.bytes_delivered, false};
    report.sync_failed = sync_failed_;
    route_->complete_report(report, s.bytes_accepted);
    handler(report);
  }
}

}  // namespace detail
}  // namespace fastout
