// SPDX-License-Identifier: MIT
// What a writer says about what it wrote and what it lost: its counters
// (file_stats, from file::stats()), the report of a writer destroyed
// without close() that could not write everything (error_report), and the
// process-wide error handler that receives that report.
//
//   std::atomic<std::uint64_t> bytes_lost{0};
//   void count_losses(const fastout::error_report& report) noexcept {
//     bytes_lost += report.bytes_lost;
//     fastout::default_error_handler(report);  // and the usual line on stderr
//   }
//   fastout::set_error_handler(count_losses);
//
// <fastout/file.h> includes this header; on its own it brings no writer and
// no {fmt}. How a write error reaches the calls themselves (thrown, or
// reported) is an option: write_errors, in <fastout/options.h>.
#ifndef FASTOUT_ERRORS_H_
#define FASTOUT_ERRORS_H_

// One clear error before C++17, instead of pages of them: the rest of the
// header is skipped.
#if __cplusplus < 201703L
#  error "fastout's C++ API needs C++17 or later: compile with -std=c++17 (or newer)"
#else

#  include <cstddef>
#  include <cstdint>
#  include <system_error>

#  include <fastout/config.h>

namespace fastout {

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
  /// The size of the writer's buffer now (0: unbuffered or closed). A
  /// buffer the buffer budget sizes (<fastout/budget.h>) changes as the
  /// writer's output does.
  std::size_t buffer_size = 0;
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

}  // namespace fastout

#endif  // C++17
#endif  // FASTOUT_ERRORS_H_
