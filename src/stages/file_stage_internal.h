// SPDX-License-Identifier: MIT
// The last stage of every route out (stage_internal.h): the platform's file.
// It writes with the platform's write loop (write_all: the per-call cap,
// short writes, EINTR, EAGAIN, RWF_DONTCACHE while the system takes it),
// counts what reached the file, syncs, and closes the descriptor it owns.
// Internal: not installed.
#ifndef FASTOUT_STAGES_FILE_STAGE_INTERNAL_H_
#define FASTOUT_STAGES_FILE_STAGE_INTERNAL_H_

#include <memory>
#include <string>

#include "platform/platform_internal.h"
#include "stages/stage_internal.h"

namespace fastout::detail {

class file_stage final : public stage {
 public:
  // Writes to `fd`, and closes it in finish() if `owns_fd`. `uncached`:
  // page_cache::drop asked for.
  file_stage(int fd, bool owns_fd, bool uncached) noexcept
      : stage(nullptr), fd_(fd), owns_fd_(owns_fd), uncached_(uncached) {}
  // The descriptor, for a stage made before the file was opened (so that
  // nothing can fail between opening it and handing it over).
  void set_descriptor(int fd) noexcept { fd_ = fd; }
  // Closes an owned descriptor that finish() never closed (a writer whose
  // opening failed after the descriptor was had), quietly.
  ~file_stage() override;

  int drain(char*& buffer, std::size_t capacity, std::size_t pending, const char* more,
            std::size_t more_size) noexcept override;
  int write(struct iovec* iov, int count) noexcept override;
  int flush() noexcept override { return 0; }
  int sync(bool metadata) noexcept override;
  int finish(int error_number, bool error_from_sync, bool commit) noexcept override;
  std::int64_t seek(std::int64_t offset, int whence) noexcept override;

  route_counts counts() const noexcept override;
  int descriptor() const noexcept override { return fd_; }
  bool interactive() const noexcept override;
  bool drops_page_cache() const noexcept override { return uncached_; }
  compression_options compression() const noexcept override;
  bool provisional() const noexcept override { return false; }
  std::string describe_failure(const char* action, const std::string& path,
                               std::uint64_t accepted) const override;
  std::string describe_close_failure(const std::string& path, std::uint64_t delivered,
                                     std::uint64_t accepted, bool sync_failed) const override;
  bool describes_close() const noexcept override { return false; }
  void complete_report(error_report& report, std::uint64_t accepted) const noexcept override;
  int abandon_error() const noexcept override { return 0; }
  bool failed_in_writeback() const noexcept override { return false; }

 private:
  int fd_;
  bool owns_fd_;
  bool uncached_;
  bool closing_failed_ = false;  // close() itself failed
  write_counts counts_;
};

}  // namespace fastout::detail

#endif  // FASTOUT_STAGES_FILE_STAGE_INTERNAL_H_
