// SPDX-License-Identifier: MIT
// A stage of the route out (stage_internal.h) that compresses
// (file_options::compression): the first stage of a compressing writer's
// route. The writer's buffers are its engine's (compression_pipeline.cpp):
// drain() hands the full one over and gives the writer the next, and the
// engine's compressed bytes go on to the next stage through write(), so
// counts, errors, messages, write flags (RWF_DONTCACHE) and writeback stay
// one implementation. At close it ends the stream before the next stages
// sync, put in place and close. Internal: not installed.
#ifndef FASTOUT_STAGES_COMPRESSION_STAGE_INTERNAL_H_
#define FASTOUT_STAGES_COMPRESSION_STAGE_INTERNAL_H_

#include <fastout/compression.h>
#include <fastout/options.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <string>

#include "stages/compression_internal.h"
#include "stages/stage_internal.h"

namespace fastout::detail {

class compression_stage final : public stage, public output_sink {
 public:
  // The stage `options` ask for (by_extension resolved with `path`), with
  // the first buffer the writer fills, of `capacity` bytes, in `buffer`; or
  // null, and nothing set, for a writer that does not compress. Throws
  // std::system_error naming the path: a format compiled out (ENOTSUP), a
  // level out of range or no buffer (EINVAL), no memory. The next stage is
  // set later (set_next()): the buffers come before the file is opened.
  // Returned as a plain stage, so that opening (open.cpp) uses nothing of
  // the engine's, not even its destructor: a build with neither codec has
  // no engine, and its make() only refuses (compression_absent.cpp).
  static std::unique_ptr<stage> make(const file_options& options, const std::string& path,
                                     char*& buffer, std::size_t& capacity);

  // The first buffer the writer fills, of capacity() bytes.
  char* buffer() const noexcept { return engine_.buffer(); }
  std::size_t capacity() const noexcept { return engine_.capacity(); }

  // The stage.
  int drain(char*& buffer, std::size_t capacity, std::size_t pending, const char* more,
            std::size_t more_size) noexcept override;
  // A writer of the shared pool whose buffer the budget sized grows it when
  // busy (x4, up to 256 KiB) and gives it back, to one unit of its format,
  // under pressure, as a plain writer's buffer does.
  void fit_buffer(char*& buffer, std::size_t& capacity, std::size_t drained, bool filled,
                  bool tail_moves) noexcept override;
  int write(struct iovec* iov, int count) noexcept override { return next_->write(iov, count); }
  int flush() noexcept override;
  int finish(int error_number, bool error_from_sync, bool commit) noexcept override;
  // A stream of compressed frames cannot be patched: as a pipe, ESPIPE.
  std::int64_t seek(std::int64_t, int) noexcept override { return -ESPIPE; }
  route_counts counts() const noexcept override;
  bool interactive() const noexcept override { return false; }
  compression_options compression() const noexcept override { return options_; }
  std::string describe_failure(const char* action, const std::string& path,
                               std::uint64_t accepted) const override;
  std::string describe_close_failure(const std::string& path, std::uint64_t delivered,
                                     std::uint64_t accepted, bool sync_failed) const override;

  // output_sink: the engine's compressed bytes, on to the next stage.
  int write(struct iovec* iov, int count, std::uint64_t& written) noexcept override;

 private:
  compression_stage(const compression_options& chosen, std::size_t buffer_bytes,
                    std::size_t budget_unit, const std::string& path);
  int failed(char*& buffer, char* failing) noexcept;
  std::string message(const char* action, const std::string& path, std::uint64_t accepted) const;
  std::string compressed_counts() const;

  compression_options options_;  // resolved: by_extension settled
  compressed_output engine_;
  // The smallest buffer of a writer the budget sizes: one unit its format
  // compresses apart; 0 for a writer whose size is the program's or whose
  // workers are its own (kept as it is).
  std::size_t budget_unit_ = 0;
  std::uint64_t drained_mark_ = 0;  // the process's drained bytes at its last drain
  bool write_failed_ = false;       // the engine's failure was the next stage's write
  bool engine_failed_ = false;      // the engine itself failed (compressor, memory, fork)
};

}  // namespace fastout::detail

#endif  // FASTOUT_STAGES_COMPRESSION_STAGE_INTERNAL_H_
