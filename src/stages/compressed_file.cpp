// SPDX-License-Identifier: MIT
// A writer that compresses (file_options::compression): the far end of the
// writer's one route out of the buffer. The writer's buffer is one of the
// engine's (src/stages/compression_pipeline.cpp); drain_buffer() hands it over and
// takes the next, and the engine's compressed bytes come back through the
// writer's own write_to_file(), so counts, errors, messages, write flags
// (RWF_DONTCACHE) and signals stay one implementation. At close the room
// ends the stream before the steps it wraps (a replacement's sync and
// rename, or just closing the descriptor) run.
#include <fastout/file.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <string>
#include <system_error>


#include "stages/close_steps_internal.h"
#include "stages/compression_internal.h"
#include "platform/platform_internal.h"

namespace fastout {
namespace {

std::string quoted(const std::string& path) { return "\"" + path + "\""; }

}  // namespace

struct file::compression_room final : detail::close_steps, detail::output_sink {
  compression_room(file& writer, const compression_options& chosen, std::size_t buffer_bytes)
      : writer_(&writer), options_(chosen), engine_(settings(chosen, buffer_bytes, writer.path_), *this) {}
  ~compression_room() override { delete inner_; }

  static detail::compression_settings settings(const compression_options& chosen,
                                               std::size_t buffer_bytes, const std::string& path) {
    detail::compression_settings s;
    s.format = chosen.format;
    s.level = chosen.level;
    s.workers = chosen.workers;
    s.buffer_size = buffer_bytes;
    s.name = path;
    return s;
  }

  // output_sink: the engine's compressed bytes, through the writer's route.
  int write(struct iovec* iov, int count, std::uint64_t& written) noexcept override {
    const std::uint64_t before = writer_->bytes_written_;
    const int error_number = writer_->write_to_file(iov, count);
    written += writer_->bytes_written_ - before;
    return error_number;
  }

  // close_steps: the end of the stream, then the steps this room wraps.
  int finish(int fd, bool owns_fd, int error_number, bool error_from_sync,
             bool commit) noexcept override {
    file& w = *writer_;
    if (error_number != 0 || (provisional() && !commit) || engine_.in_child()) {
      // Nothing more is written after an error, nor into content that is
      // being discarded: the workers are joined, the buffers freed. A
      // child of fork() that gets here without an error handed nothing
      // over (it would have failed with EPERM): the stream is the parent's
      // to end, and nothing of the child's was lost.
      engine_.abandon();
    } else if (int failed = engine_.finish()) {
      error_number = failed;
      if (w.error_ == 0) engine_failed_ = true;  // a write's failure is the writer's own
      w.error_ = failed;
    }
    if (inner_ != nullptr) return inner_->finish(fd, owns_fd, error_number, error_from_sync, commit);
    if (owns_fd && detail::platform.close(fd) != 0 && errno != EINTR && error_number == 0) {
      error_number = errno;  // as the writer closes a plain file: never retried
      w.closing_failed_ = true;
    }
    return error_number;
  }
  // The compressed bytes reached the file: a durable writer's steps start
  // writing them back (the wrapped steps do; this room adds nothing).
  int reached_file(int fd, std::size_t size) noexcept override {
    return inner_ != nullptr ? inner_->reached_file(fd, size) : 0;
  }
  bool provisional() const noexcept override { return inner_ != nullptr && inner_->provisional(); }
  bool sync_needs_metadata() const noexcept override {
    return inner_ != nullptr && inner_->sync_needs_metadata();
  }
  std::string describe_failure(const std::string& path, std::uint64_t,
                               std::uint64_t accepted) const override {
    if (inner_ != nullptr && !engine_failed_)
      return inner_->describe_failure(path, engine_.stats().bytes_delivered, accepted) +
             compressed_counts();
    return writer_->compression_failure_message(writer_->closing_failed_ ? "close" : "write to");
  }
  void complete_report(error_report& report, std::uint64_t accepted) const noexcept override {
    if (inner_ != nullptr) inner_->complete_report(report, accepted);
  }
  int abandon_error() const noexcept override {
    return inner_ != nullptr ? inner_->abandon_error() : 0;
  }

  // " (N compressed bytes reached the file)", for the wrapped steps' messages.
  std::string compressed_counts() const {
    return " (" + std::to_string(writer_->bytes_written_) + " " + format_name(options_.format) +
           "-compressed bytes reached the file)";
  }

  file* writer_;  // the writer that holds this room: swap() keeps it right
  compression_options options_;  // resolved: by_extension settled
  detail::compressed_output engine_;
  detail::close_steps* inner_ = nullptr;  // owned: sync, replacement, preallocation
  bool engine_failed_ = false;  // the sticky error is the engine's (compressor, memory, fork)
};

file::compression_room& file::compressing() const noexcept {
  return *static_cast<compression_room*>(compression_);
}

bool file::open_compression(const file_options& options) {
  const compression_options chosen = resolve_compression(options.compression, path_);
  if (chosen.format == compression_format::none) return false;
  // Throws std::system_error naming the path: a format compiled out
  // (ENOTSUP), a level out of range or no buffer (EINVAL), no memory.
  auto* made = new (std::nothrow) compression_room(*this, chosen, options.buffer_size);
  if (made == nullptr)
    throw std::system_error(ENOMEM, detail::error_category(),
                            "cannot allocate the compressor for " + quoted(path_));
  made->inner_ = close_steps_;  // steps made before this one (a descriptor's)
  close_steps_ = made;
  compression_ = made;
  buffer_ = made->engine_.buffer();
  buffer_end_ = buffer_ + made->engine_.capacity();
  pos = limit = buffer_;
  return true;
}

void file::add_close_steps(detail::close_steps* steps) noexcept {
  if (compression_ != nullptr) {
    compressing().inner_ = steps;  // the stream ends before they run
  } else {
    close_steps_ = steps;
  }
}

void file::rebind_compression() noexcept {
  if (compression_ != nullptr) compressing().writer_ = this;
}

compression_options file::compression() const noexcept {
  if (compression_ != nullptr) return compressing().options_;
  compression_options none;
  none.workers = 0;
  return none;
}

std::uint64_t file::compressed_bytes_delivered() const noexcept {
  return compressing().engine_.stats().bytes_delivered;
}

std::string file::compression_failure_message(const char* action) const {
  const compression_room& r = compressing();
  std::string message = "cannot " + std::string(action) + " " + quoted(path_);
  if (r.engine_failed_) message += ": " + r.engine_.describe_failure();
  file_stats s = stats();
  return message + " (" + std::to_string(s.bytes_delivered) + " of " +
         std::to_string(s.bytes_accepted) + " bytes reached the file, as " +
         std::to_string(s.bytes_written) + " bytes of " + format_name(r.options_.format) +
         ")";
}

// The engine failed while `buffer` was the one being handed over (or
// filled): its error becomes the writer's sticky error, unless the writer
// already has it (a write of compressed bytes failed in write_to_file()).
// The workers are joined at once, so that `buffer` stays the writer's
// buffer: a write_errors::report writer still moves text into it (and
// drops it), and no worker may be reading it then.
int file::compression_failed(char* buffer) noexcept {
  compression_room& r = compressing();
  if (error_ == 0) {
    error_ = r.engine_.error();
    if (error_ == 0) error_ = EIO;  // cannot happen: the engine fails with an errno
    r.engine_failed_ = true;
  }
  r.engine_.stop_after_failure();
  buffer_ = buffer;
  buffer_end_ = buffer + r.engine_.capacity();
  pos = buffer_;
  reopen_hot_path();
  return error_;
}

// drain_buffer() for a writer that compresses: the buffer's `pending` bytes,
// then `more_size` bytes at `more` copied into the engine's buffers, each
// handed over when full, and what is left handed over too, so that the
// buffer is empty afterwards as drain_buffer() promises. A line-buffered
// writer flushes the engine too, so that each line is decodable at once.
int file::drain_compressed(std::size_t pending, const char* more,
                           std::size_t more_size) noexcept {
  detail::compressed_output& engine = compressing().engine_;
  const std::size_t capacity = engine.capacity();
  char* buffer = buffer_;
  std::size_t filled = pending;
  while (more_size > 0) {
    const std::size_t piece = std::min(capacity - filled, more_size);
    std::memcpy(buffer + filled, more, piece);
    filled += piece;
    more += piece;
    more_size -= piece;
    if (filled == capacity) {
      char* next = engine.hand_over(buffer, filled);
      if (next == nullptr) return compression_failed(buffer);
      buffer = next;
      filled = 0;
    }
  }
  if (filled > 0) {
    char* next = engine.hand_over(buffer, filled);
    if (next == nullptr) return compression_failed(buffer);
    buffer = next;
  }
  buffer_ = buffer;
  buffer_end_ = buffer + capacity;
  pos = buffer_;
  reopen_hot_path();
  if (line_buffered_ && engine.flush() != 0) return compression_failed(buffer_);
  return 0;
}

// flush() and sync(): after the buffer went out, everything accepted is made
// decodable (the engine waits for its workers and ends a block or frame).
void file::flush_compressed() {
  if (error_ != 0) return;  // write_errors::report after a failure: nothing more is written
  if (compressing().engine_.flush() != 0) fail_call(compression_failed(buffer_));
}

}  // namespace fastout
