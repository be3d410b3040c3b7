// SPDX-License-Identifier: MIT
// The last stage of every route out (stage_internal.h): the platform's file.
// It writes with the platform's write loop (write_all: the per-call cap,
// short writes, EINTR, EAGAIN, RWF_DONTCACHE while the system takes it),
// counts what reached the file, syncs, and closes the descriptor it owns.
// Beyond the descriptor limit, the stage of a writer that opened a regular
// file by path may give its descriptor up and reopen the file later
// (descriptors_internal.h).
// Internal: not installed.
#ifndef FASTOUT_STAGES_FILE_STAGE_INTERNAL_H_
#define FASTOUT_STAGES_FILE_STAGE_INTERNAL_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "platform/platform_internal.h"
#include "stages/stage_internal.h"

namespace fastout::detail {

// A releasable stage's lock (file_stage::lock_), held by the writer's thread
// around each use of the descriptor (lock(), unlock(): std::lock_guard) and
// by a release from an open on another thread (try_lock(), which never
// waits). The writer takes it at every write, so taking it uncontended is
// one compare-and-swap and giving it back one store: with a std::mutex, a
// write per record (W16) spent two calls into the C library and two locked
// instructions on it. A writer that finds a release under way waits on the
// gate the release holds meanwhile (a few system calls; a close() on NFS
// may take longer), asleep, not spinning.
class stage_lock {
 public:
  void lock() noexcept {
    std::uint8_t expected = unheld;
    if (FASTOUT_LIKELY(state_.compare_exchange_strong(
            expected, held_by_writer, std::memory_order_acquire, std::memory_order_relaxed)))
      return;
    lock_after_release();
  }
  bool try_lock() noexcept;
  void unlock() noexcept {
    // Only the holder changes the state while it is held: this reads what
    // the holder itself wrote.
    if (FASTOUT_UNLIKELY(state_.load(std::memory_order_relaxed) == held_by_release)) {
      unlock_release();
      return;
    }
    state_.store(unheld, std::memory_order_release);
  }

 private:
  enum : std::uint8_t { unheld, held_by_writer, held_by_release };
  void lock_after_release() noexcept;
  void unlock_release() noexcept;

  std::atomic<std::uint8_t> state_{unheld};
  // Held by a release from before it takes the state until after it lets
  // go of it.
  std::mutex release_gate_;
};

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

  // Lets the descriptor be closed while the writer is idle, when another
  // open meets the descriptor limit, and `path` be reopened with
  // `open_flags` (those it was opened with, less O_CREAT, O_TRUNC and
  // O_EXCL) when the route next needs the file: at its own offset, or with
  // O_APPEND at the end, and only if the path still names the same file
  // (its identity: platform identify()). Once, after opening, before the
  // writer is used.
  void make_releasable(const std::string& path, int open_flags) noexcept;

  // For the registry (descriptors.cpp), which holds its own lock: closes
  // the descriptor if this stage's lock is free and the file is a regular
  // file whose offset is known.
  enum class release_result { released, busy, never };
  release_result try_release() noexcept;
  // When the file was last used (next_use_stamp()).
  std::uint64_t last_use() const noexcept { return last_use_.load(std::memory_order_relaxed); }
  // The registry's, under its lock: where this stage is in it, and whether
  // the release now under way passed it over.
  static constexpr std::size_t unregistered = SIZE_MAX;
  std::size_t registry_slot_ = unregistered;
  bool passed_over_ = false;

  int drain(char*& buffer, std::size_t capacity, std::size_t pending, const char* more,
            std::size_t more_size) noexcept override;
  int write(struct iovec* iov, int count) noexcept override;
  FASTOUT_HOT int flush() noexcept override { return 0; }
  int sync(bool metadata) noexcept override;
  int finish(int error_number, bool error_from_sync, bool commit) noexcept override;
  std::int64_t seek(std::int64_t offset, int whence) noexcept override;

  route_counts counts() const noexcept override;
  // A releasable stage's descriptor is the caller's from then on: the file
  // is reopened if it was released, and the stage never releases it again.
  // -1 if the reopen failed (the next call reports it).
  int descriptor() const noexcept override {
    return releasable_ ? const_cast<file_stage*>(this)->pin() : fd_;
  }
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
  int write_releasable(struct iovec* iov, int count) noexcept;
  // Under lock_: the descriptor back if it was released, or the error a
  // release left. 0, or the errno.
  int take_back_descriptor() noexcept;
  int reopen() noexcept;
  int pin() noexcept;

  int fd_;
  bool owns_fd_;
  bool uncached_;
  bool closing_failed_ = false;  // close() itself failed
  write_counts counts_;

  // Releasing (make_releasable()). releasable_ is set before any other
  // thread can see the stage and never changes; the rest is under lock_.
  bool releasable_ = false;
  bool append_ = false;
  bool pinned_ = false;    // descriptor() was asked: never released again
  bool released_ = false;  // the descriptor is closed; reopen before use
  bool reopen_failed_ = false;
  bool path_replaced_ = false;  // the path names another file now
  int release_error_ = 0;       // close() failed when it was released
  int reopen_flags_ = 0;
  off_t offset_ = 0;  // where the next byte goes, while released
  file_identity identity_;
  std::string path_;
  mutable stage_lock lock_;
  std::atomic<std::uint64_t> last_use_{0};
};

}  // namespace fastout::detail

#endif  // FASTOUT_STAGES_FILE_STAGE_INTERNAL_H_
