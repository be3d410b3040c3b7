// SPDX-License-Identifier: MIT
// A stage of the route out (stage_internal.h) for durability and safe
// replacement: writeback while writing, and what close() does beyond
// closing a descriptor -- syncing the file and its directory, releasing
// preallocated space, and for open_mode::replace creating a new file beside
// the target and putting it in place.
//
// A route has a sync_and_replace_stage, just before its file_stage, only
// when the writer's options ask for one of these (sync, sync_directory,
// preallocate, replace): src/open/open.cpp opens the file through it. Every
// system call goes through the platform table, so tests can fail any step.
// This header is internal: it is not installed.
#ifndef FASTOUT_REPLACE_INTERNAL_H_
#define FASTOUT_REPLACE_INTERNAL_H_

#include <fastout/errors.h>
#include <fastout/options.h>

#include "stages/stage_internal.h"

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "platform/platform_internal.h"  // struct stat, mode_t

namespace fastout::detail {

// The step of close() that failed: it decides the message and the error
// handler's report.
enum class close_stage {
  none,
  write,           // the last flush, or an earlier sticky error
  trim,            // releasing preallocated space (ftruncate)
  sync,            // fsync/fdatasync of the file
  close,           // close() of the file
  place,           // giving the new file its permissions and owner, linking, renaming
  directory_sync,  // fsync of the directory, after the file is in place
  remove_old,      // removing the target's old content after an exchange
  canceled,        // replace: destroyed without close() or commit(), or cancel()
};

// The file a path names once symbolic links are followed: its directory (an
// open descriptor), its name there, and what is there now.
struct resolved_path {
  int directory = -1;
  std::string shown;  // the resolved path, for messages only; never compared
  std::string name;
  bool exists = false;
  int links_followed = 0;
  struct stat st = {};
};

// Writeback while writing, for durable writers (sync): the disk writes what
// reached the file while the caller formats the rest, so that the sync in
// close() waits only for the tail. Every `range_size` bytes that reached
// the file, sync_file_range(SYNC_FILE_RANGE_WRITE) starts writing them back
// without waiting; once more than `ranges_in_flight` ranges were started,
// SYNC_FILE_RANGE_WAIT_BEFORE waits for the oldest, so that a writer faster
// than its disk keeps at most about 72 MiB not yet on disk instead of
// filling the page cache. It only hints: the sync in close() still makes
// everything durable. docs/safe-replace.md ("Writing back while writing")
// has the measurements behind the sizes.
class writeback {
 public:
  static constexpr std::uint64_t range_size = std::uint64_t{8} << 20;
  static constexpr int ranges_in_flight = 8;

  void enable() noexcept { enabled_ = true; }
  // After `size` more bytes reached `fd`. Returns 0, or the errno of a
  // writeback that failed. Where the file cannot take sync_file_range
  // (ENOSYS, EINVAL, ESPIPE: an old kernel, a filesystem or a pipe), it
  // stops asking and the sync in close() does it all, as without it.
  int reached_file(int fd, std::size_t size) noexcept {
    if (!enabled_) return 0;
    unstarted_ += size;
    return unstarted_ < range_size ? 0 : start(fd);
  }

 private:
  struct range {
    off_t begin, end;
  };
  int start(int fd) noexcept;
  int give_up(int error_number) noexcept;

  bool enabled_ = false;
  std::uint64_t unstarted_ = 0;  // reached the file since the last range started
  // The ranges started and not yet waited for, oldest first, in a ring.
  range started_[ranges_in_flight + 1] = {};
  int oldest_ = 0;
  int count_ = 0;
};

class sync_and_replace_stage final : public stage {
 public:
  // Whether a writer with these options needs this stage at all.
  static bool needed(const file_options& options) noexcept;

  // Opens `path` as `options` say and returns the stage; `fd` receives the
  // descriptor to write to (the new file, with open_mode::replace), which
  // the file_stage that opening puts after it (set_next()) writes and
  // closes. `open_flags` are open()'s flags for the other modes. Throws
  // std::system_error naming the path and the cause.
  static std::unique_ptr<sync_and_replace_stage> open_path(const std::string& path,
                                                           const file_options& options,
                                                           int open_flags, int& fd);
  // For an adopted or borrowed descriptor: sync and preallocate only. Throws
  // std::system_error(EINVAL) for options that need a path.
  static std::unique_ptr<sync_and_replace_stage> for_descriptor(const std::string& name,
                                                                const file_options& options);

  ~sync_and_replace_stage() override;

  // Reserves the preallocation asked for, from the file's current end, once
  // the next stage is there. Failures are not errors: the writer writes
  // without it.
  void preallocate() noexcept;

  // The stage: writeback of what went through; at close, sync, trim, close,
  // put in place, sync the directory (see replace.cpp); with `commit` false
  // a replacement is discarded.
  int write(struct iovec* iov, int count) noexcept override;
  int sync(bool metadata) noexcept override;
  int finish(int error_number, bool error_from_sync, bool commit) noexcept override;
  bool provisional() const noexcept override { return replace_; }
  void complete_report(error_report& report, std::uint64_t accepted) const noexcept override;
  int abandon_error() const noexcept override { return leftover_.empty() ? 0 : leftover_error_; }
  bool failed_in_writeback() const noexcept override { return writeback_failed_; }
  bool describes_close() const noexcept override { return true; }

  bool replacing() const noexcept { return replace_; }
  close_stage failed_step() const noexcept { return stage_; }
  // A replacement that was not put in place (discarded, or failed before).
  bool not_replaced() const noexcept { return replace_ && !placed_; }
  // A new file that could not be removed after a discarded replacement.
  bool left_behind() const noexcept { return !leftover_.empty(); }

  // The message of the failure finish() returned, naming `path` and saying
  // what reached the file (`delivered` of `accepted` bytes) and what became
  // of the target. The cause (errno) is appended by std::system_error.
  std::string describe_close_failure(const std::string& path, std::uint64_t delivered,
                                     std::uint64_t accepted, bool sync_failed) const override;

 private:
  sync_and_replace_stage() noexcept : stage(nullptr) {}
  void open_replacement(const std::string& path, const file_options& options, int& fd);
  void create_temporary(const std::string& prefix, int& fd);
  int protect(int fd, bool named) noexcept;
  int release_lock() noexcept;
  void remove_abandoned(const std::string& prefix);
  int fail(close_stage failed, int error_number, std::string detail = {}) noexcept;
  int close_file() noexcept;
  int finish_replacement(int fd) noexcept;
  int finish_plain(int fd, int error_number, close_stage earlier) noexcept;
  int trim(int fd) noexcept;
  int set_owner_and_mode(int fd, const struct stat* target) noexcept;
  int link_temporary(int fd) noexcept;
  int put_in_place(bool target_exists) noexcept;
  int sync_directory() noexcept;
  int check_target(bool& exists, struct stat& now) noexcept;
  void discard() noexcept;
  void close_directory() noexcept;

  // What was asked.
  bool replace_ = false;
  bool sync_ = false;
  bool sync_directory_ = false;
  bool follow_links_ = true;
  unsigned permissions_ = 0666;
  std::uint64_t preallocate_ = 0;

  // Where the file is: the directory that holds its (final) name.
  int directory_ = -1;
  std::string shown_;            // the resolved path when links were followed, else empty
  std::string directory_shown_;  // the directory's path, for messages
  std::string name_;

  // open_mode::replace: the new file.
  bool unnamed_ = false;   // O_TMPFILE: no name until it is linked
  std::string temporary_;  // its name in directory_ (a named one, or once linked)
  // A second descriptor on the new file that holds its lock (platform.try_lock())
  // until it is in place or removed: other writers' clean-ups leave a
  // locked file alone. Let go just before the rename where the system
  // cannot move a file its writer holds (EBUSY: Windows' ReplaceFileW).
  // -1 once released, or where locks are unavailable.
  int lock_fd_ = -1;
  // Whether the target existed when last looked at (at open, then in
  // close()), for the messages.
  bool target_exists_ = true;

  // With sync: starting the writeback of what reached the file.
  writeback writeback_;
  bool writeback_failed_ = false;  // the last write()'s failure was the writeback's

  // Preallocation: the end of the reserved range, 0 if none was made.
  std::uint64_t reserved_end_ = 0;

  // The outcome.
  bool placed_ = false;
  close_stage stage_ = close_stage::none;
  std::string detail_;    // what the failing step adds to the message
  std::string leftover_;  // a file that could not be removed, for the message
  int leftover_error_ = 0;
};

}  // namespace fastout::detail

#endif  // FASTOUT_REPLACE_INTERNAL_H_
