// SPDX-License-Identifier: MIT
// The route out of a writer's buffer: a chain of stages that the writer
// (src/writer/file.cpp) hands a full buffer, a flush, a sync and its close
// to, and of which it knows nothing else. Opening (src/open/open.cpp) is the
// one place that assembles a route, from the outside in:
//
//   [compression_stage]        the buffers are its engine's; compressed
//                              bytes go on through write()
//   [sync_and_replace_stage]   writeback while writing; at close, sync,
//                              release preallocation, put a replacement in
//                              place, sync the directory
//   file_stage                 the platform's file: the write loop, the
//                              counts, closing the descriptor
//
// Each stage holds the next and owns it; the writer holds the first. A
// stage does what it is for and hands everything else on: the defaults
// below forward to the next stage, and the last one (file_stage) answers
// them all. Nothing is virtual per byte or per call: a writer's hot path
// never reaches a stage, and a drain is one call per full buffer.
// Internal: not installed.
#ifndef FASTOUT_STAGES_STAGE_INTERNAL_H_
#define FASTOUT_STAGES_STAGE_INTERNAL_H_

#include <fastout/compression.h>
#include <fastout/errors.h>

#include <cstddef>
#include <cstdint>
#include <string>

struct iovec;

namespace fastout::detail {

// What reached the file, as file_stats counts it.
struct route_counts {
  std::uint64_t bytes_written = 0;    // bytes the system reported as written (compressed ones)
  std::uint64_t write_calls = 0;      // write system calls made
  std::uint64_t bytes_delivered = 0;  // of the writer's bytes, those whose form reached the file
};

class stage {
 public:
  virtual ~stage();
  stage(const stage&) = delete;
  stage& operator=(const stage&) = delete;

  // ------------------------------------------------------------ the route

  // The writer's buffer goes out: its first `pending` bytes at `buffer`,
  // then `more_size` bytes at `more` (none is fine; never inside the
  // buffer), after which the buffer, of `capacity` bytes, is empty. A stage
  // whose buffers the writer fills (compression_stage) gives it the next
  // one in `buffer`, of the same capacity. Returns 0, or the errno that
  // stopped it: the writer's sticky error from then on. The default sends
  // both with write().
  //
  // What the writer may still read of the buffer it handed over: when
  // `more_size` was 0, the bytes after the first `pending`, up to
  // `capacity`, until its next drain() (a flush() may come first: a
  // line-buffered writer's drain_buffer() flushes the route before). They
  // are the start of a piece of text or of a partial line whose text before
  // went out (writer::grow_piece(), accept_text()), which the writer then
  // moves to the front of the buffer it now has. It never writes to the old
  // buffer (unless drain() gave that one back), never reads its first
  // `pending` bytes again, and reads nothing of it after a drain with
  // `more`. So a stage that keeps the buffer may
  // read its first `pending` bytes on other threads meanwhile (compression's
  // workers do), but nothing may write to any byte of it, nor give it to the
  // writer as a new buffer, before the writer's next drain(); it may give
  // the same buffer back at once only when it is done with those bytes (the
  // writer's move then overlaps, as memmove allows). After a failure,
  // `buffer` is one that nothing else reads any more: a writer with
  // write_errors::report goes on moving text into it, and dropping it.
  virtual int drain(char*& buffer, std::size_t capacity, std::size_t pending, const char* more,
                    std::size_t more_size) noexcept;
  // After a drain() that succeeded, for a stage whose buffers the writer
  // fills: the buffer budget's rules (memory/buffer_budget_internal.h) at
  // a drain of `drained` bytes (`filled`: the buffer was full), which may
  // give the writer, in `buffer` and `capacity`, an empty buffer of another
  // size. Never when the writer moves a tail into its new buffer
  // (`tail_moves`): the one it had must stay as it is until then. The
  // default keeps the buffer.
  virtual void fit_buffer(char*& /*buffer*/, std::size_t& /*capacity*/, std::size_t /*drained*/,
                          bool /*filled*/, bool /*tail_moves*/) noexcept {}
  // Bytes on their way to the file: every byte of iov[0..count), which it
  // may change, short writes continued. 0, or the errno that stopped it.
  virtual int write(struct iovec* iov, int count) noexcept;
  // After the writer's buffer went out: makes what went through decodable
  // (a compressed stream's block or frame ends). 0, or an errno.
  virtual int flush() noexcept;
  // After flush(): makes the file's data durable (fdatasync), or with
  // `metadata` everything about it (fsync). 0, or an errno: final, as a
  // failed sync is.
  virtual int sync(bool metadata) noexcept;
  // Everything close() does after the last drain: `error_number` is that
  // drain's, or the writer's sticky error, or 0; `error_from_sync` says the
  // sticky error came from sync() or writeback. Closes the descriptor if
  // the route owns it, whatever fails. `commit` is false when the writer is
  // abandoned (destroyed or moved over without close(), or cancel()).
  // Returns the errno of the first failure, the given one included, or 0;
  // ECANCELED when provisional content was abandoned without another
  // failure.
  virtual int finish(int error_number, bool error_from_sync, bool commit) noexcept;
  // After the writer's buffer went out (or, with offset 0 and SEEK_CUR, to
  // ask where the file is): moves the file position as lseek() does,
  // `whence` SEEK_SET, SEEK_CUR or SEEK_END. Returns the new position, or
  // the negated errno: ESPIPE where the output cannot seek (a pipe, a
  // terminal, a compressed stream), EINVAL for a position before the start,
  // EOVERFLOW for one the system's offsets cannot hold. The C API's
  // fastout_fseek() and fastout_ftell().
  virtual std::int64_t seek(std::int64_t offset, int whence) noexcept;

  // ------------------------------------------------------ what it answers

  // What reached the file.
  virtual route_counts counts() const noexcept;
  // The descriptor written to; -1 once closed.
  virtual int descriptor() const noexcept;
  // Whether the file is a terminal, which a writer with buffering::automatic
  // line-buffers as stdio does; a compressed stream never is.
  virtual bool interactive() const noexcept;
  // Whether writes still leave the page cache behind (page_cache::drop).
  virtual bool drops_page_cache() const noexcept;
  // How the route compresses (format none for a plain one).
  virtual compression_options compression() const noexcept;
  // Whether what goes out is provisional until close() commits it
  // (open_mode::replace): then abandoning discards it unflushed, and
  // cancel() is allowed.
  virtual bool provisional() const noexcept;
  // The message for a write or sync that failed: "cannot <action> "path"
  // (...)", saying what reached the file of `accepted` bytes; the cause is
  // appended by std::system_error.
  virtual std::string describe_failure(const char* action, const std::string& path,
                                       std::uint64_t accepted) const;
  // The message for the failure finish() returned, naming `path` and saying
  // what reached the file: `delivered` of `accepted` bytes of the writer's.
  // `sync_failed`: the writer's sticky error came from sync().
  virtual std::string describe_close_failure(const std::string& path, std::uint64_t delivered,
                                             std::uint64_t accepted, bool sync_failed) const;
  // Whether describe_close_failure() says more than which call failed (a
  // replacement does: what became of the target), so that a stage above
  // uses its message rather than its own.
  virtual bool describes_close() const noexcept;
  // Completes the error handler's report of finish()'s failure: which step
  // failed (close_failed, sync_failed) and what became of the content
  // (not_replaced; bytes_lost, given `accepted`).
  virtual void complete_report(error_report& report, std::uint64_t accepted) const noexcept;
  // After finish() abandoned provisional content: the errno if it could not
  // be removed (cancel() throws it, with describe_close_failure()), else 0.
  virtual int abandon_error() const noexcept;
  // Whether the failure the last drain() or write() returned came from
  // writing the file's data back to the disk (a durable writer's writeback
  // while writing): final, as a failed sync is, and reported as one.
  virtual bool failed_in_writeback() const noexcept;

  // For opening, which assembles a route from the last stage up: the stage
  // after this one, which it owns from then on.
  void set_next(stage* next) noexcept { next_ = next; }

 protected:
  explicit stage(stage* next) noexcept : next_(next) {}
  stage* next_;  // owned; null only in the last stage
};

}  // namespace fastout::detail

#endif  // FASTOUT_STAGES_STAGE_INTERNAL_H_
