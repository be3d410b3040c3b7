// SPDX-License-Identifier: MIT
// The compressing stage of a writer's route out (compression_stage_internal.h).
#include "stages/compression_stage_internal.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <string>
#include <system_error>

#include "memory/buffer_budget_internal.h"
#include "stages/messages_internal.h"

namespace fastout::detail {
namespace {

// The buffer a writer of the shared pool fills when the program did not
// choose its size: sized by the budget as a plain writer's is at open
// (writer::allocate_buffer()), but never below one unit its format
// compresses apart -- a BGZF block's 0xff00 bytes, a zstd frame of 64 KiB --
// since a smaller buffer would cut the stream into smaller blocks, which
// compress worse. It keeps that size: its buffers are the engine's, which
// never resizes them. A writer with workers of its own keeps today's
// buffers, as many as its workers need.
std::size_t buffer_bytes_for(const file_options& options, const compression_options& chosen) {
  if (options.buffer_size != default_buffer_size || options.buffer_size_exact ||
      chosen.workers != shared_compression_pool)
    return options.buffer_size;
  const std::size_t smallest =
      chosen.format == compression_format::gzip ? bgzf_block_input : std::size_t{64} << 10;
  return opening_buffer_size(smallest);
}

compression_settings settings_for(const compression_options& chosen, std::size_t buffer_bytes,
                                  const std::string& path) {
  compression_settings s;
  s.format = chosen.format;
  s.level = chosen.level;
  s.workers = chosen.workers;
  s.buffer_size = buffer_bytes;
  s.name = path;
  return s;
}

}  // namespace

compression_stage::compression_stage(const compression_options& chosen, std::size_t buffer_bytes,
                                     const std::string& path)
    : stage(nullptr), options_(chosen), engine_(settings_for(chosen, buffer_bytes, path), *this) {}

std::unique_ptr<compression_stage> compression_stage::make(const file_options& options,
                                                           const std::string& path) {
  const compression_options chosen = resolve_compression(options.compression, path);
  if (chosen.format == compression_format::none) return nullptr;
  std::unique_ptr<compression_stage> made(
      new (std::nothrow) compression_stage(chosen, buffer_bytes_for(options, chosen), path));
  if (made == nullptr)
    throw std::system_error(ENOMEM, detail::error_category(),
                            "cannot allocate the compressor for " + quoted(path));
  return made;
}

// The engine failed while `failing` was the buffer being handed over (or
// filled): its error, unless the next stage's write failed first (then the
// error is that write's). The workers are joined at once, so that `failing`
// stays the writer's buffer: a write_errors::report writer still moves text
// into it (and drops it), and no worker may be reading it then.
int compression_stage::failed(char*& buffer, char* failing) noexcept {
  int error_number = engine_.error();
  if (error_number == 0) error_number = EIO;  // cannot happen: the engine fails with an errno
  if (!write_failed_) engine_failed_ = true;
  engine_.stop_after_failure();
  buffer = failing;
  return error_number;
}

// The buffer's `pending` bytes, then `more_size` bytes at `more` copied into
// the engine's buffers, each handed over when full, and what is left handed
// over too, so that the writer's buffer is empty afterwards as drain()
// promises.
int compression_stage::drain(char*& buffer, std::size_t capacity, std::size_t pending,
                             const char* more, std::size_t more_size) noexcept {
  std::size_t filled = pending;
  while (more_size > 0) {
    const std::size_t piece = std::min(capacity - filled, more_size);
    std::memcpy(buffer + filled, more, piece);
    filled += piece;
    more += piece;
    more_size -= piece;
    if (filled == capacity) {
      char* next = engine_.hand_over(buffer, filled);
      if (next == nullptr) return failed(buffer, buffer);
      buffer = next;
      filled = 0;
    }
  }
  if (filled > 0) {
    char* next = engine_.hand_over(buffer, filled);
    if (next == nullptr) return failed(buffer, buffer);
    buffer = next;
  }
  return 0;
}

// flush() and sync(): everything accepted is made decodable (the engine
// waits for its workers and ends a block or frame).
int compression_stage::flush() noexcept {
  if (engine_.flush() == 0) return 0;
  char* ignored = nullptr;
  return failed(ignored, nullptr);
}

// The end of the stream, then the next stages'.
int compression_stage::finish(int error_number, bool error_from_sync, bool commit) noexcept {
  if (error_number != 0 || (next_->provisional() && !commit) || engine_.in_child()) {
    // Nothing more is written after an error, nor into content that is
    // being discarded: the workers are joined, the buffers freed. A child
    // of fork() that gets here without an error handed nothing over (it
    // would have failed with EPERM): the stream is the parent's to end, and
    // nothing of the child's was lost.
    engine_.abandon();
  } else if (int failure = engine_.finish()) {
    error_number = failure;
    if (!write_failed_) engine_failed_ = true;
  }
  return next_->finish(error_number, error_from_sync, commit);
}

route_counts compression_stage::counts() const noexcept {
  route_counts counts = next_->counts();
  counts.bytes_delivered = engine_.stats().bytes_delivered;
  return counts;
}

int compression_stage::write(struct iovec* iov, int count, std::uint64_t& written) noexcept {
  const std::uint64_t before = next_->counts().bytes_written;
  const int error_number = next_->write(iov, count);
  written += next_->counts().bytes_written - before;
  if (error_number != 0) write_failed_ = true;
  return error_number;
}

// " (N zstd-compressed bytes reached the file)", for the next stages'
// messages.
std::string compression_stage::compressed_counts() const {
  return " (" + std::to_string(next_->counts().bytes_written) + " " + format_name(options_.format) +
         "-compressed bytes reached the file)";
}

std::string compression_stage::message(const char* action, const std::string& path,
                                       std::uint64_t accepted) const {
  std::string text = "cannot " + std::string(action) + " " + quoted(path);
  if (engine_failed_) text += ": " + engine_.describe_failure();
  return text + " (" + std::to_string(engine_.stats().bytes_delivered) + " of " +
         std::to_string(accepted) + " bytes reached the file, as " +
         std::to_string(next_->counts().bytes_written) + " bytes of " +
         format_name(options_.format) + ")";
}

std::string compression_stage::describe_failure(const char* action, const std::string& path,
                                                std::uint64_t accepted) const {
  return message(action, path, accepted);
}

std::string compression_stage::describe_close_failure(const std::string& path,
                                                      std::uint64_t delivered,
                                                      std::uint64_t accepted,
                                                      bool sync_failed) const {
  // A replacement's own message says what became of the target.
  if (!engine_failed_ && next_->describes_close())
    return next_->describe_close_failure(path, delivered, accepted, sync_failed) +
           compressed_counts();
  error_report report{path.c_str(), {}, 0, false};
  next_->complete_report(report, accepted);
  return message(report.close_failed ? "close" : "write to", path, accepted);
}

}  // namespace fastout::detail
