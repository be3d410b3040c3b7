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

// The smallest buffer of a writer of the shared pool whose size the
// program did not choose: one unit its format compresses apart -- a BGZF
// block's 0xff00 bytes, a zstd frame of 64 KiB -- since a smaller buffer
// would cut the stream into smaller blocks, which compress worse. 0 for a
// writer that keeps the size it opens with: chosen by the program, or with
// workers of its own (as many buffers as its workers need).
std::size_t budget_unit_for(const file_options& options, const compression_options& chosen) {
  if (options.buffer_size != default_buffer_size || options.buffer_size_exact ||
      chosen.workers != shared_compression_pool)
    return 0;
  return chosen.format == compression_format::gzip ? bgzf_block_input : std::size_t{64} << 10;
}

// Its buffer at open: sized by the budget as a plain writer's is
// (writer::allocate_buffer()), but never below the unit; it then grows and
// gives back at drains (fit_buffer()).
std::size_t buffer_bytes_for(const file_options& options, std::size_t unit) {
  return unit == 0 ? options.buffer_size : opening_buffer_size(unit);
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
                                     std::size_t budget_unit, const std::string& path)
    : stage(nullptr),
      options_(chosen),
      engine_(settings_for(chosen, buffer_bytes, path), *this),
      budget_unit_(budget_unit),
      drained_mark_(count_drained(0)) {}

std::unique_ptr<stage> compression_stage::make(const file_options& options, const std::string& path,
                                               char*& buffer, std::size_t& capacity) {
  const compression_options chosen = resolve_compression(options.compression, path);
  if (chosen.format == compression_format::none) return nullptr;
  const std::size_t unit = budget_unit_for(options, chosen);
  std::unique_ptr<compression_stage> made(
      new (std::nothrow) compression_stage(chosen, buffer_bytes_for(options, unit), unit, path));
  if (made == nullptr)
    throw std::system_error(ENOMEM, detail::error_category(),
                            "cannot allocate the compressor for " + quoted(path));
  buffer = made->buffer();
  capacity = made->capacity();
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

void compression_stage::fit_buffer(char*& buffer, std::size_t& capacity, std::size_t drained,
                                   bool filled, bool tail_moves) noexcept {
  // The buffer the writer had may be the one it now has (compressed at
  // once and handed back): nothing may replace it while a tail moves.
  if (budget_unit_ == 0 || tail_moves) return;
  std::size_t size = capacity;
  switch (fit_at_drain(drained_mark_, drained, filled, capacity, budget_unit_)) {
    case buffer_fit::keep: return;
    case buffer_fit::grow:
      // Whole units: a BGZF writer's buffer holds whole blocks (4 of
      // them, 261,120 bytes, at most), or its last block would be a small one.
      size = std::min(capacity * growth_factor, largest_buffer / budget_unit_ * budget_unit_);
      if (size <= capacity) return;
      break;
    case buffer_fit::give_back: size = budget_unit_; break;
  }
  if (char* resized = engine_.resize_buffer(buffer, size)) {
    buffer = resized;
    capacity = size;
  }
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
