// SPDX-License-Identifier: MIT
// The writer's plug-in point for what close() does beyond flushing and
// closing the descriptor: syncing, releasing preallocated space and putting
// a replacement in place (src/stages/replace.cpp), and next a compressed stream's
// end. The writer (src/writer/file.cpp) holds one close_steps, or none for a plain
// writer, and knows nothing of what the steps are. Internal: not installed.
#ifndef FASTOUT_CLOSE_STEPS_INTERNAL_H_
#define FASTOUT_CLOSE_STEPS_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace fastout {
struct error_report;  // <fastout/file.h>
}

namespace fastout::detail {

// The writer calls these in this order when it is closed, destroyed or
// moved over: it takes lent space back, sends what it buffers (unless the
// content is provisional and not committed), then calls finish(), which
// does the rest -- the writer no longer closes the descriptor itself -- and
// frees the buffer. Steps that must run before others (a compressed
// stream's end before the file is synced and closed) hold those others and
// call their finish() after their own: the writer holds the outermost.
class close_steps {
 public:
  virtual ~close_steps() = default;

  // Everything close() does after the last flush: `error_number` is that
  // flush's, or the writer's sticky error, or 0; `error_from_sync` says the
  // sticky error came from sync(). Closes `fd` if `owns_fd`, whatever
  // fails. `commit` is false when the writer is abandoned (destroyed or
  // moved over without close(), or cancel()). Returns the errno of the
  // first failure, the given one included, or 0; ECANCELED when
  // provisional content was abandoned without another failure.
  virtual int finish(int fd, bool owns_fd, int error_number, bool error_from_sync,
                     bool commit) noexcept = 0;

  // Called each time `size` more bytes reached the file through `fd`, by
  // the one place that writes to it: a durable writer starts writing them
  // back to the disk here while its caller goes on (src/stages/replace.cpp).
  // Returns 0, or the errno of a writeback that failed, which is final, as
  // a failed sync is: the writer keeps it and close() does not sync again.
  virtual int reached_file(int fd, std::size_t size) noexcept = 0;

  // Whether what the writer sends is provisional until close() commits it:
  // then abandoning discards it unflushed, and cancel() is allowed.
  virtual bool provisional() const noexcept = 0;
  // Whether sync() must make the file's metadata durable too (fsync rather
  // than fdatasync): a new file that takes another's place.
  virtual bool sync_needs_metadata() const noexcept = 0;

  // The message for the failure finish() returned, naming `path` and saying
  // what reached the file; std::system_error appends the cause.
  virtual std::string describe_failure(const std::string& path, std::uint64_t written,
                                       std::uint64_t accepted) const = 0;
  // Completes the error handler's report of that failure: which step failed
  // (close_failed, sync_failed) and what became of the content
  // (not_replaced; bytes_lost, given `accepted`).
  virtual void complete_report(error_report& report, std::uint64_t accepted) const noexcept = 0;
  // After finish() abandoned provisional content: the errno if it could not
  // be removed (cancel() throws it, with describe_failure()), else 0.
  virtual int abandon_error() const noexcept = 0;
};

}  // namespace fastout::detail

#endif  // FASTOUT_CLOSE_STEPS_INTERNAL_H_
