// SPDX-License-Identifier: MIT
// Descriptors beyond the process's limit (issue 28; docs/guide.md, "Many
// outputs"). Every open of a writer's file, and of what a replacement opens
// beside it, goes through open_retrying_descriptor_limit(): on EMFILE it
// raises the soft limit toward the hard one, once per process
// (raise_descriptor_limit_once(), platform/operations.cpp), and then closes
// the descriptor of the least recently used idle writer that may be
// released, and tries again, until the open succeeds, fails otherwise, or
// no writer is left to release.
//
// Releasable are the file stages (file_stage_internal.h) of writers that
// opened a regular file by path themselves, without sync, sync_directory,
// preallocate or replace, and that did not ask to keep their descriptor
// (file_options::keep_descriptor_open) nor gave it out (descriptor()). A
// released stage reopens its path when its route next needs the file. The
// registry below holds those that hold a descriptor now; a writer's hot path
// never reaches it, and a stage takes its own lock only in its slow paths.
//
// Locks, in the only order taken: a stage's own lock, then the registry's.
// The registry only ever try_lock()s a stage's lock, so a stage that holds
// its own and waits for the registry's cannot deadlock with it.
// Internal: not installed.
#ifndef FASTOUT_STAGES_DESCRIPTORS_INTERNAL_H_
#define FASTOUT_STAGES_DESCRIPTORS_INTERNAL_H_

#include <cerrno>
#include <cstdint>
#include <type_traits>

namespace fastout::detail {

class file_stage;

// A stage that holds a descriptor it may give up; once only, from
// file_stage, under the stage's own lock.
void register_releasable(file_stage* stage) noexcept;
// No longer releasable (it was released, pinned, or is closing); nothing if
// it is not registered.
void unregister_releasable(file_stage* stage) noexcept;
// Closes the descriptor of the least recently used registered stage whose
// lock is free (file_stage::try_release()): `released`; or `busy`, none
// closed but some passed over because their writer is in a slow path now
// (sending a buffer, closing), which ends soon and may give a descriptor
// back; or `none`, nothing left to release.
enum class release_outcome { released, busy, none };
release_outcome release_idle_descriptor() noexcept;
// A stamp that orders uses: a stage takes one at each use of its file, and
// the registry releases the stage with the smallest.
std::uint64_t next_use_stamp() noexcept;
// The stamp of a use now by a stage whose last use took `last`: `last`
// again when no stage has taken one since (it is still the latest), so
// that a writer that sends a record at a time does not write the shared
// clock each time; else next_use_stamp().
std::uint64_t use_stamp_after(std::uint64_t last) noexcept;

// The rest of open_retrying_descriptor_limit(), out of line: `open` has
// failed with EMFILE once.
int open_after_emfile(int (*open)(void* context), void* context) noexcept;

/// Runs `open` (a call that makes a descriptor, or any call of the table
/// that returns -1 and errno, such as list_directory()), and when it fails
/// with EMFILE, makes room as the header says and runs it again. Returns
/// what it last returned, with errno. ENFILE (the system's table is full)
/// is left as it is: no limit of the process's is at fault.
template <typename Open>
int open_retrying_descriptor_limit(Open&& open) {
  const int result = open();
  if (result >= 0 || errno != EMFILE) return result;
  return open_after_emfile(
      [](void* context) { return (*static_cast<std::remove_reference_t<Open>*>(context))(); },
      &open);
}

}  // namespace fastout::detail

#endif  // FASTOUT_STAGES_DESCRIPTORS_INTERNAL_H_
